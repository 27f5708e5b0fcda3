//! The work behind the HotSwap entry points (family A: `amd_comgr_hotswap_rewrite*`, family B:
//! `amd_comgr_hotswap_transpile*`), in plain Rust with the environment passed in (tests give
//! explicit maps). The two families differ in a few statuses (see [`Family`]).

use crate::isa::IsaName;
use hx_cache::env::Env;
use hx_cache::{Cache, Lookup, Mode, Outcome};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Times this process called the translator (`hotswap::translate`). Cache hits do not count.
pub static TRANSLATOR_CALLS: AtomicU64 = AtomicU64::new(0);

/// COMGR status codes (amd_comgr.h: amd_comgr_status_t).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum amd_comgr_status_t {
    AMD_COMGR_STATUS_SUCCESS = 0x0,
    AMD_COMGR_STATUS_ERROR = 0x1,
    AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT = 0x2,
    AMD_COMGR_STATUS_ERROR_OUT_OF_RESOURCES = 0x3,
}
pub use amd_comgr_status_t::*;

/// Cache lookup outcome reported in the result object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupStatus {
    Disabled = 0,
    Bypassed = 1,
    Miss = 2,
    Hit = 3,
    Invalid = 4,
}

/// Cache write outcome reported in the result object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteStatus {
    NotAttempted = 0,
    Success = 1,
    Failed = 2,
}

/// Which entry point family a call came through. They answer a few cases differently, as the
/// COMGR versions that define them do:
///
/// | case | `Rewrite` (official COMGR) | `Transpile` (the forks) |
/// |---|---|---|
/// | bytes that are not a code object | INVALID_ARGUMENT | ERROR, with a result |
/// | object processor differs from `source_isa_name` | ERROR | accepted: the object decides |
/// | source processor equals target processor | SUCCESS, a byte-identical copy | ERROR (unsupported target) |
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Family {
    #[default]
    Rewrite,
    Transpile,
}

/// Caller options (from the options structs, or none for the rewrite entry).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub family: Family,
    /// Some(name): translate only this kernel (v2 `USE_KERNEL_NAME`, or the 56-byte v1 revision's
    /// `kernel_name`); the output holds that kernel alone and is cached apart.
    pub kernel: Option<String>,
    /// Some(level): the LLVM optimisation level (`USE_OPT_LEVEL`); None: the default, -O2.
    pub opt_level: Option<hotswap::OptLevel>,
    /// The caller's `hotswap_rules_path`: accepted and made part of the cache key (hotswap-xlate
    /// has no rules to apply).
    pub rules_path: Option<String>,
    /// Some(dir): overrides the environment's cache directory.
    pub cache_directory: Option<PathBuf>,
    pub cache_disable: bool,
    pub cache_read_only: bool,
    pub strict: bool,
    /// Some(list): overrides HSA_HOTSWAP_CACHE_SKIP_KERNELS.
    pub cache_skip_kernels: Option<Vec<String>>,
}

/// Everything a call reports; the result object exposes it.
#[derive(Debug, Clone)]
pub struct Report {
    pub status: amd_comgr_status_t,
    pub output: Option<Vec<u8>>,
    pub success: bool,
    pub cache_hit: bool,
    pub lookup: LookupStatus,
    pub write: WriteStatus,
    pub kernels_total: i64,
    pub kernels_translated: i64,
    pub source_gfx: String,
    pub target_gfx: String,
    pub cache_key: String,
    pub cache_detail: String,
    pub cache_object_path: String,
    /// Short machine-readable reason ("invalid_argument", "not_implemented", ...), empty on success.
    pub fail_reason: String,
    /// The full message (for a failure: why; for a success: what was done).
    pub message: String,
    pub timing_json: String,
    /// The kernel a per-kernel call translated ("" for a whole object).
    pub kernel_name: String,
    /// The factor the runtime must multiply the dispatch packet's work-group and grid x extents
    /// by (`SCALED_DISPATCH_FACTOR`): the output kernels' `.hotswap_dispatch_scale`, 1 without.
    pub dispatch_scale: i64,
}

impl Report {
    fn new() -> Report {
        Report {
            status: AMD_COMGR_STATUS_ERROR,
            output: None,
            success: false,
            cache_hit: false,
            lookup: LookupStatus::Disabled,
            write: WriteStatus::NotAttempted,
            kernels_total: 0,
            kernels_translated: 0,
            source_gfx: String::new(),
            target_gfx: String::new(),
            cache_key: String::new(),
            cache_detail: String::new(),
            cache_object_path: String::new(),
            fail_reason: String::new(),
            message: String::new(),
            timing_json: String::new(),
            kernel_name: String::new(),
            dispatch_scale: 1,
        }
    }

    /// A report of a call that failed before any work.
    pub fn failure(status: amd_comgr_status_t, reason: &str, message: String) -> Report {
        Report::new().fail(status, reason, message)
    }

    fn fail(mut self, status: amd_comgr_status_t, reason: &str, message: String) -> Report {
        self.status = status;
        self.success = false;
        self.output = None;
        self.fail_reason = reason.to_string();
        self.message = message;
        self
    }
}

fn fail_reason_of(e: &hotswap::Error) -> &'static str {
    use hotswap::ErrorKind as K;
    match e.kind() {
        K::BadInput => "bad_input",
        K::NotGfx1250 => "not_gfx1250",
        K::Unsupported => "unsupported",
        K::Internal => "internal",
        K::InvalidArgument => "invalid_argument",
        K::OutOfResources => "out_of_resources",
    }
}

/// Cache key of one translation: input, source and target ISA names as resolved, every option
/// ([`hotswap::Options::key_fields`]) and the project version.
pub fn cache_key(input: &[u8], source: &IsaName, target: &IsaName, options: &hotswap::Options) -> hx_cache::Key {
    cache_key_with(input, source, target, options, &[])
}

/// [`cache_key`] with more fields after the options (the caller's rules path, the kernel of a
/// per-kernel call).
pub fn cache_key_with(
    input: &[u8],
    source: &IsaName,
    target: &IsaName,
    options: &hotswap::Options,
    extra: &[(&str, &str)],
) -> hx_cache::Key {
    let key = hx_cache::KeyBuilder::new("hotswap-xlate/comgr-shim")
        .field("version", env!("CARGO_PKG_VERSION"))
        .field("translator", hotswap::TRANSLATOR_ID)
        .field("input", input)
        .field("source_isa", source.full())
        .field("target_isa", target.full());
    let mut key = options.key_fields(key);
    for (name, value) in extra {
        key = key.field(name, value);
    }
    key.finish()
}

/// Checks translator output (fresh or cached) against the requested target.
fn check_output(bytes: &[u8], target: &IsaName) -> Result<hotswap::codeobj::CodeObject, String> {
    let co = hotswap::codeobj::CodeObject::parse(bytes).map_err(|e| format!("output is not a code object: {e}"))?;
    let produced = IsaName::parse(&co.target_id()).map_err(|e| format!("output target: {e}"))?;
    target.accepts(&produced).map_err(|e| format!("output is for {}: {e}", co.target_id()))?;
    Ok(co)
}

/// Translates `input` from `source_isa` to `target_isa` under `env`.
pub fn transpile(input: &[u8], source_isa: &str, target_isa: &str, req: &Request, env: &Env) -> Report {
    let start = Instant::now();
    let mut r = run(input, source_isa, target_isa, req, env);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    r.timing_json = format!("{{\"total_seconds\":{:.6}}}", ms / 1e3);
    if env.verbose >= 1 {
        let what = if r.success {
            format!("ok, {} bytes", r.output.as_ref().map_or(0, |o| o.len()))
        } else {
            format!("{:?}: {}", r.status, r.message)
        };
        eprintln!("hotswap: {source_isa} -> {target_isa}: {what} (cache {:?}, {ms:.1} ms)", r.lookup);
        if env.verbose >= 2 && !r.cache_detail.is_empty() {
            eprintln!("hotswap:   cache: {} {}", r.cache_detail, r.cache_object_path);
        }
    }
    r
}

fn run(input: &[u8], source_isa: &str, target_isa: &str, req: &Request, env: &Env) -> Report {
    let r = Report::new();
    let invalid = |r: Report, m: String| r.fail(AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "invalid_argument", m);
    if !env.errors.is_empty() {
        return r.fail(
            AMD_COMGR_STATUS_ERROR,
            "bad_environment",
            format!("HotSwap environment: {}", env.errors.join("; ")),
        );
    }
    if env.disable {
        return r.fail(
            AMD_COMGR_STATUS_ERROR,
            "disabled",
            "HotSwap translation is disabled by HSA_HOTSWAP_DISABLE".into(),
        );
    }
    // Limits first: nothing (not even the parse below) works on an input they refuse.
    let limits = match hotswap::limits::Limits::from_env() {
        Ok(l) => l,
        Err(e) => return r.fail(AMD_COMGR_STATUS_ERROR, "bad_environment", format!("HotSwap environment: {e}")),
    };
    if let Err(e) = limits.check_input(input.len()) {
        return r.fail(AMD_COMGR_STATUS_ERROR, "out_of_resources", e.to_string());
    }
    let source = match IsaName::parse(source_isa) {
        Ok(s) => s,
        Err(e) => return invalid(r, format!("source_isa_name: {e}")),
    };
    let requested = match IsaName::parse(target_isa) {
        Ok(t) => t,
        Err(e) => return invalid(r, format!("target_isa_name: {e}")),
    };
    let target = match &env.isa_override {
        Some(o) => match IsaName::parse(o) {
            Ok(t) => t,
            Err(e) => {
                return r.fail(AMD_COMGR_STATUS_ERROR, "bad_environment", format!("HSA_HOTSWAP_ISA_OVERRIDE: {e}"))
            }
        },
        None => requested,
    };
    let mut r = r;
    r.source_gfx = source.processor.clone();
    r.target_gfx = target.processor.clone();
    let pair = format!("{} -> {}", source.full(), target.full());
    let co = match hotswap::codeobj::CodeObject::parse(input) {
        Ok(co) => co,
        Err(e) => {
            let m = format!("input is not a code object: {e}");
            return match req.family {
                Family::Rewrite => invalid(r, m),
                Family::Transpile => r.fail(AMD_COMGR_STATUS_ERROR, "not_code_object", m),
            };
        }
    };
    let object_processor = co.processor().unwrap_or("").to_string();
    let want = &env.source_target;
    match req.family {
        Family::Rewrite => {
            if object_processor != source.processor {
                return r.fail(
                    AMD_COMGR_STATUS_ERROR,
                    "source_mismatch",
                    format!("source_isa_name is {} but the code object is for {}", source.full(), co.target_id()),
                );
            }
            if target.processor == source.processor {
                // A supported pair with nothing to do: the bytes as they are.
                r.status = AMD_COMGR_STATUS_SUCCESS;
                r.success = true;
                r.kernels_total = co.kernels.len() as i64;
                r.message = format!("{pair}: same processor, nothing to translate; the input is returned as is");
                r.output = Some(input.to_vec());
                return r;
            }
        }
        Family::Transpile => {
            // The object, not source_isa_name, says what the source is.
            r.source_gfx = object_processor.clone();
        }
    }
    if object_processor != want.processor || want.wave_size != 32 {
        return r.fail(
            AMD_COMGR_STATUS_ERROR,
            "unsupported_source",
            format!(
                "unsupported ISA pair {pair}: the code object is for {}; HotSwap translates from {}:{} (HSA_HOTSWAP_SOURCE_TARGET) and wave32 only",
                co.target_id(),
                want.processor,
                want.wave_size
            ),
        );
    }
    let gpu = match target.gpu_target() {
        Some(g) => g,
        None => {
            return r.fail(
                AMD_COMGR_STATUS_ERROR,
                "unsupported_target",
                format!("unsupported ISA pair {pair}: the target must be gfx942 or gfx950"),
            )
        }
    };
    r.kernels_total = co.kernels.len() as i64;
    let kernel_names: Vec<String> = co.kernels.iter().map(|k| k.name.clone()).collect();
    drop(co);

    // A per-kernel call leaves every other kernel out (`Options::skip_kernels`).
    let mut skip_kernels = Vec::new();
    let mut translated: Vec<String> = kernel_names.clone();
    if let Some(k) = &req.kernel {
        let k = k.strip_suffix(".kd").unwrap_or(k);
        if !kernel_names.iter().any(|n| n == k) {
            return r.fail(
                AMD_COMGR_STATUS_ERROR,
                "kernel_not_found",
                format!("kernel `{k}` is not in the code object (it holds: {})", kernel_names.join(", ")),
            );
        }
        r.kernel_name = k.to_string();
        skip_kernels = kernel_names.iter().filter(|n| *n != k).cloned().collect();
        translated = vec![k.to_string()];
    }

    let options = hotswap::Options {
        target: gpu,
        strict: req.strict || env.strict.unwrap_or(hotswap::Options::default().strict),
        opt_level: req.opt_level.unwrap_or(hotswap::Options::default().opt_level),
        skip_kernels,
        limits,
        // Only where the factor can be reported: a per-kernel call (the runtime reads it per
        // kernel; one factor for a whole object of kernels could not describe each).
        pair_groups: env.pair_groups && req.kernel.is_some(),
        ..hotswap::Options::default()
    };
    let mut extra: Vec<(&str, &str)> = Vec::new();
    if let Some(p) = &req.rules_path {
        extra.push(("rules_path", p));
    }
    if !r.kernel_name.is_empty() {
        extra.push(("kernel", &r.kernel_name));
    }

    let translate = || {
        TRANSLATOR_CALLS.fetch_add(1, Ordering::SeqCst);
        hotswap::translate(input, &options).map(|t| t.bytes)
    };

    // The cache: where, whether, how.
    let dir = req.cache_directory.clone().or_else(|| env.cache_dir.clone());
    let skip = req.cache_skip_kernels.as_ref().unwrap_or(&env.cache_skip_kernels);
    let skipped = translated.iter().find(|k| skip.contains(k));
    let cache = match (&dir, req.cache_disable || env.cache_disable, skipped) {
        (_, true, _) => {
            r.cache_detail = "cache disabled".into();
            None
        }
        (None, _, _) => {
            r.cache_detail = "no cache directory (HSA_HOTSWAP_CACHE_DIR, XDG_CACHE_HOME and HOME are unset)".into();
            None
        }
        (Some(_), false, Some(k)) => {
            r.lookup = LookupStatus::Bypassed;
            r.cache_detail = format!("kernel {k} is listed in the kernels that skip the cache");
            None
        }
        (Some(d), false, None) => {
            let ro = req.cache_read_only || env.cache_read_only;
            Some(Cache::new(d.clone(), if ro { Mode::ReadOnly } else { Mode::ReadWrite }))
        }
    };

    let result = match &cache {
        None => translate().map(|b| (b, None)),
        Some(c) => {
            let key = cache_key_with(input, &source, &target, &options, &extra);
            r.cache_key = key.hex();
            // A hit must pass the same output check as a fresh translation; a corrupt entry
            // (removed by the lookup) or a rejected one is reported as Invalid, then rebuilt.
            r.lookup = LookupStatus::Miss;
            match c.get(&key) {
                Lookup::Hit(v) => {
                    if let Err(e) = check_output(&v, &target) {
                        c.remove(&key);
                        r.lookup = LookupStatus::Invalid;
                        r.cache_detail = format!("cached entry rejected: {e}");
                    }
                }
                Lookup::Corrupt(why) => {
                    r.lookup = LookupStatus::Invalid;
                    r.cache_detail = format!("corrupt cache entry: {why}");
                }
                Lookup::Miss => {}
            }
            c.get_or_insert_with(&key, translate).map(|(b, o)| (b, Some(o)))
        }
    };

    let bytes = match result {
        Ok((bytes, outcome)) => {
            match outcome {
                None => {}
                Some(Outcome::Hit) => {
                    r.cache_hit = true;
                    r.lookup = LookupStatus::Hit;
                    r.cache_detail = "served from the cache; the translator did not run".into();
                }
                Some(Outcome::Miss { replaced_corrupt, stored, write_error }) => {
                    if replaced_corrupt.is_some() {
                        r.lookup = LookupStatus::Invalid;
                    }
                    r.write = match (stored, &write_error) {
                        (true, _) => WriteStatus::Success,
                        (false, Some(_)) => WriteStatus::Failed,
                        (false, None) => WriteStatus::NotAttempted,
                    };
                    let what = match (stored, write_error) {
                        (true, _) => "translated and stored".to_string(),
                        (false, Some(e)) => e,
                        (false, None) => "translated; read-only cache, not stored".to_string(),
                    };
                    r.cache_detail = match (r.cache_detail.is_empty(), replaced_corrupt) {
                        (_, Some(why)) => format!("corrupt cache entry: {why}; {what}"),
                        (true, None) => what,
                        (false, None) => format!("{}; {what}", r.cache_detail),
                    };
                }
            }
            bytes
        }
        Err(e) => {
            let reason = fail_reason_of(&e);
            return r.fail(AMD_COMGR_STATUS_ERROR, reason, e.to_string());
        }
    };
    let out = match check_output(&bytes, &target) {
        Ok(co) => co,
        Err(e) => return r.fail(AMD_COMGR_STATUS_ERROR, "bad_output", format!("translator output rejected: {e}")),
    };
    // From the output itself, so that a cache hit reports what the translation did.
    r.dispatch_scale = out
        .metadata
        .map_or(1, |m| m.kernels.iter().filter(|k| translated.contains(&k.name)).map(|k| k.dispatch_scale()).max().unwrap_or(1)) as i64;
    r.status = AMD_COMGR_STATUS_SUCCESS;
    r.success = true;
    r.kernels_translated = translated.len() as i64;
    r.message = format!(
        "{pair}: {} kernel(s){}, {} bytes{}",
        r.kernels_translated,
        if r.kernel_name.is_empty() { String::new() } else { format!(" ({})", r.kernel_name) },
        bytes.len(),
        if r.cache_hit { " (cache hit)" } else { "" }
    );
    r.output = Some(bytes);
    r
}
