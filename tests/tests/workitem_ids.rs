//! Work-item IDs a kernel does not enable read as 0 in v0 (ENABLE_VGPR_WORKITEM_ID; the
//! backends use v0 unmasked as x in a kernel that uses x only). Both the emulator and the raiser
//! honour it: a kernel using only x, compiled for gfx1250, gfx942 and gfx950 by LLVM, launched
//! with 16x4 work-groups, writes out[x + 16 * wg] = 3x + 1 from each of the four rows; the
//! translations must write the same.

use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, OptLevel};

const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @xonly(ptr addrspace(1) %out) #0 {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 4
  %i = add i32 %base, %x
  %x3 = mul i32 %x, 3
  %v = add i32 %x3, 1
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %i
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

/// Runs `xonly` on 3 work-groups of 16x4 threads; returns `out` (3 * 16 dwords).
fn run(co: &[u8]) -> Vec<u32> {
    let co = hotswap::codeobj::CodeObject::parse(co).unwrap();
    let d = hx_emu::Dispatch { grid: [48, 4, 1], block: [16, 4, 1], dynamic_lds: 0 };
    let r = hx_emu::launch::launch(&co, "xonly", &d, &[Arg::Buffer(vec![0xff; 4 * 48])], &hx_emu::Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", co.processor().unwrap_or("?")));
    let Arg::Buffer(b) = &r.args[0] else { panic!("not a buffer") };
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn ids_a_kernel_does_not_enable_read_as_zero() {
    let want: Vec<u32> = (0..48).map(|i| 3 * (i % 16) + 1).collect();
    let mut source = None;
    for target in [GpuTarget::Gfx1250, GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let co = hx_relink::link(&compile_ir(KERNEL, "xonly", target, OptLevel::O2, Emit::Object).unwrap()).unwrap();
        let d = &hotswap::codeobj::CodeObject::parse(&co).unwrap().kernels[0].descriptor;
        let generation = if target == GpuTarget::Gfx1250 { hx_codeobj::descriptor::Generation::Gfx125 } else { hx_codeobj::descriptor::Generation::Gfx90a };
        assert_eq!(d.field(generation, "ENABLE_VGPR_WORKITEM_ID"), Some(0), "{target}: the kernel should enable x only");
        assert_eq!(run(&co), want, "{target}: LLVM's own build");
        if target == GpuTarget::Gfx1250 {
            source = Some(co);
        }
    }
    let source = source.unwrap();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let translated = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap().bytes;
        assert_eq!(run(&translated), want, "{target}: the translation");
    }
}

const XY_KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @xy(ptr addrspace(1) %out) #0 {
entry:
  %wx = call i32 @llvm.amdgcn.workgroup.id.x()
  %wy = call i32 @llvm.amdgcn.workgroup.id.y()
  %row = mul i32 %wy, 3
  %i = add i32 %row, %wx
  %hi = mul i32 %wy, 100
  %v = add i32 %hi, %wx
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %i
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

/// Runs `xy` on 3 x 2 x 2 work-groups of 64 threads (the kernel ignores z, so both z layers
/// write the same); returns `out` (6 dwords).
fn run_xy(co: &[u8]) -> Vec<u32> {
    let co = hotswap::codeobj::CodeObject::parse(co).unwrap();
    let d = hx_emu::Dispatch { grid: [192, 2, 2], block: [64, 1, 1], dynamic_lds: 0 };
    let r = hx_emu::launch::launch(&co, "xy", &d, &[Arg::Buffer(vec![0xff; 4 * 6])], &hx_emu::Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", co.processor().unwrap_or("?")));
    let Arg::Buffer(b) = &r.args[0] else { panic!("not a buffer") };
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A gfx1250 kernel that does not enable the workgroup z ID finds y alone in TTMP7 (LLVM reads
/// the whole register as y, with no mask), even when the grid has several z layers: the
/// emulator writes TTMP7 so, and the translation gives TTMP7 y alone, so the target's kernel
/// needs no z ID either.
#[test]
fn ttmp7_is_y_alone_without_the_z_id() {
    let want: Vec<u32> = (0..6).map(|i| 100 * (i / 3) + i % 3).collect();
    let mut source = None;
    for target in [GpuTarget::Gfx1250, GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let co = hx_relink::link(&compile_ir(XY_KERNEL, "xy", target, OptLevel::O2, Emit::Object).unwrap()).unwrap();
        let d = &hotswap::codeobj::CodeObject::parse(&co).unwrap().kernels[0].descriptor;
        let generation = if target == GpuTarget::Gfx1250 { hx_codeobj::descriptor::Generation::Gfx125 } else { hx_codeobj::descriptor::Generation::Gfx90a };
        assert_eq!(d.field(generation, "ENABLE_SGPR_WORKGROUP_ID_Z"), Some(0), "{target}: the kernel should not enable z");
        assert_eq!(run_xy(&co), want, "{target}: LLVM's own build");
        if target == GpuTarget::Gfx1250 {
            source = Some(co);
        }
    }
    let source = source.unwrap();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let translated = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap().bytes;
        let d = &hotswap::codeobj::CodeObject::parse(&translated).unwrap().kernels[0].descriptor;
        assert_eq!(d.field(hx_codeobj::descriptor::Generation::Gfx90a, "ENABLE_SGPR_WORKGROUP_ID_Z"), Some(0), "{target}: the translation asks for the z ID");
        assert_eq!(run_xy(&translated), want, "{target}: the translation");
    }
}
