//! hx-lower's two ways to emit (crates/lower/src/codegen.rs) give the same bytes on the whole
//! corpus: the pooled codegen pipeline of the C++ shim, reused from module to module, and LLVM's
//! C API, which builds a fresh pipeline per emit. Inputs: every gfx1250 corpus object raised for
//! gfx942 and gfx950, every object of the compiled suites (corpus/triton, corpus/hip) that raises,
//! for gfx942, and every corpus source (corpus/kernels/*.ll) for the gfx9 targets it is built for, each module parsed into its own context (as translations do). Objects only: assembly
//! is always emitted through the C API (codegen.rs says why).
//!
//! In a build without the shim (no LLVM 22 headers or C++ compiler) the test says why and checks
//! only that the pipeline path is refused as an error.

use hotswap::{GpuTarget, Options};
use hx_lower::{lower_ir_via, pipeline_counts, pipeline_status, Codegen, Emit, LowerOptions};

/// (input name, IR text, target) for every module the test lowers.
fn inputs() -> Vec<(String, String, GpuTarget)> {
    let mut out = Vec::new();
    let dir = hx_corpus::corpus_dir().join("gfx1250");
    let mut objects: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    objects.sort();
    let mut refused = Vec::new();
    for path in objects.iter().filter(|p| p.extension().is_some_and(|e| e == "hsaco")) {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            match hotswap::translate::raised_ir(&bytes, &Options { target, ..Default::default() }) {
                Ok(ir) => out.push((format!("{stem} raised"), ir, target)),
                Err(e) => refused.push(format!("{stem} {target}: {e}")),
            }
        }
    }
    // The translator refuses few corpus objects (tensor_refusals.rs); the test must not become
    // vacuous if it starts refusing many.
    assert!(refused.len() <= 6, "raising refused: {refused:#?}");
    // Real compilers' objects (corpus/triton, corpus/hip) that translate, for gfx942.
    for suite in hx_corpus::COMPILED_SUITES {
        for obj in hx_corpus::compiled_suite(suite).unwrap() {
            if !obj.targets.iter().any(|t| t == "gfx1250") || (hx_tests::SLOW_TRANSLATIONS.contains(&obj.name.as_str()) && !hx_tests::slow_tests()) {
                continue;
            }
            let bytes = std::fs::read(obj.object_path("gfx1250")).unwrap();
            if let Ok(ir) = hotswap::translate::raised_ir(&bytes, &Options::default()) {
                out.push((format!("{} raised", obj.id()), ir, GpuTarget::Gfx942));
            }
        }
    }
    for o in hx_corpus::objects().unwrap() {
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            if o.builds_for(target.cpu()) {
                out.push((format!("{} source", o.name), o.ir().unwrap(), target));
            }
        }
    }
    out
}

#[test]
fn pipeline_and_c_api_emit_the_same_bytes_on_the_corpus() {
    if let Err(why) = pipeline_status() {
        eprintln!("skipped: {why}");
        let ir = hx_corpus::object("saxpy").unwrap().ir().unwrap();
        let e = lower_ir_via(&ir, "saxpy", &[], &LowerOptions::new(GpuTarget::Gfx942), Emit::Object, Codegen::Pipeline).unwrap_err();
        assert!(e.to_string().contains("without the codegen pipeline shim"), "{e}");
        return;
    }
    let inputs = inputs();
    assert!(inputs.len() >= 100, "{} inputs", inputs.len());
    let before = pipeline_counts();
    let mut compared = 0;
    let mut slowest = (0.0, String::new());
    for (name, ir, target) in &inputs {
        let started = std::time::Instant::now();
        let options = LowerOptions::new(*target);
        let emit = Emit::Object;
        let c_api = lower_ir_via(ir, name, &[], &options, emit, Codegen::CApi);
        let pipeline = lower_ir_via(ir, name, &[], &options, emit, Codegen::Pipeline);
        match (c_api, pipeline) {
            (Ok(a), Ok(b)) => {
                assert!(a.len() > 100, "{name} {target} {emit:?}: {} bytes", a.len());
                assert!(a == b, "{name} {target} {emit:?}: the pipeline emitted other bytes ({} against {})", b.len(), a.len());
                compared += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name} {target} {emit:?}"),
            (a, b) => panic!("{name} {target} {emit:?}: C API {:?}, pipeline {:?}", a.map(|v| v.len()), b.map(|v| v.len())),
        }
        let s = started.elapsed().as_secs_f64();
        if s > slowest.0 {
            slowest = (s, format!("{name} {target}"));
        }
    }
    let after = pipeline_counts();
    // Every compared emit ran on a pooled pipeline, and the pipelines were reused: at most one
    // per pooled target machine in this process (two targets here; this binary has no other test).
    assert!(after.runs - before.runs >= compared as u64, "{before:?} {after:?} {compared}");
    assert!(after.built - before.built <= 2, "{before:?} {after:?}");
    eprintln!("{compared} emits compared, {} pipelines built for them; slowest input {} ({:.1} s)", after.built - before.built, slowest.1, slowest.0);
}
