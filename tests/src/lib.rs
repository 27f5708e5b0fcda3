//! Shared helpers of the end-to-end tests.

use hx_llvm::GpuTarget;
use std::path::PathBuf;

/// Every checked-in corpus code object: (target, object name, path), sorted.
pub fn corpus_objects() -> Vec<(GpuTarget, String, PathBuf)> {
    let mut out = Vec::new();
    for t in GpuTarget::ALL {
        let dir = hx_corpus::corpus_dir().join(t.cpu());
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "hsaco") {
                out.push((t, p.file_stem().unwrap().to_string_lossy().to_string(), p));
            }
        }
    }
    out.sort();
    out
}

/// One corpus object for tests that mutate a real input.
pub fn sample_object(target: GpuTarget) -> Vec<u8> {
    let (_, _, path) = corpus_objects()
        .into_iter()
        .find(|(t, _, _)| *t == target)
        .expect("the corpus has objects for every target (run `cargo xtask corpus`)");
    std::fs::read(path).unwrap()
}

/// Runs one corpus launch in the emulator: the object built for `target`, inputs from `seed`.
/// Returns every argument after the run (buffers with their final contents) and the counts.
pub fn run_corpus_launch(
    target: GpuTarget,
    object: &str,
    launch: &hx_corpus::Launch,
    seed: u64,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    let path = hx_corpus::corpus_dir().join(target.cpu()).join(format!("{object}.hsaco"));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    run_launch_bytes(&bytes, &format!("{target}/{object}"), launch, seed)
}

/// `source` with bit `bit` of the 32-bit word at file offset `at` flipped: a mutant, as
/// tests/tests/mutation_diff.rs makes them.
pub fn mutant(source: &[u8], at: usize, bit: u32) -> Vec<u8> {
    let mut m = source.to_vec();
    let w = u32::from_le_bytes(m[at..at + 4].try_into().unwrap()) ^ 1 << bit;
    m[at..at + 4].copy_from_slice(&w.to_le_bytes());
    m
}

/// Compiled-suite objects whose translation takes over a minute each in the test profile; the
/// tests that translate or lower every compiled object leave them to `HX_SLOW_TESTS=1`. None
/// today: Triton's one-wave `tl.dot_scaled` builds (86-127 s while their scaled WMMAs took the
/// cross-lane path) take 0.3-1.3 s on the f64 MFMA path.
pub const SLOW_TRANSLATIONS: &[&str] = &[];

/// Whether `HX_SLOW_TESTS` asks for the [`SLOW_TRANSLATIONS`] too.
pub fn slow_tests() -> bool {
    std::env::var_os("HX_SLOW_TESTS").is_some()
}

/// The end of a test kernel's IR: the work-item ID's declaration, work-groups of 64 (`#0`) and
/// code object version 5.
pub fn kernel_ir(body: &str) -> String {
    format!(
        "{body}declare i32 @llvm.amdgcn.workitem.id.x()\nattributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"64,64\" }}\n!llvm.module.flags = !{{!0}}\n!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}\n"
    )
}

/// Runs one corpus launch on the code object `bytes` (any target) in the emulator.
pub fn run_launch_bytes(
    bytes: &[u8],
    label: &str,
    launch: &hx_corpus::Launch,
    seed: u64,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    run_launch_with(bytes, label, launch, seed, &hx_emu::Limits::default())
}

/// [`run_launch_bytes`] under `limits` (a runaway bound, a wave schedule).
pub fn run_launch_with(
    bytes: &[u8],
    label: &str,
    launch: &hx_corpus::Launch,
    seed: u64,
    limits: &hx_emu::Limits,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    let co = hx_codeobj::CodeObject::parse(bytes).map_err(|e| e.to_string())?;
    let args = launch_args(launch, seed);
    let dispatch = hx_emu::Dispatch { grid: launch.grid, block: launch.block, dynamic_lds: launch.dynamic_lds };
    let r = hx_emu::launch::launch(&co, &launch.kernel, &dispatch, &args, limits).map_err(|e| format!("{label}/{}: {e}", launch.kernel))?;
    let out = r
        .args
        .into_iter()
        .map(|a| match a {
            hx_emu::launch::Arg::Buffer(b) => hx_corpus::ArgData::Buffer(b),
            hx_emu::launch::Arg::Value(v) => hx_corpus::ArgData::Value(v),
        })
        .collect();
    Ok((out, r.stats))
}

/// The emulator's arguments for a corpus launch, with the inputs of `seed`.
pub fn launch_args(launch: &hx_corpus::Launch, seed: u64) -> Vec<hx_emu::launch::Arg> {
    hx_corpus::make_inputs(launch, seed)
        .into_iter()
        .map(|a| match a {
            hx_corpus::ArgData::Buffer(b) => hx_emu::launch::Arg::Buffer(b),
            hx_corpus::ArgData::Value(v) => hx_emu::launch::Arg::Value(v),
        })
        .collect()
}

/// Runs kernel `name` of the code object `co_bytes` in the emulator on `groups` 1-D work-groups
/// of `block` threads with `args`, and returns buffer argument `out` after the run. Panics on an
/// emulator error, naming the code object's processor (a test helper).
pub fn run_1d(co_bytes: &[u8], name: &str, block: u32, groups: u32, args: &[hx_emu::launch::Arg], out: usize) -> Vec<u8> {
    let co = hotswap::codeobj::CodeObject::parse(co_bytes).unwrap();
    let dispatch = hx_emu::Dispatch { grid: [block * groups, 1, 1], block: [block, 1, 1], dynamic_lds: 0 };
    let r = hx_emu::launch::launch(&co, name, &dispatch, args, &hx_emu::Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", co.processor().unwrap_or("?")));
    match &r.args[out] {
        hx_emu::launch::Arg::Buffer(b) => b.clone(),
        hx_emu::launch::Arg::Value(_) => panic!("argument {out} is not a buffer"),
    }
}

/// A gfx1250 code object of test kernel `body` (completed by [`kernel_ir`]): compiled at O2
/// and linked.
pub fn gfx1250_object(body: &str, name: &str) -> Vec<u8> {
    let rel = hx_llvm::compile_ir(&kernel_ir(body), name, hx_llvm::GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap();
    hx_relink::link(&rel).unwrap()
}

/// Translates `source` for gfx942 and gfx950, runs kernel `name` of each translation as
/// [`run_1d`] does and asserts (as [`assert_same_results`]) that buffer `out` equals `want`, the
/// original's.
#[allow(clippy::too_many_arguments)]
pub fn assert_translations_match(source: &[u8], name: &str, block: u32, groups: u32, args: &[hx_emu::launch::Arg], out: usize, want: &[u8], per_thread: usize) {
    for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
        let t = hotswap::translate(source, &hotswap::Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = run_1d(&t.bytes, name, block, groups, args, out);
        assert_same_results(want, &got, per_thread, target);
    }
}

/// Asserts that a translation's output `got` equals the gfx1250 original's `want`, listing up to
/// 12 differing dwords as (thread, result) with `per_thread` result dwords to a thread.
pub fn assert_same_results(want: &[u8], got: &[u8], per_thread: usize, target: impl std::fmt::Display) {
    assert_eq!(want.len(), got.len(), "{target}: output sizes differ");
    let diffs: Vec<String> = want
        .chunks(4)
        .zip(got.chunks(4))
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .take(12)
        .map(|(i, (a, b))| format!("thread {} result {}: gfx1250 {:02x?}, {target} {:02x?}", i / per_thread, i % per_thread, a, b))
        .collect();
    assert!(diffs.is_empty(), "{target}:\n{}", diffs.join("\n"));
}

/// Runs one launch of a compiled-kernel suite object (corpus/triton, corpus/hip) in the emulator on
/// the object the compiler built for `cpu`, with that build's geometry ([`hx_corpus::Launch::for_target`]).
pub fn run_compiled_launch(
    obj: &hx_corpus::CompiledObject,
    cpu: &str,
    launch: &hx_corpus::Launch,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    let path = obj.object_path(cpu);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    run_launch_bytes(&bytes, &format!("{cpu}/{}", obj.id()), &launch.for_target(cpu), 0)
}

/// The ratchet of a compiled suite's runs that do not pass yet: `corpus/<suite>/<file>` lists them
/// (`name@target reason`, one a line, `#` comments). Record every run; [`StatusList::finish`]
/// prints the counts per group and the failing runs, and returns the problems: a listed run that
/// now passes (the list must shrink with the fix), an unlisted run that fails, a listed run the
/// suite does not have.
pub struct StatusList {
    suite: String,
    file: String,
    known: std::collections::BTreeSet<String>,
    seen: std::collections::BTreeSet<String>,
    counts: std::collections::BTreeMap<String, (usize, usize)>,
    failing: Vec<String>,
    problems: Vec<String>,
}

impl StatusList {
    pub fn read(suite: &str, file: &str) -> StatusList {
        let known = std::fs::read_to_string(hx_corpus::corpus_dir().join(suite).join(file))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect();
        StatusList {
            suite: suite.to_string(),
            file: file.to_string(),
            known,
            seen: Default::default(),
            counts: Default::default(),
            failing: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// One run `id` (`name@target`), counted under `group` (a target).
    pub fn record(&mut self, id: &str, group: &str, result: Result<(), String>) {
        self.seen.insert(id.to_string());
        let entry = self.counts.entry(group.to_string()).or_default();
        entry.1 += 1;
        match result {
            Ok(()) => {
                entry.0 += 1;
                if self.known.contains(id) {
                    self.problems.push(format!("{}: {id} now passes: remove it from {}", self.suite, self.file));
                }
            }
            Err(e) => {
                let e = e.replace('\n', " ");
                if !self.known.contains(id) {
                    self.problems.push(format!("{}: {id}: {e}", self.suite));
                }
                self.failing.push(format!("{id} {e}"));
            }
        }
    }

    /// Prints `summary(group, passed, all)` per group and each failing run, and returns the problems.
    pub fn finish(mut self, summary: impl Fn(&str, usize, usize) -> String) -> Vec<String> {
        for k in self.known.difference(&self.seen) {
            self.problems.push(format!("{}: {} lists {k}, which the suite does not have", self.suite, self.file));
        }
        for (group, (ok, all)) in &self.counts {
            eprintln!("{}", summary(group, *ok, *all));
        }
        for f in &self.failing {
            eprintln!("  not yet: {f}");
        }
        self.problems
    }
}

/// `f` of every item, on two threads (the machines this runs on have two cores), in the items'
/// order.
pub fn on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item ran")).collect()
}

/// IR lines (inside a test kernel with `%o`, the thread's first output slot, and `%out`, an i32
/// buffer) storing `value` of type `ty` at slot `%o + slot`; `id` makes the names unique.
pub fn store_slot(id: &str, ty: &str, value: &str, slot: usize) -> String {
    format!("  %o{id} = add i32 %o, {slot}\n  %q{id} = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o{id}\n  store {ty} {value}, ptr addrspace(1) %q{id}, align 4\n")
}
