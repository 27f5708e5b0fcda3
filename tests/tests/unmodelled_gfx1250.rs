//! gfx1250 instructions no corpus kernel pins (issue 25's list of known misses that are still
//! not modelled): the emulator stops on each with an error that names it, and the translator
//! refuses each by name. Their results are approximations (v_tanh_f16/bf16, the bf16
//! transcendentals), a generator state (v_prng_b32) or a lane pattern (the gfx1250
//! v_permlane_* family) that no document here gives bit for bit and no compiled kernel with a
//! known answer settles yet; running them on a guess would let a translation "verify" against
//! an invented meaning. (v_tanh_f32 left this list: corpus/triton's gelu_tanh, Triton's
//! libdevice.tanh, computes numpy's answer with it as hx-sem models it, within an ulp of tanh.)

use hx_emu::launch::Arg;

const CASES: [(&str, &str); 6] = [
    ("v_tanh_bf16 v10, v11", "v_tanh_bf16"),
    ("v_rcp_bf16 v10, v11", "v_rcp_bf16"),
    ("v_log_bf16 v10, v11", "v_log_bf16"),
    ("v_prng_b32 v10, v11", "v_prng_b32"),
    ("v_permlane_bcast_b32 v10, v11, s0, s1", "v_permlane_bcast_b32"),
    ("v_permlane_idx_gen_b32 v10, v11, s0", "v_permlane_idx_gen_b32"),
];

fn kernel(asm: &str) -> String {
    format!(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) noalias %out) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %r = call i32 asm sideeffect "v_mov_b32 v11, $1\0As_mov_b32 s0, 1\0As_mov_b32 s1, 2\0A{asm}\0Av_mov_b32 $0, v10", "=v,v,~{{v10}},~{{v11}},~{{s0}},~{{s1}}"(i32 %tid)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
}}
"#
    )
}

#[test]
fn unpinned_gfx1250_instructions_stop_by_name() {
    for (asm, mnemonic) in CASES {
        let source = hx_tests::gfx1250_object(&kernel(asm), "k");
        let co = hotswap::codeobj::CodeObject::parse(&source).unwrap();
        let dispatch = hx_emu::Dispatch { grid: [32, 1, 1], block: [32, 1, 1], dynamic_lds: 0 };
        let ran = hx_emu::launch::launch(&co, "k", &dispatch, &[Arg::Buffer(vec![0; 128])], &hx_emu::Limits::default());
        let e = ran.err().unwrap_or_else(|| panic!("{asm}: the emulator ran it"));
        assert!(e.to_string().contains(mnemonic), "{asm}: the emulator's error does not name it: {e}");
        for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
            let e = hotswap::translate(&source, &hotswap::Options { target, ..Default::default() }).err().unwrap_or_else(|| panic!("{asm}: translated for {target}"));
            assert!(e.to_string().contains(mnemonic), "{asm} for {target}: the refusal does not name it: {e}");
        }
    }
}
