//! hx-sem: what each instruction means, independent of how it is executed. The emulator
//! (hx-emu) interprets it and the raiser (hx-raise) compiles it to LLVM IR; neither imports the
//! other, and both reach an instruction's meaning through the decoder's typed id
//! ([`hx_isa::SemId`]), not its spelling.
//!
//! - [`alu`]: the ALU operation table (operation, operand and result types, flags) and each
//!   operation's value semantics (integer, float, conversions, compares, packed, fp8);
//! - [`memory`]: memory-operation shapes, atomics, alignment, DS permutes and swizzles,
//!   transpose-load lanes, asynchronous loads to LDS;
//! - [`buffer`] and [`tensor`]: the buffer-resource and tensor-descriptor rules;
//! - [`lane_ops`]: wave-level operations (readlane, DPP, permlane, mbcnt);
//! - [`wmma`]: fp8 values and the WMMA forms that are refused;
//! - [`operands`]: what operand fields and modifiers mean;
//! - [`meaning`]: the catalogue of every instruction's meaning by id, which a test checks
//!   covers every instruction of the corpus.

pub mod alu;
pub mod buffer;
pub mod lane_ops;
pub mod meaning;
pub mod memory;
pub mod operands;
pub mod tensor;
pub mod wmma;

pub use meaning::{meaning, Meaning};

/// An operation or operand form whose meaning is not modelled, by mnemonic, with what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{mnemonic}: {what} is not modelled")]
pub struct Unsupported {
    pub mnemonic: &'static str,
    pub what: String,
}
