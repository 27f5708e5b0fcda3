//! gfx1250 tensor_load_to_lds / tensor_store_from_lds against LLVM's disassembler: LLVM's MC
//! vectors, a sweep of well-formed words (every one must decode, with LLVM's text), and a sweep
//! of words with random bits flipped (ours equals LLVM's text, or we report unsupported).
mod common;

use common::{compare, Rng, Tally, Verdict};
use hx_isa::{decode, tensor, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(w: [u32; 3]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn mc_vectors() {
    // gfx1250_asm_vimage.s (dword 1's 0x7c byte is what LLVM 22's disassembler requires).
    let cases: &[([u32; 3], &str)] = &[
        ([0xd071_0001, 0x7c00_0000, 0x7c7c_0400], "tensor_load_to_lds s[0:3], s[4:11]"),
        ([0xd071_0001, 0x7c3c_0000, 0x7c7c_0400], "tensor_load_to_lds s[0:3], s[4:11] th:TH_LOAD_BYPASS scope:SCOPE_SYS"),
        ([0xd071_0001, 0x7c00_0000, 0x100c_0400], "tensor_load_to_lds s[0:3], s[4:11], s[12:15], s[16:19]"),
        ([0xd071_0001, 0x7c68_0000, 0x100c_0400], "tensor_load_to_lds s[0:3], s[4:11], s[12:15], s[16:19] th:TH_LOAD_NT_HT scope:SCOPE_DEV"),
        ([0xd071_4001, 0x7c00_0000, 0x7c7c_0400], "tensor_store_from_lds s[0:3], s[4:11]"),
        ([0xd071_4001, 0x7c3c_0000, 0x7c7c_0400], "tensor_store_from_lds s[0:3], s[4:11] th:TH_STORE_BYPASS scope:SCOPE_SYS"),
        ([0xd071_4001, 0x7c68_0000, 0x100c_0400], "tensor_store_from_lds s[0:3], s[4:11], s[12:15], s[16:19] th:TH_STORE_NT_HT scope:SCOPE_DEV"),
    ];
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    for (w, text) in cases {
        let b = bytes(*w);
        assert_eq!(d.decode(&b, 0).map(|(_, t)| t), Some(text.to_string()));
        let i = decode(Target::Gfx1250, &b, 0).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!((i.len, i.text()), (12, text.to_string()));
        let t = i.tensor().expect("tensor fields");
        assert_eq!(t.group0.index, 0);
        assert_eq!(t.group1.index, 4);
        assert_eq!(t.group2.is_some(), w[2] >> 16 != 0x7c7c);
    }
}

#[test]
fn well_formed_words_decode_as_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x7e25_0c4d);
    let mut tally = Tally::default();
    for _ in 0..4000 {
        let w0 = if rng.below(2) == 0 { tensor::LOAD_WORD } else { tensor::STORE_WORD } | rng.below(2) << 7;
        let w1 = 0x7c00_0000 | rng.below(32) << 18;
        let g = |rng: &mut Rng, n: u32| rng.below(106 / n) * n;
        let (g0, g1) = (g(&mut rng, 4), rng.below(25) * 4);
        let (g2, g3) = if rng.below(2) == 0 { (124, 124) } else { (g(&mut rng, 4), g(&mut rng, 4)) };
        let b = bytes([w0, w1, g0 | g1 << 8 | g2 << 16 | g3 << 24]);
        let v = compare(&mut d, Target::Gfx1250, &b);
        assert_eq!(v, Verdict::Match, "{b:02x?}");
        tally.add(v);
    }
    println!("tensor well-formed: {} words, {} match", tally.total, tally.matched);
}

#[test]
fn perturbed_words_match_llvm_or_are_unsupported() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x7e25_0c4e);
    let mut tally = Tally::default();
    for _ in 0..20_000 {
        // Register bytes below 0x80 and dword-0 flips in bits 8:0: LLVM 22's disassembler crashes
        // on some words outside that (invalid register immediates, other VIMAGE opcodes).
        let mut w = [if rng.below(2) == 0 { tensor::LOAD_WORD } else { tensor::STORE_WORD }, 0x7c00_0000 | rng.below(32) << 18, 0];
        let (g2, g3) = if rng.below(2) == 0 { (124, 124) } else { (rng.below(26) * 4, rng.below(26) * 4) };
        w[2] = (rng.below(26) * 4) | (rng.below(25) * 4) << 8 | g2 << 16 | g3 << 24;
        for _ in 0..rng.below(3) {
            match rng.below(3) {
                0 => w[0] ^= 1 << rng.below(9),
                1 => w[1] ^= 1 << rng.below(32),
                _ => w[2] ^= 1 << rng.below(32) & 0x7f7f_7f7f,
            }
        }
        tally.add(compare(&mut d, Target::Gfx1250, &bytes(w)));
    }
    println!(
        "tensor perturbed: {} words, {} match, {} unsupported, {} mismatched",
        tally.total, tally.matched, tally.unsupported, tally.mismatched
    );
    assert!(tally.examples.is_empty(), "mismatches:\n{}", tally.examples.join("\n"));
    assert!(tally.matched >= 200, "too few decoded words to mean anything");
}
