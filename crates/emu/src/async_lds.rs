//! gfx1250 asynchronous loads from global memory into LDS (`global_load_async_to_lds_b8/b32/
//! b64/b128`).
//!
//! Each active lane copies `size` bytes from its global address (formed like any GLOBAL
//! instruction's: SGPR base + scaled VGPR offset, or a VGPR pair, plus the instruction offset)
//! to LDS at `VGPR[vdst] + instruction offset` (the ISA's `dsaddr = LDS_BASE + VGPR[VDST] +
//! INST_OFFSET`; M0 takes no part on gfx1250). The VGPR in the destination field is an input:
//! no register is written.
//!
//! Ordering: the hardware completes the copy at some point between issue and the
//! `s_wait_asynccnt` that waits for it (ASYNCcnt); until then the wave must neither read the
//! destination bytes nor write them. This functional model completes the copy at issue, which
//! is one of the orders the ISA permits, so `s_wait_asynccnt` has nothing left to wait for (a
//! program whose result depends on a later completion has a race the ISA does not define).

use crate::exec::{unsupported, vmem_addresses, VmemOperands};
use crate::mem_ops::{Location, Memories, Space};
use crate::dispatch::Group;
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::Instruction;

/// The bytes one lane copies, for the async global→LDS loads; None for other mnemonics.
pub fn async_load_size(mnemonic: &str) -> Option<u64> {
    Some(match mnemonic.strip_prefix("global_load_async_to_lds_")? {
        "b8" => 1,
        "b32" => 4,
        "b64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// Executes an async global→LDS load of `size` bytes per lane (completing at issue).
pub fn exec_async_load(
    wave: &mut Wave,
    wave_index: usize,
    inst: &Instruction,
    group: &mut Group<'_>,
    o: &VmemOperands,
    size: u64,
) -> Result<(), EmuError> {
    let lds_reg = o.vdst.ok_or_else(|| unsupported(inst, "no LDS-address register"))?;
    let addrs = vmem_addresses(wave, inst, Space::Global, o, size)?;
    let align = size.min(4);
    let mut mem = Memories::of_group(group, wave_index)?;
    let mut buf = [0u8; 16];
    let data = &mut buf[..size as usize];
    for lane in 0..wave.lanes {
        if !wave.lane_active(lane) {
            continue;
        }
        let lds = (wave.read_vreg(lds_reg, lane)? as u32 as i64).wrapping_add(o.offset) as u64 & 0xffff_ffff;
        mem.read(lane, Location::Global(addrs[lane]), data, align)?;
        mem.write(lane, Location::Lds(lds), data, align)?;
    }
    Ok(())
}
