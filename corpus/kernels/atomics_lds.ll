; atomics_lds: LDS atomics (workgroup scope) building a per-work-group histogram, max, OR and
; signed min, then flushed to global memory (global atomic add of each bin). 256 work-items.
;   t < 32: lh[t] = 0;  t == 0: lm = {0, 0, INT_MAX};  barrier
;   k = keys[gid]; lh[k & 31] += 1; lm[0] = umax(lm[0], k); lm[1] |= 1 << (k >> 27) (cmpxchg loop);
;   lm[2] = smin(lm[2], k);  barrier
;   t < 32: hist[t] += lh[t] (global atomic); wgh[wg*32 + t] = lh[t]
;   t == 0: wgmax[wg] = lm[0]; wgor[wg] = lm[1]; wgmin[wg] = lm[2]
target triple = "amdgcn-amd-amdhsa"

@lh = internal addrspace(3) global [32 x i32] poison, align 4
@lm = internal addrspace(3) global [3 x i32] poison, align 4

define amdgpu_kernel void @atomics_lds(ptr addrspace(1) noalias readonly %keys, ptr addrspace(1) noalias %hist,
                                       ptr addrspace(1) noalias %wgh, ptr addrspace(1) noalias %wgmax,
                                       ptr addrspace(1) noalias %wgor, ptr addrspace(1) noalias %wgmin) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %gid = add i32 %base, %t
  %ge = zext i32 %gid to i64
  %lhp = getelementptr inbounds [32 x i32], ptr addrspace(3) @lh, i32 0, i32 %t
  %lm1 = getelementptr inbounds [3 x i32], ptr addrspace(3) @lm, i32 0, i32 1
  %lm2 = getelementptr inbounds [3 x i32], ptr addrspace(3) @lm, i32 0, i32 2
  %small = icmp ult i32 %t, 32
  br i1 %small, label %clear, label %clear_done

clear:
  store i32 0, ptr addrspace(3) %lhp, align 4
  %first = icmp eq i32 %t, 0
  br i1 %first, label %clear_m, label %clear_done

clear_m:
  store i32 0, ptr addrspace(3) @lm, align 4
  store i32 0, ptr addrspace(3) %lm1, align 4
  store i32 2147483647, ptr addrspace(3) %lm2, align 4
  br label %clear_done

clear_done:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %kp = getelementptr inbounds i32, ptr addrspace(1) %keys, i64 %ge
  %k = load i32, ptr addrspace(1) %kp, align 4
  %bin = and i32 %k, 31
  %binp = getelementptr inbounds [32 x i32], ptr addrspace(3) @lh, i32 0, i32 %bin
  %o0 = atomicrmw add ptr addrspace(3) %binp, i32 1 syncscope("workgroup") monotonic, align 4
  %o1 = atomicrmw umax ptr addrspace(3) @lm, i32 %k syncscope("workgroup") monotonic, align 4
  %o2 = atomicrmw min ptr addrspace(3) %lm2, i32 %k syncscope("workgroup") monotonic, align 4
  %top = lshr i32 %k, 27
  %bit = shl i32 1, %top
  %init = load atomic i32, ptr addrspace(3) %lm1 syncscope("workgroup") monotonic, align 4
  br label %cas

cas:
  %old = phi i32 [ %init, %clear_done ], [ %seen, %cas ]
  %new = or i32 %old, %bit
  %pair = cmpxchg ptr addrspace(3) %lm1, i32 %old, i32 %new syncscope("workgroup") monotonic monotonic, align 4
  %seen = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  br i1 %ok, label %after, label %cas

after:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br i1 %small, label %flush, label %exit

flush:
  %c = load i32, ptr addrspace(3) %lhp, align 4
  %te = zext i32 %t to i64
  %gh = getelementptr inbounds i32, ptr addrspace(1) %hist, i64 %te
  %o3 = atomicrmw add ptr addrspace(1) %gh, i32 %c syncscope("agent") monotonic, align 4
  %wi0 = shl i32 %wg, 5
  %wi = add i32 %wi0, %t
  %wie = zext i32 %wi to i64
  %whp = getelementptr inbounds i32, ptr addrspace(1) %wgh, i64 %wie
  store i32 %c, ptr addrspace(1) %whp, align 4
  %is0 = icmp eq i32 %t, 0
  br i1 %is0, label %flush_m, label %exit

flush_m:
  %m0 = load i32, ptr addrspace(3) @lm, align 4
  %m1 = load i32, ptr addrspace(3) %lm1, align 4
  %m2 = load i32, ptr addrspace(3) %lm2, align 4
  %wge = zext i32 %wg to i64
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %wgmax, i64 %wge
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %wgor, i64 %wge
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %wgmin, i64 %wge
  store i32 %m0, ptr addrspace(1) %p0, align 4
  store i32 %m1, ptr addrspace(1) %p1, align 4
  store i32 %m2, ptr addrspace(1) %p2, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
