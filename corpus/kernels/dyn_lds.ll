; dyn_lds: dynamic LDS (size given at launch) next to a static LDS array. n = work-group size
; (hidden_group_size_x); the launch gives 2*n*4 bytes of dynamic LDS.
;   dyn[t] = in[gid]; dyn[n + t] = in[gid] * 2; if (t < 64) st[t] = t * 5; barrier
;   out[gid] = dyn[n - 1 - t] + dyn[n + (t + 1) % n] + st[t & 63]
target triple = "amdgcn-amd-amdhsa"

@st = internal addrspace(3) global [64 x i32] poison, align 4
@dyn = external addrspace(3) global [0 x i32], align 4

define amdgpu_kernel void @dyn_lds(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp, align 4
  %n = zext i16 %gs16 to i32
  %base = mul i32 %wg, %n
  %gid = add i32 %base, %t
  %ge = zext i32 %gid to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %v = load i32, ptr addrspace(1) %ip, align 4
  %d0 = getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %t
  store i32 %v, ptr addrspace(3) %d0, align 4
  %nt = add i32 %n, %t
  %d1 = getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %nt
  %v2 = shl i32 %v, 1
  store i32 %v2, ptr addrspace(3) %d1, align 4
  %low = icmp ult i32 %t, 64
  br i1 %low, label %wst, label %sync

wst:
  %sv = mul i32 %t, 5
  %stp = getelementptr inbounds [64 x i32], ptr addrspace(3) @st, i32 0, i32 %t
  store i32 %sv, ptr addrspace(3) %stp, align 4
  br label %sync

sync:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %nm1 = sub i32 %n, 1
  %ra = sub i32 %nm1, %t
  %pa = getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %ra
  %a = load i32, ptr addrspace(3) %pa, align 4
  %t1 = add i32 %t, 1
  %rot = urem i32 %t1, %n
  %rb = add i32 %n, %rot
  %pb = getelementptr inbounds [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %rb
  %b = load i32, ptr addrspace(3) %pb, align 4
  %rc = and i32 %t, 63
  %pc = getelementptr inbounds [64 x i32], ptr addrspace(3) @st, i32 0, i32 %rc
  %c = load i32, ptr addrspace(3) %pc, align 4
  %ab = add i32 %a, %b
  %r = add i32 %ab, %c
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ge
  store i32 %r, ptr addrspace(1) %op, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-flat-work-group-size"="64,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
