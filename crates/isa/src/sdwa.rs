//! GFX9 (gfx942/gfx950) SDWA: a VOP1/VOP2 word with src0 = 249 and a second dword that selects
//! sub-dwords of the sources and of the destination.
//!
//! The operation is the VOP1/VOP2 opcode's; its operand shapes come from the ordinary tables
//! (the e32 entry), so an SDWA instruction has the same operands as the e32 form, with src0 (and
//! for VOP2 src1) taken from the SDWA dword. Which opcodes have an SDWA form is LLVM's list
//! (`SDWA_VOP1` / `SDWA_VOP2`), checked against LLVM by crates/isa/tests/sdwa_decode.rs, which
//! also compares whole texts on a random sweep.
//!
//! SDWA dword (bits 63:32 of `Instruction::word`): src0[7:0], dst_sel[10:8], dst_unused[12:11],
//! clamp 13, omod[15:14], src0_sel[18:16], src0_sext 19, src0_neg 20, src0_abs 21, s0 23 (src0 is
//! scalar), src1_sel[26:24], src1_sext 27, src1_neg 28, src1_abs 29, s1 31. VOPC SDWA (a
//! 32-bit or 16-bit compare, word 0 bits 31:25 = 0x3e) has no dst_sel, dst_unused, clamp or omod:
//! its bits 14:8 are a scalar destination, used when bit 15 (SD) is set, else the result goes
//! to VCC.

use crate::operand::{self, InstOperand, LitReader, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Field, Format, Kind, OpInfo};
use crate::{tables, DecodeError, Instruction, Modifiers, Target};
use std::sync::OnceLock;

/// VOP1 opcodes with an SDWA form (gfx942; gfx950 adds 0x58 and 0x5b).
pub const SDWA_VOP1: &[u16] = &[
    0x01, 0x05, 0x06, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x11, 0x12, 0x13, 0x14, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
    0x20, 0x21, 0x22, 0x23, 0x24, 0x27, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x33, 0x34, 0x37, 0x39, 0x3a, 0x3b,
    0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e,
    0x4f, 0x54, 0x55, 0x56, 0x57,
];
pub const SDWA_VOP1_GFX950_EXTRA: &[u16] = &[0x58, 0x5b];
/// VOP2 opcodes with an SDWA form (gfx942 and gfx950).
pub const SDWA_VOP2: &[u16] = &[
    0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13,
    0x14, 0x15, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c,
    0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x3c, 0x3d,
];

/// Does (`format`, `opcode`) have an SDWA form on `target`? VOPC: the 16-bit and 32-bit
/// compares and classes (64-bit ones have none).
pub fn has_sdwa(target: Target, format: Format, opcode: u16) -> bool {
    match format {
        Format::Vop1 => SDWA_VOP1.contains(&opcode) || (target == Target::Gfx950 && SDWA_VOP1_GFX950_EXTRA.contains(&opcode)),
        Format::Vop2 => SDWA_VOP2.contains(&opcode),
        Format::Vopc => matches!(opcode, 0x10 | 0x11 | 0x14 | 0x15 | 0x20..=0x5f | 0xa0..=0xdf),
        _ => false,
    }
}

/// The scalar destination of a VOPC SDWA word with SD set (a lane mask: an SGPR pair, VCC,
/// EXEC or a TTMP pair).
static VOPC_SDST: crate::OperandSpec = crate::OperandSpec { field: Field::Implicit, kind: Kind::SDst { dwords: 2 } };

/// Is the SDWA word `w0` a compare (VOPC)?
fn is_vopc(w0: u32) -> bool {
    w0 >> 25 == 0x3e
}

/// A sub-dword selection (src*_sel, dst_sel): 0..=3 BYTE_n, 4/5 WORD_0/1, 6 DWORD.
pub const SEL_NAMES: [&str; 7] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"];
const UNUSED_NAMES: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

/// The SDWA controls of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sdwa {
    pub dst_sel: u8,
    /// 0 pad with zeros, 1 sign-extend, 2 preserve the destination's other bits.
    pub dst_unused: u8,
    pub src_sel: [u8; 2],
    pub src_sext: [bool; 2],
}

impl Sdwa {
    /// Source `k`'s 32-bit value after its selection (and sign extension).
    pub fn select(&self, k: usize, v: u32) -> u32 {
        select(self.src_sel[k], self.src_sext[k], v)
    }
    /// The destination register's new value: `result`'s low bits placed by dst_sel, the other
    /// bits from dst_unused (`old`: the register's previous value).
    pub fn place(&self, old: u32, result: u32) -> u32 {
        let (shift, bits) = sel_range(self.dst_sel);
        if bits == 32 {
            return result;
        }
        let mask = ((1u64 << bits) - 1) as u32;
        let field = (result & mask) << shift;
        let field_mask = mask << shift;
        match self.dst_unused {
            2 => (old & !field_mask) | field,
            1 => {
                // Sign-extend the selected field into the bits above it; bits below are zero.
                let top = shift + bits;
                let sign = (result >> (bits - 1)) & 1 == 1;
                let above = if sign && top < 32 { u32::MAX << top } else { 0 };
                field | above
            }
            _ => field,
        }
    }
}

/// The controls of SDWA words `w0`, `w1`; a compare's result is a whole lane mask (DWORD).
fn controls(w0: u32, w1: u32) -> Sdwa {
    let f = |lo: u32, n: u32| ((w1 >> lo) & ((1 << n) - 1)) as u8;
    let (dst_sel, dst_unused) = if is_vopc(w0) { (6, 0) } else { (f(8, 3), f(11, 2)) };
    Sdwa { dst_sel, dst_unused, src_sel: [f(16, 3), f(24, 3)], src_sext: [f(19, 1) == 1, f(27, 1) == 1] }
}

fn sel_range(sel: u8) -> (u32, u32) {
    match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => (0, 32),
    }
}

fn select(sel: u8, sext: bool, v: u32) -> u32 {
    let (shift, bits) = sel_range(sel);
    if bits == 32 {
        return v;
    }
    let x = (v >> shift) & (((1u64 << bits) - 1) as u32);
    if sext {
        (((x << (32 - bits)) as i32) >> (32 - bits)) as u32
    } else {
        x
    }
}

/// The SDWA tables: one entry per e32 opcode with an SDWA form, its mnemonic `..._sdwa`.
struct Infos {
    vop1: Vec<Option<OpInfo>>,
    vop2: Vec<Option<OpInfo>>,
    vopc: Vec<Option<OpInfo>>,
}

fn infos(target: Target) -> &'static Infos {
    static CELLS: [OnceLock<Infos>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let cell = &CELLS[target as usize];
    cell.get_or_init(|| {
        let make = |format: Format| -> Vec<Option<OpInfo>> {
            tables::table(target, format)
                .iter()
                .map(|e| {
                    let e = e.as_ref()?;
                    if !has_sdwa(target, format, e.opcode) {
                        return None;
                    }
                    let base = e.mnemonic.trim_end_matches("_e32");
                    // Leaked once per (target, opcode): the tables are static data.
                    let mnemonic: &'static str = Box::leak(format!("{base}_sdwa").into_boxed_str());
                    Some(OpInfo { mnemonic, sem: e.sem, format: Format::Sdwa, opcode: e.opcode, operands: e.operands, unused: &[] })
                })
                .collect()
        };
        Infos { vop1: make(Format::Vop1), vop2: make(Format::Vop2), vopc: make(Format::Vopc) }
    })
}

/// The operand index of each source in a VOP1/VOP2 entry: src0 is the `Src0` field, src1 the
/// `Vsrc1` field.
fn source_index(field: Field) -> Option<usize> {
    match field {
        Field::Src0 => Some(0),
        Field::Vsrc1 => Some(1),
        _ => None,
    }
}

/// Decodes a GFX9 SDWA word at `bytes[offset..]` (called by [`crate::decode`]).
pub(crate) fn decode_sdwa(target: Target, bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    if inst.len() < 8 {
        return Err(DecodeError::Truncated { offset, bytes: raw(8) });
    }
    let w0 = u32::from_le_bytes([inst[0], inst[1], inst[2], inst[3]]);
    let w1 = u32::from_le_bytes([inst[4], inst[5], inst[6], inst[7]]);
    let invalid = || DecodeError::Invalid { offset, bytes: raw(8) };
    let unsupported = || DecodeError::Unsupported { format: Format::Sdwa, offset, bytes: raw(8) };
    let (format, opcode) = match w0 >> 25 {
        0x3f => (Format::Vop1, (w0 >> 9) & 0xff),
        0x3e => (Format::Vopc, (w0 >> 17) & 0xff),
        op => (Format::Vop2, op),
    };
    if format == Format::Vop1 && opcode == 0 && (w0 >> 17) & 0xff == 0 {
        // v_nop ignores its source: LLVM reads the pair as an 8-byte v_nop when the source
        // controls are clear, else as a 4-byte v_nop followed by another word.
        let info = tables::table(target, Format::Vop1).first().and_then(|e| e.as_ref()).ok_or_else(invalid)?;
        let len = if w1 & 0xbf3f_e000 == 0 { 8 } else { 4 };
        let word = if len == 8 { w0 as u64 | (w1 as u64) << 32 } else { w0 as u64 };
        return Ok(Instruction {
            target,
            info,
            offset,
            len,
            literal: None,
            mods: Modifiers::default(),
            cache: Default::default(),
            mem_offset: 0,
            word: word as crate::spec::Word,
            operands: Default::default(),
        });
    }
    let t = infos(target);
    let table = match format {
        Format::Vop1 => &t.vop1,
        Format::Vopc => &t.vopc,
        _ => &t.vop2,
    };
    let Some(info) = table.get(opcode as usize).and_then(|e| e.as_ref()) else {
        return Err(if has_sdwa(target, format, opcode as u16) { unsupported() } else { invalid() });
    };
    let f = |lo: u32, n: u32| (w1 >> lo) & ((1 << n) - 1);
    let sdwa = controls(w0, w1);
    if sdwa.dst_sel > 6 || sdwa.src_sel[0] > 6 || sdwa.src_sel[1] > 6 || sdwa.dst_unused > 2 {
        return Err(invalid());
    }
    // Only 32-bit operands are modelled (the 16-bit and 64-bit typed ops print differently),
    // and the pair destination of v_cvt_pk_f32_{fp8,bf8} (gfx942's Triton natives use it), which
    // LLVM prints without dst_sel / dst_unused: modelled with the DWORD / UNUSED_PAD ones only.
    let pk_f32 = pair_dst(info.mnemonic);
    if pk_f32 && (sdwa.dst_sel != 6 || sdwa.dst_unused != 0) {
        return Err(unsupported());
    }
    let mut operands: [Option<InstOperand>; MAX_OPERANDS] = Default::default();
    let mut lits = LitReader::new(inst, 8);
    let mut warn = String::new();
    for (k, s) in info.operands.iter().enumerate() {
        let value = match (s.field, s.kind) {
            (Field::Vdst8, Kind::VDst { dwords: 1 }) => {
                Operand::Reg(Reg { class: RegClass::Vgpr, index: ((w0 >> 17) & 0xff) as u16, dwords: 1 })
            }
            (Field::Vdst8, Kind::VDst { dwords: 2 }) if pk_f32 => {
                Operand::Reg(Reg { class: RegClass::Vgpr, index: ((w0 >> 17) & 0xff) as u16, dwords: 2 })
            }
            (Field::Src0, Kind::VSrc(ty)) | (Field::Vsrc1, Kind::VSrc(ty)) if ty.bits() == 32 || ty.bits() == 16 => {
                let (v, scalar) = if s.field == Field::Src0 { (f(0, 8), f(23, 1) == 1) } else { ((w0 >> 9) & 0xff, f(31, 1) == 1) };
                sdwa_source(target, v, scalar, &mut lits, &mut warn).ok_or_else(unsupported)?
            }
            (Field::Vsrc1, Kind::VReg { dwords: 1 }) => {
                let (v, scalar) = ((w0 >> 9) & 0xff, f(31, 1) == 1);
                sdwa_source(target, v, scalar, &mut lits, &mut warn).ok_or_else(unsupported)?
            }
            // A compare's mask destination: VCC unless SD names a scalar destination.
            (Field::Implicit, Kind::Fixed(_)) if format == Format::Vopc && f(15, 1) == 1 => {
                let d = operand::decode_operand(target, VOPC_SDST.kind, f(8, 7), 0, &mut lits, &mut warn).map_err(|_| invalid())?;
                operands[k] = Some(InstOperand { spec: &VOPC_SDST, value: d, raw: f(8, 7) });
                continue;
            }
            (Field::Implicit, Kind::Fixed(_)) => Operand::Implicit,
            _ => return Err(unsupported()),
        };
        // src1 may be a scalar or constant here: print it as a source of src0's type when that
        // is 16-bit, else as a 32-bit source.
        let src0_ty = info.operands.iter().find_map(|o| match (o.field, o.kind) {
            (Field::Src0, Kind::VSrc(t)) if t.bits() == 16 => Some(t),
            _ => None,
        });
        let spec = if s.field == Field::Vsrc1 { vsrc1_spec(src0_ty.unwrap_or(crate::ValType::B32)) } else { s };
        operands[k] = Some(InstOperand { spec, value, raw: 0 });
    }
    // Float sources take neg/abs, integer sources sext; only float results take omod (LLVM
    // rejects the other combinations).
    if matches!(info.mnemonic, "v_pk_fmac_f16_sdwa" | "v_cvt_f32_fp8_sdwa" | "v_cvt_f32_bf8_sdwa") {
        // Printed with their own rules (packed modifiers, byte selects only): not modelled.
        return Err(unsupported());
    }
    let (dst_float, mut src_float) = float_types(info.mnemonic);
    if info.mnemonic == "v_cndmask_b32_sdwa" {
        // A select takes neg/abs like a float op.
        src_float = [true, true];
    }
    if info.mnemonic.starts_with("v_cmp_class_") || info.mnemonic.starts_with("v_cmpx_class_") {
        // The class mask is an integer.
        src_float[1] = false;
    }
    for k in 0..2 {
        let (neg, abs, sext) = (f(20 + 8 * k, 1), f(21 + 8 * k, 1), f(19 + 8 * k, 1));
        if (src_float[k as usize] && sext != 0) || (!src_float[k as usize] && (neg | abs) != 0) {
            return Err(invalid());
        }
    }
    if !dst_float && format != Format::Vopc && f(14, 2) != 0 {
        return Err(invalid());
    }
    if format == Format::Vop1 && (f(24, 8) != 0) {
        // VOP1 has no src1 controls; LLVM rejects words that set them.
        return Err(invalid());
    }
    Ok(Instruction {
        target,
        info,
        offset,
        len: 8,
        literal: None,
        mods: Modifiers::default(),
        cache: Default::default(),
        mem_offset: 0,
        word: (w0 as u64 | (w1 as u64) << 32) as crate::spec::Word,
        operands,
    })
}

/// The SDWA ops with a VGPR-pair destination this decoder models (no dst_sel in LLVM's text).
fn pair_dst(mnemonic: &str) -> bool {
    matches!(mnemonic, "v_cvt_pk_f32_fp8_sdwa" | "v_cvt_pk_f32_bf8_sdwa")
}

/// Whether an SDWA op's result and sources are floats, from the types its mnemonic names: the
/// first is the result's, the last the sources' (`v_cvt_f32_i32`: float result, integer
/// source); byte-unpacking and fp8 conversions read integer bytes, v_ldexp's src1 is an integer.
fn float_types(mnemonic: &str) -> (bool, [bool; 2]) {
    let is_type = |t: &str| {
        t == "bf16" || t == "fp8" || t == "bf8" || t.starts_with("ubyte") || {
            let (k, n) = t.split_at(1.min(t.len()));
            matches!(k, "f" | "i" | "u" | "b") && matches!(n, "4" | "8" | "16" | "24" | "32" | "64")
        }
    };
    let types: Vec<&str> = mnemonic.trim_end_matches("_sdwa").split('_').filter(|t| is_type(t)).collect();
    let float = |t: &str| t.starts_with('f') && t != "fp8" || t == "bf16";
    let dst = types.first().is_some_and(|t| float(t));
    let src = types.last().is_some_and(|t| float(t));
    let src1 = src && !mnemonic.starts_with("v_ldexp");
    (dst, [src, src1])
}

/// An SDWA source: a VGPR, or with its S bit an SGPR / inline constant (no literal).
fn sdwa_source(target: Target, v: u32, scalar: bool, lits: &mut LitReader<'_>, warn: &mut String) -> Option<Operand> {
    if !scalar {
        return Some(Operand::Reg(Reg { class: RegClass::Vgpr, index: v as u16, dwords: 1 }));
    }
    if v == 255 {
        return None;
    }
    operand::decode_operand(target, Kind::VSrc(crate::ValType::B32), v, 0, lits, warn).ok()
}

impl Instruction {
    /// The SDWA controls of a GFX9 SDWA instruction (`None` for every other instruction).
    pub fn sdwa(&self) -> Option<Sdwa> {
        if self.format() != Format::Sdwa {
            return None;
        }
        Some(controls(self.word as u32, (self.word >> 32) as u32))
    }

    /// SDWA neg/abs/clamp/omod, as [`Instruction::source_mods`] reports them.
    pub(crate) fn sdwa_mods(&self) -> Modifiers {
        let w1 = (self.word >> 32) as u32;
        let b = |i: u32| ((w1 >> i) & 1) as u8;
        // A compare's bits 15:8 are its destination.
        let vopc = is_vopc(self.word as u32);
        Modifiers {
            neg: b(20) | b(28) << 1,
            abs: b(21) | b(29) << 1,
            clamp: !vopc && b(13) == 1,
            omod: if vopc { 0 } else { ((w1 >> 14) & 3) as u8 },
            ..Default::default()
        }
    }

    /// LLVM's text of an SDWA instruction.
    pub(crate) fn sdwa_text(&self) -> Option<String> {
        let s = self.sdwa()?;
        let m = self.sdwa_mods();
        let mut out = String::from(self.mnemonic());
        let mut first = true;
        for o in self.operands() {
            let mut t = String::new();
            operand::format_operand(&mut t, self.target, o.spec.kind, &o.value, tables::names(self.target));
            if let Some(k) = source_index(o.spec.field) {
                if s.src_sext[k] {
                    t = format!("sext({t})");
                }
                t = operand::with_src_mods(&t, &o.value, (m.neg >> k & 1 == 1, m.abs >> k & 1 == 1));
            }
            out.push_str(if first { " " } else { ", " });
            out.push_str(&t);
            first = false;
        }
        if m.clamp {
            out.push_str(" clamp");
        }
        let mut warning = None;
        if let Some(o) = self.operands().find(|o| std::ptr::eq(o.spec, &VOPC_SDST)) {
            // A compare's misaligned SGPR or TTMP pair: LLVM names the encoded register.
            let idx = match o.value {
                Operand::Reg(Reg { class: RegClass::Sgpr, .. }) => Some(("SGPR", o.raw)),
                Operand::Reg(Reg { class: RegClass::Ttmp, .. }) => Some(("TTMP", o.raw.wrapping_sub(108))),
                _ => None,
            };
            if let Some((class, i)) = idx.filter(|(_, i)| i % 2 == 1) {
                warning = Some(format!(" ; Warning: {class}_64: scalar reg isn't aligned {i}"));
            }
        }
        match m.omod {
            1 => out.push_str(" mul:2"),
            2 => out.push_str(" mul:4"),
            3 => out.push_str(" div:2"),
            _ => {}
        }
        if !is_vopc(self.word as u32) && !pair_dst(self.mnemonic()) {
            out.push_str(&format!(" dst_sel:{} dst_unused:{}", SEL_NAMES[s.dst_sel as usize], UNUSED_NAMES[s.dst_unused as usize]));
        }
        out.push_str(&format!(" src0_sel:{}", SEL_NAMES[s.src_sel[0] as usize]));
        if self.operands().any(|o| o.spec.field == Field::Vsrc1) {
            out.push_str(&format!(" src1_sel:{}", SEL_NAMES[s.src_sel[1] as usize]));
        }
        out.extend(warning);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_and_places_sub_dwords() {
        let s = |dst_sel, dst_unused, sel0, sext0| Sdwa { dst_sel, dst_unused, src_sel: [sel0, 6], src_sext: [sext0, false] };
        // Sources: BYTE_1 of 0x1234_80ff is 0x80; sign-extended 0xffff_ff80. WORD_1 is 0x1234.
        assert_eq!(s(6, 0, 1, false).select(0, 0x1234_80ff), 0x80);
        assert_eq!(s(6, 0, 1, true).select(0, 0x1234_80ff), 0xffff_ff80);
        assert_eq!(s(6, 0, 5, false).select(0, 0x1234_80ff), 0x1234);
        assert_eq!(s(6, 0, 6, true).select(0, 0x1234_80ff), 0x1234_80ff);
        // Destinations: WORD_1 with padding, preserving, sign-extending (bit 15 of the result set).
        assert_eq!(s(5, 0, 6, false).place(0xaaaa_bbbb, 0x0001_8765), 0x8765_0000);
        assert_eq!(s(5, 2, 6, false).place(0xaaaa_bbbb, 0x0001_8765), 0x8765_bbbb);
        assert_eq!(s(4, 1, 6, false).place(0xaaaa_bbbb, 0x0001_8765), 0xffff_8765);
        assert_eq!(s(1, 1, 6, false).place(0, 0x7f), 0x7f00);
        assert_eq!(s(1, 1, 6, false).place(0, 0x80), 0xffff_8000);
        assert_eq!(s(6, 0, 6, false).place(0xaaaa_bbbb, 0x1234_5678), 0x1234_5678);
    }
}

/// SDWA src1 as a source of `ty` (a static shape for each type an SDWA src1 can take).
fn vsrc1_spec(ty: crate::ValType) -> &'static crate::OperandSpec {
    use crate::ValType::*;
    const fn at(ty: crate::ValType) -> crate::OperandSpec {
        crate::OperandSpec { field: Field::Vsrc1, kind: Kind::VSrc(ty) }
    }
    static SPECS: [crate::OperandSpec; 5] = [at(B32), at(B16), at(I16), at(F16), at(BF16)];
    match ty {
        B16 => &SPECS[1],
        I16 => &SPECS[2],
        F16 => &SPECS[3],
        BF16 => &SPECS[4],
        _ => &SPECS[0],
    }
}
