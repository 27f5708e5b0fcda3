//! The checked-in seeds of the decoder fast path (crates/isa/src/tables/fast_*.rs) are what
//! `cargo xtask fast-tables` writes from the current rules and opcode tables.

#[test]
fn checked_in_fast_tables_are_fresh() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tables");
    let mut stale = Vec::new();
    for target in hx_isa::Target::ALL {
        let path = dir.join(format!("fast_{}.rs", target.cpu()));
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != hx_isa::fast_tables_source(target) {
            stale.push(target.cpu());
        }
    }
    assert!(stale.is_empty(), "fast tables out of date for {stale:?}: run `cargo xtask fast-tables`");
}
