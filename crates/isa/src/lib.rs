//! hx-isa: decoder and LLVM-syntax formatter for AMD GPU machine code.
//!
//! - [`decode`] turns the bytes at an offset into a structured [`Instruction`] (or a
//!   [`DecodeError`] naming the offset and raw bytes; never a panic, on any input).
//! - `Instruction`'s `Display` prints exactly what LLVM's disassembler prints.
//! - The opcode tables (`tables/*.rs`) are data generated from LLVM's disassembler by
//!   `cargo xtask tables` (code in crates/isa-gen, also runnable as
//!   `cargo run -p hx-isa --example gen_tables`); they hold every opcode's mnemonic, semantic
//!   id ([`SemId`], what hx-sem keys meanings on) and operand
//!   shapes (field, register class and width, value type, modifiers, immediate style) and the
//!   constraints on fields an opcode does not use. Each entry was fitted to LLVM's output and
//!   checked against it, whole-instruction, on random words; opcodes no model reproduces are
//!   listed in `UNSUPPORTED` with the reason.
//!
//! Formats decoded from the tables:
//! - gfx1250: SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2, VOPC (e32), VOP3 (incl. VOP3 with a
//!   carry-out SGPR, VOPC/VOP1/VOP2 promoted to e64), SMEM, DS; 32- and 64-bit literals;
//!   VGLOBAL/VSCRATCH/VFLAT (96-bit: `Instruction::word` holds dword 2 in bits 95:64) loads,
//!   stores, global_inv/wb/wbinv, operands named by `Field::Vf*` (atomics, whose
//!   atomics (their `th:TH_ATOMIC_RETURN` adds the destination; [`Instruction::vf_cpol`] reads
//!   th and scope); the block forms are reported as unsupported; the `*_async_to_lds_*` forms
//!   hold their LDS-address VGPR, an input, in the `Field::VfVdst` operand). SMEM prefetches
//!   print offset and soffset as two operands (`Field::SmemImm24`, `Field::SmemSoffset`).
//! - gfx942/gfx950: SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2, VOPC, VOP3 (VOP3a/VOP3b), SMEM,
//!   DS (VGPR data; the AGPR `acc` form is reported as unsupported), FLAT/GLOBAL/SCRATCH
//!   (loads, stores, atomics with and without return; VGPR data only: the `acc` bit 55 and
//!   the `*_lds_*` forms are reported as unsupported). Operands are named by `Field::Flat*`;
//!   `Instruction::mem_offset` holds the offset (sign-extended for GLOBAL/SCRATCH),
//!   `Instruction::cache` the sc0/sc1/nt bits. VOP3P: the packed ops (incl. the 2 x f32
//!   v_pk_*_f32 / v_pk_mov_b32 on 64-bit register pairs), the AGPR moves v_accvgpr_read/write
//!   (and VOP1 v_accvgpr_mov), and the matrix ops MFMA/SMFMAC, decoded by [`mai`] from a table
//!   of shapes. MUBUF buffer loads, stores, atomics and the cache-control forms
//!   (`buffer_wbl2`, `buffer_inv`) are decoded by [`mubuf`] from its opcode list; gfx1250
//!   VBUFFER buffer loads, stores and atomics by [`vbuffer`].
//!
//! Speed: [`decode`] and [`decode_into`] (which fills a caller's instruction in place, as LLVM
//! fills one `MCInst`: the one to use in a loop) first try a fast path (module `fast`: routes
//! over the first dword's top nine bits, decoding plans shared by the entries that decode
//! alike, and per-field-value tables of operand values made once by the general operand rules;
//! what the tables leave out, such as literals, goes to those rules); every word it does not
//! take, and every error, goes through the general path, which defines the result (a unit test
//! holds the two equal).
//!
//! Decoded outside the tables, from the ordinary entries: DPP16/DPP8 ([`dpp`]), GFX9 SDWA
//! ([`sdwa`]), VOPD ([`vopd`]), v_bitop3 ([`bitop3`]), gfx1250 WMMA ([`wmma`]); gfx1250
//! tensor_load_to_lds / tensor_store_from_lds ([`tensor`]); the gfx1250 true16 moves
//! `v_mov_b16_e32/e64`, whose operands name VGPR halves ([`true16`]).
//!
//! Everything else (MTBUF, MIMG, ...), the forms those modules leave out, and the
//! opcodes in `UNSUPPORTED` are reported as [`DecodeError::Unsupported`], never guessed. So are
//! the encodings on which LLVM 22 itself crashes ([`spec::oracle_crashes64`]): their text cannot
//! be checked.

pub use hx_isa_spec::operand;
pub mod mods;
pub mod msb;
pub use hx_isa_spec::spec;
pub mod tables;
pub mod barrier;
pub mod bitop3;
pub mod cpol;
pub mod mai;
pub mod mubuf;
pub mod sdwa;
pub mod tensor;
pub mod true16;
pub mod dpp;
mod fast;
#[doc(hidden)] // (for `cargo xtask fast-tables` and the test that the seeds are fresh)
pub use fast::fast_tables_source;
pub mod vbuffer;
pub mod vopd;
pub mod wmma;

pub use operand::{Operand, Reg, RegClass};
pub use spec::{mnemonic_stem, Family, Field, Format, Imm16, Kind, OpInfo, OperandSpec, SemId, Target, Unused, ValType};

use operand::OperandError;
use std::fmt;

pub use operand::{InstOperand, MAX_OPERANDS};

/// VALU source/output modifiers (all zero for scalar formats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// Per-source negate bits.
    pub neg: u8,
    /// Per-source absolute-value bits.
    pub abs: u8,
    pub clamp: bool,
    /// Output modifier (0 none, 1 *2, 2 *4, 3 /2).
    pub omod: u8,
    pub op_sel: u8,
    pub op_sel_hi: u8,
    /// VOP3P per-source neg_hi bits (negate the high half; `neg` holds neg_lo).
    pub neg_hi: u8,
    /// The byte (0..=3) that the fp8/bf8 conversions read (`byte_sel:N`): the source byte of
    /// v_cvt_f32_fp8 and friends, the destination byte of v_cvt_sr_fp8_*.
    pub byte_sel: u8,
}

/// Memory cache-policy bits. GFX9 FLAT/GLOBAL/SCRATCH: sc0 (bit 0; on atomics "return the
/// pre-op value"), sc1 (bit 1), nt (bit 2). 0 for the other formats (their policy bits, if
/// any, are operands: `Kind::SmemCachePolicy`, `Kind::Flag`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CachePolicy {
    pub bits: u16,
}

/// A decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub target: Target,
    /// The table entry: mnemonic, format, opcode, operand shapes.
    pub info: &'static OpInfo,
    /// Byte offset of the instruction in the decoded buffer.
    pub offset: usize,
    /// Length in bytes (including any literal).
    pub len: u8,
    /// The literal as encoded (value, 64-bit form), if the instruction has one.
    pub literal: Option<(u64, bool)>,
    pub mods: Modifiers,
    pub cache: CachePolicy,
    /// Memory offset field (unused by the scalar formats).
    pub mem_offset: i32,
    /// The instruction's fixed part (dword 0; dword 1 in bits 63:32 for 64-bit formats; dword 2
    /// in bits 95:64 for 96-bit formats): the value `Field::extract` reads.
    pub word: spec::Word,
    operands: [Option<InstOperand>; MAX_OPERANDS],
}

/// The entry of [`Instruction::empty`].
static NO_INFO: OpInfo = OpInfo { mnemonic: "", sem: spec::SemId::NONE, format: Format::Unknown, opcode: 0, operands: &[], unused: &[] };

impl Instruction {
    /// No instruction (empty mnemonic, no operands, length 0): a slot for [`decode_into`].
    pub fn empty(target: Target) -> Instruction {
        Instruction {
            target,
            info: &NO_INFO,
            offset: 0,
            len: 0,
            literal: None,
            mods: Modifiers::default(),
            cache: CachePolicy::default(),
            mem_offset: 0,
            word: 0,
            operands: [None; MAX_OPERANDS],
        }
    }

    pub fn mnemonic(&self) -> &'static str {
        self.info.mnemonic
    }
    /// The semantic id of the mnemonic's stem ([`SemId`]): what hx-sem keys meanings on.
    pub fn sem(&self) -> SemId {
        self.info.sem
    }
    pub fn format(&self) -> Format {
        self.info.format
    }
    pub fn operands(&self) -> impl Iterator<Item = &InstOperand> {
        self.operands.iter().flatten()
    }
    pub fn operand(&self, i: usize) -> Option<&InstOperand> {
        self.operands.get(i).and_then(|o| o.as_ref())
    }

    /// LLVM's text for this instruction.
    /// Whether LLVM marks an operand invalid (`/*Invalid register...*/`): a misaligned VGPR or
    /// AGPR tuple, which the hardware does not define. The text is only formatted when an
    /// operand is such a tuple.
    pub fn invalid_register(&self) -> bool {
        let misaligned = self.operands().any(|o| {
            matches!(o.value, Operand::Reg(r) if matches!(r.class, RegClass::Vgpr | RegClass::Agpr) && r.dwords >= 2 && r.index % 2 == 1)
        });
        misaligned && self.text().contains("/*Invalid register")
    }

    pub fn text(&self) -> String {
        if let Some(t) = self.vopd_text().or_else(|| self.sdwa_text()).or_else(|| self.dpp_text()).or_else(|| self.mubuf_text()).or_else(|| self.vbuffer_text()).or_else(|| self.bitop3_text()).or_else(|| self.wmma_text()).or_else(|| self.tensor_text()).or_else(|| self.true16_text()) {
            return t;
        }
        operand::format_inst(
            self.target,
            self.info.mnemonic,
            &self.operands,
            Some(self.word),
            tables::names(self.target),
        )
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// Why the bytes at an offset do not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a valid instruction for the target (LLVM agrees: it decodes nothing here).
    Invalid { offset: usize, bytes: Vec<u8> },
    /// The instruction (or its literal) runs past the end of the input.
    Truncated { offset: usize, bytes: Vec<u8> },
    /// A valid encoding this crate does not model yet.
    Unsupported {
        format: Format,
        offset: usize,
        bytes: Vec<u8>,
    },
}

impl DecodeError {
    pub fn offset(&self) -> usize {
        match self {
            DecodeError::Invalid { offset, .. }
            | DecodeError::Truncated { offset, .. }
            | DecodeError::Unsupported { offset, .. } => *offset,
        }
    }
    /// Is this LLVM's "not an instruction" verdict (as opposed to "not modelled here")?
    pub fn is_invalid(&self) -> bool {
        matches!(
            self,
            DecodeError::Invalid { .. } | DecodeError::Truncated { .. }
        )
    }
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Invalid { offset, bytes } => {
                write!(
                    f,
                    "invalid instruction at offset {offset:#x}: bytes [{}]",
                    hex_bytes(bytes)
                )
            }
            DecodeError::Truncated { offset, bytes } => {
                write!(
                    f,
                    "truncated instruction at offset {offset:#x}: bytes [{}]",
                    hex_bytes(bytes)
                )
            }
            DecodeError::Unsupported {
                format,
                offset,
                bytes,
            } => write!(
                f,
                "unsupported {} instruction at offset {offset:#x}: bytes [{}]",
                format.name(),
                hex_bytes(bytes)
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Which format the first dword belongs to, and whether this crate models it.
///
/// Every rule reads only bits 31:23 of the word, except GFX9 FLAT/SCRATCH/GLOBAL, which share
/// them and differ in bits 15:14: a table per family over the top nine bits answers the rest.
pub fn classify(target: Target, word: u32) -> Format {
    static TABLES: std::sync::OnceLock<[[Format; 512]; 2]> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let build = |t: Target| std::array::from_fn(|top| classify_slow(t, (top as u32) << 23));
        [build(Target::Gfx1250), build(Target::Gfx942)]
    });
    let fam = target.family();
    let f = tables[(fam == Family::Gfx9) as usize][(word >> 23) as usize];
    if fam == Family::Gfx9 && f == Format::Flat {
        return classify_slow(target, word);
    }
    f
}

/// The format rules, word by word ([`classify`] reads them from a table built with this).
fn classify_slow(target: Target, word: u32) -> Format {
    for f in [
        Format::Sop1,
        Format::Sopc,
        Format::Sopp,
        Format::Sopk,
        Format::Sop2,
        Format::Vop1,
        Format::Vopc,
        Format::Vop2,
        Format::Smem,
        Format::Vop3p,
        Format::Vop3,
        Format::Ds,
        Format::Global,
        Format::Scratch,
        Format::Flat,
    ] {
        if let Some((mask, m, _, _)) = spec::format_encoding(target.family(), f) {
            if word & mask == m {
                return f;
            }
        }
    }
    classify_other(target.family(), word)
}

/// Formats not modelled yet: named for the error message only.
fn classify_other(fam: Family, w: u32) -> Format {
    match fam {
        Family::Gfx12_5 => match w >> 25 {
            0x3f => Format::Vop1,
            0x3e => Format::Vopc,
            x if x >> 6 == 0 => Format::Vop2,
            _ => match w >> 26 {
                0x35 => Format::Vop3,
                // VOP3P proper (0xcc, bit 23 clear) is claimed above: 0xcf is VOPD3.
                0x33 if w >> 24 == 0xcf => Format::Vopd,
                0x33 => Format::Unknown,
                0x32 => Format::Vopd,
                0x3d => Format::Smem,
                0x36 => Format::Ds,
                0x3b => Format::Flat,
                _ => Format::Unknown,
            },
        },
        Family::Gfx9 => match w >> 25 {
            0x3f => Format::Vop1,
            0x3e => Format::Vopc,
            x if x >> 6 == 0 => Format::Vop2,
            _ => match w >> 26 {
                0x34 => Format::Vop3,
                0x30 => Format::Smem,
                0x36 => Format::Ds,
                0x37 => Format::Flat,
                0x38 => Format::Mubuf,
                _ => Format::Unknown,
            },
        },
    }
}

/// The bytes an error message shows: the dwords at `offset` (up to 12 bytes).
fn raw(bytes: &[u8], offset: usize, n: usize) -> Vec<u8> {
    let end = offset.saturating_add(n).min(bytes.len());
    bytes
        .get(offset..end)
        .map(|b| b.to_vec())
        .unwrap_or_default()
}

/// Decodes the instruction at `bytes[offset..]`.
#[inline]
pub fn decode(target: Target, bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let mut out = Instruction::empty(target);
    decode_into(target, bytes, offset, &mut out)?;
    Ok(out)
}

/// [`decode`] into an instruction the caller keeps, as LLVM's `getInstruction` fills an
/// `MCInst`: a loop over a code section reuses one [`Instruction`] and moves none. On `Ok`,
/// `out` is exactly what `decode` returns; on `Err`, `out` holds no meaningful instruction.
#[inline]
pub fn decode_into(target: Target, bytes: &[u8], offset: usize, out: &mut Instruction) -> Result<(), DecodeError> {
    // One copy per target, so the fast path's per-target and per-family tests fold away.
    match target {
        Target::Gfx1250 => decode_into_for::<0>(bytes, offset, out),
        Target::Gfx942 => decode_into_for::<1>(bytes, offset, out),
        Target::Gfx950 => decode_into_for::<2>(bytes, offset, out),
    }
}

/// [`decode_into`] for `Target::ALL[T]`.
#[inline(always)]
fn decode_into_for<const T: usize>(bytes: &[u8], offset: usize, out: &mut Instruction) -> Result<(), DecodeError> {
    let target = Target::ALL[T];
    let inst = bytes.get(offset..).unwrap_or(&[]);
    if let Some(hit) = fast::route(target, inst) {
        if fast_fill(target, &hit, inst, offset, out) {
            return Ok(());
        }
    }
    *out = decode_general(target, bytes, offset)?;
    Ok(())
}

/// The fast path's instruction: every field written (see [`fast::fill`]).
#[inline(always)]
fn fast_fill(target: Target, hit: &fast::Hit, inst: &[u8], offset: usize, out: &mut Instruction) -> bool {
    out.target = target;
    out.info = hit.info;
    out.offset = offset;
    out.mods = Modifiers::default();
    out.cache = CachePolicy::default();
    out.mem_offset = 0;
    out.word = hit.word;
    fast::fill(target, hit, inst, out)
}

/// The mnemonic of the instruction at `offset` when LLVM decodes it and the tables list it as
/// not modelled yet (`UNSUPPORTED`): for errors that name what was refused, e.g. `v_s_exp_f16`
/// (an SGPR-only 16-bit source the operand kinds do not describe).
pub fn unsupported_mnemonic(target: Target, bytes: &[u8], offset: usize) -> Option<&'static str> {
    let w = bytes.get(offset..offset.checked_add(4)?)?;
    let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let format = classify(target, word);
    let (_, _, shift, width) = spec::format_encoding(target.family(), format)?;
    let opcode = (word >> shift) & ((1 << width) - 1);
    tables::unsupported(target)
        .iter()
        .find(|&&(f, op, _, _)| f == format && op as u32 == opcode)
        .and_then(|&(_, _, text, _)| text.split_whitespace().next())
}

/// [`decode`] for every word: the definition the fast path (`fast`) agrees with.
#[inline(never)]
fn decode_general(target: Target, bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let Some(w) = inst.get(0..4) else {
        return Err(DecodeError::Truncated {
            offset,
            bytes: raw(bytes, offset, 4),
        });
    };
    let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let format = classify(target, word);
    if target == Target::Gfx1250 {
        if let Some(r) = wmma::decode(bytes, offset) {
            return r;
        }
        if matches!(format, Format::Vop1 | Format::Vop2) && word & true16::VOP1_VDST_HIGH != 0 {
            if let Some(i) = true16::decode_high_destination(format, bytes, offset, word) {
                return Ok(i);
            }
        }
    }
    if format == Format::Vopd {
        return vopd::decode_vopd(bytes, offset);
    }
    if target == Target::Gfx1250 && word & tensor::MASK == tensor::MATCH {
        return tensor::decode_tensor(bytes, offset);
    }
    if target == Target::Gfx1250 && word & vbuffer::MASK == vbuffer::MATCH {
        return vbuffer::decode_vbuffer(bytes, offset);
    }
    if format == Format::Mubuf && target.family() == Family::Gfx9 {
        return mubuf::decode_mubuf(target, bytes, offset);
    }
    let lit = inst
        .get(4..8)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0);
    if let Some(ext) = spec::vop_extension(target, word) {
        if ext == Format::Sdwa {
            return sdwa::decode_sdwa(target, bytes, offset);
        }
        if ext == Format::Dpp {
            return dpp::decode_dpp(target, bytes, offset);
        }
        return Err(DecodeError::Unsupported {
            format: ext,
            offset,
            bytes: raw(bytes, offset, 12),
        });
    }
    if format == Format::Vop3 && dpp::is_vop3_dpp(target, word, lit) {
        return dpp::decode_dpp(target, bytes, offset);
    }
    if spec::oracle_crashes(target, word, lit) {
        return Err(DecodeError::Unsupported {
            format,
            offset,
            bytes: raw(bytes, offset, 8),
        });
    }
    let Some((_, _, shift, width)) =
        spec::format_encoding(target.family(), format).filter(|_| spec::modelled(target, format))
    else {
        return Err(DecodeError::Unsupported {
            format,
            offset,
            bytes: raw(bytes, offset, 8),
        });
    };
    let opcode = (word >> shift) & ((1 << width) - 1);
    if true16::is_true16_opcode(target, format, opcode) {
        return true16::decode_true16(target, format, bytes, offset, word);
    }
    if format == Format::Vop3 && bitop3::is_bitop3_opcode(target, opcode as u16) {
        let Some(d1) = inst.get(4..8) else {
            return Err(DecodeError::Truncated { offset, bytes: raw(bytes, offset, 8) });
        };
        let w = word as u64 | (u32::from_le_bytes([d1[0], d1[1], d1[2], d1[3]]) as u64) << 32;
        return bitop3::decode_bitop3(target, bytes, offset, w);
    }
    if target == Target::Gfx950 && format == Format::Vop3p && opcode == mai::LD_SCALE_OPCODE as u32 {
        if let Some(d1) = inst.get(4..8) {
            let w = word as u64 | (u32::from_le_bytes([d1[0], d1[1], d1[2], d1[3]]) as u64) << 32;
            if let Some(r) = mai::decode_scale_pair(target, bytes, offset, w) {
                return r;
            }
        }
    }
    if target.family() == Family::Gfx9 && format == Format::Vop3p && mai::by_opcode(target, opcode as u16).is_some() {
        let Some(d1) = inst.get(4..8) else {
            return Err(DecodeError::Truncated { offset, bytes: raw(bytes, offset, 8) });
        };
        let w = word as u64 | (u32::from_le_bytes([d1[0], d1[1], d1[2], d1[3]]) as u64) << 32;
        if spec::oracle_crashes64(target, w, lit) {
            return Err(DecodeError::Unsupported { format, offset, bytes: raw(bytes, offset, 12) });
        }
        if let Some(r) = mai::decode_mai(target, bytes, offset, w) {
            return r;
        }
    }
    let table = tables::table(target, format);
    let Some(info) = table.get(opcode as usize).and_then(|e| e.as_ref()) else {
        if tables::is_unsupported(target, format, opcode) {
            return Err(DecodeError::Unsupported {
                format,
                offset,
                bytes: raw(bytes, offset, 8),
            });
        }
        return Err(DecodeError::Invalid {
            offset,
            bytes: raw(bytes, offset, 4),
        });
    };
    let flen = spec::format_len(target.family(), format);
    let word64 = if flen >= 8 {
        let Some(d1) = inst.get(4..8) else {
            return Err(DecodeError::Truncated {
                offset,
                bytes: raw(bytes, offset, 8),
            });
        };
        word as u64 | (u32::from_le_bytes([d1[0], d1[1], d1[2], d1[3]]) as u64) << 32
    } else {
        word as u64
    };
    if spec::oracle_crashes64(target, word64, lit) {
        return Err(DecodeError::Unsupported {
            format,
            offset,
            bytes: raw(bytes, offset, 12),
        });
    }
    let mut word64 = word64 as spec::Word;
    if flen == 12 {
        let Some(d2) = inst.get(8..12) else {
            return Err(DecodeError::Truncated {
                offset,
                bytes: raw(bytes, offset, 12),
            });
        };
        word64 |= (u32::from_le_bytes([d2[0], d2[1], d2[2], d2[3]]) as spec::Word) << 64;
    }
    let mut out = Instruction {
        target,
        info,
        offset,
        len: 0,
        literal: None,
        mods: Modifiers::default(),
        cache: cache_policy(info, word64),
        mem_offset: mem_offset(info, word64),
        word: word64,
        operands: [None; MAX_OPERANDS],
    };
    match operand::decode_fields_into(target, info, word64, inst, &mut out.operands) {
        Ok((len, literal)) => {
            out.len = len as u8;
            out.literal = literal;
            Ok(out)
        }
        Err(OperandError::Invalid) => Err(DecodeError::Invalid {
            offset,
            bytes: raw(bytes, offset, 4),
        }),
        Err(OperandError::Truncated) => Err(DecodeError::Truncated {
            offset,
            bytes: raw(bytes, offset, 12),
        }),
        Err(OperandError::Unsupported) => Err(DecodeError::Unsupported {
            format,
            offset,
            bytes: raw(bytes, offset, 8),
        }),
    }
}

/// The byte offset of a memory instruction's offset operand (GFX9 FLAT: `FlatOff13` signed,
/// `FlatOff13U` unsigned; gfx1250 VFLAT: `VfOff24` signed); 0 for other instructions.
fn mem_offset(info: &OpInfo, word: spec::Word) -> i32 {
    if !matches!(info.format, Format::Flat | Format::Global | Format::Scratch) {
        return 0;
    }
    for s in info.operands {
        let v = s.field.extract(word);
        match s.kind {
            Kind::FlatOff13 => return ((v & 0x1fff) << 19) as i32 >> 19,
            Kind::VfOff24 => return ((v & 0xff_ffff) << 8) as i32 >> 8,
            Kind::FlatOff13U => return (v & 0x1fff) as i32,
            _ => {}
        }
    }
    0
}

/// GFX9 FLAT cache-policy bits as [`CachePolicy::bits`]: sc0 (bit 0), sc1 (bit 1), nt (bit 2)
/// (LLVM's CPol GLC/SCC/SLC order); 0 for other instructions.
fn cache_policy(info: &OpInfo, word: spec::Word) -> CachePolicy {
    if !matches!(info.format, Format::Flat | Format::Global | Format::Scratch) {
        return CachePolicy::default();
    }
    let mut bits = 0u16;
    for s in info.operands {
        let b = match s.field {
            Field::FlatSc0 => 1,
            Field::FlatSc1 => 2,
            Field::FlatNt => 4,
            _ => continue,
        };
        if s.field.extract(word) != 0 {
            bits |= b;
        }
    }
    CachePolicy { bits }
}

/// Decodes a whole buffer, instruction after instruction, stopping at the first error.
pub fn decode_all(target: Target, bytes: &[u8]) -> Result<Vec<Instruction>, DecodeError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let i = decode(target, bytes, at)?;
        at += i.len as usize;
        out.push(i);
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A deterministic xorshift64 sequence for the sampling tests.
    pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// The fast path (`fast`) and `decode_into` agree with the general path, which defines the
    /// result, on every field of the instruction (not only its text): random words under each
    /// of the 512 values of the first dword's top nine bits, every target, with a literal dword
    /// that is often an inline/literal encoding. `decode_into` reuses one slot throughout, so
    /// stale operands of a longer earlier instruction would show.
    #[test]
    fn fast_path_and_decode_into_agree_with_general_path() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut fast_taken = 0usize;
        for target in Target::ALL {
            let mut slot = Instruction::empty(target);
            for top in 0..512u32 {
                for _ in 0..120 {
                    let r = next();
                    let mut w0 = (r as u32 & 0x007f_ffff) | top << 23;
                    // Common register and constant encodings in the low source fields.
                    if r >> 40 & 1 == 0 {
                        w0 = (w0 & !0x1ff) | [1u32, 106, 126, 128, 240, 255, 256, 300][(r >> 41) as usize % 8];
                    }
                    let mut bytes = Vec::with_capacity(16);
                    bytes.extend_from_slice(&w0.to_le_bytes());
                    for _ in 0..3 {
                        bytes.extend_from_slice(&(next() as u32).to_le_bytes());
                    }
                    let cut = if r >> 50 & 7 == 0 { (r >> 53) as usize % 16 } else { 16 };
                    let bytes = &bytes[..cut];
                    let general = decode_general(target, bytes, 0);
                    let fast = decode(target, bytes, 0);
                    let into = decode_into(target, bytes, 0, &mut slot).map(|()| slot);
                    if fast::route(target, bytes).is_some() && general.is_ok() {
                        fast_taken += 1;
                    }
                    match (&general, &fast, &into) {
                        (Ok(g), Ok(f), Ok(i)) => {
                            assert_eq!(g, f, "{target:?} {bytes:02x?}: fast path differs");
                            assert_eq!(g, i, "{target:?} {bytes:02x?}: decode_into differs");
                        }
                        (Err(g), Err(f), Err(i)) => {
                            assert_eq!(g, f, "{target:?} {bytes:02x?}");
                            assert_eq!(g, i, "{target:?} {bytes:02x?}");
                        }
                        _ => panic!("{target:?} {bytes:02x?}: {general:?} / {fast:?} / {into:?}"),
                    }
                }
            }
        }
        assert!(fast_taken > 20_000, "the sampling reaches the fast path ({fast_taken})");
    }
}
