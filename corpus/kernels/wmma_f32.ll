; wmma_f32: a 16x16x16 GEMM tile of f32 as four chained v_wmma_f32_16x16x4_f32 (each D is the next
; C), in one work-group of exactly 32 work-items. gfx1250 only.
;   a:  16x16 f32, row-major      (A[m][k] at m*16 + k)
;   bt: 16x16 f32, B transposed   (B[k][n] at n*16 + k)
;   c:  16x16 f32, column-major   (C[m][n] at n*16 + m)
;   d:  16x16 f32, column-major:  D = A*B + C
; Step s (0..3) covers k in [4s, 4s+4): lane l (h = l >> 4, r = l & 15) holds row (A) / column (B)
; r, element j (0, 1) of its <2 x float> holds k = 4s + 2h + j. C/D as in wmma_f16.ll.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_f32(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                    ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %d) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %h = lshr i32 %lane, 4
  %r = and i32 %lane, 15
  %h8 = shl i32 %h, 3
  %col = shl i32 %r, 4
  %coff = add i32 %col, %h8
  %coffe = zext i32 %coff to i64
  %h2 = shl i32 %h, 1
  %off = add i32 %col, %h2
  %offe = zext i32 %off to i64
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %coffe
  %acc = load <8 x float>, ptr addrspace(1) %pc, align 32
  %pa0 = getelementptr inbounds float, ptr addrspace(1) %a, i64 %offe
  %qa0 = getelementptr inbounds float, ptr addrspace(1) %pa0, i64 0
  %a0 = load <2 x float>, ptr addrspace(1) %qa0, align 8
  %pb0 = getelementptr inbounds float, ptr addrspace(1) %bt, i64 %offe
  %qb0 = getelementptr inbounds float, ptr addrspace(1) %pb0, i64 0
  %b0 = load <2 x float>, ptr addrspace(1) %qb0, align 8
  %acc0 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 false, <2 x float> %a0, i1 false, <2 x float> %b0, i16 0, <8 x float> %acc, i1 false, i1 false)
  %pa1 = getelementptr inbounds float, ptr addrspace(1) %a, i64 %offe
  %qa1 = getelementptr inbounds float, ptr addrspace(1) %pa1, i64 4
  %a1 = load <2 x float>, ptr addrspace(1) %qa1, align 8
  %pb1 = getelementptr inbounds float, ptr addrspace(1) %bt, i64 %offe
  %qb1 = getelementptr inbounds float, ptr addrspace(1) %pb1, i64 4
  %b1 = load <2 x float>, ptr addrspace(1) %qb1, align 8
  %acc1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 false, <2 x float> %a1, i1 false, <2 x float> %b1, i16 0, <8 x float> %acc0, i1 false, i1 false)
  %pa2 = getelementptr inbounds float, ptr addrspace(1) %a, i64 %offe
  %qa2 = getelementptr inbounds float, ptr addrspace(1) %pa2, i64 8
  %a2 = load <2 x float>, ptr addrspace(1) %qa2, align 8
  %pb2 = getelementptr inbounds float, ptr addrspace(1) %bt, i64 %offe
  %qb2 = getelementptr inbounds float, ptr addrspace(1) %pb2, i64 8
  %b2 = load <2 x float>, ptr addrspace(1) %qb2, align 8
  %acc2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 false, <2 x float> %a2, i1 false, <2 x float> %b2, i16 0, <8 x float> %acc1, i1 false, i1 false)
  %pa3 = getelementptr inbounds float, ptr addrspace(1) %a, i64 %offe
  %qa3 = getelementptr inbounds float, ptr addrspace(1) %pa3, i64 12
  %a3 = load <2 x float>, ptr addrspace(1) %qa3, align 8
  %pb3 = getelementptr inbounds float, ptr addrspace(1) %bt, i64 %offe
  %qb3 = getelementptr inbounds float, ptr addrspace(1) %pb3, i64 12
  %b3 = load <2 x float>, ptr addrspace(1) %qb3, align 8
  %acc3 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 false, <2 x float> %a3, i1 false, <2 x float> %b3, i16 0, <8 x float> %acc2, i1 false, i1 false)
  %pd = getelementptr inbounds float, ptr addrspace(1) %d, i64 %coffe
  store <8 x float> %acc3, ptr addrspace(1) %pd, align 32
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32(i1 immarg, <2 x float>, i1 immarg, <2 x float>, i16 immarg, <8 x float>, i1 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
