// Atomics as HIP code uses them: a global histogram (atomicAdd), a histogram in shared memory
// flushed to global memory, a global maximum and minimum, and a float sum through a
// compare-and-swap loop. Integer results do not depend on the order; the float sum adds integers
// small enough to be exact in any order.
#include "hx_hip.h"

#define BINS 64

static __device__ inline void atomic_add_float(float *p, float v) {
  u32 *w = (u32 *)p;
  u32 old = __hip_atomic_load(w, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  for (;;) {
    u32 want = __builtin_bit_cast(u32, __builtin_bit_cast(float, old) + v);
    if (__hip_atomic_compare_exchange_strong(w, &old, want, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                             __HIP_MEMORY_SCOPE_AGENT))
      break;
  }
}

KERNEL void atomics(const i32 *in, u32 *hist, u32 *lhist, i32 *extremes, float *fsum, u32 n) {
  __shared__ u32 local[BINS];
  u32 t = thread_x();
  for (u32 i = t; i < BINS; i += block_dim_x()) local[i] = 0;
  sync_threads();
  u64 g = (u64)block_x() * block_dim_x() + t;
  if (g < n) {
    i32 v = in[g];
    __hip_atomic_fetch_add(&hist[v & (BINS - 1)], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(&local[(v >> 6) & (BINS - 1)], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_max(&extremes[0], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_min(&extremes[1], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    atomic_add_float(fsum, (float)(v % 100));
  }
  sync_threads();
  for (u32 i = t; i < BINS; i += block_dim_x())
    if (local[i]) __hip_atomic_fetch_add(&lhist[i], local[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
