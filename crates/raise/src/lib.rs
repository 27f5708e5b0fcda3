//! hx-raise: gfx1250 machine code → thread-level LLVM IR, one function per kernel.
//!
//! The raising model (DESIGN.md, with one change argued in the closing note):
//! - every register is an alloca in the entry block (mem2reg promotes them);
//! - VGPRs are per-thread values; SGPRs, VCC and EXEC are values uniform over the *source*
//!   wave, held by each thread. Lane masks (VCC, EXEC, compare results) are kept as the source's
//!   32-bit masks, rebuilt with a ballot restricted to the thread's own 32-lane half of the
//!   target wave64, so every SALU operation on a mask (s_and, s_bcnt1, s_ff1...) is exact without
//!   inferring which SGPRs hold masks;
//! - a thread is active when its bit of EXEC is set: VALU results are selected, memory
//!   accesses are guarded;
//! - branches are on source-wave-uniform values (SCC, EXEC == 0, VCC == 0): both halves of a
//!   target wave may go different ways, which the backend handles as divergence.
//!
//! What is raised: every instruction class the corpora use (scalar and vector ALU through
//! hx-sem's ALU table, keyed by the decoder's semantic id; SMEM; DS incl. sub-dword, atomics
//! and the tr8/tr16 transpose loads; global/scratch/buffer memory; flat (generic) memory
//! routed by the aperture windows the kernel reads (`ir/flat_ir.rs`); DPP and permlane16; WMMA
//! onto MFMAs or the cross-lane path (on gfx950 with accumulators kept between WMMAs and round
//! K loops: `ir/wmma_carry.rs`); tensor moves; calls; the entry ABI incl.
//! the dispatch packet and TTMP registers; the fp8/bf8/fp4 eight-element conversions, with
//! MODE.FP16_OVFL taken as one value for the kernel: `mode`; `v_tanh_f32` and
//! `v_trig_preop_f64` as hx-sem defines them). Anything else is an error naming the kernel,
//! offset and mnemonic. Modules: `ir` (the raiser, its children in `ir/`), `alu_ir` (ALU
//! operations), `cfg` (control flow), `structure` (if/else/loop recovery), `mode` (the kernel's
//! MODE.FP16_OVFL), `wmma_plan` (WMMA onto MFMA).

pub mod alu_ir;
pub mod cfg;
pub mod ir;
mod mode;
pub mod structure;
pub mod wmma_plan;

#[derive(Debug, thiserror::Error)]
pub enum RaiseError {
    #[error("kernel {kernel}, offset {offset:#x}: cannot decode: {message}")]
    Decode { kernel: String, offset: usize, message: String },
    #[error("kernel {kernel}, offset {offset:#x}, {mnemonic}: {msg}")]
    Unsupported { kernel: String, offset: usize, mnemonic: String, msg: String },
    #[error("kernel {kernel}: {msg}")]
    Kernel { kernel: String, msg: String },
    #[error(transparent)]
    Llvm(#[from] hx_llvm::LlvmError),
}

impl RaiseError {
    pub fn at(kernel: &str, offset: usize, mnemonic: &str, msg: impl Into<String>) -> RaiseError {
        RaiseError::Unsupported { kernel: kernel.to_string(), offset, mnemonic: mnemonic.to_string(), msg: msg.into() }
    }
}

pub use ir::{pairing_blocker, raise_kernel, raise_program, raise_program_with, KernelAbi, MANY_WMMAS, PAIRED_DISPATCH_SCALE};
pub use wmma_plan::{RaiseOptions, WmmaLowering};
