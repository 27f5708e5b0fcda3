// An inclusive prefix sum of each work-group's slice (Hillis-Steele, double-buffered in static
// shared memory), for a block size given by the launch (up to 256).
#include "hx_hip.h"

KERNEL void scan(const i32 *in, i32 *out) {
  __shared__ i32 buf[2][256];
  u32 t = thread_x(), n = block_dim_x();
  u64 g = (u64)block_x() * n + t;
  u32 cur = 0;
  buf[0][t] = in[g];
  sync_threads();
  for (u32 d = 1; d < n; d <<= 1) {
    i32 v = buf[cur][t];
    if (t >= d) v += buf[cur][t - d];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    sync_threads();
  }
  out[g] = buf[cur][t];
}
