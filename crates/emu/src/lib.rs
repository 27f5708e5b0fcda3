//! hx-emu: a functional (not timing) emulator of AMD GPU kernels: gfx1250 in wave32 and
//! gfx942/gfx950 in wave64, used to prove translations correct on a machine with no GPU.
//!
//! It loads a code object, places the kernarg segment (with v5 hidden arguments) and the HSA
//! dispatch packet, sets each wave's initial state from the kernel descriptor (user SGPRs, TTMP
//! work-group and wave IDs, packed work-item IDs) and runs every work-group's waves, with global
//! memory fault and alignment checks, LDS, per-lane scratch. What each instruction means (the
//! ALU table, memory shapes, buffer and descriptor rules, lane operations) is hx-sem's, reached
//! through the decoder's semantic id; this crate executes it: `exec` (the step), `mem_ops`,
//! `buffer`, `dpp`, `wmma`/`mfma`, `tensor` and `async_lds`. What the ISA leaves undefined, or
//! what no document or compiled kernel pins, is refused by name. The translation library does
//! not link this crate: hx-verify runs it beside the product.

pub use hx_sem::alu;
pub mod async_lds;
pub mod buffer;
pub mod cluster;
pub mod dispatch;
mod dpp;
pub mod exec;
pub mod kernarg;
pub use hx_sem::lane_ops;
pub mod launch;
pub mod mem_ops;
pub mod memory;
pub mod pending;
pub mod pk8;
pub mod stats;
pub mod tensor;
pub mod wave;
pub mod mfma;
pub mod wmma;

pub use dispatch::{run_kernel, Limits, Schedule};
pub use memory::{GlobalMemory, LocalMemory};
pub use stats::{Class, Stats};

pub use hx_sem::memory::{FLAT_SCRATCH_BASE, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    #[error("{space} memory fault: {len} bytes at {addr:#x} are outside every allocation")]
    MemoryFault { space: &'static str, addr: u64, len: u64 },
    #[error("LDS access of {len} bytes at {addr:#x} while wave {wave}'s asynchronous load into them is in flight (before its s_wait_asynccnt): the result is not defined")]
    AsyncInFlight { addr: u64, len: u64, wave: usize },
    #[error("the kernel trapped (s_trap)")]
    Trap,
    #[error("a data read of {len} bytes at {addr:#x} in the code segment: a translation's code differs from the source's, so what it reads is not kept")]
    CodeRead { addr: u64, len: u64 },
    #[error("global memory fault: a store of {len} bytes at {addr:#x} into the read-only code object or kernarg segment")]
    ReadOnly { addr: u64, len: u64 },
    #[error("{what} read or written before the {wait} that waits for the load writing it: the result is not defined")]
    NotReady { what: String, wait: &'static str },
    #[error("data race on global memory at {addr:#x}: {second} while {first} is unordered with it (no barrier of one work-group between them): the result is not defined")]
    Race { addr: u64, first: String, second: String },
    #[error("misaligned {space} access at {addr:#x} (needs {align}-byte alignment)")]
    Misaligned { space: &'static str, addr: u64, align: u64 },
    #[error("bad launch: {0}")]
    Launch(String),
    #[error("register access: {0}")]
    Register(String),
    #[error("program counter {pc:#x} is outside the loaded code")]
    PcOutOfCode { pc: u64 },
    #[error("cannot decode the instruction at {pc:#x}: {message}")]
    Decode { pc: u64, message: String },
    #[error("kernel {kernel} ran past its budget of {limit} instructions per wave (runaway loop?)")]
    Runaway { kernel: String, limit: u64 },
    #[error("{mnemonic}: {what} is not modelled")]
    Unsupported { mnemonic: &'static str, what: String },
    #[error("kernel {kernel}, offset {offset:#x}: {cause}")]
    InKernel { kernel: String, offset: u64, cause: Box<EmuError> },
    #[error("kernel {kernel}, offset {offset:#x}, {mnemonic}: {cause}")]
    At { kernel: String, offset: u64, mnemonic: &'static str, cause: Box<EmuError> },
}

impl From<hx_sem::Unsupported> for EmuError {
    fn from(u: hx_sem::Unsupported) -> EmuError {
        EmuError::Unsupported { mnemonic: u.mnemonic, what: u.what }
    }
}

impl EmuError {
    /// Names the kernel, code offset and instruction where the error happened.
    pub fn at(self, kernel: &str, offset: u64, inst: &hx_isa::Instruction) -> EmuError {
        match self {
            e @ EmuError::At { .. } => e,
            e => EmuError::At { kernel: kernel.to_string(), offset, mnemonic: inst.mnemonic(), cause: Box::new(e) },
        }
    }
}

/// The geometry of one dispatch (HSA packet semantics: `grid` counts work-items).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic LDS added to the kernel's static group segment.
    pub dynamic_lds: u32,
}

impl Dispatch {
    /// Work-groups per dimension (partial groups at the edges count).
    pub fn workgroup_counts(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.block[d].max(1)))
    }

    /// The dispatch with its work-group and grid x extents multiplied by `factor`, as the
    /// HotSwap runtime patches the packet of a kernel whose translation asks for it (the same
    /// block count); None when a field would overflow (the packet's work-group size is 16 bits).
    pub fn scaled_x(&self, factor: u32) -> Option<Dispatch> {
        let block_x = self.block[0].checked_mul(factor).filter(|&b| b <= u16::MAX as u32)?;
        let grid_x = self.grid[0].checked_mul(factor)?;
        Some(Dispatch { grid: [grid_x, self.grid[1], self.grid[2]], block: [block_x, self.block[1], self.block[2]], dynamic_lds: self.dynamic_lds })
    }
}
