//! gfx1250 dense WMMA against LLVM: every table entry's mnemonic and register widths, and a
//! random sweep of WMMA words in which ours equals LLVM's text, or both reject it, or ours reports
//! the word unsupported (SGPR / misaligned tuples, literal C: never guessed).
mod common;

use common::Rng;
use hx_isa::{decode, wmma::SHAPES, DecodeError, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(w0: u32, w1: u32, lit: u32) -> Vec<u8> {
    [w0, w1, lit].iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn every_shape_matches_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    for s in &SHAPES {
        let w0 = 0xcc << 24 | (s.opcode as u32) << 16 | 16;
        let w1 = 256 | 264 << 9 | 272 << 18 | 3 << 27;
        let b = bytes(w0, w1, 0);
        let (len, text) = d.decode(&b, 0).unwrap_or_else(|| panic!("{}: LLVM rejects", s.mnemonic));
        let ab = s.ab_dwords() as u32;
        let dd = s.d_dwords() as u32;
        let want = format!("{} v[16:{}], v[0:{}], v[8:{}], v[16:{}]", s.mnemonic, 15 + dd, ab - 1, 7 + ab, 15 + dd);
        assert_eq!((len, text.as_str()), (8, want.as_str()));
        let ours = decode(Target::Gfx1250, &b, 0).unwrap();
        assert_eq!(ours.text(), want);
        assert_eq!(ours.wmma_shape(), Some(s));
    }
}

#[test]
fn random_wmma_words_match_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x3a77_1c_e5);
    let (mut matched, mut invalid, mut unsupported) = (0u32, 0u32, 0u32);
    let mut mismatches = Vec::new();
    for _ in 0..40_000 {
        let s = &SHAPES[rng.below(SHAPES.len() as u32) as usize];
        // Mostly plausible fields: aligned VGPR tuples, inline-constant C, few stray bits.
        let even = |rng: &mut Rng| rng.below(128) * 2;
        let src = |rng: &mut Rng| if rng.below(8) == 0 { rng.below(512) } else { 256 + even(rng) };
        let c = match rng.below(4) {
            0 => 128 + rng.below(81),
            1 => 240 + rng.below(9),
            2 => rng.below(512),
            _ => 256 + even(&mut rng),
        };
        let mods = if rng.below(4) != 0 { 0 } else { rng.below(256) };
        let w0 = 0xcc << 24 | (s.opcode as u32) << 16 | (mods & 0x7f) << 8 | if rng.below(8) == 0 { rng.below(256) } else { even(&mut rng) };
        let hi = if rng.below(8) == 0 { rng.below(4) } else { 3 };
        let w1 = src(&mut rng) | src(&mut rng) << 9 | c << 18 | hi << 27 | if rng.below(2) == 0 { 0 } else { rng.below(8) } << 29;
        let b = bytes(w0, w1, rng.literal());
        let theirs = d.decode(&b, 0);
        let ours = decode(Target::Gfx1250, &b, 0);
        match (&theirs, &ours) {
            (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => matched += 1,
            (None, Err(e)) if e.is_invalid() => invalid += 1,
            (_, Err(DecodeError::Unsupported { .. })) => unsupported += 1,
            _ if mismatches.len() < 20 => {
                mismatches.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| i.text())))
            }
            _ => {}
        }
    }
    println!("WMMA random words: {matched} match LLVM, {invalid} invalid for both, {unsupported} unsupported here");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(matched > 10_000);
}
