//! The size-dependent lowering of issue 29 (hx-lower's `SizeBounds`): very long blocks are
//! scheduled as bounded regions (`llvm.amdgcn.sched.barrier(i32 0)` every so many
//! instructions) and functions of very many blocks skip `si-form-memory-clauses`. Normal corpus
//! kernels must lower to the same bytes as with no bound at all; large generated kernels must get
//! the change. Assertions are on the IR and the objects, never on time (the time is measured by
//! `hx-scale`, BENCHMARKS.md section 12).

use hotswap::{GpuTarget, Options};
use hx_lower::{lower_ir_bounded, many_block_lowerings, pipeline_status, Codegen, Emit, LowerOptions, SizeBounds};
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
        assert!(!text.contains("llvm.amdgcn.sched.barrier"), "{name}: a scheduling barrier in a normal kernel");
        let with = lower(&ir, &name, Emit::Object, &SizeBounds::DEFAULT);
        let without = lower(&ir, &name, Emit::Object, &SizeBounds::OFF);
        assert!(with.starts_with(b"\x7fELF"), "{name}: no object");
        assert!(with == without, "{name}: the size bounds changed a normal kernel's object");
    }
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
