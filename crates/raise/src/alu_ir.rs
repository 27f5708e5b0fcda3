//! The LLVM IR of each ALU operation of the shared table (hx_emu::alu::table), on integer bit
//! patterns. Kept apart from the raiser so that it can be checked on its own: the tests JIT this
//! IR on the host and compare it with the emulator's `eval` of the same operation.

use hx_emu::alu::table::{AluOp, Op, Ty};
use hx_llvm::inkwell::builder::{Builder, BuilderError};
use hx_llvm::inkwell::context::Context;
use hx_llvm::inkwell::intrinsics::Intrinsic;
use hx_llvm::inkwell::module::Module;
use hx_llvm::inkwell::types::BasicTypeEnum;
use hx_llvm::inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue};
use hx_llvm::inkwell::{FloatPredicate, IntPredicate};

/// Emits ALU operations at the builder's position.
pub struct OpEmitter<'ctx, 'm> {
    pub ctx: &'ctx Context,
    pub module: &'m Module<'ctx>,
    pub b: &'m Builder<'ctx>,
    /// The thread's lane in its source wave (0..31), for v_mbcnt.
    pub lane: IntValue<'ctx>,
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

    fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> Result<FunctionValue<'ctx>, EmitError> {
        let i = Intrinsic::find(name).ok_or_else(|| EmitError(format!("no intrinsic {name}")))?;
        i.get_declaration(self.module, types).ok_or_else(|| EmitError(format!("cannot declare {name}")))
    }

    fn call(&self, name: &str, types: &[BasicTypeEnum<'ctx>], args: &[BasicMetadataValueEnum<'ctx>]) -> Result<IntValue<'ctx>, EmitError> {
        let f = self.intrinsic(name, types)?;
        let v = self.b.build_call(f, args, "").map_err(be)?.try_as_basic_value().basic();
        v.map(|v| v.into_int_value()).ok_or_else(|| EmitError(format!("{name} returns nothing")))
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
            SLshlB64 => {
                let s = b.build_int_z_extend(sh_mask(self.fit(v[1], Ty::U32)?, 64)?, i64t, "")?;
                let r = b.build_left_shift(v[0], s, "")?;
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
            BfeU32 | BfeI32 => {
                let off = sh_mask(v[1], 32)?;
                let width = b.build_and(v[2], c32(31), "")?;
                let r = self.bfe(v[0], off, width, op.op == BfeI32)?;
                none(r)
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
            AddCoU32 | AddcU32 => {
                let w0 = b.build_int_z_extend(v[0], i64t, "")?;
                let w1 = b.build_int_z_extend(v[1], i64t, "")?;
                let mut w = b.build_int_add(w0, w1, "")?;
                if op.op == AddcU32 {
                    w = b.build_int_add(w, b.build_int_z_extend(flag_in, i64t, "")?, "")?;
                }
                let r = b.build_int_truncate(w, i32t, "")?;
                let carry = b.build_int_compare(IntPredicate::UGT, w, i64t.const_int(u32::MAX as u64, false), "")?;
                Ok((r, Some(carry)))
            }
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
                    AddF32 => b.build_float_add(f(v[0])?, f(v[1])?, "")?,
                    SubF32 => b.build_float_sub(f(v[0])?, f(v[1])?, "")?,
                    MulF32 => b.build_float_mul(f(v[0])?, f(v[1])?, "")?,
                    _ => {
                        let fma = self.intrinsic("llvm.fma", &[f32t.into()])?;
                        b.build_call(fma, &[f(v[0])?.into(), f(v[1])?.into(), f(v[2])?.into()], "")?
                            .try_as_basic_value()
                            .basic()
                            .unwrap()
                            .into_float_value()
                    }
                };
                none(bits(r)?)
            }
            AddF64 | MulF64 | FmaF64 => {
                let f64t = self.ctx.f64_type();
                let d = |x: IntValue<'ctx>| -> Result<_, BuilderError> { Ok(b.build_bit_cast(x, f64t, "")?.into_float_value()) };
                let r = match op.op {
                    AddF64 => b.build_float_add(d(v[0])?, d(v[1])?, "")?,
                    MulF64 => b.build_float_mul(d(v[0])?, d(v[1])?, "")?,
                    _ => {
                        let fma = self.intrinsic("llvm.fma", &[f64t.into()])?;
                        b.build_call(fma, &[d(v[0])?.into(), d(v[1])?.into(), d(v[2])?.into()], "")?
                            .try_as_basic_value()
                            .basic()
                            .unwrap()
                            .into_float_value()
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
                // The ISA saturates and maps NaN to 0: exactly llvm.fpto[su]i.sat.
                let src = match op.op {
                    CvtI32F32 | CvtU32F32 => f(v[0])?,
                    _ => b.build_bit_cast(v[0], self.ctx.f64_type(), "")?.into_float_value(),
                };
                let name = if matches!(op.op, CvtI32F32 | CvtI32F64) { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
                none(self.call(name, &[i32t.into(), src.get_type().into()], &[src.into()])?)
            }
            FloorF32 | TruncF32 | RndneF32 => {
                let name = match op.op {
                    FloorF32 => "llvm.floor",
                    TruncF32 => "llvm.trunc",
                    _ => "llvm.roundeven",
                };
                let i = self.intrinsic(name, &[f32t.into()])?;
                let r = b.build_call(i, &[f(v[0])?.into()], "")?.try_as_basic_value().basic().unwrap().into_float_value();
                none(bits(r)?)
            }
            MadU64U32 => {
                let i128t = self.ctx.i128_type();
                let p = b.build_int_mul(b.build_int_z_extend(v[0], i128t, "")?, b.build_int_z_extend(v[1], i128t, "")?, "")?;
                let t = b.build_int_add(p, b.build_int_z_extend(v[2], i128t, "")?, "")?;
                let carry = b.build_int_compare(IntPredicate::UGT, t, i128t.const_int(u64::MAX, false), "")?;
                Ok((b.build_int_truncate(t, i64t, "")?, Some(carry)))
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
            FfbhU32 | FfblB32 | FfbhI32 => {
                // Bit scans: -1 when there is no bit to find.
                let x = if op.op == FfbhI32 {
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
                let w = b.build_int_sub(b.build_int_sub(b.build_int_z_extend(x, i64t, "")?, b.build_int_z_extend(y, i64t, "")?, "")?, b.build_int_z_extend(flag_in, i64t, "")?, "")?;
                let borrow = b.build_int_compare(IntPredicate::SLT, w, i64t.const_zero(), "")?;
                Ok((b.build_int_truncate(w, i32t, "")?, Some(borrow)))
            }
            SAddcU32 => {
                let w = b.build_int_add(b.build_int_add(b.build_int_z_extend(v[0], i64t, "")?, b.build_int_z_extend(v[1], i64t, "")?, "")?, b.build_int_z_extend(flag_in, i64t, "")?, "")?;
                let carry = b.build_int_compare(IntPredicate::UGT, w, i64t.const_int(u32::MAX as u64, false), "")?;
                Ok((b.build_int_truncate(w, i32t, "")?, Some(carry)))
            }
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
                use hx_emu::alu::cmp::{CmpKind, FloatPred, IntPred};
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
                    CmpKind::Float { bits: 32, pred } => {
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
                        b.build_float_compare(p, f(v[0])?, f(v[1])?, "")?
                    }
                    _ => return Err(EmitError("this compare is not raised yet".to_string())),
                };
                Ok((self.i32(0), Some(r)))
            }
            _ => Err(EmitError(format!("{:?} is not raised yet", op.op))),
        }
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
