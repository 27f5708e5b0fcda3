//! Kernels of very many blocks are lowered as a kernel that calls its parts (hx-llvm's
//! `split_parts`, issue 29): each part is a function of bounded size, so that LLVM's passes that
//! grow faster than a function see bounded functions. These tests check that the split keeps
//! what the kernel computes, bit for bit in the emulator:
//! - a generated kernel of 800 divergent if-elses (values merging at every join, an LDS array,
//!   a uniform loop in the middle) is split at the default bounds and matches its gfx1250
//!   original;
//! - real compilers' kernels (corpus/hip, and Triton's with loops, LDS, reductions, atomics and
//!   one-wave work-groups) split into parts of a few blocks each still compute their references;
//! - so do the hand-written corpus' kernels (device functions, scratch, WMMA, DPP, atomics...),
//!   bit for bit against their gfx1250 originals.
//!
//! The time it saves is measured by `hx-scale` (BENCHMARKS.md section 12), not here.

use hotswap::{GpuTarget, Options};
use hx_lower::SizeBounds;
use std::fmt::Write;

/// A gfx1250 kernel `k(in, out, n)`: `units` divergent if-elses on `in[tid * units + i] & 1`,
/// the then side adding a volatile LDS read, the else side xoring the unit's index, into one
/// accumulator (a phi at every join); every 300 units a uniform loop of `n` rounds.
fn branchy_kernel(units: usize) -> Vec<u8> {
    let mut s = String::from(
        "@lds = internal addrspace(3) global [64 x i32] poison, align 4
define amdgpu_kernel void @k(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %lane = and i32 %tid, 63
  %lp = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %lane
  %seed = mul i32 %tid, 7
  store i32 %seed, ptr addrspace(3) %lp
  call void @llvm.amdgcn.s.barrier()
",
    );
    let _ = write!(
        s,
        "  %row = mul i32 %tid, {units}
  %rowe = zext i32 %row to i64
  %base = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %rowe
  br label %u0
"
    );
    let mut acc = "0".to_string();
    let mut from = vec!["entry".to_string()];
    for i in 0..units {
        // The block u{i} starts with the merged accumulator.
        let phi = if from.len() == 1 {
            format!("  %acc{i} = phi i32 [ {acc}, %{} ]\n", from[0])
        } else {
            format!("  %acc{i} = phi i32 [ %a{j}, %t{j} ], [ %b{j}, %e{j} ]\n", j = i - 1)
        };
        let _ = write!(s, "u{i}:\n{phi}");
        acc = format!("%acc{i}");
        if i % 300 == 150 {
            // A uniform loop: acc = acc * 3 + j for j < n.
            let _ = write!(
                s,
                "  br label %l{i}
l{i}:
  %j{i} = phi i32 [ 0, %u{i} ], [ %jn{i}, %l{i} ]
  %x{i} = phi i32 [ %acc{i}, %u{i} ], [ %xn{i}, %l{i} ]
  %m{i} = mul i32 %x{i}, 3
  %xn{i} = add i32 %m{i}, %j{i}
  %jn{i} = add i32 %j{i}, 1
  %lc{i} = icmp slt i32 %jn{i}, %n
  br i1 %lc{i}, label %l{i}, label %w{i}
w{i}:
"
            );
            acc = format!("%xn{i}");
        }
        let _ = write!(
            s,
            "  %p{i} = getelementptr inbounds i32, ptr addrspace(1) %base, i64 {i}
  %c{i} = load volatile i32, ptr addrspace(1) %p{i}, align 4
  %odd{i} = and i32 %c{i}, 1
  %cc{i} = icmp ne i32 %odd{i}, 0
  br i1 %cc{i}, label %t{i}, label %e{i}
t{i}:
  %li{i} = add i32 %tid, {i}
  %lm{i} = and i32 %li{i}, 63
  %lq{i} = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %lm{i}
  %lv{i} = load volatile i32, ptr addrspace(3) %lq{i}, align 4
  %a{i} = add i32 {acc}, %lv{i}
  br label %u{next}
e{i}:
  %b{i} = xor i32 {acc}, {i}
  br label %u{next}
",
            next = i + 1
        );
        from = vec![format!("t{i}"), format!("e{i}")];
    }
    let _ = write!(
        s,
        "u{units}:
  %fin = phi i32 [ %a{j}, %t{j} ], [ %b{j}, %e{j} ]
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %fin, ptr addrspace(1) %op, align 4
  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,256\" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}
",
        j = units - 1
    );
    let ir = format!("target triple = \"amdgcn-amd-amdhsa\"\n{s}");
    let rel = hx_llvm::compile_ir(&ir, "branchy", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap();
    hx_relink::link(&rel).unwrap()
}

/// Whether a translated object has a function named like a part of a split kernel.
fn has_parts(bytes: &[u8]) -> bool {
    bytes.windows(6).any(|w| w == b".part1")
}

#[test]
fn a_kernel_of_many_blocks_is_split_and_computes_what_it_did() {
    let units = 800;
    let source = branchy_kernel(units);
    let run = hx_verify::RunOptions {
        grid: [128, 1, 1],
        block: Some([64, 1, 1]),
        dynamic_lds: 0,
        seed: 3,
        buffer_bytes: 128 * units * 4,
        values: vec![("n".into(), 5)],
        limits: Default::default(),
    };
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let options = Options { target, ..Default::default() };
        let t = hotswap::translate(&source, &options).unwrap();
        assert!(has_parts(&t.bytes), "{target}: the kernel of {units} if-elses was not split");
        let unsplit = Options { size_bounds: SizeBounds::NO_SPLIT, ..options.clone() };
        assert!(!has_parts(&hotswap::translate(&source, &unsplit).unwrap().bytes), "{target}: split although the bound is off");
        let report = hx_verify::verify_translation(&source, &t.bytes, &run, None).unwrap();
        assert!(report.all_match(), "{target}: {:?}", report.checks);
        // Both buffers are compared (in is only read, out holds every thread's result).
        assert_eq!(report.checks.len(), 2, "{target}: {:?}", report.checks);
    }
}

/// Parts of about 3 blocks from kernels of more than 4: every branchy real kernel is split,
/// most of them at many places.
const TINY: SizeBounds = SizeBounds { split_blocks: 4, part_blocks: 3, part_instructions: 40, ..SizeBounds::DEFAULT };

fn translate_tiny_and_run(obj: &hx_corpus::CompiledObject, target: GpuTarget) -> Result<bool, String> {
    let source = std::fs::read(obj.object_path("gfx1250")).map_err(|e| e.to_string())?;
    let t = hotswap::translate(&source, &Options { target, size_bounds: TINY, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
    for launch in &obj.launches {
        let (out, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("{target}/{}", obj.id()), launch, 0)?;
        hx_corpus::compare_expected(launch, &out).map_err(|e| format!("differs: {e}"))?;
    }
    Ok(has_parts(&t.bytes))
}

#[test]
fn real_kernels_split_into_tiny_parts_compute_their_references() {
    const TRITON: &[&str] = &[
        "cumsum_w4",
        "histogram_w4",
        "layer_norm_w4",
        "softmax_w8",
        "dropout_w1",
        "row_sum_max_w4",
        "matmul_f16_32_s3_w4",
        "embedding_gather_w8",
    ];
    let mut jobs = Vec::new();
    for obj in hx_corpus::compiled_suite("hip").unwrap() {
        if obj.targets.iter().any(|t| t == "gfx1250") {
            jobs.push(obj);
        }
    }
    for obj in hx_corpus::compiled_suite("triton").unwrap() {
        if TRITON.contains(&obj.name.as_str()) {
            jobs.push(obj);
        }
    }
    assert!(jobs.len() >= 19 + TRITON.len(), "{} objects", jobs.len());
    let split = check_all(&jobs, |o| &o.name, |o| translate_tiny_and_run(o, GpuTarget::Gfx942));
    assert!(split >= jobs.len() / 2, "only {split} of {} objects were split at the tiny bounds", jobs.len());
}

/// A hand-written corpus object translated for gfx950 at the tiny bounds: every launch's outputs
/// equal the gfx1250 original's; whether the translation was split.
fn translate_tiny_and_compare(obj: &hx_corpus::CorpusObject) -> Result<bool, String> {
    let path = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name));
    let source = std::fs::read(&path).map_err(|e| e.to_string())?;
    let t = hotswap::translate(&source, &Options { target: GpuTarget::Gfx950, size_bounds: TINY, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
    for launch in &obj.launches {
        let seed = 5;
        let (got, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("gfx950/{}(split)", obj.name), launch, seed)?;
        let (orig, _) = hx_tests::run_corpus_launch(GpuTarget::Gfx1250, &obj.name, launch, seed)?;
        for (i, spec) in launch.args.iter().enumerate().filter(|(_, s)| s.output) {
            if orig[i].bytes() != got[i].bytes() {
                return Err(format!("{}: output {} differs from the gfx1250 original", launch.kernel, spec.name));
            }
        }
    }
    Ok(has_parts(&t.bytes))
}

/// Runs `check` on every item (two threads), fails with every item that failed, and returns how
/// many were split.
fn check_all<T: Sync>(items: &[T], name: impl Fn(&T) -> &str, check: impl Fn(&T) -> Result<bool, String> + Sync) -> usize {
    let results = hx_tests::on_two_threads(items, check);
    let failures: Vec<String> = items.iter().zip(&results).filter_map(|(o, r)| r.as_ref().err().map(|e| format!("{}: {e}", name(o)))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let split = results.iter().filter(|r| matches!(r, Ok(true))).count();
    println!("{split} of {} objects were split", items.len());
    split
}

#[test]
fn hand_written_kernels_split_into_tiny_parts_match_their_originals() {
    let objects: Vec<hx_corpus::CorpusObject> = hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")).collect();
    assert!(objects.len() >= 40, "{} objects", objects.len());
    let split = check_all(&objects, |o| &o.name, translate_tiny_and_compare);
    // (Many are a block or two: only those of more than 4 raised blocks are split.)
    assert!(split >= objects.len() / 3, "only {split} of {} objects were split at the tiny bounds", objects.len());
}
