//! Semantics of vector-memory (global, flat, scratch) and LDS (`ds_*`) instructions, decoupled
//! from decoding: the executor fills a [`MemOp`] from a decoded instruction, computes one address
//! per lane, and calls [`execute`] (or [`execute_in_group`]) for the whole wave. The DS cross-lane
//! instructions that do not touch LDS (`ds_bpermute_b32`, `ds_permute_b32`, `ds_swizzle_b32`) are
//! here too, as pure functions over a wave's lanes plus wave-level wrappers.
//!
//! # Model
//! * Only lanes whose EXEC bit is set access memory or have registers written.
//! * Addresses: the caller passes one 64-bit address per lane, already summed (VGPR/SGPR base,
//!   SGPR offset, instruction offset; for `ds_*` the VGPR address plus the 16-bit offset; for
//!   `ds_*_2addr_*` the VGPR address only — the two scaled offsets are in [`DsPair`]).
//!   * [`Space::Global`]: a device address in [`GlobalMemory`].
//!   * [`Space::Lds`]: a byte offset into the workgroup's LDS.
//!   * [`Space::Scratch`]: a byte offset into the lane's own private memory.
//!   * [`Space::Flat`]: routed by the high 32 bits: [`crate::SHARED_APERTURE_HI`] → LDS at the low
//!     32 bits, [`crate::PRIVATE_APERTURE_HI`] → the lane's scratch at the low 32 bits, bits 63:58
//!     equal to [`crate::FLAT_SCRATCH_BASE`]'s → gfx1250 globally addressable scratch (the lane
//!     the address names, at its low 32 bits), anything else → global memory at the full address. A flat *atomic* that lands in private memory is
//!     refused ([`EmuError::Unsupported`]): the hardware does not promise it.
//! * Order within a wave: lanes are processed in increasing lane order, so for stores from several
//!   lanes to the same bytes the highest lane wins, and atomics are applied one lane after the
//!   other in increasing lane order (each lane sees the previous lanes' results). The hardware
//!   order among the lanes of one instruction is unspecified; the corpus only uses
//!   order-independent atomics (add, min/max, and/or/xor, swap of equal values, cmpswap loops), so
//!   results agree with any hardware order. Non-returning atomic and store results in memory are
//!   then order-independent; returned pre-op values of colliding lanes depend on the order, which
//!   the corpus only uses as "every ticket taken once".
//! * Errors: out-of-bounds → [`EmuError::MemoryFault`], misaligned → [`EmuError::Misaligned`]. A
//!   load checks every lane before writing any register. A store or atomic that faults stops
//!   the run with memory possibly updated for lower lanes (the run is over anyway).
//!
//! # Alignment (what the hardware requires, and what is checked)
//! * GFX9 (gfx942/gfx950) and GFX12 (gfx1250) have an alignment mode in SH_MEM_CONFIG; the ROCm
//!   kernel driver sets it to *unaligned* for these families, and LLVM turns on
//!   `unaligned-access-mode` for amdhsa (so it may emit a `global_load_dwordx4` or `ds_read_b64`
//!   at a 4-byte-aligned address). In the strict DWORD mode multi-dword VMEM accesses still only need
//!   dword alignment. Atomics always need natural alignment (4 or 8 bytes). The corpus relies
//!   on this: the gfx942 build of `scratch_array` has `scratch_store_dwordx4 ... offset:12`.
//! * The default [`AlignPolicy::Dword`] is the conservative middle: 16-bit accesses need 2-byte
//!   alignment, every access of 4 or more bytes needs 4, atomics need their natural size. It
//!   accepts every layout LLVM produces from naturally aligned IR while still catching the odd
//!   addresses that mean a translation computed an address wrongly. [`AlignPolicy::Natural`]
//!   (each width at its own size, B96 at 4) and [`AlignPolicy::Unaligned`] are there for tests
//!   and for kernels built from under-aligned IR.
//! * DS instructions used M0 as an LDS limit before GFX9 (LLVM initialises M0 for DS only on
//!   older targets); on gfx942/gfx950/gfx1250 M0 is ignored here and LDS bounds are the
//!   allocation size.
//!
//! # Facts used (with where they come from)
//! * DS pseudocode (RDNA4 ISA guide, "VDS instructions"; the CDNA3 guide's DS opcode table for
//!   the GFX9 names, same operations):
//!   inc `tmp >= src ? 0 : tmp + 1`; dec `tmp == 0 || tmp > src ? src : tmp - 1`; rsub
//!   `src - tmp`; cond_sub `tmp >= src ? tmp - src : tmp`; sub_clamp `tmp < src ? 0 : tmp - src`;
//!   mskor `(tmp & ~DATA) | DATA2`; min_num/max_num are IEEE minimumNumber/maximumNumber with
//!   `-0 < +0`; `ds_*_2addr_b32` address `ADDR + OFFSETn * 4` (`* 256` for stride64), `_b64`
//!   `* 8` (`* 512`).
//! * Compare-and-swap operand order: `global_atomic_cmpswap{,_x2}` / `flat_` / `buffer_` (GFX9
//!   and GFX12) take DATA = {src, cmp} in one register tuple (src in the low dword(s)). GFX12's
//!   `ds_cmpstore_{,rtn_}b32/b64` take DATA0 = src, DATA1 = cmp ("in this architecture the order
//!   of src and cmp agree with BUFFER_ATOMIC_CMPSWAP", RDNA4 guide); GFX9's
//!   `ds_cmpst_{,rtn_}b32/b64` take DATA0 = cmp, DATA1 = src — the corpus shows it: the same
//!   cmpxchg in `atomics_lds` is `ds_cmpst_rtn_b32 v5, v3, v4, v5` for gfx942 and
//!   `ds_cmpstore_rtn_b32 v5, v3, v5, v4` for gfx1250. [`MemRegs`] always means data =
//!   src, data2 = cmp; [`ds_cmpswap_regs`] maps the encoded DATA0/DATA1 per target.
//! * `ds_bpermute_b32` / `ds_permute_b32` / `ds_swizzle_b32`: see [`bpermute`], [`permute`],
//!   [`Swizzle`].

use crate::alu::FpMode;
use crate::dispatch::Group;
use crate::memory::{GlobalMemory, LocalMemory};
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::Reg;

pub use hx_sem::memory::*;

/// The memories one wave can reach, borrowed from its [`Group`].
pub struct Memories<'a> {
    pub global: &'a mut GlobalMemory,
    pub lds: &'a mut LocalMemory,
    /// This wave's per-lane private memory.
    pub scratch: &'a mut [LocalMemory],
    /// Float mode of float atomics.
    pub fp_mode: FpMode,
}

impl<'a> Memories<'a> {
    pub fn of_group(group: &'a mut Group<'_>, wave_index: usize) -> Result<Memories<'a>, EmuError> {
        let fp_mode = group.fp_mode;
        let nwaves = group.scratch.len();
        let scratch = group
            .scratch
            .get_mut(wave_index)
            .ok_or_else(|| EmuError::Launch(format!("wave {wave_index} has no scratch (group of {nwaves} waves)")))?;
        Ok(Memories { global: &mut *group.mem, lds: &mut group.lds, scratch: scratch.as_mut_slice(), fp_mode })
    }
}

/// Where one lane's access goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Global(u64),
    Lds(u64),
    Scratch(u64),
    /// A gfx1250 globally addressed scratch location: the flat address minus
    /// [`crate::FLAT_SCRATCH_BASE`], naming a lane and an offset in its scratch.
    LaneScratch(u64),
}

/// Routes an address of `space` (flat apertures, see the module documentation).
pub fn locate(space: Space, addr: u64) -> Location {
    match space {
        Space::Global => Location::Global(addr),
        Space::Lds => Location::Lds(addr),
        Space::Scratch => Location::Scratch(addr),
        Space::Flat => {
            let (hi, lo) = ((addr >> 32) as u32, addr & 0xffff_ffff);
            if hi == crate::SHARED_APERTURE_HI {
                Location::Lds(lo)
            } else if hi == crate::PRIVATE_APERTURE_HI {
                Location::Scratch(lo)
            } else if addr >> 58 == crate::FLAT_SCRATCH_BASE >> 58 {
                Location::LaneScratch(addr - crate::FLAT_SCRATCH_BASE)
            } else {
                Location::Global(addr)
            }
        }
    }
}

impl Memories<'_> {
    fn scratch_of(&mut self, lane: usize) -> Result<&mut LocalMemory, EmuError> {
        let n = self.scratch.len();
        self.scratch.get_mut(lane).ok_or_else(|| EmuError::Launch(format!("lane {lane} has no scratch ({n} lanes)")))
    }

    /// The lane and scratch offset of a [`Location::LaneScratch`] address: the lane in the bits
    /// from 57 - log2(wave size) to 56, the offset in bits 31:0 (the bits between must be 0).
    fn lane_scratch(&self, rel: u64) -> Result<(usize, u64), EmuError> {
        let lanes = self.scratch.len().max(1);
        let shift = 57 - lanes.trailing_zeros();
        let lane = (rel >> shift) as usize;
        if !lanes.is_power_of_two() || lane >= lanes || (rel >> 32) & ((1u64 << (shift - 32)) - 1) != 0 {
            return Err(EmuError::MemoryFault { space: "scratch", addr: rel.wrapping_add(crate::FLAT_SCRATCH_BASE), len: 0 });
        }
        Ok((lane, rel & 0xffff_ffff))
    }

    pub fn read(&mut self, lane: usize, loc: Location, out: &mut [u8], align: u64) -> Result<(), EmuError> {
        match loc {
            Location::Global(a) => self.global.read(a, out, align),
            Location::Lds(a) => self.lds.read(a, out, align),
            Location::Scratch(a) => self.scratch_of(lane)?.read(a, out, align),
            Location::LaneScratch(rel) => {
                let (l, a) = self.lane_scratch(rel)?;
                self.scratch_of(l)?.read(a, out, align)
            }
        }
    }

    pub fn write(&mut self, lane: usize, loc: Location, data: &[u8], align: u64) -> Result<(), EmuError> {
        match loc {
            Location::Global(a) => self.global.write(a, data, align),
            Location::Lds(a) => self.lds.write(a, data, align),
            Location::Scratch(a) => self.scratch_of(lane)?.write(a, data, align),
            Location::LaneScratch(rel) => {
                let (l, a) = self.lane_scratch(rel)?;
                self.scratch_of(l)?.write(a, data, align)
            }
        }
    }
}

fn unsupported(what: impl Into<String>) -> EmuError {
    EmuError::Unsupported { mnemonic: "memory operation", what: what.into() }
}

fn reg_at(base: Reg, dword: usize, dwords: usize) -> Reg {
    Reg { class: base.class, index: base.index + dword as u16, dwords: dwords as u8 }
}

fn need(r: Option<Reg>, what: &str) -> Result<Reg, EmuError> {
    r.ok_or_else(|| unsupported(format!("a missing {what} register")))
}

fn active_lanes(wave: &Wave) -> impl Iterator<Item = usize> + use<> {
    let exec = wave.exec & wave.lane_mask();
    (0..wave.lanes).filter(move |l| exec >> l & 1 != 0)
}

/// [`execute`] with the memories of `group` for wave `wave_index`.
pub fn execute_in_group(
    op: &MemOp,
    wave: &mut Wave,
    wave_index: usize,
    group: &mut Group<'_>,
    addrs: &[u64],
    regs: &MemRegs,
) -> Result<(), EmuError> {
    let mut mem = Memories::of_group(group, wave_index)?;
    execute(op, wave, &mut mem, addrs, regs)
}

/// Executes `op` for every active lane of `wave`; `addrs[lane]` is the lane's address.
pub fn execute(op: &MemOp, wave: &mut Wave, mem: &mut Memories<'_>, addrs: &[u64], regs: &MemRegs) -> Result<(), EmuError> {
    if addrs.len() < wave.lanes {
        return Err(unsupported(format!("{} addresses for a wave of {} lanes", addrs.len(), wave.lanes)));
    }
    if op.pair.is_some() && (!matches!(op.width, Width::B32 | Width::B64) || matches!(op.kind, MemKind::Atomic(_))) {
        return Err(unsupported(format!("a two-address DS access of {:?} {:?}", op.kind, op.width)));
    }
    if op.pair.is_some() && op.space != Space::Lds {
        return Err(unsupported("a two-address access outside LDS"));
    }
    match op.kind {
        MemKind::Load => load(op, wave, mem, addrs, regs),
        MemKind::Store => store(op, wave, mem, addrs, regs),
        MemKind::Atomic(a) => atomic(op, a, wave, mem, addrs, regs),
    }
}

/// The (address, bytes) pieces of one lane's access.
fn pieces(op: &MemOp, addr: u64) -> [(u64, usize); 2] {
    let n = op.width.bytes();
    match op.pair {
        Some(p) => {
            let scale = n as u64 * if p.stride64 { 64 } else { 1 };
            [(addr.wrapping_add(p.offset0 as u64 * scale), n), (addr.wrapping_add(p.offset1 as u64 * scale), n)]
        }
        None => [(addr, n), (0, 0)],
    }
}

fn dwords_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn load(op: &MemOp, wave: &mut Wave, mem: &mut Memories<'_>, addrs: &[u64], regs: &MemRegs) -> Result<(), EmuError> {
    let dst = need(regs.dst, "destination")?;
    let align = op.required_align();
    let mut results: Vec<(usize, Vec<u32>)> = Vec::new();
    for lane in active_lanes(wave) {
        let mut bytes = Vec::with_capacity(16);
        for (a, n) in pieces(op, addrs[lane]) {
            if n == 0 {
                continue;
            }
            let mut buf = [0u8; 16];
            mem.read(lane, locate(op.space, a), &mut buf[..n], align)?;
            bytes.extend_from_slice(&buf[..n]);
        }
        let value = match op.width {
            Width::U8 => vec![bytes[0] as u32],
            Width::I8 => vec![bytes[0] as i8 as i32 as u32],
            Width::U16 => vec![u16::from_le_bytes([bytes[0], bytes[1]]) as u32],
            Width::I16 => vec![i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32],
            w if w.is_d16() => {
                let half = match w {
                    Width::D16LoU8 | Width::D16HiU8 => bytes[0] as u32,
                    Width::D16LoI8 | Width::D16HiI8 => bytes[0] as i8 as i16 as u16 as u32,
                    _ => u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
                };
                let old = wave.read_vreg(reg_at(dst, 0, 1), lane)? as u32;
                vec![if w.is_d16_hi() { (old & 0x0000_ffff) | half << 16 } else { (old & 0xffff_0000) | half }]
            }
            _ => dwords_of(&bytes),
        };
        results.push((lane, value));
    }
    for (lane, value) in results {
        wave.write_vreg_dwords(dst, lane, &value)?;
    }
    Ok(())
}

fn store(op: &MemOp, wave: &mut Wave, mem: &mut Memories<'_>, addrs: &[u64], regs: &MemRegs) -> Result<(), EmuError> {
    let data = need(regs.data, "data")?;
    let align = op.required_align();
    let dw = op.width.reg_dwords();
    for lane in active_lanes(wave) {
        let first = wave.read_vreg_dwords(reg_at(data, 0, dw), lane)?;
        let second = match op.pair {
            Some(_) => Some(wave.read_vreg_dwords(reg_at(need(regs.data2, "second data")?, 0, dw), lane)?),
            None => None,
        };
        let bytes_of = |v: &[u32]| -> Vec<u8> {
            let x = v[0];
            match op.width {
                Width::U8 | Width::I8 | Width::D16LoU8 | Width::D16LoI8 => vec![x as u8],
                Width::U16 | Width::I16 | Width::D16Lo => (x as u16).to_le_bytes().to_vec(),
                Width::D16HiU8 | Width::D16HiI8 => vec![(x >> 16) as u8],
                Width::D16Hi => ((x >> 16) as u16).to_le_bytes().to_vec(),
                _ => v.iter().flat_map(|d| d.to_le_bytes()).collect(),
            }
        };
        let [(a0, _), (a1, n1)] = pieces(op, addrs[lane]);
        mem.write(lane, locate(op.space, a0), &bytes_of(&first), align)?;
        if let (Some(second), true) = (second, n1 > 0) {
            mem.write(lane, locate(op.space, a1), &bytes_of(&second), align)?;
        }
    }
    Ok(())
}

fn atomic(
    op: &MemOp,
    a: AtomicOp,
    wave: &mut Wave,
    mem: &mut Memories<'_>,
    addrs: &[u64],
    regs: &MemRegs,
) -> Result<(), EmuError> {
    let wide = match op.width {
        Width::B32 => false,
        Width::B64 if !matches!(a, AtomicOp::PkAddF16 | AtomicOp::PkAddBf16) => true,
        w => return Err(unsupported(format!("atomic {a:?} of width {w:?}"))),
    };
    let dw = if wide { 2 } else { 1 };
    let n = 4 * dw;
    let data = need(regs.data, "data")?;
    let dst = if op.returns { Some(need(regs.dst, "return destination")?) } else { None };
    let read_val = |wave: &Wave, r: Reg, lane: usize| -> Result<u64, EmuError> { wave.read_vreg(reg_at(r, 0, dw), lane) };
    let mut returned: Vec<(usize, u64)> = Vec::new();
    for lane in active_lanes(wave) {
        let src = read_val(wave, data, lane)?;
        let second = match (a, regs.data2) {
            (AtomicOp::CmpSwap | AtomicOp::MaskOr, Some(r)) => read_val(wave, r, lane)?,
            (AtomicOp::CmpSwap, None) => wave.read_vreg(reg_at(data, dw, dw), lane)?,
            (AtomicOp::MaskOr, None) => return Err(unsupported("ds_mskor without its second data register")),
            _ => 0,
        };
        let loc = locate(op.space, addrs[lane]);
        if op.space == Space::Flat && matches!(loc, Location::Scratch(_) | Location::LaneScratch(_)) {
            // The hardware does not guarantee flat atomics on private memory (LLVM guards
            // 64-bit ones with a runtime aperture check); refuse rather than guess.
            return Err(unsupported(format!("a flat atomic on private memory (lane {lane}, {:#x})", addrs[lane])));
        }
        let mut buf = [0u8; 8];
        // The read and the write are one atomic access (for the race check).
        mem.global.begin_atomic();
        let old = mem.read(lane, loc, &mut buf[..n], n as u64).and_then(|()| {
            let old = u64::from_le_bytes(buf);
            let new = atomic_value(a, wide, old, src, second, &mem.fp_mode);
            let new = if wide { new } else { new & 0xffff_ffff };
            mem.write(lane, loc, &new.to_le_bytes()[..n], n as u64).map(|()| old)
        });
        mem.global.end_atomic();
        returned.push((lane, old?));
    }
    if let Some(dst) = dst {
        for (lane, old) in returned {
            let v = if wide { vec![old as u32, (old >> 32) as u32] } else { vec![old as u32] };
            wave.write_vreg_dwords(dst, lane, &v)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Mnemonic classification.

// ---------------------------------------------------------------------------------------------
// DS cross-lane operations (no LDS access).

fn lane_values(wave: &Wave, r: Reg) -> Result<Vec<u32>, EmuError> {
    (0..wave.lanes).map(|l| wave.read_vreg(reg_at(r, 0, 1), l).map(|v| v as u32)).collect()
}

fn write_active(wave: &mut Wave, dst: Reg, values: &[u32]) -> Result<(), EmuError> {
    for lane in active_lanes(wave) {
        wave.write_vreg_dwords(dst, lane, &[values[lane]])?;
    }
    Ok(())
}

/// `ds_bpermute_b32 dst, addr, data offset:…` on a wave (`fetch_inactive`: `ds_bpermute_fi_b32`).
pub fn ds_bpermute(wave: &mut Wave, dst: Reg, addr: Reg, data: Reg, offset: u16, fetch_inactive: bool) -> Result<(), EmuError> {
    let out = bpermute(&lane_values(wave, addr)?, &lane_values(wave, data)?, wave.exec & wave.lane_mask(), offset, fetch_inactive);
    write_active(wave, dst, &out)
}

/// `ds_permute_b32 dst, addr, data offset:…` on a wave.
pub fn ds_permute(wave: &mut Wave, dst: Reg, addr: Reg, data: Reg, offset: u16) -> Result<(), EmuError> {
    let out = permute(&lane_values(wave, addr)?, &lane_values(wave, data)?, wave.exec & wave.lane_mask(), offset);
    write_active(wave, dst, &out)
}

/// `ds_swizzle_b32 dst, data offset:…` on a wave.
pub fn ds_swizzle(wave: &mut Wave, dst: Reg, data: Reg, offset: u16) -> Result<(), EmuError> {
    let out = swizzle(&lane_values(wave, data)?, wave.exec & wave.lane_mask(), offset);
    write_active(wave, dst, &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hx_isa::Target;
    use crate::{FLAT_SCRATCH_BASE, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};

    struct Env {
        global: GlobalMemory,
        lds: LocalMemory,
        scratch: Vec<LocalMemory>,
    }

    impl Env {
        fn new(lanes: usize) -> Env {
            Env {
                global: GlobalMemory::new(),
                lds: LocalMemory::new("lds", 4096),
                scratch: (0..lanes).map(|_| LocalMemory::new("scratch", 64)).collect(),
            }
        }
        fn mem(&mut self) -> Memories<'_> {
            Memories { global: &mut self.global, lds: &mut self.lds, scratch: &mut self.scratch, fp_mode: FpMode::default() }
        }
    }

    fn wave(lanes: usize, exec: u64) -> Wave {
        let mut w = Wave::new(lanes, 16, 0);
        w.exec = exec;
        w
    }

    fn set(w: &mut Wave, reg: usize, f: impl Fn(usize) -> u32) {
        for l in 0..w.lanes {
            w.set_v(reg, l, f(l)).unwrap();
        }
    }

    fn col(w: &Wave, reg: usize) -> Vec<u32> {
        (0..w.lanes).map(|l| w.v(reg, l).unwrap()).collect()
    }

    fn run(op: MemOp, w: &mut Wave, env: &mut Env, addrs: &[u64], regs: MemRegs) -> Result<(), EmuError> {
        execute(&op, w, &mut env.mem(), addrs, &regs)
    }

    #[test]
    fn global_loads_extend_and_stores_narrow() {
        let mut env = Env::new(4);
        let buf = env.global.alloc(vec![0x80, 0xff, 0x7f, 0x01, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        let mut w = wave(4, 0b1111);
        let a = [buf; 4];
        let regs = MemRegs::vgprs(Some(1), None, None);
        run(MemOp::load(Space::Global, Width::U8), &mut w, &mut env, &a, regs).unwrap();
        assert_eq!(w.v(1, 0).unwrap(), 0x80);
        run(MemOp::load(Space::Global, Width::I8), &mut w, &mut env, &a, regs).unwrap();
        assert_eq!(w.v(1, 0).unwrap(), 0xffff_ff80);
        run(MemOp::load(Space::Global, Width::U16), &mut w, &mut env, &a, regs).unwrap();
        assert_eq!(w.v(1, 1).unwrap(), 0xff80);
        run(MemOp::load(Space::Global, Width::I16), &mut w, &mut env, &a, regs).unwrap();
        assert_eq!(w.v(1, 2).unwrap(), 0xffff_ff80);
        run(MemOp::load(Space::Global, Width::B128), &mut w, &mut env, &a, regs).unwrap();
        assert_eq!(&col(&w, 4)[..1], &[0x100f_0e0d]);
        assert_eq!(w.v(2, 3).unwrap(), 0x0807_0605);
        // Stores: lane l writes byte / short / dword / x2 at its own offset.
        let out = env.global.alloc(vec![0; 64]);
        set(&mut w, 8, |l| 0xaabb_cc00 | l as u32);
        set(&mut w, 9, |l| 0x1111_0000 | l as u32);
        let a: Vec<u64> = (0..4).map(|l| out + 8 * l as u64).collect();
        run(MemOp::store(Space::Global, Width::B64), &mut w, &mut env, &a, MemRegs::vgprs(None, Some(8), None)).unwrap();
        let a2: Vec<u64> = (0..4).map(|l| out + 32 + l as u64).collect();
        run(MemOp::store(Space::Global, Width::U8), &mut w, &mut env, &a2, MemRegs::vgprs(None, Some(8), None)).unwrap();
        let b = env.global.buffer(out).unwrap();
        assert_eq!(&b[0..8], &[0x00, 0xcc, 0xbb, 0xaa, 0x00, 0x00, 0x11, 0x11]);
        assert_eq!(&b[8..12], &[0x01, 0xcc, 0xbb, 0xaa]);
        assert_eq!(&b[32..36], &[0, 1, 2, 3]);
    }

    #[test]
    fn transpose_lanes_give_each_lane_a_column_of_its_16_lane_tile() {
        // b16: 4 elements a lane, rows of 4 lanes; element k of lane l is 100 * l + k.
        let loaded: Vec<Vec<u8>> = (0..32u16).map(|l| (0..4u16).flat_map(|k| (100 * l + k).to_le_bytes()).collect()).collect();
        let out = ds_transpose_lanes(&loaded, 16, TrLanes::Gfx950);
        let elem = |lane: usize, r: usize| u16::from_le_bytes([out[lane][2 * r], out[lane][2 * r + 1]]);
        // Lane 6 (column 6): row r comes from lane 4r + 1, element 2.
        assert_eq!((0..4).map(|r| elem(6, r)).collect::<Vec<_>>(), vec![102, 502, 902, 1302]);
        // The second group works on its own lanes: lane 16 + 15 reads lanes 16 + 4r + 3, element 3.
        assert_eq!(elem(31, 0), 100 * 19 + 3);
        // b8: 8 elements a lane, rows of 2 lanes.
        let loaded: Vec<Vec<u8>> = (0..16u8).map(|l| (0..8u8).map(|k| l * 8 + k).collect()).collect();
        let out = ds_transpose_lanes(&loaded, 8, TrLanes::Gfx950);
        // Lane 9 (column 9): row r from lane 2r + 1, element 1.
        assert_eq!(out[9], vec![9, 25, 41, 57, 73, 89, 105, 121]);
    }

    /// gfx1250's ds_load_tr8_b64 (pinned by Triton's gfx1250 int8/fp8 matmuls, see
    /// ds_transpose_source): two 8x8 byte blocks a 16-lane group, block b from lanes 4b..4b+3 and
    /// 8+4b..8+4b+3.
    #[test]
    fn gfx1250_tr8_lanes_transpose_two_8x8_blocks_a_16_lane_group() {
        // Byte k of lane l's load is 8l + k (lanes 16-31 wrap to 128..255).
        let loaded: Vec<Vec<u8>> = (0..32u32).map(|l| (0..8u32).map(|k| (8 * l + k) as u8).collect()).collect();
        let out = ds_transpose_lanes(&loaded, 8, TrLanes::Gfx1250Tr8);
        // Lane 9 (block 1, column 1): rows from lanes 4, 5, 6, 7, 12, 13, 14, 15, byte 1.
        assert_eq!(out[9], vec![33, 41, 49, 57, 97, 105, 113, 121]);
        // Lane 2 (block 0, column 2): lanes 0-3 and 8-11, byte 2.
        assert_eq!(out[2], vec![2, 10, 18, 26, 66, 74, 82, 90]);
        // The second group works on its own lanes: lane 31 reads lanes 20-23 and 28-31, byte 7.
        assert_eq!(out[31], [20, 21, 22, 23, 28, 29, 30, 31].map(|l| (8 * l + 7) as u8).to_vec());
        // Every loaded byte lands in exactly one result byte of its group, and it is not
        // gfx950's reading.
        let mut seen: Vec<u8> = out.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..=255u8).collect::<Vec<_>>());
        assert_ne!(out, ds_transpose_lanes(&loaded, 8, TrLanes::Gfx950));
    }

    /// gfx1250's ds_load_tr16_b128 (pinned by Triton's gfx1250 f16/bf16 matmuls and flash
    /// attention, see ds_transpose_source): two 8x8 blocks of 16-bit elements a 16-lane group,
    /// block b from lanes 8b..8b+7.
    #[test]
    fn gfx1250_tr16_lanes_transpose_two_8x8_blocks_of_8_lanes() {
        // Element k of lane l's 16-byte load is 100 l + k.
        let loaded: Vec<Vec<u8>> = (0..32u16).map(|l| (0..8u16).flat_map(|k| (100 * l + k).to_le_bytes()).collect()).collect();
        let out = ds_transpose_lanes(&loaded, 16, TrLanes::Gfx1250Tr16);
        let elems = |lane: usize| -> Vec<u16> { out[lane].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect() };
        // Lane 9 (block 1, column 1): lanes 8-15, element 1.
        assert_eq!(elems(9), vec![801, 901, 1001, 1101, 1201, 1301, 1401, 1501]);
        // Lane 2: lanes 0-7, element 2; lane 31 (second group, block 1): lanes 24-31, element 7.
        assert_eq!(elems(2), vec![2, 102, 202, 302, 402, 502, 602, 702]);
        assert_eq!(elems(31), (24..32).map(|l| 100 * l + 7).collect::<Vec<u16>>());
        // Not the tr8 block shape at 16 bits, nor gfx950's reading of 8 elements a lane.
        assert_ne!(out, ds_transpose_lanes(&loaded, 16, TrLanes::Gfx1250Tr8));
        assert_ne!(out, ds_transpose_lanes(&loaded, 16, TrLanes::Gfx950));
    }

    #[test]
    fn d16_loads_keep_the_other_half_and_d16_hi_stores_the_high_half() {
        let mut env = Env::new(2);
        let buf = env.global.alloc(vec![0x34, 0x12, 0xf0, 0, 0, 0, 0, 0]);
        let mut w = wave(2, 0b01);
        set(&mut w, 3, |_| 0xdead_beef);
        let a = [buf, buf];
        let r = MemRegs::vgprs(Some(3), None, None);
        run(MemOp::load(Space::Global, Width::D16Hi), &mut w, &mut env, &a, r).unwrap();
        assert_eq!(col(&w, 3), vec![0x1234_beef, 0xdead_beef], "lane 1 is inactive");
        run(MemOp::load(Space::Global, Width::D16Lo), &mut w, &mut env, &a, r).unwrap();
        assert_eq!(w.v(3, 0).unwrap(), 0x1234_1234);
        let a2 = [buf + 2, buf + 2];
        run(MemOp::load(Space::Global, Width::D16LoI8), &mut w, &mut env, &a2, r).unwrap();
        assert_eq!(w.v(3, 0).unwrap(), 0x1234_fff0);
        run(MemOp::load(Space::Global, Width::D16HiU8), &mut w, &mut env, &a2, r).unwrap();
        assert_eq!(w.v(3, 0).unwrap(), 0x00f0_fff0);
        set(&mut w, 4, |_| 0xcafe_0001);
        let a3 = [buf + 4, buf + 4];
        run(MemOp::store(Space::Global, Width::D16Hi), &mut w, &mut env, &a3, MemRegs::vgprs(None, Some(4), None)).unwrap();
        let a4 = [buf + 6, buf + 6];
        run(MemOp::store(Space::Global, Width::D16HiU8), &mut w, &mut env, &a4, MemRegs::vgprs(None, Some(4), None)).unwrap();
        assert_eq!(&env.global.buffer(buf).unwrap()[4..8], &[0xfe, 0xca, 0xfe, 0]);
    }

    #[test]
    fn faults_and_misalignment_are_errors() {
        let mut env = Env::new(2);
        let buf = env.global.alloc(vec![0; 32]);
        let mut w = wave(2, 0b11);
        let r = MemRegs::vgprs(Some(1), Some(2), None);
        let e = run(MemOp::load(Space::Global, Width::B32), &mut w, &mut env, &[buf, buf + 32], r).unwrap_err();
        assert_eq!(e, EmuError::MemoryFault { space: "global", addr: buf + 32, len: 4 });
        assert_eq!(w.v(1, 0).unwrap(), 0, "a faulting load writes no lane");
        let e = run(MemOp::load(Space::Global, Width::B32), &mut w, &mut env, &[buf + 2, buf], r).unwrap_err();
        assert_eq!(e, EmuError::Misaligned { space: "global", addr: buf + 2, align: 4 });
        // Dword policy: a 16-byte load at a 4-byte boundary is legal; Natural refuses it.
        run(MemOp::load(Space::Global, Width::B128), &mut w, &mut env, &[buf + 4, buf + 4], r).unwrap();
        let strict = MemOp::load(Space::Global, Width::B128).with_align(AlignPolicy::Natural);
        assert!(matches!(run(strict, &mut w, &mut env, &[buf + 4, buf], r), Err(EmuError::Misaligned { align: 16, .. })));
        let b96 = MemOp::load(Space::Global, Width::B96).with_align(AlignPolicy::Natural);
        run(b96, &mut w, &mut env, &[buf + 4, buf + 8], r).unwrap();
        assert!(run(MemOp::load(Space::Global, Width::U16), &mut w, &mut env, &[buf + 1, buf], r).is_err());
        let free = MemOp::load(Space::Global, Width::B32).with_align(AlignPolicy::Unaligned);
        run(free, &mut w, &mut env, &[buf + 1, buf + 3], r).unwrap();
        // Atomics need natural alignment whatever the policy.
        let at = MemOp::atomic(Space::Global, AtomicOp::Add, Width::B64, false).with_align(AlignPolicy::Unaligned);
        assert!(matches!(run(at, &mut w, &mut env, &[buf + 4, buf], r), Err(EmuError::Misaligned { align: 8, .. })));
        // LDS and scratch bounds.
        assert!(matches!(
            run(MemOp::store(Space::Lds, Width::B32), &mut w, &mut env, &[4096, 0], r),
            Err(EmuError::MemoryFault { space: "lds", .. })
        ));
        assert!(matches!(
            run(MemOp::load(Space::Scratch, Width::B64), &mut w, &mut env, &[60, 0], r),
            Err(EmuError::MemoryFault { space: "scratch", .. })
        ));
        // Null pointer.
        assert!(run(MemOp::load(Space::Flat, Width::B32), &mut w, &mut env, &[0, 0], r).is_err());
    }

    #[test]
    fn gfx1250_flat_scratch_addresses_name_a_lane_and_an_offset() {
        // As LLVM 22 forms them: FLAT_SCRATCH_BASE + (lane << (57 - log2(wave size)) | offset).
        for (lanes, shift) in [(32usize, 52u32), (64, 51)] {
            let mut env = Env::new(lanes);
            let mut w = wave(lanes, 0b11);
            set(&mut w, 2, |l| 0x100 + l as u32);
            // Lane 0 stores to lane 0's offset 8; lane 1 to lane 3's offset 12 (another lane's scratch).
            let mut a = vec![0u64; lanes];
            a[..2].copy_from_slice(&[FLAT_SCRATCH_BASE | 8, FLAT_SCRATCH_BASE + (3u64 << shift) + 12]);
            run(MemOp::store(Space::Flat, Width::B32), &mut w, &mut env, &a, MemRegs::vgprs(None, Some(2), None)).unwrap();
            assert_eq!(&env.scratch[0].data[8..12], &0x100u32.to_le_bytes(), "wave{lanes}");
            assert_eq!(&env.scratch[3].data[12..16], &0x101u32.to_le_bytes(), "wave{lanes}");
            assert!(env.scratch[1].data.iter().all(|&b| b == 0), "wave{lanes}: lane 1's own scratch untouched");
            run(MemOp::load(Space::Flat, Width::B32), &mut w, &mut env, &a, MemRegs::vgprs(Some(5), None, None)).unwrap();
            assert_eq!(col(&w, 5)[..2], [0x100, 0x101]);
            // Bits between the offset and the lane field, or a lane past the wave, fault.
            let bad = [FLAT_SCRATCH_BASE + (1u64 << 40), FLAT_SCRATCH_BASE + ((lanes as u64) << shift)];
            for b in bad {
                let r = run(MemOp::load(Space::Flat, Width::B32), &mut w, &mut env, &vec![b; lanes], MemRegs::vgprs(Some(5), None, None));
                assert!(matches!(r, Err(EmuError::MemoryFault { .. })), "wave{lanes} {b:#x}: {r:?}");
            }
            // A flat atomic on private memory stays refused.
            let at = MemOp::atomic(Space::Flat, AtomicOp::Add, Width::B32, false);
            assert!(matches!(run(at, &mut w, &mut env, &a, MemRegs::vgprs(None, Some(2), None)), Err(EmuError::Unsupported { .. })));
        }
        assert_eq!(locate(Space::Flat, FLAT_SCRATCH_BASE + 4), Location::LaneScratch(4));
    }

    #[test]
    fn flat_addresses_route_by_aperture() {
        let mut env = Env::new(3);
        let buf = env.global.alloc(vec![0; 16]);
        let mut w = wave(3, 0b111);
        set(&mut w, 2, |l| 100 + l as u32);
        let shared = (SHARED_APERTURE_HI as u64) << 32;
        let private = (PRIVATE_APERTURE_HI as u64) << 32;
        let a = [shared | 8, private | 4, buf + 4];
        run(MemOp::store(Space::Flat, Width::B32), &mut w, &mut env, &a, MemRegs::vgprs(None, Some(2), None)).unwrap();
        assert_eq!(&env.lds.data[8..12], &100u32.to_le_bytes());
        assert_eq!(&env.scratch[1].data[4..8], &101u32.to_le_bytes());
        assert!(env.scratch[0].data.iter().all(|&b| b == 0), "lane 1's private memory only");
        assert_eq!(env.global.read_u32(buf + 4).unwrap(), 102);
        // Loads come back the same way; scratch space addresses are per-lane offsets.
        run(MemOp::load(Space::Flat, Width::B32), &mut w, &mut env, &a, MemRegs::vgprs(Some(5), None, None)).unwrap();
        assert_eq!(col(&w, 5), vec![100, 101, 102]);
        run(MemOp::load(Space::Scratch, Width::B32), &mut w, &mut env, &[4, 4, 4], MemRegs::vgprs(Some(6), None, None)).unwrap();
        assert_eq!(col(&w, 6), vec![0, 101, 0]);
        let at = MemOp::atomic(Space::Flat, AtomicOp::Add, Width::B32, false);
        run(at, &mut w, &mut env, &[shared | 8, buf, buf], MemRegs::vgprs(None, Some(2), None)).unwrap();
        assert_eq!(&env.lds.data[8..12], &200u32.to_le_bytes(), "flat atomic on LDS");
        assert!(matches!(run(at, &mut w, &mut env, &a, MemRegs::vgprs(None, Some(2), None)), Err(EmuError::Unsupported { .. })));
        assert_eq!(locate(Space::Flat, shared | 0x1234), Location::Lds(0x1234));
        assert_eq!(locate(Space::Global, shared), Location::Global(shared));
    }

    #[test]
    fn atomics_apply_in_lane_order_and_return_the_old_value() {
        let mut env = Env::new(8);
        let buf = env.global.alloc(vec![0; 64]);
        let mut w = wave(8, 0b1011_1111);
        set(&mut w, 2, |_| 1);
        let same = [buf; 8];
        let r = MemRegs::vgprs(Some(1), Some(2), None);
        run(MemOp::atomic(Space::Global, AtomicOp::Add, Width::B32, true), &mut w, &mut env, &same, r).unwrap();
        assert_eq!(col(&w, 1), vec![0, 1, 2, 3, 4, 5, 0, 6], "tickets in lane order; lane 6 inactive");
        assert_eq!(env.global.read_u32(buf).unwrap(), 7);
        // umax / smin
        set(&mut w, 2, |l| (l as u32).wrapping_sub(3));
        let a = [buf + 4; 8];
        run(MemOp::atomic(Space::Global, AtomicOp::Max { signed: false }, Width::B32, false), &mut w, &mut env, &a, r).unwrap();
        assert_eq!(env.global.read_u32(buf + 4).unwrap(), 0xffff_ffff);
        let a = [buf + 8; 8];
        run(MemOp::atomic(Space::Global, AtomicOp::Min { signed: true }, Width::B32, false), &mut w, &mut env, &a, r).unwrap();
        assert_eq!(env.global.read_u32(buf + 8).unwrap(), (-3i32) as u32);
        // 64-bit add and xor.
        set(&mut w, 2, |_| 0xffff_ffff);
        set(&mut w, 3, |l| l as u32);
        let a = [buf + 16; 8];
        let r64 = MemRegs::vgprs(Some(4), Some(2), None);
        run(MemOp::atomic(Space::Global, AtomicOp::Add, Width::B64, true), &mut w, &mut env, &a, r64).unwrap();
        let sum: u64 = [0u64, 1, 2, 3, 4, 5, 7].iter().map(|l| (l << 32) | 0xffff_ffff).fold(0u64, |s, x| s.wrapping_add(x));
        assert_eq!(u64::from_le_bytes(env.global.buffer(buf).unwrap()[16..24].try_into().unwrap()), sum);
        assert_eq!((w.v(4, 1).unwrap(), w.v(5, 1).unwrap()), (0xffff_ffff, 0), "lane 1 saw lane 0's result");
        let a = [buf + 24; 8];
        run(MemOp::atomic(Space::Global, AtomicOp::Xor, Width::B64, false), &mut w, &mut env, &a, r64).unwrap();
        let x = [0u64, 1, 2, 3, 4, 5, 7].iter().fold(0u64, |s, l| s ^ ((l << 32) | 0xffff_ffff));
        assert_eq!(u64::from_le_bytes(env.global.buffer(buf).unwrap()[24..32].try_into().unwrap()), x);
    }

    #[test]
    fn cmpswap_succeeds_and_fails() {
        let mut env = Env::new(2);
        let buf = env.global.alloc(vec![0; 32]);
        env.global.write_u32(buf, 5).unwrap();
        env.global.write_u32(buf + 4, 9).unwrap();
        let mut w = wave(2, 0b11);
        // VMEM: data = {src, cmp} in v[2:3]. Lane 0 expects 5 (succeeds), lane 1 expects 8 (fails).
        set(&mut w, 2, |l| 70 + l as u32);
        set(&mut w, 3, |l| [5, 8][l]);
        let op = MemOp::atomic(Space::Global, AtomicOp::CmpSwap, Width::B32, true);
        run(op, &mut w, &mut env, &[buf, buf + 4], MemRegs::vgprs(Some(1), Some(2), None)).unwrap();
        assert_eq!(col(&w, 1), vec![5, 9]);
        assert_eq!((env.global.read_u32(buf).unwrap(), env.global.read_u32(buf + 4).unwrap()), (70, 9));
        // 64-bit: src v[4:5], cmp v[6:7].
        env.global.write(buf + 8, &0x1_0000_0002u64.to_le_bytes(), 8).unwrap();
        set(&mut w, 4, |_| 0xaaaa);
        set(&mut w, 5, |_| 0xbbbb);
        set(&mut w, 6, |_| 2);
        set(&mut w, 7, |_| 1);
        w.exec = 0b01;
        let op = MemOp::atomic(Space::Global, AtomicOp::CmpSwap, Width::B64, true);
        run(op, &mut w, &mut env, &[buf + 8, 0], MemRegs::vgprs(Some(8), Some(4), None)).unwrap();
        assert_eq!((w.v(8, 0).unwrap(), w.v(9, 0).unwrap()), (2, 1));
        assert_eq!(&env.global.buffer(buf).unwrap()[8..16], &0xbbbb_0000_aaaau64.to_le_bytes());
        // DS: GFX12 ds_cmpstore_rtn_b32 v1, v0, v2(data0 = src), v3(data1 = cmp); GFX9 swaps them.
        let (d0, d1) = (vgpr(2), vgpr(3));
        assert_eq!(ds_cmpswap_regs(Target::Gfx1250, d0, d1), (d0, d1));
        assert_eq!(ds_cmpswap_regs(Target::Gfx942, d0, d1), (d1, d0));
        env.lds.data[0..4].copy_from_slice(&7u32.to_le_bytes());
        set(&mut w, 2, |_| 42);
        set(&mut w, 3, |_| 7);
        let (src, cmp) = ds_cmpswap_regs(Target::Gfx1250, d0, d1);
        let op = MemOp::atomic(Space::Lds, AtomicOp::CmpSwap, Width::B32, true);
        run(op, &mut w, &mut env, &[0, 0], MemRegs { dst: Some(vgpr(1)), data: Some(src), data2: Some(cmp) }).unwrap();
        assert_eq!((w.v(1, 0).unwrap(), &env.lds.data[0..4]), (7, &42u32.to_le_bytes()[..]));
    }

    #[test]
    fn integer_atomic_values() {
        let m = FpMode::default();
        assert_eq!(atomic_value(AtomicOp::Inc, false, 4, 4, 0, &m), 0);
        assert_eq!(atomic_value(AtomicOp::Inc, false, 3, 4, 0, &m), 4);
        assert_eq!(atomic_value(AtomicOp::Dec, false, 0, 9, 0, &m), 9);
        assert_eq!(atomic_value(AtomicOp::Dec, false, 10, 9, 0, &m), 9);
        assert_eq!(atomic_value(AtomicOp::Dec, false, 5, 9, 0, &m), 4);
        assert_eq!(atomic_value(AtomicOp::Rsub, false, 5, 9, 0, &m), 4);
        assert_eq!(atomic_value(AtomicOp::CondSub, false, 5, 9, 0, &m), 5);
        assert_eq!(atomic_value(AtomicOp::SubClamp, false, 5, 9, 0, &m), 0);
        assert_eq!(atomic_value(AtomicOp::MaskOr, false, 0xff, 0x0f, 0x100, &m), 0x1f0);
        assert_eq!(atomic_value(AtomicOp::Max { signed: true }, true, 1, u64::MAX, 0, &m), 1);
        assert_eq!(atomic_value(AtomicOp::FAdd, false, 1.5f32.to_bits() as u64, 2.25f32.to_bits() as u64, 0, &m), 3.75f32.to_bits() as u64);
        let (nan, one) = (f32::NAN.to_bits() as u64, 1f32.to_bits() as u64);
        assert_eq!(atomic_value(AtomicOp::FMin, false, nan, one, 0, &m), one, "minimumNumber: NaN loses");
        assert_eq!(atomic_value(AtomicOp::FMax, false, (-0f32).to_bits() as u64, 0, 0, &m), 0);
        assert_eq!(atomic_value(AtomicOp::PkAddF16, false, 0x3c00_3c00, 0x3c00_4000, 0, &m), 0x4000_4200);
    }

    #[test]
    fn ds_two_address_and_b96() {
        let mut env = Env::new(2);
        let mut w = wave(2, 0b11);
        set(&mut w, 2, |l| 10 + l as u32);
        set(&mut w, 3, |l| 20 + l as u32);
        // ds_store_2addr_stride64_b32 v0, v2, v3 offset0:1 offset1:2 with v0 = 4 * lane.
        let a = [0, 4];
        let op = MemOp::store(Space::Lds, Width::B32).with_pair(1, 2, true);
        run(op, &mut w, &mut env, &a, MemRegs::vgprs(None, Some(2), Some(3))).unwrap();
        let rd = |env: &Env, o: usize| u32::from_le_bytes(env.lds.data[o..o + 4].try_into().unwrap());
        assert_eq!((rd(&env, 256), rd(&env, 260), rd(&env, 512), rd(&env, 516)), (10, 11, 20, 21));
        // ds_load_2addr_b32 v[4:5], v0 offset0:64 offset1:128 reads the same words.
        let op = MemOp::load(Space::Lds, Width::B32).with_pair(64, 128, false);
        run(op, &mut w, &mut env, &a, MemRegs::vgprs(Some(4), None, None)).unwrap();
        assert_eq!((col(&w, 4), col(&w, 5)), (vec![10, 11], vec![20, 21]));
        // ds_load_2addr_b64: elements of 8 bytes; offsets scale by 8.
        let op = MemOp::load(Space::Lds, Width::B64).with_pair(32, 64, false);
        run(op, &mut w, &mut env, &[0, 0], MemRegs::vgprs(Some(6), None, None)).unwrap();
        assert_eq!((w.v(6, 0).unwrap(), w.v(7, 0).unwrap(), w.v(8, 0).unwrap(), w.v(9, 0).unwrap()), (10, 11, 20, 21));
        // ds_store_b96 / ds_load_b96 at a 4-byte (not 16-byte) aligned address.
        set(&mut w, 10, |_| 1);
        set(&mut w, 11, |_| 2);
        set(&mut w, 12, |_| 3);
        w.exec = 1;
        run(MemOp::store(Space::Lds, Width::B96), &mut w, &mut env, &[1028, 0], MemRegs::vgprs(None, Some(10), None)).unwrap();
        run(MemOp::load(Space::Lds, Width::B96), &mut w, &mut env, &[1028, 0], MemRegs::vgprs(Some(13), None, None)).unwrap();
        assert_eq!((w.v(13, 0).unwrap(), w.v(14, 0).unwrap(), w.v(15, 0).unwrap()), (1, 2, 3));
        // ds_add_u32 without return leaves the destination alone.
        run(MemOp::atomic(Space::Lds, AtomicOp::Add, Width::B32, false), &mut w, &mut env, &[1028, 0], MemRegs::vgprs(None, Some(12), None))
            .unwrap();
        assert_eq!(rd(&env, 1028), 4);
    }

    /// Every transpose load the decoder knows is recognised, and none classifies as a plain load.
    #[test]
    fn transpose_loads_are_recognised_and_never_plain_loads() {
        use hx_isa::{spec::Format, tables, Target};
        let mut seen = Vec::new();
        for (t, f) in [(Target::Gfx1250, Format::Ds), (Target::Gfx1250, Format::Global), (Target::Gfx950, Format::Ds), (Target::Gfx942, Format::Ds)] {
            for i in tables::table(t, f).iter().flatten() {
                let tr = i.mnemonic.contains("_tr");
                assert_eq!(is_transpose_load(i.mnemonic), tr, "{}", i.mnemonic);
                if tr {
                    assert_eq!(classify(i.mnemonic), None, "{}", i.mnemonic);
                    seen.push(i.mnemonic);
                }
            }
        }
        assert_eq!(seen.len(), 12, "{seen:?}");
    }

    #[test]
    fn mnemonics_classify_on_both_families() {
        let c = |m: &str| classify(m).unwrap_or_else(|| panic!("{m}"));
        let ld = |sp, w| MemShape { space: sp, kind: MemKind::Load, width: w, pair: None, returns: None };
        let st = |sp, w| MemShape { space: sp, kind: MemKind::Store, width: w, pair: None, returns: None };
        for (g9, g12, w) in [
            ("global_load_ubyte", "global_load_u8", Width::U8),
            ("global_load_sshort", "global_load_i16", Width::I16),
            ("global_load_dwordx2", "global_load_b64", Width::B64),
            ("global_load_dwordx3", "global_load_b96", Width::B96),
            ("global_load_short_d16_hi", "global_load_d16_hi_b16", Width::D16Hi),
            ("global_load_sbyte_d16", "global_load_d16_i8", Width::D16LoI8),
        ] {
            assert_eq!(c(g9), ld(Space::Global, w), "{g9}");
            assert_eq!(c(g12), ld(Space::Global, w), "{g12}");
        }
        assert_eq!(c("scratch_store_dwordx4"), st(Space::Scratch, Width::B128));
        assert_eq!(c("flat_store_b8"), st(Space::Flat, Width::U8));
        assert_eq!(c("global_store_short_d16_hi"), st(Space::Global, Width::D16Hi));
        assert_eq!(c("global_store_d16_hi_b8"), st(Space::Global, Width::D16HiU8));
        assert_eq!(c("ds_read_b128"), ld(Space::Lds, Width::B128));
        assert_eq!(c("ds_load_u16_d16_hi"), ld(Space::Lds, Width::D16Hi));
        assert_eq!(c("ds_write_b96"), st(Space::Lds, Width::B96));
        assert_eq!(c("ds_store_b8_d16_hi"), st(Space::Lds, Width::D16HiU8));
        for (m, w, s64, load) in [
            ("ds_read2_b32", Width::B32, false, true),
            ("ds_read2st64_b64", Width::B64, true, true),
            ("ds_load_2addr_b64", Width::B64, false, true),
            ("ds_load_2addr_stride64_b32", Width::B32, true, true),
            ("ds_write2_b64", Width::B64, false, false),
            ("ds_store_2addr_stride64_b32", Width::B32, true, false),
        ] {
            let k = if load { MemKind::Load } else { MemKind::Store };
            assert_eq!(c(m), MemShape { space: Space::Lds, kind: k, width: w, pair: Some(s64), returns: None }, "{m}");
        }
        let at = |sp, op, w, r| MemShape { space: sp, kind: MemKind::Atomic(op), width: w, pair: None, returns: r };
        assert_eq!(c("global_atomic_add_x2"), at(Space::Global, AtomicOp::Add, Width::B64, None));
        assert_eq!(c("global_atomic_add_u64"), at(Space::Global, AtomicOp::Add, Width::B64, None));
        assert_eq!(c("global_atomic_xor_b64"), at(Space::Global, AtomicOp::Xor, Width::B64, None));
        assert_eq!(c("global_atomic_cmpswap"), at(Space::Global, AtomicOp::CmpSwap, Width::B32, None));
        assert_eq!(c("global_atomic_cmpswap_b64"), at(Space::Global, AtomicOp::CmpSwap, Width::B64, None));
        assert_eq!(c("global_atomic_smin"), at(Space::Global, AtomicOp::Min { signed: true }, Width::B32, None));
        assert_eq!(c("global_atomic_min_i32"), at(Space::Global, AtomicOp::Min { signed: true }, Width::B32, None));
        assert_eq!(c("global_atomic_max_u32"), at(Space::Global, AtomicOp::Max { signed: false }, Width::B32, None));
        assert_eq!(c("flat_atomic_umax_x2"), at(Space::Flat, AtomicOp::Max { signed: false }, Width::B64, None));
        assert_eq!(c("global_atomic_add_f32"), at(Space::Global, AtomicOp::FAdd, Width::B32, None));
        assert_eq!(c("global_atomic_min_num_f32"), at(Space::Global, AtomicOp::FMin, Width::B32, None));
        assert_eq!(c("global_atomic_pk_add_bf16"), at(Space::Global, AtomicOp::PkAddBf16, Width::B32, None));
        assert_eq!(c("global_atomic_cond_sub_u32"), at(Space::Global, AtomicOp::CondSub, Width::B32, None));
        assert_eq!(c("ds_add_u32"), at(Space::Lds, AtomicOp::Add, Width::B32, Some(false)));
        assert_eq!(c("ds_add_rtn_u32"), at(Space::Lds, AtomicOp::Add, Width::B32, Some(true)));
        assert_eq!(c("ds_max_rtn_u64"), at(Space::Lds, AtomicOp::Max { signed: false }, Width::B64, Some(true)));
        assert_eq!(c("ds_min_i32"), at(Space::Lds, AtomicOp::Min { signed: true }, Width::B32, Some(false)));
        assert_eq!(c("ds_cmpst_rtn_b32"), at(Space::Lds, AtomicOp::CmpSwap, Width::B32, Some(true)));
        assert_eq!(c("ds_cmpstore_b64"), at(Space::Lds, AtomicOp::CmpSwap, Width::B64, Some(false)));
        assert_eq!(c("ds_wrxchg_rtn_b32"), at(Space::Lds, AtomicOp::Swap, Width::B32, Some(true)));
        assert_eq!(c("ds_storexchg_rtn_b64"), at(Space::Lds, AtomicOp::Swap, Width::B64, Some(true)));
        assert_eq!(c("ds_add_rtn_f32"), at(Space::Lds, AtomicOp::FAdd, Width::B32, Some(true)));
        assert_eq!(c("ds_mskor_b32"), at(Space::Lds, AtomicOp::MaskOr, Width::B32, Some(false)));
        for m in ["ds_swizzle_b32", "ds_bpermute_b32", "ds_min_f32", "ds_wrxchg2_rtn_b32", "buffer_load_dword", "global_load_lds_dword",
            "scratch_atomic_add", "global_atomic_add_u32_x2", "global_atomic_min_f64", "flat_atomic_max_f64", "ds_max_rtn_f64", "s_load_b32", "ds_read_addtid_b32", "ds_append"]
        {
            assert_eq!(classify(m), None, "{m}");
        }
        // Every memory mnemonic in the gfx942/gfx950/gfx1250 builds of corpus/kernels (LLVM 22
        // disassembly of corpus/*/*.hsaco), apart from the DS cross-lane ones.
        for m in [
            "ds_add_u32", "ds_cmpst_rtn_b32", "ds_cmpstore_rtn_b32", "ds_load_2addr_b32", "ds_load_2addr_stride64_b32",
            "ds_load_b32", "ds_load_b96", "ds_max_u32", "ds_min_i32", "ds_read2_b32", "ds_read2st64_b32", "ds_read_b32",
            "ds_read_b96", "ds_store_2addr_stride64_b32", "ds_store_b32", "ds_store_b96", "ds_write2st64_b32", "ds_write_b32",
            "ds_write_b96", "global_atomic_add", "global_atomic_add_u32", "global_atomic_add_u64", "global_atomic_add_x2",
            "global_atomic_and", "global_atomic_and_b32", "global_atomic_cmpswap", "global_atomic_cmpswap_b32",
            "global_atomic_max_u32", "global_atomic_min_i32", "global_atomic_smin", "global_atomic_sub", "global_atomic_sub_u32",
            "global_atomic_swap", "global_atomic_swap_b32", "global_atomic_umax", "global_atomic_xor_b64", "global_atomic_xor_x2",
            "global_load_b128", "global_load_b32", "global_load_b64", "global_load_dword", "global_load_dwordx2",
            "global_load_dwordx4", "global_load_u16", "global_load_ushort", "global_store_b128", "global_store_b16",
            "global_store_b32", "global_store_b64", "global_store_b96", "global_store_dword", "global_store_dwordx2",
            "global_store_dwordx3", "global_store_dwordx4", "global_store_short", "global_store_short_d16_hi",
            "scratch_load_b32", "scratch_load_dword", "scratch_store_b128", "scratch_store_b32", "scratch_store_b96",
            "scratch_store_dword", "scratch_store_dwordx3", "scratch_store_dwordx4",
        ] {
            assert!(classify(m).is_some(), "{m}");
        }
        let op = c("ds_read2st64_b32").to_op(1, 2, false);
        assert_eq!(op.pair, Some(DsPair { offset0: 1, offset1: 2, stride64: true }));
        assert!(c("global_atomic_add").to_op(0, 0, true).returns);
        assert!(!c("ds_add_u32").to_op(0, 0, true).returns);
    }

    #[test]
    fn bpermute_wraps_within_the_wave_and_reads_zero_from_inactive_lanes() {
        let data: Vec<u32> = (0..32).map(|l| 1000 + l).collect();
        // The corpus kernel's two backward permutes (wave_permute.ll).
        let a1: Vec<u32> = (0..32).map(|l| ((5 * l + 3) & 31) * 4).collect();
        let out = bpermute(&a1, &data, u32::MAX as u64, 0, false);
        assert!((0..32).all(|l| out[l] == 1000 + ((5 * l as u32 + 3) & 31)));
        let a2: Vec<u32> = (0..32).map(|l| (31 - l) * 4).collect();
        assert_eq!(bpermute(&a2, &data, u32::MAX as u64, 0, false)[0], 1031);
        // Wave32: lane 40 wraps to lane 8; wave64 it does not.
        assert_eq!(permute_lane(40 * 4, 0, 32), 8);
        assert_eq!(permute_lane(40 * 4, 0, 64), 40);
        assert_eq!(permute_lane(0xffff_fffc, 8, 32), 1, "offset added in 32 bits");
        // ISA guide example: {A,B,C,D}, addr {0,0,12,4}, EXEC 0xA → {-, 0, -, B}.
        let out = bpermute(&[0, 0, 12, 4], &[0xa, 0xb, 0xc, 0xd], 0b1010, 0, false);
        assert_eq!((out[1], out[3]), (0, 0xb));
        let out = bpermute(&[0, 0, 12, 4], &[0xa, 0xb, 0xc, 0xd], 0b1010, 0, true);
        assert_eq!((out[1], out[3]), (0xa, 0xb), "ds_bpermute_fi_b32 fetches inactive lanes");
    }

    #[test]
    fn permute_pushes_and_highest_sender_wins() {
        // ISA guide examples.
        assert_eq!(permute(&[0, 0, 12, 4], &[0xa, 0xb, 0xc, 0xd], 0xf, 0), vec![0xb, 0xd, 0, 0xc]);
        let out = permute(&[0, 0, 12, 4], &[0xa, 0xb, 0xc, 0xd], 0b1010, 0);
        assert_eq!((out[1], out[3]), (0xd, 0));
        // The corpus kernel: lane l sends x[l] to (7l + 1) & 31.
        let data: Vec<u32> = (0..32).map(|l| 500 + l).collect();
        let addr: Vec<u32> = (0..32).map(|l| ((7 * l + 1) & 31) * 4).collect();
        let out = permute(&addr, &data, u32::MAX as u64, 0);
        assert!((0..32u32).all(|l| out[((7 * l + 1) & 31) as usize] == 500 + l));
        // Wave-level wrapper writes active lanes only.
        let mut w = wave(32, 0xffff_fffe);
        set(&mut w, 1, |l| addr[l]);
        set(&mut w, 2, |l| data[l]);
        set(&mut w, 3, |_| 7);
        ds_permute(&mut w, vgpr(3), vgpr(1), vgpr(2), 0).unwrap();
        assert_eq!(w.v(3, 0).unwrap(), 7, "inactive lanes keep their value");
        assert_eq!(w.v(3, 1).unwrap(), 0, "lane 1's sender, lane 0, is inactive");
        assert_eq!(w.v(3, 8).unwrap(), 501);
    }

    #[test]
    fn swizzle_patterns_of_the_corpus() {
        let lanes = 32;
        for lane in 0..lanes {
            assert_eq!(swizzle_lane(0x041f, lane, lanes), Some(lane ^ 1));
            assert_eq!(swizzle_lane(0x0078, lane, lanes), Some((lane & 0x18) | 3));
            assert_eq!(swizzle_lane(0x7c1f, lane, lanes), Some(lane ^ 31));
            assert_eq!(swizzle_lane(0x801b, lane, lanes), Some((lane & !3) | (3 - (lane & 3))));
        }
        assert_eq!(Swizzle::decode(0x801b), Swizzle::QuadPerm([3, 2, 1, 0]));
        assert_eq!(Swizzle::decode(0x041f), Swizzle::BitMask { and_mask: 0x1f, or_mask: 0, xor_mask: 1 });
        // Bit-mask mode works per group of 32 lanes in a wave64.
        assert_eq!(swizzle_lane(0x7c1f, 33, 64), Some(62));
        assert_eq!(swizzle_lane(0x041f, 32, 32), None);
        // Inactive sources read 0.
        let data: Vec<u32> = (1..=32).collect();
        let out = swizzle(&data, !2u64 & 0xffff_ffff, 0x041f);
        assert_eq!((out[0], out[3], out[2]), (0, 3, 4));
    }

    #[test]
    fn swizzle_fft_and_rotate_match_the_isa_guide_examples() {
        // RDNA4 guide, input {1..0x20} by lane: FFT 0x00 and 0x10, 0x1f = identity.
        let fft0 = [
            0x1, 0x11, 0x9, 0x19, 0x5, 0x15, 0xd, 0x1d, 0x3, 0x13, 0xb, 0x1b, 0x7, 0x17, 0xf, 0x1f, 0x2, 0x12, 0xa, 0x1a, 0x6,
            0x16, 0xe, 0x1e, 0x4, 0x14, 0xc, 0x1c, 0x8, 0x18, 0x10, 0x20,
        ];
        let fft10 = [
            0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf, 0x2, 0xa, 0x6, 0xe, 0x4, 0xc, 0x8, 0x10, 0x11, 0x19, 0x15, 0x1d, 0x13,
            0x1b, 0x17, 0x1f, 0x12, 0x1a, 0x16, 0x1e, 0x14, 0x1c, 0x18, 0x20,
        ];
        let data: Vec<u32> = (1..=32).collect();
        let all = u32::MAX as u64;
        assert_eq!(swizzle(&data, all, 0xe000), fft0.to_vec());
        assert_eq!(swizzle(&data, all, 0xe010), fft10.to_vec());
        assert_eq!(swizzle(&data, all, 0xe01f), data);
        // Rotate by 1 (offset[9:5] = 1), left / right, mask 0 / 1.
        let rot = |right: bool, mask: u16| swizzle(&data, all, 0xc000 | (right as u16) << 10 | 1 << 5 | mask);
        let left0: Vec<u32> = (0..32).map(|i| (i + 1) % 32 + 1).collect();
        let right0: Vec<u32> = (0..32).map(|i| (i + 31) % 32 + 1).collect();
        assert_eq!(rot(false, 0), left0);
        assert_eq!(rot(true, 0), right0);
        let left1 = rot(false, 1);
        assert_eq!(&left1[..4], &[0x1, 0x4, 0x3, 0x6]);
        assert_eq!(&left1[29..], &[0x20, 0x1f, 0x2]);
        let right1 = rot(true, 1);
        assert_eq!(&right1[..4], &[0x1f, 0x2, 0x1, 0x4]);
        assert_eq!(&right1[30..], &[0x1d, 0x20]);
    }
}
