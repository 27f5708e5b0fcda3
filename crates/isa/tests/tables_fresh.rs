//! The checked-in tables are what `cargo xtask tables` generates from the LLVM linked here:
//! regenerate into a temporary directory and require byte-identical files.
use hx_isa_gen as isa_tables;

#[test]
fn checked_in_tables_are_fresh() {
    let tmp = std::env::temp_dir().join(format!("hx-isa-tables-{}", std::process::id()));
    isa_tables::generate(&tmp).expect("table generation");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tables");
    let mut stale = Vec::new();
    for t in ["gfx1250", "gfx942", "gfx950", "sem_ids"] {
        let want = std::fs::read_to_string(tmp.join(format!("{t}.rs"))).expect("generated");
        let have = std::fs::read_to_string(dir.join(format!("{t}.rs"))).unwrap_or_default();
        if want != have {
            stale.push(t);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(stale.is_empty(), "tables out of date for {stale:?}: run `cargo xtask tables` (or `cargo run -p hx-isa --example gen_tables`)");
}
