//! The decoder's fast path. Per target, a route for each value of the first dword's top nine
//! bits (the format, its opcode field and length, which per-word checks apply) and, per table
//! entry, a shape shared with the entries that decode alike: the operand field positions, the
//! unused-field constraints folded into word masks and, for operands whose value is a function
//! of their field alone (registers, scalar and VALU sources, flags), that function as a table
//! of values made by the general rules themselves. All of it is computed once, so an ordinary
//! instruction then decodes with a few loads, shifts and compares. Whatever is not ordinary
//! (formats and opcodes with their own decoder, encodings LLVM crashes on, unused-field values
//! off the common case, literals the rules must read, any error) goes to the general path in
//! [`crate::decode`], which stays the definition of what a word decodes to.

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
    /// Where the format's entries start in `TargetPlans::entries` (NONE: general path).
    entries: u16,
    shift: u8,
    opmask: u16,
    /// Bytes of the fixed part.
    flen: u8,
    flags: u8,
}

const NONE: u16 = u16::MAX;

/// One table entry and its shape.
#[derive(Clone, Copy)]
struct Entry {
    info: &'static OpInfo,
    shape: &'static Shape,
}

/// What decoding an entry needs beyond its `OpInfo`, shared by every entry of the same format,
/// operands and unused-field constraints (a few hundred per target), so the decoder's working
/// set is the shapes in use rather than a plan per opcode. Laid out with the fields every
/// decode reads first.
#[repr(C)]
pub(crate) struct Shape {
    /// The word bits that MustBe/ZeroBits constraints fix (else the word is invalid) and those
    /// that Unmodelled ones fix (else unsupported); a mismatch takes the general path.
    fix_mask: Word,
    fix_val: Word,
    /// The operands (those of the first entry of this shape: equal to every other's).
    specs: &'static [spec::OperandSpec],
    /// The bits of the word's low 64 that must be clear for the fast path (the neg/abs bits
    /// of sources whose modifiers would make the word invalid: tables assume valid ones).
    bad_mods: u64,
    /// Operands whose field uses the scalar source encodings (bit i: operand i).
    scalar_srcs: u16,
    flags: u8,
    /// FLAT family: the operand holding the memory offset and how it reads (`MEM_*`).
    mem: (u8, u8),
    /// FLAT family: the operands whose field sets a cache-policy bit (bit i: operand i).
    cache_ops: u16,
    ops: [OpPlan; MAX_OPERANDS],
    /// FLAT family: the cache-policy bit each operand sets when its field is non-zero (0: none).
    cache: [u8; MAX_OPERANDS],
}

/// How one operand decodes: its field (`(word >> shift) & mask`; `shift` SPLIT: read with
/// [`Field::extract`]), its class (`Q_*`), and `arg`: where a `Q_TABLE` operand's values start
/// in `TargetPlans::values` (a half holds a value per field value), or the mask of a `Q_IMM`
/// one. A table with a second half (selected by a word bit, see [`tabled`]) has `half` the
/// size of a half and `acc` the shift that brings that bit to `half`'s, so the half's offset
/// is `(low 64 bits >> acc) & half` (0 without one).
#[derive(Clone, Copy)]
struct OpPlan {
    shift: u8,
    quick: u8,
    acc: u8,
    half: u16,
    mask: u32,
    arg: u32,
}

/// The word bits (low 64) whose being set makes source `kind`'s modifiers invalid, as the
/// rules check them (neg at 61 + idx, abs at 8 + idx).
fn bad_mods(kind: spec::Kind) -> u64 {
    use spec::{Kind, SrcMods};
    match kind {
        Kind::VSrcM { idx, mods: SrcMods::ModsInvalid, .. }
        | Kind::VSrcNoConst { idx, mods: SrcMods::ModsInvalid, .. }
        | Kind::VSrcSgpr { idx, mods: SrcMods::ModsInvalid, .. }
        | Kind::VSrcVgpr { idx, mods: SrcMods::ModsInvalid, .. }
        | Kind::ASrc { idx, mods: SrcMods::ModsInvalid, .. }
            if idx <= 2 =>
        {
            1 << (61 + idx) | 1 << (8 + idx)
        }
        Kind::VSrcM { idx, mods: SrcMods::ModsNegInvalid, .. }
        | Kind::VSrcNoConst { idx, mods: SrcMods::ModsNegInvalid, .. }
        | Kind::VSrcSgpr { idx, mods: SrcMods::ModsNegInvalid, .. }
        | Kind::VSrcVgpr { idx, mods: SrcMods::ModsNegInvalid, .. }
        | Kind::ASrc { idx, mods: SrcMods::ModsNegInvalid, .. }
            if idx <= 2 =>
        {
            1 << (61 + idx)
        }
        _ => 0,
    }
}

/// Operand classes of the fast loop: a tabled operand (its value read from the table by field
/// value, see [`tabled`]), an immediate (the field under a mask), an implicit operand, a
/// FLAT-family address VGPR (two dwords when the SGPR address is `off`); anything else, and the
/// values a table leaves out (literals, warnings), go through [`operand::operand_value`].
const Q_RULES: u8 = 0;
const Q_TABLE: u8 = 1;
/// A tabled operand whose encoding 255 is the 32-bit literal, as encoded (see [`Values::literal`]).
const Q_TABLE_LIT: u8 = 2;
const Q_IMM: u8 = 3;
const Q_IMPLICIT: u8 = 4;
const Q_FLAT_VADDR: u8 = 5;

/// [`tabled`]'s word bit for an operand without a second table.
const NO_ACC: u8 = u8::MAX;

/// Whether the rules decode an operand of kind `kind` in field `field` from the field value
/// alone (given valid source modifiers, see [`bad_mods`]), and if so the word bit (low 64)
/// that selects a second table (`NO_ACC`: none): the bit that makes the registers AGPRs, or
/// for a scratch address the one that says there is a VGPR address. `ds_acc`: the entry is a
/// GFX9 DS one whose acc bit applies (`DS_ACC`).
fn tabled(fam: Family, kind: spec::Kind, field: Field, ds_acc: bool) -> Option<u8> {
    use spec::{Kind, SrcMods};
    let ds_data = matches!(field, Field::DsVdst | Field::DsData0 | Field::DsData1);
    if operand::plain_vgpr_dwords(kind).is_some() {
        return Some(if ds_data && ds_acc { Field::DsAcc.bits().0 as u8 } else { NO_ACC });
    }
    // Narrow immediates (flags: clamp, sc0, nt, ...) by table too, so that the common operands
    // all take one path (the class branch mispredicted between tabled operands and flags).
    if operand::plain_imm_mask(kind).is_some() && field.bits().1 <= 4 {
        return Some(NO_ACC);
    }
    // Source modifiers past the low 64 bits are not in `bad_mods`.
    let mods_low = |idx: u8, mods: SrcMods| {
        idx <= 2 || matches!(mods, SrcMods::ModsNegAbs | SrcMods::ModsNegOnly | SrcMods::ModsIgnored)
    };
    match kind {
        Kind::VSrcNoConst { idx, mods, .. }
        | Kind::VSrcM { idx, mods, .. }
        | Kind::VSrcSgpr { idx, mods, .. }
        | Kind::VSrcVgpr { idx, mods, .. }
        | Kind::ASrc { idx, mods, .. } => mods_low(idx, mods).then_some(NO_ACC),
        // (The other scalar and VALU sources, and the scalar destinations.)
        _ if operand::scalar_source_kind(kind) => Some(NO_ACC),
        Kind::SDst { .. }
        | Kind::SDst8 { .. }
        | Kind::SDstNoM0 { .. }
        | Kind::SDstX { .. }
        | Kind::SBase { .. }
        | Kind::ADst { .. }
        | Kind::FlatSaddrK { .. }
        | Kind::FlatSaddrOpt { .. } => Some(NO_ACC),
        // The data registers of the FLAT family: AGPRs when bit 55 (GFX9 `acc`) is set.
        Kind::VDataRtn { .. } | Kind::FlatDst { .. } | Kind::FlatData { .. } => Some(55),
        // SVE (`Kind::ScratchVaddr` as the rules read it).
        Kind::ScratchVaddr => Some(if fam == Family::Gfx9 { 13 } else { 49 }),
        _ => None,
    }
}

/// The fast class of an operand that is not tabled, with its immediate mask.
fn quick_class(kind: spec::Kind) -> (u8, u32) {
    if let Some(mask) = operand::plain_imm_mask(kind) {
        return (Q_IMM, mask);
    }
    match kind {
        spec::Kind::FlatVaddrG => (Q_FLAT_VADDR, 0),
        spec::Kind::Fixed(_) => (Q_IMPLICIT, 0),
        _ => (Q_RULES, 0),
    }
}

/// A map for building the plans: its keys are the crate's own tables, hashed with a
/// multiply-rotate hash (the default SipHash, made for untrusted keys, was most of the time
/// of building a target's plans, which the first decode in a process pays).
type QuickMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<QuickHasher>>;

#[derive(Default)]
struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// The capacity of a target's value tables: a power of two, so a lookup masks its index
/// instead of checking it (the tables of a target hold about 7,000 values).
const VALUES: usize = 1 << 14;

/// The operand values of tabled operands, shared by every entry whose table is the same.
#[derive(Default)]
struct Values {
    values: Vec<Option<Operand>>,
    /// Tables made, by what decides their values: where each starts and whether its operand
    /// takes the plain 32-bit literal (see [`Values::literal`]).
    made: QuickMap<(spec::OperandSpec, u8, bool), (u32, bool)>,
    /// Tables by content (kinds that decode alike share one).
    index: QuickMap<Vec<Option<Operand>>, u32>,
    /// Tables refused for want of room (their operands take the rules: slower, not wrong).
    refused: usize,
}

/// A target's tables made ahead of time (`tables/fast_*.rs`, written by
/// [`fast_tables_source`]): the values, and per table what decides it (spec, second-table bit,
/// GFX9 DS acc) with where it starts and whether its operand takes the plain literal. Building
/// them took 1.5 ms of the first decode in a process; a table the seed lacks (the rules or the
/// opcode tables changed since it was written) is still made at run time, and a test requires
/// the checked-in seed to equal a fresh one.
pub(crate) struct Seed {
    pub values: &'static [Option<Operand>],
    pub made: &'static [(spec::OperandSpec, u8, bool, u32, bool)],
}

impl Values {
    fn seeded(seed: Option<&Seed>) -> Values {
        let mut v = Values::default();
        if let Some(seed) = seed.filter(|s| s.values.len() <= VALUES) {
            v.values.extend_from_slice(seed.values);
            for &(spec, acc, ds_acc, at, literal) in seed.made {
                if (at as usize) < seed.values.len() {
                    v.made.insert((spec, acc, ds_acc), (at, literal));
                }
            }
        }
        v
    }

    /// Whether the rules decode encoding 255 of `spec` as the 32-bit literal that follows,
    /// as encoded (so the fast path may read it itself): tried on two literal values.
    fn literal(target: Target, spec: &spec::OperandSpec) -> bool {
        let (shift, _) = spec.field.bits();
        [0x1234_5678u32, 0x8000_0001].iter().all(|&lit| {
            let bytes = [lit.to_le_bytes(), [0xff; 4]].concat();
            let mut lits = operand::LitReader::new(&bytes, 0);
            let mut warn = String::new();
            let v = operand::operand_value(target, spec, 255, 255 << shift, &mut lits, &mut warn, false);
            let want = Operand::Literal { value: lit as u64, wide: false };
            v == Ok(want) && warn.is_empty() && lits.lit == Some((lit as u64, false)) && !lits.kimm
        })
    }

    /// Where the table of `spec` (two halves when `acc` names a word bit: clear, set) starts,
    /// and [`Values::literal`] of `spec`; `None` when the tables are full. Each value is as the rules give it for a word holding
    /// only the field value and that bit, with no literal; `None` where the rules fail, need
    /// the literal or warn (the fast path then asks them).
    fn table(&mut self, target: Target, spec: &spec::OperandSpec, acc: u8, ds_acc: bool) -> Option<(u32, bool)> {
        if let Some(&made) = self.made.get(&(*spec, acc, ds_acc)) {
            return Some(made);
        }
        let (shift, width) = spec.field.bits();
        let halves = if acc == NO_ACC { 1 } else { 2 };
        let mut t = Vec::with_capacity(halves << width);
        for a in 0..halves {
            for raw in 0..1u32 << width {
                let mut word = (raw as Word) << shift;
                if a == 1 {
                    word |= 1 << acc;
                }
                let mut lits = operand::LitReader::new(&[], 0);
                let mut warn = String::new();
                let v = operand::operand_value(target, spec, raw, word, &mut lits, &mut warn, ds_acc && a == 1);
                t.push(v.ok().filter(|_| warn.is_empty() && lits.lit.is_none() && !lits.kimm));
            }
        }
        let at = match self.index.get(&t) {
            Some(&at) => at,
            // (Past the capacity the operand takes the rules.)
            None if self.values.len() + t.len() > VALUES => {
                self.refused += 1;
                return None;
            }
            None => {
                let at = self.values.len() as u32;
                self.values.extend_from_slice(&t);
                self.index.insert(t, at);
                at
            }
        };
        let made = (at, Values::literal(target, spec));
        self.made.insert((*spec, acc, ds_acc), made);
        Some(made)
    }
}

const MEM_NONE: u8 = 0;
const MEM_S13: u8 = 1;
const MEM_S24: u8 = 2;
const MEM_U13: u8 = 3;

struct TargetPlans {
    routes: [Route; 512],
    /// GFX9 FLAT/SCRATCH/GLOBAL by segment (bits 15:14 = 0, 1, 2): where their entries start.
    seg: [u16; 3],
    /// The entries of every format routed, each format's by opcode over its whole opcode
    /// field (so a route's start plus any opcode stays inside the format).
    entries: Vec<Option<Entry>>,
    /// The tabled operands' values (see [`Values`]), how many are in use, and how many tables
    /// did not fit.
    values: &'static [Option<Operand>; VALUES],
    #[cfg_attr(not(test), allow(dead_code))] // (checked by a test)
    values_used: usize,
    #[cfg_attr(not(test), allow(dead_code))]
    tables_refused: usize,
}

fn mask_of(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

/// Entries that decode alike: the shapes made so far, by what decides them.
#[derive(Default)]
struct Shapes {
    shapes: Vec<Shape>,
    by_key: QuickMap<(Format, &'static [spec::OperandSpec], &'static [(Field, Unused)]), u32>,
}

/// The fast path's entry for `info`, opcode `opcode` of `format`, as its shape's index in
/// `shapes`; `None`: the general path decodes it.
fn entry(target: Target, format: Format, opcode: usize, info: &'static OpInfo, shapes: &mut Shapes, values: &mut Values) -> Option<u32> {
    let fam = target.family();
    let op = opcode as u16;
    // Opcodes with their own decoder, checked by `decode` before the table.
    let special = (fam == Family::Gfx12_5 && format == Format::Vop3p && wmma::by_opcode(op).is_some())
        || (format == Format::Vop3 && bitop3::is_bitop3_opcode(target, op))
        || (target == Target::Gfx950 && format == Format::Vop3p && op == mai::LD_SCALE_OPCODE)
        || (fam == Family::Gfx9 && format == Format::Vop3p && mai::by_opcode(target, op).is_some())
        || info.operands.len() > MAX_OPERANDS
        || info.format != format;
    if special {
        return None;
    }
    let key = (format, info.operands, info.unused);
    if let Some(&shape) = shapes.by_key.get(&key) {
        return Some(shape);
    }
    let shape = shapes.shapes.len() as u32;
    shapes.shapes.push(make_shape(target, format, info, values));
    shapes.by_key.insert(key, shape);
    Some(shape)
}

fn make_shape(target: Target, format: Format, info: &'static OpInfo, values: &mut Values) -> Shape {
    let fam = target.family();
    let mut p = Shape {
        fix_mask: 0,
        fix_val: 0,
        specs: info.operands,
        bad_mods: 0,
        scalar_srcs: 0,
        flags: 0,
        mem: (0, MEM_NONE),
        cache_ops: 0,
        ops: [OpPlan { shift: 0, quick: Q_RULES, acc: 0, half: 0, mask: 0, arg: 0 }; MAX_OPERANDS],
        cache: [0; MAX_OPERANDS],
    };
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
    for (i, s) in info.operands.iter().enumerate() {
        let (shift, width) = s.field.bits();
        let split = s.field == Field::Vop3pOpSelHi || (shift < 64 && shift + width > 64) || width > 32;
        let o = &mut p.ops[i];
        (o.shift, o.mask) = if split { (SPLIT, 0) } else { (shift as u8, mask_of(width)) };
        if operand::scalar_source_kind(s.kind) {
            p.scalar_srcs |= 1 << i;
        }
        p.bad_mods |= bad_mods(s.kind);
        let ds_acc = p.flags & DS_ACC != 0;
        // (Fields of up to ten bits: a table of at most 2 x 1024 values.)
        let table = tabled(fam, s.kind, s.field, ds_acc)
            .filter(|&acc| !split && (1..=10).contains(&width) && (acc == NO_ACC || acc as u32 >= width))
            .and_then(|acc| Some((acc, values.table(target, s, acc, ds_acc)?)));
        match table {
            Some((acc, (at, literal))) => {
                o.quick = if literal { Q_TABLE_LIT } else { Q_TABLE };
                o.arg = at;
                (o.acc, o.half) = if acc == NO_ACC { (0, 0) } else { (acc - width as u8, 1 << width) };
            }
            None => (o.quick, o.arg) = quick_class(s.kind),
        }
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
    p
}

fn build(target: Target) -> TargetPlans {
    build_with(target, tables::fast_seed(target).as_ref()).0
}

/// The plans of `target`, their value tables starting from `seed`, and those tables.
fn build_with(target: Target, seed: Option<&Seed>) -> (TargetPlans, Values) {
    let fam = target.family();
    // (format, where its entries start); the entries as (info, shape index) until the shapes
    // are final.
    let mut formats: Vec<(Format, u16)> = Vec::new();
    let mut entries: Vec<Option<(&'static OpInfo, u32)>> = Vec::new();
    let mut shapes = Shapes::default();
    let mut values = Values::seeded(seed);
    let mut index = |format: Format| -> u16 {
        if let Some(&(_, at)) = formats.iter().find(|(f, _)| *f == format) {
            return at;
        }
        let table = tables::table(target, format);
        let opcodes = spec::format_encoding(fam, format).map_or(0, |(_, _, _, width)| 1usize << width);
        let at = entries.len();
        if at + opcodes >= NONE as usize {
            return NONE;
        }
        entries.extend((0..opcodes).map(|op| {
            let info = table.get(op)?.as_ref()?;
            Some((info, entry(target, format, op, info, &mut shapes, &mut values)?))
        }));
        formats.push((format, at as u16));
        at as u16
    };
    let general = Route { entries: NONE, shift: 0, opmask: 0, flen: 0, flags: 0 };
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
            entries: if seg { NONE } else { index(format) },
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
    // Made once per target and kept for the process: entries refer to them directly.
    let shapes: &'static [Shape] = Vec::leak(shapes.shapes);
    let entries = entries.into_iter().map(|e| e.map(|(info, s)| Entry { info, shape: &shapes[s as usize] })).collect();
    let mut all = Box::new([None; VALUES]);
    all[..values.values.len()].copy_from_slice(&values.values);
    let plans = TargetPlans { routes, seg, entries, values: Box::leak(all), values_used: values.values.len(), tables_refused: values.refused };
    (plans, values)
}

/// The source of `tables/fast_<target>.rs`: the value tables a build without a seed makes, in
/// the order it makes them (`cargo xtask fast-tables` writes it; a test compares).
pub fn fast_tables_source(target: Target) -> String {
    use std::fmt::Write;
    let (_, values) = build_with(target, None);
    let mut made: Vec<_> = values.made.iter().map(|(&(spec, acc, ds_acc), &(at, literal))| (at, format!("{spec:?}"), acc, ds_acc, literal)).collect();
    made.sort();
    let mut out = String::new();
    let _ = writeln!(out, "// Generated by `cargo xtask fast-tables` (hx_isa::fast_tables_source); do not edit by hand.");
    let _ = writeln!(out, "// The decoder fast path's operand value tables for {}, made ahead of time so that the", target.cpu());
    let _ = writeln!(out, "// first decode in a process does not compute them (see Seed in crates/isa/src/fast.rs).");
    let _ = writeln!(out, "#![allow(clippy::all, unused_imports)]");
    let _ = writeln!(out, "use crate::fast::seed::*;");
    let _ = writeln!(out, "use crate::operand::RegClass as C;");
    let _ = writeln!(out, "use crate::spec::{{Field::*, Imm16::*, KImmStyle::*, Kind::*, OperandSpec, SrcMods::*, ValType::*}};\n");
    let _ = writeln!(out, "pub static VALUES: [Option<crate::Operand>; {}] = [", values.values.len());
    for v in &values.values {
        let _ = writeln!(out, "    {},", seed::value_source(v));
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(out, "pub static MADE: [(OperandSpec, u8, bool, u32, bool); {}] = [", made.len());
    for (at, spec, acc, ds_acc, literal) in made {
        let _ = writeln!(out, "    ({spec}, {acc}, {ds_acc}, {at}, {literal}),");
    }
    let _ = writeln!(out, "];");
    out
}

/// Short constructors for the generated seeds' values, and their source form.
pub(crate) mod seed {
    use crate::operand::{Operand, Reg, RegClass};

    pub const fn r(class: RegClass, index: u16, dwords: u8) -> Option<Operand> {
        Some(Operand::Reg(Reg { class, index, dwords }))
    }
    pub const fn i(v: i8) -> Option<Operand> {
        Some(Operand::IntConst(v))
    }
    pub const fn f(v: u8) -> Option<Operand> {
        Some(Operand::FloatConst(v))
    }
    pub const fn m(v: u32) -> Option<Operand> {
        Some(Operand::Imm(v))
    }
    pub const IMPLICIT: Option<Operand> = Some(Operand::Implicit);

    pub(crate) fn value_source(v: &Option<Operand>) -> String {
        match v {
            None => "None".into(),
            Some(Operand::Reg(Reg { class, index, dwords })) => format!("r(C::{class:?}, {index}, {dwords})"),
            Some(Operand::IntConst(v)) => format!("i({v})"),
            Some(Operand::FloatConst(v)) => format!("f({v})"),
            Some(Operand::Imm(v)) => format!("m({v})"),
            Some(Operand::Implicit) => "IMPLICIT".into(),
            Some(Operand::Literal { value, wide }) => format!("Some(crate::Operand::Literal {{ value: {value}, wide: {wide} }})"),
        }
    }
}

#[inline]
fn target_plans(target: Target) -> &'static TargetPlans {
    static P: [OnceLock<TargetPlans>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    P[target as usize].get_or_init(|| build(target))
}

/// An instruction the fast path takes: its entry, its fixed part and that part's length.
pub(crate) struct Hit {
    pub info: &'static OpInfo,
    shape: &'static Shape,
    values: &'static [Option<Operand>; VALUES],
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
#[inline(always)]
pub(crate) fn route(target: Target, inst: &[u8]) -> Option<Hit> {
    let t = target_plans(target);
    let w0 = dword(inst, 0)?;
    let r = t.routes[(w0 >> 23) as usize];
    let pi = if r.flags & SEG != 0 {
        *t.seg.get(((w0 >> 14) & 3) as usize)?
    } else {
        r.entries
    };
    if pi == NONE {
        return None;
    }
    let opcode = (w0 >> r.shift) as usize & r.opmask as usize;
    let e = t.entries.get(pi as usize + opcode)?.as_ref()?;
    let shape = e.shape;
    let dword1 = dword(inst, 1);
    let lit = dword1.unwrap_or(0);
    if r.flags & VOP_EXT != 0 && spec::vop_extension(target, w0).is_some() {
        return None;
    }
    if r.flags & VOP3_DPP != 0 && dpp::is_vop3_dpp(target, w0, lit) {
        return None;
    }
    let flen = r.flen as usize;
    let mut word = w0 as Word;
    if flen >= 8 {
        word |= (dword1? as Word) << 32;
    }
    if r.flags & ORACLE != 0 && spec::oracle_crashes64(target, word as u64, lit) {
        return None;
    }
    if flen == 12 {
        word |= (dword(inst, 2)? as Word) << 64;
    }
    if shape.flags & SLOW_UNUSED != 0 || word & shape.fix_mask != shape.fix_val || word as u64 & shape.bad_mods != 0 {
        return None;
    }
    Some(Hit { info: e.info, shape, values: t.values, word, fixed: flen })
}

/// Decodes the operands of a [`route`] hit into `out` (whose other fields the caller set),
/// with its length, literal and, for the FLAT family, memory offset and cache policy; `false`
/// on any error (the general path then reports it). Every operand slot is written (those past
/// the entry's operands with `None`), so `out` may hold an earlier instruction.
#[inline(always)]
pub(crate) fn fill(target: Target, hit: &Hit, inst: &[u8], out: &mut crate::Instruction) -> bool {
    let p = hit.shape;
    let word = hit.word;
    let specs = p.specs;
    let n = specs.len().min(MAX_OPERANDS);
    let (lo, hi) = (word as u64, (word >> 64) as u64);
    let field = |i: usize| -> u32 {
        let o = &p.ops[i];
        if o.shift < 64 {
            (lo >> o.shift) as u32 & o.mask
        } else if o.shift != SPLIT {
            (hi >> (o.shift - 64)) as u32 & o.mask
        } else {
            specs[i].field.extract(word)
        }
    };
    // The literal reader of the general operand rules, made when first needed (their warnings
    // are not kept: the text is printed from the instruction).
    let mut rules: Option<operand::LitReader> = None;
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
                rules = Some(lits);
                break;
            }
            m &= m - 1;
        }
    }
    // Every slot cleared at once (a fixed-size loop: ten stores), the operands then written over.
    out.operands = [None; MAX_OPERANDS];
    for i in 0..n {
        let raw = field(i);
        let spec = &specs[i];
        let o = &p.ops[i];
        // (Tabled operands first, and by a plain branch: most operands are, and an indirect
        // jump over the classes mispredicts. Each found value is stored where it is found.)
        let quick = if o.quick.wrapping_sub(Q_TABLE) <= Q_TABLE_LIT - Q_TABLE {
            // The second half when the acc bit is set (`half` is 0 without one).
            let a = (lo >> o.acc) as u32 & o.half as u32;
            if let Some(value) = &hit.values[(o.arg + a + raw) as usize & (VALUES - 1)] {
                out.operands[i] = Some(operand::InstOperand { spec, value: *value, raw });
                continue;
            }
            None
        } else if o.quick == Q_IMM {
            Some(Operand::Imm(raw & o.arg))
        } else if o.quick == Q_IMPLICIT {
            Some(Operand::Implicit)
        } else if o.quick == Q_FLAT_VADDR {
            let off = if target.family() == Family::Gfx9 { (lo >> 48) & 0x7f == 0x7f } else { lo & 0x7f == 124 };
            Some(Operand::Reg(Reg { class: RegClass::Vgpr, index: raw as u16, dwords: if off { 2 } else { 1 } }))
        } else {
            None
        };
        let value = match quick {
            Some(v) => v,
            // The literal, when no operand before has read one (else the rules share it).
            None if o.quick == Q_TABLE_LIT && raw == 255 && rules.is_none() => {
                let mut lits = operand::LitReader::new(inst, hit.fixed);
                let Ok((value, wide)) = lits.read(false) else { return false };
                rules = Some(lits);
                Operand::Literal { value, wide }
            }
            None => {
                let lits = rules.get_or_insert_with(|| operand::LitReader::new(inst, hit.fixed));
                let warn = &mut String::new();
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
        Some(lits) => (lits.extra_len(), lits.lit),
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

    /// A build from the checked-in seed makes the same tables as one without it, and takes
    /// every one of them from the seed (none is made again at run time).
    #[test]
    fn seeded_build_equals_a_fresh_one() {
        for target in Target::ALL {
            let seed = tables::fast_seed(target).expect("every target has a seed");
            let (_, fresh) = build_with(target, None);
            let (_, seeded) = build_with(target, Some(&seed));
            assert_eq!(seeded.values, fresh.values, "{target:?}: values differ: run `cargo xtask fast-tables`");
            assert_eq!(seeded.made, fresh.made, "{target:?}: tables differ: run `cargo xtask fast-tables`");
            assert!(seeded.index.is_empty(), "{target:?}: a table was made at run time despite the seed");
        }
    }

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

    /// Every target's value tables fit their capacity (an operand whose table does not fit
    /// decodes through the rules: right, but the speed the tables are for is lost unnoticed).
    #[test]
    fn value_tables_fit() {
        for target in Target::ALL {
            let t = target_plans(target);
            assert_eq!(t.tables_refused, 0, "{target:?}: {} tables did not fit", t.tables_refused);
            assert!(t.values_used > 1000 && t.values_used <= VALUES, "{target:?}: {} values", t.values_used);
        }
    }
}
