//! Table-driven entry point: [`by_name`] maps a mnemonic (either family's spelling, with or
//! without encoding suffixes) to an [`AluOp`] describing the operation, its operand and result
//! types and its flag inputs/outputs; [`eval`] runs it on operand bit patterns.
//!
//! Conventions for the engine:
//! * `srcs` are in assembly operand order, after the vector/scalar destination(s) and any
//!   carry/VCC destination. Literal constants take their place in that order (v_fmamk_f32
//!   d, s0, K, s1 computes s0*K+s1; v_fmaak_f32 d, s0, s1, K computes s0*s1+K; both are
//!   plain fma in operand order).
//! * `acc`: the destination is also the last source (v_fmac_*, v_mac_*, s_fmac_f32): the
//!   engine passes the old destination value as the last `src`.
//! * `flag_in = LaneMask`: a per-lane bit from VCC or the SGPR-pair operand (carry-in of
//!   v_addc/v_add_co_ci, the select of v_cndmask, the VCC of v_div_fmas); `Scc`: SCC.
//! * `flag_out = LaneMask`: a per-lane bit for VCC / the SGPR-pair destination (carry-out,
//!   v_div_scale's VCC, compare results — v_cmpx also writes EXEC, see `CmpName`); `Scc`: SCC.
//!   Compares have `dst == None`.
//! * Input modifiers (neg/abs) are applied by the engine before `eval`, except for
//!   `Op::FmaMix` and `Op::Pk` (VOP3P), which take raw sources and the neg/abs/op_sel/
//!   op_sel_hi/neg_hi bits in [`AluIn`].
//!   Output modifiers (omod, clamp) are applied by the engine after `eval`.
//! * 16-bit results are returned in the low 16 bits (zero high half) except the v_fma_mixlo/hi
//!   forms, which merge into `AluIn::old`. How a 16-bit VOP2/VOP3 result is written (high half
//!   zeroed on GFX9, preserved with op_sel/true16 on GFX12) is the engine's business.

use super::cmp::{parse_cmp, CmpName};
use super::float::{self as fl, MixDst};
use super::packed::{self as pk, PkMods, PkOp};
use super::fp8::{Fp8Fmt, Fp8Op};
use super::{convert as cv, int, salu, FpMode};

/// Operand/result types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    B16,
    U16,
    I16,
    F16,
    BF16,
    B32,
    U32,
    I32,
    F32,
    B64,
    U64,
    I64,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::B16 | Ty::U16 | Ty::I16 | Ty::F16 | Ty::BF16 => 16,
            Ty::B32 | Ty::U32 | Ty::I32 | Ty::F32 => 32,
            _ => 64,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::BF16 | Ty::F32 | Ty::F64)
    }
}

/// Flag inputs/outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flag {
    None,
    LaneMask,
    Scc,
}

/// What an instruction computes. One variant per distinct operation; several mnemonics
/// (GFX9 and GFX12 spellings, VOP2/VOP3/VOPD encodings) map to the same variant.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    // f32
    AddF32, SubF32, SubrevF32, MulF32, MulLegacyF32, FmaF32, MadF32,
    MinF32, MaxF32, MinNumF32, MaxNumF32, MinimumF32, MaximumF32,
    Min3F32, Max3F32, Med3F32, Min3NumF32, Max3NumF32, Med3NumF32, Minimum3F32, Maximum3F32,
    LdexpF32, FloorF32, CeilF32, TruncF32, RndneF32, FractF32,
    ExpF32, LogF32, RcpF32, RsqF32, SqrtF32, SinF32, CosF32, FrexpMantF32, FrexpExpF32,
    DivScaleF32, DivFmasF32, DivFixupF32,
    // f64
    AddF64, MulF64, FmaF64, MinF64, MaxF64, MinNumF64, MaxNumF64, MinimumF64, MaximumF64,
    LdexpF64, TrigPreopF64, TanhF32, FloorF64, CeilF64, TruncF64, RndneF64, FractF64, RcpF64, RsqF64, SqrtF64,
    FrexpMantF64, FrexpExpF64, DivScaleF64, DivFmasF64, DivFixupF64,
    // f16 / mixed
    AddF16, SubF16, SubrevF16, MulF16, FmaF16, MinF16, MaxF16, MinNumF16, MaxNumF16, LdexpF16,
    RcpF16, SqrtF16, DivFixupF16,
    FmaMix(MixDst),
    // conversions
    CvtI32F32, CvtU32F32, CvtF32I32, CvtF32U32, CvtI32F64, CvtU32F64, CvtF64I32, CvtF64U32,
    CvtF32F64, CvtF64F32, CvtF16F32, CvtF32F16, CvtF32Bf16, CvtPkBf16F32, CvtPkF16F32, CvtPkRtzF16F32,
    CvtF32Ubyte(u8), CvtRpiI32F32, CvtFlrI32F32, CvtF16U16, CvtF16I16, CvtU16F16, CvtI16F16,
    CvtPkU16U32, CvtPkI16I32,
    /// v_pack_b32_f16: S0's f16 in the low half, S1's in the high half (a move: source
    /// modifiers and op_sel apply, nothing is rounded or quietened).
    PackB32F16,
    // integer VALU
    AddU32, SubU32, SubrevU32, AddI32, SubI32, AddCoU32, SubCoU32, SubrevCoU32, AddcU32, SubbU32, SubbrevU32,
    AddU16, SubU16, AddI16, SubI16, SubrevU16, MulLoU16, LshlrevB16, LshrrevB16, AshrrevI16,
    MinU16, MaxU16, MinI16, MaxI16,
    MulLoU32, MulHiU32, MulHiI32, MulU32U24, MulHiU32U24, MulI32I24, MulHiI32I24,
    MadU32U24, MadI32I24, MadU32U16, MadI32I16, MadU16, MadU32, MadU64U32, MadI64I32, MadNcU64U32, MadNcI64I32,
    MulU64, Add3U32, XadU32, LshlAddU32, AddLshlU32, LshlOrB32, AndOrB32, Or3B32, Xor3B32,
    BfeU32, BfeI32, BfiB32, BfmB32, AlignbitB32, AlignbyteB32, PermB32, Bitop3B32,
    BcntU32B32, MbcntLo, MbcntHi, BfrevB32, FfbhU32, FfblB32, FfbhI32,
    NotB32, AndB32, OrB32, XorB32, XnorB32, LshlrevB32, LshrrevB32, AshrrevI32,
    LshlrevB64, LshrrevB64, AshrrevI64, LshlAddU64, AddNcU64, SubNcU64,
    MinU32, MaxU32, MinI32, MaxI32, Min3U32, Max3U32, Med3U32, Min3I32, Max3I32, Med3I32,
    MinU64, MaxU64, MinI64, MaxI64, MovB32, MovB16, MovB64, OrB16, AndB16, XorB16, NotB16, CvtU32U16, Cndmask, SadU32, SadU8,
    // SALU
    SAddU32, SSubU32, SAddcU32, SSubbU32, SAddI32, SSubI32, SMulI32, SMulHiU32, SMulHiI32, SMulU64,
    SAddNcU64, SSubNcU64,
    SAndB32, SOrB32, SXorB32, SAndn2B32, SOrn2B32, SNandB32, SNorB32, SXnorB32, SNotB32,
    SAndB64, SOrB64, SXorB64, SAndn2B64, SOrn2B64, SNandB64, SNorB64, SXnorB64, SNotB64,
    SLshlB32, SLshrB32, SAshrI32, SLshlB64, SLshrB64, SAshrI64, SLshlAddU32(u8),
    SMinI32, SMinU32, SMaxI32, SMaxU32, SBfeU32, SBfeI32, SBfeU64, SBfeI64, SBfmB32, SBfmB64,
    SBcnt1B32, SBcnt1B64, SBcnt0B32, SBcnt0B64, SFf1B32, SFf1B64, SFlbitB32, SFlbitB64, SFlbitI32,
    SBrevB32, SBrevB64, SAbsI32, SAbsdiffI32, SCselectB32, SCselectB64, SCmovB32, SCmovB64,
    SMovB32, SMovB64, SMovkI32, SAddkI32, SMulkI32, SSextI32I8, SSextI32I16,
    SPackLl, SPackLh, SPackHl, SPackHh, SBitcmp0B32, SBitcmp1B32, SBitcmp0B64, SBitcmp1B64,
    SBitset0B32, SBitset1B32, SBitset0B64, SBitset1B64,
    /// gfx1250 fp8/bf8 conversions: byte/word selects, clamp and the old destination word from
    /// `AluIn` (see `fp8.rs`).
    Fp8(Fp8Op),
    /// min(max(a, b), c) and max(min(a, b), c) of the `_num` (minimumNumber/maximumNumber)
    /// and IEEE 754-2019 minimum/maximum families.
    MaxminNumF32, MinmaxNumF32, MaxminNumF16, MinmaxNumF16,
    MaximumminimumF32, MinimummaximumF32, MaximumminimumF16, MinimummaximumF16,
    /// VOP3P packed ops (v_pk_*): raw sources; modifiers from `AluIn` (op_sel, op_sel_hi,
    /// neg = neg_lo, neg_hi).
    Pk(PkOp),
    // compares (VALU and SALU)
    Cmp(CmpName),
}

/// One resolved mnemonic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AluOp {
    /// The canonical name the entry is registered under ("v_cmp" / "s_cmp" for compares and
    /// "v_pk" for packed ops, which are parsed rather than listed).
    pub name: &'static str,
    pub op: Op,
    /// Source types, assembly order.
    pub srcs: &'static [Ty],
    /// Destination type; `None` for compares (their result is the flag).
    pub dst: Option<Ty>,
    pub flag_in: Flag,
    pub flag_out: Flag,
    /// The destination is also the last source (fmac/mac).
    pub acc: bool,
    /// A scalar (SALU) instruction.
    pub salu: bool,
}

/// Inputs to [`eval`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AluIn {
    /// Source bit patterns (zero-extended), assembly order.
    pub src: [u64; 3],
    /// The flag input (lane mask bit or SCC), if the op has one.
    pub flag: bool,
    /// Lane id (for v_mbcnt_*).
    pub lane: u32,
    /// Old destination value (v_fma_mixlo/hi merge, s_cmov, s_bitset).
    pub old: u64,
    /// Instruction modifier bits used by `Op::FmaMix` (bit i = source i) and the v_bitop3 truth
    /// table in `imm`.
    pub op_sel: u8,
    pub op_sel_hi: u8,
    pub neg: u8,
    pub abs: u8,
    /// VOP3P neg_hi (packed ops; `neg` is neg_lo there).
    pub neg_hi: u8,
    /// The byte select of the fp8 conversions (`Op::Fp8`).
    pub byte_sel: u8,
    /// The clamp bit, for ops that apply it themselves (`Op::Fp8` saturation).
    pub clamp: bool,
    pub imm: u32,
}

/// Result of [`eval`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AluOut {
    pub value: u64,
    /// The flag output (carry / VCC / compare bit / SCC) if the op produces one.
    pub flag: Option<bool>,
}

use Flag as Fl;
use Ty::*;

const fn v(name: &'static str, op: Op, srcs: &'static [Ty], dst: Ty) -> AluOp {
    AluOp { name, op, srcs, dst: Some(dst), flag_in: Fl::None, flag_out: Fl::None, acc: false, salu: false }
}
const fn s(name: &'static str, op: Op, srcs: &'static [Ty], dst: Ty, scc_in: bool, scc_out: bool) -> AluOp {
    AluOp {
        name,
        op,
        srcs,
        dst: Some(dst),
        flag_in: if scc_in { Fl::Scc } else { Fl::None },
        flag_out: if scc_out { Fl::Scc } else { Fl::None },
        acc: false,
        salu: true,
    }
}
impl AluOp {
    const fn fin(self) -> AluOp {
        AluOp { flag_in: Fl::LaneMask, ..self }
    }
    const fn fout(self) -> AluOp {
        AluOp { flag_out: Fl::LaneMask, ..self }
    }
    const fn acc(self) -> AluOp {
        AluOp { acc: true, ..self }
    }
}

const F1: &[Ty] = &[F32];
const F2: &[Ty] = &[F32, F32];
const F3: &[Ty] = &[F32, F32, F32];
const D1: &[Ty] = &[F64];
const D2: &[Ty] = &[F64, F64];
const D3: &[Ty] = &[F64, F64, F64];
const H1: &[Ty] = &[F16];
const H2: &[Ty] = &[F16, F16];
const H3: &[Ty] = &[F16, F16, F16];
const U1: &[Ty] = &[U32];
const U2: &[Ty] = &[U32, U32];
const U3: &[Ty] = &[U32, U32, U32];
const I2: &[Ty] = &[I32, I32];
const I3: &[Ty] = &[I32, I32, I32];
const B1: &[Ty] = &[B32];
const B2: &[Ty] = &[B32, B32];
const B3: &[Ty] = &[B32, B32, B32];
const W2: &[Ty] = &[U16, U16];
const S2: &[Ty] = &[I16, I16];
const Q1: &[Ty] = &[B64];
const Q2: &[Ty] = &[B64, B64];
const UQ2: &[Ty] = &[U64, U64];
const IQ2: &[Ty] = &[I64, I64];
const SH64: &[Ty] = &[U32, B64]; // rev shift: amount, value
const SSH64: &[Ty] = &[B64, U32]; // SALU shift: value, amount
const MAD64: &[Ty] = &[U32, U32, U64];
const MADI64: &[Ty] = &[I32, I32, I64];
const MIX: &[Ty] = &[B32, B32, B32];

/// Every VALU/SALU arithmetic, logic and conversion mnemonic (compares are parsed separately).
static TABLE: &[AluOp] = &[
    // ---- f32
    v("v_add_f32", Op::AddF32, F2, F32),
    v("v_sub_f32", Op::SubF32, F2, F32),
    v("v_subrev_f32", Op::SubrevF32, F2, F32),
    v("v_mul_f32", Op::MulF32, F2, F32),
    v("v_mul_legacy_f32", Op::MulLegacyF32, F2, F32),
    v("v_mul_dx9_zero_f32", Op::MulLegacyF32, F2, F32),
    v("v_fma_f32", Op::FmaF32, F3, F32),
    v("v_fmac_f32", Op::FmaF32, F3, F32).acc(),
    v("v_fmamk_f32", Op::FmaF32, F3, F32),
    v("v_fmaak_f32", Op::FmaF32, F3, F32),
    v("v_mad_f32", Op::MadF32, F3, F32),
    v("v_mac_f32", Op::MadF32, F3, F32).acc(),
    v("v_min_f32", Op::MinF32, F2, F32),
    v("v_max_f32", Op::MaxF32, F2, F32),
    v("v_min_num_f32", Op::MinNumF32, F2, F32),
    v("v_max_num_f32", Op::MaxNumF32, F2, F32),
    v("v_minimum_f32", Op::MinimumF32, F2, F32),
    v("v_maximum_f32", Op::MaximumF32, F2, F32),
    v("v_min3_f32", Op::Min3F32, F3, F32),
    v("v_max3_f32", Op::Max3F32, F3, F32),
    v("v_med3_f32", Op::Med3F32, F3, F32),
    v("v_min3_num_f32", Op::Min3NumF32, F3, F32),
    v("v_maxmin_num_f32", Op::MaxminNumF32, F3, F32),
    v("v_minmax_num_f32", Op::MinmaxNumF32, F3, F32),
    v("v_maximumminimum_f32", Op::MaximumminimumF32, F3, F32),
    v("v_minimummaximum_f32", Op::MinimummaximumF32, F3, F32),
    v("v_max3_num_f32", Op::Max3NumF32, F3, F32),
    v("v_med3_num_f32", Op::Med3NumF32, F3, F32),
    v("v_minimum3_f32", Op::Minimum3F32, F3, F32),
    v("v_maximum3_f32", Op::Maximum3F32, F3, F32),
    v("v_ldexp_f32", Op::LdexpF32, &[F32, I32], F32),
    v("v_floor_f32", Op::FloorF32, F1, F32),
    v("v_ceil_f32", Op::CeilF32, F1, F32),
    v("v_trunc_f32", Op::TruncF32, F1, F32),
    v("v_rndne_f32", Op::RndneF32, F1, F32),
    v("v_fract_f32", Op::FractF32, F1, F32),
    v("v_exp_f32", Op::ExpF32, F1, F32),
    v("v_log_f32", Op::LogF32, F1, F32),
    v("v_rcp_f32", Op::RcpF32, F1, F32),
    v("v_rcp_iflag_f32", Op::RcpF32, F1, F32),
    v("v_rsq_f32", Op::RsqF32, F1, F32),
    v("v_sqrt_f32", Op::SqrtF32, F1, F32),
    v("v_sin_f32", Op::SinF32, F1, F32),
    v("v_cos_f32", Op::CosF32, F1, F32),
    v("v_frexp_mant_f32", Op::FrexpMantF32, F1, F32),
    v("v_frexp_exp_i32_f32", Op::FrexpExpF32, F1, I32),
    v("v_div_scale_f32", Op::DivScaleF32, F3, F32).fout(),
    v("v_div_fmas_f32", Op::DivFmasF32, F3, F32).fin(),
    v("v_div_fixup_f32", Op::DivFixupF32, F3, F32),
    // ---- f64
    v("v_add_f64", Op::AddF64, D2, F64),
    v("v_mul_f64", Op::MulF64, D2, F64),
    v("v_fma_f64", Op::FmaF64, D3, F64),
    v("v_fmac_f64", Op::FmaF64, D3, F64).acc(),
    // gfx1250: the K operand is a 64-bit literal.
    v("v_fmamk_f64", Op::FmaF64, D3, F64),
    v("v_fmaak_f64", Op::FmaF64, D3, F64),
    v("v_min_f64", Op::MinF64, D2, F64),
    v("v_max_f64", Op::MaxF64, D2, F64),
    v("v_min_num_f64", Op::MinNumF64, D2, F64),
    v("v_max_num_f64", Op::MaxNumF64, D2, F64),
    v("v_minimum_f64", Op::MinimumF64, D2, F64),
    v("v_maximum_f64", Op::MaximumF64, D2, F64),
    v("v_ldexp_f64", Op::LdexpF64, &[F64, I32], F64),
    v("v_trig_preop_f64", Op::TrigPreopF64, &[F64, U32], F64),
    v("v_tanh_f32", Op::TanhF32, F1, F32),
    v("v_floor_f64", Op::FloorF64, D1, F64),
    v("v_ceil_f64", Op::CeilF64, D1, F64),
    v("v_trunc_f64", Op::TruncF64, D1, F64),
    v("v_rndne_f64", Op::RndneF64, D1, F64),
    v("v_fract_f64", Op::FractF64, D1, F64),
    v("v_rcp_f64", Op::RcpF64, D1, F64),
    v("v_rsq_f64", Op::RsqF64, D1, F64),
    v("v_sqrt_f64", Op::SqrtF64, D1, F64),
    v("v_frexp_mant_f64", Op::FrexpMantF64, D1, F64),
    v("v_frexp_exp_i32_f64", Op::FrexpExpF64, D1, I32),
    v("v_div_scale_f64", Op::DivScaleF64, D3, F64).fout(),
    v("v_div_fmas_f64", Op::DivFmasF64, D3, F64).fin(),
    v("v_div_fixup_f64", Op::DivFixupF64, D3, F64),
    // ---- f16 and mixed precision
    v("v_add_f16", Op::AddF16, H2, F16),
    v("v_sub_f16", Op::SubF16, H2, F16),
    v("v_subrev_f16", Op::SubrevF16, H2, F16),
    v("v_mul_f16", Op::MulF16, H2, F16),
    v("v_fma_f16", Op::FmaF16, H3, F16),
    v("v_fmac_f16", Op::FmaF16, H3, F16).acc(),
    v("v_min_f16", Op::MinF16, H2, F16),
    v("v_max_f16", Op::MaxF16, H2, F16),
    v("v_min_num_f16", Op::MinNumF16, H2, F16),
    v("v_maxmin_num_f16", Op::MaxminNumF16, H3, F16),
    v("v_minmax_num_f16", Op::MinmaxNumF16, H3, F16),
    v("v_maximumminimum_f16", Op::MaximumminimumF16, H3, F16),
    v("v_minimummaximum_f16", Op::MinimummaximumF16, H3, F16),
    v("v_max_num_f16", Op::MaxNumF16, H2, F16),
    v("v_ldexp_f16", Op::LdexpF16, &[F16, I16], F16),
    v("v_rcp_f16", Op::RcpF16, H1, F16),
    v("v_sqrt_f16", Op::SqrtF16, H1, F16),
    v("v_div_fixup_f16", Op::DivFixupF16, H3, F16),
    v("v_fma_mix_f32", Op::FmaMix(MixDst::F32), MIX, F32),
    v("v_fma_mix_f32_bf16", Op::FmaMix(MixDst::F32Bf16), MIX, F32),
    v("v_fma_mixlo_f16", Op::FmaMix(MixDst::LoF16), MIX, B32),
    v("v_fma_mixhi_f16", Op::FmaMix(MixDst::HiF16), MIX, B32),
    v("v_fma_mixlo_bf16", Op::FmaMix(MixDst::LoBf16), MIX, B32),
    v("v_fma_mixhi_bf16", Op::FmaMix(MixDst::HiBf16), MIX, B32),
    // ---- conversions
    v("v_cvt_i32_f32", Op::CvtI32F32, F1, I32),
    v("v_cvt_u32_f32", Op::CvtU32F32, F1, U32),
    v("v_cvt_f32_i32", Op::CvtF32I32, &[I32], F32),
    v("v_cvt_f32_u32", Op::CvtF32U32, U1, F32),
    v("v_cvt_i32_f64", Op::CvtI32F64, D1, I32),
    v("v_cvt_u32_f64", Op::CvtU32F64, D1, U32),
    v("v_cvt_f64_i32", Op::CvtF64I32, &[I32], F64),
    v("v_cvt_f64_u32", Op::CvtF64U32, U1, F64),
    v("v_cvt_f32_f64", Op::CvtF32F64, D1, F32),
    v("v_cvt_f64_f32", Op::CvtF64F32, F1, F64),
    v("v_cvt_f16_f32", Op::CvtF16F32, F1, F16),
    v("v_cvt_f32_f16", Op::CvtF32F16, H1, F32),
    v("v_cvt_f32_bf16", Op::CvtF32Bf16, &[BF16], F32),
    v("v_cvt_pk_bf16_f32", Op::CvtPkBf16F32, F2, B32),
    v("v_cvt_pk_f16_f32", Op::CvtPkF16F32, F2, B32),
    v("v_cvt_pkrtz_f16_f32", Op::CvtPkRtzF16F32, F2, B32),
    v("v_cvt_pk_rtz_f16_f32", Op::CvtPkRtzF16F32, F2, B32),
    v("v_cvt_f32_ubyte0", Op::CvtF32Ubyte(0), U1, F32),
    v("v_cvt_f32_ubyte1", Op::CvtF32Ubyte(1), U1, F32),
    v("v_cvt_f32_ubyte2", Op::CvtF32Ubyte(2), U1, F32),
    v("v_cvt_f32_ubyte3", Op::CvtF32Ubyte(3), U1, F32),
    v("v_cvt_rpi_i32_f32", Op::CvtRpiI32F32, F1, I32),
    v("v_cvt_nearest_i32_f32", Op::CvtRpiI32F32, F1, I32),
    v("v_cvt_flr_i32_f32", Op::CvtFlrI32F32, F1, I32),
    v("v_cvt_floor_i32_f32", Op::CvtFlrI32F32, F1, I32),
    v("v_cvt_f16_u16", Op::CvtF16U16, &[U16], F16),
    v("v_cvt_f16_i16", Op::CvtF16I16, &[I16], F16),
    v("v_cvt_u16_f16", Op::CvtU16F16, H1, U16),
    v("v_cvt_i16_f16", Op::CvtI16F16, H1, I16),
    v("v_cvt_pk_u16_u32", Op::CvtPkU16U32, U2, B32),
    v("v_pack_b32_f16", Op::PackB32F16, H2, B32),
    v("v_cvt_pk_i16_i32", Op::CvtPkI16I32, I2, B32),
    // gfx1250 fp8 (E4M3) / bf8 (E5M2), OCP formats.
    v("v_cvt_pk_fp8_f32", Op::Fp8(Fp8Op::PkFromF32(Fp8Fmt::E4M3)), F2, B32),
    v("v_cvt_pk_bf8_f32", Op::Fp8(Fp8Op::PkFromF32(Fp8Fmt::E5M2)), F2, B32),
    v("v_cvt_pk_fp8_f16", Op::Fp8(Fp8Op::PkFromF16(Fp8Fmt::E4M3)), B1, B32),
    v("v_cvt_pk_bf8_f16", Op::Fp8(Fp8Op::PkFromF16(Fp8Fmt::E5M2)), B1, B32),
    v("v_cvt_f32_fp8", Op::Fp8(Fp8Op::ToF32(Fp8Fmt::E4M3)), B1, F32),
    v("v_cvt_f32_bf8", Op::Fp8(Fp8Op::ToF32(Fp8Fmt::E5M2)), B1, F32),
    v("v_cvt_f16_fp8", Op::Fp8(Fp8Op::ToF16(Fp8Fmt::E4M3)), B1, F16),
    v("v_cvt_f16_bf8", Op::Fp8(Fp8Op::ToF16(Fp8Fmt::E5M2)), B1, F16),
    v("v_cvt_pk_f32_fp8", Op::Fp8(Fp8Op::PkToF32(Fp8Fmt::E4M3)), B1, B64),
    v("v_cvt_pk_f32_bf8", Op::Fp8(Fp8Op::PkToF32(Fp8Fmt::E5M2)), B1, B64),
    v("v_cvt_pk_f16_fp8", Op::Fp8(Fp8Op::PkToF16(Fp8Fmt::E4M3)), B1, B32),
    v("v_cvt_pk_f16_bf8", Op::Fp8(Fp8Op::PkToF16(Fp8Fmt::E5M2)), B1, B32),
    // ---- integer add/sub (GFX9 spelling first, then GFX10+/GFX12)
    v("v_add_u32", Op::AddU32, U2, U32),
    v("v_add_nc_u32", Op::AddU32, U2, U32),
    v("v_sub_u32", Op::SubU32, U2, U32),
    v("v_sub_nc_u32", Op::SubU32, U2, U32),
    v("v_subrev_u32", Op::SubrevU32, U2, U32),
    v("v_subrev_nc_u32", Op::SubrevU32, U2, U32),
    v("v_add_i32", Op::AddI32, I2, I32),
    v("v_add_nc_i32", Op::AddI32, I2, I32),
    v("v_sub_i32", Op::SubI32, I2, I32),
    v("v_sub_nc_i32", Op::SubI32, I2, I32),
    v("v_add_co_u32", Op::AddCoU32, U2, U32).fout(),
    v("v_sub_co_u32", Op::SubCoU32, U2, U32).fout(),
    v("v_subrev_co_u32", Op::SubrevCoU32, U2, U32).fout(),
    v("v_addc_co_u32", Op::AddcU32, U2, U32).fin().fout(),
    v("v_add_co_ci_u32", Op::AddcU32, U2, U32).fin().fout(),
    v("v_subb_co_u32", Op::SubbU32, U2, U32).fin().fout(),
    v("v_sub_co_ci_u32", Op::SubbU32, U2, U32).fin().fout(),
    v("v_subbrev_co_u32", Op::SubbrevU32, U2, U32).fin().fout(),
    v("v_subrev_co_ci_u32", Op::SubbrevU32, U2, U32).fin().fout(),
    v("v_add_u16", Op::AddU16, W2, U16),
    v("v_add_nc_u16", Op::AddU16, W2, U16),
    v("v_sub_u16", Op::SubU16, W2, U16),
    v("v_sub_nc_u16", Op::SubU16, W2, U16),
    // Wrapping sums as the u16 forms; they differ under clamp (signed saturation).
    v("v_add_nc_i16", Op::AddI16, S2, I16),
    v("v_sub_nc_i16", Op::SubI16, S2, I16),
    v("v_subrev_u16", Op::SubrevU16, W2, U16),
    v("v_mul_lo_u16", Op::MulLoU16, W2, U16),
    v("v_lshlrev_b16", Op::LshlrevB16, W2, U16),
    v("v_lshrrev_b16", Op::LshrrevB16, W2, U16),
    v("v_ashrrev_i16", Op::AshrrevI16, &[U16, I16], I16),
    v("v_min_u16", Op::MinU16, W2, U16),
    v("v_max_u16", Op::MaxU16, W2, U16),
    v("v_min_i16", Op::MinI16, S2, I16),
    v("v_max_i16", Op::MaxI16, S2, I16),
    // ---- multiplies
    v("v_mul_lo_u32", Op::MulLoU32, U2, U32),
    v("v_mul_hi_u32", Op::MulHiU32, U2, U32),
    v("v_mul_hi_i32", Op::MulHiI32, I2, I32),
    v("v_mul_u32_u24", Op::MulU32U24, U2, U32),
    v("v_mul_hi_u32_u24", Op::MulHiU32U24, U2, U32),
    v("v_mul_i32_i24", Op::MulI32I24, I2, I32),
    v("v_mul_hi_i32_i24", Op::MulHiI32I24, I2, I32),
    v("v_mad_u32_u24", Op::MadU32U24, U3, U32),
    v("v_mad_i32_i24", Op::MadI32I24, I3, I32),
    v("v_mad_u32_u16", Op::MadU32U16, &[U16, U16, U32], U32),
    // v_mad_u16 / v_mad_i16: the low 16 bits of a * b + c (the same bits for both signs).
    v("v_mad_u16", Op::MadU16, &[U16, U16, U16], U16),
    v("v_mad_i16", Op::MadU16, &[I16, I16, I16], I16),
    v("v_mad_i32_i16", Op::MadI32I16, &[I16, I16, I32], I32),
    v("v_mad_u32", Op::MadU32, U3, U32),
    v("v_mad_u64_u32", Op::MadU64U32, MAD64, U64).fout(),
    v("v_mad_co_u64_u32", Op::MadU64U32, MAD64, U64).fout(),
    v("v_mad_i64_i32", Op::MadI64I32, MADI64, I64).fout(),
    v("v_mad_co_i64_i32", Op::MadI64I32, MADI64, I64).fout(),
    v("v_mad_nc_u64_u32", Op::MadNcU64U32, MAD64, U64),
    v("v_mad_nc_i64_i32", Op::MadNcI64I32, MADI64, I64),
    v("v_mul_u64", Op::MulU64, UQ2, U64),
    // ---- three-operand integer / bitwise
    v("v_add3_u32", Op::Add3U32, U3, U32),
    v("v_xad_u32", Op::XadU32, U3, U32),
    v("v_lshl_add_u32", Op::LshlAddU32, U3, U32),
    v("v_add_lshl_u32", Op::AddLshlU32, U3, U32),
    v("v_lshl_or_b32", Op::LshlOrB32, B3, B32),
    v("v_and_or_b32", Op::AndOrB32, B3, B32),
    v("v_or3_b32", Op::Or3B32, B3, B32),
    v("v_xor3_b32", Op::Xor3B32, B3, B32),
    v("v_bfe_u32", Op::BfeU32, U3, U32),
    v("v_bfe_i32", Op::BfeI32, &[I32, U32, U32], I32),
    v("v_bfi_b32", Op::BfiB32, B3, B32),
    v("v_bfm_b32", Op::BfmB32, B2, B32),
    v("v_alignbit_b32", Op::AlignbitB32, B3, B32),
    v("v_alignbyte_b32", Op::AlignbyteB32, B3, B32),
    v("v_perm_b32", Op::PermB32, B3, B32),
    v("v_bitop3_b32", Op::Bitop3B32, B3, B32),
    v("v_bcnt_u32_b32", Op::BcntU32B32, &[B32, U32], U32),
    v("v_mbcnt_lo_u32_b32", Op::MbcntLo, &[B32, U32], U32),
    v("v_mbcnt_hi_u32_b32", Op::MbcntHi, &[B32, U32], U32),
    v("v_bfrev_b32", Op::BfrevB32, B1, B32),
    v("v_ffbh_u32", Op::FfbhU32, U1, U32),
    v("v_clz_i32_u32", Op::FfbhU32, U1, I32),
    v("v_ffbl_b32", Op::FfblB32, B1, U32),
    v("v_ctz_i32_b32", Op::FfblB32, B1, I32),
    v("v_ffbh_i32", Op::FfbhI32, &[I32], I32),
    v("v_cls_i32", Op::FfbhI32, &[I32], I32),
    v("v_not_b32", Op::NotB32, B1, B32),
    v("v_and_b32", Op::AndB32, B2, B32),
    v("v_or_b32", Op::OrB32, B2, B32),
    v("v_xor_b32", Op::XorB32, B2, B32),
    v("v_xnor_b32", Op::XnorB32, B2, B32),
    v("v_lshlrev_b32", Op::LshlrevB32, U2, B32),
    v("v_lshrrev_b32", Op::LshrrevB32, U2, B32),
    v("v_ashrrev_i32", Op::AshrrevI32, &[U32, I32], I32),
    v("v_lshlrev_b64", Op::LshlrevB64, SH64, B64),
    v("v_lshrrev_b64", Op::LshrrevB64, SH64, B64),
    v("v_ashrrev_i64", Op::AshrrevI64, &[U32, I64], I64),
    v("v_lshl_add_u64", Op::LshlAddU64, &[U64, U32, U64], U64),
    v("v_add_nc_u64", Op::AddNcU64, UQ2, U64),
    v("v_sub_nc_u64", Op::SubNcU64, UQ2, U64),
    v("v_min_u32", Op::MinU32, U2, U32),
    v("v_max_u32", Op::MaxU32, U2, U32),
    v("v_min_i32", Op::MinI32, I2, I32),
    v("v_max_i32", Op::MaxI32, I2, I32),
    v("v_min3_u32", Op::Min3U32, U3, U32),
    v("v_max3_u32", Op::Max3U32, U3, U32),
    v("v_med3_u32", Op::Med3U32, U3, U32),
    v("v_min3_i32", Op::Min3I32, I3, I32),
    v("v_max3_i32", Op::Max3I32, I3, I32),
    v("v_med3_i32", Op::Med3I32, I3, I32),
    v("v_min_u64", Op::MinU64, UQ2, U64),
    v("v_max_u64", Op::MaxU64, UQ2, U64),
    v("v_min_i64", Op::MinI64, IQ2, I64),
    v("v_max_i64", Op::MaxI64, IQ2, I64),
    v("v_mov_b32", Op::MovB32, B1, B32),
    // gfx90a+ moves between the VGPR and AGPR files (the operands name the files).
    v("v_accvgpr_read_b32", Op::MovB32, B1, B32),
    v("v_accvgpr_write_b32", Op::MovB32, B1, B32),
    v("v_accvgpr_mov_b32", Op::MovB32, B1, B32),
    v("v_mov_b64", Op::MovB64, Q1, B64),
    // gfx1250 true16 v_mov_b16 (e32/e64): a 16-bit copy; the halves are the engine's (op_sel).
    v("v_mov_b16", Op::MovB16, &[B16], B16),
    // gfx1250 16-bit OR and zero extension (Triton's dot_scaled w8 builds).
    v("v_or_b16", Op::OrB16, &[B16, B16], B16),
    v("v_and_b16", Op::AndB16, &[B16, B16], B16),
    v("v_xor_b16", Op::XorB16, &[B16, B16], B16),
    v("v_not_b16", Op::NotB16, &[B16], B16),
    v("v_cvt_u32_u16", Op::CvtU32U16, &[U16], U32),
    v("v_cndmask_b32", Op::Cndmask, B2, B32).fin(),
    // The 16-bit select (gfx1250 VOP3; Triton's f16 `tl.where`): f16-typed sources (inline float
    // constants are f16 values, neg/abs flip/clear bit 15), the bits selected unchanged.
    v("v_cndmask_b16", Op::Cndmask, H2, B16).fin(),
    v("v_sad_u32", Op::SadU32, U3, U32),
    v("v_sad_u8", Op::SadU8, U3, U32),
    // ---- SALU arithmetic (GFX9 spelling, GFX12 spelling)
    s("s_add_u32", Op::SAddU32, U2, U32, false, true),
    s("s_add_co_u32", Op::SAddU32, U2, U32, false, true),
    s("s_sub_u32", Op::SSubU32, U2, U32, false, true),
    s("s_sub_co_u32", Op::SSubU32, U2, U32, false, true),
    s("s_addc_u32", Op::SAddcU32, U2, U32, true, true),
    s("s_add_co_ci_u32", Op::SAddcU32, U2, U32, true, true),
    s("s_subb_u32", Op::SSubbU32, U2, U32, true, true),
    s("s_sub_co_ci_u32", Op::SSubbU32, U2, U32, true, true),
    s("s_add_i32", Op::SAddI32, I2, I32, false, true),
    s("s_add_co_i32", Op::SAddI32, I2, I32, false, true),
    s("s_sub_i32", Op::SSubI32, I2, I32, false, true),
    s("s_sub_co_i32", Op::SSubI32, I2, I32, false, true),
    s("s_addk_i32", Op::SAddkI32, &[I32, I16], I32, false, true),
    s("s_addk_co_i32", Op::SAddkI32, &[I32, I16], I32, false, true),
    s("s_mul_i32", Op::SMulI32, I2, I32, false, false),
    s("s_mulk_i32", Op::SMulkI32, &[I32, I16], I32, false, false),
    s("s_mul_hi_u32", Op::SMulHiU32, U2, U32, false, false),
    s("s_mul_hi_i32", Op::SMulHiI32, I2, I32, false, false),
    s("s_mul_u64", Op::SMulU64, UQ2, U64, false, false),
    s("s_add_nc_u64", Op::SAddNcU64, UQ2, U64, false, false),
    s("s_sub_nc_u64", Op::SSubNcU64, UQ2, U64, false, false),
    // ---- SALU logic
    s("s_and_b32", Op::SAndB32, B2, B32, false, true),
    s("s_or_b32", Op::SOrB32, B2, B32, false, true),
    s("s_xor_b32", Op::SXorB32, B2, B32, false, true),
    s("s_andn2_b32", Op::SAndn2B32, B2, B32, false, true),
    s("s_and_not1_b32", Op::SAndn2B32, B2, B32, false, true),
    s("s_orn2_b32", Op::SOrn2B32, B2, B32, false, true),
    s("s_or_not1_b32", Op::SOrn2B32, B2, B32, false, true),
    s("s_nand_b32", Op::SNandB32, B2, B32, false, true),
    s("s_nor_b32", Op::SNorB32, B2, B32, false, true),
    s("s_xnor_b32", Op::SXnorB32, B2, B32, false, true),
    s("s_not_b32", Op::SNotB32, B1, B32, false, true),
    s("s_and_b64", Op::SAndB64, Q2, B64, false, true),
    s("s_or_b64", Op::SOrB64, Q2, B64, false, true),
    s("s_xor_b64", Op::SXorB64, Q2, B64, false, true),
    s("s_andn2_b64", Op::SAndn2B64, Q2, B64, false, true),
    s("s_and_not1_b64", Op::SAndn2B64, Q2, B64, false, true),
    s("s_orn2_b64", Op::SOrn2B64, Q2, B64, false, true),
    s("s_or_not1_b64", Op::SOrn2B64, Q2, B64, false, true),
    s("s_nand_b64", Op::SNandB64, Q2, B64, false, true),
    s("s_nor_b64", Op::SNorB64, Q2, B64, false, true),
    s("s_xnor_b64", Op::SXnorB64, Q2, B64, false, true),
    s("s_not_b64", Op::SNotB64, Q1, B64, false, true),
    s("s_lshl_b32", Op::SLshlB32, U2, B32, false, true),
    s("s_lshr_b32", Op::SLshrB32, U2, B32, false, true),
    s("s_ashr_i32", Op::SAshrI32, &[I32, U32], I32, false, true),
    s("s_lshl_b64", Op::SLshlB64, SSH64, B64, false, true),
    s("s_lshr_b64", Op::SLshrB64, SSH64, B64, false, true),
    s("s_ashr_i64", Op::SAshrI64, &[I64, U32], I64, false, true),
    s("s_lshl1_add_u32", Op::SLshlAddU32(1), U2, U32, false, true),
    s("s_lshl2_add_u32", Op::SLshlAddU32(2), U2, U32, false, true),
    s("s_lshl3_add_u32", Op::SLshlAddU32(3), U2, U32, false, true),
    s("s_lshl4_add_u32", Op::SLshlAddU32(4), U2, U32, false, true),
    s("s_min_i32", Op::SMinI32, I2, I32, false, true),
    s("s_min_u32", Op::SMinU32, U2, U32, false, true),
    s("s_max_i32", Op::SMaxI32, I2, I32, false, true),
    s("s_max_u32", Op::SMaxU32, U2, U32, false, true),
    s("s_bfe_u32", Op::SBfeU32, U2, U32, false, true),
    s("s_bfe_i32", Op::SBfeI32, &[I32, U32], I32, false, true),
    s("s_bfe_u64", Op::SBfeU64, &[U64, U32], U64, false, true),
    s("s_bfe_i64", Op::SBfeI64, &[I64, U32], I64, false, true),
    s("s_bfm_b32", Op::SBfmB32, U2, B32, false, false),
    s("s_bfm_b64", Op::SBfmB64, U2, B64, false, false),
    s("s_bcnt1_i32_b32", Op::SBcnt1B32, B1, I32, false, true),
    s("s_bcnt1_i32_b64", Op::SBcnt1B64, Q1, I32, false, true),
    s("s_bcnt0_i32_b32", Op::SBcnt0B32, B1, I32, false, true),
    s("s_bcnt0_i32_b64", Op::SBcnt0B64, Q1, I32, false, true),
    s("s_ff1_i32_b32", Op::SFf1B32, B1, I32, false, false),
    s("s_ctz_i32_b32", Op::SFf1B32, B1, I32, false, false),
    s("s_ff1_i32_b64", Op::SFf1B64, Q1, I32, false, false),
    s("s_ctz_i32_b64", Op::SFf1B64, Q1, I32, false, false),
    s("s_flbit_i32_b32", Op::SFlbitB32, B1, I32, false, false),
    s("s_clz_i32_u32", Op::SFlbitB32, U1, I32, false, false),
    s("s_flbit_i32_b64", Op::SFlbitB64, Q1, I32, false, false),
    s("s_clz_i32_u64", Op::SFlbitB64, &[U64], I32, false, false),
    s("s_flbit_i32", Op::SFlbitI32, &[I32], I32, false, false),
    s("s_cls_i32", Op::SFlbitI32, &[I32], I32, false, false),
    s("s_brev_b32", Op::SBrevB32, B1, B32, false, false),
    s("s_brev_b64", Op::SBrevB64, Q1, B64, false, false),
    s("s_abs_i32", Op::SAbsI32, &[I32], I32, false, true),
    s("s_absdiff_i32", Op::SAbsdiffI32, I2, I32, false, true),
    s("s_cselect_b32", Op::SCselectB32, B2, B32, true, false),
    s("s_cselect_b64", Op::SCselectB64, Q2, B64, true, false),
    s("s_cmov_b32", Op::SCmovB32, B1, B32, true, false),
    s("s_cmov_b64", Op::SCmovB64, Q1, B64, true, false),
    s("s_cmovk_i32", Op::SCmovB32, &[I16], I32, true, false),
    s("s_mov_b32", Op::SMovB32, B1, B32, false, false),
    s("s_mov_b64", Op::SMovB64, Q1, B64, false, false),
    s("s_movk_i32", Op::SMovkI32, &[I16], I32, false, false),
    s("s_sext_i32_i8", Op::SSextI32I8, &[I32], I32, false, false),
    s("s_sext_i32_i16", Op::SSextI32I16, &[I32], I32, false, false),
    s("s_pack_ll_b32_b16", Op::SPackLl, B2, B32, false, false),
    s("s_pack_lh_b32_b16", Op::SPackLh, B2, B32, false, false),
    s("s_pack_hl_b32_b16", Op::SPackHl, B2, B32, false, false),
    s("s_pack_hh_b32_b16", Op::SPackHh, B2, B32, false, false),
    AluOp { dst: None, ..s("s_bitcmp0_b32", Op::SBitcmp0B32, U2, B32, false, true) },
    AluOp { dst: None, ..s("s_bitcmp1_b32", Op::SBitcmp1B32, U2, B32, false, true) },
    AluOp { dst: None, ..s("s_bitcmp0_b64", Op::SBitcmp0B64, &[B64, U32], B32, false, true) },
    AluOp { dst: None, ..s("s_bitcmp1_b64", Op::SBitcmp1B64, &[B64, U32], B32, false, true) },
    s("s_bitset0_b32", Op::SBitset0B32, U1, B32, false, false),
    s("s_bitset1_b32", Op::SBitset1B32, U1, B32, false, false),
    // GFX9's, in LLVM's wave-reduction loops over a wave64 EXEC (llvm.amdgcn.wave.reduce.*).
    s("s_bitset0_b64", Op::SBitset0B64, U1, B64, false, false),
    s("s_bitset1_b64", Op::SBitset1B64, U1, B64, false, false),
    // ---- GFX12 SALU float (same semantics as the VALU ops)
    s("s_cvt_f32_u32", Op::CvtF32U32, U1, F32, false, false),
    s("s_cvt_f32_i32", Op::CvtF32I32, &[I32], F32, false, false),
    s("s_cvt_u32_f32", Op::CvtU32F32, F1, U32, false, false),
    s("s_cvt_i32_f32", Op::CvtI32F32, F1, I32, false, false),
    s("s_cvt_f16_f32", Op::CvtF16F32, F1, F16, false, false),
    s("s_cvt_f32_f16", Op::CvtF32F16, H1, F32, false, false),
    s("s_add_f32", Op::AddF32, F2, F32, false, false),
    // GFX12.5's scalar transcendentals: VOP3 words with an SGPR source and destination, the VALU
    // operation on one uniform value (neg/abs and clamp/omod as for the VALU form).
    AluOp { salu: true, ..v("v_s_exp_f32", Op::ExpF32, F1, F32) },
    AluOp { salu: true, ..v("v_s_log_f32", Op::LogF32, F1, F32) },
    AluOp { salu: true, ..v("v_s_rcp_f32", Op::RcpF32, F1, F32) },
    AluOp { salu: true, ..v("v_s_rsq_f32", Op::RsqF32, F1, F32) },
    AluOp { salu: true, ..v("v_s_sqrt_f32", Op::SqrtF32, F1, F32) },
    s("s_sub_f32", Op::SubF32, F2, F32, false, false),
    s("s_mul_f32", Op::MulF32, F2, F32, false, false),
    s("s_fmaak_f32", Op::FmaF32, F3, F32, false, false),
    s("s_fmamk_f32", Op::FmaF32, F3, F32, false, false),
    AluOp { acc: true, ..s("s_fmac_f32", Op::FmaF32, F3, F32, false, false) },
    s("s_min_num_f32", Op::MinNumF32, F2, F32, false, false),
    s("s_max_num_f32", Op::MaxNumF32, F2, F32, false, false),
    s("s_floor_f32", Op::FloorF32, F1, F32, false, false),
    s("s_ceil_f32", Op::CeilF32, F1, F32, false, false),
    s("s_trunc_f32", Op::TruncF32, F1, F32, false, false),
    s("s_rndne_f32", Op::RndneF32, F1, F32, false, false),
    s("s_add_f16", Op::AddF16, H2, F16, false, false),
    s("s_mul_f16", Op::MulF16, H2, F16, false, false),
];

/// Strip encoding decorations: `_e32`, `_e64`, `_dpp`, `_sdwa`, `_t16`, `_fake16` suffixes and
/// the VOPD `v_dual_` prefix (VOPD halves are the same operations).
pub fn canonical(name: &str) -> std::borrow::Cow<'_, str> {
    // The suffixes are the decoder's rule for semantic ids (hx_isa::mnemonic_stem).
    let n = hx_isa::mnemonic_stem(name.trim());
    match n.strip_prefix("v_dual_") {
        Some(rest) => std::borrow::Cow::Owned(format!("v_{rest}")),
        None => std::borrow::Cow::Borrowed(n),
    }
}

fn index() -> &'static std::collections::HashMap<&'static str, AluOp> {
    static MAP: std::sync::OnceLock<std::collections::HashMap<&'static str, AluOp>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| TABLE.iter().map(|e| (e.name, *e)).collect())
}

const PK32_2: &[Ty] = &[B32, B32];
const PK32_3: &[Ty] = &[B32, B32, B32];
const PK64_2: &[Ty] = &[B64, B64];
const PK64_3: &[Ty] = &[B64, B64, B64];
const CMP_SRC16: &[Ty] = &[B16, B16];
const CMP_SRC32: &[Ty] = &[B32, B32];
const CMP_SRC64: &[Ty] = &[B64, B64];
// Float compares read their constants as floats of their width: a 32-bit literal of an f64
// compare is the high half (`v_cmp_nlt_f64 vcc_lo, 0x40900000, v[2:3]` compares with 1024.0, as
// OCML's f64 exp writes its range check).
const CMPF_SRC16: &[Ty] = &[F16, F16];
const CMPF_SRC32: &[Ty] = &[F32, F32];
const CMPF_SRC64: &[Ty] = &[F64, F64];
const CLASS16: &[Ty] = &[F16, U32];
const CLASS32: &[Ty] = &[F32, U32];
const CLASS64: &[Ty] = &[F64, U32];

/// The ALU operation of a decoded instruction ([`of_id`] of its [`SemId`](hx_isa::SemId)):
/// what the emulator and the raiser call for every instruction.
pub fn of(inst: &hx_isa::Instruction) -> Option<AluOp> {
    of_id(inst.sem())
}

/// The ALU operation of a semantic id: one array index. The array is made once per process
/// from the ids' stems ([`by_name`] of each of `hx_isa::tables::sem_ids::NAMES`), so decoding
/// and meaning meet on the typed id, never on the spelling of an instruction.
pub fn of_id(id: hx_isa::SemId) -> Option<AluOp> {
    static BY_ID: std::sync::OnceLock<Vec<Option<AluOp>>> = std::sync::OnceLock::new();
    BY_ID.get_or_init(|| hx_isa::tables::sem_ids::NAMES.iter().map(|n| by_name(n)).collect()).get(id.0 as usize).copied().flatten()
}

/// Resolve a mnemonic. Returns `None` for anything that is not a pure value operation
/// (memory, branches, waits, EXEC-manipulating saveexec ops, cross-lane ops) or is unknown.
/// Resolve once per decoded instruction and keep the `AluOp` (it is `Copy`); [`eval`] is the
/// per-lane call.
pub fn by_name(name: &str) -> Option<AluOp> {
    let n = canonical(name);
    if let Some(e) = index().get(n.as_ref()) {
        return Some(*e);
    }
    if let Some(p) = pk::pk_by_name(&n) {
        let (srcs, dst) = match (p.is_wide(), p.arity()) {
            (true, 3) => (PK64_3, B64),
            (true, _) => (PK64_2, B64),
            (false, 3) => (PK32_3, B32),
            (false, _) => (PK32_2, B32),
        };
        return Some(AluOp {
            name: "v_pk",
            op: Op::Pk(p),
            srcs,
            dst: Some(dst),
            flag_in: Fl::None,
            flag_out: Fl::None,
            acc: n == "v_pk_fmac_f16",
            salu: false,
        });
    }
    let c = parse_cmp(&n)?;
    let srcs = match c.kind {
        super::cmp::CmpKind::Class { bits: 16 } => CLASS16,
        super::cmp::CmpKind::Class { bits: 32 } => CLASS32,
        super::cmp::CmpKind::Class { .. } => CLASS64,
        super::cmp::CmpKind::Float { bits, .. } => match bits {
            16 => CMPF_SRC16,
            32 => CMPF_SRC32,
            _ => CMPF_SRC64,
        },
        super::cmp::CmpKind::Int { bits, .. } => match bits {
            16 => CMP_SRC16,
            32 => CMP_SRC32,
            _ => CMP_SRC64,
        },
    };
    Some(AluOp {
        name: if c.scalar { "s_cmp" } else { "v_cmp" },
        op: Op::Cmp(c),
        srcs,
        dst: None,
        flag_in: Fl::None,
        flag_out: if c.scalar { Fl::Scc } else { Fl::LaneMask },
        acc: false,
        salu: c.scalar,
    })
}

/// Evaluate `op` on `inp` under mode `m`. The value is masked to the destination width.
pub fn eval(op: &AluOp, inp: &AluIn, m: &FpMode) -> AluOut {
    let mut out = eval_raw(op, inp, m);
    if let Some(t) = op.dst {
        if t.bits() < 64 {
            out.value &= (1u64 << t.bits()) - 1;
        }
    }
    out
}

fn eval_raw(op: &AluOp, inp: &AluIn, m: &FpMode) -> AluOut {
    let a = inp.src[0];
    let b = inp.src[1];
    let c = inp.src[2];
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    let fl = inp.flag;
    let r = |v: u64| AluOut { value: v, flag: None };
    let r32 = |v: u32| AluOut { value: v as u64, flag: None };
    let rf = |v: u64, f: bool| AluOut { value: v, flag: Some(f) };
    let rf32 = |(v, f): (u32, bool)| AluOut { value: v as u64, flag: Some(f) };
    use Op::*;
    match op.op {
        AddF32 => r32(fl::add_f32(a32, b32, m)),
        SubF32 => r32(fl::sub_f32(a32, b32, m)),
        SubrevF32 => r32(fl::sub_f32(b32, a32, m)),
        MulF32 => r32(fl::mul_f32(a32, b32, m)),
        MulLegacyF32 => r32(fl::mul_legacy_f32(a32, b32, m)),
        FmaF32 => r32(fl::fma_f32(a32, b32, c32, m)),
        MadF32 => r32(fl::mad_f32(a32, b32, c32, m)),
        MinF32 => r32(fl::min_f32(a32, b32, m)),
        MaxF32 => r32(fl::max_f32(a32, b32, m)),
        MinNumF32 => r32(fl::min_num_f32(a32, b32, m)),
        MaxNumF32 => r32(fl::max_num_f32(a32, b32, m)),
        MinimumF32 => r32(fl::minimum_f32(a32, b32, m)),
        MaximumF32 => r32(fl::maximum_f32(a32, b32, m)),
        Min3F32 => r32(fl::min3_f32(a32, b32, c32, m)),
        Max3F32 => r32(fl::max3_f32(a32, b32, c32, m)),
        Med3F32 => r32(fl::med3_f32(a32, b32, c32, m)),
        Min3NumF32 => r32(fl::min3_num_f32(a32, b32, c32, m)),
        MaxminNumF32 => r32(fl::min_num_f32(fl::max_num_f32(a32, b32, m), c32, m)),
        MinmaxNumF32 => r32(fl::max_num_f32(fl::min_num_f32(a32, b32, m), c32, m)),
        MaximumminimumF32 => r32(fl::minimum_f32(fl::maximum_f32(a32, b32, m), c32, m)),
        MinimummaximumF32 => r32(fl::maximum_f32(fl::minimum_f32(a32, b32, m), c32, m)),
        MaxminNumF16 => r32(fl::min_num_f16(fl::max_num_f16(a32, b32, m), c32, m)),
        MinmaxNumF16 => r32(fl::max_num_f16(fl::min_num_f16(a32, b32, m), c32, m)),
        MaximumminimumF16 => r32(fl::minimum_f16(fl::maximum_f16(a32, b32, m), c32, m)),
        MinimummaximumF16 => r32(fl::maximum_f16(fl::minimum_f16(a32, b32, m), c32, m)),
        Fp8(f) => r(f.eval([a, b, c], inp.old, inp.op_sel, inp.byte_sel, inp.clamp, m)),
        Max3NumF32 => r32(fl::max3_num_f32(a32, b32, c32, m)),
        Med3NumF32 => r32(fl::med3_num_f32(a32, b32, c32, m)),
        Minimum3F32 => r32(fl::minimum3_f32(a32, b32, c32, m)),
        Maximum3F32 => r32(fl::maximum3_f32(a32, b32, c32, m)),
        LdexpF32 => r32(fl::ldexp_f32(a32, b32 as i32, m)),
        FloorF32 => r32(fl::floor_f32(a32, m)),
        CeilF32 => r32(fl::ceil_f32(a32, m)),
        TruncF32 => r32(fl::trunc_f32(a32, m)),
        RndneF32 => r32(fl::rndne_f32(a32, m)),
        FractF32 => r32(fl::fract_f32(a32, m)),
        ExpF32 => r32(fl::exp_f32(a32, m)),
        LogF32 => r32(fl::log_f32(a32, m)),
        RcpF32 => r32(fl::rcp_f32(a32, m)),
        RsqF32 => r32(fl::rsq_f32(a32, m)),
        SqrtF32 => r32(fl::sqrt_f32(a32, m)),
        SinF32 => r32(fl::sin_f32(a32, m)),
        CosF32 => r32(fl::cos_f32(a32, m)),
        FrexpMantF32 => r32(fl::frexp_mant_f32(a32, m)),
        FrexpExpF32 => r32(fl::frexp_exp_i32_f32(a32, m)),
        DivScaleF32 => rf32(fl::div_scale_f32(a32, b32, c32, m)),
        DivFmasF32 => r32(fl::div_fmas_f32(a32, b32, c32, fl, m)),
        DivFixupF32 => r32(fl::div_fixup_f32(a32, b32, c32, m)),
        AddF64 => r(fl::add_f64(a, b, m)),
        MulF64 => r(fl::mul_f64(a, b, m)),
        FmaF64 => r(fl::fma_f64(a, b, c, m)),
        MinF64 => r(fl::min_f64(a, b, m)),
        MaxF64 => r(fl::max_f64(a, b, m)),
        MinNumF64 => r(fl::min_num_f64(a, b, m)),
        MaxNumF64 => r(fl::max_num_f64(a, b, m)),
        MinimumF64 => r(fl::minimum_f64(a, b, m)),
        MaximumF64 => r(fl::maximum_f64(a, b, m)),
        LdexpF64 => r(fl::ldexp_f64(a, b32 as i32, m)),
        TrigPreopF64 => r(fl::trig_preop_f64(a, b32, m)),
        TanhF32 => r32(fl::tanh_f32(a32, m)),
        FloorF64 => r(fl::floor_f64(a, m)),
        CeilF64 => r(fl::ceil_f64(a, m)),
        TruncF64 => r(fl::trunc_f64(a, m)),
        RndneF64 => r(fl::rndne_f64(a, m)),
        FractF64 => r(fl::fract_f64(a, m)),
        RcpF64 => r(fl::rcp_f64(a, m)),
        RsqF64 => r(fl::rsq_f64(a, m)),
        SqrtF64 => r(fl::sqrt_f64(a, m)),
        FrexpMantF64 => r(fl::frexp_mant_f64(a, m)),
        FrexpExpF64 => r32(fl::frexp_exp_i32_f64(a, m)),
        DivScaleF64 => {
            let (v, f) = fl::div_scale_f64(a, b, c, m);
            rf(v, f)
        }
        DivFmasF64 => r(fl::div_fmas_f64(a, b, c, fl, m)),
        DivFixupF64 => r(fl::div_fixup_f64(a, b, c, m)),
        AddF16 => r32(fl::add_f16(a32, b32, m)),
        SubF16 => r32(fl::sub_f16(a32, b32, m)),
        SubrevF16 => r32(fl::sub_f16(b32, a32, m)),
        MulF16 => r32(fl::mul_f16(a32, b32, m)),
        FmaF16 => r32(fl::fma_f16(a32, b32, c32, m)),
        MinF16 => r32(fl::min_f16(a32, b32, m)),
        MaxF16 => r32(fl::max_f16(a32, b32, m)),
        MinNumF16 => r32(fl::min_num_f16(a32, b32, m)),
        MaxNumF16 => r32(fl::max_num_f16(a32, b32, m)),
        LdexpF16 => r32(fl::ldexp_f16(a32, b32 as u16 as i16 as i32, m)),
        RcpF16 => r32(fl::rcp_f16(a32, m)),
        SqrtF16 => r32(fl::sqrt_f16(a32, m)),
        DivFixupF16 => r32(fl::div_fixup_f16(a32, b32, c32, m)),
        FmaMix(dst) => {
            r32(fl::fma_mix([a32, b32, c32], inp.op_sel, inp.op_sel_hi, inp.neg, inp.abs, dst, inp.old as u32, m))
        }
        CvtI32F32 => r32(cv::cvt_i32_f32(a32, m)),
        CvtU32F32 => r32(cv::cvt_u32_f32(a32, m)),
        CvtF32I32 => r32(cv::cvt_f32_i32(a32, m)),
        CvtF32U32 => r32(cv::cvt_f32_u32(a32, m)),
        CvtI32F64 => r32(cv::cvt_i32_f64(a, m)),
        CvtU32F64 => r32(cv::cvt_u32_f64(a, m)),
        CvtF64I32 => r(cv::cvt_f64_i32(a32, m)),
        CvtF64U32 => r(cv::cvt_f64_u32(a32, m)),
        CvtF32F64 => r32(cv::cvt_f32_f64(a, m)),
        CvtF64F32 => r(cv::cvt_f64_f32(a32, m)),
        CvtF16F32 => r32(cv::cvt_f16_f32(a32, m)),
        CvtF32F16 => r32(cv::cvt_f32_f16(a32, m)),
        CvtF32Bf16 => r32(cv::cvt_f32_bf16(a32, m)),
        CvtPkBf16F32 => r32(cv::cvt_pk_bf16_f32(a32, b32, m)),
        CvtPkF16F32 => r32(cv::cvt_pk_f16_f32(a32, b32, m)),
        CvtPkRtzF16F32 => r32(cv::cvt_pkrtz_f16_f32(a32, b32, m)),
        CvtF32Ubyte(k) => r32(cv::cvt_f32_ubyte(a32, k as u32)),
        CvtRpiI32F32 => r32(cv::cvt_rpi_i32_f32(a32, m)),
        CvtFlrI32F32 => r32(cv::cvt_flr_i32_f32(a32, m)),
        CvtF16U16 => r32(cv::cvt_f16_u16(a32, m)),
        CvtF16I16 => r32(cv::cvt_f16_i16(a32, m)),
        CvtU16F16 => r32(cv::cvt_u16_f16(a32, m)),
        CvtI16F16 => r32(cv::cvt_i16_f16(a32, m)),
        CvtPkU16U32 => r32(cv::cvt_pk_u16_u32(a32, b32)),
        PackB32F16 => r32((a32 & 0xffff) | (b32 & 0xffff) << 16),
        CvtPkI16I32 => r32(cv::cvt_pk_i16_i32(a32, b32)),
        AddU32 => r32(a32.wrapping_add(b32)),
        SubU32 => r32(a32.wrapping_sub(b32)),
        SubrevU32 => r32(b32.wrapping_sub(a32)),
        AddI32 => r32(a32.wrapping_add(b32)),
        SubI32 => r32(a32.wrapping_sub(b32)),
        AddCoU32 => rf32(int::add_co_u32(a32, b32)),
        SubCoU32 => rf32(int::sub_co_u32(a32, b32)),
        SubrevCoU32 => rf32(int::sub_co_u32(b32, a32)),
        AddcU32 => rf32(int::addc_u32(a32, b32, fl)),
        SubbU32 => rf32(int::subb_u32(a32, b32, fl)),
        SubbrevU32 => rf32(int::subb_u32(b32, a32, fl)),
        AddU16 | AddI16 => r32(int::add_u16(a32, b32)),
        SubU16 | SubI16 => r32(int::sub_u16(a32, b32)),
        SubrevU16 => r32(int::sub_u16(b32, a32)),
        MulLoU16 => r32(int::mul_lo_u16(a32, b32)),
        LshlrevB16 => r32(int::lshlrev_b16(a32, b32)),
        LshrrevB16 => r32(int::lshrrev_b16(a32, b32)),
        AshrrevI16 => r32(int::ashrrev_i16(a32, b32)),
        MinU16 => r(int::min_u(a & 0xffff, b & 0xffff)),
        MaxU16 => r(int::max_u(a & 0xffff, b & 0xffff)),
        MinI16 => r(int::min_s(a & 0xffff, b & 0xffff, 16)),
        MaxI16 => r(int::max_s(a & 0xffff, b & 0xffff, 16)),
        MulLoU32 => r32(int::mul_lo_u32(a32, b32)),
        MulHiU32 => r32(int::mul_hi_u32(a32, b32)),
        MulHiI32 => r32(int::mul_hi_i32(a32, b32)),
        MulU32U24 => r32(int::mul_u32_u24(a32, b32)),
        MulHiU32U24 => r32(int::mul_hi_u32_u24(a32, b32)),
        MulI32I24 => r32(int::mul_i32_i24(a32, b32)),
        MulHiI32I24 => r32(int::mul_hi_i32_i24(a32, b32)),
        MadU32U24 => r32(int::mad_u32_u24(a32, b32, c32)),
        MadI32I24 => r32(int::mad_i32_i24(a32, b32, c32)),
        MadU32U16 => r32(int::mad_u32_u16(a32, b32, c32)),
        MadU16 => r32(a32.wrapping_mul(b32).wrapping_add(c32) & 0xffff),
        MadI32I16 => r32(int::mad_i32_i16(a32, b32, c32)),
        MadU32 => r32(int::mad_u32(a32, b32, c32)),
        MadU64U32 => {
            let (v, f) = int::mad_u64_u32(a32, b32, c);
            rf(v, f)
        }
        MadI64I32 => {
            let (v, f) = int::mad_i64_i32(a32, b32, c);
            rf(v, f)
        }
        MadNcU64U32 => r(int::mad_nc_u64_u32(a32, b32, c)),
        MadNcI64I32 => r(int::mad_nc_i64_i32(a32, b32, c)),
        MulU64 => r(int::mul_u64(a, b)),
        Add3U32 => r32(int::add3_u32(a32, b32, c32)),
        XadU32 => r32(int::xad_u32(a32, b32, c32)),
        LshlAddU32 => r32(int::lshl_add_u32(a32, b32, c32)),
        AddLshlU32 => r32(int::add_lshl_u32(a32, b32, c32)),
        LshlOrB32 => r32(int::lshl_or_b32(a32, b32, c32)),
        AndOrB32 => r32(int::and_or_b32(a32, b32, c32)),
        Or3B32 => r32(int::or3_b32(a32, b32, c32)),
        Xor3B32 => r32(int::xor3_b32(a32, b32, c32)),
        BfeU32 => r32(int::bfe_u32(a32, b32, c32)),
        BfeI32 => r32(int::bfe_i32(a32, b32, c32)),
        BfiB32 => r32(int::bfi_b32(a32, b32, c32)),
        BfmB32 => r32(int::bfm_b32(a32, b32)),
        AlignbitB32 => r32(int::alignbit_b32(a32, b32, c32)),
        AlignbyteB32 => r32(int::alignbyte_b32(a32, b32, c32)),
        PermB32 => r32(int::perm_b32(a32, b32, c32)),
        Bitop3B32 => r32(int::bitop3_b32(a32, b32, c32, inp.imm as u8)),
        BcntU32B32 => r32(int::bcnt_u32_b32(a32, b32)),
        MbcntLo => r32(int::mbcnt_lo(a32, inp.lane, b32)),
        MbcntHi => r32(int::mbcnt_hi(a32, inp.lane, b32)),
        BfrevB32 => r32(int::bfrev_b32(a32)),
        FfbhU32 => r32(int::ffbh_u32(a32)),
        FfblB32 => r32(int::ffbl_b32(a32)),
        FfbhI32 => r32(int::ffbh_i32(a32)),
        NotB32 => r32(!a32),
        AndB32 => r32(a32 & b32),
        OrB32 => r32(a32 | b32),
        XorB32 => r32(a32 ^ b32),
        XnorB32 => r32(!(a32 ^ b32)),
        LshlrevB32 => r32(int::lshlrev_b32(a32, b32)),
        LshrrevB32 => r32(int::lshrrev_b32(a32, b32)),
        AshrrevI32 => r32(int::ashrrev_i32(a32, b32)),
        LshlrevB64 => r(int::lshlrev_b64(a32, b)),
        LshrrevB64 => r(int::lshrrev_b64(a32, b)),
        AshrrevI64 => r(int::ashrrev_i64(a32, b)),
        LshlAddU64 => r(int::lshl_add_u64(a, b32, c)),
        AddNcU64 => r(int::add_nc_u64(a, b)),
        SubNcU64 => r(int::sub_nc_u64(a, b)),
        MinU32 => r(int::min_u(a & 0xffff_ffff, b & 0xffff_ffff)),
        MaxU32 => r(int::max_u(a & 0xffff_ffff, b & 0xffff_ffff)),
        MinI32 => r(int::min_s(a & 0xffff_ffff, b & 0xffff_ffff, 32)),
        MaxI32 => r(int::max_s(a & 0xffff_ffff, b & 0xffff_ffff, 32)),
        Min3U32 => r(a32.min(b32).min(c32) as u64),
        Max3U32 => r(a32.max(b32).max(c32) as u64),
        Med3U32 => r(int::med3_u(a32 as u64, b32 as u64, c32 as u64)),
        Min3I32 => r((a32 as i32).min(b32 as i32).min(c32 as i32) as u32 as u64),
        Max3I32 => r((a32 as i32).max(b32 as i32).max(c32 as i32) as u32 as u64),
        Med3I32 => r(int::med3_s(a32 as u64, b32 as u64, c32 as u64, 32)),
        MinU64 => r(a.min(b)),
        MaxU64 => r(a.max(b)),
        MinI64 => r(int::min_s(a, b, 64)),
        MaxI64 => r(int::max_s(a, b, 64)),
        MovB32 => r32(a32),
        MovB16 => r32(a32 & 0xffff),
        OrB16 => r32((a32 | b32) & 0xffff),
        AndB16 => r32(a32 & b32 & 0xffff),
        XorB16 => r32((a32 ^ b32) & 0xffff),
        NotB16 => r32(!a32 & 0xffff),
        CvtU32U16 => r32(a32 & 0xffff),
        MovB64 => r(a),
        // v_cndmask_b16 selects the low halves (its sources are 16 bits).
        Cndmask if op.dst == Some(Ty::B16) => r32(int::cndmask(a, b, fl) as u32 & 0xffff),
        Cndmask => r32(int::cndmask(a, b, fl) as u32),
        SadU32 => r32(int::sad_u32(a32, b32, c32)),
        SadU8 => r32(int::sad_u8(a32, b32, c32)),
        SAddU32 => rf32(salu::add_u32(a32, b32)),
        SSubU32 => rf32(salu::sub_u32(a32, b32)),
        SAddcU32 => rf32(salu::addc_u32(a32, b32, fl)),
        SSubbU32 => rf32(salu::subb_u32(a32, b32, fl)),
        SAddI32 => rf32(salu::add_i32(a32, b32)),
        SSubI32 => rf32(salu::sub_i32(a32, b32)),
        SAddkI32 => rf32(salu::add_i32(a32, salu::simm16(b32))),
        SMulI32 => r32(salu::mul_i32(a32, b32)),
        SMulkI32 => r32(salu::mul_i32(a32, salu::simm16(b32))),
        SMulHiU32 => r32(salu::mul_hi_u32(a32, b32)),
        SMulHiI32 => r32(salu::mul_hi_i32(a32, b32)),
        SMulU64 => r(a.wrapping_mul(b)),
        SAddNcU64 => r(a.wrapping_add(b)),
        SSubNcU64 => r(a.wrapping_sub(b)),
        SAndB32 => rf32(salu::and_b32(a32, b32)),
        SOrB32 => rf32(salu::or_b32(a32, b32)),
        SXorB32 => rf32(salu::xor_b32(a32, b32)),
        SAndn2B32 => rf32(salu::andn2_b32(a32, b32)),
        SOrn2B32 => rf32(salu::orn2_b32(a32, b32)),
        SNandB32 => rf32(salu::nand_b32(a32, b32)),
        SNorB32 => rf32(salu::nor_b32(a32, b32)),
        SXnorB32 => rf32(salu::xnor_b32(a32, b32)),
        SNotB32 => rf32(salu::not_b32(a32)),
        SAndB64 => rf64(salu::and_b64(a, b)),
        SOrB64 => rf64(salu::or_b64(a, b)),
        SXorB64 => rf64(salu::xor_b64(a, b)),
        SAndn2B64 => rf64(salu::andn2_b64(a, b)),
        SOrn2B64 => rf64(salu::orn2_b64(a, b)),
        SNandB64 => rf64(salu::nand_b64(a, b)),
        SNorB64 => rf64(salu::nor_b64(a, b)),
        SXnorB64 => rf64(salu::xnor_b64(a, b)),
        SNotB64 => rf64(salu::not_b64(a)),
        SLshlB32 => rf32(salu::lshl_b32(a32, b32)),
        SLshrB32 => rf32(salu::lshr_b32(a32, b32)),
        SAshrI32 => rf32(salu::ashr_i32(a32, b32)),
        SLshlB64 => rf64(salu::lshl_b64(a, b32)),
        SLshrB64 => rf64(salu::lshr_b64(a, b32)),
        SAshrI64 => rf64(salu::ashr_i64(a, b32)),
        SLshlAddU32(n) => rf32(salu::lshl_add_u32(a32, n as u32, b32)),
        SMinI32 => rf32(salu::min_i32(a32, b32)),
        SMinU32 => rf32(salu::min_u32(a32, b32)),
        SMaxI32 => rf32(salu::max_i32(a32, b32)),
        SMaxU32 => rf32(salu::max_u32(a32, b32)),
        SBfeU32 => rf32(salu::bfe_u32(a32, b32)),
        SBfeI32 => rf32(salu::bfe_i32(a32, b32)),
        SBfeU64 => rf64(salu::bfe_u64(a, b32)),
        SBfeI64 => rf64(salu::bfe_i64(a, b32)),
        SBfmB32 => r32(salu::bfm_b32(a32, b32)),
        SBfmB64 => r(salu::bfm_b64(a32, b32)),
        SBcnt1B32 => rf32(salu::bcnt1_b32(a32)),
        SBcnt1B64 => rf32(salu::bcnt1_b64(a)),
        SBcnt0B32 => rf32(salu::bcnt0_b32(a32)),
        SBcnt0B64 => rf32(salu::bcnt0_b64(a)),
        SFf1B32 => r32(salu::ff1_b32(a32)),
        SFf1B64 => r32(salu::ff1_b64(a)),
        SFlbitB32 => r32(salu::flbit_b32(a32)),
        SFlbitB64 => r32(salu::flbit_b64(a)),
        SFlbitI32 => r32(salu::flbit_i32(a32)),
        SBrevB32 => r32(salu::brev_b32(a32)),
        SBrevB64 => r(salu::brev_b64(a)),
        SAbsI32 => rf32(salu::abs_i32(a32)),
        SAbsdiffI32 => rf32(salu::absdiff_i32(a32, b32)),
        SCselectB32 => r32(salu::cselect(a, b, fl) as u32),
        SCselectB64 => r(salu::cselect(a, b, fl)),
        SCmovB32 => {
            let v = if op.srcs == [I16] { salu::simm16(a32) } else { a32 };
            r32(if fl { v } else { inp.old as u32 })
        }
        SCmovB64 => r(if fl { a } else { inp.old }),
        SMovB32 => r32(a32),
        SMovB64 => r(a),
        SMovkI32 => r32(salu::simm16(a32)),
        SSextI32I8 => r32(salu::sext_i32_i8(a32)),
        SSextI32I16 => r32(salu::sext_i32_i16(a32)),
        SPackLl => r32(salu::pack_ll(a32, b32)),
        SPackLh => r32(salu::pack_lh(a32, b32)),
        SPackHl => r32(salu::pack_hl(a32, b32)),
        SPackHh => r32(salu::pack_hh(a32, b32)),
        SBitcmp0B32 => rf(0, !salu::bitcmp1_b32(a32, b32)),
        SBitcmp1B32 => rf(0, salu::bitcmp1_b32(a32, b32)),
        SBitcmp0B64 => rf(0, !salu::bitcmp1_b64(a, b32)),
        SBitcmp1B64 => rf(0, salu::bitcmp1_b64(a, b32)),
        SBitset0B32 => r32(salu::bitset_b32(inp.old as u32, a32, false)),
        SBitset1B32 => r32(salu::bitset_b32(inp.old as u32, a32, true)),
        SBitset0B64 => r(salu::bitset_b64(inp.old, a32, false)),
        SBitset1B64 => r(salu::bitset_b64(inp.old, a32, true)),
        Pk(p) => {
            let mods = PkMods { op_sel: inp.op_sel, op_sel_hi: inp.op_sel_hi, neg_lo: inp.neg, neg_hi: inp.neg_hi };
            if p.is_wide() {
                r(pk::pk32(p, [a, b, c], mods, m))
            } else {
                r32(pk::pk16(p, [a32, b32, c32], mods, m))
            }
        }
        Cmp(cn) => rf(0, cn.eval(a, b)),
    }
}

fn rf64((v, f): (u64, bool)) -> AluOut {
    AluOut { value: v, flag: Some(f) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::cmp::{CmpKind, IntPred};

    /// Mnemonics in the corpus lists that are intentionally not ALU value operations: the
    /// engine implements them (memory, control flow, waits, EXEC manipulation, cross-lane).
    fn intentionally_not_alu(n: &str) -> bool {
        const PREFIXES: &[&str] = &[
            "ds_", "global_", "scratch_", "flat_", "buffer_", "s_load_", "s_buffer_load_", "s_store_",
            "s_cbranch_", "s_wait", "s_barrier",
        ];
        const EXACT: &[&str] = &[
            "s_branch", "s_endpgm", "s_nop", "v_nop", "s_clause", "s_delay_alu", "s_getreg_b32",
            "s_setreg_b32", "s_setreg_imm32_b32", "s_getpc_b64", "s_setpc_b64", "s_swappc_b64",
            "s_get_pc_i64", "s_set_pc_i64", "s_swap_pc_i64", "s_and_saveexec_b32", "s_and_saveexec_b64",
            "s_or_saveexec_b32", "s_or_saveexec_b64", "s_andn2_saveexec_b64", "s_and_not1_saveexec_b32",
            "v_readlane_b32", "v_readfirstlane_b32", "v_writelane_b32",
        ];
        PREFIXES.iter().any(|p| n.starts_with(p)) || EXACT.contains(&n)
    }

    fn check_list(text: &str) -> usize {
        let mut resolved = 0;
        let mut missing = Vec::new();
        for line in text.lines() {
            let Some(raw) = line.split_whitespace().next() else { continue };
            let n = canonical(raw);
            if intentionally_not_alu(&n) {
                assert!(by_name(raw).is_none(), "{raw} should not resolve to an ALU op");
                continue;
            }
            match by_name(raw) {
                Some(_) => resolved += 1,
                None => missing.push(raw.to_string()),
            }
        }
        assert!(missing.is_empty(), "unresolved ALU mnemonics: {missing:?}");
        resolved
    }

    #[test]
    fn maxmin_families_by_hand() {
        let m = FpMode::ieee_default();
        let f = |x: f32| x.to_bits() as u64;
        let run = |name: &str, a: u64, b: u64, c: u64| eval(&by_name(name).unwrap(), &AluIn { src: [a, b, c], ..Default::default() }, &m).value;
        // min(max(a, b), c): clamping to [lo, hi] as fp8_quant does with (x, lo, hi).
        assert_eq!(run("v_maxmin_num_f32", f(600.0), f(-448.0), f(448.0)), f(448.0));
        assert_eq!(run("v_maxmin_num_f32", f(-600.0), f(-448.0), f(448.0)), f(-448.0));
        assert_eq!(run("v_maxmin_num_f32", f(3.5), f(-448.0), f(448.0)), f(3.5));
        // maximumNumber/minimumNumber: a quiet NaN operand loses.
        assert_eq!(run("v_maxmin_num_f32", 0x7fc0_0000, f(1.0), f(0.5)), f(0.5));
        assert_eq!(run("v_minmax_num_f32", f(2.0), 0x7fc0_0000, f(3.0)), f(3.0));
        // -0 orders below +0.
        assert_eq!(run("v_maxmin_num_f32", f(-0.0), f(0.0), f(1.0)), f(0.0));
        // IEEE 754-2019 minimum/maximum: NaN propagates.
        assert!(f32::from_bits(run("v_maximumminimum_f32", 0x7fc0_0000, f(1.0), f(0.5)) as u32).is_nan());
        // f16: max(1, 2) = 2, min(2, 1.5) = 1.5.
        assert_eq!(run("v_maxmin_num_f16", 0x3c00, 0x4000, 0x3e00), 0x3e00);
        // i16 adds wrap like the u16 ones.
        assert_eq!(run("v_add_nc_i16", 0x7fff, 1, 0), 0x8000);
    }

    #[test]
    fn every_corpus_mnemonic_resolves() {
        let n = check_list(include_str!("testdata/gfx1250.txt"))
            + check_list(include_str!("testdata/gfx942.txt"))
            + check_list(include_str!("testdata/gfx950.txt"));
        assert!(n > 300, "{n}");
    }

    /// The ALU mnemonics of the objects real compilers built (corpus/triton and corpus/hip, all three
    /// targets), with their counts there: each resolves to an operation.
    #[test]
    fn every_compiled_suite_alu_mnemonic_resolves() {
        assert!(check_list(include_str!("testdata/compiled.txt")) > 100);
    }

    #[test]
    fn spellings_and_decorations() {
        assert_eq!(by_name("v_add_nc_u32_e32").unwrap().op, Op::AddU32);
        assert_eq!(by_name("v_add_u32_sdwa").unwrap().op, Op::AddU32);
        assert_eq!(by_name("v_dual_add_nc_u32").unwrap().op, Op::AddU32);
        assert_eq!(by_name("v_dual_fmac_f32").unwrap().op, Op::FmaF32);
        assert!(by_name("v_dual_fmac_f32").unwrap().acc);
        assert_eq!(by_name("v_add_nc_u32_dpp").unwrap().op, Op::AddU32);
        assert_eq!(by_name("v_addc_co_u32").unwrap().op, by_name("v_add_co_ci_u32").unwrap().op);
        assert_eq!(by_name("s_andn2_b32").unwrap().op, by_name("s_and_not1_b32").unwrap().op);
        assert_eq!(by_name("s_add_u32").unwrap().op, by_name("s_add_co_u32").unwrap().op);
        assert_eq!(by_name("s_add_i32").unwrap().op, by_name("s_add_co_i32").unwrap().op);
        assert_eq!(by_name("v_ffbh_u32").unwrap().op, by_name("v_clz_i32_u32").unwrap().op);
        let e = by_name("v_add_co_ci_u32_e64").unwrap();
        assert_eq!((e.flag_in, e.flag_out), (Flag::LaneMask, Flag::LaneMask));
        let e = by_name("s_addc_u32").unwrap();
        assert_eq!((e.flag_in, e.flag_out, e.salu), (Flag::Scc, Flag::Scc, true));
        let e = by_name("v_mad_u64_u32").unwrap();
        assert_eq!((e.srcs, e.dst, e.flag_out), (&[U32, U32, U64][..], Some(U64), Flag::LaneMask));
        let e = by_name("v_cmpx_ne_u64_e64").unwrap();
        assert_eq!(e.dst, None);
        assert!(matches!(e.op, Op::Cmp(CmpName { kind: CmpKind::Int { bits: 64, signed: false, pred: IntPred::Ne }, writes_exec: true, .. })));
        assert_eq!(by_name("s_cmp_lg_u32").unwrap().flag_out, Flag::Scc);
        assert!(by_name("v_readlane_b32").is_none());
        assert!(by_name("s_and_saveexec_b64").is_none());
        assert!(by_name("global_load_dword").is_none());
        assert!(by_name("v_frobnicate_b32").is_none());
        let e = by_name("v_pk_fma_f32").unwrap();
        assert_eq!((e.op, e.srcs.len(), e.dst), (Op::Pk(PkOp::FmaF32), 3, Some(B64)));
        assert_eq!(by_name("v_pk_add_u16").unwrap().dst, Some(B32));
    }

    #[test]
    fn eval_through_table() {
        let m = FpMode::default();
        let run = |name: &str, src: [u64; 3], flag: bool| {
            eval(&by_name(name).unwrap(), &AluIn { src, flag, ..AluIn::default() }, &m)
        };
        assert_eq!(run("v_add_f32", [1.5f32.to_bits() as u64, 2.0f32.to_bits() as u64, 0], false).value, 3.5f32.to_bits() as u64);
        assert_eq!(run("v_subrev_f32", [1.0f32.to_bits() as u64, 3.0f32.to_bits() as u64, 0], false).value, 2.0f32.to_bits() as u64);
        assert_eq!(run("v_subrev_u32", [1, 3, 0], false).value, 2);
        assert_eq!(run("v_lshlrev_b32", [4, 1, 0], false).value, 16);
        assert_eq!(run("v_lshlrev_b64", [36, 1, 0], false).value, 1 << 36);
        assert_eq!(run("v_add_co_u32", [u32::MAX as u64, 1, 0], false), AluOut { value: 0, flag: Some(true) });
        assert_eq!(run("v_addc_co_u32", [1, 1, 0], true), AluOut { value: 3, flag: Some(false) });
        assert_eq!(run("v_subrev_co_ci_u32", [1, 1, 0], true), AluOut { value: u32::MAX as u64, flag: Some(true) });
        assert_eq!(run("v_cndmask_b32", [7, 9, 0], true).value, 9);
        assert_eq!(run("v_fmamk_f32", [2f32.to_bits() as u64, 3f32.to_bits() as u64, 1f32.to_bits() as u64], false).value, 7f32.to_bits() as u64);
        assert_eq!(run("v_mad_u64_u32", [u32::MAX as u64, u32::MAX as u64, u64::MAX], false).flag, Some(true));
        assert_eq!(run("s_lshl2_add_u32", [3, 5, 0], false), AluOut { value: 17, flag: Some(false) });
        assert_eq!(run("s_cselect_b64", [1, 2, 0], false).value, 2);
        assert_eq!(run("s_bcnt1_i32_b64", [u64::MAX, 0, 0], false).value, 64);
        assert_eq!(run("s_cmp_lt_i32", [u32::MAX as u64, 0, 0], false).flag, Some(true));
        assert_eq!(run("s_cmp_lt_u32", [u32::MAX as u64, 0, 0], false).flag, Some(false));
        assert_eq!(run("v_cmp_gt_f32", [2f32.to_bits() as u64, 1f32.to_bits() as u64, 0], false).flag, Some(true));
        assert_eq!(run("v_cmp_class_f32", [f32::NAN.to_bits() as u64, 3, 0], false).flag, Some(true));
        assert_eq!(run("s_movk_i32", [0xffff, 0, 0], false).value, u32::MAX as u64);
        assert_eq!(run("s_cvt_f32_u32", [7, 0, 0], false).value, 7f32.to_bits() as u64);
        assert_eq!(run("v_cvt_f32_ubyte2", [0x00ab_0000, 0, 0], false).value, 171f32.to_bits() as u64);
        assert_eq!(run("v_min_i64", [u64::MAX, 0, 0], false).value, u64::MAX);
        assert_eq!(run("v_min_u64", [u64::MAX, 0, 0], false).value, 0);
        let mb = eval(&by_name("v_mbcnt_lo_u32_b32").unwrap(), &AluIn { src: [0xff, 2, 0], lane: 4, ..AluIn::default() }, &m);
        assert_eq!(mb.value, 6);
        let mix = eval(
            &by_name("v_fma_mixlo_f16").unwrap(),
            &AluIn { src: [0x4000, 0x4200, 0], op_sel_hi: 0b011, old: 0xdead_0000, ..AluIn::default() },
            &m,
        );
        assert_eq!(mix.value, 0xdead_4600);
        // Every table entry evaluates without panicking on arbitrary inputs.
        let mut r = crate::alu::Rng(42);
        for e in TABLE {
            for _ in 0..20 {
                let inp = AluIn { src: [r.next(), r.next(), r.next()], flag: r.next() & 1 != 0, lane: (r.next() % 64) as u32, old: r.next(), imm: r.u32() & 0xff, op_sel: r.next() as u8, op_sel_hi: r.next() as u8, neg: r.next() as u8, abs: r.next() as u8, neg_hi: r.next() as u8, byte_sel: r.next() as u8, clamp: r.next() & 1 != 0 };
                let out = eval_raw(e, &inp, &m);
                let bits = e.dst.map_or(64, |t| t.bits());
                if bits < 64 {
                    assert_eq!(out.value >> bits, 0, "{}: value wider than {bits} bits", e.name);
                }
                assert_eq!(out.flag.is_some(), e.flag_out != Flag::None, "{}", e.name);
            }
        }
    }
}
