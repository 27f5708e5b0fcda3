//! Operations the raiser hands to the target's own instruction:
//! - `v_bfe_u32` and `v_bfe_i32` with per-thread offset and width, including width 0, offset +
//!   width past bit 31 and operands with bits above the low five set (the hardware reads only
//!   those), as `llvm.amdgcn.ubfe`/`sbfe`;
//! - `v_cls_i32` (gfx9's v_ffbh_i32) as `llvm.amdgcn.sffbh`;
//! - neg and abs source modifiers as `fneg`/`llvm.fabs`, which the backend folds into modifiers:
//!   on NaN bit patterns through an integer-valued select (`v_cndmask_b32`), exact bits.
//!
//! The source is checked against plain integer arithmetic, every translation against the source.

use hx_emu::launch::Arg;

const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @bfe(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %i3 = mul i32 %tid, 3
  %px = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i3
  %x = load i32, ptr addrspace(1) %px, align 4
  %po = getelementptr inbounds i32, ptr addrspace(1) %px, i32 1
  %o = load i32, ptr addrspace(1) %po, align 4
  %pw = getelementptr inbounds i32, ptr addrspace(1) %px, i32 2
  %w = load i32, ptr addrspace(1) %pw, align 4
  %u = call i32 asm sideeffect "v_bfe_u32 $0, $1, $2, $3", "=v,v,v,v"(i32 %x, i32 %o, i32 %w)
  %s = call i32 asm sideeffect "v_bfe_i32 $0, $1, $2, $3", "=v,v,v,v"(i32 %x, i32 %o, i32 %w)
  %c = call i32 asm sideeffect "v_cls_i32 $0, $1", "=v,v"(i32 %x)
  %m = call i32 asm sideeffect "v_cmp_ne_u32 vcc_lo, 0, $3\0Av_cndmask_b32_e64 $0, -|$1|, -$2, vcc_lo", "=v,v,v,v,~{vcc}"(i32 %o, i32 %w, i32 %x)
  %a = call i32 asm sideeffect "v_cvt_u32_f32 $0, |$1|", "=v,v"(i32 %o)
  %i2 = mul i32 %tid, 5
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %i2
  store i32 %u, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 1
  store i32 %s, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 2
  store i32 %c, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 3
  store i32 %m, ptr addrspace(1) %q3, align 4
  %q4 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 4
  store i32 %a, ptr addrspace(1) %q4, align 4
  ret void
}
"#;

/// Thread `t`'s (x, offset, width).
fn inputs(t: usize) -> (u32, u32, u32) {
    let xs = [0x8765_4321u32, 0xffff_ffff, 0x7fff_fffe, 0x0000_8001, 0, 0xc000_0000, 0x0000_0001];
    // Offsets and widths double as float bits for the modifiers: signalling and quiet NaNs of
    // both signs, -0.0, numbers.
    let offs = [0u32, 1, 7, 16, 31, 33, 0xffff_ffe4, 0x7fa0_0001, 0xff80_0002, 0x8000_0000, 0x4f80_0001];
    let widths = [0u32, 1, 5, 16, 31, 32, 0x25, 0xffc0_0003, 0x7f80_0005, 0xbf80_0000];
    (xs[t % xs.len()], offs[(t / xs.len()) % offs.len()], widths[(t / 3) % widths.len()])
}

/// The integer results of one thread: bfe_u32, bfe_i32, cls_i32.
fn reference((x, o, w): (u32, u32, u32)) -> [u32; 3] {
    let cls = if x == 0 || x == u32::MAX { u32::MAX } else { (x ^ ((x as i32 >> 31) as u32)).leading_zeros() };
    let (o, w) = (o & 31, w & 31);
    if w == 0 {
        return [0, 0, cls];
    }
    let u = (x >> o) & ((1u64 << w) - 1) as u32;
    let s = (((x as i32 >> o) << (32 - w)) >> (32 - w)) as u32;
    [u, s, cls]
}

#[test]
fn bit_operations_match_integer_arithmetic_and_the_source() {
    let source = hx_tests::gfx1250_object(KERNEL, "bfe");
    let ins: Vec<(u32, u32, u32)> = (0..64).map(inputs).collect();
    let in_bytes: Vec<u8> = ins.iter().flat_map(|&(x, o, w)| [x, o, w]).flat_map(u32::to_le_bytes).collect();
    let args = [Arg::Buffer(in_bytes), Arg::Buffer(vec![0xee; 64 * 20])];
    let want = hx_tests::run_1d(&source, "bfe", 64, 1, &args, 1);
    for (t, &i) in ins.iter().enumerate() {
        let got: Vec<u32> = want[20 * t..20 * t + 20].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got[..3], reference(i), "source, thread {t}, inputs {i:x?}");
        // The modifiers are bit operations: -|o| where x is 0, else -w.
        let (x, o, w) = i;
        assert_eq!(got[3], if x != 0 { w ^ 0x8000_0000 } else { o | 0x8000_0000 }, "source cndmask, thread {t}");
    }
    hx_tests::assert_translations_match(&source, "bfe", 64, 1, &args, 1, &want, 5);
}
