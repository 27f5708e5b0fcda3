//! Differential tests against LLVM's disassembler: a deterministic random sweep of each modelled
//! format of each target. Every word must get the same validity verdict, length and text as LLVM,
//! or be reported by this crate as unsupported (counted, printed, never wrong).
//!
//! `cargo test -p hx-isa --test differential -- --nocapture` prints the match rates;
//! `HX_ISA_SWEEP=200000 cargo test -p hx-isa --test differential -- --ignored` runs the big sweep.

mod common;

use common::{compare, gpu, Rng, Tally};
use hx_isa::{spec, Format, Target};
use hx_llvm::Disassembler;

const FORMATS: [Format; 15] = [
    Format::Sop1,
    Format::Sop2,
    Format::Sopk,
    Format::Sopc,
    Format::Sopp,
    Format::Vop1,
    Format::Vop2,
    Format::Vopc,
    Format::Smem,
    Format::Vop3,
    Format::Vop3p,
    Format::Ds,
    Format::Global,
    Format::Scratch,
    Format::Flat,
];

/// A random instruction buffer of `format`: the format's fixed bits, random opcode and fields,
/// then three literal-ish dwords.
fn random_word(rng: &mut Rng, target: Target, format: Format) -> u32 {
    let (mask, m, shift, width) =
        spec::format_encoding(target.family(), format).expect("modelled format");
    let count = spec::opcode_count(target.family(), format);
    let op = rng.below(count);
    let opmask = ((1u32 << width) - 1) << shift;
    let mut w = (rng.u32() & !mask & !opmask) | m | (op << shift);
    // Bias source fields towards the interesting encodings (constants, specials, literals).
    if matches!(format, Format::Sop1 | Format::Sop2 | Format::Sopc) && rng.below(4) == 0 {
        let v = 106 + rng.below(150);
        w = (w & !0xff) | v;
    }
    if matches!(format, Format::Sop2 | Format::Sopc) && rng.below(4) == 0 {
        let v = 106 + rng.below(150);
        w = (w & !0xff00) | (v << 8);
    }
    // VOP3: the 64-bit formats take dword 1 from the next random dword (see `sweep`).
    // VOP src0: half VGPRs, else biased towards the scalar special encodings.
    if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc) && rng.below(4) == 0 {
        let v = 106 + rng.below(150);
        w = (w & !0x1ff) | v;
    }
    w
}

fn sweep(target: Target, format: Format, n: u32, seed: u64) -> Tally {
    let mut llvm = Disassembler::new(gpu(target)).expect("LLVM disassembler");
    let mut rng = Rng(seed ^ (format as u64) << 32 ^ (target as u64) << 48 | 1);
    let mut t = Tally::default();
    let mut buf = [0u8; 16];
    let mut done = 0;
    while done < n {
        let w = random_word(&mut rng, target, format);
        buf[0..4].copy_from_slice(&w.to_le_bytes());
        for i in 1..4 {
            let l = rng.literal();
            buf[4 * i..4 * i + 4].copy_from_slice(&l.to_le_bytes());
        }
        let d1 = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
        let d2 = u32::from_le_bytes([buf[8], buf[9], buf[10], buf[11]]);
        let lit = if spec::format_len(target.family(), format) == 8 {
            d2
        } else {
            d1
        };
        if spec::oracle_crashes64(target, w as u64 | (d1 as u64) << 32, lit) {
            continue;
        }
        // DPP/SDWA are other formats (not modelled; LLVM 22 also aborts on some SDWA words).
        if spec::vop_extension(target, w).is_some() {
            continue;
        }
        t.add(compare(&mut llvm, target, &buf));
        done += 1;
    }
    t
}

fn report(target: Target, format: Format, t: &Tally) {
    println!(
        "{:8} {:5}: {:6} words, {:6.2}% match, {:5} unsupported, {:5} mismatched",
        target.cpu(),
        format.name(),
        t.total,
        t.rate(),
        t.unsupported,
        t.mismatched
    );
    for e in &t.examples {
        println!("    mismatch: {e}");
    }
}

fn run(n: u32) {
    let mut bad = Vec::new();
    for target in Target::ALL {
        for format in FORMATS {
            if !spec::modelled(target, format) {
                continue;
            }
            let t = sweep(target, format, n, 0x5eed);
            report(target, format, &t);
            if t.mismatched > 0 {
                bad.push(format!(
                    "{} {}: {} mismatches",
                    target.cpu(),
                    format.name(),
                    t.mismatched
                ));
            }
        }
    }
    assert!(bad.is_empty(), "decoder disagrees with LLVM: {bad:?}");
}

#[test]
fn random_sweep_scalar_formats() {
    run(20_000);
}

#[test]
#[ignore = "big sweep: set HX_ISA_SWEEP for the count per format"]
fn random_sweep_big() {
    let n = std::env::var("HX_ISA_SWEEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    run(n);
}

/// gfx1250 VOP3 ops with SGPR-only operands: v_writelane_b32 (0x361) and the f32 v_s_* ops
/// (0x280..=0x288 even). Random operand and modifier fields (plus a literal dword) must agree
/// with LLVM, and wave_ballot's v_writelane_b32 word decodes.
#[test]
fn sgpr_operand_vop3_sweep() {
    let mut llvm = Disassembler::new(gpu(Target::Gfx1250)).expect("LLVM disassembler");
    let corpus = [0x03u8, 0x00, 0x61, 0xd7, 0x03, 0x0e, 0x01, 0x00];
    assert_eq!(compare(&mut llvm, Target::Gfx1250, &corpus), common::Verdict::Match);
    let mut rng = Rng(0x3611_2025);
    let mut bad = Vec::new();
    for op in [0x361u32, 0x280, 0x282, 0x284, 0x286, 0x288] {
        let (mut matched, mut unsupported) = (0u32, 0u32);
        for _ in 0..20_000 {
            let w0 = 0xd400_0000 | (op << 16) | (rng.u32() & 0xffff);
            let mut b = w0.to_le_bytes().to_vec();
            b.extend(rng.u32().to_le_bytes());
            b.extend(rng.literal().to_le_bytes());
            match compare(&mut llvm, Target::Gfx1250, &b) {
                common::Verdict::Match => matched += 1,
                common::Verdict::Unsupported(_) => unsupported += 1,
                common::Verdict::Mismatch(m) => bad.push(m),
            }
        }
        println!("gfx1250 VOP3 {op:#x}: 20000 words, {matched} match, {unsupported} unsupported");
    }
    assert!(bad.is_empty(), "decoder disagrees with LLVM: {:?}", &bad[..bad.len().min(5)]);
}
