//! gfx1250 VOPD / VOPD3 (dual-issue) words: the interface consumers code against.
//!
//! Not decoded yet: `decode` reports every VOPD/VOPD3 word as `DecodeError::Unsupported`
//! (format `Format::Vopd`), so no decoded instruction is a VOPD and `vopd_parts` is `None`.
//! The encoding facts below were checked against LLVM 22 (crates/isa/tests/vopd_facts.rs).

use crate::{Format, Instruction};

/// VOPD (bits 31:26 = 0x32) holds vdstY >> 1 in a 7-bit field; the low bit is the opposite of
/// vdstX's, so the two results never share a VGPR bank.
pub fn vopd_vdst_y(field: u32, vdst_x: u32) -> u32 {
    ((field & 0x7f) << 1) | ((vdst_x & 1) ^ 1)
}

impl Instruction {
    /// The X and Y operations of a VOPD/VOPD3 word, each shaped as the equivalent gfx1250 VOP3
    /// instruction; `None` for every other instruction (today: always, see the module note).
    pub fn vopd_parts(&self) -> Option<[Instruction; 2]> {
        if self.format() != Format::Vopd {
            return None;
        }
        // Unreachable until the decoder builds VOPD instructions: never guess parts.
        None
    }
}
