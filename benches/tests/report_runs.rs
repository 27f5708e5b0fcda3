//! The benchmark report runs end to end (`hx-bench-report --quick`: one run of each measurement).
//! No timing is asserted here: performance is measured by `cargo xtask bench`, never in tests.

#[test]
fn quick_report_has_every_section() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hx-bench-report"))
        .arg("--quick")
        .env("HX_LLC", env!("CARGO_BIN_EXE_hx-llc"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for n in 1..=11 {
        assert!(stdout.contains(&format!("## {n}. ")), "section {n} missing:\n{stdout}");
    }
    assert!(!stdout.contains("This section failed"), "{stdout}");
}

#[test]
fn shell_out_pipeline_gives_a_code_object_for_the_target() {
    let bytes = std::fs::read(hx_corpus::corpus_dir().join("gfx1250/saxpy.hsaco")).unwrap();
    let o = hotswap::Options { target: hotswap::GpuTarget::Gfx942, ..Default::default() };
    let work = std::env::temp_dir().join(format!("hx-bench-test-{}", std::process::id()));
    let shell = hx_benches::shellout::ShellOut::new(env!("CARGO_BIN_EXE_hx-llc").into(), &work).unwrap();
    let out = shell.translate(&bytes, &o).unwrap();
    let co = hotswap::codeobj::CodeObject::parse(&out).unwrap();
    assert_eq!(co.processor(), Some("gfx942"));
    assert_eq!(co.kernels.len(), 1);
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn synthetic_objects_have_the_kernels_asked_for() {
    let work = std::env::temp_dir().join(format!("hx-bench-synth-{}", std::process::id()));
    let bytes = hx_benches::synth::build_gfx1250(&hx_benches::synth::kernels_ir(3, 4), "s", &work).unwrap();
    let co = hotswap::codeobj::CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.processor(), Some("gfx1250"));
    assert_eq!(co.kernels.len(), 3);
    let _ = std::fs::remove_dir_all(&work);
}
