; async_pipeline: a double-buffered LDS pipeline fed by asynchronous global->LDS loads
; (global_load_async_to_lds_b32, waited for with s_wait_asynccnt) and synchronised with split
; barriers (s_barrier_signal / s_barrier_wait). Work-groups of exactly 64 work-items (two waves32).
; gfx1250 only.
; Work-group w owns 4 tiles of 64 floats, tile t at in[(4w + t)*64 ...]. LDS holds two buffers of
; 64 floats. Tile 0 is loaded before the loop; iteration t waits for its tile (asynccnt 0, then a
; barrier, so both waves' loads are done), starts the load of tile t+1 into the other buffer, and
; computes from the current one, reading the other wave's element too:
;   out[(4w + t)*64 + l] = buf[l] * 2 + buf[(l + 32) & 63]
; A second barrier ends the iteration, so no buffer is overwritten while it is still read.
target triple = "amdgcn-amd-amdhsa"

@buf = internal addrspace(3) global [128 x float] poison, align 16

define amdgpu_kernel void @async_pipeline(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %tile0 = shl i32 %wg, 8
  %g0 = add i32 %tile0, %l
  %g0e = zext i32 %g0 to i64
  %src0 = getelementptr inbounds float, ptr addrspace(1) %in, i64 %g0e
  %dst0 = getelementptr inbounds [128 x float], ptr addrspace(3) @buf, i32 0, i32 %l
  call void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1) %src0, ptr addrspace(3) %dst0, i32 0, i32 0)
  %other = xor i32 %l, 32
  br label %loop

loop:
  %t = phi i32 [ 0, %entry ], [ %tn, %next ]
  call void @llvm.amdgcn.s.wait.asynccnt(i16 0)
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier.signal(i32 -1)
  call void @llvm.amdgcn.s.barrier.wait(i16 -1)
  fence syncscope("workgroup") acquire
  %tn = add i32 %t, 1
  %cur = and i32 %t, 1
  %curbase = shl i32 %cur, 6
  %more = icmp ult i32 %tn, 4
  br i1 %more, label %prefetch, label %compute

prefetch:
  %nb = xor i32 %curbase, 64
  %nslot = add i32 %nb, %l
  %ntile = shl i32 %tn, 6
  %ng = add i32 %g0, %ntile
  %nge = zext i32 %ng to i64
  %nsrc = getelementptr inbounds float, ptr addrspace(1) %in, i64 %nge
  %ndst = getelementptr inbounds [128 x float], ptr addrspace(3) @buf, i32 0, i32 %nslot
  call void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1) %nsrc, ptr addrspace(3) %ndst, i32 0, i32 0)
  br label %compute

compute:
  %mine = add i32 %curbase, %l
  %theirs = add i32 %curbase, %other
  %pm = getelementptr inbounds [128 x float], ptr addrspace(3) @buf, i32 0, i32 %mine
  %pt = getelementptr inbounds [128 x float], ptr addrspace(3) @buf, i32 0, i32 %theirs
  %vm = load float, ptr addrspace(3) %pm, align 4
  %vt = load float, ptr addrspace(3) %pt, align 4
  %v2 = fmul float %vm, 2.0
  %v = fadd float %v2, %vt
  %tile = shl i32 %t, 6
  %og = add i32 %g0, %tile
  %oge = zext i32 %og to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %oge
  store float %v, ptr addrspace(1) %po, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier.signal(i32 -1)
  call void @llvm.amdgcn.s.barrier.wait(i16 -1)
  fence syncscope("workgroup") acquire
  br label %next

next:
  %done = icmp eq i32 %tn, 4
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.global.load.async.to.lds.b32(ptr addrspace(1), ptr addrspace(3), i32 immarg, i32 immarg)
declare void @llvm.amdgcn.s.wait.asynccnt(i16 immarg)
declare void @llvm.amdgcn.s.barrier.signal(i32 immarg)
declare void @llvm.amdgcn.s.barrier.wait(i16 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
