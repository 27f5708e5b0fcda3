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
/// (gfx1250's true16 `v_mov_b16`, and 16-bit results into high halves; every other word is
/// compared with LLVM's default, fake16, text) is compared with that text, and counted. Words LLVM cannot decode either way end the
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
                    // Triton's scaled WMMA pairs carry src2 = 128 in the prefix, which LLVM 22.1
                    // rejects: the oracle is LLVM's text for the same pair with src2 = 256.
                    let mut here = buf[at..].to_vec();
                    let w = |i: usize| u32::from_le_bytes([here[i], here[i + 1], here[i + 2], here[i + 3]]);
                    if target == Target::Gfx1250 && matches!(w(0) >> 16, 0xcc35 | 0xcc3a) && (w(4) >> 18) & 0x1ff == 128 {
                        let patched = w(4) & !(0x1ff << 18) | 256 << 18;
                        here[4..8].copy_from_slice(&patched.to_le_bytes());
                    }
                    let Some((len, want)) = llvm.decode(&here, at as u64).or_else(|| {
                        let r = if target == Target::Gfx1250 { llvm16.decode(&here, at as u64) } else { None };
                        true16 += r.is_some() as usize;
                        r
                    }) else {
                        llvm_stops += 1;
                        break;
                    };
                    total += 1;
                    match decode(target, &buf[..text.len()], at) {
                        Ok(i) if i.len as usize == len && i.text() == want => matched += 1,
                        // A 16-bit result into a high half (Triton's `v_mul_f16_e32 v0.h, ..`): LLVM's
                        // +real-true16 text names halves where ours names the fake16 register
                        // numbers, with LLVM's invalid-register notes (common::compare).
                        Ok(i) if i.len as usize == len
                            && i.true16_high_half().is_some_and(|o| matches!(o.spec.kind, hx_isa::Kind::VDstLo128 { .. }))
                            && common::fake16_numbers(&want) == common::strip_notes(&i.text()) =>
                        {
                            matched += 1
                        }
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

/// The scaled WMMA pairs of Triton's gfx1250 `dot_scaled` objects (VOP3PX2: a
/// v_wmma_ld_scale_paired_b32 word with src2 = 128, which LLVM 22.1's disassembler rejects, and a
/// v_wmma_*_f8f6f4 word) decode to the text Triton 3.9 printed for them in the kernel's
/// assembly (`k.asm["amdgcn"]`, copied here in address order).
#[test]
fn triton_scaled_wmma_text_equals_tritons_assembly() {
    let cases: [(&str, &[&str]); 3] = [
        ("dot_scaled_e2m1_w1", &[
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[26:33], v[190:197], v[182:189], v[26:33], v216, v181 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[18:25], v[198:205], v[182:189], v[18:25], v216, v181 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_a_scale:MATRIX_SCALE_ROW1",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[10:17], v[190:197], v[208:215], v[10:17], v216, v181 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_b_scale:MATRIX_SCALE_ROW1",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[2:9], v[198:205], v[208:215], v[2:9], v216, v181 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_a_scale:MATRIX_SCALE_ROW1 matrix_b_scale:MATRIX_SCALE_ROW1",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[26:33], v[34:41], v[42:49], v[26:33], v0, v66 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[18:25], v[50:57], v[42:49], v[18:25], v0, v66 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_a_scale:MATRIX_SCALE_ROW1",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[10:17], v[34:41], v[58:65], v[10:17], v0, v66 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_b_scale:MATRIX_SCALE_ROW1",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[2:9], v[50:57], v[58:65], v[2:9], v0, v66 matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4 matrix_a_scale:MATRIX_SCALE_ROW1 matrix_b_scale:MATRIX_SCALE_ROW1",
        ]),
        ("dot_scaled_e2m1_e5m2_w4", &[
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[16:23], v[0:15], v[42:49], v[16:23], v51, v50 matrix_a_fmt:MATRIX_FMT_BF8 matrix_b_fmt:MATRIX_FMT_FP4",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[16:23], v[0:15], v[40:47], v[16:23], v25, v24 matrix_a_fmt:MATRIX_FMT_BF8 matrix_b_fmt:MATRIX_FMT_FP4",
        ]),
        ("dot_scaled_e4m3_w8", &[
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[32:39], v[16:31], v[0:15], v[32:39], v48, v47",
            "v_wmma_scale_f32_16x16x128_f8f6f4 v[32:39], v[0:15], v[16:31], v[32:39], v41, v40",
        ]),
    ];
    for (name, want) in cases {
        let path = hx_corpus::corpus_dir().join("triton").join("gfx1250").join(format!("{name}.hsaco"));
        let elf = std::fs::read(&path).expect("object");
        let text = text_section(&elf).expect(".text");
        let mut got = Vec::new();
        for at in (0..text.len().saturating_sub(16)).step_by(4) {
            if u32::from_le_bytes(text[at..at + 4].try_into().unwrap()) >> 16 == 0xcc35 {
                let i = decode(Target::Gfx1250, text, at).unwrap_or_else(|e| panic!("{name} +{at:#x}: {e}"));
                assert_eq!(i.len, 16, "{name} +{at:#x}");
                got.push(i.text());
            }
        }
        assert_eq!(got, want, "{name}");
    }
}
