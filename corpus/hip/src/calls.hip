// Non-inlined device functions: a call chain with several arguments, a pointer argument and a
// 64-bit result (no stack: the frames fit in registers). private_array.hip has one with a frame.
#include "hx_hip.h"

NOINLINE __device__ u32 mix(u32 a, u32 b, u32 c) {
  a ^= b >> 3;
  b += c * 2654435761u;
  return (a << 7 | a >> 25) + b;
}

NOINLINE __device__ u64 widen(u32 a, u32 b) { return (u64)a * b + mix(a, b, a ^ b); }

NOINLINE __device__ i32 poly(const i32 *coef, i32 n, i32 x) {
  i32 r = 0;
  for (i32 i = n - 1; i >= 0; --i) r = r * x + coef[i];
  return r;
}

KERNEL void calls(const u32 *a, const i32 *coef, u64 *wide, i32 *pv) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  u32 x = a[g];
  wide[g] = widen(x, (u32)g + 1);
  pv[g] = poly(coef, 5, (i32)(x & 15) - 8);
}
