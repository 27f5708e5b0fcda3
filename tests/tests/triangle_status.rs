//! The first two sides of the verification triangle (DESIGN.md): every corpus launch run in the
//! emulator for gfx1250, gfx942 and gfx950; the three results must be bit-identical and equal to
//! the Rust reference (within the launch's stated tolerance for approximate ops).
//!
//! Every launch must run on every target its object is built for (gfx1250-only objects have the
//! reference as their only oracle). Run with `--nocapture` to see the status of each launch.

use hx_llvm::GpuTarget;
use hx_tests::run_corpus_launch;

#[test]
fn emulated_targets_agree_with_each_other_and_the_reference() {
    let mut failures = Vec::new();
    let mut passed = Vec::new();
    let mut matched: Vec<(String, &'static str)> = Vec::new();
    for obj in hx_corpus::objects().unwrap() {
        for launch in &obj.launches {
            let id = format!("{}/{}", obj.name, launch.kernel);
            let seed = 7;
            let inputs = hx_corpus::make_inputs(launch, seed);
            let expected = hx_corpus::reference(&obj.name, launch, &inputs).unwrap();
            // gfx1250-only kernels have no native gfx942/gfx950 build: the reference is the oracle.
            let runs: Vec<_> = GpuTarget::ALL
                .iter()
                .filter(|t| obj.builds_for(t.cpu()))
                .map(|&t| (t, run_corpus_launch(t, &obj.name, launch, seed)))
                .collect();
            let mut ok = true;
            for (t, r) in &runs {
                match r {
                    Err(e) => {
                        ok = false;
                        failures.push(format!("{id} on {t} does not run: {e}"));
                    }
                    Ok((out, _)) => match hx_corpus::compare_outputs(launch, &expected, out) {
                        Err(e) => {
                            failures.push(format!("{id} on {t} differs from the reference: {e}"));
                            ok = false;
                        }
                        Ok(()) => matched.push((id.clone(), t.cpu())),
                    },
                }
            }
            // Where every built target ran, they must agree bit for bit (A == B).
            let outs: Vec<_> = runs.iter().filter_map(|(t, r)| r.as_ref().ok().map(|(o, _)| (t, o))).collect();
            if outs.len() == runs.len() {
                for (i, spec) in launch.args.iter().enumerate().filter(|(_, s)| s.output) {
                    if outs.windows(2).any(|w| w[0].1[i].bytes() != w[1].1[i].bytes()) {
                        failures.push(format!("{id}: output {} differs between the emulated targets", spec.name));
                        ok = false;
                    }
                }
            }
            if ok {
                passed.push(id.clone());
            }
        }
    }
    eprintln!("{} launches agree on every target they are built for: {passed:?}", passed.len());
    eprintln!("{} (launch, target) runs match the reference: {matched:?}", matched.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
