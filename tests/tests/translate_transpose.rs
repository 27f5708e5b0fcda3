//! gfx1250 ds_load_tr8_b64 and ds_load_tr16_b128 (the transpose loads Triton's gfx1250 int8/fp8
//! and f16/bf16 matmuls use), translated:
//! a kernel in work-groups of 64 (two wave32s; on the wave64 targets both share one wave) stores
//! each thread's 8 input bytes to LDS, then transpose-loads from addresses permuted across the
//! group, once with every lane on and once inside a branch that leaves lanes 16-31 of each
//! wave32 (a whole 16-lane group) off. The gfx1250 run must give the pinned reading
//! (hx_emu::mem_ops::ds_transpose_source, checked here on hand-worked lanes), and its translations
//! the same memory, bit for bit: for gfx942 (bpermuted addresses and byte or 16-bit loads) and for
//! gfx950 (its own ds_read_b64_tr_b8 / two ds_read_b64_tr_b16 after address permutes).

use hx_emu::launch::Arg;

/// The kernel's IR (hx_tests::gfx1250_object completes it), with `{T}` a thread's input type,
/// `{V}` the load's result type, `{F}` the intrinsic's suffix and `{D}` the branch's default
/// result (85 in every dword): see [`kernel`].
const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [64 x {T}] poison, align 16
define amdgpu_kernel void @tr(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %wg, 64
  %gid = add i32 %base, %lane
  %ge = zext i32 %gid to i64
  %xp = getelementptr inbounds {T}, ptr addrspace(1) %in, i64 %ge
  %x = load {T}, ptr addrspace(1) %xp, align 8
  %sp = getelementptr inbounds [64 x {T}], ptr addrspace(3) @lds, i32 0, i32 %lane
  store {T} %x, ptr addrspace(3) %sp, align 8
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %l5 = mul i32 %lane, 5
  %l5m = and i32 %l5, 63
  %ap = getelementptr inbounds [64 x {T}], ptr addrspace(3) @lds, i32 0, i32 %l5m
  %r0 = call {V} @llvm.amdgcn.ds.load.{F}(ptr addrspace(3) %ap)
  %g = and i32 %lane, 16
  %on = icmp eq i32 %g, 0
  br i1 %on, label %t, label %join
t:
  %l3 = mul i32 %lane, 3
  %l3m = and i32 %l3, 63
  %bp = getelementptr inbounds [64 x {T}], ptr addrspace(3) @lds, i32 0, i32 %l3m
  %r1t = call {V} @llvm.amdgcn.ds.load.{F}(ptr addrspace(3) %bp)
  br label %join
join:
  %r1 = phi {V} [ %r1t, %t ], [ {D}, %entry ]
  %o = mul i64 %ge, 2
  %q0 = getelementptr inbounds {V}, ptr addrspace(1) %out, i64 %o
  store {V} %r0, ptr addrspace(1) %q0, align 8
  %o1 = add i64 %o, 1
  %q1 = getelementptr inbounds {V}, ptr addrspace(1) %out, i64 %o1
  store {V} %r1, ptr addrspace(1) %q1, align 8
  ret void
}
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()
declare {V} @llvm.amdgcn.ds.load.{F}(ptr addrspace(3))
"#;

fn kernel(tr16: bool) -> String {
    let (t, v, f, d) = if tr16 {
        ("i128", "<8 x i16>", "tr16.b128.v8i16", "<i16 85, i16 0, i16 85, i16 0, i16 85, i16 0, i16 85, i16 0>")
    } else {
        ("i64", "<2 x i32>", "tr8.b64.v2i32", "<i32 85, i32 85>")
    };
    KERNEL.replace("{T}", t).replace("{V}", v).replace("{F}", f).replace("{D}", d)
}

#[test]
fn ds_load_tr8_b64_translates_bit_exact() {
    let groups = 2u32;
    let n = 64 * groups as usize;
    // Byte k of thread t's input is 8t + k (mod 256): every byte of a group names its thread and
    // position.
    let input: Vec<u8> = (0..n * 8).map(|i| i as u8).collect();
    let args = [Arg::Buffer(input), Arg::Buffer(vec![0; n * 16])];
    let src = hx_tests::gfx1250_object(&kernel(false), "tr");
    let got = hx_tests::run_1d(&src, "tr", 64, groups, &args, 1);
    let result = |t: usize, which: usize| got[16 * t + 8 * which..][..8].to_vec();
    // Thread 9 (wave 0, group 0, block 1, column 1) reads rows from lanes 4-7 and 12-15, whose
    // addresses are LDS slots 5 * lane % 64 = 20, 25, 30, 35, 60, 1, 6, 11; byte 1 of each.
    assert_eq!(result(9, 0), [20u32, 25, 30, 35, 60, 1, 6, 11].map(|s| (8 * s + 1) as u8).to_vec());
    // Thread 34 (wave 1, lane 2: block 0, column 2) reads lanes 32-35 and 40-43 of the work-group.
    assert_eq!(result(34, 0), [32u32, 33, 34, 35, 40, 41, 42, 43].map(|l| (8 * (5 * l % 64) + 2) as u8).to_vec());
    // In the branch: lane 15 reads lanes 4-7 and 12-15 at slots 3 * lane, byte 7; lanes 16-31 keep 85.
    assert_eq!(result(15, 1), [4u32, 5, 6, 7, 12, 13, 14, 15].map(|l| (8 * (3 * l % 64) + 7) as u8).to_vec());
    assert_eq!(result(20, 1), [85, 0, 0, 0, 85, 0, 0, 0]);
    // Work-group 1 reads its own LDS (its inputs' bytes repeat group 0's mod 256).
    assert_eq!(result(73, 0), result(9, 0));
    hx_tests::assert_translations_match(&src, "tr", 64, groups, &args, 1, &got, 4);
    // gfx950 runs its own transpose load; gfx942, which has none, byte loads.
    for (target, tr, u8s) in [(hotswap::GpuTarget::Gfx950, true, false), (hotswap::GpuTarget::Gfx942, false, true)] {
        let t = hotswap::translate(&src, &hotswap::Options { target, ..Default::default() }).unwrap();
        let co = hx_codeobj::CodeObject::parse(&t.bytes).unwrap();
        let dispatch = hx_emu::Dispatch { grid: [64 * groups, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
        let r = hx_emu::launch::launch(&co, "tr", &dispatch, &args, &hx_emu::Limits::default()).unwrap();
        assert_eq!(r.stats.by_mnemonic.contains_key("ds_read_b64_tr_b8"), tr, "{target}: {:?}", r.stats.by_mnemonic);
        assert_eq!(r.stats.by_mnemonic.contains_key("ds_read_u8"), u8s, "{target}: {:?}", r.stats.by_mnemonic);
    }
}

#[test]
fn ds_load_tr16_b128_translates_bit_exact() {
    let groups = 2u32;
    let n = 64 * groups as usize;
    // 16-bit element k of thread t's input is 8t + k.
    let input: Vec<u8> = (0..n * 8).flat_map(|i| (i as u16).to_le_bytes()).collect();
    let args = [Arg::Buffer(input), Arg::Buffer(vec![0; n * 32])];
    let src = hx_tests::gfx1250_object(&kernel(true), "tr");
    let got = hx_tests::run_1d(&src, "tr", 64, groups, &args, 1);
    let result = |t: usize, which: usize| -> Vec<u16> { got[32 * t + 16 * which..][..16].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect() };
    // Thread 9 (block 1, column 1): element r from lane 8 + r, whose address is slot
    // 5 (8 + r) % 64; element 1 of it.
    assert_eq!(result(9, 0), (8..16u32).map(|l| (8 * (5 * l % 64) + 1) as u16).collect::<Vec<_>>());
    // Thread 34 (wave 1, lane 2: block 0, column 2) reads lanes 32-39 of the work-group.
    assert_eq!(result(34, 0), (32..40u32).map(|l| (8 * (5 * l % 64) + 2) as u16).collect::<Vec<_>>());
    // In the branch: lane 15 reads lanes 8-15 at slots 3 * lane, element 7; lanes 16-31 keep 85.
    assert_eq!(result(15, 1), (8..16u32).map(|l| (8 * (3 * l % 64) + 7) as u16).collect::<Vec<_>>());
    assert_eq!(result(20, 1), [85, 0, 85, 0, 85, 0, 85, 0]);
    // Work-group 1 reads its own LDS: thread 64 + 9's inputs are 512 more than thread 9's.
    assert_eq!(result(73, 0), result(9, 0).iter().map(|v| v + 512).collect::<Vec<_>>());
    hx_tests::assert_translations_match(&src, "tr", 64, groups, &args, 1, &got, 8);
    for (target, tr, u16s) in [(hotswap::GpuTarget::Gfx950, true, false), (hotswap::GpuTarget::Gfx942, false, true)] {
        let t = hotswap::translate(&src, &hotswap::Options { target, ..Default::default() }).unwrap();
        let co = hx_codeobj::CodeObject::parse(&t.bytes).unwrap();
        let dispatch = hx_emu::Dispatch { grid: [64 * groups, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
        let r = hx_emu::launch::launch(&co, "tr", &dispatch, &args, &hx_emu::Limits::default()).unwrap();
        assert_eq!(r.stats.by_mnemonic.contains_key("ds_read_b64_tr_b16"), tr, "{target}: {:?}", r.stats.by_mnemonic);
        assert_eq!(r.stats.by_mnemonic.contains_key("ds_read_u16"), u16s, "{target}: {:?}", r.stats.by_mnemonic);
    }
}
