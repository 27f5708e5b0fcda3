//! hx-codeobj: AMDGPU code objects as data.
//!
//! - [`CodeObject`]: an ELF64 AMDGPU code object (v4-v6, relocatable or shared) with its e_flags,
//!   sections, symbols, metadata note, kernels (descriptor + code) and device functions.
//! - [`metadata`]: the NT_AMDGPU_METADATA msgpack document, typed, keeping unknown keys.
//! - [`descriptor`]: the 64-byte kernel descriptor, field by field per generation.
//! - [`bundle`]: Clang offload bundles, plain and compressed (CCOB v2/v3, zlib/zstd).
//!
//! Every parser returns a `Result`; no input makes it panic.

pub mod bundle;
pub mod descriptor;
pub mod eflags;
pub mod elf;
pub mod error;
pub mod metadata;

pub use descriptor::{Generation, KernelDescriptor};
pub use eflags::{lds_limit, EFlags, FeatureSetting};
pub use elf::{CodeObject, ElfKind, Function, Kernel, Section, Symbol};
pub use error::CodeObjectError;
pub use metadata::{KernelArg, KernelMeta, Metadata};
