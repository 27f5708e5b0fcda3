; cluster_barrier: work-group cluster IDs and the cluster barrier (gfx1250 only). Launched
; without clusters, every work-group is a cluster of one: cluster ID = work-group ID, the
; work-group's ID in its cluster 0, the cluster's largest work-group ID 0, flat ID 0; the cluster
; barrier then orders the LDS exchange between the work-group's four waves.
;   lds[t] = in[g];  cluster barrier;
;   out[g] = lds[(t + 37) & 127] + 1000 * cid + 7 * cwid + 11 * cmax + 13 * cflat
target triple = "amdgcn-amd-amdhsa"

@lds = internal addrspace(3) global [128 x i32] poison, align 4

define amdgpu_kernel void @cluster_barrier(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 7
  %g = add i32 %base, %t
  %ge = zext i32 %g to i64
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %v = load i32, ptr addrspace(1) %pi, align 4
  %pl = getelementptr inbounds [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %t
  store i32 %v, ptr addrspace(3) %pl, align 4
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.cluster.barrier()
  fence syncscope("workgroup") acquire
  %t2 = add i32 %t, 37
  %t3 = and i32 %t2, 127
  %pr = getelementptr inbounds [128 x i32], ptr addrspace(3) @lds, i32 0, i32 %t3
  %w = load i32, ptr addrspace(3) %pr, align 4
  %cid = call i32 @llvm.amdgcn.cluster.id.x()
  %cwid = call i32 @llvm.amdgcn.cluster.workgroup.id.x()
  %cmax = call i32 @llvm.amdgcn.cluster.workgroup.max.id.x()
  %cflat = call i32 @llvm.amdgcn.cluster.workgroup.flat.id()
  %a = mul i32 %cid, 1000
  %b = mul i32 %cwid, 7
  %c = mul i32 %cmax, 11
  %d = mul i32 %cflat, 13
  %s1 = add i32 %w, %a
  %s2 = add i32 %s1, %b
  %s3 = add i32 %s2, %c
  %s4 = add i32 %s3, %d
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ge
  store i32 %s4, ptr addrspace(1) %po, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.cluster.id.x()
declare i32 @llvm.amdgcn.cluster.workgroup.id.x()
declare i32 @llvm.amdgcn.cluster.workgroup.max.id.x()
declare i32 @llvm.amdgcn.cluster.workgroup.flat.id()
declare void @llvm.amdgcn.s.cluster.barrier()
attributes #0 = { "amdgpu-flat-work-group-size"="128,128" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
