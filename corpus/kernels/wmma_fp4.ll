; wmma_fp4: a 16x16x128 GEMM tile of OCP MX fp4 (E2M1) values (v_wmma_f32_16x16x128_f8f6f4 with
; matrix_a_fmt and matrix_b_fmt FP4), f32 accumulator starting at zero, in one work-group of
; exactly 32 work-items. gfx1250 only.
;   a:  16x128 fp4, row-major, two to a byte (A[m][k] in byte m*64 + k/2, low nibble for even k)
;   bt: 16x128 fp4, B transposed, likewise (B[k][n] in byte n*64 + k/2)
;   d:  16x16 f32, column-major (D[m][n] at n*16 + m): D = A*B.
; Lane layout: lane l (h = l >> 4, r = l & 15) holds row (A) / column (B) r, as the 32 bytes
; r*64 + 32h .. +31 (k = 64h .. 64h+63). Only the C/D layout shows in the result (A and B use
; the same k order). C/D: lane l holds column n = r, element i row 8h + i.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_fp4(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                    ptr addrspace(1) noalias %d) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %h = lshr i32 %lane, 4
  %r = and i32 %lane, 15
  %h32 = shl i32 %h, 5
  %row = shl i32 %r, 6
  %off = add i32 %row, %h32
  %offe = zext i32 %off to i64
  %pa = getelementptr inbounds i8, ptr addrspace(1) %a, i64 %offe
  %av = load <8 x i32>, ptr addrspace(1) %pa, align 32
  %pb = getelementptr inbounds i8, ptr addrspace(1) %bt, i64 %offe
  %bv = load <8 x i32>, ptr addrspace(1) %pb, align 32
  %res = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v8i32.v8i32(i32 4, <8 x i32> %av, i32 4, <8 x i32> %bv, i16 0, <8 x float> zeroinitializer)
  %h8 = shl i32 %h, 3
  %col = shl i32 %r, 4
  %coff = add i32 %col, %h8
  %coffe = zext i32 %coff to i64
  %pd = getelementptr inbounds float, ptr addrspace(1) %d, i64 %coffe
  store <8 x float> %res, ptr addrspace(1) %pd, align 32
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v8i32.v8i32(i32 immarg, <8 x i32>, i32 immarg, <8 x i32>, i16 immarg, <8 x float>)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
