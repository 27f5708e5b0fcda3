// Static and dynamic shared memory together: the dynamic block (extern __shared__) starts after
// the kernel's static LDS. A per-group histogram in static memory, a staged copy in dynamic memory,
// and each work-item's result reads both.
#include "hx_hip.h"

extern __shared__ u32 staged[];

KERNEL void mixed_shared(const u32 *in, u32 *out) {
  __shared__ u32 hist[32];
  u32 t = thread_x(), n = block_dim_x();
  u64 g = (u64)block_x() * n + t;
  if (t < 32) hist[t] = 0;
  u32 v = in[g];
  staged[t] = v;
  sync_threads();
  __hip_atomic_fetch_add(&hist[v & 31], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  sync_threads();
  out[g] = staged[(t + 5) % n] + 1000u * hist[v & 31];
}
