//! Runs every measurement of BENCHMARKS.md and prints its markdown body on stdout
//! (`cargo xtask bench` adds the header: machine, date, commit, command).
//!
//! `hx-bench-report [--quick]`: the report (`--quick`: one or two runs of everything, for tests).
//! `hx-bench-report cold FILE TARGET`: child mode, one process doing first, later and cached
//! translations of FILE, printing `key value` lines (the cold/warm and peak-memory figures).

use anyhow::{bail, Context, Result};
use hotswap::{GpuTarget, Options};
use hx_benches::measure::{ms, pool, process_cpu_time, sample, translate_on, Sample};
use std::ffi::OsStr;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Cfg {
    quick: bool,
    work: PathBuf,
    /// One line per headline figure, printed first.
    headline: std::cell::RefCell<Vec<String>>,
}

impl Cfg {
    /// (warm-up runs, minimum runs, maximum runs, time budget) of one measurement.
    fn runs(&self, budget_ms: u64) -> (usize, usize, usize, Duration) {
        if self.quick {
            (0, 1, 1, Duration::ZERO)
        } else {
            (1, 5, 200, Duration::from_millis(budget_ms))
        }
    }

    /// Whether this report measures corpus object `name` (all of them unless `--quick`).
    fn measures(&self, name: &str) -> bool {
        !self.quick || QUICK_OBJECTS.contains(&name)
    }

    fn sample<T>(&self, budget_ms: u64, f: impl FnMut() -> Result<T>) -> Result<Sample> {
        let (w, lo, hi, b) = self.runs(budget_ms);
        sample(w, lo, hi, b, f)
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("once") {
        // One translation, then exit: the parent times the whole process.
        let [_, file, target] = args.as_slice() else { bail!("usage: hx-bench-report once FILE TARGET") };
        let o = Options { target: GpuTarget::from_cpu(target).context("target")?, ..Default::default() };
        translate_on(&pool(1)?, &std::fs::read(file)?, &o)?;
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("loop") {
        // N translations in one process: the callgrind workload.
        let [_, file, n] = args.as_slice() else { bail!("usage: hx-bench-report loop FILE N") };
        let bytes = std::fs::read(file)?;
        let p = pool(1)?;
        for _ in 0..n.parse::<usize>()? {
            translate_on(&p, &bytes, &gfx942())?;
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("lower-loop") {
        // N lowerings of the raised IR of FILE, each with a new target machine (`new`) or one
        // made once (`reused`): the callgrind workload of the target-machine comparison.
        let [_, file, n, mode] = args.as_slice() else { bail!("usage: hx-bench-report lower-loop FILE N new|reused") };
        use hx_llvm::{inkwell::context::Context, OptLevel};
        let ir = hotswap::translate::raised_ir(&std::fs::read(file)?, &gfx942())?;
        let tm = GpuTarget::Gfx942.target_machine(OptLevel::O2)?;
        for _ in 0..n.parse::<usize>()? {
            let ctx = Context::create();
            let m = hx_llvm::parse_ir(&ctx, &ir, "k")?;
            match mode.as_str() {
                "new" => lower_raised(&m, "k", &GpuTarget::Gfx942.target_machine(OptLevel::O2)?)?,
                "reused" => lower_raised(&m, "k", &tm)?,
                _ => bail!("mode must be new or reused"),
            };
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("raise") {
        // The raised IR of FILE for gfx942 written to OUT: the in-process part of the real shell-out.
        let [_, file, out] = args.as_slice() else { bail!("usage: hx-bench-report raise FILE OUT") };
        std::fs::write(out, hotswap::translate::raised_ir(&std::fs::read(file)?, &gfx942())?)?;
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("codegen-loop") {
        // N lowerings of the raised IR of FILE through hx-lower, emitting with the C API (`capi`)
        // or the pooled pipeline (`pipeline`): the callgrind workload of section 11.
        let [_, file, n, mode] = args.as_slice() else { bail!("usage: hx-bench-report codegen-loop FILE N capi|pipeline") };
        let ir = hotswap::translate::raised_ir(&std::fs::read(file)?, &gfx942())?;
        let codegen = match mode.as_str() {
            "capi" => hx_lower::Codegen::CApi,
            "pipeline" => hx_lower::Codegen::Pipeline,
            _ => bail!("mode must be capi or pipeline"),
        };
        let o = hx_lower::LowerOptions::new(GpuTarget::Gfx942);
        for _ in 0..n.parse::<usize>()? {
            hx_lower::lower_ir_via(&ir, "k", &[], &o, hx_lower::Emit::Object, codegen)?;
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("noop") {
        // Process start and exit with libLLVM loaded, nothing run.
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("cold") {
        let [_, file, target] = args.as_slice() else { bail!("usage: hx-bench-report cold FILE TARGET") };
        return cold_child(Path::new(file), target);
    }
    if args.first().map(String::as_str) == Some("prewarmed") {
        // `hotswap::prewarm` on a thread of its own, then the process's first translation.
        let [_, file, target] = args.as_slice() else { bail!("usage: hx-bench-report prewarmed FILE TARGET") };
        let o = Options { target: GpuTarget::from_cpu(target).context("target")?, ..Default::default() };
        let bytes = std::fs::read(file)?;
        let o1 = o.clone();
        std::thread::spawn(move || hotswap::prewarm(&o1)).join().map_err(|_| anyhow::anyhow!("prewarm panicked"))??;
        let t = Instant::now();
        translate_on(&pool(1)?, &bytes, &o)?;
        println!("prewarmed_first_ms {}", t.elapsed().as_secs_f64() * 1e3);
        return Ok(());
    }
    let quick = args.iter().any(|a| a == "--quick");
    let work = std::env::temp_dir().join(format!("hx-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let cfg = Cfg { quick, work: work.clone(), headline: Default::default() };
    let mut out = String::new();
    let sections: [(&str, fn(&Cfg, &mut String) -> Result<()>); 14] = [
        ("1. Translation latency: in-process against the shell-out pipeline", latency),
        ("1b. The real shell-out: Debian's LLVM 22 tools beside the hx-llc stand-in", real_shellout),
        ("2. Cold, warm and cached translations", cold_warm),
        ("3. Decode throughput against LLVM's disassembler", decode),
        ("4. Scaling: kernels per object, threads, kernel size", scaling),
        ("5. Code quality: translated against native, in the emulator", quality),
        ("5b. WMMA kernels: MFMA and cross-lane lowerings against the gfx1250 original", wmma_quality),
        ("6. Peak memory of a translation", peak_memory),
        ("7. Where the time of a translation goes", breakdown),
        ("8. Instruction counts (callgrind)", callgrind),
        ("9. Big kernels: translation against the native compile", big_kernels),
        ("10. Whole-object throughput", throughput),
        ("11. The reused codegen pipeline against the C API", pipeline_reuse),
        ("12. Scaling with kernel size: time and memory per instruction, 1k to 100k instructions", kernel_size_scaling),
    ];
    // `--only 5b` or `--only 1b,9`: the sections with these numbers (for working on some).
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    for (title, f) in sections {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|n| title.starts_with(&format!("{n}.")))) {
            continue;
        }
        let started = Instant::now();
        let _ = writeln!(out, "## {title}\n");
        if let Err(e) = f(&cfg, &mut out) {
            let _ = writeln!(out, "\nThis section failed: {e:#}\n");
        }
        eprintln!("{title}: {:.1} s", started.elapsed().as_secs_f64());
    }
    println!("## Summary\n");
    for l in cfg.headline.borrow().iter() {
        println!("- {l}");
    }
    println!();
    print!("{out}");
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn gfx942() -> Options {
    Options { target: GpuTarget::Gfx942, ..Default::default() }
}

/// (name, bytes) of every gfx1250 corpus object, sorted by name; with `--quick`, only the
/// objects of [`QUICK_OBJECTS`], so that a test of the report (debug build) stays short.
fn corpus_gfx1250(cfg: &Cfg) -> Result<Vec<(String, Vec<u8>)>> {
    let mut v = Vec::new();
    for o in hx_corpus::objects()?.into_iter().filter(|o| o.builds_for("gfx1250") && cfg.measures(&o.name)) {
        let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", o.name));
        v.push((o.name.clone(), std::fs::read(&p).with_context(|| p.display().to_string())?));
    }
    Ok(v)
}

/// The objects a `--quick` report measures: two small ones that translate.
const QUICK_OBJECTS: &[&str] = &["saxpy", "grid2d"];

/// An error on one table line: its first line, shortened.
fn short(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    let s = s.lines().next().unwrap_or("").replace('|', "/");
    if s.chars().count() > 110 {
        format!("{}...", s.chars().take(110).collect::<String>())
    } else {
        s
    }
}

/// Runs `a` and `b` alternately (one warm-up each) and times each run.
fn interleaved<A, B>(cfg: &Cfg, budget_ms: u64, mut a: impl FnMut() -> Result<A>, mut b: impl FnMut() -> Result<B>) -> Result<(Sample, Sample)> {
    let (warm, lo, hi, budget) = cfg.runs(budget_ms);
    for _ in 0..warm {
        std::hint::black_box(a()?);
        std::hint::black_box(b()?);
    }
    let started = Instant::now();
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    while ta.len() < hi && (ta.len() < lo || started.elapsed() < budget) {
        let t = Instant::now();
        std::hint::black_box(a()?);
        ta.push(t.elapsed());
        let t = Instant::now();
        std::hint::black_box(b()?);
        tb.push(t.elapsed());
    }
    Ok((Sample { times: ta }, Sample { times: tb }))
}

/// The largest object, in gfx1250 instructions, that the 5x latency target calls small.
const SMALL_OBJECT: usize = 50;

fn latency(cfg: &Cfg, out: &mut String) -> Result<()> {
    let llc = hx_benches::shellout::find_llc()?;
    let shell = hx_benches::shellout::ShellOut::new(llc, &cfg.work.join("shellout"))?;
    let p1 = pool(1)?;
    let o = gfx942();
    let _ = writeln!(
        out,
        "Every gfx1250 corpus object translated for gfx942 at O2, median wall time of repeated runs in this \
process. *In-process*: `hotswap::translate` (raise, lower, relink, all in-process). \
*Shell-out*: the pipeline HotSwap's COMGR path uses, on the same libLLVM: raise in-process, write the raised \
IR to a file, `hx-llc` (a separate process: parse, the raised-IR O2 pipeline, AMDGPU backend) writes an object, `rust-lld \
-flavor gnu -shared` links it, the code object is read back. *Raise* is the in-process raising and IR printing \
that the shell-out time includes. The two pipelines run alternately (one warm-up each, then pairs until \
the time budget, at least 5). Ratio = shell-out median / in-process median; the ratio of the fastest runs is \
less sensitive to load from elsewhere on a shared machine. \
*Native compile*: LLVM alone compiling the object's own source IR (corpus/kernels, the front end's IR the \
gfx1250 object was built from) for gfx942 in-process, with the target machine kept, alternating with the \
shell-out as the translation does: what a translation would cost if raising and relinking were free and the \
raised IR were the native IR. *Ceiling* = shell-out median / native compile median in that second \
alternation, the ratio such a translation would reach; what work on the translator itself can give is \
bounded by it. Objects whose source does \
not compile for gfx942 (gfx1250-only operations) have none.\n"
    );
    let _ = writeln!(out, "| object | kernels | gfx1250 instructions | in-process ms | shell-out ms | raise ms | ratio | ratio of fastest runs | native compile ms | ceiling |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let tm = GpuTarget::Gfx942.target_machine(hx_llvm::OptLevel::O2)?;
    let mut ceilings: Vec<(String, f64)> = Vec::new();
    let mut ratios = Vec::new();
    let mut small: Vec<(String, f64)> = Vec::new();
    for (name, bytes) in corpus_gfx1250(cfg)? {
        let kernels = hotswap::codeobj::CodeObject::parse(&bytes).map(|c| c.kernels.len()).unwrap_or(0);
        let insts = hx_benches::synth::instruction_count(&bytes).unwrap_or(0);
        if let Err(e) = translate_on(&p1, &bytes, &o) {
            let _ = writeln!(out, "| {name} | {kernels} | {insts} | fails: {} | | | | | | |", short(&e));
            continue;
        }
        let raise = cfg.sample(300, || Ok(hotswap::translate::raised_ir(&bytes, &o)?))?;
        // In-process and shell-out runs alternate, so that load from elsewhere on the machine
        // falls on both alike.
        let (inproc, shellout) = match interleaved(cfg, 3000, || Ok(translate_on(&p1, &bytes, &o)?), || shell.translate(&bytes, &o)) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(out, "| {name} | {kernels} | {insts} | | fails: {} | | | | | |", short(&e));
                continue;
            }
        };
        let r = shellout.median().as_secs_f64() / inproc.median().as_secs_f64();
        let rmin = shellout.min().as_secs_f64() / inproc.min().as_secs_f64();
        ratios.push(r);
        if insts <= SMALL_OBJECT {
            small.push((name.clone(), r));
        }
        let native = native_compile(cfg, &name, &tm, || shell.translate(&bytes, &o))?;
        let (native_ms, ceiling) = match &native {
            Some((n, s)) => {
                let c = s.median().as_secs_f64() / n.median().as_secs_f64();
                if insts <= SMALL_OBJECT {
                    ceilings.push((name.clone(), c));
                }
                (ms(n.median()), format!("{c:.1}x"))
            }
            None => (String::new(), String::new()),
        };
        let _ = writeln!(
            out,
            "| {name} | {kernels} | {insts} | {} | {} | {} | {r:.1}x | {rmin:.1}x | {native_ms} | {ceiling} |",
            ms(inproc.median()),
            ms(shellout.median()),
            ms(raise.median())
        );
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        cfg.headline.borrow_mut().push(format!(
            "Latency: in-process translation is {:.1}x to {:.1}x faster than the shell-out pipeline (median ratio per object, {} objects translate; target 5x on small objects).",
            ratios[0],
            ratios[ratios.len() - 1],
            ratios.len()
        ));
        let _ = writeln!(
            out,
            "\nIn-process is {:.1}x to {:.1}x faster than the shell-out pipeline over the {} objects that translate \
(target: at least 5x on small objects).\n",
            ratios[0],
            ratios[ratios.len() - 1],
            ratios.len()
        );
        let below: Vec<String> = small.iter().filter(|(_, r)| *r < 5.0).map(|(n, r)| format!("{n} {r:.1}x")).collect();
        let line = format!(
            "Small objects (at most {SMALL_OBJECT} gfx1250 instructions): {} of {} at 5x or more{}.",
            small.len() - below.len(),
            small.len(),
            if below.is_empty() { String::new() } else { format!("; below: {}", below.join(", ")) }
        );
        let _ = writeln!(out, "{line}\n");
        cfg.headline.borrow_mut().push(line);
    }
    if !ceilings.is_empty() {
        let under: Vec<String> = ceilings.iter().filter(|(_, c)| *c < 5.0).map(|(n, c)| format!("{n} {c:.1}x")).collect();
        let line = format!(
            "Ceiling (shell-out / LLVM compiling the native source IR alone): {} of {} small objects with a gfx942 source reach 5x even then{}.",
            ceilings.len() - under.len(),
            ceilings.len(),
            if under.is_empty() { String::new() } else { format!("; below 5x: {}", under.join(", ")) }
        );
        let _ = writeln!(out, "{line}\n");
        cfg.headline.borrow_mut().push(line);
    }
    Ok(())
}

/// LLVM alone compiling corpus/kernels/NAME.ll (the source IR) for gfx942 with `tm`: parse, the
/// default O2 pipeline, the backend; alternating with `shell` (the shell-out translation), as
/// the in-process translation does, so that both meet the caches the other process leaves.
/// Returns both samples. `None` where the corpus has no gfx942 build of it (its IR uses
/// gfx1250-only operations, which the gfx942 backend may not survive).
fn native_compile<T>(cfg: &Cfg, name: &str, tm: &hx_llvm::inkwell::targets::TargetMachine, shell: impl FnMut() -> Result<T>) -> Result<Option<(Sample, Sample)>> {
    use hx_llvm::{inkwell::context::Context, Emit, OptLevel};
    let dir = hx_corpus::corpus_dir();
    if !dir.join("gfx942").join(format!("{name}.hsaco")).exists() {
        return Ok(None);
    }
    let ir = std::fs::read_to_string(dir.join("kernels").join(format!("{name}.ll")))?;
    let compile = || {
        let ctx = Context::create();
        let m = hx_llvm::parse_ir(&ctx, &ir, name)?;
        hx_llvm::verify(&m, name)?;
        Ok(hx_llvm::emit_verified(&m, name, tm, OptLevel::O2, Emit::Object)?)
    };
    Ok(Some(interleaved(cfg, 2000, compile, shell)?))
}

/// Runs `hx-bench-report cold FILE TARGET` and returns its `key value` lines and wall time.
fn run_cold_child(file: &Path, target: &str) -> Result<(Vec<(String, f64)>, Duration)> {
    run_child(&["cold".as_ref(), file.as_os_str(), target.as_ref()])
}

/// Runs `hx-bench-report ARGS...` and reads the `key value` lines it prints.
fn run_child(args: &[&std::ffi::OsStr]) -> Result<(Vec<(String, f64)>, Duration)> {
    let started = Instant::now();
    let o = std::process::Command::new(std::env::current_exe()?).args(args).output()?;
    let wall = started.elapsed();
    if !o.status.success() {
        bail!("{}", String::from_utf8_lossy(&o.stderr).trim());
    }
    let kv = String::from_utf8(o.stdout)?
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect();
    Ok((kv, wall))
}

/// Median wall time of `runs` processes `hx-bench-report ARGS...`.
fn process_ms(args: &[&std::ffi::OsStr], runs: usize) -> Result<f64> {
    let mut t = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let o = std::process::Command::new(std::env::current_exe()?).args(args).output()?;
        t.push(started.elapsed().as_secs_f64() * 1e3);
        if !o.status.success() {
            bail!("{}", String::from_utf8_lossy(&o.stderr).trim());
        }
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

fn get(kv: &[(String, f64)], k: &str) -> f64 {
    kv.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap_or(f64::NAN)
}

/// The translatable corpus objects' paths, in corpus order.
fn translatable(cfg: &Cfg) -> Result<Vec<(String, PathBuf)>> {
    let o = gfx942();
    Ok(corpus_gfx1250(cfg)?
        .into_iter()
        .filter(|(_, b)| hotswap::translate(b, &o).is_ok())
        .map(|(n, _)| {
            let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{n}.hsaco"));
            (n, p)
        })
        .collect())
}

/// The translatable objects, smallest (instructions) first.
fn translatable_by_size(cfg: &Cfg) -> Result<Vec<(String, PathBuf)>> {
    let mut v: Vec<(usize, String, PathBuf)> = translatable(cfg)?
        .into_iter()
        .map(|(n, p)| {
            let size = std::fs::read(&p).ok().and_then(|b| hx_benches::synth::instruction_count(&b).ok()).unwrap_or(usize::MAX);
            (size, n, p)
        })
        .collect();
    v.sort();
    Ok(v.into_iter().map(|(_, n, p)| (n, p)).collect())
}

fn cold_warm(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "Each object in a fresh process (`hx-bench-report cold`), for gfx942. *Process*: spawn to exit of a \
process that translates the object once (`hx-bench-report once`, median of 3); *empty process*: the same \
executable (libLLVM loaded) doing nothing. *First*: the first `translate` call of the process (includes LLVM's one-time target initialisation \
and every first-use cost). *First after prewarm*: the same in another process that first ran `hotswap::prewarm` on a thread of its own (what a \
runtime that prewarms at start-up sees). *Second* and *warm*: the next call and the median of the calls after it. \
*New thread's first*: then a translation on a thread that has not translated before (target machines are shared \
by all threads). *Cache miss*: \
a translation through hx-cache with an empty cache directory (key, lookup, translate, atomic write), on the thread of the \
warm runs. *Cache hit*: \
the median of later lookups of the same key (SHA-256 key of the input and options, read, verify) - no \
translation runs.\n"
    );
    let runs = if cfg.quick { 1 } else { 3 };
    let empty = process_ms(&["noop".as_ref()], runs)?;
    let _ = writeln!(out, "Empty process: {empty:.1} ms.\n");
    let _ = writeln!(out, "| object | process ms | first ms | first after prewarm ms | second ms | warm ms | new thread's first ms | cache miss ms | cache hit ms |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let list = translatable(cfg)?;
    let (mut hits, mut firsts, mut warms) = (Vec::new(), Vec::new(), Vec::new());
    for (name, path) in list.iter().take(if cfg.quick { 1 } else { usize::MAX }) {
        let measured = run_cold_child(path, "gfx942").and_then(|(kv, _)| {
            let wall = process_ms(&["once".as_ref(), path.as_os_str(), "gfx942".as_ref()], runs)?;
            let prewarmed = run_child(&["prewarmed".as_ref(), path.as_os_str(), "gfx942".as_ref()])?;
            Ok((kv, wall, get(&prewarmed.0, "prewarmed_first_ms")))
        });
        match measured {
            Ok((kv, wall, prewarmed)) => {
                hits.push(get(&kv, "cache_hit_ms"));
                firsts.push((get(&kv, "first_ms"), prewarmed, name.clone()));
                warms.push(get(&kv, "warm_ms"));
                let _ = writeln!(
                    out,
                    "| {name} | {wall:.1} | {:.2} | {prewarmed:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.4} |",
                    get(&kv, "first_ms"),
                    get(&kv, "second_ms"),
                    get(&kv, "warm_ms"),
                    get(&kv, "new_thread_ms"),
                    get(&kv, "cache_miss_ms"),
                    get(&kv, "cache_hit_ms"),
                );
            }
            Err(e) => {
                let _ = writeln!(out, "| {name} | fails: {} | | | | | | | |", short(&e));
            }
        }
    }
    let _ = writeln!(out, "\nTarget: cache hit under 1 ms.\n");
    if let Some(max_hit) = hits.iter().copied().reduce(f64::max) {
        // The object with the fastest warm translation stands for small objects.
        let i = (0..warms.len()).min_by(|&a, &b| warms[a].total_cmp(&warms[b])).unwrap_or(0);
        cfg.headline.borrow_mut().push(format!(
            "Cold/warm ({}): first translation in a process {:.1} ms ({:.1} ms after hotswap::prewarm), warm {:.1} ms; cache hit at most {max_hit:.3} ms over all objects (target under 1 ms).",
            firsts[i].2, firsts[i].0, firsts[i].1, warms[i]
        ));
    }
    Ok(())
}

fn cold_child(file: &Path, target: &str) -> Result<()> {
    let rss0 = hx_benches::measure::peak_rss_kib().unwrap_or(0);
    let bytes = std::fs::read(file)?;
    let o = Options { target: GpuTarget::from_cpu(target).context("target")?, ..Default::default() };
    let p = pool(1)?;
    let t = Instant::now();
    translate_on(&p, &bytes, &o)?;
    let first = t.elapsed();
    let rss1 = hx_benches::measure::peak_rss_kib().unwrap_or(0);
    let t = Instant::now();
    translate_on(&p, &bytes, &o)?;
    let second = t.elapsed();
    let warm = sample(0, 5, 50, Duration::from_millis(500), || Ok(translate_on(&p, &bytes, &o)?))?;
    let rss2 = hx_benches::measure::peak_rss_kib().unwrap_or(0);
    // A new thread's first translation (a pool of its own): the target machine is the one the
    // other thread used, taken from the process-wide pool.
    let t = Instant::now();
    translate_on(&pool(1)?, &bytes, &o)?;
    let new_thread = t.elapsed();
    let dir = std::env::temp_dir().join(format!("hx-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = hx_cache::Cache::new(&dir, hx_cache::Mode::ReadWrite);
    // On the pool of the warm runs: a miss is then a warm translation plus the cache's own work,
    // not also the first translation of a new thread (its own context and target machine).
    let t = Instant::now();
    let (_, hit) = p.install(|| hx_benches::measure::translate_cached(&cache, &bytes, &o))?;
    let miss = t.elapsed();
    if hit {
        bail!("the first cached translation hit an empty cache");
    }
    let hits = sample(5, 20, 1000, Duration::from_millis(200), || {
        let (v, hit) = hx_benches::measure::translate_cached(&cache, &bytes, &o)?;
        if !hit {
            bail!("cache lookup missed after a store");
        }
        Ok(v)
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    let f = |d: Duration| d.as_secs_f64() * 1e3;
    println!("first_ms {}", f(first));
    println!("second_ms {}", f(second));
    println!("warm_ms {}", f(warm.median()));
    println!("new_thread_ms {}", f(new_thread));
    println!("cache_miss_ms {}", f(miss));
    println!("cache_hit_ms {}", f(hits.median()));
    println!("hwm_start_kib {rss0}");
    println!("hwm_first_kib {rss1}");
    println!("hwm_after_kib {rss2}");
    Ok(())
}

fn decode(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "Every corpus instruction the decoder handles, per target, as one byte stream; both decoders read the \
same bytes. *Decode only*: `hotswap::isa::decode_into` per instruction (one instruction slot reused, as LLVM \
fills one `MCInst`). *Decode*: the same plus reading every operand's value and field (structured result). \
*Decode+text*: the same plus printing the instruction as assembly text. *LLVM*: LLVM's AMDGPU disassembler \
through LLVM-C (`LLVMDisasmInstruction`, which always prints text). The four run in turn, two passes each per \
round of which the second is timed (the first warms the caches after the others' passes), so load from \
elsewhere falls on all alike; times are medians over rounds. Ratio = LLVM time / \
hotswap-xlate time: the median of the per-round ratios, and the ratio of the fastest passes (target: at \
least 50x).\n"
    );
    let _ = writeln!(out, "| target | instructions | rounds | decode only ns/inst | decode ns/inst | decode+text ns/inst | LLVM ns/inst | ratio (decode only) | fastest passes (decode only) | ratio (decode) | ratio (decode+text) |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut dr = Vec::new();
    for target in hotswap::isa::Target::ALL {
        let code = hx_benches::decodable_corpus_code(target);
        let n = hotswap::isa::decode_all(target, &code).map(|v| v.len()).unwrap_or(0);
        if n == 0 {
            continue;
        }
        // One instruction slot reused (`decode_into`), as LLVM's disassembler fills one MCInst.
        let slot = std::cell::RefCell::new(hotswap::isa::Instruction::empty(target));
        let mut only = || -> Result<usize> {
            let mut i = slot.borrow_mut();
            let mut at = 0;
            while at < code.len() {
                hotswap::isa::decode_into(target, &code, at, &mut i)?;
                // The whole result stays observable.
                at += std::hint::black_box(&*i).len as usize;
            }
            Ok(at)
        };
        let mut dec = || -> Result<usize> {
            let mut i = slot.borrow_mut();
            let (mut at, mut k) = (0, 0usize);
            while at < code.len() {
                hotswap::isa::decode_into(target, &code, at, &mut i)?;
                at += i.len as usize;
                k += i.operands().map(|o| o.raw as usize + matches!(o.value, hotswap::isa::Operand::Reg(_)) as usize).sum::<usize>();
            }
            Ok(k)
        };
        let mut text = || -> Result<usize> {
            let mut i = slot.borrow_mut();
            let (mut at, mut k) = (0, 0usize);
            while at < code.len() {
                hotswap::isa::decode_into(target, &code, at, &mut i)?;
                at += i.len as usize;
                k += i.text().len();
            }
            Ok(k)
        };
        let mut llvm = hx_llvm::Disassembler::new(hx_llvm::GpuTarget::from_cpu(target.cpu()).context("target")?)?;
        let mut lv = || -> Result<usize> {
            let (mut at, mut k) = (0, 0usize);
            while at < code.len() {
                let (len, t) = llvm.decode(&code[at..], at as u64).context("LLVM failed to decode")?;
                at += len;
                k += t.len();
            }
            Ok(k)
        };
        let (lo, hi, budget) = if cfg.quick { (1, 1, std::time::Duration::ZERO) } else { (20, 2000, std::time::Duration::from_millis(3000)) };
        let s = hx_benches::measure::interleaved(lo, hi, budget, &mut [&mut only, &mut dec, &mut text, &mut lv])?;
        let [only, dec, text, l] = &s[..] else { bail!("four samples") };
        let per = |s: &Sample| s.median().as_secs_f64() * 1e9 / n as f64;
        let r_only = hx_benches::measure::median_ratio(l, only);
        let fastest = l.min().as_secs_f64() / only.min().as_secs_f64().max(1e-12);
        dr.push(format!("{} {:.0}x (fastest passes {:.0}x)", target.cpu(), r_only, fastest));
        let _ = writeln!(
            out,
            "| {} | {n} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0}x | {:.0}x | {:.0}x | {:.0}x |",
            target.cpu(),
            l.times.len(),
            per(only),
            per(dec),
            per(text),
            per(l),
            r_only,
            fastest,
            hx_benches::measure::median_ratio(l, dec),
            hx_benches::measure::median_ratio(l, text)
        );
    }
    cfg.headline.borrow_mut().push(format!("Decode (decode only) against LLVM's disassembler: {} (target 50x).", dr.join(", ")));
    let _ = writeln!(out);
    Ok(())
}

fn scaling(cfg: &Cfg, out: &mut String) -> Result<()> {
    let work = cfg.work.join("synth");
    let o = gfx942();
    let pools = [(1, pool(1)?), (2, pool(2)?)];
    let _ = writeln!(
        out,
        "Generated gfx1250 objects (`hx_benches::synth`: saxpy-like kernels, built in-process and linked with \
rust-lld like the corpus), translated for gfx942 inside a rayon pool of 1 and 2 threads. Median ms.\n"
    );
    let _ = writeln!(out, "| kernels | gfx1250 instructions | 1 thread ms | 2 threads ms | ms per kernel (1 thread) | speed-up |");
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|");
    let counts: &[usize] = if cfg.quick { &[1, 8] } else { &[1, 8, 64] };
    let mut last_speedup = f64::NAN;
    let mut per_kernel = Vec::new();
    for &k in counts {
        let bytes = hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(k, 0), &format!("k{k}"), &work)?;
        let insts = hx_benches::synth::instruction_count(&bytes)?;
        let mut t = Vec::new();
        for (_, p) in &pools {
            t.push(cfg.sample(1500, || Ok(translate_on(p, &bytes, &o)?))?.median());
        }
        last_speedup = t[0].as_secs_f64() / t[1].as_secs_f64();
        per_kernel.push(format!("{k}: {} ms", ms(t[0])));
        let _ = writeln!(
            out,
            "| {k} | {insts} | {} | {} | {} | {:.2}x |",
            ms(t[0]),
            ms(t[1]),
            ms(t[0] / k as u32),
            t[0].as_secs_f64() / t[1].as_secs_f64()
        );
    }
    if last_speedup < 1.2 {
        let _ = writeln!(
            out,
            "\n2 threads gave no real speed-up ({last_speedup:.2}x on the largest object): the translation ran its kernels sequentially."
        );
    }
    cfg.headline.borrow_mut().push(format!(
        "Scaling (kernels per object, 1 thread): {}; 2 threads: {last_speedup:.2}x on the largest.",
        per_kernel.join(", ")
    ));
    let _ = writeln!(
        out,
        "\nCost against kernel size: one kernel with a dependent chain of N extra fused multiply-adds (one \
instruction each), 1 thread.\n"
    );
    let _ = writeln!(out, "| chain | gfx1250 instructions | ms | us per instruction | gfx942 instructions out |");
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|");
    let chains: &[usize] = if cfg.quick { &[0, 16] } else { &[0, 64, 256, 1024, 4096] };
    for &c in chains {
        let bytes = hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(1, c), &format!("c{c}"), &work)?;
        let insts = hx_benches::synth::instruction_count(&bytes)?;
        let out_bytes = match translate_on(&pools[0].1, &bytes, &o) {
            Ok(b) => b,
            Err(e) => {
                let _ = writeln!(out, "| {c} | {insts} | fails: {} | | |", short(&e));
                continue;
            }
        };
        let s = cfg.sample(1500, || Ok(translate_on(&pools[0].1, &bytes, &o)?))?;
        let _ = writeln!(
            out,
            "| {c} | {insts} | {} | {:.1} | {} |",
            ms(s.median()),
            s.median().as_secs_f64() * 1e6 / insts as f64,
            hx_benches::synth::instruction_count(&out_bytes)?
        );
    }
    let _ = writeln!(out);
    Ok(())
}

fn quality(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "Every launch of every corpus object that translates, run in the emulator on the translation and on the \
native build of the same corpus IR for that target (`corpus/<target>/<name>.hsaco`), inputs from seed 11. \
Dynamic counts are wave-instructions executed; ratio = translated / native (1.00 = as good as native). \
Registers are the kernels' `.vgpr_count` / `.sgpr_count` metadata.\n"
    );
    let _ = writeln!(out, "| target | object/kernel | native insts | translated insts | ratio | VGPRs native/translated | SGPRs native/translated |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|");
    let mut summary = String::new();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let o = Options { target, ..Default::default() };
        let mut ratios = Vec::new();
        for obj in hx_corpus::objects()?.into_iter().filter(|o| o.builds_for("gfx1250") && o.builds_for(target.cpu()) && cfg.measures(&o.name)) {
            let src = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name)))?;
            let native = std::fs::read(hx_corpus::corpus_dir().join(target.cpu()).join(format!("{}.hsaco", obj.name)))?;
            let Ok(tr) = hotswap::translate(&src, &o) else { continue };
            for (li, l) in obj.launches.iter().enumerate() {
                let label = if obj.launches.len() > 1 {
                    format!("{}/{} (launch {})", obj.name, l.kernel, li + 1)
                } else {
                    format!("{}/{}", obj.name, l.kernel)
                };
                let (n, t) = match (hx_benches::quality::run_launch(&native, l, 11), hx_benches::quality::run_launch(&tr.bytes, l, 11)) {
                    (Ok(n), Ok(t)) => (n, t),
                    (Err(e), _) => {
                        let _ = writeln!(out, "| {target} | {label} | native does not run: {} | | | | |", short(&e));
                        continue;
                    }
                    (_, Err(e)) => {
                        let _ = writeln!(out, "| {target} | {label} | translation does not run: {} | | | | |", short(&e));
                        continue;
                    }
                };
                let (nv, ns) = hx_benches::quality::registers(&native, &l.kernel)?;
                let (tv, ts) = hx_benches::quality::registers(&tr.bytes, &l.kernel)?;
                let r = t.wave_instructions as f64 / n.wave_instructions as f64;
                ratios.push((r, label.clone()));
                let _ = writeln!(
                    out,
                    "| {target} | {label} | {} | {} | {r:.2} | {nv}/{tv} | {ns}/{ts} |",
                    n.wave_instructions, t.wave_instructions
                );
            }
        }
        if !ratios.is_empty() {
            ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
            let med = ratios[ratios.len() / 2].0;
            let (worst, wl) = &ratios[ratios.len() - 1];
            let _ = writeln!(
                summary,
                "- {target}: {} launches; dynamic instruction ratio median {med:.2}, worst {worst:.2} ({wl}).",
                ratios.len()
            );
            cfg.headline.borrow_mut().push(format!(
                "Code quality, {target}: translated/native dynamic instructions median {med:.2}, worst {worst:.2} ({wl}; {} launches).",
                ratios.len()
            ));
        }
    }
    let _ = writeln!(out, "\n{summary}");
    Ok(())
}

fn wmma_quality(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "The WMMA corpus kernels use gfx1250-only intrinsics: no native gfx942/gfx950 build of their IR exists, so \
they are measured against the gfx1250 original instead. Each launch runs in the emulator (inputs from seed 11) on \
the original (wave32) and on the translation with each WMMA lowering (`--wmma mfma`, the default, and \
`--wmma cross-lane`). *insts* are wave-instructions executed; *per wave* = (translated instructions per wave64) / \
(original instructions per wave32): a gfx942/gfx950 wave carries up to two gfx1250 waves, so this is the length of \
the translated instruction stream against the original one. *MFMAs* counts the translation's v_mfma instructions (static). VGPRs from the metadata (arch VGPRs; AGPRs \
not included).\n"
    );
    let _ = writeln!(out, "| target | object/kernel | gfx1250 insts | MFMA path insts | per wave | MFMAs | cross-lane insts | per wave | VGPRs gfx1250/MFMA/cross-lane |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        for obj in hx_corpus::objects()?.into_iter().filter(|o| o.builds_for("gfx1250") && !o.builds_for(target.cpu()) && cfg.measures(&o.name)) {
            let src = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name)))?;
            if !hx_benches::synth::has_wmma(&src)? {
                continue;
            }
            let label = |l: &hx_corpus::Launch| format!("{}/{}", obj.name, l.kernel);
            let mfma = hotswap::translate(&src, &Options { target, wmma: hotswap::WmmaLowering::Mfma, ..Default::default() });
            let cross = hotswap::translate(&src, &Options { target, wmma: hotswap::WmmaLowering::CrossLane, ..Default::default() });
            let (mfma, cross) = match (mfma, cross) {
                (Ok(m), Ok(c)) => (m.bytes, c.bytes),
                (Err(e), _) | (_, Err(e)) => {
                    let _ = writeln!(out, "| {target} | {} | fails: {} | | | | | | |", obj.name, short(&e));
                    continue;
                }
            };
            let mfmas = hx_benches::quality::static_count(&mfma, "v_mfma")?;
            for l in &obj.launches {
                let s = hx_benches::quality::run_launch(&src, l, 11)?.wave_instructions;
                let m = hx_benches::quality::run_launch(&mfma, l, 11)?.wave_instructions;
                let c = hx_benches::quality::run_launch(&cross, l, 11)?.wave_instructions;
                let (sv, _) = hx_benches::quality::registers(&src, &l.kernel)?;
                let (mv, _) = hx_benches::quality::registers(&mfma, &l.kernel)?;
                let (cv, _) = hx_benches::quality::registers(&cross, &l.kernel)?;
                let groups: u64 = (0..3).map(|i| (l.grid[i] / l.block[i].max(1)) as u64).product();
                let threads: u64 = l.block.iter().map(|&b| b as u64).product();
                let (waves32, waves64) = (groups * threads.div_ceil(32), groups * threads.div_ceil(64));
                let pair = |t: u64| (t as f64 / waves64 as f64) / (s as f64 / waves32 as f64);
                let _ = writeln!(
                    out,
                    "| {target} | {} | {s} | {m} | {:.2} | {mfmas} | {c} | {:.2} | {sv}/{mv}/{cv} |",
                    label(l),
                    pair(m),
                    pair(c)
                );
            }
        }
    }
    let _ = writeln!(out);
    Ok(())
}

fn peak_memory(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "Peak resident set size (VmHWM) of a fresh process (`hx-bench-report cold`) translating one object for \
gfx942: at start (libLLVM loaded, nothing run), after its first translation, and after the warm and cached runs \
that follow. *Translation* = after first - at start.\n"
    );
    let _ = writeln!(out, "| object | at start MiB | after first translation MiB | after all runs MiB | translation MiB |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    let mut list = translatable(cfg)?;
    if !cfg.quick {
        let work = cfg.work.join("synth");
        let p = work.join("k64.hsaco");
        std::fs::write(&p, hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(64, 0), "k64", &work)?)?;
        list.push(("synthetic, 64 kernels".into(), p));
    } else {
        list.truncate(1);
    }
    let mut peaks = Vec::new();
    for (name, path) in &list {
        match run_cold_child(path, "gfx942") {
            Ok((kv, _)) => {
                let m = |k: &str| get(&kv, k) / 1024.0;
                peaks.push(m("hwm_first_kib"));
                let _ = writeln!(
                    out,
                    "| {name} | {:.1} | {:.1} | {:.1} | {:.1} |",
                    m("hwm_start_kib"),
                    m("hwm_first_kib"),
                    m("hwm_after_kib"),
                    m("hwm_first_kib") - m("hwm_start_kib")
                );
            }
            Err(e) => {
                let _ = writeln!(out, "| {name} | fails: {} | | | |", short(&e));
            }
        }
    }
    if let Some(p) = peaks.iter().copied().reduce(f64::max) {
        cfg.headline.borrow_mut().push(format!("Peak memory: at most {p:.1} MiB resident for a process with one translation."));
    }
    let _ = writeln!(out);
    Ok(())
}

fn breakdown(cfg: &Cfg, out: &mut String) -> Result<()> {
    use hx_llvm::{inkwell::context::Context, OptLevel};
    let _ = writeln!(
        out,
        "The stages of a translation for gfx942, timed apart on the raised IR of each object that translates \
(median ms). *Raise*: decode and raise to IR text (`hotswap::translate::raised_ir`). *Target machine*: creating \
one gfx942 target machine (`GpuTarget::target_machine`); a warm translation creates none (the lowering takes one from the \
process's pool, the raiser reads the data layout made once per process). *Parse*: IR text into a fresh context. *Lower, new TM*: parse, then the raised-IR O2 \
pipeline and backend with a new target machine, as `hx_lower::lower` does per call. *Lower, reused TM*: the same \
with one target machine made once and kept (what the pool of target machines gives). Saving = what reusing \
the target machine saves per translation.\n"
    );
    let _ = writeln!(out, "| object | translate ms | raise ms | target machine ms | parse ms | lower, new TM ms | lower, reused TM ms | saving |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    let o = gfx942();
    let p1 = pool(1)?;
    let tm = GpuTarget::Gfx942.target_machine(OptLevel::O2)?;
    for (name, path) in translatable(cfg)? {
        let bytes = std::fs::read(&path)?;
        let ir = hotswap::translate::raised_ir(&bytes, &o)?;
        let tr = cfg.sample(800, || Ok(translate_on(&p1, &bytes, &o)?))?.median();
        let raise = cfg.sample(300, || Ok(hotswap::translate::raised_ir(&bytes, &o)?))?.median();
        let tmt = cfg.sample(300, || Ok(GpuTarget::Gfx942.target_machine(OptLevel::O2)?))?.median();
        let parse = cfg.sample(300, || {
            let ctx = Context::create();
            let m = hx_llvm::parse_ir(&ctx, &ir, &name)?;
            Ok(m.get_first_function().is_some())
        })?
        .median();
        let fresh = cfg.sample(800, || {
            let ctx = Context::create();
            let m = hx_llvm::parse_ir(&ctx, &ir, &name)?;
            Ok(lower_raised(&m, &name, &GpuTarget::Gfx942.target_machine(OptLevel::O2)?)?)
        })?
        .median();
        let reused = cfg.sample(800, || {
            let ctx = Context::create();
            let m = hx_llvm::parse_ir(&ctx, &ir, &name)?;
            Ok(lower_raised(&m, &name, &tm)?)
        })?
        .median();
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {:.0}% |",
            ms(tr),
            ms(raise),
            ms(tmt),
            ms(parse),
            ms(fresh),
            ms(reused),
            100.0 * (fresh.as_secs_f64() - reused.as_secs_f64()) / tr.as_secs_f64()
        );
    }
    let _ = writeln!(
        out,
        "\nSaving counts the lowering's target machine (new minus reused), relative to the whole translation.\n"
    );
    Ok(())
}

/// Instructions executed by `cmd ARGS` under callgrind (its `I refs` line).
fn callgrind_ir(cmd: &Path, args: &[&std::ffi::OsStr]) -> Result<u64> {
    callgrind_to(cmd, args, Path::new("/dev/null"))
}

/// [`callgrind_ir`], keeping callgrind's profile in `profile` for [`inclusive_costs`].
fn callgrind_to(cmd: &Path, args: &[&std::ffi::OsStr], profile: &Path) -> Result<u64> {
    let o = std::process::Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", profile.display()))
        .arg(cmd)
        .args(args)
        .output()
        .context("running valgrind")?;
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        bail!("valgrind {} failed: {}", cmd.display(), err.lines().last().unwrap_or(""));
    }
    let line = err.lines().find(|l| l.contains("I   refs:") || l.contains("I refs:")).context("no I refs line from callgrind")?;
    Ok(line.rsplit(':').next().unwrap_or("").trim().replace(',', "").parse()?)
}

/// The stages of a warm translation as functions whose inclusive instruction counts callgrind
/// reports: (label, the function's name as callgrind_annotate prints it, up to its end or `(`).
const PHASES: &[(&str, &str)] = &[
    ("raise", "hx_raise::ir::raise_program_with"),
    ("IR verifier", "llvm::verifyModule("),
    ("middle end", "LLVMRunPasses"),
    ("backend: build pass pipeline", "llvm::CodeGenTargetMachineImpl::addPassesToEmitFile("),
    ("backend: run it", "llvm::legacy::PassManager::run(llvm::Module&)"),
    ("backend: free it", "llvm::legacy::PassManager::~PassManager()"),
    ("relink", "hotswap::translate::link"),
];

/// Inclusive instruction counts per function of a callgrind profile, from
/// `callgrind_annotate --inclusive=yes`: (function, count).
fn inclusive_costs(profile: &Path) -> Result<Vec<(String, u64)>> {
    let o = std::process::Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(profile)
        .output()
        .context("running callgrind_annotate")?;
    if !o.status.success() {
        bail!("callgrind_annotate {} failed: {}", profile.display(), String::from_utf8_lossy(&o.stderr).trim());
    }
    Ok(parse_inclusive(&String::from_utf8_lossy(&o.stdout)))
}

/// The function lines of callgrind_annotate's output: `COUNT (PCT%)  FILE:FUNCTION [OBJECT]`, the
/// count with thousands separators.
fn parse_inclusive(text: &str) -> Vec<(String, u64)> {
    let mut v = Vec::new();
    for line in text.lines() {
        let Some((count, rest)) = line.trim_start().split_once(' ') else { continue };
        let Ok(count) = count.replace(',', "").parse::<u64>() else { continue };
        let Some((_, rest)) = rest.trim_start().split_once(")  ") else { continue };
        let Some((_, function)) = rest.split_once(':') else { continue };
        let function = function.rsplit_once(" [").map_or(function, |(f, _)| f);
        v.push((function.to_string(), count));
    }
    v
}

/// The inclusive count of the function `name` names (see [`PHASES`]): the largest among its
/// entries, leaving out the cycle (`'2`) and outlined (`[clone`) parts callgrind lists apart.
fn phase_cost(costs: &[(String, u64)], name: &str) -> Option<u64> {
    costs
        .iter()
        .filter(|(f, _)| match f.strip_prefix(name) {
            // A name given up to `(` or with its whole signature matches as a prefix; a bare
            // name only as itself (`link`, not `link_objects`).
            Some(tail) => name.ends_with(['(', ')']) || tail.is_empty() || tail.starts_with('('),
            None => false,
        })
        .filter(|(f, _)| !f.contains('\'') && !f.contains("[clone"))
        .map(|(_, c)| *c)
        .max()
}

fn callgrind(cfg: &Cfg, out: &mut String) -> Result<()> {
    if cfg.quick {
        let _ = writeln!(out, "Skipped with --quick.\n");
        return Ok(());
    }
    if std::process::Command::new("valgrind").arg("--version").output().is_err() {
        let _ = writeln!(out, "valgrind is not installed: skipped.\n");
        return Ok(());
    }
    let _ = writeln!(
        out,
        "Instructions executed (valgrind --tool=callgrind `I refs`): repeatable where wall time on a shared \
machine is not. *Warm in-process*: (instructions of `hx-bench-report loop FILE 4` - those of `loop FILE 1`) / 3, \
one warm translation. *Cold process*: `hx-bench-report once FILE gfx942`, the whole process. *hx-llc* and \
*rust-lld*: the two processes of the shell-out pipeline on the same raised IR (user-space instructions only: the \
kernel's process creation and page faults are not counted, so this understates the shell-out cost).\n"
    );
    let _ = writeln!(out, "| object | warm in-process | cold process | hx-llc process | rust-lld process | shell-out processes / warm in-process |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    let me = std::env::current_exe()?;
    let llc = hx_benches::shellout::find_llc()?;
    let lld = xtask::corpus::rust_lld()?;
    // Every run under callgrind pays some seconds of libLLVM loading: the two smallest objects
    // without matrix instructions (a WMMA's lowering, not the object's size, dominates those).
    let list: Vec<_> = translatable_by_size(cfg)?
        .into_iter()
        .filter(|(_, p)| !std::fs::read(p).ok().and_then(|b| hx_benches::synth::has_wmma(&b).ok()).unwrap_or(true))
        .collect();
    let m = |n: u64| format!("{:.1} M", n as f64 / 1e6);
    let dir = cfg.work.join("callgrind");
    std::fs::create_dir_all(&dir)?;
    // Per object: the warm translation's instructions in each of PHASES.
    let mut phases: Vec<(String, u64, Vec<Option<u64>>)> = Vec::new();
    for (name, path) in list.iter().take(2) {
        let p = path.as_os_str();
        let (a, b) = (1, 4);
        let (pa, pb) = (dir.join(format!("{name}.{a}.callgrind")), dir.join(format!("{name}.{b}.callgrind")));
        let one = callgrind_to(&me, &["loop".as_ref(), p, a.to_string().as_ref()], &pa)?;
        let many = callgrind_to(&me, &["loop".as_ref(), p, b.to_string().as_ref()], &pb)?;
        let warm = many.saturating_sub(one) / (b - a) as u64;
        let (ca, cb) = (inclusive_costs(&pa)?, inclusive_costs(&pb)?);
        let per: Vec<Option<u64>> = PHASES
            .iter()
            .map(|(_, f)| Some(phase_cost(&cb, f)?.saturating_sub(phase_cost(&ca, f).unwrap_or(0)) / (b - a) as u64))
            .collect();
        phases.push((name.clone(), warm, per));
        let cold = callgrind_ir(&me, &["once".as_ref(), p, "gfx942".as_ref()])?;
        let ll = dir.join(format!("{name}.ll"));
        let obj = dir.join(format!("{name}.o"));
        let hsaco = dir.join(format!("{name}.hsaco"));
        std::fs::write(&ll, hotswap::translate::raised_ir(&std::fs::read(path)?, &gfx942())?)?;
        let c = callgrind_ir(&llc, &[ll.as_os_str(), "-mcpu=gfx942".as_ref(), "-O2".as_ref(), "-o".as_ref(), obj.as_os_str()])?;
        let l = callgrind_ir(
            &lld,
            &["-flavor".as_ref(), "gnu".as_ref(), "-shared".as_ref(), "--no-undefined".as_ref(), "-o".as_ref(), hsaco.as_os_str(), obj.as_os_str()],
        )?;
        let _ = writeln!(out, "| {name} | {} | {} | {} | {} | {:.1}x |", m(warm), m(cold), m(c), m(l), (c + l) as f64 / warm as f64);
        cfg.headline.borrow_mut().push(format!(
            "Callgrind, {name}: a warm in-process translation executes {}, the shell-out processes {} + {} (user space only): the shell-out's extra wall time is process creation and loading, not instructions.",
            m(warm),
            m(c),
            m(l)
        ));
    }
    phase_table(cfg, out, &phases);
    if let Some((name, path)) = list.first() {
        let p = path.as_os_str();
        let per = |mode: &str| -> Result<u64> {
            let one = callgrind_ir(&me, &["lower-loop".as_ref(), p, "1".as_ref(), mode.as_ref()])?;
            let four = callgrind_ir(&me, &["lower-loop".as_ref(), p, "4".as_ref(), mode.as_ref()])?;
            Ok(four.saturating_sub(one) / 3)
        };
        let (new, reused) = (per("new")?, per("reused")?);
        let _ = writeln!(
            out,
            "\nTarget machine per lowering ({name}, `hx-bench-report lower-loop`, instructions per warm lowering of the \
raised IR: parse, O2 pipeline, backend): new target machine each time {}, one target machine kept {} \
({:.0}% fewer). Part of the difference is LLVM's per-target-machine caches (subtarget, register info, \
register aliases) rebuilt for every new target machine.\n",
            m(new),
            m(reused),
            100.0 * (new as f64 - reused as f64) / new as f64
        );
        cfg.headline.borrow_mut().push(format!(
            "Target machine reuse ({name}, callgrind): a warm lowering executes {} with a new target machine, {} with one kept ({:.0}% fewer).",
            m(new),
            m(reused),
            100.0 * (new as f64 - reused as f64) / new as f64
        ));
    }
    let _ = writeln!(out);
    Ok(())
}

/// Writes where the warm translations' instructions go (see [`PHASES`]), and a summary line.
fn phase_table(cfg: &Cfg, out: &mut String, phases: &[(String, u64, Vec<Option<u64>>)]) {
    let _ = writeln!(
        out,
        "\nWhere a warm translation's instructions go: callgrind's inclusive count of the function that does each \
stage, in the same two profiles ((`loop FILE 4` - `loop FILE 1`) / 3). *Backend*: `LLVMTargetMachineEmitToMemoryBuffer`, \
which builds LLVM's legacy codegen pass pipeline (about 200 passes; the C API has no way to keep one), runs it on \
the module and frees it, on every call. *Rest*: what no stage counts (code object parsing, contexts, the \
diagnostics, the runtime).\n"
    );
    let _ = write!(out, "| object | warm translation |");
    for (label, _) in PHASES {
        let _ = write!(out, " {label} |");
    }
    let _ = writeln!(out, " rest |");
    let _ = writeln!(out, "|---|---:|{}---:|", "---:|".repeat(PHASES.len()));
    let m = |n: u64| format!("{:.1} M", n as f64 / 1e6);
    for (name, warm, per) in phases {
        let pct = |n: u64| 100.0 * n as f64 / (*warm).max(1) as f64;
        let _ = write!(out, "| {name} | {} |", m(*warm));
        for c in per {
            match c {
                Some(c) => { let _ = write!(out, " {} ({:.0}%) |", m(*c), pct(*c)); }
                None => { let _ = write!(out, " not found |"); }
            }
        }
        let counted: u64 = per.iter().flatten().sum();
        let _ = writeln!(out, " {} ({:.0}%) |", m(warm.saturating_sub(counted)), pct(warm.saturating_sub(counted)));
        let at = |label: &str| PHASES.iter().position(|(l, _)| *l == label).and_then(|i| per[i]);
        if let (Some(build), Some(run), Some(free), Some(mid)) = (at("backend: build pass pipeline"), at("backend: run it"), at("backend: free it"), at("middle end")) {
            let ours: u64 = ["raise", "IR verifier", "relink"].iter().filter_map(|l| at(l)).sum();
            cfg.headline.borrow_mut().push(format!(
                "Callgrind, {name}: of a warm translation's {}, LLVM's backend executes {:.0}% (building and freeing its pass pipeline {:.0}%), its middle end {:.0}%; raising, verifying and relinking {:.0}%.",
                m(*warm),
                pct(build + run + free),
                pct(build + free),
                pct(mid),
                pct(ours)
            ));
        }
    }
    let _ = writeln!(out);
}

/// Objects section 1b measures: the small ones and two larger ones the issue names.
fn real_shellout_objects(cfg: &Cfg) -> Result<Vec<(String, Vec<u8>, usize)>> {
    Ok(corpus_gfx1250(cfg)?
        .into_iter()
        .filter_map(|(n, b)| {
            let insts = hx_benches::synth::instruction_count(&b).unwrap_or(usize::MAX);
            (insts <= SMALL_OBJECT || n == "lds_bitonic" || n == "wmma_fp8").then_some((n, b, insts))
        })
        .collect())
}

/// Median of `runs` runs of `f`, in ms.
fn median_ms(runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let mut t = Vec::new();
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        f()?;
        t.push(started.elapsed().as_secs_f64() * 1e3);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

fn range(v: &[f64]) -> String {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match (v.first(), v.last()) {
        (Some(a), Some(b)) => format!("{a:.1}-{b:.1}x"),
        _ => "none".into(),
    }
}

fn real_shellout(cfg: &Cfg, out: &mut String) -> Result<()> {
    let real = match hx_benches::shellout::RealTools::find(&cfg.work.join("real")) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "Not measured on this machine: {e:#}.\n");
            return Ok(());
        }
    };
    let shell = hx_benches::shellout::ShellOut::new(hx_benches::shellout::find_llc()?, &cfg.work.join("shellout1b"))?;
    let p1 = pool(1)?;
    let o = gfx942();
    let version = std::process::Command::new(&real.llc).arg("--version").output().ok().and_then(|o| {
        String::from_utf8_lossy(&o.stdout).lines().find(|l| l.contains("LLVM version")).map(|l| l.trim().to_string())
    });
    let _ = writeln!(
        out,
        "The pipeline AMD's HotSwap shells out to, with the real tools ({}): the raised IR (raised in-process, \
written to a file) goes through `opt-22 -O2`, `llc-22 -O2 -mcpu=gfx942 -filetype=obj` and `ld.lld-22 -shared` as \
three processes, and the code object is read back. Beside it, section 1's stand-in (`hx-llc` on the toolchain's \
libLLVM, then rust-lld) and the in-process translation. The three run in turn, each twice per round and the second \
run timed (`hx_benches::measure::interleaved`), so load from elsewhere falls on all alike; ratios are medians \
of per-round ratios. *Process*: whole processes, median of 3: a `hotswap-xlate`-like process translating the \
object (`hx-bench-report once`) against a process raising it (`hx-bench-report raise`) followed by the three \
tools. Objects: the small ones (at most {SMALL_OBJECT} gfx1250 instructions) and lds_bitonic, wmma_fp8.\n",
        version.as_deref().unwrap_or("version unknown")
    );
    let _ = writeln!(out, "| object | gfx1250 instructions | in-process ms | stand-in ms | real tools ms | real / in-process | stand-in / in-process | real / stand-in | process: ours ms | process: real ms | process ratio |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut small, mut large, mut standin, mut process) = (Vec::new(), Vec::<String>::new(), Vec::new(), Vec::new());
    let (min_rounds, budget) = if cfg.quick { (1, Duration::ZERO) } else { (5, Duration::from_millis(2500)) };
    for (name, bytes, insts) in real_shellout_objects(cfg)? {
        let ir = match hotswap::translate::raised_ir(&bytes, &o) {
            Ok(ir) => ir,
            Err(e) => {
                let _ = writeln!(out, "| {name} | {insts} | fails: {} | | | | | | | | |", short(&e));
                continue;
            }
        };
        if let Err(e) = real.compile_and_link(&ir, "gfx942") {
            let _ = writeln!(out, "| {name} | {insts} | | | fails: {} | | | | | | |", short(&e));
            continue;
        }
        let mut a = || Ok(translate_on(&p1, &bytes, &o)?.len());
        let mut b = || Ok(shell.translate(&bytes, &o)?.len());
        let mut c = || Ok(real.compile_and_link(&hotswap::translate::raised_ir(&bytes, &o)?, "gfx942")?.len());
        let s = hx_benches::measure::interleaved(min_rounds, 200, budget, &mut [&mut a, &mut b, &mut c])?;
        let (r_in, s_in, r_s) = (
            hx_benches::measure::median_ratio(&s[2], &s[0]),
            hx_benches::measure::median_ratio(&s[1], &s[0]),
            hx_benches::measure::median_ratio(&s[2], &s[1]),
        );
        if insts <= SMALL_OBJECT {
            small.push(r_in);
        } else {
            large.push(format!("{name} {r_in:.1}x"));
        }
        standin.push(r_s);
        let file = hx_corpus::corpus_dir().join("gfx1250").join(format!("{name}.hsaco"));
        let runs = if cfg.quick { 1 } else { 3 };
        let ours = process_ms(&[OsStr::new("once"), file.as_os_str(), OsStr::new("gfx942")], runs)?;
        let ll = real.work().join("process.ll");
        let theirs = median_ms(runs, || {
            let o = std::process::Command::new(std::env::current_exe()?).arg("raise").arg(&file).arg(&ll).output()?;
            if !o.status.success() {
                bail!("raise: {}", String::from_utf8_lossy(&o.stderr).trim());
            }
            real.compile_and_link(&std::fs::read_to_string(&ll)?, "gfx942")?;
            Ok(())
        })?;
        process.push(theirs / ours);
        let _ = writeln!(
            out,
            "| {name} | {insts} | {} | {} | {} | {r_in:.1}x | {s_in:.1}x | {r_s:.2}x | {ours:.1} | {theirs:.1} | {:.1}x |",
            ms(s[0].median()),
            ms(s[1].median()),
            ms(s[2].median()),
            theirs / ours
        );
    }
    let line = format!(
        "Real shell-out (opt-22, llc-22, ld.lld-22 processes) / warm in-process translation: small objects {} ({} of {} at 10x or more), {}; whole processes {}; the hx-llc stand-in of section 1 is {} faster than the real tools (real / stand-in), so section 1's ratios understate the real ones.",
        range(&small),
        small.iter().filter(|r| **r >= 10.0).count(),
        small.len(),
        large.join(", "),
        range(&process),
        range(&standin)
    );
    let _ = writeln!(out, "\n{line}\n");
    cfg.headline.borrow_mut().push(line);
    Ok(())
}

/// The objects of section 9: vgpr_high and the three largest other translatable objects (gfx1250
/// instructions); with `--quick`, saxpy.
fn big_objects(cfg: &Cfg) -> Result<Vec<(String, Vec<u8>, usize)>> {
    let o = gfx942();
    let mut v: Vec<(String, Vec<u8>, usize)> = Vec::new();
    let all = if cfg.quick {
        corpus_gfx1250(cfg)?
    } else {
        hx_corpus::objects()?
            .into_iter()
            .filter(|c| c.builds_for("gfx1250"))
            .filter_map(|c| {
                let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", c.name));
                std::fs::read(p).ok().map(|b| (c.name, b))
            })
            .collect()
    };
    for (n, b) in all {
        if hotswap::translate(&b, &o).is_ok() {
            let insts = hx_benches::synth::instruction_count(&b).unwrap_or(0);
            v.push((n, b, insts));
        }
    }
    if cfg.quick {
        v.retain(|(n, _, _)| n == "saxpy");
        return Ok(v);
    }
    v.sort_by_key(|(n, _, i)| (n != "vgpr_high", std::cmp::Reverse(*i)));
    v.truncate(4);
    Ok(v)
}

/// Section 12 (issue 29): `hx-scale` (the binary beside this one) over 1k..100k gfx1250
/// instructions of each generated shape; its table, and the growth of the time per instruction.
fn kernel_size_scaling(cfg: &Cfg, out: &mut String) -> Result<()> {
    let sizes = if cfg.quick { "1000,2000" } else { "1000,2000,5000,10000,20000,50000,100000" };
    let exe = std::env::current_exe()?.with_file_name("hx-scale");
    let profile = if cfg!(debug_assertions) { "debug" } else if exe.parent().and_then(|d| d.file_name()).is_some_and(|d| d == "release") { "release" } else { "this build's" };
    let _ = writeln!(
        out,
        "`hx-scale --instructions {sizes}` (benches/src/bin/hx-scale.rs, {profile} profile): one kernel per object, generated by `hx_benches::scale` and compiled for gfx1250 in-process: *straight-line*, a dependent FMA chain; *uniform branches*, `if (table[i] != 0)` volatile stores on a kernel-argument table (scalar loads and branches); *divergent ifs*, `if (in[tid*n+i] != 0)` volatile stores (the EXEC-mask if idiom). Each object is translated for gfx942 at O2 in a fresh child process on one thread after `hotswap::prewarm` (limits off); one run per size, so single figures carry the machine's noise: the growth down each shape is the figure. *Peak RSS growth* = VmHWM after the translation - VmHWM before it. The *ratio* lines: time per instruction at the largest size over that at the smallest (the issue's goal: within 2x from 1k to 100k).\n"
    );
    let o = std::process::Command::new(&exe)
        .args(["--instructions", sizes, "--timeout", "900"])
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !o.status.success() {
        bail!("hx-scale failed ({}): {}", o.status, String::from_utf8_lossy(&o.stderr));
    }
    let text = String::from_utf8(o.stdout)?;
    let mut ratios = Vec::new();
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("ratio ") {
            if ratios.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "- {r}");
            ratios.push(r.split(" (").next().unwrap_or(r).to_string());
        } else if !line.is_empty() {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(
        out,
        "\nWhat keeps it near linear (issue 29): kernels of more than {} blocks (as raised) are lowered as a kernel that \
calls parts of about {} blocks, internal `noinline` functions (hx_llvm::split_parts): StructurizeCFG's SSA update walks \
the dominator subtree below each if-region, in a chain of n ifs the rest of the function (n^2/2 block visits), and \
GVN's non-local dependencies and the machine passes' liveness grow the same way, so each pass must see bounded \
functions (Debian's llc-22 alone takes 1 s for 2,000 divergent ifs and 36 s for 10,000; split into functions of \
500, 0.5 s and 2.7 s). Values cross a cut through a private state array, or are recomputed in the part when they are \
the same everywhere (IDs, the kernarg segment, EXEC at the calls). Blocks longer than {} IR instructions are \
scheduled as regions of {} (`llvm.amdgcn.sched.barrier(i32 0)`, hx_llvm::sched_regions), and functions of more than \
{} blocks are lowered without `si-form-memory-clauses` (blocks x registers). Structure recovery keeps region bodies \
as sparse sets and finds where EXEC is known in sweeps in block order. Normal kernels are below every bound and \
compile as before (tests/tests/size_bounds.rs; tests/tests/split_parts.rs checks that split kernels compute what \
they did). What still grows is the straight-line shape's single block: EarlyCSE's and MachineCSE's hash tables and \
the uniformity analysis work on one ever larger block.\n",
        hx_llvm::split_parts::MIN_BLOCKS,
        hx_llvm::split_parts::PART_BLOCKS,
        hx_llvm::sched_regions::MIN_BLOCK,
        hx_llvm::sched_regions::REGION,
        hx_lower::MANY_BLOCKS
    );
    cfg.headline.borrow_mut().push(format!("Kernel-size scaling (time per instruction, largest / smallest size): {}.", ratios.join(", ")));
    Ok(())
}

fn big_kernels(cfg: &Cfg, out: &mut String) -> Result<()> {
    use hx_llvm::{inkwell::context::Context, Emit, OptLevel};
    let p1 = pool(1)?;
    let o = gfx942();
    let real = hx_benches::shellout::RealTools::find(&cfg.work.join("big")).ok();
    let _ = writeln!(
        out,
        "vgpr_high (300 values live at once) and the three largest other corpus objects, for gfx942. \
*Translation*: a warm in-process translation (`hotswap::translate`). *Native compile*: LLVM compiling the \
object's own source IR (corpus/kernels) in-process at O2 with a kept target machine; the two alternate \
(one warm-up each, then {} rounds). *llc-22*: Debian's `llc-22 -O2 -mcpu=gfx942 -filetype=obj` process on \
the source IR, median of 3 (when installed). Registers and spills from each kernel's metadata (`.vgpr_count` \
+ `.agpr_count`, `.vgpr_spill_count`): translated against the native build corpus/gfx942/<name>.hsaco. \
*Dynamic*: wave-instructions the emulator executes for the launch, translated / native. *CPU ms*: the \
process's user + system time over the same runs (median): on a shared machine the wall time also counts \
waiting for a core, the CPU time does not.\n",
        if cfg.quick { 1 } else { 3 }
    );
    let _ = writeln!(out, "| object | gfx1250 instructions | translation ms | native compile ms | translation / native | translation CPU ms | native CPU ms | llc-22 ms | VGPR+AGPR translated / native | VGPR spills translated / native | dynamic translated / native |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let tm = GpuTarget::Gfx942.target_machine(OptLevel::O2)?;
    let mut lines = Vec::new();
    for (name, bytes, insts) in big_objects(cfg)? {
        let dir = hx_corpus::corpus_dir();
        let native_path = dir.join("gfx942").join(format!("{name}.hsaco"));
        let src = dir.join("kernels").join(format!("{name}.ll"));
        let translated = translate_on(&p1, &bytes, &o)?;
        let rounds = if cfg.quick { 1 } else { 3 };
        let (tr_ms, nat, tr_cpu, nat_cpu) = if native_path.exists() {
            let ir = std::fs::read_to_string(&src)?;
            let compile = || -> Result<Vec<u8>> {
                let ctx = Context::create();
                let m = hx_llvm::parse_ir(&ctx, &ir, &name)?;
                Ok(hx_llvm::emit_verified(&m, &name, &tm, OptLevel::O2, Emit::Object)?)
            };
            let (mut tt, mut nt, mut tc, mut nc) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            translate_on(&p1, &bytes, &o)?;
            compile()?;
            for _ in 0..rounds {
                let (t, c) = (Instant::now(), process_cpu_time());
                translate_on(&p1, &bytes, &o)?;
                tt.push(t.elapsed());
                tc.push(process_cpu_time().saturating_sub(c));
                let (t, c) = (Instant::now(), process_cpu_time());
                compile()?;
                nt.push(t.elapsed());
                nc.push(process_cpu_time().saturating_sub(c));
            }
            let med = |v: Vec<Duration>| Sample { times: v }.median();
            (med(tt), Some(med(nt)), med(tc), Some(med(nc)))
        } else {
            let (mut tt, mut tc) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                let (t, c) = (Instant::now(), process_cpu_time());
                translate_on(&p1, &bytes, &o)?;
                tt.push(t.elapsed());
                tc.push(process_cpu_time().saturating_sub(c));
            }
            (Sample { times: tt }.median(), None, Sample { times: tc }.median(), None)
        };
        let llc = match (&real, native_path.exists()) {
            (Some(r), true) => {
                let obj = r.work().join("native.o");
                Some(median_ms(rounds, || r.llc_only(&src, "gfx942", &obj))?)
            }
            _ => None,
        };
        let obj = hx_corpus::object(&name)?;
        let (mut regs, mut spills, mut dynamic) = (Vec::new(), Vec::new(), Vec::new());
        if native_path.exists() {
            let native = std::fs::read(&native_path)?;
            for k in obj.kernels() {
                let (t, n) = (hx_benches::quality::register_use(&translated, k)?, hx_benches::quality::register_use(&native, k)?);
                regs.push(format!("{}/{}", t.vgprs + t.agprs, n.vgprs + n.agprs));
                spills.push(format!("{}/{}", t.vgpr_spills, n.vgpr_spills));
            }
            for l in &obj.launches {
                match (hx_benches::quality::run_launch(&translated, l, 11), hx_benches::quality::run_launch(&native, l, 11)) {
                    (Ok(t), Ok(n)) => dynamic.push(format!("{:.2}", t.wave_instructions as f64 / n.wave_instructions as f64)),
                    _ => dynamic.push("does not run".into()),
                }
            }
        }
        let ratio = nat.map(|n| tr_ms.as_secs_f64() / n.as_secs_f64());
        let cpu_ratio = nat_cpu.map(|n| tr_cpu.as_secs_f64() / n.as_secs_f64().max(1e-9));
        let _ = writeln!(
            out,
            "| {name} | {insts} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            ms(tr_ms),
            nat.map(ms).unwrap_or_default(),
            ratio.map(|r| format!("{r:.2}x")).unwrap_or_default(),
            ms(tr_cpu),
            nat_cpu.map(ms).unwrap_or_default(),
            llc.map(|l| format!("{l:.1}")).unwrap_or_default(),
            regs.join(", "),
            spills.join(", "),
            dynamic.join(", ")
        );
        lines.push(format!(
            "{name} {} ms, CPU {} ms{}",
            ms(tr_ms),
            ms(tr_cpu),
            cpu_ratio.map(|r| format!(" ({r:.2}x the native compile's CPU time)")).unwrap_or_default()
        ));
    }
    compiled_suites_big(cfg, out, &p1, &mut lines)?;
    let line = format!("Big kernels, warm translation for gfx942 (target: vgpr_high at most 500 ms, not slower than the native compile): {}.", lines.join(", "));
    let _ = writeln!(out, "\n{line}\n");
    cfg.headline.borrow_mut().push(line);
    Ok(())
}

/// Section 9's second part: every object of the compiled suites (corpus/triton, corpus/hip) that
/// translates for gfx942, with the largest in a table against the compiler's own gfx942 build,
/// and the slowest translation over them and the corpus.
fn compiled_suites_big(cfg: &Cfg, out: &mut String, p1: &rayon::ThreadPool, lines: &mut Vec<String>) -> Result<()> {
    let o = gfx942();
    let rounds = if cfg.quick { 1 } else { 3 };
    // (id, bytes, instructions, object) of every compiled-suite object that translates.
    let mut objs = Vec::new();
    let mut refused = 0;
    for suite in hx_corpus::COMPILED_SUITES {
        for obj in hx_corpus::compiled_suite(suite)? {
            if !obj.targets.iter().any(|t| t == "gfx1250") || (cfg.quick && objs.len() >= 2) {
                continue;
            }
            let bytes = std::fs::read(obj.object_path("gfx1250"))?;
            if hotswap::translate(&bytes, &o).is_err() {
                refused += 1;
                continue;
            }
            let insts = hx_benches::synth::instruction_count(&bytes).unwrap_or(0);
            objs.push((obj.id(), bytes, insts, obj));
        }
    }
    // CPU time of a warm translation of every object (corpus and compiled suites).
    let mut times: Vec<(f64, f64, String)> = Vec::new();
    let mut all: Vec<(String, Vec<u8>)> = objs.iter().map(|(id, b, _, _)| (id.clone(), b.clone())).collect();
    if !cfg.quick {
        all.extend(corpus_gfx1250(cfg)?.into_iter().filter(|(_, b)| hotswap::translate(b, &o).is_ok()));
    }
    for (id, bytes) in &all {
        let (mut w, mut c) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let (t, cpu) = (Instant::now(), process_cpu_time());
            translate_on(p1, bytes, &o)?;
            w.push(t.elapsed());
            c.push(process_cpu_time().saturating_sub(cpu));
        }
        times.push((Sample { times: c }.median().as_secs_f64() * 1e3, Sample { times: w }.median().as_secs_f64() * 1e3, id.clone()));
    }
    objs.sort_by_key(|(_, _, i, _)| std::cmp::Reverse(*i));
    let _ = writeln!(
        out,
        "
Real compilers' objects (corpus/triton, corpus/hip; {} translate for gfx942, {refused} are refused today): the four largest, translated warm (median of {rounds}) against the compiler's own gfx942 build of the same kernel (registers, spills; dynamic wave-instructions with the native launch geometry). The compiler's own compile time is not measured here.\n",
        objs.len()
    );
    let _ = writeln!(out, "| object | gfx1250 instructions | translation ms | translation CPU ms | VGPR+AGPR translated / native | VGPR spills translated / native | dynamic translated / native |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for (id, bytes, insts, obj) in objs.iter().take(4) {
        let translated = translate_on(p1, bytes, &o)?;
        let (cpu, wall) = times.iter().find(|(_, _, n)| n == id).map(|(c, w, _)| (*c, *w)).unwrap_or((f64::NAN, f64::NAN));
        let native = std::fs::read(obj.object_path("gfx942")).ok();
        let (mut regs, mut spills, mut dynamic) = (String::new(), String::new(), String::new());
        if let (Some(native), Some(l)) = (&native, obj.launches.first()) {
            if let (Ok(t), Ok(n)) = (hx_benches::quality::register_use(&translated, &l.kernel), hx_benches::quality::register_use(native, &l.kernel)) {
                regs = format!("{}/{}", t.vgprs + t.agprs, n.vgprs + n.agprs);
                spills = format!("{}/{}", t.vgpr_spills, n.vgpr_spills);
            }
            dynamic = match (hx_benches::quality::run_launch(&translated, l, 0), hx_benches::quality::run_launch(native, &l.for_target("gfx942"), 0)) {
                (Ok(t), Ok(n)) => format!("{:.2}", t.wave_instructions as f64 / n.wave_instructions as f64),
                _ => "does not run".into(),
            };
        }
        let _ = writeln!(out, "| {id} | {insts} | {wall:.1} | {cpu:.1} | {regs} | {spills} | {dynamic} |");
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slow: Vec<String> = times.iter().take(3).map(|(c, w, n)| format!("{n} {c:.0} ms CPU ({w:.0} ms wall)")).collect();
    let over = times.iter().filter(|(c, _, _)| *c > 1000.0).count();
    let line = format!(
        "slowest warm translations of the {} objects that translate (corpus and compiled suites): {}; {over} over 1 s of CPU time",
        times.len(),
        slow.join(", ")
    );
    let _ = writeln!(out, "
The {line}.\n");
    lines.push(line);
    Ok(())
}

fn throughput(cfg: &Cfg, out: &mut String) -> Result<()> {
    let k = if cfg.quick { 8 } else { 300 };
    let work = cfg.work.join("throughput");
    let bytes = hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(k, 0), &format!("t{k}"), &work)?;
    let o = gfx942();
    let (p1, p2) = (pool(1)?, pool(2)?);
    let (a, b) = interleaved(cfg, 6000, || Ok(translate_on(&p1, &bytes, &o)?), || Ok(translate_on(&p2, &bytes, &o)?))?;
    let per_s = |s: &Sample| k as f64 / s.median().as_secs_f64();
    let _ = writeln!(
        out,
        "One generated gfx1250 object of {k} saxpy-like kernels (`hx_benches::synth`), translated for gfx942 in a \
rayon pool of 1 and of 2 threads, alternately (one warm-up each, then pairs until the time budget). \
Kernels per second = {k} / median time.\n"
    );
    let _ = writeln!(out, "| threads | ms per object | kernels per second |");
    let _ = writeln!(out, "|---:|---:|---:|");
    let _ = writeln!(out, "| 1 | {} | {:.0} |", ms(a.median()), per_s(&a));
    let _ = writeln!(out, "| 2 | {} | {:.0} |", ms(b.median()), per_s(&b));
    let line = format!("Whole-object throughput ({k} kernels, gfx942): {:.0} kernels/s on 1 thread, {:.0} on 2.", per_s(&a), per_s(&b));
    let _ = writeln!(out, "\n{line}\n");
    cfg.headline.borrow_mut().push(line);
    Ok(())
}

fn pipeline_reuse(cfg: &Cfg, out: &mut String) -> Result<()> {
    use hx_lower::{lower_ir_via, Codegen, LowerOptions};
    if let Err(why) = hx_lower::pipeline_status() {
        let _ = writeln!(out, "Not measured: {why}.\n");
        return Ok(());
    }
    let o = gfx942();
    let lo = LowerOptions::new(GpuTarget::Gfx942);
    let _ = writeln!(
        out,
        "hx-lower emits objects through one codegen pipeline per pooled target machine, kept and reused \
(crates/lower/src/codegen.rs, a C++ shim over LLVM's legacy pass manager), instead of LLVM's C API, which builds \
and frees the pipeline on every emit; both give the same bytes (tests/tests/codegen_pipeline.rs). Here a \
lowering (parse the raised IR, middle end, backend) of each small object for gfx942 through each, alternately \
(one warm-up each, then pairs until the time budget). Callgrind: instructions per lowering of saxpy, from the \
difference between 6 and 1 lowerings in one process (so process set-up cancels out).\n"
    );
    let _ = writeln!(out, "| object | C API ms | pipeline ms | C API / pipeline |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    let mut ratios = Vec::new();
    for (name, bytes) in corpus_gfx1250(cfg)? {
        if hx_benches::synth::instruction_count(&bytes).unwrap_or(usize::MAX) > SMALL_OBJECT {
            continue;
        }
        let Ok(ir) = hotswap::translate::raised_ir(&bytes, &o) else { continue };
        let (a, b) = interleaved(
            cfg,
            1500,
            || Ok(lower_ir_via(&ir, &name, &[], &lo, hx_lower::Emit::Object, Codegen::CApi)?),
            || Ok(lower_ir_via(&ir, &name, &[], &lo, hx_lower::Emit::Object, Codegen::Pipeline)?),
        )?;
        let r = a.median().as_secs_f64() / b.median().as_secs_f64();
        ratios.push(r);
        let _ = writeln!(out, "| {name} | {} | {} | {r:.2}x |", ms(a.median()), ms(b.median()));
    }
    let mut line = format!("Reused codegen pipeline: a warm lowering of a small object is {} faster than through the C API", range(&ratios));
    let saxpy = hx_corpus::corpus_dir().join("gfx1250/saxpy.hsaco");
    let have_valgrind = hx_benches::shellout::which("valgrind").is_some();
    if !cfg.quick && have_valgrind {
        let exe = std::env::current_exe()?;
        let mut per = Vec::new();
        for mode in ["capi", "pipeline"] {
            let run = |n: &str| callgrind_ir(&exe, &[OsStr::new("codegen-loop"), saxpy.as_os_str(), OsStr::new(n), OsStr::new(mode)]);
            per.push((run("6")?.saturating_sub(run("1")?)) / 5);
        }
        let _ = writeln!(
            out,
            "\nCallgrind, one warm lowering of saxpy: C API {:.1} M instructions, pipeline {:.1} M ({:.0}% fewer).\n",
            per[0] as f64 / 1e6,
            per[1] as f64 / 1e6,
            100.0 * (1.0 - per[1] as f64 / per[0] as f64)
        );
        line.push_str(&format!(
            "; callgrind, saxpy: {:.1} M instructions per lowering against {:.1} M",
            per[1] as f64 / 1e6,
            per[0] as f64 / 1e6
        ));
    }
    line.push('.');
    let _ = writeln!(out, "\n{line}\n");
    cfg.headline.borrow_mut().push(line);
    Ok(())
}

/// What hx_lower does with a raised module: verify, the raised-IR pipeline at O2, the backend.
fn lower_raised(m: &hx_llvm::inkwell::module::Module<'_>, name: &str, tm: &hx_llvm::inkwell::targets::TargetMachine) -> Result<Vec<u8>> {
    hx_llvm::verify(m, name)?;
    Ok(hx_llvm::emit_verified_with(m, name, tm, hx_llvm::OptLevel::O2.raised_pipeline(), hx_llvm::Emit::Object)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as callgrind_annotate 3.19 prints them (`--inclusive=yes`), with the cycle (`'2`)
    /// and outlined (`[clone .cold]`) entries it lists apart from the function itself.
    const ANNOTATED: &str = "\
--------------------------------------------------------------------------------
Ir                       file:function
--------------------------------------------------------------------------------
1,022,044,861 (100.0%)  PROGRAM TOTALS
  667,564,825 (65.32%)  ???:llvm::legacy::PassManagerImpl::run(llvm::Module&)'2 [/x/libLLVM.so.22.1]
  667,170,297 (65.28%)  ???:llvm::legacy::PassManager::run(llvm::Module&) [/x/libLLVM.so.22.1]
  667,067,041 (65.27%)  ???:llvm::legacy::PassManagerImpl::run(llvm::Module&) [clone .cold] [???]
  155,417,237 (15.21%)  ???:LLVMRunPasses [???]
   12,824,872 ( 1.25%)  ???:hotswap::translate::link [/x/translate_loop]
    2,939,943 ( 0.29%)  ???:hx_relink::link_objects [/x/translate_loop]
    3,000,000 ( 0.29%)  ???:hotswap::translate::link_twice [/x/translate_loop]
   26,345,596 ( 2.58%)  ./malloc/./malloc/malloc.c:_int_malloc [/usr/lib/x86_64-linux-gnu/libc.so.6]
";

    #[test]
    fn annotate_lines_give_function_and_count() {
        let costs = parse_inclusive(ANNOTATED);
        assert_eq!(costs.len(), 8, "{costs:?}");
        assert!(costs.contains(&("LLVMRunPasses".to_string(), 155_417_237)));
        assert!(costs.contains(&("_int_malloc".to_string(), 26_345_596)));
        assert!(costs.contains(&("llvm::legacy::PassManagerImpl::run(llvm::Module&) [clone .cold]".to_string(), 667_067_041)));
    }

    #[test]
    fn a_phase_is_its_own_function_only() {
        let costs = parse_inclusive(ANNOTATED);
        assert_eq!(phase_cost(&costs, "llvm::legacy::PassManager::run(llvm::Module&)"), Some(667_170_297));
        assert_eq!(phase_cost(&costs, "LLVMRunPasses"), Some(155_417_237));
        // Not link_twice, which has the same prefix.
        assert_eq!(phase_cost(&costs, "hotswap::translate::link"), Some(12_824_872));
        // Cycle and outlined entries do not count as the function.
        assert_eq!(phase_cost(&costs, "llvm::legacy::PassManagerImpl::run("), None);
        assert_eq!(phase_cost(&costs, "hx_raise::ir::raise_program_with"), None);
    }
}
