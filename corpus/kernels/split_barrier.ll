; split_barrier: a work-group barrier split into s_barrier_signal and s_barrier_wait with independent
; work in between. Work-groups of exactly 128 work-items (four waves32). gfx1250 only.
; l = local id, g = 128*w + l, v = in[g] (i32, wrapping arithmetic):
;   lds[l] = 3v + 1; signal;  sq[g] = (v*v) ^ l  (needs no other work-item);  wait;
;   nb[g] = lds[(l + 37) & 127] + lds[127 - l]
target triple = "amdgcn-amd-amdhsa"

@lds = internal addrspace(3) global [128 x i32] poison, align 4

define amdgpu_kernel void @split_barrier(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %sq,
                                         ptr addrspace(1) noalias %nb) #0 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 7
  %g = add i32 %base, %l
  %ge = zext i32 %g to i64
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %v = load i32, ptr addrspace(1) %pin, align 4
  %v3 = mul i32 %v, 3
  %w = add i32 %v3, 1
  %pl = getelementptr inbounds [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %l
  store i32 %w, ptr addrspace(3) %pl, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier.signal(i32 -1)
  %vv = mul i32 %v, %v
  %x = xor i32 %vv, %l
  %psq = getelementptr inbounds i32, ptr addrspace(1) %sq, i64 %ge
  store i32 %x, ptr addrspace(1) %psq, align 4
  call void @llvm.amdgcn.s.barrier.wait(i16 -1)
  fence syncscope("workgroup") acquire
  %i1a = add i32 %l, 37
  %i1 = and i32 %i1a, 127
  %i2 = sub i32 127, %l
  %p1 = getelementptr inbounds [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %i1
  %p2 = getelementptr inbounds [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %i2
  %a = load i32, ptr addrspace(3) %p1, align 4
  %b = load i32, ptr addrspace(3) %p2, align 4
  %s = add i32 %a, %b
  %pnb = getelementptr inbounds i32, ptr addrspace(1) %nb, i64 %ge
  store i32 %s, ptr addrspace(1) %pnb, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier.signal(i32 immarg)
declare void @llvm.amdgcn.s.barrier.wait(i16 immarg)

attributes #0 = { "amdgpu-flat-work-group-size"="128,128" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
