//! The raiser's fp8/bf8 -> f32 conversion (widened to f64) (used by WMMA lowering) against the emulator's
//! `fp8_value`, for every byte of both formats, JIT-compiled on the host. Equal bits, NaN included
//! (the emulator's NaN is f64::NAN whatever the sign; the IR selects that constant).

use hx_llvm::inkwell::context::Context;
use hx_raise::alu_ir::OpEmitter;

mod common;

#[test]
fn fp8_and_bf8_bytes_convert_as_the_emulator_says() {
    for e5m2 in [false, true] {
        let ctx = Context::create();
        let module = ctx.create_module("fp8");
        let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
        let f = module.add_function("f", i64t.fn_type(&[i32t.into()], false), None);
        let b = ctx.create_builder();
        b.position_at_end(ctx.append_basic_block(f, "entry"));
        let x = f.get_nth_param(0).unwrap().into_int_value();
        // Bits above the byte must be ignored.
        let em = OpEmitter { ctx: &ctx, module: &module, b: &b, lane: i32t.const_zero(), amdgpu: false };
        let v = em.fp8_to_f32(x, e5m2).unwrap();
        let v = b.build_float_ext(v, ctx.f64_type(), "").unwrap();
        let bits = b.build_bit_cast(v, i64t, "").unwrap();
        b.build_return(Some(&bits)).unwrap();
        let jit = common::compile_f(module, "fp8");
        let jf: unsafe extern "C" fn(u32) -> u64 = unsafe { std::mem::transmute::<u64, unsafe extern "C" fn(u32) -> u64>(jit.addr) };
        for byte in 0..=255u32 {
            let want = hx_emu::wmma::fp8_value(byte as u8, e5m2).to_bits();
            let got = unsafe { jf(byte | 0xabcd_0000) };
            assert_eq!(got, want, "byte {byte:#04x} (e5m2 {e5m2}): {} vs {}", f64::from_bits(got), f64::from_bits(want));
        }
    }
}
