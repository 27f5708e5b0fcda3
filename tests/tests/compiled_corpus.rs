//! Real compilers' code in the emulator: every object of corpus/triton (Triton 3.9) and corpus/hip
//! (clang 22) runs on every target its compiler built it for, and its outputs must equal the
//! independent reference (numpy, or the host reference) the suite's data files hold, within the
//! tolerance each description states and justifies.
//!
//! `corpus/<suite>/EMULATOR_STATUS.txt` lists the (object, target) runs that do not match yet, one
//! a line with the reason; this test fails when a listed run starts passing (the list must shrink
//! with the fix) or an unlisted one fails. Run with `--nocapture` for the counts per target.

#[test]
fn compiled_suites_run_right_in_the_emulator() {
    let mut problems = Vec::new();
    for suite in hx_corpus::COMPILED_SUITES {
        let mut status = hx_tests::StatusList::read(suite, "EMULATOR_STATUS.txt");
        for obj in hx_corpus::compiled_suite(suite).unwrap() {
            for cpu in &obj.targets {
                let result = obj.launches.iter().try_for_each(|launch| {
                    hx_tests::run_compiled_launch(&obj, cpu, launch)
                        .and_then(|(out, _)| hx_corpus::compare_expected(launch, &out).map_err(|e| e.to_string()))
                });
                status.record(&format!("{}@{cpu}", obj.name), cpu, result);
            }
        }
        problems.extend(status.finish(|cpu, ok, all| format!("{suite} {cpu}: {ok} of {all} objects match their reference in the emulator")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
