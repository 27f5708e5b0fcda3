//! Raising gfx1250 `tensor_load_to_lds` / `tensor_store_from_lds` (the descriptor and its
//! fields: hx_sem::tensor). The descriptor sits in SGPRs, so it is uniform over the source wave:
//! the wave's 32 threads (all of them reach every instruction, see `lane_move`) copy the tile
//! together, thread `lane` taking elements lane, lane + 32, ... of the tile, each as one access
//! of the element's width: an element inside the tensor comes from (or, for a store, goes to)
//! global memory, one outside reads as zero (a store skips it); a load's LDS stream is padded
//! as the descriptor says. (Byte by byte, with a 64-bit division per byte, Triton's
//! matmul_tdesc_f16 ran 5x its native build's instructions; 2.7x this way.) The copy
//! completes before the next instruction, which the ISA
//! allows (it completes somewhere before the `s_wait_tensorcnt` that waits for it).
//!
//! Visibility mirrors the ISA: after `s_wait_tensorcnt` the issuing wave sees the tile, so that
//! wait is raised as a wavefront-scope fence (other threads of the same source wave read bytes
//! this thread wrote; the fence keeps their loads after the copy); the same fence before the
//! copy keeps the wave's earlier LDS accesses before it. Other waves see the tile only through
//! a barrier the kernel has itself; none is added.
//!
//! The descriptor is a run-time value: where the emulator refuses it (hx_sem::tensor::parse:
//! more than 2 dims, gather, iterate, atomic barrier, workgroup mask, unknown bits,
//! pred other than 0/1, type other than 2; EXEC = 0) the raised code traps instead of guessing.

use super::Raiser;
use crate::RaiseError;
use hx_isa::tensor::Tensor;
use hx_isa::{Instruction, Reg, RegClass};
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::{AddressSpace, AtomicOrdering, IntPredicate};

impl<'ctx> Raiser<'ctx, '_> {
    /// `s_wait_tensorcnt`: the issuing wave's view of the tile (see the module notes).
    pub(super) fn wait_tensorcnt(&mut self) -> Result<(), RaiseError> {
        let f = self.b.build_fence(AtomicOrdering::AcquireRelease, false, "")?;
        let name = "wavefront";
        // SAFETY: `f` is a live fence of this context; the name outlives the call.
        unsafe {
            use hx_llvm::inkwell::values::AsValueRef;
            let id = hx_llvm::llvm_sys::core::LLVMGetSyncScopeID(self.ctx.raw(), name.as_ptr().cast(), name.len());
            hx_llvm::llvm_sys::core::LLVMSetAtomicSyncScopeID(f.as_value_ref(), id);
        }
        Ok(())
    }

    pub(super) fn tensor(&mut self, inst: &Instruction, t: &Tensor) -> Result<(), RaiseError> {
        // The wave's earlier LDS accesses come first: a thread now reads (store) or overwrites
        // (load) bytes other threads of the wave wrote or read before the instruction.
        self.wait_tensorcnt()?;
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let dwords = |r: Reg, n: u16| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            (0..n).map(|k| self.read_sreg(Reg { class: RegClass::Sgpr, index: r.index + k, dwords: 1 }, 1, inst)).collect()
        };
        let g0 = dwords(t.group0, 4)?;
        let g1 = dwords(t.group1, 8)?;
        let mut extra = Vec::new();
        for g in [t.group2, t.group3].into_iter().flatten() {
            extra.extend(dwords(g, 4)?);
        }
        let c = |v: u64| i32t.const_int(v, false);
        let b = &self.b;
        let and = |v: IntValue<'ctx>, m: u64| b.build_and(v, c(m), "");
        let shr = |v: IntValue<'ctx>, s: u64| b.build_right_shift(v, c(s), false, "");
        let shl = |v: IntValue<'ctx>, s: u64| b.build_left_shift(v, c(s), "");
        let ne0 = |v: IntValue<'ctx>| b.build_int_compare(IntPredicate::NE, v, c(0), "");
        let eq0 = |v: IntValue<'ctx>| b.build_int_compare(IntPredicate::EQ, v, c(0), "");
        let dim0 = b.build_or(shr(g1[1], 16)?, shl(g1[2], 16)?, "")?;
        let dim1 = b.build_or(shr(g1[2], 16)?, shl(g1[3], 16)?, "")?;
        let tile0 = shr(g1[3], 16)?;
        let tile1 = and(g1[4], 0xffff)?;
        let stride_lo = g1[5];
        let stride_hi = and(g1[6], 0xffff)?;
        // Every refusal of hx_sem::tensor::parse, on the run-time descriptor.
        let exec = self.load(self.exec)?;
        let b = &self.b;
        let one_d = eq0(tile1)?;
        let mut bad = vec![
            b.build_int_compare(IntPredicate::UGT, g0[0], c(1), "")?, // pred > 1, bits 31:2
            b.build_int_compare(IntPredicate::NE, shr(g0[3], 25)?, c(0x40), "")?, // type 2, bits 125:121 clear
            ne0(and(g1[0], !0xffd3_0000u32 as u64)?)?, // dword 0 but the data size and padding
            // pad interval/amount without pad enable
            b.build_and(eq0(and(g1[0], 0x10_0000)?)?, ne0(and(g1[0], 0xffc0_0000)?)?, "")?,
            ne0(and(g1[1], 0xffff)?)?,            // atomic barrier address
            ne0(shr(g1[4], 16)?)?,                // tile_dim2
            ne0(shr(g1[6], 16)?)?,                // tensor_dim1_stride
            ne0(g1[7])?,
            eq0(tile0)?,
            b.build_and(one_d, ne0(b.build_or(b.build_or(dim1, stride_lo, "")?, stride_hi, "")?)?, "")?,
            eq0(exec)?,
        ];
        for v in &extra {
            bad.push(ne0(*v)?);
        }
        let mut refuse = bad[0];
        for v in &bad[1..] {
            refuse = b.build_or(refuse, *v, "")?;
        }
        self.trap_if(refuse, &format!("tensor_ok_{:x}", inst.offset))?;

        // pred = 1: copy; pred = 0: nothing.
        let b = &self.b;
        let z64 = |v: IntValue<'ctx>| b.build_int_z_extend(v, i64t, "");
        let c64 = |v: u64| i64t.const_int(v, false);
        let log2 = z64(and(shr(g1[0], 16)?, 3)?)?;
        let rows = b.build_select(one_d, c(1), tile1, "")?.into_int_value();
        let total = b.build_left_shift(b.build_int_mul(z64(tile0)?, z64(rows)?, "")?, log2, "")?;
        let total = b.build_select(ne0(g0[0])?, total, c64(0), "")?.into_int_value();
        let stride = b.build_or(z64(stride_lo)?, b.build_left_shift(z64(stride_hi)?, c64(32), "")?, "")?;
        let global = b.build_or(z64(g0[2])?, b.build_left_shift(z64(and(g0[3], 0x1ff_ffff)?)?, c64(32), "")?, "")?;
        let lds = g0[1];
        // Loads pad the LDS stream (hx_sem::tensor: `pad amount` bytes after every `pad
        // interval` of at least 8 bytes, so no element straddles a pad); stores read it densely.
        let pad_shift = b.build_int_add(z64(and(shr(g1[0], 22)?, 7)?)?, c64(3), "")?;
        let amount = b.build_left_shift(b.build_int_add(z64(and(shr(g1[0], 25)?, 0x7f)?)?, c64(1), "")?, c64(2), "")?;
        let amount = b.build_select(ne0(and(g1[0], 0x10_0000)?)?, amount, c64(0), "")?.into_int_value();
        let copy = Copy { total, log2, tile0, dim0, dim1, one_d, stride, global, lds, pad_shift, amount, store: t.store };
        // Each element is one access of its width, aligned to it, as the emulator requires (it
        // refuses a misaligned element: the LDS base, a pad amount that moves elements off
        // their alignment, or a global base when an element inside the tensor is read or
        // written). The same cases trap here.
        let size_mask = b.build_int_sub(b.build_left_shift(c64(1), log2, "")?, c64(1), "")?;
        let off = |v: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> { Ok(b.build_int_compare(IntPredicate::NE, b.build_and(v, size_mask, "")?, c64(0), "")?) };
        let mut lds_bad = off(z64(lds)?)?;
        if !t.store {
            let interval = b.build_left_shift(c64(1), pad_shift, "")?;
            let padded = b.build_int_compare(IntPredicate::UGT, total, interval, "")?;
            lds_bad = b.build_or(lds_bad, b.build_and(off(amount)?, padded, "")?, "")?;
        }
        let some_inside = b.build_and(ne0(dim0)?, b.build_or(one_d, ne0(dim1)?, "")?, "")?;
        let global_bad = b.build_and(off(global)?, some_inside, "")?;
        let moves = b.build_int_compare(IntPredicate::NE, total, c64(0), "")?;
        let misaligned = b.build_and(moves, b.build_or(lds_bad, global_bad, "")?, "")?;
        self.trap_if(misaligned, &format!("tensor_aligned_{:x}", inst.offset))?;
        if t.store {
            return self.copy_elements(inst, &copy);
        }
        // Loads whose tile is whole 16-byte chunks, each wholly inside or wholly outside the
        // tensor, aligned in global memory and in LDS, and never cut by a pad (Triton's f16
        // tiles: rows of 64 or 128 bytes, pads of 16 or 32 bytes every 256) move a chunk per
        // access; any other copy goes element by element. (The test is on the descriptor, the
        // same in every thread of the wave.)
        let b = &self.b;
        let chunk = b.build_right_shift(c64(16), log2, false, "")?;
        let chunk_mask = b.build_int_sub(chunk, c64(1), "")?;
        let whole = |v: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> { Ok(b.build_int_compare(IntPredicate::EQ, b.build_and(v, chunk_mask, "")?, c64(0), "")?) };
        let aligned16 = |v: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> { Ok(b.build_int_compare(IntPredicate::EQ, b.build_and(v, c64(15), "")?, c64(0), "")?) };
        let pad_ok = b.build_or(
            b.build_int_compare(IntPredicate::EQ, amount, c64(0), "")?,
            b.build_and(b.build_int_compare(IntPredicate::UGE, pad_shift, c64(4), "")?, aligned16(amount)?, "")?,
            "",
        )?;
        let conds = [
            whole(z64(tile0)?)?,
            whole(z64(dim0)?)?,
            b.build_or(one_d, whole(stride)?, "")?,
            aligned16(global)?,
            aligned16(z64(lds)?)?,
            pad_ok,
        ];
        let mut fast = conds[0];
        for v in &conds[1..] {
            fast = b.build_and(fast, *v, "")?;
        }
        let chunks_bb = self.ctx.append_basic_block(self.func, &format!("tensor_chunks_{:x}", inst.offset));
        let elements_bb = self.ctx.append_basic_block(self.func, &format!("tensor_elements_{:x}", inst.offset));
        let copied_bb = self.ctx.append_basic_block(self.func, &format!("tensor_copied_{:x}", inst.offset));
        self.b.build_conditional_branch(fast, chunks_bb, elements_bb)?;
        self.b.position_at_end(chunks_bb);
        self.copy_chunks(inst, &copy, chunk)?;
        self.b.build_unconditional_branch(copied_bb)?;
        self.b.position_at_end(elements_bb);
        self.copy_elements(inst, &copy)?;
        self.b.build_unconditional_branch(copied_bb)?;
        self.b.position_at_end(copied_bb);
        Ok(())
    }
}

/// A tile copy's run-time shape (from the descriptor; see `tensor`).
struct Copy<'ctx> {
    /// Bytes to move (0 with pred 0), i64.
    total: IntValue<'ctx>,
    /// log2 of the element size, i64.
    log2: IntValue<'ctx>,
    /// Tile width, tensor width and height in elements (i32), the row stride in elements (i64).
    tile0: IntValue<'ctx>,
    dim0: IntValue<'ctx>,
    dim1: IntValue<'ctx>,
    one_d: IntValue<'ctx>,
    stride: IntValue<'ctx>,
    /// Global base (i64) and LDS base (i32) byte addresses.
    global: IntValue<'ctx>,
    lds: IntValue<'ctx>,
    /// Load padding: log2 of the interval and the amount in bytes (i64; amount 0: none).
    pad_shift: IntValue<'ctx>,
    amount: IntValue<'ctx>,
    store: bool,
}

impl<'ctx> Raiser<'ctx, '_> {
    /// The LDS byte address (i32) of byte `k` (i64) of the tile's stream.
    fn tile_lds_address(&self, c: &Copy<'ctx>, k: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let b = &self.b;
        let off = if c.store { k } else { b.build_int_add(k, b.build_int_mul(b.build_right_shift(k, c.pad_shift, false, "")?, c.amount, "")?, "")? };
        Ok(b.build_int_add(c.lds, b.build_int_truncate(off, self.ctx.i32_type(), "")?, "")?)
    }

    /// Thread `lane` moves elements lane, lane + 32, ... (element e is (x, y) = (e mod tile0,
    /// e / tile0), kept by adding 32 each round instead of dividing); each as one access of the
    /// element's width.
    fn copy_elements(&mut self, inst: &Instruction, c: &Copy<'ctx>) -> Result<(), RaiseError> {
        self.walk_tile(inst, c, None, c.log2, "tensor_elem", &mut |r, u| {
            // One arm per element width (the descriptor's data size is a run-time value).
            let i64t = r.ctx.i64_type();
            let latch = r.ctx.append_basic_block(r.func, "tensor_elem_next");
            let arms: Vec<_> = (0..4u64).map(|w| (w, r.ctx.append_basic_block(r.func, &format!("tensor_elem_{}", 8 << w)))).collect();
            let cases: Vec<_> = arms.iter().take(3).map(|&(w, bb)| (i64t.const_int(w, false), bb)).collect();
            r.b.build_switch(c.log2, arms[3].1, &cases)?;
            for (w, bb) in arms {
                r.b.position_at_end(bb);
                let ty = [r.ctx.i8_type(), r.ctx.i16_type(), r.ctx.i32_type(), r.ctx.i64_type()][w as usize];
                r.move_unit(inst, c.store, &u, ty, 1 << w)?;
                r.b.build_unconditional_branch(latch)?;
            }
            r.b.position_at_end(latch);
            Ok(())
        })
    }

    /// A load's tile in 16-byte chunks of `chunk` (i64) elements: thread `lane` moves chunks
    /// lane, lane + 32, ..., each one global load and one LDS store of 16 bytes, or 16 zero
    /// bytes where the chunk is outside the tensor. Only where `tensor` found every chunk whole,
    /// aligned and clear of pads.
    fn copy_chunks(&mut self, inst: &Instruction, c: &Copy<'ctx>, chunk: IntValue<'ctx>) -> Result<(), RaiseError> {
        let n = self.b.build_int_truncate(chunk, self.ctx.i32_type(), "")?;
        let i128t = self.ctx.i128_type();
        self.walk_tile(inst, c, Some(n), self.ctx.i64_type().const_int(4, false), "tensor_chunk", &mut |r, u| r.move_unit(inst, false, &u, i128t, 16))
    }

    /// The loop both copies share: thread `lane` takes units lane, lane + 32, ... of the tile's
    /// stream, a unit being `per_unit` elements (None: one) of 2^`unit_shift` bytes (i64). Its
    /// first element's (x, y) is kept by adding 32 units each round instead of dividing; a unit
    /// is inside the tensor where that element is (a unit of several elements is wholly in or
    /// wholly out: `tensor` checked that x and the tensor's width are multiples of it). `body`
    /// moves the unit and leaves the builder where the round ends.
    fn walk_tile(
        &mut self,
        inst: &Instruction,
        c: &Copy<'ctx>,
        per_unit: Option<IntValue<'ctx>>,
        unit_shift: IntValue<'ctx>,
        name: &str,
        body: &mut dyn FnMut(&mut Self, TileUnit<'ctx>) -> Result<(), RaiseError>,
    ) -> Result<(), RaiseError> {
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let c32 = |v: u64| i32t.const_int(v, false);
        let b = &self.b;
        let tile0 = c.tile0;
        let count = b.build_right_shift(c.total, unit_shift, false, "")?;
        let (first, round) = match per_unit {
            Some(n) => (b.build_int_mul(self.lane, n, "")?, b.build_int_mul(c32(32), n, "")?),
            None => (self.lane, c32(32)),
        };
        let (x0, y0) = (b.build_int_unsigned_rem(first, tile0, "")?, b.build_int_unsigned_div(first, tile0, "")?);
        let (step_x, step_y) = (b.build_int_unsigned_rem(round, tile0, "")?, b.build_int_unsigned_div(round, tile0, "")?);
        let start = b.build_int_z_extend(self.lane, i64t, "")?;
        let pre = self.current_block()?;
        let head = self.ctx.append_basic_block(self.func, &format!("{name}_loop"));
        let body_bb = self.ctx.append_basic_block(self.func, name);
        let done = self.ctx.append_basic_block(self.func, &format!("{name}_done"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let (k, x, y) = (self.b.build_phi(i64t, "unit")?, self.b.build_phi(i32t, "x")?, self.b.build_phi(i32t, "y")?);
        k.add_incoming(&[(&start, pre)]);
        x.add_incoming(&[(&x0, pre)]);
        y.add_incoming(&[(&y0, pre)]);
        let (kv, xv, yv) = (k.as_basic_value().into_int_value(), x.as_basic_value().into_int_value(), y.as_basic_value().into_int_value());
        let more = self.b.build_int_compare(IntPredicate::ULT, kv, count, "")?;
        self.b.build_conditional_branch(more, body_bb, done)?;
        self.b.position_at_end(body_bb);
        let b = &self.b;
        let in_x = b.build_int_compare(IntPredicate::ULT, xv, c.dim0, "")?;
        let in_y = b.build_or(c.one_d, b.build_int_compare(IntPredicate::ULT, yv, c.dim1, "")?, "")?;
        let inside = b.build_and(in_x, in_y, "")?;
        let elem = b.build_int_add(b.build_int_mul(b.build_int_z_extend(yv, i64t, "")?, c.stride, "")?, b.build_int_z_extend(xv, i64t, "")?, "")?;
        let ga = b.build_int_add(c.global, b.build_left_shift(elem, c.log2, "")?, "")?;
        let gptr = b.build_int_to_ptr(ga, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        let la = self.tile_lds_address(c, self.b.build_left_shift(kv, unit_shift, "")?)?;
        let lptr = self.lds_ptr(la, inst)?;
        body(self, TileUnit { inside, gptr, lptr })?;
        let b = &self.b;
        let next = b.build_int_add(kv, i64t.const_int(32, false), "")?;
        let nx = b.build_int_add(xv, step_x, "")?;
        let ny = b.build_int_add(yv, step_y, "")?;
        let wrap = b.build_int_compare(IntPredicate::UGE, nx, tile0, "")?;
        let nx = b.build_select(wrap, b.build_int_sub(nx, tile0, "")?, nx, "")?.into_int_value();
        let ny = b.build_select(wrap, b.build_int_add(ny, c32(1), "")?, ny, "")?.into_int_value();
        let latch = self.current_block()?;
        k.add_incoming(&[(&next, latch)]);
        x.add_incoming(&[(&nx, latch)]);
        y.add_incoming(&[(&ny, latch)]);
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(done);
        Ok(())
    }

    /// One unit of a copy as a `ty` access aligned to `align` bytes: a load reads it from global
    /// memory where it is inside the tensor (zero outside) and writes it to LDS; a store reads
    /// it from LDS and writes it to global memory where it is inside.
    fn move_unit(&mut self, inst: &Instruction, store: bool, u: &TileUnit<'ctx>, ty: hx_llvm::inkwell::types::IntType<'ctx>, align: u32) -> Result<(), RaiseError> {
        let (gptr, lptr) = (u.gptr, u.lptr);
        if store {
            let v = self.b.build_load(ty, lptr, "")?;
            set_align(v, align)?;
            let v = v.into_int_value();
            self.guarded(u.inside, vec![], &mut |r| {
                let st = r.b.build_store(gptr, v)?;
                st.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
                Ok(vec![])
            })?;
        } else {
            let v = self.guarded(u.inside, vec![ty.const_zero()], &mut |r| {
                let v = r.b.build_load(ty, gptr, "")?;
                set_align(v, align)?;
                Ok(vec![v.into_int_value()])
            })?;
            let st = self.b.build_store(lptr, v[0])?;
            st.set_alignment(align).map_err(|e| self.err(inst, e.to_string()))?;
        }
        Ok(())
    }
}

/// One unit of a tile copy ([`Raiser::walk_tile`]): whether it is inside the tensor, and its
/// global and LDS addresses.
struct TileUnit<'ctx> {
    inside: IntValue<'ctx>,
    gptr: hx_llvm::inkwell::values::PointerValue<'ctx>,
    lptr: hx_llvm::inkwell::values::PointerValue<'ctx>,
}

fn set_align(v: hx_llvm::inkwell::values::BasicValueEnum<'_>, align: u32) -> Result<(), RaiseError> {
    use hx_llvm::inkwell::values::BasicValue;
    if let Some(i) = v.as_instruction_value() {
        i.set_alignment(align).map_err(|e| RaiseError::Kernel { kernel: String::new(), msg: e.to_string() })?;
    }
    Ok(())
}
