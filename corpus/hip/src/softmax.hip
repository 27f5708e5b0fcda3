// Row softmax: one work-group of 64 work-items per row; the row maximum and sum are reduced first
// within 32-lane shuffle segments, then across segments in shared memory. exp is
// __builtin_expf, which clang lowers to the hardware's exp2.
#include "hx_hip.h"

static __device__ inline float shfl_xor_f(float v, u32 m) {
  return __builtin_bit_cast(float, shfl_xor(__builtin_bit_cast(i32, v), m, 32));
}

KERNEL void softmax(const float *x, float *y, u32 cols) {
  __shared__ float part[2];
  u32 t = thread_x();
  const float *row = x + (u64)block_x() * cols;
  float *orow = y + (u64)block_x() * cols;
  float m = -__builtin_inff();
  for (u32 c = t; c < cols; c += 64) m = __builtin_fmaxf(m, row[c]);
  for (u32 k = 16; k > 0; k >>= 1) m = __builtin_fmaxf(m, shfl_xor_f(m, k));
  if ((t & 31) == 0) part[t >> 5] = m;
  sync_threads();
  m = __builtin_fmaxf(part[0], part[1]);
  sync_threads();
  float s = 0.0f;
  for (u32 c = t; c < cols; c += 64) s += __builtin_expf(row[c] - m);
  for (u32 k = 16; k > 0; k >>= 1) s += shfl_xor_f(s, k);
  if ((t & 31) == 0) part[t >> 5] = s;
  sync_threads();
  float inv = 1.0f / (part[0] + part[1]);
  for (u32 c = t; c < cols; c += 64) orow[c] = __builtin_expf(row[c] - m) * inv;
}
