//! `llvm.canonicalize` of a constant, folded as the hardware computes it (the
//! `hx-canonical-constants` step of [`crate::OptLevel::raised_pipeline`]).
//!
//! The raiser canonicalises float results so that LLVM's identity folds (`x * 1.0` to `x`)
//! still quieten signaling NaNs. When the operation itself folds to a constant NaN (`NaN * x`
//! is NaN), the canonicalize is left with a constant, and the AMDGPU backend folds that to the
//! default NaN, dropping the sign and payload the hardware keeps (it returns the quietened
//! input NaN). This step folds it first: a NaN quietened with its sign and payload, and any
//! other constant but a denormal as it is (a denormal depends on the function's denormal mode,
//! so that canonicalize stays for the backend).

use crate::ir_walk::opcode;
use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Folds every `llvm.canonicalize` of a scalar constant in `module`; returns how many.
pub fn rewrite(module: &Module<'_>) -> usize {
    crate::ir_walk::each_function(module, rewrite_function)
}

unsafe fn is_canonicalize(call: LLVMValueRef) -> bool {
    let mut len = 0;
    let name = LLVMGetValueName2(LLVMGetCalledValue(call), &mut len);
    !name.is_null() && std::slice::from_raw_parts(name as *const u8, len).starts_with(b"llvm.canonicalize.")
}

unsafe fn rewrite_function(func: LLVMValueRef) -> usize {
    let mut folds = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            if opcode(inst) == Some(LLVMOpcode::LLVMCall) && is_canonicalize(inst) {
                let x = LLVMGetOperand(inst, 0);
                if !LLVMIsAConstantFP(x).is_null() {
                    let mut loses = 0;
                    let v = LLVMConstRealGetDouble(x, &mut loses);
                    // A denormal (of its own type) stays for the backend; converting through
                    // double quietens a NaN and keeps its sign and payload.
                    let ty = LLVMTypeOf(x);
                    let min_normal = match LLVMGetTypeKind(ty) {
                        llvm_sys::LLVMTypeKind::LLVMHalfTypeKind => 6.103515625e-5,
                        llvm_sys::LLVMTypeKind::LLVMFloatTypeKind => f32::MIN_POSITIVE as f64,
                        llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind => f64::MIN_POSITIVE,
                        _ => f64::INFINITY,
                    };
                    let denormal = v != 0.0 && v.abs() < min_normal;
                    if !denormal && min_normal.is_finite() {
                        folds.push((inst, LLVMConstReal(ty, v)));
                    }
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    for &(call, c) in &folds {
        LLVMReplaceAllUsesWith(call, c);
        LLVMInstructionEraseFromParent(call);
    }
    folds.len()
}

#[cfg(test)]
mod tests {
    use crate::{parse_ir, verify};
    use inkwell::context::Context;

    #[test]
    fn constants_fold_as_the_hardware_computes() {
        // A quiet NaN with sign and payload, a signaling NaN, a normal value: folded. A
        // denormal and a non-constant: left.
        let ir = r#"
define void @k(ptr addrspace(1) %o, half %x) {
  %a = call half @llvm.canonicalize.f16(half 0xHFF00)
  %b = call float @llvm.canonicalize.f32(float 0x7FF4000000000000)
  %c = call double @llvm.canonicalize.f64(double 2.5)
  %d = call float @llvm.canonicalize.f32(float 0x36A0000000000000)
  %e = call half @llvm.canonicalize.f16(half %x)
  store volatile half %a, ptr addrspace(1) %o
  store volatile float %b, ptr addrspace(1) %o
  store volatile double %c, ptr addrspace(1) %o
  store volatile float %d, ptr addrspace(1) %o
  store volatile half %e, ptr addrspace(1) %o
  ret void
}
declare half @llvm.canonicalize.f16(half)
declare float @llvm.canonicalize.f32(float)
declare double @llvm.canonicalize.f64(double)
"#;
        let ctx = Context::create();
        let m = parse_ir(&ctx, ir, "k").unwrap();
        assert_eq!(super::rewrite(&m), 3);
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        // 0xFF00 keeps sign and payload; the f32 sNaN 0x7FA00000 becomes 0x7FE00000 (quiet bit).
        for want in ["store volatile half 0xHFF00", "store volatile float 0x7FFC000000000000", "store volatile double 2.5"] {
            assert!(text.contains(want), "no `{want}` in\n{text}");
        }
        assert_eq!(text.matches("call float @llvm.canonicalize.f32").count(), 1, "{text}");
        assert_eq!(text.matches("call half @llvm.canonicalize.f16").count(), 1, "{text}");
    }
}
