//! Huge kernels lowered as a kernel that calls its parts (a step of hx-lower's lowering; issue 29).
//!
//! Several of LLVM's passes cost more than the code they work on when a function has very many
//! blocks: StructurizeCFG updates SSA for each if-region with an iterated dominance frontier that
//! walks the whole dominator subtree below the region (in a chain of n ifs, the rest of the
//! function: n^2/2 block visits), and GVN's non-local dependencies and the machine passes'
//! liveness grow the same way. Debian's `llc-22` itself takes 1 s for 2,000 divergent ifs and
//! 36 s for 10,000; the same ifs in functions of 500 take 0.5 s and 2.7 s, each pass then working
//! on one bounded function at a time.
//!
//! So a kernel of more than [`MIN_BLOCKS`] blocks is cut, once its registers are SSA values
//! (after SROA), into a first part that stays in the kernel and further parts of about
//! [`PART_BLOCKS`] blocks, each an internal `noinline` function that the kernel calls in turn.
//! A cut is a block that every path to the kernel's end goes through and that no edge from
//! below it jumps back over. What crosses a cut:
//! - values that are the same wherever they are computed: recomputed in the part. These are
//!   expressions of constants, the kernel's arguments, work-item/work-group IDs, `mbcnt`, the
//!   dispatch and kernarg pointers, loads wholly inside the (read-only) kernarg segment and the
//!   ballot of `true` (EXEC at the calls, which the kernel makes where every thread that started
//!   is running: parts end before any return);
//! - the kernel's arguments and LDS variables: `inreg` (uniform) arguments;
//! - allocas that SROA left (the source's private segment): their address, as an argument;
//! - every other value: through a state array of i64 slots in the kernel's private memory. The
//!   part (or the kernel) that defines a value stores it on its way out; a part that uses it
//!   loads it on entry. A phi at a cut becomes a phi at the end of the part before.
//!
//! What it costs a huge kernel: a call per part, the slot copies, and the uniformity of values
//! that cross through memory (a part sees them as per-lane values). Normal kernels (the corpus'
//! biggest has 654 blocks) are far below the bound and lower as before.

use crate::ir_walk::{blocks, instructions, opcode, value_name};
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMGetModuleDataLayout, LLVMStoreSizeOfType};
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// Kernels with more basic blocks than this are split.
pub const MIN_BLOCKS: usize = 2000;

/// About how many blocks go into each part.
pub const PART_BLOCKS: usize = 500;

/// Kernels with more instructions than this (as raised) are split too: straight-line code has
/// few blocks, and LLVM's hash tables and analyses grow faster than one huge block (llc-22 takes
/// 21 s for a chain of 60,000 FMAs in one function, 2.2 s in ten).
pub const MIN_INSTRUCTIONS: usize = 100_000;

/// About how many instructions (after [`BEFORE_SPLIT`]) go into each part; blocks longer than a
/// fifth of this are first cut into pieces of that length (a block's head moves into a new block
/// that branches to the rest), so that a part can end inside what was one block.
pub const PART_INSTRUCTIONS: usize = 10_000;

/// The calling convention of `amdgpu_kernel` functions.
const AMDGPU_KERNEL: u32 = 91;

/// What runs before a split: the registers become SSA values, and kernel-argument loads
/// become loads from the kernarg segment (which parts recompute).
pub const BEFORE_SPLIT: &str = "function(simplifycfg,sroa<modify-cfg>);hx-lane-bits;function(early-cse,instcombine<no-verify-fixpoint>);hx-kernarg-loads";

/// The kernels of `module` with more than `min_blocks` blocks or `min_instructions` instructions
/// (as raised: the decision is made before [`BEFORE_SPLIT`] merges blocks).
pub fn big_kernels(module: &Module<'_>, min_blocks: usize, min_instructions: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.get_call_conventions() == AMDGPU_KERNEL {
            let blocks = func.get_basic_block_iter().count();
            if blocks > min_blocks || crate::more_instructions_than(func, min_instructions) {
                out.push(func.get_name().to_string_lossy().into_owned());
            }
        }
        f = func.get_next_function();
    }
    out
}

/// Splits the kernels `kernels` of `module` into parts of about `part_blocks` blocks; returns how
/// many parts it made (0: the module is unchanged). The kernels' registers should be SSA values
/// ([`BEFORE_SPLIT`]); allocas are passed by address.
pub fn split(module: &Module<'_>, kernels: &[String], part_blocks: usize, part_instructions: usize) -> usize {
    let mut n = 0;
    for name in kernels {
        let Some(func) = module.get_function(name) else { continue };
        // SAFETY: `func` belongs to `module`, which outlives this call; the split only moves the
        // function's blocks and instructions into new blocks and functions of the same module
        // and rewrites their operands.
        n += unsafe {
            let piece = (part_instructions / 5).max(16);
            cut_long_blocks(module.as_mut_ptr(), func.as_value_ref(), piece);
            split_function(module.as_mut_ptr(), func.as_value_ref(), part_blocks.max(1), part_instructions.max(1))
        };
    }
    n
}

/// Points every edge from the blocks `from` into `old` at `new` instead.
unsafe fn redirect_edges(from: impl IntoIterator<Item = LLVMBasicBlockRef>, old: LLVMBasicBlockRef, new: LLVMBasicBlockRef) {
    for bb in from {
        let term = LLVMGetBasicBlockTerminator(bb);
        if term.is_null() {
            continue;
        }
        for s in 0..LLVMGetNumSuccessors(term) {
            if LLVMGetSuccessor(term, s) == old {
                LLVMSetSuccessor(term, s, new);
            }
        }
    }
}

/// Cuts every block of `func` longer than twice `piece` instructions into pieces of about
/// `piece`: each time, the block's first `piece` instructions (its phis and, in the entry block,
/// its allocas at least) move into a new block before it that branches to the rest, and the
/// block's predecessors branch to the new block. The rest keeps the terminator, so successors'
/// phis need no change.
unsafe fn cut_long_blocks(module: LLVMModuleRef, func: LLVMValueRef, piece: usize) {
    let ctx = LLVMGetModuleContext(module);
    let long: Vec<LLVMBasicBlockRef> = blocks(func).into_iter().filter(|&bb| instructions(bb).len() > 2 * piece).collect();
    if long.is_empty() {
        return;
    }
    let b = LLVMCreateBuilderInContext(ctx);
    for bb in long {
        loop {
            let insts = instructions(bb);
            if insts.len() <= 2 * piece {
                break;
            }
            let entry = LLVMGetEntryBasicBlock(func) == bb;
            // Phis stay together, and an entry block's allocas stay in the entry block.
            let keep = insts
                .iter()
                .rposition(|&i| opcode(i) == Some(LLVMOpcode::LLVMPHI) || (entry && opcode(i) == Some(LLVMOpcode::LLVMAlloca)))
                .map_or(0, |k| k + 1);
            let take = piece.max(keep);
            if take + 1 >= insts.len() {
                break;
            }
            // The predecessors branch to the head (before the head has its own branch to bb).
            let head = LLVMInsertBasicBlockInContext(ctx, bb, c"".as_ptr());
            redirect_edges(blocks(func), bb, head);
            LLVMPositionBuilderAtEnd(b, head);
            for &i in &insts[..take] {
                LLVMInstructionRemoveFromParent(i);
                LLVMInsertIntoBuilder(b, i);
            }
            LLVMBuildBr(b, bb);
        }
    }
    LLVMDisposeBuilder(b);
}

type Key = usize;

fn key<T>(p: *mut T) -> Key {
    p as Key
}

/// A phi at a part's way out, made for a phi at the next part's cut: its incoming values and
/// blocks are those the cut's phi had from this part, and it fills the cut phi's slot.
struct ExitPhi {
    copy: LLVMValueRef,
    incoming: Vec<(LLVMValueRef, LLVMBasicBlockRef)>,
    slot: usize,
}

/// How a value crosses into a part.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Crossing {
    /// Through slot `usize` of the state array.
    Slot(usize),
    /// Parameter `usize` of every part (after the state pointer).
    Param(usize),
    /// Recomputed in the part.
    Clone,
}

/// The kernel's CFG with its dominator tree, as far as the split needs it.
struct Graph {
    blocks: Vec<LLVMBasicBlockRef>,
    index: HashMap<Key, usize>,
    sink: Vec<bool>,
    succ: Vec<Vec<usize>>,
    rpo: Vec<usize>,
    idom: Vec<usize>,
}

/// A block that ends in `unreachable` and reads nothing but constants (the raiser's trap
/// block): each part that branches to one gets its own copy.
unsafe fn is_sink(bb: LLVMBasicBlockRef) -> bool {
    let term = LLVMGetBasicBlockTerminator(bb);
    if term.is_null() || opcode(term) != Some(LLVMOpcode::LLVMUnreachable) {
        return false;
    }
    instructions(bb).into_iter().all(|i| (0..LLVMGetNumOperands(i).max(0) as u32).all(|j| !LLVMIsAConstant(LLVMGetOperand(i, j)).is_null()))
}

impl Graph {
    unsafe fn of(func: LLVMValueRef) -> Option<Graph> {
        let blocks = blocks(func);
        let index: HashMap<Key, usize> = blocks.iter().enumerate().map(|(i, &b)| (key(b), i)).collect();
        let sink: Vec<bool> = blocks.iter().map(|&b| is_sink(b)).collect();
        let mut succ = vec![Vec::new(); blocks.len()];
        for (i, &b) in blocks.iter().enumerate() {
            let term = LLVMGetBasicBlockTerminator(b);
            if term.is_null() {
                return None;
            }
            for s in 0..LLVMGetNumSuccessors(term) {
                let t = *index.get(&key(LLVMGetSuccessor(term, s)))?;
                if !sink[t] {
                    succ[i].push(t);
                }
            }
        }
        // Reverse post-order from the entry (iterative DFS).
        let n = blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = succ[b].get(*next) {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        // A block no path reaches (other than a sink) would belong to no part.
        if (0..n).any(|b| !seen[b] && !sink[b]) {
            return None;
        }
        post.reverse();
        let rpo = post;
        let mut order = vec![usize::MAX; n];
        for (k, &b) in rpo.iter().enumerate() {
            order[b] = k;
        }
        let mut preds = vec![Vec::new(); n];
        for b in 0..n {
            for &s in &succ[b] {
                preds[s].push(b);
            }
        }
        // Cooper, Harvey and Kennedy's iterative dominators.
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while order[a] > order[b] {
                    a = idom[a];
                }
                while order[b] > order[a] {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX { p } else { intersect(&idom, p, new) };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Some(Graph { blocks, index, sink, succ, rpo, idom })
    }

    fn ncd(&self, mut a: usize, mut b: usize, depth: &[usize]) -> usize {
        while depth[a] > depth[b] {
            a = self.idom[a];
        }
        while depth[b] > depth[a] {
            b = self.idom[b];
        }
        while a != b {
            a = self.idom[a];
            b = self.idom[b];
        }
        a
    }
}

/// Intrinsics whose value is the same at the kernel's start and at its calls of the parts.
const CLONABLE_INTRINSICS: &[&str] = &[
    "llvm.amdgcn.mbcnt.lo",
    "llvm.amdgcn.mbcnt.hi",
    "llvm.amdgcn.workitem.id.x",
    "llvm.amdgcn.workitem.id.y",
    "llvm.amdgcn.workitem.id.z",
    "llvm.amdgcn.workgroup.id.x",
    "llvm.amdgcn.workgroup.id.y",
    "llvm.amdgcn.workgroup.id.z",
    "llvm.amdgcn.dispatch.ptr",
    "llvm.amdgcn.queue.ptr",
    "llvm.amdgcn.kernarg.segment.ptr",
    "llvm.amdgcn.implicitarg.ptr",
    "llvm.amdgcn.dispatch.id",
    "llvm.amdgcn.ballot.i32",
    "llvm.amdgcn.ballot.i64",
];

/// What decides whether a value may be recomputed in a part.
struct Clonable {
    memo: HashMap<Key, bool>,
    /// The kernel's kernarg argument (addrspace 4) and its segment's size.
    kernarg: Option<(LLVMValueRef, u64)>,
    layout: llvm_sys::target::LLVMTargetDataRef,
}

impl Clonable {
    /// Whether `v` (an instruction of the kernel) can be recomputed in a part: an expression of
    /// constants, kernel arguments, [`CLONABLE_INTRINSICS`] (the ballot of `true` only) and
    /// loads wholly inside the kernarg segment.
    unsafe fn check(&mut self, v: LLVMValueRef) -> bool {
        if let Some(&c) = self.memo.get(&key(v)) {
            return c;
        }
        // (Expressions are short; a cycle only goes through phis, which are not clonable.)
        self.memo.insert(key(v), false);
        let ok = match opcode(v) {
            Some(LLVMOpcode::LLVMCall) => {
                let callee = LLVMGetCalledValue(v);
                let name = value_name(callee);
                !LLVMIsAFunction(callee).is_null()
                    && CLONABLE_INTRINSICS.contains(&name.as_str())
                    && if name.starts_with("llvm.amdgcn.ballot.") {
                        let a = LLVMGetOperand(v, 0);
                        !LLVMIsAConstantInt(a).is_null() && LLVMConstIntGetZExtValue(a) == 1
                    } else {
                        self.operands(v, LLVMGetNumArgOperands(v))
                    }
            }
            Some(LLVMOpcode::LLVMLoad) => self.kernarg_load(v),
            Some(
                LLVMOpcode::LLVMAdd
                | LLVMOpcode::LLVMSub
                | LLVMOpcode::LLVMMul
                | LLVMOpcode::LLVMAnd
                | LLVMOpcode::LLVMOr
                | LLVMOpcode::LLVMXor
                | LLVMOpcode::LLVMShl
                | LLVMOpcode::LLVMLShr
                | LLVMOpcode::LLVMAShr
                | LLVMOpcode::LLVMZExt
                | LLVMOpcode::LLVMSExt
                | LLVMOpcode::LLVMTrunc
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMPtrToInt
                | LLVMOpcode::LLVMIntToPtr
                | LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMICmp
                | LLVMOpcode::LLVMSelect,
            ) => self.operands(v, LLVMGetNumOperands(v) as u32),
            _ => false,
        };
        self.memo.insert(key(v), ok);
        ok
    }

    unsafe fn operands(&mut self, v: LLVMValueRef, n: u32) -> bool {
        (0..n).all(|j| {
            let op = LLVMGetOperand(v, j);
            if !LLVMIsAArgument(op).is_null() {
                true
            } else if !LLVMIsAInstruction(op).is_null() {
                self.check(op)
            } else {
                !LLVMIsAConstant(op).is_null() && !refers_to_lds(op)
            }
        })
    }

    /// A plain load of `getelementptr i8, %kernarg, C` (or of %kernarg) that lies wholly inside
    /// the kernarg segment, which the kernel cannot change (what hx-kernarg-loads makes).
    unsafe fn kernarg_load(&self, v: LLVMValueRef) -> bool {
        let Some((arg, size)) = self.kernarg else { return false };
        if LLVMGetVolatile(v) != 0 || LLVMGetOrdering(v) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic {
            return false;
        }
        let p = LLVMGetOperand(v, 0);
        let off = if p == arg {
            0
        } else if opcode(p) == Some(LLVMOpcode::LLVMGetElementPtr) && LLVMGetNumOperands(p) == 2 && LLVMGetOperand(p, 0) == arg {
            let ty = LLVMGetGEPSourceElementType(p);
            let k = LLVMGetOperand(p, 1);
            if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMIntegerTypeKind || LLVMGetIntTypeWidth(ty) != 8 || LLVMIsAConstantInt(k).is_null() {
                return false;
            }
            LLVMConstIntGetSExtValue(k)
        } else {
            return false;
        };
        let len = LLVMStoreSizeOfType(self.layout, LLVMTypeOf(v));
        off >= 0 && (off as u64).checked_add(len).is_some_and(|end| end <= size)
    }
}

/// Whether constant `c` is or contains the address of an LDS (address space 3) global.
unsafe fn refers_to_lds(c: LLVMValueRef) -> bool {
    if !LLVMIsAGlobalValue(c).is_null() {
        return LLVMGetPointerAddressSpace(LLVMTypeOf(c)) == 3 && LLVMIsAFunction(c).is_null();
    }
    if LLVMIsAConstantExpr(c).is_null() {
        return false;
    }
    (0..LLVMGetNumOperands(c).max(0) as u32).any(|j| refers_to_lds(LLVMGetOperand(c, j)))
}

/// The LDS globals constant `c` refers to, and whether each constant expression on the way is
/// one [`rebuild`] can make as instructions.
unsafe fn lds_globals(c: LLVMValueRef, out: &mut Vec<LLVMValueRef>) -> bool {
    if !LLVMIsAGlobalValue(c).is_null() {
        if LLVMGetPointerAddressSpace(LLVMTypeOf(c)) == 3 && !out.contains(&c) {
            out.push(c);
        }
        return true;
    }
    if LLVMIsAConstantExpr(c).is_null() || !refers_to_lds(c) {
        return true;
    }
    let supported = matches!(
        LLVMGetConstOpcode(c),
        LLVMOpcode::LLVMAdd
            | LLVMOpcode::LLVMSub
            | LLVMOpcode::LLVMMul
            | LLVMOpcode::LLVMXor
            | LLVMOpcode::LLVMShl
            | LLVMOpcode::LLVMPtrToInt
            | LLVMOpcode::LLVMIntToPtr
            | LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMAddrSpaceCast
            | LLVMOpcode::LLVMTrunc
            | LLVMOpcode::LLVMGetElementPtr
    );
    supported && (0..LLVMGetNumOperands(c).max(0) as u32).all(|j| lds_globals(LLVMGetOperand(c, j), out))
}

/// The blocks that hold, for each use of `v`, where it is used (a phi's use is at the end of
/// the incoming block).
unsafe fn use_blocks(v: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if opcode(user) == Some(LLVMOpcode::LLVMPHI) {
            for k in 0..LLVMCountIncoming(user) {
                if LLVMGetIncomingValue(user, k) == v {
                    out.push(LLVMGetIncomingBlock(user, k));
                }
            }
        } else if !LLVMIsAInstruction(user).is_null() {
            out.push(LLVMGetInstructionParent(user));
        }
        u = LLVMGetNextUse(u);
    }
    out
}

unsafe fn split_function(module: LLVMModuleRef, func: LLVMValueRef, part_blocks: usize, part_instructions: usize) -> usize {
    let Some(g) = Graph::of(func) else { return 0 };
    let n = g.blocks.len();
    // Depth in the dominator tree, in reverse post-order (a block's idom comes first).
    let mut depth = vec![0usize; n];
    for &b in g.rpo.iter().skip(1) {
        depth[b] = depth[g.idom[b]] + 1;
    }
    let rets: Vec<usize> = (0..n).filter(|&b| !g.sink[b] && opcode(LLVMGetBasicBlockTerminator(g.blocks[b])) == Some(LLVMOpcode::LLVMRet)).collect();
    let Some(&first_ret) = rets.first() else { return 0 };
    let end = rets.iter().fold(first_ret, |a, &b| g.ncd(a, b, &depth));
    // The chain of blocks every path to the end goes through, entry first.
    let mut chain = vec![end];
    let mut b = end;
    while b != 0 {
        b = g.idom[b];
        chain.push(b);
    }
    chain.reverse();
    let m = chain.len();
    let mut chain_at = vec![usize::MAX; n];
    for (i, &b) in chain.iter().enumerate() {
        chain_at[b] = i;
    }
    // The level of a block: the deepest chain block that dominates it.
    let mut level = vec![0usize; n];
    for &b in &g.rpo {
        level[b] = if chain_at[b] != usize::MAX { chain_at[b] } else { level[g.idom[b]] };
    }
    // Chain positions a cut may not take: (lo, hi] for each edge or use that goes back from
    // level hi to level lo, or value that cannot cross from lo to hi.
    let mut bad = vec![0i64; m + 2];
    let mut mark = |lo: usize, hi: usize| {
        if lo < hi {
            bad[lo + 1] += 1;
            bad[hi + 1] -= 1;
        }
    };
    let layout = LLVMGetModuleDataLayout(module);
    let whole_wave = whole_wave_values(&g);
    for b in 0..n {
        if g.sink[b] {
            continue;
        }
        for &s in &g.succ[b] {
            if level[s] < level[b] {
                mark(level[s], level[b]);
            }
        }
        for i in instructions(g.blocks[b]) {
            for ub in use_blocks(i) {
                let Some(&u) = g.index.get(&key(ub)) else { return 0 };
                if level[u] < level[b] {
                    mark(level[u], level[b]);
                } else if level[u] > level[b] && (!can_cross(i, layout, b == 0) || whole_wave.contains(&key(i))) {
                    mark(level[b], level[u]);
                }
            }
        }
    }
    let mut valid = vec![false; m];
    let mut run = 0i64;
    for (i, v) in valid.iter_mut().enumerate() {
        run += bad[i];
        *v = run == 0 && i >= 1;
    }
    // Greedy cuts: a part ends at the first valid chain block after part_blocks blocks, unless
    // fewer than a quarter part would be left after it.
    let mut per_level = vec![(0usize, 0usize); m];
    for b in 0..n {
        if !g.sink[b] {
            per_level[level[b]].0 += 1;
            per_level[level[b]].1 += instructions(g.blocks[b]).len();
        }
    }
    let total = per_level.iter().fold((0, 0), |t, l| (t.0 + l.0, t.1 + l.1));
    let (mut cuts, mut acc, mut before) = (Vec::new(), (0usize, 0usize), (0usize, 0usize));
    for i in 1..m {
        acc = (acc.0 + per_level[i - 1].0, acc.1 + per_level[i - 1].1);
        before = (before.0 + per_level[i - 1].0, before.1 + per_level[i - 1].1);
        let full = acc.0 >= part_blocks || acc.1 >= part_instructions;
        let rest = total.0 - before.0 >= part_blocks / 4 || total.1 - before.1 >= part_instructions / 4;
        if valid[i] && full && rest {
            cuts.push(i);
            acc = (0, 0);
        }
    }
    if cuts.is_empty() {
        return 0;
    }
    // Part p holds levels cuts[p-1] .. cuts[p]; part 0 stays in the kernel.
    let part_of_level = |l: usize| cuts.partition_point(|&c| c <= l);
    let nparts = cuts.len();
    let mut part = vec![usize::MAX; n];
    let mut part_blocks_of: Vec<Vec<usize>> = vec![Vec::new(); nparts + 1];
    for b in 0..n {
        if !g.sink[b] {
            part[b] = part_of_level(level[b]);
            part_blocks_of[part[b]].push(b);
        }
    }
    let part_of_inst = |i: LLVMValueRef| g.index.get(&key(LLVMGetInstructionParent(i))).map(|&b| part[b]);
    let ctx = LLVMGetModuleContext(module);
    let kernarg = if LLVMCountParams(func) > 0 && LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(func, 0))) == LLVMTypeKind::LLVMPointerTypeKind && LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetParam(func, 0))) == 4 {
        crate::kernarg_loads::segment_size(func, ctx).map(|s| (LLVMGetParam(func, 0), s))
    } else {
        None
    };
    let mut clonable = Clonable { memo: HashMap::new(), kernarg, layout };
    // What crosses, found before anything changes: every operand of a part's instructions that
    // is defined in an earlier part or the kernel.
    let mut crossing: HashMap<Key, Crossing> = HashMap::new();
    let mut slot_of: Vec<LLVMValueRef> = Vec::new();
    let mut params: Vec<LLVMValueRef> = Vec::new();
    let mut lds: Vec<LLVMValueRef> = Vec::new();
    // Slots each part (0: the kernel) defines, and reads.
    let mut defines: Vec<Vec<usize>> = vec![Vec::new(); nparts + 1];
    let mut reads: Vec<HashSet<usize>> = vec![HashSet::new(); nparts + 1];
    // Phis at cuts (the first block of parts 1..): each becomes a slot its part before fills.
    let mut cut_phis: Vec<Vec<(LLVMValueRef, usize)>> = vec![Vec::new(); nparts + 1];
    for p in 1..=nparts {
        for i in instructions(g.blocks[chain[cuts[p - 1]]]) {
            if opcode(i) != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            if !slot_type_ok(LLVMTypeOf(i), layout) {
                return 0;
            }
            slot_of.push(i);
            let s = slot_of.len() - 1;
            cut_phis[p].push((i, s));
            defines[p - 1].push(s);
            reads[p].insert(s);
            crossing.insert(key(i), Crossing::Slot(s));
        }
    }
    for (p, blocks) in part_blocks_of.iter().enumerate().skip(1) {
        for &b in blocks {
            for i in instructions(g.blocks[b]) {
                let phi = opcode(i) == Some(LLVMOpcode::LLVMPHI);
                for j in 0..LLVMGetNumOperands(i).max(0) as u32 {
                    let op = LLVMGetOperand(i, j);
                    // A phi's operand is used at the end of its incoming block: for a phi at a
                    // cut, in the part before (where its copy goes).
                    let at = if phi { g.index.get(&key(LLVMGetIncomingBlock(i, j))).map(|&ib| part[ib]).unwrap_or(p) } else { p };
                    if at == 0 {
                        continue;
                    }
                    if !LLVMIsAConstant(op).is_null() {
                        if !lds_globals(op, &mut lds) {
                            return 0;
                        }
                        continue;
                    }
                    let from = if !LLVMIsAArgument(op).is_null() {
                        Some(0)
                    } else if !LLVMIsAInstruction(op).is_null() {
                        part_of_inst(op)
                    } else {
                        None
                    };
                    let Some(from) = from.filter(|&q| q < at) else { continue };
                    let c = match crossing.get(&key(op)) {
                        Some(&c) => c,
                        None => {
                            let c = if !LLVMIsAArgument(op).is_null() || opcode(op) == Some(LLVMOpcode::LLVMAlloca) {
                                params.push(op);
                                Crossing::Param(params.len() - 1)
                            } else if clonable.check(op) {
                                Crossing::Clone
                            } else {
                                slot_of.push(op);
                                defines[from].push(slot_of.len() - 1);
                                Crossing::Slot(slot_of.len() - 1)
                            };
                            crossing.insert(key(op), c);
                            c
                        }
                    };
                    if let Crossing::Slot(s) = c {
                        reads[at].insert(s);
                    }
                }
            }
        }
    }
    // Kernel arguments that recomputed values read are parameters too.
    let clone_args: Vec<LLVMValueRef> = crossing.iter().filter(|(_, c)| **c == Crossing::Clone).flat_map(|(&v, _)| clone_arguments(v as LLVMValueRef)).collect();
    for a in clone_args {
        if let std::collections::hash_map::Entry::Vacant(e) = crossing.entry(key(a)) {
            params.push(a);
            e.insert(Crossing::Param(params.len() - 1));
        }
    }
    let lds_param0 = params.len();
    params.extend(lds.iter().copied());
    // Uniform parameters: the kernel's arguments and the LDS addresses.
    let inreg: Vec<bool> = params.iter().enumerate().map(|(k, &v)| k >= lds_param0 || !LLVMIsAArgument(v).is_null()).collect();
    // Slots a part stores on its way out: those it defines that a later part reads.
    let mut later_reads: Vec<HashSet<usize>> = vec![HashSet::new(); nparts + 2];
    for p in (1..=nparts).rev() {
        let mut s = later_reads[p + 1].clone();
        s.extend(reads[p].iter().copied());
        later_reads[p] = s;
    }

    let i64t = LLVMInt64TypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let state_ty = LLVMArrayType2(i64t, slot_of.len().max(1) as u64);
    let b = LLVMCreateBuilderInContext(ctx);
    let entry = g.blocks[0];
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
    let state = LLVMBuildAlloca(b, state_ty, c"hx.state".as_ptr());
    // (The state pointer's address space is the data layout's for allocas: 5 on AMDGPU.)
    let mut param_tys: Vec<LLVMTypeRef> = std::iter::once(LLVMTypeOf(state)).chain(params.iter().map(|&v| LLVMTypeOf(v))).collect();
    let part_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), param_tys.as_mut_ptr(), param_tys.len() as u32, 0);
    let slot_ptr = |b: LLVMBuilderRef, base: LLVMValueRef, s: usize| {
        let mut idx = [LLVMConstInt(i32t, 0, 0), LLVMConstInt(i32t, s as u64, 0)];
        LLVMBuildInBoundsGEP2(b, state_ty, base, idx.as_mut_ptr(), 2, c"".as_ptr())
    };
    let kernel_name = value_name(func);
    let first_blocks: Vec<LLVMBasicBlockRef> = (0..=nparts).map(|p| if p == 0 { entry } else { g.blocks[chain[cuts[p - 1]]] }).collect();
    // Each part's way out (the kernel's: the block that calls the parts), made first so that the
    // phis at cuts can move there.
    let mut part_fns = Vec::new();
    let mut exits = Vec::new();
    let call_parts = LLVMAppendBasicBlockInContext(ctx, func, c"call_parts".as_ptr());
    exits.push(call_parts);
    for p in 1..=nparts {
        let name = std::ffi::CString::new(format!("{kernel_name}.part{p}")).unwrap_or_default();
        let f = LLVMAddFunction(module, name.as_ptr(), part_ty);
        LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
        for attr in ["noinline", "convergent", "nounwind", "norecurse"] {
            let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr().cast(), attr.len());
            LLVMAddAttributeAtIndex(f, u32::MAX, LLVMCreateEnumAttribute(ctx, kind, 0));
        }
        let inreg_kind = LLVMGetEnumAttributeKindForName(c"inreg".as_ptr(), 5);
        for (k, &u) in inreg.iter().enumerate() {
            if u {
                LLVMAddAttributeAtIndex(f, (k + 2) as u32, LLVMCreateEnumAttribute(ctx, inreg_kind, 0));
            }
        }
        let part_entry = LLVMAppendBasicBlockInContext(ctx, f, c"part_entry".as_ptr());
        let mut last = part_entry;
        for &bi in &part_blocks_of[p] {
            LLVMMoveBasicBlockAfter(g.blocks[bi], last);
            last = g.blocks[bi];
        }
        part_fns.push(f);
        if p < nparts {
            exits.push(LLVMAppendBasicBlockInContext(ctx, f, c"part_exit".as_ptr()));
        }
    }
    // Edges into the next part's first block go to the part's way out instead.
    for p in 0..nparts {
        redirect_edges(part_blocks_of[p].iter().map(|&bi| g.blocks[bi]), first_blocks[p + 1], exits[p]);
    }
    // Phis at cuts: a copy at the way out of the part before (same incoming blocks, the values
    // as that part sees them); the phi itself then takes the slot's value from the part's entry
    // (and keeps its incoming values from inside its own part, a loop's back edges).
    let mut exit_phis: Vec<Vec<ExitPhi>> = (0..=nparts).map(|_| Vec::new()).collect();
    for p in 1..=nparts {
        for &(phi, s) in &cut_phis[p] {
            let mut outside = Vec::new();
            let mut inside = Vec::new();
            for k in 0..LLVMCountIncoming(phi) {
                let (v, ib) = (LLVMGetIncomingValue(phi, k), LLVMGetIncomingBlock(phi, k));
                if g.index.get(&key(ib)).is_some_and(|&x| part[x] == p) {
                    inside.push((v, ib));
                } else {
                    outside.push((v, ib));
                }
            }
            LLVMPositionBuilderAtEnd(b, exits[p - 1]);
            let copy = LLVMBuildPhi(b, LLVMTypeOf(phi), c"".as_ptr());
            exit_phis[p - 1].push(ExitPhi { copy, incoming: outside, slot: s });
            // The phi keeps only its inside edges; the entry edge is added below.
            LLVMPositionBuilderBefore(b, phi);
            let replacement = LLVMBuildPhi(b, LLVMTypeOf(phi), c"".as_ptr());
            let mut vals: Vec<LLVMValueRef> = inside.iter().map(|x| x.0).collect();
            let mut bbs: Vec<LLVMBasicBlockRef> = inside.iter().map(|x| x.1).collect();
            LLVMAddIncoming(replacement, vals.as_mut_ptr(), bbs.as_mut_ptr(), vals.len() as u32);
            LLVMReplaceAllUsesWith(phi, replacement);
            // (The key of an erased instruction could name a new one made at its address.)
            crossing.remove(&key(phi));
            LLVMInstructionEraseFromParent(phi);
            slot_of[s] = replacement;
            crossing.insert(key(replacement), Crossing::Slot(s));
            // Later parts that used the old phi use the replacement now (same slot).
        }
    }
    // Rewrite each part's operands, fill its entry and its way out.
    for p in 1..=nparts {
        let f = part_fns[p - 1];
        let part_entry = LLVMGetEntryBasicBlock(f);
        let mut map: HashMap<Key, LLVMValueRef> = HashMap::new();
        for (k, &v) in params.iter().enumerate() {
            map.insert(key(v), LLVMGetParam(f, (k + 1) as u32));
        }
        let state_arg = LLVMGetParam(f, 0);
        LLVMPositionBuilderAtEnd(b, part_entry);
        let mut loaded: HashMap<usize, LLVMValueRef> = HashMap::new();
        let mut sinks: HashMap<usize, LLVMBasicBlockRef> = HashMap::new();
        // Slot loads first, in slot order, so that the entry block reads like a list.
        let mut mine: Vec<usize> = reads[p].iter().copied().collect();
        mine.sort_unstable();
        for s in mine {
            let v = LLVMBuildLoad2(b, i64t, slot_ptr(b, state_arg, s), c"".as_ptr());
            loaded.insert(s, from_slot(b, v, LLVMTypeOf(slot_of[s]), layout, ctx));
        }
        // The cut phi of this part takes its slot's value on the entry edge.
        for &(_, s) in &cut_phis[p] {
            let mut v = [loaded[&s]];
            let mut bb = [part_entry];
            LLVMAddIncoming(slot_of[s], v.as_mut_ptr(), bb.as_mut_ptr(), 1);
        }
        for &bi in &part_blocks_of[p] {
            // Every operand as this part sees it (a phi's operands too: the slot value the cut
            // phi takes on the entry edge is this part's own and stays).
            for i in instructions(g.blocks[bi]) {
                for j in 0..LLVMGetNumOperands(i).max(0) as u32 {
                    let op = LLVMGetOperand(i, j);
                    let new = remap_in_part(b, op, f, part_entry, &crossing, &loaded, &mut map);
                    if new != op {
                        LLVMSetOperand(i, j, new);
                    }
                }
            }
            let term = LLVMGetBasicBlockTerminator(g.blocks[bi]);
            for s in 0..LLVMGetNumSuccessors(term) {
                let t = LLVMGetSuccessor(term, s);
                if let Some(&ti) = g.index.get(&key(t)).filter(|&&ti| g.sink[ti]) {
                    let copy = *sinks.entry(ti).or_insert_with(|| clone_block(ctx, b, g.blocks[ti], f));
                    LLVMSetSuccessor(term, s, copy);
                }
            }
        }
        // The values its exit phis and slot stores read, as this part sees them.
        let mut seen: HashMap<Key, LLVMValueRef> = HashMap::new();
        if p < nparts {
            let wanted: Vec<LLVMValueRef> = exit_phis[p]
                .iter()
                .flat_map(|e| e.incoming.iter().map(|x| x.0))
                .chain(defines[p].iter().map(|&s| slot_of[s]))
                .collect();
            for v in wanted {
                let r = remap_in_part(b, v, f, part_entry, &crossing, &loaded, &mut map);
                seen.insert(key(v), r);
            }
        }
        LLVMPositionBuilderAtEnd(b, part_entry);
        LLVMBuildBr(b, first_blocks[p]);
        if p < nparts {
            fill_exit(b, exits[p], &exit_phis[p], &defines[p], &later_reads[p + 1], &slot_of, state_arg, &slot_ptr, layout, ctx, &|v| {
                seen.get(&key(v)).copied().unwrap_or(v)
            });
            LLVMBuildRetVoid(b);
        }
    }
    // The kernel: the values the parts read into the state array, then a call of each part.
    fill_exit(b, call_parts, &exit_phis[0], &defines[0], &later_reads[1], &slot_of, state, &slot_ptr, layout, ctx, &|v| v);
    // Nothing recurses (parts call nothing); without the attribute the backend counts the
    // kernel as recursive and its stack as dynamic.
    let kind = LLVMGetEnumAttributeKindForName(c"norecurse".as_ptr(), 9);
    LLVMAddAttributeAtIndex(func, u32::MAX, LLVMCreateEnumAttribute(ctx, kind, 0));
    let mut args: Vec<LLVMValueRef> = std::iter::once(state).chain(params.iter().copied()).collect();
    for f in &part_fns {
        LLVMBuildCall2(b, part_ty, *f, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
    }
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    nparts
}

/// `v` as part `f` sees it (for the phis and stores at its way out): itself when `f` defines
/// it or it is a constant, else its slot's value, parameter or recomputation.
unsafe fn remap_in_part(
    b: LLVMBuilderRef,
    v: LLVMValueRef,
    f: LLVMValueRef,
    part_entry: LLVMBasicBlockRef,
    crossing: &HashMap<Key, Crossing>,
    loaded: &HashMap<usize, LLVMValueRef>,
    map: &mut HashMap<Key, LLVMValueRef>,
) -> LLVMValueRef {
    if !LLVMIsAInstruction(v).is_null() && LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)) == f {
        return v;
    }
    if !LLVMIsAConstant(v).is_null() {
        return if refers_to_lds(v) { at_entry_end(b, part_entry, || rebuild(b, v, map)) } else { v };
    }
    match crossing.get(&key(v)) {
        Some(Crossing::Slot(s)) => loaded.get(s).copied().unwrap_or(v),
        Some(Crossing::Param(_)) => map.get(&key(v)).copied().unwrap_or(v),
        Some(Crossing::Clone) => clone_at_entry(b, v, map, part_entry),
        None => v,
    }
}

/// Runs `build` with the builder at the end of the part's entry block (before its branch once
/// it has one), then puts the builder back at the end of the block it was in.
unsafe fn at_entry_end<R>(b: LLVMBuilderRef, part_entry: LLVMBasicBlockRef, build: impl FnOnce() -> R) -> R {
    let saved = LLVMGetInsertBlock(b);
    let term = LLVMGetBasicBlockTerminator(part_entry);
    if term.is_null() {
        LLVMPositionBuilderAtEnd(b, part_entry);
    } else {
        LLVMPositionBuilderBefore(b, term);
    }
    let r = build();
    if !saved.is_null() {
        LLVMPositionBuilderAtEnd(b, saved);
    }
    r
}

/// The way out of a part (or the kernel's call block): the phis of the next part's cut, then a
/// store of every slot the part defines that a later part reads.
#[allow(clippy::too_many_arguments)]
unsafe fn fill_exit(
    b: LLVMBuilderRef,
    exit: LLVMBasicBlockRef,
    phis: &[ExitPhi],
    defines: &[usize],
    later: &HashSet<usize>,
    slot_of: &[LLVMValueRef],
    state: LLVMValueRef,
    slot_ptr: &dyn Fn(LLVMBuilderRef, LLVMValueRef, usize) -> LLVMValueRef,
    layout: llvm_sys::target::LLVMTargetDataRef,
    ctx: LLVMContextRef,
    view: &dyn Fn(LLVMValueRef) -> LLVMValueRef,
) {
    let mut phi_of: HashMap<usize, LLVMValueRef> = HashMap::new();
    for ExitPhi { copy, incoming, slot: s } in phis {
        let mut vals: Vec<LLVMValueRef> = incoming.iter().map(|x| view(x.0)).collect();
        let mut bbs: Vec<LLVMBasicBlockRef> = incoming.iter().map(|x| x.1).collect();
        LLVMAddIncoming(*copy, vals.as_mut_ptr(), bbs.as_mut_ptr(), vals.len() as u32);
        phi_of.insert(*s, *copy);
    }
    LLVMPositionBuilderAtEnd(b, exit);
    let mut out: Vec<usize> = defines.iter().copied().filter(|s| later.contains(s)).collect();
    out.sort_unstable();
    out.dedup();
    for s in out {
        let v = phi_of.get(&s).copied().unwrap_or_else(|| view(slot_of[s]));
        let v = to_slot(b, v, layout, ctx);
        LLVMBuildStore(b, v, slot_ptr(b, state, s));
    }
}

/// Values computed in a whole-wave region, which must stay in one function: everything a
/// `llvm.amdgcn.strict.wwm`/`wwm` result is computed from, back to the
/// `llvm.amdgcn.set.inactive` copies where values enter, and everything computed from those
/// copies up to the results. The backend runs a function's region with every lane on; a value
/// of it that crossed into another function would be computed there with only the running lanes.
unsafe fn whole_wave_values(g: &Graph) -> HashSet<Key> {
    let called = |i: LLVMValueRef| -> String {
        if opcode(i) == Some(LLVMOpcode::LLVMCall) {
            value_name(LLVMGetCalledValue(i))
        } else {
            String::new()
        }
    };
    let leaves = |name: &str| name.starts_with("llvm.amdgcn.strict.wwm") || name.starts_with("llvm.amdgcn.wwm");
    let mut out = HashSet::new();
    let mut forward = Vec::new();
    let mut backward = Vec::new();
    for &bb in &g.blocks {
        for i in instructions(bb) {
            let name = called(i);
            if name.starts_with("llvm.amdgcn.set.inactive") && out.insert(key(i)) {
                forward.push(i);
            } else if leaves(&name) {
                backward.push(i);
            }
        }
    }
    while let Some(v) = forward.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null() && !leaves(&called(user)) && out.insert(key(user)) {
                forward.push(user);
            }
            u = LLVMGetNextUse(u);
        }
    }
    let mut seen = HashSet::new();
    while let Some(v) = backward.pop() {
        for j in 0..LLVMGetNumOperands(v).max(0) as u32 {
            let op = LLVMGetOperand(v, j);
            if LLVMIsAInstruction(op).is_null() || !seen.insert(key(op)) {
                continue;
            }
            out.insert(key(op));
            if !called(op).starts_with("llvm.amdgcn.set.inactive") {
                backward.push(op);
            }
        }
    }
    out
}

/// Whether a value of type `ty` fits a slot (64 bits or fewer, not a token or label).
unsafe fn slot_type_ok(ty: LLVMTypeRef, layout: llvm_sys::target::LLVMTargetDataRef) -> bool {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind => LLVMGetIntTypeWidth(ty) <= 64,
        LLVMTypeKind::LLVMPointerTypeKind
        | LLVMTypeKind::LLVMFloatTypeKind
        | LLVMTypeKind::LLVMHalfTypeKind
        | LLVMTypeKind::LLVMBFloatTypeKind
        | LLVMTypeKind::LLVMDoubleTypeKind
        | LLVMTypeKind::LLVMVectorTypeKind => llvm_sys::target::LLVMSizeOfTypeInBits(layout, ty) <= 64,
        _ => false,
    }
}

/// Whether value `v` (defined in block `b`, the entry when `in_entry`) may be used in a later
/// part: anything that fits a slot or is an alloca.
unsafe fn can_cross(v: LLVMValueRef, layout: llvm_sys::target::LLVMTargetDataRef, in_entry: bool) -> bool {
    if opcode(v) == Some(LLVMOpcode::LLVMAlloca) {
        return in_entry;
    }
    slot_type_ok(LLVMTypeOf(v), layout)
}

/// `v` as an i64 for its slot.
unsafe fn to_slot(b: LLVMBuilderRef, v: LLVMValueRef, layout: llvm_sys::target::LLVMTargetDataRef, ctx: LLVMContextRef) -> LLVMValueRef {
    let ty = LLVMTypeOf(v);
    let i64t = LLVMInt64TypeInContext(ctx);
    let bits = llvm_sys::target::LLVMSizeOfTypeInBits(layout, ty) as u32;
    let int = match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind => v,
        LLVMTypeKind::LLVMPointerTypeKind => LLVMBuildPtrToInt(b, v, LLVMIntTypeInContext(ctx, bits), c"".as_ptr()),
        _ => LLVMBuildBitCast(b, v, LLVMIntTypeInContext(ctx, bits), c"".as_ptr()),
    };
    LLVMBuildZExt(b, int, i64t, c"".as_ptr())
}

/// A slot's i64 `v` as a value of type `ty`.
unsafe fn from_slot(b: LLVMBuilderRef, v: LLVMValueRef, ty: LLVMTypeRef, layout: llvm_sys::target::LLVMTargetDataRef, ctx: LLVMContextRef) -> LLVMValueRef {
    let bits = llvm_sys::target::LLVMSizeOfTypeInBits(layout, ty) as u32;
    let int = LLVMBuildTrunc(b, v, LLVMIntTypeInContext(ctx, bits), c"".as_ptr());
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind => int,
        LLVMTypeKind::LLVMPointerTypeKind => LLVMBuildIntToPtr(b, int, ty, c"".as_ptr()),
        _ => LLVMBuildBitCast(b, int, ty, c"".as_ptr()),
    }
}

/// The kernel arguments the recomputable expression `v` reads.
unsafe fn clone_arguments(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(key(x)) {
            continue;
        }
        for j in 0..LLVMGetNumOperands(x).max(0) as u32 {
            let op = LLVMGetOperand(x, j);
            if !LLVMIsAArgument(op).is_null() {
                out.push(op);
            } else if !LLVMIsAInstruction(op).is_null() {
                stack.push(op);
            }
        }
    }
    out
}

/// `v` (a recomputable instruction of an earlier part) recomputed at the end of the part's entry
/// block, its operands first.
unsafe fn clone_at_entry(b: LLVMBuilderRef, v: LLVMValueRef, map: &mut HashMap<Key, LLVMValueRef>, part_entry: LLVMBasicBlockRef) -> LLVMValueRef {
    if let Some(&c) = map.get(&key(v)) {
        return c;
    }
    let f = LLVMGetBasicBlockParent(part_entry);
    let mut ops = Vec::new();
    for j in 0..LLVMGetNumOperands(v).max(0) as u32 {
        let op = LLVMGetOperand(v, j);
        if let Some(&m) = map.get(&key(op)) {
            ops.push((j, m));
        } else if !LLVMIsAArgument(op).is_null() && LLVMGetParamParent(op) != f {
            // A parameter of another part (whose instructions have been rewritten already):
            // every part has the same parameters.
            let g = LLVMGetParamParent(op);
            if let Some(i) = (0..LLVMCountParams(g)).find(|&i| LLVMGetParam(g, i) == op) {
                ops.push((j, LLVMGetParam(f, i)));
            }
        } else if !LLVMIsAInstruction(op).is_null() {
            ops.push((j, clone_at_entry(b, op, map, part_entry)));
        }
    }
    let c = LLVMInstructionClone(v);
    for (j, m) in ops {
        LLVMSetOperand(c, j, m);
    }
    at_entry_end(b, part_entry, || LLVMInsertIntoBuilder(b, c));
    map.insert(key(v), c);
    c
}

/// Constant `c`, which refers to LDS globals, made as instructions at the builder with each
/// global replaced by the part's parameter for it (in `map`).
unsafe fn rebuild(b: LLVMBuilderRef, c: LLVMValueRef, map: &HashMap<Key, LLVMValueRef>) -> LLVMValueRef {
    if let Some(&m) = map.get(&key(c)) {
        return m;
    }
    if LLVMIsAConstantExpr(c).is_null() || !refers_to_lds(c) {
        return c;
    }
    let ops: Vec<LLVMValueRef> = (0..LLVMGetNumOperands(c).max(0) as u32).map(|j| rebuild(b, LLVMGetOperand(c, j), map)).collect();
    let op = LLVMGetConstOpcode(c);
    match op {
        LLVMOpcode::LLVMGetElementPtr => {
            let mut idx = ops[1..].to_vec();
            LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(c), ops[0], idx.as_mut_ptr(), idx.len() as u32, c"".as_ptr())
        }
        LLVMOpcode::LLVMPtrToInt
        | LLVMOpcode::LLVMIntToPtr
        | LLVMOpcode::LLVMBitCast
        | LLVMOpcode::LLVMAddrSpaceCast
        | LLVMOpcode::LLVMTrunc => LLVMBuildCast(b, op, ops[0], LLVMTypeOf(c), c"".as_ptr()),
        _ => LLVMBuildBinOp(b, op, ops[0], ops[1], c"".as_ptr()),
    }
}

/// A copy of the sink block `bb` (constant operands only) at the end of function `f`.
unsafe fn clone_block(ctx: LLVMContextRef, b: LLVMBuilderRef, bb: LLVMBasicBlockRef, f: LLVMValueRef) -> LLVMBasicBlockRef {
    let saved = LLVMGetInsertBlock(b);
    let copy = LLVMAppendBasicBlockInContext(ctx, f, c"trap".as_ptr());
    LLVMPositionBuilderAtEnd(b, copy);
    for i in instructions(bb) {
        LLVMInsertIntoBuilder(b, LLVMInstructionClone(i));
    }
    if !saved.is_null() {
        LLVMPositionBuilderAtEnd(b, saved);
    }
    copy
}

#[cfg(test)]
mod tests {
    use crate::{parse_ir, verify};
    use inkwell::context::Context;

    /// A kernel of a chain of blocks b0..b7 whose b2..b4 loop (b4 branches back to b2), with a
    /// value of b1 used in b6 and a phi at b5.
    const CHAIN: &str = r#"
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %b0
b0:
  %a = add i32 %tid, 1
  br label %b1
b1:
  %v = mul i32 %a, 3
  br label %b2
b2:
  %i = phi i32 [ 0, %b1 ], [ %i1, %b4 ]
  br label %b3
b3:
  %i1 = add i32 %i, 1
  br label %b4
b4:
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %b2, label %b5
b5:
  %w = phi i32 [ %i1, %b4 ]
  br label %b6
b6:
  %s = add i32 %w, %v
  br label %b7
b7:
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  store i32 %s, ptr addrspace(1) %q
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;

    /// The function of the printed module whose body holds block `label`.
    fn owner(text: &str, label: &str) -> String {
        let mut f = String::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("define ") {
                f = rest.split('@').nth(1).and_then(|r| r.split('(').next()).unwrap_or("").to_string();
            }
            if line.starts_with(&format!("{label}:")) {
                return f;
            }
        }
        panic!("no block {label} in\n{text}");
    }

    #[test]
    fn cuts_fall_outside_loops_and_keep_the_module_valid() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, CHAIN, "k").unwrap();
        let parts = super::split(&m, &["k".to_string()], 1, usize::MAX);
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        assert!(parts >= 3, "{parts} parts:\n{text}");
        // The loop stays in one part, entered at its header.
        assert_eq!(owner(&text, "b3"), owner(&text, "b2"), "{text}");
        assert_eq!(owner(&text, "b4"), owner(&text, "b2"), "{text}");
        assert_ne!(owner(&text, "b2"), "k", "{text}");
        // b5's phi and b1's %v reach later parts through the state array.
        assert!(text.contains("%hx.state = alloca"), "{text}");
        // The kernel calls every part, in order, then returns.
        let calls: Vec<&str> = text.lines().filter(|l| l.contains("call void @k.part")).collect();
        assert_eq!(calls.len(), parts, "{text}");
        assert!(calls[0].contains("@k.part1(") && calls[parts - 1].contains(&format!("@k.part{parts}(")), "{text}");
    }

    #[test]
    fn small_kernels_and_unknown_names_are_left_alone() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, CHAIN, "k").unwrap();
        let before = m.print_to_string().to_string();
        assert!(super::big_kernels(&m, 100, 1000).is_empty());
        assert_eq!(super::big_kernels(&m, 5, 1000), vec!["k".to_string()]);
        assert_eq!(super::split(&m, &["other".to_string()], 1, usize::MAX), 0);
        assert_eq!(m.print_to_string().to_string(), before);
    }
}
