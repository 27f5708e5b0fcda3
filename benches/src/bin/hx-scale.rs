//! Time and peak memory per instruction against kernel size (issue 29), for straight-line code,
//! uniform branches and divergent ifs (`hx_benches::scale`). Each translation runs in a fresh
//! child process (its peak resident set is its own), translating for gfx942 at O2 on one thread.
//!
//! `hx-scale [--instructions 1000,10000,100000] [--shapes straight,uniform,divergent] [--timeout S]`
//! prints a markdown table, then one `ratio SHAPE: R x (...)` line per shape: the time per
//! instruction at the largest size over that at the smallest. `hx-scale child FILE` is the child: one translation, `key value` lines.
//! `hx-scale gen SHAPE UNITS FILE` writes one generated object (for a profiler).

use anyhow::{bail, Context, Result};
use hx_benches::scale::Shape;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix(key).map(|v| v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0))))
        .unwrap_or(0)
}

fn child(file: &Path) -> Result<()> {
    let bytes = std::fs::read(file)?;
    let mut options = hotswap::Options { limits: hotswap::limits::Limits::UNLIMITED, ..hotswap::Options::default() };
    // Experiments: HX_SCALE_OPT=O0..O3, HX_LLVM_ARGS="-opt1 -opt2" (LLVM command-line options).
    if let Ok(o) = std::env::var("HX_SCALE_OPT") {
        options.opt_level = hotswap::OptLevel::parse(&o).context("HX_SCALE_OPT")?;
    }
    if let Ok(a) = std::env::var("HX_LLVM_ARGS") {
        hx_benches::set_llvm_options(&a.split_whitespace().map(str::to_string).collect::<Vec<_>>())?;
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    // The process's one-time work (decoder tables, target machine) before the clock starts.
    pool.install(|| hotswap::prewarm(&options))?;
    let start_kib = status_kib("VmHWM:");
    let t = Instant::now();
    let out = pool.install(|| hotswap::translate(&bytes, &options))?;
    let secs = t.elapsed().as_secs_f64();
    println!("seconds {secs}");
    println!("hwm_start_kib {start_kib}");
    println!("hwm_kib {}", status_kib("VmHWM:"));
    println!("out_bytes {}", out.bytes.len());
    if std::env::var_os("HX_LLVM_ARGS").is_some() {
        hx_benches::print_llvm_reports();
    }
    Ok(())
}

/// Units that give about `insts` gfx1250 instructions at `per_unit` instructions per unit.
fn units_for(insts: usize, per_unit: f64) -> usize {
    ((insts as f64 / per_unit).round() as usize).clamp(1, 1_000_000)
}

fn run_child(exe: &Path, file: &Path, timeout: Duration) -> Result<Option<Vec<(String, f64)>>> {
    let mut c = std::process::Command::new(exe)
        .arg("child")
        .arg(file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let t = Instant::now();
    loop {
        if let Some(st) = c.try_wait()? {
            let mut out = String::new();
            c.stdout.take().map(|mut s| s.read_to_string(&mut out));
            if !st.success() {
                let mut err = String::new();
                c.stderr.take().map(|mut s| s.read_to_string(&mut err));
                bail!("child failed ({st}): {err}");
            }
            return Ok(Some(
                out.lines().filter_map(|l| l.split_once(' ')).filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?))).collect(),
            ));
        }
        if t.elapsed() > timeout {
            let _ = c.kill();
            let _ = c.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn parse_shape(s: &str) -> Result<Shape> {
    Ok(match s.trim() {
        "straight" => Shape::Straight,
        "uniform" => Shape::UniformBranches,
        "divergent" => Shape::DivergentIfs,
        o => bail!("unknown shape {o} (straight, uniform, divergent)"),
    })
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("child") {
        return child(Path::new(args.get(1).context("child FILE")?));
    }
    if args.first().map(String::as_str) == Some("gen") && args.len() == 4 {
        // `hx-scale gen SHAPE UNITS FILE`: write one generated object (to profile it).
        let shape = parse_shape(&args[1])?;
        std::fs::write(&args[3], shape.object(args[2].parse()?)?)?;
        return Ok(());
    }
    let get = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let sizes: Vec<usize> = get("--instructions")
        .unwrap_or_else(|| "1000,2000,5000,10000,20000,50000,100000".into())
        .split(',')
        .map(|s| s.trim().parse::<usize>())
        .collect::<Result<_, _>>()?;
    let shapes: Vec<Shape> = get("--shapes")
        .unwrap_or_else(|| "straight,uniform,divergent".into())
        .split(',')
        .map(parse_shape)
        .collect::<Result<_>>()?;
    let timeout = Duration::from_secs(get("--timeout").map(|t| t.parse()).transpose()?.unwrap_or(600));
    let exe = std::env::current_exe()?;
    let work = std::env::temp_dir().join(format!("hx-scale-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    // Per shape: (instructions, us per instruction) of each size measured.
    let mut per_shape: Vec<(Shape, Vec<(usize, f64)>)> = Vec::new();
    println!("| shape | units | gfx1250 instructions | branches | translate s | us per instruction | peak RSS growth MiB | bytes per instruction |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for shape in shapes {
        per_shape.push((shape, Vec::new()));
        // Instructions per unit, from a 200-unit object.
        let probe = shape.object(200)?;
        let base = hx_benches::synth::instruction_count(&shape.object(1)?)? as f64;
        let per_unit = (hx_benches::synth::instruction_count(&probe)? as f64 - base) / 199.0;
        for &want in &sizes {
            let units = units_for(want, per_unit);
            let bytes = shape.object(units)?;
            let insts = hx_benches::synth::instruction_count(&bytes)?;
            let file = work.join(format!("{:?}-{units}.hsaco", shape));
            std::fs::write(&file, &bytes)?;
            let branches = if shape == Shape::Straight { 0 } else { units };
            match run_child(&exe, &file, timeout)? {
                None => println!("| {} | {units} | {insts} | {branches} | over {} s | | | |", shape.name(), timeout.as_secs()),
                Some(kv) => {
                    let g = |k: &str| kv.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap_or(f64::NAN);
                    let secs = g("seconds");
                    let growth = (g("hwm_kib") - g("hwm_start_kib")) * 1024.0;
                    if let Some((_, v)) = per_shape.last_mut() {
                        v.push((insts, secs * 1e6 / insts as f64));
                    }
                    println!(
                        "| {} | {units} | {insts} | {branches} | {secs:.3} | {:.1} | {:.1} | {:.0} |",
                        shape.name(),
                        secs * 1e6 / insts as f64,
                        growth / 1048576.0,
                        growth / insts as f64
                    );
                }
            }
            let _ = std::fs::remove_file(&file);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    // Growth of the time per instruction from the smallest to the largest size measured (the
    // issue's goal: within 2x from 1k to 100k), one `ratio` line per shape.
    println!();
    for (shape, v) in &per_shape {
        match (v.first(), v.last()) {
            (Some(&(i0, t0)), Some(&(i1, t1))) if v.len() > 1 => println!(
                "ratio {}: {:.2}x (us per instruction at {i1} instructions {t1:.1}, at {i0} {t0:.1})",
                shape.name(),
                t1 / t0
            ),
            _ => println!("ratio {}: not measured (fewer than two sizes finished)", shape.name()),
        }
    }
    Ok(())
}
