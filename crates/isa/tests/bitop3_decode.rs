//! v_bitop3_b32 (gfx1250, gfx950) and v_bitop3_b16 (gfx1250, gfx950, with op_sel) against LLVM: random operands and truth tables; ours equals
//! LLVM's text and length, or both reject the word, or ours reports it unsupported.
mod common;

use common::Rng;
use hx_isa::{decode, DecodeError, Target};
use hx_llvm::{Disassembler, GpuTarget};

#[test]
fn random_bitop3_words_match_llvm() {
    for (target, gpu, prefix, opcode, name) in [
        (Target::Gfx1250, GpuTarget::Gfx1250, 0x35u32, 0x234u32, "v_bitop3_b32"),
        (Target::Gfx950, GpuTarget::Gfx950, 0x34, 0x234, "v_bitop3_b32"),
        (Target::Gfx1250, GpuTarget::Gfx1250, 0x35, 0x233, "v_bitop3_b16"),
        (Target::Gfx950, GpuTarget::Gfx950, 0x34, 0x233, "v_bitop3_b16"),
    ] {
        let mut d = Disassembler::new(gpu).expect("LLVM");
        let mut rng = Rng(0xb1_7093 + prefix as u64);
        let (mut matched, mut invalid, mut unsupported) = (0u32, 0u32, 0u32);
        let mut mismatches = Vec::new();
        for _ in 0..25_000 {
            let t = rng.below(256);
            let stray = if rng.below(if opcode == 0x233 { 2 } else { 8 }) == 0 { rng.below(32) << 11 } else { 0 };
            let w0 = prefix << 26 | opcode << 16 | stray | ((t >> 3) & 7) << 8 | rng.below(256);
            let src = |rng: &mut Rng| if rng.below(2) == 0 { 256 + rng.below(256) } else { rng.below(512) };
            let w1 = src(&mut rng) | src(&mut rng) << 9 | src(&mut rng) << 18 | ((t >> 6) & 3) << 27 | (t & 7) << 29;
            let b: Vec<u8> = [w0, w1, rng.literal(), rng.literal()].iter().flat_map(|w| w.to_le_bytes()).collect();
            let theirs = d.decode(&b, 0);
            let ours = decode(target, &b, 0);
            match (&theirs, &ours) {
                (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => matched += 1,
                (None, Err(e)) if e.is_invalid() => invalid += 1,
                (_, Err(DecodeError::Unsupported { .. })) => unsupported += 1,
                _ if mismatches.len() < 20 => mismatches.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| (i.len, i.text())))),
                _ => {}
            }
        }
        println!("{target:?} {name} random words: {matched} match LLVM, {invalid} invalid for both, {unsupported} unsupported here");
        assert!(mismatches.is_empty(), "{target:?}:\n{}", mismatches.join("\n"));
        assert!(matched > 15_000, "{target:?}: {matched}");
    }
}
