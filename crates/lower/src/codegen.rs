//! Emission of objects and assembly by LLVM's codegen pipeline, two ways with the same bytes:
//!
//! - [`Codegen::Pipeline`]: a legacy pass manager with the codegen passes added once per pooled
//!   target machine (objects), run on one module after another with its output buffer
//!   cleared (shim/codegen_pipeline.cpp, compiled by build.rs against LLVM 22 headers and linked
//!   to the toolchain's libLLVM). Building and freeing that pipeline is about a fifth of a warm
//!   translation of a small object (BENCHMARKS.md section 8), which this saves.
//! - [`Codegen::CApi`]: `LLVMTargetMachineEmitToMemoryBuffer`, which builds the same pipeline for
//!   every emit. Used when the crate was built without the shim (no headers, no C++ compiler,
//!   headers of another LLVM major.minor than the library).
//!
//! Assembly is always emitted through the C API: a reused pipeline's assembly printer keeps the
//! section it printed last from the previous module, so from the second module on its text
//! lacks the leading `.text` directive (seen on the corpus; objects are byte-identical).
//! Assembly is an inspection output, not the translation's hot path.
//!
//! Only verified modules reach either: an `LLVM ERROR` in codegen ends the process.

use hx_llvm::inkwell::module::Module;
use hx_llvm::inkwell::targets::{FileType, TargetMachine};
use hx_llvm::{Emit, LlvmError};
use std::sync::atomic::{AtomicU64, Ordering};

/// How [`crate::lower_verified_via`] emits objects and assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codegen {
    /// LLVM's C API: a codegen pipeline built and freed for every emit.
    CApi,
    /// The pooled pipeline of the C++ shim (an error if this build has none, see [`pipeline_status`]).
    Pipeline,
}

impl Codegen {
    /// The pipeline when this build has a usable one, else the C API.
    pub fn default_path() -> Codegen {
        if pipeline_status().is_ok() {
            Codegen::Pipeline
        } else {
            Codegen::CApi
        }
    }
}

#[cfg(hx_codegen_shim)]
mod ffi {
    use hx_llvm::llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};
    use hx_llvm::llvm_sys::target_machine::LLVMTargetMachineRef;
    use std::ffi::{c_char, c_int, c_uint, c_void};
    extern "C" {
        pub fn hx_codegen_pipeline_header_version(major: *mut c_uint, minor: *mut c_uint, patch: *mut c_uint);
        pub fn hx_codegen_pipeline_create(tm: LLVMTargetMachineRef, assembly: c_int) -> *mut c_void;
        pub fn hx_codegen_pipeline_run(pipeline: *mut c_void, module: LLVMModuleRef, data: *mut *const c_char, len: *mut usize);
        pub fn hx_codegen_pipeline_dispose(pipeline: *mut c_void);
        pub fn hx_pass_gate_install(
            context: LLVMContextRef,
            passes: *const *const c_char,
            functions: *const *const c_char,
            nrules: usize,
        ) -> *mut c_void;
        pub fn hx_pass_gate_remove(context: LLVMContextRef, gate: *mut c_void);
    }
}

/// Whether this build can emit through the pooled pipeline: `Ok(header version)` or why not
/// (built without the shim, or the LLVM loaded at run time is another major.minor than the
/// headers the shim was compiled against; then the shim is refused and the C API used).
pub fn pipeline_status() -> Result<&'static str, &'static str> {
    #[cfg(hx_codegen_shim)]
    {
        static STATUS: std::sync::OnceLock<Result<&'static str, String>> = std::sync::OnceLock::new();
        let status = STATUS.get_or_init(|| {
            let (mut hmajor, mut hminor, mut hpatch) = (0, 0, 0);
            let (mut lmajor, mut lminor, mut lpatch) = (0, 0, 0);
            // SAFETY: both only write three integers.
            unsafe {
                ffi::hx_codegen_pipeline_header_version(&mut hmajor, &mut hminor, &mut hpatch);
                hx_llvm::llvm_sys::core::LLVMGetVersion(&mut lmajor, &mut lminor, &mut lpatch);
            }
            if (hmajor, hminor) == (lmajor, lminor) {
                Ok(env!("HX_CODEGEN_SHIM_HEADERS"))
            } else {
                Err(format!(
                    "the shim was compiled against LLVM {hmajor}.{hminor}.{hpatch} headers, the loaded libLLVM is {lmajor}.{lminor}.{lpatch}"
                ))
            }
        });
        status.as_ref().map(|v| *v).map_err(|e| e.as_str())
    }
    #[cfg(not(hx_codegen_shim))]
    {
        Err(concat!("hx-lower was built without the codegen pipeline shim: ", env!("HX_CODEGEN_SHIM_MISSING")))
    }
}

/// Codegen passes skipped on some functions of one module while it is alive (LLVM's pass gate
/// of the module's context, shim/codegen_pipeline.cpp): passes that LLVM lets skip (they ask
/// the gate) and that the caller may do without. Dropping it puts the context's previous gate
/// back. Without the shim nothing is skipped.
pub(crate) struct SkipPasses {
    #[cfg(hx_codegen_shim)]
    gate: Option<(hx_llvm::llvm_sys::prelude::LLVMContextRef, std::ptr::NonNull<std::ffi::c_void>)>,
}

impl SkipPasses {
    /// Skips each rule's pass (pass argument or name) on its function of `module`; none if
    /// there is no rule.
    pub(crate) fn install(module: &Module<'_>, rules: &[(&str, String)]) -> SkipPasses {
        #[cfg(hx_codegen_shim)]
        {
            if rules.is_empty() {
                return SkipPasses { gate: None };
            }
            let Ok(passes) = rules.iter().map(|(p, _)| std::ffi::CString::new(*p)).collect::<Result<Vec<_>, _>>() else {
                return SkipPasses { gate: None };
            };
            let Ok(functions) = rules.iter().map(|(_, f)| std::ffi::CString::new(f.as_str())).collect::<Result<Vec<_>, _>>() else {
                return SkipPasses { gate: None };
            };
            let pp: Vec<*const std::ffi::c_char> = passes.iter().map(|p| p.as_ptr()).collect();
            let fp: Vec<*const std::ffi::c_char> = functions.iter().map(|f| f.as_ptr()).collect();
            // SAFETY: the strings outlive the call (the shim copies them), both arrays hold
            // `rules.len()` pointers; the context is the module's, alive while `module` is, and
            // the gate is removed (Drop) before the lowering that installed it returns.
            unsafe {
                let ctx = hx_llvm::llvm_sys::core::LLVMGetModuleContext(module.as_mut_ptr());
                let raw = ffi::hx_pass_gate_install(ctx, pp.as_ptr(), fp.as_ptr(), rules.len());
                SkipPasses { gate: std::ptr::NonNull::new(raw).map(|g| (ctx, g)) }
            }
        }
        #[cfg(not(hx_codegen_shim))]
        {
            let _ = (module, rules);
            SkipPasses {}
        }
    }

    /// Whether a gate is installed (the shim is built and there was something to skip).
    pub(crate) fn active(&self) -> bool {
        #[cfg(hx_codegen_shim)]
        {
            self.gate.is_some()
        }
        #[cfg(not(hx_codegen_shim))]
        {
            false
        }
    }
}

#[cfg(hx_codegen_shim)]
impl Drop for SkipPasses {
    fn drop(&mut self) {
        if let Some((ctx, g)) = self.gate.take() {
            // SAFETY: installed on `ctx` by hx_pass_gate_install, removed once.
            unsafe { ffi::hx_pass_gate_remove(ctx, g.as_ptr()) }
        }
    }
}

static BUILT: AtomicU64 = AtomicU64::new(0);
static RUNS: AtomicU64 = AtomicU64::new(0);

/// Process-wide counts of the pooled pipelines: how many were built, how many emits ran on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PipelineCounts {
    pub built: u64,
    pub runs: u64,
}

pub fn pipeline_counts() -> PipelineCounts {
    PipelineCounts { built: BUILT.load(Ordering::Relaxed), runs: RUNS.load(Ordering::Relaxed) }
}

/// One codegen pipeline of the shim for one target machine (objects). It refers to the
/// target machine: whoever holds both must drop this first ([`crate::PooledMachine`] does).
pub(crate) struct Pipeline {
    #[cfg(hx_codegen_shim)]
    raw: std::ptr::NonNull<std::ffi::c_void>,
    #[cfg(not(hx_codegen_shim))]
    _never: std::convert::Infallible,
}

impl Pipeline {
    #[cfg(hx_codegen_shim)]
    fn new(tm: &TargetMachine, kind: FileType) -> Result<Pipeline, LlvmError> {
        let assembly = std::ffi::c_int::from(matches!(kind, FileType::Assembly));
        // SAFETY: `tm` is a live target machine; the pool drops the pipeline before it.
        let raw = unsafe { ffi::hx_codegen_pipeline_create(tm.as_mut_ptr(), assembly) };
        let raw = std::ptr::NonNull::new(raw).ok_or_else(|| LlvmError::Codegen {
            name: tm.get_cpu().to_string_lossy().into_owned(),
            msg: format!("the target machine cannot emit {kind:?} files"),
        })?;
        BUILT.fetch_add(1, Ordering::Relaxed);
        Ok(Pipeline { raw })
    }

    #[cfg(hx_codegen_shim)]
    fn run(&mut self, module: &Module<'_>) -> Vec<u8> {
        let (mut data, mut len) = (std::ptr::null(), 0usize);
        // SAFETY: the module is verified (callers' contract) and owned by the caller's context for
        // the call; the returned bytes live in the pipeline's buffer until the next run, and are
        // copied out before that.
        unsafe {
            ffi::hx_codegen_pipeline_run(self.raw.as_ptr(), module.as_mut_ptr(), &mut data, &mut len);
            RUNS.fetch_add(1, Ordering::Relaxed);
            if len == 0 || data.is_null() {
                return Vec::new();
            }
            std::slice::from_raw_parts(data as *const u8, len).to_vec()
        }
    }
}

#[cfg(hx_codegen_shim)]
impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: made by hx_codegen_pipeline_create, disposed once, before its target machine.
        unsafe { ffi::hx_codegen_pipeline_dispose(self.raw.as_ptr()) }
    }
}

// SAFETY: as for the target machine it belongs to (lib.rs, PooledMachine): LLVM ties neither to
// a thread, and the pool hands both to one lowering at a time.
unsafe impl Send for Pipeline {}

/// A target machine with its object pipeline, as the pool keeps them. Fields drop in order: the
/// pipeline before the machine it refers to.
pub(crate) struct MachineAndPipelines {
    object: Option<Pipeline>,
    pub(crate) tm: TargetMachine,
}

impl MachineAndPipelines {
    pub(crate) fn new(tm: TargetMachine) -> MachineAndPipelines {
        MachineAndPipelines { object: None, tm }
    }

    /// Emits a module already optimised and verified (object or assembly).
    pub(crate) fn emit(&mut self, module: &Module<'_>, name: &str, emit: Emit, codegen: Codegen) -> Result<Vec<u8>, LlvmError> {
        let kind = match emit {
            Emit::LlvmIr => return Ok(module.print_to_string().to_bytes().to_vec()),
            Emit::Object => FileType::Object,
            Emit::Assembly => FileType::Assembly,
        };
        match codegen {
            Codegen::Pipeline if matches!(kind, FileType::Object) => self.emit_pipeline(module, name),
            _ => {
                let buf = self
                    .tm
                    .write_to_memory_buffer(module, kind)
                    .map_err(|e| LlvmError::Codegen { name: name.to_string(), msg: e.to_string() })?;
                Ok(buf.as_slice().to_vec())
            }
        }
    }

    #[cfg(hx_codegen_shim)]
    fn emit_pipeline(&mut self, module: &Module<'_>, name: &str) -> Result<Vec<u8>, LlvmError> {
        pipeline_status().map_err(|why| LlvmError::Codegen { name: name.to_string(), msg: why.to_string() })?;
        let pipeline = match &mut self.object {
            Some(p) => p,
            None => self.object.insert(Pipeline::new(&self.tm, FileType::Object)?),
        };
        Ok(pipeline.run(module))
    }

    #[cfg(not(hx_codegen_shim))]
    fn emit_pipeline(&mut self, _module: &Module<'_>, name: &str) -> Result<Vec<u8>, LlvmError> {
        let _ = &self.object;
        Err(LlvmError::Codegen { name: name.to_string(), msg: pipeline_status().err().unwrap_or_default().to_string() })
    }
}
