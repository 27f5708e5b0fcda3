; divergent_if: data-dependent (divergent) if/else, nested, with a divergent loop in one arm.
;   x = in[i]
;   if (x & 1) { t = tab[x & 63]; y = x > 1000 ? x*3 - t : x + 17 + t }
;   else { acc = x >>s 1; for (j = 0; j < (i & 7); j++) acc = acc*5 + j; y = (i & 3) == 0 ? acc ^ 0x55 : acc }
;   out[i] = y
;   outf[i] = x < 0 ? (float)x * 0.5 : (float)x + 0.25
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @divergent_if(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias readonly %tab,
                                        ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %outf) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ie
  %x = load i32, ptr addrspace(1) %xp, align 4
  %lo = and i32 %x, 1
  %odd = icmp ne i32 %lo, 0
  br i1 %odd, label %oddbb, label %evenbb

oddbb:
  %ti = and i32 %x, 63
  %tie = zext i32 %ti to i64
  %tp = getelementptr inbounds i32, ptr addrspace(1) %tab, i64 %tie
  %t = load i32, ptr addrspace(1) %tp, align 4
  %big = icmp sgt i32 %x, 1000
  br i1 %big, label %oddbig, label %oddsmall

oddbig:
  %x3 = mul i32 %x, 3
  %y1 = sub i32 %x3, %t
  br label %join

oddsmall:
  %x17 = add i32 %x, 17
  %y2 = add i32 %x17, %t
  br label %join

evenbb:
  %h = ashr i32 %x, 1
  %n = and i32 %i, 7
  %none = icmp eq i32 %n, 0
  br i1 %none, label %evenend, label %loop

loop:
  %j = phi i32 [ 0, %evenbb ], [ %j1, %loop ]
  %acc = phi i32 [ %h, %evenbb ], [ %acc1, %loop ]
  %acc5 = mul i32 %acc, 5
  %acc1 = add i32 %acc5, %j
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, %n
  br i1 %more, label %loop, label %evenend

evenend:
  %accf = phi i32 [ %h, %evenbb ], [ %acc1, %loop ]
  %q = and i32 %i, 3
  %q0 = icmp eq i32 %q, 0
  %accx = xor i32 %accf, 85
  %y3 = select i1 %q0, i32 %accx, i32 %accf
  br label %join

join:
  %y = phi i32 [ %y1, %oddbig ], [ %y2, %oddsmall ], [ %y3, %evenend ]
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %ie
  store i32 %y, ptr addrspace(1) %op, align 4
  %xf = sitofp i32 %x to float
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %fneg, label %fpos

fneg:
  %f1 = fmul float %xf, 0.5
  br label %fjoin

fpos:
  %f2 = fadd float %xf, 0.25
  br label %fjoin

fjoin:
  %f = phi float [ %f1, %fneg ], [ %f2, %fpos ]
  %fp = getelementptr inbounds float, ptr addrspace(1) %outf, i64 %ie
  store float %f, ptr addrspace(1) %fp, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
