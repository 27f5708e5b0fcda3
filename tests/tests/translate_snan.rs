//! Signaling NaNs through operations LLVM may fold to an operand: `v_max_num_f32 x, x` (the
//! gfx1250 canonicalize), `v_ldexp_f32 x, 0`, `v_mul_f32 1.0, x` and `v_add_f64 x, -0.0`. The
//! hardware quietens a signaling NaN in each; LLVM's folds (`maxnum(x, x)`, `ldexp(x, 0)`,
//! `x * 1.0`, `x + -0.0` to `x`) would pass it through, so the raiser canonicalises their
//! results. Found by tests/tests/mutation_diff.rs (an ldexp whose exponent LLVM knew was 0).

use hx_emu::launch::Arg;

/// The kernel, without [`hx_tests::kernel_ir`]'s tail.
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @snan(ptr addrspace(1) noalias readonly %f, ptr addrspace(1) noalias readonly %d, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %fp = getelementptr inbounds float, ptr addrspace(1) %f, i32 %tid
  %x = load float, ptr addrspace(1) %fp, align 4
  %dp = getelementptr inbounds double, ptr addrspace(1) %d, i32 %tid
  %y = load double, ptr addrspace(1) %dp, align 8
  %a = call float asm "v_max_num_f32 $0, $1, $1", "=v,v"(float %x)
  %b = call float asm "v_ldexp_f32 $0, $1, 0", "=v,v"(float %x)
  %c = call float asm "v_mul_f32 $0, 1.0, $1", "=v,v"(float %x)
  %e = call double asm "v_add_f64 $0, $1, 0x8000000000000000", "=v,v"(double %y)
  %o = mul i32 %tid, 5
  %q = getelementptr inbounds float, ptr addrspace(1) %out, i32 %o
  store float %a, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds float, ptr addrspace(1) %q, i32 1
  store float %b, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds float, ptr addrspace(1) %q, i32 2
  store float %c, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds float, ptr addrspace(1) %q, i32 3
  store double %e, ptr addrspace(1) %q3, align 4
  ret void
}
"#;

#[test]
fn signaling_nans_come_out_quiet_as_from_the_source() {
    let source = hx_tests::gfx1250_object(KERNEL, "snan");
    // Signaling NaNs of both signs with payloads, a quiet NaN, numbers.
    let f32s: [u32; 6] = [0x7fa0_0001, 0xff80_1234, 0x7fc0_0005, 0x3f80_0000, 0x8000_0001, 0x7f80_0000];
    let f64s: [u64; 4] = [0x7ff4_0000_0000_0001, 0xfff0_0000_0000_0abc, 0x7ff8_0000_0000_0002, 0x4000_0000_0000_0000];
    let fin: Vec<u8> = (0..64).flat_map(|i| f32s[i % f32s.len()].to_le_bytes()).collect();
    let din: Vec<u8> = (0..64).flat_map(|i| f64s[i % f64s.len()].to_le_bytes()).collect();
    let args = [Arg::Buffer(fin), Arg::Buffer(din), Arg::Buffer(vec![0xee; 64 * 20])];
    let want = hx_tests::run_1d(&source, "snan", 64, 1, &args, 2);
    // The source quietens: each f32 result of a NaN input has the quiet bit set, payload kept.
    for t in 0..64 {
        let w = |k: usize| u32::from_le_bytes(want[20 * t + 4 * k..20 * t + 4 * k + 4].try_into().unwrap());
        let x = f32s[t % f32s.len()];
        if f32::from_bits(x).is_nan() {
            for k in 0..3 {
                assert_eq!(w(k), x | 0x40_0000, "source, thread {t}, result {k}");
            }
        }
        let d = u64::from_le_bytes(want[20 * t + 12..20 * t + 20].try_into().unwrap());
        let y = f64s[t % f64s.len()];
        if f64::from_bits(y).is_nan() {
            assert_eq!(d, y | 1 << 51, "source, thread {t}, f64");
        }
    }
    hx_tests::assert_translations_match(&source, "snan", 64, 1, &args, 2, &want, 20);
}
