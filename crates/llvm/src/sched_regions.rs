//! Bounded scheduling regions in very long blocks (the `hx-sched-regions` step, and a step of
//! hx-lower's lowering; issue 29).
//!
//! LLVM's machine schedulers (pre-RA `ScheduleDAGMILive` and the post-RA one) schedule one
//! region at a time, and a region is a whole block unless something in it is a scheduling
//! boundary. Their cost grows faster than the region: a straight-line kernel of 20k gfx1250
//! instructions spent most of its translation there (`initRegPressure`, `SUnit::addPred`:
//! 16x the work for 4x the code). On AMDGPU, `llvm.amdgcn.sched.barrier(i32 0)` is such a
//! boundary (`SIInstrInfo::isSchedulingBoundary` is true for a SCHED_BARRIER of mask 0) and
//! emits no instruction. This step puts one every [`REGION`] instructions into blocks longer
//! than [`MIN_BLOCK`] instructions, so a huge block is scheduled as bounded regions, and leaves
//! every other block (all of a normal kernel's) as it was.
//!
//! What it costs in huge blocks: nothing moves across a barrier, so the scheduler cannot overlap
//! the end of one region with the start of the next (one boundary per [`REGION`] instructions).

use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Blocks with more instructions than this (phis and debug records aside) get barriers.
pub const MIN_BLOCK: usize = 4000;

/// Instructions between two barriers in such a block.
pub const REGION: usize = 1000;

/// The intrinsic that bounds a scheduling region.
pub const SCHED_BARRIER: &str = "llvm.amdgcn.sched.barrier";

/// Puts a scheduling barrier every [`REGION`] instructions into every block of `module` longer
/// than [`MIN_BLOCK`] instructions; returns how many barriers it inserted (0 when no block is
/// that long: the module is then unchanged).
pub fn rewrite(module: &Module<'_>) -> usize {
    rewrite_with(module, MIN_BLOCK, REGION)
}

/// [`rewrite`] with other bounds (`region` at least 1).
pub fn rewrite_with(module: &Module<'_>, min_block: usize, region: usize) -> usize {
    let region = region.max(1);
    let mut n = 0;
    let mut f = module.get_first_function();
    while let Some(func) = f {
        // SAFETY: the function belongs to `module`, which outlives this call; only its blocks
        // are read and calls inserted into them.
        n += unsafe { rewrite_function(module, inkwell::values::AsValueRef::as_value_ref(&func), min_block, region) };
        f = func.get_next_function();
    }
    n
}

/// Instructions of `bb` that count towards a region (not phis, not the terminator).
unsafe fn body_len(bb: LLVMBasicBlockRef) -> usize {
    let mut n = 0;
    let mut inst = LLVMGetFirstInstruction(bb);
    while !inst.is_null() {
        if LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMPHI && LLVMIsATerminatorInst(inst).is_null() {
            n += 1;
        }
        inst = LLVMGetNextInstruction(inst);
    }
    n
}

unsafe fn rewrite_function(module: &Module<'_>, func: LLVMValueRef, min_block: usize, region: usize) -> usize {
    let mut long = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        if body_len(bb) > min_block {
            long.push(bb);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    if long.is_empty() {
        return 0;
    }
    let ctx = LLVMGetModuleContext(module.as_mut_ptr());
    let id = LLVMLookupIntrinsicID(SCHED_BARRIER.as_ptr().cast(), SCHED_BARRIER.len());
    if id == 0 {
        return 0;
    }
    let decl = LLVMGetIntrinsicDeclaration(module.as_mut_ptr(), id, std::ptr::null_mut(), 0);
    let fn_ty = LLVMIntrinsicGetType(ctx, id, std::ptr::null_mut(), 0);
    let mut mask = [LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)];
    let builder = LLVMCreateBuilderInContext(ctx);
    let mut n = 0;
    for bb in long {
        let mut since = 0;
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            let counts = LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMPHI && LLVMIsATerminatorInst(inst).is_null();
            if counts {
                if since == region {
                    LLVMPositionBuilderBefore(builder, inst);
                    LLVMBuildCall2(builder, fn_ty, decl, mask.as_mut_ptr(), 1, c"".as_ptr());
                    n += 1;
                    since = 0;
                }
                since += 1;
            }
            inst = LLVMGetNextInstruction(inst);
        }
    }
    LLVMDisposeBuilder(builder);
    n
}

#[cfg(test)]
mod tests {
    use crate::{parse_ir, verify};
    use inkwell::context::Context;
    use std::fmt::Write;

    fn chain(n: usize) -> String {
        let mut s = String::from("define void @k(ptr addrspace(1) %p, float %a) {\nentry:\n  %r0 = load float, ptr addrspace(1) %p\n");
        for i in 1..=n {
            let _ = writeln!(s, "  %r{i} = fadd float %a, %r{}", i - 1);
        }
        let _ = write!(s, "  store float %r{n}, ptr addrspace(1) %p\n  br label %next\nnext:\n  %q = phi float [ %r{n}, %entry ]\n  store float %q, ptr addrspace(1) %p\n  ret void\n}}\n");
        s
    }

    #[test]
    fn long_blocks_get_barriers_and_short_ones_stay_as_they_were() {
        let ctx = Context::create();
        // 1 load + 25 fadds + 1 store = 27 counted instructions in `entry`.
        let m = parse_ir(&ctx, &chain(25), "k").unwrap();
        let before = m.print_to_string().to_string();
        assert_eq!(super::rewrite_with(&m, 27, 10), 0, "a block of exactly the bound is left");
        assert_eq!(m.print_to_string().to_string(), before);
        assert_eq!(super::rewrite_with(&m, 26, 10), 2, "barriers after instructions 10 and 20");
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        assert_eq!(text.matches("call void @llvm.amdgcn.sched.barrier(i32 0)").count(), 2, "{text}");
        // The first sits before the 11th instruction (%r10), the second before %r20.
        let b = text.find("call void @llvm.amdgcn.sched.barrier").unwrap();
        assert!(text[..b].contains("%r9 = ") && !text[..b].contains("%r10 = "), "{text}");
        // The short block `next` has none, and the phi stays first in it.
        let next = text.split("next:").nth(1).unwrap();
        let first = next.lines().skip(1).find(|l| !l.trim().is_empty()).unwrap();
        assert!(first.trim_start().starts_with("%q = phi"), "{text}");
        assert!(!next.contains("sched.barrier(i32 0)"), "{text}");
    }
}
