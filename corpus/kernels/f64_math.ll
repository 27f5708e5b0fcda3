; f64_math: double-precision arithmetic and conversions, one work-item per element.
;   fma[i]  = fma(a[i], b[i], c[i])                      (llvm.fma.f64)
;   div[i]  = a[i] / b[i]                                (IEEE division, b in [0.5, 8])
;   mix[i]  = ((a[i] * b[i]) + c[i]) - a[i]              (separate mul/add/sub, no contraction)
;   toi[i]  = fptosi(a[i] * 1000.0) to i32
;   tof[i]  = fptrunc(a[i] / b[i]) to float
;   fromi[i] = sitofp((i64)i * -7046029254386353131) to double (i64 -> f64 rounding)
;   fromu[i] = uitofp(u64 bits[i]) to double
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @f64_math(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                    ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias readonly %bits,
                                    ptr addrspace(1) noalias %fma, ptr addrspace(1) noalias %div,
                                    ptr addrspace(1) noalias %mix, ptr addrspace(1) noalias %toi,
                                    ptr addrspace(1) noalias %tof, ptr addrspace(1) noalias %fromi,
                                    ptr addrspace(1) noalias %fromu) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds double, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds double, ptr addrspace(1) %b, i64 %ie
  %cp = getelementptr inbounds double, ptr addrspace(1) %c, i64 %ie
  %av = load double, ptr addrspace(1) %ap, align 8
  %bv = load double, ptr addrspace(1) %bp, align 8
  %cv = load double, ptr addrspace(1) %cp, align 8

  %f = call double @llvm.fma.f64(double %av, double %bv, double %cv)
  %fp = getelementptr inbounds double, ptr addrspace(1) %fma, i64 %ie
  store double %f, ptr addrspace(1) %fp, align 8

  %q = fdiv double %av, %bv
  %qp = getelementptr inbounds double, ptr addrspace(1) %div, i64 %ie
  store double %q, ptr addrspace(1) %qp, align 8

  %m0 = fmul double %av, %bv
  %m1 = fadd double %m0, %cv
  %m2 = fsub double %m1, %av
  %mp = getelementptr inbounds double, ptr addrspace(1) %mix, i64 %ie
  store double %m2, ptr addrspace(1) %mp, align 8

  %s = fmul double %av, 1000.0
  %si = fptosi double %s to i32
  %tp = getelementptr inbounds i32, ptr addrspace(1) %toi, i64 %ie
  store i32 %si, ptr addrspace(1) %tp, align 4

  %qf = fptrunc double %q to float
  %tfp = getelementptr inbounds float, ptr addrspace(1) %tof, i64 %ie
  store float %qf, ptr addrspace(1) %tfp, align 4

  %big = mul i64 %ie, -7046029254386353131
  %bd = sitofp i64 %big to double
  %fip = getelementptr inbounds double, ptr addrspace(1) %fromi, i64 %ie
  store double %bd, ptr addrspace(1) %fip, align 8

  %bitsp = getelementptr inbounds i64, ptr addrspace(1) %bits, i64 %ie
  %uv = load i64, ptr addrspace(1) %bitsp, align 8
  %ud = uitofp i64 %uv to double
  %fup = getelementptr inbounds double, ptr addrspace(1) %fromu, i64 %ie
  store double %ud, ptr addrspace(1) %fup, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare double @llvm.fma.f64(double, double, double)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
