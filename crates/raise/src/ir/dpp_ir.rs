//! Raising gfx1250 DPP forms. Each thread computes, from its source lane (0..31) and the static
//! control, which lane of its own 32-lane half it reads (`src`) and whether that read is valid
//! (inside the row, and the lane active in the source EXEC unless FI) — exactly the rules the
//! emulator applies (hx_sem::lane_ops). The value is fetched with the target's own DPP
//! (`llvm.amdgcn.update.dpp`, for the row-local controls GFX9 has: 16-lane rows stay in the
//! half) or with `llvm.amdgcn.ds.bpermute` inside the half (row_share, row_xmask, DPP8). As for
//! readlane and ds_bpermute, all threads of a half follow the same control flow, so every lane
//! read is running on the target; invalid reads are then replaced here: 0 with bound_ctrl (and
//! for DPP8), otherwise the thread keeps its destination, as do the threads row_mask/bank_mask
//! turn off.

use super::Raiser;
use crate::RaiseError;
use hx_sem::alu::table::{self as alu, Flag};
use hx_isa::dpp::{Dpp, DppSel};
use hx_isa::{Field, Instruction, Operand, RegClass};
use hx_llvm::inkwell::values::IntValue;
use hx_llvm::inkwell::IntPredicate;

/// dpp_ctrl values GFX9 has with the same meaning within 16-lane rows: quad_perm, row_shl,
/// row_shr, row_ror, row_mirror, row_half_mirror.
fn gfx9_row_local(c: u16) -> bool {
    matches!(c, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141)
}

/// Whether the target's own DPP makes this DPP's lane reads wherever EXEC is the source's (a
/// GFX9 row-local control without FI): [`Raiser::dpp_valu`] then needs no lane arithmetic, and
/// crate::structure lets such a DPP into a region a thread runs alone.
pub(crate) fn on_target_dpp(d: &Dpp) -> bool {
    matches!(d.sel, DppSel::Ctrl(c) if gfx9_row_local(c)) && !d.fi
}

impl<'ctx> Raiser<'ctx, '_> {
    /// The source lane (in the half, 0..31) this thread's DPP reads and whether it lies in the
    /// row (DPP8 and most controls are always in range).
    fn dpp_lane(&self, inst: &Instruction, sel: DppSel) -> Result<(IntValue<'ctx>, IntValue<'ctx>), RaiseError> {
        let b = &self.b;
        let c = |v: u64| self.i32(v);
        let lane = self.lane;
        let yes = self.ctx.bool_type().const_all_ones();
        let r = b.build_and(lane, c(15), "")?;
        let row_base = b.build_and(lane, c(16), "")?;
        let ctrl = match sel {
            DppSel::Lanes8(_) => {
                let packed = hx_isa::dpp::Dpp { sel, row_mask: 0xf, bank_mask: 0xf, bound_ctrl: false, fi: false }.dpp8().unwrap_or(0);
                let k3 = b.build_int_mul(b.build_and(lane, c(7), "")?, c(3), "")?;
                let s = b.build_and(b.build_right_shift(c(packed as u64), k3, false, "")?, c(7), "")?;
                return Ok((b.build_or(b.build_and(lane, c(24), "")?, s, "")?, yes));
            }
            DppSel::Ctrl(ctrl) => ctrl,
        };
        let n = (ctrl & 15) as u64;
        Ok(match ctrl {
            0x000..=0x0ff => {
                let k2 = b.build_int_mul(b.build_and(lane, c(3), "")?, c(2), "")?;
                let s = b.build_and(b.build_right_shift(c(ctrl as u64), k2, false, "")?, c(3), "")?;
                (b.build_or(b.build_and(lane, c(28), "")?, s, "")?, yes)
            }
            0x101..=0x10f => (b.build_int_add(lane, c(n), "")?, b.build_int_compare(IntPredicate::ULT, r, c(16 - n), "")?),
            0x111..=0x11f => (b.build_int_sub(lane, c(n), "")?, b.build_int_compare(IntPredicate::UGE, r, c(n), "")?),
            0x121..=0x12f => {
                let rr = b.build_and(b.build_int_add(r, c(16 - n), "")?, c(15), "")?;
                (b.build_or(row_base, rr, "")?, yes)
            }
            0x140 => (b.build_xor(lane, c(15), "")?, yes),
            0x141 => (b.build_xor(lane, c(7), "")?, yes),
            0x150..=0x15f => (b.build_or(row_base, c(n), "")?, yes),
            0x160..=0x16f => (b.build_xor(lane, c(n), "")?, yes),
            _ => return Err(self.err(inst, format!("DPP control {ctrl:#x} is not a gfx1250 control"))),
        })
    }

    /// A DPP instruction: src0 read across lanes, then the ordinary VALU operation.
    pub(super) fn dpp_valu(&mut self, inst: &Instruction, d: &Dpp) -> Result<(), RaiseError> {
        let op = alu::of(inst).ok_or_else(|| self.err(inst, "this DPP operation is not raised yet"))?;
        if op.salu {
            return Err(self.err(inst, "a scalar operation under DPP"));
        }
        let src0 = inst
            .operands()
            .find(|o| matches!(o.spec.field, Field::Src0 | Field::Vop3Src0))
            .ok_or_else(|| self.err(inst, "DPP without src0"))?;
        let reg = match src0.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => r,
            v => return Err(self.err(inst, format!("DPP source {v:?} is not a VGPR"))),
        };
        let ty = op.srcs[0];
        if ty.bits() > 32 {
            return Err(self.err(inst, "DPP on a 64-bit source is not raised yet"));
        }
        let always_on = match d.sel {
            DppSel::Lanes8(_) => true,
            DppSel::Ctrl(_) => d.bound_ctrl && d.row_mask & 3 == 3 && d.bank_mask == 0xf,
        };
        if op.flag_out == Flag::LaneMask && !always_on {
            // The emulator refuses these too: a DPP-disabled lane's mask bit is not documented.
            return Err(self.err(inst, "a lane-mask result with lanes DPP may turn off"));
        }
        // Where this thread's EXEC bit is known set, the threads running here on the target are
        // exactly the source's active threads (crate::structure), so the target's DPP with
        // bound_ctrl already reads 0 from every invalid source, inactive ones included (GFX9
        // has no FI: an inactive source is invalid); no lane arithmetic is needed.
        if on_target_dpp(d) && self.exec_full {
            return self.dpp_valu_on_target(inst, &op, d, reg);
        }
        let data = self.read_vreg(reg, 1, inst)?;
        let (src, in_range) = self.dpp_lane(inst, d.sel)?;
        let b = &self.b;
        let i32t = self.ctx.i32_type();
        let src = b.build_and(src, self.i32(31), "")?;
        let fetched = match d.sel {
            // The target's DPP over the same 16-lane row (out-of-row reads give 0; such reads
            // are replaced below anyway).
            DppSel::Ctrl(c) if gfx9_row_local(c) => self.target_dpp(inst, c, data)?,
            _ => self.bpermute_in_half(src, data)?,
        };
        let b = &self.b;
        let exec = self.load(self.exec)?;
        let src_on = b.build_int_compare(IntPredicate::NE, b.build_and(b.build_right_shift(exec, src, false, "")?, self.i32(1), "")?, self.i32(0), "")?;
        let readable = if d.fi { self.ctx.bool_type().const_all_ones() } else { src_on };
        let valid = b.build_and(in_range, readable, "")?;
        let mut v0 = b.build_select(valid, fetched, i32t.const_zero(), "")?.into_int_value();
        if ty.bits() == 16 {
            v0 = b.build_and(v0, self.i32(0xffff), "")?;
        }
        let on = match d.sel {
            DppSel::Lanes8(_) => self.ctx.bool_type().const_all_ones(),
            DppSel::Ctrl(_) if d.bound_ctrl => self.dpp_masks_on(d)?,
            DppSel::Ctrl(_) => self.b.build_and(self.dpp_masks_on(d)?, valid, "")?,
        };
        self.valu_with(inst, &op, Some((v0, on)))
    }

    /// [`Self::dpp_valu`] for a GFX9 row-local control where the target's EXEC is the source's:
    /// the operand is the target's DPP read (0 where invalid, with bound_ctrl set), and where
    /// the source has no bound_ctrl, a thread whose read is invalid keeps its destination: the
    /// same DPP applied to ones tells it (1 where the read is valid).
    fn dpp_valu_on_target(&mut self, inst: &Instruction, op: &alu::AluOp, d: &Dpp, reg: hx_isa::Reg) -> Result<(), RaiseError> {
        let DppSel::Ctrl(c) = d.sel else { return Err(self.err(inst, "DPP8 on the target's DPP")) };
        let data = self.read_vreg(reg, 1, inst)?;
        let partial = !d.bound_ctrl || d.row_mask & 3 != 3 || d.bank_mask != 0xf;
        if partial && op.op == alu::Op::MovB32 && inst.source_mods() == hx_isa::Modifiers::default() {
            return self.dpp_mov_on_target(inst, d, c, data);
        }
        let mut v0 = self.target_dpp(inst, c, data)?;
        if op.srcs[0].bits() == 16 {
            v0 = self.b.build_and(v0, self.i32(0xffff), "")?;
        }
        let mut on = self.dpp_masks_on(d)?;
        if !d.bound_ctrl {
            let valid = self.target_dpp(inst, c, self.i32(1))?;
            let valid = self.b.build_int_compare(IntPredicate::NE, valid, self.i32(0), "")?;
            on = self.b.build_and(on, valid, "")?;
        }
        self.valu_with(inst, op, Some((v0, on)))
    }

    /// A v_mov_b32 DPP some lanes of which keep their destination (bound_ctrl clear, or rows or
    /// banks masked off): the target's DPP does the same with the destination as its old value,
    /// the same bound_ctrl, and the row mask applied to both source waves (wave w's rows 0 and 1
    /// are the target's 2w and 2w+1). Saves computing which reads are valid (a DPP of ones, a
    /// compare and a select).
    fn dpp_mov_on_target(&mut self, inst: &Instruction, d: &Dpp, ctrl: u16, data: IntValue<'ctx>) -> Result<(), RaiseError> {
        let dst = match inst.operands().next().map(|o| o.value) {
            Some(Operand::Reg(r)) if r.class == RegClass::Vgpr => r,
            v => return Err(self.err(inst, format!("v_mov_b32 DPP destination {v:?}"))),
        };
        let old = self.read_vreg(dst, 1, inst)?;
        let rows = d.row_mask & 3;
        let v = self.update_dpp(inst, old, data, ctrl, rows | rows << 2, d.bank_mask, d.bound_ctrl)?;
        self.write_vreg(dst, 1, v, self.active()?, inst)
    }

    /// The target's DPP of `x` with control `ctrl` over whole rows and banks, invalid reads 0
    /// (bound_ctrl).
    fn target_dpp(&self, inst: &Instruction, ctrl: u16, x: IntValue<'ctx>) -> Result<IntValue<'ctx>, RaiseError> {
        self.update_dpp(inst, self.i32(0), x, ctrl, 0xf, 0xf, true)
    }

    /// `llvm.amdgcn.update.dpp(old, x, ctrl, row_mask, bank_mask, bound_ctrl)` (target rows).
    #[allow(clippy::too_many_arguments)]
    fn update_dpp(&self, inst: &Instruction, old: IntValue<'ctx>, x: IntValue<'ctx>, ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool) -> Result<IntValue<'ctx>, RaiseError> {
        let i32t = self.ctx.i32_type();
        let f = self.intrinsic("llvm.amdgcn.update.dpp", &[i32t.into()])?;
        let bc = self.ctx.bool_type().const_int(bound_ctrl as u64, false);
        let args = [old.into(), x.into(), self.i32(ctrl as u64).into(), self.i32(row_mask as u64).into(), self.i32(bank_mask as u64).into(), bc.into()];
        let v = self.b.build_call(f, &args, "")?.try_as_basic_value().basic();
        v.map(|v| v.into_int_value()).ok_or_else(|| self.err(inst, "update.dpp returns nothing"))
    }

    /// Whether row_mask and bank_mask leave this thread's lane on.
    fn dpp_masks_on(&self, d: &Dpp) -> Result<IntValue<'ctx>, RaiseError> {
        let b = &self.b;
        let bit = |mask: u8, idx: IntValue<'ctx>| -> Result<IntValue<'ctx>, RaiseError> {
            let s = b.build_and(b.build_right_shift(self.i32(mask as u64), idx, false, "")?, self.i32(1), "")?;
            Ok(b.build_int_compare(IntPredicate::NE, s, self.i32(0), "")?)
        };
        let mut on = self.ctx.bool_type().const_all_ones();
        if d.row_mask & 3 != 3 {
            on = bit(d.row_mask, b.build_right_shift(self.lane, self.i32(4), false, "")?)?;
        }
        if d.bank_mask != 0xf {
            let bank = b.build_and(b.build_right_shift(self.lane, self.i32(2), false, "")?, self.i32(3), "")?;
            on = b.build_and(on, bit(d.bank_mask, bank)?, "")?;
        }
        Ok(on)
    }
}
