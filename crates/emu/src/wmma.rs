//! gfx1250 WMMA: D (16x16) = A (16xK) * B (Kx16) + C on a wave32, for the dense forms (f32,
//! f16, bf16, bf16f32, fp8/bf8 at K=64 and 128, iu8) and v_wmma_f32_16x16x128_f8f6f4 with A and
//! B of one width (fp8/bf8, fp6/bf6 or fp4; any formats of that width).
//!
//! Register layout (GFX12 WMMA, kept by gfx1250): lane `l` holds row `m = l % 16` of A and
//! column `n = l % 16` of B, each as K/2 packed elements; lanes 0-15 and 16-31 hold the two
//! halves of K. C and D: lane `l` holds column `n = l % 16`, element `i` (0..8) of it being row
//! `m = 8 * (l / 16) + i` (16-bit results two to a VGPR, low half first). Elements narrower than
//! a byte are packed from bit 0 upwards, 6-bit ones across dword boundaries.
//!
//! Which register element holds which k does not change the result as long as A and B use the
//! same assignment (every k is summed), so D[m][n] = C[m][n] + sum over both lane halves h and
//! elements e of A[lane m + 16h][e] * B[lane n + 16h][e]. That holds for operands of one width.
//! f8f6f4 with A and B of different widths, and the scaled forms (each 32 k share a scale), need
//! the real order: [`k_of`] (8-bit and 4-bit elements, pinned by Triton's dot_scaled kernels;
//! 6-bit ones are refused there).
//!
//! Scaled WMMA (v_wmma_scale_f32_16x16x128_f8f6f4: the v_wmma_ld_scale_paired_b32 prefix and the
//! f8f6f4 word): A's element (m, k) is multiplied by 2^(e - 127) for the E8M0 byte k / 32 of
//! the A scale operand in lane m + 16 * matrix_a_scale, B's (k, n) likewise (see
//! `scale_factor`); E8M0 0xff is NaN.
//!
//! The ISA defines neither the order of the sum nor the precision of partial sums. This
//! emulator sums the (exact) products in f64 and rounds once (RNE) to the result type; integer
//! WMMA wraps in i32. Where every partial sum is exact (the corpus draws such inputs) any order
//! and precision give these bits. The order: C first, then the products in register order (lane
//! half, then element) where A and B share it, and in the order of k for the scaled and
//! mixed-width f8f6f4 forms, whose k the registers hold in alternating 16-byte chunks (scaled
//! products of different K blocks may differ by up to 2^508, so there the order shows). That
//! is the order in which gfx950's MFMAs sum (hx-emu's mfma), so a scaled WMMA can be translated
//! onto gfx950's scaled MFMA exactly; no compiled kernel tells the two orders apart.
//!
//! Refused, with an error saying why: SWMMAC (LLVM gives its index 16 bits a lane for 16 stored
//! A values, 32 for 32 8-bit ones, which the 4:2 index model of the GFX9 SMFMAC (2 bits a value)
//! cannot fill, and the gfx1250 layout is not documented), a scale prefix alone, scale16 (a
//! scale per 16 k, 64-bit scale operands) and E5M3/E4M3 scales (no compiled kernel pins them),
//! and v_wmma_f32_32x16x128_f4 (how its 32 rows spread over the registers is not documented).

use crate::alu::soft::{self, Fmt};
use crate::exec::unsupported;
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::wmma::{Elem, Wmma};
use hx_isa::{Instruction, Operand, ValType};

pub use hx_sem::wmma::{fp8_value, k_of, refusal};

/// Element `e` of a lane's packed A/B operand (registers from `base`), as an exact f64, or
/// (for integers) as i64 through the f64 (8-bit values are exact).
fn element(wave: &Wave, base: usize, lane: usize, e: usize, ty: Elem, signed: bool) -> Result<f64, EmuError> {
    let bits = ty.bits() as usize;
    let (at, shift) = (e * bits / 32, e * bits % 32);
    let mut x = (wave.v(base + at, lane)? >> shift) as u64;
    if shift + bits > 32 {
        x |= (wave.v(base + at + 1, lane)? as u64) << (32 - shift);
    }
    let x = x & ((1u64 << bits) - 1);
    use crate::mfma::{small_float, Specials};
    Ok(match ty {
        Elem::F32 => f32::from_bits(x as u32) as f64,
        Elem::F16 => f64::from_bits(soft::convert(soft::F16, soft::F64, x)),
        Elem::BF16 => f32::from_bits((x as u32) << 16) as f64,
        Elem::Fp8 => fp8_value(x as u8, false),
        Elem::Bf8 => fp8_value(x as u8, true),
        Elem::Fp6 => small_float(x as u32, 2, 3, 1, Specials::None),
        Elem::Bf6 => small_float(x as u32, 3, 2, 3, Specials::None),
        Elem::Fp4 => small_float(x as u32, 2, 1, 1, Specials::None),
        Elem::Iu8 if signed => x as u8 as i8 as f64,
        Elem::Iu8 => x as u8 as f64,
        Elem::I32 => x as u32 as i32 as f64,
    })
}

/// The E8M0 scale byte `j` (the j-th 32 values of K) of matrix row or column `i` (0..16) from a
/// scale operand: lane `i + 16 * row` (matrix_*_scale ROW0/ROW1) holds the four scales of row
/// `i`, byte j for K block j. Triton's scale layout for gfx1250 (scale index along the 4 register
/// bytes, rows along lanes 0-15, the second 16 rows in lanes 16-31 that ROW1 selects) and the
/// dot_scaled corpus kernels (num_warps 1 uses ROW1) pin this reading.
fn scale_factor(wave: &Wave, inst: &Instruction, operand: usize, row_sel: u32, i: usize, j: usize) -> Result<f64, EmuError> {
    let op = inst.operand(operand).ok_or_else(|| unsupported(inst, "no scale operand"))?;
    let dword = match op.value {
        Operand::Reg(r) if r.class == hx_isa::RegClass::Vgpr => wave.v(r.index as usize, i + 16 * row_sel as usize)?,
        Operand::Reg(r) => wave.read_sreg(r)? as u32,
        v => crate::wave::constant_value(&v, ValType::B32).ok_or_else(|| unsupported(inst, format!("scale operand {v:?}")))? as u32,
    };
    let e = (dword >> (8 * j)) & 0xff;
    Ok(if e == 0xff { f64::NAN } else { 2f64.powi(e as i32 - 127) })
}

fn fmt(ty: Elem) -> Fmt {
    match ty {
        Elem::F16 => soft::F16,
        Elem::BF16 => soft::BF16,
        _ => soft::F32,
    }
}

/// Executes a WMMA-family instruction (`m` from `Instruction::wmma`).
pub fn exec_wmma(wave: &mut Wave, inst: &Instruction, m: &Wmma) -> Result<(), EmuError> {
    if wave.lanes != 32 {
        return Err(unsupported(inst, "WMMA on a wave64"));
    }
    if let Some(why) = refusal(m) {
        return Err(unsupported(inst, why));
    }
    let shape = m.shape;
    let (ta, tb) = (m.a, m.b);
    let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
        Some(Operand::Reg(r)) => Ok(r.index as usize),
        _ => Err(unsupported(inst, format!("operand {i} is not a VGPR tuple"))),
    };
    let (d, a, b) = (reg(0)?, reg(1)?, reg(2)?);
    let (neg_lo, neg_hi) = (inst.mods.neg, inst.mods.neg_hi);
    let int = shape.d == Elem::I32;
    if (!int && neg_hi & 3 != 0) || (int && neg_lo & 4 != 0) {
        return Err(unsupported(inst, "neg_hi on A/B of a WMMA (not modelled)"));
    }
    let (a_signed, b_signed) = (neg_lo & 1 != 0, neg_lo & 2 != 0);
    let (neg_a, neg_b) = if int { (false, false) } else { (neg_lo & 1 != 0, neg_lo & 2 != 0) };
    let (neg_c, abs_c) = (neg_lo & 4 != 0, neg_hi & 4 != 0);
    let d_bits = shape.d.bits() as usize;
    let c_bits_w = shape.c.bits() as usize;
    // C: a VGPR tuple in the D layout (of C's type), or one inline constant for every element.
    let c_op = inst.operand(3).ok_or_else(|| unsupported(inst, "no C operand"))?;
    let c_const = match c_op.value {
        Operand::Reg(_) => None,
        v => {
            let ty = match shape.c {
                Elem::F16 => ValType::F16,
                Elem::BF16 => ValType::BF16,
                Elem::I32 => ValType::B32,
                _ => ValType::F32,
            };
            Some(crate::wave::constant_value(&v, ty).ok_or_else(|| unsupported(inst, format!("C operand {v:?}")))?)
        }
    };
    let c_base = match c_op.value {
        Operand::Reg(r) => r.index as usize,
        _ => 0,
    };
    let per_lane = shape.k as usize / 2;
    // Scaled or mixed-width f8f6f4: A's rows and B's columns by k (see k_of), else every k is
    // summed in register order (A and B share it).
    let m_scales = m.scales;
    let by_k = if hx_sem::wmma::sums_by_k(&m) {
        let mut rows = (vec![vec![0f64; shape.k as usize]; 16], vec![vec![0f64; shape.k as usize]; 16]);
        for lane in 0..32 {
            let (h, i) = (lane / 16, lane % 16);
            for (side, (ty, base)) in [(ta, a), (tb, b)].into_iter().enumerate() {
                for e in 0..per_lane {
                    let k = k_of(ty.bits(), h, e).ok_or_else(|| unsupported(inst, "no K order for this width"))?;
                    let mut x = element(wave, base, lane, e, ty, false)?;
                    if let Some(sc) = m_scales {
                        let row_sel = if side == 0 { sc.a_row } else { sc.b_row };
                        x *= scale_factor(wave, inst, 4 + side, row_sel, i, k / 32)?;
                    }
                    if side == 0 {
                        rows.0[i][k] = x;
                    } else {
                        rows.1[i][k] = x;
                    }
                }
            }
        }
        Some(rows)
    } else {
        None
    };
    let mut out = vec![[0u64; 8]; 32];
    for (lane, lane_out) in out.iter_mut().enumerate() {
        let n = lane % 16;
        for (i, slot) in lane_out.iter_mut().enumerate() {
            let m = 8 * (lane / 16) + i;
            let c_bits = match c_const {
                Some(v) => v,
                None => {
                    let dw = wave.v(c_base + i * c_bits_w / 32, lane)?;
                    (dw >> (i * c_bits_w % 32)) as u64 & ((1u64 << c_bits_w) - 1)
                }
            };
            if int {
                let mut s = c_bits as u32 as i32;
                for h in 0..2 {
                    for e in 0..per_lane {
                        let x = element(wave, a, m + 16 * h, e, ta, a_signed)? as i32;
                        let y = element(wave, b, n + 16 * h, e, tb, b_signed)? as i32;
                        s = s.wrapping_add(x.wrapping_mul(y));
                    }
                }
                *slot = s as u32 as u64;
                continue;
            }
            let mut c = match shape.c {
                Elem::F16 => f64::from_bits(soft::convert(soft::F16, soft::F64, c_bits)),
                Elem::BF16 => f32::from_bits((c_bits as u32) << 16) as f64,
                _ => f32::from_bits(c_bits as u32) as f64,
            };
            if abs_c {
                c = c.abs();
            }
            if neg_c {
                c = -c;
            }
            let mut s = c;
            if let Some(k_elems) = by_k.as_ref() {
                let (av, bv) = (&k_elems.0[m], &k_elems.1[n]);
                // In the order of k (as gfx950's scaled MFMA sums, and the raiser).
                for k in 0..shape.k as usize {
                    let (mut x, mut y) = (av[k], bv[k]);
                    if neg_a {
                        x = -x;
                    }
                    if neg_b {
                        y = -y;
                    }
                    s += x * y;
                }
            }
            for h in 0..2 {
                if by_k.is_some() {
                    break;
                }
                for e in 0..per_lane {
                    let mut x = element(wave, a, m + 16 * h, e, ta, false)?;
                    let mut y = element(wave, b, n + 16 * h, e, tb, false)?;
                    if neg_a {
                        x = -x;
                    }
                    if neg_b {
                        y = -y;
                    }
                    s += x * y;
                }
            }
            // A NaN result is the default quiet NaN, whatever NaN led to it (the host's
            // invalid-operation NaN is negative, AMD's positive; inputs' payloads are not kept).
            if s.is_nan() {
                s = f64::NAN;
            }
            *slot = soft::convert(soft::F64, fmt(shape.d), s.to_bits());
        }
    }
    // Write D after reading everything (D may overlap A, B or C).
    for (lane, vals) in out.iter().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        for (i, &v) in vals.iter().enumerate() {
            let r = d + i * d_bits / 32;
            let shift = i * d_bits % 32;
            let mask = if d_bits == 32 { u32::MAX } else { ((1u32 << d_bits) - 1) << shift };
            let old = wave.v(r, lane)?;
            wave.set_v(r, lane, (old & !mask) | ((v as u32) << shift & mask))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_values_follow_the_ocp_formats() {
        // E4M3: 0x38 = 1.0, 0x7e = 448 (largest), 0x01 = 2^-9 (smallest denormal), 0x7f NaN.
        assert_eq!(fp8_value(0x38, false), 1.0);
        assert_eq!(fp8_value(0x7e, false), 448.0);
        assert_eq!(fp8_value(0x01, false), 2f64.powi(-9));
        assert!(fp8_value(0x7f, false).is_nan());
        assert_eq!(fp8_value(0xc0, false), -2.0);
        // E5M2: 0x3c = 1.0, 0x7b = 57344, 0x7c = inf, 0x01 = 2^-16.
        assert_eq!(fp8_value(0x3c, true), 1.0);
        assert_eq!(fp8_value(0x7b, true), 57344.0);
        assert_eq!(fp8_value(0x7c, true), f64::INFINITY);
        assert_eq!(fp8_value(0x01, true), 2f64.powi(-16));
    }
}
