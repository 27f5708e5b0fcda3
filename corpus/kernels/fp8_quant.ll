; fp8_quant: quantise to fp8/bf8 and dequantise, with saturation, through the gfx12/gfx1250
; conversions (OCP formats: fp8 = E4M3, bias 7, largest finite 448, S.1111.111 NaN, no infinities;
; bf8 = E5M2, bias 15, largest finite 57344). Work-groups of exactly 32 work-items. gfx1250 only
; (gfx942's fp8 instructions convert to the FNUZ formats, a different encoding).
; Per work-item g: x = big[g] (may be out of fp8 range), y = small[g] (mostly fp8 subnormals).
; Saturation is explicit: x is clamped to [-448, 448] (fp8) / [-57344, 57344] (bf8) with
; minnum/maxnum before converting, so no conversion ever overflows; every conversion rounds to
; nearest even, subnormals kept, the sign of a zero kept.
;   qf8[g]   = v_cvt_pk_fp8_f32(clamp8(x), y) (byte 0 from x, byte 1 from y); deqf8[2g+i] = v_cvt_f32_fp8
;   qbf8[g]  = v_cvt_pk_bf8_f32(clamp5(x), y);                                 deqbf8[2g+i] = v_cvt_f32_bf8
;   hx = half(clamp8(x)), hy = half(y) (fptrunc, round to nearest even):
;   qh8[g]   = v_cvt_pk_fp8_f16(hx, hy);  deqh8[2g+i]  = v_cvt_pk_f16_fp8
;   qhb8[g]  = v_cvt_pk_bf8_f16(hx, hy);  deqhb8[2g+i] = v_cvt_pk_f16_bf8
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @fp8_quant(ptr addrspace(1) noalias readonly %big, ptr addrspace(1) noalias readonly %small,
                                     ptr addrspace(1) noalias %qf8, ptr addrspace(1) noalias %deqf8,
                                     ptr addrspace(1) noalias %qbf8, ptr addrspace(1) noalias %deqbf8,
                                     ptr addrspace(1) noalias %qh8, ptr addrspace(1) noalias %deqh8,
                                     ptr addrspace(1) noalias %qhb8, ptr addrspace(1) noalias %deqhb8) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %big, i64 %ge
  %x = load float, ptr addrspace(1) %px, align 4
  %py = getelementptr inbounds float, ptr addrspace(1) %small, i64 %ge
  %y = load float, ptr addrspace(1) %py, align 4

  %x8a = call float @llvm.maxnum.f32(float %x, float -448.0)
  %x8 = call float @llvm.minnum.f32(float %x8a, float 448.0)
  %x5a = call float @llvm.maxnum.f32(float %x, float -57344.0)
  %x5 = call float @llvm.minnum.f32(float %x5a, float 57344.0)

  ; f32 -> fp8 -> f32
  %qf = call i32 @llvm.amdgcn.cvt.pk.fp8.f32(float %x8, float %y, i32 0, i1 false)
  %qf16 = trunc i32 %qf to i16
  %pqf = getelementptr inbounds i16, ptr addrspace(1) %qf8, i64 %ge
  store i16 %qf16, ptr addrspace(1) %pqf, align 2
  %df0 = call float @llvm.amdgcn.cvt.f32.fp8(i32 %qf, i32 0)
  %df1 = call float @llvm.amdgcn.cvt.f32.fp8(i32 %qf, i32 1)
  %dfv0 = insertelement <2 x float> poison, float %df0, i32 0
  %dfv = insertelement <2 x float> %dfv0, float %df1, i32 1
  %pdf = getelementptr inbounds <2 x float>, ptr addrspace(1) %deqf8, i64 %ge
  store <2 x float> %dfv, ptr addrspace(1) %pdf, align 8

  ; f32 -> bf8 -> f32
  %qb = call i32 @llvm.amdgcn.cvt.pk.bf8.f32(float %x5, float %y, i32 0, i1 false)
  %qb16 = trunc i32 %qb to i16
  %pqb = getelementptr inbounds i16, ptr addrspace(1) %qbf8, i64 %ge
  store i16 %qb16, ptr addrspace(1) %pqb, align 2
  %db0 = call float @llvm.amdgcn.cvt.f32.bf8(i32 %qb, i32 0)
  %db1 = call float @llvm.amdgcn.cvt.f32.bf8(i32 %qb, i32 1)
  %dbv0 = insertelement <2 x float> poison, float %db0, i32 0
  %dbv = insertelement <2 x float> %dbv0, float %db1, i32 1
  %pdb = getelementptr inbounds <2 x float>, ptr addrspace(1) %deqbf8, i64 %ge
  store <2 x float> %dbv, ptr addrspace(1) %pdb, align 8

  ; f16 -> fp8 / bf8 -> f16
  %hx = fptrunc float %x8 to half
  %hy = fptrunc float %y to half
  %hv0 = insertelement <2 x half> poison, half %hx, i32 0
  %hv = insertelement <2 x half> %hv0, half %hy, i32 1
  %qh = call i16 @llvm.amdgcn.cvt.pk.fp8.f16(<2 x half> %hv)
  %pqh = getelementptr inbounds i16, ptr addrspace(1) %qh8, i64 %ge
  store i16 %qh, ptr addrspace(1) %pqh, align 2
  %dh = call <2 x half> @llvm.amdgcn.cvt.pk.f16.fp8(i16 %qh)
  %pdh = getelementptr inbounds <2 x half>, ptr addrspace(1) %deqh8, i64 %ge
  store <2 x half> %dh, ptr addrspace(1) %pdh, align 4
  %qhb = call i16 @llvm.amdgcn.cvt.pk.bf8.f16(<2 x half> %hv)
  %pqhb = getelementptr inbounds i16, ptr addrspace(1) %qhb8, i64 %ge
  store i16 %qhb, ptr addrspace(1) %pqhb, align 2
  %dhb = call <2 x half> @llvm.amdgcn.cvt.pk.f16.bf8(i16 %qhb)
  %pdhb = getelementptr inbounds <2 x half>, ptr addrspace(1) %deqhb8, i64 %ge
  store <2 x half> %dhb, ptr addrspace(1) %pdhb, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)
declare i32 @llvm.amdgcn.cvt.pk.fp8.f32(float, float, i32, i1 immarg)
declare i32 @llvm.amdgcn.cvt.pk.bf8.f32(float, float, i32, i1 immarg)
declare float @llvm.amdgcn.cvt.f32.fp8(i32, i32 immarg)
declare float @llvm.amdgcn.cvt.f32.bf8(i32, i32 immarg)
declare i16 @llvm.amdgcn.cvt.pk.fp8.f16(<2 x half>)
declare i16 @llvm.amdgcn.cvt.pk.bf8.f16(<2 x half>)
declare <2 x half> @llvm.amdgcn.cvt.pk.f16.fp8(i16)
declare <2 x half> @llvm.amdgcn.cvt.pk.f16.bf8(i16)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
