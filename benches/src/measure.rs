//! Wall-clock measurement loops (the report's own, short and repeatable; criterion benches use
//! criterion) and the translation calls the benches time.

use std::time::{Duration, Instant};

/// Timings of repeated runs of one operation.
#[derive(Debug, Clone)]
pub struct Sample {
    pub times: Vec<Duration>,
}

impl Sample {
    pub fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t[t.len() / 2]
    }

    pub fn min(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }
}

/// Runs `f` `warmup` times untimed, then until both `min_iters` runs and `budget` of time are
/// spent (at most `max_iters` runs), timing each run.
pub fn sample<T>(warmup: usize, min_iters: usize, max_iters: usize, budget: Duration, mut f: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<Sample> {
    for _ in 0..warmup {
        std::hint::black_box(f()?);
    }
    let started = Instant::now();
    let mut times = Vec::new();
    while times.len() < max_iters && (times.len() < min_iters || started.elapsed() < budget) {
        let t = Instant::now();
        std::hint::black_box(f()?);
        times.push(t.elapsed());
    }
    Ok(Sample { times })
}

/// Runs the functions of `fs` in turn, each twice per round and timing the second run (the
/// first warms the caches the previous function filled with its own code and data): after one
/// untimed warm-up round, rounds continue until both `min_rounds` and `budget` are spent (at
/// most `max_rounds`). Load from elsewhere on a shared machine then falls on all of them alike,
/// and per-round ratios compare runs made side by side. One `Sample` per function.
pub fn interleaved(
    min_rounds: usize,
    max_rounds: usize,
    budget: Duration,
    fs: &mut [&mut dyn FnMut() -> anyhow::Result<usize>],
) -> anyhow::Result<Vec<Sample>> {
    for f in fs.iter_mut() {
        std::hint::black_box(f()?);
    }
    let started = Instant::now();
    let mut out: Vec<Sample> = fs.iter().map(|_| Sample { times: Vec::new() }).collect();
    let mut rounds = 0;
    while rounds < max_rounds && (rounds < min_rounds || started.elapsed() < budget) {
        for (f, s) in fs.iter_mut().zip(out.iter_mut()) {
            std::hint::black_box(f()?);
            let t = Instant::now();
            std::hint::black_box(f()?);
            s.times.push(t.elapsed());
        }
        rounds += 1;
    }
    Ok(out)
}

/// The median over rounds of `num`'s time over `den`'s time in the same round (samples from
/// [`interleaved`]).
pub fn median_ratio(num: &Sample, den: &Sample) -> f64 {
    let mut r: Vec<f64> = num
        .times
        .iter()
        .zip(&den.times)
        .map(|(n, d)| n.as_secs_f64() / d.as_secs_f64().max(1e-12))
        .collect();
    if r.is_empty() {
        return 0.0;
    }
    r.sort_by(f64::total_cmp);
    r[r.len() / 2]
}

/// Milliseconds, for tables.
pub fn ms(d: Duration) -> String {
    let m = d.as_secs_f64() * 1e3;
    if m < 0.1 {
        format!("{m:.4}")
    } else if m < 10.0 {
        format!("{m:.2}")
    } else {
        format!("{m:.1}")
    }
}

/// `hotswap::translate` on a rayon pool of `threads` threads: when translation parallelises
/// over kernels with rayon, it uses this pool.
pub fn translate_on(pool: &rayon::ThreadPool, bytes: &[u8], options: &hotswap::Options) -> Result<Vec<u8>, hotswap::Error> {
    pool.install(|| hotswap::translate(bytes, options).map(|t| t.bytes))
}

/// A pool of `threads` threads.
pub fn pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}

/// The cache key of one translation (as a caller of hx-cache builds it: input, target, options).
pub fn cache_key(bytes: &[u8], options: &hotswap::Options) -> hx_cache::Key {
    hx_cache::KeyBuilder::new("hotswap-xlate/bench")
        .field("translator", hotswap::TRANSLATOR_ID)
        .field("input", bytes)
        .field("target", options.target.cpu())
        .field("opt_level", format!("{:?}", options.opt_level))
        .field("strict", [options.strict as u8])
        .finish()
}

/// A translation through the on-disk cache: key, lookup, and on a miss translate and store.
pub fn translate_cached(cache: &hx_cache::Cache, bytes: &[u8], options: &hotswap::Options) -> anyhow::Result<(Vec<u8>, bool)> {
    let key = cache_key(bytes, options);
    let (v, outcome) = cache.get_or_insert_with(&key, || hotswap::translate(bytes, options).map(|t| t.bytes))?;
    Ok((v, outcome.is_hit()))
}

/// The peak resident set size of this process so far (VmHWM), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The current resident set size (VmRSS), in KiB.
pub fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// CPU time (user + system) this process has used so far, all threads: on a machine shared
/// with other work, what a measured operation itself cost when its wall time includes waiting
/// for a core.
pub fn process_cpu_time() -> Duration {
    // SAFETY: getrusage writes one rusage struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(u.ru_utime) + tv(u.ru_stime)
}
