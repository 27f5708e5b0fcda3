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
//! is one of the orders the ISA permits, and keeps the destination bytes marked in flight until
//! the wait: an LDS access to them before it (a race the ISA does not define) is an error.

use crate::exec::{unsupported, vmem_addresses, VmemOperands};
use crate::mem_ops::{Location, Memories, Space};
use crate::dispatch::Group;
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::Instruction;

pub use hx_sem::memory::async_load_size;

/// Executes an async global→LDS load of `size` bytes per lane (completing at issue).
pub fn exec_async_load(
    wave: &mut Wave,
    wave_index: usize,
    inst: &Instruction,
    group: &mut Group<'_>,
    o: &VmemOperands,
    size: u64,
) -> Result<(), EmuError> {
    let mut mem = Memories::of_group(group, wave_index)?;
    async_copy(wave, &mut mem, inst, o, size)?;
    let lds_reg = o.vdst.ok_or_else(|| unsupported(inst, "no LDS-address register"))?;
    let mut ranges = Vec::with_capacity(wave.lanes);
    for lane in (0..wave.lanes).filter(|&l| wave.lane_active(l)) {
        ranges.push(((wave.read_vreg(lds_reg, lane)? as u32 as i64).wrapping_add(o.offset) as u64 & 0xffff_ffff, size));
    }
    group.lds.begin_async(wave_index, ranges);
    Ok(())
}

/// The copy itself, on the memories one wave reaches.
pub fn async_copy(wave: &Wave, mem: &mut Memories<'_>, inst: &Instruction, o: &VmemOperands, size: u64) -> Result<(), EmuError> {
    let lds_reg = o.vdst.ok_or_else(|| unsupported(inst, "no LDS-address register"))?;
    let addrs = vmem_addresses(wave, inst, Space::Global, o, size)?;
    let align = size.min(4);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::FpMode;
    use crate::exec::vmem_operands;
    use crate::{GlobalMemory, LocalMemory};
    use hx_isa::Target;

    fn decode(words: &[u32]) -> Instruction {
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        hx_isa::decode(Target::Gfx1250, &b, 0).unwrap()
    }

    #[test]
    fn atomics_return_only_with_th_atomic_return() {
        // global_atomic_add_u32 v10, v2, v20, s[2:3] th:TH_ATOMIC_RETURN / without return.
        let rtn = vmem_operands(&decode(&[0xee0d_4002, 0x0a10_000a, 2])).unwrap();
        assert!(rtn.returns);
        assert_eq!(rtn.vdst.map(|r| r.index), Some(10));
        let plain = vmem_operands(&decode(&[0xee0d_4002, 0x0a00_000a, 2])).unwrap();
        assert!(!plain.returns);
        assert_eq!(plain.vdst, None, "no destination operand without the return bit");
    }

    #[test]
    fn async_load_copies_active_lanes_to_vdst_plus_offset() {
        // global_load_async_to_lds_b32 v1, v[2:3], off offset:4
        let inst = decode(&[0xee18_007c, 1, 0x402]);
        assert_eq!(inst.text(), "global_load_async_to_lds_b32 v1, v[2:3], off offset:4");
        let o = vmem_operands(&inst).unwrap();
        let mut global = GlobalMemory::new();
        let src: Vec<u8> = (0..40u32).flat_map(|i| (0x100 + i).to_le_bytes()).collect();
        let buf = global.alloc(src);
        let mut lds = LocalMemory::new("lds", 1024);
        let mut scratch: Vec<LocalMemory> = (0..32).map(|_| LocalMemory::new("scratch", 16)).collect();
        let mut w = Wave::new(32, 8, 0);
        w.exec = 0x5555_5555;
        for l in 0..32 {
            let a = buf + 4 * l as u64;
            w.set_v(2, l, a as u32).unwrap();
            w.set_v(3, l, (a >> 32) as u32).unwrap();
            w.set_v(1, l, 8 * l as u32).unwrap();
        }
        let mut mem = Memories { global: &mut global, lds: &mut lds, scratch: &mut scratch, fp_mode: FpMode::default() };
        async_copy(&w, &mut mem, &inst, &o, 4).unwrap();
        for l in 0..32usize {
            let mut got = [0u8; 4];
            lds.read(8 * l as u64 + 4, &mut got, 4).unwrap();
            // Global element l + 1 (offset 4 applies to both sides); inactive lanes copy nothing.
            let want = if l % 2 == 0 { 0x101 + l as u32 } else { 0 };
            assert_eq!(u32::from_le_bytes(got), want, "lane {l}");
        }
        assert_eq!(async_load_size("global_load_async_to_lds_b128"), Some(16));
        assert_eq!(async_load_size("global_store_async_from_lds_b32"), None);
    }
}
