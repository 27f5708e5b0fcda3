//! The decoder's fast path. Per target, a route for each value of the first dword's top nine
//! bits (the format, its opcode field and length, which per-word checks apply) and, per table
//! entry, the operand field positions and the unused-field constraints folded into word masks,
//! all computed once from the tables: an ordinary instruction then decodes with a few loads,
//! shifts and compares. Whatever is not ordinary (formats and opcodes with their own decoder,
//! encodings LLVM crashes on, unused-field values off the common case, any error) goes to the
//! general path in [`crate::decode`], which stays the definition of what a word decodes to.

use crate::operand::{self, Operand, Reg, RegClass, MAX_OPERANDS};
use crate::spec::{self, Family, Field, Format, OpInfo, Target, Unused, Word};
use crate::{bitop3, dpp, mai, tables, vbuffer, wmma};
use std::sync::OnceLock;

/// Route flags: the word's src0 may select DPP/SDWA (VOP1/VOP2/VOPC), its VOP3 src0 may select
/// DPP (gfx1250 VOP3), LLVM may crash on it ([`spec::oracle_crashes64`]), the format depends on
/// the GFX9 FLAT segment bits 15:14.
const VOP_EXT: u8 = 1;
const VOP3_DPP: u8 = 2;
const ORACLE: u8 = 4;
const SEG: u8 = 8;

/// Plan flags: GFX9 DS whose acc bit (25) makes data and destination AGPRs; a FLAT-family
/// entry (memory offset and cache policy); unused-field constraints the masks do not capture.
const DS_ACC: u8 = 1;
const FLAT: u8 = 2;
const SLOW_UNUSED: u8 = 4;

/// A field read as `(word >> shift) & mask`; `shift` SPLIT: read with [`Field::extract`].
const SPLIT: u8 = u8::MAX;

/// What the top nine bits of a first dword say.
#[derive(Clone, Copy)]
struct Route {
    /// Index into `Target::plans` (NONE: general path).
    plans: u8,
    shift: u8,
    opmask: u16,
    /// Bytes of the fixed part.
    flen: u8,
    flags: u8,
}

const NONE: u8 = u8::MAX;

/// One table entry, ready to decode.
pub(crate) struct Plan {
    pub info: &'static OpInfo,
    /// The word bits that MustBe/ZeroBits constraints fix (else the word is invalid) and those
    /// that Unmodelled ones fix (else unsupported); a mismatch takes the general path.
    fix_mask: Word,
    fix_val: Word,
    /// The operands' fields: (shift, mask).
    fields: [(u8, u32); MAX_OPERANDS],
    /// Operands whose field uses the scalar source encodings (bit i: operand i).
    scalar_srcs: u16,
    flags: u8,
    /// FLAT family: the operand holding the memory offset and how it reads (`MEM_*`), and
    /// the cache-policy bit each operand sets when its field is non-zero (0: none).
    mem: (u8, u8),
    cache: [u8; MAX_OPERANDS],
    /// Per operand: how the common values decode without the rules (`Q_*`; each gives what
    /// [`operand::quick_operand`] gives), the register width and the immediate mask they use.
    quick: [u8; MAX_OPERANDS],
    dwords: [u8; MAX_OPERANDS],
    imm_mask: [u32; MAX_OPERANDS],
    /// Per operand: the bits of the word's low 64 that must be clear for the `quick` class to
    /// apply (the neg/abs bits of a source whose modifiers would make the word invalid).
    bad_mods: [u64; MAX_OPERANDS],
    /// FLAT family: the operands whose field sets a cache-policy bit (bit i: operand i).
    cache_ops: u16,
}

/// The word bits (low 64) whose being set makes source `kind`'s modifiers invalid, as
/// `operand::quick_operand` checks them (neg at 61 + idx, abs at 8 + idx).
fn bad_mods(kind: spec::Kind) -> u64 {
    use spec::{Kind, SrcMods};
    match kind {
        Kind::VSrcM { idx, mods: SrcMods::ModsInvalid, .. } | Kind::VSrcNoConst { idx, mods: SrcMods::ModsInvalid, .. }
            if idx <= 2 =>
        {
            1 << (61 + idx) | 1 << (8 + idx)
        }
        Kind::VSrcM { idx, mods: SrcMods::ModsNegInvalid, .. } | Kind::VSrcNoConst { idx, mods: SrcMods::ModsNegInvalid, .. }
            if idx <= 2 =>
        {
            1 << (61 + idx)
        }
        _ => 0,
    }
}

/// Operand classes of the fast loop: a VGPR field (values up to 255), a VALU source (values
/// from 256 are VGPRs, the others as a scalar source), a scalar source (aligned SGPRs of 1 or 2
/// dwords, inline integers), a scalar destination (aligned SGPRs), an immediate (the field under
/// a mask), an implicit operand; anything else, and the other values of these, go through
/// [`operand::operand_value`].
const Q_RULES: u8 = 0;
const Q_VGPR: u8 = 1;
const Q_VSRC: u8 = 2;
const Q_SSRC: u8 = 3;
const Q_SDST: u8 = 4;
const Q_IMM: u8 = 5;
const Q_IMPLICIT: u8 = 6;
/// FLAT-family address VGPR (two dwords when the SGPR address is `off`), SGPR address (`off`
/// or an aligned SGPR pair), data/destination VGPRs (while bit 55, the GFX9 `acc` bit, is clear).
const Q_FLAT_VADDR: u8 = 7;
const Q_FLAT_SADDR: u8 = 8;
const Q_FLAT_DATA: u8 = 9;
/// A VALU source whose constants take the rules; an AGPR destination (values up to 255).
const Q_VSRC_NOCONST: u8 = 10;
const Q_AGPR: u8 = 11;

/// The fast class of an operand of kind `kind` in field `field` (see `Q_*`), with its register
/// width and immediate mask.
fn quick_class(kind: spec::Kind, field: Field) -> (u8, u8, u32) {
    use spec::{Kind, SrcMods};
    // (Source modifiers that make a word invalid are checked by `bad_mods`.)
    // A GFX9 DS data/destination field may name AGPRs (the acc bit): left to the rules.
    let ds_data = matches!(field, Field::DsVdst | Field::DsData0 | Field::DsData1);
    if let Some(dwords) = operand::plain_vgpr_dwords(kind).filter(|_| !ds_data) {
        return (Q_VGPR, dwords, 0);
    }
    if let Some(mask) = operand::plain_imm_mask(kind) {
        return (Q_IMM, 0, mask);
    }
    match kind {
        Kind::VSrc(ty) | Kind::VSrcLo128(ty) => (Q_VSRC, ty.dwords() as u8, 0),
        Kind::SSrc(ty) | Kind::SReg(ty) | Kind::SSrcM0Space(ty) => (Q_SSRC, ty.dwords() as u8, 0),
        // (SDst8, SDstNoM0 and SDstX differ from SDst only outside the SGPRs.)
        Kind::SDst { dwords } | Kind::SDst8 { dwords } | Kind::SDstNoM0 { dwords } | Kind::SDstX { dwords, .. }
            if dwords <= 2 =>
        {
            (Q_SDST, dwords, 0)
        }
        // A VALU source without inline constants decodes as a 32- or 64-bit source once its
        // modifiers are valid (checked by `bad_mods`); constants there go to the rules.
        Kind::VSrcNoConst { dwords, idx, mods } if idx <= 2 || matches!(mods, SrcMods::ModsNegAbs | SrcMods::ModsNegOnly | SrcMods::ModsIgnored) => {
            (Q_VSRC_NOCONST, if dwords >= 2 { 2 } else { 1 }, 0)
        }
        Kind::ADst { dwords } => (Q_AGPR, dwords, 0),
        Kind::VSrcM { ty, idx, mods } if idx <= 2 || matches!(mods, SrcMods::ModsNegAbs | SrcMods::ModsNegOnly | SrcMods::ModsIgnored) => {
            (Q_VSRC, ty.dwords() as u8, 0)
        }
        Kind::FlatVaddrG => (Q_FLAT_VADDR, 0, 0),
        Kind::FlatSaddrK { dwords, .. } | Kind::FlatSaddrOpt { dwords, .. } if dwords <= 2 => (Q_FLAT_SADDR, dwords, 0),
        Kind::VDataRtn { dwords } | Kind::FlatDst { dwords } | Kind::FlatData { dwords } => (Q_FLAT_DATA, dwords, 0),
        Kind::Fixed(_) => (Q_IMPLICIT, 0, 0),
        _ => (Q_RULES, 0, 0),
    }
}

const MEM_NONE: u8 = 0;
const MEM_S13: u8 = 1;
const MEM_S24: u8 = 2;
const MEM_U13: u8 = 3;

struct TargetPlans {
    routes: [Route; 512],
    /// GFX9 FLAT/SCRATCH/GLOBAL by segment (bits 15:14 = 0, 1, 2): plan indices.
    seg: [u8; 3],
    plans: Vec<Vec<Option<Plan>>>,
}

fn mask_of(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

fn plan(target: Target, format: Format, opcode: usize, info: &'static OpInfo) -> Option<Plan> {
    let fam = target.family();
    let op = opcode as u16;
    // Opcodes with their own decoder, checked by `decode` before the table.
    let special = (fam == Family::Gfx12_5 && format == Format::Vop3p && wmma::by_opcode(op).is_some())
        || (target != Target::Gfx942 && format == Format::Vop3 && op == bitop3::OPCODE)
        || (target == Target::Gfx950 && format == Format::Vop3p && op == mai::LD_SCALE_OPCODE)
        || (fam == Family::Gfx9 && format == Format::Vop3p && mai::by_opcode(target, op).is_some())
        || info.operands.len() > MAX_OPERANDS
        || info.format != format;
    if special {
        return None;
    }
    let mut p = Plan {
        info,
        fix_mask: 0,
        fix_val: 0,
        fields: [(0, 0); MAX_OPERANDS],
        scalar_srcs: 0,
        flags: 0,
        mem: (0, MEM_NONE),
        cache: [0; MAX_OPERANDS],
        quick: [Q_RULES; MAX_OPERANDS],
        dwords: [0; MAX_OPERANDS],
        imm_mask: [0; MAX_OPERANDS],
        bad_mods: [0; MAX_OPERANDS],
        cache_ops: 0,
    };
    for (i, s) in info.operands.iter().enumerate() {
        let (shift, width) = s.field.bits();
        p.fields[i] = if s.field == Field::Vop3pOpSelHi || (shift < 64 && shift + width > 64) {
            (SPLIT, 0)
        } else if width == 0 {
            (0, 0)
        } else {
            (shift as u8, mask_of(width))
        };
        if operand::scalar_source_kind(s.kind) {
            p.scalar_srcs |= 1 << i;
        }
        (p.quick[i], p.dwords[i], p.imm_mask[i]) = quick_class(s.kind, s.field);
        p.bad_mods[i] = bad_mods(s.kind);
    }
    for &(f, u) in info.unused {
        let (shift, width) = f.bits();
        let m = mask_of(width);
        let (bits, val) = match u {
            Unused::Ignored => continue,
            Unused::MustBe(v) | Unused::Unmodelled(v) => (m, v),
            Unused::ZeroBits(z) => (z & m, 0),
        };
        if f == Field::Vop3pOpSelHi || width == 0 || val & !bits != 0 {
            p.flags |= SLOW_UNUSED;
            continue;
        }
        p.fix_mask |= (bits as Word) << shift;
        p.fix_val |= (val as Word) << shift;
    }
    if format == Format::Ds && fam == Family::Gfx9 && !info.unused.iter().any(|(f, _)| *f == Field::DsAcc) {
        p.flags |= DS_ACC;
    }
    if matches!(info.format, Format::Flat | Format::Global | Format::Scratch) {
        p.flags |= FLAT;
        // As `crate::mem_offset` and `crate::cache_policy` read them.
        if let Some((i, s)) = info.operands.iter().enumerate().find(|(_, s)| {
            matches!(s.kind, spec::Kind::FlatOff13 | spec::Kind::VfOff24 | spec::Kind::FlatOff13U)
        }) {
            p.mem = (
                i as u8,
                match s.kind {
                    spec::Kind::FlatOff13 => MEM_S13,
                    spec::Kind::VfOff24 => MEM_S24,
                    _ => MEM_U13,
                },
            );
        }
        for (i, s) in info.operands.iter().enumerate() {
            p.cache[i] = match s.field {
                Field::FlatSc0 => 1,
                Field::FlatSc1 => 2,
                Field::FlatNt => 4,
                _ => 0,
            };
            if p.cache[i] != 0 {
                p.cache_ops |= 1 << i;
            }
        }
    }
    Some(p)
}

fn build(target: Target) -> TargetPlans {
    let fam = target.family();
    let mut formats: Vec<Format> = Vec::new();
    let mut plans: Vec<Vec<Option<Plan>>> = Vec::new();
    let mut index = |format: Format| -> u8 {
        if let Some(i) = formats.iter().position(|f| *f == format) {
            return i as u8;
        }
        let table = tables::table(target, format);
        plans.push(
            table
                .iter()
                .enumerate()
                .map(|(op, e)| e.as_ref().and_then(|info| plan(target, format, op, info)))
                .collect(),
        );
        formats.push(format);
        (formats.len() - 1) as u8
    };
    let general = Route { plans: NONE, shift: 0, opmask: 0, flen: 0, flags: 0 };
    let mut routes = [general; 512];
    for (top, r) in routes.iter_mut().enumerate() {
        let word = (top as u32) << 23;
        let format = crate::classify(target, word);
        let seg = fam == Family::Gfx9 && format == Format::Flat;
        // gfx1250 words that `decode` hands to other decoders before the tables.
        let other = (fam == Family::Gfx12_5 && word & vbuffer::MASK == vbuffer::MATCH)
            || !spec::modelled(target, format)
            || tables::table(target, format).is_empty();
        if other && !seg {
            continue;
        }
        let Some((_, _, shift, width)) = spec::format_encoding(fam, format) else { continue };
        let mut flags = 0;
        if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc) {
            flags |= VOP_EXT;
        }
        if fam == Family::Gfx12_5 && format == Format::Vop3 {
            flags |= VOP3_DPP;
        }
        if spec::oracle_may_crash(fam, format) {
            flags |= ORACLE;
        }
        if seg {
            flags |= SEG;
        }
        *r = Route {
            plans: if seg { NONE } else { index(format) },
            shift: shift as u8,
            opmask: mask_of(width) as u16,
            flen: spec::format_len(fam, format) as u8,
            flags,
        };
    }
    let seg = if fam == Family::Gfx9 {
        [index(Format::Flat), index(Format::Scratch), index(Format::Global)]
    } else {
        [NONE; 3]
    };
    TargetPlans { routes, seg, plans }
}

#[inline]
fn target_plans(target: Target) -> &'static TargetPlans {
    static P: [OnceLock<TargetPlans>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    P[target as usize].get_or_init(|| build(target))
}

/// An instruction the fast path takes: its entry, its fixed part and that part's length.
pub(crate) struct Hit {
    pub plan: &'static Plan,
    pub word: Word,
    pub fixed: usize,
}

#[inline]
fn dword(inst: &[u8], i: usize) -> Option<u32> {
    let b: [u8; 4] = inst.get(4 * i..4 * i + 4)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

/// The entry and fixed part of the instruction at the start of `inst`, when it is an ordinary
/// table instruction whose unused fields hold their expected values; `None`: ask the general
/// path.
#[inline]
pub(crate) fn route(target: Target, inst: &[u8]) -> Option<Hit> {
    let t = target_plans(target);
    let w0 = dword(inst, 0)?;
    let r = t.routes[(w0 >> 23) as usize];
    let pi = if r.flags & SEG != 0 {
        *t.seg.get(((w0 >> 14) & 3) as usize)?
    } else {
        r.plans
    };
    if pi == NONE {
        return None;
    }
    let opcode = (w0 >> r.shift) as usize & r.opmask as usize;
    let plan = t.plans[pi as usize].get(opcode)?.as_ref()?;
    let lit = dword(inst, 1).unwrap_or(0);
    if r.flags & VOP_EXT != 0 && spec::vop_extension(target, w0).is_some() {
        return None;
    }
    if r.flags & VOP3_DPP != 0 && dpp::is_vop3_dpp(target, w0, lit) {
        return None;
    }
    let flen = r.flen as usize;
    let mut word = w0 as Word;
    if flen >= 8 {
        word |= (dword(inst, 1)? as Word) << 32;
    }
    if r.flags & ORACLE != 0 && spec::oracle_crashes64(target, word as u64, lit) {
        return None;
    }
    if flen == 12 {
        word |= (dword(inst, 2)? as Word) << 64;
    }
    if plan.flags & SLOW_UNUSED != 0 || word & plan.fix_mask != plan.fix_val {
        return None;
    }
    Some(Hit { plan, word, fixed: flen })
}

/// Decodes the operands of a [`route`] hit into `out` (whose other fields the caller set),
/// with its length, literal and, for the FLAT family, memory offset and cache policy; `false`
/// on any error (the general path then reports it). Every operand slot is written (those past
/// the entry's operands with `None`), so `out` may hold an earlier instruction.
#[inline]
pub(crate) fn fill(target: Target, hit: &Hit, inst: &[u8], out: &mut crate::Instruction) -> bool {
    let p = hit.plan;
    let word = hit.word;
    let specs = p.info.operands;
    let n = specs.len().min(MAX_OPERANDS);
    let (lo, hi) = (word as u64, (word >> 64) as u64);
    let field = |i: usize| -> u32 {
        let (shift, mask) = p.fields[i];
        if shift < 64 {
            (lo >> shift) as u32 & mask
        } else if shift != SPLIT {
            (hi >> (shift - 64)) as u32 & mask
        } else {
            specs[i].field.extract(word)
        }
    };
    // The literal reader and warning text of the general operand rules, made when first needed.
    let mut rules: Option<(operand::LitReader, String)> = None;
    // GFX12.5: a scalar source in the 64-bit literal form makes the shared literal 64 bits.
    if p.scalar_srcs != 0 && target.family() == Family::Gfx12_5 {
        let mut m = p.scalar_srcs;
        while m != 0 {
            let i = (m.trailing_zeros() as usize).min(MAX_OPERANDS - 1);
            if field(i) == 254 {
                let mut lits = operand::LitReader::new(inst, hit.fixed);
                if lits.read(true).is_err() {
                    return false;
                }
                rules = Some((lits, String::new()));
                break;
            }
            m &= m - 1;
        }
    }
    let gfx9 = target.family() == Family::Gfx9;
    let max_sgpr = if gfx9 { 101 } else { 105 };
    // The SGPR-address encoding of `off`.
    let saddr_off = if gfx9 { 0x7f } else { 124 };
    // Every slot cleared at once (a fixed-size loop: ten stores), the operands then written over.
    out.operands = [None; MAX_OPERANDS];
    for i in 0..n {
        let raw = field(i);
        let spec = &specs[i];
        let d = p.dwords[i];
        // What `operand::quick_operand` gives for SGPRs (aligned, 1 or 2 dwords) and, where the
        // operand takes constants, inline integers.
        let sgpr = || raw <= max_sgpr && (d == 1 || (d == 2 && raw & 1 == 0));
        let class = if lo & p.bad_mods[i] != 0 { Q_RULES } else { p.quick[i] };
        let value = match class {
            Q_VGPR if raw <= 255 => Operand::Reg(Reg { class: RegClass::Vgpr, index: raw as u16, dwords: d }),
            Q_IMM => Operand::Imm(raw & p.imm_mask[i]),
            Q_VSRC | Q_VSRC_NOCONST if raw >= 256 => Operand::Reg(Reg { class: RegClass::Vgpr, index: (raw - 256) as u16, dwords: d }),
            Q_AGPR if raw <= 255 => Operand::Reg(Reg { class: RegClass::Agpr, index: raw as u16, dwords: d }),
            Q_VSRC | Q_VSRC_NOCONST | Q_SSRC | Q_SDST if sgpr() => Operand::Reg(Reg { class: RegClass::Sgpr, index: raw as u16, dwords: d }),
            Q_VSRC | Q_SSRC if (128..=192).contains(&raw) => Operand::IntConst((raw - 128) as i8),
            Q_VSRC | Q_SSRC if (193..=208).contains(&raw) => Operand::IntConst(-((raw - 192) as i32) as i8),
            Q_IMPLICIT => Operand::Implicit,
            Q_FLAT_DATA if lo >> 55 & 1 == 0 => Operand::Reg(Reg { class: RegClass::Vgpr, index: raw as u16, dwords: d }),
            Q_FLAT_VADDR => {
                let off = if gfx9 { (lo >> 48) & 0x7f == 0x7f } else { lo & 0x7f == 124 };
                Operand::Reg(Reg { class: RegClass::Vgpr, index: raw as u16, dwords: if off { 2 } else { 1 } })
            }
            Q_FLAT_SADDR if raw == saddr_off => Operand::Implicit,
            Q_FLAT_SADDR if sgpr() => Operand::Reg(Reg { class: RegClass::Sgpr, index: raw as u16, dwords: d }),
            _ => {
                let (lits, warn) = rules.get_or_insert_with(|| (operand::LitReader::new(inst, hit.fixed), String::new()));
                let ds_acc = p.flags & DS_ACC != 0 && Field::DsAcc.extract(word) == 1;
                match operand::operand_value(target, spec, raw, word, lits, warn, ds_acc) {
                    Ok(v) => v,
                    Err(_) => return false,
                }
            }
        };
        out.operands[i] = Some(operand::InstOperand { spec, value, raw });
    }
    let (extra, literal) = match &rules {
        Some((lits, _)) => (lits.extra_len(), lits.lit),
        None => (0, None),
    };
    out.len = (hit.fixed + extra) as u8;
    out.literal = literal;
    if p.flags & FLAT != 0 {
        let v = field((p.mem.0 as usize).min(MAX_OPERANDS - 1));
        let mut cache = 0u16;
        let mut m = p.cache_ops;
        while m != 0 {
            let i = (m.trailing_zeros() as usize).min(MAX_OPERANDS - 1);
            if field(i) != 0 {
                cache |= p.cache[i] as u16;
            }
            m &= m - 1;
        }
        out.mem_offset = match p.mem.1 {
            MEM_S13 => ((v & 0x1fff) << 19) as i32 >> 19,
            MEM_S24 => ((v & 0xff_ffff) << 8) as i32 >> 8,
            MEM_U13 => (v & 0x1fff) as i32,
            _ => 0,
        };
        out.cache = crate::CachePolicy { bits: cache };
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path asks [`spec::oracle_crashes64`] only about the formats
    /// [`spec::oracle_may_crash`] lists: no word of another table format may be one LLVM
    /// crashes on. Random words, with the fields the crash rules read pushed to the values they
    /// test (literal and TTMP encodings, destination 255, the opcodes named there).
    #[test]
    fn oracle_crashes_only_in_listed_formats() {
        let mut next = crate::tests::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut crashes = 0;
        for target in Target::ALL {
            for _ in 0..2_000_000 {
                let r = next();
                let mut w = next();
                let pick = |r: u64, k: u32, vals: &[u64]| vals[((r >> k) as usize) % vals.len()];
                // Sources/destinations at the values the rules test.
                for (shift, width) in [(0u32, 8u32), (0, 9), (32, 9), (41, 9), (50, 9), (6, 7)] {
                    if (r >> (shift + width)) & 3 == 0 {
                        let v = pick(r, shift, &[255, 108, 115, 123, 254, 200, 250, 0, 1]) & ((1 << width) - 1);
                        w = (w & !(((1u64 << width) - 1) << shift)) | v << shift;
                    }
                }
                let lit = if r & 1 == 0 { 0xff } else { next() as u32 };
                let fam = target.family();
                let format = crate::classify(target, w as u32);
                if spec::oracle_crashes64(target, w, lit) {
                    crashes += 1;
                    let tabled = spec::modelled(target, format) && !tables::table(target, format).is_empty();
                    assert!(
                        !tabled || spec::oracle_may_crash(fam, format),
                        "{target:?}: {w:#018x} (lit {lit:#x}) crashes LLVM but {format:?} is not listed"
                    );
                }
            }
        }
        assert!(crashes > 1000, "the sampling reaches the crash rules ({crashes})");
    }
}
