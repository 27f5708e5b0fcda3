//! hotswap-comgr: a COMGR-compatible shim, `libhotswap_comgr.so` (SONAME `libhotswap_comgr.so.0`),
//! exporting the `amd_comgr_*` entry points a HotSwap-enabled ROCR resolves with dlsym. Status
//! codes, data kinds and the handle struct are COMGR's (amd_comgr.h); the translation is
//! hotswap-xlate's. See README.md for what is and is not provided.
//!
//! Every entry point catches panics (a panic is `AMD_COMGR_STATUS_ERROR`), checks every pointer and
//! handle (a bad one is `AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT`), and is safe to call from many
//! threads at once, on the same or different objects.

#![allow(non_camel_case_types, clippy::missing_safety_doc)]

pub mod handles;
pub mod isa;
pub mod prewarm;
pub mod transpile;

use handles::{DataObject, Table};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::OnceLock;
pub use transpile::amd_comgr_status_t::{self, *};
use transpile::{Report, Request};

pub use hx_cache::env::Env;

// ---- COMGR data kinds (amd_comgr_data_kind_t) ----
pub const AMD_COMGR_DATA_KIND_UNDEF: u32 = 0x0;
pub const AMD_COMGR_DATA_KIND_SOURCE: u32 = 0x1;
pub const AMD_COMGR_DATA_KIND_INCLUDE: u32 = 0x2;
pub const AMD_COMGR_DATA_KIND_PRECOMPILED_HEADER: u32 = 0x3;
pub const AMD_COMGR_DATA_KIND_DIAGNOSTIC: u32 = 0x4;
pub const AMD_COMGR_DATA_KIND_LOG: u32 = 0x5;
pub const AMD_COMGR_DATA_KIND_BC: u32 = 0x6;
pub const AMD_COMGR_DATA_KIND_RELOCATABLE: u32 = 0x7;
pub const AMD_COMGR_DATA_KIND_EXECUTABLE: u32 = 0x8;
pub const AMD_COMGR_DATA_KIND_BYTES: u32 = 0x9;
pub const AMD_COMGR_DATA_KIND_FATBIN: u32 = 0x10;
pub const AMD_COMGR_DATA_KIND_AR: u32 = 0x11;
pub const AMD_COMGR_DATA_KIND_BC_BUNDLE: u32 = 0x12;
pub const AMD_COMGR_DATA_KIND_AR_BUNDLE: u32 = 0x13;
pub const AMD_COMGR_DATA_KIND_OBJ_BUNDLE: u32 = 0x14;
pub const AMD_COMGR_DATA_KIND_SPIRV: u32 = 0x15;

fn valid_kind(kind: u32) -> bool {
    matches!(kind, 0x1..=0x9 | 0x10..=0x15)
}

/// A handle to a data object (amd_comgr_data_t).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct amd_comgr_data_t {
    pub handle: u64,
}

/// A handle to a transpile result object.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct amd_comgr_hotswap_transpile_result_t {
    pub handle: u64,
}

// ---- transpile options ----
/// Do not read or write the cache.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE: u64 = 1 << 0;
/// Read the cache, never write it.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_READONLY: u64 = 1 << 1;
/// Strict mode (also HSA_HOTSWAP_STRICT); the library default is strict already.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_STRICT: u64 = 1 << 2;
/// A hint that HIP's global offsets are zero. Accepted; the translator does not rely on it.
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_ASSUME_HIP_GLOBAL_OFFSET_ZERO: u64 = 1 << 3;
pub const AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_KNOWN: u64 = AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE
    | AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_READONLY
    | AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_STRICT
    | AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_ASSUME_HIP_GLOBAL_OFFSET_ZERO;

/// Options of `amd_comgr_hotswap_transpile_with_options`. `size` first: set it to
/// `sizeof(amd_comgr_hotswap_transpile_options_t)`; a smaller size is an invalid argument, a
/// larger one (a newer caller) is accepted and the fields this version knows are read.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct amd_comgr_hotswap_transpile_options_t {
    pub size: usize,
    /// AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_* bits; unknown bits are an invalid argument.
    pub flags: u64,
    /// Cache directory, or NULL/"" for the environment's (HSA_HOTSWAP_CACHE_DIR, ...).
    pub cache_directory: *const c_char,
    /// Comma-separated kernel names: an object holding one bypasses the cache. NULL: the
    /// environment's HSA_HOTSWAP_CACHE_SKIP_KERNELS.
    pub cache_skip_kernels: *const c_char,
    /// A rules file of AMD's transpiler. Not supported: must be NULL or "".
    pub hotswap_rules_path: *const c_char,
}

// ---- result queries ----
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SUCCESS: u32 = 0; // bool
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_HIT: u32 = 1; // bool
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_LOOKUP: u32 = 2; // int32: AMD_COMGR_HOTSWAP_CACHE_LOOKUP_*
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_WRITE: u32 = 3; // int32: AMD_COMGR_HOTSWAP_CACHE_WRITE_*
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_LIFTED_COUNT: u32 = 4; // int64: kernels translated
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TOTAL_COUNT: u32 = 5; // int64: kernels in the input
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_STATUS: u32 = 6; // int32: the amd_comgr_status_t the call returned

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
pub const AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_MESSAGE: u32 = 10;

pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_DISABLED: i32 = 0;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_BYPASSED: i32 = 1;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_MISS: i32 = 2;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_HIT: i32 = 3;
pub const AMD_COMGR_HOTSWAP_CACHE_LOOKUP_INVALID: i32 = 4;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_NOT_ATTEMPTED: i32 = 0;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_SUCCESS: i32 = 1;
pub const AMD_COMGR_HOTSWAP_CACHE_WRITE_FAILED: i32 = 2;

static DATA: Table<DataObject> = Table::new();
static RESULTS: Table<Report> = Table::new();

/// Live data objects and results (for leak checks in tests).
pub fn live_objects() -> (usize, usize) {
    (DATA.len(), RESULTS.len())
}

/// The process environment, read once at first use (a runtime sets it before loading code).
pub fn process_env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(Env::from_process)
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn fail(status: amd_comgr_status_t, msg: impl Into<String>) -> amd_comgr_status_t {
    let msg = msg.into();
    if process_env().verbose >= 2 {
        eprintln!("hotswap: {msg}");
    }
    set_last_error(&msg);
    status
}

fn invalid(msg: impl Into<String>) -> amd_comgr_status_t {
    fail(AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, msg)
}

fn guard(name: &str, body: impl FnOnce() -> amd_comgr_status_t) -> amd_comgr_status_t {
    set_last_error("");
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(s) => s,
        Err(p) => {
            let m = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            fail(AMD_COMGR_STATUS_ERROR, format!("{name}: internal error (panic): {}", m.unwrap_or_default()))
        }
    }
}

/// Reads a NUL-terminated string argument.
unsafe fn c_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// Copies `s` plus a NUL into `out` COMGR-style: `out` NULL sets `*size` to the length with the
/// NUL; otherwise the first `*size` bytes are copied.
unsafe fn copy_string(s: &str, size: *mut usize, out: *mut c_char) {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    if out.is_null() {
        unsafe { *size = bytes.len() };
    } else {
        let n = unsafe { *size }.min(bytes.len());
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out as *mut u8, n) };
    }
}

// ================================ data objects ================================

/// Creates a data object of `kind` with no bytes.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_create_data(kind: u32, data: *mut amd_comgr_data_t) -> amd_comgr_status_t {
    guard("amd_comgr_create_data", || {
        if data.is_null() {
            return invalid("amd_comgr_create_data: data is NULL");
        }
        if !valid_kind(kind) {
            return invalid(format!("amd_comgr_create_data: kind {kind:#x} is not a valid data kind"));
        }
        let h = DATA.insert(DataObject::new(kind, Vec::new()));
        unsafe { data.write(amd_comgr_data_t { handle: h }) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Releases a data object; its handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_release_data(data: amd_comgr_data_t) -> amd_comgr_status_t {
    guard("amd_comgr_release_data", || match DATA.remove(data.handle) {
        Some(_) => AMD_COMGR_STATUS_SUCCESS,
        None => invalid(format!("amd_comgr_release_data: {:#x} is not a live data object", data.handle)),
    })
}

fn data_object(data: amd_comgr_data_t, f: &str) -> Result<std::sync::Arc<DataObject>, amd_comgr_status_t> {
    DATA.get(data.handle).ok_or_else(|| invalid(format!("{f}: {:#x} is not a live data object", data.handle)))
}

/// Gets the kind of a data object.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_get_data_kind(data: amd_comgr_data_t, kind: *mut u32) -> amd_comgr_status_t {
    guard("amd_comgr_get_data_kind", || {
        let d = match data_object(data, "amd_comgr_get_data_kind") {
            Ok(d) => d,
            Err(s) => return s,
        };
        if kind.is_null() {
            return invalid("amd_comgr_get_data_kind: kind is NULL");
        }
        unsafe { kind.write(d.kind) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Replaces the bytes of a data object with a copy of `size` bytes at `bytes`.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_set_data(
    data: amd_comgr_data_t,
    size: usize,
    bytes: *const c_char,
) -> amd_comgr_status_t {
    guard("amd_comgr_set_data", || {
        let d = match data_object(data, "amd_comgr_set_data") {
            Ok(d) => d,
            Err(s) => return s,
        };
        if size > isize::MAX as usize {
            return invalid(format!("amd_comgr_set_data: size {size} is not a valid buffer size"));
        }
        if bytes.is_null() && size != 0 {
            return invalid("amd_comgr_set_data: bytes is NULL");
        }
        let copy = if size == 0 {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(bytes as *const u8, size) }.to_vec()
        };
        d.lock().bytes = copy.into();
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// `bytes` NULL: sets `*size` to the data size. Otherwise copies the first `min(*size, data size)`
/// bytes into `bytes`.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_get_data(
    data: amd_comgr_data_t,
    size: *mut usize,
    bytes: *mut c_char,
) -> amd_comgr_status_t {
    guard("amd_comgr_get_data", || {
        let d = match data_object(data, "amd_comgr_get_data") {
            Ok(d) => d,
            Err(s) => return s,
        };
        if size.is_null() {
            return invalid("amd_comgr_get_data: size is NULL");
        }
        let b = d.bytes();
        if bytes.is_null() {
            unsafe { *size = b.len() };
        } else {
            let n = unsafe { *size }.min(b.len());
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), bytes as *mut u8, n) };
        }
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Sets the name of a data object (NULL: the empty name).
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_set_data_name(data: amd_comgr_data_t, name: *const c_char) -> amd_comgr_status_t {
    guard("amd_comgr_set_data_name", || {
        let d = match data_object(data, "amd_comgr_set_data_name") {
            Ok(d) => d,
            Err(s) => return s,
        };
        let n = if name.is_null() {
            String::new()
        } else {
            match unsafe { c_str(name, "name") } {
                Ok(s) => s.to_string(),
                Err(e) => return invalid(format!("amd_comgr_set_data_name: {e}")),
            }
        };
        d.lock().name = n;
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Gets the name of a data object (size with the NUL, then the bytes).
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_get_data_name(
    data: amd_comgr_data_t,
    size: *mut usize,
    name: *mut c_char,
) -> amd_comgr_status_t {
    guard("amd_comgr_get_data_name", || {
        let d = match data_object(data, "amd_comgr_get_data_name") {
            Ok(d) => d,
            Err(s) => return s,
        };
        if size.is_null() {
            return invalid("amd_comgr_get_data_name: size is NULL");
        }
        let n = d.lock().name.clone();
        unsafe { copy_string(&n, size, name) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// The ISA name (target ID with triple) of a code object held by an executable or relocatable
/// data object, e.g. `amdgcn-amd-amdhsa--gfx942`. Same size protocol as amd_comgr_get_data_name.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_get_data_isa_name(
    data: amd_comgr_data_t,
    size: *mut usize,
    isa_name: *mut c_char,
) -> amd_comgr_status_t {
    guard("amd_comgr_get_data_isa_name", || {
        let d = match data_object(data, "amd_comgr_get_data_isa_name") {
            Ok(d) => d,
            Err(s) => return s,
        };
        if size.is_null() {
            return invalid("amd_comgr_get_data_isa_name: size is NULL");
        }
        if d.kind != AMD_COMGR_DATA_KIND_EXECUTABLE && d.kind != AMD_COMGR_DATA_KIND_RELOCATABLE {
            return invalid(format!("amd_comgr_get_data_isa_name: kind {:#x} is not an ISA-specific kind", d.kind));
        }
        let b = d.bytes();
        let co = match hotswap::codeobj::CodeObject::parse(&b) {
            Ok(co) => co,
            Err(e) => return invalid(format!("amd_comgr_get_data_isa_name: not a code object: {e}")),
        };
        unsafe { copy_string(&co.target_id(), size, isa_name) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// A description of a status code.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_status_string(status: u32, status_string: *mut *const c_char) -> amd_comgr_status_t {
    guard("amd_comgr_status_string", || {
        if status_string.is_null() {
            return invalid("amd_comgr_status_string: status_string is NULL");
        }
        let s: &'static CStr = match status {
            0 => c"SUCCESS",
            1 => c"ERROR",
            2 => c"INVALID_ARGUMENT",
            3 => c"OUT_OF_RESOURCES",
            _ => return invalid(format!("amd_comgr_status_string: {status} is not a status code")),
        };
        unsafe { status_string.write(s.as_ptr()) };
        AMD_COMGR_STATUS_SUCCESS
    })
}

// ================================ HotSwap ================================

fn input_bytes(input: amd_comgr_data_t, f: &str) -> Result<std::sync::Arc<[u8]>, amd_comgr_status_t> {
    let d = data_object(input, f)?;
    if d.kind != AMD_COMGR_DATA_KIND_EXECUTABLE {
        return Err(invalid(format!("{f}: input is of kind {:#x}, not AMD_COMGR_DATA_KIND_EXECUTABLE", d.kind)));
    }
    let b = d.bytes();
    if b.is_empty() {
        return Err(invalid(format!("{f}: input holds no bytes")));
    }
    Ok(b)
}

/// Turns a report into the call's status, output data object and last-error message.
unsafe fn finish(f: &str, report: &mut Report, output: *mut amd_comgr_data_t) -> amd_comgr_status_t {
    if report.status != AMD_COMGR_STATUS_SUCCESS {
        return fail(report.status, format!("{f}: {}", report.message));
    }
    let bytes = report.output.take().unwrap_or_default();
    let h = DATA.insert(DataObject::new(AMD_COMGR_DATA_KIND_EXECUTABLE, bytes));
    unsafe { output.write(amd_comgr_data_t { handle: h }) };
    AMD_COMGR_STATUS_SUCCESS
}

/// Translates the code object in `input` (an executable data object for `source_isa_name`) for
/// `target_isa_name`. On success `*output` is a new executable data object (release it); on
/// failure `*output` is untouched and `hotswap_comgr_last_error()` says why. Caller options come
/// from the environment (HSA_HOTSWAP_*).
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_hotswap_rewrite(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    output: *mut amd_comgr_data_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_rewrite";
    guard(F, || {
        let bytes = match input_bytes(input, F) {
            Ok(b) => b,
            Err(s) => return s,
        };
        let (src, tgt) =
            match unsafe { (c_str(source_isa_name, "source_isa_name"), c_str(target_isa_name, "target_isa_name")) } {
                (Ok(s), Ok(t)) => (s, t),
                (Err(e), _) | (_, Err(e)) => return invalid(format!("{F}: {e}")),
            };
        if output.is_null() {
            return invalid(format!("{F}: output is NULL"));
        }
        let mut report = transpile::transpile(&bytes, src, tgt, &Request::default(), process_env());
        unsafe { finish(F, &mut report, output) }
    })
}

fn options_request(o: *const amd_comgr_hotswap_transpile_options_t) -> Result<Request, String> {
    let mut req = Request::default();
    if o.is_null() {
        return Ok(req);
    }
    let size = unsafe { std::ptr::read_unaligned(o as *const usize) };
    let need = std::mem::size_of::<amd_comgr_hotswap_transpile_options_t>();
    if size < need {
        return Err(format!("options->size is {size}, smaller than {need}"));
    }
    let o = unsafe { std::ptr::read_unaligned(o) };
    if o.flags & !AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_KNOWN != 0 {
        return Err(format!(
            "options->flags has unknown bits {:#x}",
            o.flags & !AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_KNOWN
        ));
    }
    req.cache_disable = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE != 0;
    req.cache_read_only = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_READONLY != 0;
    req.strict = o.flags & AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_STRICT != 0;
    if !o.cache_directory.is_null() {
        let d = unsafe { c_str(o.cache_directory, "options->cache_directory") }?;
        if !d.is_empty() {
            req.cache_directory = Some(PathBuf::from(d));
        }
    }
    if !o.cache_skip_kernels.is_null() {
        let s = unsafe { c_str(o.cache_skip_kernels, "options->cache_skip_kernels") }?;
        req.cache_skip_kernels = Some(hx_cache::env::split_list(s));
    }
    if !o.hotswap_rules_path.is_null() {
        let r = unsafe { c_str(o.hotswap_rules_path, "options->hotswap_rules_path") }?;
        if !r.is_empty() {
            return Err(format!("options->hotswap_rules_path `{r}`: rules files are not supported by hotswap-xlate"));
        }
    }
    Ok(req)
}

/// Like amd_comgr_hotswap_rewrite, with options (NULL: the environment's) and, when `result` is
/// not NULL, a result object (success, cache outcome, message; destroy it with
/// amd_comgr_destroy_hotswap_transpile_result) on every outcome but a NULL/invalid `result`.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_with_options(
    input: amd_comgr_data_t,
    source_isa_name: *const c_char,
    target_isa_name: *const c_char,
    options: *const amd_comgr_hotswap_transpile_options_t,
    output: *mut amd_comgr_data_t,
    result: *mut amd_comgr_hotswap_transpile_result_t,
) -> amd_comgr_status_t {
    const F: &str = "amd_comgr_hotswap_transpile_with_options";
    guard(F, || {
        let early = |status: amd_comgr_status_t| {
            if !result.is_null() {
                let msg = LAST_ERROR.with(|e| e.borrow().to_string_lossy().to_string());
                let mut r = Report::failure(status, "invalid_argument", msg);
                r.status = status;
                let h = RESULTS.insert(r);
                unsafe { result.write(amd_comgr_hotswap_transpile_result_t { handle: h }) };
            }
            status
        };
        let bytes = match input_bytes(input, F) {
            Ok(b) => b,
            Err(s) => return early(s),
        };
        let (src, tgt) =
            match unsafe { (c_str(source_isa_name, "source_isa_name"), c_str(target_isa_name, "target_isa_name")) } {
                (Ok(s), Ok(t)) => (s, t),
                (Err(e), _) | (_, Err(e)) => return early(invalid(format!("{F}: {e}"))),
            };
        if output.is_null() {
            return early(invalid(format!("{F}: output is NULL")));
        }
        let req = match options_request(options) {
            Ok(r) => r,
            Err(e) => return early(invalid(format!("{F}: {e}"))),
        };
        let mut report = transpile::transpile(&bytes, src, tgt, &req, process_env());
        let status = unsafe { finish(F, &mut report, output) };
        if !result.is_null() {
            let h = RESULTS.insert(report);
            unsafe { result.write(amd_comgr_hotswap_transpile_result_t { handle: h }) };
        }
        status
    })
}

fn result_object(
    r: amd_comgr_hotswap_transpile_result_t,
    f: &str,
) -> Result<std::sync::Arc<Report>, amd_comgr_status_t> {
    RESULTS.get(r.handle).ok_or_else(|| invalid(format!("{f}: {:#x} is not a live result object", r.handle)))
}

/// Destroys a result object.
#[no_mangle]
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

/// Reads one value of a result object into `*value`: a `bool` for SUCCESS and CACHE_HIT, an
/// `int32_t` for CACHE_LOOKUP, CACHE_WRITE and STATUS, an `int64_t` for LIFTED_COUNT and TOTAL_COUNT.
#[no_mangle]
pub unsafe extern "C" fn amd_comgr_hotswap_transpile_result_get_info(
    result: amd_comgr_hotswap_transpile_result_t,
    info: u32,
    value: *mut std::ffi::c_void,
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
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_LOOKUP => (value as *mut i32).write_unaligned(r.lookup as i32),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_CACHE_WRITE => (value as *mut i32).write_unaligned(r.write as i32),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_LIFTED_COUNT => {
                    (value as *mut i64).write_unaligned(r.kernels_translated)
                }
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TOTAL_COUNT => (value as *mut i64).write_unaligned(r.kernels_total),
                AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_STATUS => (value as *mut i32).write_unaligned(r.status as i32),
                other => return invalid(format!("{F}: {other} is not a result info query")),
            }
        }
        AMD_COMGR_STATUS_SUCCESS
    })
}

/// Reads one string of a result object: `value` NULL sets `*size` to its length with the NUL;
/// otherwise `*size` must be at least that (else INVALID_ARGUMENT) and the string is copied.
#[no_mangle]
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
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_BACKEND => "hotswap-xlate",
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
            AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_MESSAGE => &r.message,
            other => return invalid(format!("{F}: {other} is not a result string field")),
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

/// hotswap-xlate extension (not a COMGR function): the message of the last failed call of this
/// library on this thread ("" after a success). Never NULL; valid until the next call on this thread.
#[no_mangle]
pub extern "C" fn hotswap_comgr_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_status_error_with_its_message() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let s = guard("f", || panic!("boom"));
        std::panic::set_hook(prev);
        assert_eq!(s, AMD_COMGR_STATUS_ERROR);
        let msg = unsafe { CStr::from_ptr(hotswap_comgr_last_error()) }.to_str().unwrap().to_string();
        assert!(msg.contains("f: internal error (panic): boom"), "{msg}");
    }

    #[test]
    fn kinds() {
        assert!(!valid_kind(AMD_COMGR_DATA_KIND_UNDEF));
        for k in [
            AMD_COMGR_DATA_KIND_SOURCE,
            AMD_COMGR_DATA_KIND_EXECUTABLE,
            AMD_COMGR_DATA_KIND_BYTES,
            AMD_COMGR_DATA_KIND_FATBIN,
            AMD_COMGR_DATA_KIND_SPIRV,
        ] {
            assert!(valid_kind(k), "{k:#x}");
        }
        for k in [0xa, 0xf, 0x16, u32::MAX] {
            assert!(!valid_kind(k), "{k:#x}");
        }
    }
}
