//! Table vocabulary: targets, encoding formats, fields and operand kinds.
//!
//! Used by the decoder (hx-isa) and the table generator (hx-isa-gen) alike.

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
    /// The 32-bit literal dword after the instruction, as a mandatory operand (KImm).
    Lit32,
    /// VOP1/VOP2: vector destination, bits 24:17.
    Vdst8,
    /// VOP*: 9-bit source 0 (scalar encodings, 256.. VGPRs), bits 8:0.
    Src0,
    /// VOP2/VOPC: VGPR source 1, bits 16:9.
    Vsrc1,
    /// No encoding field: an implicit operand LLVM prints (`vcc_lo` of VOPC, ...).
    Implicit,
    /// GFX12 SMEM: SGPR-pair base, bits 5:0 (register = 2 * value).
    SmemSbase,
    /// GFX12 SMEM: data SGPRs, bits 12:6.
    SmemSdata,
    /// GFX12 SMEM: cache policy (nv, scope, th), bits 24:20.
    SmemCpol,
    /// GFX12 SMEM: dword 1 (24-bit signed offset, scale_offset, soffset).
    SmemOffset,
    /// GFX12 SMEM: scale_offset, bit 56.
    SmemScale,
    /// GFX12 SMEM prefetches, which print offset and soffset as two operands: the signed
    /// 24-bit offset, bits 55:32, and the soffset SGPR, bits 63:57 (parts of `SmemOffset`).
    SmemImm24,
    SmemSoffset,
    /// GFX9 SMEM: dword 1 (offset / soffset), read with the imm (17) and soe (14) bits.
    G9SmemOffset,
    /// GFX9 SMEM: glc, bit 16.
    G9SmemGlc,
    /// GFX9 SMEM: nv, bit 15.
    G9SmemNv,
    /// VOP3: vector (or scalar, for compares) destination, bits 7:0.
    Vop3Vdst,
    /// VOP3: 9-bit sources in dword 1 (bits 40:32, 49:41, 58:50). Their neg (63:61) and abs
    /// (10:8) bits are read by the source kinds.
    Vop3Src0,
    Vop3Src1,
    Vop3Src2,
    /// VOP3: clamp, bit 15.
    Vop3Clamp,
    /// VOP3: output modifier, bits 60:59.
    Vop3Omod,
    /// VOP3: op_sel, bits 14:11.
    Vop3OpSel,
    /// VOP3 with a scalar destination (carry out), bits 14:8 (instead of abs and op_sel).
    Vop3Sdst,
    /// DS: the 16-bit offset field (offset0 in 7:0, offset1 in 15:8).
    DsOffset,
    /// GFX9 DS: gds, bit 16.
    DsGds,
    /// GFX9 DS: acc, bit 25: the data and destination registers are AGPRs (read by
    /// `operand::decode_fields` for every entry that does not list the field as unused).
    DsAcc,
    /// GFX12 DS: bits 16 and 17 (no operand; LLVM checks or ignores them).
    DsBit16,
    DsBit17,
    /// DS dword 1: address VGPR (39:32), data0 (47:40), data1 (55:48), destination (63:56).
    DsAddr,
    DsData0,
    DsData1,
    DsVdst,
    /// VOP3 neg (61..63) and abs (8..10) bits of one source, as constraints of opcodes that
    /// lack that source or its modifiers.
    Vop3Neg0,
    Vop3Neg1,
    Vop3Neg2,
    Vop3Abs0,
    Vop3Abs1,
    Vop3Abs2,
    /// GFX9 FLAT/GLOBAL/SCRATCH: the 13-bit offset, bits 12:0. GLOBAL and SCRATCH read it as
    /// a signed byte offset (-4096..=4095, two's complement in 13 bits): the effective address
    /// is `base + sext13(field)`. The operand is `Operand::Imm(field)` (raw, not sign-extended).
    FlatOffset,
    /// GFX9 FLAT: bit 13 (lds on GLOBAL/SCRATCH, sve on gfx940+ SCRATCH: a VGPR address is used).
    FlatLds,
    /// GFX9 FLAT: sc0 (glc; for atomics, "return the pre-op value"), bit 16.
    FlatSc0,
    /// GFX9 FLAT: nt (slc), bit 17.
    FlatNt,
    /// GFX9 FLAT (gfx940+): sc1, bit 25.
    FlatSc1,
    /// GFX9 FLAT: address VGPR(s), bits 39:32. GLOBAL: a 64-bit address pair when saddr is
    /// `off` (0x7f), else a 32-bit unsigned offset added to saddr.
    FlatVaddr,
    /// GFX9 FLAT: data VGPR(s) of stores and atomics, bits 47:40.
    FlatVdata,
    /// GFX9 FLAT: scalar address, bits 54:48: 0x7f is `off` (no scalar base), else an SGPR
    /// pair base (GLOBAL) or one SGPR (SCRATCH).
    FlatSaddr,
    /// GFX9 FLAT (gfx90a+): acc, bit 55: data/destination are AGPRs (not modelled yet).
    FlatAcc,
    /// GFX9 FLAT: destination VGPR(s), bits 63:56.
    FlatVdst,
    /// gfx1250 VGLOBAL/VSCRATCH/VFLAT (96-bit): scalar address, bits 6:0 (124 = `off`).
    VfSaddr,
    /// gfx1250 VFLAT: destination VGPR(s), bits 39:32.
    VfVdst,
    /// gfx1250 VFLAT: nv, bit 7.
    VfNv,
    /// gfx1250 VFLAT: scale_offset, bit 48 (the VGPR offset is scaled by the access size).
    VfScale,
    /// gfx1250 VSCRATCH: sve, bit 49 (a VGPR address is used).
    VfSve,
    /// gfx1250 VFLAT: cache policy, bits 54:50: scope in bits 1:0 of the value (51:50), th in
    /// bits 4:2 (54:52).
    VfCpol,
    /// gfx1250 VFLAT: data VGPR(s), bits 62:55.
    VfVdata,
    /// gfx1250 VFLAT: address VGPR(s), bits 71:64 (dword 2): a 64-bit address pair when saddr
    /// is `off`, else a 32-bit offset added to the SGPR-pair base.
    VfVaddr,
    /// gfx1250 VFLAT: the signed 24-bit byte offset, bits 95:72; `Operand::Imm(raw field)`,
    /// effective offset `sext24(field)`.
    VfOffset,
    /// VOP3P: op_sel, bits 13:11 (bit i: source i reads its high half for the low result).
    Vop3pOpSel,
    /// VOP3P: op_sel_hi, bits 59 (src0), 60 (src1), 14 (src2): value bit i is source i's.
    Vop3pOpSelHi,
    /// VOP3P: neg_lo, bits 63:61 (bit i: source i).
    Vop3pNegLo,
    /// VOP3P: neg_hi, bits 10:8 (bit i: source i).
    Vop3pNegHi,
    /// GFX9 MAI (MFMA): abid, bits 14:11 (cbsz is `Vop3pNegHi`'s bits 10:8, blgp
    /// `Vop3pNegLo`'s bits 63:61).
    MaiAbid,
    /// gfx950 scaled MFMA (a 16-byte pair `v_mfma_ld_scale_b32` + MFMA, held with the MFMA word
    /// in bits 63:0 and the ld_scale word in bits 127:64): the scale sources (ld_scale's src0
    /// bits 104:96, src1 113:105), op_sel (bits 76:75) and op_sel_hi (bits 124:123).
    MaiScaleSrc0,
    MaiScaleSrc1,
    MaiScaleOpSel,
    MaiScaleOpSelHi,
}

/// An instruction's fixed part as one little-endian integer: dword 0 in bits 31:0, dword 1 in
/// bits 63:32, dword 2 (the 96-bit GFX12 formats) in bits 95:64.
pub type Word = u128;

impl Field {
    /// (shift, width) of the field in the instruction's fixed part, read as a little-endian
    /// [`Word`] (dword 0 in bits 31:0, dword 1 in 63:32, dword 2 in 95:64). Width 0: not an
    /// encoding field.
    #[inline]
    pub fn bits(self) -> (u32, u32) {
        match self {
            Field::Sdst => (16, 7),
            Field::Ssrc0 => (0, 8),
            Field::Ssrc1 => (8, 8),
            Field::Simm16 => (0, 16),
            Field::Lit32 | Field::Implicit => (0, 0),
            Field::Vdst8 => (17, 8),
            Field::Src0 => (0, 9),
            Field::Vsrc1 => (9, 8),
            Field::SmemSbase => (0, 6),
            Field::SmemSdata => (6, 7),
            Field::SmemCpol => (20, 5),
            Field::SmemOffset => (32, 32),
            Field::SmemScale => (56, 1),
            Field::SmemImm24 => (32, 24),
            Field::SmemSoffset => (57, 7),
            Field::G9SmemOffset => (32, 32),
            Field::G9SmemGlc => (16, 1),
            Field::G9SmemNv => (15, 1),
            Field::Vop3Vdst => (0, 8),
            Field::Vop3Src0 => (32, 9),
            Field::Vop3Src1 => (41, 9),
            Field::Vop3Src2 => (50, 9),
            Field::Vop3Clamp => (15, 1),
            Field::Vop3Omod => (59, 2),
            Field::Vop3OpSel => (11, 4),
            Field::Vop3Sdst => (8, 7),
            Field::DsOffset => (0, 16),
            Field::DsGds => (16, 1),
            Field::DsAcc => (25, 1),
            Field::DsBit16 => (16, 1),
            Field::DsBit17 => (17, 1),
            Field::DsAddr => (32, 8),
            Field::DsData0 => (40, 8),
            Field::DsData1 => (48, 8),
            Field::DsVdst => (56, 8),
            Field::Vop3pOpSel => (11, 3),
            // Split field (59, 60, 14): read and written by `extract`/`insert`; the width is
            // the value's.
            Field::Vop3pOpSelHi => (59, 3),
            Field::Vop3pNegLo => (61, 3),
            Field::Vop3pNegHi => (8, 3),
            Field::MaiAbid => (11, 4),
            Field::MaiScaleSrc0 => (96, 9),
            Field::MaiScaleSrc1 => (105, 9),
            Field::MaiScaleOpSel => (75, 2),
            Field::MaiScaleOpSelHi => (123, 2),
            Field::Vop3Neg0 => (61, 1),
            Field::Vop3Neg1 => (62, 1),
            Field::Vop3Neg2 => (63, 1),
            Field::Vop3Abs0 => (8, 1),
            Field::Vop3Abs1 => (9, 1),
            Field::Vop3Abs2 => (10, 1),
            Field::FlatOffset => (0, 13),
            Field::FlatLds => (13, 1),
            Field::FlatSc0 => (16, 1),
            Field::FlatNt => (17, 1),
            Field::FlatSc1 => (25, 1),
            Field::FlatVaddr => (32, 8),
            Field::FlatVdata => (40, 8),
            Field::FlatSaddr => (48, 7),
            Field::FlatAcc => (55, 1),
            Field::FlatVdst => (56, 8),
            Field::VfSaddr => (0, 7),
            Field::VfVdst => (32, 8),
            Field::VfScale => (48, 1),
            Field::VfNv => (7, 1),
            Field::VfSve => (49, 1),
            Field::VfCpol => (50, 5),
            Field::VfVdata => (55, 8),
            Field::VfVaddr => (64, 8),
            Field::VfOffset => (72, 24),
        }
    }

    /// The field's value (0 for fields not in the encoding).
    #[inline]
    pub fn extract(self, word: Word) -> u32 {
        if self == Field::Vop3pOpSelHi {
            return ((word >> 59) & 3) as u32 | (((word >> 14) & 1) as u32) << 2;
        }
        let (s, w) = self.bits();
        if w == 0 {
            return 0;
        }
        ((word >> s) & ((1u128 << w) - 1)) as u32
    }

    pub fn insert(self, word: Word, v: u32) -> Word {
        if self == Field::Vop3pOpSelHi {
            let w = word & !((3 as Word) << 59 | 1 << 14);
            return w | ((v & 3) as Word) << 59 | (((v >> 2) & 1) as Word) << 14;
        }
        let (s, w) = self.bits();
        if w == 0 {
            return word;
        }
        let m = ((1u128 << w) - 1) << s;
        (word & !m) | (((v as u128) << s) & m)
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
    /// 16-bit operand LLVM prints as a plain integer: inline floats as their f16 bit pattern in
    /// hex, literals without `lit()` (the SOPC f16 compares).
    I16,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// Packed pair of halves (v2f16/v2i16) in 32 bits; literals print as lit() only when an
    /// inline integer could carry them.
    Pk16,
    /// As `Pk16`, but inline half constants also count (GFX9 packed operands).
    Pk16H,
    /// As `Pk16`, but inline bfloat16 constants also count.
    Pk16B,
    /// Packed pair of f32 (v2f32) in a 64-bit register pair (VOP3P v_pk_*_f32): registers as
    /// 64-bit operands, constants and literals printed as f32 ones.
    PkF32,
    /// 32-bit operand LLVM prints as a plain integer: inline floats as their f32 bit pattern in
    /// hex, literals without `lit()` (gfx1250 v_cvt_pk_fp8_f16 and friends).
    Plain32,
    /// 64-bit integer/bits.
    B64,
    /// 64-bit float.
    F64,
}

impl ValType {
    pub fn bits(self) -> u32 {
        match self {
            ValType::B16 | ValType::I16 | ValType::F16 | ValType::BF16 => 16,
            ValType::B32
            | ValType::F32
            | ValType::Pk16
            | ValType::Pk16H
            | ValType::Pk16B
            | ValType::PkF32
            | ValType::Plain32 => 32,
            ValType::B64 | ValType::F64 => 64,
        }
    }
    /// Register width in 32-bit units of a scalar operand of this type.
    pub fn dwords(self) -> u32 {
        if self.bits() == 64 || self == ValType::PkF32 {
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
    /// Decimal when the value is an inline integer, 0..=64; else `0x1e14`.
    IntOrHex,
    /// Unsigned decimal, and the operand is not printed at all when zero.
    UDecOmitZero,
    /// Unsigned decimal (branch offsets are printed this way by the C API disassembler).
    UDec,
    /// `hwreg(NAME, offset, size)`.
    Hwreg,
    /// `sendmsg(NAME[, OP[, stream]])`, `sendmsg(id, op, stream)` or decimal.
    SendMsg,
    /// `s_sendmsg_rtn_*` message id (8-bit field): `sendmsg(NAME)` or `sendmsg(id, 0, 0)`.
    SendMsgRtn,
    /// GFX9 `s_waitcnt` counters: `vmcnt(n) expcnt(n) lgkmcnt(n)`.
    Waitcnt,
    /// GFX12 `s_delay_alu instid0(..) | instskip(..) | instid1(..)`.
    DelayAlu,
    /// GFX12 `s_wait_alu` dependency counters `depctr_*(n)`.
    DepCtr,
}

/// How a VOP3 source's neg/abs bits behave. (The `Mods` prefix keeps the variant names apart
/// from other enums' in the generated tables, which glob-import them.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::enum_variant_names)]
pub enum SrcMods {
    /// Floating-point: printed `-x`, `|x|`, `-|x|`.
    ModsNegAbs,
    /// Not allowed: any bit set makes the word invalid.
    ModsInvalid,
    /// Ignored by LLVM.
    ModsIgnored,
    /// Floating-point neg only (the abs bits hold something else): printed `-x`.
    ModsNegOnly,
    /// Neg not allowed (a set neg bit makes the word invalid); the abs bits are not its.
    ModsNegInvalid,
}

/// How a mandatory literal is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KImmStyle {
    /// Always `0x...`.
    LitHex,
    /// Decimal for 0..=64, else `0x...`.
    LitIntOrHex,
    /// As a plain 32-bit immediate: inline integers in decimal, inline floats by value, else hex.
    LitPlain32,
    /// Hex, but LLVM reads a value 128..=208 or 240..=248 as the inline constant that encoding
    /// names and prints its 32-bit value (0xab prints 0x2b, 0xf1 prints 0xbf000000): the float
    /// KImm operands of s_fmaak_f32/s_fmamk_f32.
    LitHexInlineAlias,
    /// As `LitHexInlineAlias` for 16-bit KImms: the aliased constant's 16-bit value.
    LitHex16InlineAlias,
    /// A 64-bit KImm (gfx1250 v_fmamk_f64/v_fmaak_f64): the literal is two dwords, read whatever
    /// the other operands' literal form; `lit64(0x..)` when the high dword is zero, the high
    /// dword alone in hex when the low one is zero, else all 64 bits in hex.
    Lit64,
}

/// The shape of one operand: what the field holds and how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Scalar destination of `dwords` 32-bit registers (SGPR, VCC, TTMP, M0, EXEC, NULL).
    SDst { dwords: u8 },
    /// Scalar source: register, inline constant or literal, of the given type.
    SSrc(ValType),
    /// Scalar register source whose class admits no constant: LLVM still decodes constants
    /// and literals but prints them with an `/*Invalid immediate*/` note.
    SReg(ValType),
    /// As `SSrc`, but LLVM prints `m0` with a trailing space (gfx1250 barrier operands).
    SSrcM0Space(ValType),
    /// 16-bit immediate field.
    Imm16(Imm16),
    /// Mandatory 32-bit literal (`Field::Lit32`), printed in the given style.
    KImm(KImmStyle),
    /// Vector destination (8-bit field): VGPRs only.
    VDst { dwords: u8 },
    /// Vector source (9-bit field): scalar encodings as `SSrc`, 256.. are VGPRs.
    VSrc(ValType),
    /// VGPR source (8-bit field).
    VReg { dwords: u8 },
    /// As `VReg`, but LLVM prints a misaligned tuple without a note (gfx1250 v_fmamk_f64's
    /// vsrc1).
    VRegAnyAlign { dwords: u8 },
    /// As `VDst`, but LLVM prints a misaligned tuple without a note (the 96-bit transpose loads
    /// ds_load_tr6_b96, global_load_tr6_b96, gfx950 ds_read_b96_tr_b6).
    VDstAnyAlign { dwords: u8 },
    /// As `VDst`/`VReg` for operands of LLVM's AGPR-or-VGPR classes (`AV_*`): the same VGPRs,
    /// but misaligned tuples print with the `AV_.._Align2` class name (GFX9 DS).
    VDstAv { dwords: u8 },
    VRegAv { dwords: u8 },
    /// As `VSrc`, but the operand class is `VS_32_Lo128` (GFX12 16-bit operands without
    /// true16): v128 and up print with LLVM's invalid-register note.
    VSrcLo128(ValType),
    /// 9-bit source whose class (named as LLVM names it, e.g. `VGPR_32`) is VGPRs only: scalar
    /// registers print with LLVM's invalid-register note, constants with its invalid-immediate
    /// note. In VOP3, `idx` is the source number and `mods` its neg/abs bits' rule (never
    /// printed); elsewhere 0 and `ModsIgnored`.
    VSrcVgpr {
        dwords: u8,
        class: &'static str,
        idx: u8,
        mods: SrcMods,
    },
    /// VGPR source (8-bit field) of class `VGPR_32_Lo128`: v128 and up print with LLVM's note.
    VRegLo128 { dwords: u8 },
    /// 9-bit source whose class (as LLVM names it, e.g. `SReg_32`) admits no VGPR: VGPRs print
    /// with LLVM's invalid-register note, scalars as `SSrc(B32)`. `idx`/`mods` as for `VSrcVgpr`.
    VSrcSgpr {
        class: &'static str,
        idx: u8,
        mods: SrcMods,
    },
    /// Vector destination limited to v0..v127 (GFX12 16-bit results): v128 and up are invalid.
    VDstLo128 { dwords: u8 },
    /// GFX9 MAI (MFMA) destination (8-bit field) of `dwords` registers: AGPRs when acc_cd
    /// (bit 15) is set, else VGPRs; misaligned tuples print LLVM's `VReg_/AReg_.._Align2` note
    /// (`AV_.._Align2` with `av`: SMFMAC, whose D is also its accumulator).
    MaiDst { dwords: u8, av: bool },
    /// GFX9 MAI A (`idx` 0, src0) or B (`idx` 1, src1) matrix (9-bit field) of `dwords`
    /// registers: 256.. are VGPRs, AGPRs when the source's acc bit (59 + idx) is set; scalar
    /// registers and constants decode and print with LLVM's `AV_..` class notes.
    MaiSrc { dwords: u8, idx: u8 },
    /// GFX9 MAI C matrix (src2) of `dwords` registers: a VGPR tuple (AGPRs with acc_cd, bit
    /// 15), a scalar tuple (printed with LLVM's class note), or an inline constant or literal of
    /// type `ty`.
    MaiSrcC { dwords: u8, ty: ValType },
    /// A modifier field printed as `name:N` when non-zero: GFX9 MAI cbsz, abid, blgp, and the
    /// gfx1250 scaled conversions' `scale_sel` (the VOP3 op_sel field).
    MaiMod(&'static str),
    /// AGPR destination (8-bit field): `a10`, `a[10:13]` (v_accvgpr_write_b32, v_accvgpr_mov_b32).
    ADst { dwords: u8 },
    /// 9-bit source of LLVM's AGPR class `class` (`AGPR_32`): 256.. are AGPRs; scalar
    /// registers print with LLVM's invalid-register note, constants with its invalid-immediate
    /// note (as `VSrcVgpr`). `idx`/`mods` as for `VSrcVgpr`.
    ASrc {
        class: &'static str,
        idx: u8,
        mods: SrcMods,
    },
    /// Scalar destination in an 8-bit field (VOP3 compares): constants decode too and print
    /// with LLVM's invalid-immediate note.
    SDst8 { dwords: u8 },
    /// Scalar destination whose class excludes M0 (`SReg_32_XM0`): m0 prints with LLVM's
    /// invalid-register note.
    SDstNoM0 { dwords: u8 },
    /// An operand with no field that LLVM prints as this fixed text.
    Fixed(&'static str),
    /// Scalar destination of a class (named as LLVM names it) excluding M0 (`..XM0..`) and/or
    /// EXEC (`..XEXEC`): those print with LLVM's invalid-register note.
    SDstX { dwords: u8, class: &'static str },
    /// GFX12 SMEM base: SGPRs from 2 * field.
    SBase { dwords: u8 },
    /// GFX12 SMEM dword 1: `0x10` (soffset null) or `s5 offset:0x10`; signed 24-bit offset.
    SmemOff,
    /// VOP3 source `idx` (0..=2) of type `ty`, with its neg/abs bits read as `mods` says.
    VSrcM { ty: ValType, idx: u8, mods: SrcMods },
    /// VOP3 source `idx` whose class admits registers only (VGPRs and SGPRs): constants
    /// print with LLVM's invalid-immediate note. `mods` as for `VSrcM` (never printed).
    VSrcNoConst { dwords: u8, idx: u8, mods: SrcMods },
    /// VOP3 output modifier: `mul:2`, `mul:4`, `div:2`.
    Omod,
    /// VOP3 op_sel printed as `op_sel:[s0,..,dst]` with this many source bits, when non-zero.
    OpSel { srcs: u8 },
    /// VOP3 op_sel of `v_permlane16_b32`/`v_permlanex16_b32`: bit 0 fetch-inactive, bit 1
    /// bound_ctrl, printed `op_sel:[fi,bc]` when either is set; bits 2 and 3 are ignored.
    OpSelFiBc,
    /// VOP3 op_sel field (4 bits: sources 0..2, destination 3) of which only the bits in
    /// `opsel` are op_sel (printed as `OpSel { srcs }` prints them), the two bits that
    /// `byte_sel` names select a byte (printed `byte_sel:N` after op_sel), and every other bit
    /// must be clear (else the word is invalid). `byte_sel`: 0 none; 1 = bits 0 and 1 hold
    /// byte_sel bits 1 and 0 (the fp8 -> f32/f16 conversions); 2 = bits 2 and 3 hold byte_sel
    /// bits 0 and 1 (v_cvt_sr_*8).
    OpSelMasked { srcs: u8, opsel: u8, byte_sel: u8 },
    /// VOP3P per-source bits printed as `name:[b0,..]` (one bit per source, `srcs` of them)
    /// unless every bit equals `default` (0 or 1). Bits of absent sources must be clear
    /// (else the word is invalid), except op_sel_hi's, which LLVM ignores.
    PkBits {
        name: &'static str,
        srcs: u8,
        default: u8,
    },
    /// DS single offset: `offset:N` (decimal) when non-zero.
    DsOffset16,
    /// DS two offsets: `offset0:a offset1:b`, each printed when non-zero.
    DsOffsetPair,
    /// `ds_swizzle_b32` pattern (the 16-bit offset): `offset:swizzle(...)` in LLVM's named
    /// forms (QUAD_PERM, SWAP, REVERSE, BROADCAST, BITMASK_PERM, ROTATE, FFT), `offset:N` for
    /// values no form names, nothing for 0.
    DsSwizzle,
    /// GFX9 SMEM offset: `0x10` (imm), `s5` (SGPR offset), `s5 offset:0x10` (imm + soe).
    G9SmemOff,
    /// As `SmemOffset`, but a negative offset is invalid (buffer loads).
    SmemOffNonNeg,
    /// A one-bit modifier printed as this word after the operands.
    Flag(&'static str),
    /// GFX12 SMEM cache policy modifiers: `th:..`, `scope:..`, `nv`.
    SmemCachePolicy,
    /// GFX9 GLOBAL address (`Field::FlatVaddr`): with saddr `off` (bits 54:48 = 0x7f) a VGPR
    /// pair (misaligned pairs print LLVM's `VReg_64_Align2` note), else one VGPR.
    FlatVaddrG,
    /// GFX9 FLAT scalar address (`Field::FlatSaddr`) of `dwords` SGPRs: 0x7f prints `off`
    /// (decoded as `Operand::Implicit`; gfx1250: 124); with `xexec`, EXEC (pairs) prints with
    /// LLVM's `SReg_64_XEXEC_XNULL` note, exec_hi (single SGPR) with `SReg_32_XEXEC_HI`.
    FlatSaddrK { dwords: u8, xexec: bool },
    /// As `FlatSaddrK`, but `off` prints nothing (gfx1250 VFLAT).
    FlatSaddrOpt { dwords: u8, xexec: bool },
    /// GFX9 FLAT signed 13-bit offset (`Field::FlatOffset`): `offset:N` (decimal, signed) when
    /// non-zero; the operand is `Operand::Imm(raw 13-bit field)`.
    FlatOff13,
    /// SCRATCH address (`Field::FlatVaddr`, gfx1250 `Field::VfVaddr`): `off` (decoded as
    /// `Operand::Implicit`) unless the sve bit (GFX9 bit 13, gfx1250 bit 49) is set, then one
    /// VGPR.
    ScratchVaddr,
    /// GFX9 FLAT atomic destination (`Field::FlatVdst`): `dwords` VGPRs when sc0 (bit 16, "return
    /// the pre-op value") is set, else absent (decoded as `Operand::Implicit`, printed as
    /// nothing). Misaligned tuples print LLVM's `AV_..` (`av`) or `VReg_..` `_Align2` note.
    /// With the acc bit (55) set the registers are AGPRs (misaligned AGPR tuples carry no
    /// note). `acc`: whether LLVM accepts AGPRs in the returning form: 0 never, 1 only without
    /// sc1 (bit 25), 2 always (else the word is invalid).
    VDstRtn {
        dwords: u8,
        av: bool,
        acc: u8,
    },
    /// GFX9 FLAT atomic data (`Field::FlatVdata`): `dwords` VGPRs; LLVM's note on a misaligned
    /// tuple names `VReg_.._Align2` when sc0 (bit 16) is set, `AV_.._Align2` when not.
    /// AGPRs when the acc bit (55) is set (no note on misaligned AGPR tuples when returning).
    VDataRtn { dwords: u8 },
    /// GFX9 FLAT destination (`Field::FlatVdst`) / data (`Field::FlatVdata`) of `dwords`
    /// registers of LLVM's AV classes: VGPRs, or AGPRs when the acc bit (55) is set;
    /// misaligned tuples print the `AV_.._Align2` note.
    FlatDst { dwords: u8 },
    FlatData { dwords: u8 },
    /// GFX9 FLAT (seg 0) unsigned 13-bit offset (`Field::FlatOffset`): `offset:N` (decimal,
    /// 0..=8191) when non-zero; the operand is `Operand::Imm(field)`.
    FlatOff13U,
    /// gfx1250 VFLAT signed 24-bit offset (`Field::VfOffset`): `offset:N` (decimal) when non-zero.
    VfOff24,
    /// gfx1250 VFLAT cache policy (`Field::VfCpol`): `th:TH_LOAD_..`/`th:TH_STORE_..` (`store`),
    /// `scope:SCOPE_..`.
    VfCachePolicy { store: bool },
    /// gfx1250 VFLAT atomic cache policy (`Field::VfCpol`): `th:TH_ATOMIC_..` (th bit 0,
    /// word bit 52, is "return the pre-op value"), `scope:SCOPE_..`.
    VfAtomicCachePolicy,
    /// gfx1250 VFLAT atomic destination (`Field::VfVdst`): `dwords` VGPRs when th bit 0 (word
    /// bit 52, TH_ATOMIC_RETURN) is set, else absent (decoded as `Operand::Implicit`, printed
    /// as nothing). Misaligned tuples print LLVM's `VReg_.._Align2` note.
    VfVDstRtn { dwords: u8 },
    /// GFX12 SMEM prefetch offset (`Field::SmemImm24`): signed 24-bit, printed in hex;
    /// `non_neg`: a negative offset is invalid (buffer prefetches).
    SmemPrefetchOff { non_neg: bool },
    /// An unsigned immediate printed in decimal; values of `bits` bits or more are invalid (the
    /// SMEM prefetches' size in the data field).
    UImmDec { bits: u8 },
}

/// Constraint on an encoding field that does not hold an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unused {
    /// LLVM accepts other values, but this crate models only this one: other values are
    /// reported as unsupported.
    Unmodelled(u32),
    /// LLVM ignores the field.
    Ignored,
    /// The field must hold exactly this value, else the word is not a valid instruction.
    MustBe(u32),
    /// The bits of this mask must be clear (else the word is invalid); LLVM ignores the others
    /// (gfx950 v_cvt_pk_bf16_f32's op_sel: src2's bit must be clear).
    ZeroBits(u32),
}

/// One operand of a table entry, in LLVM's printing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OperandSpec {
    pub field: Field,
    pub kind: Kind,
}

/// An instruction's semantic id: one per mnemonic stem (the mnemonic without its encoding
/// suffix: `v_add_nc_u32` for `v_add_nc_u32_e32`, `_e64`, `_dpp`, `_sdwa`), assigned by the
/// table generator over every target's tables (crates/isa/src/tables/sem_ids.rs lists them,
/// with a constant each). hx-sem maps an id to what the instruction means, so no reader of
/// decoded instructions looks meanings up by spelling. [`SemId::NONE`]: an encoding modelled
/// by its own decoder family (buffer, MFMA, WMMA, tensor, VOPD pair), whose meaning is reached
/// through that family's typed fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SemId(pub u16);

impl SemId {
    /// No id (see the type's documentation).
    pub const NONE: SemId = SemId(u16::MAX);
}

/// The stem of a mnemonic: without the encoding suffixes `_e32`, `_e64`, `_dpp`, `_sdwa`,
/// `_e64_dpp`, `_fake16`, `_t16` (the table generator's and the decoder's one rule for
/// [`SemId`]s).
pub fn mnemonic_stem(mnemonic: &str) -> &str {
    let mut n = mnemonic;
    loop {
        let before = n;
        for suffix in ["_e32", "_e64", "_dpp", "_sdwa", "_fake16", "_t16", "_e64_dpp"] {
            if let Some(s) = n.strip_suffix(suffix) {
                n = s;
            }
        }
        if n == before {
            return n;
        }
    }
}

/// One opcode of one format of one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    /// The semantic id of the mnemonic's stem.
    pub sem: SemId,
    pub format: Format,
    /// Value of the format's opcode field.
    pub opcode: u16,
    pub operands: &'static [OperandSpec],
    /// Fields of the format that hold no operand, with their constraint.
    pub unused: &'static [(Field, Unused)],
}

/// The operand fields of a format, in a fixed order.
pub fn format_fields(family: Family, format: Format) -> &'static [Field] {
    match format {
        Format::Smem if family == Family::Gfx9 => &[
            Field::SmemSdata,
            Field::SmemSbase,
            Field::G9SmemOffset,
            Field::G9SmemGlc,
            Field::G9SmemNv,
        ],
        Format::Sop1 => &[Field::Sdst, Field::Ssrc0],
        Format::Sop2 => &[Field::Sdst, Field::Ssrc0, Field::Ssrc1],
        Format::Sopc => &[Field::Ssrc0, Field::Ssrc1],
        Format::Sopk => &[Field::Sdst, Field::Simm16],
        Format::Sopp => &[Field::Simm16],
        Format::Vop3p => &[
            Field::Vop3Vdst,
            Field::Vop3Src0,
            Field::Vop3Src1,
            Field::Vop3Src2,
            Field::Vop3pOpSel,
            Field::Vop3pOpSelHi,
            Field::Vop3pNegLo,
            Field::Vop3pNegHi,
            Field::Vop3Clamp,
        ],
        Format::Vop1 => &[Field::Vdst8, Field::Src0],
        Format::Vop2 => &[Field::Vdst8, Field::Src0, Field::Vsrc1],
        Format::Vopc => &[Field::Src0, Field::Vsrc1],
        Format::Smem => &[
            Field::SmemSdata,
            Field::SmemSbase,
            Field::SmemOffset,
            Field::SmemScale,
            Field::SmemCpol,
        ],
        Format::Ds if family == Family::Gfx9 => &[
            Field::DsVdst,
            Field::DsAddr,
            Field::DsData0,
            Field::DsData1,
            Field::DsOffset,
            Field::DsGds,
        ],
        Format::Ds => &[
            Field::DsVdst,
            Field::DsAddr,
            Field::DsData0,
            Field::DsData1,
            Field::DsOffset,
            Field::DsBit16,
            Field::DsBit17,
        ],
        Format::Global | Format::Scratch | Format::Flat if family == Family::Gfx12_5 => &[
            Field::VfVdst,
            Field::VfVaddr,
            Field::VfVdata,
            Field::VfSaddr,
            // LLVM prints offset, scale_offset, th and scope, then nv.
            Field::VfOffset,
            Field::VfScale,
            Field::VfCpol,
            Field::VfNv,
            Field::VfSve,
        ],
        Format::Global | Format::Scratch | Format::Flat if family == Family::Gfx9 => &[
            Field::FlatVdst,
            Field::FlatVaddr,
            Field::FlatVdata,
            Field::FlatSaddr,
            // LLVM prints offset, then sc0, nt, sc1.
            Field::FlatOffset,
            Field::FlatSc0,
            Field::FlatNt,
            Field::FlatSc1,
        ],
        Format::Vop3 => &[
            Field::Vop3Vdst,
            Field::Vop3Src0,
            Field::Vop3Src1,
            Field::Vop3Src2,
            // LLVM prints op_sel, then clamp, then the output modifier.
            Field::Vop3OpSel,
            Field::Vop3Clamp,
            Field::Vop3Omod,
        ],
        _ => &[],
    }
}

/// Fixed bits and opcode placement of a format: (mask, match, opcode shift, opcode width).
/// The same for both families for the SOP formats.
pub fn format_encoding(family: Family, format: Format) -> Option<(u32, u32, u32, u32)> {
    Some(match format {
        Format::Smem if family == Family::Gfx9 => (0xfc00_0000, 0xc000_0000, 18, 8),
        Format::Sop1 => (0xff80_0000, 0xbe80_0000, 8, 8),
        Format::Sopc => (0xff80_0000, 0xbf00_0000, 16, 7),
        Format::Sopp => (0xff80_0000, 0xbf80_0000, 16, 7),
        Format::Sopk => (0xf000_0000, 0xb000_0000, 23, 5),
        Format::Sop2 => (0xc000_0000, 0x8000_0000, 23, 7),
        Format::Vop1 => (0xfe00_0000, 0x7e00_0000, 9, 8),
        Format::Vopc => (0xfe00_0000, 0x7c00_0000, 17, 8),
        Format::Vop2 => (0x8000_0000, 0x0000_0000, 25, 6),
        Format::Smem => (0xfc00_0000, 0xf400_0000, 13, 6),
        Format::Ds => match family {
            Family::Gfx12_5 => (0xfc00_0000, 0xd800_0000, 18, 8),
            Family::Gfx9 => (0xfc00_0000, 0xd800_0000, 17, 8),
        },
        Format::Vop3p => match family {
            Family::Gfx12_5 => (0xff80_0000, 0xcc00_0000, 16, 7),
            Family::Gfx9 => (0xff80_0000, 0xd380_0000, 16, 7),
        },
        Format::Vop3 => match family {
            Family::Gfx12_5 => (0xfc00_0000, 0xd400_0000, 16, 10),
            Family::Gfx9 => (0xfc00_0000, 0xd000_0000, 16, 10),
        },
        // GFX9 FLAT: bits 15:14 (seg) select flat (0), scratch (1), global (2).
        Format::Flat if family == Family::Gfx9 => (0xfc00_c000, 0xdc00_0000, 18, 7),
        Format::Scratch if family == Family::Gfx9 => (0xfc00_c000, 0xdc00_4000, 18, 7),
        Format::Global if family == Family::Gfx9 => (0xfc00_c000, 0xdc00_8000, 18, 7),
        // gfx1250 VFLAT: bits 25:24 (seg) select flat (0), scratch (1), global (2).
        Format::Global => (0xff00_0000, 0xee00_0000, 14, 8),
        Format::Scratch => (0xff00_0000, 0xed00_0000, 14, 8),
        Format::Flat => (0xff00_0000, 0xec00_0000, 14, 8),
        _ => return None,
    })
}

/// Is `format` decoded from the tables for `target`?
pub fn modelled(_target: Target, format: Format) -> bool {
    if matches!(format, Format::Global | Format::Scratch | Format::Flat) {
        return true;
    }
    matches!(
        format,
        Format::Sop1
            | Format::Sop2
            | Format::Sopk
            | Format::Sopc
            | Format::Sopp
            | Format::Vop1
            | Format::Vop2
            | Format::Vopc
            | Format::Smem
            | Format::Vop3
            | Format::Vop3p
            | Format::Ds
    )
}

/// Bytes of the fixed part of a format (before any literal).
pub fn format_len(family: Family, format: Format) -> usize {
    match format {
        Format::Flat | Format::Global | Format::Scratch if family == Family::Gfx12_5 => 12,
        Format::Smem
        | Format::Vop3
        | Format::Vop3Sdst
        | Format::Vop3p
        | Format::Ds
        | Format::Flat
        | Format::Global
        | Format::Scratch
        | Format::Mubuf
        | Format::Vopd => 8,
        _ => 4,
    }
}

/// Number of opcode values a format has.
pub fn opcode_count(family: Family, format: Format) -> u32 {
    match format_encoding(family, format) {
        Some((_, _, _, w)) => {
            let n = 1u32 << w;
            match format {
                // SOPK opcodes 0x1d..0x1f are the SOP1/SOPC/SOPP prefixes; SOP2 0x60.. is SOPK and up.
                Format::Sopk => 0x1d,
                Format::Sop2 => 0x60,
                // VOP2 opcodes 0x3e/0x3f are the VOPC/VOP1 prefixes.
                Format::Vop2 => 0x3e,
                _ => n,
            }
        }
        None => 0,
    }
}

/// Encodings on which LLVM 22.1's disassembler itself aborts (an `llvm_unreachable`, seen as
/// SIGILL), so it cannot serve as the oracle: the table generator and the differential tests skip
/// them, and the decoder reports them as unsupported rather than print unverified text.
/// `lit` is the dword after the instruction word. Found by feeding LLVM every opcode of each
/// format with literal operands (and every KImm value), restarting it after each crash:
/// - gfx1250 SOP1 s_barrier_signal, s_barrier_signal_isfirst, s_get_barrier_state,
///   s_barrier_init, s_barrier_join, s_wakeup_barrier (opcodes 0x4e..=0x52, 0x57) with a 32-bit
///   literal source (ssrc0 = 255);
/// - the f16 KImm instructions (gfx1250 VOP2 v_fmamk_f16/v_fmaak_f16 0x37/0x38, GFX9 VOP2
///   v_madmk_f16/v_madak_f16 0x24/0x25) when the literal is 0xff;
/// - gfx1250 SMEM s_load_b96/s_buffer_load_b96 (opcodes 0x05/0x15) with TTMP data registers;
/// - gfx942 VOP3 compares (opcodes 0x10..=0xff) and v_readlane_b32 (0x289) with destination
///   field 255 (a segmentation fault);
/// - see [`oracle_crashes64`] for the 64-bit encodings whose second dword matters.
#[inline]
pub fn oracle_crashes(target: Target, word: u32, lit: u32) -> bool {
    let vop2 = word >> 31 == 0 && (word >> 25) < 0x3e;
    let vop2_op = (word >> 25) & 0x3f;
    match target {
        Target::Gfx1250 => {
            let sop1 = word & 0xff80_0000 == 0xbe80_0000;
            let op = (word >> 8) & 0xff;
            let smem = word & 0xfc00_0000 == 0xf400_0000;
            let smem_op = (word >> 13) & 0x3f;
            let sdata = (word >> 6) & 0x7f;
            let vop3p = word & 0xff80_0000 == 0xcc00_0000;
            let vop3p_op = (word >> 16) & 0x7f;
            (sop1 && (word & 0xff) == 255 && (matches!(op, 0x4e..=0x52) || op == 0x57))
                || (vop3p && matches!(vop3p_op, 0x33))
                || (vop2 && matches!(vop2_op, 0x37 | 0x38) && lit == 0xff)
                || (smem && matches!(smem_op, 0x05 | 0x15) && (108..=123).contains(&sdata))
        }
        Target::Gfx942 | Target::Gfx950 => {
            let vop3 = word & 0xfc00_0000 == 0xd000_0000;
            let vop3_op = (word >> 16) & 0x3ff;
            (vop2 && matches!(vop2_op, 0x24 | 0x25) && lit == 0xff)
                || (target == Target::Gfx942
                    && vop3
                    && (matches!(vop3_op, 0x10..=0xff) || vop3_op == 0x289)
                    && word & 0xff == 0xff)
        }
    }
}

/// The formats whose words [`oracle_crashes64`] can reject (every rule there starts from the
/// word's top bits): the decoder's fast path asks it only for these.
pub fn oracle_may_crash(family: Family, format: Format) -> bool {
    match family {
        Family::Gfx12_5 => matches!(format, Format::Sop1 | Format::Vop2 | Format::Smem | Format::Vop3p | Format::Vop3),
        Family::Gfx9 => matches!(format, Format::Vop2 | Format::Vop3 | Format::Vop3p),
    }
}

/// VOP1/VOP2/VOPC words whose src0 selects an extended encoding (DPP8, DPP16, SDWA): the
/// format they really are. Not modelled yet (LLVM 22 also aborts on some random SDWA words).
pub fn vop_extension(target: Target, word: u32) -> Option<Format> {
    let vop = word >> 31 == 0;
    if !vop {
        return None;
    }
    match (target.family(), word & 0x1ff) {
        (Family::Gfx12_5, 233 | 234 | 250) | (Family::Gfx9, 250) => Some(Format::Dpp),
        (Family::Gfx9, 249) => Some(Format::Sdwa),
        _ => None,
    }
}

/// As [`oracle_crashes`], for the 64-bit VOP3 encodings (dword 1 in bits 63:32 of `word`):
/// - gfx942 VOP3 with a literal source (any source field 255; GFX9 VOP3 has no literals);
/// - GFX9 VOP3 opcodes 0x3c0, 0x3c8, 0x3d0, 0x3dd with a scalar src2 (< 256);
/// - gfx950 VOP3 opcodes 0x254..=0x263 with a scalar src0 (< 256);
/// - gfx1250 VOP3 opcodes 0x2c7..=0x2cc with a TTMP src0 (108..=123).
/// - gfx950 VOP3P v_mfma_f32_{16x16x128,32x32x64}_f8f6f4 (opcodes 0x2d, 0x2e) with a 6- or
///   4-bit format for A or B (cbsz or blgp 2..=4) and A or B a TTMP, null, a negative or float
///   inline constant or a literal (encodings 108..=127, 193..=255).
#[inline]
pub fn oracle_crashes64(target: Target, word: u64, lit: u32) -> bool {
    let w0 = word as u32;
    if oracle_crashes(target, w0, lit) {
        return true;
    }
    // gfx1250 VOP3 v_cvt_scale_pk16_{f16,bf16,f32}_{fp6,bf6} (0x2c7..=0x2cc): a TTMP src0 (a
    // 96-bit tuple).
    let gfx1250_vop3 = target == Target::Gfx1250 && w0 & 0xfc00_0000 == 0xd400_0000;
    if gfx1250_vop3 && (0x2c7..=0x2cc).contains(&((w0 >> 16) & 0x3ff)) && (108..=123).contains(&((word >> 32) & 0x1ff)) {
        return true;
    }
    let gfx9_vop3 = target.family() == Family::Gfx9 && w0 & 0xfc00_0000 == 0xd000_0000;
    if !gfx9_vop3 {
        return false;
    }
    let op = (w0 >> 16) & 0x3ff;
    let src = |i: u32| ((word >> (32 + 9 * i)) & 0x1ff) as u32;
    let vop3p_op = (w0 >> 16) & 0x7f;
    let narrow = |c: u32| (2..=4).contains(&c);
    let bad_ab = |v: u32| (108..=127).contains(&v) || (193..=255).contains(&v);
    if target == Target::Gfx950
        && w0 & 0xff80_0000 == 0xd380_0000
        && matches!(vop3p_op, 0x2d | 0x2e)
        && (narrow((w0 >> 8) & 7) || narrow((word >> 61) as u32))
        && (bad_ab(src(0)) || bad_ab(src(1)))
    {
        return true;
    }
    (target == Target::Gfx942 && (0..3).any(|i| src(i) == 255))
        || (matches!(op, 0x3c0 | 0x3c8 | 0x3d0 | 0x3dd) && src(2) < 256)
        || (target == Target::Gfx950 && (0x254..=0x263).contains(&op) && src(0) < 256)
}
