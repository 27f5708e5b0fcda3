//! How each gfx1250 dense WMMA is lowered onto the target's matrix cores (MFMA), and where it
//! cannot be.
//!
//! The emulator defines WMMA (hx_sem::wmma) and MFMA (hx-emu's mfma) alike: exact products summed
//! in f64 in a fixed order, rounded once (f64 MFMA: a fused multiply-add per k); integers wrap in
//! i32. An MFMA reproduces a WMMA bit for bit when it sums the same products, in the same order,
//! from the same C, with one rounding to the same type. So a WMMA is never split into two f32
//! MFMAs (an f32 rounding in between), never rounded through f32 to a 16-bit result (double
//! rounding), and zero padding is `-0 * +0`, which adds nothing to any sum (`x + -0 == x` for
//! every x, `-0` included). Integer sums wrap, so they may be split and reordered freely.
//!
//! A target wave64 holds two source waves, one per 32-lane half (DESIGN.md). Each WMMA becomes
//! one MFMA chain per source wave; the two chains run in whole-wave mode (the other half's lanes
//! take part, whatever their EXEC). Layouts (`Layout`):
//! - `Spread`: the MFMA's K equals the WMMA's (or is twice it, with `pad`); each wave's A/B
//!   registers are spread over all 64 lanes with lane swaps (gfx950 v_permlane16/32_swap,
//!   gfx942 ds_bpermute); C and D are moved between the WMMA and MFMA layouts the same way.
//! - `HalfMasked`: each wave's MFMAs read A/B in place from its own half, the other half's A is
//!   zero; integers only (the K is split over `chunks` chained MFMAs).
//! - `F64`: a chain of v_mfma_f64_16x16x4_f64 per wave, four k per MFMA (fetched over the
//!   wave64 with ds_bpermute), elements converted to f64 exactly: each step is a fused
//!   multiply-add of an exact product, which is the emulator's WMMA sum step for step (in
//!   order: 8- and 4-bit elements of one width unscaled as a loop over the K halves, scaled
//!   or mixed-width ones by k and straight, 16-bit ones straight). Used
//!   where no MFMA of the element type covers the WMMA's K in one instruction, or where the
//!   result is 16-bit (an f32 MFMA would round twice).
//!
//! | WMMA (gfx1250)                     | gfx950                         | gfx942                     |
//! |------------------------------------|--------------------------------|----------------------------|
//! | v_wmma_f32_16x16x4_f32             | v_mfma_f32_16x16x4_f32, Spread | same                       |
//! | v_wmma_f32_16x16x32_f16 / _bf16    | v_mfma_f32_16x16x32_f16/_bf16, Spread | F64 (gfx942's f16/bf16 MFMAs stop at K=16) |
//! | v_wmma_f16_16x16x32_f16, v_wmma_bf16_16x16x32_bf16 | F64 (16-bit result) | F64             |
//! | v_wmma_f32_16x16x64_{fp8,bf8}_{fp8,bf8} | v_mfma_f32_16x16x128_f8f6f4 (OCP formats by cbsz/blgp), Spread with pad | F64 (gfx942's fp8/bf8 are FNUZ, K=32) |
//! | v_wmma_f16_16x16x64_{fp8,bf8}_{fp8,bf8} | F64 (16-bit result)       | F64                        |
//! | v_wmma_i32_16x16x64_iu8            | v_mfma_i32_16x16x64_i8, Spread | v_mfma_i32_16x16x32_i8, HalfMasked x4 |
//! | v_wmma_f32_16x16x128_f8f6f4, A and B fp8/bf8/fp4 of one width ([`plan_for`]) | F64 (32 steps) | F64 |
//! | v_wmma_f32_16x16x128_f8f6f4, A and B of two widths | v_mfma_f32_16x16x128_f8f6f4, KOrder | F64 |
//! | v_wmma_scale_f32_16x16x128_f8f6f4 (E8M0), A and B fp8/bf8/fp4 | v_mfma_scale_f32_16x16x128_f8f6f4, KOrder | F64, scaled |
//!
//! Scaled and mixed-width f8f6f4 sum in the order of k in the emulator (hx_sem::wmma), as
//! gfx950's 16x16x128 f8f6f4 MFMA does (hx-emu's mfma, its layout pinned by Triton's gfx950
//! dot_scaled builds with matrix_instr_nonkdim=16). `KOrder` puts each k where that MFMA reads
//! it: lane group g of a wave's operand holds the 16-byte chunks g and 4 + g of k (16 k of
//! 8-bit, 32 k of 4-bit elements), which the WMMA registers hold in lane half g % 2 at dwords
//! 4 (g / 2) and 8 + 4 (g / 2), so a v_permlane32_swap of dwords j and 4 + j of every 8-dword
//! run makes dword j of that run for both waves at once. Lane group g's scale is K block g's:
//! the WMMA's scale word for the row/column (lane i + 16 ROW of the wave), moved to every lane
//! group by lane swaps and shifted right by 8 g. One MFMA per wave then sums the same products
//! in the same order from the same C and rounds once: exact. (Scaled products of different
//! blocks can differ by up to 2^508, so the order shows; tests/tests/wmma_mfma.rs
//! `scaled_cancelling` builds such data.)
//!
//! Scaled (F64, gfx942): each element is multiplied in f64 by its K block's 2^(e - 127) (NaN
//! for 0xff), which is exact: E8M0 x fp8/bf8/fp4 values lie within 2^-143..2^143, and the
//! product of two within 2^-286..2^286, far inside f64's normal range. The chain then sums
//! exactly the emulator's products in the emulator's order (C, then the order of k), each
//! step's four k lying in one dword of each operand (hx_sem::wmma::k_place).
//!
//! Every dense WMMA the decoder models has an exact mapping on both targets; f8f6f4 with 6-bit
//! elements (which may straddle dwords) keeps the cross-lane path. Unsigned iu8
//! operands take extra MFMAs (an unsigned byte is its signed reading plus 256 times its top
//! bit). The correct-first path (ds_bpermute gathers and per-thread f64 sums) stays available:
//! [`WmmaLowering::CrossLane`], and is used for any shape [`plan`] does not map.

use hx_isa::wmma::{Elem, Shape, Wmma};
use hx_llvm::GpuTarget;

/// How the raiser lowers dense WMMA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WmmaLowering {
    /// Onto the target's MFMA instructions where [`plan`] maps the shape (the dense shapes
    /// with C = D and K <= 64 today); CrossLane for any other.
    #[default]
    Mfma,
    /// The correct-first path: each thread gathers its A rows and B columns with ds_bpermute
    /// and sums its eight results itself (target-independent).
    CrossLane,
}

impl WmmaLowering {
    pub fn name(self) -> &'static str {
        match self {
            WmmaLowering::Mfma => "mfma",
            WmmaLowering::CrossLane => "cross-lane",
        }
    }
    pub fn from_name(s: &str) -> Option<WmmaLowering> {
        [WmmaLowering::Mfma, WmmaLowering::CrossLane].into_iter().find(|w| w.name() == s)
    }
}

/// What the raiser needs to know beyond the code: the target (MFMA shapes differ) and the
/// WMMA lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RaiseOptions {
    pub target: GpuTarget,
    pub wmma: WmmaLowering,
}

impl RaiseOptions {
    pub fn new(target: GpuTarget) -> RaiseOptions {
        RaiseOptions { target, wmma: WmmaLowering::default() }
    }
}

/// How a WMMA's operands are placed in the MFMA's (module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Spread over all 64 lanes; `pad`: the MFMA's K is twice the WMMA's, every lane's second
    /// half of A/B being zeros.
    Spread { pad: bool },
    /// In place in each wave's own half, the other half's A zero, `chunks` MFMAs per wave.
    HalfMasked { chunks: u8 },
    /// v_mfma_f64_16x16x4_f64, four k per MFMA per wave.
    F64,
    /// gfx950's 16x16x128 f8f6f4 MFMA (scaled or not) summing in the order of k: each lane
    /// group of a wave's MFMA operand holds its k chunks (16 k of 8-bit, 32 of 4-bit elements)
    /// as the emulator's true-k reading places them, moved there from the WMMA registers with
    /// one v_permlane32_swap per dword pair (module comment).
    KOrder,
}

/// The MFMA lowering of one WMMA shape on one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MfmaPlan {
    /// The target instruction (as LLVM prints it).
    pub mnemonic: &'static str,
    /// The LLVM intrinsic that selects it.
    pub intrinsic: &'static str,
    pub layout: Layout,
    /// gfx950 f8f6f4 format codes of A (cbsz) and B (blgp): 0 = fp8 (E4M3), 1 = bf8 (E5M2),
    /// 4 = fp4 (E2M1).
    pub formats: (u32, u32),
}

const F64_PLAN: MfmaPlan =
    MfmaPlan { mnemonic: "v_mfma_f64_16x16x4_f64", intrinsic: "llvm.amdgcn.mfma.f64.16x16x4f64", layout: Layout::F64, formats: (0, 0) };

/// The MFMA lowering of `shape` on `target` (None: no exact mapping, the cross-lane path).
pub fn plan(shape: &Shape, target: GpuTarget) -> Option<MfmaPlan> {
    use Elem::*;
    let spread = |mnemonic, intrinsic| MfmaPlan { mnemonic, intrinsic, layout: Layout::Spread { pad: false }, formats: (0, 0) };
    // Planned and tested for the dense shapes whose C is D and whose K is at most 64; the rest
    // (bf16f32, K=128 fp8, f8f6f4, SWMMAC) keep the cross-lane path.
    if !has_plan(shape) {
        return None;
    }
    Some(match (target, shape.a, shape.d) {
        (GpuTarget::Gfx1250, ..) => return None,
        (_, F32, F32) => spread("v_mfma_f32_16x16x4_f32", "llvm.amdgcn.mfma.f32.16x16x4f32"),
        (GpuTarget::Gfx950, F16, F32) => spread("v_mfma_f32_16x16x32_f16", "llvm.amdgcn.mfma.f32.16x16x32.f16"),
        (GpuTarget::Gfx950, BF16, F32) => spread("v_mfma_f32_16x16x32_bf16", "llvm.amdgcn.mfma.f32.16x16x32.bf16"),
        (GpuTarget::Gfx950, Fp8 | Bf8, F32) => MfmaPlan {
            mnemonic: "v_mfma_f32_16x16x128_f8f6f4",
            intrinsic: "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4",
            layout: Layout::Spread { pad: true },
            formats: (shape.a.fmt().unwrap_or(0), shape.b.fmt().unwrap_or(0)),
        },
        (GpuTarget::Gfx950, Iu8, I32) => spread("v_mfma_i32_16x16x64_i8", "llvm.amdgcn.mfma.i32.16x16x64.i8"),
        (GpuTarget::Gfx942, Iu8, I32) => MfmaPlan {
            mnemonic: "v_mfma_i32_16x16x32_i8",
            intrinsic: "llvm.amdgcn.mfma.i32.16x16x32.i8",
            layout: Layout::HalfMasked { chunks: 4 },
            formats: (0, 0),
        },
        (_, F16 | BF16 | Fp8 | Bf8, F32 | F16 | BF16) => F64_PLAN,
        _ => return None,
    })
}

/// The MFMA lowering of a decoded WMMA on `target`: [`plan`] for its shape, and for f8f6f4
/// (K = 128, element types from the format fields; scaled or not) the f64 layout where A and B
/// are fp8, bf8 or fp4 (a step's four elements then lie in one dword; 6-bit ones may straddle
/// two, and keep the cross-lane path).
pub fn plan_for(m: &Wmma, target: GpuTarget) -> Option<MfmaPlan> {
    let s = m.shape;
    if s.form != hx_isa::wmma::Form::F8f6f4 {
        return plan(s, target);
    }
    let fits = |e: Elem| matches!(e, Elem::Fp8 | Elem::Bf8 | Elem::Fp4);
    let on_target = matches!(target, GpuTarget::Gfx942 | GpuTarget::Gfx950);
    if !(on_target && s.c == s.d && s.d == Elem::F32 && fits(m.a) && fits(m.b)) {
        return None;
    }
    // Summed in the order of k (scaled, or A and B of different widths): gfx950's MFMA sums so.
    if target == GpuTarget::Gfx950 && hx_sem::wmma::sums_by_k(m) {
        return Some(MfmaPlan {
            mnemonic: if m.scales.is_some() { "v_mfma_scale_f32_16x16x128_f8f6f4" } else { "v_mfma_f32_16x16x128_f8f6f4" },
            intrinsic: "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4",
            layout: Layout::KOrder,
            formats: (m.a.fmt().unwrap_or(0), m.b.fmt().unwrap_or(0)),
        });
    }
    Some(F64_PLAN)
}

/// Whether `plan` may map this shape (on gfx942/gfx950) at all.
pub fn has_plan(shape: &Shape) -> bool {
    shape.form == hx_isa::wmma::Form::Dense && shape.c == shape.d && shape.k <= 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dense_shape_has_a_plan_on_both_targets() {
        for s in hx_isa::wmma::SHAPES.iter().filter(|s| has_plan(s)) {
            for t in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
                let p = plan(s, t).unwrap_or_else(|| panic!("{} on {t:?}", s.mnemonic));
                let m = hx_isa::mai::by_mnemonic(if t == GpuTarget::Gfx942 { hx_isa::Target::Gfx942 } else { hx_isa::Target::Gfx950 }, p.mnemonic);
                assert!(m.is_some(), "{} is not an MFMA of {t:?}", p.mnemonic);
                // One MFMA chain may only split K where the sum is exact (integers) or f64.
                let m = m.unwrap();
                match p.layout {
                    Layout::Spread { pad } => assert_eq!(m.k, s.k * if pad { 2 } else { 1 }, "{}", s.mnemonic),
                    Layout::HalfMasked { chunks } => assert!(s.d == Elem::I32 && m.k * chunks as u32 == 2 * s.k),
                    Layout::F64 => assert_eq!(m.cd, hx_isa::mai::Elem::F64),
                    Layout::KOrder => unreachable!("plan() gives no f8f6f4 layout"),
                }
            }
        }
    }
}
