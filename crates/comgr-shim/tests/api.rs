//! The shim's entry points called in-process, and the translation logic under explicit
//! environments (maps, never the process environment).

use hotswap_comgr::transpile::{transpile, LookupStatus, Request, WriteStatus};
use hotswap_comgr::*;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::path::PathBuf;

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)).unwrap()
}

fn env(pairs: &[(&str, &str)]) -> Env {
    let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Env::from_map(&m)
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-comgr-api").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

const SRC: &str = "amdgcn-amd-amdhsa--gfx1250";
const TGT: &str = "amdgcn-amd-amdhsa--gfx942";

fn last_error() -> String {
    unsafe { CStr::from_ptr(hotswap_comgr_last_error()) }.to_string_lossy().to_string()
}

fn new_data(kind: u32, bytes: &[u8]) -> amd_comgr_data_t {
    let mut d = amd_comgr_data_t::default();
    unsafe {
        assert_eq!(amd_comgr_create_data(kind, &mut d), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(amd_comgr_set_data(d, bytes.len(), bytes.as_ptr() as *const _), AMD_COMGR_STATUS_SUCCESS);
    }
    d
}

#[test]
fn data_objects() {
    let bytes = corpus("gfx942/saxpy.hsaco");
    let d = new_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &bytes);
    unsafe {
        let mut size = 0usize;
        assert_eq!(amd_comgr_get_data(d, &mut size, std::ptr::null_mut()), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(size, bytes.len());
        let mut buf = vec![0u8; size];
        assert_eq!(amd_comgr_get_data(d, &mut size, buf.as_mut_ptr() as *mut _), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(buf, bytes);
        // A smaller buffer gets the first *size bytes.
        let mut small = [0u8; 4];
        let mut n = 4usize;
        assert_eq!(amd_comgr_get_data(d, &mut n, small.as_mut_ptr() as *mut _), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(&small, b"\x7fELF");

        let mut isa_len = 0usize;
        assert_eq!(amd_comgr_get_data_isa_name(d, &mut isa_len, std::ptr::null_mut()), AMD_COMGR_STATUS_SUCCESS);
        let mut isa = vec![0u8; isa_len];
        assert_eq!(amd_comgr_get_data_isa_name(d, &mut isa_len, isa.as_mut_ptr() as *mut _), AMD_COMGR_STATUS_SUCCESS);
        let isa = CStr::from_bytes_with_nul(&isa).unwrap().to_str().unwrap().to_string();
        assert_eq!(isa, "amdgcn-amd-amdhsa--gfx942");

        let mut kind = 0u32;
        assert_eq!(amd_comgr_get_data_kind(d, &mut kind), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(kind, AMD_COMGR_DATA_KIND_EXECUTABLE);

        let name = CString::new("saxpy.hsaco").unwrap();
        assert_eq!(amd_comgr_set_data_name(d, name.as_ptr()), AMD_COMGR_STATUS_SUCCESS);
        let mut nlen = 0usize;
        assert_eq!(amd_comgr_get_data_name(d, &mut nlen, std::ptr::null_mut()), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(nlen, "saxpy.hsaco".len() + 1);

        let mut s: *const std::ffi::c_char = std::ptr::null();
        assert_eq!(amd_comgr_status_string(2, &mut s), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(CStr::from_ptr(s).to_str().unwrap(), "INVALID_ARGUMENT");
        assert_eq!(amd_comgr_status_string(9, &mut s), AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);

        assert_eq!(amd_comgr_release_data(d), AMD_COMGR_STATUS_SUCCESS);
        assert_eq!(amd_comgr_release_data(d), AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains("not a live data object"));
        assert_eq!(amd_comgr_get_data(d, &mut size, std::ptr::null_mut()), AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
    }
}

#[test]
fn isa_name_needs_an_isa_kind_and_a_code_object() {
    let d = new_data(AMD_COMGR_DATA_KIND_BYTES, &corpus("gfx942/saxpy.hsaco"));
    let g = new_data(AMD_COMGR_DATA_KIND_EXECUTABLE, b"garbage garbage garbage");
    let mut n = 0usize;
    unsafe {
        assert_eq!(
            amd_comgr_get_data_isa_name(d, &mut n, std::ptr::null_mut()),
            AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            amd_comgr_get_data_isa_name(g, &mut n, std::ptr::null_mut()),
            AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT
        );
        amd_comgr_release_data(d);
        amd_comgr_release_data(g);
    }
}

#[test]
fn rewrite_reports_the_facade_error_and_leaves_output_alone() {
    let input = corpus("broken/gfx1250_bad_instruction.hsaco");
    let d = new_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &input);
    // Options with the cache disabled, so nothing is written under the real HOME.
    let opts = amd_comgr_hotswap_transpile_options_t {
        size: std::mem::size_of::<amd_comgr_hotswap_transpile_options_t>(),
        flags: AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE,
        cache_directory: std::ptr::null(),
        cache_skip_kernels: std::ptr::null(),
        hotswap_rules_path: std::ptr::null(),
    };
    let (src, tgt) = (CString::new(SRC).unwrap(), CString::new(TGT).unwrap());
    let mut out = amd_comgr_data_t { handle: 0x1234 };
    let mut res = amd_comgr_hotswap_transpile_result_t::default();
    let s =
        unsafe { amd_comgr_hotswap_transpile_with_options(d, src.as_ptr(), tgt.as_ptr(), &opts, &mut out, &mut res) };
    let direct = hotswap::translate(&input, &hotswap::Options::default());
    // The broken fixture (saxpy with an undecodable first word) does not translate: a deterministic
    // failure, reported with the facade's message.
    {
        let e = direct.as_ref().expect_err("the broken fixture does not translate");
        assert!(e.to_string().contains("cannot decode"), "{e}");
        {
            assert_eq!(s, AMD_COMGR_STATUS_ERROR);
            assert_eq!(out.handle, 0x1234, "output untouched on failure");
            assert!(last_error().contains(&e.to_string()), "{}", last_error());
            let mut n = 0usize;
            unsafe {
                assert_eq!(
                    amd_comgr_hotswap_transpile_result_get_string(
                        res,
                        AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_DETAIL,
                        &mut n,
                        std::ptr::null_mut()
                    ),
                    AMD_COMGR_STATUS_SUCCESS
                );
                let mut buf = vec![0u8; n];
                assert_eq!(
                    amd_comgr_hotswap_transpile_result_get_string(
                        res,
                        AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_FAIL_DETAIL,
                        &mut n,
                        buf.as_mut_ptr() as *mut _
                    ),
                    AMD_COMGR_STATUS_SUCCESS
                );
                assert_eq!(CStr::from_bytes_with_nul(&buf).unwrap().to_str().unwrap(), e.to_string());
                let mut ok = true;
                assert_eq!(
                    amd_comgr_hotswap_transpile_result_get_info(
                        res,
                        AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_SUCCESS,
                        &mut ok as *mut bool as *mut _
                    ),
                    AMD_COMGR_STATUS_SUCCESS
                );
                assert!(!ok);
                let mut total = 0i64;
                amd_comgr_hotswap_transpile_result_get_info(
                    res,
                    AMD_COMGR_HOTSWAP_TRANSPILE_RESULT_TOTAL_COUNT,
                    &mut total as *mut i64 as *mut _,
                );
                assert_eq!(total, 1);
            }
        }
    }
    unsafe {
        if s == AMD_COMGR_STATUS_SUCCESS {
            amd_comgr_release_data(out);
        }
        assert_eq!(amd_comgr_destroy_hotswap_transpile_result(res), AMD_COMGR_STATUS_SUCCESS);
        amd_comgr_release_data(d);
    }
}

#[test]
fn rules_files_and_unknown_flags_are_refused() {
    let d = new_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &corpus("gfx1250/saxpy.hsaco"));
    let (src, tgt, rules) = (CString::new(SRC).unwrap(), CString::new(TGT).unwrap(), CString::new("/x.json").unwrap());
    let mut opts = amd_comgr_hotswap_transpile_options_t {
        size: std::mem::size_of::<amd_comgr_hotswap_transpile_options_t>(),
        flags: 0,
        cache_directory: std::ptr::null(),
        cache_skip_kernels: std::ptr::null(),
        hotswap_rules_path: rules.as_ptr(),
    };
    let mut out = amd_comgr_data_t::default();
    unsafe {
        let s = amd_comgr_hotswap_transpile_with_options(
            d,
            src.as_ptr(),
            tgt.as_ptr(),
            &opts,
            &mut out,
            std::ptr::null_mut(),
        );
        assert_eq!(s, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains("rules files are not supported"));
        opts.hotswap_rules_path = std::ptr::null();
        opts.flags = 1 << 33;
        let s = amd_comgr_hotswap_transpile_with_options(
            d,
            src.as_ptr(),
            tgt.as_ptr(),
            &opts,
            &mut out,
            std::ptr::null_mut(),
        );
        assert_eq!(s, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
        assert!(last_error().contains("unknown bits"));
        amd_comgr_release_data(d);
    }
}

#[test]
fn environment_disable_and_bad_values_fail_closed() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_DISABLE", "1")]));
    assert_eq!(r.status, AMD_COMGR_STATUS_ERROR);
    assert!(r.message.contains("HSA_HOTSWAP_DISABLE"));
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_SOURCE_TARGET", "gfx1250:7")]));
    assert_eq!((r.status, r.fail_reason.as_str()), (AMD_COMGR_STATUS_ERROR, "bad_environment"));
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_ISA_OVERRIDE", "x86")]));
    assert_eq!((r.status, r.fail_reason.as_str()), (AMD_COMGR_STATUS_ERROR, "bad_environment"));
    // A source target other than the object's processor: the pair is not supported.
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_SOURCE_TARGET", "gfx1251:32")]));
    assert_eq!(r.status, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_SOURCE_TARGET", "gfx1250:64")]));
    assert_eq!(r.status, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
}

#[test]
fn isa_override_picks_the_physical_target() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let e = env(&[("HSA_HOTSWAP_ISA_OVERRIDE", "gfx950"), ("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    let r = transpile(&input, SRC, TGT, &Request::default(), &e);
    assert_eq!(r.target_gfx, "gfx950");
    let direct =
        hotswap::translate(&input, &hotswap::Options { target: hotswap::GpuTarget::Gfx950, ..Default::default() });
    assert!(direct.is_ok() && r.success, "{}", r.message);
    let out = hotswap::codeobj::CodeObject::parse(r.output.as_deref().unwrap()).unwrap();
    assert_eq!(out.processor(), Some("gfx950"), "the override, not the requested gfx942");
}

#[test]
fn mismatched_or_unsupported_pairs_are_invalid_arguments() {
    let gfx1250 = corpus("gfx1250/saxpy.hsaco");
    let gfx942 = corpus("gfx942/saxpy.hsaco");
    let e = env(&[("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    for (input, src, tgt) in [
        (&gfx942, SRC, TGT),                           // the object is not what source_isa_name says
        (&gfx942, "amdgcn-amd-amdhsa--gfx942", TGT),   // not a gfx1250 source
        (&gfx1250, SRC, "amdgcn-amd-amdhsa--gfx1100"), // not a gfx942/gfx950 target
        (&gfx1250, SRC, "amdgcn-amd-amdhsa--gfx1250"), // same ISA: nothing to do, not pretended
        (&gfx1250, "amdgcn-amd-amdpal--gfx1250", TGT), // wrong triple
        (&gfx1250, SRC, "gfx942:xnack"),               // malformed feature
    ] {
        let r = transpile(input, src, tgt, &Request::default(), &e);
        assert_eq!(r.status, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "{src} -> {tgt}: {}", r.message);
        assert!(!r.message.is_empty());
    }
    let r = transpile(&gfx1250[..100], SRC, TGT, &Request::default(), &e);
    assert_eq!(r.status, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
}

#[test]
fn cache_skip_list_bypasses_the_cache() {
    let dir = scratch("skip");
    let input = corpus("gfx1250/saxpy.hsaco");
    let e =
        env(&[("HSA_HOTSWAP_CACHE_DIR", dir.to_str().unwrap()), ("HSA_HOTSWAP_CACHE_SKIP_KERNELS", "other, saxpy")]);
    let r = transpile(&input, SRC, TGT, &Request::default(), &e);
    assert_eq!(r.lookup, LookupStatus::Bypassed, "{}", r.cache_detail);
    assert!(r.cache_detail.contains("saxpy"));
    assert!(!dir.exists(), "a bypassed cache is not touched");
    // Options override the environment's list.
    let req = Request { cache_skip_kernels: Some(vec!["other".into()]), cache_read_only: true, ..Default::default() };
    let r = transpile(&input, SRC, TGT, &req, &e);
    assert_ne!(r.lookup, LookupStatus::Bypassed);
    assert_ne!(r.write, WriteStatus::Success, "read-only");
    assert!(!dir.exists(), "read-only mode writes nothing");
}
