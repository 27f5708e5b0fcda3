// A non-inlined device function with a private array indexed by a runtime value: its frame lives in
// scratch, and the kernel passes it a pointer to its own private array (a flat pointer to private
// memory).
#include "hx_hip.h"

NOINLINE __device__ u32 pick(u32 seed, u32 k) {
  volatile u32 table[8];
  for (u32 i = 0; i < 8; ++i) table[i] = seed * (i + 1) ^ (seed >> i);
  return table[k & 7];
}

NOINLINE __device__ void fill(u32 *dst, u32 n, u32 v) {
  for (u32 i = 0; i < n; ++i) dst[i] = v + i * i;
}

KERNEL void private_array(const u32 *a, u32 *picked, u32 *summed) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  u32 x = a[g];
  picked[g] = pick(x, x >> 29);
  u32 local[6];
  fill(local, 6, x & 0xffff);
  u32 s = 0;
  for (u32 i = 0; i < 6; ++i) s += local[(i + x) % 6] * (i + 1);
  summed[g] = s;
}
