; lds_bitonic: bitonic sort of each work-group's 256 u32 keys in LDS (ascending), in place.
;   s[t] = keys[gid]; barrier
;   for (k = 2; k <= 256; k <<= 1)
;     for (j = k >> 1; j > 0; j >>= 1) {
;       p = t ^ j;
;       if (p > t) { a = s[t]; b = s[p];
;         if ((t & k) == 0 ? a > b : a < b) { s[t] = b; s[p] = a; } }   (unsigned compares)
;       barrier
;     }
;   keys[gid] = s[t]
target triple = "amdgcn-amd-amdhsa"

@s = internal addrspace(3) global [256 x i32] poison, align 4

define amdgpu_kernel void @lds_bitonic(ptr addrspace(1) noalias %keys) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %gid = add i32 %base, %t
  %ge = zext i32 %gid to i64
  %kp = getelementptr inbounds i32, ptr addrspace(1) %keys, i64 %ge
  %kv = load i32, ptr addrspace(1) %kp, align 4
  %sp = getelementptr inbounds [256 x i32], ptr addrspace(3) @s, i32 0, i32 %t
  store i32 %kv, ptr addrspace(3) %sp, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %kloop

kloop:
  %k = phi i32 [ 2, %entry ], [ %k2, %klatch ]
  %j0 = lshr i32 %k, 1
  %tk = and i32 %t, %k
  %up = icmp eq i32 %tk, 0
  br label %jloop

jloop:
  %j = phi i32 [ %j0, %kloop ], [ %j2, %jlatch ]
  %p = xor i32 %t, %j
  %partner = icmp ugt i32 %p, %t
  br i1 %partner, label %cmp, label %jlatch

cmp:
  %pp = getelementptr inbounds [256 x i32], ptr addrspace(3) @s, i32 0, i32 %p
  %a = load i32, ptr addrspace(3) %sp, align 4
  %b = load i32, ptr addrspace(3) %pp, align 4
  %gt = icmp ugt i32 %a, %b
  %lt = icmp ult i32 %a, %b
  %sw = select i1 %up, i1 %gt, i1 %lt
  br i1 %sw, label %swap, label %jlatch

swap:
  store i32 %b, ptr addrspace(3) %sp, align 4
  store i32 %a, ptr addrspace(3) %pp, align 4
  br label %jlatch

jlatch:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %j2 = lshr i32 %j, 1
  %morej = icmp ne i32 %j2, 0
  br i1 %morej, label %jloop, label %klatch

klatch:
  %k2 = shl i32 %k, 1
  %morek = icmp ule i32 %k2, 256
  br i1 %morek, label %kloop, label %done

done:
  %r = load i32, ptr addrspace(3) %sp, align 4
  store i32 %r, ptr addrspace(1) %kp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
