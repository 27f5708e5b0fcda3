//! LLVM's own disassembler test vectors (tests/data/*.txt, taken from
//! llvm/test/MC/Disassembler/AMDGPU): each vector is decoded by this crate and by the LLVM linked
//! here. Ours must agree with the live LLVM (or say "unsupported"); agreement of both with the
//! file's expected text (written for the LLVM version of that file) is reported per file.
//!
//! `cargo test -p hx-isa --test llvm_vectors -- --nocapture` prints the per-file rates.

mod common;

use common::{compare, gpu, Verdict};
use hx_isa::{decode, Target};
use hx_llvm::Disassembler;

struct Vector {
    bytes: Vec<u8>,
    /// The file's expected text (FileCheck pattern, comment part dropped), if any.
    expected: Option<String>,
}

fn parse_bytes(line: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for t in line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        out.push(u8::from_str_radix(t.strip_prefix("0x")?, 16).ok()?);
    }
    (!out.is_empty()).then_some(out)
}

fn check_text(line: &str) -> Option<(String, Option<Vec<u8>>)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let (prefix, body) = rest.split_once(':')?;
    if prefix.contains(' ') || prefix == "RUN" || prefix == "NOTE" || prefix.starts_with("From") {
        return None;
    }
    let (text, enc) = match body.find("; encoding:") {
        Some(i) => {
            let enc = body[i + "; encoding:".len()..]
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']');
            (&body[..i], parse_bytes(enc))
        }
        None => (body, None),
    };
    Some((text.split_whitespace().collect::<Vec<_>>().join(" "), enc))
}

fn parse(file: &str) -> (Target, Vec<Vector>) {
    let target = if file.contains("mcpu=gfx1250") || file.contains("amdgpu12.50") {
        Target::Gfx1250
    } else if file.contains("mcpu=gfx950") {
        Target::Gfx950
    } else {
        Target::Gfx942
    };
    let lines: Vec<&str> = file.lines().collect();
    let mut vectors = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim();
        if !l.starts_with("0x") {
            continue;
        }
        let Some(bytes) = parse_bytes(l) else {
            continue;
        };
        // The check line naming these bytes, else the nearest check line after, else before.
        let checks: Vec<(usize, String, Option<Vec<u8>>)> = lines
            .iter()
            .enumerate()
            .filter_map(|(j, c)| check_text(c.trim()).map(|(t, e)| (j, t, e)))
            .collect();
        let by_enc = checks
            .iter()
            .find(|(_, _, e)| e.as_deref() == Some(&bytes[..]));
        let after = checks.iter().find(|(j, _, e)| {
            *j > i && e.is_none() && !lines[i + 1..*j].iter().any(|x| x.trim().starts_with("0x"))
        });
        let expected = by_enc.or(after).map(|(_, t, _)| t.clone());
        vectors.push(Vector { bytes, expected });
    }
    (target, vectors)
}

fn norm(s: &str) -> String {
    // FileCheck compares the pattern against the line: trailing text (LLVM's comments) and
    // runs of spaces do not matter.
    let s = s.split(" ; ").next().unwrap_or(s);
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn run_file(name: &str, file: &str) -> (usize, usize, usize, Vec<String>) {
    let (target, vectors) = parse(file);
    let mut llvm = Disassembler::new(gpu(target)).expect("LLVM disassembler");
    let (mut agree, mut unsupported, mut file_agree, mut llvm_file_agree) = (0, 0, 0, 0);
    let mut differ = Vec::new();
    let mut bad = Vec::new();
    for v in &vectors {
        let mut buf = v.bytes.clone();
        buf.resize(buf.len().max(4) + 12, 0);
        // Only the vector's bytes: LLVM's literal reads must see what the file gives.
        let buf = &buf[..v.bytes.len()];
        match compare(&mut llvm, target, buf) {
            Verdict::Match => agree += 1,
            Verdict::Unsupported(_) => unsupported += 1,
            Verdict::Mismatch(m) => bad.push(format!("{name}: {m}")),
        }
        let ours = decode(target, buf, 0)
            .ok()
            .map(|i| i.text())
            .unwrap_or_else(|| "<invalid>".into());
        let live = llvm
            .decode(buf, 0)
            .map(|(_, t)| t)
            .unwrap_or_else(|| "<invalid>".into());
        if let Some(e) = &v.expected {
            if norm(&ours) == norm(e) {
                file_agree += 1;
            }
            if norm(&live) == norm(e) {
                llvm_file_agree += 1;
            } else {
                differ.push(format!("file says {e:?}, LLVM 22 says {live:?}"));
            }
        }
    }
    let with_expect = vectors.iter().filter(|v| v.expected.is_some()).count();
    println!(
        "{name:34} {:8}: {:3} vectors; ours = live LLVM {agree}/{} ({unsupported} unsupported); ours = file text {file_agree}/{with_expect}; live LLVM = file text {llvm_file_agree}/{with_expect}",
        target.cpu(),
        vectors.len(),
        vectors.len()
    );
    for d in differ {
        println!("    (newer LLVM text) {d}");
    }
    (vectors.len(), agree, unsupported, bad)
}

#[test]
fn llvm_test_vectors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    let mut bad = Vec::new();
    for n in &names {
        let text = std::fs::read_to_string(dir.join(n)).expect("vector file");
        let (_, _, _, b) = run_file(n, &text);
        bad.extend(b);
    }
    for b in &bad {
        println!("    mismatch: {b}");
    }
    assert!(
        bad.is_empty(),
        "{} vectors where this crate and LLVM disagree",
        bad.len()
    );
}
