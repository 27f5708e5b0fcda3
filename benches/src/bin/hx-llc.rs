//! An llc-equivalent on the translator's own libLLVM: `hx-llc IN.ll -mcpu=gfx942 [-O2] -o OUT.o`.
//! `--llvm-arg=OPT` (repeatable) passes an option to LLVM's command line, e.g. `-time-passes` to
//! see where a compile spends its time.
//! Parses the IR, runs the same optimisation pipeline (`OptLevel::raised_pipeline`) and backend
//! as the in-process lowering, and writes a relocatable object. The benches use it as the compile step of a COMGR-style pipeline.

use anyhow::{bail, Context, Result};
use hx_llvm::{Emit, GpuTarget, OptLevel};

fn main() -> Result<()> {
    let mut input = None;
    let mut output = None;
    let mut cpu = None;
    let mut opt = OptLevel::O2;
    let mut llvm_args = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if let Some(l) = a.strip_prefix("--llvm-arg=") {
            llvm_args.push(l.to_string());
        } else if let Some(c) = a.strip_prefix("-mcpu=") {
            cpu = Some(c.to_string());
        } else if let Some(o) = a.strip_prefix("-O") {
            opt = OptLevel::parse(o).with_context(|| format!("bad optimisation level {a}"))?;
        } else if a == "-o" {
            output = args.next();
        } else if input.is_none() {
            input = Some(a);
        } else {
            bail!("unexpected argument {a}");
        }
    }
    let (Some(input), Some(output), Some(cpu)) = (input, output, cpu) else {
        bail!("usage: hx-llc IN.ll -mcpu=gfx942|gfx950|gfx1250 [-O0..3] -o OUT.o");
    };
    if !llvm_args.is_empty() {
        hx_benches::set_llvm_options(&llvm_args)?;
    }
    let target = GpuTarget::from_cpu(&cpu).with_context(|| format!("unknown processor {cpu}"))?;
    let ir = std::fs::read_to_string(&input).with_context(|| format!("reading {input}"))?;
    // The raised IR's pipeline, as hx-lower runs it in-process.
    let obj = hx_llvm::compile_ir_with(&ir, "hx-llc", target, opt, opt.raised_pipeline(), Emit::Object)?;
    std::fs::write(&output, obj).with_context(|| format!("writing {output}"))?;
    if !llvm_args.is_empty() {
        hx_benches::print_llvm_reports();
    }
    Ok(())
}
