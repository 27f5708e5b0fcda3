//! GFX9 16-bit results the backend emits for translated gfx1250 code, where a 16-bit value is
//! merged into the half of a register (gfx1250 16-bit results keep the other half):
//! - `v_cvt_f16_f32_sdwa` with a word destination selection (gfx942, gfx950): the f16 result
//!   fills the selected word, the rest by dst_unused (preserve, pad with zeros, sign-extend);
//! - `v_bitop3_b16` (gfx950): the 16-bit result in the low half (or the high half with
//!   op_sel[3]), the other half kept.
//!
//! Checked in the emulator against integer arithmetic on inputs whose f32 -> f16 conversion is
//! exact.

use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

/// (f32 input, its f16 bits).
const F16: [(f32, u32); 6] = [(1.0, 0x3c00), (-2.0, 0xc000), (0.5, 0x3800), (65504.0, 0x7bff), (0.0, 0), (-0.75, 0xba00)];

fn kernel(cases: &[&str]) -> String {
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %i2 = mul i32 %tid, 2
  %px = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i2
  %x = load i32, ptr addrspace(1) %px, align 4
  %py = getelementptr inbounds i32, ptr addrspace(1) %px, i32 1
  %y = load i32, ptr addrspace(1) %py, align 4
"#,
    );
    body.push_str(&format!("  %base = mul i32 %tid, {}\n", cases.len()));
    for (k, asm) in cases.iter().enumerate() {
        body.push_str(&format!(
            "  %r{k} = call i32 asm sideeffect \"v_mov_b32 v10, $1\\0Av_mov_b32 v11, $2\\0A{asm}\\0Av_mov_b32 $0, v10\", \"=v,v,v,~{{v10}},~{{v11}}\"(i32 %x, i32 %y)\n  %o{k} = add i32 %base, {k}\n  %q{k} = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o{k}\n  store i32 %r{k}, ptr addrspace(1) %q{k}, align 4\n"
        ));
    }
    body.push_str("  ret void\n}\n");
    hx_tests::kernel_ir(&body)
}

/// Runs `cases` (asm reading v10 = x, v11 = y, result in v10) on 64 threads of `target`;
/// returns per thread (x, y's f16 bits, results).
fn run(target: GpuTarget, cases: &[&str]) -> Vec<(u32, u32, Vec<u32>)> {
    let obj = compile_ir(&kernel(cases), "k", target, OptLevel::O2, Emit::Object).unwrap_or_else(|e| panic!("{target}: {e}"));
    let co = hx_relink::link(&obj).unwrap();
    let ins: Vec<(u32, f32, u32)> = (0..64).map(|t| (0x1234_5678u32.rotate_left(t as u32) ^ t as u32, F16[t % F16.len()].0, F16[t % F16.len()].1)).collect();
    let in_bytes: Vec<u8> = ins.iter().flat_map(|&(x, y, _)| [x, y.to_bits()]).flat_map(u32::to_le_bytes).collect();
    let out = hx_tests::run_1d(&co, "k", 64, 1, &[Arg::Buffer(in_bytes), Arg::Buffer(vec![0xee; 64 * 4 * cases.len()])], 1);
    ins.iter()
        .enumerate()
        .map(|(t, &(x, _, h))| {
            let r = (0..cases.len()).map(|k| u32::from_le_bytes(out[4 * (cases.len() * t + k)..][..4].try_into().unwrap())).collect();
            (x, h, r)
        })
        .collect()
}

#[test]
fn sdwa_f16_results_fill_the_selected_word() {
    let cases = [
        "v_cvt_f16_f32_sdwa v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
        "v_cvt_f16_f32_sdwa v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
        "v_cvt_f16_f32_sdwa v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD",
        "v_cvt_f16_f32_sdwa v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:DWORD",
    ];
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        for (t, (x, h, r)) in run(target, &cases).into_iter().enumerate() {
            let sext = if h & 0x8000 != 0 { 0xffff_0000 } else { 0 };
            assert_eq!(r, [h << 16 | x & 0xffff, x & 0xffff_0000 | h, h << 16, sext | h], "{target}: thread {t}, x {x:#x}");
        }
    }
}

#[test]
fn gfx950_bitop3_b16_keeps_the_other_half() {
    // Table 0xc8 is S1 & (S0 | S2); with S2 = S0, S0 & S1.
    let cases = ["v_bitop3_b16 v10, v10, v11, v10 bitop3:0xc8", "v_bitop3_b16 v10, v10, v11, v10 bitop3:0xc8 op_sel:[1,1,1,1]"];
    let ins: Vec<u32> = (0..64).map(|t| F16[t % F16.len()].0.to_bits()).collect();
    for (t, (x, _, r)) in run(GpuTarget::Gfx950, &cases).into_iter().enumerate() {
        let y = ins[t];
        assert_eq!(r, [x & 0xffff_0000 | x & y & 0xffff, x & y & 0xffff_0000 | x & 0xffff], "thread {t}, x {x:#x}, y {y:#x}");
    }
}
