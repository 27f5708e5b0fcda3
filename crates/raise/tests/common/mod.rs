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
        one_source_wave: false,
    };
    let ctx = hx_llvm::inkwell::context::Context::create();
    let module = ctx.create_module("raised");
    hx_raise::raise_kernel(&ctx, &module, "k", code, &abi).map_err(|e| e.to_string())?;
    hx_llvm::verify(&module, "raised").unwrap();
    Ok(module.print_to_string().to_string())
}

