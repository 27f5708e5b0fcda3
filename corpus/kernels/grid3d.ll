; grid3d: a 3-D grid. Grid extents come from the hidden arguments (block_count * group_size, the
; launch has no partial work-groups).
;   g = (wg.x*gs.x + tid.x, wg.y*gs.y + tid.y, wg.z*gs.z + tid.z);  lin = (gz*GY + gy)*GX + gx
;   ids[lin]  = wg.z<<24 | wg.y<<16 | wg.x<<8 | tid.z<<6 | tid.y<<3 | tid.x
;   vals[lin] = in[lin] + gx*gy*gz
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @grid3d(ptr addrspace(1) noalias %ids, ptr addrspace(1) noalias %vals,
                                  ptr addrspace(1) noalias readonly %in) #0 {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %tz = call i32 @llvm.amdgcn.workitem.id.z()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %wz = call i32 @llvm.amdgcn.workgroup.id.z()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %bcx = load i32, ptr addrspace(4) %imp, align 4
  %bcyp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 4
  %bcy = load i32, ptr addrspace(4) %bcyp, align 4
  %gsxp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gsyp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 14
  %gszp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 16
  %gsx16 = load i16, ptr addrspace(4) %gsxp, align 4
  %gsy16 = load i16, ptr addrspace(4) %gsyp, align 2
  %gsz16 = load i16, ptr addrspace(4) %gszp, align 4
  %gsx = zext i16 %gsx16 to i32
  %gsy = zext i16 %gsy16 to i32
  %gsz = zext i16 %gsz16 to i32
  %GX = mul i32 %bcx, %gsx
  %GY = mul i32 %bcy, %gsy
  %bx = mul i32 %wx, %gsx
  %gx = add i32 %bx, %tx
  %by = mul i32 %wy, %gsy
  %gy = add i32 %by, %ty
  %bz = mul i32 %wz, %gsz
  %gz = add i32 %bz, %tz
  %l0 = mul i32 %gz, %GY
  %l1 = add i32 %l0, %gy
  %l2 = mul i32 %l1, %GX
  %lin = add i32 %l2, %gx
  %line = zext i32 %lin to i64
  %i0 = shl i32 %wz, 24
  %i1 = shl i32 %wy, 16
  %i2 = shl i32 %wx, 8
  %i3 = shl i32 %tz, 6
  %i4 = shl i32 %ty, 3
  %o0 = or i32 %i0, %i1
  %o1 = or i32 %o0, %i2
  %o2 = or i32 %o1, %i3
  %o3 = or i32 %o2, %i4
  %id = or i32 %o3, %tx
  %idp = getelementptr inbounds i32, ptr addrspace(1) %ids, i64 %line
  store i32 %id, ptr addrspace(1) %idp, align 4
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %line
  %v = load i32, ptr addrspace(1) %ip, align 4
  %xy = mul i32 %gx, %gy
  %xyz = mul i32 %xy, %gz
  %r = add i32 %v, %xyz
  %vp = getelementptr inbounds i32, ptr addrspace(1) %vals, i64 %line
  store i32 %r, ptr addrspace(1) %vp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
