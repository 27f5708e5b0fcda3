//! Reading an AMDGPU code object (ELF64, EM_AMDGPU, code object v4-v6, ET_REL or ET_DYN) into
//! [`CodeObject`]: header, e_flags, sections, symbols, the metadata note, kernels (descriptor and
//! code located and decoded) and the other functions in .text.
//!
//! The header, section and program-header tables are bounds-checked here before goblin sees them,
//! so that bad input gives an error naming the offset instead of a generic parse failure.

use crate::descriptor::{Generation, KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
use crate::eflags::{code_object_version, EFlags};
use crate::error::CodeObjectError;
use crate::metadata::Metadata;
use goblin::elf::{section_header, sym, Elf};

pub const EM_AMDGPU: u16 = 224;
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
pub const NT_AMDGPU_METADATA: u32 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ElfKind {
    /// ET_REL: what the compiler emits.
    Relocatable,
    /// ET_DYN: what the runtime loads.
    Shared,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Section {
    pub index: usize,
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub align: u64,
}

impl Section {
    pub fn is_nobits(&self) -> bool {
        self.sh_type == section_header::SHT_NOBITS
    }
    fn contains_addr(&self, addr: u64, len: u64) -> bool {
        addr >= self.addr && addr.checked_add(len).is_some_and(|end| end <= self.addr.saturating_add(self.size))
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProgramHeader {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SymbolTable {
    Symtab,
    Dynsym,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Symbol {
    pub name: String,
    pub table: SymbolTable,
    /// st_value: an address in ET_DYN, a section offset in ET_REL.
    pub value: u64,
    pub size: u64,
    /// STT_* (FUNC = 2, OBJECT = 1, ...)
    pub sym_type: u8,
    /// STB_* (LOCAL = 0, GLOBAL = 1, WEAK = 2)
    pub bind: u8,
    pub visibility: u8,
    pub section: usize,
}

/// A note entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Note {
    pub owner: String,
    pub n_type: u32,
    /// File offset of the descriptor.
    pub desc_offset: u64,
    pub desc_size: u64,
}

/// A kernel: its metadata entry, descriptor and code.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Kernel {
    pub name: String,
    /// `<name>.kd`
    pub descriptor_symbol: String,
    pub descriptor: KernelDescriptor,
    /// File offset of the 64-byte descriptor.
    pub descriptor_offset: u64,
    /// Address of the descriptor (section offset in ET_REL).
    pub descriptor_addr: u64,
    /// Address of the first instruction (section offset in ET_REL).
    pub code_addr: u64,
    pub code_offset: u64,
    pub code_size: u64,
}

/// A non-kernel function in .text (a device function).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Function {
    pub name: String,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub global: bool,
}

#[derive(Debug, Clone)]
pub struct CodeObject {
    pub bytes: Vec<u8>,
    pub kind: ElfKind,
    pub abi_version: u8,
    /// 4, 5 or 6.
    pub code_object_version: u32,
    pub eflags: EFlags,
    pub sections: Vec<Section>,
    pub program_headers: Vec<ProgramHeader>,
    pub symbols: Vec<Symbol>,
    pub notes: Vec<Note>,
    pub metadata: Option<Metadata>,
    pub kernels: Vec<Kernel>,
    pub functions: Vec<Function>,
}

fn need(bytes: &[u8], what: &'static str, offset: u64, size: u64) -> Result<(), CodeObjectError> {
    let len = bytes.len() as u64;
    if offset.checked_add(size).is_none_or(|end| end > len) {
        return Err(CodeObjectError::Truncated { what, offset, need: size, have: len.saturating_sub(offset) });
    }
    Ok(())
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Checks the ELF header; returns (kind, abi_version).
fn check_header(b: &[u8]) -> Result<(ElfKind, u8), CodeObjectError> {
    if b.len() >= 4 && &b[..4] != b"\x7fELF" {
        return Err(CodeObjectError::NotElf);
    }
    need(b, "ELF header", 0, 64)?;
    if b[4] != 2 {
        return Err(CodeObjectError::WrongClass { class: b[4] });
    }
    if b[5] != 1 {
        return Err(CodeObjectError::WrongEndian(b[5]));
    }
    let machine = u16_at(b, 18);
    if machine != EM_AMDGPU {
        return Err(CodeObjectError::WrongMachine { machine });
    }
    if b[7] != ELFOSABI_AMDGPU_HSA {
        return Err(CodeObjectError::WrongOsAbi { osabi: b[7] });
    }
    let abi_version = b[8];
    if !matches!(code_object_version(abi_version), Some(4..=6)) {
        return Err(CodeObjectError::UnsupportedVersion { abi_version });
    }
    let kind = match u16_at(b, 16) {
        1 => ElfKind::Relocatable,
        3 => ElfKind::Shared,
        e_type => return Err(CodeObjectError::WrongType { e_type }),
    };
    let len = b.len() as u64;
    let oob = |what: &str, offset: u64, size: u64| CodeObjectError::OutOfBounds {
        what: what.to_string(),
        offset,
        size,
        file_size: len,
    };
    let (phoff, phentsize, phnum) = (u64_at(b, 32), u16_at(b, 54) as u64, u16_at(b, 56) as u64);
    if phnum > 0 && (phentsize != 56 || phoff.checked_add(phnum * 56).is_none_or(|e| e > len)) {
        return Err(oob("program header table", phoff, phnum * phentsize));
    }
    let (shoff, shentsize, shnum) = (u64_at(b, 40), u16_at(b, 58) as u64, u16_at(b, 60) as u64);
    if shnum > 0 && (shentsize != 64 || shoff.checked_add(shnum * 64).is_none_or(|e| e > len)) {
        return Err(oob("section header table", shoff, shnum * shentsize));
    }
    let shstrndx = u16_at(b, 62) as u64;
    if shnum > 0 && shstrndx >= shnum {
        return Err(CodeObjectError::Elf(format!("e_shstrndx {shstrndx} is not below e_shnum {shnum}")));
    }
    // Every section's contents and every segment's file image must lie inside the file.
    for i in 0..shnum {
        let h = (shoff + i * 64) as usize;
        let (sh_type, off, size) = (u32_at(b, h + 4), u64_at(b, h + 24), u64_at(b, h + 32));
        if sh_type != section_header::SHT_NOBITS && sh_type != section_header::SHT_NULL
            && off.checked_add(size).is_none_or(|e| e > len)
        {
            return Err(oob(&format!("section #{i} contents"), off, size));
        }
    }
    for i in 0..phnum {
        let h = (phoff + i * 56) as usize;
        let (off, filesz) = (u64_at(b, h + 8), u64_at(b, h + 32));
        if off.checked_add(filesz).is_none_or(|e| e > len) {
            return Err(oob(&format!("segment #{i} file image"), off, filesz));
        }
    }
    Ok((kind, abi_version))
}

/// Parses the notes in one note section or segment.
fn parse_notes(b: &[u8], start: u64, size: u64, out: &mut Vec<Note>) -> Result<(), CodeObjectError> {
    // Bounded by the file whatever the header said (found by fuzzing: start + size overflowed).
    let end = start.checked_add(size).filter(|&e| e <= b.len() as u64).ok_or_else(|| CodeObjectError::OutOfBounds {
        what: "note section or segment".into(),
        offset: start,
        size,
        file_size: b.len() as u64,
    })?;
    let mut at = start;
    while at < end {
        let bad = |msg: String| CodeObjectError::Note { offset: at, msg };
        if end - at < 12 {
            return Err(bad(format!("{} bytes left, a note header needs 12", end - at)));
        }
        let a = at as usize;
        let (namesz, descsz, n_type) = (u32_at(b, a) as u64, u32_at(b, a + 4) as u64, u32_at(b, a + 8));
        let name_at = at + 12;
        let desc_at = name_at + namesz.div_ceil(4) * 4;
        let next = desc_at + descsz.div_ceil(4) * 4;
        if desc_at.checked_add(descsz).is_none_or(|e| e > end) {
            return Err(bad(format!("name ({namesz} bytes) and descriptor ({descsz} bytes) overrun the note section")));
        }
        let name = &b[name_at as usize..(name_at + namesz) as usize];
        let owner = String::from_utf8_lossy(name.strip_suffix(&[0]).unwrap_or(name)).to_string();
        out.push(Note { owner, n_type, desc_offset: desc_at, desc_size: descsz });
        at = next;
    }
    Ok(())
}

impl CodeObject {
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
        let (kind, abi_version) = check_header(bytes)?;
        let elf = Elf::parse(bytes).map_err(|e| CodeObjectError::Elf(e.to_string()))?;
        let eflags = EFlags::decode(elf.header.e_flags);

        let sections: Vec<Section> = elf
            .section_headers
            .iter()
            .enumerate()
            .map(|(index, sh)| Section {
                index,
                name: elf.shdr_strtab.get_at(sh.sh_name).unwrap_or("").to_string(),
                sh_type: sh.sh_type,
                flags: sh.sh_flags,
                addr: sh.sh_addr,
                offset: sh.sh_offset,
                size: sh.sh_size,
                align: sh.sh_addralign,
            })
            .collect();
        let program_headers = elf
            .program_headers
            .iter()
            .map(|p| ProgramHeader {
                p_type: p.p_type,
                flags: p.p_flags,
                offset: p.p_offset,
                vaddr: p.p_vaddr,
                filesz: p.p_filesz,
                memsz: p.p_memsz,
                align: p.p_align,
            })
            .collect();

        let mut symbols = Vec::new();
        for (table, syms, strtab) in [
            (SymbolTable::Symtab, &elf.syms, &elf.strtab),
            (SymbolTable::Dynsym, &elf.dynsyms, &elf.dynstrtab),
        ] {
            for s in syms.iter() {
                if s.st_name == 0 && s.st_type() != sym::STT_SECTION {
                    continue;
                }
                symbols.push(Symbol {
                    name: strtab.get_at(s.st_name).unwrap_or("").to_string(),
                    table,
                    value: s.st_value,
                    size: s.st_size,
                    sym_type: s.st_type(),
                    bind: s.st_bind(),
                    visibility: s.st_visibility(),
                    section: s.st_shndx,
                });
            }
        }

        // Notes: from SHT_NOTE sections (ET_REL has no segments); else from PT_NOTE segments.
        let mut notes = Vec::new();
        let note_sections: Vec<&Section> = sections.iter().filter(|s| s.sh_type == section_header::SHT_NOTE).collect();
        if !note_sections.is_empty() {
            for s in note_sections {
                parse_notes(bytes, s.offset, s.size, &mut notes)?;
            }
        } else {
            for p in elf.program_headers.iter().filter(|p| p.p_type == goblin::elf::program_header::PT_NOTE) {
                parse_notes(bytes, p.p_offset, p.p_filesz, &mut notes)?;
            }
        }
        let mut metadata = None;
        for n in notes.iter().filter(|n| n.owner == "AMDGPU" && n.n_type == NT_AMDGPU_METADATA) {
            let d = &bytes[n.desc_offset as usize..(n.desc_offset + n.desc_size) as usize];
            metadata = Some(Metadata::parse(d, n.desc_offset)?);
        }

        let mut co = CodeObject {
            bytes: bytes.to_vec(),
            kind,
            abi_version,
            code_object_version: code_object_version(abi_version).unwrap_or(0),
            eflags,
            sections,
            program_headers,
            symbols,
            notes,
            metadata,
            kernels: Vec::new(),
            functions: Vec::new(),
        };
        co.kernels = co.locate_kernels()?;
        co.functions = co.locate_functions();
        Ok(co)
    }

    pub fn processor(&self) -> Option<&'static str> {
        self.eflags.processor()
    }

    pub fn generation(&self) -> Option<Generation> {
        self.processor().and_then(Generation::for_processor)
    }

    /// Target ID from e_flags, e.g. `amdgcn-amd-amdhsa--gfx1250`.
    pub fn target_id(&self) -> String {
        self.eflags.target_id()
    }

    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Prefers .symtab; falls back to .dynsym.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name && s.table == SymbolTable::Symtab)
            .or_else(|| self.symbols.iter().find(|s| s.name == name))
    }

    /// Code bytes of a kernel (empty for a kernel that is not this object's: never a panic).
    pub fn kernel_code(&self, kernel: &Kernel) -> &[u8] {
        self.range(kernel.code_offset, kernel.code_size)
    }

    /// Code bytes of a device function (empty for a function that is not this object's).
    pub fn function_code(&self, f: &Function) -> &[u8] {
        self.range(f.offset, f.size)
    }

    fn range(&self, offset: u64, size: u64) -> &[u8] {
        offset
            .checked_add(size)
            .and_then(|end| self.bytes.get(usize::try_from(offset).ok()?..usize::try_from(end).ok()?))
            .unwrap_or(&[])
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Address of a symbol in the section's address space: st_value (ET_DYN) or sh_addr + st_value (ET_REL).
    fn symbol_addr(&self, s: &Symbol) -> Option<(u64, &Section)> {
        let sec = self.sections.get(s.section)?;
        let addr = match self.kind {
            ElfKind::Shared => s.value,
            ElfKind::Relocatable => sec.addr.checked_add(s.value)?,
        };
        Some((addr, sec))
    }

    fn locate_kernels(&self) -> Result<Vec<Kernel>, CodeObjectError> {
        let Some(md) = &self.metadata else { return Ok(Vec::new()) };
        let mut kernels = Vec::new();
        for km in &md.kernels {
            let kerr = |msg: String| CodeObjectError::Kernel { kernel: km.name.clone(), msg };
            let kd_sym = self
                .symbol(&km.symbol)
                .ok_or_else(|| kerr(format!("descriptor symbol {} not found", km.symbol)))?;
            let (kd_addr, kd_sec) = self
                .symbol_addr(kd_sym)
                .ok_or_else(|| kerr(format!("descriptor symbol {} has no section (index {})", km.symbol, kd_sym.section)))?;
            if kd_sec.name != ".rodata" || kd_sec.is_nobits() || !kd_sec.contains_addr(kd_addr, KERNEL_DESCRIPTOR_SIZE as u64) {
                return Err(CodeObjectError::DescriptorOutsideRodata {
                    kernel: km.name.clone(),
                    symbol: km.symbol.clone(),
                    addr: kd_addr,
                });
            }
            let kd_off = kd_sec.offset + (kd_addr - kd_sec.addr);
            let descriptor = KernelDescriptor::parse(&self.bytes[kd_off as usize..], kd_off)?;

            let text = self.section(".text").ok_or_else(|| kerr("no .text section".into()))?;
            // The kernel's function symbol gives the code in ET_REL (where the descriptor's entry
            // offset is still a relocation) and the code size in both kinds.
            let func = self.symbol(&km.name).filter(|s| s.sym_type == sym::STT_FUNC);
            let code_addr = match self.kind {
                ElfKind::Shared => (kd_addr as i128 + descriptor.kernel_code_entry_byte_offset as i128)
                    .try_into()
                    .map_err(|_| kerr(format!("code entry offset {} overflows", descriptor.kernel_code_entry_byte_offset)))?,
                ElfKind::Relocatable => {
                    let f = func.ok_or_else(|| kerr(format!("function symbol {} not found", km.name)))?;
                    self.symbol_addr(f).map(|(a, _)| a).ok_or_else(|| kerr("function symbol has no section".into()))?
                }
            };
            let size = func.map(|f| f.size).filter(|&s| s > 0).unwrap_or_else(|| {
                // No size: up to the next function symbol or the end of .text.
                let next = self
                    .symbols
                    .iter()
                    .filter(|s| s.sym_type == sym::STT_FUNC && s.section == text.index)
                    .filter_map(|s| self.symbol_addr(s).map(|(a, _)| a))
                    .filter(|&a| a > code_addr)
                    .min()
                    .unwrap_or(text.addr.saturating_add(text.size));
                next.saturating_sub(code_addr)
            });
            if text.is_nobits() || !text.contains_addr(code_addr, size.max(1)) {
                return Err(CodeObjectError::CodeOutsideText { kernel: km.name.clone(), addr: code_addr, descriptor: kd_addr });
            }
            // Inside .text by address; its bytes must be in the file too (found by fuzzing:
            // a .text whose file image did not hold the code made kernel_code panic).
            let code_offset = text.offset + (code_addr - text.addr);
            if code_offset.checked_add(size).is_none_or(|end| end > self.bytes.len() as u64) {
                return Err(CodeObjectError::OutOfBounds {
                    what: format!("code of kernel {}", km.name),
                    offset: code_offset,
                    size,
                    file_size: self.bytes.len() as u64,
                });
            }
            kernels.push(Kernel {
                name: km.name.clone(),
                descriptor_symbol: km.symbol.clone(),
                descriptor,
                descriptor_offset: kd_off,
                descriptor_addr: kd_addr,
                code_addr,
                code_offset,
                code_size: size,
            });
        }
        Ok(kernels)
    }

    fn locate_functions(&self) -> Vec<Function> {
        let Some(text) = self.section(".text").filter(|t| !t.is_nobits()) else { return Vec::new() };
        let mut out: Vec<Function> = Vec::new();
        for s in self.symbols.iter().filter(|s| s.sym_type == sym::STT_FUNC && s.section == text.index) {
            if self.kernels.iter().any(|k| k.name == s.name) || out.iter().any(|f| f.name == s.name) {
                continue;
            }
            let Some((addr, _)) = self.symbol_addr(s) else { continue };
            if !text.contains_addr(addr, s.size) {
                continue;
            }
            out.push(Function {
                name: s.name.clone(),
                addr,
                offset: text.offset + (addr - text.addr),
                size: s.size,
                global: s.bind != sym::STB_LOCAL,
            });
        }
        out.sort_by_key(|f| f.addr);
        out
    }
}
