//! gfx1250 memory instructions decoded from the generated tables: VGLOBAL/VFLAT atomics (with and
//! without `th:TH_ATOMIC_RETURN`, every th/scope value, offsets, saddr/off, nv, scale_offset)
//! and the SMEM prefetches / s_atc_probe, each swept with 20,000 random words of those opcodes
//! against LLVM's disassembler; plus the corpus words that used to be unsupported.
//!
//! `cargo test -p hx-isa --test vflat_atomics -- --nocapture` prints the counts.

mod common;

use common::{compare, gpu, Rng, Tally, Verdict};
use hx_isa::{decode, spec, tables, Format, Target};
use hx_llvm::Disassembler;

const WORDS: u32 = 20_000;

fn atomic_opcodes(format: Format) -> Vec<u32> {
    tables::table(Target::Gfx1250, format)
        .iter()
        .flatten()
        .filter(|i| i.mnemonic.contains("_atomic_"))
        .map(|i| i.opcode as u32)
        .collect()
}

fn sweep(llvm: &mut Disassembler, format: Format, opcodes: &[u32], seed: u64) -> (Tally, u64) {
    let (mask, m, shift, width) = spec::format_encoding(Target::Gfx1250.family(), format).unwrap();
    let len = spec::format_len(Target::Gfx1250.family(), format);
    let opmask = ((1u32 << width) - 1) << shift;
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    let mut returning = 0u64;
    for _ in 0..WORDS {
        let op = opcodes[rng.below(opcodes.len() as u32) as usize];
        let mut w0 = (rng.u32() & !mask & !opmask) | m | (op << shift);
        let mut w1 = rng.u32();
        if format != Format::Smem {
            // Half the words with saddr `off`, and sve (bit 49) mostly clear (it must be).
            if rng.below(2) == 0 {
                w0 = (w0 & !0x7f) | 124;
            }
            if rng.below(8) != 0 {
                w1 &= !(1 << 17);
            }
        }
        let mut b = w0.to_le_bytes().to_vec();
        b.extend(w1.to_le_bytes());
        b.extend(rng.u32().to_le_bytes());
        b.extend(rng.literal().to_le_bytes());
        let v = compare(llvm, Target::Gfx1250, &b);
        if v == Verdict::Match && format != Format::Smem {
            if let Ok(i) = decode(Target::Gfx1250, &b[..len + 4], 0) {
                if i.vf_cpol().is_some_and(|c| c.returns()) {
                    returning += 1;
                }
            }
        }
        t.add(v);
    }
    (t, returning)
}

#[test]
fn atomics_and_smem_prefetches_match_llvm() {
    let mut llvm = Disassembler::new(gpu(Target::Gfx1250)).expect("LLVM disassembler");
    let mut bad = Vec::new();
    for (format, opcodes) in [
        (Format::Global, atomic_opcodes(Format::Global)),
        (Format::Flat, atomic_opcodes(Format::Flat)),
        (Format::Smem, (0x22..=0x28).collect::<Vec<u32>>()),
    ] {
        let (t, returning) = sweep(&mut llvm, format, &opcodes, 0xa70_1250 ^ format as u64);
        println!(
            "gfx1250 {:6} ({} opcodes): {} words, {} match ({} returning atomics), {} unsupported, {} mismatched",
            format.name(),
            opcodes.len(),
            t.total,
            t.matched,
            returning,
            t.unsupported,
            t.mismatched
        );
        for e in t.examples.iter().chain(&t.unsupported_examples) {
            println!("    {e}");
        }
        assert!(t.matched > WORDS as u64 / 4, "{}: too few valid words decoded", format.name());
        if format != Format::Smem {
            assert!(returning > 1000, "{}: returning atomics decoded", format.name());
        }
        if t.mismatched + t.unsupported > 0 {
            bad.push(format!("{}: {} mismatched, {} unsupported", format.name(), t.mismatched, t.unsupported));
        }
    }
    // 36 global and 36 flat atomic opcodes: LLVM 22's whole VGLOBAL/VFLAT atomic space.
    assert_eq!(atomic_opcodes(Format::Global).len(), 36);
    assert_eq!(atomic_opcodes(Format::Flat).len(), 36);
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn corpus_words_decode_as_llvm_prints_them() {
    let mut llvm = Disassembler::new(gpu(Target::Gfx1250)).expect("LLVM disassembler");
    let words: [&[u8]; 4] = [
        // cache_policy: s_prefetch_data s[4:5], 0x0, null, 31
        &[0xc2, 0xc7, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8],
        // global_atomic_add_u32 v10, v2, v20, s[2:3] th:TH_ATOMIC_RETURN
        &[0x02, 0x40, 0x0d, 0xee, 0x0a, 0x00, 0x10, 0x0a, 0x02, 0x00, 0x00, 0x00],
        // global_atomic_add_u32 v2, v20, s[2:3] th:TH_ATOMIC_CASCADE_RT scope:SCOPE_DEV
        &[0x02, 0x40, 0x0d, 0xee, 0x0a, 0x00, 0x48, 0x0a, 0x02, 0x00, 0x00, 0x00],
        // flat_atomic_cmpswap_b64 v[2:3], v[4:5], v[6:9] offset:2047 th:TH_ATOMIC_RETURN
        &[0x7c, 0x80, 0x10, 0xec, 0x02, 0x00, 0x10, 0x03, 0x04, 0xff, 0x07, 0x00],
    ];
    for w in words {
        assert_eq!(compare(&mut llvm, Target::Gfx1250, w), Verdict::Match, "{w:02x?}");
    }
    let i = decode(Target::Gfx1250, words[0], 0).unwrap();
    assert_eq!(i.text(), "s_prefetch_data s[4:5], 0x0, null, 31");
    let rtn = decode(Target::Gfx1250, words[1], 0).unwrap();
    assert!(rtn.vf_cpol().unwrap().returns());
    let no_rtn = decode(Target::Gfx1250, words[2], 0).unwrap();
    assert!(!no_rtn.vf_cpol().unwrap().returns());
    assert_eq!(no_rtn.vf_cpol().unwrap().scope, hx_isa::cpol::Scope::Dev);
}
