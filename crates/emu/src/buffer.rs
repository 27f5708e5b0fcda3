//! Buffer instructions through a 128-bit buffer resource (V#): GFX9 MUBUF (gfx942/gfx950) and
//! gfx1250 VBUFFER (whose V# has a 57-bit base and a 45-bit num_records: [`Gfx1250Resource`]).
//!
//! Modelled: untyped loads, stores and atomics with raw addressing (stride 0, no index, no
//! swizzle, no thread-id add): lane address = base + soffset + (offen ? VGPR : 0) + offset.
//! Range checks: a lane whose access lies wholly inside `num_records` bytes is performed; one
//! wholly outside is dropped (a store does nothing, a load or returning atomic writes 0). Whether
//! the GFX9 check counts soffset is not settled by the documents at hand, so an access whose
//! verdict depends on it (or that straddles the limit) is refused rather than guessed.
//! Cache control (`buffer_wbl2`, `buffer_inv`) does nothing: the emulated memory has no caches.
//! Refused with an error: typed (`*_format_*`) accesses, the `lds` form, structured/swizzled
//! addressing.

use crate::exec::{unsupported, Flow};
use crate::mem_ops::{self, MemKind, MemRegs, Memories};
use crate::wave::{constant_value, Wave};
use crate::dispatch::Group;
use crate::EmuError;
use hx_isa::mubuf::{BufKind, Mubuf};
use hx_isa::{Instruction, Operand, Reg, ValType};

pub use hx_sem::buffer::*;

/// Executes a GFX9 MUBUF instruction.
pub fn exec_mubuf(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>, m: &Mubuf) -> Result<Flow, EmuError> {
    if m.kind == BufKind::CacheControl {
        return Ok(Flow::Next);
    }
    let mut mem = Memories::of_group(group, wave_index)?;
    exec_mubuf_in(wave, &mut mem, inst, m)?;
    Ok(Flow::Next)
}

/// [`exec_mubuf`] on explicit memories.
pub fn exec_mubuf_in(wave: &mut Wave, mem: &mut Memories<'_>, inst: &Instruction, m: &Mubuf) -> Result<(), EmuError> {
    match m.kind {
        BufKind::CacheControl => return Ok(()),
        BufKind::LoadFormat | BufKind::StoreFormat => return Err(unsupported(inst, "a typed (descriptor-format) buffer access")),
        _ => {}
    }
    if m.lds {
        return Err(unsupported(inst, "the lds form (buffer load into LDS)"));
    }
    let global = format!("global_{}", inst.mnemonic().trim_start_matches("buffer_"));
    let shape = mem_ops::classify(&global).ok_or_else(|| unsupported(inst, "this buffer operation"))?;
    let op = shape.to_op(0, 0, m.returns());
    let words = wave.read_sgprs(m.srsrc)?;
    let rsrc = Gfx9Resource::from_words([words[0], words[1], words[2], words[3]]);
    if m.idxen || rsrc.stride != 0 || rsrc.swizzle || rsrc.add_tid {
        return Err(unsupported(inst, "structured, swizzled or thread-indexed buffer addressing"));
    }
    let soffset = match m.soffset {
        Operand::Reg(r) => wave.read_sreg(Reg { dwords: 1, ..r })? & 0xffff_ffff,
        ref c => constant_value(c, ValType::B32).ok_or_else(|| unsupported(inst, "this soffset operand"))? & 0xffff_ffff,
    };
    let size = op.width.bytes() as u64;
    let mut addrs = vec![0u64; wave.lanes];
    let mut out_lanes = 0u64;
    for (lane, a) in addrs.iter_mut().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        let voff = match (m.offen, m.vaddr) {
            (true, Some(v)) => wave.read_vreg(Reg { dwords: 1, ..v }, lane)? & 0xffff_ffff,
            _ => 0,
        };
        let off = voff + m.offset as u64;
        match gfx9_range(off, soffset, size, rsrc.num_records) {
            Range::In => *a = rsrc.base.wrapping_add(soffset).wrapping_add(off),
            Range::Out => out_lanes |= 1 << lane,
            Range::Unknown => {
                return Err(unsupported(inst, format!("lane {lane}'s access at buffer offset {off:#x} (+ soffset {soffset:#x}) near num_records {:#x}: which GFX9 range rule applies", rsrc.num_records)))
            }
        }
    }
    let dst = match op.kind {
        MemKind::Load => m.vdata,
        MemKind::Atomic(_) if op.returns => m.vdata,
        _ => None,
    };
    if out_lanes != 0 && dst.is_some() && op.width.bytes() < 4 && matches!(op.kind, MemKind::Load) && inst.mnemonic().contains("d16") {
        return Err(unsupported(inst, "an out-of-range d16 buffer load (which half reads 0)"));
    }
    let regs = match op.kind {
        MemKind::Load => MemRegs { dst: m.vdata, data: None, data2: None },
        MemKind::Store => MemRegs { dst: None, data: m.vdata, data2: None },
        MemKind::Atomic(_) => MemRegs { dst, data: m.vdata, data2: None },
    };
    access_in_range(&op, wave, mem, &addrs, &regs, out_lanes, dst)
}

/// Executes a gfx1250 VBUFFER instruction: raw addressing only (stride 0, no index, flags 0),
/// with the same range-check policy as [`exec_mubuf`] (lanes wholly past num_records dropped,
/// verdicts that depend on soffset refused). The null resource reads 0 and drops writes.
pub fn exec_vbuffer_in(wave: &mut Wave, mem: &mut Memories<'_>, inst: &Instruction, b: &hx_isa::vbuffer::Vbuffer) -> Result<(), EmuError> {
    if b.tfe {
        return Err(unsupported(inst, "tfe (a fault status dword)"));
    }
    let global = format!("global_{}", inst.mnemonic().trim_start_matches("buffer_"));
    let shape = mem_ops::classify(&global).ok_or_else(|| unsupported(inst, "this buffer operation"))?;
    let op = shape.to_op(0, 0, b.returns());
    let Some(rsrc) = b.rsrc else {
        return Err(unsupported(inst, "the null buffer resource"));
    };
    let words = wave.read_sgprs(rsrc)?;
    let rsrc = Gfx1250Resource::from_words([words[0], words[1], words[2], words[3]]);
    if b.idxen || rsrc.stride != 0 || rsrc.flags != 0 {
        return Err(unsupported(inst, "structured or flagged buffer addressing (stride, index, descriptor flags)"));
    }
    let soffset = match b.soffset {
        Some(r) => wave.read_sreg(Reg { dwords: 1, ..r })? & 0xffff_ffff,
        None => 0,
    };
    let size = op.width.bytes() as u64;
    let mut addrs = vec![0u64; wave.lanes];
    let mut out_lanes = 0u64;
    let limit = rsrc.num_records.min(u32::MAX as u64) as u32;
    if rsrc.num_records > u32::MAX as u64 {
        return Err(unsupported(inst, "num_records of 4 GiB or more"));
    }
    for (lane, a) in addrs.iter_mut().enumerate() {
        if !wave.lane_active(lane) {
            continue;
        }
        let voff = match (b.offen, b.vaddr) {
            (true, Some(v)) => wave.read_vreg(Reg { dwords: 1, ..v }, lane)? & 0xffff_ffff,
            _ => 0,
        };
        let off = voff + b.offset as u64;
        match gfx9_range(off, soffset, size, limit) {
            Range::In => *a = rsrc.base.wrapping_add(soffset).wrapping_add(off),
            Range::Out => out_lanes |= 1 << lane,
            Range::Unknown => {
                return Err(unsupported(inst, format!("lane {lane}'s access at buffer offset {off:#x} (+ soffset {soffset:#x}) near num_records {limit:#x}: which range rule applies")))
            }
        }
    }
    let dst = match op.kind {
        MemKind::Load => Some(b.vdata),
        MemKind::Atomic(_) if op.returns => Some(b.vdata),
        _ => None,
    };
    if out_lanes != 0 && matches!(op.kind, MemKind::Load) && inst.mnemonic().contains("d16") {
        return Err(unsupported(inst, "an out-of-range d16 buffer load (which half reads 0)"));
    }
    let regs = match op.kind {
        MemKind::Load => MemRegs { dst, data: None, data2: None },
        MemKind::Store => MemRegs { dst: None, data: Some(b.vdata), data2: None },
        MemKind::Atomic(_) => MemRegs { dst, data: Some(b.vdata), data2: None },
    };
    access_in_range(&op, wave, mem, &addrs, &regs, out_lanes, dst)
}

/// Runs a buffer access for the lanes in range only: the lanes of `out_lanes` take no part, and
/// their results (`dst`: a load's data, an atomic's return) read 0.
fn access_in_range(
    op: &mem_ops::MemOp,
    wave: &mut Wave,
    mem: &mut Memories<'_>,
    addrs: &[u64],
    regs: &MemRegs,
    out_lanes: u64,
    dst: Option<Reg>,
) -> Result<(), EmuError> {
    let exec = wave.exec;
    wave.exec &= !out_lanes;
    let r = mem_ops::execute(op, wave, mem, addrs, regs);
    wave.exec = exec;
    r?;
    if let Some(d) = dst {
        let dwords = if matches!(op.kind, MemKind::Atomic(mem_ops::AtomicOp::CmpSwap)) { d.dwords as usize / 2 } else { op.width.reg_dwords() };
        for lane in (0..wave.lanes).filter(|l| out_lanes >> l & 1 == 1) {
            wave.write_vreg_dwords(Reg { dwords: dwords as u8, ..d }, lane, &vec![0; dwords])?;
        }
    }
    Ok(())
}

/// [`exec_vbuffer_in`] with the memories of `group` for wave `wave_index`.
pub fn exec_vbuffer(wave: &mut Wave, wave_index: usize, inst: &Instruction, group: &mut Group<'_>, b: &hx_isa::vbuffer::Vbuffer) -> Result<Flow, EmuError> {
    let mut mem = Memories::of_group(group, wave_index)?;
    exec_vbuffer_in(wave, &mut mem, inst, b)?;
    Ok(Flow::Next)
}
