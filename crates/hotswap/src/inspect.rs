//! `inspect`: everything a code object (or offload bundle) says about itself, as one ordered JSON
//! tree; [`render_text`] prints the same tree as indented text. One model, two views, so the text
//! and JSON outputs can never disagree.

use hx_codeobj::bundle::{self, Bundle};
use hx_codeobj::descriptor::Word;
use hx_codeobj::metadata::value_to_json;
use hx_codeobj::CodeObject;
use serde_json::{json, Map, Value};

use crate::Error;

/// Describes `bytes`: a code object, or an offload bundle with each code-object entry described.
pub fn inspect(bytes: &[u8]) -> Result<Value, Error> {
    if bundle::is_bundle(bytes) {
        let b = Bundle::parse(bytes)?;
        let mut entries = Vec::new();
        for e in &b.entries {
            let id = bundle::parse_id(&e.id);
            let mut m = Map::new();
            m.insert("id".into(), json!(e.id));
            m.insert("kind".into(), json!(id.kind));
            m.insert("triple".into(), json!(id.triple));
            m.insert("target_id".into(), json!(id.target_id));
            m.insert("size".into(), json!(e.data.len()));
            if e.data.starts_with(b"\x7fELF") && id.triple.starts_with("amdgcn") {
                m.insert("code_object".into(), inspect_code_object(&CodeObject::parse(&e.data)?));
            }
            entries.push(Value::Object(m));
        }
        return Ok(json!({
            "bundle": { "format": format!("{:?}", b.format), "entries": entries }
        }));
    }
    Ok(inspect_code_object(&CodeObject::parse(bytes)?))
}

fn hex(v: u64) -> Value {
    json!(format!("{v:#x}"))
}

/// The report of one code object.
pub fn inspect_code_object(co: &CodeObject) -> Value {
    let generation = co.generation();
    let mut top = Map::new();
    top.insert("target_id".into(), json!(co.target_id()));
    top.insert("processor".into(), json!(co.processor()));
    top.insert("elf_type".into(), json!(format!("{:?}", co.kind)));
    top.insert("code_object_version".into(), json!(co.code_object_version));
    top.insert(
        "e_flags".into(),
        json!({
            "raw": hex(co.eflags.raw as u64),
            "mach": hex(co.eflags.mach as u64),
            "xnack": co.eflags.xnack,
            "sramecc": co.eflags.sramecc,
            "generic_version": co.eflags.generic_version,
        }),
    );
    let kernels: Vec<Value> = co
        .kernels
        .iter()
        .map(|k| {
            let d = &k.descriptor;
            let mut fields = Map::new();
            fields.insert("group_segment_fixed_size".into(), json!(d.group_segment_fixed_size));
            fields.insert("private_segment_fixed_size".into(), json!(d.private_segment_fixed_size));
            fields.insert("kernarg_size".into(), json!(d.kernarg_size));
            fields.insert("kernel_code_entry_byte_offset".into(), json!(d.kernel_code_entry_byte_offset));
            fields.insert("compute_pgm_rsrc1".into(), hex(d.compute_pgm_rsrc1 as u64));
            fields.insert("compute_pgm_rsrc2".into(), hex(d.compute_pgm_rsrc2 as u64));
            fields.insert("compute_pgm_rsrc3".into(), hex(d.compute_pgm_rsrc3 as u64));
            fields.insert("kernel_code_properties".into(), hex(d.kernel_code_properties as u64));
            fields.insert("kernarg_preload".into(), hex(d.kernarg_preload as u64));
            fields.insert("reserved_bytes_nonzero".into(), json!(d.reserved_nonzero));
            if let Some(g) = generation {
                for word in [Word::Rsrc1, Word::Rsrc2, Word::Rsrc3, Word::KernelCodeProperties, Word::KernargPreload] {
                    let sub: Map<String, Value> = d
                        .fields(g)
                        .into_iter()
                        .filter(|(w, _, _)| *w == word)
                        .map(|(_, n, v)| (n.to_string(), json!(v)))
                        .collect();
                    if !sub.is_empty() {
                        fields.insert(format!("{word:?}"), Value::Object(sub));
                    }
                }
                fields.insert("vgpr_allocation".into(), json!(d.vgpr_allocation(g)));
            }
            json!({
                "name": k.name,
                "descriptor_symbol": k.descriptor_symbol,
                "descriptor_address": hex(k.descriptor_addr),
                "descriptor_file_offset": hex(k.descriptor_offset),
                "code_address": hex(k.code_addr),
                "code_file_offset": hex(k.code_offset),
                "code_size": k.code_size,
                "descriptor": Value::Object(fields),
            })
        })
        .collect();
    top.insert("kernels".into(), Value::Array(kernels));
    let functions: Vec<Value> = co
        .functions
        .iter()
        .map(|f| json!({"name": f.name, "address": hex(f.addr), "size": f.size, "global": f.global}))
        .collect();
    top.insert("functions".into(), Value::Array(functions));
    top.insert(
        "metadata".into(),
        co.metadata.as_ref().map(|m| value_to_json(&m.to_value())).unwrap_or(Value::Null),
    );
    // Every section including the null one, so that the text's `[i]` is the ELF index.
    let sections: Vec<Value> = co
        .sections
        .iter()
        .map(|s| {
            json!({"index": s.index, "name": s.name, "type": section_type(s.sh_type), "flags": hex(s.flags), "address": hex(s.addr),
                   "offset": hex(s.offset), "size": s.size, "align": s.align})
        })
        .collect();
    top.insert("sections".into(), Value::Array(sections));
    let segments: Vec<Value> = co
        .program_headers
        .iter()
        .map(|p| {
            json!({"type": segment_type(p.p_type), "flags": segment_flags(p.flags), "offset": hex(p.offset), "vaddr": hex(p.vaddr),
                   "filesz": p.filesz, "memsz": p.memsz, "align": p.align})
        })
        .collect();
    top.insert("program_headers".into(), Value::Array(segments));
    let symbols: Vec<Value> = co
        .symbols
        .iter()
        .filter(|s| !s.name.is_empty())
        .map(|s| {
            json!({"name": s.name, "table": format!("{:?}", s.table), "value": hex(s.value), "size": s.size,
                   "type": s.sym_type, "bind": s.bind, "section": s.section})
        })
        .collect();
    top.insert("symbols".into(), Value::Array(symbols));
    Value::Object(top)
}

/// An ELF section type by its name (`PROGBITS`, as readelf prints it), or its number in hex.
fn section_type(t: u32) -> String {
    let name = match t {
        0 => "NULL",
        1 => "PROGBITS",
        2 => "SYMTAB",
        3 => "STRTAB",
        4 => "RELA",
        5 => "HASH",
        6 => "DYNAMIC",
        7 => "NOTE",
        8 => "NOBITS",
        9 => "REL",
        11 => "DYNSYM",
        14 => "INIT_ARRAY",
        15 => "FINI_ARRAY",
        18 => "SYMTAB_SHNDX",
        0x6fff_fff6 => "GNU_HASH",
        0x6fff_4c03 => "LLVM_ADDRSIG",
        _ => return format!("{t:#x}"),
    };
    name.to_string()
}

/// An ELF segment type by its name (`LOAD`, as readelf prints it), or its number in hex.
fn segment_type(t: u32) -> String {
    let name = match t {
        0 => "NULL",
        1 => "LOAD",
        2 => "DYNAMIC",
        3 => "INTERP",
        4 => "NOTE",
        6 => "PHDR",
        7 => "TLS",
        0x6474_e550 => "GNU_EH_FRAME",
        0x6474_e551 => "GNU_STACK",
        0x6474_e552 => "GNU_RELRO",
        _ => return format!("{t:#x}"),
    };
    name.to_string()
}

/// Segment flags as readelf prints them: `R`, `R E`, `RW`.
fn segment_flags(f: u32) -> String {
    let r = if f & 4 != 0 { "R" } else { " " };
    let w = if f & 2 != 0 { "W" } else { " " };
    let x = if f & 1 != 0 { "E" } else { " " };
    format!("{r}{w}{x}").trim_end().to_string()
}

/// Renders a report as indented `key: value` text.
pub fn render_text(v: &Value) -> String {
    let mut out = String::new();
    render(v, 0, &mut out);
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("-".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Array(a) if a.iter().all(|x| matches!(x, Value::Number(_) | Value::String(_) | Value::Bool(_))) => {
            Some(format!("[{}]", a.iter().map(|x| scalar(x).unwrap()).collect::<Vec<_>>().join(", ")))
        }
        _ => None,
    }
}

fn render(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match scalar(v) {
                    Some(s) => out.push_str(&format!("{pad}{k}: {s}\n")),
                    None => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        render(v, indent + 1, out);
                    }
                }
            }
        }
        Value::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                match scalar(item) {
                    Some(s) => out.push_str(&format!("{pad}- {s}\n")),
                    None => {
                        out.push_str(&format!("{pad}[{i}]\n"));
                        render(item, indent + 1, out);
                    }
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other).unwrap_or_default())),
    }
}
