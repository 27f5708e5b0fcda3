// OpenCL 2.0 atomics on global and local memory, through the generic address space: a helper takes
// a generic pointer and is called with a __local and a __global one. min, max, add, or, xor.
#include "hx_cl.h"

__attribute__((noinline)) void bump(volatile atomic_int *p, int v) {
  __opencl_atomic_fetch_add(p, v, memory_order_relaxed, memory_scope_device);
}

__kernel void atomics_cl(__global const int *in, __global int *glob, __global int *per_group) {
  __local atomic_int acc[4];
  u32 t = local_id(0);
  if (t < 4) __opencl_atomic_store(&acc[t], t == 1 ? 0x7fffffff : t == 2 ? (int)0x80000000 : 0, memory_order_relaxed, memory_scope_work_group);
  local_barrier();
  int v = in[global_id(0)];
  bump((volatile atomic_int *)&acc[0], v);
  __opencl_atomic_fetch_min(&acc[1], v, memory_order_relaxed, memory_scope_work_group);
  __opencl_atomic_fetch_max(&acc[2], v, memory_order_relaxed, memory_scope_work_group);
  __opencl_atomic_fetch_xor(&acc[3], v, memory_order_relaxed, memory_scope_work_group);
  bump((volatile __global atomic_int *)&glob[0], v);
  __opencl_atomic_fetch_or((volatile __global atomic_int *)&glob[1], 1 << (v & 31), memory_order_relaxed, memory_scope_device);
  local_barrier();
  if (t < 4) per_group[group_id(0) * 4 + t] = __opencl_atomic_load(&acc[t], memory_order_relaxed, memory_scope_work_group);
}
