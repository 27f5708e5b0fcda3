//! The third side of the verification triangle (DESIGN.md): every gfx1250 corpus object is
//! translated in-process to gfx942 and gfx950; where that succeeds, every launch of the
//! translation runs in the emulator and must give memory bit-identical to the gfx1250 original
//! (and match the Rust reference). Objects the translator does not handle yet fail closed with a
//! named error; the ones listed in MUST_TRANSLATE must translate and verify.

use hotswap::{GpuTarget, Options};
use hx_tests::{run_corpus_launch, run_launch_bytes};

/// (object, target) pairs that must translate and whose every launch must verify.
const MUST_TRANSLATE: &[(&str, &str)] = &[
    ("async_pipeline", "gfx942"),
    ("async_pipeline", "gfx950"),
    ("atomics_global", "gfx942"),
    ("atomics_global", "gfx950"),
    ("atomics_lds", "gfx942"),
    ("atomics_lds", "gfx950"),
    ("bf16_math", "gfx942"),
    ("bf16_math", "gfx950"),
    // Its gfx942/gfx950 translations carry buffer_inv/buffer_wbl2 (MUBUF cache control).
    ("cache_policy", "gfx942"),
    ("cache_policy", "gfx950"),
    // Cluster IDs and the cluster barrier: each work-group a cluster of one (README).
    ("cluster_barrier", "gfx942"),
    ("cluster_barrier", "gfx950"),
    ("convert_f32", "gfx942"),
    ("convert_f32", "gfx950"),
    ("device_call", "gfx942"),
    ("device_call", "gfx950"),
    ("divergent_if", "gfx942"),
    ("divergent_if", "gfx950"),
    ("dyn_lds", "gfx942"),
    ("dyn_lds", "gfx950"),
    ("f16_math", "gfx942"),
    ("f16_math", "gfx950"),
    ("f64_math", "gfx942"),
    ("f64_math", "gfx950"),
    ("fp8_quant", "gfx942"),
    ("fp8_quant", "gfx950"),
    ("grid2d", "gfx942"),
    ("grid2d", "gfx950"),
    ("grid3d", "gfx942"),
    ("grid3d", "gfx950"),
    ("hidden_args", "gfx942"),
    ("hidden_args", "gfx950"),
    ("int64_math", "gfx942"),
    ("int64_math", "gfx950"),
    ("int_div", "gfx942"),
    ("int_div", "gfx950"),
    ("lds_bitonic", "gfx942"),
    ("lds_bitonic", "gfx950"),
    ("lds_matmul", "gfx942"),
    ("lds_matmul", "gfx950"),
    ("lds_reduce", "gfx942"),
    ("lds_reduce", "gfx950"),
    ("lds_scan", "gfx942"),
    ("lds_scan", "gfx950"),
    ("lds_transpose", "gfx942"),
    ("lds_transpose", "gfx950"),
    ("math_f32", "gfx942"),
    ("math_f32", "gfx950"),
    ("multi_kernel", "gfx942"),
    ("multi_kernel", "gfx950"),
    ("nested_loops", "gfx942"),
    ("nested_loops", "gfx950"),
    ("pk_f32", "gfx942"),
    ("pk_f32", "gfx950"),
    ("saxpy", "gfx942"),
    ("saxpy", "gfx950"),
    ("scratch_array", "gfx942"),
    ("scratch_array", "gfx950"),
    ("split_barrier", "gfx942"),
    ("split_barrier", "gfx950"),
    ("softmax_wave", "gfx942"),
    ("softmax_wave", "gfx950"),
    ("uniform_branch", "gfx942"),
    ("uniform_branch", "gfx950"),
    // vgpr_high: its volatile loads (SCOPE_SYS) are raised volatile again, so the target keeps
    // all 300 values live as the native gfx942/gfx950 builds do, in AGPRs; verification waits on
    // the emulator's decoding of v_accvgpr_read/write (as does the native gfx942 build's).
    ("wave_ballot", "gfx942"),
    ("wave_ballot", "gfx950"),
    ("wmma_f32", "gfx942"),
    ("wmma_f32", "gfx950"),
    // The backend spills to AGPRs in these (v_accvgpr_write/read_b32); wmma_f16* also use
    // v_cvt_f32_f16_sdwa.
    ("wmma_bf16", "gfx942"),
    ("wmma_bf16", "gfx950"),
    ("wmma_f16", "gfx942"),
    ("wmma_f16", "gfx950"),
    ("wmma_f16_acc", "gfx942"),
    ("wmma_f16_acc", "gfx950"),
    ("wmma_fp4", "gfx942"),
    ("wmma_fp4", "gfx950"),
    ("wmma_fp8", "gfx942"),
    ("wmma_fp8", "gfx950"),
    ("wmma_iu8", "gfx942"),
    ("wmma_iu8", "gfx950"),
    ("wave_dpp", "gfx942"),
    ("wave_dpp", "gfx950"),
    ("wave_permute", "gfx942"),
    ("wave_permute", "gfx950"),
];

#[test]
fn translations_compute_what_the_source_computes() {
    let mut failures = Vec::new();
    let mut verified = Vec::new();
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        let path = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name));
        let source = std::fs::read(&path).unwrap();
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = Options { target, ..Default::default() };
            let translated = match hotswap::translate(&source, &options) {
                Ok(t) => t.bytes,
                Err(e) => {
                    eprintln!("not translated: {} for {target}: {e}", obj.name);
                    if MUST_TRANSLATE.contains(&(obj.name.as_str(), target.cpu())) {
                        failures.push(format!("{} for {target} must translate: {e}", obj.name));
                    }
                    continue;
                }
            };
            // Deterministic: the same input and options give the same bytes.
            assert_eq!(hotswap::translate(&source, &options).unwrap().bytes, translated, "{} for {target}", obj.name);
            let co = hotswap::codeobj::CodeObject::parse(&translated).unwrap();
            assert_eq!(co.processor(), Some(target.cpu()));
            let mut ok = true;
            for launch in &obj.launches {
                let seed = 11;
                let inputs = hx_corpus::make_inputs(launch, seed);
                let expected = hx_corpus::reference(&obj.name, launch, &inputs).unwrap();
                let got = match run_launch_bytes(&translated, &format!("{target}/{}(translated)", obj.name), launch, seed) {
                    Ok((out, _)) => out,
                    Err(e) => {
                        // The emulator cannot run every target instruction yet (decoder formats):
                        // such a translation is not verified, and not counted as one.
                        eprintln!("not verifiable yet: {}/{} translated for {target}: {e}", obj.name, launch.kernel);
                        ok = false;
                        continue;
                    }
                };
                if let Err(e) = hx_corpus::compare_outputs(launch, &expected, &got) {
                    failures.push(format!("{}/{} translated for {target} differs from the reference: {e}", obj.name, launch.kernel));
                    ok = false;
                }
                // C == A: bit for bit against the gfx1250 original in the emulator, where it runs.
                if let Ok((orig, _)) = run_corpus_launch(GpuTarget::Gfx1250, &obj.name, launch, seed) {
                    for (i, spec) in launch.args.iter().enumerate().filter(|(_, s)| s.output) {
                        if orig[i].bytes() != got[i].bytes() {
                            failures.push(format!("{}/{}: output {} of the {target} translation differs from gfx1250", obj.name, launch.kernel, spec.name));
                            ok = false;
                        }
                    }
                }
            }
            if ok {
                verified.push((obj.name.clone(), target.cpu()));
            }
        }
    }
    eprintln!("{} (object, target) translations verified: {verified:?}", verified.len());
    for (o, t) in MUST_TRANSLATE {
        if !verified.iter().any(|(vo, vt)| vo == o && vt == t) {
            failures.push(format!("{o} for {t} is listed as verified but was not"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
