//! The IR of ALU operations that read instruction modifiers besides their sources (the
//! emulator's `AluIn` fields): packed f32 (op_sel, op_sel_hi, neg_lo, neg_hi), the gfx1250
//! fp8/bf8 conversions (byte/word selects, clamp, the old destination word), integer clamp
//! (saturation) and the f32/f64 clamp output modifier. Same semantics as hx_sem::alu.
//!
//! fp8/bf8 are converted in integer IR: gfx942's conversions use other formats (FNUZ) and
//! gfx950's are not known to round and saturate the same way, so no target instruction is used.

use super::{be, EmitError, OpEmitter};
use hx_sem::alu::fp8::{Fp8Fmt, Fp8Op};
use hx_sem::alu::pk8::{Pk8Op, Small, Wide};
use hx_sem::alu::packed::{PkMods, PkOp};
use hx_sem::alu::table::{AluOp, Op, Ty};
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::{FloatPredicate, IntPredicate};

/// The modifiers an operation reads (the emulator's `AluIn` fields of the same names).
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra {
    pub op_sel: u8,
    pub op_sel_hi: u8,
    /// neg_lo of packed ops.
    pub neg: u8,
    pub neg_hi: u8,
    pub byte_sel: u8,
    pub clamp: bool,
}

impl<'ctx> OpEmitter<'ctx, '_> {
    /// As [`OpEmitter::emit`], for the operations whose result depends on modifiers: `Op::Pk`
    /// (packed f32), `Op::Fp8` (`old` is the old destination value), and with `x.clamp` the
    /// integer adds/subs that saturate (hx_sem::operands::int_saturate's list).
    pub fn emit_with(&self, op: &AluOp, v: &[IntValue<'ctx>], old: IntValue<'ctx>, x: &Extra) -> Result<IntValue<'ctx>, EmitError> {
        match op.op {
            Op::Pk(p) => self.pk32(p, v, PkMods { op_sel: x.op_sel, op_sel_hi: x.op_sel_hi, neg_lo: x.neg, neg_hi: x.neg_hi }),
            Op::Fp8(f) => self.fp8(f, v, old, x),
            o if x.clamp => self.saturate(o, v),
            _ => Err(EmitError(format!("{:?} takes no modifiers here", op.op))),
        }
    }

    /// v_pk_{add,mul,fma}_f32: each half an f32 operation on the dwords op_sel (low half) and
    /// op_sel_hi (high half) pick, negated by neg_lo / neg_hi. Emitted as one <2 x float>
    /// operation: the targets have the same packed instructions, and two scalar halves needed
    /// the SLP vectorizer (a sixth of the middle end's time) to pair them again.
    fn pk32(&self, p: PkOp, v: &[IntValue<'ctx>], m: PkMods) -> Result<IntValue<'ctx>, EmitError> {
        if !p.is_wide() {
            return self.pk16(p, v, m);
        }
        if !matches!(p, PkOp::AddF32 | PkOp::MulF32 | PkOp::FmaF32) {
            return Err(EmitError(format!("packed {p:?} is not raised yet")));
        }
        let b = self.b;
        let (i32t, i64t, f32t) = (self.ctx.i32_type(), self.ctx.i64_type(), self.ctx.f32_type());
        let (v2i32, v2f32) = (i32t.vec_type(2), f32t.vec_type(2));
        let mut xs = Vec::new();
        for i in 0..p.arity() {
            let s = *v.get(i).ok_or_else(|| EmitError("packed op: missing source".into()))?;
            let s = b.build_bit_cast(s, v2i32, "").map_err(be)?.into_vector_value();
            // Lane 0 (the low dword of the result) reads dword op_sel[i], lane 1 op_sel_hi[i].
            let (lo, hi) = ((m.op_sel >> i & 1) as u64, (m.op_sel_hi >> i & 1) as u64);
            let mut w = if (lo, hi) == (0, 1) {
                s
            } else {
                let mask = hx_llvm::inkwell::types::VectorType::const_vector(&[i32t.const_int(lo, false), i32t.const_int(hi, false)]);
                b.build_shuffle_vector(s, v2i32.get_poison(), mask, "").map_err(be)?
            };
            let (nl, nh) = ((m.neg_lo >> i & 1) as u64, (m.neg_hi >> i & 1) as u64);
            if nl | nh != 0 {
                let sign = hx_llvm::inkwell::types::VectorType::const_vector(&[i32t.const_int(nl << 31, false), i32t.const_int(nh << 31, false)]);
                w = b.build_xor(w, sign, "").map_err(be)?;
            }
            xs.push(b.build_bit_cast(w, v2f32, "").map_err(be)?.into_vector_value());
        }
        let r: hx_llvm::inkwell::values::BasicValueEnum<'ctx> = match p {
            // Each result canonicalised as OpEmitter::quieted says (a signaling NaN quietened).
            PkOp::AddF32 => b.build_float_add(xs[0], xs[1], "").map_err(be)?.into(),
            PkOp::MulF32 => b.build_float_mul(xs[0], xs[1], "").map_err(be)?.into(),
            _ => {
                let fma = self.intrinsic("llvm.fma", &[v2f32.into()])?;
                b.build_call(fma, &[xs[0].into(), xs[1].into(), xs[2].into()], "")
                    .map_err(be)?
                    .try_as_basic_value()
                    .basic()
                    .ok_or_else(|| EmitError("llvm.fma returned no value".into()))?
            }
        };
        let canonicalize = self.intrinsic("llvm.canonicalize", &[v2f32.into()])?;
        let r = self.call_value(canonicalize, &[r.into()])?;
        Ok(b.build_bit_cast(r, i64t, "").map_err(be)?.into_int_value())
    }

    /// The 2 x 16-bit packed ops (v_pk_add_f16, v_pk_fma_f16, v_pk_max_num_f16, v_pk_add_u16,
    /// v_pk_ashrrev_i16 ...), as hx_sem::alu::packed::pk16: the low half of the result reads
    /// the half op_sel picks of each source, the high half the half op_sel_hi picks, float
    /// halves negated by neg_lo / neg_hi. Emitted as one <2 x half> or <2 x i16> operation,
    /// which the targets' own packed instructions implement (f16 as the scalar f16 ops of
    /// `OpEmitter::emit`: IEEE operations, results canonicalised, min/max as llvm.minnum/maxnum).
    /// The bf16 forms are refused: the targets have no packed bf16 arithmetic.
    fn pk16(&self, p: PkOp, v: &[IntValue<'ctx>], m: PkMods) -> Result<IntValue<'ctx>, EmitError> {
        use PkOp::*;
        if matches!(p, MinF16 | MaxF16) {
            return Err(EmitError(format!("packed {p:?} is not raised yet")));
        }
        let b = self.b;
        let (i32t, i16t, f16t) = (self.ctx.i32_type(), self.ctx.i16_type(), self.ctx.f16_type());
        let (v2i16, v2f16) = (i16t.vec_type(2), f16t.vec_type(2));
        let float = p.is_float();
        let mut xs = Vec::new();
        for i in 0..p.arity() {
            let s = *v.get(i).ok_or_else(|| EmitError("packed op: missing source".into()))?;
            let s = b.build_bit_cast(s, v2i16, "").map_err(be)?.into_vector_value();
            let (lo, hi) = ((m.op_sel >> i & 1) as u64, (m.op_sel_hi >> i & 1) as u64);
            let mut w = if (lo, hi) == (0, 1) {
                s
            } else {
                let mask = hx_llvm::inkwell::types::VectorType::const_vector(&[i32t.const_int(lo, false), i32t.const_int(hi, false)]);
                b.build_shuffle_vector(s, v2i16.get_poison(), mask, "").map_err(be)?
            };
            let (nl, nh) = ((m.neg_lo >> i & 1) as u64, (m.neg_hi >> i & 1) as u64);
            if float && nl | nh != 0 {
                let sign = hx_llvm::inkwell::types::VectorType::const_vector(&[i16t.const_int(nl << 15, false), i16t.const_int(nh << 15, false)]);
                w = b.build_xor(w, sign, "").map_err(be)?;
            }
            xs.push(w);
        }
        if matches!(p, AddBf16 | MulBf16) {
            return self.pk_bf16(p, &xs);
        }
        if p == FmaBf16 {
            return self.pk_fma_bf16(&xs);
        }
        if matches!(p, MinNumBf16 | MaxNumBf16) {
            // In f32 (every bf16 is one exactly), by the f16 forms' rule (num_minmax); the result
            // is one of the operands (a NaN quietened), so its high half is the bf16.
            let v2i32 = i32t.vec_type(2);
            let sixteen = hx_llvm::inkwell::types::VectorType::const_vector(&[i32t.const_int(16, false), i32t.const_int(16, false)]);
            let name = if p == MinNumBf16 { "llvm.minnum" } else { "llvm.maxnum" };
            let r = self.num_minmax(name, self.bf16x2_to_f32x2(xs[0])?.into(), self.bf16x2_to_f32x2(xs[1])?.into())?;
            let bits = b.build_bit_cast(r, v2i32, "").map_err(be)?.into_vector_value();
            let hi = b.build_right_shift(bits, sixteen, false, "").map_err(be)?;
            return self.pk_bits(b.build_int_truncate(hi, v2i16, "").map_err(be)?.into());
        }
        let r = if float {
            let f: Vec<_> = xs.iter().map(|x| b.build_bit_cast(*x, v2f16, "").map(|y| y.into_vector_value())).collect::<Result<_, _>>().map_err(be)?;
            let call = |name: &str, args: &[hx_llvm::inkwell::values::BasicMetadataValueEnum<'ctx>]| -> Result<hx_llvm::inkwell::values::BasicValueEnum<'ctx>, EmitError> {
                let i = self.intrinsic(name, &[v2f16.into()])?;
                self.call_value(i, args)
            };
            let r: hx_llvm::inkwell::values::BasicValueEnum<'ctx> = match p {
                AddF16 => b.build_float_add(f[0], f[1], "").map_err(be)?.into(),
                MulF16 => b.build_float_mul(f[0], f[1], "").map_err(be)?.into(),
                FmaF16 => call("llvm.fma", &[f[0].into(), f[1].into(), f[2].into()])?,
                MinNumF16 => return self.pk_bits(self.num_minmax("llvm.minnum", f[0].into(), f[1].into())?),
                _ => return self.pk_bits(self.num_minmax("llvm.maxnum", f[0].into(), f[1].into())?),
            };
            let r = call("llvm.canonicalize", &[r.into()])?;
            b.build_bit_cast(r, v2i16, "").map_err(be)?.into_vector_value()
        } else {
            let (x, y) = (xs[0], xs[1]);
            // Shift counts: the low four bits of src0 (hx_sem::alu::int::lshlrev_b16).
            let count = || b.build_and(x, hx_llvm::inkwell::types::VectorType::const_vector(&[i16t.const_int(15, false), i16t.const_int(15, false)]), "");
            let minmax = |name: &str| -> Result<hx_llvm::inkwell::values::VectorValue<'ctx>, EmitError> {
                let i = self.intrinsic(name, &[v2i16.into()])?;
                Ok(self.call_value(i, &[x.into(), y.into()])?.into_vector_value())
            };
            match p {
                AddU16 | AddI16 => b.build_int_add(x, y, "").map_err(be)?,
                SubU16 | SubI16 => b.build_int_sub(x, y, "").map_err(be)?,
                MulLoU16 => b.build_int_mul(x, y, "").map_err(be)?,
                MadU16 | MadI16 => b.build_int_add(b.build_int_mul(x, y, "").map_err(be)?, xs[2], "").map_err(be)?,
                LshlrevB16 => b.build_left_shift(y, count().map_err(be)?, "").map_err(be)?,
                LshrrevB16 => b.build_right_shift(y, count().map_err(be)?, false, "").map_err(be)?,
                AshrrevI16 => b.build_right_shift(y, count().map_err(be)?, true, "").map_err(be)?,
                MinU16 => minmax("llvm.umin")?,
                MaxU16 => minmax("llvm.umax")?,
                MinI16 => minmax("llvm.smin")?,
                MaxI16 => minmax("llvm.smax")?,
                _ => return Err(EmitError(format!("packed {p:?} is not raised yet"))),
            }
        };
        Ok(b.build_bit_cast(r, i32t, "").map_err(be)?.into_int_value())
    }

    /// v_pk_add_bf16 / v_pk_mul_bf16 on the selected, negated halves `xs` (<2 x i16> each), as
    /// hx_sem's soft_add16/soft_mul16: the exact sum or product rounded once to bf16, the first
    /// NaN operand quietened. Computed in f32 and rounded to bf16 (the targets have no packed
    /// bf16 arithmetic): a product of two bf16 is exact in f32, and a sum rounded to f32 then to
    /// bf16 rounds as once, f32 having more than 2 * 8 + 1 bits. Denormals follow the f32 mode
    /// there, the f16/f64 mode in the source: the raiser refuses kernels where they differ.
    fn pk_bf16(&self, p: PkOp, xs: &[hx_llvm::inkwell::values::VectorValue<'ctx>]) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let i16t = self.ctx.i16_type();
        let v2i16 = i16t.vec_type(2);
        let splat16 = |k: u64| hx_llvm::inkwell::types::VectorType::const_vector(&[i16t.const_int(k, false), i16t.const_int(k, false)]);
        let (x, y) = (self.bf16x2_to_f32x2(xs[0])?, self.bf16x2_to_f32x2(xs[1])?);
        let r = if p == PkOp::AddBf16 { b.build_float_add(x, y, "").map_err(be)? } else { b.build_float_mul(x, y, "").map_err(be)? };
        let h = b.build_float_trunc(r, self.ctx.bf16_type().vec_type(2), "").map_err(be)?;
        let rounded = b.build_bit_cast(h, v2i16, "").map_err(be)?.into_vector_value();
        let nan = |v: hx_llvm::inkwell::values::VectorValue<'ctx>| b.build_int_compare(IntPredicate::UGT, b.build_and(v, splat16(0x7fff), "")?, splat16(0x7f80), "");
        let quiet = |v: hx_llvm::inkwell::values::VectorValue<'ctx>| b.build_or(v, splat16(0x40), "");
        let r = b.build_select(nan(xs[1]).map_err(be)?, quiet(xs[1]).map_err(be)?, rounded, "").map_err(be)?.into_vector_value();
        let r = b.build_select(nan(xs[0]).map_err(be)?, quiet(xs[0]).map_err(be)?, r, "").map_err(be)?;
        self.pk_bits(r)
    }

    /// Two bf16 (<2 x i16> bits) as <2 x float>, exactly (the bits moved to the high halves).
    fn bf16x2_to_f32x2(&self, x: hx_llvm::inkwell::values::VectorValue<'ctx>) -> Result<hx_llvm::inkwell::values::VectorValue<'ctx>, EmitError> {
        let b = self.b;
        let i32t = self.ctx.i32_type();
        let sixteen = hx_llvm::inkwell::types::VectorType::const_vector(&[i32t.const_int(16, false), i32t.const_int(16, false)]);
        let w = b.build_left_shift(b.build_int_z_extend(x, i32t.vec_type(2), "").map_err(be)?, sixteen, "").map_err(be)?;
        Ok(b.build_bit_cast(w, self.ctx.f32_type().vec_type(2), "").map_err(be)?.into_vector_value())
    }

    /// v_pk_fma_bf16 with one rounding, as hx_sem's soft fma: per half, a*b exactly in f64, plus c
    /// with the sum's error kept (TwoSum), rounded to odd at 53 bits, then to odd at 24 (f32),
    /// then to nearest bf16. Rounding to odd at p + 2 bits or more, then to nearest at p bits, is
    /// rounding once; the bf16 product has 16 bits, so nothing before is inexact. The first NaN
    /// operand quietened, as the emulator's; inf*0 and inf-inf give the default NaN through the
    /// f64 steps. (The caller checked that the f32 and f16/f64 denormal modes agree.)
    fn pk_fma_bf16(&self, xs: &[hx_llvm::inkwell::values::VectorValue<'ctx>]) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let (i32t, i64t, f32t, f64t) = (self.ctx.i32_type(), self.ctx.i64_type(), self.ctx.f32_type(), self.ctx.f64_type());
        let c32 = |n: u64| i32t.const_int(n, false);
        let mut halves = Vec::with_capacity(2);
        for h in 0..2u64 {
            let get = |k: usize| -> Result<IntValue<'ctx>, EmitError> {
                let x = xs.get(k).ok_or_else(|| EmitError("pk_fma_bf16: missing source".into()))?;
                let e = b.build_extract_element(*x, i32t.const_int(h, false), "").map_err(be)?.into_int_value();
                b.build_int_z_extend(e, i32t, "").map_err(be)
            };
            let (a, bb, c) = (get(0)?, get(1)?, get(2)?);
            let wide = |x: IntValue<'ctx>| -> Result<hx_llvm::inkwell::values::FloatValue<'ctx>, EmitError> {
                let f = b.build_bit_cast(b.build_left_shift(x, c32(16), "").map_err(be)?, f32t, "").map_err(be)?.into_float_value();
                b.build_float_ext(f, f64t, "").map_err(be)
            };
            let (ad, bd, cd) = (wide(a)?, wide(bb)?, wide(c)?);
            let p = b.build_float_mul(ad, bd, "").map_err(be)?;
            let sum = b.build_float_add(p, cd, "").map_err(be)?;
            // TwoSum: err = (p - (sum - bv)) + (cd - bv), bv = sum - p.
            let bv = b.build_float_sub(sum, p, "").map_err(be)?;
            let av = b.build_float_sub(sum, bv, "").map_err(be)?;
            let err = b.build_float_add(b.build_float_sub(p, av, "").map_err(be)?, b.build_float_sub(cd, bv, "").map_err(be)?, "").map_err(be)?;
            // Round to odd: an inexact even result moves one ulp toward the exact value.
            let to_odd = |v: hx_llvm::inkwell::values::FloatValue<'ctx>, rest: hx_llvm::inkwell::values::FloatValue<'ctx>, it: hx_llvm::inkwell::types::IntType<'ctx>| -> Result<IntValue<'ctx>, EmitError> {
                let bits = b.build_bit_cast(v, it, "").map_err(be)?.into_int_value();
                let zero = rest.get_type().const_zero();
                let inexact = b.build_float_compare(FloatPredicate::ONE, rest, zero, "").map_err(be)?;
                let even = b.build_int_compare(IntPredicate::EQ, b.build_and(bits, it.const_int(1, false), "").map_err(be)?, it.const_zero(), "").map_err(be)?;
                // v - v is 0 exactly when v is finite (NaN for infinities and NaNs).
                let finite = b.build_float_compare(FloatPredicate::OEQ, b.build_float_sub(v, v, "").map_err(be)?, v.get_type().const_zero(), "").map_err(be)?;
                let fix = b.build_and(b.build_and(inexact, even, "").map_err(be)?, finite, "").map_err(be)?;
                // Away from zero when the rest has v's sign (v's sign bit: a zero v has the exact
                // value's sign, which rounding keeps).
                let neg = b.build_int_compare(IntPredicate::SLT, bits, it.const_zero(), "").map_err(be)?;
                let same = b.build_int_compare(IntPredicate::EQ, neg, b.build_float_compare(FloatPredicate::OLT, rest, zero, "").map_err(be)?, "").map_err(be)?;
                let up = b.build_int_add(bits, it.const_int(1, false), "").map_err(be)?;
                let down = b.build_int_sub(bits, it.const_int(1, false), "").map_err(be)?;
                let moved = b.build_select(same, up, down, "").map_err(be)?.into_int_value();
                Ok(b.build_select(fix, moved, bits, "").map_err(be)?.into_int_value())
            };
            let s53 = b.build_bit_cast(to_odd(sum, err, i64t)?, f64t, "").map_err(be)?.into_float_value();
            let t = b.build_float_trunc(s53, f32t, "").map_err(be)?;
            let back = b.build_float_ext(t, f64t, "").map_err(be)?;
            let rest = b.build_float_sub(s53, back, "").map_err(be)?;
            // The f32 step's rest, as an f32 of the same sign (its size does not matter).
            let rest32 = b.build_float_trunc(rest, f32t, "").map_err(be)?;
            let rest32 = b.build_select(
                b.build_float_compare(FloatPredicate::ONE, rest, f64t.const_zero(), "").map_err(be)?,
                b.build_select(b.build_float_compare(FloatPredicate::OLT, rest, f64t.const_zero(), "").map_err(be)?, f32t.const_float(-1.0), f32t.const_float(1.0), "").map_err(be)?.into_float_value(),
                rest32,
                "",
            ).map_err(be)?.into_float_value();
            let t24 = b.build_bit_cast(to_odd(t, rest32, i32t)?, f32t, "").map_err(be)?.into_float_value();
            let h16 = b.build_float_trunc(t24, self.ctx.bf16_type(), "").map_err(be)?;
            let r = b.build_int_z_extend(b.build_bit_cast(h16, self.ctx.i16_type(), "").map_err(be)?.into_int_value(), i32t, "").map_err(be)?;
            // The first NaN operand, quietened.
            let nan = |x: IntValue<'ctx>| b.build_int_compare(IntPredicate::UGT, b.build_and(x, c32(0x7fff), "")?, c32(0x7f80), "");
            let quiet = |x: IntValue<'ctx>| b.build_or(x, c32(0x40), "");
            let r = b.build_select(nan(c).map_err(be)?, quiet(c).map_err(be)?, r, "").map_err(be)?.into_int_value();
            let r = b.build_select(nan(bb).map_err(be)?, quiet(bb).map_err(be)?, r, "").map_err(be)?.into_int_value();
            let r = b.build_select(nan(a).map_err(be)?, quiet(a).map_err(be)?, r, "").map_err(be)?.into_int_value();
            halves.push(r);
        }
        b.build_or(halves[0], b.build_left_shift(halves[1], c32(16), "").map_err(be)?, "").map_err(be)
    }

    /// A packed 16-bit result as the i32 of its bits.
    fn pk_bits(&self, r: hx_llvm::inkwell::values::BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        Ok(self.b.build_bit_cast(r, self.ctx.i32_type(), "").map_err(be)?.into_int_value())
    }

    /// The saturating (clamped) form of an integer add/sub.
    fn saturate(&self, o: Op, v: &[IntValue<'ctx>]) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let i32t = self.ctx.i32_type();
        let (name, a, c) = match o {
            Op::AddU32 | Op::AddCoU32 => ("llvm.uadd.sat", v[0], v[1]),
            Op::SubU32 | Op::SubCoU32 => ("llvm.usub.sat", v[0], v[1]),
            Op::SubrevU32 => ("llvm.usub.sat", v[1], v[0]),
            Op::AddI32 => ("llvm.sadd.sat", v[0], v[1]),
            Op::SubI32 => ("llvm.ssub.sat", v[0], v[1]),
            Op::AddU16 | Op::SubU16 | Op::AddI16 | Op::SubI16 => {
                let i16t = self.ctx.i16_type();
                let (x, y) = (b.build_int_truncate(v[0], i16t, "").map_err(be)?, b.build_int_truncate(v[1], i16t, "").map_err(be)?);
                let name = match o {
                    Op::AddU16 => "llvm.uadd.sat",
                    Op::SubU16 => "llvm.usub.sat",
                    Op::AddI16 => "llvm.sadd.sat",
                    _ => "llvm.ssub.sat",
                };
                let r = self.call(name, &[i16t.into()], &[x.into(), y.into()])?;
                return b.build_int_z_extend(r, i32t, "").map_err(be);
            }
            _ => return Err(EmitError(format!("clamp on {o:?} is not raised yet"))),
        };
        self.call(name, &[i32t.into()], &[a.into(), c.into()])
    }

    /// The output modifier (1: *2, 2: *4, 3: /2) on an f32 or f64 result (bits): an exact
    /// power-of-two scaling rounded once, as hx_sem::alu::omod_clamp_f32/f64 (llvm.ldexp, the
    /// same operation as v_ldexp).
    pub fn omod_float(&self, v: IntValue<'ctx>, t: Ty, omod: u8) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let k: i64 = match omod & 3 {
            1 => 1,
            2 => 2,
            3 => -1,
            _ => return Ok(v),
        };
        let (ft, it) = match t {
            Ty::F32 => (self.ctx.f32_type(), self.ctx.i32_type()),
            Ty::F64 => (self.ctx.f64_type(), self.ctx.i64_type()),
            _ => return Err(EmitError(format!("omod on a {t:?} result is not raised yet"))),
        };
        let i32t = self.ctx.i32_type();
        let x = b.build_bit_cast(v, ft, "").map_err(be)?.into_float_value();
        let f = self.intrinsic("llvm.ldexp", &[ft.into(), i32t.into()])?;
        let r = b.build_call(f, &[x.into(), i32t.const_int(k as u64, true).into()], "").map_err(be)?.try_as_basic_value().basic().unwrap();
        Ok(b.build_bit_cast(r, it, "").map_err(be)?.into_int_value())
    }

    /// The clamp output modifier on an f32 or f64 result (bits): [0, 1], NaN and -0 to +0 (DX10
    /// clamp, which gfx1250 always has), as hx_sem::alu::clamp_f32/clamp_f64.
    pub fn clamp_float(&self, v: IntValue<'ctx>, t: Ty) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let (ft, it) = match t {
            Ty::F32 => (self.ctx.f32_type(), self.ctx.i32_type()),
            Ty::F64 => (self.ctx.f64_type(), self.ctx.i64_type()),
            _ => return Err(EmitError(format!("clamp on a {t:?} result is not raised yet"))),
        };
        let one = if t == Ty::F32 { 0x3f80_0000u64 } else { 0x3ff0_0000_0000_0000 };
        let x = b.build_bit_cast(v, ft, "").map_err(be)?.into_float_value();
        let pos = b.build_float_compare(FloatPredicate::OGT, x, ft.const_zero(), "").map_err(be)?;
        let big = b.build_float_compare(FloatPredicate::OGE, x, ft.const_float(1.0), "").map_err(be)?;
        let r = b.build_select(big, it.const_int(one, false), v, "").map_err(be)?.into_int_value();
        Ok(b.build_select(pos, r, it.const_zero(), "").map_err(be)?.into_int_value())
    }

    fn fp8(&self, f: Fp8Op, v: &[IntValue<'ctx>], old: IntValue<'ctx>, x: &Extra) -> Result<IntValue<'ctx>, EmitError> {
        f.check_mods(x.op_sel, x.byte_sel).map_err(|e| EmitError(e.to_string()))?;
        let b = self.b;
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let c = |n: u64| i32t.const_int(n, false);
        let s0 = *v.first().ok_or_else(|| EmitError("fp8: no source".into()))?;
        let merge = |packed: IntValue<'ctx>| -> Result<IntValue<'ctx>, EmitError> {
            let (keep, sh) = if x.op_sel & 8 != 0 { (0xffff, 16) } else { (0xffff_0000, 0) };
            let kept = b.build_and(old, c(keep), "").map_err(be)?;
            b.build_or(kept, b.build_left_shift(packed, c(sh), "").map_err(be)?, "").map_err(be)
        };
        let pair = |lo: IntValue<'ctx>, hi: IntValue<'ctx>, bits: u64| -> Result<IntValue<'ctx>, EmitError> {
            b.build_or(lo, b.build_left_shift(hi, lo.get_type().const_int(bits, false), "").map_err(be)?, "").map_err(be)
        };
        let word = if x.op_sel & 1 != 0 { b.build_right_shift(s0, c(16), false, "").map_err(be)? } else { b.build_and(s0, c(0xffff), "").map_err(be)? };
        let byte_of = |w: IntValue<'ctx>, k: u64| -> Result<IntValue<'ctx>, EmitError> { b.build_and(b.build_right_shift(w, c(8 * k), false, "").map_err(be)?, c(0xff), "").map_err(be) };
        Ok(match f {
            Fp8Op::PkFromF32(fmt) => {
                let s1 = *v.get(1).ok_or_else(|| EmitError("fp8: no second source".into()))?;
                merge(pair(self.to_fp8(fmt, s0, x.clamp)?, self.to_fp8(fmt, s1, x.clamp)?, 8)?)?
            }
            Fp8Op::PkFromF16(fmt) => {
                let lo = self.to_fp8(fmt, self.f16_to_f32(s0)?, x.clamp)?;
                let hi = self.to_fp8(fmt, self.f16_to_f32(b.build_right_shift(s0, c(16), false, "").map_err(be)?)?, x.clamp)?;
                merge(pair(lo, hi, 8)?)?
            }
            Fp8Op::ToF32(fmt) => self.from_fp8(fmt, byte_of(s0, (x.byte_sel & 3) as u64)?)?,
            Fp8Op::ToF16(fmt) => self.f32_to_f16(self.from_fp8(fmt, byte_of(s0, (x.byte_sel & 3) as u64)?)?)?,
            Fp8Op::PkToF32(fmt) => {
                let lo = b.build_int_z_extend(self.from_fp8(fmt, byte_of(word, 0)?)?, i64t, "").map_err(be)?;
                let hi = b.build_int_z_extend(self.from_fp8(fmt, byte_of(word, 1)?)?, i64t, "").map_err(be)?;
                pair(lo, hi, 32)?
            }
            Fp8Op::PkToF16(fmt) => {
                let lo = self.f32_to_f16(self.from_fp8(fmt, byte_of(word, 0)?)?)?;
                let hi = self.f32_to_f16(self.from_fp8(fmt, byte_of(word, 1)?)?)?;
                pair(lo, hi, 16)?
            }
        })
    }

    /// gfx1250's eight-element conversions (hx_sem::alu::pk8, whose `check` the caller has
    /// passed: unit scales): `src` is S0's dwords, the result the destination's. `saturate`:
    /// MODE.FP16_OVFL.
    pub fn pk8(&self, op: Pk8Op, src: &[IntValue<'ctx>], saturate: bool) -> Result<Vec<IntValue<'ctx>>, EmitError> {
        let b = self.b;
        let c = |n: u64| self.ctx.i32_type().const_int(n, false);
        let word = |i: usize| src.get(i).copied().ok_or_else(|| EmitError(format!("{op:?}: source dword {i} missing")));
        let field = |i: usize, bits: usize| -> Result<IntValue<'ctx>, EmitError> {
            let (w, sh) = (i * bits / 32, (i * bits % 32) as u64);
            b.build_and(b.build_right_shift(word(w)?, c(sh), false, "").map_err(be)?, c((1 << bits) - 1), "").map_err(be)
        };
        let pack = |lo: IntValue<'ctx>, hi: IntValue<'ctx>| -> Result<IntValue<'ctx>, EmitError> {
            b.build_or(b.build_and(lo, c(0xffff), "").map_err(be)?, b.build_left_shift(hi, c(16), "").map_err(be)?, "").map_err(be)
        };
        match op {
            Pk8Op::Up { from, to } => {
                let mut f32s = Vec::with_capacity(8);
                for i in 0..8 {
                    f32s.push(match from {
                        Small::Fp8(f) => self.from_fp8(f, field(i, 8)?)?,
                        Small::Fp4 => self.fp4_to_f32(field(i, 4)?)?,
                    });
                }
                match to {
                    Wide::F32 => Ok(f32s),
                    Wide::F16 => (0..4).map(|k| pack(self.f32_to_f16(f32s[2 * k])?, self.f32_to_f16(f32s[2 * k + 1])?)).collect(),
                    Wide::BF16 => (0..4)
                        .map(|k| pack(b.build_right_shift(f32s[2 * k], c(16), false, "").map_err(be)?, b.build_right_shift(f32s[2 * k + 1], c(16), false, "").map_err(be)?))
                        .collect(),
                }
            }
            Pk8Op::Down { from, to: Small::Fp8(f) } => {
                let mut bytes = Vec::with_capacity(8);
                for i in 0..8 {
                    let x = match from {
                        Wide::F32 => word(i)?,
                        _ => self.f16_to_f32(field(i, 16)?)?,
                    };
                    bytes.push(self.to_fp8(f, x, saturate)?);
                }
                (0..2)
                    .map(|k| {
                        let mut w = bytes[4 * k];
                        for j in 1..4 {
                            w = b.build_or(w, b.build_left_shift(bytes[4 * k + j], c(8 * j as u64), "").map_err(be)?, "").map_err(be)?;
                        }
                        Ok(w)
                    })
                    .collect()
            }
            Pk8Op::Down { .. } => Err(EmitError(format!("{op:?} is not raised"))),
        }
    }

    /// An E2M1 nibble (i32 0..=15) as f32 bits (hx_sem::alu::pk8::fp4_to_f32).
    fn fp4_to_f32(&self, n: IntValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let c = |v: u64| self.ctx.i32_type().const_int(v, false);
        let sign = b.build_left_shift(b.build_and(n, c(8), "").map_err(be)?, c(28), "").map_err(be)?;
        let e = b.build_and(b.build_right_shift(n, c(1), false, "").map_err(be)?, c(3), "").map_err(be)?;
        let m = b.build_and(n, c(1), "").map_err(be)?;
        let normal = b.build_or(
            b.build_left_shift(b.build_int_add(e, c(126), "").map_err(be)?, c(23), "").map_err(be)?,
            b.build_left_shift(m, c(22), "").map_err(be)?,
            "",
        ).map_err(be)?;
        let sub = b.build_int_mul(m, c(0x3f00_0000), "").map_err(be)?;
        let zero_e = b.build_int_compare(IntPredicate::EQ, e, c(0), "").map_err(be)?;
        let mag = b.build_select(zero_e, sub, normal, "").map_err(be)?.into_int_value();
        b.build_or(sign, mag, "").map_err(be)
    }

    /// The f16 in the low half of `x` as f32 bits (exact).
    fn f16_to_f32(&self, x: IntValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let w = b.build_float_ext(self.half(x).map_err(be)?, self.ctx.f32_type(), "").map_err(be)?;
        Ok(b.build_bit_cast(w, self.ctx.i32_type(), "").map_err(be)?.into_int_value())
    }

    /// f32 bits of an fp8/bf8 value (exact, or NaN) as f16 bits: NaN as the quiet NaN with the
    /// sign kept.
    fn f32_to_f16(&self, x: IntValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let c = |n: u64| self.ctx.i32_type().const_int(n, false);
        let f = b.build_bit_cast(x, self.ctx.f32_type(), "").map_err(be)?.into_float_value();
        let h = self.half_bits(b.build_float_trunc(f, self.ctx.f16_type(), "").map_err(be)?).map_err(be)?;
        let nan = b.build_int_compare(IntPredicate::UGT, b.build_and(x, c(0x7fff_ffff), "").map_err(be)?, c(0x7f80_0000), "").map_err(be)?;
        let qnan = b.build_or(b.build_and(b.build_right_shift(x, c(16), false, "").map_err(be)?, c(0x8000), "").map_err(be)?, c(0x7e00), "").map_err(be)?;
        Ok(b.build_select(nan, qnan, h, "").map_err(be)?.into_int_value())
    }

    /// f32 bits -> fp8/bf8 code (i32 0..=255): round to nearest even at the format's precision
    /// (subnormals included), overflow and infinity to NaN/infinity or (clamp) the largest
    /// finite value, NaN to the quiet NaN; the sign kept.
    fn to_fp8(&self, fmt: Fp8Fmt, x: IntValue<'ctx>, clamp: bool) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let i32t = self.ctx.i32_type();
        let c = |n: i64| i32t.const_int(n as u64, true);
        let (m, bias): (i64, i64) = match fmt {
            Fp8Fmt::E4M3 => (3, 7),
            Fp8Fmt::E5M2 => (2, 15),
        };
        let emin = 1 - bias;
        let sel = |k: IntValue<'ctx>, t: IntValue<'ctx>, e: IntValue<'ctx>| -> Result<IntValue<'ctx>, EmitError> { Ok(b.build_select(k, t, e, "").map_err(be)?.into_int_value()) };
        let sign = b.build_and(b.build_right_shift(x, c(24), false, "").map_err(be)?, c(0x80), "").map_err(be)?;
        let a = b.build_and(x, c(0x7fff_ffff), "").map_err(be)?;
        // Unbiased exponent (zeros and f32 subnormals come out at -127 and round to zero).
        let e = b.build_int_sub(b.build_right_shift(a, c(23), false, "").map_err(be)?, c(127), "").map_err(be)?;
        let sig = b.build_or(b.build_and(a, c(0x7f_ffff), "").map_err(be)?, c(0x80_0000), "").map_err(be)?;
        let below = b.build_int_compare(IntPredicate::SLT, e, c(emin), "").map_err(be)?;
        let ecl = sel(below, c(emin), e)?;
        // sig / 2^sh is the value in units of the format's spacing at that exponent; past 31
        // the quotient is 0 and nothing rounds up (sig < 2^24).
        let sh = b.build_int_add(c(23 - m), b.build_int_sub(ecl, e, "").map_err(be)?, "").map_err(be)?;
        let sh = sel(b.build_int_compare(IntPredicate::UGT, sh, c(31), "").map_err(be)?, c(31), sh)?;
        let q = b.build_right_shift(sig, sh, false, "").map_err(be)?;
        let one = b.build_left_shift(c(1), sh, "").map_err(be)?;
        let rem = b.build_and(sig, b.build_int_sub(one, c(1), "").map_err(be)?, "").map_err(be)?;
        let half = b.build_right_shift(one, c(1), false, "").map_err(be)?;
        let gt = b.build_int_compare(IntPredicate::UGT, rem, half, "").map_err(be)?;
        let tie = b.build_and(
            b.build_int_compare(IntPredicate::EQ, rem, half, "").map_err(be)?,
            b.build_int_compare(IntPredicate::NE, b.build_and(q, c(1), "").map_err(be)?, c(0), "").map_err(be)?,
            "",
        ).map_err(be)?;
        let up = b.build_or(gt, tie, "").map_err(be)?;
        let n = b.build_int_add(q, b.build_int_z_extend(up, i32t, "").map_err(be)?, "").map_err(be)?;
        // The exponent field plus the rounded significand (a carry moves into the exponent).
        let code = b.build_int_add(b.build_left_shift(b.build_int_sub(ecl, c(emin), "").map_err(be)?, c(m), "").map_err(be)?, n, "").map_err(be)?;
        let over_code = c(if clamp { fmt.max_code() } else { fmt.overflow_code() } as i64);
        let over = b.build_int_compare(IntPredicate::SGT, code, c(fmt.max_code() as i64), "").map_err(be)?;
        let fin = sel(over, over_code, code)?;
        let inf = b.build_int_compare(IntPredicate::EQ, a, c(0x7f80_0000), "").map_err(be)?;
        let nan = b.build_int_compare(IntPredicate::UGT, a, c(0x7f80_0000), "").map_err(be)?;
        let r = sel(nan, c(fmt.nan_code() as i64), sel(inf, over_code, fin)?)?;
        b.build_or(r, sign, "").map_err(be)
    }

    /// fp8/bf8 code (i32 0..=255) -> f32 bits (exact; NaN quiet with the sign kept): the WMMA
    /// element conversion ([`OpEmitter::fp8_to_f32`], whose NaN is positive) with the code's sign
    /// set, which only NaN lacks.
    fn from_fp8(&self, fmt: Fp8Fmt, byte: IntValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        let b = self.b;
        let i32t = self.ctx.i32_type();
        let v = self.fp8_to_f32(byte, matches!(fmt, Fp8Fmt::E5M2))?;
        let bits = b.build_bit_cast(v, i32t, "").map_err(be)?.into_int_value();
        let sign = b.build_left_shift(b.build_and(byte, i32t.const_int(0x80, false), "").map_err(be)?, i32t.const_int(24, false), "").map_err(be)?;
        b.build_or(bits, sign, "").map_err(be)
    }
}
