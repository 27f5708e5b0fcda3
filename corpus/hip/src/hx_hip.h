// Our own minimal HIP device vocabulary for corpus/hip: there is no ROCm (no HIP headers, no device
// libraries) on the build machine, so kernels spell what hip_runtime.h would give them with clang's
// builtins. Every helper here lowers to instructions, never to a library call.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define NOINLINE __attribute__((noinline))
#define KERNEL extern "C" __global__

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

typedef const __attribute__((address_space(4))) u32 *const_u32_ptr;

// threadIdx / blockIdx.
static __device__ inline u32 thread_x() { return __builtin_amdgcn_workitem_id_x(); }
static __device__ inline u32 thread_y() { return __builtin_amdgcn_workitem_id_y(); }
static __device__ inline u32 block_x() { return __builtin_amdgcn_workgroup_id_x(); }
static __device__ inline u32 block_y() { return __builtin_amdgcn_workgroup_id_y(); }

// blockDim as HIP reads it: code object v5's implicit argument hidden_group_size (clang expands the
// builtin to that load; HIP launches whole work-groups).
static __device__ inline u32 block_dim_x() { return __builtin_amdgcn_workgroup_size_x(); }
static __device__ inline u32 block_dim_y() { return __builtin_amdgcn_workgroup_size_y(); }

// gridDim as HIP reads it: hidden_block_count_{x,y} at offsets 0 and 4 of the implicit arguments.
static __device__ inline u32 grid_dim_x() { return ((const_u32_ptr)__builtin_amdgcn_implicitarg_ptr())[0]; }
static __device__ inline u32 grid_dim_y() { return ((const_u32_ptr)__builtin_amdgcn_implicitarg_ptr())[1]; }

// The HSA dispatch packet: workgroup_size_{x,y,z} are u16 at bytes 4..10, grid_size_{x,y,z} u32 at
// bytes 12..24.
static __device__ inline u32 packet_group_size(int d) {
  const __attribute__((address_space(4))) unsigned short *p =
      (const __attribute__((address_space(4))) unsigned short *)__builtin_amdgcn_dispatch_ptr();
  return p[2 + d];
}
static __device__ inline u32 packet_grid_size(int d) { return ((const_u32_ptr)__builtin_amdgcn_dispatch_ptr())[3 + d]; }

// __syncthreads: a work-group barrier with work-group-scope release/acquire fences.
static __device__ inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

static __device__ inline u32 wave_size() { return __builtin_amdgcn_wavefrontsize(); }

// The lane's index in its wave (mbcnt over an all-ones mask).
static __device__ inline u32 lane_id() {
  u32 lo = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
  return wave_size() == 64 ? __builtin_amdgcn_mbcnt_hi(~0u, lo) : lo;
}

// __shfl: the value of `v` in lane `src` of this wave (ds_bpermute addresses lanes in bytes).
static __device__ inline i32 shfl(i32 v, u32 src) { return __builtin_amdgcn_ds_bpermute((i32)(src << 2), v); }
// __shfl_xor and __shfl_up within segments of `width` lanes (a power of two up to 32), so that the
// result does not depend on the wave size.
static __device__ inline i32 shfl_xor(i32 v, u32 mask, u32 width) {
  u32 l = lane_id();
  u32 src = l ^ mask;
  if ((src & ~(width - 1)) != (l & ~(width - 1))) src = l;
  return shfl(v, src);
}
static __device__ inline i32 shfl_up(i32 v, u32 delta, u32 width) {
  u32 l = lane_id();
  u32 src = (l & (width - 1)) >= delta ? l - delta : l;
  return shfl(v, src);
}
