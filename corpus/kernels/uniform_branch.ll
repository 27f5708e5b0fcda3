; uniform_branch: branches and a loop on by-value kernel arguments (wave-uniform conditions).
;   v = in[i]
;   switch (mode) { 0: v = v*2 + 1; 1: v ^= 0xA5A5A5A5; 2: v = rotl(v, 5); default: v = -v }
;   for (k = 0; k < iters; k++) v = v*1664525 + 1013904223
;   out[i] = mode > 1 (signed) ? v : v + i
; The object has three launches of the one kernel with different mode/iters.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @uniform_branch(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias readonly %in,
                                          i32 %mode, i32 %iters) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ie
  %v = load i32, ptr addrspace(1) %ip, align 4
  switch i32 %mode, label %md [
    i32 0, label %m0
    i32 1, label %m1
    i32 2, label %m2
  ]

m0:
  %v2 = shl i32 %v, 1
  %v0 = add i32 %v2, 1
  br label %join

m1:
  %v1 = xor i32 %v, -1515870811
  br label %join

m2:
  %vr = call i32 @llvm.fshl.i32(i32 %v, i32 %v, i32 5)
  br label %join

md:
  %vd = sub i32 0, %v
  br label %join

join:
  %w = phi i32 [ %v0, %m0 ], [ %v1, %m1 ], [ %vr, %m2 ], [ %vd, %md ]
  %any = icmp sgt i32 %iters, 0
  br i1 %any, label %loop, label %after

loop:
  %k = phi i32 [ 0, %join ], [ %k1, %loop ]
  %x = phi i32 [ %w, %join ], [ %x1, %loop ]
  %xm = mul i32 %x, 1664525
  %x1 = add i32 %xm, 1013904223
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %iters
  br i1 %more, label %loop, label %after

after:
  %r = phi i32 [ %w, %join ], [ %x1, %loop ]
  %hi = icmp sgt i32 %mode, 1
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ie
  br i1 %hi, label %store_plain, label %store_plus

store_plain:
  store i32 %r, ptr addrspace(1) %op, align 4
  br label %exit

store_plus:
  %ri = add i32 %r, %i
  store i32 %ri, ptr addrspace(1) %op, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.fshl.i32(i32, i32, i32)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
