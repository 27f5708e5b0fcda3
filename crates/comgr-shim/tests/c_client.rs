//! A real C client: tests/c/loader.c, compiled with the system C compiler, dlopens the shim cdylib
//! that cargo built for this test run and follows a runtime loader's call sequence, on 1 and on 16
//! threads. saxpy translates: the object the loader writes is checked in the emulator against the
//! gfx1250 original. the broken fixture does not (an undecodable word): the loader must see
//! AMD_COMGR_STATUS_ERROR with the translator's message.

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

/// The launch `hotswap-xlate verify` uses for saxpy (corpus/README: n=1000, a=2.5 over 1024
/// work-items in groups of 128).
fn saxpy_launch() -> hx_verify::RunOptions {
    hx_verify::RunOptions {
        grid: [1024, 1, 1],
        block: Some([128, 1, 1]),
        dynamic_lds: 0,
        seed: 1,
        buffer_bytes: 65536,
        values: vec![("n".into(), 1000), ("a".into(), 2.5f32.to_bits() as u64)],
        limits: Default::default(),
    }
}

/// The object a client wrote is a gfx942 code object that computes, in the emulator, exactly
/// what the gfx1250 original computes: every buffer byte for byte (the library check behind
/// `hotswap-xlate verify --translated`).
pub fn assert_verified(original: &Path, written: &Path) {
    let translated = std::fs::read(written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
    let co = hotswap::codeobj::CodeObject::parse(&translated).unwrap();
    assert_eq!(co.processor(), Some("gfx942"));
    let report = hx_verify::verify_translation(&std::fs::read(original).unwrap(), &translated, &saxpy_launch(), None).unwrap();
    assert!(report.all_match(), "{} does not compute what {} computes: {:?}", written.display(), original.display(), report.checks);
    assert_eq!(report.checks.len(), 2, "saxpy's x and y are compared: {:?}", report.checks);
}

/// Runs the loader on `input` with `threads` threads, expecting `status` (0 success, 1
/// AMD_COMGR_STATUS_ERROR) and, on failure, a last-error message containing `message`.
fn run_loader(input: &Path, threads: u32, cache: &Path, dir: &Path, status: i32, message: &str) -> String {
    run_loader_with_env(input, threads, cache, dir, status, message, &[]).0
}

/// [`run_loader`] with more HSA_HOTSWAP_* variables set; stdout and stderr.
fn run_loader_with_env(input: &Path, threads: u32, cache: &Path, dir: &Path, status: i32, message: &str, vars: &[(&str, &str)]) -> (String, String) {
    let exe = build_loader(dir);
    let out_file = dir.join("out.hsaco");
    let mut cmd = Command::new(&exe);
    cmd.arg(cdylib()).arg(input).arg(status.to_string()).arg(message).arg(&out_file).arg(threads.to_string());
    for v in hx_cache::env::ALL {
        cmd.env_remove(v);
    }
    cmd.env("HSA_HOTSWAP_CACHE_DIR", cache);
    cmd.envs(vars.iter().copied());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "loader ({threads} threads) failed: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ALL OK"), "{stdout}");
    if status != 0 {
        assert!(!out_file.exists(), "a failed rewrite wrote output");
    }
    (stdout, stderr)
}

#[test]
fn prewarm_when_loaded() {
    // HSA_HOTSWAP_PREWARM: the shim starts prewarming as the loader dlopens it; the loader's
    // rewrite runs alongside or after it and is right either way, and the process exits only
    // after the prewarm thread is done (its line is printed at its end).
    let dir = scratch("prewarm");
    let input = corpus("gfx1250/saxpy.hsaco");
    let vars = [("HSA_HOTSWAP_PREWARM", "gfx942"), ("HSA_HOTSWAP_VERBOSE", "1"), ("HSA_HOTSWAP_CACHE_DISABLE", "1")];
    let (_, stderr) = run_loader_with_env(&input, 1, &dir.join("cache"), &dir, 0, "", &vars);
    assert!(stderr.contains("hotswap: prewarmed gfx942 in "), "{stderr}");
    assert_verified(&input, &dir.join("out.hsaco"));
    // A target that cannot be is said on stderr; the rewrite is not affected.
    let vars = [("HSA_HOTSWAP_PREWARM", "gfx1100"), ("HSA_HOTSWAP_CACHE_DISABLE", "1")];
    let (_, stderr) = run_loader_with_env(&input, 1, &dir.join("cache"), &dir, 0, "", &vars);
    assert!(stderr.contains("hotswap: HSA_HOTSWAP_PREWARM: `gfx1100`: the target must be gfx942 or gfx950"), "{stderr}");
    assert_verified(&input, &dir.join("out.hsaco"));
}

#[test]
fn loader_sequence_one_thread() {
    let dir = scratch("one");
    let input = corpus("gfx1250/saxpy.hsaco");
    run_loader(&input, 1, &dir.join("cache"), &dir, 0, "");
    assert_verified(&input, &dir.join("out.hsaco"));
}

#[test]
fn loader_sequence_sixteen_threads() {
    let dir = scratch("sixteen");
    let input = corpus("gfx1250/saxpy.hsaco");
    run_loader(&input, 16, &dir.join("cache"), &dir, 0, "");
    assert_verified(&input, &dir.join("out.hsaco"));
    // The 16 threads share one cache entry: the translation that was stored.
    let entries: Vec<_> = walk(&dir.join("cache")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "hxc")).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p);
        }
    }
    v
}

#[test]
fn loader_success_path_from_the_cache_sixteen_threads() {
    // Plant a gfx942 code object (the native build of saxpy, which the translator never makes)
    // as the cache entry of this input: all 16 threads get SUCCESS, size then bytes, a gfx942
    // ISA name, and the planted object back.
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
    run_loader(&corpus("gfx1250/saxpy.hsaco"), 16, &cache, &dir, 0, "");
    assert_eq!(std::fs::read(dir.join("out.hsaco")).unwrap(), planted);
}

#[test]
fn corrupt_cache_entries_are_rebuilt_under_sixteen_threads() {
    // A loader run stores saxpy's translation; one flipped byte later, 16 threads still get
    // SUCCESS and a verified object, and the entry is rebuilt to the same bytes.
    let dir = scratch("corrupt");
    let cache = dir.join("cache");
    let input = corpus("gfx1250/saxpy.hsaco");
    run_loader(&input, 1, &cache, &dir, 0, "");
    let entries: Vec<_> = walk(&cache).into_iter().filter(|p| p.extension().is_some_and(|e| e == "hxc")).collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let good = std::fs::read(&entries[0]).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x20;
    std::fs::write(&entries[0], &bad).unwrap();
    std::fs::remove_file(dir.join("out.hsaco")).unwrap();
    run_loader(&input, 16, &cache, &dir, 0, "");
    assert_verified(&input, &dir.join("out.hsaco"));
    assert_eq!(std::fs::read(&entries[0]).unwrap(), good);
    // A truncated entry too.
    std::fs::write(&entries[0], &good[..good.len() / 3]).unwrap();
    std::fs::remove_file(dir.join("out.hsaco")).unwrap();
    run_loader(&input, 16, &cache, &dir, 0, "");
    assert_verified(&input, &dir.join("out.hsaco"));
}

#[test]
fn a_translation_failure_is_status_error() {
    // The broken fixture (saxpy with an undecodable first word) does not translate: on 1 and 16 threads
    // the loader gets AMD_COMGR_STATUS_ERROR, no output handle, and a message naming them.
    let input = corpus("broken/gfx1250_bad_instruction.hsaco");
    let options = hotswap::Options { target: hotswap::GpuTarget::Gfx942, strict: true, ..Default::default() };
    let err = hotswap::translate(&std::fs::read(&input).unwrap(), &options).expect_err("the broken fixture must not translate");
    let message = "cannot decode";
    assert!(err.to_string().contains(message), "{err}");
    for threads in [1, 16] {
        let dir = scratch(&format!("failure-{threads}"));
        let stdout = run_loader(&input, threads, &dir.join("cache"), &dir, 1, message);
        assert!(stdout.contains("expected status 1\n"), "{stdout}");
        // A failure is not cached.
        assert!(walk(&dir.join("cache")).iter().all(|p| p.extension().is_none_or(|e| e != "hxc")));
    }
}

#[test]
fn exports_and_soname() {
    let bytes = std::fs::read(cdylib()).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.soname, Some("libamd_comgr.so.3"));
    let exported: Vec<&str> =
        elf.dynsyms.iter().filter(|s| s.st_value != 0).filter_map(|s| elf.dynstrtab.get_at(s.st_name)).collect();
    for f in [
        "amd_comgr_create_data",
        "amd_comgr_release_data",
        "amd_comgr_set_data",
        "amd_comgr_get_data",
        "amd_comgr_get_data_isa_name",
        "amd_comgr_hotswap_rewrite",
        "amd_comgr_hotswap_rewrite_with_options",
        "amd_comgr_hotswap_transpile",
        "amd_comgr_hotswap_transpile_with_options",
        "amd_comgr_hotswap_transpile_with_options_v2",
        "amd_comgr_get_cache_identifier",
        "amd_comgr_get_version",
        "amd_comgr_hotswap_transpile_result_get_info",
        "amd_comgr_hotswap_transpile_result_get_string",
        "amd_comgr_destroy_hotswap_transpile_result",
    ] {
        assert!(exported.contains(&f), "{f} is not exported");
    }
    // -z nodelete: dlclose never unmaps the code a prewarm thread may be running (prewarm.rs).
    let flags_1 = elf.dynamic.as_ref().and_then(|d| d.dyns.iter().find(|e| e.d_tag == goblin::elf::dynamic::DT_FLAGS_1)).map(|e| e.d_val);
    assert!(flags_1.is_some_and(|f| f & goblin::elf::dynamic::DF_1_NODELETE != 0), "DT_FLAGS_1 {flags_1:?} lacks DF_1_NODELETE");
}

/// The crate's and the repository's README.md show examples/comgr_ctypes.py verbatim, and the
/// script translates saxpy (verified) and reports device_call's failure (where python3 exists).
#[test]
fn python_ctypes_example() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("examples/comgr_ctypes.py")).unwrap();
    for readme in [root.join("README.md"), root.join("../../README.md")] {
        let text = std::fs::read_to_string(&readme).unwrap();
        assert!(text.contains(&script), "{} must contain examples/comgr_ctypes.py verbatim", readme.display());
    }
    let Ok(_) = Command::new("python3").arg("--version").output() else {
        eprintln!("python3 not found: the example is not run");
        return;
    };
    let dir = scratch("python");
    let input = corpus("gfx1250/saxpy.hsaco");
    let python = |input: &Path, out: &Path| {
        let mut cmd = Command::new("python3");
        cmd.arg(root.join("examples/comgr_ctypes.py")).arg(cdylib()).arg(input).arg(out);
        for v in hx_cache::env::ALL {
            cmd.env_remove(v);
        }
        cmd.env("HSA_HOTSWAP_CACHE_DIR", dir.join("cache"));
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        stdout
    };
    let stdout = python(&input, &dir.join("out.hsaco"));
    assert!(stdout.contains("status 0\n") && stdout.contains("translated "), "{stdout}");
    assert_verified(&input, &dir.join("out.hsaco"));
    let stdout = python(&corpus("broken/gfx1250_bad_instruction.hsaco"), &dir.join("never.hsaco"));
    assert!(stdout.contains("status 1\n") && stdout.contains("cannot decode"), "{stdout}");
    assert!(!dir.join("never.hsaco").exists());
}
