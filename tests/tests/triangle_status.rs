//! The first two sides of the verification triangle (DESIGN.md): every corpus launch run in the
//! emulator for gfx1250, gfx942 and gfx950; the three results must be bit-identical and equal to
//! the Rust reference (within the launch's stated tolerance for approximate ops).
//!
//! Not every kernel runs yet (decoder formats and semantics are still being added), so this test
//! checks every kernel that runs on all three targets, and requires the ones listed in
//! `MUST_PASS` to run. Run with `--nocapture` to see the status of each launch.

use hx_llvm::GpuTarget;
use hx_tests::run_corpus_launch;

/// Launches that must run on every target they are built for and agree: grows as the emulator
/// and decoder grow.
const MUST_PASS: &[&str] = &[
    "async_pipeline/async_pipeline",
    "atomics_global/atomics_global",
    "atomics_lds/atomics_lds",
    "cache_policy/cache_policy",
    "cluster_barrier/cluster_barrier",
    "convert_f32/convert_f32",
    "device_call/device_call",
    "divergent_if/divergent_if",
    "dyn_lds/dyn_lds",
    "f16_math/f16_math",
    "f64_math/f64_math",
    "fp8_quant/fp8_quant",
    "grid2d/grid2d",
    "grid3d/grid3d",
    "hidden_args/hidden_args",
    "int64_math/int64_math",
    "int_div/int_div32",
    "int_div/int_div64",
    "lds_bitonic/lds_bitonic",
    "lds_matmul/lds_matmul",
    "lds_reduce/lds_reduce",
    "lds_scan/lds_scan",
    "lds_transpose/lds_transpose",
    "math_f32/math_f32",
    "multi_kernel/mk_blocksum",
    "multi_kernel/mk_fill",
    "multi_kernel/mk_scale",
    "nested_loops/nested_loops",
    "pk_f32/pk_f32",
    "saxpy/saxpy",
    "scratch_array/scratch_array",
    "split_barrier/split_barrier",
    "softmax_wave/softmax_wave",
    "uniform_branch/uniform_branch",
    "vgpr_high/vgpr_high",
    "wave_ballot/wave_ballot",
    "wave_ballot/wave_compact",
    "wmma_bf16/wmma_bf16",
    "wmma_f16/wmma_f16",
    "wmma_f16_acc/wmma_f16_acc",
    "wmma_f32/wmma_f32",
    "wmma_fp4/wmma_fp4",
    "wmma_fp8/wmma_fp8",
    "wmma_iu8/wmma_iu8",
    "wave_dpp/wave_dpp",
    "wave_permute/wave_permute",
];

/// (launch, target) pairs that must run and match the reference today.
const MUST_MATCH_REFERENCE: &[(&str, &str)] = &[
    ("async_pipeline/async_pipeline", "gfx1250"),
    ("atomics_global/atomics_global", "gfx1250"),
    ("atomics_lds/atomics_lds", "gfx1250"),
    ("cache_policy/cache_policy", "gfx1250"),
    ("cluster_barrier/cluster_barrier", "gfx1250"),
    ("atomics_global/atomics_global", "gfx942"),
    ("atomics_global/atomics_global", "gfx950"),
    ("atomics_lds/atomics_lds", "gfx942"),
    ("atomics_lds/atomics_lds", "gfx950"),
    ("bf16_math/bf16_math", "gfx1250"),
    ("bf16_math/bf16_math", "gfx942"),
    ("convert_f32/convert_f32", "gfx1250"),
    ("bf16_math/bf16_math", "gfx950"),
    ("buffer_raw/buffer_raw", "gfx1250"),
    ("buffer_raw/buffer_raw", "gfx942"),
    ("buffer_raw/buffer_raw", "gfx950"),
    ("convert_f32/convert_f32", "gfx942"),
    ("convert_f32/convert_f32", "gfx950"),
    ("device_call/device_call", "gfx1250"),
    ("device_call/device_call", "gfx942"),
    ("device_call/device_call", "gfx950"),
    ("divergent_if/divergent_if", "gfx1250"),
    ("divergent_if/divergent_if", "gfx942"),
    ("divergent_if/divergent_if", "gfx950"),
    ("dyn_lds/dyn_lds", "gfx1250"),
    ("dyn_lds/dyn_lds", "gfx942"),
    ("dyn_lds/dyn_lds", "gfx950"),
    ("f16_math/f16_math", "gfx1250"),
    ("f16_math/f16_math", "gfx942"),
    ("f16_math/f16_math", "gfx950"),
    ("f64_math/f64_math", "gfx1250"),
    ("f64_math/f64_math", "gfx942"),
    ("f64_math/f64_math", "gfx950"),
    ("fp8_quant/fp8_quant", "gfx1250"),
    ("grid2d/grid2d", "gfx1250"),
    ("grid2d/grid2d", "gfx942"),
    ("grid2d/grid2d", "gfx950"),
    ("grid3d/grid3d", "gfx1250"),
    ("grid3d/grid3d", "gfx942"),
    ("grid3d/grid3d", "gfx950"),
    ("hidden_args/hidden_args", "gfx1250"),
    ("hidden_args/hidden_args", "gfx942"),
    ("hidden_args/hidden_args", "gfx950"),
    ("int64_math/int64_math", "gfx1250"),
    ("int64_math/int64_math", "gfx942"),
    ("int64_math/int64_math", "gfx950"),
    ("int_div/int_div32", "gfx1250"),
    ("int_div/int_div32", "gfx942"),
    ("int_div/int_div32", "gfx950"),
    ("int_div/int_div64", "gfx1250"),
    ("int_div/int_div64", "gfx942"),
    ("int_div/int_div64", "gfx950"),
    ("lds_bitonic/lds_bitonic", "gfx1250"),
    ("lds_bitonic/lds_bitonic", "gfx942"),
    ("lds_bitonic/lds_bitonic", "gfx950"),
    ("lds_matmul/lds_matmul", "gfx1250"),
    ("lds_matmul/lds_matmul", "gfx942"),
    ("lds_matmul/lds_matmul", "gfx950"),
    ("lds_reduce/lds_reduce", "gfx1250"),
    ("lds_reduce/lds_reduce", "gfx942"),
    ("lds_reduce/lds_reduce", "gfx950"),
    ("lds_scan/lds_scan", "gfx1250"),
    ("lds_scan/lds_scan", "gfx942"),
    ("lds_scan/lds_scan", "gfx950"),
    ("lds_transpose/lds_transpose", "gfx1250"),
    ("lds_transpose/lds_transpose", "gfx942"),
    ("lds_transpose/lds_transpose", "gfx950"),
    ("math_f32/math_f32", "gfx1250"),
    ("math_f32/math_f32", "gfx942"),
    ("math_f32/math_f32", "gfx950"),
    ("multi_kernel/mk_blocksum", "gfx1250"),
    ("multi_kernel/mk_blocksum", "gfx942"),
    ("multi_kernel/mk_blocksum", "gfx950"),
    ("multi_kernel/mk_fill", "gfx1250"),
    ("multi_kernel/mk_fill", "gfx942"),
    ("multi_kernel/mk_fill", "gfx950"),
    ("multi_kernel/mk_scale", "gfx1250"),
    ("multi_kernel/mk_scale", "gfx942"),
    ("multi_kernel/mk_scale", "gfx950"),
    ("nested_loops/nested_loops", "gfx1250"),
    ("nested_loops/nested_loops", "gfx942"),
    ("nested_loops/nested_loops", "gfx950"),
    ("pk_f32/pk_f32", "gfx1250"),
    ("pk_f32/pk_f32", "gfx942"),
    ("pk_f32/pk_f32", "gfx950"),
    ("saxpy/saxpy", "gfx1250"),
    ("saxpy/saxpy", "gfx942"),
    ("saxpy/saxpy", "gfx950"),
    ("scratch_array/scratch_array", "gfx1250"),
    ("scratch_array/scratch_array", "gfx942"),
    ("scratch_array/scratch_array", "gfx950"),
    ("split_barrier/split_barrier", "gfx1250"),
    ("softmax_wave/softmax_wave", "gfx1250"),
    ("uniform_branch/uniform_branch", "gfx1250"),
    ("uniform_branch/uniform_branch", "gfx942"),
    ("uniform_branch/uniform_branch", "gfx950"),
    ("vgpr_high/vgpr_high", "gfx1250"),
    ("vgpr_high/vgpr_high", "gfx942"),
    ("vgpr_high/vgpr_high", "gfx950"),
    ("wave_ballot/wave_ballot", "gfx1250"),
    ("wave_ballot/wave_ballot", "gfx942"),
    ("wave_ballot/wave_ballot", "gfx950"),
    ("wave_ballot/wave_compact", "gfx1250"),
    ("wave_ballot/wave_compact", "gfx942"),
    ("wave_ballot/wave_compact", "gfx950"),
    ("wmma_bf16/wmma_bf16", "gfx1250"),
    ("wmma_f16/wmma_f16", "gfx1250"),
    ("wmma_f16_acc/wmma_f16_acc", "gfx1250"),
    ("wmma_f32/wmma_f32", "gfx1250"),
    ("wmma_fp4/wmma_fp4", "gfx1250"),
    ("wmma_fp8/wmma_fp8", "gfx1250"),
    ("wmma_iu8/wmma_iu8", "gfx1250"),
    ("wave_dpp/wave_dpp", "gfx1250"),
    ("wave_dpp/wave_dpp", "gfx942"),
    ("wave_dpp/wave_dpp", "gfx950"),
    ("wave_permute/wave_permute", "gfx1250"),
    ("wave_permute/wave_permute", "gfx942"),
    ("wave_permute/wave_permute", "gfx950"),
];

#[test]
fn emulated_targets_agree_with_each_other_and_the_reference() {
    let mut failures = Vec::new();
    let mut passed = Vec::new();
    let mut matched: Vec<(String, &'static str)> = Vec::new();
    for obj in hx_corpus::objects().unwrap() {
        for launch in &obj.launches {
            let id = format!("{}/{}", obj.name, launch.kernel);
            let seed = 7;
            let inputs = hx_corpus::make_inputs(launch, seed);
            let expected = hx_corpus::reference(&obj.name, launch, &inputs).unwrap();
            // gfx1250-only kernels have no native gfx942/gfx950 build: the reference is the oracle.
            let runs: Vec<_> = GpuTarget::ALL
                .iter()
                .filter(|t| obj.builds_for(t.cpu()))
                .map(|&t| (t, run_corpus_launch(t, &obj.name, launch, seed)))
                .collect();
            let mut ok = true;
            for (t, r) in &runs {
                match r {
                    Err(e) => {
                        ok = false;
                        eprintln!("not yet: {id} on {t}: {e}");
                    }
                    Ok((out, _)) => match hx_corpus::compare_outputs(launch, &expected, out) {
                        Err(e) => {
                            failures.push(format!("{id} on {t} differs from the reference: {e}"));
                            ok = false;
                        }
                        Ok(()) => matched.push((id.clone(), t.cpu())),
                    },
                }
            }
            // Where every built target ran, they must agree bit for bit (A == B).
            let outs: Vec<_> = runs.iter().filter_map(|(t, r)| r.as_ref().ok().map(|(o, _)| (t, o))).collect();
            if outs.len() == runs.len() {
                for (i, spec) in launch.args.iter().enumerate().filter(|(_, s)| s.output) {
                    if outs.windows(2).any(|w| w[0].1[i].bytes() != w[1].1[i].bytes()) {
                        failures.push(format!("{id}: output {} differs between the emulated targets", spec.name));
                        ok = false;
                    }
                }
            }
            if ok {
                passed.push(id.clone());
            } else if MUST_PASS.contains(&id.as_str()) {
                failures.push(format!("{id} is listed as passing but did not run on every target"));
            }
        }
    }
    eprintln!("{} launches agree on all three targets: {passed:?}", passed.len());
    eprintln!("{} (launch, target) runs match the reference: {matched:?}", matched.len());
    for (id, t) in MUST_MATCH_REFERENCE {
        if !matched.iter().any(|(m, mt)| m == id && mt == t) {
            failures.push(format!("{id} on {t} is listed as matching the reference but did not"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
