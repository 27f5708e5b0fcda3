//! The lowering stage carries the source kernel's attributes into the target compile: checked
//! in the metadata and descriptor LLVM writes.

use hx_codeobj::{CodeObject, Generation};
use hx_lower::{lower_ir, Denormals, Emit, GpuTarget, KernelAttrs, LowerError, LowerOptions};

fn saxpy_ir() -> String {
    hx_corpus::object("saxpy").unwrap().ir().unwrap()
}

fn attrs(denormals: Denormals) -> KernelAttrs {
    KernelAttrs {
        name: "saxpy".into(),
        flat_workgroup_size: Some((128, 128)),
        reqd_workgroup_size: Some([128, 1, 1]),
        uniform_work_group_size: true,
        denormals_f32: denormals,
        denormals_f16_f64: Denormals::Ieee,
        source_vgprs: None,
    }
}

#[test]
fn attributes_reach_metadata_and_descriptor() {
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        for (den, mode) in [(Denormals::Ieee, 3), (Denormals::PreserveSign, 0)] {
            let obj = lower_ir(&saxpy_ir(), "saxpy", &[attrs(den)], &LowerOptions::new(target), Emit::Object).unwrap();
            let co = CodeObject::parse(&obj).unwrap();
            assert_eq!(co.processor(), Some(target.cpu()));
            let md = co.metadata.as_ref().unwrap();
            let k = md.kernel("saxpy").unwrap();
            assert_eq!(k.wavefront_size, 64);
            assert_eq!(k.max_flat_workgroup_size, Some(128));
            assert_eq!(k.reqd_workgroup_size, Some([128, 1, 1]));
            assert_eq!(k.raw.get(".uniform_work_group_size").and_then(|v| v.as_u64()), Some(1));
            let d = &co.kernel("saxpy").unwrap().descriptor;
            assert_eq!(d.field(Generation::Gfx90a, "FLOAT_DENORM_MODE_32"), Some(mode), "{target} {den:?}");
            assert_eq!(d.field(Generation::Gfx90a, "FLOAT_DENORM_MODE_16_64"), Some(3));
        }
    }
}

#[test]
fn xnack_and_sramecc_reach_e_flags() {
    let mut o = LowerOptions::new(GpuTarget::Gfx942);
    o.xnack = Some(true);
    o.sramecc = Some(false);
    let obj = lower_ir(&saxpy_ir(), "saxpy", &[attrs(Denormals::Ieee)], &o, Emit::Object).unwrap();
    let co = CodeObject::parse(&obj).unwrap();
    assert_eq!(co.target_id(), "amdgcn-amd-amdhsa--gfx942:sramecc-:xnack+");
    let asm = String::from_utf8(lower_ir(&saxpy_ir(), "saxpy", &[], &o, Emit::Assembly).unwrap()).unwrap();
    assert!(asm.contains(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942:sramecc-:xnack+\""), "{asm}");
}

#[test]
fn errors_are_reported_not_aborts() {
    let o = LowerOptions::new(GpuTarget::Gfx942);
    let mut a = attrs(Denormals::Ieee);
    a.name = "nope".into();
    assert!(matches!(lower_ir(&saxpy_ir(), "saxpy", &[a], &o, Emit::Object), Err(LowerError::NoSuchKernel(n)) if n == "nope"));
    let mut a = attrs(Denormals::Ieee);
    a.flat_workgroup_size = Some((256, 64));
    assert!(matches!(lower_ir(&saxpy_ir(), "saxpy", &[a], &o, Emit::Object), Err(LowerError::BadAttribute { .. })));
    let o = LowerOptions::new(GpuTarget::Gfx1250);
    assert!(matches!(lower_ir(&saxpy_ir(), "saxpy", &[], &o, Emit::Object), Err(LowerError::NotATarget { .. })));
    let ir = lower_ir(&saxpy_ir(), "saxpy", &[], &LowerOptions::new(GpuTarget::Gfx950), Emit::LlvmIr).unwrap();
    assert!(String::from_utf8(ir).unwrap().contains("define amdgpu_kernel void @saxpy"));
}

/// A lowering takes a target machine from the process-wide pool and puts it back: a machine one
/// thread made serves the next lowering on another thread, and reusing it changes no code.
#[test]
fn target_machines_move_between_threads() {
    use hx_lower::{pooled_machines, prewarm, OptLevel};
    // Options no other test here uses: the pool's count for them is this test's alone.
    let o = LowerOptions { target: GpuTarget::Gfx950, opt: OptLevel::O1, xnack: Some(true), sramecc: Some(true) };
    assert_eq!(pooled_machines(&o), 0);
    let o1 = o.clone();
    std::thread::spawn(move || prewarm(&o1)).join().unwrap().unwrap();
    assert_eq!(pooled_machines(&o), 1);
    let (o2, ir) = (o.clone(), saxpy_ir());
    let pooled = std::thread::spawn(move || lower_ir(&ir, "saxpy", &[], &o2, Emit::Assembly)).join().unwrap().unwrap();
    // The lowering used the machine the other thread made (a new one would make two).
    assert_eq!(pooled_machines(&o), 1);
    let tm = GpuTarget::Gfx950.target_machine_with(OptLevel::O1, "+xnack,+sramecc").unwrap();
    let ctx = hx_llvm::inkwell::context::Context::create();
    let m = hx_llvm::parse_ir(&ctx, &saxpy_ir(), "saxpy").unwrap();
    let fresh = hx_llvm::emit_verified_with(&m, "saxpy", &tm, OptLevel::O1.raised_pipeline(), Emit::Assembly).unwrap();
    assert_eq!(String::from_utf8(pooled).unwrap(), String::from_utf8(fresh).unwrap());
}

/// The pooled codegen pipeline (when this build has the shim) emits the C API's bytes, and is
/// built once and reused; a build without the shim refuses it by name and lowers through the C
/// API. The whole corpus is compared in tests/tests/codegen_pipeline.rs.
#[test]
fn pipeline_emits_the_c_api_bytes_or_is_refused() {
    use hx_lower::{lower_ir_via, pipeline_counts, pipeline_status, Codegen, OptLevel};
    // Options no other test here uses: their machine and pipeline are this test's.
    let o = LowerOptions { target: GpuTarget::Gfx942, opt: OptLevel::O2, xnack: Some(false), sramecc: Some(true) };
    let c_api = lower_ir_via(&saxpy_ir(), "saxpy", &[], &o, Emit::Object, Codegen::CApi).unwrap();
    assert!(CodeObject::parse(&c_api).is_ok());
    match pipeline_status() {
        Ok(headers) => {
            assert!(headers.starts_with("22.1."), "{headers}");
            assert_eq!(Codegen::default_path(), Codegen::Pipeline);
            let before = pipeline_counts();
            for _ in 0..3 {
                let p = lower_ir_via(&saxpy_ir(), "saxpy", &[], &o, Emit::Object, Codegen::Pipeline).unwrap();
                assert!(p == c_api, "pipeline {} bytes, C API {}", p.len(), c_api.len());
            }
            let after = pipeline_counts();
            assert!(after.runs - before.runs >= 3, "{before:?} {after:?}");
        }
        Err(why) => {
            eprintln!("no codegen pipeline in this build: {why}");
            assert_eq!(Codegen::default_path(), Codegen::CApi);
            let e = lower_ir_via(&saxpy_ir(), "saxpy", &[], &o, Emit::Object, Codegen::Pipeline).unwrap_err();
            assert!(e.to_string().contains("without the codegen pipeline shim"), "{e}");
            // The default path still lowers.
            assert!(lower_ir(&saxpy_ir(), "saxpy", &[], &o, Emit::Object).unwrap() == c_api);
        }
    }
}

/// vgpr_high keeps 300 values live in one block, more than gfx942's 256 VGPRs: the longest-lived
/// get AGPR homes before the backend (agpr_homes.rs), and the kernel then compiles without a
/// single spill (the native compile of the same IR spills 90 VGPRs to AGPRs). Its results are
/// checked in the emulator by tests/tests/translate_corpus.rs.
#[test]
fn a_kernel_over_the_vgpr_file_gets_agpr_homes_and_no_spills() {
    let ir = hx_corpus::object("vgpr_high").unwrap().ir().unwrap();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let o = LowerOptions::new(target);
        let opt = String::from_utf8(lower_ir(&ir, "vgpr_high", &[], &o, Emit::LlvmIr).unwrap()).unwrap();
        let homes = opt.matches("v_accvgpr_write_b32").count();
        assert!(homes >= 300 - hx_lower::agpr_homes::GOAL, "{target}: {homes} homes");
        assert!(!opt.contains("\"amdgpu-agpr-alloc\"=\"0\""), "{target}: the attributor's no-AGPR promise stayed");
        let obj = lower_ir(&ir, "vgpr_high", &[], &o, Emit::Object).unwrap();
        let co = CodeObject::parse(&obj).unwrap();
        let k = co.metadata.as_ref().unwrap().kernel("vgpr_high").unwrap();
        let get = |f: &str| k.raw.get(f).and_then(|v| v.as_u64()).unwrap();
        assert_eq!(get(".vgpr_spill_count"), 0, "{target}");
        assert!(get(".agpr_count") >= homes as u64, "{target}: {} AGPRs", get(".agpr_count"));
    }
    // A small kernel is left as it was.
    let opt = String::from_utf8(lower_ir(&saxpy_ir(), "saxpy", &[], &LowerOptions::new(GpuTarget::Gfx942), Emit::LlvmIr).unwrap()).unwrap();
    assert!(!opt.contains("accvgpr"), "{opt}");
}

#[test]
fn a_source_of_more_vgprs_than_two_waves_hold_is_compiled_for_one_wave() {
    let o = LowerOptions::new(GpuTarget::Gfx942);
    for (vgprs, one_wave) in [(Some(hx_lower::ONE_WAVE_VGPRS + 1), true), (Some(hx_lower::ONE_WAVE_VGPRS), false), (None, false)] {
        let a = KernelAttrs { source_vgprs: vgprs, ..attrs(Denormals::Ieee) };
        let ir = String::from_utf8(lower_ir(&saxpy_ir(), "saxpy", &[a], &o, Emit::LlvmIr).unwrap()).unwrap();
        assert_eq!(ir.contains("\"amdgpu-waves-per-eu\"=\"1,1\""), one_wave, "{vgprs:?}");
    }
}
