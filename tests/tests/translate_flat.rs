//! Generic (flat) accesses translated: a gfx1250 kernel whose generic pointers point, thread by
//! thread, into global memory, the work-group's LDS (`src_shared_base`) and the thread's private
//! memory (gfx1250's globally addressable scratch, `src_flat_scratch_base`). The translation
//! routes each access by the window its address falls in (hx-raise's flat_ir) and must compute
//! what the original computes in the emulator, for loads, stores and atomics.

use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

/// Thread t: a private array, an LDS slot and a global word each hold values of t; a generic
/// pointer picks one of them by t % 4 (0: LDS, 1: private, else global), is loaded from, stored through and loaded again, and a
/// flat atomic adds to the LDS or global word (by t % 2). Results: 4 dwords a thread.
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [64 x i32] poison, align 4
define amdgpu_kernel void @flat_mix(ptr addrspace(1) %in, ptr addrspace(1) %glob, ptr addrspace(1) %out) #0 {
  %priv = alloca [8 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gi = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %v = load i32, ptr addrspace(1) %gi, align 4
  %lp = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %tid
  %lv = mul i32 %v, 3
  store i32 %lv, ptr addrspace(3) %lp, align 4
  %k = and i32 %v, 7
  %pp = getelementptr [8 x i32], ptr addrspace(5) %priv, i32 0, i32 %k
  %pv = xor i32 %v, 90210
  store volatile i32 %pv, ptr addrspace(5) %pp, align 4
  %gw = getelementptr i32, ptr addrspace(1) %glob, i32 %tid
  %sel = and i32 %tid, 3
  %f_lds = addrspacecast ptr addrspace(3) %lp to ptr
  %f_priv = addrspacecast ptr addrspace(5) %pp to ptr
  %f_glob = addrspacecast ptr addrspace(1) %gw to ptr
  %is0 = icmp eq i32 %sel, 0
  %is1 = icmp eq i32 %sel, 1
  %p01 = select i1 %is0, ptr %f_lds, ptr %f_priv
  %p = select i1 %is1, ptr %p01, ptr %f_glob
  %x = load volatile i32, ptr %p, align 4
  %y = add i32 %x, %tid
  store volatile i32 %y, ptr %p, align 4
  %z = load volatile i32, ptr %p, align 4
  %odd = trunc i32 %tid to i1
  %q = select i1 %odd, ptr %f_lds, ptr %f_glob
  %old = atomicrmw add ptr %q, i32 %v syncscope("agent") monotonic, align 4, !noalias.addrspace !1
  %after = load volatile i32, ptr %q, align 4
  %t4 = shl i32 %tid, 2
  %a0 = getelementptr i32, ptr addrspace(1) %out, i32 %t4
  store i32 %x, ptr addrspace(1) %a0, align 4
  %a1 = getelementptr i32, ptr addrspace(1) %a0, i32 1
  store i32 %z, ptr addrspace(1) %a1, align 4
  %a2 = getelementptr i32, ptr addrspace(1) %a0, i32 2
  store i32 %old, ptr addrspace(1) %a2, align 4
  %a3 = getelementptr i32, ptr addrspace(1) %a0, i32 3
  store i32 %after, ptr addrspace(1) %a3, align 4
  ret void
}
!1 = !{i32 5, i32 6}
"#;

#[test]
fn flat_accesses_to_global_lds_and_private_memory_translate() {
    let ir = hx_tests::kernel_ir(KERNEL);
    let asm = String::from_utf8(compile_ir(&ir, "flat_mix", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    for needle in ["flat_load", "flat_store", "flat_atomic_add", "src_shared_base", "src_flat_scratch_base"] {
        assert!(asm.contains(needle), "the gfx1250 build has no {needle}:\n{asm}");
    }
    let source = hx_tests::gfx1250_object(KERNEL, "flat_mix");
    let input: Vec<u8> = (0..64u32).flat_map(|t| (t.wrapping_mul(2654435761) >> 7).to_le_bytes()).collect();
    let glob: Vec<u8> = (0..64u32).flat_map(|t| (1000 + t).to_le_bytes()).collect();
    let args = [Arg::Buffer(input), Arg::Buffer(glob), Arg::Buffer(vec![0; 64 * 16])];
    let want = hx_tests::run_1d(&source, "flat_mix", 64, 1, &args, 2);
    // The original's own results, checked against what the kernel means for thread 7 (t % 4 == 3:
    // its global word; odd: the atomic adds to its LDS slot).
    let w = |i: usize| u32::from_le_bytes(want[4 * i..4 * i + 4].try_into().unwrap());
    let v7 = 7u32.wrapping_mul(2654435761) >> 7;
    assert_eq!([w(28), w(29), w(30), w(31)], [1007, 1014, v7.wrapping_mul(3), v7.wrapping_mul(4)]);
    hx_tests::assert_translations_match(&source, "flat_mix", 64, 1, &args, 2, &want, 4);
}

