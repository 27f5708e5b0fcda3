//! Raising gfx1250 FLAT (generic address) loads, stores and atomics.
//!
//! A generic address names global memory, or the work-group's LDS, or a lane's scratch. A kernel
//! can only form an LDS or scratch generic address from the aperture registers it reads
//! (`src_shared_base`, and on gfx1250 `src_flat_scratch_base`, the base of the globally
//! addressable scratch window): the hardware's values are not known when the code is compiled, and
//! the host cannot pass such an address in. So the raiser gives those registers values of its own,
//! outside every address the target's global memory uses, and routes each flat access by them:
//! - a kernel that reads neither register makes only global generic addresses: every flat access
//!   is a global (addrspace 1) access, as fast as the source's global_* ones;
//! - `src_shared_base` reads [`SHARED_APERTURE_HI`] in its high dword (0 in the low one, as the
//!   emulator has it): an address with that high dword is the LDS offset in its low dword, raised
//!   as an addrspace(3) access at the kernel's LDS;
//! - `src_flat_scratch_base` reads [`FLAT_SCRATCH_BASE`]. LLVM 22 forms lane `l`'s generic address
//!   of its private offset `p` as `base + (l << 52 | p)` (wave32): an address in that window
//!   (bits 63:58 equal the base's) is `p` in the thread's private array, the same array the
//!   source's scratch_* accesses use. Another lane's scratch (an `l` that is not the thread's own
//!   source lane, or bits 51:32 set) traps, as does a flat atomic on scratch (the hardware does
//!   not promise it; the emulator refuses it too).
//!
//! Where both registers are read, an access takes the path its address selects at run time.
//! The values are hx-sem's (hx_sem::memory::SHARED_APERTURE_HI, FLAT_SCRATCH_BASE), which the emulator uses,
//! so a translated kernel that stores a generic address as data stores what the source run does;
//! both are non-canonical on the targets (bits 48 and 58), so no global address collides.
//! Flat accesses with an SGPR base are refused by name (the emulator does not run them either).

use super::Raiser;
use crate::cfg::Cfg;
use crate::RaiseError;
use hx_isa::{Instruction, Operand, RegClass};
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::{AddressSpace, IntPredicate};

/// The raised `src_shared_base`'s high dword (its low dword reads 0) and
/// `src_flat_scratch_base`: the emulator's apertures.
use hx_sem::memory::{FLAT_SCRATCH_BASE, SHARED_APERTURE_HI};

/// Which windows a flat address of the program may fall in, besides global memory: those of the
/// aperture registers it reads anywhere (device functions included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FlatWindows {
    pub lds: bool,
    pub private: bool,
}

pub(crate) fn flat_windows(g: &Cfg) -> FlatWindows {
    let mut w = FlatWindows::default();
    for i in g.blocks.iter().flat_map(|b| b.insts.iter()) {
        let parts = i.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*i]);
        for o in parts.iter().flat_map(|p| p.operands()) {
            match o.value {
                Operand::Reg(r) if r.class == RegClass::SharedBase => w.lds = true,
                Operand::Reg(r) if r.class == RegClass::FlatScratchBase => w.private = true,
                _ => {}
            }
        }
    }
    w
}

/// The raised value of dword `index` (0 low, 1 high) of an aperture register; None for the
/// other registers.
pub(crate) fn aperture_dword(class: RegClass, index: usize) -> Option<u32> {
    match class {
        RegClass::SharedBase => Some(if index & 1 == 1 { SHARED_APERTURE_HI } else { 0 }),
        RegClass::FlatScratchBase => Some((FLAT_SCRATCH_BASE >> (32 * (index & 1))) as u32),
        _ => None,
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    /// flat_*: the access, routed by its address (module comment).
    pub(super) fn flat(&mut self, inst: &Instruction, o: &hx_sem::operands::VmemOperands, shape: &hx_sem::memory::MemShape) -> Result<(), RaiseError> {
        use hx_sem::memory::MemKind;
        if o.saddr.is_some_and(|r| r.class != RegClass::Null) {
            return Err(self.err(inst, "flat accesses with an SGPR base are not raised yet"));
        }
        let vaddr = o.vaddr.ok_or_else(|| self.err(inst, "no address"))?;
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let a = self.read_vreg(vaddr, 2, inst)?;
        let a = self.b.build_int_add(a, i64t.const_int(o.offset as u64, true), "flat_addr")?;
        let active = self.active()?;
        let hi = self.b.build_int_truncate(self.b.build_right_shift(a, i64t.const_int(32, false), false, "")?, i32t, "")?;
        let lo = self.b.build_int_truncate(a, i32t, "")?;
        let mut rest = active;
        let off_path = |r: &Self, rest: IntValue<'ctx>, is: IntValue<'ctx>| -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
            let on = r.b.build_and(rest, is, "")?;
            let not = r.b.build_not(is, "")?;
            Ok((on, r.b.build_and(rest, not, "")?))
        };
        if self.flat_windows.lds {
            let is = self.b.build_int_compare(IntPredicate::EQ, hi, self.i32(SHARED_APERTURE_HI as u64), "flat_is_lds")?;
            let (on, others) = off_path(self, rest, is)?;
            let ptr = self.lds_ptr(lo, inst)?;
            self.vmem_access(inst, shape, ptr, on, on, o.vdst, o.vdata, o.returns)?;
            rest = others;
        }
        if self.flat_windows.private {
            let top = self.b.build_right_shift(a, i64t.const_int(58, false), false, "")?;
            let is = self.b.build_int_compare(IntPredicate::EQ, top, i64t.const_int(FLAT_SCRATCH_BASE >> 58, false), "flat_is_private")?;
            let (on, others) = off_path(self, rest, is)?;
            // Bits 57:32 hold the lane in 56:52: this thread's own source lane, the rest 0.
            let field = self.b.build_and(self.b.build_right_shift(a, i64t.const_int(32, false), false, "")?, i64t.const_int((1 << 26) - 1, false), "")?;
            let own = self.b.build_left_shift(self.b.build_int_z_extend(self.lane, i64t, "")?, i64t.const_int(20, false), "")?;
            let mine = self.b.build_int_compare(IntPredicate::EQ, field, own, "")?;
            if matches!(shape.kind, MemKind::Atomic(_)) {
                self.trap_if(on, "flat_not_private")?;
            } else {
                let bad = self.b.build_and(on, self.b.build_not(mine, "")?, "")?;
                self.trap_if(bad, "flat_private_ok")?;
                // Without a private segment the source faults there (scratch_* does the same).
                match self.scratch {
                    Some(arr) => {
                        let off = self.b.build_int_z_extend(lo, i64t, "")?;
                        let ptr = unsafe { self.b.build_gep(self.ctx.i8_type(), arr, &[off], "")? };
                        self.vmem_access(inst, shape, ptr, on, on, o.vdst, o.vdata, o.returns)?;
                    }
                    None => self.trap_if(on, "flat_not_private")?,
                }
            }
            rest = others;
        }
        let ptr = self.b.build_int_to_ptr(a, self.ctx.ptr_type(AddressSpace::from(1u16)), "")?;
        self.vmem_access(inst, shape, ptr, rest, rest, o.vdst, o.vdata, o.returns)
    }
}
