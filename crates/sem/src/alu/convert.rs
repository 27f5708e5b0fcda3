//! Conversions between float formats and between floats and integers.
//!
//! Float -> integer (v_cvt_i32_f32, v_cvt_u32_f32, v_cvt_i32_f64, v_cvt_u32_f64, 16-bit forms):
//! round toward zero, out-of-range values (including infinities) saturate, NaN -> 0 (ISA guide:
//! "out-of-range floating point values (including infinity) saturate. NAN is converted to 0");
//! so v_cvt_u32_f32 of any negative value is 0. Integer -> float: RNE. Float -> float: RNE,
//! NaNs quieted with the payload's top bits kept.

use super::float::{in16, in32, in64, out16, out32, out64};
use super::soft::{self, BF16, F16, F32, F64};
use super::FpMode;

pub fn cvt_i32_f32(x: u32, m: &FpMode) -> u32 {
    f32::from_bits(in32(x, m)) as i32 as u32
}
pub fn cvt_u32_f32(x: u32, m: &FpMode) -> u32 {
    f32::from_bits(in32(x, m)) as u32
}
pub fn cvt_i32_f64(x: u64, m: &FpMode) -> u32 {
    f64::from_bits(in64(x, m)) as i32 as u32
}
pub fn cvt_u32_f64(x: u64, m: &FpMode) -> u32 {
    f64::from_bits(in64(x, m)) as u32
}
pub fn cvt_f32_i32(x: u32, _m: &FpMode) -> u32 {
    (x as i32 as f32).to_bits()
}
pub fn cvt_f32_u32(x: u32, _m: &FpMode) -> u32 {
    (x as f32).to_bits()
}
pub fn cvt_f64_i32(x: u32, _m: &FpMode) -> u64 {
    (x as i32 as f64).to_bits()
}
pub fn cvt_f64_u32(x: u32, _m: &FpMode) -> u64 {
    (x as f64).to_bits()
}
/// v_cvt_rpi_i32_f32: f32_to_i32(floor(x + 0.5)).
pub fn cvt_rpi_i32_f32(x: u32, m: &FpMode) -> u32 {
    let f = f32::from_bits(in32(x, m));
    (f + 0.5).floor() as i32 as u32
}
/// v_cvt_flr_i32_f32: f32_to_i32(floor(x)).
pub fn cvt_flr_i32_f32(x: u32, m: &FpMode) -> u32 {
    f32::from_bits(in32(x, m)).floor() as i32 as u32
}
/// v_cvt_f32_ubyte{0,1,2,3}.
pub fn cvt_f32_ubyte(x: u32, byte: u32) -> u32 {
    (((x >> (8 * (byte & 3))) & 0xff) as f32).to_bits()
}

/// v_cvt_f32_f64: RNE; f64-mode input flushing, f32-mode output flushing.
pub fn cvt_f32_f64(x: u64, m: &FpMode) -> u32 {
    out32(soft::convert(F64, F32, in64(x, m)) as u32, m)
}
/// v_cvt_f64_f32: exact.
pub fn cvt_f64_f32(x: u32, m: &FpMode) -> u64 {
    out64(soft::convert(F32, F64, in32(x, m) as u64), m)
}
/// v_cvt_f16_f32: RNE, f16 denormals produced (flushed only per the f16/f64 mode).
pub fn cvt_f16_f32(x: u32, m: &FpMode) -> u32 {
    out16(F16, soft::convert(F32, F16, in32(x, m) as u64), m)
}
/// v_cvt_f32_f16: exact; f16 denormal inputs flushed per the f16/f64 mode.
pub fn cvt_f32_f16(x: u32, m: &FpMode) -> u32 {
    out32(soft::convert(F16, F32, in16(F16, x, m)) as u32, m)
}
/// f32 -> bf16, RNE, NaN quieted (v_cvt_pk_bf16_f32 per half, v_cvt_bf16_f32).
pub fn cvt_bf16_f32(x: u32, m: &FpMode) -> u32 {
    out16(BF16, soft::convert(F32, BF16, in32(x, m) as u64), m)
}
/// v_cvt_f32_bf16: exact (the bf16 bits become the top half).
pub fn cvt_f32_bf16(x: u32, _m: &FpMode) -> u32 {
    (x & 0xffff) << 16
}
/// v_cvt_pk_bf16_f32: src0 -> low half, src1 -> high half.
pub fn cvt_pk_bf16_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    cvt_bf16_f32(a, m) | cvt_bf16_f32(b, m) << 16
}
/// v_cvt_pk_f16_f32 (gfx950): src0 -> low half, src1 -> high half, RNE.
pub fn cvt_pk_f16_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    cvt_f16_f32(a, m) | cvt_f16_f32(b, m) << 16
}
/// v_cvt_pkrtz_f16_f32: both halves rounded toward zero.
pub fn cvt_pkrtz_f16_f32(a: u32, b: u32, m: &FpMode) -> u32 {
    f32_to_f16_rtz(in32(a, m)) | f32_to_f16_rtz(in32(b, m)) << 16
}
fn f32_to_f16_rtz(x: u32) -> u32 {
    let rne = soft::convert(F32, F16, x as u64) as u32;
    if F16.is_nan(rne as u64) {
        return rne;
    }
    // If RNE rounded away from zero (magnitude grew), step one toward zero.
    let back = f32::from_bits(soft::convert(F16, F32, rne as u64) as u32);
    let orig = f32::from_bits(x);
    if back.abs() > orig.abs() { rne - 1 } else { rne }
}
/// v_cvt_f16_u16 / v_cvt_f16_i16 (RNE).
pub fn cvt_f16_u16(x: u32, m: &FpMode) -> u32 {
    out16(F16, F16.pack(false, (x & 0xffff) as u64, 0), m)
}
pub fn cvt_f16_i16(x: u32, m: &FpMode) -> u32 {
    let v = x as u16 as i16 as i32;
    out16(F16, F16.pack(v < 0, v.unsigned_abs() as u64, 0), m)
}
/// v_cvt_u16_f16 / v_cvt_i16_f16: truncate, saturate, NaN -> 0.
pub fn cvt_u16_f16(x: u32, m: &FpMode) -> u32 {
    let f = f32::from_bits(soft::convert(F16, F32, in16(F16, x, m)) as u32);
    f as u16 as u32
}
pub fn cvt_i16_f16(x: u32, m: &FpMode) -> u32 {
    let f = f32::from_bits(soft::convert(F16, F32, in16(F16, x, m)) as u32);
    f as i16 as u16 as u32
}
/// v_cvt_pk_u16_u32 / v_cvt_pk_i16_i32: saturate each to 16 bits and pack.
pub fn cvt_pk_u16_u32(a: u32, b: u32) -> u32 {
    a.min(0xffff) | b.min(0xffff) << 16
}
pub fn cvt_pk_i16_i32(a: u32, b: u32) -> u32 {
    let s = |v: u32| (v as i32).clamp(-32768, 32767) as i16 as u16 as u32;
    s(a) | s(b) << 16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::{Denorm, Rng};

    fn m() -> FpMode {
        FpMode::default()
    }
    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn float_to_int_saturation() {
        let mm = m();
        assert_eq!(cvt_i32_f32(0x7fc0_0000, &mm), 0);
        assert_eq!(cvt_i32_f32(0xffc0_0001, &mm), 0);
        assert_eq!(cvt_i32_f32(f(3e9), &mm), 0x7fff_ffff);
        assert_eq!(cvt_i32_f32(f(-3e9), &mm), 0x8000_0000);
        assert_eq!(cvt_i32_f32(f(f32::INFINITY), &mm), 0x7fff_ffff);
        assert_eq!(cvt_i32_f32(f(-2.9), &mm), (-2i32) as u32);
        assert_eq!(cvt_u32_f32(f(-1.0), &mm), 0);
        assert_eq!(cvt_u32_f32(f(-0.5), &mm), 0);
        assert_eq!(cvt_u32_f32(f(5e9), &mm), u32::MAX);
        assert_eq!(cvt_u32_f32(f(4294967040.0), &mm), 4294967040);
        assert_eq!(cvt_u32_f32(0x7fc0_0000, &mm), 0);
        assert_eq!(cvt_i32_f64(1e10f64.to_bits(), &mm), 0x7fff_ffff);
        assert_eq!(cvt_i32_f64(f64::NAN.to_bits(), &mm), 0);
        assert_eq!(cvt_i32_f64((-7.99f64).to_bits(), &mm), (-7i32) as u32);
        assert_eq!(cvt_u32_f64((-7.99f64).to_bits(), &mm), 0);
        assert_eq!(cvt_rpi_i32_f32(f(2.5), &mm), 3);
        assert_eq!(cvt_rpi_i32_f32(f(-2.5), &mm), (-2i32) as u32);
        assert_eq!(cvt_flr_i32_f32(f(-2.5), &mm), (-3i32) as u32);
        assert_eq!(cvt_u16_f16(0xbc00, &mm), 0);
        assert_eq!(cvt_u16_f16(0x7c00, &mm), 0xffff);
        assert_eq!(cvt_i16_f16(0xfc00, &mm), 0x8000);
        assert_eq!(cvt_i16_f16(0x7e00, &mm), 0);
        assert_eq!(cvt_pk_i16_i32(70000, (-70000i32) as u32), 0x8000_7fff);
        assert_eq!(cvt_pk_u16_u32(70000, 5), 0x0005_ffff);
    }

    #[test]
    fn int_to_float_rne() {
        let mm = m();
        // 2^24 + 1 ties to even 2^24; 2^24 + 3 rounds to 2^24 + 4.
        assert_eq!(cvt_f32_u32(16_777_217, &mm), f(16_777_216.0));
        assert_eq!(cvt_f32_u32(16_777_219, &mm), f(16_777_220.0));
        assert_eq!(cvt_f32_u32(u32::MAX, &mm), f(4294967296.0));
        assert_eq!(cvt_f32_i32(0x8000_0000, &mm), f(-2147483648.0));
        assert_eq!(cvt_f32_i32((-16_777_219i32) as u32, &mm), f(-16_777_220.0));
        assert_eq!(cvt_f64_u32(u32::MAX, &mm), 4294967295f64.to_bits());
        assert_eq!(cvt_f64_i32(0x8000_0000, &mm), (-2147483648f64).to_bits());
        assert_eq!(cvt_f32_ubyte(0x1122_3344, 0), f(68.0));
        assert_eq!(cvt_f32_ubyte(0x1122_3344, 3), f(17.0));
        assert_eq!(cvt_f16_u16(2049, &mm), 0x6800);
        assert_eq!(cvt_f16_u16(65535, &mm), 0x7c00); // 65535 > 65520 -> inf
        assert_eq!(cvt_f16_i16((-3i32) as u32, &mm), 0xc200);
    }

    #[test]
    fn f32_f16_conversions() {
        let mm = m();
        assert_eq!(cvt_f16_f32(f(1.0), &mm), 0x3c00);
        // 1 + 2^-11 ties to even 1.0; 1 + 3*2^-11 ties to even 1 + 2^-9.
        assert_eq!(cvt_f16_f32(f(1.0 + 2f32.powi(-11)), &mm), 0x3c00);
        assert_eq!(cvt_f16_f32(f(1.0 + 3.0 * 2f32.powi(-11)), &mm), 0x3c02);
        assert_eq!(cvt_f16_f32(f(1.0 + 2f32.powi(-11) + 2f32.powi(-20)), &mm), 0x3c01);
        assert_eq!(cvt_f16_f32(f(65520.0), &mm), 0x7c00);
        assert_eq!(cvt_f16_f32(f(65519.0), &mm), 0x7bff);
        assert_eq!(cvt_f16_f32(f(2f32.powi(-24)), &mm), 0x0001);
        assert_eq!(cvt_f16_f32(f(2f32.powi(-25)), &mm), 0x0000);
        assert_eq!(cvt_f16_f32(f(-2f32.powi(-25) * 1.5), &mm), 0x8001);
        assert_eq!(cvt_f16_f32(f(f32::NEG_INFINITY), &mm), 0xfc00);
        // NaN: quieted, top payload bits kept.
        assert_eq!(cvt_f16_f32(0x7f80_2000, &mm), 0x7e01);
        assert_eq!(cvt_f16_f32(0xff80_0001, &mm), 0xfe00);
        // Denormal results flushed when the f16/f64 mode flushes output.
        let ftz = FpMode { denorm_f16_f64: Denorm::FlushSrcDst, ..m() };
        assert_eq!(cvt_f16_f32(f(2f32.powi(-20)), &ftz), 0);
        assert_eq!(cvt_f32_f16(0x0001, &mm), f(2f32.powi(-24)));
        assert_eq!(cvt_f32_f16(0x8001, &ftz), 0x8000_0000);
        assert_eq!(cvt_f32_f16(0x7c01, &mm), 0x7fc0_2000);
        assert_eq!(cvt_f32_f16(0xfbff, &mm), f(-65504.0));
        // Round trip of every f16 through f32 is exact.
        for h in 0..=0xffffu32 {
            if F16.is_nan(h as u64) {
                continue;
            }
            assert_eq!(cvt_f16_f32(cvt_f32_f16(h, &mm), &mm), h);
        }
        assert_eq!(cvt_pkrtz_f16_f32(f(1.0 + 3.0 * 2f32.powi(-11)), f(-65519.0), &mm), 0xfbff_3c01);
        assert_eq!(cvt_pk_f16_f32(f(2.0), f(-1.0), &mm), 0xbc00_4000);
    }

    #[test]
    fn bf16_and_f64_conversions() {
        let mm = m();
        // RNE: 1 + 2^-8 is a tie -> 1.0; 1 + 3*2^-8 -> 1 + 2^-6.
        assert_eq!(cvt_pk_bf16_f32(f(1.0 + 2f32.powi(-8)), f(1.0 + 3.0 * 2f32.powi(-8)), &mm), 0x3f82_3f80);
        assert_eq!(cvt_bf16_f32(0x3f80_8001, &mm), 0x3f81);
        assert_eq!(cvt_bf16_f32(0x7f7f_ffff, &mm), 0x7f80); // max f32 rounds to inf
        assert_eq!(cvt_bf16_f32(0x7f80_0001, &mm), 0x7fc0); // sNaN with low payload -> quiet
        assert_eq!(cvt_bf16_f32(0xffc1_0000, &mm), 0xffc1);
        assert_eq!(cvt_f32_bf16(0xbf80, &mm), f(-1.0));
        let mut r = Rng(11);
        for _ in 0..3000 {
            let x = r.f32_bits();
            if f32::from_bits(x).is_nan() {
                continue;
            }
            // Reference RNE to bf16 by integer arithmetic.
            let lsb = (x >> 16) & 1;
            let want = (x.wrapping_add(0x7fff + lsb)) >> 16;
            assert_eq!(cvt_bf16_f32(x, &mm), want, "{x:#x}");
            let y = r.f64_bits();
            let fy = f64::from_bits(y);
            if !fy.is_nan() {
                assert_eq!(cvt_f32_f64(y, &mm), (fy as f32).to_bits());
            }
            assert_eq!(cvt_f64_f32(x, &mm), (f32::from_bits(x) as f64).to_bits());
        }
        assert_eq!(cvt_f32_f64(0x7ff0_0000_0000_0001, &mm), 0x7fc0_0000);
        assert_eq!(cvt_f32_f64(1e-40f64.to_bits(), &FpMode { denorm_f32: Denorm::FlushDst, ..mm }), 0);
    }
}
