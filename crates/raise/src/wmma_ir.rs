//! Raising gfx1250 dense WMMA, correct first: every thread computes its own eight results of
//! D = A*B + C from the A rows and B columns it reads across its 32-lane half
//! (llvm.amdgcn.ds.bpermute), with the semantics the emulator gives WMMA (hx_emu::wmma: exact
//! products summed in f64 in the same order, rounded once; i32 wrapping for iu8). No MFMA
//! mapping yet: that is the fast path still to come.

use super::Raiser;
use crate::RaiseError;
use hx_isa::wmma::{Elem, Shape};
use hx_isa::{Instruction, Operand, Reg, RegClass, ValType};
use hx_llvm::inkwell::values::{FloatValue, IntValue};
use hx_llvm::inkwell::AddressSpace;

impl<'ctx> Raiser<'ctx, '_> {
    pub(super) fn wmma(&self, inst: &Instruction, s: &Shape) -> Result<(), RaiseError> {
        let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
            Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Ok(r),
            v => Err(self.err(inst, format!("WMMA operand {i} is {v:?}, not a VGPR tuple"))),
        };
        let (d, a, b) = (reg(0)?, reg(1)?, reg(2)?);
        let (neg_lo, neg_hi) = (inst.mods.neg, inst.mods.neg_hi);
        let int = s.d == Elem::I32;
        if (!int && neg_hi & 3 != 0) || (int && neg_lo & 4 != 0) {
            return Err(self.err(inst, "neg_hi on A/B of a WMMA is not raised"));
        }
        let (a_signed, b_signed) = (neg_lo & 1 != 0, neg_lo & 2 != 0);
        let (neg_a, neg_b) = (!int && neg_lo & 1 != 0, !int && neg_lo & 2 != 0);
        let (neg_c, abs_c) = (neg_lo & 4 != 0, neg_hi & 4 != 0);
        let (i32t, f64t) = (self.ctx.i32_type(), self.ctx.f64_type());
        let abn = s.ab_dwords() as usize;
        let dd = s.d_dwords() as usize;
        let d_bits = s.d.bits();
        let regs = |r: Reg, n: usize| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            (0..n)
                .map(|j| {
                    let slot = *self.vgpr.get(r.index as usize + j).ok_or_else(|| self.err(inst, "VGPR out of range"))?;
                    self.load(slot)
                })
                .collect()
        };
        let (a_own, b_own) = (regs(a, abn)?, regs(b, abn)?);
        // The registers of source lane `src` (0..31, of this thread's half).
        let fetch = |own: &[IntValue<'ctx>], src: IntValue<'ctx>| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            let lane = self.b.build_or(src, self.half_base, "")?;
            let addr = self.b.build_left_shift(lane, self.i32(2), "")?;
            own.iter().map(|r| self.call("llvm.amdgcn.ds.bpermute", &[], &[addr.into(), (*r).into()])).collect()
        };
        let col = self.b.build_and(self.lane, self.i32(15), "")?;
        let row0 = self.b.build_and(self.lane, self.i32(16), "")?;
        let row0 = self.b.build_right_shift(row0, self.i32(1), false, "")?; // 8 * (lane / 16)
        let b_cols = [fetch(&b_own, col)?, fetch(&b_own, self.b.build_or(col, self.i32(16), "")?)?];
        let fp8_tables = [self.fp8_table(false)?, self.fp8_table(true)?];
        // Element `e` of a packed operand as f64 (floats) or i32 (integers).
        let elem = |dw: &[IntValue<'ctx>], e: usize, ty: Elem, signed: bool| -> Result<IntOrFloat<'ctx>, RaiseError> {
            let bits = ty.bits() as usize;
            let word = dw[e * bits / 32];
            let x = self.b.build_right_shift(word, self.i32((e * bits % 32) as u64), false, "")?;
            let b = &self.b;
            Ok(match ty {
                Elem::F32 => {
                    let f = b.build_bit_cast(word, self.ctx.f32_type(), "")?.into_float_value();
                    IntOrFloat::F(b.build_float_ext(f, f64t, "")?)
                }
                Elem::F16 => {
                    let h = b.build_int_truncate(x, self.ctx.i16_type(), "")?;
                    let h = b.build_bit_cast(h, self.ctx.f16_type(), "")?.into_float_value();
                    IntOrFloat::F(b.build_float_ext(h, f64t, "")?)
                }
                Elem::BF16 => {
                    let h = b.build_left_shift(x, self.i32(16), "")?;
                    let f = b.build_bit_cast(h, self.ctx.f32_type(), "")?.into_float_value();
                    IntOrFloat::F(b.build_float_ext(f, f64t, "")?)
                }
                Elem::Fp8 | Elem::Bf8 => {
                    let byte = b.build_and(x, self.i32(0xff), "")?;
                    let table = fp8_tables[(ty == Elem::Bf8) as usize];
                    // SAFETY: the index is below 256, the table's length.
                    let p = unsafe { b.build_in_bounds_gep(f64t.array_type(256), table, &[self.i32(0), byte], "")? };
                    IntOrFloat::F(b.build_load(f64t, p, "")?.into_float_value())
                }
                Elem::Iu8 | Elem::I32 => {
                    let byte = b.build_int_truncate(x, self.ctx.i8_type(), "")?;
                    IntOrFloat::I(if signed { b.build_int_s_extend(byte, i32t, "")? } else { b.build_int_z_extend(byte, i32t, "")? })
                }
            })
        };
        // C: a VGPR tuple in the D layout or one inline constant for every element.
        let c_op = inst.operand(3).ok_or_else(|| self.err(inst, "no C operand"))?;
        let c_regs = match c_op.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => Some(regs(r, dd)?),
            _ => None,
        };
        let c_const = match c_op.value {
            Operand::Reg(_) => 0,
            v => {
                let ty = match s.d {
                    Elem::F16 => ValType::F16,
                    Elem::BF16 => ValType::BF16,
                    Elem::I32 => ValType::B32,
                    _ => ValType::F32,
                };
                hx_emu::wave::constant_value(&v, ty).ok_or_else(|| self.err(inst, format!("C operand {v:?}")))?
            }
        };
        let mut results = Vec::with_capacity(8);
        for i in 0..8usize {
            let src_row = self.b.build_or(row0, self.i32(i as u64), "")?;
            let a_rows = [fetch(&a_own, src_row)?, fetch(&a_own, self.b.build_or(src_row, self.i32(16), "")?)?];
            let c_bits = match &c_regs {
                Some(c) => {
                    let w = c[i * d_bits as usize / 32];
                    let w = self.b.build_right_shift(w, self.i32((i * d_bits as usize % 32) as u64), false, "")?;
                    if d_bits == 32 { w } else { self.b.build_and(w, self.i32(0xffff), "")? }
                }
                None => self.i32(c_const),
            };
            let value = if int {
                let mut sum = c_bits;
                for h in 0..2 {
                    for e in 0..s.k as usize / 2 {
                        let (IntOrFloat::I(x), IntOrFloat::I(y)) = (elem(&a_rows[h], e, s.a, a_signed)?, elem(&b_cols[h], e, s.b, b_signed)?) else {
                            return Err(self.err(inst, "integer WMMA with float elements"));
                        };
                        let p = self.b.build_int_mul(x, y, "")?;
                        sum = self.b.build_int_add(sum, p, "")?;
                    }
                }
                sum
            } else {
                let mut c = self.to_f64(c_bits, s.d)?;
                if abs_c {
                    c = self.call_f("llvm.fabs", c)?;
                }
                if neg_c {
                    c = self.b.build_float_neg(c, "")?;
                }
                let mut sum = c;
                for h in 0..2 {
                    for e in 0..s.k as usize / 2 {
                        let (IntOrFloat::F(mut x), IntOrFloat::F(mut y)) = (elem(&a_rows[h], e, s.a, false)?, elem(&b_cols[h], e, s.b, false)?) else {
                            return Err(self.err(inst, "float WMMA with integer elements"));
                        };
                        if neg_a {
                            x = self.b.build_float_neg(x, "")?;
                        }
                        if neg_b {
                            y = self.b.build_float_neg(y, "")?;
                        }
                        let p = self.b.build_float_mul(x, y, "")?;
                        sum = self.b.build_float_add(sum, p, "")?;
                    }
                }
                self.from_f64(sum, s.d)?
            };
            results.push(value);
        }
        // Write D (after every read: D may overlap A, B or C).
        let active = self.active()?;
        for j in 0..dd {
            let v = if d_bits == 32 {
                results[j]
            } else {
                let hi = self.b.build_left_shift(results[2 * j + 1], self.i32(16), "")?;
                self.b.build_or(results[2 * j], hi, "")?
            };
            let r = Reg { class: RegClass::Vgpr, index: d.index + j as u16, dwords: 1 };
            self.write_vreg(r, 1, v, active, inst)?;
        }
        Ok(())
    }

    fn call_f(&self, name: &str, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>, RaiseError> {
        let f = self.intrinsic(name, &[x.get_type().into()])?;
        let v = self.b.build_call(f, &[x.into()], "")?.try_as_basic_value().basic();
        v.map(|v| v.into_float_value()).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("{name} returns nothing") })
    }

    /// A C/D element's bits (in the low bits of `x`) as f64.
    fn to_f64(&self, x: IntValue<'ctx>, ty: Elem) -> Result<FloatValue<'ctx>, RaiseError> {
        let (b, f64t) = (&self.b, self.ctx.f64_type());
        Ok(match ty {
            Elem::F16 => {
                let h = b.build_int_truncate(x, self.ctx.i16_type(), "")?;
                let h = b.build_bit_cast(h, self.ctx.f16_type(), "")?.into_float_value();
                b.build_float_ext(h, f64t, "")?
            }
            Elem::BF16 => {
                let h = b.build_left_shift(x, self.i32(16), "")?;
                let f = b.build_bit_cast(h, self.ctx.f32_type(), "")?.into_float_value();
                b.build_float_ext(f, f64t, "")?
            }
            _ => {
                let f = b.build_bit_cast(x, self.ctx.f32_type(), "")?.into_float_value();
                b.build_float_ext(f, f64t, "")?
            }
        })
    }

    /// An f64 rounded (RNE) to the result type, as bits in an i32.
    fn from_f64(&self, x: FloatValue<'ctx>, ty: Elem) -> Result<IntValue<'ctx>, RaiseError> {
        let (b, i32t) = (&self.b, self.ctx.i32_type());
        let half = |t: hx_llvm::inkwell::types::FloatType<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
            let h = b.build_float_trunc(x, t, "")?;
            let h = b.build_bit_cast(h, self.ctx.i16_type(), "")?.into_int_value();
            Ok(b.build_int_z_extend(h, i32t, "")?)
        };
        Ok(match ty {
            Elem::F16 => half(self.ctx.f16_type())?,
            Elem::BF16 => half(self.ctx.bf16_type())?,
            _ => {
                let f = b.build_float_trunc(x, self.ctx.f32_type(), "")?;
                b.build_bit_cast(f, i32t, "")?.into_int_value()
            }
        })
    }

    /// The 256 values of fp8 (E4M3) or bf8 (E5M2) bytes, as a constant f64 table.
    fn fp8_table(&self, e5m2: bool) -> Result<hx_llvm::inkwell::values::PointerValue<'ctx>, RaiseError> {
        let name = if e5m2 { "hx.bf8.values" } else { "hx.fp8.values" };
        if let Some(g) = self.module.get_global(name) {
            return Ok(g.as_pointer_value());
        }
        let f64t = self.ctx.f64_type();
        let values: Vec<_> = (0..=255u8).map(|x| f64t.const_float(hx_emu::wmma::fp8_value(x, e5m2))).collect();
        let g = self.module.add_global(f64t.array_type(256), Some(AddressSpace::from(4u16)), name);
        g.set_initializer(&f64t.const_array(&values));
        g.set_constant(true);
        g.set_linkage(hx_llvm::inkwell::module::Linkage::Private);
        Ok(g.as_pointer_value())
    }
}

/// An element as the type it is summed in.
enum IntOrFloat<'ctx> {
    I(IntValue<'ctx>),
    F(FloatValue<'ctx>),
}
