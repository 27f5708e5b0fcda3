//! The C API entry point `hx_translate` on any bytes (seeded from the gfx1250 corpus), with
//! options from the input's length (target, optimisation level, lenient flag, a small input
//! limit): a status, never a crash.
//! An OK result is a buffer the library frees; any other status has a message and no buffer.
#![no_main]
use hotswap_capi::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = data;
    if input.is_empty() {
        return;
    }
    let sel = (input.len() % 32) as u8;
    let mut o = std::mem::MaybeUninit::<hx_options>::uninit();
    unsafe {
        assert_eq!(hx_options_init(o.as_mut_ptr()), hx_status::HX_STATUS_OK);
    }
    let mut o = unsafe { o.assume_init() };
    o.target = if sel & 1 == 0 { HX_TARGET_GFX942 } else { HX_TARGET_GFX950 };
    o.opt_level = ((sel >> 1) & 3) as u32;
    o.flags = if sel & 8 != 0 { HX_FLAG_LENIENT } else { 0 };
    o.max_kernel_instructions = 4096;
    if sel & 16 != 0 {
        o.max_input_bytes = 256;
    }
    let mut out = hx_buffer { data: std::ptr::null_mut(), len: 0 };
    let s = unsafe { hx_translate(input.as_ptr(), input.len(), &o, &mut out) };
    let msg = unsafe { std::ffi::CStr::from_ptr(hx_last_error()) }.to_bytes().len();
    if s == hx_status::HX_STATUS_OK {
        assert!(!out.data.is_null() && out.len > 0);
    } else {
        assert!(out.data.is_null() && out.len == 0 && msg > 0, "status {s:?} without a message or with a buffer");
        assert_ne!(s, hx_status::HX_STATUS_INTERNAL, "an internal failure on fuzzed input");
    }
    unsafe { hx_buffer_free(&mut out) };
});
