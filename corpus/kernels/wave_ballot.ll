; wave_ballot: two kernels using wave votes and lane reads. Work-groups are exactly 32 work-items,
; so a work-group is one wave32, or the lower half of a wave64 whose upper 32 lanes are inactive:
; every result is the same on both. lane = workitem.id.x (0..31).
;
; wave_ballot:
;   m = ballot.i64(x > 0);  lane 0: masks[wg] = m;  below[gid] = popcount(m & ((1 << lane) - 1))
;   f = readfirstlane(x); r5 = readlane(x, 5); r31 = readlane(x, 31); w = writelane(r31, 7, x)
;   lanes[gid] = f*3 + r5*5 + r31*7 + w
;   if (x & 1) { oddfirst[gid] = readfirstlane(x); oddmask[gid] = ballot.i64(true) }   (divergent)
; wave_compact:
;   p = x % 3 == 0; m = ballot.i64(p); rank = mbcnt_hi(m >> 32, mbcnt_lo(m, 0))
;   if (p) out[wg*32 + rank] = x;  lane 0: cnt[wg] = popcount(m)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @wave_ballot(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %masks,
                                       ptr addrspace(1) noalias %below, ptr addrspace(1) noalias %lanes,
                                       ptr addrspace(1) noalias %oddfirst, ptr addrspace(1) noalias %oddmask) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4
  %pos = icmp sgt i32 %x, 0
  %m = call i64 @llvm.amdgcn.ballot.i64(i1 %pos)
  %le = zext i32 %lane to i64
  %bit = shl i64 1, %le
  %lowmask = sub i64 %bit, 1
  %mb = and i64 %m, %lowmask
  %cnt64 = call i64 @llvm.ctpop.i64(i64 %mb)
  %cnt = trunc i64 %cnt64 to i32
  %bp = getelementptr inbounds i32, ptr addrspace(1) %below, i64 %ge
  store i32 %cnt, ptr addrspace(1) %bp, align 4
  %f = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  %r5 = call i32 @llvm.amdgcn.readlane.i32(i32 %x, i32 5)
  %r31 = call i32 @llvm.amdgcn.readlane.i32(i32 %x, i32 31)
  %w = call i32 @llvm.amdgcn.writelane.i32(i32 %r31, i32 7, i32 %x)
  %f3 = mul i32 %f, 3
  %r55 = mul i32 %r5, 5
  %r317 = mul i32 %r31, 7
  %s0 = add i32 %f3, %r55
  %s1 = add i32 %s0, %r317
  %s2 = add i32 %s1, %w
  %lp = getelementptr inbounds i32, ptr addrspace(1) %lanes, i64 %ge
  store i32 %s2, ptr addrspace(1) %lp, align 4
  %l0 = icmp eq i32 %lane, 0
  br i1 %l0, label %wmask, label %odd_test

wmask:
  %wge = zext i32 %wg to i64
  %mp = getelementptr inbounds i64, ptr addrspace(1) %masks, i64 %wge
  store i64 %m, ptr addrspace(1) %mp, align 8
  br label %odd_test

odd_test:
  %lo = and i32 %x, 1
  %odd = icmp ne i32 %lo, 0
  br i1 %odd, label %oddbb, label %exit

oddbb:
  %of = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  %om = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %ofp = getelementptr inbounds i32, ptr addrspace(1) %oddfirst, i64 %ge
  store i32 %of, ptr addrspace(1) %ofp, align 4
  %omp = getelementptr inbounds i64, ptr addrspace(1) %oddmask, i64 %ge
  store i64 %om, ptr addrspace(1) %omp, align 8
  br label %exit

exit:
  ret void
}

define amdgpu_kernel void @wave_compact(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out,
                                        ptr addrspace(1) noalias %cnt) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 5
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4
  %r = urem i32 %x, 3
  %p = icmp eq i32 %r, 0
  %m = call i64 @llvm.amdgcn.ballot.i64(i1 %p)
  %mlo = trunc i64 %m to i32
  %mhi64 = lshr i64 %m, 32
  %mhi = trunc i64 %mhi64 to i32
  %rlo = call i32 @llvm.amdgcn.mbcnt.lo(i32 %mlo, i32 0)
  %rank = call i32 @llvm.amdgcn.mbcnt.hi(i32 %mhi, i32 %rlo)
  br i1 %p, label %put, label %count

put:
  %slot = add i32 %base, %rank
  %se = zext i32 %slot to i64
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %se
  store i32 %x, ptr addrspace(1) %op, align 4
  br label %count

count:
  %l0 = icmp eq i32 %lane, 0
  br i1 %l0, label %wcnt, label %exit

wcnt:
  %n64 = call i64 @llvm.ctpop.i64(i64 %m)
  %n = trunc i64 %n64 to i32
  %wge = zext i32 %wg to i64
  %cp = getelementptr inbounds i32, ptr addrspace(1) %cnt, i64 %wge
  store i32 %n, ptr addrspace(1) %cp, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i64 @llvm.ctpop.i64(i64)

attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
