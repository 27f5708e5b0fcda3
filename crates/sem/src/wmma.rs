//! WMMA semantics shared by the emulator and the raiser: the exact value of an OCP fp8/bf8
//! byte, and which WMMA forms are refused (with why). The emulator's `wmma` computes the
//! products; the raiser lowers them onto the target's MFMAs or a cross-lane plan.

use hx_isa::wmma::{Form, Wmma};

/// The value of an OCP fp8 (E4M3: 4 exponent bits, bias 7, no infinities, S.1111.111 NaN) or
/// bf8 (E5M2: IEEE-like, bias 15) byte, exactly.
pub fn fp8_value(byte: u8, e5m2: bool) -> f64 {
    let (ebits, mbits, bias) = if e5m2 { (5, 2, 15) } else { (4, 3, 7) };
    let sign = if byte & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((byte >> mbits) & ((1 << ebits) - 1)) as i32;
    let m = (byte & ((1 << mbits) - 1)) as i32;
    if e5m2 && e == 31 {
        return if m == 0 { sign * f64::INFINITY } else { f64::NAN };
    }
    if !e5m2 && e == 15 && m == 7 {
        return f64::NAN;
    }
    let frac = m as f64 / (1 << mbits) as f64;
    if e == 0 {
        sign * frac * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + frac) * 2f64.powi(e - bias)
    }
}

/// Why a WMMA-family instruction is not emulated (`None`: it is).
pub fn refusal(m: &Wmma) -> Option<&'static str> {
    Some(match m.shape.form {
        Form::Sparse => "SWMMAC: the gfx1250 sparse index layout is not documented (16 index bits a lane for 16 stored A values)",
        Form::LdScale { .. } => "the WMMA scale prefix: the lanes and bytes holding each row's scales are not documented",
        _ if m.scales.is_some() => "scaled WMMA: the lanes and bytes holding each row's scales are not documented",
        Form::F4x32 => "v_wmma_f32_32x16x128_f4: the register layout of its 32 rows is not documented",
        Form::F8f6f4 if m.a.bits() != m.b.bits() => "f8f6f4 with A and B of different widths: their element orders within a lane are not documented",
        _ if m.clamp => "clamp (saturation) on an integer WMMA is not modelled",
        _ => return None,
    })
}
