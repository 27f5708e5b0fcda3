//! hx-lower: the lowering stage. A raised LLVM module gets the source kernels' attributes
//! (work-group size bounds, uniform work-group size, denormal modes) and goes through LLVM's
//! optimisation pipeline and the AMDGPU backend for gfx942 or gfx950, in-process, giving a
//! relocatable object (or assembly, or the optimised IR) in memory. Between the two, values live
//! across long stretches of very big blocks get AGPR homes (agpr_homes.rs). Above sizes no
//! normal kernel reaches ([`SizeBounds`]), a lowering asks LLVM for less, so that its time grows
//! with the code: kernels of very many blocks are lowered as a kernel that calls its parts
//! (hx_llvm::split_parts), very long blocks are scheduled as bounded regions, functions of
//! very many blocks skip a codegen pass whose cost is blocks x registers
//! ([`SKIPPED_IN_MANY_BLOCKS`]), and functions of very many instructions get a single-pass
//! machine scheduler and skip SLSR ([`HUGE_FUNCTION`]).
//!
//! Target machines are pooled for the process, each with its object codegen pipeline when the
//! crate was built with the C++ pipeline shim (codegen.rs, build.rs); without it, objects are
//! emitted through LLVM's C API, with the same bytes.

pub mod agpr_homes;
mod codegen;
pub use codegen::{pipeline_counts, pipeline_status, Codegen, PipelineCounts};
use codegen::MachineAndPipelines;

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
    /// VGPRs the source kernel uses (its metadata's `.vgpr_count`): a hint for the backend, see
    /// [`ONE_WAVE_VGPRS`].
    pub source_vgprs: Option<u32>,
}

/// A source kernel that keeps more VGPRs than this lives in the target's registers only at one
/// wave per SIMD: gfx942 and gfx950 give a lane 512 VGPRs and AGPRs at one wave, 256 at two.
/// Its translation is then told so (`"amdgpu-waves-per-eu"="1,1"`), and the machine scheduler
/// does not schedule each region again in search of an occupancy it cannot reach (LLVM's
/// rescheduling stages for high register pressure and lost occupancy): Triton's 128x128 matmul
/// compiled in half the time with the same registers and spills.
pub const ONE_WAVE_VGPRS: u32 = 256;

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
        if k.source_vgprs.is_some_and(|v| v > ONE_WAVE_VGPRS) {
            set("amdgpu-waves-per-eu", "1,1");
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
    lower_verified_via(module, name, options, emit, Codegen::default_path())
}

/// [`lower_verified`] with the way objects and assembly are emitted chosen by the caller
/// ([`Codegen::Pipeline`] is an error in a build without the shim).
pub fn lower_verified_via(module: &Module<'_>, name: &str, options: &LowerOptions, emit: Emit, codegen: Codegen) -> Result<Vec<u8>, LowerError> {
    lower_verified_bounded(module, name, options, emit, codegen, &SizeBounds::DEFAULT)
}

/// The sizes above which a lowering changes what it asks of LLVM, so that its time grows with
/// the code and not faster (issue 29). Normal kernels are below all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeBounds {
    /// Blocks with more instructions than this are scheduled as bounded regions
    /// (`hx_llvm::sched_regions`).
    pub sched_min_block: usize,
    /// Instructions per scheduling region in such a block.
    pub sched_region: usize,
    /// Functions with more blocks than this are lowered without [`SKIPPED_IN_MANY_BLOCKS`].
    pub many_blocks: u32,
    /// Functions with more instructions than this get [`HUGE_FUNCTION_SCHED_STRATEGY`] and are
    /// lowered without [`SKIPPED_IN_HUGE_FUNCTIONS`].
    pub huge_function: usize,
    /// Kernels with more blocks than this (as raised, before the middle end) are split into a
    /// kernel that calls its parts (`hx_llvm::split_parts`).
    pub split_blocks: usize,
    /// About how many blocks go into each such part.
    pub part_blocks: usize,
    /// Kernels with more instructions than this (as raised) are split too.
    pub split_instructions: usize,
    /// About how many instructions (after SROA) go into each part.
    pub part_instructions: usize,
}

impl SizeBounds {
    /// What every lowering uses.
    pub const DEFAULT: SizeBounds = SizeBounds {
        sched_min_block: hx_llvm::sched_regions::MIN_BLOCK,
        sched_region: hx_llvm::sched_regions::REGION,
        many_blocks: MANY_BLOCKS,
        huge_function: HUGE_FUNCTION,
        split_blocks: hx_llvm::split_parts::MIN_BLOCKS,
        part_blocks: hx_llvm::split_parts::PART_BLOCKS,
        split_instructions: hx_llvm::split_parts::MIN_INSTRUCTIONS,
        part_instructions: hx_llvm::split_parts::PART_INSTRUCTIONS,
    };
    /// No size-dependent change at all (to compare against).
    pub const OFF: SizeBounds = SizeBounds {
        sched_min_block: usize::MAX,
        sched_region: usize::MAX,
        many_blocks: u32::MAX,
        huge_function: usize::MAX,
        split_blocks: usize::MAX,
        part_blocks: usize::MAX,
        split_instructions: usize::MAX,
        part_instructions: usize::MAX,
    };
    /// [`SizeBounds::DEFAULT`] without the split into parts.
    pub const NO_SPLIT: SizeBounds = SizeBounds { split_blocks: usize::MAX, split_instructions: usize::MAX, ..SizeBounds::DEFAULT };
}

/// [`lower_verified_via`] with the size bounds chosen by the caller.
pub fn lower_verified_bounded(
    module: &Module<'_>,
    name: &str,
    options: &LowerOptions,
    emit: Emit,
    codegen: Codegen,
    bounds: &SizeBounds,
) -> Result<Vec<u8>, LowerError> {
    if options.target == GpuTarget::Gfx1250 {
        return Err(LowerError::NotATarget { target: options.target });
    }
    let mut machine = Machine::take(options)?;
    let m = machine.get();
    let tm = &m.tm;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    // Kernels of very many blocks become a kernel that calls its parts (split_parts.rs in
    // hx-llvm): passes whose cost grows faster than a function then see bounded functions.
    let big = hx_llvm::split_parts::big_kernels(module, bounds.split_blocks, bounds.split_instructions);
    if !big.is_empty() {
        hx_llvm::run_pipeline(module, name, tm, hx_llvm::split_parts::BEFORE_SPLIT)?;
        if hx_llvm::split_parts::split(module, &big, bounds.part_blocks, bounds.part_instructions) > 0 {
            hx_llvm::verify(module, name)?;
        }
    }
    hx_llvm::run_pipeline(module, name, tm, options.opt.raised_pipeline())?;
    // Values live across long stretches of big blocks get AGPR homes (agpr_homes.rs), so that
    // the register allocator does not have to find them.
    agpr_homes::rewrite(module);
    // Very long blocks are scheduled as bounded regions (sched_regions.rs in hx-llvm): the
    // machine schedulers' cost grows faster than a region. Blocks of normal kernels are shorter
    // than the bound and stay as they were. At O0 no machine scheduler runs.
    if options.opt != OptLevel::O0 {
        hx_llvm::sched_regions::rewrite_with(module, bounds.sched_min_block, bounds.sched_region);
    }
    // The pipeline must leave a valid module; check again before the backend sees it.
    hx_llvm::verify(module, name)?;
    // Codegen passes whose cost grows faster than the code are skipped on functions of very
    // many blocks or instructions, where LLVM allows it (see [`SKIPPED_IN_MANY_BLOCKS`],
    // [`SKIPPED_IN_HUGE_FUNCTIONS`]); huge functions get a single-pass machine scheduler
    // ([`HUGE_FUNCTION_SCHED_STRATEGY`]).
    let many = many_block_functions(module, bounds.many_blocks);
    let huge = huge_functions(module, bounds.huge_function);
    let ctx = module.get_context();
    for func in huge.iter().filter_map(|f| module.get_function(f)) {
        func.add_attribute(AttributeLoc::Function, ctx.create_string_attribute("amdgpu-sched-strategy", HUGE_FUNCTION_SCHED_STRATEGY));
    }
    let rules: Vec<(&str, String)> = many
        .iter()
        .flat_map(|f| SKIPPED_IN_MANY_BLOCKS.iter().map(move |p| (*p, f.clone())))
        .chain(huge.iter().flat_map(|f| SKIPPED_IN_HUGE_FUNCTIONS.iter().map(move |p| (*p, f.clone()))))
        .collect();
    let skip = codegen::SkipPasses::install(module, &rules);
    if skip.active() && !many.is_empty() {
        MANY_BLOCK_LOWERINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    if skip.active() && !huge.is_empty() {
        HUGE_FUNCTION_LOWERINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let out = m.emit(module, name, emit, codegen);
    // The gate goes before anything else uses the module's context.
    drop(skip);
    Ok(out?)
}

/// Functions with more basic blocks than this are lowered without [`SKIPPED_IN_MANY_BLOCKS`].
/// The corpus' kernels have at most a few hundred blocks (654 in the biggest Triton matmul).
pub const MANY_BLOCKS: u32 = 2000;

/// Codegen passes (by pass argument and name) left out on functions of more than
/// [`MANY_BLOCKS`] blocks. `si-form-memory-clauses` (only run when XNACK is on, as it is for
/// `xnack` any) works out the live registers at the first load of each block by walking every
/// virtual register of the function (`GCNDownwardRPTracker::reset`): blocks x registers, the
/// quadratic step of code with many branches (0.7 s of 2.7 s at 20k gfx1250 instructions of
/// uniform branches, 61x the time for 4x the code). It is an optimisation (it lengthens
/// pointer live ranges so that runs of loads stay soft clauses); without it the backend's hazard
/// recognizer still breaks any clause XNACK replay could not survive, as at O0. LLVM lets a gate
/// skip it (`FunctionPass::skipFunction`); passes LLVM needs do not ask the gate.
pub const SKIPPED_IN_MANY_BLOCKS: &[&str] = &["si-form-memory-clauses", "SI Form memory clauses"];

static MANY_BLOCK_LOWERINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many lowerings of this process left [`SKIPPED_IN_MANY_BLOCKS`] out on some function
/// (0 in a build without the codegen shim, which holds the pass gate).
pub fn many_block_lowerings() -> u64 {
    MANY_BLOCK_LOWERINGS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Functions with more IR instructions than this (after the raised pipeline) are lowered with
/// the machine scheduler of [`HUGE_FUNCTION_SCHED_STRATEGY`] and without
/// [`SKIPPED_IN_HUGE_FUNCTIONS`]. Of the corpus and compiled suites only Triton's
/// matmul_f16_128_w4 is above it, raised for gfx942 (about 18,000) and for gfx950 (16,800); the
/// next are dot_scaled_e4m3_w1 (10,700) and matmul_f16_128_w8 for gfx942 (10,100). On the gfx950
/// build it costs 0.5% more executed instructions (19,682 -> 19,780) for 18% less translation
/// time.
pub const HUGE_FUNCTION: usize = 15_000;

/// The machine scheduler (`amdgpu-sched-strategy`, a function attribute) of functions of more
/// than [`HUGE_FUNCTION`] instructions. Such functions are the big GEMMs, whose register
/// pressure is past what the registers hold; there the default scheduler
/// (`GCNMaxOccupancySchedStrategy`) schedules every region again in up to three more stages
/// (unclustered, clustered at low occupancy, rematerialization), each moving instructions one
/// at a time through the slot indexes of a function of tens of thousands of instructions.
/// `max-memory-clause` schedules each region once. On matmul_f16_128_w4 for gfx942 it cut
/// `llc-22`'s scheduling time from 0.38 to 0.08 s and the VGPR spills from 368 to 327.
pub const HUGE_FUNCTION_SCHED_STRATEGY: &str = "max-memory-clause";

/// Codegen passes (by pass argument and name) left out on functions of more than
/// [`HUGE_FUNCTION`] instructions. Straight-line strength reduction looks for a basis among the
/// last 50 candidates of each add, multiply and GEP, computing SCEV differences (and the SCEV
/// poison checks that walk the candidate's block): 0.24 s of `llc-22` on matmul_f16_128_w4 for
/// gfx942, for one instruction less of 22,613 (the raised code's addresses are already
/// simplified by the middle end). An optimisation, skippable (`FunctionPass::skipFunction`).
pub const SKIPPED_IN_HUGE_FUNCTIONS: &[&str] = &["slsr", "Straight line strength reduction"];

static HUGE_FUNCTION_LOWERINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many lowerings of this process left [`SKIPPED_IN_HUGE_FUNCTIONS`] out on some function
/// (0 in a build without the codegen shim, which holds the pass gate; the scheduler attribute
/// is set either way).
pub fn huge_function_lowerings() -> u64 {
    HUGE_FUNCTION_LOWERINGS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The functions of `module` with a body of more than `huge` instructions.
pub fn huge_functions(module: &Module<'_>, huge: usize) -> Vec<String> {
    function_names_where(module, |f| hx_llvm::more_instructions_than(f, huge))
}

/// The functions of `module` with a body of more than `many` basic blocks.
pub fn many_block_functions(module: &Module<'_>, many: u32) -> Vec<String> {
    function_names_where(module, |f| f.count_basic_blocks() > many)
}

fn function_names_where(module: &Module<'_>, pred: impl Fn(hx_llvm::inkwell::values::FunctionValue<'_>) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if pred(func) {
            out.push(func.get_name().to_string_lossy().into_owned());
        }
        f = func.get_next_function();
    }
    out
}

/// Makes the process's first lowering for `options` as fast as a later one: a target machine
/// for them goes into the pool, after lowering a small kernel so that its lazily built tables
/// (subtarget, register aliases) exist and the backend's code is paged in. For a runtime to call
/// while it has time (at start-up, on a background thread) before the first translation.
pub fn prewarm(options: &LowerOptions) -> Result<(), LowerError> {
    const KERNEL: &str = r#"
define amdgpu_kernel void @hx_prewarm(ptr addrspace(1) %p) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %a = getelementptr i32, ptr addrspace(1) %p, i32 %id
  %v = load i32, ptr addrspace(1) %a
  %w = add i32 %v, %id
  store i32 %w, ptr addrspace(1) %a
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;
    lower_ir(KERNEL, "hx_prewarm", &[], options, Emit::Object).map(|_| ())
}

type MachineKey = (GpuTarget, OptLevel, String);

fn machine_key(options: &LowerOptions) -> MachineKey {
    (options.target, options.opt, options.features())
}

/// A target machine in [`MACHINES`], with its codegen pipelines: the next lowering to take it
/// may run on another thread.
struct PooledMachine(MachineAndPipelines);

// SAFETY: LLVM ties a TargetMachine (and a pass manager built for it) to no thread; what it
// forbids is two threads using one at the same time (its lazily built caches are not locked).
// The pool hands each machine to one lowering at a time, and a lowering uses it on its own
// thread only.
unsafe impl Send for PooledMachine {}

/// The target machines no lowering is using, with their key (target, optimisation level,
/// features). Creating one and building its caches costs about as much as a warm lowering of a
/// small kernel (22.5 M instructions against 20.1 M, BENCHMARKS.md section 8), and one machine compiles any number of
/// modules in turn, so they are kept for the process: a lowering takes one and puts it back.
/// Machines are shared by all threads rather than kept per thread, so that a thread's first
/// lowering (a new rayon worker, a runtime thread) finds a warm machine another thread made.
/// Each keeps the codegen pipelines built for it (codegen.rs), which are as costly to build.
static MACHINES: std::sync::Mutex<Vec<(MachineKey, PooledMachine)>> = std::sync::Mutex::new(Vec::new());

/// A target machine taken from [`MACHINES`] (or made) for one lowering; it goes back on drop.
struct Machine {
    key: MachineKey,
    m: Option<MachineAndPipelines>,
}

impl Machine {
    fn take(options: &LowerOptions) -> Result<Machine, LowerError> {
        let key = machine_key(options);
        let pooled = {
            let mut pool = MACHINES.lock().unwrap_or_else(|e| e.into_inner());
            pool.iter().position(|(k, _)| *k == key).map(|i| pool.swap_remove(i).1 .0)
        };
        let m = match pooled {
            Some(m) => m,
            None => MachineAndPipelines::new(options.target.target_machine_with(options.opt, &key.2)?),
        };
        Ok(Machine { key, m: Some(m) })
    }

    fn get(&mut self) -> &mut MachineAndPipelines {
        self.m.as_mut().expect("present until drop")
    }

    #[cfg(test)]
    fn as_mut_ptr(&self) -> hx_llvm::llvm_sys::target_machine::LLVMTargetMachineRef {
        self.m.as_ref().expect("present until drop").tm.as_mut_ptr()
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        // A lowering cut short by a panic may have left the machine's caches or its pipelines
        // half built: it is not shared again.
        if std::thread::panicking() {
            return;
        }
        if let Some(m) = self.m.take() {
            let mut pool = MACHINES.lock().unwrap_or_else(|e| e.into_inner());
            pool.push((self.key.clone(), PooledMachine(m)));
        }
    }
}

/// How many target machines for `options` are in the pool (no lowering using them).
pub fn pooled_machines(options: &LowerOptions) -> usize {
    let key = machine_key(options);
    MACHINES.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|(k, _)| *k == key).count()
}

/// Parses IR text, applies the attributes and lowers it, in a fresh context.
pub fn lower_ir(ir: &str, name: &str, kernels: &[KernelAttrs], options: &LowerOptions, emit: Emit) -> Result<Vec<u8>, LowerError> {
    lower_ir_via(ir, name, kernels, options, emit, Codegen::default_path())
}

/// [`lower_ir`] with the way objects and assembly are emitted chosen by the caller.
pub fn lower_ir_via(ir: &str, name: &str, kernels: &[KernelAttrs], options: &LowerOptions, emit: Emit, codegen: Codegen) -> Result<Vec<u8>, LowerError> {
    lower_ir_bounded(ir, name, kernels, options, emit, codegen, &SizeBounds::DEFAULT)
}

/// [`lower_ir_via`] with the size bounds chosen by the caller.
pub fn lower_ir_bounded(
    ir: &str,
    name: &str,
    kernels: &[KernelAttrs],
    options: &LowerOptions,
    emit: Emit,
    codegen: Codegen,
    bounds: &SizeBounds,
) -> Result<Vec<u8>, LowerError> {
    let ctx = hx_llvm::inkwell::context::Context::create();
    let diags = hx_llvm::Diagnostics::install(&ctx);
    let module = hx_llvm::parse_ir(&ctx, ir, name)?;
    apply_kernel_attrs(&module, kernels)?;
    let out = lower_verified_bounded(&module, name, options, emit, codegen, bounds)?;
    diags.check(name)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowerings_at_once_have_a_machine_each() {
        // Options no other test of this crate uses.
        let o = LowerOptions { target: GpuTarget::Gfx942, opt: OptLevel::O3, xnack: Some(false), sramecc: Some(false) };
        let (a, b) = (Machine::take(&o).unwrap(), Machine::take(&o).unwrap());
        assert_ne!(a.as_mut_ptr(), b.as_mut_ptr());
        assert_eq!(pooled_machines(&o), 0);
        let (pa, pb) = (a.as_mut_ptr(), b.as_mut_ptr());
        drop((a, b));
        assert_eq!(pooled_machines(&o), 2);
        let c = Machine::take(&o).unwrap();
        assert!(c.as_mut_ptr() == pa || c.as_mut_ptr() == pb, "a pooled machine is reused");
        assert_eq!(pooled_machines(&o), 1);
    }
}
