// Non-inlined device functions: a call chain with several arguments, a pointer argument, a 64-bit
// result, and a function that indexes a private array (its frame lives in scratch).
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

NOINLINE __device__ u32 pick(u32 seed, u32 k) {
  volatile u32 table[8];
  for (u32 i = 0; i < 8; ++i) table[i] = seed * (i + 1) ^ (seed >> i);
  return table[k & 7];
}

KERNEL void calls(const u32 *a, const i32 *coef, u64 *wide, i32 *pv, u32 *picked) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  u32 x = a[g];
  wide[g] = widen(x, (u32)g + 1);
  pv[g] = poly(coef, 5, (i32)(x & 15) - 8);
  picked[g] = pick(x, x >> 29);
}
