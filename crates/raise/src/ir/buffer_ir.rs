//! Raising gfx1250 VBUFFER loads, stores and atomics. Each thread decodes the 128-bit resource
//! (V#) from its SGPRs and computes its range verdict with the emulator's rules (hx_sem::buffer:
//! [`Gfx1250Resource`](hx_sem::buffer::Gfx1250Resource) and
//! [`gfx9_range`](hx_sem::buffer::gfx9_range)): raw addressing, lane address = base + soffset +
//! (offen ? VGPR : 0) + offset; a lane whose access lies wholly inside num_records is performed,
//! one wholly outside is dropped (loads and returning atomics give 0).
//!
//! Two lowerings. Where the target's MUBUF instruction does the same (plain loads and stores and
//! the atomics with a raw-buffer intrinsic, at the default CU scope), the access is the target's
//! raw buffer access through a GFX9 resource built from the gfx1250 one: base, num_records (the
//! same limit, so the hardware drops the same lanes), stride 0, and dword 3 0x00020000 (data
//! format 32, the value AMD's libraries use for untyped buffer access on gfx942/gfx950). The
//! hardware then does the range check: no per-lane branch. Otherwise the access is a global
//! access guarded by the lane's own verdict.
//!
//! What the emulator refuses stays refused. Fields in the instruction (idxen, tfe, the null
//! resource) are translation errors. Fields in the descriptor are run-time data: a resource with
//! a stride, flags or num_records >= 2^32, or an active lane whose verdict depends on a range rule
//! not pinned down (soffset counted or not, an access straddling num_records), traps
//! (`llvm.trap`) instead of guessing; so does, on the MUBUF path, a base past the target's 48
//! address bits or a VGPR offset whose sum with the instruction offset passes 2^32 (the target
//! may wrap it where the source does not). When the resource is built in the kernel with
//! constant stride and flags, as LLVM's make.buffer.rsrc does, the descriptor check folds away.

use super::Raiser;
use crate::RaiseError;
use hx_isa::vbuffer::Vbuffer;
use hx_isa::{Instruction, Reg};
use hx_llvm::inkwell::builder::{Builder, BuilderError};
use hx_llvm::inkwell::context::Context;
use hx_llvm::inkwell::types::BasicTypeEnum;
use hx_llvm::inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue, PointerValue};
use hx_llvm::inkwell::{AddressSpace, IntPredicate};

/// Dword 3 of the GFX9 resources the MUBUF lowering builds: data format 32 (bits 18:15 = 4),
/// everything else 0 (no thread-id add, no swizzle).
pub const GFX9_RSRC_DWORD3: u32 = 0x0002_0000;

/// One lane's buffer access, as IR values.
pub struct BufferLane<'ctx> {
    /// The byte address (i64), meaningful where `in_range`.
    pub addr: IntValue<'ctx>,
    /// The resource's base address and num_records (i64).
    pub base: IntValue<'ctx>,
    pub num_records: IntValue<'ctx>,
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
    // Wholly in: start + size <= num_records. Straddling: start < num_records < start + size,
    // as one unsigned compare, num_records - start - 1 < size - 1 (wrapping where start is past
    // num_records), which folds away for single bytes and, with no soffset, leaves one compare.
    let verdict = |start: IntValue<'ctx>| -> Result<(IntValue<'ctx>, IntValue<'ctx>), BuilderError> {
        let end = b.build_int_add(start, c(size), "")?;
        let left = b.build_int_sub(b.build_int_sub(num_records, start, "")?, c(1), "")?;
        Ok((b.build_int_compare(IntPredicate::ULE, end, num_records, "")?, b.build_int_compare(IntPredicate::ULT, left, c(size - 1), "")?))
    };
    let (in_a, straddles_a) = verdict(off)?;
    let (in_b, straddles_b) = verdict(with_s)?;
    let in_range = b.build_and(in_a, in_b, "in_range")?;
    // Unknown: either reading straddles, or the readings disagree (in with soffset, out
    // without, or the other way).
    let unknown = b.build_or(b.build_or(straddles_a, straddles_b, "")?, b.build_xor(in_a, in_b, "")?, "range_unknown")?;
    let addr = b.build_int_add(base, with_s, "buffer_addr")?;
    Ok(BufferLane { addr, base, num_records, in_range, unknown, bad_resource })
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
        let shape = hx_sem::memory::classify(&global).ok_or_else(|| self.err(inst, "this buffer operation"))?;
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
        let (vdst, vdata) = match v.kind {
            VbufKind::Load => (Some(v.vdata), None),
            VbufKind::Store => (None, Some(v.vdata)),
            VbufKind::Atomic => (v.returns().then_some(v.vdata), Some(v.vdata)),
        };
        if let Some(op) = self.mubuf_form(v, &shape) {
            let mut lane_refused = vec![unknown];
            if v.offen && v.offset != 0 {
                let wraps = self.b.build_int_compare(IntPredicate::UGT, voff, i32t.const_int((u32::MAX - v.offset) as u64, false), "")?;
                lane_refused.push(self.b.build_and(active, wraps, "")?);
            }
            // Base bits 56:48 (dword 1 bits 24:16) must be 0.
            let high = self.b.build_and(words[1], i32t.const_int(0x01ff_0000, false), "")?;
            let wide_base = self.b.build_int_compare(IntPredicate::NE, high, i32t.const_zero(), "")?;
            let wave_refused = self.b.build_or(lane.bad_resource, wide_base, "")?;
            self.trap_if_any(wave_refused, &lane_refused, &format!("buffer_access_{:x}", inst.offset))?;
            let base = self.b.build_int_to_ptr(lane.base, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
            let rsrc = self.b.build_call(
                self.intrinsic("llvm.amdgcn.make.buffer.rsrc", &[self.ctx.ptr_type(AddressSpace::from(8u16)).into(), base.get_type().into()])?,
                &[
                    base.into(),
                    self.ctx.i16_type().const_zero().into(),
                    lane.num_records.into(),
                    i32t.const_int(GFX9_RSRC_DWORD3 as u64, false).into(),
                ],
                "rsrc",
            )?;
            let rsrc = rsrc.try_as_basic_value().basic().ok_or_else(|| self.err(inst, "make.buffer.rsrc returns nothing"))?.into_pointer_value();
            // (No active thread's sum wraps past here, so the backend may move the constant
            // back into the instruction's offset field.)
            let voffset = if v.offset == 0 { voff } else { self.b.build_int_nuw_add(voff, i32t.const_int(v.offset as u64, false), "")? };
            return self.mubuf_access(inst, &shape, op, rsrc, voffset, soffset, active, vdst, vdata);
        }
        let refused = self.b.build_or(lane.bad_resource, unknown, "")?;
        self.trap_if(refused, &format!("buffer_access_{:x}", inst.offset))?;
        let guard = self.b.build_and(active, lane.in_range, "")?;
        let ptr = self.b.build_int_to_ptr(lane.addr, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        self.vmem_access(inst, &shape, ptr, guard, active, vdst, vdata, v.returns())
    }

    /// The raw-buffer intrinsic that does what `inst` does on the target (`None`: the global
    /// lowering, always with paired work-groups): plain loads and stores of 1 to 16 bytes, and the integer atomics the
    /// intrinsics have, at the CU scope with no other hint than non-temporal (the scoped and
    /// system-coherent forms keep the memory model's lowering of global accesses).
    fn mubuf_form(&self, v: &Vbuffer, shape: &hx_sem::memory::MemShape) -> Option<&'static str> {
        use hx_sem::memory::{AtomicOp, MemKind, Width};
        // Paired work-groups: a resource made from the work-group ID differs between the
        // halves, and a MUBUF access through a divergent resource is a loop over its values.
        if v.cpol.scope != hx_isa::cpol::Scope::Cu || self.paired_groups {
            return None;
        }
        let hinted = if v.cpol.atomic { v.cpol.th & !3 != 0 } else { v.cpol.th > 1 };
        if hinted || !matches!(shape.width, Width::U8 | Width::I8 | Width::U16 | Width::I16 | Width::B32 | Width::B64 | Width::B96 | Width::B128) {
            return None;
        }
        Some(match shape.kind {
            MemKind::Load => "llvm.amdgcn.raw.ptr.buffer.load",
            MemKind::Store => "llvm.amdgcn.raw.ptr.buffer.store",
            MemKind::Atomic(a) => {
                if !matches!(shape.width, Width::B32 | Width::B64) {
                    return None;
                }
                match a {
                    AtomicOp::Add => "llvm.amdgcn.raw.ptr.buffer.atomic.add",
                    AtomicOp::Sub => "llvm.amdgcn.raw.ptr.buffer.atomic.sub",
                    AtomicOp::And => "llvm.amdgcn.raw.ptr.buffer.atomic.and",
                    AtomicOp::Or => "llvm.amdgcn.raw.ptr.buffer.atomic.or",
                    AtomicOp::Xor => "llvm.amdgcn.raw.ptr.buffer.atomic.xor",
                    AtomicOp::Swap => "llvm.amdgcn.raw.ptr.buffer.atomic.swap",
                    AtomicOp::Min { signed: true } => "llvm.amdgcn.raw.ptr.buffer.atomic.smin",
                    AtomicOp::Min { signed: false } => "llvm.amdgcn.raw.ptr.buffer.atomic.umin",
                    AtomicOp::Max { signed: true } => "llvm.amdgcn.raw.ptr.buffer.atomic.smax",
                    AtomicOp::Max { signed: false } => "llvm.amdgcn.raw.ptr.buffer.atomic.umax",
                    AtomicOp::CmpSwap => "llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap",
                    _ => return None,
                }
            }
        })
    }

    /// The target's raw buffer access `op` (from [`Raiser::mubuf_form`]) through `rsrc` at
    /// `voffset` + `soffset`, in the active lanes; out-of-range lanes read 0, as on the source.
    #[allow(clippy::too_many_arguments)]
    fn mubuf_access(
        &mut self,
        inst: &Instruction,
        shape: &hx_sem::memory::MemShape,
        op: &str,
        rsrc: PointerValue<'ctx>,
        voffset: IntValue<'ctx>,
        soffset: IntValue<'ctx>,
        active: IntValue<'ctx>,
        vdst: Option<Reg>,
        vdata: Option<Reg>,
    ) -> Result<(), RaiseError> {
        use hx_sem::memory::{MemKind, Width};
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let dwords = shape.width.reg_dwords() as u32;
        // Non-temporal: the aux operand's nt bit (bit 1), as gfx942/gfx950 encode it.
        let aux = i32t.const_int(if inst.vbuffer().is_some_and(|v| v.cpol.nontemporal()) { 2 } else { 0 }, false);
        let narrow = match shape.width {
            Width::U8 | Width::I8 => Some((self.ctx.i8_type(), shape.width == Width::I8)),
            Width::U16 | Width::I16 => Some((self.ctx.i16_type(), shape.width == Width::I16)),
            _ => None,
        };
        let vec_t = |n: u32| -> BasicTypeEnum<'ctx> { if n == 1 { i32t.into() } else { i32t.vec_type(n).into() } };
        let call = |r: &Self, ty: BasicTypeEnum<'ctx>, args: &[BasicMetadataValueEnum<'ctx>]| -> Result<Option<BasicValueEnum<'ctx>>, RaiseError> {
            let f = r.intrinsic(op, &[ty])?;
            Ok(r.b.build_call(f, args, "")?.try_as_basic_value().basic())
        };
        // The operands after the data: resource, offsets, cache policy.
        let common: [BasicMetadataValueEnum<'ctx>; 4] = [rsrc.into(), voffset.into(), soffset.into(), aux.into()];
        match shape.kind {
            MemKind::Load => {
                let ty: BasicTypeEnum<'ctx> = match narrow {
                    Some((t, _)) => t.into(),
                    None => vec_t(dwords),
                };
                let got = self.guarded(active, vec![i32t.const_zero(); dwords as usize], &mut |r| {
                    let v = call(r, ty, &common)?.ok_or_else(|| r.err(inst, "a buffer load returns nothing"))?;
                    let mut out = Vec::new();
                    match narrow {
                        Some((_, signed)) => {
                            let v = v.into_int_value();
                            out.push(if signed { r.b.build_int_s_extend(v, i32t, "")? } else { r.b.build_int_z_extend(v, i32t, "")? });
                        }
                        None if dwords == 1 => out.push(v.into_int_value()),
                        None => {
                            let v = v.into_vector_value();
                            for i in 0..dwords {
                                out.push(r.b.build_extract_element(v, i32t.const_int(i as u64, false), "")?.into_int_value());
                            }
                        }
                    }
                    Ok(out)
                })?;
                self.vmem_load_result(inst, vdst, got, active)?;
            }
            MemKind::Store => {
                let words = self.vmem_store_data(inst, vdata, dwords as u8)?;
                let value: BasicValueEnum<'ctx> = match narrow {
                    Some((t, _)) => self.b.build_int_truncate(words[0], t, "")?.into(),
                    None if dwords == 1 => words[0].into(),
                    None => {
                        let mut v = i32t.vec_type(dwords).get_undef();
                        for (i, w) in words.iter().enumerate() {
                            v = self.b.build_insert_element(v, *w, i32t.const_int(i as u64, false), "")?;
                        }
                        v.into()
                    }
                };
                self.guarded(active, vec![], &mut |r| {
                    let mut args = vec![value.into()];
                    args.extend(common);
                    call(r, value.get_type(), &args)?;
                    Ok(vec![])
                })?;
            }
            MemKind::Atomic(a) => {
                let wide = shape.width == Width::B64;
                let (t, w) = if wide { (i64t, 2) } else { (i32t, 1) };
                let (src, cmp) = self.vmem_atomic_data(inst, vdata, wide, a == hx_sem::memory::AtomicOp::CmpSwap)?;
                let got = self.guarded(active, vec![t.const_zero()], &mut |r| {
                    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = vec![src.into()];
                    if let Some(c) = cmp {
                        args.push(c.into());
                    }
                    args.extend(common);
                    let v = call(r, t.into(), &args)?.ok_or_else(|| r.err(inst, "a buffer atomic returns nothing"))?;
                    Ok(vec![v.into_int_value()])
                })?;
                if let Some(dst) = vdst {
                    self.write_vreg(Reg { dwords: w, ..dst }, w, got[0], active, inst)?;
                }
            }
        }
        Ok(())
    }
}
