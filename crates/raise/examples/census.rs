//! Which mnemonics (one per line on stdin, e.g. from `hotswap-xlate disasm --llvm`) the raiser
//! lacks: ALU-table operations it cannot emit yet, and mnemonics outside the ALU table.
//! Run: `cargo run -p hx-raise --example census < mnemonics.txt`.
use hx_sem::alu::table as alu;
use hx_llvm::inkwell::context::Context;
use hx_raise::alu_ir::OpEmitter;
use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut it = line.split_whitespace();
        let (Some(count), Some(m)) = (it.next(), it.next()) else { continue };
        let Some(op) = alu::by_name(m) else {
            println!("{count:>5} {m}: not an ALU-table op");
            continue;
        };
        let ctx = Context::create();
        let module = ctx.create_module(m);
        let f = module.add_function("f", ctx.void_type().fn_type(&[], false), None);
        let b = ctx.create_builder();
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let srcs: Vec<_> = op.srcs.iter().map(|t| if t.bits() == 64 { ctx.i64_type().const_zero() } else { ctx.i32_type().const_zero() }).collect();
        let em = OpEmitter { ctx: &ctx, module: &module, b: &b, lane: ctx.i32_type().const_zero(), amdgpu: true };
        if let Err(e) = em.emit(&op, &srcs, ctx.bool_type().const_zero()) {
            println!("{count:>5} {m}: {}", e.0);
        }
    }
}
