//! A real C client: tests/c/client.c is compiled with the system C compiler against the checked-in
//! header, linked with -lhotswap_capi (the cdylib cargo built for this test run, found next to the
//! test binary's deps/ directory), and run on corpus objects on 1 and 16 threads. saxpy translates
//! and the object the client writes is verified in the emulator against the gfx1250 original;
//! corpus/broken/gfx1250_bad_instruction.hsaco (saxpy with an undecodable first word) is the deterministic failure.

use std::path::{Path, PathBuf};
use std::process::Command;

/// target/<profile>, from this test binary's path (target/<profile>/deps/c_client-<hash>).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).expect("test binary lives in <target>/<profile>/deps").to_path_buf()
}

/// The cdylib of this build: cargo compiles the lib target once with both crate types (cdylib +
/// rlib) for the tests and leaves the .so in deps/ (`cargo build` also copies it up one level).
fn cdylib() -> PathBuf {
    let dir = profile_dir();
    let candidates = [dir.join("deps/libhotswap_capi.so"), dir.join("libhotswap_capi.so")];
    candidates.iter().find(|p| p.exists()).cloned().unwrap_or_else(|| {
        panic!("libhotswap_capi.so is in none of {candidates:?}: it is built with this crate's lib target (crate-type cdylib + rlib)")
    })
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-capi").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)
}

#[test]
fn soname_is_set() {
    let bytes = std::fs::read(cdylib()).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.soname, Some("libhotswap_capi.so.0"));
    let exported: Vec<&str> =
        elf.dynsyms.iter().filter(|s| s.st_value != 0).filter_map(|s| elf.dynstrtab.get_at(s.st_name)).collect();
    for f in ["hx_translate", "hx_buffer_free", "hx_last_error", "hx_version", "hx_options_init", "hx_status_name"] {
        assert!(exported.contains(&f), "{f} is not exported");
    }
}

#[test]
fn pkg_config_file_is_rendered() {
    let pc = profile_dir().join("pkgconfig/hotswap-capi.pc");
    let text = std::fs::read_to_string(&pc).unwrap_or_else(|e| panic!("{}: {e}", pc.display()));
    assert!(text.contains(&format!("Version: {}", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(text.contains("Libs: -L${libdir} -Wl,-rpath,${libdir} -lhotswap_capi"), "{text}");
    // The SONAME names a file beside the build output, so a program linked with these flags runs.
    let so0 = profile_dir().join("libhotswap_capi.so.0");
    assert_eq!(std::fs::read_link(&so0).ok(), Some(PathBuf::from("libhotswap_capi.so")), "{}", so0.display());
    assert!(!text.contains('@'), "unrendered placeholder: {text}");
    if Command::new("pkg-config").arg("--version").output().is_ok() {
        let out = Command::new("pkg-config")
            .args(["--cflags", "--libs", "hotswap-capi"])
            .env("PKG_CONFIG_PATH", pc.parent().unwrap())
            .output()
            .unwrap();
        let flags = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && flags.contains("-lhotswap_capi"),
            "pkg-config: {flags} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Compiles client.c against include/ and a directory holding the SONAME link.
fn build_client(dir: &Path) -> PathBuf {
    let lib = cdylib();
    // The link step uses libhotswap_capi.so; the loader then looks for the SONAME.
    let libdir = dir.join("lib");
    std::fs::create_dir_all(&libdir).unwrap();
    for name in ["libhotswap_capi.so", "libhotswap_capi.so.0"] {
        std::os::unix::fs::symlink(&lib, libdir.join(name)).unwrap();
    }
    let exe = dir.join("client");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/client.c");
    let inc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-pthread"])
        .arg("-I")
        .arg(&inc)
        .arg(&src)
        .arg("-L")
        .arg(&libdir)
        .arg(format!("-Wl,-rpath,{}", libdir.display()))
        .arg("-lhotswap_capi")
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("the system C compiler `cc` runs");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// The C status name and message of a translation the facade refuses.
fn expected_failure(input: &[u8]) -> (String, String) {
    let e = hotswap::translate(input, &hotswap::Options::default()).expect_err("this input must not translate");
    let status = hotswap_capi::status_of(&e);
    let name = unsafe { std::ffi::CStr::from_ptr(hotswap_capi::hx_status_name(status as i32)) };
    (name.to_str().unwrap().to_string(), e.to_string())
}

/// Runs the client on `input` with `threads` threads (and a cache when given), expecting
/// `status` and a message containing `message`; returns its stdout.
fn run_client(exe: &Path, input: &Path, dir: &Path, threads: u32, cache: Option<&Path>, status: &str, message: &str) -> String {
    let out_file = dir.join("out.hsaco");
    let _ = std::fs::remove_file(&out_file);
    let mut cmd = Command::new(exe);
    cmd.arg(input).arg(status).arg(message).arg(&out_file).arg(threads.to_string());
    if let Some(c) = cache {
        cmd.arg(c);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "C client failed on {} ({threads} threads):\n{stdout}\n{}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("status {status}\n")) && stdout.contains("ALL OK"), "{stdout}");
    assert!(stdout.contains(&format!("threads {threads}\n")), "{stdout}");
    if status != "HX_STATUS_OK" {
        assert!(!out_file.exists(), "a failed translation wrote output");
    }
    stdout
}

/// The object the client wrote is a gfx942 code object that computes in the emulator exactly what
/// the gfx1250 original computes (the check behind `hotswap-xlate verify --translated`), with
/// saxpy's launch from corpus/README: n=1000, a=2.5, 1024 work-items in groups of 128.
fn assert_verified(original: &Path, written: &Path) {
    let translated = std::fs::read(written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
    assert_eq!(hotswap::codeobj::CodeObject::parse(&translated).unwrap().processor(), Some("gfx942"));
    let launch = hx_verify::RunOptions {
        grid: [1024, 1, 1],
        block: Some([128, 1, 1]),
        dynamic_lds: 0,
        seed: 1,
        buffer_bytes: 65536,
        values: vec![("n".into(), 1000), ("a".into(), 2.5f32.to_bits() as u64)],
        limits: Default::default(),
    };
    let report = hx_verify::verify_translation(&std::fs::read(original).unwrap(), &translated, &launch, None).unwrap();
    assert!(report.all_match() && report.checks.len() == 2, "{}: {:?}", written.display(), report.checks);
}

fn cache_entries(d: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(cache_entries(&p));
        } else if p.extension().is_some_and(|x| x == "hxc") {
            v.push(p);
        }
    }
    v
}

#[test]
fn c_client_translates_saxpy_one_thread() {
    let dir = scratch("saxpy-1");
    let exe = build_client(&dir);
    let input = corpus("gfx1250/saxpy.hsaco");
    run_client(&exe, &input, &dir, 1, None, "HX_STATUS_OK", "");
    assert_verified(&input, &dir.join("out.hsaco"));
}

#[test]
fn c_client_translates_saxpy_sixteen_threads_through_the_cache() {
    let dir = scratch("saxpy-16");
    let exe = build_client(&dir);
    let input = corpus("gfx1250/saxpy.hsaco");
    let cache = dir.join("cache");
    // Without a cache, then with one: a miss stored once, then hits.
    run_client(&exe, &input, &dir, 16, None, "HX_STATUS_OK", "");
    assert_verified(&input, &dir.join("out.hsaco"));
    for _ in 0..2 {
        run_client(&exe, &input, &dir, 16, Some(&cache), "HX_STATUS_OK", "");
        assert_verified(&input, &dir.join("out.hsaco"));
        assert_eq!(cache_entries(&cache).len(), 1);
    }
    // A corrupt entry (one flipped byte) is rebuilt: every thread still gets a verified object.
    let entry = cache_entries(&cache).remove(0);
    let good = std::fs::read(&entry).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x10;
    std::fs::write(&entry, &bad).unwrap();
    run_client(&exe, &input, &dir, 16, Some(&cache), "HX_STATUS_OK", "");
    assert_verified(&input, &dir.join("out.hsaco"));
    assert_eq!(std::fs::read(&entry).unwrap(), good, "the corrupt entry was rebuilt");
}

#[test]
fn c_client_on_a_failing_gfx1250_object() {
    // The broken fixture (saxpy with an undecodable first word) does not translate: every thread gets
    // the facade's status and its message, no buffer, and nothing is cached.
    let dir = scratch("device-call");
    let exe = build_client(&dir);
    let input = corpus("broken/gfx1250_bad_instruction.hsaco");
    let (status, message) = expected_failure(&std::fs::read(&input).unwrap());
    assert!(message.contains("cannot decode"), "{message}");
    for threads in [1, 16] {
        run_client(&exe, &input, &dir, threads, Some(&dir.join("cache")), &status, &message);
    }
    assert!(cache_entries(&dir.join("cache")).is_empty());
}

#[test]
fn c_client_on_gfx942_object() {
    let dir = scratch("gfx942");
    let exe = build_client(&dir);
    let input = corpus("gfx942/saxpy.hsaco");
    let (status, message) = expected_failure(&std::fs::read(&input).unwrap());
    assert_eq!(status, "HX_STATUS_NOT_GFX1250");
    run_client(&exe, &input, &dir, 1, None, &status, &message);
}
