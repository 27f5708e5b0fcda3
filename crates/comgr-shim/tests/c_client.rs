//! A real C client: tests/c/loader.c, compiled with the system C compiler, dlopens the shim cdylib
//! that cargo built for this test run and follows a runtime loader's call sequence, on 1 and on 16
//! threads. The expected status and message come from the facade (`hotswap::translate`), so the
//! test holds today (translation fails, and the loader must see exactly that failure) and on the
//! day translation returns bytes (then the loader must get a gfx942 code object).

use std::path::{Path, PathBuf};
use std::process::Command;

/// target/<profile>, from this test binary's path (target/<profile>/deps/c_client-<hash>).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).expect("test binary lives in <target>/<profile>/deps").to_path_buf()
}

/// The cdylib of this build: cargo compiles the lib target once with both crate types (cdylib +
/// rlib) for the tests and leaves the .so in deps/ (`cargo build` also copies it up one level).
pub fn cdylib() -> PathBuf {
    let dir = profile_dir();
    let candidates = [dir.join("deps/libhotswap_comgr.so"), dir.join("libhotswap_comgr.so")];
    candidates.iter().find(|p| p.exists()).cloned().unwrap_or_else(|| {
        panic!("libhotswap_comgr.so is in none of {candidates:?}: it is built with this crate's lib target (crate-type cdylib + rlib)")
    })
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-comgr").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)
}

fn build_loader(dir: &Path) -> PathBuf {
    let exe = dir.join("loader");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/loader.c");
    let out = Command::new("cc")
        .args(["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-O1", "-pthread"])
        .arg(&src)
        .args(["-ldl", "-o"])
        .arg(&exe)
        .output()
        .expect("the system C compiler `cc` runs");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// What the shim must report for `input` translated gfx1250 -> gfx942 in strict mode.
fn expected(input: &[u8]) -> (i32, String) {
    let options = hotswap::Options { target: hotswap::GpuTarget::Gfx942, strict: true, ..Default::default() };
    match hotswap::translate(input, &options) {
        Ok(_) => (0, String::new()),
        Err(e) => (1, e.to_string()),
    }
}

fn run_loader(threads: u32, cache: &Path, dir: &Path) -> String {
    let input = corpus("gfx1250/saxpy.hsaco");
    let (status, message) = expected(&std::fs::read(&input).unwrap());
    run_loader_expecting(threads, cache, dir, status, &message)
}

fn run_loader_expecting(threads: u32, cache: &Path, dir: &Path, status: i32, message: &str) -> String {
    let exe = build_loader(dir);
    let input = corpus("gfx1250/saxpy.hsaco");
    let out_file = dir.join("out.hsaco");
    let mut cmd = Command::new(&exe);
    cmd.arg(cdylib()).arg(&input).arg(status.to_string()).arg(message).arg(&out_file).arg(threads.to_string());
    for v in hx_cache::env::ALL {
        cmd.env_remove(v);
    }
    cmd.env("HSA_HOTSWAP_CACHE_DIR", cache);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "loader ({threads} threads) failed: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ALL OK"), "{stdout}");
    if status == 0 {
        let co = hotswap::codeobj::CodeObject::parse(&std::fs::read(&out_file).unwrap()).unwrap();
        assert_eq!(co.processor(), Some("gfx942"));
    } else {
        assert!(!out_file.exists(), "a failed rewrite wrote output");
    }
    stdout
}

#[test]
fn loader_sequence_one_thread() {
    let dir = scratch("one");
    run_loader(1, &dir.join("cache"), &dir);
}

#[test]
fn loader_sequence_sixteen_threads() {
    let dir = scratch("sixteen");
    run_loader(16, &dir.join("cache"), &dir);
}

#[test]
fn loader_success_path_from_the_cache_sixteen_threads() {
    // The success half of the loader sequence, today: plant a gfx942 code object as the cache
    // entry of this input, so all 16 threads get SUCCESS, size then bytes, a gfx942 ISA name, and
    // the planted object back (the translator never runs for a hit).
    let dir = scratch("from-cache");
    let cache = dir.join("cache");
    let input = std::fs::read(corpus("gfx1250/saxpy.hsaco")).unwrap();
    let planted = std::fs::read(corpus("gfx942/saxpy.hsaco")).unwrap();
    let isa = |s| hotswap_comgr::isa::IsaName::parse(s).unwrap();
    let options = hotswap::Options { target: hotswap::GpuTarget::Gfx942, strict: true, ..Default::default() };
    let key = hotswap_comgr::transpile::cache_key(
        &input,
        &isa("amdgcn-amd-amdhsa--gfx1250"),
        &isa("amdgcn-amd-amdhsa--gfx942"),
        &options,
    );
    hx_cache::Cache::new(&cache, hx_cache::Mode::ReadWrite).put(&key, &planted).unwrap();
    run_loader_expecting(16, &cache, &dir, 0, "");
    assert_eq!(std::fs::read(dir.join("out.hsaco")).unwrap(), planted);
}

#[test]
fn a_translation_failure_is_status_error() {
    // While the facade fails this gfx1250 translation, the loader must see AMD_COMGR_STATUS_ERROR
    // with the facade's message (never a fake success); this states it in so many words.
    let (status, message) = expected(&std::fs::read(corpus("gfx1250/saxpy.hsaco")).unwrap());
    if status != 0 {
        assert_eq!(status, 1, "a translation failure is AMD_COMGR_STATUS_ERROR");
        assert!(!message.is_empty());
    }
}

#[test]
fn exports_and_soname() {
    let bytes = std::fs::read(cdylib()).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.soname, Some("libhotswap_comgr.so.0"));
    let exported: Vec<&str> =
        elf.dynsyms.iter().filter(|s| s.st_value != 0).filter_map(|s| elf.dynstrtab.get_at(s.st_name)).collect();
    for f in [
        "amd_comgr_create_data",
        "amd_comgr_release_data",
        "amd_comgr_set_data",
        "amd_comgr_get_data",
        "amd_comgr_get_data_isa_name",
        "amd_comgr_hotswap_rewrite",
        "amd_comgr_hotswap_transpile_with_options",
        "amd_comgr_hotswap_transpile_result_get_info",
        "amd_comgr_hotswap_transpile_result_get_string",
        "amd_comgr_destroy_hotswap_transpile_result",
    ] {
        assert!(exported.contains(&f), "{f} is not exported");
    }
}

/// README.md shows examples/comgr_ctypes.py verbatim, and the script runs (where python3 exists).
#[test]
fn python_ctypes_example() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("examples/comgr_ctypes.py")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains(&script), "README.md must contain examples/comgr_ctypes.py verbatim");
    let Ok(_) = Command::new("python3").arg("--version").output() else {
        eprintln!("python3 not found: the example is not run");
        return;
    };
    let dir = scratch("python");
    let input = corpus("gfx1250/saxpy.hsaco");
    let (status, message) = expected(&std::fs::read(&input).unwrap());
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("examples/comgr_ctypes.py")).arg(cdylib()).arg(&input).arg(dir.join("out.hsaco"));
    for v in hx_cache::env::ALL {
        cmd.env_remove(v);
    }
    cmd.env("HSA_HOTSWAP_CACHE_DIR", dir.join("cache"));
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("status {status}\n")), "{stdout}");
    if status != 0 {
        assert!(stdout.contains(&message), "{stdout}");
    }
}
