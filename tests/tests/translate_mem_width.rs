//! Wide global accesses stay wide: a gfx1250 global_load/store of 64 or 128 bits is one access
//! of that width on gfx942/gfx950 (dwordx2/dwordx4), not dwords the backend then merges back,
//! which left some as dwordx2 pairs. Checked on the corpus kernels with such accesses, against
//! the counts in their gfx1250 originals.

use hotswap::translate::{translate_code_object_to, Output};
use hotswap::{GpuTarget, Options};

/// How many instructions of each mnemonic in `names` the gfx1250 object's kernels hold.
fn source_counts(bytes: &[u8], names: &[&str]) -> Vec<usize> {
    let co = hotswap::codeobj::CodeObject::parse(bytes).unwrap();
    let mut counts = vec![0; names.len()];
    for k in &co.kernels {
        let insts = hotswap::isa::decode_all(hotswap::isa::Target::Gfx1250, co.kernel_code(k)).unwrap();
        for i in insts {
            if let Some(j) = names.iter().position(|n| *n == i.mnemonic()) {
                counts[j] += 1;
            }
        }
    }
    counts
}

#[test]
fn sixty_four_and_128_bit_global_accesses_keep_their_width() {
    for name in ["int64_math", "pk_f32", "f64_math"] {
        let source = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{name}.hsaco"))).unwrap();
        let [loads128, stores128, loads64, stores64] = source_counts(&source, &["global_load_b128", "global_store_b128", "global_load_b64", "global_store_b64"])[..] else { unreachable!() };
        assert!(loads128 + stores128 + loads64 + stores64 > 0, "{name} has no wide accesses");
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let asm = translate_code_object_to(&source, &Options { target, ..Default::default() }, Output::Assembly).unwrap();
            let asm = String::from_utf8(asm).unwrap();
            let count = |m: &str| asm.lines().filter(|l| l.split_whitespace().next() == Some(m)).count();
            assert_eq!(count("global_load_dwordx4"), loads128, "{name} for {target}:\n{asm}");
            assert_eq!(count("global_store_dwordx4"), stores128, "{name} for {target}:\n{asm}");
            assert_eq!(count("global_load_dwordx2"), loads64, "{name} for {target}:\n{asm}");
            assert_eq!(count("global_store_dwordx2"), stores64, "{name} for {target}:\n{asm}");
        }
    }
}
