//! hx-verify: the proof beside the product. It runs a kernel of any code object (gfx1250,
//! gfx942, gfx950) in hotswap-xlate's emulator (hx-emu) on seeded buffers, and checks a
//! translation against its source buffer for buffer: what `hotswap-xlate run` and `verify`, the
//! end-to-end tests and the benches do. The translation library (`hotswap`), the C API and the
//! COMGR shim do not depend on it, so a runtime never loads the emulator.
//!
//! Each global-pointer argument gets its own buffer of `buffer_bytes` bytes filled from the
//! seed; by-value arguments are zero unless given.

use hx_codeobj::{CodeObject, KernelMeta};
use hx_emu::launch::{launch, Arg};
use hx_emu::{Dispatch, Limits, Stats};

pub use hx_emu as emu;

/// Why a run or a verification did not give a result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The code object does not parse.
    #[error(transparent)]
    CodeObject(#[from] hx_codeobj::CodeObjectError),
    /// The translation (of [`verify`]) failed.
    #[error(transparent)]
    Translate(#[from] hotswap::Error),
    /// The emulator stopped: an instruction it does not model, a fault, a runaway kernel.
    #[error(transparent)]
    Emu(#[from] hx_emu::EmuError),
    /// The launch asked for cannot be made: no such kernel, an argument that cannot be given,
    /// a value for an argument the kernel does not have, a translation for another processor.
    #[error("{0}")]
    Launch(String),
}

/// How to run a kernel without a launch description.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub grid: [u32; 3],
    /// The work-group size; None: the kernel's required size, else 64 work-items capped at
    /// its maximum (the emulator, like the runtime, refuses a launch past its bounds).
    pub block: Option<[u32; 3]>,
    pub dynamic_lds: u32,
    pub seed: u64,
    pub buffer_bytes: usize,
    /// By-value arguments by name: their bytes (little-endian, the argument's size).
    pub values: Vec<(String, u64)>,
    pub limits: Limits,
}

/// The arguments after a run, with the dynamic instruction counts.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// (argument name, final buffer contents) of each buffer argument.
    pub buffers: Vec<(String, Vec<u8>)>,
    pub stats: Stats,
}

/// A 64-bit FNV-1a digest (to print and compare buffer contents).
pub fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The explicit arguments of `meta` made from the options: buffers of seeded bytes (each
/// argument its own stream), values as given or zero.
///
/// A value is given by the argument's name, or by its index among the explicit arguments
/// (`3`; an argument without a name, as Triton writes them, is called `argN` by its index N).
/// Values for arguments the kernel does not have are ignored here (one set of values may serve
/// several kernels); [`check_values`] refuses them.
pub fn seeded_args(meta: &KernelMeta, o: &RunOptions) -> Result<Vec<(String, Arg)>, Error> {
    let mut out = Vec::new();
    for (i, a) in meta.args.iter().filter(|a| !a.is_hidden()).enumerate() {
        let name = a.name.clone().unwrap_or_else(|| format!("arg{i}"));
        let arg = match a.value_kind.as_str() {
            "global_buffer" => {
                let mut state = o.seed ^ (i as u64 + 1).wrapping_mul(0x1000_0000_01b3);
                let mut buf = Vec::with_capacity(o.buffer_bytes + 8);
                while buf.len() < o.buffer_bytes {
                    buf.extend_from_slice(&splitmix(&mut state).to_le_bytes());
                }
                buf.truncate(o.buffer_bytes);
                Arg::Buffer(buf)
            }
            "by_value" => {
                let v = o.values.iter().find(|(n, _)| *n == name || *n == i.to_string()).map(|(_, v)| *v).unwrap_or(0);
                let size = a.size as usize;
                if size > 8 {
                    return Err(Error::Launch(format!("by-value argument {name} of {size} bytes cannot be given on the command line")));
                }
                Arg::Value(v.to_le_bytes()[..size].to_vec())
            }
            other => return Err(Error::Launch(format!("argument {name} of kind {other} is not supported by run/verify"))),
        };
        out.push((name, arg));
    }
    Ok(out)
}

/// The explicit arguments of a kernel: (name or `argN`, value kind).
fn explicit_args(meta: &KernelMeta) -> Vec<(String, &str)> {
    meta.args.iter().filter(|a| !a.is_hidden()).enumerate().map(|(i, a)| (a.name.clone().unwrap_or_else(|| format!("arg{i}")), a.value_kind.as_str())).collect()
}

/// Err unless every value names (by name or index) a by-value argument of `kernel`, or with
/// None of at least one kernel of the code object: what `--value` was meant for. The error
/// lists the arguments there are.
pub fn check_values(bytes: &[u8], kernel: Option<&str>, values: &[(String, u64)]) -> Result<(), Error> {
    let co = CodeObject::parse(bytes)?;
    let Some(md) = co.metadata.as_ref() else { return Ok(()) };
    let kernels: Vec<&KernelMeta> = md.kernels.iter().filter(|k| kernel.is_none_or(|n| n == k.name)).collect();
    for (given, _) in values {
        let mut found = Vec::new();
        for meta in &kernels {
            let args = explicit_args(meta);
            if let Some((i, (name, kind))) = args.iter().enumerate().find(|(i, (name, _))| name == given || i.to_string() == *given) {
                found.push((meta, i, name.clone(), kind.to_string()));
            }
        }
        if found.iter().any(|(_, _, _, kind)| kind == "by_value") {
            continue;
        }
        if let Some((meta, _, name, kind)) = found.first() {
            return Err(Error::Launch(format!("--value {given}: argument {name} of kernel {} is a {kind}, not a by-value argument", meta.name)));
        }
        let list = |m: &KernelMeta| explicit_args(m).iter().enumerate().map(|(i, (n, k))| format!("{i}={n} ({k})")).collect::<Vec<_>>().join(", ");
        return Err(Error::Launch(match kernels.as_slice() {
            [one] => format!("--value {given}: kernel {} has no argument {given} (its arguments: {})", one.name, list(one)),
            all => {
                let lists: Vec<String> = all.iter().map(|m| format!("{}: {}", m.name, list(m))).collect();
                format!("--value {given}: no kernel has an argument {given} (their arguments: {})", lists.join("; "))
            }
        }));
    }
    Ok(())
}

/// Runs `kernel` of the code object in `bytes` in the emulator.
pub fn run(bytes: &[u8], kernel: &str, o: &RunOptions) -> Result<RunResult, Error> {
    let co = CodeObject::parse(bytes)?;
    let meta = co
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(kernel))
        .ok_or_else(|| Error::Launch(format!("no kernel {kernel} in the code object")))?;
    let named = seeded_args(meta, o)?;
    let args: Vec<Arg> = named.iter().map(|(_, a)| a.clone()).collect();
    // (A translation with a dispatch scale is launched as its source is: the emulator scales.)
    let scale = meta.dispatch_scale() as u64;
    let block = o.block.unwrap_or_else(|| match meta.reqd_workgroup_size {
        Some(r) => [r[0] / scale, r[1], r[2]].map(|d| d.min(u32::MAX as u64) as u32),
        None => [(meta.max_flat_workgroup_size.unwrap_or(64) / scale).clamp(1, 64) as u32, 1, 1],
    });
    let dispatch = Dispatch { grid: o.grid, block, dynamic_lds: o.dynamic_lds };
    let r = launch(&co, kernel, &dispatch, &args, &o.limits)?;
    let buffers = named
        .iter()
        .zip(r.args)
        .filter_map(|((name, _), a)| match a {
            Arg::Buffer(b) => Some((name.clone(), b)),
            Arg::Value(_) => None,
        })
        .collect();
    Ok(RunResult { buffers, stats: r.stats })
}

/// One buffer's comparison in a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferCheck {
    pub kernel: String,
    pub buffer: String,
    /// Byte offset of the first difference, None when identical.
    pub first_difference: Option<usize>,
}

/// The outcome of [`verify`]: every buffer of every kernel run.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    pub checks: Vec<BufferCheck>,
    pub source_stats: Vec<(String, Stats)>,
    pub translated_stats: Vec<(String, Stats)>,
    /// Kernels of the source not compared, with why: left out of the translation (skipped), or
    /// refused (a trap stub in a lenient translation).
    pub not_compared: Vec<(String, String)>,
}

impl VerifyReport {
    pub fn all_match(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.first_difference.is_none())
    }
}

/// Translates `bytes` and runs every kernel (or `only`: then only that kernel is translated) of
/// the source and of the translation in the emulator on the same seeded buffers, comparing every
/// buffer byte for byte. Kernels skipped or (in lenient mode) refused are listed, not run.
pub fn verify(bytes: &[u8], options: &hotswap::Options, run_options: &RunOptions, only: Option<&str>) -> Result<VerifyReport, Error> {
    let mut options = options.clone();
    if let Some(o) = only {
        let co = CodeObject::parse(bytes)?;
        if co.kernel(o).is_none() {
            return Err(Error::Launch(format!("no kernel {o} in the code object")));
        }
        if options.skip_kernels.iter().any(|s| s == o) {
            return Err(Error::Launch(format!("kernel {o} is both the one to verify and one to skip")));
        }
        options.skip_kernels = co.kernels.iter().filter(|k| k.name != o).map(|k| k.name.clone()).collect();
    }
    let translated = hotswap::translate(bytes, &options)?;
    verify_translation(bytes, &translated.bytes, run_options, only)
}

/// Runs every kernel (or `only`) of the gfx1250 `source` and of a translation of it made
/// elsewhere (a file a loader wrote, a cache entry) on the same seeded buffers, comparing every
/// buffer byte for byte. `translated` must be a gfx942 or gfx950 code object; a source kernel it
/// does not have (skipped), or has as a trap stub (refused in lenient mode), is listed in
/// [`VerifyReport::not_compared`], unless `only` names it (an error).
pub fn verify_translation(bytes: &[u8], translated: &[u8], run_options: &RunOptions, only: Option<&str>) -> Result<VerifyReport, Error> {
    let out = CodeObject::parse(translated)?;
    let cpu = out.processor().unwrap_or("none");
    if !matches!(cpu, "gfx942" | "gfx950") {
        return Err(Error::Launch(format!("the translation is for {cpu}, not gfx942 or gfx950")));
    }
    let co = CodeObject::parse(bytes)?;
    let mut report = VerifyReport { checks: Vec::new(), source_stats: Vec::new(), translated_stats: Vec::new(), not_compared: Vec::new() };
    let stub = |name: &str| {
        out.metadata.as_ref().and_then(|m| m.kernel(name)).and_then(|m| m.raw.get(hotswap::translate::REFUSED_KEY)).and_then(|v| v.as_str()).map(str::to_string)
    };
    for k in co.kernels.iter().filter(|k| only.is_none_or(|o| o == k.name)) {
        let why = if out.kernel(&k.name).is_none() {
            Some("not in the translation (skipped)".to_string())
        } else {
            stub(&k.name).map(|m| format!("refused: {m}"))
        };
        if let Some(why) = why {
            if only.is_some() {
                return Err(Error::Launch(format!("kernel {}: {why}", k.name)));
            }
            report.not_compared.push((k.name.clone(), why));
            continue;
        }
        let a = run(bytes, &k.name, run_options)?;
        let b = run(translated, &k.name, run_options)?;
        for ((name, x), (_, y)) in a.buffers.iter().zip(&b.buffers) {
            let first_difference = x.iter().zip(y).position(|(p, q)| p != q).or((x.len() != y.len()).then_some(x.len().min(y.len())));
            report.checks.push(BufferCheck { kernel: k.name.clone(), buffer: name.clone(), first_difference });
        }
        report.source_stats.push((k.name.clone(), a.stats));
        report.translated_stats.push((k.name.clone(), b.stats));
    }
    if let Some(o) = only {
        if report.checks.is_empty() && co.kernel(o).is_none() {
            return Err(Error::Launch(format!("no kernel {o} in the code object")));
        }
    }
    Ok(report)
}
