; atomics_global: global-memory atomics whose final memory does not depend on the order in which
; work-items perform them (agent scope, monotonic). k = keys[i]:
;   hist[k & 63] += 1                       atomicrmw add
;   maxv[i & 3] = umax(maxv[i & 3], k)      atomicrmw umax
;   minv[i & 3] = smin(minv[i & 3], k)      atomicrmw min (signed)
;   orv[i & 7] |= 1 << (k & 31)             a cmpxchg loop
;   flags[i & 3] = 100 + (i & 3)            atomicrmw xchg (every writer of a slot writes the same value)
;   t = counter++; tickets[t] = 1           atomicrmw add returning the old value: every ticket is taken once
;   sum64[0] += zext(k)                     64-bit atomicrmw add
;   sum64[1] ^= zext(k) << (i & 31)         64-bit atomicrmw xor
;   bits[0] &= k | (1 << (i & 31))          atomicrmw and
;   bits[1] -= k                            atomicrmw sub
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @atomics_global(ptr addrspace(1) noalias readonly %keys, ptr addrspace(1) noalias %hist,
                                          ptr addrspace(1) noalias %maxv, ptr addrspace(1) noalias %minv,
                                          ptr addrspace(1) noalias %orv, ptr addrspace(1) noalias %flags,
                                          ptr addrspace(1) noalias %counter, ptr addrspace(1) noalias %tickets,
                                          ptr addrspace(1) noalias %sum64, ptr addrspace(1) noalias %bits) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %kp = getelementptr inbounds i32, ptr addrspace(1) %keys, i64 %ie
  %k = load i32, ptr addrspace(1) %kp, align 4
  %i3 = and i32 %i, 3
  %i3e = zext i32 %i3 to i64
  %i7 = and i32 %i, 7
  %i7e = zext i32 %i7 to i64
  %i31 = and i32 %i, 31

  %h = and i32 %k, 63
  %he = zext i32 %h to i64
  %hp = getelementptr inbounds i32, ptr addrspace(1) %hist, i64 %he
  %o0 = atomicrmw add ptr addrspace(1) %hp, i32 1 syncscope("agent") monotonic, align 4

  %mxp = getelementptr inbounds i32, ptr addrspace(1) %maxv, i64 %i3e
  %o1 = atomicrmw umax ptr addrspace(1) %mxp, i32 %k syncscope("agent") monotonic, align 4

  %mnp = getelementptr inbounds i32, ptr addrspace(1) %minv, i64 %i3e
  %o2 = atomicrmw min ptr addrspace(1) %mnp, i32 %k syncscope("agent") monotonic, align 4

  %orp = getelementptr inbounds i32, ptr addrspace(1) %orv, i64 %i7e
  %kb = and i32 %k, 31
  %bit = shl i32 1, %kb
  %init = load atomic i32, ptr addrspace(1) %orp syncscope("agent") monotonic, align 4
  br label %cas

cas:
  %old = phi i32 [ %init, %entry ], [ %seen, %cas ]
  %new = or i32 %old, %bit
  %pair = cmpxchg ptr addrspace(1) %orp, i32 %old, i32 %new syncscope("agent") monotonic monotonic, align 4
  %seen = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  br i1 %ok, label %after_cas, label %cas

after_cas:
  %fp = getelementptr inbounds i32, ptr addrspace(1) %flags, i64 %i3e
  %fv = add i32 %i3, 100
  %o3 = atomicrmw xchg ptr addrspace(1) %fp, i32 %fv syncscope("agent") monotonic, align 4

  %ticket = atomicrmw add ptr addrspace(1) %counter, i32 1 syncscope("agent") monotonic, align 4
  %te = zext i32 %ticket to i64
  %tp = getelementptr inbounds i32, ptr addrspace(1) %tickets, i64 %te
  store i32 1, ptr addrspace(1) %tp, align 4

  %k64 = zext i32 %k to i64
  %o4 = atomicrmw add ptr addrspace(1) %sum64, i64 %k64 syncscope("agent") monotonic, align 8
  %s1p = getelementptr inbounds i64, ptr addrspace(1) %sum64, i64 1
  %i31e = zext i32 %i31 to i64
  %ksh = shl i64 %k64, %i31e
  %o5 = atomicrmw xor ptr addrspace(1) %s1p, i64 %ksh syncscope("agent") monotonic, align 8

  %ib = shl i32 1, %i31
  %kor = or i32 %k, %ib
  %o6 = atomicrmw and ptr addrspace(1) %bits, i32 %kor syncscope("agent") monotonic, align 4
  %b1p = getelementptr inbounds i32, ptr addrspace(1) %bits, i64 1
  %o7 = atomicrmw sub ptr addrspace(1) %b1p, i32 %k syncscope("agent") monotonic, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
