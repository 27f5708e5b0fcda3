//! Structure recovery: the EXEC idioms LLVM emits for if-then, if-else and divergent loops,
//! raised as each thread's own branches.
//!
//! LLVM opens an if-then region by narrowing EXEC (`s_and_saveexec_b32 sX, cond`, or
//! `s_mov_b32 sX, exec_lo` then `v_cmpx_*` / `s_and_b32 exec_lo, exec_lo, m`), skips the body
//! with `s_cbranch_execz JOIN` when no lane is left, and closes it at JOIN with
//! `s_or_b32 exec_lo, exec_lo, sX` (or ends the program there). Where the shape is proven, a
//! thread whose EXEC bit the narrowing cleared goes straight to JOIN, and the others run the body
//! knowing their bit is set, so their VALU writes and memory accesses need no predicate. Proven:
//! - one way in (the head's fall-through edge) and one way out (to JOIN); no program end, call
//!   or return inside;
//! - the body keeps EXEC within its entry value (narrowings, restores of masks saved inside,
//!   the if-else and loop-mask idioms below): every lane active inside was active at its entry,
//!   so a thread that skips would have changed nothing there;
//! - every thread reaches JOIN with the same EXEC: the body leaves EXEC as it found it, or
//!   EXEC ⊆ sX on every path (sX saved in the head before the narrowing, or the head inside
//!   another region closed by the same restore) so the restore gives sX, or JOIN ends the
//!   program;
//! - no scalar register the body may write is live at JOIN (a thread that skips does not
//!   compute it);
//! - nothing inside reads another lane or needs the whole wave (readlane, DPP, permutes,
//!   barriers, ...): a lane that skipped is not running there.
//!
//! Masks inside stay exact: a compare's ballot counts the lanes running it, and a lane that
//! skipped contributes 0 as its cleared EXEC bit does in the source; so EXEC, and the branches
//! on it, are the source wave's in every thread inside.
//! The same holds for the arms of an if-else (a body that leaves EXEC as it found it needs no
//! restore at its join: every thread arrives with the same EXEC) and for divergent loops
//! (`s_and_not1_b32 exec_lo, exec_lo, sDone` then `s_cbranch_execnz` back or `s_cbranch_execz`
//! out): a thread goes round while its bit is set; one that leaves early keeps its own view of
//! the masks, in which the exit mask and EXEC still make up the loop's entry EXEC, so JOIN's
//! restore gives every thread the same EXEC; what else the loop computes in SGPRs must be dead
//! there. `Masks` tracks what the body does to EXEC relative to its entry value. A loop whose exit
//! is also the join of the if-then that guards it (LLVM's guarded loop: `v_cmpx; s_cbranch_execz
//! JOIN` around the loop), or of the if-then whose body the loop ends (LLVM leaves out the loop's
//! own restore when nothing it computes is live after it), is recovered with that if-then only,
//! whose restore of the mask its head saved gives every thread the same EXEC however many rounds
//! it went. LLVM's atomic-optimizer reduction loop over a copy of EXEC (ir/reduce_loop_ir.rs)
//! reads only running lanes as raised, so it may sit in a recovered region. An if-then whose body is
//! out of line (`s_cbranch_execnz BODY`) is recognised too, once cfg::merge_tails has given the
//! body back its join.
//!
//! Everything else keeps the predicated model.

use crate::cfg::{Cfg, Cond, Exit};
use crate::ir::is_modifier;
use hx_sem::alu::table::{self as alu, Flag, Op};
use hx_isa::{InstOperand, Instruction, Kind, Operand, Reg, RegClass};
use std::collections::{HashMap, HashSet};

/// Scalar state as bits: s0..s105, then VCC_LO, VCC_HI, M0, SCC, ttmp0..15.
type Set = u128;
const VCC_LO: u32 = 106;
const M0: u32 = 108;
const SCC: u32 = 109;
const TTMP0: u32 = 110;
const ALL: Set = Set::MAX;

/// What [`recover`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structure {
    /// Per block: the head of a recovered region (its execz exit becomes the thread's branch
    /// into the body, taken where its EXEC bit is set).
    pub head: Vec<bool>,
    /// Per block: the thread's EXEC bit is known to be set on entry.
    pub known_on_entry: Vec<bool>,
    /// Offsets of restores after which the thread's EXEC bit is known to be set again.
    pub known_after: HashSet<usize>,
    /// Restores closing a recovered region, by offset, and the EXEC they give (the same in
    /// every thread, see the module comment).
    pub restore_to: HashMap<usize, RestoreTo>,
}

/// The EXEC a region's closing `s_or_b32 exec_lo, exec_lo, sX` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoreTo {
    /// sX itself (this SGPR): an if-then whose head saved EXEC in sX before narrowing it (EXEC
    /// stays within sX, and the body does not write sX, which is live at the join).
    Saved(u32),
    /// The EXEC on the loop's entry edge, at the end of this block (the exit mask and EXEC make
    /// it up again).
    LoopEntry(usize),
}

fn reg_bits(r: Reg) -> Set {
    let n = r.dwords.max(1) as u32;
    let span = |first: u32, limit: u32| -> Set {
        (first..first + n).filter(|&b| b < limit).fold(0, |s, b| s | 1u128 << b)
    };
    match r.class {
        RegClass::Sgpr => span(r.index as u32, VCC_LO),
        RegClass::Vcc => span(VCC_LO + (r.index as u32 & 1), VCC_LO + 2),
        RegClass::Vccz => 1 << VCC_LO,
        RegClass::M0 => 1 << M0,
        RegClass::Scc => 1 << SCC,
        RegClass::Ttmp => span(TTMP0 + r.index as u32, TTMP0 + 16),
        _ => 0,
    }
}

fn op_bits(o: &InstOperand) -> Set {
    match (o.spec.kind, o.value) {
        (_, Operand::Reg(r)) => reg_bits(r),
        // Implicit operands named by the encoding (VOPC e32's vcc_lo, VOP2's carry): in wave32
        // a fixed VCC is vcc_lo, as the raiser reads and writes it.
        (Kind::Fixed(name), _) if name.starts_with("vcc") => 1 << VCC_LO,
        (Kind::Fixed(name), _) if name.starts_with("m0") => 1 << M0,
        (Kind::Fixed(name), _) if name.starts_with("scc") => 1 << SCC,
        _ => 0,
    }
}

fn is_exec_lo(o: Option<&&InstOperand>) -> bool {
    matches!(o.map(|o| o.value), Some(Operand::Reg(r)) if r.class == RegClass::Exec && r.index == 0 && r.dwords <= 1)
}

fn single_sgpr(o: Option<&&InstOperand>) -> Option<u32> {
    match o.map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Sgpr && r.dwords <= 1 => Some(r.index as u32),
        _ => None,
    }
}

fn ignorable(m: &str) -> bool {
    m.starts_with("s_wait_") && m != "s_wait_tensorcnt"
        || matches!(
            m,
            "s_nop" | "s_delay_alu" | "s_clause" | "s_set_inst_prefetch_distance" | "v_nop" | "s_set_vgpr_msb" | "s_prefetch_inst"
                | "s_prefetch_inst_pc_rel" | "s_prefetch_data" | "s_prefetch_data_pc_rel" | "s_buffer_prefetch_data"
                | "global_prefetch_b8" | "flat_prefetch_b8"
        )
}

/// Instructions the raiser drops (waits, hints, prefetches), for the control-flow graph's use.
pub(crate) fn ignorable_here(m: &str) -> bool {
    ignorable(m)
}

/// LDS operations a thread does alone (no other lane's data, no wave-wide counter).
fn ds_lane_local(m: &str) -> bool {
    const OPS: [&str; 14] = [
        "ds_load_", "ds_store_", "ds_add_", "ds_sub_", "ds_rsub_", "ds_and_", "ds_or_", "ds_xor_", "ds_min_", "ds_max_",
        "ds_cmpstore_", "ds_storexchg_", "ds_inc_", "ds_dec_",
    ];
    OPS.iter().any(|p| m.starts_with(p)) && !hx_sem::memory::is_transpose_load(m)
}

/// Scalar state one instruction reads (a superset), writes for certain (a subset), and may
/// write (a superset), and whether a thread can run it alone.
#[derive(Debug, Clone, Copy, Default)]
struct Effect {
    reads: Set,
    kills: Set,
    may_write: Set,
    lane_local: bool,
    exec: ExecUse,
}

/// Where the program counter reaches data. `s_get_pc_i64`'s value may flow through scalar adds
/// and moves into `s_swap_pc_i64` / `s_set_pc_i64` (a call or a jump, which the control-flow
/// graph resolves statically) and into the base of a scalar or global load (`s_load_*` sbase,
/// `global_load_*` saddr): a PC-relative global variable or constant table, which the raiser
/// reads from a copy of the source's image ([`PcUses::rebase`]). Any other use, a store or
/// atomic through such an address included (the copy is per translated module, so a write
/// would not be seen by the other kernels), is refused: `Err((offset, mnemonic))`, as is a
/// load whose base carries the PC on some paths only (it could not be rebased on all).
///
/// Followed along the control flow, a forward analysis to its fixed point: per register,
/// whether it may carry a PC-derived value and whether it must; a register stops carrying it
/// when something else is written to it. Calls are followed into their callee (the function
/// whose address `s_get_pc_i64` plus a constant gives, else every function) and come back to
/// their own return site only: there a register the callee (or what it calls) may write has the
/// state the callee's returns leave, any other the state at the call. The lowest refused offset
/// is reported.
pub(crate) fn pc_uses(g: &Cfg) -> Result<PcUses, (usize, &'static str)> {
    let n = g.blocks.len();
    if n == 0 {
        return Ok(PcUses::default());
    }
    let at: HashMap<usize, usize> = g.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    let calls = CallGraph::of(g, &at);
    // On entry to each block, and at the returns of each function; None: not reached (yet).
    let mut entry: Vec<Option<PcState>> = vec![None; n];
    let mut exit: HashMap<usize, PcState> = HashMap::new();
    // Per call block, the functions its call may reach as far as known; per function, the
    // blocks whose call may reach it.
    let mut targets: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut callers: HashMap<usize, HashSet<usize>> = HashMap::new();
    entry[0] = Some(PcState::default());
    let mut work = vec![0usize];
    // The lattice is finite (may only grows, must and the known constants only shrink; each
    // change queues a block or a function's callers), so this ends; the bound only guards
    // against a mistake here, and refuses rather than trust a state that is not final.
    let mut budget = 1000usize.saturating_mul(n).saturating_mul(g.functions.len() + 1).saturating_add(1024);
    while let Some(i) = work.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            let b = &g.blocks[i];
            return Err((b.start, b.insts.first().map_or("s_get_pc_i64", |x| x.mnemonic())));
        }
        let Some(mut st) = entry[i].clone() else { continue };
        let mut before_last = st.clone();
        for inst in &g.blocks[i].insts {
            before_last = st.clone();
            st = st.step(inst).0;
        }
        let mut flow: Vec<(usize, PcState)> = Vec::new();
        match g.blocks[i].exit {
            Exit::Call { ret } => {
                // The callee: the function at the address the call reads, if known.
                let call = g.blocks[i].insts.last();
                let addr = call.and_then(|c| sreg_pair(c.operand(1))).and_then(|r| before_last.consts.get(&r).copied());
                let t = match addr.and_then(|a| usize::try_from(a).ok()) {
                    Some(f) if g.functions.contains(&f) => vec![f],
                    _ => g.functions.clone(),
                };
                for &f in &t {
                    if !targets[i].contains(&f) {
                        targets[i].push(f);
                        callers.entry(f).or_default().insert(i);
                    }
                }
                for &f in &targets[i] {
                    if let Some(&j) = at.get(&f) {
                        flow.push((j, st.clone()));
                    }
                    // Back at the return site once the callee has returned somewhere.
                    if let (Some(x), Some(&r)) = (exit.get(&f), at.get(&ret)) {
                        let w = calls.writes.get(&f).copied().unwrap_or(ALL);
                        flow.push((r, st.after_call(x, w)));
                    }
                }
            }
            // A return outside every function (a jump through a register in the kernel's own
            // code) may go to any return site.
            Exit::Return if !calls.bodies.values().any(|b| b.contains(&i)) => {
                for s in g.successors(i) {
                    if let Some(&j) = at.get(&s) {
                        flow.push((j, st.clone()));
                    }
                }
            }
            Exit::Return => {
                for (&f, body) in &calls.bodies {
                    if !body.contains(&i) {
                        continue;
                    }
                    let new = PcState::meet(exit.get(&f), &st);
                    if exit.get(&f) != Some(&new) {
                        exit.insert(f, new);
                        work.extend(callers.get(&f).into_iter().flatten().copied());
                    }
                }
            }
            _ => {
                for s in g.successors(i) {
                    if let Some(&j) = at.get(&s) {
                        flow.push((j, st.clone()));
                    }
                }
            }
        }
        for (j, st) in flow {
            let new = PcState::meet(entry[j].as_ref(), &st);
            if entry[j].as_ref() != Some(&new) {
                entry[j] = Some(new);
                work.push(j);
            }
        }
    }
    let mut uses = PcUses::default();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| g.blocks[i].start);
    for i in order {
        let Some(mut st) = entry[i].clone() else { continue };
        for inst in &g.blocks[i].insts {
            let (next, verdict) = st.step(inst);
            match verdict {
                PcVerdict::None => {}
                PcVerdict::Rebase => {
                    uses.rebase.insert(inst.offset);
                }
                PcVerdict::Refused => return Err((inst.offset, inst.mnemonic())),
            }
            st = next;
        }
    }
    Ok(uses)
}

/// What [`pc_uses`] knows at a point of the program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PcState {
    /// Registers that may carry a PC-derived value.
    may: Set,
    /// Registers that carry one on every path.
    must: Set,
    /// SGPR pairs (by first register) known to hold the same PC-derived address on every path:
    /// `s_get_pc_i64` plus constants (what a call reads), as offsets in the code.
    consts: std::collections::BTreeMap<u16, u64>,
}

impl PcState {
    fn meet(old: Option<&PcState>, new: &PcState) -> PcState {
        let Some(old) = old else { return new.clone() };
        let consts = old.consts.iter().filter(|(r, v)| new.consts.get(r) == Some(v)).map(|(&r, &v)| (r, v)).collect();
        PcState { may: old.may | new.may, must: old.must & new.must, consts }
    }

    fn step(&self, inst: &Instruction) -> (PcState, PcVerdict) {
        let ((may, must), verdict) = pc_step(inst, (self.may, self.must));
        let mut consts = self.consts.clone();
        let e = effect(inst);
        let d = sreg_pair(inst.operand(0));
        let value = match (inst.mnemonic(), d) {
            ("s_get_pc_i64", Some(_)) => Some(inst.offset as u64 + inst.len as u64),
            ("s_add_nc_u64", Some(_)) => {
                let a = sreg_pair(inst.operand(1)).and_then(|s| consts.get(&s).copied());
                let c = inst.operand(2).and_then(|o| hx_sem::operands::constant_value(&o.value, hx_isa::ValType::B64));
                a.zip(c).map(|(a, c)| a.wrapping_add(c))
            }
            _ => None,
        };
        // What the instruction may write forgets the values it held.
        consts.retain(|&r, _| reg_bits(Reg { class: RegClass::Sgpr, index: r, dwords: 2 }) & e.may_write == 0);
        if let (Some(d), Some(v)) = (d, value) {
            consts.insert(d, v);
        }
        (PcState { may, must, consts }, verdict)
    }

    /// At a call's return site: what `callee_exit` says for the registers `w` the callee may
    /// write, what this (the state at the call) says for the others.
    fn after_call(&self, callee_exit: &PcState, w: Set) -> PcState {
        let keep = |r: &u16| reg_bits(Reg { class: RegClass::Sgpr, index: *r, dwords: 2 }) & w == 0;
        let mut consts: std::collections::BTreeMap<u16, u64> = self.consts.iter().filter(|(r, _)| keep(r)).map(|(&r, &v)| (r, v)).collect();
        consts.extend(callee_exit.consts.iter().filter(|(r, _)| !keep(r)).map(|(&r, &v)| (r, v)));
        PcState { may: (self.may & !w) | (callee_exit.may & w), must: (self.must & !w) | (callee_exit.must & w), consts }
    }
}

fn sreg_pair(o: Option<&InstOperand>) -> Option<u16> {
    match o.map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Sgpr && r.dwords == 2 => Some(r.index),
        _ => None,
    }
}

/// The static part of the calls of a program as [`pc_uses`] follows them.
struct CallGraph {
    /// Per function entry: the blocks of its body (its own code, not its callees').
    bodies: HashMap<usize, HashSet<usize>>,
    /// Per function entry: the scalar state it or a function it may call may write.
    writes: HashMap<usize, Set>,
}

impl CallGraph {
    fn of(g: &Cfg, at: &HashMap<usize, usize>) -> CallGraph {
        // A body: what the entry reaches without entering a call (a call goes on at its return
        // site) or leaving by a return.
        let mut bodies = HashMap::new();
        let mut own = HashMap::new();
        for &f in &g.functions {
            let mut body = HashSet::new();
            let mut work: Vec<usize> = at.get(&f).copied().into_iter().collect();
            while let Some(i) = work.pop() {
                if !body.insert(i) {
                    continue;
                }
                let next = match g.blocks[i].exit {
                    Exit::Call { ret } => vec![ret],
                    Exit::Return => Vec::new(),
                    _ => g.successors(i),
                };
                work.extend(next.iter().filter_map(|s| at.get(s)));
            }
            let w = body.iter().flat_map(|&i| g.blocks[i].insts.iter()).fold(0 as Set, |w, inst| w | effect(inst).may_write);
            own.insert(f, w);
            bodies.insert(f, body);
        }
        // What a function's callees write (a call in a body may reach any function here), to a
        // fixed point.
        let mut writes = own.clone();
        let calls_any = |f: usize| bodies.get(&f).is_some_and(|b: &HashSet<usize>| b.iter().any(|&i| matches!(g.blocks[i].exit, Exit::Call { .. })));
        let all_own = own.values().fold(0 as Set, |a, &w| a | w);
        for &f in &g.functions {
            if calls_any(f) {
                writes.insert(f, own[&f] | all_own);
            }
        }
        CallGraph { bodies, writes }
    }
}

/// What [`pc_step`] makes of an instruction's use of the PC-carrying registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PcVerdict {
    /// It reads none of them as data (or moves, adds or jumps through them).
    None,
    /// A load whose base carries the PC on every path, and nothing else does.
    Rebase,
    /// Any other use.
    Refused,
}

/// One instruction of [`pc_uses`]: the (may, must) PC-carrying registers after it, and its verdict.
fn pc_step(inst: &Instruction, (may, must): (Set, Set)) -> ((Set, Set), PcVerdict) {
    const CARRY: &[&str] = &[
        "s_add_nc_u64", "s_sub_nc_u64", "s_add_u32", "s_addc_u32", "s_sub_u32", "s_subb_u32", "s_add_co_u32",
        "s_add_co_ci_u32", "s_sub_co_u32", "s_sub_co_ci_u32", "s_mov_b32", "s_mov_b64",
    ];
    let m = inst.mnemonic();
    let e = effect(inst);
    // What the instruction writes stops carrying the PC unless said otherwise below: for
    // certain where it surely writes, possibly where it may.
    let cleared = (may & !e.kills, must & !e.may_write);
    if m == "s_get_pc_i64" {
        return ((cleared.0 | e.may_write, cleared.1 | e.kills), PcVerdict::None);
    }
    if m == "s_trap" {
        // The trap reads no register as data here (llvm.trap on the target).
        return ((may, must), PcVerdict::None);
    }
    if e.reads & may == 0 || matches!(m, "s_swap_pc_i64" | "s_set_pc_i64") {
        return (cleared, PcVerdict::None);
    }
    if CARRY.contains(&m) {
        // The result carries the PC if a source may; it must if a source must.
        let must_out = if e.reads & must != 0 { e.kills } else { 0 };
        return ((cleared.0 | e.may_write, cleared.1 | must_out), PcVerdict::None);
    }
    if let Some(base) = load_base_bits(inst) {
        // Only the base carries the PC, on every path: the load reads the image copy.
        if e.reads & may & !base == 0 && base & may & !must == 0 {
            return (cleared, PcVerdict::Rebase);
        }
    }
    (cleared, PcVerdict::Refused)
}

/// What [`pc_uses`] found.
#[derive(Debug, Clone, Default)]
pub(crate) struct PcUses {
    /// Offsets of the loads whose base address is the source's PC-relative address of data.
    pub rebase: HashSet<usize>,
}

/// The registers of a scalar load's base (`s_load_*`) or a global load's SGPR base
/// (`global_load_*` saddr); None for other instructions.
fn load_base_bits(inst: &Instruction) -> Option<Set> {
    let m = inst.mnemonic();
    if m.starts_with("s_load_") {
        return inst.operands().find(|o| matches!(o.spec.kind, Kind::SBase { .. })).map(op_bits);
    }
    if m.starts_with("global_load_") && !m.starts_with("global_load_async") && !m.starts_with("global_load_lds") {
        let saddr = hx_sem::operands::vmem_operands(inst).ok()?.saddr?;
        return Some(reg_bits(saddr));
    }
    None
}

/// [`effect`] of every instruction of `g`, by block.
fn effects_of(g: &Cfg) -> Vec<Vec<Effect>> {
    g.blocks.iter().map(|b| b.insts.iter().map(|i| Effect { exec: exec_use(i), ..effect(i) }).collect()).collect()
}

fn effect(inst: &Instruction) -> Effect {
    let m = inst.mnemonic();
    if ignorable(m) {
        return Effect { lane_local: true, ..Effect::default() };
    }
    let parts = inst.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*inst]);
    let mut e = Effect { lane_local: true, ..Effect::default() };
    let cross_lane = ["permlane", "readlane", "readfirstlane", "writelane", "swizzle", "permute", "_dpp", "_sdwa"];
    for p in &parts {
        let pm = p.mnemonic();
        let ops: Vec<&InstOperand> = p.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        let all: Set = ops.iter().map(|o| op_bits(o)).fold(0, |a, b| a | b);
        let except = |skip: &[usize]| -> Set {
            ops.iter().enumerate().filter(|(i, _)| !skip.contains(i)).map(|(_, o)| op_bits(o)).fold(0, |a, b| a | b)
        };
        // A DPP the target's own DPP makes reads inactive lanes as the source does when the
        // target's EXEC is the source's, which holds for the threads of a recovered region.
        let target_dpp = p.dpp().is_some_and(|d| crate::ir::on_target_dpp(&d));
        let named = cross_lane.iter().any(|c| pm.contains(c) && !(target_dpp && *c == "_dpp"));
        if named || (p.dpp().is_some() && !target_dpp) || p.wmma().is_some() || p.tensor().is_some() {
            e.lane_local = false;
        }
        if p.bitop3_table().is_some() {
            e.reads |= all;
            continue;
        }
        if pm == "s_endpgm" || hx_sem::operands::is_dealloc_vgprs(p) {
            continue;
        }
        if let Some(op) = alu::of(p) {
            if op.salu {
                let reads_dst = hx_sem::operands::sopk_reads_dst(pm) || op.acc || matches!(op.op, Op::SBitset0B32 | Op::SBitset1B32 | Op::SBitset0B64 | Op::SBitset1B64);
                if op.dst.is_some() && !ops.is_empty() {
                    e.kills |= op_bits(ops[0]);
                    e.reads |= if reads_dst { all } else { except(&[0]) };
                } else {
                    e.reads |= all;
                }
                if op.flag_out == Flag::Scc {
                    e.kills |= 1 << SCC;
                }
                if op.flag_in == Flag::Scc {
                    e.reads |= 1 << SCC;
                }
                e.may_write |= e.kills | 1 << SCC;
            } else {
                let mut skip = Vec::new();
                let mut i = 0;
                if op.dst.is_some() {
                    skip.push(0);
                    i = 1;
                }
                let writes_exec = matches!(op.op, Op::Cmp(c) if c.writes_exec);
                if op.flag_out == Flag::LaneMask {
                    match ops.get(i).map(|o| (&o.spec.kind, o.value)) {
                        Some((Kind::Fixed(_), _)) => {
                            e.kills |= op_bits(ops[i]);
                            skip.push(i);
                            i += 1;
                        }
                        Some((Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstX { .. } | Kind::SDstNoM0 { .. }, Operand::Reg(_))) => {
                            e.kills |= op_bits(ops[i]);
                            skip.push(i);
                            i += 1;
                        }
                        _ if !writes_exec => e.kills |= 1 << VCC_LO,
                        _ => {}
                    }
                }
                e.reads |= except(&skip);
                e.may_write |= e.kills;
                if op.flag_in == Flag::LaneMask {
                    // Without a mask operand after the sources, VCC is read implicitly.
                    let at = i + op.srcs.len() - op.acc as usize;
                    if !matches!(ops.get(at).map(|o| o.value), Some(Operand::Reg(r)) if r.class != RegClass::Vcc) {
                        e.reads |= 1 << VCC_LO;
                    }
                }
            }
            continue;
        }
        if pm.starts_with("s_load_") {
            if let Some(o) = ops.first().filter(|o| matches!(o.spec.kind, Kind::SDst { .. } | Kind::SDst8 { .. } | Kind::SDstX { .. } | Kind::SDstNoM0 { .. })) {
                e.kills |= op_bits(o);
                e.may_write |= op_bits(o);
                e.reads |= except(&[0]);
            } else {
                e.reads |= all;
                e.may_write = ALL;
            }
            continue;
        }
        match pm {
            "s_branch" | "s_cbranch_execz" | "s_cbranch_execnz" => continue,
            "s_cbranch_scc0" | "s_cbranch_scc1" => {
                e.reads |= 1 << SCC;
                continue;
            }
            "s_cbranch_vccz" | "s_cbranch_vccnz" => {
                e.reads |= 1 << VCC_LO;
                continue;
            }
            _ if pm.contains("_saveexec_") => {
                let d = ops.first().map_or(0, |o| op_bits(o));
                e.kills |= d | 1 << SCC;
                e.may_write |= d | 1 << SCC;
                e.reads |= except(&[0]);
                continue;
            }
            // Not lane-local, but their scalar effects are known (what keeps registers around
            // them dead).
            "v_readlane_b32" | "v_readfirstlane_b32" => {
                let d = ops.first().map_or(0, |o| op_bits(o));
                e.kills |= d;
                e.may_write |= d;
                e.reads |= except(&[0]);
                continue;
            }
            // Calls and returns: the return address written, the target read (what the callee
            // or the return site reads flows in through the graph's edges).
            "s_get_pc_i64" | "s_getpc_b64" | "s_swap_pc_i64" | "s_swappc_b64" | "s_set_pc_i64" | "s_setpc_b64" => {
                let ret = pm == "s_set_pc_i64" || pm == "s_setpc_b64";
                let d = if ret { 0 } else { ops.first().map_or(0, |o| op_bits(o)) };
                e.kills |= d;
                e.may_write |= d;
                e.reads |= if ret { all } else { except(&[0]) };
                e.lane_local = pm.starts_with("s_get");
                continue;
            }
            // Hardware registers are not scalar state here: s_getreg writes its SGPR only (a
            // wave-uniform value, so a thread may read it alone); s_setreg changes MODE for the
            // whole wave, which a thread must not do alone.
            "s_getreg_b32" => {
                let d = ops.first().map_or(0, |o| op_bits(o));
                e.kills |= d;
                e.may_write |= d;
                continue;
            }
            "s_setreg_b32" | "s_setreg_imm32_b32" => {
                e.reads |= all;
                e.lane_local = false;
                continue;
            }
            "v_writelane_b32" => {
                e.reads |= all;
                continue;
            }
            _ if pm.starts_with("s_barrier_") => {
                e.reads |= all;
                e.may_write |= 1 << SCC;
                e.lane_local = false;
                continue;
            }
            _ => {}
        }
        let async_lds = hx_sem::memory::async_load_size(pm).is_some();
        let memory = (pm.starts_with("global_") || pm.starts_with("scratch_") || pm.starts_with("flat_") || p.vbuffer().is_some()) && !async_lds;
        if memory || ds_lane_local(pm) {
            e.reads |= all;
            continue;
        }
        // LDS-free DS cross-lane moves: their scalar effects are known (what keeps the registers
        // around them dead), though a thread may not run them alone.
        if matches!(pm, "ds_bpermute_b32" | "ds_permute_b32" | "ds_swizzle_b32") {
            e.reads |= all;
            e.lane_local = false;
            continue;
        }
        // Anything else: it may read or write any scalar state, and a thread may not run it alone.
        e.reads = ALL;
        e.may_write = ALL;
        e.lane_local = false;
    }
    e
}

/// How an instruction uses EXEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ExecUse {
    #[default]
    None,
    /// Reads it as a source only.
    Read,
    /// `s_mov_b32 sY, exec_lo`.
    Save(u32),
    /// EXEC := EXEC & m.
    Narrow,
    /// `s_and_saveexec_b32 sY, m` (and its not0 form): sY := EXEC, then a narrowing.
    NarrowSave(u32),
    /// `s_or_b32 exec_lo, exec_lo, sY`.
    Restore(u32),
    Other,
}

/// Whether `inst` may write EXEC (conservative: any instruction that names EXEC, the
/// saveexec/wrexec forms and v_cmpx, which write it implicitly); [`exec_use`] then tells the
/// writes from reads and saves.
fn may_write_exec(inst: &Instruction) -> bool {
    let m = inst.mnemonic();
    if m.contains("exec") || m.contains("cmpx") {
        return true;
    }
    let parts = inst.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*inst]);
    parts.iter().any(|i| i.operands().any(|o| matches!(o.value, Operand::Reg(r) if r.class == RegClass::Exec)))
}

/// Whether `inst` may change EXEC (reading or saving it does not).
pub fn writes_exec(inst: &Instruction) -> bool {
    exec_use(inst).writes()
}

impl ExecUse {
    fn writes(self) -> bool {
        !matches!(self, ExecUse::None | ExecUse::Read | ExecUse::Save(_))
    }
}

fn exec_use(inst: &Instruction) -> ExecUse {
    if !may_write_exec(inst) {
        return ExecUse::None;
    }
    let m = inst.mnemonic();
    if m.starts_with("v_cmpx_") {
        return ExecUse::Narrow;
    }
    if m == "s_cbranch_execz" || m == "s_cbranch_execnz" {
        return ExecUse::Read;
    }
    let ops: Vec<&InstOperand> = inst.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
    let dst_exec = is_exec_lo(ops.first());
    match m {
        "s_and_saveexec_b32" | "s_and_not0_saveexec_b32" => {
            return single_sgpr(ops.first()).map_or(ExecUse::Other, ExecUse::NarrowSave);
        }
        "s_mov_b32" if is_exec_lo(ops.get(1)) => {
            return single_sgpr(ops.first()).map_or(ExecUse::Other, ExecUse::Save);
        }
        "s_and_b32" if dst_exec && (is_exec_lo(ops.get(1)) || is_exec_lo(ops.get(2))) => return ExecUse::Narrow,
        "s_and_not1_b32" if dst_exec && is_exec_lo(ops.get(1)) => return ExecUse::Narrow,
        "s_or_b32" if dst_exec => {
            let r = if is_exec_lo(ops.get(1)) { single_sgpr(ops.get(2)) } else if is_exec_lo(ops.get(2)) { single_sgpr(ops.get(1)) } else { None };
            return r.map_or(ExecUse::Other, ExecUse::Restore);
        }
        _ => {}
    }
    // EXEC only among the sources of ALU operations that write elsewhere.
    let parts = inst.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*inst]);
    let read_only = parts.iter().all(|p| {
        let Some(op) = alu::of(p) else { return false };
        if matches!(op.op, Op::Cmp(c) if c.writes_exec) || op.flag_out == Flag::LaneMask {
            return false;
        }
        let ops: Vec<&InstOperand> = p.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        !(op.dst.is_some() && matches!(ops.first().map(|o| o.value), Some(Operand::Reg(r)) if r.class == RegClass::Exec))
    });
    if read_only { ExecUse::Read } else { ExecUse::Other }
}

/// Block indices, per block.
type Adjacency = Vec<Vec<usize>>;

/// Successor and predecessor block indices of every block (None: an edge leaves the graph).
fn edges_of(g: &Cfg) -> Option<(Adjacency, Adjacency)> {
    let at: std::collections::HashMap<usize, usize> = g.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    let mut succ = vec![Vec::new(); g.blocks.len()];
    let mut preds = vec![Vec::new(); g.blocks.len()];
    for (i, out) in succ.iter_mut().enumerate() {
        for s in g.successors(i) {
            let j = *at.get(&s)?;
            out.push(j);
            preds[j].push(i);
        }
    }
    Some((succ, preds))
}

/// Scalar state live on entry to each block.
fn live_in(g: &Cfg, succ: &[Vec<usize>], effects: &[Vec<Effect>]) -> Vec<Set> {
    let n = g.blocks.len();
    let mut live = vec![0 as Set; n];
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            // A call's and a return's successors are every function entry and every return
            // site (the raised dispatch traps on any other address), so liveness flows
            // through them like any edge: what no return site reads is dead at a return.
            let mut out: Set = match g.blocks[i].exit {
                Exit::OffTheEnd => ALL,
                _ => 0,
            };
            for &j in &succ[i] {
                out |= live[j];
            }
            for e in effects[i].iter().rev() {
                out = (out & !e.kills) | e.reads;
            }
            if out != live[i] {
                live[i] = out;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}

/// A candidate region. An if-then: the head's execz skips the body (entered at `entry`) to
/// `join`. A loop: the latch (`head`) goes on to `cont` or leaves to `join`; `entry` is where
/// the loop is entered from `pre`.
#[derive(Clone)]
struct Region {
    head: usize,
    entry: usize,
    /// The head's successor for threads whose EXEC bit is set.
    cont: usize,
    /// The block whose edge into `entry` enters the region.
    pre: usize,
    join: usize,
    is_loop: bool,
    body: BlockSet,
    join_kind: Join,
    /// Index in the head of the instruction that saved the restore's register (None: not
    /// saved there).
    save_at: Option<usize>,
    /// EXEC equals its value at the body's entry on every edge into JOIN.
    exact: bool,
    /// A loop whose exit is also the join of the if-then around it (`pre`, the if's head,
    /// skips to it): the if-then's restore closes both (LLVM's guarded loop).
    guarded: bool,
}

/// A set of blocks (a region's body), sparse: the many small regions of a huge program then
/// cost their own size, not the program's each. `body[b]` reads membership; iteration is in
/// block order.
#[derive(Debug, Clone, Default)]
struct BlockSet(std::collections::BTreeSet<usize>);

impl BlockSet {
    fn insert(&mut self, b: usize) -> bool {
        self.0.insert(b)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().copied()
    }
}

impl std::ops::Index<usize> for BlockSet {
    type Output = bool;

    fn index(&self, b: usize) -> &bool {
        if self.0.contains(&b) {
            &true
        } else {
            &false
        }
    }
}

/// What the join block starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// `s_or_b32 exec_lo, exec_lo, sX`.
    Restore(u32),
    /// Nothing but the program's end.
    End,
    Other,
}

fn join_kind(g: &Cfg, j: usize) -> Join {
    let b = &g.blocks[j];
    if let Some(ExecUse::Restore(r)) = b.insts.iter().find(|i| !ignorable(i.mnemonic())).map(exec_use) {
        return Join::Restore(r);
    }
    let ends = b.exit == Exit::End
        && b.insts.iter().all(|i| ignorable(i.mnemonic()) || i.mnemonic() == "s_endpgm" || hx_sem::operands::is_dealloc_vgprs(i));
    if ends { Join::End } else { Join::Other }
}

/// The head's save of `sx` that precedes its last narrowing, with only narrowings after it and
/// no other mention of `sx` up to the head's end; None if there is no such save.
fn save_in_head(g: &Cfg, h: usize, sx: u32) -> Option<usize> {
    let insts = &g.blocks[h].insts;
    let mentions = |i: &Instruction| i.operands().any(|o| op_bits(o) & (1u128 << sx) != 0);
    for (k, inst) in insts.iter().enumerate().rev() {
        match exec_use(inst) {
            ExecUse::Save(r) | ExecUse::NarrowSave(r) if r == sx => return Some(k),
            ExecUse::None | ExecUse::Read | ExecUse::Narrow | ExecUse::NarrowSave(_) if !mentions(inst) => {}
            _ => return None,
        }
    }
    None
}

fn candidate(g: &Cfg, succ: &[Vec<usize>], preds: &[Vec<usize>], h: usize) -> Option<Region> {
    // Cond exits list the taken successor first: execz skips to the join, execnz enters the
    // body (placed out of line, cfg::merge_tails gives it back its join).
    let (join, entry) = match g.blocks[h].exit {
        Exit::Cond { cond: Cond::Execz, .. } => (*succ[h].first()?, *succ[h].get(1)?),
        Exit::Cond { cond: Cond::Execnz, .. } => (*succ[h].get(1)?, *succ[h].first()?),
        _ => return None,
    };
    if join == entry || join == h || entry == h || entry == 0 {
        return None;
    }
    let join_kind = join_kind(g, join);
    let body = grow_body(g, succ, BlockSet::default(), entry, |j| j == h || j == 0, Some(join))?;
    // One way in: every predecessor of a body block is in the body, or the head (its fall edge).
    for b in body.iter() {
        if preds[b].iter().any(|&p| !(body[p] || (p == h && b == entry))) {
            return None;
        }
    }
    let save_at = match join_kind {
        Join::Restore(sx) => save_in_head(g, h, sx),
        _ => None,
    };
    Some(Region { head: h, entry, cont: entry, pre: h, join, body, join_kind, save_at, exact: false, is_loop: false, guarded: false })
}

/// What is known about EXEC and the masks in SGPRs inside a region's body, relative to E, the
/// value of EXEC at the body's entry. EXEC ⊆ E always (or the body is refused).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Masks {
    /// Nothing computed yet (the top of the lattice).
    top: bool,
    /// EXEC == E.
    exec_eq: bool,
    /// Registers holding a mask ⊆ E.
    sub: Set,
    /// Registers holding E.
    eq: Set,
    /// Registers r with r ⊆ E and r | EXEC == E (the other half of an if-else, a loop's exit
    /// mask).
    comp: Set,
    /// Saved EXEC masks y with the registers r for which r | y == E (what a restore from y
    /// brings back).
    saves: Vec<(u32, Set)>,
}

impl Masks {
    fn top() -> Masks {
        Masks { top: true, exec_eq: true, sub: ALL, eq: ALL, comp: ALL, saves: Vec::new() }
    }

    /// At the entry, with `zero` the registers known to hold 0 (⊆ E whatever E is).
    fn entry(zero: Set) -> Masks {
        Masks { top: false, exec_eq: true, sub: zero, eq: 0, comp: zero, saves: Vec::new() }
    }

    fn meet(&self, o: &Masks) -> Masks {
        if self.top {
            return o.clone();
        }
        if o.top {
            return self.clone();
        }
        let saves = self.saves.iter().filter_map(|&(y, a)| o.saves.iter().find(|&&(z, _)| z == y).map(|&(_, b)| (y, a & b))).collect();
        Masks { top: false, exec_eq: self.exec_eq && o.exec_eq, sub: self.sub & o.sub, eq: self.eq & o.eq, comp: self.comp & o.comp, saves }
    }

    fn saved(&self, v: MaskVal) -> Set {
        match v {
            MaskVal::Reg(y) => self.saves.iter().find(|&&(z, _)| z == y).map_or(0, |&(_, s)| s),
            _ => 0,
        }
    }
}

/// A mask operand as the analysis sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MaskVal {
    Exec,
    /// One 32-bit register (its bit in [`Set`]).
    Reg(u32),
    Zero,
    Unknown,
}

fn mask_val(o: Option<&&InstOperand>) -> MaskVal {
    let Some(o) = o else { return MaskVal::Unknown };
    match o.value {
        Operand::Reg(r) if r.class == RegClass::Exec => {
            if r.index == 0 && r.dwords <= 1 { MaskVal::Exec } else { MaskVal::Unknown }
        }
        Operand::Imm(0) | Operand::IntConst(0) => MaskVal::Zero,
        _ => match op_bits(o) {
            b if b.count_ones() == 1 => MaskVal::Reg(b.trailing_zeros()),
            _ => MaskVal::Unknown,
        },
    }
}

impl Masks {
    fn sub_of(&self, v: MaskVal) -> bool {
        match v {
            MaskVal::Exec | MaskVal::Zero => true,
            MaskVal::Reg(b) => self.sub >> b & 1 != 0,
            MaskVal::Unknown => false,
        }
    }
    fn eq_of(&self, v: MaskVal) -> bool {
        match v {
            MaskVal::Exec => self.exec_eq,
            MaskVal::Reg(b) => self.eq >> b & 1 != 0,
            _ => false,
        }
    }
    fn comp_of(&self, v: MaskVal) -> bool {
        matches!(v, MaskVal::Reg(b) if self.comp >> b & 1 != 0)
    }

    /// The state after `inst`, or None where EXEC may leave E.
    fn step(&self, inst: &Instruction, e: &Effect) -> Option<Masks> {
        // Most instructions touch neither EXEC nor a scalar register.
        if self.top || (e.may_write == 0 && e.exec == ExecUse::None) {
            return Some(self.clone());
        }
        let m = inst.mnemonic();
        let ops: Vec<&InstOperand> = inst.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
        let mut out = self.clone();
        out.sub &= !e.may_write;
        out.eq &= !e.may_write;
        out.comp &= !e.may_write;
        out.saves.retain(|&(y, _)| e.may_write >> y & 1 == 0);
        for (_, r) in out.saves.iter_mut() {
            *r &= !e.may_write;
        }
        // Registers r with r | EXEC == E, kept by a save of EXEC into y.
        let comps_now = self.comp & !e.may_write;
        let bit = |x: bool, b: u32| if x { 1u128 << b } else { 0 };
        let (a, b) = (mask_val(ops.get(1)), mask_val(ops.get(2)));
        if m.starts_with("v_cmpx_") {
            out.exec_eq = false;
            out.comp = 0;
            return Some(out);
        }
        let dst_exec = is_exec_lo(ops.first());
        if !dst_exec && !m.contains("saveexec") {
            if let Some(op) = alu::of(inst) {
                // A VALU lane mask: the thread's result where it is active, so ⊆ EXEC ⊆ E.
                if !op.salu && op.flag_out == Flag::LaneMask {
                    out.sub |= e.kills;
                    if out.exec_eq {
                        out.comp |= out.sub;
                    }
                    return Some(out);
                }
            }
            let MaskVal::Reg(d) = mask_val(ops.first()) else { return (!may_write_exec(inst) || e.exec == ExecUse::Read).then_some(out) };
            let (sa, sb, ea, eb) = (self.sub_of(a), self.sub_of(b), self.eq_of(a), self.eq_of(b));
            let (sub, eq, comp) = match m {
                "s_mov_b32" => (sa, ea, self.comp_of(a)),
                "s_or_b32" => (sa && sb, sa && sb && (ea || eb), sa && sb && (self.comp_of(a) || self.comp_of(b))),
                "s_and_b32" => (sa || sb, ea && eb, false),
                // E ^ EXEC = E \ EXEC: the lanes the narrowing left out.
                "s_xor_b32" => (sa && sb, false, (a == MaskVal::Exec && eb) || (b == MaskVal::Exec && ea)),
                "s_and_not1_b32" => (sa, false, false),
                _ => (false, false, false),
            };
            out.sub |= bit(sub, d);
            out.eq |= bit(eq && sub, d);
            out.comp |= bit(comp && sub, d);
            if m == "s_mov_b32" && a == MaskVal::Exec {
                out.saves.push((d, comps_now));
            }
            if out.exec_eq {
                // With EXEC == E, every mask ⊆ E is an other half (a loop's exit mask set to 0).
                out.comp |= out.sub;
            }
            return (!may_write_exec(inst) || e.exec == ExecUse::Read || e.exec == ExecUse::Save(d)).then_some(out);
        }
        let (sa, sb, ea, eb) = (self.sub_of(a), self.sub_of(b), self.eq_of(a), self.eq_of(b));
        out.comp = 0;
        match m {
            "s_and_b32" if dst_exec && (sa || sb) => out.exec_eq = ea && eb,
            "s_and_not1_b32" if dst_exec && sa => {
                out.exec_eq = false;
                // (EXEC & ~r) | r == EXEC | r: a loop's exit mask stays the other half.
                if let (MaskVal::Exec, MaskVal::Reg(r)) = (a, b) {
                    out.comp = bit(self.comp_of(b), r);
                }
            }
            "s_mov_b32" if dst_exec && sa => out.exec_eq = ea,
            "s_or_b32" if dst_exec && sa && sb => {
                out.exec_eq = ea || eb || (a == MaskVal::Exec && self.comp_of(b)) || (b == MaskVal::Exec && self.comp_of(a));
                // EXEC only grows: its other halves stay so, and a restore from a save brings
                // back the other halves of the saved EXEC.
                out.comp = comps_now | self.saved(a) | self.saved(b);
            }
            "s_xor_b32" if dst_exec && sa && sb => {
                out.exec_eq = false;
                // E ^ r = E \ r: r is the other half.
                match (a, b) {
                    (MaskVal::Exec, MaskVal::Reg(r)) | (MaskVal::Reg(r), MaskVal::Exec) if self.exec_eq => out.comp = 1 << r,
                    _ => {}
                }
            }
            _ if m.contains("saveexec") => {
                let MaskVal::Reg(y) = mask_val(ops.first()) else { return None };
                let s = a;
                // sY := EXEC (⊆ E; E itself if EXEC was).
                out.sub |= 1 << y;
                out.eq |= bit(self.exec_eq, y);
                out.saves.push((y, comps_now));
                match m {
                    "s_and_saveexec_b32" => {
                        out.exec_eq = self.exec_eq && self.eq_of(s);
                        out.comp = bit(self.exec_eq, y);
                    }
                    "s_and_not0_saveexec_b32" => {
                        out.exec_eq = false;
                        out.comp = bit(self.exec_eq, y);
                    }
                    "s_and_not1_saveexec_b32" if self.sub_of(s) => {
                        out.exec_eq = false;
                        out.comp = bit(self.comp_of(s), y);
                    }
                    "s_or_saveexec_b32" if self.sub_of(s) => out.exec_eq = self.exec_eq || self.eq_of(s) || self.comp_of(s),
                    _ => return None,
                }
            }
            _ => return None,
        }
        if out.exec_eq {
            // With EXEC == E, every mask ⊆ E is an other half.
            out.comp |= out.sub;
        }
        out.comp &= out.sub;
        Some(out)
    }
}

/// Checks that the body keeps EXEC within E (its value where the region is entered) and that
/// every instruction in it can run in a thread alone; returns whether every thread leaving it
/// has EXEC == E (after JOIN's restore, for a loop), or None if the body does not qualify.
/// `zero`: the registers holding 0 where the region is entered.
fn body_masks(g: &Cfg, succ: &[Vec<usize>], preds: &[Vec<usize>], effects: &[Vec<Effect>], r: &Region, zero: Set) -> Option<bool> {
    let n = g.blocks.len();
    // Reverse postorder from the entry: a few rounds reach the fixed point.
    let body = reverse_postorder(succ, r.entry, &r.body);
    if body.iter().any(|&b| effects[b].iter().any(|e| !e.lane_local)) {
        return None;
    }
    let out_of = |state: &Masks, b: usize| -> Option<Masks> {
        g.blocks[b].insts.iter().zip(&effects[b]).try_fold(state.clone(), |s, (i, e)| s.step(i, e))
    };
    // The greatest fixed point from "everything known" (loops in the body).
    let mut out: Vec<Masks> = vec![Masks::top(); n];
    loop {
        let mut changed = false;
        for &b in &body {
            let mut v = if b == r.entry { Masks::entry(zero) } else { Masks::top() };
            for &p in &preds[b] {
                if r.body[p] {
                    v = v.meet(&out[p]);
                }
            }
            let o = out_of(&v, b)?;
            if o != out[b] {
                out[b] = o;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut exact = true;
    for &b in &body {
        if succ[b].contains(&r.join) {
            let out = &out[b];
            // A loop's threads all ran its body, each leaving with its own view of the masks:
            // JOIN's restore from the other half of EXEC gives E in every view.
            let restored = match r.join_kind {
                Join::Restore(x) if r.is_loop => out.comp_of(MaskVal::Reg(x)) || out.eq_of(MaskVal::Reg(x)),
                _ => false,
            };
            exact &= !out.top && (out.exec_eq || restored);
        }
    }
    Some(exact)
}

/// The blocks of `within` reachable from `entry` (inside `within`), in reverse postorder.
fn reverse_postorder(succ: &[Vec<usize>], entry: usize, within: &BlockSet) -> Vec<usize> {
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some((b, k)) = stack.pop() {
        if let Some(&s) = succ[b].get(k) {
            stack.push((b, k + 1));
            if within[s] && seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// Registers holding 0 at the end of each block on every path (a loop's exit mask starts so).
fn zero_out(g: &Cfg, preds: &[Vec<usize>], effects: &[Vec<Effect>]) -> Vec<Set> {
    let n = g.blocks.len();
    let transfer = |b: usize, z: Set| -> Set {
        g.blocks[b].insts.iter().zip(&effects[b]).fold(z, |z, (i, e)| {
            if i.mnemonic() != "s_mov_b32" {
                return z & !e.may_write;
            }
            let ops: Vec<&InstOperand> = i.operands().filter(|o| !is_modifier(&o.spec.kind)).collect();
            match (mask_val(ops.first()), mask_val(ops.get(1))) {
                (MaskVal::Reg(d), MaskVal::Zero) => z | 1 << d,
                _ => z & !e.may_write,
            }
        })
    };
    let mut out = vec![ALL; n];
    loop {
        let mut changed = false;
        for b in 0..n {
            let calls = matches!(g.blocks[b].exit, Exit::Call { .. } | Exit::Return);
            let z_in = if b == 0 { 0 } else { preds[b].iter().fold(ALL, |z, &p| z & out[p]) };
            let v = if calls { 0 } else { transfer(b, z_in) };
            if v != out[b] {
                out[b] = v;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// A divergent loop: `latch` ends with `s_cbranch_execz EXIT` (or `s_cbranch_execnz BACK`,
/// falling to EXIT); a thread goes on while its EXEC bit is set. The loop is entered by one
/// edge and left only by the latch's.
/// `body` grown by every block reachable from `seed` (marked unless already in `body`), not
/// walking past `stop` (left out); `None` when a block reached ends the program, calls or
/// returns, or an edge leads to a block `refused` names.
fn grow_body(g: &Cfg, succ: &[Vec<usize>], mut body: BlockSet, seed: usize, refused: impl Fn(usize) -> bool, stop: Option<usize>) -> Option<BlockSet> {
    let mut work = Vec::new();
    if body.insert(seed) {
        work.push(seed);
    }
    while let Some(b) = work.pop() {
        if matches!(g.blocks[b].exit, Exit::End | Exit::Call { .. } | Exit::Return | Exit::OffTheEnd) {
            return None;
        }
        for &j in &succ[b] {
            if refused(j) {
                return None;
            }
            if Some(j) != stop && body.insert(j) {
                work.push(j);
            }
        }
    }
    Some(body)
}

fn loop_candidate(g: &Cfg, succ: &[Vec<usize>], preds: &[Vec<usize>], l: usize) -> Option<Region> {
    // Cond exits list the taken successor first.
    let (taken, fall) = (*succ[l].first()?, *succ[l].get(1)?);
    let (c, x) = match g.blocks[l].exit {
        Exit::Cond { cond: Cond::Execz, .. } => (fall, taken),
        Exit::Cond { cond: Cond::Execnz, .. } => (taken, fall),
        _ => return None,
    };
    if c == x || x == l || l == 0 {
        return None;
    }
    let mut body = BlockSet::default();
    body.insert(l);
    // (The exit is refused inside, so no block stops the walk.)
    let body = grow_body(g, succ, body, c, |j| j == x || j == 0, None)?;
    // A way back to the latch from the body (or the body is the latch alone).
    let back = c == l || body.iter().any(|b| b != l && succ[b].contains(&l));
    let entries: Vec<(usize, usize)> = body.iter().flat_map(|b| preds[b].iter().filter(|&&p| !body[p]).map(move |&p| (p, b))).collect();
    let [(pre, entry)] = entries[..] else { return None };
    // The exit's only other way in may be the skip edge of an if-then head entering the loop,
    // or of an if-then whose body holds the loop and ends with it (recover checks that the
    // if-then is recovered, with a restore of the mask its head saved).
    let skip_head = preds[x].iter().copied().find(|&h| h != l);
    let guarded = pre != l
        && preds[x].len() == 2
        && preds[x].contains(&l)
        && skip_head.is_some_and(|h| !body[h] && matches!(g.blocks[h].exit, Exit::Cond { cond: Cond::Execz | Cond::Execnz, .. }))
        && (skip_head != Some(pre) || succ[pre].contains(&entry));
    if !back || !(preds[x] == [l] || guarded) {
        return None;
    }
    Some(Region { head: l, entry, cont: c, pre, join: x, body, join_kind: join_kind(g, x), save_at: None, exact: false, is_loop: true, guarded })
}

/// Scalar state live after the first instruction of `join` (its restore).
fn live_after_restore(g: &Cfg, succ: &[Vec<usize>], effects: &[Vec<Effect>], live: &[Set], join: usize) -> Set {
    let b = &g.blocks[join];
    let mut out: Set = succ[join].iter().fold(0, |o, &j| o | live[j]);
    if matches!(b.exit, Exit::OffTheEnd) {
        out = ALL;
    }
    let first = b.insts.iter().position(|i| !ignorable(i.mnemonic())).unwrap_or(0);
    for e in effects[join][first + 1..].iter().rev() {
        out = (out & !e.kills) | e.reads;
    }
    out
}

/// Finds the regions of `g` that can be raised as threads' branches, and where each thread's
/// EXEC bit is known to be set.
/// The blocks that are LLVM's atomic-optimizer reduction loop (crate::ir::match_reduce_loop)
/// over a copy of EXEC taken on the only way in (`s_mov_b32 sM, exec_lo`, neither written
/// after). Raised as a butterfly that reads the lanes of sM only, all of them running, such a
/// loop may run in a recovered region, as a thread's own code does.
fn reduce_loops_over_exec(g: &Cfg, preds: &[Vec<usize>], effects: &[Vec<Effect>]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, bl) in g.blocks.iter().enumerate() {
        let Some(rl) = crate::ir::match_reduce_loop(bl) else { continue };
        let ins: Vec<usize> = preds[i].iter().copied().filter(|&p| p != i).collect();
        let [p] = ins.as_slice() else { continue };
        let falls_in = matches!(g.blocks[*p].exit, Exit::Fall(t) | Exit::Jump(t) if t == bl.start);
        let mask = reg_bits(rl.mask());
        // (`exec` is ExecUse::None exactly for the instructions that do not name EXEC.)
        let copy_of_exec = effects[*p].iter().rev().find_map(|e| match e.exec {
            ExecUse::Save(s) if 1u128.checked_shl(s) == Some(mask) => Some(true),
            ExecUse::None if e.may_write & mask == 0 => None,
            _ => Some(false),
        });
        if falls_in && copy_of_exec == Some(true) {
            out.push(i);
        }
    }
    out
}

pub fn recover(g: &Cfg) -> Structure {
    let n = g.blocks.len();
    let Some((succ, preds)) = edges_of(g) else {
        return Structure { head: vec![false; n], known_on_entry: vec![false; n], known_after: HashSet::new(), restore_to: HashMap::new() };
    };
    let mut effects = effects_of(g);
    for b in reduce_loops_over_exec(g, &preds, &effects) {
        for e in &mut effects[b] {
            e.lane_local = true;
        }
    }
    let live = live_in(g, &succ, &effects);
    let zero = zero_out(g, &preds, &effects);
    let confined: Vec<Region> = (0..n)
        .filter_map(|h| candidate(g, &succ, &preds, h).or_else(|| loop_candidate(g, &succ, &preds, h)))
        .filter_map(|mut r| {
            let written = r.body.iter().flat_map(|b| effects[b].iter()).fold(1u128 << SCC, |w, e| w | e.may_write);
            r.exact = body_masks(g, &succ, &preds, &effects, &r, zero[r.pre])?;
            // What a thread that left early (or skipped) has not computed must be dead where
            // the threads meet again; a loop's exit mask may be read by JOIN's restore, which
            // gives E in every thread's view.
            let live_at_join = match r.join_kind {
                Join::Restore(_) if r.is_loop => live_after_restore(g, &succ, &effects, &live, r.join),
                _ => live[r.join],
            };
            if written & live_at_join != 0 || (r.is_loop && !(r.exact || r.guarded || r.join_kind == Join::End)) {
                return None;
            }
            Some(r)
        })
        .collect();
    // Every thread reaches JOIN with the same EXEC when: the program ends there; or EXEC is
    // back to E on every way out of the body; or JOIN restores a mask sX ⊇ EXEC, which holds
    // when sX was saved in the head before the narrowing, or the head lies in a region of the
    // same kind closed by the same restore (EXEC stays within that region's E ⊆ sX).
    let mut restores_superset: Vec<bool> = confined.iter().map(|r| r.save_at.is_some()).collect();
    loop {
        let next: Vec<bool> = confined
            .iter()
            .enumerate()
            .map(|(i, r)| {
                restores_superset[i]
                    || matches!(r.join_kind, Join::Restore(_))
                        && confined.iter().enumerate().any(|(k, o)| restores_superset[k] && o.join == r.join && o.head != r.head && o.body[r.head])
            })
            .collect();
        if next == restores_superset {
            break;
        }
        restores_superset = next;
    }
    let regions: Vec<Region> = confined
        .into_iter()
        .zip(restores_superset)
        .filter(|(r, sup)| r.join_kind == Join::End || r.exact || *sup)
        .map(|(r, _)| r)
        .collect();
    // A guarded loop only with its if-then, whose restore of the mask its head saved closes both:
    // it gives the saved mask in every thread, however many rounds each went.
    let regions: Vec<Region> = regions
        .iter()
        .filter(|r| {
            !r.guarded
                || regions.iter().any(|o| {
                    !o.is_loop && (o.head == r.pre || o.body[r.pre]) && o.join == r.join && o.body[r.head] && o.save_at.is_some() && preds[r.join].iter().all(|&p| p == o.head || r.body[p])
                })
        })
        .cloned()
        .collect();
    let mut head = vec![false; n];
    for r in &regions {
        head[r.head] = true;
    }
    // Where the thread's EXEC bit is known to be set: the greatest fixed point (at entry EXEC is
    // the set of threads that exist, so every running thread's bit is set until a write). A restore sets it again when the thread's bit was known set where its
    // mask was saved and every way into the join comes through that region.
    // (restore offset, head, index of the save in the head, join block) for if-thens; for
    // loops, the save is the loop's entry edge (the restore gives E back), and the "head" the
    // block before the loop.
    let restores: Vec<(usize, usize, Option<usize>, usize)> = regions
        .iter()
        .filter_map(|r| {
            if !preds[r.join].iter().all(|&p| p == r.head || r.body[p]) {
                return None;
            }
            let at = g.blocks[r.join].insts.iter().find(|i| matches!(exec_use(i), ExecUse::Restore(_)))?.offset;
            match (r.is_loop, r.save_at) {
                // The if-then around a guarded loop gives its restore.
                (true, _) if r.guarded => None,
                (true, _) if r.exact => Some((at, r.pre, None, r.join)),
                (false, Some(save)) => Some((at, r.head, Some(save), r.join)),
                _ => None,
            }
        })
        .collect();
    // Edges from a region's head into its body (head, cont).
    let into_body: HashSet<(usize, usize)> = regions.iter().map(|r| (r.head, r.cont)).collect();
    // The restores whose holding each block decides (by its own state).
    let mut decided_by: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, &(_, b, _, _)) in restores.iter().enumerate() {
        decided_by[b].push(k);
    }
    // A greatest fixed point, from "known everywhere" down. Blocks are swept in address order
    // with each value used as soon as it is computed (chaotic iteration reaches the same fixed
    // point of these monotone equations), so a chain of regions settles in a sweep or two
    // rather than one block per round.
    let mut known: Vec<bool> = (0..n).map(|i| i == 0 || !preds[i].is_empty()).collect();
    let mut holds: Vec<bool> = vec![true; restores.len()];
    let mut end: Vec<bool> = vec![true; n];
    let restore_at: HashMap<usize, usize> = restores.iter().enumerate().map(|(k, r)| (r.0, k)).collect();
    loop {
        let mut changed = false;
        for b in 0..n {
            let k = (b == 0 || !preds[b].is_empty()) && preds[b].iter().all(|&p| end[p] || (head[p] && into_body.contains(&(p, b))));
            if k != known[b] {
                known[b] = k;
                changed = true;
            }
            // (A call or return passes EXEC on unchanged along the graph's edges.)
            let e = g.blocks[b].insts.iter().zip(&effects[b]).fold(known[b], |k, (i, e)| {
                if restore_at.get(&i.offset).is_some_and(|&r| holds[r]) {
                    true
                } else {
                    k && !e.exec.writes()
                }
            });
            if e != end[b] {
                end[b] = e;
                changed = true;
            }
            for &r in &decided_by[b] {
                let h = match restores[r].2 {
                    Some(save) => known[b] && !effects[b][..save].iter().any(|e| e.exec.writes()),
                    None => end[b],
                };
                if h != holds[r] {
                    holds[r] = h;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let after: HashSet<usize> = restores.iter().zip(&holds).filter(|(_, &h)| h).map(|(r, _)| r.0).collect();
    let restore_to = restores
        .iter()
        .filter_map(|&(at, b, save, join)| {
            let to = match save {
                Some(_) => {
                    let inst = g.blocks[join].insts.iter().find(|i| i.offset == at)?;
                    let ExecUse::Restore(sx) = exec_use(inst) else { return None };
                    RestoreTo::Saved(sx)
                }
                None => RestoreTo::LoopEntry(b),
            };
            Some((at, to))
        })
        .collect();
    Structure { head, known_on_entry: known, known_after: after, restore_to }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Block;

    fn full_on_entry(g: &Cfg) -> Vec<bool> {
        recover(g).known_on_entry
    }
    use hx_isa::Target;

    fn inst(bytes: &[u8], text: &str) -> Instruction {
        let i = hx_isa::decode(Target::Gfx1250, bytes, 0).unwrap();
        assert_eq!(i.text(), text);
        i
    }

    fn graph(blocks: Vec<(usize, Vec<Instruction>, Exit)>) -> Cfg {
        let blocks = blocks.into_iter().map(|(start, insts, exit)| Block { start, insts, exit }).collect();
        Cfg { blocks, functions: vec![], return_sites: vec![], base: 0 }
    }

    #[test]
    fn a_load_base_carrying_the_pc_on_some_paths_only_is_refused() {
        let get_pc = inst(&[0x00, 0x47, 0x80, 0xbe], "s_get_pc_i64 s[0:1]");
        let load = inst(&[0x00, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8], "s_load_b32 s4, s[0:1], 0x0");
        let other = inst(&[0x80, 0x00, 0x85, 0xbe], "s_mov_b32 s5, 0");
        let overwrite = inst(&[0x02, 0x01, 0x80, 0xbe], "s_mov_b64 s[0:1], s[2:3]");
        let g = |middle: Instruction| {
            graph(vec![
                (0, vec![get_pc], Exit::Cond { cond: Cond::Scc0, taken: 8, fall: 4 }),
                (4, vec![middle], Exit::Jump(8)),
                (8, vec![load], Exit::End),
            ])
        };
        // On both paths the base is the PC's: the load reads the image copy.
        assert_eq!(pc_uses(&g(other)).unwrap().rebase.len(), 1);
        // One path overwrites it: no rebasing is right for both.
        assert_eq!(pc_uses(&g(overwrite)).unwrap_err().1, "s_load_b32");
    }

    #[test]
    fn a_call_returns_what_its_callee_leaves_to_its_own_site_only() {
        let get_pc = inst(&[0x00, 0x47, 0x80, 0xbe], "s_get_pc_i64 s[0:1]");
        let get_pc6 = inst(&[0x00, 0x47, 0x86, 0xbe], "s_get_pc_i64 s[6:7]");
        // With s_get_pc_i64 at offset 0 reading 4: the addresses 68 and 100.
        let to_f = inst(&[0x00, 0xc0, 0x80, 0xa9], "s_add_nc_u64 s[0:1], s[0:1], 64");
        let to_g = inst(&[0x00, 0xff, 0x80, 0xa9, 0x60, 0x00, 0x00, 0x00], "s_add_nc_u64 s[0:1], s[0:1], 0x60");
        let call = inst(&[0x00, 0x49, 0x9e, 0xbe], "s_swap_pc_i64 s[30:31], s[0:1]");
        let ret = inst(&[0x1e, 0x48, 0x80, 0xbe], "s_set_pc_i64 s[30:31]");
        let own = inst(&[0x02, 0x01, 0x86, 0xbe], "s_mov_b64 s[6:7], s[2:3]");
        let load = inst(&[0x03, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8], "s_load_b32 s4, s[6:7], 0x0");
        let other = inst(&[0x80, 0x00, 0x85, 0xbe], "s_mov_b32 s5, 0");
        let g = |f_body: Instruction| {
            let blocks = vec![
                // The kernel calls G, then F with its own s[6:7], then loads through s[6:7].
                (0, vec![get_pc, to_g, call], Exit::Call { ret: 20 }),
                (20, vec![own, get_pc, to_f, call], Exit::Call { ret: 40 }),
                (40, vec![load], Exit::End),
                (68, vec![f_body, ret], Exit::Return),
                // G calls F with the PC in s[6:7].
                (100, vec![get_pc6, get_pc, to_f, call], Exit::Call { ret: 120 }),
                (120, vec![ret], Exit::Return),
            ]
            .into_iter()
            .map(|(start, insts, exit)| Block { start, insts, exit })
            .collect();
            Cfg { blocks, functions: vec![68, 100], return_sites: vec![20, 40, 120], base: 0 }
        };
        // F leaves s[6:7] alone. Its return to G's site carries G's PC in s[6:7]; its return to
        // the kernel the kernel's own s[6:7], which is not the PC: the load is neither refused
        // nor rebased (following every return to every site would have refused it).
        assert!(pc_uses(&g(other)).unwrap().rebase.is_empty());
        // F writes the PC to s[6:7]: that comes back to the kernel.
        assert_eq!(pc_uses(&g(get_pc6)).unwrap().rebase.len(), 1);
    }

    #[test]
    fn exec_is_full_until_a_path_writes_it() {
        let write = inst(&[0x00, 0x00, 0xfe, 0xbe], "s_mov_b32 exec_lo, s0");
        let other = inst(&[0x00, 0x00, 0x81, 0xbe], "s_mov_b32 s1, s0");
        assert!(may_write_exec(&write) && !may_write_exec(&other));
        // 0 -> {4, 8}; 4 writes EXEC and goes to 8; 8 -> 12 (a loop on itself through 12).
        let g = graph(vec![
            (0, vec![other], Exit::Cond { cond: Cond::Scc0, taken: 8, fall: 4 }),
            (4, vec![write], Exit::Jump(8)),
            (8, vec![other], Exit::Jump(12)),
            (12, vec![], Exit::Cond { cond: Cond::Scc1, taken: 12, fall: 16 }),
            (16, vec![], Exit::End),
        ]);
        assert_eq!(full_on_entry(&g), [true, true, false, false, false]);
        // Without the write, the loop and everything after it keep EXEC full.
        let g = graph(vec![
            (0, vec![other], Exit::Cond { cond: Cond::Scc0, taken: 8, fall: 4 }),
            (4, vec![other], Exit::Jump(8)),
            (8, vec![other], Exit::Jump(12)),
            (12, vec![], Exit::Cond { cond: Cond::Scc1, taken: 12, fall: 16 }),
            (16, vec![], Exit::End),
        ]);
        assert_eq!(full_on_entry(&g), [true; 5]);
    }
}
