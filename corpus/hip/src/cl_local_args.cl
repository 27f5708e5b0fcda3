// OpenCL `__local` pointer arguments: the host sizes two local buffers (clSetKernelArg with a size
// and no pointer); the kernel receives each as its offset in the work-group's LDS. A sum reduction
// in the first and a histogram of the low 4 bits, with local atomics, in the second.
#include "hx_cl.h"

__kernel void local_args(__global const int *in, __global int *out, __local int *sums, __local uint *bins) {
  u32 t = local_id(0), n = local_size(0);
  if (t < 16) bins[t] = 0;
  int v = in[global_id(0)];
  sums[t] = v;
  local_barrier();
  __opencl_atomic_fetch_add((volatile __local atomic_uint *)&bins[v & 15], 1u, memory_order_relaxed, memory_scope_work_group);
  for (u32 s = n / 2; s > 0; s >>= 1) {
    if (t < s) sums[t] += sums[t + s];
    local_barrier();
  }
  __global int *o = out + group_id(0) * 17;
  if (t == 0) o[0] = sums[0];
  if (t < 16) o[1 + t] = (int)bins[t];
}
