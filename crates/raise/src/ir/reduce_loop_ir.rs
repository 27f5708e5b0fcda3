//! The readlane reduction loop of LLVM's atomic optimizer (its iterative strategy), raised as
//! one reduction per source wave instead of a loop every thread of the target wave runs.
//!
//! clang compiles an atomic whose address is the same in every lane (`atomicMax(&x[0], v)`)
//! into a scalar loop that folds each active lane's value into one SGPR, then a single atomic
//! from one lane:
//!
//! ```text
//! L: s_ctz_i32_b32   sI, sM        ; the lowest lane left
//!    v_readlane_b32  sV, vX, sI    ; its value
//!    s_lshl_b32      sB, 1, sI
//!    s_max_i32       sA, sA, sV    ; (min, max, add, and, or, xor; signed or unsigned)
//!    s_and_not1_b32  sM, sM, sB    ; SCC = lanes left
//!    s_cbranch_scc1  L
//! ```
//!
//! Raised one instruction at a time, each thread of the target wave runs it with its own copy of
//! its source wave's SGPRs: a divergent loop of about 18 target instructions a round, where the
//! compiler's native wave64 build runs 6 (BENCHMARKS.md section 13 before this: hip/atomics
//! 2.1x, hip/cl_atomics 1.6x). The loop's result does not depend on the order the lanes are
//! taken in (the folds are associative and commutative on integers), so it is raised as a
//! butterfly within each source wave (five lane reads, both halves of the target wave at
//! once, no loop): hip/cl_atomics 0.76x and hip/atomics 1.6x (whose rest is a compare-and-swap
//! loop) of the native build's dynamic instructions. LLVM's own `llvm.amdgcn.wave.reduce.*`
//! was measured first: it runs the halves one after the other, each as a 6-instruction loop
//! over its lanes, which came out slower than the per-thread loop (hip/cl_atomics 1.78x).
//!
//! Every register the loop writes gets the value the loop leaves, so nothing after it needs to be
//! dead: sA the fold, sM zero, SCC clear, sI/sB/sV from the last round (the highest lane of
//! sM). With sM zero on entry the loop still runs once: s_ctz gives -1, and lane 31 (the low 5
//! bits) is read and folded; that case is raised exactly too.

use super::Raiser;
use crate::cfg::{Block, Cond, Exit};
use crate::RaiseError;
use hx_isa::{Instruction, Operand, Reg, RegClass, ValType};
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::IntPredicate;

/// The fold of one reduction loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    MaxI32,
    MinI32,
    MaxU32,
    MinU32,
    Add,
    And,
    Or,
    Xor,
}

impl Fold {
    fn of(mnemonic: &str) -> Option<Fold> {
        Some(match mnemonic {
            "s_max_i32" => Fold::MaxI32,
            "s_min_i32" => Fold::MinI32,
            "s_max_u32" => Fold::MaxU32,
            "s_min_u32" => Fold::MinU32,
            // Wrapping adds; their carry out (SCC) is overwritten by the s_and_not1.
            "s_add_co_i32" | "s_add_co_u32" | "s_add_u32" | "s_add_i32" => Fold::Add,
            "s_and_b32" => Fold::And,
            "s_or_b32" => Fold::Or,
            "s_xor_b32" => Fold::Xor,
            _ => return None,
        })
    }
}

/// A matched loop: its registers (all SGPRs but `x`) and fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReduceLoop {
    /// sM: the lanes left (read on entry, zero on exit).
    mask: Reg,
    /// sI: the lane taken.
    index: Reg,
    /// sV: its value.
    value: Reg,
    /// sB: its bit.
    bit: Reg,
    /// sA: the fold.
    acc: Reg,
    /// vX: the value folded.
    x: Reg,
    fold: Fold,
    /// Where the loop goes when it is done.
    exit: usize,
}

fn sgpr(inst: &Instruction, i: usize) -> Option<Reg> {
    match inst.operands().filter(|o| !super::is_modifier(&o.spec.kind)).nth(i)?.value {
        Operand::Reg(r) if r.class == RegClass::Sgpr && r.dwords <= 1 => Some(r),
        _ => None,
    }
}

fn same(a: Reg, b: Reg) -> bool {
    a.class == b.class && a.index == b.index
}

/// The loop of the module documentation, when `bl` is exactly it (scheduling-only
/// instructions such as s_delay_alu aside): a block that branches back to itself on SCC.
pub(crate) fn match_reduce_loop(bl: &Block) -> Option<ReduceLoop> {
    let Exit::Cond { cond: Cond::Scc1, taken, fall } = bl.exit else { return None };
    if taken != bl.start {
        return None;
    }
    let body: Vec<&Instruction> = bl
        .insts
        .iter()
        .filter(|i| !matches!(hx_sem::meaning(i), Some(hx_sem::Meaning::Other(hx_sem::meaning::Other::Schedule))))
        .collect();
    let [ctz, readlane, lshl, fold, andn, branch] = body.as_slice() else { return None };
    let names = [ctz, readlane, lshl, andn, branch].map(|i| i.mnemonic());
    if names != ["s_ctz_i32_b32", "v_readlane_b32", "s_lshl_b32", "s_and_not1_b32", "s_cbranch_scc1"] {
        return None;
    }
    let f = Fold::of(fold.mnemonic())?;
    let (index, mask) = (sgpr(ctz, 0)?, sgpr(ctz, 1)?);
    let value = sgpr(readlane, 0)?;
    let x = match readlane.operands().filter(|o| !super::is_modifier(&o.spec.kind)).nth(1)?.value {
        Operand::Reg(r) if r.class == RegClass::Vgpr && r.dwords <= 1 => r,
        _ => return None,
    };
    if !same(sgpr(readlane, 2)?, index) {
        return None;
    }
    // s_lshl_b32 sB, 1, sI
    let one = lshl.operands().filter(|o| !super::is_modifier(&o.spec.kind)).nth(1)?.value;
    if hx_sem::operands::constant_value(&one, ValType::B32) != Some(1) || !same(sgpr(lshl, 2)?, index) {
        return None;
    }
    let bit = sgpr(lshl, 0)?;
    // sA = fold(sA, sV) or fold(sV, sA)
    let acc = sgpr(fold, 0)?;
    let (a, b) = (sgpr(fold, 1)?, sgpr(fold, 2)?);
    if !((same(a, acc) && same(b, value)) || (same(a, value) && same(b, acc))) {
        return None;
    }
    // s_and_not1_b32 sM, sM, sB
    if !same(sgpr(andn, 0)?, mask) || !same(sgpr(andn, 1)?, mask) || !same(sgpr(andn, 2)?, bit) {
        return None;
    }
    // The fold must not touch the loop's own registers, nor sV be overwritten before the fold.
    let distinct = [mask, index, value, acc].iter().enumerate().all(|(i, r)| [mask, index, value, acc].iter().skip(i + 1).all(|s| !same(*r, *s)));
    if !distinct || same(bit, mask) || same(bit, value) || same(bit, acc) {
        return None;
    }
    Some(ReduceLoop { mask, index, value, bit, acc, x, fold: f, exit: fall })
}

impl ReduceLoop {
    /// The SGPR holding the lanes to fold (crate::structure checks it is a copy of EXEC).
    pub(crate) fn mask(&self) -> Reg {
        self.mask
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    /// Raises a matched loop (`first`: its first instruction, for error messages); the builder
    /// is left where the code after the loop goes (the caller branches to `rl.exit`).
    pub(crate) fn reduce_loop(&mut self, rl: &ReduceLoop, first: &Instruction) -> Result<usize, RaiseError> {
        let m0 = self.read_sreg(rl.mask, 1, first)?;
        let acc = self.read_sreg(rl.acc, 1, first)?;
        let x = self.read_vreg(rl.x, 1, first)?;
        // The fold of x over the lanes of sM, in every thread of the source wave: a butterfly
        // over the 32 lanes in five steps, both halves of the target wave at once. After step j
        // each lane of sM holds the fold over sM's lanes in its aligned group of 2^(j+1) lanes:
        // it folds in the partner group's, read from that group's lowest lane in sM, when the
        // partner group has one. Only lanes of sM are ever read, and every thread then takes the
        // whole fold from the lowest lane of sM: the loop reads the lanes of sM only, so this
        // reads no lane the loop would not.
        let i32t = self.ctx.i32_type();
        let no = self.ctx.bool_type().const_zero();
        let mut folded = x;
        for j in 0..5u32 {
            let size = 1u64 << j;
            let base = self.b.build_xor(self.lane, self.i32(size), "")?;
            let base = self.b.build_and(base, self.i32(!(size - 1) & 31), "")?;
            let lanes = self.b.build_right_shift(m0, base, false, "")?;
            let lanes = self.b.build_and(lanes, self.i32((1u64 << size) - 1), "")?;
            let any = self.b.build_int_compare(IntPredicate::NE, lanes, self.i32(0), "")?;
            let first = self.call("llvm.cttz", &[i32t.into()], &[lanes.into(), no.into()])?;
            let from = self.b.build_int_add(base, first, "")?;
            let from = self.b.build_and(from, self.i32(31), "")?;
            let theirs = self.read_lane(folded, from)?;
            let both = self.fold(rl.fold, folded, theirs)?;
            folded = self.b.build_select(any, both, folded, "")?.into_int_value();
        }
        let lowest = self.call("llvm.cttz", &[i32t.into()], &[m0.into(), no.into()])?;
        let lowest = self.b.build_and(lowest, self.i32(31), "")?;
        let folded = self.read_lane(folded, lowest)?;
        // The last round takes the highest lane of sM (lane 31 when sM is zero: s_ctz gives -1).
        let lz = self.call("llvm.ctlz", &[i32t.into()], &[m0.into(), no.into()])?;
        let highest = self.b.build_int_sub(self.i32(31), lz, "")?;
        let empty = self.b.build_int_compare(IntPredicate::EQ, m0, self.i32(0), "")?;
        let last = self.b.build_select(empty, self.i32(31), highest, "")?.into_int_value();
        let last_value = self.read_lane(x, last)?;
        let folded = self.b.build_select(empty, last_value, folded, "")?.into_int_value();
        let acc = self.fold(rl.fold, acc, folded)?;
        // The registers as the last round leaves them, in the loop's order of writes.
        let index = self.b.build_select(empty, self.i32(0xffff_ffff), last, "")?.into_int_value();
        self.write_sreg(rl.index, 1, index, first)?;
        self.write_sreg(rl.value, 1, last_value, first)?;
        let bit = self.b.build_left_shift(self.i32(1), last, "")?;
        self.write_sreg(rl.bit, 1, bit, first)?;
        self.write_sreg(rl.acc, 1, acc, first)?;
        self.write_sreg(rl.mask, 1, self.i32(0), first)?;
        self.b.build_store(self.scc, self.ctx.bool_type().const_zero())?;
        self.active_memo.set(None);
        Ok(rl.exit)
    }

    fn fold(&self, f: Fold, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let pick = |p: IntPredicate| -> Result<IntValue<'ctx>, RaiseError> {
            let c = self.b.build_int_compare(p, a, b, "")?;
            Ok(self.b.build_select(c, a, b, "")?.into_int_value())
        };
        Ok(match f {
            Fold::MaxI32 => pick(IntPredicate::SGT)?,
            Fold::MinI32 => pick(IntPredicate::SLT)?,
            Fold::MaxU32 => pick(IntPredicate::UGT)?,
            Fold::MinU32 => pick(IntPredicate::ULT)?,
            Fold::Add => self.b.build_int_add(a, b, "")?,
            Fold::And => self.b.build_and(a, b, "")?,
            Fold::Or => self.b.build_or(a, b, "")?,
            Fold::Xor => self.b.build_xor(a, b, "")?,
        })
    }
}
