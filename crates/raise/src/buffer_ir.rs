//! Raising gfx1250 VBUFFER loads, stores and atomics as global accesses. Each thread decodes the
//! 128-bit resource (V#) from its SGPRs and computes its own address and range verdict with the
//! emulator's rules (hx_emu::buffer: [`Gfx1250Resource`](hx_emu::buffer::Gfx1250Resource) and
//! [`gfx9_range`](hx_emu::buffer::gfx9_range)): raw addressing, lane address = base + soffset +
//! (offen ? VGPR : 0) + offset; a lane whose access lies wholly inside num_records is performed,
//! one wholly outside is dropped (loads and returning atomics give 0).
//!
//! What the emulator refuses stays refused. Fields in the instruction (idxen, tfe, the null
//! resource) are translation errors. Fields in the descriptor are run-time data: a resource with
//! a stride, flags or num_records >= 2^32, or an active lane whose verdict depends on a range rule
//! not pinned down (soffset counted or not, an access straddling num_records), traps
//! (`llvm.trap`) instead of guessing. When the resource is built in the kernel with constant
//! stride and flags, as LLVM's make.buffer.rsrc does, the descriptor check folds away.

use super::Raiser;
use crate::RaiseError;
use hx_isa::vbuffer::Vbuffer;
use hx_isa::{Instruction, Reg};
use hx_llvm::inkwell::builder::{Builder, BuilderError};
use hx_llvm::inkwell::context::Context;
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::{AddressSpace, IntPredicate};

/// One lane's buffer access, as IR values.
pub struct BufferLane<'ctx> {
    /// The byte address (i64), meaningful where `in_range`.
    pub addr: IntValue<'ctx>,
    /// The access is wholly inside num_records (with and without soffset).
    pub in_range: IntValue<'ctx>,
    /// Neither wholly in nor wholly out: the emulator refuses the access (i1).
    pub unknown: IntValue<'ctx>,
    /// The resource has a field raw addressing does not model (i1, the same in every lane).
    pub bad_resource: IntValue<'ctx>,
}

/// Decodes V# `words` and checks one lane's access of `size` bytes at VGPR offset `voff` (i32,
/// already 0 without offen), instruction offset `offset`, scalar offset `soffset` (i32). Plain IR
/// with no target intrinsic, so tests can run it on the host.
pub fn buffer_lane<'ctx>(
    ctx: &'ctx Context,
    b: &Builder<'ctx>,
    words: [IntValue<'ctx>; 4],
    voff: IntValue<'ctx>,
    soffset: IntValue<'ctx>,
    offset: u32,
    size: u64,
) -> Result<BufferLane<'ctx>, BuilderError> {
    let i64t = ctx.i64_type();
    let c = |v: u64| i64t.const_int(v, false);
    let z = |v: IntValue<'ctx>| b.build_int_z_extend(v, i64t, "");
    let lo = b.build_or(z(words[0])?, b.build_left_shift(z(words[1])?, c(32), "")?, "")?;
    let base = b.build_and(lo, c((1 << 57) - 1), "rsrc_base")?;
    let d3 = z(words[3])?;
    let num_records = b.build_or(
        b.build_or(b.build_right_shift(lo, c(57), false, "")?, b.build_left_shift(z(words[2])?, c(7), "")?, "")?,
        b.build_left_shift(b.build_and(d3, c(0x3f), "")?, c(39), "")?,
        "num_records",
    )?;
    // Stride (dword 3 bits 27:12) and flags (31:28) must be 0, num_records below 2^32.
    let stride_flags = b.build_and(d3, c(0xffff_f000), "")?;
    let bad_resource = b.build_or(
        b.build_int_compare(IntPredicate::NE, stride_flags, c(0), "")?,
        b.build_int_compare(IntPredicate::UGT, num_records, c(u32::MAX as u64), "")?,
        "bad_resource",
    )?;
    let off = b.build_int_add(z(voff)?, c(offset as u64), "")?;
    let soff = z(soffset)?;
    let with_s = b.build_int_add(off, soff, "")?;
    let verdict = |start: IntValue<'ctx>| -> Result<(IntValue<'ctx>, IntValue<'ctx>), BuilderError> {
        let end = b.build_int_add(start, c(size), "")?;
        Ok((b.build_int_compare(IntPredicate::ULE, end, num_records, "")?, b.build_int_compare(IntPredicate::UGE, start, num_records, "")?))
    };
    let (in_a, out_a) = verdict(off)?;
    let (in_b, out_b) = verdict(with_s)?;
    let in_range = b.build_and(in_a, in_b, "in_range")?;
    let out = b.build_and(out_a, out_b, "")?;
    let unknown = b.build_not(b.build_or(in_range, out, "")?, "range_unknown")?;
    let addr = b.build_int_add(base, with_s, "buffer_addr")?;
    Ok(BufferLane { addr, in_range, unknown, bad_resource })
}

/// One past the highest VGPR a VBUFFER instruction uses (its registers are fields, not operands).
pub(super) fn vgpr_end(inst: &Instruction) -> Option<usize> {
    let v = inst.vbuffer()?;
    let end = |r: Reg| r.index as usize + r.dwords.max(1) as usize;
    Some(v.vaddr.map_or(0, end).max(end(v.vdata)))
}

impl<'ctx> Raiser<'ctx, '_> {
    /// buffer_load_*, buffer_store_*, buffer_atomic_*: the global access at the lane's buffer
    /// address where the thread is active and in range; the destination of an active
    /// out-of-range lane reads 0.
    pub(super) fn vbuffer(&mut self, inst: &Instruction, v: &Vbuffer) -> Result<(), RaiseError> {
        use hx_isa::vbuffer::VbufKind;
        if v.tfe {
            return Err(self.err(inst, "tfe (a fault status dword) is not raised"));
        }
        if v.idxen {
            return Err(self.err(inst, "structured buffer addressing (idxen) is not raised"));
        }
        let rsrc = v.rsrc.ok_or_else(|| self.err(inst, "the null buffer resource is not raised"))?;
        let global = format!("global_{}", inst.mnemonic().trim_start_matches("buffer_"));
        let shape = hx_emu::mem_ops::classify(&global).ok_or_else(|| self.err(inst, "this buffer operation"))?;
        let i32t = self.ctx.i32_type();
        let mut words = [i32t.const_zero(); 4];
        for (i, w) in words.iter_mut().enumerate() {
            *w = self.read_sreg(Reg { index: rsrc.index + i as u16, dwords: 1, ..rsrc }, 1, inst)?;
        }
        let voff = match (v.offen, v.vaddr) {
            (true, Some(r)) => self.read_vreg(Reg { dwords: 1, ..r }, 1, inst)?,
            _ => i32t.const_zero(),
        };
        let soffset = match v.soffset {
            Some(r) => self.read_sreg(Reg { dwords: 1, ..r }, 1, inst)?,
            None => i32t.const_zero(),
        };
        let lane = buffer_lane(self.ctx, &self.b, words, voff, soffset, v.offset, shape.width.bytes() as u64)?;
        let active = self.active()?;
        let unknown = self.b.build_and(active, lane.unknown, "")?;
        let refused = self.b.build_or(lane.bad_resource, unknown, "")?;
        self.trap_if(refused, &format!("buffer_access_{:x}", inst.offset))?;
        let guard = self.b.build_and(active, lane.in_range, "")?;
        let ptr = self.b.build_int_to_ptr(lane.addr, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        let (vdst, vdata) = match v.kind {
            VbufKind::Load => (Some(v.vdata), None),
            VbufKind::Store => (None, Some(v.vdata)),
            VbufKind::Atomic => (v.returns().then_some(v.vdata), Some(v.vdata)),
        };
        self.vmem_access(inst, &shape, ptr, guard, active, vdst, vdata, v.returns())
    }
}
