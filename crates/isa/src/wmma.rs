//! gfx1250 dense WMMA (wave32 matrix multiply-accumulate, VOP3P opcodes 0x5d..0x72).
//!
//! The table generator's VOP3P model has no 256-bit register operands, no accumulator that may be
//! a register tuple or an inline constant, and no matrix-reuse bits, so these opcodes are decoded
//! here from a small table of their shapes. Every entry's mnemonic and register widths are checked
//! against LLVM's disassembler, and a random sweep compares whole texts
//! (crates/isa/tests/wmma_decode.rs).
//!
//! Encoding (VOP3P): vdst[7:0], neg_hi[10:8], op_sel[12:11] (must be 0), matrix_a_reuse (bit 13,
//! op_sel[2]), matrix_b_reuse (bit 14, op_sel_hi[2]), clamp (bit 15, must be 0); src0 = A [40:32],
//! src1 = B [49:41], src2 = C [58:50], op_sel_hi[1:0] (bits 60:59, must be 1), neg_lo[63:61].
//!
//! Modelled: A, B and D as even-aligned VGPR tuples, C as an even-aligned VGPR tuple or an inline
//! constant. Other encodings LLVM accepts (SGPR or misaligned tuples, a literal C) are reported
//! as unsupported; the sparse SWMMAC, the f8f6f4/scaled forms and bf16f32 are not modelled.

use crate::operand::{InstOperand, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Field, Format, Kind, OpInfo, OperandSpec, ValType};
use crate::{DecodeError, Instruction, Target};

/// The element type of a WMMA matrix operand.
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
}

impl Elem {
    /// Bits of one element.
    pub const fn bits(self) -> u32 {
        match self {
            Elem::F32 | Elem::I32 => 32,
            Elem::F16 | Elem::BF16 => 16,
            Elem::Fp8 | Elem::Bf8 | Elem::Iu8 => 8,
        }
    }
}

/// One dense WMMA opcode: D (16x16) = A (16xK) * B (Kx16) + C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    pub opcode: u16,
    pub mnemonic: &'static str,
    pub a: Elem,
    pub b: Elem,
    /// Type of C and D.
    pub d: Elem,
    pub k: u32,
}

impl Shape {
    /// VGPRs of A (and of B): each lane holds K/2 elements (the two 16-lane halves split K).
    pub fn ab_dwords(&self) -> u8 {
        (self.k / 2 * self.a.bits() / 32) as u8
    }
    /// VGPRs of C and D: 8 elements of the 16x16 result per lane.
    pub fn d_dwords(&self) -> u8 {
        (8 * self.d.bits() / 32) as u8
    }
}

const fn shape(opcode: u16, mnemonic: &'static str, a: Elem, b: Elem, d: Elem, k: u32) -> Shape {
    Shape { opcode, mnemonic, a, b, d, k }
}

use Elem::*;

/// The dense WMMA opcodes modelled, with their shapes.
pub static SHAPES: [Shape; 14] = [
    shape(0x5d, "v_wmma_f32_16x16x4_f32", F32, F32, F32, 4),
    shape(0x60, "v_wmma_f32_16x16x32_f16", F16, F16, F32, 32),
    shape(0x61, "v_wmma_f16_16x16x32_f16", F16, F16, F16, 32),
    shape(0x62, "v_wmma_f32_16x16x32_bf16", BF16, BF16, F32, 32),
    shape(0x63, "v_wmma_bf16_16x16x32_bf16", BF16, BF16, BF16, 32),
    shape(0x6a, "v_wmma_f32_16x16x64_fp8_fp8", Fp8, Fp8, F32, 64),
    shape(0x6b, "v_wmma_f32_16x16x64_fp8_bf8", Fp8, Bf8, F32, 64),
    shape(0x6c, "v_wmma_f32_16x16x64_bf8_fp8", Bf8, Fp8, F32, 64),
    shape(0x6d, "v_wmma_f32_16x16x64_bf8_bf8", Bf8, Bf8, F32, 64),
    shape(0x6e, "v_wmma_f16_16x16x64_fp8_fp8", Fp8, Fp8, F16, 64),
    shape(0x6f, "v_wmma_f16_16x16x64_fp8_bf8", Fp8, Bf8, F16, 64),
    shape(0x70, "v_wmma_f16_16x16x64_bf8_fp8", Bf8, Fp8, F16, 64),
    shape(0x71, "v_wmma_f16_16x16x64_bf8_bf8", Bf8, Bf8, F16, 64),
    shape(0x72, "v_wmma_i32_16x16x64_iu8", Iu8, Iu8, I32, 64),
];

/// The shape of a modelled WMMA opcode.
pub fn by_opcode(opcode: u16) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.opcode == opcode)
}

/// The shape of a modelled WMMA mnemonic.
pub fn by_mnemonic(m: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.mnemonic == m)
}

const fn spec(field: Field, kind: Kind) -> OperandSpec {
    OperandSpec { field, kind }
}

const fn c_type(d: Elem) -> ValType {
    match d {
        F16 => ValType::F16,
        BF16 => ValType::BF16,
        I32 => ValType::B32,
        _ => ValType::F32,
    }
}

const fn operands_of(s: &Shape) -> [OperandSpec; 8] {
    let ab = (s.k / 2 * s.a.bits() / 32) as u8;
    let d = (8 * s.d.bits() / 32) as u8;
    [
        spec(Field::Vop3Vdst, Kind::VDst { dwords: d }),
        spec(Field::Vop3Src0, Kind::VReg { dwords: ab }),
        spec(Field::Vop3Src1, Kind::VReg { dwords: ab }),
        spec(Field::Vop3Src2, Kind::VSrc(c_type(s.d))),
        spec(Field::Vop3pOpSel, Kind::Flag("matrix_a_reuse")),
        spec(Field::Vop3pOpSelHi, Kind::Flag("matrix_b_reuse")),
        spec(Field::Vop3pNegLo, Kind::PkBits { name: "neg_lo", srcs: 3, default: 0 }),
        spec(Field::Vop3pNegHi, Kind::PkBits { name: "neg_hi", srcs: 3, default: 0 }),
    ]
}

macro_rules! infos {
    ($($i:literal),*) => {
        [$(OpInfo {
            mnemonic: SHAPES[$i].mnemonic,
            format: Format::Vop3p,
            opcode: SHAPES[$i].opcode,
            operands: &OPERANDS[$i],
            unused: &[],
        }),*]
    };
}

static OPERANDS: [[OperandSpec; 8]; 14] = {
    let mut out = [operands_of(&SHAPES[0]); 14];
    let mut i = 0;
    while i < 14 {
        out[i] = operands_of(&SHAPES[i]);
        i += 1;
    }
    out
};

static INFOS: [OpInfo; 14] = infos!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);

/// Decodes a gfx1250 VOP3P word whose opcode is a modelled WMMA (`None`: not one).
pub(crate) fn decode_wmma(bytes: &[u8], offset: usize, word: u64) -> Option<Result<Instruction, DecodeError>> {
    let w0 = word as u32;
    let opcode = ((w0 >> 16) & 0x7f) as u16;
    let i = SHAPES.iter().position(|s| s.opcode == opcode)?;
    let s = &SHAPES[i];
    let raw = |n: usize| bytes.get(offset..(offset + n).min(bytes.len())).map(|b| b.to_vec()).unwrap_or_default();
    let invalid = || Err(DecodeError::Invalid { offset, bytes: raw(8) });
    let unsupported = || Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(8) });
    let bit = |b: u32| (word >> b) & 1 == 1;
    // op_sel[1:0] and clamp must be clear, op_sel_hi[1:0] set.
    if bit(11) || bit(12) || bit(15) || !bit(59) || !bit(60) {
        return Some(invalid());
    }
    let f = |lo: u32, n: u32| ((word >> lo) as u32) & ((1 << n) - 1);
    // Which neg_lo / neg_hi bits an opcode has: float A/B can be negated (bits 0, 1), float C
    // negated (neg_lo[2]) and made absolute (neg_hi[2]); 8-bit floats only the C modifiers;
    // iu8's neg_lo[0..1] are A's and B's signedness.
    let (lo_ok, hi_ok) = match s.a {
        // (16-bit A/B also take neg_hi[0..1]: LLVM accepts them; what they do is not modelled.)
        F16 | BF16 => (7, 7),
        F32 => (7, 4),
        Fp8 | Bf8 => (4, 4),
        _ => (3, 0),
    };
    if f(61, 3) & !lo_ok != 0 || f(8, 3) & !hi_ok != 0 {
        return Some(invalid());
    }
    let (vdst, a, b, c) = (f(0, 8), f(32, 9), f(41, 9), f(50, 9));
    let (ab, d) = (s.ab_dwords(), s.d_dwords());
    let vgpr = |index: u32, dwords: u8| Operand::Reg(Reg { class: RegClass::Vgpr, index: index as u16, dwords });
    let aligned = |v: u32, n: u8| v & 1 == 0 && v + n as u32 <= 256;
    if !aligned(vdst, d) || a < 256 || b < 256 || !aligned(a - 256, ab) || !aligned(b - 256, ab) {
        return Some(unsupported());
    }
    let c_value = match c {
        256..=511 if aligned(c - 256, d) => vgpr(c - 256, d),
        128..=192 => Operand::IntConst((c - 128) as i8),
        193..=208 => Operand::IntConst(-((c - 192) as i8)),
        240..=248 => Operand::FloatConst(c as u8),
        _ => return Some(unsupported()),
    };
    let specs = &OPERANDS[i];
    let values = [
        (vgpr(vdst, d), vdst),
        (vgpr(a - 256, ab), a),
        (vgpr(b - 256, ab), b),
        (c_value, c),
        (Operand::Imm(bit(13) as u32), bit(13) as u32),
        (Operand::Imm(bit(14) as u32), bit(14) as u32),
        (Operand::Imm(f(61, 3)), f(61, 3)),
        (Operand::Imm(f(8, 3)), f(8, 3)),
    ];
    let mut operands: [Option<InstOperand>; MAX_OPERANDS] = Default::default();
    for (k, (value, raw)) in values.into_iter().enumerate() {
        operands[k] = Some(InstOperand { spec: &specs[k], value, raw });
    }
    let mods = crate::Modifiers { neg: f(61, 3) as u8, neg_hi: f(8, 3) as u8, op_sel: (bit(13) as u8) << 2, op_sel_hi: 3 | (bit(14) as u8) << 2, ..Default::default() };
    Some(Ok(Instruction {
        target: Target::Gfx1250,
        info: &INFOS[i],
        offset,
        len: 8,
        literal: None,
        mods,
        cache: Default::default(),
        mem_offset: 0,
        word: word as crate::spec::Word,
        operands,
    }))
}

impl Instruction {
    /// The shape of a dense WMMA instruction (`None` for every other instruction).
    pub fn wmma_shape(&self) -> Option<&'static Shape> {
        if self.target != Target::Gfx1250 || self.format() != Format::Vop3p {
            return None;
        }
        by_mnemonic(self.mnemonic())
    }
}
