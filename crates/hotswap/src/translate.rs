//! The whole translation of one gfx1250 code object (or every gfx1250 entry of a bundle): raise
//! the kernels into LLVM modules of a few kernels each, lower them for the target in-process,
//! relink them in-process, and give the result the source's kernel interface (argument list,
//! kernarg segment size) with the target compile's resources. Every kernel is tried: strict mode
//! then refuses the object listing every refused kernel, lenient mode gives each refused kernel a
//! trap stub. The per-kernel [`Report`] is built here.

use crate::{Error, Options};
use hx_codeobj::descriptor::Generation;
use hx_codeobj::metadata::{KernelMeta, Metadata};
use hx_codeobj::CodeObject;
use hx_llvm::inkwell::context::Context;
use crate::report::{count_instructions, KernelReport, Refusal, Report, Resources, StageTimes, Status};
use hx_lower::{Denormals, KernelAttrs};
use std::time::{Duration, Instant};

/// Keys of a kernel's metadata that describe the target compile (taken from it); every other
/// key (the argument list, kernarg segment size and alignment, language, unknown keys) is kept
/// from the source.
const TARGET_KEYS: &[&str] = &[
    ".sgpr_count",
    ".vgpr_count",
    ".agpr_count",
    ".sgpr_spill_count",
    ".vgpr_spill_count",
    ".wavefront_size",
    ".group_segment_fixed_size",
    ".private_segment_fixed_size",
    ".uses_dynamic_stack",
];

/// The metadata key of a refused kernel's trap stub: why the kernel was not translated (what a
/// runtime or debugger can show when the stub traps).
pub const REFUSED_KEY: &str = ".hotswap_refused";

fn kernel_attrs(co: &CodeObject, k: &hx_codeobj::Kernel) -> Result<KernelAttrs, Error> {
    let meta = co.metadata.as_ref().and_then(|m| m.kernel(&k.name));
    let d = &k.descriptor;
    let den = |field: &str| -> Result<Denormals, Error> {
        let v = d.field(Generation::Gfx125, field).unwrap_or(3);
        Denormals::from_descriptor(v).ok_or_else(|| Error::bad_kernel(&k.name, format!("{field} = {v} cannot be carried to the target")))
    };
    Ok(KernelAttrs {
        name: k.name.clone(),
        flat_workgroup_size: meta.and_then(|m| m.max_flat_workgroup_size).map(|m| (1, m as u32)),
        reqd_workgroup_size: meta.and_then(|m| m.reqd_workgroup_size).map(|r| [r[0] as u32, r[1] as u32, r[2] as u32]),
        uniform_work_group_size: meta.and_then(|m| m.raw.get(".uniform_work_group_size")).and_then(|v| v.as_u64()) == Some(1),
        denormals_f32: den("FLOAT_DENORM_MODE_32")?,
        denormals_f16_f64: den("FLOAT_DENORM_MODE_16_64")?,
        source_vgprs: meta.and_then(|m| m.raw.get(".vgpr_count")).and_then(|v| v.as_u64()).map(|v| v.min(u32::MAX as u64) as u32),
    })
}

/// Whether every work-group of the kernel fits in one gfx1250 wave (32 work-items), as its
/// metadata bounds it: then a target wave64 runs one source wave (see
/// [`hx_raise::KernelAbi::one_source_wave`]). A launch past the bound is invalid (the runtime
/// refuses it), as it is for the source.
fn one_source_wave(attrs: &KernelAttrs) -> bool {
    let max = attrs.flat_workgroup_size.map(|(_, max)| max as u64);
    let reqd = attrs.reqd_workgroup_size.map(|r| r.iter().map(|&d| d as u64).product::<u64>());
    max.into_iter().chain(reqd).any(|n| (1..=32).contains(&n))
}

/// Whether a kernel's work-groups are one gfx1250 wave of 32x1x1 as far as its metadata says,
/// the shape [`hx_raise::KernelAbi::paired_groups`] pairs (the raised code checks the launch).
fn can_pair(attrs: &KernelAttrs) -> bool {
    one_source_wave(attrs) && attrs.reqd_workgroup_size.is_none_or(|r| r == [32, 1, 1])
}

/// The target's metadata document: the target compile's, with each kernel's interface from
/// the source.
fn merge_metadata(source: &Metadata, target: &Metadata) -> Result<Metadata, Error> {
    let mut out = target.clone();
    for tk in out.kernels.iter_mut() {
        let sk = source.kernel(&tk.name).ok_or_else(|| Error::Internal(format!("kernel {} of the target compile has no source metadata", tk.name)))?;
        let mut merged = sk.clone();
        // The descriptor symbol is the output's (`<name>.kd`), whatever the source named its
        // own (found by fuzzing: a source whose .symbol differed from `<name>.kd` translated
        // into an object whose metadata named a symbol it does not have).
        merged.symbol = tk.symbol.clone();
        merged.sgpr_count = tk.sgpr_count;
        merged.vgpr_count = tk.vgpr_count;
        merged.agpr_count = tk.agpr_count;
        merged.sgpr_spill_count = tk.sgpr_spill_count;
        merged.vgpr_spill_count = tk.vgpr_spill_count;
        merged.wavefront_size = tk.wavefront_size;
        merged.group_segment_fixed_size = tk.group_segment_fixed_size;
        merged.private_segment_fixed_size = tk.private_segment_fixed_size;
        merged.uses_dynamic_stack = tk.uses_dynamic_stack;
        for key in TARGET_KEYS {
            match tk.raw.get(key) {
                Some(v) => merged.raw.set(key, v.clone()),
                None => merged.raw.remove(key),
            }
        }
        *tk = merged;
    }
    Ok(out)
}

/// The code kernel `k` may run (its own and every device function's), laid out at the
/// addresses the source sees, so that offsets in the raiser (and its errors) are the
/// addresses `disasm` prints and s_get_pc_i64 values are the source's.
struct CodeImage {
    bytes: Vec<u8>,
    entry: usize,
    functions: Vec<usize>,
    region: (usize, usize),
}

impl CodeImage {
    fn of(co: &CodeObject, k: &hx_codeobj::Kernel, limits: &crate::limits::Limits) -> Result<CodeImage, Error> {
        let delta = k.code_addr.wrapping_sub(k.code_offset);
        // (file offset, address, size, name) of the kernel's and each function's code.
        let mut ranges = vec![(k.code_offset, k.code_addr, k.code_size, &k.name)];
        for f in &co.functions {
            if f.addr.wrapping_sub(f.offset) != delta {
                return Err(Error::bad_kernel(&k.name, format!("device function {} is not in the kernel's code segment", f.name)));
            }
            ranges.push((f.offset, f.addr, f.size, &f.name));
        }
        let too_far = |name: &str| Error::bad_kernel(&k.name, format!("the code of {name} lies beyond the addresses supported (1 GiB)"));
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        for (_, addr, size, name) in &ranges {
            let end = addr.checked_add(*size).filter(|&e| e <= 1 << 30).ok_or_else(|| too_far(name))?;
            lo = lo.min(*addr);
            hi = hi.max(end);
        }
        let mut bytes = limits.zeroed(hi as usize, &format!("kernel {}: its code image", k.name))?;
        for (off, addr, size, name) in &ranges {
            let src = off
                .checked_add(*size)
                .and_then(|end| co.bytes.get(*off as usize..end as usize))
                .ok_or_else(|| Error::bad_kernel(&k.name, format!("the code of {name} runs past the end of the file")))?;
            bytes[*addr as usize..(*addr + *size) as usize].copy_from_slice(src);
        }
        Ok(CodeImage {
            bytes,
            entry: k.code_addr as usize,
            functions: co.functions.iter().map(|f| f.addr as usize).collect(),
            region: (lo as usize, hi as usize),
        })
    }

    fn program<'a>(&'a self, data: Option<&'a [u8]>) -> hx_raise::cfg::Program<'a> {
        hx_raise::cfg::Program { bytes: &self.bytes, base: 0, entry: self.entry, functions: self.functions.clone(), region: self.region, data }
    }
}

/// The source object as the loader places it, from address 0: what PC-relative loads (global
/// variables, constant tables) read; the raiser gives the module a copy. None when the loader
/// would patch it (dynamic relocations: a GOT, pointers in data), which a copy cannot follow:
/// PC-relative loads are then refused.
fn loaded_image(co: &CodeObject, limits: &crate::limits::Limits) -> Result<Option<Vec<u8>>, Error> {
    // SHT_RELA sections that are allocated (the loader applies them).
    if co.sections.iter().any(|s| s.sh_type == 4 && s.flags & 2 != 0 && s.size > 0) {
        return Ok(None);
    }
    let loads: Vec<_> = co.program_headers.iter().filter(|p| p.p_type == 1).collect();
    let size = loads.iter().map(|p| p.vaddr.saturating_add(p.memsz)).max().unwrap_or(0);
    if size > 1 << 30 {
        return Err(Error::bad_object(format!("the loaded image of {size} bytes is over 1 GiB")));
    }
    let mut image = limits.zeroed(size as usize, "the source's loaded image")?;
    for p in loads {
        let src = p.offset.checked_add(p.filesz).and_then(|end| co.bytes.get(p.offset as usize..end as usize));
        let src = src.ok_or_else(|| Error::BadInput { place: crate::Place::FileOffset(p.offset), what: "a loadable segment runs past the end of the file".into() })?;
        let at = p.vaddr as usize;
        image.get_mut(at..at + src.len()).ok_or_else(|| Error::BadInput { place: crate::Place::FileOffset(p.offset), what: "a loadable segment lies outside the image".into() })?.copy_from_slice(src);
    }
    Ok(Some(image))
}

/// What a translation produces: the loadable code object, or an intermediate stage for
/// inspection (`hotswap-xlate --emit`, tests comparing the relink with rust-lld).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The relinked code object (what [`crate::translate`] returns).
    CodeObject,
    /// The raised LLVM IR, before any optimisation, as text.
    RaisedIr,
    /// The IR after the target's optimisation pipeline, as text.
    OptimizedIr,
    /// The target assembly.
    Assembly,
    /// The backend's relocatable object, before relinking.
    Relocatable,
}

/// Translates one gfx1250 code object (not a bundle).
pub fn translate_code_object(bytes: &[u8], options: &Options) -> Result<Vec<u8>, Error> {
    translate_code_object_to(bytes, options, Output::CodeObject)
}

/// [`translate_code_object`] up to the stage `output` names.
///
/// The kernels (with the device functions they call) are raised and lowered in modules of a few
/// kernels each ([`module_groups`]), on the rayon pool the caller runs in, and the objects are
/// linked together: the work of an object with many kernels spreads over the threads. The
/// inspection stages (IR, assembly) are one module holding every kernel.
pub fn translate_code_object_to(bytes: &[u8], options: &Options, output: Output) -> Result<Vec<u8>, Error> {
    options.limits.check_input(bytes.len())?;
    let emit = match output {
        Output::RaisedIr => None,
        Output::OptimizedIr => Some(hx_lower::Emit::LlvmIr),
        Output::Assembly => Some(hx_lower::Emit::Assembly),
        Output::Relocatable | Output::CodeObject => return translate_whole(bytes, options, output, None).map(|(b, _)| b),
    };
    let co = CodeObject::parse(bytes)?;
    let kernels = kernels_to_translate(&co, options)?;
    let data = loaded_image(&co, &options.limits)?;
    compile(&co, data.as_deref(), &kernels, options, emit).map(|c| c.object).map_err(CompileFailure::into_error)
}

/// The kernels of `co` to translate (all but the skipped ones); Err unless `co` is a gfx1250
/// code object with metadata and at least one such kernel.
fn kernels_to_translate<'c>(co: &'c CodeObject, options: &Options) -> Result<Vec<&'c hx_codeobj::Kernel>, Error> {
    if co.processor() != Some("gfx1250") {
        return Err(Error::NotGfx1250 { found: co.target_id() });
    }
    crate::limits::check_object(&options.limits, co, &options.skip_kernels)?;
    if co.metadata.is_none() {
        return Err(Error::bad_object("it has no metadata note"));
    }
    for name in &options.skip_kernels {
        if co.kernel(name).is_none() {
            return Err(Error::InvalidOption(format!("kernel {name} (to be skipped) is not in the code object")));
        }
    }
    let kernels: Vec<&hx_codeobj::Kernel> = co.kernels.iter().filter(|k| !options.skip_kernels.contains(&k.name)).collect();
    if kernels.is_empty() {
        return Err(Error::InvalidOption("every kernel is skipped: nothing to translate".into()));
    }
    Ok(kernels)
}

/// One code object translated to an object (`Output::Relocatable`) or a code object, with its
/// report. Every kernel is tried: a kernel a stage refuses is taken out of its module and the
/// rest of the module is compiled again without it ([`compile_group`]). Then strict mode
/// refuses the object, naming every refusal; lenient mode gives each refused kernel a trap stub
/// ([`trap_stubs`]) so that its symbol, descriptor and interface stay.
pub(crate) fn translate_whole(bytes: &[u8], options: &Options, output: Output, progress: Option<&Progress>) -> Result<(Vec<u8>, Report), Error> {
    let started = Instant::now();
    options.limits.check_input(bytes.len())?;
    let co = CodeObject::parse(bytes)?;
    let kernels = kernels_to_translate(&co, options)?;
    if let Some(p) = progress {
        p.add_total(kernels.len());
    }
    let source_md = co.metadata.as_ref().ok_or_else(|| Error::bad_object("it has no metadata note"))?;
    let data = loaded_image(&co, &options.limits)?;
    let mut times = StageTimes { parse: started.elapsed(), ..Default::default() };

    let compiling = Instant::now();
    use rayon::prelude::*;
    let groups = module_groups(&kernels);
    let results: Vec<GroupResult> = groups.into_par_iter().map(|g| compile_group(&co, data.as_deref(), g, options, progress)).collect();
    times.compile = compiling.elapsed();
    let mut compiled = Vec::new();
    let mut refusals: Vec<(String, Error)> = Vec::new();
    for (c, r) in results {
        compiled.extend(c);
        refusals.extend(r);
    }
    // In kernel order, whatever the threads and retries. Strict mode lowers every group even
    // after a refusal, so that the error lists the same refusals on any number of threads.
    refusals.sort_by_key(|(name, _)| co.kernels.iter().position(|k| &k.name == name));
    let described: Vec<(String, Refusal)> = refusals
        .iter()
        .map(|(name, e)| {
            let r = match co.kernel(name) {
                Some(k) => Refusal::of_kernel(e, &co, k),
                None => Refusal::of(e),
            };
            (name.clone(), r)
        })
        .collect();
    if options.strict && !refusals.is_empty() {
        return Err(if refusals.len() == 1 { refusals.remove(0).1 } else { Error::Refused { refusals: described } });
    }
    let stubbing = Instant::now();
    let stub = if refusals.is_empty() { None } else { Some(trap_stubs(&co, &refusals, options)?) };
    times.stubs = stubbing.elapsed();

    let linking = Instant::now();
    let mut refs: Vec<&[u8]> = compiled.iter().map(|c| c.object.as_slice()).collect();
    let paired: Vec<String> = compiled.iter().flat_map(|c| c.paired.iter().cloned()).collect();
    if let Some(s) = &stub {
        refs.push(s);
    }
    let notes: Vec<(String, String)> = described.iter().map(|(k, r)| (k.clone(), stub_message(&r.line(k)))).collect();
    let out = if output == Output::Relocatable { hx_relink::merge_objects(&refs, true)? } else { link(&co, source_md, &refs, &notes, &paired)? };
    times.link = linking.elapsed();

    let reporting = Instant::now();
    let mut report = Report { target: options.target.cpu().to_string(), strict: options.strict, kernels: Vec::new(), notes: Vec::new(), times };
    let target_isa = if options.target == hx_llvm::GpuTarget::Gfx950 { hx_isa::Target::Gfx950 } else { hx_isa::Target::Gfx942 };
    let out_co = if output == Output::CodeObject { CodeObject::parse(&out).ok() } else { None };
    // Each kernel's module and raise time, by name (objects with thousands of kernels).
    let mut raised: std::collections::HashMap<&str, (&Compiled, Duration)> = std::collections::HashMap::new();
    for c in &compiled {
        for (name, t) in &c.raise {
            raised.insert(name.as_str(), (c, *t));
        }
    }
    for k in &co.kernels {
        let refusal = described.iter().find(|(n, _)| n == &k.name).map(|(_, r)| r.clone());
        let module = raised.get(k.name.as_str()).copied();
        let status = if options.skip_kernels.contains(&k.name) {
            Status::Skipped
        } else if refusal.is_some() {
            Status::Refused
        } else {
            Status::Translated
        };
        let out_kernel = out_co.as_ref().and_then(|o| o.kernel(&k.name).map(|ok| (o, ok)));
        report.kernels.push(KernelReport {
            entry: None,
            name: k.name.clone(),
            status,
            refusal,
            source_instructions: count_instructions(hx_isa::Target::Gfx1250, &co.bytes, k.code_offset, k.code_size),
            target_instructions: out_kernel.and_then(|(o, ok)| count_instructions(target_isa, &o.bytes, ok.code_offset, ok.code_size)),
            source: Resources::of(&co, &k.name),
            target: out_kernel.and_then(|(o, _)| Resources::of(o, &k.name)),
            raise_time: module.map(|(_, t)| t),
            lower_time: module.map(|(m, _)| m.lower),
            module_kernels: module.map_or(0, |(m, _)| m.raise.len()),
        });
    }
    report.times.report = reporting.elapsed();
    report.times.total = started.elapsed();
    Ok((out, report))
}

/// The message a refused kernel's stub carries in its metadata (`.hotswap_refused`).
fn stub_message(why: &str) -> String {
    format!("not translated by hotswap-xlate (the kernel traps): {why}")
}

/// What [`compile_group`] gives: the objects compiled, and each refused kernel with its error.
type GroupResult = (Vec<Compiled>, Vec<(String, Error)>);

/// Compiles one module group, taking out each kernel a stage refuses and compiling the rest
/// again: the objects compiled, and the refused kernels with their errors. A refusal raised
/// while raising a kernel names it; one that only the module's lowering shows is found by
/// compiling its kernels one by one. Bounded: every retry has one kernel fewer, or splits the
/// group into single kernels once.
fn compile_group(co: &CodeObject, data: Option<&[u8]>, group: Vec<&hx_codeobj::Kernel>, options: &Options, progress: Option<&Progress>) -> GroupResult {
    let tick = |n: usize| {
        if let Some(p) = progress {
            p.done(n);
        }
    };
    let mut done = Vec::new();
    let mut refused = Vec::new();
    let mut todo = vec![group];
    while let Some(mut g) = todo.pop() {
        if g.is_empty() {
            continue;
        }
        match compile(co, data, &g, options, Some(hx_lower::Emit::Object)) {
            Ok(c) => {
                tick(c.raise.len());
                done.push(c);
            }
            Err(CompileFailure::Kernel { kernel, error }) => {
                tick(1);
                g.retain(|k| k.name != kernel);
                refused.push((kernel, *error));
                todo.push(g);
            }
            Err(CompileFailure::Module(error)) if g.len() == 1 => {
                tick(1);
                refused.push((g[0].name.clone(), *error));
            }
            // Singletons, last pushed first: compiled in kernel order.
            Err(CompileFailure::Module(_)) => todo.extend(g.into_iter().rev().map(|k| vec![k])),
        }
    }
    (done, refused)
}

/// One object of trap stubs, a kernel for each refused one: the same name and kernel attributes
/// (work-group sizes, float modes), a body that calls `llvm.trap` (the target's `s_trap 2`, the
/// wave ends there), lowered by the same backend as every other kernel so that descriptor and
/// metadata are the target's own; [`link`] gives them the source's interface.
fn trap_stubs(co: &CodeObject, refused: &[(String, Error)], options: &Options) -> Result<Vec<u8>, Error> {
    let ctx = Context::create();
    let diags = hx_llvm::Diagnostics::install(&ctx);
    let module = ctx.create_module("hotswap_trap_stubs");
    hx_llvm::set_amdgpu_layout(&module)?;
    let void = ctx.void_type();
    let trap = module.add_function("llvm.trap", void.fn_type(&[], false), None);
    let builder = ctx.create_builder();
    let mut attrs = Vec::new();
    for (name, _) in refused {
        let k = co.kernel(name).ok_or_else(|| Error::Internal(format!("refused kernel {name} is not in the code object")))?;
        let f = module.add_function(name, void.fn_type(&[], false), None);
        f.set_call_conventions(91); // amdgpu_kernel
        let entry = ctx.append_basic_block(f, "entry");
        builder.position_at_end(entry);
        let built = builder.build_call(trap, &[], "").and_then(|_| builder.build_unreachable());
        built.map_err(|e| Error::Internal(format!("kernel {name}: building its trap stub: {e}")))?;
        // The source's attributes where they carry over; the defaults where they did not.
        attrs.push(kernel_attrs(co, k).unwrap_or(KernelAttrs {
            name: name.clone(),
            flat_workgroup_size: None,
            reqd_workgroup_size: None,
            uniform_work_group_size: false,
            denormals_f32: Denormals::Ieee,
            denormals_f16_f64: Denormals::Ieee,
            source_vgprs: None,
        }));
    }
    hx_lower::apply_kernel_attrs(&module, &attrs)?;
    hx_llvm::verify(&module, "hotswap_trap_stubs")?;
    let out = hx_lower::lower_verified(&module, "hotswap_trap_stubs", &options.lower_options(), hx_lower::Emit::Object)?;
    diags.check("hotswap_trap_stubs")?;
    Ok(out)
}

/// Source code bytes up to which consecutive kernels share a module (about 250 instructions).
/// Measured side by side (`hx-bench-report loop`): the small multi-kernel objects translate
/// 10-20% faster in one module; int_div's two kernels (2.5 KB together) were slower in one
/// module than in two.
const MODULE_CODE_BYTES: u64 = 2048;

/// Objects with several kernels get at least this many modules, whatever their size.
const MIN_MODULES: usize = 2;

/// The kernels, in order, in groups that are raised and lowered as one module each (see
/// [`group_sizes`]). Every module pays LLVM's fixed costs (building the codegen pipeline,
/// per-function tables sized by the target's register count), so small kernels go together and
/// large ones get a module each; the modules spread over the threads. The grouping depends on
/// the code only, never on the number of threads, so the output is the same bytes on any pool.
fn module_groups<'k>(kernels: &[&'k hx_codeobj::Kernel]) -> Vec<Vec<&'k hx_codeobj::Kernel>> {
    let sizes: Vec<u64> = kernels.iter().map(|k| k.code_size).collect();
    group_sizes(&sizes).into_iter().map(|r| kernels[r].to_vec()).collect()
}

/// Consecutive runs of kernels (by code size) that share a module: as many modules as
/// [`MODULE_CODE_BYTES`] asks for, and at least [`MIN_MODULES`] when there are that many
/// kernels: two modules of an object's kernels translate in parallel. Measured side by side
/// (translate_loop, mean of 60 translations): multi_kernel 9.0 -> 6.6 ms, tensor_tile 18.0 -> 12.0 ms,
/// wave_ballot 8.6 -> 6.1 ms on two threads, 15-20% slower on one (a second module's fixed
/// costs); a load-time translator runs where there are cores. A kernel joins the run before it
/// while at least half of it fits in the run's share of the bytes.
fn group_sizes(sizes: &[u64]) -> Vec<std::ops::Range<usize>> {
    let total: u64 = sizes.iter().sum();
    let count = (total.div_ceil(MODULE_CODE_BYTES) as usize).max(sizes.len().min(MIN_MODULES)).max(1);
    let share = total.div_ceil(count as u64);
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    let mut bytes = 0u64;
    for (i, &size) in sizes.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if bytes.saturating_add(size / 2) <= share && bytes.saturating_add(size) <= MODULE_CODE_BYTES.max(share) => {
                r.end = i + 1;
                bytes = bytes.saturating_add(size);
            }
            _ => {
                runs.push(i..i + 1);
                bytes = size;
            }
        }
    }
    runs
}

/// A compiled module: its object (or text), each kernel's raise time, the lowering's time.
pub(crate) struct Compiled {
    object: Vec<u8>,
    raise: Vec<(String, Duration)>,
    lower: Duration,
    /// The kernels raised with two source work-groups per wave (`Options::pair_groups`).
    paired: Vec<String>,
}

/// Why [`compile`] failed: a kernel it was raising (named), or the module as a whole.
enum CompileFailure {
    Kernel { kernel: String, error: Box<Error> },
    Module(Box<Error>),
}

impl CompileFailure {
    fn into_error(self) -> Error {
        match self {
            CompileFailure::Kernel { error, .. } | CompileFailure::Module(error) => *error,
        }
    }
}

fn module_failure<E: Into<Error>>(e: E) -> CompileFailure {
    CompileFailure::Module(Box::new(e.into()))
}

/// Refuses, with both sizes, a kernel whose static LDS is more than one work-group of the
/// target can allocate (gfx1250 allows 320 KiB, gfx942 64 KiB, gfx950 160 KiB). LDS asked for at
/// dispatch (dynamic) is the runtime's to check, as for any kernel.
fn check_static_lds(k: &hx_codeobj::Kernel, options: &Options) -> Result<(), Error> {
    let lds = k.descriptor.group_segment_fixed_size as u64;
    let cpu = options.target.cpu();
    match hx_codeobj::lds_limit(cpu) {
        Some(limit) if lds > limit => Err(Error::Raise(hx_raise::RaiseError::Kernel {
            kernel: k.name.clone(),
            msg: format!(
                "its {lds} bytes of static LDS exceed the {limit} a work-group has on {cpu} (placing LDS past the limit in global memory is not implemented)"
            ),
        })),
        _ => Ok(()),
    }
}

/// Raises `kernels` into one module and lowers it for the target (`emit` None: the raised IR);
/// `data` is the source's loaded image (what PC-relative loads read).
fn compile(co: &CodeObject, data: Option<&[u8]>, kernels: &[&hx_codeobj::Kernel], options: &Options, emit: Option<hx_lower::Emit>) -> Result<Compiled, CompileFailure> {
    let ctx = Context::create();
    // LLVM's error diagnostics come back as errors instead of ending the process.
    let diags = hx_llvm::Diagnostics::install(&ctx);
    let module = ctx.create_module("hotswap");
    let mut attrs = Vec::new();
    let mut paired = Vec::new();
    let mut raise_times = Vec::new();
    for k in kernels {
        let started = Instant::now();
        let raised = (|| -> Result<(KernelAttrs, bool), Error> {
            let mut abi = hx_raise::KernelAbi::from_descriptor(&k.name, &k.descriptor)?;
            let mut kattrs = kernel_attrs(co, k)?;
            check_static_lds(k, options)?;
            abi.one_source_wave = one_source_wave(&kattrs);
            let image = CodeImage::of(co, k, &options.limits)?;
            let program = image.program(data);
            let paired = options.pair_groups && can_pair(&kattrs) && hx_raise::pairing_blocker(&k.name, &program, &abi)?.is_none();
            if paired {
                // Source work-groups 2b and 2b + 1 in target work-group b, one per half wave.
                abi.one_source_wave = false;
                abi.paired_groups = true;
                let wide = 32 * hx_raise::PAIRED_DISPATCH_SCALE;
                kattrs.flat_workgroup_size = Some((1, wide));
                kattrs.reqd_workgroup_size = kattrs.reqd_workgroup_size.map(|_| [wide, 1, 1]);
            }
            let raise = hx_raise::RaiseOptions { target: options.target, wmma: options.wmma };
            hx_raise::raise_program_with(&ctx, &module, &k.name, &program, &abi, &raise)?;
            Ok((kattrs, paired))
        })();
        match raised {
            Ok((kattrs, is_paired)) => {
                if is_paired {
                    paired.push(kattrs.name.clone());
                }
                attrs.push(kattrs)
            }
            Err(error) => return Err(CompileFailure::Kernel { kernel: k.name.clone(), error: Box::new(error) }),
        }
        raise_times.push((k.name.clone(), started.elapsed()));
    }
    hx_lower::apply_kernel_attrs(&module, &attrs).map_err(module_failure)?;
    hx_llvm::verify(&module, "hotswap").map_err(module_failure)?;
    let Some(emit) = emit else {
        return Ok(Compiled { object: module.print_to_string().to_bytes().to_vec(), raise: raise_times, lower: Duration::ZERO, paired });
    };
    let started = Instant::now();
    let lower = options.lower_options();
    let out = hx_lower::lower_verified_bounded(&module, "hotswap", &lower, emit, hx_lower::Codegen::default_path(), &options.size_bounds)
        .map_err(module_failure)?;
    diags.check("hotswap").map_err(module_failure)?;
    Ok(Compiled { object: out, raise: raise_times, lower: started.elapsed(), paired })
}

/// Links the kernels' objects into the code object, with the source's kernel interfaces and the
/// target compiles' resources in its metadata.
/// `refused` names the kernels whose code is a trap stub, with the message their metadata carries.
/// `paired` names the kernels raised with two source work-groups per wave: their metadata says
/// work-groups of 64 and carries the dispatch scale the runtime must apply.
fn link(co: &CodeObject, source_md: &Metadata, objects: &[&[u8]], refused: &[(String, String)], paired: &[String]) -> Result<Vec<u8>, Error> {
    let mut target_md: Option<Metadata> = None;
    let mut patched = Vec::with_capacity(objects.len());
    for object in objects {
        let mut obj = CodeObject::parse(object)?;
        // The raised kernels read their arguments through the kernarg pointer as the source
        // does: the descriptor's kernarg size is the source's. The relinker copies descriptors
        // as they are, so the objects' descriptors are patched (no second parse of the output).
        for k in &obj.kernels {
            let src = co.kernel(&k.name).ok_or_else(|| Error::Internal(format!("kernel {} appeared in the output", k.name)))?;
            let at = k.descriptor_offset as usize + 8;
            obj.bytes[at..at + 4].copy_from_slice(&src.descriptor.kernarg_size.to_le_bytes());
        }
        let md = obj.metadata.take().ok_or_else(|| Error::Internal("the target compile wrote no metadata".into()))?;
        match &mut target_md {
            None => target_md = Some(md),
            Some(all) => all.kernels.extend(md.kernels),
        }
        patched.push(obj.bytes);
    }
    let target_md = target_md.ok_or_else(|| Error::Internal("no kernel was compiled".into()))?;
    let mut merged = merge_metadata(source_md, &target_md)?;
    for (name, message) in refused {
        if let Some(k) = merged.kernels.iter_mut().find(|k| &k.name == name) {
            k.raw.set(REFUSED_KEY, rmpv::Value::from(message.as_str()));
        }
    }
    let scale = hx_raise::PAIRED_DISPATCH_SCALE;
    for name in paired {
        if let Some(k) = merged.kernels.iter_mut().find(|k| &k.name == name) {
            k.max_flat_workgroup_size = Some(32 * scale as u64);
            k.reqd_workgroup_size = k.reqd_workgroup_size.map(|_| [32 * scale as u64, 1, 1]);
            k.raw.set(KernelMeta::DISPATCH_SCALE_KEY, rmpv::Value::from(scale));
        }
    }
    let link = hx_relink::LinkOptions { e_flags_override: None, metadata: Some(merged.to_msgpack()) };
    let refs: Vec<&[u8]> = patched.iter().map(Vec::as_slice).collect();
    Ok(hx_relink::link_objects(&refs, &link)?)
}

/// Translates every gfx1250 code object of an offload bundle and adds it under the target's
/// entry id (`hipv4-amdgcn-amd-amdhsa--gfx942`), keeping every other entry; the bundle is
/// written back in the format it came in. An entry the target already has natively is kept
/// and its gfx1250 sibling is not translated.
pub fn translate_bundle(bytes: &[u8], options: &Options) -> Result<Vec<u8>, Error> {
    translate_bundle_with_report(bytes, options, None).map(|(b, _)| b)
}

/// [`translate_bundle`] with the report of every entry translated (each kernel names its entry;
/// the report's notes name the gfx1250 entries left alone because the target's entry exists).
/// A bundle without a gfx1250 code-object entry is an error that lists its entries.
pub fn translate_bundle_with_report(bytes: &[u8], options: &Options, progress: Option<&Progress>) -> Result<(Vec<u8>, Report), Error> {
    use hx_codeobj::bundle::{parse_id, Bundle, BundleEntry};
    let started = Instant::now();
    let mut bundle = Bundle::parse(bytes)?;
    let mut todo = Vec::new();
    let mut notes = Vec::new();
    // The target ID the entries are added under keeps the options' features (gfx942:xnack+).
    let target = options.target_id();
    for e in &bundle.entries {
        let id = parse_id(&e.id);
        if id.processor() != "gfx1250" || !id.triple.starts_with("amdgcn") {
            continue;
        }
        let target_id = format!("{}-{}--{target}", id.kind, id.triple);
        let native = bundle.entries.iter().find(|o| {
            let p = parse_id(&o.id);
            p.kind == id.kind && p.processor() == options.target.cpu()
        });
        if let Some(n) = native {
            notes.push(format!("bundle entry {} is not translated: the bundle already has {}", e.id, n.id));
            continue;
        }
        todo.push((e, target_id));
    }
    if todo.is_empty() && notes.is_empty() {
        let ids: Vec<&str> = bundle.entries.iter().map(|e| e.id.as_str()).collect();
        return Err(Error::BadInput { place: crate::Place::Bundle, what: format!("it has no gfx1250 code-object entry to translate (entries: {})", ids.join(", ")) });
    }
    // Entries are independent translations: in parallel, results in entry order.
    use rayon::prelude::*;
    let added = todo
        .par_iter()
        .map(|(e, target_id)| {
            let (data, report) =
                translate_whole(&e.data, options, Output::CodeObject, progress).map_err(|c| Error::BundleEntry { id: e.id.clone(), cause: Box::new(c) })?;
            Ok((BundleEntry { id: target_id.clone(), data }, (e.id.clone(), report)))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut report = Report { target: options.target.cpu().to_string(), strict: options.strict, notes, ..Default::default() };
    for (entry, (id, r)) in added {
        bundle.entries.push(entry);
        report.append(r, &id);
    }
    let out = bundle.write()?;
    report.times.total = started.elapsed();
    Ok((out, report))
}

/// Kernels done out of the total, for a progress bar: a translation adds each code object's
/// kernels to the total when it starts and counts each kernel when its module is compiled or it
/// is refused. The callback runs on the translating threads.
pub struct Progress<'a> {
    total: std::sync::atomic::AtomicUsize,
    finished: std::sync::atomic::AtomicUsize,
    callback: &'a (dyn Fn(usize, usize) + Sync),
}

impl<'a> Progress<'a> {
    pub fn new(callback: &'a (dyn Fn(usize, usize) + Sync)) -> Progress<'a> {
        Progress { total: 0.into(), finished: 0.into(), callback }
    }

    fn add_total(&self, n: usize) {
        use std::sync::atomic::Ordering::SeqCst;
        let total = self.total.fetch_add(n, SeqCst) + n;
        (self.callback)(self.finished.load(SeqCst), total);
    }

    fn done(&self, n: usize) {
        use std::sync::atomic::Ordering::SeqCst;
        let done = self.finished.fetch_add(n, SeqCst) + n;
        (self.callback)(done, self.total.load(SeqCst));
    }
}

/// The raised, unoptimised LLVM IR of a gfx1250 code object as text (what `--emit raised-ir`
/// writes); the shell-out benchmark feeds the same text to an llc-equivalent process.
pub fn raised_ir(bytes: &[u8], options: &Options) -> Result<String, Error> {
    let ir = translate_code_object_to(bytes, options, Output::RaisedIr)?;
    String::from_utf8(ir).map_err(|e| Error::Internal(format!("raised IR is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests {
    use super::{group_sizes, MIN_MODULES, MODULE_CODE_BYTES};

    /// Every kernel in exactly one run, in order.
    fn covers(runs: &[std::ops::Range<usize>], n: usize) -> bool {
        runs.first().map(|r| r.start) == Some(0) && runs.last().map(|r| r.end) == Some(n) && runs.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end)
    }

    #[test]
    fn kernels_share_modules_by_size_in_at_least_two_modules() {
        assert_eq!(group_sizes(&[300]), vec![0..1]);
        // Small kernels: two modules of about equal bytes.
        assert_eq!(group_sizes(&[150; 8]), vec![0..4, 4..8]);
        assert_eq!(group_sizes(&[100, 100, 600]), vec![0..2, 2..3]);
        // Past the module size: one module per MODULE_CODE_BYTES of code, a large kernel alone.
        let sizes = [400, 400, 400, 400, 400, 400, 3000, 200, 200];
        let runs = group_sizes(&sizes);
        assert!(covers(&runs, sizes.len()), "{runs:?}");
        assert!(runs.len() >= (sizes.iter().sum::<u64>().div_ceil(MODULE_CODE_BYTES)) as usize, "{runs:?}");
        assert!(runs.contains(&(6..7)), "the 3000-byte kernel has a module of its own: {runs:?}");
        for n in 1..12 {
            let runs = group_sizes(&vec![64; n]);
            assert!(covers(&runs, n) && runs.len() == n.min(MIN_MODULES), "{n} kernels: {runs:?}");
        }
    }
}
