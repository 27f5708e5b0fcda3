//! GFX9 SDWA against LLVM: the list of opcodes with an SDWA form is LLVM's (regenerated here
//! and compared), and on a random sweep of SDWA words ours equals LLVM's text, or both reject
//! the word, or ours reports it unsupported (16-bit / 64-bit operand types, literals).
mod common;

use common::Rng;
use hx_isa::{decode, sdwa, DecodeError, Format, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(w0: u32, w1: u32) -> Vec<u8> {
    [w0, w1].iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn sdwa_opcode_lists_are_llvms() {
    for (target, gpu) in [(Target::Gfx942, GpuTarget::Gfx942), (Target::Gfx950, GpuTarget::Gfx950)] {
        let mut d = Disassembler::new(gpu).expect("LLVM");
        // src0 v2, dst_sel DWORD, UNUSED_PRESERVE, src0_sel WORD_1 (and src1_sel DWORD for VOP2).
        let probe = 2 | 6 << 8 | 2 << 11 | 5 << 16;
        let vop1: Vec<u16> = (0..256u32).filter(|op| d.decode(&bytes(0x3f << 25 | 1 << 17 | op << 9 | 249, probe), 0).is_some()).map(|o| o as u16).collect();
        let vop2: Vec<u16> = (0..62u32).filter(|op| d.decode(&bytes(op << 25 | 1 << 17 | 3 << 9 | 249, probe | 6 << 24), 0).is_some()).map(|o| o as u16).collect();
        let vopc: Vec<u16> = (0..256u32).filter(|op| d.decode(&bytes(0x3e << 25 | op << 17 | 3 << 9 | 249, 2 | 4 << 16 | 6 << 24), 0).is_some()).map(|o| o as u16).collect();
        let wantc: Vec<u16> = (0..256).filter(|&o| sdwa::has_sdwa(target, Format::Vopc, o)).collect();
        assert_eq!(vopc, wantc, "{target:?} VOPC");
        let want1: Vec<u16> = (0..256).filter(|&o| sdwa::has_sdwa(target, Format::Vop1, o)).collect();
        let want2: Vec<u16> = (0..62).filter(|&o| sdwa::has_sdwa(target, Format::Vop2, o)).collect();
        assert_eq!(vop1, want1, "{target:?} VOP1");
        assert_eq!(vop2, want2, "{target:?} VOP2");
    }
}

/// LLVM 22's disassembler aborts (SIGILL) on SDWA words with a reserved selection (sel 7,
/// dst_unused 3) or src0 field 255, found by bisecting random words with the CLI. A compare
/// (VOPC) has no dst_sel or dst_unused: those bits are its scalar destination.
fn llvm_aborts(w0: u32, w1: u32) -> bool {
    let sel = |lo: u32| (w1 >> lo) & 7;
    let dst = w0 >> 25 != 0x3e && (sel(8) == 7 || (w1 >> 11) & 3 == 3);
    dst || sel(16) == 7 || sel(24) == 7 || w1 & 0xff == 0xff
}

#[test]
fn random_sdwa_words_match_llvm() {
    for (target, gpu) in [(Target::Gfx942, GpuTarget::Gfx942), (Target::Gfx950, GpuTarget::Gfx950)] {
        let mut d = Disassembler::new(gpu).expect("LLVM");
        let mut rng = Rng(0x5d3a_0000 + target as u64);
        let (mut matched, mut invalid, mut unsupported) = (0u32, 0u32, 0u32);
        let mut mismatches = Vec::new();
        for _ in 0..30_000 {
            let w0 = if rng.below(3) == 0 {
                0x3f << 25 | rng.below(256) << 17 | rng.below(256) << 9 | 249
            } else if rng.below(3) == 0 {
                0x3e << 25 | rng.below(256) << 17 | rng.below(256) << 9 | 249
            } else {
                rng.below(62) << 25 | rng.below(256) << 17 | rng.below(256) << 9 | 249
            };
            let sel = |rng: &mut Rng| if rng.below(4) == 0 { rng.below(8) } else { rng.below(7) };
            let flags = if rng.below(3) == 0 { rng.u32() & 0xb8b8_e000 } else { 0 };
            let w1 = rng.below(256) | sel(&mut rng) << 8 | rng.below(3) << 11 | sel(&mut rng) << 16 | sel(&mut rng) << 24 | flags;
            let w1 = if w0 >> 25 == 0x3f && rng.below(4) != 0 { w1 & 0x00ff_ffff } else { w1 };
            let b = bytes(w0, w1);
            let ours = decode(target, &b, 0);
            if llvm_aborts(w0, w1) {
                // Reserved selections: ours rejects them; LLVM 22 cannot be asked.
                if w1 & 0xff != 0xff {
                    assert!(ours.is_err(), "{b:02x?}: {:?}", ours.map(|i| i.text()));
                }
                continue;
            }
            let theirs = d.decode(&b, 0);
            match (&theirs, &ours) {
                (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => matched += 1,
                (None, Err(e)) if e.is_invalid() => invalid += 1,
                (_, Err(DecodeError::Unsupported { .. })) => unsupported += 1,
                _ if mismatches.len() < 20 => mismatches.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| i.text()))),
                _ => {}
            }
        }
        println!("{target:?} SDWA random words: {matched} match LLVM, {invalid} invalid for both, {unsupported} unsupported here");
        assert!(mismatches.is_empty(), "{target:?}:\n{}", mismatches.join("\n"));
        assert!(matched > 5_000, "{target:?}: {matched}");
    }
}
