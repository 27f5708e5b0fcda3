//! hx-relink against rust-lld: for every corpus object on gfx1250, gfx942 and gfx950, the in-process
//! link of the backend's relocatable object must equal `rust-lld -flavor gnu -shared --no-undefined`
//! byte for byte (and the checked-in corpus/<target>/<name>.hsaco, which are those rust-lld links).
//! On a mismatch the test reports a structural comparison first (sections, program headers, symbols,
//! kernel descriptors, metadata note, e_ident/e_flags) so the failure says what differs.
//!
//! Also: the output parses with hx_codeobj and each kernel's code is where its descriptor says;
//! output is deterministic (twice, and from two threads); errors for bad input name what and where;
//! truncations and byte flips of a real object never panic.
//!
//! Set HX_RELINK_DUMP_DIR=<dir> to keep, per target, the object, rust-lld's and hx-relink's output.

use hx_codeobj::CodeObject;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};
use hx_relink::{link, link_with, LinkOptions, RelinkError};
use std::path::PathBuf;

/// Differences between hx-relink and rust-lld that are intended. Empty: the output is byte-identical
/// (including `.comment`, where hx-relink writes lld's own "Linker: LLD 22.1.2 (...)" string).
const INTENDED_DIFFERENCES: &[&str] = &[];

struct Case {
    stem: String,
    target: GpuTarget,
    object: Vec<u8>,
}

fn corpus_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for src in xtask::corpus::kernel_sources().expect("corpus sources") {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let ir = std::fs::read_to_string(&src).unwrap();
        for target in GpuTarget::ALL {
            let object = compile_ir(&ir, &stem, target, OptLevel::O2, Emit::Object)
                .unwrap_or_else(|e| panic!("compiling {stem} for {target:?}: {e}"));
            v.push(Case { stem: stem.clone(), target, object });
        }
    }
    assert!(v.len() >= 3 * 20, "corpus looks incomplete: {} objects", v.len());
    v
}

/// A scratch directory for rust-lld, one per test (tests run in parallel).
fn work_dir(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hx-relink-vs-lld-{}-{test}", std::process::id()))
}

/// Structural comparison of two code objects; returns one line per difference.
fn structural_diff(want: &[u8], got: &[u8]) -> Vec<String> {
    let mut d = Vec::new();
    let (w, g) = match (CodeObject::parse(want), CodeObject::parse(got)) {
        (Ok(w), Ok(g)) => (w, g),
        (w, g) => return vec![format!("parse: reference {:?}, hx-relink {:?}", w.err(), g.err())],
    };
    if want.get(..16) != got.get(..16) {
        d.push(format!("e_ident {:02x?} vs {:02x?}", &want[..16.min(want.len())], &got[..16.min(got.len())]));
    }
    if w.eflags.raw != g.eflags.raw {
        d.push(format!("e_flags {:#x} vs {:#x}", w.eflags.raw, g.eflags.raw));
    }
    if want.get(16..64) != got.get(16..64) {
        d.push("ELF header fields (e_type..e_shstrndx) differ".into());
    }
    if w.program_headers != g.program_headers {
        d.push(format!("program headers\n  lld:  {:?}\n  mine: {:?}", w.program_headers, g.program_headers));
    }
    let names = |c: &CodeObject| c.sections.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    if names(&w) != names(&g) {
        d.push(format!("section list {:?} vs {:?}", names(&w), names(&g)));
    }
    for (a, b) in w.sections.iter().zip(&g.sections) {
        if a != b {
            d.push(format!("section {}\n  lld:  {a:?}\n  mine: {b:?}", a.name));
        }
        let contents = |bytes: &[u8], s: &hx_codeobj::Section| {
            if s.is_nobits() {
                Vec::new()
            } else {
                bytes.get(s.offset as usize..(s.offset + s.size) as usize).map(<[u8]>::to_vec).unwrap_or_default()
            }
        };
        if contents(want, a) != contents(got, b) {
            d.push(format!("contents of {} differ", a.name));
        }
    }
    let syms = |c: &CodeObject| {
        c.symbols
            .iter()
            .map(|s| (s.table, s.name.clone(), s.value, s.size, s.sym_type, s.bind, s.visibility, s.section))
            .collect::<Vec<_>>()
    };
    if syms(&w) != syms(&g) {
        d.push(format!("symbols\n  lld:  {:?}\n  mine: {:?}", syms(&w), syms(&g)));
    }
    let kds = |c: &CodeObject| c.kernels.iter().map(|k| (k.name.clone(), k.descriptor_addr, k.descriptor.bytes)).collect::<Vec<_>>();
    if kds(&w) != kds(&g) {
        d.push("kernel descriptors differ".into());
    }
    let notes = |c: &CodeObject, b: &[u8]| {
        c.notes.iter().map(|n| (n.owner.clone(), n.n_type, b[n.desc_offset as usize..(n.desc_offset + n.desc_size) as usize].to_vec())).collect::<Vec<_>>()
    };
    if notes(&w, want) != notes(&g, got) {
        d.push("notes (NT_AMDGPU_METADATA) differ".into());
    }
    if d.is_empty() && want != got {
        let at = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
        d.push(format!("bytes differ first at offset {at:#x} (sizes {} and {})", want.len(), got.len()));
    }
    d
}

#[test]
fn corpus_links_byte_identical_to_rust_lld() {
    assert!(INTENDED_DIFFERENCES.is_empty(), "update the comparison when differences are intended");
    let work = work_dir("corpus");
    let dump = std::env::var_os("HX_RELINK_DUMP_DIR").map(PathBuf::from);
    let mut identical = std::collections::BTreeMap::<&str, usize>::new();
    let mut failures = Vec::new();
    for case in corpus_cases() {
        let id = format!("{}/{}", case.target.cpu(), case.stem);
        let lld = xtask::corpus::link_with_rust_lld(&case.object, &work.join(case.target.cpu()), &case.stem)
            .unwrap_or_else(|e| panic!("rust-lld on {id}: {e:#}"));
        let checked_in = std::fs::read(xtask::corpus::output_path(case.target, &case.stem)).ok();
        if checked_in.as_deref() != Some(lld.as_slice()) {
            failures.push(format!("{id}: rust-lld output differs from the checked-in corpus file (rebuild the corpus)"));
        }
        let mine = match link(&case.object) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{id}: hx-relink failed: {e}"));
                continue;
            }
        };
        if let Some(dir) = &dump {
            let dir = dir.join(case.target.cpu());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{}.o", case.stem)), &case.object).unwrap();
            std::fs::write(dir.join(format!("{}.lld.hsaco", case.stem)), &lld).unwrap();
            std::fs::write(dir.join(format!("{}.relink.hsaco", case.stem)), &mine).unwrap();
        }
        if mine == lld {
            *identical.entry(case.target.cpu()).or_default() += 1;
        } else {
            let diff = structural_diff(&lld, &mine);
            failures.push(format!("{id}: not byte-identical:\n  {}", diff.join("\n  ")));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("byte-identical to rust-lld: {identical:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn output_parses_and_kernel_code_is_where_the_descriptor_says() {
    for case in corpus_cases() {
        let id = format!("{}/{}", case.target.cpu(), case.stem);
        let out = link(&case.object).unwrap_or_else(|e| panic!("{id}: {e}"));
        let co = CodeObject::parse(&out).unwrap_or_else(|e| panic!("{id}: output does not parse: {e}"));
        assert_eq!(co.kind, hx_codeobj::ElfKind::Shared, "{id}");
        let input = CodeObject::parse(&case.object).unwrap();
        assert_eq!(co.eflags.raw, input.eflags.raw, "{id}: e_flags from the input");
        assert_eq!(out[7..9], case.object[7..9], "{id}: OS ABI and ABI version from the input");
        assert!(!co.kernels.is_empty(), "{id}: no kernels found");
        assert_eq!(co.kernels.len(), input.kernels.len(), "{id}");
        let text = co.section(".text").expect(".text");
        for k in &co.kernels {
            // code = descriptor address + kernel_code_entry_byte_offset, and that is the kernel symbol.
            let entry = (k.descriptor_addr as i128 + k.descriptor.kernel_code_entry_byte_offset as i128) as u64;
            assert_eq!(entry, k.code_addr, "{id}: {}", k.name);
            for table in [hx_codeobj::elf::SymbolTable::Symtab, hx_codeobj::elf::SymbolTable::Dynsym] {
                let f = co.symbols.iter().find(|s| s.name == k.name && s.table == table).unwrap_or_else(|| panic!("{id}: {} missing", k.name));
                assert_eq!(f.value, entry, "{id}: {} symbol vs descriptor", k.name);
                assert_eq!(f.sym_type, 2, "{id}: {} is STT_FUNC", k.name);
                let kd = co.symbols.iter().find(|s| s.name == k.descriptor_symbol && s.table == table).unwrap();
                assert_eq!(kd.value, k.descriptor_addr, "{id}: {}", k.descriptor_symbol);
            }
            assert!(entry >= text.addr && entry + k.code_size <= text.addr + text.size, "{id}: {} code outside .text", k.name);
            assert_eq!(entry % 256, 0, "{id}: {} entry is 256-byte aligned", k.name);
            // The code bytes are the input's code bytes apart from applied relocations.
            let ik = input.kernels.iter().find(|x| x.name == k.name).unwrap();
            assert_eq!(ik.code_size, k.code_size, "{id}: {}", k.name);
            // Descriptor bytes equal the input's except the resolved entry offset (bytes 16..24).
            assert_eq!(ik.descriptor.bytes[..16], k.descriptor.bytes[..16], "{id}: {}", k.name);
            assert_eq!(ik.descriptor.bytes[24..], k.descriptor.bytes[24..], "{id}: {}", k.name);
        }
        assert_eq!(co.metadata.is_some(), input.metadata.is_some(), "{id}: metadata note");
    }
}

#[test]
fn e_flags_override_changes_only_e_flags() {
    for case in corpus_cases().into_iter().filter(|c| c.stem == "saxpy") {
        let plain = link(&case.object).unwrap();
        let flags = (u32::from_le_bytes(plain[48..52].try_into().unwrap()) & 0xff) | 0x300 | 0xc00; // xnack on, sramecc on
        let over = link_with(&case.object, &LinkOptions { e_flags_override: Some(flags) }).unwrap();
        assert_eq!(u32::from_le_bytes(over[48..52].try_into().unwrap()), flags);
        assert_eq!(plain[..48], over[..48]);
        assert_eq!(plain[52..], over[52..]);
        let co = CodeObject::parse(&over).unwrap();
        assert_eq!(co.eflags.raw, flags);
    }
}

#[test]
fn deterministic_twice_and_across_threads() {
    let cases = corpus_cases();
    for case in cases.iter().filter(|c| c.target == GpuTarget::Gfx942) {
        let a = link(&case.object).unwrap();
        let b = link(&case.object).unwrap();
        assert_eq!(a, b, "{}: two links differ", case.stem);
    }
    let reference: Vec<Vec<u8>> = cases.iter().map(|c| link(&c.object).unwrap()).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let cases = &cases;
                s.spawn(move || {
                    // Each thread links every object, in opposite orders.
                    let mut order: Vec<usize> = (0..cases.len()).collect();
                    if t == 1 {
                        order.reverse();
                    }
                    order.into_iter().map(|i| (i, link(&cases[i].object).unwrap())).collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, out) in h.join().expect("thread panicked") {
                assert_eq!(out, reference[i], "{}/{}: differs when linked on another thread", cases[i].target.cpu(), cases[i].stem);
            }
        }
    });
}

fn saxpy_object(target: GpuTarget) -> Vec<u8> {
    let src = xtask::corpus::kernel_sources().unwrap().into_iter().find(|p| p.file_stem().unwrap() == "saxpy").unwrap();
    compile_ir(&std::fs::read_to_string(src).unwrap(), "saxpy", target, OptLevel::O2, Emit::Object).unwrap()
}

fn device_call_object() -> Vec<u8> {
    let src = xtask::corpus::kernel_sources().unwrap().into_iter().find(|p| p.file_stem().unwrap() == "device_call").unwrap();
    compile_ir(&std::fs::read_to_string(src).unwrap(), "device_call", GpuTarget::Gfx942, OptLevel::O2, Emit::Object).unwrap()
}

#[test]
fn error_unknown_relocation_type_names_type_and_offset() {
    let mut obj = saxpy_object(GpuTarget::Gfx942);
    let co = CodeObject::parse(&obj).unwrap();
    let rela = co.sections.iter().find(|s| s.name == ".rela.rodata").expect(".rela.rodata");
    let at = rela.offset as usize;
    let r_offset = u64::from_le_bytes(obj[at..at + 8].try_into().unwrap());
    obj[at + 8..at + 12].copy_from_slice(&200u32.to_le_bytes()); // r_info low half: the type
    let e = link(&obj).unwrap_err();
    assert!(matches!(e, RelinkError::UnsupportedRelocation { r_type: 200, .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("type 200") && msg.contains(&format!(".rodata+{r_offset:#x}")) && msg.contains("saxpy"), "{msg}");

    // A known type that needs a GOT (GOTPCREL32_LO = 8) is refused too, with its name.
    obj[at + 8..at + 12].copy_from_slice(&8u32.to_le_bytes());
    let msg = link(&obj).unwrap_err().to_string();
    assert!(msg.contains("R_AMDGPU_GOTPCREL32_LO") && msg.contains(".rodata+0x10"), "{msg}");
}

#[test]
fn error_undefined_symbol_names_symbol_and_reference() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @external_helper(i32)
define amdgpu_kernel void @calls_external(ptr addrspace(1) %p, i32 %i) {
  %a = call i32 @external_helper(i32 %i)
  store i32 %a, ptr addrspace(1) %p
  ret void
}
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;
    let obj = compile_ir(ir, "undef", GpuTarget::Gfx942, OptLevel::O2, Emit::Object).unwrap();
    let e = link(&obj).unwrap_err();
    assert!(matches!(&e, RelinkError::UndefinedSymbol { name, .. } if name == "external_helper"), "{e:?}");
    assert!(e.to_string().contains("external_helper"), "{e}");
    // rust-lld refuses it as well.
    assert!(xtask::corpus::link_with_rust_lld(&obj, &work_dir("undef"), "undef").is_err());
    let _ = std::fs::remove_dir_all(work_dir("undef"));
}

#[test]
fn error_truncated_not_rel_wrong_machine() {
    let obj = saxpy_object(GpuTarget::Gfx942);
    // Truncated: inside the header, and inside the section header table / contents.
    let e = link(&obj[..40]).unwrap_err();
    assert_eq!(e, RelinkError::TooShort { len: 40 });
    assert!(e.to_string().contains("40 bytes"), "{e}");
    let e = link(&obj[..obj.len() - 10]).unwrap_err();
    assert!(matches!(e, RelinkError::Malformed { .. }), "{e:?}");
    assert!(e.to_string().contains("section header table") && e.to_string().contains("offset"), "{e}");
    let e = link(&obj[..obj.len() / 2]).unwrap_err();
    assert!(matches!(e, RelinkError::Malformed { .. }), "{e:?}");
    // Not ET_REL: a linked code object.
    let linked = link(&obj).unwrap();
    let e = link(&linked).unwrap_err();
    assert_eq!(e, RelinkError::NotRelocatable { e_type: 3 });
    assert!(e.to_string().contains("e_type 3 at offset 16"), "{e}");
    // Wrong machine: x86-64.
    let mut x86 = obj.clone();
    x86[18..20].copy_from_slice(&62u16.to_le_bytes());
    let e = link(&x86).unwrap_err();
    assert_eq!(e, RelinkError::WrongMachine { machine: 62 });
    assert!(e.to_string().contains("machine 62") && e.to_string().contains("offset 18"), "{e}");
    // Not ELF at all, and ELF32.
    assert!(matches!(link(b"hello world, this is not an ELF file at all.........................").unwrap_err(), RelinkError::NotElf { .. }));
    let mut elf32 = obj.clone();
    elf32[4] = 1;
    assert!(matches!(link(&elf32).unwrap_err(), RelinkError::WrongClass { class: 1, data: 1 }));
    assert!(matches!(link(&[]).unwrap_err(), RelinkError::NotElf { .. }));
}

#[test]
fn error_relocation_out_of_section_and_bad_symbol_index() {
    let obj = device_call_object();
    let co = CodeObject::parse(&obj).unwrap();
    let rela = co.sections.iter().find(|s| s.name == ".rela.text").expect(".rela.text");
    let at = rela.offset as usize;
    let mut bad = obj.clone();
    bad[at..at + 8].copy_from_slice(&0xffff_fff0u64.to_le_bytes());
    let msg = link(&bad).unwrap_err().to_string();
    assert!(msg.contains("0xfffffff0") && msg.contains(".text"), "{msg}");
    let mut bad = obj.clone();
    bad[at + 12..at + 16].copy_from_slice(&9999u32.to_le_bytes()); // r_info high half: the symbol
    let msg = link(&bad).unwrap_err().to_string();
    assert!(msg.contains("9999") && msg.contains(".rela.text"), "{msg}");
}

#[test]
fn fuzz_truncations_and_byte_flips_never_panic() {
    for obj in [saxpy_object(GpuTarget::Gfx1250), device_call_object()] {
        let mut outcomes = [0usize; 2];
        for len in 0..obj.len() {
            outcomes[link(&obj[..len]).is_ok() as usize] += 1;
        }
        assert_eq!(outcomes[1], 0, "a truncated object linked");
        for i in 0..obj.len() {
            for pattern in [0xffu8, 0x01, 0x80] {
                let mut m = obj.clone();
                m[i] ^= pattern;
                let _ = link(&m);
            }
        }
        // Multi-byte corruption: large values in each 8-byte field.
        for i in (0..obj.len().saturating_sub(8)).step_by(4) {
            let mut m = obj.clone();
            m[i..i + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            let _ = link(&m);
            m[i..i + 8].copy_from_slice(&0x8000_0000u64.to_le_bytes());
            let _ = link(&m);
        }
    }
}
