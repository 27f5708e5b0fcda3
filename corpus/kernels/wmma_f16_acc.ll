; wmma_f16_acc: 16x16x32 WMMA tiles with 16-bit accumulators and results: v_wmma_f16_16x16x32_f16
; (f16 in, f16 out) and v_wmma_bf16_16x16x32_bf16 (bf16 in, bf16 out), in one work-group of exactly
; 32 work-items. gfx1250 only.
;   a, bt (f16) and ab, bbt (bf16): 16x32, A row-major (A[m][k] at m*32 + k), B transposed (B[k][n]
;   at n*32 + k); c (f16), cb (bf16): 16x16 column-major (C[m][n] at n*16 + m);
;   d = A*B + C (f16), db = Ab*Bb + Cb (bf16), column-major.
; A/B lane layout as in wmma_f16.ll. 16-bit C/D: lane l (h = l >> 4) holds column n = l & 15, element i
; (0..7) of its <8 x half> / <8 x bfloat> row m = 8h + i (two per VGPR, the lower row in bits 15:0).
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wmma_f16_acc(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %bt,
                                        ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %d,
                                        ptr addrspace(1) noalias readonly %ab, ptr addrspace(1) noalias readonly %bbt,
                                        ptr addrspace(1) noalias readonly %cb, ptr addrspace(1) noalias %db) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %h = lshr i32 %lane, 4
  %r = and i32 %lane, 15
  %h8 = shl i32 %h, 3
  %row = shl i32 %r, 5
  %off = add i32 %row, %h8
  %offe = zext i32 %off to i64
  %col = shl i32 %r, 4
  %coff = add i32 %col, %h8
  %coffe = zext i32 %coff to i64
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
  %px0 = getelementptr inbounds bfloat, ptr addrspace(1) %ab, i64 %offe
  %px1 = getelementptr inbounds bfloat, ptr addrspace(1) %px0, i64 16
  %x0 = load <8 x bfloat>, ptr addrspace(1) %px0, align 16
  %x1 = load <8 x bfloat>, ptr addrspace(1) %px1, align 16
  %xv = shufflevector <8 x bfloat> %x0, <8 x bfloat> %x1, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %py0 = getelementptr inbounds bfloat, ptr addrspace(1) %bbt, i64 %offe
  %py1 = getelementptr inbounds bfloat, ptr addrspace(1) %py0, i64 16
  %y0 = load <8 x bfloat>, ptr addrspace(1) %py0, align 16
  %y1 = load <8 x bfloat>, ptr addrspace(1) %py1, align 16
  %yv = shufflevector <8 x bfloat> %y0, <8 x bfloat> %y1, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %pc = getelementptr inbounds half, ptr addrspace(1) %c, i64 %coffe
  %cv = load <8 x half>, ptr addrspace(1) %pc, align 16
  %dv = call <8 x half> @llvm.amdgcn.wmma.f16.16x16x32.f16.v8f16.v16f16(i1 false, <16 x half> %av, i1 false, <16 x half> %bv, i16 0, <8 x half> %cv, i1 false, i1 false)
  %pd = getelementptr inbounds half, ptr addrspace(1) %d, i64 %coffe
  store <8 x half> %dv, ptr addrspace(1) %pd, align 16
  %pcb = getelementptr inbounds bfloat, ptr addrspace(1) %cb, i64 %coffe
  %cbv = load <8 x bfloat>, ptr addrspace(1) %pcb, align 16
  %dbv = call <8 x bfloat> @llvm.amdgcn.wmma.bf16.16x16x32.bf16.v8bf16.v16bf16(i1 false, <16 x bfloat> %xv, i1 false, <16 x bfloat> %yv, i16 0, <8 x bfloat> %cbv, i1 false, i1 false)
  %pdb = getelementptr inbounds bfloat, ptr addrspace(1) %db, i64 %coffe
  store <8 x bfloat> %dbv, ptr addrspace(1) %pdb, align 16
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x half> @llvm.amdgcn.wmma.f16.16x16x32.f16.v8f16.v16f16(i1 immarg, <16 x half>, i1 immarg, <16 x half>, i16 immarg, <8 x half>, i1 immarg, i1 immarg)
declare <8 x bfloat> @llvm.amdgcn.wmma.bf16.16x16x32.bf16.v8bf16.v16bf16(i1 immarg, <16 x bfloat>, i1 immarg, <16 x bfloat>, i16 immarg, <8 x bfloat>, i1 immarg, i1 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
