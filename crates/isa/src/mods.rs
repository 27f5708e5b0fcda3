//! The value-affecting modifiers of a decoded instruction (neg/abs per source, clamp, omod,
//! op_sel), read from the operands' kinds and the raw word, for the emulator and the raiser.
//! (Printing reads the same bits through the operand kinds; this is the semantic view.)

use crate::operand::src_mod_bits;
use crate::spec::{Kind, SrcMods};
use crate::{Instruction, Modifiers, Operand};

impl Instruction {
    /// neg/abs bit `i` is set for source `i` (the `idx` of its `VSrcM` kind).
    pub fn source_mods(&self) -> Modifiers {
        if self.format() == crate::Format::Sdwa {
            return self.sdwa_mods();
        }
        if let Some(m) = self.dpp_mods() {
            return m;
        }
        let mut m = Modifiers::default();
        for op in self.operands() {
            let imm = match op.value {
                Operand::Imm(v) => v,
                _ => 0,
            };
            match op.spec.kind {
                Kind::VSrcM { idx, mods, .. } | Kind::VSrcNoConst { idx, mods, .. } => {
                    let (neg, abs) = src_mod_bits(self.word, idx);
                    match mods {
                        SrcMods::ModsNegAbs => {
                            m.neg |= (neg as u8) << idx;
                            m.abs |= (abs as u8) << idx;
                        }
                        SrcMods::ModsNegOnly => m.neg |= (neg as u8) << idx,
                        _ => {}
                    }
                }
                Kind::Omod => m.omod = imm as u8,
                Kind::Flag("clamp") => m.clamp = imm != 0,
                Kind::OpSel { .. } | Kind::OpSelFiBc => m.op_sel = imm as u8,
                Kind::OpSelMasked { opsel, byte_sel, .. } => {
                    m.op_sel = imm as u8 & opsel;
                    m.byte_sel = crate::operand::byte_sel_value(byte_sel, imm);
                }
                Kind::PkBits { name, .. } => match name {
                    "op_sel" => m.op_sel = imm as u8,
                    "op_sel_hi" => m.op_sel_hi = imm as u8,
                    "neg_lo" => m.neg |= imm as u8,
                    "neg_hi" => m.neg_hi = imm as u8,
                    _ => {}
                },
                _ => {}
            }
        }
        // gfx1250 VOP3 words of 16-bit ops: LLVM's default (fake16) tables give them no op_sel
        // operand and print none, but the word's bits 14:11 still pick the halves of the 16-bit
        // sources and of the destination (`v_or_b16 v2.h, v16.l, v1.h op_sel:[0,1,1]` under
        // +real-true16). Triton's dot_scaled w8 builds pack their E8M0 scales so. Reported here
        // for every gfx1250 VOP3 word without an op_sel operand (VOP3SD words keep sdst there);
        // the emulator and the raiser refuse op_sel on an operand that is not 16 bits wide.
        if self.target == crate::Target::Gfx1250
            && self.format() == crate::Format::Vop3
            && !self.operands().any(|o| {
                o.spec.field == crate::spec::Field::Vop3Sdst
                    || matches!(o.spec.kind, Kind::OpSel { .. } | Kind::OpSelFiBc | Kind::OpSelMasked { .. } | Kind::PkBits { .. })
            })
        {
            m.op_sel |= ((self.word >> 11) & 0xf) as u8;
        }
        // The halves of a gfx1250 e32 form's Lo128 operands (Instruction::true16_halves).
        if matches!(self.format(), crate::Format::Vop1 | crate::Format::Vop2 | crate::Format::Vopc) {
            m.op_sel |= self.mods.op_sel;
        }
        m
    }
}
