; pk_f32: packed fp32 arithmetic and 64-bit literals. Work-groups of exactly 32 work-items. Built for
; all three targets: gfx942/gfx950 have the same packed fp32 instructions, but only gfx1250 encodes
; the f64 and i64 constants as 64-bit literals (s_mov_b64, v_add_nc_u64, v_fmaak_f64 with lit64).
; g = global id; a, b, c hold two f32 per work-item (elements 2g, 2g+1):
;   add[2g+i] = a + b, mul[2g+i] = a * b, fma[2g+i] = fma(a, b, c)   (<2 x float>: v_pk_add_f32,
;               v_pk_mul_f32, v_pk_fma_f32; each lane of the pair an ordinary IEEE f32 operation)
;   dd[g]  = fma(x[g], 1.0000001, 3.3)          (f64 constants that are not inline constants)
;   ii[g]  = (u[g] + 0x123456789abcdef1) ^ 0x0f1f2f3f4f5f7178   (64-bit integer literals, wrapping)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @pk_f32(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                  ptr addrspace(1) noalias readonly %c, ptr addrspace(1) noalias %add,
                                  ptr addrspace(1) noalias %mul, ptr addrspace(1) noalias %fma,
                                  ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias %dd,
                                  ptr addrspace(1) noalias readonly %u, ptr addrspace(1) noalias %ii) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %pa = getelementptr inbounds <2 x float>, ptr addrspace(1) %a, i64 %ge
  %pb = getelementptr inbounds <2 x float>, ptr addrspace(1) %b, i64 %ge
  %pc = getelementptr inbounds <2 x float>, ptr addrspace(1) %c, i64 %ge
  %va = load <2 x float>, ptr addrspace(1) %pa, align 8
  %vb = load <2 x float>, ptr addrspace(1) %pb, align 8
  %vc = load <2 x float>, ptr addrspace(1) %pc, align 8
  %s = fadd <2 x float> %va, %vb
  %m = fmul <2 x float> %va, %vb
  %f = call <2 x float> @llvm.fma.v2f32(<2 x float> %va, <2 x float> %vb, <2 x float> %vc)
  %ps = getelementptr inbounds <2 x float>, ptr addrspace(1) %add, i64 %ge
  store <2 x float> %s, ptr addrspace(1) %ps, align 8
  %pm = getelementptr inbounds <2 x float>, ptr addrspace(1) %mul, i64 %ge
  store <2 x float> %m, ptr addrspace(1) %pm, align 8
  %pf = getelementptr inbounds <2 x float>, ptr addrspace(1) %fma, i64 %ge
  store <2 x float> %f, ptr addrspace(1) %pf, align 8

  %px = getelementptr inbounds double, ptr addrspace(1) %x, i64 %ge
  %vx = load double, ptr addrspace(1) %px, align 8
  %r = call double @llvm.fma.f64(double %vx, double 1.0000001, double 3.3)
  %pd = getelementptr inbounds double, ptr addrspace(1) %dd, i64 %ge
  store double %r, ptr addrspace(1) %pd, align 8

  %pu = getelementptr inbounds i64, ptr addrspace(1) %u, i64 %ge
  %vu = load i64, ptr addrspace(1) %pu, align 8
  %t = add i64 %vu, 1311768467463790321
  %w = xor i64 %t, 1089641583808049528
  %pi = getelementptr inbounds i64, ptr addrspace(1) %ii, i64 %ge
  store i64 %w, ptr addrspace(1) %pi, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare <2 x float> @llvm.fma.v2f32(<2 x float>, <2 x float>, <2 x float>)
declare double @llvm.fma.f64(double, double, double)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
