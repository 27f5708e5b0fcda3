//! The LLVM IR of each ALU operation of the shared table (hx_sem::alu::table), on integer bit
//! patterns. Kept apart from the raiser so that it can be checked on its own: the tests JIT this
//! IR on the host and compare it with the emulator's `eval` of the same operation.

mod mods;
pub use mods::Extra;

use hx_sem::alu::table::{AluOp, Op, Ty};
use hx_llvm::inkwell::builder::{Builder, BuilderError};
use hx_llvm::inkwell::context::Context;
use hx_llvm::inkwell::intrinsics::Intrinsic;
use hx_llvm::inkwell::module::Module;
use hx_llvm::inkwell::types::BasicTypeEnum;
use hx_llvm::inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FloatValue, FunctionValue, IntValue};
use hx_llvm::inkwell::{FloatPredicate, IntPredicate};

/// Operations raised to AMDGPU intrinsics (the target's own instruction of the same
/// semantics): they cannot run on the host, so they are checked by emulating the target code.
pub fn target_only(op: Op) -> bool {
    use Op::*;
    matches!(op, RcpF32 | SqrtF32 | ExpF32 | LogF32 | SinF32 | RcpF64 | DivFmasF32 | DivFmasF64 | DivFixupF32 | DivFixupF64 | PermB32)
}

/// Emits ALU operations at the builder's position.
pub struct OpEmitter<'ctx, 'm> {
    pub ctx: &'ctx Context,
    pub module: &'m Module<'ctx>,
    pub b: &'m Builder<'ctx>,
    /// The thread's lane in its source wave (0..31), for v_mbcnt.
    pub lane: IntValue<'ctx>,
    /// The IR is for an AMDGPU target: an operation may be the target's own instruction (inline
    /// assembly) where its semantics are exactly the source's. Off for IR run elsewhere (the
    /// host-JIT tests), which gets the generic IR of the same semantics.
    pub amdgpu: bool,
}

/// Why an operation could not be emitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitError(pub String);

impl From<BuilderError> for EmitError {
    fn from(e: BuilderError) -> Self {
        EmitError(format!("IR builder: {e}"))
    }
}

fn be(e: BuilderError) -> EmitError {
    e.into()
}

impl<'ctx> OpEmitter<'ctx, '_> {
    fn i32(&self, v: u64) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(v, false)
    }

    /// The value of an OCP fp8 (E4M3) or bf8 (E5M2) byte (the low 8 bits of `x`, an i32) as an
    /// f32: exact (every such value is an f32), and its extension to f64 is what
    /// hx_sem::wmma::fp8_value gives (NaN as the positive quiet NaN, whatever the sign).
    /// 32-bit arithmetic with one compare: WMMA lowerings convert hundreds of elements in one
    /// block, where f64 table loads, wide selects or integer adds cost LLVM minutes.
    pub fn fp8_to_f32(&self, x: IntValue<'ctx>, e5m2: bool) -> Result<hx_llvm::inkwell::values::FloatValue<'ctx>, EmitError> {
        let (b, i32t, f32t) = (self.b, self.ctx.i32_type(), self.ctx.f32_type());
        let (mbits, ebits, bias) = if e5m2 { (2u64, 5u64, 15u64) } else { (3, 4, 7) };
        let emask = (1 << ebits) - 1;
        let c = |v: u64| i32t.const_int(v, false);
        let byte = b.build_and(x, c(0xff), "").map_err(be)?;
        let sign = b.build_right_shift(byte, c(7), false, "").map_err(be)?;
        let e = b.build_and(b.build_right_shift(byte, c(mbits), false, "").map_err(be)?, c(emask), "").map_err(be)?;
        let mant = b.build_and(byte, c((1 << mbits) - 1), "").map_err(be)?;
        // |value| = significand * 2^(max(e, 1)) * 2^-(bias + mbits), every step exact in f32. No
        // integer adds: LLVM's straight-line strength reduction is quadratic in them per block.
        let i32ty = [i32t.into()];
        let umin = |v: IntValue<'ctx>| self.call("llvm.umin", &i32ty, &[v.into(), c(1).into()]);
        let umax = |v: IntValue<'ctx>| self.call("llvm.umax", &i32ty, &[v.into(), c(1).into()]);
        let normal = umin(e)?;
        let sig = b.build_or(mant, b.build_left_shift(normal, c(mbits), "").map_err(be)?, "").map_err(be)?;
        let sig = b.build_unsigned_int_to_float(sig, f32t, "").map_err(be)?;
        let ldexp = self.intrinsic("llvm.ldexp", &[f32t.into(), i32t.into()])?;
        let scaled = b.build_call(ldexp, &[sig.into(), umax(e)?.into()], "").map_err(be)?.try_as_basic_value().basic();
        let scaled = scaled.ok_or_else(|| EmitError("llvm.ldexp returns nothing".into()))?.into_float_value();
        let mag = b.build_float_mul(scaled, f32t.const_float(2f64.powi(-((bias + mbits) as i32))), "").map_err(be)?;
        let mag = b.build_bit_cast(mag, i32t, "").map_err(be)?.into_int_value();
        let bits = b.build_or(mag, b.build_left_shift(sign, c(31), "").map_err(be)?, "").map_err(be)?;
        let (is_special, special) = if e5m2 {
            // Exponent all ones: +-infinity for a zero mantissa, else NaN (positive).
            let nz = umin(mant)?;
            let inf_sign = b.build_and(sign, b.build_xor(nz, c(1), "").map_err(be)?, "").map_err(be)?;
            let sp = b.build_or(c(0x7f80_0000), b.build_left_shift(nz, c(22), "").map_err(be)?, "").map_err(be)?;
            let sp = b.build_or(sp, b.build_left_shift(inf_sign, c(31), "").map_err(be)?, "").map_err(be)?;
            (b.build_int_compare(IntPredicate::EQ, e, c(emask), "").map_err(be)?, sp)
        } else {
            // E4M3 has no infinities: only S.1111.111 is NaN.
            let low = b.build_and(byte, c(0x7f), "").map_err(be)?;
            (b.build_int_compare(IntPredicate::EQ, low, c(0x7f), "").map_err(be)?, c(0x7fc0_0000))
        };
        let bits = b.build_select(is_special, special, bits, "").map_err(be)?.into_int_value();
        Ok(b.build_bit_cast(bits, f32t, "").map_err(be)?.into_float_value())
    }

    fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> Result<FunctionValue<'ctx>, EmitError> {
        let i = Intrinsic::find(name).ok_or_else(|| EmitError(format!("no intrinsic {name}")))?;
        i.get_declaration(self.module, types).ok_or_else(|| EmitError(format!("cannot declare {name}")))
    }

    fn call(&self, name: &str, types: &[BasicTypeEnum<'ctx>], args: &[BasicMetadataValueEnum<'ctx>]) -> Result<IntValue<'ctx>, EmitError> {
        let f = self.intrinsic(name, types)?;
        Ok(self.call_value(f, args)?.into_int_value())
    }

    /// The value a call of `f` returns (an error, not a panic, if it returns none).
    fn call_value(&self, f: FunctionValue<'ctx>, args: &[BasicMetadataValueEnum<'ctx>]) -> Result<BasicValueEnum<'ctx>, EmitError> {
        let v = self.b.build_call(f, args, "").map_err(be)?.try_as_basic_value().basic();
        v.ok_or_else(|| EmitError(format!("{} returns nothing", f.get_name().to_string_lossy())))
    }

    /// `x + y (+ carry_in)` or `x - y (- borrow_in)` on 32 bits with the carry or borrow out, as
    /// `llvm.u{add,sub}.with.overflow` (`name`). With a carry in, two of them whose flags are
    /// or-ed: the backend fuses that diamond into one add or subtract with carry
    /// (v_addc_co_u32), where a 64-bit sum and a compare cost three instructions.
    fn with_overflow(&self, name: &str, x: IntValue<'ctx>, y: IntValue<'ctx>, carry_in: Option<IntValue<'ctx>>) -> Result<(IntValue<'ctx>, Option<IntValue<'ctx>>), EmitError> {
        let b = self.b;
        let i32t = self.ctx.i32_type();
        let f = self.intrinsic(name, &[i32t.into()])?;
        let step = |x: IntValue<'ctx>, y: IntValue<'ctx>| -> Result<(IntValue<'ctx>, IntValue<'ctx>), EmitError> {
            let pair = self.call_value(f, &[x.into(), y.into()])?.into_struct_value();
            let r = b.build_extract_value(pair, 0, "").map_err(be)?.into_int_value();
            let o = b.build_extract_value(pair, 1, "").map_err(be)?.into_int_value();
            Ok((r, o))
        };
        let (r, o) = step(x, y)?;
        let Some(c) = carry_in else { return Ok((r, Some(o))) };
        let (r2, o2) = step(r, b.build_int_z_extend(c, i32t, "").map_err(be)?)?;
        Ok((r2, Some(b.build_or(o, o2, "").map_err(be)?)))
    }

    /// `r` as the hardware's arithmetic leaves it: a signaling NaN quietened (and a denormal
    /// flushed where the mode flushes). LLVM folds `x * 1.0`, `x + -0.0`, `ldexp(x, 0)` and
    /// `maxnum(x, x)` to `x`, which would pass a signaling NaN through unquietened; the backend
    /// drops the canonicalize wherever the value is already canonical (any arithmetic result).
    pub(crate) fn quieted(&self, r: FloatValue<'ctx>) -> Result<FloatValue<'ctx>, EmitError> {
        let c = self.intrinsic("llvm.canonicalize", &[r.get_type().into()])?;
        Ok(self.call_value(c, &[r.into()])?.into_float_value())
    }

    /// v_max_num / v_min_num (`name`: llvm.maxnum or llvm.minnum, or llvm.maximumnum or
    /// llvm.minimumnum) on floats or float vectors,
    /// as hx_sem's minmax_num: the non-NaN operand, -0 below +0 (the target's IEEE-mode
    /// v_max/v_min on inputs the backend canonicalises), and of two NaNs the first, quietened,
    /// where the target's instruction returns the second. So a NaN `y` is replaced by `x`
    /// first: `maxnum(x, x)` is `x` quietened, which is the answer whether `x` is a NaN or not.
    pub(crate) fn num_minmax(&self, name: &str, x: BasicValueEnum<'ctx>, y: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, EmitError> {
        let b = self.b;
        let y = match y {
            BasicValueEnum::FloatValue(f) => {
                let nan = b.build_float_compare(FloatPredicate::UNO, f, f, "").map_err(be)?;
                b.build_select(nan, x, y, "").map_err(be)?
            }
            BasicValueEnum::VectorValue(f) => {
                let nan = b.build_float_compare(FloatPredicate::UNO, f, f, "").map_err(be)?;
                b.build_select(nan, x, y, "").map_err(be)?
            }
            _ => return Err(EmitError("min/max of a non-float".into())),
        };
        let i = self.intrinsic(name, &[x.get_type()])?;
        let r = self.call_value(i, &[x.into(), y.into()])?;
        let c = self.intrinsic("llvm.canonicalize", &[x.get_type()])?;
        self.call_value(c, &[r.into()])
    }

    /// v_maximum / v_minimum (IEEE 754-2019 maximum/minimum, `name`: llvm.maximumnum or
    /// llvm.minimumnum for the numbers), as hx_sem's minmax_ieee2019: the first NaN operand,
    /// quietened; else the larger (smaller) with -0 below +0. (llvm.maximum does not say which
    /// NaN it returns; the target expands it to the default NaN.)
    fn ieee_minmax(&self, name: &str, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> Result<FloatValue<'ctx>, EmitError> {
        let b = self.b;
        let t = x.get_type();
        let num = self.intrinsic(name, &[t.into()])?;
        let r = self.call_value(num, &[x.into(), y.into()])?.into_float_value();
        let c = self.intrinsic("llvm.canonicalize", &[t.into()])?;
        let quiet = |v: FloatValue<'ctx>| -> Result<FloatValue<'ctx>, EmitError> { Ok(self.call_value(c, &[v.into()])?.into_float_value()) };
        let uno = |v: FloatValue<'ctx>| b.build_float_compare(FloatPredicate::UNO, v, v, "").map_err(be);
        let r = b.build_select(uno(y)?, quiet(y)?, r, "").map_err(be)?.into_float_value();
        Ok(b.build_select(uno(x)?, quiet(x)?, r, "").map_err(be)?.into_float_value())
    }

    /// The bits of a 16-, 32- or 64-bit float, as [`Self::float_of`] reads them (16-bit values
    /// zero-extended to i32).
    fn bits_of(&self, x: FloatValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        let t = x.get_type();
        if t == self.ctx.f16_type() {
            return self.half_bits(x).map_err(be);
        }
        let it = if t == self.ctx.f64_type() { self.ctx.i64_type() } else { self.ctx.i32_type() };
        Ok(self.b.build_bit_cast(x, it, "").map_err(be)?.into_int_value())
    }

    /// The float of `bits` (16, 32 or 64) whose bit pattern `x` holds (16-bit values in i32).
    fn float_of(&self, x: IntValue<'ctx>, bits: u32) -> Result<FloatValue<'ctx>, EmitError> {
        let b = self.b;
        let (it, ft) = match bits {
            16 => (self.ctx.i16_type(), self.ctx.f16_type()),
            32 => (self.ctx.i32_type(), self.ctx.f32_type()),
            64 => (self.ctx.i64_type(), self.ctx.f64_type()),
            _ => return Err(EmitError(format!("a {bits}-bit float"))),
        };
        let x = if x.get_type().get_bit_width() == bits { x } else { b.build_int_truncate(x, it, "").map_err(be)? };
        Ok(b.build_bit_cast(x, ft, "").map_err(be)?.into_float_value())
    }

    /// Truncates/extends to the width `ty` is computed in (16- and 32-bit types in i32).
    pub fn fit(&self, v: IntValue<'ctx>, ty: Ty) -> Result<IntValue<'ctx>, EmitError> {
        let want = if ty.bits() == 64 { 64 } else { 32 };
        let have = v.get_type().get_bit_width();
        let t = if want == 64 { self.ctx.i64_type() } else { self.ctx.i32_type() };
        Ok(if have == want {
            v
        } else if have > want {
            self.b.build_int_truncate(v, t, "").map_err(be)?
        } else {
            self.b.build_int_z_extend(v, t, "").map_err(be)?
        })
    }

    /// The IR of one ALU operation on integer bit patterns (sources as `op.srcs` give their
    /// widths, 16-bit types in i32); returns (value, flag).
    pub fn emit(&self, op: &AluOp, v: &[IntValue<'ctx>], flag_in: IntValue<'ctx>) -> Result<(IntValue<'ctx>, Option<IntValue<'ctx>>), EmitError> {
        let (value, flag) = self.emit_raw(op, v, flag_in)?;
        let value = match op.dst {
            Some(t) => self.fit(value, t)?,
            None => value,
        };
        Ok((value, flag))
    }

    fn emit_raw(&self, op: &AluOp, v: &[IntValue<'ctx>], flag_in: IntValue<'ctx>) -> Result<(IntValue<'ctx>, Option<IntValue<'ctx>>), EmitError> {
        let b = &self.b;
        let (i32t, i64t, f32t) = (self.ctx.i32_type(), self.ctx.i64_type(), self.ctx.f32_type());
        let f = |x: IntValue<'ctx>| -> Result<_, BuilderError> { Ok(b.build_bit_cast(x, f32t, "")?.into_float_value()) };
        let bits = |x: hx_llvm::inkwell::values::FloatValue<'ctx>| -> Result<_, BuilderError> { Ok(b.build_bit_cast(x, i32t, "")?.into_int_value()) };
        let nz = |x: IntValue<'ctx>| -> Result<_, BuilderError> { b.build_int_compare(IntPredicate::NE, x, x.get_type().const_zero(), "") };
        let c32 = |x: u64| i32t.const_int(x, false);
        let sh_mask = |x: IntValue<'ctx>, w: u64| -> Result<_, BuilderError> { b.build_and(x, x.get_type().const_int(w - 1, false), "") };
        let none = |x: IntValue<'ctx>| Ok((x, None));
        use Op::*;
        match op.op {
            MovB32 | SMovB32 | SMovB64 | MovB64 => none(v[0]),
            MovB16 | CvtU32U16 => none(b.build_and(v[0], c32(0xffff), "")?),
            OrB16 => none(b.build_and(b.build_or(v[0], v[1], "")?, c32(0xffff), "")?),
            AndB16 => none(b.build_and(b.build_and(v[0], v[1], "")?, c32(0xffff), "")?),
            XorB16 => none(b.build_and(b.build_xor(v[0], v[1], "")?, c32(0xffff), "")?),
            NotB16 => none(b.build_and(b.build_not(v[0], "")?, c32(0xffff), "")?),
            SMovkI32 => none(b.build_int_s_extend(b.build_int_truncate(v[0], self.ctx.i16_type(), "")?, i32t, "")?),
            AddU32 => none(b.build_int_add(v[0], v[1], "")?),
            SubU32 => none(b.build_int_sub(v[0], v[1], "")?),
            SubrevU32 => none(b.build_int_sub(v[1], v[0], "")?),
            AndB32 | SAndB32 | SAndB64 => {
                let r = b.build_and(v[0], v[1], "")?;
                Ok((r, Some(nz(r)?)))
            }
            OrB32 | SOrB32 | SOrB64 => {
                let r = b.build_or(v[0], v[1], "")?;
                Ok((r, Some(nz(r)?)))
            }
            XorB32 | SXorB32 | SXorB64 => {
                let r = b.build_xor(v[0], v[1], "")?;
                Ok((r, Some(nz(r)?)))
            }
            SAndn2B32 | SAndn2B64 => {
                let r = b.build_and(v[0], b.build_not(v[1], "")?, "")?;
                Ok((r, Some(nz(r)?)))
            }
            SOrn2B32 | SOrn2B64 => {
                let r = b.build_or(v[0], b.build_not(v[1], "")?, "")?;
                Ok((r, Some(nz(r)?)))
            }
            NotB32 | SNotB32 | SNotB64 => {
                let r = b.build_not(v[0], "")?;
                Ok((r, Some(nz(r)?)))
            }
            LshlrevB32 => none(b.build_left_shift(v[1], sh_mask(v[0], 32)?, "")?),
            LshrrevB32 => none(b.build_right_shift(v[1], sh_mask(v[0], 32)?, false, "")?),
            AshrrevI32 => none(b.build_right_shift(v[1], sh_mask(v[0], 32)?, true, "")?),
            LshlrevB64 => none(b.build_left_shift(v[1], b.build_int_z_extend(sh_mask(self.fit(v[0], Ty::U32)?, 64)?, i64t, "")?, "")?),
            LshrrevB64 => none(b.build_right_shift(v[1], b.build_int_z_extend(sh_mask(self.fit(v[0], Ty::U32)?, 64)?, i64t, "")?, false, "")?),
            SLshlB32 | SLshrB32 | SAshrI32 => {
                let s = sh_mask(v[1], 32)?;
                let r = match op.op {
                    SLshlB32 => b.build_left_shift(v[0], s, "")?,
                    SLshrB32 => b.build_right_shift(v[0], s, false, "")?,
                    _ => b.build_right_shift(v[0], s, true, "")?,
                };
                Ok((r, Some(nz(r)?)))
            }
            SLshlB64 | SLshrB64 | SAshrI64 => {
                let s = b.build_int_z_extend(sh_mask(self.fit(v[1], Ty::U32)?, 64)?, i64t, "")?;
                let r = match op.op {
                    SLshlB64 => b.build_left_shift(v[0], s, "")?,
                    SLshrB64 => b.build_right_shift(v[0], s, false, "")?,
                    _ => b.build_right_shift(v[0], s, true, "")?,
                };
                Ok((r, Some(nz(r)?)))
            }
            SLshlAddU32(n) => {
                let r = b.build_int_add(b.build_left_shift(v[0], c32(n as u64), "")?, v[1], "")?;
                // SCC = carry out of the 32-bit result (ISA: unsigned overflow of the add).
                let wide = b.build_int_add(
                    b.build_left_shift(b.build_int_z_extend(v[0], i64t, "")?, i64t.const_int(n as u64, false), "")?,
                    b.build_int_z_extend(v[1], i64t, "")?,
                    "",
                )?;
                let carry = b.build_int_compare(IntPredicate::UGT, wide, i64t.const_int(u32::MAX as u64, false), "")?;
                Ok((r, Some(carry)))
            }
            SAddU32 | SAddI32 | SAddNcU64 => {
                let r = b.build_int_add(v[0], v[1], "")?;
                let flag = match op.op {
                    SAddU32 => Some(b.build_int_compare(IntPredicate::ULT, r, v[0], "")?),
                    SAddI32 => {
                        // Signed overflow: operands of equal sign, result of the other sign.
                        let x = b.build_and(b.build_xor(r, v[0], "")?, b.build_xor(r, v[1], "")?, "")?;
                        Some(b.build_int_compare(IntPredicate::SLT, x, c32(0), "")?)
                    }
                    _ => None,
                };
                Ok((r, flag))
            }
            SSubU32 | SSubI32 => {
                let r = b.build_int_sub(v[0], v[1], "")?;
                let flag = if op.op == SSubU32 {
                    b.build_int_compare(IntPredicate::ULT, v[0], v[1], "")?
                } else {
                    let x = b.build_and(b.build_xor(v[0], v[1], "")?, b.build_xor(r, v[0], "")?, "")?;
                    b.build_int_compare(IntPredicate::SLT, x, c32(0), "")?
                };
                Ok((r, Some(flag)))
            }
            SAddkI32 | SMulkI32 => {
                // The 16-bit immediate (second source) is sign-extended.
                let k = b.build_int_s_extend(b.build_int_truncate(v[1], self.ctx.i16_type(), "")?, i32t, "")?;
                if op.op == SMulkI32 {
                    return none(b.build_int_mul(v[0], k, "")?);
                }
                let r = b.build_int_add(v[0], k, "")?;
                let x = b.build_and(b.build_xor(r, v[0], "")?, b.build_xor(r, k, "")?, "")?;
                Ok((r, Some(b.build_int_compare(IntPredicate::SLT, x, c32(0), "")?)))
            }
            SMulI32 | MulLoU32 => none(b.build_int_mul(v[0], v[1], "")?),
            MulHiU32 | SMulHiU32 => {
                let w = b.build_int_mul(b.build_int_z_extend(v[0], i64t, "")?, b.build_int_z_extend(v[1], i64t, "")?, "")?;
                none(b.build_int_truncate(b.build_right_shift(w, i64t.const_int(32, false), false, "")?, i32t, "")?)
            }
            MulHiI32 | SMulHiI32 => {
                let w = b.build_int_mul(b.build_int_s_extend(v[0], i64t, "")?, b.build_int_s_extend(v[1], i64t, "")?, "")?;
                none(b.build_int_truncate(b.build_right_shift(w, i64t.const_int(32, false), false, "")?, i32t, "")?)
            }
            MulI32I24 => {
                let s24 = |x: IntValue<'ctx>| -> Result<_, BuilderError> { b.build_right_shift(b.build_left_shift(x, c32(8), "")?, c32(8), true, "") };
                none(b.build_int_mul(s24(v[0])?, s24(v[1])?, "")?)
            }
            LshlrevB16 | LshrrevB16 | AshrrevI16 => {
                // 16-bit shifts by the low 4 bits of src0, on src1's low half; the result is the
                // low half (the caller places or zero-extends it, as for every 16-bit result).
                let amt = b.build_and(v[0], c32(15), "")?;
                let x = b.build_and(v[1], c32(0xffff), "")?;
                let r = match op.op {
                    LshlrevB16 => b.build_left_shift(x, amt, "")?,
                    LshrrevB16 => b.build_right_shift(x, amt, false, "")?,
                    _ => {
                        let sx = b.build_right_shift(b.build_left_shift(x, c32(16), "")?, c32(16), true, "")?;
                        b.build_right_shift(sx, amt, true, "")?
                    }
                };
                none(b.build_and(r, c32(0xffff), "")?)
            }
            Xor3B32 => none(b.build_xor(b.build_xor(v[0], v[1], "")?, v[2], "")?),
            SNandB32 | SNandB64 | SNorB32 | SNorB64 | SXnorB32 | SXnorB64 => {
                let r = match op.op {
                    SNandB32 | SNandB64 => b.build_and(v[0], v[1], "")?,
                    SNorB32 | SNorB64 => b.build_or(v[0], v[1], "")?,
                    _ => b.build_xor(v[0], v[1], "")?,
                };
                let r = b.build_not(r, "")?;
                Ok((r, Some(nz(r)?)))
            }
            SAbsI32 => {
                // |a| wrapping (|i32::MIN| = i32::MIN), SCC = result != 0.
                let neg = b.build_int_compare(IntPredicate::SLT, v[0], c32(0), "")?;
                let r = b.build_select(neg, b.build_int_neg(v[0], "")?, v[0], "")?.into_int_value();
                Ok((r, Some(nz(r)?)))
            }
            SBfmB32 => {
                let ones = b.build_int_sub(b.build_left_shift(c32(1), sh_mask(v[0], 32)?, "")?, c32(1), "")?;
                none(b.build_left_shift(ones, sh_mask(v[1], 32)?, "")?)
            }
            AddI32 => none(b.build_int_add(v[0], v[1], "")?),
            SubI32 => none(b.build_int_sub(v[0], v[1], "")?),
            SSextI32I8 => none(b.build_int_s_extend(b.build_int_truncate(v[0], self.ctx.i8_type(), "")?, i32t, "")?),
            SPackLl | SPackLh | SPackHl | SPackHh => {
                let lo = if matches!(op.op, SPackLl | SPackLh) { b.build_and(v[0], c32(0xffff), "")? } else { b.build_right_shift(v[0], c32(16), false, "")? };
                let hi = if matches!(op.op, SPackLl | SPackHl) { b.build_left_shift(v[1], c32(16), "")? } else { b.build_and(v[1], c32(0xffff_0000), "")? };
                none(b.build_or(lo, hi, "")?)
            }
            SBfmB64 => {
                let k64 = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> { b.build_int_z_extend(b.build_and(x, c32(63), "")?, i64t, "") };
                let ones = b.build_int_sub(b.build_left_shift(i64t.const_int(1, false), k64(v[0])?, "")?, i64t.const_int(1, false), "")?;
                none(b.build_left_shift(ones, k64(v[1])?, "")?)
            }
            SBitcmp0B64 | SBitcmp1B64 => {
                let sh = b.build_int_z_extend(b.build_and(v[1], c32(63), "")?, i64t, "")?;
                let bit = b.build_and(b.build_right_shift(v[0], sh, false, "")?, i64t.const_int(1, false), "")?;
                let want = if op.op == SBitcmp1B64 { IntPredicate::NE } else { IntPredicate::EQ };
                Ok((c32(0), Some(b.build_int_compare(want, bit, i64t.const_zero(), "")?)))
            }
            SBrevB64 => none(self.call("llvm.bitreverse", &[i64t.into()], &[v[0].into()])?),
            SBcnt0B32 | SBcnt0B64 => {
                let t = v[0].get_type();
                let n = self.call("llvm.ctpop", &[t.into()], &[b.build_not(v[0], "")?.into()])?;
                let n = if t.get_bit_width() == 64 { b.build_int_truncate(n, i32t, "")? } else { n };
                Ok((n, Some(nz(n)?)))
            }
            SFlbitB32 | SFlbitB64 => {
                // Leading zeros, -1 for zero; SCC unchanged.
                let t = v[0].get_type();
                let n = self.call("llvm.ctlz", &[t.into()], &[v[0].into(), self.ctx.bool_type().const_zero().into()])?;
                let n = if t.get_bit_width() == 64 { b.build_int_truncate(n, i32t, "")? } else { n };
                let z = b.build_int_compare(IntPredicate::EQ, v[0], t.const_zero(), "")?;
                none(b.build_select(z, i32t.const_all_ones(), n, "")?.into_int_value())
            }
            SAbsdiffI32 => {
                // |a - b| wrapping, SCC = result != 0.
                let d = b.build_int_sub(v[0], v[1], "")?;
                let neg = b.build_int_compare(IntPredicate::SLT, d, c32(0), "")?;
                let r = b.build_select(neg, b.build_int_neg(d, "")?, d, "")?.into_int_value();
                Ok((r, Some(nz(r)?)))
            }
            SBfeU64 | SBfeI64 => {
                // S1: offset in bits 5:0, width in bits 22:16 (0: 0; 64 and above: the rest).
                let off = b.build_int_z_extend(b.build_and(v[1], c32(63), "")?, i64t, "")?;
                let w = b.build_int_z_extend(b.build_and(b.build_right_shift(v[1], c32(16), false, "")?, c32(0x7f), "")?, i64t, "")?;
                let k = |x: u64| i64t.const_int(x, false);
                let shifted = b.build_right_shift(v[0], off, op.op == SBfeI64, "")?;
                let wide = b.build_int_compare(IntPredicate::UGE, w, k(64), "")?;
                let wc = b.build_select(wide, k(63), w, "")?.into_int_value();
                let r = if op.op == SBfeU64 {
                    let mask = b.build_int_sub(b.build_left_shift(k(1), wc, "")?, k(1), "")?;
                    b.build_select(wide, shifted, b.build_and(shifted, mask, "")?, "")?.into_int_value()
                } else {
                    // Sign-extend from bit w - 1: shift left by 64 - w, arithmetic right by the same.
                    let back = b.build_int_sub(k(64), b.build_select(b.build_int_compare(IntPredicate::EQ, w, k(0), "")?, k(1), wc, "")?.into_int_value(), "")?;
                    let ext = b.build_right_shift(b.build_left_shift(shifted, back, "")?, back, true, "")?;
                    let ext = b.build_select(wide, shifted, ext, "")?.into_int_value();
                    b.build_select(b.build_int_compare(IntPredicate::EQ, w, k(0), "")?, k(0), ext, "")?.into_int_value()
                };
                Ok((r, Some(b.build_int_compare(IntPredicate::NE, r, k(0), "")?)))
            }
            SSextI32I16 => none(b.build_int_s_extend(b.build_int_truncate(v[0], self.ctx.i16_type(), "")?, i32t, "")?),
            SBitcmp0B32 | SBitcmp1B32 => {
                // SCC = bit (b & 31) of a is 0 (bitcmp0) / 1 (bitcmp1); no destination.
                let bit = b.build_and(b.build_right_shift(v[0], sh_mask(v[1], 32)?, false, "")?, c32(1), "")?;
                let want = if op.op == SBitcmp1B32 { IntPredicate::NE } else { IntPredicate::EQ };
                Ok((c32(0), Some(b.build_int_compare(want, bit, c32(0), "")?)))
            }
            Max3NumF32 | Min3NumF32 => {
                // Two steps of v_max_num/v_min_num, as the hardware's three-operand forms are
                // defined: IEEE 754-2019 maximumNumber/minimumNumber (-0 below +0, a NaN operand
                // loses), which llvm.maximumnum/minimumnum specify on every target; of two NaNs
                // the first (`num_minmax`).
                let name = if op.op == Max3NumF32 { "llvm.maximumnum" } else { "llvm.minimumnum" };
                let t = self.num_minmax(name, f(v[0])?.into(), f(v[1])?.into())?;
                let r = self.num_minmax(name, t, f(v[2])?.into())?.into_float_value();
                none(bits(r)?)
            }
            MulU32U24 => {
                let m = c32(0xff_ffff);
                none(b.build_int_mul(b.build_and(v[0], m, "")?, b.build_and(v[1], m, "")?, "")?)
            }
            MadU32 => none(b.build_int_add(b.build_int_mul(v[0], v[1], "")?, v[2], "")?),
            MadU32U24 => {
                let m = c32(0xff_ffff);
                none(b.build_int_add(b.build_int_mul(b.build_and(v[0], m, "")?, b.build_and(v[1], m, "")?, "")?, v[2], "")?)
            }
            Add3U32 => none(b.build_int_add(b.build_int_add(v[0], v[1], "")?, v[2], "")?),
            LshlAddU32 => none(b.build_int_add(b.build_left_shift(v[0], sh_mask(v[1], 32)?, "")?, v[2], "")?),
            AddLshlU32 => none(b.build_left_shift(b.build_int_add(v[0], v[1], "")?, sh_mask(v[2], 32)?, "")?),
            LshlOrB32 => none(b.build_or(b.build_left_shift(v[0], sh_mask(v[1], 32)?, "")?, v[2], "")?),
            Or3B32 => none(b.build_or(b.build_or(v[0], v[1], "")?, v[2], "")?),
            AndOrB32 => none(b.build_or(b.build_and(v[0], v[1], "")?, v[2], "")?),
            XadU32 => none(b.build_int_add(b.build_xor(v[0], v[1], "")?, v[2], "")?),
            AddNcU64 => none(b.build_int_add(v[0], v[1], "")?),
            SubNcU64 => none(b.build_int_sub(v[0], v[1], "")?),
            MinU32 | MaxU32 | MinI32 | MaxI32 | SMinU32 | SMaxU32 | SMinI32 | SMaxI32 => {
                // ISA pseudocode: SCC = S0 < S1 (min) or S0 >= S1 (max); D = SCC ? S0 : S1.
                let pred = match op.op {
                    MinU32 | SMinU32 => IntPredicate::ULT,
                    MaxU32 | SMaxU32 => IntPredicate::UGE,
                    MinI32 | SMinI32 => IntPredicate::SLT,
                    _ => IntPredicate::SGE,
                };
                let c = b.build_int_compare(pred, v[0], v[1], "")?;
                let r = b.build_select(c, v[0], v[1], "")?.into_int_value();
                Ok((r, Some(c)))
            }
            BfeU32 | BfeI32 if self.amdgpu => {
                // gfx9's v_bfe_u32/i32 are the same operation (offset and width are their low
                // five bits): one instruction, where the shifts and the width-0 select are five.
                let name = if op.op == BfeI32 { "llvm.amdgcn.sbfe" } else { "llvm.amdgcn.ubfe" };
                none(self.call(name, &[i32t.into()], &[v[0].into(), v[1].into(), v[2].into()])?)
            }
            BfeU32 | BfeI32 => {
                let off = sh_mask(v[1], 32)?;
                let width = b.build_and(v[2], c32(31), "")?;
                none(self.bfe(v[0], off, width, op.op == BfeI32)?)
            }
            SBfeU32 | SBfeI32 => {
                // S1: offset in bits 4:0, width in bits 22:16.
                let off = b.build_and(v[1], c32(31), "")?;
                let width = b.build_and(b.build_right_shift(v[1], c32(16), false, "")?, c32(0x7f), "")?;
                let width = b.build_select(b.build_int_compare(IntPredicate::UGT, width, c32(32), "")?, c32(32), width, "")?.into_int_value();
                let r = self.bfe(v[0], off, width, op.op == SBfeI32)?;
                Ok((r, Some(nz(r)?)))
            }
            BfiB32 => none(b.build_or(b.build_and(v[0], v[1], "")?, b.build_and(b.build_not(v[0], "")?, v[2], "")?, "")?),
            Cndmask => none(b.build_select(flag_in, v[1], v[0], "")?.into_int_value()),
            SCselectB32 | SCselectB64 => none(b.build_select(flag_in, v[0], v[1], "")?.into_int_value()),
            AddCoU32 => Ok(self.with_overflow("llvm.uadd.with.overflow", v[0], v[1], None)?),
            AddcU32 => Ok(self.with_overflow("llvm.uadd.with.overflow", v[0], v[1], Some(flag_in))?),
            SubCoU32 => {
                let r = b.build_int_sub(v[0], v[1], "")?;
                Ok((r, Some(b.build_int_compare(IntPredicate::ULT, v[0], v[1], "")?)))
            }
            SBcnt1B32 => {
                let r = self.call("llvm.ctpop", &[i32t.into()], &[v[0].into()])?;
                Ok((r, Some(nz(r)?)))
            }
            SFf1B32 => {
                // First set bit, or -1 when none (cttz with zero defined as 32 → select).
                let t = self.call("llvm.cttz", &[i32t.into()], &[v[0].into(), self.ctx.bool_type().const_zero().into()])?;
                let z = b.build_int_compare(IntPredicate::EQ, v[0], c32(0), "")?;
                none(b.build_select(z, i32t.const_all_ones(), t, "")?.into_int_value())
            }
            AddF32 | SubF32 | MulF32 | FmaF32 => {
                let r = match op.op {
                    AddF32 => self.quieted(b.build_float_add(f(v[0])?, f(v[1])?, "")?)?,
                    SubF32 => self.quieted(b.build_float_sub(f(v[0])?, f(v[1])?, "")?)?,
                    MulF32 => self.quieted(b.build_float_mul(f(v[0])?, f(v[1])?, "")?)?,
                    _ => {
                        let fma = self.intrinsic("llvm.fma", &[f32t.into()])?;
                        self.quieted(self.call_value(fma, &[f(v[0])?.into(), f(v[1])?.into(), f(v[2])?.into()])?.into_float_value())?
                    }
                };
                none(bits(r)?)
            }
            AddF64 | MulF64 | FmaF64 => {
                let f64t = self.ctx.f64_type();
                let d = |x: IntValue<'ctx>| -> Result<_, BuilderError> { Ok(b.build_bit_cast(x, f64t, "")?.into_float_value()) };
                let r = match op.op {
                    AddF64 => self.quieted(b.build_float_add(d(v[0])?, d(v[1])?, "")?)?,
                    MulF64 => self.quieted(b.build_float_mul(d(v[0])?, d(v[1])?, "")?)?,
                    _ => {
                        let fma = self.intrinsic("llvm.fma", &[f64t.into()])?;
                        self.quieted(self.call_value(fma, &[d(v[0])?.into(), d(v[1])?.into(), d(v[2])?.into()])?.into_float_value())?
                    }
                };
                none(b.build_bit_cast(r, i64t, "")?.into_int_value())
            }
            CvtF64F32 => {
                let x = b.build_float_ext(f(v[0])?, self.ctx.f64_type(), "")?;
                none(b.build_bit_cast(x, i64t, "")?.into_int_value())
            }
            CvtF32F64 => {
                let x = b.build_bit_cast(v[0], self.ctx.f64_type(), "")?.into_float_value();
                none(bits(b.build_float_trunc(x, f32t, "")?)?)
            }
            CvtF64I32 | CvtF64U32 => {
                let f64t = self.ctx.f64_type();
                let x = if op.op == CvtF64I32 { b.build_signed_int_to_float(v[0], f64t, "")? } else { b.build_unsigned_int_to_float(v[0], f64t, "")? };
                none(b.build_bit_cast(x, i64t, "")?.into_int_value())
            }
            CvtI32F32 | CvtU32F32 | CvtI32F64 | CvtU32F64 => {
                // The ISA saturates and maps NaN to 0: exactly llvm.fpto[su]i.sat, which the
                // backend expands into compares and selects around the conversion. Every AMDGPU
                // target's VALU conversion already does exactly that, so it is used as it is
                // (inline assembly: no intrinsic names it); constants still fold.
                let src = match op.op {
                    CvtI32F32 | CvtU32F32 => f(v[0])?,
                    _ => b.build_bit_cast(v[0], self.ctx.f64_type(), "")?.into_float_value(),
                };
                let signed = matches!(op.op, CvtI32F32 | CvtI32F64);
                if src.is_const() || !self.amdgpu {
                    let name = if signed { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
                    return none(self.call(name, &[i32t.into(), src.get_type().into()], &[src.into()])?);
                }
                let mnemonic = match op.op {
                    CvtI32F32 => "v_cvt_i32_f32",
                    CvtU32F32 => "v_cvt_u32_f32",
                    CvtI32F64 => "v_cvt_i32_f64",
                    _ => "v_cvt_u32_f64",
                };
                let ty = i32t.fn_type(&[src.get_type().into()], false);
                let asm = self.ctx.create_inline_asm(ty, format!("{mnemonic} $0, $1"), "=v,v".into(), false, false, None, false);
                let r = b.build_indirect_call(ty, asm, &[src.into()], "")?.try_as_basic_value().basic();
                none(r.map(|r| r.into_int_value()).ok_or_else(|| EmitError(format!("{mnemonic} returned nothing")))?)
            }
            FloorF32 | TruncF32 | RndneF32 => {
                let name = match op.op {
                    FloorF32 => "llvm.floor",
                    TruncF32 => "llvm.trunc",
                    _ => "llvm.roundeven",
                };
                let i = self.intrinsic(name, &[f32t.into()])?;
                let r = self.call_value(i, &[f(v[0])?.into()])?.into_float_value();
                none(bits(r)?)
            }
            MadU64U32 => {
                let i128t = self.ctx.i128_type();
                let p = b.build_int_mul(b.build_int_z_extend(v[0], i128t, "")?, b.build_int_z_extend(v[1], i128t, "")?, "")?;
                let t = b.build_int_add(p, b.build_int_z_extend(v[2], i128t, "")?, "")?;
                let carry = b.build_int_compare(IntPredicate::UGT, t, i128t.const_int(u64::MAX, false), "")?;
                Ok((b.build_int_truncate(t, i64t, "")?, Some(carry)))
            }
            MadI64I32 => {
                // {flag, D} = 65-bit signed a*b + c; the flag is bit 64 (hx_sem::alu::int).
                let i128t = self.ctx.i128_type();
                let p = b.build_int_mul(b.build_int_s_extend(v[0], i128t, "")?, b.build_int_s_extend(v[1], i128t, "")?, "")?;
                let t = b.build_int_add(p, b.build_int_s_extend(v[2], i128t, "")?, "")?;
                let bit = b.build_and(b.build_right_shift(t, i128t.const_int(64, false), false, "")?, i128t.const_int(1, false), "")?;
                let flag = b.build_int_compare(IntPredicate::NE, bit, i128t.const_zero(), "")?;
                Ok((b.build_int_truncate(t, i64t, "")?, Some(flag)))
            }
            MadNcI64I32 => {
                let p = b.build_int_mul(b.build_int_s_extend(v[0], i64t, "")?, b.build_int_s_extend(v[1], i64t, "")?, "")?;
                none(b.build_int_add(p, v[2], "")?)
            }
            MulHiU32U24 | MulHiI32I24 => {
                // The high 32 bits of the 48-bit product of the low 24 bits (zero- or sign-extended).
                let signed = op.op == MulHiI32I24;
                let x24 = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> {
                    if signed {
                        b.build_int_s_extend(b.build_right_shift(b.build_left_shift(x, c32(8), "")?, c32(8), true, "")?, i64t, "")
                    } else {
                        b.build_int_z_extend(b.build_and(x, c32(0xff_ffff), "")?, i64t, "")
                    }
                };
                let p = b.build_int_mul(x24(v[0])?, x24(v[1])?, "")?;
                none(b.build_int_truncate(b.build_right_shift(p, i64t.const_int(32, false), false, "")?, i32t, "")?)
            }
            MinU16 | MaxU16 | MinI16 | MaxI16 => {
                // On the low 16 bits, zero- or sign-extended.
                let signed = matches!(op.op, MinI16 | MaxI16);
                let i16t = self.ctx.i16_type();
                let ext = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> {
                    let t = b.build_int_truncate(x, i16t, "")?;
                    if signed { b.build_int_s_extend(t, i32t, "") } else { b.build_int_z_extend(t, i32t, "") }
                };
                let (x, y) = (ext(v[0])?, ext(v[1])?);
                let pred = match op.op {
                    MinU16 => IntPredicate::ULT,
                    MaxU16 => IntPredicate::UGT,
                    MinI16 => IntPredicate::SLT,
                    _ => IntPredicate::SGT,
                };
                let r = b.build_select(b.build_int_compare(pred, x, y, "")?, x, y, "")?.into_int_value();
                none(b.build_and(r, c32(0xffff), "")?)
            }
            CvtF32Ubyte(k) => {
                // Byte k of the source as an f32 (exact).
                let byte = b.build_and(b.build_right_shift(v[0], c32(8 * k as u64), false, "")?, c32(0xff), "")?;
                none(bits(b.build_unsigned_int_to_float(byte, f32t, "")?)?)
            }
            MadU16 => none(b.build_and(b.build_int_add(b.build_int_mul(v[0], v[1], "")?, v[2], "")?, c32(0xffff), "")?),
            MadU32U16 | MadI32I16 => {
                let i16t = self.ctx.i16_type();
                let x16 = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> {
                    let t = b.build_int_truncate(x, i16t, "")?;
                    if op.op == MadI32I16 { b.build_int_s_extend(t, i32t, "") } else { b.build_int_z_extend(t, i32t, "") }
                };
                none(b.build_int_add(b.build_int_mul(x16(v[0])?, x16(v[1])?, "")?, v[2], "")?)
            }
            AlignbyteB32 => {
                // ({a, b} >> 8 (c & 3)), low 32 bits.
                let w = b.build_or(b.build_left_shift(b.build_int_z_extend(v[0], i64t, "")?, i64t.const_int(32, false), "")?, b.build_int_z_extend(v[1], i64t, "")?, "")?;
                let sh = b.build_int_z_extend(b.build_left_shift(b.build_and(v[2], c32(3), "")?, c32(3), "")?, i64t, "")?;
                none(b.build_int_truncate(b.build_right_shift(w, sh, false, "")?, i32t, "")?)
            }
            BfmB32 => {
                let ones = b.build_int_sub(b.build_left_shift(c32(1), sh_mask(v[0], 32)?, "")?, c32(1), "")?;
                none(b.build_left_shift(ones, sh_mask(v[1], 32)?, "")?)
            }
            CvtPkRtzF16F32 => {
                // The target's v_cvt_pkrtz_f16_f32 (the emulator defines both alike).
                let i = self.intrinsic("llvm.amdgcn.cvt.pkrtz", &[])?;
                let r = self.call_value(i, &[f(v[0])?.into(), f(v[1])?.into()])?;
                none(b.build_bit_cast(r, i32t, "")?.into_int_value())
            }
            PackB32F16 => none(b.build_or(b.build_and(v[0], c32(0xffff), "")?, b.build_left_shift(b.build_and(v[1], c32(0xffff), "")?, c32(16), "")?, "")?),
            XnorB32 => none(b.build_not(b.build_xor(v[0], v[1], "")?, "")?),
            SubrevU16 => none(b.build_and(b.build_int_sub(v[1], v[0], "")?, c32(0xffff), "")?),
            SadU32 => {
                let d = b.build_select(b.build_int_compare(IntPredicate::UGE, v[0], v[1], "")?, b.build_int_sub(v[0], v[1], "")?, b.build_int_sub(v[1], v[0], "")?, "")?.into_int_value();
                none(b.build_int_add(d, v[2], "")?)
            }
            SadU8 => {
                // Sum of the four bytes' absolute differences, plus c.
                let mut acc = v[2];
                for k in 0..4u64 {
                    let byte = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> { b.build_and(b.build_right_shift(x, c32(8 * k), false, "")?, c32(0xff), "") };
                    let (x, y) = (byte(v[0])?, byte(v[1])?);
                    let d = b.build_select(b.build_int_compare(IntPredicate::UGE, x, y, "")?, b.build_int_sub(x, y, "")?, b.build_int_sub(y, x, "")?, "")?.into_int_value();
                    acc = b.build_int_add(acc, d, "")?;
                }
                none(acc)
            }
            MadNcU64U32 => {
                let p = b.build_int_mul(b.build_int_z_extend(v[0], i64t, "")?, b.build_int_z_extend(v[1], i64t, "")?, "")?;
                none(b.build_int_add(p, v[2], "")?)
            }
            MulU64 | SMulU64 => none(b.build_int_mul(v[0], v[1], "")?),
            LshlAddU64 => {
                // Shift amounts 0..=4 (bits 2:0; 5..=7 shift by 0), as the emulator models it.
                let s = b.build_and(v[1], c32(7), "")?;
                let s = b.build_select(b.build_int_compare(IntPredicate::UGT, s, c32(4), "")?, c32(0), s, "")?.into_int_value();
                let s = b.build_int_z_extend(s, i64t, "")?;
                none(b.build_int_add(b.build_left_shift(v[0], s, "")?, v[2], "")?)
            }
            AshrrevI64 => none(b.build_right_shift(v[1], b.build_int_z_extend(sh_mask(self.fit(v[0], Ty::U32)?, 64)?, i64t, "")?, true, "")?),
            MinU64 | MaxU64 | MinI64 | MaxI64 => {
                let pred = match op.op {
                    MinU64 => IntPredicate::ULT,
                    MaxU64 => IntPredicate::UGT,
                    MinI64 => IntPredicate::SLT,
                    _ => IntPredicate::SGT,
                };
                let c = b.build_int_compare(pred, v[0], v[1], "")?;
                none(b.build_select(c, v[0], v[1], "")?.into_int_value())
            }
            Min3U32 | Max3U32 | Min3I32 | Max3I32 => {
                let pred = match op.op {
                    Min3U32 => IntPredicate::ULT,
                    Max3U32 => IntPredicate::UGT,
                    Min3I32 => IntPredicate::SLT,
                    _ => IntPredicate::SGT,
                };
                let pick = |x: IntValue<'ctx>, y: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> {
                    let c = b.build_int_compare(pred, x, y, "")?;
                    Ok(b.build_select(c, x, y, "")?.into_int_value())
                };
                none(pick(pick(v[0], v[1])?, v[2])?)
            }
            BfrevB32 | SBrevB32 => none(self.call("llvm.bitreverse", &[i32t.into()], &[v[0].into()])?),
            BcntU32B32 => none(b.build_int_add(self.call("llvm.ctpop", &[i32t.into()], &[v[0].into()])?, v[1], "")?),
            // v_cls_i32 is gfx9's v_ffbh_i32 (the number of leading bits equal to the sign bit,
            // -1 for 0 and -1): one instruction, where the select, count and zero test are four.
            FfbhI32 | SFlbitI32 if self.amdgpu => none(self.call("llvm.amdgcn.sffbh", &[i32t.into()], &[v[0].into()])?),
            FfbhU32 | FfblB32 | FfbhI32 | SFlbitI32 => {
                // Bit scans: -1 when there is no bit to find.
                let x = if matches!(op.op, FfbhI32 | SFlbitI32) {
                    let neg = b.build_int_compare(IntPredicate::SLT, v[0], c32(0), "")?;
                    b.build_select(neg, b.build_not(v[0], "")?, v[0], "")?.into_int_value()
                } else {
                    v[0]
                };
                let name = if op.op == FfblB32 { "llvm.cttz" } else { "llvm.ctlz" };
                let n = self.call(name, &[i32t.into()], &[x.into(), self.ctx.bool_type().const_zero().into()])?;
                let z = b.build_int_compare(IntPredicate::EQ, x, c32(0), "")?;
                none(b.build_select(z, i32t.const_all_ones(), n, "")?.into_int_value())
            }
            AlignbitB32 => {
                // ({S0, S1} >> S2[4:0])[31:0] is a funnel shift right.
                none(self.call("llvm.fshr", &[i32t.into()], &[v[0].into(), v[1].into(), sh_mask(v[2], 32)?.into()])?)
            }
            SubbU32 | SubbrevU32 | SSubbU32 => {
                let (x, y) = if op.op == SubbrevU32 { (v[1], v[0]) } else { (v[0], v[1]) };
                Ok(self.with_overflow("llvm.usub.with.overflow", x, y, Some(flag_in))?)
            }
            SAddcU32 => Ok(self.with_overflow("llvm.uadd.with.overflow", v[0], v[1], Some(flag_in))?),
            SBcnt1B64 => {
                let n = self.call("llvm.ctpop", &[i64t.into()], &[v[0].into()])?;
                let n = b.build_int_truncate(n, i32t, "")?;
                Ok((n, Some(nz(n)?)))
            }
            SFf1B64 => {
                let t = self.call("llvm.cttz", &[i64t.into()], &[v[0].into(), self.ctx.bool_type().const_zero().into()])?;
                let t = b.build_int_truncate(t, i32t, "")?;
                let z = b.build_int_compare(IntPredicate::EQ, v[0], i64t.const_zero(), "")?;
                none(b.build_select(z, i32t.const_all_ones(), t, "")?.into_int_value())
            }
            MbcntLo | MbcntHi => {
                // Count of mask bits below this lane. A wave32 source lane is < 32, so the
                // high-half form adds nothing.
                if op.op == MbcntHi {
                    return none(v[1]);
                }
                let below = b.build_int_sub(b.build_left_shift(c32(1), self.lane, "")?, c32(1), "")?;
                let n = self.call("llvm.ctpop", &[i32t.into()], &[b.build_and(v[0], below, "")?.into()])?;
                none(b.build_int_add(n, v[1], "")?)
            }
            CvtF32U32 => none(bits(b.build_unsigned_int_to_float(v[0], f32t, "")?)?),
            CvtF32I32 => none(bits(b.build_signed_int_to_float(v[0], f32t, "")?)?),
            Cmp(c) => {
                use hx_sem::alu::cmp::{CmpKind, FloatPred, IntPred};
                let r = match c.kind {
                    CmpKind::Int { signed, pred, .. } => {
                        let p = match (pred, signed) {
                            (IntPred::Eq, _) => Some(IntPredicate::EQ),
                            (IntPred::Ne, _) => Some(IntPredicate::NE),
                            (IntPred::Lt, true) => Some(IntPredicate::SLT),
                            (IntPred::Lt, false) => Some(IntPredicate::ULT),
                            (IntPred::Le, true) => Some(IntPredicate::SLE),
                            (IntPred::Le, false) => Some(IntPredicate::ULE),
                            (IntPred::Gt, true) => Some(IntPredicate::SGT),
                            (IntPred::Gt, false) => Some(IntPredicate::UGT),
                            (IntPred::Ge, true) => Some(IntPredicate::SGE),
                            (IntPred::Ge, false) => Some(IntPredicate::UGE),
                            (IntPred::F, _) | (IntPred::T, _) => None,
                        };
                        match p {
                            Some(p) => b.build_int_compare(p, v[0], v[1], "")?,
                            None => self.ctx.bool_type().const_int((pred == IntPred::T) as u64, false),
                        }
                    }
                    CmpKind::Float { bits, pred } => {
                        let p = match pred {
                            FloatPred::F => FloatPredicate::PredicateFalse,
                            FloatPred::Lt => FloatPredicate::OLT,
                            FloatPred::Eq => FloatPredicate::OEQ,
                            FloatPred::Le => FloatPredicate::OLE,
                            FloatPred::Gt => FloatPredicate::OGT,
                            FloatPred::Lg => FloatPredicate::ONE,
                            FloatPred::Ge => FloatPredicate::OGE,
                            FloatPred::O => FloatPredicate::ORD,
                            FloatPred::U => FloatPredicate::UNO,
                            FloatPred::Nge => FloatPredicate::ULT,
                            FloatPred::Nlg => FloatPredicate::UEQ,
                            FloatPred::Ngt => FloatPredicate::ULE,
                            FloatPred::Nle => FloatPredicate::UGT,
                            FloatPred::Neq => FloatPredicate::UNE,
                            FloatPred::Nlt => FloatPredicate::UGE,
                            FloatPred::Tru => FloatPredicate::PredicateTrue,
                        };
                        b.build_float_compare(p, self.float_of(v[0], bits)?, self.float_of(v[1], bits)?, "")?
                    }
                    CmpKind::Class { bits } if v[1].get_zero_extended_constant().is_some() => {
                        // A constant mask: llvm.is.fpclass, whose mask bits are the same ten
                        // classes in the same order (0 sNaN, 1 qNaN, 2 -inf, 3 -normal,
                        // 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf) and which
                        // classifies the bits, denormals as denormals; the backend selects the
                        // target's v_cmp_class.
                        let mask = v[1].get_zero_extended_constant().unwrap_or(0) & 0x3ff;
                        let x = self.float_of(v[0], bits)?;
                        let i = self.intrinsic("llvm.is.fpclass", &[x.get_type().into()])?;
                        self.call_value(i, &[x.into(), c32(mask).into()])?.into_int_value()
                    }
                    CmpKind::Class { bits } => {
                        // Class index of src0 (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
                        // 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf), tested in the src1 mask.
                        let (ebits, mbits): (u64, u64) = match bits {
                            16 => (5, 10),
                            32 => (8, 23),
                            64 => (11, 52),
                            _ => return Err(EmitError(format!("v_cmp_class of {bits} bits"))),
                        };
                        let t = match bits {
                            16 => self.ctx.i16_type(),
                            32 => i32t,
                            _ => i64t,
                        };
                        let x = if v[0].get_type().get_bit_width() == bits { v[0] } else { b.build_int_truncate(v[0], t, "")? };
                        let k = |c: u64| t.const_int(c, false);
                        let exp = b.build_and(b.build_right_shift(x, k(mbits), false, "")?, k((1 << ebits) - 1), "")?;
                        let mant = b.build_and(x, k((1 << mbits) - 1), "")?;
                        let neg = b.build_int_compare(IntPredicate::SLT, x, k(0), "")?;
                        let sel = |c: IntValue<'ctx>, t: IntValue<'ctx>, e: IntValue<'ctx>| -> Result<IntValue<'ctx>, BuilderError> { Ok(b.build_select(c, t, e, "")?.into_int_value()) };
                        let by_sign = |n: u64, p: u64| sel(neg, c32(n), c32(p));
                        let mant0 = b.build_int_compare(IntPredicate::EQ, mant, k(0), "")?;
                        let quiet = b.build_int_compare(IntPredicate::NE, b.build_and(mant, k(1 << (mbits - 1)), "")?, k(0), "")?;
                        let special = sel(mant0, by_sign(2, 9)?, sel(quiet, c32(1), c32(0))?)?;
                        let small = sel(mant0, by_sign(5, 6)?, by_sign(4, 7)?)?;
                        let idx = sel(b.build_int_compare(IntPredicate::EQ, exp, k((1 << ebits) - 1), "")?, special, sel(b.build_int_compare(IntPredicate::EQ, exp, k(0), "")?, small, by_sign(3, 8)?)?)?;
                        let mask = if v[1].get_type().get_bit_width() == 32 { v[1] } else { b.build_int_truncate(v[1], i32t, "")? };
                        let bit = b.build_and(b.build_right_shift(mask, idx, false, "")?, c32(1), "")?;
                        nz(bit)?
                    }
                };
                Ok((self.i32(0), Some(r)))
            }
            MaxminNumF32 | MinmaxNumF32 | MaximumminimumF32 | MinimummaximumF32 => {
                // min(max(a, b), c) and the other orders, each step as MaxNumF32 below (the
                // IEEE 754-2019 forms as llvm.maximum/minimum).
                let (inner, outer) = match op.op {
                    MaxminNumF32 => ("llvm.maxnum", "llvm.minnum"),
                    MinmaxNumF32 => ("llvm.minnum", "llvm.maxnum"),
                    MaximumminimumF32 => ("llvm.maximum", "llvm.minimum"),
                    _ => ("llvm.minimum", "llvm.maximum"),
                };
                if matches!(op.op, MaxminNumF32 | MinmaxNumF32) {
                    let t = self.num_minmax(inner, f(v[0])?.into(), f(v[1])?.into())?;
                    let r = self.num_minmax(outer, t, f(v[2])?.into())?.into_float_value();
                    return none(bits(r)?);
                }
                let num = |n: &str| if n == "llvm.maximum" { "llvm.maximumnum" } else { "llvm.minimumnum" };
                let t = self.ieee_minmax(num(inner), f(v[0])?, f(v[1])?)?;
                let r = self.ieee_minmax(num(outer), t, f(v[2])?)?;
                none(bits(r)?)
            }
            Pk(_) | Fp8(_) => Ok((self.emit_with(op, v, self.i32(0), &Extra::default())?, None)),
            MaxNumF32 | MinNumF32 => {
                // The target's v_max_f32/v_min_f32 (IEEE mode, inputs canonicalised by the
                // backend) order -0 below +0 and return the non-NaN operand, as v_max_num does.
                // Of two NaNs, the first (`num_minmax`).
                let name = if op.op == MaxNumF32 { "llvm.maxnum" } else { "llvm.minnum" };
                let r = self.num_minmax(name, f(v[0])?.into(), f(v[1])?.into())?.into_float_value();
                none(bits(r)?)
            }
            LdexpF32 => {
                let i = self.intrinsic("llvm.ldexp", &[f32t.into(), i32t.into()])?;
                let r = self.call_value(i, &[f(v[0])?.into(), v[1].into()])?.into_float_value();
                none(bits(self.quieted(r)?)?)
            }
            TanhF32 => {
                // hx_sem::alu::float::tanh_f32, step for step in f64 (every step exactly
                // rounded, so the target's v_fma_f64/v_mul_f64/v_rndne_f64/v_ldexp_f64 give the
                // emulator's bits).
                use hx_sem::alu::float::tanh_steps as ts;
                let f64t = self.ctx.f64_type();
                let c = |x: f64| f64t.const_float(x);
                let fma = self.intrinsic("llvm.fma", &[f64t.into()])?;
                let fma3 = |a: FloatValue<'ctx>, m: FloatValue<'ctx>, d: FloatValue<'ctx>| -> Result<FloatValue<'ctx>, EmitError> {
                    Ok(self.call_value(fma, &[a.into(), m.into(), d.into()])?.into_float_value())
                };
                // Denormal inputs flushed (the sign kept), as the emulator's transcendentals do.
                let denorm = b.build_int_compare(IntPredicate::EQ, b.build_and(v[0], c32(0x7f80_0000), "")?, c32(0), "")?;
                let x = b.build_select(denorm, b.build_and(v[0], c32(0x8000_0000), "")?, v[0], "")?.into_int_value();
                let sign = b.build_and(x, c32(0x8000_0000), "")?;
                let mag = b.build_bit_cast(b.build_and(x, c32(0x7fff_ffff), "")?, f32t, "")?.into_float_value();
                let a = b.build_float_ext(mag, f64t, "")?;
                let y = b.build_float_mul(c(-2.0), a, "")?;
                let rint = self.intrinsic("llvm.rint", &[f64t.into()])?;
                let n = self.call_value(rint, &[b.build_float_mul(y, c(ts::LOG2E), "")?.into()])?.into_float_value();
                let nn = b.build_float_neg(n, "")?;
                let r = fma3(nn, c(ts::LN2_HI), y)?;
                let r = fma3(nn, c(ts::LN2_LO), r)?;
                let mut p = c(ts::TAYLOR[0]);
                for k in &ts::TAYLOR[1..] {
                    p = fma3(p, r, c(*k))?;
                }
                let p = fma3(p, r, c(1.0))?;
                let p = fma3(p, r, c(1.0))?;
                let ldexp = self.intrinsic("llvm.ldexp", &[f64t.into(), i32t.into()])?;
                let ni = b.build_float_to_signed_int(n, i32t, "")?;
                let e = self.call_value(ldexp, &[p.into(), ni.into()])?.into_float_value();
                let d = b.build_float_add(c(1.0), e, "")?;
                let mut q = fma3(c(-0.5), d, c(1.457_106_781_186_548))?;
                let nd = b.build_float_neg(d, "")?;
                for _ in 0..4 {
                    let t = fma3(nd, q, c(1.0))?;
                    q = fma3(t, q, q)?;
                }
                let big = b.build_float_mul(b.build_float_sub(c(1.0), e, "")?, q, "")?;
                let a3 = b.build_float_neg(b.build_float_mul(b.build_float_mul(a, a, "")?, a, "")?, "")?;
                let small = fma3(a3, c(1.0 / 3.0), a)?;
                let is_small = b.build_float_compare(FloatPredicate::OLT, a, c(ts::SMALL), "")?;
                let is_one = b.build_float_compare(FloatPredicate::OGE, a, c(ts::ONE), "")?;
                let t = b.build_select(is_small, small, big, "")?.into_float_value();
                let t = b.build_select(is_one, c(1.0), t, "")?.into_float_value();
                let t32 = b.build_bit_cast(b.build_float_trunc(t, f32t, "")?, i32t, "")?.into_int_value();
                let res = b.build_or(t32, sign, "")?;
                // NaN: itself quietened.
                let nan = b.build_int_compare(IntPredicate::UGT, b.build_and(x, c32(0x7fff_ffff), "")?, c32(0x7f80_0000), "")?;
                let q = b.build_or(x, c32(0x0040_0000), "")?;
                none(b.build_select(nan, q, res, "")?.into_int_value())
            }
            TrigPreopF64 => {
                // The target's v_trig_preop_f64, defined alike (hx_sem::alu::float::trig_preop_f64).
                let f64t = self.ctx.f64_type();
                let i = self.intrinsic("llvm.amdgcn.trig.preop", &[f64t.into()])?;
                let x = b.build_bit_cast(v[0], f64t, "")?.into_float_value();
                let r = self.call_value(i, &[x.into(), self.fit(v[1], Ty::U32)?.into()])?.into_float_value();
                none(b.build_bit_cast(r, i64t, "")?.into_int_value())
            }
            LdexpF64 => {
                let f64t = self.ctx.f64_type();
                let i = self.intrinsic("llvm.ldexp", &[f64t.into(), i32t.into()])?;
                let x = b.build_bit_cast(v[0], f64t, "")?.into_float_value();
                let r = self.call_value(i, &[x.into(), self.fit(v[1], Ty::U32)?.into()])?.into_float_value();
                none(b.build_bit_cast(self.quieted(r)?, i64t, "")?.into_int_value())
            }
            CvtF32F16 => none(bits(b.build_float_ext(self.half(v[0])?, f32t, "")?)?),
            CvtF16F32 => none(self.half_bits(b.build_float_trunc(f(v[0])?, self.ctx.f16_type(), "")?)?),
            CvtPkF16F32 | CvtPkBf16F32 => {
                // Low half from src0, high half from src1, each rounded to nearest even (bf16
                // by [`Self::bf16_rne`]: the target's conversion, or integer arithmetic on the
                // host).
                let (lo, hi) = if op.op == CvtPkF16F32 {
                    let t = self.ctx.f16_type();
                    (self.half_bits(b.build_float_trunc(f(v[0])?, t, "")?)?, self.half_bits(b.build_float_trunc(f(v[1])?, t, "")?)?)
                } else {
                    (self.bf16_rne(v[0])?, self.bf16_rne(v[1])?)
                };
                none(b.build_or(lo, b.build_left_shift(hi, c32(16), "")?, "")?)
            }
            AddF16 | MulF16 => {
                let (x, y) = (self.half(v[0])?, self.half(v[1])?);
                let r = if op.op == AddF16 { b.build_float_add(x, y, "")? } else { b.build_float_mul(x, y, "")? };
                none(self.half_bits(self.quieted(r)?)?)
            }
            SubF16 | SubrevF16 => {
                let (x, y) = (self.half(v[0])?, self.half(v[1])?);
                let (x, y) = if op.op == SubF16 { (x, y) } else { (y, x) };
                none(self.half_bits(self.quieted(b.build_float_sub(x, y, "")?)?)?)
            }
            FmaF16 => {
                let h = self.ctx.f16_type();
                let i = self.intrinsic("llvm.fma", &[h.into()])?;
                let r = self.call_value(i, &[self.half(v[0])?.into(), self.half(v[1])?.into(), self.half(v[2])?.into()])?.into_float_value();
                none(self.half_bits(self.quieted(r)?)?)
            }
            MaxNumF16 | MinNumF16 | MaxminNumF16 | MinmaxNumF16 => {
                // As MaxNumF32 below: the target's IEEE-mode v_max_f16/v_min_f16 on canonical
                // inputs order -0 below +0 and return the non-NaN operand, as v_max_num_f16 does.
                let mm = |name: &str, x: FloatValue<'ctx>, y: FloatValue<'ctx>| -> Result<FloatValue<'ctx>, EmitError> {
                    Ok(self.num_minmax(name, x.into(), y.into())?.into_float_value())
                };
                let (x, y) = (self.half(v[0])?, self.half(v[1])?);
                let r = match op.op {
                    MaxNumF16 => mm("llvm.maxnum", x, y)?,
                    MinNumF16 => mm("llvm.minnum", x, y)?,
                    MaxminNumF16 => mm("llvm.minnum", mm("llvm.maxnum", x, y)?, self.half(v[2])?)?,
                    _ => mm("llvm.maxnum", mm("llvm.minnum", x, y)?, self.half(v[2])?)?,
                };
                none(self.half_bits(r)?)
            }
            LdexpF16 => {
                // The exponent is src1's low 16 bits, signed.
                let h = self.ctx.f16_type();
                let n = b.build_int_s_extend(b.build_int_truncate(v[1], self.ctx.i16_type(), "")?, i32t, "")?;
                let i = self.intrinsic("llvm.ldexp", &[h.into(), i32t.into()])?;
                let r = self.call_value(i, &[self.half(v[0])?.into(), n.into()])?.into_float_value();
                none(self.half_bits(self.quieted(r)?)?)
            }
            RcpF16 | SqrtF16 => {
                // The target's v_rcp_f16 / v_sqrt_f16, the same operation.
                let h = self.ctx.f16_type();
                let i = self.intrinsic(if op.op == RcpF16 { "llvm.amdgcn.rcp" } else { "llvm.amdgcn.sqrt" }, &[h.into()])?;
                let r = self.call_value(i, &[self.half(v[0])?.into()])?.into_float_value();
                none(self.half_bits(r)?)
            }
            CvtF16U16 | CvtF16I16 => {
                let x = b.build_int_truncate(v[0], self.ctx.i16_type(), "")?;
                let h = self.ctx.f16_type();
                let r = if op.op == CvtF16U16 { b.build_unsigned_int_to_float(x, h, "")? } else { b.build_signed_int_to_float(x, h, "")? };
                none(self.half_bits(r)?)
            }
            CvtU16F16 | CvtI16F16 => {
                // Truncating, saturating, NaN to 0: llvm.fpto{u,s}i.sat.
                let i16t = self.ctx.i16_type();
                let name = if op.op == CvtU16F16 { "llvm.fptoui.sat" } else { "llvm.fptosi.sat" };
                let r = self.call(name, &[i16t.into(), self.ctx.f16_type().into()], &[self.half(v[0])?.into()])?;
                none(b.build_int_z_extend(r, i32t, "")?)
            }
            AddU16 | AddI16 => none(b.build_and(b.build_int_add(v[0], v[1], "")?, c32(0xffff), "")?),
            SubU16 | SubI16 => none(b.build_and(b.build_int_sub(v[0], v[1], "")?, c32(0xffff), "")?),
            MadI32I24 => {
                let s24 = |x: IntValue<'ctx>| -> Result<_, BuilderError> { b.build_right_shift(b.build_left_shift(x, c32(8), "")?, c32(8), true, "") };
                none(b.build_int_add(b.build_int_mul(s24(v[0])?, s24(v[1])?, "")?, v[2], "")?)
            }
            Med3NumF32 => {
                // hx_sem's med3_num_f32: with a NaN operand, min_num(min_num(a, b), c); else the
                // median, which the target's v_med3_f32 (llvm.amdgcn.fmed3) gives for numbers
                // (-0 below +0 in both).
                let (x, y, z) = (f(v[0])?, f(v[1])?, f(v[2])?);
                let uno = |p: FloatValue<'ctx>| b.build_float_compare(FloatPredicate::UNO, p, p, "");
                let any = b.build_or(b.build_or(uno(x)?, uno(y)?, "")?, uno(z)?, "")?;
                let lo = self.num_minmax("llvm.minnum", self.num_minmax("llvm.minnum", x.into(), y.into())?, z.into())?;
                let i = self.intrinsic("llvm.amdgcn.fmed3", &[f32t.into()])?;
                let med = self.call_value(i, &[x.into(), y.into(), z.into()])?;
                let r = b.build_select(any, lo, med, "")?;
                none(b.build_bit_cast(r, i32t, "")?.into_int_value())
            }
            MaximumF32 | MinimumF32 | MaximumF64 | MinimumF64 | Maximum3F32 | Minimum3F32 | MaximumminimumF16 | MinimummaximumF16 => {
                let width = match op.op {
                    MaximumF64 | MinimumF64 => 64,
                    MaximumminimumF16 | MinimummaximumF16 => 16,
                    _ => 32,
                };
                let (first, second) = match op.op {
                    MaximumF32 | MaximumF64 | Maximum3F32 => ("llvm.maximumnum", "llvm.maximumnum"),
                    MinimumF32 | MinimumF64 | Minimum3F32 => ("llvm.minimumnum", "llvm.minimumnum"),
                    MaximumminimumF16 => ("llvm.maximumnum", "llvm.minimumnum"),
                    _ => ("llvm.minimumnum", "llvm.maximumnum"),
                };
                let mut r = self.ieee_minmax(first, self.float_of(v[0], width)?, self.float_of(v[1], width)?)?;
                if v.len() > 2 && !matches!(op.op, MaximumF32 | MinimumF32 | MaximumF64 | MinimumF64) {
                    r = self.ieee_minmax(second, r, self.float_of(v[2], width)?)?;
                }
                none(self.bits_of(r)?)
            }
            SubrevF32 => none(bits(self.quieted(b.build_float_sub(f(v[1])?, f(v[0])?, "")?)?)?),
            MinNumF64 | MaxNumF64 => {
                let name = if op.op == MaxNumF64 { "llvm.maxnum" } else { "llvm.minnum" };
                let r = self.num_minmax(name, self.float_of(v[0], 64)?.into(), self.float_of(v[1], 64)?.into())?;
                none(b.build_bit_cast(r, i64t, "")?.into_int_value())
            }
            FrexpExpF32 | FrexpExpF64 => {
                let x = self.float_of(v[0], if op.op == FrexpExpF32 { 32 } else { 64 })?;
                let i = self.intrinsic("llvm.amdgcn.frexp.exp", &[i32t.into(), x.get_type().into()])?;
                none(self.call_value(i, &[x.into()])?.into_int_value())
            }
            CeilF32 | FloorF64 | CeilF64 | TruncF64 | RndneF64 | FractF32 | FractF64 | RsqF32 | RsqF64 | CosF32 | SqrtF64 | FrexpMantF32 | FrexpMantF64 => {
                // The target's own instruction of the same width (v_ceil/v_floor/v_trunc/v_rndne
                // as FloorF32; v_fract, v_rsq, v_cos, v_sqrt_f64, v_frexp_mant), which the
                // emulator defines alike for both ISAs.
                let (name, bits) = match op.op {
                    CeilF32 => ("llvm.ceil", 32),
                    FloorF64 => ("llvm.floor", 64),
                    CeilF64 => ("llvm.ceil", 64),
                    TruncF64 => ("llvm.trunc", 64),
                    RndneF64 => ("llvm.roundeven", 64),
                    FractF32 => ("llvm.amdgcn.fract", 32),
                    FractF64 => ("llvm.amdgcn.fract", 64),
                    RsqF32 => ("llvm.amdgcn.rsq", 32),
                    RsqF64 => ("llvm.amdgcn.rsq", 64),
                    CosF32 => ("llvm.amdgcn.cos", 32),
                    SqrtF64 => ("llvm.amdgcn.sqrt", 64),
                    FrexpMantF32 => ("llvm.amdgcn.frexp.mant", 32),
                    _ => ("llvm.amdgcn.frexp.mant", 64),
                };
                let x = self.float_of(v[0], bits)?;
                let i = self.intrinsic(name, &[x.get_type().into()])?;
                none(self.bits_of(self.call_value(i, &[x.into()])?.into_float_value())?)
            }
            RcpF32 | SqrtF32 | ExpF32 | LogF32 | SinF32 | RcpF64 => {
                // The target has the same approximate instruction (v_rcp_f32 ...); the AMDGPU
                // intrinsic selects exactly it, where the generic LLVM operations would expand.
                let (name, t): (&str, BasicTypeEnum) = match op.op {
                    RcpF32 => ("llvm.amdgcn.rcp", f32t.into()),
                    SqrtF32 => ("llvm.amdgcn.sqrt", f32t.into()),
                    ExpF32 => ("llvm.amdgcn.exp2", f32t.into()),
                    LogF32 => ("llvm.amdgcn.log", f32t.into()),
                    SinF32 => ("llvm.amdgcn.sin", f32t.into()),
                    _ => ("llvm.amdgcn.rcp", self.ctx.f64_type().into()),
                };
                let x = b.build_bit_cast(v[0], t, "")?;
                let i = self.intrinsic(name, &[t])?;
                let r = self.call_value(i, &[x.into()])?;
                let it: BasicTypeEnum = if op.op == RcpF64 { i64t.into() } else { i32t.into() };
                none(b.build_bit_cast(r, it, "")?.into_int_value())
            }
            DivFmasF32 | DivFmasF64 | DivFixupF32 | DivFixupF64 => {
                let t: BasicTypeEnum = if matches!(op.op, DivFmasF32 | DivFixupF32) { f32t.into() } else { self.ctx.f64_type().into() };
                let xs: Vec<BasicMetadataValueEnum> = v[..3].iter().map(|x| b.build_bit_cast(*x, t, "").map(Into::into)).collect::<Result<_, _>>()?;
                let (name, args) = if matches!(op.op, DivFmasF32 | DivFmasF64) {
                    let mut a = xs.clone();
                    a.push(flag_in.into());
                    ("llvm.amdgcn.div.fmas", a)
                } else {
                    ("llvm.amdgcn.div.fixup", xs)
                };
                let i = self.intrinsic(name, &[t])?;
                let r = self.call_value(i, &args)?;
                let it: BasicTypeEnum = if t.into_float_type().get_bit_width() == 64 { i64t.into() } else { i32t.into() };
                none(b.build_bit_cast(r, it, "")?.into_int_value())
            }
            PermB32 => none(self.call("llvm.amdgcn.perm", &[], &[v[0].into(), v[1].into(), v[2].into()])?),
            _ => Err(EmitError(format!("{:?} is not raised yet", op.op))),
        }
    }

    /// v_fma_mix*: each source is f32, or (op_sel_hi bit set) the f16/bf16 half op_sel picks,
    /// widened; neg/abs apply to the widened value; one f32 fma, then (lo/hi forms) a rounding
    /// to the 16-bit format into one half of the old destination.
    #[allow(clippy::too_many_arguments)]
    pub fn fma_mix(&self, dst: hx_sem::alu::float::MixDst, v: &[IntValue<'ctx>], op_sel: u8, op_sel_hi: u8, neg: u8, abs: u8, old: IntValue<'ctx>) -> Result<IntValue<'ctx>, EmitError> {
        use hx_sem::alu::float::MixDst::*;
        let b = self.b;
        let (i32t, f32t) = (self.ctx.i32_type(), self.ctx.f32_type());
        let c = |x: u64| i32t.const_int(x, false);
        let bf = matches!(dst, F32Bf16 | LoBf16 | HiBf16);
        let mut xs = Vec::new();
        for i in 0..3 {
            let s = *v.get(i).ok_or_else(|| EmitError("fma_mix: missing source".into()))?;
            let mut x = if op_sel_hi >> i & 1 != 0 {
                let h = if op_sel >> i & 1 != 0 { b.build_right_shift(s, c(16), false, "").map_err(be)? } else { b.build_and(s, c(0xffff), "").map_err(be)? };
                if bf {
                    b.build_left_shift(h, c(16), "").map_err(be)?
                } else {
                    let w = b.build_float_ext(self.half(h).map_err(be)?, f32t, "").map_err(be)?;
                    b.build_bit_cast(w, i32t, "").map_err(be)?.into_int_value()
                }
            } else {
                s
            };
            if abs >> i & 1 != 0 {
                x = b.build_and(x, c(0x7fff_ffff), "").map_err(be)?;
            }
            if neg >> i & 1 != 0 {
                x = b.build_xor(x, c(0x8000_0000), "").map_err(be)?;
            }
            xs.push(b.build_bit_cast(x, f32t, "").map_err(be)?);
        }
        let fma = self.intrinsic("llvm.fma", &[f32t.into()])?;
        let r = self.call_value(fma, &[xs[0].into(), xs[1].into(), xs[2].into()])?.into_float_value();
        let rbits = b.build_bit_cast(r, i32t, "").map_err(be)?.into_int_value();
        let half = || -> Result<IntValue<'ctx>, EmitError> {
            if bf {
                self.bf16_rne(rbits).map_err(be)
            } else {
                self.half_bits(b.build_float_trunc(r, self.ctx.f16_type(), "").map_err(be)?).map_err(be)
            }
        };
        Ok(match dst {
            F32 | F32Bf16 => rbits,
            LoF16 | LoBf16 => b.build_or(b.build_and(old, c(0xffff_0000), "").map_err(be)?, half()?, "").map_err(be)?,
            HiF16 | HiBf16 => b.build_or(b.build_and(old, c(0xffff), "").map_err(be)?, b.build_left_shift(half()?, c(16), "").map_err(be)?, "").map_err(be)?,
        })
    }

    /// f32 bits -> bf16 bits (zero-extended), round to nearest even, NaN quietened.
    /// For a target, an fptrunc to bfloat (gfx950's v_cvt_pk_bf16_f32, gfx942's expansion of
    /// the same rounding); for the host, the integer rounding itself (no libcall there).
    fn bf16_rne(&self, x: IntValue<'ctx>) -> Result<IntValue<'ctx>, BuilderError> {
        let b = self.b;
        let c = |v: u64| self.ctx.i32_type().const_int(v, false);
        if self.amdgpu {
            let f = b.build_bit_cast(x, self.ctx.f32_type(), "")?.into_float_value();
            let h = b.build_float_trunc(f, self.ctx.bf16_type(), "")?;
            let h = b.build_bit_cast(h, self.ctx.i16_type(), "")?.into_int_value();
            return b.build_int_z_extend(h, self.ctx.i32_type(), "");
        }
        let nan = b.build_int_compare(IntPredicate::UGT, b.build_and(x, c(0x7fff_ffff), "")?, c(0x7f80_0000), "")?;
        let quiet = b.build_or(b.build_right_shift(x, c(16), false, "")?, c(0x40), "")?;
        let odd = b.build_and(b.build_right_shift(x, c(16), false, "")?, c(1), "")?;
        let rounded = b.build_right_shift(b.build_int_add(b.build_int_add(x, c(0x7fff), "")?, odd, "")?, c(16), false, "")?;
        Ok(b.build_select(nan, quiet, rounded, "")?.into_int_value())
    }

    /// The low 16 bits of `x` as a half.
    fn half(&self, x: IntValue<'ctx>) -> Result<hx_llvm::inkwell::values::FloatValue<'ctx>, BuilderError> {
        let h = self.b.build_int_truncate(x, self.ctx.i16_type(), "")?;
        Ok(self.b.build_bit_cast(h, self.ctx.f16_type(), "")?.into_float_value())
    }

    /// The bits of a 16-bit float, zero-extended to i32.
    fn half_bits(&self, x: hx_llvm::inkwell::values::FloatValue<'ctx>) -> Result<IntValue<'ctx>, BuilderError> {
        let h = self.b.build_bit_cast(x, self.ctx.i16_type(), "")?.into_int_value();
        self.b.build_int_z_extend(h, self.ctx.i32_type(), "")
    }

    /// Bit-field extract of `width` bits at `off` (width 0 gives 0), signed or not.
    fn bfe(&self, x: IntValue<'ctx>, off: IntValue<'ctx>, width: IntValue<'ctx>, signed: bool) -> Result<IntValue<'ctx>, EmitError> {
        let b = &self.b;
        let i64t = self.ctx.i64_type();
        // In 64 bits, so widths up to 32 and offset + width up to 63 need no special cases.
        let x64 = if signed { b.build_int_s_extend(x, i64t, "")? } else { b.build_int_z_extend(x, i64t, "")? };
        let off64 = b.build_int_z_extend(off, i64t, "")?;
        let w64 = b.build_int_z_extend(width, i64t, "")?;
        let shifted = b.build_right_shift(x64, off64, signed, "")?;
        let up = b.build_int_sub(i64t.const_int(64, false), w64, "")?;
        let l = b.build_left_shift(shifted, up, "")?;
        let r = b.build_right_shift(l, up, signed, "")?;
        let r = b.build_int_truncate(r, self.ctx.i32_type(), "")?;
        let zero_w = b.build_int_compare(IntPredicate::EQ, width, self.i32(0), "")?;
        Ok(b.build_select(zero_w, self.i32(0), r, "")?.into_int_value())
    }

}
