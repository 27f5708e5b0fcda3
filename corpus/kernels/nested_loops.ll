; nested_loops: two nested loops with a break out of each, trip counts depending on the data.
;   acc = 0; steps = 0
;   for (i = 0; i < 8; i++) {
;     for (j = 0; j < 16; j++) {
;       v = data[(i*16 + j + t) & 255];
;       if (v % 7 == 0) break;          // leaves the inner loop
;       acc += v * (i + 1); steps++;
;     }
;     if (acc > limit[t]) break;        // leaves the outer loop (signed compare)
;   }
;   acc_out[t] = acc; steps_out[t] = steps
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @nested_loops(ptr addrspace(1) noalias readonly %data, ptr addrspace(1) noalias readonly %limit,
                                        ptr addrspace(1) noalias %acc_out, ptr addrspace(1) noalias %steps_out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %t = add i32 %base, %tid
  %te = zext i32 %t to i64
  %lp = getelementptr inbounds i32, ptr addrspace(1) %limit, i64 %te
  %lim = load i32, ptr addrspace(1) %lp, align 4
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %outer_latch ]
  %acc_o = phi i32 [ 0, %entry ], [ %acc_x, %outer_latch ]
  %st_o = phi i32 [ 0, %entry ], [ %st_x, %outer_latch ]
  %i16 = shl i32 %i, 4
  %ip1 = add i32 %i, 1
  br label %inner

inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner_latch ]
  %acc = phi i32 [ %acc_o, %outer ], [ %acc1, %inner_latch ]
  %st = phi i32 [ %st_o, %outer ], [ %st1, %inner_latch ]
  %s0 = add i32 %i16, %j
  %s1 = add i32 %s0, %t
  %idx = and i32 %s1, 255
  %idxe = zext i32 %idx to i64
  %vp = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %idxe
  %v = load i32, ptr addrspace(1) %vp, align 4
  %r = urem i32 %v, 7
  %brk = icmp eq i32 %r, 0
  br i1 %brk, label %inner_exit, label %inner_latch

inner_latch:
  %vm = mul i32 %v, %ip1
  %acc1 = add i32 %acc, %vm
  %st1 = add i32 %st, 1
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, 16
  br i1 %more, label %inner, label %inner_exit

inner_exit:
  %acc_x = phi i32 [ %acc, %inner ], [ %acc1, %inner_latch ]
  %st_x = phi i32 [ %st, %inner ], [ %st1, %inner_latch ]
  %over = icmp sgt i32 %acc_x, %lim
  br i1 %over, label %exit, label %outer_latch

outer_latch:
  %i1 = add i32 %i, 1
  %more_o = icmp ult i32 %i1, 8
  br i1 %more_o, label %outer, label %exit

exit:
  %ap = getelementptr inbounds i32, ptr addrspace(1) %acc_out, i64 %te
  store i32 %acc_x, ptr addrspace(1) %ap, align 4
  %sp = getelementptr inbounds i32, ptr addrspace(1) %steps_out, i64 %te
  store i32 %st_x, ptr addrspace(1) %sp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
