//! The gfx1250 decoder on any bytes: decode every 4-byte-aligned offset (the raiser and the
//! disassembler start anywhere), print what decodes. Never a panic; every length is 4 to 16.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let target = hx_isa::Target::Gfx1250;
    let mut at = 0;
    while at < data.len() {
        match hx_isa::decode(target, data, at) {
            Ok(i) => {
                assert!((4..=16).contains(&i.len) && i.len % 4 == 0, "length {} at {at}", i.len);
                let _ = i.text();
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        at += 4;
    }
});
