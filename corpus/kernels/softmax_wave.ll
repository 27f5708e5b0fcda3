; softmax_wave: an attention-style softmax over rows of 32 scores, one row per wave32 (work-groups of
; exactly 32 work-items; lane l of work-group w holds x = in[32w + l], scores already in the log2
; domain). gfx1250 only: gfx9 DPP has no row_xmask (LLVM rejects it for gfx942/gfx950).
;   mx[w]  = max over the row: four DPP row_xmask:{1,2,4,8} steps (max within each row of 16 lanes),
;            then ds_swizzle bitmask xor 16 (max of the two rows); llvm.maxnum, exact
;   e      = exp2(x - mx[w])        (llvm.amdgcn.exp2: v_exp_f32, 1 ulp by the ISA)
;   sm[w]  = sum of e over the row, as a butterfly: five ds_swizzle xor {1,2,4,8,16} steps, each
;            s = s + swizzle(s); every lane ends with the same bits (fadd is commutative), lane 0's
;            value is broadcast with v_readlane_b32
;   p[32w + l] = e / sm[w]          (IEEE division)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @softmax_wave(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %p,
                                        ptr addrspace(1) noalias %mx, ptr addrspace(1) noalias %sm) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %in, i64 %ge
  %x = load float, ptr addrspace(1) %xp, align 4

  ; max: DPP row_xmask:1,2,4,8 (0x161, 0x162, 0x164, 0x168)
  %x1 = call float @llvm.amdgcn.update.dpp.f32(float 0.0, float %x, i32 353, i32 15, i32 15, i1 false)
  %m1 = call float @llvm.maxnum.f32(float %x, float %x1)
  %x2 = call float @llvm.amdgcn.update.dpp.f32(float 0.0, float %m1, i32 354, i32 15, i32 15, i1 false)
  %m2 = call float @llvm.maxnum.f32(float %m1, float %x2)
  %x4 = call float @llvm.amdgcn.update.dpp.f32(float 0.0, float %m2, i32 356, i32 15, i32 15, i1 false)
  %m4 = call float @llvm.maxnum.f32(float %m2, float %x4)
  %x8 = call float @llvm.amdgcn.update.dpp.f32(float 0.0, float %m4, i32 360, i32 15, i32 15, i1 false)
  %m8 = call float @llvm.maxnum.f32(float %m4, float %x8)
  ; ds_swizzle bitmask mode, and 0x1f, xor 16: offset 0x401f
  %m8i = bitcast float %m8 to i32
  %x16i = call i32 @llvm.amdgcn.ds.swizzle(i32 %m8i, i32 16415)
  %x16 = bitcast i32 %x16i to float
  %m = call float @llvm.maxnum.f32(float %m8, float %x16)

  %t = fsub float %x, %m
  %e = call float @llvm.amdgcn.exp2.f32(float %t)

  ; sum: ds_swizzle xor 1, 2, 4, 8, 16 (offsets 0x041f, 0x081f, 0x101f, 0x201f, 0x401f)
  %e0 = bitcast float %e to i32
  %y1i = call i32 @llvm.amdgcn.ds.swizzle(i32 %e0, i32 1055)
  %y1 = bitcast i32 %y1i to float
  %s1 = fadd float %e, %y1
  %s1i = bitcast float %s1 to i32
  %y2i = call i32 @llvm.amdgcn.ds.swizzle(i32 %s1i, i32 2079)
  %y2 = bitcast i32 %y2i to float
  %s2 = fadd float %s1, %y2
  %s2i = bitcast float %s2 to i32
  %y4i = call i32 @llvm.amdgcn.ds.swizzle(i32 %s2i, i32 4127)
  %y4 = bitcast i32 %y4i to float
  %s4 = fadd float %s2, %y4
  %s4i = bitcast float %s4 to i32
  %y8i = call i32 @llvm.amdgcn.ds.swizzle(i32 %s4i, i32 8223)
  %y8 = bitcast i32 %y8i to float
  %s8 = fadd float %s4, %y8
  %s8i = bitcast float %s8 to i32
  %y16i = call i32 @llvm.amdgcn.ds.swizzle(i32 %s8i, i32 16415)
  %y16 = bitcast i32 %y16i to float
  %s16 = fadd float %s8, %y16
  %s16i = bitcast float %s16 to i32
  %si = call i32 @llvm.amdgcn.readlane.i32(i32 %s16i, i32 0)
  %s = bitcast i32 %si to float

  %pv = fdiv float %e, %s
  %pp = getelementptr inbounds float, ptr addrspace(1) %p, i64 %ge
  store float %pv, ptr addrspace(1) %pp, align 4

  %first = icmp eq i32 %lane, 0
  br i1 %first, label %row, label %done
row:
  %we = zext i32 %wg to i64
  %mp = getelementptr inbounds float, ptr addrspace(1) %mx, i64 %we
  store float %m, ptr addrspace(1) %mp, align 4
  %sp = getelementptr inbounds float, ptr addrspace(1) %sm, i64 %we
  store float %s, ptr addrspace(1) %sp, align 4
  br label %done
done:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.amdgcn.update.dpp.f32(float, float, i32 immarg, i32 immarg, i32 immarg, i1 immarg)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.amdgcn.exp2.f32(float)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
