//! GFX9 MUBUF against LLVM: the opcode list (`hx_isa::mubuf::OPS`) is LLVM's, opcode by opcode
//! (mnemonic, and whether the lds form exists), and on a random sweep of MUBUF words ours equals
//! LLVM's text or both reject the word. Words with a literal soffset (255) are skipped: LLVM 22
//! crashes on them (a segmentation fault), and ours reports them unsupported.
mod common;

use common::{compare, Rng, Tally, Verdict};
use hx_isa::{decode, mubuf, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(w0: u32, w1: u32) -> Vec<u8> {
    [w0, w1].iter().flat_map(|w| w.to_le_bytes()).collect()
}

const TARGETS: [(Target, GpuTarget); 2] = [(Target::Gfx942, GpuTarget::Gfx942), (Target::Gfx950, GpuTarget::Gfx950)];

#[test]
fn mubuf_opcode_list_is_llvms() {
    for (target, gpu) in TARGETS {
        let mut d = Disassembler::new(gpu).expect("LLVM");
        for op in 0..128u32 {
            for lds in [0, 1] {
                let b = bytes(0xe000_0000 | op << 18 | lds << 16, 0x0a0b_0c0d);
                let llvm = d.decode(&b, 0).map(|(_, t)| t.split_whitespace().next().unwrap_or("").to_string());
                let ours = decode(target, &b, 0).ok().map(|i| i.mnemonic().to_string());
                assert_eq!(ours, llvm, "{target:?} opcode {op:#x} lds {lds}");
            }
        }
        assert!(mubuf::by_opcode(target, 0x28).is_some_and(|o| o.1 == "buffer_wbl2"));
    }
}

#[test]
fn random_mubuf_words_match_llvm() {
    for (target, gpu) in TARGETS {
        let mut d = Disassembler::new(gpu).expect("LLVM");
        let mut rng = Rng(0x3b0f_0000 + target as u64);
        let mut tally = Tally::default();
        let (mut valid, mut literal) = (0u32, 0u32);
        for _ in 0..24_000 {
            // Mostly opcodes LLVM knows; lds and acc set now and then (each makes many invalid).
            let op = if rng.below(4) != 0 { mubuf::OPS[rng.below(mubuf::OPS.len() as u32) as usize].0 as u32 } else { rng.below(128) };
            let lds = (rng.below(6) == 0) as u32;
            let w0 = 0xe000_0000 | op << 18 | lds << 16 | rng.u32() & 0x0202_efff;
            let mut w1 = rng.u32();
            if rng.below(2) == 0 {
                w1 &= !(1 << 23); // acc
            }
            if rng.below(3) == 0 {
                // Register soffsets and resources (most random fields are constants).
                w1 = (w1 & 0x00e0_ffff) | rng.below(108) << 24 | rng.below(26) << 16;
            }
            let b = bytes(w0, w1);
            if w1 >> 24 == 255 && !matches!(op, 0x28 | 0x29) {
                literal += 1;
                assert!(decode(target, &b, 0).is_err(), "{b:02x?}");
                continue;
            }
            let v = compare(&mut d, target, &b);
            if v == Verdict::Match && decode(target, &b, 0).is_ok() {
                valid += 1;
            }
            tally.add(v);
        }
        println!(
            "{target:?} MUBUF: {} words, {} match ({} valid instructions), {} unsupported, {} mismatched; {} literal soffsets skipped",
            tally.total, tally.matched, valid, tally.unsupported, tally.mismatched, literal
        );
        assert!(tally.examples.is_empty(), "{target:?} mismatches:\n{}", tally.examples.join("\n"));
        assert_eq!(tally.unsupported, 0, "{:?}", tally.unsupported_examples);
        assert!(tally.total >= 20_000 && valid >= 10_000);
    }
}
