; wmma_f16: one 16x16x32 WMMA tile, f16 inputs, f32 accumulator (v_wmma_f32_16x16x32_f16), in one
; work-group of exactly 32 work-items (one wave32). gfx1250 only (the intrinsic has no gfx9 form).
;   a:  16x32 f16, row-major      (A[m][k] at m*32 + k)
;   bt: 16x32 f16, B transposed   (B[k][n] at n*32 + k)
;   c:  16x16 f32, column-major   (C[m][n] at n*16 + m)
;   d:  16x16 f32, column-major:  D = A*B + C
; Operand layout (wave32): lane l, h = l >> 4, r = l & 15. A: lane l holds row m = r, B: column n = r;
; element j (0..15) of the lane's <16 x half> holds k = 16*(j >> 3) + 8*h + (j & 7). C/D: lane l
; holds column n = r, element i (0..7) row m = 8*h + i. Only the C/D layout shows in the result: A
; and B are loaded with the same k order, and the sum over k does not depend on it (see the
; reference for why the result is exact whatever the accumulation order).
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_f16(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                    ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %d) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %h = lshr i32 %lane, 4
  %r = and i32 %lane, 15
  %row = shl i32 %r, 5
  %h8 = shl i32 %h, 3
  %off = add i32 %row, %h8
  %offe = zext i32 %off to i64
  %pa0 = getelementptr inbounds half, ptr addrspace(1) %a, i64 %offe
  %pa1 = getelementptr inbounds half, ptr addrspace(1) %pa0, i64 16
  %a0 = load <8 x half>, ptr addrspace(1) %pa0, align 16
  %a1 = load <8 x half>, ptr addrspace(1) %pa1, align 16
  %av = shufflevector <8 x half> %a0, <8 x half> %a1, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %pb0 = getelementptr inbounds half, ptr addrspace(1) %bt, i64 %offe
  %pb1 = getelementptr inbounds half, ptr addrspace(1) %pb0, i64 16
  %b0 = load <8 x half>, ptr addrspace(1) %pb0, align 16
  %b1 = load <8 x half>, ptr addrspace(1) %pb1, align 16
  %bv = shufflevector <8 x half> %b0, <8 x half> %b1, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %col = shl i32 %r, 4
  %coff = add i32 %col, %h8
  %coffe = zext i32 %coff to i64
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %coffe
  %cv = load <8 x float>, ptr addrspace(1) %pc, align 32
  %dv = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %av, i1 false, <16 x half> %bv, i16 0, <8 x float> %cv, i1 false, i1 false)
  %pd = getelementptr inbounds float, ptr addrspace(1) %d, i64 %coffe
  store <8 x float> %dv, ptr addrspace(1) %pd, align 32
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 immarg, <16 x half>, i1 immarg, <16 x half>, i16 immarg, <8 x float>, i1 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
