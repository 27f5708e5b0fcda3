//! GFX9 matrix instructions (gfx942/gfx950 VOP3P-MAI): MFMA (`v_mfma_*`) and sparse SMFMAC
//! (`v_smfmac_*`).
//!
//! Their operands do not fit the table generator's VOP3P model: the register file of D/C
//! (acc_cd, bit 15) and of A and B (bits 59, 60) is chosen per instruction, tuples are up to 32
//! registers wide, and on gfx950 the A/B widths of the f8f6f4 opcodes follow their formats
//! (cbsz, blgp). So they are decoded here from a table of shapes. Every entry's mnemonic and
//! register widths are checked against LLVM's disassembler, and random sweeps compare whole
//! texts (crates/isa/tests/mai_decode.rs).
//!
//! Encoding: vdst[7:0], cbsz[10:8], abid[14:11], acc_cd (15), opcode[22:16], src0 = A [40:32],
//! src1 = B [49:41], src2 = C [58:50] (SMFMAC: the sparsity-index VGPR), acc A (59), acc B (60),
//! blgp[63:61] (f64 shapes: neg of A, B, C, printed `neg:[a,b,c]`).
//!
//! Matrix layouts (used by the emulator, `hx_emu::mfma`) follow AMD's Matrix Instruction
//! Calculator for gfx9 (CDNA3): see [`Shape::a_location`], [`Shape::d_location`].
//!
//! gfx950 scaled f8f6f4 (`v_mfma_scale_f32_*`): a 16-byte pair, `v_mfma_ld_scale_b32` (VOP3P
//! 0x2c: the scale VGPRs and their op_sel / op_sel_hi) followed by the MFMA word with abid 1.
//! The instruction's `word` holds the MFMA word in bits 63:0 and the ld_scale word in 127:64.
//! LLVM ignores ld_scale's other fields in the pair; a literal scale source is not decoded
//! (LLVM 22 aborts on it).

use crate::operand::{decode_fields, Decoded, OperandError};
use crate::spec::{Field, Format, Kind, OpInfo, OperandSpec, Target, ValType};
use crate::{DecodeError, Instruction};
use std::sync::OnceLock;

/// The element type of an MFMA matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    F32,
    /// gfx942 xf32 (an f32 operand the hardware reads with reduced mantissa).
    Xf32,
    F16,
    BF16,
    F64,
    I8,
    I32,
    /// 8-bit float E4M3: gfx942's FNUZ variant (bias 8, no infinities, NaN 0x80), gfx950's OCP
    /// variant (bias 7).
    Fp8,
    /// 8-bit float E5M2: gfx942's FNUZ variant (bias 16), gfx950's OCP variant (bias 15).
    Bf8,
    /// gfx950 f8f6f4: the format is chosen by cbsz (A) / blgp (B).
    F8f6f4,
}

impl Elem {
    /// Bits of one element (f8f6f4: of the 8-bit formats).
    pub const fn bits(self) -> u32 {
        match self {
            Elem::F32 | Elem::Xf32 | Elem::I32 => 32,
            Elem::F16 | Elem::BF16 => 16,
            Elem::F64 => 64,
            Elem::I8 | Elem::Fp8 | Elem::Bf8 | Elem::F8f6f4 => 8,
        }
    }
}

/// An f8f6f4 operand format (gfx950 cbsz / blgp value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmallFloat {
    /// E4M3 (OCP), cbsz/blgp 0.
    Fp8,
    /// E5M2 (OCP), 1.
    Bf8,
    /// E2M3, 2.
    Fp6,
    /// E3M2, 3.
    Bf6,
    /// E2M1, 4.
    Fp4,
}

impl SmallFloat {
    /// The format a cbsz/blgp value selects (None: 5..=7, which LLVM prints but no format has).
    pub fn from_code(c: u32) -> Option<SmallFloat> {
        Some(match c {
            0 => SmallFloat::Fp8,
            1 => SmallFloat::Bf8,
            2 => SmallFloat::Fp6,
            3 => SmallFloat::Bf6,
            4 => SmallFloat::Fp4,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            SmallFloat::Fp8 | SmallFloat::Bf8 => 8,
            SmallFloat::Fp6 | SmallFloat::Bf6 => 6,
            SmallFloat::Fp4 => 4,
        }
    }
}

/// One MAI opcode: D (M x N per block) = A (M x K) * B (K x N) + C, `blocks` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    pub opcode: u16,
    pub mnemonic: &'static str,
    pub gfx942: bool,
    pub gfx950: bool,
    pub a: Elem,
    pub b: Elem,
    /// Type of C and D.
    pub cd: Elem,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub blocks: u32,
    /// SMFMAC: A is 4:2 structured-sparse (half of K stored), src2 is the index VGPR and D
    /// is also the accumulator.
    pub sparse: bool,
}

impl Shape {
    /// Registers per lane of A for `bits`-bit elements.
    pub fn a_dwords_for(&self, bits: u32) -> u8 {
        let k = if self.sparse { self.k / 2 } else { self.k };
        (self.m * k * self.blocks * bits / 2048).max(1) as u8
    }
    pub fn b_dwords_for(&self, bits: u32) -> u8 {
        (self.n * self.k * self.blocks * bits / 2048).max(1) as u8
    }
    /// Registers per lane of A and B with the element types' widths (f8f6f4: 8-bit).
    pub fn a_dwords(&self) -> u8 {
        self.a_dwords_for(self.a.bits())
    }
    pub fn b_dwords(&self) -> u8 {
        self.b_dwords_for(self.b.bits())
    }
    /// Registers per lane of C and D.
    pub fn cd_dwords(&self) -> u8 {
        (self.m * self.n * self.blocks * self.cd.bits() / 2048) as u8
    }
    pub fn on(&self, target: Target) -> bool {
        match target {
            Target::Gfx942 => self.gfx942,
            Target::Gfx950 => self.gfx950,
            Target::Gfx1250 => false,
        }
    }

    /// Where element (row `i`, column `k`) of block `b` of an input lives: (element slot, lane),
    /// the slot counting elements from the low bits of the first register. For B, pass
    /// (column j, row k) with `n` in place of `m` ([`Shape::b_location`]). The gfx9 rule
    /// (AMD Matrix Instruction Calculator): the 64 lanes hold M x blocks rows for each group of
    /// K; consecutive k within a lane fill consecutive slots.
    /// `k_total` is the operand's K (SMFMAC's A stores K/2 values per row: pass the stored
    /// index as `k`).
    pub fn input_location(&self, rows: u32, k_total: u32, i: u32, k: u32, b: u32) -> (u32, u32) {
        let per_lane = (k_total / (64 / (rows * self.blocks))).max(1);
        let slot = k % per_lane;
        let lane = b * rows + (k / per_lane) * rows * self.blocks + i;
        (slot, lane)
    }
    /// A[i][k] of block `b` (SMFMAC: `k` counts A's stored values, K/2 per row).
    pub fn a_location(&self, i: u32, k: u32, b: u32) -> (u32, u32) {
        let k_total = if self.sparse { self.k / 2 } else { self.k };
        self.input_location(self.m, k_total, i, k, b)
    }
    /// B[k][j] of block `b`.
    pub fn b_location(&self, j: u32, k: u32, b: u32) -> (u32, u32) {
        self.input_location(self.n, self.k, j, k, b)
    }

    /// Where element (i, j) of block `b` of C/D lives: (register, lane). 32-bit results are laid
    /// out in groups of 4 rows (registers) by N columns (lanes); 64-bit results one row
    /// (register pair) at a time (the returned register counts pairs then).
    pub fn d_location(&self, i: u32, j: u32, b: u32) -> (u32, u32) {
        let (m, n) = (self.m, self.n);
        let multirows = 64 / n;
        let height = if self.cd.bits() == 64 { 1 } else { 4 };
        let blocks_per_reg = (64 / (n * m / height)).max(1);
        let reg = b * (m * n / 64) + (i / (height * multirows)) * height + i % height;
        let lane = (b % blocks_per_reg) * n + ((i / height) % multirows) * blocks_per_reg * n + j;
        (reg, lane)
    }
}

#[allow(clippy::too_many_arguments)]
const fn s(
    opcode: u16,
    mnemonic: &'static str,
    targets: u8,
    a: Elem,
    b: Elem,
    cd: Elem,
    m: u32,
    n: u32,
    k: u32,
    blocks: u32,
    sparse: bool,
) -> Shape {
    Shape { opcode, mnemonic, gfx942: targets & 1 != 0, gfx950: targets & 2 != 0, a, b, cd, m, n, k, blocks, sparse }
}

use Elem::*;

/// gfx942 only, gfx950 only, both.
const G942: u8 = 1;
const G950: u8 = 2;
const BOTH: u8 = 3;
const D: bool = false;
const SP: bool = true;

/// The MAI opcodes of gfx942 and gfx950 (VOP3P opcode field), with their shapes.
pub static SHAPES: &[Shape] = &[
    s(0x2d, "v_mfma_f32_16x16x128_f8f6f4", G950, F8f6f4, F8f6f4, F32, 16, 16, 128, 1, D),
    s(0x2e, "v_mfma_f32_32x32x64_f8f6f4", G950, F8f6f4, F8f6f4, F32, 32, 32, 64, 1, D),
    s(0x35, "v_mfma_f32_16x16x32_bf16", G950, BF16, BF16, F32, 16, 16, 32, 1, D),
    s(0x36, "v_mfma_i32_16x16x64_i8", G950, I8, I8, I32, 16, 16, 64, 1, D),
    s(0x37, "v_mfma_f32_32x32x16_bf16", G950, BF16, BF16, F32, 32, 32, 16, 1, D),
    s(0x38, "v_mfma_i32_32x32x32_i8", G950, I8, I8, I32, 32, 32, 32, 1, D),
    s(0x39, "v_smfmac_f32_16x16x64_bf16", G950, BF16, BF16, F32, 16, 16, 64, 1, SP),
    s(0x3a, "v_smfmac_i32_16x16x128_i8", G950, I8, I8, I32, 16, 16, 128, 1, SP),
    s(0x3b, "v_smfmac_f32_16x16x128_bf8_bf8", G950, Bf8, Bf8, F32, 16, 16, 128, 1, SP),
    s(0x3c, "v_smfmac_f32_16x16x128_bf8_fp8", G950, Bf8, Fp8, F32, 16, 16, 128, 1, SP),
    s(0x3d, "v_smfmac_f32_16x16x128_fp8_bf8", G950, Fp8, Bf8, F32, 16, 16, 128, 1, SP),
    s(0x3e, "v_mfma_f32_16x16x8_xf32", G942, Xf32, Xf32, F32, 16, 16, 8, 1, D),
    s(0x3f, "v_mfma_f32_32x32x4_xf32", G942, Xf32, Xf32, F32, 32, 32, 4, 1, D),
    s(0x40, "v_mfma_f32_32x32x1_2b_f32", BOTH, F32, F32, F32, 32, 32, 1, 2, D),
    s(0x41, "v_mfma_f32_16x16x1_4b_f32", BOTH, F32, F32, F32, 16, 16, 1, 4, D),
    s(0x42, "v_mfma_f32_4x4x1_16b_f32", BOTH, F32, F32, F32, 4, 4, 1, 16, D),
    s(0x43, "v_smfmac_f32_16x16x128_fp8_fp8", G950, Fp8, Fp8, F32, 16, 16, 128, 1, SP),
    s(0x44, "v_mfma_f32_32x32x2_f32", BOTH, F32, F32, F32, 32, 32, 2, 1, D),
    s(0x45, "v_mfma_f32_16x16x4_f32", BOTH, F32, F32, F32, 16, 16, 4, 1, D),
    s(0x46, "v_smfmac_f32_32x32x32_bf16", G950, BF16, BF16, F32, 32, 32, 32, 1, SP),
    s(0x47, "v_smfmac_i32_32x32x64_i8", G950, I8, I8, I32, 32, 32, 64, 1, SP),
    s(0x48, "v_mfma_f32_32x32x4_2b_f16", BOTH, F16, F16, F32, 32, 32, 4, 2, D),
    s(0x49, "v_mfma_f32_16x16x4_4b_f16", BOTH, F16, F16, F32, 16, 16, 4, 4, D),
    s(0x4a, "v_mfma_f32_4x4x4_16b_f16", BOTH, F16, F16, F32, 4, 4, 4, 16, D),
    s(0x4b, "v_smfmac_f32_32x32x64_bf8_bf8", G950, Bf8, Bf8, F32, 32, 32, 64, 1, SP),
    s(0x4c, "v_mfma_f32_32x32x8_f16", BOTH, F16, F16, F32, 32, 32, 8, 1, D),
    s(0x4d, "v_mfma_f32_16x16x16_f16", BOTH, F16, F16, F32, 16, 16, 16, 1, D),
    s(0x4e, "v_smfmac_f32_32x32x64_bf8_fp8", G950, Bf8, Fp8, F32, 32, 32, 64, 1, SP),
    s(0x4f, "v_smfmac_f32_32x32x64_fp8_bf8", G950, Fp8, Bf8, F32, 32, 32, 64, 1, SP),
    s(0x50, "v_mfma_i32_32x32x4_2b_i8", BOTH, I8, I8, I32, 32, 32, 4, 2, D),
    s(0x51, "v_mfma_i32_16x16x4_4b_i8", BOTH, I8, I8, I32, 16, 16, 4, 4, D),
    s(0x52, "v_mfma_i32_4x4x4_16b_i8", BOTH, I8, I8, I32, 4, 4, 4, 16, D),
    s(0x53, "v_smfmac_f32_32x32x64_fp8_fp8", G950, Fp8, Fp8, F32, 32, 32, 64, 1, SP),
    s(0x54, "v_mfma_f32_16x16x32_f16", G950, F16, F16, F32, 16, 16, 32, 1, D),
    s(0x55, "v_mfma_f32_32x32x16_f16", G950, F16, F16, F32, 32, 32, 16, 1, D),
    s(0x56, "v_mfma_i32_32x32x16_i8", BOTH, I8, I8, I32, 32, 32, 16, 1, D),
    s(0x57, "v_mfma_i32_16x16x32_i8", BOTH, I8, I8, I32, 16, 16, 32, 1, D),
    s(0x5a, "v_smfmac_f32_16x16x64_f16", G950, F16, F16, F32, 16, 16, 64, 1, SP),
    s(0x5b, "v_smfmac_f32_32x32x32_f16", G950, F16, F16, F32, 32, 32, 32, 1, SP),
    s(0x5d, "v_mfma_f32_32x32x4_2b_bf16", BOTH, BF16, BF16, F32, 32, 32, 4, 2, D),
    s(0x5e, "v_mfma_f32_16x16x4_4b_bf16", BOTH, BF16, BF16, F32, 16, 16, 4, 4, D),
    s(0x5f, "v_mfma_f32_4x4x4_16b_bf16", BOTH, BF16, BF16, F32, 4, 4, 4, 16, D),
    s(0x60, "v_mfma_f32_32x32x8_bf16", BOTH, BF16, BF16, F32, 32, 32, 8, 1, D),
    s(0x61, "v_mfma_f32_16x16x16_bf16", BOTH, BF16, BF16, F32, 16, 16, 16, 1, D),
    s(0x62, "v_smfmac_f32_16x16x32_f16", BOTH, F16, F16, F32, 16, 16, 32, 1, SP),
    s(0x64, "v_smfmac_f32_32x32x16_f16", BOTH, F16, F16, F32, 32, 32, 16, 1, SP),
    s(0x66, "v_smfmac_f32_16x16x32_bf16", BOTH, BF16, BF16, F32, 16, 16, 32, 1, SP),
    s(0x68, "v_smfmac_f32_32x32x16_bf16", BOTH, BF16, BF16, F32, 32, 32, 16, 1, SP),
    s(0x6a, "v_smfmac_i32_16x16x64_i8", BOTH, I8, I8, I32, 16, 16, 64, 1, SP),
    s(0x6c, "v_smfmac_i32_32x32x32_i8", BOTH, I8, I8, I32, 32, 32, 32, 1, SP),
    s(0x6e, "v_mfma_f64_16x16x4_f64", BOTH, F64, F64, F64, 16, 16, 4, 1, D),
    s(0x6f, "v_mfma_f64_4x4x4_4b_f64", BOTH, F64, F64, F64, 4, 4, 4, 4, D),
    s(0x70, "v_mfma_f32_16x16x32_bf8_bf8", BOTH, Bf8, Bf8, F32, 16, 16, 32, 1, D),
    s(0x71, "v_mfma_f32_16x16x32_bf8_fp8", BOTH, Bf8, Fp8, F32, 16, 16, 32, 1, D),
    s(0x72, "v_mfma_f32_16x16x32_fp8_bf8", BOTH, Fp8, Bf8, F32, 16, 16, 32, 1, D),
    s(0x73, "v_mfma_f32_16x16x32_fp8_fp8", BOTH, Fp8, Fp8, F32, 16, 16, 32, 1, D),
    s(0x74, "v_mfma_f32_32x32x16_bf8_bf8", BOTH, Bf8, Bf8, F32, 32, 32, 16, 1, D),
    s(0x75, "v_mfma_f32_32x32x16_bf8_fp8", BOTH, Bf8, Fp8, F32, 32, 32, 16, 1, D),
    s(0x76, "v_mfma_f32_32x32x16_fp8_bf8", BOTH, Fp8, Bf8, F32, 32, 32, 16, 1, D),
    s(0x77, "v_mfma_f32_32x32x16_fp8_fp8", BOTH, Fp8, Fp8, F32, 32, 32, 16, 1, D),
    s(0x78, "v_smfmac_f32_16x16x64_bf8_bf8", BOTH, Bf8, Bf8, F32, 16, 16, 64, 1, SP),
    s(0x79, "v_smfmac_f32_16x16x64_bf8_fp8", BOTH, Bf8, Fp8, F32, 16, 16, 64, 1, SP),
    s(0x7a, "v_smfmac_f32_16x16x64_fp8_bf8", BOTH, Fp8, Bf8, F32, 16, 16, 64, 1, SP),
    s(0x7b, "v_smfmac_f32_16x16x64_fp8_fp8", BOTH, Fp8, Fp8, F32, 16, 16, 64, 1, SP),
    s(0x7c, "v_smfmac_f32_32x32x32_bf8_bf8", BOTH, Bf8, Bf8, F32, 32, 32, 32, 1, SP),
    s(0x7d, "v_smfmac_f32_32x32x32_bf8_fp8", BOTH, Bf8, Fp8, F32, 32, 32, 32, 1, SP),
    s(0x7e, "v_smfmac_f32_32x32x32_fp8_bf8", BOTH, Fp8, Bf8, F32, 32, 32, 32, 1, SP),
    s(0x7f, "v_smfmac_f32_32x32x32_fp8_fp8", BOTH, Fp8, Fp8, F32, 32, 32, 32, 1, SP),
];

/// gfx950 `v_mfma_ld_scale_b32` (VOP3P): the first word of a scaled MFMA pair.
pub const LD_SCALE_OPCODE: u16 = 0x2c;

/// The MAI shape of a VOP3P opcode on `target`.
pub fn by_opcode(target: Target, opcode: u16) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.opcode == opcode && s.on(target))
}

pub fn by_mnemonic(target: Target, m: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.mnemonic == m && s.on(target))
}

/// The value type of C's constants.
fn c_type(cd: Elem) -> ValType {
    match cd {
        F64 => ValType::F64,
        I32 => ValType::B32,
        _ => ValType::F32,
    }
}

/// Operand shapes of one (shape, A width, B width, scaled form).
fn operands(s: &Shape, a: u8, b: u8, scaled: bool) -> Vec<OperandSpec> {
    let spec = |field, kind| OperandSpec { field, kind };
    let mut v = vec![
        spec(Field::Vop3Vdst, Kind::MaiDst { dwords: s.cd_dwords(), av: s.sparse }),
        spec(Field::Vop3Src0, Kind::MaiSrc { dwords: a, idx: 0 }),
        spec(Field::Vop3Src1, Kind::MaiSrc { dwords: b, idx: 1 }),
    ];
    if s.sparse {
        v.push(spec(
            Field::Vop3Src2,
            Kind::VSrcVgpr { dwords: 1, class: "VGPR_32", idx: 2, mods: crate::spec::SrcMods::ModsIgnored },
        ));
    } else {
        v.push(spec(Field::Vop3Src2, Kind::MaiSrcC { dwords: s.cd_dwords(), ty: c_type(s.cd) }));
    }
    if scaled {
        let scale = Kind::VSrcVgpr { dwords: 1, class: "VGPR_32", idx: 0, mods: crate::spec::SrcMods::ModsIgnored };
        v.push(spec(Field::MaiScaleSrc0, scale));
        v.push(spec(Field::MaiScaleSrc1, scale));
        v.push(spec(Field::MaiScaleOpSel, Kind::PkBits { name: "op_sel", srcs: 3, default: 0 }));
        v.push(spec(Field::MaiScaleOpSelHi, Kind::PkBits { name: "op_sel_hi", srcs: 3, default: 1 }));
    }
    v.push(spec(Field::Vop3pNegHi, Kind::MaiMod("cbsz")));
    if !scaled {
        v.push(spec(Field::MaiAbid, Kind::MaiMod("abid")));
    }
    if s.cd == F64 {
        v.push(spec(Field::Vop3pNegLo, Kind::PkBits { name: "neg", srcs: 3, default: 0 }));
    } else {
        v.push(spec(Field::Vop3pNegLo, Kind::MaiMod("blgp")));
    }
    v
}

/// One table entry per (target, shape, A width, B width): the f8f6f4 opcodes have one per
/// pair of operand formats' widths.
struct Entry {
    target: Target,
    opcode: u16,
    a: u8,
    b: u8,
    scaled: bool,
    info: &'static OpInfo,
}

fn entries() -> &'static [Entry] {
    static E: OnceLock<Vec<Entry>> = OnceLock::new();
    E.get_or_init(|| {
        let mut out = Vec::new();
        for target in [Target::Gfx942, Target::Gfx950] {
            for s in SHAPES.iter().filter(|s| s.on(target)) {
                let widths: Vec<(u8, u8)> = if s.a == F8f6f4 {
                    let w = [8u32, 6, 4];
                    w.iter().flat_map(|&x| w.iter().map(move |&y| (x, y))).map(|(x, y)| (s.a_dwords_for(x), s.b_dwords_for(y))).collect()
                } else {
                    vec![(s.a_dwords(), s.b_dwords())]
                };
                let scaled_forms: &[bool] = if s.a == F8f6f4 { &[false, true] } else { &[false] };
                for &scaled in scaled_forms {
                    let mnemonic: &'static str =
                        if scaled { Box::leak(s.mnemonic.replacen("v_mfma_", "v_mfma_scale_", 1).into_boxed_str()) } else { s.mnemonic };
                    for &(a, b) in &widths {
                        let ops: &'static [OperandSpec] = Box::leak(operands(s, a, b, scaled).into_boxed_slice());
                        let info: &'static OpInfo = Box::leak(Box::new(OpInfo { mnemonic, sem: crate::SemId::NONE, format: Format::Vop3p, opcode: s.opcode, operands: ops, unused: &[] }));
                        out.push(Entry { target, opcode: s.opcode, a, b, scaled, info });
                    }
                }
            }
        }
        out
    })
}

/// A/B registers per lane of an f8f6f4 operand whose format code is `code` (cbsz or blgp):
/// LLVM gives the codes without a format (5..=7) the 8-bit width.
fn f8f6f4_dwords(s: &Shape, code: u32, a: bool) -> u8 {
    let bits = SmallFloat::from_code(code).map_or(8, |f| f.bits());
    if a {
        s.a_dwords_for(bits)
    } else {
        s.b_dwords_for(bits)
    }
}

/// f8f6f4 (`word`: the MFMA word): LLVM checks an AGPR A or B against a255 at the 8-bit
/// formats' width (8 registers) whatever cbsz/blgp make the operand.
fn agpr_tuple_overflows(word: u64) -> bool {
    let over = |src: u64, acc: u64| src >= 256 && acc == 1 && src - 256 + 8 > 256;
    over((word >> 32) & 0x1ff, (word >> 59) & 1) || over((word >> 41) & 0x1ff, (word >> 60) & 1)
}

/// Decodes a GFX9 VOP3P word whose opcode is a MAI opcode of `target` (`None`: not one).
pub(crate) fn decode_mai(target: Target, bytes: &[u8], offset: usize, word: u64) -> Option<Result<Instruction, DecodeError>> {
    let w0 = word as u32;
    let opcode = ((w0 >> 16) & 0x7f) as u16;
    let s = by_opcode(target, opcode)?;
    let raw = |n: usize| bytes.get(offset..(offset + n).min(bytes.len())).map(|b| b.to_vec()).unwrap_or_default();
    let (cbsz, abid, blgp) = ((w0 >> 8) & 7, (w0 >> 11) & 0xf, (word >> 61) as u32);
    let (a, b) = if s.a == F8f6f4 { (f8f6f4_dwords(s, cbsz, true), f8f6f4_dwords(s, blgp, false)) } else { (s.a_dwords(), s.b_dwords()) };
    let invalid = || Some(Err(DecodeError::Invalid { offset, bytes: raw(8) }));
    // SMFMAC has no B lane pattern; the f8f6f4 opcodes take no abid (abid 1 marks the second
    // half of a scaled pair, decoded with its ld_scale word by `decode_scale_pair`).
    if (s.sparse && blgp != 0) || (s.a == F8f6f4 && abid != 0) {
        return invalid();
    }
    // f8f6f4 with a 6- or 4-bit format: LLVM prints a positive inline constant in A or B as
    // 0 and names a misaligned 6-SGPR tuple's class SGPR_256 (other scalar encodings crash
    // it): such words are not decoded until their text can be checked.
    let narrow = |c: u32| (2..=4).contains(&c);
    let scalar_ab = (word >> 32) & 0x1ff < 256 || (word >> 41) & 0x1ff < 256;
    if s.a == F8f6f4 && (narrow(cbsz) || narrow(blgp)) && scalar_ab {
        return Some(Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(12) }));
    }
    if s.a == F8f6f4 && agpr_tuple_overflows(word) {
        return invalid();
    }
    let e = entries().iter().find(|e| e.target == target && e.opcode == opcode && e.a == a && e.b == b && !e.scaled)?;
    let inst = bytes.get(offset..).unwrap_or(&[]);
    Some(match decode_fields(target, e.info, word as crate::spec::Word, inst) {
        Ok(Decoded { operands, literal, len }) => Ok(Instruction {
            target,
            info: e.info,
            offset,
            len: len as u8,
            literal,
            mods: Default::default(),
            cache: Default::default(),
            mem_offset: 0,
            word: word as crate::spec::Word,
            operands,
        }),
        Err(OperandError::Invalid) => Err(DecodeError::Invalid { offset, bytes: raw(8) }),
        Err(OperandError::Truncated) => Err(DecodeError::Truncated { offset, bytes: raw(12) }),
        Err(OperandError::Unsupported) => Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(8) }),
    })
}

/// Decodes a gfx950 `v_mfma_ld_scale_b32` word (`ld`, 64 bits) at `offset` as the first half of a
/// scaled MFMA when the next 8 bytes are an f8f6f4 MFMA with abid 1 (`None`: not a pair; the
/// ld_scale word then decodes on its own).
pub(crate) fn decode_scale_pair(target: Target, bytes: &[u8], offset: usize, ld: u64) -> Option<Result<Instruction, DecodeError>> {
    if target != Target::Gfx950 {
        return None;
    }
    let next = bytes.get(offset + 8..offset + 16)?;
    let mf = u64::from_le_bytes(next.try_into().ok()?);
    let m0 = mf as u32;
    let opcode = ((m0 >> 16) & 0x7f) as u16;
    if m0 & 0xff80_0000 != 0xd380_0000 || (m0 >> 11) & 0xf != 1 {
        return None;
    }
    let s = by_opcode(target, opcode).filter(|s| s.a == F8f6f4)?;
    let raw = |n: usize| bytes.get(offset..(offset + n).min(bytes.len())).map(|b| b.to_vec()).unwrap_or_default();
    let (cbsz, blgp) = ((m0 >> 8) & 7, (mf >> 61) as u32);
    let (a, b) = (f8f6f4_dwords(s, cbsz, true), f8f6f4_dwords(s, blgp, false));
    let scalar_ab = (mf >> 32) & 0x1ff < 256 || (mf >> 41) & 0x1ff < 256;
    let literal = ld >> 32 & 0x1ff == 255 || (ld >> 41) & 0x1ff == 255 || (mf >> 50) & 0x1ff == 255;
    if literal || scalar_ab {
        // LLVM 22 aborts on a literal (scale or C) and on many scalar or constant A/B encodings
        // (whatever the formats) in a pair: such words are not decoded.
        return Some(Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(16) }));
    }
    let e = entries().iter().find(|e| e.target == target && e.opcode == opcode && e.a == a && e.b == b && e.scaled)?;
    let word = mf as crate::spec::Word | (ld as crate::spec::Word) << 64;
    let inst = bytes.get(offset + 8..).unwrap_or(&[]);
    // LLVM takes a pair it cannot decode as a lone ld_scale word (`None` here).
    if agpr_tuple_overflows(mf) {
        return None;
    }
    Some(match decode_fields(target, e.info, word, inst) {
        Err(OperandError::Invalid) => return None,
        Ok(Decoded { operands, literal, len }) if len == 8 => Ok(Instruction {
            target,
            info: e.info,
            offset,
            len: 16,
            literal,
            mods: Default::default(),
            cache: Default::default(),
            mem_offset: 0,
            word,
            operands,
        }),
        Ok(_) => Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(16) }),
        Err(OperandError::Truncated) => Err(DecodeError::Truncated { offset, bytes: raw(16) }),
        Err(OperandError::Unsupported) => Err(DecodeError::Unsupported { format: Format::Vop3p, offset, bytes: raw(16) }),
    })
}

/// The MAI view of a decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mai {
    pub shape: &'static Shape,
    pub cbsz: u32,
    pub abid: u32,
    /// blgp (f64 shapes: the neg bits of A, B, C).
    pub blgp: u32,
    /// The gfx950 scaled form (`v_mfma_scale_*`).
    pub scaled: bool,
}

impl Instruction {
    /// The MAI shape and modifiers of an MFMA/SMFMAC instruction (`None` for others).
    pub fn mai(&self) -> Option<Mai> {
        if self.target == Target::Gfx1250 || self.format() != Format::Vop3p {
            return None;
        }
        let shape = by_opcode(self.target, self.info.opcode)?;
        let scaled = self.mnemonic().starts_with("v_mfma_scale_");
        if !scaled && shape.mnemonic != self.mnemonic() {
            return None;
        }
        let w = self.word;
        Some(Mai { shape, cbsz: ((w >> 8) & 7) as u32, abid: ((w >> 11) & 0xf) as u32, blgp: ((w >> 61) & 7) as u32, scaled })
    }
}
