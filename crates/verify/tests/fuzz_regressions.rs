//! Inputs the coverage-guided fuzzer (`cargo xtask fuzz emulate`) found, kept as regression tests.

use hx_codeobj::CodeObject;

/// Inputs `cargo xtask fuzz emulate` found (tests/fuzz_regressions_emu): every kernel runs in the
/// emulator under the fuzz target's budget to a result or an error, never a panic.
#[test]
fn emulator_findings_run_without_panicking() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions_emu");
    let options = hx_verify::RunOptions {
        grid: [1, 1, 1],
        block: None,
        dynamic_lds: 0,
        seed: 1,
        buffer_bytes: 4096,
        values: Vec::new(),
        limits: hx_verify::emu::Limits { max_wave_instructions: 20_000, ..hx_verify::emu::Limits::default() },
    };
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        n += 1;
        let Ok(co) = CodeObject::parse(&bytes) else { continue };
        for k in co.kernels.iter().take(4) {
            let _ = hx_verify::run(&bytes, &k.name, &options);
        }
    }
    assert!(n >= 1);
}
