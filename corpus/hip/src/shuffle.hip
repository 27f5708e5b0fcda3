// Warp shuffles written with ds_bpermute, in 32-lane segments so that the result is the same in a
// wave32 and a wave64 build: a butterfly (xor) sum and an inclusive scan (shfl_up) of each segment.
#include "hx_hip.h"

KERNEL void shuffle(const i32 *in, i32 *sum, i32 *scan) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  i32 v = in[g];
  i32 s = v;
  for (u32 m = 16; m > 0; m >>= 1) s += shfl_xor(s, m, 32);
  sum[g] = s;
  i32 c = v;
  for (u32 d = 1; d < 32; d <<= 1) {
    i32 up = shfl_up(c, d, 32);
    if ((lane_id() & 31) >= d) c += up;
  }
  scan[g] = c;
}
