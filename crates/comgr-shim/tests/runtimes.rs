//! The shim as the runtimes that load COMGR use it, from an installed tree.
//!
//! The libraries this test build made are installed into a temporary prefix with the same code
//! as `cargo xtask install` (`xtask::install`), then C programs play each runtime against that
//! tree: tests/c/runtime_dlopen.c (R1, the official ROCR; R2, the cross-generation fork; and
//! upstream's family A cases) dlopens `libamd_comgr.so.3` by name, tests/c/runtime_linked.c (R3
//! and R3b, the IR-raiser fork and its lazy per-kernel variant; upstream's family B cases) links
//! against the SONAME. Their structs come from tests/c/comgr_abi.h, written from the published
//! layouts, not from this crate. Every play runs in its own process: a crash fails the test.
//! Outputs are run in the emulator against the gfx1250 source.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).expect("test binary lives in <target>/<profile>/deps").to_path_buf()
}

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("comgr-runtimes").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Tree {
    prefix: PathBuf,
    dlopen_exe: PathBuf,
    linked_exe: PathBuf,
}

/// The installed tree and the two runtime programs, made once per test binary.
fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        let base = scratch("tree");
        let prefix = base.join("prefix");
        let artifacts = xtask::install::find_artifacts(&profile_dir()).unwrap();
        xtask::install::install(&artifacts, &prefix).unwrap();
        let prefix = prefix.canonicalize().unwrap();
        let c = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c");
        let cc = |src: &str, exe: &Path, extra: &[String]| {
            let out = Command::new("cc")
                .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
                .arg(&c)
                .arg(c.join(src))
                .args(extra)
                .arg("-o")
                .arg(exe)
                .output()
                .expect("the system C compiler `cc` runs");
            assert!(out.status.success(), "cc {src} failed:\n{}", String::from_utf8_lossy(&out.stderr));
        };
        let dlopen_exe = base.join("runtime_dlopen");
        cc("runtime_dlopen.c", &dlopen_exe, &["-ldl".into()]);
        // R3 links against the tree as its build would: -L, the SONAME in DT_NEEDED, a runpath.
        let lib = prefix.join("lib");
        let linked_exe = base.join("runtime_linked");
        cc(
            "runtime_linked.c",
            &linked_exe,
            &[
                format!("-L{}", lib.display()),
                format!("-Wl,-rpath,{}", lib.display()),
                format!("-Wl,-rpath-link,{}", lib.display()),
                "-lamd_comgr".into(),
            ],
        );
        // Linked against the tree, the program requires COMGR's symbol versions, as one linked
        // against the real COMGR does.
        let bytes = std::fs::read(&linked_exe).unwrap();
        let elf = goblin::elf::Elf::parse(&bytes).unwrap();
        let mut required = Vec::new();
        for need in elf.verneed.as_ref().unwrap().iter() {
            if elf.dynstrtab.get_at(need.vn_file) == Some("libamd_comgr.so.3") {
                required.extend(need.iter().filter_map(|a| elf.dynstrtab.get_at(a.vna_name)).map(str::to_string));
            }
        }
        required.sort();
        assert_eq!(required, ["amd_comgr_1.8", "amd_comgr_2.0", "amd_comgr_3.2"], "versions runtime_linked requires");
        Tree { prefix, dlopen_exe, linked_exe }
    })
}

/// Runs a play in a child process with a clean HotSwap environment plus `vars`; a crash or a
/// failed check fails the test. Returns stdout.
fn play(exe: &Path, args: &[&str], vars: &[(&str, &str)], dlopen: bool) -> String {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    for v in hx_cache::env::ALL.iter().chain(&["HSA_HOTSWAP_ENABLE", "HSA_HOTSWAP_STRICT_MODE", "HSA_HOTSWAP_RULES"]) {
        cmd.env_remove(v);
    }
    cmd.env_remove("LD_LIBRARY_PATH");
    if dlopen {
        cmd.env("LD_LIBRARY_PATH", tree().prefix.join("lib"));
    }
    cmd.envs(vars.iter().copied());
    checked(cmd.output().unwrap(), &format!("{} {args:?}", exe.display()))
}

fn checked(out: Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {:?} (a signal is a crash in the host process)\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("ALL OK"), "{what}\n{stdout}\n{stderr}");
    stdout
}

fn launch(values: Vec<(String, u64)>) -> hx_verify::RunOptions {
    hx_verify::RunOptions {
        grid: [1024, 1, 1],
        block: Some([128, 1, 1]),
        dynamic_lds: 0,
        seed: 1,
        buffer_bytes: 65536,
        values,
        limits: Default::default(),
    }
}

fn saxpy_launch() -> hx_verify::RunOptions {
    launch(vec![("n".into(), 1000), ("a".into(), 2.5f32.to_bits() as u64)])
}

/// `written` is a code object for `processor` that computes in the emulator what `source`
/// computes, every buffer byte for byte.
fn assert_verified(source: &Path, written: &Path, processor: &str) {
    let translated = std::fs::read(written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
    let co = hotswap::codeobj::CodeObject::parse(&translated).unwrap();
    assert_eq!(co.processor(), Some(processor), "{}", written.display());
    let report = hx_verify::verify_translation(&std::fs::read(source).unwrap(), &translated, &saxpy_launch(), None).unwrap();
    assert!(report.all_match(), "{} does not compute what {} computes: {:?}", written.display(), source.display(), report.checks);
    assert!(!report.checks.is_empty());
}

#[test]
fn installed_tree_layout() {
    let t = tree();
    let lib = t.prefix.join("lib");
    let soname = |p: &Path| xtask::install::soname(p).unwrap();
    assert_eq!(soname(&lib.join("libamd_comgr.so.3")), "libamd_comgr.so.3");
    assert_eq!(std::fs::read_link(lib.join("libamd_comgr.so")).unwrap(), PathBuf::from("libamd_comgr.so.3"));
    assert_eq!(soname(&lib.join("libhotswap_capi.so")), "libhotswap_capi.so.0", "the links resolve");
    assert_eq!(std::fs::read_link(lib.join("libhotswap_capi.so")).unwrap(), PathBuf::from("libhotswap_capi.so.0"));
    let real = std::fs::read_link(lib.join("libhotswap_capi.so.0")).unwrap();
    assert!(lib.join(&real).is_file(), "{real:?}");
    // libLLVM is in the tree, under the name the libraries ask for, and they find it through
    // $ORIGIN alone (no path into a toolchain).
    let llvm = xtask::install::find_libllvm(&profile_dir().join("deps/libhotswap_comgr.so")).unwrap();
    let llvm_name = soname(&llvm);
    assert!(lib.join(&llvm_name).is_file(), "{llvm_name} is not in {}", lib.display());
    for f in ["libamd_comgr.so.3", "libhotswap_capi.so.0"] {
        assert_eq!(xtask::install::runpath(&lib.join(f)).unwrap(), vec!["$ORIGIN".to_string()], "{f}");
        let bytes = std::fs::read(lib.join(f)).unwrap();
        let elf = goblin::elf::Elf::parse(&bytes).unwrap();
        assert!(elf.libraries.contains(&llvm_name.as_str()), "{f} needs {:?}", elf.libraries);
    }
    let bin = t.prefix.join("bin/hotswap-xlate");
    if bin.exists() {
        assert_eq!(xtask::install::runpath(&bin).unwrap(), vec!["$ORIGIN/../lib".to_string()]);
        let out = Command::new(&bin).arg("--version").env_remove("LD_LIBRARY_PATH").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    } else {
        eprintln!("this build made no hotswap-xlate binary: bin/ is checked by `cargo xtask install` only");
    }
    assert!(t.prefix.join("include/hotswap.h").is_file());
    let pc = std::fs::read_to_string(lib.join("pkgconfig/hotswap-capi.pc")).unwrap();
    assert!(pc.contains(&format!("prefix={}", t.prefix.display())) && !pc.contains('@'), "{pc}");
    let env = std::fs::read_to_string(t.prefix.join("share/hotswap/env.sh")).unwrap();
    for v in ["HSA_HOTSWAP_SOURCE_TARGET", "HSA_HOTSWAP_ISA_OVERRIDE", "HSA_HOTSWAP_STRICT", "HSA_HOTSWAP_CACHE_DIR", "LD_LIBRARY_PATH"] {
        assert!(env.contains(v), "env.sh lacks {v}");
    }
    assert!(env.contains("gfx1250:32"));
}

/// The C API's README example, built with the installed pkg-config file and run as written: no
/// LD_LIBRARY_PATH, the SONAME link and the rpath the .pc gives find the library, its RUNPATH libLLVM.
#[test]
fn capi_pkg_config_example_runs_from_the_tree() {
    if Command::new("pkg-config").arg("--version").output().is_err() {
        eprintln!("pkg-config not found: the pkg-config build is not run");
        return;
    }
    let t = tree();
    let dir = scratch("pkg-config");
    let app = dir.join("app.c");
    std::fs::write(
        &app,
        r#"#include <stdio.h>
#include <stdlib.h>
#include "hotswap.h"
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(len);
  if (fread(bytes, 1, len, f) != (size_t)len) return 2;
  hx_options o;
  hx_options_init(&o);
  hx_buffer out;
  hx_status s = hx_translate(bytes, len, &o, &out);
  if (s == HX_STATUS_OK) { printf("translated %zu bytes\n", out.len); hx_buffer_free(&out); }
  else fprintf(stderr, "%s: %s\n", hx_status_name(s), hx_last_error());
  return s == HX_STATUS_OK ? 0 : 1;
}
"#,
    )
    .unwrap();
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "hotswap-capi"])
        .env("PKG_CONFIG_PATH", t.prefix.join("lib/pkgconfig"))
        .output()
        .unwrap();
    assert!(flags.status.success(), "{}", String::from_utf8_lossy(&flags.stderr));
    let flags = String::from_utf8_lossy(&flags.stdout).to_string();
    let exe = dir.join("app");
    let out = Command::new("cc").arg(&app).args(flags.split_whitespace()).arg("-o").arg(&exe).output().unwrap();
    assert!(out.status.success(), "cc app.c {flags}: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(&exe).arg(corpus("gfx1250/saxpy.hsaco")).env_remove("LD_LIBRARY_PATH").output().unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("translated "),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn r1_official_loader() {
    let t = tree();
    let dir = scratch("r1");
    let input = corpus("gfx1250/saxpy.hsaco");
    let out = dir.join("out.hsaco");
    // Through share/hotswap/env.sh, as a user without mirage runs it: it sets LD_LIBRARY_PATH.
    let env_sh = t.prefix.join("share/hotswap/env.sh");
    let script = format!(
        ". '{}' && exec '{}' r1 '{}' '{}' amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
        env_sh.display(),
        t.dlopen_exe.display(),
        input.display(),
        out.display()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).env_remove("LD_LIBRARY_PATH").env("HSA_HOTSWAP_CACHE_DIR", dir.join("cache"));
    for v in hx_cache::env::ALL {
        if v != "HSA_HOTSWAP_CACHE_DIR" {
            cmd.env_remove(v);
        }
    }
    let stdout = checked(cmd.output().unwrap(), "R1 through env.sh");
    assert!(stdout.contains("status 0\n"), "{stdout}");
    assert!(stdout.contains(&format!("loaded {}", t.prefix.join("lib/libamd_comgr.so.3").display())), "{stdout}");
    let id = stdout.lines().find_map(|l| l.strip_prefix("cache identifier ")).unwrap();
    assert_eq!(id, hotswap_comgr::cache_identifier().to_str().unwrap());
    assert_verified(&input, &out, "gfx942");

    // R1 on a gfx1250 agent: nothing to translate, the same bytes back.
    let same = dir.join("same.hsaco");
    let stdout = play(
        &t.dlopen_exe,
        &["r1", input.to_str().unwrap(), same.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx1250"],
        &[("HSA_HOTSWAP_CACHE_DISABLE", "1")],
        true,
    );
    assert!(stdout.contains("status 0\n"), "{stdout}");
    assert_eq!(std::fs::read(&same).unwrap(), std::fs::read(&input).unwrap());

    // A translation the translator refuses: R1 sees ERROR (and would load the original).
    let stdout = play(
        &t.dlopen_exe,
        &["r1", corpus("broken/gfx1250_bad_instruction.hsaco").to_str().unwrap(), dir.join("never").to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942"],
        &[("HSA_HOTSWAP_CACHE_DISABLE", "1")],
        true,
    );
    assert!(stdout.contains("status 1\n"), "{stdout}");
    assert!(!dir.join("never").exists());
}

#[test]
fn r2_cross_generation_fork() {
    let t = tree();
    let dir = scratch("r2");
    let input = corpus("gfx1250/saxpy.hsaco");
    let out = dir.join("out.hsaco");
    let args = ["r2", input.to_str().unwrap(), out.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"];
    let stdout = play(&t.dlopen_exe, &args, &[("HSA_HOTSWAP_ENABLE", "1"), ("HSA_HOTSWAP_CACHE_DISABLE", "1")], true);
    assert!(stdout.contains("status 0\n"), "{stdout}");
    assert_verified(&input, &out, "gfx950");
}

#[test]
fn r3_ir_raiser_fork_cache_miss_then_hit() {
    let t = tree();
    let dir = scratch("r3");
    let input = corpus("gfx1250/saxpy.hsaco");
    let out = dir.join("out.hsaco");
    let cache = dir.join("cache");
    let args = ["r3", input.to_str().unwrap(), out.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942"];
    let stdout = play(&t.linked_exe, &args, &[("HSA_HOTSWAP_CACHE_DIR", cache.to_str().unwrap()), ("HSA_HOTSWAP_STRICT", "1")], false);
    assert!(stdout.contains("round 0 status 0\n") && stdout.contains("round 1 status 0\n"), "{stdout}");
    assert_verified(&input, &out, "gfx942");
    // The translator's refusal: ERROR, with FAIL_REASON and FAIL_DETAIL naming it.
    let broken = corpus("broken/gfx1250_bad_instruction.hsaco");
    let never = dir.join("never");
    let args = ["r3", broken.to_str().unwrap(), never.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942"];
    let stdout = play(&t.linked_exe, &args, &[("HSA_HOTSWAP_CACHE_DIR", cache.to_str().unwrap())], false);
    assert!(stdout.contains("round 1 status 1\n") && stdout.contains("cannot decode"), "{stdout}");
}

#[test]
fn r3b_lazy_loader_translates_one_kernel_per_call() {
    let t = tree();
    let dir = scratch("r3b");
    let input = corpus("gfx1250/multi_kernel.hsaco");
    let out = dir.join("out");
    let cache = dir.join("cache");
    let kernels = ["mk_fill", "mk_scale", "mk_blocksum"];
    let mut args = vec!["r3b", input.to_str().unwrap(), out.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942"];
    args.extend(kernels);
    let vars = [("HSA_HOTSWAP_CACHE_DIR", cache.to_str().unwrap())];
    let first = play(&t.linked_exe, &args, &vars, false);
    let source = std::fs::read(&input).unwrap();
    let o = hx_verify::RunOptions {
        grid: [256, 1, 1],
        block: None,
        ..launch(vec![("value".into(), 7), ("s".into(), 1.5f32.to_bits() as u64)])
    };
    for k in kernels {
        assert!(first.contains(&format!("kernel {k} lookup 2 ")), "{k} is not a miss first: {first}");
        let bytes = std::fs::read(format!("{}.{k}", out.display())).unwrap();
        let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
        assert_eq!(co.processor(), Some("gfx942"));
        let names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, [k], "a per-kernel output holds that kernel alone");
        let a = hx_verify::run(&source, k, &o).unwrap();
        let b = hx_verify::run(&bytes, k, &o).unwrap();
        assert!(!a.buffers.is_empty());
        assert_eq!(a.buffers, b.buffers, "{k}: the translation computes differently");
    }
    // Cached per kernel: a second lazy load is served every kernel from the cache.
    let second = play(&t.linked_exe, &args, &vars, false);
    for k in kernels {
        assert!(second.contains(&format!("kernel {k} lookup 3 ")), "{k} is not a hit: {second}");
    }
}

#[test]
fn upstream_cases_family_a() {
    let t = tree();
    let dir = scratch("upstream-a");
    let input = corpus("gfx1250/saxpy.hsaco");
    let x = dir.join("x");
    let args = ["upstream", input.to_str().unwrap(), x.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942"];
    play(&t.dlopen_exe, &args, &[("HSA_HOTSWAP_CACHE_DISABLE", "1")], true);
}

#[test]
fn upstream_cases_family_b() {
    let t = tree();
    let dir = scratch("upstream-b");
    let input = corpus("gfx1250/saxpy.hsaco");
    let cache = dir.join("cache");
    let x = dir.join("x");
    let args = ["upstream", input.to_str().unwrap(), x.to_str().unwrap(), "amdgcn-amd-amdhsa--gfx942", cache.to_str().unwrap()];
    // The environment names another cache: NULL options must not read it.
    let env_cache = dir.join("env-cache");
    play(&t.linked_exe, &args, &[("HSA_HOTSWAP_CACHE_DIR", env_cache.to_str().unwrap())], false);
    assert!(!env_cache.exists(), "a call without options used the environment's cache");
}

/// The README's Python example, as written there: against the installed libamd_comgr.so.3.
#[test]
fn python_example_runs_against_the_installed_library() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: the example is not run");
        return;
    }
    let t = tree();
    let dir = scratch("python");
    let input = corpus("gfx1250/saxpy.hsaco");
    let out = dir.join("out.hsaco");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/comgr_ctypes.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg(t.prefix.join("lib/libamd_comgr.so.3")).arg(&input).arg(&out);
    for v in hx_cache::env::ALL {
        cmd.env_remove(v);
    }
    cmd.env_remove("LD_LIBRARY_PATH").env("HSA_HOTSWAP_CACHE_DIR", dir.join("cache"));
    let o = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && stdout.contains("status 0\n"), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert_verified(&input, &out, "gfx942");
}
