//! Raising gfx1250 `tensor_load_to_lds` / `tensor_store_from_lds` (the descriptor and its
//! fields: hx_sem::tensor). The descriptor sits in SGPRs, so it is uniform over the source wave:
//! the wave's 32 threads (all of them reach every instruction, see `lane_move`) copy the tile
//! together, thread `lane` taking bytes lane, lane + 32, ... of the tile's LDS image: a byte
//! inside the tensor comes from (or, for a store, goes to) global memory, a byte outside reads
//! as zero (a store skips it); a load's LDS stream is padded as the descriptor says. The copy
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
        let (i32t, i64t, i8t) = (self.ctx.i32_type(), self.ctx.i64_type(), self.ctx.i8_type());
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
        let (dim0, dim1, tile0) = (z64(dim0)?, z64(dim1)?, z64(tile0)?);
        let start = z64(self.lane)?;

        let pre = self.current_block()?;
        let head = self.ctx.append_basic_block(self.func, "tensor_loop");
        let body = self.ctx.append_basic_block(self.func, "tensor_byte");
        let done = self.ctx.append_basic_block(self.func, "tensor_done");
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let k = self.b.build_phi(i64t, "k")?;
        k.add_incoming(&[(&start, pre)]);
        let kv = k.as_basic_value().into_int_value();
        let more = self.b.build_int_compare(IntPredicate::ULT, kv, total, "")?;
        self.b.build_conditional_branch(more, body, done)?;
        self.b.position_at_end(body);
        let b = &self.b;
        let e = b.build_right_shift(kv, log2, false, "")?;
        let within = b.build_and(kv, b.build_int_sub(b.build_left_shift(c64(1), log2, "")?, c64(1), "")?, "")?;
        let x = b.build_int_unsigned_rem(e, tile0, "")?;
        let y = b.build_int_unsigned_div(e, tile0, "")?;
        let in_x = b.build_int_compare(IntPredicate::ULT, x, dim0, "")?;
        let in_y = b.build_or(one_d, b.build_int_compare(IntPredicate::ULT, y, dim1, "")?, "")?;
        let inside = b.build_and(in_x, in_y, "")?;
        let elem = b.build_int_add(b.build_int_mul(y, stride, "")?, x, "")?;
        let ga = b.build_int_add(b.build_int_add(global, b.build_left_shift(elem, log2, "")?, "")?, within, "")?;
        let gptr = b.build_int_to_ptr(ga, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        // Loads pad the LDS stream (hx_sem::tensor: `pad amount` bytes after every `pad
        // interval`); stores read it densely.
        let lds_off = if t.store {
            kv
        } else {
            let pad_shift = b.build_int_add(z64(and(shr(g1[0], 22)?, 7)?)?, c64(3), "")?;
            let amount = b.build_left_shift(b.build_int_add(z64(and(shr(g1[0], 25)?, 0x7f)?)?, c64(1), "")?, c64(2), "")?;
            let amount = b.build_select(ne0(and(g1[0], 0x10_0000)?)?, amount, c64(0), "")?.into_int_value();
            b.build_int_add(kv, b.build_int_mul(b.build_right_shift(kv, pad_shift, false, "")?, amount, "")?, "")?
        };
        let la = b.build_int_add(lds, b.build_int_truncate(lds_off, i32t, "")?, "")?;
        let lptr = self.lds_ptr(la, inst)?;
        if t.store {
            self.guarded(inside, vec![], &mut |r| {
                let v = r.b.build_load(i8t, lptr, "")?.into_int_value();
                r.b.build_store(gptr, v)?;
                Ok(vec![])
            })?;
        } else {
            let v = self.guarded(inside, vec![i8t.const_zero()], &mut |r| Ok(vec![r.b.build_load(i8t, gptr, "")?.into_int_value()]))?;
            self.b.build_store(lptr, v[0])?;
        }
        let next = self.b.build_int_add(kv, c64(32), "")?;
        let end = self.current_block()?;
        k.add_incoming(&[(&next, end)]);
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(done);
        Ok(())
    }
}
