; wmma_iu8: a 16x16x64 integer GEMM tile, v_wmma_i32_16x16x64_iu8 with A signed and B unsigned,
; in one work-group of exactly 32 work-items. gfx1250 only.
;   a:  16x64 i8, row-major       (A[m][k] at m*64 + k), signed
;   bt: 16x64 u8, B transposed    (B[k][n] at n*64 + k), unsigned
;   c:  16x16 i32, column-major   (C[m][n] at n*16 + m)
;   d:  16x16 i32, column-major:  D = A*B + C (exact: the launch keeps |D| far below 2^31)
; Lane layout: lane l (h = l >> 4, r = l & 15) holds row (A) / column (B) r; byte j (0..31) of its
; <8 x i32> holds k = 16*(j >> 3) + 8h + (j & 7). C/D: lane l holds column n = r, element i row 8h + i.
; Only the C/D layout shows in the result (A and B use the same k order).
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_iu8(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                    ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %d) #0 {
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
  %pa0 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 %offe
  %oa0 = getelementptr inbounds i8, ptr addrspace(1) %pa0, i64 0
  %a0 = load <2 x i32>, ptr addrspace(1) %oa0, align 8
  %pa1 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 %offe
  %oa1 = getelementptr inbounds i8, ptr addrspace(1) %pa1, i64 16
  %a1 = load <2 x i32>, ptr addrspace(1) %oa1, align 8
  %pa2 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 %offe
  %oa2 = getelementptr inbounds i8, ptr addrspace(1) %pa2, i64 32
  %a2 = load <2 x i32>, ptr addrspace(1) %oa2, align 8
  %pa3 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 %offe
  %oa3 = getelementptr inbounds i8, ptr addrspace(1) %pa3, i64 48
  %a3 = load <2 x i32>, ptr addrspace(1) %oa3, align 8
  %a01 = shufflevector <2 x i32> %a0, <2 x i32> %a1, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %a23 = shufflevector <2 x i32> %a2, <2 x i32> %a3, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %av = shufflevector <4 x i32> %a01, <4 x i32> %a23, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %pb0 = getelementptr inbounds i8, ptr addrspace(1) %bt, i64 %offe
  %ob0 = getelementptr inbounds i8, ptr addrspace(1) %pb0, i64 0
  %b0 = load <2 x i32>, ptr addrspace(1) %ob0, align 8
  %pb1 = getelementptr inbounds i8, ptr addrspace(1) %bt, i64 %offe
  %ob1 = getelementptr inbounds i8, ptr addrspace(1) %pb1, i64 16
  %b1 = load <2 x i32>, ptr addrspace(1) %ob1, align 8
  %pb2 = getelementptr inbounds i8, ptr addrspace(1) %bt, i64 %offe
  %ob2 = getelementptr inbounds i8, ptr addrspace(1) %pb2, i64 32
  %b2 = load <2 x i32>, ptr addrspace(1) %ob2, align 8
  %pb3 = getelementptr inbounds i8, ptr addrspace(1) %bt, i64 %offe
  %ob3 = getelementptr inbounds i8, ptr addrspace(1) %pb3, i64 48
  %b3 = load <2 x i32>, ptr addrspace(1) %ob3, align 8
  %b01 = shufflevector <2 x i32> %b0, <2 x i32> %b1, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %b23 = shufflevector <2 x i32> %b2, <2 x i32> %b3, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %bv = shufflevector <4 x i32> %b01, <4 x i32> %b23, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %pc = getelementptr inbounds i32, ptr addrspace(1) %c, i64 %coffe
  %cv = load <8 x i32>, ptr addrspace(1) %pc, align 32
  %dv = call <8 x i32> @llvm.amdgcn.wmma.i32.16x16x64.iu8.v8i32.v8i32(i1 true, <8 x i32> %av, i1 false, <8 x i32> %bv, <8 x i32> %cv, i1 false, i1 false)
  %pd = getelementptr inbounds i32, ptr addrspace(1) %d, i64 %coffe
  store <8 x i32> %dv, ptr addrspace(1) %pd, align 32
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x i32> @llvm.amdgcn.wmma.i32.16x16x64.iu8.v8i32.v8i32(i1 immarg, <8 x i32>, i1 immarg, <8 x i32>, <8 x i32>, i1 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
