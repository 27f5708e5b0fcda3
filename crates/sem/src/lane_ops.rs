//! Cross-lane VALU semantics as pure functions over one wave's lanes: `v_readlane`,
//! `v_readfirstlane`, `v_writelane`, `v_mbcnt_lo/hi`, DPP16 (GFX9 and GFX10+ controls), DPP8 and
//! `v_permlane16/x16`. The executor reads a source VGPR of every lane into a slice, calls one of
//! these, and writes the active lanes.
//!
//! # Facts used (and where from)
//! * DPP control values: LLVM `SIDefines.h`, `AMDGPU::DPP::DppCtrl`: quad_perm 0x00-0xFF,
//!   row_shl 0x101-0x10F, row_shr 0x111-0x11F, row_ror 0x121-0x12F, wave_shl1 0x130, wave_rol1
//!   0x134, wave_shr1 0x138, wave_ror1 0x13C, row_mirror 0x140, row_half_mirror 0x141,
//!   row_bcast15 0x142, row_bcast31 0x143, row_newbcast (gfx90a+) / row_share (GFX10+)
//!   0x150-0x15F, row_xmask (GFX10+) 0x160-0x16F; 0x100, 0x110, 0x120 and the gaps are reserved.
//!   wave_*, row_bcast* exist on GFX8/GFX9 only (not GFX10+); row_share/row_xmask on GFX10+ only;
//!   row_newbcast:n on gfx90a/gfx94x/gfx950 (LLVM accepts it for 64-bit DPP operations) with the
//!   lane mapping of row_share:n ("broadcast thread n of each row to the whole row").
//! * Direction: `row_shl:n` — lane `i` reads lane `i + n` of its row; `row_shr:n` — lane `i`
//!   reads `i - n`; `row_ror:n` — lane `r` of a row reads `(r - n) mod 16`; `wave_shl:1` /
//!   `wave_rol:1` read `i + 1` (rol wraps), `wave_shr:1` / `wave_ror:1` read `i - 1`.
//!   `row_bcast:15`: rows 1..3 read lane 15 of the previous row; `row_bcast:31`: rows 2 and 3 read
//!   lane 31 (GFX9 guide). What the remaining rows read is not documented, so enabling them in
//!   row_mask is refused (LLVM's reductions use row_mask 0xA and 0xC).
//! * Masks: `row_mask` bit r enables row r (lanes 16r..16r+15); `bank_mask` bit b enables lanes
//!   whose `lane & 15` is in 4b..4b+3. A lane disabled by either keeps its destination.
//! * Invalid source (outside the row / wave, or an inactive lane when fetch-inactive is off; on
//!   GFX9 an inactive source is always invalid): with `bound_ctrl` the DPP operand reads 0 (the
//!   instruction executes with 0 for that lane — LLVM's `bound_ctrl:1`, the intrinsic's `true`);
//!   without it the lane does not execute and keeps its destination (`old` for `update.dpp`).
//! * DPP8 (GFX10+): lane `i` reads `(i & ~7) | sel[i & 7]`, `sel[k]` = bits 3k+2:3k of the 24-bit
//!   selector. An inactive source reads 0 unless FI is set (RDNA guides; DPP8 has no bound_ctrl).
//! * `v_readlane_b32` / `v_writelane_b32`: the lane number is taken modulo the wave size (SSRC1
//!   bits 4:0 in wave32, 5:0 in wave64), and EXEC is ignored.
//! * `v_readfirstlane_b32`: the lowest active lane; with EXEC = 0, lane 0 (RDNA4 pseudocode
//!   `if EXEC == 0 then lane = 0`).
//! * `v_mbcnt_lo_u32_b32 d, s0, s1`: `popcount(s0 & ThreadMask[31:0]) + s1`,
//!   `v_mbcnt_hi`: `popcount(s0 & ThreadMask[63:32]) + s1`, ThreadMask = `(1 << lane) - 1`.
//! * `v_permlane16_swap_b32` / `v_permlane32_swap_b32`: see [`permlane_swap`].
//! * `v_permlane16_b32 d, s0, s1, s2` (GFX10+): lane `i` reads lane `(i & ~15) | sel(i & 15)` with
//!   the 4-bit selectors of `{s2, s1}`; `v_permlanex16_b32` reads the same position in the other
//!   row of its 32-lane half. op_sel[0] = FI, op_sel[1] = bound_ctrl, as for DPP16.
//!
//! # Wave32 code on wave64
//! Every DPP16 row operation, DPP8 and permlane16/x16 stay inside 16 (32) lanes and mean the same
//! in each half of a wave64. The GFX9-only wave-wide controls (wave_shl/rol/shr/ror, row_bcast)
//! never occur in wave32 code; GFX10+ row_share/row_xmask and DPP8 do not exist on gfx942/gfx950
//! and must be lowered differently by the translation (e.g. `ds_swizzle` or `ds_bpermute`).

use crate::Unsupported;
use hx_isa::Target;

fn is_gfx9(t: Target) -> bool {
    matches!(t, Target::Gfx942 | Target::Gfx950)
}

fn unsupported(mnemonic: &'static str, what: impl Into<String>) -> Unsupported {
    Unsupported { mnemonic, what: what.into() }
}

/// `v_readlane_b32`: the value of lane `lane mod lanes` (EXEC is ignored).
pub fn readlane<T: Copy>(values: &[T], lane: u32) -> T {
    values[lane as usize & (values.len() - 1)]
}

/// `v_writelane_b32`: writes lane `lane mod lanes` (EXEC is ignored).
pub fn writelane<T: Copy>(values: &mut [T], lane: u32, value: T) {
    let n = values.len();
    values[lane as usize & (n - 1)] = value;
}

/// `v_readfirstlane_b32`: the value of the lowest active lane, or lane 0's when EXEC is 0.
pub fn readfirstlane<T: Copy>(values: &[T], exec: u64) -> T {
    let mask = if values.len() >= 64 { u64::MAX } else { (1u64 << values.len()) - 1 };
    let e = exec & mask;
    values[if e == 0 { 0 } else { e.trailing_zeros() as usize }]
}

/// `v_mbcnt_lo_u32_b32`: bits of `mask` below `lane` among bits 31:0, plus `acc`.
pub fn mbcnt_lo(lane: usize, mask: u32, acc: u32) -> u32 {
    let thread = if lane >= 32 { u32::MAX } else { ((1u64 << lane) - 1) as u32 };
    (mask & thread).count_ones().wrapping_add(acc)
}

/// `v_mbcnt_hi_u32_b32`: bits of `mask` (the high mask word) below `lane` among lane bits 63:32,
/// plus `acc`. In wave32 every lane is below 32, so this adds nothing.
pub fn mbcnt_hi(lane: usize, mask: u32, acc: u32) -> u32 {
    let thread = if lane < 32 { 0 } else { ((1u64 << (lane - 32)) - 1) as u32 };
    (mask & thread).count_ones().wrapping_add(acc)
}

/// A decoded DPP16 control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dpp16 {
    QuadPerm([u8; 4]),
    RowShl(u8),
    RowShr(u8),
    RowRor(u8),
    WaveShl1,
    WaveRol1,
    WaveShr1,
    WaveRor1,
    RowMirror,
    RowHalfMirror,
    RowBcast15,
    RowBcast31,
    /// GFX10+ row_share:n, and gfx90a+ row_newbcast:n (same lane mapping).
    RowShare(u8),
    RowXmask(u8),
}

/// Where a lane's DPP operand comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    Lane(usize),
    /// Outside the row or wave: bound_ctrl decides.
    Invalid,
}

impl Dpp16 {
    /// Decodes `ctrl` (9 bits) for `target`; reserved or not-on-this-target controls are errors.
    pub fn decode(ctrl: u16, target: Target) -> Result<Dpp16, Unsupported> {
        let n = (ctrl & 0xf) as u8;
        let gfx9 = is_gfx9(target);
        let d = match ctrl {
            0x000..=0x0ff => Dpp16::QuadPerm([0, 1, 2, 3].map(|k| ((ctrl >> (2 * k)) & 3) as u8)),
            0x101..=0x10f => Dpp16::RowShl(n),
            0x111..=0x11f => Dpp16::RowShr(n),
            0x121..=0x12f => Dpp16::RowRor(n),
            0x130 if gfx9 => Dpp16::WaveShl1,
            0x134 if gfx9 => Dpp16::WaveRol1,
            0x138 if gfx9 => Dpp16::WaveShr1,
            0x13c if gfx9 => Dpp16::WaveRor1,
            0x140 => Dpp16::RowMirror,
            0x141 => Dpp16::RowHalfMirror,
            0x142 if gfx9 => Dpp16::RowBcast15,
            0x143 if gfx9 => Dpp16::RowBcast31,
            0x150..=0x15f => Dpp16::RowShare(n),
            0x160..=0x16f if !gfx9 => Dpp16::RowXmask(n),
            _ => return Err(unsupported("dpp", format!("DPP control {ctrl:#x} on {target:?}"))),
        };
        Ok(d)
    }

    fn src(&self, lane: usize, lanes: usize) -> Src {
        let (row, r) = (lane & !15, lane & 15);
        let rowed = |x: Option<usize>| x.map_or(Src::Invalid, |x| Src::Lane(row | x));
        match *self {
            Dpp16::QuadPerm(sel) => Src::Lane((lane & !3) | sel[lane & 3] as usize),
            Dpp16::RowShl(n) => rowed(Some(r + n as usize).filter(|&x| x < 16)),
            Dpp16::RowShr(n) => rowed(r.checked_sub(n as usize)),
            Dpp16::RowRor(n) => rowed(Some((r + 16 - n as usize) & 15)),
            Dpp16::WaveShl1 => if lane + 1 < lanes { Src::Lane(lane + 1) } else { Src::Invalid },
            Dpp16::WaveRol1 => Src::Lane((lane + 1) % lanes),
            Dpp16::WaveShr1 => lane.checked_sub(1).map_or(Src::Invalid, Src::Lane),
            Dpp16::WaveRor1 => Src::Lane((lane + lanes - 1) % lanes),
            Dpp16::RowMirror => rowed(Some(15 - r)),
            Dpp16::RowHalfMirror => Src::Lane((lane & !7) | (7 - (lane & 7))),
            // Lane 15 (31) of the row before: rows with no row before read a source outside the
            // wave, which DPP treats as invalid (bound_ctrl decides). Triton's gfx942/gfx950
            // reductions (corpus/triton softmax, row_sum_max, layer_norm) run row_bcast:31 with
            // row_mask 0xf and bound_ctrl:1 and compute numpy's answer under this reading.
            Dpp16::RowBcast15 => if row >= 16 { Src::Lane(row - 1) } else { Src::Invalid },
            Dpp16::RowBcast31 => if row >= 32 { Src::Lane(31) } else { Src::Invalid },
            Dpp16::RowShare(n) => rowed(Some(n as usize)),
            Dpp16::RowXmask(n) => rowed(Some(r ^ n as usize)),
        }
    }

    /// The lane whose value `lane` reads, or `None` when the source is outside the row or wave
    /// (or, for row_bcast, undefined).
    pub fn source_lane(&self, lane: usize, lanes: usize) -> Option<usize> {
        match self.src(lane, lanes) {
            Src::Lane(l) if l < lanes => Some(l),
            _ => None,
        }
    }
}

/// [`Dpp16::source_lane`] of a raw control word (errors for reserved / other-family controls).
pub fn dpp16_source_lane(ctrl: u16, lane: usize, lanes: usize, target: Target) -> Result<Option<usize>, Unsupported> {
    Ok(Dpp16::decode(ctrl, target)?.source_lane(lane, lanes))
}

/// The DPP16 modifiers of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dpp16Args {
    pub ctrl: u16,
    pub row_mask: u8,
    pub bank_mask: u8,
    /// Invalid sources read 0 (LLVM `bound_ctrl:1`; `update.dpp(..., i1 true)`).
    pub bound_ctrl: bool,
    /// GFX10+ FI: read inactive source lanes instead of treating them as invalid.
    pub fetch_inactive: bool,
}

impl Dpp16Args {
    pub fn new(ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool) -> Dpp16Args {
        Dpp16Args { ctrl, row_mask, bank_mask, bound_ctrl, fetch_inactive: false }
    }
}

/// What one lane of a DPP (or permlane) instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DppLane<T> {
    /// Execute with this value as the DPP source operand (0 for a bound_ctrl-zeroed lane).
    Value(T),
    /// Do not execute: inactive, masked off by row/bank mask, or invalid source without
    /// bound_ctrl. The destination keeps its value.
    Off,
}

/// The DPP16 source operand of every lane: `values[lane]` are the source VGPR of all lanes (32 or
/// 64), `exec` the wave's EXEC.
pub fn apply_dpp16<T: Copy + Default>(values: &[T], exec: u64, args: &Dpp16Args, target: Target) -> Result<Vec<DppLane<T>>, Unsupported> {
    let lanes = values.len();
    let dpp = Dpp16::decode(args.ctrl, target)?;
    if args.fetch_inactive && is_gfx9(target) {
        return Err(unsupported("dpp", "fetch-inactive (FI) on a GFX9 target"));
    }
    let mut out = Vec::with_capacity(lanes);
    for lane in 0..lanes {
        let row_on = args.row_mask >> (lane / 16) & 1 != 0;
        let bank_on = args.bank_mask >> ((lane >> 2) & 3) & 1 != 0;
        if exec >> lane & 1 == 0 || !row_on || !bank_on {
            out.push(DppLane::Off);
            continue;
        }
        let v = match dpp.src(lane, lanes) {
            Src::Lane(s) if s < lanes && (args.fetch_inactive || exec >> s & 1 != 0) => DppLane::Value(values[s]),
            _ if args.bound_ctrl => DppLane::Value(T::default()),
            _ => DppLane::Off,
        };
        out.push(v);
    }
    Ok(out)
}

/// The lane `lane` reads under the DPP8 selector `sel` (24 bits, three per lane of a group of 8).
pub fn dpp8_source_lane(sel: u32, lane: usize) -> usize {
    (lane & !7) | ((sel >> (3 * (lane & 7))) & 7) as usize
}

/// DPP8 over a wave (GFX10+ only): the source operand of every lane; an inactive source reads 0
/// unless `fetch_inactive`. The caller writes active lanes only.
pub fn apply_dpp8<T: Copy + Default>(values: &[T], exec: u64, sel: u32, fetch_inactive: bool, target: Target) -> Result<Vec<T>, Unsupported> {
    if is_gfx9(target) {
        return Err(unsupported("dpp8", format!("DPP8 does not exist on {target:?}")));
    }
    Ok((0..values.len())
        .map(|lane| {
            let s = dpp8_source_lane(sel, lane);
            if fetch_inactive || exec >> s & 1 != 0 { values[s] } else { T::default() }
        })
        .collect())
}

/// The lane `lane` reads in `v_permlane16_b32` (`cross` = false) or `v_permlanex16_b32`
/// (`cross` = true), with the selector words `sel_lo` (src1) and `sel_hi` (src2).
pub fn permlane16_source_lane(lane: usize, sel_lo: u32, sel_hi: u32, cross: bool) -> usize {
    let sel = (sel_hi as u64) << 32 | sel_lo as u64;
    let nibble = (sel >> (4 * (lane & 15))) & 15;
    let row = if cross { (lane & !15) ^ 16 } else { lane & !15 };
    row | nibble as usize
}

/// `v_permlane16_b32` / `v_permlanex16_b32` over a wave (GFX10+): inactive source lanes are read
/// only with `fetch_inactive`; otherwise `bound_ctrl` gives 0, or the lane keeps its destination.
#[allow(clippy::too_many_arguments)]
pub fn apply_permlane16<T: Copy + Default>(
    values: &[T],
    exec: u64,
    sel_lo: u32,
    sel_hi: u32,
    cross: bool,
    fetch_inactive: bool,
    bound_ctrl: bool,
    target: Target,
) -> Result<Vec<DppLane<T>>, Unsupported> {
    if is_gfx9(target) {
        return Err(unsupported("v_permlane16_b32", format!("not on {target:?}")));
    }
    Ok((0..values.len())
        .map(|lane| {
            if exec >> lane & 1 == 0 {
                return DppLane::Off;
            }
            let s = permlane16_source_lane(lane, sel_lo, sel_hi, cross);
            if s < values.len() && (fetch_inactive || exec >> s & 1 != 0) {
                DppLane::Value(values[s])
            } else if bound_ctrl {
                DppLane::Value(T::default())
            } else {
                DppLane::Off
            }
        })
        .collect())
}

/// `v_permlane16_swap_b32 vdst, vsrc` (gfx950, gfx1250; `rows16` = true) and
/// `v_permlane32_swap_b32` (gfx950; `rows16` = false): exchanges lanes between the two registers.
/// permlane16_swap swaps the odd 16-lane rows of `vdst` with the even rows of `vsrc` (lane
/// `16(2k+1) + j` of vdst ↔ lane `32k + j` of vsrc); permlane32_swap swaps lanes 32..63 of
/// vdst with lanes 0..31 of vsrc (LLVM's `llvm.amdgcn.permlane{16,32}.swap` description).
/// Both registers are updated in place.
///
/// What a partially active pair does (and the FI / bound_ctrl operands with inactive lanes) is
/// not documented in the sources at hand, so a swap with exactly one lane of a pair inactive is
/// refused; pairs with both lanes inactive are left alone.
pub fn permlane_swap<T: Copy>(vdst: &mut [T], vsrc: &mut [T], exec: u64, rows16: bool, target: Target) -> Result<(), Unsupported> {
    let name = if rows16 { "v_permlane16_swap_b32" } else { "v_permlane32_swap_b32" };
    let lanes = vdst.len();
    let ok = match target {
        Target::Gfx950 => true,
        Target::Gfx1250 => rows16,
        Target::Gfx942 => false,
    };
    if !ok || lanes != vsrc.len() || (!rows16 && lanes != 64) {
        return Err(unsupported(name, format!("on {target:?} with {lanes} lanes")));
    }
    let pairs: Vec<(usize, usize)> = if rows16 {
        (0..lanes / 32).flat_map(|k| (0..16).map(move |j| (32 * k + 16 + j, 32 * k + j))).collect()
    } else {
        (0..32).map(|j| (32 + j, j)).collect()
    };
    for &(d, s) in &pairs {
        if (exec >> d & 1) != (exec >> s & 1) {
            return Err(unsupported(name, format!("lane {d} and lane {s} differ in EXEC")));
        }
    }
    for (d, s) in pairs {
        if exec >> d & 1 != 0 {
            std::mem::swap(&mut vdst[d], &mut vsrc[s]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Target::{Gfx1250, Gfx942};

    const ALL32: u64 = 0xffff_ffff;

    /// `llvm.amdgcn.update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl)`: v_mov_b32_dpp
    /// into a register holding `old`.
    #[allow(clippy::too_many_arguments)]
    fn update_dpp(old: u32, x: &[u32], exec: u64, ctrl: u16, row_mask: u8, bank_mask: u8, bc: bool, t: Target) -> Vec<u32> {
        let lanes = apply_dpp16(x, exec, &Dpp16Args::new(ctrl, row_mask, bank_mask, bc), t).unwrap();
        lanes.iter().map(|l| if let DppLane::Value(v) = l { *v } else { old }).collect()
    }

    fn input(lanes: usize) -> Vec<u32> {
        (0..lanes as u32).map(|l| 100 + 3 * l).collect()
    }

    #[test]
    fn corpus_dpp_controls_on_wave32_and_wave64() {
        // corpus/kernels/wave_dpp.ll: a 32-item workgroup is one wave32 or the lower half of a
        // wave64 whose upper lanes are inactive.
        for (t, lanes, exec) in [(Gfx1250, 32, ALL32), (Gfx942, 64, ALL32)] {
            let x = input(lanes);
            let shr = update_dpp(0xdead, &x, exec, 0x111, 15, 15, false, t);
            let qp = update_dpp(0, &x, exec, 0x4e, 15, 15, true, t);
            let mir = update_dpp(0, &x, exec, 0x140, 15, 15, true, t);
            let hmir = update_dpp(0, &x, exec, 0x141, 15, 15, true, t);
            let ror = update_dpp(0, &x, exec, 0x123, 15, 15, true, t);
            let rowm = update_dpp(7, &x, exec, 0x102, 1, 15, false, t);
            for lane in 0..32 {
                let r = lane & 15;
                assert_eq!(shr[lane], if r >= 1 { x[lane - 1] } else { 0xdead }, "{t:?} shr lane {lane}");
                assert_eq!(qp[lane], x[(lane & !3) | [2, 3, 0, 1][lane & 3]]);
                assert_eq!(mir[lane], x[(lane & !15) | (15 - r)]);
                assert_eq!(hmir[lane], x[(lane & !7) | (7 - (lane & 7))]);
                assert_eq!(ror[lane], x[(lane & !15) | ((r + 16 - 3) & 15)]);
                assert_eq!(rowm[lane], if lane < 16 && r + 2 < 16 { x[lane + 2] } else { 7 });
            }
            // Inclusive prefix sum within each row: s += row_shr:{1,2,4,8}(s), bound_ctrl on.
            let mut s = x.clone();
            for ctrl in [0x111, 0x112, 0x114, 0x118] {
                let d = update_dpp(0, &s, exec, ctrl, 15, 15, true, t);
                s = s.iter().zip(&d).map(|(a, b)| a.wrapping_add(*b)).collect();
            }
            for lane in 0..32 {
                let expect: u32 = (lane & !15..=lane).map(|l| x[l]).sum();
                assert_eq!(s[lane], expect, "{t:?} scan lane {lane}");
            }
        }
    }

    #[test]
    fn bound_ctrl_and_inactive_sources() {
        let x = input(32);
        let exec = ALL32 & !(1 << 4);
        // row_shr:1 without bound_ctrl: lane 5 reads inactive lane 4, so it keeps old; with
        // bound_ctrl it reads 0. Lane 4 itself is inactive: never written.
        let a = apply_dpp16(&x, exec, &Dpp16Args::new(0x111, 15, 15, false), Gfx1250).unwrap();
        assert_eq!((a[5], a[4], a[0], a[6]), (DppLane::Off, DppLane::Off, DppLane::Off, DppLane::Value(x[5])));
        let b = apply_dpp16(&x, exec, &Dpp16Args::new(0x111, 15, 15, true), Gfx1250).unwrap();
        assert_eq!((b[5], b[0]), (DppLane::Value(0), DppLane::Value(0)));
        // FI on GFX12 reads the inactive lane; FI is refused on GFX9.
        let fi = Dpp16Args { fetch_inactive: true, ..Dpp16Args::new(0x111, 15, 15, false) };
        assert_eq!(apply_dpp16(&x, exec, &fi, Gfx1250).unwrap()[5], DppLane::Value(x[4]));
        assert!(apply_dpp16(&input(64), exec, &fi, Gfx942).is_err());
        // bank_mask 0b0001 enables lanes 0-3 of each row only.
        let c = apply_dpp16(&x, ALL32, &Dpp16Args::new(0xe4, 15, 1, true), Gfx1250).unwrap();
        assert_eq!((c[3], c[4], c[19], c[20]), (DppLane::Value(x[3]), DppLane::Off, DppLane::Value(x[19]), DppLane::Off));
    }

    #[test]
    fn family_specific_controls() {
        // GFX9-only on GFX12, GFX10+-only on GFX9, reserved everywhere.
        for c in [0x130, 0x134, 0x138, 0x13c, 0x142, 0x143] {
            assert!(Dpp16::decode(c, Gfx1250).is_err(), "{c:#x}");
            assert!(Dpp16::decode(c, Gfx942).is_ok(), "{c:#x}");
        }
        assert!(Dpp16::decode(0x161, Gfx942).is_err());
        assert_eq!(Dpp16::decode(0x161, Gfx1250).unwrap(), Dpp16::RowXmask(1));
        for c in [0x100, 0x110, 0x120, 0x131, 0x13d, 0x144, 0x170, 0x1ff] {
            assert!(Dpp16::decode(c, Gfx1250).is_err() && Dpp16::decode(c, Gfx942).is_err(), "{c:#x}");
        }
        // Wave shifts and rotates (wave64).
        assert_eq!(dpp16_source_lane(0x130, 63, 64, Gfx942).unwrap(), None);
        assert_eq!(dpp16_source_lane(0x134, 63, 64, Gfx942).unwrap(), Some(0));
        assert_eq!(dpp16_source_lane(0x138, 0, 64, Gfx942).unwrap(), None);
        assert_eq!(dpp16_source_lane(0x13c, 0, 64, Gfx942).unwrap(), Some(63));
        assert_eq!(dpp16_source_lane(0x138, 17, 64, Gfx942).unwrap(), Some(16));
        // row_share / row_xmask / row_newbcast.
        assert_eq!(dpp16_source_lane(0x153, 21, 32, Gfx1250).unwrap(), Some(19));
        assert_eq!(dpp16_source_lane(0x153, 21, 64, Gfx942).unwrap(), Some(19));
        assert_eq!(dpp16_source_lane(0x16f, 17, 32, Gfx1250).unwrap(), Some(30));
        // row_bcast:15 with row_mask 0xA and row_bcast:31 with 0xC: the LLVM reduction idiom.
        let x = input(64);
        let b15 = update_dpp(1, &x, u64::MAX, 0x142, 0xa, 0xf, false, Gfx942);
        assert_eq!((b15[16], b15[31], b15[48], b15[0], b15[32]), (x[15], x[15], x[47], 1, 1));
        let b31 = update_dpp(1, &x, u64::MAX, 0x143, 0xc, 0xf, false, Gfx942);
        assert_eq!((b31[32], b31[63], b31[31]), (x[31], x[31], 1));
        // Row 0, with no row before it, reads an invalid source: off without bound_ctrl.
        let all = apply_dpp16(&x, u64::MAX, &Dpp16Args::new(0x142, 0xf, 0xf, false), Gfx942).unwrap();
        assert_eq!((all[0], all[16]), (DppLane::Off, DppLane::Value(x[15])));
    }

    #[test]
    fn dpp8_and_permlane16() {
        // dpp8:[7,6,5,4,3,2,1,0] reverses each group of 8.
        let sel = (0..8).fold(0u32, |s, k| s | (7 - k) << (3 * k));
        let x = input(32);
        let out = apply_dpp8(&x, ALL32, sel, false, Gfx1250).unwrap();
        assert_eq!((out[0], out[7], out[8], out[13]), (x[7], x[0], x[15], x[10]));
        let out = apply_dpp8(&x, ALL32 & !(1 << 7), sel, false, Gfx1250).unwrap();
        assert_eq!(out[0], 0, "inactive source reads 0 without FI");
        assert_eq!(apply_dpp8(&x, ALL32 & !(1 << 7), sel, true, Gfx1250).unwrap()[0], x[7]);
        assert!(apply_dpp8(&input(64), u64::MAX, sel, false, Gfx942).is_err());
        // permlane16 with selectors reversing each row; permlanex16 reads the other row.
        let (lo, hi) = (0x89ab_cdef_u32, 0x0123_4567_u32);
        for lane in 0..32 {
            assert_eq!(permlane16_source_lane(lane, lo, hi, false), (lane & !15) | (15 - (lane & 15)));
            assert_eq!(permlane16_source_lane(lane, lo, hi, true), ((lane & !15) ^ 16) | (15 - (lane & 15)));
        }
        let p = apply_permlane16(&x, ALL32 & !1, lo, hi, false, false, false, Gfx1250).unwrap();
        assert_eq!((p[15], p[14], p[0], p[1]), (DppLane::Off, DppLane::Value(x[1]), DppLane::Off, DppLane::Value(x[14])));
    }

    #[test]
    fn permlane_swaps() {
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = ((0..64).collect(), (100..164).collect());
        permlane_swap(&mut a, &mut b, u64::MAX, true, Target::Gfx950).unwrap();
        assert_eq!((a[0], a[16], a[31], a[48]), (0, 100, 115, 132));
        assert_eq!((b[0], b[15], b[16], b[32]), (16, 31, 116, 48));
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = ((0..64).collect(), (100..164).collect());
        permlane_swap(&mut a, &mut b, u64::MAX, false, Target::Gfx950).unwrap();
        assert_eq!((a[31], a[32], a[63], b[0], b[31], b[32]), (31, 100, 131, 32, 63, 132));
        // wave32 gfx1250: row 1 of vdst <-> row 0 of vsrc; permlane32_swap and gfx942 refused.
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = ((0..32).collect(), (100..132).collect());
        permlane_swap(&mut a, &mut b, ALL32, true, Gfx1250).unwrap();
        assert_eq!((a[16], b[0], b[16]), (100, 16, 116));
        assert!(permlane_swap(&mut a, &mut b, ALL32, false, Gfx1250).is_err());
        assert!(permlane_swap(&mut a, &mut b, ALL32, true, Gfx942).is_err());
        assert!(permlane_swap(&mut a, &mut b, ALL32 & !1, true, Gfx1250).is_err(), "half-active pair");
    }

    #[test]
    fn readlane_readfirstlane_writelane_mbcnt() {
        let x = input(32);
        assert_eq!(readlane(&x, 5), x[5]);
        assert_eq!(readlane(&x, 37), x[5], "lane number modulo the wave size");
        assert_eq!(readfirstlane(&x, 0b1000), x[3]);
        assert_eq!(readfirstlane(&x, 0), x[0], "EXEC = 0 reads lane 0");
        assert_eq!(readfirstlane(&x, 1 << 40), x[0], "bits above a wave32 are not lanes");
        let mut y = x.clone();
        writelane(&mut y, 33, 9);
        assert_eq!(y[1], 9);
        // mbcnt: lane l counts the set mask bits below it.
        let m: u64 = 0xf0f0_0000_ffff_0001;
        for lane in [0usize, 1, 17, 31, 32, 40, 63] {
            let lo = mbcnt_lo(lane, m as u32, 0);
            let both = mbcnt_hi(lane, (m >> 32) as u32, lo);
            assert_eq!(both, (m & ((1u128 << lane) - 1) as u64).count_ones(), "lane {lane}");
        }
        assert_eq!(mbcnt_hi(31, u32::MAX, 5), 5, "wave32 lanes have no high-half bits below them");
    }
}
