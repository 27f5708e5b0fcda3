//! Two source work-groups per target wave64 (`hotswap::Options::pair_groups`, issue 31): Triton's
//! `num_warps=1` kernels run one gfx1250 wave32 per work-group, which on wave64 leaves half of
//! every wave empty. Paired, target work-group b runs source work-groups 2b and 2b + 1, and the
//! runtime doubles the dispatch's work-group and grid x extents (the HotSwap runtime's scaled
//! dispatch, which the emulator applies from the kernel's `.hotswap_dispatch_scale`).
//!
//! Every corpus/triton object whose gfx1250 work-groups are one wave is translated with pairing
//! on, for gfx942 and gfx950. The ones pairing accepts must compute the suite's reference with
//! the gfx1250 launch, carry the scale in their metadata and execute fewer wave-instructions
//! than unpaired; the ones it does not accept must come out exactly as without the option. Launches the scaled dispatch does not match (a runtime that did not scale
//! it, a partial grid) are checked separately.

use hotswap::GpuTarget;

/// The corpus/triton objects with one-wave work-groups that pairing must accept (no LDS, no
/// dispatch packet reads); the other one-wave objects (WMMA and TDM kernels, transposes: all
/// use LDS) must be left as they are.
const PAIRED: &[&str] = &[
    "cumsum_w1",
    "dropout_w1",
    "elementwise_math_w1",
    "embedding_gather_w1",
    "histogram_w1",
    "layer_norm_w1",
    "row_sum_max_w1",
    "softmax_w1",
    "vec_add_w1",
    "fp8_cast_w1",
    "gelu_tanh_w1",
    "half_math_w1",
    "int4_dequant_w1",
    "libm_f64_w1",
    "rmsnorm_f16_w1",
    "softmax_f16_w1",
    "bf16_math_w1",
];

fn options(target: GpuTarget, pair_groups: bool) -> hotswap::Options {
    hotswap::Options {
        target,
        pair_groups,
        ..Default::default()
    }
}

fn scale_of(bytes: &[u8], kernel: &str) -> u32 {
    let co = hotswap::codeobj::CodeObject::parse(bytes).unwrap();
    co.metadata
        .as_ref()
        .and_then(|m| m.kernel(kernel))
        .map(|k| k.dispatch_scale())
        .unwrap()
}

/// (source wave-instructions paired, unpaired) of one object's launches, after checking the
/// paired translation computes the reference.
fn check(obj: &hx_corpus::CompiledObject, target: GpuTarget) -> Result<Option<(u64, u64)>, String> {
    let source = std::fs::read(obj.object_path("gfx1250")).map_err(|e| e.to_string())?;
    let paired =
        hotswap::translate(&source, &options(target, true)).map_err(|e| format!("refused: {e}"))?;
    let plain = hotswap::translate(&source, &options(target, false))
        .map_err(|e| format!("refused unpaired: {e}"))?;
    let kernel = &obj.launches[0].kernel;
    let scale = scale_of(&paired.bytes, kernel);
    if !PAIRED.contains(&obj.name.as_str()) {
        if scale != 1 || paired.bytes != plain.bytes {
            return Err(format!("paired (scale {scale}), but PAIRED does not list it (the one-wave kernels expected to stay unpaired use LDS)"));
        }
        return Ok(None);
    }
    if scale != 2 {
        return Err(format!("not paired (dispatch scale {scale})"));
    }
    let (mut paired_insts, mut plain_insts) = (0, 0);
    for launch in &obj.launches {
        let label = format!("{target}/{}", obj.id());
        let (out, stats) = hx_tests::run_launch_bytes(&paired.bytes, &label, launch, 0)?;
        hx_corpus::compare_expected(launch, &out).map_err(|e| format!("differs: {e}"))?;
        let (_, plain_stats) = hx_tests::run_launch_bytes(&plain.bytes, &label, launch, 0)?;
        paired_insts += stats.total();
        plain_insts += plain_stats.total();
    }
    println!(
        "{}@{target}: {paired_insts} wave-instructions paired, {plain_insts} unpaired",
        obj.name
    );
    Ok(Some((paired_insts, plain_insts)))
}

#[test]
fn one_wave_triton_kernels_pair_and_compute_their_references() {
    let objects = hx_corpus::compiled_suite("triton").unwrap();
    let jobs: Vec<(&hx_corpus::CompiledObject, GpuTarget)> = objects
        .iter()
        .filter(|o| {
            o.targets.iter().any(|t| t == "gfx1250")
                && o.launches.iter().all(|l| l.block == [32, 1, 1])
        })
        .flat_map(|o| [GpuTarget::Gfx942, GpuTarget::Gfx950].map(|t| (o, t)))
        .collect();
    assert!(
        jobs.len() >= 2 * PAIRED.len(),
        "{} one-wave objects",
        jobs.len() / 2
    );
    let results = hx_tests::on_two_threads(&jobs, |&(obj, target)| {
        check(obj, target).map_err(|e| format!("{}@{target}: {e}", obj.name))
    });
    let failures: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let counts: Vec<(u64, u64)> = results
        .into_iter()
        .filter_map(|r| r.ok().flatten())
        .collect();
    assert_eq!(counts.len(), 2 * PAIRED.len());
    // Over the set, half-empty waves cost more than the pairing's divergent work-group IDs (the
    // per-kernel counts are in BENCHMARKS.md; a few kernels lose).
    let (paired, plain) = counts.iter().fold((0, 0), |(p, q), (a, b)| (p + a, q + b));
    assert!(
        paired < plain,
        "{paired} wave-instructions paired, {plain} unpaired"
    );
}

/// Triton's vec_add_w1: the object, its gfx1250 bytes and their paired gfx942 translation.
fn paired_vec_add() -> (hx_corpus::CompiledObject, Vec<u8>, Vec<u8>) {
    let obj = hx_corpus::compiled_suite("triton")
        .unwrap()
        .into_iter()
        .find(|o| o.name == "vec_add_w1")
        .unwrap();
    let source = std::fs::read(obj.object_path("gfx1250")).unwrap();
    let paired = hotswap::translate(&source, &options(GpuTarget::Gfx942, true)).unwrap();
    (obj, source, paired.bytes)
}

/// A launch the scaled dispatch does not describe must not compute anything: the paired
/// translation run with the source's packet (a runtime that ignored the scale) traps.
#[test]
fn an_unscaled_dispatch_traps() {
    let (obj, _, paired) = paired_vec_add();
    // A runtime that ignored the scale: the packet as the source's launch (work-groups of 32).
    let co = hotswap::codeobj::CodeObject::parse(&paired).unwrap();
    let l = &obj.launches[0];
    let args = hx_tests::launch_args(l, 0);
    let d = hx_emu::Dispatch {
        grid: l.grid,
        block: l.block,
        dynamic_lds: l.dynamic_lds,
    };
    let err =
        hx_emu::launch::launch_packet(&co, &l.kernel, &d, &d, &args, &hx_emu::Limits::default())
            .unwrap_err();
    assert!(err.to_string().contains("trap"), "{err}");
}

/// Grids whose last source work-group has no partner (an odd number of groups): the threads
/// past the source grid do nothing, the others compute what the source computes.
#[test]
fn odd_grids() {
    let (obj, source, paired) = paired_vec_add();
    for groups in [1u32, 3, 127] {
        let mut l = obj.launches[0].clone();
        l.grid = [groups * 32, 1, 1];
        let (a, _) = hx_tests::run_launch_bytes(&source, "source", &l, 7).unwrap();
        let (b, _) = hx_tests::run_launch_bytes(&paired, "paired", &l, 7).unwrap();
        assert!(
            a == b,
            "{groups} work-groups: the paired translation differs from the source"
        );
    }
}
