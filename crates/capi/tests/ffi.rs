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
fn gfx1250_saxpy_translates_and_a_broken_object_reports_the_facade_error() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let mut out = empty();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), std::ptr::null(), &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    let bytes = unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec();
    assert_eq!(bytes, hotswap::translate(&input, &hotswap::Options::default()).unwrap().bytes);
    assert_eq!(hotswap::codeobj::CodeObject::parse(&bytes).unwrap().processor(), Some("gfx942"));
    assert_eq!(last_error(), "");
    unsafe { hx_buffer_free(&mut out) };
    assert!(out.data.is_null() && out.len == 0);

    // gfx950 through the options.
    let mut o = defaults();
    o.target = HX_TARGET_GFX950;
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    let co = hotswap::codeobj::CodeObject::parse(unsafe { std::slice::from_raw_parts(out.data, out.len) }).unwrap();
    assert_eq!(co.processor(), Some("gfx950"));
    unsafe { hx_buffer_free(&mut out) };

    // The broken fixture (saxpy with an undecodable first word) does not translate: the facade's status and
    // message, no buffer.
    let input = corpus("broken/gfx1250_bad_instruction.hsaco");
    let e = hotswap::translate(&input, &hotswap::Options::default()).expect_err("the broken fixture must not translate");
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), std::ptr::null(), &mut out) };
    assert_eq!(s, status_of(&e));
    assert_ne!(s, hx_status::HX_STATUS_OK);
    assert_eq!(last_error(), e.to_string());
    assert!(last_error().contains("cannot decode"), "{}", last_error());
    assert!(out.data.is_null() && out.len == 0);
}

/// HX_FLAG_PAIR_GROUPS is `hotswap::Options::pair_groups`: the same bytes, with the dispatch
/// scale in the kernel's metadata.
#[test]
fn the_pair_groups_flag_pairs_one_wave_kernels() {
    let input = corpus("triton/gfx1250/vec_add_w1.hsaco");
    let mut o = defaults();
    o.flags = HX_FLAG_PAIR_GROUPS;
    let mut out = empty();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    let bytes = unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec();
    unsafe { hx_buffer_free(&mut out) };
    let want = hotswap::translate(&input, &hotswap::Options { pair_groups: true, ..Default::default() }).unwrap().bytes;
    assert_eq!(bytes, want);
    let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.metadata.as_ref().unwrap().kernel("vec_add").unwrap().dispatch_scale(), 2);
}

#[test]
fn unknown_targets_and_bad_cache_dirs_are_refused() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let mut out = empty();
    for t in [0, 1250, 9420, u32::MAX] {
        let mut o = defaults();
        o.target = t;
        let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
        assert_eq!(s, hx_status::HX_STATUS_INVALID_ARGUMENT, "target {t}");
        assert!(last_error().contains(&format!("target {t}")), "{}", last_error());
        assert!(out.data.is_null());
    }
    // A cache directory that is not UTF-8 is an argument error.
    let bad = CString::new(vec![b'/', 0xff, b'x']).unwrap();
    let mut o = defaults();
    o.cache_dir = bad.as_ptr();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_INVALID_ARGUMENT);
    assert!(last_error().contains("UTF-8"), "{}", last_error());
    // A cache directory that cannot be created (under a regular file) does not fail the
    // translation: the result is returned, just not stored.
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-capi-not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let under = CString::new(file.join("cache").to_str().unwrap()).unwrap();
    o.cache_dir = under.as_ptr();
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
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
fn prewarm_takes_the_options_of_a_translation() {
    assert_eq!(unsafe { hx_prewarm(std::ptr::null()) }, hx_status::HX_STATUS_OK, "{}", last_error());
    assert_eq!(last_error(), "");
    let mut o = defaults();
    o.target = HX_TARGET_GFX950;
    assert_eq!(unsafe { hx_prewarm(&o) }, hx_status::HX_STATUS_OK, "{}", last_error());
    // gfx1250 is the source, not a target.
    o.target = 1250;
    assert_eq!(unsafe { hx_prewarm(&o) }, hx_status::HX_STATUS_INVALID_ARGUMENT);
    assert!(last_error().starts_with("hx_prewarm: hx_options.target 1250"), "{}", last_error());
}

/// `hx_translate_with_report`: lenient mode on the broken fixture (saxpy with an undecodable first
/// word) writes a code object whose saxpy traps, and a JSON report naming the refusal; strict
/// mode fails with no buffers; a NULL report pointer is an invalid argument.
#[test]
fn the_report_comes_with_the_bytes_and_lenient_mode_keeps_refused_kernels() {
    let input = corpus("broken/gfx1250_bad_instruction.hsaco");
    let src = hotswap::codeobj::CodeObject::parse(&input).unwrap();
    let saxpy = src.kernel("saxpy").unwrap();
    let mut o = defaults();
    o.flags = HX_FLAG_LENIENT;
    let (mut out, mut report) = (empty(), empty());
    let s = unsafe { hx_translate_with_report(input.as_ptr(), input.len(), &o, &mut out, &mut report) };
    assert_eq!(s, hx_status::HX_STATUS_OK, "{}", last_error());
    let json = unsafe { std::slice::from_raw_parts(report.data, report.len) };
    assert_eq!(json.last(), Some(&0), "NUL-terminated");
    let json: serde_json::Value = serde_json::from_slice(&json[..json.len() - 1]).unwrap();
    assert_eq!(json["totals"]["refused"], 1);
    let k = &json["kernels"][0];
    assert_eq!(k["name"], "saxpy");
    assert_eq!(k["status"], "refused");
    assert_eq!(k["refusal"]["offset"], saxpy.code_addr, "the undecodable first word");
    let bytes = unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec();
    let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.kernel("saxpy").unwrap().descriptor.kernarg_size, saxpy.descriptor.kernarg_size);
    unsafe { hx_buffer_free(&mut out) };
    unsafe { hx_buffer_free(&mut report) };
    assert!(report.data.is_null());

    let s = unsafe { hx_translate_with_report(input.as_ptr(), input.len(), std::ptr::null(), &mut out, &mut report) };
    assert_eq!(s, hx_status::HX_STATUS_UNSUPPORTED, "strict: {}", last_error());
    assert!(out.data.is_null() && report.data.is_null());
    let s = unsafe { hx_translate_with_report(input.as_ptr(), input.len(), &o, &mut out, std::ptr::null_mut()) };
    assert_eq!(s, hx_status::HX_STATUS_INVALID_ARGUMENT);
    assert!(last_error().contains("report is NULL"), "{}", last_error());
}
