//! gfx1250 matrix instructions (wave32): dense WMMA, sparse SWMMAC, the f8f6f4 and 32x16x128_f4
//! forms with matrix formats, the scale prefixes (v_wmma_ld_scale*_paired_*) and the 16-byte
//! scaled forms they make with the next WMMA word (v_wmma_scale*_f32_*).
//!
//! The table generator's VOP3P model has no 256-bit register operands, no accumulator that may be
//! a register tuple or an inline constant, no 8-bit opcodes (0x80.. set bit 23 of the word) and
//! no instruction pairs, so these opcodes are decoded here from a table of their shapes. Texts
//! are checked against LLVM's disassembler by crates/isa/tests/wmma_decode.rs (random sweeps
//! over every opcode and LLVM's MC vectors).
//!
//! Encoding (VOP3P): vdst[7:0], neg_hi[10:8], op_sel[13:11], op_sel_hi[2] (bit 14), clamp (bit
//! 15), opcode[23:16]; src0 = A [40:32], src1 = B [49:41], src2 = C or the sparse index [58:50],
//! op_sel_hi[1:0] (bits 60:59), neg_lo[63:61]. Per form:
//! - dense: op_sel[2] = matrix_a_reuse, op_sel_hi[2] = matrix_b_reuse; op_sel[1:0] = 0,
//!   op_sel_hi[1:0] = 3.
//! - sparse: op_sel[0] = index_key (which half of the index register), reuse bits as dense.
//! - f8f6f4: op_sel[2:0] = matrix_a_fmt, {op_sel_hi[2], op_sel_hi[1:0]} = matrix_b_fmt (FP8,
//!   BF8, FP6, BF6, FP4; 5..7 make LLVM 22 abort, so they are reported unsupported).
//! - 32x16x128_f4: op_sel = 0, op_sel_hi = 7.
//! - ld_scale (the first word of a scaled pair, or alone): src0/src1 = the A/B scales,
//!   op_sel[0] = matrix_a_scale (ROW0/ROW1), op_sel_hi[0] = matrix_b_scale, neg_lo[1:0] =
//!   matrix_a_scale_fmt, neg_hi[1:0] = matrix_b_scale_fmt (E8, E5M3, E4M3), reuse bits as dense;
//!   vdst = 0, src2 = 256. Followed by an f8f6f4 or 32x16x128_f4 word it is one 16-byte
//!   instruction (LLVM's VOP3PX2); otherwise it decodes alone.
//!
//! Modelled: A, B, D as even-aligned VGPR tuples (which may run past v255), C as an even-aligned VGPR tuple or an inline
//! constant, the index as a VGPR (pair: even-aligned), scales as SGPRs, VGPRs or inline
//! constants. Other encodings LLVM accepts (SGPR or misaligned tuples, literals) are reported
//! as unsupported.

use crate::operand::{decode_operand, format_operand, InstOperand, LitReader, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Field, Format, Kind, OpInfo, OperandSpec, ValType};
use crate::{DecodeError, Instruction, Target};

/// The element type of a matrix operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    F32,
    F16,
    BF16,
    /// OCP E4M3.
    Fp8,
    /// OCP E5M2.
    Bf8,
    /// 8-bit integer, signed or unsigned by neg_lo.
    Iu8,
    I32,
    /// OCP MX E2M3 (no infinities or NaNs).
    Fp6,
    /// OCP MX E3M2.
    Bf6,
    /// OCP MX E2M1.
    Fp4,
}

impl Elem {
    /// Bits of one element.
    pub const fn bits(self) -> u32 {
        match self {
            Elem::F32 | Elem::I32 => 32,
            Elem::F16 | Elem::BF16 => 16,
            Elem::Fp8 | Elem::Bf8 | Elem::Iu8 => 8,
            Elem::Fp6 | Elem::Bf6 => 6,
            Elem::Fp4 => 4,
        }
    }

    /// The matrix_a_fmt / matrix_b_fmt value naming this type (the inverse of
    /// [`Elem::from_fmt`]; gfx950's f8f6f4 MFMAs take the same codes in cbsz / blgp).
    pub const fn fmt(self) -> Option<u32> {
        Some(match self {
            Elem::Fp8 => 0,
            Elem::Bf8 => 1,
            Elem::Fp6 => 2,
            Elem::Bf6 => 3,
            Elem::Fp4 => 4,
            _ => return None,
        })
    }

    /// The type a matrix_a_fmt / matrix_b_fmt value names (5..7: none).
    pub const fn from_fmt(fmt: u32) -> Option<Elem> {
        Some(match fmt {
            0 => Elem::Fp8,
            1 => Elem::Bf8,
            2 => Elem::Fp6,
            3 => Elem::Bf6,
            4 => Elem::Fp4,
            _ => return None,
        })
    }
}

/// The instruction family of a table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    Dense,
    /// 4:2-sparse A with an index operand (SWMMAC); C is D.
    Sparse,
    /// A and B types from matrix_a_fmt / matrix_b_fmt.
    F8f6f4,
    /// v_wmma_f32_32x16x128_f4: a 32-row A.
    F4x32,
    /// A scale prefix: 32-bit scales (`b64` false) or 64-bit ones (scale16).
    LdScale { b64: bool },
}

/// One opcode: D (M x 16) = A (M x K) * B (K x 16) + C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    pub opcode: u16,
    pub mnemonic: &'static str,
    pub form: Form,
    /// A and B types (f8f6f4: the FP8 default, the real ones come from the format fields).
    pub a: Elem,
    pub b: Elem,
    /// Type of C (and of a sparse form's accumulator).
    pub c: Elem,
    /// Type of D.
    pub d: Elem,
    pub m: u32,
    /// K of the (expanded) product.
    pub k: u32,
}

impl Shape {
    /// VGPRs of A: M x K elements (sparse: K/2 stored) over 32 lanes.
    pub fn a_dwords_for(&self, a: Elem) -> u8 {
        let k = if self.form == Form::Sparse { self.k / 2 } else { self.k };
        (self.m * k * a.bits() / 1024) as u8
    }
    pub fn b_dwords_for(&self, b: Elem) -> u8 {
        (self.k * 16 * b.bits() / 1024) as u8
    }
    /// VGPRs of A and B with the table's types.
    pub fn ab_dwords(&self) -> u8 {
        self.a_dwords_for(self.a)
    }
    pub fn b_dwords(&self) -> u8 {
        self.b_dwords_for(self.b)
    }
    /// VGPRs of D (a sparse form's D is also its accumulator, as wide as C).
    pub fn d_dwords(&self) -> u8 {
        let t = if self.form == Form::Sparse { self.c } else { self.d };
        (self.m * 16 * t.bits() / 1024) as u8
    }
    /// VGPRs of C (dense forms).
    pub fn c_dwords(&self) -> u8 {
        (self.m * 16 * self.c.bits() / 1024) as u8
    }
    /// VGPRs of a sparse form's index operand.
    pub fn index_dwords(&self) -> u8 {
        if self.a.bits() == 16 {
            1
        } else {
            2
        }
    }
}

use Elem::*;
use Form::*;

const fn shape(opcode: u16, mnemonic: &'static str, form: Form, ab: (Elem, Elem), cd: (Elem, Elem), m: u32, k: u32) -> Shape {
    Shape { opcode, mnemonic, form, a: ab.0, b: ab.1, c: cd.0, d: cd.1, m, k }
}

const N_SHAPES: usize = 45;

/// Every gfx1250 WMMA-family opcode LLVM 22 decodes (VOP3P, 8-bit opcode).
pub static SHAPES: [Shape; N_SHAPES] = [
    shape(0x33, "v_wmma_f32_16x16x128_f8f6f4", F8f6f4, (Fp8, Fp8), (F32, F32), 16, 128),
    shape(0x35, "v_wmma_ld_scale_paired_b32", LdScale { b64: false }, (I32, I32), (I32, I32), 16, 0),
    shape(0x3a, "v_wmma_ld_scale16_paired_b64", LdScale { b64: true }, (I32, I32), (I32, I32), 16, 0),
    shape(0x5d, "v_wmma_f32_16x16x4_f32", Dense, (F32, F32), (F32, F32), 16, 4),
    shape(0x60, "v_wmma_f32_16x16x32_f16", Dense, (F16, F16), (F32, F32), 16, 32),
    shape(0x61, "v_wmma_f16_16x16x32_f16", Dense, (F16, F16), (F16, F16), 16, 32),
    shape(0x62, "v_wmma_f32_16x16x32_bf16", Dense, (BF16, BF16), (F32, F32), 16, 32),
    shape(0x63, "v_wmma_bf16_16x16x32_bf16", Dense, (BF16, BF16), (BF16, BF16), 16, 32),
    shape(0x64, "v_wmma_bf16f32_16x16x32_bf16", Dense, (BF16, BF16), (F32, BF16), 16, 32),
    shape(0x65, "v_swmmac_f32_16x16x64_f16", Sparse, (F16, F16), (F32, F32), 16, 64),
    shape(0x66, "v_swmmac_f32_16x16x64_bf16", Sparse, (BF16, BF16), (F32, F32), 16, 64),
    shape(0x67, "v_swmmac_f16_16x16x64_f16", Sparse, (F16, F16), (F16, F16), 16, 64),
    shape(0x68, "v_swmmac_bf16_16x16x64_bf16", Sparse, (BF16, BF16), (BF16, BF16), 16, 64),
    shape(0x69, "v_swmmac_bf16f32_16x16x64_bf16", Sparse, (BF16, BF16), (F32, BF16), 16, 64),
    shape(0x6a, "v_wmma_f32_16x16x64_fp8_fp8", Dense, (Fp8, Fp8), (F32, F32), 16, 64),
    shape(0x6b, "v_wmma_f32_16x16x64_fp8_bf8", Dense, (Fp8, Bf8), (F32, F32), 16, 64),
    shape(0x6c, "v_wmma_f32_16x16x64_bf8_fp8", Dense, (Bf8, Fp8), (F32, F32), 16, 64),
    shape(0x6d, "v_wmma_f32_16x16x64_bf8_bf8", Dense, (Bf8, Bf8), (F32, F32), 16, 64),
    shape(0x6e, "v_wmma_f16_16x16x64_fp8_fp8", Dense, (Fp8, Fp8), (F16, F16), 16, 64),
    shape(0x6f, "v_wmma_f16_16x16x64_fp8_bf8", Dense, (Fp8, Bf8), (F16, F16), 16, 64),
    shape(0x70, "v_wmma_f16_16x16x64_bf8_fp8", Dense, (Bf8, Fp8), (F16, F16), 16, 64),
    shape(0x71, "v_wmma_f16_16x16x64_bf8_bf8", Dense, (Bf8, Bf8), (F16, F16), 16, 64),
    shape(0x72, "v_wmma_i32_16x16x64_iu8", Dense, (Iu8, Iu8), (I32, I32), 16, 64),
    shape(0x73, "v_swmmac_f32_16x16x128_fp8_fp8", Sparse, (Fp8, Fp8), (F32, F32), 16, 128),
    shape(0x74, "v_swmmac_f32_16x16x128_fp8_bf8", Sparse, (Fp8, Bf8), (F32, F32), 16, 128),
    shape(0x75, "v_swmmac_f32_16x16x128_bf8_fp8", Sparse, (Bf8, Fp8), (F32, F32), 16, 128),
    shape(0x76, "v_swmmac_f32_16x16x128_bf8_bf8", Sparse, (Bf8, Bf8), (F32, F32), 16, 128),
    shape(0x77, "v_swmmac_f16_16x16x128_fp8_fp8", Sparse, (Fp8, Fp8), (F16, F16), 16, 128),
    shape(0x78, "v_swmmac_f16_16x16x128_fp8_bf8", Sparse, (Fp8, Bf8), (F16, F16), 16, 128),
    shape(0x79, "v_swmmac_f16_16x16x128_bf8_fp8", Sparse, (Bf8, Fp8), (F16, F16), 16, 128),
    shape(0x7a, "v_swmmac_f16_16x16x128_bf8_bf8", Sparse, (Bf8, Bf8), (F16, F16), 16, 128),
    shape(0x7b, "v_swmmac_i32_16x16x128_iu8", Sparse, (Iu8, Iu8), (I32, I32), 16, 128),
    shape(0x80, "v_wmma_f32_16x16x128_fp8_fp8", Dense, (Fp8, Fp8), (F32, F32), 16, 128),
    shape(0x81, "v_wmma_f32_16x16x128_fp8_bf8", Dense, (Fp8, Bf8), (F32, F32), 16, 128),
    shape(0x82, "v_wmma_f32_16x16x128_bf8_fp8", Dense, (Bf8, Fp8), (F32, F32), 16, 128),
    shape(0x83, "v_wmma_f32_16x16x128_bf8_bf8", Dense, (Bf8, Bf8), (F32, F32), 16, 128),
    shape(0x84, "v_wmma_f16_16x16x128_fp8_fp8", Dense, (Fp8, Fp8), (F16, F16), 16, 128),
    shape(0x85, "v_wmma_f16_16x16x128_fp8_bf8", Dense, (Fp8, Bf8), (F16, F16), 16, 128),
    shape(0x86, "v_wmma_f16_16x16x128_bf8_fp8", Dense, (Bf8, Fp8), (F16, F16), 16, 128),
    shape(0x87, "v_wmma_f16_16x16x128_bf8_bf8", Dense, (Bf8, Bf8), (F16, F16), 16, 128),
    shape(0x88, "v_wmma_f32_32x16x128_f4", F4x32, (Fp4, Fp4), (F32, F32), 32, 128),
    // The scaled pairs: named by (prefix, WMMA) opcodes through SCALED below; their shapes
    // are the WMMA word's.
    shape(0x33, "v_wmma_scale_f32_16x16x128_f8f6f4", F8f6f4, (Fp8, Fp8), (F32, F32), 16, 128),
    shape(0x33, "v_wmma_scale16_f32_16x16x128_f8f6f4", F8f6f4, (Fp8, Fp8), (F32, F32), 16, 128),
    shape(0x88, "v_wmma_scale_f32_32x16x128_f4", F4x32, (Fp4, Fp4), (F32, F32), 32, 128),
    shape(0x88, "v_wmma_scale16_f32_32x16x128_f4", F4x32, (Fp4, Fp4), (F32, F32), 32, 128),
];

/// Rows of SHAPES for the scaled pairs: (prefix opcode, WMMA opcode, row).
const SCALED: [(u16, u16, usize); 4] = [(0x35, 0x33, 41), (0x3a, 0x33, 42), (0x35, 0x88, 43), (0x3a, 0x88, 44)];
/// Rows of SHAPES that are single words.
const SINGLE: usize = 41;

/// The shape of a single-word opcode.
pub fn by_opcode(opcode: u16) -> Option<&'static Shape> {
    SHAPES[..SINGLE].iter().find(|s| s.opcode == opcode)
}

/// The shape of a mnemonic (scaled pairs included).
pub fn by_mnemonic(m: &str) -> Option<&'static Shape> {
    SHAPES[..SINGLE + SCALED.len()].iter().find(|s| s.mnemonic == m)
}

const fn spec(field: Field, kind: Kind) -> OperandSpec {
    OperandSpec { field, kind }
}

const fn c_type(c: Elem) -> ValType {
    match c {
        F16 => ValType::F16,
        BF16 => ValType::BF16,
        I32 => ValType::B32,
        _ => ValType::F32,
    }
}

/// Operand shapes (register widths for the table's default types; the f8f6f4 widths in a
/// decoded instruction follow its formats).
const fn operands_of(i: usize) -> [OperandSpec; 6] {
    let s = &SHAPES[i];
    let ab = (s.m * if matches!(s.form, Sparse) { s.k / 2 } else { s.k } * s.a.bits() / 1024) as u8;
    let bb = (s.k * 16 * s.b.bits() / 1024) as u8;
    let dt = if matches!(s.form, Sparse) { s.c } else { s.d };
    let d = (s.m * 16 * dt.bits() / 1024) as u8;
    let c = (s.m * 16 * s.c.bits() / 1024) as u8;
    let none = spec(Field::Vop3pNegHi, Kind::Fixed(""));
    match s.form {
        LdScale { b64 } => {
            let t = if b64 { ValType::B64 } else { ValType::B32 };
            [spec(Field::Vop3Src0, Kind::VSrc(t)), spec(Field::Vop3Src1, Kind::VSrc(t)), none, none, none, none]
        }
        _ => {
            let third = if matches!(s.form, Sparse) {
                spec(Field::Vop3Src2, Kind::VReg { dwords: if s.a.bits() == 16 { 1 } else { 2 } })
            } else {
                let _ = c;
                spec(Field::Vop3Src2, Kind::VSrc(c_type(s.c)))
            };
            let scaled = i >= SINGLE;
            let st = if i == 42 || i == 44 { ValType::B64 } else { ValType::B32 };
            [
                spec(Field::Vop3Vdst, Kind::VDst { dwords: d }),
                spec(Field::Vop3Src0, Kind::VReg { dwords: ab }),
                spec(Field::Vop3Src1, Kind::VReg { dwords: bb }),
                third,
                if scaled { spec(Field::Vop3Src0, Kind::VSrc(st)) } else { none },
                if scaled { spec(Field::Vop3Src1, Kind::VSrc(st)) } else { none },
            ]
        }
    }
}

static OPERANDS: [[OperandSpec; 6]; N_SHAPES] = {
    let mut out = [operands_of(0); N_SHAPES];
    let mut i = 0;
    while i < N_SHAPES {
        out[i] = operands_of(i);
        i += 1;
    }
    out
};

static INFOS: [OpInfo; N_SHAPES] = {
    let mut out = [OpInfo { mnemonic: "", sem: crate::SemId::NONE, format: Format::Vop3p, opcode: 0, operands: &[], unused: &[] }; N_SHAPES];
    let mut i = 0;
    while i < N_SHAPES {
        let n = match SHAPES[i].form {
            LdScale { .. } => 2,
            _ if i >= SINGLE => 6,
            _ => 4,
        };
        out[i] = OpInfo { mnemonic: SHAPES[i].mnemonic, sem: crate::SemId::NONE, format: Format::Vop3p, opcode: SHAPES[i].opcode, operands: OPERANDS[i].split_at(n).0, unused: &[] };
        i += 1;
    }
    out
};

const fn bit(w: u64, b: u32) -> bool {
    (w >> b) & 1 == 1
}
const fn f(w: u64, lo: u32, n: u32) -> u32 {
    ((w >> lo) as u32) & ((1 << n) - 1)
}

/// Why a word is not decoded as LLVM decodes it.
enum Reject {
    Invalid,
    Unsupported,
}

fn vgpr(index: u32, dwords: u8) -> Operand {
    Operand::Reg(Reg { class: RegClass::Vgpr, index: index as u16, dwords })
}
/// An even-aligned tuple (or a single register) whose first register the 8-bit field names. A
/// tuple may run past v255 (Triton's 128x128 matmuls use `v[250:257]`): LLVM prints it so, and it
/// names the registers that follow, shifted with the others under `s_set_vgpr_msb`
/// (llvm-objdump-22 prints `v[250:257] /*v[506:513]*/` under slot MSBs 1).
fn aligned(v: u32, n: u8) -> bool {
    (n == 1 || v & 1 == 0) && v < 256
}

/// The format fields of an f8f6f4 word (a, b).
fn fmts(w: u64) -> (u32, u32) {
    (f(w, 11, 3), f(w, 59, 2) | (bit(w, 14) as u32) << 2)
}

/// Checks a (non-prefix) WMMA word's modifier bits against what LLVM accepts for its form.
fn check_bits(s: &Shape, w: u64) -> Result<(), Reject> {
    let (neg_lo, neg_hi, op_sel) = (f(w, 61, 3), f(w, 8, 3), f(w, 11, 3));
    let op_sel_hi = f(w, 59, 2) | (bit(w, 14) as u32) << 2;
    let clamp_ok = s.d == I32;
    if bit(w, 15) && !clamp_ok {
        return Err(Reject::Invalid);
    }
    // Which neg_lo / neg_hi bits a form has: float A/B can be negated (bits 0, 1; 16-bit types
    // in both halves), float C negated (neg_lo[2]) and made absolute (neg_hi[2]); 8-bit and
    // smaller floats only the C modifiers; iu8's neg_lo[0..1] are A's and B's signedness.
    let (lo_ok, hi_ok) = match (s.form, s.a) {
        (Sparse, F16 | BF16) => (3, 3),
        (Sparse, Iu8) | (Dense, Iu8) => (3, 0),
        (Sparse, _) => (0, 0),
        (Dense, F16 | BF16) => (7, 7),
        (Dense, F32) => (7, 4),
        _ => (4, 4),
    };
    if neg_lo & !lo_ok != 0 || neg_hi & !hi_ok != 0 {
        return Err(Reject::Invalid);
    }
    match s.form {
        Dense if op_sel & 3 != 0 || op_sel_hi & 3 != 3 => Err(Reject::Invalid),
        Sparse if op_sel & 2 != 0 || op_sel_hi & 3 != 3 => Err(Reject::Invalid),
        F4x32 if op_sel != 0 || op_sel_hi != 7 => Err(Reject::Invalid),
        // LLVM 22 aborts on formats 5..7.
        F8f6f4 if Elem::from_fmt(fmts(w).0).is_none() || Elem::from_fmt(fmts(w).1).is_none() => Err(Reject::Unsupported),
        _ => Ok(()),
    }
}

/// Checks a prefix word's fields: src2 256, only the scale modifier bits, and (alone, not in
/// a pair, where LLVM ignores the field) vdst 0.
///
/// In a pair, src2 may also be 128 (inline constant 0): that is what Triton 3.9's LLVM writes in
/// the unused field of every scaled WMMA it emits (corpus/triton/gfx1250/dot_scaled_*), with the
/// same assembly text as LLVM 22.1's MC encoding (src2 = 256), whose disassembler rejects 128.
fn check_ld(w: u64, paired: bool) -> Result<(), Reject> {
    let allowed: u64 = 0b11 << 8 | 1 << 11 | 1 << 13 | 1 << 14 | 1 << 59 | 0b11 << 61;
    let fixed = 0xff | 0x1ff << 50 | 0xff << 16 | 0xff << 24;
    let src2_ok = f(w, 50, 9) == 256 || (paired && f(w, 50, 9) == 128);
    if w & !(allowed | fixed | 0x3ffff << 32) != 0 || (!paired && w & 0xff != 0) || !src2_ok {
        return Err(Reject::Invalid);
    }
    Ok(())
}

/// A scale source (9-bit field) as LLVM accepts it: SGPRs, VGPRs and inline constants; 64-bit
/// scales as aligned pairs. Literals and special registers are not modelled.
fn scale_src(v: u32, b64: bool, word: crate::spec::Word) -> Result<Operand, Reject> {
    let n = if b64 { 2 } else { 1 };
    match v {
        0..=105 if !b64 || v & 1 == 0 => Ok(Operand::Reg(Reg { class: RegClass::Sgpr, index: v as u16, dwords: n })),
        128..=208 | 240..=248 => {
            let mut lits = LitReader::new(&[], 0);
            let mut warn = String::new();
            let t = if b64 { ValType::B64 } else { ValType::B32 };
            decode_operand(Target::Gfx1250, Kind::VSrc(t), v, word, &mut lits, &mut warn).map_err(|_| Reject::Unsupported)
        }
        256..=511 if aligned(v - 256, n) => Ok(vgpr(v - 256, n)),
        _ => Err(Reject::Unsupported),
    }
}

/// A prefix followed by a word of a scaled opcode with a literal (scale or C) crashes LLVM 22's
/// disassembler: what such bytes mean is not known, and they are reported unsupported.
pub fn pair_crashes_llvm(ld: u64, mf: u64) -> bool {
    let op = (mf >> 16) & 0xff;
    (mf >> 24) & 0xff == 0xcc && (op == 0x33 || op == 0x88) && (f(ld, 32, 9) == 255 || f(ld, 41, 9) == 255 || f(mf, 50, 9) == 255)
}

/// Decodes a gfx1250 word whose 8-bit VOP3P opcode is a WMMA-family one (`None`: not one).
pub(crate) fn decode(bytes: &[u8], offset: usize) -> Option<Result<Instruction, DecodeError>> {
    let inst = bytes.get(offset..)?;
    let w0 = u32::from_le_bytes(inst.get(0..4)?.try_into().ok()?);
    if w0 >> 24 != 0xcc {
        return None;
    }
    let opcode = ((w0 >> 16) & 0xff) as u16;
    let row = SHAPES[..SINGLE].iter().position(|s| s.opcode == opcode)?;
    let raw = |n: usize| bytes.get(offset..(offset + n).min(bytes.len())).map(|b| b.to_vec()).unwrap_or_default();
    let Some(d1) = inst.get(4..8) else {
        return Some(Err(DecodeError::Truncated { offset, bytes: raw(8) }));
    };
    let w = w0 as u64 | (u32::from_le_bytes(d1.try_into().ok()?) as u64) << 32;
    let s = &SHAPES[row];
    let next = inst.get(8..16).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()));
    if matches!(s.form, LdScale { .. }) && next.is_some_and(|mf| pair_crashes_llvm(w, mf)) {
        return Some(Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(16) }));
    }
    let result = if let LdScale { b64 } = s.form {
        // A prefix followed by a WMMA word that takes scales is one 16-byte instruction.
        let pair = next.and_then(|mf| {
            let op = ((mf >> 16) & 0xff) as u16;
            let &(_, _, r) = SCALED.iter().find(|(p, o, _)| *p == opcode && *o == op)?;
            (mf as u32 >> 24 == 0xcc && check_bits(&SHAPES[r], mf).is_ok() && check_ld(w, true).is_ok()).then_some((r, mf))
        });
        match pair {
            Some((r, mf)) => build(r, offset, mf, Some((w, b64))),
            None => check_ld(w, false).and_then(|_| build(row, offset, w, None)),
        }
    } else {
        check_bits(s, w).and_then(|_| build(row, offset, w, None))
    };
    Some(result.map_err(|e| match e {
        Reject::Invalid => DecodeError::Invalid { offset, bytes: raw(8) },
        Reject::Unsupported => DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(16) },
    }))
}

/// Builds the instruction of SHAPES row `row` from its WMMA (or lone prefix) word `w` and, for
/// a scaled pair, the prefix word.
fn build(row: usize, offset: usize, w: u64, ld: Option<(u64, bool)>) -> Result<Instruction, Reject> {
    let s = &SHAPES[row];
    let word = w as crate::spec::Word | ld.map_or(0, |(l, _)| (l as crate::spec::Word) << 64);
    let specs = &OPERANDS[row];
    let mut values: Vec<(Operand, u32)> = Vec::with_capacity(6);
    if let LdScale { b64 } = s.form {
        for field in [f(w, 32, 9), f(w, 41, 9)] {
            values.push((scale_src(field, b64, word)?, field));
        }
    } else {
        let (vdst, a, b, c) = (f(w, 0, 8), f(w, 32, 9), f(w, 41, 9), f(w, 50, 9));
        let (ta, tb) = match s.form {
            F8f6f4 => (Elem::from_fmt(fmts(w).0).ok_or(Reject::Unsupported)?, Elem::from_fmt(fmts(w).1).ok_or(Reject::Unsupported)?),
            _ => (s.a, s.b),
        };
        let (ad, bd, dd) = (s.a_dwords_for(ta), s.b_dwords_for(tb), s.d_dwords());
        if !aligned(vdst, dd) || a < 256 || b < 256 || !aligned(a - 256, ad) || !aligned(b - 256, bd) {
            return Err(Reject::Unsupported);
        }
        values.push((vgpr(vdst, dd), vdst));
        values.push((vgpr(a - 256, ad), a));
        values.push((vgpr(b - 256, bd), b));
        let third = if s.form == Sparse {
            let n = s.index_dwords();
            if c < 256 || !aligned(c - 256, n) {
                return Err(Reject::Unsupported);
            }
            vgpr(c - 256, n)
        } else {
            match c {
                256..=511 if aligned(c - 256, s.c_dwords()) => vgpr(c - 256, s.c_dwords()),
                128..=192 => Operand::IntConst((c - 128) as i8),
                193..=208 => Operand::IntConst(-((c - 192) as i8)),
                240..=248 => Operand::FloatConst(c as u8),
                _ => return Err(Reject::Unsupported),
            }
        };
        values.push((third, c));
        if let Some((l, b64)) = ld {
            for field in [f(l, 32, 9), f(l, 41, 9)] {
                values.push((scale_src(field, b64, word)?, field));
            }
        }
    }
    let mut operands: [Option<InstOperand>; MAX_OPERANDS] = Default::default();
    for (k, (value, raw)) in values.into_iter().enumerate() {
        let mut spec: &'static OperandSpec = &specs[k];
        if let (Operand::Reg(r), Kind::VReg { .. } | Kind::VDst { .. }) = (value, spec.kind) {
            // Register widths of the formats actually named.
            spec = sized(spec, r.dwords).ok_or(Reject::Unsupported)?;
        }
        operands[k] = Some(InstOperand { spec, value, raw });
    }
    let mods = crate::Modifiers {
        neg: f(w, 61, 3) as u8,
        neg_hi: f(w, 8, 3) as u8,
        op_sel: f(w, 11, 3) as u8,
        op_sel_hi: (f(w, 59, 2) | (bit(w, 14) as u32) << 2) as u8,
        clamp: bit(w, 15),
        ..Default::default()
    };
    Ok(Instruction {
        target: Target::Gfx1250,
        info: &INFOS[row],
        offset,
        len: if ld.is_some() { 16 } else { 8 },
        literal: None,
        mods,
        cache: Default::default(),
        mem_offset: 0,
        word,
        operands,
    })
}

/// The scale modifiers of a prefix word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scales {
    /// 64-bit scale operands (scale16: a scale per 16 K values), else 32-bit (per 32).
    pub b64: bool,
    /// matrix_a_scale / matrix_b_scale: ROW1 (1) or ROW0 (0).
    pub a_row: u32,
    pub b_row: u32,
    /// matrix_a_scale_fmt / matrix_b_scale_fmt: 0 E8, 1 E5M3, 2 E4M3 (3 unnamed).
    pub a_fmt: u32,
    pub b_fmt: u32,
}

fn scales_of(l: u64, b64: bool) -> Scales {
    Scales { b64, a_row: f(l, 11, 1), b_row: f(l, 59, 1), a_fmt: f(l, 61, 2), b_fmt: f(l, 8, 2) }
}

/// The matrix view of a decoded WMMA-family instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wmma {
    pub shape: &'static Shape,
    /// A and B element types (the formats of f8f6f4).
    pub a: Elem,
    pub b: Elem,
    /// The sparse index_key (which half of the index register).
    pub index_key: u32,
    pub a_reuse: bool,
    pub b_reuse: bool,
    pub clamp: bool,
    /// The scaled pairs' (and lone prefixes') scale modifiers.
    pub scales: Option<Scales>,
}

impl Instruction {
    fn wmma_row(&self) -> Option<usize> {
        if self.target != Target::Gfx1250 || self.format() != Format::Vop3p {
            return None;
        }
        INFOS.iter().position(|i| std::ptr::eq(i, self.info))
    }

    /// The matrix view of a gfx1250 WMMA-family instruction (`None` for every other one).
    pub fn wmma(&self) -> Option<Wmma> {
        let row = self.wmma_row()?;
        let s = &SHAPES[row];
        let w = self.word as u64;
        let (a, b) = match s.form {
            F8f6f4 => (Elem::from_fmt(fmts(w).0)?, Elem::from_fmt(fmts(w).1)?),
            _ => (s.a, s.b),
        };
        let reuse_word = if row >= SINGLE { (self.word >> 64) as u64 } else { w };
        let reuse = !matches!(s.form, F8f6f4 | F4x32) || row >= SINGLE;
        let scales = match s.form {
            LdScale { b64 } => Some(scales_of(w, b64)),
            _ if row >= SINGLE => Some(scales_of(reuse_word, row == 42 || row == 44)),
            _ => None,
        };
        Some(Wmma {
            shape: s,
            a,
            b,
            index_key: if s.form == Sparse { f(w, 11, 1) } else { 0 },
            a_reuse: reuse && bit(reuse_word, 13),
            b_reuse: reuse && bit(reuse_word, 14),
            clamp: bit(w, 15),
            scales,
        })
    }

    /// The shape of a gfx1250 WMMA-family instruction.
    pub fn wmma_shape(&self) -> Option<&'static Shape> {
        self.wmma().map(|m| m.shape)
    }

    /// LLVM's text for a WMMA-family instruction.
    pub(crate) fn wmma_text(&self) -> Option<String> {
        let m = self.wmma()?;
        let names = crate::tables::names(self.target);
        let mut out = String::from(self.info.mnemonic);
        for (k, o) in self.operands.iter().flatten().enumerate() {
            out.push_str(if k == 0 { " " } else { ", " });
            format_operand(&mut out, self.target, o.spec.kind, &o.value, names);
        }
        let pk = |out: &mut String, name: &str, v: u8, n: usize| {
            if v != 0 {
                let bits: Vec<String> = (0..n).map(|i| ((v >> i) & 1).to_string()).collect();
                out.push_str(&format!(" {name}:[{}]", bits.join(",")));
            }
        };
        const FMT: [&str; 5] = ["FP8", "BF8", "FP6", "BF6", "FP4"];
        const SFMT: [&str; 3] = ["E8", "E5M3", "E4M3"];
        let s = m.shape;
        if s.form == Sparse && m.index_key != 0 {
            out.push_str(&format!(" index_key:{}", m.index_key));
        }
        if s.form == F8f6f4 {
            let (fa, fb) = fmts(self.word as u64);
            if fa != 0 {
                out.push_str(&format!(" matrix_a_fmt:MATRIX_FMT_{}", FMT[fa as usize]));
            }
            if fb != 0 {
                out.push_str(&format!(" matrix_b_fmt:MATRIX_FMT_{}", FMT[fb as usize]));
            }
        }
        if let Some(sc) = m.scales {
            if sc.a_row != 0 {
                out.push_str(" matrix_a_scale:MATRIX_SCALE_ROW1");
            }
            if sc.b_row != 0 {
                out.push_str(" matrix_b_scale:MATRIX_SCALE_ROW1");
            }
            // Format 3 has no name: LLVM prints the number.
            for (name, v) in [("a", sc.a_fmt), ("b", sc.b_fmt)] {
                match v {
                    0 => {}
                    1 | 2 => out.push_str(&format!(" matrix_{name}_scale_fmt:MATRIX_SCALE_FMT_{}", SFMT[v as usize])),
                    _ => out.push_str(&format!(" matrix_{name}_scale_fmt:{v}")),
                }
            }
        }
        if m.a_reuse {
            out.push_str(" matrix_a_reuse");
        }
        if m.b_reuse {
            out.push_str(" matrix_b_reuse");
        }
        if !matches!(s.form, LdScale { .. }) {
            pk(&mut out, "neg_lo", self.mods.neg, 3);
            pk(&mut out, "neg_hi", self.mods.neg_hi, 3);
        }
        if m.clamp && !matches!(s.form, LdScale { .. }) {
            out.push_str(" clamp");
        }
        Some(out)
    }
}

/// A VReg/VDst shape of a VOP3P register field with its width set to `dwords` (1..=16): decoded
/// operands refer to static shapes, so the widths a format names are all laid out here.
fn sized(spec: &OperandSpec, dwords: u8) -> Option<&'static OperandSpec> {
    const FIELDS: [Field; 4] = [Field::Vop3Vdst, Field::Vop3Src0, Field::Vop3Src1, Field::Vop3Src2];
    const fn build() -> [[[OperandSpec; 17]; 2]; 4] {
        let mut t = [[[OperandSpec { field: Field::Implicit, kind: Kind::VReg { dwords: 0 } }; 17]; 2]; 4];
        let mut f = 0;
        while f < 4 {
            let mut d = 0;
            while d < 17 {
                t[f][0][d] = OperandSpec { field: FIELDS[f], kind: Kind::VReg { dwords: d as u8 } };
                t[f][1][d] = OperandSpec { field: FIELDS[f], kind: Kind::VDst { dwords: d as u8 } };
                d += 1;
            }
            f += 1;
        }
        t
    }
    static TABLE: [[[OperandSpec; 17]; 2]; 4] = build();
    let f = FIELDS.iter().position(|&x| x == spec.field)?;
    let dst = matches!(spec.kind, Kind::VDst { .. });
    TABLE[f][dst as usize].get(dwords as usize)
}
