; lds_scan: per-work-group inclusive prefix sum (Hillis-Steele) in LDS, 256 work-items.
;   sc[t] = in[gid]; barrier
;   for (off = 1; off < 256; off <<= 1) { v = t >= off ? sc[t-off] : 0; barrier; sc[t] += v; barrier }
;   out[gid] = sc[t]                       (i32, wrapping)
target triple = "amdgcn-amd-amdhsa"

@sc = internal addrspace(3) global [256 x i32] poison, align 4

define amdgpu_kernel void @lds_scan(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %gid = add i32 %base, %t
  %ge = zext i32 %gid to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %iv = load i32, ptr addrspace(1) %ip, align 4
  %sp = getelementptr inbounds [256 x i32], ptr addrspace(3) @sc, i32 0, i32 %t
  store i32 %iv, ptr addrspace(3) %sp, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %loop

loop:
  %off = phi i32 [ 1, %entry ], [ %off2, %cont ]
  %has = icmp uge i32 %t, %off
  br i1 %has, label %rd, label %cont0

rd:
  %src = sub i32 %t, %off
  %qp = getelementptr inbounds [256 x i32], ptr addrspace(3) @sc, i32 0, i32 %src
  %q = load i32, ptr addrspace(3) %qp, align 4
  br label %cont0

cont0:
  %add = phi i32 [ 0, %loop ], [ %q, %rd ]
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %cur = load i32, ptr addrspace(3) %sp, align 4
  %nv = add i32 %cur, %add
  store i32 %nv, ptr addrspace(3) %sp, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %cont

cont:
  %off2 = shl i32 %off, 1
  %more = icmp ult i32 %off2, 256
  br i1 %more, label %loop, label %done

done:
  %r = load i32, ptr addrspace(3) %sp, align 4
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ge
  store i32 %r, ptr addrspace(1) %op, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
