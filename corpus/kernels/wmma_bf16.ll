; wmma_bf16: a 16x16x64 GEMM tile as two chained v_wmma_f32_16x16x32_bf16 (the first one's D is
; the second one's C), accumulator starting at zero, in one work-group of exactly 32 work-items.
; gfx1250 only.
;   a:  16x64 bf16, row-major      (A[m][k] at m*64 + k)
;   bt: 16x64 bf16, B transposed   (B[k][n] at n*64 + k)
;   d:  16x16 f32, column-major    (D[m][n] at n*16 + m): D = A*B
; Step s (0, 1) covers k in [32s, 32s+32); within a step the lane layout is wmma_f16.ll's:
; lane l (h = l >> 4, r = l & 15) holds row/column r, element j holds k = 32s + 16*(j >> 3) + 8h + (j & 7).
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_bf16(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                     ptr addrspace(1) noalias %d) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %h = lshr i32 %lane, 4
  %r = and i32 %lane, 15
  %h8 = shl i32 %h, 3
  %col = shl i32 %r, 4
  %coff = add i32 %col, %h8
  %coffe = zext i32 %coff to i64
  %row = shl i32 %r, 6
  %off = add i32 %row, %h8
  %offe = zext i32 %off to i64
  %pa00 = getelementptr inbounds bfloat, ptr addrspace(1) %a, i64 %offe
  %pa01 = getelementptr inbounds bfloat, ptr addrspace(1) %pa00, i64 0
  %pa02 = getelementptr inbounds bfloat, ptr addrspace(1) %pa00, i64 16
  %a0lo = load <8 x bfloat>, ptr addrspace(1) %pa01, align 16
  %a0hi = load <8 x bfloat>, ptr addrspace(1) %pa02, align 16
  %a0 = shufflevector <8 x bfloat> %a0lo, <8 x bfloat> %a0hi, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %pb00 = getelementptr inbounds bfloat, ptr addrspace(1) %bt, i64 %offe
  %pb01 = getelementptr inbounds bfloat, ptr addrspace(1) %pb00, i64 0
  %pb02 = getelementptr inbounds bfloat, ptr addrspace(1) %pb00, i64 16
  %b0lo = load <8 x bfloat>, ptr addrspace(1) %pb01, align 16
  %b0hi = load <8 x bfloat>, ptr addrspace(1) %pb02, align 16
  %b0 = shufflevector <8 x bfloat> %b0lo, <8 x bfloat> %b0hi, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %acc0 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.bf16.v8f32.v16bf16(i1 false, <16 x bfloat> %a0, i1 false, <16 x bfloat> %b0, i16 0, <8 x float> zeroinitializer, i1 false, i1 false)
  %pa10 = getelementptr inbounds bfloat, ptr addrspace(1) %a, i64 %offe
  %pa11 = getelementptr inbounds bfloat, ptr addrspace(1) %pa10, i64 32
  %pa12 = getelementptr inbounds bfloat, ptr addrspace(1) %pa10, i64 48
  %a1lo = load <8 x bfloat>, ptr addrspace(1) %pa11, align 16
  %a1hi = load <8 x bfloat>, ptr addrspace(1) %pa12, align 16
  %a1 = shufflevector <8 x bfloat> %a1lo, <8 x bfloat> %a1hi, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %pb10 = getelementptr inbounds bfloat, ptr addrspace(1) %bt, i64 %offe
  %pb11 = getelementptr inbounds bfloat, ptr addrspace(1) %pb10, i64 32
  %pb12 = getelementptr inbounds bfloat, ptr addrspace(1) %pb10, i64 48
  %b1lo = load <8 x bfloat>, ptr addrspace(1) %pb11, align 16
  %b1hi = load <8 x bfloat>, ptr addrspace(1) %pb12, align 16
  %b1 = shufflevector <8 x bfloat> %b1lo, <8 x bfloat> %b1hi, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %acc1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.bf16.v8f32.v16bf16(i1 false, <16 x bfloat> %a1, i1 false, <16 x bfloat> %b1, i16 0, <8 x float> %acc0, i1 false, i1 false)
  %pd = getelementptr inbounds float, ptr addrspace(1) %d, i64 %coffe
  store <8 x float> %acc1, ptr addrspace(1) %pd, align 32
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.bf16.v8f32.v16bf16(i1 immarg, <16 x bfloat>, i1 immarg, <16 x bfloat>, i16 immarg, <8 x float>, i1 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
