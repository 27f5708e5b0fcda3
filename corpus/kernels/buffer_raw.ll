; buffer_raw: raw buffer loads, stores and a returning atomic through buffer resources built by
; llvm.amdgcn.make.buffer.rsrc (MUBUF on gfx942/gfx950, VBUFFER on gfx1250). Lanes past a
; resource's num_records read 0 (the load and the atomic's return) and write nothing:
;   v = i < n ? in[i] : 0;  out[i] = v + 1 for i < m;  old[i] = i < m ? cnt[i]++ : 0
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @buffer_raw(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %cnt,
                                      ptr addrspace(1) %old, i32 %n, i32 %m) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %lane
  %off = shl i32 %i, 2
  %nb = shl i32 %n, 2
  %mb = shl i32 %m, 2
  %nb64 = zext i32 %nb to i64
  %mb64 = zext i32 %mb to i64
  %rin = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 %nb64, i32 0)
  %rout = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %out, i16 0, i64 %mb64, i32 0)
  %rcnt = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %cnt, i16 0, i64 %mb64, i32 0)
  %v = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %rin, i32 %off, i32 0, i32 0)
  %v1 = add i32 %v, 1
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %v1, ptr addrspace(8) %rout, i32 %off, i32 0, i32 0)
  %o = call i32 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i32(i32 1, ptr addrspace(8) %rcnt, i32 %off, i32 0, i32 0)
  %ge = zext i32 %i to i64
  %po = getelementptr inbounds i32, ptr addrspace(1) %old, i64 %ge
  store i32 %o, ptr addrspace(1) %po, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i32(i32, ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
