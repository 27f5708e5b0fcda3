//! Host JIT for the raise tests: the raiser's IR is target-independent LLVM IR, so it can run
//! on the host (x86) and be compared with the emulator's semantics.
// Each test crate uses only some of these helpers.
#![allow(dead_code)]

use hx_llvm::inkwell::module::Module;
use hx_llvm::llvm_sys::execution_engine as ee;

extern "C" {
    fn LLVMInitializeX86TargetInfo();
    fn LLVMInitializeX86Target();
    fn LLVMInitializeX86TargetMC();
    fn LLVMInitializeX86AsmPrinter();
    fn LLVMLinkInMCJIT();
}

/// A module compiled for the host; its code lives until this is dropped.
pub struct Jit {
    engine: ee::LLVMExecutionEngineRef,
    /// Address of function `f` (call it through the function type the module defines).
    pub addr: u64,
}

impl Drop for Jit {
    fn drop(&mut self) {
        unsafe { ee::LLVMDisposeExecutionEngine(self.engine) };
    }
}

/// Compiles `module` for the host with MCJIT (through the C API: inkwell's wrapper wants
/// native-target initialisers that are not built here); the engine takes the module.
pub fn compile_f(module: Module<'_>, label: &str) -> Jit {
    unsafe {
        LLVMInitializeX86TargetInfo();
        LLVMInitializeX86Target();
        LLVMInitializeX86TargetMC();
        LLVMInitializeX86AsmPrinter();
        LLVMLinkInMCJIT();
    }
    module.verify().unwrap_or_else(|e| panic!("{label}: {e}"));
    host_canonicalize(&module);
    module.verify().unwrap_or_else(|e| panic!("{label} after host_canonicalize: {e}"));
    let raw_module = module.as_mut_ptr();
    std::mem::forget(module);
    let mut engine: ee::LLVMExecutionEngineRef = std::ptr::null_mut();
    let mut err: *mut std::ffi::c_char = std::ptr::null_mut();
    unsafe {
        assert_eq!(ee::LLVMCreateExecutionEngineForModule(&mut engine, raw_module, &mut err), 0, "{label}: no JIT");
        let addr = ee::LLVMGetFunctionAddress(engine, c"f".as_ptr());
        assert_ne!(addr, 0, "{label}: f not found");
        Jit { engine, addr }
    }
}

/// `llvm.canonicalize` as the GPU computes it in the raised code's IEEE mode with denormals
/// kept (a signaling NaN quietened, everything else as it is), as a function of plain bit
/// operations that replaces the intrinsic: the x86 backend cannot lower every type of it.
fn host_canonicalize<'c>(module: &Module<'c>) {
    use hx_llvm::inkwell::types::BasicTypeEnum;
    use hx_llvm::inkwell::values::{AsValueRef, BasicValueEnum, FloatValue};
    use hx_llvm::inkwell::FloatPredicate;
    let ctx = module.get_context();
    let b = ctx.create_builder();
    let quiet = |x: FloatValue<'c>| -> BasicValueEnum<'c> {
        let bits = x.get_type().get_bit_width();
        let it = match bits {
            16 => ctx.i16_type(),
            32 => ctx.i32_type(),
            _ => ctx.i64_type(),
        };
        let quiet_bit = 1u64 << (match bits { 16 => 9, 32 => 22, _ => 51 });
        let xi = b.build_bit_cast(x, it, "").unwrap().into_int_value();
        let qf = b.build_bit_cast(b.build_or(xi, it.const_int(quiet_bit, false), "").unwrap(), x.get_type(), "").unwrap();
        let nan = b.build_float_compare(FloatPredicate::UNO, x, x, "").unwrap();
        b.build_select(nan, qf, x.into(), "").unwrap()
    };
    let decls: Vec<_> = module.get_functions().filter(|f| f.get_name().to_string_lossy().starts_with("llvm.canonicalize.")).collect();
    for decl in decls {
        let name = format!("host.{}", decl.get_name().to_string_lossy());
        let body = module.add_function(&name, decl.get_type(), None);
        b.position_at_end(ctx.append_basic_block(body, ""));
        let x = body.get_nth_param(0).unwrap();
        let r = match x.get_type() {
            BasicTypeEnum::FloatType(_) => quiet(x.into_float_value()),
            BasicTypeEnum::VectorType(t) => {
                let v = x.into_vector_value();
                let mut out = t.get_undef();
                for k in 0..t.get_size() {
                    let idx = ctx.i32_type().const_int(k as u64, false);
                    let e = b.build_extract_element(v, idx, "").unwrap().into_float_value();
                    out = b.build_insert_element(out, quiet(e), idx, "").unwrap();
                }
                out.into()
            }
            t => panic!("llvm.canonicalize of {t:?}"),
        };
        b.build_return(Some(&r)).unwrap();
        // SAFETY: both are functions of `module` with the same type; the declaration has no
        // uses left when it is deleted.
        unsafe {
            hx_llvm::llvm_sys::core::LLVMReplaceAllUsesWith(decl.as_value_ref(), body.as_value_ref());
            decl.delete();
        }
    }
}

/// gfx1250 assembly to the bytes of its .text.
pub fn assemble(body: &str) -> Vec<u8> {
    use hx_llvm::GpuTarget;
    let obj = hx_llvm::assemble(&format!(".text\n{body}\n"), "t", GpuTarget::Gfx1250).unwrap();
    let co = hx_codeobj::CodeObject::parse(&obj).unwrap();
    let text = co.section(".text").unwrap();
    obj[text.offset as usize..(text.offset + text.size) as usize].to_vec()
}

/// Raises `body` (gfx1250 assembly) as kernel `k`: the verified IR as text, or the error.
pub fn raise(body: &str) -> Result<String, String> {
    raise_code(&assemble(body))
}

pub fn raise_code(code: &[u8]) -> Result<String, String> {
    let abi = hx_raise::KernelAbi {
        kernarg_ptr_sgpr: Some(0),
        preload: None,
        private_segment_size: 0,
        group_segment_size: 0,
        kernarg_size: 16,
        uses_lds: false,
        entry_mode: 0xf0,
        workitem_ids: 2,
        workgroup_id_z: true,
        one_source_wave: false, paired_groups: false,
        dispatch_ptr_sgpr: None,
        queue_ptr_sgpr: None,
        dispatch_id_sgpr: None,
    };
    let ctx = hx_llvm::inkwell::context::Context::create();
    let module = ctx.create_module("raised");
    hx_raise::raise_kernel(&ctx, &module, "k", code, &abi).map_err(|e| e.to_string())?;
    hx_llvm::verify(&module, "raised").unwrap();
    Ok(module.print_to_string().to_string())
}

