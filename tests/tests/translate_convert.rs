//! Float-to-integer conversions at their edges, translated: the gfx1250 source's v_cvt_i32_f32,
//! v_cvt_u32_f32, v_cvt_i32_f64 and v_cvt_u32_f64 saturate and turn NaN into 0, and the raiser
//! uses the target's own conversion instruction for them (the same rule). Inputs include NaN,
//! both infinities, both zeros, denormals, values just inside and outside each range and
//! fractions on both sides of zero; the translations for gfx942 and gfx950 must give, in the
//! emulator, memory bit-identical to the gfx1250 original.

use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, OptLevel};

/// The kernel, `{helpers}` to be replaced by [`helpers`].
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @cvt_edges(ptr addrspace(1) noalias readonly %f, ptr addrspace(1) noalias readonly %d, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ie = zext i32 %i to i64
  %fp = getelementptr inbounds float, ptr addrspace(1) %f, i64 %ie
  %fv = load float, ptr addrspace(1) %fp, align 4
  %dp = getelementptr inbounds double, ptr addrspace(1) %d, i64 %ie
  %dv = load double, ptr addrspace(1) %dp, align 8
  %a = call i32 @cvt_i32_f32(float %fv)
  %b = call i32 @cvt_u32_f32(float %fv)
  %c = call i32 @cvt_i32_f64(double %dv)
  %e = call i32 @cvt_u32_f64(double %dv)
  %o = shl i32 %i, 2
  %o0 = zext i32 %o to i64
  %q0 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %o0
  store i32 %a, ptr addrspace(1) %q0, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 1
  store i32 %b, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 2
  store i32 %c, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 3
  store i32 %e, ptr addrspace(1) %q3, align 4
  ret void
}
{helpers}declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

/// One always-inlined function per conversion, holding the gfx1250 instruction itself.
fn helpers() -> String {
    [("i32", "f32", "float"), ("u32", "f32", "float"), ("i32", "f64", "double"), ("u32", "f64", "double")]
        .iter()
        .map(|(i, f, ty)| format!("define internal i32 @cvt_{i}_{f}({ty} %x) alwaysinline {{\n  %r = call i32 asm \"v_cvt_{i}_{f} $0, $1\", \"=v,v\"({ty} %x)\n  ret i32 %r\n}}\n"))
        .collect()
}

#[test]
fn float_to_int_conversions_saturate_as_the_source_does() {
    // The source kernel states the conversions as gfx1250 instructions, so its code object holds
    // exactly them whatever LLVM would make of fptosi.
    let ir = KERNEL.replace("{helpers}", &helpers());
    let rel = compile_ir(&ir, "cvt_edges", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let f32s: Vec<f32> = vec![
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        0.7,
        -0.7,
        -1.0,
        2147483520.0,
        2147483648.0,
        -2147483648.0,
        -2147483904.0,
        4294967040.0,
        4294967296.0,
        1e30,
        -1e30,
        123456.78,
        -98765.43,
    ];
    let f64s: Vec<f64> = vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        0.999999,
        -0.999999,
        -1.0,
        2147483647.0,
        2147483647.9,
        2147483648.0,
        -2147483648.0,
        -2147483648.5,
        -2147483649.0,
        4294967295.0,
        4294967295.5,
        4294967296.0,
        1e300,
        -1e300,
    ];
    let n = 128usize;
    let fin: Vec<u8> = (0..n).flat_map(|i| f32s[i % f32s.len()].to_le_bytes()).collect();
    let din: Vec<u8> = (0..n).flat_map(|i| f64s[(i * 7) % f64s.len()].to_le_bytes()).collect();
    let args = [Arg::Buffer(fin), Arg::Buffer(din), Arg::Buffer(vec![0xee; 16 * n])];
    let want = hx_tests::run_1d(&source, "cvt_edges", 64, (n / 64) as u32, &args, 2);
    let words: Vec<u32> = want.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // The source saturates: +inf gives i32::MAX and u32::MAX, NaN 0.
    assert_eq!((words[2 * 4], words[2 * 4 + 1]), (i32::MAX as u32, u32::MAX));
    assert_eq!((words[0], words[1]), (0, 0));
    hx_tests::assert_translations_match(&source, "cvt_edges", 64, (n / 64) as u32, &args, 2, &want, 4);
}

/// v_cvt_pk_bf16_f32 and v_fma_mixlo_bf16 (a * b rounded to bf16 into the low half, the high
/// half kept) at their edges: halfway cases both ways (ties to even), values just below and at
/// the overflow to infinity, quiet and signalling NaNs with payloads in either half, both zeros
/// and denormals. The raiser gives the targets an fptrunc to bfloat (gfx950's own
/// v_cvt_pk_bf16_f32, gfx942's expansion); both must match the gfx1250 original bit for bit.
#[test]
fn bf16_pack_rounds_as_the_source_does() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @bf16_edges(ptr addrspace(1) noalias readonly %f, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %i2 = shl i32 %i, 1
  %ie = zext i32 %i2 to i64
  %p0 = getelementptr inbounds float, ptr addrspace(1) %f, i64 %ie
  %a = load float, ptr addrspace(1) %p0, align 4
  %p1 = getelementptr inbounds float, ptr addrspace(1) %p0, i64 1
  %b = load float, ptr addrspace(1) %p1, align 4
  %r = call i32 asm "v_cvt_pk_bf16_f32 $0, $1, $2", "=v,v,v"(float %a, float %b)
  %m = call i32 asm "v_fma_mixlo_bf16 $0, $1, $2, 0", "=v,v,v,0"(float %a, float %b, i32 305419896)
  %oe = zext i32 %i2 to i64
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %oe
  store i32 %r, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q, i64 1
  store i32 %m, ptr addrspace(1) %q1, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;
    let rel = compile_ir(ir, "bf16_edges", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let edges: [u32; 24] = [
        0x3f80_8000, 0x3f81_8000, 0x3f80_8001, 0x3f80_7fff, 0xbf80_8000, 0xbf81_8000, // ties to even, just above and below
        0x7f7f_7fff, 0x7f7f_8000, 0x7f7f_ffff, 0xff7f_ffff, // the largest bf16, and past it to infinity
        0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc1_2345, 0x7f80_0001, 0x7fa0_0000, 0xff81_8000, // infinities and NaNs
        0x0000_0000, 0x8000_0000, 0x0000_8000, 0x0001_8000, 0x8000_0001, 0x007f_ffff, 0x3eaa_aaab,
    ];
    let n = 128usize;
    let mut state = 0x9e37_79b9u32;
    let words: Vec<u32> = (0..2 * n)
        .map(|k| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            if k % 3 == 2 { state } else { edges[(k * 5 + k / 7) % edges.len()] }
        })
        .collect();
    let args = [Arg::Buffer(words.iter().flat_map(|w| w.to_le_bytes()).collect()), Arg::Buffer(vec![0xee; 8 * n])];
    let want = hx_tests::run_1d(&source, "bf16_edges", 64, (n / 64) as u32, &args, 1);
    let out: Vec<u32> = want.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // Ties to even: 0x3f80_8000 -> 0x3f80, 0x3f81_8000 -> 0x3f82.
    let at = |w: u32| (0..2 * n).find(|&k| words[k] == w).map(|k| (out[k / 2 * 2] >> (16 * (k % 2))) & 0xffff).unwrap();
    assert_eq!((at(0x3f80_8000), at(0x3f81_8000), at(0x7f7f_ffff)), (0x3f80, 0x3f82, 0x7f80));
    assert!(out.chunks(2).all(|p| p[1] >> 16 == 0x1234), "v_fma_mixlo_bf16 keeps the high half: {out:x?}");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        if target == GpuTarget::Gfx950 {
            let co = hotswap::codeobj::CodeObject::parse(&t.bytes).unwrap();
            let (text, _) = hotswap::disasm::listing(&co, hotswap::disasm::Decoder::Own).unwrap();
            assert!(text.matches("v_cvt_pk_bf16_f32").count() >= 2, "gfx950 should use its own conversion for both:\n{text}");
        }
        let got = hx_tests::run_1d(&t.bytes, "bf16_edges", 64, (n / 64) as u32, &args, 1);
        hx_tests::assert_same_results(&want, &got, 8, target);
    }
}
