//! Table vocabulary: targets, encoding formats, fields and operand kinds.
//!
//! This file has no dependencies on anything else in the crate: the table generator
//! (`xtask/src/isa_tables.rs`) includes it with `#[path]`, so the generator and the decoder
//! share one definition of what an operand kind means.

/// A processor whose machine code this crate decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// GFX12.5, wave32.
    Gfx1250,
    /// CDNA3 (MI300), GFX9 family, wave64.
    Gfx942,
    /// CDNA4 (MI350), GFX9 family, wave64.
    Gfx950,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Gfx1250, Target::Gfx942, Target::Gfx950];

    pub fn family(self) -> Family {
        match self {
            Target::Gfx1250 => Family::Gfx12_5,
            Target::Gfx942 | Target::Gfx950 => Family::Gfx9,
        }
    }

    /// LLVM's processor name.
    pub fn cpu(self) -> &'static str {
        match self {
            Target::Gfx1250 => "gfx1250",
            Target::Gfx942 => "gfx942",
            Target::Gfx950 => "gfx950",
        }
    }
}

/// Encoding family: the two families have different register encodings and formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Gfx12_5,
    Gfx9,
}

/// Encoding format of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    Vop3Sdst,
    Vop3p,
    Vopd,
    Ds,
    Flat,
    Global,
    Scratch,
    Mubuf,
    Vbuffer,
    Vimage,
    Vsample,
    Sdwa,
    Dpp,
    /// A word no known format claims.
    Unknown,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Sop1 => "SOP1",
            Format::Sop2 => "SOP2",
            Format::Sopk => "SOPK",
            Format::Sopc => "SOPC",
            Format::Sopp => "SOPP",
            Format::Smem => "SMEM",
            Format::Vop1 => "VOP1",
            Format::Vop2 => "VOP2",
            Format::Vopc => "VOPC",
            Format::Vop3 => "VOP3",
            Format::Vop3Sdst => "VOP3_SDST",
            Format::Vop3p => "VOP3P",
            Format::Vopd => "VOPD",
            Format::Ds => "DS",
            Format::Flat => "FLAT",
            Format::Global => "GLOBAL",
            Format::Scratch => "SCRATCH",
            Format::Mubuf => "MUBUF",
            Format::Vbuffer => "VBUFFER",
            Format::Vimage => "VIMAGE",
            Format::Vsample => "VSAMPLE",
            Format::Sdwa => "SDWA",
            Format::Dpp => "DPP",
            Format::Unknown => "UNKNOWN",
        }
    }
}

/// A bit field of the first instruction dword(s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// SOP*: bits 22:16.
    Sdst,
    /// SOP*: bits 7:0.
    Ssrc0,
    /// SOP2/SOPC: bits 15:8.
    Ssrc1,
    /// SOPK/SOPP: bits 15:0.
    Simm16,
}

impl Field {
    /// (shift, width) of the field in the first dword.
    pub fn bits(self) -> (u32, u32) {
        match self {
            Field::Sdst => (16, 7),
            Field::Ssrc0 => (0, 8),
            Field::Ssrc1 => (8, 8),
            Field::Simm16 => (0, 16),
        }
    }

    pub fn extract(self, word: u32) -> u32 {
        let (s, w) = self.bits();
        (word >> s) & ((1u32 << w) - 1)
    }

    pub fn insert(self, word: u32, v: u32) -> u32 {
        let (s, w) = self.bits();
        let m = ((1u32 << w) - 1) << s;
        (word & !m) | ((v << s) & m)
    }
}

/// How a source operand's value is interpreted when it is an inline constant or a literal:
/// this decides LLVM's printing (and is the operand's semantic type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValType {
    /// 32-bit integer or untyped bits.
    B32,
    /// 32-bit float.
    F32,
    /// 16-bit integer/bits.
    B16,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// 64-bit integer/bits.
    B64,
    /// 64-bit float.
    F64,
}

impl ValType {
    pub fn bits(self) -> u32 {
        match self {
            ValType::B16 | ValType::F16 | ValType::BF16 => 16,
            ValType::B32 | ValType::F32 => 32,
            ValType::B64 | ValType::F64 => 64,
        }
    }
    /// Register width in 32-bit units of a scalar operand of this type.
    pub fn dwords(self) -> u32 {
        if self.bits() == 64 {
            2
        } else {
            1
        }
    }
}

/// How a 16-bit immediate (SOPK/SOPP) is printed and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Imm16 {
    /// `0x1e14`.
    Hex,
    /// Unsigned decimal (branch offsets are printed this way by the C API disassembler).
    UDec,
    /// `hwreg(NAME, offset, size)`.
    Hwreg,
}

/// The shape of one operand: what the field holds and how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Scalar destination of `dwords` 32-bit registers (SGPR, VCC, TTMP, M0, EXEC, NULL).
    SDst { dwords: u8 },
    /// Scalar source: register, inline constant or literal, of the given type.
    SSrc(ValType),
    /// 16-bit immediate field.
    Imm16(Imm16),
}

/// Constraint on an encoding field that does not hold an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unused {
    /// LLVM ignores the field.
    Ignored,
    /// The field must hold exactly this value, else the word is not a valid instruction.
    MustBe(u32),
}

/// One operand of a table entry, in LLVM's printing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperandSpec {
    pub field: Field,
    pub kind: Kind,
}

/// One opcode of one format of one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    pub format: Format,
    /// Value of the format's opcode field.
    pub opcode: u16,
    pub operands: &'static [OperandSpec],
    /// Fields of the format that hold no operand, with their constraint.
    pub unused: &'static [(Field, Unused)],
}

/// The operand fields of a format, in a fixed order.
pub fn format_fields(format: Format) -> &'static [Field] {
    match format {
        Format::Sop1 => &[Field::Sdst, Field::Ssrc0],
        Format::Sop2 => &[Field::Sdst, Field::Ssrc0, Field::Ssrc1],
        Format::Sopc => &[Field::Ssrc0, Field::Ssrc1],
        Format::Sopk => &[Field::Sdst, Field::Simm16],
        Format::Sopp => &[Field::Simm16],
        _ => &[],
    }
}

/// Fixed bits and opcode placement of a format: (mask, match, opcode shift, opcode width).
/// The same for both families for the SOP formats.
pub fn format_encoding(format: Format) -> Option<(u32, u32, u32, u32)> {
    Some(match format {
        Format::Sop1 => (0xff80_0000, 0xbe80_0000, 8, 8),
        Format::Sopc => (0xff80_0000, 0xbf00_0000, 16, 7),
        Format::Sopp => (0xff80_0000, 0xbf80_0000, 16, 7),
        Format::Sopk => (0xf000_0000, 0xb000_0000, 23, 5),
        Format::Sop2 => (0xc000_0000, 0x8000_0000, 23, 7),
        _ => return None,
    })
}

/// Number of opcode values a format has.
pub fn opcode_count(format: Format) -> u32 {
    match format_encoding(format) {
        Some((_, _, _, w)) => {
            let n = 1u32 << w;
            match format {
                // SOPK opcodes 0x1d..0x1f are the SOP1/SOPC/SOPP prefixes; SOP2 0x60.. is SOPK and up.
                Format::Sopk => 0x1d,
                Format::Sop2 => 0x60,
                _ => n,
            }
        }
        None => 0,
    }
}
