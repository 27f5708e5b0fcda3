//! Generated gfx1250 code objects for the scaling measurements: N saxpy-like kernels, each with a
//! dependent chain of `chain` extra fused multiply-adds (so the kernel grows by one instruction
//! per link and nothing folds away). Built in-process for gfx1250 and linked with rust-lld, as
//! `cargo xtask corpus` builds the corpus; written under a scratch directory, never checked in.

use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

/// LLVM IR of `kernels` kernels `@k0..`, each y[i] = a*(...(a*(a*x[i]+y[i])+x[i])...)+x[i].
pub fn kernels_ir(kernels: usize, chain: usize) -> String {
    let mut s = String::from("target triple = \"amdgcn-amd-amdhsa\"\n\n");
    for k in 0..kernels {
        let _ = write!(
            s,
            "define amdgpu_kernel void @k{k}(i32 %n, float %a, ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias %y) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %imp = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr inbounds i8, ptr addrspace(4) %imp, i64 12
  %gs16 = load i16, ptr addrspace(4) %gsp, align 4
  %gs = zext i16 %gs16 to i32
  %base = mul i32 %wg, %gs
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %n
  br i1 %in, label %body, label %exit

body:
  %ie = zext i32 %i to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %ie
  %yp = getelementptr inbounds float, ptr addrspace(1) %y, i64 %ie
  %xv = load float, ptr addrspace(1) %xp, align 4
  %yv = load float, ptr addrspace(1) %yp, align 4
  %r0 = call float @llvm.fma.f32(float %a, float %xv, float %yv)
"
        );
        for c in 1..=chain {
            let _ = writeln!(s, "  %r{c} = call float @llvm.fma.f32(float %a, float %r{}, float %xv)", c - 1);
        }
        let _ = write!(s, "  store float %r{chain}, ptr addrspace(1) %yp, align 4\n  br label %exit\n\nexit:\n  ret void\n}}\n\n");
    }
    s.push_str(
        "declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
declare float @llvm.fma.f32(float, float, float)

attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}
",
    );
    s
}

/// Compiles `ir` for gfx1250 (O2) and links it into a code object.
pub fn build_gfx1250(ir: &str, stem: &str, work: &Path) -> Result<Vec<u8>> {
    let obj = hx_llvm::compile_ir(ir, stem, hx_llvm::GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object)?;
    xtask::corpus::link_with_rust_lld(&obj, work, stem)
}

/// Instructions in the kernels of a code object (decoded; undecodable words count as one each).
pub fn instruction_count(bytes: &[u8]) -> Result<usize> {
    Ok(instructions(bytes)?.0)
}

/// Whether any kernel of a gfx1250 code object uses a WMMA-family instruction (their lowering,
/// not the instruction count, dominates such an object's translation cost).
pub fn has_wmma(bytes: &[u8]) -> Result<bool> {
    Ok(instructions(bytes)?.1)
}

/// (instructions, any WMMA-family instruction) over every kernel of a code object.
fn instructions(bytes: &[u8]) -> Result<(usize, bool)> {
    let co = hotswap::codeobj::CodeObject::parse(bytes)?;
    let target = match co.processor() {
        Some("gfx942") => hotswap::isa::Target::Gfx942,
        Some("gfx950") => hotswap::isa::Target::Gfx950,
        _ => hotswap::isa::Target::Gfx1250,
    };
    let (mut n, mut wmma) = (0, false);
    for k in &co.kernels {
        let code = co.kernel_code(k);
        let mut at = 0;
        while at < code.len() {
            at += match hotswap::isa::decode(target, code, at) {
                Ok(i) => {
                    wmma |= i.wmma_shape().is_some();
                    i.len as usize
                }
                Err(_) => 4,
            };
            n += 1;
        }
    }
    Ok((n, wmma))
}
