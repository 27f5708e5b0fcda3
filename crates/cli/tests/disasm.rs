//! `hotswap-xlate disasm`: the project's decoder against LLVM's, through the command.

use hotswap::GpuTarget;
use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hotswap-xlate")).args(args).output().unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hx-disasm-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Listing lines of both decoders for one object; lines where hotswap-xlate reports an
/// unsupported (not yet modelled) encoding are returned apart.
fn compare_listing(path: &str) -> (usize, Vec<String>) {
    let ours = run(&["disasm", path]);
    let llvm = run(&["disasm", "--llvm", path]);
    assert!(llvm.status.success(), "{path}: LLVM listing failed: {}", String::from_utf8_lossy(&llvm.stderr));
    let (ours, llvm) = (stdout(&ours), stdout(&llvm));
    let (ours, llvm): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), llvm.lines().collect());
    let mut unsupported = 0;
    let mut mismatches = Vec::new();
    // Headers and addresses agree line for line as long as every instruction has the same length;
    // an unsupported word shifts our listing, so compare only up to the first one per region.
    let mut i = 0;
    let mut j = 0;
    while i < ours.len() && j < llvm.len() {
        if ours[i].contains("<error: unsupported") {
            unsupported += 1;
            // Skip to the next region header in both listings.
            while i < ours.len() && !ours[i].is_empty() {
                i += 1;
            }
            while j < llvm.len() && !llvm[j].is_empty() {
                j += 1;
            }
            continue;
        }
        if ours[i] != llvm[j] {
            mismatches.push(format!("{path}: ours `{}` llvm `{}`", ours[i], llvm[j]));
        }
        i += 1;
        j += 1;
    }
    (unsupported, mismatches)
}

#[test]
fn listings_match_llvm_on_the_corpus() {
    let mut unsupported = 0;
    let mut mismatches = Vec::new();
    for t in GpuTarget::ALL {
        for o in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for(t.cpu())) {
            let p = hx_corpus::corpus_dir().join(t.cpu()).join(format!("{}.hsaco", o.name));
            let (u, m) = compare_listing(p.to_str().unwrap());
            unsupported += u;
            mismatches.extend(m);
        }
    }
    assert!(mismatches.is_empty(), "{} lines differ from LLVM:\n{}", mismatches.len(), mismatches[..mismatches.len().min(40)].join("\n"));
    eprintln!("regions cut short by not-yet-modelled encodings: {unsupported}");
}

#[test]
fn listing_names_kernels_and_functions_with_addresses() {
    let p = hx_corpus::corpus_dir().join("gfx1250").join("device_call.hsaco");
    let out = stdout(&run(&["disasm", "--llvm", p.to_str().unwrap()]));
    let co = hotswap::codeobj::CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap();
    for k in &co.kernels {
        assert!(out.contains(&format!("kernel {} @ {:#x} ({} bytes):", k.name, k.code_addr, k.code_size)), "{out}");
    }
    assert!(!co.functions.is_empty(), "device_call has a non-inlined function");
    for f in &co.functions {
        assert!(out.contains(&format!("function {} @ {:#x} ({} bytes):", f.name, f.addr, f.size)), "{out}");
    }
}

#[test]
fn raw_bytes_with_a_bad_word_in_the_middle() {
    // s_mov_b32 s0, 0x12345678 (literal) | an invalid word | s_endpgm, for gfx1250.
    let raw = [0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0xb0, 0xbf];
    let path = tmp("raw.bin");
    std::fs::write(&path, raw).unwrap();
    let llvm = run(&["disasm", "--llvm", "--mcpu", "gfx1250", "--raw", path.to_str().unwrap()]);
    let ours = run(&["disasm", "--mcpu", "gfx1250", "--raw", path.to_str().unwrap()]);
    assert_eq!(stdout(&llvm), "s_mov_b32 s0, 0x12345678\ns_endpgm\n");
    assert_eq!(stdout(&ours), stdout(&llvm));
    assert_eq!(ours.status.code(), Some(2), "undecodable input is bad input");
    let err = String::from_utf8(ours.stderr).unwrap();
    assert!(err.contains("offset 0x8") && err.contains("ff ff ff ff"), "{err}");
    let out = run(&["disasm", "--raw", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--mcpu"));
}

#[test]
fn hex_lines_as_llvm_mc_tests_write_them() {
    let input = "# a comment line\n\
                 0x00,0x00,0xb0,0xbf\n\
                 0xff,0x00,0x80,0xbe,0x78,0x56,0x34,0x12 // with a trailing comment\n\
                 \n\
                 0xff,0xff,0xff,0xff\n\
                 0x00,0x00,0xb0\n";
    let path = tmp("lines.txt");
    std::fs::write(&path, input).unwrap();
    let llvm = run(&["disasm", "--llvm", "--mcpu", "gfx1250", "--hex-lines", path.to_str().unwrap()]);
    assert_eq!(stdout(&llvm), "s_endpgm\ns_mov_b32 s0, 0x12345678\n<invalid>\n<invalid>\n");
    let ours = run(&["disasm", "--mcpu", "gfx1250", "--hex-lines", path.to_str().unwrap()]);
    assert_eq!(stdout(&ours), stdout(&llvm));
    std::fs::write(&path, "0x00,0xzz\n").unwrap();
    let bad = run(&["disasm", "--mcpu", "gfx1250", "--hex-lines", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains(":1: `0xzz` is not a hex byte"));
}
