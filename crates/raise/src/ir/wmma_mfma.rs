//! Dense WMMA on the target's MFMAs (plans, layouts and why they are exact: crate::wmma_plan).
//!
//! Whole-wave region: every register value enters through llvm.amdgcn.set.inactive (a copy that
//! bounds the region, so nothing before it, loads included, runs with lanes forced on) and every
//! result leaves through llvm.amdgcn.strict.wwm. Inside, all 64 lanes run: an MFMA needs them
//! (the ISA leaves a partial EXEC undefined), and the other source wave's half may be inactive
//! or absent. The results for this thread's half never depend on the other half's registers:
//! each wave's MFMAs read only its own lanes' data (moved by lane swaps) or constants.
//!
//! Lane groups: the 64 lanes as four rows of 16, `[r0, r1, r2, r3]`; source wave w is rows
//! 2w and 2w+1 (K halves h = 0, 1 of its WMMA layout).
//! - 16x16 f32/i32 MFMA layout: lane 16g + j of register r holds D[4g + r][j]; A row i, k-chunk
//!   g at lane 16g + i (B likewise with columns), consecutive k in consecutive slots.
//! - WMMA layout: lane 16h + j of dword e holds D[8h + e][j]; A/B: lane 16h + i holds the h-th
//!   K half of row/column i.
//!
//! So wave w's MFMA operand is, by rows, `[x_2w, y_2w, x_2w+1, y_2w+1]` where x/y are the first
//! and second halves of each lane's A/B dwords (its K chunk g covers WMMA k = g*K/4.. in the
//! emulator's order), and its C the same with x/y = C dwords r and r + 4: [`Raiser::spread`].
//! D comes back by the inverse, [`Raiser::gather`].
//!
//! gfx950: a WMMA whose D a later WMMA takes as C (round a K loop, or past another WMMA) keeps
//! D between them in the half form, its registers written only where something needs them
//! (wmma_carry.rs, [`Raiser::wmma_lazy`]).

use super::wmma_ir::{WmmaC, WmmaMods};
use super::Raiser;
use crate::wmma_plan::{Layout, MfmaPlan};
use crate::RaiseError;
use hx_isa::wmma::{Elem, Shape};
use hx_isa::{Instruction, Reg};
use hx_llvm::inkwell::types::BasicTypeEnum;
use hx_llvm::inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FloatValue, IntValue};
use hx_llvm::inkwell::{FloatPredicate, IntPredicate};
use hx_llvm::GpuTarget;

/// Lane facts of the whole wave, valid in every lane inside the whole-wave region (the backend
/// computes the values a strict.wwm result depends on with all lanes on).
pub(super) struct Lanes<'ctx> {
    /// 0..63.
    lane: IntValue<'ctx>,
    /// Lanes 0..31 (source wave 0).
    half0: IntValue<'ctx>,
    /// Rows 0 and 2.
    row_even: IntValue<'ctx>,
}

/// A scale operand of a scaled WMMA: a VGPR (in the whole-wave region) with its ROW select
/// (lane i + 16 * ROW holds row/column i's scales), or one value for every lane (SGPR, constant).
pub(super) enum ScaleOperand<'ctx> {
    Lanes(IntValue<'ctx>, u32),
    Uniform(IntValue<'ctx>),
}

/// A WMMA's D as its MFMA chains left it (per source wave: the MFMA-layout values the next
/// chain would otherwise rebuild from the registers with lane moves), for as long as the D
/// registers hold it. A WMMA whose C is exactly those registers, on the same MFMA with C of the
/// same type, starts from these (c = wmma(a0, b0, c); c = wmma(a1, b1, c) in unrolled K loops):
/// no gather after the first, no spread (or f64 swap) before the second.
pub(super) struct WmmaChain<'ctx> {
    /// D's first VGPR and dwords.
    d: (u16, u8),
    /// The MFMA the values are laid out for, and D's element type.
    mfma: &'static str,
    d_type: Elem,
    /// Native layouts: each wave's four MFMA D dwords (f32 NaNs already the default NaN, as the
    /// registers hold them). F64: each wave's four D pairs' elements, rounded to D's type.
    values: [Vec<IntValue<'ctx>>; 2],
}

/// Forgets the chain before `inst` unless `inst` leaves D's registers alone: it names none of
/// them and addresses no VGPR indirectly (M0-relative moves, s_set_vgpr_msb); and unless it
/// leaves EXEC alone: D was written where EXEC was set, so a WMMA under another EXEC (the other
/// source wave's, in an if-else without branches) finds its lanes' old C in those registers. A
/// WMMA decides for itself. (Block starts forget it too: its values are this block's.)
pub(super) fn keep_chain(chain: &std::cell::RefCell<Option<WmmaChain<'_>>>, inst: &Instruction) {
    let Some((first, n)) = chain.borrow().as_ref().map(|c| c.d) else { return };
    if inst.wmma().is_some() {
        return;
    }
    let m = inst.mnemonic();
    let indirect = m.contains("rel") || m.contains("gpr_idx") || m.contains("vgpr_msb");
    let touches = inst.operands().any(|o| matches!(o.value, hx_isa::Operand::Reg(r) if super::wmma_carry::vgprs_overlap((first, n), &r)));
    if indirect || touches || crate::structure::writes_exec(inst) {
        chain.replace(None);
    }
}

impl<'ctx> Raiser<'ctx, '_> {
    /// The D dwords (WMMA layout, this thread's) of a WMMA lowered by `plan`.
    /// `ab`: A's and B's element types (f8f6f4: from the format fields, not the table's);
    /// `scales`: a scaled WMMA's (the f64 layout only); `taken`: the lazy chain that is its C
    /// (wmma_carry.rs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_mfma(
        &self,
        inst: &Instruction,
        s: &Shape,
        ab: (Elem, Elem),
        plan: &MfmaPlan,
        mods: &WmmaMods,
        a: Reg,
        b: Reg,
        scales: Option<hx_isa::wmma::Scales>,
        taken: Option<super::wmma_carry::LazyChain<'ctx>>,
    ) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        let target = self.mfma_target.ok_or_else(|| self.err(inst, "MFMA lowering without a target"))?;
        // F64-layout WMMAs are fenced by scheduling barriers (llvm.amdgcn.sched.barrier(0), which
        // emits nothing): LLVM's whole-wave-mode pass runs after the machine scheduler, and
        // where the scheduler had mixed ordinary instructions (the kernel's own, register
        // copies) into a WMMA's whole-wave code, each piece became its own whole-wave region
        // (an s_or_saveexec and an s_mov exec, with nops): gfx942 flash_attn_fwd_w4 ran 1,360
        // of them, 356 fenced (2.92 -> 2.79 of native), matmul_bf16_64_w4 3.05 -> 2.95.
        let fence = plan.layout == Layout::F64;
        if fence {
            self.sched_barrier()?;
        }
        let (av, bv, c) = self.mfma_inputs(inst, s, ab, plan, mods, (a, b), taken)?;
        // Integers on the half-masked layout (gfx942 iu8): C is added to D after the MFMAs, in
        // the WMMA layout and outside the whole-wave region, instead of being moved into the
        // MFMA layout first (i32 sums wrap, so D = (A x B) + C is exact in any order). That
        // saves C's lane moves (two ds_bpermute and four selects per dword pair).
        let (c, c_after) = match (plan.layout, c) {
            (Layout::HalfMasked { .. }, WmmaC::Regs(regs)) => (WmmaC::Const(0), Some(regs)),
            (_, c) => (c, None),
        };
        let lanes = self.lanes()?;
        let scales = match scales {
            Some(sc) => Some([self.scale_operand(inst, 4, sc.a_row)?, self.scale_operand(inst, 5, sc.b_row)?]),
            None => None,
        };
        let (out, values) = match plan.layout {
            Layout::F64 => self.wmma_f64(inst, s, ab, target, &lanes, mods, &av, &bv, c, scales)?,
            Layout::Spread { .. } | Layout::HalfMasked { .. } if scales.is_some() => {
                return Err(self.err(inst, "a scaled WMMA on a layout without scales (only the f64 and k-order layouts scale)"))
            }
            _ => {
                let d_w = self.wmma_native_d(inst, s, plan, target, &lanes, mods, av, bv, c, scales)?;
                self.native_out(s, target, &lanes, d_w)?
            }
        };
        let d = match inst.operand(0).map(|o| o.value) {
            Some(hx_isa::Operand::Reg(r)) => (r.index, s.d_dwords() as u8),
            _ => return Err(self.err(inst, "D is not a VGPR tuple")),
        };
        // (No in-block chain where C comes after: its MFMA-layout D would lack C.)
        self.wmma_chain.replace(c_after.is_none().then_some(WmmaChain { d, mfma: plan.mnemonic, d_type: s.d, values }));
        // Out of the whole-wave region; a NaN result is the default quiet NaN, as the emulator
        // defines WMMA (the f64 path has done it before rounding).
        let out = out
            .into_iter()
            .enumerate()
            .map(|(r, v)| {
                let v = self.call("llvm.amdgcn.strict.wwm", &[self.ctx.i32_type().into()], &[v.into()])?;
                if let Some(regs) = &c_after {
                    return Ok(self.b.build_int_add(v, self.c_mods(regs[r], s, mods)?, "")?);
                }
                if s.d != Elem::F32 || plan.layout == Layout::F64 {
                    return Ok(v);
                }
                self.default_nan(v)
            })
            .collect::<Result<Vec<_>, RaiseError>>()?;
        if fence {
            self.sched_barrier()?;
        }
        Ok(out)
    }

    /// Scale operand `i` of a scaled WMMA, with its ROW select: a VGPR (entering the whole-wave
    /// region), an SGPR or a constant (hx_sem::wmma: lane i + 16 * ROW of the operand holds
    /// row/column i's four E8M0 scales).
    fn scale_operand(&self, inst: &Instruction, i: usize, row: u32) -> Result<ScaleOperand<'ctx>, RaiseError> {
        let op = inst.operand(i).ok_or_else(|| self.err(inst, "no scale operand"))?;
        Ok(match op.value {
            hx_isa::Operand::Reg(r) if r.class == hx_isa::RegClass::Vgpr => {
                // Shared by the WMMAs reading the same scale register, as A and B are
                // (`mfma_inputs`): gfx942 dot_scaled_e4m3_w1 2.43 -> 2.25 of native.
                let v = self.wmma_regs(inst, r, 1)?;
                ScaleOperand::Lanes(self.set_inactive(self.shared_operand(r.index, v[0])?)?, row)
            }
            hx_isa::Operand::Reg(r) => ScaleOperand::Uniform(self.read_sreg(r, 1, inst)?),
            v => ScaleOperand::Uniform(
                hx_sem::operands::constant_value(&v, hx_isa::ValType::B32)
                    .map(|k| self.i32(k & 0xffff_ffff))
                    .ok_or_else(|| self.err(inst, format!("scale operand {v:?}")))?,
            ),
        })
    }

    /// VGPR `reg` (its value `v`) as the WMMAs of this block read it while nothing else names
    /// it or writes EXEC: one opaque copy (`Raiser::opaque`), which LLVM cannot merge with
    /// another's, so the whole-wave copies and lane swaps made from it are shared exactly where
    /// the register and EXEC are the same.
    fn shared_operand(&self, reg: u16, v: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        if let Some(&c) = self.wmma_operands.borrow().get(&reg) {
            return Ok(c);
        }
        let c = self.opaque(vec![v])?.pop().ok_or_else(|| self.err_plain("no opaque copy"))?;
        self.wmma_operands.borrow_mut().insert(reg, c);
        Ok(c)
    }

    /// After `inst`: the shared WMMA operands (`shared_operand`) it may have written are
    /// forgotten: all of them after an EXEC write, an indirect VGPR access or a call; a WMMA's
    /// D; any VGPR another instruction names.
    pub(super) fn forget_operands(&self, inst: &Instruction, writes_exec: bool) {
        let mut ops = self.wmma_operands.borrow_mut();
        if ops.is_empty() {
            return;
        }
        let m = inst.mnemonic();
        if writes_exec || m.contains("rel") || m.contains("gpr_idx") || m.starts_with("s_setpc") || m.starts_with("s_swappc") || m.starts_with("s_call") {
            ops.clear();
            return;
        }
        let named: Vec<hx_isa::Reg> = match inst.wmma() {
            Some(_) => super::wmma_carry::vgpr_operand(inst, 0).into_iter().collect(),
            None => inst.operands().filter_map(|o| match o.value {
                hx_isa::Operand::Reg(r) => Some(r),
                _ => None,
            }).collect(),
        };
        ops.retain(|&i, _| !named.iter().any(|r| super::wmma_carry::vgprs_overlap((i, 1), r)));
    }

    /// A scheduling region boundary that emits no instruction (hx_llvm::sched_regions).
    fn sched_barrier(&self) -> Result<(), RaiseError> {
        let f = self.intrinsic(hx_llvm::sched_regions::SCHED_BARRIER, &[])?;
        self.b.build_call(f, &[self.i32(0).into()], "")?;
        Ok(())
    }

    /// A WMMA's A and B dwords entering the whole-wave region (negated where the modifiers say),
    /// and its C: the lazy chain it takes (`taken`, wmma_carry.rs), else the in-block chain
    /// ([`WmmaChain`]) where its C is that D on the same MFMA, else its C operand.
    #[allow(clippy::too_many_arguments)]
    fn mfma_inputs(
        &self,
        inst: &Instruction,
        s: &Shape,
        ab: (Elem, Elem),
        plan: &MfmaPlan,
        mods: &WmmaMods,
        (a, b): (Reg, Reg),
        taken: Option<super::wmma_carry::LazyChain<'ctx>>,
    ) -> Result<(Vec<IntValue<'ctx>>, Vec<IntValue<'ctx>>, WmmaC<'ctx>), RaiseError> {
        // Float negation of A/B flips every element's sign bit (products stay exact).
        let sign = |e: Elem| -> Result<u64, RaiseError> {
            match e.bits() {
                32 => Ok(0x8000_0000),
                16 => Ok(0x8000_8000),
                _ => Err(self.err(inst, "negated 8- or 4-bit elements on the MFMA path")),
            }
        };
        // WMMAs that read the same A or B registers share their whole-wave copies and lane
        // swaps (LLVM's CSE merges them; the backend keeps a value made in whole-wave mode in
        // registers reserved for it up to its last whole-wave use). Until the lazy chains
        // (wmma_carry.rs) kept C and D out of the WMMA layout, each WMMA's own copies (an empty
        // inline-asm barrier per dword) ran better; since then sharing does: gfx950
        // matmul_f16_128_w4 2.57 -> 2.05 of native, matmul_e4m3_64_w4 1.66 -> 1.50,
        // flash_attn_fwd_w4 1.41 -> 1.27, matmul_bf16_64_w4 1.42 -> 1.25; gfx942 matmul_i8_64_w4
        // 2.27 -> 2.20; the rest within 2%. (The F64 layout never had the barrier: its steps
        // fetch A and B per lane and convert each element after the fetch.)
        let operand = |r: Reg, n: u8, neg: bool, e: Elem| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            let sign = if neg { Some(sign(e)?) } else { None };
            self.wmma_regs(inst, r, n as usize)?
                .into_iter()
                .zip(r.index..)
                .map(|(v, i)| {
                    let v = if plan.layout == Layout::F64 { v } else { self.shared_operand(i, v)? };
                    let v = if let Some(sign) = sign { self.b.build_xor(v, self.i32(sign), "")? } else { v };
                    self.set_inactive(v)
                })
                .collect()
        };
        let av = operand(a, s.a_dwords_for(ab.0), mods.neg_a, ab.0)?;
        let bv = operand(b, s.b_dwords_for(ab.1), mods.neg_b, ab.1)?;
        let c_reg = super::wmma_carry::vgpr_operand(inst, 3).map(|r| (r.index, s.c_dwords() as u8));
        let chained = self.wmma_chain.take().filter(|ch| Some(ch.d) == c_reg && ch.mfma == plan.mnemonic && ch.d_type == s.c);
        let c = match (taken, chained) {
            (Some(ch), _) => WmmaC::Half(ch.half),
            (None, Some(ch)) => WmmaC::Chained(ch.values),
            (None, None) => self.wmma_c(inst, s)?,
        };
        Ok((av, bv, c))
    }

    /// A WMMA of the lazy path (wmma_carry.rs): its MFMA chains from `taken` (the lazy chain
    /// that is its C) or its C operand, and D kept as a lazy chain in the half form, its
    /// registers not written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_lazy(
        &self,
        inst: &Instruction,
        s: &Shape,
        ab: (Elem, Elem),
        plan: &MfmaPlan,
        mods: &WmmaMods,
        a: Reg,
        b: Reg,
        taken: Option<super::wmma_carry::LazyChain<'ctx>>,
    ) -> Result<(), RaiseError> {
        let target = self.mfma_target.ok_or_else(|| self.err(inst, "MFMA lowering without a target"))?;
        let key = super::wmma_carry::d_key(inst, s, plan).ok_or_else(|| self.err(inst, "D is not a VGPR tuple"))?;
        let (av, bv, c) = self.mfma_inputs(inst, s, ab, plan, mods, (a, b), taken)?;
        let lanes = self.lanes()?;
        let d_w = self.wmma_native_d(inst, s, plan, target, &lanes, mods, av, bv, c, None)?;
        let half = self.swap_pairs(false, &d_w[0], &d_w[1], false, true)?;
        self.lazy_chains.borrow_mut().push(super::wmma_carry::LazyChain { key, half });
        Ok(())
    }

    /// f32 bits with any NaN made the default quiet NaN.
    pub(super) fn default_nan(&self, v: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let f = self.b.build_bit_cast(v, self.ctx.f32_type(), "")?.into_float_value();
        let nan = self.b.build_float_compare(FloatPredicate::UNO, f, f, "")?;
        Ok(self.b.build_select(nan, self.i32(0x7fc0_0000), v, "")?.into_int_value())
    }

    /// The WMMA-layout D dwords (this thread's) of both waves' MFMA results `d_w` (from
    /// [`Raiser::wmma_native_d`]), and `d_w` as the in-block chain keeps it ([`WmmaChain`]).
    fn native_out(&self, s: &Shape, target: GpuTarget, lanes: &Lanes<'ctx>, d_w: [Vec<IntValue<'ctx>>; 2]) -> Result<(Vec<IntValue<'ctx>>, [Vec<IntValue<'ctx>>; 2]), RaiseError> {
        let int = s.d == Elem::I32;
        let mut out = vec![self.i32(0); 8];
        for r in 0..4 {
            let (p, q) = self.gather(target, lanes, d_w[0][r], d_w[1][r])?;
            out[r] = p;
            out[r + 4] = q;
        }
        // For a chained WMMA: D as the registers will hold it (f32 NaNs: the default NaN).
        let held = |v: &Vec<IntValue<'ctx>>| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
            v.iter().map(|&x| if int { Ok(x) } else { self.default_nan(x) }).collect()
        };
        let chain = [held(&d_w[0])?, held(&d_w[1])?];
        Ok((out, chain))
    }

    /// Spread and HalfMasked layouts: f32/i32 16x16 MFMAs, one chain per source wave. Returns
    /// each source wave's D in the MFMA layout (NaNs as the MFMAs left them).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_native_d(
        &self,
        inst: &Instruction,
        s: &Shape,
        plan: &MfmaPlan,
        target: GpuTarget,
        lanes: &Lanes<'ctx>,
        mods: &WmmaMods,
        av: Vec<IntValue<'ctx>>,
        bv: Vec<IntValue<'ctx>>,
        c: WmmaC<'ctx>,
        scales: Option<[ScaleOperand<'ctx>; 2]>,
    ) -> Result<[Vec<IntValue<'ctx>>; 2], RaiseError> {
        if s.d_dwords() != 8 {
            return Err(self.err(inst, "an MFMA layout for a 16-bit result (only the f64 path has one)"));
        }
        let int = s.d == Elem::I32;
        // Per wave, the (A, B) dwords of each MFMA of its chain.
        let mut chunks: [Vec<(Vec<IntValue<'ctx>>, Vec<IntValue<'ctx>>)>; 2] = [Vec::new(), Vec::new()];
        match plan.layout {
            Layout::Spread { pad } => {
                let half = av.len() / 2;
                let mut ops = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
                for (o, v) in [&av, &bv].into_iter().enumerate() {
                    for i in 0..half {
                        let (m0, m1) = self.spread(target, lanes, v[i], v[half + i])?;
                        ops[0][o].push(m0);
                        ops[1][o].push(m1);
                    }
                }
                for (w, [a, b]) in ops.into_iter().enumerate() {
                    let (mut a, mut b) = (a, b);
                    if pad {
                        // -0 (fp8/bf8 0x80) times +0: the exact zero of the module comment.
                        a.extend((0..half).map(|_| self.i32(0x8080_8080)));
                        b.extend((0..half).map(|_| self.i32(0)));
                    }
                    chunks[w].push((a, b));
                }
            }
            Layout::HalfMasked { chunks: n } => {
                if !int {
                    return Err(self.err(inst, "a half-masked MFMA layout for floats"));
                }
                let per = av.len() / n as usize;
                for (w, ch) in chunks.iter_mut().enumerate() {
                    let mine = if w == 0 { lanes.half0 } else { self.b.build_not(lanes.half0, "")? };
                    for k in 0..n as usize {
                        let a = (0..per).map(|j| Ok(self.b.build_select(mine, av[k * per + j], self.i32(0), "")?.into_int_value())).collect::<Result<Vec<_>, RaiseError>>()?;
                        ch.push((a, bv[k * per..(k + 1) * per].to_vec()));
                    }
                }
            }
            Layout::KOrder => {
                if target != GpuTarget::Gfx950 || av.len() % 8 != 0 || bv.len() % 8 != 0 {
                    return Err(self.err(inst, "the k-order layout needs gfx950 and whole 16-byte chunks of A and B"));
                }
                // Lane group g of wave w's operand holds k chunks g and G + g (G = 4 lane groups;
                // a chunk is 16 bytes: 16 k of 8-bit, 32 of 4-bit elements), which the WMMA
                // registers hold in lane half g % 2, dwords 4 (g / 2).. and 8 + 4 (g / 2)..
                // (hx_sem::wmma::k_place). A v_permlane32_swap of dwords j and 4 + j of each
                // 8-dword run gives dword j of that run for both waves' operands.
                let mut ops = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
                for (o, v) in [&av, &bv].into_iter().enumerate() {
                    for run in v.chunks(8) {
                        for j in 0..4 {
                            let (m0, m1) = self.permlane_swap(false, run[j], run[4 + j])?;
                            ops[0][o].push(m0);
                            ops[1][o].push(m1);
                        }
                    }
                }
                for (w, [a, b]) in ops.into_iter().enumerate() {
                    chunks[w].push((a, b));
                }
            }
            Layout::F64 => return Err(self.err(inst, "the f64 layout in the native path")),
        }
        // Scaled (k-order layout): lane group g of wave w's MFMA scales its values by K block g's
        // E8M0 byte, taken as byte 0 of its scale operand (hx-emu's mfma): the scale word of
        // row/column i from wave w's lane 32 w + 16 ROW + i, shifted right by 8 g.
        let scale_w: Option<[[IntValue<'ctx>; 2]; 2]> = match scales {
            Some(ops) => {
                let b = &self.b;
                let by_group = b.build_and(b.build_right_shift(lanes.lane, self.i32(1), false, "")?, self.i32(0x18), "")?;
                let mut words = [[self.i32(0); 2]; 2];
                for (o, op) in ops.iter().enumerate() {
                    let per_wave = match op {
                        ScaleOperand::Uniform(v) => [*v, *v],
                        // By rows: [S0, S1, S0, S1] and [S2, S3, S2, S3], then row ROW of each
                        // wave in every row.
                        ScaleOperand::Lanes(v, row) => {
                            let (x, y) = self.permlane_swap(false, *v, *v)?;
                            let pick = |z: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
                                let (r0, r1) = self.permlane_swap(true, z, z)?;
                                Ok(if *row == 0 { r0 } else { r1 })
                            };
                            [pick(x)?, pick(y)?]
                        }
                    };
                    for w in 0..2 {
                        words[w][o] = b.build_right_shift(per_wave[w], by_group, false, "")?;
                    }
                }
                Some(words)
            }
            None => None,
        };
        // C in the MFMA layout, per wave.
        let c_w: [Vec<IntValue<'ctx>>; 2] = match c {
            WmmaC::Regs(regs) => {
                let regs = regs.into_iter().map(|v| self.set_inactive(self.c_mods(v, s, mods)?)).collect::<Result<Vec<_>, _>>()?;
                let (mut c0, mut c1) = (Vec::new(), Vec::new());
                for r in 0..4 {
                    let (x, y) = self.spread(target, lanes, regs[r], regs[r + 4])?;
                    c0.push(x);
                    c1.push(y);
                }
                [c0, c1]
            }
            WmmaC::Const(k) => {
                let k = self.c_mods(self.i32(k), s, mods)?;
                [vec![k; 4], vec![k; 4]]
            }
            WmmaC::Chained(v) => {
                let mods_of = |w: &Vec<IntValue<'ctx>>| w.iter().map(|&x| self.c_mods(x, s, mods)).collect::<Result<Vec<_>, _>>();
                [mods_of(&v[0])?, mods_of(&v[1])?]
            }
            // (wmma_carry.rs: the half form is the MFMA layout after a permlane32 swap.)
            WmmaC::Half(h) => {
                let [c0, c1] = self.swap_pairs(false, &h[0], &h[1], true, false)?;
                let mods_of = |w: Vec<IntValue<'ctx>>| w.into_iter().map(|x| self.c_mods(x, s, mods)).collect::<Result<Vec<_>, _>>();
                [mods_of(c0)?, mods_of(c1)?]
            }
        };
        let zero = vec![self.i32(0); 4];
        let mut d_w: Vec<Vec<IntValue<'ctx>>> = Vec::new();
        for (w, ch) in chunks.iter().enumerate() {
            if w == 1 && self.one_source_wave {
                // No second source wave: its lanes (32..63) are inactive, their D unused.
                d_w.push(c_w[1].clone());
                continue;
            }
            // iu8: an unsigned byte is its signed reading plus 256 times its top bit, so
            // D = C + sum(sA sB) + 256 sum(hA sB + sA hB) + 65536 sum(hA hB), each sum an MFMA
            // chain (i32 sums wrap: any split is exact).
            let hi = |v: &[IntValue<'ctx>]| -> Result<Vec<IntValue<'ctx>>, RaiseError> {
                v.iter().map(|&x| Ok(self.b.build_and(self.b.build_right_shift(x, self.i32(7), false, "")?, self.i32(0x0101_0101), "")?)).collect()
            };
            let (ua, ub) = (int && !mods.a_signed, int && !mods.b_signed);
            let mut terms: Vec<(bool, bool, u64)> = vec![(false, false, 0)];
            if ub {
                terms.push((false, true, 8));
            }
            if ua {
                terms.push((true, false, 8));
            }
            if ua && ub {
                terms.push((true, true, 16));
            }
            let mut sums: Vec<(u64, Vec<IntValue<'ctx>>)> = Vec::new();
            for (ha, hb, shift) in terms {
                let pos = sums.iter().position(|(sh, _)| *sh == shift);
                let mut acc = match pos {
                    Some(p) => sums.remove(p).1,
                    None if shift == 0 => c_w[w].clone(),
                    None => zero.clone(),
                };
                for (a, b) in ch {
                    let a = if ha { hi(a)? } else { a.clone() };
                    let b = if hb { hi(b)? } else { b.clone() };
                    acc = self.mfma(plan, &a, &b, &acc, scale_w.map(|sw| (sw[w][0], sw[w][1])))?;
                }
                sums.push((shift, acc));
            }
            let mut d = Vec::new();
            for r in 0..4 {
                let mut v = self.i32(0);
                for (shift, acc) in &sums {
                    let t = self.b.build_left_shift(acc[r], self.i32(*shift), "")?;
                    v = self.b.build_int_add(v, t, "")?;
                }
                d.push(v);
            }
            d_w.push(d);
        }
        Ok([d_w.remove(0), d_w.remove(0)])
    }

    /// The F64 layout: per step, four k of each wave through v_mfma_f64_16x16x4_f64 (its
    /// k-chunk g in lane row g, fetched from the wave's half with ds_bpermute).
    ///
    /// With two source waves, the steps of unscaled 8- and 4-bit elements of one width run as a
    /// loop (its body: a K half of both waves), not unrolled: the unrolled chains (32 to 64
    /// MFMAs, each with its fetches and element conversions) made the backend's cost, not the
    /// WMMA's, the translation's (wmma_fp8: 4,300 machine instructions, 132 ms to translate; as
    /// a loop 687 and 33 ms). 16-bit elements (16 MFMAs, cheap conversions), the scaled and
    /// mixed-width forms, and every WMMA of a kernel with one source wave run straight (the
    /// reasons at `one_pass`). The loop's accumulators are whole-wave values carried by phis
    /// through strict.wwm in every iteration, which keeps the loop in whole-wave mode (without
    /// it the backend once left it out; tests: tests/tests/wmma_mfma.rs, diverged source waves
    /// included, and the mutation test's wmma_f16_acc cases).
    ///
    /// MFMA row i = 4p + g (D pair p, lane row g) stands for WMMA row
    /// sigma(i) = 8(g % 2) + 2p + g / 2, so that D pair p of both waves' MFMAs becomes WMMA
    /// elements 2p and 2p + 1 with one v_permlane32_swap ([`Raiser::swap32`]); C comes in by the
    /// same swap. A's rows are fetched in that order.
    ///
    /// Scaled WMMA: each fetched element times 2^(e - 127) for its K block's E8M0 byte e of the
    /// scale word of its row (A) or column (B), fetched once per wave before the loop (exact:
    /// crate::wmma_plan).
    #[allow(clippy::too_many_arguments)]
    fn wmma_f64(
        &self,
        inst: &Instruction,
        s: &Shape,
        (ta, tb): (Elem, Elem),
        target: GpuTarget,
        lanes: &Lanes<'ctx>,
        mods: &WmmaMods,
        av: &[IntValue<'ctx>],
        bv: &[IntValue<'ctx>],
        c: WmmaC<'ctx>,
        scales: Option<[ScaleOperand<'ctx>; 2]>,
    ) -> Result<(Vec<IntValue<'ctx>>, [Vec<IntValue<'ctx>>; 2]), RaiseError> {
        let b = &self.b;
        let f64t = self.ctx.f64_type();
        let d_bits = s.d.bits() as usize;
        // C as f64 in the MFMA layout of each wave, after abs/neg.
        let c_f64 = |bits: IntValue<'ctx>| -> Result<FloatValue<'ctx>, RaiseError> {
            let mut x = self.to_f64(bits, s.d)?;
            if mods.abs_c {
                x = self.call_f("llvm.fabs", x)?;
            }
            if mods.neg_c {
                x = b.build_float_neg(x, "")?;
            }
            Ok(x)
        };
        let mut acc: [Vec<BasicValueEnum<'ctx>>; 2] = [Vec::new(), Vec::new()];
        match c {
            WmmaC::Regs(regs) => {
                let regs = regs.into_iter().map(|v| self.set_inactive(v)).collect::<Result<Vec<_>, _>>()?;
                let el = |e: usize| -> Result<IntValue<'ctx>, RaiseError> {
                    let w = b.build_right_shift(regs[e * d_bits / 32], self.i32((e * d_bits % 32) as u64), false, "")?;
                    Ok(if d_bits == 32 { w } else { b.build_and(w, self.i32(0xffff), "")? })
                };
                for p in 0..4 {
                    let (x, y) = self.swap32(target, lanes, el(2 * p)?, el(2 * p + 1)?)?;
                    acc[0].push(c_f64(x)?.into());
                    acc[1].push(c_f64(y)?.into());
                }
            }
            WmmaC::Const(k) => {
                let k = c_f64(self.i32(k))?.into();
                acc = [vec![k; 4], vec![k; 4]];
            }
            WmmaC::Half(_) => return Err(self.err(inst, "a half-form chain on the f64 layout")),
            WmmaC::Chained(v) => {
                for w in 0..2 {
                    acc[w] = v[w].iter().map(|&x| Ok(c_f64(x)?.into())).collect::<Result<_, RaiseError>>()?;
                }
            }
        }
        // Lane 16g + i: k-chunk g of each wave's MFMA, row sigma(i) / column i; wave w's values
        // come from its lanes 32w + 16h + sigma(i) (A) and 32w + 16h + i (B).
        let i = b.build_and(lanes.lane, self.i32(15), "")?;
        let g = b.build_right_shift(lanes.lane, self.i32(4), false, "")?;
        let sigma = {
            let g0 = b.build_left_shift(b.build_and(i, self.i32(1), "")?, self.i32(3), "")?;
            let p2 = b.build_left_shift(b.build_right_shift(i, self.i32(2), false, "")?, self.i32(1), "")?;
            let g1 = b.build_and(b.build_right_shift(i, self.i32(1), false, "")?, self.i32(1), "")?;
            b.build_or(b.build_or(g0, p2, "")?, g1, "")?
        };
        let addr = |row: IntValue<'ctx>, base: u64| -> Result<IntValue<'ctx>, RaiseError> {
            Ok(b.build_left_shift(b.build_or(row, self.i32(base), "")?, self.i32(2), "")?)
        };
        // [operand][wave], for K half 0 (half 1: 16 lanes, 64 bytes on).
        let addrs = [[addr(sigma, 0)?, addr(sigma, 32)?], [addr(i, 0)?, addr(i, 32)?]];
        // Scaled: [operand][wave] this lane's scale word, A's of row sigma(i) and B's of
        // column i (from wave w's lane 32w + 16 ROW + row).
        let scale_words = match &scales {
            Some(ops) => {
                let mut words = [[self.i32(0); 2]; 2];
                for (o, op) in ops.iter().enumerate() {
                    for (w, word) in words[o].iter_mut().enumerate() {
                        *word = match op {
                            ScaleOperand::Uniform(v) => *v,
                            ScaleOperand::Lanes(v, row) => {
                                let idx = if o == 0 { sigma } else { i };
                                let ad = addr(idx, 32 * w as u64 + 16 * *row as u64)?;
                                self.call("llvm.amdgcn.ds.bpermute", &[], &[ad.into(), (*v).into()])?
                            }
                        };
                    }
                }
                Some(words)
            }
            None => None,
        };
        // Element g of the chunk: its dword (16-bit: chunks 0-1 from the first of two, 2-3 from
        // the second; 8- and 4-bit: one dword, as a step's four elements start at a multiple of
        // 16 bits) and its place in that dword, past the step's first element.
        let g_shift = |bits: usize| -> Result<IntValue<'ctx>, RaiseError> {
            Ok(match bits {
                16 => b.build_left_shift(b.build_and(g, self.i32(1), "")?, self.i32(4), "")?,
                8 => b.build_left_shift(g, self.i32(3), "")?,
                4 => b.build_left_shift(g, self.i32(2), "")?,
                _ => return Err(self.err(inst, format!("{bits}-bit elements on the f64 path"))),
            })
        };
        let (a_bits, b_bits) = (ta.bits() as usize, tb.bits() as usize);
        let shifts = [g_shift(a_bits)?, g_shift(b_bits)?];
        // An element as f64 times 2^-k, and k (0 but for the f16 route, whose power of two a
        // scaled WMMA folds into the element's scale; unscaled, the element is scaled back here).
        let scaled = scales.is_some();
        let element = |x: IntValue<'ctx>, ty: Elem| -> Result<(FloatValue<'ctx>, u64), RaiseError> {
            Ok(match ty {
                // (Through f16 subnormals: only where the kernel keeps f16 denormals.)
                Elem::Fp8 | Elem::Bf8 | Elem::Fp4 if self.entry_mode >> 6 & 3 == 3 => self.small_float_to_f64(x, ty, !scaled)?,
                Elem::Fp8 | Elem::Bf8 => {
                    let f = self.emitter().fp8_to_f32(x, ty == Elem::Bf8).map_err(|e| self.err(inst, e.0))?;
                    (b.build_float_ext(f, f64t, "")?, 0)
                }
                Elem::Fp4 => (b.build_float_ext(self.mx_to_f32(x, 2, 1, 1)?, f64t, "")?, 0),
                Elem::F16 | Elem::BF16 => (self.to_f64(b.build_and(x, self.i32(0xffff), "")?, ty)?, 0),
                _ => return Err(self.err(inst, format!("{ty:?} elements on the f64 path"))),
            })
        };
        // The k loop: iteration j runs `unroll` steps; after half the iterations the K half h is
        // 1. (Where every step runs in one iteration, the loop is one pass.)
        // - 16-bit elements: no loop (`whole`, one iteration of both K halves), each step's
        //   elements fetched with one ds_bpermute from the swizzled pairs `zs` below. (Earlier, as
        //   a loop of K halves: wmma_f16 290 machine instructions, 412 executed; unrolled then:
        //   344 and 424; a step per iteration: 227 and 640, the rotation's moves.)
        // - 8- and 4-bit elements (conversions of ~15 instructions): a K half per iteration too.
        //   Fewer dwords per iteration spend more on the rotation's moves (a v_mov per dword per
        //   iteration) than on the steps. Executed on gfx942 for one, four and sixteen dwords
        //   per iteration: wmma_fp8 7,814, 5,358 and 4,594; Triton's dot_scaled_e4m3_w1 119k,
        //   74k and 58k, translated in 0.46 s (four) and 0.72 s (sixteen); eight dwords gave
        //   67k and more VGPRs. (Every step unrolled: six times the translation time.)
        // - Scaled and mixed-width f8f6f4 (`by_k`): the emulator sums in the order of k
        //   (hx_sem::wmma), so a step's four k are found in each operand by k
        //   (hx_sem::wmma::k_place), all 32 steps in one iteration, each step's lane half, dword
        //   and bit fixed at compile time. (As a loop of two iterations of 64 k, a select of
        //   each step's dword by the iteration: gfx942 dot_scaled_e4m3_w1 3.31 of native
        //   against 2.45 unrolled, w4 1.05 against 0.98, 436 VGPRs against 304; and
        //   dot_scaled_e2m1_e5m2_w1's translation then rounded 2,467 of its 4,096 results
        //   differently from the original, which no unit test reproduced; unrolled they are
        //   bit for bit the original's. Translation time: 0.68 s against 0.97 s for e4m3_w1.
        //   That kernel has one source wave: see `one_pass`.)
        // - Two source waves keep the loop of K halves for 8- and 4-bit elements, and for 16-bit
        //   ones in kernels of more than MANY_WMMAS WMMAs. Its carried accumulators are defined
        //   where both waves run the WMMA with all their lanes (every compiled kernel; a source
        //   wave runs a WMMA with EXEC all ones), not where one source wave skips it.
        let per_lane = s.k as usize / 2;
        let half_steps = per_lane / 4;
        let by_k = inst.wmma().is_some_and(|m| hx_sem::wmma::sums_by_k(&m));
        // 16-bit elements: both K halves in one iteration (no loop left, see above); by k, all
        // 32 steps too.
        let whole = a_bits == 16 && b_bits == 16 && !by_k && !self.many_wmmas;
        // One source wave: every step in one pass too. A loop carries its accumulators through a
        // phi after strict.wwm, which copies only the active lanes (LLVM's IntrinsicsAMDGPU.td:
        // "Phi nodes which require WWM return an undefined value"), and with one source wave
        // lanes 32-63, which hold half of the MFMA layout, are never active outside the region.
        // (gfx942 wmma_fp8 executes 1,314 -> 730 instructions one pass, wmma_fp4 765 -> 701;
        // translation time +4% and +48%.)
        let one_pass = whole || by_k || self.one_source_wave;
        let unroll = if one_pass { 2 * half_steps } else { half_steps };
        let iters = s.k as usize / 4 / unroll;
        for (regs, bits) in [(av, a_bits), (bv, b_bits)] {
            if regs.len() * 32 != per_lane * bits {
                return Err(self.err(inst, format!("{} operand dwords for K = {} of {bits}-bit elements", regs.len(), s.k)));
            }
        }
        // By k: per operand, where step u finds its four elements (lane half, dword, bit).
        let by_k_places = if by_k {
            let mut out: [Vec<(usize, usize, usize)>; 2] = [Vec::new(), Vec::new()];
            for (o, bits) in [a_bits, b_bits].into_iter().enumerate() {
                let place = |k: usize| -> Result<(usize, usize), RaiseError> {
                    hx_sem::wmma::k_place(bits as u32, k).ok_or_else(|| self.err(inst, format!("no K order for {bits}-bit elements")))
                };
                for u in 0..unroll {
                    let (h, e) = place(4 * u)?;
                    // k 4 u + g at element e + g of the same lane half, all in one dword.
                    for g in 1..4 {
                        if place(4 * u + g)? != (h, e + g) || (e + g) * bits / 32 != e * bits / 32 {
                            return Err(self.err(inst, format!("k {} is not in the dword of k {}", 4 * u + g, 4 * u)));
                        }
                    }
                    out[o].push((h, e * bits / 32, e * bits % 32));
                }
            }
            Some(out)
        } else {
            None
        };
        let as_vec = |regs: &[IntValue<'ctx>]| -> Result<_, RaiseError> {
            let vals: Vec<BasicValueEnum<'ctx>> = regs.iter().map(|&v| v.into()).collect();
            self.vector(&vals)
        };
        let ops_in = [as_vec(av)?, as_vec(bv)?];
        let acc_in = [self.vector(&acc[0])?, self.vector(&acc[1])?];
        let pre = self.current_block()?;
        let body = self.ctx.append_basic_block(self.func, "wmma_k");
        let done = self.ctx.append_basic_block(self.func, "wmma_k_done");
        b.build_unconditional_branch(body)?;
        b.position_at_end(body);
        let i32t = self.ctx.i32_type();
        let j = b.build_phi(i32t, "j")?;
        let acc_phi = [b.build_phi(acc_in[0].get_type(), "acc0")?, b.build_phi(acc_in[1].get_type(), "acc1")?];
        j.add_incoming(&[(&self.i32(0), pre)]);
        for o in 0..2 {
            acc_phi[o].add_incoming(&[(&acc_in[o], pre)]);
        }
        let jv = j.as_basic_value().into_int_value();
        let ops = ops_in;
        let h_off = if iters > 1 {
            let second_half = b.build_int_compare(IntPredicate::UGE, jv, self.i32((iters / 2) as u64), "")?;
            b.build_select(second_half, self.i32(64), self.i32(0), "")?.into_int_value()
        } else {
            self.i32(0)
        };
        let dword = |o: usize, i: usize| -> Result<IntValue<'ctx>, RaiseError> { Ok(b.build_extract_element(ops[o], self.i32(i as u64), "")?.into_int_value()) };
        // 16-bit elements, both K halves in one pass: a step of K half h reads dwords 2m and
        // 2m + 1 of each row's lane 16h + row, the first by lanes of k-chunks 0-1 (destination
        // lanes 0-31), the second by chunks 2-3. The second is first moved to the partner lane
        // 16(1 - h) + row (ds_swizzle, lanes xor 16, both waves at once), which that step
        // leaves unread: zs[o][m][h] holds dword 2m in lanes 16h + row and the moved 2m + 1 in
        // the others, and each wave's step fetches it with one ds_bpermute instead of two and a
        // select.
        let mut zs: [Vec<[IntValue<'ctx>; 2]>; 2] = [Vec::new(), Vec::new()];
        let mut z_offsets = [self.i32(0); 2];
        if whole {
            for (o, z) in zs.iter_mut().enumerate() {
                for m in 0..half_steps {
                    let (d, e) = (dword(o, 2 * m)?, dword(o, 2 * m + 1)?);
                    // Bitmask mode: and 0x1f, or 0, xor 0x10.
                    let moved = self.call("llvm.amdgcn.ds.swizzle", &[], &[e.into(), self.i32(0x1f | 0x10 << 10).into()])?;
                    z.push([self.select(lanes.row_even, d, moved)?, self.select(lanes.row_even, moved, d)?]);
                }
            }
            // K half h: chunks 0-1 (lanes 0-31) read lane 16h + row, chunks 2-3 the partner.
            z_offsets = [self.select(lanes.half0, self.i32(0), self.i32(64))?, self.select(lanes.half0, self.i32(64), self.i32(0))?];
        }
        // 2^(e - 127 + k) for E8M0 byte e, byte `block` of a scale word (0xff: NaN), exact in
        // f64; k <= 14 keeps the exponent field in range (1023 - 127 + 254 + 14 < 2047).
        let pow2 = |word: IntValue<'ctx>, block: IntValue<'ctx>, k: u64| -> Result<FloatValue<'ctx>, RaiseError> {
            let sh = b.build_left_shift(block, self.i32(3), "")?;
            let byte = b.build_and(b.build_right_shift(word, sh, false, "")?, self.i32(0xff), "")?;
            let hi = b.build_left_shift(b.build_int_add(byte, self.i32(1023 - 127 + k), "")?, self.i32(20), "")?;
            // (NaN chosen on the high word alone: one select, not one per half of an f64.)
            let nan = b.build_int_compare(IntPredicate::EQ, byte, self.i32(0xff), "")?;
            let hi = self.select(nan, self.i32(0x7ff8_0000), hi)?;
            let i64t = self.ctx.i64_type();
            let bits = b.build_left_shift(b.build_int_z_extend(hi, i64t, "")?, i64t.const_int(32, false), "")?;
            Ok(b.build_bit_cast(bits, f64t, "")?.into_float_value())
        };
        // This lane's element of operand `o` (0 = A) for wave w's MFMA of step u of the
        // iteration, times its scale.
        let fetch = |o: usize, w: usize, u: usize| -> Result<FloatValue<'ctx>, RaiseError> {
            let (bits, ty) = if o == 0 { (a_bits, ta) } else { (b_bits, tb) };
            // Where the step's four elements lie: the lane half's byte offset, dword, bit.
            // The K block (k / 32: which E8M0 scale) of step u: scaled WMMAs run by k, every step
            // in one iteration.
            let block = self.i32(if scale_words.is_some() { u as u64 / 8 } else { 0 });
            let (ad, (dw, within)) = match &by_k_places {
                Some(places) => {
                    let (lane_half, dw, within) = places[o][u];
                    (b.build_int_add(addrs[o][w], self.i32(64 * lane_half as u64), "")?, (dw, within))
                }
                None if whole => (b.build_int_add(addrs[o][w], z_offsets[u / half_steps], "")?, (0, 0)),
                None => {
                    // (Register order in one pass: steps half_steps.. read K half 1.)
                    let (h, u) = (u / half_steps, u % half_steps);
                    let at = b.build_int_add(addrs[o][w], h_off, "")?;
                    (b.build_int_add(at, self.i32(64 * h as u64), "")?, (4 * u * bits / 32, 4 * u * bits % 32))
                }
            };
            let mut v = if whole {
                self.call("llvm.amdgcn.ds.bpermute", &[], &[ad.into(), zs[o][u % half_steps][u / half_steps].into()])?
            } else {
                self.call("llvm.amdgcn.ds.bpermute", &[], &[ad.into(), dword(o, dw)?.into()])?
            };
            if bits == 16 && !whole {
                let hi = self.call("llvm.amdgcn.ds.bpermute", &[], &[ad.into(), dword(o, dw + 1)?.into()])?;
                v = self.select(lanes.half0, v, hi)?;
            }
            let shift = b.build_int_add(shifts[o], self.i32(within as u64), "")?;
            let (x, k) = element(b.build_right_shift(v, shift, false, "")?, ty)?;
            match &scale_words {
                Some(words) => Ok(b.build_float_mul(x, pow2(words[o][w], block, k)?, "")?),
                None => Ok(x),
            }
        };
        let mut acc_v = acc_phi.map(|p| p.as_basic_value().into_vector_value());
        let f = self.intrinsic("llvm.amdgcn.mfma.f64.16x16x4f64", &[])?;
        // Without a second source wave (its lanes inactive, their D unused) its chain stays C.
        let waves = if self.one_source_wave { 1 } else { 2 };
        for u in 0..unroll {
            for w in 0..waves {
                let (aw, bw) = (fetch(0, w, u)?, fetch(1, w, u)?);
                let args: Vec<BasicMetadataValueEnum<'ctx>> = vec![aw.into(), bw.into(), acc_v[w].into(), self.i32(0).into(), self.i32(0).into(), self.i32(0).into()];
                let r = b.build_call(f, &args, "")?.try_as_basic_value().basic().ok_or_else(|| self.err(inst, "the f64 MFMA returns nothing"))?;
                acc_v[w] = r.into_vector_value();
            }
        }
        // The loop-carried accumulators leave each iteration through strict.wwm: the backend then
        // runs every iteration's MFMAs with all lanes on, wherever the loop's results go (it had
        // left a loop out of whole-wave mode once a store order changed). A single iteration
        // carries nothing: its accumulators stay in the whole-wave region up to the rounded
        // results' strict.wwm (leaving and re-entering it copied them, four v_mov_b64 a wave:
        // gfx942 matmul_bf16_64_w4 2.95 -> 2.88 of native, flash_attn_fwd_w4 2.79 -> 2.74).
        let carried = if iters > 1 { waves } else { 0 };
        for a in acc_v.iter_mut().take(carried) {
            let wwm = self.intrinsic("llvm.amdgcn.strict.wwm", &[a.get_type().into()])?;
            let v = b.build_call(wwm, &[(*a).into()], "")?.try_as_basic_value().basic();
            *a = v.ok_or_else(|| self.err(inst, "strict.wwm returns nothing"))?.into_vector_value();
        }
        let next = b.build_int_add(jv, self.i32(1), "")?;
        let end = self.current_block()?;
        j.add_incoming(&[(&next, end)]);
        for o in 0..2 {
            acc_phi[o].add_incoming(&[(&acc_v[o], end)]);
        }
        let more = b.build_int_compare(IntPredicate::ULT, next, self.i32(iters as u64), "")?;
        b.build_conditional_branch(more, body, done)?;
        b.position_at_end(done);
        // D: round once (a NaN to the default quiet NaN), then to the WMMA layout.
        let mut el = vec![self.i32(0); 8];
        let mut chain: [Vec<IntValue<'ctx>>; 2] = [Vec::new(), Vec::new()];
        for p in 0..4 {
            let mut r = Vec::new();
            for a in &acc_v {
                let v = b.build_extract_element(*a, self.i32(p as u64), "")?.into_float_value();
                if s.d == Elem::F32 {
                    // Rounded, then a NaN made the default NaN on the f32 (one select of 32 bits,
                    // not two halves of an f64; an f64 NaN rounds to an f32 NaN and nothing else
                    // does).
                    let f32t = self.ctx.f32_type();
                    let f = b.build_float_trunc(v, f32t, "")?;
                    let nan = b.build_float_compare(FloatPredicate::UNO, f, f, "")?;
                    let f = b.build_select(nan, f32t.const_float(f64::NAN), f, "")?.into_float_value();
                    r.push(b.build_bit_cast(f, self.ctx.i32_type(), "")?.into_int_value());
                    continue;
                }
                let nan = b.build_float_compare(FloatPredicate::UNO, v, v, "")?;
                let v = b.build_select(nan, f64t.const_float(f64::NAN), v, "")?.into_float_value();
                r.push(self.from_f64(v, s.d)?);
            }
            // (swap32 is its own inverse: a chained C's swap would give these back.)
            chain[0].push(r[0]);
            chain[1].push(r[1]);
            let (x, y) = self.swap32(target, lanes, r[0], r[1])?;
            el[2 * p] = x;
            el[2 * p + 1] = y;
        }
        if d_bits == 32 {
            return Ok((el, chain));
        }
        let packed = (0..4)
            .map(|j| {
                let hi = b.build_left_shift(el[2 * j + 1], self.i32(16), "")?;
                Ok(b.build_or(el[2 * j], hi, "")?)
            })
            .collect::<Result<_, RaiseError>>()?;
        Ok((packed, chain))
    }

    /// An fp8 (E4M3), bf8 (E5M2) or fp4 (E2M1) element in the low bits of `x` (the bits above
    /// it are ignored) as f64, exactly, through an f16: the element's bits moved into an f16's
    /// sign, exponent and mantissa make an f16 whose value is the element's times 2^-(15 - bias)
    /// (subnormals included: the shift keeps them subnormal, and the scaling is exact), which is
    /// widened and scaled back in f32 (so the kernel must keep f16 denormals, FP_DENORM 3 for
    /// f16/f64, as Triton's and clang's kernels do). E5M2 has f16's exponent: its bits are the
    /// top byte of the f16, infinities and NaNs included. E4M3's one NaN code (S.1111.111)
    /// would be a finite f16, so it is made one; E2M1 has no specials. Three to eight
    /// instructions, where the general conversion (`fp8_to_f32`: exponent and mantissa apart,
    /// ldexp) took about fifteen for each of a WMMA's elements.
    ///
    /// Returns the value times 2^-k and k: `scale_back` multiplies by 2^k here (k = 0 then);
    /// otherwise the caller does (a scaled WMMA, in the element's scale).
    fn small_float_to_f64(&self, x: IntValue<'ctx>, ty: Elem, scale_back: bool) -> Result<(FloatValue<'ctx>, u64), RaiseError> {
        let b = &self.b;
        let (i16t, f32t) = (self.ctx.i16_type(), self.ctx.f32_type());
        let c = |v: u64| self.i32(v);
        let (bits, k) = match ty {
            Elem::Bf8 => (b.build_left_shift(x, c(8), "")?, 0),
            Elem::Fp8 => {
                let mag = b.build_and(x, c(0x7f), "")?;
                let sign = b.build_left_shift(b.build_and(x, c(0x80), "")?, c(8), "")?;
                let h = b.build_or(b.build_left_shift(mag, c(7), "")?, sign, "")?;
                let nan = b.build_int_compare(IntPredicate::EQ, mag, c(0x7f), "")?;
                (self.select(nan, c(0x7e00), h)?, 8)
            }
            Elem::Fp4 => {
                let mag = b.build_left_shift(b.build_and(x, c(0x7), "")?, c(9), "")?;
                let sign = b.build_left_shift(b.build_and(x, c(0x8), "")?, c(12), "")?;
                (b.build_or(mag, sign, "")?, 14)
            }
            _ => return Err(self.err_plain(&format!("{ty:?} is not an 8- or 4-bit float"))),
        };
        let h = b.build_bit_cast(b.build_int_truncate(bits, i16t, "")?, self.ctx.f16_type(), "")?.into_float_value();
        let mut f = b.build_float_ext(h, f32t, "")?;
        if scale_back && k > 0 {
            f = b.build_float_mul(f, f32t.const_float((1u64 << k) as f64), "")?;
        }
        Ok((b.build_float_ext(f, self.ctx.f64_type(), "")?, if scale_back { 0 } else { k }))
    }

    /// C's abs/neg on 32-bit float bits (integers: unchanged).
    pub(super) fn c_mods(&self, v: IntValue<'ctx>, s: &Shape, mods: &WmmaMods) -> Result<IntValue<'ctx>, RaiseError> {
        if s.d != Elem::F32 {
            return Ok(v);
        }
        let mut v = v;
        if mods.abs_c {
            v = self.b.build_and(v, self.i32(0x7fff_ffff), "")?;
        }
        if mods.neg_c {
            v = self.b.build_xor(v, self.i32(0x8000_0000), "")?;
        }
        Ok(v)
    }

    pub(super) fn lanes(&self) -> Result<Lanes<'ctx>, RaiseError> {
        let lane = self.lane64;
        let half0 = self.b.build_int_compare(IntPredicate::ULT, lane, self.i32(32), "")?;
        let row = self.b.build_and(lane, self.i32(16), "")?;
        let row_even = self.b.build_int_compare(IntPredicate::EQ, row, self.i32(0), "")?;
        Ok(Lanes { lane, half0, row_even })
    }

    /// A register value entering the whole-wave region (inactive lanes: undefined).
    pub(super) fn set_inactive(&self, v: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let i32t = self.ctx.i32_type();
        self.call("llvm.amdgcn.set.inactive", &[i32t.into()], &[v.into(), i32t.get_poison().into()])
    }

    fn select(&self, c: IntValue<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        Ok(self.b.build_select(c, x, y, "")?.into_int_value())
    }

    /// The value of `v` at lane `lane` (0..63), for every lane.
    fn from_lane(&self, v: IntValue<'ctx>, lane: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        let addr = self.b.build_left_shift(lane, self.i32(2), "")?;
        self.call("llvm.amdgcn.ds.bpermute", &[], &[addr.into(), v.into()])
    }

    /// gfx950 v_permlane16_swap / v_permlane32_swap of two values.
    pub(super) fn permlane_swap(&self, rows16: bool, x: IntValue<'ctx>, y: IntValue<'ctx>) -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
        let name = if rows16 { "llvm.amdgcn.permlane16.swap" } else { "llvm.amdgcn.permlane32.swap" };
        let f = self.intrinsic(name, &[])?;
        let no = self.ctx.bool_type().const_zero();
        let r = self.b.build_call(f, &[x.into(), y.into(), no.into(), no.into()], "")?.try_as_basic_value().basic();
        let r = r.ok_or_else(|| self.err_plain(&format!("{name} returns nothing")))?.into_struct_value();
        let x = self.b.build_extract_value(r, 0, "")?.into_int_value();
        let y = self.b.build_extract_value(r, 1, "")?.into_int_value();
        Ok((x, y))
    }

    /// By rows: (x, y) -> ([x0, x1, y0, y1], [x2, x3, y2, y3]).
    fn swap32(&self, target: GpuTarget, l: &Lanes<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>) -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
        if target == GpuTarget::Gfx950 {
            return self.permlane_swap(false, x, y);
        }
        // [y0, y1, x2, x3] read from the other half gives [x2, x3, y0, y1].
        let w = self.select(l.half0, y, x)?;
        let w = self.from_lane(w, self.b.build_xor(l.lane, self.i32(32), "")?)?;
        Ok((self.select(l.half0, x, w)?, self.select(l.half0, w, y)?))
    }

    /// By rows: (x, y) -> ([x0, y0, x1, y1], [x2, y2, x3, y3]): each lane's first and second
    /// halves of a source wave's registers to that wave's MFMA operand (module comment).
    fn spread(&self, target: GpuTarget, l: &Lanes<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>) -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
        if target == GpuTarget::Gfx950 {
            // ([x0, y0, x2, y2], [x1, y1, x3, y3]), then the halves exchanged.
            let (x, y) = self.permlane_swap(true, x, y)?;
            return self.permlane_swap(false, x, y);
        }
        // u = [x0, y2, x1, y3] from z1 = [x0, x1, y2, y3]; v = [x2, y0, x3, y1] from
        // z2 = [y0, y1, x2, x3] (v's lanes are u's xor 32).
        let b = &self.b;
        let z1 = self.select(l.half0, x, y)?;
        let z2 = self.select(l.half0, y, x)?;
        let j = b.build_and(l.lane, self.i32(15), "")?;
        let g = b.build_right_shift(l.lane, self.i32(4), false, "")?;
        let src_row = self.select(l.row_even, b.build_right_shift(g, self.i32(1), false, "")?, b.build_or(b.build_right_shift(g, self.i32(1), false, "")?, self.i32(2), "")?)?;
        let ul = b.build_or(b.build_left_shift(src_row, self.i32(4), "")?, j, "")?;
        let u = self.from_lane(z1, ul)?;
        let v = self.from_lane(z2, b.build_xor(ul, self.i32(32), "")?)?;
        Ok((self.select(l.row_even, u, v)?, self.select(l.row_even, v, u)?))
    }

    /// The inverse of [`Raiser::spread`]: by rows, (d0, d1) -> ([d0_0, d0_2, d1_0, d1_2],
    /// [d0_1, d0_3, d1_1, d1_3]): both waves' MFMA results to WMMA dwords r and r + 4.
    fn gather(&self, target: GpuTarget, l: &Lanes<'ctx>, d0: IntValue<'ctx>, d1: IntValue<'ctx>) -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
        if target == GpuTarget::Gfx950 {
            let (x, y) = self.permlane_swap(false, d0, d1)?;
            return self.permlane_swap(true, x, y);
        }
        // u = [p0, p1, q2, q3] from z1 = [d0_0, d1_1, d0_2, d1_3] at rows [0, 2, 1, 3];
        // v = [q0, q1, p2, p3] from z2 = [d1_0, d0_1, d1_2, d0_3] at rows [1, 3, 0, 2].
        let b = &self.b;
        let z1 = self.select(l.row_even, d0, d1)?;
        let z2 = self.select(l.row_even, d1, d0)?;
        let j = b.build_and(l.lane, self.i32(15), "")?;
        let g = b.build_and(b.build_right_shift(l.lane, self.i32(4), false, "")?, self.i32(3), "")?;
        let g_swapped = b.build_or(b.build_left_shift(b.build_and(g, self.i32(1), "")?, self.i32(1), "")?, b.build_right_shift(g, self.i32(1), false, "")?, "")?;
        let ul = b.build_or(b.build_left_shift(g_swapped, self.i32(4), "")?, j, "")?;
        let u = self.from_lane(z1, ul)?;
        let v = self.from_lane(z2, b.build_xor(ul, self.i32(16), "")?)?;
        Ok((self.select(l.half0, u, v)?, self.select(l.half0, v, u)?))
    }

    /// Values as one vector.
    fn vector(&self, vals: &[BasicValueEnum<'ctx>]) -> Result<hx_llvm::inkwell::values::VectorValue<'ctx>, RaiseError> {
        let first = vals.first().ok_or_else(|| self.err_plain("an empty vector"))?;
        let ty = match first {
            BasicValueEnum::IntValue(v) => v.get_type().vec_type(vals.len() as u32),
            BasicValueEnum::FloatValue(v) => v.get_type().vec_type(vals.len() as u32),
            _ => return Err(self.err_plain("a vector of neither integers nor floats")),
        };
        let mut v = ty.get_poison();
        for (i, x) in vals.iter().enumerate() {
            v = self.b.build_insert_element(v, *x, self.i32(i as u64), "")?;
        }
        Ok(v)
    }

    /// Dwords as a value of type `ty` (same size).
    fn pack(&self, dwords: &[IntValue<'ctx>], ty: BasicTypeEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, RaiseError> {
        let v: BasicValueEnum<'ctx> = if dwords.len() == 1 {
            dwords[0].into()
        } else {
            let vals: Vec<BasicValueEnum<'ctx>> = dwords.iter().map(|&d| d.into()).collect();
            self.vector(&vals)?.into()
        };
        Ok(self.b.build_bit_cast(v, ty, "")?)
    }

    /// One f32/i32 16x16 MFMA of the plan: D = A * B + C, every operand as dwords; `scales`: the
    /// A and B scale operands of gfx950's scaled form (byte 0 of each), else none (zero).
    fn mfma(&self, plan: &MfmaPlan, a: &[IntValue<'ctx>], b: &[IntValue<'ctx>], c: &[IntValue<'ctx>], scales: Option<(IntValue<'ctx>, IntValue<'ctx>)>) -> Result<Vec<IntValue<'ctx>>, RaiseError> {
        let i32t = self.ctx.i32_type();
        let scaled = plan.intrinsic.contains(".scale.");
        let overloads: Vec<BasicTypeEnum<'ctx>> = if scaled { vec![i32t.vec_type(a.len() as u32).into(), i32t.vec_type(b.len() as u32).into()] } else { vec![] };
        let f = self.intrinsic(plan.intrinsic, &overloads)?;
        let params = f.get_type().get_param_types();
        let ty = |i: usize| -> Result<BasicTypeEnum<'ctx>, RaiseError> {
            params.get(i).copied().and_then(|t| BasicTypeEnum::try_from(t).ok()).ok_or_else(|| self.err_plain(&format!("{} has no operand {i}", plan.intrinsic)))
        };
        let mut args: Vec<BasicMetadataValueEnum<'ctx>> = vec![self.pack(a, ty(0)?)?.into(), self.pack(b, ty(1)?)?.into(), self.pack(c, ty(2)?)?.into()];
        // cbsz, abid, blgp; the scaled form: A format, B format, then A's op_sel and scale and
        // B's (zero scales: the unscaled instruction).
        let imms: Vec<u64> = if scaled { vec![plan.formats.0 as u64, plan.formats.1 as u64, 0, 0, 0, 0] } else { vec![0, 0, 0] };
        args.extend(imms.into_iter().map(|v| BasicMetadataValueEnum::from(self.i32(v))));
        if let Some((sa, sb)) = scales {
            if !scaled {
                return Err(self.err_plain(&format!("scale operands for {}, which takes none", plan.intrinsic)));
            }
            args[6] = sa.into();
            args[8] = sb.into();
        }
        let r = self.b.build_call(f, &args, "")?.try_as_basic_value().basic().ok_or_else(|| self.err_plain(&format!("{} returns nothing", plan.intrinsic)))?;
        let r = self.b.build_bit_cast(r, i32t.vec_type(4), "")?.into_vector_value();
        (0..4).map(|i| Ok(self.b.build_extract_element(r, self.i32(i), "")?.into_int_value())).collect()
    }
}
