; device_call: a kernel calling two non-inlined device functions, one of which writes a private
; array through a pointer argument (so the call needs a stack in scratch).
;   collatz_steps(n): steps = 0; while (n != 1 && steps < 1000) { n = n even ? n/2 : 3n+1; steps++ }
;   fill_table(p, seed, count): for (k = 0; k < count; k++) p[k] = seed ^ (k * 0x9E3779B9)
;   v = in[i]; steps[i] = collatz_steps(v)
;   int tab[16]; fill_table(tab, v, 16); j = v & 15; mix[i] = tab[j] + tab[(j + 5) & 15]
target triple = "amdgcn-amd-amdhsa"

define internal i32 @collatz_steps(i32 %n0) #1 {
entry:
  br label %head

head:
  %n = phi i32 [ %n0, %entry ], [ %n1, %body ]
  %steps = phi i32 [ 0, %entry ], [ %steps1, %body ]
  %one = icmp eq i32 %n, 1
  %cap = icmp uge i32 %steps, 1000
  %stop = or i1 %one, %cap
  br i1 %stop, label %exit, label %body

body:
  %lo = and i32 %n, 1
  %even = icmp eq i32 %lo, 0
  %half = lshr i32 %n, 1
  %n3 = mul i32 %n, 3
  %n31 = add i32 %n3, 1
  %n1 = select i1 %even, i32 %half, i32 %n31
  %steps1 = add i32 %steps, 1
  br label %head

exit:
  ret i32 %steps
}

define internal void @fill_table(ptr addrspace(5) %p, i32 %seed, i32 %count) #1 {
entry:
  %none = icmp eq i32 %count, 0
  br i1 %none, label %exit, label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %h = mul i32 %k, -1640531527
  %v = xor i32 %seed, %h
  %q = getelementptr inbounds i32, ptr addrspace(5) %p, i32 %k
  store i32 %v, ptr addrspace(5) %q, align 4
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, %count
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

define amdgpu_kernel void @device_call(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %steps,
                                       ptr addrspace(1) noalias %mix) #0 {
entry:
  %tab = alloca [16 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ie
  %v = load i32, ptr addrspace(1) %ip, align 4
  %s = call i32 @collatz_steps(i32 %v)
  %sp = getelementptr inbounds i32, ptr addrspace(1) %steps, i64 %ie
  store i32 %s, ptr addrspace(1) %sp, align 4
  call void @fill_table(ptr addrspace(5) %tab, i32 %v, i32 16)
  %j = and i32 %v, 15
  %jp = getelementptr inbounds [16 x i32], ptr addrspace(5) %tab, i32 0, i32 %j
  %a = load i32, ptr addrspace(5) %jp, align 4
  %j5 = add i32 %j, 5
  %j5m = and i32 %j5, 15
  %j5p = getelementptr inbounds [16 x i32], ptr addrspace(5) %tab, i32 0, i32 %j5m
  %b = load i32, ptr addrspace(5) %j5p, align 4
  %m = add i32 %a, %b
  %mp = getelementptr inbounds i32, ptr addrspace(1) %mix, i64 %ie
  store i32 %m, ptr addrspace(1) %mp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
attributes #1 = { noinline }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
