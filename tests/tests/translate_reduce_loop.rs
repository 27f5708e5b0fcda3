//! LLVM's atomic-optimizer loop (s_ctz / v_readlane / s_lshl / fold / s_and_not1 /
//! s_cbranch_scc1), which the raiser turns into one butterfly reduction per source wave
//! (crates/raise/src/ir/reduce_loop_ir.rs). Each fold the corpus kernels use, over lane masks
//! that are empty (the loop still runs once, on lane 31), full, sparse and random, in full and
//! partial waves. The source's results in the emulator are checked against a host fold; every
//! translation against the source.

use hx_emu::launch::Arg;

/// (fold instruction, host fold).
const FOLDS: [(&str, fn(u32, u32) -> u32); 5] = [
    ("s_max_i32 s21, s21, s23", |a, b| (a as i32).max(b as i32) as u32),
    ("s_min_u32 s21, s23, s21", |a, b| a.min(b)),
    ("s_add_co_i32 s21, s21, s23", |a, b| a.wrapping_add(b)),
    ("s_xor_b32 s21, s21, s23", |a, b| a ^ b),
    ("s_and_b32 s21, s21, s23", |a, b| a & b),
];

fn kernel(fold: &str) -> String {
    // %m: this wave's lane mask (kernel argument, mixed with the wave's number), limited to
    // the running lanes as the atomic optimizer's copy of EXEC is. Outputs per thread: the
    // fold (s21), the loop's last lane bit (s22), the last value read (s23), the mask (s20).
    format!(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @r(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out, i32 %mask, i32 %acc) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %px = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %px, align 4
  %w = lshr i32 %tid, 5
  %mix = mul i32 %w, 2654435769
  %rot = call i32 @llvm.fshl.i32(i32 %mask, i32 %mask, i32 %w)
  %m0 = xor i32 %rot, %mix
  %sel = icmp eq i32 %mask, 0
  %m1 = select i1 %sel, i32 0, i32 %m0
  %full = icmp eq i32 %mask, -1
  %m2 = select i1 %full, i32 -1, i32 %m1
  %m = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %m2)
  %r = call {{i32, i32, i32, i32}} asm sideeffect "s_mov_b32 s20, $5\0As_and_b32 s20, s20, exec_lo\0As_mov_b32 s21, $6\0Av_mov_b32 v10, $4\0A1:\0As_ctz_i32_b32 s22, s20\0Av_readlane_b32 s23, v10, s22\0As_lshl_b32 s22, 1, s22\0A{fold}\0As_and_not1_b32 s20, s20, s22\0As_cbranch_scc1 1b\0Av_mov_b32 $0, s21\0Av_mov_b32 $1, s22\0Av_mov_b32 $2, s23\0Av_mov_b32 $3, s20", "=v,=v,=v,=v,v,s,s,~{{v10}},~{{s20}},~{{s21}},~{{s22}},~{{s23}},~{{scc}}"(i32 %x, i32 %m, i32 %acc)
  %base = mul i32 %tid, 4
  br label %store
store:
  %r0 = extractvalue {{i32, i32, i32, i32}} %r, 0
  %r1 = extractvalue {{i32, i32, i32, i32}} %r, 1
  %r2 = extractvalue {{i32, i32, i32, i32}} %r, 2
  %r3 = extractvalue {{i32, i32, i32, i32}} %r, 3
  %q0 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %base
  store i32 %r0, ptr addrspace(1) %q0, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q0, i32 1
  store i32 %r1, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q0, i32 2
  store i32 %r2, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %q0, i32 3
  store i32 %r3, ptr addrspace(1) %q3, align 4
  ret void
}}
"#
    )
}

fn host(f: fn(u32, u32) -> u32, xs: &[u32], wave: usize, m: u32, acc: u32) -> [u32; 4] {
    let x = |l: u32| xs[wave * 32 + l as usize];
    if m == 0 {
        return [f(acc, x(31)), 1 << 31, x(31), 0];
    }
    let folded = (0..32).filter(|l| m >> l & 1 != 0).fold(acc, |a, l| f(a, x(l)));
    let last = 31 - m.leading_zeros();
    [folded, 1 << last, x(last), 0]
}

#[test]
fn reduction_loops_fold_the_lanes_of_their_mask() {
    for (fold, f) in FOLDS {
        let source = hx_tests::gfx1250_object(&kernel(fold), "r");
        // Raised as the butterfly: five steps, the read of the lowest lane of the mask and of
        // the last round's value, each a lane read within the source wave (and one more for
        // the kernel's v_readfirstlane); the loop's raising would read a lane in a loop.
        let ir = hotswap::translate::raised_ir(&source, &hotswap::Options::default()).unwrap();
        assert_eq!(ir.matches("call i32 @llvm.amdgcn.ds.bpermute").count(), 5 + 2 + 1, "{fold}: {ir}");
        for (block, mask) in [(64u32, 0u32), (64, u32::MAX), (64, 0x8000_0001), (64, 0x0f0f_3c01), (48, 0x9e37_79b9), (48, u32::MAX), (40, 0x0000_0100)] {
            let xs: Vec<u32> = (0..block).map(|t| (t.wrapping_mul(0x2545_f491) ^ 0x8765_4321).rotate_left(t % 32)).collect();
            let acc: u32 = 0x1357_9bdf;
            let args = [
                Arg::Buffer(xs.iter().flat_map(|v| v.to_le_bytes()).collect()),
                Arg::Buffer(vec![0xee; block as usize * 16]),
                Arg::Value(mask.to_le_bytes().to_vec()),
                Arg::Value(acc.to_le_bytes().to_vec()),
            ];
            let want = hx_tests::run_1d(&source, "r", block, 1, &args, 1);
            for t in 0..block as usize {
                let wave = t / 32;
                let running = if (wave as u32 + 1) * 32 <= block { u32::MAX } else { (1u32 << (block % 32)) - 1 };
                let m = if mask == 0 { 0 } else if mask == u32::MAX { u32::MAX } else { mask.rotate_left(wave as u32) ^ (wave as u32).wrapping_mul(2654435769) };
                let m = m & running;
                let got: Vec<u32> = (0..4).map(|k| u32::from_le_bytes(want[16 * t + 4 * k..16 * t + 4 * k + 4].try_into().unwrap())).collect();
                assert_eq!(got, host(f, &xs, wave, m, acc), "{fold}, block {block}, mask {mask:#x}, thread {t} (wave mask {m:#x})");
            }
            hx_tests::assert_translations_match(&source, "r", block, 1, &args, 1, &want, 4);
        }
    }
}
