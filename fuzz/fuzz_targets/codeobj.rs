//! The code-object and offload-bundle parsers on any bytes: every input is Ok or Err, never a
//! panic, an abort or unbounded work. What parses is written back and parsed again.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = hx_codeobj::CodeObject::parse(data) {
        for k in &co.kernels {
            let _ = co.kernel_code(k);
        }
        for f in &co.functions {
            let _ = co.function_code(f);
        }
        if let Some(md) = &co.metadata {
            // The metadata note round-trips through the model: what is written parses, and
            // writing that again gives the same bytes.
            let bytes = md.to_msgpack();
            let again = hx_codeobj::metadata::Metadata::parse(&bytes, 0).expect("written metadata parses");
            assert_eq!(again.to_msgpack(), bytes);
        }
    }
    if hx_codeobj::bundle::is_bundle(data) {
        if let Ok(b) = hx_codeobj::bundle::Bundle::parse(data) {
            if let Ok(out) = b.write() {
                let again = hx_codeobj::bundle::Bundle::parse(&out).expect("a written bundle parses");
                assert_eq!(again.entries.len(), b.entries.len());
            }
        }
    }
});
