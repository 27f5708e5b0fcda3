//! Generates the opcode tables of `hx-isa` (crates/isa/src/tables/*.rs) by asking LLVM's
//! disassembler: each format's opcode field is swept with canonical operand fields; the printed
//! mnemonic is recorded, each encoding field is bound to the printed operand it changes, and the
//! operand's kind (register class, width, value type, immediate style) is found by fitting: the
//! field is swept through its whole value range (and literal values) and the kind whose decoding
//! and printing (the crate's own `operand.rs`, shared here with `#[path]`) reproduces every
//! LLVM answer is chosen. Opcodes no kind reproduces are listed as unsupported, never guessed.
//!
//! Deterministic: the same LLVM gives byte-identical files.

#[allow(dead_code)]
#[path = "../../crates/isa/src/spec.rs"]
mod spec;

#[allow(dead_code)]
#[path = "../../crates/isa/src/operand.rs"]
mod operand;

use anyhow::{bail, Context, Result};
use hx_llvm::{Disassembler, GpuTarget};
use operand::{decode_operand, format_operand, LitReader};
use spec::{format_encoding, format_fields, opcode_count, Field, Format, Imm16, Kind, OpInfo, OperandSpec, Target, Unused, ValType};
use std::fmt::Write as _;
use std::path::Path;

/// The formats generated for each target, in table order.
pub const FORMATS: [Format; 5] = [Format::Sop1, Format::Sop2, Format::Sopk, Format::Sopc, Format::Sopp];

/// Literal dwords placed after the instruction in every probe unless a probe says otherwise.
const LIT: [u32; 2] = [0x1234_5678, 0x9abc_def0];

/// Extra literal dword pairs tried for literal encodings (254, 255).
const LIT_PROBES: [[u32; 2]; 14] = [
    LIT,
    [1, 0],
    [0x3f00_0000, 0],
    [0x3800, 0],
    [0x3f00, 0],
    [0x3e22_f983, 0],
    [0x3118, 0],
    [0xffff_fff0, 0xffff_ffff],
    [0, 0x3fe0_0000],
    [0x41, 0],
    [0x40, 0],
    [0xfff0, 0],
    [5, 6],
    [0x1234_5678, 0],
];

fn gpu(t: Target) -> GpuTarget {
    match t {
        Target::Gfx1250 => GpuTarget::Gfx1250,
        Target::Gfx942 => GpuTarget::Gfx942,
        Target::Gfx950 => GpuTarget::Gfx950,
    }
}

fn canonical(f: Field) -> u32 {
    match f {
        Field::Sdst => 10,
        Field::Ssrc0 => 20,
        Field::Ssrc1 => 30,
        Field::Simm16 => 0x1e14,
    }
}

fn alternates(f: Field) -> &'static [u32] {
    match f {
        Field::Sdst => &[12, 0, 1],
        Field::Ssrc0 => &[22, 0, 1],
        Field::Ssrc1 => &[32, 0, 1],
        Field::Simm16 => &[0x1e15, 0x0001, 0x0000, 0x0100],
    }
}

/// LLVM's answer for one probe: (length, text without the comment, comment).
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    len: usize,
    text: String,
    comment: String,
}

struct Oracle {
    d: Disassembler,
}

impl Oracle {
    fn ask(&mut self, word: u32, lit: [u32; 2]) -> Option<Answer> {
        let mut b = Vec::with_capacity(16);
        b.extend_from_slice(&word.to_le_bytes());
        b.extend_from_slice(&lit[0].to_le_bytes());
        b.extend_from_slice(&lit[1].to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        let (len, text) = self.d.decode(&b, 0)?;
        let (text, comment) = match text.find(" ; ") {
            Some(i) => (text[..i].to_string(), text[i + 3..].to_string()),
            None => (text, String::new()),
        };
        Some(Answer { len, text, comment })
    }
}

/// Splits `s_foo a, hwreg(X, 1, 2), b` into mnemonic and top-level operands.
fn split_text(text: &str) -> (String, Vec<String>) {
    let (mn, rest) = match text.find(' ') {
        Some(i) => (&text[..i], text[i + 1..].trim()),
        None => (text, ""),
    };
    let mut ops = Vec::new();
    if !rest.is_empty() {
        let mut depth = 0i32;
        let mut cur = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
            if c == ',' && depth == 0 {
                ops.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            cur.push(c);
        }
        ops.push(cur.trim().to_string());
    }
    (mn.to_string(), ops)
}

fn encode(format: Format, opcode: u32, fields: &[(Field, u32)]) -> u32 {
    let (_, m, shift, width) = format_encoding(format).expect("format has an encoding");
    let mut w = m | ((opcode & ((1 << width) - 1)) << shift);
    for &(f, v) in fields {
        w = f.insert(w, v);
    }
    w
}

fn candidates(f: Field) -> Vec<Kind> {
    match f {
        Field::Sdst => vec![Kind::SDst { dwords: 1 }, Kind::SDst { dwords: 2 }],
        Field::Ssrc0 | Field::Ssrc1 => [ValType::B32, ValType::F32, ValType::B16, ValType::F16, ValType::BF16, ValType::B64, ValType::F64]
            .into_iter()
            .map(Kind::SSrc)
            .collect(),
        Field::Simm16 => vec![Kind::Imm16(Imm16::Hex), Kind::Imm16(Imm16::UDec), Kind::Imm16(Imm16::Hwreg)],
    }
}

fn probe_values(f: Field) -> Vec<(u32, [u32; 2])> {
    let mut v = Vec::new();
    match f {
        Field::Sdst => (0..128).for_each(|x| v.push((x, LIT))),
        Field::Ssrc0 | Field::Ssrc1 => {
            for x in 0..256u32 {
                if x == 254 || x == 255 {
                    LIT_PROBES.iter().for_each(|&l| v.push((x, l)));
                } else {
                    v.push((x, LIT));
                }
            }
        }
        Field::Simm16 => {
            let mut s: u32 = 0x2545_f491;
            for x in [0u32, 1, 2, 0x1e14, 0xffff, 0x8000, 0x7fff, 0x3f, 0x40, 0xf800, 0xf83f, 0x07c1, 0x0800, 0x00c5] {
                v.push((x, LIT));
            }
            for _ in 0..48 {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                v.push((s & 0xffff, LIT));
            }
            for id in 0..64 {
                v.push((id | 31 << 11, LIT));
            }
        }
    }
    v
}

/// What the crate's operand code predicts for one operand probe: (text, comment, length), or
/// None when it calls the encoding invalid.
fn predict(target: Target, kind: Kind, v: u32, lit: [u32; 2], hw: operand::HwregNames) -> Option<(String, String, usize)> {
    let mut b = vec![0u8; 4];
    b.extend_from_slice(&lit[0].to_le_bytes());
    b.extend_from_slice(&lit[1].to_le_bytes());
    let mut lits = LitReader::new(&b, 4);
    let mut warn = String::new();
    let op = decode_operand(target, kind, v, &mut lits, &mut warn).ok()?;
    let mut s = String::new();
    format_operand(&mut s, kind, &op, hw);
    Some((s, warn, 4 + lits.extra_len()))
}

#[derive(Debug, Clone)]
enum Entry {
    Invalid,
    Ok(OpInfo),
    Unsupported { text: String, why: String },
}

struct Gen {
    target: Target,
    oracle: Oracle,
    hwregs: &'static [Option<&'static str>],
}

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl Gen {
    fn gen_opcode(&mut self, format: Format, op: u32) -> Entry {
        let fields = format_fields(format);
        // Find a valid base: canonical values first, then with fields zeroed (fewest zeros first).
        let n = fields.len();
        let mut masks: Vec<u32> = (0..(1u32 << n)).collect();
        masks.sort_by_key(|m| (m.count_ones(), *m));
        let mut base = None;
        for m in masks {
            let fv: Vec<(Field, u32)> =
                fields.iter().enumerate().map(|(i, &f)| (f, if m >> i & 1 == 1 { 0 } else { canonical(f) })).collect();
            let w = encode(format, op, &fv);
            if let Some(a) = self.oracle.ask(w, LIT) {
                base = Some((fv, w, a));
                break;
            }
        }
        let Some((fv, bw, ba)) = base else {
            return Entry::Invalid;
        };
        let (mnemonic, ops) = split_text(&ba.text);
        let unsup = |why: String| Entry::Unsupported { text: ba.text.clone(), why };
        if !ba.comment.is_empty() {
            return unsup(format!("comment on the canonical form: {}", ba.comment));
        }
        // Bind fields to operands.
        let mut bound: Vec<Option<Field>> = vec![None; ops.len()];
        let mut unused = Vec::new();
        for &(f, fvv) in &fv {
            let mut changed: Option<usize> = None;
            let mut any_valid = false;
            let mut any_invalid = false;
            for &alt in alternates(f) {
                if alt == fvv {
                    continue;
                }
                let w = f.insert(bw, alt);
                match self.oracle.ask(w, LIT) {
                    None => any_invalid = true,
                    Some(a) => {
                        any_valid = true;
                        let (mn2, ops2) = split_text(&a.text);
                        if mn2 != mnemonic || ops2.len() != ops.len() {
                            return unsup(format!("field {f:?} changes the instruction shape: {}", a.text));
                        }
                        let diff: Vec<usize> = (0..ops.len()).filter(|&i| ops[i] != ops2[i]).collect();
                        match diff.as_slice() {
                            [] => {}
                            [i] => {
                                if changed.is_some_and(|c| c != *i) {
                                    return unsup(format!("field {f:?} moves between operands"));
                                }
                                changed = Some(*i);
                            }
                            _ => return unsup(format!("field {f:?} changes several operands")),
                        }
                    }
                }
            }
            match changed {
                Some(i) => {
                    if bound[i].is_some() {
                        return unsup(format!("operand {i} depends on two fields"));
                    }
                    bound[i] = Some(f);
                }
                None if !any_invalid => unused.push((f, Unused::Ignored)),
                None if !any_valid => unused.push((f, Unused::MustBe(fvv))),
                None => return unsup(format!("field {f:?} is partly constrained")),
            }
        }
        if let Some(i) = bound.iter().position(|b| b.is_none()) {
            return unsup(format!("operand {i} ({}) is bound to no field", ops[i]));
        }
        // Fit each operand's kind.
        let mut specs = Vec::new();
        for (i, f) in bound.iter().enumerate() {
            let f = f.expect("bound");
            let probes = probe_values(f);
            let answers: Vec<(u32, [u32; 2], Option<Answer>)> =
                probes.iter().map(|&(v, l)| (v, l, self.oracle.ask(f.insert(bw, v), l))).collect();
            let mut fit = None;
            'cand: for kind in candidates(f) {
                for (v, l, a) in &answers {
                    let p = predict(self.target, kind, *v, *l, self.hwregs);
                    match (a, p) {
                        (None, None) => {}
                        (Some(a), Some((t, c, len))) => {
                            let (mn2, ops2) = split_text(&a.text);
                            if mn2 != mnemonic || ops2.len() != ops.len() || ops2[i] != t || a.comment != c || a.len != len {
                                continue 'cand;
                            }
                        }
                        _ => continue 'cand,
                    }
                }
                fit = Some(kind);
                break;
            }
            match fit {
                Some(kind) => specs.push(OperandSpec { field: f, kind }),
                None => {
                    // Report the first disagreement of the closest candidate for the log.
                    return unsup(format!("no operand kind reproduces operand {i} ({}) of field {f:?}", ops[i]));
                }
            }
        }
        Entry::Ok(OpInfo {
            mnemonic: leak_str(mnemonic),
            format,
            opcode: op as u16,
            operands: Box::leak(specs.into_boxed_slice()),
            unused: Box::leak(unused.into_boxed_slice()),
        })
    }

    /// Names of `hwreg(...)` ids, found through `s_getreg_b32`.
    fn hwreg_names(&mut self) -> Result<Vec<Option<String>>> {
        let getreg = (0..opcode_count(Format::Sopk))
            .find(|&op| {
                let w = encode(Format::Sopk, op, &[(Field::Sdst, 10), (Field::Simm16, 0xf801)]);
                self.oracle.ask(w, LIT).is_some_and(|a| a.text.starts_with("s_getreg_b32 "))
            })
            .context("no s_getreg_b32 in SOPK")?;
        let mut names = Vec::new();
        for id in 0..64u32 {
            let w = encode(Format::Sopk, getreg, &[(Field::Sdst, 10), (Field::Simm16, id | 31 << 11)]);
            let name = self.oracle.ask(w, LIT).and_then(|a| {
                let t = a.text.split("hwreg(").nth(1)?.trim_end_matches(')').to_string();
                if t.chars().all(|c| c.is_ascii_digit()) {
                    None
                } else {
                    Some(t)
                }
            });
            names.push(name);
        }
        Ok(names)
    }
}

fn module_name(t: Target) -> &'static str {
    t.cpu()
}

fn static_name(f: Format) -> &'static str {
    f.name()
}

/// Generates one target's table source.
fn generate_target(target: Target) -> Result<String> {
    let d = Disassembler::new(gpu(target)).with_context(|| format!("LLVM disassembler for {}", target.cpu()))?;
    let mut g = Gen { target, oracle: Oracle { d }, hwregs: &[] };
    let names = g.hwreg_names()?;
    let leaked: Vec<Option<&'static str>> = names.iter().map(|n| n.clone().map(leak_str)).collect();
    g.hwregs = Box::leak(leaked.into_boxed_slice());

    let mut out = String::new();
    out.push_str("// Generated by `cargo xtask tables`; do not edit by hand.\n");
    let _ = writeln!(out, "// Source: LLVM's AMDGPU disassembler for {} (see xtask/src/isa_tables.rs).", target.cpu());
    out.push_str("#![allow(clippy::all)]\n");
    out.push_str("use crate::spec::{Field::*, Format, Imm16::*, Kind::*, OpInfo, OperandSpec, Unused::*, ValType::*};\n\n");
    out.push_str("/// `hwreg(...)` names by id.\n");
    let _ = writeln!(out, "pub static HWREG_NAMES: [Option<&str>; {}] = [", names.len());
    for n in &names {
        match n {
            Some(s) => {
                let _ = writeln!(out, "    Some({s:?}),");
            }
            None => out.push_str("    None,\n"),
        }
    }
    out.push_str("];\n");
    let mut unsupported = Vec::new();
    for format in FORMATS {
        let count = opcode_count(format);
        let _ = writeln!(out, "\n/// {} opcodes (index = opcode field).", format.name());
        let _ = writeln!(out, "pub static {}: [Option<OpInfo>; {count}] = [", static_name(format));
        for op in 0..count {
            match g.gen_opcode(format, op) {
                Entry::Invalid => {
                    let _ = writeln!(out, "    None, // 0x{op:02x}");
                }
                Entry::Unsupported { text, why } => {
                    let _ = writeln!(out, "    None, // 0x{op:02x} unsupported: {text}");
                    unsupported.push((format, op, text, why));
                }
                Entry::Ok(info) => {
                    let _ = writeln!(
                        out,
                        "    Some(OpInfo {{ mnemonic: {:?}, format: Format::{:?}, opcode: 0x{:02x}, operands: &{:?}, unused: &{:?} }}),",
                        info.mnemonic, info.format, info.opcode, info.operands, info.unused
                    );
                }
            }
        }
        out.push_str("];\n");
    }
    out.push_str("\n/// Opcodes LLVM decodes that the tables do not model yet: (format, opcode, LLVM text, reason).\n");
    out.push_str("pub static UNSUPPORTED: &[(Format, u16, &str, &str)] = &[\n");
    for (f, op, text, why) in &unsupported {
        let _ = writeln!(out, "    (Format::{f:?}, 0x{op:02x}, {text:?}, {why:?}),");
    }
    out.push_str("];\n");
    let _ = module_name(target);
    Ok(out)
}

/// Writes `gfx1250.rs`, `gfx942.rs` and `gfx950.rs` into `out_dir` (normally crates/isa/src/tables).
pub fn generate(out_dir: &Path) -> Result<()> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    for target in Target::ALL {
        let src = generate_target(target)?;
        if !src.contains("pub static SOP2") {
            bail!("table generation for {} produced no SOP2 table", target.cpu());
        }
        let path = out_dir.join(format!("{}.rs", module_name(target)));
        std::fs::write(&path, src).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
