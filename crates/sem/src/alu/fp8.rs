//! 8-bit floats as the gfx1250 (GFX12.5) conversions read and write them: the two formats of the
//! OCP FP8 specification (not the "FNUZ" formats of gfx942).
//!
//! - fp8 = E4M3: bias 7, no infinities, S.1111.111 is NaN, largest finite 448 (0x7e).
//! - bf8 = E5M2: bias 15, S.11111.00 is infinity, S.11111.xx (xx != 0) NaN, largest finite
//!   57344 (0x7b).
//!
//! Conversions to fp8/bf8 round to nearest even (the only mode modelled), keep subnormals and
//! the sign of zero. A magnitude that rounds past the largest finite value, or an infinity,
//! saturates to the largest finite value when the instruction's clamp bit is set; without clamp
//! it becomes what the OCP specification's non-saturating mode gives: NaN (E4M3) or infinity
//! (E5M2). A NaN input becomes the quiet NaN of the format with the input's sign (E4M3 S.1111.111,
//! E5M2 S.11111.10). Conversions from fp8/bf8 are exact (every value is representable in f32 and
//! in f16); NaN becomes the quiet NaN with the sign kept, infinity stays infinity.
//!
//! The instruction forms (operand order, byte and word selects) are in [`Fp8Op`]; which
//! modifier bits each form models is [`Fp8Op::check_mods`] (the emulator and the raiser refuse
//! the others).

use super::soft::{self, F16, F64};
use super::FpMode;

/// One of the two 8-bit formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fp8Fmt {
    /// fp8 (E4M3).
    E4M3,
    /// bf8 (E5M2).
    E5M2,
}

impl Fp8Fmt {
    fn mbits(self) -> i32 {
        match self {
            Fp8Fmt::E4M3 => 3,
            Fp8Fmt::E5M2 => 2,
        }
    }
    fn bias(self) -> i32 {
        match self {
            Fp8Fmt::E4M3 => 7,
            Fp8Fmt::E5M2 => 15,
        }
    }
    /// The largest finite magnitude's code.
    pub fn max_code(self) -> u8 {
        match self {
            Fp8Fmt::E4M3 => 0x7e,
            Fp8Fmt::E5M2 => 0x7b,
        }
    }
    /// What an overflow without clamp gives (magnitude): NaN (E4M3) or infinity (E5M2).
    pub fn overflow_code(self) -> u8 {
        match self {
            Fp8Fmt::E4M3 => 0x7f,
            Fp8Fmt::E5M2 => 0x7c,
        }
    }
    /// The quiet NaN written for a NaN input (magnitude).
    pub fn nan_code(self) -> u8 {
        match self {
            Fp8Fmt::E4M3 => 0x7f,
            Fp8Fmt::E5M2 => 0x7e,
        }
    }
    pub fn is_nan(self, b: u8) -> bool {
        match self {
            Fp8Fmt::E4M3 => b & 0x7f == 0x7f,
            Fp8Fmt::E5M2 => b & 0x7f > 0x7c,
        }
    }

    /// The value of code `b` (exact in f64; NaN as a NaN with the code's sign).
    pub fn to_f64(self, b: u8) -> f64 {
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        if self.is_nan(b) {
            return sign * f64::NAN;
        }
        let mag = (b & 0x7f) as i32;
        let (m, bias) = (self.mbits(), self.bias());
        let (exp, man) = (mag >> m, (mag & ((1 << m) - 1)) as f64);
        if self == Fp8Fmt::E5M2 && exp == 31 {
            return sign * f64::INFINITY;
        }
        let v = if exp == 0 {
            man * 2f64.powi(1 - bias - m)
        } else {
            (man + (1 << m) as f64) * 2f64.powi(exp - bias - m)
        };
        sign * v
    }

    /// `x` (any f64 whose value is that of an f32 or f16) rounded to nearest even into this
    /// format; `clamp` saturates out-of-range magnitudes (see the module notes).
    pub fn from_f64(self, x: f64, clamp: bool) -> u8 {
        let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
        if x.is_nan() {
            return sign | self.nan_code();
        }
        let a = x.abs();
        let over = sign | if clamp { self.max_code() } else { self.overflow_code() };
        if a.is_infinite() {
            return over;
        }
        if a == 0.0 {
            return sign;
        }
        let (m, bias) = (self.mbits(), self.bias());
        let emin = 1 - bias;
        // floor(log2 a): a is a normal f64 (f32 and f16 values are).
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        // Multiples of the spacing at a's exponent (or of the subnormal spacing).
        let q = e.max(emin) - m;
        let scaled = a * 2f64.powi(-q); // exact: a power-of-two scaling of a 24-bit significand
        let fl = scaled.floor();
        let frac = scaled - fl;
        let mut n = fl as u64;
        if frac > 0.5 || (frac == 0.5 && n & 1 == 1) {
            n += 1;
        }
        let code = if e < emin {
            // Subnormal; 2^m carries into the smallest normal's code.
            n
        } else {
            let mut exp = e;
            if n == 2 << m {
                exp += 1;
                n = 1 << m;
            }
            (((exp + bias) as u64) << m) | (n - (1 << m))
        };
        if code > self.max_code() as u64 {
            return over;
        }
        sign | code as u8
    }

    /// f32 bit pattern -> code (input denormals flushed per the f32 mode first).
    pub fn from_f32(self, x: u32, clamp: bool, m: &FpMode) -> u8 {
        let x = if m.denorm_f32.flush_in() && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
        self.from_f64(f32::from_bits(x) as f64, clamp)
    }

    /// f16 bit pattern (low half) -> code (input denormals flushed per the f16/f64 mode first).
    pub fn from_f16(self, x: u32, clamp: bool, m: &FpMode) -> u8 {
        let x = x & 0xffff;
        let x = if m.denorm_f16_f64.flush_in() && x & 0x7c00 == 0 { x & 0x8000 } else { x };
        let v = f64::from_bits(soft::convert(F16, F64, x as u64));
        self.from_f64(v, clamp)
    }

    /// Code -> f32 bit pattern (exact; NaN quiet with the code's sign).
    pub fn to_f32(self, b: u8) -> u32 {
        if self.is_nan(b) {
            return (b as u32 & 0x80) << 24 | 0x7fc0_0000;
        }
        (self.to_f64(b) as f32).to_bits()
    }

    /// Code -> f16 bit pattern (exact; E5M2 subnormals are f16 subnormals, flushed when the
    /// f16/f64 mode flushes outputs; NaN quiet with the code's sign).
    pub fn to_f16(self, b: u8, m: &FpMode) -> u32 {
        if self.is_nan(b) {
            return (b as u32 & 0x80) << 8 | 0x7e00;
        }
        let h = soft::convert(F64, F16, self.to_f64(b).to_bits()) as u32;
        if m.denorm_f16_f64.flush_out() && h & 0x7c00 == 0 {
            h & 0x8000
        } else {
            h
        }
    }
}

/// The gfx1250 fp8/bf8 conversion instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fp8Op {
    /// v_cvt_pk_{fp8,bf8}_f32 D, S0, S1: bytes [S0, S1] into the low word of D, or the high word
    /// with op_sel[3]; the other word of D is kept.
    PkFromF32(Fp8Fmt),
    /// v_cvt_pk_{fp8,bf8}_f16 D, S0: the two f16 halves of S0 into bytes [lo, hi] of the low
    /// word of D (high word with op_sel[3]); the other word kept.
    PkFromF16(Fp8Fmt),
    /// v_cvt_f32_{fp8,bf8} D, S0: byte `byte_sel` of S0 to f32.
    ToF32(Fp8Fmt),
    /// v_cvt_f16_{fp8,bf8} D, S0: byte `byte_sel` of S0 to f16 (a 16-bit result).
    ToF16(Fp8Fmt),
    /// v_cvt_pk_f32_{fp8,bf8} D[2], S0: the two bytes of S0's low word (high word with
    /// op_sel[0]) to two f32.
    PkToF32(Fp8Fmt),
    /// v_cvt_pk_f16_{fp8,bf8} D, S0: the two bytes of S0's low word (high word with
    /// op_sel[0]) to two packed f16.
    PkToF16(Fp8Fmt),
}

impl Fp8Op {
    /// The op_sel bits this form models (bit i: source i, bit 3: destination), and whether it
    /// reads byte_sel.
    fn modelled(self) -> (u8, bool) {
        match self {
            Fp8Op::PkFromF32(_) | Fp8Op::PkFromF16(_) => (0b1000, false),
            Fp8Op::ToF32(_) => (0, true),
            Fp8Op::ToF16(_) => (0b1000, true),
            Fp8Op::PkToF32(_) | Fp8Op::PkToF16(_) => (0b0001, false),
        }
    }

    /// Err naming the modifier when `op_sel`/`byte_sel` use bits this form does not model.
    pub fn check_mods(self, op_sel: u8, byte_sel: u8) -> Result<(), &'static str> {
        let (bits, reads_byte) = self.modelled();
        if op_sel & !bits != 0 {
            return Err("op_sel bits of an fp8 conversion that are not modelled");
        }
        if byte_sel != 0 && !reads_byte {
            return Err("byte_sel on an fp8 conversion that does not read it");
        }
        Ok(())
    }

    /// Does clamp saturate the conversion itself (to fp8/bf8), rather than clamp a float
    /// result to [0, 1] afterwards?
    pub fn clamp_saturates(self) -> bool {
        matches!(self, Fp8Op::PkFromF32(_) | Fp8Op::PkFromF16(_))
    }

    /// Evaluates one lane: `src` the sources (after neg/abs), `old` the old destination,
    /// `op_sel`/`byte_sel`/`clamp` the instruction's modifiers. 16-bit results in the low half
    /// (the engine places them by op_sel[3]).
    pub fn eval(self, src: [u64; 3], old: u64, op_sel: u8, byte_sel: u8, clamp: bool, m: &FpMode) -> u64 {
        let hi_dst = op_sel & 8 != 0;
        let merge = |packed: u32| -> u64 {
            let old = old as u32;
            (if hi_dst { (old & 0xffff) | packed << 16 } else { (old & 0xffff_0000) | packed }) as u64
        };
        let s0 = src[0] as u32;
        let word = if op_sel & 1 != 0 { s0 >> 16 } else { s0 & 0xffff };
        match self {
            Fp8Op::PkFromF32(f) => {
                let lo = f.from_f32(s0, clamp, m) as u32;
                let hi = f.from_f32(src[1] as u32, clamp, m) as u32;
                merge(lo | hi << 8)
            }
            Fp8Op::PkFromF16(f) => {
                let lo = f.from_f16(s0, clamp, m) as u32;
                let hi = f.from_f16(s0 >> 16, clamp, m) as u32;
                merge(lo | hi << 8)
            }
            Fp8Op::ToF32(f) => f.to_f32((s0 >> (8 * (byte_sel & 3))) as u8) as u64,
            Fp8Op::ToF16(f) => f.to_f16((s0 >> (8 * (byte_sel & 3))) as u8, m) as u64,
            Fp8Op::PkToF32(f) => {
                let lo = f.to_f32(word as u8) as u64;
                let hi = f.to_f32((word >> 8) as u8) as u64;
                lo | hi << 32
            }
            Fp8Op::PkToF16(f) => {
                let lo = f.to_f16(word as u8, m) as u64;
                let hi = f.to_f16((word >> 8) as u8, m) as u64;
                lo | hi << 16
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode() -> FpMode {
        FpMode::ieee_default()
    }

    #[test]
    fn every_finite_code_round_trips_through_f32_and_f16() {
        for f in [Fp8Fmt::E4M3, Fp8Fmt::E5M2] {
            for b in 0..=255u8 {
                if f.is_nan(b) {
                    continue;
                }
                let x = f.to_f32(b);
                assert_eq!(f.from_f32(x, false, &mode()), b, "{f:?} {b:#04x} via f32 {x:#x}");
                let h = f.to_f16(b, &mode());
                assert_eq!(f.from_f16(h, false, &mode()), b, "{f:?} {b:#04x} via f16 {h:#x}");
            }
        }
    }

    #[test]
    fn known_values() {
        let e4 = Fp8Fmt::E4M3;
        let e5 = Fp8Fmt::E5M2;
        // 1.0: E4M3 exponent 7 -> 0x38; E5M2 exponent 15 -> 0x3c.
        assert_eq!(e4.from_f64(1.0, false), 0x38);
        assert_eq!(e5.from_f64(1.0, false), 0x3c);
        assert_eq!(e4.to_f32(0x7e), 448f32.to_bits());
        assert_eq!(e5.to_f32(0x7b), 57344f32.to_bits());
        // Smallest subnormals: 2^-9 (E4M3), 2^-16 (E5M2).
        assert_eq!(e4.to_f64(0x01), 2f64.powi(-9));
        assert_eq!(e5.to_f64(0x01), 2f64.powi(-16));
        // Ties to even: 1.0625 lies halfway between 1.0 (0x38) and 1.125 (0x39) -> 0x38;
        // 1.1875 between 1.125 (0x39) and 1.25 (0x3a) -> 0x3a.
        assert_eq!(e4.from_f64(1.0625, false), 0x38);
        assert_eq!(e4.from_f64(1.1875, false), 0x3a);
        // Half the smallest subnormal rounds to zero (even), just above it to 0x01.
        assert_eq!(e4.from_f64(2f64.powi(-10), false), 0x00);
        assert_eq!(e4.from_f64(2f64.powi(-10) * 1.001, false), 0x01);
        // Largest subnormal rounding up into the smallest normal: 0.875*2^-6 + half spacing.
        assert_eq!(e4.from_f64(2f64.powi(-6) * (0.875 + 0.0625), false), 0x08);
        // Range ends: 460 rounds to 448; 464 is the tie with the (missing) 480 -> 448 (even);
        // 470 overflows: NaN without clamp, 448 with it.
        assert_eq!(e4.from_f64(460.0, false), 0x7e);
        assert_eq!(e4.from_f64(464.0, false), 0x7e);
        assert_eq!(e4.from_f64(470.0, false), 0x7f);
        assert_eq!(e4.from_f64(-470.0, true), 0xfe);
        assert_eq!(e5.from_f64(61440.0, false), 0x7c); // tie 57344/65536 -> 65536 (even) -> inf
        assert_eq!(e5.from_f64(-1e9, true), 0xfb);
        assert_eq!(e5.from_f64(f64::INFINITY, false), 0x7c);
        assert_eq!(e4.from_f64(f64::INFINITY, false), 0x7f);
        assert_eq!(e4.from_f64(-f64::NAN, false), 0xff);
        assert_eq!(e5.from_f64(f64::NAN, true), 0x7e);
        assert_eq!(e4.from_f64(-0.0, false), 0x80);
        // Decoding specials.
        assert_eq!(e5.to_f32(0xfc), f32::NEG_INFINITY.to_bits());
        assert_eq!(e5.to_f32(0x7d), 0x7fc0_0000);
        assert_eq!(e4.to_f32(0xff), 0xffc0_0000);
        assert_eq!(e5.to_f16(0x01, &mode()), 0x0100); // 2^-16 = 256 * 2^-24: an f16 subnormal
    }

    #[test]
    fn instruction_forms() {
        let m = mode();
        let f32b = |x: f32| x.to_bits() as u64;
        // v_cvt_pk_fp8_f32: bytes [S0, S1] into the selected word, the other word kept.
        let r = Fp8Op::PkFromF32(Fp8Fmt::E4M3).eval([f32b(1.0), f32b(-2.0), 0], 0xdead_beef, 0, 0, false, &m);
        assert_eq!(r, 0xdead_c038);
        let r = Fp8Op::PkFromF32(Fp8Fmt::E4M3).eval([f32b(1.0), f32b(-2.0), 0], 0xdead_beef, 8, 0, false, &m);
        assert_eq!(r, 0xc038_beef);
        // v_cvt_f32_fp8 byte_sel:2.
        let r = Fp8Op::ToF32(Fp8Fmt::E4M3).eval([0x0038_0000, 0, 0], 0, 0, 2, false, &m);
        assert_eq!(r, f32b(1.0));
        // v_cvt_pk_f32_bf8 op_sel:[1,0]: the high word's two bytes.
        let r = Fp8Op::PkToF32(Fp8Fmt::E5M2).eval([0xbc3c_0000, 0, 0], 0, 1, 0, false, &m);
        assert_eq!(r, f32b(1.0) | f32b(-1.0) << 32);
        assert!(Fp8Op::PkToF32(Fp8Fmt::E5M2).check_mods(8, 0).is_err());
        assert!(Fp8Op::ToF16(Fp8Fmt::E5M2).check_mods(8, 3).is_ok());
    }
}
