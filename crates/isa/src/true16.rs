//! gfx1250 true16 forms: `v_mov_b16_e32` (VOP1 opcode 0x1c) and `v_mov_b16_e64` (VOP3 opcode
//! 0x19c), which name 16-bit halves of VGPRs (`v1.l`, `v1.h`).
//!
//! LLVM decodes these words only with the `+real-true16` subtarget feature; without it (the
//! feature set the opcode tables are generated with, which keeps every other 16-bit opcode in
//! its fake16 form) it decodes nothing there. So the table generator cannot fit them, and they
//! are decoded here, checked against LLVM with `+real-true16` by crates/isa/tests/true16_decode.rs.
//! Triton 3.9's gfx1250 matmuls and flash attention use both forms.
//!
//! Encoding (as LLVM reads it):
//! - e32: vdst bits 7:0 = register 6:0 and half 7 (`v1.h` is 0x81); src0 bits 8:0, where
//!   256.. is a VGPR whose bit 7 is the half; other values are scalar registers, inline
//!   constants and a literal, read as 16-bit integers (inline floats print as their f16 bit
//!   pattern: 1.0 is `0x3c00`).
//! - e64: vdst bits 7:0 and src0 bits 40:32 name whole VGPRs; op_sel bit 11 picks src0's high
//!   half and bit 14 the destination's, printed both as `.h` and as `op_sel:[src0,dst]`.
//!   op_sel bits 12-13, clamp, omod and the abs/neg bits of src1/src2 make the word invalid;
//!   src0's abs/neg bits, and the src1 and src2 fields, are ignored (LLVM prints none of them).
//!
//! Both forms are returned with an op_sel operand (bit 0: src0's high half, bit 3: the
//! destination's), so [`Instruction::source_mods`] gives the halves as for any VOP3 16-bit op;
//! [`Instruction::is_true16`] says the write leaves the other half of the destination as it was
//! (LLVM allocates `v1.l` and `v1.h` as separate 16-bit registers).

use crate::operand::{self, InstOperand, LitReader, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Field, Format, Kind, OpInfo, OperandSpec, ValType};
use crate::{DecodeError, Instruction, Target};

/// VOP1 opcode of v_mov_b16_e32.
pub const VOP1_MOV_B16: u32 = 0x1c;
/// VOP3 opcode of v_mov_b16_e64.
pub const VOP3_MOV_B16: u32 = 0x19c;

static OPERANDS_E32: [OperandSpec; 3] = [
    OperandSpec { field: Field::Vdst8, kind: Kind::VDst { dwords: 1 } },
    OperandSpec { field: Field::Src0, kind: Kind::VSrc(ValType::I16) },
    OperandSpec { field: Field::Implicit, kind: Kind::OpSel { srcs: 1 } },
];
static INFO_E32: OpInfo = OpInfo { mnemonic: "v_mov_b16_e32", sem: crate::tables::sem_ids::V_MOV_B16, format: Format::Vop1, opcode: VOP1_MOV_B16 as u16, operands: &OPERANDS_E32, unused: &[] };

static OPERANDS_E64: [OperandSpec; 3] = [
    OperandSpec { field: Field::Vop3Vdst, kind: Kind::VDst { dwords: 1 } },
    OperandSpec { field: Field::Vop3Src0, kind: Kind::VSrc(ValType::I16) },
    OperandSpec { field: Field::Vop3OpSel, kind: Kind::OpSel { srcs: 1 } },
];
static INFO_E64: OpInfo = OpInfo { mnemonic: "v_mov_b16_e64", sem: crate::tables::sem_ids::V_MOV_B16, format: Format::Vop3, opcode: VOP3_MOV_B16 as u16, operands: &OPERANDS_E64, unused: &[] };

/// Bit 7 of a VOP1 or VOP2 destination field (word bit 24): with a 16-bit (Lo128) destination,
/// the high half of the register the other bits name.
pub const VOP1_VDST_HIGH: u32 = 1 << 24;

/// A gfx1250 VOP1 or VOP2 word whose 16-bit (Lo128) destination names a high half (field value
/// 128 and up): LLVM decodes it only with +real-true16 (`v_cvt_f16_i16_e32 v1.h, v30.l`, as
/// clang 22 and Triton 3.9 write int16 -> f16 conversions; `v_mul_f16_e32 v0.h, v19.l, v0.h`,
/// Triton's f16 arithmetic), its default fake16 mode not at all, and the tables follow the
/// default mode. Decoded as the same word with the field's bit 7 clear, the destination then
/// named as v128 and up as the Lo128 sources are, so that [`Instruction::true16_halves`] reads it
/// as the high half (op_sel bit 3). `None` where the opcode has no Lo128 destination or the word
/// does not decode so.
pub(crate) fn decode_high_destination(format: Format, bytes: &[u8], offset: usize, word: u32) -> Option<Instruction> {
    let op = match format {
        Format::Vop1 => (word >> 9) & 0xff,
        Format::Vop2 => (word >> 25) & 0x3f,
        _ => return None,
    };
    let info = crate::tables::table(Target::Gfx1250, format).get(op as usize)?.as_ref()?;
    if !matches!(info.operands.first()?.kind, Kind::VDstLo128 { .. }) {
        return None;
    }
    // The instruction's own bytes (at most a dword and a literal), the field's bit 7 cleared.
    let inst = bytes.get(offset..)?;
    let n = inst.len().min(16);
    let mut window = [0u8; 16];
    window[..n].copy_from_slice(&inst[..n]);
    window[..4].copy_from_slice(&(word & !VOP1_VDST_HIGH).to_le_bytes());
    let mut out = crate::decode(Target::Gfx1250, &window[..n], 0).ok()?;
    if out.info.format != format {
        return None;
    }
    out.offset = offset;
    let first = out.operands.first_mut()?.as_mut()?;
    match &mut first.value {
        Operand::Reg(r) if r.class == RegClass::Vgpr && r.index < 128 => r.index += 128,
        _ => return None,
    }
    first.raw |= 0x80;
    out.word |= VOP1_VDST_HIGH as crate::spec::Word;
    Some(out)
}

/// Whether the `format` opcode `op` of `target` is decoded here.
pub fn is_true16_opcode(target: Target, format: Format, op: u32) -> bool {
    target == Target::Gfx1250
        && match format {
            Format::Vop1 => op == VOP1_MOV_B16,
            Format::Vop3 => op == VOP3_MOV_B16,
            _ => false,
        }
}

/// Decodes the true16 word at `bytes[offset..]` (first dword `word`, of `format`).
pub(crate) fn decode_true16(target: Target, format: Format, bytes: &[u8], offset: usize, word: u32) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    let e64 = format == Format::Vop3;
    let fixed = if e64 { 8 } else { 4 };
    let Some(d1) = inst.get(4..8).filter(|_| e64).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).or((!e64).then_some(0)) else {
        return Err(DecodeError::Truncated { offset, bytes: raw(8) });
    };
    let (info, specs): (&'static OpInfo, &'static [OperandSpec]) = if e64 { (&INFO_E64, &OPERANDS_E64) } else { (&INFO_E32, &OPERANDS_E32) };
    let (vdst, src0, op_sel) = if e64 {
        // abs/neg of src1/src2 (bits 10:9, 63:62), their op_sel (bits 13:12), clamp (15) and
        // omod (60:59) are not this opcode's: LLVM decodes no instruction.
        if (word >> 9) & 3 != 0 || (word >> 12) & 0xb != 0 || (d1 >> 27) & 3 != 0 || d1 >> 30 != 0 {
            return Err(DecodeError::Invalid { offset, bytes: raw(8) });
        }
        let sel = (word >> 11) & 1 | ((word >> 14) & 1) << 3;
        (word & 0xff, d1 & 0x1ff, sel)
    } else {
        let dst = (word >> 17) & 0xff;
        let src = word & 0x1ff;
        let src_hi = src >= 256 && src & 0x80 != 0;
        let sel = src_hi as u32 | ((dst >> 7) & 1) << 3;
        (dst & 0x7f, if src >= 256 { src & !0x80 } else { src }, sel)
    };
    let mut lits = LitReader::new(inst, fixed);
    let mut warn = String::new();
    let value = operand::decode_operand(target, specs[1].kind, src0, word as crate::spec::Word, &mut lits, &mut warn).map_err(|e| match e {
        operand::OperandError::Invalid => DecodeError::Invalid { offset, bytes: raw(fixed) },
        operand::OperandError::Truncated => DecodeError::Truncated { offset, bytes: raw(fixed + 4) },
        operand::OperandError::Unsupported => DecodeError::Unsupported { format, offset, bytes: raw(fixed) },
    })?;
    if !warn.is_empty() {
        return Err(DecodeError::Unsupported { format, offset, bytes: raw(fixed) });
    }
    let mut operands: [Option<InstOperand>; MAX_OPERANDS] = Default::default();
    operands[0] = Some(InstOperand { spec: &specs[0], value: Operand::Reg(Reg { class: RegClass::Vgpr, index: vdst as u16, dwords: 1 }), raw: vdst });
    operands[1] = Some(InstOperand { spec: &specs[1], value, raw: src0 });
    operands[2] = Some(InstOperand { spec: &specs[2], value: Operand::Imm(op_sel), raw: op_sel });
    Ok(Instruction {
        target,
        info,
        offset,
        len: (fixed + lits.extra_len()) as u8,
        literal: lits.lit,
        mods: Default::default(),
        cache: Default::default(),
        mem_offset: 0,
        word: if e64 { word as u64 | (d1 as u64) << 32 } else { word as u64 } as crate::spec::Word,
        operands,
    })
}

impl Instruction {
    /// The operand of a gfx1250 instruction that names v128 or above through a `*_Lo128` field
    /// (16-bit operands): on this true16 machine the field's bit 7 selects the high half of
    /// v0..v127 (`v0.h`, as LLVM prints with +real-true16), while the tables decode the fields in
    /// LLVM's default fake16 mode, where LLVM prints `v128` with an invalid-register note.
    pub fn true16_high_half(&self) -> Option<&InstOperand> {
        if self.target != Target::Gfx1250 || self.is_true16() {
            return None;
        }
        self.operands().find(|o| names_high_half(o))
    }

    /// This instruction with its [`Instruction::true16_high_half`] operands read as the halves
    /// they are, for a VOP1/VOP2/VOPC (e32) form: each such register lowered by 128 and its half
    /// in `mods.op_sel` (bit 0 src0, bit 1 vsrc1, bit 3 the destination), which
    /// [`Instruction::source_mods`] then reports as the VOP3 forms' op_sel. Unchanged (borrowed)
    /// when there is no such operand, and for other formats (DPP forms stay as decoded).
    pub fn true16_halves(&self) -> std::borrow::Cow<'_, Instruction> {
        use std::borrow::Cow;
        if self.true16_high_half().is_none() || !matches!(self.format(), Format::Vop1 | Format::Vop2 | Format::Vopc) {
            return Cow::Borrowed(self);
        }
        let mut out = *self;
        for op in out.operands.iter_mut().flatten() {
            let bit = match op.spec.field {
                Field::Src0 => 0,
                Field::Vsrc1 => 1,
                _ => 3,
            };
            if names_high_half(op) {
                if let Operand::Reg(r) = &mut op.value {
                    r.index -= 128;
                    out.mods.op_sel |= 1 << bit;
                }
            }
        }
        Cow::Owned(out)
    }

    /// Whether this is a true16 form decoded here: its 16-bit result goes to the half of the
    /// destination that op_sel bit 3 names, and the other half keeps its value.
    pub fn is_true16(&self) -> bool {
        std::ptr::eq(self.info, &INFO_E32) || std::ptr::eq(self.info, &INFO_E64)
    }

    /// LLVM's text (with `+real-true16`): VGPR halves as `.l`/`.h`; the e64 form adds
    /// `op_sel:[src0,dst]` when either bit is set.
    pub(crate) fn true16_text(&self) -> Option<String> {
        if !self.is_true16() {
            return None;
        }
        let names = crate::tables::names(self.target);
        let sel = self.operands().find_map(|o| match (o.spec.kind, o.value) {
            (Kind::OpSel { .. }, Operand::Imm(v)) => Some(v),
            _ => None,
        })?;
        let mut s = String::from(self.info.mnemonic);
        for (i, o) in self.operands().enumerate() {
            let hi = match i {
                0 => sel & 8 != 0,
                1 => sel & 1 != 0,
                _ => {
                    if std::ptr::eq(self.info, &INFO_E64) && sel != 0 {
                        s.push(' ');
                        operand::format_operand(&mut s, self.target, o.spec.kind, &o.value, names);
                    }
                    continue;
                }
            };
            s.push_str(if i == 0 { " " } else { ", " });
            operand::format_operand(&mut s, self.target, o.spec.kind, &o.value, names);
            if matches!(o.value, Operand::Reg(Reg { class: RegClass::Vgpr, .. })) {
                s.push_str(if hi { ".h" } else { ".l" });
            }
        }
        Some(s)
    }
}

/// Whether a `*_Lo128` operand names v128 or above (a high half on gfx1250).
fn names_high_half(o: &InstOperand) -> bool {
    matches!(o.spec.kind, Kind::VSrcLo128(_) | Kind::VRegLo128 { .. } | Kind::VDstLo128 { .. })
        && matches!(o.value, Operand::Reg(r) if r.class == RegClass::Vgpr && r.index >= 128)
}
