//! Packed (VOP3P) operations: two independent halves per register (2 x 16-bit in a 32-bit
//! register, or 2 x 32-bit in a 64-bit register pair for v_pk_*_f32 / v_pk_mov_b32).
//!
//! Operand selection (ISA VOP3P rules): for source i, the low result half reads the high half
//! of `src[i]` if `op_sel` bit i is set (else its low half); the high result half reads the high
//! half if `op_sel_hi` bit i is set (else the low half). Then `neg_lo` bit i negates the value
//! used for the low half and `neg_hi` bit i the value used for the high half (float ops only;
//! integer ops ignore them). The assembler's default when op_sel_hi is not written is all ones.
//! The engine passes raw sources and these bits; it must not apply neg/abs itself.

use super::float as fl;
use super::FpMode;

/// A packed operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PkOp {
    AddF16,
    MulF16,
    FmaF16,
    MinF16,
    MaxF16,
    MinNumF16,
    MaxNumF16,
    MinNumBf16,
    MaxNumBf16,
    AddBf16,
    MulBf16,
    FmaBf16,
    AddU16,
    SubU16,
    AddI16,
    SubI16,
    MulLoU16,
    LshlrevB16,
    LshrrevB16,
    AshrrevI16,
    MinU16,
    MaxU16,
    MinI16,
    MaxI16,
    MadU16,
    MadI16,
    // 2 x 32-bit
    AddF32,
    MulF32,
    FmaF32,
    MovB32,
}

impl PkOp {
    /// True for the 2 x 32-bit forms (64-bit register operands).
    pub fn is_wide(self) -> bool {
        matches!(self, PkOp::AddF32 | PkOp::MulF32 | PkOp::FmaF32 | PkOp::MovB32)
    }
    pub fn arity(self) -> usize {
        match self {
            PkOp::FmaF16 | PkOp::FmaBf16 | PkOp::MadU16 | PkOp::MadI16 | PkOp::FmaF32 => 3,
            _ => 2,
        }
    }
    /// The bf16 forms. Their inline float constants are the f32 bits (bf16 value in the high
    /// half), not the f16 forms' low-half value: Triton's `tl.maximum(x, 0.5)` on bf16 compiles
    /// to `v_pk_min_num_bf16 v6, v4, -0.5 op_sel:[0,1] neg_lo:[1,0] neg_hi:[1,0]`, which reads
    /// the constant's high half for both results and computes numpy's answer only so
    /// (corpus/triton bf16_math).
    pub fn is_bf16(self) -> bool {
        matches!(self, PkOp::AddBf16 | PkOp::MulBf16 | PkOp::FmaBf16 | PkOp::MinNumBf16 | PkOp::MaxNumBf16)
    }
    /// Float halves (neg_lo/neg_hi negate them; inline float constants are their format's bits).
    pub fn is_float(self) -> bool {
        use PkOp::*;
        matches!(self, AddF16 | MulF16 | FmaF16 | MinF16 | MaxF16 | MinNumF16 | MaxNumF16 | MinNumBf16 | MaxNumBf16 | AddBf16 | MulBf16 | FmaBf16 | AddF32 | MulF32 | FmaF32)
    }
}

/// VOP3P modifier bits (bit i = source i).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PkMods {
    pub op_sel: u8,
    pub op_sel_hi: u8,
    pub neg_lo: u8,
    pub neg_hi: u8,
}

impl PkMods {
    /// The assembler default: no op_sel, op_sel_hi = `[1,1,1]`, no negation.
    pub const DEFAULT: PkMods = PkMods { op_sel: 0, op_sel_hi: 7, neg_lo: 0, neg_hi: 0 };
}

fn one16(op: PkOp, a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    use super::int;
    use PkOp::*;
    match op {
        AddF16 => fl::add_f16(a, b, m),
        MulF16 => fl::mul_f16(a, b, m),
        FmaF16 => fl::fma_f16(a, b, c, m),
        MinF16 => fl::min_f16(a, b, m),
        MaxF16 => fl::max_f16(a, b, m),
        MinNumF16 => fl::min_num_f16(a, b, m),
        MinNumBf16 => fl::min_num_bf16(a, b, m),
        MaxNumBf16 => fl::max_num_bf16(a, b, m),
        MaxNumF16 => fl::max_num_f16(a, b, m),
        AddBf16 => fl::add_bf16(a, b, m),
        MulBf16 => fl::mul_bf16(a, b, m),
        FmaBf16 => fl::fma_bf16(a, b, c, m),
        AddU16 | AddI16 => int::add_u16(a, b),
        SubU16 | SubI16 => int::sub_u16(a, b),
        MulLoU16 => int::mul_lo_u16(a, b),
        LshlrevB16 => int::lshlrev_b16(a, b),
        LshrrevB16 => int::lshrrev_b16(a, b),
        AshrrevI16 => int::ashrrev_i16(a, b),
        MinU16 => int::min_u(a as u64 & 0xffff, b as u64 & 0xffff) as u32,
        MaxU16 => int::max_u(a as u64 & 0xffff, b as u64 & 0xffff) as u32,
        MinI16 => int::min_s(a as u64 & 0xffff, b as u64 & 0xffff, 16) as u32,
        MaxI16 => int::max_s(a as u64 & 0xffff, b as u64 & 0xffff, 16) as u32,
        MadU16 | MadI16 => (a as u16).wrapping_mul(b as u16).wrapping_add(c as u16) as u32,
        AddF32 | MulF32 | FmaF32 | MovB32 => unreachable!("32-bit packed op in the 16-bit path"),
    }
}

/// Evaluate a 2 x 16-bit packed op on 32-bit registers.
pub fn pk16(op: PkOp, src: [u32; 3], mods: PkMods, m: &FpMode) -> u32 {
    let pick = |i: usize, hi_result: bool| -> u32 {
        let v = half16(&src, mods, i, hi_result);
        let neg = if hi_result { mods.neg_hi } else { mods.neg_lo } >> i & 1 != 0;
        if neg && op.is_float() { v ^ 0x8000 } else { v }
    };
    let lo = one16(op, pick(0, false), pick(1, false), pick(2, false), m) & 0xffff;
    let hi = one16(op, pick(0, true), pick(1, true), pick(2, true), m) & 0xffff;
    lo | hi << 16
}

/// The half of source `i` that op_sel (low result) or op_sel_hi (high result) picks.
fn half16(src: &[u32; 3], mods: PkMods, i: usize, hi_result: bool) -> u32 {
    let sel = if hi_result { mods.op_sel_hi } else { mods.op_sel } >> i & 1 != 0;
    if sel { src[i] >> 16 } else { src[i] & 0xffff }
}

/// The clamp form of the packed 16-bit integer adds and subtracts: each half saturates (the
/// unsigned ops to [0, 0xffff], the signed ones to [-0x8000, 0x7fff]); None for other ops.
/// (gfx942's Triton fp8 casts use `v_pk_sub_u16 .. clamp` as a saturating subtract.)
pub fn pk16_saturating(op: PkOp, src: [u32; 3], mods: PkMods) -> Option<u32> {
    use PkOp::*;
    if !matches!(op, AddU16 | SubU16 | AddI16 | SubI16) {
        return None;
    }
    let pick = |i: usize, hi: bool| -> i64 {
        let v = half16(&src, mods, i, hi);
        if matches!(op, AddI16 | SubI16) { v as u16 as i16 as i64 } else { v as i64 }
    };
    let one = |hi: bool| -> u32 {
        let (a, b) = (pick(0, hi), pick(1, hi));
        let r = if matches!(op, AddU16 | AddI16) { a + b } else { a - b };
        let (lo, top) = if matches!(op, AddI16 | SubI16) { (-0x8000, 0x7fff) } else { (0, 0xffff) };
        r.clamp(lo, top) as u32 & 0xffff
    };
    Some(one(false) | one(true) << 16)
}

/// Evaluate a 2 x 32-bit packed op (v_pk_add_f32, v_pk_mul_f32, v_pk_fma_f32, v_pk_mov_b32) on
/// 64-bit register pairs.
pub fn pk32(op: PkOp, src: [u64; 3], mods: PkMods, m: &FpMode) -> u64 {
    let pick = |i: usize, hi_result: bool| -> u32 {
        let sel = if hi_result { mods.op_sel_hi } else { mods.op_sel } >> i & 1 != 0;
        let v = if sel { (src[i] >> 32) as u32 } else { src[i] as u32 };
        let neg = if hi_result { mods.neg_hi } else { mods.neg_lo } >> i & 1 != 0;
        if neg && op.is_float() { v ^ 0x8000_0000 } else { v }
    };
    let one = |hi: bool| -> u32 {
        let (a, b, c) = (pick(0, hi), pick(1, hi), pick(2, hi));
        match op {
            PkOp::AddF32 => fl::add_f32(a, b, m),
            PkOp::MulF32 => fl::mul_f32(a, b, m),
            PkOp::FmaF32 => fl::fma_f32(a, b, c, m),
            _ => unreachable!(),
        }
    };
    if op == PkOp::MovB32 {
        // v_pk_mov_b32: D.lo = src0[op_sel[0]], D.hi = src1[op_sel[1]].
        let h = |i: usize| if mods.op_sel >> i & 1 != 0 { src[i] >> 32 } else { src[i] & 0xffff_ffff };
        return h(0) | h(1) << 32;
    }
    one(false) as u64 | (one(true) as u64) << 32
}

/// Mnemonic table for the packed ops.
pub fn pk_by_name(n: &str) -> Option<PkOp> {
    use PkOp::*;
    Some(match n {
        "v_pk_add_f16" => AddF16,
        "v_pk_mul_f16" => MulF16,
        "v_pk_fma_f16" | "v_pk_fmac_f16" => FmaF16,
        "v_pk_min_f16" => MinF16,
        "v_pk_max_f16" => MaxF16,
        "v_pk_min_num_f16" => MinNumF16,
        "v_pk_min_num_bf16" => MinNumBf16,
        "v_pk_max_num_bf16" => MaxNumBf16,
        "v_pk_max_num_f16" => MaxNumF16,
        "v_pk_add_bf16" => AddBf16,
        "v_pk_mul_bf16" => MulBf16,
        "v_pk_fma_bf16" => FmaBf16,
        "v_pk_add_u16" => AddU16,
        "v_pk_sub_u16" => SubU16,
        "v_pk_add_i16" => AddI16,
        "v_pk_sub_i16" => SubI16,
        "v_pk_mul_lo_u16" => MulLoU16,
        "v_pk_lshlrev_b16" => LshlrevB16,
        "v_pk_lshrrev_b16" => LshrrevB16,
        "v_pk_ashrrev_i16" => AshrrevI16,
        "v_pk_min_u16" => MinU16,
        "v_pk_max_u16" => MaxU16,
        "v_pk_min_i16" => MinI16,
        "v_pk_max_i16" => MaxI16,
        "v_pk_mad_u16" => MadU16,
        "v_pk_mad_i16" => MadI16,
        "v_pk_add_f32" => AddF32,
        "v_pk_mul_f32" => MulF32,
        "v_pk_fma_f32" => FmaF32,
        "v_pk_mov_b32" => MovB32,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn pk16_selection_and_negation() {
        let m = FpMode::default();
        // a = (hi 2.0, lo 1.0), b = (hi 4.0, lo 3.0) in f16.
        let a = 0x4000_3c00;
        let b = 0x4400_4200;
        assert_eq!(pk16(PkOp::AddF16, [a, b, 0], PkMods::DEFAULT, &m), 0x4600_4400); // (6, 4)
        // op_sel on src0: the low result takes a.hi: (2+3, 2+4) = (5, 6).
        let mods = PkMods { op_sel: 0b01, ..PkMods::DEFAULT };
        assert_eq!(pk16(PkOp::AddF16, [a, b, 0], mods, &m), 0x4600_4500);
        // op_sel_hi = 0 on src1: the high result takes b.lo: (1+3, 2+3) = (4, 5).
        let mods = PkMods { op_sel_hi: 0b101, ..PkMods::DEFAULT };
        assert_eq!(pk16(PkOp::AddF16, [a, b, 0], mods, &m), 0x4500_4400);
        // neg_hi on src0: (1+3, -2+4) = (4, 2).
        let mods = PkMods { neg_hi: 0b01, ..PkMods::DEFAULT };
        assert_eq!(pk16(PkOp::AddF16, [a, b, 0], mods, &m), 0x4000_4400);
        // Integer ops ignore neg bits and wrap per half.
        let mods = PkMods { neg_lo: 0b11, ..PkMods::DEFAULT };
        assert_eq!(pk16(PkOp::AddU16, [0xffff_0001, 0x0001_ffff, 0], mods, &m), 0);
        assert_eq!(pk16(PkOp::LshlrevB16, [0x0001_0004, 0x8001_0001, 0], PkMods::DEFAULT, &m), 0x0002_0010);
        assert_eq!(pk16(PkOp::MaxI16, [0x8000_0001, 0x0001_ffff, 0], PkMods::DEFAULT, &m), 0x0001_0001);
        assert_eq!(pk16(PkOp::FmaF16, [a, b, 0x3c00_3c00], PkMods::DEFAULT, &m), 0x4880_4400); // (9, 4)
        assert_eq!(pk16(PkOp::MulBf16, [0x4000_3f80, 0x4040_4040, 0], PkMods::DEFAULT, &m), 0x40c0_4040);
    }

    #[test]
    fn pk32_ops() {
        let m = FpMode::default();
        let a = (f(2.0) as u64) << 32 | f(1.0) as u64;
        let b = (f(8.0) as u64) << 32 | f(3.0) as u64;
        let pair = |lo: f32, hi: f32| (f(hi) as u64) << 32 | f(lo) as u64;
        assert_eq!(pk32(PkOp::MulF32, [a, b, 0], PkMods::DEFAULT, &m), pair(3.0, 16.0));
        assert_eq!(pk32(PkOp::AddF32, [a, b, 0], PkMods { neg_lo: 0b10, ..PkMods::DEFAULT }, &m), pair(-2.0, 10.0));
        assert_eq!(pk32(PkOp::FmaF32, [a, b, a], PkMods::DEFAULT, &m), pair(4.0, 18.0));
        // Broadcast the low half of src1 to both results (op_sel_hi[1] = 0).
        assert_eq!(pk32(PkOp::MulF32, [a, b, 0], PkMods { op_sel_hi: 0b101, ..PkMods::DEFAULT }, &m), pair(3.0, 6.0));
        // v_pk_mov_b32 d, a, b op_sel:[1,0] -> (a.hi, b.lo).
        assert_eq!(pk32(PkOp::MovB32, [a, b, 0], PkMods { op_sel: 0b01, op_sel_hi: 0, ..PkMods::default() }, &m), pair(2.0, 3.0));
        // op_sel:[0,1]: (a.lo, b.hi) -- the form llc emits to copy an SGPR pair.
        assert_eq!(pk32(PkOp::MovB32, [a, a, 0], PkMods { op_sel: 0b10, ..PkMods::default() }, &m), a);
        assert_eq!(pk_by_name("v_pk_fma_f32"), Some(PkOp::FmaF32));
        assert!(PkOp::FmaF32.is_wide() && !PkOp::FmaF16.is_wide());
        assert_eq!(PkOp::MadU16.arity(), 3);
    }

    #[test]
    fn saturating_halves() {
        // (a, b) halves: low 0x0005 - 0x0009 and high 0xfff0 + ... per op.
        let a = 0xfff0_0005u32;
        let b = 0x0020_0009u32;
        let d = PkMods::DEFAULT;
        assert_eq!(pk16_saturating(PkOp::SubU16, [a, b, 0], d), Some(0xffd0_0000));
        assert_eq!(pk16_saturating(PkOp::AddU16, [a, b, 0], d), Some(0xffff_000e));
        // Signed: 0xfff0 is -16, 0x0005 - 0x0009 = -4.
        assert_eq!(pk16_saturating(PkOp::SubI16, [a, b, 0], d), Some(0xffd0_fffc));
        assert_eq!(pk16_saturating(PkOp::AddI16, [0x7ff0_8001, 0x0020_8002, 0], d), Some(0x7fff_8000));
        // op_sel picks the high half of source 0 for the low result.
        let m = PkMods { op_sel: 1, ..d };
        assert_eq!(pk16_saturating(PkOp::SubU16, [a, b, 0], m), Some(0xffd0_ffe7));
        assert_eq!(pk16_saturating(PkOp::MulLoU16, [a, b, 0], d), None);
    }
}
