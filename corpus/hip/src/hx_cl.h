// Our own minimal OpenCL C work-item vocabulary for corpus/hip: with no device library on the build
// machine, get_local_id & co. and barrier() are written with clang's builtins (what a device
// library would compute), so every helper lowers to instructions.
#pragma once

typedef unsigned int u32;
typedef unsigned long u64;

static inline u32 local_id(int d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x() : d == 1 ? __builtin_amdgcn_workitem_id_y() : __builtin_amdgcn_workitem_id_z();
}
static inline u32 group_id(int d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x() : d == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();
}
// The implicit arguments (code object v5): hidden_block_count_{x,y,z} (full work-groups) at 0,
// hidden_group_size_{x,y,z} at 12, hidden_remainder_{x,y,z} at 18.
static inline __constant u32 *implicit_args(void) { return (__constant u32 *)__builtin_amdgcn_implicitarg_ptr(); }
// get_local_size: the group size, or the remainder in a partial last group (as a device library
// computes it; clang's __builtin_amdgcn_workgroup_size_* reads only the group size).
static inline u32 local_size(int d) {
  __constant unsigned short *gs = (__constant unsigned short *)(implicit_args() + 3);
  return group_id(d) < implicit_args()[d] ? gs[d] : gs[3 + d];
}
// get_num_groups: the full groups plus one for a partial last group.
static inline u32 num_groups(int d) {
  __constant unsigned short *gs = (__constant unsigned short *)(implicit_args() + 3);
  return implicit_args()[d] + (gs[3 + d] != 0);
}
// get_global_id with a zero global offset: group id times the full group size (the dispatch
// packet's), plus the local id.
static inline u64 global_id(int d) {
  __constant unsigned short *p = (__constant unsigned short *)__builtin_amdgcn_dispatch_ptr();
  return (u64)group_id(d) * p[2 + d] + local_id(d);
}

// barrier(CLK_LOCAL_MEM_FENCE)
static inline void local_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
