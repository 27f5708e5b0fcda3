//! hotswap-comgr: a COMGR drop-in. The cdylib `libhotswap_comgr.so` carries the SONAME
//! `libamd_comgr.so.3` and is installed under that name (`cargo xtask install`), where
//! HotSwap-patched ROCR runtimes load it as COMGR. It exports COMGR's data-object API (this file)
//! and the HotSwap entry points of official COMGR and its forks, with their layouts, statuses and
//! symbol versions ([`abi`]); the translation is hotswap-xlate's ([`transpile`]). See README.md
//! for what is and is not provided.
//!
//! Every entry point catches panics (a panic is `AMD_COMGR_STATUS_ERROR`), checks every pointer and
//! handle (a bad one is `AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT`), and is safe to call from many
//! threads at once, on the same or different objects.

#![allow(non_camel_case_types, clippy::missing_safety_doc)]

pub mod abi;
pub mod handles;
pub mod isa;
pub mod prewarm;
pub mod transpile;

use handles::{DataObject, Table};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
pub use abi::*;
pub use transpile::amd_comgr_status_t::{self, *};
use transpile::Report;

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

pub(crate) static DATA: Table<DataObject> = Table::new();
pub(crate) static RESULTS: Table<Report> = Table::new();

/// Live data objects and results (for leak checks in tests).
pub fn live_objects() -> (usize, usize) {
    (DATA.len(), RESULTS.len())
}

/// The process environment, read once at first use (a runtime sets it before loading code).
pub fn process_env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| env_from(|k| std::env::var(k).ok()))
}

/// The environment as the runtimes that read it themselves (R1, R2: family A) spell a flag that
/// is off: besides the project's empty, `0`, `false`, `no`, `off`, also `n` and `f` (any case).
/// Only the on/off variables are read this way.
pub fn env_from(lookup: impl Fn(&str) -> Option<String>) -> Env {
    use hx_cache::env::{CACHE_DISABLE, CACHE_READONLY, DISABLE, STRICT};
    Env::from_lookup(|k| {
        let v = lookup(k)?;
        let flag = [DISABLE, STRICT, CACHE_DISABLE, CACHE_READONLY].contains(&k);
        Some(if flag && matches!(v.trim().to_ascii_lowercase().as_str(), "n" | "f") { "0".to_string() } else { v })
    })
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

pub(crate) fn fail(status: amd_comgr_status_t, msg: impl Into<String>) -> amd_comgr_status_t {
    let msg = msg.into();
    if process_env().verbose >= 2 {
        eprintln!("hotswap: {msg}");
    }
    set_last_error(&msg);
    status
}

pub(crate) fn invalid(msg: impl Into<String>) -> amd_comgr_status_t {
    fail(AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, msg)
}

pub(crate) fn guard(name: &str, body: impl FnOnce() -> amd_comgr_status_t) -> amd_comgr_status_t {
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
pub(crate) unsafe fn c_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// Copies `s` plus a NUL into `out` COMGR-style: `out` NULL sets `*size` to the length with the
/// NUL; otherwise the first `*size` bytes are copied.
pub(crate) unsafe fn copy_string(s: &str, size: *mut usize, out: *mut c_char) {
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
#[export_name = "hotswap_comgr_impl_amd_comgr_create_data"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_release_data"]
pub unsafe extern "C" fn amd_comgr_release_data(data: amd_comgr_data_t) -> amd_comgr_status_t {
    guard("amd_comgr_release_data", || match DATA.remove(data.handle) {
        Some(_) => AMD_COMGR_STATUS_SUCCESS,
        None => invalid(format!("amd_comgr_release_data: {:#x} is not a live data object", data.handle)),
    })
}

pub(crate) fn data_object(data: amd_comgr_data_t, f: &str) -> Result<std::sync::Arc<DataObject>, amd_comgr_status_t> {
    DATA.get(data.handle).ok_or_else(|| invalid(format!("{f}: {:#x} is not a live data object", data.handle)))
}

/// Gets the kind of a data object.
#[export_name = "hotswap_comgr_impl_amd_comgr_get_data_kind"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_set_data"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_get_data"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_set_data_name"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_get_data_name"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_get_data_isa_name"]
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
#[export_name = "hotswap_comgr_impl_amd_comgr_status_string"]
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
