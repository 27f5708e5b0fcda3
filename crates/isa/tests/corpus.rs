//! Every instruction of every corpus kernel, compiled for gfx1250, gfx942 and gfx950 with the
//! LLVM linked here: this crate must decode it exactly as LLVM does, or say "unsupported".
//! `cargo test -p hx-isa --test corpus -- --nocapture` prints the coverage and the unsupported
//! mnemonics.

mod common;

use common::gpu;
use hx_isa::{decode, DecodeError, Target};
use hx_llvm::{compile_ir, Disassembler, Emit, OptLevel};
use std::collections::BTreeMap;

/// The `.text` section of a little-endian ELF64 relocatable object.
fn text_section(elf: &[u8]) -> Option<&[u8]> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(elf.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(elf.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(elf.get(o..o + 8)?.try_into().ok()?));
    let shoff = u64_at(0x28)? as usize;
    let shentsize = u16_at(0x3a)? as usize;
    let shnum = u16_at(0x3c)? as usize;
    let shstrndx = u16_at(0x3e)? as usize;
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(sh(shstrndx) + 0x18)? as usize;
    for i in 0..shnum {
        let name_off = u32_at(sh(i))? as usize;
        let name = elf.get(strtab + name_off..)?;
        let end = name.iter().position(|&b| b == 0)?;
        if &name[..end] == b".text" {
            let off = u64_at(sh(i) + 0x18)? as usize;
            let size = u64_at(sh(i) + 0x20)? as usize;
            return elf.get(off..off + size);
        }
    }
    None
}

#[test]
fn corpus_instructions() {
    let objects = hx_corpus::objects().expect("corpus");
    let mut bad = Vec::new();
    for target in Target::ALL {
        let mut llvm = Disassembler::new(gpu(target)).expect("LLVM disassembler");
        let (mut total, mut matched) = (0usize, 0usize);
        let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
        // gfx1250-only kernels cannot be compiled for the other targets (LLVM cannot select
        // their intrinsics, and says so by aborting the process).
        for obj in objects.iter().filter(|o| o.builds_for(target.cpu())) {
            let ir = obj.ir().expect("IR");
            let elf = match compile_ir(&ir, &obj.name, gpu(target), OptLevel::O2, Emit::Object) {
                Ok(e) => e,
                Err(e) => {
                    println!("{}: {} does not compile: {e}", target.cpu(), obj.name);
                    continue;
                }
            };
            let Some(text) = text_section(&elf) else {
                continue;
            };
            let mut buf = text.to_vec();
            buf.extend_from_slice(&[0; 16]);
            let mut at = 0;
            while at < text.len() {
                let Some((len, want)) = llvm.decode(&buf[at..], at as u64) else {
                    break;
                };
                total += 1;
                match decode(target, &buf[..text.len()], at) {
                    Ok(i) if i.len as usize == len && i.text() == want => matched += 1,
                    Err(DecodeError::Unsupported { .. }) => {
                        let mnemonic = want.split_whitespace().next().unwrap_or("").to_string();
                        *unsupported.entry(mnemonic).or_default() += 1;
                    }
                    other => bad.push(format!(
                        "{} {} +{at:#x}: LLVM ({len}, {want:?}), ours {:?}",
                        target.cpu(),
                        obj.name,
                        other.map(|i| (i.len, i.text()))
                    )),
                }
                at += len;
            }
        }
        let mut top: Vec<_> = unsupported.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let uns: usize = unsupported.values().sum();
        println!(
            "{:8}: {total} corpus instructions, {matched} match LLVM ({:.1}%), {uns} unsupported",
            target.cpu(),
            if total == 0 {
                100.0
            } else {
                100.0 * matched as f64 / total as f64
            }
        );
        let list: Vec<String> = top
            .iter()
            .take(40)
            .map(|(m, n)| format!("{m} x{n}"))
            .collect();
        println!("    unsupported: {}", list.join(", "));
    }
    for b in &bad {
        println!("    mismatch: {b}");
    }
    assert!(
        bad.is_empty(),
        "{} corpus instructions decoded differently from LLVM",
        bad.len()
    );
}

/// Every instruction of the code objects real compilers built (corpus/triton, corpus/hip): decoded
/// exactly as LLVM decodes it, or "unsupported". A word LLVM decodes only with `+real-true16`
/// (gfx1250's true16 `v_mov_b16`; every other word is compared with LLVM's default, fake16,
/// text) is compared with that text, and counted. Words LLVM cannot decode either way end the
/// comparison of that object, and are counted.
#[test]
fn compiled_suite_instructions() {
    let mut bad = Vec::new();
    for target in Target::ALL {
        let mut llvm = Disassembler::new(gpu(target)).expect("LLVM disassembler");
        let mut llvm16 = Disassembler::with_features(gpu(target), "+real-true16").expect("LLVM disassembler");
        let (mut total, mut matched, mut llvm_stops, mut true16) = (0usize, 0usize, 0usize, 0usize);
        let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
        for suite in hx_corpus::COMPILED_SUITES {
            for obj in hx_corpus::compiled_suite(suite).expect("suite").iter().filter(|o| o.targets.iter().any(|t| t == target.cpu())) {
                let elf = std::fs::read(obj.object_path(target.cpu())).expect("object");
                let Some(text) = text_section(&elf) else { continue };
                let mut buf = text.to_vec();
                buf.extend_from_slice(&[0; 16]);
                let mut at = 0;
                while at < text.len() {
                    let Some((len, want)) = llvm.decode(&buf[at..], at as u64).or_else(|| {
                        let r = if target == Target::Gfx1250 { llvm16.decode(&buf[at..], at as u64) } else { None };
                        true16 += r.is_some() as usize;
                        r
                    }) else {
                        llvm_stops += 1;
                        break;
                    };
                    total += 1;
                    match decode(target, &buf[..text.len()], at) {
                        Ok(i) if i.len as usize == len && i.text() == want => matched += 1,
                        Err(DecodeError::Unsupported { .. }) => {
                            let mnemonic = want.split_whitespace().next().unwrap_or("").to_string();
                            *unsupported.entry(mnemonic).or_default() += 1;
                        }
                        other => bad.push(format!(
                            "{} {} +{at:#x}: LLVM ({len}, {want:?}), ours {:?}",
                            target.cpu(),
                            obj.id(),
                            other.map(|i| (i.len, i.text()))
                        )),
                    }
                    at += len;
                }
            }
        }
        let list: Vec<String> = unsupported.iter().map(|(m, n)| format!("{m} x{n}")).collect();
        println!(
            "{:8}: {total} compiled-suite instructions ({true16} that LLVM decodes only with +real-true16), {matched} match LLVM; {} objects stop where LLVM cannot decode; unsupported: {}",
            target.cpu(),
            llvm_stops,
            list.join(", ")
        );
    }
    for b in &bad {
        println!("    mismatch: {b}");
    }
    assert!(bad.is_empty(), "{} compiled-suite instructions decoded differently from LLVM", bad.len());
}
