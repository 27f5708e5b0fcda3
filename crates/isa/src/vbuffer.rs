//! gfx1250 VBUFFER: untyped buffer loads, stores and atomics through a 128-bit buffer resource
//! (V#) in four SGPRs. (gfx1250 has no typed `*_format_*` buffer forms.)
//!
//! Encoding (96 bits): soffset[6:0] (a 7-bit scalar register: SGPR, vcc, TTMP, null, m0, exec),
//! nv 7, op[21:14], tfe 22, 0b110001 in [31:26]; vdata[39:32], rsrc[49:41] (a scalar register
//! number: the tuple starts at it rounded down to 4, LLVM warns when it is not aligned; 124 is
//! `null`), scope[51:50], th[54:52] (the VFLAT cache-policy field), offen 62, idxen 63;
//! vaddr[71:64], offset[94:72] (unsigned; bit 95 must be clear). Bits 13:8, 25:23, 40 and 61:55
//! (MTBUF's format) are ignored by LLVM.
//!
//! The opcode list ([`OPS`]) is data read from LLVM's disassembler and checked against it,
//! opcode by opcode and on random words, by crates/isa/tests/vbuffer_decode.rs.

use crate::cpol::{Scope, VfCpol};
use crate::operand::{self, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Format, Kind, OpInfo};
use crate::{tables, DecodeError, Instruction, Modifiers, Target};
use std::sync::OnceLock;

/// What a VBUFFER opcode does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VbufKind {
    Load,
    Store,
    /// Read-modify-write; th bit 0 (TH_ATOMIC_RETURN) returns the pre-op value in vdata.
    Atomic,
}

use VbufKind::*;

/// (opcode, mnemonic, kind, vdata dwords without tfe).
pub const OPS: &[(u16, &str, VbufKind, u8)] = &[
    (0x10, "buffer_load_u8", Load, 1),
    (0x11, "buffer_load_i8", Load, 1),
    (0x12, "buffer_load_u16", Load, 1),
    (0x13, "buffer_load_i16", Load, 1),
    (0x14, "buffer_load_b32", Load, 1),
    (0x15, "buffer_load_b64", Load, 2),
    (0x16, "buffer_load_b96", Load, 3),
    (0x17, "buffer_load_b128", Load, 4),
    (0x18, "buffer_store_b8", Store, 1),
    (0x19, "buffer_store_b16", Store, 1),
    (0x1a, "buffer_store_b32", Store, 1),
    (0x1b, "buffer_store_b64", Store, 2),
    (0x1c, "buffer_store_b96", Store, 3),
    (0x1d, "buffer_store_b128", Store, 4),
    (0x1e, "buffer_load_d16_u8", Load, 1),
    (0x1f, "buffer_load_d16_i8", Load, 1),
    (0x20, "buffer_load_d16_b16", Load, 1),
    (0x21, "buffer_load_d16_hi_u8", Load, 1),
    (0x22, "buffer_load_d16_hi_i8", Load, 1),
    (0x23, "buffer_load_d16_hi_b16", Load, 1),
    (0x24, "buffer_store_d16_hi_b8", Store, 1),
    (0x25, "buffer_store_d16_hi_b16", Store, 1),
    (0x33, "buffer_atomic_swap_b32", Atomic, 1),
    (0x34, "buffer_atomic_cmpswap_b32", Atomic, 2),
    (0x35, "buffer_atomic_add_u32", Atomic, 1),
    (0x36, "buffer_atomic_sub_u32", Atomic, 1),
    (0x37, "buffer_atomic_sub_clamp_u32", Atomic, 1),
    (0x38, "buffer_atomic_min_i32", Atomic, 1),
    (0x39, "buffer_atomic_min_u32", Atomic, 1),
    (0x3a, "buffer_atomic_max_i32", Atomic, 1),
    (0x3b, "buffer_atomic_max_u32", Atomic, 1),
    (0x3c, "buffer_atomic_and_b32", Atomic, 1),
    (0x3d, "buffer_atomic_or_b32", Atomic, 1),
    (0x3e, "buffer_atomic_xor_b32", Atomic, 1),
    (0x3f, "buffer_atomic_inc_u32", Atomic, 1),
    (0x40, "buffer_atomic_dec_u32", Atomic, 1),
    (0x41, "buffer_atomic_swap_b64", Atomic, 2),
    (0x42, "buffer_atomic_cmpswap_b64", Atomic, 4),
    (0x43, "buffer_atomic_add_u64", Atomic, 2),
    (0x44, "buffer_atomic_sub_u64", Atomic, 2),
    (0x45, "buffer_atomic_min_i64", Atomic, 2),
    (0x46, "buffer_atomic_min_u64", Atomic, 2),
    (0x47, "buffer_atomic_max_i64", Atomic, 2),
    (0x48, "buffer_atomic_max_u64", Atomic, 2),
    (0x49, "buffer_atomic_and_b64", Atomic, 2),
    (0x4a, "buffer_atomic_or_b64", Atomic, 2),
    (0x4b, "buffer_atomic_xor_b64", Atomic, 2),
    (0x4c, "buffer_atomic_inc_u64", Atomic, 2),
    (0x4d, "buffer_atomic_dec_u64", Atomic, 2),
    (0x50, "buffer_atomic_cond_sub_u32", Atomic, 1),
    (0x51, "buffer_atomic_min_num_f32", Atomic, 1),
    (0x52, "buffer_atomic_max_num_f32", Atomic, 1),
    (0x55, "buffer_atomic_add_f64", Atomic, 2),
    (0x56, "buffer_atomic_add_f32", Atomic, 1),
    (0x59, "buffer_atomic_pk_add_f16", Atomic, 1),
    (0x5a, "buffer_atomic_pk_add_bf16", Atomic, 1),
    (0x5b, "buffer_atomic_min_num_f64", Atomic, 2),
    (0x5c, "buffer_atomic_max_num_f64", Atomic, 2),
];

/// Fixed bits of the format: 0b110001 in bits 31:26.
pub const MASK: u32 = 0xfc00_0000;
pub const MATCH: u32 = 0xc400_0000;

/// The decoded fields of a VBUFFER instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vbuffer {
    pub kind: VbufKind,
    /// Data registers (the destination of loads and returning atomics), tfe dword included.
    pub vdata: Reg,
    /// Address VGPRs: the index (idxen) then the offset (offen); `None` when neither is set.
    pub vaddr: Option<Reg>,
    /// The 4-dword resource (`None`: the `null` resource).
    pub rsrc: Option<Reg>,
    /// The scalar offset register (`None`: `null`, which reads 0).
    pub soffset: Option<Reg>,
    /// Unsigned 23-bit instruction offset.
    pub offset: u32,
    pub offen: bool,
    pub idxen: bool,
    pub tfe: bool,
    pub nv: bool,
    /// th and scope (bits 54:50), as the VFLAT forms hold them.
    pub cpol: VfCpol,
}

impl Vbuffer {
    /// An atomic returns its pre-op value (th bit 0).
    pub fn returns(&self) -> bool {
        self.kind == Atomic && self.cpol.th & 1 == 1
    }
}

fn infos() -> &'static [OpInfo] {
    static CELL: OnceLock<Vec<OpInfo>> = OnceLock::new();
    CELL.get_or_init(|| OPS.iter().map(|o| OpInfo { mnemonic: o.1, sem: crate::SemId::NONE, format: Format::Vbuffer, opcode: o.0, operands: &[], unused: &[] }).collect())
}

/// A 7-bit scalar register field (soffset): SGPRs, vcc, TTMPs, null, m0, exec.
fn scalar7(v: u32) -> Option<Reg> {
    let r = |class, index: u32| Reg { class, index: index as u16, dwords: 1 };
    Some(match v {
        0..=105 => r(RegClass::Sgpr, v),
        106 | 107 => r(RegClass::Vcc, v - 106),
        108..=123 => r(RegClass::Ttmp, v - 108),
        124 => r(RegClass::Null, 0),
        125 => r(RegClass::M0, 0),
        126 | 127 => r(RegClass::Exec, v - 126),
        _ => return None,
    })
}

/// The first 96 bits of `inst` (the instruction at `offset`) as one little-endian word.
pub(crate) fn word96(inst: &[u8], offset: usize) -> Result<u128, DecodeError> {
    let b = inst.get(..12).ok_or_else(|| DecodeError::Truncated { offset, bytes: inst.to_vec() })?;
    Ok(b.iter().enumerate().fold(0u128, |w, (i, &x)| w | (x as u128) << (8 * i)))
}

/// Decodes a gfx1250 VBUFFER word at `bytes[offset..]` (called by [`crate::decode`]).
pub(crate) fn decode_vbuffer(bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    let w = word96(inst, offset)?;
    let invalid = || DecodeError::Invalid { offset, bytes: raw(12) };
    let opcode = ((w >> 14) & 0xff) as u16;
    let idx = OPS.iter().position(|o| o.0 == opcode).ok_or_else(invalid)?;
    fields(w).ok_or_else(invalid)?;
    Ok(Instruction {
        target: Target::Gfx1250,
        info: &infos()[idx],
        offset,
        len: 12,
        literal: None,
        mods: Modifiers::default(),
        cache: Default::default(),
        mem_offset: ((w >> 72) & 0x7f_ffff) as i32,
        word: w,
        operands: [None; MAX_OPERANDS],
    })
}

fn fields(w: u128) -> Option<Vbuffer> {
    let opcode = ((w >> 14) & 0xff) as u16;
    let &(_, _, kind, dwords) = OPS.iter().find(|o| o.0 == opcode)?;
    let bit = |i: u32| (w >> i) & 1 == 1;
    if bit(95) {
        return None;
    }
    let tfe = bit(22);
    if tfe && kind == Atomic {
        return None;
    }
    let vdata = Reg { class: RegClass::Vgpr, index: ((w >> 32) & 0xff) as u16, dwords: dwords + tfe as u8 };
    let rsrc = match ((w >> 41) & 0x1ff) as u16 {
        v @ 0..=103 => Some(Reg { class: RegClass::Sgpr, index: v & !3, dwords: 4 }),
        v @ 108..=123 => Some(Reg { class: RegClass::Ttmp, index: (v - 108) & !3, dwords: 4 }),
        124 => None,
        _ => return None,
    };
    let soffset = scalar7((w & 0x7f) as u32).filter(|r| r.class != RegClass::Null);
    let (offen, idxen) = (bit(62), bit(63));
    let n = offen as u8 + idxen as u8;
    let vaddr = (n > 0).then(|| Reg { class: RegClass::Vgpr, index: ((w >> 64) & 0xff) as u16, dwords: n });
    let c = ((w >> 50) & 0x1f) as u32;
    let scope = match c & 3 {
        0 => Scope::Cu,
        1 => Scope::Se,
        2 => Scope::Dev,
        _ => Scope::Sys,
    };
    Some(Vbuffer {
        kind,
        vdata,
        vaddr,
        rsrc,
        soffset,
        offset: ((w >> 72) & 0x7f_ffff) as u32,
        offen,
        idxen,
        tfe,
        nv: bit(7),
        cpol: VfCpol { th: (c >> 2) as u8, scope, atomic: kind == Atomic },
    })
}

impl Instruction {
    /// The fields of a gfx1250 VBUFFER instruction (`None` for every other instruction).
    pub fn vbuffer(&self) -> Option<Vbuffer> {
        if self.format() != Format::Vbuffer {
            return None;
        }
        fields(self.word)
    }

    /// LLVM's text of a VBUFFER instruction.
    pub(crate) fn vbuffer_text(&self) -> Option<String> {
        let b = self.vbuffer()?;
        let names = tables::names(self.target);
        let mut ops: Vec<String> = Vec::new();
        let mut t = String::new();
        operand::format_operand(&mut t, self.target, Kind::VReg { dwords: b.vdata.dwords }, &Operand::Reg(b.vdata), names);
        ops.push(t);
        let mut t = String::new();
        match b.vaddr {
            Some(r) => operand::format_operand(&mut t, self.target, Kind::VReg { dwords: r.dwords }, &Operand::Reg(r), names),
            None => t.push_str("off"),
        }
        ops.push(t);
        let mut t = String::new();
        match b.rsrc {
            Some(r) => operand::format_reg(&mut t, r),
            None => t.push_str("null"),
        }
        ops.push(t);
        let mut t = String::new();
        operand::format_reg(&mut t, scalar7((self.word & 0x7f) as u32)?);
        ops.push(t);
        let mut out = format!("{} {}", self.mnemonic(), ops.join(", "));
        if b.idxen {
            out.push_str(" idxen");
        }
        if b.offen {
            out.push_str(" offen");
        }
        if b.offset != 0 {
            out.push_str(&format!(" offset:{}", b.offset));
        }
        let cpol_kind = match b.kind {
            Atomic => Kind::VfAtomicCachePolicy,
            Store => Kind::VfCachePolicy { store: true },
            Load => Kind::VfCachePolicy { store: false },
        };
        let mut t = String::new();
        operand::format_operand(&mut t, self.target, cpol_kind, &Operand::Imm(((self.word >> 50) & 0x1f) as u32), names);
        if !t.is_empty() {
            out.push(' ');
            out.push_str(&t);
        }
        if b.nv {
            out.push_str(" nv");
        }
        if b.tfe {
            out.push_str(" tfe");
        }
        let raw = ((self.word >> 41) & 0x1ff) as u32;
        let (class, idx) = if raw >= 108 { ("TTMP", raw.wrapping_sub(108)) } else { ("SGPR", raw) };
        if raw != 124 && idx % 4 != 0 {
            out.push_str(&format!(" ; Warning: {class}_128: scalar reg isn't aligned {idx}"));
        }
        Some(out)
    }
}
