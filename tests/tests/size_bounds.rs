//! The size-dependent lowering of issue 29 (hx-lower's `SizeBounds`): very long blocks are
//! scheduled as bounded regions (`llvm.amdgcn.sched.barrier(i32 0)` every so many
//! instructions), functions of very many blocks skip `si-form-memory-clauses`, and functions of
//! very many instructions get a single-pass machine scheduler and skip SLSR (issue 26). Normal corpus
//! kernels must lower to the same bytes as with no bound at all; large generated kernels must get
//! the change. Assertions are on the IR and the objects, never on time (the time is measured by
//! `hx-scale`, BENCHMARKS.md section 12).

use hotswap::{GpuTarget, Options};
use hx_lower::{huge_function_lowerings, lower_ir_bounded, many_block_lowerings, pipeline_status, Codegen, Emit, LowerOptions, SizeBounds};
use std::fmt::Write;

const BARRIER: &str = "call void @llvm.amdgcn.sched.barrier(i32 0)";

fn lower(ir: &str, name: &str, emit: Emit, bounds: &SizeBounds) -> Vec<u8> {
    let o = LowerOptions::new(GpuTarget::Gfx942);
    lower_ir_bounded(ir, name, &[], &o, emit, Codegen::default_path(), bounds).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn normal_corpus_kernels_lower_as_without_the_bounds() {
    // vgpr_high has the longest block of the corpus after the middle end (about 1800 IR
    // instructions), the Triton matmul_f16_128_w4 the most blocks (654); lds_matmul is a loop.
    let dir = hx_corpus::corpus_dir();
    for path in [
        dir.join("gfx1250").join("vgpr_high.hsaco"),
        dir.join("gfx1250").join("lds_matmul.hsaco"),
        dir.join("triton").join("gfx1250").join("matmul_f16_128_w4.hsaco"),
    ] {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ir = hotswap::translate::raised_ir(&bytes, &Options { target: GpuTarget::Gfx942, ..Default::default() }).unwrap();
        let text = String::from_utf8(lower(&ir, &name, Emit::LlvmIr, &SizeBounds::DEFAULT)).unwrap();
        // matmul_f16_128_w4 is the one kernel of the corpus and compiled suites above the
        // huge-function bound (a_huge_function_...), and for gfx942 its unrolled
        // f64-path WMMAs make blocks longer than the bounded regions' minimum: the other bounds
        // must leave it as it was.
        let huge = name == "matmul_f16_128_w4";
        // (The raiser's own barriers fence gfx942's f64-path WMMAs; the bounded regions add
        // none to a normal kernel.)
        let off = String::from_utf8(lower(&ir, &name, Emit::LlvmIr, &SizeBounds::OFF)).unwrap();
        if !huge {
            assert_eq!(text.matches(BARRIER).count(), off.matches(BARRIER).count(), "{name}: a scheduling barrier in a normal kernel");
        }
        assert_eq!(text.contains(HUGE_ATTR), huge, "{name}: the huge-function scheduler attribute");
        let d = SizeBounds::DEFAULT;
        let reference = if huge {
            SizeBounds { huge_function: d.huge_function, sched_min_block: d.sched_min_block, sched_region: d.sched_region, ..SizeBounds::OFF }
        } else {
            SizeBounds::OFF
        };
        let with = lower(&ir, &name, Emit::Object, &SizeBounds::DEFAULT);
        let without = lower(&ir, &name, Emit::Object, &reference);
        assert!(with.starts_with(b"\x7fELF"), "{name}: no object");
        assert!(with == without, "{name}: the size bounds changed a normal kernel's object");
        if huge {
            assert!(with != lower(&ir, &name, Emit::Object, &SizeBounds::OFF), "{name}: the huge-function lowering changed nothing");
        }
    }
}

/// The function attribute a function above the huge-function bound gets.
const HUGE_ATTR: &str = "\"amdgpu-sched-strategy\"=\"max-memory-clause\"";

#[test]
fn a_huge_function_gets_the_single_pass_scheduler_and_skips_slsr() {
    // A bound of 100 instructions makes straight(300) huge and straight(20) not.
    let bounds = SizeBounds { huge_function: 100, ..SizeBounds::DEFAULT };
    let big = straight(300);
    let text = String::from_utf8(lower(&big, "k", Emit::LlvmIr, &bounds)).unwrap();
    assert!(text.contains(HUGE_ATTR), "no scheduler attribute on a huge function");
    {
        let ctx = hx_llvm::inkwell::context::Context::create();
        let m = hx_llvm::parse_ir(&ctx, &big, "k").unwrap();
        assert_eq!(hx_lower::huge_functions(&m, bounds.huge_function), vec!["k".to_string()]);
        assert!(hx_lower::huge_functions(&m, SizeBounds::DEFAULT.huge_function).is_empty());
    }
    let small = String::from_utf8(lower(&straight(20), "k", Emit::LlvmIr, &bounds)).unwrap();
    assert!(!small.contains(HUGE_ATTR), "the scheduler attribute on a small function");
    let off = String::from_utf8(lower(&big, "k", Emit::LlvmIr, &SizeBounds::OFF)).unwrap();
    assert!(!off.contains(HUGE_ATTR));
    let before = huge_function_lowerings();
    let asm = lower(&big, "k", Emit::Assembly, &bounds);
    if pipeline_status().is_ok() {
        assert!(huge_function_lowerings() > before, "the pass gate was not installed");
    } else {
        assert_eq!(huge_function_lowerings(), before, "a gate without the shim");
    }
    // The chain survives: all 300 FMAs.
    let fmas = String::from_utf8_lossy(&asm).lines().filter(|l| l.trim_start().starts_with("v_fma")).count();
    assert_eq!(fmas, 300);
}

#[test]
fn real_kernels_lowered_as_huge_functions_compute_their_references() {
    // Every function huge (bound 0): the single-pass scheduler and no SLSR on real kernels of
    // MFMA chains, whole-wave regions, LDS and reductions, for both targets.
    let bounds = SizeBounds { huge_function: 0, ..SizeBounds::DEFAULT };
    const TRITON: &[&str] = &["matmul_bf16_64_w4", "flash_attn_fwd_w4", "layer_norm_w4", "softmax_w8", "matmul_i8_64_w4"];
    let objects: Vec<_> = hx_corpus::compiled_suite("triton").unwrap().into_iter().filter(|o| TRITON.contains(&o.name.as_str())).collect();
    assert_eq!(objects.len(), TRITON.len());
    let jobs: Vec<_> = objects.iter().flat_map(|o| [GpuTarget::Gfx942, GpuTarget::Gfx950].map(|t| (o, t))).collect();
    let results = hx_tests::on_two_threads(&jobs, |(obj, target)| -> Result<(), String> {
        let source = std::fs::read(obj.object_path("gfx1250")).map_err(|e| e.to_string())?;
        let t = hotswap::translate(&source, &Options { target: *target, size_bounds: bounds, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
        let plain = hotswap::translate(&source, &Options { target: *target, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
        if t.bytes == plain.bytes {
            return Err("the huge-function lowering changed nothing".into());
        }
        for launch in &obj.launches {
            let (out, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("{target}/{}", obj.id()), launch, 0)?;
            hx_corpus::compare_expected(launch, &out).map_err(|e| format!("differs: {e}"))?;
        }
        Ok(())
    });
    let failures: Vec<String> = jobs.iter().zip(&results).filter_map(|((o, t), r)| r.as_ref().err().map(|e| format!("{} {t}: {e}", o.name))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A kernel of one block: a dependent chain of `n` FMAs.
fn straight(n: usize) -> String {
    let mut s = String::from(
        "define amdgpu_kernel void @k(float %a, ptr addrspace(1) %y) {\n  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  %yp = getelementptr float, ptr addrspace(1) %y, i32 %tid\n  %r0 = load float, ptr addrspace(1) %yp\n",
    );
    for i in 1..=n {
        let _ = writeln!(s, "  %r{i} = call float @llvm.fma.f32(float %a, float %r{}, float %r0)", i - 1);
    }
    let _ = write!(s, "  store float %r{n}, ptr addrspace(1) %yp\n  ret void\n}}\ndeclare i32 @llvm.amdgcn.workitem.id.x()\ndeclare float @llvm.fma.f32(float, float, float)\n");
    s
}

#[test]
fn a_long_block_is_scheduled_in_bounded_regions() {
    let bounds = SizeBounds::DEFAULT;
    let n = bounds.sched_min_block + 2 * bounds.sched_region;
    let ir = straight(n);
    let text = String::from_utf8(lower(&ir, "k", Emit::LlvmIr, &bounds)).unwrap();
    // Every FMA survives the middle end (each feeds the next), so the block holds a few
    // instructions, the n FMAs and the store: a barrier after every `sched_region` of them.
    let barriers = text.matches(BARRIER).count();
    assert_eq!(barriers, n / bounds.sched_region, "barriers in\n{}", &text[..2000.min(text.len())]);
    let off = String::from_utf8(lower(&ir, "k", Emit::LlvmIr, &SizeBounds::OFF)).unwrap();
    assert_eq!(off.matches(BARRIER).count(), 0);
    // The barriers emit nothing: both builds hold the same instructions, all n FMAs.
    let with = lower(&ir, "k", Emit::Assembly, &bounds);
    let without = lower(&ir, "k", Emit::Assembly, &SizeBounds::OFF);
    let fmas = |asm: &[u8]| String::from_utf8_lossy(asm).lines().filter(|l| l.trim_start().starts_with("v_fma") || l.trim_start().starts_with("v_fmac")).count();
    assert_eq!(fmas(&with), n, "every FMA is in the bounded-region code");
    assert_eq!(fmas(&without), n);
    assert!(!String::from_utf8_lossy(&with).contains("sched_barrier"), "a barrier reached the assembly");
}

/// A kernel of `n` if-blocks on a constant table, each reading two words (two scalar loads in a
/// row, which si-form-memory-clauses may keep as one clause): 2n + 1 blocks.
fn branchy(n: usize) -> String {
    let mut s = String::from("define amdgpu_kernel void @k(ptr addrspace(4) noalias readonly %tab, ptr addrspace(1) %out) {\nentry:\n  br label %u0\n");
    for i in 0..n {
        let _ = write!(
            s,
            "u{i}:\n  %p{i} = getelementptr inbounds i32, ptr addrspace(4) %tab, i64 {i}\n  %q{i} = getelementptr inbounds i32, ptr addrspace(4) %tab, i64 {}\n  %c{i} = load i32, ptr addrspace(4) %p{i}\n  %d{i} = load i32, ptr addrspace(4) %q{i}\n  %x{i} = xor i32 %c{i}, %d{i}\n  %b{i} = icmp ne i32 %x{i}, 0\n  br i1 %b{i}, label %t{i}, label %u{}\nt{i}:\n  store volatile i32 {i}, ptr addrspace(1) %out\n  br label %u{}\n",
            i + 100_000,
            i + 1,
            i + 1
        );
    }
    let _ = write!(s, "u{n}:\n  ret void\n}}\n");
    s
}

#[test]
fn a_function_of_many_blocks_skips_the_memory_clause_pass() {
    // (Without the split into parts, which would leave no function of that many blocks:
    // split_parts.rs tests that.)
    let bounds = SizeBounds::NO_SPLIT;
    let n = bounds.many_blocks as usize / 2 + 50;
    let ir = branchy(n);
    {
        let ctx = hx_llvm::inkwell::context::Context::create();
        let m = hx_llvm::parse_ir(&ctx, &ir, "k").unwrap();
        assert_eq!(hx_lower::many_block_functions(&m, bounds.many_blocks), vec!["k".to_string()]);
        let small = hx_llvm::parse_ir(&ctx, &branchy(10), "small").unwrap();
        assert!(hx_lower::many_block_functions(&small, bounds.many_blocks).is_empty());
    }
    if let Err(why) = pipeline_status() {
        // The pass gate lives in the codegen shim; without it nothing is skipped.
        eprintln!("skipping the pass-gate part: {why}");
        let before = many_block_lowerings();
        lower(&ir, "k", Emit::Object, &bounds);
        assert_eq!(many_block_lowerings(), before);
        return;
    }
    let before = many_block_lowerings();
    let with = lower(&ir, "k", Emit::Object, &bounds);
    assert!(many_block_lowerings() > before, "the gate was not installed");
    let without = lower(&ir, "k", Emit::Object, &SizeBounds::OFF);
    // With the pass, the loads of a clause get their pointers' live ranges extended (KILLs
    // after the clause); without it they do not: the register allocation, and so the object,
    // differ.
    assert!(with != without, "skipping si-form-memory-clauses changed nothing");
    // The small kernel, below the bound, is lowered with the pass: no gate.
    let before = many_block_lowerings();
    lower(&branchy(10), "k", Emit::Object, &bounds);
    assert_eq!(many_block_lowerings(), before);
}
