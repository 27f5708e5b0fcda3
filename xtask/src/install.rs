//! `cargo xtask install --prefix DIR`: lay out an installed tree that a HotSwap-patched ROCR (or
//! ROCm's mirage, as `$HOTSWAP_HOME`) picks up as its COMGR, from artifacts cargo built:
//!
//! ```text
//! DIR/lib/libamd_comgr.so.3            the COMGR shim (SONAME libamd_comgr.so.3)
//! DIR/lib/libamd_comgr.so -> libamd_comgr.so.3
//! DIR/lib/libhotswap_capi.so.<version> the C API (SONAME libhotswap_capi.so.0)
//! DIR/lib/libhotswap_capi.so.0 -> libhotswap_capi.so.<version>
//! DIR/lib/libhotswap_capi.so -> libhotswap_capi.so.0
//! DIR/lib/<libLLVM's SONAME>           the Rust toolchain's libLLVM, copied (or hard-linked)
//! DIR/lib/pkgconfig/hotswap-capi.pc
//! DIR/include/hotswap.h
//! DIR/bin/hotswap-xlate
//! DIR/share/hotswap/env.sh             the HotSwap environment contract, for runs without mirage
//! ```
//!
//! Every installed ELF gets an `$ORIGIN`-relative RUNPATH (`$ORIGIN` in lib/, `$ORIGIN/../lib` in
//! bin/) in place of cargo's absolute path to the toolchain, so the tree finds its own libLLVM
//! wherever it is moved. The RUNPATH string is rewritten in place in `.dynstr` (the new one is
//! shorter; the rest is padded with NULs), after checking that no other dynamic string shares
//! those bytes; no external tool (patchelf) is needed.

use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};

/// The files an install takes, found in a cargo profile directory.
#[derive(Debug, Clone)]
pub struct Artifacts {
    pub comgr: PathBuf,
    pub capi: PathBuf,
    /// The CLI; None when that build did not make it (tests build libraries only).
    pub cli: Option<PathBuf>,
    /// The libLLVM the libraries load (resolved through their DT_NEEDED and build RUNPATH).
    pub libllvm: PathBuf,
    pub header: PathBuf,
    pub pc_template: PathBuf,
}

/// The repository root (xtask lives in `<root>/xtask`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// The newer of `<dir>/<name>` and `<dir>/deps/<name>`: `cargo build` leaves the library in both
/// (the same file), a test build only in deps/ (a dependency's cdylib, or a lib target built for
/// its tests), where an older `cargo build`'s copy may still sit one level up.
fn in_profile(dir: &Path, name: &str) -> Option<PathBuf> {
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [dir.join(name), dir.join("deps").join(name)].into_iter().filter(|p| p.is_file()).max_by_key(modified)
}

/// Finds the artifacts in a cargo profile directory (`target/release`, `target/debug`).
pub fn find_artifacts(profile_dir: &Path) -> Result<Artifacts> {
    let comgr = in_profile(profile_dir, "libhotswap_comgr.so")
        .ok_or_else(|| anyhow!("{}: no libhotswap_comgr.so (build -p hotswap-comgr)", profile_dir.display()))?;
    let capi = in_profile(profile_dir, "libhotswap_capi.so")
        .ok_or_else(|| anyhow!("{}: no libhotswap_capi.so (build -p hotswap-capi)", profile_dir.display()))?;
    let cli = Some(profile_dir.join("hotswap-xlate")).filter(|p| p.is_file());
    let libllvm = find_libllvm(&comgr)?;
    let root = repo_root();
    Ok(Artifacts {
        comgr,
        capi,
        cli,
        libllvm,
        header: root.join("crates/capi/include/hotswap.h"),
        pc_template: root.join("crates/capi/hotswap-capi.pc.in"),
    })
}

/// The libLLVM a built library loads: its DT_NEEDED `libLLVM*` entry, looked up in its RUNPATH.
pub fn find_libllvm(lib: &Path) -> Result<PathBuf> {
    let bytes = std::fs::read(lib).with_context(|| format!("reading {}", lib.display()))?;
    let elf = goblin::elf::Elf::parse(&bytes).with_context(|| format!("{}: not an ELF file", lib.display()))?;
    let needed = elf
        .libraries
        .iter()
        .find(|n| n.starts_with("libLLVM"))
        .ok_or_else(|| anyhow!("{}: no DT_NEEDED libLLVM entry", lib.display()))?;
    for dir in elf.runpaths.iter().chain(elf.rpaths.iter()).flat_map(|r| r.split(':')) {
        let p = Path::new(dir).join(needed);
        if p.is_file() {
            return Ok(p);
        }
    }
    bail!("{}: {needed} is in none of its RUNPATH directories {:?}", lib.display(), elf.runpaths)
}

/// Rewrites the RUNPATH (or RPATH) of an ELF image in place to `new`, which must not be longer
/// than the old string. Fails, changing nothing, if the image has none, if `new` is longer, or
/// if another dynamic string (a symbol, DT_NEEDED, SONAME, version name) lies in the old bytes.
pub fn set_runpath(image: &mut [u8], new: &str) -> Result<()> {
    let (file_off, old_len) = {
        let elf = goblin::elf::Elf::parse(image).context("not an ELF file")?;
        let dynamic = elf.dynamic.as_ref().ok_or_else(|| anyhow!("no dynamic section"))?;
        let entry = dynamic
            .dyns
            .iter()
            .find(|d| d.d_tag == goblin::elf::dynamic::DT_RUNPATH || d.d_tag == goblin::elf::dynamic::DT_RPATH)
            .ok_or_else(|| anyhow!("no DT_RUNPATH or DT_RPATH entry"))?;
        let str_off = entry.d_val as usize;
        let dynstr = elf
            .section_headers
            .iter()
            .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".dynstr"))
            .ok_or_else(|| anyhow!("no .dynstr section"))?;
        let old = elf.dynstrtab.get_at(str_off).ok_or_else(|| anyhow!("RUNPATH offset {str_off} is outside .dynstr"))?;
        if new.len() > old.len() {
            bail!("the new RUNPATH `{new}` is longer than the old `{old}` ({} > {} bytes)", new.len(), old.len());
        }
        // No other string may start inside the old one (linkers may share string tails).
        let inside = |o: usize| o > str_off && o <= str_off + old.len();
        let mut others: Vec<usize> = elf.dynsyms.iter().map(|s| s.st_name).collect();
        others.extend(dynamic.dyns.iter().filter(|d| {
            matches!(d.d_tag, goblin::elf::dynamic::DT_NEEDED | goblin::elf::dynamic::DT_SONAME)
        }).map(|d| d.d_val as usize));
        if let Some(vn) = &elf.verneed {
            for n in vn.iter() {
                others.push(n.vn_file);
                others.extend(n.iter().map(|a| a.vna_name));
            }
        }
        if let Some(vd) = &elf.verdef {
            for d in vd.iter() {
                others.extend(d.iter().map(|a| a.vda_name));
            }
        }
        if let Some(o) = others.into_iter().find(|o| inside(*o)) {
            bail!("another dynamic string (at .dynstr offset {o}) shares the RUNPATH's bytes");
        }
        (dynstr.sh_offset as usize + str_off, old.len())
    };
    let end = file_off + old_len;
    if end >= image.len() {
        bail!("RUNPATH bytes {file_off}..{end} are outside the file");
    }
    image[file_off..file_off + new.len()].copy_from_slice(new.as_bytes());
    image[file_off + new.len()..=end].fill(0);
    Ok(())
}

/// The RUNPATH of an ELF file, for checks.
pub fn runpath(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let elf = goblin::elf::Elf::parse(&bytes).with_context(|| format!("{}: not an ELF file", path.display()))?;
    Ok(elf.runpaths.iter().chain(elf.rpaths.iter()).map(|s| s.to_string()).collect())
}

fn copy_patched(from: &Path, to: &Path, runpath: &str) -> Result<()> {
    let mut bytes = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    set_runpath(&mut bytes, runpath).with_context(|| format!("{}: setting RUNPATH {runpath}", from.display()))?;
    let _ = std::fs::remove_file(to);
    std::fs::write(to, &bytes).with_context(|| format!("writing {}", to.display()))?;
    set_mode(to, 0o755)
}

fn set_mode(p: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).with_context(|| format!("chmod {}", p.display()))
}

fn symlink(target: &str, link: &Path) -> Result<()> {
    let _ = std::fs::remove_file(link);
    std::os::unix::fs::symlink(target, link).with_context(|| format!("symlink {} -> {target}", link.display()))
}

/// The SONAME of an ELF file.
pub fn soname(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let elf = goblin::elf::Elf::parse(&bytes).with_context(|| format!("{}: not an ELF file", path.display()))?;
    elf.soname.map(str::to_string).ok_or_else(|| anyhow!("{}: no SONAME", path.display()))
}

/// Lays the tree out under `prefix` (created if missing); returns the files written.
pub fn install(a: &Artifacts, prefix: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(prefix).with_context(|| format!("creating {}", prefix.display()))?;
    let prefix = prefix.canonicalize().with_context(|| format!("resolving {}", prefix.display()))?;
    let (lib, bin, include, pkgconfig, share) = (
        prefix.join("lib"),
        prefix.join("bin"),
        prefix.join("include"),
        prefix.join("lib/pkgconfig"),
        prefix.join("share/hotswap"),
    );
    for d in [&lib, &bin, &include, &pkgconfig, &share] {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let mut written = Vec::new();

    // COMGR: the file is named by its SONAME, the development name links to it.
    let comgr_soname = soname(&a.comgr)?;
    if comgr_soname != "libamd_comgr.so.3" {
        bail!("{} has SONAME {comgr_soname}, not libamd_comgr.so.3", a.comgr.display());
    }
    copy_patched(&a.comgr, &lib.join(&comgr_soname), "$ORIGIN")?;
    symlink(&comgr_soname, &lib.join("libamd_comgr.so"))?;
    written.extend([lib.join(&comgr_soname), lib.join("libamd_comgr.so")]);

    // The C API: the real file carries the full version; SONAME and development links.
    let capi_soname = soname(&a.capi)?;
    let real = format!("libhotswap_capi.so.{}", env!("CARGO_PKG_VERSION"));
    copy_patched(&a.capi, &lib.join(&real), "$ORIGIN")?;
    symlink(&real, &lib.join(&capi_soname))?;
    symlink(&capi_soname, &lib.join("libhotswap_capi.so"))?;
    written.extend([lib.join(&real), lib.join(&capi_soname), lib.join("libhotswap_capi.so")]);

    // libLLVM under its SONAME (the name the libraries' DT_NEEDED asks for); a hard link when the
    // tree is on the same file system (it is about 200 MB), else a copy.
    let llvm_name = soname(&a.libllvm)?;
    let llvm_to = lib.join(&llvm_name);
    let same = std::fs::metadata(&llvm_to).ok().map(|m| m.len())
        == std::fs::metadata(&a.libllvm).ok().map(|m| m.len());
    if !same {
        let _ = std::fs::remove_file(&llvm_to);
        if std::fs::hard_link(&a.libllvm, &llvm_to).is_err() {
            std::fs::copy(&a.libllvm, &llvm_to)
                .with_context(|| format!("copying {} to {}", a.libllvm.display(), llvm_to.display()))?;
        }
    }
    written.push(llvm_to);

    if let Some(cli) = &a.cli {
        copy_patched(cli, &bin.join("hotswap-xlate"), "$ORIGIN/../lib")?;
        written.push(bin.join("hotswap-xlate"));
    }

    let header_to = include.join("hotswap.h");
    std::fs::copy(&a.header, &header_to).with_context(|| format!("copying {}", a.header.display()))?;
    written.push(header_to);

    let template = std::fs::read_to_string(&a.pc_template).with_context(|| format!("reading {}", a.pc_template.display()))?;
    let pc = template
        .replace("@PREFIX@", &prefix.display().to_string())
        .replace("@LIBDIR@", "${prefix}/lib")
        .replace("@INCLUDEDIR@", "${prefix}/include")
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"));
    std::fs::write(pkgconfig.join("hotswap-capi.pc"), pc)?;
    written.push(pkgconfig.join("hotswap-capi.pc"));

    std::fs::write(share.join("env.sh"), env_sh(&prefix))?;
    written.push(share.join("env.sh"));
    Ok(written)
}

/// `share/hotswap/env.sh`: the HotSwap environment contract for a run without mirage.
pub fn env_sh(prefix: &Path) -> String {
    format!(
        r#"# hotswap-xlate as COMGR, for a HotSwap-patched ROCR run without mirage. Source it:
#     . {prefix}/share/hotswap/env.sh
# The runtime then finds {prefix}/lib/libamd_comgr.so.3 (through LD_LIBRARY_PATH) as its COMGR.
# Every variable keeps a value already set.
HOTSWAP_HOME="${{HOTSWAP_HOME:-{prefix}}}"
export HOTSWAP_HOME
LD_LIBRARY_PATH="$HOTSWAP_HOME/lib${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
export LD_LIBRARY_PATH
# The cross-generation runtime translates only when asked to.
export HSA_HOTSWAP_ENABLE="${{HSA_HOTSWAP_ENABLE:-1}}"
# Code objects for this processor and wave size are translated.
export HSA_HOTSWAP_SOURCE_TARGET="${{HSA_HOTSWAP_SOURCE_TARGET:-gfx1250:32}}"
# Empty: translate for the agent's own ISA; or a target such as gfx950.
export HSA_HOTSWAP_ISA_OVERRIDE="${{HSA_HOTSWAP_ISA_OVERRIDE:-}}"
# 1: a code object that does not translate fails its load instead of loading the original.
export HSA_HOTSWAP_STRICT="${{HSA_HOTSWAP_STRICT:-1}}"
export HSA_HOTSWAP_STRICT_MODE="${{HSA_HOTSWAP_STRICT_MODE:-$HSA_HOTSWAP_STRICT}}"
# Translations are cached here (entries *.hxc, apart from the runtime's own *.co files).
export HSA_HOTSWAP_CACHE_DIR="${{HSA_HOTSWAP_CACHE_DIR:-${{XDG_CACHE_HOME:-$HOME/.cache}}/rocm/hotswap}}"
"#,
        prefix = prefix.display()
    )
}

/// The command: build the release artifacts, then install them under `prefix`.
pub fn run(prefix: &Path, profile_dir: Option<&Path>) -> Result<()> {
    let profile_dir = match profile_dir {
        Some(d) => d.to_path_buf(),
        None => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(&cargo)
                .current_dir(repo_root())
                .args(["build", "--release", "-p", "hotswap-comgr", "-p", "hotswap-capi", "-p", "hotswap-xlate"])
                .status()
                .with_context(|| format!("running {cargo} build"))?;
            if !status.success() {
                bail!("cargo build --release failed ({status})");
            }
            let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target"));
            target.join("release")
        }
    };
    let a = find_artifacts(&profile_dir)?;
    if a.cli.is_none() {
        bail!("{}: no hotswap-xlate binary (build -p hotswap-xlate)", profile_dir.display());
    }
    for f in install(&a, prefix)? {
        println!("{}", f.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary is an ELF with a RUNPATH (xtask's build script gives it the toolchain's).
    fn own_image() -> Vec<u8> {
        std::fs::read(std::env::current_exe().unwrap()).unwrap()
    }

    #[test]
    fn runpath_is_rewritten_in_place_and_nothing_else_changes() {
        let before = own_image();
        let old = goblin::elf::Elf::parse(&before).unwrap();
        assert!(!old.runpaths.is_empty(), "the test binary has no RUNPATH to rewrite");
        let mut after = before.clone();
        set_runpath(&mut after, "$ORIGIN/../lib").unwrap();
        assert_eq!(after.len(), before.len());
        let new = goblin::elf::Elf::parse(&after).unwrap();
        assert_eq!(new.runpaths, ["$ORIGIN/../lib"]);
        assert_eq!(new.libraries, old.libraries);
        let names = |e: &goblin::elf::Elf| -> Vec<String> {
            e.dynsyms.iter().map(|s| e.dynstrtab.get_at(s.st_name).unwrap_or("?").to_string()).collect()
        };
        assert_eq!(names(&new), names(&old));
        // Only bytes of the old string changed.
        let changed: Vec<usize> = (0..before.len()).filter(|&i| before[i] != after[i]).collect();
        let span = changed.last().unwrap() - changed.first().unwrap() + 1;
        assert!(span <= old.runpaths.join(":").len(), "{span} bytes apart");
    }

    #[test]
    fn runpath_rewrite_refuses_what_it_cannot_do() {
        let mut image = own_image();
        let long = "x".repeat(4096);
        let e = set_runpath(&mut image, &long).unwrap_err().to_string();
        assert!(e.contains("longer than the old"), "{e}");
        assert_eq!(image, own_image(), "a refused rewrite changed bytes");
        let mut garbage = vec![0x7fu8, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0];
        assert!(set_runpath(&mut garbage, "$ORIGIN").is_err());
        assert!(set_runpath(&mut [], "$ORIGIN").is_err());
    }
}
