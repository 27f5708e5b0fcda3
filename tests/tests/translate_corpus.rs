//! The third side of the verification triangle (DESIGN.md): every gfx1250 corpus object is
//! translated in-process to gfx942 and gfx950; where that succeeds, every launch of the
//! translation runs in the emulator and must give memory bit-identical to the gfx1250 original
//! (and match the Rust reference). Objects listed in REFUSED must fail closed with their named
//! error; every other object must translate and verify.

use hotswap::{GpuTarget, Options};
use hx_tests::{run_corpus_launch, run_launch_bytes};

/// Objects the translator refuses today, with the part of the error that says why: each must
/// fail closed with that error for both targets. Every other gfx1250 object must translate for
/// gfx942 and gfx950, and every launch of the translation must verify.
const REFUSED: &[(&str, &str)] = &[];

#[test]
fn translations_compute_what_the_source_computes() {
    let mut failures = Vec::new();
    let mut verified = Vec::new();
    for obj in hx_corpus::objects().unwrap().into_iter().filter(|o| o.builds_for("gfx1250")) {
        let path = hx_corpus::corpus_dir().join("gfx1250").join(format!("{}.hsaco", obj.name));
        let source = std::fs::read(&path).unwrap();
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = Options { target, ..Default::default() };
            let translated = match hotswap::translate(&source, &options) {
                Ok(t) => t.bytes,
                Err(e) => {
                    eprintln!("not translated: {} for {target}: {e}", obj.name);
                    match REFUSED.iter().find(|(o, _)| *o == obj.name) {
                        Some((_, why)) if e.to_string().contains(why) => {}
                        _ => failures.push(format!("{} for {target} must translate: {e}", obj.name)),
                    }
                    continue;
                }
            };
            if REFUSED.iter().any(|(o, _)| *o == obj.name) {
                failures.push(format!("{} for {target} translates now: take it out of REFUSED", obj.name));
            }
            // Deterministic: the same input and options give the same bytes.
            assert_eq!(hotswap::translate(&source, &options).unwrap().bytes, translated, "{} for {target}", obj.name);
            let co = hotswap::codeobj::CodeObject::parse(&translated).unwrap();
            assert_eq!(co.processor(), Some(target.cpu()));
            let mut ok = true;
            for launch in &obj.launches {
                let seed = 11;
                let inputs = hx_corpus::make_inputs(launch, seed);
                let expected = hx_corpus::reference(&obj.name, launch, &inputs).unwrap();
                let got = match run_launch_bytes(&translated, &format!("{target}/{}(translated)", obj.name), launch, seed) {
                    Ok((out, _)) => out,
                    Err(e) => {
                        failures.push(format!("{}/{} translated for {target} does not run in the emulator: {e}", obj.name, launch.kernel));
                        ok = false;
                        continue;
                    }
                };
                if let Err(e) = hx_corpus::compare_outputs(launch, &expected, &got) {
                    failures.push(format!("{}/{} translated for {target} differs from the reference: {e}", obj.name, launch.kernel));
                    ok = false;
                }
                // C == A: bit for bit against the gfx1250 original in the emulator.
                match run_corpus_launch(GpuTarget::Gfx1250, &obj.name, launch, seed) {
                    Ok((orig, _)) => {
                        for (i, spec) in launch.args.iter().enumerate().filter(|(_, s)| s.output) {
                            if orig[i].bytes() != got[i].bytes() {
                                failures.push(format!("{}/{}: output {} of the {target} translation differs from gfx1250", obj.name, launch.kernel, spec.name));
                                ok = false;
                            }
                        }
                    }
                    Err(e) => {
                        failures.push(format!("{}/{}: the gfx1250 original does not run: {e}", obj.name, launch.kernel));
                        ok = false;
                    }
                }
            }
            if ok {
                verified.push((obj.name.clone(), target.cpu()));
            }
        }
    }
    eprintln!("{} (object, target) translations verified: {verified:?}", verified.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
