//! Shared helpers of the end-to-end tests.

use hx_llvm::GpuTarget;
use std::path::PathBuf;

/// Every checked-in corpus code object: (target, object name, path), sorted.
pub fn corpus_objects() -> Vec<(GpuTarget, String, PathBuf)> {
    let mut out = Vec::new();
    for t in GpuTarget::ALL {
        let dir = hx_corpus::corpus_dir().join(t.cpu());
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "hsaco") {
                out.push((t, p.file_stem().unwrap().to_string_lossy().to_string(), p));
            }
        }
    }
    out.sort();
    out
}

/// One corpus object for tests that mutate a real input.
pub fn sample_object(target: GpuTarget) -> Vec<u8> {
    let (_, _, path) = corpus_objects()
        .into_iter()
        .find(|(t, _, _)| *t == target)
        .expect("the corpus has objects for every target (run `cargo xtask corpus`)");
    std::fs::read(path).unwrap()
}
