//! Executing one instruction on one wave. Control flow, waits and barriers are here; arithmetic
//! is table-driven through [`crate::alu`]; memory goes through [`crate::memory`].

use crate::dispatch::Group;
use crate::wave::{constant_value, Wave};
use crate::EmuError;
use crate::alu::table as alu;
use hx_isa::{InstOperand, Instruction, Kind, Operand, Reg, RegClass, ValType};

pub use hx_sem::operands::{
    field_imm, field_reg, hwreg_fields, int_saturate, is_dealloc_vgprs, kimm64_with_short_literal, neg_abs_type, op_sel_halves, sopk_reads_dst, vmem_operands,
    VmemOperands,
};

/// What the wave does after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Next,
    Jump(u64),
    End,
    /// Wait at the workgroup barrier, then continue with the next instruction.
    Barrier,
}

pub(crate) fn unsupported(inst: &Instruction, what: impl Into<String>) -> EmuError {
    EmuError::Unsupported { mnemonic: inst.mnemonic(), what: what.into() }
}

/// The type an operand kind carries, for constants.
fn kind_type(kind: &Kind) -> ValType {
    match *kind {
        Kind::SSrc(t) | Kind::SReg(t) | Kind::SSrcM0Space(t) | Kind::VSrc(t) | Kind::VSrcLo128(t) => t,
        Kind::SDst { dwords } | Kind::SDstNoM0 { dwords } | Kind::VDst { dwords } | Kind::VDstAnyAlign { dwords } | Kind::VReg { dwords } | Kind::SBase { dwords } => {
            if dwords >= 2 { ValType::B64 } else { ValType::B32 }
        }
        _ => ValType::B32,
    }
}

/// Reads a scalar operand (register, inline constant or literal).
pub fn read_scalar(wave: &Wave, op: &InstOperand, inst: &Instruction) -> Result<u64, EmuError> {
    match &op.value {
        Operand::Reg(r) => wave.read_sreg(*r),
        Operand::Imm(v) => Ok(*v as u64),
        v => constant_value(v, kind_type(&op.spec.kind)).ok_or_else(|| unsupported(inst, format!("operand {v:?}"))),
    }
}

pub fn write_scalar(wave: &mut Wave, op: &InstOperand, value: u64, inst: &Instruction) -> Result<(), EmuError> {
    match &op.value {
        Operand::Reg(r) => wave.write_sreg(*r, value),
        v => Err(unsupported(inst, format!("destination {v:?}"))),
    }
}

/// The 16-bit immediate of SOPP/SOPK, sign-extended.
fn simm16(inst: &Instruction) -> Result<i64, EmuError> {
    let op = inst.operands().find(|o| matches!(o.value, Operand::Imm(_)));
    match op.map(|o| o.value) {
        Some(Operand::Imm(v)) => Ok(v as u16 as i16 as i64),
        _ => Err(unsupported(inst, "a 16-bit immediate operand")),
    }
}

fn branch_target(wave: &Wave, inst: &Instruction) -> Result<u64, EmuError> {
    Ok((wave.pc as i64 + inst.len as i64 + 4 * simm16(inst)?) as u64)
}

/// An operand's part in an instruction, for pending.rs: a destination or anything else.
pub(crate) enum OperandRole {
    Dst,
    Other,
}

pub(crate) fn role_of(kind: &Kind) -> OperandRole {
    match role(kind) {
        Role::SDst | Role::VDst => OperandRole::Dst,
        _ => OperandRole::Other,
    }
}

/// Executes `inst` on `wave` (`wave_index` in its group). On gfx1250, registers a load writes
/// are not to be touched before the wait for it (pending.rs).
pub fn step(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    // Under a nonzero s_set_vgpr_msb state the instruction's VGPR fields reach v256 and up.
    let remapped;
    let inst = if wave.vgpr_msb != 0 {
        // (A VOPD word keeps the state; its parts come remapped.)
        remapped = inst.with_vgpr_msb(wave.vgpr_msb).map_err(|e| unsupported(inst, e.0))?;
        &remapped
    } else {
        inst
    };
    if group.target != hx_isa::Target::Gfx1250 {
        return step_inner(wave, wave_index, inst, group);
    }
    match inst.vopd_parts() {
        // A VOPD pair's registers are its parts' (remapped under the MSB state, as exec_vopd
        // runs them).
        Some(parts) if wave.vgpr_msb != 0 => {
            for p in parts {
                crate::pending::before(wave, &p.with_vgpr_msb(wave.vgpr_msb).map_err(|e| unsupported(inst, e.0))?)?;
            }
        }
        _ => crate::pending::before(wave, inst)?,
    }
    let flow = step_inner(wave, wave_index, inst, group)?;
    crate::pending::after(wave, inst);
    Ok(flow)
}

/// [`step`] for `inst` with its VGPRs as named under the wave's s_set_vgpr_msb state.
fn step_inner(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    let m = inst.mnemonic();
    if inst.true16_high_half().is_some() && inst.dpp().is_some() {
        return Err(unsupported(inst, "a true16 high-half operand (v0.h and up through a Lo128 field) under DPP"));
    }
    group.stats.count(m, (wave.exec & wave.lane_mask()).count_ones());
    if let Some(parts) = inst.vopd_parts() {
        return exec_vopd(wave, inst, &parts, group);
    }
    let next = wave.pc + inst.len as u64;
    let taken = |cond: bool| -> Result<Flow, EmuError> { Ok(if cond { Flow::Jump(branch_target(wave, inst)?) } else { Flow::Next }) };
    match m {
        "s_endpgm" => {
            group.lds.wait_async(wave_index, 0);
            return Ok(Flow::End);
        }
        // A translation's run-time refusal (llvm.trap), or the source's own trap: the dispatch
        // ends with an error, as the runtime reports a trapped queue.
        "s_trap" => return Err(EmuError::Trap),
        "s_wait_asynccnt" => {
            // Async loads complete at issue; their bytes stop being in flight here.
            let n = inst.operands().find_map(|o| match o.value {
                Operand::Imm(v) => Some(v as u64 as usize),
                _ => None,
            });
            group.lds.wait_async(wave_index, n.ok_or_else(|| unsupported(inst, "its count"))?);
            return Ok(Flow::Next);
        }
        // The emulator executes each wave's instructions in order: waits, hints and
        // scheduling directives have nothing to do.
        "s_nop" | "s_waitcnt" | "s_waitcnt_vscnt" | "s_waitcnt_vmcnt" | "s_waitcnt_lgkmcnt" | "s_wait_loadcnt"
        | "s_wait_storecnt" | "s_wait_dscnt" | "s_wait_kmcnt" | "s_wait_samplecnt" | "s_wait_bvhcnt" | "s_wait_expcnt"
        | "s_wait_xcnt" | "s_wait_loadcnt_dscnt" | "s_wait_storecnt_dscnt" | "s_wait_alu" | "s_delay_alu" | "s_clause"
        | "s_set_inst_prefetch_distance" | "s_sleep" | "v_nop" | "s_wait_tensorcnt"
        // Wave priority orders the scheduler's choices among waves, never a result.
        | "s_setprio"
        // Prefetches only warm caches (async loads complete at issue: see async_lds).
        | "s_prefetch_inst" | "s_prefetch_inst_pc_rel" | "s_prefetch_data" | "s_prefetch_data_pc_rel"
        | "s_buffer_prefetch_data" | "global_prefetch_b8" | "flat_prefetch_b8"
        // Cache write-back/invalidate: the emulated memory has no caches (always coherent).
        | "global_inv" | "global_wb" | "global_wbinv" => {
            return Ok(Flow::Next)
        }
        "s_set_vgpr_msb" => {
            wave.vgpr_msb = hx_isa::msb::set_vgpr_msb_value(inst).ok_or_else(|| unsupported(inst, "no immediate"))?;
            return Ok(Flow::Next);
        }
        "s_sendmsg" if is_dealloc_vgprs(inst) => return Ok(Flow::Next),
        "s_barrier" => return Ok(Flow::Barrier),
        // Split barriers: every wave signals then waits; the wait is where it blocks. The
        // work-group barrier (-1) and the cluster barrier (-3) are modelled: a launch has no
        // clusters, so each work-group is a cluster of one and the cluster barrier completes
        // when its work-group's waves have waited (the first wave's signal precedes them).
        "s_barrier_wait" | "s_barrier_signal" | "s_barrier_signal_isfirst" => {
            let id = crate::cluster::barrier_id(inst).ok_or_else(|| unsupported(inst, "this barrier ID (named barriers)"))?;
            return match (m, id) {
                ("s_barrier_wait", _) => Ok(Flow::Barrier),
                ("s_barrier_signal", crate::cluster::BarrierId::Workgroup) => {
                    group.barrier_signalled = true;
                    Ok(Flow::Next)
                }
                ("s_barrier_signal", crate::cluster::BarrierId::Cluster) => Ok(Flow::Next),
                ("s_barrier_signal_isfirst", crate::cluster::BarrierId::Workgroup) => {
                    wave.scc = !group.barrier_signalled;
                    group.barrier_signalled = true;
                    Ok(Flow::Next)
                }
                _ => Err(unsupported(inst, "s_barrier_signal_isfirst on the cluster barrier")),
            };
        }
        "s_branch" => return taken(true),
        "s_cbranch_scc0" => return taken(!wave.scc),
        "s_cbranch_scc1" => return taken(wave.scc),
        "s_cbranch_vccz" => return taken(wave.vcc & wave.lane_mask() == 0),
        "s_cbranch_vccnz" => return taken(wave.vcc & wave.lane_mask() != 0),
        "s_cbranch_execz" => return taken(wave.exec & wave.lane_mask() == 0),
        "s_cbranch_execnz" => return taken(wave.exec & wave.lane_mask() != 0),
        "s_getpc_b64" | "s_get_pc_i64" => {
            let dst = inst.operand(0).ok_or_else(|| unsupported(inst, "no destination"))?;
            write_scalar(wave, dst, next, inst)?;
            return Ok(Flow::Next);
        }
        "s_setpc_b64" | "s_set_pc_i64" => {
            let src = inst.operand(0).ok_or_else(|| unsupported(inst, "no source"))?;
            return Ok(Flow::Jump(read_scalar(wave, src, inst)?));
        }
        "s_swappc_b64" | "s_swap_pc_i64" => {
            let (dst, src) = (inst.operand(0), inst.operand(1));
            let (Some(dst), Some(src)) = (dst, src) else { return Err(unsupported(inst, "operands")) };
            let target = read_scalar(wave, src, inst)?;
            write_scalar(wave, dst, next, inst)?;
            return Ok(Flow::Jump(target));
        }
        _ => {}
    }
    // DPP/SDWA forms read other lanes or sub-dwords, and a VOPD word holds two operations:
    // the ALU table names only the operation, so these must not reach it as plain ops.
    if inst.sdwa().is_some() {
        // SDWA: the VOP1/VOP2 operation on selected sub-dwords (exec_valu applies the selects).
        let op = alu::of(inst).ok_or_else(|| unsupported(inst, "its semantics"))?;
        return exec_valu(wave, inst, &op, group);
    }
    if let Some(d) = inst.dpp() {
        return crate::dpp::exec_dpp(wave, inst, &d, group);
    }
    if m.ends_with("_dpp") || m.ends_with("_sdwa") || m.starts_with("v_dual_") {
        return Err(unsupported(inst, "DPP and SDWA forms"));
    }
    if let Some(m) = inst.wmma() {
        if wave.mode & crate::pk8::MODE_FP16_OVFL != 0 && hx_sem::alu::pk8::wmma_fp16_ovfl_reaches(&m) {
            return Err(unsupported(inst, hx_sem::alu::pk8::FP16_OVFL_UNMODELLED));
        }
        crate::wmma::exec_wmma(wave, inst, &m)?;
        return Ok(Flow::Next);
    }
    if let Some(mai) = inst.mai() {
        crate::mfma::exec_mfma(wave, inst, mai)?;
        return Ok(Flow::Next);
    }
    if let Some(table) = inst.bitop3_table() {
        return exec_bitop3(wave, inst, table);
    }
    if let Some(b) = inst.mubuf() {
        return crate::buffer::exec_mubuf(wave, wave_index, inst, group, &b);
    }
    if let Some(t) = inst.tensor() {
        return crate::tensor::exec_tensor(wave, wave_index, inst, group, &t);
    }
    if let Some(b) = inst.vbuffer() {
        return crate::buffer::exec_vbuffer(wave, wave_index, inst, group, &b);
    }
    if let Some(op) = alu::of(inst) {
        return if op.salu { exec_salu(wave, inst, &op, group) } else { exec_valu(wave, inst, &op, group) };
    }
    if let Some(op) = hx_sem::alu::pk8::Pk8Op::of(m).filter(|_| inst.target == hx_isa::Target::Gfx1250) {
        return crate::pk8::exec_pk8(wave, inst, op, group);
    }
    match m {
        _ if m.starts_with("s_load_") => return exec_smem_load(wave, inst, group),
        _ if m.starts_with("ds_") => return exec_ds(wave, wave_index, inst, group),
        "v_readlane_b32" | "v_readfirstlane_b32" | "v_writelane_b32" => return exec_lane_move(wave, inst),
        "v_permlane16_swap_b32_e32" | "v_permlane32_swap_b32_e32" => return exec_permlane_swap(wave, inst),
        "v_permlane16_b32" | "v_permlanex16_b32" => return exec_permlane16(wave, inst),
        "v_swap_b32" => return exec_swap(wave, inst),
        "v_cvt_scalef32_pk_fp8_f32" | "v_cvt_scalef32_pk_bf8_f32" | "v_cvt_scalef32_pk_f32_fp8" | "v_cvt_scalef32_pk_f32_bf8" if inst.target == hx_isa::Target::Gfx950 => {
            return crate::pk8::exec_scalef32_pk_fp8(wave, inst, group);
        }
        "v_cvt_scalef32_pk_bf16_fp4" | "v_cvt_scalef32_pk_bf16_fp8" | "v_cvt_scalef32_pk_bf16_bf8" if inst.target == hx_isa::Target::Gfx950 => {
            return exec_cvt_scalef32_pk_bf16(wave, inst);
        }
        _ if m.starts_with("global_") || m.starts_with("scratch_") || m.starts_with("flat_") => {
            let o = vmem_operands(inst).map_err(|e| unsupported(inst, e))?;
            return exec_vmem(wave, wave_index, inst, group, &o);
        }
        _ if m.contains("_saveexec_") || m.contains("_wrexec_") => return exec_saveexec(wave, inst),
        "s_setreg_imm32_b32" | "s_setreg_b32" => return exec_setreg(wave, inst),
        "s_getreg_b32" => return exec_getreg(wave, inst),
        _ => {}
    }
    Err(unsupported(inst, "its semantics"))
}

/// v_bitop3_b32: every bit of D is the truth table's entry for the bits of S0, S1, S2.
/// v_bitop3_b16: the same on 16-bit halves, op_sel bit k picking source k's high half; the
/// result goes to the low half, or (op_sel[3]) to the high half, the other half kept, as for
/// every gfx1250 16-bit result (exec_valu).
fn exec_bitop3(wave: &mut Wave, inst: &Instruction, table: u8) -> Result<Flow, EmuError> {
    let Some((d, [a, b, c], op_sel)) = inst.bitop3_operands() else { return Err(unsupported(inst, "operands")) };
    let Operand::Reg(r) = d.value else { return Err(unsupported(inst, "a non-register destination")) };
    if let Some(sel) = op_sel {
        for (k, o) in [a, b, c].iter().enumerate() {
            if sel >> k & 1 != 0 && !matches!(o.value, Operand::Reg(_)) {
                return Err(unsupported(inst, "op_sel on a constant source"));
            }
        }
    }
    for lane in 0..wave.lanes {
        if !wave.lane_active(lane) {
            continue;
        }
        let out = match op_sel {
            None => {
                let v = |o: &InstOperand| source_value(wave, o, lane, alu::Ty::B32, inst).map(|x| x as u32);
                hx_isa::bitop3::eval(table, v(a)?, v(b)?, v(c)?)
            }
            Some(sel) => {
                let half = |k: usize, o: &InstOperand| -> Result<u32, EmuError> {
                    let x = source_value(wave, o, lane, alu::Ty::B32, inst)? as u32;
                    Ok(if sel >> k & 1 != 0 { x >> 16 } else { x & 0xffff })
                };
                let v = hx_isa::bitop3::eval(table, half(0, a)?, half(1, b)?, half(2, c)?) & 0xffff;
                let old = wave.v(r.index as usize, lane)?;
                if sel & 8 != 0 {
                    (old & 0xffff) | v << 16
                } else {
                    (old & 0xffff_0000) | v
                }
            }
        };
        wave.set_v(r.index as usize, lane, out)?;
    }
    Ok(Flow::Next)
}

/// A VOPD/VOPD3 pair: both halves read their sources before either writes, which running
/// them one after the other in the right order reproduces (`hx_isa::vopd::sequential_order`).
///
/// Under a nonzero s_set_vgpr_msb state both halves take the same slot MSBs by operand
/// position (src0X and src0Y slot 0, vsrc1 slot 1, vsrc2 slot 2, vdstX and vdstY slot 3): LLVM's
/// getVGPRLoweringOperandTables gives a VOPD the X and the Y operand of each slot, and its
/// AMDGPULowerVGPREncoding refuses to build a pair whose halves would need different MSBs in one
/// slot. Pinned by Triton's dot_scaled_*_w1 gfx1250 kernels (VOPD pairs on v256 and up).
fn exec_vopd(wave: &mut Wave, inst: &Instruction, parts: &[Instruction; 2], group: &mut Group<'_>) -> Result<Flow, EmuError> {
    let order = hx_isa::vopd::sequential_order(parts).map_err(|e| unsupported(inst, e.0))?;
    for half in &order {
        if let Some(table) = half.bitop3_table() {
            exec_bitop3(wave, half, table)?;
            continue;
        }
        let op = alu::of(half).ok_or_else(|| unsupported(half, "its semantics (a VOPD half)"))?;
        exec_valu(wave, half, &op, group)?;
    }
    Ok(Flow::Next)
}

/// What an operand is to the executor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    SDst,
    VDst,
    Src,
    /// A register LLVM prints though no field encodes it (`vcc`, `vcc_lo`, `exec`, `m0`...).
    Fixed(&'static str),
    /// Modifiers and policy bits: taken from the instruction, not read as values.
    Modifier,
}

fn role(kind: &Kind) -> Role {
    match *kind {
        Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstNoM0 { .. } | Kind::SDstX { .. } => Role::SDst,
        Kind::VDst { .. } | Kind::VDstAnyAlign { .. } | Kind::VDstLo128 { .. } | Kind::ADst { .. } => Role::VDst,
        Kind::Fixed(name) => Role::Fixed(name),
        Kind::Omod | Kind::OpSel { .. } | Kind::OpSelFiBc | Kind::OpSelMasked { .. } | Kind::PkBits { .. } | Kind::Flag(_) | Kind::SmemCachePolicy => Role::Modifier,
        _ => Role::Src,
    }
}

/// The operands of an ALU instruction sorted by role: destinations first in print order, then
/// sources. Fixed registers count as destinations or sources by position (a VOPC's leading
/// `vcc`, a VOP2 carry's `vcc` after the vdst, a trailing `vcc` carry-in or select).
pub(crate) struct AluOperands<'a> {
    pub(crate) vdst: Option<&'a InstOperand>,
    /// The lane-mask / SGPR destination (carry out, compare result) or a fixed register name.
    mask_dst: Option<MaskLoc<'a>>,
    sdst: Option<&'a InstOperand>,
    pub(crate) srcs: Vec<&'a InstOperand>,
    mask_src: Option<MaskLoc<'a>>,
}

#[derive(Clone, Copy)]
enum MaskLoc<'a> {
    Operand(&'a InstOperand),
    Vcc,
    Exec,
}

pub(crate) fn split_operands<'a>(inst: &'a Instruction, op: &alu::AluOp) -> Result<AluOperands<'a>, EmuError> {
    let mut out = AluOperands { vdst: None, mask_dst: None, sdst: None, srcs: Vec::new(), mask_src: None };
    let ops: Vec<&InstOperand> = inst.operands().filter(|o| role(&o.spec.kind) != Role::Modifier).collect();
    let mut i = 0;
    let fixed_mask = |name: &str| if name.starts_with("exec") { MaskLoc::Exec } else { MaskLoc::Vcc };
    // Destinations.
    if op.dst.is_some() {
        let o = ops.get(i).ok_or_else(|| unsupported(inst, "a missing destination"))?;
        match role(&o.spec.kind) {
            Role::VDst => out.vdst = Some(o),
            Role::SDst => out.sdst = Some(o),
            _ if op.salu => out.sdst = Some(o),
            r => return Err(unsupported(inst, format!("destination of role {r:?}"))),
        }
        i += 1;
    }
    if op.flag_out == alu::Flag::LaneMask {
        if let Some(o) = ops.get(i) {
            match role(&o.spec.kind) {
                Role::SDst => {
                    out.mask_dst = Some(MaskLoc::Operand(o));
                    i += 1;
                }
                Role::Fixed(name) => {
                    out.mask_dst = Some(fixed_mask(name));
                    i += 1;
                }
                // GFX12 v_cmpx_*_e32 prints no destination: the result goes to EXEC only.
                _ => out.mask_dst = None,
            }
        }
    }
    // Sources, then a trailing mask source.
    let nsrc = op.srcs.len() - op.acc as usize;
    for _ in 0..nsrc {
        let o = ops.get(i).ok_or_else(|| unsupported(inst, "a missing source"))?;
        out.srcs.push(o);
        i += 1;
    }
    if op.flag_in == alu::Flag::LaneMask {
        out.mask_src = Some(match ops.get(i) {
            Some(o) => match role(&o.spec.kind) {
                Role::Fixed(name) => fixed_mask(name),
                _ => MaskLoc::Operand(o),
            },
            None => MaskLoc::Vcc,
        });
        i += 1;
    }
    if let Some(extra) = ops.get(i) {
        return Err(unsupported(inst, format!("an unexpected extra operand {:?}", extra.spec.kind)));
    }
    Ok(out)
}

fn ty_dwords(t: alu::Ty) -> u8 {
    if t.bits() == 64 { 2 } else { 1 }
}

fn read_mask(wave: &Wave, loc: MaskLoc<'_>, inst: &Instruction) -> Result<u64, EmuError> {
    match loc {
        MaskLoc::Vcc => Ok(wave.vcc),
        MaskLoc::Exec => Ok(wave.exec),
        MaskLoc::Operand(o) => match &o.value {
            Operand::Reg(r) => wave.read_sreg(Reg { dwords: if wave.lanes == 64 { 2 } else { 1 }, ..*r }),
            v => constant_value(v, ValType::B64).ok_or_else(|| unsupported(inst, format!("mask operand {v:?}"))),
        },
    }
}

fn write_mask(wave: &mut Wave, loc: MaskLoc<'_>, value: u64, inst: &Instruction) -> Result<(), EmuError> {
    match loc {
        MaskLoc::Vcc => wave.vcc = value,
        MaskLoc::Exec => wave.exec = value & wave.lane_mask(),
        MaskLoc::Operand(o) => match &o.value {
            Operand::Reg(r) => wave.write_sreg(Reg { dwords: if wave.lanes == 64 { 2 } else { 1 }, ..*r }, value)?,
            v => return Err(unsupported(inst, format!("mask destination {v:?}"))),
        },
    }
    Ok(())
}

/// Value of a source for a scalar op or for one lane of a vector op, as `ty` sees it.
pub(crate) fn source_value(wave: &Wave, o: &InstOperand, lane: usize, ty: alu::Ty, inst: &Instruction) -> Result<u64, EmuError> {
    let vt = match ty {
        alu::Ty::F64 => ValType::F64,
        alu::Ty::F32 => ValType::F32,
        alu::Ty::F16 => ValType::F16,
        alu::Ty::BF16 => ValType::BF16,
        t if t.bits() == 64 => ValType::B64,
        t if t.bits() == 16 => ValType::B16,
        _ => ValType::B32,
    };
    let dwords = ty_dwords(ty);
    let v = match &o.value {
        Operand::Reg(r) if matches!(r.class, RegClass::Vgpr | RegClass::Agpr) => wave.read_vreg(Reg { dwords, ..*r }, lane)?,
        Operand::Reg(r) => wave.read_sreg(Reg { dwords, ..*r })?,
        Operand::Imm(v) => *v as u64,
        v => constant_value(v, vt).ok_or_else(|| unsupported(inst, format!("source {v:?}")))?,
    };
    Ok(if ty.bits() == 16 { v & 0xffff } else if ty.bits() == 32 { v & 0xffff_ffff } else { v })
}

fn exec_salu(wave: &mut Wave, inst: &Instruction, op: &alu::AluOp, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    let m = inst.mnemonic();
    let ops = if sopk_reads_dst(m) {
        let all: Vec<&InstOperand> = inst.operands().collect();
        let (Some(d), Some(k)) = (all.first().copied(), all.get(1).copied()) else { return Err(unsupported(inst, "operands")) };
        AluOperands { vdst: None, mask_dst: None, sdst: Some(d), srcs: vec![d, k], mask_src: None }
    } else {
        split_operands(inst, op)?
    };
    let mut input = alu::AluIn { flag: wave.scc, ..Default::default() };
    // VOP3-encoded scalar ops (v_s_*_f32) carry float source and output modifiers.
    let mods = inst.source_mods();
    for (k, o) in ops.srcs.iter().enumerate() {
        let mut v = source_value(wave, o, 0, op.srcs[k], inst)?;
        if mods.neg >> k & 1 != 0 || mods.abs >> k & 1 != 0 {
            let ft = neg_abs_type(op, k).ok_or_else(|| unsupported(inst, "neg/abs on an integer source"))?;
            v = apply_neg_abs(v, ft, mods.neg >> k & 1 != 0, mods.abs >> k & 1 != 0);
        }
        // s_cmpk_*: the 16-bit immediate is sign-extended for signed compares, else zero-extended.
        if let (alu::Op::Cmp(c), Kind::Imm16(_)) = (op.op, &o.spec.kind) {
            if c.k_imm && matches!(c.kind, crate::alu::cmp::CmpKind::Int { signed: true, .. }) {
                v = v as u16 as i16 as i32 as u32 as u64;
            }
        }
        input.src[k] = v;
    }
    if let (Some(d), Some(t)) = (ops.sdst, op.dst) {
        let old = source_value(wave, d, 0, t, inst)?;
        input.old = old;
        if op.acc {
            input.src[op.srcs.len() - 1] = old;
        }
    }
    let mut out = alu::eval(op, &input, &group.fp_mode);
    if mods.omod != 0 || mods.clamp {
        if op.dst != Some(alu::Ty::F32) {
            return Err(unsupported(inst, "output modifiers on this type"));
        }
        out.value = crate::alu::omod_clamp_f32(out.value as u32, mods.omod, mods.clamp, &group.fp_mode) as u64;
    }
    if let (Some(d), Some(t)) = (ops.sdst, op.dst) {
        match &d.value {
            Operand::Reg(r) => wave.write_sreg(Reg { dwords: ty_dwords(t), ..*r }, out.value)?,
            v => return Err(unsupported(inst, format!("destination {v:?}"))),
        }
    }
    if op.flag_out == alu::Flag::Scc {
        if let Some(f) = out.flag {
            wave.scc = f;
        }
    }
    Ok(Flow::Next)
}

fn exec_valu(wave: &mut Wave, inst: &Instruction, op: &alu::AluOp, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    exec_valu_with(wave, inst, op, group, None)
}

/// A VALU operation; with `dpp`, src0 of each lane is `dpp[lane]`'s value, and a lane that DPP
/// turns off (masked, or an invalid source without bound_ctrl) keeps its destination.
pub(crate) fn exec_valu_with(
    wave: &mut Wave,
    inst: &Instruction,
    op: &alu::AluOp,
    group: &mut Group<'_>,
    dpp: Option<&[crate::lane_ops::DppLane<u64>]>,
) -> Result<Flow, EmuError> {
    // gfx1250 e32 16-bit operands that name high halves (v0.h) through a Lo128 field: the
    // register below 128 with the half in op_sel, as the VOP3 forms say it.
    let halves = inst.true16_halves();
    let inst = &*halves;
    let ops = split_operands(inst, op)?;
    let mods = inst.source_mods();
    let sdwa = inst.sdwa();
    if sdwa.is_some() && op.srcs.iter().any(|t| t.bits() == 64) {
        return Err(unsupported(inst, "SDWA on 64-bit sources"));
    }
    // VOP3P ops (packed and fma_mix) read their sources raw, with the op_sel / op_sel_hi /
    // neg_lo / neg_hi / abs bits given to the ALU; everything else applies neg/abs here.
    let raw_sources = matches!(op.op, alu::Op::FmaMix(_) | alu::Op::Pk(_));
    // The fp8 conversions read their own byte/word selects (and clamp, when it saturates).
    // gfx942's v_cvt_pk_f32_{fp8,bf8} (VOP1 and SDWA forms) on its FNUZ formats: see fnuz_pk.
    let fnuz_pk = match op.op {
        alu::Op::Fp8(crate::alu::fp8::Fp8Op::PkToF32(f)) if inst.target == hx_isa::Target::Gfx942 && mods.op_sel == 0 && mods.byte_sel == 0 => Some(f),
        _ => None,
    };
    let fp8 = match op.op {
        _ if fnuz_pk.is_some() => None,
        alu::Op::Fp8(f) => {
            if inst.target != hx_isa::Target::Gfx1250 {
                // gfx942's fp8 formats (FNUZ) and gfx950's selects are not modelled.
                return Err(unsupported(inst, "fp8 conversions outside gfx1250"));
            }
            f.check_mods(mods.op_sel, mods.byte_sel).map_err(|e| unsupported(inst, e))?;
            Some(f)
        }
        _ => None,
    };
    if mods.byte_sel != 0 && fp8.is_none() {
        return Err(unsupported(inst, "byte_sel"));
    }
    // Other op_sel: 16-bit halves of 16-bit sources and destination (VOP3 op_sel).
    let half_sel = if mods.op_sel != 0 && !raw_sources && fp8.is_none() {
        op_sel_halves(op, mods.op_sel).map_err(|e| unsupported(inst, e))?
    } else {
        0
    };
    if kimm64_with_short_literal(inst) {
        return Err(unsupported(inst, "a 32-bit literal source beside a 64-bit K operand"));
    }
    let fp8_sat = fp8.is_some_and(|f| f.clamp_saturates());
    // MODE.FP16_OVFL (gfx1250): the fp8 downcasts saturate; other 16-bit float results are not
    // modelled under it (hx_sem::alu::pk8::fp16_ovfl_reaches).
    let fp16_ovfl = inst.target == hx_isa::Target::Gfx1250 && wave.mode & crate::pk8::MODE_FP16_OVFL != 0;
    if fp16_ovfl && hx_sem::alu::pk8::fp16_ovfl_reaches(op) {
        return Err(unsupported(inst, hx_sem::alu::pk8::FP16_OVFL_UNMODELLED));
    }
    let float_dst = op.dst.filter(|t| t.is_float());
    // Integer clamp saturates (LLVM uses it for uadd.sat / usub.sat and the signed forms).
    let int_clamp = mods.clamp && !fp8_sat && op.dst.is_some() && float_dst.is_none();
    // The clamp form of the packed 16-bit integer adds and subtracts saturates each half.
    let pk_sat = match op.op {
        alu::Op::Pk(p) if int_clamp => hx_sem::alu::packed::pk16_saturating(p, [0; 3], hx_sem::alu::PkMods::DEFAULT).map(|_| p),
        _ => None,
    };
    if (mods.omod != 0 && float_dst.is_none()) || (int_clamp && pk_sat.is_none() && int_saturate(op.op, 0, 0).is_none()) {
        return Err(unsupported(inst, "clamp/omod on this integer result"));
    }
    let mask_in = match ops.mask_src {
        Some(loc) => read_mask(wave, loc, inst)?,
        None => 0,
    };
    let exec = wave.exec & wave.lane_mask();
    let mut mask_out = 0u64;
    let cmp = match op.op {
        alu::Op::Cmp(c) => Some(c),
        _ => None,
    };
    for lane in 0..wave.lanes {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let dpp_src0 = match dpp.map(|d| d[lane]) {
            Some(crate::lane_ops::DppLane::Off) => continue,
            Some(crate::lane_ops::DppLane::Value(v)) => Some(v),
            None => None,
        };
        let mut input = alu::AluIn { flag: mask_in >> lane & 1 != 0, lane: lane as u32, ..Default::default() };
        if raw_sources {
            input.op_sel = mods.op_sel;
            input.op_sel_hi = mods.op_sel_hi;
            input.neg = mods.neg;
            input.abs = mods.abs;
            input.neg_hi = mods.neg_hi;
        }
        if fp8.is_some() {
            input.op_sel = mods.op_sel;
            input.byte_sel = mods.byte_sel;
            input.clamp = mods.clamp || (fp16_ovfl && fp8_sat);
        }
        for (k, o) in ops.srcs.iter().enumerate() {
            let t = op.srcs[k];
            let pk_const = matches!(op.op, alu::Op::Pk(p) if p.is_wide()) && !matches!(o.value, Operand::Reg(_));
            if pk_const && (mods.op_sel | mods.op_sel_hi) >> k & 1 != 0 {
                // A constant of a packed-f32 source is its low dword (LLVM selects it with
                // op_sel_hi clear); what the high dword reads is not modelled.
                return Err(unsupported(inst, "the high dword of a constant packed-f32 source"));
            }
            let mut v = if let (Some(d), 0) = (dpp_src0, k) {
                d
            } else if pk_const {
                source_value(wave, o, lane, alu::Ty::F32, inst)?
            } else if matches!(op.op, alu::Op::Pk(p) if !p.is_wide() && p.is_float() && !p.is_bf16()) && matches!(o.value, Operand::FloatConst(_)) {
                // An inline float constant of a packed f16 op is the f16 value in the low half,
                // zero above (LLVM's AMDGPUBaseInfo getInlineEncodingV216 records the hardware
                // so); the packed integer and bf16 ops read it as the f32 bits (PkOp::is_bf16),
                // and integer constants as their sign-extended 32 bits (source type B32).
                source_value(wave, o, lane, alu::Ty::F16, inst)?
            } else if half_sel >> k & 1 != 0 {
                // The high half of a 16-bit source register (of a constant: not modelled).
                if !matches!(o.value, Operand::Reg(_)) {
                    return Err(unsupported(inst, "op_sel on a constant source"));
                }
                source_value(wave, o, lane, alu::Ty::B32, inst)? >> 16
            } else {
                source_value(wave, o, lane, t, inst)?
            };
            if let Some(sd) = sdwa {
                // SDWA selects (and sign-extends) from the whole 32-bit register before neg/abs
                // apply; a 16-bit source then reads the selection's low half.
                if t.bits() == 16 {
                    if !matches!(o.value, Operand::Reg(_)) {
                        return Err(unsupported(inst, "an SDWA constant in a 16-bit source"));
                    }
                    let whole = source_value(wave, o, lane, alu::Ty::B32, inst)?;
                    v = (sd.select(k, whole as u32) & 0xffff) as u64;
                } else {
                    v = sd.select(k, v as u32) as u64;
                }
            }
            if raw_sources {
                // Modifiers go to the ALU with the raw bits.
            } else if let Some(ft) = neg_abs_type(op, k) {
                v = apply_neg_abs(v, ft, mods.neg >> k & 1 != 0, mods.abs >> k & 1 != 0);
            } else if mods.neg >> k & 1 != 0 || mods.abs >> k & 1 != 0 {
                return Err(unsupported(inst, "neg/abs on an integer source"));
            }
            input.src[k] = v;
        }
        if let (Some(d), Some(t)) = (ops.vdst, op.dst) {
            let old = source_value(wave, d, lane, t, inst)?;
            input.old = old;
            if op.acc {
                input.src[op.srcs.len() - 1] = old;
            }
        }
        let mut out = alu::eval(op, &input, &group.fp_mode);
        if let Some(f) = fnuz_pk {
            out.value = fnuz_pk_to_f32(f, input.src[0] as u32);
        }
        if let Some(p) = pk_sat {
            let pm = hx_sem::alu::PkMods { op_sel: input.op_sel, op_sel_hi: input.op_sel_hi, neg_lo: input.neg, neg_hi: input.neg_hi };
            let src = [input.src[0] as u32, input.src[1] as u32, input.src[2] as u32];
            out.value = hx_sem::alu::packed::pk16_saturating(p, src, pm).ok_or_else(|| unsupported(inst, "clamp"))? as u64;
        } else if int_clamp {
            out.value = int_saturate(op.op, input.src[0], input.src[1]).ok_or_else(|| unsupported(inst, "clamp"))?;
        } else if fp8_sat {
            // Applied by the conversion.
        } else if mods.omod != 0 || mods.clamp {
            let m = &group.fp_mode;
            out.value = match float_dst {
                Some(alu::Ty::F32) => crate::alu::omod_clamp_f32(out.value as u32, mods.omod, mods.clamp, m) as u64,
                Some(alu::Ty::F64) => crate::alu::omod_clamp_f64(out.value, mods.omod, mods.clamp, m),
                Some(alu::Ty::F16) => crate::alu::omod_clamp_f16(out.value as u32, mods.omod, mods.clamp, m) as u64,
                _ => return Err(unsupported(inst, "output modifiers on this type")),
            };
        }
        if let (Some(d), Some(t)) = (ops.vdst, op.dst) {
            let Operand::Reg(r) = d.value else { return Err(unsupported(inst, "a non-register destination")) };
            let v = out.value;
            if let Some(sd) = sdwa {
                // A 16-bit result is its low 16 bits, zero-extended as the plain 16-bit forms
                // write it, then placed by dst_sel (WORD_1: the high half; DWORD: all 32 bits).
                // Pinned by Triton's gfx942/gfx950 dot_scaled_*_w1 natives
                // (v_lshlrev_b16_sdwa dst_sel:DWORD, v_max_u16_sdwa dst_sel:WORD_1).
                let v = match t.bits() {
                    32 => v as u32,
                    16 => (v & 0xffff) as u32,
                    // v_cvt_pk_f32_fp8_sdwa: SDWA selects its source; the pair is written whole.
                    64 if fnuz_pk.is_some() && sd.dst_sel == 6 && sd.dst_unused == 0 => {
                        wave.write_vreg_dwords(Reg { dwords: 2, ..r }, lane, &[v as u32, (v >> 32) as u32])?;
                        continue_lane(&mut mask_out, &out, lane);
                        continue;
                    }
                    _ => return Err(unsupported(inst, "SDWA with a 64-bit result")),
                };
                let old = wave.v(r.index as usize, lane)?;
                wave.set_v(r.index as usize, lane, sd.place(old, v))?;
            } else {
                match t.bits() {
                    64 => wave.write_vreg_dwords(Reg { dwords: 2, ..r }, lane, &[v as u32, (v >> 32) as u32])?,
                    // op_sel[3]: the high half of the register, the low half kept.
                    16 if half_sel & 8 != 0 || (fp8.is_some() && mods.op_sel & 8 != 0) => {
                        let old = wave.v(r.index as usize, lane)?;
                        wave.write_vreg_dwords(Reg { dwords: 1, ..r }, lane, &[(old & 0xffff) | (v as u32) << 16])?
                    }
                    // gfx1250 (true16 v_mov_b16 v1.l, and every 16-bit result: "on gfx10, all
                    // 16-bit instructions preserve the high bits", LLVM's
                    // GCNSubtarget::zeroesHigh16BitsOfDest): the low half, the high half kept.
                    16 if inst.is_true16() || inst.target == hx_isa::Target::Gfx1250 => {
                        let old = wave.v(r.index as usize, lane)?;
                        wave.write_vreg_dwords(Reg { dwords: 1, ..r }, lane, &[(old & 0xffff_0000) | (v & 0xffff) as u32])?
                    }
                    // GFX9 16-bit results: the high half of the register becomes zero.
                    16 => wave.write_vreg_dwords(Reg { dwords: 1, ..r }, lane, &[(v & 0xffff) as u32])?,
                    _ => wave.write_vreg_dwords(Reg { dwords: 1, ..r }, lane, &[v as u32])?,
                }
            }
        }
        if out.flag == Some(true) {
            mask_out |= 1 << lane;
        }
    }
    if op.flag_out == alu::Flag::LaneMask {
        // Lanes not in EXEC read as 0 in the written mask (ISA: inactive lanes' bits are cleared).
        if let Some(loc) = ops.mask_dst {
            write_mask(wave, loc, mask_out, inst)?;
        } else if cmp.is_none() {
            wave.vcc = mask_out;
        }
        if let Some(c) = cmp {
            if c.writes_exec {
                wave.exec = mask_out;
            }
        }
    }
    Ok(Flow::Next)
}

/// The flag bookkeeping at the end of a lane of exec_valu_with (for a lane that writes its
/// destination early).
fn continue_lane(mask_out: &mut u64, out: &alu::AluOut, lane: usize) {
    if out.flag == Some(true) {
        *mask_out |= 1 << lane;
    }
}

/// gfx950 v_cvt_scalef32_pk_bf16_{fp4,fp8,bf8} D, S0, S1: two values of S0 times the f32 scale
/// S1, each rounded (RNE) to bf16, the first in D's low half. fp4 (OCP E2M1): the two nibbles
/// (low first) of byte op_sel[0] + 2 * op_sel[1] of S0; fp8/bf8 (OCP E4M3/E5M2): the two bytes
/// of S0's low word, its high word with op_sel[0]. Pinned by Triton's gfx950 dot_scaled_*_w1
/// natives (their MX upcast: all four fp4 byte selects, both fp8 word selects).
fn exec_cvt_scalef32_pk_bf16(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let m = inst.mnemonic();
    let mods = inst.source_mods();
    if mods.neg != 0 || mods.abs != 0 || mods.clamp || mods.omod != 0 || mods.op_sel & !3 != 0 {
        return Err(unsupported(inst, "modifiers other than the op_sel byte/word select"));
    }
    let fp4 = m.ends_with("_fp4");
    if !fp4 && mods.op_sel & 2 != 0 {
        return Err(unsupported(inst, "op_sel[1] on an fp8 source"));
    }
    let ops: Vec<&InstOperand> = inst.operands().filter(|o| !matches!(o.value, Operand::Imm(_))).collect();
    let [d, s0, s1] = ops[..] else { return Err(unsupported(inst, "its operands")) };
    let Operand::Reg(dst) = d.value else { return Err(unsupported(inst, "a non-register destination")) };
    for lane in 0..wave.lanes {
        if !wave.lane_active(lane) {
            continue;
        }
        let x = source_value(wave, s0, lane, alu::Ty::B32, inst)? as u32;
        let scale = f32::from_bits(source_value(wave, s1, lane, alu::Ty::F32, inst)? as u32) as f64;
        let vals = if fp4 {
            let byte = x >> (8 * (mods.op_sel & 3));
            [byte & 0xf, (byte >> 4) & 0xf].map(|n| crate::mfma::small_float(n, 2, 1, 1, crate::mfma::Specials::None))
        } else {
            let word = x >> (16 * (mods.op_sel & 1));
            let e5m2 = m.ends_with("_bf8");
            [word & 0xff, (word >> 8) & 0xff].map(|b| crate::wmma::fp8_value(b as u8, e5m2))
        };
        let bf16 = |v: f64| {
            let v = if v.is_nan() { f64::NAN } else { v };
            crate::alu::soft::convert(crate::alu::soft::F64, crate::alu::soft::BF16, v.to_bits()) as u32 & 0xffff
        };
        let out = bf16(vals[0] * scale) | bf16(vals[1] * scale) << 16;
        wave.set_v(dst.index as usize, lane, out)?;
    }
    Ok(Flow::Next)
}

/// gfx942 v_cvt_pk_f32_fp8 / v_cvt_pk_f32_bf8: bytes 0 and 1 of the (SDWA-selected) source, in
/// gfx942's FNUZ formats (E4M3 bias 8, E5M2 bias 16; 0x80 the only NaN, no infinities, no
/// negative zero), to two f32 (exact). Pinned by Triton's gfx942 dot_scaled_e2m1* natives,
/// whose e2m1 upcast goes through these conversions (VOP1 and src0_sel:WORD_1 forms).
fn fnuz_pk_to_f32(f: crate::alu::fp8::Fp8Fmt, s0: u32) -> u64 {
    let (ebits, mbits, bias) = match f {
        crate::alu::fp8::Fp8Fmt::E4M3 => (4, 3, 8),
        crate::alu::fp8::Fp8Fmt::E5M2 => (5, 2, 16),
    };
    let one = |b: u32| -> u64 {
        let v = crate::mfma::small_float(b & 0xff, ebits, mbits, bias, crate::mfma::Specials::Fnuz);
        if v.is_nan() {
            0x7fc0_0000
        } else {
            (v as f32).to_bits() as u64
        }
    };
    one(s0) | one(s0 >> 8) << 32
}

fn apply_neg_abs(v: u64, t: alu::Ty, neg: bool, abs: bool) -> u64 {
    let sign = match t.bits() {
        16 => 1u64 << 15,
        32 => 1u64 << 31,
        _ => 1u64 << 63,
    };
    let mut v = v;
    if abs {
        v &= !sign;
    }
    if neg {
        v ^= sign;
    }
    v
}

/// HW_REG_MODE is 1 on every generation modelled here.
const HW_REG_MODE: u32 = 1;

fn exec_setreg(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let ops: Vec<&InstOperand> = inst.operands().collect();
    let (Some(hw), Some(src)) = (ops.iter().find(|o| matches!(o.spec.kind, Kind::Imm16(_))), ops.iter().find(|o| !matches!(o.spec.kind, Kind::Imm16(_)))) else {
        return Err(unsupported(inst, "operands"));
    };
    let Operand::Imm(imm) = hw.value else { return Err(unsupported(inst, "hwreg operand")) };
    let (id, offset, size) = hwreg_fields(imm);
    let value = read_scalar(wave, src, inst)? as u32;
    let mask = if size >= 32 { u32::MAX } else { ((1u32 << size) - 1) << offset };
    match id {
        HW_REG_MODE => wave.mode = (wave.mode & !mask) | (value << offset & mask),
        // The gfx1250 prologue's WAVE_MODE bit 25 (id 1 there too) is covered above; other
        // registers hold nothing the emulator reads back.
        _ => {}
    }
    Ok(Flow::Next)
}

fn exec_getreg(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let dst = inst.operand(0).ok_or_else(|| unsupported(inst, "no destination"))?;
    let hw = inst.operands().find(|o| matches!(o.spec.kind, Kind::Imm16(_))).ok_or_else(|| unsupported(inst, "no hwreg"))?;
    let Operand::Imm(imm) = hw.value else { return Err(unsupported(inst, "hwreg operand")) };
    let (id, offset, size) = hwreg_fields(imm);
    let raw = match id {
        HW_REG_MODE => wave.mode,
        // HW_REG_IB_STS2 (GFX12.5, id 28): cluster state; 0 = not in a cluster.
        28 if wave.lanes == 32 => 0,
        _ => return Err(unsupported(inst, format!("reading hardware register {id}"))),
    };
    let v = if size >= 32 { raw >> offset } else { raw >> offset & ((1 << size) - 1) };
    write_scalar(wave, dst, v as u64, inst)?;
    Ok(Flow::Next)
}

/// Value of the SGPR that an SMEM soffset field encodes (None for the null encoding).
fn smem_soffset(wave: &Wave, enc: u32, null: u32, inst: &Instruction) -> Result<u64, EmuError> {
    if enc == null {
        return Ok(0);
    }
    if (enc as usize) < crate::wave::NUM_SGPRS {
        return Ok(wave.sgpr[enc as usize] as u64);
    }
    match enc {
        // m0 is encoded 125 on GFX12.5 and 124 on GFX9.
        125 if null == 124 => Ok(wave.m0 as u64),
        124 if null == 125 => Ok(wave.m0 as u64),
        _ => Err(unsupported(inst, format!("soffset encoding {enc}"))),
    }
}

/// s_load_*: scalar loads of dwords (and, on GFX12, of one byte or short) from global memory.
fn exec_smem_load(wave: &mut Wave, inst: &Instruction, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    let mut dst = None;
    let mut base = None;
    let mut offset: i64 = 0;
    let mut soffset: u64 = 0;
    for o in inst.operands() {
        match (&o.spec.kind, &o.value) {
            (Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstX { .. } | Kind::SDstNoM0 { .. }, Operand::Reg(r)) => dst = Some(*r),
            (Kind::SBase { .. }, Operand::Reg(r)) => base = Some(wave.read_sreg(Reg { dwords: 2, ..*r })?),
            (Kind::SmemOff | Kind::SmemOffNonNeg, Operand::Imm(v)) => {
                // GFX12: dword 1 = signed 24-bit offset | soffset SGPR in bits 31:25.
                offset = (((v & 0xff_ffff) << 8) as i32 >> 8) as i64;
                soffset = smem_soffset(wave, v >> 25, 124, inst)?;
            }
            (Kind::G9SmemOff, Operand::Literal { value, .. }) => {
                // GFX9: imm (bit 17) selects the 21-bit offset, soe (bit 14) adds soffset (31:25);
                // with neither, the offset field names an SGPR holding the offset.
                let d1 = *value as u32;
                let (imm, soe) = ((value >> 32) & 1 == 1, (value >> 33) & 1 == 1);
                let off21 = (((d1 & 0x1f_ffff) << 11) as i32 >> 11) as i64;
                match (imm, soe) {
                    (true, false) => offset = off21,
                    (false, false) => soffset = smem_soffset(wave, d1 & 0x7f, 125, inst)?,
                    (false, true) => soffset = smem_soffset(wave, d1 >> 25, 125, inst)?,
                    (true, true) => {
                        offset = off21;
                        soffset = smem_soffset(wave, d1 >> 25, 125, inst)?;
                    }
                }
            }
            (Kind::Flag(name), Operand::Imm(v)) if *v != 0 && name.contains("scale_offset") => {
                return Err(unsupported(inst, "scale_offset on a scalar load"))
            }
            _ => {}
        }
    }
    let (Some(dst), Some(base)) = (dst, base) else { return Err(unsupported(inst, "operands")) };
    let addr = (base as i64).wrapping_add(offset).wrapping_add(soffset as i64) as u64;
    // GFX12 sub-dword loads (s_load_u8/i8/u16/i16): one naturally aligned byte or short, zero- or
    // sign-extended into the dword SGPR.
    let sub = match inst.mnemonic() {
        "s_load_u8" => Some((1usize, false)),
        "s_load_i8" => Some((1, true)),
        "s_load_u16" => Some((2, false)),
        "s_load_i16" => Some((2, true)),
        _ => None,
    };
    if let Some((width, signed)) = sub {
        let mut b = [0u8; 2];
        group.mem.read(addr, &mut b[..width], width as u64)?;
        let v = match (width, signed) {
            (1, false) => b[0] as u32,
            (1, true) => b[0] as i8 as i32 as u32,
            (_, false) => u16::from_le_bytes(b) as u32,
            (_, true) => i16::from_le_bytes(b) as i32 as u32,
        };
        wave.write_sgprs(Reg { dwords: 1, ..dst }, &[v])?;
        return Ok(Flow::Next);
    }
    let mut bytes = vec![0u8; 4 * dst.dwords as usize];
    group.mem.read(addr, &mut bytes, 4)?;
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    wave.write_sgprs(dst, &words)?;
    Ok(Flow::Next)
}

/// s_<op>_saveexec / s_<op>_wrexec: EXEC combined with a source; SCC = (EXEC != 0).
fn exec_saveexec(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let m = inst.mnemonic();
    let (Some(dst), Some(src)) = (inst.operand(0), inst.operand(1)) else { return Err(unsupported(inst, "operands")) };
    let s0 = read_scalar(wave, src, inst)?;
    let exec = wave.exec;
    let op = m.trim_start_matches("s_").split("_saveexec").next().unwrap_or("");
    let op = op.split("_wrexec").next().unwrap_or("");
    let new = match op {
        "and" => s0 & exec,
        "or" => s0 | exec,
        "xor" => s0 ^ exec,
        "nand" => !(s0 & exec),
        "nor" => !(s0 | exec),
        "xnor" => !(s0 ^ exec),
        // GFX9 n2 / GFX12 not1: the EXEC operand is inverted; n1 / not0: the source is.
        "andn2" | "and_not1" => s0 & !exec,
        "orn2" | "or_not1" => s0 | !exec,
        "andn1" | "and_not0" => !s0 & exec,
        "orn1" | "or_not0" => !s0 | exec,
        _ => return Err(unsupported(inst, "this EXEC operation")),
    } & wave.lane_mask();
    if m.contains("_wrexec_") {
        write_scalar(wave, dst, new, inst)?;
    } else {
        write_scalar(wave, dst, exec, inst)?;
    }
    wave.exec = new;
    wave.scc = new != 0;
    Ok(Flow::Next)
}

/// ds_*: LDS accesses and the DS cross-lane operations.
fn exec_ds(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    use crate::mem_ops;
    use hx_isa::Field;
    let m = inst.mnemonic();
    let offset = field_imm(inst, Field::DsOffset).unwrap_or(0) as u16;
    let (vdst, addr, d0, d1) = (field_reg(inst, Field::DsVdst), field_reg(inst, Field::DsAddr), field_reg(inst, Field::DsData0), field_reg(inst, Field::DsData1));
    let need = |r: Option<Reg>, what: &str| r.ok_or_else(|| unsupported(inst, format!("no {what} register")));
    match m {
        "ds_bpermute_b32" => {
            mem_ops::ds_bpermute(wave, need(vdst, "destination")?, need(addr, "address")?, need(d0, "data")?, offset, false)?;
            return Ok(Flow::Next);
        }
        "ds_permute_b32" => {
            mem_ops::ds_permute(wave, need(vdst, "destination")?, need(addr, "address")?, need(d0, "data")?, offset)?;
            return Ok(Flow::Next);
        }
        // The data register sits in the address field.
        "ds_swizzle_b32" => {
            mem_ops::ds_swizzle(wave, need(vdst, "destination")?, need(addr, "data")?, offset)?;
            return Ok(Flow::Next);
        }
        _ => {}
    }
    if let Some((elem_bits, bytes, lanes)) = mem_ops::ds_transpose_shape(m) {
        return exec_ds_transpose(wave, inst, group, need(vdst, "destination")?, need(addr, "address")?, offset as u64, elem_bits, bytes, lanes);
    }
    if mem_ops::is_transpose_load(m) {
        return Err(unsupported(inst, mem_ops::TRANSPOSE_REFUSED));
    }
    let shape = mem_ops::classify(m).ok_or_else(|| unsupported(inst, "this LDS operation"))?;
    let op = shape.to_op(offset as u8, (offset >> 8) as u8, false);
    let addr = need(addr, "address")?;
    // Two-address forms carry their offsets in the op; the others add the 16-bit offset.
    let extra = if op.pair.is_some() { 0 } else { offset as u64 };
    let mut addrs = vec![0u64; wave.lanes];
    for (lane, a) in addrs.iter_mut().enumerate() {
        if wave.lane_active(lane) {
            *a = (wave.read_vreg(Reg { dwords: 1, ..addr }, lane)? as u32 as u64) + extra;
        }
    }
    let (data, data2) = match (op.kind, d0, d1) {
        (mem_ops::MemKind::Atomic(mem_ops::AtomicOp::CmpSwap), Some(a), Some(b)) => {
            let (src, cmp) = mem_ops::ds_cmpswap_regs(group.target, a, b);
            (Some(src), Some(cmp))
        }
        _ => (d0, d1),
    };
    let regs = mem_ops::MemRegs { dst: vdst, data, data2 };
    mem_ops::execute_in_group(&op, wave, wave_index, group, &addrs, &regs)?;
    Ok(Flow::Next)
}

/// An LDS transpose load (mem_ops::ds_transpose_lanes): every lane of a 16-lane group reads
/// `bytes` bytes at its address, then each lane receives one column of the group's tile. A group
/// with an inactive lane is refused (what the hardware moves there is not known).
#[allow(clippy::too_many_arguments)]
fn exec_ds_transpose(wave: &mut Wave, inst: &Instruction, group: &mut Group<'_>, vdst: Reg, addr: Reg, offset: u64, elem_bits: usize, bytes: usize, lanes: crate::mem_ops::TrLanes) -> Result<Flow, EmuError> {
    let mut loaded = vec![vec![0u8; bytes]; wave.lanes];
    for g in (0..wave.lanes).step_by(16) {
        let on = (g..g + 16).filter(|&l| wave.lane_active(l)).count();
        if on == 0 {
            continue;
        }
        if on != 16 {
            return Err(unsupported(inst, "a transpose load with part of a 16-lane group inactive"));
        }
        for lane in g..g + 16 {
            let a = (wave.read_vreg(Reg { dwords: 1, ..addr }, lane)? as u32 as u64) + offset;
            group.lds.read(a, &mut loaded[lane], bytes as u64)?;
        }
    }
    let out = crate::mem_ops::ds_transpose_lanes(&loaded, elem_bits, lanes);
    for (lane, v) in out.iter().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        let words: Vec<u32> = v.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        wave.write_vreg_dwords(Reg { dwords: words.len() as u8, ..vdst }, lane, &words)?;
    }
    Ok(Flow::Next)
}

/// global_*, flat_*, scratch_*: per-lane addresses, then the memory-op layer.
pub fn exec_vmem(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>, o: &VmemOperands) -> Result<Flow, EmuError> {
    use crate::mem_ops;
    let m = inst.mnemonic();
    if let Some(size) = crate::async_lds::async_load_size(m) {
        crate::async_lds::exec_async_load(wave, wave_index, inst, group, o, size)?;
        return Ok(Flow::Next);
    }
    if m == "global_load_lds_dword" {
        return exec_global_load_lds_dword(wave, wave_index, inst, group, o);
    }
    if mem_ops::is_transpose_load(m) {
        return Err(unsupported(inst, mem_ops::TRANSPOSE_REFUSED));
    }
    let shape = mem_ops::classify(m).ok_or_else(|| unsupported(inst, "this memory operation"))?;
    let op = shape.to_op(0, 0, o.returns);
    let addrs = vmem_addresses(wave, inst, shape.space, o, op.width.bytes() as u64)?;
    let regs = mem_ops::MemRegs { dst: o.vdst, data: o.vdata, data2: None };
    mem_ops::execute_in_group(&op, wave, wave_index, group, &addrs, &regs)?;
    Ok(Flow::Next)
}

/// GFX9 `global_load_lds_dword` (Triton's gfx950 f32 matmul stages its tiles with it): each
/// active lane reads a dword at its global address and writes it to LDS at M0 + 4 * lane; the
/// destination VGPRs are not written. As for every GFX9 load, the data is complete at issue.
/// An instruction offset is refused: whether it also moves the LDS address is not pinned by any
/// kernel at hand (Triton's use offset 0; corpus/triton matmul_f32_32_w4 on gfx950).
fn exec_global_load_lds_dword(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>, o: &VmemOperands) -> Result<Flow, EmuError> {
    use crate::mem_ops::{Location, Memories, Space};
    if o.offset != 0 {
        return Err(unsupported(inst, "an instruction offset on a GFX9 LDS load"));
    }
    let addrs = vmem_addresses(wave, inst, Space::Global, o, 4)?;
    let m0 = wave.m0 as u64;
    let mut mem = Memories::of_group(group, wave_index)?;
    let mut data = [0u8; 4];
    for (lane, &addr) in addrs.iter().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        mem.read(lane, Location::Global(addr), &mut data, 4)?;
        mem.write(lane, Location::Lds(m0 + 4 * lane as u64), &data, 4)?;
    }
    Ok(Flow::Next)
}

/// Each active lane's address of a global/flat/scratch access of `size` bytes (0 for inactive
/// lanes): the SGPR base plus the (scaled) VGPR offset, or the VGPR address, plus the offset.
pub fn vmem_addresses(wave: &Wave, inst: &Instruction, space: crate::mem_ops::Space, o: &VmemOperands, size: u64) -> Result<Vec<u64>, EmuError> {
    use crate::mem_ops::Space;
    let scale = if o.scale_offset { size } else { 1 };
    let saddr = match o.saddr {
        Some(r) if r.class == RegClass::Null => None,
        Some(r) => Some(wave.read_sreg(Reg { dwords: if space == Space::Scratch { 1 } else { 2 }, ..r })?),
        None => None,
    };
    let mut addrs = vec![0u64; wave.lanes];
    for (lane, a) in addrs.iter_mut().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        let base = match (space, saddr, o.vaddr) {
            // A 32-bit VGPR offset from the SGPR base.
            (Space::Global, Some(s), Some(v)) => s.wrapping_add((wave.read_vreg(Reg { dwords: 1, ..v }, lane)? as u32 as u64) * scale),
            (Space::Global, Some(s), None) => s,
            (Space::Global | Space::Flat, None, Some(v)) => wave.read_vreg(Reg { dwords: 2, ..v }, lane)?,
            (Space::Scratch, s, v) => {
                let v = match v {
                    Some(v) => (wave.read_vreg(Reg { dwords: 1, ..v }, lane)? as u32 as u64) * scale,
                    None => 0,
                };
                (s.unwrap_or(0) as u32 as u64).wrapping_add(v) & 0xffff_ffff
            }
            _ => return Err(unsupported(inst, "this addressing form")),
        };
        *a = (base as i64).wrapping_add(o.offset) as u64;
    }
    Ok(addrs)
}

/// v_permlane16_swap_b32 / v_permlane32_swap_b32 vdst, vsrc: both registers rewritten
/// (lane_ops::permlane_swap).
fn exec_permlane_swap(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Ok(Reg { dwords: 1, ..r }),
        v => Err(unsupported(inst, format!("operand {v:?}"))),
    };
    let (d, s) = (reg(0)?, reg(1)?);
    let lanes_of = |wave: &Wave, r: Reg| -> Result<Vec<u32>, EmuError> { (0..wave.lanes).map(|l| wave.read_vreg(r, l).map(|v| v as u32)).collect() };
    let (mut dv, mut sv) = (lanes_of(wave, d)?, lanes_of(wave, s)?);
    crate::lane_ops::permlane_swap(&mut dv, &mut sv, wave.exec, inst.mnemonic().starts_with("v_permlane16"), inst.target)?;
    for lane in 0..wave.lanes {
        wave.write_vreg_dwords(d, lane, &[dv[lane]])?;
        wave.write_vreg_dwords(s, lane, &[sv[lane]])?;
    }
    Ok(Flow::Next)
}

/// v_permlane16_b32 / v_permlanex16_b32 vdst, vsrc, sel_lo, sel_hi op_sel:[fi,bc]
/// (lane_ops::apply_permlane16): the selectors are scalars (SGPRs, constants or literals).
fn exec_permlane16(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let ops: Vec<_> = inst.operands().collect();
    let (d, s) = match (ops.first().map(|o| o.value), ops.get(1).map(|o| o.value)) {
        (Some(Operand::Reg(d)), Some(Operand::Reg(s))) if d.class == RegClass::Vgpr && s.class == RegClass::Vgpr => {
            (Reg { dwords: 1, ..d }, Reg { dwords: 1, ..s })
        }
        v => return Err(unsupported(inst, format!("operands {v:?}"))),
    };
    let sel = |i: usize| ops.get(i).ok_or_else(|| unsupported(inst, "a missing selector")).and_then(|o| read_scalar(wave, o, inst));
    let (lo, hi) = (sel(2)? as u32, sel(3)? as u32);
    let op_sel = ops
        .iter()
        .find(|o| matches!(o.spec.kind, hx_isa::spec::Kind::OpSelFiBc))
        .map_or(0, |o| if let Operand::Imm(v) = o.value { v } else { 0 });
    let values: Vec<u32> = (0..wave.lanes).map(|l| wave.read_vreg(s, l).map(|v| v as u32)).collect::<Result<_, _>>()?;
    let cross = inst.mnemonic() == "v_permlanex16_b32";
    let lanes = crate::lane_ops::apply_permlane16(&values, wave.exec, lo, hi, cross, op_sel & 1 != 0, op_sel & 2 != 0, inst.target)?;
    for (lane, v) in lanes.into_iter().enumerate() {
        if let crate::lane_ops::DppLane::Value(v) = v {
            wave.write_vreg_dwords(d, lane, &[v])?;
        }
    }
    Ok(Flow::Next)
}

/// GFX9 v_swap_b32 vdst, vsrc: the two registers exchanged in the active lanes (the backend
/// uses it for register shuffles, e.g. rotating a loop-carried register tuple).
fn exec_swap(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Ok(Reg { dwords: 1, ..r }),
        v => Err(unsupported(inst, format!("operand {v:?}"))),
    };
    let (d, s) = (reg(0)?, reg(1)?);
    let exec = wave.exec;
    for lane in (0..wave.lanes).filter(|&l| exec >> l & 1 != 0) {
        let (dv, sv) = (wave.read_vreg(d, lane)? as u32, wave.read_vreg(s, lane)? as u32);
        wave.write_vreg_dwords(d, lane, &[sv])?;
        wave.write_vreg_dwords(s, lane, &[dv])?;
    }
    Ok(Flow::Next)
}

/// v_readlane / v_readfirstlane (VGPR lane -> SGPR) and v_writelane (SGPR -> one VGPR lane).
fn exec_lane_move(wave: &mut Wave, inst: &Instruction) -> Result<Flow, EmuError> {
    use crate::lane_ops;
    let ops: Vec<&InstOperand> = inst.operands().filter(|o| role(&o.spec.kind) != Role::Modifier).collect();
    let reg = |o: Option<&&InstOperand>| match o.map(|o| o.value) {
        Some(Operand::Reg(r)) => Ok(r),
        v => Err(unsupported(inst, format!("operand {v:?}"))),
    };
    let lanes_of = |wave: &Wave, r: Reg| -> Result<Vec<u32>, EmuError> { (0..wave.lanes).map(|l| wave.read_vreg(Reg { dwords: 1, ..r }, l).map(|v| v as u32)).collect() };
    match inst.mnemonic() {
        "v_readfirstlane_b32" => {
            let (dst, src) = (reg(ops.first())?, reg(ops.get(1))?);
            let v = lane_ops::readfirstlane(&lanes_of(wave, src)?, wave.exec);
            wave.write_sreg(Reg { dwords: 1, ..dst }, v as u64)?;
        }
        "v_readlane_b32" => {
            let (dst, src) = (reg(ops.first())?, reg(ops.get(1))?);
            let sel = read_scalar(wave, ops.get(2).ok_or_else(|| unsupported(inst, "no lane select"))?, inst)? as u32;
            let v = lane_ops::readlane(&lanes_of(wave, src)?, sel);
            wave.write_sreg(Reg { dwords: 1, ..dst }, v as u64)?;
        }
        _ => {
            // v_writelane_b32 vdst, ssrc, lane: writes one lane whatever EXEC says.
            let dst = reg(ops.first())?;
            let v = read_scalar(wave, ops.get(1).ok_or_else(|| unsupported(inst, "no source"))?, inst)? as u32;
            let sel = read_scalar(wave, ops.get(2).ok_or_else(|| unsupported(inst, "no lane select"))?, inst)? as u32;
            let mut vals = lanes_of(wave, dst)?;
            lane_ops::writelane(&mut vals, sel, v);
            let lane = sel as usize & (wave.lanes - 1);
            wave.write_vreg_dwords(Reg { dwords: 1, ..dst }, lane, &[vals[lane]])?;
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx942_fnuz_pairs_to_f32() {
        use crate::alu::fp8::Fp8Fmt;
        // E4M3 FNUZ (bias 8): 0x40 = 1.0, 0x48 = 2.0, 0x01 = 2^-10 (smallest denormal), 0x80
        // NaN, 0x7f = 240 (largest); bytes 0 and 1 of the source, the high word ignored.
        let pair = |f, s| {
            let v = fnuz_pk_to_f32(f, s);
            (f32::from_bits(v as u32), f32::from_bits((v >> 32) as u32))
        };
        assert_eq!(pair(Fp8Fmt::E4M3, 0xdead_4840), (1.0, 2.0));
        assert_eq!(pair(Fp8Fmt::E4M3, 0x7f01), (2f32.powi(-10), 240.0));
        assert_eq!(pair(Fp8Fmt::E4M3, 0xc0), (-1.0, 0.0));
        assert_eq!(fnuz_pk_to_f32(Fp8Fmt::E4M3, 0x80) as u32, 0x7fc0_0000);
        // E5M2 FNUZ (bias 16): 0x40 = 1.0, 0x7f = 57344, no infinity.
        assert_eq!(pair(Fp8Fmt::E5M2, 0x7f40), (1.0, 57344.0));
    }

    #[test]
    fn gfx950_scaled_conversions_to_bf16() {
        // v_cvt_scalef32_pk_bf16_fp4 v28, v22, v26 op_sel:[1,0,0] (from a Triton gfx950 object):
        // byte 1 of v22. op_sel:[0,1,0]: byte 2.
        let run = |w0: u32, x: u32, scale: f32| {
            let bytes: Vec<u8> = [w0, 0x0002_3516u32, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
            let inst = hx_isa::decode(hx_isa::Target::Gfx950, &bytes, 0).unwrap();
            let mut w = Wave::new(64, 64, 0);
            w.exec = 1;
            w.set_v(22, 0, x).unwrap();
            w.set_v(26, 0, scale.to_bits()).unwrap();
            exec_cvt_scalef32_pk_bf16(&mut w, &inst).unwrap();
            let d = w.v((w0 & 0xff) as usize, 0).unwrap();
            (inst.text(), f32::from_bits(d << 16), f32::from_bits(d & 0xffff_0000))
        };
        // E2M1 nibbles: 0x2 = 1.0, 0x7 = 6.0, 0xb = -1.5, 0x5 = 3.0.
        assert_eq!(run(0xd251_081c, 0x00b5_7200, 0.25), ("v_cvt_scalef32_pk_bf16_fp4 v28, v22, v26 op_sel:[1,0,0]".into(), 0.25, 1.5));
        assert_eq!(run(0xd251_101d, 0x00b5_7200, 4.0), ("v_cvt_scalef32_pk_bf16_fp4 v29, v22, v26 op_sel:[0,1,0]".into(), 12.0, -6.0));
        // v_cvt_scalef32_pk_bf16_fp8 (opcode 0x269) op_sel:[1,0,0]: bytes 2, 3 (OCP E4M3 0x38 =
        // 1.0, 0xc0 = -2.0), times 2^-3.
        assert_eq!(run(0xd269_081c, 0xc038_0000, 0.125).1, 0.125);
        assert_eq!(run(0xd269_081c, 0xc038_0000, 0.125).2, -0.25);
    }
}
