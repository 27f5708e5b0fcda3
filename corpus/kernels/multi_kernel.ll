; multi_kernel: three kernels in one code object sharing a non-inlined helper.
;   mk_hash(x) = (x * 0x85EBCA6B) ^ (x >> 13)
;   mk_fill:     out[i] = value + mk_hash(i)
;   mk_scale:    x[i] = x[i] * s + 1.0                          (f32 mul then add)
;   mk_blocksum: sum = 0 (LDS); barrier; sum += in[gid] (LDS atomic add); barrier;
;                work-item 0: out[wg] = sum + mk_hash(wg)
target triple = "amdgcn-amd-amdhsa"

@sum = internal addrspace(3) global i32 poison, align 4

define internal i32 @mk_hash(i32 %x) #1 {
  %m = mul i32 %x, -2048144789
  %s = lshr i32 %x, 13
  %r = xor i32 %m, %s
  ret i32 %r
}

define amdgpu_kernel void @mk_fill(ptr addrspace(1) noalias %out, i32 %value) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %h = call i32 @mk_hash(i32 %i)
  %v = add i32 %value, %h
  %ie = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ie
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

define amdgpu_kernel void @mk_scale(ptr addrspace(1) noalias %x, float %s) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %x, i64 %ie
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %v, %s
  %r = fadd float %m, 1.0
  store float %r, ptr addrspace(1) %p, align 4
  ret void
}

define amdgpu_kernel void @mk_blocksum(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %init, label %go

init:
  store i32 0, ptr addrspace(3) @sum, align 4
  br label %go

go:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ie
  %v = load i32, ptr addrspace(1) %p, align 4
  %o = atomicrmw add ptr addrspace(3) @sum, i32 %v syncscope("workgroup") monotonic, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br i1 %first, label %write, label %exit

write:
  %t = load i32, ptr addrspace(3) @sum, align 4
  %h = call i32 @mk_hash(i32 %wg)
  %r = add i32 %t, %h
  %wge = zext i32 %wg to i64
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %wge
  store i32 %r, ptr addrspace(1) %q, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
attributes #1 = { noinline }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
