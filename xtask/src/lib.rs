//! Project chores, callable from `cargo xtask` and from tests.
//!
//! - [`corpus`]: compile every corpus kernel for gfx1250, gfx942 and gfx950 in-process and link
//!   each with rust-lld (the test-time reference linker, never a dependency of the product).
//! - [`triton`]: build corpus/triton with Triton 3.9 (a Python venv with the pinned versions).
//! - [`install`]: `cargo xtask install --prefix DIR`, the installed tree a ROCR picks up as COMGR.
//! - [`hip`]: build corpus/hip with clang 22 (HIP, OpenCL C) and llc 22, with host references
//!   ([`hip_ref`]).
//! - [`bench`]: run the benchmarks (crate hx-benches) and write BENCHMARKS.md.
//! - [`fuzz`]: build and run the coverage-guided fuzz targets of `fuzz/`.

pub mod bench;
pub mod corpus;
pub mod hip;
pub mod hip_ref;
pub mod triton;
pub mod install;
pub mod fuzz;
