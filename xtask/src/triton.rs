//! `cargo xtask triton [--check] [CASE...]`: builds corpus/triton with Triton 3.9.
//!
//! Makes (once) a Python virtual environment at `target/triton-venv` with the pinned Triton and
//! numpy from PyPI (`HX_TRITON_PYTHON=/path/to/python` uses an existing interpreter that has
//! them instead), then runs `corpus/triton/build.py`, which compiles every case of
//! `corpus/triton/kernels.py` for gfx1250 (wave32) and natively for gfx942/gfx950 (wave64) and
//! writes the code objects, launch descriptions, inputs and numpy's expected outputs. Everything
//! it writes is checked in, so neither the tests nor users need Python.
//!
//! `--check` builds into a temporary folder and requires every file to equal the checked-in one.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The pinned versions: the corpus is what these produce.
pub const TRITON: &str = "triton==3.9.0";
pub const NUMPY: &str = "numpy==2.4.6";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A Python interpreter with the pinned Triton and numpy: `HX_TRITON_PYTHON`, else the venv under
/// target/, made on first use.
fn python() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("HX_TRITON_PYTHON") {
        return Ok(PathBuf::from(p));
    }
    let venv = repo().join("target").join("triton-venv");
    let py = venv.join("bin").join("python");
    let ready = venv.join(".hx-ready");
    let want = format!("{TRITON} {NUMPY}\n");
    if std::fs::read_to_string(&ready).ok().as_deref() == Some(want.as_str()) {
        return Ok(py);
    }
    eprintln!("making {} with {TRITON} and {NUMPY} (once)", venv.display());
    let status = Command::new("python3").args(["-m", "venv"]).arg(&venv).status().context("running python3 -m venv")?;
    if !status.success() {
        bail!("python3 -m venv {} failed", venv.display());
    }
    let status = Command::new(&py)
        .args(["-m", "pip", "install", "--quiet", TRITON, NUMPY])
        .status()
        .context("running pip")?;
    if !status.success() {
        bail!("pip install {TRITON} {NUMPY} failed");
    }
    std::fs::write(&ready, want)?;
    Ok(py)
}

fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir)?.to_path_buf());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Builds the Triton corpus (only `cases` when given); with `check`, into a temporary folder,
/// returning the files that differ from the checked-in ones (or are missing on either side).
pub fn build(check: bool, cases: &[String]) -> Result<Vec<PathBuf>> {
    let py = python()?;
    let src = repo().join("corpus").join("triton");
    let out = if check { std::env::temp_dir().join(format!("hx-triton-{}", std::process::id())) } else { src.clone() };
    let status = Command::new(&py)
        .arg(src.join("build.py"))
        .arg(&out)
        .args(cases)
        .env("TRITON_CACHE_DIR", repo().join("target").join("triton-cache"))
        .status()
        .context("running build.py")?;
    if !status.success() {
        bail!("corpus/triton/build.py failed");
    }
    if !check {
        return Ok(Vec::new());
    }
    let built = files_under(&out)?;
    let mut differ = Vec::new();
    for f in &built {
        if f.starts_with("__pycache__") {
            continue;
        }
        if std::fs::read(out.join(f)).ok() != std::fs::read(src.join(f)).ok() {
            differ.push(src.join(f));
        }
    }
    if cases.is_empty() {
        for f in files_under(&src)? {
            let generated = f.extension().is_some_and(|e| e == "hsaco" || e == "toml" || e == "bin" || e == "expected")
                || f == Path::new("SKIPPED.txt");
            if generated && !built.contains(&f) {
                differ.push(src.join(f));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    Ok(differ)
}
