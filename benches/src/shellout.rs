//! The pipeline HotSwap's COMGR path uses, rebuilt on the same libLLVM: raise in-process, write
//! the raised IR to a file, compile it in a separate llc-equivalent process (`hx-llc`), link the
//! object with rust-lld (`-flavor gnu -shared`, as ROCm links code objects with ld.lld) and read
//! the code object back.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct ShellOut {
    llc: PathBuf,
    lld: PathBuf,
    work: PathBuf,
}

/// Where `hx-llc` is: `$HX_LLC`, else next to the running executable (or its parent directory,
/// for test and bench executables under `deps/`).
pub fn find_llc() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("HX_LLC") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()?;
    let dir = exe.parent().context("executable without a directory")?;
    for d in [Some(dir), dir.parent()].into_iter().flatten() {
        let p = d.join("hx-llc");
        if p.exists() {
            return Ok(p);
        }
    }
    bail!("hx-llc not found next to {} (build it: cargo build --release -p hx-benches --bins)", exe.display())
}

impl ShellOut {
    /// `work` is a scratch directory for the IR, object and code object files.
    pub fn new(llc: PathBuf, work: &Path) -> Result<ShellOut> {
        std::fs::create_dir_all(work)?;
        Ok(ShellOut { llc, lld: xtask::corpus::rust_lld()?, work: work.to_path_buf() })
    }

    /// The whole pipeline on one gfx1250 code object.
    pub fn translate(&self, bytes: &[u8], options: &hotswap::Options) -> Result<Vec<u8>> {
        let ir = hotswap::translate::raised_ir(bytes, options)?;
        self.compile_and_link(&ir, options)
    }

    /// The out-of-process part: IR text -> file -> hx-llc -> rust-lld -> bytes.
    pub fn compile_and_link(&self, ir: &str, options: &hotswap::Options) -> Result<Vec<u8>> {
        let ll = self.work.join("kernel.ll");
        let obj = self.work.join("kernel.o");
        let out = self.work.join("kernel.hsaco");
        std::fs::write(&ll, ir)?;
        let opt = format!("-O{}", &format!("{:?}", options.opt_level)[1..]);
        let s = Command::new(&self.llc)
            .arg(&ll)
            .arg(format!("-mcpu={}", options.target.cpu()))
            .arg(opt)
            .arg("-o")
            .arg(&obj)
            .status()
            .with_context(|| format!("running {}", self.llc.display()))?;
        if !s.success() {
            bail!("hx-llc failed ({s})");
        }
        let s = Command::new(&self.lld)
            .args(["-flavor", "gnu", "-shared", "--no-undefined", "-o"])
            .arg(&out)
            .arg(&obj)
            .status()
            .context("running rust-lld")?;
        if !s.success() {
            bail!("rust-lld failed ({s})");
        }
        Ok(std::fs::read(&out)?)
    }
}

/// The real shell-out: Debian's LLVM 22 tools (`opt-22`, `llc-22`, `ld.lld-22`, package llvm-22
/// and lld-22) as separate processes on the raised IR, the pipeline AMD's HotSwap shells out to.
pub struct RealTools {
    pub opt: PathBuf,
    pub llc: PathBuf,
    pub lld: PathBuf,
    work: PathBuf,
}

/// `name` in a directory of `$PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

impl RealTools {
    /// `Err` naming the missing tool when any is not installed.
    pub fn find(work: &Path) -> Result<RealTools> {
        let get = |n: &str| which(n).with_context(|| format!("{n} is not installed (Debian: apt-get install llvm-22 lld-22)"));
        std::fs::create_dir_all(work)?;
        Ok(RealTools { opt: get("opt-22")?, llc: get("llc-22")?, lld: get("ld.lld-22")?, work: work.to_path_buf() })
    }

    fn run(cmd: &mut Command, what: &str) -> Result<()> {
        let o = cmd.output().with_context(|| format!("running {what}"))?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            bail!("{what} failed ({}): {}", o.status, err.lines().next().unwrap_or(""));
        }
        Ok(())
    }

    /// `opt-22 -O2`, `llc-22 -O2 -mcpu=<target>`, `ld.lld-22 -shared` on IR text; the code object.
    pub fn compile_and_link(&self, ir: &str, cpu: &str) -> Result<Vec<u8>> {
        let (ll, bc, obj, out) =
            (self.work.join("k.ll"), self.work.join("k.bc"), self.work.join("k.o"), self.work.join("k.hsaco"));
        std::fs::write(&ll, ir)?;
        Self::run(Command::new(&self.opt).arg("-O2").arg(format!("-mcpu={cpu}")).arg(&ll).arg("-o").arg(&bc), "opt-22")?;
        self.llc_only(&bc, cpu, &obj)?;
        Self::run(Command::new(&self.lld).args(["-shared", "--no-undefined", "-o"]).arg(&out).arg(&obj), "ld.lld-22")?;
        Ok(std::fs::read(&out)?)
    }

    /// `llc-22 -O2 -mcpu=<cpu> -filetype=obj` on an IR file (text or bitcode).
    pub fn llc_only(&self, input: &Path, cpu: &str, obj: &Path) -> Result<()> {
        Self::run(
            Command::new(&self.llc).args(["-O2", "-mtriple=amdgcn-amd-amdhsa", "-filetype=obj"]).arg(format!("-mcpu={cpu}")).arg(input).arg("-o").arg(obj),
            "llc-22",
        )
    }

    /// The scratch directory.
    pub fn work(&self) -> &Path {
        &self.work
    }
}
