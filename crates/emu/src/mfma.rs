//! gfx942/gfx950 matrix multiply-accumulate (MFMA, VOP3P-MAI) on a wave64:
//! D = A * B + C for each of the shape's blocks, the operands spread over the lanes as
//! `hx_isa::mai::Shape` places them (AMD's Matrix Instruction Calculator layouts for gfx9).
//!
//! Modifiers: cbsz/abid (multi-block shapes: block b reads A from block
//! `b / 2^cbsz * 2^cbsz + abid`), blgp (B lane patterns of the f32 and multi-block shapes), the
//! f64 shapes' neg bits (in the blgp field) and the gfx950 f8f6f4 operand formats (cbsz for A,
//! blgp for B). Combinations the calculator does not define are refused.
//!
//! Precision (the ISA specifies neither the order of the sum nor the precision of partial
//! sums, and not the treatment of denormals by the matrix core): every product of f32, f16,
//! bf16, fp8/bf8 and the 6/4-bit formats is exact in f64; D = round_to_f32(C + sum over k in
//! increasing order, accumulated in f64), one rounding (RNE) at the end. Integer shapes wrap in
//! i32. f64 shapes accumulate with a fused multiply-add per k in increasing order (RNE each
//! step). Denormals are kept (no flush) whatever the MODE register says. Where every partial
//! sum is exact any order and precision give these bits.
//!
//! 8-bit floats: gfx942's are the FNUZ variants (E4M3 bias 8, E5M2 bias 16, 0x80 the only NaN,
//! no infinities), gfx950's the OCP ones (E4M3 bias 7, E5M2 bias 15).
//!
//! SMFMAC (4:2 structured-sparse A): A holds two of every four K values of a row; the index
//! VGPR (src2) of the same lane holds, per pair of stored values, 4 bits [idx1, idx0] naming
//! the positions (0..3) the pair takes in its group of four. A lane's indices form one set of
//! (stored values per lane) x 2 bits; abid selects the set when cbsz is 0 (gfx942 16-bit: four
//! 8-bit sets, 8-bit: two 16-bit sets; gfx950 16-bit: two 16-bit sets, 8-bit: one), else set 0.
//! D is also the accumulator.
//!
//! gfx950 scaled f8f6f4 (`v_mfma_scale_*`): E8M0 scales per lane, see `scales`.
//!
//! Not modelled (refused): xf32 operands with mantissa bits below xf32's 10, A/B in SGPRs or
//! constants, C in SGPRs, a partial EXEC (the ISA leaves it undefined).

use crate::alu::soft;
use crate::exec::unsupported;
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::mai::{Elem, Mai, Shape, SmallFloat};
use hx_isa::{Instruction, Operand, Reg, RegClass, Target, ValType};

/// How a small float format encodes NaN and infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Specials {
    /// OCP E4M3: S.1111.111 is NaN, no infinity.
    OcpE4m3,
    /// IEEE-like: the top exponent is infinity (mantissa 0) or NaN.
    Ieee,
    /// FNUZ: 0x80 (negative zero's pattern) is the only NaN, no infinity.
    Fnuz,
    /// MX 6/4-bit formats: every pattern is a number.
    None,
}

/// The exact value of a small float with `ebits` exponent and `mbits` mantissa bits.
pub(crate) fn small_float(x: u32, ebits: u32, mbits: u32, bias: i32, specials: Specials) -> f64 {
    let total = 1 + ebits + mbits;
    let sign_bit = x >> (total - 1) & 1;
    let e = ((x >> mbits) & ((1 << ebits) - 1)) as i32;
    let m = x & ((1 << mbits) - 1);
    let top = (1 << ebits) - 1;
    match specials {
        Specials::Fnuz if sign_bit == 1 && e == 0 && m == 0 => return f64::NAN,
        Specials::OcpE4m3 if e == top && m == (1 << mbits) - 1 => return f64::NAN,
        Specials::Ieee if e == top => return if m == 0 { if sign_bit == 1 { f64::NEG_INFINITY } else { f64::INFINITY } } else { f64::NAN },
        _ => {}
    }
    let frac = m as f64 / (1u32 << mbits) as f64;
    let mag = if e == 0 { frac * 2f64.powi(1 - bias) } else { (1.0 + frac) * 2f64.powi(e - bias) };
    if sign_bit == 1 {
        -mag
    } else {
        mag
    }
}

/// An A/B element type as read from the registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum In {
    F32,
    F16,
    BF16,
    F64,
    I8,
    Fp8Fnuz,
    Bf8Fnuz,
    Fp8Ocp,
    Bf8Ocp,
    Fp6,
    Bf6,
    Fp4,
}

impl In {
    fn bits(self) -> u32 {
        match self {
            In::F32 => 32,
            In::F16 | In::BF16 => 16,
            In::F64 => 64,
            In::I8 | In::Fp8Fnuz | In::Bf8Fnuz | In::Fp8Ocp | In::Bf8Ocp => 8,
            In::Fp6 | In::Bf6 => 6,
            In::Fp4 => 4,
        }
    }
    fn value(self, x: u64) -> f64 {
        match self {
            In::F32 => f32::from_bits(x as u32) as f64,
            In::F16 => f64::from_bits(soft::convert(soft::F16, soft::F64, x)),
            In::BF16 => f32::from_bits((x as u32) << 16) as f64,
            In::F64 => f64::from_bits(x),
            In::I8 => x as u8 as i8 as f64,
            In::Fp8Fnuz => small_float(x as u32, 4, 3, 8, Specials::Fnuz),
            In::Bf8Fnuz => small_float(x as u32, 5, 2, 16, Specials::Fnuz),
            In::Fp8Ocp => small_float(x as u32, 4, 3, 7, Specials::OcpE4m3),
            In::Bf8Ocp => small_float(x as u32, 5, 2, 15, Specials::Ieee),
            In::Fp6 => small_float(x as u32, 2, 3, 1, Specials::None),
            In::Bf6 => small_float(x as u32, 3, 2, 3, Specials::None),
            In::Fp4 => small_float(x as u32, 2, 1, 1, Specials::None),
        }
    }
}

fn input_type(target: Target, e: Elem, code: u32) -> Option<In> {
    Some(match e {
        // xf32 reads an f32 with a 10-bit mantissa. How the hardware reduces the other 13 bits is
        // not documented, so only values that have none are modelled (checked in exec_mfma);
        // those are exact f32 values. Pinned: corpus/triton matmul_f32_32_w4 on gfx942, whose
        // inputs are such values, computes numpy's answer.
        Elem::F32 | Elem::Xf32 => In::F32,
        Elem::F16 => In::F16,
        Elem::BF16 => In::BF16,
        Elem::F64 => In::F64,
        Elem::I8 => In::I8,
        Elem::Fp8 if target == Target::Gfx942 => In::Fp8Fnuz,
        Elem::Bf8 if target == Target::Gfx942 => In::Bf8Fnuz,
        Elem::Fp8 => In::Fp8Ocp,
        Elem::Bf8 => In::Bf8Ocp,
        Elem::F8f6f4 => match SmallFloat::from_code(code)? {
            SmallFloat::Fp8 => In::Fp8Ocp,
            SmallFloat::Bf8 => In::Bf8Ocp,
            SmallFloat::Fp6 => In::Fp6,
            SmallFloat::Bf6 => In::Bf6,
            SmallFloat::Fp4 => In::Fp4,
        },
        Elem::I32 => return None,
    })
}

/// The lane whose B values lane `lane` uses under blgp (AMD's Matrix Instruction Calculator):
/// 1/2 broadcast the first/second 32 lanes, 3 rotates by 16, 4..7 broadcast one group of 16.
pub fn blgp_lane(lane: u32, blgp: u32) -> u32 {
    match blgp {
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        4..=7 => lane % 16 + 16 * (blgp - 4),
        _ => lane,
    }
}

/// One operand's registers in every lane, as little-endian bit strings.
fn lane_bits(wave: &Wave, r: Reg) -> Result<Vec<Vec<u32>>, EmuError> {
    (0..wave.lanes).map(|l| wave.read_vreg_dwords(r, l)).collect()
}

/// Lane `l`'s registers (an error, not a panic, if a layout computed a lane out of range).
fn lane_of<'a>(v: &'a [Vec<u32>], l: u32, inst: &Instruction) -> Result<&'a [u32], EmuError> {
    v.get(l as usize).map(|x| x.as_slice()).ok_or_else(|| unsupported(inst, format!("a layout reaching lane {l}")))
}

fn field(words: &[u32], slot: u32, bits: u32) -> u64 {
    let mut v = 0u64;
    for b in 0..bits {
        let at = slot * bits + b;
        let bit = words.get((at / 32) as usize).map_or(0, |w| (w >> (at % 32)) & 1);
        v |= (bit as u64) << b;
    }
    v
}

fn vector_reg(inst: &Instruction, i: usize, what: &str) -> Result<Reg, EmuError> {
    match inst.operand(i).map(|o| o.value) {
        Some(Operand::Reg(r)) if matches!(r.class, RegClass::Vgpr | RegClass::Agpr) => Ok(r),
        v => Err(unsupported(inst, format!("{what} {v:?} (only VGPR/AGPR tuples are modelled)"))),
    }
}

/// The E8M0 scale factors of a gfx950 scaled MFMA (`v_mfma_scale_f32_*_f8f6f4`), per lane, for
/// A and B: every A (B) value a lane holds is multiplied by 2^(e - 127) for byte `sel` of the A
/// (B) scale VGPR in the same lane (e = 0xff: NaN), where the A byte is op_sel[0] + 2 *
/// op_sel_hi[0] of the v_mfma_ld_scale_b32 word and the B byte op_sel[1] + 2 * op_sel_hi[1]. Each
/// lane holds 32 values of one row (column), one scale block's worth (see `contiguous_k` for
/// which). Pinned by corpus/triton dot_scaled_* on gfx950 (num_warps 4 and 8: op_sel [0,0] and
/// [1,1] over one scale VGPR each for A and B) on the 32x32x64 shape, and by dot_scaled_*_n16
/// (Triton's matrix_instr_nonkdim=16) on 16x16x128.
fn scales(wave: &Wave, inst: &Instruction) -> Result<(Vec<f64>, Vec<f64>), EmuError> {
    let ld = (inst.word >> 64) as u64;
    let bit = |n: u32| ((ld >> n) & 1) as u32;
    let (sel_a, sel_b) = (bit(11) | bit(59) << 1, bit(12) | bit(60) << 1);
    let side = |i: usize, sel: u32| -> Result<Vec<f64>, EmuError> {
        let r = match inst.operand(i).map(|o| o.value) {
            Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => r,
            v => return Err(unsupported(inst, format!("scale operand {v:?} (only VGPRs are modelled)"))),
        };
        (0..64)
            .map(|l| {
                let e = (wave.read_vreg(r, l)? >> (8 * sel)) & 0xff;
                Ok(if e == 0xff { f64::NAN } else { 2f64.powi(e as i32 - 127) })
            })
            .collect()
    };
    Ok((side(4, sel_a)?, side(5, sel_b)?))
}

/// The k (`kc`) this module's contiguous layout gives the lane slot that holds true k `k` of a
/// gfx950 f8f6f4 operand (`Shape::a_location`: lane group g holds kc = 32 g .. 32 g + 31). The
/// lane groups hold 16-byte chunks of k in turn: 8-bit values, G groups: group g, slot e holds
/// k = 16 G (e / 16) + 16 g + e % 16; 4-bit values fill a lane's 16 bytes with one run of 32 k
/// (kc = k). Without scales and with A and B of one width the order is unobservable (they
/// share it); with scales it decides each value's scale block, and with an 8-bit A and a 4-bit
/// B which values meet. Pinned by corpus/triton dot_scaled_e4m3 and dot_scaled_e2m1_e5m2 on
/// gfx950 (num_warps 4, 8) for 32x32x64 (G = 2), and by their _n16 builds for 16x16x128
/// (G = 4: lane group g holds k 16 g.. and 64 + 16 g..; the reading with a lane group's 32 k
/// contiguous fails them). 6-bit values: no kernel pins theirs (refused when it matters).
fn contiguous_k(s: &Shape, bits: u32, k: u32) -> u32 {
    let groups = s.k / 32;
    match bits {
        8 => {
            let chunk = k / 16;
            32 * (chunk % groups) + 16 * (chunk / groups) + k % 16
        }
        _ => k,
    }
}

/// Executes an MFMA (`mai` from `Instruction::mai`).
pub fn exec_mfma(wave: &mut Wave, inst: &Instruction, mai: Mai) -> Result<(), EmuError> {
    let s: &Shape = mai.shape;
    if wave.lanes != 64 {
        return Err(unsupported(inst, "MFMA on a wave32"));
    }
    if wave.exec != u64::MAX {
        return Err(unsupported(inst, "MFMA under a partial EXEC (the ISA leaves it undefined)"));
    }
    let f8f6f4 = s.a == Elem::F8f6f4;
    let f64_shape = s.cd == Elem::F64;
    // Which modifiers have a defined meaning here (the calculator's gfx9 tables).
    let blgp_pattern = !f64_shape && !f8f6f4 && (s.blocks > 1 || s.a == Elem::F32) && inst.target == Target::Gfx942;
    let (cbsz, abid, blgp) = (mai.cbsz, mai.abid, mai.blgp);
    if !f8f6f4 && !s.sparse {
        let max_cbsz = s.blocks.trailing_zeros();
        let cbsz_ok = (cbsz == 0 && abid == 0) || (s.blocks > 1 && inst.target == Target::Gfx942 && cbsz <= max_cbsz && abid < (1 << cbsz));
        if !cbsz_ok {
            return Err(unsupported(inst, format!("cbsz:{cbsz} abid:{abid} on this shape")));
        }
        if blgp != 0 && !f64_shape && !blgp_pattern {
            return Err(unsupported(inst, format!("blgp:{blgp} on this shape")));
        }
    }
    let (ta, tb) = match (input_type(inst.target, s.a, cbsz), input_type(inst.target, s.b, blgp)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err(unsupported(inst, "this operand format (xf32, or f8f6f4 format codes 5..7)")),
    };
    let (d, a, b) = (vector_reg(inst, 0, "D")?, vector_reg(inst, 1, "A")?, vector_reg(inst, 2, "B")?);
    if s.sparse {
        return exec_smfmac(wave, inst, mai, (d, a, b), (ta, tb));
    }
    let c_op = inst.operand(3).ok_or_else(|| unsupported(inst, "no C operand"))?;
    let c_ty = match s.cd {
        Elem::F64 => ValType::F64,
        Elem::I32 => ValType::B32,
        _ => ValType::F32,
    };
    let c_bits = if f64_shape { 64 } else { 32 };
    let (c_regs, c_const) = match c_op.value {
        Operand::Reg(r) if matches!(r.class, RegClass::Vgpr | RegClass::Agpr) => (Some(lane_bits(wave, r)?), None),
        Operand::Reg(r) => return Err(unsupported(inst, format!("C in {:?} registers", r.class))),
        v => (None, Some(crate::wave::constant_value(&v, c_ty).ok_or_else(|| unsupported(inst, format!("C operand {v:?}")))?)),
    };
    let (av, bv) = (lane_bits(wave, a)?, lane_bits(wave, b)?);
    // The true-k reading is pinned on the 32x32x64 and 16x16x128 shapes (Triton's gfx950
    // dot_scaled uses both).
    let pinned_shape = (s.m == 32 && s.k == 64) || (s.m == 16 && s.k == 128);
    if mai.scaled && !pinned_shape {
        return Err(unsupported(inst, "scaled MFMA of a shape no compiled kernel pins (32x32x64 and 16x16x128 are pinned)"));
    }
    let by_true_k = f8f6f4 && pinned_shape && (mai.scaled || ta.bits() != tb.bits());
    if by_true_k && (ta.bits() == 6 || tb.bits() == 6) {
        return Err(unsupported(inst, "scaled or mixed-width f8f6f4 MFMA with 6-bit values: no compiled kernel pins their k order within a lane"));
    }
    let (scale_a, scale_b) = if mai.scaled { scales(wave, inst)? } else { (vec![1.0; 64], vec![1.0; 64]) };
    if s.a == Elem::Xf32 && av.iter().chain(bv.iter()).flatten().any(|&x| x & 0x1fff != 0) {
        return Err(unsupported(inst, "an xf32 operand with mantissa bits below xf32's 10 (the hardware's reduction of them is not documented)"));
    }
    let (neg_a, neg_b, neg_c) = if f64_shape { (blgp & 1 != 0, blgp & 2 != 0, blgp & 4 != 0) } else { (false, false, false) };
    let slot_regs = if f64_shape { 2 } else { 1 };
    let mut out = vec![vec![0u32; d.dwords as usize]; 64];
    for blk in 0..s.blocks {
        let a_blk = if f8f6f4 || cbsz == 0 { blk } else { blk >> cbsz << cbsz | abid };
        for i in 0..s.m {
            for j in 0..s.n {
                let (reg, lane) = s.d_location(i, j, blk);
                let (reg, lane) = (reg * slot_regs, lane as usize);
                let c = match (&c_regs, c_const) {
                    (Some(regs), _) => field(lane_of(regs, lane as u32, inst)?.get(reg as usize..).unwrap_or(&[]), 0, c_bits),
                    (None, Some(k)) => k,
                    _ => 0,
                };
                // Scaled or mixed widths: `k` is the true k (see `true_k`), whose value sits at
                // the slot of its contiguous-layout k, and whose scale block k / 32 the lane of
                // that block's first contiguous k holds.
                let a_at = |k: u32| -> Result<f64, EmuError> {
                    let kc = if by_true_k { contiguous_k(s, ta.bits(), k) } else { k };
                    let (slot, l) = s.a_location(i, kc, a_blk);
                    let x = ta.value(field(lane_of(&av, l, inst)?, slot, ta.bits()));
                    if !mai.scaled {
                        return Ok(x);
                    }
                    let (_, sl) = s.a_location(i, k / 32 * 32, a_blk);
                    Ok(x * scale_a[sl as usize % 64])
                };
                let b_at = |k: u32| -> Result<f64, EmuError> {
                    let kc = if by_true_k { contiguous_k(s, tb.bits(), k) } else { k };
                    let (slot, l) = s.b_location(j, kc, blk);
                    let l = if blgp_pattern { blgp_lane(l, blgp) } else { l };
                    let y = tb.value(field(lane_of(&bv, l, inst)?, slot, tb.bits()));
                    if !mai.scaled {
                        return Ok(y);
                    }
                    let (_, sl) = s.b_location(j, k / 32 * 32, blk);
                    Ok(y * scale_b[sl as usize % 64])
                };
                let value: u64 = match s.cd {
                    Elem::I32 => {
                        let mut acc = c as u32 as i32;
                        for k in 0..s.k {
                            acc = acc.wrapping_add((a_at(k)? as i32).wrapping_mul(b_at(k)? as i32));
                        }
                        acc as u32 as u64
                    }
                    Elem::F64 => {
                        let mut acc = f64::from_bits(c);
                        if neg_c {
                            acc = -acc;
                        }
                        for k in 0..s.k {
                            let (x, y) = (a_at(k)?, b_at(k)?);
                            acc = (if neg_a { -x } else { x }).mul_add(if neg_b { -y } else { y }, acc);
                        }
                        acc.to_bits()
                    }
                    _ => {
                        let mut acc = f32::from_bits(c as u32) as f64;
                        for k in 0..s.k {
                            acc += a_at(k)? * b_at(k)?;
                        }
                        soft::convert(soft::F64, soft::F32, acc.to_bits())
                    }
                };
                let dst = out.get_mut(lane).and_then(|o| o.get_mut(reg as usize..reg as usize + slot_regs as usize));
                let dst = dst.ok_or_else(|| unsupported(inst, "a D register out of range"))?;
                dst[0] = value as u32;
                if f64_shape {
                    dst[1] = (value >> 32) as u32;
                }
            }
        }
    }
    // D is written after every input is read (it may overlap A, B or C).
    for (lane, vals) in out.iter().enumerate() {
        wave.write_vreg_dwords(d, lane, vals)?;
    }
    Ok(())
}

/// SMFMAC: D += sparse A * B (see the module comment for the index layout).
fn exec_smfmac(wave: &mut Wave, inst: &Instruction, mai: Mai, (d, a, b): (Reg, Reg, Reg), (ta, tb): (In, In)) -> Result<(), EmuError> {
    let s = mai.shape;
    let idx = match inst.operand(3).map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => r,
        v => return Err(unsupported(inst, format!("sparsity index {v:?}"))),
    };
    // Stored A values per lane, and the bits of one index set.
    let per_lane = s.k / 2 / (64 / s.m);
    let set_bits = 2 * per_lane;
    let set = if mai.cbsz == 0 { mai.abid } else { 0 };
    if set_bits > 32 || set >= 32 / set_bits {
        return Err(unsupported(inst, format!("index set {set} of {}", 32 / set_bits.max(1))));
    }
    let (av, bv, iv, dv) = (lane_bits(wave, a)?, lane_bits(wave, b)?, lane_bits(wave, idx)?, lane_bits(wave, d)?);
    let mut out = dv.clone();
    for i in 0..s.m {
        for j in 0..s.n {
            let (reg, lane) = s.d_location(i, j, 0);
            let c = *lane_of(&dv, lane, inst)?.get(reg as usize).ok_or_else(|| unsupported(inst, "a D register out of range"))?;
            let mut int_acc = c as i32;
            let mut acc = f32::from_bits(c) as f64;
            for st in 0..s.k / 2 {
                let (slot, l) = s.a_location(i, st, 0);
                let x = ta.value(field(lane_of(&av, l, inst)?, slot, ta.bits()));
                let bits = lane_of(&iv, l, inst)?[0] >> (set * set_bits + 4 * (slot / 2));
                let pos = if slot % 2 == 0 { bits & 3 } else { (bits >> 2) & 3 };
                let k = 4 * (st / 2) + pos;
                let (bslot, bl) = s.b_location(j, k, 0);
                let y = tb.value(field(lane_of(&bv, bl, inst)?, bslot, tb.bits()));
                if s.cd == Elem::I32 {
                    int_acc = int_acc.wrapping_add((x as i32).wrapping_mul(y as i32));
                } else {
                    acc += x * y;
                }
            }
            let v = if s.cd == Elem::I32 { int_acc as u32 } else { soft::convert(soft::F64, soft::F32, acc.to_bits()) as u32 };
            *out.get_mut(lane as usize).and_then(|o| o.get_mut(reg as usize)).ok_or_else(|| unsupported(inst, "a D register out of range"))? = v;
        }
    }
    for (lane, vals) in out.iter().enumerate() {
        wave.write_vreg_dwords(d, lane, vals)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_float_values() {
        // gfx942 FNUZ: E4M3 bias 8 (0x40 = 1.0, 0x7f = 240, 0x80 NaN), E5M2 bias 16 (0x40 = 1.0).
        assert_eq!(small_float(0x40, 4, 3, 8, Specials::Fnuz), 1.0);
        assert_eq!(small_float(0x7f, 4, 3, 8, Specials::Fnuz), 240.0);
        assert!(small_float(0x80, 4, 3, 8, Specials::Fnuz).is_nan());
        assert_eq!(small_float(0xc0, 4, 3, 8, Specials::Fnuz), -1.0);
        assert_eq!(small_float(0x40, 5, 2, 16, Specials::Fnuz), 1.0);
        assert_eq!(small_float(0x7f, 5, 2, 16, Specials::Fnuz), 57344.0);
        // OCP E4M3 / E5M2 agree with the WMMA decoder's.
        for x in 0..=255u32 {
            let (a, b) = (small_float(x, 4, 3, 7, Specials::OcpE4m3), crate::wmma::fp8_value(x as u8, false));
            assert!(a == b || (a.is_nan() && b.is_nan()), "{x:#x}");
            let (a, b) = (small_float(x, 5, 2, 15, Specials::Ieee), crate::wmma::fp8_value(x as u8, true));
            assert!(a == b || (a.is_nan() && b.is_nan()), "{x:#x}");
        }
        // MX: fp6 E2M3 max 7.5, bf6 E3M2 max 28, fp4 E2M1 max 6 and smallest 0.5.
        assert_eq!(small_float(0x1f, 2, 3, 1, Specials::None), 7.5);
        assert_eq!(small_float(0x1f, 3, 2, 3, Specials::None), 28.0);
        assert_eq!(small_float(0x7, 2, 1, 1, Specials::None), 6.0);
        assert_eq!(small_float(0x1, 2, 1, 1, Specials::None), 0.5);
        assert_eq!(small_float(0xf, 2, 1, 1, Specials::None), -6.0);
    }

    #[test]
    fn blgp_patterns() {
        assert_eq!((0..64).map(|l| blgp_lane(l, 0)).collect::<Vec<_>>(), (0..64).collect::<Vec<_>>());
        assert_eq!(blgp_lane(40, 1), 8);
        assert_eq!(blgp_lane(8, 2), 40);
        assert_eq!(blgp_lane(50, 3), 2);
        assert_eq!(blgp_lane(37, 4), 5);
        assert_eq!(blgp_lane(37, 7), 53);
    }
}
