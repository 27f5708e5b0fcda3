//! Inputs the coverage-guided fuzzer (`cargo xtask fuzz translate`) found, kept as regression
//! tests: each translates to an error, or to a code object that parses, is for the target and
//! has every source kernel (the property the fuzz target checks).

use hotswap::codeobj::CodeObject;

fn fuzz_options() -> hotswap::Options {
    // The fuzz target's options (fuzz/fuzz_targets/translate.rs).
    let limits = hotswap::limits::Limits { max_input_bytes: 1 << 20, max_kernels: 16, max_kernel_instructions: 4096, memory_budget_bytes: 1 << 30 };
    hotswap::Options { limits, ..hotswap::Options::default() }
}

#[test]
fn fuzz_findings_translate_to_errors_or_loadable_objects() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        n += 1;
        let Ok(t) = hotswap::translate(&bytes, &fuzz_options()) else { continue };
        let out = CodeObject::parse(&t.bytes).unwrap_or_else(|e| panic!("{}: the translation does not parse: {e}", path.display()));
        assert_eq!(out.processor(), Some("gfx942"), "{}", path.display());
        for k in &CodeObject::parse(&bytes).unwrap().kernels {
            assert!(out.kernel(&k.name).is_some(), "{}: kernel {} lost", path.display(), k.name);
        }
    }
    assert!(n >= 1);
}

/// The first finding: metadata naming kernel `convert_f49` with descriptor symbol
/// `convert_f32.kd` translated into an object whose metadata still named `convert_f32.kd`,
/// which it does not have. The output's metadata now names the output's own symbol.
#[test]
fn a_kernel_whose_symbol_is_not_its_name_dot_kd_translates_to_a_loadable_object() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/translate-kernel-symbol-renamed.bin");
    let bytes = std::fs::read(path).unwrap();
    let src = CodeObject::parse(&bytes).unwrap();
    let md = src.metadata.as_ref().unwrap();
    assert!(md.kernels.iter().any(|k| k.symbol != format!("{}.kd", k.name)), "the input still has the renamed kernel");
    let t = hotswap::translate(&bytes, &fuzz_options()).unwrap();
    let out = CodeObject::parse(&t.bytes).unwrap();
    for k in &out.metadata.as_ref().unwrap().kernels {
        assert_eq!(k.symbol, format!("{}.kd", k.name));
    }
}
