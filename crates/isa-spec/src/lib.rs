//! hx-isa-spec: the vocabulary of hx-isa's opcode tables (targets, encoding formats, fields,
//! operand kinds, semantic ids) and the decoding and printing of one operand as LLVM prints
//! it. It is its own crate so that the table generator (hx-isa-gen) and the decoder (hx-isa)
//! share one definition of what an operand kind means, and the generator does not depend on
//! the tables it writes.

pub mod operand;
pub mod spec;
