//! Generated gfx1250 kernels of a chosen size and shape, for the time-per-instruction scaling
//! benchmark (`hx-scale`, issue 29): straight-line code, uniform (scalar) branches and divergent
//! ifs, each with `n` repetitions of its unit. Built in-process for gfx1250 and relinked
//! in-process (no external tool), so the benchmark runs on a machine with only the toolchain.
//!
//! Each unit keeps its branch through LLVM's own optimisation of the source: the taken side
//! holds a volatile store (never speculated or merged), and each condition reads its own value
//! (no two conditions are provably related, so nothing is threaded away).

use std::fmt::Write;

/// The shapes measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A dependent chain of fused multiply-adds: one VALU instruction each.
    Straight,
    /// `if (table[i] != 0) *out = i` on a kernel-argument table: scalar loads, s_cmp,
    /// s_cbranch_scc per unit.
    UniformBranches,
    /// `if (in[tid * n + i] != 0) *out = i`: a per-lane condition, the EXEC-mask if idiom
    /// (v_cmp, s_and_saveexec, s_cbranch_execz, store, s_or exec) per unit.
    DivergentIfs,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::Straight, Shape::UniformBranches, Shape::DivergentIfs];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Straight => "straight-line",
            Shape::UniformBranches => "uniform branches",
            Shape::DivergentIfs => "divergent ifs",
        }
    }

    /// LLVM IR of one kernel `@k` with `n` units of this shape.
    pub fn ir(self, n: usize) -> String {
        let mut s = String::from("target triple = \"amdgcn-amd-amdhsa\"\n\n");
        match self {
            Shape::Straight => {
                s.push_str(
                    "define amdgpu_kernel void @k(float %a, ptr addrspace(1) noalias %y) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %ie = zext i32 %tid to i64
  %yp = getelementptr inbounds float, ptr addrspace(1) %y, i64 %ie
  %r0 = load float, ptr addrspace(1) %yp, align 4
",
                );
                for i in 1..=n {
                    let _ = writeln!(s, "  %r{i} = call float @llvm.fma.f32(float %a, float %r{}, float %r0)", i - 1);
                }
                let _ = write!(s, "  store float %r{n}, ptr addrspace(1) %yp, align 4\n  ret void\n}}\n");
            }
            Shape::UniformBranches => {
                s.push_str(
                    "define amdgpu_kernel void @k(ptr addrspace(4) noalias readonly %tab, ptr addrspace(1) %out) #0 {
entry:
  br label %u0
",
                );
                branch_blocks(&mut s, n, 4, "tab");
            }
            Shape::DivergentIfs => {
                let _ = write!(
                    s,
                    "define amdgpu_kernel void @k(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) %out) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %row = mul i32 %tid, {n}
  %rowe = zext i32 %row to i64
  %base = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %rowe
  br label %u0
"
                );
                branch_blocks(&mut s, n, 1, "base");
            }
        }
        s.push_str(
            "declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.fma.f32(float, float, float)

attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }

!llvm.module.flags = !{!0}
!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}
",
        );
        s
    }

    /// The gfx1250 code object of [`Shape::ir`] (compiled at O2, relinked in-process). Very long
    /// blocks are scheduled in bounded regions (`hx_llvm::sched_regions`, as the translation
    /// does): without that, compiling 100k straight-line instructions took over 10 minutes.
    pub fn object(self, n: usize) -> anyhow::Result<Vec<u8>> {
        let o2 = hx_llvm::OptLevel::O2;
        let passes = format!("{};{}", o2.pipeline(), hx_llvm::SCHED_REGIONS);
        let rel = hx_llvm::compile_ir_with(&self.ir(n), "scale", hx_llvm::GpuTarget::Gfx1250, o2, &passes, hx_llvm::Emit::Object)?;
        hx_relink::link(&rel).map_err(|e| anyhow::anyhow!("relinking the generated object: {e}"))
    }
}

/// Blocks u0..u{n} of the branchy shapes: block i loads word i of `%base` (a pointer in address
/// space `space`) and, where it is non-zero, stores i to `%out`; u{n} returns and closes the
/// function. Uniform branches read a constant (addrspace 4) table, divergent ifs a per-thread row.
fn branch_blocks(s: &mut String, n: usize, space: u32, base: &str) {
    for i in 0..n {
        let _ = write!(
            s,
            "u{i}:
  %p{i} = getelementptr inbounds i32, ptr addrspace({space}) %{base}, i64 {i}
  %c{i} = load i32, ptr addrspace({space}) %p{i}, align 4
  %b{i} = icmp ne i32 %c{i}, 0
  br i1 %b{i}, label %t{i}, label %u{}
t{i}:
  store volatile i32 {i}, ptr addrspace(1) %out, align 4
  br label %u{}
",
            i + 1,
            i + 1
        );
    }
    let _ = write!(s, "u{n}:\n  ret void\n}}\n");
}
