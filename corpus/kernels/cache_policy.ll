; cache_policy: prefetches and cache-policy/scope bits: s_prefetch_data (scalar data prefetch),
; global_prefetch_b8 (llvm.amdgcn.global.prefetch), nontemporal loads and stores (th:TH_LOAD_NT /
; TH_STORE_NT), an agent-scope acquire load (scope:SCOPE_DEV plus global_inv) and a system-scope
; release store (global_wb, scope:SCOPE_SYS). Work-groups of exactly 32 work-items. gfx1250 only
; (global.prefetch has no gfx9 form). None of these changes a result:
;   out[g] = in[g] + in[g + 64], flag[g] = in[g]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @cache_policy(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out,
                                        ptr addrspace(1) noalias %flag) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  call void @llvm.amdgcn.s.prefetch.data.p1(ptr addrspace(1) %in, i32 31)
  call void @llvm.amdgcn.global.prefetch(ptr addrspace(1) %pi, i32 0)
  %a = load i32, ptr addrspace(1) %pi, align 4, !nontemporal !1
  %pi2 = getelementptr inbounds i32, ptr addrspace(1) %pi, i64 64
  %b = load atomic i32, ptr addrspace(1) %pi2 syncscope("agent") acquire, align 4
  %s = add i32 %a, %b
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ge
  store i32 %s, ptr addrspace(1) %po, align 4, !nontemporal !1
  %pf = getelementptr inbounds i32, ptr addrspace(1) %flag, i64 %ge
  store atomic i32 %a, ptr addrspace(1) %pf syncscope("one-as") release, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.prefetch.data.p1(ptr addrspace(1), i32)
declare void @llvm.amdgcn.global.prefetch(ptr addrspace(1), i32 immarg)
attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
!1 = !{i32 1}
