//! What this crate's own IR rewrites (lane_bits.rs, kernarg_loads.rs, source_atomics.rs) share:
//! running one over every function of a module, and reading an instruction's opcode.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::{LLVMGetInstructionOpcode, LLVMIsAInstruction};
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::LLVMOpcode;

/// Runs `rewrite_function` on every function of `module`; returns the sum of what it returns
/// (how many rewrites it made).
pub(crate) fn each_function(module: &Module<'_>, rewrite_function: unsafe fn(LLVMValueRef) -> usize) -> usize {
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
pub(crate) unsafe fn opcode(v: LLVMValueRef) -> Option<LLVMOpcode> {
    if LLVMIsAInstruction(v).is_null() {
        None
    } else {
        Some(LLVMGetInstructionOpcode(v))
    }
}
