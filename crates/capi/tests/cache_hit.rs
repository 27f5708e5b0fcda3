//! Cache hits are served without invoking the translator (and so without LLVM): in its own test
//! binary, because it reads the process-wide translator call counter.

use hotswap_capi::*;
use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)).unwrap()
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(hx_last_error()) }.to_str().unwrap().to_string()
}

fn translate(input: &[u8], o: &hx_options) -> (hx_status, Vec<u8>) {
    let mut out = hx_buffer { data: std::ptr::null_mut(), len: 0 };
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), o, &mut out) };
    let bytes = if out.data.is_null() { Vec::new() } else { unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec() };
    unsafe { hx_buffer_free(&mut out) };
    (s, bytes)
}

#[test]
fn hits_do_not_call_the_translator_and_bad_hits_are_rebuilt() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-capi/cache-hit");
    let _ = std::fs::remove_dir_all(&dir);
    let cdir = CString::new(dir.to_str().unwrap()).unwrap();
    let mut o = std::mem::MaybeUninit::<hx_options>::uninit();
    assert_eq!(unsafe { hx_options_init(o.as_mut_ptr()) }, hx_status::HX_STATUS_OK);
    let mut o = unsafe { o.assume_init() };
    o.cache_dir = cdir.as_ptr();
    let input = corpus("gfx1250/saxpy.hsaco");
    let calls = || TRANSLATOR_CALLS.load(Ordering::SeqCst);

    // A miss runs the translator once and stores its output.
    let before = calls();
    let (s, fresh) = translate(&input, &o);
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    assert_eq!(calls(), before + 1);
    let key = cache_key(&input, &hotswap::Options::default());
    let cache = hx_cache::Cache::new(&dir, hx_cache::Mode::ReadWrite);
    assert_eq!(cache.get(&key), hx_cache::Lookup::Hit(fresh.clone()));

    // Hits: the stored bytes, and no translator call at all. With the entry replaced by the
    // native gfx942 build of saxpy (bytes the translator never makes), that is what comes back.
    for _ in 0..5 {
        assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh.clone()));
    }
    let planted = corpus("gfx942/saxpy.hsaco");
    assert_ne!(planted, fresh);
    cache.put(&key, &planted).unwrap();
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, planted.clone()));
    assert_eq!(calls(), before + 1, "a cache hit must not run the translator");

    // Read-only: hits are served, a corrupt entry is neither used nor touched.
    o.flags |= HX_FLAG_CACHE_READ_ONLY;
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, planted.clone()));
    assert_eq!(calls(), before + 1);
    let path = cache.entry_path(&key);
    let mut bad = std::fs::read(&path).unwrap();
    *bad.last_mut().unwrap() ^= 1;
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh.clone()));
    assert_eq!(calls(), before + 2);
    assert_eq!(std::fs::read(&path).unwrap(), bad, "read-only mode changed the entry");
    o.flags &= !HX_FLAG_CACHE_READ_ONLY;

    // Read-write: the corrupt entry is rebuilt, then hit.
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh.clone()));
    assert_eq!(calls(), before + 3);
    assert_eq!(cache.get(&key), hx_cache::Lookup::Hit(fresh.clone()));
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh.clone()));
    assert_eq!(calls(), before + 3);

    // An entry that passes the checksum but is no code object for the target is dropped and the
    // translator runs again.
    cache.put(&key, b"not a code object").unwrap();
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh.clone()));
    assert_eq!(calls(), before + 4);
    cache.put(&key, &corpus("gfx950/saxpy.hsaco")).unwrap();
    assert_eq!(translate(&input, &o), (hx_status::HX_STATUS_OK, fresh));
    assert_eq!(calls(), before + 5);
}
