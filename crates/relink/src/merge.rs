//! Several relocatable objects as one (what `ld -r` does, reduced to the forms the AMDGPU backend
//! emits), so that kernels lowered apart, on several threads, link into one code object through the
//! one-input linker of [`crate::link`].
//!
//! The merged object keeps what lld's layout depends on: input sections in file order and, within a
//! file, in section-index order; local symbols file by file, then the global symbols in order of
//! first appearance (defined or referenced), the order lld's symbol table gives them. Linking the
//! merged object therefore gives what `ld.lld -shared a.o b.o ...` gives (a test compares the two).
//! Relocation sections are rebuilt against the merged section and symbol indices;
//! `.llvm_addrsig` is dropped (its symbol indices are per file, and lld ignores it without ICF).

use crate::RelinkError;
use goblin::elf::section_header as sh;
use goblin::elf::Elf;
use object::elf as oe;
use object::write::elf::{FileHeader, Rel, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;
use object::Endianness;
use std::collections::HashMap;

type Result<T> = std::result::Result<T, RelinkError>;

const EM_AMDGPU: u16 = 224;
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
const NT_AMDGPU_METADATA: u32 = 32;

fn malformed(file: usize, what: impl Into<String>, offset: u64, msg: impl Into<String>) -> RelinkError {
    RelinkError::Malformed { what: format!("object #{file}: {}", what.into()), offset, msg: msg.into() }
}

/// One section carried into the merged object.
struct Section {
    name: Vec<u8>,
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    size: u64,
    data: Vec<u8>,
    /// Relocations against it, with merged symbol indices.
    relocs: Vec<Rel>,
}

struct Symbol {
    name: Vec<u8>,
    st_info: u8,
    st_other: u8,
    /// Merged section index (1-based, as written), or a reserved SHN_* value.
    shndx: u16,
    value: u64,
    size: u64,
    /// (file, symbol index) where it was defined; None while only referenced.
    defined_in: Option<(usize, usize)>,
}

/// Merges `objects` (each ELF64 AMDGPU ET_REL, all with the same e_flags and OS ABI) into one
/// relocatable object. With `one_metadata_note`, the NT_AMDGPU_METADATA notes of every object but
/// the first are left out, so that the result has one note for [`crate::LinkOptions::metadata`]
/// to replace.
pub(crate) fn merge(objects: &[&[u8]], one_metadata_note: bool) -> Result<Vec<u8>> {
    let mut sections: Vec<Section> = Vec::new();
    let mut locals: Vec<Symbol> = Vec::new();
    let mut globals: Vec<Symbol> = Vec::new();
    let mut global_by_name: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut header: Option<(u32, u8, u8)> = None;
    // Per file: the merged symbol reference of each input symbol (local or global slot).
    for (fi, bytes) in objects.iter().enumerate() {
        let elf = Elf::parse(bytes).map_err(|e| malformed(fi, "ELF file", 0, e.to_string()))?;
        let h = &elf.header;
        if !elf.is_64 || !elf.little_endian {
            return Err(RelinkError::WrongClass { class: h.e_ident[4], data: h.e_ident[5] });
        }
        if h.e_type != oe::ET_REL {
            return Err(RelinkError::NotRelocatable { e_type: h.e_type });
        }
        if h.e_machine != EM_AMDGPU {
            return Err(RelinkError::WrongMachine { machine: h.e_machine });
        }
        let this = (h.e_flags, h.e_ident[7], h.e_ident[8]);
        match header {
            None => header = Some(this),
            Some(first) if first != this => {
                return Err(malformed(
                    fi,
                    "ELF header",
                    0,
                    format!("e_flags/OS ABI/ABI version {this:#x?} differ from the first object's {first:#x?}"),
                ))
            }
            Some(_) => {}
        }
        // Input section index -> merged section index (1-based).
        let mut sec_map: Vec<Option<u16>> = vec![None; elf.section_headers.len()];
        for (i, s) in elf.section_headers.iter().enumerate() {
            match s.sh_type {
                sh::SHT_NULL | sh::SHT_SYMTAB | sh::SHT_STRTAB | sh::SHT_RELA | SHT_LLVM_ADDRSIG => continue,
                sh::SHT_REL => return Err(malformed(fi, format!("section #{i}"), s.sh_offset, "SHT_REL relocations (AMDGPU objects use SHT_RELA)")),
                sh::SHT_GROUP | sh::SHT_SYMTAB_SHNDX => {
                    return Err(malformed(fi, format!("section #{i}"), s.sh_offset, format!("section type {:#x} cannot be merged", s.sh_type)))
                }
                _ => {}
            }
            if s.sh_link != 0 || (s.sh_info != 0 && s.sh_flags & u64::from(sh::SHF_INFO_LINK) != 0) {
                return Err(malformed(fi, format!("section #{i}"), s.sh_offset, "a section linked to another section cannot be merged"));
            }
            let name = elf.shdr_strtab.get_at(s.sh_name).ok_or_else(|| malformed(fi, format!("name of section #{i}"), s.sh_offset, "outside the section name table"))?;
            let mut data = if s.sh_type == sh::SHT_NOBITS {
                Vec::new()
            } else {
                let end = s.sh_offset.checked_add(s.sh_size).filter(|&e| e <= bytes.len() as u64);
                let end = end.ok_or_else(|| malformed(fi, format!("contents of section {name}"), s.sh_offset, format!("{} bytes overrun the file", s.sh_size)))?;
                bytes[s.sh_offset as usize..end as usize].to_vec()
            };
            if one_metadata_note && fi > 0 && s.sh_type == sh::SHT_NOTE {
                data = without_metadata_notes(&data).map_err(|m| malformed(fi, format!("note in {name}"), s.sh_offset, m))?;
            }
            let index = u16::try_from(sections.len() + 1).ok().filter(|&x| x < sh::SHN_LORESERVE as u16);
            sec_map[i] = Some(index.ok_or_else(|| malformed(fi, "sections", 0, "too many sections to merge"))?);
            sections.push(Section {
                name: name.as_bytes().to_vec(),
                sh_type: s.sh_type,
                flags: s.sh_flags,
                align: s.sh_addralign,
                entsize: s.sh_entsize,
                size: if s.sh_type == sh::SHT_NOBITS { s.sh_size } else { data.len() as u64 },
                data,
                relocs: Vec::new(),
            });
        }
        // Symbols. Merged indices are known once every file is read (locals come first), so
        // relocations refer to symbols as (is_global, slot) until then.
        let mut sym_map: Vec<(bool, usize)> = Vec::with_capacity(elf.syms.len());
        for (si, s) in elf.syms.iter().enumerate() {
            if si == 0 {
                sym_map.push((false, usize::MAX));
                continue;
            }
            let name = elf.strtab.get_at(s.st_name).ok_or_else(|| malformed(fi, format!("name of symbol #{si}"), 0, "outside .strtab"))?;
            let shndx = match s.st_shndx {
                x if x == sh::SHN_UNDEF as usize => 0,
                x if x >= sh::SHN_LORESERVE as usize => x as u16,
                x => sec_map.get(x).copied().flatten().ok_or_else(|| malformed(fi, format!("symbol {name}"), 0, format!("defined in section #{x}, which is not merged")))?,
            };
            let sym = Symbol {
                name: name.as_bytes().to_vec(),
                st_info: s.st_info,
                st_other: s.st_other,
                shndx,
                value: s.st_value,
                size: s.st_size,
                defined_in: (shndx != 0).then_some((fi, si)),
            };
            if s.st_bind() == goblin::elf::sym::STB_LOCAL {
                sym_map.push((false, locals.len()));
                locals.push(sym);
                continue;
            }
            match global_by_name.get(&sym.name) {
                None => {
                    global_by_name.insert(sym.name.clone(), globals.len());
                    sym_map.push((true, globals.len()));
                    globals.push(sym);
                }
                Some(&g) => {
                    sym_map.push((true, g));
                    if sym.defined_in.is_some() {
                        if let Some((f0, s0)) = globals[g].defined_in {
                            return Err(RelinkError::UnsupportedSymbol {
                                name: String::from_utf8_lossy(&sym.name).into_owned(),
                                index: si,
                                offset: 0,
                                why: format!("a duplicate global symbol: defined in object #{f0} (symbol #{s0}) and object #{fi}"),
                            });
                        }
                        globals[g] = sym;
                    }
                }
            }
        }
        for (target, relocs) in &elf.shdr_relocs {
            let rs = &elf.section_headers[*target];
            let into = rs.sh_info as usize;
            let Some(Some(merged)) = sec_map.get(into).copied() else {
                if elf.section_headers.get(into).is_some_and(|s| s.sh_type == SHT_LLVM_ADDRSIG) {
                    continue;
                }
                return Err(malformed(fi, format!("relocation section #{target}"), rs.sh_offset, format!("relocates section #{into}, which is not merged")));
            };
            for r in relocs.iter() {
                let (global, slot) = *sym_map.get(r.r_sym).ok_or_else(|| malformed(fi, format!("relocation section #{target}"), rs.sh_offset, format!("symbol index {} is out of range", r.r_sym)))?;
                // Slots are patched to merged indices below: locals by position, globals after them.
                let r_sym = if r.r_sym == 0 { 0 } else if global { (1 << 31) | slot as u32 } else { slot as u32 + 1 };
                sections[merged as usize - 1].relocs.push(Rel { r_offset: r.r_offset, r_sym, r_type: r.r_type, r_addend: r.r_addend.unwrap_or(0) });
            }
        }
    }
    let Some((e_flags, os_abi, abi_version)) = header else {
        return Err(RelinkError::Malformed { what: "input".into(), offset: 0, msg: "no objects to merge".into() });
    };
    let first_global = locals.len() as u32 + 1;
    for s in &mut sections {
        for r in &mut s.relocs {
            if r.r_sym & (1 << 31) != 0 {
                r.r_sym = first_global + (r.r_sym & !(1 << 31));
            }
        }
    }
    write(&sections, &locals, &globals, e_flags, os_abi, abi_version)
}

/// The notes of a note section's contents without its NT_AMDGPU_METADATA ("AMDGPU") notes.
fn without_metadata_notes(d: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let u32_at = |at: usize| u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]) as usize;
    let mut out = Vec::with_capacity(d.len());
    let mut at = 0;
    while at < d.len() {
        if d.len() - at < 12 {
            return Err(format!("{} bytes left at {at}, a note header needs 12", d.len() - at));
        }
        let (namesz, descsz, n_type) = (u32_at(at), u32_at(at + 4), u32_at(at + 8) as u32);
        let end = (at + 12)
            .checked_add(namesz.div_ceil(4) * 4)
            .and_then(|x| x.checked_add(descsz.div_ceil(4) * 4))
            .filter(|&e| e <= d.len() && namesz <= d.len())
            .ok_or_else(|| format!("note at {at} overruns the section"))?;
        let name = &d[at + 12..(at + 12 + namesz).min(end)];
        if !(n_type == NT_AMDGPU_METADATA && name == b"AMDGPU\0") {
            out.extend_from_slice(&d[at..end]);
        }
        at = end;
    }
    Ok(out)
}

fn write(sections: &[Section], locals: &[Symbol], globals: &[Symbol], e_flags: u32, os_abi: u8, abi_version: u8) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buf);
    w.reserve_file_header();
    w.reserve_null_section_index();
    let names: Vec<StringId> = sections.iter().map(|s| w.add_section_name(&s.name)).collect();
    let indices: Vec<SectionIndex> = sections.iter().map(|_| w.reserve_section_index()).collect();
    let rela_names: Vec<Vec<u8>> = sections.iter().map(|s| [b".rela".as_slice(), &s.name].concat()).collect();
    let mut rela_ids = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        if !s.relocs.is_empty() {
            rela_ids.push((i, w.add_section_name(&rela_names[i]), w.reserve_section_index()));
        }
    }
    let symtab = w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();
    let all: Vec<&Symbol> = locals.iter().chain(globals).collect();
    let sym_names: Vec<Option<StringId>> = all.iter().map(|s| (!s.name.is_empty()).then(|| w.add_string(&s.name))).collect();
    w.reserve_null_symbol_index();
    for s in &all {
        let sec = (s.shndx != 0 && s.shndx < sh::SHN_LORESERVE as u16).then_some(SectionIndex(s.shndx.into()));
        w.reserve_symbol_index(sec);
    }
    let offsets: Vec<usize> = sections
        .iter()
        .map(|s| if s.sh_type == sh::SHT_NOBITS { 0 } else { w.reserve(s.data.len(), s.align.max(1) as usize) })
        .collect();
    let rela_offsets: Vec<usize> = rela_ids.iter().map(|&(i, _, _)| w.reserve_relocations(sections[i].relocs.len(), true)).collect();
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    w.write_file_header(&FileHeader { os_abi, abi_version, e_type: oe::ET_REL, e_machine: EM_AMDGPU, e_entry: 0, e_flags })
        .map_err(|e| RelinkError::Write(e.to_string()))?;
    for (s, &off) in sections.iter().zip(&offsets) {
        if s.sh_type != sh::SHT_NOBITS {
            w.pad_until(off);
            w.write(&s.data);
        }
    }
    for &(i, _, _) in &rela_ids {
        w.write_align_relocation();
        for r in &sections[i].relocs {
            w.write_relocation(true, r);
        }
    }
    w.write_null_symbol();
    for (s, name) in all.iter().zip(&sym_names) {
        let sec = (s.shndx != 0 && s.shndx < sh::SHN_LORESERVE as u16).then_some(SectionIndex(s.shndx.into()));
        w.write_symbol(&Sym { name: *name, section: sec, st_info: s.st_info, st_other: s.st_other, st_shndx: s.shndx, st_value: s.value, st_size: s.size });
    }
    w.write_strtab();
    w.write_shstrtab();
    w.write_null_section_header();
    for (i, s) in sections.iter().enumerate() {
        w.write_section_header(&SectionHeader {
            name: Some(names[i]),
            sh_type: s.sh_type,
            sh_flags: s.flags,
            sh_addr: 0,
            sh_offset: offsets[i] as u64,
            sh_size: s.size,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: s.align,
            sh_entsize: s.entsize,
        });
    }
    for (&(i, name, _), &off) in rela_ids.iter().zip(&rela_offsets) {
        w.write_relocation_section_header(name, indices[i], symtab, off, sections[i].relocs.len(), true);
    }
    w.write_symtab_section_header(locals.len() as u32 + 1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    drop(w);
    Ok(buf)
}
