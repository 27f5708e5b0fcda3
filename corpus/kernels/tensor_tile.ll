; tensor_tile: a 2-D tile copied from global memory into LDS by the tensor data mover
; (llvm.amdgcn.tensor.load.to.lds, waited for with s_wait_tensorcnt), then written out by the
; whole work-group after a barrier. gfx1250 only.
; `in` is a 12 x 20 tensor of u32 (rows x columns, row pitch 20 elements). Work-group (wx, wy)
; of 64 work-items (two waves32) loads the 8 x 16 tile whose origin is (row 8*wy, column 16*wx):
; the descriptor's global address is the origin, its tensor dims the columns and rows left from
; there (20 - 16wx, 12 - 8wy), so the tiles of wx = 1 or wy = 1 reach past the tensor and those
; elements read as zero. Only wave 0 issues the load and waits for it; the barrier makes the tile
; visible to wave 1. Then out[(2*wy + wx)*128 + i] = tile[i] for i = l and l + 64.
; Descriptor (see crates/emu/src/tensor.rs): group 0 = {pred 1, LDS address, global address,
; type 2 in bits 127:126}; group 1 = {data size 2 (4 bytes) in bits 17:16, tensor_dim0/1,
; tile_dim0 = 16, tile_dim1 = 8, row stride 20}.
; tensor_row16: a 1-D tile of 48 u16 (tile_dim1 = 0, tensor_dim1 = 0: one dimension) per
; work-group of 32 (one wave) from `in16` (100 elements): work-group w's tile starts at element
; 40w and its tensor_dim0 is 100 - 40w, so the last tile has 20 elements inside and 28 zeros.
; out16[48w + i] = tile[i] (copied out as u16 pairs).
; tensor_store2d: tensor_store_from_lds of a 4 x 8 tile of u32 into `grid` (10 x 12, row pitch
; 12), by work-groups of 32 (one wave). Each thread writes tile[l] = 7(l + 1) + 1000w into LDS;
; a barrier orders those stores before the tensor store. Work-group 0's tile, at (row 1,
; column 2), lies inside the tensor; work-group 1's, at (row 7, column 6), has 3 rows and 6
; columns inside, and the elements outside are not written. The rest of `grid` keeps its values.
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [128 x i32] poison, align 16
@row16 = internal addrspace(3) global [48 x i16] poison, align 16
@st = internal addrspace(3) global [32 x i32] poison, align 16

define amdgpu_kernel void @tensor_tile(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %wave = lshr i32 %l, 5
  %first = icmp eq i32 %wave, 0
  br i1 %first, label %issue, label %join

issue:
  %x0 = shl i32 %wx, 4
  %y0 = shl i32 %wy, 3
  %row = mul i32 %y0, 20
  %e0 = add i32 %row, %x0
  %e0z = zext i32 %e0 to i64
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %e0z
  %addr = ptrtoint ptr addrspace(1) %src to i64
  %alo = trunc i64 %addr to i32
  %ahi64 = lshr i64 %addr, 32
  %ahi = trunc i64 %ahi64 to i32
  %ahit = or i32 %ahi, 2147483648
  %lds = ptrtoint ptr addrspace(3) @tile to i32
  %g0a = insertelement <4 x i32> <i32 1, i32 poison, i32 poison, i32 poison>, i32 %lds, i32 1
  %g0b = insertelement <4 x i32> %g0a, i32 %alo, i32 2
  %g0 = insertelement <4 x i32> %g0b, i32 %ahit, i32 3
  %d0 = sub i32 20, %x0
  %d1 = sub i32 12, %y0
  %d0lo = shl i32 %d0, 16
  %d0hi = lshr i32 %d0, 16
  %d1lo = shl i32 %d1, 16
  %w2 = or i32 %d0hi, %d1lo
  %d1hi = lshr i32 %d1, 16
  %w3 = or i32 %d1hi, 1048576
  %g1a = insertelement <8 x i32> <i32 131072, i32 poison, i32 poison, i32 poison, i32 8, i32 20, i32 0, i32 0>, i32 %d0lo, i32 1
  %g1b = insertelement <8 x i32> %g1a, i32 %w2, i32 2
  %g1 = insertelement <8 x i32> %g1b, i32 %w3, i32 3
  call void @llvm.amdgcn.tensor.load.to.lds(<4 x i32> %g0, <8 x i32> %g1, <4 x i32> zeroinitializer, <4 x i32> zeroinitializer, i32 0)
  call void @llvm.amdgcn.s.wait.tensorcnt(i16 0)
  br label %join

join:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %wy2 = shl i32 %wy, 1
  %wid = add i32 %wy2, %wx
  %obase = shl i32 %wid, 7
  %pa = getelementptr inbounds [128 x i32], ptr addrspace(3) @tile, i32 0, i32 %l
  %va = load i32, ptr addrspace(3) %pa, align 4
  %oa = add i32 %obase, %l
  %oaz = zext i32 %oa to i64
  %qa = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %oaz
  store i32 %va, ptr addrspace(1) %qa, align 4
  %l64 = add i32 %l, 64
  %pb = getelementptr inbounds [128 x i32], ptr addrspace(3) @tile, i32 0, i32 %l64
  %vb = load i32, ptr addrspace(3) %pb, align 4
  %ob = add i32 %obase, %l64
  %obz = zext i32 %ob to i64
  %qb = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %obz
  store i32 %vb, ptr addrspace(1) %qb, align 4
  ret void
}

define amdgpu_kernel void @tensor_row16(ptr addrspace(1) noalias readonly %in16, ptr addrspace(1) noalias %out16) #1 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %w = call i32 @llvm.amdgcn.workgroup.id.x()
  %e0 = mul i32 %w, 40
  %e0z = zext i32 %e0 to i64
  %src = getelementptr inbounds i16, ptr addrspace(1) %in16, i64 %e0z
  %addr = ptrtoint ptr addrspace(1) %src to i64
  %alo = trunc i64 %addr to i32
  %ahi64 = lshr i64 %addr, 32
  %ahi = trunc i64 %ahi64 to i32
  %ahit = or i32 %ahi, 2147483648
  %lds = ptrtoint ptr addrspace(3) @row16 to i32
  %g0a = insertelement <4 x i32> <i32 1, i32 poison, i32 poison, i32 poison>, i32 %lds, i32 1
  %g0b = insertelement <4 x i32> %g0a, i32 %alo, i32 2
  %g0 = insertelement <4 x i32> %g0b, i32 %ahit, i32 3
  %d0 = sub i32 100, %e0
  %d0lo = shl i32 %d0, 16
  %d0hi = lshr i32 %d0, 16
  %g1a = insertelement <8 x i32> <i32 65536, i32 poison, i32 poison, i32 3145728, i32 0, i32 0, i32 0, i32 0>, i32 %d0lo, i32 1
  %g1 = insertelement <8 x i32> %g1a, i32 %d0hi, i32 2
  call void @llvm.amdgcn.tensor.load.to.lds(<4 x i32> %g0, <8 x i32> %g1, <4 x i32> zeroinitializer, <4 x i32> zeroinitializer, i32 0)
  call void @llvm.amdgcn.s.wait.tensorcnt(i16 0)
  ; The tile is written out as 24 dwords (u16 pairs): threads 0..23 each copy one.
  %more = icmp ult i32 %l, 24
  br i1 %more, label %copy, label %done

copy:
  %obase = mul i32 %w, 24
  %pa = getelementptr inbounds [24 x i32], ptr addrspace(3) @row16, i32 0, i32 %l
  %va = load i32, ptr addrspace(3) %pa, align 4
  %oa = add i32 %obase, %l
  %oaz = zext i32 %oa to i64
  %qa = getelementptr inbounds i32, ptr addrspace(1) %out16, i64 %oaz
  store i32 %va, ptr addrspace(1) %qa, align 4
  br label %done

done:
  ret void
}

define amdgpu_kernel void @tensor_store2d(ptr addrspace(1) noalias %grid) #1 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %w = call i32 @llvm.amdgcn.workgroup.id.x()
  %l1 = add i32 %l, 1
  %v7 = mul i32 %l1, 7
  %wk = mul i32 %w, 1000
  %v = add i32 %v7, %wk
  %p = getelementptr inbounds [32 x i32], ptr addrspace(3) @st, i32 0, i32 %l
  store i32 %v, ptr addrspace(3) %p, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  ; origin: w = 0 -> (1, 2), w = 1 -> (7, 6)
  %y0a = mul i32 %w, 6
  %y0 = add i32 %y0a, 1
  %x0a = shl i32 %w, 2
  %x0 = add i32 %x0a, 2
  %row = mul i32 %y0, 12
  %e0 = add i32 %row, %x0
  %e0z = zext i32 %e0 to i64
  %dst = getelementptr inbounds i32, ptr addrspace(1) %grid, i64 %e0z
  %addr = ptrtoint ptr addrspace(1) %dst to i64
  %alo = trunc i64 %addr to i32
  %ahi64 = lshr i64 %addr, 32
  %ahi = trunc i64 %ahi64 to i32
  %ahit = or i32 %ahi, 2147483648
  %lds = ptrtoint ptr addrspace(3) @st to i32
  %g0a = insertelement <4 x i32> <i32 1, i32 poison, i32 poison, i32 poison>, i32 %lds, i32 1
  %g0b = insertelement <4 x i32> %g0a, i32 %alo, i32 2
  %g0 = insertelement <4 x i32> %g0b, i32 %ahit, i32 3
  %d0 = sub i32 12, %x0
  %d1 = sub i32 10, %y0
  %d0lo = shl i32 %d0, 16
  %d0hi = lshr i32 %d0, 16
  %d1lo = shl i32 %d1, 16
  %w2 = or i32 %d0hi, %d1lo
  %d1hi = lshr i32 %d1, 16
  %w3 = or i32 %d1hi, 524288
  %g1a = insertelement <8 x i32> <i32 131072, i32 poison, i32 poison, i32 poison, i32 4, i32 12, i32 0, i32 0>, i32 %d0lo, i32 1
  %g1b = insertelement <8 x i32> %g1a, i32 %w2, i32 2
  %g1 = insertelement <8 x i32> %g1b, i32 %w3, i32 3
  call void @llvm.amdgcn.tensor.store.from.lds(<4 x i32> %g0, <8 x i32> %g1, <4 x i32> zeroinitializer, <4 x i32> zeroinitializer, i32 0)
  call void @llvm.amdgcn.s.wait.tensorcnt(i16 0)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare void @llvm.amdgcn.tensor.load.to.lds(<4 x i32>, <8 x i32>, <4 x i32>, <4 x i32>, i32)
declare void @llvm.amdgcn.tensor.store.from.lds(<4 x i32>, <8 x i32>, <4 x i32>, <4 x i32>, i32)
declare void @llvm.amdgcn.s.wait.tensorcnt(i16)
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
attributes #1 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
