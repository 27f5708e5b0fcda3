//! The gfx1250 memory model on the target's: cache-policy and scope bits of VFLAT instructions,
//! cache-control instructions (global_inv/global_wb), and the asynchronous global→LDS loads.
//!
//! - Scope (`scope:SCOPE_..`): an atomic takes the LLVM sync scope that covers it (CU:
//!   "workgroup"; SE and DEV: "agent", LLVM having no shader-engine scope and a wider scope being
//!   always correct; SYS: system). A plain load or store with a scope wider than the CU is the
//!   hardware's coherent access at that scope, raised as what LLVM itself lowers to it: at SE/DEV
//!   scope a monotonic atomic access at sync scope "agent" (per dword, as the source guarantees
//!   no more); at SYS scope a volatile access (LLVM gives volatile accesses system scope, and
//!   lowers them for gfx942/gfx950 to system-coherent ones).
//! - Temporal hints: TH_LOAD_NT/TH_STORE_NT (and the atomics' NT bit) become `!nontemporal`;
//!   the other hints only steer caches and have no IR form.
//! - global_wb / global_inv / global_wbinv (write back / invalidate caches at a scope) are what
//!   the gfx1250 backend emits for release / acquire fences: raised as `fence release` /
//!   `fence acquire` / `fence acq_rel` at the same sync scope, which the target backend lowers to
//!   its own cache maintenance.

use super::Raiser;
use crate::RaiseError;
use hx_isa::cpol::{Scope, VfCpol};
use hx_isa::{Instruction, Reg};
use hx_llvm::inkwell::values::{AsValueRef, BasicValue, InstructionValue, IntValue};
use hx_llvm::inkwell::{AddressSpace, AtomicOrdering};

/// The LLVM sync scope name covering a gfx1250 scope ("" is the system scope).
pub fn sync_scope(scope: Scope) -> &'static str {
    match scope {
        Scope::Cu => "workgroup",
        Scope::Se | Scope::Dev => "agent",
        Scope::Sys => "",
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    fn set_sync_scope(&self, i: InstructionValue<'ctx>, scope: Scope) {
        let name = sync_scope(scope);
        // SAFETY: `i` is a live atomic instruction of this context; the name outlives the call.
        unsafe {
            let id = hx_llvm::llvm_sys::core::LLVMGetSyncScopeID(self.ctx.raw(), name.as_ptr().cast(), name.len());
            hx_llvm::llvm_sys::core::LLVMSetAtomicSyncScopeID(i.as_value_ref(), id);
        }
    }

    /// Applies the cache policy of `inst` to one raised memory access `i` (see the module notes).
    /// `atomic`: `i` is an atomicrmw/cmpxchg; else a load or store of its natural alignment.
    pub(super) fn apply_cpol(&self, inst: &Instruction, i: InstructionValue<'ctx>, atomic: bool) -> Result<(), RaiseError> {
        // VBUFFER holds th/scope in its own fields, not as an operand.
        let Some(c) = inst.vf_cpol().or_else(|| inst.vbuffer().map(|v| v.cpol)) else { return Ok(()) };
        if c.nontemporal() {
            let one = self.ctx.i32_type().const_int(1, false);
            let md = self.ctx.metadata_node(&[one.into()]);
            i.set_metadata(md, self.ctx.get_kind_id("nontemporal")).map_err(|e| self.err(inst, e.to_string()))?;
        }
        if atomic {
            self.set_sync_scope(i, c.scope);
        } else if c.scope == Scope::Sys {
            i.set_volatile(true).map_err(|e| self.err(inst, e.to_string()))?;
        } else if c.scope != Scope::Cu {
            i.set_atomic_ordering(AtomicOrdering::Monotonic).map_err(|e| self.err(inst, e.to_string()))?;
            self.set_sync_scope(i, c.scope);
        }
        Ok(())
    }

    /// global_inv / global_wb / global_wbinv as fences at the instruction's scope.
    pub(super) fn cache_control(&mut self, inst: &Instruction) -> Result<(), RaiseError> {
        let ordering = match inst.mnemonic() {
            "global_inv" => AtomicOrdering::Acquire,
            "global_wb" => AtomicOrdering::Release,
            _ => AtomicOrdering::AcquireRelease,
        };
        let scope = inst.vf_cpol().map(|c: VfCpol| c.scope).ok_or_else(|| self.err(inst, "no cache policy"))?;
        let f = self.b.build_fence(ordering, false, "")?;
        self.set_sync_scope(f, scope);
        Ok(())
    }

    /// global_load_async_to_lds_bN: each active thread copies N bits from its global address to
    /// LDS at VGPR[vdst] + offset (the ISA's `LDS_BASE + VGPR[VDST] + INST_OFFSET`), raised as a
    /// load from addrspace(1) and a store into the kernel's LDS array. Legal as a synchronous
    /// copy: the source may not touch those LDS bytes before its s_wait_asynccnt (and, across
    /// waves, the barrier after it), so completing the copy at issue is an order the ISA allows,
    /// and the target's own waits and barriers then order it like any LDS store.
    pub(super) fn async_to_lds(&mut self, inst: &Instruction, o: &hx_sem::operands::VmemOperands, bytes: u64) -> Result<(), RaiseError> {
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let lds_reg = o.vdst.ok_or_else(|| self.err(inst, "no LDS-address register"))?;
        let scale = if o.scale_offset { bytes } else { 1 };
        let base = match (o.saddr.filter(|r| r.class != hx_isa::RegClass::Null), o.vaddr) {
            (Some(s), v) => {
                let s = self.read_sreg(s, 2, inst)?;
                match v {
                    Some(v) => {
                        let x = self.b.build_int_z_extend(self.read_vreg(v, 1, inst)?, i64t, "")?;
                        self.b.build_int_add(s, self.b.build_int_mul(x, i64t.const_int(scale, false), "")?, "")?
                    }
                    None => s,
                }
            }
            (None, Some(v)) => self.read_vreg(v, 2, inst)?,
            (None, None) => return Err(self.err(inst, "no address")),
        };
        let g = self.b.build_int_add(base, i64t.const_int(o.offset as u64, true), "")?;
        let gptr = self.b.build_int_to_ptr(g, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        let l = self.read_vreg(Reg { dwords: 1, ..lds_reg }, 1, inst)?;
        let l = self.b.build_int_add(l, i32t.const_int(o.offset as u64, true), "")?;
        let lptr = self.lds_ptr(l, inst)?;
        let ty = match bytes {
            1 => self.ctx.i8_type(),
            4 => i32t,
            8 => i64t,
            _ => self.ctx.i128_type(),
        };
        let align = bytes.min(4) as u32;
        let active = self.active()?;
        self.guarded(active, vec![], &mut |r| {
            let v = r.b.build_load(ty, gptr, "")?;
            let ld = v.as_instruction_value().expect("a load is an instruction");
            ld.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
            r.apply_cpol(inst, ld, false)?;
            let v: IntValue<'ctx> = v.into_int_value();
            r.b.build_store(lptr, v)?.set_alignment(align).map_err(|e| r.err(inst, e.to_string()))?;
            Ok(vec![])
        })?;
        Ok(())
    }
}
