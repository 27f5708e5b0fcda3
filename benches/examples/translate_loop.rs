//! Translates one code object many times: a steady workload for profilers.
//! `valgrind --tool=callgrind target/release/examples/translate_loop corpus/gfx1250/saxpy.hsaco 10`
//!
//! `translate_loop --compare [SECONDS] NAME...`: corpus objects NAME translated in-process and
//! through the shell-out pipeline (hx-llc next to this executable, or `$HX_LLC`), alternately
//! for SECONDS each (default 3), printing the medians and their ratio: a quick side-by-side
//! check of one change without the whole report.
//!
//! `--llvm-arg=OPT` (repeatable, first) passes an option to LLVM, e.g. `-time-passes` for the
//! passes' total time over all translations, printed at the end.
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let llvm_args: Vec<String> = args.iter().filter_map(|a| a.strip_prefix("--llvm-arg=")).map(String::from).collect();
    args.retain(|a| !a.starts_with("--llvm-arg="));
    if !llvm_args.is_empty() {
        hx_benches::set_llvm_options(&llvm_args)?;
    }
    let result = run(&args);
    if !llvm_args.is_empty() {
        hx_benches::print_llvm_reports();
    }
    result
}

fn run(args: &[String]) -> anyhow::Result<()> {
    let o = hotswap::Options { target: hotswap::GpuTarget::Gfx942, ..Default::default() };
    if args.first().map(String::as_str) == Some("--compare") {
        return compare(&args[1..], &o);
    }
    let path = args.first().map(String::as_str).unwrap_or("corpus/gfx1250/saxpy.hsaco");
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(10);
    let bytes = std::fs::read(path)?;
    let mut total = 0;
    for _ in 0..n {
        total += hotswap::translate(&bytes, &o)?.bytes.len();
    }
    println!("{total}");
    Ok(())
}

fn compare(args: &[String], o: &hotswap::Options) -> anyhow::Result<()> {
    let (secs, names) = match args.first().and_then(|a| a.parse::<f64>().ok()) {
        Some(s) => (s, &args[1..]),
        None => (3.0, args),
    };
    let work = std::env::temp_dir().join(format!("hx-translate-loop-{}", std::process::id()));
    let shell = hx_benches::shellout::ShellOut::new(hx_benches::shellout::find_llc()?, &work)?;
    println!("| object | in-process ms | shell-out ms | ratio | ratio of fastest |");
    println!("|---|---:|---:|---:|---:|");
    for name in names {
        let bytes = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{name}.hsaco")))?;
        // Like for like: both pipelines must produce the same machine code for every kernel.
        let (ia, ib) = (hotswap::translate(&bytes, o)?.bytes, shell.translate(&bytes, o)?);
        let (ca, cb) = (hotswap::codeobj::CodeObject::parse(&ia)?, hotswap::codeobj::CodeObject::parse(&ib)?);
        for k in &ca.kernels {
            let kb = cb.kernel(&k.name).ok_or_else(|| anyhow::anyhow!("{name}: shell-out lacks kernel {}", k.name))?;
            anyhow::ensure!(ca.kernel_code(k) == cb.kernel_code(kb), "{name}: kernel {} differs between the pipelines", k.name);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let started = Instant::now();
        while a.len() < 5 || started.elapsed() < Duration::from_secs_f64(secs) {
            let t = Instant::now();
            std::hint::black_box(hotswap::translate(&bytes, o)?);
            a.push(t.elapsed());
            let t = Instant::now();
            std::hint::black_box(shell.translate(&bytes, o)?);
            b.push(t.elapsed());
        }
        a.sort();
        b.sort();
        let (ma, mb) = (a[a.len() / 2].as_secs_f64() * 1e3, b[b.len() / 2].as_secs_f64() * 1e3);
        let (fa, fb) = (a[0].as_secs_f64(), b[0].as_secs_f64());
        println!("| {name} | {ma:.2} | {mb:.2} | {:.2}x | {:.2}x |", mb / ma, fb / fa);
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}
