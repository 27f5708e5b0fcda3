//! Real compilers' gfx1250 code translated: every gfx1250 object of corpus/triton and corpus/hip is
//! translated for gfx942 and gfx950, and each translation runs in the emulator with the gfx1250
//! launch (the geometry the runtime sends) and must produce the suite's expected outputs.
//!
//! `corpus/<suite>/TRANSLATE_STATUS.txt` lists the (object@target) translations that are refused
//! or do not match yet, one a line with the reason; the test fails when a listed one starts
//! passing (the list must shrink with the fix) or an unlisted one fails. `--nocapture` prints
//! the counts per target.

fn translate_and_run(obj: &hx_corpus::CompiledObject, target: hotswap::GpuTarget) -> Result<(), String> {
    let source = std::fs::read(obj.object_path("gfx1250")).map_err(|e| e.to_string())?;
    let t = hotswap::translate(&source, &hotswap::Options { target, ..Default::default() }).map_err(|e| format!("refused: {e}"))?;
    for launch in &obj.launches {
        let (out, _) = hx_tests::run_launch_bytes(&t.bytes, &format!("{target}/{}", obj.id()), launch, 0)?;
        hx_corpus::compare_expected(launch, &out).map_err(|e| format!("differs: {e}"))?;
    }
    Ok(())
}

#[test]
fn compiled_suites_translate_and_verify() {
    let mut problems = Vec::new();
    for suite in hx_corpus::COMPILED_SUITES {
        let mut status = hx_tests::StatusList::read(suite, "TRANSLATE_STATUS.txt");
        for obj in hx_corpus::compiled_suite(suite).unwrap().iter().filter(|o| o.targets.iter().any(|t| t == "gfx1250")) {
            for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
                status.record(&format!("{}@{target}", obj.name), target.cpu(), translate_and_run(obj, target));
            }
        }
        problems.extend(status.finish(|t, ok, all| {
            format!("{suite} -> {t}: {ok} of {all} gfx1250 objects translate and compute their reference in the emulator")
        }));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
