//! GFX9 (gfx942/gfx950) MUBUF: untyped buffer loads, stores and atomics through a 128-bit buffer
//! resource (V#) in four SGPRs, and the cache-control forms `buffer_wbl2` / `buffer_inv`.
//!
//! Encoding (64 bits): offset[11:0], offen 12, idxen 13, sc0 14, sc1 15, lds 16, nt 17, op[24:18],
//! 0x38 in [31:26]; vaddr[39:32], vdata[47:40], srsrc[52:48] (SGPR 4 * value), acc 55 (AGPR
//! data), soffset[63:56] (a scalar source). Bits 25, 53 and 54 are ignored by LLVM.
//!
//! The opcode list ([`OPS`]) is data taken from LLVM's disassembler (each opcode's mnemonic and
//! data width), checked opcode by opcode and on random words against LLVM by
//! crates/isa/tests/mubuf_decode.rs. MTBUF (typed buffers, 0x3a) is not modelled.

use crate::operand::{self, LitReader, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{Family, Format, Kind, OpInfo, ValType};
use crate::{tables, DecodeError, Instruction, Modifiers, Target};
use std::sync::OnceLock;

/// What a MUBUF opcode does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufKind {
    /// An untyped load: the data width comes from the mnemonic (as for `global_load_*`).
    Load,
    Store,
    /// Loads and stores converted through the descriptor's data/number format.
    LoadFormat,
    StoreFormat,
    /// An atomic read-modify-write; sc0 returns the pre-op value in vdata.
    Atomic,
    /// `buffer_wbl2` / `buffer_inv`: cache write-back / invalidate, no data and no address.
    CacheControl,
}

/// The opcode may use the lds bit (load into LDS instead of VGPRs): on both targets, on
/// gfx950 only, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LdsForm {
    No,
    Both,
    Gfx950,
}

/// One MUBUF opcode: (opcode, mnemonic, kind, vdata dwords, lds form, gfx950 only).
pub type BufOp = (u16, &'static str, BufKind, u8, LdsForm, bool);

use BufKind::*;
use LdsForm as L;

/// Every MUBUF opcode LLVM 22 decodes for gfx942 and gfx950.
pub const OPS: &[BufOp] = &[
    (0x00, "buffer_load_format_x", LoadFormat, 1, L::Both, false),
    (0x01, "buffer_load_format_xy", LoadFormat, 2, L::No, false),
    (0x02, "buffer_load_format_xyz", LoadFormat, 3, L::No, false),
    (0x03, "buffer_load_format_xyzw", LoadFormat, 4, L::No, false),
    (0x04, "buffer_store_format_x", StoreFormat, 1, L::No, false),
    (0x05, "buffer_store_format_xy", StoreFormat, 2, L::No, false),
    (0x06, "buffer_store_format_xyz", StoreFormat, 3, L::No, false),
    (0x07, "buffer_store_format_xyzw", StoreFormat, 4, L::No, false),
    (0x08, "buffer_load_format_d16_x", LoadFormat, 1, L::No, false),
    (0x09, "buffer_load_format_d16_xy", LoadFormat, 1, L::No, false),
    (0x0a, "buffer_load_format_d16_xyz", LoadFormat, 2, L::No, false),
    (0x0b, "buffer_load_format_d16_xyzw", LoadFormat, 2, L::No, false),
    (0x0c, "buffer_store_format_d16_x", StoreFormat, 1, L::No, false),
    (0x0d, "buffer_store_format_d16_xy", StoreFormat, 1, L::No, false),
    (0x0e, "buffer_store_format_d16_xyz", StoreFormat, 2, L::No, false),
    (0x0f, "buffer_store_format_d16_xyzw", StoreFormat, 2, L::No, false),
    (0x10, "buffer_load_ubyte", Load, 1, L::Both, false),
    (0x11, "buffer_load_sbyte", Load, 1, L::Both, false),
    (0x12, "buffer_load_ushort", Load, 1, L::Both, false),
    (0x13, "buffer_load_sshort", Load, 1, L::Both, false),
    (0x14, "buffer_load_dword", Load, 1, L::Both, false),
    (0x15, "buffer_load_dwordx2", Load, 2, L::No, false),
    (0x16, "buffer_load_dwordx3", Load, 3, L::Gfx950, false),
    (0x17, "buffer_load_dwordx4", Load, 4, L::Gfx950, false),
    (0x18, "buffer_store_byte", Store, 1, L::No, false),
    (0x19, "buffer_store_byte_d16_hi", Store, 1, L::No, false),
    (0x1a, "buffer_store_short", Store, 1, L::No, false),
    (0x1b, "buffer_store_short_d16_hi", Store, 1, L::No, false),
    (0x1c, "buffer_store_dword", Store, 1, L::No, false),
    (0x1d, "buffer_store_dwordx2", Store, 2, L::No, false),
    (0x1e, "buffer_store_dwordx3", Store, 3, L::No, false),
    (0x1f, "buffer_store_dwordx4", Store, 4, L::No, false),
    (0x20, "buffer_load_ubyte_d16", Load, 1, L::No, false),
    (0x21, "buffer_load_ubyte_d16_hi", Load, 1, L::No, false),
    (0x22, "buffer_load_sbyte_d16", Load, 1, L::No, false),
    (0x23, "buffer_load_sbyte_d16_hi", Load, 1, L::No, false),
    (0x24, "buffer_load_short_d16", Load, 1, L::No, false),
    (0x25, "buffer_load_short_d16_hi", Load, 1, L::No, false),
    (0x26, "buffer_load_format_d16_hi_x", LoadFormat, 1, L::No, false),
    (0x27, "buffer_store_format_d16_hi_x", StoreFormat, 1, L::No, false),
    (0x28, "buffer_wbl2", CacheControl, 0, L::No, false),
    (0x29, "buffer_inv", CacheControl, 0, L::No, false),
    (0x40, "buffer_atomic_swap", Atomic, 1, L::No, false),
    (0x41, "buffer_atomic_cmpswap", Atomic, 2, L::No, false),
    (0x42, "buffer_atomic_add", Atomic, 1, L::No, false),
    (0x43, "buffer_atomic_sub", Atomic, 1, L::No, false),
    (0x44, "buffer_atomic_smin", Atomic, 1, L::No, false),
    (0x45, "buffer_atomic_umin", Atomic, 1, L::No, false),
    (0x46, "buffer_atomic_smax", Atomic, 1, L::No, false),
    (0x47, "buffer_atomic_umax", Atomic, 1, L::No, false),
    (0x48, "buffer_atomic_and", Atomic, 1, L::No, false),
    (0x49, "buffer_atomic_or", Atomic, 1, L::No, false),
    (0x4a, "buffer_atomic_xor", Atomic, 1, L::No, false),
    (0x4b, "buffer_atomic_inc", Atomic, 1, L::No, false),
    (0x4c, "buffer_atomic_dec", Atomic, 1, L::No, false),
    (0x4d, "buffer_atomic_add_f32", Atomic, 1, L::No, false),
    (0x4e, "buffer_atomic_pk_add_f16", Atomic, 1, L::No, false),
    (0x4f, "buffer_atomic_add_f64", Atomic, 2, L::No, false),
    (0x50, "buffer_atomic_min_f64", Atomic, 2, L::No, false),
    (0x51, "buffer_atomic_max_f64", Atomic, 2, L::No, false),
    (0x52, "buffer_atomic_pk_add_bf16", Atomic, 1, L::No, true),
    (0x60, "buffer_atomic_swap_x2", Atomic, 2, L::No, false),
    (0x61, "buffer_atomic_cmpswap_x2", Atomic, 4, L::No, false),
    (0x62, "buffer_atomic_add_x2", Atomic, 2, L::No, false),
    (0x63, "buffer_atomic_sub_x2", Atomic, 2, L::No, false),
    (0x64, "buffer_atomic_smin_x2", Atomic, 2, L::No, false),
    (0x65, "buffer_atomic_umin_x2", Atomic, 2, L::No, false),
    (0x66, "buffer_atomic_smax_x2", Atomic, 2, L::No, false),
    (0x67, "buffer_atomic_umax_x2", Atomic, 2, L::No, false),
    (0x68, "buffer_atomic_and_x2", Atomic, 2, L::No, false),
    (0x69, "buffer_atomic_or_x2", Atomic, 2, L::No, false),
    (0x6a, "buffer_atomic_xor_x2", Atomic, 2, L::No, false),
    (0x6b, "buffer_atomic_inc_x2", Atomic, 2, L::No, false),
    (0x6c, "buffer_atomic_dec_x2", Atomic, 2, L::No, false),
];

/// The MUBUF opcode's entry on `target`.
pub fn by_opcode(target: Target, opcode: u16) -> Option<&'static BufOp> {
    OPS.iter().find(|o| o.0 == opcode && (!o.5 || target == Target::Gfx950))
}

/// The decoded fields of a MUBUF instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mubuf {
    pub kind: BufKind,
    /// Data (and, for returning atomics, destination) registers; `None` for the lds form and the
    /// cache-control forms. AGPRs with the acc bit.
    pub vdata: Option<Reg>,
    /// Address VGPRs: the index (idxen) then the offset (offen); `None` when neither is set.
    pub vaddr: Option<Reg>,
    /// The first SGPR (or TTMP) of the 4-dword resource.
    pub srsrc: Reg,
    /// The scalar offset source (a register or an inline constant).
    pub soffset: Operand,
    /// The unsigned 12-bit instruction offset.
    pub offset: u32,
    pub offen: bool,
    pub idxen: bool,
    pub sc0: bool,
    pub sc1: bool,
    pub nt: bool,
    /// Load into LDS (at M0) instead of VGPRs.
    pub lds: bool,
}

impl Mubuf {
    /// An atomic returns its pre-op value (sc0).
    pub fn returns(&self) -> bool {
        self.kind == BufKind::Atomic && self.sc0
    }
}

fn infos(target: Target) -> &'static [OpInfo] {
    static CELLS: [OnceLock<Vec<OpInfo>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    CELLS[target as usize].get_or_init(|| {
        OPS.iter()
            .map(|o| OpInfo { mnemonic: o.1, sem: crate::SemId::NONE, format: Format::Mubuf, opcode: o.0, operands: &[], unused: &[] })
            .collect()
    })
}

/// The soffset operand's kind: LLVM prints it as a 32-bit scalar source with float constants.
const SOFFSET: Kind = Kind::SSrc(ValType::F32);

/// Decodes a GFX9 MUBUF word at `bytes[offset..]` (called by [`crate::decode`]).
pub(crate) fn decode_mubuf(target: Target, bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    if inst.len() < 8 {
        return Err(DecodeError::Truncated { offset, bytes: raw(8) });
    }
    let w = u64::from_le_bytes(inst[..8].try_into().unwrap_or([0; 8]));
    let invalid = || DecodeError::Invalid { offset, bytes: raw(8) };
    let opcode = ((w >> 18) & 0x7f) as u16;
    let Some(idx) = OPS.iter().position(|o| o.0 == opcode && (!o.5 || target == Target::Gfx950)) else {
        return Err(invalid());
    };
    let m = fields(target, w).ok_or_else(invalid)?;
    // LLVM 22 crashes on a literal soffset (255): its text cannot be checked.
    if (w >> 56) == 255 && m.kind != BufKind::CacheControl {
        return Err(DecodeError::Unsupported { format: Format::Mubuf, offset, bytes: raw(8) });
    }
    Ok(Instruction {
        target,
        info: &infos(target)[idx],
        offset,
        len: 8,
        literal: None,
        mods: Modifiers::default(),
        cache: crate::CachePolicy { bits: m.sc0 as u16 | (m.sc1 as u16) << 1 | (m.nt as u16) << 2 },
        mem_offset: m.offset as i32,
        word: w as crate::spec::Word,
        operands: [None; MAX_OPERANDS],
    })
}

/// The fields of the MUBUF word `w`, or `None` when LLVM rejects it.
fn fields(target: Target, w: u64) -> Option<Mubuf> {
    let (_, _, kind, dwords, lds_form, _) = *by_opcode(target, ((w >> 18) & 0x7f) as u16)?;
    let bit = |i: u32| (w >> i) & 1 == 1;
    let (offen, idxen, lds, acc) = (bit(12), bit(13), bit(16), bit(55));
    let lds_ok = match lds_form {
        LdsForm::No => false,
        LdsForm::Both => true,
        LdsForm::Gfx950 => target == Target::Gfx950,
    };
    // The lds form has no data registers, so no AGPR data either.
    if lds && (!lds_ok || acc) {
        return None;
    }
    if kind == CacheControl {
        // No address, data or resource: LLVM checks only these bits.
        if offen || idxen || lds || acc {
            return None;
        }
        let none = Reg { class: RegClass::Sgpr, index: 0, dwords: 4 };
        let (sc0, sc1) = (bit(14), bit(15));
        let soffset = Operand::IntConst(0);
        return Some(Mubuf { kind, vdata: None, vaddr: None, srsrc: none, soffset, offset: 0, offen, idxen, sc0, sc1, nt: false, lds });
    }
    let srsrc_field = ((w >> 48) & 0x1f) as u16 * 4;
    let srsrc = match srsrc_field {
        0..=103 => Reg { class: RegClass::Sgpr, index: srsrc_field, dwords: 4 },
        108..=123 => Reg { class: RegClass::Ttmp, index: srsrc_field - 108, dwords: 4 },
        _ => return None,
    };
    let mut lits = LitReader::new(&[], 8);
    let mut warn = String::new();
    let soffset = ((w >> 56) & 0xff) as u32;
    let soffset = if soffset == 255 {
        Operand::Literal { value: 0, wide: false }
    } else {
        operand::decode_operand(target, SOFFSET, soffset, w as crate::spec::Word, &mut lits, &mut warn).ok()?
    };
    let addr_dwords = offen as u8 + idxen as u8;
    let vaddr = (addr_dwords > 0).then(|| Reg { class: RegClass::Vgpr, index: ((w >> 32) & 0xff) as u16, dwords: addr_dwords });
    let vdata = if kind == CacheControl || lds {
        None
    } else {
        match operand::decode_operand(target, Kind::FlatData { dwords }, ((w >> 40) & 0xff) as u32, w as crate::spec::Word, &mut lits, &mut warn).ok()? {
            Operand::Reg(r) => Some(r),
            _ => return None,
        }
    };
    Some(Mubuf {
        kind,
        vdata,
        vaddr,
        srsrc,
        soffset,
        offset: (w & 0xfff) as u32,
        offen,
        idxen,
        sc0: bit(14),
        sc1: bit(15),
        nt: bit(17),
        lds,
    })
}

impl Instruction {
    /// The fields of a GFX9 MUBUF instruction (`None` for every other instruction).
    pub fn mubuf(&self) -> Option<Mubuf> {
        if self.format() != Format::Mubuf || self.target.family() != Family::Gfx9 {
            return None;
        }
        fields(self.target, self.word as u64)
    }

    /// LLVM's text of a MUBUF instruction.
    pub(crate) fn mubuf_text(&self) -> Option<String> {
        let m = self.mubuf()?;
        let names = tables::names(self.target);
        let mut out = String::from(self.mnemonic());
        if m.kind != CacheControl {
            let mut ops: Vec<String> = Vec::new();
            if let Some(r) = m.vdata {
                let mut t = String::new();
                operand::format_operand(&mut t, self.target, Kind::FlatData { dwords: r.dwords }, &Operand::Reg(r), names);
                ops.push(t);
            }
            let mut t = String::new();
            match m.vaddr {
                Some(r) => operand::format_operand(&mut t, self.target, Kind::VReg { dwords: r.dwords }, &Operand::Reg(r), names),
                None => t.push_str("off"),
            }
            ops.push(t);
            let mut t = String::new();
            operand::format_reg(&mut t, m.srsrc);
            ops.push(t);
            let mut t = String::new();
            operand::format_operand(&mut t, self.target, SOFFSET, &m.soffset, names);
            ops.push(t);
            out.push(' ');
            out.push_str(&ops.join(", "));
            if m.idxen {
                out.push_str(" idxen");
            }
            if m.offen {
                out.push_str(" offen");
            }
            if m.offset != 0 {
                out.push_str(&format!(" offset:{}", m.offset));
            }
        }
        if m.sc0 {
            out.push_str(" sc0");
        }
        if m.nt && m.kind != CacheControl {
            out.push_str(" nt");
        }
        if m.sc1 {
            out.push_str(" sc1");
        }
        if m.lds {
            out.push_str(" lds");
        }
        Some(out)
    }
}

