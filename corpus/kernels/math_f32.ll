; math_f32: f32 math intrinsics and integer min/max, one work-item per element.
; Exact results, exact[8*i + k]:
;   k=0 fma(a, b, p)   k=1 minnum(a, b)   k=2 maxnum(a, b)   k=3 sqrt(p) (correctly rounded expansion)
;   k=4 floor(a*b)     k=5 copysign(p, b) k=6 fabs(a) * b    k=7 rint(a*b)
; Integer results, ints[4*i + k]: k=0 smin(ia, ib)  k=1 umax(ia, ib)  k=2 abs(ia)  k=3 umin(ia, ib)
; Hardware-approximate results (own buffers, compared with a tolerance):
;   e2[i] = exp2(a) (v_exp_f32), l2[i] = log2(q) (v_log_f32), sn[i] = sin(s) (v_sin_f32)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @math_f32(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                    ptr addrspace(1) noalias readonly %p, ptr addrspace(1) noalias readonly %q,
                                    ptr addrspace(1) noalias readonly %s, ptr addrspace(1) noalias readonly %ia,
                                    ptr addrspace(1) noalias readonly %ib, ptr addrspace(1) noalias %exact,
                                    ptr addrspace(1) noalias %ints, ptr addrspace(1) noalias %e2,
                                    ptr addrspace(1) noalias %l2, ptr addrspace(1) noalias %sn) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds float, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds float, ptr addrspace(1) %b, i64 %ie
  %pp = getelementptr inbounds float, ptr addrspace(1) %p, i64 %ie
  %qp = getelementptr inbounds float, ptr addrspace(1) %q, i64 %ie
  %sp = getelementptr inbounds float, ptr addrspace(1) %s, i64 %ie
  %iap = getelementptr inbounds i32, ptr addrspace(1) %ia, i64 %ie
  %ibp = getelementptr inbounds i32, ptr addrspace(1) %ib, i64 %ie
  %av = load float, ptr addrspace(1) %ap, align 4
  %bv = load float, ptr addrspace(1) %bp, align 4
  %pv = load float, ptr addrspace(1) %pp, align 4
  %qv = load float, ptr addrspace(1) %qp, align 4
  %sv = load float, ptr addrspace(1) %sp, align 4
  %x = load i32, ptr addrspace(1) %iap, align 4
  %y = load i32, ptr addrspace(1) %ibp, align 4

  %eo = shl i64 %ie, 3
  %ep = getelementptr inbounds float, ptr addrspace(1) %exact, i64 %eo
  %f0 = call float @llvm.fma.f32(float %av, float %bv, float %pv)
  store float %f0, ptr addrspace(1) %ep, align 4
  %f1 = call float @llvm.minnum.f32(float %av, float %bv)
  %ep1 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 1
  store float %f1, ptr addrspace(1) %ep1, align 4
  %f2 = call float @llvm.maxnum.f32(float %av, float %bv)
  %ep2 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 2
  store float %f2, ptr addrspace(1) %ep2, align 4
  %f3 = call float @llvm.sqrt.f32(float %pv)
  %ep3 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 3
  store float %f3, ptr addrspace(1) %ep3, align 4
  %ab = fmul float %av, %bv
  %f4 = call float @llvm.floor.f32(float %ab)
  %ep4 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 4
  store float %f4, ptr addrspace(1) %ep4, align 4
  %f5 = call float @llvm.copysign.f32(float %pv, float %bv)
  %ep5 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 5
  store float %f5, ptr addrspace(1) %ep5, align 4
  %fa = call float @llvm.fabs.f32(float %av)
  %f6 = fmul float %fa, %bv
  %ep6 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 6
  store float %f6, ptr addrspace(1) %ep6, align 4
  %f7 = call float @llvm.rint.f32(float %ab)
  %ep7 = getelementptr inbounds float, ptr addrspace(1) %ep, i64 7
  store float %f7, ptr addrspace(1) %ep7, align 4

  %io = shl i64 %ie, 2
  %ip = getelementptr inbounds i32, ptr addrspace(1) %ints, i64 %io
  %i0 = call i32 @llvm.smin.i32(i32 %x, i32 %y)
  store i32 %i0, ptr addrspace(1) %ip, align 4
  %i1 = call i32 @llvm.umax.i32(i32 %x, i32 %y)
  %ip1 = getelementptr inbounds i32, ptr addrspace(1) %ip, i64 1
  store i32 %i1, ptr addrspace(1) %ip1, align 4
  %i2 = call i32 @llvm.abs.i32(i32 %x, i1 false)
  %ip2 = getelementptr inbounds i32, ptr addrspace(1) %ip, i64 2
  store i32 %i2, ptr addrspace(1) %ip2, align 4
  %i3 = call i32 @llvm.umin.i32(i32 %x, i32 %y)
  %ip3 = getelementptr inbounds i32, ptr addrspace(1) %ip, i64 3
  store i32 %i3, ptr addrspace(1) %ip3, align 4

  %x2 = call float @llvm.exp2.f32(float %av)
  %e2p = getelementptr inbounds float, ptr addrspace(1) %e2, i64 %ie
  store float %x2, ptr addrspace(1) %e2p, align 4
  %lg = call float @llvm.log2.f32(float %qv)
  %l2p = getelementptr inbounds float, ptr addrspace(1) %l2, i64 %ie
  store float %lg, ptr addrspace(1) %l2p, align 4
  %sin = call float @llvm.sin.f32(float %sv)
  %snp = getelementptr inbounds float, ptr addrspace(1) %sn, i64 %ie
  store float %sin, ptr addrspace(1) %snp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.floor.f32(float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.exp2.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.sin.f32(float)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
