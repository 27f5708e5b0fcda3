//! What the project's own IR rewrites (lane_bits.rs, kernarg_loads.rs, source_atomics.rs,
//! split_parts.rs here, hx-lower's agpr_homes.rs) share: running one over every function of a
//! module, listing a function's blocks and a block's instructions, and reading an instruction's
//! opcode and a value's name.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::{
    LLVMGetFirstBasicBlock, LLVMGetFirstInstruction, LLVMGetInstructionOpcode, LLVMGetNextBasicBlock, LLVMGetNextInstruction, LLVMGetValueName2,
    LLVMIsAInstruction,
};
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use llvm_sys::LLVMOpcode;

/// Runs `rewrite_function` on every function of `module`; returns the sum of what it returns
/// (how many rewrites it made).
pub fn each_function(module: &Module<'_>, rewrite_function: unsafe fn(LLVMValueRef) -> usize) -> usize {
    let mut n = 0;
    let mut f = module.get_first_function();
    while let Some(func) = f {
        // SAFETY: the function belongs to `module`, which outlives this call; the rewrites only
        // reach instructions, constants, arguments and blocks of that function.
        n += unsafe { rewrite_function(func.as_value_ref()) };
        f = func.get_next_function();
    }
    n
}

/// The opcode of `v` when it is an instruction.
///
/// # Safety
/// `v` must be a live LLVM value.
pub unsafe fn opcode(v: LLVMValueRef) -> Option<LLVMOpcode> {
    if LLVMIsAInstruction(v).is_null() {
        None
    } else {
        Some(LLVMGetInstructionOpcode(v))
    }
}

/// The blocks of function `func`, in layout order.
///
/// # Safety
/// `func` must be a live LLVM function.
pub unsafe fn blocks(func: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        out.push(bb);
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// The instructions of block `bb`, in order.
///
/// # Safety
/// `bb` must be a live LLVM basic block.
pub unsafe fn instructions(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() {
        out.push(i);
        i = LLVMGetNextInstruction(i);
    }
    out
}

/// The name of `v` (empty when it has none).
///
/// # Safety
/// `v` must be a live LLVM value.
pub unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0;
    let p = LLVMGetValueName2(v, &mut len);
    if p.is_null() {
        String::new()
    } else {
        String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
    }
}
