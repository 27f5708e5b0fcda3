//! Structure recovery, translated and run: a gfx1250 kernel with if-then regions that qualify
//! (nested, with loads, stores and a scalar load inside) and regions that must stay predicated
//! (readlane and a ballot inside; hand-written regions whose saved mask is overwritten, or
//! whose body writes an SGPR read after the join). Work-groups of 48 (one full wave32 and one of
//! 16 lanes; both share one wave64 on the targets). The translations for gfx942 and gfx950 must
//! give, in the emulator, memory bit-identical to the gfx1250 original; hx_raise::structure
//! must recover exactly the regions that qualify.

use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, OptLevel};

/// Results per thread.
const K: u32 = 9;

const IR: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @regions(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out, ptr addrspace(1) noalias readonly %tab) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %wg, 48
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load i32, ptr addrspace(1) %xp, align 4
  %ob = mul i32 %gid, 9
  %o0 = zext i32 %ob to i64
  %q0 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %o0
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 1
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 2
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 3
  %q4 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 4
  %q5 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 5
  %q6 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 6
  %q7 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 7
  %q8 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 8
  %x7 = and i32 %x, 7
  %c1 = icmp ult i32 %x7, 5
  br i1 %c1, label %then, label %join1
then:
  %ti = and i32 %x, 15
  %tie = zext i32 %ti to i64
  %tp = getelementptr inbounds i32, ptr addrspace(1) %tab, i64 %tie
  %t = load i32, ptr addrspace(1) %tp, align 4
  %x3 = mul i32 %x, 3
  store i32 %x3, ptr addrspace(1) %q0, align 4
  %tt = and i32 %t, 3
  %c2 = icmp ne i32 %tt, 0
  br i1 %c2, label %inner, label %join1
inner:
  %s = add i32 %x, %t
  store i32 %s, ptr addrspace(1) %q1, align 4
  br label %join1
join1:
  %xb = lshr i32 %x, 3
  %xb1 = and i32 %xb, 1
  %c3 = icmp eq i32 %xb1, 0
  br i1 %c3, label %cross, label %join2
cross:
  %r = call i32 @llvm.amdgcn.readlane.i32(i32 %x, i32 3)
  %big = icmp ugt i32 %x, 100000
  %b = call i32 @llvm.amdgcn.ballot.i32(i1 %big)
  %rb = xor i32 %r, %b
  store i32 %rb, ptr addrspace(1) %q2, align 4
  br label %join2
join2:
  ; Saved mask overwritten inside: EXEC stays narrowed after the "restore".
  %v3 = call i32 asm sideeffect "s_mov_b32 s42, exec_lo\0Av_mov_b32 $0, $1\0As_mov_b32 s40, exec_lo\0Av_cmpx_gt_u32_e32 40, $2\0As_cbranch_execz .Lj${:uid}\0Av_add_nc_u32_e32 $0, 7, $0\0As_mov_b32 s40, 0\0A.Lj${:uid}:\0As_or_b32 exec_lo, exec_lo, s40\0Av_add_nc_u32_e32 $0, 1, $0\0As_mov_b32 exec_lo, s42", "=&v,v,v,~{s40},~{s42},~{exec},~{vcc}"(i32 %x, i32 %lane)
  store i32 %v3, ptr addrspace(1) %q3, align 4
  ; An SGPR written inside and read after the join: every lane of the wave sees it.
  %v4 = call i32 asm sideeffect "s_mov_b32 s41, 0\0As_mov_b32 s40, exec_lo\0Av_cmpx_gt_u32_e32 5, $1\0As_cbranch_execz .Lk${:uid}\0As_mov_b32 s41, 9\0A.Lk${:uid}:\0As_or_b32 exec_lo, exec_lo, s40\0Av_add_nc_u32_e32 $0, s41, $2", "=&v,v,v,~{s40},~{s41},~{exec},~{vcc}"(i32 %lane, i32 %x)
  store i32 %v4, ptr addrspace(1) %q4, align 4
  store i32 %x, ptr addrspace(1) %q5, align 4
  ; A divergent loop (data-dependent trip count): raised as each thread's own loop.
  %lim = and i32 %x, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %join2 ], [ %i1, %loop ]
  %acc = phi i32 [ %x, %join2 ], [ %acc1, %loop ]
  %acc5 = mul i32 %acc, 5
  %acc1 = add i32 %acc5, %i
  %i1 = add i32 %i, 1
  %done = icmp uge i32 %i1, %lim
  br i1 %done, label %exit, label %loop
exit:
  store i32 %acc1, ptr addrspace(1) %q6, align 4
  ; A divergent loop whose counter is read after it: every lane sees the wave's last count,
  ; so it must stay predicated.
  %l1 = and i32 %lane, 7
  %l2 = add i32 %l1, 1
  %v7 = call i32 asm sideeffect "s_mov_b32 s44, 0\0As_mov_b32 s45, 0\0A.Ll${:uid}:\0As_add_co_i32 s45, s45, 1\0Av_cmp_ge_u32_e32 vcc_lo, s45, $1\0As_or_b32 s44, vcc_lo, s44\0As_and_not1_b32 exec_lo, exec_lo, s44\0As_cbranch_execnz .Ll${:uid}\0As_or_b32 exec_lo, exec_lo, s44\0Av_mov_b32 $0, s45", "=v,v,~{s44},~{s45},~{exec},~{vcc},~{scc}"(i32 %l2)
  store i32 %v7, ptr addrspace(1) %q7, align 4
  ; If-else, the else-arm holding a divergent loop.
  %odd = and i32 %x, 16
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %tarm, label %earm
tarm:
  %ta = mul i32 %x, 7
  %tt2 = add i32 %ta, %lane
  br label %ejoin
earm:
  %n = and i32 %gid, 3
  br label %eloop
eloop:
  %j = phi i32 [ 0, %earm ], [ %j1, %eloop ]
  %ea = phi i32 [ %x, %earm ], [ %ea1, %eloop ]
  %ea3 = mul i32 %ea, 3
  %ea1 = xor i32 %ea3, %j
  %j1 = add i32 %j, 1
  %edone = icmp ugt i32 %j1, %n
  br i1 %edone, label %ejoin, label %eloop
ejoin:
  %y = phi i32 [ %tt2, %tarm ], [ %ea1, %eloop ]
  store i32 %y, ptr addrspace(1) %q8, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.ballot.i32(i1)
attributes #0 = { "amdgpu-flat-work-group-size"="48,48" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

/// The gfx1250 code object of `ir`, the graph of its kernel `name`, and the regions structure
/// recovery finds in it.
fn compile_and_recover(ir: &str, name: &str) -> (Vec<u8>, hx_raise::cfg::Cfg, hx_raise::structure::Structure) {
    let rel = compile_ir(ir, name, GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
    let source = hx_relink::link(&rel).unwrap();
    let co = hotswap::codeobj::CodeObject::parse(&source).unwrap();
    let k = co.kernels.iter().find(|k| k.name == name).unwrap();
    let g = hx_raise::cfg::build(hotswap::isa::Target::Gfx1250, co.kernel_code(k), name).unwrap();
    let s = hx_raise::structure::recover(&g);
    (source, g, s)
}

/// A block's instructions as text, a line each.
fn text(b: &hx_raise::cfg::Block) -> String {
    b.insts.iter().map(|i| i.text()).collect::<Vec<_>>().join("\n")
}

fn run(co_bytes: &[u8], input: &[u32], tab: &[u32], groups: u32) -> Vec<u8> {
    let n = (48 * groups) as usize;
    let bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|v| v.to_le_bytes()).collect() };
    let args = [Arg::Buffer(bytes(input)), Arg::Buffer(vec![0xee; 4 * n * K as usize]), Arg::Buffer(bytes(tab))];
    hx_tests::run_1d(co_bytes, "regions", 48, groups, &args, 1)
}

#[test]
fn recovered_and_predicated_regions_translate_exactly() {
    // Which regions the raiser recovers: the two LLVM if-thens (the outer with its nested one),
    // not the one with readlane/ballot, nor the two hand-written ones.
    let (source, g, s) = compile_and_recover(IR, "regions");
    let execz: Vec<usize> = (0..g.blocks.len()).filter(|&b| matches!(g.blocks[b].exit, hx_raise::cfg::Exit::Cond { cond: hx_raise::cfg::Cond::Execz, .. })).collect();
    let recovered: Vec<usize> = execz.iter().copied().filter(|&b| s.head[b]).collect();
    let listing: String = g.blocks.iter().map(|b| format!("{:#x}:\n{}\n", b.start, text(b))).collect();
    // The outer if and its nested one, the else-arm of the if-else; not the three with cross-lane
    // or hand-written contents.
    assert!(execz.len() >= 6, "{listing}");
    assert_eq!(recovered.len(), execz.len() - 3, "recovered heads {recovered:?} of {execz:?}\n{listing}");
    for &b in &execz {
        let hx_raise::cfg::Exit::Cond { fall, .. } = g.blocks[b].exit else { unreachable!() };
        let body = text(&g.blocks[g.block_at(fall).unwrap()]);
        let cross = body.contains("v_readlane") || body.contains("s40, 0") || body.contains("s41, 9");
        assert_eq!(s.head[b], !cross, "block {:#x}\n{listing}", g.blocks[b].start);
    }
    // The hand-written loop (its counter is live after it) is not recovered.
    let latch = g.blocks.iter().position(|b| text(b).contains("s_add_co_i32 s45, s45, 1")).unwrap();
    assert!(!s.head[latch], "{listing}");
    let groups = 3;
    let input: Vec<u32> = (0..48 * groups).map(|i| 0x9e37_79b9u32.wrapping_mul(i + 1) >> (i % 13)).collect();
    let tab: Vec<u32> = (0..16).map(|i| 0x8567_1235u32.wrapping_mul(i + 7)).collect();
    let want = run(&source, &input, &tab, groups);
    // Every result column has values written by the kernel (not only the 0xee fill).
    let words: Vec<u32> = want.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    for j in 0..K as usize {
        assert!(words.iter().skip(j).step_by(K as usize).any(|&w| w != 0xeeee_eeee), "column {j} is never written");
    }
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = run(&t.bytes, &input, &tab, groups);
        hx_tests::assert_same_results(&want, &got, K as usize, target);
    }
}

/// A divergent loop that ends the body of an if-then, with work before it in the body, and
/// nothing it computes live after it: LLVM then leaves out the loop's own restore, so the loop's
/// exit is the if-then's join, reached from the loop and from the if-then's skip edge (as
/// hip/atomics' compare-and-swap loop after its reductions). Both are recovered; the
/// translations compute what the source does.
const LOOP_IN_IF: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @loop_in_if(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %wg, 48
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %ge
  %x = load volatile i32, ptr addrspace(1) %xp, align 4
  %o = mul i64 %ge, 3
  %q0 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %o
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 1
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %q0, i64 2
  %odd = and i32 %x, 1
  %c = icmp ne i32 %odd, 0
  br i1 %c, label %then, label %join
then:
  %y = mul i32 %x, 3
  store volatile i32 %y, ptr addrspace(1) %q0, align 4
  br label %loop
loop:
  %i = phi i32 [ %x, %then ], [ %i2, %loop ]
  %s = phi i32 [ 0, %then ], [ %s2, %loop ]
  %s2 = add i32 %s, %i
  store volatile i32 %s2, ptr addrspace(1) %q1, align 4
  %i2 = lshr i32 %i, 1
  %more = icmp ugt i32 %i2, 3
  br i1 %more, label %loop, label %join
join:
  store volatile i32 %lane, ptr addrspace(1) %q2, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="48,48" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

#[test]
fn a_loop_that_ends_an_if_then_is_recovered_with_it() {
    let (source, g, s) = compile_and_recover(LOOP_IN_IF, "loop_in_if");
    let listing: String = g.blocks.iter().map(|b| format!("{:#x}:\n{}\n", b.start, text(b))).collect();
    let heads = |c: hx_raise::cfg::Cond| -> Vec<usize> { (0..g.blocks.len()).filter(|&b| matches!(g.blocks[b].exit, hx_raise::cfg::Exit::Cond { cond, .. } if cond == c)).collect() };
    let (ifs, latches) = (heads(hx_raise::cfg::Cond::Execz), heads(hx_raise::cfg::Cond::Execnz));
    assert_eq!((ifs.len(), latches.len()), (1, 1), "{listing}");
    // The loop is entered from the body's first block, not from the if-then's head.
    let hx_raise::cfg::Exit::Cond { fall: body, .. } = g.blocks[ifs[0]].exit else { unreachable!() };
    assert_ne!(g.block_at(body), Some(latches[0]), "{listing}");
    assert!(s.head[ifs[0]] && s.head[latches[0]], "{listing}");
    let n = 48 * 2;
    let input: Vec<u32> = (0..n).map(|i| 0x9e37_79b9u32.wrapping_mul(i + 1) >> (i % 23)).collect();
    let args = [Arg::Buffer(input.iter().flat_map(|v| v.to_le_bytes()).collect()), Arg::Buffer(vec![0xee; 12 * n as usize])];
    let want = hx_tests::run_1d(&source, "loop_in_if", 48, 2, &args, 1);
    for (t, &x) in input.iter().enumerate() {
        let word = |k: usize| u32::from_le_bytes(want[12 * t + 4 * k..12 * t + 4 * k + 4].try_into().unwrap());
        assert_eq!(word(2), t as u32 % 48, "thread {t}");
        if x & 1 == 0 {
            assert_eq!((word(0), word(1)), (0xeeee_eeee, 0xeeee_eeee), "thread {t}");
            continue;
        }
        let (mut i, mut sum) = (x, 0u32);
        loop {
            sum = sum.wrapping_add(i);
            i >>= 1;
            if i <= 3 {
                break;
            }
        }
        assert_eq!((word(0), word(1)), (x.wrapping_mul(3), sum), "thread {t}");
    }
    hx_tests::assert_translations_match(&source, "loop_in_if", 48, 2, &args, 1, &want, 3);
}
