//! `cargo xtask corpus`: corpus/kernels/<name>.ll -> corpus/<target>/<name>.hsaco, for every target
//! the object's launch description lists (top-level `targets`, default gfx1250, gfx942 and gfx950).
//!
//! Each IR file is compiled in-process (hx-llvm, O2) to a relocatable object and linked by
//! `rust-lld -flavor gnu -shared`, as ROCm's clang links AMDGPU code objects with ld.lld.
//! The outputs are checked in; `corpus --check` (and a test) rebuild them and require identical bytes.

use anyhow::{bail, Context, Result};
use hx_llvm::{Emit, GpuTarget, OptLevel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's corpus/ directory.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("corpus")
}

/// All corpus IR files, sorted by name.
pub fn kernel_sources() -> Result<Vec<PathBuf>> {
    let dir = corpus_dir().join("kernels");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    v.sort();
    Ok(v)
}

/// Path of the rust-lld shipped with the active Rust toolchain.
pub fn rust_lld() -> Result<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc).args(["--print", "sysroot"]).output().context("running rustc --print sysroot")?;
    let sysroot = PathBuf::from(String::from_utf8(sysroot.stdout)?.trim());
    let vv = Command::new(&rustc).arg("-vV").output().context("running rustc -vV")?;
    let vv = String::from_utf8(vv.stdout)?;
    let host = vv
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .context("rustc -vV printed no host line")?;
    let lld = sysroot.join("lib/rustlib").join(host).join("bin/rust-lld");
    if !lld.exists() {
        bail!("rust-lld not found at {}", lld.display());
    }
    Ok(lld)
}

/// Links a relocatable AMDGPU object into a code object with rust-lld (test/corpus use only).
pub fn link_with_rust_lld(object: &[u8], work: &Path, stem: &str) -> Result<Vec<u8>> {
    link_many_with_rust_lld(&[object], work, stem)
}

/// Links relocatable AMDGPU objects, in this order, into one code object with rust-lld (test use only).
pub fn link_many_with_rust_lld(objects: &[&[u8]], work: &Path, stem: &str) -> Result<Vec<u8>> {
    std::fs::create_dir_all(work)?;
    let objs: Vec<PathBuf> = (0..objects.len()).map(|i| work.join(if i == 0 { format!("{stem}.o") } else { format!("{stem}.{i}.o") })).collect();
    let out = work.join(format!("{stem}.hsaco"));
    for (p, o) in objs.iter().zip(objects) {
        std::fs::write(p, o)?;
    }
    let status = Command::new(rust_lld()?)
        .args(["-flavor", "gnu", "-shared", "--no-undefined", "-o"])
        .arg(&out)
        .args(&objs)
        .status()
        .context("running rust-lld")?;
    if !status.success() {
        bail!("rust-lld failed for {stem} ({status})");
    }
    let bytes = std::fs::read(&out)?;
    for p in &objs {
        let _ = std::fs::remove_file(p);
    }
    let _ = std::fs::remove_file(&out);
    Ok(bytes)
}

/// Compiles and links one corpus kernel for one target.
pub fn build_one(source: &Path, target: GpuTarget, work: &Path) -> Result<Vec<u8>> {
    let stem = source.file_stem().unwrap().to_string_lossy().to_string();
    let ir = std::fs::read_to_string(source).with_context(|| format!("reading {}", source.display()))?;
    let obj = hx_llvm::compile_ir(&ir, &stem, target, OptLevel::O2, Emit::Object)
        .with_context(|| format!("compiling {stem} for {target}"))?;
    link_with_rust_lld(&obj, &work.join(target.cpu()), &stem)
}

/// The targets corpus object `stem` is built for, from its launch description.
pub fn targets_of(stem: &str) -> Result<Vec<GpuTarget>> {
    let obj = hx_corpus::object(stem).with_context(|| format!("reading the launch description of {stem}"))?;
    Ok(GpuTarget::ALL.into_iter().filter(|t| obj.builds_for(t.cpu())).collect())
}

/// Output path of one corpus object.
pub fn output_path(target: GpuTarget, stem: &str) -> PathBuf {
    corpus_dir().join(target.cpu()).join(format!("{stem}.hsaco"))
}

/// Builds the whole corpus. With `check`, compares against the checked-in files instead of writing,
/// and returns the list of files that differ (or are missing).
pub fn build(check: bool) -> Result<Vec<PathBuf>> {
    let work = std::env::temp_dir().join(format!("hx-corpus-{}", std::process::id()));
    let mut differ = Vec::new();
    for src in kernel_sources()? {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        for target in targets_of(&stem)? {
            let bytes = build_one(&src, target, &work)?;
            let out = output_path(target, &stem);
            if check {
                if std::fs::read(&out).ok().as_deref() != Some(bytes.as_slice()) {
                    differ.push(out);
                }
            } else {
                std::fs::create_dir_all(out.parent().unwrap())?;
                std::fs::write(&out, &bytes)?;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(differ)
}
