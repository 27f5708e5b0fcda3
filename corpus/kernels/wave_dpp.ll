; wave_dpp: DPP lane shuffles (llvm.amdgcn.update.dpp) in work-groups of exactly 32 work-items
; (one wave32, or the lower half of a wave64). Every control used stays inside a row of 16 lanes.
; lane = workitem.id.x, r = lane & 15 (position in its row), x = in[gid]:
;   shr[gid]  = row_shr:1 (0x111), old 0xDEAD, bound_ctrl off: r >= 1 ? x[lane-1] : 0xDEAD
;   qp[gid]   = quad_perm [2,3,0,1] (0x4E): x[(lane & ~3) | sel[lane & 3]], sel = {2,3,0,1}
;   mir[gid]  = row_mirror (0x140): x[(lane & ~15) | (15 - r)]
;   hmir[gid] = row_half_mirror (0x141): x[(lane & ~7) | (7 - (lane & 7))]
;   ror[gid]  = row_ror:3 (0x123): x[(lane & ~15) | ((r - 3) & 15)]
;   scan[gid] = inclusive prefix sum of x within the row: four steps s += row_shr:{1,2,4,8}(s), old 0,
;               bound_ctrl on (lanes whose source is outside the row read 0)
;   rowm[gid] = row_shl:2 (0x102), row_mask 0x1, old 7, bound_ctrl off:
;               lane < 16 && r + 2 < 16 ? x[lane+2] : 7     (row 1 is masked off and keeps 7)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wave_dpp(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %shr,
                                    ptr addrspace(1) noalias %qp, ptr addrspace(1) noalias %mir,
                                    ptr addrspace(1) noalias %hmir, ptr addrspace(1) noalias %ror,
                                    ptr addrspace(1) noalias %scan, ptr addrspace(1) noalias %rowm) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4

  %v0 = call i32 @llvm.amdgcn.update.dpp.i32(i32 57005, i32 %x, i32 273, i32 15, i32 15, i1 false)
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %shr, i64 %ge
  store i32 %v0, ptr addrspace(1) %p0, align 4

  %v1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 78, i32 15, i32 15, i1 true)
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %qp, i64 %ge
  store i32 %v1, ptr addrspace(1) %p1, align 4

  %v2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 320, i32 15, i32 15, i1 true)
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %mir, i64 %ge
  store i32 %v2, ptr addrspace(1) %p2, align 4

  %v3 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 321, i32 15, i32 15, i1 true)
  %p3 = getelementptr inbounds i32, ptr addrspace(1) %hmir, i64 %ge
  store i32 %v3, ptr addrspace(1) %p3, align 4

  %v4 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 291, i32 15, i32 15, i1 true)
  %p4 = getelementptr inbounds i32, ptr addrspace(1) %ror, i64 %ge
  store i32 %v4, ptr addrspace(1) %p4, align 4

  %d1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 273, i32 15, i32 15, i1 true)
  %s1 = add i32 %x, %d1
  %d2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %s1, i32 274, i32 15, i32 15, i1 true)
  %s2 = add i32 %s1, %d2
  %d4 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %s2, i32 276, i32 15, i32 15, i1 true)
  %s4 = add i32 %s2, %d4
  %d8 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %s4, i32 280, i32 15, i32 15, i1 true)
  %s8 = add i32 %s4, %d8
  %p5 = getelementptr inbounds i32, ptr addrspace(1) %scan, i64 %ge
  store i32 %s8, ptr addrspace(1) %p5, align 4

  %v6 = call i32 @llvm.amdgcn.update.dpp.i32(i32 7, i32 %x, i32 258, i32 1, i32 15, i1 false)
  %p6 = getelementptr inbounds i32, ptr addrspace(1) %rowm, i64 %ge
  store i32 %v6, ptr addrspace(1) %p6, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
