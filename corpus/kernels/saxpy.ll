; saxpy: y[i] = fma(a, x[i], y[i]) for i < n.
; Covers: f32 fma, by-value f32/i32 kernargs, the block size read from the hidden arguments
; (hidden_group_size_x at implicitarg+12), a divergent bounds check on the last work-group.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @saxpy(i32 %n, float %a, ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias %y) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp, align 4
  %gs = zext i16 %gs16 to i32
  %base = mul i32 %wg, %gs
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %n
  br i1 %in, label %body, label %exit

body:
  %ie = zext i32 %i to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %ie
  %yp = getelementptr inbounds float, ptr addrspace(1) %y, i64 %ie
  %xv = load float, ptr addrspace(1) %xp, align 4
  %yv = load float, ptr addrspace(1) %yp, align 4
  %r = call float @llvm.fma.f32(float %a, float %xv, float %yv)
  store float %r, ptr addrspace(1) %yp, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare float @llvm.fma.f32(float, float, float)

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
