// Built as LLVM IR by clang -O1 and compiled by plain llc (no attributor, so the kernel descriptor
// enables the dispatch-pointer, queue-pointer and dispatch-id user SGPRs whether or not the code
// uses them). Reads its geometry from the dispatch packet and its arguments through the kernarg
// pointer; a grid-stride loop over n elements.
#include "hx_hip.h"

KERNEL void llc_packet(const i32 *a, const i32 *b, i32 *c, u32 *geom, u32 n) {
  u32 bs = packet_group_size(0);
  u32 stride = packet_grid_size(0);
  u32 t = thread_x();
  for (u32 i = block_x() * bs + t; i < n; i += stride) c[i] = a[i] * 3 - b[i];
  if (block_x() == 0 && t == 0) {
    geom[0] = bs;
    geom[1] = stride;
    geom[2] = grid_dim_x();
  }
}
