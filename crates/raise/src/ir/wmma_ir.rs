//! Raising gfx1250 WMMA. With a target and [`crate::WmmaLowering::Mfma`], a dense shape that
//! crate::wmma_plan maps goes to the target's MFMAs (wmma_mfma.rs). Otherwise, correct first:
//! every thread computes its own eight results of D = A*B + C from the A rows and B columns it
//! reads across its 32-lane half (llvm.amdgcn.ds.bpermute), with the semantics the emulator gives
//! WMMA (hx_sem::wmma: exact products summed in f64 in the same order, rounded once; i32
//! wrapping for iu8). The forms the emulator refuses (hx_sem::wmma::refusal: SWMMAC,
//! 32x16x128_f4, scale16, fp6 in mixed widths) are refused here with the same reason, and the
//! scaled and mixed-width f8f6f4 forms take this path (without a target, or with negated 8- or
//! 4-bit A/B) with the emulator's K order (hx_sem::wmma::k_of) and E8M0 scale lanes.

use super::Raiser;
use crate::RaiseError;
use hx_isa::wmma::{Elem, Shape, Wmma};
use hx_isa::{Instruction, Operand, Reg, RegClass, ValType};
use hx_llvm::inkwell::values::{FloatValue, IntValue};
use hx_llvm::inkwell::FloatPredicate;

impl<'ctx> Raiser<'ctx, '_> {
    pub(super) fn wmma(&self, inst: &Instruction, m: &Wmma) -> Result<(), RaiseError> {
        if let Some(why) = hx_sem::wmma::refusal(m) {
            return Err(self.err(inst, format!("{why}: not raised")));
        }
        // Scaled and mixed-width forms sum by k (hx_sem::wmma::k_place), which no kernel pins
        // for 6-bit elements.
        if m.scales.is_some() && hx_sem::wmma::k_of(m.a.bits(), 0, 0).is_none() {
            return Err(self.err(inst, "scaled WMMA with fp6/bf6 operands is not raised (no K order is pinned for them)"));
        }
        let mixed = m.a.bits() != m.b.bits();
        if mixed && (hx_sem::wmma::k_of(m.a.bits(), 0, 0).is_none() || hx_sem::wmma::k_of(m.b.bits(), 0, 0).is_none()) {
            return Err(self.err(inst, "f8f6f4 WMMA with fp6/bf6 beside another width is not raised (no K order is pinned for them)"));
        }
        let s = m.shape;
        let (ta, tb) = (m.a, m.b);
        let reg = |i: usize| match inst.operand(i).map(|o| o.value) {
            Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => Ok(r),
            v => Err(self.err(inst, format!("WMMA operand {i} is {v:?}, not a VGPR tuple"))),
        };
        let (d, a, b) = (reg(0)?, reg(1)?, reg(2)?);
        let mods = self.wmma_mods(inst, s)?;
        // (Negated 8- and 4-bit A/B have no sign-bit form on the MFMA path.)
        let small_neg = (mods.neg_a && ta.bits() < 16) || (mods.neg_b && tb.bits() < 16);
        // gfx950's Spread layout: D kept as a lazy chain (wmma_carry.rs).
        let taken = self.chain_c.take();
        if let Some((_, plan)) = super::wmma_carry::lazy_plan(inst, self.mfma_target).filter(|_| self.carry.lazy.contains(&inst.offset)) {
            return self.wmma_lazy(inst, s, (ta, tb), &plan, &mods, a, b, taken);
        }
        // Scaled WMMA: the f64 layout with each element times its block's scale (wmma_plan).
        if let Some(plan) = self.mfma_target.and_then(|t| crate::wmma_plan::plan_for(m, t)).filter(|_| !small_neg) {
            let results = self.wmma_mfma(inst, s, (ta, tb), &plan, &mods, a, b, m.scales, taken)?;
            return self.write_wmma_d(inst, s, d, results);
        }
        // This WMMA writes D without an MFMA layout to chain from.
        self.wmma_chain.replace(None);
        let WmmaMods { a_signed, b_signed, neg_a, neg_b, neg_c, abs_c } = mods;
        let int = s.d == Elem::I32;
        let (i32t, f64t) = (self.ctx.i32_type(), self.ctx.f64_type());
        let (abn, bbn) = (a.dwords as usize, b.dwords as usize);
        let dd = s.d_dwords() as usize;
        let d_bits = s.d.bits();
        let c_bits = s.c.bits();
        let regs = |r: Reg, n: usize| self.wmma_regs(inst, r, n);
        // Each WMMA works on its own copy of A and B: without the barrier, the element conversions of
        // WMMAs sharing an operand (A*B1, then A*B2) are merged and all kept live from the first to
        // the last, hundreds of VGPRs (one fp8 kernel spilled 655 and took minutes to allocate).
        let (a_own, b_own) = (self.opaque(regs(a, abn)?)?, self.opaque(regs(b, bbn)?)?);
        // The registers of source lane `src` (0..31, of this thread's half).
        let fetch = |own: &[IntValue<'ctx>], src: IntValue<'ctx>| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            let addr = self.half_lane_address(src)?;
            own.iter().map(|r| self.call("llvm.amdgcn.ds.bpermute", &[], &[addr.into(), (*r).into()])).collect()
        };
        let col = self.b.build_and(self.lane, self.i32(15), "")?;
        let row0 = self.b.build_and(self.lane, self.i32(16), "")?;
        let row0 = self.b.build_right_shift(row0, self.i32(1), false, "")?; // 8 * (lane / 16)
        let b_cols = [fetch(&b_own, col)?, fetch(&b_own, self.b.build_or(col, self.i32(16), "")?)?];
        // Element `e` of a packed operand as f64 (floats) or i32 (integers).
        let elem = |dw: &[IntValue<'ctx>], e: usize, ty: Elem, signed: bool| -> Result<IntOrFloat<'ctx>, RaiseError> {
            let bits = ty.bits() as usize;
            let (at, shift) = (e * bits / 32, e * bits % 32);
            let word = dw[at];
            let mut x = self.b.build_right_shift(word, self.i32(shift as u64), false, "")?;
            if shift + bits > 32 {
                // A 6-bit element across two dwords.
                let hi = self.b.build_left_shift(dw[at + 1], self.i32((32 - shift) as u64), "")?;
                x = self.b.build_or(x, hi, "")?;
            }
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
                // As f32: the product of two fp8/bf8 values is exact in f32 (8 significant bits,
                // exponents far inside f32's range), so it is formed there and widened.
                Elem::Fp8 | Elem::Bf8 => IntOrFloat::F(self.emitter().fp8_to_f32(x, ty == Elem::Bf8).map_err(|e| self.err(inst, e.0))?),
                // Exact in f32, and so are the products of two of them.
                Elem::Fp6 => IntOrFloat::F(self.mx_to_f32(x, 2, 3, 1)?),
                Elem::Bf6 => IntOrFloat::F(self.mx_to_f32(x, 3, 2, 3)?),
                Elem::Fp4 => IntOrFloat::F(self.mx_to_f32(x, 2, 1, 1)?),
                Elem::Iu8 | Elem::I32 => {
                    let byte = b.build_int_truncate(x, self.ctx.i8_type(), "")?;
                    IntOrFloat::I(if signed { b.build_int_s_extend(byte, i32t, "")? } else { b.build_int_z_extend(byte, i32t, "")? })
                }
            })
        };
        let (c_regs, c_const) = match self.wmma_c(inst, s)? {
            WmmaC::Regs(r) => (Some(r), 0),
            WmmaC::Const(k) => (None, k),
            WmmaC::Chained(_) | WmmaC::Half(_) => return Err(self.err(inst, "a chained C on the cross-lane path")),
        };
        // The eight sums, each in the order the emulator adds (C, then k in order): element by
        // element across the eight outputs, so that only the A dword in use per output is live
        // (an output at a time kept every converted B element live, and the register allocator
        // took minutes on fp8 shapes).
        let mut sums = Vec::with_capacity(8);
        for i in 0..8usize {
            let c_bits = match &c_regs {
                Some(c) => {
                    let w = c[i * c_bits as usize / 32];
                    let w = self.b.build_right_shift(w, self.i32((i * c_bits as usize % 32) as u64), false, "")?;
                    if c_bits == 32 { w } else { self.b.build_and(w, self.i32(0xffff), "")? }
                }
                None => self.i32(c_const),
            };
            sums.push(if int {
                IntOrFloat::I(c_bits)
            } else {
                let mut c = self.to_f64(c_bits, s.c)?;
                if abs_c {
                    c = self.call_f("llvm.fabs", c)?;
                }
                if neg_c {
                    c = self.b.build_float_neg(c, "")?;
                }
                IntOrFloat::F(c)
            });
        }
        // Scaled: factors[i][j] = 2^(sa - 127) * 2^(sb - 127) (exact in f64) for output row i's
        // and this thread's column's E8M0 scales of k block j (hx_sem::wmma: lane m + 16 * ROW of
        // the scale operand holds row m's four scales, byte j for block j; 0xff is NaN).
        let factors = match m.scales {
            Some(sc) => {
                let scale_word = |i: usize, src: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
                    let op = inst.operand(i).ok_or_else(|| self.err(inst, "no scale operand"))?;
                    match op.value {
                        Operand::Reg(r) if r.class == RegClass::Vgpr => Ok(fetch(&self.wmma_regs(inst, r, 1)?, src)?[0]),
                        Operand::Reg(r) => self.read_sreg(r, 1, inst),
                        v => hx_sem::operands::constant_value(&v, ValType::B32).map(|k| self.i32(k & 0xffff_ffff)).ok_or_else(|| self.err(inst, format!("scale operand {v:?}"))),
                    }
                };
                let pow2 = |word: IntValue<'ctx>, j: u64| -> Result<FloatValue<'ctx>, RaiseError> {
                    let b = &self.b;
                    let byte = b.build_and(b.build_right_shift(word, self.i32(8 * j), false, "")?, self.i32(0xff), "")?;
                    let e = b.build_int_z_extend(byte, self.ctx.i64_type(), "")?;
                    let bits = b.build_left_shift(b.build_int_add(e, self.ctx.i64_type().const_int(1023 - 127, false), "")?, self.ctx.i64_type().const_int(52, false), "")?;
                    let v = b.build_bit_cast(bits, f64t, "")?.into_float_value();
                    let nan = b.build_int_compare(hx_llvm::inkwell::IntPredicate::EQ, byte, self.i32(0xff), "")?;
                    Ok(b.build_select(nan, f64t.const_float(f64::NAN), v, "")?.into_float_value())
                };
                let b_src = self.b.build_or(col, self.i32(16 * sc.b_row as u64), "")?;
                let b_word = scale_word(5, b_src)?;
                let mut f = Vec::with_capacity(8);
                for i in 0..8u64 {
                    let a_src = self.b.build_or(row0, self.i32(i + 16 * sc.a_row as u64), "")?;
                    let a_word = scale_word(4, a_src)?;
                    let mut row = Vec::with_capacity(4);
                    for j in 0..s.k as u64 / 32 {
                        row.push(self.b.build_float_mul(pow2(a_word, j)?, pow2(b_word, j)?, "")?);
                    }
                    f.push(row);
                }
                Some(f)
            }
            None => None,
        };
        let a_bits = ta.bits() as usize;
        // The emulator's order (hx_sem::wmma): scaled and mixed-width f8f6f4 in the order of k,
        // each operand's element found by k (hx_sem::wmma::k_place); otherwise A's register
        // order (lane half h, element e), which B shares. Each entry: A's (h, e), B's (h, e), k.
        let by_k = hx_sem::wmma::sums_by_k(m);
        let order: Vec<((usize, usize), (usize, usize), Option<usize>)> = if by_k {
            (0..s.k as usize)
                .map(|k| {
                    let place = |bits: u32| hx_sem::wmma::k_place(bits, k).ok_or_else(|| self.err(inst, format!("no K order for {bits}-bit elements")));
                    Ok((place(ta.bits())?, place(tb.bits())?, Some(k)))
                })
                .collect::<Result<_, RaiseError>>()?
        } else {
            (0..2).flat_map(|h| (0..s.k as usize / 2).map(move |e| ((h, e), (h, e), None))).collect()
        };
        // Source lanes of each half's A rows: row 8 * (lane / 16) + i, in the half's upper 16
        // lanes for h = 1; each half's A dwords fetched as far as its elements reach.
        let rows: Vec<Vec<IntValue<'ctx>>> =
            (0..2u64).map(|h| (0..8u64).map(|i| self.b.build_or(row0, self.i32(i | 16 * h), "")).collect::<Result<_, _>>()).collect::<Result<_, _>>()?;
        let mut a_dw: [Vec<Vec<IntValue<'ctx>>>; 2] = [vec![Vec::new(); 8], vec![Vec::new(); 8]];
        for ((h, e), (hb, eb), k) in order {
            let y = elem(&b_cols[hb], eb, tb, b_signed)?;
            // The last A dword element e touches (6-bit elements may span two).
            let di = (e * a_bits + a_bits - 1) / 32;
            for i in 0..8 {
                while a_dw[h][i].len() <= di {
                    let at = a_dw[h][i].len();
                    let dw = fetch(&a_own[at..at + 1], rows[h][i])?;
                    a_dw[h][i].extend(dw);
                }
                let x = elem(&a_dw[h][i], e, ta, a_signed)?;
                sums[i] = match (&sums[i], x, &y) {
                    (IntOrFloat::I(sum), IntOrFloat::I(x), IntOrFloat::I(y)) => IntOrFloat::I(self.b.build_int_add(*sum, self.b.build_int_mul(x, *y, "")?, "")?),
                    (IntOrFloat::F(sum), IntOrFloat::F(mut x), IntOrFloat::F(y)) => {
                        let mut y = *y;
                        if neg_a {
                            x = self.b.build_float_neg(x, "")?;
                        }
                        if neg_b {
                            y = self.b.build_float_neg(y, "")?;
                        }
                        let mut p = self.b.build_float_mul(x, y, "")?;
                        if p.get_type() != f64t {
                            p = self.b.build_float_ext(p, f64t, "")?;
                        }
                        if let (Some(f), Some(k)) = (&factors, k) {
                            p = self.b.build_float_mul(p, f[i][k / 32], "")?;
                        }
                        IntOrFloat::F(self.b.build_float_add(*sum, p, "")?)
                    }
                    _ => return Err(self.err(inst, "WMMA mixing integer and float elements")),
                };
            }
        }
        let mut results = Vec::with_capacity(8);
        for sum in sums {
            results.push(match sum {
                IntOrFloat::I(v) => v,
                IntOrFloat::F(v) => {
                    // Any NaN result is the default quiet NaN, as the emulator defines WMMA.
                    let nan = self.b.build_float_compare(hx_llvm::inkwell::FloatPredicate::UNO, v, v, "")?;
                    let v = self.b.build_select(nan, f64t.const_float(f64::NAN), v, "")?.into_float_value();
                    self.from_f64(v, s.d)?
                }
            });
        }
        // Anchored here: otherwise the optimiser sinks the arithmetic towards the registers' later
        // uses, past the next WMMAs' cross-lane reads, and every fetched value stays live.
        let results = self.opaque(results)?;
        let results = if d_bits == 32 {
            results
        } else {
            (0..dd)
                .map(|j| {
                    let hi = self.b.build_left_shift(results[2 * j + 1], self.i32(16), "")?;
                    Ok(self.b.build_or(results[2 * j], hi, "")?)
                })
                .collect::<Result<_, RaiseError>>()?
        };
        self.write_wmma_d(inst, s, d, results)
    }

    /// The modifiers of a WMMA (neg_hi on A/B is refused: not modelled by the emulator either).
    fn wmma_mods(&self, inst: &Instruction, s: &Shape) -> Result<WmmaMods, RaiseError> {
        let (neg_lo, neg_hi) = (inst.mods.neg, inst.mods.neg_hi);
        let int = s.d == Elem::I32;
        if (!int && neg_hi & 3 != 0) || (int && neg_lo & 4 != 0) {
            return Err(self.err(inst, "neg_hi on A/B of a WMMA is not raised"));
        }
        Ok(WmmaMods {
            a_signed: neg_lo & 1 != 0,
            b_signed: neg_lo & 2 != 0,
            neg_a: !int && neg_lo & 1 != 0,
            neg_b: !int && neg_lo & 2 != 0,
            neg_c: neg_lo & 4 != 0,
            abs_c: neg_hi & 4 != 0,
        })
    }

    /// `n` VGPRs from `r`, as this thread's values.
    pub(super) fn wmma_regs(&self, inst: &Instruction, r: Reg, n: usize) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        (0..n)
            .map(|j| {
                let slot = self.slot(&self.vgpr, r.index as usize + j)?.ok_or_else(|| self.err(inst, "VGPR out of range"))?;
                self.load(slot)
            })
            .collect()
    }

    /// C: a VGPR tuple in the C layout or one inline constant (bits of the C type) for every element.
    pub(super) fn wmma_c(&self, inst: &Instruction, s: &Shape) -> Result<WmmaC<'ctx>, RaiseError> {
        let c_op = inst.operand(3).ok_or_else(|| self.err(inst, "no C operand"))?;
        Ok(match c_op.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => WmmaC::Regs(self.wmma_regs(inst, r, s.c_dwords() as usize)?),
            Operand::Reg(r) => return Err(self.err(inst, format!("C in {:?} registers", r.class))),
            v => {
                let ty = match s.c {
                    Elem::F16 => ValType::F16,
                    Elem::BF16 => ValType::BF16,
                    Elem::I32 => ValType::B32,
                    _ => ValType::F32,
                };
                WmmaC::Const(hx_sem::operands::constant_value(&v, ty).ok_or_else(|| self.err(inst, format!("C operand {v:?}")))?)
            }
        })
    }

    /// Writes D's dwords where this thread is active (after every read: D may overlap A, B or C).
    fn write_wmma_d(&self, inst: &Instruction, s: &Shape, d: Reg, dwords: Vec<IntValue<'ctx>>) -> Result<(), RaiseError> {
        if dwords.len() != s.d_dwords() as usize {
            return Err(self.err(inst, format!("{} result dwords for a {}-dword D", dwords.len(), s.d_dwords())));
        }
        let active = self.active()?;
        for (j, v) in dwords.into_iter().enumerate() {
            let r = Reg { class: RegClass::Vgpr, index: d.index + j as u16, dwords: 1 };
            self.write_vreg(r, 1, v, active, inst)?;
        }
        Ok(())
    }

    /// The values unchanged, through an empty inline assembly statement that the optimiser
    /// cannot see through (so it does not merge work on them with work on the same registers
    /// elsewhere).
    pub(super) fn opaque(&self, vals: Vec<IntValue<'ctx>>) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        let i32t = self.ctx.i32_type();
        let ty = i32t.fn_type(&[i32t.into()], false);
        let asm = self.ctx.create_inline_asm(ty, String::new(), "=v,0".into(), true, false, None, false);
        vals.into_iter()
            .map(|v| {
                let r = self.b.build_indirect_call(ty, asm, &[v.into()], "")?.try_as_basic_value().basic();
                r.map(|r| r.into_int_value()).ok_or_else(|| self.err_plain("inline assembly returned nothing"))
            })
            .collect()
    }

    /// An OCP MX 6/4-bit float (no infinities or NaNs) in the low bits of `x`, as f32 (exact):
    /// significand * 2^(max(e, 1) - bias - mbits), the sign bit set last.
    pub(super) fn mx_to_f32(&self, x: IntValue<'ctx>, ebits: u64, mbits: u64, bias: i32) -> Result<FloatValue<'ctx>, RaiseError> {
        let (b, i32t, f32t) = (&self.b, self.ctx.i32_type(), self.ctx.f32_type());
        let c = |v: u64| i32t.const_int(v, false);
        let e = b.build_and(b.build_right_shift(x, c(mbits), false, "")?, c((1 << ebits) - 1), "")?;
        let mant = b.build_and(x, c((1 << mbits) - 1), "")?;
        let sign = b.build_and(b.build_right_shift(x, c(ebits + mbits), false, "")?, c(1), "")?;
        let normal = b.build_int_compare(hx_llvm::inkwell::IntPredicate::NE, e, c(0), "")?;
        let sig = b.build_or(mant, b.build_select(normal, c(1 << mbits), c(0), "")?.into_int_value(), "")?;
        let exp = b.build_select(normal, e, c(1), "")?.into_int_value();
        let sig = b.build_unsigned_int_to_float(sig, f32t, "")?;
        let ldexp = self.intrinsic("llvm.ldexp", &[f32t.into(), i32t.into()])?;
        let v = b.build_call(ldexp, &[sig.into(), exp.into()], "")?.try_as_basic_value().basic();
        let v = v.ok_or_else(|| self.err_plain("llvm.ldexp returns nothing"))?.into_float_value();
        let mag = b.build_float_mul(v, f32t.const_float(2f64.powi(-bias - mbits as i32)), "")?;
        // The sign as a bit (a select of -mag and mag becomes a v_cndmask with a float neg
        // modifier, which the gfx9 emulator does not model on an integer-typed source).
        let bits = b.build_bit_cast(mag, i32t, "")?.into_int_value();
        let bits = b.build_or(bits, b.build_left_shift(sign, c(31), "")?, "")?;
        Ok(b.build_bit_cast(bits, f32t, "")?.into_float_value())
    }

    pub(super) fn err_plain(&self, msg: &str) -> RaiseError {
        RaiseError::Kernel { kernel: self.kernel.into(), msg: msg.into() }
    }

    pub(super) fn emitter(&self) -> crate::alu_ir::OpEmitter<'ctx, '_> {
        crate::alu_ir::OpEmitter { ctx: self.ctx, module: self.module, b: &self.b, lane: self.lane, amdgpu: true }
    }

    pub(super) fn call_f(&self, name: &str, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>, RaiseError> {
        let f = self.intrinsic(name, &[x.get_type().into()])?;
        let v = self.b.build_call(f, &[x.into()], "")?.try_as_basic_value().basic();
        v.map(|v| v.into_float_value()).ok_or_else(|| RaiseError::Kernel { kernel: self.kernel.into(), msg: format!("{name} returns nothing") })
    }

    /// A C/D element's bits (in the low bits of `x`) as f64.
    pub(super) fn to_f64(&self, x: IntValue<'ctx>, ty: Elem) -> Result<FloatValue<'ctx>, RaiseError> {
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
    pub(super) fn from_f64(&self, x: FloatValue<'ctx>, ty: Elem) -> Result<IntValue<'ctx>, RaiseError> {
        let (b, i32t) = (&self.b, self.ctx.i32_type());
        let half = |t: hx_llvm::inkwell::types::FloatType<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
            let h = b.build_float_trunc(x, t, "")?;
            let h = b.build_bit_cast(h, self.ctx.i16_type(), "")?.into_int_value();
            Ok(b.build_int_z_extend(h, i32t, "")?)
        };
        Ok(match ty {
            Elem::F16 => {
                // Rounded to odd in f32, then to nearest even in f16: the correctly rounded f16
                // (f32 carries 13 more significant bits than f16 needs, and covers its range), in
                // ten instructions instead of the backend's integer expansion of f64 -> f16 (~50).
                // Round to odd: truncate towards zero, then set the last bit if inexact.
                let f32t = self.ctx.f32_type();
                let r = b.build_float_trunc(x, f32t, "")?;
                let back = b.build_float_ext(r, self.ctx.f64_type(), "")?;
                let inexact = b.build_float_compare(FloatPredicate::ONE, back, x, "")?;
                let away = b.build_float_compare(FloatPredicate::OGT, self.call_f("llvm.fabs", back)?, self.call_f("llvm.fabs", x)?, "")?;
                let bits = b.build_bit_cast(r, i32t, "")?.into_int_value();
                let toward_zero = b.build_int_sub(bits, b.build_int_z_extend(away, i32t, "")?, "")?;
                let odd = b.build_or(toward_zero, self.i32(1), "")?;
                let odd = b.build_select(inexact, odd, bits, "")?.into_int_value();
                let f = b.build_bit_cast(odd, f32t, "")?.into_float_value();
                let h = b.build_float_trunc(f, self.ctx.f16_type(), "")?;
                let h = b.build_bit_cast(h, self.ctx.i16_type(), "")?.into_int_value();
                b.build_int_z_extend(h, i32t, "")?
            }
            // (The backend already lowers f64 -> bf16 by rounding to odd in f32.)
            Elem::BF16 => half(self.ctx.bf16_type())?,
            _ => {
                let f = b.build_float_trunc(x, self.ctx.f32_type(), "")?;
                b.build_bit_cast(f, i32t, "")?.into_int_value()
            }
        })
    }
}

/// A WMMA's modifiers: iu8 signedness, float negation of A/B, and C's neg/abs.
#[derive(Debug, Clone, Copy)]
pub(super) struct WmmaMods {
    pub a_signed: bool,
    pub b_signed: bool,
    pub neg_a: bool,
    pub neg_b: bool,
    pub neg_c: bool,
    pub abs_c: bool,
}

/// A WMMA's C operand.
pub(super) enum WmmaC<'ctx> {
    /// The C-layout registers of this thread.
    Regs(Vec<IntValue<'ctx>>),
    /// One constant (bits of the C type) for every element.
    Const(u64),
    /// The previous WMMA's D, still in its MFMA layout (per source wave; crate::wmma_mfma).
    Chained([Vec<IntValue<'ctx>>; 2]),
    /// A lazy chain's D in the half form (wmma_carry.rs).
    Half([Vec<IntValue<'ctx>>; 2]),
}

/// An element as the type it is summed in.
enum IntOrFloat<'ctx> {
    I(IntValue<'ctx>),
    F(FloatValue<'ctx>),
}
