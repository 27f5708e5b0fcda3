; hidden_args: reads every code object v5 hidden dispatch argument, on a grid whose last
; work-groups are partial in x and y (200 x 6 work-items in 64 x 4 work-groups).
; implicitarg+0/4/8: hidden_block_count_{x,y,z} (u32, full work-groups only)
; implicitarg+12/14/16: hidden_group_size_{x,y,z} (u16)
; implicitarg+18/20/22: hidden_remainder_{x,y,z} (u16, size of the partial work-group, else 0)
;   ls = wg < block_count ? group_size : remainder         (per dimension, the local size)
;   gx = wg.x*gs.x + tid.x;  gy = wg.y*gs.y + tid.y;  width = bc.x*gs.x + rem.x
;   out[gy*width + gx] = gx | gy << 8 | ls.x << 16 | ls.y << 24
;   work-item (0, 0) also writes info[0..9] = bc.xyz, gs.xyz, rem.xyz
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @hidden_args(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %info) #0 {
entry:
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %bcx = load i32, ptr addrspace(4) %imp, align 4
  %p4 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 4
  %bcy = load i32, ptr addrspace(4) %p4, align 4
  %p8 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 8
  %bcz = load i32, ptr addrspace(4) %p8, align 4
  %p12 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gsx16 = load i16, ptr addrspace(4) %p12, align 4
  %p14 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 14
  %gsy16 = load i16, ptr addrspace(4) %p14, align 2
  %p16 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 16
  %gsz16 = load i16, ptr addrspace(4) %p16, align 4
  %p18 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 18
  %rmx16 = load i16, ptr addrspace(4) %p18, align 2
  %p20 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 20
  %rmy16 = load i16, ptr addrspace(4) %p20, align 4
  %p22 = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 22
  %rmz16 = load i16, ptr addrspace(4) %p22, align 2
  %gsx = zext i16 %gsx16 to i32
  %gsy = zext i16 %gsy16 to i32
  %gsz = zext i16 %gsz16 to i32
  %rmx = zext i16 %rmx16 to i32
  %rmy = zext i16 %rmy16 to i32
  %rmz = zext i16 %rmz16 to i32
  %fullx = icmp ult i32 %wx, %bcx
  %lsx = select i1 %fullx, i32 %gsx, i32 %rmx
  %fully = icmp ult i32 %wy, %bcy
  %lsy = select i1 %fully, i32 %gsy, i32 %rmy
  %bx = mul i32 %wx, %gsx
  %gx = add i32 %bx, %tx
  %by = mul i32 %wy, %gsy
  %gy = add i32 %by, %ty
  %w0 = mul i32 %bcx, %gsx
  %width = add i32 %w0, %rmx
  %row = mul i32 %gy, %width
  %p = add i32 %row, %gx
  %pe = zext i32 %p to i64
  %v1 = shl i32 %gy, 8
  %v2 = shl i32 %lsx, 16
  %v3 = shl i32 %lsy, 24
  %o1 = or i32 %gx, %v1
  %o2 = or i32 %o1, %v2
  %v = or i32 %o2, %v3
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %pe
  store i32 %v, ptr addrspace(1) %op, align 4
  %first = icmp eq i32 %p, 0
  br i1 %first, label %write_info, label %exit

write_info:
  store i32 %bcx, ptr addrspace(1) %info, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 1
  store i32 %bcy, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 2
  store i32 %bcz, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 3
  store i32 %gsx, ptr addrspace(1) %q3, align 4
  %q4 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 4
  store i32 %gsy, ptr addrspace(1) %q4, align 4
  %q5 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 5
  store i32 %gsz, ptr addrspace(1) %q5, align 4
  %q6 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 6
  store i32 %rmx, ptr addrspace(1) %q6, align 4
  %q7 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 7
  store i32 %rmy, ptr addrspace(1) %q7, align 4
  %q8 = getelementptr inbounds i32, ptr addrspace(1) %info, i64 8
  store i32 %rmz, ptr addrspace(1) %q8, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

; No "uniform-work-group-size": the last work-groups are partial.
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
