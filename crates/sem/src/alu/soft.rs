//! A small exact soft-float core, generic over binary formats (f16, bf16, f32, f64): decoding,
//! one correctly rounded (RNE) pack from an exact integer significand, exact fused
//! multiply-add with an optional power-of-two post-scale (for v_div_fmas), and format
//! conversion. Used where the host's native operations would round twice (f16/bf16
//! arithmetic, mixed-precision fma, scaled fma, ldexp into the denormal range).

/// A binary interchange format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fmt {
    pub exp_bits: u32,
    pub man_bits: u32,
}

pub const F16: Fmt = Fmt { exp_bits: 5, man_bits: 10 };
pub const BF16: Fmt = Fmt { exp_bits: 8, man_bits: 7 };
pub const F32: Fmt = Fmt { exp_bits: 8, man_bits: 23 };
pub const F64: Fmt = Fmt { exp_bits: 11, man_bits: 52 };

/// A decoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Val {
    Nan,
    Inf(bool),
    /// (sign, significand, exponent): value = (-1)^sign * mant * 2^exp. mant == 0 is a zero.
    Fin(bool, u64, i32),
}

impl Fmt {
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    pub const fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }
    pub const fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }
    pub const fn exp_field(self, bits: u64) -> u64 {
        (bits >> self.man_bits) & ((1 << self.exp_bits) - 1)
    }
    pub const fn exp_all(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    pub const fn inf(self, sign: bool) -> u64 {
        (self.exp_all() << self.man_bits) | if sign { self.sign_bit() } else { 0 }
    }
    pub const fn quiet_bit(self) -> u64 {
        1 << (self.man_bits - 1)
    }
    /// The positive canonical quiet NaN.
    pub const fn default_nan(self) -> u64 {
        (self.exp_all() << self.man_bits) | self.quiet_bit()
    }
    pub const fn is_nan(self, bits: u64) -> bool {
        self.exp_field(bits) == self.exp_all() && bits & self.man_mask() != 0
    }
    pub const fn is_snan(self, bits: u64) -> bool {
        self.is_nan(bits) && bits & self.quiet_bit() == 0
    }
    pub const fn is_inf(self, bits: u64) -> bool {
        self.exp_field(bits) == self.exp_all() && bits & self.man_mask() == 0
    }
    pub const fn is_zero(self, bits: u64) -> bool {
        bits & !self.sign_bit() == 0
    }
    pub const fn is_denorm(self, bits: u64) -> bool {
        self.exp_field(bits) == 0 && bits & self.man_mask() != 0
    }
    pub const fn sign(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }
    pub const fn quiet(self, bits: u64) -> u64 {
        bits | self.quiet_bit()
    }
    /// Denormal -> zero of the same sign; everything else unchanged.
    pub const fn flush(self, bits: u64) -> u64 {
        if self.is_denorm(bits) { bits & self.sign_bit() } else { bits }
    }
    /// Smallest normal exponent (unbiased).
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    pub fn decode(self, bits: u64) -> Val {
        let s = self.sign(bits);
        let e = self.exp_field(bits);
        let f = bits & self.man_mask();
        if e == self.exp_all() {
            return if f != 0 { Val::Nan } else { Val::Inf(s) };
        }
        let m = self.man_bits as i32;
        if e == 0 {
            Val::Fin(s, f, self.emin() - m)
        } else {
            Val::Fin(s, f | (1 << self.man_bits), e as i32 - self.bias() - m)
        }
    }

    /// Round (-1)^sign * (mant + sticky) * 2^exp to this format, nearest-even, overflow to
    /// infinity. `sticky` means "plus a positive amount strictly less than one unit of mant's
    /// lowest bit".
    pub fn round_pack(self, sign: bool, mant: u128, exp: i32, sticky: bool) -> u64 {
        let sbit = if sign { self.sign_bit() } else { 0 };
        if mant == 0 {
            // A sticky-only value is below every representable magnitude's half-ulp here only
            // if the caller passed a nonsense input; treat it as zero.
            return sbit;
        }
        let m = self.man_bits as i32;
        let msb = 127 - mant.leading_zeros() as i32;
        let e_top = exp as i64 + msb as i64; // exponent of the leading bit
        let lsb_e = (e_top - m as i64).max(self.emin() as i64 - m as i64);
        let shift = lsb_e - exp as i64;
        let q: u128 = if shift <= 0 {
            // Exact: at most m+1 significant bits.
            if -shift >= 127 {
                return self.inf(sign);
            }
            mant << (-shift)
        } else if shift > 127 {
            0 // far below half of the smallest denormal
        } else {
            let sh = shift as u32;
            let q = if sh == 128 { 0 } else { mant >> sh };
            let rem = mant & ((1u128 << sh) - 1);
            let half = 1u128 << (sh - 1);
            if rem > half || (rem == half && (sticky || q & 1 == 1)) { q + 1 } else { q }
        };
        let base = lsb_e - (self.emin() as i64 - m as i64); // >= 0
        if base > (self.exp_all() as i64) {
            return self.inf(sign);
        }
        let bits = ((base as u128) << m) + q;
        if bits >= (self.exp_all() as u128) << m {
            return self.inf(sign);
        }
        bits as u64 | sbit
    }

    /// Pack a finite decoded value (possibly from another format), rounding once.
    pub fn pack(self, sign: bool, mant: u64, exp: i32) -> u64 {
        self.round_pack(sign, mant as u128, exp, false)
    }
}

/// Convert a NaN of format `from` to format `to`: sign kept, payload's top bits kept, quieted.
pub fn convert_nan(from: Fmt, to: Fmt, bits: u64) -> u64 {
    let s = from.sign(bits);
    let pay = bits & from.man_mask();
    let pay = if to.man_bits >= from.man_bits {
        pay << (to.man_bits - from.man_bits)
    } else {
        pay >> (from.man_bits - to.man_bits)
    };
    to.quiet((to.exp_all() << to.man_bits) | pay) | if s { to.sign_bit() } else { 0 }
}

/// Convert between formats with one RNE rounding (exact when widening). NaNs are quieted.
pub fn convert(from: Fmt, to: Fmt, bits: u64) -> u64 {
    match from.decode(bits) {
        Val::Nan => convert_nan(from, to, bits),
        Val::Inf(s) => to.inf(s),
        Val::Fin(s, m, e) => to.pack(s, m, e),
    }
}

/// Exact fused multiply-add of three values of format `fin`, times 2^scale, rounded once to
/// `fout`. NaN operands: the first NaN (a, b, c order) is returned quieted (converted to
/// `fout`); invalid operations give `fout`'s default NaN.
pub fn fma(fin: Fmt, fout: Fmt, a: u64, b: u64, c: u64, scale: i32) -> u64 {
    for x in [a, b, c] {
        if fin.is_nan(x) {
            return convert_nan(fin, fout, x);
        }
    }
    let (da, db, dc) = (fin.decode(a), fin.decode(b), fin.decode(c));
    let ps = fin.sign(a) ^ fin.sign(b);
    // Product class.
    let prod_inf = matches!(da, Val::Inf(_)) || matches!(db, Val::Inf(_));
    let prod_zero = matches!(da, Val::Fin(_, 0, _)) || matches!(db, Val::Fin(_, 0, _));
    if prod_inf && prod_zero {
        return fout.default_nan();
    }
    if prod_inf {
        if let Val::Inf(cs) = dc {
            if cs != ps {
                return fout.default_nan();
            }
        }
        return fout.inf(ps);
    }
    if let Val::Inf(cs) = dc {
        return fout.inf(cs);
    }
    let (Val::Fin(_, ma, ea), Val::Fin(_, mb, eb), Val::Fin(cs, mc, ec)) = (da, db, dc) else {
        unreachable!()
    };
    let pm = ma as u128 * mb as u128;
    let pe = ea + eb;
    add_exact(fout, ps, pm, pe, cs, mc as u128, ec, scale)
}

/// Round (-1)^sx*mx*2^ex + (-1)^sy*my*2^ey (times 2^scale) to `fout`; mx, my < 2^124.
#[allow(clippy::too_many_arguments)]
pub fn add_exact(fout: Fmt, sx: bool, mx: u128, ex: i32, sy: bool, my: u128, ey: i32, scale: i32) -> u64 {
    if mx == 0 && my == 0 {
        // Exact zero: -0 only if both are -0 (RNE).
        let s = sx && sy;
        return if s { fout.sign_bit() } else { 0 };
    }
    if mx == 0 {
        return fout.round_pack(sy, my, ey.saturating_add(scale), false);
    }
    if my == 0 {
        return fout.round_pack(sx, mx, ex.saturating_add(scale), false);
    }
    // Normalize both so the leading bit is at position 124.
    let nx = mx.leading_zeros() as i32 - 3;
    let ny = my.leading_zeros() as i32 - 3;
    let (x, xe) = (mx << nx, ex - nx);
    let (y, ye) = (my << ny, ey - ny);
    let ((bs, b, be), (ss, s, se)) =
        if (xe, x) >= (ye, y) { ((sx, x, xe), (sy, y, ye)) } else { ((sy, y, ye), (sx, x, xe)) };
    let d = (be - se) as i64;
    let (s_sh, lost) = if d == 0 {
        (s, false)
    } else if d >= 125 {
        (0u128, true)
    } else {
        (s >> d, s & ((1u128 << d) - 1) != 0)
    };
    let e = be.saturating_add(scale);
    if bs == ss {
        fout.round_pack(bs, b + s_sh, e, lost)
    } else {
        let diff = b - s_sh;
        if lost {
            fout.round_pack(bs, diff - 1, e, true)
        } else if diff == 0 {
            0
        } else {
            fout.round_pack(bs, diff, e, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::Rng;

    #[test]
    fn fma_matches_native_f32_f64() {
        let mut r = Rng(0x1234_5678_9abc_def1);
        for _ in 0..3000 {
            let (a, b, c) = (r.f32_bits(), r.f32_bits(), r.f32_bits());
            let want = f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c));
            let got = fma(F32, F32, a as u64, b as u64, c as u64, 0) as u32;
            if want.is_nan() {
                assert!(f32::from_bits(got).is_nan(), "{a:#x} {b:#x} {c:#x}");
            } else {
                assert_eq!(got, want.to_bits(), "fma {a:#x} {b:#x} {c:#x}");
            }
            // Addition and multiplication as special cases.
            let want = f32::from_bits(a) + f32::from_bits(c);
            let got = fma(F32, F32, a as u64, 0x3f80_0000, c as u64, 0) as u32;
            if !want.is_nan() {
                assert_eq!(got, want.to_bits(), "add {a:#x} {c:#x}");
            }
            let (x, y, z) = (r.f64_bits(), r.f64_bits(), r.f64_bits());
            let want = f64::from_bits(x).mul_add(f64::from_bits(y), f64::from_bits(z));
            let got = fma(F64, F64, x, y, z, 0);
            if want.is_nan() {
                assert!(f64::from_bits(got).is_nan());
            } else {
                assert_eq!(got, want.to_bits(), "fma64 {x:#x} {y:#x} {z:#x}");
            }
        }
    }

    #[test]
    fn convert_matches_native() {
        let mut r = Rng(77);
        for _ in 0..3000 {
            let x = r.f64_bits();
            let want = f64::from_bits(x) as f32;
            let got = convert(F64, F32, x) as u32;
            if want.is_nan() {
                let exp = ((x >> 32) as u32 & 0x8000_0000) | 0x7fc0_0000 | ((x & 0xf_ffff_ffff_ffff) >> 29) as u32;
                assert_eq!(got, exp);
            } else {
                assert_eq!(got, want.to_bits(), "{x:#x}");
            }
            let y = r.f32_bits();
            if !f32::from_bits(y).is_nan() {
                assert_eq!(convert(F32, F64, y as u64), (f32::from_bits(y) as f64).to_bits());
            }
        }
    }

    #[test]
    fn round_pack_edges() {
        // f16: 2049 * 2^0 ties to even 2048; 2051 rounds up to 2052.
        assert_eq!(F16.pack(false, 2049, 0), 0x6800);
        assert_eq!(F16.pack(false, 2051, 0), 0x6802);
        // Largest f16 is 65504; 65520 (the midpoint to 65536) overflows to inf.
        assert_eq!(F16.pack(false, 65504, 0), 0x7bff);
        assert_eq!(F16.pack(false, 65519, 0), 0x7bff);
        assert_eq!(F16.pack(false, 65520, 0), 0x7c00);
        // Smallest f16 denormal 2^-24; 2^-25 ties to even -> 0; 3*2^-26 -> 2^-24.
        assert_eq!(F16.pack(false, 1, -24), 0x0001);
        assert_eq!(F16.pack(true, 1, -25), 0x8000);
        assert_eq!(F16.pack(false, 3, -26), 0x0001);
        // Denormal rounding up into the smallest normal.
        assert_eq!(F16.pack(false, 0x7ff, -25), 0x0400);
        // Sticky breaks a tie.
        assert_eq!(F16.round_pack(false, 2049, 0, true), 0x6801);
    }
}
