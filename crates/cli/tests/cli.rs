//! The `hotswap-xlate` command as a person runs it.

use hotswap::codeobj::bundle::{Bundle, BundleEntry, BundleFormat, Compression};
use hotswap::codeobj::CodeObject;
use hotswap::GpuTarget;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hotswap-xlate"))
}

fn run(args: &[&str]) -> Output {
    exe().args(args).output().unwrap()
}

fn corpus_file(target: GpuTarget, name: &str) -> PathBuf {
    hx_corpus::corpus_dir().join(target.cpu()).join(format!("{name}.hsaco"))
}

fn all_corpus_files() -> Vec<(GpuTarget, PathBuf)> {
    let mut v = Vec::new();
    for t in GpuTarget::ALL {
        for o in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for(t.cpu())) {
            v.push((t, corpus_file(t, &o.name)));
        }
    }
    v
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hx-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn inspect_shows_every_field_of_every_corpus_object() {
    for (target, path) in all_corpus_files() {
        let co = CodeObject::parse(&std::fs::read(&path).unwrap()).unwrap();
        let out = run(&["inspect", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with(&format!("target_id: amdgcn-amd-amdhsa--{}\n", target.cpu())), "{text}");
        let generation = co.generation().unwrap();
        for k in &co.kernels {
            assert!(text.contains(&format!("name: {}\n", k.name)));
            assert!(text.contains(&format!("descriptor_symbol: {}\n", k.descriptor_symbol)));
            // Every descriptor field defined for the generation is printed with its value.
            for (_, name, value) in k.descriptor.fields(generation) {
                assert!(text.contains(&format!("{name}: {value}\n")), "{}: {name}", path.display());
            }
        }
        for f in &co.functions {
            assert!(text.contains(&format!("name: {}\n", f.name)));
        }
        // Metadata: every kernel argument's kind and offset.
        for km in &co.metadata.as_ref().unwrap().kernels {
            for a in &km.args {
                assert!(text.contains(&format!(".value_kind: {}\n", a.value_kind)));
            }
            assert!(text.contains(&format!(".vgpr_count: {}\n", km.vgpr_count)));
        }

        let out = run(&["inspect", "--json", path.to_str().unwrap()]);
        assert!(out.status.success());
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["processor"], target.cpu());
        assert_eq!(json["kernels"].as_array().unwrap().len(), co.kernels.len());
        for (i, k) in co.kernels.iter().enumerate() {
            let d = &json["kernels"][i]["descriptor"];
            assert_eq!(d["kernarg_size"], k.descriptor.kernarg_size);
            assert_eq!(d["Rsrc2"]["USER_SGPR_COUNT"], k.descriptor.user_sgpr_count(generation));
        }
        assert_eq!(json["metadata"]["amdhsa.kernels"].as_array().unwrap().len(), co.kernels.len());
    }
}

#[test]
fn inspect_lists_bundle_entries() {
    let gfx1250 = std::fs::read(corpus_file(GpuTarget::Gfx1250, "saxpy")).unwrap();
    let gfx942 = std::fs::read(corpus_file(GpuTarget::Gfx942, "saxpy")).unwrap();
    for format in [
        BundleFormat::Plain,
        BundleFormat::Compressed { version: 3, method: Compression::Zstd },
        BundleFormat::Compressed { version: 2, method: Compression::Zlib },
    ] {
        let bundle = Bundle {
            format,
            entries: vec![
                BundleEntry { id: "host-x86_64-unknown-linux-gnu-".into(), data: vec![] },
                BundleEntry { id: "hipv4-amdgcn-amd-amdhsa--gfx1250".into(), data: gfx1250.clone() },
                BundleEntry { id: "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-".into(), data: gfx942.clone() },
            ],
        };
        let path = tmp("fat.hipfb");
        std::fs::write(&path, bundle.write().unwrap()).unwrap();
        let out = run(&["inspect", "--json", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let entries = json["bundle"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0]["kind"], "host");
        assert!(entries[0].get("code_object").is_none());
        assert_eq!(entries[1]["target_id"], "gfx1250");
        assert_eq!(entries[1]["code_object"]["processor"], "gfx1250");
        assert_eq!(entries[2]["target_id"], "gfx942:xnack-");
        assert_eq!(entries[2]["code_object"]["kernels"][0]["name"], "saxpy");
        let text = run(&["inspect", path.to_str().unwrap()]);
        assert!(String::from_utf8(text.stdout).unwrap().contains("id: hipv4-amdgcn-amd-amdhsa--gfx1250\n"));
    }
}

#[test]
fn bad_inputs_are_reported_with_offsets_not_crashes() {
    let good = std::fs::read(corpus_file(GpuTarget::Gfx1250, "saxpy")).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..30].to_vec(), "truncated ELF header at offset 0x0"),
        ("class", { let mut b = good.clone(); b[4] = 1; b }, "ELF class 1 at offset 4"),
        ("machine", { let mut b = good.clone(); b[18] = 62; b[19] = 0; b }, "machine 62 at offset 18"),
        ("ccob", { let mut b = b"CCOB".to_vec(); b.extend_from_slice(&[9, 0, 1, 0]); b.extend_from_slice(&[0; 40]); b }, "version 9"),
        ("empty", vec![], "truncated"),
    ];
    for (name, bytes, needle) in cases {
        let path = tmp(name);
        std::fs::write(&path, bytes).unwrap();
        let out = run(&["inspect", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}: bad input");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(needle), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let out = run(&["inspect", "/nonexistent/file.hsaco"]);
    assert_eq!(out.status.code(), Some(5), "an I/O error");
}

#[test]
fn translation_writes_a_target_code_object_or_fails_closed() {
    // saxpy translates: the output is a gfx942 code object with the source's kernel interface.
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let out_path = tmp("saxpy.gfx942.hsaco");
    let out = run(&[input.to_str().unwrap(), "--target", "gfx942", "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let co = CodeObject::parse(&std::fs::read(&out_path).unwrap()).unwrap();
    let src = CodeObject::parse(&std::fs::read(&input).unwrap()).unwrap();
    assert_eq!(co.processor(), Some("gfx942"));
    let (k, sk) = (co.metadata.as_ref().unwrap().kernel("saxpy").unwrap(), src.metadata.as_ref().unwrap().kernel("saxpy").unwrap());
    assert_eq!(k.wavefront_size, 64);
    assert_eq!(k.args, sk.args, "the source's arguments are kept");
    assert_eq!(k.kernarg_segment_size, sk.kernarg_segment_size);
    assert_eq!(co.kernel("saxpy").unwrap().descriptor.kernarg_size, src.kernel("saxpy").unwrap().descriptor.kernarg_size);
    // A kernel whose code does not decode: the error names the kernel, the offset and the
    // bytes, and no output is written.
    let input = broken_saxpy();
    let out_path = tmp("never-written.hsaco");
    let out = run(&[input.to_str().unwrap(), "--target", "gfx942", "-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "unsupported");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kernel saxpy, offset 0x1800") && err.contains("cannot decode") && err.contains("[ff ff ff ff"), "{err}");
    assert!(!Path::new(&out_path).exists(), "no output may be written for an untranslated object");
    // A non-gfx1250 input is refused as such.
    let native = corpus_file(GpuTarget::Gfx942, "saxpy");
    let out = run(&[native.to_str().unwrap(), "--target", "gfx950", "-o", out_path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not gfx1250"));
    let out = run(&[input.to_str().unwrap(), "--target", "gfx1100"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown target gfx1100"));
}

/// gfx1250 saxpy with its first instruction replaced by a word that is no instruction.
fn broken_saxpy() -> std::path::PathBuf {
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let mut bytes = std::fs::read(&input).unwrap();
    let at = CodeObject::parse(&bytes).unwrap().kernel("saxpy").unwrap().code_offset as usize;
    bytes[at..at + 4].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    let path = tmp("broken-saxpy.hsaco");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn verify_passes_only_when_every_buffer_matches() {
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    for target in ["gfx942", "gfx950"] {
        let out = run(&["verify", input.to_str().unwrap(), "--target", target, "--grid", "1024", "--block", "128", "--value", "n=1000", "--value", "a=2.5"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("saxpy x: match\n") && text.contains("saxpy y: match\n"), "{text}");
    }
    let failing = broken_saxpy();
    let out = run(&["verify", failing.to_str().unwrap(), "--target", "gfx942"]);
    assert_eq!(out.status.code(), Some(3), "refused: unsupported");
    let out = run(&["verify", input.to_str().unwrap(), "--target", "gfx942", "--kernel", "nope"]);
    assert_eq!(out.status.code(), Some(2), "an unknown kernel: bad arguments");
}

#[test]
fn verify_checks_a_given_translation() {
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let launch = ["--grid", "1024", "--block", "128", "--value", "n=1000", "--value", "a=2.5"];
    let verify = |translated: &Path, extra: &[&str]| {
        let mut args = vec!["verify", input.to_str().unwrap(), "--translated", translated.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend_from_slice(&launch);
        run(&args)
    };
    // A translation written by an earlier run (as a loader would write one) matches the source.
    let out_path = tmp("verify-given.gfx950.hsaco");
    let out = run(&[input.to_str().unwrap(), "--target", "gfx950", "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = verify(&out_path, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("saxpy x: match\n") && text.contains("saxpy y: match\n") && text.contains(" on gfx950"), "{text}");
    // The file is checked, not a fresh translation: a file for another processor than --target
    // is refused, and so is one with none of the source's kernels (nothing compared).
    let out = verify(&out_path, &["--target", "gfx942"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a code object for gfx950, not gfx942"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = verify(&corpus_file(GpuTarget::Gfx942, "grid2d"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no kernel of") && err.contains("saxpy: not in the translation"), "{err}");
    let out = verify(&corpus_file(GpuTarget::Gfx1250, "saxpy"), &[]);
    assert_eq!(out.status.code(), Some(2), "a gfx1250 file is no translation");
}

/// A `hotswap-xlate` command with none of the HotSwap variables and HOME in `home`.
fn clean_exe(home: &Path) -> Command {
    let mut c = exe();
    for v in hx_cache::env::ALL {
        c.env_remove(v);
    }
    c.env_remove("XDG_CACHE_HOME").env("HOME", home);
    c
}

fn fresh_dir(name: &str) -> PathBuf {
    let d = tmp(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The entry path the command names in its verbose cache line.
fn entry_path(stderr: &str) -> PathBuf {
    let line = stderr.lines().find(|l| l.starts_with("hotswap-xlate: cache ")).unwrap_or_else(|| panic!("no cache line: {stderr}"));
    PathBuf::from(line.rsplit(": ").next().unwrap())
}

#[test]
fn translation_cache_hits_rebuilds_and_read_only() {
    let dir = fresh_dir("cache");
    let cache = dir.join("cache");
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let translate = |out: &str, extra: &[(&str, &str)]| {
        let mut c = clean_exe(&dir);
        c.arg(&input).args(["--target", "gfx942", "-o"]).arg(dir.join(out));
        c.env("HSA_HOTSWAP_CACHE_DIR", &cache).env("HSA_HOTSWAP_VERBOSE", "1");
        for (k, v) in extra {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    // Read-only on an empty cache: translated, nothing written.
    let err = translate("ro.hsaco", &[("HSA_HOTSWAP_CACHE_READONLY", "1")]);
    assert!(err.contains("cache miss, not stored"), "{err}");
    assert!(!cache.exists(), "read-only mode created {}", cache.display());
    // First run: a miss, stored. Second: a hit with the same bytes.
    let err = translate("first.hsaco", &[]);
    assert!(err.contains("cache miss, stored"), "{err}");
    let entry = entry_path(&err);
    assert!(entry.starts_with(&cache) && entry.exists(), "{}", entry.display());
    let err = translate("second.hsaco", &[]);
    assert!(err.contains("cache hit"), "{err}");
    let first = std::fs::read(dir.join("first.hsaco")).unwrap();
    assert_eq!(first, std::fs::read(dir.join("second.hsaco")).unwrap());
    assert_eq!(first, std::fs::read(dir.join("ro.hsaco")).unwrap());
    // A corrupt entry (one flipped byte) is rebuilt, and the run after that is a hit again.
    let good = std::fs::read(&entry).unwrap();
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 0x40;
    std::fs::write(&entry, &bad).unwrap();
    // Read-only leaves it alone and still translates.
    let err = translate("ro2.hsaco", &[("HSA_HOTSWAP_CACHE_READONLY", "1")]);
    assert!(err.contains("bad entry ignored, read-only"), "{err}");
    assert_eq!(std::fs::read(&entry).unwrap(), bad, "read-only mode changed the entry");
    assert_eq!(first, std::fs::read(dir.join("ro2.hsaco")).unwrap());
    let err = translate("third.hsaco", &[]);
    assert!(err.contains("cache miss, bad entry rebuilt, stored"), "{err}");
    assert_eq!(std::fs::read(&entry).unwrap(), good);
    assert_eq!(first, std::fs::read(dir.join("third.hsaco")).unwrap());
    let err = translate("fourth.hsaco", &[]);
    assert!(err.contains("cache hit"), "{err}");
    // HSA_HOTSWAP_CACHE_DISABLE and --no-cache: no cache at all.
    let err = translate("fifth.hsaco", &[("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    assert!(!err.contains("cache"), "{err}");
}

#[test]
fn the_cache_is_used_only_when_asked() {
    let home = fresh_dir("cache-home");
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let default_dir = home.join(".cache/rocm/hotswap");
    let help = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(help.lines().any(|l| l.trim_start().starts_with("--cache") && !l.contains("--cache-dir")) && help.contains("--no-cache") && help.contains("HSA_HOTSWAP_CACHE_DIR"), "{help}");
    // No flag, no HSA_HOTSWAP_CACHE_DIR: nothing is written under HOME.
    let o = clean_exe(&home).arg(&input).arg("-o").arg(home.join("a.hsaco")).env("HSA_HOTSWAP_VERBOSE", "1").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("cache"));
    assert!(!home.join(".cache").exists());
    // --cache: the contract's default directory, $HOME/.cache/rocm/hotswap without XDG_CACHE_HOME ...
    let o = clean_exe(&home).arg(&input).arg("--cache").arg("-o").arg(home.join("b.hsaco")).env("HSA_HOTSWAP_VERBOSE", "1").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("cache miss, stored"), "{err}");
    assert!(entry_path(&err).starts_with(&default_dir), "{err}");
    // ... and $XDG_CACHE_HOME/rocm/hotswap with it.
    let xdg = home.join("xdg");
    let o = clean_exe(&home).arg(&input).arg("--cache").arg("-o").arg(home.join("c.hsaco")).env("XDG_CACHE_HOME", &xdg).env("HSA_HOTSWAP_VERBOSE", "1").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && entry_path(&err).starts_with(xdg.join("rocm/hotswap")), "{err}");
    // --cache-dir DIR, and --no-cache beats HSA_HOTSWAP_CACHE_DIR.
    let o = clean_exe(&home).arg(&input).arg("--cache-dir").arg(home.join("mine")).arg("-o").arg(home.join("d.hsaco")).env("HSA_HOTSWAP_VERBOSE", "1").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && entry_path(&err).starts_with(home.join("mine")), "{err}");
    let o = clean_exe(&home).arg(&input).arg("--no-cache").arg("-o").arg(home.join("e.hsaco")).env("HSA_HOTSWAP_CACHE_DIR", home.join("never")).env("HSA_HOTSWAP_VERBOSE", "1").output().unwrap();
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stderr).contains("cache"));
    assert!(!home.join("never").exists());
}

#[test]
fn emit_writes_each_stage() {
    let input = corpus_file(GpuTarget::Gfx1250, "saxpy");
    let stage = |emit: &str| -> Vec<u8> {
        let out_path = tmp(&format!("saxpy.{emit}"));
        let out = run(&[input.to_str().unwrap(), "--target", "gfx950", "--emit", emit, "-o", out_path.to_str().unwrap()]);
        assert!(out.status.success(), "{emit}: {}", String::from_utf8_lossy(&out.stderr));
        std::fs::read(&out_path).unwrap()
    };
    let raised = String::from_utf8(stage("raised-ir")).unwrap();
    assert!(raised.contains("define amdgpu_kernel void @saxpy("), "{raised}");
    let opt = String::from_utf8(stage("optimized-ir")).unwrap();
    assert!(opt.contains("@saxpy(") && opt != raised, "{opt}");
    let asm = String::from_utf8(stage("asm")).unwrap();
    assert!(asm.contains("saxpy:") && asm.contains("s_endpgm"), "{asm}");
    let rel = CodeObject::parse(&stage("relocatable")).unwrap();
    assert_eq!(rel.processor(), Some("gfx950"));
    let out = run(&[input.to_str().unwrap(), "--emit", "bitcode"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'bitcode' for '--emit <EMIT>'") && err.contains("possible values: code-object, raised-ir"), "{err}");
}

/// The command's translation is the library's with default options for the same target: the
/// same bytes (the CLI adds nothing of its own to the code object).
#[test]
fn the_command_writes_what_the_library_translates() {
    for name in ["saxpy", "divergent_if", "multi_kernel"] {
        let input = corpus_file(GpuTarget::Gfx1250, name);
        let out = tmp(&format!("{name}-lib-vs-cli.hsaco"));
        let r = exe()
            .args([input.to_str().unwrap(), "--target", "gfx942", "--no-cache", "-o", out.to_str().unwrap()])
            .env_remove("HSA_HOTSWAP_ISA_OVERRIDE")
            .env_remove("HSA_HOTSWAP_CACHE_DIR")
            .output()
            .unwrap();
        assert!(r.status.success(), "{name}: {}", String::from_utf8_lossy(&r.stderr));
        let cli = std::fs::read(&out).unwrap();
        let options = hotswap::Options { target: GpuTarget::Gfx942, ..Default::default() };
        let lib = hotswap::translate(&std::fs::read(&input).unwrap(), &options).unwrap().bytes;
        assert!(cli == lib, "{name}: the command wrote {} bytes, the library gives {}", cli.len(), lib.len());
    }
}

/// `verify --races`: a kernel in which thread 0 stores to `out[0]` and thread 32 (the other
/// wave32) updates it with no barrier between them. Without the flag, verify reports that the
/// translation computes something else (its wave64 runs both threads in one wave, in another
/// order); with it, the source is refused as racing, which says why.
#[test]
fn verify_races_refuses_a_racing_kernel() {
    let ir = include_str!("../../../tests/fixtures/store_then_update.ll");
    let rel = hx_llvm::compile_ir(ir, "race", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap();
    let path = tmp("race.hsaco");
    std::fs::write(&path, hx_relink::link(&rel).unwrap()).unwrap();
    let args = ["verify", path.to_str().unwrap(), "--target", "gfx942", "--grid", "64", "--block", "64"];
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not compute what the source computes"), "{err}");
    let out = run(&[&args[..], &["--races"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("data race on global memory"), "{err}");
}
