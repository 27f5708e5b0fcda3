//! Floating-point VALU operations (f32, f64, f16, bf16) on bit patterns.
//!
//! See the module docs of `alu` for the NaN and denormal rules. Functions take already-modified
//! operands (neg/abs applied by the caller) and return the raw result (omod/clamp applied by the
//! caller). 16-bit values live in the low half of a `u32` and results have a zero high half.

use super::soft::{self, Fmt, Val, BF16, F16, F32, F64};
use super::FpMode;

/// The canonical quiet NaNs used for NaNs generated from non-NaN operands.
pub const QNAN_F32: u32 = 0x7fc0_0000;
pub const QNAN_F64: u64 = 0x7ff8_0000_0000_0000;
pub const QNAN_F16: u32 = 0x7e00;
pub const QNAN_BF16: u32 = 0x7fc0;
/// The NaN the ISA guide's examples show for invalid transcendental / division-fixup inputs.
pub const NEG_QNAN_F32: u32 = 0xffc0_0000;
pub const NEG_QNAN_F64: u64 = 0xfff8_0000_0000_0000;
pub const NEG_QNAN_F16: u32 = 0xfe00;

// ------------------------------------------------------------------------------------------
// Mode helpers

#[inline]
pub(crate) fn in32(x: u32, m: &FpMode) -> u32 {
    if m.denorm_f32.flush_in() { F32.flush(x as u64) as u32 } else { x }
}
#[inline]
pub(crate) fn out32(x: u32, m: &FpMode) -> u32 {
    if m.denorm_f32.flush_out() { F32.flush(x as u64) as u32 } else { x }
}
#[inline]
pub(crate) fn in64(x: u64, m: &FpMode) -> u64 {
    if m.denorm_f16_f64.flush_in() { F64.flush(x) } else { x }
}
#[inline]
pub(crate) fn out64(x: u64, m: &FpMode) -> u64 {
    if m.denorm_f16_f64.flush_out() { F64.flush(x) } else { x }
}
#[inline]
pub(crate) fn in16(f: Fmt, x: u32, m: &FpMode) -> u64 {
    let x = (x & 0xffff) as u64;
    if m.denorm_f16_f64.flush_in() { f.flush(x) } else { x }
}
#[inline]
pub(crate) fn out16(f: Fmt, x: u64, m: &FpMode) -> u32 {
    (if m.denorm_f16_f64.flush_out() { f.flush(x) } else { x }) as u32
}

fn first_nan(f: Fmt, xs: &[u64]) -> Option<u64> {
    xs.iter().find(|&&x| f.is_nan(x)).map(|&x| f.quiet(x))
}

#[inline]
fn nan32(xs: &[u32]) -> Option<u32> {
    xs.iter().find(|&&x| f32::from_bits(x).is_nan()).map(|&x| x | 0x0040_0000)
}
#[inline]
fn nan64(xs: &[u64]) -> Option<u64> {
    xs.iter().find(|&&x| f64::from_bits(x).is_nan()).map(|&x| x | 0x0008_0000_0000_0000)
}

#[inline]
fn fix32(r: f32, m: &FpMode) -> u32 {
    if r.is_nan() { QNAN_F32 } else { out32(r.to_bits(), m) }
}
#[inline]
fn fix64(r: f64, m: &FpMode) -> u64 {
    if r.is_nan() { QNAN_F64 } else { out64(r.to_bits(), m) }
}

// ------------------------------------------------------------------------------------------
// f32 arithmetic (0.5 ULP, IEEE)

pub fn add_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    let (a, b) = (in32(a, m), in32(b, m));
    if let Some(n) = nan32(&[a, b]) {
        return n;
    }
    fix32(f32::from_bits(a) + f32::from_bits(b), m)
}
pub fn sub_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    let (a, b) = (in32(a, m), in32(b, m));
    if let Some(n) = nan32(&[a, b]) {
        return n;
    }
    fix32(f32::from_bits(a) - f32::from_bits(b), m)
}
pub fn mul_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    let (a, b) = (in32(a, m), in32(b, m));
    if let Some(n) = nan32(&[a, b]) {
        return n;
    }
    fix32(f32::from_bits(a) * f32::from_bits(b), m)
}
/// Fused a*b+c, one rounding (v_fma_f32, v_fmac_f32, v_fmamk/fmaak with the literal in place).
pub fn fma_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    let (a, b, c) = (in32(a, m), in32(b, m), in32(c, m));
    if let Some(n) = nan32(&[a, b, c]) {
        return n;
    }
    fix32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)), m)
}
/// Unfused multiply-add (v_mad_f32 / v_mac_f32): the product is rounded (and denormal-flushed
/// per mode) before the add.
pub fn mad_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    add_f32(mul_f32(a, b, m), c, m)
}
/// v_mul_legacy_f32 / v_mul_dx9_zero_f32: 0 * anything (including inf/NaN) = +0.
pub fn mul_legacy_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    let (fa, fb) = (in32(a, m), in32(b, m));
    if F32.is_zero(fa as u64) || F32.is_zero(fb as u64) {
        return 0;
    }
    mul_f32(a, b, m)
}

// ------------------------------------------------------------------------------------------
// f64 arithmetic

pub fn add_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    let (a, b) = (in64(a, m), in64(b, m));
    if let Some(n) = nan64(&[a, b]) {
        return n;
    }
    fix64(f64::from_bits(a) + f64::from_bits(b), m)
}
pub fn sub_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    let (a, b) = (in64(a, m), in64(b, m));
    if let Some(n) = nan64(&[a, b]) {
        return n;
    }
    fix64(f64::from_bits(a) - f64::from_bits(b), m)
}
pub fn mul_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    let (a, b) = (in64(a, m), in64(b, m));
    if let Some(n) = nan64(&[a, b]) {
        return n;
    }
    fix64(f64::from_bits(a) * f64::from_bits(b), m)
}
pub fn fma_f64(a: u64, b: u64, c: u64, m: &FpMode) -> u64 {
    let (a, b, c) = (in64(a, m), in64(b, m), in64(c, m));
    if let Some(n) = nan64(&[a, b, c]) {
        return n;
    }
    fix64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)), m)
}

// ------------------------------------------------------------------------------------------
// f16 / bf16 arithmetic: exact soft-float, one rounding.

fn soft_fma16(f: Fmt, a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    let (a, b, c) = (in16(f, a, m), in16(f, b, m), in16(f, c, m));
    out16(f, soft::fma(f, f, a, b, c, 0), m)
}
fn one(f: Fmt) -> u32 {
    (f.bias() as u32) << f.man_bits
}
fn neg16(x: u32) -> u32 {
    x ^ 0x8000
}
/// Adds use fma(a, 1, b) (exact) except that NaN order is (a, b).
fn soft_add16(f: Fmt, a: u32, b: u32, m: &FpMode) -> u32 {
    let (a, b) = (in16(f, a, m), in16(f, b, m));
    if let Some(n) = first_nan(f, &[a, b]) {
        return n as u32;
    }
    out16(f, soft::fma(f, f, a, one(f) as u64, b, 0), m)
}
fn soft_mul16(f: Fmt, a: u32, b: u32, m: &FpMode) -> u32 {
    let (a, b) = (in16(f, a, m), in16(f, b, m));
    if let Some(n) = first_nan(f, &[a, b]) {
        return n as u32;
    }
    // a*b + (-0) keeps the sign of an exact zero product.
    out16(f, soft::fma(f, f, a, b, f.sign_bit(), 0), m)
}

pub fn add_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    soft_add16(F16, a, b, m)
}
pub fn sub_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    let b = b & 0xffff;
    if F16.is_nan(b as u64) { soft_add16(F16, a, b, m) } else { soft_add16(F16, a, neg16(b), m) }
}
pub fn mul_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    soft_mul16(F16, a, b, m)
}
pub fn fma_f16(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    soft_fma16(F16, a, b, c, m)
}
pub fn add_bf16(a: u32, b: u32, m: &FpMode) -> u32 {
    soft_add16(BF16, a, b, m)
}
pub fn sub_bf16(a: u32, b: u32, m: &FpMode) -> u32 {
    let b = b & 0xffff;
    if BF16.is_nan(b as u64) { soft_add16(BF16, a, b, m) } else { soft_add16(BF16, a, neg16(b), m) }
}
pub fn mul_bf16(a: u32, b: u32, m: &FpMode) -> u32 {
    soft_mul16(BF16, a, b, m)
}
pub fn fma_bf16(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    soft_fma16(BF16, a, b, c, m)
}

/// Where a v_fma_mix* result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MixDst {
    /// v_fma_mix_f32: the f32 result (16-bit sources are f16).
    F32,
    /// v_fma_mix_f32_bf16 (GFX12.5): the f32 result, 16-bit sources are bf16.
    F32Bf16,
    /// v_fma_mixlo_f16 / v_fma_mixhi_f16: f16 into the low / high half, the other half kept.
    LoF16,
    HiF16,
    /// v_fma_mixlo_bf16 / v_fma_mixhi_bf16 (GFX12.5).
    LoBf16,
    HiBf16,
}

/// v_fma_mix{_f32,lo_f16,hi_f16,lo_bf16,hi_bf16}: mixed-precision fma.
///
/// Operand i is an f32 (`op_sel_hi` bit i clear) or a 16-bit value (bit i set) taken from the
/// high half of `src[i]` if `op_sel` bit i is set, else the low half. The 16-bit sources are f16,
/// or bf16 for the `_bf16` forms (GFX12.5 v_fma_mix*_bf16 take bf16 inputs). Each source is
/// converted exactly to f32, then `neg`/`abs` bit i apply (abs first). The fma is computed and
/// rounded to f32 (per the ISA pseudocode: `D.f16 = f32_to_f16(fma(in[0], in[1], in[2]))`), then
/// converted to the 16-bit destination format with RNE. `old` is the destination register's old
/// value (the half not written is preserved).
#[allow(clippy::too_many_arguments)]
pub fn fma_mix(src: [u32; 3], op_sel: u8, op_sel_hi: u8, neg: u8, abs: u8, dst: MixDst, old: u32, m: &FpMode) -> u32 {
    let half_fmt = if matches!(dst, MixDst::LoBf16 | MixDst::HiBf16 | MixDst::F32Bf16) { BF16 } else { F16 };
    let mut v = [0u32; 3];
    for i in 0..3 {
        let x = if op_sel_hi >> i & 1 != 0 {
            let h = if op_sel >> i & 1 != 0 { src[i] >> 16 } else { src[i] & 0xffff };
            let h = in16(half_fmt, h, m);
            soft::convert(half_fmt, F32, h) as u32
        } else {
            in32(src[i], m)
        };
        v[i] = super::neg_abs_f32(x, neg >> i & 1 != 0, abs >> i & 1 != 0);
    }
    let r = fma_f32(v[0], v[1], v[2], m);
    match dst {
        MixDst::F32 | MixDst::F32Bf16 => r,
        MixDst::LoF16 | MixDst::LoBf16 => {
            (old & 0xffff_0000) | out16(half_fmt, soft::convert(F32, half_fmt, r as u64), m)
        }
        MixDst::HiF16 | MixDst::HiBf16 => {
            (old & 0xffff) | out16(half_fmt, soft::convert(F32, half_fmt, r as u64), m) << 16
        }
    }
}

// ------------------------------------------------------------------------------------------
// min / max

/// Generic GFX9 v_min/v_max (CDNA3/CDNA4 pseudocode): in IEEE mode a signalling NaN operand is
/// returned quieted (S0 checked first); otherwise a NaN operand yields the other operand;
/// -0 < +0.
fn minmax_gfx9(f: Fmt, a: u64, b: u64, ieee: bool, max: bool, lt: impl Fn(u64, u64) -> bool) -> u64 {
    if ieee && f.is_snan(a) {
        return f.quiet(a);
    }
    if ieee && f.is_snan(b) {
        return f.quiet(b);
    }
    if f.is_nan(a) {
        return b;
    }
    if f.is_nan(b) {
        return a;
    }
    if f.is_zero(a) && f.is_zero(b) {
        // -0 counts as smaller than +0.
        let a_neg = f.sign(a);
        let b_neg = f.sign(b);
        return if max { if a_neg && !b_neg { b } else { a } } else if !a_neg && b_neg { b } else { a };
    }
    if max {
        if lt(a, b) { b } else { a }
    } else if lt(a, b) {
        a
    } else {
        b
    }
}

/// GFX12 minimumNumber/maximumNumber (v_min_num_*, v_max_num_*): NaN operands are ignored;
/// two NaNs give S0 quieted; -0 < +0. The IEEE mode bit does not apply.
fn minmax_num(f: Fmt, a: u64, b: u64, max: bool, lt: impl Fn(u64, u64) -> bool) -> u64 {
    match (f.is_nan(a), f.is_nan(b)) {
        (true, true) => return f.quiet(a),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let zero_pair = f.is_zero(a) && f.is_zero(b);
    if max {
        if lt(b, a) || (zero_pair && !f.sign(a) && f.sign(b)) { a } else { b }
    } else if lt(a, b) || (zero_pair && f.sign(a) && !f.sign(b)) {
        a
    } else {
        b
    }
}

/// IEEE 754-2019 minimum/maximum (v_minimum_f32, v_maximum_f32, v_minimum3_f32 ...): NaN
/// propagates (first NaN operand, quieted); -0 < +0.
fn minmax_ieee2019(f: Fmt, a: u64, b: u64, max: bool, lt: impl Fn(u64, u64) -> bool) -> u64 {
    if let Some(n) = first_nan(f, &[a, b]) {
        return n;
    }
    minmax_num(f, a, b, max, lt)
}

fn lt32(a: u64, b: u64) -> bool {
    f32::from_bits(a as u32) < f32::from_bits(b as u32)
}
fn lt64(a: u64, b: u64) -> bool {
    f64::from_bits(a) < f64::from_bits(b)
}
fn lt16(a: u64, b: u64) -> bool {
    f16_to_f64(a as u32) < f16_to_f64(b as u32)
}
fn f16_to_f64(x: u32) -> f64 {
    f64::from_bits(soft::convert(F16, F64, (x & 0xffff) as u64))
}

pub fn min_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_gfx9(F32, in32(a, m) as u64, in32(b, m) as u64, m.ieee, false, lt32) as u32
}
pub fn max_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_gfx9(F32, in32(a, m) as u64, in32(b, m) as u64, m.ieee, true, lt32) as u32
}
pub fn min_num_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(F32, in32(a, m) as u64, in32(b, m) as u64, false, lt32) as u32
}
pub fn max_num_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(F32, in32(a, m) as u64, in32(b, m) as u64, true, lt32) as u32
}
pub fn minimum_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_ieee2019(F32, in32(a, m) as u64, in32(b, m) as u64, false, lt32) as u32
}
pub fn maximum_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_ieee2019(F32, in32(a, m) as u64, in32(b, m) as u64, true, lt32) as u32
}
pub fn min_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_gfx9(F64, in64(a, m), in64(b, m), m.ieee, false, lt64)
}
pub fn max_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_gfx9(F64, in64(a, m), in64(b, m), m.ieee, true, lt64)
}
pub fn min_num_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_num(F64, in64(a, m), in64(b, m), false, lt64)
}
pub fn max_num_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_num(F64, in64(a, m), in64(b, m), true, lt64)
}
pub fn minimum_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_ieee2019(F64, in64(a, m), in64(b, m), false, lt64)
}
pub fn maximum_f64(a: u64, b: u64, m: &FpMode) -> u64 {
    minmax_ieee2019(F64, in64(a, m), in64(b, m), true, lt64)
}
pub fn min_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_gfx9(F16, in16(F16, a, m), in16(F16, b, m), m.ieee, false, lt16) as u32
}
pub fn max_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_gfx9(F16, in16(F16, a, m), in16(F16, b, m), m.ieee, true, lt16) as u32
}
pub fn min_num_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(F16, in16(F16, a, m), in16(F16, b, m), false, lt16) as u32
}
pub fn max_num_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(F16, in16(F16, a, m), in16(F16, b, m), true, lt16) as u32
}
/// v_pk_min_num_bf16 / v_pk_max_num_bf16 halves (GFX12.5): as the f16 forms, on bf16.
pub fn min_num_bf16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(BF16, in16(BF16, a, m), in16(BF16, b, m), false, ltbf16) as u32
}
pub fn max_num_bf16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_num(BF16, in16(BF16, a, m), in16(BF16, b, m), true, ltbf16) as u32
}
fn ltbf16(a: u64, b: u64) -> bool {
    f32::from_bits((a as u32 & 0xffff) << 16) < f32::from_bits((b as u32 & 0xffff) << 16)
}
pub fn minimum_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_ieee2019(F16, in16(F16, a, m), in16(F16, b, m), false, lt16) as u32
}
pub fn maximum_f16(a: u32, b: u32, m: &FpMode) -> u32 {
    minmax_ieee2019(F16, in16(F16, a, m), in16(F16, b, m), true, lt16) as u32
}

/// v_min3_f32 = v_min_f32(v_min_f32(a, b), c), likewise max3.
pub fn min3_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    min_f32(min_f32(a, b, m), c, m)
}
pub fn max3_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    max_f32(max_f32(a, b, m), c, m)
}
/// v_med3_f32 (CDNA pseudocode): any NaN -> min3; else the median via max3 comparisons.
pub fn med3_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    let (a, b, c) = (in32(a, m), in32(b, m), in32(c, m));
    if [a, b, c].iter().any(|&x| f32::from_bits(x).is_nan()) {
        return min3_f32(a, b, c, m);
    }
    let mx = max3_f32(a, b, c, m);
    if mx == a {
        max_f32(b, c, m)
    } else if mx == b {
        max_f32(a, c, m)
    } else {
        max_f32(a, b, m)
    }
}
/// GFX12 v_min3_num_f32 / v_max3_num_f32 / v_med3_num_f32 (same structure on the _num ops).
pub fn min3_num_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    min_num_f32(min_num_f32(a, b, m), c, m)
}
pub fn max3_num_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    max_num_f32(max_num_f32(a, b, m), c, m)
}
pub fn med3_num_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    let (a, b, c) = (in32(a, m), in32(b, m), in32(c, m));
    if [a, b, c].iter().any(|&x| f32::from_bits(x).is_nan()) {
        return min3_num_f32(a, b, c, m);
    }
    let mx = max3_num_f32(a, b, c, m);
    if mx == a {
        max_num_f32(b, c, m)
    } else if mx == b {
        max_num_f32(a, c, m)
    } else {
        max_num_f32(a, b, m)
    }
}
pub fn minimum3_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    minimum_f32(minimum_f32(a, b, m), c, m)
}
pub fn maximum3_f32(a: u32, b: u32, c: u32, m: &FpMode) -> u32 {
    maximum_f32(maximum_f32(a, b, m), c, m)
}

// ------------------------------------------------------------------------------------------
// Rounding to integral values, fract, ldexp, frexp

macro_rules! round_ops {
    ($t:ty, $bits:ty, $in:ident, $nan:ident, $floor:ident, $ceil:ident, $trunc:ident, $rndne:ident) => {
        pub fn $floor(x: $bits, m: &FpMode) -> $bits {
            let x = $in(x, m);
            if let Some(n) = $nan(&[x]) {
                return n;
            }
            <$t>::from_bits(x).floor().to_bits()
        }
        pub fn $ceil(x: $bits, m: &FpMode) -> $bits {
            let x = $in(x, m);
            if let Some(n) = $nan(&[x]) {
                return n;
            }
            <$t>::from_bits(x).ceil().to_bits()
        }
        pub fn $trunc(x: $bits, m: &FpMode) -> $bits {
            let x = $in(x, m);
            if let Some(n) = $nan(&[x]) {
                return n;
            }
            <$t>::from_bits(x).trunc().to_bits()
        }
        /// Round to nearest integer, ties to even.
        pub fn $rndne(x: $bits, m: &FpMode) -> $bits {
            let x = $in(x, m);
            if let Some(n) = $nan(&[x]) {
                return n;
            }
            <$t>::from_bits(x).round_ties_even().to_bits()
        }
    };
}
round_ops!(f32, u32, in32, nan32, floor_f32, ceil_f32, trunc_f32, rndne_f32);
round_ops!(f64, u64, in64, nan64, floor_f64, ceil_f64, trunc_f64, rndne_f64);

/// v_fract_f32: x - floor(x), clamped below 1.0 (to 0x3f7fffff); fract(±inf) = NaN.
pub fn fract_f32(x: u32, m: &FpMode) -> u32 {
    let x = in32(x, m);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f.is_infinite() {
        return QNAN_F32;
    }
    let r = f - f.floor();
    out32(r.min(f32::from_bits(0x3f7f_ffff)).to_bits(), m)
}
pub fn fract_f64(x: u64, m: &FpMode) -> u64 {
    let x = in64(x, m);
    if let Some(n) = nan64(&[x]) {
        return n;
    }
    let f = f64::from_bits(x);
    if f.is_infinite() {
        return QNAN_F64;
    }
    let r = f - f.floor();
    out64(r.min(f64::from_bits(0x3fef_ffff_ffff_ffff)).to_bits(), m)
}

fn ldexp_generic(f: Fmt, x: u64, n: i32) -> u64 {
    match f.decode(x) {
        Val::Nan => f.quiet(x),
        Val::Inf(_) => x,
        Val::Fin(_, 0, _) => x,
        Val::Fin(s, mant, e) => {
            let n = n.clamp(-4000, 4000);
            f.pack(s, mant, e + n)
        }
    }
}
/// x * 2^n with one rounding (v_ldexp_f32: S1 is a signed 32-bit integer).
pub fn ldexp_f32(x: u32, n: i32, m: &FpMode) -> u32 {
    out32(ldexp_generic(F32, in32(x, m) as u64, n) as u32, m)
}
pub fn ldexp_f64(x: u64, n: i32, m: &FpMode) -> u64 {
    out64(ldexp_generic(F64, in64(x, m), n), m)
}
/// The first 1,184 bits of the binary fraction of 2/pi (0.a2f9836e... in hex), 32 to a word:
/// the table v_trig_preop_f64 reads. Computed with Machin's formula in integer arithmetic; the
/// first 53 bits are `std::f64::consts::FRAC_2_PI`'s (a unit test checks them, and
/// tests/tests/translate_trig_preop.rs every segment against LLVM's constant folding).
const TWO_BY_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0,
    0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4,
    0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
    0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];

/// v_trig_preop_f64 D, S0, S1: 53 bits of 2/pi for the Payne-Hanek reduction of S0's argument,
/// as LLVM's constant folding of llvm.amdgcn.trig.preop defines it (AMDGPUInstCombineIntrinsic,
/// "hardware behavior"): segment s = S1[4:0] starts at bit 53*s of the table, moved on by
/// S0's biased exponent above 1077; the 53 bits as an integer times 2^(-53 - shift) (2^128 more
/// when the exponent is 1968 or above); past the table, +0. A NaN S0 gives itself quietened.
pub fn trig_preop_f64(x: u64, seg: u32, m: &FpMode) -> u64 {
    if f64::from_bits(x).is_nan() {
        return x | 0x0008_0000_0000_0000;
    }
    let exponent = ((x >> 52) & 0x7ff) as u32;
    let mut shift = (seg & 31) * 53;
    if exponent > 1077 {
        shift += exponent - 1077;
    }
    let idx = (shift >> 5) as usize;
    if idx + 2 >= TWO_BY_PI.len() {
        return 0;
    }
    let bshift = shift & 31;
    let mut hi = (TWO_BY_PI[idx] as u64) << 32 | TWO_BY_PI[idx + 1] as u64;
    let lo = (TWO_BY_PI[idx + 2] as u64) << 32;
    if bshift != 0 {
        hi = (hi << bshift) | (lo >> (64 - bshift));
    }
    let bits = hi >> 11;
    let mut scale = -53 - shift as i32;
    if exponent >= 1968 {
        scale += 128;
    }
    out64(ldexp_generic(F64, (bits as f64).to_bits(), scale), m)
}

/// v_ldexp_f16: the exponent is the signed 16-bit value in the low half of S1 (GFX9) —
/// pass it sign-extended.
pub fn ldexp_f16(x: u32, n: i32, m: &FpMode) -> u32 {
    out16(F16, ldexp_generic(F16, in16(F16, x, m), n), m)
}

fn frexp_parts(f: Fmt, x: u64) -> Option<(bool, u64, i32)> {
    match f.decode(x) {
        Val::Fin(s, mant, e) if mant != 0 => {
            // value = mant * 2^e = mant' * 2^(exp) with mant' in [0.5, 1).
            let msb = 63 - mant.leading_zeros() as i32;
            Some((s, mant, e + msb + 1))
        }
        _ => None,
    }
}
/// v_frexp_exp_i32_f32: exponent such that x = mant * 2^exp, mant in [0.5,1); 0 for 0/inf/NaN.
pub fn frexp_exp_i32_f32(x: u32, m: &FpMode) -> u32 {
    frexp_parts(F32, in32(x, m) as u64).map_or(0, |(_, _, e)| e as u32)
}
pub fn frexp_exp_i32_f64(x: u64, m: &FpMode) -> u32 {
    frexp_parts(F64, in64(x, m)).map_or(0, |(_, _, e)| e as u32)
}
/// v_frexp_mant_f32: the significand in ±[0.5, 1); inf and NaN are returned as is (NaN
/// quieted); zero stays zero.
pub fn frexp_mant_f32(x: u32, m: &FpMode) -> u32 {
    let x = in32(x, m);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    match frexp_parts(F32, x as u64) {
        Some((s, mant, _)) => F32.pack(s, mant, -(64 - mant.leading_zeros() as i32)) as u32,
        None => x,
    }
}
pub fn frexp_mant_f64(x: u64, m: &FpMode) -> u64 {
    let x = in64(x, m);
    if let Some(n) = nan64(&[x]) {
        return n;
    }
    match frexp_parts(F64, x) {
        Some((s, mant, _)) => F64.pack(s, mant, -(64 - mant.leading_zeros() as i32)),
        None => x,
    }
}

// ------------------------------------------------------------------------------------------
// Class test (v_cmp_class_*): mask bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf. The raw operand is classified
// (no denormal flushing).

pub fn class_bit(f: Fmt, x: u64) -> u32 {
    let s = f.sign(x);
    let bit = if f.is_snan(x) {
        0
    } else if f.is_nan(x) {
        1
    } else if f.is_inf(x) {
        if s { 2 } else { 9 }
    } else if f.is_zero(x) {
        if s { 5 } else { 6 }
    } else if f.is_denorm(x) {
        if s { 4 } else { 7 }
    } else if s {
        3
    } else {
        8
    };
    1 << bit
}
pub fn cmp_class_f32(x: u32, mask: u32) -> bool {
    class_bit(F32, x as u64) & mask != 0
}
pub fn cmp_class_f64(x: u64, mask: u32) -> bool {
    class_bit(F64, x) & mask != 0
}
pub fn cmp_class_f16(x: u32, mask: u32) -> bool {
    class_bit(F16, (x & 0xffff) as u64) & mask != 0
}

// ------------------------------------------------------------------------------------------
// Transcendental / approximate operations.
//
// Model: the exact function evaluated in f64 (host libm for exp2/log2/sin/cos) and rounded once
// to f32 — within the ISA guide's documented 1 ULP for v_rcp/v_rsq/v_sqrt/v_exp/v_log_f32
// (rcp and sqrt are in fact correctly rounded: a correctly rounded f64 quotient/root rounds to the
// correctly rounded f32). The guide documents "denormals are flushed" for the f32 ops (rcp, rsq,
// sqrt, exp, log): denormal inputs act as zero of the same sign and denormal results become zero
// regardless of the mode. v_sin/v_cos take the angle in revolutions (sin(2*pi*x)); the guide
// documents no bound; the model reduces x modulo 1 exactly and evaluates in f64, so the error is
// below 1 f32 ULP (absolute error < 2^-24). f64 rcp/rsq/sqrt: documented 2^29 ULP; modelled as
// correctly rounded 1/x and sqrt(x), 1/sqrt(x) via two f64 roundings. Tests that compare against
// hardware-independent references must allow the documented bound.

#[inline]
fn ftz32(x: u32) -> u32 {
    F32.flush(x as u64) as u32
}

/// v_rcp_f32 (and v_rcp_iflag_f32): 1/x. rcp(±0) = ±inf, rcp(±inf) = ±0.
pub fn rcp_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    ftz32(((1.0 / f32::from_bits(x) as f64) as f32).to_bits())
}
/// v_rsq_f32: 1/sqrt(x). rsq(+0) = +inf, rsq(-0) = -inf, rsq(x<0) = NaN (0xffc00000).
pub fn rsq_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f == 0.0 {
        return if f.is_sign_negative() { 0xff80_0000 } else { 0x7f80_0000 };
    }
    if f < 0.0 {
        return NEG_QNAN_F32;
    }
    ftz32(((1.0 / (f as f64).sqrt()) as f32).to_bits())
}
/// v_sqrt_f32: sqrt(-0) = -0, sqrt(x<0) = NaN (0xffc00000).
pub fn sqrt_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f < 0.0 {
        return NEG_QNAN_F32;
    }
    ftz32(f.sqrt().to_bits())
}
/// v_exp_f32: 2^x. exp(-inf) = 0, exp(±0) = 1, exp(+inf) = +inf; results below 2^-126 flush.
pub fn exp_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    ftz32((((f32::from_bits(x) as f64).exp2()) as f32).to_bits())
}
/// The f64 steps of [`tanh_f32`], in the order the raiser emits them (alu_ir.rs TanhF32): every
/// step an exactly rounded f64 operation (fma, multiply, add, round to integer, scaling by a
/// power of two), so the target computes the same bits.
pub mod tanh_steps {
    /// ln 2 split for Cody and Waite's reduction: `HI` has 32 significant bits.
    pub const LN2_HI: f64 = 0.693_147_180_369_123_8;
    pub const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    pub const LOG2E: f64 = std::f64::consts::LOG2_E;
    /// 1/k! for k = 13 down to 2 (e^r's Taylor coefficients past 1 + r).
    pub const TAYLOR: [f64; 12] = [
        1.0 / 6_227_020_800.0,
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ];
    /// Below this |x|, tanh(x) = x - x^3/3 (the next term is below 2^-40 of x).
    pub const SMALL: f64 = 1.0 / 1024.0;
    /// From this |x| up, tanh(x) rounds to 1 in f32 (1 - tanh(x) < 2^-26).
    pub const ONE: f64 = 9.5;

    /// tanh(a) for 0 <= a (f64, finite): the steps the raiser emits.
    pub fn tanh_nonneg(a: f64) -> f64 {
        // E = e^(-2a) = 2^n e^r, n = rint(y log2 e), r = y - n ln2 (|r| <= ln2/2).
        let y = -2.0 * a;
        let n = (y * LOG2E).round_ties_even();
        let r = (-n).mul_add(LN2_HI, y);
        let r = (-n).mul_add(LN2_LO, r);
        let mut p = TAYLOR[0];
        for c in &TAYLOR[1..] {
            p = p.mul_add(r, *c);
        }
        let p = p.mul_add(r, 1.0);
        let p = p.mul_add(r, 1.0);
        let e = p * 2f64.powi(n as i32);
        // 1/(1 + E), 1 + E in (1, 2]: a linear first guess, then four Newton steps (the error
        // squares: 0.06, 4e-3, 1e-5, 2e-10, 4e-20).
        let d = 1.0 + e;
        let mut q = (-0.5f64).mul_add(d, 1.457_106_781_186_548);
        for _ in 0..4 {
            let t = (-d).mul_add(q, 1.0);
            q = t.mul_add(q, q);
        }
        let big = (1.0 - e) * q;
        let small = (-(a * a * a)).mul_add(1.0 / 3.0, a);
        let v = if a < SMALL { small } else { big };
        if a >= ONE { 1.0 } else { v }
    }
}

/// v_tanh_f32 (GFX12.5): tanh(x). AMD documents no error bound; modelled as the f32 rounding of
/// an f64 evaluation ([`tanh_steps`]: e^(-2|x|) reduced to [-ln2/2, ln2/2] and summed to degree
/// 13, (1 - E)/(1 + E) with a Newton reciprocal, x - x^3/3 for |x| < 2^-10), within an f32 ulp
/// of tanh (tests check 1 ulp over 2^20 arguments) and computed with exactly rounded steps, so
/// the targets' f64 instructions give the same bits. Denormal inputs and results are flushed, as
/// for the other transcendental instructions; NaN in, NaN quietened out; tanh(+-inf) = +-1.
pub fn tanh_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let sign = x & 0x8000_0000;
    let a = f32::from_bits(x & 0x7fff_ffff) as f64;
    let v = if a.is_infinite() { 1.0 } else { tanh_steps::tanh_nonneg(a) };
    ftz32((v as f32).to_bits() | sign)
}

/// v_log_f32: log2(x). log(±0) = -inf, log(x<0) = NaN (0xffc00000), log(+inf) = +inf.
pub fn log_f32(x: u32, _m: &FpMode) -> u32 {
    let x = ftz32(x);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f == 0.0 {
        return 0xff80_0000;
    }
    if f < 0.0 {
        return NEG_QNAN_F32;
    }
    ((f as f64).log2() as f32).to_bits()
}

/// sin(2*pi*x) or cos(2*pi*x) for an f32 x, reduced exactly: t = x - round(x) in [-1/2, 1/2],
/// n = round(4t), u = t - n/4 in [-1/8, 1/8]; then a quadrant identity on the f64 sin/cos of
/// 2*pi*u. Exact quadrant points (sin(0.25) = 1, cos(0.25) = 0) come out exact.
fn sincos_rev(x: f32, cos: bool) -> f64 {
    let x = x as f64;
    let t = x - x.round_ties_even();
    let n = (4.0 * t).round_ties_even();
    let u = t - n / 4.0;
    let a = 2.0 * std::f64::consts::PI * u;
    let q = (n as i64).rem_euclid(4) + if cos { 1 } else { 0 };
    match q % 4 {
        0 => a.sin(),
        1 => a.cos(),
        2 => -a.sin(),
        _ => -a.cos(),
    }
}
/// v_sin_f32: sin(2*pi*x). sin(±inf) = NaN (0xffc00000); sin(±0) = ±0; other zero results +0.
pub fn sin_f32(x: u32, m: &FpMode) -> u32 {
    let x = in32(x, m);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f.is_infinite() {
        return NEG_QNAN_F32;
    }
    if f == 0.0 {
        return x;
    }
    let r = sincos_rev(f, false) as f32;
    out32(if r == 0.0 { 0 } else { r.to_bits() }, m)
}
/// v_cos_f32: cos(2*pi*x). cos(±inf) = NaN (0xffc00000); zero results are +0.
pub fn cos_f32(x: u32, m: &FpMode) -> u32 {
    let x = in32(x, m);
    if let Some(n) = nan32(&[x]) {
        return n;
    }
    let f = f32::from_bits(x);
    if f.is_infinite() {
        return NEG_QNAN_F32;
    }
    let r = sincos_rev(f, true) as f32;
    out32(if r == 0.0 { 0 } else { r.to_bits() }, m)
}

/// v_rcp_f64: 1/x (denormals supported).
pub fn rcp_f64(x: u64, m: &FpMode) -> u64 {
    let x = in64(x, m);
    if let Some(n) = nan64(&[x]) {
        return n;
    }
    out64((1.0 / f64::from_bits(x)).to_bits(), m)
}
pub fn sqrt_f64(x: u64, m: &FpMode) -> u64 {
    let x = in64(x, m);
    if let Some(n) = nan64(&[x]) {
        return n;
    }
    let f = f64::from_bits(x);
    if f < 0.0 {
        return NEG_QNAN_F64;
    }
    out64(f.sqrt().to_bits(), m)
}
pub fn rsq_f64(x: u64, m: &FpMode) -> u64 {
    let x = in64(x, m);
    if let Some(n) = nan64(&[x]) {
        return n;
    }
    let f = f64::from_bits(x);
    if f == 0.0 {
        return if f.is_sign_negative() { 0xfff0_0000_0000_0000 } else { 0x7ff0_0000_0000_0000 };
    }
    if f < 0.0 {
        return NEG_QNAN_F64;
    }
    out64((1.0 / f.sqrt()).to_bits(), m)
}

/// f16 transcendental ops: the f32 model, then RNE to f16 (denormals supported).
pub fn rcp_f16(x: u32, m: &FpMode) -> u32 {
    f16_unary(x, m, |f| 1.0 / f)
}
pub fn sqrt_f16(x: u32, m: &FpMode) -> u32 {
    f16_unary(x, m, |f| if f < 0.0 { f64::NAN } else { f.sqrt() })
}
fn f16_unary(x: u32, m: &FpMode, op: impl Fn(f64) -> f64) -> u32 {
    let x = in16(F16, x, m);
    if F16.is_nan(x) {
        return F16.quiet(x) as u32;
    }
    let r = op(f64::from_bits(soft::convert(F16, F64, x)));
    if r.is_nan() {
        return NEG_QNAN_F16;
    }
    out16(F16, soft::convert(F64, F16, r.to_bits()), m)
}

// ------------------------------------------------------------------------------------------
// Division helpers (v_div_scale, v_div_fmas, v_div_fixup), from the CDNA3/CDNA4 pseudocode.
//
// The printed pseudocode has known misprints; this model fixes them so that LLVM's division
// expansion is correctly rounded (tested below):
// * v_div_scale: D defaults to S0 when no case assigns it.
// * v_div_scale, case "1/S1 and S2/S1 both denormal": the guide prints ldexp(S0, +64/+128)
//   for S0 == S1, which overflows the (huge) denominator; the model scales by -64/-128, the
//   direction the later "1/S1 denormal" case uses.
// * v_div_scale f32: "1.0 / 64'F(S1) == DENORM.f64" is read as "1/S1 is denormal in f32".
// * v_div_fmas: the guide prints a fixed 2^32 (f32) / 2^64 (f64) factor; the model scales by
//   2^+64 / 2^+128 when exponent(S2) (the quotient estimate's biased exponent) is above the
//   bias, else 2^-64 / 2^-128 — undoing whichever div_scale adjustment was made — and rounds
//   once (the scale is fused).
// * v_div_fixup: a NaN quotient S0 with non-NaN, non-special S1/S2 gives ±inf (overflow).
// UNDERFLOW/OVERFLOW in the fixup pseudocode are ±0 / ±inf under round-to-nearest.

fn is_denorm_result_f32(q: f64) -> bool {
    q != 0.0 && q.abs() < f32::MIN_POSITIVE as f64
}

/// v_div_scale_f32 S0 (value to scale: numerator or denominator), S1 (denominator),
/// S2 (numerator). Returns (scaled value, VCC bit).
pub fn div_scale_f32(s0: u32, s1: u32, s2: u32, _m: &FpMode) -> (u32, bool) {
    let (f0, f1, f2) = (f32::from_bits(s0), f32::from_bits(s1), f32::from_bits(s2));
    let e1 = F32.exp_field(s1 as u64) as i32;
    let e2 = F32.exp_field(s2 as u64) as i32;
    let up = |x: u32| ldexp_generic(F32, x as u64, 64) as u32;
    let down = |x: u32| ldexp_generic(F32, x as u64, -64) as u32;
    let rcp_denorm = is_denorm_result_f32(1.0 / f1 as f64);
    let q_denorm = is_denorm_result_f32(f2 as f64 / f1 as f64);
    if f2 == 0.0 || f1 == 0.0 {
        (QNAN_F32, false)
    } else if e2 - e1 >= 96 {
        (if s0 == s1 { up(s0) } else { s0 }, true)
    } else if F32.is_denorm(s1 as u64) {
        (up(s0), false)
    } else if rcp_denorm && q_denorm {
        (if s0 == s1 { down(s0) } else { s0 }, true)
    } else if rcp_denorm {
        (down(s0), false)
    } else if q_denorm {
        (if s0 == s2 { up(s0) } else { s0 }, true)
    } else if e2 <= 23 {
        (up(s0), false)
    } else {
        let _ = f0;
        (s0, false)
    }
}

/// |n / d| below the smallest f64 normal (and not zero), decided exactly from the decoded
/// operands: n/d < 2^-1022  <=>  |n| * 2^1022 < |d|.
fn q_denorm_f64(n: u64, d: u64) -> bool {
    match (F64.decode(n), F64.decode(d)) {
        (Val::Fin(_, mn, en), Val::Fin(_, md, ed)) if mn != 0 && md != 0 => {
            // Compare mn * 2^(en+1022) with md * 2^ed.
            let ln = 63 - mn.leading_zeros() as i32 + en + 1022;
            let ld = 63 - md.leading_zeros() as i32 + ed;
            if ln != ld {
                return ln < ld;
            }
            // Same leading-bit position: compare aligned significands.
            let an = (mn as u128) << (mn.leading_zeros() + 64);
            let ad = (md as u128) << (md.leading_zeros() + 64);
            an < ad
        }
        _ => false,
    }
}

/// v_div_scale_f64, see [`div_scale_f32`].
pub fn div_scale_f64(s0: u64, s1: u64, s2: u64, _m: &FpMode) -> (u64, bool) {
    let (f1, f2) = (f64::from_bits(s1), f64::from_bits(s2));
    let e1 = F64.exp_field(s1) as i32;
    let e2 = F64.exp_field(s2) as i32;
    let up = |x: u64| ldexp_generic(F64, x, 128);
    let down = |x: u64| ldexp_generic(F64, x, -128);
    let one = 1.0f64.to_bits();
    let rcp_denorm = q_denorm_f64(one, s1);
    let q_denorm = q_denorm_f64(s2, s1);
    if f2 == 0.0 || f1 == 0.0 {
        (QNAN_F64, false)
    } else if e2 - e1 >= 768 {
        (if s0 == s1 { up(s0) } else { s0 }, true)
    } else if F64.is_denorm(s1) {
        (up(s0), false)
    } else if rcp_denorm && q_denorm {
        (if s0 == s1 { down(s0) } else { s0 }, true)
    } else if rcp_denorm {
        (down(s0), false)
    } else if q_denorm {
        (if s0 == s2 { up(s0) } else { s0 }, true)
    } else if e2 <= 53 {
        (up(s0), false)
    } else {
        (s0, false)
    }
}

/// v_div_fmas_f32: fma(S0, S1, S2), times 2^±64 if `vcc` (sign from exponent(S2) > 127),
/// rounded once. Input denormals are not flushed; output flushing follows the mode.
pub fn div_fmas_f32(a: u32, b: u32, c: u32, vcc: bool, m: &FpMode) -> u32 {
    if let Some(n) = nan32(&[a, b, c]) {
        return n;
    }
    if !vcc {
        return fix32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)), m);
    }
    let scale = if F32.exp_field(c as u64) > 127 { 64 } else { -64 };
    out32(soft::fma(F32, F32, a as u64, b as u64, c as u64, scale) as u32, m)
}
/// v_div_fmas_f64: fma(S0, S1, S2), times 2^±128 if `vcc` (sign from exponent(S2) > 1023).
pub fn div_fmas_f64(a: u64, b: u64, c: u64, vcc: bool, m: &FpMode) -> u64 {
    if let Some(n) = nan64(&[a, b, c]) {
        return n;
    }
    if !vcc {
        return fix64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)), m);
    }
    let scale = if F64.exp_field(c) > 1023 { 128 } else { -128 };
    out64(soft::fma(F64, F64, a, b, c, scale), m)
}

#[allow(clippy::if_same_then_else)] // mirrors the ISA pseudocode case by case
fn div_fixup(f: Fmt, s0: u64, s1: u64, s2: u64, neg_nan: u64, under_diff: i32) -> u64 {
    let sign_out = f.sign(s1) ^ f.sign(s2);
    let sb = if sign_out { f.sign_bit() } else { 0 };
    let abs = |x: u64| x & !f.sign_bit();
    let e1 = f.exp_field(s1) as i32;
    let e2 = f.exp_field(s2) as i32;
    if f.is_nan(s2) {
        f.quiet(s2)
    } else if f.is_nan(s1) {
        f.quiet(s1)
    } else if f.is_zero(s1) && f.is_zero(s2) {
        neg_nan
    } else if f.is_inf(s1) && f.is_inf(s2) {
        neg_nan
    } else if f.is_zero(s1) || f.is_inf(s2) {
        f.inf(sign_out)
    } else if f.is_inf(s1) || f.is_zero(s2) {
        sb
    } else if e2 - e1 < under_diff {
        sb // UNDERFLOW: the quotient is below half the smallest denormal
    } else if e1 == f.exp_all() as i32 || f.is_nan(s0) {
        f.inf(sign_out) // OVERFLOW
    } else {
        abs(s0) | sb
    }
}
/// v_div_fixup_f32 S0 (quotient), S1 (denominator), S2 (numerator).
pub fn div_fixup_f32(s0: u32, s1: u32, s2: u32, _m: &FpMode) -> u32 {
    div_fixup(F32, s0 as u64, s1 as u64, s2 as u64, NEG_QNAN_F32 as u64, -150) as u32
}
pub fn div_fixup_f64(s0: u64, s1: u64, s2: u64, _m: &FpMode) -> u64 {
    div_fixup(F64, s0, s1, s2, NEG_QNAN_F64, -1075)
}
pub fn div_fixup_f16(s0: u32, s1: u32, s2: u32, _m: &FpMode) -> u32 {
    let (s0, s1, s2) = ((s0 & 0xffff) as u64, (s1 & 0xffff) as u64, (s2 & 0xffff) as u64);
    div_fixup(F16, s0, s1, s2, NEG_QNAN_F16 as u64, i32::MIN) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::{Denorm, Rng};

    fn m() -> FpMode {
        FpMode::default()
    }
    fn ftz() -> FpMode {
        FpMode { denorm_f32: Denorm::FlushSrcDst, denorm_f16_f64: Denorm::FlushSrcDst, ..FpMode::default() }
    }
    fn f(x: f32) -> u32 {
        x.to_bits()
    }
    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn f32_ops_match_rust_ieee() {
        let mut r = Rng(0xfeed_beef);
        let mm = m();
        for _ in 0..4000 {
            let (a, b, c) = (r.f32_bits(), r.f32_bits(), r.f32_bits());
            let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            for (got, want, ins) in [
                (add_f32(a, b, &mm), fa + fb, &[a, b][..]),
                (sub_f32(a, b, &mm), fa - fb, &[a, b][..]),
                (mul_f32(a, b, &mm), fa * fb, &[a, b][..]),
                (fma_f32(a, b, c, &mm), fa.mul_add(fb, fc), &[a, b, c][..]),
            ] {
                if want.is_nan() {
                    // First NaN operand, quieted; else the canonical NaN.
                    let exp = ins.iter().find(|x| f32::from_bits(**x).is_nan()).map_or(QNAN_F32, |n| n | 0x40_0000);
                    assert_eq!(got, exp, "{a:#x} {b:#x} {c:#x}");
                } else {
                    assert_eq!(got, want.to_bits(), "{a:#x} {b:#x} {c:#x}");
                }
            }
            let (x, y, z) = (r.f64_bits(), r.f64_bits(), r.f64_bits());
            let (fx, fy, fz) = (f64::from_bits(x), f64::from_bits(y), f64::from_bits(z));
            for (got, want) in [
                (add_f64(x, y, &mm), fx + fy),
                (mul_f64(x, y, &mm), fx * fy),
                (sub_f64(x, y, &mm), fx - fy),
                (fma_f64(x, y, z, &mm), fx.mul_add(fy, fz)),
            ] {
                if want.is_nan() {
                    assert!(f64::from_bits(got).is_nan());
                } else {
                    assert_eq!(got, want.to_bits(), "{x:#x} {y:#x} {z:#x}");
                }
            }
        }
    }

    #[test]
    fn nan_rules() {
        let mm = m();
        // inf - inf: generated canonical NaN, positive.
        assert_eq!(add_f32(f(f32::INFINITY), f(f32::NEG_INFINITY), &mm), QNAN_F32);
        assert_eq!(mul_f64(d(0.0), d(f64::INFINITY), &mm), QNAN_F64);
        assert_eq!(fma_f32(0, f(f32::INFINITY), f(1.0), &mm), QNAN_F32);
        // Input NaNs: first one in operand order, quieted, payload and sign kept.
        assert_eq!(add_f32(0xff80_0001, 0x7fc0_0002, &mm), 0xffc0_0001);
        assert_eq!(add_f32(f(1.0), 0x7f80_0005, &mm), 0x7fc0_0005);
        assert_eq!(fma_f32(f(1.0), f(2.0), 0x7f90_0000, &mm), 0x7fd0_0000);
        assert_eq!(fma_f64(d(1.0), 0x7ff0_0000_0000_0001, d(f64::NAN), &mm), 0x7ff8_0000_0000_0001);
        assert_eq!(add_f16(0x7c01, 0x3c00, &mm), 0x7e01);
        assert_eq!(add_f16(0x7c00, 0xfc00, &mm), QNAN_F16);
    }

    #[test]
    fn denormal_modes() {
        let den = 0x0000_0001u32; // smallest f32 denormal
        // Kept: 2^-149 * 2 = 2^-148.
        assert_eq!(mul_f32(den, f(2.0), &m()), 2);
        // Flush source: the denormal operand is a zero.
        assert_eq!(mul_f32(den, f(2.0), &ftz()), 0);
        assert_eq!(mul_f32(den | 0x8000_0000, f(2.0), &ftz()), 0x8000_0000);
        // Flush destination only: a normal*normal with a denormal result flushes.
        let dst = FpMode { denorm_f32: Denorm::FlushDst, ..m() };
        let tiny = f(f32::MIN_POSITIVE); // 2^-126
        assert_eq!(mul_f32(tiny, f(0.5), &m()), 0x0040_0000);
        assert_eq!(mul_f32(tiny, f(0.5), &dst), 0);
        assert_eq!(mul_f32(tiny | 0x8000_0000, f(0.5), &dst), 0x8000_0000);
        // ...but a denormal input is used as is.
        assert_eq!(add_f32(den, tiny, &dst), tiny + 1);
        // Flush source only: denormal result kept.
        let src = FpMode { denorm_f32: Denorm::FlushSrc, ..m() };
        assert_eq!(mul_f32(tiny, f(0.5), &src), 0x0040_0000);
        assert_eq!(add_f32(den, tiny, &src), tiny);
        // f64 governed by the f16/f64 field, not the f32 one.
        let mixed = FpMode { denorm_f32: Denorm::FlushSrcDst, ..m() };
        assert_eq!(mul_f64(1, d(2.0), &mixed), 2);
        assert_eq!(mul_f64(1, d(2.0), &ftz()), 0);
        // f16: 2^-24 * 0.5 ties to even 0; 3 * 2^-24 * 0.5 -> 2^-23 (ties to even).
        assert_eq!(mul_f16(0x0001, 0x3800, &m()), 0);
        assert_eq!(mul_f16(0x0003, 0x3800, &m()), 0x0002);
        assert_eq!(mul_f16(0x0400, 0x3800, &m()), 0x0200);
        assert_eq!(mul_f16(0x0400, 0x3800, &ftz()), 0);
    }

    #[test]
    fn f16_arith_rounding() {
        let mm = m();
        // 1 + 2^-11 is a tie between 1 and 1+2^-10 -> even (1.0).
        assert_eq!(add_f16(0x3c00, 0x1000, &mm), 0x3c00);
        // 1+2^-10 + 2^-11 ties to even -> 1 + 2^-9.
        assert_eq!(add_f16(0x3c01, 0x1000, &mm), 0x3c02);
        // 65504 + 16 -> tie to even at 65536 boundary -> overflows to inf.
        assert_eq!(add_f16(0x7bff, 0x4c00, &mm), 0x7c00);
        assert_eq!(add_f16(0x7bff, 0x4b00, &mm), 0x7bff);
        assert_eq!(sub_f16(0x3c00, 0x3c00, &mm), 0);
        assert_eq!(mul_f16(0x8000, 0x3c00, &mm), 0x8000);
        assert_eq!(mul_f16(0x4000, 0x4200, &mm), 0x4600); // 2*3 = 6
        assert_eq!(fma_f16(0x4000, 0x4200, 0xc600, &mm), 0); // 2*3-6
        // bf16: 1 + 2^-8 ties to even -> 1.0; 1 + 3*2^-8 -> 1 + 2^-6.
        assert_eq!(add_bf16(0x3f80, 0x3b80, &mm), 0x3f80);
        assert_eq!(add_bf16(0x3f80, 0x3c40, &mm), 0x3f82);
        // Exhaustive-ish: f16 add/mul against f64 reference (exact then one rounding).
        let mut r = Rng(5);
        for _ in 0..4000 {
            let (a, b) = (r.u32() & 0xffff, r.u32() & 0xffff);
            let (fa, fb) = (f16_to_f64(a), f16_to_f64(b));
            if fa.is_nan() || fb.is_nan() {
                continue;
            }
            let want = |x: f64| if x.is_nan() { QNAN_F16 } else { soft::convert(F64, F16, x.to_bits()) as u32 };
            // The f64 sum/product of two f16 values is exact.
            assert_eq!(add_f16(a, b, &mm), want(fa + fb), "{a:#x}+{b:#x}");
            assert_eq!(mul_f16(a, b, &mm), want(fa * fb), "{a:#x}*{b:#x}");
        }
    }

    #[test]
    fn fma_mix() {
        let mm = m();
        // src0 = f16 2.0 in the high half, src1 = f32 3.0, src2 = f16 0.5 low half -> 6.5.
        let src = [0x4000_0000, f(3.0), 0x0000_3800];
        let r = super::fma_mix(src, 0b001, 0b101, 0, 0, MixDst::F32, 0, &mm);
        assert_eq!(r, f(6.5));
        let r = super::fma_mix(src, 0b001, 0b101, 0, 0, MixDst::LoF16, 0xabcd_0000, &mm);
        assert_eq!(r, 0xabcd_4680);
        let r = super::fma_mix(src, 0b001, 0b101, 0b100, 0, MixDst::HiF16, 0x1234, &mm);
        assert_eq!(r, 0x4580_1234); // 6 - 0.5 = 5.5
        // bf16 sources and result: 2.0 * 3.0 + 1.0 = 7.0 (0x40e0).
        let src = [0x4000, 0x4040, 0x3f80];
        let r = super::fma_mix(src, 0, 0b111, 0, 0, MixDst::LoBf16, 0xffff_ffff, &mm);
        assert_eq!(r, 0xffff_40e0);
        // bf16 sources with an f32 result: 1.5 (0x3fc0, high half) * 2.0 + 0.25.
        let r = super::fma_mix([0x3fc0_0000, 0x4000, f(0.25)], 0b001, 0b011, 0, 0, MixDst::F32Bf16, 0, &mm);
        assert_eq!(r, f(3.25));
        // The same bits read as f16 give a different value (0x3fc0 f16 = 1.9375).
        let r = super::fma_mix([0x3fc0_0000, 0x4000, f(0.25)], 0b001, 0b011, 0, 0, MixDst::F32, 0, &mm);
        assert_eq!(r, f(1.9375 * 2.0 + 0.25));
        // Rounded to f32 first, then to f16 (the ISA's f32_to_f16(fma(...))): 1 * (1 + 2^-11) +
        // 2^-30 rounds to f32 1 + 2^-11, an f16 tie that goes to even 1.0; a single rounding of
        // the exact value would give 1 + 2^-10.
        let r = super::fma_mix([f(1.0), f(1.0 + 2f32.powi(-11)), f(2f32.powi(-30))], 0, 0, 0, 0, MixDst::LoF16, 0, &mm);
        assert_eq!(r, 0x3c00);
        // -0 * 1 + (+0) = +0 (the fptrunc(a*b) pattern LLVM selects mixlo for).
        let r = super::fma_mix([0x8000_0000, f(1.0), 0], 0, 0, 0, 0, MixDst::LoBf16, 0, &mm);
        assert_eq!(r, 0);
        // abs on an f32 source: |-2| * 1 + 0.
        let r = super::fma_mix([f(-2.0), f(1.0), 0], 0, 0, 0, 0b001, MixDst::F32, 0, &mm);
        assert_eq!(r, f(2.0));
    }

    #[test]
    fn min_max_semantics() {
        let ieee = m();
        let non = FpMode { ieee: false, ..m() };
        let snan = 0x7f80_0001u32;
        let qnan = 0x7fc0_0000u32;
        // GFX9 IEEE mode: sNaN quieted and returned; qNaN ignored.
        assert_eq!(min_f32(snan, f(1.0), &ieee), 0x7fc0_0001);
        assert_eq!(min_f32(f(1.0), snan, &ieee), 0x7fc0_0001);
        assert_eq!(min_f32(qnan, f(1.0), &ieee), f(1.0));
        assert_eq!(max_f32(f(1.0), qnan, &ieee), f(1.0));
        // Non-IEEE: any NaN ignored.
        assert_eq!(min_f32(snan, f(1.0), &non), f(1.0));
        assert_eq!(max_f32(f(2.0), snan, &non), f(2.0));
        // Signed zeros.
        assert_eq!(min_f32(0, 0x8000_0000, &ieee), 0x8000_0000);
        assert_eq!(min_f32(0x8000_0000, 0, &ieee), 0x8000_0000);
        assert_eq!(max_f32(0, 0x8000_0000, &ieee), 0);
        assert_eq!(max_f32(0x8000_0000, 0, &ieee), 0);
        assert_eq!(min_f32(f(-3.0), f(2.0), &ieee), f(-3.0));
        assert_eq!(max_f64(d(-3.0), d(2.0), &ieee), d(2.0));
        // GFX12 minimumNumber: sNaN also ignored; two NaNs -> quiet S0.
        assert_eq!(min_num_f32(snan, f(1.0), &ieee), f(1.0));
        assert_eq!(min_num_f32(snan, qnan, &ieee), 0x7fc0_0001);
        assert_eq!(max_num_f32(0x8000_0000, 0, &ieee), 0);
        assert_eq!(min_num_f32(0, 0x8000_0000, &ieee), 0x8000_0000);
        assert_eq!(max_num_f64(d(1.0), d(f64::NAN), &ieee), d(1.0));
        // IEEE 2019 minimum: NaN propagates.
        assert_eq!(minimum_f32(f(1.0), snan, &ieee), 0x7fc0_0001);
        assert_eq!(maximum_f32(0x8000_0000, 0, &ieee), 0);
        // min3 / max3 / med3.
        assert_eq!(min3_f32(f(3.0), f(1.0), f(2.0), &ieee), f(1.0));
        assert_eq!(max3_f32(f(3.0), f(1.0), f(2.0), &ieee), f(3.0));
        assert_eq!(med3_f32(f(3.0), f(1.0), f(2.0), &ieee), f(2.0));
        assert_eq!(med3_f32(f(1.0), f(3.0), f(2.0), &ieee), f(2.0));
        assert_eq!(med3_f32(f(2.0), f(1.0), f(3.0), &ieee), f(2.0));
        // med3 with a NaN is min3 (quiet NaN ignored -> min of the rest).
        assert_eq!(med3_f32(qnan, f(5.0), f(4.0), &ieee), f(4.0));
        assert_eq!(med3_num_f32(f(-1.0), f(7.0), f(0.5), &ieee), f(0.5));
        // Property: for non-NaN operands min/max match Rust's.
        let mut r = Rng(99);
        for _ in 0..2000 {
            let (a, b) = (r.f32_bits(), r.f32_bits());
            let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
            if fa.is_nan() || fb.is_nan() || (fa == 0.0 && fb == 0.0) {
                continue;
            }
            assert_eq!(min_f32(a, b, &ieee), fa.min(fb).to_bits());
            assert_eq!(max_num_f32(a, b, &ieee), fa.max(fb).to_bits());
        }
        assert_eq!(min_f16(0x3c00, 0xbc00, &ieee), 0xbc00);
        assert_eq!(max_num_f16(0x7e00, 0x3c00, &ieee), 0x3c00);
    }

    #[test]
    fn rounding_ops() {
        let mm = m();
        assert_eq!(floor_f32(f(-1.5), &mm), f(-2.0));
        assert_eq!(ceil_f32(f(-0.5), &mm), f(-0.0));
        assert_eq!(trunc_f32(f(-2.7), &mm), f(-2.0));
        assert_eq!(rndne_f32(f(2.5), &mm), f(2.0));
        assert_eq!(rndne_f32(f(3.5), &mm), f(4.0));
        assert_eq!(rndne_f32(f(-0.5), &mm), f(-0.0));
        assert_eq!(rndne_f64(d(-2.5), &mm), d(-2.0));
        assert_eq!(floor_f64(d(1e300), &mm), d(1e300));
        assert_eq!(fract_f32(f(-1.25), &mm), f(0.75));
        assert_eq!(fract_f32(0x8000_0001, &mm), 0x3f7f_ffff); // -denorm -> just below 1
        assert_eq!(fract_f32(f(f32::INFINITY), &mm), QNAN_F32);
        assert_eq!(fract_f64(d(-1.25), &mm), d(0.75));
        assert_eq!(ldexp_f32(f(1.5), 3, &mm), f(12.0));
        assert_eq!(ldexp_f32(f(1.0), -149, &mm), 1);
        assert_eq!(ldexp_f32(f(1.5), -149, &mm), 2); // 1.5 * 2^-149 ties to even 2^-148
        assert_eq!(ldexp_f32(f(1.0), -150, &mm), 0); // tie to even 0
        assert_eq!(ldexp_f32(f(1.0), 128, &mm), 0x7f80_0000);
        assert_eq!(ldexp_f32(1, 149, &mm), f(1.0));
        assert_eq!(ldexp_f32(f(1.0), i32::MIN, &mm), 0);
        assert_eq!(ldexp_f64(d(3.0), -1075, &mm), 2); // 1.5 * 2^-1074 ties to even 2 * 2^-1074
        assert_eq!(ldexp_f64(d(5.0), -1076, &mm), 1); // 1.25 * 2^-1074 -> 2^-1074
        assert_eq!(ldexp_f64(d(1.0), 1024, &mm), d(f64::INFINITY));
        assert_eq!(ldexp_f16(0x3c00, -24, &mm), 1);
        assert_eq!(frexp_mant_f32(f(12.0), &mm), f(0.75));
        assert_eq!(frexp_exp_i32_f32(f(12.0), &mm), 4);
        assert_eq!(frexp_mant_f32(1, &mm), f(0.5));
        assert_eq!(frexp_exp_i32_f32(1, &mm), (-148i32) as u32);
        assert_eq!(frexp_exp_i32_f32(f(f32::INFINITY), &mm), 0);
        assert_eq!(frexp_mant_f32(f(f32::NEG_INFINITY), &mm), f(f32::NEG_INFINITY));
        assert_eq!(frexp_mant_f64(d(-12.0), &mm), d(-0.75));
        assert_eq!(frexp_exp_i32_f64(d(0.5), &mm), 0);
        assert_eq!(frexp_exp_i32_f64(d(1.0), &mm), 1);
        assert_eq!(frexp_mant_f32(0, &mm), 0);
        // Flush input: a denormal is a zero.
        assert_eq!(frexp_exp_i32_f32(1, &ftz()), 0);
    }

    #[test]
    fn class_mask() {
        let cases: [(u32, u32); 10] = [
            (0x7f80_0001, 0),
            (0x7fc0_0000, 1),
            (0xff80_0000, 2),
            (f(-1.0), 3),
            (0x8000_0001, 4),
            (0x8000_0000, 5),
            (0, 6),
            (1, 7),
            (f(1.0), 8),
            (0x7f80_0000, 9),
        ];
        for (x, bit) in cases {
            assert!(cmp_class_f32(x, 1 << bit), "{x:#x}");
            assert!(!cmp_class_f32(x, 0x3ff & !(1 << bit)), "{x:#x}");
        }
        assert!(cmp_class_f64(0x000f_ffff_ffff_ffff, 1 << 7));
        assert!(cmp_class_f64(0xfff0_0000_0000_0000, 1 << 2));
        assert!(cmp_class_f16(0x7d00, 1 << 0));
        assert!(cmp_class_f16(0x7e00, 1 << 1));
        assert!(cmp_class_f16(0x8001, 1 << 4));
    }

    #[test]
    fn transcendental_examples_from_isa_guide() {
        let mm = m();
        assert_eq!(exp_f32(0xff80_0000, &mm), 0);
        assert_eq!(exp_f32(0x8000_0000, &mm), 0x3f80_0000);
        assert_eq!(exp_f32(0x7f80_0000, &mm), 0x7f80_0000);
        assert_eq!(exp_f32(f(10.0), &mm), f(1024.0));
        assert_eq!(exp_f32(f(-130.0), &mm), 0); // denormal result flushed
        assert_eq!(log_f32(0xff80_0000, &mm), 0xffc0_0000);
        assert_eq!(log_f32(0xbf80_0000, &mm), 0xffc0_0000);
        assert_eq!(log_f32(0x8000_0000, &mm), 0xff80_0000);
        assert_eq!(log_f32(0, &mm), 0xff80_0000);
        assert_eq!(log_f32(1, &mm), 0xff80_0000); // denormal input flushed
        assert_eq!(log_f32(0x3f80_0000, &mm), 0);
        assert_eq!(log_f32(0x7f80_0000, &mm), 0x7f80_0000);
        assert_eq!(log_f32(f(8.0), &mm), f(3.0));
        assert_eq!(rcp_f32(0xff80_0000, &mm), 0x8000_0000);
        assert_eq!(rcp_f32(0xc000_0000, &mm), 0xbf00_0000);
        assert_eq!(rcp_f32(0x8000_0000, &mm), 0xff80_0000);
        assert_eq!(rcp_f32(0, &mm), 0x7f80_0000);
        assert_eq!(rcp_f32(0x7f80_0000, &mm), 0);
        assert_eq!(rcp_f32(f(3.0), &mm), f(1.0 / 3.0));
        assert_eq!(rcp_f32(f(1e38), &mm), 0); // denormal result flushed
        assert_eq!(rsq_f32(0xff80_0000, &mm), 0xffc0_0000);
        assert_eq!(rsq_f32(0x8000_0000, &mm), 0xff80_0000);
        assert_eq!(rsq_f32(0, &mm), 0x7f80_0000);
        assert_eq!(rsq_f32(0x4080_0000, &mm), 0x3f00_0000);
        assert_eq!(rsq_f32(0x7f80_0000, &mm), 0);
        assert_eq!(sqrt_f32(0xff80_0000, &mm), 0xffc0_0000);
        assert_eq!(sqrt_f32(0x8000_0000, &mm), 0x8000_0000);
        assert_eq!(sqrt_f32(0, &mm), 0);
        assert_eq!(sqrt_f32(0x4080_0000, &mm), 0x4000_0000);
        assert_eq!(sqrt_f32(0x7f80_0000, &mm), 0x7f80_0000);
        assert_eq!(sin_f32(0xff80_0000, &mm), 0xffc0_0000);
        assert_eq!(sin_f32(0xff7f_ffff, &mm), 0);
        assert_eq!(sin_f32(0x8000_0000, &mm), 0x8000_0000);
        assert_eq!(sin_f32(0x3e80_0000, &mm), 0x3f80_0000);
        assert_eq!(sin_f32(0x7f80_0000, &mm), 0xffc0_0000);
        assert_eq!(cos_f32(0xff80_0000, &mm), 0xffc0_0000);
        assert_eq!(cos_f32(0xff7f_ffff, &mm), 0x3f80_0000);
        assert_eq!(cos_f32(0x8000_0000, &mm), 0x3f80_0000);
        assert_eq!(cos_f32(0x3e80_0000, &mm), 0);
        assert_eq!(cos_f32(0x7f80_0000, &mm), 0xffc0_0000);
        assert_eq!(sin_f32(f(-0.25), &mm), f(-1.0));
        assert_eq!(cos_f32(f(0.5), &mm), f(-1.0));
        assert_eq!(rcp_f64(d(4.0), &mm), d(0.25));
        assert_eq!(rcp_f64(d(-0.0), &mm), d(f64::NEG_INFINITY));
        assert_eq!(sqrt_f64(d(2.0), &mm), d(2f64.sqrt()));
        assert_eq!(sqrt_f64(d(-1.0), &mm), NEG_QNAN_F64);
        assert_eq!(rsq_f64(d(4.0), &mm), d(0.5));
        assert_eq!(rcp_f16(0xfc00, &mm), 0x8000);
        assert_eq!(rcp_f16(0xc000, &mm), 0xb800);
        assert_eq!(sqrt_f16(0x4400, &mm), 0x4000);
        assert_eq!(sqrt_f16(0xfc00, &mm), 0xfe00);
        // Documented precision bounds hold against f64 references.
        let mut r = Rng(3);
        for _ in 0..2000 {
            let x = r.u32() & 0x7fff_ffff;
            let fx = f32::from_bits(x);
            if !fx.is_finite() || F32.is_denorm(x as u64) || fx == 0.0 {
                continue;
            }
            let ulp = |got: u32, want: f64| {
                let w = want as f32;
                (got as i64 - w.to_bits() as i64).abs()
            };
            assert!(ulp(log_f32(x, &mm), (fx as f64).log2()) <= 1);
            let s = sin_f32(x, &mm);
            let want = (2.0 * std::f64::consts::PI * ((fx as f64) - (fx as f64).round())).sin();
            assert!((f32::from_bits(s) as f64 - want).abs() < 1e-6, "sin {fx}");
        }
    }

    /// LLVM's f64 fdiv expansion (SITargetLowering::LowerFDIV64), instruction for instruction
    /// (checked against `llc -mcpu=gfx90a` output, which emits this exact order):
    ///   v_div_scale_f64 d0, vcc, y, y, x       ; DivScale0 (denominator)
    ///   v_rcp_f64       r, d0
    ///   v_fma_f64       e0, -d0, r, 1.0
    ///   v_fma_f64       r1, r, e0, r
    ///   v_fma_f64       e1, -d0, r1, 1.0
    ///   v_div_scale_f64 n1, vcc, x, y, x       ; DivScale1 (numerator), sets VCC
    ///   v_fma_f64       r2, r1, e1, r1
    ///   v_mul_f64       q, n1, r2
    ///   v_fma_f64       e2, -d0, q, n1
    ///   v_div_fmas_f64  q1, e2, r2, q          ; uses VCC
    ///   v_div_fixup_f64 out, q1, y, x
    fn llvm_fdiv64(x: u64, y: u64, rcp: impl Fn(u64) -> u64) -> u64 {
        let m = m();
        let neg = |v: u64| v ^ (1 << 63);
        let one = 1.0f64.to_bits();
        let (d0, _) = div_scale_f64(y, y, x, &m);
        let r = rcp(d0);
        let e0 = fma_f64(neg(d0), r, one, &m);
        let r1 = fma_f64(r, e0, r, &m);
        let e1 = fma_f64(neg(d0), r1, one, &m);
        let (n1, vcc) = div_scale_f64(x, y, x, &m);
        let r2 = fma_f64(r1, e1, r1, &m);
        let q = mul_f64(n1, r2, &m);
        let e2 = fma_f64(neg(d0), q, n1, &m);
        let q1 = div_fmas_f64(e2, r2, q, vcc, &m);
        div_fixup_f64(q1, y, x, &m)
    }

    /// The f32 expansion with denormals kept (LowerFDIV32, no denormal-mode switching):
    /// div_scale ×2, rcp, fma chain, div_fmas, div_fixup (same order as `llc -mcpu=gfx90a`).
    fn llvm_fdiv32(x: u32, y: u32) -> u32 {
        let m = m();
        let neg = |v: u32| v ^ (1 << 31);
        let one = 1.0f32.to_bits();
        let (den, _) = div_scale_f32(y, y, x, &m);
        let (num, vcc) = div_scale_f32(x, y, x, &m);
        let rcp = rcp_f32(den, &m);
        let fma0 = fma_f32(neg(den), rcp, one, &m);
        let fma1 = fma_f32(fma0, rcp, rcp, &m);
        let mul = mul_f32(num, fma1, &m);
        let fma2 = fma_f32(neg(den), mul, num, &m);
        let fma3 = fma_f32(fma2, fma1, mul, &m);
        let fma4 = fma_f32(neg(den), fma3, num, &m);
        let fmas = div_fmas_f32(fma4, fma1, fma3, vcc, &m);
        div_fixup_f32(fmas, y, x, &m)
    }

    fn check64(x: f64, y: f64, got: u64) {
        let want = x / y;
        if want.is_nan() {
            assert!(f64::from_bits(got).is_nan(), "{x:e}/{y:e} -> {:e}", f64::from_bits(got));
        } else {
            assert_eq!(got, want.to_bits(), "{x:e} / {y:e}: got {:e} want {want:e}", f64::from_bits(got));
        }
    }

    #[test]
    fn llvm_fdiv64_sequence_is_correctly_rounded() {
        let mm = m();
        let specials = [
            0.0, -0.0, 1.0, -1.0, 3.0, 7.0, 0.1, 1e-300, 1e300, f64::MAX, -f64::MAX, f64::MIN_POSITIVE,
            5e-324, 1e-310, -2.5e-320, 4.9e-308, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 2f64.powi(1023),
            2f64.powi(-1022) * 1.5, 1.0 + f64::EPSILON, 123456789.0, 2f64.powi(-1074) * 3.0, 8.98846567431158e307,
        ];
        for &x in &specials {
            for &y in &specials {
                check64(x, y, llvm_fdiv64(x.to_bits(), y.to_bits(), |v| rcp_f64(v, &mm)));
            }
        }
        // The documented case the printed pseudocode gets wrong: huge denominator, denormal
        // quotient (both 1/y and x/y denormal).
        check64(0.5, 2f64.powi(1023), llvm_fdiv64(d(0.5), d(2f64.powi(1023)), |v| rcp_f64(v, &mm)));
        let mut r = Rng(0xd1f);
        for i in 0..3000 {
            let (x, y) = (r.f64_bits(), r.f64_bits());
            check64(f64::from_bits(x), f64::from_bits(y), llvm_fdiv64(x, y, |v| rcp_f64(v, &mm)));
            // The hardware v_rcp_f64 is only documented to 2^29 ULP: a reciprocal with its low 24
            // bits garbled must still give the correctly rounded quotient.
            if i % 3 == 0 {
                let sloppy = |v: u64| {
                    let r = rcp_f64(v, &mm);
                    if f64::from_bits(r).is_finite() && r & 0x7ff0_0000_0000_0000 != 0 {
                        (r & !0xff_ffff) | (x & 0xff_ffff)
                    } else {
                        r
                    }
                };
                check64(f64::from_bits(x), f64::from_bits(y), llvm_fdiv64(x, y, sloppy));
            }
        }
    }

    #[test]
    fn llvm_fdiv32_sequence_is_correctly_rounded() {
        let specials = [
            0.0f32, -0.0, 1.0, 3.0, -7.0, 0.1, 1e-38, 1e38, f32::MAX, f32::MIN_POSITIVE, 1e-45, 3e-39,
            f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 2f32.powi(127), 1.0 + f32::EPSILON,
        ];
        for &x in &specials {
            for &y in &specials {
                let got = llvm_fdiv32(x.to_bits(), y.to_bits());
                let want = x / y;
                if want.is_nan() {
                    assert!(f32::from_bits(got).is_nan());
                } else {
                    assert_eq!(got, want.to_bits(), "{x:e}/{y:e}");
                }
            }
        }
        let mut r = Rng(0x32);
        for _ in 0..3000 {
            let (x, y) = (r.f32_bits(), r.f32_bits());
            let got = llvm_fdiv32(x, y);
            let want = f32::from_bits(x) / f32::from_bits(y);
            if want.is_nan() {
                assert!(f32::from_bits(got).is_nan());
            } else {
                assert_eq!(got, want.to_bits(), "{:e}/{:e}", f32::from_bits(x), f32::from_bits(y));
            }
        }
    }

    /// LLVM's f64 sqrt expansion (SITargetLowering::lowerFSQRTF64): scale tiny inputs by 2^256,
    /// v_rsq_f64, a Goldschmidt/Newton fma chain, scale back by 2^-128, and pass 0/+inf through
    /// via v_cmp_class. With the rsq model it must be correctly rounded.
    fn llvm_sqrt64(x: u64) -> u64 {
        let m = m();
        let neg = |v: u64| v ^ (1 << 63);
        let half = 0.5f64.to_bits();
        let scale = cmp_f64_lt(x, 2f64.powi(-767).to_bits());
        let sx = ldexp_f64(x, if scale { 256 } else { 0 }, &m);
        let y = rsq_f64(sx, &m);
        let s0 = mul_f64(sx, y, &m);
        let h0 = mul_f64(y, half, &m);
        let r0 = fma_f64(neg(h0), s0, half, &m);
        let h1 = fma_f64(h0, r0, h0, &m);
        let s1 = fma_f64(s0, r0, s0, &m);
        let d0 = fma_f64(neg(s1), s1, sx, &m);
        let s2 = fma_f64(d0, h1, s1, &m);
        let d1 = fma_f64(neg(s2), s2, sx, &m);
        let ret = fma_f64(d1, h1, s2, &m);
        let ret = ldexp_f64(ret, if scale { -128 } else { 0 }, &m);
        // v_cmp_class_f64 sx, zero|+inf (mask 0x260)
        if cmp_class_f64(sx, 0x260) { sx } else { ret }
    }
    fn cmp_f64_lt(a: u64, b: u64) -> bool {
        f64::from_bits(a) < f64::from_bits(b)
    }

    #[test]
    fn llvm_sqrt64_sequence_is_correctly_rounded() {
        let mut r = Rng(0x5127);
        let mut xs: Vec<u64> = [0.0f64, -0.0, 1.0, 2.0, 4.0, 0.5, f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e-310, f64::INFINITY]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        xs.extend((0..3000).map(|_| r.f64_bits() & !(1 << 63)));
        for x in xs {
            let want = f64::from_bits(x).sqrt();
            let got = llvm_sqrt64(x);
            if want.is_nan() {
                assert!(f64::from_bits(got).is_nan());
            } else {
                assert_eq!(got, want.to_bits(), "sqrt({:e})", f64::from_bits(x));
            }
        }
    }

    #[test]
    fn div_helpers_pieces() {
        let mm = m();
        // div_scale: plain case returns S0 unchanged, VCC 0.
        assert_eq!(div_scale_f64(d(3.0), d(3.0), d(1.0), &mm), (d(3.0), false));
        // Zero denominator / numerator -> NaN.
        assert!(f64::from_bits(div_scale_f64(d(1.0), d(0.0), d(1.0), &mm).0).is_nan());
        // Denormal denominator: scaled up by 2^128, no post-scale.
        assert_eq!(div_scale_f64(1, 1, d(2f64.powi(-300)), &mm), (ldexp_f64(1, 128, &mm), false));
        // ...unless the exponent gap reaches 768 first (checked earlier): VCC set.
        assert_eq!(div_scale_f64(1, 1, d(1.0), &mm), (ldexp_f64(1, 128, &mm), true));
        // Huge quotient: only the denominator is scaled, VCC set.
        assert_eq!(div_scale_f64(d(1.0), d(1.0), d(1e300), &mm), (d(2f64.powi(128)), true));
        assert_eq!(div_scale_f64(d(1e300), d(1.0), d(1e300), &mm), (d(1e300), true));
        // Tiny numerator: scaled.
        assert_eq!(div_scale_f64(d(1e-300), d(1e-300), d(1e-300), &mm).0, ldexp_f64(d(1e-300), 128, &mm));
        // div_fmas scale direction follows S2's exponent.
        assert_eq!(div_fmas_f64(d(1.0), d(1.0), d(2.0), true, &mm), d(3.0 * 2f64.powi(128)));
        assert_eq!(div_fmas_f64(d(0.25), d(1.0), d(0.25), true, &mm), d(0.5 * 2f64.powi(-128)));
        assert_eq!(div_fmas_f32(f(1.0), f(1.0), f(2.0), true, &mm), f(3.0 * 2f32.powi(64)));
        assert_eq!(div_fmas_f32(f(1.0), f(2.0), f(3.0), false, &mm), f(5.0));
        // The scale is fused: one rounding into the denormal range. fma = 2^-900 * (1 + 2^-47 +
        // 2^-60); scaled by 2^-128 it has 46 significant bits: the single rounding goes up to
        // 2^-1028 + 2^-1074, a rounding to f64 first would tie to even 2^-1028.
        let a = d(2f64.powi(-947) * (1.0 + 2f64.powi(-13)));
        let q = div_fmas_f64(a, d(1.0), d(2f64.powi(-900)), true, &mm);
        assert_eq!(q, (1u64 << 46) + 1);
        // div_fixup special cases.
        assert_eq!(div_fixup_f64(d(5.0), d(0.0), d(0.0), &mm), NEG_QNAN_F64);
        assert_eq!(div_fixup_f64(d(5.0), d(f64::INFINITY), d(f64::NEG_INFINITY), &mm), NEG_QNAN_F64);
        assert_eq!(div_fixup_f64(d(5.0), d(-0.0), d(2.0), &mm), d(f64::NEG_INFINITY));
        assert_eq!(div_fixup_f64(d(5.0), d(f64::INFINITY), d(-2.0), &mm), d(-0.0));
        assert_eq!(div_fixup_f64(d(5.0), d(-2.0), d(-10.0), &mm), d(5.0));
        assert_eq!(div_fixup_f64(d(5.0), d(-2.0), d(10.0), &mm), d(-5.0));
        assert_eq!(div_fixup_f64(d(5.0), 0x7ff0_0000_0000_0001, d(10.0), &mm), 0x7ff8_0000_0000_0001);
        assert_eq!(div_fixup_f64(d(5.0), d(1e300), d(1e-300), &mm), 0);
        assert_eq!(div_fixup_f32(f(5.0), f(0.0), f(0.0), &mm), NEG_QNAN_F32);
        assert_eq!(div_fixup_f16(0x4500, 0x4000, 0xc900, &mm), 0xc500);
    }

    #[test]
    fn property_against_f64_exactness() {
        // mad (unfused) differs from fma exactly when the product rounds.
        let mm = m();
        let a = f(1.0 + f32::EPSILON);
        let c = f(-(1.0 + 2.0 * f32::EPSILON));
        assert_eq!(fma_f32(a, a, c, &mm), f(f32::EPSILON * f32::EPSILON));
        assert_eq!(mad_f32(a, a, c, &mm), 0);
        assert_eq!(mul_legacy_f32(0, f(f32::INFINITY), &mm), 0);
        assert_eq!(mul_legacy_f32(f(2.0), f(3.0), &mm), f(6.0));
    }

    #[test]
    fn two_by_pi_table_starts_as_frac_2_pi() {
        // 2/pi = 0.6366... = 1.fraction x 2^-1: the f64's 52 fraction bits follow the table's
        // leading 1 bit.
        let bits = (TWO_BY_PI[0] as u64) << 32 | TWO_BY_PI[1] as u64;
        let want = std::f64::consts::FRAC_2_PI.to_bits() & 0x000f_ffff_ffff_ffff;
        // Round the 53 leading bits as the f64 constant is rounded.
        let top = bits >> 11;
        let rounded = top + ((bits >> 10) & 1);
        assert_eq!(rounded & 0x000f_ffff_ffff_ffff, want);
        assert_eq!(trig_preop_f64(1.0f64.to_bits(), 0, &m()), 0x3fe4_5f30_6dc9_c882);
    }

    #[test]
    fn tanh_is_within_an_ulp() {
        let ulps = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).abs();
        let mut worst = 0;
        let mut r = crate::alu::Rng(7);
        for k in 0..(1u32 << 20) {
            // Every exponent: random bit patterns of finite normal numbers.
            let x = f32::from_bits(if k < 1 << 19 { r.u32() } else { (r.u32() & 0x807f_ffff) | ((97 + (k % 40)) << 23) });
            if !x.is_finite() || x.abs() < f32::MIN_POSITIVE {
                continue;
            }
            let got = f32::from_bits(tanh_f32(x.to_bits(), &m()));
            let want = (x as f64).tanh() as f32;
            worst = worst.max(ulps(got, want));
        }
        assert!(worst <= 1, "{worst} ulps");
        assert_eq!(tanh_f32(f32::INFINITY.to_bits(), &m()), 1.0f32.to_bits());
        assert_eq!(tanh_f32(f32::NEG_INFINITY.to_bits(), &m()), (-1.0f32).to_bits());
        assert_eq!(tanh_f32(0x8000_0001, &m()), 0x8000_0000);
        assert_eq!(tanh_f32(0x7f80_0001, &m()), 0x7fc0_0001);
    }
}
