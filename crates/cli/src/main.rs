//! The `hotswap-xlate` command.
//!
//!   hotswap-xlate IN --target gfx942 [-o OUT]   translate a gfx1250 code object (fails closed on
//!                                               what the stages do not handle)
//!   hotswap-xlate inspect FILE [--json]         describe a code object or offload bundle
//!   hotswap-xlate verify IN [--translated OUT]  check a translation against the source in the
//!                                               emulator
//!
//! Translation uses the on-disk cache only when asked: `--cache`, `--cache-dir DIR` or
//! HSA_HOTSWAP_CACHE_DIR set (a command run by hand or in a build should not write to the home
//! directory unasked); `--no-cache` or HSA_HOTSWAP_CACHE_DISABLE turn it off,
//! HSA_HOTSWAP_CACHE_READONLY serves hits but never writes.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "hotswap-xlate", version, about = "Load-time translator of gfx1250 code objects to gfx942/gfx950")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Input code object or offload bundle (gfx1250).
    input: Option<PathBuf>,
    /// Target: gfx942 or gfx950, optionally with features (gfx942:xnack+, gfx950:sramecc-:xnack-)
    /// (default: $HSA_HOTSWAP_ISA_OVERRIDE, else gfx942).
    #[arg(long)]
    target: Option<String>,
    /// What to write: code-object (default), raised-ir (the raised LLVM IR), optimized-ir,
    /// asm (target assembly) or relocatable (the backend's object before relinking).
    #[arg(long, default_value = "code-object")]
    emit: String,
    /// Leave this kernel out of the output (repeatable).
    #[arg(long = "skip-kernel")]
    skip_kernels: Vec<String>,
    /// Output file.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Optimisation level of the lowering (0-3).
    #[arg(short = 'O', long = "opt-level", default_value = "2")]
    opt_level: String,
    /// How dense WMMA is lowered: mfma (the target's matrix instructions where exact) or
    /// cross-lane (ds_bpermute gathers and per-thread sums).
    #[arg(long, default_value = "mfma")]
    wmma: String,
    /// Use the translation cache: $HSA_HOTSWAP_CACHE_DIR, else $XDG_CACHE_HOME/rocm/hotswap, else
    /// ~/.cache/rocm/hotswap. On without this flag only when HSA_HOTSWAP_CACHE_DIR is set;
    /// HSA_HOTSWAP_CACHE_READONLY=1 serves hits without writing.
    #[arg(long, conflicts_with = "no_cache")]
    cache: bool,
    /// Use the translation cache in DIR (implies --cache).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Never use the translation cache (as HSA_HOTSWAP_CACHE_DISABLE=1).
    #[arg(long)]
    no_cache: bool,
}

/// How `run` and `verify` launch a kernel: geometry and seeded arguments.
#[derive(clap::Args)]
struct LaunchArgs {
    /// Grid size in work-items: X[,Y[,Z]].
    #[arg(long, default_value = "64")]
    grid: String,
    /// Workgroup size: X[,Y[,Z]] (default: the kernel's required size, else 64 work-items
    /// capped at its maximum).
    #[arg(long)]
    block: Option<String>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Size of each global buffer argument.
    #[arg(long, default_value_t = 65536)]
    buffer_bytes: usize,
    /// Dynamic LDS bytes.
    #[arg(long, default_value_t = 0)]
    lds: u32,
    /// A by-value argument: NAME=NUMBER (repeatable).
    #[arg(long = "value")]
    values: Vec<String>,
    /// Refuse a launch whose waves race on global memory (a plain store and another wave's
    /// access of the same byte that no work-group barrier orders): its result is not defined,
    /// so a translation has nothing to match.
    #[arg(long)]
    races: bool,
}

fn wmma_lowering(name: &str) -> Result<hotswap::WmmaLowering> {
    hotswap::WmmaLowering::from_name(name).with_context(|| format!("unknown WMMA lowering {name} (expected mfma or cross-lane)"))
}

impl LaunchArgs {
    fn options(&self) -> Result<hotswap::run::RunOptions> {
        Ok(hotswap::run::RunOptions {
            grid: dims(&self.grid)?,
            block: self.block.as_deref().map(dims).transpose()?,
            dynamic_lds: self.lds,
            seed: self.seed,
            buffer_bytes: self.buffer_bytes,
            values: self.values.iter().map(|v| named_value(v)).collect::<Result<_>>()?,
            limits: hotswap::emu::Limits { races: self.races, ..Default::default() },
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print target ID, kernels, descriptor fields, metadata, sections, symbols and bundle entries.
    Inspect {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a kernel in the emulator on seeded buffers; print each buffer's digest and the
    /// dynamic instruction counts.
    Run {
        file: PathBuf,
        #[arg(long)]
        kernel: String,
        #[command(flatten)]
        launch: LaunchArgs,
        /// Write every buffer after the run to DIR/<arg>.bin.
        #[arg(long)]
        dump: Option<PathBuf>,
    },
    /// Translate (or take --translated), then run source and translation in the emulator on the
    /// same seeded buffers; exit code 0 only if every buffer matches.
    Verify {
        /// The gfx1250 source code object.
        file: PathBuf,
        /// Target of the translation (default gfx942; with --translated, the file's processor).
        #[arg(long)]
        target: Option<String>,
        /// Check this translation of FILE (written by a loader, the C API or an earlier run)
        /// instead of translating FILE now.
        #[arg(long, value_name = "OUT")]
        translated: Option<PathBuf>,
        /// Only this kernel (default: every kernel).
        #[arg(long)]
        kernel: Option<String>,
        /// WMMA lowering of the translation: mfma or cross-lane.
        #[arg(long, default_value = "mfma")]
        wmma: String,
        #[command(flatten)]
        launch: LaunchArgs,
    },
    /// Disassemble: every kernel and function of a code object, or raw bytes (--raw), or one
    /// instruction per line of LLVM MC-test hex bytes (--hex-lines).
    Disasm {
        file: PathBuf,
        /// Processor of raw input: gfx1250, gfx942 or gfx950 (code objects say their own).
        #[arg(long)]
        mcpu: Option<String>,
        /// FILE holds raw instruction bytes.
        #[arg(long, conflicts_with = "hex_lines")]
        raw: bool,
        /// FILE holds one instruction a line as `0x01,0x05,0x00,0x06`.
        #[arg(long)]
        hex_lines: bool,
        /// Use LLVM's disassembler instead of hotswap-xlate's (to compare).
        #[arg(long)]
        llvm: bool,
    },
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotswap-xlate: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Inspect { file, json }) => {
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let report = hotswap::inspect::inspect(&bytes).with_context(|| format!("inspecting {}", file.display()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", hotswap::inspect::render_text(&report));
            }
            Ok(())
        }
        Some(Command::Run { file, kernel, launch, dump }) => {
            let options = launch.options()?;
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let r = hotswap::run::run(&bytes, &kernel, &options).with_context(|| format!("running {kernel}"))?;
            for (name, b) in &r.buffers {
                println!("buffer {name}: {} bytes, digest {:016x}", b.len(), hotswap::run::digest(b));
                if let Some(dir) = &dump {
                    std::fs::create_dir_all(dir)?;
                    std::fs::write(dir.join(format!("{name}.bin")), b)?;
                }
            }
            println!("instructions: {} (lane-instructions {})", r.stats.total(), r.stats.lane_instructions);
            for (class, n) in &r.stats.by_class {
                println!("  {class:?}: {n}");
            }
            Ok(())
        }
        Some(Command::Verify { file, target, translated, kernel, wmma, launch }) => {
            let run = launch.options()?;
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let (report, target) = match translated {
                Some(out) => {
                    let t = std::fs::read(&out).with_context(|| format!("reading {}", out.display()))?;
                    let cpu = hotswap::codeobj::CodeObject::parse(&t)
                        .with_context(|| format!("reading {}", out.display()))?
                        .processor()
                        .unwrap_or("none");
                    let target = parse_target(target.as_deref().unwrap_or(cpu))?;
                    if cpu != target.cpu() {
                        bail!("{} is a code object for {cpu}, not {}", out.display(), target.cpu());
                    }
                    let report = hotswap::run::verify_translation(&bytes, &t, &run, kernel.as_deref())
                        .with_context(|| format!("verifying {} against {}", out.display(), file.display()))?;
                    (report, target)
                }
                None => {
                    let target = parse_target(target.as_deref().unwrap_or("gfx942"))?;
                    let options = hotswap::Options { target, wmma: wmma_lowering(&wmma)?, ..Default::default() };
                    let report = hotswap::run::verify(&bytes, &options, &run, kernel.as_deref())
                        .with_context(|| format!("verifying {}", file.display()))?;
                    (report, target)
                }
            };
            for c in &report.checks {
                match c.first_difference {
                    None => println!("{} {}: match", c.kernel, c.buffer),
                    Some(at) => println!("{} {}: DIFFERS from byte {at}", c.kernel, c.buffer),
                }
            }
            for ((k, a), (_, b)) in report.source_stats.iter().zip(&report.translated_stats) {
                println!("{k}: {} instructions on gfx1250, {} on {}", a.total(), b.total(), target.cpu());
            }
            if !report.all_match() {
                bail!("translation of {} does not compute what the source computes", file.display());
            }
            Ok(())
        }
        Some(Command::Disasm { file, mcpu, raw, hex_lines, llvm }) => disasm(&file, mcpu.as_deref(), raw, hex_lines, llvm),
        None => {
            let Some(input) = cli.input else { bail!("no input file given (see --help)") };
            // The HotSwap environment contract, where it applies to a command-line translation.
            let env = hx_cache::env::Env::from_process();
            if let Some(e) = env.errors.first() {
                bail!("bad HotSwap environment: {e}");
            }
            if env.disable {
                bail!("HSA_HOTSWAP_DISABLE is set: not translating");
            }
            let target_name = cli.target.clone().or_else(|| env.isa_override.clone()).unwrap_or_else(|| "gfx942".into());
            let opt_level = hotswap::OptLevel::parse(&cli.opt_level)
                .with_context(|| format!("unknown optimisation level {}", cli.opt_level))?;
            let bytes = std::fs::read(&input).with_context(|| format!("reading {}", input.display()))?;
            // Target IDs may carry features and the triple (amdgcn-amd-amdhsa--gfx942:xnack-).
            let options = hotswap::Options {
                opt_level,
                strict: env.strict.unwrap_or(true),
                skip_kernels: cli.skip_kernels.clone(),
                wmma: wmma_lowering(&cli.wmma)?,
                limits: hotswap::limits::Limits::from_env().map_err(anyhow::Error::msg)?,
                ..Default::default()
            }
                .with_target_id(&target_name)?;
            let target = options.target;
            let started = std::time::Instant::now();
            if let Some(stage) = emit_stage(&cli.emit)? {
                // An intermediate stage: no cache, a code object (not a bundle) only.
                let out = hotswap::translate::translate_code_object_to(&bytes, &options, stage)
                    .with_context(|| format!("translating {}", input.display()))?;
                let ext = match stage {
                    hotswap::translate::Output::RaisedIr | hotswap::translate::Output::OptimizedIr => "ll",
                    hotswap::translate::Output::Assembly => "s",
                    _ => "o",
                };
                let path = cli.output.unwrap_or_else(|| input.with_extension(format!("{}.{ext}", target.cpu())));
                std::fs::write(&path, &out).with_context(|| format!("writing {}", path.display()))?;
                return Ok(());
            }
            let translate = || hotswap::translate(&bytes, &options).map(|t| t.bytes);
            let use_cache = !cli.no_cache && !env.cache_disable && (cli.cache || cli.cache_dir.is_some() || std::env::var_os(hx_cache::env::CACHE_DIR).is_some_and(|v| !v.is_empty()));
            let out = if use_cache {
                let dir = cli.cache_dir.clone().or_else(|| env.cache_dir.clone()).context(
                    "--cache: no cache directory (set HSA_HOTSWAP_CACHE_DIR, XDG_CACHE_HOME or HOME, or give --cache-dir)",
                )?;
                let mode = if env.cache_read_only { hx_cache::Mode::ReadOnly } else { hx_cache::Mode::ReadWrite };
                let cache = hx_cache::Cache::new(&dir, mode);
                let key = hotswap_capi::cache_key(&bytes, &options);
                // A hit must be a code object for the target; otherwise it is rebuilt (read-write)
                // or ignored (read-only).
                let stale = match cache.get(&key) {
                    hx_cache::Lookup::Hit(v) if is_code_object_for(&v, target) => None,
                    hx_cache::Lookup::Hit(_) => Some("not a code object for the target".to_string()),
                    hx_cache::Lookup::Corrupt(why) => Some(why),
                    hx_cache::Lookup::Miss => None,
                };
                let (out, what) = if stale.is_some() && mode == hx_cache::Mode::ReadOnly {
                    (translate(), "miss (bad entry ignored, read-only)".to_string())
                } else {
                    if stale.is_some() {
                        cache.remove(&key);
                    }
                    match cache.get_or_insert_with(&key, translate) {
                        Ok((v, hx_cache::Outcome::Hit)) => (Ok(v), "hit".to_string()),
                        Ok((v, hx_cache::Outcome::Miss { stored, write_error, .. })) => {
                            let mut what = String::from("miss");
                            if stale.is_some() {
                                what.push_str(", bad entry rebuilt");
                            }
                            what.push_str(if stored { ", stored" } else { ", not stored" });
                            if let Some(e) = write_error {
                                what.push_str(&format!(" ({e})"));
                            }
                            (Ok(v), what)
                        }
                        Err(e) => (Err(e), "miss".to_string()),
                    }
                };
                if env.verbose > 0 {
                    let why = stale.map(|s| format!(" [{s}]")).unwrap_or_default();
                    eprintln!("hotswap-xlate: cache {what}{why}: {}", cache.entry_path(&key).display());
                }
                out
            } else {
                translate()
            };
            let out = out.with_context(|| format!("translating {}", input.display()))?;
            if env.verbose > 0 {
                eprintln!("hotswap-xlate: {} -> {} in {:?}", input.display(), target.cpu(), started.elapsed());
            }
            let path = cli.output.unwrap_or_else(|| input.with_extension(format!("{}.hsaco", target.cpu())));
            std::fs::write(&path, &out).with_context(|| format!("writing {}", path.display()))?;
            Ok(())
        }
    }
}

fn disasm(file: &std::path::Path, mcpu: Option<&str>, raw: bool, hex_lines: bool, llvm: bool) -> Result<()> {
    use hotswap::disasm::{self, Decoder, Line};
    let decoder = if llvm { Decoder::Llvm } else { Decoder::Own };
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let target = || -> Result<hotswap::isa::Target> {
        let cpu = mcpu.context("--raw and --hex-lines need --mcpu gfx1250|gfx942|gfx950")?;
        disasm::target_for(cpu).with_context(|| format!("unknown processor {cpu}"))
    };
    if hex_lines {
        let target = target()?;
        let text = String::from_utf8(bytes).context("--hex-lines input is not UTF-8 text")?;
        for (n, line) in text.lines().enumerate() {
            match disasm::parse_hex_line(line) {
                Ok(Some(b)) => println!("{}", disasm::decode_hex_line(target, &b, decoder)?),
                Ok(None) => {}
                Err(e) => bail!("{}:{}: {e}", file.display(), n + 1),
            }
        }
        return Ok(());
    }
    if raw {
        let mut errors = 0;
        for line in disasm::decode_stream(target()?, &bytes, decoder)? {
            match line {
                Line::Inst { text, .. } => println!("{text}"),
                Line::Error { offset, message } => {
                    errors += 1;
                    eprintln!("{}: offset {offset:#x}: {message}", file.display());
                }
            }
        }
        if errors > 0 {
            bail!("{errors} undecodable words in {}", file.display());
        }
        return Ok(());
    }
    let co = hotswap::codeobj::CodeObject::parse(&bytes).with_context(|| format!("reading {}", file.display()))?;
    let (text, errors) = disasm::listing(&co, decoder)?;
    print!("{text}");
    if errors > 0 {
        bail!("{errors} undecodable words in {}", file.display());
    }
    Ok(())
}

/// Parses `X[,Y[,Z]]`.
fn dims(s: &str) -> Result<[u32; 3]> {
    let v: Vec<u32> = s.split(',').map(|p| p.trim().parse::<u32>()).collect::<Result<_, _>>().with_context(|| format!("bad size `{s}`"))?;
    if v.is_empty() || v.len() > 3 || v.contains(&0) {
        bail!("bad size `{s}`: give 1 to 3 positive numbers, X[,Y[,Z]]");
    }
    Ok([v[0], *v.get(1).unwrap_or(&1), *v.get(2).unwrap_or(&1)])
}

/// Parses `NAME=NUMBER` (decimal, 0x hex, or a float written with a dot, stored as f32 bits).
fn named_value(s: &str) -> Result<(String, u64)> {
    let (name, v) = s.split_once('=').with_context(|| format!("--value `{s}` is not NAME=NUMBER"))?;
    let n = if let Some(h) = v.strip_prefix("0x") {
        u64::from_str_radix(h, 16)?
    } else if v.contains('.') {
        v.parse::<f32>()?.to_bits() as u64
    } else {
        v.parse::<i64>()? as u64
    };
    Ok((name.to_string(), n))
}

/// The stage `--emit` names; None for the code object.
fn emit_stage(name: &str) -> Result<Option<hotswap::translate::Output>> {
    use hotswap::translate::Output;
    Ok(match name {
        "code-object" => None,
        "raised-ir" => Some(Output::RaisedIr),
        "optimized-ir" => Some(Output::OptimizedIr),
        "asm" => Some(Output::Assembly),
        "relocatable" => Some(Output::Relocatable),
        _ => bail!("unknown --emit {name} (expected code-object, raised-ir, optimized-ir, asm or relocatable)"),
    })
}

fn is_code_object_for(bytes: &[u8], target: hotswap::GpuTarget) -> bool {
    hotswap::codeobj::CodeObject::parse(bytes).is_ok_and(|co| co.processor() == Some(target.cpu()))
}

fn parse_target(s: &str) -> Result<hotswap::GpuTarget> {
    hotswap::GpuTarget::from_cpu(s)
        .filter(|t| *t != hotswap::GpuTarget::Gfx1250)
        .with_context(|| format!("unknown target {s} (expected gfx942 or gfx950)"))
}
