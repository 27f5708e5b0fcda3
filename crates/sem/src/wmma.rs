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

/// The k (0..K) of element `e` of a lane in lane half `h` of an f8f6f4 A or B operand of `bits`-bit
/// elements (`None`: no kernel pins the order for that width). Each lane half holds 16-byte
/// chunks of consecutive k, the halves alternating: 8-bit element e of half h is k = 32 (e / 16)
/// + 16 h + e % 16, 4-bit k = 64 (e / 32) + 32 h + e % 32.
///
/// This is the layout Triton 3.9 gives gfx1250 dot operands (a linear layout of kWidth = 16
/// bytes: registers then lane bit 4 along K) and the reading under which its `dot_scaled` kernels
/// compute numpy's answer: corpus/triton dot_scaled_e2m1 (fp4 x fp4), dot_scaled_e4m3 (fp8 x
/// fp8) and dot_scaled_e2m1_e5m2 (bf8 x fp4 in one instruction) at num_warps 1/4/8. With
/// scales, the order matters (each 32 k share a scale), as it does for A and B of different
/// widths.
pub fn k_of(bits: u32, h: usize, e: usize) -> Option<usize> {
    let chunk = match bits {
        8 => 16,
        4 => 32,
        _ => return None,
    };
    Some(2 * chunk * (e / chunk) + chunk * h + e % chunk)
}

/// Whether the emulator sums this WMMA's products in the order of k rather than in register
/// order: the scaled forms and A and B of different widths (see [`k_of`]).
pub fn sums_by_k(m: &Wmma) -> bool {
    m.scales.is_some() || m.a.bits() != m.b.bits()
}

/// Where true k `k` of an f8f6f4 A or B operand of `bits`-bit elements lies: (lane half h,
/// element e), the inverse of [`k_of`].
pub fn k_place(bits: u32, k: usize) -> Option<(usize, usize)> {
    let chunk = match bits {
        8 => 16,
        4 => 32,
        _ => return None,
    };
    let c = k / chunk;
    Some((c % 2, chunk * (c / 2) + k % chunk))
}

/// Why a WMMA-family instruction is not emulated (`None`: it is).
pub fn refusal(m: &Wmma) -> Option<&'static str> {
    Some(match m.shape.form {
        Form::Sparse => "SWMMAC: the gfx1250 sparse index layout is not documented (16 index bits a lane for 16 stored A values)",
        Form::LdScale { .. } => "a WMMA scale prefix alone (not followed by its scaled WMMA word) is not modelled",
        Form::F4x32 => "v_wmma_f32_32x16x128_f4: the register layout of its 32 rows is not documented",
        _ if m.scales.is_some_and(|s| s.b64) => "scale16 WMMA (a scale per 16 K values): no compiled kernel pins its scale layout",
        _ if m.scales.is_some_and(|s| s.a_fmt != 0 || s.b_fmt != 0) => "scaled WMMA with E5M3/E4M3 scales: no compiled kernel pins their meaning",
        Form::F8f6f4 if (m.a.bits() != m.b.bits() || m.scales.is_some()) && k_of(m.a.bits(), 0, 0).is_none() | k_of(m.b.bits(), 0, 0).is_none() => {
            "scaled or mixed-width f8f6f4 with fp6/bf6 operands: no compiled kernel pins their K order within a lane"
        }
        _ if m.clamp => "clamp (saturation) on an integer WMMA is not modelled",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_place_inverts_k_of() {
        for bits in [8u32, 4] {
            // K = 128: 64 elements a lane half, whatever their width.
            let per_lane = 64;
            let mut seen = vec![false; 128];
            for h in 0..2 {
                for e in 0..per_lane {
                    let k = k_of(bits, h, e).unwrap();
                    assert_eq!(k_place(bits, k), Some((h, e)), "{bits}-bit h {h} e {e}");
                    seen[k] = true;
                }
            }
            assert!(seen.iter().all(|&x| x), "{bits}-bit: every k once");
        }
        assert_eq!(k_place(6, 0), None);
    }
}
