//! The raiser's IR for each ALU operation against the emulator's semantics of the same
//! operation: the IR is JIT-compiled for the host (it is target-independent LLVM IR) and both run
//! on the same pseudo-random operands. This checks, without a GPU or the decoder, that raising
//! an instruction preserves what the emulator says it computes.
//!
//! NaN results are compared as "both NaN": the host's generated-NaN payload differs from AMD's,
//! and on the GPU the same IR selects the same instruction the emulator models.

use hx_emu::alu::table::{self as alu, AluIn, Flag, Ty};
use hx_emu::alu::FpMode;
use hx_llvm::inkwell::context::Context;
use hx_raise::alu_ir::OpEmitter;
use std::collections::BTreeSet;

mod common;

type OpFn = unsafe extern "C" fn(*mut u64, u64, u64, u64, u64, u32);

fn mnemonics() -> BTreeSet<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sem/src/alu/testdata");
    let mut set = BTreeSet::new();
    for f in ["gfx1250.txt", "gfx942.txt", "gfx950.txt", "compiled.txt"] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        set.extend(text.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string));
    }
    set
}

fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Operands that exercise edges: small values, signs, shift amounts, specials for floats.
fn operand(state: &mut u64, ty: Ty) -> u64 {
    let r = next(state);
    let v = match r % 8 {
        0 => r >> 59,                     // small
        1 => (r >> 3) & 63,               // shift-amount range
        2 => u64::MAX - ((r >> 8) & 7),   // near all-ones
        3 if ty == Ty::F64 => [0u64, 1 << 63, 0x7ff0 << 48, 0xfff0 << 48, 0x7ff8 << 48, 1, 0x3ff0 << 48][(r >> 5) as usize % 7],
        3 if ty == Ty::F32 => [0u64, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x0000_0001, 0x3f80_0000][(r >> 5) as usize % 7],
        4 if ty == Ty::F32 => (0x3f00_0000 + ((r >> 8) & 0x00ff_ffff)) | ((r >> 40) & 1) << 31, // ~[0.5, 2)
        _ => r,
    };
    match ty.bits() {
        64 => v,
        32 => v & 0xffff_ffff,
        _ => v & 0xffff,
    }
}

/// A function `f(out: ptr, src0, src1, src2: i64, extra: i64, lane: i32)` (the [`OpFn`] the tests
/// call), its builder at the entry and its sources cut to the operation's source widths.
struct OpFnIr<'ctx> {
    module: hx_llvm::inkwell::module::Module<'ctx>,
    b: hx_llvm::inkwell::builder::Builder<'ctx>,
    out: hx_llvm::inkwell::values::PointerValue<'ctx>,
    srcs: Vec<hx_llvm::inkwell::values::IntValue<'ctx>>,
    extra: hx_llvm::inkwell::values::IntValue<'ctx>,
    lane: hx_llvm::inkwell::values::IntValue<'ctx>,
}

fn op_fn_ir<'ctx>(ctx: &'ctx Context, name: &str, src_types: &[Ty]) -> OpFnIr<'ctx> {
    let module = ctx.create_module(name);
    let i64t = ctx.i64_type();
    let fn_ty = ctx.void_type().fn_type(&[ctx.ptr_type(Default::default()).into(), i64t.into(), i64t.into(), i64t.into(), i64t.into(), ctx.i32_type().into()], false);
    let f = module.add_function("f", fn_ty, None);
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    let param = |k: u32| f.get_nth_param(k).unwrap();
    let srcs = (0..src_types.len())
        .map(|k| {
            let p = param(k as u32 + 1).into_int_value();
            if src_types[k].bits() == 64 { p } else { b.build_int_truncate(p, ctx.i32_type(), "").unwrap() }
        })
        .collect();
    let (out, extra, lane) = (param(0).into_pointer_value(), param(4).into_int_value(), param(5).into_int_value());
    OpFnIr { module, b, out, srcs, extra, lane }
}

#[test]
fn raised_alu_ops_compute_what_the_emulator_computes() {
    let mode = FpMode::ieee_default();
    let mut checked = Vec::new();
    let mut not_raised = Vec::new();
    let mut failures = Vec::new();
    let mut target_only = Vec::new();
    for m in mnemonics() {
        let Some(op) = alu::by_name(&m) else { continue };
        if hx_raise::alu_ir::target_only(op.op) {
            target_only.push(m);
            continue;
        }
        // 16-bit and packed ops are not raised yet (they error out below and are listed).
        let ctx = Context::create();
        let i64t = ctx.i64_type();
        let OpFnIr { module, b, out, srcs, extra, lane } = op_fn_ir(&ctx, &m, op.srcs);
        let flag = b.build_int_truncate(extra, ctx.bool_type(), "").unwrap();
        let em = OpEmitter { ctx: &ctx, module: &module, b: &b, lane, amdgpu: false };
        let (value, flag_out) = match em.emit(&op, &srcs, flag) {
            Ok(r) => r,
            Err(e) => {
                not_raised.push(format!("{m}: {}", e.0));
                continue;
            }
        };
        let value = if value.get_type().get_bit_width() < 64 { b.build_int_z_extend(value, i64t, "").unwrap() } else { value };
        b.build_store(out, value).unwrap();
        let f1 = unsafe { b.build_gep(i64t, out, &[i64t.const_int(1, false)], "").unwrap() };
        let fv = match flag_out {
            Some(fl) => b.build_int_z_extend(fl, i64t, "").unwrap(),
            None => i64t.const_int(2, false),
        };
        b.build_store(f1, fv).unwrap();
        b.build_return(None).unwrap();
        let jit = common::compile_f(module, &m);
        let jf: OpFn = unsafe { std::mem::transmute::<u64, OpFn>(jit.addr) };
        let mut state = 0x1234_5678 ^ m.len() as u64;
        for _ in 0..2000 {
            let s: Vec<u64> = op.srcs.iter().map(|&t| operand(&mut state, t)).collect();
            let flag_in = next(&mut state) & 1;
            let lane = (next(&mut state) & 31) as u32;
            let mut src = [0u64; 3];
            src[..s.len()].copy_from_slice(&s);
            let mut got = [0u64; 2];
            unsafe { jf(got.as_mut_ptr(), src[0], src[1], src[2], flag_in, lane) };
            let want = alu::eval(&op, &AluIn { src, flag: flag_in == 1, lane, ..Default::default() }, &mode);
            let dst_bits = op.dst.map(|t| t.bits()).unwrap_or(0);
            let mask = if dst_bits == 64 { u64::MAX } else { (1u64 << dst_bits) - 1 };
            let (g, w) = (got[0] & mask, want.value & mask);
            let both_nan = (op.dst == Some(Ty::F32) && f32::from_bits(g as u32).is_nan() && f32::from_bits(w as u32).is_nan())
                || (op.dst == Some(Ty::F64) && f64::from_bits(g).is_nan() && f64::from_bits(w).is_nan())
                || (op.dst == Some(Ty::F16) && g & 0x7c00 == 0x7c00 && g & 0x3ff != 0 && w & 0x7c00 == 0x7c00 && w & 0x3ff != 0)
                // Packed f32: each half equal or both NaN.
                || (matches!(op.op, alu::Op::Pk(p) if p.is_wide())
                    && [0, 32].iter().all(|&k| {
                        let (x, y) = ((g >> k) as u32, (w >> k) as u32);
                        x == y || (f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan())
                    }));
            // LangRef lets llvm.minnum/maxnum order +0 and -0 either way, and the host does;
            // the target's v_min/v_max_f32 order -0 below +0 as the emulator does.
            let zero_pair = (matches!(op.op, alu::Op::MinNumF32 | alu::Op::MaxNumF32) && (s[0] | s[1]) & 0x7fff_ffff == 0)
                || (matches!(op.op, alu::Op::MaxminNumF32 | alu::Op::MinmaxNumF32) && (g | w) & 0x7fff_ffff == 0);
            if op.dst.is_some() && g != w && !both_nan && !zero_pair {
                failures.push(format!("{m}{s:x?} flag {flag_in}: IR {g:#x}, emulator {w:#x}"));
                break;
            }
            let wants_flag = op.flag_out != Flag::None;
            if wants_flag && want.flag.is_some() && Some(got[1] == 1) != want.flag {
                failures.push(format!("{m}{s:x?}: IR flag {}, emulator flag {:?}", got[1], want.flag));
                break;
            }
        }
        drop(jit);
        checked.push(m);
    }
    eprintln!("{} ops agree: {checked:?}", checked.len());
    eprintln!("{} ops not raised yet: {not_raised:?}", not_raised.len());
    eprintln!("{} ops raised to AMDGPU intrinsics, checked by the triangle instead: {target_only:?}", target_only.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked.len() >= 170, "only {} ALU ops are raised and checked", checked.len());
}

/// Operations whose result depends on modifiers (packed f32 op_sel/op_sel_hi/neg_lo/neg_hi, the
/// fp8/bf8 conversions' byte and word selects, clamp and old destination, integer clamp, the
/// f32/f64 clamp output modifier): the raiser's IR against the emulator on random operands and
/// random modifiers.
#[test]
fn raised_modifier_ops_compute_what_the_emulator_computes() {
    use hx_emu::alu::fp8::Fp8Op;
    use hx_raise::alu_ir::Extra;
    let mode = FpMode::ieee_default();
    let names = [
        "v_pk_add_f32", "v_pk_mul_f32", "v_pk_fma_f32", "v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32", "v_cvt_pk_fp8_f16",
        "v_cvt_pk_bf8_f16", "v_cvt_f32_fp8", "v_cvt_f32_bf8", "v_cvt_f16_fp8", "v_cvt_f16_bf8", "v_cvt_pk_f32_fp8",
        "v_cvt_pk_f32_bf8", "v_cvt_pk_f16_fp8", "v_cvt_pk_f16_bf8", "v_add_nc_u32", "v_sub_nc_u32", "v_subrev_nc_u32",
        "v_add_nc_i32", "v_sub_nc_i32", "v_add_nc_u16", "v_sub_nc_u16", "v_add_nc_i16", "v_sub_nc_i16", "v_add_f32",
        "v_mul_f32", "v_fma_f64",
    ];
    let mut failures = Vec::new();
    let mut runs = 0;
    for m in names {
        let op = alu::by_name(m).unwrap_or_else(|| panic!("{m} resolves"));
        let mut state = 0x5eed ^ m.len() as u64 * 0x9e37;
        for round in 0..24 {
            // One modifier set per compiled function.
            let r = next(&mut state);
            let mut x = Extra { op_sel: (r & 7) as u8, op_sel_hi: (r >> 3 & 7) as u8, neg: (r >> 6 & 7) as u8, neg_hi: (r >> 9 & 7) as u8, byte_sel: (r >> 12 & 3) as u8, clamp: r >> 14 & 1 != 0 };
            let mut float_clamp = false;
            match op.op {
                alu::Op::Pk(_) => {
                    x.byte_sel = 0;
                    x.clamp = false;
                }
                alu::Op::Fp8(f) => {
                    // Only the selects the form models (the others are refused, tested below).
                    x.op_sel = match f {
                        Fp8Op::PkFromF32(_) | Fp8Op::PkFromF16(_) | Fp8Op::ToF16(_) => (r >> 15 & 1) as u8 * 8,
                        Fp8Op::PkToF32(_) | Fp8Op::PkToF16(_) => (r >> 15 & 1) as u8,
                        Fp8Op::ToF32(_) => 0,
                    };
                    if !matches!(f, Fp8Op::ToF32(_) | Fp8Op::ToF16(_)) {
                        x.byte_sel = 0;
                    }
                    x.clamp &= f.clamp_saturates();
                    assert!(f.check_mods(x.op_sel, x.byte_sel).is_ok());
                    assert!(f.check_mods(x.op_sel | 4, x.byte_sel).is_err(), "{m}: op_sel[2] is refused");
                }
                _ if op.dst.is_some_and(|t| t.is_float()) => {
                    float_clamp = true;
                    // omod in op_sel_hi's place for this row; clamp as drawn.
                    x = Extra { op_sel_hi: (r >> 20 & 3) as u8, clamp: x.clamp, ..Extra::default() };
                }
                _ => x = Extra { clamp: true, ..Extra::default() },
            }
            let ctx = Context::create();
            let i64t = ctx.i64_type();
            let OpFnIr { module, b, out, srcs, extra, lane } = op_fn_ir(&ctx, m, op.srcs);
            let old = b.build_int_truncate(extra, ctx.i32_type(), "").unwrap();
            let em = OpEmitter { ctx: &ctx, module: &module, b: &b, lane, amdgpu: false };
            let value = if float_clamp {
                let (v, _) = em.emit(&op, &srcs, ctx.bool_type().const_zero()).unwrap();
                let v = em.omod_float(v, op.dst.unwrap(), x.op_sel_hi).unwrap_or_else(|e| panic!("{m}: {}", e.0));
                if x.clamp { em.clamp_float(v, op.dst.unwrap()).unwrap_or_else(|e| panic!("{m}: {}", e.0)) } else { v }
            } else {
                em.emit_with(&op, &srcs, old, &x).unwrap_or_else(|e| panic!("{m}: {}", e.0))
            };
            let value = if value.get_type().get_bit_width() < 64 { b.build_int_z_extend(value, i64t, "").unwrap() } else { value };
            b.build_store(out, value).unwrap();
            b.build_return(None).unwrap();
            let jit = common::compile_f(module, m);
            let jf: OpFn = unsafe { std::mem::transmute::<u64, OpFn>(jit.addr) };
            for i in 0..500 {
                let s: Vec<u64> = op
                    .srcs
                    .iter()
                    .map(|&t| match (op.op, i % 4) {
                        // Packed f32: two f32 operands; fp8 sources: any bytes; f16 pairs.
                        (alu::Op::Pk(_), _) => operand(&mut state, Ty::F32) | operand(&mut state, Ty::F32) << 32,
                        (alu::Op::Fp8(Fp8Op::PkFromF16(_)), 0) => operand(&mut state, Ty::F16) | operand(&mut state, Ty::F16) << 16,
                        _ => operand(&mut state, t),
                    })
                    .collect();
                let old = next(&mut state) & 0xffff_ffff;
                let mut src = [0u64; 3];
                src[..s.len()].copy_from_slice(&s);
                let mut got = [0u64; 2];
                unsafe { jf(got.as_mut_ptr(), src[0], src[1], src[2], old, 0) };
                let inp = AluIn { src, old, op_sel: x.op_sel, op_sel_hi: x.op_sel_hi, neg: x.neg, neg_hi: x.neg_hi, byte_sel: x.byte_sel, clamp: x.clamp, ..Default::default() };
                // (Float rows carry omod in op_sel_hi: the operation itself takes no modifiers.)
                let inp = if float_clamp { AluIn { op_sel_hi: 0, clamp: false, ..inp } } else { inp };
                let mut want = alu::eval(&op, &inp, &mode).value;
                if float_clamp {
                    want = match op.dst {
                        Some(Ty::F64) => hx_emu::alu::omod_clamp_f64(want, x.op_sel_hi, x.clamp, &mode),
                        _ => hx_emu::alu::omod_clamp_f32(want as u32, x.op_sel_hi, x.clamp, &mode) as u64,
                    };
                } else if x.clamp && !matches!(op.op, alu::Op::Fp8(_)) {
                    want = hx_emu::exec::int_saturate(op.op, src[0], src[1]).unwrap();
                }
                let bits = op.dst.map(|t| t.bits()).unwrap_or(64);
                let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let (g, w) = (got[0] & mask, want & mask);
                // Packed f32: compare each half, NaNs as "both NaN".
                let same = |a: u64, b: u64| a == b || (f32::from_bits(a as u32).is_nan() && f32::from_bits(b as u32).is_nan());
                let ok = match op.op {
                    alu::Op::Pk(_) => same(g & 0xffff_ffff, w & 0xffff_ffff) && same(g >> 32, w >> 32),
                    _ if op.dst == Some(Ty::F32) => same(g, w),
                    _ if op.dst == Some(Ty::F64) => g == w || (f64::from_bits(g).is_nan() && f64::from_bits(w).is_nan()),
                    _ => g == w,
                };
                if !ok {
                    failures.push(format!("{m} {x:?} {src:x?} old {old:#x}: IR {g:#x}, emulator {w:#x}"));
                    break;
                }
                runs += 1;
            }
            drop(jit);
            if round > 0 && matches!(op.op, alu::Op::AddU32 | alu::Op::AddF32) {
                break;
            }
        }
    }
    eprintln!("{runs} (operation, modifiers, operands) runs agree");
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(10)].join("\n"));
}

/// v_cmp_class_f32 with a constant class mask (as compilers write it) is raised as
/// llvm.is.fpclass; with a mask in a register, as its own bit tests (checked above). Every
/// single class, the masks compilers use, and all ten, on each class's edge values and random
/// bits: the IR against the emulator.
#[test]
fn class_compares_with_constant_masks_compute_what_the_emulator_computes() {
    let mode = FpMode::ieee_default();
    let op = alu::by_name("v_cmp_class_f32").expect("v_cmp_class_f32 resolves");
    let specials: [u64; 16] = [
        0x7f80_0001, 0xff80_0001, 0x7fbf_ffff, 0x7fc0_0000, 0xffc0_0001, 0x7f80_0000, 0xff80_0000, 0x3f80_0000, 0xbf80_0000,
        0x0080_0000, 0x8080_0000, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x0000_0000, 0x8000_0000,
    ];
    let mut masks: Vec<u64> = (0..10).map(|k| 1 << k).collect();
    masks.extend([0x260, 0x3ff, 0x90, 0x1f8, 0x3, 0x207, 0x0, 0x400 | 0x21]);
    let mut state = 0xc1a55;
    for mask in masks {
        let ctx = Context::create();
        let i64t = ctx.i64_type();
        let OpFnIr { module, b, out, srcs, extra, lane } = op_fn_ir(&ctx, "class", &op.srcs[..1]);
        let flag = b.build_int_truncate(extra, ctx.bool_type(), "").unwrap();
        let em = OpEmitter { ctx: &ctx, module: &module, b: &b, lane, amdgpu: false };
        let (_, r) = em.emit(&op, &[srcs[0], ctx.i32_type().const_int(mask, false)], flag).unwrap();
        let r = b.build_int_z_extend(r.expect("a compare gives a flag"), i64t, "").unwrap();
        b.build_store(out, r).unwrap();
        b.build_return(None).unwrap();
        let ir = module.print_to_string().to_string();
        assert!(ir.contains("llvm.is.fpclass"), "mask {mask:#x}: not raised as llvm.is.fpclass:\n{ir}");
        let jit = common::compile_f(module, "class");
        let jf: OpFn = unsafe { std::mem::transmute::<u64, OpFn>(jit.addr) };
        let values: Vec<u64> = specials.iter().copied().chain((0..200).map(|_| next(&mut state) & 0xffff_ffff)).collect();
        for x in values {
            let mut got = [0u64; 2];
            unsafe { jf(got.as_mut_ptr(), x, 0, 0, 0, 0) };
            let want = alu::eval(&op, &AluIn { src: [x, mask, 0], ..Default::default() }, &mode);
            assert_eq!(Some(got[0] == 1), want.flag, "v_cmp_class_f32 {x:#010x}, mask {mask:#x}");
        }
        drop(jit);
    }
}
