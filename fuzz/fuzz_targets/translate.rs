//! Whole translation (parse, decode, raise, LLVM lower, relink) of a mutated code object, seeded
//! from the gfx1250 corpus (`cargo xtask fuzz translate` passes corpus/gfx1250 as seeds). Any
//! input is a translation or an error: a panic, an LLVM abort or a hang is a finding. What
//! translates must parse as a gfx942 code object with the same kernels.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Small limits keep one execution short: the fuzzer looks for crashes, not for big kernels.
    let limits = hotswap::limits::Limits { max_input_bytes: 1 << 20, max_kernels: 16, max_kernel_instructions: 4096, memory_budget_bytes: 1 << 30 };
    let options = hotswap::Options { limits, ..hotswap::Options::default() };
    if let Ok(t) = hotswap::translate(data, &options) {
        if !hx_codeobj::bundle::is_bundle(data) {
            let out = hx_codeobj::CodeObject::parse(&t.bytes).expect("a translation parses");
            assert_eq!(out.processor(), Some("gfx942"));
            let src = hx_codeobj::CodeObject::parse(data).expect("the source parsed once");
            for k in &src.kernels {
                assert!(out.kernel(&k.name).is_some(), "kernel {} lost", k.name);
            }
        }
    }
});
