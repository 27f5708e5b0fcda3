//! The command's conventions (issue 28): keep going with a per-kernel report, exit codes, value
//! parsers, `-` for standard streams, quiet broken pipes, bundles everywhere, `verify --kernel`
//! and `--skip-kernel`, `--version`. One test per convention point.

use hotswap::codeobj::bundle::{Bundle, BundleEntry, BundleFormat};
use hotswap::codeobj::CodeObject;
use hotswap::GpuTarget;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn exe() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hotswap-xlate"));
    for v in ["HSA_HOTSWAP_ISA_OVERRIDE", "HSA_HOTSWAP_CACHE_DIR", "HSA_HOTSWAP_STRICT", "HSA_HOTSWAP_VERBOSE", "HSA_HOTSWAP_DISABLE"] {
        c.env_remove(v);
    }
    c
}

fn run(args: &[&str]) -> Output {
    exe().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("hx-cli-conventions-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tmp(name: &str) -> PathBuf {
    dir().join(name)
}

fn saxpy() -> PathBuf {
    hx_corpus::corpus_dir().join("gfx1250/saxpy.hsaco")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Six kernels k0..k5 storing `id + i`; k1 uses v_permlane16_var_b32 (which hx-isa does not decode)
/// and k3 reads the HW_ID1 hwreg (decoded, not raised): both are refused.
fn mixed_object() -> PathBuf {
    let path = tmp("mixed.hsaco");
    if path.exists() {
        return path;
    }
    let mut ir = String::new();
    for i in 0..6 {
        let extra = match i {
            1 => "  %x = call i32 asm sideeffect \"v_permlane16_var_b32 $0, $1, $1\", \"=v,v\"(i32 %id)\n",
            3 => "  %x = call i32 asm sideeffect \"s_getreg_b32 $0, hwreg(HW_REG_WAVE_HW_ID1)\", \"=s\"()\n",
            _ => "  %x = add i32 %id, 0\n",
        };
        ir.push_str(&format!(
            "define amdgpu_kernel void @k{i}(ptr addrspace(1) %out) #0 {{\n  %id = call i32 @llvm.amdgcn.workitem.id.x()\n{extra}  %v = add i32 %x, {i}\n  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id\n  store i32 %v, ptr addrspace(1) %p\n  ret void\n}}\n"
        ));
    }
    ir.push_str("declare i32 @llvm.amdgcn.workitem.id.x()\nattributes #0 = { \"amdgpu-flat-work-group-size\"=\"64,64\" }\n!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n");
    let rel = hx_llvm::compile_ir(&ir, "mixed", GpuTarget::Gfx1250, hx_llvm::OptLevel::O1, hx_llvm::Emit::Object).unwrap();
    let staged = tmp(&format!("mixed.{}.tmp", std::thread::current().name().unwrap_or("t").replace("::", "_")));
    std::fs::write(&staged, hx_relink::link(&rel).unwrap()).unwrap();
    std::fs::rename(&staged, &path).unwrap();
    path
}

#[test]
fn keep_going_writes_stubs_a_summary_and_the_report() {
    let input = mixed_object();
    // Strict: exit 3, both refusals in one error, nothing written.
    let never = tmp("mixed-never.hsaco");
    let o = run(&[p(&input), "-o", p(&never)]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("2 kernels refused") && err.contains("kernel k1, offset 0x") && err.contains("kernel k3, offset 0x"), "{err}");
    assert!(err.contains("v_permlane16_var_b32") && err.contains("s_getreg_b32"), "{err}");
    assert!(!never.exists());

    // --keep-going: exit 0, one line per refused kernel and the totals, the report as JSON.
    let out = tmp("mixed.gfx942.hsaco");
    let report = tmp("mixed.report.json");
    let o = run(&[p(&input), "--keep-going", "-o", p(&out), "--report", p(&report)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let refused: Vec<&str> = err.lines().filter(|l| l.starts_with("refused: ")).collect();
    assert_eq!(refused.len(), 2, "{err}");
    assert!(refused[0].contains("kernel k1, offset 0x") && refused[0].contains("v_permlane16_var_b32"), "{err}");
    assert!(refused[1].contains("kernel k3, offset 0x") && refused[1].contains("s_getreg_b32"), "{err}");
    assert!(err.contains("6 kernels: 4 translated, 2 refused, 0 skipped"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["totals"]["refused"], 2);
    let kernels = json["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 6);
    for k in kernels {
        let bad = k["name"] == "k1" || k["name"] == "k3";
        assert_eq!(k["status"], if bad { "refused" } else { "translated" }, "{k}");
        assert!(k["source_instructions"].as_u64().unwrap() > 0 && k["target"]["vgprs"].as_u64().is_some(), "{k}");
        if bad {
            assert!(k["refusal"]["offset"].as_u64().is_some() && k["refusal"]["mnemonic"].is_string(), "{k}");
        }
    }
    let co = CodeObject::parse(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(co.kernels.len(), 6, "refused kernels keep their symbols");

    // --json: the same report on standard output; HSA_HOTSWAP_STRICT=0 is --keep-going.
    let o = exe().args([p(&input), "--json", "-o", p(&tmp("mixed-json.hsaco"))]).env("HSA_HOTSWAP_STRICT", "0").output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["totals"]["translated"], 4);

    // verify --keep-going compares the four and lists the two.
    let o = run(&["verify", p(&input), "--keep-going"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("k0 out: match") && text.contains("k5 out: match"), "{text}");
    assert!(text.contains("k1: not compared: refused:") && text.contains("k3: not compared: refused:"), "{text}");
}

#[test]
fn quiet_and_verbose() {
    let input = mixed_object();
    let o = run(&[p(&input), "--keep-going", "-q", "-o", p(&tmp("mixed-q.hsaco"))]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "", "-q prints nothing");
    let o = run(&[p(&saxpy()), "-v", "-o", p(&tmp("saxpy-v.hsaco"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let stages = err.lines().find(|l| l.starts_with("hotswap-xlate: stages: ")).unwrap_or_else(|| panic!("{err}"));
    assert!(stages.contains("parse ") && stages.contains("link ") && stages.contains("total "), "{stages}");
    // Durations a person reads, not Debug output.
    assert!(!err.contains("secs") && !err.contains("nanos") && (stages.contains(" ms") || stages.contains(" µs")), "{err}");
    assert!(err.contains("1 kernels: 1 translated, 0 refused, 0 skipped"), "{err}");
}

#[test]
fn exit_codes_are_distinct_and_documented() {
    let help = stdout(&run(&["--help"]));
    for code in ["0  success", "1  verify", "2  bad arguments", "3  unsupported", "4  internal", "5  I/O"] {
        assert!(help.contains(code), "{code}: {help}");
    }
    let bad = tmp("not-elf.hsaco");
    std::fs::write(&bad, b"hello").unwrap();
    assert_eq!(run(&[p(&bad)]).status.code(), Some(2), "bad input");
    assert_eq!(run(&["/nonexistent/in.hsaco"]).status.code(), Some(5), "I/O");
    let native = hx_corpus::corpus_dir().join("gfx942/saxpy.hsaco");
    assert_eq!(run(&[p(&native), "-o", p(&tmp("never.hsaco"))]).status.code(), Some(3), "not gfx1250");
    assert_eq!(run(&[p(&saxpy()), "-o", "/nonexistent/dir/out.hsaco"]).status.code(), Some(5), "I/O on output");
    assert_eq!(run(&[p(&mixed_object()), "-o", p(&tmp("never2.hsaco"))]).status.code(), Some(3), "strict refusal");
}

#[test]
fn value_enums_and_target_ids() {
    let out = p(&tmp("enum.hsaco")).to_string();
    for (flag, value) in [("-O", "4"), ("--wmma", "fast"), ("--emit", "bitcode")] {
        let o = run(&[p(&saxpy()), flag, value, "-o", &out]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        assert!(stderr(&o).contains("possible values"), "{flag}: {}", stderr(&o));
    }
    // Full target IDs as clang writes them, on translate and verify alike; a repeated feature
    // is an error on both.
    let o = run(&[p(&saxpy()), "--target", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "-o", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let co = CodeObject::parse(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(co.target_id(), "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
    let launch = ["--grid", "256", "--value", "n=200"];
    let o = run(&[&["verify", p(&saxpy()), "--target", "gfx950:xnack+"], &launch[..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [vec![p(&saxpy()), "--target", "gfx942:xnack+:xnack-", "-o", &out], vec!["verify", p(&saxpy()), "--target", "gfx942:xnack+:xnack+"]] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("feature xnack is given twice"), "{}", stderr(&o));
    }
}

#[test]
fn values_by_name_or_index_and_unknown_names_refused() {
    let input = saxpy();
    let digest = |values: &[&str]| {
        let mut args = vec!["run", p(&input), "--kernel", "saxpy", "--grid", "256"];
        for v in values {
            args.extend_from_slice(&["--value", v]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{values:?}: {}", stderr(&o));
        stdout(&o)
    };
    let by_name = digest(&["n=200", "a=2.5"]);
    assert_eq!(digest(&["0=200", "1=2.5"]), by_name, "by index");
    assert_ne!(digest(&["n=100", "a=2.5"]), by_name, "the value is used");
    let o = run(&["run", p(&saxpy()), "--kernel", "saxpy", "--value", "count=3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has no argument count (its arguments: 0=n (by_value), 1=a (by_value), 2=x (global_buffer)"), "{}", stderr(&o));
    let o = run(&["run", p(&saxpy()), "--kernel", "saxpy", "--value", "x=3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a by-value argument"), "{}", stderr(&o));
}

fn bundle(entries: &[(&str, Vec<u8>)], name: &str) -> PathBuf {
    let b = Bundle { format: BundleFormat::Plain, entries: entries.iter().map(|(id, d)| BundleEntry { id: id.to_string(), data: d.clone() }).collect() };
    let path = tmp(name);
    std::fs::write(&path, b.write().unwrap()).unwrap();
    path
}

#[test]
fn bundles_say_what_they_lack_and_keep_target_features() {
    let gfx1250 = std::fs::read(saxpy()).unwrap();
    let gfx942 = std::fs::read(hx_corpus::corpus_dir().join("gfx942/saxpy.hsaco")).unwrap();
    let host = ("host-x86_64-unknown-linux-gnu-", vec![]);
    // No gfx1250 entry: said, with the entries it has.
    let none = bundle(&[host.clone(), ("hipv4-amdgcn-amd-amdhsa--gfx942", gfx942.clone())], "no1250.hipfb");
    let o = run(&[p(&none), "-o", p(&tmp("no1250.out"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no gfx1250 code-object entry") && stderr(&o).contains("hipv4-amdgcn-amd-amdhsa--gfx942"), "{}", stderr(&o));
    // The target's entry exists: the gfx1250 entry is left alone, and that is said.
    let both = bundle(&[host.clone(), ("hipv4-amdgcn-amd-amdhsa--gfx1250", gfx1250.clone()), ("hipv4-amdgcn-amd-amdhsa--gfx942", gfx942)], "both.hipfb");
    let o = run(&[p(&both), "-o", p(&tmp("both.out"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("note: bundle entry hipv4-amdgcn-amd-amdhsa--gfx1250 is not translated: the bundle already has hipv4-amdgcn-amd-amdhsa--gfx942"), "{}", stderr(&o));
    // Entry ids keep the target's features.
    let fat = bundle(&[host, ("hipv4-amdgcn-amd-amdhsa--gfx1250", gfx1250)], "fat.hipfb");
    let out = tmp("fat.out.hipfb");
    let o = run(&[p(&fat), "--target", "gfx942:xnack+", "-o", p(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let b = Bundle::parse(&std::fs::read(&out).unwrap()).unwrap();
    let added = b.entries.iter().find(|e| e.id.contains("gfx942")).unwrap();
    assert_eq!(added.id, "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+");
    assert_eq!(CodeObject::parse(&added.data).unwrap().target_id(), "amdgcn-amd-amdhsa--gfx942:xnack+");

    // verify, run and disasm take the bundle.
    let launch = ["--grid", "256", "--value", "n=200", "--value", "a=1.5"];
    let o = run(&[&["verify", p(&fat)], &launch[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("saxpy y: match"), "{}", stderr(&o));
    let o = run(&[&["verify", p(&fat), "--translated", p(&out)], &launch[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("saxpy y: match") && stdout(&o).contains(" on gfx942"), "{}", stderr(&o));
    let o = run(&[&["run", p(&fat), "--kernel", "saxpy"], &launch[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("buffer y:"), "{}", stderr(&o));
    let o = run(&[&["run", p(&out), "--kernel", "saxpy", "--entry", "gfx942:xnack+"], &launch[..]].concat());
    assert!(o.status.success() && stdout(&o).contains("buffer y:"), "{}", stderr(&o));
    let o = run(&["run", p(&out), "--kernel", "saxpy", "--entry", "gfx900"]);
    assert_eq!(o.status.code(), Some(2), "no such entry");
    assert!(stderr(&o).contains("no bundle entry gfx900 (its amdgcn entries: hipv4-amdgcn-amd-amdhsa--gfx1250, hipv4-amdgcn-amd-amdhsa--gfx942:xnack+)"), "{}", stderr(&o));
    let o = run(&["disasm", p(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("bundle entry hipv4-amdgcn-amd-amdhsa--gfx1250:\nkernel saxpy @") && text.contains("bundle entry hipv4-amdgcn-amd-amdhsa--gfx942:xnack+:\nkernel saxpy @"), "{text}");
}

#[test]
fn output_path_is_printed_without_o() {
    let input = tmp("printed.hsaco");
    std::fs::copy(saxpy(), &input).unwrap();
    let o = run(&[p(&input)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = tmp("printed.gfx942.hsaco");
    assert!(stderr(&o).contains(&format!("wrote {}", want.display())), "{}", stderr(&o));
    assert!(CodeObject::parse(&std::fs::read(&want).unwrap()).is_ok());
}

#[test]
fn dash_is_stdin_and_stdout() {
    let bytes = std::fs::read(saxpy()).unwrap();
    let mut child = exe().args(["-", "-o", "-", "--target", "gfx950"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(CodeObject::parse(&o.stdout).unwrap().processor(), Some("gfx950"));
    let mut child = exe().args(["inspect", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success() && stdout(&o).starts_with("target_id: amdgcn-amd-amdhsa--gfx1250\n"));
}

#[test]
fn broken_pipes_end_quietly() {
    // The reading end is closed before the command writes: its first write meets EPIPE.
    for args in [vec!["inspect", p(&saxpy())], vec!["disasm", p(&saxpy())]] {
        let mut child = exe().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_ne!(o.status.code(), Some(101), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked") && !stderr(&o).contains("Broken pipe"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn inspect_names_section_and_segment_types_at_elf_indices() {
    let o = run(&["inspect", "--json", p(&saxpy())]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sections = json["sections"].as_array().unwrap();
    for (i, s) in sections.iter().enumerate() {
        assert_eq!(s["index"], i, "{s}");
    }
    assert_eq!(sections[0]["type"], "NULL");
    assert!(sections.iter().any(|s| s["name"] == ".text" && s["type"] == "PROGBITS"));
    assert!(sections.iter().any(|s| s["name"] == ".note" && s["type"] == "NOTE"));
    let segments = json["program_headers"].as_array().unwrap();
    assert!(segments.iter().any(|s| s["type"] == "LOAD" && s["flags"] == "R E"), "{segments:?}");
    // LLVM's readelf agrees on every index, name and type.
    let readelf = Command::new("llvm-readelf-22").args(["-S", "-W", p(&saxpy())]).output();
    let Some(readelf) = readelf.ok().filter(|o| o.status.success()) else {
        eprintln!("skipping the llvm-readelf-22 comparison: the tool is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&readelf.stdout);
    let mut seen = 0;
    for line in text.lines().filter_map(|l| l.trim_start().strip_prefix('[')) {
        let Some((idx, rest)) = line.split_once(']') else { continue };
        let Ok(idx) = idx.trim().parse::<usize>() else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (name, ty) = if idx == 0 { ("", fields[0]) } else { (fields[0], fields[1]) };
        assert_eq!(sections[idx]["name"], name, "section {idx}");
        assert_eq!(sections[idx]["type"], ty, "section {idx}");
        seen += 1;
    }
    assert_eq!(seen, sections.len());
    let o = run(&["inspect", p(&saxpy())]);
    assert!(stdout(&o).contains("    type: PROGBITS\n"));
}

#[test]
fn disasm_prints_branch_targets_as_labels() {
    let path = hx_corpus::corpus_dir().join("gfx1250/divergent_if.hsaco");
    let o = run(&["disasm", p(&path)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let branches: Vec<&str> = text.lines().filter(|l| l.contains(": s_cbranch_") || l.contains(": s_branch ")).collect();
    assert!(!branches.is_empty(), "{text}");
    for b in branches {
        let label = b.rsplit(' ').next().unwrap();
        assert!(label.starts_with(".L_"), "{b}");
        // The label is defined right before the instruction at its address.
        let addr = u64::from_str_radix(&label[3..], 16).unwrap();
        let def = format!("{label}:\n  {addr:#010x}: ");
        assert!(text.contains(&def), "{label} is not defined: {text}");
    }
}

#[test]
fn verify_kernel_translates_only_that_kernel_and_skip_kernel_works() {
    let input = mixed_object();
    // Strict mode: k1 and k3 refuse the object, but verifying k0 translates only k0.
    let o = run(&["verify", p(&input), "--kernel", "k0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("k0 out: match") && !stdout(&o).contains("k2"), "{}", stdout(&o));
    let o = run(&["verify", p(&input), "--skip-kernel", "k1", "--skip-kernel", "k3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("k1: not compared: not in the translation (skipped)") && text.contains("k5 out: match"), "{text}");
    // A translation lacking a source kernel is verified on the rest.
    let out = tmp("mixed-skipped.hsaco");
    let o = run(&[p(&input), "--skip-kernel", "k1", "--skip-kernel", "k3", "-o", p(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["verify", p(&input), "--translated", p(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("k3: not compared: not in the translation (skipped)") && stdout(&o).contains("k4 out: match"), "{}", stdout(&o));
}

#[test]
fn version_names_llvm_and_the_translator() {
    let o = run(&["--version"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("LLVM 22.") && text.contains(hotswap::TRANSLATOR_ID), "{text}");
}

#[test]
fn refusals_spell_the_hwreg_by_name() {
    let ir = "define amdgpu_kernel void @hw(ptr addrspace(1) %out) #0 {\n  %x = call i32 asm sideeffect \"s_getreg_b32 $0, hwreg(HW_REG_WAVE_HW_ID1)\", \"=s\"()\n  store i32 %x, ptr addrspace(1) %out\n  ret void\n}\nattributes #0 = { \"amdgpu-flat-work-group-size\"=\"64,64\" }\n!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n";
    let rel = hx_llvm::compile_ir(ir, "hw", GpuTarget::Gfx1250, hx_llvm::OptLevel::O1, hx_llvm::Emit::Object).unwrap();
    let path = tmp("hwreg.hsaco");
    std::fs::write(&path, hx_relink::link(&rel).unwrap()).unwrap();
    let o = run(&[p(&path), "--keep-going", "--json", "-o", p(&tmp("hwreg.out.hsaco"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &json["kernels"][0]["refusal"];
    assert_eq!(r["mnemonic"], "s_getreg_b32", "{r}");
    assert!(r["instruction"].as_str().unwrap().contains("hwreg(HW_REG_WAVE_HW_ID1)"), "{r}");
    assert!(stderr(&o).contains("[s_getreg_b32 s") && stderr(&o).contains("hwreg(HW_REG_WAVE_HW_ID1)]"), "{}", stderr(&o));
}

#[test]
fn keep_going_is_no_silent_no_op_on_ir_stages() {
    let input = mixed_object();
    let o = run(&[p(&input), "--keep-going", "--emit", "asm", "-o", p(&tmp("mixed.s"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--keep-going applies to --emit code-object and relocatable"), "{}", stderr(&o));
    // The relocatable stage keeps going: the refused kernels' stubs are in it.
    let rel = tmp("mixed.o");
    let o = run(&[p(&input), "--keep-going", "--emit", "relocatable", "-o", p(&rel)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let co = CodeObject::parse(&std::fs::read(&rel).unwrap()).unwrap();
    let mut descriptors: Vec<&str> = co.symbols.iter().filter_map(|s| s.name.strip_suffix(".kd")).collect();
    descriptors.sort();
    assert_eq!(descriptors, ["k0", "k1", "k2", "k3", "k4", "k5"], "every kernel's descriptor, the stubs' too");
}
