//! One-call launches: buffers in, buffers out. Each buffer argument gets its own allocation in a
//! fresh global memory; the kernarg segment is built from the kernel's metadata.

use crate::dispatch::{run_kernel, Limits};
use crate::memory::GlobalMemory;
use crate::stats::Stats;
use crate::{Dispatch, EmuError};
use hx_codeobj::CodeObject;

/// An explicit kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A global buffer: its initial contents; the kernel gets its device address.
    Buffer(Vec<u8>),
    /// A by-value argument's bytes.
    Value(Vec<u8>),
}

#[derive(Debug, Clone)]
pub struct LaunchResult {
    /// The arguments after the run (buffers with their final contents).
    pub args: Vec<Arg>,
    pub stats: Stats,
}

/// Launches `kernel` as the HotSwap runtime dispatches it: a translation that runs two source
/// work-groups per wave asks the runtime to scale the packet's work-group and grid x extents
/// (`.hotswap_dispatch_scale`), which it does to the published packet, after the kernel
/// arguments (hidden ones included) were written for the dispatch as asked.
pub fn launch(co: &CodeObject, kernel: &str, dispatch: &Dispatch, args: &[Arg], limits: &Limits) -> Result<LaunchResult, EmuError> {
    let scale = co.metadata.as_ref().and_then(|m| m.kernel(kernel)).map_or(1, |k| k.dispatch_scale());
    let scaled = dispatch
        .scaled_x(scale)
        .ok_or_else(|| EmuError::Launch(format!("kernel {kernel}: the dispatch scaled by {scale} overflows the packet's fields")))?;
    launch_packet(co, kernel, dispatch, &scaled, args, limits)
}

/// Launches `kernel` with the packet `packet` and kernel arguments written for `asked` (a
/// runtime that ignores a dispatch scale passes the same dispatch twice).
pub fn launch_packet(co: &CodeObject, kernel: &str, asked: &Dispatch, packet: &Dispatch, args: &[Arg], limits: &Limits) -> Result<LaunchResult, EmuError> {
    let meta = co
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(kernel))
        .ok_or_else(|| EmuError::Launch(format!("no metadata for kernel {kernel}")))?;
    let dispatch = packet;
    // The runtime refuses a launch past the kernel's work-group bounds, and code may rely on
    // them (a translation runs a work-group of at most 32 work-items as one source wave).
    let size: u64 = dispatch.block.iter().map(|&d| d as u64).product();
    if let Some(max) = meta.max_flat_workgroup_size.filter(|&max| size > max) {
        return Err(EmuError::Launch(format!(
            "kernel {kernel}: a work-group of {size} work-items exceeds its .max_flat_workgroup_size {max}"
        )));
    }
    if let Some(reqd) = meta.reqd_workgroup_size.filter(|r| r.iter().zip(dispatch.block).any(|(&r, b)| r != b as u64)) {
        return Err(EmuError::Launch(format!(
            "kernel {kernel}: work-group {:?} differs from its .reqd_workgroup_size {reqd:?}",
            dispatch.block
        )));
    }
    let mut mem = GlobalMemory::new();
    let mut addrs = Vec::new();
    let explicit: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            Arg::Buffer(b) => {
                let addr = mem.alloc(b.clone());
                addrs.push(Some(addr));
                addr.to_le_bytes().to_vec()
            }
            Arg::Value(v) => {
                addrs.push(None);
                v.clone()
            }
        })
        .collect();
    let kernarg = crate::kernarg::build(meta, &explicit, asked)?;
    let stats = run_kernel(co, kernel, &mut mem, dispatch, &kernarg, limits)?;
    let out = args
        .iter()
        .zip(addrs)
        .map(|(a, addr)| match (a, addr) {
            (Arg::Buffer(_), Some(addr)) => Arg::Buffer(mem.buffer(addr).expect("allocated above").to_vec()),
            (other, _) => other.clone(),
        })
        .collect();
    Ok(LaunchResult { args: out, stats })
}
