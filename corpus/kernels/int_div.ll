; int_div: two kernels, 32-bit and 64-bit integer division and remainder, signed and unsigned.
; Divisors that would be undefined (0, and -1 for signed division, which overflows for INT_MIN)
; are replaced by 7 in the kernel itself.
;
; int_div32:  b = (b0 == 0 || b0 == -1) ? 7 : b0;  q = a / b (sdiv), r = a % b (srem)
;             ub = (b0 >>u (i & 15)) | 1;          uq = a /u ub, ur = a %u ub
; int_div64:  b1 = b0 >>s (i % 48); b = (b1 == 0 || b1 == -1) ? 7 : b1;  q, r as above (i64)
;             ub = (b0 >>u (i % 61)) | 1;          uq, ur as above (u64)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @int_div32(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                     ptr addrspace(1) noalias %q, ptr addrspace(1) noalias %r,
                                     ptr addrspace(1) noalias %uq, ptr addrspace(1) noalias %ur) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 7
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds i32, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds i32, ptr addrspace(1) %b, i64 %ie
  %av = load i32, ptr addrspace(1) %ap, align 4
  %b0 = load i32, ptr addrspace(1) %bp, align 4
  %z = icmp eq i32 %b0, 0
  %m1 = icmp eq i32 %b0, -1
  %bad = or i1 %z, %m1
  %bv = select i1 %bad, i32 7, i32 %b0
  %qv = sdiv i32 %av, %bv
  %rv = srem i32 %av, %bv
  %sh = and i32 %i, 15
  %ub0 = lshr i32 %b0, %sh
  %ub = or i32 %ub0, 1
  %uqv = udiv i32 %av, %ub
  %urv = urem i32 %av, %ub
  %qp = getelementptr inbounds i32, ptr addrspace(1) %q, i64 %ie
  %rp = getelementptr inbounds i32, ptr addrspace(1) %r, i64 %ie
  %uqp = getelementptr inbounds i32, ptr addrspace(1) %uq, i64 %ie
  %urp = getelementptr inbounds i32, ptr addrspace(1) %ur, i64 %ie
  store i32 %qv, ptr addrspace(1) %qp, align 4
  store i32 %rv, ptr addrspace(1) %rp, align 4
  store i32 %uqv, ptr addrspace(1) %uqp, align 4
  store i32 %urv, ptr addrspace(1) %urp, align 4
  ret void
}

define amdgpu_kernel void @int_div64(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                     ptr addrspace(1) noalias %q, ptr addrspace(1) noalias %r,
                                     ptr addrspace(1) noalias %uq, ptr addrspace(1) noalias %ur) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 7
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds i64, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds i64, ptr addrspace(1) %b, i64 %ie
  %av = load i64, ptr addrspace(1) %ap, align 8
  %b0 = load i64, ptr addrspace(1) %bp, align 8
  %s48 = urem i32 %i, 48
  %s48e = zext i32 %s48 to i64
  %b1 = ashr i64 %b0, %s48e
  %z = icmp eq i64 %b1, 0
  %m1 = icmp eq i64 %b1, -1
  %bad = or i1 %z, %m1
  %bv = select i1 %bad, i64 7, i64 %b1
  %qv = sdiv i64 %av, %bv
  %rv = srem i64 %av, %bv
  %s61 = urem i32 %i, 61
  %s61e = zext i32 %s61 to i64
  %ub0 = lshr i64 %b0, %s61e
  %ub = or i64 %ub0, 1
  %uqv = udiv i64 %av, %ub
  %urv = urem i64 %av, %ub
  %qp = getelementptr inbounds i64, ptr addrspace(1) %q, i64 %ie
  %rp = getelementptr inbounds i64, ptr addrspace(1) %r, i64 %ie
  %uqp = getelementptr inbounds i64, ptr addrspace(1) %uq, i64 %ie
  %urp = getelementptr inbounds i64, ptr addrspace(1) %ur, i64 %ie
  store i64 %qv, ptr addrspace(1) %qp, align 8
  store i64 %rv, ptr addrspace(1) %rp, align 8
  store i64 %uqv, ptr addrspace(1) %uqp, align 8
  store i64 %urv, ptr addrspace(1) %urp, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="128,128" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
