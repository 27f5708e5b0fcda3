; lds_transpose: out (width x height) = transpose of in (height x width), through a padded
; 32 x 33 LDS tile. Work-groups are 32 x 8; each work-item moves four rows of its tile.
;   for (j = 0; j < 32; j += 8) tile[ty+j][tx] = in[(wy*32 + ty + j)*width + wx*32 + tx]
;   barrier
;   for (j = 0; j < 32; j += 8) out[(wx*32 + ty + j)*height + wy*32 + tx] = tile[tx][ty+j]
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [1056 x i32] poison, align 4

define amdgpu_kernel void @lds_transpose(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out,
                                         i32 %width, i32 %height) #0 {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %bx = shl i32 %wx, 5
  %by = shl i32 %wy, 5
  %x = add i32 %bx, %tx
  br label %load

load:
  %j = phi i32 [ 0, %entry ], [ %j1, %load ]
  %r = add i32 %ty, %j
  %y = add i32 %by, %r
  %yi = mul i32 %y, %width
  %src = add i32 %yi, %x
  %srce = zext i32 %src to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %srce
  %v = load i32, ptr addrspace(1) %ip, align 4
  %tr = mul i32 %r, 33
  %ti = add i32 %tr, %tx
  %tp = getelementptr inbounds [1056 x i32], ptr addrspace(3) @tile, i32 0, i32 %ti
  store i32 %v, ptr addrspace(3) %tp, align 4
  %j1 = add i32 %j, 8
  %more = icmp ult i32 %j1, 32
  br i1 %more, label %load, label %sync

sync:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %x2 = add i32 %by, %tx
  %tx33 = mul i32 %tx, 33
  br label %store

store:
  %k = phi i32 [ 0, %sync ], [ %k1, %store ]
  %c = add i32 %ty, %k
  %y2 = add i32 %bx, %c
  %y2h = mul i32 %y2, %height
  %dst = add i32 %y2h, %x2
  %dste = zext i32 %dst to i64
  %ti2 = add i32 %tx33, %c
  %tp2 = getelementptr inbounds [1056 x i32], ptr addrspace(3) @tile, i32 0, i32 %ti2
  %w = load i32, ptr addrspace(3) %tp2, align 4
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %dste
  store i32 %w, ptr addrspace(1) %op, align 4
  %k1 = add i32 %k, 8
  %more2 = icmp ult i32 %k1, 32
  br i1 %more2, label %store, label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
