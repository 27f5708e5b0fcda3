//! A gfx1250 kernel reading a global variable reaches it PC-relatively (`s_get_pc_i64`,
//! `s_add_nc_u64 table@rel64`). The translation reads it from its copy of the source's image
//! (once it read the source's address itself, which means nothing in the translation); a
//! kernel writing a global, or reaching one through the GOT, is refused by name (the copy is
//! per module, not shared, and holds no loader-patched slots).

use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, OptLevel};

/// The kernel, without [`hx_tests::kernel_ir`]'s tail.
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
@table = internal addrspace(1) global [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6], align 4
define amdgpu_kernel void @lookup(ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %i = and i32 %tid, 7
  %p = getelementptr [8 x i32], ptr addrspace(1) @table, i32 0, i32 %i
  %v = load volatile i32, ptr addrspace(1) %p, align 4
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}
"#;

#[test]
fn pc_relative_globals_are_read_from_the_source_image() {
    let asm = String::from_utf8(compile_ir(&hx_tests::kernel_ir(KERNEL), "lookup", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    assert!(asm.contains("s_get_pc_i64") && asm.contains("table@rel64"), "{asm}");
    let rel = compile_ir(&hx_tests::kernel_ir(KERNEL), "lookup", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    // The source reads its table.
    let out = hx_tests::run_1d(&source, "lookup", 64, 1, &[Arg::Buffer(vec![0; 256])], 0);
    let got: Vec<u32> = out.chunks(4).take(8).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, [3, 1, 4, 1, 5, 9, 2, 6]);
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = hx_tests::run_1d(&t.bytes, "lookup", 64, 1, &[Arg::Buffer(vec![0; 256])], 0);
        assert_eq!(got, out, "{target}");
    }
}

/// An external global: the source reaches it through the GOT (`table@gotpcrel`, a slot the
/// loader patches with a dynamic relocation). A copy of the image would hold the unpatched
/// slot, so the translator refuses it by name.
#[test]
fn globals_through_the_got_are_refused_by_name() {
    let ir = hx_tests::kernel_ir(KERNEL).replace("@table = internal addrspace(1) global", "@table = addrspace(1) global");
    let asm = String::from_utf8(compile_ir(&ir, "lookup", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    assert!(asm.contains("table@gotpcrel"), "{asm}");
    let rel = compile_ir(&ir, "lookup", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    // (The emulator's loader applies no dynamic relocations either: the source is not run.)
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let err = hotswap::translate(&source, &Options { target, ..Default::default() }).err().expect("a GOT load translated").to_string();
        assert!(err.contains("dynamic relocations") && err.contains("kernel lookup"), "{target}: {err}");
    }
}

#[test]
fn stores_to_pc_relative_globals_are_refused_by_name() {
    let ir = hx_tests::kernel_ir(KERNEL).replace("%v = load volatile i32, ptr addrspace(1) %p, align 4", "store volatile i32 %tid, ptr addrspace(1) %p, align 4\n  %v = add i32 %tid, 1");
    let rel = compile_ir(&ir, "lookup", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let err = hotswap::translate(&source, &Options { target, ..Default::default() }).err().expect("a store to a PC-relative global translated").to_string();
        assert!(err.contains("program counter is used as data") && err.contains("kernel lookup"), "{target}: {err}");
    }
}
