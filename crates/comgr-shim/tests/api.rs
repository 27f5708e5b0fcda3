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
        size: TRANSPILE_OPTIONS_V1_SIZE,
        cache_directory: std::ptr::null(),
        cache_skip_kernels: std::ptr::null(),
        hotswap_rules_path: std::ptr::null(),
        flags: AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_CACHE_DISABLE,
        kernel_name: std::ptr::null(),
        opt_level: 0,
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
fn options_that_cannot_be_are_invalid_arguments_without_a_result() {
    // Checked before any translation: each is INVALID_ARGUMENT naming the field, no result
    // object is made and the output is untouched.
    let d = new_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &corpus("gfx1250/saxpy.hsaco"));
    let (src, tgt) = (CString::new(SRC).unwrap(), CString::new(TGT).unwrap());
    let v1 = |size: usize, flags: u64, opt_level: u32| amd_comgr_hotswap_transpile_options_t {
        size,
        cache_directory: std::ptr::null(),
        cache_skip_kernels: std::ptr::null(),
        hotswap_rules_path: std::ptr::null(),
        flags,
        kernel_name: std::ptr::null(),
        opt_level,
    };
    let v2 = |version: u32, flags: u64, kernel: *const std::ffi::c_char, opt_level: u32| {
        amd_comgr_hotswap_transpile_options_v2_t {
            version,
            cache_directory: std::ptr::null(),
            cache_skip_kernels: std::ptr::null(),
            hotswap_rules_path: std::ptr::null(),
            flags,
            kernel_name: kernel,
            opt_level,
        }
    };
    let empty = CString::new("").unwrap();
    let mut out = amd_comgr_data_t { handle: 0x42 };
    let mut res = amd_comgr_hotswap_transpile_result_t { handle: 0x43 };
    let use_opt = AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_OPT_LEVEL;
    let use_kernel = AMD_COMGR_HOTSWAP_TRANSPILE_OPTIONS_USE_KERNEL_NAME;
    unsafe {
        for (o, says) in [(v1(39, 0, 0), "size is 39"), (v1(16, 0, 0), "size is 16"), (v1(56, use_opt, 4), "opt_level is 4")] {
            let s = amd_comgr_hotswap_transpile_with_options(d, src.as_ptr(), tgt.as_ptr(), &o, &mut out, &mut res);
            assert_eq!(s, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "{says}");
            assert!(last_error().contains(says), "{}", last_error());
        }
        for (o, says) in [
            (v2(1, 0, std::ptr::null(), 0), "version is 1"),
            (v2(3, 0, std::ptr::null(), 0), "version is 3"),
            (v2(2, use_kernel, std::ptr::null(), 0), "kernel_name is NULL or empty"),
            (v2(2, use_kernel, empty.as_ptr(), 0), "kernel_name is NULL or empty"),
            (v2(2, use_opt, std::ptr::null(), 4), "opt_level is 4"),
        ] {
            let s = amd_comgr_hotswap_transpile_with_options_v2(d, src.as_ptr(), tgt.as_ptr(), &o, &mut out, &mut res);
            assert_eq!(s, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "{says}");
            assert!(last_error().contains(says), "{}", last_error());
        }
        // Family A: NULL options, a size under 16, unknown flag bits.
        let small = amd_comgr_hotswap_rewrite_options_t { size: 8, flags: 0 };
        let unknown = amd_comgr_hotswap_rewrite_options_t { size: 16, flags: 0x4 };
        for (o, says) in [(std::ptr::null(), "options is NULL"), (&small as *const _, "size is 8"), (&unknown as *const _, "unknown bits 0x4")] {
            let s = amd_comgr_hotswap_rewrite_with_options(d, src.as_ptr(), tgt.as_ptr(), o, &mut out);
            assert_eq!(s, AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "{says}");
            assert!(last_error().contains(says), "{}", last_error());
        }
        assert_eq!((out.handle, res.handle), (0x42, 0x43), "output or result written for an invalid argument");
        let mut id: *const std::ffi::c_char = std::ptr::null();
        assert_eq!(amd_comgr_get_cache_identifier(std::ptr::null_mut()), AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(amd_comgr_get_cache_identifier(&mut id), AMD_COMGR_STATUS_SUCCESS);
        let id = CStr::from_ptr(id).to_str().unwrap();
        assert!(id.len() == 64 && id.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)), "{id}");
        amd_comgr_release_data(d);
    }
}

#[test]
fn cache_identifier_covers_translator_and_llvm() {
    // Recomputed from its parts: the same inputs give the library's identifier, and a change
    // of the LLVM version or the translator id gives another.
    let key = |translator: &str, llvm: &str| {
        hx_cache::KeyBuilder::new("hotswap-xlate/comgr-cache-identifier")
            .field("translator", translator)
            .field("comgr-shim", env!("CARGO_PKG_VERSION"))
            .field("llvm", llvm)
            .field("libllvm", hx_llvm_lib_name())
            .finish()
            .hex()
    };
    let llvm = hotswap_comgr::llvm_version();
    assert!(llvm.starts_with("22."), "{llvm}");
    let id = hotswap_comgr::cache_identifier().to_str().unwrap().to_string();
    assert_eq!(id, key(hotswap::TRANSLATOR_ID, &llvm));
    assert_ne!(id, key(hotswap::TRANSLATOR_ID, "22.1.999"));
    assert_ne!(id, key("hotswap-xlate/0.0.0/pipeline-0", &llvm));
}

/// The libLLVM build the library links, as its DT_NEEDED names it (libLLVM.so.22.1-rust-...);
/// the identifier takes the link name hx-llvm's build found (LLVM-22-rust-...).
fn hx_llvm_lib_name() -> String {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let lib = deps.join("libhotswap_comgr.so");
    let bytes = std::fs::read(&lib).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    let needed = elf.libraries.iter().find(|n| n.starts_with("libLLVM.so.")).unwrap().to_string();
    // libLLVM.so.22.1-rust-1.95.0-stable -> LLVM-22-rust-1.95.0-stable
    let rest = needed.trim_start_matches("libLLVM.so.");
    let (version, tail) = rest.split_once('-').unwrap();
    format!("LLVM-{}-{tail}", version.split('.').next().unwrap())
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
    // A source target other than the object's processor: the pair is not supported (ERROR, as
    // official COMGR answers a supported-looking pair it cannot do).
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_SOURCE_TARGET", "gfx1251:32")]));
    assert_eq!((r.status, r.fail_reason.as_str()), (AMD_COMGR_STATUS_ERROR, "unsupported_source"));
    let r = transpile(&input, SRC, TGT, &Request::default(), &env(&[("HSA_HOTSWAP_SOURCE_TARGET", "gfx1250:64")]));
    assert_eq!((r.status, r.fail_reason.as_str()), (AMD_COMGR_STATUS_ERROR, "unsupported_source"));
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
fn pair_statuses_by_family() {
    use hotswap_comgr::transpile::Family;
    let gfx1250 = corpus("gfx1250/saxpy.hsaco");
    let gfx942 = corpus("gfx942/saxpy.hsaco");
    let e = env(&[("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    let a = Request::default();
    let b = Request { family: Family::Transpile, ..Request::default() };
    use AMD_COMGR_STATUS_ERROR as ERROR;
    use AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT as INVALID;
    for (input, src, tgt, req, want, reason) in [
        // Names that do not parse: INVALID_ARGUMENT in both families.
        (&gfx1250[..], "amdgcn-amd-amdpal--gfx1250", TGT, &a, INVALID, "invalid_argument"),
        (&gfx1250[..], SRC, "gfx942:xnack", &b, INVALID, "invalid_argument"),
        // Bytes that are not a code object: A says INVALID_ARGUMENT, B says ERROR.
        (&gfx1250[..100], SRC, TGT, &a, INVALID, "invalid_argument"),
        (&gfx1250[..100], SRC, TGT, &b, ERROR, "not_code_object"),
        (&gfx1250[..64], SRC, TGT, &b, ERROR, "not_code_object"),
        // The object is not what source_isa_name says: A refuses, B goes by the object.
        (&gfx942[..], SRC, TGT, &a, ERROR, "source_mismatch"),
        (&gfx942[..], SRC, TGT, &b, ERROR, "unsupported_source"),
        // Pairs this library does not translate.
        (&gfx1250[..], SRC, "amdgcn-amd-amdhsa--gfx1100", &a, ERROR, "unsupported_target"),
        (&gfx1250[..], SRC, "amdgcn-amd-amdhsa--gfx1250", &b, ERROR, "unsupported_target"),
    ] {
        let r = transpile(input, src, tgt, req, &e);
        assert_eq!((r.status, r.fail_reason.as_str()), (want, reason), "{src} -> {tgt} ({:?}): {}", req.family, r.message);
        assert!(!r.message.is_empty() && r.output.is_none());
    }
    // Family A, same processor on both sides: nothing to translate, the same bytes back.
    for (input, isa) in [(&gfx1250, SRC), (&gfx942, "amdgcn-amd-amdhsa--gfx942")] {
        let r = transpile(input, isa, isa, &a, &e);
        assert_eq!(r.status, AMD_COMGR_STATUS_SUCCESS, "{}", r.message);
        assert_eq!(r.output.as_deref(), Some(&input[..]));
    }
    // Family B goes by the object's processor whatever source_isa_name says (gfx950 here).
    let r = transpile(&gfx1250, "amdgcn-amd-amdhsa--gfx950", TGT, &b, &e);
    assert_eq!(r.status, AMD_COMGR_STATUS_SUCCESS, "{}", r.message);
    assert_eq!(r.source_gfx, "gfx1250");
}

#[test]
fn per_kernel_requests() {
    let input = corpus("gfx1250/multi_kernel.hsaco");
    let e = env(&[("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    let req = |k: &str| Request {
        family: hotswap_comgr::transpile::Family::Transpile,
        kernel: Some(k.to_string()),
        ..Request::default()
    };
    let r = transpile(&input, SRC, TGT, &req("mk_scale.kd"), &e);
    assert_eq!(r.status, AMD_COMGR_STATUS_SUCCESS, "{}", r.message);
    assert_eq!((r.kernel_name.as_str(), r.kernels_translated, r.kernels_total), ("mk_scale", 1, 3));
    let co = hotswap::codeobj::CodeObject::parse(r.output.as_deref().unwrap()).unwrap();
    assert_eq!(co.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["mk_scale"]);
    let r = transpile(&input, SRC, TGT, &req("mk_nothing"), &e);
    assert_eq!((r.status, r.fail_reason.as_str()), (AMD_COMGR_STATUS_ERROR, "kernel_not_found"));
    assert!(r.message.contains("mk_fill") && r.message.contains("mk_nothing"), "{}", r.message);
}

/// `HSA_HOTSWAP_PAIR_GROUPS=1`: a per-kernel call of a one-wave kernel without LDS pairs its
/// work-groups and reports the scale factor (also when served from the cache, which keeps it
/// in the object's metadata); a whole-object call, which could not report a factor per kernel,
/// does not pair; without the variable nothing pairs.
#[test]
fn pair_groups_reports_the_dispatch_scale() {
    let input = corpus("triton/gfx1250/vec_add_w1.hsaco");
    let dir = scratch("pair_groups");
    let per_kernel = Request { family: hotswap_comgr::transpile::Family::Transpile, kernel: Some("vec_add".to_string()), ..Request::default() };
    let whole = Request { family: hotswap_comgr::transpile::Family::Transpile, ..Request::default() };
    let on = env(&[("HSA_HOTSWAP_PAIR_GROUPS", "1"), ("HSA_HOTSWAP_CACHE_DIR", dir.to_str().unwrap())]);
    let off = env(&[("HSA_HOTSWAP_CACHE_DISABLE", "1")]);
    let scale = |r: &hotswap_comgr::transpile::Report| {
        assert_eq!(r.status, AMD_COMGR_STATUS_SUCCESS, "{}", r.message);
        let co = hotswap::codeobj::CodeObject::parse(r.output.as_deref().unwrap()).unwrap();
        let in_metadata = co.metadata.as_ref().unwrap().kernel("vec_add").unwrap().dispatch_scale() as i64;
        assert_eq!(in_metadata, r.dispatch_scale);
        r.dispatch_scale
    };
    let first = transpile(&input, SRC, TGT, &per_kernel, &on);
    assert_eq!((scale(&first), first.cache_hit), (2, false));
    let again = transpile(&input, SRC, TGT, &per_kernel, &on);
    assert_eq!((scale(&again), again.cache_hit), (2, true));
    assert_eq!(scale(&transpile(&input, SRC, TGT, &whole, &on)), 1);
    assert_eq!(scale(&transpile(&input, SRC, TGT, &per_kernel, &off)), 1);
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

#[test]
fn flags_read_as_the_official_runtime_reads_them() {
    let get = |pairs: &'static [(&'static str, &'static str)]| {
        hotswap_comgr::env_from(move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string()))
    };
    for off in ["n", "F", "0", "off", "no", "false", ""] {
        let pairs: &'static [(&str, &str)] = Box::leak(Box::new([("HSA_HOTSWAP_DISABLE", off), ("HSA_HOTSWAP_CACHE_DISABLE", off)]));
        let e = get(pairs);
        assert!(!e.disable && !e.cache_disable, "{off:?} is off");
    }
    for on in ["1", "y", "yes", "on", "true"] {
        let pairs: &'static [(&str, &str)] = Box::leak(Box::new([("HSA_HOTSWAP_DISABLE", on)]));
        assert!(get(pairs).disable, "{on:?} is on");
    }
    // Not a flag: a cache directory named `f` stays `f`.
    let e = get(&[("HSA_HOTSWAP_CACHE_DIR", "f")]);
    assert_eq!(e.cache_dir, Some(PathBuf::from("f")));
}
