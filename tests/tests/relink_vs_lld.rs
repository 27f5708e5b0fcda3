use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

#[test]
#[ignore]
fn dump_inputs() {
    let out = std::path::PathBuf::from("/tmp/relink");
    for src in xtask::corpus::kernel_sources().unwrap() {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let ir = std::fs::read_to_string(&src).unwrap();
        for t in GpuTarget::ALL {
            let obj = compile_ir(&ir, &stem, t, OptLevel::O2, Emit::Object).unwrap();
            let dir = out.join(t.cpu());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("{stem}.o")), &obj).unwrap();
            let so = xtask::corpus::link_with_rust_lld(&obj, &dir.join("work"), &stem).unwrap();
            std::fs::write(dir.join(format!("{stem}.hsaco")), &so).unwrap();
        }
    }
}
