//! GFX9 forms the backend emits that the emulator models on gfx942/gfx950:
//! - v_swap_b32 (register shuffles, e.g. rotating the loop-carried operand registers of a WMMA's
//!   f64 MFMA loop): a kernel swaps two registers in the lanes of a branch and stores both;
//!   lanes outside the branch keep theirs.
//! - v_cndmask_b32_e64 with neg/abs on its data sources (LLVM folds fneg/fabs of a select into
//!   it): sign-bit operations on the 32-bit values.

use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

const KERNEL: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @swap(ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %x = add i32 %tid, 1000
  %y = add i32 %tid, 2000
  %in = icmp ult i32 %tid, 40
  br i1 %in, label %then, label %join
then:
  %s = call { i32, i32 } asm sideeffect "v_swap_b32 $0, $1", "=v,=v,0,1"(i32 %x, i32 %y)
  %sx = extractvalue { i32, i32 } %s, 0
  %sy = extractvalue { i32, i32 } %s, 1
  br label %join
join:
  %rx = phi i32 [ %x, %entry ], [ %sx, %then ]
  %ry = phi i32 [ %y, %entry ], [ %sy, %then ]
  %o = shl i32 %tid, 1
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o
  store i32 %rx, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 1
  store i32 %ry, ptr addrspace(1) %q1, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

#[test]
fn v_swap_b32_exchanges_registers_in_active_lanes() {
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let asm = String::from_utf8(compile_ir(KERNEL, "swap", target, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
        assert!(asm.contains("v_swap_b32"), "{target}: {asm}");
        let obj = compile_ir(KERNEL, "swap", target, OptLevel::O2, Emit::Object).unwrap();
        let co = hx_relink::link(&obj).unwrap();
        let out = hx_tests::run_1d(&co, "swap", 64, 1, &[Arg::Buffer(vec![0; 64 * 8])], 0);
        for (t, pair) in out.chunks(8).enumerate() {
            let (x, y) = (1000 + t as u32, 2000 + t as u32);
            let want = if t < 40 { [y, x] } else { [x, y] };
            let got = [u32::from_le_bytes(pair[..4].try_into().unwrap()), u32::from_le_bytes(pair[4..].try_into().unwrap())];
            assert_eq!(got, want, "{target}: thread {t}");
        }
    }
}

const CNDMASK: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @sel(ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %tid, 16843009
  %odd = and i32 %tid, 1
  %hi = shl i32 %odd, 31
  %x = or i32 %m, %hi
  %y = xor i32 %x, -2147450880
  %c = icmp ne i32 %odd, 0
  %mask = call i64 @llvm.amdgcn.ballot.i64(i1 %c)
  %r = call i32 asm "v_cndmask_b32_e64 $0, -$1, |$2|, $3", "=v,v,v,s"(i32 %x, i32 %y, i64 %mask)
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1)
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
"#;

#[test]
fn v_cndmask_b32_takes_neg_and_abs_as_sign_bit_operations() {
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let obj = compile_ir(CNDMASK, "sel", target, OptLevel::O2, Emit::Object).unwrap();
        let co = hx_relink::link(&obj).unwrap();
        let out = hx_tests::run_1d(&co, "sel", 64, 1, &[Arg::Buffer(vec![0; 64 * 4])], 0);
        for (t, w) in out.chunks(4).enumerate() {
            let x = (t as u32).wrapping_mul(0x0101_0101) | (t as u32 & 1) << 31;
            let y = x ^ 0x8000_8000;
            // Odd lanes (mask bit set): |y|; even lanes: -x.
            let want = if t % 2 == 1 { y & 0x7fff_ffff } else { x ^ 0x8000_0000 };
            assert_eq!(u32::from_le_bytes(w.try_into().unwrap()), want, "{target}: thread {t}");
        }
    }
}

/// Compares of sub-dwords: LLVM reads `x & 0xffff`, `x >> 16` and a sign-extended low byte
/// straight from the register with VOPC SDWA (`v_cmp_*_sdwa s[..], v.., v.. src0_sel:...`),
/// whose result is a lane mask in an SGPR pair or VCC.
const SDWA_CMP: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @cmp(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %lo = and i32 %x, 65535
  %c0 = icmp ne i32 %lo, %tid
  %hi = lshr i32 %x, 16
  %c1 = icmp ugt i32 %hi, %tid
  %b = trunc i32 %x to i8
  %bs = sext i8 %b to i32
  %c2 = icmp slt i32 %bs, %tid
  %r0 = zext i1 %c0 to i32
  %r1 = select i1 %c1, i32 2, i32 0
  %r2 = select i1 %c2, i32 4, i32 0
  %r01 = or i32 %r0, %r1
  %r = or i32 %r01, %r2
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
"#;

#[test]
fn vopc_sdwa_compares_selected_sub_dwords() {
    let input: Vec<u32> = (0..64u32).map(|t| if t % 3 == 0 { t | (t + 1) << 16 } else { t.wrapping_mul(0x9e37_79b9) ^ 0x0080_0000 }).collect();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let asm = String::from_utf8(compile_ir(&hx_tests::kernel_ir(SDWA_CMP), "cmp", target, OptLevel::O2, Emit::Assembly).unwrap()).unwrap();
        assert!(asm.lines().any(|l| l.contains("v_cmp") && l.contains("_sdwa")), "{target}: no VOPC SDWA in\n{asm}");
        let obj = compile_ir(&hx_tests::kernel_ir(SDWA_CMP), "cmp", target, OptLevel::O2, Emit::Object).unwrap();
        let co = hx_relink::link(&obj).unwrap();
        let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let out = hx_tests::run_1d(&co, "cmp", 64, 1, &[Arg::Buffer(bytes), Arg::Buffer(vec![0; 64 * 4])], 1);
        for (t, w) in out.chunks(4).enumerate() {
            let (x, t32) = (input[t], t as u32);
            let want = ((x & 0xffff) != t32) as u32 | (((x >> 16) > t32) as u32) << 1 | (((x as i8 as i32) < t as i32) as u32) << 2;
            assert_eq!(u32::from_le_bytes(w.try_into().unwrap()), want, "{target}: thread {t}");
        }
    }
}
