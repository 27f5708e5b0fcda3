//! GFX9 VOP3P against LLVM: the MAI table (every MFMA/SMFMAC shape's mnemonic and register
//! widths on gfx942 and gfx950), then random sweeps of MAI words, of the packed f32 ops
//! (v_pk_fma/mul/add_f32, v_pk_mov_b32) and of the AGPR moves (v_accvgpr_read/write_b32,
//! v_accvgpr_mov_b32) and of DS words with AGPR data (acc bit 25), each 20,000+ words per target: ours equals LLVM's text, or both reject the
//! word, or ours says unsupported (counted). Words on which LLVM 22 itself crashes
//! (`spec::oracle_crashes64`) are skipped.
//!
//! `cargo test -p hx-isa --test mai_decode -- --nocapture` prints the counts.
mod common;

use common::{compare, gpu, Rng, Verdict};
use hx_isa::{decode, mai::SHAPES, spec, Target};
use hx_llvm::Disassembler;

fn bytes(w0: u32, w1: u32, lit: u32) -> Vec<u8> {
    [w0, w1, lit, 0].iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn range(first: u32, n: u8) -> String {
    if n == 1 {
        format!("{first}")
    } else {
        format!("[{first}:{}]", first + n as u32 - 1)
    }
}

#[test]
fn every_shape_matches_llvm() {
    for target in [Target::Gfx942, Target::Gfx950] {
        let mut d = Disassembler::new(gpu(target)).expect("LLVM");
        let mut n = 0;
        for s in SHAPES.iter().filter(|s| s.on(target)) {
            for acc in [false, true] {
                let w0 = 0xd380_0000 | (s.opcode as u32) << 16 | (acc as u32) << 15 | 16;
                let w1 = 256 | (256 + 32) << 9 | (256 + 64) << 18;
                let b = bytes(w0, w1, 0);
                let (len, text) = d.decode(&b, 0).unwrap_or_else(|| panic!("{}: LLVM rejects", s.mnemonic));
                let f = if acc { "a" } else { "v" };
                let c = if s.sparse { "v64".to_string() } else { format!("{f}{}", range(64, s.cd_dwords())) };
                let want = format!(
                    "{} {f}{}, v{}, v{}, {c}",
                    s.mnemonic,
                    range(16, s.cd_dwords()),
                    range(0, s.a_dwords()),
                    range(32, s.b_dwords())
                );
                assert_eq!((len, text.as_str()), (8, want.as_str()), "{}", target.cpu());
                let ours = decode(target, &b, 0).unwrap_or_else(|e| panic!("{}: {e}", s.mnemonic));
                assert_eq!(ours.text(), want);
                assert_eq!(ours.mai().map(|m| m.shape), Some(s));
                n += 1;
            }
        }
        println!("{}: {n} MAI table forms match LLVM", target.cpu());
    }
}

/// A random 9-bit source: mostly VGPRs (often even), sometimes any encoding.
fn src(rng: &mut Rng) -> u32 {
    match rng.below(8) {
        0 => rng.below(256),
        1 => 240 + rng.below(16),
        2 => 256 + rng.below(256),
        _ => 256 + 2 * rng.below(128),
    }
}

struct Count {
    matched: u32,
    invalid: u32,
    unsupported: u32,
    skipped: u32,
    mismatches: Vec<String>,
}

fn sweep(target: Target, n: u32, seed: u64, mut word: impl FnMut(&mut Rng) -> (u32, u32)) -> Count {
    let mut d = Disassembler::new(gpu(target)).expect("LLVM");
    let mut rng = Rng(seed);
    let mut c = Count { matched: 0, invalid: 0, unsupported: 0, skipped: 0, mismatches: Vec::new() };
    let mut done = 0;
    while done < n {
        let (w0, w1) = word(&mut rng);
        let lit = rng.literal();
        if spec::oracle_crashes64(target, w0 as u64 | (w1 as u64) << 32, lit) {
            c.skipped += 1;
            continue;
        }
        done += 1;
        let b = bytes(w0, w1, lit);
        match compare(&mut d, target, &b) {
            Verdict::Match => {
                if d.decode(&b, 0).is_some() {
                    c.matched += 1
                } else {
                    c.invalid += 1
                }
            }
            Verdict::Unsupported(_) => c.unsupported += 1,
            Verdict::Mismatch(m) => {
                if c.mismatches.len() < 20 {
                    c.mismatches.push(m)
                }
            }
        }
    }
    c
}

fn report(what: &str, target: Target, c: &Count) -> usize {
    println!(
        "{} {what}: {} match LLVM, {} invalid for both, {} unsupported here, {} mismatched ({} crash words skipped)",
        target.cpu(),
        c.matched,
        c.invalid,
        c.unsupported,
        c.mismatches.len(),
        c.skipped
    );
    for m in &c.mismatches {
        println!("    mismatch: {m}");
    }
    c.mismatches.len()
}

#[test]
fn random_mai_words_match_llvm() {
    let mut bad = 0;
    for target in [Target::Gfx942, Target::Gfx950] {
        let shapes: Vec<_> = SHAPES.iter().filter(|s| s.on(target)).collect();
        let c = sweep(target, 30_000, 0x3a1_0000 ^ target as u64, |rng| {
            let s = shapes[rng.below(shapes.len() as u32) as usize];
            let vdst = if rng.below(4) == 0 { rng.below(256) } else { 2 * rng.below(128) };
            let mods = if rng.below(3) == 0 { rng.below(256) } else { 0 };
            let w0 = 0xd380_0000 | (s.opcode as u32) << 16 | mods << 8 | vdst;
            let c = if rng.below(4) == 0 { 128 + rng.below(128) } else { src(rng) };
            let hi = rng.below(8);
            let w1 = src(rng) | src(rng) << 9 | c << 18 | if rng.below(2) == 0 { 0 } else { hi << 27 };
            (w0, w1)
        });
        bad += report("MAI", target, &c);
        assert!(c.matched > 10_000);
    }
    assert_eq!(bad, 0);
}

/// VOP3P opcode words of the packed f32 ops (gfx942/gfx950 0x30..=0x33) and the AGPR moves
/// (0x58, 0x59), all fields random.
#[test]
fn random_pk_f32_and_accvgpr_words_match_llvm() {
    let mut bad = 0;
    for target in [Target::Gfx942, Target::Gfx950] {
        for (what, ops) in [("pk_f32", &[0x30u32, 0x31, 0x32, 0x33][..]), ("accvgpr read/write", &[0x58, 0x59][..])] {
            let c = sweep(target, 20_000, 0x9f32 ^ (target as u64) << 8 ^ ops[0] as u64, |rng| {
                let op = ops[rng.below(ops.len() as u32) as usize];
                // A quarter fully random; the rest with few modifier bits (op_sel_hi mostly the
                // default) so that valid words are frequent.
                if rng.below(4) == 0 {
                    return (0xd380_0000 | op << 16 | (rng.u32() & 0xffff), rng.u32());
                }
                let mods = if rng.below(3) == 0 { rng.u32() & 0xff00 } else { 0 };
                let w0 = 0xd380_0000 | op << 16 | mods | rng.below(256);
                let hi = if rng.below(3) == 0 { rng.below(32) } else { 3 };
                (w0, src(rng) | src(rng) << 9 | src(rng) << 18 | hi << 27)
            });
            bad += report(what, target, &c);
            assert!(c.matched > 5_000, "{what}");
        }
    }
    assert_eq!(bad, 0);
}

/// v_accvgpr_mov_b32 (VOP1 0x52 on gfx90a+): every vdst/src0 pair class.
#[test]
fn random_accvgpr_mov_words_match_llvm() {
    let mut bad = 0;
    for target in [Target::Gfx942, Target::Gfx950] {
        let c = sweep(target, 20_000, 0x52, |rng| {
            let w0 = 0x7e00_0000 | 0x52 << 9 | rng.below(256) << 17 | rng.below(512);
            (w0, rng.u32())
        });
        bad += report("v_accvgpr_mov_b32", target, &c);
    }
    assert_eq!(bad, 0);
}

/// gfx950 v_cvt_pk_bf16_f32 (VOP3 0x268), all fields random.
#[test]
fn random_cvt_pk_bf16_f32_words_match_llvm() {
    let c = sweep(Target::Gfx950, 20_000, 0x268, |rng| {
        let mods = if rng.below(2) == 0 { rng.u32() & 0xff00 } else { 0 };
        let w0 = 0xd000_0000 | 0x268 << 16 | mods | rng.below(256);
        let w1 = if rng.below(2) == 0 { rng.u32() } else { src(rng) | src(rng) << 9 | src(rng) << 18 | rng.below(32) << 27 };
        (w0, w1)
    });
    assert_eq!(report("v_cvt_pk_bf16_f32", Target::Gfx950, &c), 0);
    assert!(c.matched > 5_000);
}

/// GFX9 DS words with the acc bit (25) set: data and destination registers are AGPRs.
#[test]
fn random_ds_acc_words_match_llvm() {
    let mut bad = 0;
    for target in [Target::Gfx942, Target::Gfx950] {
        // Opcodes with a table entry; the fields an entry says must hold a value mostly hold it
        // (the generated input only; LLVM judges every word).
        let ops: Vec<&hx_isa::OpInfo> = hx_isa::tables::table(target, hx_isa::Format::Ds).iter().flatten().collect();
        let c = sweep(target, 20_000, 0xd5ac ^ target as u64, |rng| {
            let info = ops[rng.below(ops.len() as u32) as usize];
            let reg = |rng: &mut Rng| if rng.below(4) == 0 { rng.below(256) } else { 2 * rng.below(128) };
            let mut w = (0xd800_0000u32 | 1 << 25 | (info.opcode as u32) << 17 | (rng.u32() & 0xffff)) as u128;
            w |= ((reg(rng) | reg(rng) << 8 | reg(rng) << 16 | reg(rng) << 24) as u128) << 32;
            if rng.below(8) != 0 {
                for (f, u) in info.unused {
                    if let hx_isa::Unused::MustBe(v) = u {
                        w = f.insert(w, *v);
                    }
                }
            }
            (w as u32, (w >> 32) as u32)
        });
        bad += report("DS acc", target, &c);
        assert!(c.matched > 5_000);
    }
    assert_eq!(bad, 0);
}

/// gfx950 scaled MFMA: `v_mfma_ld_scale_b32` followed by an f8f6f4 MFMA word (abid 1 for most
/// words, so that most pairs form). Words with a literal scale source or (in a pair) a scalar
/// or constant A/B or a literal C (LLVM 22 aborts on many) and the MFMA words of `spec::oracle_crashes64` are
/// skipped.
#[test]
fn random_scaled_mfma_pairs_match_llvm() {
    let target = Target::Gfx950;
    let mut d = hx_llvm::Disassembler::new(gpu(target)).expect("LLVM");
    let mut rng = Rng(0x5ca1e);
    let (mut matched, mut invalid, mut unsupported, mut skipped, mut pairs) = (0u32, 0u32, 0u32, 0u32, 0u32);
    let mut mismatches = Vec::new();
    let mut done = 0;
    while done < 20_000 {
        let ld0 = 0xd3ac_0000 | if rng.below(2) == 0 { rng.u32() & 0xffff } else { rng.u32() & 0x1800 };
        let ld1 = src(&mut rng) | src(&mut rng) << 9 | rng.below(512) << 18 | if rng.below(2) == 0 { rng.below(32) << 27 } else { 3 << 27 };
        let op = if rng.below(2) == 0 { 0x2d } else { 0x2e };
        let abid = if rng.below(8) == 0 { rng.below(16) } else { 1 };
        let m0 = 0xd380_0000 | op << 16 | (rng.below(2) << 15) | abid << 11 | rng.below(8) << 8 | 2 * rng.below(128);
        let m1 = src(&mut rng) | src(&mut rng) << 9 | src(&mut rng) << 18 | rng.below(4) << 27 | rng.below(8) << 29;
        // LLVM 22 aborts on a literal scale source and (in a pair) on many scalar or constant
        // A/B encodings and on a literal C: not asked (ours reports them unsupported).
        let lit_scale = ld1 & 0x1ff == 255 || (ld1 >> 9) & 0x1ff == 255;
        let scalar_ab = m1 & 0x1ff < 256 || (m1 >> 9) & 0x1ff < 256 || (m1 >> 18) & 0x1ff == 255;
        if lit_scale || (abid == 1 && scalar_ab) || spec::oracle_crashes64(target, m0 as u64 | (m1 as u64) << 32, 0) {
            skipped += 1;
            continue;
        }
        done += 1;
        let b: Vec<u8> = [ld0, ld1, m0, m1, rng.literal(), 0].iter().flat_map(|w| w.to_le_bytes()).collect();
        if d.decode(&b, 0).is_some_and(|(len, _)| len == 16) {
            pairs += 1;
        }
        match compare(&mut d, target, &b) {
            Verdict::Match => {
                if d.decode(&b, 0).is_some() {
                    matched += 1
                } else {
                    invalid += 1
                }
            }
            Verdict::Unsupported(_) => unsupported += 1,
            Verdict::Mismatch(m) if mismatches.len() < 20 => mismatches.push(m),
            Verdict::Mismatch(_) => {}
        }
    }
    println!("gfx950 scaled MFMA pairs: {matched} match LLVM ({pairs} 16-byte pairs), {invalid} invalid for both, {unsupported} unsupported here, {} mismatched ({skipped} skipped)", mismatches.len());
    for m in &mismatches {
        println!("    mismatch: {m}");
    }
    assert!(mismatches.is_empty());
    assert!(pairs > 5_000);
}
