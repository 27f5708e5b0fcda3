//! Random sweeps against LLVM of the gfx1250 VALU families the table fit learned with the
//! masked op_sel / byte_sel kinds, the packed-f32 source type, the plain-integer 32-bit source
//! type and the 64-bit KImm: each class gets 20,000 random words (opcode, operand and modifier
//! fields, literal dwords) that must match LLVM exactly or be reported unsupported, and the
//! corpus words of these families decode.
//!
//! `cargo test -p hx-isa --test valu_families -- --nocapture` prints the per-class counts.

mod common;

use common::{compare, gpu, Rng, Verdict};
use hx_isa::Target;
use hx_llvm::Disassembler;

struct Class {
    name: &'static str,
    /// Fixed bits of dword 0 and the opcode shift.
    base: u32,
    shift: u32,
    opcodes: &'static [u32],
    /// Bytes of the fixed part (4: VOP2, 8: VOP3/VOP3P).
    len: usize,
}

const CLASSES: &[Class] = &[
    Class { name: "VOP3P packed f32", base: 0xcc00_0000, shift: 16, opcodes: &[0x1f, 0x28, 0x29], len: 8 },
    Class {
        name: "VOP3P packed 16-bit",
        base: 0xcc00_0000,
        shift: 16,
        opcodes: &[
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
            0x0f, 0x10, 0x11, 0x14, 0x15, 0x1b, 0x1c, 0x1d, 0x1e, 0x23, 0x2a, 0x2b, 0x2c,
        ],
        len: 8,
    },
    Class {
        name: "VOP3 fp8/bf8 conversions",
        base: 0xd400_0000,
        shift: 16,
        opcodes: &[
            0x1ec, 0x1ed, 0x1ee, 0x1ef, 0x1f5, 0x1f6, 0x1f7, 0x1f8, 0x369, 0x36a, 0x36b, 0x36c, 0x372,
            0x373, 0x374, 0x375,
        ],
        len: 8,
    },
    Class {
        name: "VOP3 16-bit op_sel",
        base: 0xd400_0000,
        shift: 16,
        opcodes: &[0x303, 0x304, 0x30d, 0x30e, 0x311, 0x312, 0x313, 0x367, 0x368, 0x1f2],
        len: 8,
    },
    Class { name: "VOP2 64-bit KImm", base: 0, shift: 25, opcodes: &[0x23, 0x24], len: 4 },
    Class {
        name: "VOP3 scaled fp8/fp6/fp4 cvt",
        base: 0xd400_0000,
        shift: 16,
        opcodes: &[
            0x297, 0x298, 0x299, 0x2b0, 0x2b3, 0x2b4, 0x2b5, 0x2b8, 0x2b9, 0x2bc, 0x2bf, 0x2c0, 0x2c1,
            0x2c2, 0x2c3, 0x2c4, 0x2c5, 0x2c6, 0x2cd, 0x2ce, 0x2cf, 0x2d0, 0x2d1, 0x2d2, 0x2d3, 0x2d4,
            0x2d5, 0x2d6, 0x2d7, 0x2d8,
        ],
        len: 8,
    },
];

fn sweep(llvm: &mut Disassembler, rng: &mut Rng, c: &Class, n: u32) -> (u32, u32, Vec<String>) {
    let (mut matched, mut unsupported, mut bad) = (0, 0, Vec::new());
    for _ in 0..n {
        let op = c.opcodes[rng.below(c.opcodes.len() as u32) as usize];
        let field_mask = if c.len == 4 { (1u32 << 25) - 1 } else { 0xffff };
        let w0 = c.base | (op << c.shift) | (rng.u32() & field_mask);
        let mut b = w0.to_le_bytes().to_vec();
        if c.len == 8 {
            let mut w1 = rng.u32();
            if rng.below(2) == 0 {
                // Half the words: VGPR sources and no neg bits, so that valid words with
                // modifiers are frequent.
                w1 &= !(7 << 29);
                w1 |= 0x100 | 0x100 << 9 | 0x100 << 18;
            }
            b.extend(w1.to_le_bytes());
        } else if rng.below(2) == 0 {
            // VOP2: half the words with a VGPR src0.
            let w = (w0 & !0x1ff) | 0x100 | (rng.u32() & 0xff);
            b = w.to_le_bytes().to_vec();
        }
        b.extend(rng.literal().to_le_bytes());
        b.extend(rng.literal().to_le_bytes());
        b.extend(0u32.to_le_bytes());
        match compare(llvm, Target::Gfx1250, &b) {
            Verdict::Match => matched += 1,
            Verdict::Unsupported(_) => unsupported += 1,
            Verdict::Mismatch(m) => bad.push(m),
        }
    }
    (matched, unsupported, bad)
}

#[test]
fn gfx1250_valu_family_sweeps() {
    let mut llvm = Disassembler::new(gpu(Target::Gfx1250)).expect("LLVM disassembler");
    let mut rng = Rng(0x7a1f_00d2_025);
    let mut bad = Vec::new();
    for c in CLASSES {
        let (m, u, b) = sweep(&mut llvm, &mut rng, c, 20_000);
        println!("gfx1250 {:<28}: 20000 words, {m} match, {u} unsupported, {} mismatched", c.name, b.len());
        // Most words of these families decode: a regression to "unsupported" shows here.
        assert!(m > 10_000, "{}: only {m} of 20000 words match LLVM", c.name);
        bad.extend(b);
    }
    assert!(bad.is_empty(), "decoder disagrees with LLVM: {:?}", &bad[..bad.len().min(5)]);
}

/// The corpus's words of these families (pk_f32, fp8_quant, dyn_lds) decode to LLVM's text.
#[test]
fn corpus_words_of_these_families() {
    let mut llvm = Disassembler::new(gpu(Target::Gfx1250)).expect("LLVM disassembler");
    let words: &[&[u8]] = &[
        // v_fmaak_f64 v[6:7], s[0:1], v[6:7], 0x400a666666666666
        &[0x00, 0x0c, 0x0c, 0x48, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x0a, 0x40],
        // v_cvt_pk_bf8_f32 v5, v0, v1
        &[0x05, 0x00, 0x6a, 0xd7, 0x00, 0x03, 0x02, 0x00],
    ];
    for w in words {
        let mut b = w.to_vec();
        b.extend([0u8; 8]);
        assert_eq!(compare(&mut llvm, Target::Gfx1250, &b), Verdict::Match, "{w:02x?}");
    }
}
