//! Building the LLVM IR function of one kernel from its CFG.

use crate::alu_ir::{Extra, OpEmitter};
use crate::cfg::{self, Cond, Exit};
use crate::RaiseError;
use hx_codeobj::descriptor::{Generation, KernelDescriptor};
use hx_sem::alu::table::{self as alu, AluOp, Flag, Op, Ty};
use hx_isa::{InstOperand, Instruction, Kind, Operand, Reg, RegClass, Target, ValType};
use hx_llvm::inkwell::basic_block::BasicBlock;
use hx_llvm::inkwell::builder::{Builder, BuilderError};
use hx_llvm::inkwell::context::Context;
use hx_llvm::inkwell::intrinsics::Intrinsic;
use hx_llvm::inkwell::module::Module;
use hx_llvm::inkwell::types::BasicTypeEnum;
use hx_llvm::inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use hx_llvm::inkwell::{AddressSpace, IntPredicate};
use std::collections::{HashMap, HashSet};
use crate::structure::RestoreTo;

mod wmma_ir;
mod mem_model_ir;
mod dpp_ir;
pub(crate) use dpp_ir::on_target_dpp;
mod wmma_mfma;
mod wmma_carry;
pub mod buffer_ir;
mod regfile_ir;
use regfile_ir::RegFile;
mod tensor_ir;
mod flat_ir;
mod reduce_loop_ir;
pub(crate) use reduce_loop_ir::match_reduce_loop;

impl From<BuilderError> for RaiseError {
    fn from(e: BuilderError) -> Self {
        RaiseError::Kernel { kernel: String::new(), msg: format!("IR builder: {e}") }
    }
}

/// The source kernel's entry state, from its descriptor (AMDGPUUsage "Initial Kernel Execution
/// State", GFX12.5 flavour).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAbi {
    /// SGPR index of the kernarg segment pointer (2 SGPRs), if enabled.
    pub kernarg_ptr_sgpr: Option<u16>,
    /// SGPR indices of the HSA dispatch packet pointer, the queue pointer and the dispatch id
    /// (2 SGPRs each), if enabled (clang/llc without the attributor enable them). The raised
    /// code gives each the target's own (`llvm.amdgcn.dispatch.ptr`, `queue.ptr`,
    /// `dispatch.id`): the runtime dispatches the translation with the same packet and queue.
    pub dispatch_ptr_sgpr: Option<u16>,
    pub queue_ptr_sgpr: Option<u16>,
    pub dispatch_id_sgpr: Option<u16>,
    /// Preloaded kernarg dwords: (first SGPR, count, kernarg dword offset).
    pub preload: Option<(u16, u16, u16)>,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    /// Bytes of the kernarg segment (explicit and hidden arguments), from the descriptor.
    pub kernarg_size: u32,
    /// The code has DS instructions (set by [`raise_kernel`] from the code itself).
    pub uses_lds: bool,
    /// MODE bits 7:0 at kernel entry, from the descriptor: FP_ROUND (f32 in 1:0, f16/f64 in
    /// 3:2) and FP_DENORM (f32 in 5:4, f16/f64 in 7:6). The raised code assumes these all
    /// the time (round to nearest even; denormals as the kernel attributes say).
    pub entry_mode: u8,
    /// ENABLE_VGPR_WORKITEM_ID: the work-item IDs the hardware writes into v0 (0: x; 1: x, y;
    /// 2: x, y, z); the fields of the others are 0.
    pub workitem_ids: u8,
    /// ENABLE_SGPR_WORKGROUP_ID_Z: TTMP7 holds z in its high half; without it TTMP7 is y alone
    /// (LLVM then reads the whole register as y).
    pub workgroup_id_z: bool,
    /// Work-groups of at most 32 work-items (the code object's max flat work-group size): a
    /// target wave64 then holds one source wave, in lanes 0..31, its upper half inactive. Lane
    /// reads and votes need no half offset and `v_readlane` stays a lane read. Not in the
    /// descriptor: the caller sets it from the metadata ([`KernelAbi::from_descriptor`] leaves it
    /// false, which is right for any size).
    pub one_source_wave: bool,
    /// Two source work-groups per target wave64 (issue 31; off unless the caller asks, and only
    /// for kernels [`pairing_blocker`] accepts). The kernel is dispatched with its work-group
    /// and grid x extents both multiplied by [`PAIRED_DISPATCH_SCALE`], as the HotSwap runtime
    /// patches the dispatch packet of a translation that reports that factor, so the block count
    /// stays the source's. Target work-group b runs source work-groups 2b (lanes 0..31) and
    /// 2b + 1 (lanes 32..63); a lane past the source grid (the upper half of the blocks, a
    /// partial last group) leaves at entry, as a thread that does not exist. The packet must say
    /// work-groups of 64x1x1 (a source launch of 32x1x1, scaled): any other shape traps.
    pub paired_groups: bool,
}

/// The dispatch scale factor of a kernel raised with [`KernelAbi::paired_groups`]: the runtime
/// multiplies the packet's `workgroup_size_x` and `grid_size_x` by it.
pub const PAIRED_DISPATCH_SCALE: u32 = 2;

/// Kernels with more WMMA instructions than this keep the f64 MFMA path's k loop for 16-bit
/// elements (wmma_mfma.rs), trading executed instructions for translation time: Triton's
/// matmul_f16_128_w4 (64 WMMAs) for gfx942 translates in 1.2 s with the loop and 1.45 s without
/// (the register allocator's eviction on the longer blocks). The next kernels have 32.
pub const MANY_WMMAS: usize = 48;

/// Why the kernel of `prog` cannot run two source work-groups per target wave
/// ([`KernelAbi::paired_groups`]), or None when it can: each work-group of a pair would need its
/// own LDS, and the dispatch packet it reads is the scaled one.
pub fn pairing_blocker(name: &str, prog: &cfg::Program<'_>, abi: &KernelAbi) -> Result<Option<&'static str>, RaiseError> {
    let graph = cfg::build_program(Target::Gfx1250, prog, name)?;
    Ok(pairing_blocker_in(&graph, flat_ir::flat_windows(&graph).lds, abi))
}

/// [`pairing_blocker`] of a built program whose flat accesses may (`flat_lds`) reach LDS.
fn pairing_blocker_in(graph: &cfg::Cfg, flat_lds: bool, abi: &KernelAbi) -> Option<&'static str> {
    if abi.dispatch_ptr_sgpr.is_some() || abi.queue_ptr_sgpr.is_some() {
        return Some("it reads the dispatch packet or the queue (the scaled dispatch's sizes are not its own)");
    }
    if abi.group_segment_size > 0 {
        return Some("it has static LDS (each work-group of a pair would need its own)");
    }
    // (The lane permutes are DS instructions that move data between lanes, not through LDS.)
    if lds_instructions(graph, false) || flat_lds {
        return Some("it accesses LDS (each work-group of a pair would need its own)");
    }
    if graph.blocks.iter().flat_map(|bl| bl.insts.iter()).any(|i| i.mnemonic().starts_with("s_getreg") || i.mnemonic().contains("cluster")) {
        return Some("it reads hardware registers or cluster state (per target wave, not per source work-group)");
    }
    None
}

/// Whether the program has instructions that touch LDS: DS instructions (the lane permutes,
/// which move data between lanes, only with `lane_permutes`), loads to LDS, tensor copies. (Flat
/// accesses that may fall in the LDS aperture: `flat_ir::flat_windows`.)
fn lds_instructions(graph: &cfg::Cfg, lane_permutes: bool) -> bool {
    let lane_permute = |m: &str| matches!(m, "ds_permute_b32" | "ds_bpermute_b32" | "ds_bpermute_fi_b32" | "ds_swizzle_b32");
    graph.blocks.iter().flat_map(|bl| bl.insts.iter()).any(|i| {
        let m = i.mnemonic();
        (m.starts_with("ds_") && (lane_permutes || !lane_permute(m))) || hx_sem::memory::async_load_size(m).is_some() || i.tensor().is_some()
    })
}

impl KernelAbi {
    pub fn from_descriptor(kernel: &str, d: &KernelDescriptor) -> Result<KernelAbi, RaiseError> {
        let err = |msg: &str| RaiseError::Kernel { kernel: kernel.to_string(), msg: msg.to_string() };
        let p = d.kernel_code_properties;
        let mut s = 0u16;
        if p & 1 != 0 {
            return Err(err("the kernel asks for a private segment buffer in user SGPRs, which is not raised yet"));
        }
        // User SGPRs in AMDGPUUsage's order, two each: dispatch pointer, queue pointer, kernarg
        // segment pointer, dispatch id.
        let mut pair = |bit: u16| {
            (p >> bit & 1 != 0).then(|| {
                s += 2;
                s - 2
            })
        };
        let dispatch_ptr_sgpr = pair(1);
        let queue_ptr_sgpr = pair(2);
        let kernarg_ptr_sgpr = pair(3);
        let dispatch_id_sgpr = pair(4);
        if p & (32 | 64) != 0 {
            return Err(err("flat scratch init / private segment size user SGPRs are not raised yet"));
        }
        if p & (1 << 11) != 0 {
            return Err(err("dynamic stacks are not raised"));
        }
        let (len, off) = d.kernarg_preload();
        let preload = (len > 0).then_some((s, len as u16, off as u16));
        let field = |name: &str| d.field(hx_codeobj::descriptor::Generation::Gfx125, name).unwrap_or(0) as u8 & 3;
        let entry_mode = field("FLOAT_ROUND_MODE_32")
            | field("FLOAT_ROUND_MODE_16_64") << 2
            | field("FLOAT_DENORM_MODE_32") << 4
            | field("FLOAT_DENORM_MODE_16_64") << 6;
        if entry_mode & 0xf != 0 {
            return Err(err("a rounding mode other than round-to-nearest-even is not raised"));
        }
        Ok(KernelAbi {
            kernarg_ptr_sgpr,
            dispatch_ptr_sgpr,
            queue_ptr_sgpr,
            dispatch_id_sgpr,
            preload,
            private_segment_size: d.private_segment_fixed_size,
            group_segment_size: d.group_segment_fixed_size,
            kernarg_size: d.kernarg_size,
            uses_lds: false,
            entry_mode,
            workitem_ids: d.field(hx_codeobj::descriptor::Generation::Gfx125, "ENABLE_VGPR_WORKITEM_ID").unwrap_or(2).min(2) as u8,
            workgroup_id_z: d.field(hx_codeobj::descriptor::Generation::Gfx125, "ENABLE_SGPR_WORKGROUP_ID_Z").unwrap_or(1) != 0,
            one_source_wave: false,
            paired_groups: false,
        })
    }
}

const NUM_SGPRS: usize = 106;

struct Raiser<'ctx, 'a> {
    ctx: &'ctx Context,
    module: &'a Module<'ctx>,
    b: Builder<'ctx>,
    /// Positioned at the end of the function's first block, where register allocas are made.
    regs_b: Builder<'ctx>,
    kernel: &'a str,
    sgpr: RegFile<'ctx>,
    vgpr: RegFile<'ctx>,
    ttmp: RegFile<'ctx>,
    vcc_lo: PointerValue<'ctx>,
    vcc_hi: PointerValue<'ctx>,
    exec: PointerValue<'ctx>,
    m0: PointerValue<'ctx>,
    scc: PointerValue<'ctx>,
    /// Source lane (0..31) and the half of the target wave (0/1) of this thread.
    lane: IntValue<'ctx>,
    half_shift: IntValue<'ctx>,
    /// This thread's lane in the target wave (0..63), for whole-wave code whose inactive lanes
    /// work too (the MFMA WMMA lowering).
    lane64: IntValue<'ctx>,
    /// [`KernelAbi::one_source_wave`].
    one_source_wave: bool,
    /// The kernel has more than [`MANY_WMMAS`] WMMA instructions: the f64 MFMA path keeps its
    /// k loop for 16-bit elements (wmma_mfma.rs).
    many_wmmas: bool,
    /// [`KernelAbi::paired_groups`]: SGPR values that come from the work-group ID differ
    /// between the halves of a wave.
    paired_groups: bool,
    blocks: HashMap<usize, BasicBlock<'ctx>>,
    func: FunctionValue<'ctx>,
    /// Byte address (addrspace 3) of the kernel's LDS; the source's LDS offsets are relative to it.
    lds_base: Option<IntValue<'ctx>>,
    /// The thread's private memory (the source's scratch), when it has any.
    scratch: Option<PointerValue<'ctx>>,
    /// The windows besides global memory a flat address may fall in (flat_ir).
    flat_windows: flat_ir::FlatWindows,
    /// v0..31 lane base of this thread's half of the target wave (0 or 32), as i32.
    half_base: IntValue<'ctx>,
    /// MODE bits 7:0 at entry ([`KernelAbi::entry_mode`]).
    entry_mode: u8,
    /// MODE.FP16_OVFL for the whole kernel (crate::mode): fp8/bf8 downcasts saturate.
    fp16_ovfl: bool,
    /// Whether the function's entry sets the target's MODE.FP16_OVFL (gfx950's own fp8
    /// conversions saturate under it, as gfx1250's do).
    target_fp16_ovfl: std::cell::Cell<bool>,
    /// This thread's EXEC bit is known to be set here (EXEC still holds its entry value, or the
    /// thread is inside a recovered region: crate::structure).
    exec_full: bool,
    /// This thread's EXEC bit, computed once per stretch of code where EXEC does not change
    /// (forgotten at block starts, around instructions that may write EXEC, and inside guarded
    /// code, whose values do not reach the code after it).
    active_memo: std::cell::Cell<Option<IntValue<'ctx>>>,
    /// The thread's EXEC bit as the instruction that just wrote EXEC computed it (v_cmpx:
    /// its own compare), so the bit needs no ballot to be read back.
    fresh_active: Option<IntValue<'ctx>>,
    /// Source address of offset 0 of the code (s_get_pc values).
    pc_base: u64,
    /// Loads whose base is a PC-relative source address (structure::pc_uses), and the copy
    /// of the source's image they read from (at its address 0).
    pc_rebase: HashSet<usize>,
    pc_image: Option<hx_llvm::inkwell::values::GlobalValue<'ctx>>,
    /// The target whose MFMAs dense WMMA is lowered onto (None: the cross-lane path).
    mfma_target: Option<hx_llvm::GpuTarget>,
    /// The target, when known ([`raise_program_with`]): gfx950 takes transpose loads onto its own.
    target: Option<hx_llvm::GpuTarget>,
    /// The kernel's one block that the run-time refusals ([`Raiser::trap_if`]) branch to.
    trap_bb: std::cell::Cell<Option<BasicBlock<'ctx>>>,
    /// The last MFMA-path WMMA's D in its MFMA layout, while its registers still hold it
    /// (wmma_mfma.rs: a WMMA whose C is that D takes it from there).
    wmma_chain: std::cell::RefCell<Option<wmma_mfma::WmmaChain<'ctx>>>,
    /// The MFMA path's copy of each VGPR that WMMAs of this block read as A, B or a scale, by
    /// VGPR, while nothing else names the VGPR or writes EXEC (wmma_mfma.rs `shared_operand`,
    /// `forget_operands`): WMMAs share their whole-wave copies and lane swaps within it, never
    /// across blocks or EXEC writes.
    wmma_operands: std::cell::RefCell<HashMap<u16, IntValue<'ctx>>>,
    /// gfx950: WMMA results not yet in their registers (wmma_carry.rs), which WMMAs make them
    /// and the chains each block takes from its predecessors, their shadow allocas, and the
    /// chain the WMMA being raised takes as C.
    lazy_chains: std::cell::RefCell<Vec<wmma_carry::LazyChain<'ctx>>>,
    carry: wmma_carry::CarryPlan,
    carry_shadows: std::cell::RefCell<HashMap<wmma_carry::ChainKey, Vec<PointerValue<'ctx>>>>,
    chain_c: std::cell::RefCell<Option<wmma_carry::LazyChain<'ctx>>>,
}

/// Raises the kernel `name` (machine code `code`, entry state `abi`) into `module` as
/// `amdgpu_kernel void @name()`; arguments are read through the kernarg segment pointer, as
/// the source does. The caller verifies the module.
pub fn raise_kernel<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    code: &[u8],
    abi: &KernelAbi,
) -> Result<FunctionValue<'ctx>, RaiseError> {
    raise_program(ctx, module, name, &cfg::Program::kernel_only(code), abi)
}

/// [`raise_kernel`] for a kernel that may call device functions: the kernel and every function
/// it can reach become one LLVM function over the same machine state (a call jumps to the
/// callee with the return address in the SGPR pair, a return dispatches on that address), so
/// the callee's calling convention needs no model. Without a target, WMMA takes the
/// cross-lane path ([`raise_program_with`] chooses).
pub fn raise_program<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    prog: &cfg::Program<'_>,
    abi: &KernelAbi,
) -> Result<FunctionValue<'ctx>, RaiseError> {
    raise_inner(ctx, module, name, prog, abi, None, None)
}

/// [`raise_program`] for a known target, with the WMMA lowering `opts.wmma`.
pub fn raise_program_with<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    prog: &cfg::Program<'_>,
    abi: &KernelAbi,
    opts: &crate::RaiseOptions,
) -> Result<FunctionValue<'ctx>, RaiseError> {
    let mfma = (opts.wmma == crate::WmmaLowering::Mfma).then_some(opts.target);
    raise_inner(ctx, module, name, prog, abi, mfma, Some(opts.target))
}

/// The module's read-only copy of the source object's loaded image (address 0 upward), which
/// PC-relative loads read from (the kernels of one module share it).
fn source_image<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, data: &[u8]) -> Result<hx_llvm::inkwell::values::GlobalValue<'ctx>, RaiseError> {
    const NAME: &str = "hx.source_image";
    if let Some(g) = module.get_global(NAME) {
        return Ok(g);
    }
    let len = u32::try_from(data.len()).map_err(|_| RaiseError::Kernel { kernel: NAME.into(), msg: "the source image is over 4 GiB".into() })?;
    let g = module.add_global(ctx.i8_type().array_type(len), Some(AddressSpace::from(1u16)), NAME);
    g.set_initializer(&ctx.const_string(data, false));
    g.set_constant(true);
    g.set_linkage(hx_llvm::inkwell::module::Linkage::Internal);
    // Page-aligned, so every datum keeps the alignment its source address gave it.
    g.set_alignment(4096);
    Ok(g)
}

fn raise_inner<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    prog: &cfg::Program<'_>,
    abi: &KernelAbi,
    mfma_target: Option<hx_llvm::GpuTarget>,
    target: Option<hx_llvm::GpuTarget>,
) -> Result<FunctionValue<'ctx>, RaiseError> {
    let graph = cfg::build_program(Target::Gfx1250, prog, name)?;
    let fp16_ovfl = crate::mode::fp16_ovfl(&graph, name)?;
    let pc_uses = crate::structure::pc_uses(&graph).map_err(|(offset, m)| {
        let msg = "the program counter is used as data other than a load's base (a store or atomic through a PC-relative global variable, or an address computed from one): not translated yet";
        RaiseError::at(name, offset, m, msg)
    })?;
    let pc_image = if pc_uses.rebase.is_empty() {
        None
    } else {
        let data = prog.data.ok_or_else(|| RaiseError::Kernel { kernel: name.into(), msg: "PC-relative loads from a source object the loader patches (dynamic relocations: a GOT, pointers in data): not translated yet".into() })?;
        Some(source_image(ctx, module, data)?)
    };
    // Allocas must be in the private address space (5): that comes from the AMDGPU data layout,
    // which is the same for every amdgcn processor.
    if module.get_triple().as_str().to_bytes().is_empty() {
        hx_llvm::set_amdgpu_layout(module)?;
    }
    // The kernarg segment as one byref argument of the source's size: the backend then reserves
    // the segment and gives its address (a kernel without arguments gets a null kernarg
    // pointer). Its first byte is the base the source reads its arguments from.
    let kernarg_ty = ctx.i8_type().array_type(abi.kernarg_size.max(1));
    let ptr4 = ctx.ptr_type(AddressSpace::from(4u16));
    let fn_ty = if abi.kernarg_ptr_sgpr.is_some() { ctx.void_type().fn_type(&[ptr4.into()], false) } else { ctx.void_type().fn_type(&[], false) };
    let func = module.add_function(name, fn_ty, None);
    func.set_call_conventions(91); // amdgpu_kernel
    if abi.kernarg_ptr_sgpr.is_some() {
        use hx_llvm::inkwell::attributes::{Attribute, AttributeLoc};
        use hx_llvm::inkwell::types::AnyType;
        let byref = ctx.create_type_attribute(Attribute::get_named_enum_kind_id("byref"), kernarg_ty.as_any_type_enum());
        let align = ctx.create_enum_attribute(Attribute::get_named_enum_kind_id("align"), 8);
        func.add_attribute(AttributeLoc::Param(0), byref);
        func.add_attribute(AttributeLoc::Param(0), align);
    }
    let b = ctx.create_builder();
    let regs = ctx.append_basic_block(func, "regs");
    let entry = ctx.append_basic_block(func, "entry");
    b.position_at_end(regs);
    let to_entry = b.build_unconditional_branch(entry)?;
    let regs_b = ctx.create_builder();
    regs_b.position_before(&to_entry);
    b.position_at_end(entry);
    let i32t = ctx.i32_type();
    let max_v = graph
        .blocks
        .iter()
        .flat_map(|bl| bl.insts.iter())
        // A VOPD pair's registers are its halves' operands.
        .flat_map(|i| i.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*i]))
        .flat_map(|i| i.operands().filter_map(|o| match o.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => Some(r.index as usize + r.dwords.max(1) as usize),
            _ => None,
        }).chain(buffer_ir::vgpr_end(&i)).collect::<Vec<_>>())
        .max()
        .unwrap_or(1)
        .max(1);
    let alloca = |n: &str| regs_b.build_alloca(i32t, n);
    let (sgpr, vgpr, ttmp) = (RegFile::new("s", NUM_SGPRS), RegFile::new("v", max_v), RegFile::new("ttmp", 16));
    let (vcc_lo, vcc_hi, exec, m0) = (alloca("vcc_lo")?, alloca("vcc_hi")?, alloca("exec_lo")?, alloca("m0")?);
    let scc = regs_b.build_alloca(ctx.bool_type(), "scc")?;
    let mut r = Raiser {
        ctx,
        module,
        b,
        regs_b,
        kernel: name,
        sgpr,
        vgpr,
        ttmp,
        vcc_lo,
        vcc_hi,
        exec,
        m0,
        scc,
        lane: i32t.const_zero(),
        half_shift: ctx.i64_type().const_zero(),
        lane64: i32t.const_zero(),
        one_source_wave: abi.one_source_wave,
        many_wmmas: graph.blocks.iter().flat_map(|b| b.insts.iter()).filter(|i| i.wmma().is_some()).count() > MANY_WMMAS,
        paired_groups: abi.paired_groups,
        blocks: HashMap::new(),
        func,
        lds_base: None,
        scratch: None,
        flat_windows: flat_ir::flat_windows(&graph),
        half_base: i32t.const_zero(),
        entry_mode: abi.entry_mode,
        fp16_ovfl,
        target_fp16_ovfl: std::cell::Cell::new(false),
        exec_full: false,
        active_memo: std::cell::Cell::new(None),
        fresh_active: None,
        pc_base: prog.base,
        pc_rebase: pc_uses.rebase,
        pc_image,
        mfma_target,
        target,
        trap_bb: std::cell::Cell::new(None),
        wmma_chain: std::cell::RefCell::new(None),
        wmma_operands: std::cell::RefCell::new(HashMap::new()),
        lazy_chains: std::cell::RefCell::new(Vec::new()),
        carry: wmma_carry::CarryPlan::default(),
        carry_shadows: std::cell::RefCell::new(HashMap::new()),
        chain_c: std::cell::RefCell::new(None),
    };
    let mut abi = abi.clone();
    abi.uses_lds = lds_instructions(&graph, true) || r.flat_windows.lds;
    if abi.paired_groups {
        if abi.one_source_wave {
            return Err(RaiseError::Kernel { kernel: name.into(), msg: "paired work-groups with one source wave per target wave".into() });
        }
        if let Some(why) = pairing_blocker_in(&graph, r.flat_windows.lds, &abi) {
            return Err(RaiseError::Kernel { kernel: name.into(), msg: format!("two work-groups per wave asked for, but {why}") });
        }
    }
    r.init_state(&abi)?;
    for bl in &graph.blocks {
        let bb = ctx.append_basic_block(func, &format!("b{:x}", bl.start));
        r.blocks.insert(bl.start, bb);
    }
    r.b.build_unconditional_branch(r.blocks[&graph.blocks[0].start])?;
    let st = crate::structure::recover(&graph);
    // LLVM's atomic-optimizer reduction loops, by block: one reduction per source wave, no loop.
    let reduce_loops: Vec<_> = graph.blocks.iter().map(reduce_loop_ir::match_reduce_loop).collect();
    // Blocks ending in a branch `exit` builds (lazy WMMA chains cross only those edges), and
    // blocks that take no chains (a reduction loop's is raised whole by `reduce_loop`).
    let plain: Vec<bool> = graph.blocks.iter().enumerate().map(|(i, bl)| wmma_carry::plain_exit(bl) && !st.head[i] && reduce_loops[i].is_none()).collect();
    {
        let reduced = graph.blocks.iter().zip(&reduce_loops).filter(|(_, rl)| rl.is_some()).map(|(bl, _)| bl.start);
        let entries: HashSet<usize> = std::iter::once(graph.blocks[0].start).chain(graph.functions.iter().copied()).chain(graph.return_sites.iter().copied()).chain(reduced).collect();
        r.carry = wmma_carry::carry_plan(&graph, r.mfma_target, &plain, &entries);
    }
    // EXEC at the end of the blocks that enter recovered loops (what their closing restores give).
    let loop_entries: HashSet<usize> = st.restore_to.values().filter_map(|t| if let RestoreTo::LoopEntry(b) = t { Some(*b) } else { None }).collect();
    let mut entry_exec: HashMap<usize, IntValue<'ctx>> = HashMap::new();
    for (i, bl) in graph.blocks.iter().enumerate() {
        r.b.position_at_end(r.blocks[&bl.start]);
        r.exec_full = st.known_on_entry[i];
        r.active_memo.set(None);
        r.wmma_chain.replace(None);
        r.wmma_operands.borrow_mut().clear();
        r.enter_block_chains(bl.start)?;
        let reduced_to = match &reduce_loops[i] {
            Some(rl) => Some(r.reduce_loop(rl, &bl.insts[0])?),
            None => None,
        };
        // (A reduced loop's instructions are all raised by `reduce_loop`.)
        let insts: &[Instruction] = if reduced_to.is_some() { &[] } else { &bl.insts };
        for inst in insts {
            wmma_mfma::keep_chain(&r.wmma_chain, inst);
            let taken = r.chains_before(inst)?;
            r.chain_c.replace(taken);
            let writes_exec = crate::structure::writes_exec(inst);
            if writes_exec {
                r.exec_full = false;
                r.active_memo.set(None);
            }
            r.inst(inst)?;
            r.forget_operands(inst, writes_exec);
            if let Some(&to) = st.restore_to.get(&inst.offset) {
                r.restore_exec(inst, to, &entry_exec)?;
            }
            if writes_exec {
                r.active_memo.set(r.fresh_active.take());
            }
            if st.known_after.contains(&inst.offset) {
                r.exec_full = true;
            }
        }
        if loop_entries.contains(&i) {
            let v = r.b.build_load(i32t, r.exec, "loop_entry_exec")?.into_int_value();
            entry_exec.insert(i, v);
        }
        // Lazy WMMA chains (wmma_carry.rs): onto the edges of a plain branch, else written now.
        let mut edge_blocks = HashMap::new();
        match bl.insts.last() {
            Some(last) if plain[i] => edge_blocks = r.leave_block_chains(&graph.successors(i), last)?,
            Some(last) => r.materialize_all(last)?,
            None if r.lazy_chains.borrow().is_empty() => {}
            None => return Err(RaiseError::Kernel { kernel: name.into(), msg: format!("the block at {:#x} has no instructions but holds WMMA results", bl.start) }),
        }
        let saved: Vec<(usize, BasicBlock<'ctx>)> = edge_blocks.iter().filter_map(|(&s, &e)| Some((s, r.blocks.insert(s, e)?))).collect();
        match (reduced_to, bl.exit) {
            (Some(to), _) => {
                r.b.build_unconditional_branch(r.blocks[&to])?;
            }
            (None, Exit::Call { ret }) => r.call_exit(bl.insts.last().expect("a call ends its block"), ret, &graph)?,
            (None, Exit::Return) => r.return_exit(bl.insts.last().expect("a return ends its block"), &graph)?,
            // A recovered region (crate::structure): each thread enters the body (or goes on
            // round the loop) on its own EXEC bit, and goes to the join otherwise.
            (None, Exit::Cond { cond: cond @ (Cond::Execz | Cond::Execnz), taken, fall }) if st.head[i] => {
                let on = r.active()?;
                let (set, clear) = if cond == Cond::Execz { (fall, taken) } else { (taken, fall) };
                r.b.build_conditional_branch(on, r.blocks[&set], r.blocks[&clear])?;
            }
            (None, e) => r.exit(e)?,
        }
        for (s, b) in saved {
            r.blocks.insert(s, b);
        }
    }
    Ok(func)
}

impl<'ctx> Raiser<'ctx, '_> {
    /// After a region's closing restore (`s_or_b32 exec_lo, exec_lo, sX`, raised as such):
    /// EXEC is the value structure recovery proved it to be, the same in every thread (and SCC,
    /// which the restore also writes, follows it). The loop masks that only fed the restore
    /// then have no use left, and the optimiser drops them with their ballots.
    fn restore_exec(&self, inst: &Instruction, to: RestoreTo, entry_exec: &HashMap<usize, IntValue<'ctx>>) -> Result<(), RaiseError> {
        let v = match to {
            RestoreTo::Saved(sx) => {
                let slot = self.sreg_slot(RegClass::Sgpr, sx as usize, inst)?.ok_or_else(|| self.err(inst, format!("s{sx}")))?;
                self.b.build_load(self.ctx.i32_type(), slot, "")?.into_int_value()
            }
            // (Blocks are raised in address order; an entry block after its loop keeps the
            // computed value.)
            RestoreTo::LoopEntry(b) => match entry_exec.get(&b) {
                Some(&v) => v,
                None => return Ok(()),
            },
        };
        self.b.build_store(self.exec, v)?;
        let nonzero = self.b.build_int_compare(IntPredicate::NE, v, self.i32(0), "")?;
        self.b.build_store(self.scc, nonzero)?;
        Ok(())
    }

    fn err(&self, inst: &Instruction, msg: impl Into<String>) -> RaiseError {
        RaiseError::at(self.kernel, inst.offset, inst.mnemonic(), msg)
    }

    fn i32(&self, v: u64) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(v, false)
    }

    fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> Result<FunctionValue<'ctx>, RaiseError> {
        let i = Intrinsic::find(name).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("no intrinsic {name}") })?;
        i.get_declaration(self.module, types).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("cannot declare {name}") })
    }

    fn call(&self, name: &str, types: &[BasicTypeEnum<'ctx>], args: &[BasicMetadataValueEnum<'ctx>]) -> Result<IntValue<'ctx>, RaiseError> {
        let f = self.intrinsic(name, types)?;
        let v = self.b.build_call(f, args, "")?.try_as_basic_value().basic();
        v.map(|v| v.into_int_value()).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("{name} returns nothing") })
    }

    /// [`Self::call`] of an argument-less intrinsic that returns a pointer (`llvm.amdgcn.dispatch.ptr`).
    fn call_ptr(&self, name: &str) -> Result<PointerValue<'ctx>, RaiseError> {
        let f = self.intrinsic(name, &[])?;
        let v = self.b.build_call(f, &[], "")?.try_as_basic_value().basic();
        v.map(|v| v.into_pointer_value()).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("{name} returns nothing") })
    }

    fn load(&self, p: PointerValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        Ok(self.b.build_load(self.ctx.i32_type(), p, "")?.into_int_value())
    }

    /// The `ds_bpermute` byte address of lane `lane` (0..31) of this thread's source wave (its
    /// half of the target wave).
    fn half_lane_address(&self, lane: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let lane = self.b.build_or(lane, self.half_base, "")?;
        Ok(self.b.build_left_shift(lane, self.i32(2), "")?)
    }

    /// `v` of lane `lane` (0..31, per thread) of this thread's source wave.
    fn bpermute_in_half(&self, lane: IntValue<'ctx>, v: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let addr = self.half_lane_address(lane)?;
        self.call("llvm.amdgcn.ds.bpermute", &[], &[addr.into(), v.into()])
    }

    /// `v` of lane `lane` (0..31, the same in every thread of the source wave) of this thread's
    /// source wave: the target's readlane where the source wave is the whole running wave.
    fn read_lane(&self, v: IntValue<'ctx>, lane: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        if self.one_source_wave {
            return self.call("llvm.amdgcn.readlane", &[self.ctx.i32_type().into()], &[v.into(), lane.into()]);
        }
        self.bpermute_in_half(lane, v)
    }

    /// A 32-bit mask of `cond` over the source wave this thread belongs to.
    fn ballot_half(&self, cond: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let i64t = self.ctx.i64_type();
        let mut m = self.call("llvm.amdgcn.ballot", &[i64t.into()], &[cond.into()])?;
        if !self.one_source_wave {
            m = self.b.build_right_shift(m, self.half_shift, false, "")?;
        }
        Ok(self.b.build_int_truncate(m, self.ctx.i32_type(), "")?)
    }

    /// This thread's bit of a source mask.
    fn my_bit(&self, mask: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let s = self.b.build_right_shift(mask, self.lane, false, "")?;
        let s = self.b.build_and(s, self.i32(1), "")?;
        Ok(self.b.build_int_compare(IntPredicate::NE, s, self.i32(0), "")?)
    }

    fn active(&self) -> Result<IntValue<'ctx>, RaiseError> {
        if self.exec_full {
            return Ok(self.ctx.bool_type().const_all_ones());
        }
        if let Some(a) = self.active_memo.get() {
            return Ok(a);
        }
        let e = self.load(self.exec)?;
        let a = self.my_bit(e)?;
        self.active_memo.set(Some(a));
        Ok(a)
    }

    fn init_state(&mut self, abi: &KernelAbi) -> Result<(), RaiseError> {
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let lo = self.call("llvm.amdgcn.mbcnt.lo", &[], &[i32t.const_all_ones().into(), i32t.const_zero().into()])?;
        let lane64 = self.call("llvm.amdgcn.mbcnt.hi", &[], &[i32t.const_all_ones().into(), lo.into()])?;
        self.lane64 = lane64;
        if abi.one_source_wave {
            // Only lanes 0..31 run (outside whole-wave code): the half is the lower one.
            // (Named for hx-lane-bits, which knows this form.)
            lo.set_name("lane");
            self.lane = lo;
            self.half_base = i32t.const_zero();
            self.half_shift = i64t.const_zero();
        } else {
            self.lane = self.b.build_and(lane64, self.i32(31), "lane")?;
            let half = self.b.build_and(lane64, self.i32(32), "")?;
            self.half_base = half;
            self.half_shift = self.b.build_int_z_extend(half, i64t, "half_shift")?;
        }
        // Two source work-groups per wave: which of the pair this thread's is (the threads of
        // neither have returned here).
        let pair_half = if abi.paired_groups { Some(self.enter_paired(lane64)?) } else { None };
        if abi.private_segment_size > 0 {
            let ty = self.ctx.i8_type().array_type(abi.private_segment_size);
            let p = self.b.build_alloca(ty, "scratch")?;
            p.as_instruction().map(|i| i.set_alignment(16));
            self.scratch = Some(p);
        }
        if abi.uses_lds {
            // One LDS array the size of the source's static LDS (at least 4 bytes, so that it
            // exists); every DS address is an offset from its base, as in the source.
            let size = abi.group_segment_size.max(4);
            let ty = self.ctx.i8_type().array_type(size);
            let g = self.module.add_global(ty, Some(AddressSpace::from(3u16)), &format!("{}.lds", self.kernel));
            g.set_initializer(&ty.get_poison());
            g.set_alignment(16);
            g.set_linkage(hx_llvm::inkwell::module::Linkage::Internal);
            let base = self.b.build_ptr_to_int(g.as_pointer_value(), i32t, "lds_base")?;
            self.lds_base = Some(base);
        }
        // SGPRs, VGPRs and TTMPs are zeroed where they are made (regfile_ir).
        for p in [&self.vcc_lo, &self.vcc_hi, &self.m0] {
            self.b.build_store(*p, i32t.const_zero())?;
        }
        self.b.build_store(self.scc, self.ctx.bool_type().const_zero())?;
        // EXEC: the threads that exist in this thread's source wave.
        let all = self.ballot_half(self.ctx.bool_type().const_all_ones())?;
        // It holds at least this thread: told to LLVM, `s_cbranch_execz/execnz` and the uniform
        // branches LLVM writes as `exec & ~flag` fold where EXEC is still the entry mask.
        let some = self.b.build_int_compare(IntPredicate::NE, all, i32t.const_zero(), "")?;
        let assume = self.intrinsic("llvm.assume", &[])?;
        self.b.build_call(assume, &[some.into()], "")?;
        self.b.build_store(self.exec, all)?;
        // Packed work-item IDs in v0, the ones the source descriptor enables (the target's then
        // need not set up the others, nor the code mask them out of its v0).
        let mut v0 = self.call("llvm.amdgcn.workitem.id.x", &[], &[])?;
        if pair_half.is_some() {
            // Work-item x in the source work-group of 32 (the target's is 0..63).
            v0 = self.b.build_and(v0, self.i32(31), "")?;
        }
        for (dim, shift) in [("y", 10u64), ("z", 20)].into_iter().take(abi.workitem_ids as usize) {
            let id = self.call(&format!("llvm.amdgcn.workitem.id.{dim}"), &[], &[])?;
            v0 = self.b.build_or(v0, self.b.build_left_shift(id, self.i32(shift), "")?, "")?;
        }
        self.b.build_store(self.fixed_slot(&self.vgpr, 0)?, v0)?;
        // Architected workgroup IDs: TTMP9 = x, TTMP7 = y | z << 16 (16 bits each) when the
        // descriptor enables z, else y alone; TTMP6 = 0 (no cluster). With z, y is masked to its
        // field, as the register holds it: the source's `ttmp7 >> 16` then folds to z's field
        // instead of being computed. Without z, the target needs no z ID and no masking.
        let mut wx = self.call("llvm.amdgcn.workgroup.id.x", &[], &[])?;
        if let Some(h) = pair_half {
            wx = self.b.build_or(self.b.build_left_shift(wx, self.i32(1), "")?, h, "source_group_x")?;
        }
        let wy = self.call("llvm.amdgcn.workgroup.id.y", &[], &[])?;
        let ttmp = |i| self.fixed_slot(&self.ttmp, i);
        self.b.build_store(ttmp(9)?, wx)?;
        let ttmp7 = if abi.workgroup_id_z {
            let wz = self.call("llvm.amdgcn.workgroup.id.z", &[], &[])?;
            let wy = self.b.build_and(wy, self.i32(0xffff), "")?;
            let wz = self.b.build_left_shift(wz, self.i32(16), "")?;
            self.b.build_or(wy, wz, "")?
        } else {
            wy
        };
        self.b.build_store(ttmp(7)?, ttmp7)?;
        // (A paired source work-group is one wave: wave 0 of its group.)
        let ttmp8 = if pair_half.is_some() { self.i32(0) } else { self.source_wave_id_ttmp8()? };
        self.b.build_store(ttmp(8)?, ttmp8)?;
        if let Some(s) = abi.kernarg_ptr_sgpr {
            let kp = self.kernarg_ptr()?;
            let a = self.b.build_ptr_to_int(kp, i64t, "")?;
            self.store_s64(s as usize, a)?;
        }
        for (sgpr, name) in [(abi.dispatch_ptr_sgpr, "llvm.amdgcn.dispatch.ptr"), (abi.queue_ptr_sgpr, "llvm.amdgcn.queue.ptr")] {
            if let Some(s) = sgpr {
                let a = self.b.build_ptr_to_int(self.call_ptr(name)?, i64t, "")?;
                self.store_s64(s as usize, a)?;
            }
        }
        if let Some(s) = abi.dispatch_id_sgpr {
            let id = self.call("llvm.amdgcn.dispatch.id", &[], &[])?;
            self.store_s64(s as usize, id)?;
        }
        if let Some((first, n, off)) = abi.preload {
            let kp = self.kernarg_ptr()?;
            for i in 0..n as u64 {
                let p = unsafe { self.b.build_gep(self.ctx.i8_type(), kp, &[self.ctx.i64_type().const_int(4 * (off as u64 + i), false)], "")? };
                let v = self.b.build_load(i32t, p, "")?.into_int_value();
                self.b.build_store(self.abi_sgpr(first as usize + i as usize)?, v)?;
            }
        }
        Ok(())
    }

    /// The entry of a kernel raised with [`KernelAbi::paired_groups`]: traps unless the
    /// dispatch packet says work-groups of 64x1x1 (the source's 32x1x1 scaled by
    /// [`PAIRED_DISPATCH_SCALE`]), then lets on only the threads of source work-items that exist
    /// (global x below the source grid, half the packet's); the others return, as threads the
    /// source never had. Returns this thread's source work-group in the pair (0: lanes 0..31).
    fn enter_paired(&self, lane64: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let packet = self.call_ptr("llvm.amdgcn.dispatch.ptr")?;
        let (i16t, i32t) = (self.ctx.i16_type(), self.ctx.i32_type());
        let field = |offset, ty| self.packet_field(packet, offset, ty);
        let (bx, by, bz) = (field(4, i16t)?, field(6, i16t)?, field(8, i16t)?);
        let grid_x = field(12, i32t)?;
        let ne = |v: IntValue<'ctx>, k: u64| self.b.build_int_compare(IntPredicate::NE, v, self.i32(k), "");
        let bad = self.b.build_or(ne(bx, 32 * PAIRED_DISPATCH_SCALE as u64)?, self.b.build_or(ne(by, 1)?, ne(bz, 1)?, "")?, "")?;
        self.trap_if(bad, "paired_dispatch")?;
        let wx = self.call("llvm.amdgcn.workgroup.id.x", &[], &[])?;
        let global = self.b.build_int_add(self.b.build_left_shift(wx, self.i32(6), "")?, lane64, "")?;
        let source_grid = self.b.build_right_shift(grid_x, self.i32(1), false, "")?;
        let exists = self.b.build_int_compare(IntPredicate::ULT, global, source_grid, "")?;
        let go = self.ctx.append_basic_block(self.func, "paired_group");
        let none = self.ctx.append_basic_block(self.func, "paired_none");
        self.b.build_conditional_branch(exists, go, none)?;
        self.b.position_at_end(none);
        self.b.build_return(None)?;
        self.b.position_at_end(go);
        Ok(self.b.build_right_shift(lane64, self.i32(5), false, "pair_half")?)
    }

    /// The HSA dispatch packet's field of type `ty` (i16 or i32) at byte `offset`, as i32.
    fn packet_field(&self, packet: PointerValue<'ctx>, offset: u64, ty: hx_llvm::inkwell::types::IntType<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let p = unsafe { self.b.build_gep(self.ctx.i8_type(), packet, &[self.ctx.i64_type().const_int(offset, false)], "")? };
        let v = self.b.build_load(ty, p, "")?.into_int_value();
        Ok(self.b.build_int_z_extend_or_bit_cast(v, self.ctx.i32_type(), "")?)
    }

    /// TTMP8 as gfx1250 sets it: bits 29:25 the source wave's index in its work-group
    /// (`llvm.amdgcn.wave.id`; Triton's kernels read it with `s_bfe_u32 s, ttmp8, 0x50019`), the
    /// other bits 0. The index is the work-item's flat index in its work-group over 32, the flat
    /// index made from its IDs and the work-group size in the HSA dispatch packet (u16 x at byte
    /// 4, y at byte 6), so that it is right whatever the launch's block shape. Unread, all of it
    /// folds away.
    fn source_wave_id_ttmp8(&self) -> Result<IntValue<'ctx>, RaiseError> {
        let packet = self.call_ptr("llvm.amdgcn.dispatch.ptr")?;
        let i16t = self.ctx.i16_type();
        let (bx, by) = (self.packet_field(packet, 4, i16t)?, self.packet_field(packet, 6, i16t)?);
        let tx = self.call("llvm.amdgcn.workitem.id.x", &[], &[])?;
        let ty = self.call("llvm.amdgcn.workitem.id.y", &[], &[])?;
        let tz = self.call("llvm.amdgcn.workitem.id.z", &[], &[])?;
        let zy = self.b.build_int_add(self.b.build_int_mul(tz, by, "")?, ty, "")?;
        let flat = self.b.build_int_add(self.b.build_int_mul(zy, bx, "")?, tx, "flat_id")?;
        let wave = self.b.build_right_shift(flat, self.i32(5), false, "")?;
        Ok(self.b.build_left_shift(self.b.build_and(wave, self.i32(0x1f), "")?, self.i32(25), "ttmp8")?)
    }

    fn kernarg_ptr(&self) -> Result<PointerValue<'ctx>, RaiseError> {
        let f = self.b.get_insert_block().and_then(|b| b.get_parent()).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: "no function".into() })?;
        f.get_nth_param(0)
            .map(|p| p.into_pointer_value())
            .ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: "the kernel has no kernarg argument".into() })
    }

    fn store_s64(&self, s: usize, v: IntValue<'ctx>) -> Result<(), RaiseError> {
        let i32t = self.ctx.i32_type();
        let lo = self.b.build_int_truncate(v, i32t, "")?;
        let hi = self.b.build_int_truncate(self.b.build_right_shift(v, self.ctx.i64_type().const_int(32, false), false, "")?, i32t, "")?;
        self.b.build_store(self.abi_sgpr(s)?, lo)?;
        self.b.build_store(self.abi_sgpr(s + 1)?, hi)?;
        Ok(())
    }

    /// An SGPR the kernel descriptor names (kernarg pointer, preloaded arguments).
    fn abi_sgpr(&self, s: usize) -> Result<PointerValue<'ctx>, RaiseError> {
        self.slot(&self.sgpr, s)?
            .ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("the descriptor names s{s}, beyond the SGPRs") })
    }

    /// The alloca of one 32-bit scalar register (None: reads 0, writes dropped).
    fn sreg_slot(&self, class: RegClass, index: usize, inst: &Instruction) -> Result<Option<PointerValue<'ctx>>, RaiseError> {
        Ok(match class {
            RegClass::Sgpr => Some(self.slot(&self.sgpr, index)?.ok_or_else(|| self.err(inst, format!("s{index}")))?),
            RegClass::Vcc => Some(if index & 1 == 0 { self.vcc_lo } else { self.vcc_hi }),
            // Wave32: EXEC_HI reads 0 and ignores writes.
            RegClass::Exec => (index & 1 == 0).then_some(self.exec),
            RegClass::M0 => Some(self.m0),
            RegClass::Null => None,
            RegClass::Ttmp => Some(self.slot(&self.ttmp, index)?.ok_or_else(|| self.err(inst, format!("ttmp{index}")))?),
            other => return Err(self.err(inst, format!("register {other:?} is not raised"))),
        })
    }

    /// Reads a scalar register of `dwords` (1 or 2) as i32 or i64.
    fn read_sreg(&self, r: Reg, dwords: u8, inst: &Instruction) -> Result<IntValue<'ctx>, RaiseError> {
        let i32t = self.ctx.i32_type();
        let rd = |i: usize| -> Result<IntValue<'ctx>, RaiseError> {
            match r.class {
                RegClass::Scc => Ok(self.b.build_int_z_extend(self.b.build_load(self.ctx.bool_type(), self.scc, "")?.into_int_value(), i32t, "")?),
                RegClass::Execz | RegClass::Vccz => {
                    let v = self.load(if r.class == RegClass::Execz { self.exec } else { self.vcc_lo })?;
                    let z = self.b.build_int_compare(IntPredicate::EQ, v, self.i32(0), "")?;
                    Ok(self.b.build_int_z_extend(z, i32t, "")?)
                }
                RegClass::SharedBase | RegClass::FlatScratchBase => {
                    Ok(i32t.const_int(flat_ir::aperture_dword(r.class, r.index as usize + i).unwrap_or(0) as u64, false))
                }
                _ => match self.sreg_slot(r.class, r.index as usize + i, inst)? {
                    Some(p) => self.load(p),
                    None => Ok(i32t.const_zero()),
                },
            }
        };
        if dwords == 1 {
            return rd(0);
        }
        self.join(rd(0)?, rd(1)?)
    }

    /// Two dwords as one i64 (low first).
    fn join(&self, lo: IntValue<'ctx>, hi: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let i64t = self.ctx.i64_type();
        let lo = self.b.build_int_z_extend(lo, i64t, "")?;
        let hi = self.b.build_left_shift(self.b.build_int_z_extend(hi, i64t, "")?, i64t.const_int(32, false), "")?;
        Ok(self.b.build_or(lo, hi, "")?)
    }

    /// A value as `dwords` i32 parts (low first).
    fn split(&self, v: IntValue<'ctx>, dwords: u8) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        let i32t = self.ctx.i32_type();
        Ok(if dwords == 1 {
            vec![self.b.build_int_truncate_or_bit_cast(v, i32t, "")?]
        } else {
            let sh = self.b.build_right_shift(v, self.ctx.i64_type().const_int(32, false), false, "")?;
            vec![self.b.build_int_truncate(v, i32t, "")?, self.b.build_int_truncate(sh, i32t, "")?]
        })
    }

    fn write_sreg(&self, r: Reg, dwords: u8, v: IntValue<'ctx>, inst: &Instruction) -> Result<(), RaiseError> {
        for (i, p) in self.split(v, dwords)?.into_iter().enumerate() {
            if let Some(slot) = self.sreg_slot(r.class, r.index as usize + i, inst)? {
                self.b.build_store(slot, p)?;
            }
        }
        Ok(())
    }

    fn read_vreg(&self, r: Reg, dwords: u8, inst: &Instruction) -> Result<IntValue<'ctx>, RaiseError> {
        let get = |i: usize| self.slot(&self.vgpr, r.index as usize + i)?.ok_or_else(|| self.err(inst, "VGPR out of range"));
        let lo = self.load(get(0)?)?;
        if dwords == 1 {
            return Ok(lo);
        }
        self.join(lo, self.load(get(1)?)?)
    }

    /// Writes a VGPR where this thread is active (the predicated-SIMT write).
    fn write_vreg(&self, r: Reg, dwords: u8, v: IntValue<'ctx>, active: IntValue<'ctx>, inst: &Instruction) -> Result<(), RaiseError> {
        let always = active.get_zero_extended_constant() == Some(1);
        for (i, p) in self.split(v, dwords)?.into_iter().enumerate() {
            let slot = self.slot(&self.vgpr, r.index as usize + i)?.ok_or_else(|| self.err(inst, "VGPR out of range"))?;
            if always {
                self.b.build_store(slot, p)?;
                continue;
            }
            let old = self.load(slot)?;
            let new = self.b.build_select(active, p, old, "")?.into_int_value();
            self.b.build_store(slot, new)?;
        }
        Ok(())
    }

    /// A source operand's bits as an integer of `ty`'s width.
    fn source(&self, o: &InstOperand, ty: Ty, inst: &Instruction) -> Result<IntValue<'ctx>, RaiseError> {
        let dwords = if ty.bits() == 64 { 2 } else { 1 };
        let v = match &o.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => self.read_vreg(*r, dwords, inst)?,
            Operand::Reg(r) => self.read_sreg(*r, dwords, inst)?,
            Operand::Imm(v) => self.int_of(ty, *v as u64),
            other => {
                let vt = match ty {
                    Ty::F64 => ValType::F64,
                    Ty::F32 => ValType::F32,
                    Ty::F16 => ValType::F16,
                    Ty::BF16 => ValType::BF16,
                    t if t.bits() == 64 => ValType::B64,
                    t if t.bits() == 16 => ValType::B16,
                    _ => ValType::B32,
                };
                let c = hx_sem::operands::constant_value(other, vt).ok_or_else(|| self.err(inst, format!("operand {other:?}")))?;
                self.int_of(ty, c)
            }
        };
        let v = self.fit(v, ty)?;
        // 16-bit sources read the low half of the register.
        Ok(if ty.bits() == 16 { self.b.build_and(v, self.i32(0xffff), "")? } else { v })
    }

    fn int_of(&self, ty: Ty, v: u64) -> IntValue<'ctx> {
        if ty.bits() == 64 { self.ctx.i64_type().const_int(v, false) } else { self.ctx.i32_type().const_int(v, false) }
    }

    /// Truncates/extends an integer to the width `ty` is computed in (16-bit ops in i32).
    fn fit(&self, v: IntValue<'ctx>, ty: Ty) -> Result<IntValue<'ctx>, RaiseError> {
        let want = if ty.bits() == 64 { 64 } else { 32 };
        let have = v.get_type().get_bit_width();
        let t = if want == 64 { self.ctx.i64_type() } else { self.ctx.i32_type() };
        Ok(if have == want {
            v
        } else if have > want {
            self.b.build_int_truncate(v, t, "")?
        } else {
            self.b.build_int_z_extend(v, t, "")?
        })
    }

    fn inst(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let m = inst.mnemonic();
        if let Some(o) = inst.true16_high_half().filter(|_| inst.dpp().is_some()) {
            return Err(self.err(inst, format!("operand {:?}: a true16 high half (v0.h and up through a Lo128 field) under DPP is not raised yet", o.value)));
        }
        match m {
            "s_sendmsg" if hx_sem::operands::is_dealloc_vgprs(inst) => return Ok(()),
            // cfg::build_program has applied its state to every instruction's VGPRs.
            "s_set_vgpr_msb" => return Ok(()),
            // Calls and returns are the block exits (call_exit, return_exit).
            "s_swap_pc_i64" | "s_set_pc_i64" => return Ok(()),
            "s_get_pc_i64" => {
                let d = inst.operand(0).ok_or_else(|| self.err(inst, "no destination"))?;
                let r = self.dst_reg(d, inst)?;
                let pc = self.pc_base + (inst.offset + inst.len as usize) as u64;
                return self.write_sreg(r, 2, self.ctx.i64_type().const_int(pc, false), inst);
            }
            // The wave traps where it gets here, whatever EXEC says (clang puts one on code
            // paths a kernel must not take): every thread of it does.
            "s_trap" => return self.trap_if(self.ctx.bool_type().const_all_ones(), "after_trap"),
            "s_endpgm" | "s_branch" | "s_cbranch_scc0" | "s_cbranch_scc1" | "s_cbranch_vccz" | "s_cbranch_vccnz"
            | "s_cbranch_execz" | "s_cbranch_execnz" => return Ok(()),
            // Waits, scheduling hints and prefetches: the target backend inserts its own.
            "s_nop" | "s_wait_loadcnt" | "s_wait_storecnt" | "s_wait_dscnt" | "s_wait_kmcnt" | "s_wait_samplecnt"
            | "s_wait_bvhcnt" | "s_wait_expcnt" | "s_wait_xcnt" | "s_wait_loadcnt_dscnt" | "s_wait_storecnt_dscnt"
            | "s_wait_alu" | "s_delay_alu" | "s_clause" | "s_set_inst_prefetch_distance" | "v_nop" | "s_wait_asynccnt"
            | "s_prefetch_inst" | "s_prefetch_inst_pc_rel" | "s_prefetch_data" | "s_prefetch_data_pc_rel"
            | "s_buffer_prefetch_data" | "global_prefetch_b8" | "flat_prefetch_b8" => return Ok(()),
            "s_wait_tensorcnt" => return self.wait_tensorcnt(),
            "global_inv" | "global_wb" | "global_wbinv" => return self.cache_control(inst),
            // The prologue's WAVE_MODE write (bit 25) has no gfx942 counterpart that changes results.
            "s_setreg_imm32_b32" => return self.setreg(inst),
            // Split barriers: the work-group barrier where the source waits; every write before
            // the signal is visible after the wait in both. The cluster barrier (-3) is the same:
            // the target has no clusters, so each work-group is a cluster of one (README).
            "s_barrier_signal" | "s_barrier_wait" | "s_barrier_signal_isfirst" => {
                use hx_isa::barrier::BarrierId;
                let id = inst.barrier_id().ok_or_else(|| self.err(inst, "this barrier ID (named barriers) is not raised"))?;
                match (m, id) {
                    ("s_barrier_wait", _) => {
                        let f = self.intrinsic("llvm.amdgcn.s.barrier", &[])?;
                        self.b.build_call(f, &[], "")?;
                    }
                    ("s_barrier_signal_isfirst", BarrierId::Workgroup) => {
                        // SCC = 1 in the source wave that signals first: raised as the work-group's
                        // wave 0 (the one holding work-item (0,0,0)), one legal arrival order.
                        let i32t = self.ctx.i32_type();
                        let mut first = self.ctx.bool_type().const_all_ones();
                        for d in ["x", "y", "z"] {
                            let id = self.call(&format!("llvm.amdgcn.workitem.id.{d}"), &[], &[])?;
                            let z = self.b.build_int_compare(IntPredicate::EQ, id, i32t.const_zero(), "")?;
                            first = self.b.build_and(first, z, "")?;
                        }
                        let mask = self.ballot_half(first)?;
                        let scc = self.b.build_int_compare(IntPredicate::NE, mask, mask.get_type().const_zero(), "isfirst")?;
                        self.b.build_store(self.scc, scc)?;
                    }
                    ("s_barrier_signal_isfirst", BarrierId::Cluster) => {
                        return Err(self.err(inst, "s_barrier_signal_isfirst on the cluster barrier is not raised"));
                    }
                    _ => {}
                }
                return Ok(());
            }
            "s_getreg_b32" => return self.getreg(inst),
            _ => {}
        }
        // A VOPD pair: both halves read before either writes; in the right order one after the
        // other gives the same (hx_isa::vopd::sequential_order).
        if let Some(parts) = inst.vopd_parts() {
            let order = hx_isa::vopd::sequential_order(&parts).map_err(|e| self.err(inst, e.0))?;
            for half in &order {
                if let Some(table) = half.bitop3_table() {
                    self.bitop3(half, table)?;
                    continue;
                }
                let op = alu::of(half).ok_or_else(|| self.err(half, "this VOPD half is not raised yet"))?;
                self.valu(half, &op)?;
            }
            return Ok(());
        }
        if let Some(d) = inst.dpp() {
            return self.dpp_valu(inst, &d);
        }
        // DPP/SDWA forms read other lanes or sub-dwords: the ALU table names only the
        // operation, so these must not reach it as plain ops.
        if m.ends_with("_dpp") || m.ends_with("_sdwa") || m.starts_with("v_dual_") {
            return Err(self.err(inst, "DPP and SDWA forms are not raised yet"));
        }
        if let Some(m) = inst.wmma() {
            if self.fp16_ovfl && crate::mode::sees_fp16_ovfl(inst) {
                return Err(self.err(inst, hx_sem::alu::pk8::FP16_OVFL_UNMODELLED));
            }
            return self.wmma(inst, &m);
        }
        if let Some(op) = hx_sem::alu::pk8::Pk8Op::of(m) {
            return self.pk8(inst, op);
        }
        if let Some(t) = inst.tensor() {
            return self.tensor(inst, &t);
        }
        if let Some(table) = inst.bitop3_table() {
            return self.bitop3(inst, table);
        }
        if let Some(op) = alu::of(inst) {
            return if op.salu { self.salu(inst, &op) } else { self.valu(inst, &op) };
        }
        if m.starts_with("s_load_") {
            return self.smem_load(inst);
        }
        if matches!(m, "v_readlane_b32" | "v_readfirstlane_b32" | "v_writelane_b32") {
            return self.lane_move(inst);
        }
        if matches!(m, "v_permlane16_b32" | "v_permlanex16_b32") {
            return self.permlane16(inst);
        }
        if m == "v_permlane16_swap_b32_e32" {
            return self.permlane16_swap(inst);
        }
        // Before ds(): its plain loads are recognised by their width suffix alone.
        match hx_sem::memory::ds_transpose_shape(m) {
            Some((_, _, hx_sem::memory::TrLanes::Gfx1250Tr8)) => return self.ds_load_tr(inst, false),
            Some((_, _, hx_sem::memory::TrLanes::Gfx1250Tr16)) => return self.ds_load_tr(inst, true),
            _ => {}
        }
        if hx_sem::memory::is_transpose_load(m) {
            return Err(self.err(inst, hx_sem::memory::TRANSPOSE_REFUSED));
        }
        if m.starts_with("ds_") {
            return self.ds(inst);
        }
        if let Some(v) = inst.vbuffer() {
            return self.vbuffer(inst, &v);
        }
        if m.starts_with("global_") || m.starts_with("scratch_") || m.starts_with("flat_") {
            let o = hx_sem::operands::vmem_operands(inst).map_err(|e| self.err(inst, e))?;
            return self.vmem(inst, &o);
        }
        if m.contains("_saveexec_") {
            return self.saveexec(inst);
        }
        Err(self.err(inst, "this instruction is not raised yet"))
    }

    /// s_swap_pc_i64 dst, src: dst = the return address, then go to the function whose address
    /// src holds (read first: src may be dst).
    fn call_exit(&mut self, inst: &Instruction, ret: usize, g: &cfg::Cfg) -> Result<(), RaiseError> {
        let (Some(d), Some(s)) = (inst.operand(0), inst.operand(1)) else { return Err(self.err(inst, "operands")) };
        let target = self.source(s, Ty::B64, inst)?;
        let r = self.dst_reg(d, inst)?;
        self.write_sreg(r, 2, self.ctx.i64_type().const_int(g.base + ret as u64, false), inst)?;
        self.dispatch(target, &g.functions, g.base)
    }

    /// s_set_pc_i64 src: a return (or jump) to the address src holds: one of the return sites.
    fn return_exit(&mut self, inst: &Instruction, g: &cfg::Cfg) -> Result<(), RaiseError> {
        let s = inst.operand(0).ok_or_else(|| self.err(inst, "operands"))?;
        let target = self.source(s, Ty::B64, inst)?;
        self.dispatch(target, &g.return_sites, g.base)
    }

    /// Branches to the block at `base + offset` equal to `addr`; any other address traps (the
    /// source would run code the translation does not have).
    fn dispatch(&mut self, addr: IntValue<'ctx>, offsets: &[usize], base: u64) -> Result<(), RaiseError> {
        let i64t = self.ctx.i64_type();
        let cases: Vec<_> = offsets.iter().map(|&o| (i64t.const_int(base + o as u64, false), self.blocks[&o])).collect();
        self.b.build_switch(addr, self.trap_block()?, &cases)?;
        Ok(())
    }

    /// The block the builder is appending to.
    pub(crate) fn current_block(&self) -> Result<BasicBlock<'ctx>, RaiseError> {
        self.b.get_insert_block().ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: "the IR builder is in no block".into() })
    }

    /// Register `index` of `file`, which every kernel has (v0, the TTMPs).
    fn fixed_slot(&self, file: &RegFile<'ctx>, index: usize) -> Result<PointerValue<'ctx>, RaiseError> {
        self.slot(file, index)?
            .ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("no register {}{index} in the register file", file.prefix) })
    }

    /// Ends the current block in `llvm.trap`: the run-time case the translation refuses.
    fn trap_here(&self) -> Result<(), RaiseError> {
        let trap = self.intrinsic("llvm.trap", &[])?;
        self.b.build_call(trap, &[], "")?;
        self.b.build_unreachable()?;
        Ok(())
    }

    /// Traps where `cond` holds; code after this call goes in a new block named `go_name`, where
    /// it does not. All refusals of a kernel share one trap block: each machine block costs the
    /// backend about half a million instructions in LiveVariables alone (its per-register
    /// tables are cleared per block), a fifth of buffer_raw's translation time with a trap
    /// block per access.
    pub(crate) fn trap_if(&self, cond: IntValue<'ctx>, go_name: &str) -> Result<(), RaiseError> {
        let go_bb = self.ctx.append_basic_block(self.func, go_name);
        self.b.build_conditional_branch(cond, self.trap_block()?, go_bb)?;
        self.b.position_at_end(go_bb);
        Ok(())
    }

    /// Traps where `wave` (the same in every thread) holds or one of `lanes` holds in any thread of the
    /// wave: the per-thread part goes through a ballot, so the branch is uniform (a scalar
    /// compare, not an EXEC-masked region). Every thread of the target wave traps alike, as
    /// with [`Raiser::trap_if`]: the trap ends the dispatch.
    pub(crate) fn trap_if_any(&self, wave: IntValue<'ctx>, lanes: &[IntValue<'ctx>], go_name: &str) -> Result<(), RaiseError> {
        let i64t = self.ctx.i64_type();
        let mut cond = wave;
        // (A ballot each: a ballot of one compare is that compare's mask; of an `or` of
        // compares, the backend goes through a VGPR.)
        for &lane in lanes {
            if lane.get_zero_extended_constant() == Some(0) {
                continue;
            }
            let m = self.call("llvm.amdgcn.ballot", &[i64t.into()], &[lane.into()])?;
            let any = self.b.build_int_compare(IntPredicate::NE, m, i64t.const_zero(), "")?;
            cond = self.b.build_or(cond, any, "")?;
        }
        self.trap_if(cond, go_name)
    }

    /// The kernel's trap block (made on first use), for the run-time cases the translation
    /// refuses.
    fn trap_block(&self) -> Result<BasicBlock<'ctx>, RaiseError> {
        if let Some(bb) = self.trap_bb.get() {
            return Ok(bb);
        }
        let here = self.current_block()?;
        let bb = self.ctx.append_basic_block(self.func, "refused");
        self.b.position_at_end(bb);
        self.trap_here()?;
        self.b.position_at_end(here);
        self.trap_bb.set(Some(bb));
        Ok(bb)
    }

    fn exit(&mut self, exit: Exit) -> Result<(), RaiseError> {
        match exit {
            Exit::End => {
                self.b.build_return(None)?;
            }
            Exit::OffTheEnd => unreachable!("cfg::build rejects reachable blocks that run off the end"),
            Exit::Call { .. } | Exit::Return => unreachable!("calls and returns have their own exits"),
            Exit::Fall(t) | Exit::Jump(t) => {
                self.b.build_unconditional_branch(self.blocks[&t])?;
            }
            Exit::Cond { cond, taken, fall } => {
                let c = match cond {
                    Cond::Scc0 | Cond::Scc1 => {
                        let s = self.b.build_load(self.ctx.bool_type(), self.scc, "")?.into_int_value();
                        if cond == Cond::Scc1 { s } else { self.b.build_not(s, "")? }
                    }
                    Cond::Vccz | Cond::Vccnz | Cond::Execz | Cond::Execnz => {
                        let p = if matches!(cond, Cond::Vccz | Cond::Vccnz) { self.vcc_lo } else { self.exec };
                        let v = self.load(p)?;
                        let pred = if matches!(cond, Cond::Vccz | Cond::Execz) { IntPredicate::EQ } else { IntPredicate::NE };
                        self.b.build_int_compare(pred, v, self.i32(0), "")?
                    }
                };
                self.b.build_conditional_branch(c, self.blocks[&taken], self.blocks[&fall])?;
            }
        }
        Ok(())
    }

    fn dst_reg(&self, o: &InstOperand, inst: &Instruction) -> Result<Reg, RaiseError> {
        match o.value {
            Operand::Reg(r) => Ok(r),
            v => Err(self.err(inst, format!("destination {v:?}"))),
        }
    }

    fn salu(&mut self, inst: &Instruction, op: &AluOp) -> Result<(), RaiseError> {
        let ops: Vec<&InstOperand> = inst.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        // `s_addk_i32 sdst, simm16`: the destination is also the first source.
        let reads_dst = hx_sem::operands::sopk_reads_dst(inst.mnemonic());
        let with_dst: Vec<&InstOperand> = if reads_dst { ops.clone() } else { Vec::new() };
        let (dst, srcs) = if reads_dst {
            (ops.first().copied(), &with_dst[..])
        } else if op.dst.is_some() {
            (ops.first().copied(), &ops[1.min(ops.len())..])
        } else {
            (None, &ops[..])
        };
        let nsrc = op.srcs.len() - op.acc as usize;
        if srcs.len() != nsrc {
            return Err(self.err(inst, format!("{} sources, the ALU table says {nsrc}", srcs.len())));
        }
        let mut vals = Vec::new();
        // VOP3-encoded scalar ops (v_s_*_f32) carry float source and output modifiers.
        let mods = inst.source_mods();
        for (k, o) in srcs.iter().enumerate() {
            let mut v = self.source(o, op.srcs[k], inst)?;
            let (neg, abs) = (mods.neg >> k & 1 != 0, mods.abs >> k & 1 != 0);
            if neg || abs {
                let bits = hx_sem::operands::neg_abs_type(op, k).map(|t| t.bits()).ok_or_else(|| self.err(inst, "neg/abs on an integer source"))?;
                let sign = v.get_type().const_int(1u64 << (bits - 1), false);
                if abs {
                    v = self.b.build_and(v, self.b.build_not(sign, "")?, "")?;
                }
                if neg {
                    v = self.b.build_xor(v, sign, "")?;
                }
            }
            // s_cmpk_*: the 16-bit immediate is sign-extended for signed compares.
            if let (Op::Cmp(c), Kind::Imm16(_), Operand::Imm(imm)) = (op.op, &o.spec.kind, o.value) {
                if c.k_imm && matches!(c.kind, hx_sem::alu::cmp::CmpKind::Int { signed: true, .. }) {
                    v = self.i32(imm as u16 as i16 as i32 as u32 as u64);
                }
            }
            vals.push(v);
        }
        if op.acc {
            let d = dst.ok_or_else(|| self.err(inst, "no destination"))?;
            vals.push(self.source(d, *op.srcs.last().unwrap(), inst)?);
        }
        // s_bitset0/1_b32/b64 change one bit of the old destination (the emulator's AluIn::old).
        if let (Op::SBitset0B32 | Op::SBitset1B32 | Op::SBitset0B64 | Op::SBitset1B64, Some(d), Some(t)) = (op.op, dst, op.dst) {
            let old = self.source(d, t, inst)?;
            let wide = matches!(op.op, Op::SBitset0B64 | Op::SBitset1B64);
            let ty = old.get_type();
            let index = self.b.build_and(vals[0], self.i32(if wide { 63 } else { 31 }), "")?;
            let index = self.b.build_int_z_extend_or_bit_cast(index, ty, "")?;
            let bit = self.b.build_left_shift(ty.const_int(1, false), index, "")?;
            let v = if matches!(op.op, Op::SBitset1B32 | Op::SBitset1B64) {
                self.b.build_or(old, bit, "")?
            } else {
                self.b.build_and(old, self.b.build_not(bit, "")?, "")?
            };
            return self.write_sreg(self.dst_reg(d, inst)?, if wide { 2 } else { 1 }, v, inst);
        }
        let scc_in = self.b.build_load(self.ctx.bool_type(), self.scc, "")?.into_int_value();
        // s_cmov_b32/b64, s_cmovk_i32: the source where SCC is set, else the old destination.
        if let (Op::SCmovB32 | Op::SCmovB64, Some(d), Some(t)) = (op.op, dst, op.dst) {
            let old = self.source(d, t, inst)?;
            let new = if op.srcs == [Ty::I16] {
                let h = self.b.build_int_truncate(vals[0], self.ctx.i16_type(), "")?;
                self.b.build_int_s_extend(h, self.ctx.i32_type(), "")?
            } else {
                vals[0]
            };
            let v = self.b.build_select(scc_in, new, old, "")?.into_int_value();
            return self.write_sreg(self.dst_reg(d, inst)?, if t.bits() == 64 { 2 } else { 1 }, v, inst);
        }
        let (mut v, flag) = self.emit_op(inst, op, &vals, scc_in)?;
        if mods.omod != 0 || mods.clamp {
            if op.dst != Some(Ty::F32) {
                return Err(self.err(inst, "output modifiers on this type"));
            }
            // omod, then clamp (hx_sem::alu::omod_clamp_f32).
            let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
            if mods.omod != 0 {
                v = e.omod_float(v, Ty::F32, mods.omod).map_err(|m| self.err(inst, m.0))?;
            }
            if mods.clamp {
                v = e.clamp_float(v, Ty::F32).map_err(|m| self.err(inst, m.0))?;
            }
        }
        if let (Some(d), Some(t)) = (dst, op.dst) {
            let r = self.dst_reg(d, inst)?;
            self.write_sreg(r, if t.bits() == 64 { 2 } else { 1 }, v, inst)?;
        }
        if op.flag_out == Flag::Scc {
            if let Some(f) = flag {
                self.b.build_store(self.scc, f)?;
            }
        }
        Ok(())
    }

    fn valu(&mut self, inst: &Instruction, op: &AluOp) -> Result<(), RaiseError> {
        self.valu_with(inst, op, None)
    }

    /// A VALU operation; with `dpp` = (src0, on), src0 is that value (read across lanes) and
    /// the thread writes only where `on` also holds (dpp_ir.rs).
    fn valu_with(&mut self, inst: &Instruction, op: &AluOp, dpp: Option<(IntValue<'ctx>, IntValue<'ctx>)>) -> Result<(), RaiseError> {
        // gfx1250 e32 16-bit operands naming high halves through a Lo128 field (the emulator's
        // exec_valu_with does the same): the register below 128, the half in op_sel.
        let halves = inst.true16_halves();
        let inst = &*halves;
        let mods = inst.source_mods();
        let mix = match op.op {
            Op::FmaMix(d) => Some(d),
            _ => None,
        };
        // Which modifiers apply, with the emulator's rules (hx-emu's exec_valu).
        let pk = matches!(op.op, Op::Pk(_));
        let fp8 = match op.op {
            Op::Fp8(f) => {
                f.check_mods(mods.op_sel, mods.byte_sel).map_err(|e| self.err(inst, e))?;
                Some(f)
            }
            _ => None,
        };
        if mods.byte_sel != 0 && fp8.is_none() {
            return Err(self.err(inst, "byte_sel"));
        }
        let half_sel = if mods.op_sel != 0 && mix.is_none() && !pk && fp8.is_none() {
            hx_sem::operands::op_sel_halves(op, mods.op_sel).map_err(|e| self.err(inst, e))?
        } else {
            0
        };
        if hx_sem::operands::kimm64_with_short_literal(inst) {
            return Err(self.err(inst, "a 32-bit literal source beside a 64-bit K operand"));
        }
        let fp8_sat = fp8.is_some_and(|f| f.clamp_saturates());
        if self.fp16_ovfl && hx_sem::alu::pk8::fp16_ovfl_reaches(op) {
            return Err(self.err(inst, hx_sem::alu::pk8::FP16_OVFL_UNMODELLED));
        }
        let float_dst = op.dst.filter(|t| t.is_float());
        let int_clamp = mods.clamp && !fp8_sat && !pk && mix.is_none() && op.dst.is_some() && float_dst.is_none();
        let float_clamp = mods.clamp && !fp8_sat && !pk && mix.is_none() && float_dst.is_some();
        if int_clamp && hx_sem::operands::int_saturate(op.op, 0, 0).is_none() {
            return Err(self.err(inst, "clamp on this integer result is not raised yet"));
        }
        let float_omod = mods.omod != 0 && float_dst.is_some() && !pk && mix.is_none() && fp8.is_none();
        if (mods.omod != 0 && !float_omod) || (mods.clamp && (pk || mix.is_some())) || (mods.neg_hi != 0 && !pk) {
            return Err(self.err(inst, "omod on integer results, and clamp on packed and mixed-precision ops, are not raised yet"));
        }
        let ops: Vec<&InstOperand> = inst.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        let mut i = 0;
        let mut vdst = None;
        if op.dst.is_some() {
            vdst = Some(*ops.get(i).ok_or_else(|| self.err(inst, "no destination"))?);
            i += 1;
        }
        let mut mask_dst: Option<Option<Reg>> = None; // Some(None) = VCC
        if op.flag_out == Flag::LaneMask {
            match ops.get(i).map(|o| (&o.spec.kind, o.value)) {
                Some((Kind::Fixed(_), _)) => {
                    mask_dst = Some(None);
                    i += 1;
                }
                Some((k, Operand::Reg(r))) if matches!(k, Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstX { .. } | Kind::SDstNoM0 { .. }) => {
                    mask_dst = Some(Some(r));
                    i += 1;
                }
                _ => {}
            }
        }
        let nsrc = op.srcs.len() - op.acc as usize;
        let srcs: Vec<&InstOperand> = ops.get(i..i + nsrc).ok_or_else(|| self.err(inst, "missing sources"))?.to_vec();
        i += nsrc;
        let mut mask_in = None;
        if op.flag_in == Flag::LaneMask {
            let m = match ops.get(i).map(|o| (&o.spec.kind, o.value)) {
                // No operand: VOP3 forms like v_div_fmas read VCC implicitly.
                None => self.load(self.vcc_lo)?,
                Some((Kind::Fixed(_), _)) => {
                    i += 1;
                    self.load(self.vcc_lo)?
                }
                Some((_, Operand::Reg(r))) => {
                    i += 1;
                    self.read_sreg(r, 1, inst)?
                }
                Some((_, v)) => return Err(self.err(inst, format!("mask operand {v:?}"))),
            };
            mask_in = Some(self.my_bit(m)?);
        }
        if i != ops.len() {
            return Err(self.err(inst, "unexpected extra operands"));
        }
        let mut vals = Vec::new();
        for (k, o) in srcs.iter().enumerate() {
            let constant = !matches!(o.value, Operand::Reg(_));
            let (pk_wide, pk_float) = match op.op {
                // bf16 constants are read as the f32 bits (hx_sem PkOp::is_bf16), as integer ones.
                Op::Pk(p) => (p.is_wide(), p.is_float() && !p.is_bf16()),
                _ => (false, false),
            };
            if constant && (half_sel >> k & 1 != 0 || (pk_wide && (mods.op_sel | mods.op_sel_hi) >> k & 1 != 0)) {
                // Which half or dword of a constant the hardware reads is not modelled (a
                // packed-f32 constant is its low dword, as the emulator reads it).
                return Err(self.err(inst, "the high half of a constant source"));
            }
            let mut v = if let (Some((src0, _)), 0) = (dpp, k) {
                src0
            } else if pk_wide && constant {
                let c = self.source(o, Ty::F32, inst)?;
                self.b.build_int_z_extend(c, self.ctx.i64_type(), "")?
            } else if pk_float && matches!(o.value, Operand::FloatConst(_)) {
                // Packed 16-bit float ops: an inline float constant is the f16 value in the low
                // half, zero above (hx-emu's exec_valu, after LLVM's getInlineEncodingV216).
                self.source(o, Ty::F16, inst)?
            } else if half_sel >> k & 1 != 0 {
                // The high half of a 16-bit source register.
                let w = self.source(o, Ty::B32, inst)?;
                self.b.build_right_shift(w, self.i32(16), false, "")?
            } else {
                self.source(o, op.srcs[k], inst)?
            };
            let (neg, abs) = (mods.neg >> k & 1 != 0, mods.abs >> k & 1 != 0);
            if (neg || abs) && mix.is_none() && !pk {
                // neg/abs flip or clear the sign bit of a float source, as the hardware does
                // (bit operations: exact for NaNs too).
                let Some(bits) = hx_sem::operands::neg_abs_type(op, k).map(|t| t.bits()) else {
                    return Err(self.err(inst, "neg/abs on an integer source"));
                };
                let t = v.get_type();
                let ft = match t.get_bit_width() {
                    16 if bits == 16 => Some(self.ctx.f16_type()),
                    32 if bits == 32 => Some(self.ctx.f32_type()),
                    64 if bits == 64 => Some(self.ctx.f64_type()),
                    _ => None,
                };
                if let Some(ft) = ft {
                    // llvm.fabs and fneg only clear or flip the sign bit (LLVM LangRef: no NaN
                    // is quietened), as the hardware does; unlike the integer bit operations,
                    // the backend folds them into the target instruction's source modifiers.
                    let mut f = self.b.build_bit_cast(v, ft, "")?.into_float_value();
                    if abs {
                        f = self.call_f("llvm.fabs", f)?;
                    }
                    if neg {
                        f = self.b.build_float_neg(f, "")?;
                    }
                    v = self.b.build_bit_cast(f, t, "")?.into_int_value();
                } else {
                    let sign = t.const_int(1u64 << (bits - 1), false);
                    if abs {
                        v = self.b.build_and(v, self.b.build_not(sign, "")?, "")?;
                    }
                    if neg {
                        v = self.b.build_xor(v, sign, "")?;
                    }
                }
            }
            vals.push(v);
        }
        if matches!(op.op, Op::DivScaleF32 | Op::DivScaleF64) {
            return self.div_scale(inst, op, &srcs, &vals, vdst, mask_dst);
        }
        if op.acc {
            let d = vdst.ok_or_else(|| self.err(inst, "no destination"))?;
            vals.push(self.source(d, *op.srcs.last().unwrap(), inst)?);
        }
        let mut active = self.active()?;
        if let Some((_, on)) = dpp {
            active = self.b.build_and(active, on, "")?;
        }
        let (v, flag) = if let Some(d) = mix {
            let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
            let old = match vdst {
                Some(o) => self.source(o, Ty::B32, inst)?,
                None => self.i32(0),
            };
            (e.fma_mix(d, &vals, mods.op_sel, mods.op_sel_hi, mods.neg, mods.abs, old).map_err(|m| self.err(inst, m.0))?, None)
        } else if pk || fp8.is_some() {
            if matches!(op.op, Op::Pk(p) if p.is_bf16()) && (self.entry_mode >> 4) & 3 != (self.entry_mode >> 6) & 3 {
                // Raised in f32 (alu_ir/mods.rs pk_bf16), whose denormals follow the f32 mode.
                return Err(self.err(inst, "packed bf16 arithmetic in a kernel whose f32 and f16/f64 denormal modes differ"));
            }
            let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
            let old = match (vdst, fp8) {
                (Some(o), Some(_)) => self.source(o, Ty::B32, inst)?,
                _ => self.i32(0),
            };
            let x = Extra { op_sel: mods.op_sel, op_sel_hi: mods.op_sel_hi, neg: mods.neg, neg_hi: mods.neg_hi, byte_sel: mods.byte_sel, clamp: mods.clamp || (self.fp16_ovfl && fp8_sat) };
            let mut v = e.emit_with(op, &vals, old, &x).map_err(|m| self.err(inst, m.0))?;
            if let (true, Some(t)) = (float_clamp, float_dst) {
                // v_cvt_f32_fp8 clamp: the ordinary [0, 1] clamp of the f32 result.
                v = e.clamp_float(v, t).map_err(|m| self.err(inst, m.0))?;
            }
            (v, None)
        } else {
            let (mut v, flag) = self.emit_op(inst, op, &vals, mask_in.unwrap_or(self.ctx.bool_type().const_zero()))?;
            let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
            if int_clamp {
                let x = Extra { clamp: true, ..Extra::default() };
                v = e.emit_with(op, &vals, self.i32(0), &x).map_err(|m| self.err(inst, m.0))?;
            } else if let Some(t) = float_dst {
                // Output modifiers: omod, then clamp (hx_sem::alu::omod_clamp_f32).
                if float_omod {
                    v = e.omod_float(v, t, mods.omod).map_err(|m| self.err(inst, m.0))?;
                }
                if float_clamp {
                    v = e.clamp_float(v, t).map_err(|m| self.err(inst, m.0))?;
                }
            }
            (v, flag)
        };
        if let (Some(d), Some(t)) = (vdst, op.dst) {
            let r = self.dst_reg(d, inst)?;
            if r.class != RegClass::Vgpr {
                return Err(self.err(inst, "a non-VGPR vector destination"));
            }
            let hi_half = t.bits() == 16 && (half_sel & 8 != 0 || (fp8.is_some() && mods.op_sel & 8 != 0));
            let v = if hi_half {
                // op_sel[3]: the result goes to the high half, the low half is kept.
                let old = self.source(d, Ty::B32, inst)?;
                let lo = self.b.build_and(old, self.i32(0xffff), "")?;
                let hi = self.b.build_left_shift(self.b.build_and(v, self.i32(0xffff), "")?, self.i32(16), "")?;
                self.b.build_or(lo, hi, "")?
            } else if t.bits() == 16 && (inst.is_true16() || inst.target == hx_isa::Target::Gfx1250) {
                // gfx1250 16-bit results (true16 v_mov_b16 v1.l and the others alike; LLVM's
                // GCNSubtarget::zeroesHigh16BitsOfDest: from gfx10 on, 16-bit instructions
                // preserve the high bits): the low half, the high half kept.
                let old = self.source(d, Ty::B32, inst)?;
                let hi = self.b.build_and(old, self.i32(0xffff_0000), "")?;
                self.b.build_or(hi, self.b.build_and(v, self.i32(0xffff), "")?, "")?
            } else if t.bits() == 16 {
                // GFX9 16-bit results clear the high half.
                self.b.build_and(v, self.i32(0xffff), "")?
            } else {
                v
            };
            self.write_vreg(r, if t.bits() == 64 { 2 } else { 1 }, v, active, inst)?;
        }
        if op.flag_out == Flag::LaneMask {
            let f = flag.ok_or_else(|| self.err(inst, "no flag result"))?;
            let f = self.b.build_and(f, active, "")?;
            let mask = self.ballot_half(f)?;
            let writes_exec = matches!(op.op, Op::Cmp(c) if c.writes_exec);
            if writes_exec {
                self.b.build_store(self.exec, mask)?;
                // This thread's bit of the ballot is its own operand.
                self.fresh_active = Some(f);
            }
            match mask_dst {
                Some(Some(r)) => self.write_sreg(r, 1, mask, inst)?,
                Some(None) => {
                    self.b.build_store(self.vcc_lo, mask)?;
                }
                None if !writes_exec => {
                    self.b.build_store(self.vcc_lo, mask)?;
                }
                None => {}
            }
        }
        Ok(())
    }

    /// v_div_scale_f32/f64 D, VCC, S0, S1, S2 as llvm.amdgcn.div.scale(numerator S2,
    /// denominator S1, S0 is the numerator): S0 must be the same operand as S1 or S2, which is
    /// how LLVM emits it; anything else is refused.
    fn div_scale(&mut self, inst: &Instruction, op: &AluOp, srcs: &[&InstOperand], vals: &[IntValue<'ctx>], vdst: Option<&InstOperand>, mask_dst: Option<Option<Reg>>) -> Result<(), RaiseError> {
        let same = |a: &InstOperand, b: &InstOperand| a.value == b.value;
        let (Some(s0), Some(s1), Some(s2)) = (srcs.first(), srcs.get(1), srcs.get(2)) else { return Err(self.err(inst, "operands")) };
        let mods = inst.source_mods();
        if mods.omod != 0 || mods.clamp {
            // (LLVM never emits them; the emulator applies them to D.)
            return Err(self.err(inst, "output modifiers (omod, clamp) on v_div_scale are not raised yet"));
        }
        let m = |k: usize| (mods.neg >> k & 1, mods.abs >> k & 1);
        let numerator = if same(s0, s2) && m(0) == m(2) {
            true
        } else if same(s0, s1) && m(0) == m(1) {
            false
        } else {
            return Err(self.err(inst, "v_div_scale whose first source is neither of the others"));
        };
        let is64 = op.op == Op::DivScaleF64;
        let ft: hx_llvm::inkwell::types::BasicTypeEnum = if is64 { self.ctx.f64_type().into() } else { self.ctx.f32_type().into() };
        let num = self.b.build_bit_cast(vals[2], ft, "")?;
        let den = self.b.build_bit_cast(vals[1], ft, "")?;
        let f = self.intrinsic("llvm.amdgcn.div.scale", &[ft])?;
        let sel = self.ctx.bool_type().const_int(numerator as u64, false);
        let call = self.b.build_call(f, &[num.into(), den.into(), sel.into()], "")?;
        let agg = call.try_as_basic_value().basic().ok_or_else(|| self.err(inst, "div.scale returns nothing"))?.into_struct_value();
        let value = self.b.build_extract_value(agg, 0, "")?;
        let flag = self.b.build_extract_value(agg, 1, "")?.into_int_value();
        let it: hx_llvm::inkwell::types::BasicTypeEnum = if is64 { self.ctx.i64_type().into() } else { self.ctx.i32_type().into() };
        let v = self.b.build_bit_cast(value, it, "")?.into_int_value();
        let active = self.active()?;
        let d = vdst.ok_or_else(|| self.err(inst, "no destination"))?;
        let r = self.dst_reg(d, inst)?;
        self.write_vreg(r, if is64 { 2 } else { 1 }, v, active, inst)?;
        let f = self.b.build_and(flag, active, "")?;
        let mask = self.ballot_half(f)?;
        match mask_dst {
            Some(Some(r)) => self.write_sreg(r, 1, mask, inst)?,
            _ => {
                self.b.build_store(self.vcc_lo, mask)?;
            }
        }
        Ok(())
    }

    fn emit_op(&self, inst: &Instruction, op: &AluOp, v: &[IntValue<'ctx>], flag_in: IntValue<'ctx>) -> Result<(IntValue<'ctx>, Option<IntValue<'ctx>>), RaiseError> {
        let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
        e.emit(op, v, flag_in).map_err(|m| self.err(inst, m.0))
    }

    fn smem_load(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let mut dst = None;
        let mut base = None;
        let mut offset = 0i64;
        for o in inst.operands() {
            match (&o.spec.kind, o.value) {
                (Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstX { .. } | Kind::SDstNoM0 { .. }, Operand::Reg(r)) => dst = Some(r),
                (Kind::SBase { .. }, Operand::Reg(r)) => base = Some(self.read_sreg(r, 2, inst)?),
                (Kind::SmemOff | Kind::SmemOffNonNeg, Operand::Imm(v)) => {
                    if v >> 25 != 124 {
                        return Err(self.err(inst, "an SGPR offset on a scalar load is not raised yet"));
                    }
                    offset = (((v & 0xff_ffff) << 8) as i32 >> 8) as i64;
                }
                (Kind::Flag(n), Operand::Imm(v)) if v != 0 && n.contains("scale_offset") => {
                    return Err(self.err(inst, "scale_offset on a scalar load is not raised yet"))
                }
                _ => {}
            }
        }
        let (Some(dst), Some(base)) = (dst, base) else { return Err(self.err(inst, "operands")) };
        let base = self.rebased(inst, base)?;
        let i64t = self.ctx.i64_type();
        let addr = self.b.build_int_add(base, i64t.const_int(offset as u64, true), "")?;
        // Global (addrspace 1) loads: the address is uniform per source wave only, not per target
        // wave, so a scalar load cannot be promised to the backend.
        let ptr = self.b.build_int_to_ptr(addr, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        // GFX12 sub-dword loads: one naturally aligned byte or short, zero- or sign-extended.
        let sub = match inst.mnemonic() {
            "s_load_u8" => Some((self.ctx.i8_type(), false)),
            "s_load_i8" => Some((self.ctx.i8_type(), true)),
            "s_load_u16" => Some((self.ctx.i16_type(), false)),
            "s_load_i16" => Some((self.ctx.i16_type(), true)),
            _ => None,
        };
        if let Some((ty, signed)) = sub {
            let ld = self.b.build_load(ty, ptr, "")?;
            if let Some(li) = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld) {
                li.set_alignment(ty.get_bit_width() / 8).map_err(|e| self.err(inst, e.to_string()))?;
            }
            let v = ld.into_int_value();
            let v = if signed {
                self.b.build_int_s_extend(v, self.ctx.i32_type(), "")?
            } else {
                self.b.build_int_z_extend(v, self.ctx.i32_type(), "")?
            };
            if let Some(slot) = self.sreg_slot(dst.class, dst.index as usize, inst)? {
                self.b.build_store(slot, v)?;
            }
            return Ok(());
        }
        for i in 0..dst.dwords as usize {
            let p = unsafe { self.b.build_gep(self.ctx.i32_type(), ptr, &[i64t.const_int(i as u64, false)], "")? };
            let ld = self.b.build_load(self.ctx.i32_type(), p, "")?;
            if let Some(li) = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld) {
                li.set_alignment(4).map_err(|e| self.err(inst, e.to_string()))?;
            }
            let Some(slot) = self.sreg_slot(dst.class, dst.index as usize + i, inst)? else { continue };
            self.b.build_store(slot, ld.into_int_value())?;
        }
        Ok(())
    }

    /// `addr` of a load whose base is a PC-relative source address: the same offset into the
    /// copy of the source image.
    fn rebased(&self, inst: &Instruction, addr: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        if !self.pc_rebase.contains(&inst.offset) {
            return Ok(addr);
        }
        let image = self.pc_image.ok_or_else(|| self.err(inst, "no source image"))?;
        let base = self.b.build_ptr_to_int(image.as_pointer_value(), self.ctx.i64_type(), "")?;
        Ok(self.b.build_int_add(addr, base, "")?)
    }

    fn saveexec(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let m = inst.mnemonic();
        let (Some(d), Some(s)) = (inst.operand(0), inst.operand(1)) else { return Err(self.err(inst, "operands")) };
        let s0 = self.source(s, Ty::B32, inst)?;
        let exec = self.load(self.exec)?;
        let b = &self.b;
        let op = m.trim_start_matches("s_").split("_saveexec").next().unwrap_or("");
        let new = match op {
            "and" => b.build_and(s0, exec, "")?,
            "or" => b.build_or(s0, exec, "")?,
            "xor" => b.build_xor(s0, exec, "")?,
            "and_not1" => b.build_and(s0, b.build_not(exec, "")?, "")?,
            "or_not1" => b.build_or(s0, b.build_not(exec, "")?, "")?,
            "and_not0" => b.build_and(b.build_not(s0, "")?, exec, "")?,
            "or_not0" => b.build_or(b.build_not(s0, "")?, exec, "")?,
            _ => return Err(self.err(inst, "this EXEC operation is not raised yet")),
        };
        // Keep EXEC within the lanes that exist: an inverted mask has bits for absent lanes.
        let all = self.ballot_half(self.ctx.bool_type().const_all_ones())?;
        let new = self.b.build_and(new, all, "")?;
        let r = self.dst_reg(d, inst)?;
        if m.ends_with("_b64") {
            // The 64-bit form in wave32 code saves EXEC_HI (zero) into the high dword too.
            let wide = self.b.build_int_z_extend(exec, self.ctx.i64_type(), "")?;
            self.write_sreg(r, 2, wide, inst)?;
        } else {
            self.write_sreg(r, 1, exec, inst)?;
        }
        self.b.build_store(self.exec, new)?;
        let nz = self.b.build_int_compare(IntPredicate::NE, new, self.i32(0), "")?;
        self.b.build_store(self.scc, nz)?;
        Ok(())
    }

    fn hwreg(&self, inst: &Instruction) -> Result<(u32, u32, u32), RaiseError> {
        hx_sem::operands::hwreg_operand(inst).ok_or_else(|| self.err(inst, "no hwreg operand"))
    }

    fn setreg(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let (id, offset, size) = self.hwreg(inst)?;
        // HW_REG_WAVE_MODE bit 25 (set by every gfx1250 prologue) selects GFX12.5 behaviour the
        // target has by construction; any other MODE change would alter float results.
        if id == 1 && offset == 25 && size == 1 {
            return Ok(());
        }
        // MODE.FP16_OVFL: one value for the whole kernel, checked before raising (crate::mode).
        if id == 1 && offset == 23 && size == 1 && inst.mnemonic() == "s_setreg_imm32_b32" {
            return Ok(());
        }
        let name = hx_isa::tables::hwreg_name(hx_isa::Target::Gfx1250, id);
        // HW_REG_WAVE_SCHED_MODE bits 1:0, the dependency-check mode. Triton 3.9 writes 2 (expert
        // scheduling: the hardware's VA_VDST/VM_VSRC interlocks are off and the compiler's
        // `s_wait_alu depctr_*` waits order the wave) at the entry of every gfx1250 kernel. It
        // decides how the source wave is scheduled, never what it computes; the raised code drops
        // those waits and the target backend inserts the hazard handling its own hardware needs.
        if name == "HW_REG_WAVE_SCHED_MODE" && offset + size <= 2 {
            return Ok(());
        }
        // A MODE write that sets round/denorm bits to their entry values changes nothing (LLVM
        // writes round-to-nearest before conversions whose rounding it relies on). If every
        // write is of this kind, MODE keeps its entry value everywhere, which the raised code
        // assumes; any other write would change float results and is refused.
        if id == 1 && offset + size <= 8 && size > 0 {
            if let Some(value) = inst.operands().find_map(|o| match (o.spec.kind, o.value) {
                (hx_isa::Kind::Imm16(_), _) => None,
                (_, hx_isa::Operand::Imm(v)) => Some(v),
                _ => None,
            }) {
                let mask = ((1u32 << size) - 1) << offset;
                if (value << offset) & mask == (self.entry_mode as u32) & mask {
                    return Ok(());
                }
            }
        }
        Err(self.err(inst, format!("writing hwreg({name}, {offset}, {size}) is not raised")))
    }

    /// gfx1250's eight-element scaled conversions (hx_sem::alu::pk8): the modelled forms, as
    /// the emulator checks them, element by element where the thread is active.
    fn pk8(&mut self, inst: &Instruction, op: hx_sem::alu::pk8::Pk8Op) -> Result<(), RaiseError> {
        let (dst, src) = op.operands(inst).map_err(|e| self.err(inst, e))?;
        let words = (0..op.src_dwords() as u16)
            .map(|i| self.read_vreg(Reg { index: src.index + i, dwords: 1, ..src }, 1, inst))
            .collect::<Result<Vec<_>, _>>()?;
        let out = match self.pk8_gfx950(op, &words)? {
            Some(out) => out,
            None => {
                let e = OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true };
                e.pk8(op, &words, self.fp16_ovfl && op.is_downcast()).map_err(|m| self.err(inst, m.0))?
            }
        };
        let active = self.active()?;
        for (i, v) in out.into_iter().enumerate().take(op.dst_dwords() as usize) {
            self.write_vreg(Reg { index: dst.index + i as u16, dwords: 1, ..dst }, 1, v, active, inst)?;
        }
        Ok(())
    }

    /// gfx950's own conversions for the f32 <-> fp8/bf8 forms (v_cvt_scalef32_pk_{fp8,bf8}_f32
    /// and _pk_f32_{fp8,bf8}, two elements each, scale 1.0), which the emulator defines as
    /// gfx1250's (hx-emu pk8.rs); a saturating kernel's entry then sets the target's
    /// MODE.FP16_OVFL as the source's does. None: raised bit by bit (other targets and forms).
    fn pk8_gfx950(&self, op: hx_sem::alu::pk8::Pk8Op, words: &[IntValue<'ctx>]) -> Result<Option<Vec<IntValue<'ctx>>>, RaiseError> {
        use hx_sem::alu::fp8::Fp8Fmt;
        use hx_sem::alu::pk8::{Pk8Op, Small, Wide};
        if self.target != Some(hx_llvm::GpuTarget::Gfx950) {
            return Ok(None);
        }
        let (i32t, f32t, i1t) = (self.ctx.i32_type(), self.ctx.f32_type(), self.ctx.bool_type());
        let one = f32t.const_float(1.0);
        let name = |fmt: Fp8Fmt, down: bool| match (fmt, down) {
            (Fp8Fmt::E4M3, true) => "llvm.amdgcn.cvt.scalef32.pk.fp8.f32",
            (Fp8Fmt::E5M2, true) => "llvm.amdgcn.cvt.scalef32.pk.bf8.f32",
            (Fp8Fmt::E4M3, false) => "llvm.amdgcn.cvt.scalef32.pk.f32.fp8",
            (Fp8Fmt::E5M2, false) => "llvm.amdgcn.cvt.scalef32.pk.f32.bf8",
        };
        match op {
            Pk8Op::Down { from: Wide::F32, to: Small::Fp8(fmt) } => {
                if self.fp16_ovfl && !self.target_fp16_ovfl.get() {
                    // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1 once, at the entry.
                    let f = self.intrinsic("llvm.amdgcn.s.setreg", &[])?;
                    self.regs_b.build_call(f, &[self.i32(1473).into(), self.i32(1).into()], "")?;
                    self.target_fp16_ovfl.set(true);
                }
                let v2i16 = self.ctx.i16_type().vec_type(2);
                let f = self.intrinsic(name(fmt, true), &[])?;
                let mut out = Vec::with_capacity(2);
                for k in 0..2 {
                    let mut acc = v2i16.const_zero();
                    for (half, hi) in [(0usize, false), (2, true)] {
                        let a = self.b.build_bit_cast(words[4 * k + half], f32t, "")?;
                        let b = self.b.build_bit_cast(words[4 * k + half + 1], f32t, "")?;
                        let sel = i1t.const_int(hi as u64, false);
                        let r = self.b.build_call(f, &[acc.into(), a.into(), b.into(), one.into(), sel.into()], "")?.try_as_basic_value().basic();
                        acc = r.ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: "cvt.scalef32.pk returns nothing".into() })?.into_vector_value();
                    }
                    out.push(self.b.build_bit_cast(acc, i32t, "")?.into_int_value());
                }
                Ok(Some(out))
            }
            Pk8Op::Up { from: Small::Fp8(fmt), to: Wide::F32 } => {
                let f = self.intrinsic(name(fmt, false), &[])?;
                let mut out = Vec::with_capacity(8);
                for w in words.iter().take(2) {
                    for hi in [false, true] {
                        let sel = i1t.const_int(hi as u64, false);
                        let r = self.b.build_call(f, &[(*w).into(), one.into(), sel.into()], "")?.try_as_basic_value().basic();
                        let v = r.ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: "cvt.scalef32.pk returns nothing".into() })?.into_vector_value();
                        for j in 0..2u64 {
                            let x = self.b.build_extract_element(v, i32t.const_int(j, false), "")?;
                            out.push(self.b.build_bit_cast(x, i32t, "")?.into_int_value());
                        }
                    }
                }
                Ok(Some(out))
            }
            _ => Ok(None),
        }
    }

    fn getreg(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let (id, _, _) = self.hwreg(inst)?;
        let dst = inst.operand(0).ok_or_else(|| self.err(inst, "no destination"))?;
        let r = self.dst_reg(dst, inst)?;
        // crate::structure lets a thread run s_getreg alone inside a recovered region: a hwreg
        // raised here must not depend on EXEC (STATUS' EXECZ would).
        match id {
            // HW_REG_IB_STS2 cluster fields: the target has no clusters (0 = not in a cluster).
            28 => self.write_sreg(r, 1, self.i32(0), inst),
            _ => Err(self.err(inst, format!("reading {} is not raised", hx_isa::tables::hwreg_name(hx_isa::Target::Gfx1250, id)))),
        }
    }
}

pub(crate) fn is_modifier(k: &Kind) -> bool {
    matches!(k, Kind::Omod | Kind::OpSel { .. } | Kind::OpSelFiBc | Kind::OpSelMasked { .. } | Kind::Flag(_) | Kind::SmemCachePolicy | Kind::PkBits { .. })
}

/// The descriptor generation of gfx1250, for callers building a [`KernelAbi`].
pub const SOURCE_GENERATION: Generation = Generation::Gfx125;

impl<'ctx> Raiser<'ctx, '_> {

    /// Runs `body` only in threads where `cond` holds (memory must not be touched by inactive
    /// threads); returns what `body` produced, or `default` in the other threads.
    fn guarded(
        &mut self,
        cond: IntValue<'ctx>,
        defaults: Vec<IntValue<'ctx>>,
        body: &mut dyn FnMut(&mut Self) -> Result<Vec<IntValue<'ctx>>, RaiseError>,
    ) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        if cond.get_zero_extended_constant() == Some(1) {
            return body(self);
        }
        let from = self.current_block()?;
        let then_bb = self.ctx.append_basic_block(self.func, "active");
        let join_bb = self.ctx.append_basic_block(self.func, "join");
        self.b.build_conditional_branch(cond, then_bb, join_bb)?;
        self.b.position_at_end(then_bb);
        let memo = self.active_memo.take();
        let vals = body(self)?;
        self.active_memo.set(memo);
        let then_end = self.current_block()?;
        self.b.build_unconditional_branch(join_bb)?;
        self.b.position_at_end(join_bb);
        let mut out = Vec::new();
        for (v, d) in vals.into_iter().zip(defaults) {
            let phi = self.b.build_phi(v.get_type(), "")?;
            phi.add_incoming(&[(&v, then_end), (&d, from)]);
            out.push(phi.as_basic_value().into_int_value());
        }
        Ok(out)
    }

    fn lds_ptr(&self, addr: IntValue<'ctx>, inst: &Instruction) -> Result<PointerValue<'ctx>, RaiseError> {
        let base = self.lds_base.ok_or_else(|| self.err(inst, "no LDS"))?;
        let a = self.b.build_int_add(base, addr, "")?;
        Ok(self.b.build_int_to_ptr(a, self.ctx.ptr_type(AddressSpace::from(3u16)), "")?)
    }

    /// ds_*: LDS loads, stores and atomics under the thread's EXEC bit; the cross-lane DS
    /// operations confined to the thread's half of the target wave.
    /// v_readlane / v_readfirstlane (a source-wave lane to an SGPR) and v_writelane. A source
    /// lane is the same lane of this thread's half of the target wave; all 32 threads of a half
    /// follow the same control flow, so they are all running here and ds_bpermute reads the
    /// lane's register whatever the source EXEC says, as readlane does.
    /// v_bitop3_b32 as the OR of the truth table's minterms (LLVM folds it to and/or/xor).
    /// v_bitop3_b16 as the emulator runs it (hx_sem::operands): op_sel picks the 16-bit halves.
    fn bitop3(&mut self, inst: &Instruction, table: u8) -> Result<(), RaiseError> {
        let Some((d, [a, b, c], op_sel)) = inst.bitop3_operands() else { return Err(self.err(inst, "operands")) };
        let Operand::Reg(r) = d.value else { return Err(self.err(inst, "a non-register destination")) };
        let mut s = [self.source(a, Ty::B32, inst)?, self.source(b, Ty::B32, inst)?, self.source(c, Ty::B32, inst)?];
        if let Some(sel) = op_sel {
            for (k, o) in [a, b, c].iter().enumerate() {
                if sel >> k & 1 != 0 && !matches!(o.value, Operand::Reg(_)) {
                    return Err(self.err(inst, "op_sel on a constant source"));
                }
                s[k] = if sel >> k & 1 != 0 {
                    self.b.build_right_shift(s[k], self.i32(16), false, "")?
                } else {
                    self.b.build_and(s[k], self.i32(0xffff), "")?
                };
            }
        }
        let not = |v: IntValue<'ctx>| self.b.build_not(v, "");
        let mut out = self.i32(0);
        for i in 0..8u32 {
            if table >> i & 1 == 0 {
                continue;
            }
            let mut term = self.i32(u32::MAX as u64);
            for (k, bit) in [(0usize, 2u32), (1, 1), (2, 0)] {
                let v = if i >> bit & 1 == 1 { s[k] } else { not(s[k])? };
                term = self.b.build_and(term, v, "")?;
            }
            out = self.b.build_or(out, term, "")?;
        }
        if let Some(sel) = op_sel {
            out = self.b.build_and(out, self.i32(0xffff), "")?;
            // The other half of the destination is kept (gfx1250 16-bit results).
            let old = self.read_vreg(r, 1, inst)?;
            if sel & 8 != 0 {
                let low = self.b.build_and(old, self.i32(0xffff), "")?;
                out = self.b.build_or(low, self.b.build_left_shift(out, self.i32(16), "")?, "")?;
            } else {
                let high = self.b.build_and(old, self.i32(0xffff_0000), "")?;
                out = self.b.build_or(high, out, "")?;
            }
        }
        let active = self.active()?;
        self.write_vreg(r, 1, out, active, inst)
    }

    /// v_permlane16_b32 / v_permlanex16_b32 vdst, vsrc, sel_lo, sel_hi op_sel:[fi,bc] (Triton's
    /// wave32 reductions), by the emulator's rules (hx_sem::lane_ops::apply_permlane16): lane `l`
    /// of the source wave reads lane `row | nibble l of {sel_hi, sel_lo}`, `row` its own 16-lane
    /// row (x16: the other row of the wave). A read of a lane the source EXEC has off is valid
    /// only with FI; an invalid read gives 0 with bound_ctrl, else the lane keeps vdst. The lane
    /// is fetched with ds_bpermute inside this thread's half: all threads of a half run here.
    fn permlane16(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let ops: Vec<&InstOperand> = inst.operands().collect();
        let (Some(d), Some(s0), Some(lo), Some(hi)) = (ops.first(), ops.get(1), ops.get(2), ops.get(3)) else {
            return Err(self.err(inst, "operands"));
        };
        let (Operand::Reg(dst), Operand::Reg(src)) = (d.value, s0.value) else { return Err(self.err(inst, "non-register operands")) };
        let op_sel = ops
            .iter()
            .find(|o| matches!(o.spec.kind, Kind::OpSelFiBc))
            .map_or(0, |o| if let Operand::Imm(v) = o.value { v } else { 0 });
        let (fi, bound_ctrl) = (op_sel & 1 != 0, op_sel & 2 != 0);
        let (lo, hi) = (self.source(lo, Ty::B32, inst)?, self.source(hi, Ty::B32, inst)?);
        let data = self.read_vreg(src, 1, inst)?;
        let b = &self.b;
        let i64t = self.ctx.i64_type();
        let sel = b.build_or(b.build_left_shift(b.build_int_z_extend(hi, i64t, "")?, i64t.const_int(32, false), "")?, b.build_int_z_extend(lo, i64t, "")?, "")?;
        let k4 = b.build_int_z_extend(b.build_left_shift(b.build_and(self.lane, self.i32(15), "")?, self.i32(2), "")?, i64t, "")?;
        let nibble = b.build_int_truncate(b.build_and(b.build_right_shift(sel, k4, false, "")?, i64t.const_int(15, false), "")?, self.ctx.i32_type(), "")?;
        let mut row = b.build_and(self.lane, self.i32(16), "")?;
        if inst.mnemonic() == "v_permlanex16_b32" {
            row = b.build_xor(row, self.i32(16), "")?;
        }
        let from = b.build_or(row, nibble, "")?;
        let fetched = self.bpermute_in_half(from, data)?;
        let active = self.active()?;
        let b = &self.b;
        let on = if fi {
            active
        } else {
            let exec = self.load(self.exec)?;
            let b = &self.b;
            let src_on = b.build_int_compare(IntPredicate::NE, b.build_and(b.build_right_shift(exec, from, false, "")?, self.i32(1), "")?, self.i32(0), "")?;
            if bound_ctrl {
                let v = b.build_select(src_on, fetched, self.i32(0), "")?.into_int_value();
                return self.write_vreg(dst, 1, v, active, inst);
            }
            b.build_and(active, src_on, "")?
        };
        let _ = b;
        self.write_vreg(dst, 1, fetched, on, inst)
    }

    /// v_permlane16_swap_b32 vdst, vsrc (gfx1250, Triton's causal attention): lanes 16..31 of
    /// vdst and lanes 0..15 of vsrc trade values (hx_sem::lane_ops::permlane_swap; the emulator
    /// refuses a pair with one lane off). Each thread fetches its partner's (lane ^ 16) vdst and
    /// vsrc with ds_bpermute inside its half and keeps what the swap leaves it.
    fn permlane16_swap(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
            Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Ok(Reg { dwords: 1, ..r }),
            v => Err(self.err(inst, format!("operand {v:?}"))),
        };
        let (dst, src) = (reg(0)?, reg(1)?);
        let (d, s) = (self.read_vreg(dst, 1, inst)?, self.read_vreg(src, 1, inst)?);
        let partner = self.b.build_xor(self.lane, self.i32(16), "")?;
        let (from_d, from_s) = (self.bpermute_in_half(partner, d)?, self.bpermute_in_half(partner, s)?);
        let b = &self.b;
        let lower = b.build_int_compare(IntPredicate::ULT, self.lane, self.i32(16), "")?;
        let new_d = b.build_select(lower, d, from_s, "")?.into_int_value();
        let new_s = b.build_select(lower, from_d, s, "")?.into_int_value();
        let active = self.active()?;
        self.write_vreg(dst, 1, new_d, active, inst)?;
        self.write_vreg(src, 1, new_s, active, inst)
    }

    /// gfx1250 ds_load_tr8_b64 and ds_load_tr16_b128 by the emulator's pinned readings
    /// (hx_sem::memory::ds_transpose_source): element r (of 8) of lane c's result is element
    /// c % 8 of the load at the address of lane P(r, c) of c's 16-lane group, P = (r % 4) + 4 (c /
    /// 8) + 8 (r / 4) for tr8 (bytes), r + 8 (c / 8) for tr16 (16-bit elements).
    ///
    /// On gfx950, its own transpose loads, which read 4 (b16) or 8 (b8) elements a lane with
    /// element r of lane c from lane (16 / E) r + c / E of the group (the reading gfx950's natives
    /// pin), after ds_bpermute gives each target lane t the address of the source lane that
    /// makes them the same bytes: tr8 (one ds_read_b64_tr_b8) lane ((t / 2) % 4) + 4 (t % 2) +
    /// 8 (t / 8); tr16 (two ds_read_b64_tr_b16, rows 4q..4q+3) lane t / 4 + 4q + 8 ((t % 4) / 2),
    /// plus 8 bytes where t is odd. A source half is 16-lane aligned in the target wave, so its
    /// groups are the target's. Elsewhere, each thread fetches its 8 addresses with ds_bpermute
    /// and loads one element at each, where the source EXEC has it on. All threads of a half run
    /// here (a group the source EXEC has partly off is refused by the emulator: not defined).
    fn ds_load_tr(&mut self, inst: &Instruction, tr16: bool) -> Result<(), RaiseError> {
        use hx_sem::operands::{field_imm, field_reg};
        use hx_isa::Field;
        let offset = field_imm(inst, Field::DsOffset).unwrap_or(0) as u64;
        let (Some(vdst), Some(addr)) = (field_reg(inst, Field::DsVdst), field_reg(inst, Field::DsAddr)) else {
            return Err(self.err(inst, "no destination or address register"));
        };
        let a = self.read_vreg(addr, 1, inst)?;
        let a = self.b.build_int_add(a, self.i32(offset), "")?;
        let active = self.active()?;
        let lane = self.lane;
        // The address of lane `from` (of this thread's half) plus `plus`.
        let fetch = |this: &Self, from: IntValue<'ctx>, a: IntValue<'ctx>, plus: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
            let got = this.bpermute_in_half(from, a)?;
            Ok(this.b.build_int_add(got, plus, "")?)
        };
        let bits = |this: &Self, v: hx_llvm::inkwell::values::BasicValueEnum<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
            Ok(this.b.build_bit_cast(v, this.ctx.i64_type(), "")?.into_int_value())
        };
        let group = self.b.build_and(lane, self.i32(16), "")?;
        let odd = self.b.build_and(lane, self.i32(1), "")?;
        let b_3 = self.b.build_and(self.b.build_right_shift(lane, self.i32(3), false, "")?, self.i32(1), "")?;
        if self.target == Some(hx_llvm::GpuTarget::Gfx950) {
            // Threads the source has off send address 0 (in the LDS; their results are not kept).
            let a = self.b.build_select(active, a, self.i32(0), "")?.into_int_value();
            let b = &self.b;
            if !tr16 {
                let from = b.build_or(b.build_or(b.build_and(lane, self.i32(16 | 8), "")?, b.build_and(b.build_right_shift(lane, self.i32(1), false, "")?, self.i32(3), "")?, "")?, b.build_left_shift(odd, self.i32(2), "")?, "")?;
                let ptr = self.lds_ptr(fetch(self, from, a, self.i32(0))?, inst)?;
                let f = self.intrinsic("llvm.amdgcn.ds.read.tr8.b64", &[self.ctx.i32_type().vec_type(2).into()])?;
                let v = self.b.build_call(f, &[ptr.into()], "")?.try_as_basic_value().basic().ok_or_else(|| self.err(inst, "no result"))?;
                return self.write_vreg(Reg { dwords: 2, ..vdst }, 2, bits(self, v)?, active, inst);
            }
            let f = self.intrinsic("llvm.amdgcn.ds.read.tr16.b64", &[self.ctx.i16_type().vec_type(4).into()])?;
            let (t4, t3) = (self.b.build_right_shift(self.b.build_and(lane, self.i32(15), "")?, self.i32(2), false, "")?, self.b.build_and(self.b.build_right_shift(lane, self.i32(1), false, "")?, self.i32(1), "")?);
            let plus = self.b.build_left_shift(odd, self.i32(3), "")?;
            let mut halves = Vec::new();
            for q in 0..2u64 {
                let b = &self.b;
                let from = b.build_or(b.build_or(group, b.build_or(t4, self.i32(4 * q), "")?, "")?, b.build_left_shift(t3, self.i32(3), "")?, "")?;
                let ptr = self.lds_ptr(fetch(self, from, a, plus)?, inst)?;
                let v = self.b.build_call(f, &[ptr.into()], "")?.try_as_basic_value().basic().ok_or_else(|| self.err(inst, "no result"))?;
                halves.push(bits(self, v)?);
            }
            self.write_vreg(Reg { dwords: 2, ..vdst }, 2, halves[0], active, inst)?;
            return self.write_vreg(Reg { index: vdst.index + 2, dwords: 2, ..vdst }, 2, halves[1], active, inst);
        }
        let (eb, block) = if tr16 { (2u64, self.b.build_left_shift(b_3, self.i32(3), "")?) } else { (1, self.b.build_left_shift(b_3, self.i32(2), "")?) };
        let block = self.b.build_or(group, block, "")?;
        let col = self.b.build_left_shift(self.b.build_and(lane, self.i32(7), "")?, self.i32(eb - 1), "")?;
        let mut ptrs = Vec::new();
        for r in 0..8u64 {
            let row = if tr16 { r } else { (r % 4) + 8 * (r / 4) };
            let from = self.b.build_or(block, self.i32(row), "")?;
            ptrs.push(self.lds_ptr(fetch(self, from, a, col)?, inst)?);
        }
        let i32t = self.ctx.i32_type();
        let words_n = 2 * eb as usize;
        let got = self.guarded(active, vec![i32t.const_zero(); words_n], &mut |r| {
            let ty = if tr16 { r.ctx.i16_type() } else { r.ctx.i8_type() };
            let mut words = vec![r.i32(0); words_n];
            let per = 4 / eb as usize;
            for (k, p) in ptrs.iter().enumerate() {
                let ld = r.b.build_load(ty, *p, "")?;
                if let Some(i) = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld) {
                    i.set_alignment(eb as u32).map_err(|e| r.err(inst, e.to_string()))?;
                }
                let v = r.b.build_int_z_extend(ld.into_int_value(), i32t, "")?;
                let v = r.b.build_left_shift(v, r.i32(8 * eb * (k % per) as u64), "")?;
                words[k / per] = r.b.build_or(words[k / per], v, "")?;
            }
            Ok(words)
        })?;
        for (i, pair) in got.chunks(2).enumerate() {
            let v = self.join(pair[0], pair[1])?;
            self.write_vreg(Reg { index: vdst.index + 2 * i as u16, dwords: 2, ..vdst }, 2, v, active, inst)?;
        }
        Ok(())
    }

    fn lane_move(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let ops: Vec<&InstOperand> = inst.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        let reg = |i: usize| match ops.get(i).map(|o| o.value) {
            Some(Operand::Reg(r)) => Ok(r),
            v => Err(self.err(inst, format!("operand {v:?}"))),
        };
        let lane_of = |this: &Self, sel: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> { Ok(this.b.build_and(sel, this.i32(31), "")?) };
        match inst.mnemonic() {
            "v_writelane_b32" => {
                let dst = reg(0)?;
                let v = self.source(ops.get(1).ok_or_else(|| self.err(inst, "no source"))?, Ty::B32, inst)?;
                let sel = self.source(ops.get(2).ok_or_else(|| self.err(inst, "no lane select"))?, Ty::B32, inst)?;
                let sel = lane_of(self, sel)?;
                if self.one_source_wave {
                    // The source wave is the whole running wave: the target's v_writelane,
                    // where comparing every lane's number with `sel` costs three instructions.
                    let old = self.read_vreg(dst, 1, inst)?;
                    let i32t = self.ctx.i32_type();
                    let w = self.call("llvm.amdgcn.writelane", &[i32t.into()], &[v.into(), sel.into(), old.into()])?;
                    return self.write_vreg(dst, 1, w, self.ctx.bool_type().const_all_ones(), inst);
                }
                let mine = self.b.build_int_compare(IntPredicate::EQ, sel, self.lane, "")?;
                self.write_vreg(dst, 1, v, mine, inst)
            }
            m => {
                let (dst, src) = (reg(0)?, reg(1)?);
                if dst.class == RegClass::Vgpr {
                    return Err(self.err(inst, "a VGPR destination"));
                }
                let sel = if m == "v_readlane_b32" {
                    let s = self.source(ops.get(2).ok_or_else(|| self.err(inst, "no lane select"))?, Ty::B32, inst)?;
                    lane_of(self, s)?
                } else {
                    // The lowest lane in EXEC, lane 0 when EXEC is 0.
                    let e = self.load(self.exec)?;
                    let tz = self.call("llvm.cttz", &[self.ctx.i32_type().into()], &[e.into(), self.ctx.bool_type().const_zero().into()])?;
                    let zero = self.b.build_int_compare(IntPredicate::EQ, e, self.i32(0), "")?;
                    self.b.build_select(zero, self.i32(0), tz, "")?.into_int_value()
                };
                let data = self.read_vreg(src, 1, inst)?;
                // `sel` is uniform in the source wave.
                let v = self.read_lane(data, sel)?;
                self.write_sreg(dst, 1, v, inst)
            }
        }
    }

    /// ds_store_b8/b16 (the low byte or half of DATA0) and ds_load_u8/i8/u16/i16 (zero- or
    /// sign-extended into VDST), in the threads the source EXEC has on, at the source's byte
    /// offset (no alignment beyond the access's own size, as the hardware requires).
    /// `d16 = Some(hi)`: the d16 forms, on one half of the register: a load of 16 bits (or a
    /// byte extended to 16) into bits 15:0 or (`hi`) 31:16 of VDST, the other half kept
    /// ([`Raiser::d16_merge`]); a store of bits 15:0 or 31:16 of DATA0 (or their low byte).
    #[allow(clippy::too_many_arguments)]
    fn ds_sub_dword(
        &mut self,
        inst: &Instruction,
        ptr: PointerValue<'ctx>,
        bits: u32,
        signed: bool,
        d16: Option<bool>,
        store: bool,
        active: IntValue<'ctx>,
        vdst: Option<Reg>,
        d0: Option<Reg>,
    ) -> Result<(), RaiseError> {
        let i32t = self.ctx.i32_type();
        let ty = if bits == 8 { self.ctx.i8_type() } else { self.ctx.i16_type() };
        let align = bits / 8;
        let hi = d16 == Some(true);
        let missing = |what: &str| self.err(inst, format!("no {what} register"));
        if store {
            let data = self.read_vreg(d0.ok_or_else(|| missing("data"))?, 1, inst)?;
            let data = if hi { self.b.build_right_shift(data, self.i32(16), false, "")? } else { data };
            let v = self.b.build_int_truncate(data, ty, "")?;
            self.guarded(active, vec![], &mut |r| {
                let st = r.b.build_store(ptr, v)?;
                st.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                Ok(vec![])
            })?;
            return Ok(());
        }
        let dst = vdst.ok_or_else(|| missing("destination"))?;
        // Extended to 32 bits, or for d16 to 16 bits (then zero-extended for the merge).
        let ext = if d16.is_some() { self.ctx.i16_type() } else { i32t };
        let got = self.guarded(active, vec![i32t.const_zero()], &mut |r| {
            let ld = r.b.build_load(ty, ptr, "")?;
            if let Some(i) = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld) {
                i.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
            }
            let v = ld.into_int_value();
            let v = if signed { r.b.build_int_s_extend_or_bit_cast(v, ext, "")? } else { r.b.build_int_z_extend_or_bit_cast(v, ext, "")? };
            Ok(vec![r.b.build_int_z_extend_or_bit_cast(v, i32t, "")?])
        })?;
        let v = got.first().copied().ok_or_else(|| self.err(inst, "no loaded value"))?;
        let v = match d16 {
            Some(hi) => self.d16_merge(Reg { dwords: 1, ..dst }, v, hi, inst)?,
            None => v,
        };
        self.write_vreg(Reg { dwords: 1, ..dst }, 1, v, active, inst)
    }

    /// A d16 load's 16 bits `v` (zero-extended) in bits 15:0 or (`hi`) 31:16 of register `dst`'s
    /// value, the other half kept (hx_sem::memory::Width's D16 forms).
    fn d16_merge(&self, dst: Reg, v: IntValue<'ctx>, hi: bool, inst: &Instruction) -> Result<IntValue<'ctx>, RaiseError> {
        let old = self.read_vreg(dst, 1, inst)?;
        Ok(if hi {
            self.b.build_or(self.b.build_and(old, self.i32(0xffff), "")?, self.b.build_left_shift(v, self.i32(16), "")?, "")?
        } else {
            self.b.build_or(self.b.build_and(old, self.i32(0xffff_0000), "")?, v, "")?
        })
    }

    fn ds(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        use hx_isa::Field;
        let m = inst.mnemonic();
        let offset = hx_sem::operands::field_imm(inst, Field::DsOffset).unwrap_or(0) as u64;
        let (vdst, addr, d0, d1) =
            {
            use hx_sem::operands::field_reg;
            (field_reg(inst, Field::DsVdst), field_reg(inst, Field::DsAddr), field_reg(inst, Field::DsData0), field_reg(inst, Field::DsData1))
        };
        let i32t = self.ctx.i32_type();
        let active = self.active()?;
        let need = |r: Option<Reg>, what: &str| r.ok_or_else(|| RaiseError::at(self.kernel, inst.offset, m, format!("no {what} register")));
        if m == "ds_permute_b32" {
            // Forward permute inside the half: each thread sends its data to lane
            // ((addr + offset) / 4) mod 32 of its half; lanes nobody sends to get 0. A thread the
            // source EXEC has off must not send: it sends to its own lane, whose result it never
            // writes (only active threads write).
            let dst = need(vdst, "destination")?;
            let data = self.read_vreg(need(d0, "data")?, 1, inst)?;
            let a = self.read_vreg(need(addr, "address")?, 1, inst)?;
            let a = self.b.build_int_add(a, self.i32(offset), "")?;
            let lane = self.b.build_and(self.b.build_right_shift(a, self.i32(2), false, "")?, self.i32(31), "")?;
            let lane = self.b.build_select(active, lane, self.lane, "")?.into_int_value();
            let a = self.half_lane_address(lane)?;
            let v = self.call("llvm.amdgcn.ds.permute", &[], &[a.into(), data.into()])?;
            return self.write_vreg(dst, 1, v, active, inst);
        }
        if m == "ds_swizzle_b32" && offset & 0x8000 != 0 && offset & 0xff00 != 0x8000 {
            // Rotate, FFT and the patterns LLVM has no name for: not checked on the target yet.
            return Err(self.err(inst, format!("ds_swizzle pattern {offset:#x} (rotate/FFT) is not raised yet")));
        }
        if m == "ds_bpermute_b32" || m == "ds_swizzle_b32" {
            let dst = need(vdst, "destination")?;
            // Inactive source lanes read as 0 (ISA); the hardware thread is running, so zero it.
            let data_reg = if m == "ds_swizzle_b32" { need(addr, "data")? } else { need(d0, "data")? };
            let data = self.read_vreg(data_reg, 1, inst)?;
            let data = self.b.build_select(active, data, i32t.const_zero(), "")?.into_int_value();
            let v = if m == "ds_bpermute_b32" {
                // Lane (addr + offset) / 4 mod 32, within this thread's half.
                let a = self.read_vreg(need(addr, "address")?, 1, inst)?;
                let a = self.b.build_int_add(a, self.i32(offset), "")?;
                let lane = self.b.build_and(self.b.build_right_shift(a, self.i32(2), false, "")?, self.i32(31), "")?;
                self.bpermute_in_half(lane, data)?
            } else {
                // Swizzle patterns act within groups of 32 lanes on both wave sizes.
                self.call("llvm.amdgcn.ds.swizzle", &[], &[data.into(), self.i32(offset).into()])?
            };
            return self.write_vreg(dst, 1, v, active, inst);
        }
        let a = self.read_vreg(need(addr, "address")?, 1, inst)?;
        let dwords = |w: &str| -> u8 {
            match w {
                "b64" => 2,
                "b96" => 3,
                "b128" => 4,
                _ => 1,
            }
        };
        let width = m.rsplit('_').next().unwrap_or("");
        if let Some(rest) = m.strip_prefix("ds_load_2addr_").or_else(|| m.strip_prefix("ds_store_2addr_")) {
            let stride64 = rest.starts_with("stride64_");
            let w = dwords(rest.trim_start_matches("stride64_"));
            if w > 2 {
                return Err(self.err(inst, "this two-address width"));
            }
            let unit = 4 * w as u64 * if stride64 { 64 } else { 1 };
            let (o0, o1) = ((offset & 0xff) * unit, (offset >> 8) * unit);
            let store = m.starts_with("ds_store");
            let parts = if store {
                let (x, y) = (need(d0, "data0")?, need(d1, "data1")?);
                vec![self.read_vreg(x, w, inst)?, self.read_vreg(y, w, inst)?]
            } else {
                Vec::new()
            };
            let ty = if w == 2 { self.ctx.i64_type() } else { i32t };
            let p0 = self.lds_ptr(self.b.build_int_add(a, self.i32(o0), "")?, inst)?;
            let p1 = self.lds_ptr(self.b.build_int_add(a, self.i32(o1), "")?, inst)?;
            let align = 4 * w as u32;
            let defaults = if store { vec![] } else { vec![ty.const_zero(), ty.const_zero()] };
            let got = self.guarded(active, defaults, &mut |r| {
                if store {
                    for (p, v) in [(p0, parts[0]), (p1, parts[1])] {
                        let st = r.b.build_store(p, v)?;
                        st.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                    }
                    Ok(vec![])
                } else {
                    let mut out = Vec::new();
                    for p in [p0, p1] {
                        let ld = r.b.build_load(ty, p, "")?;
                        hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld).unwrap().set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                        out.push(ld.into_int_value());
                    }
                    Ok(out)
                }
            })?;
            if !store {
                let dst = need(vdst, "destination")?;
                self.write_vreg(Reg { dwords: w, ..dst }, w, got[0], active, inst)?;
                self.write_vreg(Reg { index: dst.index + w as u16, dwords: w, ..dst }, w, got[1], active, inst)?;
            }
            return Ok(());
        }
        let addr_off = self.b.build_int_add(a, self.i32(offset), "")?;
        let ptr = self.lds_ptr(addr_off, inst)?;
        if m.starts_with("ds_load_") || m.starts_with("ds_store_") {
            let w = dwords(width);
            let store = m.starts_with("ds_store_");
            if let Some((bits, signed)) = match m {
                "ds_store_b8" | "ds_load_u8" => Some((8u32, false)),
                "ds_store_b16" | "ds_load_u16" => Some((16, false)),
                "ds_load_i8" => Some((8, true)),
                "ds_load_i16" => Some((16, true)),
                _ => None,
            } {
                return self.ds_sub_dword(inst, ptr, bits, signed, None, store, active, vdst, d0);
            }
            // The d16 forms: one half of the register (hx_sem::memory::Width's D16*).
            if let Some((bits, signed, hi)) = match m {
                "ds_load_u16_d16" => Some((16u32, false, false)),
                "ds_load_u16_d16_hi" | "ds_store_b16_d16_hi" => Some((16, false, true)),
                "ds_load_u8_d16" => Some((8, false, false)),
                "ds_load_u8_d16_hi" | "ds_store_b8_d16_hi" => Some((8, false, true)),
                "ds_load_i8_d16" => Some((8, true, false)),
                "ds_load_i8_d16_hi" => Some((8, true, true)),
                _ => None,
            } {
                return self.ds_sub_dword(inst, ptr, bits, signed, Some(hi), store, active, vdst, d0);
            }
            if !matches!(width, "b32" | "b64" | "b96" | "b128") {
                return Err(self.err(inst, "sub-dword LDS accesses other than ds_store_b8/b16, ds_load_u8/i8/u16/i16 and their d16 forms are not raised yet"));
            }
            let data = if store { Some(need(d0, "data")?) } else { None };
            let words: Vec<IntValue<'ctx>> = match data {
                Some(r) => (0..w).map(|i| self.read_vreg(Reg { index: r.index + i as u16, dwords: 1, ..r }, 1, inst)).collect::<Result<_, _>>()?,
                None => vec![],
            };
            let defaults = if store { vec![] } else { vec![i32t.const_zero(); w as usize] };
            let got = self.guarded(active, defaults, &mut |r| {
                let mut out = Vec::new();
                for i in 0..w as u64 {
                    let p = unsafe { r.b.build_gep(i32t, ptr, &[i32t.const_int(i, false)], "")? };
                    if store {
                        let st = r.b.build_store(p, words[i as usize])?;
                        st.set_alignment(4).map_err(|e| r.err(inst, e.to_string()))?;
                    } else {
                        let ld = r.b.build_load(i32t, p, "")?;
                        hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld).unwrap().set_alignment(4).map_err(|e| r.err(inst, e.to_string()))?;
                        out.push(ld.into_int_value());
                    }
                }
                Ok(out)
            })?;
            if !store {
                let dst = need(vdst, "destination")?;
                for (i, v) in got.into_iter().enumerate() {
                    self.write_vreg(Reg { index: dst.index + i as u16, dwords: 1, ..dst }, 1, v, active, inst)?;
                }
            }
            return Ok(());
        }
        // Atomics: ds_<op>[_rtn]_<type>.
        use hx_llvm::inkwell::AtomicRMWBinOp as Rmw;
        let name = m.trim_start_matches("ds_");
        let returns = name.contains("_rtn_");
        // ds_max_rtn_u32 -> "max"; ds_add_u32 -> "add".
        let op_name = if returns { name.split("_rtn").next().unwrap_or("") } else { name.rsplit_once('_').map(|(o, _)| o).unwrap_or("") };
        if width != "u32" && width != "i32" && width != "b32" {
            return Err(self.err(inst, "64-bit and float LDS atomics are not raised yet"));
        }
        let src = self.read_vreg(need(d0, "data")?, 1, inst)?;
        let ordering = hx_llvm::inkwell::AtomicOrdering::Monotonic;
        let got = if op_name == "cmpstore" {
            // GFX12 ds_cmpstore: DATA0 is the value stored, DATA1 the compare value.
            let cmp = self.read_vreg(need(d1, "data1")?, 1, inst)?;
            self.guarded(active, vec![i32t.const_zero()], &mut |r| {
                let x = r.b.build_cmpxchg(ptr, cmp, src, ordering, ordering)?;
                let old = r.b.build_extract_value(x, 0, "")?.into_int_value();
                Ok(vec![old])
            })?
        } else {
            let rmw = match op_name {
                "add" => Rmw::Add,
                "sub" => Rmw::Sub,
                "and" => Rmw::And,
                "or" => Rmw::Or,
                "xor" => Rmw::Xor,
                "max" if width == "u32" => Rmw::UMax,
                "min" if width == "u32" => Rmw::UMin,
                "max" => Rmw::Max,
                "min" => Rmw::Min,
                "storexchg" => Rmw::Xchg,
                _ => return Err(self.err(inst, "this LDS atomic is not raised yet")),
            };
            self.guarded(active, vec![i32t.const_zero()], &mut |r| Ok(vec![r.b.build_atomicrmw(rmw, ptr, src, ordering)?]))?
        };
        if returns {
            let dst = need(vdst, "destination")?;
            self.write_vreg(dst, 1, got[0], active, inst)?;
        }
        Ok(())
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    /// global_*, scratch_* and flat_*: loads, stores and atomics under the thread's EXEC bit.
    /// Global addresses are addrspace(1) pointers; the source's scratch is the thread's private
    /// array; flat addresses go where their window says (flat_ir).
    pub fn vmem(&mut self, inst: &Instruction, o: &hx_sem::operands::VmemOperands) -> Result<(), RaiseError> {
        use hx_sem::memory::{self, Space};
        let m = inst.mnemonic();
        if let Some(bytes) = hx_sem::memory::async_load_size(m) {
            return self.async_to_lds(inst, o, bytes);
        }
        let shape = memory::classify(m).ok_or_else(|| self.err(inst, "this memory operation"))?;
        let i64t = self.ctx.i64_type();
        let bytes = shape.width.bytes() as u64;
        let scale = if o.scale_offset { bytes } else { 1 };
        let active = self.active()?;
        let vaddr32 = |r: &Self| -> Result<Option<IntValue<'ctx>>, RaiseError> {
            match o.vaddr {
                Some(v) => {
                    let x = r.b.build_int_z_extend(r.read_vreg(v, 1, inst)?, i64t, "")?;
                    Ok(Some(r.b.build_int_mul(x, i64t.const_int(scale, false), "")?))
                }
                None => Ok(None),
            }
        };
        let ptr = match shape.space {
            Space::Global => {
                let saddr = o.saddr.filter(|r| r.class != RegClass::Null);
                let base = match (saddr, o.vaddr) {
                    (Some(s), _) => {
                        let s = self.read_sreg(s, 2, inst)?;
                        match vaddr32(self)? {
                            Some(v) => self.b.build_int_add(s, v, "")?,
                            None => s,
                        }
                    }
                    (None, Some(v)) => self.read_vreg(v, 2, inst)?,
                    (None, None) => return Err(self.err(inst, "no address")),
                };
                let base = self.rebased(inst, base)?;
                let a = self.b.build_int_add(base, i64t.const_int(o.offset as u64, true), "")?;
                self.b.build_int_to_ptr(a, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?
            }
            Space::Scratch => {
                // Without a private segment the source faults where this runs (code the kernel
                // has but may never reach, such as a device function it does not call).
                let Some(arr) = self.scratch else { return self.trap_if(active, "scratch_ok") };
                let mut off = i64t.const_int(o.offset as u64, true);
                if let Some(v) = vaddr32(self)? {
                    off = self.b.build_int_add(off, v, "")?;
                }
                if let Some(s) = o.saddr.filter(|r| r.class != RegClass::Null) {
                    let s = self.b.build_int_z_extend(self.read_sreg(s, 1, inst)?, i64t, "")?;
                    off = self.b.build_int_add(off, s, "")?;
                }
                unsafe { self.b.build_gep(self.ctx.i8_type(), arr, &[off], "")? }
            }
            Space::Flat => return self.flat(inst, o, &shape),
            _ => return Err(self.err(inst, "LDS-space vector memory is not raised yet")),
        };
        self.vmem_access(inst, &shape, ptr, active, active, o.vdst, o.vdata, o.returns)
    }

    /// The `dwords` data registers of a VMEM store, from `vdata`.
    pub(crate) fn vmem_store_data(&self, inst: &Instruction, vdata: Option<Reg>, dwords: u8) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        let data = vdata.ok_or_else(|| self.err(inst, "no data"))?;
        (0..dwords).map(|i| self.read_vreg(Reg { index: data.index + i as u16, dwords: 1, ..data }, 1, inst)).collect()
    }

    /// Writes a VMEM load's dwords to `vdst` where `active` holds.
    pub(crate) fn vmem_load_result(&mut self, inst: &Instruction, vdst: Option<Reg>, got: Vec<IntValue<'ctx>>, active: IntValue<'ctx>) -> Result<(), RaiseError> {
        let dst = vdst.ok_or_else(|| self.err(inst, "no destination"))?;
        for (i, v) in got.into_iter().enumerate() {
            self.write_vreg(Reg { index: dst.index + i as u16, dwords: 1, ..dst }, 1, v, active, inst)?;
        }
        Ok(())
    }

    /// A VMEM atomic's source operand from `vdata` (64-bit where `wide`) and, for
    /// compare-and-swap, the compare value: VMEM cmpswap data is the register tuple {src, cmp}.
    pub(crate) fn vmem_atomic_data(
        &self,
        inst: &Instruction,
        vdata: Option<Reg>,
        wide: bool,
        cmpswap: bool,
    ) -> Result<(IntValue<'ctx>, Option<IntValue<'ctx>>), RaiseError> {
        let w = if wide { 2 } else { 1 };
        let data = vdata.ok_or_else(|| self.err(inst, "no data"))?;
        let src = self.read_vreg(Reg { dwords: w, ..data }, w, inst)?;
        let cmp = if cmpswap { Some(self.read_vreg(Reg { index: data.index + w as u16, dwords: w, ..data }, w, inst)?) } else { None };
        Ok((src, cmp))
    }

    /// The access of a global/scratch/buffer instruction at `ptr`, performed where `guard` holds;
    /// the destination is written where `active` holds (0 where the guard is off: a buffer's
    /// out-of-range lanes).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn vmem_access(
        &mut self,
        inst: &Instruction,
        shape: &hx_sem::memory::MemShape,
        ptr: PointerValue<'ctx>,
        guard: IntValue<'ctx>,
        active: IntValue<'ctx>,
        vdst: Option<Reg>,
        vdata: Option<Reg>,
        returns: bool,
    ) -> Result<(), RaiseError> {
        use hx_sem::memory::{AtomicOp, MemKind, Width};
        use hx_llvm::inkwell::AtomicRMWBinOp as Rmw;
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let align = shape.width.bytes().min(4) as u32;
        let dwords = shape.width.reg_dwords() as u8;
        match shape.kind {
            MemKind::Load => {
                let got = self.guarded(guard, vec![i32t.const_zero(); dwords as usize], &mut |r| {
                    let mut out = Vec::new();
                    match shape.width {
                        Width::U8 | Width::I8 | Width::U16 | Width::I16 => {
                            let t = if matches!(shape.width, Width::U8 | Width::I8) { r.ctx.i8_type() } else { r.ctx.i16_type() };
                            let ld = r.b.build_load(t, ptr, "")?;
                            let li = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld).unwrap();
                            li.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, li, false)?;
                            let v = ld.into_int_value();
                            let signed = matches!(shape.width, Width::I8 | Width::I16);
                            out.push(if signed { r.b.build_int_s_extend(v, i32t, "")? } else { r.b.build_int_z_extend(v, i32t, "")? });
                        }
                        // One access of the whole width, as the source has it (the backend
                        // splits it where the target needs; dword loads merged back by the load
                        // and store vectorizer came out as dwordx2 pairs in places).
                        Width::B32 | Width::B64 | Width::B96 | Width::B128 => {
                            let t: hx_llvm::inkwell::types::BasicTypeEnum<'ctx> = if dwords == 1 { i32t.into() } else { i32t.vec_type(dwords as u32).into() };
                            let ld = r.b.build_load(t, ptr, "")?;
                            let li = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld).unwrap();
                            li.set_alignment(4).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, li, false)?;
                            if dwords == 1 {
                                out.push(ld.into_int_value());
                            } else {
                                let v = ld.into_vector_value();
                                for i in 0..dwords as u64 {
                                    out.push(r.b.build_extract_element(v, i64t.const_int(i, false), "")?.into_int_value());
                                }
                            }
                        }
                        // d16 loads: 16 bits (or a byte, zero- or sign-extended to 16) for one
                        // half of the destination; merged below.
                        Width::D16Lo | Width::D16Hi | Width::D16LoU8 | Width::D16LoI8 | Width::D16HiU8 | Width::D16HiI8 => {
                            let byte = !matches!(shape.width, Width::D16Lo | Width::D16Hi);
                            let t = if byte { r.ctx.i8_type() } else { r.ctx.i16_type() };
                            let ld = r.b.build_load(t, ptr, "")?;
                            let li = hx_llvm::inkwell::values::BasicValue::as_instruction_value(&ld).ok_or_else(|| r.err(inst, "a load that is no instruction"))?;
                            li.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, li, false)?;
                            let v = ld.into_int_value();
                            let v16 = if matches!(shape.width, Width::D16LoI8 | Width::D16HiI8) { r.b.build_int_s_extend(v, r.ctx.i16_type(), "")? } else { r.b.build_int_z_extend_or_bit_cast(v, r.ctx.i16_type(), "")? };
                            out.push(r.b.build_int_z_extend(v16, i32t, "")?);
                        }
                    }
                    Ok(out)
                })?;
                // d16: the loaded half into bits 15:0 (Lo) or 31:16 (Hi) of the destination, the
                // other half kept (hx_sem::memory::Width).
                let got = if shape.width.is_d16() {
                    let dst = vdst.ok_or_else(|| self.err(inst, "no destination"))?;
                    let v = got.first().copied().ok_or_else(|| self.err(inst, "no loaded value"))?;
                    vec![self.d16_merge(Reg { dwords: 1, ..dst }, v, shape.width.is_d16_hi(), inst)?]
                } else {
                    got
                };
                self.vmem_load_result(inst, vdst, got, active)?;
            }
            MemKind::Store => {
                let words = self.vmem_store_data(inst, vdata, dwords)?;
                self.guarded(guard, vec![], &mut |r| {
                    match shape.width {
                        Width::U8 | Width::I8 | Width::U16 | Width::I16 => {
                            let t = if matches!(shape.width, Width::U8 | Width::I8) { r.ctx.i8_type() } else { r.ctx.i16_type() };
                            let v = r.b.build_int_truncate(words[0], t, "")?;
                            let st = r.b.build_store(ptr, v)?;
                            st.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, st, false)?;
                        }
                        Width::B32 | Width::B64 | Width::B96 | Width::B128 => {
                            // One store of the whole width (see the loads).
                            let value: hx_llvm::inkwell::values::BasicValueEnum<'ctx> = if words.len() == 1 {
                                words[0].into()
                            } else {
                                let mut v = i32t.vec_type(words.len() as u32).get_undef();
                                for (i, w) in words.iter().enumerate() {
                                    v = r.b.build_insert_element(v, *w, i64t.const_int(i as u64, false), "")?;
                                }
                                v.into()
                            };
                            let st = r.b.build_store(ptr, value)?;
                            st.set_alignment(4).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, st, false)?;
                        }
                        // d16 stores: the low or high half of the data register, 16 or 8 bits of it.
                        Width::D16Lo | Width::D16Hi | Width::D16LoU8 | Width::D16LoI8 | Width::D16HiU8 | Width::D16HiI8 => {
                            let w = if shape.width.is_d16_hi() { r.b.build_right_shift(words[0], i32t.const_int(16, false), false, "")? } else { words[0] };
                            let t = if matches!(shape.width, Width::D16Lo | Width::D16Hi) { r.ctx.i16_type() } else { r.ctx.i8_type() };
                            let st = r.b.build_store(ptr, r.b.build_int_truncate(w, t, "")?)?;
                            st.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                            r.apply_cpol(inst, st, false)?;
                        }
                    }
                    Ok(vec![])
                })?;
            }
            MemKind::Atomic(a) => {
                let wide = shape.width == Width::B64;
                let t = if wide { i64t } else { i32t };
                let w = if wide { 2 } else { 1 };
                let (src, cmp) = self.vmem_atomic_data(inst, vdata, wide, a == AtomicOp::CmpSwap)?;
                let ord = hx_llvm::inkwell::AtomicOrdering::Monotonic;
                let rmw = match a {
                    AtomicOp::Add => Some(Rmw::Add),
                    AtomicOp::Sub => Some(Rmw::Sub),
                    AtomicOp::And => Some(Rmw::And),
                    AtomicOp::Or => Some(Rmw::Or),
                    AtomicOp::Xor => Some(Rmw::Xor),
                    AtomicOp::Swap => Some(Rmw::Xchg),
                    AtomicOp::Min { signed: true } => Some(Rmw::Min),
                    AtomicOp::Min { signed: false } => Some(Rmw::UMin),
                    AtomicOp::Max { signed: true } => Some(Rmw::Max),
                    AtomicOp::Max { signed: false } => Some(Rmw::UMax),
                    AtomicOp::Inc => Some(Rmw::UIncWrap),
                    AtomicOp::Dec => Some(Rmw::UDecWrap),
                    AtomicOp::CmpSwap => None,
                    AtomicOp::FAdd | AtomicOp::FMin | AtomicOp::FMax => None,
                    _ => return Err(self.err(inst, "this global atomic is not raised yet")),
                };
                // Float atomics: atomicrmw fadd / fmin / fmax on the float of the width. (The
                // target's own instruction where the backend has one, else a compare-and-swap
                // loop; either applies the lanes' values in lane order, as the source does.)
                let float_op = match a {
                    AtomicOp::FAdd => Some(hx_llvm::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd),
                    AtomicOp::FMin => Some(hx_llvm::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFMin),
                    AtomicOp::FMax => Some(hx_llvm::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFMax),
                    _ => None,
                };
                if wide && matches!(a, AtomicOp::FMin | AtomicOp::FMax) {
                    // The backend would use the targets' global_atomic_{min,max}_f64, whose NaN
                    // and denormal rules no document gives (the emulator does not model them).
                    return Err(self.err(inst, "f64 atomic min/max (the targets' own instruction is not modelled)"));
                }
                let got = self.guarded(guard, vec![t.const_zero()], &mut |r| {
                    if let Some(fop) = float_op {
                        let ft = if wide { r.ctx.f64_type() } else { r.ctx.f32_type() };
                        let fv = r.b.build_bit_cast(src, ft, "")?.into_float_value();
                        // SAFETY: the builder is positioned in a block of this context (guarded),
                        // `ptr` is a global pointer and `fv` a float of this context; LLVM
                        // returns the atomicrmw instruction, a float of `ft`.
                        use hx_llvm::inkwell::values::AsValueRef;
                        let (v, i) = unsafe {
                            let raw = hx_llvm::llvm_sys::core::LLVMBuildAtomicRMW(
                                r.b.as_mut_ptr(),
                                fop,
                                ptr.as_value_ref(),
                                fv.as_value_ref(),
                                hx_llvm::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                                0,
                            );
                            (hx_llvm::inkwell::values::FloatValue::new(raw), hx_llvm::inkwell::values::InstructionValue::new(raw))
                        };
                        r.apply_cpol(inst, i, true)?;
                        return Ok(vec![r.b.build_bit_cast(v, t, "")?.into_int_value()]);
                    }
                    let old = match (rmw, cmp) {
                        (Some(op), _) => {
                            let v = r.b.build_atomicrmw(op, ptr, src, ord)?;
                            r.apply_cpol(inst, v.as_instruction().expect("atomicrmw"), true)?;
                            v
                        }
                        (None, Some(c)) => {
                            let x = r.b.build_cmpxchg(ptr, c, src, ord, ord)?;
                            r.apply_cpol(inst, x.as_instruction().expect("cmpxchg"), true)?;
                            r.b.build_extract_value(x, 0, "")?.into_int_value()
                        }
                        (None, None) => return Err(r.err(inst, "compare-and-swap without a compare value")),
                    };
                    Ok(vec![old])
                })?;
                if returns {
                    let dst = vdst.ok_or_else(|| self.err(inst, "no destination"))?;
                    self.write_vreg(Reg { dwords: w, ..dst }, w, got[0], active, inst)?;
                }
            }
        }
        Ok(())
    }
}

