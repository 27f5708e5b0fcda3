//! Differential mutation test: corpus kernels with one bit of their code flipped. Whatever the
//! mutant is, translating it must return (an error is fine, a panic is not), and when the
//! mutant runs in the emulator as gfx1250 code and also translates, the translation must run
//! and leave every buffer bit-identical to the mutant's own run. A mutant that the gfx1250
//! emulator refuses (an undecodable word, a wild address, a runaway loop) is skipped: its
//! behaviour is not defined, so there is nothing to match; so is a mutant whose waves race on
//! memory (the emulator's race check on global memory refuses it, or its results differ when
//! the emulator runs its waves in lockstep). The emulator
//! refuses gfx1250 code that touches registers or LDS before the wait for the load writing them.
//!
//! `HX_MUTANTS=N` sets the number of mutants per corpus launch (default 3) and
//! `HX_MUTANT_SEED=S` picks another deterministic sample (default 0).

use hotswap::{GpuTarget, Options};
use hx_emu::Schedule::{Lockstep, UntilBlocked};
use hx_tests::mutant;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Runs a corpus launch on `bytes` with a small runaway bound (mutants loop) and the race check
/// on global memory: the buffers after.
fn run(bytes: &[u8], launch: &hx_corpus::Launch, seed: u64, schedule: hx_emu::Schedule) -> Result<Vec<Vec<u8>>, String> {
    run_checking(bytes, launch, seed, schedule, true)
}

fn run_checking(bytes: &[u8], launch: &hx_corpus::Launch, seed: u64, schedule: hx_emu::Schedule, races: bool) -> Result<Vec<Vec<u8>>, String> {
    let limits = hx_emu::Limits { max_wave_instructions: 100_000, schedule, races };
    let (out, _) = hx_tests::run_launch_with(bytes, "mutant", launch, seed, &limits)?;
    Ok(out.into_iter().filter(|a| a.is_buffer()).map(|a| a.bytes().to_vec()).collect())
}

/// What became of one mutant.
#[derive(Debug, PartialEq)]
enum Outcome {
    RefusedByTranslator,
    RefusedByEmulator,
    /// Its result depends on the order its waves run in.
    Racy,
    /// Translated, ran, and every buffer equals the mutant's own run.
    Same,
    /// A translation bug: the text says what differs.
    Differs(String),
}

fn judge(mutant: &[u8], launch: &hx_corpus::Launch) -> Outcome {
    let options = Options { target: GpuTarget::Gfx942, ..Default::default() };
    let translated = match std::panic::catch_unwind(|| hotswap::translate(mutant, &options)) {
        Err(_) => return Outcome::Differs("translation panicked".into()),
        Ok(Err(_)) => return Outcome::RefusedByTranslator,
        Ok(Ok(t)) => t.bytes,
    };
    let expected = match run(mutant, launch, 5, UntilBlocked) {
        Ok(e) => e,
        // Waves racing on global memory: what each reads or leaves depends on timing, and a
        // translation may order a thread's own accesses otherwise.
        Err(e) if e.contains("data race on global memory") => return Outcome::Racy,
        Err(_) => return Outcome::RefusedByEmulator,
    };
    // Waves that race on LDS (the check above covers global memory): a wave64 runs two source
    // waves in step, so their outcome may differ and neither is wrong.
    if run(mutant, launch, 5, Lockstep).ok().as_ref() != Some(&expected) {
        return Outcome::Racy;
    }
    match run(&translated, launch, 5, UntilBlocked) {
        // The translation's run-time refusal (a call to an address it has no code for).
        Err(e) if e.contains("trapped (s_trap)") => Outcome::RefusedByTranslator,
        Err(e) => Outcome::Differs(format!("the gfx1250 mutant runs, its translation does not: {e}")),
        Ok(got) => {
            for (i, (x, y)) in expected.iter().zip(&got).enumerate() {
                if let Some(p) = x.iter().zip(y).position(|(a, b)| a != b) {
                    return Outcome::Differs(format!("buffer {i} differs at byte {p}"));
                }
            }
            Outcome::Same
        }
    }
}

fn corpus_source(name: &str) -> Vec<u8> {
    std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{name}.hsaco"))).unwrap()
}

#[test]
fn mutants_translate_to_what_they_compute() {
    let per_launch: u64 = std::env::var("HX_MUTANTS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let sample: u64 = std::env::var("HX_MUTANT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut counts = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        // Thousands of VGPRs: seconds per translation, nothing a flipped bit adds.
        if obj.name == "vgpr_high" {
            continue;
        }
        let source = corpus_source(&obj.name);
        let co = hx_codeobj::CodeObject::parse(&source).unwrap();
        for (li, launch) in obj.launches.iter().enumerate() {
            let k = co.kernel(&launch.kernel).unwrap();
            let words = (k.code_size / 4) as u64;
            let mut state = 0x5eed ^ sample << 48 ^ (li as u64) << 32 ^ hx_verify::digest(obj.name.as_bytes());
            for _ in 0..per_launch {
                let at = k.code_offset as usize + 4 * (splitmix(&mut state) % words) as usize;
                let bit = (splitmix(&mut state) % 32) as u32;
                let outcome = judge(&mutant(&source, at, bit), launch);
                if let Outcome::Differs(why) = &outcome {
                    failures.push(format!("{}/{} with bit {bit} of the word at file offset {at:#x} flipped: {why}", obj.name, launch.kernel));
                }
                let name = match outcome {
                    Outcome::Differs(_) => "differ",
                    Outcome::Same => "compared equal",
                    Outcome::Racy => "racy",
                    Outcome::RefusedByEmulator => "refused by the gfx1250 emulator",
                    Outcome::RefusedByTranslator => "refused by the translator",
                };
                *counts.entry(name).or_insert(0u32) += 1;
            }
        }
    }
    eprintln!("mutants: {counts:?}");
    assert!(counts.get("compared equal").is_some_and(|&n| n > 0), "no mutant both ran and translated");
    assert!(failures.is_empty(), "{} mutants differ:\n{}", failures.len(), failures.join("\n"));
}

/// Mutants the sweeps above found (`HX_MUTANTS=120`, seeds 0 to 7), each a bug or gap fixed
/// since, and how each must come out now.
#[test]
fn mutants_found_before_stay_fixed() {
    let cases: &[(&str, &str, usize, u32, Outcome)] = &[
        // v_ldexp_f32 of an integer's bits (a signaling NaN) by an exponent LLVM knew was 0.
        ("math_f32", "math_f32", 0xc1c, 1, Outcome::Same),
        // LLVM's gfx942 code for these held VOPC SDWA (v_cmp_ne_u32_sdwa), once undecodable.
        // The first's waves store to one address unordered: the race check refuses it now (the
        // decoder's random sweep keeps VOPC SDWA covered).
        ("hidden_args", "hidden_args", 0x8c0, 25, Outcome::Racy),
        ("nested_loops", "nested_loops", 0x94c, 25, Outcome::Same),
        // s_and_not1_saveexec_b64 in wave32 code: the high dword of the saved EXEC is zero.
        ("divergent_if", "divergent_if", 0x6b0, 8, Outcome::Same),
        // ds_load of bytes an async load is still writing: not defined, refused.
        ("async_pipeline", "async_pipeline", 0x740, 6, Outcome::RefusedByEmulator),
        // A store through a PC-relative address (into the code object): the translator
        // refuses PC-relative data, which it once gave the source's address.
        ("multi_kernel", "mk_fill", 0xb60, 2, Outcome::RefusedByTranslator),
        // A store of registers whose loads were not waited for: not defined, refused.
        ("wmma_fp8", "wmma_fp8", 0x768, 17, Outcome::RefusedByEmulator),
        // v_div_scale_f32 with omod mul:2, which the raiser ignored: refused now.
        ("softmax_wave", "softmax_wave", 0x74c, 27, Outcome::RefusedByTranslator),
        // One out-of-range offset for every lane of a returning buffer atomic: each lane reads
        // 0; the target's atomic optimizer made it one atomic and gave lanes 0 plus their rank.
        // Its lanes' stores race on one address (refused now): translate_buffer.rs compares the
        // atomic's buffers alone.
        ("buffer_raw", "buffer_raw", 0x654, 19, Outcome::Racy),
        // v_fmaak_f64 on a misaligned VGPR pair (LLVM: "Invalid register"): undefined, refused
        // by both (the emulator and the raiser read the pair differently).
        ("lds_scan", "lds_scan", 0x6d0, 25, Outcome::RefusedByTranslator),
        // A load through a pointer whose high half is the kernarg segment's: it once read the
        // code object (its image sat next to the kernarg segment), which no translation keeps;
        // now it runs past the kernel arguments and faults.
        ("saxpy", "saxpy", 0x874, 24, Outcome::RefusedByEmulator),
        // v_mul_f16 by a quiet NaN literal: the canonicalize of the folded NaN reached the
        // backend, which made it the default NaN, where the hardware keeps sign and payload.
        ("f16_math", "f16_math", 0x880, 29, Outcome::Same),
        // A call to an address that is no function's entry: the translation traps there.
        ("device_call", "device_call", 0x89c, 4, Outcome::RefusedByTranslator),
        // WMMA results stored in the other order: the backend left the first WMMA's f64 MFMA
        // loop out of whole-wave mode (MFMAs under a partial EXEC); its accumulators now pass
        // through strict.wwm each iteration.
        ("wmma_f16_acc", "wmma_f16_acc", 0x91c, 1, Outcome::Same),
        ("wmma_f16_acc", "wmma_f16_acc", 0x928, 1, Outcome::Same),
        // Every thread of a work-group scaling one element in place: a race.
        ("multi_kernel", "mk_scale", 0xc3c, 22, Outcome::Racy),
        // Plain stores to one address racing with other threads' atomics on it; LLVM may order
        // a thread's own store and atomic otherwise. Found by seed 3, judged once the emulator
        // checked for races on global memory.
        ("atomics_global", "atomics_global", 0x954, 25, Outcome::Racy),
    ];
    for (name, kernel, at, bit, want) in cases {
        let obj = hx_corpus::object(name).unwrap();
        let launch = obj.launches.iter().find(|l| l.kernel == *kernel).unwrap();
        assert_eq!(&judge(&mutant(&corpus_source(name), *at, *bit), launch), want, "{name}/{kernel}, bit {bit} of the word at {at:#x}");
    }
}

/// The race checks above work: mk_scale with its thread index replaced by an unwritten
/// register makes every thread of a work-group scale the same element in place; without the
/// emulator's race check its two schedules tell it apart from the original, and the check
/// refuses it.
#[test]
fn the_schedules_and_the_race_check_expose_a_race() {
    let obj = hx_corpus::object("multi_kernel").unwrap();
    let launch = obj.launches.iter().find(|l| l.kernel == "mk_scale").unwrap();
    let source = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join("multi_kernel.hsaco")).unwrap();
    let co = hx_codeobj::CodeObject::parse(&source).unwrap();
    let k = co.kernel("mk_scale").unwrap();
    let code = co.kernel_code(k);
    let program = hotswap::isa::decode_all(hotswap::isa::Target::Gfx1250, code).unwrap();
    let at = program.iter().find(|i| i.text().starts_with("v_lshl_or_b32 v0, s3, 6, v0")).expect("mk_scale's index").offset;
    let mut racy = source.clone();
    // VSRC2 (bits 58:50 of the VOP3 word) from v0 to v16.
    racy[k.code_offset as usize + at as usize + 6] ^= 1 << 6;
    for bytes in [&source, &racy] {
        let a = run_checking(bytes, launch, 5, UntilBlocked, false).unwrap();
        let b = run_checking(bytes, launch, 5, Lockstep, false).unwrap();
        assert_eq!(a == b, bytes == &source, "the schedules agree on the racy mutant or differ on the original");
    }
    run(&source, launch, 5, UntilBlocked).expect("the original is race-free");
    let e = run(&racy, launch, 5, UntilBlocked).unwrap_err();
    assert!(e.contains("data race on global memory"), "{e}");
}
