//! `cargo xtask hip [--check]`: builds corpus/hip with Debian's clang 22, ld.lld 22 and llc 22.
//!
//! The kernels are the team's own HIP (`.hip`), OpenCL C (`.cl`) and LLVM IR (`.ll`) sources in
//! `corpus/hip/src`. Each [`Case`] is compiled at -O3 for gfx1250, gfx942 and gfx950, as code object
//! v5 or v6, in one of three ways ([`Build`]): clang's HIP device compile, clang's OpenCL compile,
//! or plain `llc` on IR (clang's `-O1 -emit-llvm` output with the attributor's `amdgpu-no-*`
//! conclusions removed, or IR written by hand), which enables the dispatch-pointer, queue-pointer and
//! dispatch-id user SGPRs. There is no ROCm here: the sources use clang builtins only
//! (`src/hx_hip.h`, `src/hx_cl.h`).
//!
//! Writes `corpus/hip/<target>/<name>.hsaco`, the launch description `corpus/hip/<name>.toml` and
//! `corpus/hip/data/<name>/<arg>.bin` (inputs) / `<arg>.expected` (expected outputs: the element
//! type's bytes for integer outputs, little-endian f64 for float outputs). The inputs come from a
//! fixed-seed [`SplitMix64`]; the expected outputs from the host references in `hip_ref.rs`, plain
//! Rust computing what each kernel should produce.
//!
//! OpenCL `__local` pointer arguments are passed as the runtime passes them: a 32-bit by-value
//! argument holding the offset of the block the host sized for it in the work-group's LDS (after the
//! kernel's static LDS), with the blocks' bytes added to the launch's `dynamic_lds`. The format needs
//! nothing new for them.
//!
//! `--check` builds into a temporary folder and requires every file to equal the checked-in one.
//! Without clang-22, ld.lld-22 or llc-22 on PATH it prints why and does nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use hx_corpus::SplitMix64;

use crate::hip_ref::{Arg, Setup};

/// The targets every case is built for; the natives run with the gfx1250 build's geometry (a HIP
/// program chooses its block size; the kernels that look at the wave size are written to give the
/// same answer in wave32 and wave64).
pub const TARGETS: [&str; 3] = ["gfx1250", "gfx942", "gfx950"];

/// The tools, as Debian's clang-22 / lld-22 / llvm-22 packages install them.
const CLANG: &str = "clang-22";
const LLC: &str = "llc-22";
const LLD: &str = "ld.lld-22";

/// How a case's source becomes a code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// `clang -x hip --cuda-device-only` (linked by clang's ld.lld).
    Hip,
    /// `clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa`.
    OpenCl,
    /// `clang -x hip -O1 -emit-llvm`, the attributor's `"amdgpu-no-*"` attributes removed, then
    /// `llc -O3` and `ld.lld -shared`.
    LlcFromHip,
    /// Hand-written IR: `llc -O3` and `ld.lld -shared`.
    LlcIr,
}

/// One object of the suite.
pub struct Case {
    /// The object's name: `<name>.toml`, `<target>/<name>.hsaco`.
    pub name: &'static str,
    /// The source file in `corpus/hip/src`.
    pub src: &'static str,
    pub build: Build,
    /// Code object version (5 or 6).
    pub cov: u32,
    pub kernel: &'static str,
    /// Inputs (from the generator) and expected outputs (from the host reference).
    pub setup: fn(&mut SplitMix64) -> Setup,
}

/// Every case, in the order they are built.
pub fn cases() -> Vec<Case> {
    use crate::hip_ref as r;
    use Build::*;
    let c = |name, src, build, cov, kernel, setup| Case { name, src, build, cov, kernel, setup };
    vec![
        c("geometry", "geometry.hip", Hip, 5, "geometry", r::geometry as fn(&mut SplitMix64) -> Setup),
        c("geometry_v6", "geometry.hip", Hip, 6, "geometry", r::geometry),
        c("block_sum", "block_sum.hip", Hip, 5, "block_sum", r::block_sum),
        c("dyn_shared", "dyn_shared.hip", Hip, 6, "dyn_shared", r::dyn_shared),
        c("shuffle", "shuffle.hip", Hip, 5, "shuffle", r::shuffle),
        c("ballot", "ballot.hip", Hip, 5, "ballot", r::ballot),
        c("atomics", "atomics.hip", Hip, 5, "atomics", r::atomics),
        c("calls", "calls.hip", Hip, 5, "calls", r::calls),
        c("private_array", "private_array.hip", Hip, 6, "private_array", r::private_array),
        c("mixed_shared", "mixed_shared.hip", Hip, 5, "mixed_shared", r::mixed_shared),
        c("index64", "index64.hip", Hip, 6, "index64", r::index64),
        c("transpose", "transpose.hip", Hip, 5, "transpose", r::transpose),
        c("scan", "scan.hip", Hip, 6, "scan", r::scan),
        c("softmax", "softmax.hip", Hip, 5, "softmax", r::softmax),
        c("half2_math", "half2_math.hip", Hip, 5, "half2_math", r::half2_math),
        c("cl_local_args", "cl_local_args.cl", OpenCl, 5, "local_args", r::cl_local_args),
        c("cl_vec4", "cl_vec4.cl", OpenCl, 6, "vec4", r::cl_vec4),
        c("cl_atomics", "cl_atomics.cl", OpenCl, 6, "atomics_cl", r::cl_atomics),
        c("llc_packet", "llc_packet.hip", LlcFromHip, 5, "llc_packet", r::llc_packet),
        c("llc_rows", "llc_rows.ll", LlcIr, 6, "llc_rows", r::llc_rows),
    ]
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Whether `tool --version` runs.
fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!("{what} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// Removes the attributor's `"amdgpu-no-*"` conclusions from IR text, leaving what a front end
/// that does not run it would give `llc`.
fn strip_attributor(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len());
    let mut rest = ir;
    while let Some(at) = rest.find(" \"amdgpu-no-") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        match tail.find('"') {
            Some(end) => rest = &tail[end + 1..],
            None => {
                rest = tail;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Compiles one case for one target into `out`; `work` holds intermediates.
fn compile(case: &Case, cpu: &str, src_dir: &Path, work: &Path, out: &Path) -> Result<()> {
    let what = format!("{} for {cpu}", case.src);
    let cov = format!("-mcode-object-version={}", case.cov);
    let hip = |cmd: &mut Command| {
        cmd.current_dir(src_dir)
            .args(["-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", "--no-gpu-bundle-output"])
            .arg(format!("--offload-arch={cpu}"))
            // A fixed compilation-unit id: clang's default hashes the output path into the
            // `__hip_cuid_*` symbol, and the objects must not depend on where they are built.
            .arg(format!("-cuid={}", case.name))
            .arg(&cov)
            .arg(case.src);
    };
    let llc_link = |ir: &Path| -> Result<()> {
        let obj = work.join(format!("{}-{cpu}.o", case.name));
        run(
            Command::new(LLC)
                .args(["-O3", "-mtriple=amdgcn-amd-amdhsa", "-filetype=obj"])
                .arg(format!("-mcpu={cpu}"))
                .arg(ir)
                .arg("-o")
                .arg(&obj),
            &format!("{LLC} on {what}"),
        )?;
        run(Command::new(LLD).arg("-shared").arg(&obj).arg("-o").arg(out), &format!("{LLD} on {what}"))
    };
    match case.build {
        Build::Hip => {
            let mut cmd = Command::new(CLANG);
            hip(&mut cmd);
            run(cmd.arg("-O3").arg("-o").arg(out), &format!("{CLANG} on {what}"))
        }
        Build::OpenCl => run(
            Command::new(CLANG)
                .current_dir(src_dir)
                .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O3"])
                .arg(format!("-mcpu={cpu}"))
                .arg(&cov)
                .arg(case.src)
                .arg("-o")
                .arg(out),
            &format!("{CLANG} on {what}"),
        ),
        Build::LlcFromHip => {
            let ll = work.join(format!("{}-{cpu}.ll", case.name));
            let mut cmd = Command::new(CLANG);
            hip(&mut cmd);
            run(cmd.args(["-O1", "-emit-llvm", "-S"]).arg("-o").arg(&ll), &format!("{CLANG} -emit-llvm on {what}"))?;
            let text = std::fs::read_to_string(&ll).with_context(|| format!("reading {}", ll.display()))?;
            let stripped = work.join(format!("{}-{cpu}.noattr.ll", case.name));
            std::fs::write(&stripped, strip_attributor(&text))?;
            llc_link(&stripped)
        }
        Build::LlcIr => llc_link(&src_dir.join(case.src)),
    }
}

/// The static LDS of `kernel` in the object at `path` (where the runtime starts the blocks of
/// `__local` pointer arguments), checking the object has the kernel.
fn static_lds(path: &Path, kernel: &str) -> Result<u64> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let co = hx_codeobj::CodeObject::parse(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let meta = co
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(kernel))
        .ok_or_else(|| anyhow::anyhow!("{}: no kernel `{kernel}` in the metadata", path.display()))?;
    Ok(meta.group_segment_fixed_size)
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Writes the data files of `setup` and returns the launch description's text.
fn describe(case: &Case, setup: &Setup, lds_base: u64, out: &Path) -> Result<String> {
    let data = out.join("data").join(case.name);
    std::fs::create_dir_all(&data)?;
    let (lang, how) = match case.build {
        Build::Hip => ("HIP", "clang-22 -x hip --cuda-device-only -O3"),
        Build::OpenCl => ("OpenCL C", "clang-22 -x cl -cl-std=CL2.0 -O3"),
        Build::LlcFromHip => ("HIP", "clang-22 -O1 -emit-llvm without the attributor's amdgpu-no-* attributes, llc-22 -O3"),
        Build::LlcIr => ("hand-written LLVM IR", "llc-22 -O3"),
    };
    let mut t = String::new();
    writeln!(t, "# {lang}: src/{} kernel `{}`, built by {how}, code object v{}.", case.src, case.kernel, case.cov)?;
    writeln!(t, "# {}", setup.about)?;
    writeln!(t, "# Generated by `cargo xtask hip` (xtask/src/hip.rs, references in xtask/src/hip_ref.rs); do not edit.")?;
    writeln!(t, "targets = [{}]", TARGETS.map(toml_str).join(", "))?;
    // The __local blocks follow the static LDS, each 16-byte aligned.
    let mut lds_end = lds_base;
    let mut local_offsets = Vec::new();
    for a in &setup.args {
        if let Arg::Local { bytes, .. } = a {
            lds_end = lds_end.next_multiple_of(16);
            local_offsets.push(lds_end);
            lds_end += *bytes as u64;
        }
    }
    let dynamic_lds = setup.dynamic_lds as u64 + (lds_end - lds_base);
    writeln!(t, "\n[[launch]]\nkernel = {}", toml_str(case.kernel))?;
    writeln!(t, "grid = {:?}\nblock = {:?}\ndynamic_lds = {dynamic_lds}", setup.grid, setup.block)?;
    let mut locals = local_offsets.into_iter();
    for a in &setup.args {
        writeln!(t, "\n[[launch.args]]")?;
        match a {
            Arg::Buf { name, elem, init, want } => {
                let count = init.len() / elem.size();
                writeln!(t, "name = {}\nkind = \"buffer\"\nelem = \"{elem}\"\ncount = {count}", toml_str(name))?;
                std::fs::write(data.join(format!("{name}.bin")), init)?;
                writeln!(t, "init = {{ file = \"data/{}/{name}.bin\" }}", case.name)?;
                if let Some(w) = want {
                    writeln!(t, "output = true\nexpected = \"data/{}/{name}.expected\"", case.name)?;
                    std::fs::write(data.join(format!("{name}.expected")), w.bytes())?;
                    if let Some((atol, rtol, why)) = w.tolerance() {
                        writeln!(t, "# {why}\natol = {atol:?}\nrtol = {rtol:?}")?;
                    }
                }
            }
            Arg::Val { name, elem, value } => {
                writeln!(t, "name = {}\nkind = \"value\"\nelem = \"{elem}\"\nvalue = {value}", toml_str(name))?;
            }
            Arg::Local { name, bytes } => {
                let at = locals.next().unwrap_or(0);
                writeln!(
                    t,
                    "# `__local` pointer: the runtime passes the LDS offset of the {bytes}-byte block the host sized for it\nname = {}\nkind = \"value\"\nelem = \"u32\"\nvalue = {at}",
                    toml_str(name)
                )?;
            }
        }
    }
    Ok(t)
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The seed of a case's inputs: by kernel source, so that a v5 and a v6 build of one kernel get the
/// same data.
pub const SEED: u64 = 2026;

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

/// Whether `f` (relative to corpus/hip) is a file `cargo xtask hip` writes.
fn is_generated(f: &Path) -> bool {
    !f.starts_with("src") && f.extension().is_some_and(|e| e == "hsaco" || e == "toml" || e == "bin" || e == "expected")
}

/// Builds corpus/hip; with `check`, into a temporary folder, returning the generated files that
/// differ from the checked-in ones (or are missing on either side). Returns no differences, having
/// printed why, when the compilers are not installed.
pub fn build(check: bool) -> Result<Vec<PathBuf>> {
    let missing: Vec<&str> = [CLANG, LLD, LLC].into_iter().filter(|t| !have(t)).collect();
    if !missing.is_empty() {
        eprintln!(
            "skipping corpus/hip: {} not found (Debian: apt-get install clang-22 lld-22 llvm-22)",
            missing.join(", ")
        );
        return Ok(Vec::new());
    }
    let suite = repo().join("corpus").join("hip");
    let src_dir = suite.join("src");
    let tmp = std::env::temp_dir().join(format!("hx-hip-{}", std::process::id()));
    let out = if check { tmp.join("out") } else { suite.clone() };
    let work = tmp.join("work");
    std::fs::create_dir_all(&work)?;
    if !check {
        // What a previous build generated goes, so that a renamed case or argument leaves nothing stale.
        for f in files_under(&suite)? {
            if is_generated(&f) {
                std::fs::remove_file(suite.join(&f))?;
            }
        }
    }
    for cpu in TARGETS {
        std::fs::create_dir_all(out.join(cpu))?;
    }
    for case in cases() {
        let mut lds = Vec::new();
        for cpu in TARGETS {
            let obj = out.join(cpu).join(format!("{}.hsaco", case.name));
            compile(&case, cpu, &src_dir, &work, &obj)?;
            lds.push(static_lds(&obj, case.kernel)?);
        }
        if lds.iter().any(|&l| l != lds[0]) {
            bail!("{}: static LDS differs between targets ({lds:?}); __local offsets would too", case.name);
        }
        let mut rng = SplitMix64::new(SEED ^ fnv1a(case.src));
        let setup = (case.setup)(&mut rng);
        let text = describe(&case, &setup, lds[0], &out)?;
        std::fs::write(out.join(format!("{}.toml", case.name)), text)?;
        eprintln!("{}: {} for {}", case.name, case.src, TARGETS.join(", "));
    }
    if !check {
        let _ = std::fs::remove_dir_all(&tmp);
        return Ok(Vec::new());
    }
    let built = files_under(&out)?;
    let mut differ = Vec::new();
    for f in &built {
        if std::fs::read(out.join(f)).ok() != std::fs::read(suite.join(f)).ok() {
            differ.push(suite.join(f));
        }
    }
    for f in files_under(&suite)? {
        if is_generated(&f) && !built.contains(&f) {
            differ.push(suite.join(f));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(differ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_attributor_removes_only_the_conclusions() {
        let ir = "attributes #0 = { nounwind \"amdgpu-no-queue-ptr\" \"amdgpu-flat-work-group-size\"=\"1,1024\" \"amdgpu-no-dispatch-id\" }";
        assert_eq!(strip_attributor(ir), "attributes #0 = { nounwind \"amdgpu-flat-work-group-size\"=\"1,1024\" }");
    }

    #[test]
    fn case_names_are_unique() {
        let mut names: Vec<&str> = cases().iter().map(|c| c.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
