//! corpus/broken/gfx1250_bad_instruction.hsaco is the deterministic "does not translate" input
//! of the C API, COMGR shim and CLI tests: gfx1250 saxpy with its first instruction replaced by
//! 0xffffffff, which is no gfx1250 instruction. This test rebuilds it and requires the checked-in
//! file to be the same (regenerate with `HX_BLESS=1 cargo test -p hx-tests --test broken_fixture`).

#[test]
fn broken_fixture_is_saxpy_with_one_bad_word() {
    let dir = hx_corpus::corpus_dir();
    let mut bytes = std::fs::read(dir.join("gfx1250/saxpy.hsaco")).unwrap();
    let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
    let at = co.kernel("saxpy").unwrap().code_offset as usize;
    bytes[at..at + 4].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    let path = dir.join("broken/gfx1250_bad_instruction.hsaco");
    if std::env::var_os("HX_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "regenerate with HX_BLESS=1");
    let e = hotswap::translate(&bytes, &hotswap::Options::default()).unwrap_err().to_string();
    assert!(e.contains("kernel saxpy, offset 0x1800") && e.contains("cannot decode"), "{e}");
}
