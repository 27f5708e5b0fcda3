//! Reading a thread's own bit of a lane mask without the mask (the `hx-lane-bits` step of
//! [`crate::OptLevel::raised_pipeline`]).
//!
//! Raised code keeps the source's lane masks (VCC, saved EXEC, loop exit masks) as 32-bit values
//! built by ballots, and reads a thread's own bit back as `icmp ne (and (lshr M, %lane), 1), 0`.
//! A thread's bit of `trunc(lshr(ballot(c), %half_shift))` is `c` for the thread itself: SSA
//! dominance means the thread ran the ballot, so it was active there and its bit is its own `c`.
//! Bits commute with the bitwise operations, selects and phis that combine masks, so a read whose
//! mask is built only from such ballots, 0 and -1 through and/or/xor/select/phi becomes the same
//! combination of the threads' own i1 values; the ballots then often have no use left and go, and
//! with them the cross-lane work (and the compile time) the backend spent on them. LLVM does not
//! do this itself: it does not know that a ballot's own bit is its operand.
//!
//! The same graphs decide a second kind of read: `icmp eq/ne (and E, X), 0` where E is the
//! thread's half of `ballot(true)` (the source's EXEC where the thread runs: it has the thread's
//! own bit, so it is not zero) and X is built only from 0 and -1 (a uniform condition as a lane
//! mask, as `s_cselect_b32 s, -1, 0` makes it): every bit of X is the same, so the test is X's
//! bit. That is how LLVM lowers a uniform branch for wave32 (`s_and_not1_b32 vcc_lo, exec_lo, s;
//! s_cbranch_vccnz`), and left alone it becomes cross-lane work on the target.
//!
//! `%lane` (the thread's lane in its 32-lane half) and `%half_shift` (0 or 32) are the values the
//! raiser names so in the entry block; for a kernel whose work-groups are one source wave there
//! is no `%half_shift`, `%lane` is `mbcnt.lo(-1, 0)` and the ballots are not shifted. A function
//! with neither form is left alone. Run after SROA, when
//! the register slots are SSA values, and before instcombine rewrites the read pattern.

use inkwell::module::Module;
use crate::ir_walk::opcode;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// Rewrites every own-bit read of a mask that is a combination of ballots in `module`; returns
/// how many reads it rewrote.
pub fn rewrite(module: &Module<'_>) -> usize {
    crate::ir_walk::each_function(module, rewrite_function)
}

fn name_of(v: LLVMValueRef) -> &'static [u8] {
    let mut len = 0usize;
    // SAFETY: `v` is a valid value; the name lives as long as the value and is only compared.
    unsafe {
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return &[];
        }
        std::slice::from_raw_parts(p as *const u8, len)
    }
}

unsafe fn const_int(v: LLVMValueRef) -> Option<u64> {
    if LLVMIsAConstantInt(v).is_null() {
        None
    } else {
        Some(LLVMConstIntGetZExtValue(v))
    }
}

/// X when `v` is `and X, k`.
unsafe fn and_with(v: LLVMValueRef, k: u64) -> Option<LLVMValueRef> {
    (opcode(v)? == LLVMOpcode::LLVMAnd && const_int(LLVMGetOperand(v, 1)) == Some(k)).then(|| LLVMGetOperand(v, 0))
}

/// X when `v` is `lshr X, amount`.
unsafe fn lshr_by(v: LLVMValueRef, amount: LLVMValueRef) -> Option<LLVMValueRef> {
    (opcode(v)? == LLVMOpcode::LLVMLShr && LLVMGetOperand(v, 1) == amount).then(|| LLVMGetOperand(v, 0))
}

/// `v` when it is a call of the function `name`.
unsafe fn call_of(v: LLVMValueRef, name: &[u8]) -> Option<LLVMValueRef> {
    if opcode(v)? != LLVMOpcode::LLVMCall {
        return None;
    }
    let callee = LLVMGetCalledValue(v);
    (!LLVMIsAFunction(callee).is_null() && name_of(callee) == name).then_some(v)
}

/// Whether `lane` is `and(L, 31)` and `half_shift` is `zext(and(L, 32))` for
/// L = `mbcnt.hi(-1, mbcnt.lo(-1, 0))`, the thread's lane in the wave: the names alone do not
/// make the rewrite right.
unsafe fn lane_values(lane: LLVMValueRef, half_shift: LLVMValueRef) -> bool {
    let check = || -> Option<()> {
        let l = and_with(lane, 31)?;
        if opcode(half_shift)? != LLVMOpcode::LLVMZExt || and_with(LLVMGetOperand(half_shift, 0), 32)? != l {
            return None;
        }
        let hi = call_of(l, b"llvm.amdgcn.mbcnt.hi")?;
        let lo = call_of(LLVMGetOperand(hi, 1), b"llvm.amdgcn.mbcnt.lo")?;
        let all = |v: LLVMValueRef| const_int(v) == Some(0xffff_ffff);
        (all(LLVMGetOperand(hi, 0)) && all(LLVMGetOperand(lo, 0)) && const_int(LLVMGetOperand(lo, 1)) == Some(0)).then_some(())
    };
    check().is_some()
}

/// Whether `lane` is `mbcnt.lo(-1, 0)`: the raiser's lane for a kernel whose work-groups are one
/// source wave (lanes 0..31 of the target wave run; there is no `%half_shift`).
unsafe fn one_wave_lane(lane: LLVMValueRef) -> bool {
    let check = || -> Option<()> {
        let lo = call_of(lane, b"llvm.amdgcn.mbcnt.lo")?;
        (const_int(LLVMGetOperand(lo, 0)) == Some(0xffff_ffff) && const_int(LLVMGetOperand(lo, 1)) == Some(0)).then_some(())
    };
    check().is_some()
}

/// The i1 operand of `v` when `v` is `trunc(lshr(ballot.i64(c), half_shift))`, or with a null
/// `half_shift` (one source wave), `trunc(ballot.i64(c))`.
unsafe fn ballot_operand(v: LLVMValueRef, half_shift: LLVMValueRef) -> Option<LLVMValueRef> {
    if opcode(v)? != LLVMOpcode::LLVMTrunc {
        return None;
    }
    let shifted = LLVMGetOperand(v, 0);
    let ballot = if half_shift.is_null() { shifted } else { lshr_by(shifted, half_shift)? };
    let call = call_of(ballot, b"llvm.amdgcn.ballot.i64")?;
    Some(LLVMGetOperand(call, 0))
}

/// The mask `M` when `v` is `icmp ne (and (lshr M, lane), 1), 0`.
unsafe fn own_bit_read(v: LLVMValueRef, lane: LLVMValueRef) -> Option<LLVMValueRef> {
    if opcode(v)? != LLVMOpcode::LLVMICmp || LLVMGetICmpPredicate(v) != LLVMIntPredicate::LLVMIntNE || const_int(LLVMGetOperand(v, 1)) != Some(0) {
        return None;
    }
    lshr_by(and_with(LLVMGetOperand(v, 0), 1)?, lane)
}

/// X and whether the test is `ne` when `v` is `icmp eq|ne (and E, X), 0` (either operand
/// order) with E the thread's half of `ballot(true)`.
unsafe fn uniform_test(v: LLVMValueRef, half_shift: LLVMValueRef) -> Option<(LLVMValueRef, bool)> {
    if opcode(v)? != LLVMOpcode::LLVMICmp || const_int(LLVMGetOperand(v, 1)) != Some(0) {
        return None;
    }
    let ne = match LLVMGetICmpPredicate(v) {
        LLVMIntPredicate::LLVMIntNE => true,
        LLVMIntPredicate::LLVMIntEQ => false,
        _ => return None,
    };
    let and = LLVMGetOperand(v, 0);
    if opcode(and)? != LLVMOpcode::LLVMAnd {
        return None;
    }
    let live = |e: LLVMValueRef| ballot_operand(e, half_shift).and_then(|c| const_int(c)) == Some(1);
    let (a, b) = (LLVMGetOperand(and, 0), LLVMGetOperand(and, 1));
    if live(a) {
        Some((b, ne))
    } else if live(b) {
        Some((a, ne))
    } else {
        None
    }
}

/// How a mask's own bit is made from the bits of other masks.
#[derive(Clone, Copy, PartialEq)]
enum Node {
    Const(bool),
    Ballot(LLVMValueRef),
    Bitwise(LLVMOpcode),
    Select,
    Phi,
}

unsafe fn node(v: LLVMValueRef, half_shift: LLVMValueRef) -> Option<Node> {
    if LLVMTypeOf(v) != LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v))) {
        return None;
    }
    if let Some(c) = const_int(v) {
        return match c {
            0 => Some(Node::Const(false)),
            0xffff_ffff => Some(Node::Const(true)),
            _ => None,
        };
    }
    if let Some(c) = ballot_operand(v, half_shift) {
        return Some(Node::Ballot(c));
    }
    match opcode(v)? {
        o @ (LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr | LLVMOpcode::LLVMXor) => Some(Node::Bitwise(o)),
        LLVMOpcode::LLVMSelect => Some(Node::Select),
        LLVMOpcode::LLVMPHI => Some(Node::Phi),
        _ => None,
    }
}

/// The masks a node's bit depends on.
unsafe fn mask_operands(v: LLVMValueRef, n: Node) -> Vec<LLVMValueRef> {
    match n {
        Node::Const(_) | Node::Ballot(_) => Vec::new(),
        Node::Bitwise(_) => vec![LLVMGetOperand(v, 0), LLVMGetOperand(v, 1)],
        Node::Select => vec![LLVMGetOperand(v, 1), LLVMGetOperand(v, 2)],
        Node::Phi => (0..LLVMCountIncoming(v)).map(|i| LLVMGetIncomingValue(v, i)).collect(),
    }
}

unsafe fn rewrite_function(func: LLVMValueRef) -> usize {
    let entry = LLVMGetFirstBasicBlock(func);
    if entry.is_null() {
        return 0;
    }
    let (mut lane, mut half_shift) = (std::ptr::null_mut(), std::ptr::null_mut());
    let mut i = LLVMGetFirstInstruction(entry);
    while !i.is_null() {
        match name_of(i) {
            b"lane" => lane = i,
            b"half_shift" => half_shift = i,
            _ => {}
        }
        i = LLVMGetNextInstruction(i);
    }
    // Either the two halves' form, or one source wave's (null `half_shift`).
    let known = if half_shift.is_null() { !lane.is_null() && one_wave_lane(lane) } else { !lane.is_null() && lane_values(lane, half_shift) };
    if !known {
        return 0;
    }
    // The reads (own bits; tests of a uniform mask under EXEC), and every mask they depend on.
    let mut reads = Vec::new();
    let mut tests = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if let Some(m) = own_bit_read(i, lane) {
                reads.push((i, m));
            } else if let Some((m, ne)) = uniform_test(i, half_shift) {
                tests.push((i, m, ne));
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    if reads.is_empty() && tests.is_empty() {
        return 0;
    }
    let mut nodes: HashMap<LLVMValueRef, Option<Node>> = HashMap::new();
    let mut work: Vec<LLVMValueRef> = reads.iter().map(|&(_, m)| m).chain(tests.iter().map(|&(_, m, _)| m)).collect();
    while let Some(v) = work.pop() {
        if nodes.contains_key(&v) {
            continue;
        }
        let n = node(v, half_shift);
        nodes.insert(v, n);
        if let Some(n) = n {
            work.extend(mask_operands(v, n));
        }
    }
    // Greatest fixed point: a mask is derivable when every mask it depends on is (phi cycles
    // included). Worklists throughout, not recursion: mask chains can be as long as a kernel.
    let mut users: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
    for (&v, n) in &nodes {
        if let Some(n) = n {
            for o in mask_operands(v, *n) {
                users.entry(o).or_default().push(v);
            }
        }
    }
    let fixed_point = |leaf_ok: fn(&Node) -> bool| {
        let mut good: HashSet<LLVMValueRef> = nodes.iter().filter(|(_, n)| n.as_ref().is_some_and(leaf_ok)).map(|(&v, _)| v).collect();
        let mut bad: Vec<LLVMValueRef> = nodes.keys().filter(|v| !good.contains(*v)).copied().collect();
        while let Some(v) = bad.pop() {
            for &u in users.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if good.remove(&u) {
                    bad.push(u);
                }
            }
        }
        good
    };
    let good = fixed_point(|_| true);
    // Masks whose bits are all the same: no ballot anywhere below them.
    let uniform = fixed_point(|n| !matches!(n, Node::Ballot(_)));
    let ctx = LLVMGetTypeContext(LLVMTypeOf(func));
    let builder = LLVMCreateBuilderInContext(ctx);
    let mut bits: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
    let mut done = 0;
    for &(read, m) in &reads {
        if !good.contains(&m) {
            continue;
        }
        let bit = materialize(builder, ctx, m, &nodes, &mut bits);
        LLVMReplaceAllUsesWith(read, bit);
        LLVMInstructionEraseFromParent(read);
        done += 1;
    }
    for &(test, m, ne) in &tests {
        if !uniform.contains(&m) {
            continue;
        }
        let mut bit = materialize(builder, ctx, m, &nodes, &mut bits);
        if !ne {
            LLVMPositionBuilderBefore(builder, test);
            bit = LLVMBuildNot(builder, bit, c"".as_ptr());
        }
        LLVMReplaceAllUsesWith(test, bit);
        LLVMInstructionEraseFromParent(test);
        done += 1;
    }
    LLVMDisposeBuilder(builder);
    done
}

/// The i1 own bit of mask `root` (derivable), each mask's bit placed right after the mask (a
/// phi's: a phi of the bits at the top of its block), so it dominates every use the mask
/// dominates. Operands before users, by an explicit stack; a phi is made (and memoized) before
/// its incoming bits, which are added once every bit exists (a loop's phi may depend on itself).
unsafe fn materialize(builder: LLVMBuilderRef, ctx: LLVMContextRef, root: LLVMValueRef, nodes: &HashMap<LLVMValueRef, Option<Node>>, bits: &mut HashMap<LLVMValueRef, LLVMValueRef>) -> LLVMValueRef {
    let i1 = LLVMInt1TypeInContext(ctx);
    let empty = c"".as_ptr();
    let mut phis = Vec::new();
    // (mask, its operands' bits are made)
    let mut stack = vec![(root, false)];
    while let Some((v, ready)) = stack.pop() {
        if bits.contains_key(&v) {
            continue;
        }
        let Some(n) = nodes.get(&v).copied().flatten() else { continue };
        let b = match n {
            Node::Const(c) => LLVMConstInt(i1, c as u64, 0),
            Node::Ballot(c) => c,
            Node::Phi => {
                LLVMPositionBuilderBefore(builder, LLVMGetFirstInstruction(LLVMGetInstructionParent(v)));
                let phi = LLVMBuildPhi(builder, i1, empty);
                phis.push((phi, v));
                stack.extend(mask_operands(v, n).into_iter().map(|o| (o, false)));
                phi
            }
            Node::Bitwise(_) | Node::Select if !ready => {
                stack.push((v, true));
                stack.extend(mask_operands(v, n).into_iter().map(|o| (o, false)));
                continue;
            }
            Node::Bitwise(o) => {
                let (a, c) = (bits[&LLVMGetOperand(v, 0)], bits[&LLVMGetOperand(v, 1)]);
                LLVMPositionBuilderBefore(builder, LLVMGetNextInstruction(v));
                match o {
                    LLVMOpcode::LLVMAnd => LLVMBuildAnd(builder, a, c, empty),
                    LLVMOpcode::LLVMOr => LLVMBuildOr(builder, a, c, empty),
                    _ => LLVMBuildXor(builder, a, c, empty),
                }
            }
            Node::Select => {
                let (a, c) = (bits[&LLVMGetOperand(v, 1)], bits[&LLVMGetOperand(v, 2)]);
                LLVMPositionBuilderBefore(builder, LLVMGetNextInstruction(v));
                LLVMBuildSelect(builder, LLVMGetOperand(v, 0), a, c, empty)
            }
        };
        bits.insert(v, b);
    }
    for (phi, v) in phis {
        for k in 0..LLVMCountIncoming(v) {
            let mut val = bits[&LLVMGetIncomingValue(v, k)];
            let mut from = LLVMGetIncomingBlock(v, k);
            LLVMAddIncoming(phi, &mut val, &mut from, 1);
        }
    }
    bits[&root]
}

#[cfg(test)]
mod tests {
    use crate::{compile_ir_with, parse_ir, verify, Emit, GpuTarget, OptLevel, LANE_BITS};
    use inkwell::context::Context;

    /// The raiser's `%lane` and `%half_shift`, and `%bs`, a ballot of `%lane < %n` shifted to
    /// the thread's half (the entry block of the test functions).
    const ENTRY: &str = "regs:
  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %hi = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)
  %lane = and i32 %hi, 31
  %h = and i32 %hi, 32
  %half_shift = zext i32 %h to i64
  %c = icmp ult i32 %lane, %n
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %bs = lshr i64 %b, %half_shift
";

    const DECLARATIONS: &str = "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
";

    /// Masks as the raiser builds them: ballots of the thread's half, combined in a loop (phi),
    /// with xor/and/or/select and constants; one read of a mask loaded from memory, which has
    /// no own-bit form.
    fn masks() -> String {
        format!(
            r#"
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {{
{ENTRY}  %m = trunc i64 %bs to i32
  br label %loop
loop:
  %acc = phi i32 [ %m, %regs ], [ %acc3, %loop ]
  %i = phi i32 [ 0, %regs ], [ %i1, %loop ]
  %c2 = icmp eq i32 %i, %lane
  %b2 = call i64 @llvm.amdgcn.ballot.i64(i1 %c2)
  %bs2 = lshr i64 %b2, %half_shift
  %m2 = trunc i64 %bs2 to i32
  %nm = xor i32 %m2, -1
  %acc2 = and i32 %acc, %nm
  %odd = icmp ne i32 %n, 3
  %acc3 = select i1 %odd, i32 %acc2, i32 -1
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, 8
  br i1 %done, label %exit, label %loop
exit:
  %any = or i32 %acc3, 0
  %s = lshr i32 %any, %lane
  %a = and i32 %s, 1
  %r = icmp ne i32 %a, 0
  %x = load i32, ptr addrspace(1) %in
  %s2 = lshr i32 %x, %lane
  %a2 = and i32 %s2, 1
  %r2 = icmp ne i32 %a2, 0
  %both = and i1 %r, %r2
  %v = zext i1 %both to i32
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %hi
  store i32 %v, ptr addrspace(1) %p
  ret void
}}
{DECLARATIONS}"#
        )
    }

    #[test]
    fn reads_of_ballot_masks_become_the_threads_own_bits() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, &masks(), "k").unwrap();
        // The read of the loop's mask; not the one of the loaded mask.
        assert_eq!(super::rewrite(&m), 1);
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        assert!(text.contains("lshr i32 %x, %lane"), "{text}");
        assert!(!text.contains("%r = icmp") && text.contains("%r2 = icmp"), "{text}");
        // Through the raised pipeline the ballots go; without the step they stay.
        let with = OptLevel::O2.raised_pipeline();
        let without = with.replace(&format!(";{LANE_BITS};"), ";");
        assert_ne!(with, without);
        for (passes, ballots) in [(with.to_string(), false), (without, true)] {
            let ir = compile_ir_with(&masks(), "k", GpuTarget::Gfx942, OptLevel::O2, &passes, Emit::LlvmIr).unwrap();
            let ir = String::from_utf8(ir).unwrap();
            assert_eq!(ir.contains("call i64 @llvm.amdgcn.ballot"), ballots, "{passes}:\n{ir}");
        }
    }

    /// A chain of 50,000 mask operations (a long unrolled kernel's): the rewrite must not recurse
    /// once per link (a test thread has a 2 MiB stack).
    #[test]
    fn long_mask_chains_are_rewritten_without_deep_recursion() {
        let n = 50_000;
        let mut ir = format!("define void @k(ptr addrspace(1) %out, i32 %n) {{\n{ENTRY}  %m0 = trunc i64 %bs to i32\n");
        for i in 1..=n {
            let op = ["xor", "and", "or"][i % 3];
            let k = if op == "xor" { "-1" } else { "%m0" };
            ir += &format!("  %m{i} = {op} i32 %m{}, {k}\n", i - 1);
        }
        ir += &format!(
            "  %s = lshr i32 %m{n}, %lane
  %a = and i32 %s, 1
  %r = icmp ne i32 %a, 0
  %v = zext i1 %r to i32
  store i32 %v, ptr addrspace(1) %out
  ret void
}}
{DECLARATIONS}"
        );
        let ctx = Context::create();
        let m = parse_ir(&ctx, &ir, "k").unwrap();
        assert_eq!(super::rewrite(&m), 1);
        verify(&m, "k").unwrap();
    }

    /// A uniform branch as LLVM writes it for wave32 (`vcc = exec & ~s; s_cbranch_vccnz`), s a
    /// phi of `select(c, -1, 0)` and constants, and tests whose answer depends on the lanes:
    /// under a mask with a ballot of a thread condition in it, or under a non-EXEC mask, or of
    /// the whole 32 bits where EXEC is not one side of the `and`.
    fn uniform_tests() -> String {
        format!(
            r#"
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %n) {{
{ENTRY}  %e = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  %es = lshr i64 %e, %half_shift
  %exec = trunc i64 %es to i32
  %m = trunc i64 %bs to i32
  %big = icmp ugt i32 %n, 7
  br i1 %big, label %ta, label %tb
ta:
  %odd = icmp ne i32 %n, 9
  %sa = select i1 %odd, i32 -1, i32 0
  br label %j
tb:
  br label %j
j:
  %s = phi i32 [ %sa, %ta ], [ -1, %tb ]
  %ns = xor i32 %s, -1
  %vcc = and i32 %exec, %ns
  %t0 = icmp ne i32 %vcc, 0
  %t1 = icmp eq i32 %vcc, 0
  %sm = and i32 %s, %m
  %vm = and i32 %exec, %sm
  %t2 = icmp ne i32 %vm, 0
  %vn = and i32 %n, %s
  %t3 = icmp ne i32 %vn, 0
  %all = and i32 %exec, -1
  %xor = xor i32 %all, %s
  %t4 = icmp ne i32 %xor, 0
  %z0 = zext i1 %t0 to i32
  %z1 = zext i1 %t1 to i32
  %z2 = zext i1 %t2 to i32
  %z3 = zext i1 %t3 to i32
  %z4 = zext i1 %t4 to i32
  %o1 = shl i32 %z1, 1
  %o2 = shl i32 %z2, 2
  %o3 = shl i32 %z3, 3
  %o4 = shl i32 %z4, 4
  %r1 = or i32 %z0, %o1
  %r2 = or i32 %r1, %o2
  %r3 = or i32 %r2, %o3
  %r = or i32 %r3, %o4
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %hi
  store i32 %r, ptr addrspace(1) %p
  ret void
}}
{DECLARATIONS}"#
        )
    }

    #[test]
    fn tests_of_uniform_masks_under_exec_become_the_condition() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, &uniform_tests(), "k").unwrap();
        // %t0 and %t1 only.
        assert_eq!(super::rewrite(&m), 2);
        verify(&m, "k").unwrap();
        let text = m.print_to_string().to_string();
        assert!(!text.contains("%t0 = icmp") && !text.contains("%t1 = icmp"), "{text}");
        for kept in ["%t2 = icmp", "%t3 = icmp", "%t4 = icmp"] {
            assert!(text.contains(kept), "{kept}:\n{text}");
        }
        // With only %t0 and %t1 stored, EXEC is needed no more: through the raised pipeline the
        // ballot of true goes; without the step it stays.
        let branch_only = uniform_tests().replace("%r = or i32 %r3, %o4", "%r = or i32 %z0, %o1");
        let with = OptLevel::O2.raised_pipeline();
        let without = with.replace(&format!(";{LANE_BITS};"), ";");
        for (passes, ballot) in [(with.to_string(), false), (without, true)] {
            let ir = compile_ir_with(&branch_only, "k", GpuTarget::Gfx942, OptLevel::O2, &passes, Emit::LlvmIr).unwrap();
            let ir = String::from_utf8(ir).unwrap();
            assert_eq!(ir.contains("ballot.i64(i1 true)"), ballot, "{passes}:\n{ir}");
        }
    }

    /// [`masks`] as the raiser builds it for a kernel whose work-groups are one source wave:
    /// `%lane` is `mbcnt.lo(-1, 0)`, no `%half_shift`, the ballots not shifted.
    fn one_wave_masks() -> String {
        masks()
            .replace("  %lane = and i32 %hi, 31\n  %h = and i32 %hi, 32\n  %half_shift = zext i32 %h to i64\n", "")
            .replace("%lo = call i32 @llvm.amdgcn.mbcnt.lo", "%lane = call i32 @llvm.amdgcn.mbcnt.lo")
            .replace("i32 -1, i32 %lo)", "i32 -1, i32 %lane)")
            .replace("  %bs = lshr i64 %b, %half_shift\n", "")
            .replace("  %bs2 = lshr i64 %b2, %half_shift\n", "")
            .replace("trunc i64 %bs to", "trunc i64 %b to")
            .replace("trunc i64 %bs2 to", "trunc i64 %b2 to")
    }

    #[test]
    fn one_source_wave_masks_are_rewritten_too() {
        let ctx = Context::create();
        let ir = one_wave_masks();
        assert!(!ir.contains("half_shift") && ir.contains("%lane = call i32 @llvm.amdgcn.mbcnt.lo"), "{ir}");
        let m = parse_ir(&ctx, &ir, "k").unwrap();
        assert_eq!(super::rewrite(&m), 1);
        verify(&m, "k").unwrap();
        // `%lane` another count than the thread's lane: left alone.
        let m = parse_ir(&ctx, &ir.replace("mbcnt.lo(i32 -1, i32 0)", "mbcnt.lo(i32 -1, i32 5)"), "k").unwrap();
        assert_eq!(super::rewrite(&m), 0);
    }

    #[test]
    fn functions_without_the_raisers_lane_values_are_left_alone() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, &masks().replace("%lane", "%l").replace("%half_shift", "%hs"), "k").unwrap();
        assert_eq!(super::rewrite(&m), 0);
        // Named so, but not the thread's lane in the wave.
        let m = parse_ir(&ctx, &masks().replace("%lane = and i32 %hi, 31", "%lane = and i32 %n, 31"), "k").unwrap();
        assert_eq!(super::rewrite(&m), 0);
    }
}
