//! The HotSwap entry points of COMGR, with the layouts, flag values and statuses of the COMGR
//! versions that real runtimes call (/work/shared/COMGR_ABI.md has the facts; README.md the
//! behaviour):
//!
//! - family A (official COMGR): `amd_comgr_hotswap_rewrite`, `amd_comgr_hotswap_rewrite_with_options`
//!   (16-byte options `{size, flags}`);
//! - family B (the forks): `amd_comgr_hotswap_transpile`, `_transpile_with_options` (v1 options, 40
//!   bytes, or its 56-byte revision, told apart by `size`), `_transpile_with_options_v2`
//!   (`version == 2`), and the result object API;
//! - `amd_comgr_get_cache_identifier` and `amd_comgr_get_version`.
//!
//! Every COMGR entry point (here and in lib.rs) is a Rust function exported under
//! `hotswap_comgr_impl_<name>`; build.rs links a small object into the cdylib that defines
//! `<name>@@<version>` as a jump to each ([`VERSIONED`]), so `dlsym`, `dlvsym` and programs
//! linked against COMGR's symbol versions find them under COMGR's names.

use crate::handles::DataObject;
use crate::transpile::{self, Family, Report, Request};
use crate::*;
use hx_cache::env::Env;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

// ================================ family A ================================

/// `amd_comgr_hotswap_rewrite_options_t`: `{ size_t size; uint64_t flags; }`, 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct amd_comgr_hotswap_rewrite_options_t {
    pub size: usize,
    pub flags: u64,
}

/// Official COMGR's entry trampolines. R2 sends it with a gfx942/gfx950 target: here, translate.
pub const AMD_COMGR_HOTSWAP_REWRITE_OPTIONS_ENTRY_TRAMPOLINES: u64 = 0x1;
/// Strict mode (the translator's default anyway).
pub const AMD_COMGR_HOTSWAP_REWRITE_OPTIONS_STRICT_MODE: u64 = 0x2;
const REWRITE_KNOWN: u64 = AMD_COMGR_HOTSWAP_REWRITE_OPTIONS_ENTRY_TRAMPOLINES | AMD_COMGR_HOTSWAP_REWRITE_OPTIONS_STRICT_MODE;

// ================================ family B ================================

/// v1 options: 40 bytes (`size` 40), or the 56-byte revision (`size` >= 56) that appends
/// `kernel_name` and `opt_level`. Only the fields `size` covers are read.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct amd_comgr_hotswap_transpile_options_t {
    pub size: usize,
    /// NULL or "": no cache.
    pub cache_directory: *const c_char,
    /// Comma-separated kernel names: an object holding one bypasses the cache.
    pub cache_skip_kernels: *const c_char,
    /// Accepted and part of the cache key; hotswap-xlate has no rules to apply.
    pub hotswap_rules_path: *const c_char,
    /// AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_* bits; unknown bits are ignored.
    pub flags: u64,
    /// 56-byte revision only: translate only this kernel (NULL or "": every kernel).
    pub kernel_name: *const c_char,
    /// 56-byte revision only, with USE_OPT_LEVEL: 0..3.
    pub opt_level: u32,
}
/// The size of the 40-byte v1 struct (ending at `flags`).
pub const TRANSPILE_OPTIONS_V1_SIZE: usize = 40;
/// The size of the revision with `kernel_name` and `opt_level`.
pub const TRANSPILE_OPTIONS_V1_REVISED_SIZE: usize = 56;

/// v2 options: 56 bytes, no size field; `version` must be 2.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct amd_comgr_hotswap_transpile_options_v2_t {
    pub version: u32,
    pub cache_directory: *const c_char,
    pub cache_skip_kernels: *const c_char,
    pub hotswap_rules_path: *const c_char,
    pub flags: u64,
    pub kernel_name: *const c_char,
    pub opt_level: u32,
}

pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE: u64 = 1 << 0;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_READONLY: u64 = 1 << 1;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_STRICT: u64 = 1 << 2;
/// Accepted; the translator does not rely on it.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_ASSUME_HIP_GLOBAL_OFFSET_ZERO: u64 = 1 << 3;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_OPT_LEVEL: u64 = 1 << 4;
/// v2: translate `kernel_name` only.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_KERNEL_NAME: u64 = 1 << 5;

// ---- result queries (amd_comgr_hotswap_transpile_result_get_info) ----
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SUCCESS: u32 = 0; // bool
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_HIT: u32 = 1; // bool
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_LOOKUP: u32 = 2; // 4-byte enum
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_WRITE: u32 = 3; // 4-byte enum
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_LIFTED_COUNT: u32 = 4; // int64
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TOTAL_COUNT: u32 = 5; // int64
/// int64: the dispatch scale factor a lazy loader multiplies the packet's work-group and grid x
/// extents by: 1, or 2 for a kernel paired by `HSA_HOTSWAP_PAIR_GROUPS` in a per-kernel call.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SCALED_DISPATCH_FACTOR: u32 = 6;
/// int64: the doubled-dispatch factor of another fork; the same value as the scale factor.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_DOUBLED_DISPATCH_FACTOR: u32 = 7;

// ---- result strings (amd_comgr_hotswap_transpile_result_get_string) ----
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_BACKEND: u32 = 0;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SOURCE_GFX: u32 = 1;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TARGET_GFX: u32 = 2;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_KEY: u32 = 3;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_DETAIL: u32 = 4;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_METADATA_PATH: u32 = 5;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_OBJECT_PATH: u32 = 6;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_REASON: u32 = 7;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_DETAIL: u32 = 8;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TIMING_JSON: u32 = 9;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_KERNEL_NAME: u32 = 0xa;

pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_DISABLED: u32 = 0;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_BYPASSED: u32 = 1;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_MISS: u32 = 2;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_HIT: u32 = 3;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_INVALID: u32 = 4;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_NOT_ATTEMPTED: u32 = 0;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_SUCCESS: u32 = 1;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_FAILED: u32 = 2;

/// The BACKEND string, as upstream COMGR reports it.
pub const BACKEND: &str = "comgr";

/// What `amd_comgr_get_version` reports: the COMGR interface version whose HotSwap symbols
/// (up to amd_comgr_3.6) this library exports.
pub const COMGR_VERSION: (usize, usize) = (3, 6);

/// The checked arguments shared by every HotSwap entry point.
struct Call<'a> {
    bytes: std::sync::Arc<[u8]>,
    source: &'a str,
    target: &'a str,
}

/// Checks input, names and output the same way for both families: a dead handle, a kind other
/// than EXECUTABLE, no bytes, a NULL name or a NULL output is INVALID_ARGUMENT.
unsafe fn check_call<'a>(
    f: &str,
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    output: *mut amd_comgr_data_t,
) -> Result<Call<'a>, amd_comgr_status_t> {
    let d: std::sync::Arc<DataObject> = data_object(input, f)?;
    if d.kind != AMD_COMGR_DATA_KIND_EXECUTABLE {
        return Err(invalid(format!("{f}: input is of kind {:#x}, not AMD_COMGR_DATA_KIND_EXECUTABLE", d.kind)));
    }
    let bytes = d.bytes();
    if bytes.is_empty() {
        return Err(invalid(format!("{f}: input holds no bytes")));
    }
    let source = unsafe { c_str(source_isa_name, "source_isa_name") }.map_err(|e| invalid(format!("{f}: {e}")))?;
    let target = unsafe { c_str(target_isa_name, "target_isa_name") }.map_err(|e| invalid(format!("{f}: {e}")))?;
    for (what, name) in [("source_isa_name", source), ("target_isa_name", target)] {
        if let Err(e) = crate::isa::IsaName::parse(name) {
            return Err(invalid(format!("{f}: {what}: {e}")));
        }
    }
    if output.is_null() {
        return Err(invalid(format!("{f}: output is NULL")));
    }
    Ok(Call { bytes, source, target })
}

/// Turns a report into the call's status, output data object and last-error message.
unsafe fn finish(f: &str, report: &mut Report, output: *mut amd_comgr_data_t) -> amd_comgr_status_t {
    if report.status != AMD_COMGR_STATUS_SUCCESS {
        return fail(report.status, format!("{f}: {}", report.message));
    }
    let bytes = report.output.take().unwrap_or_default();
    if bytes.is_empty() {
        return fail(AMD_COMGR_STATUS_ERROR, format!("{f}: the translation produced no bytes"));
    }
    let h = DATA.insert(DataObject::new(AMD_COMGR_DATA_KIND_EXECUTABLE, bytes));
    unsafe { output.write(amd_comgr_data_t { handle: h }) };
    AMD_COMGR_STATUS_SUCCESS
}

/// Translates the code object in `input` for `target_isa_name` (gfx942/gfx950). A source and
/// target of the same processor: SUCCESS and a byte-identical copy. Options come from the
/// environment (HSA_HOTSWAP_*). On failure `*output` is untouched.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_rewrite"]
pub unsafe extern "C" fn amd_comgr_hotswap_rewrite(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    output: *mut amd_comgr_data_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_rewrite";
    guard(F, || {
        let call = match unsafe { check_call(F, input, source_isa_name, target_isa_name, output) } {
            Ok(c) => c,
            Err(s) => return s,
        };
        let mut report = transpile::transpile(&call.bytes, call.source, call.target, &Request::default(), process_env());
        unsafe { finish(F, &mut report, output) }
    })
}

/// [`amd_comgr_hotswap_rewrite`] with official COMGR's options: NULL options, `size < 16` or
/// unknown flag bits are INVALID_ARGUMENT. For a gfx942/gfx950 target the call translates
/// (ENTRY_TRAMPOLINES, which R2 sends, or not: translation is the only rewrite this library does
/// for those targets); STRICT_MODE asks for strict translation, the default anyway.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_rewrite_with_options"]
pub unsafe extern "C" fn amd_comgr_hotswap_rewrite_with_options(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    options: *const amd_comgr_hotswap_rewrite_options_t,
    output: *mut amd_comgr_data_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_rewrite_with_options";
    guard(F, || {
        if options.is_null() {
            return invalid(format!("{F}: options is NULL"));
        }
        let size = unsafe { std::ptr::read_unaligned(options as *const usize) };
        if size < std::mem::size_of::<amd_comgr_hotswap_rewrite_options_t>() {
            return invalid(format!("{F}: options->size is {size}, smaller than 16"));
        }
        let flags = unsafe { std::ptr::read_unaligned(options) }.flags;
        if flags & !REWRITE_KNOWN != 0 {
            return invalid(format!("{F}: options->flags has unknown bits {:#x}", flags & !REWRITE_KNOWN));
        }
        let call = match unsafe { check_call(F, input, source_isa_name, target_isa_name, output) } {
            Ok(c) => c,
            Err(s) => return s,
        };
        let req = Request { strict: flags & AMD_COMGR_HOTSWAP_REWRITE_OPTIONS_STRICT_MODE != 0, ..Request::default() };
        let mut report = transpile::transpile(&call.bytes, call.source, call.target, &req, process_env());
        unsafe { finish(F, &mut report, output) }
    })
}

/// The fields common to every family B options layout, read from whichever struct the caller passed.
struct TranspileFields {
    cache_directory: *const c_char,
    cache_skip_kernels: *const c_char,
    hotswap_rules_path: *const c_char,
    flags: u64,
    /// (kernel_name, opt_level), when the layout has them.
    tail: Option<(*const c_char, u32)>,
    /// The v2 layout: `kernel_name` counts only with USE_KERNEL_NAME.
    v2: bool,
}

/// The request and environment of a family B call. No options: no cache, and the environment is
/// not read. Options: the cache is the options' alone; the rest of HSA_HOTSWAP_* applies.
unsafe fn family_b(fields: Option<TranspileFields>) -> Result<(Request, Env), String> {
    let mut req = Request { family: Family::Transpile, ..Request::default() };
    let Some(o) = fields else {
        return Ok((req, Env::default()));
    };
    let v2 = o.v2;
    let opt_str = |p: *const c_char, what: &str| -> Result<Option<String>, String> {
        if p.is_null() {
            return Ok(None);
        }
        let s = unsafe { c_str(p, what) }?;
        Ok(Some(s.to_string()).filter(|s| !s.is_empty()))
    };
    let mut env = process_env().clone();
    env.cache_dir = opt_str(o.cache_directory, "options->cache_directory")?.map(PathBuf::from);
    env.cache_disable = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE != 0;
    env.cache_read_only = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_READONLY != 0;
    env.cache_skip_kernels = opt_str(o.cache_skip_kernels, "options->cache_skip_kernels")?
        .map(|s| hx_cache::env::split_list(&s))
        .unwrap_or_default();
    req.rules_path = opt_str(o.hotswap_rules_path, "options->hotswap_rules_path")?;
    req.strict = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_STRICT != 0;
    if let Some((kernel_name, opt_level)) = o.tail {
        let kernel = opt_str(kernel_name, "options->kernel_name")?;
        if v2 && o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_KERNEL_NAME != 0 && kernel.is_none() {
            return Err("USE_KERNEL_NAME is set but options->kernel_name is NULL or empty".into());
        }
        // v2 asks with USE_KERNEL_NAME; the 56-byte v1 revision has no such bit and asks by
        // giving a name.
        if !v2 || o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_KERNEL_NAME != 0 {
            req.kernel = kernel;
        }
        if o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_OPT_LEVEL != 0 {
            req.opt_level = Some(match opt_level {
                0 => hotswap::OptLevel::O0,
                1 => hotswap::OptLevel::O1,
                2 => hotswap::OptLevel::O2,
                3 => hotswap::OptLevel::O3,
                n => return Err(format!("options->opt_level is {n}, not 0..3")),
            });
        }
    }
    Ok((req, env))
}

/// Reads a v1 options struct by its `size`: under 40 is INVALID_ARGUMENT; 56 or more also has
/// `kernel_name` and `opt_level`.
unsafe fn v1_fields(o: *const amd_comgr_hotswap_transpile_options_t) -> Result<Option<TranspileFields>, String> {
    if o.is_null() {
        return Ok(None);
    }
    let base = o as *const u8;
    let size = unsafe { std::ptr::read_unaligned(base as *const usize) };
    if size < TRANSPILE_OPTIONS_V1_SIZE {
        return Err(format!("options->size is {size}, smaller than {TRANSPILE_OPTIONS_V1_SIZE}"));
    }
    let ptr_at = |off: usize| unsafe { std::ptr::read_unaligned(base.add(off) as *const *const c_char) };
    let tail = if size >= TRANSPILE_OPTIONS_V1_REVISED_SIZE {
        Some((ptr_at(40), unsafe { std::ptr::read_unaligned(base.add(48) as *const u32) }))
    } else {
        None
    };
    Ok(Some(TranspileFields {
        cache_directory: ptr_at(8),
        cache_skip_kernels: ptr_at(16),
        hotswap_rules_path: ptr_at(24),
        flags: unsafe { std::ptr::read_unaligned(base.add(32) as *const u64) },
        tail,
        v2: false,
    }))
}

unsafe fn v2_fields(o: *const amd_comgr_hotswap_transpile_options_v2_t) -> Result<Option<TranspileFields>, String> {
    if o.is_null() {
        return Ok(None);
    }
    let version = unsafe { std::ptr::read_unaligned(o as *const u32) };
    if version != 2 {
        return Err(format!("options->version is {version}, not 2"));
    }
    let o = unsafe { std::ptr::read_unaligned(o) };
    Ok(Some(TranspileFields {
        cache_directory: o.cache_directory,
        cache_skip_kernels: o.cache_skip_kernels,
        hotswap_rules_path: o.hotswap_rules_path,
        flags: o.flags,
        tail: Some((o.kernel_name, o.opt_level)),
        v2: true,
    }))
}

/// The body of every family B call: invalid arguments return before any result is made; every
/// other outcome makes one when `result` is not NULL.
unsafe fn transpile_call(
    f: &str,
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    fields: impl FnOnce() -> Result<Option<TranspileFields>, String>,
    output: *mut amd_comgr_data_t,
    result: *mut amd_comgr_hotswap_transpile_result_t,
) -> amd_comgr_status_t {
    let call = match unsafe { check_call(f, input, source_isa_name, target_isa_name, output) } {
        Ok(c) => c,
        Err(s) => return s,
    };
    let (req, env) = match fields().and_then(|o| unsafe { family_b(o) }) {
        Ok(x) => x,
        Err(e) => return invalid(format!("{f}: {e}")),
    };
    let mut report = transpile::transpile(&call.bytes, call.source, call.target, &req, &env);
    let status = unsafe { finish(f, &mut report, output) };
    if !result.is_null() {
        let h = RESULTS.insert(report);
        unsafe { result.write(amd_comgr_hotswap_transpile_result_t { handle: h }) };
    }
    status
}

/// Family B without options: no cache, and the environment is not read.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_transpile"]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    output: *mut amd_comgr_data_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile";
    guard(F, || unsafe {
        transpile_call(F, input, source_isa_name, target_isa_name, || Ok(None), output, std::ptr::null_mut())
    })
}

/// Family B with v1 options (40 bytes, or the 56-byte revision, by `size`) and an optional result.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_transpile_with_options"]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_with_options(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    options: *const amd_comgr_hotswap_transpile_options_t,
    output: *mut amd_comgr_data_t,
    result: *mut amd_comgr_hotswap_transpile_result_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile_with_options";
    guard(F, || unsafe {
        transpile_call(F, input, source_isa_name, target_isa_name, || v1_fields(options), output, result)
    })
}

/// Family B with v2 options (`version == 2`; `USE_KERNEL_NAME` translates one kernel).
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_transpile_with_options_v2"]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_with_options_v2(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    options: *const amd_comgr_hotswap_transpile_options_v2_t,
    output: *mut amd_comgr_data_t,
    result: *mut amd_comgr_hotswap_transpile_result_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile_with_options_v2";
    guard(F, || unsafe {
        transpile_call(F, input, source_isa_name, target_isa_name, || v2_fields(options), output, result)
    })
}

fn result_object(
    r: amd_comgr_hotswap_transpile_result_t,
    f: &str,
) -> Result<std::sync::Arc<Report>, amd_comgr_status_t> {
    RESULTS.get(r.handle).ok_or_else(|| invalid(format!("{f}: {:#x} is not a live result object", r.handle)))
}

/// Destroys a result object; `{0}` or a dead handle is INVALID_ARGUMENT.
#[export_name = "hotswap_comgr_impl_amd_comgr_destroy_hotswap_transpile_result"]
pub unsafe extern "C" fn amd_comgr_destroy_hotswap_transpile_result(
    result: amd_comgr_hotswap_transpile_result_t,
) -> amd_comgr_status_t {
    guard("amd_comgr_destroy_hotswap_transpile_result", || match RESULTS.remove(result.handle) {
        Some(_) => AMD_COMGR_STATUS_SUCCESS,
        None => invalid(format!(
            "amd_comgr_destroy_hotswap_transpile_result: {:#x} is not a live result object",
            result.handle
        )),
    })
}

/// Reads one value of a result object into `*value`: `bool` for 0 and 1, a 4-byte enum for 2
/// and 3, `int64_t` for 4 to 7. An unknown query is INVALID_ARGUMENT.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_transpile_result_get_info"]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_result_get_info(
    result: amd_comgr_hotswap_transpile_result_t,
    info: u32,
    value: *mut c_void,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile_result_get_info";
    guard(F, || {
        let r = match result_object(result, F) {
            Ok(r) => r,
            Err(s) => return s,
        };
        if value.is_null() {
            return invalid(format!("{F}: value is NULL"));
        }
        unsafe {
            match info {
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SUCCESS => (value as *mut bool).write_unaligned(r.success),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_HIT => (value as *mut bool).write_unaligned(r.cache_hit),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_LOOKUP => (value as *mut u32).write_unaligned(r.lookup as u32),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_WRITE => (value as *mut u32).write_unaligned(r.write as u32),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_LIFTED_COUNT => {
                    (value as *mut i64).write_unaligned(r.kernels_translated)
                }
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TOTAL_COUNT => (value as *mut i64).write_unaligned(r.kernels_total),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SCALED_DISPATCH_FACTOR
                | AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_DOUBLED_DISPATCH_FACTOR => (value as *mut i64).write_unaligned(r.dispatch_scale),
                other => return invalid(format!("{F}: {other} is not a result info query (0..7)")),
            }
        }
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Reads one string of a result object: `value` NULL sets `*size` to its length with the NUL;
/// otherwise `*size` must be at least that (else INVALID_ARGUMENT) and the string is copied.
#[export_name = "hotswap_comgr_impl_amd_comgr_hotswap_transpile_result_get_string"]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_result_get_string(
    result: amd_comgr_hotswap_transpile_result_t,
    field: u32,
    size: *mut usize,
    value: *mut c_char,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile_result_get_string";
    guard(F, || {
        let r = match result_object(result, F) {
            Ok(r) => r,
            Err(s) => return s,
        };
        if size.is_null() {
            return invalid(format!("{F}: size is NULL"));
        }
        let s: &str = match field {
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_BACKEND => BACKEND,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SOURCE_GFX => &r.source_gfx,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TARGET_GFX => &r.target_gfx,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_KEY => &r.cache_key,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_DETAIL => &r.cache_detail,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_METADATA_PATH => "",
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_OBJECT_PATH => &r.cache_object_path,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_REASON => &r.fail_reason,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_DETAIL => {
                if r.success {
                    ""
                } else {
                    &r.message
                }
            }
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TIMING_JSON => &r.timing_json,
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_KERNEL_NAME => &r.kernel_name,
            other => return invalid(format!("{F}: {other} is not a result string field (0..0xa)")),
        };
        let need = s.len() + 1;
        if value.is_null() {
            unsafe { *size = need };
            return AMD_COMGR_STATUS_SUCCESS;
        }
        if unsafe { *size } < need {
            return invalid(format!("{F}: *size {} is smaller than {need}", unsafe { *size }));
        }
        unsafe { copy_string(s, size, value) };
        unsafe { *size = need };
        AMD_COMGR_STATUS_SUCCESS
    })
}

// ================================ identity ================================

/// The LLVM this library translates with, as libLLVM reports itself (`22.1.8`).
pub fn llvm_version() -> String {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: writes three integers.
    unsafe { hx_llvm::llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}

/// The cache identifier: SHA-256 (64 lowercase hex digits) over everything that decides what a
/// translation outputs: the translator's id (version and pipeline revision), this library's
/// version, and the LLVM it runs (version and the libLLVM build linked).
pub fn cache_identifier() -> &'static CStr {
    static ID: OnceLock<CString> = OnceLock::new();
    ID.get_or_init(|| {
        let key = hx_cache::KeyBuilder::new("hotswap-xlate/comgr-cache-identifier")
            .field("translator", hotswap::TRANSLATOR_ID)
            .field("comgr-shim", env!("CARGO_PKG_VERSION"))
            .field("llvm", llvm_version())
            .field("libllvm", env!("HX_LIBLLVM_NAME"))
            .finish();
        CString::new(key.hex()).unwrap_or_default()
    })
}

/// `*id` = the cache identifier (64 lowercase hex digits, the same for the life of the library).
#[export_name = "hotswap_comgr_impl_amd_comgr_get_cache_identifier"]
pub unsafe extern "C" fn amd_comgr_get_cache_identifier(id: *mut *const c_char) -> amd_comgr_status_t {
    guard("amd_comgr_get_cache_identifier", || {
        if id.is_null() {
            return invalid("amd_comgr_get_cache_identifier: id is NULL");
        }
        unsafe { id.write(cache_identifier().as_ptr()) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// The COMGR interface version this library answers as ([`COMGR_VERSION`]).
#[export_name = "hotswap_comgr_impl_amd_comgr_get_version"]
pub unsafe extern "C" fn amd_comgr_get_version(major: *mut usize, minor: *mut usize) -> amd_comgr_status_t {
    guard("amd_comgr_get_version", || {
        if major.is_null() || minor.is_null() {
            return invalid("amd_comgr_get_version: major or minor is NULL");
        }
        unsafe {
            major.write(COMGR_VERSION.0);
            minor.write(COMGR_VERSION.1);
        }
        AMD_COMGR_STATUS_SUCCESS
    })
}

include!("symbol_versions.rs");
