//! Translation latency under criterion (short settings): in-process `hotswap::translate` against
//! the shell-out pipeline (raise, hx-llc process, rust-lld), and a cache hit, for the corpus
//! objects that translate. `cargo xtask bench` reports the same comparisons in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use hotswap::{GpuTarget, Options};
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let o = Options { target: GpuTarget::Gfx942, ..Default::default() };
    let work = std::env::temp_dir().join(format!("hx-bench-criterion-{}", std::process::id()));
    let shell = hx_benches::shellout::ShellOut::new(env!("CARGO_BIN_EXE_hx-llc").into(), &work.join("shellout")).unwrap();
    let cache = hx_cache::Cache::new(work.join("cache"), hx_cache::Mode::ReadWrite);
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        let bytes = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name))).unwrap();
        if hotswap::translate(&bytes, &o).is_err() {
            continue;
        }
        let mut g = c.benchmark_group(format!("translate/{}", obj.name));
        g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
        g.bench_function("in-process", |b| b.iter(|| hotswap::translate(&bytes, &o).unwrap()));
        g.bench_function("shell-out", |b| b.iter(|| shell.translate(&bytes, &o).unwrap()));
        hx_benches::measure::translate_cached(&cache, &bytes, &o).unwrap();
        g.bench_function("cache-hit", |b| b.iter(|| hx_benches::measure::translate_cached(&cache, &bytes, &o).unwrap()));
        g.finish();
    }
    let _ = std::fs::remove_dir_all(&work);
}

criterion_group!(benches, bench);
criterion_main!(benches);
