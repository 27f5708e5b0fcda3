//! VOPD/VOPD3 (gfx1250 dual issue) against LLVM: the encoding facts the future decoder relies
//! on, and that today's decoder never guesses (every word LLVM accepts is Unsupported, every
//! word LLVM rejects is Invalid or Unsupported) and never panics.
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

#[test]
fn vopd_words_are_never_guessed() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x5eed_0f_d0a1);
    let (mut accepted, mut rejected) = (0u32, 0u32);
    for i in 0..100_000u32 {
        let w0 = if i % 2 == 0 { 0x32 << 26 | rng.u32() >> 6 } else { 0xcf << 24 | rng.u32() >> 8 };
        let b = vopd_bytes(w0, rng.u32(), rng.u32(), rng.literal());
        let theirs = d.decode(&b, 0);
        let ours = decode(Target::Gfx1250, &b, 0);
        match (&theirs, &ours) {
            (Some(_), Err(DecodeError::Unsupported { format: Format::Vopd, .. })) => accepted += 1,
            (None, Err(_)) => rejected += 1,
            _ => panic!("bytes {b:02x?}: llvm {theirs:?}, ours {ours:?}"),
        }
    }
    // Truncated input is an error too, never a panic.
    let b = vopd_bytes(0x32 << 26, 0, 0, 0);
    for n in 0..12 {
        assert!(decode(Target::Gfx1250, &b[..n], 0).is_err());
    }
    println!("VOPD/VOPD3 random words: {accepted} LLVM-valid (all Unsupported here), {rejected} LLVM-invalid");
    assert!(accepted > 10_000 && rejected + accepted == 100_000);
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
