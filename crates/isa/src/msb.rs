//! gfx1250 `s_set_vgpr_msb`: VGPRs 256..1023 are reached by giving each of four operand slots
//! two more index bits. The instruction's immediate bits 7:0 hold the slots' MSBs (bits 1:0
//! slot 0, 3:2 slot 1, 5:4 slot 2, 7:6 slot 3; bits 15:8 record the previous value for the
//! compiler and mean nothing to the hardware). They apply to every later instruction until the
//! next `s_set_vgpr_msb`. Which operand sits in which slot depends on the format (LLVM's
//! `getVGPRLoweringOperandTables`): VALU src0/src1/src2/vdst; DS addr/data0/data1/vdst;
//! VFLAT/VGLOBAL/VSCRATCH vaddr/vdata/-/vdst. LLVM's disassembler prints the low 8 index bits
//! only, and so does this crate's formatter: the remapped view is for execution.

use crate::{Field, Format, Instruction, Operand, RegClass};

/// The slot (0..=3) of an operand field of `mnemonic`, for the formats that take VGPRs. The
/// fmamk forms (VOP2 and VOPD halves) hold their K literal where the second source would be, and
/// their VGPR second source takes slot 2 (LLVM's `VOP2MADMKOps`/`VOPDFMAMKOps*`; llvm-objdump-22
/// prints `v_fmamk_f32 v1, v2, 0x11223344, v3 /*v259*/` under `s_set_vgpr_msb 0x10`).
fn slot(f: Field, mnemonic: &str) -> Option<u32> {
    if f == Field::Vsrc1 && mnemonic.starts_with("v_fmamk_") {
        return Some(2);
    }
    Some(match f {
        Field::Src0 | Field::Vop3Src0 | Field::DsAddr | Field::VfVaddr => 0,
        Field::Vsrc1 | Field::Vop3Src1 | Field::DsData0 | Field::VfVdata => 1,
        Field::Vop3Src2 | Field::DsData1 => 2,
        Field::Vdst8 | Field::Vop3Vdst | Field::DsVdst | Field::VfVdst => 3,
        _ => return None,
    })
}

/// Why an instruction cannot be given VGPR MSBs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsbError(pub String);

impl std::fmt::Display for MsbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MsbError {}

impl Instruction {
    /// The instruction as it executes under `s_set_vgpr_msb` state `msb` (its low 8 bits):
    /// each VGPR operand's index gains `256 * slot MSBs`. A VOPD word keeps the state, and its
    /// parts ([`Instruction::vopd_parts`]) come remapped: both halves' fields take the slots of
    /// the VALU fields they are (src0 0, vsrc1 1, vsrc2 2, vdst 3; a Y half shares X's MSBs, as
    /// LLVM's `VOPDOpsX`/`VOPDOpsY` tables say and llvm-objdump-22 prints).
    pub fn with_vgpr_msb(&self, msb: u8) -> Result<Instruction, MsbError> {
        if msb == 0 {
            return Ok(*self);
        }
        if self.format() == Format::Vopd {
            if self.vopd_vgpr_msb() != 0 {
                return Err(MsbError(format!("{}: remapped twice", self.mnemonic())));
            }
            let parts = self.vopd_parts().ok_or_else(|| MsbError(format!("{}: no parts", self.mnemonic())))?;
            for p in &parts {
                p.with_vgpr_msb(msb)?;
            }
            let mut out = *self;
            out.set_vopd_vgpr_msb(msb);
            return Ok(out);
        }
        let mut out = *self;
        for op in out.operands.iter_mut().flatten() {
            let Operand::Reg(r) = &mut op.value else { continue };
            if r.class != RegClass::Vgpr {
                continue;
            }
            let s = slot(op.spec.field, self.info.mnemonic).ok_or_else(|| MsbError(format!("{}: no VGPR MSB slot is known for field {:?}", self.mnemonic(), op.spec.field)))?;
            let hi = (msb >> (2 * s)) & 3;
            r.index += 256 * hi as u16;
        }
        Ok(out)
    }
}

/// The MSB state an `s_set_vgpr_msb` sets (the low 8 bits of its immediate), None for other
/// instructions.
pub fn set_vgpr_msb_value(inst: &Instruction) -> Option<u8> {
    if inst.mnemonic() != "s_set_vgpr_msb" {
        return None;
    }
    inst.operands().find_map(|o| match o.value {
        Operand::Imm(v) => Some(v as u8),
        _ => None,
    })
}
