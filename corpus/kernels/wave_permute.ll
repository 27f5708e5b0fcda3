; wave_permute: LDS-crossbar lane permutes (ds_bpermute, ds_permute) and ds_swizzle in work-groups
; of exactly 32 work-items; every lane index used is below 32. lane = workitem.id.x, x = in[gid]:
;   bp1[gid]  = bpermute: x[(5*lane + 3) & 31]
;   bp2[gid]  = bpermute: x[31 - lane]
;   perm[gid] = permute (forward): lane l sends x[l] to lane (7*l + 1) & 31 (a bijection)
;   swx[gid]  = swizzle bitmask and=0x1f or=0 xor=1   (offset 0x041F): x[lane ^ 1]
;   swb[gid]  = swizzle bitmask and=0x18 or=3 xor=0   (offset 0x0078): x[(lane & 0x18) | 3]
;   swr[gid]  = swizzle bitmask and=0x1f or=0 xor=0x1f (offset 0x7C1F): x[lane ^ 31]
;   swq[gid]  = swizzle quad perm [3,2,1,0]           (offset 0x801B): x[(lane & ~3) | (3 - (lane & 3))]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wave_permute(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %bp1,
                                        ptr addrspace(1) noalias %bp2, ptr addrspace(1) noalias %perm,
                                        ptr addrspace(1) noalias %swx, ptr addrspace(1) noalias %swb,
                                        ptr addrspace(1) noalias %swr, ptr addrspace(1) noalias %swq) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4

  %l5 = mul i32 %lane, 5
  %l53 = add i32 %l5, 3
  %s1 = and i32 %l53, 31
  %a1 = shl i32 %s1, 2
  %v1 = call i32 @llvm.amdgcn.ds.bpermute(i32 %a1, i32 %x)
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %bp1, i64 %ge
  store i32 %v1, ptr addrspace(1) %p1, align 4

  %s2 = sub i32 31, %lane
  %a2 = shl i32 %s2, 2
  %v2 = call i32 @llvm.amdgcn.ds.bpermute(i32 %a2, i32 %x)
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %bp2, i64 %ge
  store i32 %v2, ptr addrspace(1) %p2, align 4

  %l7 = mul i32 %lane, 7
  %l71 = add i32 %l7, 1
  %d3 = and i32 %l71, 31
  %a3 = shl i32 %d3, 2
  %v3 = call i32 @llvm.amdgcn.ds.permute(i32 %a3, i32 %x)
  %p3 = getelementptr inbounds i32, ptr addrspace(1) %perm, i64 %ge
  store i32 %v3, ptr addrspace(1) %p3, align 4

  %v4 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 1055)
  %p4 = getelementptr inbounds i32, ptr addrspace(1) %swx, i64 %ge
  store i32 %v4, ptr addrspace(1) %p4, align 4

  %v5 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 120)
  %p5 = getelementptr inbounds i32, ptr addrspace(1) %swb, i64 %ge
  store i32 %v5, ptr addrspace(1) %p5, align 4

  %v6 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 31775)
  %p6 = getelementptr inbounds i32, ptr addrspace(1) %swr, i64 %ge
  store i32 %v6, ptr addrspace(1) %p6, align 4

  %v7 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 32795)
  %p7 = getelementptr inbounds i32, ptr addrspace(1) %swq, i64 %ge
  store i32 %v7, ptr addrspace(1) %p7, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.ds.permute(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
