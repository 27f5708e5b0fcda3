; convert_f32: conversions between f32, f64 and 32/64-bit integers, one work-item per element.
;   oi[i] = fptosi f[i] to i32                  (truncation toward zero)
;   ou[i] = fptoui fabs(f[i]) to i32
;   fu[i] = uitofp u[i] to float                (u32 -> f32, round to nearest even)
;   fl[i] = sitofp l[i] to float                (i64 -> f32)
;   ul[i] = uitofp l[i] to float                (u64 -> f32)
;   ol[i] = fptosi (f[i] * 2^20) to i64
;   od[i] = fpext f[i] to double * 0x3FD5555555555555 (1/3 rounded)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @convert_f32(ptr addrspace(1) noalias readonly %f, ptr addrspace(1) noalias readonly %u,
                                       ptr addrspace(1) noalias readonly %l, ptr addrspace(1) noalias %oi,
                                       ptr addrspace(1) noalias %ou, ptr addrspace(1) noalias %fu,
                                       ptr addrspace(1) noalias %fl, ptr addrspace(1) noalias %ul,
                                       ptr addrspace(1) noalias %ol, ptr addrspace(1) noalias %od) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %fp = getelementptr inbounds float, ptr addrspace(1) %f, i64 %ie
  %up = getelementptr inbounds i32, ptr addrspace(1) %u, i64 %ie
  %lp = getelementptr inbounds i64, ptr addrspace(1) %l, i64 %ie
  %fv = load float, ptr addrspace(1) %fp, align 4
  %uv = load i32, ptr addrspace(1) %up, align 4
  %lv = load i64, ptr addrspace(1) %lp, align 8

  %a = fptosi float %fv to i32
  %ap = getelementptr inbounds i32, ptr addrspace(1) %oi, i64 %ie
  store i32 %a, ptr addrspace(1) %ap, align 4

  %fabs = call float @llvm.fabs.f32(float %fv)
  %b = fptoui float %fabs to i32
  %bp = getelementptr inbounds i32, ptr addrspace(1) %ou, i64 %ie
  store i32 %b, ptr addrspace(1) %bp, align 4

  %c = uitofp i32 %uv to float
  %cp = getelementptr inbounds float, ptr addrspace(1) %fu, i64 %ie
  store float %c, ptr addrspace(1) %cp, align 4

  %d = sitofp i64 %lv to float
  %dp = getelementptr inbounds float, ptr addrspace(1) %fl, i64 %ie
  store float %d, ptr addrspace(1) %dp, align 4

  %e = uitofp i64 %lv to float
  %ep = getelementptr inbounds float, ptr addrspace(1) %ul, i64 %ie
  store float %e, ptr addrspace(1) %ep, align 4

  %fs = fmul float %fv, 1048576.0
  %g = fptosi float %fs to i64
  %gp = getelementptr inbounds i64, ptr addrspace(1) %ol, i64 %ie
  store i64 %g, ptr addrspace(1) %gp, align 8

  %fd = fpext float %fv to double
  %h = fmul double %fd, 0x3FD5555555555555
  %hp = getelementptr inbounds double, ptr addrspace(1) %od, i64 %ie
  store double %h, ptr addrspace(1) %hp, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.fabs.f32(float)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
