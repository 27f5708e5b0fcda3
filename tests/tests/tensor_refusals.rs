//! A tensor descriptor the emulator does not model fails closed on both sides: corpus
//! tensor_tile with its descriptor's data-size word (group 1 dword 0, `s_mov_b32 sN, 0x20000`)
//! patched to also set iterate enable (bit 19). The gfx1250 emulator refuses it naming the
//! field; the translation (the descriptor is a run-time value, so it still translates) traps
//! instead of computing a tile. (Padding, bit 20, is modelled: corpus/triton matmul_tdesc_f16.)

use hotswap::{GpuTarget, Options};
use hx_tests::run_launch_bytes;

#[test]
fn iterating_descriptor_is_refused_by_the_emulator_and_traps_when_translated() {
    let obj = hx_corpus::objects().unwrap().into_iter().find(|o| o.name == "tensor_tile").unwrap();
    let launch = obj.launches.iter().find(|l| l.kernel == "tensor_tile").unwrap();
    let path = hx_corpus::corpus_dir().join("gfx1250/tensor_tile.hsaco");
    let mut bytes = std::fs::read(path).unwrap();
    // The first `s_mov_b32 sN, 0x20000` of the object is in kernel tensor_tile (the first one).
    let at = (0..bytes.len().saturating_sub(8))
        .find(|&i| {
            bytes[i + 4..i + 8] == 0x2_0000u32.to_le_bytes()
                && hotswap::isa::decode(hotswap::isa::Target::Gfx1250, &bytes[i..i + 8], 0)
                    .is_ok_and(|d| d.text().starts_with("s_mov_b32 s") && d.text().ends_with(", 0x20000"))
        })
        .expect("the descriptor's data-size word");
    bytes[at + 4..at + 8].copy_from_slice(&0xa_0000u32.to_le_bytes());

    let e = run_launch_bytes(&bytes, "gfx1250/tensor_tile(iterate)", launch, 3).unwrap_err();
    assert!(e.contains("tensor_load_to_lds") && e.contains("iterate enable (group 1 bit 19)"), "{e}");

    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&bytes, &Options { target, ..Default::default() }).unwrap();
        let e = run_launch_bytes(&t.bytes, &format!("{target}/tensor_tile(iterate, translated)"), launch, 3).unwrap_err();
        assert!(e.contains("s_trap"), "{target}: {e}");
    }
}

/// A tile whose global base is off its elements' alignment: the gfx1250 emulator refuses the
/// misaligned element access, and the translation (which copies element by element, each an
/// aligned access of its width: crates/raise/src/ir/tensor_ir.rs) traps instead of copying.
/// corpus tensor_tile with its global base moved 2 bytes off the 4-byte elements.
#[test]
fn a_misaligned_tile_is_refused_and_traps_when_translated() {
    let obj = hx_corpus::objects().unwrap().into_iter().find(|o| o.name == "tensor_tile").unwrap();
    let launch = obj.launches.iter().find(|l| l.kernel == "tensor_tile").unwrap();
    let ir = std::fs::read_to_string(hx_corpus::corpus_dir().join("kernels/tensor_tile.ll")).unwrap();
    let aligned = "  %addr = ptrtoint ptr addrspace(1) %src to i64\n";
    assert!(ir.contains(aligned));
    let ir = ir.replacen(aligned, "  %addr0 = ptrtoint ptr addrspace(1) %src to i64\n  %addr = add i64 %addr0, 2\n", 1);
    let rel = hx_llvm::compile_ir(&ir, "tensor_tile", hx_llvm::GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let e = run_launch_bytes(&source, "gfx1250/tensor_tile(+2)", launch, 3).unwrap_err();
    assert!(e.contains("tensor_load_to_lds") && e.contains("misaligned global access"), "{e}");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap();
        let e = run_launch_bytes(&t.bytes, &format!("{target}/tensor_tile(+2, translated)"), launch, 3).unwrap_err();
        assert!(e.contains("s_trap"), "{target}: {e}");
    }
}
