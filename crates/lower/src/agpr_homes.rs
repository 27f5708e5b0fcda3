//! AGPR homes for the long-lived values of big straight-line code, so that the register
//! allocator is not left to find them.
//!
//! gfx1250 has 1024 VGPRs per lane (above 255 through `s_set_vgpr_msb`); gfx942 and gfx950 have
//! 256 VGPRs and 256 AGPRs. A source kernel that keeps more values live than 256 VGPRs hold
//! (vgpr_high: 300) raises to IR with that many values live at once, and LLVM's greedy
//! allocator then spends seconds evicting and splitting in one block (issue 26: 96% of the
//! translation of vgpr_high, in `collectInterferingVRegs` and `canReassign`) before spilling the
//! excess to AGPRs itself. This step does the spilling's job up front, where the IR says what
//! is live: in a block where more than [`TRIGGER`] 32-bit per-lane values are live at once, the
//! values with the longest stretch between their definition and first use go to an AGPR right
//! after they are made (`v_accvgpr_write_b32`) and come back to a VGPR just before their first
//! use (`v_accvgpr_read_b32`), as inline assembly with AGPR and VGPR operand constraints, until
//! at most [`GOAL`] stay in VGPRs across any point. The allocator then sees two register files
//! with room in each.
//!
//! Measured on vgpr_high for gfx942 (CPU time of a whole translation; dynamic instructions in
//! the emulator; the native compile of the same source, and the translation before this step,
//! take about 2.2-2.9 s, spill 90 VGPRs to AGPRs and execute 2498): [`GOAL`] 128: 0.18 s, 2904
//! instructions; 160: 0.24 s, 2782; 176: 0.32 s, 2720; 192: 0.46 s, 2656; no spills at any of
//! them. 160 keeps the translation well under the 0.5 s on a loaded machine for 11% more
//! instructions than native (each home is a write and a read; LLVM's own spills were 308
//! accvgpr instructions). BENCHMARKS.md section 9 has the side-by-side figures.
//!
//! Only values whose definition and every use are in one block (no phi) move, and only per-lane
//! (divergent) ones, by a simple forward propagation from the work-item IDs: a wave-uniform
//! value belongs in an SGPR. Functions with matrix (MFMA/SMFMAC) intrinsics or inline assembly
//! are left alone: LLVM's hazard recognizer checks inline assembly only partly, and the matrix
//! units are what reads and writes AGPRs with wait states. Work is bounded: blocks of at most
//! [`MAX_BLOCK`] instructions, at most [`MAX_HOMES`] values per block.

use hx_llvm::inkwell::module::Module;
use hx_llvm::ir_walk::{blocks, instructions, opcode};
use hx_llvm::llvm_sys::core::*;
use hx_llvm::llvm_sys::prelude::*;
use hx_llvm::llvm_sys::{LLVMInlineAsmDialect, LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// Per-lane 32-bit values live at once in one block above which values get AGPR homes.
pub const TRIGGER: usize = 224;
/// How many such values may stay live in VGPRs at any point once homes are given.
pub const GOAL: usize = 160;
/// The shortest stretch (instructions between definition and first use) worth a home: two
/// instructions are added per homed value.
pub const MIN_STRETCH: usize = 16;
/// Blocks longer than this are left alone (the work here is block length x homes).
pub const MAX_BLOCK: usize = 20_000;
/// At most this many homes per block.
pub const MAX_HOMES: usize = 256;
/// At most this many candidates (longest stretches first) are looked at per block.
pub const MAX_EXAMINED: usize = 4096;

/// The calling convention number of `amdgpu_kernel` (LLVM's CallingConv::AMDGPU_KERNEL).
const AMDGPU_KERNEL: u32 = 91;

/// Gives AGPR homes in every kernel of `module` that needs them; returns how many values moved.
pub fn rewrite(module: &Module<'_>) -> usize {
    // (Each function's own instructions, blocks and attributes are read and changed.)
    hx_llvm::ir_walk::each_function(module, rewrite_function)
}

/// The name of the function a call calls, if it calls a named function.
unsafe fn callee_name(call: LLVMValueRef) -> Option<Vec<u8>> {
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let mut len = 0;
    let name = LLVMGetValueName2(callee, &mut len);
    (!name.is_null()).then(|| std::slice::from_raw_parts(name as *const u8, len).to_vec())
}


/// The per-lane values of `func`: work-item IDs and lane counts, atomics' results, results of
/// calls to functions that are not intrinsics, and whatever has a per-lane operand (a load from
/// a per-lane address, a phi or select of one). Propagated in block order, repeated until
/// nothing changes (loops), at most 8 times.
unsafe fn divergent_values(func: LLVMValueRef, blocks: &[Vec<LLVMValueRef>]) -> HashSet<LLVMValueRef> {
    let _ = func;
    let mut div = HashSet::new();
    for _ in 0..8 {
        let before = div.len();
        for insts in blocks {
            for &i in insts {
                if div.contains(&i) {
                    continue;
                }
                let source = match opcode(i) {
                    Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => true,
                    Some(LLVMOpcode::LLVMCall) => match callee_name(i) {
                        Some(n) => {
                            n.starts_with(b"llvm.amdgcn.workitem.id")
                                || n.starts_with(b"llvm.amdgcn.mbcnt")
                                || !n.starts_with(b"llvm.")
                        }
                        None => true,
                    },
                    _ => false,
                };
                let from_operand = (0..LLVMGetNumOperands(i).max(0) as u32).any(|k| div.contains(&LLVMGetOperand(i, k)));
                if source || from_operand {
                    div.insert(i);
                }
            }
        }
        if div.len() == before {
            break;
        }
    }
    div
}

/// Whether `func` holds something this step must not meet: matrix intrinsics (they read and
/// write AGPRs with wait states) or inline assembly.
unsafe fn has_matrix_or_asm(blocks: &[Vec<LLVMValueRef>]) -> bool {
    blocks.iter().flatten().any(|&i| {
        opcode(i) == Some(LLVMOpcode::LLVMCall) && {
            let callee = LLVMGetCalledValue(i);
            !LLVMIsAInlineAsm(callee).is_null()
                || callee_name(i).is_some_and(|n| {
                    n.starts_with(b"llvm.amdgcn.mfma") || n.starts_with(b"llvm.amdgcn.smfmac") || n.starts_with(b"llvm.amdgcn.wmma")
                })
        }
    })
}

/// A 32-bit integer or float.
unsafe fn is_32bit(ty: LLVMTypeRef) -> bool {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind => LLVMGetIntTypeWidth(ty) == 32,
        LLVMTypeKind::LLVMFloatTypeKind => true,
        _ => false,
    }
}

/// One value that may get a home: its block positions of definition, first and last use.
struct Candidate {
    value: LLVMValueRef,
    def: usize,
    first_use: usize,
    last_use: usize,
}

/// The values of one block that may get a home: per-lane, 32-bit, not phis, used only later in
/// the same block and never by a phi.
unsafe fn candidates(insts: &[LLVMValueRef], div: &HashSet<LLVMValueRef>) -> Vec<Candidate> {
    let pos: HashMap<LLVMValueRef, usize> = insts.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    let mut out = Vec::new();
    for (p, &i) in insts.iter().enumerate() {
        if !div.contains(&i) || !is_32bit(LLVMTypeOf(i)) || opcode(i) == Some(LLVMOpcode::LLVMPHI) {
            continue;
        }
        let (mut first, mut last, mut ok, mut any) = (usize::MAX, 0, true, false);
        let mut u = LLVMGetFirstUse(i);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            match pos.get(&user) {
                Some(&q) if q > p && opcode(user) != Some(LLVMOpcode::LLVMPHI) => {
                    first = first.min(q);
                    last = last.max(q);
                    any = true;
                }
                _ => ok = false,
            }
            u = LLVMGetNextUse(u);
        }
        if ok && any {
            out.push(Candidate { value: i, def: p, first_use: first, last_use: last });
        }
    }
    out
}

/// Chooses the candidates to home: while more than [`GOAL`] are live somewhere (and more than
/// [`TRIGGER`] were at the start), the one with the longest stretch from definition to first use
/// that passes a point above the goal. Bounded: the live counts come from a difference array,
/// at most [`MAX_EXAMINED`] candidates are looked at, and the peak is recounted only after a
/// choice (at most [`MAX_HOMES`] of them), so the work is O(block x homes).
fn choose(cands: &[Candidate], len: usize) -> Vec<usize> {
    let mut delta = vec![0isize; len + 2];
    for c in cands {
        delta[c.def + 1] += 1;
        delta[c.last_use + 1] -= 1;
    }
    let mut live = vec![0usize; len + 1];
    let mut running = 0isize;
    for (l, d) in live.iter_mut().zip(&delta) {
        running += d;
        *l = running.max(0) as usize;
    }
    let mut peak = live.iter().copied().max().unwrap_or(0);
    if peak <= TRIGGER {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..cands.len()).filter(|&k| cands[k].first_use - cands[k].def >= MIN_STRETCH).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(cands[k].first_use - cands[k].def), cands[k].def));
    order.truncate(MAX_EXAMINED);
    let mut chosen = Vec::new();
    for k in order {
        if chosen.len() >= MAX_HOMES || peak <= GOAL {
            break;
        }
        let c = &cands[k];
        // Only a stretch that passes through a point above the goal is worth a home.
        if live[c.def + 1..c.first_use].iter().all(|&l| l <= GOAL) {
            continue;
        }
        for l in &mut live[c.def + 1..c.first_use] {
            *l -= 1;
        }
        chosen.push(k);
        peak = live.iter().copied().max().unwrap_or(0);
    }
    chosen
}

unsafe fn inline_asm(ty: LLVMTypeRef, text: &str, constraints: &str) -> (LLVMTypeRef, LLVMValueRef) {
    let mut params = [ty];
    let fn_ty = LLVMFunctionType(ty, params.as_mut_ptr(), 1, 0);
    let asm = LLVMGetInlineAsm(
        fn_ty,
        text.as_ptr() as *const _,
        text.len(),
        constraints.as_ptr() as *const _,
        constraints.len(),
        0,
        0,
        LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
        0,
    );
    (fn_ty, asm)
}

unsafe fn rewrite_function(func: LLVMValueRef) -> usize {
    if LLVMCountBasicBlocks(func) == 0 || LLVMGetFunctionCallConv(func) != AMDGPU_KERNEL {
        return 0;
    }
    let bbs = blocks(func);
    let insts: Vec<Vec<LLVMValueRef>> = bbs.iter().map(|&b| instructions(b)).collect();
    // Cheap test first: no block long enough to hold more than TRIGGER values.
    if insts.iter().all(|b| b.len() <= TRIGGER || b.len() > MAX_BLOCK) || has_matrix_or_asm(&insts) {
        return 0;
    }
    let div = divergent_values(func, &insts);
    let ctx = LLVMGetTypeContext(LLVMTypeOf(func));
    let builder = LLVMCreateBuilderInContext(ctx);
    let mut homed = 0;
    for block in insts.iter().filter(|b| b.len() > TRIGGER && b.len() <= MAX_BLOCK) {
        let cands = candidates(block, &div);
        for k in choose(&cands, block.len()) {
            let c = &cands[k];
            let ty = LLVMTypeOf(c.value);
            let (wty, write) = inline_asm(ty, "v_accvgpr_write_b32 $0, $1", "=a,v");
            let (rty, read) = inline_asm(ty, "v_accvgpr_read_b32 $0, $1", "=v,a");
            let next = LLVMGetNextInstruction(c.value);
            if next.is_null() {
                continue;
            }
            LLVMPositionBuilderBefore(builder, next);
            let mut args = [c.value];
            let home = LLVMBuildCall2(builder, wty, write, args.as_mut_ptr(), 1, c"".as_ptr());
            LLVMPositionBuilderBefore(builder, block[c.first_use]);
            let mut args = [home];
            let back = LLVMBuildCall2(builder, rty, read, args.as_mut_ptr(), 1, c"".as_ptr());
            LLVMReplaceAllUsesWith(c.value, back);
            // The write's own operand was replaced too: it reads the definition.
            LLVMSetOperand(home, 0, c.value);
            homed += 1;
        }
    }
    LLVMDisposeBuilder(builder);
    if homed > 0 {
        // The attributor's "no AGPRs" promise no longer holds.
        let key = "amdgpu-agpr-alloc";
        LLVMRemoveStringAttributeAtIndex(func, llvm_sys_function_index(), key.as_ptr() as *const _, key.len() as u32);
    }
    homed
}

/// LLVMAttributeFunctionIndex (`~0U`).
fn llvm_sys_function_index() -> u32 {
    u32::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(def: usize, first_use: usize, last_use: usize) -> Candidate {
        Candidate { value: std::ptr::null_mut(), def, first_use, last_use }
    }

    #[test]
    fn nothing_is_chosen_below_the_trigger() {
        let cands: Vec<Candidate> = (0..TRIGGER).map(|i| cand(i, 2 * TRIGGER + 10, 2 * TRIGGER + 10)).collect();
        assert!(choose(&cands, 2 * TRIGGER + 20).is_empty());
    }

    #[test]
    fn the_longest_stretches_go_until_the_goal_holds() {
        // 300 values defined at 0..300 and used in reverse order at 300..600 (vgpr_high's shape):
        // at the peak all 300 are live.
        let n = 300;
        let cands: Vec<Candidate> = (0..n).map(|i| cand(i, 2 * n - 1 - i, 2 * n - 1 - i)).collect();
        let chosen = choose(&cands, 2 * n);
        assert_eq!(chosen.len(), n - GOAL, "{chosen:?}");
        // The first defined (used last) are the longest stretches.
        assert!(chosen.iter().all(|&k| k < n - GOAL), "{chosen:?}");
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    /// The largest block the step takes, every value live to its end: the choice stays within
    /// its bounds (homes, candidates looked at) and ends.
    #[test]
    fn a_huge_block_is_bounded() {
        let n = MAX_BLOCK / 2;
        let cands: Vec<Candidate> =
            (0..n).map(|i| Candidate { value: std::ptr::null_mut(), def: i, first_use: MAX_BLOCK - 1, last_use: MAX_BLOCK - 1 }).collect();
        let chosen = choose(&cands, MAX_BLOCK);
        assert_eq!(chosen.len(), MAX_HOMES);
    }
}
