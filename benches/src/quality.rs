//! Code quality of a translation: a corpus launch run in the emulator on the translated and on the
//! native code object, with dynamic instruction counts, and the kernels' register counts.

use anyhow::{Context, Result};
use hotswap::codeobj::CodeObject;
use hx_verify::emu::launch::{launch, Arg};

/// Dynamic counts of one launch.
#[derive(Debug, Clone)]
pub struct Run {
    /// Wave-instructions executed.
    pub wave_instructions: u64,
    /// Lane-instructions (active lanes summed over executed instructions).
    pub lane_instructions: u64,
    /// Wave-instructions by mnemonic.
    pub by_mnemonic: std::collections::BTreeMap<&'static str, u64>,
}

/// Runs `launch_desc` on the code object `bytes` with inputs from `seed`.
pub fn run_launch(bytes: &[u8], l: &hx_corpus::Launch, seed: u64) -> Result<Run> {
    let co = CodeObject::parse(bytes)?;
    let args: Vec<Arg> = hx_corpus::make_inputs(l, seed)
        .into_iter()
        .map(|a| match a {
            hx_corpus::ArgData::Buffer(b) => Arg::Buffer(b),
            hx_corpus::ArgData::Value(v) => Arg::Value(v),
        })
        .collect();
    let d = hx_verify::emu::Dispatch { grid: l.grid, block: l.block, dynamic_lds: l.dynamic_lds };
    let r = launch(&co, &l.kernel, &d, &args, &hx_verify::emu::Limits::default())?;
    Ok(Run { wave_instructions: r.stats.total(), lane_instructions: r.stats.lane_instructions, by_mnemonic: r.stats.by_mnemonic })
}

/// (VGPRs, SGPRs) of `kernel` from the code object's metadata.
pub fn registers(bytes: &[u8], kernel: &str) -> Result<(u64, u64)> {
    let co = CodeObject::parse(bytes)?;
    let m = co.metadata.as_ref().and_then(|m| m.kernel(kernel)).with_context(|| format!("no metadata for kernel {kernel}"))?;
    Ok((m.vgpr_count, m.sgpr_count))
}

/// How many instructions of the code object's kernels (static) have a mnemonic starting with
/// `prefix` (e.g. "v_mfma").
pub fn static_count(bytes: &[u8], prefix: &str) -> Result<usize> {
    let co = CodeObject::parse(bytes)?;
    let target = match co.processor() {
        Some("gfx942") => hotswap::isa::Target::Gfx942,
        Some("gfx950") => hotswap::isa::Target::Gfx950,
        _ => hotswap::isa::Target::Gfx1250,
    };
    let mut n = 0;
    for k in &co.kernels {
        let code = co.kernel_code(k);
        let mut at = 0;
        while at < code.len() {
            let i = hotswap::isa::decode(target, code, at).with_context(|| format!("kernel {}, offset {at:#x}", k.name))?;
            n += usize::from(i.mnemonic().starts_with(prefix));
            at += i.len as usize;
        }
    }
    Ok(n)
}

/// Register use of one kernel from its metadata: VGPRs, AGPRs, VGPR and SGPR spills.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegisterUse {
    pub vgprs: u64,
    pub agprs: u64,
    pub vgpr_spills: u64,
    pub sgpr_spills: u64,
}

/// [`RegisterUse`] of `kernel` (`.vgpr_count`, `.agpr_count`, `.vgpr_spill_count`,
/// `.sgpr_spill_count`; absent fields count 0).
pub fn register_use(bytes: &[u8], kernel: &str) -> Result<RegisterUse> {
    let co = CodeObject::parse(bytes)?;
    let m = co.metadata.as_ref().and_then(|m| m.kernel(kernel)).with_context(|| format!("no metadata for kernel {kernel}"))?;
    let get = |k: &str| m.raw.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    Ok(RegisterUse {
        vgprs: get(".vgpr_count"),
        agprs: get(".agpr_count"),
        vgpr_spills: get(".vgpr_spill_count"),
        sgpr_spills: get(".sgpr_spill_count"),
    })
}
