// What a HIP kernel learns about its launch: blockDim through the implicit arguments, gridDim
// (hidden_block_count) and the HSA dispatch packet's work-group and grid sizes. A 2-D launch; each
// work-item writes 8 words at its linear global index. HIP launches whole blocks (and clang compiles
// HIP with uniform-work-group-size), so blockDim never reads a remainder here; the OpenCL and llc
// kernels have partial work-groups.
#include "hx_hip.h"

KERNEL void geometry(u32 *out, u32 row_len) {
  u32 x = block_x() * packet_group_size(0) + thread_x();
  u32 y = block_y() * packet_group_size(1) + thread_y();
  u64 g = (u64)y * row_len + x;
  u32 *o = out + g * 8;
  o[0] = block_dim_x();
  o[1] = block_dim_y();
  o[2] = grid_dim_x();
  o[3] = grid_dim_y();
  o[4] = packet_group_size(0);
  o[5] = packet_group_size(1);
  o[6] = packet_grid_size(0);
  o[7] = packet_grid_size(1);
}
