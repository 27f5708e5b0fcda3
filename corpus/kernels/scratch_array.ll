; scratch_array: a per-work-item array in private memory (addrspace(5)) read and written at
; indices loaded from memory, so it must live in scratch (512 bytes per work-item: too large to
; become registers, and with up to 1024 work-items per group too large to move to LDS).
; i = wg * group_size_x + tid.x
;   int arr[128]; s = seeds[i]
;   for (k = 0; k < 128; k++) arr[k] = s*k + (k ^ i)
;   acc = 0
;   for (r = 0; r < 8; r++) { j = idx[8*i + r] & 127; acc += arr[j]; arr[(j + 1) & 127] = acc ^ r }
;   out[i] = acc + arr[i & 127]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @scratch_array(ptr addrspace(1) noalias readonly %seeds, ptr addrspace(1) noalias readonly %idx,
                                         ptr addrspace(1) noalias %out) #0 {
entry:
  %arr = alloca [128 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp, align 4
  %gs = zext i16 %gs16 to i32
  %base = mul i32 %wg, %gs
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %sp = getelementptr inbounds i32, ptr addrspace(1) %seeds, i64 %ie
  %s = load i32, ptr addrspace(1) %sp, align 4
  br label %fill

fill:
  %k = phi i32 [ 0, %entry ], [ %k1, %fill ]
  %sk = mul i32 %s, %k
  %kx = xor i32 %k, %i
  %v = add i32 %sk, %kx
  %ap = getelementptr inbounds [128 x i32], ptr addrspace(5) %arr, i32 0, i32 %k
  store i32 %v, ptr addrspace(5) %ap, align 4
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, 128
  br i1 %more, label %fill, label %walk

walk:
  %r = phi i32 [ 0, %fill ], [ %r1, %walk ]
  %acc = phi i32 [ 0, %fill ], [ %acc1, %walk ]
  %i8 = shl i32 %i, 3
  %ii = add i32 %i8, %r
  %iie = zext i32 %ii to i64
  %ixp = getelementptr inbounds i32, ptr addrspace(1) %idx, i64 %iie
  %jr = load i32, ptr addrspace(1) %ixp, align 4
  %j = and i32 %jr, 127
  %jp = getelementptr inbounds [128 x i32], ptr addrspace(5) %arr, i32 0, i32 %j
  %aj = load i32, ptr addrspace(5) %jp, align 4
  %acc1 = add i32 %acc, %aj
  %j1 = add i32 %j, 1
  %j1m = and i32 %j1, 127
  %wp = getelementptr inbounds [128 x i32], ptr addrspace(5) %arr, i32 0, i32 %j1m
  %wv = xor i32 %acc1, %r
  store i32 %wv, ptr addrspace(5) %wp, align 4
  %r1 = add i32 %r, 1
  %morer = icmp ult i32 %r1, 8
  br i1 %morer, label %walk, label %done

done:
  %im = and i32 %i, 127
  %lp = getelementptr inbounds [128 x i32], ptr addrspace(5) %arr, i32 0, i32 %im
  %last = load i32, ptr addrspace(5) %lp, align 4
  %res = add i32 %acc1, %last
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ie
  store i32 %res, ptr addrspace(1) %op, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

attributes #0 = { "amdgpu-flat-work-group-size"="1,1024" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
