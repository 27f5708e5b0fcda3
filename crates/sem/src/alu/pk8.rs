//! gfx1250's eight-element scaled conversions between 8-bit (or 4-bit) floats and f32/f16/bf16,
//! which Triton 3.9 emits for every `x.to(tl.float8e4nv)` / `x.to(tl.float8e5)` cast and back:
//!
//! - `v_cvt_scale_pk8_{f32,f16,bf16}_{fp8,bf8,fp4}` D, S0, S1 scale_sel:N (upcast): the eight
//!   elements of S0 (fp8/bf8: byte i of the 64-bit S0; fp4 OCP E2M1: nibble i of the 32-bit S0,
//!   low first) times the E8M0 scale that S1 and scale_sel pick, element i into D's dword i
//!   (f32) or D's half i (f16/bf16, low half first).
//! - `v_cvt_scalef32_pk8_{fp8,bf8}_{f32,f16}` D, S0, S1 (downcast): the eight f32 (or f16) of S0
//!   scaled by the f32 S1, rounded to nearest even into byte i of the 64-bit D.
//!
//! What is modelled, and why no more (the [`Pk8Op::check`] errors name the rest):
//! - The upcast's scale only as the constant E8M0 127 (2^0) with scale_sel 0: Triton's plain casts
//!   (`v_cvt_scale_pk8_f32_fp8 v[0:7], v[8:9], 0x7f`). scale_sel mixes a scale byte, a block
//!   size and a half of the wave whose scale VGPR each lane reads, and the two descriptions
//!   published (MLIR's AMDGPU dialect, Triton's AMD backend) disagree on its bit 3.
//! - The downcast's scale only as the constant 1.0: whether the value is multiplied or divided by
//!   a scale is not documented, and 1.0 is what Triton's casts pass.
//! - Downcast overflow: without saturation a finite overflow or an infinity becomes NaN (E4M3) or
//!   infinity (E5M2), as [`Fp8Fmt::from_f64`] states; with MODE.FP16_OVFL (MODE bit 23, which
//!   Triton sets at kernel entry before its fp8 casts) it saturates to the largest finite value,
//!   keeping NaN a NaN. Triton's `test_typeconvert_downcast_clamping` (max + 100, +-inf -> +-max,
//!   NaN -> NaN) passes on AMD hardware through that bit.
//! - Sources and results otherwise as the two-element conversions ([`Fp8Fmt`]): exact upcasts,
//!   NaN as the quiet NaN with the sign kept; input denormals follow the source type's mode.
//! - bf16 sources and fp4 destinations of the downcast are not modelled.

use super::fp8::Fp8Fmt;
use super::FpMode;
use hx_isa::{Instruction, Kind, Operand, Reg, ValType};

/// The 8- or 4-bit side of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Small {
    Fp8(Fp8Fmt),
    /// OCP MX fp4 (E2M1: bias 1, no infinity or NaN).
    Fp4,
}

/// The wide side of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wide {
    F32,
    F16,
    BF16,
}

impl Wide {
    fn parse(s: &str) -> Option<Wide> {
        Some(match s {
            "f32" => Wide::F32,
            "f16" => Wide::F16,
            "bf16" => Wide::BF16,
            _ => return None,
        })
    }
    /// Dwords of eight elements.
    fn dwords(self) -> u8 {
        match self {
            Wide::F32 => 8,
            Wide::F16 | Wide::BF16 => 4,
        }
    }
}

impl Small {
    fn parse(s: &str) -> Option<Small> {
        Some(match s {
            "fp8" => Small::Fp8(Fp8Fmt::E4M3),
            "bf8" => Small::Fp8(Fp8Fmt::E5M2),
            "fp4" => Small::Fp4,
            _ => return None,
        })
    }
    /// Dwords of eight elements.
    fn dwords(self) -> u8 {
        match self {
            Small::Fp8(_) => 2,
            Small::Fp4 => 1,
        }
    }
}

/// One of the eight-element conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pk8Op {
    /// `v_cvt_scale_pk8_<to>_<from>`.
    Up { from: Small, to: Wide },
    /// `v_cvt_scalef32_pk8_<to>_<from>`.
    Down { from: Wide, to: Small },
}

/// The scale of the modelled upcasts: E8M0 127, 2^0.
pub const UNIT_E8M0: u32 = 127;
/// The scale of the modelled downcasts: f32 1.0.
pub const UNIT_F32: u32 = 0x3f80_0000;

impl Pk8Op {
    /// The conversion a gfx1250 mnemonic names (not the stochastic-rounding `_sr_` forms).
    pub fn of(mnemonic: &str) -> Option<Pk8Op> {
        if let Some(rest) = mnemonic.strip_prefix("v_cvt_scale_pk8_") {
            let (to, from) = rest.split_once('_')?;
            return Some(Pk8Op::Up { from: Small::parse(from)?, to: Wide::parse(to)? });
        }
        let rest = mnemonic.strip_prefix("v_cvt_scalef32_pk8_")?;
        let (to, from) = rest.split_once('_')?;
        Some(Pk8Op::Down { from: Wide::parse(from)?, to: Small::parse(to)? })
    }

    /// Dwords of the source S0.
    pub fn src_dwords(self) -> u8 {
        match self {
            Pk8Op::Up { from, .. } => from.dwords(),
            Pk8Op::Down { from, .. } => from.dwords(),
        }
    }

    /// Dwords of the destination.
    pub fn dst_dwords(self) -> u8 {
        match self {
            Pk8Op::Up { to, .. } => to.dwords(),
            Pk8Op::Down { to, .. } => to.dwords(),
        }
    }

    /// Whether MODE.FP16_OVFL makes it saturate.
    pub fn is_downcast(self) -> bool {
        matches!(self, Pk8Op::Down { .. })
    }

    /// Whether this form is modelled, given scale_sel and the scale operand S1 (`Some` when it is
    /// a constant: its 32 bits). The error says what is not.
    pub fn check(self, scale_sel: u32, scale: Option<u32>) -> Result<(), String> {
        match self {
            Pk8Op::Up { .. } => {
                if scale_sel != 0 {
                    return Err(format!(
                        "scale_sel:{scale_sel} (it picks a scale byte, a block size and the half of the wave whose scale register each lane reads; the published descriptions disagree, so only scale_sel:0 is modelled)"
                    ));
                }
                match scale {
                    Some(s) if s & 0xff == UNIT_E8M0 => Ok(()),
                    _ => Err("a scale other than the constant E8M0 127 (1.0) is not modelled".into()),
                }
            }
            Pk8Op::Down { from, to } => {
                if from == Wide::BF16 {
                    return Err("bf16 sources (which denormal mode governs them is not documented) are not modelled".into());
                }
                if to == Small::Fp4 {
                    return Err("fp4 results are not modelled".into());
                }
                match scale {
                    Some(UNIT_F32) => Ok(()),
                    _ => Err("a scale other than the constant 1.0 is not modelled (whether the value is multiplied or divided by it is not documented)".into()),
                }
            }
        }
    }

    /// The instruction's D and S0 (first registers of their tuples), once its operands are the
    /// modelled form: `D, S0, S1 [scale_sel:N]`, checked by [`Pk8Op::check`] with S1's bits when it
    /// is a constant (a register scale is per lane, and scale_sel may name another lane's, so it
    /// is not modelled). The error says what is not modelled.
    pub fn operands(self, inst: &Instruction) -> Result<(Reg, Reg), String> {
        let scale_sel = inst.operands().find_map(|o| match (o.spec.kind, o.value) {
            (Kind::MaiMod(_), Operand::Imm(v)) => Some(v),
            _ => None,
        });
        let ops: Vec<Operand> = inst.operands().filter(|o| !matches!(o.spec.kind, Kind::MaiMod(_))).map(|o| o.value).collect();
        let [Operand::Reg(dst), Operand::Reg(src), scale] = ops[..] else { return Err("its operands".into()) };
        let scale_bits = match scale {
            Operand::Reg(_) => None,
            v => crate::operands::constant_value(&v, ValType::B32).map(|x| x as u32),
        };
        self.check(scale_sel.unwrap_or(0), scale_bits)?;
        Ok((dst, src))
    }

    /// An upcast of one lane's S0 (the low `src_dwords` dwords of `src`): the destination's
    /// dwords (the first `dst_dwords`).
    pub fn up(self, src: u64, m: &FpMode) -> [u32; 8] {
        let mut out = [0u32; 8];
        let Pk8Op::Up { from, to } = self else { return out };
        for i in 0..8 {
            let f32_bits = match from {
                Small::Fp8(f) => f.to_f32((src >> (8 * i)) as u8),
                Small::Fp4 => fp4_to_f32((src >> (4 * i)) as u32 & 0xf),
            };
            match to {
                Wide::F32 => out[i] = f32_bits,
                Wide::F16 => {
                    let h = match from {
                        Small::Fp8(f) => f.to_f16((src >> (8 * i)) as u8, m),
                        // Every E2M1 value is a normal f16 (or zero).
                        Small::Fp4 => f32_normal_to_f16(f32_bits),
                    };
                    out[i / 2] |= (h & 0xffff) << (16 * (i % 2));
                }
                // Every fp8/bf8/fp4 value has at most 3 significant bits and an exponent bf16
                // holds: its f32 bits' high half, exactly (NaN: the quiet NaN, sign kept).
                Wide::BF16 => out[i / 2] |= (f32_bits >> 16) << (16 * (i % 2)),
            }
        }
        out
    }

    /// A downcast of one lane's S0 (`src`, `src_dwords` dwords): the 64-bit destination.
    /// `saturate`: MODE.FP16_OVFL.
    pub fn down(self, src: &[u32], saturate: bool, m: &FpMode) -> u64 {
        let Pk8Op::Down { from, to: Small::Fp8(f) } = self else { return 0 };
        let mut out = 0u64;
        for i in 0..8 {
            let code = match from {
                Wide::F32 => f.from_f32(src.get(i).copied().unwrap_or(0), saturate, m),
                _ => f.from_f16(src.get(i / 2).copied().unwrap_or(0) >> (16 * (i % 2)), saturate, m),
            };
            out |= (code as u64) << (8 * i);
        }
        out
    }
}

/// The refusal of a 16-bit float result under MODE.FP16_OVFL, the emulator's and the raiser's.
pub const FP16_OVFL_UNMODELLED: &str = "a 16-bit float result under MODE.FP16_OVFL (MODE bit 23; its overflow rule is not modelled)";

/// Whether MODE.FP16_OVFL could change a WMMA's result in a way not modelled: a 16-bit float D
/// (as [`fp16_ovfl_reaches`] for the ALU operations).
pub fn wmma_fp16_ovfl_reaches(w: &hx_isa::wmma::Wmma) -> bool {
    matches!(w.shape.d, hx_isa::wmma::Elem::F16 | hx_isa::wmma::Elem::BF16)
}

/// Whether MODE.FP16_OVFL could change this ALU operation's result in a way not modelled: any
/// 16-bit float result (f16/bf16 scalars, packed halves, fma_mix into a half) other than the fp8
/// conversions, which saturate under it ([`super::fp8::Fp8Op::clamp_saturates`]). The GFX9 ISA
/// guides describe the bit as clamping an overflowing f16 result to the largest finite value;
/// which gfx1250 operations it reaches is not documented, so a kernel that sets it and computes
/// such a result is refused (by the emulator and the raiser alike).
pub fn fp16_ovfl_reaches(op: &super::AluOp) -> bool {
    use super::{float::MixDst, Op, Ty};
    match op.op {
        Op::Fp8(_) => false,
        Op::Pk(p) => p.is_float() && !p.is_wide(),
        Op::FmaMix(d) => !matches!(d, MixDst::F32 | MixDst::F32Bf16),
        _ => matches!(op.dst, Some(Ty::F16 | Ty::BF16)),
    }
}

/// f32 bits of an E2M1 nibble: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives (negative zero
/// included).
pub fn fp4_to_f32(n: u32) -> u32 {
    let sign = (n & 8) << 28;
    let (e, m) = ((n >> 1) & 3, n & 1);
    let mag = if e == 0 { if m != 0 { 0x3f00_0000 } else { 0 } } else { ((e + 126) << 23) | (m << 22) };
    sign | mag
}

/// f16 bits of an f32 with at most 11 significant bits whose value is 0 or a normal f16.
fn f32_normal_to_f16(x: u32) -> u32 {
    let sign = (x >> 16) & 0x8000;
    if x & 0x7fff_ffff == 0 {
        return sign;
    }
    let e = ((x >> 23) & 0xff) as i32 - 127 + 15;
    sign | ((e as u32) << 10) | ((x >> 13) & 0x3ff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics() {
        assert_eq!(Pk8Op::of("v_cvt_scale_pk8_f32_fp8"), Some(Pk8Op::Up { from: Small::Fp8(Fp8Fmt::E4M3), to: Wide::F32 }));
        assert_eq!(Pk8Op::of("v_cvt_scale_pk8_bf16_fp4"), Some(Pk8Op::Up { from: Small::Fp4, to: Wide::BF16 }));
        assert_eq!(Pk8Op::of("v_cvt_scalef32_pk8_bf8_f16"), Some(Pk8Op::Down { from: Wide::F16, to: Small::Fp8(Fp8Fmt::E5M2) }));
        assert_eq!(Pk8Op::of("v_cvt_scalef32_sr_pk8_fp8_f32"), None);
        assert_eq!(Pk8Op::of("v_cvt_scale_pk16_f32_fp6"), None);
    }

    #[test]
    fn fp4_values() {
        let want = [0.0f32, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        for n in 0..16u32 {
            let v = f32::from_bits(fp4_to_f32(n));
            let w = if n & 8 != 0 { -want[n as usize & 7] } else { want[n as usize & 7] };
            assert_eq!(v.to_bits(), w.to_bits(), "{n}");
            let h = f32_normal_to_f16(fp4_to_f32(n));
            let back = f64::from_bits(crate::alu::soft::convert(crate::alu::soft::F16, crate::alu::soft::F64, h as u64));
            assert_eq!((back as f32).to_bits(), w.to_bits(), "{n}");
        }
    }

    #[test]
    fn checks_name_what_is_not_modelled() {
        let up = Pk8Op::of("v_cvt_scale_pk8_f32_fp8").unwrap();
        assert!(up.check(0, Some(0x7f)).is_ok());
        assert!(up.check(8, Some(0x7f)).unwrap_err().contains("scale_sel:8"));
        assert!(up.check(0, Some(0x80)).is_err());
        assert!(up.check(0, None).is_err());
        let down = Pk8Op::of("v_cvt_scalef32_pk8_fp8_f32").unwrap();
        assert!(down.check(0, Some(UNIT_F32)).is_ok());
        assert!(down.check(0, Some(0x4000_0000)).is_err());
        assert!(Pk8Op::of("v_cvt_scalef32_pk8_fp8_bf16").unwrap().check(0, Some(UNIT_F32)).is_err());
    }
}
