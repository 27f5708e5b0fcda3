//! Executing DPP forms: src0 of every lane comes from another lane through the DPP control
//! ([`crate::lane_ops`] holds the lane mappings and the masks, bound_ctrl and FI rules), then the
//! ordinary VALU operation runs on the lanes DPP leaves on.

use crate::alu::table::{self as alu, Flag};
use crate::dispatch::Group;
use crate::exec::{exec_valu_with, source_value, split_operands, unsupported, Flow};
use crate::lane_ops::{apply_dpp16, apply_dpp8, Dpp16Args, DppLane};
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::dpp::{Dpp, DppSel};
use hx_isa::{Instruction, Operand, RegClass};

/// Executes the DPP instruction `inst` (controls `d`) on `wave`.
pub(crate) fn exec_dpp(wave: &mut Wave, inst: &Instruction, d: &Dpp, group: &mut Group<'_>) -> Result<Flow, EmuError> {
    let op = alu::of(inst).ok_or_else(|| unsupported(inst, "its semantics"))?;
    if op.salu {
        return Err(unsupported(inst, "a scalar operation under DPP"));
    }
    let ops = split_operands(inst, &op)?;
    let src0 = *ops.srcs.first().ok_or_else(|| unsupported(inst, "DPP without a source"))?;
    if !matches!(src0.value, Operand::Reg(r) if r.class == RegClass::Vgpr) {
        return Err(unsupported(inst, "a DPP source that is not a VGPR"));
    }
    let t0 = op.srcs[0];
    let values = (0..wave.lanes).map(|l| source_value(wave, src0, l, t0, inst)).collect::<Result<Vec<u64>, _>>()?;
    let exec = wave.exec & wave.lane_mask();
    let lanes: Vec<DppLane<u64>> = match d.sel {
        DppSel::Ctrl(ctrl) => {
            let args = Dpp16Args { ctrl, row_mask: d.row_mask, bank_mask: d.bank_mask, bound_ctrl: d.bound_ctrl, fetch_inactive: d.fi };
            apply_dpp16(&values, exec, &args, inst.target).map_err(|e| relabel(inst, e))?
        }
        DppSel::Lanes8(_) => {
            let sel = d.dpp8().unwrap_or(0);
            apply_dpp8(&values, exec, sel, d.fi, inst.target).map_err(|e| relabel(inst, e))?.into_iter().map(DppLane::Value).collect()
        }
    };
    // A lane DPP turns off keeps its destination; what it contributes to a written lane mask
    // (compare result, carry out) is not documented: refuse rather than guess.
    let writes_mask = op.flag_out == Flag::LaneMask;
    if writes_mask && (0..wave.lanes).any(|l| exec >> l & 1 != 0 && lanes[l] == DppLane::Off) {
        return Err(unsupported(inst, "a lane-mask result with lanes that DPP turns off"));
    }
    exec_valu_with(wave, inst, &op, group, Some(&lanes))
}

fn relabel(inst: &Instruction, e: hx_sem::Unsupported) -> EmuError {
    unsupported(inst, e.what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::FpMode;
    use crate::dispatch::LoadedCode;
    use crate::memory::{GlobalMemory, LocalMemory};
    use crate::stats::Stats;
    use hx_isa::Target::{self, Gfx1250, Gfx942};

    /// A DPP16 dword: src0 `src`, control, bound_ctrl, FI, row and bank masks.
    fn dpp16(src: u32, ctrl: u32, bc: bool, fi: bool, row: u32, bank: u32) -> u32 {
        src | ctrl << 8 | (fi as u32) << 18 | (bc as u32) << 19 | bank << 24 | row << 28
    }

    /// Runs one instruction (`words`) on a wave whose v1 holds `x`, v2 holds `y`, v5 holds `old`
    /// in every lane; returns v5 of every lane.
    fn run(target: Target, words: &[u32], exec: u64, x: &[u32], y: &[u32], old: u32) -> Result<Vec<u32>, EmuError> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let inst = hx_isa::decode(target, &bytes, 0).expect("decodes");
        let lanes = x.len();
        let mut wave = Wave::new(lanes, 8, 0);
        wave.exec = exec;
        for l in 0..lanes {
            wave.set_v(1, l, x[l])?;
            wave.set_v(2, l, y[l])?;
            wave.set_v(5, l, old)?;
        }
        let mut mem = GlobalMemory::new();
        let mut code = LoadedCode::empty(target);
        let mut stats = Stats::default();
        let mut group = Group {
            mem: &mut mem,
            lds: LocalMemory::new("lds", 0),
            scratch: Vec::new(),
            code: &mut code,
            stats: &mut stats,
            fp_mode: FpMode::ieee_default(),
            target,
            barrier_signalled: false,
        };
        crate::exec::step(&mut wave, 0, &inst, &mut group)?;
        (0..lanes).map(|l| wave.v(5, l)).collect()
    }

    fn input(lanes: usize) -> Vec<u32> {
        (0..lanes as u32).map(|l| 100 + 3 * l).collect()
    }

    const ALL32: u64 = 0xffff_ffff;
    /// gfx1250 / GFX9 v_mov_b32 (VOP1 opcode 1) into v5 with DPP16 or DPP8.
    const MOV: u32 = 0x3f << 25 | 5 << 17 | 1 << 9;

    #[test]
    fn row_shifts_masks_and_bound_ctrl_on_gfx1250() {
        let x = input(32);
        // row_shr:1 without bound_ctrl: the first lane of each row keeps v5.
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x111, false, false, 15, 15)], ALL32, &x, &x, 7).unwrap();
        for l in 0..32 {
            assert_eq!(v[l], if l % 16 == 0 { 7 } else { x[l - 1] }, "lane {l}");
        }
        // With bound_ctrl the out-of-row source reads 0.
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x111, true, false, 15, 15)], ALL32, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[16], v[17]), (0, 0, x[16]));
        // row_mask 0x1: row 1 is not written; bank_mask 0x2: only lanes 4..7 of each row.
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x1b, false, false, 1, 2)], ALL32, &x, &x, 7).unwrap();
        assert_eq!((v[3], v[4], v[7], v[8], v[20]), (7, x[7], x[4], 7, 7));
        // row_xmask:1 swaps neighbours; row_share:3 broadcasts lane 3 of each row.
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x161, false, false, 15, 15)], ALL32, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[1], v[30]), (x[1], x[0], x[31]));
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x153, false, false, 15, 15)], ALL32, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[15], v[16], v[31]), (x[3], x[3], x[19], x[19]));
    }

    #[test]
    fn inactive_sources_and_fetch_inactive() {
        let x = input(32);
        let exec = ALL32 & !(1 << 4);
        // Lane 5 reads inactive lane 4: without bound_ctrl it keeps v5, with it reads 0, with FI
        // it reads lane 4's register. Lane 4 itself is never written.
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x111, false, false, 15, 15)], exec, &x, &x, 7).unwrap();
        assert_eq!((v[4], v[5], v[6]), (7, 7, x[5]));
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x111, true, false, 15, 15)], exec, &x, &x, 7).unwrap();
        assert_eq!((v[4], v[5]), (7, 0));
        let v = run(Gfx1250, &[MOV | 250, dpp16(1, 0x111, false, true, 15, 15)], exec, &x, &x, 7).unwrap();
        assert_eq!((v[4], v[5]), (7, x[4]));
        // DPP8 [7,6,5,4,3,2,1,0]: an inactive source reads 0 (no FI), its value with FI.
        let sel = (0..8u32).fold(0, |a, k| a | (7 - k) << (3 * k));
        let v = run(Gfx1250, &[MOV | 233, 1 | sel << 8], exec, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[3], v[8], v[4]), (x[7], 0, x[15], 7));
        let v = run(Gfx1250, &[MOV | 234, 1 | sel << 8], exec, &x, &x, 7).unwrap();
        assert_eq!(v[3], x[4]);
    }

    #[test]
    fn operations_and_modifiers_read_the_moved_source() {
        let x = input(32);
        let y: Vec<u32> = (0..32).map(|l| 1000 * l).collect();
        // v_add_nc_u32_dpp v5, v1, v2 quad_perm:[3,2,1,0] bound_ctrl:1
        let add = 0x25 << 25 | 5 << 17 | 2 << 9 | 250;
        let v = run(Gfx1250, &[add, dpp16(1, 0x1b, true, false, 15, 15)], ALL32, &x, &y, 7).unwrap();
        for l in 0..32 {
            assert_eq!(v[l], x[(l & !3) | (3 - (l & 3))] + y[l], "lane {l}");
        }
        // v_add_f32_dpp v5, -v1, |v2| row_mirror: -x[mirror] + |y|.
        let f = |v: f32| v.to_bits();
        let xf: Vec<u32> = (0..32).map(|l| f(l as f32 + 0.5)).collect();
        let yf: Vec<u32> = (0..32).map(|l| f(-(l as f32) * 2.0)).collect();
        let addf = 0x03 << 25 | 5 << 17 | 2 << 9 | 250;
        let v = run(Gfx1250, &[addf, dpp16(1, 0x140, false, false, 15, 15) | 1 << 20 | 1 << 23], ALL32, &xf, &yf, 7).unwrap();
        for l in 0..32 {
            let src = (l & !15) | (15 - (l & 15));
            assert_eq!(v[l], f(-(src as f32 + 0.5) + (l as f32) * 2.0), "lane {l}");
        }
        // VOP3: v_add_f32_e64_dpp v5, -v1, v2 row_ror:1 (neg in the VOP3 word).
        let v = run(Gfx1250, &[0xd503_0005, 250 | 258 << 9 | 1 << 29, dpp16(1, 0x121, false, false, 15, 15)], ALL32, &xf, &yf, 7).unwrap();
        for l in 0..32 {
            let src = (l & !15) | ((l + 15) & 15);
            assert_eq!(v[l], f(-(src as f32 + 0.5) - (l as f32) * 2.0), "lane {l}");
        }
    }

    #[test]
    fn gfx9_wave_controls() {
        let x = input(64);
        let all = u64::MAX;
        // row_bcast:15 with row_mask 0xa: rows 1 and 3 read lane 15 of the row before.
        let v = run(Gfx942, &[MOV | 250, dpp16(1, 0x142, false, false, 0xa, 15)], all, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[16], v[31], v[32], v[48], v[63]), (7, x[15], x[15], 7, x[47], x[47]));
        // wave_shr:1: lane 0 has no source (keeps v5), lane 17 reads lane 16 across the row.
        let v = run(Gfx942, &[MOV | 250, dpp16(1, 0x138, false, false, 15, 15)], all, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[16], v[63]), (7, x[15], x[62]));
        // wave_rol:1 wraps: lane 63 reads lane 0.
        let v = run(Gfx942, &[MOV | 250, dpp16(1, 0x134, false, false, 15, 15)], all, &x, &x, 7).unwrap();
        assert_eq!((v[63], v[0]), (x[0], x[1]));
        // Rows with no row before read an invalid source: kept without bound_ctrl, 0 with it;
        // row_bcast:31 feeds rows 2 and 3 from lane 31.
        let v = run(Gfx942, &[MOV | 250, dpp16(1, 0x142, false, false, 0xf, 15)], all, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[15], v[16], v[47]), (7, 7, x[15], x[31]));
        let v = run(Gfx942, &[MOV | 250, dpp16(1, 0x143, true, false, 0xf, 15)], all, &x, &x, 7).unwrap();
        assert_eq!((v[0], v[31], v[32], v[63]), (0, 0, x[31], x[31]));
    }
}
