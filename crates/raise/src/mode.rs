//! MODE.FP16_OVFL (MODE bit 23) as the raised code assumes it: one value for the whole kernel.
//!
//! Triton 3.9 writes `s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 23, 1), 1` in the entry block
//! of a kernel with fp8/bf8 casts, so that its downcasts saturate (hx_sem::alu::pk8). The raiser
//! takes the bit as a kernel-wide constant when every write of it sets the same immediate, all of
//! them in the entry block, and nothing before the first one could see the bit (an fp8/bf8
//! downcast, or a 16-bit float result, which hx_sem::alu::pk8::fp16_ovfl_reaches names); any
//! other write is refused by name. The target's code runs with the bit clear and saturates
//! explicitly.

use crate::cfg::Cfg;
use crate::RaiseError;
use hx_isa::{Instruction, Kind, Operand};

/// MODE's hwreg id.
const HW_REG_MODE: u32 = 1;

/// Whether `inst` writes MODE bits that include bit 23: Some(the immediate it writes there)
/// for the one form modelled, Some(None) for any other.
fn writes_fp16_ovfl(inst: &Instruction) -> Option<Option<bool>> {
    let m = inst.mnemonic();
    if m != "s_setreg_imm32_b32" && m != "s_setreg_b32" {
        return None;
    }
    let (id, offset, size) = hx_sem::operands::hwreg_operand(inst)?;
    if id != HW_REG_MODE || offset > 23 || offset + size <= 23 {
        return None;
    }
    if m != "s_setreg_imm32_b32" || (offset, size) != (23, 1) {
        return Some(None);
    }
    let value = inst.operands().find_map(|o| match (&o.spec.kind, o.value) {
        (Kind::Imm16(_), _) => None,
        (_, Operand::Imm(v)) => Some(v),
        (_, Operand::Literal { value, .. }) => Some(value as u32),
        (_, Operand::IntConst(i)) => Some(i as i32 as u32),
        _ => None,
    });
    Some(value.map(|v| v & 1 != 0))
}

/// Whether MODE.FP16_OVFL could change what `inst` computes.
pub(crate) fn sees_fp16_ovfl(inst: &Instruction) -> bool {
    if let Some(op) = hx_sem::alu::pk8::Pk8Op::of(inst.mnemonic()) {
        return op.is_downcast();
    }
    if let Some(w) = inst.wmma() {
        return hx_sem::alu::pk8::wmma_fp16_ovfl_reaches(&w);
    }
    let parts = inst.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*inst]);
    parts.iter().any(|p| {
        hx_sem::alu::of(p).is_some_and(|op| match op.op {
            hx_sem::alu::Op::Fp8(f) => f.clamp_saturates(),
            _ => hx_sem::alu::pk8::fp16_ovfl_reaches(&op),
        })
    })
}

/// MODE.FP16_OVFL for the whole kernel (false when no instruction writes it).
pub(crate) fn fp16_ovfl(graph: &Cfg, kernel: &str) -> Result<bool, RaiseError> {
    let mut value = None;
    for (bi, block) in graph.blocks.iter().enumerate() {
        let mut seen = false;
        for inst in &block.insts {
            let here = inst.offset;
            if bi == 0 && value.is_none() && sees_fp16_ovfl(inst) {
                seen = true;
            }
            let Some(w) = writes_fp16_ovfl(inst) else { continue };
            let refuse = |why: &str| RaiseError::at(kernel, here, inst.mnemonic(), format!("writing MODE.FP16_OVFL (hwreg(HW_REG_WAVE_MODE, 23, 1)) {why} is not raised"));
            let Some(v) = w else { return Err(refuse("other than as an immediate of its own")) };
            if bi != 0 {
                return Err(refuse("outside the entry block"));
            }
            if seen {
                return Err(refuse("after an instruction it affects"));
            }
            if value.is_some_and(|x| x != v) {
                return Err(refuse("with two values"));
            }
            value = Some(v);
        }
    }
    Ok(value.unwrap_or(false))
}
