//! A real C client: tests/c/client.c is compiled with the system C compiler against the checked-in
//! header, linked with -lhotswap_capi (the cdylib cargo built for this test run, found next to the
//! test binary's deps/ directory), and run on a corpus object. The expected outcome comes from the
//! facade itself, so the test stays right when translation starts returning bytes.

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
    assert!(text.contains("Libs: -L${libdir} -lhotswap_capi"), "{text}");
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
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
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

fn expected(input: &[u8]) -> (String, String) {
    match hotswap::translate(input, &hotswap::Options::default()) {
        Ok(_) => ("HX_STATUS_OK".into(), String::new()),
        Err(e) => {
            let status = hotswap_capi::status_of(&e);
            let name = unsafe { std::ffi::CStr::from_ptr(hotswap_capi::hx_status_name(status as i32)) };
            (name.to_str().unwrap().to_string(), e.to_string())
        }
    }
}

fn run_client(exe: &Path, input: &Path, dir: &Path) -> String {
    let (status, message) = expected(&std::fs::read(input).unwrap());
    let out_file = dir.join("out.hsaco");
    let out = Command::new(exe).arg(input).arg(&status).arg(&message).arg(&out_file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "C client failed on {}:\n{stdout}\n{}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("status {status}")), "{stdout}");
    if status == "HX_STATUS_OK" {
        let bytes = std::fs::read(&out_file).unwrap();
        let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
        assert_eq!(co.processor(), Some("gfx942"));
    }
    stdout
}

#[test]
fn c_client_on_gfx1250_object() {
    let dir = scratch("gfx1250");
    let exe = build_client(&dir);
    let stdout = run_client(&exe, &corpus("gfx1250/saxpy.hsaco"), &dir);
    // While translation fails for this object, the C caller sees that failure, never a success.
    if !stdout.contains("status HX_STATUS_OK") {
        assert!(!stdout.contains("\nmessage \n"), "a failure without a message: {stdout}");
    }
}

#[test]
fn c_client_on_gfx942_object() {
    let dir = scratch("gfx942");
    let exe = build_client(&dir);
    let stdout = run_client(&exe, &corpus("gfx942/saxpy.hsaco"), &dir);
    assert!(stdout.contains("status HX_STATUS_NOT_GFX1250"), "{stdout}");
}
