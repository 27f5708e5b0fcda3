//! Atomics at a wave-uniform address keep the lanes the source gave them (the
//! `hx-source-atomics` step of [`crate::OptLevel::raised_pipeline`]).
//!
//! The target's atomic optimizer rewrites an `atomicrmw` whose address is the same in every lane
//! into one lane's atomic plus a scan of the wave's values (a loop over the active lanes on
//! gfx942/gfx950) and a broadcast of the result. Raised code comes from a compiler that already
//! made that choice: its optimizer left one lane issuing the atomic, inside a branch on
//! `mbcnt == 0`, so the target's version only adds a second ballot, loop and broadcast around a
//! single-lane atomic (atomics_global ran 24% more instructions than its native build for this).
//! The optimizer skips an atomic whose address is divergent; this step makes each such address
//! look so to the uniformity analysis, by adding a zero that inline assembly writes to a VGPR
//! (`v_mov_b32 $0, 0`, which the analysis takes for a thread's own value), just before the atomic.
//! The address stays the same; the target gets the source's single atomic with a zero VGPR
//! offset, which is what the native build has too.
//!
//! Only atomics the optimizer would take are touched (the operations it handles, in the global
//! and LDS address spaces), and only where the address is uniform by construction: built from
//! constants, kernel arguments and loads from the constant address space. Elsewhere the address
//! is already divergent (or nothing is known), and the optimizer leaves the atomic alone anyway.
//!
//! Raw buffer atomics (`llvm.amdgcn.raw.ptr.buffer.atomic.*`) get the zero in their VGPR
//! offset unless it is a thread's own by construction (built from its work-item ID or lane
//! number): besides the cost, the optimizer's one-lane atomic changes what out-of-range lanes
//! return (each should read 0; with it they read 0 plus their rank in the scan), and an offset
//! is uniform whatever built it (a workgroup ID too), so "uniform by construction" is not enough.

use inkwell::module::Module;
use crate::ir_walk::opcode;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicRMWBinOp, LLVMOpcode};
use std::collections::HashSet;

/// Rewrites the address of every uniform-address atomic in `module` the target's atomic optimizer
/// would take; returns how many.
pub fn rewrite(module: &Module<'_>) -> usize {
    crate::ir_walk::each_function(module, rewrite_function)
}

/// Whether the atomic optimizer handles this operation (AMDGPUAtomicOptimizer's list).
fn optimizer_takes(op: LLVMAtomicRMWBinOp) -> bool {
    use LLVMAtomicRMWBinOp::*;
    matches!(
        op,
        LLVMAtomicRMWBinOpAdd
            | LLVMAtomicRMWBinOpSub
            | LLVMAtomicRMWBinOpAnd
            | LLVMAtomicRMWBinOpOr
            | LLVMAtomicRMWBinOpXor
            | LLVMAtomicRMWBinOpMax
            | LLVMAtomicRMWBinOpMin
            | LLVMAtomicRMWBinOpUMax
            | LLVMAtomicRMWBinOpUMin
            | LLVMAtomicRMWBinOpFAdd
            | LLVMAtomicRMWBinOpFSub
            | LLVMAtomicRMWBinOpFMax
            | LLVMAtomicRMWBinOpFMin
    )
}

/// Whether `v` is the same in every lane by construction: constants, arguments, loads from the
/// constant address space and arithmetic, casts and address computations of such values. At most
/// `LIMIT` values are looked at (an address is a few operations; a longer chain counts as not
/// uniform).
unsafe fn uniform(v: LLVMValueRef) -> bool {
    const LIMIT: usize = 64;
    let mut seen = HashSet::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > LIMIT {
            return false;
        }
        if !LLVMIsAConstant(v).is_null() || !LLVMIsAArgument(v).is_null() {
            continue;
        }
        let Some(op) = opcode(v) else { return false };
        use LLVMOpcode::*;
        match op {
            LLVMLoad => {
                let ptr = LLVMGetOperand(v, 0);
                if LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) != 4 {
                    return false;
                }
                work.push(ptr);
            }
            LLVMPtrToInt | LLVMIntToPtr | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze | LLVMAdd
            | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMGetElementPtr => {
                work.extend((0..LLVMGetNumOperands(v) as u32).map(|i| LLVMGetOperand(v, i)));
            }
            _ => return false,
        }
    }
    true
}

/// Whether `v` is a thread's own value by construction: it depends, through arithmetic, casts,
/// selects and phis, on a work-item ID or a lane number (at most 64 values are looked at).
unsafe fn per_thread(v: LLVMValueRef) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if !seen.insert(v) || seen.len() > 64 {
            continue;
        }
        let Some(op) = opcode(v) else { continue };
        use LLVMOpcode::*;
        match op {
            LLVMCall => {
                let mut len = 0;
                let name = LLVMGetValueName2(LLVMGetCalledValue(v), &mut len);
                if !name.is_null() {
                    let name = std::slice::from_raw_parts(name as *const u8, len);
                    if name.starts_with(b"llvm.amdgcn.workitem.id.") || name.starts_with(b"llvm.amdgcn.mbcnt.") {
                        return true;
                    }
                }
            }
            LLVMZExt | LLVMSExt | LLVMTrunc | LLVMFreeze | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
            | LLVMXor | LLVMSelect | LLVMPHI => {
                work.extend((0..LLVMGetNumOperands(v) as u32).map(|i| LLVMGetOperand(v, i)));
            }
            _ => {}
        }
    }
    false
}

/// Whether `call` is a raw buffer atomic the optimizer takes (not cmpswap), whose VGPR offset is
/// its argument 2.
unsafe fn raw_buffer_atomic(call: LLVMValueRef) -> bool {
    let callee = LLVMGetCalledValue(call);
    let mut len = 0;
    let name = LLVMGetValueName2(callee, &mut len);
    if name.is_null() {
        return false;
    }
    let name = std::slice::from_raw_parts(name as *const u8, len);
    name.starts_with(b"llvm.amdgcn.raw.ptr.buffer.atomic.") && !name.starts_with(b"llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap")
}

unsafe fn rewrite_function(func: LLVMValueRef) -> usize {
    let mut atomics = Vec::new();
    let mut buffer_atomics = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            if opcode(inst) == Some(LLVMOpcode::LLVMCall) && raw_buffer_atomic(inst) && !per_thread(LLVMGetOperand(inst, 2)) {
                buffer_atomics.push(inst);
            }
            if opcode(inst) == Some(LLVMOpcode::LLVMAtomicRMW) && optimizer_takes(LLVMGetAtomicRMWBinOp(inst)) {
                let ptr = LLVMGetOperand(inst, 0);
                let space = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr));
                if (space == 1 || space == 3) && uniform(ptr) {
                    atomics.push((inst, ptr, space));
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    if atomics.is_empty() && buffer_atomics.is_empty() {
        return 0;
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(func));
    let i32t = LLVMInt32TypeInContext(ctx);
    let asm_ty = LLVMFunctionType(i32t, std::ptr::null_mut(), 0, 0);
    let text = "v_mov_b32 $0, 0";
    let constraints = "=v";
    let asm = LLVMGetInlineAsm(
        asm_ty,
        text.as_ptr() as *mut _,
        text.len(),
        constraints.as_ptr() as *mut _,
        constraints.len(),
        0,
        0,
        llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
        0,
    );
    let builder = LLVMCreateBuilderInContext(ctx);
    for &(atomic, ptr, space) in &atomics {
        LLVMPositionBuilderBefore(builder, atomic);
        let zero = LLVMBuildCall2(builder, asm_ty, asm, std::ptr::null_mut(), 0, c"".as_ptr());
        // Global addresses are 64-bit: the zero is extended, as a VGPR offset is.
        let index = if space == 1 { LLVMBuildZExt(builder, zero, LLVMInt64TypeInContext(ctx), c"".as_ptr()) } else { zero };
        let mut indices = [index];
        let at = LLVMBuildGEP2(builder, LLVMInt8TypeInContext(ctx), ptr, indices.as_mut_ptr(), 1, c"".as_ptr());
        LLVMSetOperand(atomic, 0, at);
    }
    for &call in &buffer_atomics {
        LLVMPositionBuilderBefore(builder, call);
        let zero = LLVMBuildCall2(builder, asm_ty, asm, std::ptr::null_mut(), 0, c"".as_ptr());
        let voffset = LLVMBuildAdd(builder, LLVMGetOperand(call, 2), zero, c"".as_ptr());
        LLVMSetOperand(call, 2, voffset);
    }
    LLVMDisposeBuilder(builder);
    atomics.len() + buffer_atomics.len()
}

#[cfg(test)]
mod tests {
    use crate::{compile_ir_with, parse_ir, verify, Emit, GpuTarget, OptLevel, SOURCE_ATOMICS};
    use inkwell::context::Context;

    /// What a compiler's atomic optimizer leaves: lane 0 of each wave adds the wave's total (a
    /// value of its own, to the uniformity analysis) to a counter whose address is a kernel
    /// argument; beside it an atomic at a per-lane address, an
    /// exchange (not an optimizer operation) and an LDS atomic at a constant address.
    const KERNEL: &str = r#"
@lds = internal addrspace(3) global [64 x i32] poison, align 4
define amdgpu_kernel void @k(ptr addrspace(1) %counter, ptr addrspace(1) %hist, i32 %n) {
entry:
  %lane = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %first = icmp eq i32 %lane, 0
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = add i32 %n, %tid
  br i1 %first, label %one, label %all
one:
  %c = getelementptr i8, ptr addrspace(1) %counter, i64 16
  %old = atomicrmw add ptr addrspace(1) %c, i32 %v syncscope("agent") monotonic, align 4
  %l = atomicrmw umax ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @lds, i32 8), i32 %n syncscope("workgroup") monotonic, align 4
  br label %all
all:
  %h = getelementptr i32, ptr addrspace(1) %hist, i32 %lane
  %o2 = atomicrmw add ptr addrspace(1) %h, i32 1 syncscope("agent") monotonic, align 4
  %o3 = atomicrmw xchg ptr addrspace(1) %counter, i32 %n syncscope("agent") monotonic, align 4
  ret void
}
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
"#;

    #[test]
    fn uniform_address_atomics_get_a_divergent_zero() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, KERNEL, "k").unwrap();
        // The counter's add and the LDS umax; not the per-lane add or the exchange.
        assert_eq!(super::rewrite(&m), 2);
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        assert_eq!(text.matches("asm \"v_mov_b32 $0, 0\"").count(), 2, "{text}");
        // The target's atomic optimizer wraps the counter's add in a loop over the active lanes
        // (s_ff1) without the step, and leaves the source's single atomic with it.
        let with = OptLevel::O2.raised_pipeline();
        let without = with.replace(&format!(";{SOURCE_ATOMICS}"), "");
        assert_ne!(with, without);
        for (passes, loop_) in [(with.to_string(), false), (without, true)] {
            let asm = compile_ir_with(KERNEL, "k", GpuTarget::Gfx942, OptLevel::O2, &passes, Emit::Assembly).unwrap();
            let asm = String::from_utf8(asm).unwrap();
            assert_eq!(asm.contains("s_ff1_i32_b64"), loop_, "{passes}:\n{asm}");
            for want in ["global_atomic_add", "ds_max_u32", "global_atomic_swap"] {
                assert!(asm.contains(want), "{passes}: no {want}:\n{asm}");
            }
        }
    }
}
