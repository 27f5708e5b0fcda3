//! Issue 29 through the C API: every limit refuses with HX_STATUS_OUT_OF_RESOURCES before the
//! work, naming the limit; a 1M-instruction object under a 700 MB address-space limit is a
//! refusal, not SIGABRT; metadata that lists a kernel twice or has an impossible work-group size
//! is HX_STATUS_BAD_INPUT, not INTERNAL; a caller of the first, smaller `hx_options` still works.

use hotswap_capi::*;
use std::ffi::CStr;
use std::path::PathBuf;

fn last_error() -> String {
    unsafe { CStr::from_ptr(hx_last_error()) }.to_str().unwrap().to_string()
}

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)).unwrap()
}

fn defaults() -> hx_options {
    let mut o = std::mem::MaybeUninit::<hx_options>::uninit();
    assert_eq!(unsafe { hx_options_init(o.as_mut_ptr()) }, hx_status::HX_STATUS_OK);
    unsafe { o.assume_init() }
}

/// Translates `input`; returns the status and the error message (the buffer is freed).
fn translate(input: &[u8], o: Option<&hx_options>) -> (hx_status, String) {
    let mut out = hx_buffer { data: std::ptr::null_mut(), len: 0 };
    let p = o.map_or(std::ptr::null(), |o| o as *const hx_options);
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), p, &mut out) };
    let msg = last_error();
    if s == hx_status::HX_STATUS_OK {
        assert!(!out.data.is_null());
    } else {
        assert!(out.data.is_null() && out.len == 0, "no buffer with status {s:?}");
    }
    unsafe { hx_buffer_free(&mut out) };
    (s, msg)
}

/// A gfx1250 relocatable object: one kernel `k` whose body is `asm` (inline assembly) then a store.
fn relocatable(asm: &str) -> Vec<u8> {
    let ir = format!(
        "define amdgpu_kernel void @k(ptr addrspace(1) %out) #0 {{
  call void asm sideeffect \"{asm}\", \"\"()
  store i32 1, ptr addrspace(1) %out, align 4
  ret void
}}
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,64\" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}
"
    );
    hx_llvm::compile_ir(&ir, "limits", hx_llvm::GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap()
}

/// A gfx1250 code object of one kernel with `nops` s_nop instructions (4 bytes each).
fn nop_object(nops: usize) -> Vec<u8> {
    hx_relink::link(&relocatable(&format!(".rept {nops}\\0As_nop 0\\0A.endr"))).unwrap()
}

/// A gfx1250 code object whose metadata is the compile's, changed by `edit`.
fn object_with_metadata(edit: impl FnOnce(&mut hotswap::codeobj::metadata::Metadata)) -> Vec<u8> {
    let rel = relocatable("s_nop 0");
    let mut md = hotswap::codeobj::CodeObject::parse(&rel).unwrap().metadata.unwrap();
    edit(&mut md);
    let opts = hx_relink::LinkOptions { e_flags_override: None, metadata: Some(md.to_msgpack()) };
    hx_relink::link_objects(&[&rel], &opts).unwrap()
}

#[test]
fn each_limit_refuses_with_out_of_resources_naming_it() {
    let saxpy = corpus("gfx1250/saxpy.hsaco");
    assert_eq!(translate(&saxpy, None).0, hx_status::HX_STATUS_OK, "the defaults translate saxpy");

    let mut o = defaults();
    o.max_input_bytes = 100;
    let (s, m) = translate(&saxpy, Some(&o));
    assert_eq!(s, hx_status::HX_STATUS_OUT_OF_RESOURCES, "{m}");
    assert!(m.contains("input size limit") && m.contains("HSA_HOTSWAP_MAX_INPUT_BYTES"), "{m}");

    let int_div = corpus("gfx1250/int_div.hsaco");
    let mut o = defaults();
    o.max_kernels = 1;
    let (s, m) = translate(&int_div, Some(&o));
    assert_eq!(s, hx_status::HX_STATUS_OUT_OF_RESOURCES, "{m}");
    assert!(m.contains("2 kernels") && m.contains("HSA_HOTSWAP_MAX_KERNELS"), "{m}");

    let mut o = defaults();
    o.max_kernel_instructions = 5;
    let (s, m) = translate(&saxpy, Some(&o));
    assert_eq!(s, hx_status::HX_STATUS_OUT_OF_RESOURCES, "{m}");
    assert!(m.contains("kernel ") && m.contains("instructions per kernel"), "{m}");

    let mut o = defaults();
    o.memory_budget_bytes = 1 << 20;
    let (s, m) = translate(&saxpy, Some(&o));
    assert_eq!(s, hx_status::HX_STATUS_OUT_OF_RESOURCES, "{m}");
    assert!(m.contains("memory budget") && m.contains("HSA_HOTSWAP_MEMORY_BUDGET"), "{m}");

    // 0 is no limit.
    let mut o = defaults();
    (o.max_input_bytes, o.max_kernels, o.max_kernel_instructions, o.memory_budget_bytes) = (0, 0, 0, 0);
    assert_eq!(translate(&saxpy, Some(&o)).0, hx_status::HX_STATUS_OK);
    assert_eq!(unsafe { CStr::from_ptr(hx_status_name(8)) }.to_str().unwrap(), "HX_STATUS_OUT_OF_RESOURCES");
}

#[test]
fn options_init_fills_the_documented_defaults() {
    if hotswap::limits::ENV_ALL.iter().any(|v| std::env::var_os(v).is_some()) {
        eprintln!("skipped: a HSA_HOTSWAP_MAX_*/MEMORY_BUDGET variable is set in this environment");
        return;
    }
    let o = defaults();
    assert_eq!(o.max_input_bytes, 256 << 20);
    assert_eq!(o.max_kernels, 10_000);
    assert_eq!(o.max_kernel_instructions, 250_000);
    assert_eq!(o.memory_budget_bytes, 2 << 30);
}

#[test]
fn a_caller_of_the_first_smaller_options_struct_still_translates() {
    let saxpy = corpus("gfx1250/saxpy.hsaco");
    let mut o = defaults();
    o.struct_size = 24; // hx_options before the limits were added
    o.max_kernel_instructions = 1; // past the old struct's end: never read
    o.target = HX_TARGET_GFX950;
    let (s, m) = translate(&saxpy, Some(&o));
    assert_eq!(s, hx_status::HX_STATUS_OK, "{m}");
    o.struct_size = 23;
    assert_eq!(translate(&saxpy, Some(&o)).0, hx_status::HX_STATUS_INVALID_ARGUMENT);
}

#[test]
fn a_long_kernel_is_refused_after_counting_not_raised() {
    // 300,000 s_nop: over the default 250,000 instructions per kernel.
    let big = nop_object(300_000);
    let (s, m) = translate(&big, None);
    assert_eq!(s, hx_status::HX_STATUS_OUT_OF_RESOURCES, "{m}");
    assert!(m.contains("kernel k: 300") && m.contains("instructions per kernel"), "{m}");
}

/// The child half of [`a_million_nops_under_a_700_mb_address_space_is_a_refusal_not_an_abort`].
#[test]
fn address_space_child() {
    let Some(path) = std::env::var_os("HX_LIMITS_CHILD_INPUT") else { return };
    let input = std::fs::read(path).unwrap();
    let lim = libc::rlimit { rlim_cur: 700 << 20, rlim_max: 700 << 20 };
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) }, 0);
    let (s, m) = translate(&input, None);
    println!("CHILD-STATUS {s:?} {m}");
}

#[test]
fn a_million_nops_under_a_700_mb_address_space_is_a_refusal_not_an_abort() {
    // The case: a 4 MB object of 1M s_nop peaked at 1.1 GB and, under a 700 MB
    // address-space limit, ended the host with SIGABRT.
    let big = nop_object(1_000_000);
    assert!(big.len() > 4_000_000);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hx-capi-limits");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nops_1m.hsaco");
    std::fs::write(&path, &big).unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "address_space_child", "--nocapture", "--test-threads=1"])
        .env("HX_LIMITS_CHILD_INPUT", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the child died: {:?}\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("CHILD-STATUS HX_STATUS_OUT_OF_RESOURCES"), "{stdout}");
    assert!(stdout.contains("instructions per kernel"), "{stdout}");
}

#[test]
fn a_kernel_listed_twice_is_bad_input() {
    let bytes = object_with_metadata(|md| {
        let k = md.kernels[0].clone();
        md.kernels.push(k);
    });
    let (s, m) = translate(&bytes, None);
    assert_eq!(s, hx_status::HX_STATUS_BAD_INPUT, "{m}");
    assert!(m.contains("kernel k is listed twice"), "{m}");
}

#[test]
fn impossible_work_group_sizes_are_bad_input() {
    for (max, reqd, what) in [
        (Some(0), None, ".max_flat_workgroup_size 0"),
        (Some(u32::MAX as u64), None, ".max_flat_workgroup_size 4294967295"),
        (Some(1025), None, ".max_flat_workgroup_size 1025"),
        (None, Some([0, 1, 1]), ".reqd_workgroup_size [0, 1, 1]"),
        (None, Some([64, 64, 1]), ".reqd_workgroup_size [64, 64, 1]"),
        (Some(64), Some([128, 1, 1]), "more than .max_flat_workgroup_size 64"),
    ] {
        let bytes = object_with_metadata(|md| {
            md.kernels[0].max_flat_workgroup_size = max;
            md.kernels[0].reqd_workgroup_size = reqd;
        });
        let (s, m) = translate(&bytes, None);
        assert_eq!(s, hx_status::HX_STATUS_BAD_INPUT, "{what}: {m}");
        assert!(m.contains(what) && m.contains("kernel k"), "{what}: {m}");
    }
    // The unchanged compile's sizes translate (the edit, not the helper, makes the error).
    let ok = object_with_metadata(|md| md.kernels[0].max_flat_workgroup_size = Some(64));
    let (s, m) = translate(&ok, None);
    assert_eq!(s, hx_status::HX_STATUS_OK, "{m}");
}
