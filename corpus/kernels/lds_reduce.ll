; lds_reduce: per-work-group tree reduction in LDS with barriers (256 work-items), of f32 and i32.
;   lf[t] = x[gid]; li[t] = v[gid]; barrier
;   for (s = 128; s > 0; s >>= 1) { if (t < s) { lf[t] += lf[t+s]; li[t] += li[t+s]; } barrier }
;   if (t == 0) { outf[wg] = lf[0]; outi[wg] = li[0] }
; The f32 sum is deterministic: the tree fixes the order of the additions.
target triple = "amdgcn-amd-amdhsa"

@lf = internal addrspace(3) global [256 x float] poison, align 4
@li = internal addrspace(3) global [256 x i32] poison, align 4

define amdgpu_kernel void @lds_reduce(ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias readonly %v,
                                      ptr addrspace(1) noalias %outf, ptr addrspace(1) noalias %outi) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %gid = add i32 %base, %t
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %ge
  %vp = getelementptr inbounds i32, ptr addrspace(1) %v, i64 %ge
  %xv = load float, ptr addrspace(1) %xp, align 4
  %vv = load i32, ptr addrspace(1) %vp, align 4
  %lfp = getelementptr inbounds [256 x float], ptr addrspace(3) @lf, i32 0, i32 %t
  %lip = getelementptr inbounds [256 x i32], ptr addrspace(3) @li, i32 0, i32 %t
  store float %xv, ptr addrspace(3) %lfp, align 4
  store i32 %vv, ptr addrspace(3) %lip, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  br label %loop

loop:
  %s = phi i32 [ 128, %entry ], [ %s1, %latch ]
  %act = icmp ult i32 %t, %s
  br i1 %act, label %add, label %latch

add:
  %u = add i32 %t, %s
  %lfq = getelementptr inbounds [256 x float], ptr addrspace(3) @lf, i32 0, i32 %u
  %liq = getelementptr inbounds [256 x i32], ptr addrspace(3) @li, i32 0, i32 %u
  %fa = load float, ptr addrspace(3) %lfp, align 4
  %fb = load float, ptr addrspace(3) %lfq, align 4
  %fs = fadd float %fa, %fb
  store float %fs, ptr addrspace(3) %lfp, align 4
  %ia = load i32, ptr addrspace(3) %lip, align 4
  %ib = load i32, ptr addrspace(3) %liq, align 4
  %is = add i32 %ia, %ib
  store i32 %is, ptr addrspace(3) %lip, align 4
  br label %latch

latch:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %s1 = lshr i32 %s, 1
  %more = icmp ne i32 %s1, 0
  br i1 %more, label %loop, label %done

done:
  %first = icmp eq i32 %t, 0
  br i1 %first, label %write, label %exit

write:
  %rf = load float, ptr addrspace(3) @lf, align 4
  %ri = load i32, ptr addrspace(3) @li, align 4
  %wge = zext i32 %wg to i64
  %ofp = getelementptr inbounds float, ptr addrspace(1) %outf, i64 %wge
  %oip = getelementptr inbounds i32, ptr addrspace(1) %outi, i64 %wge
  store float %rf, ptr addrspace(1) %ofp, align 4
  store i32 %ri, ptr addrspace(1) %oip, align 4
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
