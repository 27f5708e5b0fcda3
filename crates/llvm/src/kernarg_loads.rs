//! Kernel-argument loads in the constant address space (the `hx-kernarg-loads` step of
//! [`crate::OptLevel::raised_pipeline`]).
//!
//! Raised code reads memory through SGPR pairs, so a load of a kernel argument is a global
//! (addrspace 1) load from `inttoptr(ptrtoint(%kernarg) + C)`. The backend may select a global
//! load as a scalar load only when it can prove nothing in the kernel writes that memory before
//! it; otherwise (a load in a loop that also stores, say) it becomes a vector load whose uniform
//! result is read back with v_readfirstlane at every use. The kernarg segment is read-only for
//! the kernel's whole run, so such loads are rewritten to load from the kernarg pointer itself
//! (addrspace 4, constant), which is always a scalar load. Run at the end of the middle end,
//! when instcombine and GVN have folded the address arithmetic into `ptrtoint + C`.

use inkwell::module::Module;
use crate::ir_walk::opcode;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMGetModuleDataLayout, LLVMStoreSizeOfType};
use llvm_sys::{LLVMAtomicOrdering, LLVMCallConv, LLVMOpcode, LLVMTypeKind};

/// Rewrites the kernel-argument loads of every kernel in `module`; returns how many.
pub fn rewrite(module: &Module<'_>) -> usize {
    crate::ir_walk::each_function(module, rewrite_function)
}

unsafe fn const_int(v: LLVMValueRef) -> Option<i64> {
    if LLVMIsAConstantInt(v).is_null() {
        None
    } else {
        Some(LLVMConstIntGetSExtValue(v))
    }
}

unsafe fn address_space(ty: LLVMTypeRef) -> Option<u32> {
    (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
}

/// The byte offset C when `v` is `ptrtoint(arg) + C` (adds of constants, either operand order).
unsafe fn offset_from(v: LLVMValueRef, arg: LLVMValueRef) -> Option<i64> {
    let mut v = v;
    let mut off = 0i64;
    // The chain is short in practice; the bound keeps a pathological one from looping long.
    for _ in 0..16 {
        match opcode(v)? {
            LLVMOpcode::LLVMPtrToInt => return (LLVMGetOperand(v, 0) == arg).then_some(off),
            LLVMOpcode::LLVMAdd => {
                let (a, b) = (LLVMGetOperand(v, 0), LLVMGetOperand(v, 1));
                let (k, rest) = match (const_int(a), const_int(b)) {
                    (_, Some(k)) => (k, a),
                    (Some(k), None) => (k, b),
                    (None, None) => return None,
                };
                off = off.checked_add(k)?;
                v = rest;
            }
            _ => return None,
        }
    }
    None
}

/// A plain (not volatile, not atomic) load whose pointer operand is `ptr`.
unsafe fn plain_load_of(v: LLVMValueRef, ptr: LLVMValueRef) -> bool {
    opcode(v) == Some(LLVMOpcode::LLVMLoad)
        && LLVMGetOperand(v, 0) == ptr
        && LLVMGetVolatile(v) == 0
        && LLVMGetOrdering(v) == LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
}

unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        out.push(LLVMGetUser(u));
        u = LLVMGetNextUse(u);
    }
    out
}

unsafe fn rewrite_function(func: LLVMValueRef) -> usize {
    if LLVMGetFunctionCallConv(func) != LLVMCallConv::LLVMAMDGPUKERNELCallConv as u32 || LLVMCountParams(func) == 0 {
        return 0;
    }
    let arg = LLVMGetParam(func, 0);
    if address_space(LLVMTypeOf(arg)) != Some(4) {
        return 0;
    }
    // (load, byte offset into the kernarg segment)
    let mut loads = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            if opcode(inst) == Some(LLVMOpcode::LLVMIntToPtr) && address_space(LLVMTypeOf(inst)) == Some(1) {
                if let Some(base) = offset_from(LLVMGetOperand(inst, 0), arg) {
                    for u in users(inst) {
                        if plain_load_of(u, inst) {
                            loads.push((u, base));
                        } else if let Some(k) = byte_gep(u, inst) {
                            loads.extend(users(u).into_iter().filter(|&l| plain_load_of(l, u)).filter_map(|l| Some((l, base.checked_add(k)?))));
                        }
                    }
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    if loads.is_empty() {
        return 0;
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(func));
    let (i8t, i64t) = (LLVMInt8TypeInContext(ctx), LLVMInt64TypeInContext(ctx));
    let td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(func));
    let segment = segment_size(func, ctx);
    let entry = LLVMGetEntryBasicBlock(func);
    let b = LLVMCreateBuilderInContext(ctx);
    // A load wholly inside the segment is safe anywhere, so it moves to the entry block, as
    // the backend's own argument loads are (where neighbours merge into one s_load_dwordxN and
    // their latency hides); one load per (offset, type).
    let mut hoisted: Vec<(i64, LLVMTypeRef, LLVMValueRef)> = Vec::new();
    for &(load, off) in &loads {
        let ty = LLVMTypeOf(load);
        let size = LLVMStoreSizeOfType(td, ty);
        let inside = segment.is_some_and(|n| off >= 0 && (off as u64).checked_add(size).is_some_and(|end| end <= n));
        if let Some(&(_, _, same)) = hoisted.iter().find(|(o, t, _)| inside && *o == off && *t == ty) {
            LLVMReplaceAllUsesWith(load, same);
            LLVMInstructionEraseFromParent(load);
            continue;
        }
        if inside {
            LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
        } else {
            LLVMPositionBuilderBefore(b, load);
        }
        let mut idx = [LLVMConstInt(i64t, off as u64, 1)];
        let p = LLVMBuildGEP2(b, i8t, arg, idx.as_mut_ptr(), 1, c"".as_ptr());
        let new = LLVMBuildLoad2(b, ty, p, c"".as_ptr());
        LLVMSetAlignment(new, LLVMGetAlignment(load));
        if inside {
            hoisted.push((off, ty, new));
        }
        LLVMReplaceAllUsesWith(load, new);
        LLVMInstructionEraseFromParent(load);
    }
    LLVMDisposeBuilder(b);
    loads.len()
}

/// The kernarg segment's size in bytes: the byref type of the kernel's argument (the raiser's
/// `[N x i8]`), if it has one.
pub(crate) unsafe fn segment_size(func: LLVMValueRef, ctx: LLVMContextRef) -> Option<u64> {
    let kind = LLVMGetEnumAttributeKindForName(c"byref".as_ptr(), 5);
    let attr = LLVMGetEnumAttributeAtIndex(func, 1, kind);
    if attr.is_null() {
        return None;
    }
    let ty = LLVMGetTypeAttributeValue(attr);
    let byte = LLVMInt8TypeInContext(ctx);
    (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind && LLVMGetElementType(ty) == byte).then(|| LLVMGetArrayLength2(ty))
}

/// The constant byte offset k when `v` is `getelementptr i8, ptr, k`.
unsafe fn byte_gep(v: LLVMValueRef, ptr: LLVMValueRef) -> Option<i64> {
    if opcode(v)? != LLVMOpcode::LLVMGetElementPtr || LLVMGetNumOperands(v) != 2 || LLVMGetOperand(v, 0) != ptr {
        return None;
    }
    let ty = LLVMGetGEPSourceElementType(v);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMIntegerTypeKind || LLVMGetIntTypeWidth(ty) != 8 {
        return None;
    }
    const_int(LLVMGetOperand(v, 1))
}

#[cfg(test)]
mod tests {
    use crate::{compile_ir_with, Emit, GpuTarget, OptLevel};

    /// A loop that loads a kernel argument after storing to global memory, the way raised code
    /// reads it (through an integer address), and two loads the step must leave alone.
    const KERNEL: &str = r#"
define amdgpu_kernel void @k(ptr addrspace(4) byref([32 x i8]) align 8 %0) {
entry:
  %ka = ptrtoint ptr addrspace(4) %0 to i64
  %pa = inttoptr i64 %ka to ptr addrspace(1)
  %out = load i64, ptr addrspace(1) %pa, align 8
  %outp = inttoptr i64 %out to ptr addrspace(1)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a8 = add i64 %ka, 8
  %p8 = inttoptr i64 %a8 to ptr addrspace(1)
  %p12 = getelementptr i8, ptr addrspace(1) %p8, i64 4
  %scale = load i32, ptr addrspace(1) %p12, align 4
  %kept = load volatile i32, ptr addrspace(1) %p8, align 4
  %again = load i32, ptr addrspace(1) %p12, align 4
  %a40 = add i64 %ka, 40
  %p40 = inttoptr i64 %a40 to ptr addrspace(1)
  %past = load i32, ptr addrspace(1) %p40, align 4
  %data = load i32, ptr addrspace(1) %outp, align 4
  %v = mul i32 %scale, %i
  %w = add i32 %v, %kept
  %x0 = add i32 %w, %data
  %x1 = add i32 %x0, %again
  %x = add i32 %x1, %past
  %q = getelementptr i32, ptr addrspace(1) %outp, i32 %tid
  store i32 %x, ptr addrspace(1) %q, align 4
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %scale
  br i1 %more, label %loop, label %done
done:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;

    #[test]
    fn kernel_argument_loads_become_constant_loads() {
        let ctx = inkwell::context::Context::create();
        let m = crate::parse_ir(&ctx, KERNEL, "k").unwrap();
        assert_eq!(super::rewrite(&m), 4, "the loads at offsets 0, 12 (twice) and 40");
        crate::verify(&m, "k").unwrap();
        let ir = m.print_to_string().to_string();
        let (entry, rest) = ir.split_once("loop:").unwrap();
        // Inside the 32-byte segment: in the entry block, once per offset; past it: in place.
        assert_eq!(entry.matches("getelementptr i8, ptr addrspace(4) %0, i64 12").count(), 1, "{ir}");
        assert!(!rest.contains("addrspace(4) %0, i64 12"), "{ir}");
        assert!(rest.contains("getelementptr i8, ptr addrspace(4) %0, i64 40"), "{ir}");
        assert!(ir.contains("load volatile i32, ptr addrspace(1) %p8"), "the volatile load stays: {ir}");
        assert!(ir.contains("load i32, ptr addrspace(1) %outp"), "a load through a loaded pointer stays: {ir}");
        // In the raised pipeline, the loop's argument load is a scalar load.
        let asm = compile_ir_with(KERNEL, "k", GpuTarget::Gfx942, OptLevel::O2, OptLevel::O2.raised_pipeline(), Emit::Assembly).unwrap();
        let asm = String::from_utf8(asm).unwrap();
        assert!(asm.contains("s_load_dword s"), "{asm}");
        assert!(!asm.contains("v_readfirstlane"), "{asm}");
    }
}
