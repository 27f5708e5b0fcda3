//! Disassembly listings: of every kernel and function of a code object, of raw instruction
//! bytes, and of LLVM MC-test style hex lines. The decoder is the project's own (hx-isa); LLVM's
//! disassembler can be chosen instead (`Decoder::Llvm`) to compare the two.

use crate::Error;
use hx_codeobj::CodeObject;
use hx_isa::Target;

/// Which decoder prints the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// hx-isa, the project's decoder.
    Own,
    /// LLVM's MC disassembler (the oracle).
    Llvm,
}

/// One decoded instruction, or the reason the bytes at `offset` do not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Inst { offset: usize, len: usize, text: String },
    Error { offset: usize, message: String },
}

pub fn target_for(processor: &str) -> Option<Target> {
    Target::ALL.into_iter().find(|t| t.cpu() == processor)
}

fn llvm_target(t: Target) -> hx_llvm::GpuTarget {
    hx_llvm::GpuTarget::from_cpu(t.cpu()).expect("hx-isa and hx-llvm know the same processors")
}

/// Decodes `bytes` from the start. After an undecodable word the listing goes on at the next
/// dword (code is dword-aligned), so one bad word does not hide the rest.
pub fn decode_stream(target: Target, bytes: &[u8], decoder: Decoder) -> Result<Vec<Line>, Error> {
    let mut llvm = match decoder {
        Decoder::Llvm => Some(hx_llvm::Disassembler::new(llvm_target(target))?),
        Decoder::Own => None,
    };
    let mut lines = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let mut skip = 4;
        let decoded = match &mut llvm {
            Some(d) => d.decode(&bytes[at..], at as u64).ok_or_else(|| {
                let end = (at + 4).min(bytes.len());
                format!("LLVM decodes no instruction at offset {at:#x}: bytes [{}]", hex(&bytes[at..end]))
            }),
            None => hx_isa::decode(target, bytes, at).map(|i| (i.len as usize, i.text())).map_err(|e| {
                // A valid but unmodelled instruction: skip its fixed part, not just one dword.
                if let hx_isa::DecodeError::Unsupported { format, .. } = &e {
                    skip = hx_isa::spec::format_len(target.family(), *format).max(4);
                    if let Some(m) = hx_isa::unsupported_mnemonic(target, bytes, at) {
                        return format!("{m}: {e} (not modelled yet)");
                    }
                }
                e.to_string()
            }),
        };
        match decoded {
            Ok((len, text)) => {
                lines.push(Line::Inst { offset: at, len, text });
                at += len;
            }
            Err(message) => {
                lines.push(Line::Error { offset: at, message });
                at += skip;
            }
        }
    }
    Ok(lines)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// A code object's listing: each kernel and function with its address, then its instructions,
/// with branch targets as labels.
/// Returns the text and the number of undecodable words.
pub fn listing(co: &CodeObject, decoder: Decoder) -> Result<(String, usize), Error> {
    let processor = co.processor().unwrap_or("unknown");
    let target = target_for(processor).ok_or_else(|| Error::UnsupportedProcessor { found: co.target_id() })?;
    let mut regions: Vec<(&str, &str, u64, &[u8])> = Vec::new();
    for k in &co.kernels {
        regions.push(("kernel", &k.name, k.code_addr, co.kernel_code(k)));
    }
    for f in &co.functions {
        regions.push(("function", &f.name, f.addr, co.function_code(f)));
    }
    regions.sort_by_key(|r| r.2);
    let mut out = String::new();
    let mut errors = 0;
    for (kind, name, addr, code) in regions {
        out.push_str(&format!("{kind} {name} @ {addr:#x} ({} bytes):\n", code.len()));
        let lines = decode_stream(target, code, decoder)?;
        // Branch targets inside the region become labels (`.L_1a40:` before the instruction,
        // `s_cbranch_scc1 .L_1a40` at the branch); a target outside keeps its number.
        let branch = |offset: usize, text: &str| -> Option<u64> {
            let is_branch = text.starts_with("s_branch ") || text.starts_with("s_cbranch_");
            let inst = hx_isa::decode(target, code, offset).ok().filter(|_| is_branch)?;
            let imm = inst.operands().find_map(|o| match o.value {
                hx_isa::Operand::Imm(v) => Some(v as u16 as i16 as i64),
                _ => None,
            })?;
            let t = offset as i64 + inst.len as i64 + 4 * imm;
            (0..code.len() as i64).contains(&t).then_some(addr + t as u64)
        };
        let targets: std::collections::BTreeSet<u64> =
            lines.iter().filter_map(|l| if let Line::Inst { offset, text, .. } = l { branch(*offset, text) } else { None }).collect();
        for line in lines {
            match line {
                Line::Inst { offset, text, .. } => {
                    let at = addr + offset as u64;
                    if targets.contains(&at) {
                        out.push_str(&format!(".L_{at:x}:\n"));
                    }
                    let text = match (branch(offset, &text), text.split_once(' ')) {
                        (Some(t), Some((mnemonic, _))) => format!("{mnemonic} .L_{t:x}"),
                        _ => text,
                    };
                    out.push_str(&format!("  {at:#010x}: {text}\n"));
                }
                Line::Error { offset, message } => {
                    errors += 1;
                    out.push_str(&format!("  {:#010x}: <error: {message}>\n", addr + offset as u64));
                }
            }
        }
        out.push('\n');
    }
    Ok((out, errors))
}

/// Parses one line of LLVM MC-test hex bytes (`0x01,0x05,0x00,0x06`, commas and/or spaces;
/// anything after `#` or `//` is a comment). Returns None for a line with no bytes.
pub fn parse_hex_line(line: &str) -> Result<Option<Vec<u8>>, String> {
    let line = line.split("//").next().unwrap_or("");
    let line = line.split('#').next().unwrap_or("");
    let mut bytes = Vec::new();
    for tok in line.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        let digits = tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")).unwrap_or(tok);
        let b = u8::from_str_radix(digits, 16).map_err(|_| format!("`{tok}` is not a hex byte"))?;
        bytes.push(b);
    }
    Ok((!bytes.is_empty()).then_some(bytes))
}

/// Decodes one MC-test line's bytes as a single instruction: its text, or `<invalid>` when no
/// instruction decodes or the instruction does not use exactly these bytes.
pub fn decode_hex_line(target: Target, bytes: &[u8], decoder: Decoder) -> Result<String, Error> {
    let lines = decode_stream(target, bytes, decoder)?;
    Ok(match lines.first() {
        Some(Line::Inst { len, text, .. }) if *len == bytes.len() => text.clone(),
        _ => "<invalid>".to_string(),
    })
}
