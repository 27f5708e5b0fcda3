//! The C API called in-process (the same functions the cdylib exports).

use hotswap_capi::*;
use std::ffi::{CStr, CString};
use std::path::PathBuf;

fn last_error() -> String {
    unsafe { CStr::from_ptr(hx_last_error()) }.to_str().unwrap().to_string()
}

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)).unwrap()
}

fn empty() -> hx_buffer {
    hx_buffer { data: std::ptr::null_mut(), len: 0 }
}

fn defaults() -> hx_options {
    let mut o = std::mem::MaybeUninit::<hx_options>::uninit();
    assert_eq!(unsafe { hx_options_init(o.as_mut_ptr()) }, hx_status::HX_STATUS_OK);
    unsafe { o.assume_init() }
}

#[test]
fn version_is_the_crate_version() {
    let v = unsafe { CStr::from_ptr(hx_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn gfx1250_object_reports_the_facade_error() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let mut out = empty();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), std::ptr::null(), &mut out) };
    match hotswap::translate(&input, &hotswap::Options::default()) {
        Ok(t) => {
            assert_eq!(s, hx_status::HX_STATUS_OK);
            assert_eq!(unsafe { std::slice::from_raw_parts(out.data, out.len) }, &t.bytes[..]);
            assert_eq!(last_error(), "");
        }
        Err(e) => {
            assert_eq!(s, status_of(&e));
            assert_eq!(last_error(), e.to_string());
            assert!(out.data.is_null() && out.len == 0);
        }
    }
    unsafe { hx_buffer_free(&mut out) };
}

#[test]
fn null_and_bad_arguments() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let mut out = empty();
    unsafe {
        assert_eq!(
            hx_translate(std::ptr::null(), 4, std::ptr::null(), &mut out),
            hx_status::HX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_error().contains("data is NULL"));
        assert_eq!(
            hx_translate(input.as_ptr(), input.len(), std::ptr::null(), std::ptr::null_mut()),
            hx_status::HX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(hx_translate(input.as_ptr(), 0, std::ptr::null(), &mut out), hx_status::HX_STATUS_INVALID_ARGUMENT);
        assert_eq!(
            hx_translate(input.as_ptr(), usize::MAX, std::ptr::null(), &mut out),
            hx_status::HX_STATUS_INVALID_ARGUMENT
        );
        let mut o = defaults();
        o.opt_level = 7;
        assert_eq!(hx_translate(input.as_ptr(), input.len(), &o, &mut out), hx_status::HX_STATUS_INVALID_ARGUMENT);
        assert!(last_error().contains("opt_level 7"));
        let mut o = defaults();
        o.struct_size = 8;
        assert_eq!(hx_translate(input.as_ptr(), input.len(), &o, &mut out), hx_status::HX_STATUS_INVALID_ARGUMENT);
        assert!(last_error().contains("struct_size"));
        assert_eq!(hx_options_init(std::ptr::null_mut()), hx_status::HX_STATUS_INVALID_ARGUMENT);
        hx_buffer_free(std::ptr::null_mut());
        hx_buffer_free(&mut out);
    }
}

#[test]
fn garbage_and_truncated_inputs_are_bad_input() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let mut out = empty();
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let mut cases: Vec<Vec<u8>> = vec![garbage, b"\x7fELF".to_vec(), vec![0; 64]];
    for cut in [16, 64, 200, input.len() / 2] {
        cases.push(input[..cut].to_vec());
    }
    for c in cases {
        let s = unsafe { hx_translate(c.as_ptr(), c.len(), std::ptr::null(), &mut out) };
        assert_ne!(s, hx_status::HX_STATUS_OK, "{} bytes", c.len());
        assert!(!last_error().is_empty());
    }
}

#[test]
fn error_messages_are_per_thread() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let input = input.clone();
            std::thread::spawn(move || {
                let mut out = empty();
                for _ in 0..5 {
                    if i % 2 == 0 {
                        let s = unsafe { hx_translate(std::ptr::null(), 1, std::ptr::null(), &mut out) };
                        assert_eq!(s, hx_status::HX_STATUS_INVALID_ARGUMENT);
                        assert!(last_error().contains("data is NULL"), "{}", last_error());
                    } else {
                        let s = unsafe { hx_translate(input.as_ptr(), input.len(), std::ptr::null(), &mut out) };
                        if s != hx_status::HX_STATUS_OK {
                            assert!(!last_error().contains("data is NULL"), "{}", last_error());
                        }
                        unsafe { hx_buffer_free(&mut out) };
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn cache_hit_is_served_without_translating() {
    // Plant a gfx942 object under the key of the gfx1250 input: the call returns it, which it can
    // only do without running the translator (which today fails for every gfx1250 input).
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-capi/cache-hit");
    let _ = std::fs::remove_dir_all(&dir);
    let input = corpus("gfx1250/saxpy.hsaco");
    let planted = corpus("gfx942/saxpy.hsaco");
    let cache = hx_cache::Cache::new(&dir, hx_cache::Mode::ReadWrite);
    cache.put(&cache_key(&input, &hotswap::Options::default()), &planted).unwrap();

    let cdir = CString::new(dir.to_str().unwrap()).unwrap();
    let mut o = defaults();
    o.cache_dir = cdir.as_ptr();
    let mut out = empty();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    assert_eq!(unsafe { std::slice::from_raw_parts(out.data, out.len) }, &planted[..]);
    unsafe { hx_buffer_free(&mut out) };

    // A hit that is not a code object for the target is dropped and the translator runs.
    cache.put(&cache_key(&input, &hotswap::Options::default()), b"not a code object").unwrap();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    let direct = hotswap::translate(&input, &hotswap::Options::default());
    match direct {
        Ok(_) => assert_eq!(s, hx_status::HX_STATUS_OK),
        Err(e) => assert_eq!(s, status_of(&e)),
    }
    unsafe { hx_buffer_free(&mut out) };
}
