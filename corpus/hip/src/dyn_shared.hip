// Dynamic shared memory (extern __shared__, sized by the launch): each work-group reverses its
// slice of the input through it, scaling by the group's index.
#include "hx_hip.h"

extern __shared__ float stage[];

KERNEL void dyn_shared(const float *in, float *out) {
  u32 t = thread_x(), n = block_dim_x();
  u64 base = (u64)block_x() * n;
  stage[t] = in[base + t];
  sync_threads();
  out[base + t] = stage[n - 1 - t] * (float)(block_x() + 1);
}
