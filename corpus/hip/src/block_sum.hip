// A work-group sum in static shared memory: a tree reduction with __syncthreads between steps.
// 64-bit accumulation of 32-bit inputs; one result per work-group.
#include "hx_hip.h"

#define BLOCK 256

KERNEL void block_sum(const i32 *in, i64 *out, u32 n) {
  __shared__ i64 part[BLOCK];
  u32 t = thread_x();
  u32 g = block_x() * BLOCK + t;
  part[t] = g < n ? (i64)in[g] : 0;
  sync_threads();
  for (u32 s = BLOCK / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    sync_threads();
  }
  if (t == 0) out[block_x()] = part[0];
}
