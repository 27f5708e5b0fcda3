//! VOPD/VOPD3 (gfx1250 dual issue) against LLVM: the encoding facts the decoder relies on, and
//! a random sweep in which every word is decoded to LLVM's text and length, rejected where LLVM
//! rejects it, or reported unsupported (never guessed, never a panic).
mod common;

use common::Rng;
use hx_isa::{decode, vopd::vopd_vdst_y, DecodeError, Format, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn vopd_bytes(w0: u32, w1: u32, w2: u32, w3: u32) -> Vec<u8> {
    [w0, w1, w2, w3].iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn vopd_vdst_y_and_length_match_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    // opX = opY = v_dual_mul_f32 (checked in the text), src0X v2, vsrc1X v3, src0Y v4, vsrc1Y v5.
    for vdst_x in [1u32, 2, 17, 200] {
        for field in [0u32, 3, 0x40, 0x7f] {
            let w0 = 0x32 << 26 | 3 << 22 | 3 << 17 | 3 << 9 | 258;
            let w1 = vdst_x << 24 | field << 17 | 5 << 9 | 260;
            let (len, text) = d.decode(&vopd_bytes(w0, w1, 0, 0), 0).expect("valid VOPD");
            assert_eq!(len, 8, "{text}");
            let y = vopd_vdst_y(field, vdst_x);
            let want = format!("v_dual_mul_f32 v{vdst_x}, v2, v3 :: v_dual_mul_f32 v{y}, v4, v5");
            assert_eq!(text, want);
        }
    }
    // FMAAK (opY 1) and FMAMK (opY 2) carry a literal: 12 bytes.
    for (opy, want) in [(1u32, "v_dual_fmaak_f32 v6, v4, v5, 0x41200000"), (2, "v_dual_fmamk_f32 v6, v4, 0x41200000, v5")] {
        let w0 = 0x32 << 26 | opy << 17 | 3 << 9 | 258;
        let w1 = 1 << 24 | 3 << 17 | 5 << 9 | 260;
        let (len, text) = d.decode(&vopd_bytes(w0, w1, 0x4120_0000, 0), 0).expect("valid");
        assert_eq!(len, 12);
        assert!(text.ends_with(want), "{text}");
    }
}

/// A random VOPD or VOPD3 word whose fields are often plausible (small, zero, VGPR sources,
/// valid opcodes) so that most words are ones LLVM accepts.
fn random_vopd(rng: &mut Rng, vopd3: bool) -> Vec<u8> {
    fn field(rng: &mut Rng, bits: u32) -> u32 {
        let m = (1u32 << bits) - 1;
        match rng.below(4) {
            0 => 0,
            1 => rng.below(16) & m,
            _ => rng.u32() & m,
        }
    }
    let src0 = |rng: &mut Rng| -> u32 {
        match rng.below(4) {
            0 => 256 + rng.below(256),
            1 => 128 + rng.below(128),
            2 => 255,
            _ => rng.below(512),
        }
    };
    let (w0, w1, w2);
    if vopd3 {
        // Mostly opcodes LLVM knows (a few others, to see them rejected).
        const X: [u32; 25] = [0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 19, 20, 21, 22, 32, 33, 34, 35, 36, 18, 1, 40];
        const Y: [u32; 23] = [0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 32, 2, 30];
        let (opx, opy) = (X[rng.below(25) as usize], Y[rng.below(23) as usize]);
        let (s0x, s0y) = (src0(rng), src0(rng));
        let neg = if rng.below(2) == 0 { 0 } else { rng.below(64) };
        w0 = 0xcf << 24 | opx << 18 | opy << 12 | field(rng, 3) << 9 | s0x;
        w1 = s0y | neg << 9 | field(rng, 1) << 15 | field(rng, 8) << 16 | field(rng, 8) << 24;
        w2 = field(rng, 8) | field(rng, 8) << 8 | field(rng, 8) << 16 | rng.below(256) << 24;
    } else {
        let (opx, opy) = (rng.below(16), rng.below(26));
        let (s0x, s0y) = (src0(rng), src0(rng));
        w0 = 0x32 << 26 | opx << 22 | opy << 17 | field(rng, 8) << 9 | s0x;
        w1 = s0y | field(rng, 8) << 9 | field(rng, 7) << 17 | field(rng, 8) << 24;
        w2 = rng.literal();
    }
    vopd_bytes(w0, w1, w2, rng.literal())
}

#[test]
fn vopd_random_words_match_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x5eed_0f_d0a1);
    // [VOPD, VOPD3] x (matched, LLVM-invalid and ours an error, unsupported here)
    let mut counts = [[0u32; 3]; 2];
    let mut mismatches = Vec::new();
    for i in 0..100_000u32 {
        let vopd3 = i % 2 == 1;
        let b = random_vopd(&mut rng, vopd3);
        let theirs = d.decode(&b, 0);
        let ours = decode(Target::Gfx1250, &b, 0);
        let c = &mut counts[vopd3 as usize];
        match (&theirs, &ours) {
            (Some((len, text)), Ok(inst)) if *len == inst.len as usize && *text == inst.text() => c[0] += 1,
            (None, Err(e)) if e.is_invalid() => c[1] += 1,
            // Not modelled here (dot2acc halves, DPP sources...): set aside, never guessed.
            (_, Err(DecodeError::Unsupported { format: Format::Vopd, .. })) => c[2] += 1,
            _ => {
                if mismatches.len() < 20 {
                    mismatches.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| (i.len, i.text()))));
                }
            }
        }
    }
    println!("VOPD  random words: {} match LLVM, {} invalid for both, {} unsupported here", counts[0][0], counts[0][1], counts[0][2]);
    println!("VOPD3 random words: {} match LLVM, {} invalid for both, {} unsupported here", counts[1][0], counts[1][1], counts[1][2]);
    assert!(mismatches.is_empty(), "{} mismatches, first:\n{}", mismatches.len(), mismatches.join("\n"));
    // Most words LLVM accepts must be decoded, not set aside.
    assert!(counts[0][0] > 20_000 && counts[1][0] > 1_000, "{counts:?}");
    // Truncated input is an error too, never a panic.
    let b = vopd_bytes(0x32 << 26, 0, 0, 0);
    for n in 0..8 {
        assert!(decode(Target::Gfx1250, &b[..n], 0).is_err());
    }
}

#[test]
fn vopd3_field_layout_matches_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    // src0X[8:0] v2, opY[17:12], opX[23:18], src0Y[40:32] v4, vsrc1X[55:48] 4, vsrc2X[63:56] 6,
    // vdstX[71:64] v1, vsrc1Y[79:72] v7, vsrc2Y/bitop3[87:80] 8, vdstY[95:88] v9 (a full field).
    let w1 = 0x0604 << 16 | 260;
    let w2 = 9 << 24 | 8 << 16 | 7 << 8 | 1;
    let cases = [
        (0x09u32, 0x09u32, "v_dual_cndmask_b32 v1, v2, v4, s6 :: v_dual_cndmask_b32 v9, v4, v7, s8"),
        (0x09, 0x12, "v_dual_cndmask_b32 v1, v2, v4, s6 :: v_dual_bitop2_b32 v9, v4, v7 bitop3:8"),
    ];
    for (opx, opy, want) in cases {
        let w0 = 0xcf << 24 | opx << 18 | opy << 12 | 258;
        let got = d.decode(&vopd_bytes(w0, w1, w2, 0x4120_0000), 0);
        assert_eq!(got, Some((12, want.to_string())), "opX {opx:#x} opY {opy:#x}");
    }
}
