//! Real compilers' code in the emulator: every object of corpus/triton (Triton 3.9) and corpus/hip
//! (clang 22) runs on every target its compiler built it for, and its outputs must equal the
//! independent reference (numpy, or the host reference) the suite's data files hold, within the
//! tolerance each description states and justifies.
//!
//! `corpus/<suite>/EMULATOR_STATUS.txt` lists the (object, target) runs that do not match yet, one
//! a line with the reason; this test fails when a listed run starts passing (the list must shrink
//! with the fix) or an unlisted one fails. Run with `--nocapture` for the counts per target.

use std::collections::{BTreeMap, BTreeSet};

fn known_failures(suite: &str) -> BTreeSet<String> {
    let path = hx_corpus::corpus_dir().join(suite).join("EMULATOR_STATUS.txt");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn compiled_suites_run_right_in_the_emulator() {
    let mut problems = Vec::new();
    for suite in hx_corpus::COMPILED_SUITES {
        let known = known_failures(suite);
        let mut seen = BTreeSet::new();
        let mut per_target: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut failing = Vec::new();
        for obj in hx_corpus::compiled_suite(suite).unwrap() {
            for cpu in &obj.targets {
                let id = format!("{}@{cpu}", obj.name);
                seen.insert(id.clone());
                let mut result = Ok(());
                for launch in &obj.launches {
                    result = hx_tests::run_compiled_launch(&obj, cpu, launch)
                        .and_then(|(out, _)| hx_corpus::compare_expected(launch, &out).map_err(|e| e.to_string()));
                    if result.is_err() {
                        break;
                    }
                }
                let entry = per_target.entry(cpu.clone()).or_default();
                entry.1 += 1;
                match result {
                    Ok(()) => {
                        entry.0 += 1;
                        if known.contains(&id) {
                            problems.push(format!("{suite}: {id} now matches: remove it from EMULATOR_STATUS.txt"));
                        }
                    }
                    Err(e) => {
                        failing.push(format!("{id} {e}"));
                        if !known.contains(&id) {
                            problems.push(format!("{suite}: {id}: {e}"));
                        }
                    }
                }
            }
        }
        for k in known.difference(&seen) {
            problems.push(format!("{suite}: EMULATOR_STATUS.txt lists {k}, which the suite does not build"));
        }
        for (cpu, (ok, all)) in &per_target {
            eprintln!("{suite} {cpu}: {ok} of {all} objects match their reference in the emulator");
        }
        for f in &failing {
            eprintln!("  not yet: {f}");
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
