//! hx-codeobj against real code objects: the checked-in corpus (linked by rust-lld) and relocatable
//! objects straight from LLVM, plus every bad-input case as a tested error.

use hx_codeobj::{CodeObject, CodeObjectError, ElfKind, Generation};
use hx_llvm::{Disassembler, Emit, GpuTarget, OptLevel};
use hx_tests::{corpus_objects, sample_object};

/// Decodes `code` with LLVM's disassembler; returns the instruction texts.
fn disassemble(target: GpuTarget, code: &[u8]) -> Vec<String> {
    let mut d = Disassembler::new(target).unwrap();
    let mut at = 0;
    let mut out = Vec::new();
    while at < code.len() {
        let (len, text) = d.decode(&code[at..], at as u64).unwrap_or_else(|| panic!("undecodable at {at}"));
        out.push(text);
        at += len;
    }
    out
}

#[test]
fn every_corpus_object_parses_and_locates_its_kernels() {
    let objects = corpus_objects();
    assert!(objects.len() >= 3, "corpus not built");
    for (target, name, path) in objects {
        let bytes = std::fs::read(&path).unwrap();
        let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ctx = format!("{target}/{name}");
        assert_eq!(co.kind, ElfKind::Shared, "{ctx}");
        assert_eq!(co.processor(), Some(target.cpu()), "{ctx}");
        assert_eq!(co.code_object_version, 5, "{ctx}");
        let md = co.metadata.as_ref().expect("metadata note");
        assert_eq!(md.target.as_deref().map(|t| t.split(':').next().unwrap()), Some(co.target_id().as_str()), "{ctx}");
        assert_eq!(md.version, [1, 2], "{ctx}: code object v5 metadata is version 1.2");
        assert!(!co.kernels.is_empty(), "{ctx}");
        // The launch descriptions name kernels the object must have.
        let object = hx_corpus::object(&name).unwrap();
        for l in &object.launches {
            assert!(co.kernel(&l.kernel).is_some(), "{ctx}: kernel {} missing", l.kernel);
        }
        let generation = co.generation().unwrap();
        assert_eq!(generation, if target == GpuTarget::Gfx1250 { Generation::Gfx125 } else { Generation::Gfx90a });
        for k in &co.kernels {
            let km = md.kernel(&k.name).unwrap();
            let d = &k.descriptor;
            assert_eq!(d.wavefront_size32(), target == GpuTarget::Gfx1250, "{ctx}/{}", k.name);
            assert_eq!(km.wavefront_size, target.wave_size() as u64, "{ctx}/{}", k.name);
            // Metadata and descriptor describe the same kernel.
            assert_eq!(km.group_segment_fixed_size, d.group_segment_fixed_size as u64, "{ctx}/{}", k.name);
            assert_eq!(km.private_segment_fixed_size, d.private_segment_fixed_size as u64, "{ctx}/{}", k.name);
            assert_eq!(km.kernarg_segment_size, d.kernarg_size as u64, "{ctx}/{}", k.name);
            assert!(d.vgpr_allocation(generation) >= km.vgpr_count as u32, "{ctx}/{}", k.name);
            assert_eq!(d.to_bytes().as_slice(), &bytes[k.descriptor_offset as usize..][..64]);
            // The located code is exactly the kernel: LLVM decodes it whole and it ends the program.
            let text = disassemble(target, co.kernel_code(k));
            assert!(text.iter().any(|t| t == "s_endpgm"), "{ctx}/{}: no s_endpgm in {text:?}", k.name);
        }
        for f in &co.functions {
            let text = disassemble(target, co.function_code(f));
            // The function returns: s_setpc_b64 on GFX9, s_set_pc_i64 on GFX12.5.
            assert!(text.iter().any(|t| t.starts_with("s_setpc_b64") || t.starts_with("s_set_pc_i64")), "{ctx}/{}: {text:?}", f.name);
        }
        // The note is written back byte for byte.
        let note = co.notes.iter().find(|n| n.owner == "AMDGPU" && n.n_type == 32).unwrap();
        assert_eq!(md.to_msgpack(), &bytes[note.desc_offset as usize..][..note.desc_size as usize], "{ctx}");
    }
}

#[test]
fn relocatable_objects_from_llvm_parse_too() {
    for target in GpuTarget::ALL {
        for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for(target.cpu())) {
            let ir = obj.ir().unwrap();
            let bytes = hx_llvm::compile_ir(&ir, &obj.name, target, OptLevel::O2, Emit::Object).unwrap();
            let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{target}/{}: {e}", obj.name));
            assert_eq!(co.kind, ElfKind::Relocatable);
            for l in &obj.launches {
                let k = co.kernel(&l.kernel).unwrap_or_else(|| panic!("{target}/{}: {}", obj.name, l.kernel));
                let text = disassemble(target, co.kernel_code(k));
                assert!(text.iter().any(|t| t == "s_endpgm"), "{target}/{}: {text:?}", l.kernel);
            }
        }
    }
}

// ---- bad input ------------------------------------------------------------------------------

fn set_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn set_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn shdr(b: &[u8], i: usize) -> usize {
    let shoff = u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize;
    shoff + i * 64
}

#[test]
fn truncated_files_are_errors_at_every_length() {
    let bytes = sample_object(GpuTarget::Gfx1250);
    for len in 0..bytes.len() {
        if let Ok(co) = CodeObject::parse(&bytes[..len]) {
            // Cutting only the section headers' tail may still leave a valid prefix: never silently.
            panic!("prefix of {len} bytes parsed as {}", co.target_id());
        }
    }
    assert!(matches!(
        CodeObject::parse(&bytes[..40]),
        Err(CodeObjectError::Truncated { what: "ELF header", offset: 0, need: 64, have: 40 })
    ));
}

#[test]
fn wrong_class_machine_type_and_version() {
    let good = sample_object(GpuTarget::Gfx942);
    let mut b = good.clone();
    b[4] = 1;
    assert_eq!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::WrongClass { class: 1 });
    let mut b = good.clone();
    set_u16(&mut b, 18, 62);
    assert_eq!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::WrongMachine { machine: 62 });
    let mut b = good.clone();
    set_u16(&mut b, 16, 2);
    assert_eq!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::WrongType { e_type: 2 });
    let mut b = good.clone();
    b[8] = 1; // code object v3
    assert_eq!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::UnsupportedVersion { abi_version: 1 });
    let mut b = good.clone();
    b[0] = b'X';
    assert_eq!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::NotElf);
    assert!(CodeObject::parse(b"not an elf file at all").is_err());
}

#[test]
fn section_out_of_bounds() {
    let mut b = sample_object(GpuTarget::Gfx1250);
    let co = CodeObject::parse(&b).unwrap();
    let text = co.section(".text").unwrap().index;
    let at = shdr(&b, text);
    set_u64(&mut b, at + 24, 0x10_0000); // sh_offset far past the end
    match CodeObject::parse(&b).unwrap_err() {
        CodeObjectError::OutOfBounds { what, offset: 0x10_0000, .. } => assert!(what.contains(&format!("#{text}")), "{what}"),
        e => panic!("{e}"),
    }
    let mut b = sample_object(GpuTarget::Gfx1250);
    set_u64(&mut b, 40, u64::MAX - 8); // e_shoff overflowing
    assert!(matches!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::OutOfBounds { .. }));
}

#[test]
fn note_out_of_bounds_and_bad_msgpack() {
    let good = sample_object(GpuTarget::Gfx1250);
    let co = CodeObject::parse(&good).unwrap();
    let note_sec = co.sections.iter().find(|s| s.sh_type == 7).unwrap();
    let md_note = co.notes.iter().find(|n| n.n_type == 32).unwrap();
    // The metadata note header sits 12 + align4(namesz "AMDGPU\0" = 7) = 20 bytes before its descriptor.
    let header = md_note.desc_offset as usize - 20;
    assert_eq!(&good[header + 12..header + 18], b"AMDGPU");
    let mut b = good.clone();
    set_u32(&mut b, header + 4, 0x7fff_0000);
    match CodeObject::parse(&b).unwrap_err() {
        CodeObjectError::Note { offset, .. } => assert_eq!(offset, header as u64),
        e => panic!("{e}"),
    }
    // A map32 claiming 2^32-1 entries in a descriptor far shorter: truncated msgpack.
    let mut b = good.clone();
    b[md_note.desc_offset as usize..][..5].copy_from_slice(&[0xdf, 0xff, 0xff, 0xff, 0xff]);
    match CodeObject::parse(&b).unwrap_err() {
        CodeObjectError::Msgpack { offset, .. } => assert!(offset >= md_note.desc_offset && offset <= note_sec.offset + note_sec.size),
        e => panic!("{e}"),
    }
    // Valid msgpack, wrong shape: the root is an integer.
    let mut b = good.clone();
    b[md_note.desc_offset as usize] = 0x05;
    assert!(matches!(CodeObject::parse(&b).unwrap_err(), CodeObjectError::Metadata { .. }));
}

#[test]
fn descriptor_outside_rodata() {
    let mut b = sample_object(GpuTarget::Gfx1250);
    let co = CodeObject::parse(&b).unwrap();
    let k = &co.kernels[0];
    let text = co.section(".text").unwrap();
    // Point every `<kernel>.kd` symbol (in .symtab and .dynsym) into .text.
    for table in [".symtab", ".dynsym"] {
        let sec = co.section(table).unwrap();
        let strtab = &co.sections[co.sections.iter().position(|s| s.name == if table == ".symtab" { ".strtab" } else { ".dynstr" }).unwrap()];
        for i in 0..(sec.size / 24) as usize {
            let at = sec.offset as usize + i * 24;
            let name_off = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
            let name_at = strtab.offset as usize + name_off;
            let name_end = b[name_at..].iter().position(|&c| c == 0).unwrap() + name_at;
            if b[name_at..name_end] == *k.descriptor_symbol.as_bytes() {
                set_u16(&mut b, at + 6, text.index as u16);
                set_u64(&mut b, at + 8, text.addr);
            }
        }
    }
    match CodeObject::parse(&b).unwrap_err() {
        CodeObjectError::DescriptorOutsideRodata { kernel, addr, .. } => {
            assert_eq!(kernel, k.name);
            assert_eq!(addr, text.addr);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn code_entry_outside_text() {
    let mut b = sample_object(GpuTarget::Gfx942);
    let co = CodeObject::parse(&b).unwrap();
    let k = &co.kernels[0];
    set_u64(&mut b, k.descriptor_offset as usize + 16, 0x7000_0000);
    match CodeObject::parse(&b).unwrap_err() {
        CodeObjectError::CodeOutsideText { kernel, addr, .. } => {
            assert_eq!(kernel, k.name);
            assert_eq!(addr, k.descriptor_addr + 0x7000_0000);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn no_byte_flip_panics() {
    // Flip each byte of the header tables, the note and the descriptors; parse must return.
    for target in GpuTarget::ALL {
        let good = sample_object(target);
        for at in 0..good.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut b = good.clone();
                b[at] ^= mask;
                let _ = CodeObject::parse(&b);
            }
        }
    }
}

#[test]
fn code_object_versions_4_5_and_6() {
    let ir = |v: u32| {
        format!(
            r#"define amdgpu_kernel void @k(ptr addrspace(1) %out) {{
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %id, ptr addrspace(1) %p
  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !"amdhsa_code_object_version", i32 {v}}}
"#
        )
    };
    // LLVM writes metadata 1.1 for v4 and 1.2 for v5 and v6 (VersionMinorV6 = 2 in AMDGPUMetadata.h).
    for (flag, version, md_minor) in [(400, 4, 1), (500, 5, 2), (600, 6, 2)] {
        for target in GpuTarget::ALL {
            let obj = hx_llvm::compile_ir(&ir(flag), "k", target, OptLevel::O2, Emit::Object).unwrap();
            let co = CodeObject::parse(&obj).unwrap_or_else(|e| panic!("v{version} {target}: {e}"));
            assert_eq!(co.code_object_version, version, "{target}");
            assert_eq!(co.metadata.as_ref().unwrap().version, [1, md_minor], "{target} v{version}");
            assert_eq!(co.processor(), Some(target.cpu()));
            let k = co.kernel("k").unwrap();
            assert!(disassemble(target, co.kernel_code(k)).iter().any(|t| t == "s_endpgm"));
        }
    }
}
