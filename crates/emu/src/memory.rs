//! Global memory: host buffers placed at device addresses. Every access is bounds- and
//! alignment-checked; a fault is an error naming the address, never a wrong answer.

use crate::EmuError;

/// Device addresses start here (a canonical, clearly-GPU-looking range; 0 stays unmapped so a
/// null pointer faults).
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// Buffers are placed on this alignment, with an unmapped guard gap after each.
pub const BUFFER_ALIGN: u64 = 0x1_0000;

#[derive(Debug, Clone)]
struct Buffer {
    addr: u64,
    data: Vec<u8>,
}

/// The device's global memory.
#[derive(Debug, Clone, Default)]
pub struct GlobalMemory {
    buffers: Vec<Buffer>,
    next: u64,
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory { buffers: Vec::new(), next: GLOBAL_BASE }
    }

    /// Places `data` in memory; returns its device address.
    pub fn alloc(&mut self, data: Vec<u8>) -> u64 {
        let addr = if self.next == 0 { GLOBAL_BASE } else { self.next };
        let len = data.len() as u64;
        // Guard gap of at least one BUFFER_ALIGN between buffers.
        self.next = (addr + len).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN + BUFFER_ALIGN;
        self.buffers.push(Buffer { addr, data });
        addr
    }

    /// The contents of the buffer allocated at `addr`.
    pub fn buffer(&self, addr: u64) -> Option<&[u8]> {
        self.buffers.iter().find(|b| b.addr == addr).map(|b| b.data.as_slice())
    }

    fn find(&self, addr: u64, len: u64) -> Result<(usize, usize), EmuError> {
        // Buffers are sorted by address (allocation is monotonic).
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
        out.copy_from_slice(&self.buffers[i].data[off..off + out.len()]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8], align: u64) -> Result<(), EmuError> {
        Self::check_align(addr, align)?;
        let (i, off) = self.find(addr, data.len() as u64)?;
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
}

impl LocalMemory {
    pub fn new(space: &'static str, size: usize) -> LocalMemory {
        LocalMemory { space, data: vec![0; size] }
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
        out.copy_from_slice(&self.data[r]);
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8], align: u64) -> Result<(), EmuError> {
        let r = self.range(addr, data.len(), align)?;
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
}
