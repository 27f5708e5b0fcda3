//! LDS past what one work-group of the target can allocate (gfx942 64 KiB, gfx950 160 KiB;
//! gfx1250 has 320 KiB): a kernel whose static LDS does not fit is refused by name with both
//! sizes, and the emulator does not launch a dispatch whose static plus dynamic LDS does not
//! fit, as the runtime would not.

use hx_emu::launch::Arg;

/// A gfx1250 kernel with `bytes` of static LDS: each thread stores its id at its slot at the
/// far end of the array and reads it back into `out`.
fn lds_kernel(bytes: u32) -> Vec<u8> {
    let words = bytes / 4;
    let body = format!(
        "@lds = internal addrspace(3) global [{words} x i32] poison, align 4
define amdgpu_kernel void @lds_far(ptr addrspace(1) %out) #0 {{
  %id = call i32 @llvm.workitem.id.x()
  %slot = sub i32 {last}, %id
  %p = getelementptr [{words} x i32], ptr addrspace(3) @lds, i32 0, i32 %slot
  store i32 %id, ptr addrspace(3) %p
  fence syncscope(\"workgroup\") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope(\"workgroup\") acquire
  %v = load i32, ptr addrspace(3) %p
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %v, ptr addrspace(1) %q
  ret void
}}
declare void @llvm.amdgcn.s.barrier()
",
        last = words - 1
    )
    .replace("@llvm.workitem.id.x", "@llvm.amdgcn.workitem.id.x");
    hx_tests::gfx1250_object(&body, "lds_far")
}

#[test]
fn static_lds_past_the_target_limit_is_refused_with_both_sizes() {
    // 96 KiB: fits gfx1250 and gfx950, not gfx942.
    let source = lds_kernel(96 << 10);
    let out = vec![0u8; 64 * 4];
    let want = hx_tests::run_1d(&source, "lds_far", 64, 1, &[Arg::Buffer(out.clone())], 0);
    let ids: Vec<u8> = (0..64u32).flat_map(|i| i.to_le_bytes()).collect();
    assert_eq!(want, ids);
    let e = hotswap::translate(&source, &hotswap::Options { target: hotswap::GpuTarget::Gfx942, ..Default::default() }).unwrap_err();
    assert_eq!(e.kind(), hotswap::ErrorKind::Unsupported);
    let msg = e.to_string();
    assert!(msg.contains("lds_far") && msg.contains("98304 bytes of static LDS") && msg.contains("65536") && msg.contains("gfx942"), "{msg}");
    let t = hotswap::translate(&source, &hotswap::Options { target: hotswap::GpuTarget::Gfx950, ..Default::default() }).unwrap();
    let got = hx_tests::run_1d(&t.bytes, "lds_far", 64, 1, &[Arg::Buffer(out)], 0);
    assert_eq!(got, want);
}

#[test]
fn the_emulator_does_not_launch_past_the_lds_limit() {
    let native = std::fs::read(hx_corpus::corpus_dir().join("gfx942/saxpy.hsaco")).unwrap();
    let co = hotswap::codeobj::CodeObject::parse(&native).unwrap();
    let k = &co.kernels[0];
    let args: Vec<Arg> = co.metadata.as_ref().unwrap().kernel(&k.name).unwrap().args.iter().filter(|a| !a.is_hidden()).map(|a| if a.value_kind == "global_buffer" { Arg::Buffer(vec![0; 256]) } else { Arg::Value(vec![0; a.size as usize]) }).collect();
    let at = |dynamic_lds: u32| hx_emu::launch::launch(&co, &k.name, &hx_emu::Dispatch { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds }, &args, &hx_emu::Limits::default());
    assert!(at(64 << 10).is_ok());
    let e = at((64 << 10) + 4).unwrap_err().to_string();
    assert!(e.contains("65540 bytes of LDS") && e.contains("gfx942's 65536"), "{e}");
}
