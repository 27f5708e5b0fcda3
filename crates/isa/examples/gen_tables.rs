//! Runs the table generator (crates/isa-gen) (the same code `cargo xtask tables` runs):
//! `cargo run -p hx-isa --example gen_tables [OUT_DIR]` (default crates/isa/src/tables).
use hx_isa_gen as isa_tables;

fn main() -> anyhow::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tables"));
    isa_tables::generate(&out)
}
