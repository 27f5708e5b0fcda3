//! include/hotswap.h must be exactly what cbindgen generates from src/lib.rs, so the header can
//! never drift from the code. `HX_BLESS=1 cargo test -p hotswap-capi --test header` rewrites it.

use std::path::PathBuf;

#[test]
fn header_matches_cbindgen() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = crate_dir.join("include/hotswap.h");
    if std::env::var_os("HX_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} differs from cbindgen's output; run `HX_BLESS=1 cargo test -p hotswap-capi --test header`\n--- generated ---\n{generated}",
        path.display()
    );
}
