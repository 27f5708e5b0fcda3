//! `cargo xtask fuzz TARGET [--time S] [--jobs N] [-- LIBFUZZER ARGS]`: builds the coverage-guided
//! fuzz targets of `fuzz/` (libFuzzer through libfuzzer-sys) and runs one for S seconds with the
//! corpus as seeds, keeping what it finds in `fuzz/corpus/TARGET` and crashes in
//! `fuzz/artifacts/TARGET`.
//!
//! It needs only the project's pinned stable toolchain and a C++ compiler with a static libstdc++
//! (libfuzzer-sys builds libFuzzer from source; g++ provides libstdc++.a): the instrumentation is rustc's own SanitizerCoverage pass, switched on
//! with the same stable `-C` flags cargo-fuzz passes (no sanitizer, so no nightly `-Z` flag). The
//! build uses an explicit `--target`, so the flags reach the fuzzed code and not build scripts.
//! `cargo fuzz run TARGET` (with cargo-fuzz installed) runs the same targets.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Fuzz targets (fuzz/fuzz_targets/*.rs) and the corpus directories that seed each.
pub const TARGETS: &[(&str, &[&str])] = &[
    ("codeobj", &["corpus/gfx1250", "corpus/gfx942", "corpus/gfx950", "corpus/broken"]),
    ("decode_gfx1250", &[]),
    ("decode_gfx942", &[]),
    ("decode_gfx950", &[]),
    ("translate", &["corpus/gfx1250"]),
    ("emulate", &["corpus/gfx1250", "corpus/gfx942", "corpus/gfx950"]),
    ("capi", &["corpus/gfx1250"]),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rustc flags of a libFuzzer build (what cargo-fuzz passes with `--sanitizer none`).
pub const RUSTFLAGS: &str = "-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks";

fn host_triple() -> Result<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("-vV").output().context("running rustc -vV")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .context("rustc -vV printed no host")
}

fn sysroot() -> Result<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).args(["--print", "sysroot"]).output().context("running rustc --print sysroot")?;
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Builds every fuzz target; returns the directory of the binaries.
pub fn build() -> Result<PathBuf> {
    let root = repo_root();
    let triple = host_triple()?;
    let target_dir = std::env::var_os("HX_FUZZ_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("fuzz/target"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Where g++ keeps libstdc++.a (see CXXSTDLIB below).
    let stdcxx = Command::new(std::env::var("CXX").unwrap_or_else(|_| "g++".into()))
        .arg("-print-file-name=libstdc++.a")
        .output()
        .context("running g++ -print-file-name=libstdc++.a (a C++ compiler is needed to build libFuzzer)")?;
    let stdcxx = PathBuf::from(String::from_utf8_lossy(&stdcxx.stdout).trim());
    let Some(stdcxx_dir) = stdcxx.parent().filter(|_| stdcxx.is_file()) else {
        bail!("no static libstdc++ ({}): install g++", stdcxx.display());
    };
    let status = Command::new(cargo)
        .current_dir(root.join("fuzz"))
        .env("RUSTFLAGS", format!("{RUSTFLAGS} -Lnative={}", stdcxx_dir.display()))
        .env("CARGO_TARGET_DIR", &target_dir)
        // libFuzzer's own C++ (its std::ifstream, compiled with the system's headers) must not
        // bind to the libstdc++ copy inside the toolchain's libLLVM, which every target but the
        // decoders and parsers loads: seeding from a file then ended in "free(): invalid
        // pointer" in std::locale::~locale. libFuzzer gets a static libstdc++ of its own (the cc
        // crate reads CXXSTDLIB).
        .env("CXXSTDLIB", "static=stdc++")
        .args(["build", "--release", "--bins", "--target", &triple])
        .status()
        .context("running cargo build for fuzz/")?;
    if !status.success() {
        bail!("building the fuzz targets failed");
    }
    Ok(target_dir.join(triple).join("release"))
}

/// Runs `target` for `seconds` with `jobs` processes; returns libFuzzer's exit status.
pub fn run(target: &str, seconds: u64, jobs: u32, extra: &[String]) -> Result<()> {
    let Some((_, seeds)) = TARGETS.iter().find(|(t, _)| *t == target) else {
        bail!("unknown fuzz target {target} (known: {})", TARGETS.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(", "));
    };
    let bin = build()?.join(target);
    let root = repo_root();
    let corpus = root.join("fuzz/corpus").join(target);
    let artifacts = root.join("fuzz/artifacts").join(target);
    std::fs::create_dir_all(&corpus)?;
    std::fs::create_dir_all(&artifacts)?;
    let mut cmd = Command::new(&bin);
    // The targets load the toolchain's libLLVM (hx-llvm links it dynamically); `cargo run` puts
    // the sysroot's lib directory on the library path, a direct run needs it too.
    let libdir = sysroot()?.join("lib");
    let path = match std::env::var_os("LD_LIBRARY_PATH") {
        Some(p) if !p.is_empty() => std::env::join_paths(std::iter::once(libdir).chain(std::env::split_paths(&p)))?,
        _ => libdir.into_os_string(),
    };
    cmd.env("LD_LIBRARY_PATH", path);
    cmd.arg(&corpus);
    for s in seeds.iter() {
        let dir = root.join(s);
        if dir.is_dir() {
            cmd.arg(dir);
        }
    }
    cmd.arg(format!("-max_total_time={seconds}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        // A bounded input and a per-input deadline: a slow input is a finding (a hang), not a stall.
        .arg("-max_len=262144")
        .arg("-timeout=60")
        .arg("-rss_limit_mb=4096")
        .arg("-print_final_stats=1");
    if jobs > 1 {
        cmd.arg(format!("-fork={jobs}"));
    }
    cmd.args(extra);
    eprintln!("running {}", bin.display());
    let status = cmd.status().with_context(|| format!("running {}", bin.display()))?;
    if !status.success() {
        bail!("fuzz target {target} stopped with {status}: see {}", artifacts.display());
    }
    Ok(())
}
