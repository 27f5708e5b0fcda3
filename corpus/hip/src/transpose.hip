// A tiled matrix transpose: 2-D work-groups stage a 16x16 tile in padded static shared memory.
#include "hx_hip.h"

#define TILE 16

KERNEL void transpose(const float *in, float *out, u32 rows, u32 cols) {
  __shared__ float tile[TILE][TILE + 1];
  u32 tx = thread_x(), ty = thread_y();
  u32 c = block_x() * TILE + tx, r = block_y() * TILE + ty;
  if (r < rows && c < cols) tile[ty][tx] = in[(u64)r * cols + c];
  sync_threads();
  u32 oc = block_y() * TILE + tx, or_ = block_x() * TILE + ty;
  if (or_ < cols && oc < rows) out[(u64)or_ * rows + oc] = tile[tx][ty];
}
