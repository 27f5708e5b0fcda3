//! Every corpus kernel object compiles for each of its targets (gfx1250, gfx942 and gfx950 unless its
//! launch description lists fewer), defines each launched kernel, and the kernels that are meant to
//! use scratch or LDS really do.
//!
//! Set HX_CORPUS_ASM_DIR=<dir> to keep the assembly of every object and target there.

use std::collections::BTreeMap;

use hx_corpus::CorpusObject;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

/// The resources one kernel's descriptor asks for, read from its assembly.
#[derive(Debug, Default, Clone, Copy)]
struct Resources {
    private_segment: u64,
    group_segment: u64,
}

/// Kernels that must use scratch (a private array or a call stack) and LDS (static or dynamic).
const NEEDS_SCRATCH: &[&str] = &["scratch_array", "device_call"];
const NEEDS_LDS: &[&str] = &[
    "lds_reduce",
    "lds_scan",
    "lds_matmul",
    "lds_transpose",
    "lds_bitonic",
    "dyn_lds",
    "atomics_lds",
    "mk_blocksum",
];

/// Resolves `value`, a number or a symbol defined by `.set symbol, expr` in `asm` where `expr` is
/// a number or `max(...)`/`+` of numbers and resolvable symbols (the form LLVM uses for resource usage).
fn resolve(asm: &str, value: &str, depth: u32) -> Option<u64> {
    let value = value.trim();
    if let Ok(n) = value.parse::<u64>() {
        return Some(n);
    }
    if let Some(hex) = value.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if depth > 16 {
        return None;
    }
    if let Some(inner) = value.strip_prefix("max(").and_then(|v| v.strip_suffix(')')) {
        return split_top(inner, ',').iter().map(|p| resolve(asm, p, depth + 1)).try_fold(0, |m, v| Some(m.max(v?)));
    }
    let sum = split_top(value, '+');
    if sum.len() > 1 {
        return sum.iter().map(|p| resolve(asm, p, depth + 1)).try_fold(0, |s, v| Some(s + v?));
    }
    let prefix = format!(".set {value}, ");
    let def = asm.lines().map(str::trim).find_map(|l| l.strip_prefix(&prefix))?;
    resolve(asm, def, depth + 1)
}

/// Splits at `sep` outside parentheses.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0usize, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// The `.amdhsa_kernel <name>` ... `.end_amdhsa_kernel` blocks of an assembly file.
fn kernel_resources(asm: &str) -> Result<BTreeMap<String, Resources>, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Resources)> = None;
    for line in asm.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix(".amdhsa_kernel ") {
            current = Some((name.trim().to_string(), Resources::default()));
        } else if line == ".end_amdhsa_kernel" {
            if let Some((name, r)) = current.take() {
                out.insert(name, r);
            }
        } else if let Some((name, r)) = current.as_mut() {
            let mut field = line.split_whitespace();
            let (Some(key), Some(value)) = (field.next(), field.next()) else { continue };
            let slot = match key {
                ".amdhsa_private_segment_fixed_size" => &mut r.private_segment,
                ".amdhsa_group_segment_fixed_size" => &mut r.group_segment,
                _ => continue,
            };
            *slot = resolve(asm, value, 0).ok_or_else(|| format!("{name}: cannot evaluate `{line}`"))?;
        }
    }
    Ok(out)
}

fn check_object(obj: &CorpusObject, target: GpuTarget, dump: Option<&std::path::Path>) -> Result<(), String> {
    let ir = obj.ir().map_err(|e| e.to_string())?;
    let name = format!("{}.ll", obj.name);
    let elf = compile_ir(&ir, &name, target, OptLevel::O2, Emit::Object).map_err(|e| format!("{target}: {e}"))?;
    if elf.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err(format!("{} for {target}: object output is not ELF", obj.name));
    }
    let asm = compile_ir(&ir, &name, target, OptLevel::O2, Emit::Assembly).map_err(|e| format!("{target}: {e}"))?;
    let asm = String::from_utf8(asm).map_err(|_| format!("{} for {target}: assembly is not UTF-8", obj.name))?;
    if let Some(dir) = dump {
        std::fs::write(dir.join(format!("{}.{target}.s", obj.name)), &asm).map_err(|e| e.to_string())?;
    }
    let resources = kernel_resources(&asm).map_err(|e| format!("{} for {target}: {e}", obj.name))?;
    for kernel in obj.kernels() {
        let r = resources
            .get(kernel)
            .ok_or_else(|| format!("{} for {target}: no `.amdhsa_kernel {kernel}` in the assembly", obj.name))?;
        // The source ISA is where scratch/LDS use matters most (the translator must carry it over);
        // check it on every target anyway, none of them should optimise it away.
        if NEEDS_SCRATCH.contains(&kernel) && r.private_segment == 0 {
            return Err(format!("{kernel} for {target}: expected scratch use, private segment is 0"));
        }
        if NEEDS_LDS.contains(&kernel) && r.group_segment == 0 {
            return Err(format!("{kernel} for {target}: expected LDS use, group segment is 0"));
        }
        if !NEEDS_SCRATCH.contains(&kernel) && r.private_segment != 0 {
            return Err(format!(
                "{kernel} for {target}: unexpected scratch use ({} bytes): a corpus kernel should not spill",
                r.private_segment
            ));
        }
    }
    Ok(())
}

#[test]
fn every_corpus_object_compiles_for_every_target() {
    let objects = hx_corpus::objects().expect("corpus");
    assert!(objects.len() >= 20, "only {} corpus objects", objects.len());
    let dump = std::env::var_os("HX_CORPUS_ASM_DIR").map(std::path::PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).unwrap();
    }
    // Two threads: the machines this runs on have two cores.
    let jobs: Vec<(CorpusObject, GpuTarget)> =
        objects.iter().flat_map(|o| GpuTarget::ALL.into_iter().filter(|t| o.builds_for(t.cpu())).map(move |t| (o.clone(), t))).collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let (a, b) = jobs.split_at(jobs.len() / 2);
        let dump = dump.as_deref();
        let run = move |part: &[(CorpusObject, GpuTarget)]| {
            part.iter().filter_map(|(o, t)| check_object(o, *t, dump).err()).collect::<Vec<_>>()
        };
        let h = s.spawn(move || run(a));
        let mut f = run(b);
        f.extend(h.join().unwrap());
        f
    });
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_needs_list_names_a_corpus_kernel() {
    let objects = hx_corpus::objects().expect("corpus");
    let kernels: Vec<String> = objects.iter().flat_map(|o| o.kernels().into_iter().map(String::from)).collect();
    for k in NEEDS_SCRATCH.iter().chain(NEEDS_LDS) {
        assert!(kernels.iter().any(|n| n == k), "{k} is not a corpus kernel");
    }
}

#[test]
fn resource_expressions_resolve() {
    let asm = ".set a.private_seg_size, 16\n.set b.private_seg_size, 0+max(32, a.private_seg_size)\n";
    assert_eq!(resolve(asm, "b.private_seg_size", 0), Some(32));
    assert_eq!(resolve(asm, "8+a.private_seg_size", 0), Some(24));
    assert_eq!(resolve(asm, "missing", 0), None);
}
