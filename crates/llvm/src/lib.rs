//! hx-llvm: the single crate that links LLVM (the libLLVM 22 shipped with the Rust toolchain) and the
//! small safe layer over it that the other crates share.
//!
//! What it offers:
//! - [`init`]: one-time initialisation of the AMDGPU target, including the disassembler.
//! - [`GpuTarget`]: the three processors the project knows, with their target machines.
//! - [`compile_ir`]: LLVM IR text -> verified module -> optimised -> relocatable object or assembly.
//! - [`assemble`]: the in-process assembler (module-level inline assembly emitted as an object).
//! - [`Disassembler`]: LLVM's own disassembler, the oracle for the project's decoder.
//!
//! Thread safety: every compilation creates its own `Context`, so translations on different threads
//! share nothing but the (thread-safe) target registry.

use std::ffi::{CStr, CString};
use std::sync::Once;

pub mod canonical_constants;
pub mod ir_walk;
pub mod kernarg_loads;
pub mod lane_bits;
pub mod sched_regions;
pub mod split_parts;
pub mod source_atomics;
pub use inkwell;
pub use llvm_sys;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

/// The target triple every AMDGPU code object of this project uses.
pub const AMDHSA_TRIPLE: &str = "amdgcn-amd-amdhsa";

#[derive(Debug, thiserror::Error)]
pub enum LlvmError {
    #[error("LLVM target initialisation failed: {0}")]
    Init(String),
    #[error("cannot create a target machine for {cpu}: {msg}")]
    TargetMachine { cpu: String, msg: String },
    #[error("LLVM IR does not parse ({name}): {msg}")]
    Parse { name: String, msg: String },
    #[error("LLVM IR fails the verifier ({name}): {msg}")]
    Verify { name: String, msg: String },
    #[error("LLVM pass pipeline `{pipeline}` failed ({name}): {msg}")]
    Passes { name: String, pipeline: String, msg: String },
    #[error("code generation failed ({name}): {msg}")]
    Codegen { name: String, msg: String },
    #[error("cannot create a disassembler for {cpu}")]
    Disassembler { cpu: String },
}

pub type Result<T> = std::result::Result<T, LlvmError>;

extern "C" {
    // llvm-sys does not declare this one (see shared/LLVM.md).
    fn LLVMInitializeAMDGPUDisassembler();
}

static INIT: Once = Once::new();

/// Initialises the AMDGPU target (info, target, MC, asm printer, asm parser, disassembler) once per
/// process. Safe to call from any thread, any number of times.
pub fn init() {
    INIT.call_once(|| {
        // SAFETY: these are LLVM's registration functions; `Once` guarantees a single call.
        unsafe {
            llvm_sys::target::LLVMInitializeAMDGPUTargetInfo();
            llvm_sys::target::LLVMInitializeAMDGPUTarget();
            llvm_sys::target::LLVMInitializeAMDGPUTargetMC();
            llvm_sys::target::LLVMInitializeAMDGPUAsmPrinter();
            llvm_sys::target::LLVMInitializeAMDGPUAsmParser();
            LLVMInitializeAMDGPUDisassembler();
        }
    });
}

/// The processors hotswap-xlate reads (gfx1250) and writes (gfx942, gfx950).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GpuTarget {
    /// GFX12.5, wave32 only: the source ISA.
    Gfx1250,
    /// MI300 (CDNA3), wave64.
    Gfx942,
    /// MI350 (CDNA4), wave64.
    Gfx950,
}

impl GpuTarget {
    pub const ALL: [GpuTarget; 3] = [GpuTarget::Gfx1250, GpuTarget::Gfx942, GpuTarget::Gfx950];

    /// LLVM's processor name.
    pub fn cpu(self) -> &'static str {
        match self {
            GpuTarget::Gfx1250 => "gfx1250",
            GpuTarget::Gfx942 => "gfx942",
            GpuTarget::Gfx950 => "gfx950",
        }
    }

    pub fn from_cpu(name: &str) -> Option<GpuTarget> {
        GpuTarget::ALL.into_iter().find(|t| t.cpu() == name)
    }

    /// Lanes per wave: gfx1250 is wave32 only, gfx942/gfx950 are wave64 only.
    pub fn wave_size(self) -> u32 {
        match self {
            GpuTarget::Gfx1250 => 32,
            GpuTarget::Gfx942 | GpuTarget::Gfx950 => 64,
        }
    }

    /// Subtarget features passed to the target machine and the disassembler.
    pub fn features(self) -> &'static str {
        match self {
            GpuTarget::Gfx1250 => "+wavefrontsize32",
            GpuTarget::Gfx942 | GpuTarget::Gfx950 => "+wavefrontsize64",
        }
    }

    /// Creates a target machine for this processor (PIC, as code objects are shared objects).
    pub fn target_machine(self, opt: OptLevel) -> Result<TargetMachine> {
        self.target_machine_with(opt, "")
    }

    /// As [`GpuTarget::target_machine`], with extra subtarget features (e.g. `+xnack,-sramecc`).
    pub fn target_machine_with(self, opt: OptLevel, extra_features: &str) -> Result<TargetMachine> {
        init();
        let features = if extra_features.is_empty() {
            self.features().to_string()
        } else {
            format!("{},{extra_features}", self.features())
        };
        let triple = TargetTriple::create(AMDHSA_TRIPLE);
        let target = Target::from_triple(&triple).map_err(|e| LlvmError::TargetMachine {
            cpu: self.cpu().to_string(),
            msg: e.to_string(),
        })?;
        target
            .create_target_machine(
                &triple,
                self.cpu(),
                &features,
                opt.codegen_level(),
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| LlvmError::TargetMachine {
                cpu: self.cpu().to_string(),
                msg: "LLVMCreateTargetMachine returned null".to_string(),
            })
    }
}

impl std::fmt::Display for GpuTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cpu())
    }
}

/// Gives `module` the amdgcn triple and data layout. The layout is the same for every AMDGPU
/// processor; it is read from one target machine made once per process (a target machine per
/// raised module cost about as much as raising a small kernel).
pub fn set_amdgpu_layout(module: &Module<'_>) -> Result<()> {
    static LAYOUT: std::sync::OnceLock<std::result::Result<String, String>> = std::sync::OnceLock::new();
    let layout = LAYOUT.get_or_init(|| {
        let tm = GpuTarget::Gfx942.target_machine(OptLevel::O2).map_err(|e| e.to_string())?;
        let dl = tm.get_target_data().get_data_layout();
        Ok(dl.as_str().to_string_lossy().into_owned())
    });
    let layout = layout.as_ref().map_err(|msg| LlvmError::TargetMachine { cpu: GpuTarget::Gfx942.cpu().to_string(), msg: msg.clone() })?;
    module.set_triple(&TargetTriple::create(AMDHSA_TRIPLE));
    module.set_data_layout(&inkwell::targets::TargetData::create(layout).get_data_layout());
    Ok(())
}

/// Optimisation level for both the middle-end pipeline and the backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OptLevel {
    O0,
    O1,
    #[default]
    O2,
    O3,
}

impl OptLevel {
    /// The middle end for IR from a front end (the corpus sources): LLVM's default pipeline.
    pub fn pipeline(self) -> &'static str {
        match self {
            OptLevel::O0 => "default<O0>",
            OptLevel::O1 => "default<O1>",
            OptLevel::O2 => "default<O2>",
            OptLevel::O3 => "default<O3>",
        }
    }

    /// The middle end for the raiser's IR (hx-lower, and hx-llc in the benches' shell-out). At
    /// O2 a pass list instead of `default<O2>`: the raised IR is kernels with no calls, an
    /// alloca per register and straight-line or exec-masked code, so the inliner, the loop and
    /// vectorizer passes and most repeats of `default<O2>` change nothing or little (issue 8:
    /// the corpus' dynamic instruction counts were as good or better, the middle end half the
    /// time). `infer-alignment` gives LDS loads the alignment ds_read_b128 needs;
    /// `amdgpu-attributor` the amdgpu-no-* attributes that spare preloaded registers.
    /// Without `reassociate` and the SLP vectorizer the code was better on the corpus, not worse.
    /// instcombine must not verify its fixpoint: a miss would be an `LLVM ERROR` (abort).
    /// [`LANE_BITS`] runs once the registers are SSA values (after SROA), before instcombine
    /// reshapes the bit reads it looks for; `adce` then removes the mask phi cycles left
    /// without uses (instcombine keeps them), and with them their ballots. [`KERNARG_LOADS`]
    /// runs after the function passes, once the address arithmetic is folded to
    /// `ptrtoint + C`; [`SOURCE_ATOMICS`] last, on the final addresses. [`CANONICAL_CONSTANTS`]
    /// folds the canonicalizes the function passes left with a constant. Run it with
    /// [`run_pipeline`] (`;` separates steps).
    pub fn raised_pipeline(self) -> &'static str {
        match self {
            OptLevel::O2 => concat!(
                "function(simplifycfg,sroa<modify-cfg>);hx-lane-bits;function(adce,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,",
                "early-cse<memssa>,speculative-execution,correlated-propagation,simplifycfg,",
                "instcombine<no-verify-fixpoint>,aggressive-instcombine,gvn,simplifycfg,infer-alignment);",
                "hx-canonical-constants;hx-kernarg-loads;amdgpu-attributor;hx-source-atomics"
            ),
            o => o.pipeline(),
        }
    }

    fn codegen_level(self) -> OptimizationLevel {
        match self {
            OptLevel::O0 => OptimizationLevel::None,
            OptLevel::O1 => OptimizationLevel::Less,
            OptLevel::O2 => OptimizationLevel::Default,
            OptLevel::O3 => OptimizationLevel::Aggressive,
        }
    }

    pub fn parse(s: &str) -> Option<OptLevel> {
        match s {
            "0" | "O0" => Some(OptLevel::O0),
            "1" | "O1" => Some(OptLevel::O1),
            "2" | "O2" => Some(OptLevel::O2),
            "3" | "O3" => Some(OptLevel::O3),
            _ => None,
        }
    }
}

/// What [`compile_ir`] and [`emit_module`] produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// A relocatable ELF object (ET_REL).
    Object,
    /// AMDGPU assembly text.
    Assembly,
    /// The optimised LLVM IR, as text.
    LlvmIr,
}

/// Collects the error diagnostics LLVM reports in one context. Without a handler, LLVM prints an
/// error diagnostic (a bad inline-assembly operand, an unsupported construct in the backend) and
/// calls `exit(1)`, which would end the host process; with one, the diagnostic arrives here and
/// the caller turns it into an error.
pub struct Diagnostics {
    errors: Box<std::sync::Mutex<Vec<String>>>,
}

extern "C" fn collect_diagnostic(info: llvm_sys::prelude::LLVMDiagnosticInfoRef, sink: *mut std::ffi::c_void) {
    // SAFETY: `sink` is the Mutex installed by `Diagnostics::install`, alive while the context is.
    unsafe {
        if llvm_sys::core::LLVMGetDiagInfoSeverity(info) != llvm_sys::LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let msg = llvm_sys::core::LLVMGetDiagInfoDescription(info);
        let text = CStr::from_ptr(msg).to_string_lossy().to_string();
        llvm_sys::core::LLVMDisposeMessage(msg);
        let errors = &*(sink as *const std::sync::Mutex<Vec<String>>);
        if let Ok(mut e) = errors.lock() {
            e.push(text);
        }
    }
}

impl Diagnostics {
    /// Installs the handler on `ctx`; keep the returned value alive as long as the context.
    pub fn install(ctx: &Context) -> Diagnostics {
        let errors = Box::new(std::sync::Mutex::new(Vec::new()));
        let sink = &*errors as *const std::sync::Mutex<Vec<String>> as *mut std::ffi::c_void;
        // SAFETY: the handler only reads `sink`, which lives in the Box owned by the result.
        unsafe { llvm_sys::core::LLVMContextSetDiagnosticHandler(ctx.raw(), Some(collect_diagnostic), sink) };
        Diagnostics { errors }
    }

    /// The errors reported so far.
    pub fn take(&self) -> Vec<String> {
        self.errors.lock().map(|mut e| std::mem::take(&mut *e)).unwrap_or_default()
    }

    /// Err(Codegen) if LLVM reported an error.
    pub fn check(&self, name: &str) -> Result<()> {
        let e = self.take();
        if e.is_empty() {
            Ok(())
        } else {
            Err(LlvmError::Codegen { name: name.to_string(), msg: e.join("; ") })
        }
    }
}

/// Verifies a module; never hand the backend a module that has not passed this (an `LLVM ERROR`
/// inside codegen aborts the host process).
pub fn verify(module: &Module<'_>, name: &str) -> Result<()> {
    module.verify().map_err(|e| {
        // The verifier repeats itself per offending value; the first lines say what is wrong.
        let mut msg = e.to_string();
        if msg.len() > 2000 {
            let cut = (0..=2000).rev().find(|&i| msg.is_char_boundary(i)).unwrap_or(0);
            msg.truncate(cut);
            msg.push_str(" ...");
        }
        LlvmError::Verify { name: name.to_string(), msg }
    })
}

/// Parses LLVM IR text into a module of `ctx`, and verifies it.
pub fn parse_ir<'ctx>(ctx: &'ctx Context, ir: &str, name: &str) -> Result<Module<'ctx>> {
    init();
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), name);
    let module = ctx
        .create_module_from_ir(buf)
        .map_err(|e| LlvmError::Parse { name: name.to_string(), msg: e.to_string() })?;
    verify(&module, name)?;
    Ok(module)
}

/// Whether `func`'s body has more than `bound` instructions (counting stops past the bound).
pub fn more_instructions_than(func: inkwell::values::FunctionValue<'_>, bound: usize) -> bool {
    let mut n = 0usize;
    for bb in func.get_basic_block_iter() {
        n += bb.get_instructions().take(bound.saturating_add(1)).count();
        if n > bound {
            return true;
        }
    }
    false
}

/// Sets triple and data layout, runs the optimisation pipeline and emits. The module is consumed in
/// spirit: codegen mutates it, so emit each artefact from a fresh module (shared/LLVM.md).
pub fn emit_module(module: &Module<'_>, name: &str, target: GpuTarget, opt: OptLevel, emit: Emit) -> Result<Vec<u8>> {
    let tm = target.target_machine(opt)?;
    emit_with_machine(module, name, &tm, opt, emit)
}

/// As [`emit_module`], with a target machine the caller made (extra features, reuse).
pub fn emit_with_machine(module: &Module<'_>, name: &str, tm: &TargetMachine, opt: OptLevel, emit: Emit) -> Result<Vec<u8>> {
    verify(module, name)?;
    emit_verified(module, name, tm, opt, emit)
}

/// [`emit_with_machine`] for a module the caller has just verified (and not changed since but
/// for attributes): the verifier is not run a second time on the same IR.
pub fn emit_verified(module: &Module<'_>, name: &str, tm: &TargetMachine, opt: OptLevel, emit: Emit) -> Result<Vec<u8>> {
    emit_verified_with(module, name, tm, opt.pipeline(), emit)
}

/// Runs a middle-end pipeline: LLVM pass pipelines separated by `;`, where the steps
/// [`LANE_BITS`], [`KERNARG_LOADS`], [`CANONICAL_CONSTANTS`] and [`SOURCE_ATOMICS`] are this
/// crate's own rewrites (lane_bits.rs, kernarg_loads.rs, canonical_constants.rs,
/// source_atomics.rs).
pub fn run_pipeline(module: &Module<'_>, name: &str, tm: &TargetMachine, passes: &str) -> Result<()> {
    for step in passes.split(';') {
        if step == LANE_BITS {
            lane_bits::rewrite(module);
            continue;
        }
        if step == KERNARG_LOADS {
            kernarg_loads::rewrite(module);
            continue;
        }
        if step == CANONICAL_CONSTANTS {
            canonical_constants::rewrite(module);
            continue;
        }
        if step == SOURCE_ATOMICS {
            source_atomics::rewrite(module);
            continue;
        }
        if step == SCHED_REGIONS {
            sched_regions::rewrite(module);
            continue;
        }
        module.run_passes(step, tm, PassBuilderOptions::create()).map_err(|e| LlvmError::Passes {
            name: name.to_string(),
            pipeline: passes.to_string(),
            msg: e.to_string(),
        })?;
    }
    Ok(())
}

/// The pipeline step that reads threads' own bits of ballot-built masks without the masks.
pub const LANE_BITS: &str = "hx-lane-bits";

/// The pipeline step that loads kernel arguments through the kernarg pointer (kernarg_loads.rs).
pub const KERNARG_LOADS: &str = "hx-kernarg-loads";

/// The pipeline step that keeps the target's atomic optimizer off atomics the source compiler
/// already shaped (source_atomics.rs).
pub const SOURCE_ATOMICS: &str = "hx-source-atomics";

/// The pipeline step that bounds the scheduling regions of very long blocks (sched_regions.rs).
pub const SCHED_REGIONS: &str = "hx-sched-regions";

/// The pipeline step that folds `llvm.canonicalize` of a constant as the hardware would
/// (canonical_constants.rs).
pub const CANONICAL_CONSTANTS: &str = "hx-canonical-constants";

/// [`emit_verified`] with the middle-end pipeline `passes` (e.g. [`OptLevel::raised_pipeline`]);
/// the backend's optimisation level is the target machine's.
pub fn emit_verified_with(module: &Module<'_>, name: &str, tm: &TargetMachine, passes: &str, emit: Emit) -> Result<Vec<u8>> {
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    run_pipeline(module, name, tm, passes)?;
    // The pipeline must leave a valid module; check again before the backend sees it.
    verify(module, name)?;
    let file_type = match emit {
        Emit::LlvmIr => return Ok(module.print_to_string().to_bytes().to_vec()),
        Emit::Object => FileType::Object,
        Emit::Assembly => FileType::Assembly,
    };
    let buf = tm
        .write_to_memory_buffer(module, file_type)
        .map_err(|e| LlvmError::Codegen { name: name.to_string(), msg: e.to_string() })?;
    Ok(buf.as_slice().to_vec())
}

/// Compiles LLVM IR text for `target` in-process, in a fresh context.
pub fn compile_ir(ir: &str, name: &str, target: GpuTarget, opt: OptLevel, emit: Emit) -> Result<Vec<u8>> {
    compile_ir_with(ir, name, target, opt, opt.pipeline(), emit)
}

/// [`compile_ir`] with the middle-end pipeline `passes` (e.g. [`OptLevel::raised_pipeline`]).
pub fn compile_ir_with(ir: &str, name: &str, target: GpuTarget, opt: OptLevel, passes: &str, emit: Emit) -> Result<Vec<u8>> {
    let ctx = Context::create();
    let diags = Diagnostics::install(&ctx);
    // parse_ir verified the module.
    let module = parse_ir(&ctx, ir, name)?;
    let tm = target.target_machine(opt)?;
    let out = emit_verified_with(&module, name, &tm, passes, emit)?;
    diags.check(name)?;
    Ok(out)
}

/// The in-process assembler: `asm` (AMDGPU assembly text) becomes a relocatable object for `target`
/// through module-level inline assembly. Useful for building test inputs.
pub fn assemble(asm: &str, name: &str, target: GpuTarget) -> Result<Vec<u8>> {
    init();
    let ctx = Context::create();
    let diags = Diagnostics::install(&ctx);
    let module = ctx.create_module(name);
    module.set_inline_assembly(asm);
    let tm = target.target_machine(OptLevel::O0)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    verify(&module, name)?;
    let buf = tm
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| LlvmError::Codegen { name: name.to_string(), msg: e.to_string() })?;
    diags.check(name)?;
    Ok(buf.as_slice().to_vec())
}

/// LLVM's disassembler for one processor: the reference oracle for the project's own decoder.
/// Not `Sync`: use one per thread.
pub struct Disassembler {
    raw: llvm_sys::disassembler::LLVMDisasmContextRef,
    target: GpuTarget,
}

// SAFETY: the context is owned and used by one thread at a time (no Sync).
unsafe impl Send for Disassembler {}

impl Disassembler {
    pub fn new(target: GpuTarget) -> Result<Disassembler> {
        Disassembler::with_features(target, "")
    }

    /// As [`Disassembler::new`], with extra subtarget features after the target's own (e.g.
    /// `+real-true16`, under which gfx1250's 16-bit operands name VGPR halves).
    pub fn with_features(target: GpuTarget, extra_features: &str) -> Result<Disassembler> {
        init();
        let triple = CString::new(AMDHSA_TRIPLE).unwrap();
        let cpu = CString::new(target.cpu()).unwrap();
        let features = if extra_features.is_empty() {
            target.features().to_string()
        } else {
            format!("{},{extra_features}", target.features())
        };
        let features = CString::new(features).map_err(|_| LlvmError::Disassembler { cpu: target.cpu().to_string() })?;
        // SAFETY: valid NUL-terminated strings; no callbacks.
        let raw = unsafe {
            llvm_sys::disassembler::LLVMCreateDisasmCPUFeatures(
                triple.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                std::ptr::null_mut(),
                0,
                None,
                None,
            )
        };
        if raw.is_null() {
            return Err(LlvmError::Disassembler { cpu: target.cpu().to_string() });
        }
        Ok(Disassembler { raw, target })
    }

    pub fn target(&self) -> GpuTarget {
        self.target
    }

    /// Decodes one instruction at the start of `bytes` (at address `pc`). Returns its length and
    /// LLVM's text (leading tab removed), or `None` when LLVM finds no valid instruction.
    pub fn decode(&mut self, bytes: &[u8], pc: u64) -> Option<(usize, String)> {
        if bytes.is_empty() {
            return None;
        }
        let mut out = [0 as std::ffi::c_char; 512];
        // LLVM 22's AMDGPU decoder can read a literal past the size it is given (seen with an
        // 8-byte VOP3 word whose literal is cut off): hand it a zero-padded copy, and refuse any
        // instruction longer than the real input.
        let n = bytes.len().min(64);
        let mut padded = [0u8; 64 + 32];
        padded[..n].copy_from_slice(&bytes[..n]);
        // SAFETY: `padded` outlives the call and has 32 readable bytes beyond `n`; `out` is a
        // writable buffer of the given size.
        let len = unsafe {
            llvm_sys::disassembler::LLVMDisasmInstruction(
                self.raw,
                padded.as_mut_ptr(),
                n as u64,
                pc,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        if len == 0 || len > n {
            return None;
        }
        // SAFETY: LLVM NUL-terminates within the buffer.
        let text = unsafe { CStr::from_ptr(out.as_ptr()) }.to_string_lossy();
        Some((len, text.trim_start().to_string()))
    }
}

impl Drop for Disassembler {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateDisasmCPUFeatures, disposed once.
        unsafe { llvm_sys::disassembler::LLVMDisasmDispose(self.raw) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD_KERNEL: &str = r#"
define amdgpu_kernel void @add(ptr addrspace(1) %out, i32 %v) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;

    /// The raiser's IR keeps each register in an alloca; the raised-IR pipeline must promote
    /// them and leave the attributes the attributor infers (a pipeline typo is an error here).
    #[test]
    fn raised_pipeline_promotes_registers_and_infers_attributes() {
        let ir = r#"
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
regs:
  %v0 = alloca i32, align 4, addrspace(5)
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %id, ptr addrspace(5) %v0
  %x = load i32, ptr addrspace(5) %v0
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %x
  store i32 %x, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;
        for o in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            compile_ir_with(ir, "k", GpuTarget::Gfx942, o, o.raised_pipeline(), Emit::Object).unwrap();
        }
        let opt = compile_ir_with(ir, "k", GpuTarget::Gfx942, OptLevel::O2, OptLevel::O2.raised_pipeline(), Emit::LlvmIr).unwrap();
        let opt = String::from_utf8(opt).unwrap();
        assert!(!opt.contains("alloca"), "{opt}");
        assert!(opt.contains("\"amdgpu-no-dispatch-ptr\""), "{opt}");
    }

    #[test]
    fn compiles_for_every_target() {
        for t in GpuTarget::ALL {
            let obj = compile_ir(ADD_KERNEL, "add", t, OptLevel::O2, Emit::Object).unwrap();
            assert_eq!(&obj[..4], b"\x7fELF", "{t}");
            let asm = compile_ir(ADD_KERNEL, "add", t, OptLevel::O2, Emit::Assembly).unwrap();
            let asm = String::from_utf8(asm).unwrap();
            assert!(asm.contains(&format!(".amdhsa_kernel add")), "{t}: {asm}");
            assert!(asm.contains(t.cpu()), "{t}");
        }
    }

    #[test]
    fn bad_ir_is_an_error_not_an_abort() {
        let e = compile_ir("define void @f( {", "bad", GpuTarget::Gfx942, OptLevel::O2, Emit::Object).unwrap_err();
        assert!(matches!(e, LlvmError::Parse { .. }), "{e}");
        // Parses but fails the verifier: a block without terminator.
        let e = compile_ir("define void @f() {\nentry:\n  %x = add i32 1, 2\n}\n", "bad", GpuTarget::Gfx942, OptLevel::O2, Emit::Object)
            .unwrap_err();
        assert!(matches!(e, LlvmError::Parse { .. } | LlvmError::Verify { .. }), "{e}");
    }

    #[test]
    fn assembler_and_disassembler_round_trip() {
        let obj = assemble(".text\ns_endpgm\n", "t", GpuTarget::Gfx1250).unwrap();
        assert_eq!(&obj[..4], b"\x7fELF");
        let mut d = Disassembler::new(GpuTarget::Gfx1250).unwrap();
        // s_endpgm on GFX12: 0xbfb00000
        let (len, text) = d.decode(&[0x00, 0x00, 0xb0, 0xbf], 0).unwrap();
        assert_eq!((len, text.as_str()), (4, "s_endpgm"));
        let mut d = Disassembler::new(GpuTarget::Gfx942).unwrap();
        // s_endpgm on GFX9: 0xbf810000
        let (len, text) = d.decode(&[0x00, 0x00, 0x81, 0xbf], 0).unwrap();
        assert_eq!((len, text.as_str()), (4, "s_endpgm"));
        assert!(d.decode(&[], 0).is_none());
    }

    #[test]
    fn bad_assembly_is_an_error_not_an_exit() {
        // Without a diagnostic handler LLVM would print the error and exit the process.
        let e = assemble(".text\nv_add_f32 v0, v1\n", "bad", GpuTarget::Gfx942).unwrap_err();
        assert!(matches!(&e, LlvmError::Codegen { msg, .. } if msg.contains("invalid") || msg.contains("too few")), "{e}");
        assert!(assemble(".text\nnot_an_instruction v0\n", "bad", GpuTarget::Gfx1250).is_err());
        // And the next assembly in the same process still works.
        assert!(assemble(".text\ns_endpgm\n", "ok", GpuTarget::Gfx1250).is_ok());
    }

    #[test]
    fn contexts_on_many_threads() {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    let t = GpuTarget::ALL[i % 3];
                    compile_ir(ADD_KERNEL, "add", t, OptLevel::O2, Emit::Object).unwrap().len()
                })
            })
            .collect();
        for h in handles {
            assert!(h.join().unwrap() > 0);
        }
    }
}
