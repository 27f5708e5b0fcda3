//! The control-flow graph of one kernel or function: basic blocks of decoded instructions,
//! split at branch targets and after every instruction that ends a block.

use crate::RaiseError;
use hx_isa::{Instruction, Operand, Target};
use std::collections::{BTreeMap, BTreeSet};

/// How control leaves a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Falls through into the block at this offset.
    Fall(usize),
    /// s_branch.
    Jump(usize),
    /// s_cbranch_*: `taken` when the condition holds, else `fall`.
    Cond { cond: Cond, taken: usize, fall: usize },
    /// s_endpgm.
    End,
    /// The last instruction of the region is not a branch or s_endpgm: an error if reachable.
    OffTheEnd,
    /// s_swap_pc_i64: a call of one of [`Cfg::functions`]; the callee returns to `ret`.
    Call { ret: usize },
    /// s_set_pc_i64: a return to one of [`Cfg::return_sites`].
    Return,
}

/// The condition of a conditional branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

#[derive(Debug, Clone)]
pub struct Block {
    /// Byte offset of the first instruction in the region.
    pub start: usize,
    /// The instructions, the branch (if any) last.
    pub insts: Vec<Instruction>,
    pub exit: Exit,
}

#[derive(Debug, Clone)]
pub struct Cfg {
    /// The entry block first, then the others in address order.
    pub blocks: Vec<Block>,
    /// Entries of the device functions a call may reach (empty without calls).
    pub functions: Vec<usize>,
    /// The instructions after each call.
    pub return_sites: Vec<usize>,
    /// Address of offset 0.
    pub base: u64,
}

impl Cfg {
    pub fn block_at(&self, start: usize) -> Option<usize> {
        self.blocks.iter().position(|b| b.start == start)
    }

    /// Successor block starts of a block.
    pub fn successors(&self, i: usize) -> Vec<usize> {
        match self.blocks[i].exit {
            Exit::Fall(t) | Exit::Jump(t) => vec![t],
            Exit::Cond { taken, fall, .. } => vec![taken, fall],
            Exit::Call { .. } => self.functions.clone(),
            Exit::Return => self.return_sites.clone(),
            Exit::End | Exit::OffTheEnd => vec![],
        }
    }
}

fn cond_of(m: &str) -> Option<Cond> {
    Some(match m {
        "s_cbranch_scc0" => Cond::Scc0,
        "s_cbranch_scc1" => Cond::Scc1,
        "s_cbranch_vccz" => Cond::Vccz,
        "s_cbranch_vccnz" => Cond::Vccnz,
        "s_cbranch_execz" => Cond::Execz,
        "s_cbranch_execnz" => Cond::Execnz,
        _ => return None,
    })
}

/// Branch target of a SOPP branch at `offset`: next instruction + 4 * simm16 (signed).
fn branch_target(inst: &Instruction, offset: usize, kernel: &str, lo: usize, hi: usize) -> Result<usize, RaiseError> {
    let imm = inst.operands().find_map(|o| match o.value {
        Operand::Imm(v) => Some(v as u16 as i16 as i64),
        _ => None,
    });
    let imm = imm.ok_or_else(|| RaiseError::at(kernel, offset, inst.mnemonic(), "branch without an offset"))?;
    let t = offset as i64 + inst.len as i64 + 4 * imm;
    if t < lo as i64 || t as usize >= hi {
        return Err(RaiseError::at(kernel, offset, inst.mnemonic(), format!("branch target {t:#x} is outside the code")));
    }
    Ok(t as usize)
}

/// The code a kernel may run: its own and the device functions it can call.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    /// Bytes holding the code; instruction offsets are offsets into this slice.
    pub bytes: &'a [u8],
    /// Address of `bytes[0]` as the source's code sees it (s_get_pc values, call targets).
    pub base: u64,
    /// Offset of the kernel's first instruction.
    pub entry: usize,
    /// Offsets of the device functions' entries (the possible targets of a call).
    pub functions: Vec<usize>,
    /// Offsets [lo, hi) that hold code (branch targets must fall inside).
    pub region: (usize, usize),
    /// The source object's loaded image (its PT_LOAD segments, address 0 upward): the data a
    /// PC-relative load reads (structure::pc_uses). None (the loader would patch it, or no
    /// image): such loads are refused.
    pub data: Option<&'a [u8]>,
}

impl<'a> Program<'a> {
    /// One kernel's bytes alone, at address 0.
    pub fn kernel_only(code: &'a [u8]) -> Program<'a> {
        Program { bytes: code, base: 0, entry: 0, functions: Vec::new(), region: (0, code.len()), data: None }
    }
}

fn is_call(m: &str) -> bool {
    m == "s_swap_pc_i64" || m == "s_swappc_b64"
}

fn is_return(m: &str) -> bool {
    m == "s_set_pc_i64" || m == "s_setpc_b64"
}

/// Decodes `code` (one kernel's bytes) and splits it into blocks.
pub fn build(target: Target, code: &[u8], kernel: &str) -> Result<Cfg, RaiseError> {
    build_program(target, &Program::kernel_only(code), kernel)
}

/// Decodes the code reachable from the kernel's entry (following branches, and calls into the
/// device functions) and splits it into blocks. A call (s_swap_pc_i64) may reach any device
/// function; a return (s_set_pc_i64) any instruction after a call: the raiser dispatches on the
/// address, so the graph is exact whatever the callee.
pub fn build_program(target: Target, prog: &Program<'_>, kernel: &str) -> Result<Cfg, RaiseError> {
    let (lo, hi) = prog.region;
    let code = prog.bytes;
    if lo > hi || hi > code.len() || prog.entry < lo || prog.entry >= hi {
        return Err(RaiseError::Decode { kernel: kernel.to_string(), offset: prog.entry, message: format!("code region {lo:#x}..{hi:#x} (entry {:#x}) does not fit {} bytes", prog.entry, code.len()) });
    }
    let mut insts: BTreeMap<usize, Instruction> = BTreeMap::new();
    let mut leaders: BTreeSet<usize> = BTreeSet::from([prog.entry]);
    let mut return_sites: BTreeSet<usize> = BTreeSet::new();
    let mut work = vec![prog.entry];
    let mut calls = false;
    while let Some(mut at) = work.pop() {
        loop {
            if insts.contains_key(&at) {
                break;
            }
            if at >= hi {
                return Err(RaiseError::Decode { kernel: kernel.to_string(), offset: at, message: "code runs off the end of the kernel".into() });
            }
            let inst = hx_isa::decode(target, &code[..hi], at).map_err(|e| {
                // Name what LLVM decodes there, where the decoder lists it as not modelled yet.
                let message = match (&e, hx_isa::unsupported_mnemonic(target, &code[..hi], at)) {
                    (hx_isa::DecodeError::Unsupported { .. }, Some(m)) => format!("{m}: {e} (not modelled yet)"),
                    _ => e.to_string(),
                };
                RaiseError::Decode { kernel: kernel.to_string(), offset: at, message }
            })?;
            if inst.invalid_register() {
                return Err(RaiseError::at(kernel, at, inst.mnemonic(), "a misaligned register tuple (LLVM marks it invalid; the hardware does not define it)"));
            }
            insts.insert(at, inst);
            let m = inst.mnemonic();
            let next = at + inst.len as usize;
            if m == "s_branch" || cond_of(m).is_some() {
                let t = branch_target(&inst, at, kernel, lo, hi)?;
                leaders.insert(t);
                leaders.insert(next);
                work.push(t);
                if m == "s_branch" {
                    break;
                }
            } else if m == "s_endpgm" {
                break;
            } else if is_call(m) {
                if prog.functions.is_empty() {
                    return Err(RaiseError::at(kernel, at, m, "a call in a code object without device functions"));
                }
                calls = true;
                leaders.insert(next);
                return_sites.insert(next);
            } else if is_return(m) {
                leaders.insert(next);
                break;
            } else if m.starts_with("s_setpc") || m.starts_with("s_swappc") || m.starts_with("s_call") || m.starts_with("s_set_pc") || m.starts_with("s_swap_pc") {
                return Err(RaiseError::at(kernel, at, m, "this call or indirect jump is not raised yet"));
            }
            at = next;
        }
        if calls {
            for &f in &prog.functions {
                if !insts.contains_key(&f) {
                    leaders.insert(f);
                    work.push(f);
                }
            }
        }
    }
    // Code reached at two offsets that overlap (a branch into the middle of an instruction).
    let mut prev: Option<(usize, usize)> = None;
    for (&o, i) in &insts {
        if let Some((po, pend)) = prev {
            if o < pend {
                return Err(RaiseError::Decode { kernel: kernel.to_string(), offset: o, message: format!("code at {o:#x} overlaps the instruction at {po:#x} (a branch target is not an instruction boundary)") });
            }
        }
        prev = Some((o, o + i.len as usize));
    }
    let mut blocks = Vec::new();
    let starts: Vec<usize> = leaders.iter().copied().filter(|s| insts.contains_key(s)).collect();
    for &start in &starts {
        // A block runs to the next leader or to the end of the decoded run it starts.
        let mut body = Vec::new();
        let mut at = start;
        while let Some(i) = insts.get(&at) {
            body.push(*i);
            at += i.len as usize;
            let m = i.mnemonic();
            if m == "s_endpgm" || m == "s_branch" || cond_of(m).is_some() || is_call(m) || is_return(m) || leaders.contains(&at) {
                break;
            }
        }
        let l = *body.last().expect("a leader decodes to an instruction");
        let end = l.offset + l.len as usize;
        let exit = match l.mnemonic() {
            "s_endpgm" => Exit::End,
            "s_branch" => Exit::Jump(branch_target(&l, l.offset, kernel, lo, hi)?),
            m if cond_of(m).is_some() => Exit::Cond { cond: cond_of(m).unwrap(), taken: branch_target(&l, l.offset, kernel, lo, hi)?, fall: end },
            m if is_call(m) => Exit::Call { ret: end },
            m if is_return(m) => Exit::Return,
            _ if insts.contains_key(&end) => Exit::Fall(end),
            _ => Exit::OffTheEnd,
        };
        blocks.push(Block { start, insts: body, exit });
    }
    // The entry block first, the rest in address order.
    let e = blocks.iter().position(|b| b.start == prog.entry).expect("the entry is a leader");
    let entry = blocks.remove(e);
    blocks.insert(0, entry);
    let functions = if calls { prog.functions.clone() } else { Vec::new() };
    let cfg = Cfg { blocks, functions, return_sites: return_sites.into_iter().collect(), base: prog.base };
    let mut cfg = cfg;
    apply_vgpr_msb(&mut cfg, kernel)?;
    merge_tails(&mut cfg, code);
    for (i, b) in cfg.blocks.iter().enumerate() {
        if b.exit == Exit::OffTheEnd {
            let l = b.insts.last().expect("blocks are not empty");
            return Err(RaiseError::at(kernel, l.offset, l.mnemonic(), "code runs off the end of the kernel"));
        }
        for s in cfg.successors(i) {
            cfg.block_at(s).ok_or_else(|| RaiseError::Decode { kernel: kernel.to_string(), offset: s, message: "successor is not a block".into() })?;
        }
    }
    Ok(cfg)
}

/// Rewrites every instruction to the VGPRs it uses under the `s_set_vgpr_msb` state that holds
/// where it runs (see `hx_isa::msb`). The state is 0 at the kernel's entry and flows along the
/// graph's edges (calls and returns included); a block reached with two different states is
/// refused, since its registers would depend on the path.
fn apply_vgpr_msb(cfg: &mut Cfg, kernel: &str) -> Result<(), RaiseError> {
    let uses = cfg.blocks.iter().flat_map(|b| b.insts.iter()).any(|i| hx_isa::msb::set_vgpr_msb_value(i).is_some());
    if !uses {
        return Ok(());
    }
    let n = cfg.blocks.len();
    let mut at_entry: Vec<Option<u8>> = vec![None; n];
    at_entry[0] = Some(0);
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let mut state = at_entry[i].expect("queued blocks have a state");
        for inst in &cfg.blocks[i].insts {
            if let Some(v) = hx_isa::msb::set_vgpr_msb_value(inst) {
                state = v;
            }
        }
        for s in cfg.successors(i) {
            let Some(j) = cfg.block_at(s) else { continue };
            match at_entry[j] {
                None => {
                    at_entry[j] = Some(state);
                    work.push(j);
                }
                Some(old) if old != state => {
                    return Err(RaiseError::at(kernel, s, "s_set_vgpr_msb", format!("the block at {s:#x} is reached with VGPR MSB states {old:#x} and {state:#x}")));
                }
                Some(_) => {}
            }
        }
    }
    for (i, b) in cfg.blocks.iter_mut().enumerate() {
        let mut state = at_entry[i].unwrap_or(0);
        for inst in b.insts.iter_mut() {
            if let Some(v) = hx_isa::msb::set_vgpr_msb_value(inst) {
                state = v;
                continue;
            }
            *inst = inst.with_vgpr_msb(state).map_err(|e| RaiseError::at(kernel, inst.offset, inst.mnemonic(), e.0))?;
        }
    }
    Ok(())
}

/// The same successors: a branch and its inverse to swapped targets count as one.
fn same_exit(a: Exit, b: Exit) -> bool {
    let neg = |c: Cond| match c {
        Cond::Scc0 => Cond::Scc1,
        Cond::Scc1 => Cond::Scc0,
        Cond::Vccz => Cond::Vccnz,
        Cond::Vccnz => Cond::Vccz,
        Cond::Execz => Cond::Execnz,
        Cond::Execnz => Cond::Execz,
    };
    match (a, b) {
        (Exit::Fall(x) | Exit::Jump(x), Exit::Fall(y) | Exit::Jump(y)) => x == y,
        (Exit::Cond { cond: c1, taken: t1, fall: f1 }, Exit::Cond { cond: c2, taken: t2, fall: f2 }) => {
            (c1 == c2 && t1 == t2 && f1 == f2) || (c2 == neg(c1) && t1 == f2 && f1 == t2)
        }
        (Exit::End, Exit::End) => true,
        _ => false,
    }
}

/// Undoes tail duplication: where a block ends with the same instructions as another whole
/// block and both go on to the same successors, the first jumps to the second instead of running
/// its own copy. LLVM's block placement duplicates the code after an if-then's join into the
/// out-of-line body (`s_and_saveexec; s_cbranch_execnz BODY; JOIN: s_or_b32 exec_lo, ...` with
/// BODY ending in its own copy of the restore and of what follows, an inverted branch at its
/// end); merged back, the if-then has one join again and structure recovery sees its shape.
/// Only copies the same to the byte (and, under `s_set_vgpr_msb`, to the register) are merged,
/// and none that reads the program counter (each copy's PC differs), so every path runs the same
/// instructions as before. Each merge shortens a block, so this ends.
fn merge_tails(cfg: &mut Cfg, code: &[u8]) {
    let kept = |i: &Instruction| {
        let m = i.mnemonic();
        !(crate::structure::ignorable_here(m) || m == "s_branch" || cond_of(m).is_some())
    };
    let pc_free = |i: &Instruction| {
        let m = i.mnemonic();
        !(m.contains("_pc") || m.contains("pc_") || m.starts_with("s_call") || m.contains("getpc") || m.contains("setpc") || m.contains("swappc"))
    };
    let same = |a: &Instruction, b: &Instruction| {
        let bytes = |i: &Instruction| code.get(i.offset..i.offset + i.len as usize);
        a.len == b.len && bytes(a).is_some() && bytes(a) == bytes(b) && a.text() == b.text()
    };
    // Blocks by the key of their exit (`same_exit` holds exactly between blocks of one key), kept
    // up to date as exits change: the candidates for a block are the blocks of its own key, in
    // index order, not every block (that was blocks^2 comparisons per sweep, issue 29).
    let key = |e: Exit| -> Option<(u8, usize, usize)> {
        let pos = |c: Cond| match c {
            Cond::Scc1 | Cond::Scc0 => 0,
            Cond::Vccnz | Cond::Vccz => 1,
            Cond::Execnz | Cond::Execz => 2,
        };
        match e {
            Exit::Fall(x) | Exit::Jump(x) => Some((0, x, 0)),
            Exit::Cond { cond: c @ (Cond::Scc1 | Cond::Vccnz | Cond::Execnz), taken, fall } => Some((1 + pos(c), taken, fall)),
            Exit::Cond { cond, taken, fall } => Some((1 + pos(cond), fall, taken)),
            Exit::End => Some((4, 0, 0)),
            Exit::OffTheEnd | Exit::Call { .. } | Exit::Return => None,
        }
    };
    let n = cfg.blocks.len();
    let mut by_exit: std::collections::HashMap<(u8, usize, usize), std::collections::BTreeSet<usize>> = std::collections::HashMap::new();
    for (i, b) in cfg.blocks.iter().enumerate() {
        if let Some(k) = key(b.exit) {
            by_exit.entry(k).or_default().insert(i);
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for x in 0..n {
            if matches!(cfg.blocks[x].exit, Exit::Call { .. } | Exit::Return | Exit::OffTheEnd) {
                continue;
            }
            let Some(xkey) = key(cfg.blocks[x].exit) else { continue };
            let xs: Vec<(usize, Instruction)> = cfg.blocks[x].insts.iter().copied().enumerate().filter(|(_, i)| kept(i)).collect();
            let candidates = by_exit.get(&xkey).into_iter().flatten().copied();
            let found = candidates.filter(|&y| y != x).find_map(|y| {
                let yb = &cfg.blocks[y];
                if !same_exit(cfg.blocks[x].exit, yb.exit) || yb.start == cfg.blocks[x].start {
                    return None;
                }
                let ys: Vec<&Instruction> = yb.insts.iter().filter(|i| kept(i)).collect();
                if ys.is_empty() || ys.len() > xs.len() || !ys.iter().all(|i| pc_free(i)) {
                    return None;
                }
                let tail = &xs[xs.len() - ys.len()..];
                tail.iter().zip(&ys).all(|((_, a), b)| same(a, b)).then(|| (tail[0].0, yb.start))
            });
            if let Some((cut, to)) = found {
                let b = &mut cfg.blocks[x];
                b.insts.truncate(cut);
                b.exit = Exit::Jump(to);
                changed = true;
                if let Some(set) = by_exit.get_mut(&xkey) {
                    set.remove(&x);
                }
                if let Some(k) = key(Exit::Jump(to)) {
                    by_exit.entry(k).or_default().insert(x);
                }
            }
        }
    }
}
