//! hx-lower: the lowering stage. A raised LLVM module gets the source kernels' attributes
//! (work-group size bounds, uniform work-group size, denormal modes) and goes through LLVM's
//! optimisation pipeline and the AMDGPU backend for gfx942 or gfx950, in-process, giving a
//! relocatable object (or assembly, or the optimised IR) in memory.

use hx_llvm::inkwell::attributes::AttributeLoc;
use hx_llvm::inkwell::module::Module;
use hx_llvm::inkwell::values::AsValueRef;
pub use hx_llvm::{Emit, GpuTarget, OptLevel};

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error(transparent)]
    Llvm(#[from] hx_llvm::LlvmError),
    #[error("kernel {0} is not in the module")]
    NoSuchKernel(String),
    #[error("{target} is not a lowering target (gfx942 and gfx950 are)")]
    NotATarget { target: GpuTarget },
    #[error("kernel {kernel}: {msg}")]
    BadAttribute { kernel: String, msg: String },
}

/// How a denormal mode of the source kernel is carried to the target (`denormal-fp-math`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Denormals {
    /// Denormals in and out (FLOAT_DENORM_MODE 3).
    Ieee,
    /// Flushed to signed zero in and out (FLOAT_DENORM_MODE 0).
    PreserveSign,
}

impl Denormals {
    /// From a descriptor's FLOAT_DENORM_MODE field (0..=3). Only the two modes LLVM can express
    /// for both inputs and outputs are accepted.
    pub fn from_descriptor(mode: u32) -> Option<Denormals> {
        match mode {
            3 => Some(Denormals::Ieee),
            0 => Some(Denormals::PreserveSign),
            _ => None,
        }
    }
    fn attr(self) -> &'static str {
        match self {
            Denormals::Ieee => "ieee,ieee",
            Denormals::PreserveSign => "preserve-sign,preserve-sign",
        }
    }
}

/// What the source code object says about a kernel that the target compile must honour.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelAttrs {
    pub name: String,
    /// (min, max) flat work-group size.
    pub flat_workgroup_size: Option<(u32, u32)>,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub uniform_work_group_size: bool,
    pub denormals_f32: Denormals,
    pub denormals_f16_f64: Denormals,
}

/// Target and options of one lowering.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LowerOptions {
    pub target: GpuTarget,
    pub opt: OptLevel,
    /// `Some(true)` = `:xnack+`, `Some(false)` = `:xnack-`, None = any.
    pub xnack: Option<bool>,
    pub sramecc: Option<bool>,
}

impl LowerOptions {
    pub fn new(target: GpuTarget) -> LowerOptions {
        LowerOptions { target, opt: OptLevel::O2, xnack: None, sramecc: None }
    }

    fn features(&self) -> String {
        let mut f = Vec::new();
        if let Some(x) = self.xnack {
            f.push(if x { "+xnack" } else { "-xnack" });
        }
        if let Some(s) = self.sramecc {
            f.push(if s { "+sramecc" } else { "-sramecc" });
        }
        f.join(",")
    }
}

/// Puts the attributes on each kernel function of `module`.
pub fn apply_kernel_attrs(module: &Module<'_>, kernels: &[KernelAttrs]) -> Result<(), LowerError> {
    let ctx = module.get_context();
    for k in kernels {
        let f = module.get_function(&k.name).ok_or_else(|| LowerError::NoSuchKernel(k.name.clone()))?;
        let set = |key: &str, value: &str| f.add_attribute(AttributeLoc::Function, ctx.create_string_attribute(key, value));
        if let Some((lo, hi)) = k.flat_workgroup_size {
            if lo == 0 || lo > hi || hi > 1024 {
                return Err(LowerError::BadAttribute { kernel: k.name.clone(), msg: format!("flat work-group size {lo},{hi}") });
            }
            set("amdgpu-flat-work-group-size", &format!("{lo},{hi}"));
        }
        if k.uniform_work_group_size {
            set("uniform-work-group-size", "true");
        }
        set("denormal-fp-math-f32", k.denormals_f32.attr());
        set("denormal-fp-math", k.denormals_f16_f64.attr());
        if let Some(r) = k.reqd_workgroup_size {
            // !reqd_work_group_size !{i32 x, i32 y, i32 z}
            let i32t = ctx.i32_type();
            let node = ctx.metadata_node(&[
                i32t.const_int(r[0] as u64, false).into(),
                i32t.const_int(r[1] as u64, false).into(),
                i32t.const_int(r[2] as u64, false).into(),
            ]);
            let kind = ctx.get_kind_id("reqd_work_group_size");
            // SAFETY: `f` and `node` belong to this module's context; LLVM copies the reference.
            unsafe {
                hx_llvm::llvm_sys::core::LLVMGlobalSetMetadata(
                    f.as_value_ref(),
                    kind,
                    hx_llvm::llvm_sys::core::LLVMValueAsMetadata(node.as_value_ref()),
                );
            }
        }
    }
    Ok(())
}

/// Optimises and compiles `module` for the target. Codegen mutates the module: give each
/// emission its own module (shared/LLVM.md).
pub fn lower(module: &Module<'_>, name: &str, options: &LowerOptions, emit: Emit) -> Result<Vec<u8>, LowerError> {
    hx_llvm::verify(module, name)?;
    lower_verified(module, name, options, emit)
}

/// [`lower`] for a module the caller has just verified (attributes applied after the verifier
/// ran are fine): the verifier does not run twice on the same IR.
pub fn lower_verified(module: &Module<'_>, name: &str, options: &LowerOptions, emit: Emit) -> Result<Vec<u8>, LowerError> {
    if options.target == GpuTarget::Gfx1250 {
        return Err(LowerError::NotATarget { target: options.target });
    }
    let key = (options.target, options.opt, options.features());
    MACHINES.with(|cache| {
        let mut cache = cache.borrow_mut();
        // Creating a target machine costs about as much as lowering a small kernel (issue 8's
        // profile), and one machine compiles any number of modules in turn; each thread keeps
        // its own because a TargetMachine is not shareable across threads.
        if !cache.iter().any(|(k, _)| *k == key) {
            let tm = options.target.target_machine_with(options.opt, &key.2)?;
            cache.push((key.clone(), tm));
        }
        let tm = &cache.iter().find(|(k, _)| *k == key).expect("inserted above").1;
        Ok(hx_llvm::emit_verified_with(module, name, tm, options.opt.raised_pipeline(), emit)?)
    })
}

type MachineKey = (GpuTarget, OptLevel, String);

thread_local! {
    static MACHINES: std::cell::RefCell<Vec<(MachineKey, hx_llvm::inkwell::targets::TargetMachine)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Parses IR text, applies the attributes and lowers it, in a fresh context.
pub fn lower_ir(ir: &str, name: &str, kernels: &[KernelAttrs], options: &LowerOptions, emit: Emit) -> Result<Vec<u8>, LowerError> {
    let ctx = hx_llvm::inkwell::context::Context::create();
    let diags = hx_llvm::Diagnostics::install(&ctx);
    let module = hx_llvm::parse_ir(&ctx, ir, name)?;
    apply_kernel_attrs(&module, kernels)?;
    let out = lower_verified(&module, name, options, emit)?;
    diags.check(name)?;
    Ok(out)
}
