//! gfx1250 WMMA-family instructions (dense WMMA, SWMMAC, f8f6f4, 32x16x128_f4, the scale
//! prefixes and the 16-byte scaled pairs) against LLVM: a random sweep of words over every
//! opcode in which ours equals LLVM's text and length, or both reject the word, or ours reports
//! it unsupported (SGPR or misaligned tuples, literals: never guessed). LLVM's own MC vectors
//! are in tests/data/gfx1250_dasm_wmma_w32.txt (run by tests/llvm_vectors.rs).
mod common;

use common::Rng;
use hx_isa::wmma::{Form, SHAPES};
use hx_isa::{decode, DecodeError, Target};
use hx_llvm::{Disassembler, GpuTarget};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A plausible word for `opcode`: aligned VGPR tuples, mostly valid modifier bits, a few stray
/// ones.
fn word(rng: &mut Rng, opcode: u32, form: Form) -> [u32; 2] {
    let even = |rng: &mut Rng| rng.below(128) * 2;
    let src = |rng: &mut Rng| if rng.below(8) == 0 { rng.below(512) } else { 256 + even(rng) };
    let (vdst, src2, hi_default, w0_default) = match form {
        Form::LdScale { .. } => (if rng.below(8) == 0 { rng.below(256) } else { 0 }, if rng.below(8) == 0 { rng.below(512) } else { 256 }, 0, 0),
        Form::F4x32 => (even(rng), src(rng), 3, 0x40),
        Form::F8f6f4 => (even(rng), src(rng), rng.below(4), rng.below(5) << 3 | rng.below(2) << 6),
        _ => (if rng.below(8) == 0 { rng.below(256) } else { even(rng) }, src(rng), 3, 0),
    };
    let c = match rng.below(4) {
        0 if form != Form::Sparse => 128 + rng.below(81),
        1 if form != Form::Sparse => 240 + rng.below(9),
        2 => rng.below(512),
        _ => src2,
    };
    let scale_src = |rng: &mut Rng| match rng.below(4) {
        0 => rng.below(106),
        1 => 128 + rng.below(81),
        2 => rng.below(512),
        _ => 256 + rng.below(256),
    };
    let (s0, s1) = match form {
        Form::LdScale { .. } => (scale_src(rng), scale_src(rng)),
        _ => (src(rng), src(rng)),
    };
    let ld = matches!(form, Form::LdScale { .. });
    let mods = match rng.below(6) {
        0 => rng.below(256),
        // The prefix's scale modifiers and reuse bits; the other forms' reuse bits.
        1 | 2 if ld => rng.below(256) & 0x6b,
        1 if form == Form::Dense || form == Form::Sparse => rng.below(4) << 5 | rng.below(2) << 3,
        _ => w0_default,
    };
    let w0 = 0xcc << 24 | opcode << 16 | mods << 8 | vdst;
    let hi = match rng.below(4) {
        0 if form != Form::F8f6f4 => rng.below(4),
        1 if ld => 1,
        _ => hi_default,
    };
    let neg_lo = match rng.below(3) {
        0 => rng.below(8),
        1 if ld => rng.below(3),
        _ => 0,
    };
    [w0, s0 | s1 << 9 | c << 18 | hi << 27 | neg_lo << 29]
}

/// LLVM 22 aborts on f8f6f4 formats 5..7 and crashes on some scalar or constant A/B of the
/// format-carrying opcodes: such words are never sent to it (ours reports them unsupported).
fn crashes_llvm(w: [u32; 2]) -> bool {
    let a = (w[0] >> 11) & 7;
    let b = (w[1] >> 27) & 3 | ((w[0] >> 14) & 1) << 2;
    let op = (w[0] >> 16) & 0xff;
    let scalar_ab = w[1] & 0x1ff < 256 || (w[1] >> 9) & 0x1ff < 256;
    (op == 0x33 && (a > 4 || b > 4)) || ((op == 0x33 || op == 0x88) && scalar_ab)
}

#[test]
fn random_wmma_words_match_llvm() {
    let mut d = Disassembler::new(GpuTarget::Gfx1250).expect("LLVM");
    let mut rng = Rng(0x3a77_1c_e5);
    let singles: Vec<_> = SHAPES.iter().filter(|s| hx_isa::wmma::by_opcode(s.opcode) == Some(*s)).collect();
    let (mut matched, mut invalid, mut unsupported, mut pairs) = (0u32, 0u32, 0u32, 0u32);
    let mut per_opcode = std::collections::BTreeMap::<&str, u32>::new();
    let mut mismatches = Vec::new();
    let mut total = 0;
    while total < 100_000 {
        let s = singles[rng.below(singles.len() as u32) as usize];
        let w = word(&mut rng, s.opcode as u32, s.form);
        if crashes_llvm(w) {
            continue;
        }
        let mut words = w.to_vec();
        if matches!(s.form, Form::LdScale { .. }) && rng.below(2) == 0 {
            let (op, form) = if rng.below(2) == 0 { (0x33, Form::F8f6f4) } else { (0x88, Form::F4x32) };
            let m = word(&mut rng, op, form);
            let wide = |w: [u32; 2]| w[0] as u64 | (w[1] as u64) << 32;
            if crashes_llvm(m) || hx_isa::wmma::pair_crashes_llvm(wide(w), wide(m)) {
                continue;
            }
            words.extend(m);
        } else {
            words.extend([rng.literal(), rng.literal()]);
        }
        total += 1;
        let b = bytes(&words);
        // A pair whose prefix has src2 = 128 (what Triton's newer LLVM writes) is beyond LLVM
        // 22.1's disassembler: its text must be LLVM's for the same pair with src2 = 256.
        let triton_form = matches!(words[0] >> 16, 0xcc35 | 0xcc3a) && words.len() == 4 && (words[1] >> 18) & 0x1ff == 128;
        let oracle = if triton_form { bytes(&[words[0], words[1] & !(0x1ff << 18) | 256 << 18, words[2], words[3]]) } else { b.clone() };
        let theirs = d.decode(&oracle, 0).filter(|(len, _)| !triton_form || *len == 16);
        let ours = decode(Target::Gfx1250, &b, 0);
        match (&theirs, &ours) {
            (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => {
                matched += 1;
                pairs += (*len == 16) as u32;
                *per_opcode.entry(i.mnemonic()).or_default() += 1;
            }
            (None, Err(e)) if e.is_invalid() => invalid += 1,
            (_, Err(DecodeError::Unsupported { .. })) => unsupported += 1,
            _ if mismatches.len() < 20 => mismatches.push(format!("{b:02x?}: llvm {theirs:?}, ours {:?}", ours.map(|i| (i.len, i.text())))),
            _ => {}
        }
    }
    println!("WMMA-family random words: {total}: {matched} match LLVM ({pairs} scaled pairs), {invalid} invalid for both, {unsupported} unsupported here");
    for (m, n) in &per_opcode {
        println!("    {m:40} {n}");
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(matched > 25_000);
    // Every mnemonic, the scaled pairs' included, was matched at least once.
    assert_eq!(per_opcode.len(), 45, "{:?}", per_opcode.keys());
}
