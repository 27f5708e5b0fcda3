//! The source's SGPR, VGPR and TTMP files as allocas made on first use.
//!
//! A register's alloca and its zero initialisation go to the function's first block (before any
//! code, so the zero reaches every use) the first time the raiser names the register. A kernel
//! that names a dozen of the 106 SGPRs and 16 TTMPs then carries a dozen allocas instead of all of
//! them: half of saxpy's raised IR was allocas and zero stores of registers it never touches,
//! which the optimisation pipeline only removes again.

use super::Raiser;
use hx_llvm::inkwell::builder::BuilderError;
use hx_llvm::inkwell::values::PointerValue;
use std::cell::Cell;

/// One register file: its slots, made on first use.
pub(super) struct RegFile<'ctx> {
    pub(super) prefix: &'static str,
    slots: Vec<Cell<Option<PointerValue<'ctx>>>>,
}

impl<'ctx> RegFile<'ctx> {
    /// A file of `len` registers named `prefix0`, `prefix1`, ...
    pub(super) fn new(prefix: &'static str, len: usize) -> RegFile<'ctx> {
        RegFile { prefix, slots: (0..len).map(|_| Cell::new(None)).collect() }
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    /// The alloca of register `index` of `file`, made (and zeroed) on first use; None when the
    /// file has no such register.
    pub(super) fn slot(&self, file: &RegFile<'ctx>, index: usize) -> Result<Option<PointerValue<'ctx>>, BuilderError> {
        let Some(cell) = file.slots.get(index) else { return Ok(None) };
        if let Some(p) = cell.get() {
            return Ok(Some(p));
        }
        let i32t = self.ctx.i32_type();
        let p = self.regs_b.build_alloca(i32t, &format!("{}{index}", file.prefix))?;
        self.regs_b.build_store(p, i32t.const_zero())?;
        cell.set(Some(p));
        Ok(Some(p))
    }
}
