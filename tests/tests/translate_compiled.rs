//! Real compilers' gfx1250 code translated: every gfx1250 object of corpus/triton and corpus/hip is
//! translated for gfx942 and gfx950, and each translation runs in the emulator with the gfx1250
//! launch (the geometry the runtime sends) and must produce the suite's expected outputs, and
//! every output bit for bit as the gfx1250 original computes it on the same inputs. (The
//! references allow a tolerance where the compiler's own order of a float sum is unknown; the
//! translation has none: a scaled WMMA summed in another order than the original's met the
//! 1e-5 of Triton's dot_scaled references on all but one kernel.)
//!
//! `corpus/<suite>/TRANSLATE_STATUS.txt` lists the (object@target) translations that are refused
//! or do not match yet, one a line with the reason; the test fails when a listed one starts
//! passing (the list must shrink with the fix) or an unlisted one fails. `--nocapture` prints
//! the counts per target.
//!
//! Objects in `hx_tests::SLOW_TRANSLATIONS` take minutes to translate in the test profile, so
//! they are translated only with `HX_SLOW_TESTS=1` (otherwise recorded as not run, and listed as
//! such in the status file). The translations run on two threads.

/// The gfx1250 original's outputs of each launch of `obj`.
type Original = Result<Vec<Vec<hx_corpus::ArgData>>, String>;

fn translate_and_run(obj: &hx_corpus::CompiledObject, target: hotswap::GpuTarget, original: &Original) -> Result<(), String> {
    if hx_tests::SLOW_TRANSLATIONS.contains(&obj.name.as_str()) && !hx_tests::slow_tests() {
        return Err("not run: its translation takes minutes in the test profile (HX_SLOW_TESTS=1 runs it)".into());
    }
    let source = std::fs::read(obj.object_path("gfx1250")).map_err(|e| e.to_string())?;
    let t = hotswap::translate(&source, &hotswap::Options { target, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
    let original = original.as_ref().map_err(|e| format!("the gfx1250 original: {e}"))?;
    for (launch, original) in obj.launches.iter().zip(original) {
        let (out, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("{target}/{}", obj.id()), launch, 0)?;
        hx_corpus::compare_expected(launch, &out).map_err(|e| format!("differs: {e}"))?;
        for (i, (want, got)) in original.iter().zip(&out).enumerate() {
            let (want, got) = (want.bytes(), got.bytes());
            if want != got {
                let dwords = want.chunks(4).zip(got.chunks(4)).filter(|(x, y)| x != y).count();
                return Err(format!("differs from the gfx1250 original: argument {i} of kernel {}, {dwords} dwords", launch.kernel));
            }
        }
    }
    Ok(())
}

#[test]
fn compiled_suites_translate_and_verify() {
    let mut problems = Vec::new();
    for suite in hx_corpus::COMPILED_SUITES {
        let mut status = hx_tests::StatusList::read(suite, "TRANSLATE_STATUS.txt");
        let objects = hx_corpus::compiled_suite(suite).unwrap();
        let sources: Vec<&hx_corpus::CompiledObject> = objects.iter().filter(|o| o.targets.iter().any(|t| t == "gfx1250")).collect();
        // The originals run once each; both targets' translations compare with them.
        let originals: Vec<Original> = hx_tests::on_two_threads(&sources, |obj| {
            obj.launches.iter().map(|l| hx_tests::run_compiled_launch(obj, "gfx1250", l).map(|(out, _)| out)).collect()
        });
        let jobs: Vec<(usize, hotswap::GpuTarget)> =
            (0..sources.len()).flat_map(|i| [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950].map(|t| (i, t))).collect();
        let results = hx_tests::on_two_threads(&jobs, |&(i, target)| translate_and_run(sources[i], target, &originals[i]));
        for ((i, target), r) in jobs.iter().zip(results) {
            status.record(&format!("{}@{target}", sources[*i].name), target.cpu(), r);
        }
        problems.extend(status.finish(|t, ok, all| {
            format!("{suite} -> {t}: {ok} of {all} gfx1250 objects translate and compute their reference, bit for bit as the original does, in the emulator")
        }));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
