//! The `hotswap-xlate` command.
//!
//!   hotswap-xlate IN --target gfx942 [-o OUT]   translate a gfx1250 code object or bundle
//!                                               (strict; --keep-going translates what it can
//!                                               and gives refused kernels trap stubs)
//!   hotswap-xlate inspect FILE [--json]         describe a code object or offload bundle
//!   hotswap-xlate verify IN [--translated OUT]  check a translation against the source in the
//!                                               emulator
//!   hotswap-xlate run FILE --kernel K           run a kernel in the emulator
//!   hotswap-xlate disasm FILE                   disassemble
//!
//! `-` is standard input (IN, FILE) or standard output (`-o -`). The exit codes are in
//! [`EXIT_CODES`] and `--help`.
//!
//! Translation uses the on-disk cache only when asked: `--cache`, `--cache-dir DIR` or
//! HSA_HOTSWAP_CACHE_DIR set (a command run by hand or in a build should not write to the home
//! directory unasked); `--no-cache` or HSA_HOTSWAP_CACHE_DISABLE turn it off,
//! HSA_HOTSWAP_CACHE_READONLY serves hits but never writes.

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Exit codes (also in `--help`).
const EXIT_MISMATCH: u8 = 1;
const EXIT_BAD_INPUT: u8 = 2;
const EXIT_UNSUPPORTED: u8 = 3;
const EXIT_INTERNAL: u8 = 4;
const EXIT_IO: u8 = 5;
const EXIT_LIMIT: u8 = 6;

const EXIT_CODES: &str = "\
Exit codes:
  0  success (with --keep-going also when kernels were refused: the summary and --report name them)
  1  verify: the translation does not compute what the source computes, or the emulator refused a run
  2  bad arguments or bad input (not a code object, an unknown kernel or argument, ...)
  3  unsupported: the input is not gfx1250, or (strict mode) the translator refused kernels
  4  internal error (LLVM or a translation stage failed on accepted input)
  5  I/O error (reading the input, writing the output)
  6  a limit refused the work (input size, kernels, instructions per kernel, memory budget)";

#[derive(Parser)]
#[command(name = "hotswap-xlate", about = "Load-time translator of gfx1250 code objects to gfx942/gfx950")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Input code object or offload bundle (gfx1250); `-` reads standard input.
    input: Option<PathBuf>,
    #[command(flatten)]
    translate: TranslateArgs,
    /// What to write.
    #[arg(long, value_enum, default_value_t = Emit::CodeObject)]
    emit: Emit,
    /// Output file; `-` writes standard output (default: IN with the target's extension, and the
    /// path is printed).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Write the per-kernel report (status, refusal offset and mnemonic, instruction counts,
    /// registers, LDS, stage times) as JSON to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Print the per-kernel report as JSON on standard output (as `--report -`).
    #[arg(long, conflicts_with = "report")]
    json: bool,
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
    #[command(flatten)]
    verbosity: Verbosity,
}

#[derive(clap::Args, Clone, Copy)]
struct Verbosity {
    /// Print nothing but errors (no summary, no progress, no output path).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print the summary and the stages' timings (HSA_HOTSWAP_VERBOSE=1 does too).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

/// Options of a translation, the same on every subcommand that translates.
#[derive(clap::Args, Clone)]
struct TranslateArgs {
    /// Target ID: gfx942 or gfx950, with features as clang writes them (gfx942:xnack+,
    /// gfx950:sramecc-:xnack-, amdgcn-amd-amdhsa--gfx942) (default: $HSA_HOTSWAP_ISA_OVERRIDE,
    /// else gfx942).
    #[arg(long, value_parser = parse_target_id)]
    target: Option<TargetId>,
    /// Leave this kernel out of the output (repeatable).
    #[arg(long = "skip-kernel", value_name = "KERNEL")]
    skip_kernels: Vec<String>,
    /// Optimisation level of the lowering.
    #[arg(short = 'O', long = "opt-level", value_enum, default_value_t = Opt::O2)]
    opt_level: Opt,
    /// How dense WMMA is lowered.
    #[arg(long, value_enum, default_value_t = Wmma::Mfma)]
    wmma: Wmma,
    /// Lenient mode: translate every kernel that can be; a refused kernel keeps its symbol and
    /// descriptor and traps (s_trap) when run. Without it (or with HSA_HOTSWAP_STRICT unset or 1)
    /// one refused kernel refuses the object and the error lists every refusal.
    #[arg(long)]
    keep_going: bool,
    /// Run two source work-groups in each target wave64 where a kernel allows it (work-groups of
    /// one gfx1250 wave, no LDS, no dispatch-packet reads). Such kernels' metadata carries
    /// `.hotswap_dispatch_scale: 2`: the runtime must dispatch them with the work-group and grid
    /// x extents doubled (the HotSwap runtime's scaled dispatch; `run` and `verify` do it)
    #[arg(long)]
    pair_groups: bool,
}

/// A target ID given on the command line, checked as the library reads it.
#[derive(Clone, Debug)]
struct TargetId(String);

fn parse_target_id(s: &str) -> Result<TargetId, String> {
    hotswap::Options::default().with_target_id(s).map_err(|e| e.to_string())?;
    Ok(TargetId(s.to_string()))
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// The relinked code object.
    CodeObject,
    /// The raised LLVM IR.
    RaisedIr,
    /// The IR after the target's pipeline.
    OptimizedIr,
    /// The target assembly.
    Asm,
    /// The backend's object before relinking.
    Relocatable,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Opt {
    #[value(name = "0")]
    O0,
    #[value(name = "1")]
    O1,
    #[value(name = "2")]
    O2,
    #[value(name = "3")]
    O3,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Wmma {
    /// The target's matrix instructions where exact.
    Mfma,
    /// ds_bpermute gathers and per-thread sums.
    CrossLane,
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
    /// A by-value argument: NAME=NUMBER, or INDEX=NUMBER by its place among the explicit
    /// arguments (unnamed ones are argN) (repeatable). An unknown name is an error.
    #[arg(long = "value")]
    values: Vec<String>,
    /// Refuse a launch whose waves race on global memory (a plain store and another wave's
    /// access of the same byte that no work-group barrier orders): its result is not defined,
    /// so a translation has nothing to match.
    #[arg(long)]
    races: bool,
}

impl LaunchArgs {
    fn options(&self) -> Result<hx_verify::RunOptions> {
        Ok(hx_verify::RunOptions {
            grid: dims(&self.grid)?,
            block: self.block.as_deref().map(dims).transpose()?,
            dynamic_lds: self.lds,
            seed: self.seed,
            buffer_bytes: self.buffer_bytes,
            values: self.values.iter().map(|v| named_value(v)).collect::<Result<_>>()?,
            limits: hx_verify::emu::Limits { races: self.races, ..Default::default() },
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print target ID, kernels, descriptor fields, metadata, sections, symbols and bundle entries.
    Inspect {
        /// A code object or bundle; `-` reads standard input.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a kernel in the emulator on seeded buffers; print each buffer's digest and the
    /// dynamic instruction counts.
    Run {
        /// A code object, or a bundle (the entry --entry names; default: its one amdgcn entry,
        /// else its gfx1250 entry).
        file: PathBuf,
        #[arg(long)]
        kernel: String,
        /// The bundle entry: its id or its processor (gfx1250, gfx942:xnack-).
        #[arg(long)]
        entry: Option<String>,
        #[command(flatten)]
        launch: LaunchArgs,
        /// Write every buffer after the run to DIR/<arg>.bin.
        #[arg(long)]
        dump: Option<PathBuf>,
    },
    /// Translate (or take --translated), then run source and translation in the emulator on the
    /// same seeded buffers; exit code 0 only if every buffer matches.
    Verify {
        /// The gfx1250 source code object, or a bundle with a gfx1250 entry.
        file: PathBuf,
        #[command(flatten)]
        translate: TranslateArgs,
        /// Check this translation of FILE (written by a loader, the C API or an earlier run)
        /// instead of translating FILE now. Kernels it lacks or has as trap stubs are listed,
        /// not compared.
        #[arg(long, value_name = "OUT")]
        translated: Option<PathBuf>,
        /// Only this kernel (then only it is translated; default: every kernel).
        #[arg(long)]
        kernel: Option<String>,
        #[command(flatten)]
        launch: LaunchArgs,
    },
    /// Disassemble: every kernel and function of a code object (every amdgcn entry of a bundle),
    /// or raw bytes (--raw), or one instruction per line of LLVM MC-test hex bytes (--hex-lines).
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

/// A failed `verify`: the translation computes something else.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Mismatch(String);

/// The exit code of an error, from the most specific cause in its chain.
fn exit_code(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if cause.downcast_ref::<Mismatch>().is_some() {
            return EXIT_MISMATCH;
        }
        if let Some(h) = cause.downcast_ref::<hotswap::Error>() {
            return library_exit_code(h);
        }
        if let Some(v) = cause.downcast_ref::<hx_verify::Error>() {
            return match v {
                hx_verify::Error::Translate(h) => library_exit_code(h),
                // The emulator stopped on one side: the translation does not compute the same.
                hx_verify::Error::Emu(_) => EXIT_MISMATCH,
                hx_verify::Error::CodeObject(_) | hx_verify::Error::Launch(_) => EXIT_BAD_INPUT,
            };
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return EXIT_IO;
        }
    }
    EXIT_BAD_INPUT
}

fn library_exit_code(e: &hotswap::Error) -> u8 {
    use hotswap::{Error, ErrorKind};
    match e {
        Error::BundleEntry { cause, .. } => library_exit_code(cause),
        _ => match e.kind() {
            ErrorKind::BadInput | ErrorKind::InvalidArgument => EXIT_BAD_INPUT,
            ErrorKind::NotGfx1250 | ErrorKind::Unsupported => EXIT_UNSUPPORTED,
            ErrorKind::Internal => EXIT_INTERNAL,
            ErrorKind::OutOfResources => EXIT_LIMIT,
        },
    }
}

/// `--version`: the version, the LLVM the translator lowers with, and the translator's cache
/// identity (what a cache entry is keyed on).
fn long_version() -> String {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: LLVMGetVersion writes three integers.
    unsafe { hx_llvm::llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{}\nLLVM {major}.{minor}.{patch} (in-process)\ntranslator {}", env!("CARGO_PKG_VERSION"), hotswap::TRANSLATOR_ID)
}

fn main() -> std::process::ExitCode {
    // A closed pipe (`inspect | head`) ends the process quietly, as for any Unix filter.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    // Made once per process; clap keeps a &'static str.
    let version: &'static str = Box::leak(long_version().into_boxed_str());
    let matches = Cli::command().version(env!("CARGO_PKG_VERSION")).long_version(version).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotswap-xlate: error: {e:#}");
            std::process::ExitCode::from(exit_code(&e))
        }
    }
}

/// Reads FILE, or standard input for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b).context("reading standard input")?;
        return Ok(b);
    }
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// Writes FILE, or standard output for `-`.
fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out.write_all(bytes).and_then(|_| out.flush()).context("writing standard output");
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// The code object to run or disassemble from FILE: the file itself, or one code-object entry
/// of a bundle (`entry`: its id or target ID; default: the only amdgcn entry, else gfx1250).
fn code_object_of(bytes: Vec<u8>, entry: Option<&str>, file: &Path) -> Result<Vec<u8>> {
    use hotswap::codeobj::bundle::{is_bundle, parse_id, Bundle};
    if !is_bundle(&bytes) {
        if let Some(e) = entry {
            bail!("--entry {e}: {} is a code object, not a bundle", file.display());
        }
        return Ok(bytes);
    }
    let bundle = Bundle::parse(&bytes).map_err(hotswap::Error::from).with_context(|| format!("reading {}", file.display()))?;
    let amdgcn: Vec<_> = bundle.entries.into_iter().filter(|e| parse_id(&e.id).triple.starts_with("amdgcn")).collect();
    let ids = || amdgcn.iter().map(|e| e.id.clone()).collect::<Vec<_>>().join(", ");
    let pick: Vec<_> = match entry {
        Some(want) => amdgcn
            .iter()
            .filter(|e| {
                let id = parse_id(&e.id);
                e.id == want || id.target_id == want || id.processor() == want
            })
            .collect(),
        None if amdgcn.len() == 1 => amdgcn.iter().collect(),
        None => amdgcn.iter().filter(|e| parse_id(&e.id).processor() == "gfx1250").collect(),
    };
    match pick.as_slice() {
        [one] => Ok(one.data.clone()),
        [] => bail!("{}: no bundle entry {} (its amdgcn entries: {})", file.display(), entry.unwrap_or("for gfx1250"), ids()),
        _ => bail!("{}: several bundle entries match; name one with --entry (its amdgcn entries: {})", file.display(), ids()),
    }
}

/// The gfx1250 source of `verify`: a code object, or a bundle's gfx1250 entry.
fn source_of(bytes: Vec<u8>, file: &Path) -> Result<Vec<u8>> {
    if hotswap::codeobj::bundle::is_bundle(&bytes) {
        return code_object_of(bytes, Some("gfx1250"), file);
    }
    Ok(bytes)
}

/// The translation `verify --translated` checks: a code object, or a bundle's one gfx942/gfx950
/// entry.
fn translation_of(bytes: Vec<u8>, file: &Path) -> Result<Vec<u8>> {
    use hotswap::codeobj::bundle::{is_bundle, parse_id, Bundle};
    if !is_bundle(&bytes) {
        return Ok(bytes);
    }
    let bundle = Bundle::parse(&bytes).map_err(hotswap::Error::from).with_context(|| format!("reading {}", file.display()))?;
    let mut targets = bundle.entries.into_iter().filter(|e| {
        let id = parse_id(&e.id);
        id.triple.starts_with("amdgcn") && matches!(id.processor(), "gfx942" | "gfx950")
    });
    match (targets.next(), targets.next()) {
        (Some(one), None) => Ok(one.data),
        (None, _) => bail!("{}: the bundle has no gfx942 or gfx950 entry", file.display()),
        (Some(a), Some(b)) => bail!("{}: the bundle has several translations ({}, {}, ...): extract one", file.display(), a.id, b.id),
    }
}

impl TranslateArgs {
    fn options(&self, env: &hx_cache::env::Env) -> Result<hotswap::Options> {
        let target = self.target.as_ref().map(|t| t.0.clone()).or_else(|| env.isa_override.clone()).unwrap_or_else(|| "gfx942".into());
        let opt_level = match self.opt_level {
            Opt::O0 => hotswap::OptLevel::O0,
            Opt::O1 => hotswap::OptLevel::O1,
            Opt::O2 => hotswap::OptLevel::O2,
            Opt::O3 => hotswap::OptLevel::O3,
        };
        let wmma = match self.wmma {
            Wmma::Mfma => hotswap::WmmaLowering::Mfma,
            Wmma::CrossLane => hotswap::WmmaLowering::CrossLane,
        };
        let strict = !self.keep_going && env.strict.unwrap_or(true);
        // Target IDs may carry features and the triple (amdgcn-amd-amdhsa--gfx942:xnack-).
        let limits = hotswap::limits::Limits::from_env().map_err(anyhow::Error::msg)?;
        Ok(hotswap::Options { opt_level, strict, skip_kernels: self.skip_kernels.clone(), wmma, limits, pair_groups: self.pair_groups, ..Default::default() }.with_target_id(&target)?)
    }
}

/// A progress bar on standard error for a translation that takes over a second, when standard
/// error is a terminal and not -q.
struct Progress {
    bar: indicatif::ProgressBar,
    started: Instant,
    enabled: bool,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        let bar = indicatif::ProgressBar::hidden();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} kernels, {elapsed}") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix("translating");
        Progress { bar, started: Instant::now(), enabled: !quiet && std::io::stderr().is_terminal(), shown: false.into() }
    }

    fn update(&self, done: usize, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        if self.enabled && !self.shown.load(Relaxed) && self.started.elapsed() > Duration::from_secs(1) {
            self.shown.store(true, Relaxed);
            self.bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn run(cli: Cli) -> Result<()> {
    let quiet = cli.verbosity.quiet;
    match cli.command {
        Some(Command::Inspect { file, json }) => {
            let bytes = read_input(&file)?;
            let report = hotswap::inspect::inspect(&bytes).with_context(|| format!("inspecting {}", file.display()))?;
            let text = if json { format!("{}\n", serde_json::to_string_pretty(&report)?) } else { hotswap::inspect::render_text(&report) };
            write_output(Path::new("-"), text.as_bytes())
        }
        Some(Command::Run { file, kernel, entry, launch, dump }) => {
            let options = launch.options()?;
            let bytes = code_object_of(read_input(&file)?, entry.as_deref(), &file)?;
            hx_verify::check_values(&bytes, Some(&kernel), &options.values)?;
            let r = hx_verify::run(&bytes, &kernel, &options).with_context(|| format!("running {kernel}"))?;
            let mut out = String::new();
            for (name, b) in &r.buffers {
                out.push_str(&format!("buffer {name}: {} bytes, digest {:016x}\n", b.len(), hx_verify::digest(b)));
                if let Some(dir) = &dump {
                    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
                    let path = dir.join(format!("{name}.bin"));
                    std::fs::write(&path, b).with_context(|| format!("writing {}", path.display()))?;
                }
            }
            out.push_str(&format!("instructions: {} (lane-instructions {})\n", r.stats.total(), r.stats.lane_instructions));
            for (class, n) in &r.stats.by_class {
                out.push_str(&format!("  {class:?}: {n}\n"));
            }
            write_output(Path::new("-"), out.as_bytes())
        }
        Some(Command::Verify { file, translate, translated, kernel, launch }) => {
            let run = launch.options()?;
            let bytes = source_of(read_input(&file)?, &file)?;
            hx_verify::check_values(&bytes, kernel.as_deref(), &run.values)?;
            let env = hx_cache::env::Env::from_process();
            let (report, target) = match translated {
                Some(out) => {
                    let t = translation_of(read_input(&out)?, &out)?;
                    let cpu = hotswap::codeobj::CodeObject::parse(&t)
                        .map_err(hotswap::Error::from)
                        .with_context(|| format!("reading {}", out.display()))?
                        .processor()
                        .unwrap_or("none")
                        .to_string();
                    let target = match &translate.target {
                        Some(t) => hotswap::Options::default().with_target_id(&t.0)?.target,
                        None => parse_target(&cpu)?,
                    };
                    if cpu != target.cpu() {
                        bail!("{} is a code object for {cpu}, not {}", out.display(), target.cpu());
                    }
                    let report = hx_verify::verify_translation(&bytes, &t, &run, kernel.as_deref())
                        .with_context(|| format!("verifying {} against {}", out.display(), file.display()))?;
                    (report, target)
                }
                None => {
                    let options = translate.options(&env)?;
                    let target = options.target;
                    let report = hx_verify::verify(&bytes, &options, &run, kernel.as_deref())
                        .with_context(|| format!("verifying {}", file.display()))?;
                    (report, target)
                }
            };
            let mut text = String::new();
            for c in &report.checks {
                match c.first_difference {
                    None => text.push_str(&format!("{} {}: match\n", c.kernel, c.buffer)),
                    Some(at) => text.push_str(&format!("{} {}: DIFFERS from byte {at}\n", c.kernel, c.buffer)),
                }
            }
            for ((k, a), (_, b)) in report.source_stats.iter().zip(&report.translated_stats) {
                text.push_str(&format!("{k}: {} instructions on gfx1250, {} on {}\n", a.total(), b.total(), target.cpu()));
            }
            for (k, why) in &report.not_compared {
                text.push_str(&format!("{k}: not compared: {why}\n"));
            }
            write_output(Path::new("-"), text.as_bytes())?;
            if report.checks.is_empty() {
                let why: Vec<String> = report.not_compared.iter().map(|(k, w)| format!("{k}: {w}")).collect();
                bail!("no kernel of {} was compared ({})", file.display(), why.join("; "));
            }
            if !report.all_match() {
                return Err(Mismatch(format!("translation of {} does not compute what the source computes", file.display())).into());
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
            let verbose = !quiet && (cli.verbosity.verbose > 0 || env.verbose > 0);
            let options = cli.translate.options(&env)?;
            let bytes = read_input(&input)?;
            let target = options.target;
            let started = Instant::now();
            let report_to = if cli.json { Some(PathBuf::from("-")) } else { cli.report.clone() };
            if cli.output.as_deref() == Some(Path::new("-")) && report_to.as_deref() == Some(Path::new("-")) {
                bail!("-o - and --json (or --report -) would both write standard output");
            }
            // Without -o: beside the input (for standard input: in the current directory).
            let default_path = |ext: &str| {
                if input == Path::new("-") {
                    PathBuf::from(format!("stdin.{}.{ext}", target.cpu()))
                } else {
                    input.with_extension(format!("{}.{ext}", target.cpu()))
                }
            };
            let emit = match cli.emit {
                Emit::CodeObject => None,
                Emit::RaisedIr => Some((hotswap::translate::Output::RaisedIr, "ll")),
                Emit::OptimizedIr => Some((hotswap::translate::Output::OptimizedIr, "ll")),
                Emit::Asm => Some((hotswap::translate::Output::Assembly, "s")),
                Emit::Relocatable => Some((hotswap::translate::Output::Relocatable, "o")),
            };
            if let Some((stage, ext)) = emit {
                // An intermediate stage: no cache, no report, a code object (not a bundle) only.
                if report_to.is_some() {
                    bail!("--report and --json need --emit code-object");
                }
                // The IR and assembly stages hold every kernel in one module: nothing to keep going past.
                if cli.translate.keep_going && stage != hotswap::translate::Output::Relocatable {
                    bail!("--keep-going applies to --emit code-object and relocatable, not to the IR and assembly stages");
                }
                let out = hotswap::translate::translate_code_object_to(&bytes, &options, stage)
                    .with_context(|| format!("translating {}", input.display()))?;
                let path = cli.output.clone().unwrap_or_else(|| default_path(ext));
                write_output(&path, &out)?;
                if cli.output.is_none() && !quiet {
                    eprintln!("hotswap-xlate: wrote {}", path.display());
                }
                return Ok(());
            }
            let progress = Progress::new(quiet);
            let report = std::sync::Mutex::new(None);
            let translate = || {
                hotswap::translate_with_progress(&bytes, &options, &|d, t| progress.update(d, t)).map(|t| {
                    if let Ok(mut r) = report.lock() {
                        *r = Some(t.report);
                    }
                    t.bytes
                })
            };
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
                if env.verbose > 0 && !quiet {
                    let why = stale.map(|s| format!(" [{s}]")).unwrap_or_default();
                    eprintln!("hotswap-xlate: cache {what}{why}: {}", cache.entry_path(&key).display());
                }
                out
            } else {
                translate()
            };
            progress.finish();
            let out = out.with_context(|| format!("translating {}", input.display()))?;
            let report = report.into_inner().ok().flatten();
            let path = cli.output.clone().unwrap_or_else(|| default_path("hsaco"));
            write_output(&path, &out)?;
            if let Some(to) = &report_to {
                // A cache hit did not run the translator: its report says so.
                let json = match &report {
                    Some(r) => r.to_json(),
                    None => serde_json::json!({ "target": target.cpu(), "cache": "hit", "kernels": null }),
                };
                write_output(to, format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
            }
            if let Some(r) = &report {
                // One line per refused kernel and the totals, when there is something to say.
                if !quiet && (verbose || r.count(hotswap::report::Status::Refused) > 0 || !r.notes.is_empty()) {
                    eprint!("{}", r.summary());
                }
                if verbose {
                    eprintln!("hotswap-xlate: stages: {}", r.timings());
                }
            }
            if verbose {
                eprintln!("hotswap-xlate: {} -> {} in {}", input.display(), options.target_id(), hotswap::report::human_duration(started.elapsed()));
            }
            if cli.output.is_none() && !quiet {
                eprintln!("hotswap-xlate: wrote {}", path.display());
            }
            Ok(())
        }
    }
}

fn disasm(file: &Path, mcpu: Option<&str>, raw: bool, hex_lines: bool, llvm: bool) -> Result<()> {
    use hotswap::disasm::{self, Decoder, Line};
    let decoder = if llvm { Decoder::Llvm } else { Decoder::Own };
    let bytes = read_input(file)?;
    let target = || -> Result<hotswap::isa::Target> {
        let cpu = mcpu.context("--raw and --hex-lines need --mcpu gfx1250|gfx942|gfx950")?;
        disasm::target_for(cpu).with_context(|| format!("unknown processor {cpu}"))
    };
    let mut out = String::new();
    if hex_lines {
        let target = target()?;
        let text = String::from_utf8(bytes).context("--hex-lines input is not UTF-8 text")?;
        for (n, line) in text.lines().enumerate() {
            match disasm::parse_hex_line(line) {
                Ok(Some(b)) => out.push_str(&format!("{}\n", disasm::decode_hex_line(target, &b, decoder)?)),
                Ok(None) => {}
                Err(e) => bail!("{}:{}: {e}", file.display(), n + 1),
            }
        }
        return write_output(Path::new("-"), out.as_bytes());
    }
    if raw {
        let mut errors = 0;
        for line in disasm::decode_stream(target()?, &bytes, decoder)? {
            match line {
                Line::Inst { text, .. } => out.push_str(&format!("{text}\n")),
                Line::Error { offset, message } => {
                    errors += 1;
                    eprintln!("{}: offset {offset:#x}: {message}", file.display());
                }
            }
        }
        write_output(Path::new("-"), out.as_bytes())?;
        if errors > 0 {
            bail!("{errors} undecodable words in {}", file.display());
        }
        return Ok(());
    }
    // A bundle: every amdgcn code-object entry, each under its id.
    let objects: Vec<(Option<String>, Vec<u8>)> = if hotswap::codeobj::bundle::is_bundle(&bytes) {
        let b = hotswap::codeobj::bundle::Bundle::parse(&bytes).map_err(hotswap::Error::from).with_context(|| format!("reading {}", file.display()))?;
        b.entries.into_iter().filter(|e| hotswap::codeobj::bundle::parse_id(&e.id).triple.starts_with("amdgcn")).map(|e| (Some(e.id), e.data)).collect()
    } else {
        vec![(None, bytes)]
    };
    let mut errors = 0;
    for (id, bytes) in objects {
        let co = hotswap::codeobj::CodeObject::parse(&bytes).map_err(hotswap::Error::from).with_context(|| format!("reading {}", file.display()))?;
        let (text, e) = disasm::listing(&co, decoder)?;
        if let Some(id) = id {
            out.push_str(&format!("bundle entry {id}:\n"));
        }
        out.push_str(&text);
        errors += e;
    }
    write_output(Path::new("-"), out.as_bytes())?;
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

/// Parses `NAME=NUMBER` or `INDEX=NUMBER` (decimal, 0x hex, or a float written with a dot,
/// stored as f32 bits).
fn named_value(s: &str) -> Result<(String, u64)> {
    let (name, v) = s.split_once('=').with_context(|| format!("--value `{s}` is not NAME=NUMBER"))?;
    let bad = || format!("--value {s}: `{v}` is not a number");
    let n = if let Some(h) = v.strip_prefix("0x") {
        u64::from_str_radix(h, 16).with_context(bad)?
    } else if v.contains('.') {
        v.parse::<f32>().with_context(bad)?.to_bits() as u64
    } else {
        v.parse::<i64>().with_context(bad)? as u64
    };
    Ok((name.to_string(), n))
}

fn is_code_object_for(bytes: &[u8], target: hotswap::GpuTarget) -> bool {
    hotswap::codeobj::CodeObject::parse(bytes).is_ok_and(|co| co.processor() == Some(target.cpu()))
}

fn parse_target(s: &str) -> Result<hotswap::GpuTarget> {
    hotswap::GpuTarget::from_cpu(s)
        .filter(|t| *t != hotswap::GpuTarget::Gfx1250)
        .with_context(|| format!("unknown target {s} (expected gfx942 or gfx950)"))
}
