//! Buffer resources (V#): the GFX9 and gfx1250 descriptor fields and the range check that
//! decides, per lane, whether a raw buffer access reaches memory. The emulator's `buffer`
//! executes MUBUF/VBUFFER instructions with these rules; the raiser computes the same verdict
//! on the run-time descriptor.

/// The fields of a GFX9 buffer resource that raw addressing uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gfx9Resource {
    pub base: u64,
    pub stride: u32,
    pub num_records: u32,
    pub swizzle: bool,
    pub add_tid: bool,
}

impl Gfx9Resource {
    /// Dword 0: base[31:0]; dword 1: base[47:32] (15:0), stride (29:16), swizzle_enable (31);
    /// dword 2: num_records; dword 3: add_tid_enable (23).
    pub fn from_words(d: [u32; 4]) -> Gfx9Resource {
        Gfx9Resource {
            base: d[0] as u64 | ((d[1] & 0xffff) as u64) << 32,
            stride: (d[1] >> 16) & 0x3fff,
            num_records: d[2],
            swizzle: d[1] >> 31 == 1,
            add_tid: (d[3] >> 23) & 1 == 1,
        }
    }
}

/// Where one lane's raw access of `size` bytes at buffer offset `off` (without soffset) lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    In,
    Out,
    /// The verdict depends on a rule not modelled (soffset counted or not, partial overlap).
    Unknown,
}

/// The GFX9 raw range check, decided only where both readings (with and without soffset)
/// agree and the access is wholly in or wholly out.
pub fn gfx9_range(off: u64, soffset: u64, size: u64, num_records: u32) -> Range {
    let n = num_records as u64;
    let verdict = |start: u64| {
        if start + size <= n {
            Range::In
        } else if start >= n {
            Range::Out
        } else {
            Range::Unknown
        }
    };
    match (verdict(off), verdict(off + soffset)) {
        (a, b) if a == b => a,
        _ => Range::Unknown,
    }
}

/// The fields of a gfx1250 buffer resource that raw addressing uses, as LLVM 22's lowering of
/// `llvm.amdgcn.make.buffer.rsrc` for gfx1250 lays them out: base in bits 56:0, num_records in
/// bits 101:57, stride in bits 123:108 (dword 3 bits 27:12), flags in bits 127:124.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gfx1250Resource {
    pub base: u64,
    pub num_records: u64,
    pub stride: u32,
    pub flags: u32,
}

impl Gfx1250Resource {
    pub fn from_words(d: [u32; 4]) -> Gfx1250Resource {
        let lo = d[0] as u64 | (d[1] as u64) << 32;
        Gfx1250Resource {
            base: lo & ((1 << 57) - 1),
            num_records: (lo >> 57) | (d[2] as u64) << 7 | ((d[3] & 0x3f) as u64) << 39,
            stride: (d[3] >> 12) & 0xffff,
            flags: d[3] >> 28,
        }
    }
}
