//! Adds and subtracts with carry in and out: `v_add_co_u32`, `v_add_co_ci_u32`,
//! `v_sub_co_u32`, `v_sub_co_ci_u32`, `v_subrev_co_ci_u32` (carry in and out through VCC) and
//! `s_add_co_ci_u32`, `s_sub_co_ci_u32` (through SCC), at the values where carries happen:
//! 0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff and others, with carry in 0 and 1.
//! The raiser writes them as `llvm.u{add,sub}.with.overflow` pairs (alu_ir.rs, with_overflow),
//! which the backend fuses into v_addc_co_u32 / v_subb_co_u32; this checks the values, the
//! carries and the source against plain integer arithmetic.

use hx_emu::launch::Arg;

/// Per thread: a, b, and the carry in k (any non-zero is 1). Results: 7 (value, carry) pairs.
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @carry(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias readonly %uni, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %wgbase = mul i32 %wg, 64
  %g = add i32 %wgbase, %tid
  %i3 = mul i32 %g, 3
  %pa = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i3
  %a = load i32, ptr addrspace(1) %pa, align 4
  %pb = getelementptr inbounds i32, ptr addrspace(1) %pa, i32 1
  %b = load i32, ptr addrspace(1) %pb, align 4
  %pk = getelementptr inbounds i32, ptr addrspace(1) %pa, i32 2
  %k = load i32, ptr addrspace(1) %pk, align 4
  %u3 = mul i32 %wg, 3
  %pua = getelementptr inbounds i32, ptr addrspace(1) %uni, i32 %u3
  %ua = load i32, ptr addrspace(1) %pua, align 4
  %pub = getelementptr inbounds i32, ptr addrspace(1) %pua, i32 1
  %ub = load i32, ptr addrspace(1) %pub, align 4
  %puk = getelementptr inbounds i32, ptr addrspace(1) %pua, i32 2
  %uk = load i32, ptr addrspace(1) %puk, align 4
  %r0 = call {i32, i32} asm sideeffect "v_add_co_u32 $0, vcc_lo, $2, $3\0Av_cndmask_b32 $1, 0, 1, vcc_lo", "=&v,=&v,v,v,~{vcc}"(i32 %a, i32 %b)
  %r1 = call {i32, i32} asm sideeffect "v_cmp_ne_u32 vcc_lo, 0, $4\0Av_add_co_ci_u32 $0, vcc_lo, $2, $3, vcc_lo\0Av_cndmask_b32 $1, 0, 1, vcc_lo", "=&v,=&v,v,v,v,~{vcc}"(i32 %a, i32 %b, i32 %k)
  %r2 = call {i32, i32} asm sideeffect "v_sub_co_u32 $0, vcc_lo, $2, $3\0Av_cndmask_b32 $1, 0, 1, vcc_lo", "=&v,=&v,v,v,~{vcc}"(i32 %a, i32 %b)
  %r3 = call {i32, i32} asm sideeffect "v_cmp_ne_u32 vcc_lo, 0, $4\0Av_sub_co_ci_u32 $0, vcc_lo, $2, $3, vcc_lo\0Av_cndmask_b32 $1, 0, 1, vcc_lo", "=&v,=&v,v,v,v,~{vcc}"(i32 %a, i32 %b, i32 %k)
  %r4 = call {i32, i32} asm sideeffect "v_cmp_ne_u32 vcc_lo, 0, $4\0Av_subrev_co_ci_u32 $0, vcc_lo, $2, $3, vcc_lo\0Av_cndmask_b32 $1, 0, 1, vcc_lo", "=&v,=&v,v,v,v,~{vcc}"(i32 %a, i32 %b, i32 %k)
  %r5 = call {i32, i32} asm sideeffect "s_cmp_lg_u32 $4, 0\0As_add_co_ci_u32 $0, $2, $3\0As_cselect_b32 $1, 1, 0", "=&s,=&s,s,s,s,~{scc}"(i32 %ua, i32 %ub, i32 %uk)
  %r6 = call {i32, i32} asm sideeffect "s_cmp_lg_u32 $4, 0\0As_sub_co_ci_u32 $0, $2, $3\0As_cselect_b32 $1, 1, 0", "=&s,=&s,s,s,s,~{scc}"(i32 %ua, i32 %ub, i32 %uk)
  %o = mul i32 %g, 14
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o
  %v00 = extractvalue {i32, i32} %r0, 0
  %v01 = extractvalue {i32, i32} %r0, 1
  %v10 = extractvalue {i32, i32} %r1, 0
  %v11 = extractvalue {i32, i32} %r1, 1
  %v20 = extractvalue {i32, i32} %r2, 0
  %v21 = extractvalue {i32, i32} %r2, 1
  %v30 = extractvalue {i32, i32} %r3, 0
  %v31 = extractvalue {i32, i32} %r3, 1
  %v40 = extractvalue {i32, i32} %r4, 0
  %v41 = extractvalue {i32, i32} %r4, 1
  %v50 = extractvalue {i32, i32} %r5, 0
  %v51 = extractvalue {i32, i32} %r5, 1
  %v60 = extractvalue {i32, i32} %r6, 0
  %v61 = extractvalue {i32, i32} %r6, 1
  %vec0 = insertelement <14 x i32> poison, i32 %v00, i32 0
  %vec1 = insertelement <14 x i32> %vec0, i32 %v01, i32 1
  %vec2 = insertelement <14 x i32> %vec1, i32 %v10, i32 2
  %vec3 = insertelement <14 x i32> %vec2, i32 %v11, i32 3
  %vec4 = insertelement <14 x i32> %vec3, i32 %v20, i32 4
  %vec5 = insertelement <14 x i32> %vec4, i32 %v21, i32 5
  %vec6 = insertelement <14 x i32> %vec5, i32 %v30, i32 6
  %vec7 = insertelement <14 x i32> %vec6, i32 %v31, i32 7
  %vec8 = insertelement <14 x i32> %vec7, i32 %v40, i32 8
  %vec9 = insertelement <14 x i32> %vec8, i32 %v41, i32 9
  %vec10 = insertelement <14 x i32> %vec9, i32 %v50, i32 10
  %vec11 = insertelement <14 x i32> %vec10, i32 %v51, i32 11
  %vec12 = insertelement <14 x i32> %vec11, i32 %v60, i32 12
  %vec13 = insertelement <14 x i32> %vec12, i32 %v61, i32 13
  store <14 x i32> %vec13, ptr addrspace(1) %q, align 4
  ret void
}
"#;

const GROUPS: u32 = 4;
const EDGES: [u32; 10] = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0x1234_5678, 0xedcb_a987];

/// Thread `t`'s (a, b, k): every pair of edge values, carry in alternating, and a few mixed.
fn inputs(t: usize) -> (u32, u32, u32) {
    let n = EDGES.len();
    let (a, b) = (EDGES[t % n], EDGES[(t / n) % n]);
    let k = [0, 1, 0xffff_ffff, 0x100][((t / (n * n)) % 4) ^ (t % 2)];
    (a, b, k)
}

/// The expected (value, carry) pairs of one thread with inputs (a, b, k), scalar ones (ua, ub, uk).
fn reference((a, b, k): (u32, u32, u32), (ua, ub, uk): (u32, u32, u32)) -> [u32; 14] {
    let add = |x: u32, y: u32, c: u32| {
        let w = x as u64 + y as u64 + c as u64;
        [w as u32, (w >> 32) as u32]
    };
    let sub = |x: u32, y: u32, c: u32| {
        let w = x as i64 - y as i64 - c as i64;
        [w as u32, (w < 0) as u32]
    };
    let (c, uc) = ((k != 0) as u32, (uk != 0) as u32);
    let mut r = [0; 14];
    r[0..2].copy_from_slice(&add(a, b, 0));
    r[2..4].copy_from_slice(&add(a, b, c));
    r[4..6].copy_from_slice(&sub(a, b, 0));
    r[6..8].copy_from_slice(&sub(a, b, c));
    r[8..10].copy_from_slice(&sub(b, a, c));
    r[10..12].copy_from_slice(&add(ua, ub, uc));
    r[12..14].copy_from_slice(&sub(ua, ub, uc));
    r
}

#[test]
fn carries_in_and_out_match_integer_arithmetic() {
    let source = hx_tests::gfx1250_object(KERNEL, "carry");
    let threads = (64 * GROUPS) as usize;
    let ins: Vec<(u32, u32, u32)> = (0..threads).map(inputs).collect();
    let unis: [(u32, u32, u32); GROUPS as usize] = [(0xffff_ffff, 0, 1), (0xffff_ffff, 1, 0), (0, 0, 1), (0x8000_0000, 0x8000_0000, 0)];
    let in_bytes: Vec<u8> = ins.iter().flat_map(|&(a, b, k)| [a, b, k]).flat_map(u32::to_le_bytes).collect();
    let uni_bytes: Vec<u8> = unis.iter().flat_map(|&(a, b, k)| [a, b, k]).flat_map(u32::to_le_bytes).collect();
    let args = [Arg::Buffer(in_bytes), Arg::Buffer(uni_bytes), Arg::Buffer(vec![0xee; threads * 14 * 4])];
    let want = hx_tests::run_1d(&source, "carry", 64, GROUPS, &args, 2);
    for (t, &i) in ins.iter().enumerate() {
        let got: Vec<u32> = want[56 * t..56 * t + 56].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, reference(i, unis[t / 64]), "source, thread {t}, inputs {i:x?}");
    }
    hx_tests::assert_translations_match(&source, "carry", 64, GROUPS, &args, 2, &want, 14);
}
