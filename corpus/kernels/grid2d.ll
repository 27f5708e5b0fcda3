; grid2d: a 2-D grid; global ids from workgroup.id.x/y, workitem.id.x/y and the hidden group sizes.
;   gx = wg.x * group_size_x + tid.x;  gy = wg.y * group_size_y + tid.y;  p = gy*width + gx
;   out[p]  = in[p]*3 + gx - 2*gy
;   flip[p] = in[(height-1-gy)*width + gx]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @grid2d(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out,
                                  ptr addrspace(1) noalias %flip, i32 %width, i32 %height) #0 {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsxp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gsyp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 14
  %gsx16 = load i16, ptr addrspace(4) %gsxp, align 4
  %gsy16 = load i16, ptr addrspace(4) %gsyp, align 2
  %gsx = zext i16 %gsx16 to i32
  %gsy = zext i16 %gsy16 to i32
  %bx = mul i32 %wx, %gsx
  %gx = add i32 %bx, %tx
  %by = mul i32 %wy, %gsy
  %gy = add i32 %by, %ty
  %row = mul i32 %gy, %width
  %p = add i32 %row, %gx
  %pe = zext i32 %p to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %pe
  %v = load i32, ptr addrspace(1) %ip, align 4
  %v3 = mul i32 %v, 3
  %a = add i32 %v3, %gx
  %gy2 = shl i32 %gy, 1
  %r = sub i32 %a, %gy2
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %pe
  store i32 %r, ptr addrspace(1) %op, align 4
  %hm1 = sub i32 %height, 1
  %fy = sub i32 %hm1, %gy
  %frow = mul i32 %fy, %width
  %fq = add i32 %frow, %gx
  %fqe = zext i32 %fq to i64
  %fip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %fqe
  %fv = load i32, ptr addrspace(1) %fip, align 4
  %fp = getelementptr inbounds i32, ptr addrspace(1) %flip, i64 %pe
  store i32 %fv, ptr addrspace(1) %fp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
