//! Every instruction of every code object in corpus/ (the hand-written kernels' gfx1250,
//! gfx942 and gfx950 objects, and the objects Triton and clang built: corpus/triton,
//! corpus/hip) has a meaning in hx-sem's catalogue: an ALU operation, a memory shape, a
//! family, a named kind, or an explicit refusal. A new instruction in the corpus fails here
//! until it is given one.

use hx_codeobj::CodeObject;
use hx_isa::{decode, Target};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn objects() -> Vec<(Target, PathBuf)> {
    let mut out = Vec::new();
    let dir = hx_corpus::corpus_dir();
    for target in Target::ALL {
        let Ok(entries) = std::fs::read_dir(dir.join(target.cpu())) else { continue };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "hsaco")).collect();
        paths.sort();
        out.extend(paths.into_iter().map(|p| (target, p)));
        for suite in hx_corpus::COMPILED_SUITES {
            for obj in hx_corpus::compiled_suite(suite).expect("suite").iter().filter(|o| o.targets.iter().any(|t| t == target.cpu())) {
                out.push((target, obj.object_path(target.cpu())));
            }
        }
    }
    out
}

#[test]
fn every_corpus_instruction_has_a_meaning() {
    let mut missing: BTreeMap<(Target, &'static str), (usize, String)> = BTreeMap::new();
    let (mut total, mut by_kind) = (0usize, BTreeMap::<String, usize>::new());
    let objects = objects();
    assert!(objects.len() > 100, "the corpus has {} objects", objects.len());
    for (target, path) in &objects {
        let bytes = std::fs::read(path).expect("object");
        let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ranges = co.kernels.iter().map(|k| (k.code_offset, k.code_size)).chain(co.functions.iter().map(|f| (f.offset, f.size)));
        for (offset, size) in ranges {
            let code = &bytes[offset as usize..(offset + size) as usize];
            let mut at = 0;
            while at < code.len() {
                let Ok(inst) = decode(*target, code, at) else {
                    // Not decoded (hx-isa's own corpus test covers decoding): the next dword.
                    at += 4;
                    continue;
                };
                at += inst.len.max(4) as usize;
                total += 1;
                match hx_sem::meaning(&inst) {
                    Some(m) => *by_kind.entry(format!("{m:?}").split('(').next().unwrap_or("").to_string()).or_default() += 1,
                    None => {
                        let e = missing.entry((*target, inst.mnemonic())).or_insert((0, path.display().to_string()));
                        e.0 += 1;
                    }
                }
            }
        }
    }
    println!("{total} instructions in {} objects: {by_kind:?}", objects.len());
    for ((target, m), (n, first)) in &missing {
        println!("no meaning: {} {m} ({n}x, first in {first})", target.cpu());
    }
    assert!(missing.is_empty(), "{} mnemonics of the corpus have no meaning in hx-sem's catalogue (listed above)", missing.len());
}

/// The id-keyed lookup the emulator and the raiser use gives, for every opcode of every table,
/// what the name-keyed one gives for the opcode's mnemonic (and SDWA/DPP entries copy their
/// base opcode's id).
#[test]
fn alu_by_id_agrees_with_alu_by_name_on_every_table_entry() {
    use hx_isa::Format;
    let formats = [Format::Sop1, Format::Sop2, Format::Sopk, Format::Sopc, Format::Sopp, Format::Vop1, Format::Vop2, Format::Vopc, Format::Smem, Format::Vop3, Format::Vop3p, Format::Ds, Format::Global, Format::Scratch, Format::Flat];
    let mut n = 0;
    for target in Target::ALL {
        for format in formats {
            for e in hx_isa::tables::table(target, format).iter().flatten() {
                assert_ne!(e.sem, hx_isa::SemId::NONE, "{} {}", target.cpu(), e.mnemonic);
                assert_eq!(hx_isa::tables::sem_name(e.sem), hx_isa::mnemonic_stem(e.mnemonic));
                assert_eq!(hx_sem::alu::of_id(e.sem), hx_sem::alu::by_name(e.mnemonic), "{} {}", target.cpu(), e.mnemonic);
                n += 1;
            }
        }
    }
    assert!(n > 3000, "{n} entries");
}
