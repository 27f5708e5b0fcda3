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
        // Only the targets the object is built for (gfx1250-only kernels cannot be selected for
        // the others: LLVM would abort).
        for target in xtask::corpus::targets_of(&stem).expect("launch description") {
            let object = compile_ir(&ir, &stem, target, OptLevel::O2, Emit::Object)
                .unwrap_or_else(|e| panic!("compiling {stem} for {target:?}: {e}"));
            v.push(Case {
                stem: stem.clone(),
                target,
                object,
            });
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
        d.push(format!(
            "e_ident {:02x?} vs {:02x?}",
            &want[..16.min(want.len())],
            &got[..16.min(got.len())]
        ));
    }
    if w.eflags.raw != g.eflags.raw {
        d.push(format!("e_flags {:#x} vs {:#x}", w.eflags.raw, g.eflags.raw));
    }
    if want.get(16..64) != got.get(16..64) {
        d.push("ELF header fields (e_type..e_shstrndx) differ".into());
    }
    if w.program_headers != g.program_headers {
        d.push(format!(
            "program headers\n  lld:  {:?}\n  mine: {:?}",
            w.program_headers, g.program_headers
        ));
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
                bytes
                    .get(s.offset as usize..(s.offset + s.size) as usize)
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default()
            }
        };
        if contents(want, a) != contents(got, b) {
            d.push(format!("contents of {} differ", a.name));
        }
    }
    let syms = |c: &CodeObject| {
        c.symbols
            .iter()
            .map(|s| {
                (
                    s.table,
                    s.name.clone(),
                    s.value,
                    s.size,
                    s.sym_type,
                    s.bind,
                    s.visibility,
                    s.section,
                )
            })
            .collect::<Vec<_>>()
    };
    if syms(&w) != syms(&g) {
        d.push(format!("symbols\n  lld:  {:?}\n  mine: {:?}", syms(&w), syms(&g)));
    }
    let kds = |c: &CodeObject| {
        c.kernels
            .iter()
            .map(|k| (k.name.clone(), k.descriptor_addr, k.descriptor.bytes))
            .collect::<Vec<_>>()
    };
    if kds(&w) != kds(&g) {
        d.push("kernel descriptors differ".into());
    }
    let notes = |c: &CodeObject, b: &[u8]| {
        c.notes
            .iter()
            .map(|n| {
                (
                    n.owner.clone(),
                    n.n_type,
                    b[n.desc_offset as usize..(n.desc_offset + n.desc_size) as usize].to_vec(),
                )
            })
            .collect::<Vec<_>>()
    };
    if notes(&w, want) != notes(&g, got) {
        d.push("notes (NT_AMDGPU_METADATA) differ".into());
    }
    if d.is_empty() && want != got {
        let at = want
            .iter()
            .zip(got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        d.push(format!(
            "bytes differ first at offset {at:#x} (sizes {} and {})",
            want.len(),
            got.len()
        ));
    }
    d
}

#[test]
fn corpus_links_byte_identical_to_rust_lld() {
    assert!(
        INTENDED_DIFFERENCES.is_empty(),
        "update the comparison when differences are intended"
    );
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
            failures.push(format!(
                "{id}: rust-lld output differs from the checked-in corpus file (rebuild the corpus)"
            ));
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
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
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
        assert_eq!(
            out[7..9],
            case.object[7..9],
            "{id}: OS ABI and ABI version from the input"
        );
        assert!(!co.kernels.is_empty(), "{id}: no kernels found");
        assert_eq!(co.kernels.len(), input.kernels.len(), "{id}");
        let text = co.section(".text").expect(".text");
        for k in &co.kernels {
            // code = descriptor address + kernel_code_entry_byte_offset, and that is the kernel symbol.
            let entry = (k.descriptor_addr as i128 + k.descriptor.kernel_code_entry_byte_offset as i128) as u64;
            assert_eq!(entry, k.code_addr, "{id}: {}", k.name);
            for table in [
                hx_codeobj::elf::SymbolTable::Symtab,
                hx_codeobj::elf::SymbolTable::Dynsym,
            ] {
                let f = co
                    .symbols
                    .iter()
                    .find(|s| s.name == k.name && s.table == table)
                    .unwrap_or_else(|| panic!("{id}: {} missing", k.name));
                assert_eq!(f.value, entry, "{id}: {} symbol vs descriptor", k.name);
                assert_eq!(f.sym_type, 2, "{id}: {} is STT_FUNC", k.name);
                let kd = co
                    .symbols
                    .iter()
                    .find(|s| s.name == k.descriptor_symbol && s.table == table)
                    .unwrap();
                assert_eq!(kd.value, k.descriptor_addr, "{id}: {}", k.descriptor_symbol);
            }
            assert!(
                entry >= text.addr && entry + k.code_size <= text.addr + text.size,
                "{id}: {} code outside .text",
                k.name
            );
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
        let over = link_with(
            &case.object,
            &LinkOptions {
                e_flags_override: Some(flags),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(u32::from_le_bytes(over[48..52].try_into().unwrap()), flags);
        assert_eq!(plain[..48], over[..48]);
        assert_eq!(plain[52..], over[52..]);
        let co = CodeObject::parse(&over).unwrap();
        assert_eq!(co.eflags.raw, flags);
    }
}

/// The metadata note's descriptor bytes of a code object.
fn metadata_bytes(bytes: &[u8]) -> Vec<u8> {
    let co = CodeObject::parse(bytes).unwrap();
    let n = co
        .notes
        .iter()
        .find(|n| n.owner == "AMDGPU" && n.n_type == 32)
        .expect("metadata note");
    bytes[n.desc_offset as usize..(n.desc_offset + n.desc_size) as usize].to_vec()
}

#[test]
fn metadata_replacement_rewrites_the_note_and_relayouts() {
    let cases = corpus_cases();
    for case in cases.iter().filter(|c| c.target == GpuTarget::Gfx942) {
        let id = &case.stem;
        let plain = link(&case.object).unwrap();
        // The same bytes again: the output is unchanged.
        let same = metadata_bytes(&case.object);
        let opts = LinkOptions {
            metadata: Some(same.clone()),
            ..Default::default()
        };
        assert_eq!(link_with(&case.object, &opts).unwrap(), plain, "{id}");
        // The gfx950 compile's document (another target ID, another length after padding): the
        // output carries it, parses, and still finds every kernel.
        let other = cases
            .iter()
            .find(|c| c.stem == case.stem && c.target == GpuTarget::Gfx950)
            .unwrap();
        let mut blob = metadata_bytes(&other.object);
        blob.extend_from_slice(&[0xc0; 5]); // trailing msgpack nils: a length that needs padding
        let out = link_with(
            &case.object,
            &LinkOptions {
                metadata: Some(blob.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(metadata_bytes(&out), blob, "{id}");
        let co = CodeObject::parse(&out).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(
            co.kernels.len(),
            CodeObject::parse(&plain).unwrap().kernels.len(),
            "{id}"
        );
        for k in &co.kernels {
            let f = co.symbols.iter().find(|s| s.name == k.name).unwrap();
            assert_eq!(f.value, k.code_addr, "{id}: {}", k.name);
        }
    }
    // No metadata note to replace (its type changed to 33): an error, not a guess.
    let mut obj = saxpy_object(GpuTarget::Gfx942);
    let note = CodeObject::parse(&obj)
        .unwrap()
        .sections
        .into_iter()
        .find(|s| s.name == ".note")
        .unwrap();
    let at = note.offset as usize + 8;
    obj[at..at + 4].copy_from_slice(&33u32.to_le_bytes());
    assert!(link(&obj).is_ok(), "the note itself is only data");
    match link_with(
        &obj,
        &LinkOptions {
            metadata: Some(vec![0x80]),
            ..Default::default()
        },
    ) {
        Ok(_) => panic!("replaced a metadata note that does not exist"),
        Err(e) => assert!(e.to_string().contains("no NT_AMDGPU_METADATA"), "{e}"),
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
                    order
                        .into_iter()
                        .map(|i| (i, link(&cases[i].object).unwrap()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, out) in h.join().expect("thread panicked") {
                assert_eq!(
                    out,
                    reference[i],
                    "{}/{}: differs when linked on another thread",
                    cases[i].target.cpu(),
                    cases[i].stem
                );
            }
        }
    });
}

fn saxpy_object(target: GpuTarget) -> Vec<u8> {
    let src = xtask::corpus::kernel_sources()
        .unwrap()
        .into_iter()
        .find(|p| p.file_stem().unwrap() == "saxpy")
        .unwrap();
    compile_ir(
        &std::fs::read_to_string(src).unwrap(),
        "saxpy",
        target,
        OptLevel::O2,
        Emit::Object,
    )
    .unwrap()
}

fn device_call_object() -> Vec<u8> {
    let src = xtask::corpus::kernel_sources()
        .unwrap()
        .into_iter()
        .find(|p| p.file_stem().unwrap() == "device_call")
        .unwrap();
    compile_ir(
        &std::fs::read_to_string(src).unwrap(),
        "device_call",
        GpuTarget::Gfx942,
        OptLevel::O2,
        Emit::Object,
    )
    .unwrap()
}

#[test]
fn error_unknown_relocation_type_names_type_and_offset() {
    let mut obj = saxpy_object(GpuTarget::Gfx942);
    let co = CodeObject::parse(&obj).unwrap();
    let rela = co
        .sections
        .iter()
        .find(|s| s.name == ".rela.rodata")
        .expect(".rela.rodata");
    let at = rela.offset as usize;
    let r_offset = u64::from_le_bytes(obj[at..at + 8].try_into().unwrap());
    obj[at + 8..at + 12].copy_from_slice(&200u32.to_le_bytes()); // r_info low half: the type
    let e = link(&obj).unwrap_err();
    assert!(
        matches!(e, RelinkError::UnsupportedRelocation { r_type: 200, .. }),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("type 200") && msg.contains(&format!(".rodata+{r_offset:#x}")) && msg.contains("saxpy"),
        "{msg}"
    );

    // A known type that lld does not implement either (R_AMDGPU_ABS32_LO = 1) is refused by name.
    obj[at + 8..at + 12].copy_from_slice(&1u32.to_le_bytes());
    let msg = link(&obj).unwrap_err().to_string();
    assert!(
        msg.contains("R_AMDGPU_ABS32_LO") && msg.contains(&format!(".rodata+{r_offset:#x}")),
        "{msg}"
    );
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
    assert!(
        matches!(&e, RelinkError::UndefinedSymbol { name, .. } if name == "external_helper"),
        "{e:?}"
    );
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
    assert!(
        e.to_string().contains("section header table") && e.to_string().contains("offset"),
        "{e}"
    );
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
    assert!(
        e.to_string().contains("machine 62") && e.to_string().contains("offset 18"),
        "{e}"
    );
    // Not ELF at all, and ELF32.
    assert!(matches!(
        link(b"hello world, this is not an ELF file at all.........................").unwrap_err(),
        RelinkError::NotElf { .. }
    ));
    let mut elf32 = obj.clone();
    elf32[4] = 1;
    assert!(matches!(
        link(&elf32).unwrap_err(),
        RelinkError::WrongClass { class: 1, data: 1 }
    ));
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

fn extra_case(name: &str, target: GpuTarget) -> Vec<u8> {
    let &(_, src, text) = EXTRA_CASES.iter().find(|c| c.0 == name).expect(name);
    build(src, text, name, target)
}

#[test]
fn fuzz_truncations_and_byte_flips_never_panic() {
    let objects = [
        saxpy_object(GpuTarget::Gfx1250),
        device_call_object(),
        extra_case("got_mix", GpuTarget::Gfx942),
        extra_case("data_ptrs", GpuTarget::Gfx950),
        extra_case("globals_protected", GpuTarget::Gfx942),
    ];
    // Random multi-byte corruption, seeded (xorshift64*).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let with_metadata = LinkOptions {
        metadata: Some(vec![0x81, 0xa1, b'x', 0x01, 0xc0]),
        ..Default::default()
    };
    for obj in &objects {
        for round in 0..3000 {
            let mut m = obj.clone();
            for _ in 0..1 + next() % 6 {
                let i = (next() % m.len() as u64) as usize;
                m[i] = next() as u8;
            }
            let _ = if round % 3 == 0 {
                link_with(&m, &with_metadata)
            } else {
                link(&m)
            };
        }
    }
    for obj in objects {
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

// ---------------------------------------------------------------------------------------------
// Beyond the corpus: object forms the backend can produce that the corpus does not contain.

#[derive(Clone, Copy, PartialEq)]
enum Src {
    Ir,
    Asm,
}

const IR_HEADER: &str = "target triple = \"amdgcn-amd-amdhsa\"\n";
const IR_FOOTER: &str = "\n!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n";

/// (name, source kind, source): IR bodies get IR_HEADER/IR_FOOTER; assembly is for gfx942/gfx950.
const EXTRA_CASES: &[(&str, Src, &str)] = &[
    // protected .data/.bss/.rodata globals, internal and hidden globals (REL32 pairs)
    (
        "globals_protected",
        Src::Ir,
        r#"@gd = protected addrspace(1) global i32 5, align 4
@gb = protected addrspace(1) global [16 x i32] zeroinitializer, align 16
@gc = protected addrspace(4) constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16
@id = internal addrspace(1) global i32 7, align 4
@hd = hidden addrspace(1) global i32 9, align 4
define amdgpu_kernel void @useg(ptr addrspace(1) %p, i32 %i) {
  %a = load i32, ptr addrspace(1) @gd
  %b = getelementptr [4 x i32], ptr addrspace(4) @gc, i32 0, i32 %i
  %c = load i32, ptr addrspace(4) %b
  %d = load volatile i32, ptr addrspace(1) @id
  %e = load volatile i32, ptr addrspace(1) @hd
  %s = add i32 %a, %c
  %s2 = add i32 %s, %d
  %s3 = add i32 %s2, %e
  store i32 %s3, ptr addrspace(1) %p
  %q = getelementptr [16 x i32], ptr addrspace(1) @gb, i32 0, i32 %i
  store i32 %s, ptr addrspace(1) %q
  store volatile i32 %s, ptr addrspace(1) @id
  ret void
}
"#,
    ),
    // hidden and weak protected device functions
    (
        "hidden_fn",
        Src::Ir,
        r#"define hidden i32 @helper(i32 %x) noinline {
  %y = mul i32 %x, 7
  ret i32 %y
}
define weak_odr protected i32 @wk(i32 %x) noinline {
  %y = add i32 %x, 7
  ret i32 %y
}
define amdgpu_kernel void @callh(ptr addrspace(1) %p, i32 %i) {
  %a = call i32 @helper(i32 %i)
  %b = call i32 @wk(i32 %a)
  store i32 %b, ptr addrspace(1) %p
  ret void
}
"#,
    ),
    // a default-visibility device function: GOT entry with a symbolic R_AMDGPU_ABS64
    (
        "default_fn",
        Src::Ir,
        r#"define i32 @helper(i32 %x) noinline {
  %y = mul i32 %x, 7
  ret i32 %y
}
define amdgpu_kernel void @callh(ptr addrspace(1) %p, i32 %i) {
  %a = call i32 @helper(i32 %i)
  store i32 %a, ptr addrspace(1) %p
  ret void
}
"#,
    ),
    // a default-visibility global variable through the GOT
    (
        "global_default",
        Src::Ir,
        r#"@gd = addrspace(1) global i32 5, align 4
define amdgpu_kernel void @useg(ptr addrspace(1) %p) {
  %a = load i32, ptr addrspace(1) @gd
  store i32 %a, ptr addrspace(1) %p
  ret void
}
"#,
    ),
    // static and dynamic LDS
    (
        "lds",
        Src::Ir,
        r#"@lds = internal addrspace(3) global [64 x i32] poison, align 4
@dyn = external addrspace(3) global [0 x i32], align 4
define amdgpu_kernel void @ldsk(ptr addrspace(1) %p, i32 %i) {
  %q = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %i
  store i32 %i, ptr addrspace(3) %q
  %r = getelementptr [0 x i32], ptr addrspace(3) @dyn, i32 0, i32 %i
  store i32 %i, ptr addrspace(3) %r
  %v = load i32, ptr addrspace(3) %q
  store i32 %v, ptr addrspace(1) %p
  ret void
}
"#,
    ),
    // .text.* and .rodata.* merged into .text/.rodata, .data.rel.ro
    (
        "asm_multitext",
        Src::Asm,
        r#"  .text
  .globl f1
  .protected f1
  .type f1,@function
f1:
  s_setpc_b64 s[30:31]
  .size f1, .-f1
  .section .text.second,"ax",@progbits
  .p2align 8
  .globl f2
  .protected f2
  .type f2,@function
f2:
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, f1@rel32@lo+4
  s_addc_u32 s5, s5, f1@rel32@hi+12
  s_setpc_b64 s[30:31]
  .size f2, .-f2
  .section .rodata.extra,"a",@progbits
  .p2align 3
tab:
  .quad 0
  .section .data.rel.ro,"aw",@progbits
  .p2align 3
  .globl rr
  .protected rr
rr:
  .long 5
"#,
    ),
    // pointers in .data.rel.ro: R_AMDGPU_RELATIVE64 and symbolic dynamic relocations
    (
        "data_ptrs",
        Src::Asm,
        r#"  .text
  .globl f1
  .protected f1
  .type f1,@function
f1:
  s_setpc_b64 s[30:31]
  .size f1, .-f1
  .globl fdef
  .type fdef,@function
fdef:
  s_setpc_b64 s[30:31]
  .size fdef, .-fdef
  .type floc,@function
floc:
  s_setpc_b64 s[30:31]
  .size floc, .-floc
  .section .data.rel.ro,"aw",@progbits
  .p2align 3
  .globl tab
  .protected tab
tab:
  .quad f1
  .quad floc+4
  .quad fdef
  .quad tab
"#,
    ),
    // pointers in .data: a second RW PT_LOAD after RELRO
    (
        "data_ptrs_data",
        Src::Asm,
        r#"  .text
  .globl f1
  .protected f1
  .type f1,@function
f1:
  s_setpc_b64 s[30:31]
  .size f1, .-f1
  .data
  .p2align 3
  .globl tab
  .protected tab
tab:
  .quad f1
  .quad f1+8
"#,
    ),
    // GOT entries for protected, default and local symbols (lld's GOT order)
    (
        "got_mix",
        Src::Asm,
        r#"  .set absl, 0x40
  .globl absg
  .protected absg
  .set absg, 0x80
  .text
  s_nop 0
  s_nop 0
  .globl f1
  .protected f1
  .type f1,@function
f1:
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, floc@gotpcrel32@lo+4
  s_addc_u32 s5, s5, floc@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, fdef@gotpcrel32@lo+4
  s_addc_u32 s5, s5, fdef@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, f1@gotpcrel32@lo+4
  s_addc_u32 s5, s5, f1@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, floc@gotpcrel32@lo+4
  s_addc_u32 s5, s5, floc@gotpcrel32@hi+12
  s_setpc_b64 s[30:31]
  .size f1, .-f1
  .globl fdef
  .type fdef,@function
fdef:
  s_setpc_b64 s[30:31]
  .size fdef, .-fdef
  .type floc,@function
floc:
  s_setpc_b64 s[30:31]
  .size floc, .-floc
  .section .data.rel.ro,"aw",@progbits
  .p2align 3
  .globl tab
  .protected tab
tab:
  .quad fdef
  .quad floc
  .quad absg+1
  .section .data,"aw",@progbits
  .p2align 3
  .quad f1
"#,
    ),
    // a GOT entry for an absolute symbol (a link-time constant)
    (
        "got_absg",
        Src::Asm,
        r#"  .set absl, 0x40
  .globl absg
  .protected absg
  .set absg, 0x80
  .text
  .globl f1
  .protected f1
  .type f1,@function
f1:
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, floc@gotpcrel32@lo+4
  s_addc_u32 s5, s5, floc@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, fdef@gotpcrel32@lo+4
  s_addc_u32 s5, s5, fdef@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, f1@gotpcrel32@lo+4
  s_addc_u32 s5, s5, f1@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, absg@gotpcrel32@lo+4
  s_addc_u32 s5, s5, absg@gotpcrel32@hi+12
  s_getpc_b64 s[4:5]
  s_add_u32 s4, s4, floc@gotpcrel32@lo+4
  s_addc_u32 s5, s5, floc@gotpcrel32@hi+12
  s_setpc_b64 s[30:31]
  .size f1, .-f1
  .globl fdef
  .type fdef,@function
fdef:
  s_setpc_b64 s[30:31]
  .size fdef, .-fdef
  .type floc,@function
floc:
  s_setpc_b64 s[30:31]
  .size floc, .-floc
  .section .data.rel.ro,"aw",@progbits
  .p2align 3
  .globl tab
  .protected tab
tab:
  .quad fdef
  .quad floc
  .quad 0
  .section .data,"aw",@progbits
  .p2align 3
  .quad f1
"#,
    ),
    // an empty .text: lld drops its PT_LOAD after layout
    (
        "asm_notext",
        Src::Asm,
        r#"  .section .rodata,"a",@progbits
  .globl d1
  .protected d1
d1:
  .long 1
"#,
    ),
    // two note sections with different alignments: two PT_NOTEs
    (
        "asm_two_notes",
        Src::Asm,
        r#"  .section .note.a,"a",@note
  .p2align 2
  .long 4, 4, 1
  .asciz "abc"
  .long 7
  .section .note.b,"a",@note
  .p2align 3
  .long 4, 4, 1
  .asciz "abc"
  .long 8
  .text
  .globl f1
  .protected f1
f1:
  s_setpc_b64 s[30:31]
"#,
    ),
    // a _start symbol sets e_entry
    (
        "asm_start",
        Src::Asm,
        r#"  .text
  .globl _start
  .protected _start
  .type _start,@function
  s_nop 0
_start:
  s_setpc_b64 s[30:31]
  .size _start, .-_start
"#,
    ),
    // only .bss after RELRO
    (
        "only_bss",
        Src::Ir,
        r#"@gb = protected addrspace(1) global [1000 x i32] zeroinitializer, align 16
define amdgpu_kernel void @useb(ptr addrspace(1) %p, i32 %i) {
  %q = getelementptr [1000 x i32], ptr addrspace(1) @gb, i32 0, i32 %i
  store i32 %i, ptr addrspace(1) %q
  ret void
}
"#,
    ),
];

/// Objects that rust-lld refuses: hx-relink must refuse them too.
const REFUSED_CASES: &[(&str, Src, &str, &str)] = &[
    ("abs64_in_rodata", Src::Asm, "  .text\n  .globl f1\n  .protected f1\nf1:\n  s_setpc_b64 s[30:31]\n  .section .rodata,\"a\",@progbits\n  .p2align 3\n  .quad f1\n", "read-only section"),
    ("abs32_in_data", Src::Asm, "  .text\n  .globl f1\n  .protected f1\nf1:\n  s_setpc_b64 s[30:31]\n  .data\n  .p2align 3\n  .long f1\n", "R_AMDGPU_ABS32"),
    ("undefined_call", Src::Ir, "declare i32 @ext(i32)\ndefine amdgpu_kernel void @calle(ptr addrspace(1) %p, i32 %i) {\n  %a = call i32 @ext(i32 %i)\n  store i32 %a, ptr addrspace(1) %p\n  ret void\n}\n", "undefined symbol ext"),
];

/// Kernels k0..k{n-1}: enough exported symbols for several .gnu.hash buckets.
fn many_kernels(n: usize) -> String {
    (0..n)
        .map(|i| format!("define amdgpu_kernel void @k{i}_{}(ptr addrspace(1) %p) {{\n  store i32 {i}, ptr addrspace(1) %p, align 4\n  ret void\n}}\n", "x".repeat(i)))
        .collect()
}

fn build(src: Src, text: &str, name: &str, target: GpuTarget) -> Vec<u8> {
    match src {
        Src::Ir => compile_ir(
            &format!("{IR_HEADER}{text}{IR_FOOTER}"),
            name,
            target,
            OptLevel::O2,
            Emit::Object,
        ),
        Src::Asm => hx_llvm::assemble(text, name, target),
    }
    .unwrap_or_else(|e| panic!("building {name} for {target:?}: {e}"))
}

#[test]
fn extra_object_forms_link_byte_identical_to_rust_lld() {
    let work = work_dir("extra");
    let many: Vec<(String, String)> = [4usize, 5, 9, 20]
        .iter()
        .map(|&n| (format!("many{n}"), many_kernels(n)))
        .collect();
    let mut cases: Vec<(&str, Src, &str)> = EXTRA_CASES.to_vec();
    cases.extend(many.iter().map(|(n, t)| (n.as_str(), Src::Ir, t.as_str())));
    let mut failures = Vec::new();
    let mut count = 0;
    for &(name, src, text) in &cases {
        let targets: &[GpuTarget] = match src {
            Src::Ir => &GpuTarget::ALL,
            Src::Asm => &[GpuTarget::Gfx942, GpuTarget::Gfx950],
        };
        for &target in targets {
            let obj = build(src, text, name, target);
            let id = format!("{}/{name}", target.cpu());
            let lld = xtask::corpus::link_with_rust_lld(&obj, &work, name)
                .unwrap_or_else(|e| panic!("rust-lld on {id}: {e:#}"));
            match link(&obj) {
                Ok(mine) if mine == lld => count += 1,
                Ok(mine) => failures.push(format!(
                    "{id}: not byte-identical:\n  {}",
                    structural_diff(&lld, &mine).join("\n  ")
                )),
                Err(e) => failures.push(format!("{id}: hx-relink failed: {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("extra object forms byte-identical to rust-lld: {count}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn objects_rust_lld_refuses_are_refused() {
    let work = work_dir("refused");
    for &(name, src, text, expect) in REFUSED_CASES {
        let obj = build(src, text, name, GpuTarget::Gfx942);
        assert!(
            xtask::corpus::link_with_rust_lld(&obj, &work, name).is_err(),
            "{name}: rust-lld links it"
        );
        let msg = link(&obj).expect_err(name).to_string();
        assert!(msg.contains(expect), "{name}: {msg}");
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// The relocatable objects of the translations themselves (raised gfx1250 kernels lowered for
/// gfx942/gfx950): hx-relink links them byte-identical to rust-lld too. (The facade then replaces
/// the metadata note with the merged one, which `metadata_replacement_rewrites_the_note_and_relayouts`
/// covers.)
#[test]
fn translation_objects_link_byte_identical_to_rust_lld() {
    use hotswap::translate::{translate_code_object_to, Output};
    let work = work_dir("translations");
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        let source = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name))).unwrap();
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = hotswap::Options { target, ..Default::default() };
            let Ok(object) = translate_code_object_to(&source, &options, Output::Relocatable) else { continue };
            let id = format!("{}/{}", target.cpu(), obj.name);
            let lld = xtask::corpus::link_with_rust_lld(&object, &work.join(target.cpu()), &obj.name)
                .unwrap_or_else(|e| panic!("rust-lld on {id}: {e:#}"));
            match link(&object) {
                Ok(mine) if mine == lld => compared.push(id),
                Ok(mine) => failures.push(format!("{id}: not byte-identical:\n  {}", structural_diff(&lld, &mine).join("\n  "))),
                Err(e) => failures.push(format!("{id}: hx-relink failed: {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("translations byte-identical to rust-lld: {compared:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared.len() >= 10, "only {} translations compared", compared.len());
}

/// Kernels lowered apart (one relocatable object each, as the facade's parallel translation makes
/// them) link through `link_objects` byte-identical to `rust-lld a.o b.o ...`.
#[test]
fn separate_objects_link_byte_identical_to_rust_lld() {
    let work = work_dir("separate");
    let groups: &[&[&str]] = &[&["saxpy", "grid2d"], &["multi_kernel", "device_call", "lds_matmul", "scratch_array"], &["wave_ballot", "saxpy", "hidden_args"]];
    let mut count = 0;
    for target in GpuTarget::ALL {
        for (gi, group) in groups.iter().enumerate() {
            let objects: Vec<Vec<u8>> = group
                .iter()
                .map(|stem| {
                    let ir = std::fs::read_to_string(hx_corpus::corpus_dir().join("kernels").join(format!("{stem}.ll"))).unwrap();
                    compile_ir(&ir, stem, target, OptLevel::O2, Emit::Object).unwrap()
                })
                .collect();
            let refs: Vec<&[u8]> = objects.iter().map(|o| o.as_slice()).collect();
            let id = format!("{}/group{gi}", target.cpu());
            let lld = xtask::corpus::link_many_with_rust_lld(&refs, &work.join(&id), "g").unwrap_or_else(|e| panic!("rust-lld on {id}: {e:#}"));
            let mine = hx_relink::link_objects(&refs, &LinkOptions::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(mine == lld, "{id}: not byte-identical:\n  {}", structural_diff(&lld, &mine).join("\n  "));
            // With a metadata replacement, the output has the one note the runtime reads.
            let md = metadata_bytes(&lld);
            let one = hx_relink::link_objects(&refs, &LinkOptions { metadata: Some(md.clone()), ..Default::default() }).unwrap();
            let co = CodeObject::parse(&one).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(metadata_bytes(&one), md, "{id}");
            assert_eq!(co.notes.iter().filter(|n| n.owner == "AMDGPU" && n.n_type == 32).count(), 1, "{id}");
            count += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!("groups of separate objects byte-identical to rust-lld: {count}");
}

#[test]
fn separate_objects_defining_one_kernel_twice_are_refused() {
    let o = saxpy_object(GpuTarget::Gfx942);
    let e = hx_relink::link_objects(&[&o, &o], &LinkOptions::default()).unwrap_err().to_string();
    assert!(e.contains("duplicate global symbol") && e.contains("saxpy") && e.contains("object #0"), "{e}");
    let mut other = saxpy_object(GpuTarget::Gfx950);
    let e = hx_relink::link_objects(&[&o, &other], &LinkOptions::default()).unwrap_err().to_string();
    assert!(e.contains("object #1") && e.contains("e_flags"), "{e}");
    other.truncate(100);
    let e = hx_relink::link_objects(&[&o, &other], &LinkOptions::default()).unwrap_err().to_string();
    assert!(e.contains("object #1"), "{e}");
}
