//! DPP against LLVM: the lists of opcodes with a DPP form are LLVM's (regenerated here by
//! probing every opcode with several controls, and compared), and on a random sweep of DPP words
//! (at least 100,000 per family) ours equals LLVM's text, or both reject the word, or ours reports
//! it unsupported. `cargo test -p hx-isa --test dpp_decode -- --nocapture` prints the counts.
mod common;

use common::{compare, gpu, Rng, Tally};
use hx_isa::{dpp, tables, Format, Target};
use hx_llvm::Disassembler;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A DPP16 dword: src0 v2, the control, row/bank masks all on.
fn dpp16(ctrl: u32) -> u32 {
    2 | ctrl << 8 | 0xff << 24
}

/// A DPP8 dword: src0 v2, lanes reversed in each group of 8.
fn dpp8() -> u32 {
    2 | (0..8u32).fold(0, |a, k| a | (7 - k) << (3 * k)) << 8
}

/// The word of `format`/`op` on `target` with src0 = `marker` (the VOP3 form: src1 v6, src2 v8
/// where the entry has them) and its DPP dword.
fn probe_words(target: Target, format: Format, op: u32, marker: u32, ext: u32) -> Vec<u32> {
    match format {
        Format::Vop1 => vec![0x3f << 25 | 4 << 17 | op << 9 | marker, ext],
        Format::Vop2 => vec![op << 25 | 4 << 17 | 6 << 9 | marker, ext],
        Format::Vopc => vec![0x3e << 25 | op << 17 | 6 << 9 | marker, ext],
        _ => {
            let e = tables::table(target, Format::Vop3)[op as usize].as_ref().expect("entry");
            let has = |f: hx_isa::Field| e.operands.iter().any(|o| o.field == f);
            let s1 = if has(hx_isa::Field::Vop3Src1) { 262 } else { 0 };
            let s2 = if has(hx_isa::Field::Vop3Src2) { 264 } else { 0 };
            vec![0xd4 << 24 | op << 16 | 4, marker | s1 << 9 | s2 << 18, ext]
        }
    }
}

/// Which opcodes LLVM decodes with every probed control (all), with some only (partial).
fn llvm_lists(target: Target, format: Format) -> (Vec<u16>, Vec<u16>) {
    let mut d = Disassembler::new(gpu(target)).expect("LLVM");
    let ctrls: &[u32] = if target == Target::Gfx1250 { &[0x1b, 0x101, 0x11f, 0x140, 0x151, 0x161] } else { &[0x1b, 0x101, 0x11f, 0x130, 0x140, 0x142, 0x151] };
    let (mut all, mut partial) = (Vec::new(), Vec::new());
    for (op, e) in tables::table(target, format).iter().enumerate() {
        if e.is_none() {
            continue;
        }
        let mut probes: Vec<Vec<u32>> = ctrls.iter().map(|&c| probe_words(target, format, op as u32, dpp::DPP16, dpp16(c))).collect();
        if target == Target::Gfx1250 {
            probes.push(probe_words(target, format, op as u32, dpp::DPP8, dpp8()));
        }
        let ok = probes.iter().filter(|w| d.decode(&bytes(w), 0).is_some()).count();
        if ok == probes.len() {
            all.push(op as u16);
        } else if ok > 0 {
            partial.push(op as u16);
        }
    }
    (all, partial)
}

fn hex_list(v: &[u16]) -> String {
    v.iter().map(|o| format!("{o:#04x}")).collect::<Vec<_>>().join(", ")
}

#[test]
fn dpp_opcode_lists_are_llvms() {
    let mut bad = Vec::new();
    for target in Target::ALL {
        let formats: &[Format] = if target == Target::Gfx1250 { &[Format::Vop1, Format::Vop2, Format::Vopc, Format::Vop3] } else { &[Format::Vop1, Format::Vop2, Format::Vopc] };
        for &format in formats {
            let (all, partial) = llvm_lists(target, format);
            let ours: Vec<u16> = dpp::dpp_opcodes(target, format).to_vec();
            let ours_partial: Vec<u16> = dpp::DPP_PARTIAL.iter().filter(|p| p.0 == target && p.1 == format).map(|p| p.2).collect();
            println!("{target:?} {format:?}: {} opcodes with a DPP form, {} with some controls only", all.len(), partial.len());
            if all != ours {
                bad.push(format!("pub const DPP_{}_{}: &[u16] = &[{}];", target.cpu().to_uppercase(), format.name().replace('_', ""), hex_list(&all)));
            }
            if partial != ours_partial {
                bad.push(format!("partial {target:?} {format:?}: [{}]", hex_list(&partial)));
            }
        }
    }
    assert!(bad.is_empty(), "LLVM's lists differ:\n{}", bad.join("\n"));
}

/// A random DPP word of `target` (biased to opcodes with a DPP form and to named controls).
fn random_dpp(rng: &mut Rng, target: Target) -> Vec<u32> {
    let gfx1250 = target == Target::Gfx1250;
    let formats: &[Format] = if gfx1250 { &[Format::Vop1, Format::Vop2, Format::Vopc, Format::Vop3, Format::Vop3] } else { &[Format::Vop1, Format::Vop2, Format::Vop2, Format::Vopc] };
    let format = formats[rng.below(formats.len() as u32) as usize];
    let list = dpp::dpp_opcodes(target, format);
    let op = if !list.is_empty() && rng.below(8) != 0 {
        list[rng.below(list.len() as u32) as usize] as u32
    } else {
        match format {
            Format::Vop1 | Format::Vopc => rng.below(256),
            Format::Vop2 => rng.below(62),
            _ => rng.below(1024),
        }
    };
    let marker = if !gfx1250 || rng.below(4) != 0 { dpp::DPP16 } else if rng.below(2) == 0 { dpp::DPP8 } else { dpp::DPP8_FI };
    let ext = if marker == dpp::DPP16 {
        const NAMED: [u32; 12] = [0x1b, 0xe4, 0x4e, 0x101, 0x10f, 0x111, 0x123, 0x140, 0x141, 0x153, 0x161, 0x142];
        let ctrl = match rng.below(4) {
            0 => rng.below(512),
            1 => NAMED[rng.below(12) as usize],
            _ => rng.below(0x170),
        };
        // Bits 23:17 (reserved, FI, bound_ctrl, neg/abs) set now and then.
        let flags = if rng.below(3) == 0 { rng.u32() & 0x00fe_0000 } else { rng.u32() & 0x000e_0000 };
        let masks = if rng.below(2) == 0 { 0xff } else { rng.below(256) };
        rng.below(256) | ctrl << 8 | flags | masks << 24
    } else {
        rng.u32() & !0xff | rng.below(256)
    };
    let reg = |rng: &mut Rng| if rng.below(4) == 0 { rng.below(512) } else { 256 + rng.below(256) };
    match format {
        Format::Vop1 => vec![0x3f << 25 | rng.below(256) << 17 | op << 9 | marker, ext],
        Format::Vop2 => vec![op << 25 | rng.below(256) << 17 | rng.below(256) << 9 | marker, ext],
        Format::Vopc => vec![0x3e << 25 | op << 17 | rng.below(256) << 9 | marker, ext],
        _ => {
            // VOP3: destination, op_sel/clamp/abs (bits 15:8) and neg/omod now and then.
            let mods = if rng.below(3) == 0 { rng.below(256) } else { 0 };
            let hi = if rng.below(3) == 0 { rng.below(8) } else { 0 };
            let w0 = 0xd4 << 24 | op << 16 | mods << 8 | rng.below(256);
            let (s1, s2) = (reg(rng), if rng.below(2) == 0 { 0 } else { reg(rng) });
            vec![w0, marker | s1 << 9 | s2 << 18 | hi << 29, ext]
        }
    }
}

#[test]
fn random_dpp_words_match_llvm() {
    for (family, targets, n) in [("gfx1250", &[Target::Gfx1250][..], 120_000), ("gfx9", &[Target::Gfx942, Target::Gfx950][..], 60_000)] {
        let mut fam = Tally::default();
        let mut fam_decoded = 0u64;
        for &target in targets {
            let mut d = Disassembler::new(gpu(target)).expect("LLVM");
            let mut rng = Rng(0xd1_9900_0000 + target as u64);
            let mut t = Tally::default();
            let mut decoded = 0u64;
            for _ in 0..n {
                let mut b = bytes(&random_dpp(&mut rng, target));
                // Room for a literal LLVM might read: ours must not read it either.
                let len = b.len();
                b.extend_from_slice(&rng.u32().to_le_bytes());
                let v = compare(&mut d, target, &b[..len + 4]);
                if v == common::Verdict::Match && d.decode(&b[..len + 4], 0).is_some() {
                    decoded += 1;
                }
                t.add(v);
            }
            println!("{target:?} DPP random words: {} words, {} match LLVM ({decoded} decoded with the same text, the rest invalid for both), {} unsupported here, {} mismatches", t.total, t.matched, t.unsupported, t.mismatched);
            for e in &t.unsupported_examples {
                println!("    unsupported, e.g. LLVM {e}");
            }
            assert!(t.examples.is_empty(), "{target:?}:\n{}", t.examples.join("\n"));
            fam.total += t.total;
            fam.matched += t.matched;
            fam.unsupported += t.unsupported;
            fam_decoded += decoded;
        }
        println!("{family}: {} DPP words swept, {} match LLVM ({fam_decoded} decoded), {} unsupported", fam.total, fam.matched, fam.unsupported);
        assert!(fam.total >= 100_000);
        assert!(fam.matched * 2 > fam.total, "{family}: only {} of {} match", fam.matched, fam.total);
    }
}

/// ds_swizzle_b32: every 16-bit pattern on every target prints as LLVM prints it (swizzle(...)
/// forms), and words with the other DS bits set agree in validity.
#[test]
fn ds_swizzle_every_offset_matches_llvm() {
    for target in Target::ALL {
        let mut d = Disassembler::new(gpu(target)).expect("LLVM");
        let (w0_base, opcode_shift, op) = if target == Target::Gfx1250 { (0xd800_0000u32, 18, 0x35u32) } else { (0xd800_0000, 17, 0x3d) };
        let mut t = Tally::default();
        let mut rng = Rng(0x5e_1a2e + target as u64);
        for offset in 0..=0xffffu32 {
            let w0 = w0_base | op << opcode_shift | offset;
            let w1 = rng.below(256) | rng.below(256) << 24;
            t.add(compare(&mut d, target, &bytes(&[w0, w1])));
        }
        // Random other bits (gds / bits 17:16, data fields).
        for _ in 0..20_000 {
            let w0 = w0_base | op << opcode_shift | (rng.u32() & 0x3_0000) | rng.below(0x10000);
            let w1 = if rng.below(2) == 0 { rng.u32() } else { rng.below(256) | rng.below(256) << 24 };
            t.add(compare(&mut d, target, &bytes(&[w0, w1])));
        }
        println!("{target:?} ds_swizzle_b32: {} words (all 65536 offsets), {} match LLVM, {} unsupported", t.total, t.matched, t.unsupported);
        assert!(t.examples.is_empty(), "{target:?}:\n{}", t.examples.join("\n"));
        assert_eq!(t.unsupported, 0);
    }
}
