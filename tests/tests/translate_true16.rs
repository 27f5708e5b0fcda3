//! gfx1250 true16 `v_mov_b16` (e32 and e64), the form Triton 3.9's gfx1250 matmuls and flash
//! attention use: a 16-bit copy from a VGPR half, an inline constant or a literal into one half
//! of a VGPR, the other half kept; and other gfx1250 16-bit results, which keep the high half
//! too. The words (as llvm-mc-22 -mattr=+real-true16 encodes them;
//! the in-process assembler has no true16 syntax without that feature) are placed with `.long`
//! between 32-bit moves of the thread's inputs. The source's results are checked against plain
//! integer arithmetic in the emulator, every translation against the source.

use hx_emu::launch::Arg;

/// (word dwords, llvm-mc-22's text of them, the result from x (v10) and y (v11)). The decoder's
/// text of these words is checked against LLVM's in crates/isa/tests/true16_decode.rs.
const CASES: [(&str, &str, fn(u32, u32) -> u32); 17] = [
    ("0x7f14390b", "v_mov_b16_e32 v10.h, v11.l", |x, y| y << 16 | x & 0xffff),
    ("0x7e14398b", "v_mov_b16_e32 v10.l, v11.h", |x, y| x & 0xffff_0000 | y >> 16),
    ("0x7f143880", "v_mov_b16_e32 v10.h, 0", |x, _| x & 0xffff),
    ("0xd59c480a, 0x0000010b", "v_mov_b16_e64 v10.h, v11.h op_sel:[1,1]", |x, y| y & 0xffff_0000 | x & 0xffff),
    ("0x7e1438ff, 0x00001234", "v_mov_b16_e32 v10.l, 0x1234", |x, _| x & 0xffff_0000 | 0x1234),
    ("0xd59c000a, 0x000000ff, 0x00003c00", "v_mov_b16_e64 v10.l, 0x3c00", |x, _| x & 0xffff_0000 | 0x3c00),
    ("0xd59c080a, 0x0000010b", "v_mov_b16_e64 v10.l, v11.h op_sel:[1,0]", |x, y| x & 0xffff_0000 | y >> 16),
    // Other 16-bit results (LLVM prints them without halves unless +real-true16): the high half
    // is kept too ("on gfx10, all 16-bit instructions preserve the high bits", LLVM's
    // GCNSubtarget::zeroesHigh16BitsOfDest).
    ("0xd703000a, 0x0002170a", "v_add_nc_u16 v10, v10, v11", |x, y| x & 0xffff_0000 | x.wrapping_add(y) & 0xffff),
    ("0xd738000a, 0x00021681", "v_lshlrev_b16 v10, 1, v11", |x, y| x & 0xffff_0000 | (y << 1) & 0xffff),
    // Table 0xc8 is S1 & (S0 | S2); with S2 = S0, x & y.
    ("0xd633010a, 0x1c2a170a", "v_bitop3_b16 v10, v10, v11, v10 bitop3:0xc8", |x, y| x & 0xffff_0000 | x & y & 0xffff),
    // An e32 16-bit source naming a high half through a Lo128 field (bit 7 of the register
    // number), which the fake16 tables decode as v139 (Instruction::true16_halves).
    // Triton's gfx1250 dot_scaled w8 builds use this form. (A Lo128 destination of 128 and up
    // is an invalid encoding in LLVM's default mode; it is decoded as +real-true16 does, below.)
    ("0x7e14d78b", "v_cvt_u32_u16_e32 v10, v11.h", |_, y| y >> 16),
    // VOP3 op_sel naming halves of 16-bit sources and the destination, as Triton's dot_scaled
    // w8 builds pack their E8M0 scales (op_sel:[src0, src1, dst]).
    ("0xd738400a, 0x00021688", "v_lshlrev_b16 v10.h, 8, v11.l op_sel:[0,0,1]", |x, y| (y << 8 & 0xffff) << 16 | x & 0xffff),
    ("0xd763500a, 0x0002150b", "v_or_b16 v10.h, v11.l, v10.h op_sel:[0,1,1]", |x, y| ((y & 0xffff) | x >> 16) << 16 | x & 0xffff),
    ("0xd763000a, 0x0002150b", "v_or_b16 v10.l, v11.l, v10.l", |x, y| x & 0xffff_0000 | (x | y) & 0xffff),
    ("0xd644000a, 0x03fe150b, 0x0c0c0004", "v_perm_b32 v10, v11, v10, 0xc0c0004", |x, y| (y & 0xff) | (x & 0xff) << 8),
    // A 16-bit result into a high half through the e32 Lo128 destination (bit 7): LLVM decodes
    // it only with +real-true16. Triton 3.9's int16 -> f16 conversions.
    ("0x7f14a30b", "v_cvt_f16_i16_e32 v10.h, v11.l", |x, y| f16_of_i16(y as u16 as i16) << 16 | x & 0xffff),
    ("0x7f14a38b", "v_cvt_f16_i16_e32 v10.h, v11.h", |x, y| f16_of_i16((y >> 16) as u16 as i16) << 16 | x & 0xffff),
];

/// The f16 bits nearest to `v` (ties to even), as v_cvt_f16_i16 rounds.
fn f16_of_i16(v: i16) -> u32 {
    if v == 0 {
        return 0;
    }
    let (sign, m) = (if v < 0 { 0x8000u32 } else { 0 }, (v as i32).unsigned_abs());
    let e = 31 - m.leading_zeros(); // 2^e <= m
    // 10 fraction bits: m * 2^(10 - e), rounded to nearest even.
    let (mut mant, mut exp) = if e <= 10 {
        (m << (10 - e), e)
    } else {
        let sh = e - 10;
        let q = m >> sh;
        let rem = m & ((1 << sh) - 1);
        let half = 1 << (sh - 1);
        let q = if rem > half || (rem == half && q & 1 == 1) { q + 1 } else { q };
        (q, e)
    };
    if mant >= 2048 {
        mant >>= 1;
        exp += 1;
    }
    sign | (exp + 15) << 10 | (mant & 0x3ff)
}

fn kernel() -> String {
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @t16(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %i2 = mul i32 %tid, 2
  %px = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i2
  %x = load i32, ptr addrspace(1) %px, align 4
  %py = getelementptr inbounds i32, ptr addrspace(1) %px, i32 1
  %y = load i32, ptr addrspace(1) %py, align 4
"#,
    );
    body.push_str(&format!("  %base = mul i32 %tid, {}\n", CASES.len()));
    for (k, (words, _, _)) in CASES.iter().enumerate() {
        body.push_str(&format!(
            "  %r{k} = call i32 asm sideeffect \"v_mov_b32 v10, $1\\0Av_mov_b32 v11, $2\\0A.long {words}\\0Av_mov_b32 $0, v10\", \"=v,v,v,~{{v10}},~{{v11}}\"(i32 %x, i32 %y)\n  %o{k} = add i32 %base, {k}\n  %q{k} = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o{k}\n  store i32 %r{k}, ptr addrspace(1) %q{k}, align 4\n"
        ));
    }
    body.push_str("  ret void\n}\n");
    body
}

fn inputs(t: usize) -> (u32, u32) {
    let v = [0x1234_5678u32, 0xffff_0000, 0x0000_ffff, 0x8001_7ffe, 0, 0xdead_beef, 0x3c00_bc00];
    (v[t % v.len()] ^ (t as u32) << 8, v[(t / 3) % v.len()].rotate_left(t as u32))
}

#[test]
fn sixteen_bit_results_write_one_half_and_keep_the_other() {
    let source = hx_tests::gfx1250_object(&kernel(), "t16");
    let ins: Vec<(u32, u32)> = (0..64).map(inputs).collect();
    let in_bytes: Vec<u8> = ins.iter().flat_map(|&(x, y)| [x, y]).flat_map(u32::to_le_bytes).collect();
    let args = [Arg::Buffer(in_bytes), Arg::Buffer(vec![0xee; 64 * 4 * CASES.len()])];
    let want = hx_tests::run_1d(&source, "t16", 64, 1, &args, 1);
    for (t, &(x, y)) in ins.iter().enumerate() {
        for (k, (_, text, f)) in CASES.iter().enumerate() {
            let at = 4 * (CASES.len() * t + k);
            let got = u32::from_le_bytes(want[at..at + 4].try_into().unwrap());
            assert_eq!(got, f(x, y), "thread {t}, {text}, x {x:#x}, y {y:#x}");
        }
    }
    hx_tests::assert_translations_match(&source, "t16", 64, 1, &args, 1, &want, CASES.len());
}
