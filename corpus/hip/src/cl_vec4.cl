// OpenCL vector types: float4 loads, arithmetic, swizzles and a componentwise dot product (dot() is a library call); a static __local tile
// of float4 shared across the work-group; get_num_groups and get_local_size from the implicit
// arguments, in a launch whose last work-group is partial (OpenCL 2.0 non-uniform work-groups).
#include "hx_cl.h"

__kernel void vec4(__global const float4 *a, __global const float4 *b, __global float4 *c, __global float *dots) {
  __local float4 tile[64];
  u32 t = local_id(0), n = local_size(0);
  u64 g = global_id(0);
  float4 x = a[g], y = b[g];
  tile[t] = x * y.wzyx;
  local_barrier();
  float4 nb = tile[(t + 1) % n];
  c[g] = nb + (float4)((float)num_groups(0), (float)n, x.x, y.y);
  float4 p = x * y;
  dots[g] = (p.x + p.y) + (p.z + p.w);
}
