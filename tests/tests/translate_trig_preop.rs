//! `v_trig_preop_f64`, the 2/pi table lookup of the f64 sine and cosine's argument reduction
//! (Triton 3.9's `libdevice.sin` on doubles, through ROCm's OCML: "v_trig_preop_f64: this
//! instruction is not raised yet"). The original runs every segment 0..31 of 16 arguments (small,
//! huge, at and past the 2^128 rescaling exponent, denormal, infinite, NaN); its results must
//! equal LLVM's constant folding of llvm.amdgcn.trig.preop on the same constants (a gfx942 kernel
//! whose calls LLVM folds), and both translations must equal the original bit for bit.

use hx_emu::launch::Arg;

const X: [u64; 16] = [
    0x3ff0_0000_0000_0000, // 1.0
    0x3fe0_0000_0000_0000, // 0.5
    0x4340_0000_0000_0000, // 2^53 (biased exponent 1076)
    0x4350_0000_0000_0001, // exponent 1078: the shift starts moving
    0x4415_af1d_78b5_8c40, // 1e20
    0x7e37_e43c_8800_759c, // 1e300
    0x7ae0_0000_0000_0000, // exponent 1966
    0x7b00_0000_0000_0000, // exponent 1968: scaled by 2^128
    0x7fef_ffff_ffff_ffff, // the largest double
    0x0000_0000_0000_0001, // the smallest denormal
    0xc1d2_a05f_2000_0000, // -5e9
    0x7ff0_0000_0000_0000, // +inf
    0x7ff4_0000_0000_0123, // a signaling NaN
    0xbff8_0000_0000_0000, // -1.5
    0x4660_0000_0000_0000, // 2^103
    0x6000_0000_0000_0000, // exponent 1536
];

#[test]
fn trig_preop_equals_llvm_folding_and_translates_bit_for_bit() {
    // The original: x from memory, every segment.
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @tp(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds double, ptr addrspace(1) %in, i32 %tid
  %x = load double, ptr addrspace(1) %p, align 8
  %o = mul i32 %tid, 32
"#,
    );
    for s in 0..32 {
        body += &format!("  %r{s} = call double @llvm.amdgcn.trig.preop.f64(double %x, i32 {s})\n  %o{s} = add i32 %o, {s}\n  %q{s} = getelementptr inbounds double, ptr addrspace(1) %out, i32 %o{s}\n  store double %r{s}, ptr addrspace(1) %q{s}, align 8\n");
    }
    body += "  ret void\n}\ndeclare double @llvm.amdgcn.trig.preop.f64(double, i32)\n";
    let source = hx_tests::gfx1250_object(&body, "tp");
    let xs: Vec<u8> = X.iter().flat_map(|v| v.to_le_bytes()).collect();
    let args = [Arg::Buffer(xs), Arg::Buffer(vec![0xee; 16 * 32 * 8])];
    let want = hx_tests::run_1d(&source, "tp", 16, 1, &args, 1);

    // LLVM's folding: the same calls on constants, compiled (and folded) for gfx942.
    let mut folded = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @fold(ptr addrspace(1) noalias %out) #0 {
entry:
"#,
    );
    for (t, x) in X.iter().enumerate() {
        for s in 0..32 {
            let k = t * 32 + s;
            folded += &format!("  %r{k} = call double @llvm.amdgcn.trig.preop.f64(double 0x{x:016X}, i32 {s})\n  %q{k} = getelementptr inbounds double, ptr addrspace(1) %out, i32 {k}\n  store double %r{k}, ptr addrspace(1) %q{k}, align 8\n");
        }
    }
    folded += "  ret void\n}\ndeclare double @llvm.amdgcn.trig.preop.f64(double, i32)\n";
    let rel = hx_llvm::compile_ir(&hx_tests::kernel_ir(&folded), "fold", hx_llvm::GpuTarget::Gfx942, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap();
    let fold = hx_relink::link(&rel).unwrap();
    // Folded, not run: no v_trig_preop_f64 in its code (else this would test the emulator against
    // itself).
    let co = hotswap::codeobj::CodeObject::parse(&fold).unwrap();
    let k = &co.kernels[0];
    let code = &fold[k.code_offset as usize..(k.code_offset + k.code_size) as usize];
    let insts = hotswap::isa::decode_all(hotswap::isa::Target::Gfx942, code).unwrap();
    assert!(insts.len() > 100 && !insts.iter().any(|i| i.mnemonic().contains("trig_preop")), "LLVM did not fold the calls");
    let llvm = hx_tests::run_1d(&fold, "fold", 1, 1, &[Arg::Buffer(vec![0xee; 16 * 32 * 8])], 0);
    let mut bad = Vec::new();
    for (k, (a, b)) in want.chunks(8).zip(llvm.chunks(8)).enumerate() {
        if a != b {
            bad.push(format!("x {:#018x} segment {}: ours {:02x?}, LLVM {:02x?}", X[k / 32], k % 32, a, b));
        }
    }
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(8)].join("\n"));
    hx_tests::assert_translations_match(&source, "tp", 16, 1, &args, 1, &want, 64);
}
