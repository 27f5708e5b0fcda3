//! gfx1250 VBUFFER loads, stores and atomics, translated: a kernel builds buffer resources from
//! its arguments (base, num_records, stride and flags all run-time values) and makes raw buffer
//! accesses of every width, with a scalar offset, where num_records cuts through the middle of a
//! wave, in work-groups of 48 (a full wave32 and one of 16 lanes). Its translations for gfx942
//! and gfx950 must give, in the emulator, memory bit-identical to the gfx1250 original: loads
//! past num_records read 0, stores there write nothing, atomics there do nothing and return 0.
//! A resource with a stride or flags is refused by both: the gfx1250 emulator with its error,
//! the translation by trapping; so is a lane whose verdict the documents leave open (an access
//! straddling num_records, or in range with the scalar offset and out without it). The
//! translations make these accesses with the targets' own MUBUF instructions (the hardware
//! drops the lanes out of range), not global accesses behind per-lane branches.

use hotswap::{GpuTarget, Options};
use hx_emu::launch::{launch, Arg};
use hx_llvm::{compile_ir, Emit, OptLevel};

/// Results per thread in `old`.
const K: usize = 13;
const GROUPS: u32 = 2;
const N: usize = 48 * GROUPS as usize;

fn kernel_ir() -> String {
    r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @bufk(ptr addrspace(1) %in, ptr addrspace(1) %o32, ptr addrspace(1) %o8, ptr addrspace(1) %o64,
    ptr addrspace(1) %cnt, ptr addrspace(1) %cnt64, ptr addrspace(1) %old,
    i32 %nin, i32 %n32, i32 %n8, i32 %n64, i32 %ncnt, i32 %ncnt64, i32 %soff, i32 %stride, i32 %flags) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %wg, 48
  %i = add i32 %base, %lane
  %st = trunc i32 %stride to i16
  %nin64 = zext i32 %nin to i64
  %n3264 = zext i32 %n32 to i64
  %n864 = zext i32 %n8 to i64
  %n6464 = zext i32 %n64 to i64
  %ncnt_64 = zext i32 %ncnt to i64
  %ncnt6464 = zext i32 %ncnt64 to i64
  %rin = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 %st, i64 %nin64, i32 %flags)
  %r32 = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %o32, i16 %st, i64 %n3264, i32 %flags)
  %r8 = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %o8, i16 %st, i64 %n864, i32 %flags)
  %r64 = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %o64, i16 %st, i64 %n6464, i32 %flags)
  %rc = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %cnt, i16 %st, i64 %ncnt_64, i32 %flags)
  %rc64 = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %cnt64, i16 %st, i64 %ncnt6464, i32 %flags)
  %a4 = shl i32 %i, 2
  %a8 = shl i32 %i, 3
  %a8p = add i32 %a8, 16
  %a1 = add i32 %i, 3
  %a2 = shl i32 %i, 1
  %a2p = add i32 %a2, 2
  %a16 = shl i32 %i, 4
  %v0 = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %rin, i32 %a4, i32 %soff, i32 0)
  %v12 = call <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8) %rin, i32 %a8p, i32 %soff, i32 0)
  %b = call i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8) %rin, i32 %a1, i32 %soff, i32 0)
  %h = call i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8) %rin, i32 %a2p, i32 %soff, i32 0)
  %q = call <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8) %rin, i32 %a16, i32 %soff, i32 0)
  %v0p = add i32 %v0, 1
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %v0p, ptr addrspace(8) %r32, i32 %a4, i32 %soff, i32 0)
  %v0b = trunc i32 %v0 to i8
  call void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8 %v0b, ptr addrspace(8) %r8, i32 %i, i32 %soff, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32> %v12, ptr addrspace(8) %r64, i32 %a8, i32 %soff, i32 0)
  %o = call i32 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i32(i32 1, ptr addrspace(8) %rc, i32 %a4, i32 %soff, i32 0)
  %cs = add i32 %o, 5
  %cc = add i32 %o, 1
  %c = call i32 @llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap.i32(i32 %cs, i32 %cc, ptr addrspace(8) %rc, i32 %a4, i32 %soff, i32 0)
  %ib = shl i32 %i, 8
  %unused = call i32 @llvm.amdgcn.raw.ptr.buffer.atomic.or.i32(i32 %ib, ptr addrspace(8) %rc, i32 %a4, i32 %soff, i32 0)
  %i64 = zext i32 %i to i64
  %big = shl i64 %i64, 29
  %x = call i64 @llvm.amdgcn.raw.ptr.buffer.atomic.umax.i64(i64 %big, ptr addrspace(8) %rc64, i32 %a8, i32 %soff, i32 0)
  %bz = zext i8 %b to i32
  %hs = sext i16 %h to i32
  %v1 = extractelement <2 x i32> %v12, i32 0
  %v2 = extractelement <2 x i32> %v12, i32 1
  %q0 = extractelement <4 x i32> %q, i32 0
  %q1 = extractelement <4 x i32> %q, i32 1
  %q2 = extractelement <4 x i32> %q, i32 2
  %q3 = extractelement <4 x i32> %q, i32 3
  %xl = trunc i64 %x to i32
  %xs = lshr i64 %x, 32
  %xh = trunc i64 %xs to i32
  %ob = mul i32 %i, 13
  %obe = zext i32 %ob to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %old, i64 %obe
  %vec0 = insertelement <13 x i32> poison, i32 %v0, i32 0
  %vec1 = insertelement <13 x i32> %vec0, i32 %v1, i32 1
  %vec2 = insertelement <13 x i32> %vec1, i32 %v2, i32 2
  %vec3 = insertelement <13 x i32> %vec2, i32 %bz, i32 3
  %vec4 = insertelement <13 x i32> %vec3, i32 %hs, i32 4
  %vec5 = insertelement <13 x i32> %vec4, i32 %q0, i32 5
  %vec6 = insertelement <13 x i32> %vec5, i32 %q1, i32 6
  %vec7 = insertelement <13 x i32> %vec6, i32 %q2, i32 7
  %vec8 = insertelement <13 x i32> %vec7, i32 %q3, i32 8
  %vec9 = insertelement <13 x i32> %vec8, i32 %o, i32 9
  %vec10 = insertelement <13 x i32> %vec9, i32 %c, i32 10
  %vec11 = insertelement <13 x i32> %vec10, i32 %xl, i32 11
  %vec12 = insertelement <13 x i32> %vec11, i32 %xh, i32 12
  store <13 x i32> %vec12, ptr addrspace(1) %p, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8), i32, i32, i32)
declare <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8), i32, i32, i32)
declare i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8), i32, i32, i32)
declare i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32>, ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.atomic.add.i32(i32, ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.atomic.or.i32(i32, ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.atomic.cmpswap.i32(i32, i32, ptr addrspace(8), i32, i32, i32)
declare i64 @llvm.amdgcn.raw.ptr.buffer.atomic.umax.i64(i64, ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="48,48" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#
    .to_string()
}

/// Byte limits: in, o32, o8, o64, cnt, cnt64; then soffset, stride, flags.
struct Params {
    n: [u32; 6],
    soff: u32,
    stride: u32,
    flags: u32,
}

fn bytes(words: impl IntoIterator<Item = u32>) -> Vec<u8> {
    words.into_iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn run(co_bytes: &[u8], p: &Params) -> Result<Vec<Vec<u8>>, String> {
    let co = hotswap::codeobj::CodeObject::parse(co_bytes).unwrap();
    let seeded = |k: u32, n: usize| bytes((0..n as u32).map(|i| (i + 1).wrapping_mul(0x9e37_79b1) ^ k.wrapping_mul(0x85eb_ca6b)));
    let mut args = vec![
        Arg::Buffer(seeded(1, 512)),
        Arg::Buffer(seeded(2, 160)),
        Arg::Buffer(seeded(3, 64)),
        Arg::Buffer(seeded(4, 256)),
        Arg::Buffer(seeded(5, 160)),
        Arg::Buffer(seeded(6, 256)),
        Arg::Buffer(vec![0xee; 4 * N * K]),
    ];
    args.extend(p.n.iter().chain([&p.soff, &p.stride, &p.flags]).map(|v| Arg::Value(v.to_le_bytes().to_vec())));
    let dispatch = hx_emu::Dispatch { grid: [48 * GROUPS, 1, 1], block: [48, 1, 1], dynamic_lds: 0 };
    let r = launch(&co, "bufk", &dispatch, &args, &hx_emu::Limits::default()).map_err(|e| e.to_string())?;
    Ok(r.args[1..7]
        .iter()
        .map(|a| match a {
            Arg::Buffer(b) => b.clone(),
            Arg::Value(_) => unreachable!(),
        })
        .collect())
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn buffer_accesses_translate_exactly() {
    let ir = kernel_ir();
    let source = hx_relink::link(&compile_ir(&ir, "bufk", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap()).unwrap();
    let asm = String::from_utf8(compile_ir(&ir, "bufk", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    for want in [
        "buffer_load_b32", "buffer_load_b64", "buffer_load_u8", "buffer_load_i16", "buffer_load_b128", "buffer_store_b32", "buffer_store_b8",
        "buffer_store_b64", "buffer_atomic_add_u32", "buffer_atomic_cmpswap_b32", "buffer_atomic_or_b32 v", "buffer_atomic_max_u64", "offset:16",
    ] {
        assert!(asm.contains(want), "the gfx1250 build has no {want}:\n{asm}");
    }
    let translations: Vec<(GpuTarget, Vec<u8>)> = [GpuTarget::Gfx942, GpuTarget::Gfx950]
        .into_iter()
        .map(|target| (target, hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap_or_else(|e| panic!("{target}: {e}")).bytes))
        .collect();
    for (target, t) in &translations {
        let co = hotswap::codeobj::CodeObject::parse(t).unwrap();
        let (text, errors) = hotswap::disasm::listing(&co, hotswap::disasm::Decoder::Own).unwrap();
        assert_eq!(errors, 0, "{target}:\n{text}");
        for want in [
            "buffer_load_dword ", "buffer_load_dwordx2", "buffer_load_ubyte", "buffer_load_dwordx4", "buffer_store_dword ", "buffer_store_byte",
            "buffer_store_dwordx2", "buffer_atomic_add ", "buffer_atomic_cmpswap ", "buffer_atomic_or ", "buffer_atomic_umax_x2",
        ] {
            assert!(text.contains(want), "{target}: the translation has no {want}:\n{text}");
        }
        assert!(!text.contains("global_load"), "{target}: a buffer load became a global load:\n{text}");
    }
    let cases = [
        // num_records cuts group 1's first wave (in: thread 72 for b32, 34 for b64 at +16, 18 for b128...),
        // group 0's second wave (o32: thread 40), the middle of o8 and o64 and of the atomics.
        ("mid-wave limits", Params { n: [288, 160, 37, 8 * 60, 4 * 75, 8 * 23], soff: 0, stride: 0, flags: 0 }),
        // A scalar offset moves every access; the limits leave every lane wholly in or out with and without it.
        ("soffset", Params { n: [2048 - 64, 640 - 64, 256 - 64, 1024 - 64, 640 - 64, 1024 - 64], soff: 64, stride: 0, flags: 0 }),
        ("all out", Params { n: [0; 6], soff: 0, stride: 0, flags: 0 }),
    ];
    for (name, p) in &cases {
        let want = run(&source, p).unwrap_or_else(|e| panic!("{name}: gfx1250: {e}"));
        let old = words(&want[5]);
        let cnt = words(&want[3]);
        match *name {
            "mid-wave limits" => {
                // Loads past the limit read 0, those before do not; atomics past it return 0 and leave memory alone.
                assert!((0..72).all(|i| old[i * K] != 0) && (72..N).all(|i| old[i * K] == 0), "b32 loads: {old:x?}");
                assert!((75..N).all(|i| old[i * K + 9] == 0 && old[i * K + 10] == 0), "atomic returns");
                assert!((0..75).all(|i| old[i * K + 9] != 0), "atomic returns");
                assert!(cnt[75..].iter().enumerate().all(|(k, &w)| w == words(&run_seeded_cnt())[75 + k]), "atomics past the limit wrote");
            }
            "all out" => assert!(old.chunks(K).all(|c| c.iter().all(|&w| w == 0)), "all-out loads and atomics read 0"),
            _ => assert!(old.chunks(K).all(|c| c[0] != 0 && c[9] != 0), "soffset run: every lane in range"),
        }
        for (target, t) in &translations {
            let got = run(t, p).unwrap_or_else(|e| panic!("{name}: {target}: {e}"));
            for (k, (a, b)) in want.iter().zip(&got).enumerate() {
                let diffs: Vec<String> = a
                    .chunks(4)
                    .zip(b.chunks(4))
                    .enumerate()
                    .filter(|(_, (x, y))| x != y)
                    .take(8)
                    .map(|(i, (x, y))| format!("word {i}: gfx1250 {:08x}, {target} {:08x}", u32::from_le_bytes((*x).try_into().unwrap()), u32::from_le_bytes((*y).try_into().unwrap())))
                    .collect();
                assert!(diffs.is_empty(), "{name}, buffer {k}, {target}:\n{}", diffs.join("\n"));
            }
        }
    }
    // Verdicts the emulator does not decide: the b32 load of thread 72 (bytes 288..292) straddles
    // a limit of 290; with a scalar offset of 64 and a limit of 288, thread 56's load (224..228)
    // is in range without it and out with it. The gfx1250 original is refused, the translation traps.
    for (name, p) in [
        ("straddling", Params { n: [290, 160, 37, 8 * 60, 4 * 75, 8 * 23], soff: 0, stride: 0, flags: 0 }),
        ("soffset-dependent", Params { n: [288, 640 - 64, 256 - 64, 1024 - 64, 640 - 64, 1024 - 64], soff: 64, stride: 0, flags: 0 }),
    ] {
        let e = run(&source, &p).expect_err(name);
        assert!(e.contains("range rule"), "{name}: {e}");
        for (target, t) in &translations {
            let e = run(t, &p).expect_err("the translation must trap");
            assert!(e.contains("s_trap"), "{name}: {target}: {e}");
        }
    }
    // A resource with a stride or flags: the emulator refuses the gfx1250 original, the translation traps.
    for (stride, flags) in [(4, 0), (0, 1)] {
        let p = Params { n: [288, 160, 37, 8 * 60, 4 * 75, 8 * 23], soff: 0, stride, flags };
        let e = run(&source, &p).expect_err("a strided/flagged resource must be refused on gfx1250");
        assert!(e.contains("structured or flagged buffer addressing"), "{e}");
        for (target, t) in &translations {
            let e = run(t, &p).expect_err("the translation must trap");
            assert!(e.contains("s_trap"), "{target}: {e}");
        }
    }
}

/// Runs `kernel` on one work-group of 32 threads; returns its second argument, `out`, as words
/// (the emulator's refusal or trap as the error).
fn run_wave32(co_bytes: &[u8], kernel: &str, args: Vec<Arg>) -> Result<Vec<u32>, String> {
    let co = hotswap::codeobj::CodeObject::parse(co_bytes).unwrap();
    let dispatch = hx_emu::Dispatch { grid: [32, 1, 1], block: [32, 1, 1], dynamic_lds: 0 };
    let r = launch(&co, kernel, &dispatch, &args, &hx_emu::Limits::default()).map_err(|e| e.to_string())?;
    match &r.args[1] {
        Arg::Buffer(b) => Ok(words(b)),
        Arg::Value(_) => unreachable!(),
    }
}

/// The cnt buffer as the launch seeds it.
fn run_seeded_cnt() -> Vec<u8> {
    bytes((0..160u32).map(|i| (i + 1).wrapping_mul(0x9e37_79b1) ^ 5u32.wrapping_mul(0x85eb_ca6b)))
}

/// The checks the MUBUF lowering adds. A VGPR offset whose sum with the instruction offset
/// passes 2^32 reads 0 on gfx1250 (the emulator adds without wrapping: wholly past num_records),
/// but the target might wrap the sum: the translation traps. A base past the targets' 48
/// address bits: the translation traps (the gfx1250 original reads memory the emulator does not
/// have). Neither: the translation reads what the original does.
#[test]
fn mubuf_lowering_refuses_offsets_that_wrap_and_wide_bases() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @wrapk(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %offs, i64 %hi) #0 {
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %p = ptrtoint ptr addrspace(1) %in to i64
  %ph = or i64 %p, %hi
  %pin = inttoptr i64 %ph to ptr addrspace(1)
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %pin, i16 0, i64 256, i32 0)
  %le0 = zext i32 %lane to i64
  %po = getelementptr inbounds i32, ptr addrspace(1) %offs, i64 %le0
  %vo = load i32, ptr addrspace(1) %po, align 4
  %off = add nuw i32 %vo, 16
  %x = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %off, i32 0, i32 0)
  %le = zext i32 %lane to i64
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %le
  store i32 %x, ptr addrspace(1) %q, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;
    let asm = String::from_utf8(compile_ir(ir, "wrapk", GpuTarget::Gfx1250, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
    assert!(asm.contains("offen offset:16"), "the gfx1250 build must carry the 16 in the instruction offset:\n{asm}");
    let source = hx_relink::link(&compile_ir(ir, "wrapk", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap()).unwrap();
    // (Thread `lane` loads at offs[lane] = v + 4 * lane, plus 16.)
    let run = |co_bytes: &[u8], v: u32, hi: u64| -> Result<Vec<u32>, String> {
        let args = vec![
            Arg::Buffer(bytes((0..64u32).map(|i| i * 3 + 1))),
            Arg::Buffer(vec![0xee; 4 * 32]),
            Arg::Buffer(bytes((0..32u32).map(|lane| v.wrapping_add(4 * lane)))),
            Arg::Value(hi.to_le_bytes().to_vec()),
        ];
        run_wave32(co_bytes, "wrapk", args)
    };
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap().bytes;
        // Within the 64 dwords of `in` or (v = 200, lanes past byte 256) partly past num_records.
        for v in [0u32, 64, 200] {
            let want = run(&source, v, 0).unwrap();
            assert!(want.iter().any(|&w| w != 0), "v = {v}: {want:x?}");
            assert_eq!(run(&t, v, 0).unwrap(), want, "{target}, v = {v}");
        }
        // Lane 28 and up: VGPR offset 0xffff_ff80 + 4 * lane, plus 16, passes 2^32.
        let want = run(&source, 0xffff_ff80, 0).unwrap();
        assert!(want.iter().all(|&w| w == 0), "wholly past num_records: {want:x?}");
        let e = run(&t, 0xffff_ff80, 0).expect_err("an offset that wraps must trap");
        assert!(e.contains("s_trap"), "{target}: {e}");
        let e = run(&t, 0, 1 << 50).expect_err("a base past 48 bits must trap");
        assert!(e.contains("s_trap"), "{target}: {e}");
        assert!(run(&source, 0, 1 << 50).is_err(), "the emulator has no memory at bit 50");
    }
}

/// A buffer load inside a divergent branch that also reads a lane (readfirstlane), so structure
/// recovery leaves the region predicated: the MUBUF access runs under each thread's EXEC bit.
/// Only active threads' verdicts count: a straddling access in an inactive thread is not
/// refused; in an active one it traps.
#[test]
fn predicated_buffer_accesses_count_only_active_threads() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @predk(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %lane = call i32 @llvm.amdgcn.workitem.id.x()
  %n64 = zext i32 %n to i64
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 %n64, i32 0)
  %odd = and i32 %lane, 1
  %c = icmp ne i32 %odd, 0
  br i1 %c, label %then, label %join
then:
  %l4 = shl i32 %lane, 2
  %x = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %l4, i32 0, i32 0)
  %f = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)
  br label %join
join:
  %v = phi i32 [ %x, %then ], [ 7, %entry ]
  %g = phi i32 [ %f, %then ], [ 0, %entry ]
  %s = add i32 %v, %g
  %le = zext i32 %lane to i64
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %le
  store i32 %s, ptr addrspace(1) %q, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="32,32" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;
    let source = hx_relink::link(&compile_ir(ir, "predk", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap()).unwrap();
    let run = |co_bytes: &[u8], n: u32| -> Result<Vec<u32>, String> {
        let args = vec![Arg::Buffer(bytes((0..32u32).map(|i| 0x100 + i))), Arg::Buffer(vec![0xee; 4 * 32]), Arg::Value(n.to_le_bytes().to_vec())];
        run_wave32(co_bytes, "predk", args)
    };
    // 64 bytes: odd threads up to 15 read, past it 0. 66: thread 16 (bytes 64..68) straddles
    // but is inactive. 70: thread 17 straddles and is active.
    let want64 = run(&source, 64).unwrap();
    assert_eq!((want64[1], want64[2], want64[17]), (0x101 + 0x101, 7, 0x101), "{want64:x?}");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap().bytes;
        for n in [64, 66, 128, 0] {
            assert_eq!(run(&t, n).unwrap(), run(&source, n).unwrap(), "{target}, n = {n}");
        }
        assert!(run(&source, 70).unwrap_err().contains("range rule"));
        let e = run(&t, 70).expect_err("an active straddling thread must trap");
        assert!(e.contains("s_trap"), "{target}: {e}");
    }
}

/// A returning buffer atomic at one offset for the lanes of a wave, past num_records: they read
/// 0 and memory stays as it was. The target's atomic optimizer would make it one atomic for the
/// wave and hand each lane 0 plus its rank; hx-source-atomics keeps it off. The kernel is the
/// mutant of buffer_raw that tests/tests/mutation_diff.rs found it with (bit 19 of the word at
/// 0x654: every lane's offset is the same). Its plain stores race (every lane stores to one
/// address), so only the atomic's buffers are compared: `cnt` and the returned values in `old`.
#[test]
fn a_uniform_out_of_range_returning_atomic_returns_zero_to_every_lane() {
    let obj = hx_corpus::object("buffer_raw").unwrap();
    let launch = &obj.launches[0];
    let original = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join("buffer_raw.hsaco")).unwrap();
    let source = hx_tests::mutant(&original, 0x654, 19);
    let run = |bytes: &[u8]| hx_tests::run_launch_with(bytes, "buffer_raw mutant", launch, 5, &hx_emu::Limits::default()).unwrap().0;
    let want = run(&source);
    let (cnt, old) = (want[2].bytes(), want[3].bytes());
    // The mutant's lanes share an offset: in each work-group one lane's atomic returns the old
    // count, the others are past num_records and read 0, which the optimizer turned into ranks.
    let zeros = old.chunks(4).filter(|c| c == &[0, 0, 0, 0]).count();
    assert!(zeros >= 250, "gfx1250: {zeros} of 256 lanes read 0; the mutant no longer shares an out-of-range offset");
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let t = hotswap::translate(&source, &Options { target, ..Default::default() }).unwrap();
        let got = run(&t.bytes);
        assert_eq!(got[2].bytes(), cnt, "{target}: cnt");
        assert_eq!(got[3].bytes(), old, "{target}: old");
    }
}
