//! v_bitop3_b32 (gfx1250 and gfx950 VOP3 opcode 0x234): D = any three-input bitwise function
//! of S0, S1, S2, given as an 8-entry truth table.
//!
//! The table's bits are spread over fields the VOP3 model reads as modifiers (abs bits 10:8 hold
//! table bits 5:3, omod bits 60:59 bits 7:6, neg bits 63:61 bits 2:0), so the table generator
//! cannot fit it; it is decoded here and checked against LLVM by crates/isa/tests/bitop3_decode.rs.
//! Result bit i is table bit (S0_i << 2 | S1_i << 1 | S2_i).
//!
//! v_bitop3_b16 (gfx1250 and gfx950 VOP3 opcode 0x233) is the same on 16-bit halves: op_sel (bits 14:11)
//! picks each source's half and the destination's half, printed after the table as LLVM does
//! (`bitop3:0xc8 op_sel:[1,0,0,0]`).

use crate::operand::{self, InstOperand, LitReader, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Field, Format, Kind, OpInfo, OperandSpec, ValType};
use crate::{DecodeError, Instruction, Target};

pub const OPCODE: u16 = 0x234;
/// v_bitop3_b16 on gfx1250 and gfx950 (Triton's gfx950 dot_scaled builds use it).
pub const OPCODE_B16: u16 = 0x233;

static OPERANDS: [OperandSpec; 4] = [
    OperandSpec { field: Field::Vop3Vdst, kind: Kind::VDst { dwords: 1 } },
    OperandSpec { field: Field::Vop3Src0, kind: Kind::VSrc(ValType::B32) },
    OperandSpec { field: Field::Vop3Src1, kind: Kind::VSrc(ValType::B32) },
    OperandSpec { field: Field::Vop3Src2, kind: Kind::VSrc(ValType::B32) },
];
static INFO: OpInfo = OpInfo { mnemonic: "v_bitop3_b32", format: Format::Vop3, opcode: OPCODE, operands: &OPERANDS, unused: &[] };

static OPERANDS_B16: [OperandSpec; 5] = [
    OperandSpec { field: Field::Vop3Vdst, kind: Kind::VDst { dwords: 1 } },
    OperandSpec { field: Field::Vop3Src0, kind: Kind::VSrc(ValType::I16) },
    OperandSpec { field: Field::Vop3Src1, kind: Kind::VSrc(ValType::I16) },
    OperandSpec { field: Field::Vop3Src2, kind: Kind::VSrc(ValType::I16) },
    OperandSpec { field: Field::Vop3OpSel, kind: Kind::OpSel { srcs: 3 } },
];
static INFO_B16: OpInfo = OpInfo { mnemonic: "v_bitop3_b16", format: Format::Vop3, opcode: OPCODE_B16, operands: &OPERANDS_B16, unused: &[] };

/// Whether VOP3 opcode `op` of `target` is decoded here.
pub fn is_bitop3_opcode(target: Target, op: u16) -> bool {
    target != Target::Gfx942 && (op == OPCODE || op == OPCODE_B16)
}

/// The truth table held in a VOP3 word's modifier fields.
pub fn table_of(word: u64) -> u8 {
    let f = |lo: u32, n: u32| ((word >> lo) as u32) & ((1 << n) - 1);
    (f(61, 3) | f(8, 3) << 3 | f(59, 2) << 6) as u8
}

/// The function the table names, bit by bit.
pub fn eval(table: u8, s0: u32, s1: u32, s2: u32) -> u32 {
    let mut r = 0;
    for i in 0..8u32 {
        if table >> i & 1 == 1 {
            let pick = |bit: u32, s: u32| if i >> bit & 1 == 1 { s } else { !s };
            r |= pick(2, s0) & pick(1, s1) & pick(0, s2);
        }
    }
    r
}

/// Decodes v_bitop3_b32 at `bytes[offset..]` (the VOP3 word `word`, both dwords).
pub(crate) fn decode_bitop3(target: Target, bytes: &[u8], offset: usize, word: u64) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    let b16 = ((word >> 16) & 0x3ff) as u16 == OPCODE_B16;
    let (info, specs): (&'static OpInfo, &'static [OperandSpec]) = if b16 { (&INFO_B16, &OPERANDS_B16) } else { (&INFO, &OPERANDS) };
    // op_sel (14:11) does not exist for the 32-bit form, and clamp (15) for either.
    if (word >> 11) & if b16 { 0x10 } else { 0x1f } != 0 {
        return Err(DecodeError::Invalid { offset, bytes: raw(8) });
    }
    let mut lits = LitReader::new(inst, 8);
    let mut warn = String::new();
    let mut operands: [Option<InstOperand>; MAX_OPERANDS] = Default::default();
    let vdst = (word & 0xff) as u32;
    operands[0] = Some(InstOperand { spec: &specs[0], value: Operand::Reg(Reg { class: RegClass::Vgpr, index: vdst as u16, dwords: 1 }), raw: vdst });
    for k in 0..3 {
        let v = ((word >> (32 + 9 * k)) & 0x1ff) as u32;
        let value = operand::decode_operand(target, specs[k + 1].kind, v, word as crate::spec::Word, &mut lits, &mut warn).map_err(|e| match e {
            operand::OperandError::Invalid => DecodeError::Invalid { offset, bytes: raw(8) },
            operand::OperandError::Truncated => DecodeError::Truncated { offset, bytes: raw(12) },
            operand::OperandError::Unsupported => DecodeError::Unsupported { format: Format::Vop3, offset, bytes: raw(8) },
        })?;
        operands[k + 1] = Some(InstOperand { spec: &specs[k + 1], value, raw: v });
    }
    if b16 {
        let op_sel = ((word >> 11) & 0xf) as u32;
        operands[4] = Some(InstOperand { spec: &specs[4], value: Operand::Imm(op_sel), raw: op_sel });
    }
    if !warn.is_empty() {
        return Err(DecodeError::Unsupported { format: Format::Vop3, offset, bytes: raw(8) });
    }
    Ok(Instruction {
        target,
        info,
        offset,
        len: (8 + lits.extra_len()) as u8,
        literal: lits.lit,
        mods: Default::default(),
        cache: Default::default(),
        mem_offset: 0,
        word: word as crate::spec::Word,
        operands,
    })
}

impl Instruction {
    /// The truth table of a v_bitop3_b32 (`None` for every other instruction).
    pub fn bitop3_table(&self) -> Option<u8> {
        (std::ptr::eq(self.info, &INFO) || std::ptr::eq(self.info, &INFO_B16)).then(|| table_of(self.word as u64))
    }

    /// Whether this is v_bitop3_b16 (16-bit halves chosen by op_sel).
    pub fn bitop3_is_b16(&self) -> bool {
        std::ptr::eq(self.info, &INFO_B16)
    }

    /// A v_bitop3's destination, its three sources and, for v_bitop3_b16, the op_sel bits
    /// (bit k: source k's high half; bit 3: the destination's high half). `None` for every
    /// other instruction.
    pub fn bitop3_operands(&self) -> Option<(&InstOperand, [&InstOperand; 3], Option<u32>)> {
        self.bitop3_table()?;
        let ops: Vec<&InstOperand> = self.operands().collect();
        match ops[..] {
            [d, a, b, c] if !self.bitop3_is_b16() => Some((d, [a, b, c], None)),
            [d, a, b, c, sel] if self.bitop3_is_b16() => match sel.value {
                Operand::Imm(v) => Some((d, [a, b, c], Some(v))),
                _ => None,
            },
            _ => None,
        }
    }

    /// LLVM's text: the operands, then ` bitop3:N` (decimal up to 10, else hex; none for 0).
    pub(crate) fn bitop3_text(&self) -> Option<String> {
        let t = self.bitop3_table()?;
        let mut s = String::from(self.info.mnemonic);
        let mut op_sel = None;
        for (i, o) in self.operands().enumerate() {
            if matches!(o.spec.kind, Kind::OpSel { .. }) {
                op_sel = Some(o);
                continue;
            }
            s.push_str(if i == 0 { " " } else { ", " });
            operand::format_operand(&mut s, self.target, o.spec.kind, &o.value, crate::tables::names(self.target));
        }
        match t {
            0 => {}
            1..=10 => s.push_str(&format!(" bitop3:{t}")),
            _ => s.push_str(&format!(" bitop3:{t:#x}")),
        }
        if let Some(o) = op_sel.filter(|o| !matches!(o.value, Operand::Imm(0))) {
            s.push(' ');
            operand::format_operand(&mut s, self.target, o.spec.kind, &o.value, crate::tables::names(self.target));
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_name_the_functions_llvm_uses() {
        let (a, b, c) = (0xf0f0_ff00u32, 0xcccc_0ff0u32, 0xaaaa_1234u32);
        // The canonical inputs' own tables: S0 = 0xf0, S1 = 0xcc, S2 = 0xaa.
        assert_eq!(eval(0xf0, a, b, c), a);
        assert_eq!(eval(0xcc, a, b, c), b);
        assert_eq!(eval(0xaa, a, b, c), c);
        assert_eq!(eval(0xf0 & 0xcc, a, b, c), a & b);
        assert_eq!(eval(0xf0 | 0xcc | 0xaa, a, b, c), a | b | c);
        assert_eq!(eval(0xf0 ^ 0xcc ^ 0xaa, a, b, c), a ^ b ^ c);
        // With S2 = 0 (VOPD3 bitop2): 0x40 is AND, 0x54 OR (seen in compiled code).
        assert_eq!(eval(0x40, a, b, 0), a & b);
        assert_eq!(eval(0x54, a, b, 0), a | b);
        assert_eq!(eval(0, a, b, c), 0);
        assert_eq!(eval(0xff, a, b, c), u32::MAX);
    }
}
