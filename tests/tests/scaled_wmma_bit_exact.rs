//! Triton's `tl.dot_scaled` kernels (scaled WMMA, one or two element widths) translated for
//! gfx942 (the f64 MFMA path) and gfx950 (its scaled 16x16x128 MFMA): on the suite's own inputs,
//! every output of the translation equals the gfx1250 original's, bit for bit. (The suite's
//! references allow a relative 1e-5 for fp8 data, which a translation summing in another order
//! could meet; this test does not: the emulator sums these WMMAs in the order of k, and so must
//! the translation.)

#[test]
fn dot_scaled_translations_equal_the_original_bit_for_bit() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for obj in hx_corpus::compiled_suite("triton").unwrap() {
        // (The _n16 objects' gfx1250 builds are the others', only their gfx950 natives differ.)
        if !obj.name.starts_with("dot_scaled") || obj.name.contains("_n16") || !obj.targets.iter().any(|t| t == "gfx1250") {
            continue;
        }
        let source = std::fs::read(obj.object_path("gfx1250")).unwrap();
        let launch = &obj.launches[0];
        let (want, _) = hx_tests::run_compiled_launch(&obj, "gfx1250", launch).unwrap_or_else(|e| panic!("{}: {e}", obj.name));
        for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
            let t = hotswap::translate(&source, &hotswap::Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{}@{target}: {e}", obj.name));
            let (got, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("{target}/{}", obj.id()), launch, 0).unwrap();
            for (i, (w, g)) in want.iter().zip(got.iter()).enumerate() {
                let (w, g) = (w.bytes(), g.bytes());
                let differ = w.chunks(4).zip(g.chunks(4)).filter(|(x, y)| x != y).count();
                if differ > 0 || w.len() != g.len() {
                    problems.push(format!("{}@{target}: argument {i}: {differ} dwords differ", obj.name));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 18, "only {checked} translations checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
