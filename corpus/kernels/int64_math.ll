; int64_math: 64-bit integer arithmetic, eight results per work-item in out[8*i + k]:
;   k=0  x*y + (x - y)
;   k=1  x << (y & 63)
;   k=2  x >>u (y & 63)
;   k=3  x >>s ((y >> 6) & 63)
;   k=4  high 64 bits of the unsigned 128-bit product x*y
;   k=5  fshl(x, y, i)                 funnel shift left by i mod 64
;   k=6  ctpop(x) + (ctlz(y) << 8) + (cttz(x | 1<<63) << 16)
;   k=7  (smax(x,y) ^ umin(x,y) ^ bitreverse(x) ^ bswap(y)) + abs(x)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @int64_math(ptr addrspace(1) noalias readonly %xs, ptr addrspace(1) noalias readonly %ys,
                                      ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %xp = getelementptr inbounds i64, ptr addrspace(1) %xs, i64 %ie
  %yp = getelementptr inbounds i64, ptr addrspace(1) %ys, i64 %ie
  %x = load i64, ptr addrspace(1) %xp, align 8
  %y = load i64, ptr addrspace(1) %yp, align 8
  %o = shl i64 %ie, 3
  %op = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %o

  %mul = mul i64 %x, %y
  %sub = sub i64 %x, %y
  %k0 = add i64 %mul, %sub
  store i64 %k0, ptr addrspace(1) %op, align 8

  %amt = and i64 %y, 63
  %k1 = shl i64 %x, %amt
  %p1 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 1
  store i64 %k1, ptr addrspace(1) %p1, align 8

  %k2 = lshr i64 %x, %amt
  %p2 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 2
  store i64 %k2, ptr addrspace(1) %p2, align 8

  %y6 = lshr i64 %y, 6
  %amt2 = and i64 %y6, 63
  %k3 = ashr i64 %x, %amt2
  %p3 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 3
  store i64 %k3, ptr addrspace(1) %p3, align 8

  %xw = zext i64 %x to i128
  %yw = zext i64 %y to i128
  %pw = mul i128 %xw, %yw
  %hw = lshr i128 %pw, 64
  %k4 = trunc i128 %hw to i64
  %p4 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 4
  store i64 %k4, ptr addrspace(1) %p4, align 8

  %k5 = call i64 @llvm.fshl.i64(i64 %x, i64 %y, i64 %ie)
  %p5 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 5
  store i64 %k5, ptr addrspace(1) %p5, align 8

  %pop = call i64 @llvm.ctpop.i64(i64 %x)
  %lz = call i64 @llvm.ctlz.i64(i64 %y, i1 false)
  %xt = or i64 %x, -9223372036854775808
  %tz = call i64 @llvm.cttz.i64(i64 %xt, i1 true)
  %lz8 = shl i64 %lz, 8
  %tz16 = shl i64 %tz, 16
  %k6a = add i64 %pop, %lz8
  %k6 = add i64 %k6a, %tz16
  %p6 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 6
  store i64 %k6, ptr addrspace(1) %p6, align 8

  %smax = call i64 @llvm.smax.i64(i64 %x, i64 %y)
  %umin = call i64 @llvm.umin.i64(i64 %x, i64 %y)
  %rev = call i64 @llvm.bitreverse.i64(i64 %x)
  %bsw = call i64 @llvm.bswap.i64(i64 %y)
  %abs = call i64 @llvm.abs.i64(i64 %x, i1 false)
  %e0 = xor i64 %smax, %umin
  %e1 = xor i64 %e0, %rev
  %e2 = xor i64 %e1, %bsw
  %k7 = add i64 %e2, %abs
  %p7 = getelementptr inbounds i64, ptr addrspace(1) %op, i64 7
  store i64 %k7, ptr addrspace(1) %p7, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i64 @llvm.fshl.i64(i64, i64, i64)
declare i64 @llvm.ctpop.i64(i64)
declare i64 @llvm.ctlz.i64(i64, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i64 @llvm.smax.i64(i64, i64)
declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.bitreverse.i64(i64)
declare i64 @llvm.bswap.i64(i64)
declare i64 @llvm.abs.i64(i64, i1)

attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
