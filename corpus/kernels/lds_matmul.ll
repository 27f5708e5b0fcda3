; lds_matmul: C = A * B with 16 x 16 tiles staged through LDS (M x K times K x N, row-major f32).
; Work-item (tx, ty) of work-group (wx, wy) computes C[row][col], row = wy*16 + ty, col = wx*16 + tx:
;   acc = 0.0
;   for (t = 0; t < k/16; t++) {
;     as[ty][tx] = A[row*k + t*16 + tx]; bs[ty][tx] = B[(t*16 + ty)*n + col]; barrier
;     for (kk = 0; kk < 16; kk++) acc = fma(as[ty][kk], bs[kk][tx], acc)
;     barrier
;   }
;   C[row*n + col] = acc
target triple = "amdgcn-amd-amdhsa"

@as = internal addrspace(3) global [256 x float] poison, align 4
@bs = internal addrspace(3) global [256 x float] poison, align 4

define amdgpu_kernel void @lds_matmul(ptr addrspace(1) noalias readonly %A, ptr addrspace(1) noalias readonly %B,
                                      ptr addrspace(1) noalias %C, i32 %n, i32 %k) #0 {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %r0 = shl i32 %wy, 4
  %row = add i32 %r0, %ty
  %c0 = shl i32 %wx, 4
  %col = add i32 %c0, %tx
  %ty16 = shl i32 %ty, 4
  %lidx = add i32 %ty16, %tx
  %asp = getelementptr inbounds [256 x float], ptr addrspace(3) @as, i32 0, i32 %lidx
  %bsp = getelementptr inbounds [256 x float], ptr addrspace(3) @bs, i32 0, i32 %lidx
  %tiles = lshr i32 %k, 4
  %rowk = mul i32 %row, %k
  br label %tile

tile:
  %t = phi i32 [ 0, %entry ], [ %t1, %tile_end ]
  %acc = phi float [ 0.0, %entry ], [ %acc2, %tile_end ]
  %t16 = shl i32 %t, 4
  %ai0 = add i32 %rowk, %t16
  %ai = add i32 %ai0, %tx
  %aie = zext i32 %ai to i64
  %ap = getelementptr inbounds float, ptr addrspace(1) %A, i64 %aie
  %av = load float, ptr addrspace(1) %ap, align 4
  store float %av, ptr addrspace(3) %asp, align 4
  %br0 = add i32 %t16, %ty
  %bi0 = mul i32 %br0, %n
  %bi = add i32 %bi0, %col
  %bie = zext i32 %bi to i64
  %bp = getelementptr inbounds float, ptr addrspace(1) %B, i64 %bie
  %bv = load float, ptr addrspace(1) %bp, align 4
  store float %bv, ptr addrspace(3) %bsp, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %inner

inner:
  %kk = phi i32 [ 0, %tile ], [ %kk1, %inner ]
  %acc1 = phi float [ %acc, %tile ], [ %acc2, %inner ]
  %ia = add i32 %ty16, %kk
  %iap = getelementptr inbounds [256 x float], ptr addrspace(3) @as, i32 0, i32 %ia
  %x = load float, ptr addrspace(3) %iap, align 4
  %kk16 = shl i32 %kk, 4
  %ib = add i32 %kk16, %tx
  %ibp = getelementptr inbounds [256 x float], ptr addrspace(3) @bs, i32 0, i32 %ib
  %y = load float, ptr addrspace(3) %ibp, align 4
  %acc2 = call float @llvm.fma.f32(float %x, float %y, float %acc1)
  %kk1 = add i32 %kk, 1
  %more = icmp ult i32 %kk1, 16
  br i1 %more, label %inner, label %tile_end

tile_end:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %t1 = add i32 %t, 1
  %moret = icmp ult i32 %t1, %tiles
  br i1 %moret, label %tile, label %done

done:
  %ci0 = mul i32 %row, %n
  %ci = add i32 %ci0, %col
  %cie = zext i32 %ci to i64
  %cp = getelementptr inbounds float, ptr addrspace(1) %C, i64 %cie
  store float %acc2, ptr addrspace(1) %cp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare void @llvm.amdgcn.s.barrier()
declare float @llvm.fma.f32(float, float, float)

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
