//! 16-bit float and packed 16-bit ALU operations as clang 22 emits them for `_Float16`,
//! `__half2`-style vectors and `short2` (corpus/hip `half2_math` is the compiled kernel):
//! v_pk_{add,mul,fma,min_num,max_num}_f16 with op_sel / op_sel_hi / neg_lo / neg_hi and inline
//! constants, the packed integer ops, the scalar f16 ops besides add/mul, and Triton 3.9's
//! v_pk_add_bf16 / v_pk_mul_bf16 (bf16 NaNs, infinities and denormals from the f32 patterns'
//! halves). Each runs on
//! special values (NaN pairs with different payloads, signaling NaNs, signed zeros, denormals,
//! infinities) and the translations must equal the gfx1250 original bit for bit.
//!
//! The inline constants of packed 16-bit ops are pinned against host arithmetic: a float
//! constant of a packed float op is the f16 value in the low half and zero in the high half,
//! an integer constant its sign-extended 32 bits, and a float constant of a packed integer op
//! its f32 bits (LLVM's AMDGPUBaseInfo `getInlineEncodingV216`, which records the hardware).

use hx_emu::launch::Arg;

/// Results per thread (dwords).
const OUT: usize = 30;

/// Each line: one instruction on %x, %y, %z (dwords of packed halves), its result stored.
const OPS: [&str; OUT] = [
    "v_pk_add_f16 $0, $1, $2",
    "v_pk_mul_f16 $0, $1, $2 op_sel:[1,0] op_sel_hi:[0,1]",
    "v_pk_fma_f16 $0, $1, $2, $3 neg_lo:[1,0,0] neg_hi:[0,1,0]",
    "v_pk_fma_f16 $0, $1, $2, 1.0 op_sel_hi:[1,1,0]",
    "v_pk_fma_f16 $0, $1, $2, 1.0",
    "v_pk_max_num_f16 $0, $1, $2",
    "v_pk_min_num_f16 $0, $1, $2 neg_lo:[1,0] neg_hi:[1,0]",
    "v_pk_max_num_f16 $0, $1, $1",
    "v_pk_mul_f16 $0, $1, 0.5 op_sel_hi:[1,0]",
    "v_pk_add_u16 $0, $1, $2",
    "v_pk_sub_i16 $0, $1, $2 op_sel:[0,1]",
    "v_pk_ashrrev_i16 $0, 3, $1 op_sel_hi:[0,1]",
    "v_pk_lshlrev_b16 $0, $2, $1",
    "v_pk_max_i16 $0, $1, $2",
    "v_pk_min_u16 $0, $1, $2",
    "v_pk_mad_u16 $0, $1, $2, $3",
    "v_pk_add_u16 $0, $1, 1.0",
    "v_pk_add_u16 $0, $1, -2",
    "v_fma_f16 $0, $1, $2, $3",
    "v_max_num_f16 $0, $1, $2",
    "v_min_num_f32 $0, $5, $4",
    "v_sub_f16 $0, $1, $2",
    "v_ldexp_f16 $0, $1, $2",
    "v_cvt_i16_f16 $0, $1",
    "v_max_num_f32 $0, $4, $5",
    "v_max3_num_f32 $0, $4, $5, $1",
    "v_maxmin_num_f32 $0, $5, $4, $4",
    "v_pk_add_bf16 $0, $4, $5",
    "v_pk_mul_bf16 $0, $5, $4 op_sel:[1,0] neg_hi:[0,1]",
    "v_pk_add_bf16 $0, $4, $1",
];

fn kernel() -> String {
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @f16ops(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t3 = mul i32 %tid, 5
  %px = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t3
  %x = load i32, ptr addrspace(1) %px, align 4
  %py = getelementptr inbounds i32, ptr addrspace(1) %px, i32 1
  %y = load i32, ptr addrspace(1) %py, align 4
  %pz = getelementptr inbounds i32, ptr addrspace(1) %px, i32 2
  %z = load i32, ptr addrspace(1) %pz, align 4
  %pu = getelementptr inbounds i32, ptr addrspace(1) %px, i32 3
  %u = load i32, ptr addrspace(1) %pu, align 4
  %pv = getelementptr inbounds i32, ptr addrspace(1) %px, i32 4
  %v = load i32, ptr addrspace(1) %pv, align 4
  %o = mul i32 %tid, 30
"#,
    );
    for (k, op) in OPS.iter().enumerate() {
        // Constraints by the highest operand number the text names.
        let top = (1..=5).rev().find(|i| op.contains(&format!("${i}"))).unwrap_or(1);
        let cons = format!("=v{}", ",v".repeat(top));
        let args = ["i32 %x", "i32 %y", "i32 %z", "i32 %u", "i32 %v"][..top].join(", ");
        body += &format!(
            "  %r{k} = call i32 asm \"{op}\", \"{cons}\"({args})\n{}",
            hx_tests::store_slot(&k.to_string(), "i32", &format!("%r{k}"), k)
        );
    }
    body += "  ret void\n}\n";
    body
}

/// f32 bit patterns: NaNs of different payloads (quiet and signaling), zeros, numbers.
const F: [u32; 8] = [0x7fc0_0001, 0xffa0_0023, 0x7f80_0005, 0x0000_0000, 0x8000_0000, 0x3f80_0000, 0xc000_0000, 0x7f80_0000];

/// f16 bit patterns: NaNs of different payloads (quiet and signaling, both signs), zeros,
/// denormals, infinities, numbers.
const H: [u16; 16] = [0x7e01, 0xfd23, 0x7c05, 0x0000, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x3c00, 0xc000, 0x4248, 0x7bff, 0x2e66, 0x7f00, 0x1400];

fn input() -> Vec<u8> {
    // Thread t: x, y, z pair halves so that every pair of patterns meets (NaN with NaN too).
    let mut v = Vec::new();
    for t in 0..64usize {
        let h = |i: usize| H[i % H.len()] as u32;
        let x = h(t) | h(t / 4 + 1) << 16;
        let y = h(t / 16 + 3 * t) | h(t + 5) << 16;
        let z = h(7 * t + 2) | h(t / 2) << 16;
        let (u, w) = (F[t % F.len()], F[t / 8 % F.len()]);
        for d in [x, y, z, u, w] {
            v.extend_from_slice(&d.to_le_bytes());
        }
    }
    v
}

#[test]
fn f16_and_packed_16_bit_ops_translate_bit_for_bit() {
    let source = hx_tests::gfx1250_object(&kernel(), "f16ops");
    let args = [Arg::Buffer(input()), Arg::Buffer(vec![0xee; 64 * 4 * OUT])];
    let want = hx_tests::run_1d(&source, "f16ops", 64, 1, &args, 1);
    hx_tests::assert_translations_match(&source, "f16ops", 64, 1, &args, 1, &want, OUT);
}

#[test]
fn packed_inline_constants_are_the_documented_halves() {
    // x = (lo 2.0, hi 3.0), y = (lo 4.0, hi 5.0), z unused.
    let (x, y) = (0x4200_4000u32, 0x4500_4400u32);
    let mut input = Vec::new();
    for _ in 0..64 {
        for w in [x, y, 0, 0, 0] {
            input.extend_from_slice(&w.to_le_bytes());
        }
    }
    let source = hx_tests::gfx1250_object(&kernel(), "f16ops");
    let args = [Arg::Buffer(input), Arg::Buffer(vec![0xee; 64 * 4 * OUT])];
    let got = hx_tests::run_1d(&source, "f16ops", 64, 1, &args, 1);
    let r = |k: usize| u32::from_le_bytes(got[4 * k..4 * k + 4].try_into().unwrap());
    assert_eq!(OPS[3], "v_pk_fma_f16 $0, $1, $2, 1.0 op_sel_hi:[1,1,0]");
    let halves = |lo: u32, hi: u32| lo | hi << 16;
    let (one, one_half, nine, fifteen, sixteen) = (0x3c00, 0x3e00, 0x4880, 0x4b80, 0x4c00);
    // fma with 1.0 in both halves (op_sel_hi of the constant clear): 2*4+1, 3*5+1.
    assert_eq!(r(3), halves(nine, sixteen));
    // Without it the high half reads the constant's high half, 0: 2*4+1, 3*5+0.
    assert_eq!(r(4), halves(nine, fifteen));
    // 0.5 in both halves: 1.0, 1.5.
    assert_eq!(r(8), halves(one, one_half));
    // A float constant of a packed integer op is the f32 bits: 1.0 = 0x3f80_0000.
    assert_eq!(r(16), (x & 0xffff) | ((x >> 16) + 0x3f80 & 0xffff) << 16);
    // An integer constant is sign-extended to 32 bits: -2 (0xfffe) in the low half, 0xffff
    // (-1) in the high half.
    assert_eq!(r(17), ((x & 0xffff) - 2) | ((x >> 16) - 1) << 16);
    // The shift constant 3 in the low half only (op_sel_hi clear: the high result reads it too).
    assert_eq!(r(11), (0x4000 >> 3) | (0x4200 >> 3) << 16);
}
