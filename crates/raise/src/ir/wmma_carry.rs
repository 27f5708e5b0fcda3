//! gfx950: WMMA accumulators kept between WMMAs in the half form, across blocks too.
//!
//! A WMMA on gfx950's MFMAs (the Spread layout, crate::wmma_plan) moves its C from the WMMA
//! layout into the MFMA layout (permlane16 then permlane32 swaps) and its D back (permlane32
//! then permlane16), and makes any NaN of D the default NaN. In a K loop
//! (`c = wmma(a, b, c)` once per iteration, the accumulator carried round the loop in its
//! registers) those moves are half of each WMMA's lane swaps, and the NaN selects come on top.
//!
//! Here D is not written to its registers. It is kept as a *lazy chain* in the half form: the
//! MFMA layout after the permlane32 swap of the two source waves' results, i.e. the WMMA layout
//! before its permlane16 swap. The half form is an ordinary per-thread value: every lane holds
//! data of its own source wave only (lanes 0-31 wave 0's, 32-63 wave 1's), so it leaves the
//! whole-wave region through llvm.amdgcn.strict.wwm and enters the next one through
//! llvm.amdgcn.set.inactive like any register value, and nothing depends on the inactive
//! lanes of a value that lives outside whole-wave code. (The MFMA layout itself spreads each
//! source wave over all 64 lanes; a copy made under a partial EXEC would lose a wave's data,
//! which is why it is not what crosses ordinary code.)
//!
//! - A WMMA whose C is a lazy chain's D (same registers, same MFMA, same type) takes it with
//!   one permlane32 swap per dword pair instead of reading the registers.
//! - Only a WMMA whose chain something takes is lazy (the others write D at once, as
//!   wmma_mfma.rs does): a successor block, or a later WMMA of its block that the in-block
//!   chain of wmma_mfma.rs (the MFMA-layout values, kept only up to the next WMMA) does not
//!   reach. A chain written right after it was made costs an extra whole-wave region.
//! - The chain is *materialized* (permlane16 swap, default NaN, written to D's registers under
//!   the EXEC the WMMA ran with) before any instruction that names one of its registers,
//!   addresses VGPRs indirectly, writes EXEC, or leaves the kernel or function, and on any
//!   control-flow edge into a block that does not take it.
//! - Across blocks ([`carry_plan`]): a block whose first use of a chain is a WMMA taking it
//!   gets it from all its predecessors through a shadow alloca per dword (mem2reg makes the
//!   phis). A predecessor that holds the chain stores it; one that does not converts D's
//!   registers (one permlane16 swap per pair: the loop entry, once). An edge out of a block
//!   holding a chain into a block that does not take it materializes it on that edge only
//!   (an edge block), so a K loop's exit writes D once, after the loop.
//!
//! EXEC cannot change between a WMMA and its chain's materialization (an EXEC write
//! materializes first, and an edge does not change EXEC), so the write uses the same EXEC
//! as the WMMA's own would have.

use super::Raiser;
use crate::cfg::{Cfg, Exit};
use crate::wmma_plan::{Layout, MfmaPlan};
use crate::RaiseError;
use hx_isa::wmma::{Elem, Wmma};
use hx_isa::{Instruction, Operand, Reg, RegClass};
use hx_llvm::inkwell::basic_block::BasicBlock;
use hx_llvm::inkwell::values::{IntValue, PointerValue};
use hx_llvm::GpuTarget;
use std::collections::{HashMap, HashSet};

/// A WMMA D as a chain: its first VGPR and dwords, the MFMA it was computed with, its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct ChainKey {
    reg: u16,
    dwords: u8,
    mfma: &'static str,
    ty: Elem,
}

impl ChainKey {
    fn overlaps(&self, r: &Reg) -> bool {
        vgprs_overlap((self.reg, self.dwords), r)
    }
}

/// Whether `r` names one of the `n` VGPRs from `first`.
pub(super) fn vgprs_overlap((first, n): (u16, u8), r: &Reg) -> bool {
    if r.class != RegClass::Vgpr {
        return false;
    }
    let (a, b) = (r.index as u32, r.index as u32 + r.dwords.max(1) as u32);
    a < first as u32 + n as u32 && (first as u32) < b
}

/// A lazy chain: D's value in the half form (per wave index 0/1, four dwords each: the
/// permlane32 swap of the two waves' MFMA results), not yet in D's registers.
pub(super) struct LazyChain<'ctx> {
    pub(super) key: ChainKey,
    pub(super) half: [Vec<IntValue<'ctx>>; 2],
}

/// The MFMA plan of a WMMA that takes the lazy path: gfx950, a Spread layout, no scales, no
/// negated 8- or 4-bit A/B (those take other paths in `Raiser::wmma`).
pub(super) fn lazy_plan(inst: &Instruction, target: Option<GpuTarget>) -> Option<(Wmma, MfmaPlan)> {
    let t = target.filter(|t| *t == GpuTarget::Gfx950)?;
    let m = inst.wmma()?;
    if hx_sem::wmma::refusal(&m).is_some() || m.scales.is_some() || m.shape.d_dwords() != 8 {
        return None;
    }
    let int = m.shape.d == Elem::I32;
    let neg = inst.mods.neg;
    if !int && ((neg & 1 != 0 && m.a.bits() < 16) || (neg & 2 != 0 && m.b.bits() < 16)) {
        return None;
    }
    let plan = crate::wmma_plan::plan_for(&m, t)?;
    matches!(plan.layout, Layout::Spread { .. }).then_some((m, plan))
}

/// Operand `i` of `inst` where it is a VGPR tuple.
pub(super) fn vgpr_operand(inst: &Instruction, i: usize) -> Option<Reg> {
    match inst.operand(i).map(|o| o.value) {
        Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Some(r),
        _ => None,
    }
}

/// What an instruction does to the lazy chains `live`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Step {
    /// Indices into `live` of the chains to materialize (and drop) before it.
    pub(super) drop: Vec<usize>,
    /// A lazy WMMA: the index of the chain it takes as C, and the chain its D becomes.
    pub(super) take: Option<usize>,
    pub(super) make: Option<ChainKey>,
}

/// Everything a lazy chain must be materialized for: see the module comment.
fn needs_all(inst: &Instruction) -> bool {
    let m = inst.mnemonic();
    m.contains("rel") || m.contains("gpr_idx") || m.starts_with("s_endpgm") || m.starts_with("s_setpc") || m.starts_with("s_swappc") || m.starts_with("s_call") || crate::structure::writes_exec(inst)
}

pub(super) fn step(inst: &Instruction, target: Option<GpuTarget>, live: &[ChainKey], lazy: &HashSet<usize>) -> Step {
    if live.is_empty() && !lazy.contains(&inst.offset) {
        return Step::default();
    }
    if needs_all(inst) {
        return Step { drop: (0..live.len()).collect(), take: None, make: None };
    }
    let regs: Vec<Reg> = inst.operands().filter_map(|o| match o.value {
        Operand::Reg(r) if r.class == RegClass::Vgpr => Some(r),
        _ => None,
    }).collect();
    let Some((m, plan)) = lazy_plan(inst, target) else {
        let drop = live.iter().enumerate().filter(|(_, k)| regs.iter().any(|r| k.overlaps(r))).map(|(i, _)| i).collect();
        return Step { drop, take: None, make: None };
    };
    let s = m.shape;
    let c = vgpr_operand(inst, 3).map(|r| ChainKey { reg: r.index, dwords: s.c_dwords() as u8, mfma: plan.mnemonic, ty: s.c });
    let (a, b) = (vgpr_operand(inst, 1), vgpr_operand(inst, 2));
    // The C chain is taken unless A or B reads its registers.
    let take = c.and_then(|c| live.iter().position(|k| *k == c)).filter(|&i| ![a, b].iter().flatten().any(|r| live[i].overlaps(r)));
    let drop = live.iter().enumerate().filter(|&(i, k)| Some(i) != take && regs.iter().any(|r| k.overlaps(r))).map(|(i, _)| i).collect();
    let make = if lazy.contains(&inst.offset) { d_key(inst, &s, &plan) } else { None };
    Step { drop, take, make }
}

/// The chain a lazy WMMA's D becomes.
pub(super) fn d_key(inst: &Instruction, s: &hx_isa::wmma::Shape, plan: &MfmaPlan) -> Option<ChainKey> {
    vgpr_operand(inst, 0).map(|d| ChainKey { reg: d.index, dwords: s.d_dwords() as u8, mfma: plan.mnemonic, ty: s.d })
}

/// Runs `insts` from the chains `live`; returns the chains live at the end, each with the
/// offset of the WMMA that made it (None: carried in). `taken` gets the offset of every
/// chain a WMMA takes where the raiser's in-block chain (wmma_mfma.rs `WmmaChain`, which
/// keeps the MFMA layout and costs no lane swaps) would not reach: another WMMA or an
/// `s_set_vgpr_msb` comes between.
fn transfer(insts: &[Instruction], target: Option<GpuTarget>, lazy: &HashSet<usize>, live: Vec<ChainKey>, taken: &mut HashSet<usize>) -> Vec<(ChainKey, Option<usize>)> {
    // (key, maker, whether the in-block chain is lost)
    let mut live: Vec<(ChainKey, Option<usize>, bool)> = live.into_iter().map(|k| (k, None, true)).collect();
    for inst in insts {
        let keys: Vec<ChainKey> = live.iter().map(|l| l.0).collect();
        let st = step(inst, target, &keys, lazy);
        if let Some((_, Some(o), true)) = st.take.map(|i| live[i]) {
            taken.insert(o);
        }
        let mut gone: Vec<usize> = st.drop.iter().copied().chain(st.take).collect();
        gone.sort_unstable();
        for i in gone.into_iter().rev() {
            live.remove(i);
        }
        if inst.wmma().is_some() || inst.mnemonic().contains("vgpr_msb") {
            for l in &mut live {
                l.2 = true;
            }
        }
        if let Some(k) = st.make {
            live.push((k, Some(inst.offset), false));
        }
    }
    live.into_iter().map(|(k, at, _)| (k, at)).collect()
}

/// What a block entered with chain `k` does with it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstUse {
    /// A WMMA takes it.
    Take,
    /// Something needs it in its registers (or a WMMA overwrites them).
    Drop,
    /// Nothing: it leaves the block as it came.
    Pass,
}

fn first_use(insts: &[Instruction], target: Option<GpuTarget>, lazy: &HashSet<usize>, k: ChainKey) -> FirstUse {
    let live = vec![k];
    for inst in insts {
        let st = step(inst, target, &live, lazy);
        if st.take.is_some() {
            return FirstUse::Take;
        }
        if !st.drop.is_empty() || st.make.is_some_and(|m| m == k) {
            return FirstUse::Drop;
        }
    }
    FirstUse::Pass
}

/// The most instruction steps [`carry_plan`] simulates (times the chains in flight) before it
/// gives up and plans no lazy chains: real kernels need a few passes over their code.
const CARRY_PLAN_WORK: usize = 5_000_000;

/// Which WMMAs keep their D as a lazy chain, and which chains each block takes from its
/// predecessors (by block start).
#[derive(Debug, Default)]
pub(super) struct CarryPlan {
    pub(super) lazy: HashSet<usize>,
    pub(super) carry_in: HashMap<usize, Vec<ChainKey>>,
}

/// The [`CarryPlan`] (module comment). A WMMA is lazy only where its chain is taken: by a
/// successor, or by a later WMMA of its block that the in-block chain does not reach (a chain
/// written at once gains nothing and costs a second whole-wave region; flash_attn_fwd_w4's
/// dynamic count went from 1.46 to 1.53 of the native with every WMMA lazy).
/// - `plain[i]`: block i ends in an ordinary branch or fall-through that the raiser builds
///   with `Raiser::exit` (not a recovered region's head, a reduction loop, a call or a return);
/// - `entries`: blocks that take no chains: entered other than by such an edge (the kernel
///   entry, functions, return sites) or raised as a whole (a reduction loop).
pub(super) fn carry_plan(graph: &Cfg, target: Option<GpuTarget>, plain: &[bool], entries: &HashSet<usize>) -> CarryPlan {
    let n = graph.blocks.len();
    let mut lazy: HashSet<usize> = graph.blocks.iter().flat_map(|b| b.insts.iter()).filter(|i| lazy_plan(i, target).is_some()).map(|i| i.offset).collect();
    if lazy.is_empty() {
        return CarryPlan::default();
    }
    let index: HashMap<usize, usize> = graph.blocks.iter().enumerate().map(|(i, b)| (b.start, i)).collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for s in graph.successors(i) {
            if let Some(&j) = index.get(&s) {
                if !preds[j].contains(&i) {
                    preds[j].push(i);
                }
            }
        }
    }
    let eligible: Vec<bool> = (0..n).map(|j| !entries.contains(&graph.blocks[j].start) && !preds[j].is_empty() && preds[j].iter().all(|&p| plain[p])).collect();
    // Outer: ban the carries that no WMMA ends up taking (a chain passed through a block only
    // to be written to its registers later costs more than writing it at once), and drop the
    // lazy WMMAs whose chains nothing takes (fewer chains: the carries can only shrink).
    // Inner: the carries for a lazy set and the bans (monotone: a block carries more only
    // when its predecessors hold more). The bounds only guard against a mistake.
    //
    // Work is bounded by instructions simulated (a few steps of the whole kernel for real
    // ones); past the bound every WMMA writes its D at once, which is always correct.
    let total: usize = graph.blocks.iter().map(|b| b.insts.len()).sum();
    let mut work = 0usize;
    let mut banned: HashSet<(usize, ChainKey)> = HashSet::new();
    for _ in 0..4 * n * (lazy.len() + 1) + 4 {
        let mut carry: Vec<Vec<ChainKey>> = vec![Vec::new(); n];
        for _ in 0..4 * n + 4 {
            work += total * (1 + carry.iter().map(Vec::len).max().unwrap_or(0));
            if work > CARRY_PLAN_WORK {
                return CarryPlan::default();
            }
            let mut scratch = HashSet::new();
            let out: Vec<Vec<ChainKey>> = (0..n).map(|i| transfer(&graph.blocks[i].insts, target, &lazy, carry[i].clone(), &mut scratch).into_iter().map(|l| l.0).collect()).collect();
            let mut changed = false;
            for j in 0..n {
                if !eligible[j] {
                    continue;
                }
                let mut next: Vec<ChainKey> = Vec::new();
                for &p in &preds[j] {
                    work += out[p].len() * graph.blocks[j].insts.len();
                    for k in &out[p] {
                        let clash = next.iter().any(|o| o.overlaps(&Reg { class: RegClass::Vgpr, index: k.reg, dwords: k.dwords }));
                        if !clash && !banned.contains(&(j, *k)) && first_use(&graph.blocks[j].insts, target, &lazy, *k) != FirstUse::Drop {
                            next.push(*k);
                        }
                    }
                }
                if next != carry[j] {
                    carry[j] = next;
                    changed = true;
                }
            }
            if !changed || work > CARRY_PLAN_WORK {
                break;
            }
        }
        if work > CARRY_PLAN_WORK {
            return CarryPlan::default();
        }
        // A carry is useful where the block takes it, or passes it on to a successor where
        // it is useful.
        let mut useful: HashSet<(usize, ChainKey)> = HashSet::new();
        let mut pass: Vec<(usize, ChainKey)> = Vec::new();
        for (j, keys) in carry.iter().enumerate() {
            work += keys.len() * graph.blocks[j].insts.len();
            for &k in keys {
                match first_use(&graph.blocks[j].insts, target, &lazy, k) {
                    FirstUse::Take => {
                        useful.insert((j, k));
                    }
                    _ => pass.push((j, k)),
                }
            }
        }
        loop {
            let before = useful.len();
            for &(j, k) in &pass {
                if !useful.contains(&(j, k)) && graph.successors(j).iter().any(|s| index.get(s).is_some_and(|&t| useful.contains(&(t, k)))) {
                    useful.insert((j, k));
                }
            }
            if useful.len() == before {
                break;
            }
        }
        let useless: Vec<(usize, ChainKey)> = pass.into_iter().filter(|p| !useful.contains(p)).collect();
        if !useless.is_empty() {
            banned.extend(useless);
            continue;
        }
        // The lazy WMMAs whose chains are taken in their block, or carried on round a loop
        // (a back edge) or into every successor: an edge into a block that does not take
        // the chain writes it there, which costs more than writing it at once unless that
        // edge is the colder one (a loop's exit).
        let mut used = HashSet::new();
        for i in 0..n {
            let live = transfer(&graph.blocks[i].insts, target, &lazy, carry[i].clone(), &mut used);
            let succs: Vec<usize> = graph.successors(i).iter().filter_map(|s| index.get(s).copied()).collect();
            for (k, at) in live {
                let takes = |j: usize| carry[j].contains(&k);
                let back = succs.iter().any(|&j| takes(j) && graph.blocks[j].start <= graph.blocks[i].start);
                let carried = back || (!succs.is_empty() && succs.iter().all(|&j| takes(j)));
                if let (Some(o), true) = (at, carried) {
                    used.insert(o);
                }
            }
        }
        if used.len() == lazy.len() {
            let carry_in = graph.blocks.iter().enumerate().filter(|(i, _)| !carry[*i].is_empty()).map(|(i, b)| (b.start, carry[i].clone())).collect();
            return CarryPlan { lazy, carry_in };
        }
        lazy.retain(|o| used.contains(o));
    }
    CarryPlan::default()
}

/// Whether the raiser builds block `b`'s exit with `Raiser::exit` (a plain branch).
pub(super) fn plain_exit(b: &crate::cfg::Block) -> bool {
    matches!(b.exit, Exit::Fall(_) | Exit::Jump(_) | Exit::Cond { .. })
}

impl<'ctx> Raiser<'ctx, '_> {
    /// The shadow allocas of chain `k` (eight dwords, half form), made on first use.
    fn shadow(&self, k: ChainKey) -> Result<Vec<PointerValue<'ctx>>, RaiseError> {
        if let Some(p) = self.carry_shadows.borrow().get(&k) {
            return Ok(p.clone());
        }
        let i32t = self.ctx.i32_type();
        let p = (0..8).map(|i| self.regs_b.build_alloca(i32t, &format!("chain{}_{i}", k.reg))).collect::<Result<Vec<_>, _>>()?;
        self.carry_shadows.borrow_mut().insert(k, p.clone());
        Ok(p)
    }

    /// At a block start: the chains the block takes, from their shadows.
    pub(super) fn enter_block_chains(&self, start: usize) -> Result<(), RaiseError> {
        let keys = self.carry.carry_in.get(&start).cloned().unwrap_or_default();
        let mut live = Vec::with_capacity(keys.len());
        for k in keys {
            let p = self.shadow(k)?;
            let v = p.iter().map(|&s| self.load(s)).collect::<Result<Vec<_>, _>>()?;
            live.push(LazyChain { key: k, half: [v[..4].to_vec(), v[4..].to_vec()] });
        }
        self.lazy_chains.replace(live);
        Ok(())
    }

    /// Before `inst`: materializes the chains it needs in their registers; returns the chain
    /// a lazy WMMA takes as C.
    pub(super) fn chains_before(&self, inst: &Instruction) -> Result<Option<LazyChain<'ctx>>, RaiseError> {
        let keys: Vec<ChainKey> = self.lazy_chains.borrow().iter().map(|c| c.key).collect();
        let st = step(inst, self.mfma_target, &keys, &self.carry.lazy);
        if st.drop.is_empty() && st.take.is_none() {
            return Ok(None);
        }
        let mut live = self.lazy_chains.take();
        let mut taken = None;
        let mut gone: Vec<usize> = st.drop.iter().copied().chain(st.take).collect();
        gone.sort_unstable();
        for i in gone.into_iter().rev() {
            let ch = live.remove(i);
            if Some(i) == st.take {
                taken = Some(ch);
            } else {
                self.materialize(&ch, inst)?;
            }
        }
        self.lazy_chains.replace(live);
        Ok(taken)
    }

    /// Writes every lazy chain to its registers (before an exit the raiser builds itself).
    pub(super) fn materialize_all(&self, inst: &Instruction) -> Result<(), RaiseError> {
        for ch in self.lazy_chains.take() {
            self.materialize(&ch, inst)?;
        }
        Ok(())
    }

    /// A chain into D's registers: the permlane16 swap of each half-form pair gives WMMA
    /// dwords r and r + 4; f32 NaNs become the default NaN (as the emulator's WMMA gives them).
    fn materialize(&self, ch: &LazyChain<'ctx>, inst: &Instruction) -> Result<(), RaiseError> {
        let active = self.active()?;
        let [lo, hi] = self.swap_pairs(true, &ch.half[0], &ch.half[1], true, true)?;
        for (j, mut v) in lo.into_iter().chain(hi).enumerate() {
            if ch.key.ty == Elem::F32 {
                v = self.default_nan(v)?;
            }
            let reg = Reg { class: RegClass::Vgpr, index: ch.key.reg + j as u16, dwords: 1 };
            self.write_vreg(reg, 1, v, active, inst)?;
        }
        Ok(())
    }

    /// The lane swaps (permlane16 or, `!rows16`, permlane32) of the pairs (x[r], y[r]), as
    /// [x'0.., y'0..]: with `enter` the values enter the whole-wave region first, with `leave`
    /// they leave it after, each all before the first swap or after the last (interleaved,
    /// every swap became a whole-wave region of its own). Half form to and from WMMA dwords
    /// (permlane16) and MFMA dwords (permlane32).
    pub(super) fn swap_pairs(&self, rows16: bool, x: &[IntValue<'ctx>], y: &[IntValue<'ctx>], enter: bool, leave: bool) -> Result<[Vec<IntValue<'ctx>>; 2], RaiseError> {
        let i32t = self.ctx.i32_type();
        let enter_all = |v: &[IntValue<'ctx>]| -> Result<Vec<IntValue<'ctx>>, RaiseError> { if enter { v.iter().map(|&v| self.set_inactive(v)).collect() } else { Ok(v.to_vec()) } };
        let (xs, ys) = (enter_all(x)?, enter_all(y)?);
        let swapped = xs.into_iter().zip(ys).map(|(a, b)| self.permlane_swap(rows16, a, b)).collect::<Result<Vec<_>, _>>()?;
        let leave_one = |v: IntValue<'ctx>| if leave { self.call("llvm.amdgcn.strict.wwm", &[i32t.into()], &[v.into()]) } else { Ok(v) };
        Ok([swapped.iter().map(|p| leave_one(p.0)).collect::<Result<_, _>>()?, swapped.iter().map(|p| leave_one(p.1)).collect::<Result<_, _>>()?])
    }

    /// Chain `k` in the half form from D's registers (a block that takes it entered from one
    /// that does not hold it).
    fn chain_from_registers(&self, k: ChainKey, inst: &Instruction) -> Result<[Vec<IntValue<'ctx>>; 2], RaiseError> {
        let regs = self.wmma_regs(inst, Reg { class: RegClass::Vgpr, index: k.reg, dwords: k.dwords }, 8)?;
        self.swap_pairs(true, &regs[..4], &regs[4..], true, true)
    }

    /// Before the branch of a plain block (ending with `inst`): per successor, the chains it
    /// does not take are materialized and the ones it takes stored to their shadows, on the
    /// edge to it when the successors differ. Returns the blocks to branch to instead of the
    /// successors' own (edge blocks), by successor start.
    pub(super) fn leave_block_chains(&self, succs: &[usize], inst: &Instruction) -> Result<HashMap<usize, BasicBlock<'ctx>>, RaiseError> {
        let live = self.lazy_chains.take();
        let mut succs: Vec<usize> = succs.to_vec();
        succs.dedup();
        let wants = |s: usize| self.carry.carry_in.get(&s).cloned().unwrap_or_default();
        let work = |s: usize| !live.is_empty() || !wants(s).is_empty();
        let mut edges = HashMap::new();
        if !succs.iter().any(|&s| work(s)) {
            return Ok(edges);
        }
        let same = succs.windows(2).all(|w| wants(w[0]) == wants(w[1]));
        let here = self.current_block()?;
        for (n, &s) in succs.iter().enumerate() {
            if same && n > 0 {
                break;
            }
            if !same {
                let e = self.ctx.append_basic_block(self.func, &format!("chain_edge_{s:x}"));
                self.b.position_at_end(e);
                edges.insert(s, e);
            }
            let want = wants(s);
            // Materialize first: a chain taken from the registers may read what it writes.
            for ch in &live {
                if !want.contains(&ch.key) {
                    self.materialize(ch, inst)?;
                }
            }
            for k in want {
                let half = match live.iter().find(|c| c.key == k) {
                    Some(ch) => ch.half.clone(),
                    None => self.chain_from_registers(k, inst)?,
                };
                for (p, v) in self.shadow(k)?.into_iter().zip(half[0].iter().chain(half[1].iter())) {
                    self.b.build_store(p, *v)?;
                }
            }
            if !same {
                self.b.build_unconditional_branch(self.blocks[&s])?;
            }
        }
        if !same {
            self.b.position_at_end(here);
        }
        Ok(edges)
    }
}
