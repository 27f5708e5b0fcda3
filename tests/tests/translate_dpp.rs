//! DPP, ds_swizzle and ds_permute under a partial EXEC, translated: a gfx1250 kernel computes
//! cross-lane values inside a branch that leaves lanes with (lane & 5) == 4 inactive, in work-groups of 48
//! (one full wave32 and one of 16 lanes; on the wave64 targets both source waves share one
//! wave). Its translations for gfx942 and gfx950 must give, in the emulator, memory
//! bit-identical to the gfx1250 original: inactive and absent source lanes, bound_ctrl, the
//! row/bank masks and the lanes nobody permutes to (two lanes send to each target lane) are where raised code and emulator could part.

use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, OptLevel};

/// Results per thread.
const K: u32 = 10;

/// `llvm.amdgcn.update.dpp` of %x as `%{name}`.
fn dpp(name: &str, old: u32, ctrl: u32, row: u32, bank: u32, bc: bool) -> String {
    format!("  %{name} = call i32 @llvm.amdgcn.update.dpp.i32(i32 {old}, i32 %x, i32 {ctrl}, i32 {row}, i32 {bank}, i1 {bc})\n")
}

fn kernel_ir() -> String {
    let mut body = String::new();
    body += &dpp("r0", 7, 0x111, 15, 15, false); // row_shr:1
    body += &dpp("r1", 9, 0x161, 15, 15, false); // row_xmask:1
    body += &dpp("r2", 11, 0x153, 15, 15, true); // row_share:3, bound_ctrl
    body += "  %r3 = call i32 @llvm.amdgcn.mov.dpp8.i32(i32 %x, i32 1107411)\n"; // dpp8:[3,2,1,0,7,6,5,4]... (any selects)
    body += &dpp("r4", 13, 0x1b, 1, 10, false); // quad_perm:[3,2,1,0] row_mask:0x1 bank_mask:0xa
    body += &dpp("r5", 0, 0x140, 15, 15, true); // row_mirror
    body += &dpp("r6", 5, 0x121, 15, 15, false); // row_ror:1
    body += "  %d7 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 274, i32 15, i32 15, i1 true)\n  %r7 = add i32 %x, %d7\n"; // row_shr:2 folded into the add
    body += "  %r8 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 1055)\n"; // SWAP,1
    body += "  %l7 = lshr i32 %lane, 1\n  %l71 = xor i32 %l7, 5\n  %pl = and i32 %l71, 31\n  %pa = shl i32 %pl, 2\n  %r9 = call i32 @llvm.amdgcn.ds.permute(i32 %pa, i32 %x)\n";
    branch_kernel(&body, K)
}

/// Kernel `dpp_div`: `body` (defining %r0..%r{k-1} from %x and %lane) inside a branch that
/// leaves lanes with (lane & 5) == 4 inactive, in work-groups of 48; `k` results per thread.
fn branch_kernel(body: &str, k: u32) -> String {
    let phis: String = (0..k).map(|j| format!("  %p{j} = phi i32 [ %r{j}, %t ], [ 85, %entry ]\n")).collect();
    let code = format!("  %m3 = and i32 %lane, 5\n  %on = icmp ne i32 %m3, 4\n  br i1 %on, label %t, label %join\nt:\n{body}  br label %join\njoin:\n{phis}");
    dpp_kernel("dpp_div", 48, &code, "p", k)
}

/// Kernel `name` in work-groups of `group`: each thread loads %x = in[gid], runs `code`, and
/// stores `%{result}0..%{result}{k-1}` to out[gid * k + j].
fn dpp_kernel(name: &str, group: u32, code: &str, result: &str, k: u32) -> String {
    let stores: String = (0..k)
        .map(|j| format!("  %o{j} = add i32 %ob, {j}\n  %oe{j} = zext i32 %o{j} to i64\n  %q{j} = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %oe{j}\n  store i32 %{result}{j}, ptr addrspace(1) %q{j}, align 4\n"))
        .collect();
    format!(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @{name}(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {{
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %wg, {group}
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4
{code}  %ob = mul i32 %gid, {k}
{stores}  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg)
declare i32 @llvm.amdgcn.mov.dpp8.i32(i32, i32 immarg)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare i32 @llvm.amdgcn.ds.permute(i32, i32)
attributes #0 = {{ "amdgpu-flat-work-group-size"="{group},{group}" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !"amdhsa_code_object_version", i32 500}}
"#
    )
}

fn run(co_bytes: &[u8], input: &[u32], groups: u32, k: u32) -> Vec<u8> {
    let n = (48 * groups) as usize;
    let inb: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = [Arg::Buffer(inb), Arg::Buffer(vec![0xee; 4 * n * k as usize])];
    hx_tests::run_1d(co_bytes, "dpp_div", 48, groups, &args, 1)
}

#[test]
fn cross_lane_ops_under_partial_exec_translate_exactly() {
    let rel = compile_ir(&kernel_ir(), "dpp_div", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let asm = String::from_utf8(compile_ir(&kernel_ir(), "dpp_div", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    for want in ["row_xmask:1", "row_share:3", "dpp8:", "row_mask:0x1 bank_mask:0xa", "v_add_nc_u32_dpp", "ds_swizzle_b32", "ds_permute_b32", "s_and_saveexec_b32"] {
        assert!(asm.contains(want), "the gfx1250 build has no {want}:\n{asm}");
    }
    let groups = 3;
    let input: Vec<u32> = (0..48 * groups).map(|i| 0x1000_0000u32.wrapping_mul(i + 1) ^ (i * 0x9e37)).collect();
    let want = run(&source, &input, groups, K);
    let words: Vec<u32> = want.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // Every result column has values of its own (not only the branch's default 85).
    for j in 0..K as usize {
        assert!(words.iter().skip(j).step_by(K as usize).any(|&w| w != 85), "column {j} is all default");
    }
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = run(&t.bytes, &input, groups, K);
        hx_tests::assert_same_results(&want, &got, K as usize, target);
    }
}

/// Row-local DPP outside any branch, where the raiser uses the target's DPP as it is (EXEC
/// there is the source's), in work-groups of 40: the second source wave has 8 lanes, so rows
/// read absent lanes (row_shl, row_ror, row_mirror, quad_perm over lanes 8..15), with and
/// without bound_ctrl, and with row/bank masks.
fn flat_kernel_ir() -> String {
    let mut body = String::new();
    body += &dpp("r0", 7, 0x111, 15, 15, false); // row_shr:1
    body += &dpp("r1", 0, 0x103, 15, 15, true); // row_shl:3, bound_ctrl
    body += &dpp("r2", 9, 0x125, 15, 15, false); // row_ror:5
    body += &dpp("r3", 13, 0x1b, 1, 10, false); // quad_perm:[3,2,1,0] row_mask:0x1 bank_mask:0xa
    body += &dpp("r4", 0, 0x140, 15, 15, true); // row_mirror, bound_ctrl
    body += &dpp("r5", 3, 0x141, 15, 15, false); // row_half_mirror
    body += &dpp("r6", 11, 0x104, 2, 15, false); // row_shl:4 row_mask:0x2
    body += "  %d7 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 274, i32 15, i32 15, i1 true)\n  %r7 = add i32 %x, %d7\n"; // row_shr:2 folded into the add
    dpp_kernel("dpp_flat", 40, &body, "r", 8)
}

#[test]
fn row_local_dpp_with_absent_lanes_translates_exactly() {
    let rel = compile_ir(&flat_kernel_ir(), "dpp_flat", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let asm = String::from_utf8(compile_ir(&flat_kernel_ir(), "dpp_flat", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    for want in ["row_shl:3", "row_ror:5", "row_mask:0x1 bank_mask:0xa", "row_half_mirror", "row_mask:0x2", "v_add_nc_u32_dpp"] {
        assert!(asm.contains(want), "the gfx1250 build has no {want}:\n{asm}");
    }
    assert!(!asm.contains("exec"), "the gfx1250 build changes EXEC:\n{asm}");
    let groups = 3;
    let n = 40 * groups;
    let input: Vec<u32> = (0..n).map(|i| 0x1000_0000u32.wrapping_mul(i + 1) ^ (i * 0x9e37)).collect();
    let inb: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = [Arg::Buffer(inb), Arg::Buffer(vec![0xee; 4 * n as usize * 8])];
    let want = hx_tests::run_1d(&source, "dpp_flat", 40, groups, &args, 1);
    let words: Vec<u32> = want.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // Reads of absent lanes happen: the 8-lane wave's row_shl:3 gives 0 at lanes 5..7.
    assert_eq!(words[(32 + 5) * 8 + 1], 0, "row_shl:3 from an absent lane");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let options = Options { target, ..Default::default() };
        let t = hotswap::translate(&source, &options).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = hx_tests::run_1d(&t.bytes, "dpp_flat", 40, groups, &args, 1);
        hx_tests::assert_same_results(&want, &got, 8, target);
        // The moves that keep their destination somewhere are the target's own DPP with that
        // destination as the old value: no bound_ctrl, each source row mask on both source
        // waves' rows (0x1 -> 0x5, 0x2 -> 0xa), the bank mask as it is.
        let asm = String::from_utf8(hotswap::translate::translate_code_object_to(&source, &options, hotswap::translate::Output::Assembly).unwrap()).unwrap();
        for want in ["row_shr:1 row_mask:0xf bank_mask:0xf\n", "row_ror:5 row_mask:0xf bank_mask:0xf\n", "quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa\n", "row_shl:4 row_mask:0xa bank_mask:0xf\n"] {
            assert!(asm.lines().any(|l| l.contains("v_mov_b32_dpp") && format!("{l}\n").ends_with(want)), "{target}: no v_mov_b32_dpp ... {want:?}:\n{asm}");
        }
    }
}

/// Row-local DPP alone inside the branch: structure recovery makes the branch each thread's own
/// (the target's DPP reads the lanes that skipped it as inactive, as the source does), so this
/// checks that reasoning against the emulator, partial waves and bound_ctrl included.
#[test]
fn row_local_dpp_in_a_thread_branch_translates_exactly() {
    let mut body = String::new();
    body += &dpp("r0", 7, 0x111, 15, 15, false); // row_shr:1
    body += &dpp("r1", 0, 0x103, 15, 15, true); // row_shl:3, bound_ctrl
    body += &dpp("r2", 13, 0x1b, 1, 10, false); // quad_perm:[3,2,1,0] row_mask:0x1 bank_mask:0xa
    body += &dpp("r3", 5, 0x121, 15, 15, false); // row_ror:1
    body += "  %d4 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 274, i32 15, i32 15, i1 true)\n  %r4 = add i32 %x, %d4\n"; // row_shr:2 folded into the add
    let ir = branch_kernel(&body, 5);
    let rel = compile_ir(&ir, "dpp_div", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let asm = String::from_utf8(compile_ir(&ir, "dpp_div", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    for want in ["row_shl:3", "row_mask:0x1 bank_mask:0xa", "v_add_nc_u32_dpp", "s_and_saveexec_b32"] {
        assert!(asm.contains(want), "the gfx1250 build has no {want}:\n{asm}");
    }
    let groups = 3;
    let input: Vec<u32> = (0..48 * groups).map(|i| 0x3000_0000u32.wrapping_mul(i + 3) ^ (i * 0x7f4a)).collect();
    let want = run(&source, &input, groups, 5);
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = run(&t.bytes, &input, groups, 5);
        hx_tests::assert_same_results(&want, &got, 5, target);
    }
}
