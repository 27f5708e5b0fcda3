; Hand-written LLVM IR, compiled by plain llc for every target (no attributor: the kernel descriptor
; enables the dispatch-pointer, queue-pointer and dispatch-id user SGPRs), code object v6.
; A 2-D kernel: out[y][x] = in[y][x] * (the dispatch packet's work-group height) + the work-group's
; y index + gridDim.x (hidden_block_count_x, the first implicit argument).

define amdgpu_kernel void @llc_rows(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out, i32 %cols) {
entry:
  %packet = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %wgx.p = getelementptr inbounds i8, ptr addrspace(4) %packet, i64 4
  %wgx16 = load i16, ptr addrspace(4) %wgx.p, align 4
  %wgy.p = getelementptr inbounds i8, ptr addrspace(4) %packet, i64 6
  %wgy16 = load i16, ptr addrspace(4) %wgy.p, align 2
  %wgx = zext i16 %wgx16 to i32
  %wgy = zext i16 %wgy16 to i32
  %implicit = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %blocks.x = load i32, ptr addrspace(4) %implicit, align 4
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %bx = call i32 @llvm.amdgcn.workgroup.id.x()
  %by = call i32 @llvm.amdgcn.workgroup.id.y()
  %x0 = mul i32 %bx, %wgx
  %x = add i32 %x0, %tx
  %y0 = mul i32 %by, %wgy
  %y = add i32 %y0, %ty
  %inrow = icmp ult i32 %x, %cols
  br i1 %inrow, label %body, label %done

body:
  %row = zext i32 %y to i64
  %col = zext i32 %x to i64
  %stride = zext i32 %cols to i64
  %rowoff = mul i64 %row, %stride
  %idx = add i64 %rowoff, %col
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %idx
  %v = load i32, ptr addrspace(1) %src, align 4
  %scaled = mul i32 %v, %wgy
  %plus = add i32 %scaled, %by
  %r = add i32 %plus, %blocks.x
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %idx
  store i32 %r, ptr addrspace(1) %dst, align 4
  br label %done

done:
  ret void
}

declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
