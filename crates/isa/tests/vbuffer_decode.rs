//! gfx1250 VBUFFER against LLVM: the opcode list (`hx_isa::vbuffer::OPS`) is LLVM's, opcode by
//! opcode, and on a random sweep of VBUFFER words ours equals LLVM's text or both reject it.
mod common;

use common::{compare, Rng, Tally, Verdict};
use hx_isa::{decode, vbuffer, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(w: [u32; 3]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn vbuffer_opcode_list_is_llvms() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    for op in 0..256u32 {
        let b = bytes([vbuffer::MATCH | op << 14 | 3, 5 | 8 << 9, 0x100]);
        let llvm = d.decode(&b, 0).map(|(_, t)| t.split_whitespace().next().unwrap_or("").to_string());
        let ours = decode(Target::Gfx1250, &b, 0).ok().map(|i| i.mnemonic().to_string());
        assert_eq!(ours, llvm, "opcode {op:#x}");
    }
}

#[test]
fn random_vbuffer_words_match_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x7b0f_1250);
    let mut tally = Tally::default();
    let mut valid = 0u32;
    for _ in 0..24_000 {
        let op = if rng.below(4) != 0 { vbuffer::OPS[rng.below(vbuffer::OPS.len() as u32) as usize].0 as u32 } else { rng.below(256) };
        // tfe (bit 22) now and then: atomics reject it.
        let tfe_mask = if rng.below(4) == 0 { 0 } else { 1 << 22 };
        let w0 = vbuffer::MATCH | op << 14 | rng.u32() & 0x03c0_3fff & !tfe_mask;
        let mut w1 = rng.u32();
        if rng.below(4) != 0 {
            // A register resource more often than not (most random 9-bit values are invalid).
            w1 = (w1 & !(0x1ff << 9)) | rng.below(128) << 9;
        }
        let mut w2 = rng.u32();
        if rng.below(4) != 0 {
            w2 &= 0x7fff_ffff; // offset bit 23 must be clear
        }
        let b = bytes([w0, w1, w2]);
        let v = compare(&mut d, Target::Gfx1250, &b);
        if v == Verdict::Match && decode(Target::Gfx1250, &b, 0).is_ok() {
            valid += 1;
        }
        tally.add(v);
    }
    println!(
        "gfx1250 VBUFFER: {} words, {} match ({} valid instructions), {} unsupported, {} mismatched",
        tally.total, tally.matched, valid, tally.unsupported, tally.mismatched
    );
    assert!(tally.examples.is_empty(), "mismatches:\n{}", tally.examples.join("\n"));
    assert_eq!(tally.unsupported, 0, "{:?}", tally.unsupported_examples);
    assert!(tally.total >= 20_000 && valid >= 10_000);
}
