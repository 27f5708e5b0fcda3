//! The linker proper: read (goblin), lay out as ld.lld does, apply relocations, write (object's
//! ELF writer).
//!
//! lld behaviour reproduced here (lld 22, `-shared`, no linker script, AMDGPU defaults:
//! max-page-size = common-page-size = 4096, image base 0, hash style both, -z relro, -z noexecstack,
//! -z noseparate-code, --discard-none semantics for locals, -O1 string tables without tail merging):
//! - output sections sorted by rank: R (notes, then other non-PROGBITS, then PROGBITS), RX, RWX,
//!   RW RELRO, RW non-RELRO, each NOBITS after PROGBITS; non-allocated last; ties keep creation order
//!   (input sections first, synthetic sections after them);
//! - one PT_LOAD per run of sections with equal permissions, a new one at the end of RELRO and after
//!   NOBITS; the first section of each later PT_LOAD at `align(dot, 4096) + dot % 4096`, its file offset
//!   congruent to its address modulo p_align;
//! - `.relro_padding` (NOBITS) after the RELRO sections up to the next page boundary;
//! - `.symtab`: file locals (no section symbols), hidden globals, `_DYNAMIC`, exported globals;
//!   `.strtab`/`.dynstr` strings appended per symbol without de-duplication, `.shstrtab` de-duplicated;
//! - `.dynsym` sorted for `.gnu.hash` by (hash % nbuckets, .dynstr offset).

use crate::{relocation_name, LinkOptions, RelinkError, LINKER_COMMENT};
use goblin::container::{Container, Ctx};
use goblin::elf::reloc::RelocSection;
use goblin::elf::section_header::{self as sh, SectionHeader};
use goblin::elf::sym::{self, Symtab};
use object::elf as oe;
use object::write::elf::{FileHeader, ProgramHeader, Writer};
use object::{Endianness, LittleEndian as LE, U16, U32, U64};
use std::collections::{BTreeSet, HashMap};

type Result<T> = std::result::Result<T, RelinkError>;

const EM_AMDGPU: u16 = 224;
const MAX_PAGE: u64 = 0x1000;
const COMMON_PAGE: u64 = 0x1000;
const EHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
const DYN_SIZE: u64 = 16;
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
const SHT_GNU_HASH: u32 = 0x6fff_fff6;
/// The largest section alignment accepted (fail closed beyond; AMDGPU code uses at most 256).
const MAX_ALIGN: u64 = 1 << 20;
/// The largest output accepted: alignment gaps of crafted inputs must not exhaust memory.
const MAX_OUTPUT: u64 = 1 << 30;

const R_AMDGPU_NONE: u32 = 0;
const R_AMDGPU_ABS64: u32 = 3;
const R_AMDGPU_REL32: u32 = 4;
const R_AMDGPU_REL64: u32 = 5;
const R_AMDGPU_ABS32: u32 = 6;
const R_AMDGPU_GOTPCREL: u32 = 7;
const R_AMDGPU_GOTPCREL32_LO: u32 = 8;
const R_AMDGPU_GOTPCREL32_HI: u32 = 9;
const R_AMDGPU_REL32_LO: u32 = 10;
const R_AMDGPU_REL32_HI: u32 = 11;
const R_AMDGPU_RELATIVE64: u32 = 13;
const R_AMDGPU_REL16: u32 = 14;

fn malformed(what: impl Into<String>, offset: u64, msg: impl Into<String>) -> RelinkError {
    RelinkError::Malformed {
        what: what.into(),
        offset,
        msg: msg.into(),
    }
}

fn layout_err(msg: impl Into<String>) -> RelinkError {
    RelinkError::Layout(msg.into())
}

fn align_to(v: u64, a: u64) -> Result<u64> {
    debug_assert!(a.is_power_of_two());
    v.checked_add(a - 1)
        .map(|x| x & !(a - 1))
        .ok_or_else(|| layout_err(format!("aligning {v:#x} to {a:#x}")))
}

/// llvm::alignTo(value, align, skew): the smallest v >= value with v % align == skew % align.
fn align_to_skew(value: u64, align: u64, skew: u64) -> Result<u64> {
    let r = skew.wrapping_sub(value) % align;
    value
        .checked_add(r)
        .ok_or_else(|| layout_err(format!("aligning offset {value:#x} to {align:#x} (skew {skew:#x})")))
}

fn add(a: u64, b: u64, what: &str) -> Result<u64> {
    a.checked_add(b)
        .ok_or_else(|| layout_err(format!("{what}: {a:#x} + {b:#x}")))
}

/// llvm::NextPowerOf2: the next power of two strictly greater than `a`.
fn next_power_of_2(a: u64) -> u64 {
    let mut a = a;
    a |= a >> 1;
    a |= a >> 2;
    a |= a >> 4;
    a |= a >> 8;
    a |= a >> 16;
    a |= a >> 32;
    a.wrapping_add(1)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A NUL-terminated string at `off` in `table`.
fn c_str(table: &[u8], off: usize) -> Option<&[u8]> {
    let rest = table.get(off..)?;
    let end = rest.iter().position(|&c| c == 0)?;
    Some(&rest[..end])
}

// ---------------------------------------------------------------------------------------------
// Input

/// What happens to one input section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Index 0, or an SHT_NULL entry.
    Null,
    /// Contents go to an output section (index into `Link::inputs`).
    Kept(usize),
    /// Read by the linker (symbol table, string tables, relocations).
    Consumed,
    /// Dropped as lld drops it (`.note.GNU-stack`, `.llvm_addrsig`).
    Discarded,
}

#[derive(Debug)]
struct InputSection {
    index: usize,
    name: Vec<u8>,
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    size: u64,
    /// Contents (relocated in place); empty for NOBITS.
    data: Vec<u8>,
    out: usize,
    /// Offset inside the output section.
    out_off: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Synth {
    Input,
    DynSym,
    GnuHash,
    Hash,
    DynStr,
    Dynamic,
    RelroPadding,
    Comment,
    RelaDyn,
    Got,
    SymTab,
    ShStrTab,
    StrTab,
}

#[derive(Debug)]
struct OutputSection {
    name: Vec<u8>,
    synth: Synth,
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    size: u64,
    /// Indices into `Link::inputs`.
    inputs: Vec<usize>,
    relro: bool,
    addr: u64,
    offset: u64,
    link: u32,
    info: u32,
    /// Section header index in the output.
    index: usize,
}

impl OutputSection {
    fn synthetic(name: &str, synth: Synth, sh_type: u32, flags: u64, align: u64, entsize: u64) -> Self {
        OutputSection {
            name: name.as_bytes().to_vec(),
            synth,
            sh_type,
            flags,
            align,
            entsize,
            size: 0,
            inputs: Vec::new(),
            relro: false,
            addr: 0,
            offset: 0,
            link: 0,
            info: 0,
            index: 0,
        }
    }
    fn alloc(&self) -> bool {
        self.flags & u64::from(sh::SHF_ALLOC) != 0
    }
    fn nobits(&self) -> bool {
        self.sh_type == sh::SHT_NOBITS
    }
    fn phdr_flags(&self) -> u32 {
        let mut f = oe::PF_R;
        if self.flags & u64::from(sh::SHF_WRITE) != 0 {
            f |= oe::PF_W;
        }
        if self.flags & u64::from(sh::SHF_EXECINSTR) != 0 {
            f |= oe::PF_X;
        }
        f
    }
    /// lld's getSectionRank, reduced to the cases this linker accepts.
    fn rank(&self) -> (u8, u8, u8) {
        if !self.alloc() {
            return (9, 0, 0);
        }
        let exec = self.flags & u64::from(sh::SHF_EXECINSTR) != 0;
        let write = self.flags & u64::from(sh::SHF_WRITE) != 0;
        let bss = u8::from(self.nobits());
        if !write && !exec {
            let sub = if self.sh_type == sh::SHT_NOTE {
                3
            } else if self.sh_type != sh::SHT_PROGBITS {
                4
            } else {
                5
            };
            (0, sub, bss)
        } else if exec {
            (if write { 2 } else { 1 }, 0, bss)
        } else {
            (3, u8::from(!self.relro), bss)
        }
    }
}

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Def {
    Undefined,
    Absolute(u64),
    /// In a kept input section (index into `Link::inputs`), at this offset.
    Section(usize, u64),
    /// In a section lld drops: the symbol is dropped too.
    Discarded,
}

#[derive(Debug)]
struct InputSymbol {
    name: Vec<u8>,
    st_info: u8,
    st_other: u8,
    st_size: u64,
    def: Def,
}

impl InputSymbol {
    fn bind(&self) -> u8 {
        self.st_info >> 4
    }
    fn sym_type(&self) -> u8 {
        self.st_info & 0xf
    }
    fn visibility(&self) -> u8 {
        self.st_other & 3
    }
    /// Global or weak with default visibility: another module could preempt it.
    fn preemptible(&self) -> bool {
        self.bind() != sym::STB_LOCAL && self.visibility() == sym::STV_DEFAULT
    }
    /// Becomes local in the output (hidden or internal visibility).
    fn localised(&self) -> bool {
        self.bind() != sym::STB_LOCAL
            && (self.visibility() == sym::STV_HIDDEN || self.visibility() == sym::STV_INTERNAL)
    }
}

/// A symbol as written to .symtab or .dynsym.
#[derive(Debug, Clone)]
struct OutSym {
    name: Vec<u8>,
    st_info: u8,
    st_other: u8,
    st_size: u64,
    def: OutDef,
    /// Offset of the name in its string table.
    name_off: u32,
    /// Index of the input symbol it comes from.
    src: usize,
}

#[derive(Debug, Clone, Copy)]
enum OutDef {
    Absolute(u64),
    /// Input section (index into `Link::inputs`) and offset.
    Section(usize, u64),
    /// The start of an output section (index into `Link::outputs`).
    Output(usize),
}

struct Link<'a> {
    bytes: &'a [u8],
    shdrs: Vec<SectionHeader>,
    names: Vec<Vec<u8>>,
    roles: Vec<Role>,
    inputs: Vec<InputSection>,
    outputs: Vec<OutputSection>,
    symbols: Vec<InputSymbol>,
    ctx: Ctx,
}

impl Link<'_> {
    fn section_name(&self, index: usize) -> String {
        self.names
            .get(index)
            .map(|n| lossy(n))
            .unwrap_or_else(|| format!("#{index}"))
    }
    fn unsupported_section(&self, index: usize, why: impl Into<String>) -> RelinkError {
        let h = &self.shdrs[index];
        RelinkError::UnsupportedSection {
            name: self.section_name(index),
            index,
            sh_type: h.sh_type,
            flags: h.sh_flags,
            offset: h.sh_offset,
            why: why.into(),
        }
    }
    fn symbol_name(&self, index: usize) -> String {
        match self.symbols.get(index) {
            Some(s) if s.name.is_empty() && s.sym_type() == sym::STT_SECTION => match s.def {
                Def::Section(i, _) => format!("section symbol of {}", lossy(&self.inputs[i].name)),
                _ => format!("section symbol #{index}"),
            },
            Some(s) => lossy(&s.name),
            None => format!("#{index}"),
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Checks the ELF header by hand (so errors name the field), then reads the section headers.
fn read_input(bytes: &[u8]) -> Result<Link<'_>> {
    if bytes.len() >= 4 && &bytes[..4] != b"\x7fELF" {
        return Err(RelinkError::NotElf {
            magic: bytes[..4].to_vec(),
        });
    }
    if bytes.len() < EHDR_SIZE as usize {
        if bytes.len() < 4 {
            return Err(RelinkError::NotElf { magic: bytes.to_vec() });
        }
        return Err(RelinkError::TooShort { len: bytes.len() });
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err(RelinkError::WrongClass {
            class: bytes[4],
            data: bytes[5],
        });
    }
    let e_type = u16_at(bytes, 16);
    if e_type != oe::ET_REL {
        return Err(RelinkError::NotRelocatable { e_type });
    }
    let machine = u16_at(bytes, 18);
    if machine != EM_AMDGPU {
        return Err(RelinkError::WrongMachine { machine });
    }
    let len = bytes.len() as u64;
    let shoff = u64_at(bytes, 40);
    let shentsize = u16_at(bytes, 58);
    let shnum = u64::from(u16_at(bytes, 60));
    let shstrndx = u64::from(u16_at(bytes, 62));
    if shnum == 0 {
        return Err(malformed(
            "section header table",
            shoff,
            "e_shnum is 0 (no sections, or extended section numbering, which is not supported)",
        ));
    }
    if shentsize != SHDR_SIZE as u16 {
        return Err(malformed("e_shentsize", 58, format!("{shentsize}, need 64")));
    }
    if shoff.checked_add(shnum * SHDR_SIZE).is_none_or(|e| e > len) {
        return Err(malformed(
            "section header table",
            shoff,
            format!("{shnum} headers of 64 bytes do not fit in the {len}-byte file"),
        ));
    }
    if shstrndx == u64::from(oe::SHN_XINDEX) || shstrndx >= shnum {
        return Err(malformed(
            "e_shstrndx",
            62,
            format!("{shstrndx} is not a section index below {shnum}"),
        ));
    }
    let header = goblin::elf::Elf::parse_header(bytes).map_err(|e| malformed("ELF header", 0, e.to_string()))?;
    let endian = header
        .endianness()
        .map_err(|e| malformed("ELF header", 5, e.to_string()))?;
    let ctx = Ctx::new(Container::Big, endian);
    let shdrs = SectionHeader::parse(bytes, shoff as usize, shnum as usize, ctx)
        .map_err(|e| malformed("section header table", shoff, e.to_string()))?;
    if shdrs.len() as u64 != shnum {
        return Err(malformed(
            "section header table",
            shoff,
            format!("read {} of {shnum} headers", shdrs.len()),
        ));
    }
    for (i, h) in shdrs.iter().enumerate() {
        if h.sh_type != sh::SHT_NOBITS
            && h.sh_type != sh::SHT_NULL
            && h.sh_offset.checked_add(h.sh_size).is_none_or(|e| e > len)
        {
            return Err(malformed(
                format!("contents of section #{i}"),
                h.sh_offset,
                format!("{} bytes do not fit in the {len}-byte file", h.sh_size),
            ));
        }
    }
    let shstr = &shdrs[shstrndx as usize];
    if shstr.sh_type != sh::SHT_STRTAB {
        return Err(malformed(
            "section name table",
            shstr.sh_offset,
            format!("section #{shstrndx} is not SHT_STRTAB"),
        ));
    }
    let shstr_data = &bytes[shstr.sh_offset as usize..(shstr.sh_offset + shstr.sh_size) as usize];
    let mut names = Vec::with_capacity(shdrs.len());
    for (i, h) in shdrs.iter().enumerate() {
        let name = c_str(shstr_data, h.sh_name).ok_or_else(|| {
            malformed(
                format!("name of section #{i}"),
                shoff + i as u64 * SHDR_SIZE,
                format!(
                    "sh_name {} is outside the section name table or unterminated",
                    h.sh_name
                ),
            )
        })?;
        names.push(name.to_vec());
    }
    let n = shdrs.len();
    let mut link = Link {
        bytes,
        shdrs,
        names,
        roles: vec![Role::Null; n],
        inputs: Vec::new(),
        outputs: Vec::new(),
        symbols: Vec::new(),
        ctx,
    };
    link.roles[shstrndx as usize] = Role::Consumed;
    classify_sections(&mut link)?;
    read_symbols(&mut link, ctx)?;
    Ok(link)
}

/// Decides what becomes of every input section (fail closed on anything unknown).
fn classify_sections(l: &mut Link<'_>) -> Result<()> {
    let allowed_alloc = u64::from(sh::SHF_ALLOC | sh::SHF_WRITE | sh::SHF_EXECINSTR);
    for i in 1..l.shdrs.len() {
        if l.roles[i] != Role::Null {
            continue;
        }
        let h = l.shdrs[i].clone();
        let name = l.names[i].clone();
        match h.sh_type {
            sh::SHT_NULL => {}
            sh::SHT_SYMTAB | sh::SHT_RELA => l.roles[i] = Role::Consumed,
            sh::SHT_STRTAB => {
                // Only the symbol table's string table is expected; checked in read_symbols.
                l.roles[i] = Role::Consumed;
            }
            sh::SHT_REL => return Err(l.unsupported_section(i, "SHT_REL relocations (AMDGPU objects use SHT_RELA)")),
            SHT_LLVM_ADDRSIG => l.roles[i] = Role::Discarded,
            sh::SHT_PROGBITS if name == b".note.GNU-stack" => {
                if h.sh_flags & u64::from(sh::SHF_EXECINSTR) != 0 {
                    return Err(l.unsupported_section(i, "an executable stack is requested"));
                }
                l.roles[i] = Role::Discarded;
            }
            sh::SHT_PROGBITS | sh::SHT_NOBITS | sh::SHT_NOTE => {
                if name == b".comment" {
                    return Err(
                        l.unsupported_section(i, "an input .comment (lld merges it with its own, not reproduced)")
                    );
                }
                let alloc = h.sh_flags & u64::from(sh::SHF_ALLOC) != 0;
                if alloc && h.sh_flags & !allowed_alloc != 0 {
                    return Err(l.unsupported_section(
                        i,
                        format!(
                            "flags {:#x} beyond ALLOC|WRITE|EXECINSTR (merge, strings, group, TLS, link-order...)",
                            h.sh_flags & !allowed_alloc
                        ),
                    ));
                }
                if !alloc && h.sh_flags != 0 {
                    return Err(l.unsupported_section(i, "a non-allocated section with flags"));
                }
                if h.sh_type == sh::SHT_NOBITS
                    && h.sh_flags & u64::from(sh::SHF_ALLOC | sh::SHF_WRITE | sh::SHF_EXECINSTR)
                        != u64::from(sh::SHF_ALLOC | sh::SHF_WRITE)
                {
                    return Err(l.unsupported_section(
                        i,
                        "a NOBITS section that is not allocated-writable (only .bss-like NOBITS is laid out)",
                    ));
                }
                if alloc && h.sh_type == sh::SHT_NOTE && h.sh_flags & !u64::from(sh::SHF_ALLOC) != 0 {
                    return Err(l.unsupported_section(i, "a writable or executable note"));
                }
                let align = h.sh_addralign.max(1);
                if !align.is_power_of_two() {
                    return Err(
                        l.unsupported_section(i, format!("sh_addralign {} is not a power of two", h.sh_addralign))
                    );
                }
                if align > MAX_ALIGN {
                    return Err(l.unsupported_section(i, format!("sh_addralign {align:#x} is above {MAX_ALIGN:#x}")));
                }
                let data = if h.sh_type == sh::SHT_NOBITS {
                    Vec::new()
                } else {
                    l.bytes[h.sh_offset as usize..(h.sh_offset + h.sh_size) as usize].to_vec()
                };
                l.roles[i] = Role::Kept(l.inputs.len());
                l.inputs.push(InputSection {
                    index: i,
                    name,
                    sh_type: h.sh_type,
                    flags: h.sh_flags,
                    align,
                    entsize: h.sh_entsize,
                    size: h.sh_size,
                    data,
                    out: usize::MAX,
                    out_off: 0,
                });
            }
            other => {
                let why = match other {
                    sh::SHT_GROUP => "section groups (COMDAT)".to_string(),
                    sh::SHT_INIT_ARRAY | sh::SHT_FINI_ARRAY | sh::SHT_PREINIT_ARRAY => "init/fini arrays".to_string(),
                    sh::SHT_DYNAMIC | sh::SHT_DYNSYM | sh::SHT_HASH => {
                        "dynamic-linking sections in a relocatable object".to_string()
                    }
                    _ => format!("section type {other:#x}"),
                };
                return Err(l.unsupported_section(i, why));
            }
        }
    }
    Ok(())
}

/// Reads the symbol table and resolves each symbol's definition.
fn read_symbols(l: &mut Link<'_>, ctx: Ctx) -> Result<()> {
    let symtabs: Vec<usize> = (0..l.shdrs.len())
        .filter(|&i| l.shdrs[i].sh_type == sh::SHT_SYMTAB)
        .collect();
    if symtabs.len() > 1 {
        return Err(l.unsupported_section(symtabs[1], "a second SHT_SYMTAB"));
    }
    let Some(&st) = symtabs.first() else {
        return Ok(());
    };
    let h = l.shdrs[st].clone();
    if h.sh_entsize != SYM_SIZE || !h.sh_size.is_multiple_of(SYM_SIZE) {
        return Err(malformed(
            ".symtab",
            h.sh_offset,
            format!(
                "sh_entsize {} / sh_size {} is not a whole number of 24-byte symbols",
                h.sh_entsize, h.sh_size
            ),
        ));
    }
    let count = (h.sh_size / SYM_SIZE) as usize;
    let link_idx = h.sh_link as usize;
    if link_idx >= l.shdrs.len() || l.shdrs[link_idx].sh_type != sh::SHT_STRTAB || link_idx == 0 {
        return Err(malformed(
            ".symtab",
            h.sh_offset,
            format!("sh_link {} is not a string table", h.sh_link),
        ));
    }
    let first_global = h.sh_info as usize;
    if count > 0 && (first_global == 0 || first_global > count) {
        return Err(malformed(
            ".symtab",
            h.sh_offset,
            format!("sh_info {first_global} is not in 1..={count}"),
        ));
    }
    let sh_str = &l.shdrs[link_idx];
    let strtab = &l.bytes[sh_str.sh_offset as usize..(sh_str.sh_offset + sh_str.sh_size) as usize];
    // Every other string table must be the section name table.
    for i in 0..l.shdrs.len() {
        if l.shdrs[i].sh_type == sh::SHT_STRTAB && i != link_idx && i != u16_at(l.bytes, 62) as usize {
            return Err(l.unsupported_section(i, "a string table that is neither .strtab nor .shstrtab"));
        }
    }
    let syms = if count == 0 {
        Vec::new()
    } else {
        Symtab::parse(l.bytes, h.sh_offset as usize, count, ctx)
            .map_err(|e| malformed(".symtab", h.sh_offset, e.to_string()))?
            .to_vec()
    };
    if syms.len() != count {
        return Err(malformed(
            ".symtab",
            h.sh_offset,
            format!("read {} of {count} symbols", syms.len()),
        ));
    }
    let mut out = Vec::with_capacity(count);
    for (i, s) in syms.iter().enumerate() {
        let at = h.sh_offset + i as u64 * SYM_SIZE;
        let name = c_str(strtab, s.st_name)
            .ok_or_else(|| {
                malformed(
                    format!("name of symbol #{i}"),
                    at,
                    format!("st_name {} is outside .strtab", s.st_name),
                )
            })?
            .to_vec();
        let bad = |why: String| RelinkError::UnsupportedSymbol {
            name: lossy(&name),
            index: i,
            offset: at,
            why,
        };
        if i == 0 {
            out.push(InputSymbol {
                name,
                st_info: 0,
                st_other: 0,
                st_size: 0,
                def: Def::Undefined,
            });
            continue;
        }
        let bind = s.st_info >> 4;
        let typ = s.st_info & 0xf;
        match typ {
            sym::STT_NOTYPE | sym::STT_OBJECT | sym::STT_FUNC | sym::STT_SECTION | sym::STT_FILE => {}
            sym::STT_COMMON => return Err(bad("STT_COMMON".into())),
            sym::STT_TLS => return Err(bad("STT_TLS (thread-local storage)".into())),
            sym::STT_GNU_IFUNC => return Err(bad("STT_GNU_IFUNC".into())),
            t => return Err(bad(format!("symbol type {t}"))),
        }
        match bind {
            sym::STB_LOCAL | sym::STB_GLOBAL | sym::STB_WEAK => {}
            b => return Err(bad(format!("symbol binding {b}"))),
        }
        if (bind == sym::STB_LOCAL) != (i < first_global) {
            return Err(bad(format!(
                "binding {} at index {i}, but .symtab's sh_info says globals start at {first_global}",
                if bind == sym::STB_LOCAL { "LOCAL" } else { "GLOBAL/WEAK" }
            )));
        }
        if s.st_other & !3 != 0 {
            return Err(bad(format!(
                "st_other {:#x} has bits beyond the visibility",
                s.st_other
            )));
        }
        let shndx = s.st_shndx;
        let def = if shndx == sh::SHN_UNDEF as usize {
            if bind == sym::STB_LOCAL {
                return Err(bad("an undefined local symbol".into()));
            }
            Def::Undefined
        } else if shndx == sh::SHN_ABS as usize {
            Def::Absolute(s.st_value)
        } else if shndx == sh::SHN_COMMON as usize {
            return Err(bad("a common symbol (SHN_COMMON)".into()));
        } else if shndx >= sh::SHN_LORESERVE as usize {
            return Err(bad(format!("reserved section index {shndx:#x}")));
        } else if shndx >= l.shdrs.len() {
            return Err(malformed(
                format!("symbol #{i}"),
                at,
                format!("st_shndx {shndx} is not a section"),
            ));
        } else {
            match l.roles[shndx] {
                Role::Kept(k) => Def::Section(k, s.st_value),
                Role::Discarded => Def::Discarded,
                Role::Null | Role::Consumed => {
                    return Err(bad(format!(
                        "defined in section {} which has no place in the output",
                        l.section_name(shndx)
                    )))
                }
            }
        };
        if typ == sym::STT_FILE && bind != sym::STB_LOCAL {
            return Err(bad("a non-local STT_FILE symbol".into()));
        }
        if typ == sym::STT_SECTION && (bind != sym::STB_LOCAL || !matches!(def, Def::Section(..) | Def::Discarded)) {
            return Err(bad("a section symbol that is not local or not in a section".into()));
        }
        if bind != sym::STB_LOCAL && def == Def::Undefined {
            if bind == sym::STB_WEAK {
                return Err(bad("an undefined weak symbol (lld would export it unresolved)".into()));
            }
            return Err(RelinkError::UndefinedSymbol {
                name: lossy(&name),
                index: i,
                referenced_at: None,
            });
        }
        if bind != sym::STB_LOCAL && def == Def::Discarded {
            return Err(bad("a global symbol in a discarded section".into()));
        }
        out.push(InputSymbol {
            name,
            st_info: s.st_info,
            st_other: s.st_other,
            st_size: s.st_size,
            def,
        });
    }
    // Two definitions of one global name would be a duplicate-symbol error in lld.
    let mut globals: Vec<&[u8]> = out[first_global.min(out.len())..]
        .iter()
        .map(|s| s.name.as_slice())
        .collect();
    globals.sort_unstable();
    if let Some(w) = globals.windows(2).find(|w| w[0] == w[1]) {
        let name = lossy(w[0]);
        let index = out.iter().rposition(|s| s.name == w[0]).unwrap_or(0);
        return Err(RelinkError::UnsupportedSymbol {
            name,
            index,
            offset: h.sh_offset + index as u64 * SYM_SIZE,
            why: "a duplicate global symbol".into(),
        });
    }
    if globals.iter().any(|n| *n == b"_DYNAMIC") {
        let index = out.iter().rposition(|s| s.name == b"_DYNAMIC").unwrap_or(0);
        return Err(RelinkError::UnsupportedSymbol {
            name: "_DYNAMIC".into(),
            index,
            offset: h.sh_offset + index as u64 * SYM_SIZE,
            why: "a global named _DYNAMIC (reserved for the linker)".into(),
        });
    }
    l.symbols = out;
    Ok(())
}

/// Replaces the descriptor of the one NT_AMDGPU_METADATA note ("AMDGPU", type 32) with `blob`.
fn replace_metadata(l: &mut Link<'_>, blob: &[u8]) -> Result<()> {
    const NT_AMDGPU_METADATA: u32 = 32;
    let u32_at = |d: &[u8], at: usize| u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]) as usize;
    let mut found: Option<(usize, usize, usize, usize)> = None; // (input, entry start, entry end, namesz)
    for k in 0..l.inputs.len() {
        let inp = &l.inputs[k];
        if inp.sh_type != sh::SHT_NOTE {
            continue;
        }
        let file_off = l.shdrs[inp.index].sh_offset;
        let d = &inp.data;
        let mut at = 0usize;
        while at < d.len() {
            let bad = |msg: String| malformed(format!("note in {}", lossy(&inp.name)), file_off + at as u64, msg);
            if d.len() - at < 12 {
                return Err(bad(format!("{} bytes left, a note header needs 12", d.len() - at)));
            }
            let (namesz, descsz, n_type) = (u32_at(d, at), u32_at(d, at + 4), u32_at(d, at + 8) as u32);
            let name_end = (at + 12).checked_add(namesz).filter(|&e| e <= d.len());
            let desc_at = (at + 12).checked_add(namesz.div_ceil(4) * 4);
            let end = desc_at
                .and_then(|x| x.checked_add(descsz.div_ceil(4) * 4))
                .filter(|&e| e <= d.len());
            let (Some(name_end), Some(end)) = (name_end, end) else {
                return Err(bad(format!(
                    "name ({namesz} bytes) and descriptor ({descsz} bytes) overrun the section"
                )));
            };
            if n_type == NT_AMDGPU_METADATA && &d[at + 12..name_end] == b"AMDGPU\0" {
                if found.is_some() {
                    return Err(bad("a second NT_AMDGPU_METADATA note".into()));
                }
                found = Some((k, at, end, namesz));
            }
            at = end;
        }
    }
    let Some((k, start, end, namesz)) = found else {
        return Err(malformed(
            "metadata note",
            0,
            "the object has no NT_AMDGPU_METADATA note to replace",
        ));
    };
    let index = l.inputs[k].index;
    if l.inputs[k].align != 4 {
        return Err(l.unsupported_section(index, "replacing the metadata in a note section not aligned to 4"));
    }
    if l.shdrs
        .iter()
        .any(|h| h.sh_type == sh::SHT_RELA && h.sh_info as usize == index && h.sh_size > 0)
    {
        return Err(l.unsupported_section(index, "replacing the metadata in a note section that has relocations"));
    }
    let descsz = u32::try_from(blob.len()).map_err(|_| layout_err("metadata above 4 GiB"))?;
    let old = &l.inputs[k].data;
    let mut data = Vec::with_capacity(old.len() + blob.len());
    data.extend_from_slice(&old[..start]);
    data.extend_from_slice(&old[start..start + 4]); // namesz
    data.extend_from_slice(&descsz.to_le_bytes());
    data.extend_from_slice(&old[start + 8..start + 12 + namesz.div_ceil(4) * 4]); // type, name
    data.extend_from_slice(blob);
    data.resize(data.len() + (blob.len().div_ceil(4) * 4 - blob.len()), 0);
    data.extend_from_slice(&old[end..]);
    l.inputs[k].size = data.len() as u64;
    l.inputs[k].data = data;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Output sections

/// lld's getOutputSectionName for the prefixes this linker accepts.
fn output_name(name: &[u8]) -> &[u8] {
    const PREFIXES: [&[u8]; 6] = [b".data.rel.ro", b".data", b".rodata", b".bss.rel.ro", b".bss", b".text"];
    for p in PREFIXES {
        if name == p || (name.starts_with(p) && name.get(p.len()) == Some(&b'.')) {
            return p;
        }
    }
    name
}

fn is_relro_name(name: &[u8]) -> bool {
    name == b".data.rel.ro" || name == b".bss.rel.ro"
}

/// Groups input sections into output sections and adds the synthetic ones, in lld's order.
fn build_outputs(l: &mut Link<'_>, need_got: bool, need_rela_dyn: bool) -> Result<()> {
    let mut outs: Vec<OutputSection> = Vec::new();
    let mut by_name: HashMap<Vec<u8>, usize> = HashMap::new();
    for k in 0..l.inputs.len() {
        let inp = &l.inputs[k];
        let oname = output_name(&inp.name).to_vec();
        let found = by_name.get(&oname).copied();
        let o = match found {
            Some(o) => {
                let out = &outs[o];
                if out.sh_type != inp.sh_type {
                    return Err(l.unsupported_section(
                        inp.index,
                        format!(
                            "type {:#x} differs from other input sections of {}",
                            inp.sh_type,
                            lossy(&oname)
                        ),
                    ));
                }
                if (out.flags ^ inp.flags) & u64::from(sh::SHF_ALLOC) != 0 {
                    return Err(l.unsupported_section(
                        inp.index,
                        format!("mixes allocated and non-allocated parts of {}", lossy(&oname)),
                    ));
                }
                o
            }
            None => {
                outs.push(OutputSection {
                    name: oname.clone(),
                    synth: Synth::Input,
                    sh_type: inp.sh_type,
                    flags: 0,
                    align: 1,
                    entsize: inp.entsize,
                    size: 0,
                    inputs: Vec::new(),
                    relro: false,
                    addr: 0,
                    offset: 0,
                    link: 0,
                    info: 0,
                    index: 0,
                });
                by_name.insert(oname.clone(), outs.len() - 1);
                outs.len() - 1
            }
        };
        let (iflags, ialign, ient, isize) = (inp.flags, inp.align, inp.entsize, inp.size);
        let out = &mut outs[o];
        out.flags |= iflags;
        out.align = out.align.max(ialign);
        if out.entsize != ient {
            out.entsize = 0;
        }
        let off = align_to(out.size, ialign)?;
        out.size = add(off, isize, "output section size")?;
        out.inputs.push(k);
        l.inputs[k].out = o;
        l.inputs[k].out_off = off;
    }
    for out in &mut outs {
        let write = out.flags & u64::from(sh::SHF_WRITE) != 0;
        out.relro = out.alloc() && write && is_relro_name(&out.name);
    }
    let a = u64::from(sh::SHF_ALLOC);
    let wa = u64::from(sh::SHF_ALLOC | sh::SHF_WRITE);
    outs.push(OutputSection::synthetic(
        ".dynsym",
        Synth::DynSym,
        sh::SHT_DYNSYM,
        a,
        8,
        SYM_SIZE,
    ));
    outs.push(OutputSection::synthetic(
        ".gnu.hash",
        Synth::GnuHash,
        SHT_GNU_HASH,
        a,
        8,
        0,
    ));
    outs.push(OutputSection::synthetic(".hash", Synth::Hash, sh::SHT_HASH, a, 4, 4));
    let mut dynamic = OutputSection::synthetic(".dynamic", Synth::Dynamic, sh::SHT_DYNAMIC, wa, 8, DYN_SIZE);
    dynamic.relro = true;
    outs.push(dynamic);
    outs.push(OutputSection::synthetic(
        ".dynstr",
        Synth::DynStr,
        sh::SHT_STRTAB,
        a,
        1,
        0,
    ));
    if need_rela_dyn {
        outs.push(OutputSection::synthetic(
            ".rela.dyn",
            Synth::RelaDyn,
            sh::SHT_RELA,
            a,
            8,
            24,
        ));
    }
    if need_got {
        let mut got = OutputSection::synthetic(".got", Synth::Got, sh::SHT_PROGBITS, wa, 8, 0);
        got.relro = true;
        outs.push(got);
    }
    let mut pad = OutputSection::synthetic(".relro_padding", Synth::RelroPadding, sh::SHT_NOBITS, wa, 1, 0);
    pad.relro = true;
    outs.push(pad);
    let ms = u64::from(sh::SHF_MERGE | sh::SHF_STRINGS);
    outs.push(OutputSection::synthetic(
        ".comment",
        Synth::Comment,
        sh::SHT_PROGBITS,
        ms,
        1,
        1,
    ));
    // Stable sort by rank; .symtab, .shstrtab, .strtab go last.
    outs.sort_by_key(|o| o.rank());
    outs.push(OutputSection::synthetic(
        ".symtab",
        Synth::SymTab,
        sh::SHT_SYMTAB,
        0,
        8,
        SYM_SIZE,
    ));
    outs.push(OutputSection::synthetic(
        ".shstrtab",
        Synth::ShStrTab,
        sh::SHT_STRTAB,
        0,
        1,
        0,
    ));
    outs.push(OutputSection::synthetic(
        ".strtab",
        Synth::StrTab,
        sh::SHT_STRTAB,
        0,
        1,
        0,
    ));
    // Input sections point at output sections by index: renumber after the sort.
    for (o, out) in outs.iter_mut().enumerate() {
        out.index = o + 1;
        for &k in &out.inputs {
            l.inputs[k].out = o;
        }
    }
    // A RELRO section after a non-RELRO writable one would need a second PT_GNU_RELRO.
    l.outputs = outs;
    Ok(())
}

fn find(l: &Link<'_>, s: Synth) -> usize {
    l.outputs
        .iter()
        .position(|o| o.synth == s)
        .expect("synthetic section present")
}

// ---------------------------------------------------------------------------------------------
// Symbols

struct Symbols {
    /// .symtab entries after the null symbol.
    symtab: Vec<OutSym>,
    num_local: usize,
    strtab: Vec<u8>,
    /// .dynsym entries after the null symbol, in .gnu.hash order.
    dynsym: Vec<OutSym>,
    dynstr: Vec<u8>,
    gnu_buckets: u32,
    gnu_bloom: u32,
    /// e_entry's symbol (`_start`), if defined.
    entry: Option<OutDef>,
}

fn out_def(d: Def) -> Option<OutDef> {
    match d {
        Def::Absolute(v) => Some(OutDef::Absolute(v)),
        Def::Section(k, v) => Some(OutDef::Section(k, v)),
        Def::Undefined | Def::Discarded => None,
    }
}

fn push_str(table: &mut Vec<u8>, s: &[u8]) -> Result<u32> {
    let off = u32::try_from(table.len()).map_err(|_| layout_err("string table above 4 GiB"))?;
    table.extend_from_slice(s);
    table.push(0);
    Ok(off)
}

fn build_symbols(l: &Link<'_>) -> Result<Symbols> {
    let dynamic_idx = find(l, Synth::Dynamic);
    let mut strtab = vec![0u8];
    // addSymbol order: file locals, then every global in symbol-table order, then _DYNAMIC.
    let mut added: Vec<(OutSym, bool)> = Vec::new(); // (symbol, is_local in the output)
    for (src, s) in l.symbols.iter().enumerate().skip(1) {
        if s.bind() != sym::STB_LOCAL || s.sym_type() == sym::STT_SECTION {
            continue;
        }
        let Some(def) = out_def(s.def) else { continue };
        let name_off = push_str(&mut strtab, &s.name)?;
        added.push((
            OutSym {
                name: s.name.clone(),
                st_info: s.st_info,
                st_other: s.st_other,
                st_size: s.st_size,
                def,
                name_off,
                src,
            },
            true,
        ));
    }
    let mut exported_src: Vec<OutSym> = Vec::new();
    for (src, s) in l.symbols.iter().enumerate().skip(1) {
        if s.bind() == sym::STB_LOCAL {
            continue;
        }
        let Some(def) = out_def(s.def) else { continue };
        let name_off = push_str(&mut strtab, &s.name)?;
        let local = s.localised();
        let st_info = if local {
            (sym::STB_LOCAL << 4) | s.sym_type()
        } else {
            s.st_info
        };
        let o = OutSym {
            name: s.name.clone(),
            st_info,
            st_other: s.st_other,
            st_size: s.st_size,
            def,
            name_off,
            src,
        };
        if !local {
            exported_src.push(o.clone());
        }
        added.push((o, local));
    }
    let name_off = push_str(&mut strtab, b"_DYNAMIC")?;
    added.push((
        OutSym {
            name: b"_DYNAMIC".to_vec(),
            st_info: sym::STB_LOCAL << 4,
            st_other: sym::STV_HIDDEN,
            st_size: 0,
            def: OutDef::Output(dynamic_idx),
            name_off,
            src: 0,
        },
        true,
    ));
    let mut symtab: Vec<OutSym> = added.iter().filter(|(_, loc)| *loc).map(|(s, _)| s.clone()).collect();
    let num_local = symtab.len();
    symtab.extend(added.iter().filter(|(_, loc)| !*loc).map(|(s, _)| s.clone()));

    // .dynsym: exported symbols; names appended to .dynstr in symbol-table order, then sorted by
    // (gnu hash % nbuckets, .dynstr offset).
    let mut dynstr = vec![0u8];
    let mut dynsym = Vec::with_capacity(exported_src.len());
    for mut s in exported_src {
        s.name_off = push_str(&mut dynstr, &s.name)?;
        dynsym.push(s);
    }
    let nb = u32::try_from((dynsym.len() / 4).max(1)).map_err(|_| layout_err("too many dynamic symbols"))?;
    dynsym.sort_by_key(|s| (oe::gnu_hash(&s.name) % nb, s.name_off));
    let gnu_bloom = if dynsym.is_empty() {
        1
    } else {
        u32::try_from(next_power_of_2(dynsym.len() as u64 * 12 / 64)).map_err(|_| layout_err("bloom filter size"))?
    };
    let entry = symtab[num_local..].iter().find(|s| s.name == b"_start").map(|s| s.def);
    Ok(Symbols {
        symtab,
        num_local,
        strtab,
        dynsym,
        dynstr,
        gnu_buckets: nb,
        gnu_bloom,
        entry,
    })
}

fn shstrtab(l: &Link<'_>) -> (Vec<u8>, Vec<u32>) {
    let mut table = vec![0u8];
    let mut offs = Vec::with_capacity(l.outputs.len());
    let mut seen: HashMap<&[u8], u32> = HashMap::new();
    for o in &l.outputs {
        if let Some(&off) = seen.get(o.name.as_slice()) {
            offs.push(off);
            continue;
        }
        let off = table.len() as u32;
        table.extend_from_slice(&o.name);
        table.push(0);
        seen.insert(&o.name, off);
        offs.push(off);
    }
    (table, offs)
}

// ---------------------------------------------------------------------------------------------
// Layout

#[derive(Debug, Clone)]
struct Segment {
    p_type: u32,
    flags: u32,
    /// Output section indices (first..=last); None: no sections (GNU_STACK), or the headers only.
    first: Option<usize>,
    last: Option<usize>,
    /// The first PT_LOAD, which also holds the ELF header and program headers.
    headers: bool,
    align: u64,
}

fn plan_segments(l: &Link<'_>) -> Vec<Segment> {
    let mut segs = vec![Segment {
        p_type: oe::PT_PHDR,
        flags: oe::PF_R,
        first: None,
        last: None,
        headers: false,
        align: 8,
    }];
    let alloc: Vec<usize> = (0..l.outputs.len()).filter(|&o| l.outputs[o].alloc()).collect();
    // The first non-RELRO section after the RELRO ones starts a new PT_LOAD.
    let mut relro_end = None;
    let mut in_relro = false;
    for &o in &alloc {
        if l.outputs[o].relro {
            in_relro = true;
        } else if in_relro {
            in_relro = false;
            if relro_end.is_none() {
                relro_end = Some(o);
            }
        }
    }
    let mut loads: Vec<Segment> = Vec::new();
    for &o in &alloc {
        let sec = &l.outputs[o];
        let flags = sec.phdr_flags();
        let start_new = match loads.last() {
            None => false,
            Some(cur) => {
                let last_nobits = cur.last.is_some_and(|x| l.outputs[x].nobits());
                cur.flags != flags || Some(o) == relro_end || (last_nobits && !sec.nobits())
            }
        };
        if loads.is_empty() {
            loads.push(Segment {
                p_type: oe::PT_LOAD,
                flags,
                first: Some(o),
                last: Some(o),
                headers: true,
                align: MAX_PAGE,
            });
        } else if start_new {
            loads.push(Segment {
                p_type: oe::PT_LOAD,
                flags,
                first: Some(o),
                last: Some(o),
                headers: false,
                align: MAX_PAGE,
            });
        } else if let Some(cur) = loads.last_mut() {
            cur.last = Some(o);
        }
        if let Some(cur) = loads.last_mut() {
            cur.align = cur.align.max(sec.align);
        }
    }
    segs.extend(loads);
    let dynamic = find(l, Synth::Dynamic);
    segs.push(Segment {
        p_type: oe::PT_DYNAMIC,
        flags: oe::PF_R | oe::PF_W,
        first: Some(dynamic),
        last: Some(dynamic),
        headers: false,
        align: 8,
    });
    let relro: Vec<usize> = alloc.iter().copied().filter(|&o| l.outputs[o].relro).collect();
    if let (Some(&f), Some(&t)) = (relro.first(), relro.last()) {
        segs.push(Segment {
            p_type: oe::PT_GNU_RELRO,
            flags: oe::PF_R,
            first: Some(f),
            last: Some(t),
            headers: false,
            align: 1,
        });
    }
    segs.push(Segment {
        p_type: oe::PT_GNU_STACK,
        flags: oe::PF_R | oe::PF_W,
        first: None,
        last: None,
        headers: false,
        align: 0,
    });
    // One PT_NOTE per run of consecutive allocated notes with equal alignment.
    let mut cur: Option<Segment> = None;
    for o in 0..l.outputs.len() {
        let sec = &l.outputs[o];
        if sec.sh_type == sh::SHT_NOTE && sec.alloc() {
            match &mut cur {
                Some(n) if n.align == sec.align => n.last = Some(o),
                _ => {
                    if let Some(n) = cur.take() {
                        segs.push(n);
                    }
                    cur = Some(Segment {
                        p_type: oe::PT_NOTE,
                        flags: oe::PF_R,
                        first: Some(o),
                        last: Some(o),
                        headers: false,
                        align: sec.align,
                    });
                }
            }
        } else if let Some(n) = cur.take() {
            segs.push(n);
        }
    }
    if let Some(n) = cur.take() {
        segs.push(n);
    }
    segs
}

/// Which output sections each PT_LOAD covers: (load covering the section, is its first section).
fn load_map(n: usize, segs: &[Segment]) -> (Vec<Option<&Segment>>, Vec<bool>) {
    let mut load_of = vec![None; n];
    let mut first_of_load = vec![false; n];
    for s in segs.iter().filter(|s| s.p_type == oe::PT_LOAD) {
        if let (Some(f), Some(t)) = (s.first, s.last) {
            for slot in &mut load_of[f..=t] {
                *slot = Some(s);
            }
            first_of_load[f] = !s.headers;
        }
    }
    (load_of, first_of_load)
}

/// Assigns addresses, the size of `.relro_padding`, and file offsets; drops empty PT_LOADs as lld
/// does (after addresses are assigned, so the space of their program headers stays reserved).
/// Returns (size of the header area, section header table offset).
fn assign_layout(l: &mut Link<'_>, segs: &mut Vec<Segment>) -> Result<(u64, u64)> {
    let headers_size = EHDR_SIZE + PHDR_SIZE * segs.len() as u64;
    let (_, first_of_load) = load_map(l.outputs.len(), segs);
    let mut dot = headers_size;
    for (sec, &first) in l.outputs.iter_mut().zip(&first_of_load) {
        if !sec.alloc() {
            continue;
        }
        if first {
            dot = add(align_to(dot, MAX_PAGE)?, dot % MAX_PAGE, "segment address")?;
        }
        dot = align_to(dot, sec.align)?;
        sec.addr = dot;
        if sec.synth == Synth::RelroPadding {
            // lld grows the section to the page end without moving the location counter.
            sec.size = align_to(dot, COMMON_PAGE)? - dot;
            continue;
        }
        dot = add(dot, sec.size, "section address")?;
    }
    // removeEmptyPTLoad: a PT_LOAD whose sections occupy no memory is dropped.
    segs.retain(|s| {
        if s.p_type != oe::PT_LOAD || s.headers {
            return true;
        }
        match (s.first, s.last) {
            (Some(f), Some(t)) => l.outputs[t].addr + l.outputs[t].size != l.outputs[f].addr,
            _ => false,
        }
    });
    let (load_of, first_of_load) = load_map(l.outputs.len(), segs);
    let mut off = headers_size;
    for o in 0..l.outputs.len() {
        if !l.outputs[o].alloc() {
            continue;
        }
        let load = load_of[o];
        let sec_addr = l.outputs[o].addr;
        let offset = match load {
            Some(seg) if first_of_load[o] => align_to_skew(off, seg.align, sec_addr)?,
            _ if l.outputs[o].nobits() => off,
            None => align_to(off, l.outputs[o].align)?,
            Some(seg) => {
                // Same PT_LOAD: keep the address-to-offset distance of its first section
                // (the header load's first "section" is the ELF header at 0/0).
                let (foff, faddr) = match seg.first {
                    Some(f) if !seg.headers => (l.outputs[f].offset, l.outputs[f].addr),
                    _ => (0, 0),
                };
                sec_addr
                    .checked_sub(faddr)
                    .and_then(|d| foff.checked_add(d))
                    .ok_or_else(|| layout_err("segment offset"))?
            }
        };
        let sec = &mut l.outputs[o];
        sec.offset = offset;
        off = offset;
        if !sec.nobits() {
            off = add(off, sec.size, "file offset")?;
        }
    }
    for sec in l.outputs.iter_mut().filter(|s| !s.alloc()) {
        sec.offset = align_to(off, sec.align)?;
        off = add(sec.offset, sec.size, "file offset")?;
    }
    Ok((headers_size, align_to(off, 8)?))
}

// ---------------------------------------------------------------------------------------------
// Relocations

fn sym_value(l: &Link<'_>, d: OutDef) -> u64 {
    match d {
        OutDef::Absolute(v) => v,
        OutDef::Section(k, v) => {
            let inp = &l.inputs[k];
            l.outputs[inp.out].addr.wrapping_add(inp.out_off).wrapping_add(v)
        }
        OutDef::Output(o) => l.outputs[o].addr,
    }
}

fn out_shndx(l: &Link<'_>, d: OutDef) -> u16 {
    let idx = match d {
        OutDef::Absolute(_) => return oe::SHN_ABS,
        OutDef::Section(k, _) => l.outputs[l.inputs[k].out].index,
        OutDef::Output(o) => l.outputs[o].index,
    };
    if idx >= usize::from(oe::SHN_LORESERVE) {
        oe::SHN_XINDEX
    } else {
        idx as u16
    }
}

/// What to do for one input relocation, decided before layout (lld's scanRelocations).
#[derive(Debug, Clone)]
enum Action {
    /// Write S + A (absolute) or S + A - P (pc-relative) into the location.
    Static { s: OutDef, pc_rel: bool },
    /// Write GOT-entry + A - P.
    GotPc { slot: usize },
    /// Leave the location as it is; a dynamic R_AMDGPU_RELATIVE64 with addend S + A.
    DynRelative { s: OutDef },
    /// Leave the location as it is; a dynamic R_AMDGPU_ABS64 against the (exported) symbol.
    DynSymbol { sym: usize },
}

#[derive(Debug, Clone)]
struct Reloc {
    /// Input section and offset of the location.
    k: usize,
    offset: u64,
    r_type: u32,
    addend: i64,
    action: Action,
    symbol: String,
}

/// One GOT entry: the symbol it holds, and how the entry gets its value.
#[derive(Debug, Clone, Copy)]
enum GotKind {
    /// Non-preemptible, section-relative: R_AMDGPU_RELATIVE64.
    Relative(OutDef),
    /// Preemptible: R_AMDGPU_ABS64 against the symbol.
    Symbolic(usize),
    /// Non-preemptible absolute: the value, written at link time.
    Constant(u64),
}

#[derive(Debug, Default)]
struct Scan {
    relocs: Vec<Reloc>,
    /// GOT entries in lld's order (globals in symbol-table order, then locals).
    got: Vec<(usize, GotKind)>,
    /// Number of dynamic relocations, and how many of them are relative.
    dyn_count: usize,
    relative_count: usize,
}

/// Checks every relocation and decides its treatment (fail closed on anything lld would not link
/// or that this linker does not reproduce).
fn scan_relocations(l: &Link<'_>) -> Result<Scan> {
    let ctx = l.ctx;
    let mut scan = Scan::default();
    let mut got_set: BTreeSet<usize> = BTreeSet::new();
    // Relocation sections ordered by the section they apply to (lld scans input sections in order).
    let mut relas: Vec<(usize, usize)> = Vec::new(); // (kept input index, rela section index)
    for ri in 0..l.shdrs.len() {
        let h = &l.shdrs[ri];
        if h.sh_type != sh::SHT_RELA {
            continue;
        }
        let rname = l.section_name(ri);
        let target = h.sh_info as usize;
        let k = match l.roles.get(target) {
            Some(Role::Kept(k)) => *k,
            Some(Role::Discarded) => continue,
            _ => {
                return Err(l.unsupported_section(
                    ri,
                    format!("relocates section #{target}, which is not an output section"),
                ))
            }
        };
        if h.sh_size == 0 {
            continue;
        }
        if h.sh_entsize != 24 || !h.sh_size.is_multiple_of(24) {
            return Err(malformed(
                rname,
                h.sh_offset,
                format!(
                    "sh_entsize {} / sh_size {} is not a whole number of 24-byte RELA entries",
                    h.sh_entsize, h.sh_size
                ),
            ));
        }
        if h.sh_link as usize >= l.shdrs.len() || l.shdrs[h.sh_link as usize].sh_type != sh::SHT_SYMTAB {
            return Err(malformed(
                rname,
                h.sh_offset,
                format!("sh_link {} is not the symbol table", h.sh_link),
            ));
        }
        if l.inputs[k].flags & u64::from(sh::SHF_ALLOC) == 0 {
            return Err(l.unsupported_section(ri, "relocations in a non-allocated section"));
        }
        if l.inputs[k].sh_type == sh::SHT_NOBITS {
            return Err(l.unsupported_section(ri, "relocations in a NOBITS section"));
        }
        if relas.iter().any(|&(kk, _)| kk == k) {
            return Err(l.unsupported_section(ri, "a second relocation section for the same section"));
        }
        relas.push((k, ri));
    }
    relas.sort_unstable();
    for (k, ri) in relas {
        let h = &l.shdrs[ri];
        let rname = l.section_name(ri);
        let tname = lossy(&l.inputs[k].name);
        let writable = l.inputs[k].flags & u64::from(sh::SHF_WRITE) != 0;
        let relocs = RelocSection::parse(l.bytes, h.sh_offset as usize, h.sh_size as usize, true, ctx)
            .map_err(|e| malformed(rname.clone(), h.sh_offset, e.to_string()))?;
        for (ei, r) in relocs.iter().enumerate() {
            let r_type = r.r_type;
            let offset = r.r_offset;
            let tn = relocation_name(r_type).to_string();
            let unsupported = |symbol: String, why: &str| RelinkError::UnsupportedRelocation {
                r_type,
                type_name: tn.clone(),
                section: tname.clone(),
                offset,
                symbol,
                why: why.to_string(),
            };
            if r_type == R_AMDGPU_NONE {
                continue;
            }
            let width: u64 = match r_type {
                R_AMDGPU_REL64 | R_AMDGPU_ABS64 => 8,
                R_AMDGPU_REL32 | R_AMDGPU_REL32_LO | R_AMDGPU_REL32_HI | R_AMDGPU_ABS32 => 4,
                R_AMDGPU_GOTPCREL | R_AMDGPU_GOTPCREL32_LO | R_AMDGPU_GOTPCREL32_HI => 4,
                R_AMDGPU_REL16 => 2,
                1 | 2 => {
                    return Err(unsupported(
                        l.symbol_name(r.r_sym),
                        "lld rejects this type too (unknown relocation)",
                    ))
                }
                R_AMDGPU_RELATIVE64 => {
                    return Err(unsupported(
                        l.symbol_name(r.r_sym),
                        "a dynamic relocation type in a relocatable object",
                    ))
                }
                _ => return Err(unsupported(l.symbol_name(r.r_sym), "unknown relocation type")),
            };
            if r.r_sym == 0 || r.r_sym >= l.symbols.len() {
                return Err(malformed(
                    format!("relocation #{ei} in {rname}"),
                    h.sh_offset + ei as u64 * 24,
                    format!(
                        "symbol index {} at {tname}+{offset:#x} is not a symbol (the table has {})",
                        r.r_sym,
                        l.symbols.len()
                    ),
                ));
            }
            if offset.checked_add(width).is_none_or(|e| e > l.inputs[k].size) {
                return Err(malformed(
                    format!("relocation #{ei} ({tn}) in {rname}"),
                    h.sh_offset + ei as u64 * 24,
                    format!(
                        "offset {offset:#x} + {width} is outside {tname} ({} bytes)",
                        l.inputs[k].size
                    ),
                ));
            }
            let s = &l.symbols[r.r_sym];
            let sname = l.symbol_name(r.r_sym);
            let def = match s.def {
                Def::Undefined => {
                    return Err(RelinkError::UndefinedSymbol {
                        name: sname,
                        index: r.r_sym,
                        referenced_at: Some(format!("{tname}+{offset:#x} ({tn})")),
                    })
                }
                Def::Discarded => return Err(unsupported(sname, "the symbol is in a discarded section")),
                Def::Section(sk, _) if l.inputs[sk].flags & u64::from(sh::SHF_ALLOC) == 0 => {
                    return Err(unsupported(sname, "the symbol is in a non-allocated section"))
                }
                Def::Absolute(v) => OutDef::Absolute(v),
                Def::Section(sk, v) => OutDef::Section(sk, v),
            };
            let absolute = matches!(def, OutDef::Absolute(_));
            let preemptible = s.preemptible();
            let action = match r_type {
                R_AMDGPU_GOTPCREL | R_AMDGPU_GOTPCREL32_LO | R_AMDGPU_GOTPCREL32_HI => {
                    got_set.insert(r.r_sym);
                    Action::GotPc { slot: r.r_sym } // symbol index; turned into a slot below
                }
                R_AMDGPU_ABS32 | R_AMDGPU_ABS64 => {
                    if absolute && !preemptible {
                        Action::Static { s: def, pc_rel: false }
                    } else if r_type == R_AMDGPU_ABS32 {
                        return Err(unsupported(sname, "a 32-bit absolute address in a shared object needs a dynamic relocation that does not exist (lld: recompile with -fPIC)"));
                    } else if !writable {
                        return Err(unsupported(sname, "a dynamic relocation in a read-only section (a text relocation; lld: recompile with -fPIC)"));
                    } else if preemptible {
                        scan.dyn_count += 1;
                        Action::DynSymbol { sym: r.r_sym }
                    } else {
                        scan.dyn_count += 1;
                        scan.relative_count += 1;
                        Action::DynRelative { s: def }
                    }
                }
                _ => {
                    if preemptible {
                        return Err(unsupported(sname, "PC-relative against a preemptible symbol (global, default visibility); lld: recompile with -fPIC"));
                    }
                    if absolute {
                        return Err(unsupported(sname, "PC-relative against an absolute symbol needs a dynamic relocation (lld: recompile with -fPIC)"));
                    }
                    Action::Static { s: def, pc_rel: true }
                }
            };
            scan.relocs.push(Reloc {
                k,
                offset,
                r_type,
                addend: r.r_addend.unwrap_or(0),
                action,
                symbol: sname,
            });
        }
    }
    // GOT entries: lld's postScanRelocations visits globals in symbol-table order, then locals.
    let mut got_syms: Vec<usize> = got_set.into_iter().collect();
    got_syms.sort_by_key(|&i| (l.symbols[i].bind() == sym::STB_LOCAL, i));
    let slot_of: HashMap<usize, usize> = got_syms.iter().enumerate().map(|(slot, &i)| (i, slot)).collect();
    for &i in &got_syms {
        let s = &l.symbols[i];
        let kind = match s.def {
            _ if s.preemptible() => {
                scan.dyn_count += 1;
                GotKind::Symbolic(i)
            }
            Def::Absolute(v) => GotKind::Constant(v),
            Def::Section(sk, v) => {
                scan.dyn_count += 1;
                scan.relative_count += 1;
                GotKind::Relative(OutDef::Section(sk, v))
            }
            Def::Undefined | Def::Discarded => unreachable!("rejected while scanning"),
        };
        scan.got.push((i, kind));
    }
    for r in &mut scan.relocs {
        if let Action::GotPc { slot } = &mut r.action {
            *slot = slot_of[slot];
        }
    }
    Ok(scan)
}

/// A dynamic relocation for .rela.dyn.
#[derive(Debug, Clone, Copy)]
struct DynReloc {
    r_offset: u64,
    r_type: u32,
    r_sym: u32,
    r_addend: i64,
}

/// Applies the static relocations (after layout); returns the GOT contents and .rela.dyn entries.
fn apply_relocations(
    l: &mut Link<'_>,
    scan: &Scan,
    dynsym_index: &dyn Fn(usize) -> u32,
) -> Result<(Vec<u8>, Vec<DynReloc>)> {
    let got_addr = l.outputs.iter().find(|o| o.synth == Synth::Got).map_or(0, |o| o.addr);
    let mut got = vec![0u8; scan.got.len() * 8];
    let mut dynrel = Vec::with_capacity(scan.dyn_count);
    for (slot, &(_, kind)) in scan.got.iter().enumerate() {
        let at = got_addr.wrapping_add(8 * slot as u64);
        match kind {
            GotKind::Relative(d) => dynrel.push(DynReloc {
                r_offset: at,
                r_type: R_AMDGPU_RELATIVE64,
                r_sym: 0,
                r_addend: sym_value(l, d) as i64,
            }),
            GotKind::Symbolic(i) => dynrel.push(DynReloc {
                r_offset: at,
                r_type: R_AMDGPU_ABS64,
                r_sym: dynsym_index(i),
                r_addend: 0,
            }),
            GotKind::Constant(v) => got[8 * slot..8 * slot + 8].copy_from_slice(&v.to_le_bytes()),
        }
    }
    for r in &scan.relocs {
        let inp = &l.inputs[r.k];
        let p = l.outputs[inp.out].addr.wrapping_add(inp.out_off).wrapping_add(r.offset);
        let a = r.addend as u64;
        let val = match r.action {
            Action::Static { s, pc_rel } => {
                let sv = sym_value(l, s);
                if pc_rel {
                    sv.wrapping_add(a).wrapping_sub(p)
                } else {
                    sv.wrapping_add(a)
                }
            }
            Action::GotPc { slot } => got_addr.wrapping_add(8 * slot as u64).wrapping_add(a).wrapping_sub(p),
            Action::DynRelative { s } => {
                let addend = sym_value(l, s).wrapping_add(a) as i64;
                dynrel.push(DynReloc {
                    r_offset: p,
                    r_type: R_AMDGPU_RELATIVE64,
                    r_sym: 0,
                    r_addend: addend,
                });
                continue;
            }
            Action::DynSymbol { sym } => {
                dynrel.push(DynReloc {
                    r_offset: p,
                    r_type: R_AMDGPU_ABS64,
                    r_sym: dynsym_index(sym),
                    r_addend: r.addend,
                });
                continue;
            }
        };
        let at = r.offset as usize;
        let data = &mut l.inputs[r.k].data;
        match r.r_type {
            R_AMDGPU_REL64 | R_AMDGPU_ABS64 => data[at..at + 8].copy_from_slice(&val.to_le_bytes()),
            R_AMDGPU_REL32 | R_AMDGPU_REL32_LO | R_AMDGPU_ABS32 | R_AMDGPU_GOTPCREL | R_AMDGPU_GOTPCREL32_LO => {
                data[at..at + 4].copy_from_slice(&(val as u32).to_le_bytes())
            }
            R_AMDGPU_REL32_HI | R_AMDGPU_GOTPCREL32_HI => {
                data[at..at + 4].copy_from_slice(&((val >> 32) as u32).to_le_bytes())
            }
            R_AMDGPU_REL16 => {
                let simm = (val as i64).wrapping_sub(4) / 4;
                if !(i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&simm) {
                    return Err(RelinkError::RelocationOverflow {
                        type_name: relocation_name(r.r_type).to_string(),
                        section: lossy(&l.inputs[r.k].name),
                        offset: r.offset,
                        symbol: r.symbol.clone(),
                        value: val,
                    });
                }
                data[at..at + 2].copy_from_slice(&(simm as i16).to_le_bytes());
            }
            _ => unreachable!("relocation types are filtered while scanning"),
        }
    }
    // -z combreloc: relative relocations first, then by symbol index and offset.
    dynrel.sort_by_key(|d| (d.r_type != R_AMDGPU_RELATIVE64, d.r_sym, d.r_offset));
    Ok((got, dynrel))
}

// ---------------------------------------------------------------------------------------------
// Entry point

pub(crate) fn link(bytes: &[u8], options: &LinkOptions) -> Result<Vec<u8>> {
    let mut l = read_input(bytes)?;
    if let Some(blob) = &options.metadata {
        replace_metadata(&mut l, blob)?;
    }
    let scan = scan_relocations(&l)?;
    build_outputs(&mut l, !scan.got.is_empty(), scan.dyn_count > 0)?;
    let syms = build_symbols(&l)?;
    let (shstr, shnames) = shstrtab(&l);

    // Sizes of the synthetic sections.
    let ndyn = syms.dynsym.len() as u64;
    let dyn_entries: u64 = 7 + if scan.dyn_count > 0 {
        3 + u64::from(scan.relative_count > 0)
    } else {
        0
    };
    for o in 0..l.outputs.len() {
        let size = match l.outputs[o].synth {
            Synth::Input | Synth::RelroPadding => continue,
            Synth::DynSym => (ndyn + 1) * SYM_SIZE,
            Synth::GnuHash => 16 + 8 * u64::from(syms.gnu_bloom) + 4 * u64::from(syms.gnu_buckets) + 4 * ndyn,
            Synth::Hash => 4 * (2 + 2 * (ndyn + 1)),
            Synth::DynStr => syms.dynstr.len() as u64,
            Synth::Dynamic => dyn_entries * DYN_SIZE,
            Synth::Comment => LINKER_COMMENT.len() as u64 + 1,
            Synth::RelaDyn => 24 * scan.dyn_count as u64,
            Synth::Got => 8 * scan.got.len() as u64,
            Synth::SymTab => (syms.symtab.len() as u64 + 1) * SYM_SIZE,
            Synth::ShStrTab => shstr.len() as u64,
            Synth::StrTab => syms.strtab.len() as u64,
        };
        l.outputs[o].size = size;
    }
    let idx = |s: Synth| l.outputs[find(&l, s)].index as u32;
    let (dynsym_i, dynstr_i, strtab_i) = (idx(Synth::DynSym), idx(Synth::DynStr), idx(Synth::StrTab));
    for o in 0..l.outputs.len() {
        let (link, info) = match l.outputs[o].synth {
            Synth::DynSym => (dynstr_i, 1),
            Synth::GnuHash | Synth::Hash | Synth::RelaDyn => (dynsym_i, 0),
            Synth::Dynamic => (dynstr_i, 0),
            Synth::SymTab => (
                strtab_i,
                u32::try_from(syms.num_local + 1).map_err(|_| layout_err("too many symbols"))?,
            ),
            _ => (0, 0),
        };
        l.outputs[o].link = link;
        l.outputs[o].info = info;
    }
    if l.outputs.len() + 1 >= usize::from(oe::SHN_LORESERVE) {
        return Err(layout_err(format!("{} output sections", l.outputs.len())));
    }

    let mut segs = plan_segments(&l);
    let (headers_size, shoff) = assign_layout(&mut l, &mut segs)?;
    let file_size = shoff + SHDR_SIZE * (l.outputs.len() as u64 + 1);
    if file_size > MAX_OUTPUT {
        return Err(layout_err(format!(
            "the output would be {file_size} bytes (limit {MAX_OUTPUT})"
        )));
    }
    let dyn_pos: HashMap<usize, u32> = syms
        .dynsym
        .iter()
        .enumerate()
        .map(|(p, d)| (d.src, p as u32 + 1))
        .collect();
    let dynsym_index = |src: usize| dyn_pos.get(&src).copied().unwrap_or(0);
    let (got, dynrel) = apply_relocations(&mut l, &scan, &dynsym_index)?;

    // Program headers from the layout (lld's setPhdrs).
    let mut phdrs = Vec::with_capacity(segs.len());
    for s in &segs {
        let (mut offset, mut vaddr, mut filesz, mut memsz) = (0, 0, 0, 0);
        if s.p_type == oe::PT_PHDR {
            offset = EHDR_SIZE;
            vaddr = EHDR_SIZE;
            filesz = headers_size - EHDR_SIZE;
            memsz = filesz;
        } else if let (Some(f), Some(t)) = (s.first, s.last) {
            let (first_off, first_addr) = if s.headers {
                (0, 0)
            } else {
                (l.outputs[f].offset, l.outputs[f].addr)
            };
            let last = &l.outputs[t];
            let span = |end: Option<u64>, start: u64| {
                end.and_then(|e| e.checked_sub(start))
                    .ok_or_else(|| layout_err("segment extent"))
            };
            filesz = span(
                last.offset.checked_add(if last.nobits() { 0 } else { last.size }),
                first_off,
            )?;
            memsz = span(last.addr.checked_add(last.size), first_addr)?;
            offset = first_off;
            vaddr = first_addr;
        }
        if s.p_type == oe::PT_GNU_RELRO {
            memsz = align_to(add(offset, memsz, "RELRO end")?, COMMON_PAGE)? - offset;
        }
        phdrs.push(ProgramHeader {
            p_type: s.p_type,
            p_flags: s.flags,
            p_offset: offset,
            p_vaddr: vaddr,
            p_paddr: vaddr,
            p_filesz: filesz,
            p_memsz: memsz,
            p_align: s.align,
        });
    }

    let e_flags = options
        .e_flags_override
        .unwrap_or_else(|| u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]));
    let e_entry = syms.entry.map(|d| sym_value(&l, d)).unwrap_or(0);
    let out = Output {
        syms: &syms,
        shstr: &shstr,
        shnames: &shnames,
        phdrs: &phdrs,
        got: &got,
        dynrel: &dynrel,
        relative_count: scan.relative_count,
    };
    write_output(&l, &out, shoff, e_flags, e_entry, bytes[7], bytes[8])
}

/// Everything the writer needs besides the link state.
struct Output<'o> {
    syms: &'o Symbols,
    shstr: &'o [u8],
    shnames: &'o [u32],
    phdrs: &'o [ProgramHeader],
    got: &'o [u8],
    dynrel: &'o [DynReloc],
    relative_count: usize,
}

fn write_output(
    l: &Link<'_>,
    out: &Output<'_>,
    shoff: u64,
    e_flags: u32,
    e_entry: u64,
    os_abi: u8,
    abi_version: u8,
) -> Result<Vec<u8>> {
    let (syms, shstr, shnames, phdrs) = (out.syms, out.shstr, out.shnames, out.phdrs);
    let mut buf = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buf);
    let ndyn = syms.dynsym.len() as u32;

    // Reserve the file exactly as laid out, so the writer's offsets agree with ours.
    w.reserve_file_header();
    w.reserve_program_headers(phdrs.len() as u32);
    let mut order: Vec<usize> = (0..l.outputs.len()).filter(|&o| !l.outputs[o].nobits()).collect();
    order.sort_by_key(|&o| l.outputs[o].offset);
    for &o in &order {
        let sec = &l.outputs[o];
        w.reserve_until(sec.offset as usize);
        match sec.synth {
            Synth::Hash => {
                w.reserve_hash(ndyn + 1, ndyn + 1);
            }
            Synth::GnuHash => {
                w.reserve_gnu_hash(syms.gnu_bloom, syms.gnu_buckets, ndyn);
            }
            Synth::Dynamic => {
                w.reserve_dynamic((sec.size / DYN_SIZE) as usize);
            }
            Synth::RelaDyn => {
                w.reserve_relocations(out.dynrel.len(), true);
            }
            _ => {
                w.reserve(sec.size as usize, 1);
            }
        }
    }
    w.reserve_until(shoff as usize);
    w.reserve_null_section_index();
    for sec in &l.outputs {
        if sec.synth == Synth::ShStrTab {
            w.reserve_shstrtab_section_index();
        } else {
            w.reserve_section_index();
        }
    }
    w.reserve_section_headers();

    w.write_file_header(&FileHeader {
        os_abi,
        abi_version,
        e_type: oe::ET_DYN,
        e_machine: EM_AMDGPU,
        e_entry,
        e_flags,
    })
    .map_err(|e| RelinkError::Write(e.to_string()))?;
    w.write_align_program_headers();
    for p in phdrs {
        w.write_program_header(p);
    }
    let e = LE;
    let sym_bytes = |s: &OutSym| {
        let (value, shndx) = (sym_value(l, s.def), out_shndx(l, s.def));
        oe::Sym64::<LE> {
            st_name: U32::new(e, s.name_off),
            st_info: s.st_info,
            st_other: s.st_other,
            st_shndx: U16::new(e, shndx),
            st_value: U64::new(e, value),
            st_size: U64::new(e, s.st_size),
        }
    };
    let null_sym = oe::Sym64::<LE> {
        st_name: U32::new(e, 0),
        st_info: 0,
        st_other: 0,
        st_shndx: U16::new(e, 0),
        st_value: U64::new(e, 0),
        st_size: U64::new(e, 0),
    };
    for &o in &order {
        let sec = &l.outputs[o];
        w.pad_until(sec.offset as usize);
        match sec.synth {
            Synth::Input => {
                let mut data = vec![0u8; sec.size as usize];
                for &k in &sec.inputs {
                    let inp = &l.inputs[k];
                    if inp.sh_type != sh::SHT_NOBITS {
                        let at = inp.out_off as usize;
                        data[at..at + inp.data.len()].copy_from_slice(&inp.data);
                    }
                }
                w.write(&data);
            }
            Synth::DynSym => {
                w.write(object::bytes_of(&null_sym));
                for s in &syms.dynsym {
                    w.write(object::bytes_of(&sym_bytes(s)));
                }
            }
            Synth::SymTab => {
                w.write(object::bytes_of(&null_sym));
                for s in &syms.symtab {
                    w.write(object::bytes_of(&sym_bytes(s)));
                }
            }
            Synth::GnuHash => {
                let hashes: Vec<u32> = syms.dynsym.iter().map(|s| oe::gnu_hash(&s.name)).collect();
                w.write_gnu_hash(1, 26, syms.gnu_bloom, syms.gnu_buckets, ndyn, |i| hashes[i as usize]);
            }
            Synth::Hash => {
                let hashes: Vec<u32> = syms.dynsym.iter().map(|s| oe::hash(&s.name)).collect();
                w.write_hash(ndyn + 1, ndyn + 1, |i| {
                    if i == 0 {
                        None
                    } else {
                        hashes.get(i as usize - 1).copied()
                    }
                });
            }
            Synth::DynStr => w.write(&syms.dynstr),
            Synth::StrTab => w.write(&syms.strtab),
            Synth::ShStrTab => w.write(shstr),
            Synth::Comment => {
                w.write(LINKER_COMMENT.as_bytes());
                w.write(&[0]);
            }
            Synth::Dynamic => {
                let addr = |s: Synth| l.outputs[find(l, s)].addr;
                w.write_align_dynamic();
                if !out.dynrel.is_empty() {
                    w.write_dynamic(oe::DT_RELA, addr(Synth::RelaDyn));
                    w.write_dynamic(oe::DT_RELASZ, 24 * out.dynrel.len() as u64);
                    w.write_dynamic(oe::DT_RELAENT, 24);
                    if out.relative_count > 0 {
                        w.write_dynamic(oe::DT_RELACOUNT, out.relative_count as u64);
                    }
                }
                w.write_dynamic(oe::DT_SYMTAB, addr(Synth::DynSym));
                w.write_dynamic(oe::DT_SYMENT, SYM_SIZE);
                w.write_dynamic(oe::DT_STRTAB, addr(Synth::DynStr));
                w.write_dynamic(oe::DT_STRSZ, syms.dynstr.len() as u64);
                w.write_dynamic(oe::DT_GNU_HASH, addr(Synth::GnuHash));
                w.write_dynamic(oe::DT_HASH, addr(Synth::Hash));
                w.write_dynamic(oe::DT_NULL, 0);
            }
            Synth::RelroPadding => {}
            Synth::Got => w.write(out.got),
            Synth::RelaDyn => {
                w.write_align_relocation();
                for d in out.dynrel {
                    w.write_relocation(
                        true,
                        &object::write::elf::Rel {
                            r_offset: d.r_offset,
                            r_sym: d.r_sym,
                            r_type: d.r_type,
                            r_addend: d.r_addend,
                        },
                    );
                }
            }
        }
    }
    w.pad_until(shoff as usize);
    let shdr =
        |name: u32, t: u32, flags: u64, addr: u64, off: u64, size: u64, link: u32, info: u32, align: u64, ent: u64| {
            oe::SectionHeader64::<LE> {
                sh_name: U32::new(e, name),
                sh_type: U32::new(e, t),
                sh_flags: U64::new(e, flags),
                sh_addr: U64::new(e, addr),
                sh_offset: U64::new(e, off),
                sh_size: U64::new(e, size),
                sh_link: U32::new(e, link),
                sh_info: U32::new(e, info),
                sh_addralign: U64::new(e, align),
                sh_entsize: U64::new(e, ent),
            }
        };
    w.write(object::bytes_of(&shdr(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)));
    for (o, sec) in l.outputs.iter().enumerate() {
        let h = shdr(
            shnames[o],
            sec.sh_type,
            sec.flags,
            sec.addr,
            sec.offset,
            sec.size,
            sec.link,
            sec.info,
            sec.align,
            sec.entsize,
        );
        w.write(object::bytes_of(&h));
    }
    drop(w);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skewed_alignment_matches_llvm_align_to() {
        // Value below the skew, above it, equal to it; skew larger than the alignment.
        assert_eq!(align_to_skew(0x5c0, 0x1000, 0x600).unwrap(), 0x600);
        assert_eq!(align_to_skew(0x700, 0x1000, 0x600).unwrap(), 0x1600);
        assert_eq!(align_to_skew(0x600, 0x1000, 0x600).unwrap(), 0x600);
        assert_eq!(align_to_skew(0xd00, 0x1000, 0x2d00).unwrap(), 0xd00);
        assert!(align_to_skew(u64::MAX - 1, 0x1000, 0x10).is_err());
    }

    #[test]
    fn next_power_of_two_is_strictly_greater() {
        assert_eq!(next_power_of_2(0), 1);
        assert_eq!(next_power_of_2(1), 2);
        assert_eq!(next_power_of_2(2), 4);
        assert_eq!(next_power_of_2(3), 4);
        assert_eq!(next_power_of_2(4), 8);
    }

    #[test]
    fn output_section_names_follow_lld() {
        assert_eq!(output_name(b".text.foo"), b".text");
        assert_eq!(output_name(b".text"), b".text");
        assert_eq!(output_name(b".textual"), b".textual");
        assert_eq!(output_name(b".data.rel.ro.x"), b".data.rel.ro");
        assert_eq!(output_name(b".data.x"), b".data");
        assert_eq!(output_name(b".rodata.str1.1"), b".rodata");
        assert_eq!(output_name(b".bss.k"), b".bss");
        assert_eq!(output_name(b".AMDGPU.gpr_maximums"), b".AMDGPU.gpr_maximums");
    }

    #[test]
    fn string_lookup_is_bounded() {
        assert_eq!(c_str(b"\0abc\0", 1), Some(&b"abc"[..]));
        assert_eq!(c_str(b"\0abc", 1), None);
        assert_eq!(c_str(b"abc\0", 9), None);
    }

    #[test]
    fn header_errors_name_the_field() {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[16] = 1;
        h[18] = 224;
        // No sections at all.
        let e = link(&h, &LinkOptions::default()).unwrap_err();
        assert!(e.to_string().contains("e_shnum is 0"), "{e}");
        h[58] = 64;
        h[60] = 1;
        h[40] = 200; // e_shoff beyond the end
        let e = link(&h, &LinkOptions::default()).unwrap_err();
        assert!(e.to_string().contains("section header table at offset 0xc8"), "{e}");
    }
}
