; bf16_math: bfloat16 arithmetic and conversions, one work-item per element.
;   m[i]  = (a[i] + b[i]) * b[i]           bf16 add then bf16 mul (each rounded to bf16)
;   fx[i] = fpext(m[i]) + x[i]             bf16 -> f32, f32 add
;   tr[i] = fptrunc(x[i] * 1.5) to bfloat  f32 -> bf16 (round to nearest even)
;   ci[i] = sitofp(n[i]) to bfloat         i32 -> bf16 (|n| < 2^24)
;   ti[i] = fptosi(m[i]) to i32
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @bf16_math(ptr addrspace(1) noalias readonly %a, ptr addrspace(1) noalias readonly %b,
                                     ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias readonly %n,
                                     ptr addrspace(1) noalias %m, ptr addrspace(1) noalias %fx,
                                     ptr addrspace(1) noalias %tr, ptr addrspace(1) noalias %ci,
                                     ptr addrspace(1) noalias %ti) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ap = getelementptr inbounds bfloat, ptr addrspace(1) %a, i64 %ie
  %bp = getelementptr inbounds bfloat, ptr addrspace(1) %b, i64 %ie
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %ie
  %np = getelementptr inbounds i32, ptr addrspace(1) %n, i64 %ie
  %av = load bfloat, ptr addrspace(1) %ap, align 2
  %bv = load bfloat, ptr addrspace(1) %bp, align 2
  %xv = load float, ptr addrspace(1) %xp, align 4
  %nv = load i32, ptr addrspace(1) %np, align 4

  %s = fadd bfloat %av, %bv
  %mv = fmul bfloat %s, %bv
  %mp = getelementptr inbounds bfloat, ptr addrspace(1) %m, i64 %ie
  store bfloat %mv, ptr addrspace(1) %mp, align 2

  %me = fpext bfloat %mv to float
  %fv = fadd float %me, %xv
  %fp = getelementptr inbounds float, ptr addrspace(1) %fx, i64 %ie
  store float %fv, ptr addrspace(1) %fp, align 4

  %x15 = fmul float %xv, 1.5
  %tv = fptrunc float %x15 to bfloat
  %tp = getelementptr inbounds bfloat, ptr addrspace(1) %tr, i64 %ie
  store bfloat %tv, ptr addrspace(1) %tp, align 2

  %cv = sitofp i32 %nv to bfloat
  %cp = getelementptr inbounds bfloat, ptr addrspace(1) %ci, i64 %ie
  store bfloat %cv, ptr addrspace(1) %cp, align 2

  %iv = fptosi bfloat %mv to i32
  %ip = getelementptr inbounds i32, ptr addrspace(1) %ti, i64 %ie
  store i32 %iv, ptr addrspace(1) %ip, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
