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
    /// Blocks in address order; the first is the entry.
    pub blocks: Vec<Block>,
}

impl Cfg {
    pub fn block_at(&self, start: usize) -> Option<usize> {
        self.blocks.binary_search_by_key(&start, |b| b.start).ok()
    }

    /// Successor block starts of a block.
    pub fn successors(&self, i: usize) -> Vec<usize> {
        match self.blocks[i].exit {
            Exit::Fall(t) | Exit::Jump(t) => vec![t],
            Exit::Cond { taken, fall, .. } => vec![taken, fall],
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
fn branch_target(inst: &Instruction, offset: usize, kernel: &str, len: usize) -> Result<usize, RaiseError> {
    let imm = inst.operands().find_map(|o| match o.value {
        Operand::Imm(v) => Some(v as u16 as i16 as i64),
        _ => None,
    });
    let imm = imm.ok_or_else(|| RaiseError::at(kernel, offset, inst.mnemonic(), "branch without an offset"))?;
    let t = offset as i64 + inst.len as i64 + 4 * imm;
    if t < 0 || t as usize >= len {
        return Err(RaiseError::at(kernel, offset, inst.mnemonic(), format!("branch target {t:#x} is outside the code ({len:#x} bytes)")));
    }
    Ok(t as usize)
}

/// Decodes `code` (one kernel's or function's bytes) and splits it into blocks.
pub fn build(target: Target, code: &[u8], kernel: &str) -> Result<Cfg, RaiseError> {
    // Decode everything (code regions hold only instructions; padding after s_endpgm is
    // s_code_end / s_nop and decodes too).
    let mut insts: BTreeMap<usize, Instruction> = BTreeMap::new();
    let mut at = 0;
    while at < code.len() {
        let inst = hx_isa::decode(target, code, at).map_err(|e| RaiseError::Decode { kernel: kernel.to_string(), offset: at, message: e.to_string() })?;
        at += inst.len as usize;
        insts.insert(inst.offset, inst);
    }
    let mut leaders: BTreeSet<usize> = BTreeSet::from([0]);
    for (&off, inst) in &insts {
        let m = inst.mnemonic();
        let next = off + inst.len as usize;
        if m == "s_branch" || cond_of(m).is_some() {
            let t = branch_target(inst, off, kernel, code.len())?;
            if !insts.contains_key(&t) {
                return Err(RaiseError::at(kernel, off, m, format!("branch target {t:#x} is not an instruction boundary")));
            }
            leaders.insert(t);
            leaders.insert(next);
        } else if m == "s_endpgm" {
            leaders.insert(next);
        } else if m.starts_with("s_setpc") || m.starts_with("s_swappc") || m.starts_with("s_set_pc") || m.starts_with("s_swap_pc") || m.starts_with("s_call") {
            return Err(RaiseError::at(kernel, off, m, "calls and indirect jumps are not raised yet"));
        }
    }
    let mut blocks = Vec::new();
    let starts: Vec<usize> = leaders.iter().copied().filter(|&s| s < code.len()).collect();
    for (bi, &start) in starts.iter().enumerate() {
        let end = starts.get(bi + 1).copied().unwrap_or(code.len());
        let body: Vec<Instruction> = insts.range(start..end).map(|(_, i)| *i).collect();
        let last = body.last().copied();
        let exit = match last {
            Some(l) if l.mnemonic() == "s_endpgm" => Exit::End,
            Some(l) if l.mnemonic() == "s_branch" => Exit::Jump(branch_target(&l, l.offset, kernel, code.len())?),
            Some(l) if cond_of(l.mnemonic()).is_some() => Exit::Cond {
                cond: cond_of(l.mnemonic()).unwrap(),
                taken: branch_target(&l, l.offset, kernel, code.len())?,
                fall: end,
            },
            _ if end < code.len() => Exit::Fall(end),
            _ => Exit::OffTheEnd,
        };
        blocks.push(Block { start, insts: body, exit });
    }
    // Blocks after an s_endpgm that nothing branches to are unreachable padding: keep only
    // blocks reachable from the entry.
    let cfg = Cfg { blocks };
    let mut reach = vec![false; cfg.blocks.len()];
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut reach[i], true) {
            continue;
        }
        if cfg.blocks[i].exit == Exit::OffTheEnd {
            let l = cfg.blocks[i].insts.last().expect("blocks are not empty");
            return Err(RaiseError::at(kernel, l.offset, l.mnemonic(), "code runs off the end of the kernel"));
        }
        for s in cfg.successors(i) {
            let j = cfg.block_at(s).ok_or_else(|| RaiseError::Decode { kernel: kernel.to_string(), offset: s, message: "successor is not a block".into() })?;
            work.push(j);
        }
    }
    let blocks = cfg.blocks.into_iter().zip(reach).filter_map(|(b, r)| r.then_some(b)).collect();
    Ok(Cfg { blocks })
}
