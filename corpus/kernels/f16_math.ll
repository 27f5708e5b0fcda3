; f16_math: half-precision arithmetic and conversions, one work-item per element.
;   h[i] = (a[i] * b[i]) + a[i]             half mul then half add (each rounded to f16)
;   e[i] = fpext(h[i]) * c[i]               f16 -> f32, f32 mul
;   t[i] = fptrunc(c[i] * 3.0) to half      f32 -> f16 (round to nearest even)
;   k[i] = fptosi(h[i]) to i32
;   s[i] = sitofp(i - 256) to half + a[i]   i32 -> f16, half add
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @f16_math(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                    ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %h,
                                    ptr addrspace(1) noalias %e, ptr addrspace(1) noalias %t,
                                    ptr addrspace(1) noalias %k, ptr addrspace(1) noalias %s) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 7
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds half, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds half, ptr addrspace(1) %b, i64 %ie
  %cp = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ie
  %av = load half, ptr addrspace(1) %ap, align 2
  %bv = load half, ptr addrspace(1) %bp, align 2
  %cv = load float, ptr addrspace(1) %cp, align 4

  %p = fmul half %av, %bv
  %hv = fadd half %p, %av
  %hp = getelementptr inbounds half, ptr addrspace(1) %h, i64 %ie
  store half %hv, ptr addrspace(1) %hp, align 2

  %hx = fpext half %hv to float
  %ev = fmul float %hx, %cv
  %ep = getelementptr inbounds float, ptr addrspace(1) %e, i64 %ie
  store float %ev, ptr addrspace(1) %ep, align 4

  %c3 = fmul float %cv, 3.0
  %tv = fptrunc float %c3 to half
  %tp = getelementptr inbounds half, ptr addrspace(1) %t, i64 %ie
  store half %tv, ptr addrspace(1) %tp, align 2

  %kv = fptosi half %hv to i32
  %kp = getelementptr inbounds i32, ptr addrspace(1) %k, i64 %ie
  store i32 %kv, ptr addrspace(1) %kp, align 4

  %im = sub i32 %i, 256
  %ih = sitofp i32 %im to half
  %sv = fadd half %ih, %av
  %sp = getelementptr inbounds half, ptr addrspace(1) %s, i64 %ie
  store half %sv, ptr addrspace(1) %sp, align 2
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="128,128" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
