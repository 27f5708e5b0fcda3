//! Runs every measurement of BENCHMARKS.md and prints its markdown body on stdout
//! (`cargo xtask bench` adds the header: machine, date, commit, command).
//!
//! `hx-bench-report [--quick]`: the report (`--quick`: one or two runs of everything, for tests).
//! `hx-bench-report cold FILE TARGET`: child mode, one process doing first, later and cached
//! translations of FILE, printing `key value` lines (the cold/warm and peak-memory figures).

use anyhow::{bail, Context, Result};
use hotswap::{GpuTarget, Options};
use hx_benches::measure::{ms, pool, sample, translate_on, Sample};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Cfg {
    quick: bool,
    work: PathBuf,
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

    fn sample<T>(&self, budget_ms: u64, f: impl FnMut() -> Result<T>) -> Result<Sample> {
        let (w, lo, hi, b) = self.runs(budget_ms);
        sample(w, lo, hi, b, f)
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("cold") {
        let [_, file, target] = args.as_slice() else { bail!("usage: hx-bench-report cold FILE TARGET") };
        return cold_child(Path::new(file), target);
    }
    let quick = args.iter().any(|a| a == "--quick");
    let work = std::env::temp_dir().join(format!("hx-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let cfg = Cfg { quick, work: work.clone() };
    let mut out = String::new();
    let sections: [(&str, fn(&Cfg, &mut String) -> Result<()>); 6] = [
        ("1. Translation latency: in-process against the shell-out pipeline", latency),
        ("2. Cold, warm and cached translations", cold_warm),
        ("3. Decode throughput against LLVM's disassembler", decode),
        ("4. Scaling: kernels per object, threads, kernel size", scaling),
        ("5. Code quality: translated against native, in the emulator", quality),
        ("6. Peak memory of a translation", peak_memory),
    ];
    for (title, f) in sections {
        let started = Instant::now();
        let _ = writeln!(out, "## {title}\n");
        if let Err(e) = f(&cfg, &mut out) {
            let _ = writeln!(out, "\nThis section failed: {e:#}\n");
        }
        eprintln!("{title}: {:.1} s", started.elapsed().as_secs_f64());
    }
    print!("{out}");
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn gfx942() -> Options {
    Options { target: GpuTarget::Gfx942, ..Default::default() }
}

/// (name, bytes) of every gfx1250 corpus object, sorted by name.
fn corpus_gfx1250() -> Result<Vec<(String, Vec<u8>)>> {
    let mut v = Vec::new();
    for o in hx_corpus::objects()?.into_iter().filter(|o| o.builds_for("gfx1250")) {
        let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", o.name));
        v.push((o.name.clone(), std::fs::read(&p).with_context(|| p.display().to_string())?));
    }
    Ok(v)
}

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

fn latency(cfg: &Cfg, out: &mut String) -> Result<()> {
    let llc = hx_benches::shellout::find_llc()?;
    let shell = hx_benches::shellout::ShellOut::new(llc, &cfg.work.join("shellout"))?;
    let p1 = pool(1)?;
    let o = gfx942();
    let _ = writeln!(
        out,
        "Every gfx1250 corpus object translated for gfx942 at O2, median wall time of repeated runs in this \
process (one warm-up run first). *In-process*: `hotswap::translate` (raise, lower, relink, all in-process). \
*Shell-out*: the pipeline HotSwap's COMGR path uses, on the same libLLVM: raise in-process, write the raised \
IR to a file, `hx-llc` (a separate process: parse, O2 pipeline, AMDGPU backend) writes an object, `rust-lld \
-flavor gnu -shared` links it, the code object is read back. *Raise* is the in-process raising and IR printing \
that the shell-out time includes. Ratio = shell-out / in-process.\n"
    );
    let _ = writeln!(out, "| object | kernels | gfx1250 instructions | in-process ms | shell-out ms | raise ms | ratio |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    let mut ratios = Vec::new();
    for (name, bytes) in corpus_gfx1250()? {
        let kernels = hotswap::codeobj::CodeObject::parse(&bytes).map(|c| c.kernels.len()).unwrap_or(0);
        let insts = hx_benches::synth::instruction_count(&bytes).unwrap_or(0);
        if let Err(e) = translate_on(&p1, &bytes, &o) {
            let _ = writeln!(out, "| {name} | {kernels} | {insts} | fails: {} | | | |", short(&e));
            continue;
        }
        let inproc = cfg.sample(1000, || Ok(translate_on(&p1, &bytes, &o)?))?;
        let raise = cfg.sample(300, || Ok(hotswap::translate::raised_ir(&bytes, &o)?))?;
        let shellout = match cfg.sample(2000, || shell.translate(&bytes, &o)) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(out, "| {name} | {kernels} | {insts} | {} | fails: {} | | |", ms(inproc.median()), short(&e));
                continue;
            }
        };
        let r = shellout.median().as_secs_f64() / inproc.median().as_secs_f64();
        ratios.push(r);
        let _ = writeln!(
            out,
            "| {name} | {kernels} | {insts} | {} | {} | {} | {r:.1}x |",
            ms(inproc.median()),
            ms(shellout.median()),
            ms(raise.median())
        );
    }
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        let _ = writeln!(
            out,
            "\nIn-process is {:.1}x to {:.1}x faster than the shell-out pipeline over the {} objects that translate \
(target: at least 5x on small objects).\n",
            ratios[0],
            ratios[ratios.len() - 1],
            ratios.len()
        );
    }
    Ok(())
}

/// Runs `hx-bench-report cold FILE TARGET` and returns its `key value` lines and wall time.
fn run_cold_child(file: &Path, target: &str) -> Result<(Vec<(String, f64)>, Duration)> {
    let started = Instant::now();
    let o = std::process::Command::new(std::env::current_exe()?).arg("cold").arg(file).arg(target).output()?;
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

fn get(kv: &[(String, f64)], k: &str) -> f64 {
    kv.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap_or(f64::NAN)
}

/// The translatable corpus objects' paths, in corpus order.
fn translatable(cfg: &Cfg) -> Result<Vec<(String, PathBuf)>> {
    let _ = cfg;
    let o = gfx942();
    Ok(corpus_gfx1250()?
        .into_iter()
        .filter(|(_, b)| hotswap::translate(b, &o).is_ok())
        .map(|(n, _)| {
            let p = hx_corpus::corpus_dir().join("gfx1250").join(format!("{n}.hsaco"));
            (n, p)
        })
        .collect())
}

fn cold_warm(cfg: &Cfg, out: &mut String) -> Result<()> {
    let _ = writeln!(
        out,
        "Each object in a fresh process (`hx-bench-report cold`), for gfx942. *Process*: spawn to exit of that \
process. *First*: the first `translate` call of the process (includes LLVM's one-time target initialisation \
and every first-use cost). *Second* and *warm*: the next call and the median of the calls after it. *Cache miss*: \
a translation through hx-cache with an empty cache directory (key, lookup, translate, atomic write). *Cache hit*: \
the median of later lookups of the same key (SHA-256 key of the input and options, read, verify) - no \
translation runs.\n"
    );
    let _ = writeln!(out, "| object | process ms | first ms | second ms | warm ms | cache miss ms | cache hit ms |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    let list = translatable(cfg)?;
    for (name, path) in list.iter().take(if cfg.quick { 1 } else { usize::MAX }) {
        match run_cold_child(path, "gfx942") {
            Ok((kv, wall)) => {
                let _ = writeln!(
                    out,
                    "| {name} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {:.4} |",
                    wall.as_secs_f64() * 1e3,
                    get(&kv, "first_ms"),
                    get(&kv, "second_ms"),
                    get(&kv, "warm_ms"),
                    get(&kv, "cache_miss_ms"),
                    get(&kv, "cache_hit_ms"),
                );
            }
            Err(e) => {
                let _ = writeln!(out, "| {name} | fails: {} | | | | | |", short(&e));
            }
        }
    }
    let _ = writeln!(out, "\nTarget: cache hit under 1 ms.\n");
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
    let dir = std::env::temp_dir().join(format!("hx-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = hx_cache::Cache::new(&dir, hx_cache::Mode::ReadWrite);
    let t = Instant::now();
    let (_, hit) = hx_benches::measure::translate_cached(&cache, &bytes, &o)?;
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
same bytes. *Decode*: `hotswap::isa::decode` plus walking the operands (structured result). *Decode+text*: the \
same plus printing the instruction as assembly text. *LLVM*: LLVM's AMDGPU disassembler through LLVM-C \
(`LLVMDisasmInstruction`, which always prints text). Ratio = LLVM time / hotswap-xlate time (target: at least 50x).\n"
    );
    let _ = writeln!(out, "| target | instructions | decode ns/inst | decode+text ns/inst | LLVM ns/inst | ratio (decode) | ratio (decode+text) |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for target in hotswap::isa::Target::ALL {
        let code = hx_benches::decodable_corpus_code(target);
        let n = hotswap::isa::decode_all(target, &code).map(|v| v.len()).unwrap_or(0);
        if n == 0 {
            continue;
        }
        let dec = cfg.sample(500, || {
            let mut at = 0;
            let mut k = 0usize;
            while at < code.len() {
                let i = hotswap::isa::decode(target, &code, at)?;
                at += i.len as usize;
                k += i.operands().count();
            }
            Ok(k)
        })?;
        let text = cfg.sample(500, || {
            let mut at = 0;
            let mut k = 0usize;
            while at < code.len() {
                let i = hotswap::isa::decode(target, &code, at)?;
                at += i.len as usize;
                k += i.text().len();
            }
            Ok(k)
        })?;
        let mut llvm = hx_llvm::Disassembler::new(hx_llvm::GpuTarget::from_cpu(target.cpu()).context("target")?)?;
        let l = cfg.sample(1000, || {
            let mut at = 0;
            let mut k = 0usize;
            while at < code.len() {
                let (len, t) = llvm.decode(&code[at..], at as u64).context("LLVM failed to decode")?;
                at += len;
                k += t.len();
            }
            Ok(k)
        })?;
        let per = |s: &Sample| s.median().as_secs_f64() * 1e9 / n as f64;
        let _ = writeln!(
            out,
            "| {} | {n} | {:.1} | {:.1} | {:.1} | {:.0}x | {:.0}x |",
            target.cpu(),
            per(&dec),
            per(&text),
            per(&l),
            per(&l) / per(&dec),
            per(&l) / per(&text)
        );
    }
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
    for &k in counts {
        let bytes = hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(k, 0), &format!("k{k}"), &work)?;
        let insts = hx_benches::synth::instruction_count(&bytes)?;
        let mut t = Vec::new();
        for (_, p) in &pools {
            t.push(cfg.sample(1500, || Ok(translate_on(p, &bytes, &o)?))?.median());
        }
        let _ = writeln!(
            out,
            "| {k} | {insts} | {} | {} | {} | {:.2}x |",
            ms(t[0]),
            ms(t[1]),
            ms(t[0] / k as u32),
            t[0].as_secs_f64() / t[1].as_secs_f64()
        );
    }
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
    let _ = cfg;
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
        for obj in hx_corpus::objects()?.into_iter().filter(|o| o.builds_for("gfx1250") && o.builds_for(target.cpu())) {
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
        }
    }
    let _ = writeln!(out, "\n{summary}");
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
    for (name, path) in &list {
        match run_cold_child(path, "gfx942") {
            Ok((kv, _)) => {
                let m = |k: &str| get(&kv, k) / 1024.0;
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
    let _ = writeln!(out);
    Ok(())
}
