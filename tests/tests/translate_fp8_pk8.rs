//! gfx1250's eight-element fp8 conversions, as Triton 3.9 emits them for `x.to(tl.float8e4nv)`,
//! `x.to(tl.float8e5)` and back (`v_cvt_scalef32_pk8_{fp8,bf8}_f32 .., 1.0`, then
//! `v_cvt_scale_pk8_f32_{fp8,bf8} .., 0x7f`), under `s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE,
//! 23, 1), 1` (MODE.FP16_OVFL, which Triton writes so that the downcasts saturate). Such a
//! kernel refused first with "v_cvt_scale_pk8_f32_fp8: unsupported VOP3 instruction", then with
//! "writing hwreg(HW_REG_WAVE_MODE, 23, 1) is not raised".
//!
//! The original's results are checked against a host reference written here from the OCP FP8
//! specification (the nearest representable value, ties to the even code; past the largest
//! finite value: NaN for E4M3, infinity for E5M2, or the largest finite value when saturating),
//! and the translations for gfx942 and gfx950 must equal the original bit for bit. f16, bf16 and
//! fp4 upcasts and the f16-source downcast are checked the same way.

use hx_emu::launch::Arg;

/// Every value of an 8-bit code (NaN: None). `e4m3`: OCP E4M3 (bias 7, S.1111.111 NaN, no
/// infinity); else E5M2 (bias 15, IEEE-like).
fn value(code: u8, e4m3: bool) -> Option<f64> {
    let (mbits, bias, ebits) = if e4m3 { (3, 7, 4) } else { (2, 15, 5) };
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((code & 0x7f) >> mbits) as i32;
    let m = (code & ((1 << mbits) - 1)) as f64;
    let emax = (1 << ebits) - 1;
    if e4m3 && code & 0x7f == 0x7f {
        return None;
    }
    if !e4m3 && e == emax {
        return if m == 0.0 { Some(sign * f64::INFINITY) } else { None };
    }
    let v = if e == 0 { m * 2f64.powi(1 - bias - mbits) } else { (1.0 + m / (1 << mbits) as f64) * 2f64.powi(e - bias) };
    Some(sign * v)
}

/// The host reference of a downcast: the code of x (NaN: None).
fn encode(x: f64, e4m3: bool, saturate: bool) -> Option<u8> {
    if x.is_nan() {
        return None;
    }
    let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
    let max = if e4m3 { 0x7eu8 } else { 0x7b };
    let overflow = if saturate { Some(sign | max) } else if e4m3 { None } else { Some(sign | 0x7c) };
    if x.is_infinite() {
        return overflow;
    }
    // The finite codes of x's sign, and one past the largest (the value the next code would have),
    // standing for overflow.
    let top = value(max, e4m3).unwrap_or(0.0);
    if x.abs() >= 2.0 * top {
        return overflow;
    }
    let mut best: Option<(f64, u8)> = None;
    for c in 0..=max + 1 {
        let v = if c == max + 1 {
            top + (top - value(max - 1, e4m3).unwrap_or(0.0))
        } else {
            value(c, e4m3).unwrap_or(f64::NAN)
        };
        let d = (x.abs() - v).abs();
        match best {
            Some((bd, bc)) if d > bd || (d == bd && (bc & 1 == 0 || c & 1 != 0)) => {}
            _ => best = Some((d, c)),
        }
    }
    let c = best.map(|b| b.1).unwrap_or(0);
    if c == max + 1 {
        return overflow;
    }
    Some(sign | c)
}

/// The value of f16 bits (NaN for NaN).
fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((h >> 10) & 0x1f, (h & 0x3ff) as f64);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

/// f16 inputs: ties, the largest finite value (past both formats' range), infinities, NaN,
/// subnormals.
const HALVES: &[u16] = &[0x3c00, 0x3c40, 0xbcc0, 0x5f00, 0x5f40, 0x5f41, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8200, 0x1800, 0x1400, 0x1600, 0x3555, 0xc7b3, 0x0000, 0x8000, 0x7a00, 0x7b00];

/// f16 bits of a value that f16 holds exactly.
fn f16_bits(v: f64) -> u16 {
    let sign = if v.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = v.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        return sign;
    }
    let e = a.log2().floor() as i32;
    if e < -14 {
        return sign | (a / 2f64.powi(-24)) as u16;
    }
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0) as u16;
    sign | (((e + 15) as u16) << 10) | m
}

const INPUTS: &[f32] = &[
    0.0, -0.0, 1.0, -1.5, 1.0625, 1.1875, -1.0625, 3.25, 448.0, 464.0, 464.5, -480.0, 500.0, 57344.0, 59392.0, 61000.0, -70000.0,
    0.001953125, 0.0009765625, 0.0029296875, -0.00146484375, 1.52587890625e-05, 7.62939453125e-06, 2.0e-06, 1.0e-40, -1.0e-40, 0.3, -7.7,
    f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0e30,
];

fn kernel(saturate: bool) -> String {
    let setreg = if saturate { "  call void @llvm.amdgcn.s.setreg(i32 1473, i32 1)\n" } else { "" };
    format!(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @pk8(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias readonly %hin, ptr addrspace(1) noalias %out) #0 {{
entry:
{setreg}  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t8 = mul i32 %tid, 8
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i32 %t8
  %x = load <8 x float>, ptr addrspace(1) %p, align 4
  %o = mul i32 %tid, 44
  %e4 = call <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.fp8.f32(<8 x float> %x, float 1.0)
  %e5 = call <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.bf8.f32(<8 x float> %x, float 1.0)
  %hp = getelementptr inbounds half, ptr addrspace(1) %hin, i32 %t8
  %h = load <8 x half>, ptr addrspace(1) %hp, align 4
  %e4h = call <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.fp8.f16(<8 x half> %h, float 1.0)
  %u4 = call <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.fp8(<2 x i32> %e4, i32 127, i32 0)
  %u5 = call <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.bf8(<2 x i32> %e5, i32 127, i32 0)
  %u5h = call <8 x half> @llvm.amdgcn.cvt.scale.pk8.f16.bf8(<2 x i32> %e5, i32 127, i32 0)
  %u4b = call <8 x bfloat> @llvm.amdgcn.cvt.scale.pk8.bf16.fp8(<2 x i32> %e4, i32 127, i32 0)
  %lo = extractelement <2 x i32> %e4, i32 0
  %u4f = call <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.fp4(i32 %lo, i32 127, i32 0)
  %u5hi = bitcast <8 x half> %u5h to <4 x i32>
  %u4bi = bitcast <8 x bfloat> %u4b to <4 x i32>
{}{}{}{}{}{}{}{}  ret void
}}
declare void @llvm.amdgcn.s.setreg(i32 immarg, i32)
declare <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.fp8.f32(<8 x float>, float)
declare <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.bf8.f32(<8 x float>, float)
declare <2 x i32> @llvm.amdgcn.cvt.scalef32.pk8.fp8.f16(<8 x half>, float)
declare <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.fp8(<2 x i32>, i32, i32 immarg)
declare <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.bf8(<2 x i32>, i32, i32 immarg)
declare <8 x half> @llvm.amdgcn.cvt.scale.pk8.f16.bf8(<2 x i32>, i32, i32 immarg)
declare <8 x bfloat> @llvm.amdgcn.cvt.scale.pk8.bf16.fp8(<2 x i32>, i32, i32 immarg)
declare <8 x float> @llvm.amdgcn.cvt.scale.pk8.f32.fp4(i32, i32, i32 immarg)
"#,
        hx_tests::store_slot("a", "<2 x i32>", "%e4", 0),
        hx_tests::store_slot("b", "<2 x i32>", "%e5", 2),
        hx_tests::store_slot("c", "<2 x i32>", "%e4h", 4),
        hx_tests::store_slot("d", "<8 x float>", "%u4", 6),
        hx_tests::store_slot("e", "<8 x float>", "%u5", 14),
        hx_tests::store_slot("f", "<4 x i32>", "%u5hi", 22),
        hx_tests::store_slot("g", "<4 x i32>", "%u4bi", 26),
        hx_tests::store_slot("h", "<8 x float>", "%u4f", 30),
    ) + "\n"
}

/// Output dwords per thread.
const PER: usize = 44;

fn input(threads: usize) -> Vec<f32> {
    (0..threads * 8).map(|i| if i < INPUTS.len() { INPUTS[i] } else { INPUTS[(i * 7 + i / 8) % INPUTS.len()] * if i % 3 == 0 { 0.37 } else { -2.1 } }).collect()
}

fn check(saturate: bool) {
    let threads = 32usize;
    let x = input(threads);
    let hx: Vec<u16> = (0..threads * 8).map(|i| HALVES[(i * 5 + i / 8) % HALVES.len()]).collect();
    let source = hx_tests::gfx1250_object(&kernel(saturate), "pk8");
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let hbytes: Vec<u8> = hx.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = [Arg::Buffer(bytes), Arg::Buffer(hbytes), Arg::Buffer(vec![0xee; threads * PER * 4])];
    let want = hx_tests::run_1d(&source, "pk8", threads as u32, 1, &args, 2);
    let dw = |t: usize, k: usize| u32::from_le_bytes(want[4 * (t * PER + k)..4 * (t * PER + k) + 4].try_into().unwrap());
    let byte = |t: usize, slot: usize, i: usize| (dw(t, slot + i / 4) >> (8 * (i % 4))) as u8;
    let half = |t: usize, slot: usize, i: usize| (dw(t, slot + i / 2) >> (16 * (i % 2))) as u16;
    for t in 0..threads {
        for i in 0..8 {
            let v = x[8 * t + i] as f64;
            let h = f16_value(hx[8 * t + i]);
            for (slot, e4m3, from) in [(0, true, v), (2, false, v), (4, true, h)] {
                let got = byte(t, slot, i);
                match encode(from, e4m3, saturate) {
                    Some(c) => assert_eq!(got, c, "thread {t} element {i}: {from} to {} (saturate {saturate})", if e4m3 { "e4m3" } else { "e5m2" }),
                    None => assert!(value(got, e4m3).is_none(), "thread {t} element {i}: {from} gave {got:#x}, not NaN"),
                }
            }
            // The upcasts: each code's value, exactly.
            for (slot, e4m3) in [(6, true), (14, false)] {
                let code = byte(t, if e4m3 { 0 } else { 2 }, i);
                let got = f32::from_bits(dw(t, slot + i));
                match value(code, e4m3) {
                    Some(w) => assert_eq!(got.to_bits(), (w as f32).to_bits(), "thread {t} element {i}: code {code:#x}"),
                    None => assert!(got.is_nan(), "thread {t} element {i}: code {code:#x} gave {got}"),
                }
            }
            let c5 = byte(t, 2, i);
            match value(c5, false) {
                Some(w) => assert_eq!(half(t, 22, i), f16_bits(w), "thread {t} element {i}: bf8 {c5:#x} to f16"),
                None => assert_eq!(half(t, 22, i) & 0x7c00, 0x7c00, "thread {t} element {i}: NaN to f16"),
            }
            let c4 = byte(t, 0, i);
            match value(c4, true) {
                Some(w) => assert_eq!(half(t, 26, i), ((w as f32).to_bits() >> 16) as u16, "thread {t} element {i}: fp8 {c4:#x} to bf16"),
                None => assert_eq!(half(t, 26, i) & 0x7f80, 0x7f80, "thread {t} element {i}: NaN to bf16"),
            }
            // fp4: nibble i of the e4m3 result's low dword.
            let n = (dw(t, 0) >> (4 * i)) & 0xf;
            let mag = [0.0f32, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][n as usize & 7];
            let w = if n & 8 != 0 { -mag } else { mag };
            assert_eq!(dw(t, 30 + i), w.to_bits(), "thread {t} element {i}: fp4 {n:#x}");
        }
    }
    hx_tests::assert_translations_match(&source, "pk8", threads as u32, 1, &args, 2, &want, PER);
}

#[test]
fn saturating_fp8_casts_translate_bit_for_bit() {
    check(true);
}

#[test]
fn overflowing_fp8_casts_translate_bit_for_bit() {
    check(false);
}

/// Under MODE.FP16_OVFL a 16-bit float result is refused by name: the GFX9 guides say the bit
/// clamps an overflowing f16 result, and which gfx1250 operations it reaches is not documented.
#[test]
fn half_arithmetic_under_fp16_ovfl_is_refused_by_name() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @h(ptr addrspace(1) noalias %out) #0 {
entry:
  call void @llvm.amdgcn.s.setreg(i32 1473, i32 1)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds half, ptr addrspace(1) %out, i32 %tid
  %x = load half, ptr addrspace(1) %p, align 2
  %y = fmul half %x, 0xH7800
  store half %y, ptr addrspace(1) %p, align 2
  ret void
}
declare void @llvm.amdgcn.s.setreg(i32 immarg, i32)
"#;
    let source = hx_tests::gfx1250_object(ir, "h");
    for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
        let e = hotswap::translate(&source, &hotswap::Options { target, ..Default::default() }).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("v_mul_f16") && e.contains("MODE.FP16_OVFL"), "{target}: {e}");
    }
}
