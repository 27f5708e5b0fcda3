//! gfx1250 tensor data mover (TDM) instructions: `tensor_load_to_lds` and
//! `tensor_store_from_lds` (VIMAGE encoding, opcodes 0xc4 and 0xc5). Their operands are the
//! descriptor's register groups, all SGPR tuples: group 0 (4 dwords), group 1 (8 dwords) and,
//! in the up-to-4-D form, groups 2 and 3 (4 dwords each); the descriptor's meaning is hx-emu's
//! business (crates/emu/src/tensor.rs).
//!
//! Encoding (96 bits, from LLVM's MC vectors gfx1250_asm_vimage.s and its disassembler):
//! dword 0 is 0xd0710001 (load) or 0xd0714001 (store), nv in bit 7; dword 1 holds scope[19:18]
//! and th[22:20] and 0x7c (null) in bits 31:24; dword 2 holds the group registers, one byte
//! each: group 0, group 1, group 2, group 3 (124 = null: the 2-D form names neither 2 nor 3).
//! Only the words whose every other bit is clear, whose groups are 4-aligned SGPR tuples
//! (LLVM warns below that), and whose groups 2 and 3 are both null or both registers, are
//! decoded here; LLVM prints alignment warnings, TTMP tuples and invalid immediates for the
//! rest, which are reported as unsupported. crates/isa/tests/tensor_decode.rs checks the text
//! against LLVM's on a sweep.

use crate::operand::{self, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Format, Kind, OpInfo};
use crate::{tables, DecodeError, Instruction, Modifiers, Target};

/// Dword 0 of the two instructions, bit 7 (nv) clear.
pub const LOAD_WORD: u32 = 0xd071_0001;
pub const STORE_WORD: u32 = 0xd071_4001;
/// VIMAGE (0b110100 in bits 31:26) with opcode 0xc4/0xc5 in bits 21:14: the words routed here.
pub const MASK: u32 = 0xfc3f_8000;
pub const MATCH: u32 = 0xd031_0000;

static INFOS: [OpInfo; 2] = [
    OpInfo { mnemonic: "tensor_load_to_lds", sem: crate::SemId::NONE, format: Format::Vimage, opcode: 0xc4, operands: &[], unused: &[] },
    OpInfo { mnemonic: "tensor_store_from_lds", sem: crate::SemId::NONE, format: Format::Vimage, opcode: 0xc5, operands: &[], unused: &[] },
];

/// The decoded fields of a tensor instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tensor {
    /// `tensor_store_from_lds` (else `tensor_load_to_lds`).
    pub store: bool,
    /// Descriptor group 0 (4 SGPRs) and group 1 (8 SGPRs).
    pub group0: Reg,
    pub group1: Reg,
    /// Groups 2 and 3 (4 SGPRs each), present only in the up-to-4-D form.
    pub group2: Option<Reg>,
    pub group3: Option<Reg>,
    /// th (3 bits) and scope (2 bits) as written.
    pub th: u8,
    pub scope: u8,
    pub nv: bool,
}

fn fields(w: u128) -> Option<Tensor> {
    let (d0, d1, d2) = (w as u32, (w >> 32) as u32, (w >> 64) as u32);
    let store = match d0 & !0x80 {
        LOAD_WORD => false,
        STORE_WORD => true,
        _ => return None,
    };
    if d1 & !0x007c_0000 != 0x7c00_0000 {
        return None;
    }
    let sgpr = |v: u32, n: u8, last: u32| {
        (v.is_multiple_of(n as u32) && v + n as u32 - 1 <= last).then_some(Reg { class: RegClass::Sgpr, index: v as u16, dwords: n })
    };
    let byte = |i: u32| (d2 >> (8 * i)) & 0xff;
    let group0 = sgpr(byte(0), 4, 105)?;
    let group1 = sgpr(byte(1), 4, 105).map(|r| Reg { dwords: 8, ..r }).filter(|r| r.index <= 98)?;
    let (group2, group3) = match (byte(2), byte(3)) {
        (124, 124) => (None, None),
        (a, b) => (Some(sgpr(a, 4, 105)?), Some(sgpr(b, 4, 105)?)),
    };
    Some(Tensor {
        store,
        group0,
        group1,
        group2,
        group3,
        th: ((d1 >> 20) & 7) as u8,
        scope: ((d1 >> 18) & 3) as u8,
        nv: d0 & 0x80 != 0,
    })
}

/// Decodes a word that [`MASK`]/[`MATCH`] routed here (called by [`crate::decode`]).
pub(crate) fn decode_tensor(bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    let w = crate::vbuffer::word96(inst, offset)?;
    let t = fields(w).ok_or_else(|| DecodeError::Unsupported { format: Format::Vimage, offset, bytes: raw(12) })?;
    Ok(Instruction {
        target: Target::Gfx1250,
        info: &INFOS[t.store as usize],
        offset,
        len: 12,
        literal: None,
        mods: Modifiers::default(),
        cache: Default::default(),
        mem_offset: 0,
        word: w,
        operands: [None; MAX_OPERANDS],
    })
}

impl Instruction {
    /// The fields of a gfx1250 tensor instruction (`None` for every other instruction).
    pub fn tensor(&self) -> Option<Tensor> {
        if self.format() != Format::Vimage || self.target != Target::Gfx1250 {
            return None;
        }
        fields(self.word)
    }

    /// LLVM's text of a tensor instruction.
    pub(crate) fn tensor_text(&self) -> Option<String> {
        let t = self.tensor()?;
        let regs: Vec<String> = [Some(t.group0), Some(t.group1), t.group2, t.group3]
            .into_iter()
            .flatten()
            .map(|r| {
                let mut s = String::new();
                operand::format_reg(&mut s, r);
                s
            })
            .collect();
        let mut out = format!("{} {}", self.mnemonic(), regs.join(", "));
        let mut c = String::new();
        let cpol = (t.th as u32) << 2 | t.scope as u32;
        operand::format_operand(&mut c, self.target, Kind::VfCachePolicy { store: t.store }, &Operand::Imm(cpol), tables::names(self.target));
        if !c.is_empty() {
            out.push(' ');
            out.push_str(&c);
        }
        if t.nv {
            out.push_str(" nv");
        }
        Some(out)
    }
}
