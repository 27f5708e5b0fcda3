//! gfx1250's eight-element scaled conversions (`v_cvt_scale_pk8_*` up, `v_cvt_scalef32_pk8_*`
//! down), whose operands are register tuples the ALU table's scalar model does not hold; the
//! values are hx-sem's [`Pk8Op`], with the modelled forms it checks. MODE.FP16_OVFL (bit 23)
//! makes the downcasts saturate.

use crate::dispatch::Group;
use crate::exec::{unsupported, Flow};
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::{Instruction, Kind, Operand, Reg, ValType};
use hx_sem::alu::pk8::Pk8Op;

/// MODE bit 23, FP16_OVFL: fp8/bf8 downcasts saturate instead of overflowing to NaN/infinity.
pub const MODE_FP16_OVFL: u32 = 1 << 23;

pub(crate) fn exec_pk8(wave: &mut Wave, inst: &Instruction, op: Pk8Op, group: &Group) -> Result<Flow, EmuError> {
    let (dst, src) = op.operands(inst).map_err(|e| unsupported(inst, e))?;
    let saturate = wave.mode & MODE_FP16_OVFL != 0;
    let (sd, dd) = (op.src_dwords(), op.dst_dwords());
    for lane in 0..wave.lanes {
        if !wave.lane_active(lane) {
            continue;
        }
        let s = wave.read_vreg_dwords(Reg { dwords: sd, ..src }, lane)?;
        let out: Vec<u32> = if op.is_downcast() {
            let d = op.down(&s, saturate, &group.fp_mode);
            vec![d as u32, (d >> 32) as u32]
        } else {
            let bits = s.iter().enumerate().fold(0u64, |a, (i, &w)| a | (w as u64) << (32 * i));
            op.up(bits, &group.fp_mode)[..dd as usize].to_vec()
        };
        wave.write_vreg_dwords(Reg { dwords: dd, ..dst }, lane, &out)?;
    }
    Ok(Flow::Next)
}

/// gfx950's two-element scaled fp8 conversions with a unit scale (Triton's gfx950 fp8 casts;
/// native code only): `v_cvt_scalef32_pk_{fp8,bf8}_f32 D, S0, S1, 1.0` rounds S0 and S1 into
/// bytes 0 and 1 of D's low word (high word with op_sel[3]; the other word kept), saturating under
/// MODE.FP16_OVFL; `v_cvt_scalef32_pk_f32_{fp8,bf8} D[2], S0, 1.0` converts the two bytes of
/// S0's low word (high word with op_sel[0]). The OCP formats, as gfx1250's ([`Fp8Fmt`]).
pub(crate) fn exec_scalef32_pk_fp8(wave: &mut Wave, inst: &Instruction, group: &Group) -> Result<Flow, EmuError> {
    use hx_sem::alu::fp8::Fp8Fmt;
    let m = inst.mnemonic();
    let mods = inst.source_mods();
    if mods.neg != 0 || mods.abs != 0 || mods.clamp || mods.omod != 0 {
        return Err(unsupported(inst, "modifiers other than op_sel"));
    }
    let down = m.starts_with("v_cvt_scalef32_pk_fp8") || m.starts_with("v_cvt_scalef32_pk_bf8");
    let fmt = if m.ends_with("bf8") || m.starts_with("v_cvt_scalef32_pk_bf8") { Fp8Fmt::E5M2 } else { Fp8Fmt::E4M3 };
    let ops: Vec<&hx_isa::InstOperand> = inst.operands().filter(|o| !matches!(o.spec.kind, Kind::OpSel { .. } | Kind::OpSelMasked { .. })).collect();
    let n = if down { 4 } else { 3 };
    if ops.len() != n {
        return Err(unsupported(inst, "its operands"));
    }
    let Operand::Reg(dst) = ops[0].value else { return Err(unsupported(inst, "a non-register destination")) };
    let scale = match ops[n - 1].value {
        Operand::Reg(_) => None,
        v => hx_sem::operands::constant_value(&v, ValType::F32),
    };
    if scale != Some(hx_sem::alu::pk8::UNIT_F32 as u64) {
        return Err(unsupported(inst, "a scale other than the constant 1.0"));
    }
    let allowed = if down { 8 } else { 1 };
    if mods.op_sel & !allowed != 0 {
        return Err(unsupported(inst, "this op_sel"));
    }
    let saturate = wave.mode & MODE_FP16_OVFL != 0;
    for lane in 0..wave.lanes {
        if !wave.lane_active(lane) {
            continue;
        }
        if down {
            let a = crate::exec::source_value(wave, ops[1], lane, hx_sem::alu::Ty::F32, inst)? as u32;
            let b = crate::exec::source_value(wave, ops[2], lane, hx_sem::alu::Ty::F32, inst)? as u32;
            let pair = fmt.from_f32(a, saturate, &group.fp_mode) as u32 | (fmt.from_f32(b, saturate, &group.fp_mode) as u32) << 8;
            let old = wave.v(dst.index as usize, lane)?;
            let v = if mods.op_sel & 8 != 0 { (old & 0xffff) | pair << 16 } else { (old & 0xffff_0000) | pair };
            wave.set_v(dst.index as usize, lane, v)?;
        } else {
            let s = crate::exec::source_value(wave, ops[1], lane, hx_sem::alu::Ty::B32, inst)? as u32;
            let w = if mods.op_sel & 1 != 0 { s >> 16 } else { s };
            let out = [fmt.to_f32(w as u8), fmt.to_f32((w >> 8) as u8)];
            wave.write_vreg_dwords(Reg { dwords: 2, ..dst }, lane, &out)?;
        }
    }
    Ok(Flow::Next)
}
