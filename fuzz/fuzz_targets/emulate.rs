//! The emulator running a mutated kernel under its instruction budget, seeded from the corpus
//! (gfx1250, gfx942 and gfx950 objects). Every kernel of what parses runs one work-group on
//! seeded buffers; the budget bounds the work (a runaway loop is an error, not a hang).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(co) = hx_codeobj::CodeObject::parse(data) else { return };
    let options = hx_verify::RunOptions {
        grid: [1, 1, 1],
        block: None,
        dynamic_lds: 0,
        seed: 1,
        buffer_bytes: 4096,
        values: Vec::new(),
        limits: hx_emu::Limits { max_wave_instructions: 20_000, ..hx_emu::Limits::default() },
    };
    for k in co.kernels.iter().take(4) {
        let _ = hx_verify::run(data, &k.name, &options);
    }
});
