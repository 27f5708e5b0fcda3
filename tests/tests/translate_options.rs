//! Translation options: target features, kernels left out, and bundles translated entry by
//! entry in parallel (same bytes whatever the thread count).

use hotswap::{GpuTarget, Options};

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(hx_corpus::corpus_dir().join(rel)).unwrap()
}

#[test]
fn target_ids_with_features_reach_the_output() {
    let o = Options::default().with_target_id("amdgcn-amd-amdhsa--gfx950:sramecc-:xnack+").unwrap();
    assert_eq!((o.target, o.xnack, o.sramecc), (GpuTarget::Gfx950, Some(true), Some(false)));
    for bad in ["gfx1250", "gfx1100", "gfx942:xnack", "gfx942:tgsplit+"] {
        assert!(Options::default().with_target_id(bad).is_err(), "{bad}");
    }
    let input = corpus("gfx1250/saxpy.hsaco");
    for (id, want) in [("gfx942:xnack+", "gfx942:xnack+"), ("gfx942:xnack-", "gfx942:xnack-"), ("gfx950:sramecc+", "gfx950:sramecc+")] {
        let o = Options::default().with_target_id(id).unwrap();
        let out = hotswap::translate(&input, &o).unwrap().bytes;
        let co = hotswap::codeobj::CodeObject::parse(&out).unwrap();
        assert!(co.target_id().ends_with(want), "{id}: output target ID {}", co.target_id());
    }
}

#[test]
fn skipped_kernels_are_left_out_and_bad_skips_refused() {
    let input = corpus("gfx1250/saxpy.hsaco");
    let skip = |names: &[&str]| Options { skip_kernels: names.iter().map(|s| s.to_string()).collect(), ..Default::default() };
    let e = hotswap::translate(&input, &skip(&["saxpy"])).unwrap_err().to_string();
    assert!(e.contains("every kernel is skipped"), "{e}");
    let e = hotswap::translate(&input, &skip(&["nope"])).unwrap_err().to_string();
    assert!(e.contains("kernel nope"), "{e}");
    // An object with several kernels keeps the others.
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        let bytes = corpus(&format!("gfx1250/{}.hsaco", obj.name));
        let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
        if co.kernels.len() < 2 || hotswap::translate(&bytes, &Options::default()).is_err() {
            continue;
        }
        let first = co.kernels[0].name.clone();
        let out = hotswap::translate(&bytes, &skip(&[&first])).unwrap().bytes;
        let out = hotswap::codeobj::CodeObject::parse(&out).unwrap();
        assert!(out.kernel(&first).is_none(), "{}: {first} was skipped", obj.name);
        assert_eq!(out.kernels.len(), co.kernels.len() - 1, "{}", obj.name);
    }
}

#[test]
fn bundles_translate_the_same_on_one_and_two_threads() {
    use hotswap::codeobj::bundle::{Bundle, BundleEntry, BundleFormat};
    // Three gfx1250 objects under distinct entry ids (a bundle holds one per id).
    let entries = [("saxpy", "hip"), ("grid2d", "hipv4"), ("lds_matmul", "openmp")]
        .iter()
        .map(|(n, kind)| BundleEntry { id: format!("{kind}-amdgcn-amd-amdhsa--gfx1250"), data: corpus(&format!("gfx1250/{n}.hsaco")) })
        .collect::<Vec<_>>();
    let bytes = Bundle { format: BundleFormat::Plain, entries }.write().unwrap();
    let run = |threads: usize| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| hotswap::translate(&bytes, &Options::default()).unwrap().bytes);
    assert_eq!(run(1), run(2));
}

/// An object's kernels are lowered on the caller's rayon pool, each in its own module, and linked
/// together: the bytes do not depend on the thread count, and a kernel that fails is reported the
/// same way whatever the threads.
#[test]
fn kernels_of_one_object_translate_the_same_on_one_and_two_threads() {
    let pool = |threads: usize| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let bytes = corpus("gfx1250/multi_kernel.hsaco");
    assert!(hotswap::codeobj::CodeObject::parse(&bytes).unwrap().kernels.len() >= 3);
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let o = Options { target, ..Default::default() };
        let run = |threads: usize| pool(threads).install(|| hotswap::translate(&bytes, &o).unwrap().bytes);
        let one = run(1);
        assert_eq!(one, run(2), "{target}");
        // The merged object has every kernel once, with one metadata note.
        let co = hotswap::codeobj::CodeObject::parse(&one).unwrap();
        assert_eq!(co.kernels.len(), 3, "{target}");
        assert_eq!(co.notes.iter().filter(|n| n.owner == "AMDGPU" && n.n_type == 32).count(), 1, "{target}");
    }
    let refused = corpus("broken/gfx1250_bad_instruction.hsaco");
    let err = |threads: usize| pool(threads).install(|| hotswap::translate(&refused, &Options::default()).unwrap_err().to_string());
    assert_eq!(err(1), err(2));
}
