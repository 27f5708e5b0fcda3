//! Global memory: host buffers placed at device addresses. Every access is bounds- and
//! alignment-checked; a fault is an error naming the address, never a wrong answer.

use crate::EmuError;

/// Device addresses start here (a canonical, clearly-GPU-looking range; 0 stays unmapped so a
/// null pointer faults).
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// Buffers are placed on this alignment, with an unmapped guard gap after each.
pub const BUFFER_ALIGN: u64 = 0x1_0000;
/// The dispatch's own memory (the kernarg segment; the code object image at [`CODE_BASE`])
/// starts here, 1 TiB above the buffers: a wild access off a buffer faults instead of reading
/// code, which differs between a kernel and its translation.
pub const SYSTEM_BASE: u64 = GLOBAL_BASE + (1 << 40);
/// The code object image starts here, apart from the kernarg segment (another high dword), so
/// that a pointer mixing the kernarg pointer's high half with some low half lands among kernel
/// arguments, which a translation shares, and not in the code object, which it does not.
pub const CODE_BASE: u64 = GLOBAL_BASE + (2 << 40);

#[derive(Debug, Clone)]
struct Buffer {
    addr: u64,
    data: Vec<u8>,
    /// The dispatch's own memory: the code image and the kernarg segment are read-only, as
    /// the runtime maps them.
    read_only: bool,
    /// Byte ranges (offsets in `data`) that hold code: no data access reads them (see
    /// [`GlobalMemory::execute_only`]).
    code: Vec<(u64, u64)>,
}

/// The device's global memory.
#[derive(Debug, Clone, Default)]
pub struct GlobalMemory {
    buffers: Vec<Buffer>,
    next: u64,
    next_system: u64,
    next_code: u64,
    /// The race check, when a launch asks for it ([`crate::Limits::races`]). In a cell: loads
    /// (`&self`) record themselves too.
    races: std::cell::RefCell<Option<RaceCheck>>,
}

/// The wave making the current global access, for the race check: its work-group and how many
/// barriers that work-group has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accessor {
    pub group: [u32; 3],
    pub wave: u32,
    pub epoch: u64,
}

impl Accessor {
    /// Whether an access by `self` happens before one by `later`: the same wave (program
    /// order), or the same work-group with a barrier between them. Nothing orders work-groups.
    fn before(&self, later: &Accessor) -> bool {
        self.group == later.group && (self.wave == later.wave || self.epoch < later.epoch)
    }

    fn describe(&self, what: &str) -> String {
        format!("{what} by wave {} of work-group {:?} (after {} barriers)", self.wave, self.group, self.epoch)
    }
}

/// How an access touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    Atomic,
}

/// Finds data races on global memory: two accesses of one byte by different waves, at least one
/// a plain store, that nothing orders. Their outcome depends on timing the emulator does not
/// model, and a translation may order a thread's own accesses differently, so a racing program
/// has no result to match. Atomics against atomics, and reads against atomics, are not races.
#[derive(Debug, Clone, Default)]
struct RaceCheck {
    /// The accessor of this launch's current instruction (none between launches).
    now: Option<Accessor>,
    /// An atomic operation is in progress: its read and write are one atomic access.
    atomic: bool,
    /// Per byte: the last plain store, the last atomic and the last reads of two waves.
    shadow: std::collections::HashMap<u64, Shadow>,
}

#[derive(Debug, Clone, Default)]
struct Shadow {
    write: Option<Accessor>,
    atomic: Option<Accessor>,
    reads: [Option<Accessor>; 2],
}

impl RaceCheck {
    fn access(&mut self, addr: u64, len: u64, kind: Access) -> Result<(), EmuError> {
        let Some(now) = self.now else { return Ok(()) };
        let kind = if self.atomic { Access::Atomic } else { kind };
        let name = match kind {
            Access::Read => "a load",
            Access::Write => "a store",
            Access::Atomic => "an atomic",
        };
        for a in addr..addr + len {
            let sh = self.shadow.entry(a).or_default();
            let unordered = |p: &Option<Accessor>| p.filter(|p| !p.before(&now));
            let conflict = match kind {
                Access::Read | Access::Atomic => unordered(&sh.write).map(|p| p.describe("a store")),
                Access::Write => unordered(&sh.write)
                    .map(|p| p.describe("a store"))
                    .or_else(|| unordered(&sh.atomic).map(|p| p.describe("an atomic")))
                    .or_else(|| sh.reads.iter().find_map(|r| unordered(r).map(|p| p.describe("a load")))),
            };
            if let Some(first) = conflict {
                return Err(EmuError::Race { addr: a, first, second: now.describe(name) });
            }
            match kind {
                Access::Write => {
                    sh.write = Some(now);
                    sh.reads = [None, None];
                }
                Access::Atomic => sh.atomic = Some(now),
                Access::Read => {
                    // Keep the latest reads of two different waves. A store then conflicts
                    // with the reads of any one other wave; an older read of a third wave is
                    // forgotten, so a race with it alone can go unreported (never the reverse:
                    // what is reported is a race).
                    if sh.reads[0].is_some_and(|r| r.wave == now.wave && r.group == now.group) {
                        sh.reads[0] = Some(now);
                    } else {
                        sh.reads[1] = sh.reads[0];
                        sh.reads[0] = Some(now);
                    }
                }
            }
        }
        Ok(())
    }
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory { buffers: Vec::new(), next: GLOBAL_BASE, next_system: SYSTEM_BASE, next_code: CODE_BASE, races: Default::default() }
    }

    /// Turns the race check on (a fresh one) or off.
    pub fn check_races(&mut self, on: bool) {
        *self.races.get_mut() = on.then(RaceCheck::default);
    }

    /// Names the wave whose accesses follow (none: the host's, not checked).
    pub fn set_accessor(&mut self, who: Option<Accessor>) {
        if let Some(r) = self.races.get_mut() {
            r.now = who;
        }
    }

    /// Marks the accesses until `end_atomic` as one atomic operation's.
    pub fn begin_atomic(&mut self) {
        if let Some(r) = self.races.get_mut() {
            r.atomic = true;
        }
    }

    pub fn end_atomic(&mut self) {
        if let Some(r) = self.races.get_mut() {
            r.atomic = false;
        }
    }

    /// Places `data` in memory; returns its device address.
    pub fn alloc(&mut self, data: Vec<u8>) -> u64 {
        let addr = if self.next == 0 { GLOBAL_BASE } else { self.next };
        self.next = Self::place(&mut self.buffers, addr, data, false);
        addr
    }

    /// As [`GlobalMemory::alloc`], read-only, in the dispatch's own range ([`SYSTEM_BASE`]).
    pub fn alloc_system(&mut self, data: Vec<u8>) -> u64 {
        let addr = if self.next_system == 0 { SYSTEM_BASE } else { self.next_system };
        self.next_system = Self::place(&mut self.buffers, addr, data, true);
        addr
    }

    /// As [`GlobalMemory::alloc_system`], for a code object image ([`CODE_BASE`]).
    pub fn alloc_code(&mut self, data: Vec<u8>) -> u64 {
        let addr = if self.next_code == 0 { CODE_BASE } else { self.next_code };
        self.next_code = Self::place(&mut self.buffers, addr, data, true);
        addr
    }

    /// Inserts a buffer at `addr` (keeping them sorted by address); returns the next free
    /// address after a guard gap of at least one BUFFER_ALIGN.
    fn place(buffers: &mut Vec<Buffer>, addr: u64, data: Vec<u8>, read_only: bool) -> u64 {
        let next = (addr + data.len() as u64).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN + BUFFER_ALIGN;
        let at = buffers.partition_point(|b| b.addr < addr);
        buffers.insert(at, Buffer { addr, data, read_only, code: Vec::new() });
        next
    }

    /// Makes `lo..hi` (device addresses inside one allocation) code that data accesses fault
    /// on. The hardware lets a kernel read its own instructions, but a translation's differ
    /// from the source's, so no translation can keep what such a read returns: the emulator
    /// refuses it instead of answering what only one of them would see.
    pub fn execute_only(&mut self, lo: u64, hi: u64) {
        let i = self.buffers.partition_point(|b| b.addr <= lo);
        if let Some(b) = i.checked_sub(1).and_then(|i| self.buffers.get_mut(i)) {
            b.code.push((lo - b.addr, hi - b.addr));
        }
    }

    /// The contents of the buffer allocated at `addr`.
    pub fn buffer(&self, addr: u64) -> Option<&[u8]> {
        self.buffers.iter().find(|b| b.addr == addr).map(|b| b.data.as_slice())
    }

    fn find(&self, addr: u64, len: u64) -> Result<(usize, usize), EmuError> {
        // Buffers are sorted by address.
        let i = self.buffers.partition_point(|b| b.addr <= addr);
        if i > 0 {
            let b = &self.buffers[i - 1];
            let off = addr - b.addr;
            if off.checked_add(len).is_some_and(|end| end <= b.data.len() as u64) {
                return Ok((i - 1, off as usize));
            }
        }
        Err(EmuError::MemoryFault { space: "global", addr, len })
    }

    fn check_align(addr: u64, align: u64) -> Result<(), EmuError> {
        if align > 1 && addr % align != 0 {
            return Err(EmuError::Misaligned { space: "global", addr, align });
        }
        Ok(())
    }

    /// Reads `out.len()` bytes at `addr`; `align` is the access's required alignment.
    pub fn read(&self, addr: u64, out: &mut [u8], align: u64) -> Result<(), EmuError> {
        Self::check_align(addr, align)?;
        let (i, off) = self.find(addr, out.len() as u64)?;
        let end = (off + out.len()) as u64;
        if self.buffers[i].code.iter().any(|&(lo, hi)| lo < end && (off as u64) < hi) {
            return Err(EmuError::CodeRead { addr, len: out.len() as u64 });
        }
        if let Some(r) = self.races.borrow_mut().as_mut() {
            r.access(addr, out.len() as u64, Access::Read)?;
        }
        out.copy_from_slice(&self.buffers[i].data[off..off + out.len()]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8], align: u64) -> Result<(), EmuError> {
        Self::check_align(addr, align)?;
        let (i, off) = self.find(addr, data.len() as u64)?;
        if self.buffers[i].read_only {
            return Err(EmuError::ReadOnly { addr, len: data.len() as u64 });
        }
        if let Some(r) = self.races.get_mut() {
            r.access(addr, data.len() as u64, Access::Write)?;
        }
        self.buffers[i].data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, EmuError> {
        let mut b = [0; 4];
        self.read(addr, &mut b, 4)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), EmuError> {
        self.write(addr, &v.to_le_bytes(), 4)
    }
}

/// A flat byte array with bounds checks: LDS of one workgroup, or one lane's scratch.
#[derive(Debug, Clone)]
pub struct LocalMemory {
    pub space: &'static str,
    pub data: Vec<u8>,
    /// Bytes an asynchronous load is still writing (see [`LocalMemory::begin_async`]).
    in_flight: Vec<InFlight>,
    next_async: u64,
}

/// Bytes `lo..hi` written by asynchronous load number `seq` of wave `wave`.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    wave: usize,
    seq: u64,
    lo: u64,
    hi: u64,
}

impl LocalMemory {
    pub fn new(space: &'static str, size: usize) -> LocalMemory {
        LocalMemory { space, data: vec![0; size], in_flight: Vec::new(), next_async: 0 }
    }

    /// Marks `ranges` (address, length) as written by an asynchronous load of wave `wave`
    /// that has not completed: the copy is done at issue, but the ISA lets it land at any
    /// point until the wave's `s_wait_asynccnt`, so until then any access to those bytes (by
    /// any wave) has no defined result and is an error here, never a guess.
    pub fn begin_async(&mut self, wave: usize, ranges: impl IntoIterator<Item = (u64, u64)>) {
        let seq = self.next_async;
        self.next_async += 1;
        self.in_flight.extend(ranges.into_iter().map(|(a, n)| InFlight { wave, seq, lo: a, hi: a + n }));
    }

    /// `s_wait_asynccnt outstanding` of wave `wave` (or its end, with 0): all but its newest
    /// `outstanding` asynchronous loads have completed.
    pub fn wait_async(&mut self, wave: usize, outstanding: usize) {
        let mut seqs: Vec<u64> = self.in_flight.iter().filter(|f| f.wave == wave).map(|f| f.seq).collect();
        seqs.dedup();
        let oldest_kept = seqs.len().checked_sub(outstanding).and_then(|i| seqs.get(i)).copied().unwrap_or(u64::MAX);
        self.in_flight.retain(|f| f.wave != wave || f.seq >= oldest_kept);
    }

    fn check_in_flight(&self, addr: u64, len: usize) -> Result<(), EmuError> {
        let end = addr + len as u64;
        match self.in_flight.iter().find(|f| f.lo < end && addr < f.hi) {
            Some(f) => Err(EmuError::AsyncInFlight { addr, len: len as u64, wave: f.wave }),
            None => Ok(()),
        }
    }

    fn range(&self, addr: u64, len: usize, align: u64) -> Result<std::ops::Range<usize>, EmuError> {
        if align > 1 && addr % align != 0 {
            return Err(EmuError::Misaligned { space: self.space, addr, align });
        }
        if addr.checked_add(len as u64).is_none_or(|end| end > self.data.len() as u64) {
            return Err(EmuError::MemoryFault { space: self.space, addr, len: len as u64 });
        }
        Ok(addr as usize..addr as usize + len)
    }

    pub fn read(&self, addr: u64, out: &mut [u8], align: u64) -> Result<(), EmuError> {
        let r = self.range(addr, out.len(), align)?;
        if !self.in_flight.is_empty() {
            self.check_in_flight(addr, out.len())?;
        }
        out.copy_from_slice(&self.data[r]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8], align: u64) -> Result<(), EmuError> {
        let r = self.range(addr, data.len(), align)?;
        if !self.in_flight.is_empty() {
            self.check_in_flight(addr, data.len())?;
        }
        self.data[r].copy_from_slice(data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_separate_and_faults_are_errors() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(vec![1, 2, 3, 4, 5, 6, 7, 8]);
        let b = m.alloc(vec![0; 4]);
        assert!(b > a + 8, "guard gap");
        assert_eq!(m.read_u32(a + 4).unwrap(), u32::from_le_bytes([5, 6, 7, 8]));
        m.write_u32(b, 0xdead_beef).unwrap();
        assert_eq!(m.buffer(b).unwrap(), &0xdead_beefu32.to_le_bytes());
        assert_eq!(m.read_u32(a + 8).unwrap_err(), EmuError::MemoryFault { space: "global", addr: a + 8, len: 4 });
        assert_eq!(m.read_u32(a + 2).unwrap_err(), EmuError::Misaligned { space: "global", addr: a + 2, align: 4 });
        assert!(m.read_u32(0).is_err());
        assert!(m.read_u32(u64::MAX - 1).is_err());
        let mut l = LocalMemory::new("lds", 16);
        l.write(12, &[9; 4], 4).unwrap();
        assert!(l.write(13, &[9; 4], 1).is_err());
        assert!(l.read(u64::MAX, &mut [0; 4], 1).is_err());
    }

    #[test]
    fn bytes_of_an_async_load_in_flight_are_out_of_bounds_until_the_wait() {
        let mut l = LocalMemory::new("lds", 64);
        l.begin_async(0, [(0, 4), (8, 4)]);
        l.begin_async(0, [(16, 4)]);
        l.begin_async(1, [(32, 4)]);
        let in_flight = |l: &LocalMemory, a: u64| matches!(l.read(a, &mut [0; 4], 4), Err(EmuError::AsyncInFlight { .. }));
        assert!(in_flight(&l, 8) && in_flight(&l, 16) && in_flight(&l, 32));
        assert!(matches!(l.write(6, &[1; 4], 2), Err(EmuError::AsyncInFlight { wave: 0, .. })), "a partial overlap");
        l.read(4, &mut [0; 4], 4).unwrap();
        // s_wait_asynccnt 1 in wave 0: its older load is done, its newer one and wave 1's not.
        l.wait_async(0, 1);
        assert!(!in_flight(&l, 0) && !in_flight(&l, 8) && in_flight(&l, 16) && in_flight(&l, 32));
        l.wait_async(0, 0);
        assert!(!in_flight(&l, 16) && in_flight(&l, 32));
        l.wait_async(1, 0);
        l.write(32, &[1; 4], 4).unwrap();
    }

    #[test]
    fn the_dispatchs_own_memory_is_out_of_reach_of_buffers() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(vec![0; 64]);
        let code = m.alloc_system(vec![7; 1 << 20]);
        // A buffer allocated after the code still lands next to the other buffers.
        let b = m.alloc(vec![1; 64]);
        assert!(code >= SYSTEM_BASE && b < SYSTEM_BASE, "{code:#x} {b:#x}");
        assert_eq!(m.read_u32(code + 16).unwrap(), 0x0707_0707);
        assert_eq!(m.write_u32(code + 16, 0), Err(EmuError::ReadOnly { addr: code + 16, len: 4 }));
        // Its instructions are not data.
        m.execute_only(code + 256, code + 512);
        assert_eq!(m.read_u32(code + 252).unwrap(), 0x0707_0707);
        assert_eq!(m.read_u32(code + 256), Err(EmuError::CodeRead { addr: code + 256, len: 4 }));
        assert_eq!(m.read_u32(code + 512).unwrap(), 0x0707_0707);
        assert_eq!(m.read_u32(b).unwrap(), 0x0101_0101);
        // A 32-bit offset off a buffer reaches no code.
        for off in [1u64 << 20, 1 << 24, (1 << 32) - 4] {
            assert!(matches!(m.read_u32(a + off), Err(EmuError::MemoryFault { .. }) | Ok(0x0101_0101)), "{off:#x}");
        }
    }
}
