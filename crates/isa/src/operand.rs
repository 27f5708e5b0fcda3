//! Operands: decoding an encoding field under an operand kind, and printing it as LLVM does.
//!
//! Depends only on `spec` (as `super::spec`): the table generator includes this file too.

use super::spec::{Family, Imm16, Kind, Target, ValType};
use std::fmt::Write as _;

/// Register files and named registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegClass {
    Sgpr,
    Vgpr,
    Agpr,
    Ttmp,
    /// `vcc_lo` (index 0) / `vcc_hi` (index 1) / `vcc` (2 dwords).
    Vcc,
    Exec,
    M0,
    Null,
    FlatScratch,
    XnackMask,
    /// `src_flat_scratch_base_lo/hi`.
    FlatScratchBase,
    SharedBase,
    SharedLimit,
    PrivateBase,
    PrivateLimit,
    PopsExitingWaveId,
    /// `src_vccz`, `src_execz`, `src_scc`: read-only condition sources.
    Vccz,
    Execz,
    Scc,
    /// `src_lds_direct` (printed with LLVM's invalid-register note where the class forbids it).
    LdsDirect,
}

/// A register operand: class, index of the first 32-bit register, count of 32-bit registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: RegClass,
    pub index: u16,
    pub dwords: u8,
}

/// A decoded operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg),
    /// Inline integer constant, -16..=64.
    IntConst(i8),
    /// Inline float constant: the encoding 240..=248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi)).
    FloatConst(u8),
    /// A literal as encoded: `wide` is the 64-bit literal form (gfx1250, encoding 254).
    Literal { value: u64, wide: bool },
    /// A raw immediate field.
    Imm(u32),
}

/// Why an operand field does not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandError {
    /// The field value is not valid for the operand.
    Invalid,
    /// The literal runs past the end of the input.
    Truncated,
    /// A valid encoding this crate does not model yet.
    Unsupported,
}

/// Reads the literal that follows the instruction's fixed dwords. LLVM reads it once, at the
/// first operand that needs it, and every later literal operand shares it.
#[derive(Debug, Clone)]
pub struct LitReader<'a> {
    pub bytes: &'a [u8],
    /// Byte position of the literal (the size of the fixed part).
    pub at: usize,
    /// The literal once read: (value, wide).
    pub lit: Option<(u64, bool)>,
}

impl<'a> LitReader<'a> {
    pub fn new(bytes: &'a [u8], at: usize) -> LitReader<'a> {
        LitReader { bytes, at, lit: None }
    }

    /// Bytes the literal adds to the instruction.
    pub fn extra_len(&self) -> usize {
        match self.lit {
            None => 0,
            Some((_, false)) => 4,
            Some((_, true)) => 8,
        }
    }

    fn word(&self, i: usize) -> Option<u32> {
        let p = self.at + 4 * i;
        let b = self.bytes.get(p..p + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn read(&mut self, wide: bool) -> Result<(u64, bool), OperandError> {
        if let Some(l) = self.lit {
            return Ok(l);
        }
        let lo = self.word(0).ok_or(OperandError::Truncated)?;
        let l = if wide {
            let hi = self.word(1).ok_or(OperandError::Truncated)?;
            ((hi as u64) << 32 | lo as u64, true)
        } else {
            (lo as u64, false)
        };
        self.lit = Some(l);
        Ok(l)
    }
}

/// Decodes a scalar register/constant encoding (SSRC, 8 bits) or a scalar destination (7 bits).
/// `dst` restricts to what a destination may name.
fn decode_scalar(
    target: Target,
    v: u32,
    dwords: u8,
    ty: Option<ValType>,
    lits: &mut LitReader<'_>,
    warn: &mut String,
) -> Result<Operand, OperandError> {
    let fam = target.family();
    let wide = dwords >= 2;
    let reg = |class, index: u32, dwords| Operand::Reg(Reg { class, index: index as u16, dwords });
    let max_sgpr = match fam {
        Family::Gfx12_5 => 105,
        Family::Gfx9 => 101,
    };
    let align = |class_name: &str, idx: u32, warn: &mut String| -> u32 {
        let a = match dwords {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        if idx % a != 0 {
            let _ = write!(warn, "Warning: {}_{}: scalar reg isn't aligned {}", class_name, 32 * dwords as u32, idx);
        }
        idx - idx % a
    };
    if v <= max_sgpr {
        let idx = align("SGPR", v, warn);
        if idx + dwords as u32 - 1 > max_sgpr + if fam == Family::Gfx12_5 { 0 } else { 0 } && dwords > 2 {
            return Err(OperandError::Invalid);
        }
        return Ok(reg(RegClass::Sgpr, idx, dwords));
    }
    if (108..=123).contains(&v) {
        let idx = align("TTMP", v - 108, warn);
        return Ok(reg(RegClass::Ttmp, idx, dwords));
    }
    let lohi = |class, base: u32| -> Result<Operand, OperandError> {
        if wide {
            if v == base {
                Ok(reg(class, 0, dwords))
            } else {
                Err(OperandError::Invalid)
            }
        } else {
            Ok(reg(class, v - base, 1))
        }
    };
    match (fam, v) {
        (Family::Gfx9, 102 | 103) => return lohi(RegClass::FlatScratch, 102),
        (Family::Gfx9, 104 | 105) => return lohi(RegClass::XnackMask, 104),
        (_, 106 | 107) => return lohi(RegClass::Vcc, 106),
        (_, 126 | 127) => return lohi(RegClass::Exec, 126),
        (Family::Gfx12_5, 124) | (Family::Gfx9, 125) => return Ok(reg(RegClass::Null, 0, dwords)),
        (Family::Gfx12_5, 125) | (Family::Gfx9, 124) => {
            return if wide { Err(OperandError::Invalid) } else { Ok(reg(RegClass::M0, 0, 1)) }
        }
        _ => {}
    }
    let Some(ty) = ty else {
        return Err(OperandError::Invalid);
    };
    match v {
        128..=192 => Ok(Operand::IntConst((v - 128) as i8)),
        193..=208 => Ok(Operand::IntConst(-((v - 192) as i32) as i8)),
        230 => Ok(reg(RegClass::FlatScratchBase, 0, dwords)),
        231 if !wide => Ok(reg(RegClass::FlatScratchBase, 1, 1)),
        235 => Ok(reg(RegClass::SharedBase, 0, dwords)),
        236 => Ok(reg(RegClass::SharedLimit, 0, dwords)),
        237 => Ok(reg(RegClass::PrivateBase, 0, dwords)),
        238 => Ok(reg(RegClass::PrivateLimit, 0, dwords)),
        239 => Ok(reg(RegClass::PopsExitingWaveId, 0, dwords)),
        240..=248 => Ok(Operand::FloatConst(v as u8)),
        251 => Ok(reg(RegClass::Vccz, 0, dwords)),
        252 => Ok(reg(RegClass::Execz, 0, dwords)),
        253 => Ok(reg(RegClass::Scc, 0, dwords)),
        254 => match fam {
            Family::Gfx12_5 => {
                let (value, w) = lits.read(true)?;
                Ok(Operand::Literal { value, wide: w })
            }
            Family::Gfx9 => {
                if wide {
                    Err(OperandError::Invalid)
                } else {
                    Ok(reg(RegClass::LdsDirect, 0, 1))
                }
            }
        },
        255 => {
            let (value, w) = lits.read(false)?;
            Ok(Operand::Literal { value, wide: w })
        }
        _ => {
            let _ = ty;
            Err(OperandError::Invalid)
        }
    }
}

/// Decodes field value `v` as an operand of kind `kind`. Alignment warnings LLVM prints as a
/// comment are appended to `warn`.
pub fn decode_operand(
    target: Target,
    kind: Kind,
    v: u32,
    lits: &mut LitReader<'_>,
    warn: &mut String,
) -> Result<Operand, OperandError> {
    match kind {
        Kind::SDst { dwords } => decode_scalar(target, v, dwords, None, lits, warn),
        Kind::SSrc(ty) => decode_scalar(target, v, ty.dwords() as u8, Some(ty), lits, warn),
        Kind::Imm16(_) => Ok(Operand::Imm(v & 0xffff)),
    }
}

fn hex(out: &mut String, v: u64) {
    let _ = write!(out, "0x{v:x}");
}

const F32_INLINE: [u32; 9] =
    [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];
const F16_INLINE: [u16; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
const BF16_INLINE: [u16; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
const F64_INLINE: [u64; 9] = [
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xc010_0000_0000_0000,
    0x3fc4_5f30_6dc9_c882,
];
const FLOAT_TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];

fn float_const_text(code: u8, ty: ValType) -> &'static str {
    let i = (code - 240) as usize;
    if i < 8 {
        FLOAT_TEXT[i]
    } else if ty.bits() == 64 {
        "0.15915494309189532"
    } else {
        "0.15915494"
    }
}

/// Is `v` (of type `ty`'s width) a value the hardware could encode inline?
fn inline_value(v: u64, ty: ValType) -> Option<String> {
    match ty.bits() {
        16 => {
            let v16 = v as u16;
            let s = v16 as i16;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            let table = if ty == ValType::BF16 { &BF16_INLINE } else { &F16_INLINE };
            table.iter().position(|&x| x == v16).map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
        32 => {
            let v32 = v as u32;
            let s = v32 as i32;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            F32_INLINE.iter().position(|&x| x == v32).map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
        _ => {
            let s = v as i64;
            if (-16..=64).contains(&s) {
                return Some(s.to_string());
            }
            F64_INLINE.iter().position(|&x| x == v).map(|i| float_const_text(240 + i as u8, ty).to_string())
        }
    }
}

fn format_literal(out: &mut String, value: u64, wide: bool, ty: ValType) {
    match ty.bits() {
        16 => {
            let v = value as u16 as u64;
            if inline_value(v, ty).is_some() {
                out.push_str("lit(");
                hex(out, v);
                out.push(')');
            } else {
                hex(out, v);
            }
        }
        32 => {
            let v = value as u32 as u64;
            if inline_value(v, ty).is_some() {
                out.push_str("lit(");
                hex(out, v);
                out.push(')');
            } else {
                hex(out, v);
            }
        }
        _ => {
            if wide {
                if value >> 32 == 0 {
                    out.push_str("lit64(");
                    hex(out, value);
                    out.push(')');
                } else if let Some(t) = inline_value(value, ty) {
                    out.push_str(&t);
                } else {
                    hex(out, value);
                }
            } else {
                let v32 = value as u32 as u64;
                let full = if ty == ValType::F64 { v32 << 32 } else { v32 };
                if inline_value(full, ty).is_some() {
                    out.push_str("lit(");
                    hex(out, v32);
                    out.push(')');
                } else {
                    hex(out, v32);
                }
            }
        }
    }
}

/// Prints a register as LLVM does.
pub fn format_reg(out: &mut String, r: Reg) {
    let n = r.dwords as u32;
    let idx = r.index as u32;
    let file = |out: &mut String, p: &str| {
        if n == 1 {
            let _ = write!(out, "{p}{idx}");
        } else {
            let _ = write!(out, "{p}[{}:{}]", idx, idx + n - 1);
        }
    };
    let lohi = |out: &mut String, base: &str| {
        if n >= 2 {
            out.push_str(base);
        } else if idx == 0 {
            let _ = write!(out, "{base}_lo");
        } else {
            let _ = write!(out, "{base}_hi");
        }
    };
    match r.class {
        RegClass::Sgpr => file(out, "s"),
        RegClass::Vgpr => file(out, "v"),
        RegClass::Agpr => file(out, "a"),
        RegClass::Ttmp => {
            if n == 1 {
                let _ = write!(out, "ttmp{idx}");
            } else {
                let _ = write!(out, "ttmp[{}:{}]", idx, idx + n - 1);
            }
        }
        RegClass::Vcc => lohi(out, "vcc"),
        RegClass::Exec => lohi(out, "exec"),
        RegClass::FlatScratch => lohi(out, "flat_scratch"),
        RegClass::XnackMask => lohi(out, "xnack_mask"),
        RegClass::FlatScratchBase => {
            out.push_str(if idx == 0 { "src_flat_scratch_base_lo" } else { "src_flat_scratch_base_hi" })
        }
        RegClass::M0 => out.push_str("m0"),
        RegClass::Null => out.push_str("null"),
        RegClass::SharedBase => out.push_str("src_shared_base"),
        RegClass::SharedLimit => out.push_str("src_shared_limit"),
        RegClass::PrivateBase => out.push_str("src_private_base"),
        RegClass::PrivateLimit => out.push_str("src_private_limit"),
        RegClass::PopsExitingWaveId => out.push_str("src_pops_exiting_wave_id"),
        RegClass::Vccz => out.push_str("src_vccz"),
        RegClass::Execz => out.push_str("src_execz"),
        RegClass::Scc => out.push_str("src_scc"),
        RegClass::LdsDirect => {
            out.push_str("src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/")
        }
    }
}

/// Names of hardware registers for `hwreg(...)`, indexed by id (from the generated tables).
pub type HwregNames = &'static [Option<&'static str>];

/// Prints an operand of kind `kind` as LLVM does.
pub fn format_operand(out: &mut String, kind: Kind, op: &Operand, hwregs: HwregNames) {
    match (kind, *op) {
        (_, Operand::Reg(r)) => format_reg(out, r),
        (_, Operand::IntConst(i)) => {
            let _ = write!(out, "{i}");
        }
        (Kind::SSrc(ty), Operand::FloatConst(c)) => out.push_str(float_const_text(c, ty)),
        (Kind::SSrc(ty), Operand::Literal { value, wide }) => format_literal(out, value, wide, ty),
        (Kind::Imm16(style), Operand::Imm(v)) => format_imm16(out, style, v, hwregs),
        (_, other) => {
            let _ = write!(out, "<{other:?}>");
        }
    }
}

fn format_imm16(out: &mut String, style: Imm16, v: u32, hwregs: HwregNames) {
    match style {
        Imm16::Hex => hex(out, v as u64),
        Imm16::UDec => {
            let _ = write!(out, "{v}");
        }
        Imm16::Hwreg => {
            let id = v & 0x3f;
            let offset = (v >> 6) & 0x1f;
            let size = ((v >> 11) & 0x1f) + 1;
            out.push_str("hwreg(");
            match hwregs.get(id as usize).copied().flatten() {
                Some(name) => out.push_str(name),
                None => {
                    let _ = write!(out, "{id}");
                }
            }
            if !(offset == 0 && size == 32) {
                let _ = write!(out, ", {offset}, {size}");
            }
            out.push(')');
        }
    }
}
