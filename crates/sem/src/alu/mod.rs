//! Value-level semantics of VALU and SALU operations, shared by the gfx1250 (GFX12.5) and
//! gfx942/gfx950 (CDNA3/CDNA4) emulators.
//!
//! Everything here is a pure function on bit patterns: `u32` for 32-bit values, `u64` for 64-bit
//! values, and 16-bit values in the low half of a `u32` (`u16` in signatures where only 16 bits
//! are meaningful). The wave engine decodes, fetches operands, applies the input modifiers
//! ([`neg_abs_f32`] and friends), calls one of these functions (directly, or table-driven through
//! [`by_name`] / [`eval`]), applies the output modifiers ([`omod_clamp_f32`] ...) and writes back.
//!
//! Semantics are written from the AMD ISA reference guides (CDNA3/CDNA4 "VOP1/VOP2/VOP3/SOP*"
//! pseudocode, RDNA4/GFX12 pseudocode for the GFX12 spellings) and LLVM's AMDGPU backend facts.
//!
//! # Floating-point model
//! * add/sub/mul/fma/conversions are IEEE-754 round-to-nearest-even (the only rounding mode
//!   supported; [`FpMode::new`] refuses the others), bit-identical to Rust's `f32`/`f64`
//!   operators for non-NaN results.
//! * Denormals follow [`FpMode`]: with input flushing a denormal operand is replaced by a zero of
//!   the same sign before the operation; with output flushing a denormal *rounded* result is
//!   replaced by a zero of the same sign. `denorm_f32` governs f32 operations;
//!   `denorm_f16_f64` governs f16, bf16 and f64 operations (as the hardware's two mode fields do).
//! * NaN rule (deterministic, host-independent): if any operand of an arithmetic operation is a
//!   NaN, the result is the *first NaN operand in operand order, quieted* (quiet bit set, payload
//!   and sign kept) — the AMD hardware propagates and quiets input NaNs. A NaN *generated* from
//!   non-NaN operands (inf-inf, 0*inf, fma(0,inf,c), cvt of an invalid value) is the positive
//!   canonical NaN `0x7fc00000` / `0x7ff8000000000000` / `0x7e00` (f16) / `0x7fc0` (bf16).
//!   Exception: the ISA guide's functional examples for the transcendental ops (log/sqrt/rsq of a
//!   negative, sin/cos of inf) and for `v_div_fixup` (0/0, inf/inf) show `0xffc00000`
//!   (`0xfff8000000000000`, `0xfe00`), and those ops return exactly that.
//! * Approximate operations (rcp, rsq, sqrt f32, exp, log, sin, cos) are modelled as the value
//!   computed in f64 and rounded once to the destination format — within the documented bounds
//!   (1 ULP for the f32 ops, 2^29 ULP documented for the f64 rcp/rsq/sqrt). See `float.rs`.

pub mod cmp;
pub mod convert;
pub mod float;
pub mod fp8;
pub mod int;
pub mod packed;
pub mod pk8;
pub mod salu;
pub mod soft;
pub mod table;

pub use cmp::{cmp_f16, cmp_f32, cmp_f64, cmp_int, parse_cmp, CmpKind, CmpName, FloatPred, IntPred};
pub use packed::{PkMods, PkOp};
pub use table::{by_name, eval, of, of_id, AluIn, AluOp, AluOut, Flag, Op, Ty};

/// Denormal handling for one class of operations (the descriptor's 2-bit FLOAT_DENORM_MODE
/// fields; LLVM's AMDGPUUsage: 0 = flush source and destination, 1 = flush destination only,
/// 2 = flush source only, 3 = flush none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Denorm {
    FlushSrcDst,
    FlushDst,
    FlushSrc,
    FlushNone,
}

impl Denorm {
    pub fn from_bits(b: u32) -> Denorm {
        match b & 3 {
            0 => Denorm::FlushSrcDst,
            1 => Denorm::FlushDst,
            2 => Denorm::FlushSrc,
            _ => Denorm::FlushNone,
        }
    }
    /// Input denormals are flushed to signed zero.
    pub fn flush_in(self) -> bool {
        matches!(self, Denorm::FlushSrcDst | Denorm::FlushSrc)
    }
    /// Denormal results are flushed to signed zero.
    pub fn flush_out(self) -> bool {
        matches!(self, Denorm::FlushSrcDst | Denorm::FlushDst)
    }
}

/// Rounding mode (FLOAT_ROUND_MODE fields: 0 = nearest even, 1 = +inf, 2 = -inf, 3 = zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    NearestEven,
    PlusInf,
    MinusInf,
    Zero,
}

impl Round {
    pub fn from_bits(b: u32) -> Round {
        match b & 3 {
            0 => Round::NearestEven,
            1 => Round::PlusInf,
            2 => Round::MinusInf,
            _ => Round::Zero,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AluError {
    #[error("unsupported floating-point rounding mode {0:?} (only round-to-nearest-even is modelled)")]
    UnsupportedRounding(Round),
}

/// The floating-point mode of a wave (from the kernel descriptor's COMPUTE_PGM_RSRC1, or later
/// from s_setreg of MODE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FpMode {
    pub denorm_f32: Denorm,
    pub denorm_f16_f64: Denorm,
    pub round_f32: Round,
    pub round_f16_f64: Round,
    /// IEEE mode (GFX9 MODE.IEEE): signalling NaNs are quieted by v_min/v_max instead of ignored.
    /// GFX12 has no IEEE bit; use `false` there (the `_num` min/max ops do not consult it).
    pub ieee: bool,
    /// DX10 clamp: the clamp output modifier maps NaN to 0 (when false, NaN passes through).
    pub dx10_clamp: bool,
}

impl FpMode {
    pub fn new(
        denorm_f32: Denorm,
        denorm_f16_f64: Denorm,
        round_f32: Round,
        round_f16_f64: Round,
        ieee: bool,
        dx10_clamp: bool,
    ) -> Result<FpMode, AluError> {
        for r in [round_f32, round_f16_f64] {
            if r != Round::NearestEven {
                return Err(AluError::UnsupportedRounding(r));
            }
        }
        Ok(FpMode { denorm_f32, denorm_f16_f64, round_f32, round_f16_f64, ieee, dx10_clamp })
    }

    /// From COMPUTE_PGM_RSRC1: FLOAT_ROUND_MODE_32 `[13:12]`, FLOAT_ROUND_MODE_16_64 `[15:14]`,
    /// FLOAT_DENORM_MODE_32 `[17:16]`, FLOAT_DENORM_MODE_16_64 `[19:18]`, and on GFX6-GFX11 (so
    /// gfx942/gfx950) ENABLE_DX10_CLAMP `[21]` and ENABLE_IEEE_MODE `[23]`. On GFX12 (`gfx12`) those
    /// two bits mean other things: IEEE mode is absent (false) and clamping is DX10-style (true).
    pub fn from_rsrc1(rsrc1: u32, gfx12: bool) -> Result<FpMode, AluError> {
        let (ieee, dx10) = if gfx12 { (false, true) } else { (rsrc1 >> 23 & 1 != 0, rsrc1 >> 21 & 1 != 0) };
        FpMode::new(
            Denorm::from_bits(rsrc1 >> 16),
            Denorm::from_bits(rsrc1 >> 18),
            Round::from_bits(rsrc1 >> 12),
            Round::from_bits(rsrc1 >> 14),
            ieee,
            dx10,
        )
    }

    /// Denormals kept everywhere, IEEE mode on, DX10 clamp on (LLVM's default for compute
    /// kernels on gfx9 with f32 denormals enabled).
    pub fn ieee_default() -> FpMode {
        FpMode {
            denorm_f32: Denorm::FlushNone,
            denorm_f16_f64: Denorm::FlushNone,
            round_f32: Round::NearestEven,
            round_f16_f64: Round::NearestEven,
            ieee: true,
            dx10_clamp: true,
        }
    }
}

impl Default for FpMode {
    fn default() -> FpMode {
        FpMode::ieee_default()
    }
}

// ---------------------------------------------------------------------------------------------
// Input modifiers (neg/abs). abs is applied first, then neg, as the hardware does: -|x|.
// They are pure sign-bit operations, valid on NaNs too.

pub fn neg_abs_f32(x: u32, neg: bool, abs: bool) -> u32 {
    let x = if abs { x & 0x7fff_ffff } else { x };
    if neg { x ^ 0x8000_0000 } else { x }
}
pub fn neg_abs_f64(x: u64, neg: bool, abs: bool) -> u64 {
    let x = if abs { x & 0x7fff_ffff_ffff_ffff } else { x };
    if neg { x ^ 0x8000_0000_0000_0000 } else { x }
}
/// 16-bit (f16 or bf16) value in the low half; the high half is returned unchanged.
pub fn neg_abs_f16(x: u32, neg: bool, abs: bool) -> u32 {
    let x = if abs { x & !0x8000 } else { x };
    if neg { x ^ 0x8000 } else { x }
}

// ---------------------------------------------------------------------------------------------
// Output modifiers. OMOD encoding: 0 none, 1 ×2, 2 ×4, 3 ÷2 — applied before clamp.

/// Apply OMOD (an exact power-of-two scale, rounded once with the mode's denormal handling)
/// then, if `clamp`, clamp to [0, 1] (NaN -> +0 under DX10 clamp, else NaN passes; -0 -> +0).
pub fn omod_clamp_f32(x: u32, omod: u8, clamp: bool, m: &FpMode) -> u32 {
    let mut r = x;
    let k = match omod & 3 {
        1 => 1,
        2 => 2,
        3 => -1,
        _ => 0,
    };
    if k != 0 {
        r = float::ldexp_f32(r, k, m);
    }
    if clamp { clamp_f32(r, m.dx10_clamp) } else { r }
}

pub fn omod_clamp_f64(x: u64, omod: u8, clamp: bool, m: &FpMode) -> u64 {
    let mut r = x;
    let k = match omod & 3 {
        1 => 1,
        2 => 2,
        3 => -1,
        _ => 0,
    };
    if k != 0 {
        r = float::ldexp_f64(r, k, m);
    }
    if clamp { clamp_f64(r, m.dx10_clamp) } else { r }
}

pub fn omod_clamp_f16(x: u32, omod: u8, clamp: bool, m: &FpMode) -> u32 {
    let mut r = x & 0xffff;
    let k = match omod & 3 {
        1 => 1,
        2 => 2,
        3 => -1,
        _ => 0,
    };
    if k != 0 {
        r = float::ldexp_f16(r, k, m);
    }
    if clamp { clamp_f16(r, m.dx10_clamp) } else { r }
}

/// Clamp an f32 to [0.0, 1.0]. NaN -> +0.0 when `dx10`, else the NaN is returned.
pub fn clamp_f32(x: u32, dx10: bool) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        return if dx10 { 0 } else { x };
    }
    if f <= 0.0 { 0 } else if f >= 1.0 { 0x3f80_0000 } else { x }
}
pub fn clamp_f64(x: u64, dx10: bool) -> u64 {
    let f = f64::from_bits(x);
    if f.is_nan() {
        return if dx10 { 0 } else { x };
    }
    if f <= 0.0 { 0 } else if f >= 1.0 { 0x3ff0_0000_0000_0000 } else { x }
}
pub fn clamp_f16(x: u32, dx10: bool) -> u32 {
    let x = x & 0xffff;
    if soft::F16.is_nan(x as u64) {
        return if dx10 { 0 } else { x };
    }
    if x & 0x8000 != 0 || x == 0 {
        0
    } else if x >= 0x3c00 {
        0x3c00
    } else {
        x
    }
}

/// Integer clamp (the VOP3 clamp bit on integer add/sub: saturate instead of wrap) for unsigned
/// 32-bit results given the exact wide result.
pub fn clamp_u32(wide: i128) -> u32 {
    wide.clamp(0, u32::MAX as i128) as u32
}
pub fn clamp_i32(wide: i128) -> u32 {
    wide.clamp(i32::MIN as i128, i32::MAX as i128) as i32 as u32
}

/// Deterministic pseudo-random numbers for the property tests (xorshift64*).
#[cfg(test)]
pub(crate) struct Rng(pub u64);
#[cfg(test)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    /// f32 bit patterns biased toward interesting classes (zeros, denormals, inf, NaN, ±1 ...).
    pub fn f32_bits(&mut self) -> u32 {
        let r = self.next();
        let sign = ((r >> 63) as u32) << 31;
        match r % 16 {
            0 => sign,
            1 => sign | (self.u32() & 0x007f_ffff),
            2 => sign | 0x7f80_0000,
            3 => sign | 0x7f80_0000 | (self.u32() & 0x007f_ffff).max(1),
            4 => sign | 0x3f80_0000,
            5 => sign | ((self.u32() % 60 + 97) << 23) | (self.u32() & 0x7f_ffff),
            _ => self.u32(),
        }
    }
    pub fn f64_bits(&mut self) -> u64 {
        let r = self.next();
        let sign = (r >> 63) << 63;
        match r % 16 {
            0 => sign,
            1 => sign | (self.next() & 0x000f_ffff_ffff_ffff),
            2 => sign | 0x7ff0_0000_0000_0000,
            3 => sign | 0x7ff0_0000_0000_0000 | (self.next() & 0x000f_ffff_ffff_ffff).max(1),
            4 => sign | 0x3ff0_0000_0000_0000,
            5 => sign | ((self.next() % 120 + 963) << 52) | (self.next() & 0xf_ffff_ffff_ffff),
            _ => self.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fpmode_from_rsrc1() {
        // denorm32 = 3, denorm16_64 = 3, RNE, dx10 + ieee set (typical gfx9 compute kernel).
        let rsrc1 = (3 << 16) | (3 << 18) | (1 << 21) | (1 << 23);
        let m = FpMode::from_rsrc1(rsrc1, false).unwrap();
        assert_eq!(m.denorm_f32, Denorm::FlushNone);
        assert!(m.ieee && m.dx10_clamp);
        let m = FpMode::from_rsrc1(rsrc1 & !(3 << 16), true).unwrap();
        assert_eq!(m.denorm_f32, Denorm::FlushSrcDst);
        assert!(!m.ieee && m.dx10_clamp);
        assert_eq!(
            FpMode::from_rsrc1(1 << 12, false),
            Err(AluError::UnsupportedRounding(Round::PlusInf))
        );
        assert!(FpMode::from_rsrc1(3 << 14, false).is_err());
        assert!(Denorm::from_bits(2).flush_in() && !Denorm::from_bits(2).flush_out());
        assert!(!Denorm::from_bits(1).flush_in() && Denorm::from_bits(1).flush_out());
    }

    #[test]
    fn modifiers() {
        assert_eq!(neg_abs_f32(0xbf80_0000, false, true), 0x3f80_0000);
        assert_eq!(neg_abs_f32(0x3f80_0000, true, true), 0xbf80_0000);
        assert_eq!(neg_abs_f32(0xbf80_0000, true, false), 0x3f80_0000);
        assert_eq!(neg_abs_f64(0x8000_0000_0000_0000, true, false), 0);
        assert_eq!(neg_abs_f16(0x1234_bc00, false, true), 0x1234_3c00);
        let m = FpMode::default();
        assert_eq!(clamp_f32(0x7fc0_0000, true), 0);
        assert_eq!(clamp_f32(0x7fc0_0000, false), 0x7fc0_0000);
        assert_eq!(clamp_f32(0x8000_0000, true), 0);
        assert_eq!(clamp_f32(2.5f32.to_bits(), true), 1.0f32.to_bits());
        assert_eq!(clamp_f32(0.25f32.to_bits(), true), 0.25f32.to_bits());
        assert_eq!(omod_clamp_f32(0.75f32.to_bits(), 1, false, &m), 1.5f32.to_bits());
        assert_eq!(omod_clamp_f32(0.75f32.to_bits(), 1, true, &m), 1.0f32.to_bits());
        assert_eq!(omod_clamp_f32(0.75f32.to_bits(), 2, false, &m), 3.0f32.to_bits());
        assert_eq!(omod_clamp_f32(0.75f32.to_bits(), 3, false, &m), 0.375f32.to_bits());
        assert_eq!(omod_clamp_f64(0.75f64.to_bits(), 3, false, &m), 0.375f64.to_bits());
        assert_eq!(omod_clamp_f16(0x3c00, 1, false, &m), 0x4000);
        assert_eq!(omod_clamp_f16(0x4000, 0, true, &m), 0x3c00);
        assert_eq!(clamp_f16(0xbc00, true), 0);
        assert_eq!(clamp_u32(-5), 0);
        assert_eq!(clamp_u32(1 << 40), u32::MAX);
        assert_eq!(clamp_i32(-(1 << 40)), 0x8000_0000);
    }
}
