//! Operands: decoding an encoding field under an operand kind, and printing it as LLVM does.
//!
//! Depends only on `spec`; the table generator (hx-isa-gen) uses it to fit operand kinds.

use super::spec::{
    Family, Imm16, KImmStyle, Kind, OpInfo, OperandSpec, SrcMods, Target, Unused, ValType, Word,
};
use std::fmt::Write as _;

/// Register files and named registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegClass {
    Sgpr,
    Vgpr,
    Agpr,
    Ttmp,
    /// `vcc_lo` (index 0) / `vcc_hi` (index 1) / `vcc` (2 dwords).
    Vcc,
    Exec,
    M0,
    Null,
    FlatScratch,
    XnackMask,
    /// `src_flat_scratch_base_lo/hi`.
    FlatScratchBase,
    SharedBase,
    SharedLimit,
    PrivateBase,
    PrivateLimit,
    PopsExitingWaveId,
    /// `src_vccz`, `src_execz`, `src_scc`: read-only condition sources.
    Vccz,
    Execz,
    Scc,
    /// `src_lds_direct` (printed with LLVM's invalid-register note where the class forbids it).
    LdsDirect,
}

/// A register operand: class, index of the first 32-bit register, count of 32-bit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: RegClass,
    pub index: u16,
    pub dwords: u8,
}

/// A decoded operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg),
    /// Inline integer constant, -16..=64.
    IntConst(i8),
    /// Inline float constant: the encoding 240..=248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi)).
    FloatConst(u8),
    /// A literal as encoded: `wide` is the 64-bit literal form (gfx1250, encoding 254).
    Literal {
        value: u64,
        wide: bool,
    },
    /// A raw immediate field.
    Imm(u32),
    /// An implicit operand (printed from its kind).
    Implicit,
}

/// Why an operand field does not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandError {
    /// The field value is not valid for the operand.
    Invalid,
    /// The literal runs past the end of the input.
    Truncated,
    /// A valid encoding this crate does not model yet.
    Unsupported,
}

/// Reads the literal that follows the instruction's fixed dwords. LLVM reads it once, at the
/// first operand that needs it, and every later literal operand shares it.
#[derive(Debug, Clone)]
pub struct LitReader<'a> {
    pub bytes: &'a [u8],
    /// Byte position of the literal (the size of the fixed part).
    pub at: usize,
    /// The literal once read: (value, wide).
    pub lit: Option<(u64, bool)>,
    /// A mandatory 32-bit literal (KImm) operand has been read.
    pub kimm: bool,
}

impl<'a> LitReader<'a> {
    pub fn new(bytes: &'a [u8], at: usize) -> LitReader<'a> {
        LitReader {
            bytes,
            at,
            lit: None,
            kimm: false,
        }
    }

    /// Bytes the literal adds to the instruction.
    pub fn extra_len(&self) -> usize {
        match self.lit {
            None => 0,
            Some((_, false)) => 4,
            Some((_, true)) => 8,
        }
    }

    pub(crate) fn word(&self, i: usize) -> Option<u32> {
        let p = self.at + 4 * i;
        let b = self.bytes.get(p..p + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn read(&mut self, wide: bool) -> Result<(u64, bool), OperandError> {
        if let Some(l) = self.lit {
            return Ok(l);
        }
        let lo = self.word(0).ok_or(OperandError::Truncated)?;
        let l = if wide {
            let hi = self.word(1).ok_or(OperandError::Truncated)?;
            ((hi as u64) << 32 | lo as u64, true)
        } else {
            (lo as u64, false)
        };
        self.lit = Some(l);
        Ok(l)
    }
}

/// Decodes a scalar register/constant encoding (SSRC, 8 bits) or a scalar destination (7 bits).
/// `dst` restricts to what a destination may name.
fn decode_scalar(
    target: Target,
    v: u32,
    dwords: u8,
    ty: Option<ValType>,
    lits: &mut LitReader<'_>,
    warn: &mut String,
) -> Result<Operand, OperandError> {
    let fam = target.family();
    let wide = dwords >= 2;
    let reg = |class, index: u32, dwords| {
        Operand::Reg(Reg {
            class,
            index: index as u16,
            dwords,
        })
    };
    let max_sgpr = match fam {
        Family::Gfx12_5 => 105,
        Family::Gfx9 => 101,
    };
    let align = |class_name: &str, idx: u32, warn: &mut String| -> u32 {
        let a = match dwords {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        if !idx.is_multiple_of(a) {
            let _ = write!(
                warn,
                "Warning: {}_{}: scalar reg isn't aligned {}",
                class_name,
                32 * dwords as u32,
                idx
            );
        }
        idx - idx % a
    };
    if v <= max_sgpr {
        let idx = align("SGPR", v, warn);
        // Tuples wider than a pair may run into the SGPRs behind the last addressable one
        // (GFX9: s[100:103]).
        let tuple_end = match fam {
            Family::Gfx12_5 => max_sgpr,
            Family::Gfx9 => max_sgpr + 2,
        };
        if dwords > 2 && idx + dwords as u32 - 1 > tuple_end {
            return Err(OperandError::Invalid);
        }
        return Ok(reg(RegClass::Sgpr, idx, dwords));
    }
    if (108..=123).contains(&v) {
        let idx = align("TTMP", v - 108, warn);
        if idx + dwords as u32 > 16 {
            return Err(OperandError::Invalid);
        }
        return Ok(reg(RegClass::Ttmp, idx, dwords));
    }
    let lohi = |class, base: u32| -> Result<Operand, OperandError> {
        if dwords > 2 {
            return Err(OperandError::Invalid);
        }
        if wide {
            if v == base {
                Ok(reg(class, 0, dwords))
            } else {
                Err(OperandError::Invalid)
            }
        } else {
            Ok(reg(class, v - base, 1))
        }
    };
    match (fam, v) {
        (Family::Gfx9, 102 | 103) => return lohi(RegClass::FlatScratch, 102),
        (Family::Gfx9, 104 | 105) => return lohi(RegClass::XnackMask, 104),
        (_, 106 | 107) => return lohi(RegClass::Vcc, 106),
        (_, 126 | 127) => return lohi(RegClass::Exec, 126),
        (Family::Gfx12_5, 124) | (Family::Gfx9, 125) => return Ok(reg(RegClass::Null, 0, dwords)),
        (Family::Gfx12_5, 125) | (Family::Gfx9, 124) => {
            return if wide {
                Err(OperandError::Invalid)
            } else {
                Ok(reg(RegClass::M0, 0, 1))
            }
        }
        _ => {}
    }
    let Some(ty) = ty else {
        return Err(OperandError::Invalid);
    };
    match v {
        128..=192 => Ok(Operand::IntConst((v - 128) as i8)),
        193..=208 => Ok(Operand::IntConst(-((v - 192) as i32) as i8)),
        230 => Ok(reg(RegClass::FlatScratchBase, 0, dwords)),
        231 if !wide => Ok(reg(RegClass::FlatScratchBase, 1, 1)),
        235 => Ok(reg(RegClass::SharedBase, 0, dwords)),
        236 => Ok(reg(RegClass::SharedLimit, 0, dwords)),
        237 => Ok(reg(RegClass::PrivateBase, 0, dwords)),
        238 => Ok(reg(RegClass::PrivateLimit, 0, dwords)),
        239 => Ok(reg(RegClass::PopsExitingWaveId, 0, dwords)),
        240..=248 => Ok(Operand::FloatConst(v as u8)),
        251 => Ok(reg(RegClass::Vccz, 0, dwords)),
        252 => Ok(reg(RegClass::Execz, 0, dwords)),
        253 => Ok(reg(RegClass::Scc, 0, dwords)),
        254 => match fam {
            Family::Gfx12_5 => {
                if lits.kimm {
                    return Err(OperandError::Invalid);
                }
                let (value, w) = lits.read(true)?;
                Ok(Operand::Literal { value, wide: w })
            }
            Family::Gfx9 => {
                if wide {
                    Err(OperandError::Invalid)
                } else {
                    Ok(reg(RegClass::LdsDirect, 0, 1))
                }
            }
        },
        255 => {
            let (value, w) = lits.read(false)?;
            Ok(Operand::Literal { value, wide: w })
        }
        _ => {
            let _ = ty;
            Err(OperandError::Invalid)
        }
    }
}

/// A GFX9 MAI matrix operand in a 9-bit source field: 256.. a VGPR tuple (an AGPR tuple when
/// `acc`), else a scalar tuple, inline constant or literal.
fn mai_source(
    target: Target,
    v: u32,
    dwords: u8,
    acc: bool,
    ty: ValType,
    lits: &mut LitReader<'_>,
    warn: &mut String,
) -> Result<Operand, OperandError> {
    if v >= 256 {
        let index = v - 256;
        if acc && index + dwords as u32 > 256 {
            return Err(OperandError::Invalid);
        }
        return Ok(Operand::Reg(Reg {
            class: if acc { RegClass::Agpr } else { RegClass::Vgpr },
            index: index as u16,
            dwords,
        }));
    }
    let op = decode_scalar(target, v, dwords, Some(ty), lits, warn)?;
    // Tuples wider than 64 bits: no special register but null.
    let special = matches!(op, Operand::Reg(r) if !matches!(r.class, RegClass::Sgpr | RegClass::Ttmp | RegClass::Null));
    if dwords > 2 && special {
        return Err(OperandError::Invalid);
    }
    Ok(op)
}

/// A source's text with its VOP3 float modifiers: `|x|`, `-x`, `-|x|`, and `neg(c)` for a
/// negated constant without abs (LLVM's spelling, so that `-1` stays a constant).
pub fn with_src_mods(t: &str, value: &Operand, (neg, abs): (bool, bool)) -> String {
    let mut s = if abs { format!("|{t}|") } else { t.to_string() };
    if neg {
        // lit()/lit64() are expressions in LLVM, not immediates: they take a plain '-'.
        if !abs && !matches!(value, Operand::Reg(_)) && !t.starts_with("lit") {
            s = format!("neg({s})");
        } else {
            s.insert(0, '-');
        }
    }
    s
}

/// Kinds whose field uses the scalar source encodings (where 254/255 select literals).
pub fn scalar_source_kind(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::SSrc(_)
            | Kind::SReg(_)
            | Kind::SSrcM0Space(_)
            | Kind::VSrc(_)
            | Kind::VSrcLo128(_)
            | Kind::VSrcVgpr { .. }
            | Kind::VSrcSgpr { .. }
            | Kind::VSrcM { .. }
            | Kind::VSrcNoConst { .. }
            | Kind::ASrc { .. }
    )
}

/// The (neg, abs) bits of VOP3 source `idx`.
pub fn src_mod_bits(word: Word, idx: u8) -> (bool, bool) {
    if idx > 2 {
        return ((word >> (61 + idx as u32)) & 1 == 1, (word >> (8 + idx as u32)) & 1 == 1);
    }
    // Both in the low 64 bits: a 64-bit shift.
    let w = word as u64;
    let neg = (w >> (61 + idx as u32)) & 1 == 1;
    let abs = (w >> (8 + idx as u32)) & 1 == 1;
    (neg, abs)
}

/// The op_sel bits that hold byte_sel in `Kind::OpSelMasked { byte_sel, .. }`.
pub fn byte_sel_bits(byte_sel: u8) -> u32 {
    match byte_sel {
        1 => 0b0011,
        2 => 0b1100,
        _ => 0,
    }
}

/// The byte selected by an `OpSelMasked` field value (0..=3).
pub fn byte_sel_value(byte_sel: u8, v: u32) -> u8 {
    match byte_sel {
        1 => ((v & 1) << 1 | (v >> 1) & 1) as u8,
        2 => ((v >> 2) & 3) as u8,
        _ => 0,
    }
}

/// The width of a plain VGPR operand kind: one whose field (up to 255) names the VGPR itself,
/// with no other rule.
pub fn plain_vgpr_dwords(kind: Kind) -> Option<u8> {
    match kind {
        Kind::VDst { dwords }
        | Kind::VReg { dwords }
        | Kind::VRegAnyAlign { dwords }
        | Kind::VRegLo128 { dwords }
        | Kind::VDstAv { dwords }
        | Kind::VRegAv { dwords } => Some(dwords),
        _ => None,
    }
}

/// The mask of a plain immediate operand kind: one whose value is its field under the mask.
pub fn plain_imm_mask(kind: Kind) -> Option<u32> {
    match kind {
        Kind::Imm16(_) => Some(0xffff),
        Kind::FlatOff13 | Kind::FlatOff13U => Some(0x1fff),
        Kind::VfOff24
        | Kind::VfCachePolicy { .. }
        | Kind::VfAtomicCachePolicy
        | Kind::SmemOff
        | Kind::Flag(_)
        | Kind::SmemCachePolicy
        | Kind::Omod
        | Kind::OpSel { .. }
        | Kind::OpSelFiBc
        | Kind::DsOffset16
        | Kind::DsOffsetPair
        | Kind::DsSwizzle => Some(u32::MAX),
        _ => None,
    }
}

/// The common operands (VGPRs, aligned SGPRs and SGPR pairs, inline integers, plain
/// immediates) decoded without the general rules of [`decode_operand`], which gives the same
/// value for them; `None`: anything else, decoded by [`decode_operand`].
#[inline(always)]
pub fn quick_operand(fam: Family, kind: Kind, v: u32, word: Word) -> Option<Operand> {
    let max_sgpr = match fam {
        Family::Gfx12_5 => 105,
        Family::Gfx9 => 101,
    };
    let reg = |class, index: u32, dwords: u32| {
        Some(Operand::Reg(Reg {
            class,
            index: index as u16,
            dwords: dwords as u8,
        }))
    };
    // `decode_scalar` for SGPRs that need no alignment note and for inline integers (`consts`:
    // the operand has a value type).
    let scalar = |v: u32, dwords: u32, consts: bool| -> Option<Operand> {
        if v <= max_sgpr {
            if (dwords == 1 || dwords == 2) && v % dwords == 0 {
                return reg(RegClass::Sgpr, v, dwords);
            }
            return None;
        }
        // VCC and EXEC: halves, or the pair at its first encoding.
        let lohi = |class, base: u32| match dwords {
            1 => reg(class, v - base, 1),
            2 if v == base => reg(class, 0, 2),
            _ => None,
        };
        match (fam, v) {
            (_, 108..=123) if (dwords == 1 || dwords == 2) && (v - 108) % dwords == 0 && v - 108 + dwords <= 16 => {
                reg(RegClass::Ttmp, v - 108, dwords)
            }
            (_, 106 | 107) => lohi(RegClass::Vcc, 106),
            (_, 126 | 127) => lohi(RegClass::Exec, 126),
            (Family::Gfx12_5, 124) | (Family::Gfx9, 125) => reg(RegClass::Null, 0, dwords),
            (Family::Gfx12_5, 125) | (Family::Gfx9, 124) if dwords == 1 => reg(RegClass::M0, 0, 1),
            (_, 128..=192) if consts => Some(Operand::IntConst((v - 128) as i8)),
            (_, 193..=208) if consts => Some(Operand::IntConst(-((v - 192) as i32) as i8)),
            _ => None,
        }
    };
    let mods_ok = |idx: u8, mods: SrcMods| {
        let (neg, abs) = src_mod_bits(word, idx);
        !((mods == SrcMods::ModsInvalid && (neg || abs)) || (mods == SrcMods::ModsNegInvalid && neg))
    };
    let vsrc = |ty: ValType| {
        if v >= 256 {
            reg(RegClass::Vgpr, v - 256, ty.dwords())
        } else {
            scalar(v, ty.dwords(), true)
        }
    };
    if let Some(dwords) = plain_vgpr_dwords(kind) {
        return if v <= 255 { reg(RegClass::Vgpr, v, dwords as u32) } else { None };
    }
    if let Some(mask) = plain_imm_mask(kind) {
        return Some(Operand::Imm(v & mask));
    }
    match kind {
        Kind::SDst { dwords } => scalar(v, dwords as u32, false),
        Kind::SBase { dwords } => scalar(2 * v, dwords as u32, false),
        Kind::SSrc(ty) | Kind::SReg(ty) | Kind::SSrcM0Space(ty) => scalar(v, ty.dwords(), true),
        Kind::VSrc(ty) | Kind::VSrcLo128(ty) => vsrc(ty),
        Kind::VSrcM { ty, idx, mods } if mods_ok(idx, mods) => vsrc(ty),
        Kind::Fixed(_) => Some(Operand::Implicit),
        Kind::FlatVaddrG => {
            let off = match fam {
                Family::Gfx9 => (word >> 48) & 0x7f == 0x7f,
                Family::Gfx12_5 => word & 0x7f == 124,
            };
            reg(RegClass::Vgpr, v, if off { 2 } else { 1 })
        }
        Kind::FlatSaddrK { dwords, .. } | Kind::FlatSaddrOpt { dwords, .. } => {
            let off = match fam {
                Family::Gfx9 => 0x7f,
                Family::Gfx12_5 => 124,
            };
            if v == off {
                Some(Operand::Implicit)
            } else {
                scalar(v, dwords as u32, false)
            }
        }
        Kind::VDataRtn { dwords } | Kind::FlatDst { dwords } | Kind::FlatData { dwords } if (word >> 55) & 1 == 0 => {
            reg(RegClass::Vgpr, v, dwords as u32)
        }
        Kind::PkBits { srcs, .. } if v >> srcs == 0 => Some(Operand::Imm(v)),
        _ => None,
    }
}

/// Decodes field value `v` as an operand of kind `kind`. Alignment warnings LLVM prints as a
/// comment are appended to `warn`.
pub fn decode_operand(
    target: Target,
    kind: Kind,
    v: u32,
    word: Word,
    lits: &mut LitReader<'_>,
    warn: &mut String,
) -> Result<Operand, OperandError> {
    match kind {
        Kind::SDst { dwords } => decode_scalar(target, v, dwords, None, lits, warn),
        // An 8-bit destination field: LLVM decodes constants there too (SDstX: the VOP3
        // v_s_* destination; its 7-bit SMEM use never reaches 128).
        Kind::SDstNoM0 { dwords } | Kind::SDst8 { dwords } | Kind::SDstX { dwords, .. } => decode_scalar(
            target,
            v,
            dwords,
            if v >= 128 { Some(ValType::B32) } else { None },
            lits,
            warn,
        ),
        Kind::VDstLo128 { dwords } => {
            if v > 127 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: RegClass::Vgpr,
                index: v as u16,
                dwords,
            }))
        }
        Kind::VSrcLo128(ty) => decode_operand(target, Kind::VSrc(ty), v, word, lits, warn),
        Kind::MaiDst { dwords, .. } => {
            let acc = (word >> 15) & 1 == 1;
            // AGPR tuples end at a255 (VGPR tuples past v255 still print).
            if v > 255 || (acc && v + dwords as u32 > 256) {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: if acc { RegClass::Agpr } else { RegClass::Vgpr },
                index: v as u16,
                dwords,
            }))
        }
        Kind::MaiSrc { dwords, idx } => {
            let acc = (word >> (59 + idx as u32)) & 1 == 1;
            mai_source(target, v, dwords, acc, ValType::B32, lits, warn)
        }
        Kind::MaiSrcC { dwords, ty } => {
            let acc = (word >> 15) & 1 == 1;
            mai_source(target, v, dwords, acc, ty, lits, warn)
        }
        Kind::MaiMod(_) => Ok(Operand::Imm(v)),
        Kind::ADst { dwords } => {
            if v > 255 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: RegClass::Agpr,
                index: v as u16,
                dwords,
            }))
        }
        Kind::ASrc { class, idx, mods } => {
            // The VGPR encodings (256..) name AGPRs; the rest decode as for a VGPR-only class.
            let op = decode_operand(
                target,
                Kind::VSrcVgpr { dwords: 1, class, idx, mods },
                v,
                word,
                lits,
                warn,
            )?;
            Ok(match op {
                Operand::Reg(r) if r.class == RegClass::Vgpr => Operand::Reg(Reg {
                    class: RegClass::Agpr,
                    ..r
                }),
                other => other,
            })
        }
        Kind::VSrcSgpr { idx, mods, .. } => {
            let (neg, abs) = src_mod_bits(word, idx);
            if (mods == SrcMods::ModsInvalid && (neg || abs))
                || (mods == SrcMods::ModsNegInvalid && neg)
            {
                return Err(OperandError::Invalid);
            }
            decode_operand(target, Kind::VSrc(ValType::B32), v, word, lits, warn)
        }
        Kind::VSrcVgpr {
            dwords, idx, mods, ..
        } => {
            let (neg, abs) = src_mod_bits(word, idx);
            if (mods == SrcMods::ModsInvalid && (neg || abs))
                || (mods == SrcMods::ModsNegInvalid && neg)
            {
                return Err(OperandError::Invalid);
            }
            // A scalar tuple (aligned, and warned about, as SGPR quads). No special register is
            // wider than 64 bits; a 64-bit one decodes as for any 64-bit source below.
            let special = matches!(v, 230..=239 | 251..=253);
            if dwords > 2 && special {
                return Err(OperandError::Invalid);
            }
            if dwords >= 2 && v < 256 && !special && !matches!(v, 233 | 234 | 250) {
                return decode_scalar(target, v, dwords, Some(ValType::B32), lits, warn);
            }
            let ty = if dwords >= 2 {
                ValType::B64
            } else {
                ValType::B32
            };
            let op = decode_operand(target, Kind::VSrc(ty), v, word, lits, warn)?;
            if let Operand::Reg(r) = op {
                // Tuples wider than a pair (the scaled fp8/fp6/fp4 conversions) name `dwords`
                // registers whatever the class.
                if r.class != RegClass::Vgpr || dwords > 2 {
                    return Ok(Operand::Reg(Reg { dwords, ..r }));
                }
            }
            Ok(op)
        }
        Kind::SSrc(ty) | Kind::SReg(ty) | Kind::SSrcM0Space(ty) => {
            let op = decode_scalar(target, v, ty.dwords() as u8, Some(ty), lits, warn)?;
            // A 64-bit literal that does not fit 32 bits on a 16-bit operand: LLVM's printing of
            // these is not understood yet (it is not the low half), so fail closed.
            if let Operand::Literal { value, wide: true } = op {
                if ty.bits() == 16 && value >> 32 != 0 {
                    return Err(OperandError::Unsupported);
                }
            }
            Ok(op)
        }
        Kind::Imm16(_) => Ok(Operand::Imm(v & 0xffff)),
        Kind::Fixed(_) => Ok(Operand::Implicit),
        Kind::SBase { dwords } => decode_scalar(target, 2 * v, dwords, None, lits, warn),
        Kind::FlatVaddrG => {
            let off = match target.family() {
                Family::Gfx9 => (word >> 48) & 0x7f == 0x7f,
                Family::Gfx12_5 => word & 0x7f == 124,
            };
            Ok(Operand::Reg(Reg {
                class: RegClass::Vgpr,
                index: v as u16,
                dwords: if off { 2 } else { 1 },
            }))
        }
        Kind::ScratchVaddr => {
            let sve = match target.family() {
                Family::Gfx9 => 13,
                Family::Gfx12_5 => 49,
            };
            if (word >> sve) & 1 == 0 {
                Ok(Operand::Implicit)
            } else {
                Ok(Operand::Reg(Reg {
                    class: RegClass::Vgpr,
                    index: v as u16,
                    dwords: 1,
                }))
            }
        }
        Kind::FlatSaddrK { dwords, .. } | Kind::FlatSaddrOpt { dwords, .. } => {
            let off = match target.family() {
                Family::Gfx9 => 0x7f,
                Family::Gfx12_5 => 124,
            };
            if v == off {
                return Ok(Operand::Implicit);
            }
            decode_scalar(target, v, dwords, None, lits, warn)
        }
        Kind::FlatOff13 | Kind::FlatOff13U => Ok(Operand::Imm(v & 0x1fff)),
        Kind::SmemPrefetchOff { non_neg: true } if v & 0x80_0000 != 0 => Err(OperandError::Invalid),
        Kind::VfOff24 | Kind::VfCachePolicy { .. } | Kind::VfAtomicCachePolicy | Kind::SmemPrefetchOff { .. } => {
            Ok(Operand::Imm(v))
        }
        Kind::UImmDec { bits } => {
            if v >> bits != 0 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Imm(v))
        }
        Kind::VfVDstRtn { dwords } => {
            if (word >> 52) & 1 == 0 {
                return Ok(Operand::Implicit);
            }
            Ok(Operand::Reg(Reg {
                class: RegClass::Vgpr,
                index: v as u16,
                dwords,
            }))
        }
        Kind::VDstRtn { dwords, acc, .. } => {
            if (word >> 16) & 1 == 0 {
                return Ok(Operand::Implicit);
            }
            let a = (word >> 55) & 1 == 1;
            let sc1 = (word >> 25) & 1 == 1;
            if a && (acc == 0 || (acc == 1 && sc1)) {
                return Err(OperandError::Invalid);
            }
            if a && v + dwords as u32 > 256 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: if a { RegClass::Agpr } else { RegClass::Vgpr },
                index: v as u16,
                dwords,
            }))
        }
        Kind::VDataRtn { dwords } | Kind::FlatDst { dwords } | Kind::FlatData { dwords } => {
            let a = (word >> 55) & 1 == 1;
            // AGPR tuples end at a255 (VGPR tuples past v255 still print).
            if a && v + dwords as u32 > 256 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: if a { RegClass::Agpr } else { RegClass::Vgpr },
                index: v as u16,
                dwords,
            }))
        }
        Kind::SmemOff
        | Kind::Flag(_)
        | Kind::SmemCachePolicy
        | Kind::Omod
        | Kind::OpSel { .. }
        | Kind::OpSelFiBc
        | Kind::DsOffset16
        | Kind::DsOffsetPair
        | Kind::DsSwizzle => Ok(Operand::Imm(v)),
        Kind::OpSelMasked { opsel, byte_sel, .. } => {
            if v & !(opsel as u32 | byte_sel_bits(byte_sel)) != 0 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Imm(v))
        }
        // Bits of sources the opcode lacks must be clear, except op_sel_hi's (LLVM ignores
        // them; both rules are checked against LLVM by the table generator's fitting).
        Kind::PkBits { name, srcs, .. } if name != "op_sel_hi" && v >> srcs != 0 => {
            Err(OperandError::Invalid)
        }
        Kind::PkBits { .. } => Ok(Operand::Imm(v)),
        Kind::VSrcM { ty, idx, mods } => {
            let (neg, abs) = src_mod_bits(word, idx);
            if (mods == SrcMods::ModsInvalid && (neg || abs))
                || (mods == SrcMods::ModsNegInvalid && neg)
            {
                return Err(OperandError::Invalid);
            }
            decode_operand(target, Kind::VSrc(ty), v, word, lits, warn)
        }
        Kind::VSrcNoConst { dwords, idx, mods } => {
            let (neg, abs) = src_mod_bits(word, idx);
            if (mods == SrcMods::ModsInvalid && (neg || abs))
                || (mods == SrcMods::ModsNegInvalid && neg)
            {
                return Err(OperandError::Invalid);
            }
            let ty = if dwords >= 2 {
                ValType::B64
            } else {
                ValType::B32
            };
            decode_operand(target, Kind::VSrc(ty), v, word, lits, warn)
        }
        // Keeps imm (bit 17) and soe (bit 14) with dword 1: Imm(dword1), the bits in `Implicit`
        // form are re-read at print time from the raw value, so encode them in the operand.
        Kind::G9SmemOff => {
            let imm = ((word >> 17) & 1) as u64;
            let soe = ((word >> 14) & 1) as u64;
            Ok(Operand::Literal {
                value: v as u64 | imm << 32 | soe << 33,
                wide: false,
            })
        }
        Kind::SmemOffNonNeg => {
            if v & 0x80_0000 != 0 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Imm(v))
        }
        Kind::VDst { dwords }
        | Kind::VDstAnyAlign { dwords }
        | Kind::VReg { dwords }
        | Kind::VRegAnyAlign { dwords }
        | Kind::VRegLo128 { dwords }
        | Kind::VDstAv { dwords }
        | Kind::VRegAv { dwords } => {
            if v > 255 {
                return Err(OperandError::Invalid);
            }
            Ok(Operand::Reg(Reg {
                class: RegClass::Vgpr,
                index: v as u16,
                dwords,
            }))
        }
        Kind::VSrc(ty) => {
            if v >= 256 {
                return Ok(Operand::Reg(Reg {
                    class: RegClass::Vgpr,
                    index: (v - 256) as u16,
                    dwords: ty.dwords() as u8,
                }));
            }
            // DPP8 (233, 234), SDWA (249, GFX9) and DPP16 (250) select extended encodings.
            let ext = match target.family() {
                Family::Gfx12_5 => matches!(v, 233 | 234 | 250),
                Family::Gfx9 => matches!(v, 249 | 250),
            };
            if ext {
                return Err(OperandError::Unsupported);
            }
            let op = decode_scalar(target, v, ty.dwords() as u8, Some(ty), lits, warn)?;
            if let Operand::Literal { value, wide: true } = op {
                if ty.bits() == 16 && value >> 32 != 0 {
                    return Err(OperandError::Unsupported);
                }
            }
            Ok(op)
        }
        Kind::KImm(KImmStyle::Lit64) => {
            // Always two dwords, even after a source's 32-bit literal (which reads the low one).
            let lo = lits.word(0).ok_or(OperandError::Truncated)?;
            let hi = lits.word(1).ok_or(OperandError::Truncated)?;
            let value = (hi as u64) << 32 | lo as u64;
            lits.lit = Some((value, true));
            lits.kimm = true;
            Ok(Operand::Literal { value, wide: true })
        }
        Kind::KImm(_) => {
            // A KImm is a 32-bit literal: an instruction whose other literal is the 64-bit form
            // is invalid.
            let (value, wide) = lits.read(false)?;
            if wide {
                return Err(OperandError::Invalid);
            }
            lits.kimm = true;
            Ok(Operand::Imm(value as u32))
        }
    }
}

/// LLVM's note after a constant where the operand's register class allows none.
const INVALID_IMM: &str = "/*Invalid immediate*/";

fn hex(out: &mut String, v: u64) {
    let _ = write!(out, "0x{v:x}");
}

const F32_INLINE: [u32; 9] = [
    0x3f00_0000,
    0xbf00_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0xc000_0000,
    0x4080_0000,
    0xc080_0000,
    0x3e22_f983,
];
const F16_INLINE: [u16; 9] = [
    0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
];
const BF16_INLINE: [u16; 9] = [
    0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22,
];
const F64_INLINE: [u64; 9] = [
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xc010_0000_0000_0000,
    0x3fc4_5f30_6dc9_c882,
];
const FLOAT_TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];

fn float_const_text(code: u8, ty: ValType) -> &'static str {
    let i = (code - 240) as usize;
    if i < 8 {
        FLOAT_TEXT[i]
    } else if ty.bits() == 64 {
        "0.15915494309189532"
    } else {
        "0.15915494"
    }
}

/// Is `v` (of type `ty`'s width) a value the hardware could encode inline?
fn inline_value(v: u64, ty: ValType) -> Option<String> {
    match ty.bits() {
        16 => {
            let v16 = v as u16;
            let s = v16 as i16;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            let table = if ty == ValType::BF16 {
                &BF16_INLINE
            } else {
                &F16_INLINE
            };
            table
                .iter()
                .position(|&x| x == v16)
                .map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
        32 => {
            let v32 = v as u32;
            let s = v32 as i32;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            F32_INLINE
                .iter()
                .position(|&x| x == v32)
                .map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
        _ => {
            let s = v as i64;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            F64_INLINE
                .iter()
                .position(|&x| x == v)
                .map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
    }
}

/// An immediate printed as LLVM prints a plain (non-`lit()`) value of type `ty`.
fn plain_imm(out: &mut String, v: u64, ty: ValType) {
    match inline_value(v, ty) {
        Some(t) if ty != ValType::I16 || (-16..=64).contains(&(v as u16 as i16)) => {
            out.push_str(&t)
        }
        _ => hex(out, v),
    }
}

/// A 32-bit literal printed without `lit()`, as LLVM prints a VOPD Y half's src0 literal
/// after an X fmamk (crate::vopd).
pub fn plain_literal32(v: u32) -> String {
    let mut out = String::new();
    plain_imm(&mut out, v as u64, ValType::B32);
    out
}

fn format_literal(out: &mut String, value: u64, wide: bool, ty: ValType) {
    if ty == ValType::Plain32 {
        if wide && value >> 32 == 0 {
            out.push_str("lit64(");
            hex(out, value);
            out.push(')');
        } else if (-16..=64).contains(&(value as u32 as i32)) {
            let _ = write!(out, "{}", value as u32 as i32);
        } else {
            hex(out, value as u32 as u64);
        }
        return;
    }
    if ty == ValType::I16 {
        if wide && value >> 32 == 0 {
            out.push_str("lit64(");
            hex(out, value);
            out.push(')');
        } else if wide {
            plain_imm(out, value as u16 as u64, ty);
        } else if inline_value(value as u32 as u64, ValType::B32).is_some() {
            out.push_str("lit(");
            hex(out, value as u32 as u64);
            out.push(')');
        } else {
            hex(out, value as u16 as u64);
        }
        return;
    }
    let lit = |out: &mut String, v: u64| {
        out.push_str("lit(");
        hex(out, v);
        out.push(')');
    };
    if wide {
        // The 64-bit literal form (gfx1250): kept visible as lit64() when it would fit 32 bits,
        // else a plain immediate of the operand's width.
        if ty == ValType::F64 {
            if value >> 32 == 0 {
                out.push_str("lit64(");
                hex(out, value);
                out.push(')');
            } else if let Some(t) = inline_value(value, ty) {
                out.push_str(&t);
            } else if value as u32 == 0 {
                // Representable as the 32-bit (high half) literal of a double.
                hex(out, value >> 32);
            } else {
                hex(out, value);
            }
            return;
        }
        if value >> 32 == 0 {
            out.push_str("lit64(");
            hex(out, value);
            out.push(')');
            return;
        }
        let v = match ty.bits() {
            16 => value as u16 as u64,
            32 => value as u32 as u64,
            _ => value,
        };
        match inline_value(v, ty) {
            Some(t) => out.push_str(&t),
            None => hex(out, v),
        }
        return;
    }
    let v32 = value as u32 as u64;
    if matches!(ty, ValType::Pk16 | ValType::Pk16H | ValType::Pk16B) {
        // Packed halves: lit() only for what an inline integer (or half constant) could carry.
        let half = match ty {
            ValType::Pk16H => F16_INLINE.iter().any(|&x| x as u64 == v32),
            ValType::Pk16B => BF16_INLINE.iter().any(|&x| x as u64 == v32),
            _ => false,
        };
        if (-16..=64).contains(&(v32 as u32 as i32)) || half {
            lit(out, v32);
        } else {
            hex(out, v32);
        }
        return;
    }
    match ty.bits() {
        // A literal whose value an inline constant could carry is printed as lit(...) with the
        // whole 32-bit literal; else as an immediate of the operand's width.
        16 => {
            if inline_value(v32 as u16 as u64, ty).is_some() {
                lit(out, v32);
            } else if ty == ValType::BF16 {
                // LLVM keeps the whole literal dword for bf16 operands.
                hex(out, v32);
            } else {
                hex(out, v32 as u16 as u64);
            }
        }
        32 => {
            if inline_value(v32, ty).is_some() {
                lit(out, v32);
            } else {
                hex(out, v32);
            }
        }
        _ => {
            if ty == ValType::F64 {
                // The literal is the high half of the double; LLVM prints no lit() here.
                match inline_value(v32 << 32, ty) {
                    Some(t) => out.push_str(&t),
                    None => hex(out, v32),
                }
            } else if inline_value(v32, ty).is_some() {
                lit(out, v32);
            } else {
                hex(out, v32);
            }
        }
    }
}

/// Prints a register as LLVM does.
pub fn format_reg(out: &mut String, r: Reg) {
    let n = r.dwords as u32;
    let idx = r.index as u32;
    let file = |out: &mut String, p: &str| {
        if n == 1 {
            let _ = write!(out, "{p}{idx}");
        } else {
            let _ = write!(out, "{p}[{}:{}]", idx, idx + n - 1);
        }
    };
    let lohi = |out: &mut String, base: &str| {
        if n >= 2 {
            out.push_str(base);
        } else if idx == 0 {
            let _ = write!(out, "{base}_lo");
        } else {
            let _ = write!(out, "{base}_hi");
        }
    };
    match r.class {
        RegClass::Sgpr => file(out, "s"),
        RegClass::Vgpr => file(out, "v"),
        RegClass::Agpr => file(out, "a"),
        RegClass::Ttmp => {
            if n == 1 {
                let _ = write!(out, "ttmp{idx}");
            } else {
                let _ = write!(out, "ttmp[{}:{}]", idx, idx + n - 1);
            }
        }
        RegClass::Vcc => lohi(out, "vcc"),
        RegClass::Exec => lohi(out, "exec"),
        RegClass::FlatScratch => lohi(out, "flat_scratch"),
        RegClass::XnackMask => lohi(out, "xnack_mask"),
        RegClass::FlatScratchBase => out.push_str(if idx == 0 {
            "src_flat_scratch_base_lo"
        } else {
            "src_flat_scratch_base_hi"
        }),
        RegClass::M0 => out.push_str("m0"),
        RegClass::Null => out.push_str("null"),
        RegClass::SharedBase => out.push_str("src_shared_base"),
        RegClass::SharedLimit => out.push_str("src_shared_limit"),
        RegClass::PrivateBase => out.push_str("src_private_base"),
        RegClass::PrivateLimit => out.push_str("src_private_limit"),
        RegClass::PopsExitingWaveId => out.push_str("src_pops_exiting_wave_id"),
        RegClass::Vccz => out.push_str("src_vccz"),
        RegClass::Execz => out.push_str("src_execz"),
        RegClass::Scc => out.push_str("src_scc"),
        RegClass::LdsDirect => {
            out.push_str("src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/")
        }
    }
}

/// Symbolic names a target's immediates print with (from the generated tables).
#[derive(Debug, Clone, Copy)]
pub struct Names {
    /// `hwreg(...)` register names by id.
    pub hwreg: &'static [Option<&'static str>],
    /// `sendmsg(...)` symbolic forms: (care mask, value, text inside the parentheses); the first
    /// entry with `imm & care == value` applies.
    pub sendmsg: &'static [(u16, u16, &'static str)],
    /// `s_sendmsg_rtn_*` message names by id.
    pub sendmsg_rtn: &'static [Option<&'static str>],
}

impl Names {
    pub const EMPTY: Names = Names {
        hwreg: &[],
        sendmsg: &[],
        sendmsg_rtn: &[],
    };
}

/// As [`format_operand`], for kinds whose printing also depends on other bits of the
/// instruction's fixed part `word` (GFX9 FLAT atomic data).
pub fn format_operand_w(
    out: &mut String,
    target: Target,
    kind: Kind,
    op: &Operand,
    names: Names,
    word: Option<Word>,
) {
    if let (Kind::MaiSrcC { dwords, .. }, Some(w), Operand::Reg(r)) = (kind, word, op) {
        // The note on a misaligned or scalar C tuple names the file acc_cd selects.
        let file = if (w >> 15) & 1 == 1 { "AReg" } else { "VReg" };
        if mai_note_needed(r, dwords, true) {
            format_reg(out, *r);
            let _ = write!(
                out,
                "/*Invalid register, operand has '{file}_{}_Align2' register class*/",
                32 * dwords as u32
            );
            return;
        }
    }
    if let (Kind::VDataRtn { dwords }, Some(w)) = (kind, word) {
        let k = if (w >> 16) & 1 == 0 {
            Kind::FlatData { dwords }
        } else {
            Kind::VReg { dwords }
        };
        return format_operand(out, target, k, op, names);
    }
    format_operand(out, target, kind, op, names)
}

/// Does a GFX9 MAI register operand print with LLVM's class note: a misaligned vector tuple,
/// or (for a C matrix, `c`) a scalar tuple.
fn mai_note_needed(r: &Reg, dwords: u8, c: bool) -> bool {
    match r.class {
        RegClass::Vgpr | RegClass::Agpr => dwords >= 2 && !r.index.is_multiple_of(2),
        class => c && scalar_class(class),
    }
}

/// SGPRs, TTMPs and the special scalar registers a vector-source operand may name.
fn scalar_class(class: RegClass) -> bool {
    matches!(
        class,
        RegClass::Sgpr
            | RegClass::Ttmp
            | RegClass::Vcc
            | RegClass::Exec
            | RegClass::M0
            | RegClass::FlatScratch
            | RegClass::XnackMask
    )
}

/// LLVM's text of a gfx12 scope field value (none for the default, CU).
fn scope_text(scope: u32) -> Option<&'static str> {
    match scope {
        1 => Some("scope:SCOPE_SE"),
        2 => Some("scope:SCOPE_DEV"),
        3 => Some("scope:SCOPE_SYS"),
        _ => None,
    }
}

/// Prints an operand of kind `kind` as LLVM does.
pub fn format_operand(out: &mut String, target: Target, kind: Kind, op: &Operand, names: Names) {
    let note = |out: &mut String, class: &str| {
        let _ = write!(
            out,
            "/*Invalid register, operand has '{class}' register class*/"
        );
    };
    match (kind, *op) {
        (Kind::Fixed(t), _) => out.push_str(t),
        (Kind::FlatSaddrK { .. } | Kind::ScratchVaddr, Operand::Implicit) => out.push_str("off"),
        (Kind::VDstRtn { .. } | Kind::VfVDstRtn { .. } | Kind::FlatSaddrOpt { .. }, Operand::Implicit) => {}
        (Kind::UImmDec { .. }, Operand::Imm(v)) => {
            let _ = write!(out, "{v}");
        }
        (Kind::SmemPrefetchOff { .. }, Operand::Imm(v)) => {
            let off = ((v & 0xff_ffff) << 8) as i32 >> 8;
            if off < 0 {
                let _ = write!(out, "-0x{:x}", -(off as i64));
            } else {
                let _ = write!(out, "0x{off:x}");
            }
        }
        (Kind::VfAtomicCachePolicy, Operand::Imm(v)) => {
            let scope = v & 3;
            let th = (v >> 2) & 7;
            let mut parts: Vec<String> = Vec::new();
            // th bit 0: return, bit 1: non-temporal, bit 2: cascade (named only at device
            // scope and wider).
            let name = match th {
                0 => None,
                4..=7 if scope >= 2 => Some(if th & 2 != 0 { "CASCADE_NT".to_string() } else { "CASCADE_RT".to_string() }),
                4..=7 => Some(format!("0x{th:x}")),
                1 => Some("RETURN".into()),
                2 => Some("NT".into()),
                _ => Some("NT_RETURN".into()),
            };
            if let Some(n) = name {
                parts.push(format!("th:TH_ATOMIC_{n}"));
            }
            parts.extend(scope_text(scope).map(String::from));
            out.push_str(&parts.join(" "));
        }
        (Kind::FlatSaddrOpt { dwords, xexec }, other) => format_operand(
            out,
            target,
            Kind::FlatSaddrK { dwords, xexec },
            &other,
            names,
        ),
        (Kind::FlatDst { .. } | Kind::FlatData { .. }, Operand::Reg(r))
            if r.dwords >= 2 && r.index % 2 != 0 =>
        {
            format_reg(out, r);
            note(out, &format!("AV_{}_Align2", 32 * r.dwords as u32));
        }
        (Kind::VfOff24, Operand::Imm(v)) => {
            let off = ((v & 0xff_ffff) << 8) as i32 >> 8;
            if off != 0 {
                let _ = write!(out, "offset:{off}");
            }
        }
        (Kind::VfCachePolicy { store }, Operand::Imm(v)) => {
            let scope = v & 3;
            let th = (v >> 2) & 7;
            let mut parts: Vec<String> = Vec::new();
            let pre = if store { "TH_STORE_" } else { "TH_LOAD_" };
            let name = match th {
                0 => None,
                1 => Some("NT"),
                2 => Some("HT"),
                3 if scope == 3 => Some("BYPASS"),
                3 if store => Some("WB"),
                3 => Some("LU"),
                4 => Some("NT_RT"),
                5 => Some("RT_NT"),
                6 => Some("NT_HT"),
                7 if store => Some("NT_WB"),
                _ => {
                    parts.push(format!("th:0x{th:x}"));
                    None
                }
            };
            if let Some(n) = name {
                parts.push(format!("th:{pre}{n}"));
            }
            parts.extend(scope_text(scope).map(String::from));
            out.push_str(&parts.join(" "));
        }
        (Kind::FlatOff13U, Operand::Imm(v)) => {
            if v & 0x1fff != 0 {
                let _ = write!(out, "offset:{}", v & 0x1fff);
            }
        }
        (Kind::FlatSaddrK { dwords, xexec }, Operand::Reg(r))
            if r.class == RegClass::Exec && xexec && (dwords >= 2 || r.index == 1) =>
        {
            format_reg(out, r);
            if dwords >= 2 {
                note(out, "SReg_64_XEXEC_XNULL");
            } else {
                note(out, "SReg_32_XEXEC_HI");
            }
        }
        (Kind::FlatOff13, Operand::Imm(v)) => {
            let off = ((v & 0x1fff) << 19) as i32 >> 19;
            if off != 0 {
                let _ = write!(out, "offset:{off}");
            }
        }
        (Kind::VSrcM { ty, .. }, other) => {
            format_operand(out, target, Kind::VSrc(ty), &other, names)
        }
        // A mask operand (SReg class): VGPR tuples carry no alignment note.
        (Kind::VSrcNoConst { .. }, Operand::Reg(r)) if r.class == RegClass::Vgpr => {
            format_reg(out, r)
        }
        (Kind::VSrcNoConst { dwords, .. }, other @ Operand::Reg(_)) => format_operand(
            out,
            target,
            Kind::VSrc(if dwords >= 2 {
                ValType::B64
            } else {
                ValType::B32
            }),
            &other,
            names,
        ),
        (Kind::VSrcNoConst { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::DsOffset16, Operand::Imm(v)) => {
            if v != 0 {
                let _ = write!(out, "offset:{v}");
            }
        }
        (Kind::DsSwizzle, Operand::Imm(v)) => {
            if v != 0 {
                out.push_str("offset:");
                out.push_str(&swizzle_text(v as u16));
            }
        }
        (Kind::DsOffsetPair, Operand::Imm(v)) => {
            let (o0, o1) = (v & 0xff, v >> 8);
            let mut parts = Vec::new();
            if o0 != 0 {
                parts.push(format!("offset0:{o0}"));
            }
            if o1 != 0 {
                parts.push(format!("offset1:{o1}"));
            }
            out.push_str(&parts.join(" "));
        }
        (Kind::Omod, Operand::Imm(v)) => match v {
            1 => out.push_str("mul:2"),
            2 => out.push_str("mul:4"),
            3 => out.push_str("div:2"),
            _ => {}
        },
        (Kind::OpSelMasked { srcs, opsel, byte_sel }, Operand::Imm(v)) => {
            let mut t = String::new();
            format_operand(&mut t, target, Kind::OpSel { srcs }, &Operand::Imm(v & opsel as u32), names);
            if byte_sel != 0 && v & byte_sel_bits(byte_sel) != 0 {
                if !t.is_empty() {
                    t.push(' ');
                }
                let _ = write!(t, "byte_sel:{}", byte_sel_value(byte_sel, v));
            }
            out.push_str(&t);
        }
        (Kind::OpSelFiBc, Operand::Imm(v)) => {
            if v & 3 != 0 {
                let _ = write!(out, "op_sel:[{},{}]", v & 1, v >> 1 & 1);
            }
        }
        (Kind::OpSel { srcs }, Operand::Imm(v)) => {
            if v != 0 {
                let bits: Vec<String> = (0..srcs as u32)
                    .chain([3])
                    .map(|b| ((v >> b) & 1).to_string())
                    .collect();
                let _ = write!(out, "op_sel:[{}]", bits.join(","));
            }
        }
        (
            Kind::PkBits {
                name,
                srcs,
                default,
            },
            Operand::Imm(v),
        ) => {
            let bits: Vec<u32> = (0..srcs as u32).map(|b| (v >> b) & 1).collect();
            if bits.iter().any(|&b| b != default as u32) {
                let t: Vec<String> = bits.iter().map(|b| b.to_string()).collect();
                let _ = write!(out, "{name}:[{}]", t.join(","));
            }
        }
        (Kind::Flag(t), Operand::Imm(v)) => {
            if v != 0 {
                out.push_str(t);
            }
        }
        (Kind::SmemCachePolicy, Operand::Imm(v)) => {
            let th = (v >> 3) & 3;
            let scope = (v >> 1) & 3;
            let mut parts: Vec<&str> = Vec::new();
            match th {
                1 => parts.push("th:TH_LOAD_NT"),
                2 => parts.push("th:TH_LOAD_HT"),
                3 if scope == 3 => parts.push("th:TH_LOAD_BYPASS"),
                3 => parts.push("th:TH_LOAD_LU"),
                _ => {}
            }
            parts.extend(scope_text(scope));
            if v & 1 != 0 {
                parts.push("nv");
            }
            out.push_str(&parts.join(" "));
        }
        (Kind::G9SmemOff, Operand::Literal { value, .. }) => {
            let d1 = value as u32;
            let imm = (value >> 32) & 1 == 1;
            let soe = (value >> 33) & 1 == 1;
            let sreg = |out: &mut String, enc: u32| {
                let mut lits = LitReader::new(&[], 0);
                let mut w = String::new();
                match decode_scalar(target, enc, 1, None, &mut lits, &mut w) {
                    Ok(Operand::Reg(r)) => format_reg(out, r),
                    _ => {
                        let _ = write!(out, "<soffset {enc}>");
                    }
                }
            };
            let off = ((d1 & 0x1f_ffff) << 11) as i32 >> 11;
            let signed_hex = |out: &mut String, x: i32| {
                if x < 0 {
                    let _ = write!(out, "-0x{:x}", -(x as i64));
                } else {
                    let _ = write!(out, "0x{x:x}");
                }
            };
            match (imm, soe) {
                (true, false) => signed_hex(out, off),
                (false, false) => sreg(out, d1 & 0x7f),
                (false, true) => sreg(out, d1 >> 25),
                (true, true) => {
                    sreg(out, d1 >> 25);
                    out.push_str(" offset:");
                    signed_hex(out, off);
                }
            }
        }
        (Kind::SmemOff | Kind::SmemOffNonNeg, Operand::Imm(v)) => {
            let off = ((v & 0xff_ffff) << 8) as i32 >> 8;
            let soff = v >> 25;
            let signed_hex = |out: &mut String, x: i32| {
                if x < 0 {
                    let _ = write!(out, "-0x{:x}", -(x as i64));
                } else {
                    let _ = write!(out, "0x{x:x}");
                }
            };
            let null = match target.family() {
                Family::Gfx12_5 => 124,
                Family::Gfx9 => 125,
            };
            if soff == null {
                signed_hex(out, off);
            } else {
                let mut lits = LitReader::new(&[], 0);
                let mut w = String::new();
                match decode_scalar(target, soff, 1, None, &mut lits, &mut w) {
                    Ok(Operand::Reg(r)) => format_reg(out, r),
                    _ => {
                        let _ = write!(out, "<soffset {soff}>");
                    }
                }
                out.push_str(" offset:");
                signed_hex(out, off);
            }
        }
        (Kind::SDstX { class, .. }, Operand::Reg(r))
            if (r.class == RegClass::M0 && class.contains("XM0"))
                || (r.class == RegClass::Exec && class.contains("XEXEC")) =>
        {
            format_reg(out, r);
            note(out, class);
        }
        (Kind::SDstX { dwords, .. }, other @ Operand::Reg(_)) => {
            format_operand(out, target, Kind::SDst { dwords }, &other, names)
        }
        (Kind::SDstX { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::SDstNoM0 { .. }, Operand::Reg(r)) if r.class == RegClass::M0 => {
            out.push_str("m0");
            note(out, "SReg_32_XM0");
        }
        (Kind::SDstNoM0 { .. }, Operand::Reg(r)) if r.class == RegClass::LdsDirect => {
            out.push_str("src_lds_direct");
            note(out, "SReg_32_XM0");
        }
        (Kind::SDstNoM0 { dwords } | Kind::SDst8 { dwords }, other @ Operand::Reg(_)) => {
            format_operand(out, target, Kind::SDst { dwords }, &other, names)
        }
        (Kind::SDst8 { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::SDstNoM0 { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::VSrcLo128(_) | Kind::VDstLo128 { .. }, Operand::Reg(r))
            if r.class == RegClass::Vgpr && r.index >= 128 =>
        {
            format_reg(out, r);
            note(out, "VS_32_Lo128");
        }
        (Kind::VRegLo128 { .. }, Operand::Reg(r)) if r.index >= 128 => {
            format_reg(out, r);
            note(out, "VGPR_32_Lo128");
        }
        (Kind::VRegLo128 { dwords }, other) => {
            format_operand(out, target, Kind::VReg { dwords }, &other, names)
        }
        (Kind::VSrcLo128(ty), other) => format_operand(out, target, Kind::VSrc(ty), &other, names),
        (Kind::VDstLo128 { dwords }, other) => {
            format_operand(out, target, Kind::VDst { dwords }, &other, names)
        }
        (Kind::VSrcSgpr { class, .. }, Operand::Reg(r)) if r.class == RegClass::Vgpr => {
            format_reg(out, r);
            note(out, class);
        }
        (Kind::VSrcSgpr { .. }, other) => {
            format_operand(out, target, Kind::SSrc(ValType::B32), &other, names)
        }
        (Kind::MaiDst { dwords, av }, Operand::Reg(r)) => {
            format_reg(out, r);
            if mai_note_needed(&r, dwords, false) {
                let file = match (av, r.class) {
                    (true, _) => "AV",
                    (_, RegClass::Agpr) => "AReg",
                    _ => "VReg",
                };
                note(out, &format!("{file}_{}_Align2", 32 * dwords as u32));
            }
        }
        (Kind::MaiSrcC { dwords, .. }, Operand::Reg(r)) if mai_note_needed(&r, dwords, true) => {
            format_reg(out, r);
            note(out, &format!("VReg_{}_Align2", 32 * dwords as u32));
        }
        (Kind::MaiSrcC { ty, .. }, Operand::Reg(r)) if r.class == RegClass::LdsDirect => {
            let _ = ty;
            out.push_str("src_lds_direct")
        }
        (Kind::MaiSrcC { .. }, Operand::Reg(r)) => format_reg(out, r),
        (Kind::MaiSrcC { ty, .. }, other) => {
            format_operand(out, target, Kind::SSrc(ty), &other, names)
        }
        (Kind::MaiSrc { dwords, .. }, Operand::Reg(r))
            if matches!(r.class, RegClass::Vgpr | RegClass::Agpr | RegClass::LdsDirect) || scalar_class(r.class) =>
        {
            let vector = matches!(r.class, RegClass::Vgpr | RegClass::Agpr);
            if r.class == RegClass::LdsDirect {
                out.push_str("src_lds_direct");
            } else {
                format_reg(out, r);
            }
            if !vector || mai_note_needed(&r, dwords, false) {
                if dwords == 1 {
                    note(out, "AV_32");
                } else {
                    note(out, &format!("AV_{}_Align2", 32 * dwords as u32));
                }
            }
        }
        (Kind::MaiSrc { .. }, Operand::Reg(r)) => format_reg(out, r),
        (Kind::MaiSrc { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::MaiMod(name), Operand::Imm(v)) => {
            if v != 0 {
                let _ = write!(out, "{name}:{v}");
            }
        }
        (Kind::ASrc { .. }, Operand::Reg(r)) if r.class == RegClass::Agpr => format_reg(out, r),
        (Kind::ASrc { class, idx, mods }, other) => format_operand(
            out,
            target,
            Kind::VSrcVgpr {
                dwords: 1,
                class,
                idx,
                mods,
            },
            &other,
            names,
        ),
        (Kind::VSrcVgpr { class, .. }, Operand::Reg(r)) if r.class == RegClass::LdsDirect => {
            out.push_str("src_lds_direct");
            if !class.contains("Lds") {
                note(out, class);
            }
        }
        (Kind::VSrcVgpr { class, .. }, Operand::Reg(r)) if r.class == RegClass::LdsDirect || scalar_class(r.class) => {
            format_reg(out, r);
            note(out, class);
        }
        (Kind::VSrcVgpr { dwords, class, .. }, Operand::Reg(r)) if dwords >= 2 => {
            format_reg(out, r);
            if r.index % 2 != 0 {
                note(out, class);
            }
        }
        (Kind::VSrcVgpr { dwords, .. }, Operand::Reg(r)) => format_operand(
            out,
            target,
            Kind::VSrc(if dwords >= 2 {
                ValType::B64
            } else {
                ValType::B32
            }),
            &Operand::Reg(r),
            names,
        ),
        (Kind::VSrcVgpr { .. }, other) => {
            format_operand(out, target, Kind::SReg(ValType::B32), &other, names)
        }
        (Kind::VSrc(_), Operand::Reg(r)) if r.class == RegClass::LdsDirect => {
            out.push_str("src_lds_direct")
        }
        // AGPR tuples (GFX9 DS acc forms): only LLVM's AV classes note a misaligned one.
        (Kind::VDstAv { .. } | Kind::VRegAv { .. }, Operand::Reg(r))
            if r.class == RegClass::Agpr && r.dwords >= 2 && r.index % 2 != 0 =>
        {
            format_reg(out, r);
            note(out, &format!("AV_{}_Align2", 32 * r.dwords as u32));
        }
        (
            Kind::VSrc(_)
            | Kind::VDst { .. }
            | Kind::VReg { .. }
            | Kind::VDstAv { .. }
            | Kind::VRegAv { .. }
            | Kind::VDataRtn { .. }
            | Kind::VDstRtn { .. }
            | Kind::VfVDstRtn { .. }
            | Kind::FlatVaddrG,
            Operand::Reg(r),
        ) if r.class == RegClass::Vgpr && r.dwords >= 2 && r.index % 2 != 0 => {
            format_reg(out, r);
            let class = match kind {
                Kind::VSrc(_) => "VS",
                Kind::VDstAv { .. } | Kind::VRegAv { .. } | Kind::VDstRtn { av: true, .. } => "AV",
                _ => "VReg",
            };
            let _ = write!(
                out,
                "/*Invalid register, operand has '{class}_{}_Align2' register class*/",
                32 * r.dwords as u32
            );
        }
        (Kind::VSrc(ty), other) if !matches!(other, Operand::Reg(_)) => {
            format_operand(out, target, Kind::SSrc(ty), &other, names)
        }
        (Kind::SSrcM0Space(_), Operand::Reg(r)) if r.class == RegClass::M0 => out.push_str("m0 "),
        (Kind::SSrcM0Space(ty), other) => {
            format_operand(out, target, Kind::SSrc(ty), &other, names)
        }
        (_, Operand::Reg(r)) => format_reg(out, r),
        (_, Operand::IntConst(i)) => {
            let _ = write!(out, "{i}");
            if matches!(kind, Kind::SReg(_)) {
                out.push_str(INVALID_IMM);
            }
        }
        (Kind::SSrc(ValType::Plain32), Operand::FloatConst(c)) => {
            hex(out, F32_INLINE[(c - 240) as usize] as u64)
        }
        (Kind::SSrc(ValType::I16), Operand::FloatConst(c)) => {
            hex(out, F16_INLINE[(c - 240) as usize] as u64)
        }
        (Kind::SSrc(ty), Operand::FloatConst(c)) => out.push_str(float_const_text(c, ty)),
        (Kind::SSrc(ty), Operand::Literal { value, wide }) => format_literal(out, value, wide, ty),
        // A register-only operand has no value type: constants print as 32-bit ones.
        (Kind::SReg(_), Operand::FloatConst(c)) => {
            out.push_str(float_const_text(c, ValType::B32));
            out.push_str(INVALID_IMM);
        }
        (Kind::SReg(_), Operand::Literal { value, wide }) => {
            if wide && value >> 32 == 0 {
                format_literal(out, value, wide, ValType::B32);
            } else {
                plain_imm(out, value as u32 as u64, ValType::B32);
                out.push_str(INVALID_IMM);
            }
        }
        (Kind::KImm(KImmStyle::LitHex), Operand::Imm(v)) => hex(out, v as u64),
        (Kind::KImm(KImmStyle::Lit64), Operand::Literal { value, .. }) => {
            if value >> 32 == 0 {
                out.push_str("lit64(");
                hex(out, value);
                out.push(')');
            } else if value as u32 == 0 {
                hex(out, value >> 32);
            } else {
                hex(out, value);
            }
        }
        (Kind::KImm(KImmStyle::LitHex16InlineAlias), Operand::Imm(v)) => {
            let alias = match v {
                128..=192 => v - 128,
                193..=208 => (-((v - 192) as i32)) as u16 as u32,
                240..=248 => F32_INLINE[(v - 240) as usize],
                _ => v,
            };
            hex(out, alias as u64)
        }
        (Kind::KImm(KImmStyle::LitHexInlineAlias), Operand::Imm(v)) => {
            let alias = match v {
                128..=192 => v - 128,
                193..=208 => (-((v - 192) as i32)) as u32,
                240..=248 => F32_INLINE[(v - 240) as usize],
                _ => v,
            };
            hex(out, alias as u64)
        }
        (Kind::KImm(KImmStyle::LitPlain32), Operand::Imm(v)) => {
            plain_imm(out, v as u64, ValType::B32)
        }
        (Kind::KImm(KImmStyle::LitIntOrHex), Operand::Imm(v)) => {
            if v <= 64 {
                let _ = write!(out, "{v}");
            } else {
                hex(out, v as u64);
            }
        }
        (Kind::Imm16(style), Operand::Imm(v)) => format_imm16(out, style, v, names, target),
        (_, other) => {
            let _ = write!(out, "<{other:?}>");
        }
    }
}

fn format_imm16(out: &mut String, style: Imm16, v: u32, names: Names, target: Target) {
    match style {
        Imm16::Hex => hex(out, v as u64),
        Imm16::IntOrHex => {
            if v <= 64 {
                let _ = write!(out, "{v}");
            } else {
                hex(out, v as u64);
            }
        }
        Imm16::UDec => {
            let _ = write!(out, "{v}");
        }
        Imm16::UDecOmitZero => {
            if v != 0 {
                let _ = write!(out, "{v}");
            }
        }
        Imm16::Hwreg => {
            let id = v & 0x3f;
            let offset = (v >> 6) & 0x1f;
            let size = ((v >> 11) & 0x1f) + 1;
            out.push_str("hwreg(");
            match names.hwreg.get(id as usize).copied().flatten() {
                Some(name) => out.push_str(name),
                None => {
                    let _ = write!(out, "{id}");
                }
            }
            if !(offset == 0 && size == 32) {
                let _ = write!(out, ", {offset}, {size}");
            }
            out.push(')');
        }
        Imm16::SendMsg => {
            if let Some(&(_, _, t)) = names
                .sendmsg
                .iter()
                .find(|&&(care, val, _)| v as u16 & care == val)
            {
                let _ = write!(out, "sendmsg({t})");
                return;
            }
            let (id, op, stream, exact) = match target.family() {
                Family::Gfx12_5 => (v & 0xff, 0, 0, v < 0x100),
                Family::Gfx9 => (v & 0xf, (v >> 4) & 7, (v >> 8) & 3, v & !0x37f == 0),
            };
            if exact {
                let _ = write!(out, "sendmsg({id}, {op}, {stream})");
            } else {
                let _ = write!(out, "{v}");
            }
        }
        Imm16::SendMsgRtn => match names.sendmsg_rtn.get(v as usize).copied().flatten() {
            Some(n) => {
                let _ = write!(out, "sendmsg({n})");
            }
            None => {
                let _ = write!(out, "sendmsg({v}, 0, 0)");
            }
        },
        Imm16::Waitcnt => {
            let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
            let exp = (v >> 4) & 7;
            let lgkm = (v >> 8) & 0xf;
            let all = vm == 63 && exp == 7 && lgkm == 15;
            let mut parts = Vec::new();
            if vm != 63 || all {
                parts.push(format!("vmcnt({vm})"));
            }
            if exp != 7 || all {
                parts.push(format!("expcnt({exp})"));
            }
            if lgkm != 15 || all {
                parts.push(format!("lgkmcnt({lgkm})"));
            }
            out.push_str(&parts.join(" "));
        }
        Imm16::DelayAlu => {
            const ID: [&str; 12] = [
                "NO_DEP",
                "VALU_DEP_1",
                "VALU_DEP_2",
                "VALU_DEP_3",
                "VALU_DEP_4",
                "TRANS32_DEP_1",
                "TRANS32_DEP_2",
                "TRANS32_DEP_3",
                "FMA_ACCUM_CYCLE_1",
                "SALU_CYCLE_1",
                "SALU_CYCLE_2",
                "SALU_CYCLE_3",
            ];
            const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
            let id0 = v & 0xf;
            let skip = (v >> 4) & 7;
            let id1 = (v >> 7) & 0xf;
            let name = |table: &[&'static str], i: u32, what: &'static str| -> String {
                match table.get(i as usize) {
                    Some(n) => n.to_string(),
                    None => format!("/* invalid {what} value */"),
                }
            };
            let mut parts = Vec::new();
            if id0 != 0 {
                parts.push(format!("instid0({})", name(&ID, id0, "instid")));
            }
            if skip != 0 {
                parts.push(format!("instskip({})", name(&SKIP, skip, "instskip")));
            }
            if id1 != 0 {
                parts.push(format!("instid1({})", name(&ID, id1, "instid")));
            }
            if parts.is_empty() {
                out.push('0');
            } else {
                out.push_str(&parts.join(" | "));
            }
        }
        Imm16::DepCtr => {
            // (name, shift, width), in LLVM's printing order; every field's default is all ones.
            const FIELDS: [(&str, u32, u32); 7] = [
                ("depctr_hold_cnt", 7, 1),
                ("depctr_sa_sdst", 0, 1),
                ("depctr_va_vdst", 12, 4),
                ("depctr_va_sdst", 9, 3),
                ("depctr_va_ssrc", 8, 1),
                ("depctr_va_vcc", 1, 1),
                ("depctr_vm_vsrc", 2, 3),
            ];
            let known: u32 = FIELDS.iter().map(|&(_, s, w)| ((1 << w) - 1) << s).sum();
            if v & !known & 0xffff != 0 {
                hex(out, v as u64);
                return;
            }
            let non_default = FIELDS
                .iter()
                .any(|&(_, s, w)| (v >> s) & ((1 << w) - 1) != (1 << w) - 1);
            let mut parts = Vec::new();
            for &(n, s, w) in &FIELDS {
                let f = (v >> s) & ((1 << w) - 1);
                if f != (1 << w) - 1 || !non_default {
                    parts.push(format!("{n}({f})"));
                }
            }
            out.push_str(&parts.join(" "));
        }
    }
}

/// Most operands any modelled instruction has.
pub const MAX_OPERANDS: usize = 10;

/// One decoded operand with its table shape and the raw field value it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstOperand {
    /// The table's operand shape (a reference: copying the shape into every decoded operand
    /// made instructions twice as large, and moving them dominated decoding).
    pub spec: &'static OperandSpec,
    pub value: Operand,
    /// The encoding field's value.
    pub raw: u32,
}

/// The operands of one instruction, decoded under its table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decoded {
    pub operands: [Option<InstOperand>; MAX_OPERANDS],
    /// The literal as encoded, if any: (value, 64-bit form).
    pub literal: Option<(u64, bool)>,
    /// Length in bytes, literal included.
    pub len: usize,
}

/// Decodes the operands of the instruction at the start of `inst` (its first dword is `word`)
/// under the table entry `info`.
pub fn decode_fields(
    target: Target,
    info: &OpInfo,
    word: Word,
    inst: &[u8],
) -> Result<Decoded, OperandError> {
    let mut operands = [None; MAX_OPERANDS];
    let (len, literal) = decode_fields_into(target, info, word, inst, &mut operands)?;
    Ok(Decoded { operands, literal, len })
}

/// [`decode_fields`] writing the operands in place (the decoder's hot path: an instruction's
/// operand array is large, and moving it dominated decoding). Returns the length and literal.
pub fn decode_fields_into(
    target: Target,
    info: &OpInfo,
    word: Word,
    inst: &[u8],
    operands: &mut [Option<InstOperand>; MAX_OPERANDS],
) -> Result<(usize, Option<(u64, bool)>), OperandError> {
    for &(f, u) in info.unused {
        match u {
            Unused::MustBe(v) if f.extract(word) != v => return Err(OperandError::Invalid),
            Unused::Unmodelled(v) if f.extract(word) != v => return Err(OperandError::Unsupported),
            Unused::ZeroBits(m) if f.extract(word) & m != 0 => return Err(OperandError::Invalid),
            _ => {}
        }
    }
    if info.operands.len() > MAX_OPERANDS {
        return Err(OperandError::Unsupported);
    }
    let fixed = super::spec::format_len(target.family(), info.format);
    // GFX12.5: one operand in the 64-bit literal form (254) makes the instruction's shared
    // literal 64 bits wide for every literal operand, whichever comes first.
    let wide_lit = target.family() == Family::Gfx12_5
        && info
            .operands
            .iter()
            .any(|s| scalar_source_kind(s.kind) && s.field.extract(word) == 254);
    // GFX9 DS with the acc bit (25): the data and destination registers are AGPRs (tuples end
    // at a255). The table entry lists the field as Unused when LLVM rejects or ignores the bit.
    let ds_acc = info.format == super::spec::Format::Ds
        && target.family() == Family::Gfx9
        && super::spec::Field::DsAcc.extract(word) == 1
        && !info.unused.iter().any(|(f, _)| *f == super::spec::Field::DsAcc);
    let mut raws = [0u32; MAX_OPERANDS];
    for (r, spec) in raws.iter_mut().zip(info.operands) {
        *r = spec.field.extract(word);
    }
    decode_operands_into(target, info, word, &raws, fixed, inst, operands, wide_lit, ds_acc)
}

/// The operand loop of [`decode_fields_into`], once the entry's unused fields are checked:
/// `raws` holds each operand's field value, `fixed` the length of the fixed part, `wide_lit`
/// whether a GFX12.5 operand selects the 64-bit literal form, `ds_acc` whether GFX9 DS data
/// and destination registers are AGPRs. (The decoder's precomputed entries call it directly.)
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn decode_operands_into(
    target: Target,
    info: &OpInfo,
    word: Word,
    raws: &[u32; MAX_OPERANDS],
    fixed: usize,
    inst: &[u8],
    operands: &mut [Option<InstOperand>; MAX_OPERANDS],
    wide_lit: bool,
    ds_acc: bool,
) -> Result<(usize, Option<(u64, bool)>), OperandError> {
    let mut lits = LitReader::new(inst, fixed);
    let mut warn = String::new();
    if wide_lit {
        let _ = lits.read(true)?;
    }
    let specs = info.operands;
    for i in 0..specs.len().min(MAX_OPERANDS) {
        let spec = &specs[i];
        let raw = raws[i];
        let value = operand_value(target, spec, raw, word, &mut lits, &mut warn, ds_acc)?;
        operands[i] = Some(InstOperand { spec, value, raw });
    }
    Ok((fixed + lits.extra_len(), lits.lit))
}

/// One operand of [`decode_operands_into`]: field value `raw` under `spec` (common cases by
/// [`quick_operand`], the rest by [`decode_operand`]); `ds_acc`: GFX9 DS data and destination
/// registers are AGPRs.
#[inline(never)]
pub fn operand_value(
    target: Target,
    spec: &OperandSpec,
    raw: u32,
    word: Word,
    lits: &mut LitReader<'_>,
    warn: &mut String,
    ds_acc: bool,
) -> Result<Operand, OperandError> {
    let mut value = match quick_operand(target.family(), spec.kind, raw, word) {
        Some(v) => v,
        None => decode_operand(target, spec.kind, raw, word, lits, warn)?,
    };
    if ds_acc
        && matches!(
            spec.field,
            super::spec::Field::DsVdst | super::spec::Field::DsData0 | super::spec::Field::DsData1
        )
    {
        if let Operand::Reg(r) = value {
            if r.index as u32 + r.dwords as u32 > 256 {
                return Err(OperandError::Invalid);
            }
            value = Operand::Reg(Reg { class: RegClass::Agpr, ..r });
        }
    }
    Ok(value)
}

/// LLVM's spelling of a `ds_swizzle_b32` pattern (LLVM's `AMDGPU::Swizzle` encodings): quad
/// perm (bits 15:8 = 0x80), rotate (15:13 = 6: direction bit 10, amount 9:5), FFT (15:13 = 7:
/// bits 4:0), and below 0x8000 the bit-mask mode `lane = ((lane & and) | or) ^ xor` (and 4:0,
/// or 9:5, xor 14:10) named SWAP, REVERSE or BROADCAST where one fits, else BITMASK_PERM with a
/// character per lane bit (4 first): 0/1 forced, p kept, i inverted. Other values: decimal.
pub fn swizzle_text(v: u16) -> String {
    let f = |shift: u32| (v >> shift) & 0x1f;
    if v & 0xff00 == 0x8000 {
        let s = |k: u32| (v >> (2 * k)) & 3;
        return format!("swizzle(QUAD_PERM,{},{},{},{})", s(0), s(1), s(2), s(3));
    }
    if v & 0xe000 == 0xe000 {
        return format!("swizzle(FFT,{})", f(0));
    }
    if v & 0xe000 == 0xc000 {
        return format!("swizzle(ROTATE,{},{})", (v >> 10) & 1, f(5));
    }
    if v & 0x8000 != 0 {
        return v.to_string();
    }
    let (and, or, xor) = (f(0), f(5), f(10));
    if and == 0x1f && or == 0 && xor.is_power_of_two() {
        return format!("swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && (xor + 1).is_power_of_two() && xor != 0 {
        return format!("swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x20 - and;
    if xor == 0 && and != 0x1f && group.is_power_of_two() && or < group {
        return format!("swizzle(BROADCAST,{group},{or})");
    }
    let bits: String = (0..5)
        .rev()
        .map(|i| {
            let (a, o, x) = ((and >> i) & 1, (or >> i) & 1, (xor >> i) & 1);
            match (o, a, x) {
                (1, _, 0) => '1',
                (1, _, _) => '0',
                (0, 1, 0) => 'p',
                (0, 1, _) => 'i',
                (_, _, 0) => '0',
                _ => '1',
            }
        })
        .collect();
    format!("swizzle(BITMASK_PERM,\"{bits}\")")
}

/// LLVM's text for an instruction: mnemonic, operands, and LLVM's alignment warnings as a
/// trailing comment.
/// `word` is the instruction's fixed part (for the VOP3 neg/abs bits).
pub fn format_inst(
    target: Target,
    mnemonic: &str,
    operands: &[Option<InstOperand>],
    word: Option<Word>,
    names: Names,
) -> String {
    let mut s = String::from(mnemonic);
    let mut warn = String::new();
    let mut first = true;
    let mut t = String::new();
    for op in operands.iter().flatten() {
        t.clear();
        format_operand_w(&mut t, target, op.spec.kind, &op.value, names, word);
        if let (
            Kind::VSrcM { idx, mods, .. } | Kind::VSrcSgpr { idx, mods, .. },
            Some(word),
        ) = (op.spec.kind, word)
        {
            let (neg, abs) = src_mod_bits(word, idx);
            match mods {
                SrcMods::ModsNegAbs => t = with_src_mods(&t, &op.value, (neg, abs)),
                SrcMods::ModsNegOnly => t = with_src_mods(&t, &op.value, (neg, false)),
                _ => {}
            }
        }
        if !t.is_empty() {
            let modifier = matches!(
                op.spec.kind,
                Kind::DsOffset16
                    | Kind::DsOffsetPair
                    | Kind::DsSwizzle
                    | Kind::FlatOff13
                    | Kind::FlatOff13U
                    | Kind::VfOff24
                    | Kind::VfCachePolicy { .. }
                    | Kind::VfAtomicCachePolicy
                    | Kind::Flag(_)
                    | Kind::SmemCachePolicy
                    | Kind::Omod
                    | Kind::OpSel { .. }
                    | Kind::OpSelFiBc
                    | Kind::OpSelMasked { .. }
                    | Kind::PkBits { .. }
                    | Kind::MaiMod(_)
            );
            s.push_str(if first || modifier { " " } else { ", " });
            s.push_str(&t);
            first = false;
        }
        if let Operand::Reg(r) = op.value {
            // The register encoding the field names (SMEM bases hold it halved).
            let enc = if matches!(op.spec.kind, Kind::SBase { .. }) {
                op.raw.wrapping_mul(2)
            } else {
                op.raw
            };
            let idx = match r.class {
                RegClass::Sgpr => Some(("SGPR", enc)),
                RegClass::Ttmp => Some(("TTMP", enc.wrapping_sub(108))),
                _ => None,
            };
            if let Some((class, idx)) = idx {
                let a = match r.dwords {
                    1 => 1,
                    2 => 2,
                    _ => 4,
                };
                if a > 1 && idx % a != 0 {
                    let _ = write!(
                        warn,
                        "Warning: {}_{}: scalar reg isn't aligned {}",
                        class,
                        32 * r.dwords as u32,
                        idx
                    );
                }
            }
        }
    }
    if !warn.is_empty() {
        s.push_str(" ; ");
        s.push_str(&warn);
    }
    s
}
