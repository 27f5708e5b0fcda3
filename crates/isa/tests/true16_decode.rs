//! gfx1250 true16 `v_mov_b16_e32` / `v_mov_b16_e64` against LLVM's disassembler with
//! `+real-true16` (without it LLVM decodes nothing there): every destination and source field
//! value, and random e64 words; ours equals LLVM's text and length, or both reject the word.
mod common;

use common::Rng;
use hx_isa::{decode, DecodeError, Operand, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn check(d: &mut Disassembler, b: &[u8], matched: &mut u32, invalid: &mut u32, bad: &mut Vec<String>) {
    let e64 = b[3] >> 2 == 0x35;
    let src0 = if e64 { u16::from_le_bytes([b[4], b[5]]) & 0x1ff } else { u16::from_le_bytes([b[0], b[1]]) & 0x1ff };
    let theirs = d.decode(b, 0);
    let ours = decode(Target::Gfx1250, b, 0);
    match (&theirs, &ours) {
        (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => *matched += 1,
        (None, Err(e)) if e.is_invalid() => *invalid += 1,
        // Not decoded yet, and reported so: the DPP forms (src0 0xe9, 0xea, 0xfa) and the e64
        // form's 64-bit literal (src0 0xfe).
        (_, Err(DecodeError::Unsupported { .. })) if matches!(src0, 0xe9 | 0xea | 0xfa | 0xfe) => {}
        _ if bad.len() < 20 => bad.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| (i.len, i.text())))),
        _ => {}
    }
}

#[test]
fn v_mov_b16_e32_every_field_value_matches_llvm() {
    let mut d = Disassembler::with_features(GpuTarget::Gfx1250, "+real-true16").expect("LLVM");
    let (mut matched, mut invalid, mut bad) = (0u32, 0u32, Vec::new());
    for vdst in 0..256u32 {
        for src0 in 0..512u32 {
            if vdst % 16 != 3 && src0 < 256 && src0 % 7 != 0 {
                continue; // every scalar/constant value with a sixteenth of the destinations
            }
            let w = 0x3f << 25 | vdst << 17 | 0x1c << 9 | src0;
            let b: Vec<u8> = [w, 0x7856_1234, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
            check(&mut d, &b, &mut matched, &mut invalid, &mut bad);
        }
    }
    println!("v_mov_b16_e32: {matched} match LLVM, {invalid} invalid for both");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(matched > 70_000, "{matched}");
}

#[test]
fn v_mov_b16_e64_random_words_match_llvm() {
    let mut d = Disassembler::with_features(GpuTarget::Gfx1250, "+real-true16").expect("LLVM");
    let mut rng = Rng(0x7e16);
    let (mut matched, mut invalid, mut bad) = (0u32, 0u32, Vec::new());
    for k in 0..20_000u32 {
        // Modifier bits 15:8 random on a quarter of the words, op_sel (bits 11, 14) on half.
        let mods = if k % 4 == 0 { rng.below(256) << 8 } else { (rng.below(2) << 11) | (rng.below(2) << 14) };
        let w0 = 0x35 << 26 | 0x19c << 16 | mods | rng.below(256);
        let src0 = if rng.below(2) == 0 { 256 + rng.below(256) } else { rng.below(512) };
        let hi = if k % 4 == 1 { rng.below(128) << 9 | rng.below(8) << 29 } else { 0 };
        let w1 = src0 | hi;
        let b: Vec<u8> = [w0, w1, rng.literal(), rng.literal()].iter().flat_map(|w| w.to_le_bytes()).collect();
        check(&mut d, &b, &mut matched, &mut invalid, &mut bad);
    }
    println!("v_mov_b16_e64: {matched} match LLVM, {invalid} invalid for both");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(matched > 10_000 && invalid > 500, "{matched} {invalid}");
}

/// The words of Triton's gfx1250 matmuls, as llvm-mc-22 -mattr=+real-true16 prints them, and
/// the halves the decoder hands the emulator (op_sel bit 0: src0 high, bit 3: destination high).
#[test]
fn triton_words_and_halves() {
    for (b, text, sel) in [
        (vec![0x80u8, 0x38, 0x02, 0x7e], "v_mov_b16_e32 v1.l, 0", 0u8),
        (vec![0x54, 0x39, 0x62, 0x7f], "v_mov_b16_e32 v49.h, v84.l", 8),
        (vec![0x81, 0x39, 0x02, 0x7e], "v_mov_b16_e32 v1.l, v1.h", 1),
        (vec![0x01, 0x48, 0x9c, 0xd5, 0x05, 0x01, 0x00, 0x00], "v_mov_b16_e64 v1.h, v5.h op_sel:[1,1]", 9),
        (vec![0x81, 0x00, 0x9c, 0xd5, 0xff, 0x00, 0x00, 0x00, 0x00, 0x3c, 0, 0], "v_mov_b16_e64 v129.l, 0x3c00", 0),
    ] {
        let i = decode(Target::Gfx1250, &b, 0).expect("decodes");
        assert_eq!(i.text(), text);
        assert_eq!(i.len as usize, b.len());
        assert!(i.is_true16());
        assert_eq!(i.source_mods().op_sel, sel, "{text}");
        // Register operands hold whole VGPR numbers (the half is in op_sel).
        for o in i.operands() {
            if let Operand::Reg(r) = o.value {
                assert!(text.contains(&format!("v{}.", r.index)), "{text}: {r:?}");
            }
        }
    }
}

/// Every gfx1250 VOP1 opcode with a 16-bit (Lo128) destination, its destination naming a high
/// half (field values 128 and up): LLVM decodes these only with +real-true16 (clang and
/// Triton's int16 -> f16 conversions write `v_cvt_f16_i16_e32 v1.h, v30.l`). Ours must decode
/// each word LLVM +real-true16 decodes, with its text once the halves are written as fake16
/// register numbers (common::compare), and refuse the others.
#[test]
fn vop1_high_half_destinations_match_llvm_real_true16() {
    let (opcodes, tally) = sweep_lo128_destinations(hx_isa::Format::Vop1, |op, words| {
        for vdst in (128..256u32).step_by(13) {
            for src0 in [0x01u32, 0x80, 0xc1, 0xf2, 0x105, 0x17f, 0x185, 0x1ff] {
                words.push(0x3f << 25 | vdst << 17 | op << 9 | src0);
            }
        }
    });
    assert!(opcodes >= 10, "{opcodes}");
    assert_eq!(tally.mismatched, 0, "{:#?}", tally.examples);
    assert!(tally.matched > 500, "{tally:?}");
}

/// The same for every gfx1250 VOP2 opcode with a 16-bit (Lo128) destination: Triton 3.9's f16
/// arithmetic writes `v_mul_f16_e32 v0.h, v19.l, v0.h` and `v_min_num_f16_e32 v0.h, 1.0, v0.l`
/// (refused as invalid words before). Destinations and vsrc1 naming either half, with scalar,
/// constant, literal and VGPR src0.
#[test]
fn vop2_high_half_destinations_match_llvm_real_true16() {
    let (opcodes, tally) = sweep_lo128_destinations(hx_isa::Format::Vop2, |op, words| {
        for vdst in (128..256u32).step_by(11) {
            for vsrc1 in [0x03u32, 0x80, 0x93, 0xff] {
                for src0 in [0x01u32, 0x80, 0xc1, 0xf2, 0xff, 0x105, 0x17f, 0x185, 0x1ff] {
                    words.push(op << 25 | vdst << 17 | vsrc1 << 9 | src0);
                }
            }
        }
    });
    assert!(opcodes >= 8, "{opcodes}");
    assert_eq!(tally.mismatched, 0, "{:#?}", tally.examples);
    assert!(tally.matched > 2000, "{tally:?}");
}

/// Compares with LLVM every first word `words` gives for each gfx1250 opcode of `format` whose
/// destination is 16-bit (Lo128), each followed by a literal 0x3c00: the opcodes swept and the
/// tally.
fn sweep_lo128_destinations(format: hx_isa::Format, words: impl Fn(u32, &mut Vec<u32>)) -> (usize, common::Tally) {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let table = hx_isa::tables::table(Target::Gfx1250, format);
    let mut tally = common::Tally::default();
    let mut opcodes = 0;
    let mut ws = Vec::new();
    for (op, info) in table.iter().enumerate() {
        let Some(info) = info else { continue };
        if !matches!(info.operands.first().map(|o| o.kind), Some(hx_isa::Kind::VDstLo128 { .. })) {
            continue;
        }
        opcodes += 1;
        ws.clear();
        words(op as u32, &mut ws);
        for &w in &ws {
            let b: Vec<u8> = [w, 0x3c00, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
            tally.add(common::compare(&mut d, Target::Gfx1250, &b));
        }
    }
    println!("{format:?}: {opcodes} opcodes: {tally:?}");
    (opcodes, tally)
}
