//! The checked-in corpus is exactly what `cargo xtask corpus` builds from corpus/kernels.

#[test]
fn rebuilding_the_corpus_changes_nothing() {
    let sources = xtask::corpus::kernel_sources().unwrap();
    assert!(!sources.is_empty());
    let differ = xtask::corpus::build(true).unwrap();
    assert!(differ.is_empty(), "rebuilt corpus objects differ (run `cargo xtask corpus`): {differ:?}");
    // And nothing stale: every checked-in object has its source and is built for that target.
    for t in hx_llvm::GpuTarget::ALL {
        for e in std::fs::read_dir(xtask::corpus::corpus_dir().join(t.cpu())).unwrap().flatten() {
            let stem = e.path().file_stem().unwrap().to_string_lossy().to_string();
            assert!(sources.iter().any(|s| s.file_stem().unwrap().to_string_lossy() == stem), "stale {}", e.path().display());
            let targets = xtask::corpus::targets_of(&stem).unwrap();
            assert!(targets.contains(&t), "stale {}: {stem} is not built for {t}", e.path().display());
        }
    }
}
