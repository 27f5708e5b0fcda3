//! hx-isa-gen: generates the opcode tables of `hx-isa` (crates/isa/src/tables/*.rs) by asking LLVM's
//! disassembler: each format's opcode field is swept with canonical operand fields; the printed
//! mnemonic is recorded, each encoding field is bound to the printed operand it changes, and the
//! operand's kind (register class, width, value type, immediate style) is found by fitting: the
//! field is swept through its whole value range (and literal values) and the kind whose decoding
//! and printing (hx-isa-spec's `operand`, which the decoder uses too) reproduces every
//! LLVM answer is chosen. Opcodes no kind reproduces are listed as unsupported, never guessed.
//!
//! GFX9 FLAT/GLOBAL/SCRATCH: an atomic whose sc0 bit adds a destination (the returning form)
//! is fitted on the returning form, with kinds that print the destination only when sc0 is set
//! (`VDstRtn`) and data whose notes follow sc0 (`VDataRtn`); SCRATCH is fitted with the sve bit
//! set (a VGPR address; `ScratchVaddr` prints `off` without it). Probes that change a second
//! field (saddr `off` changes the address width) are compared with that variant's LLVM text.
//! The acc bit (55, AGPR data) is read by the register kinds and checked on random words.
//!
//! Deterministic: the same LLVM gives byte-identical files.

pub use hx_isa_spec::spec;
use hx_isa_spec::operand;

use anyhow::{bail, Context, Result};
use hx_llvm::{Disassembler, GpuTarget};
use operand::{
    decode_fields, decode_operand, format_inst, format_operand_w, LitReader, Names, OperandError,
};
use spec::{
    format_encoding, format_fields, opcode_count, Field, Format, Imm16, KImmStyle, Kind, OpInfo,
    OperandSpec, Target, Unused, ValType, Word,
};
use std::fmt::Write as _;
use std::path::Path;

/// The formats generated for each target, in table order.
pub const FORMATS: [Format; 15] = [
    Format::Sop1,
    Format::Sop2,
    Format::Sopk,
    Format::Sopc,
    Format::Sopp,
    Format::Vop1,
    Format::Vop2,
    Format::Vopc,
    Format::Smem,
    Format::Vop3,
    Format::Vop3p,
    Format::Ds,
    Format::Global,
    Format::Scratch,
    Format::Flat,
];

/// Random words per opcode in the whole-instruction check of the generator.
const RANDOM_CHECKS: usize = 256;

/// Literal dwords placed after the instruction in every probe unless a probe says otherwise.
const LIT: [u32; 2] = [0x1234_5678, 0x9abc_def0];

/// Extra literal dword pairs tried for literal encodings (254, 255).
const LIT_PROBES: [[u32; 2]; 21] = [
    [0x80, 0],
    [0xab, 0],
    [0xc1, 0],
    [0xd1, 0],
    [0xf1, 0],
    [0xf8, 0],
    [0xff, 0],
    LIT,
    [1, 0],
    [0x3f00_0000, 0],
    [0x3800, 0],
    [0x3f00, 0],
    [0x3e22_f983, 0],
    [0x3118, 0],
    [0xffff_fff0, 0xffff_ffff],
    [0, 0x3fe0_0000],
    [0x41, 0],
    [0x40, 0],
    [0xfff0, 0],
    [5, 6],
    [0x1234_5678, 0],
];

fn gpu(t: Target) -> GpuTarget {
    match t {
        Target::Gfx1250 => GpuTarget::Gfx1250,
        Target::Gfx942 => GpuTarget::Gfx942,
        Target::Gfx950 => GpuTarget::Gfx950,
    }
}

fn canonical(f: Field) -> u32 {
    match f {
        Field::Sdst => 10,
        Field::Ssrc0 => 20,
        Field::Ssrc1 => 30,
        Field::Simm16 => 0x1e14,
        Field::Lit32 => LIT[0],
        Field::Vdst8 => 10,
        Field::Src0 => 0x114,
        Field::Vsrc1 => 30,
        Field::Implicit => 0,
        Field::G9SmemOffset => 0x10,
        Field::Vop3Vdst => 10,
        Field::Vop3Src0 => 0x114,
        Field::Vop3Src1 => 0x11e,
        Field::Vop3Src2 => 0x128,
        Field::Vop3Clamp | Field::Vop3Omod | Field::Vop3OpSel => 0,
        Field::Vop3pOpSel | Field::Vop3pNegLo | Field::Vop3pNegHi => 0,
        // Packed ops' default (not printed); mix ops are rebased on 0.
        Field::Vop3pOpSelHi => 7,
        Field::Vop3Sdst => 12,
        Field::DsVdst => 10,
        Field::DsAddr => 30,
        Field::DsData0 => 20,
        Field::DsData1 => 40,
        Field::DsOffset | Field::DsGds | Field::DsAcc | Field::DsBit16 | Field::DsBit17 => 0,
        Field::Vop3Neg0
        | Field::Vop3Neg1
        | Field::Vop3Neg2
        | Field::Vop3Abs0
        | Field::Vop3Abs1
        | Field::Vop3Abs2 => 0,
        Field::G9SmemGlc | Field::G9SmemNv => 0,
        Field::SmemSdata => 8,
        Field::SmemSbase => 10,
        Field::SmemCpol => 0,
        // soffset s5, offset 0x10.
        Field::SmemOffset => 5 << 25 | 0x10,
        Field::SmemScale => 0,
        Field::SmemImm24 => 0x10,
        Field::SmemSoffset => 5,
        Field::FlatVdst => 10,
        Field::FlatVaddr => 2,
        Field::FlatVdata => 20,
        Field::FlatSaddr => 2,
        Field::FlatOffset
        | Field::FlatLds
        | Field::FlatSc0
        | Field::FlatNt
        | Field::FlatSc1
        | Field::FlatAcc => 0,
        Field::VfSaddr => 2,
        Field::VfVdst => 10,
        Field::VfVaddr => 2,
        Field::VfVdata => 20,
        Field::VfScale | Field::VfSve | Field::VfCpol | Field::VfOffset | Field::VfNv => 0,
        // MAI fields: decoded outside the tables (hx_isa::mai).
        Field::MaiAbid
        | Field::MaiScaleSrc0
        | Field::MaiScaleSrc1
        | Field::MaiScaleOpSel
        | Field::MaiScaleOpSelHi => 0,
    }
}

fn alternates(f: Field) -> &'static [u32] {
    match f {
        Field::Sdst => &[12, 0, 1],
        Field::Ssrc0 => &[22, 0, 1],
        Field::Ssrc1 => &[32, 0, 1],
        Field::Simm16 => &[0x1e15, 0x0001, 0x0000, 0x0100],
        Field::Lit32 => &[0x1234_5679],
        Field::Vdst8 => &[12, 0, 1],
        Field::Src0 => &[0x116, 0x100, 0x101, 22],
        Field::Vsrc1 => &[32, 0, 1],
        Field::Implicit => &[],
        Field::G9SmemOffset => &[0x20, 0x1f_fff0],
        Field::Vop3Vdst => &[12, 0, 1],
        Field::Vop3Src0 => &[0x116, 0x100, 0x101, 22],
        Field::Vop3Src1 => &[0x120, 0x100, 0x101, 22],
        Field::Vop3Src2 => &[0x12a, 0x100, 0x101, 22],
        Field::Vop3Clamp => &[1],
        Field::Vop3Omod => &[1, 2, 3],
        Field::Vop3OpSel => &[1, 2, 8],
        Field::Vop3pOpSel | Field::Vop3pNegLo | Field::Vop3pNegHi => &[1, 2, 4],
        Field::Vop3pOpSelHi => &[6, 5, 3],
        Field::Vop3Sdst => &[14, 0, 1],
        Field::DsVdst => &[12, 0, 1],
        Field::DsAddr => &[32, 0, 1],
        Field::DsData0 => &[22, 0, 1],
        Field::DsData1 => &[42, 0, 1],
        Field::DsOffset | Field::DsGds | Field::DsAcc | Field::DsBit16 | Field::DsBit17 => &[1],
        Field::Vop3Neg0
        | Field::Vop3Neg1
        | Field::Vop3Neg2
        | Field::Vop3Abs0
        | Field::Vop3Abs1
        | Field::Vop3Abs2 => &[],
        Field::G9SmemGlc | Field::G9SmemNv => &[1],
        Field::SmemSdata => &[12, 0, 16],
        Field::SmemSbase => &[11, 0, 1],
        Field::SmemCpol => &[1, 8, 2],
        Field::SmemOffset => &[5 << 25 | 0x20, 6 << 25 | 0x10, 124 << 25 | 0x10],
        Field::SmemScale => &[1],
        Field::SmemImm24 => &[0x20, 0, 1],
        Field::SmemSoffset => &[6, 0, 1],
        Field::FlatVdst => &[12, 0, 1],
        Field::FlatVaddr => &[4, 0, 1],
        Field::FlatVdata => &[22, 0, 1],
        // Not 0x7f (`off`): it changes the address operand too.
        Field::FlatSaddr => &[4, 0, 6],
        Field::FlatOffset
        | Field::FlatLds
        | Field::FlatSc0
        | Field::FlatNt
        | Field::FlatSc1
        | Field::FlatAcc => &[1],
        // Not 124 (`off`): it changes the address operand too.
        Field::VfSaddr => &[4, 0, 6],
        Field::VfVdst => &[12, 0, 1],
        Field::VfVaddr => &[4, 0, 1],
        Field::VfVdata => &[22, 0, 1],
        Field::VfScale | Field::VfSve | Field::VfCpol | Field::VfOffset | Field::VfNv => &[1],
        Field::MaiAbid
        | Field::MaiScaleSrc0
        | Field::MaiScaleSrc1
        | Field::MaiScaleOpSel
        | Field::MaiScaleOpSelHi => &[],
    }
}

/// LLVM's answer for one probe: (length, text without the comment, comment).
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    len: usize,
    text: String,
    comment: String,
}

struct Oracle {
    d: Disassembler,
    target: Target,
    /// Bytes of the fixed part of the format being probed.
    len: usize,
}

impl Oracle {
    fn ask(&mut self, word: Word, lit: [u32; 2]) -> Option<Answer> {
        let w0 = word as u32;
        if spec::oracle_crashes64(self.target, word as u64, lit[0])
            || spec::vop_extension(self.target, w0).is_some()
        {
            return None;
        }
        let mut b = Vec::with_capacity(16);
        b.extend_from_slice(&word.to_le_bytes()[..self.len]);
        b.extend_from_slice(&lit[0].to_le_bytes());
        b.extend_from_slice(&lit[1].to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        if std::env::var_os("HX_TABLES_TRACE").is_some() {
            eprintln!("probe {word:#x} {:#x} {:#x}", lit[0], lit[1]);
        }
        let (len, text) = self.d.decode(&b, 0)?;
        let (text, comment) = match text.find(" ; ") {
            Some(i) => (text[..i].to_string(), text[i + 3..].to_string()),
            None => (text, String::new()),
        };
        Some(Answer { len, text, comment })
    }
}

/// Splits `s_foo a, hwreg(X, 1, 2), b` into mnemonic and top-level operands.
fn split_text(text: &str) -> (String, Vec<String>) {
    let (mn, rest) = match text.find(' ') {
        Some(i) => (&text[..i], text[i + 1..].trim()),
        None => (text, ""),
    };
    let mut ops = Vec::new();
    if !rest.is_empty() {
        let mut depth = 0i32;
        let mut cur = String::new();
        let mut prev = ' ';
        for c in rest.chars() {
            match (prev, c) {
                (_, '(' | '[') | ('/', '*') => depth += 1,
                (_, ')' | ']') | ('*', '/') => depth -= 1,
                _ => {}
            }
            prev = c;
            if c == ',' && depth == 0 {
                ops.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            cur.push(c);
        }
        ops.push(cur.trim().to_string());
    }
    (mn.to_string(), ops)
}

/// `w` with the format's fixed bits and opcode field set to `opcode`.
fn encode_opcode(family: spec::Family, format: Format, opcode: u32, w: Word) -> Word {
    let (mask, m, shift, width) = format_encoding(family, format).expect("format has an encoding");
    let opbits = ((1u32 << width) - 1) << shift;
    let lo = (w as u32 & !mask & !opbits) | m | ((opcode << shift) & opbits);
    (w & !0xffff_ffff) | lo as Word
}

fn encode(family: spec::Family, format: Format, opcode: u32, fields: &[(Field, u32)]) -> Word {
    let (_, m, shift, width) = format_encoding(family, format).expect("format has an encoding");
    let mut w = (m | ((opcode & ((1 << width) - 1)) << shift)) as Word;
    for &(f, v) in fields {
        w = f.insert(w, v);
    }
    w
}

fn candidates(f: Field) -> Vec<Kind> {
    match f {
        Field::Sdst => vec![Kind::SDst { dwords: 1 }, Kind::SDst { dwords: 2 }],
        Field::Ssrc0 | Field::Ssrc1 => {
            let tys = [
                ValType::B32,
                ValType::F32,
                ValType::B16,
                ValType::I16,
                ValType::F16,
                ValType::BF16,
                ValType::B64,
                ValType::F64,
            ];
            tys.into_iter()
                .map(Kind::SSrc)
                .chain(tys.into_iter().map(Kind::SReg))
                .chain(tys.into_iter().map(Kind::SSrcM0Space))
                .chain([Kind::Imm16(Imm16::SendMsgRtn)])
                .collect()
        }
        Field::Simm16 => [
            Imm16::Hex,
            Imm16::IntOrHex,
            Imm16::UDec,
            Imm16::UDecOmitZero,
            Imm16::Hwreg,
            Imm16::SendMsg,
            Imm16::Waitcnt,
            Imm16::DelayAlu,
            Imm16::DepCtr,
        ]
        .into_iter()
        .map(Kind::Imm16)
        .collect(),
        Field::Vdst8 => vec![
            Kind::VDst { dwords: 1 },
            Kind::VDst { dwords: 2 },
            Kind::VDst { dwords: 4 },
            Kind::SDst { dwords: 1 },
            Kind::SDst { dwords: 2 },
            Kind::SDstNoM0 { dwords: 1 },
            Kind::VDstLo128 { dwords: 1 },
            Kind::SDst8 { dwords: 1 },
            Kind::SDst8 { dwords: 2 },
            Kind::ADst { dwords: 1 },
        ],
        Field::Src0 => {
            let tys = [
                ValType::B32,
                ValType::F32,
                ValType::B16,
                ValType::I16,
                ValType::F16,
                ValType::BF16,
                ValType::B64,
                ValType::F64,
                ValType::Pk16,
                ValType::Pk16H,
                ValType::Pk16B,
                ValType::PkF32,
                ValType::Plain32,
            ];
            tys.into_iter()
                .map(Kind::VSrc)
                .chain(tys.into_iter().map(Kind::VSrcLo128))
                .collect()
        }
        Field::Vsrc1 => vec![
            Kind::VReg { dwords: 1 },
            Kind::VReg { dwords: 2 },
            Kind::VReg { dwords: 4 },
            Kind::VRegLo128 { dwords: 1 },
            Kind::VRegAnyAlign { dwords: 2 },
        ],
        Field::Implicit => vec![],
        Field::SmemSdata => [1, 2, 3, 4, 8, 16]
            .into_iter()
            .map(|dwords| Kind::SDst { dwords })
            // The prefetches' size field.
            .chain([Kind::UImmDec { bits: 5 }])
            .collect(),
        Field::SmemSbase => vec![Kind::SBase { dwords: 2 }, Kind::SBase { dwords: 4 }],
        Field::SmemCpol => vec![Kind::SmemCachePolicy],
        Field::SmemOffset => vec![Kind::SmemOff, Kind::SmemOffNonNeg],
        Field::SmemScale => vec![Kind::Flag("scale_offset")],
        Field::SmemImm24 => vec![
            Kind::SmemPrefetchOff { non_neg: false },
            Kind::SmemPrefetchOff { non_neg: true },
        ],
        Field::SmemSoffset => vec![
            Kind::SSrc(ValType::B32),
            Kind::SReg(ValType::B32),
            Kind::SDst { dwords: 1 },
        ],
        Field::G9SmemOffset => vec![Kind::G9SmemOff],
        Field::Vop3Vdst => {
            // Wide results (the scaled fp8/fp6/fp4 conversions) after the usual kinds.
            let mut v = candidates(Field::Vdst8);
            v.extend([3, 8, 16].map(|dwords| Kind::VDst { dwords }));
            v
        }
        Field::Vop3Src0 | Field::Vop3Src1 | Field::Vop3Src2 => {
            let idx = match f {
                Field::Vop3Src0 => 0,
                Field::Vop3Src1 => 1,
                _ => 2,
            };
            let tys = [
                ValType::B32,
                ValType::F32,
                ValType::B16,
                ValType::I16,
                ValType::F16,
                ValType::BF16,
                ValType::B64,
                ValType::F64,
                ValType::Pk16,
                ValType::Pk16H,
                ValType::Pk16B,
                ValType::PkF32,
                ValType::Plain32,
            ];
            let mut v = Vec::new();
            for mods in [
                spec::SrcMods::ModsNegAbs,
                spec::SrcMods::ModsInvalid,
                spec::SrcMods::ModsIgnored,
                spec::SrcMods::ModsNegOnly,
                spec::SrcMods::ModsNegInvalid,
            ] {
                v.extend(tys.iter().map(|&ty| Kind::VSrcM { ty, idx, mods }));
            }
            for mods in [
                spec::SrcMods::ModsIgnored,
                spec::SrcMods::ModsInvalid,
                spec::SrcMods::ModsNegInvalid,
            ] {
                v.extend([1, 2].map(|dwords| Kind::VSrcNoConst { dwords, idx, mods }));
            }
            v
        }
        Field::Vop3Clamp => vec![Kind::Flag("clamp")],
        Field::DsVdst => [1, 2, 3, 4]
            .map(|dwords| Kind::VDst { dwords })
            .into_iter()
            .chain([2, 3, 4].map(|dwords| Kind::VDstAv { dwords }))
            .chain([Kind::VDstAnyAlign { dwords: 3 }])
            .collect(),
        Field::DsAddr | Field::DsData0 | Field::DsData1 => [1, 2, 3, 4]
            .map(|dwords| Kind::VReg { dwords })
            .into_iter()
            .chain([2, 3, 4].map(|dwords| Kind::VRegAv { dwords }))
            .collect(),
        Field::DsOffset => vec![Kind::DsOffset16, Kind::DsOffsetPair, Kind::DsSwizzle],
        Field::DsGds => vec![Kind::Flag("gds")],
        Field::DsAcc | Field::DsBit16 | Field::DsBit17 => vec![],
        Field::Vop3Sdst => vec![
            Kind::SDst { dwords: 1 },
            Kind::SDst { dwords: 2 },
            Kind::SDstX {
                dwords: 1,
                class: "SReg_32_XM0_XEXEC",
            },
        ],
        Field::Vop3Omod => vec![Kind::Omod],
        Field::Vop3pOpSel | Field::Vop3pOpSelHi | Field::Vop3pNegLo | Field::Vop3pNegHi => {
            let name = match f {
                Field::Vop3pOpSel => "op_sel",
                Field::Vop3pOpSelHi => "op_sel_hi",
                Field::Vop3pNegLo => "neg_lo",
                _ => "neg_hi",
            };
            let mut v = Vec::new();
            for default in [0, 1] {
                for srcs in [2, 3, 1] {
                    v.push(Kind::PkBits {
                        name,
                        srcs,
                        default,
                    });
                }
            }
            v
        }
        Field::Vop3OpSel => {
            let mut v = vec![
                Kind::OpSel { srcs: 2 },
                Kind::OpSel { srcs: 3 },
                Kind::OpSel { srcs: 1 },
                Kind::OpSelFiBc,
                // The whole field as one number (gfx1250 v_cvt_scale_pk8/pk16: `scale_sel:N`).
                Kind::MaiMod("scale_sel"),
            ];
            // Ops whose other op_sel bits are invalid or hold a byte select (fp8 conversions).
            for byte_sel in [0u8, 1, 2] {
                for srcs in [2u8, 1, 3] {
                    let allowed = ((1u8 << srcs) - 1) | 8;
                    let byte_bits = operand::byte_sel_bits(byte_sel) as u8;
                    for opsel in (0..16u8).rev() {
                        if opsel & !allowed == 0 && opsel & byte_bits == 0 {
                            v.push(Kind::OpSelMasked { srcs, opsel, byte_sel });
                        }
                    }
                }
            }
            v
        }
        Field::Vop3Neg0
        | Field::Vop3Neg1
        | Field::Vop3Neg2
        | Field::Vop3Abs0
        | Field::Vop3Abs1
        | Field::Vop3Abs2 => vec![],
        Field::G9SmemGlc => vec![Kind::Flag("glc")],
        Field::G9SmemNv => vec![Kind::Flag("nv")],
        Field::FlatVdst => {
            let mut v = Vec::new();
            for acc in [2u8, 1, 0] {
                for av in [false, true] {
                    v.extend([1, 2, 3, 4].map(|dwords| Kind::VDstRtn { dwords, av, acc }));
                }
            }
            v.extend([1, 2, 3, 4].map(|dwords| Kind::FlatDst { dwords }));
            v
        }
        Field::FlatVdata => [1, 2, 3, 4]
            .map(|dwords| Kind::VDataRtn { dwords })
            .into_iter()
            .chain([1, 2, 3, 4].map(|dwords| Kind::FlatData { dwords }))
            .collect(),
        Field::FlatVaddr => vec![
            Kind::FlatVaddrG,
            Kind::ScratchVaddr,
            Kind::VReg { dwords: 2 },
        ],
        Field::FlatSaddr => [(2, true), (1, false), (2, false), (1, true)]
            .map(|(dwords, xexec)| Kind::FlatSaddrK { dwords, xexec })
            .into(),
        Field::FlatOffset => vec![Kind::FlatOff13, Kind::FlatOff13U],
        Field::FlatSc0 => vec![Kind::Flag("sc0")],
        Field::FlatNt => vec![Kind::Flag("nt")],
        Field::FlatSc1 => vec![Kind::Flag("sc1")],
        Field::FlatLds | Field::FlatAcc => vec![],
        Field::VfSaddr => [(2, true), (2, false), (1, false), (1, true)]
            .map(|(dwords, xexec)| Kind::FlatSaddrK { dwords, xexec })
            .into_iter()
            .chain([
                Kind::FlatSaddrOpt {
                    dwords: 2,
                    xexec: true,
                },
                // FLAT atomics: SReg_64 (exec allowed).
                Kind::FlatSaddrOpt {
                    dwords: 2,
                    xexec: false,
                },
            ])
            .collect(),
        Field::VfVdst => [1, 2, 3, 4]
            .map(|dwords| Kind::VfVDstRtn { dwords })
            .into_iter()
            .chain([1, 2, 3, 4].map(|dwords| Kind::VDst { dwords }))
            .chain([2, 3, 4].map(|dwords| Kind::VDstAv { dwords }))
            .chain([Kind::VDstAnyAlign { dwords: 3 }])
            .collect(),
        Field::VfVdata => [1, 2, 3, 4]
            .map(|dwords| Kind::VReg { dwords })
            .into_iter()
            .chain([2, 3, 4].map(|dwords| Kind::VRegAv { dwords }))
            .collect(),
        Field::VfVaddr => vec![
            Kind::FlatVaddrG,
            Kind::ScratchVaddr,
            Kind::VReg { dwords: 2 },
        ],
        Field::VfOffset => vec![Kind::VfOff24],
        Field::VfScale => vec![Kind::Flag("scale_offset")],
        Field::VfNv => vec![Kind::Flag("nv")],
        Field::VfCpol => vec![
            Kind::VfAtomicCachePolicy,
            Kind::VfCachePolicy { store: false },
            Kind::VfCachePolicy { store: true },
        ],
        Field::VfSve
        | Field::MaiAbid
        | Field::MaiScaleSrc0
        | Field::MaiScaleSrc1
        | Field::MaiScaleOpSel
        | Field::MaiScaleOpSelHi => vec![],
        Field::Lit32 => vec![
            Kind::KImm(KImmStyle::LitHex),
            Kind::KImm(KImmStyle::LitIntOrHex),
            Kind::KImm(KImmStyle::LitPlain32),
            Kind::KImm(KImmStyle::LitHexInlineAlias),
            Kind::KImm(KImmStyle::LitHex16InlineAlias),
            Kind::KImm(KImmStyle::Lit64),
        ],
    }
}

/// Bits of the word a probe sets besides its field: (mask, value).
type Aux = (Word, Word);

fn apply_aux(w: Word, aux: Aux) -> Word {
    (w & !aux.0) | aux.1
}

fn probe_values(f: Field, vop3_sdst: bool) -> Vec<(u32, [u32; 2], Aux)> {
    let v = probe_values_plain(f);
    let mut out: Vec<(u32, [u32; 2], Aux)> = v.iter().map(|&(x, l)| (x, l, (0, 0))).collect();
    let src_idx = match f {
        Field::Vop3Src0 => Some(0u64),
        Field::Vop3Src1 => Some(1),
        Field::Vop3Src2 => Some(2),
        _ => None,
    };
    if let Some(i) = src_idx {
        // Each source value with its neg (61 + i) and abs (8 + i) bits (no abs bits when
        // bits 14:8 are a carry-out SGPR).
        let (nb, ab) = (
            (1 as Word) << (61 + i),
            if vop3_sdst { 0 } else { (1 as Word) << (8 + i) },
        );
        out.clear();
        for bits in [0, nb, ab, nb | ab] {
            out.extend(v.iter().map(|&(x, l)| (x, l, (nb | ab, bits))));
        }
    }
    if f == Field::VfVaddr {
        // The address's width depends on saddr (bits 6:0): each value also with `off`.
        out.extend(v.iter().map(|&(x, l)| (x, l, (0x7f, 124))));
        // VSCRATCH: and without sve (bit 49): no VGPR address.
        out.extend(v.iter().map(|&(x, l)| (x, l, (1 << 49, 0))));
    }
    if f == Field::FlatSc0 {
        // Compared with the base's sc0 = 0 form (an atomic without return has fewer operands).
        out[0].2 = (1 << 16, 0);
    }
    if f == Field::FlatVaddr {
        // The address's width depends on saddr (bits 54:48): each value also with `off`.
        let mask = (0x7f as Word) << 48;
        out.extend(v.iter().map(|&(x, l)| (x, l, (mask, mask))));
        // SCRATCH: and without sve (bit 13): no VGPR address.
        out.extend(v.iter().map(|&(x, l)| (x, l, (1 << 13, 0))));
    }
    if f == Field::G9SmemOffset {
        // The offset's meaning depends on the imm (17) and soe (14) bits.
        let mask: Word = 1 << 17 | 1 << 14;
        out.clear();
        for bits in [0 as Word, 1 << 17, 1 << 14, 1 << 17 | 1 << 14] {
            out.extend(v.iter().map(|&(x, l)| (x, l, (mask, bits))));
        }
    }
    out
}

fn probe_values_plain(f: Field) -> Vec<(u32, [u32; 2])> {
    let mut v = Vec::new();
    match f {
        Field::Sdst => (0..128).for_each(|x| v.push((x, LIT))),
        Field::Ssrc0 | Field::Ssrc1 => {
            for x in 0..256u32 {
                if x == 254 || x == 255 {
                    LIT_PROBES.iter().for_each(|&l| v.push((x, l)));
                } else {
                    v.push((x, LIT));
                }
            }
        }
        Field::Simm16 => {
            let mut s: u32 = 0x2545_f491;
            for x in [
                0u32, 1, 2, 0x1e14, 0xffff, 0x8000, 0x7fff, 0x3f, 0x40, 0xf800, 0xf83f, 0x07c1,
                0x0800, 0x00c5,
            ] {
                v.push((x, LIT));
            }
            for _ in 0..48 {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                v.push((s & 0xffff, LIT));
            }
            for id in 0..64 {
                v.push((id | 31 << 11, LIT));
            }
        }
        Field::Lit32 => {
            for l in LIT_PROBES {
                v.push((0, l));
            }
        }
        Field::Vdst8 | Field::Vsrc1 => (0..256).for_each(|x| v.push((x, LIT))),
        Field::Src0 => {
            for x in 0..512u32 {
                if x == 254 || x == 255 {
                    LIT_PROBES.iter().for_each(|&l| v.push((x, l)));
                } else {
                    v.push((x, LIT));
                }
            }
        }
        Field::Implicit => {}
        Field::SmemSdata => (0..128).for_each(|x| v.push((x, LIT))),
        Field::SmemSbase => (0..64).for_each(|x| v.push((x, LIT))),
        Field::SmemCpol => (0..32).for_each(|x| v.push((x, LIT))),
        Field::SmemSoffset => (0..128).for_each(|x| v.push((x, LIT))),
        Field::SmemImm24 => {
            for x in [
                0u32, 1, 0x10, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x12_3456, 0xfe_dcba,
            ] {
                v.push((x, LIT));
            }
        }
        Field::SmemScale | Field::G9SmemGlc | Field::G9SmemNv | Field::Vop3Clamp => {
            (0..2).for_each(|x| v.push((x, LIT)))
        }
        Field::Vop3Omod => (0..4).for_each(|x| v.push((x, LIT))),
        Field::Vop3OpSel => (0..16).for_each(|x| v.push((x, LIT))),
        Field::Vop3pOpSel | Field::Vop3pOpSelHi | Field::Vop3pNegLo | Field::Vop3pNegHi => {
            (0..8).for_each(|x| v.push((x, LIT)))
        }
        Field::Vop3Sdst => (0..128).for_each(|x| v.push((x, LIT))),
        Field::DsVdst | Field::DsAddr | Field::DsData0 | Field::DsData1 => {
            (0..256).for_each(|x| v.push((x, LIT)))
        }
        Field::DsOffset => {
            for x in [
                0u32, 1, 2, 0x10, 0xff, 0x100, 0x201, 0x1000, 0x8000, 0xff00, 0xfffe, 0xffff,
                0x1234, 0x00ab,
            ] {
                v.push((x, LIT));
            }
        }
        Field::DsGds | Field::DsAcc | Field::DsBit16 | Field::DsBit17 => {
            (0..2).for_each(|x| v.push((x, LIT)))
        }
        Field::Vop3Neg0
        | Field::Vop3Neg1
        | Field::Vop3Neg2
        | Field::Vop3Abs0
        | Field::Vop3Abs1
        | Field::Vop3Abs2 => {}
        Field::Vop3Vdst => (0..256).for_each(|x| v.push((x, LIT))),
        Field::Vop3Src0 | Field::Vop3Src1 | Field::Vop3Src2 => {
            for x in 0..512u32 {
                if x == 254 || x == 255 {
                    LIT_PROBES.iter().for_each(|&l| v.push((x, l)));
                } else {
                    v.push((x, LIT));
                }
            }
        }
        Field::G9SmemOffset => {
            for x in 0..256u32 {
                v.push((x, LIT));
            }
            for soff in 0..128u32 {
                v.push((soff << 25 | 0x10, LIT));
            }
            for off in [
                0u32, 1, 0xf_ffff, 0x10_0000, 0x1f_ffff, 0x12_3456, 0xfe_dcba,
            ] {
                v.push((5 << 25 | off, LIT));
            }
        }
        Field::FlatVdst | Field::FlatVaddr | Field::FlatVdata => {
            (0..256).for_each(|x| v.push((x, LIT)))
        }
        // 0x7f (`off`) changes the address too: probed through FlatVaddr.
        Field::FlatSaddr => (0..127).for_each(|x| v.push((x, LIT))),
        Field::FlatOffset => {
            for x in [
                0u32, 1, 2, 0x10, 0xfff, 0x1000, 0x1001, 0x1fff, 0x1234, 0x0abc, 0x800, 0x7ff,
            ] {
                v.push((x, LIT));
            }
        }
        Field::FlatLds | Field::FlatSc0 | Field::FlatNt | Field::FlatSc1 | Field::FlatAcc => {
            (0..2).for_each(|x| v.push((x, LIT)))
        }
        Field::VfVdst | Field::VfVaddr | Field::VfVdata => {
            (0..256).for_each(|x| v.push((x, LIT)))
        }
        // 124 (`off`) changes the address too: probed through VfVaddr.
        Field::VfSaddr => (0..128).filter(|&x| x != 124).for_each(|x| v.push((x, LIT))),
        Field::VfOffset => {
            for x in [
                0u32, 1, 2, 0x10, 0xfff, 0x1000, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x12_3456,
                0xfe_dcba, 0x80_0001,
            ] {
                v.push((x, LIT));
            }
        }
        Field::VfCpol => (0..32).for_each(|x| v.push((x, LIT))),
        Field::VfScale | Field::VfSve | Field::VfNv => (0..2).for_each(|x| v.push((x, LIT))),
        Field::MaiAbid
        | Field::MaiScaleSrc0
        | Field::MaiScaleSrc1
        | Field::MaiScaleOpSel
        | Field::MaiScaleOpSelHi => {}
        Field::SmemOffset => {
            for soff in 0..128u32 {
                v.push((soff << 25 | 0x10, LIT));
            }
            for off in [
                0u32, 1, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x12_3456, 0xfe_dcba,
            ] {
                v.push((5 << 25 | off, LIT));
                v.push((124 << 25 | off, LIT));
            }
        }
    }
    v
}

/// Fields printed as space-separated modifiers after the operands.
fn is_modifier_field(f: Field) -> bool {
    matches!(
        f,
        Field::SmemCpol
            | Field::SmemScale
            | Field::G9SmemGlc
            | Field::G9SmemNv
            | Field::Vop3Clamp
            | Field::Vop3Omod
            | Field::Vop3OpSel
            | Field::Vop3pOpSel
            | Field::Vop3pOpSelHi
            | Field::Vop3pNegLo
            | Field::Vop3pNegHi
            | Field::DsOffset
            | Field::DsGds
            | Field::FlatOffset
            | Field::FlatSc0
            | Field::FlatNt
            | Field::FlatSc1
            | Field::VfOffset
            | Field::VfScale
            | Field::VfCpol
            | Field::VfNv
    )
}

/// The text of an instruction: operands joined by commas, then modifiers by spaces; empty
/// texts (operands printed only when non-zero) are left out.
fn render(mnemonic: &str, ops: &[String], is_mod: &[bool]) -> String {
    let mut s = mnemonic.to_string();
    let mut first = true;
    for (t, m) in ops.iter().zip(is_mod) {
        if t.is_empty() {
            continue;
        }
        s.push_str(if first || *m { " " } else { ", " });
        s.push_str(t);
        first = false;
    }
    s
}

/// Immediate styles whose printing is checked on all 65536 values once chosen.
fn exhaustive(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Imm16(
            Imm16::Hwreg | Imm16::SendMsg | Imm16::Waitcnt | Imm16::DelayAlu | Imm16::DepCtr
        )
    )
}

/// What the crate's operand code predicts for one operand probe: (text, comment, length), or
/// None when it calls the encoding invalid.
fn predict_len(
    target: Target,
    kind: Kind,
    v: u32,
    word: Word,
    lit: [u32; 2],
    names: Names,
    fixed: usize,
) -> Option<(String, String, usize)> {
    let mut b = vec![0u8; 4];
    b.extend_from_slice(&lit[0].to_le_bytes());
    b.extend_from_slice(&lit[1].to_le_bytes());
    let mut lits = LitReader::new(&b, 4);
    let mut warn = String::new();
    let op = match decode_operand(target, kind, v, word, &mut lits, &mut warn) {
        Ok(op) => op,
        // Modelled as "unsupported": the decoder fails closed, so any LLVM answer is fine.
        Err(operand::OperandError::Unsupported) => {
            return Some(("<unsupported>".into(), String::new(), 0))
        }
        Err(_) => return None,
    };
    let mut s = String::new();
    format_operand_w(&mut s, target, kind, &op, names, Some(word));
    if let Kind::VSrcM { idx, mods, .. } | Kind::VSrcSgpr { idx, mods, .. } = kind {
        let (neg, abs) = operand::src_mod_bits(word, idx);
        match mods {
            spec::SrcMods::ModsNegAbs => s = operand::with_src_mods(&s, &op, (neg, abs)),
            spec::SrcMods::ModsNegOnly => s = operand::with_src_mods(&s, &op, (neg, false)),
            _ => {}
        }
    }
    Some((s, warn, fixed + lits.extra_len()))
}

#[derive(Debug, Clone)]
enum Entry {
    Invalid,
    Ok(OpInfo),
    Unsupported { text: String, why: String },
}

struct Gen {
    target: Target,
    oracle: Oracle,
    names: Names,
    /// The VOP3 opcode being generated has a scalar carry-out in bits 14:8.
    vop3_sdst: bool,
    /// The VOP3P opcode being generated prints neg_lo/neg_hi (packed); else its neg bits are
    /// the sources' neg/abs (v_fma_mix*).
    vop3p_packed: bool,
    /// gfx1250 SMEM: generate with the offset split into `SmemImm24` and `SmemSoffset` (the
    /// prefetches print them as two operands).
    smem_split: bool,
}

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl Gen {
    fn gen_opcode(&mut self, format: Format, op: u32) -> Entry {
        self.oracle.len = spec::format_len(self.target.family(), format);
        let mut fields = format_fields(self.target.family(), format);
        if self.smem_split {
            fields = &[
                Field::SmemSdata,
                Field::SmemSbase,
                Field::SmemImm24,
                Field::SmemSoffset,
                Field::SmemScale,
                Field::SmemCpol,
            ];
        }
        self.vop3_sdst = false;
        self.vop3p_packed = false;
        if format == Format::Vop3 {
            // VOP3 with a carry-out SGPR: bits 14:8 name it (no abs, no op_sel). Seen as an
            // abs bit that changes an operand into another SGPR.
            let canon: Vec<(Field, u32)> = fields.iter().map(|&f| (f, canonical(f))).collect();
            let w = encode(self.target.family(), format, op, &canon);
            if let (Some(a), Some(b)) = (self.oracle.ask(w, LIT), self.oracle.ask(w | 1 << 9, LIT))
            {
                let (_, oa) = split_text(&a.text);
                let (_, ob) = split_text(&b.text);
                if oa.len() == ob.len()
                    && oa.len() > 1
                    && (oa[1] == "s0" && ob[1] == "s2" || oa[1] == "s[0:1]" && ob[1] == "s[2:3]")
                {
                    self.vop3_sdst = true;
                    fields = &[
                        Field::Vop3Vdst,
                        Field::Vop3Sdst,
                        Field::Vop3Src0,
                        Field::Vop3Src1,
                        Field::Vop3Src2,
                        Field::Vop3Clamp,
                        Field::Vop3Omod,
                    ];
                }
            }
        }
        // Find a valid base: canonical values first, then with fields zeroed (fewest zeros first).
        let n = fields.len();
        let mut masks: Vec<u32> = (0..(1u32 << n)).collect();
        masks.sort_by_key(|m| (m.count_ones(), *m));
        let mut base = None;
        // Some destinations must name one register (v_cmpx_*_e64: exec_lo, 126).
        // Some destinations must name one register (v_cmpx_*_e64: exec_lo, 126); some
        // instructions need a flag (GFX9 ds_gws_*: gds).
        let special = |f: Field| match f {
            Field::Vop3Vdst => Some(126),
            Field::DsGds => Some(1),
            // gfx1250 VFLAT instructions without an address (global_inv, ...): saddr `off`.
            Field::VfSaddr => Some(124),
            _ => None,
        };
        'search: for alt in [false, true] {
            for &m in &masks {
                let fv: Vec<(Field, u32)> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| {
                        let v = if m >> i & 1 == 1 { 0 } else { canonical(f) };
                        (f, if alt { special(f).unwrap_or(v) } else { v })
                    })
                    .collect();
                let w = encode(self.target.family(), format, op, &fv);
                if let Some(a) = self.oracle.ask(w, LIT) {
                    base = Some((fv, w, a));
                    break 'search;
                }
            }
        }
        let Some((fv, bw, ba)) = base else {
            // No canonical form decodes: call the opcode invalid only if random words of it
            // never decode either.
            let (mask, m, shift, _) =
                format_encoding(self.target.family(), format).expect("encoding");
            let len = spec::format_len(self.target.family(), format);
            let mut rng = 0x51ed_2701_u64 ^ (op as u64) << 20 ^ format as u64;
            for _ in 0..RANDOM_CHECKS {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let lo = ((rng >> 8) as u32 & !mask) | m;
                let lo = (lo & !(((1u32 << 10) - 1) << shift)) | (op << shift);
                let w = lo as Word
                    | if len >= 8 {
                        ((rng >> 32) << 32) as Word
                    } else {
                        0
                    }
                    | if len == 12 {
                        ((rng as u32) as Word) << 64
                    } else {
                        0
                    };
                let w = encode_opcode(self.target.family(), format, op, w);
                if let Some(a) = self.oracle.ask(w, [0x1234_5678, 0x9abc_def0]) {
                    return Entry::Unsupported {
                        text: a.text.clone(),
                        why: format!("no canonical form decodes, but {w:#x} does"),
                    };
                }
            }
            return Entry::Invalid;
        };
        // FLAT atomics: sc0 (return the pre-op value) adds the destination; the returning form
        // is the base (its vdst kind prints nothing without sc0).
        let mut rtn = false;
        let flat = matches!(format, Format::Global | Format::Scratch | Format::Flat);
        let g9_flat = flat && self.target.family() == spec::Family::Gfx9;
        let vflat = flat && !g9_flat;
        // gfx1250 VFLAT atomics: th bit 0 (TH_ATOMIC_RETURN, cpol value bit 2) does the same.
        let (rtn_field, rtn_value, rtn_suffix) =
            if g9_flat { (Field::FlatSc0, 1, " sc0") } else { (Field::VfCpol, 4, " th:TH_ATOMIC_RETURN") };
        let (fv, bw, ba) = if flat {
            let w1 = rtn_field.insert(bw, rtn_value);
            match self.oracle.ask(w1, LIT) {
                Some(a)
                    if a.comment.is_empty()
                        && a.text.ends_with(rtn_suffix)
                        && split_text(&a.text).0 == split_text(&ba.text).0
                        && split_text(&a.text).1.len() == split_text(&ba.text).1.len() + 1 =>
                {
                    rtn = true;
                    let fv = fv.iter().map(|&(f, v)| (f, if f == rtn_field { rtn_value } else { v })).collect();
                    (fv, w1, a)
                }
                _ => (fv, bw, ba),
            }
        } else {
            (fv, bw, ba)
        };
        // SCRATCH: the sve bit (13) makes vaddr a VGPR; the base has it set (the address kind
        // reads it).
        let mut sve = false;
        let (fv, bw, ba) = if format == Format::Scratch && !rtn {
            let sve_field = if g9_flat {
                Field::FlatLds
            } else {
                Field::VfSve
            };
            let w1 = sve_field.insert(bw, 1);
            match self.oracle.ask(w1, LIT) {
                Some(a)
                    if a.comment == ba.comment
                        && split_text(&a.text).0 == split_text(&ba.text).0
                        && split_text(&a.text).1.len() == split_text(&ba.text).1.len() =>
                {
                    sve = true;
                    (fv, w1, a)
                }
                _ => (fv, bw, ba),
            }
        } else {
            (fv, bw, ba)
        };
        // VOP3P: rebase op_sel_hi on 0 when the default (all ones) prints (mix ops); find
        // whether neg_lo/neg_hi print as modifiers (packed) or as source neg/abs.
        let (fv, bw, ba) = if format == Format::Vop3p {
            let (mut fv, mut bw, mut ba) = (fv, bw, ba);
            if ba.text.contains(" op_sel_hi:[") {
                let w1 = Field::Vop3pOpSelHi.insert(bw, 0);
                if let Some(a) = self.oracle.ask(w1, LIT) {
                    if !a.text.contains(" op_sel_hi:[") {
                        bw = w1;
                        ba = a;
                        for e in fv.iter_mut() {
                            if e.0 == Field::Vop3pOpSelHi {
                                e.1 = 0;
                            }
                        }
                    }
                }
            }
            match self.oracle.ask(Field::Vop3pNegLo.insert(bw, 1), LIT) {
                Some(a) if a.text.contains(" neg_lo:[") => self.vop3p_packed = true,
                _ => fv.retain(|e| !matches!(e.0, Field::Vop3pNegLo | Field::Vop3pNegHi)),
            }
            (fv, bw, ba)
        } else {
            (fv, bw, ba)
        };
        let base_text = if rtn {
            ba.text.strip_suffix(rtn_suffix).unwrap_or(&ba.text).to_string()
        } else {
            ba.text.clone()
        };
        let (mnemonic, ops) = split_text(&base_text);
        let unsup = |why: String| Entry::Unsupported {
            text: ba.text.clone(),
            why,
        };
        if !ba.comment.is_empty() {
            return unsup(format!("comment on the canonical form: {}", ba.comment));
        }
        // Bind fields to operands.
        let mut bound: Vec<Option<Field>> = vec![None; ops.len()];
        let mut unused = Vec::new();
        let mut fields_to_bind = fv.clone();
        fields_to_bind.push((Field::Lit32, LIT[0]));
        let mut modifiers = Vec::new();
        for &(f, fvv) in &fields_to_bind {
            if is_modifier_field(f) {
                // Printed after the operands, space-separated: fitted on their own below.
                modifiers.push(f);
                continue;
            }
            let mut changed: Option<usize> = None;
            let mut any_valid = false;
            let mut any_invalid = false;
            for &alt in alternates(f) {
                if alt == fvv {
                    continue;
                }
                let (w, lit) = if f == Field::Lit32 {
                    (bw, [alt, LIT[1]])
                } else {
                    (f.insert(bw, alt), LIT)
                };
                match self.oracle.ask(w, lit) {
                    None => any_invalid = true,
                    Some(a) => {
                        any_valid = true;
                        let t2 = if rtn {
                            a.text.strip_suffix(rtn_suffix).unwrap_or(&a.text)
                        } else {
                            &a.text
                        };
                        let (mn2, mut ops2) = split_text(t2);
                        if mn2 == mnemonic && ops2.len() + 1 == ops.len() {
                            // An operand printed only when non-zero: find the one that vanished.
                            if let Some(i) = (0..ops.len()).find(|&i| {
                                let mut o = ops.clone();
                                o.remove(i);
                                o == ops2
                            }) {
                                ops2.insert(i, String::new());
                            }
                        }
                        if mn2 != mnemonic || ops2.len() != ops.len() {
                            return unsup(format!(
                                "field {f:?} changes the instruction shape: {}",
                                a.text
                            ));
                        }
                        let diff: Vec<usize> =
                            (0..ops.len()).filter(|&i| ops[i] != ops2[i]).collect();
                        match diff.as_slice() {
                            [] => {}
                            [i] => {
                                if changed.is_some_and(|c| c != *i) {
                                    return unsup(format!("field {f:?} moves between operands"));
                                }
                                changed = Some(*i);
                            }
                            _ => return unsup(format!("field {f:?} changes several operands")),
                        }
                    }
                }
            }
            if f == Field::Lit32 {
                // Not an encoding field: only an operand if some operand shows the literal.
                if let Some(i) = changed {
                    if bound[i].is_some() {
                        continue;
                    }
                    bound[i] = Some(f);
                }
                continue;
            }
            match changed {
                Some(i) => {
                    if bound[i].is_some() {
                        return unsup(format!("operand {i} depends on two fields"));
                    }
                    bound[i] = Some(f);
                }
                None if !any_invalid => unused.push((f, Unused::Ignored)),
                None if !any_valid => unused.push((f, Unused::MustBe(fvv))),
                None => return unsup(format!("field {f:?} is partly constrained")),
            }
        }
        // Operands no field changes are implicit: LLVM prints fixed text (checked below by
        // the whole-instruction check on random words).
        let fixed: Vec<Option<&'static str>> = bound
            .iter()
            .zip(&ops)
            .map(|(b, t)| {
                if b.is_none() {
                    Some(leak_str(t.clone()))
                } else {
                    None
                }
            })
            .collect();
        let mut ops = ops;
        let mut is_mod = vec![false; ops.len()];
        for f in modifiers {
            bound.push(Some(f));
            ops.push(if rtn && matches!(f, Field::FlatSc0 | Field::VfCpol) {
                rtn_suffix.trim().to_string()
            } else {
                String::new()
            });
            is_mod.push(true);
        }
        // Fit each operand's kind.
        let mut specs = Vec::new();
        let mut all_probes: Vec<(Word, [u32; 2], Option<Answer>)> = Vec::new();
        for (i, f) in bound.iter().enumerate() {
            let Some(f) = *f else {
                specs.push(OperandSpec {
                    field: Field::Implicit,
                    kind: Kind::Fixed(fixed[i].expect("fixed")),
                });
                continue;
            };
            let mut probes = probe_values(f, self.vop3_sdst);
            if rtn && vflat && f == Field::VfCpol {
                // Values without TH_ATOMIC_RETURN: compared with the base's non-returning form.
                for p in probes.iter_mut().filter(|p| p.0 & 4 == 0) {
                    p.2 = (1 << 52, 0);
                }
            }
            if self.vop3p_packed
                && matches!(f, Field::Vop3Src0 | Field::Vop3Src1 | Field::Vop3Src2)
            {
                // The neg bits are neg_lo/neg_hi, fitted on their own.
                probes.retain(|p| p.2 .1 == 0);
            }
            // (field value, probe word, literal dwords, LLVM's answer)
            let answers: Vec<(u32, Word, [u32; 2], Option<Answer>)> = probes
                .iter()
                .map(|&(v, l, aux)| {
                    let w = apply_aux(f.insert(bw, v), aux);
                    (v, w, l, self.oracle.ask(w, l))
                })
                .collect();
            for (_, w, l, a) in &answers {
                all_probes.push((*w, *l, a.clone()));
            }
            // The other operands' texts each probe is compared with: the base's, or (FLAT
            // probes that change another field too, e.g. saddr `off`) that variant's.
            let flat = matches!(format, Format::Global | Format::Scratch | Format::Flat);
            let n_mod = is_mod.iter().filter(|m| **m).count();
            let refs: Vec<Option<Vec<String>>> = probes
                .iter()
                .map(|&(_, _, aux)| {
                    if !flat || aux == (0, 0) {
                        return Some(ops.clone());
                    }
                    let a = self.oracle.ask(apply_aux(bw, aux), LIT)?;
                    let (mn2, mut o) = split_text(&a.text);
                    if rtn && vflat && o.len() + n_mod + 1 == ops.len() {
                        // The non-returning form: its destination vanished.
                        let plain = &ops[..ops.len() - n_mod];
                        if let Some(k) = (0..plain.len()).find(|&k| {
                            let mut p = plain.to_vec();
                            p.remove(k);
                            p == o
                        }) {
                            o.insert(k, String::new());
                        }
                    }
                    if mn2 != mnemonic || !a.comment.is_empty() || o.len() + n_mod != ops.len() {
                        return None;
                    }
                    o.extend(std::iter::repeat_n(String::new(), n_mod));
                    Some(o)
                })
                .collect();
            // Register-class names LLVM's notes mention for this operand give further candidates.
            let mut cands = candidates(f);
            if matches!(
                f,
                Field::Src0
                    | Field::SmemSdata
                    | Field::Vop3Src0
                    | Field::Vop3Src1
                    | Field::Vop3Src2
                    | Field::Vop3Vdst
            ) {
                let mut classes: Vec<&'static str> = Vec::new();
                for (_, _, _, a) in &answers {
                    if let Some(a) = a {
                        // Every note, not only the first: another source's invalid base register
                        // may print its own note before this one's (v_writelane_b32).
                        for c in a
                            .text
                            .split("operand has '")
                            .skip(1)
                            .filter_map(|t| t.split('\'').next())
                        {
                            if !classes.contains(&c) {
                                classes.push(leak_str(c.to_string()));
                            }
                        }
                    }
                }
                for class in classes {
                    // A VOP3 destination with a note is scalar (v_s_* ops: SReg_32_XEXEC).
                    if class.starts_with("AGPR") && !matches!(f, Field::SmemSdata | Field::Vop3Vdst) {
                        // An AGPR source (v_accvgpr_read_b32, v_accvgpr_mov_b32).
                        let idx = match f {
                            Field::Vop3Src1 => 1,
                            Field::Vop3Src2 => 2,
                            _ => 0,
                        };
                        for mods in [
                            spec::SrcMods::ModsIgnored,
                            spec::SrcMods::ModsInvalid,
                            spec::SrcMods::ModsNegInvalid,
                        ] {
                            cands.push(Kind::ASrc { class, idx, mods });
                        }
                    } else if !matches!(f, Field::SmemSdata | Field::Vop3Vdst) {
                        let idx = match f {
                            Field::Vop3Src1 => 1,
                            Field::Vop3Src2 => 2,
                            _ => 0,
                        };
                        let mods: &[spec::SrcMods] = if matches!(f, Field::Src0) {
                            &[spec::SrcMods::ModsIgnored]
                        } else {
                            &[
                                spec::SrcMods::ModsIgnored,
                                spec::SrcMods::ModsInvalid,
                                spec::SrcMods::ModsNegInvalid,
                            ]
                        };
                        for &m in mods {
                            cands.extend([1, 2, 3, 4, 8, 16].map(|dwords| Kind::VSrcVgpr {
                                dwords,
                                class,
                                idx,
                                mods: m,
                            }));
                            cands.push(Kind::VSrcSgpr {
                                class,
                                idx,
                                mods: m,
                            });
                        }
                        // SGPR-only float sources with neg/abs (v_s_exp_f32 s10, -s0).
                        if !matches!(f, Field::Src0) {
                            cands.push(Kind::VSrcSgpr {
                                class,
                                idx,
                                mods: spec::SrcMods::ModsNegAbs,
                            });
                        }
                    } else {
                        cands.extend(
                            [1, 2, 3, 4, 8, 16].map(|dwords| Kind::SDstX { dwords, class }),
                        );
                    }
                }
            }
            // FLAT: the atomic kinds for atomics (returning base), first; the others else.
            if rtn && vflat {
                cands.sort_by_key(|k| {
                    !matches!(k, Kind::VfVDstRtn { .. } | Kind::VfAtomicCachePolicy)
                });
            } else {
                cands.retain(|k| !matches!(k, Kind::VfVDstRtn { .. } | Kind::VfAtomicCachePolicy));
            }
            if rtn && !vflat {
                // AGPRs in the returning form: allowed iff LLVM decodes the base with acc set.
                let wa = Field::FlatAcc.insert(bw, 1);
                let acc_rule = match (
                    self.oracle.ask(wa, LIT).is_some(),
                    self.oracle.ask(Field::FlatSc1.insert(wa, 1), LIT).is_some(),
                ) {
                    (true, true) => 2u8,
                    (true, false) => 1,
                    _ => 0,
                };
                cands.retain(|k| !matches!(k, Kind::VDstRtn { acc, .. } if *acc != acc_rule));
                cands.sort_by_key(|k| !matches!(k, Kind::VDataRtn { .. } | Kind::VDstRtn { .. }));
            } else {
                cands.retain(|k| !matches!(k, Kind::VDataRtn { .. } | Kind::VDstRtn { .. }));
            }
            // gfx1250 VFLAT (seg 0) prints no `off` for saddr.
            if format == Format::Flat && !g9_flat {
                cands.sort_by_key(|k| !matches!(k, Kind::FlatSaddrOpt { .. }));
            } else {
                cands.retain(|k| !matches!(k, Kind::FlatSaddrOpt { .. }));
            }
            if self.vop3p_packed
                && matches!(f, Field::Vop3Src0 | Field::Vop3Src1 | Field::Vop3Src2)
            {
                // Packed VOP3P: bits 63:61 and 10:8 are neg_lo/neg_hi (PkBits), not the
                // sources' neg/abs: a source kind must not read them.
                cands.retain(|k| {
                    !matches!(
                        k,
                        Kind::VSrcM { mods, .. }
                            | Kind::VSrcNoConst { mods, .. }
                            | Kind::VSrcVgpr { mods, .. }
                            | Kind::VSrcSgpr { mods, .. }
                            | Kind::ASrc { mods, .. }
                            if *mods != spec::SrcMods::ModsIgnored
                    )
                });
            }
            if self.vop3_sdst {
                // Bits 10:8 are the carry-out SGPR: no source has abs bits.
                cands.retain(|k| {
                    !matches!(
                        k,
                        Kind::VSrcM {
                            mods: spec::SrcMods::ModsNegAbs | spec::SrcMods::ModsInvalid,
                            ..
                        } | Kind::VSrcNoConst {
                            mods: spec::SrcMods::ModsInvalid,
                            ..
                        } | Kind::VSrcVgpr {
                            mods: spec::SrcMods::ModsInvalid,
                            ..
                        } | Kind::VSrcSgpr {
                            mods: spec::SrcMods::ModsInvalid,
                            ..
                        }
                    )
                });
            }
            let mut fit = None;
            'cand: for kind in cands {
                for (k, (v, w, l, a)) in answers.iter().enumerate() {
                    let Some(ref_ops) = &refs[k] else { continue };
                    if spec::oracle_crashes64(self.target, *w as u64, l[0]) {
                        continue;
                    }
                    // With a mandatory literal in the base form, a literal source interacts with
                    // it: left to the whole-instruction check below.
                    if ba.len > spec::format_len(self.target.family(), format)
                        && matches!(
                            f,
                            Field::Ssrc0
                                | Field::Ssrc1
                                | Field::Src0
                                | Field::Vop3Src0
                                | Field::Vop3Src1
                                | Field::Vop3Src2
                        )
                        && (*v == 254 || *v == 255)
                    {
                        // Relaxed: only this operand's own text, when LLVM decodes the word.
                        if let (Some(a), Some((t, _, _))) = (
                            a,
                            predict_len(
                                self.target,
                                kind,
                                *v,
                                *w,
                                *l,
                                self.names,
                                spec::format_len(self.target.family(), format),
                            ),
                        ) {
                            let (_, ops2) = split_text(&a.text);
                            if ops2.get(i) != Some(&t) {
                                continue 'cand;
                            }
                        }
                        continue;
                    }
                    let p = predict_len(
                        self.target,
                        kind,
                        *v,
                        *w,
                        *l,
                        self.names,
                        spec::format_len(self.target.family(), format),
                    );
                    if p.as_ref().is_some_and(|p| p.0 == "<unsupported>") {
                        continue;
                    }
                    let ok = match (a, &p) {
                        (None, None) => true,
                        (Some(a), Some((t, c, len))) => {
                            // The whole text must be the base text with this operand replaced.
                            let mut o = ref_ops.clone();
                            o[i] = t.clone();
                            let want = render(&mnemonic, &o, &is_mod);
                            a.text == want && a.comment == *c && a.len == (*len).max(ba.len)
                        }
                        _ => false,
                    };
                    if !ok {
                        if std::env::var_os("HX_TABLES_DEBUG").is_some() {
                            eprintln!("{} {mnemonic} {kind:?} v={v} lit={l:x?}: llvm {a:?} predicted {p:?}", self.target.cpu());
                        }
                        continue 'cand;
                    }
                }
                fit = Some(kind);
                break;
            }
            if let Some(kind) = fit.filter(|&k| exhaustive(k)) {
                for v in 0..=0xffffu32 {
                    let a = self.oracle.ask(f.insert(bw, v), LIT);
                    let p = predict_len(
                        self.target,
                        kind,
                        v,
                        f.insert(bw, v),
                        LIT,
                        self.names,
                        spec::format_len(self.target.family(), format),
                    );
                    if p.as_ref().is_some_and(|p| p.0 == "<unsupported>") {
                        continue;
                    }
                    let ok = match (&a, &p) {
                        (None, None) => true,
                        (Some(a), Some((t, c, len))) => {
                            let mut o = ops.clone();
                            o[i] = t.clone();
                            let want = render(&mnemonic, &o, &is_mod);
                            a.text == want && a.comment == *c && a.len == (*len).max(ba.len)
                        }
                        _ => false,
                    };
                    if !ok {
                        return unsup(format!(
                            "{kind:?} disagrees with LLVM at {v:#06x}: LLVM {:?}, predicted {:?}",
                            a.map(|a| a.text),
                            p.map(|p| p.0)
                        ));
                    }
                }
            }
            if is_mod[i]
                && answers.iter().all(|(_, _, _, a)| {
                    a.as_ref()
                        .is_some_and(|a| a.text == ba.text && a.comment == ba.comment)
                })
            {
                unused.push((f, Unused::Ignored));
                continue;
            }
            if is_mod[i] && answers.iter().all(|(v, _, _, a)| *v == 0 || a.is_none()) {
                unused.push((f, Unused::MustBe(0)));
                continue;
            }
            if is_mod[i] && fit.is_none() {
                // Some bits must be clear, LLVM ignores the others (gfx950 v_cvt_pk_bf16_f32's
                // op_sel): every probe is invalid iff it sets one of the bits that are invalid
                // alone, and prints the base text otherwise.
                let bad = answers
                    .iter()
                    .filter(|(v, _, _, a)| v.count_ones() == 1 && a.is_none())
                    .fold(0u32, |m, (v, _, _, _)| m | v);
                let rule = bad != 0
                    && answers.iter().all(|(v, _, _, a)| match a {
                        None => v & bad != 0,
                        Some(a) => v & bad == 0 && a.text == ba.text && a.comment == ba.comment,
                    });
                if rule {
                    unused.push((f, Unused::ZeroBits(bad)));
                    continue;
                }
            }
            match fit {
                Some(kind) => specs.push(OperandSpec { field: f, kind }),
                None => {
                    // Report the first disagreement of the closest candidate for the log.
                    return unsup(format!(
                        "no operand kind reproduces operand {i} ({}) of field {f:?}",
                        ops[i]
                    ));
                }
            }
        }
        // VOP3: the neg/abs bits of sources the opcode lacks (or whose modifiers it ignores)
        // may still be checked by LLVM: probe each bit alone.
        if format == Format::Vop3 || (format == Format::Vop3p && !self.vop3p_packed) {
            let has_mods = |idx: u8| {
                specs.iter().any(|s: &OperandSpec| match s.kind {
                    Kind::VSrcM { idx: i, mods, .. }
                    | Kind::VSrcNoConst { idx: i, mods, .. }
                    | Kind::VSrcVgpr { idx: i, mods, .. }
                    | Kind::VSrcSgpr { idx: i, mods, .. } => {
                        i == idx && mods != spec::SrcMods::ModsIgnored
                    }
                    _ => false,
                })
            };
            let bit_fields = [
                (0u8, Field::Vop3Neg0),
                (1, Field::Vop3Neg1),
                (2, Field::Vop3Neg2),
                (0, Field::Vop3Abs0),
                (1, Field::Vop3Abs1),
                (2, Field::Vop3Abs2),
            ];
            for (idx, bf) in bit_fields {
                if has_mods(idx)
                    || (self.vop3_sdst
                        && matches!(bf, Field::Vop3Abs0 | Field::Vop3Abs1 | Field::Vop3Abs2))
                {
                    continue;
                }
                match self.oracle.ask(bf.insert(bw, 1), LIT) {
                    None => unused.push((bf, Unused::MustBe(0))),
                    Some(a) if a.text == ba.text && a.comment == ba.comment => {
                        unused.push((bf, Unused::Ignored))
                    }
                    Some(a) => return unsup(format!("{bf:?} changes the text: {}", a.text)),
                }
            }
        }
        // GFX9 DS acc bit: AGPR data/destination. The decoder reads it for the data and
        // destination operands (`operand::decode_fields`); the random words below check that.
        if format == Format::Ds && self.target.family() == spec::Family::Gfx9 {
            match self.oracle.ask(Field::DsAcc.insert(bw, 1), LIT) {
                None => unused.push((Field::DsAcc, Unused::MustBe(0))),
                Some(a) if a.text == ba.text && a.comment == ba.comment => {
                    unused.push((Field::DsAcc, Unused::Ignored))
                }
                Some(_) => {}
            }
        }
        // GFX9 FLAT lds/sve (bit 13) and acc (bit 55): other instructions or AGPR data, not
        // modelled yet unless LLVM rejects or ignores them.
        if g9_flat {
            for bf in [Field::FlatLds, Field::FlatAcc] {
                if specs.iter().any(|s: &OperandSpec| s.field == bf)
                    || (sve && bf == Field::FlatLds)
                {
                    continue;
                }
                // Atomics: judged on the form without return (the returning destination's
                // kind says whether AGPRs are allowed there).
                let b = if rtn {
                    Field::FlatSc0.insert(bw, 0)
                } else {
                    bw
                };
                let base = self.oracle.ask(b, LIT);
                let v = match (self.oracle.ask(bf.insert(b, 1), LIT), base) {
                    (None, _) => Unused::MustBe(0),
                    (Some(a), Some(ba)) if a.text == ba.text && a.comment == ba.comment => {
                        Unused::Ignored
                    }
                    _ => Unused::Unmodelled(0),
                };
                // acc: the register operands' kinds read it (AGPRs); checked below on random
                // words.
                let data_kinds = specs
                    .iter()
                    .any(|s: &OperandSpec| matches!(s.field, Field::FlatVdst | Field::FlatVdata));
                if bf == Field::FlatAcc && v == Unused::Unmodelled(0) && data_kinds {
                    continue;
                }
                unused.push((bf, v));
            }
        }
        let info = OpInfo {
            mnemonic: leak_str(mnemonic),
            // Assigned when the tables are written (sem_ids.rs, over every target).
            sem: spec::SemId::NONE,
            format,
            opcode: op as u16,
            operands: Box::leak(specs.into_boxed_slice()),
            unused: Box::leak(unused.into_boxed_slice()),
        };
        // Whole-instruction check: every probe so far plus random words of this opcode must
        // decode and print exactly as LLVM does (or be refused as unsupported).
        let (mask, m, shift, width) =
            format_encoding(self.target.family(), format).expect("format has an encoding");
        let opbits = ((1u32 << width) - 1) << shift;
        let len = spec::format_len(self.target.family(), format);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ (op as u64) << 8 ^ format as u64;
        for _ in 0..RANDOM_CHECKS {
            let mut next = || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng >> 16) as u32
            };
            let lo = (next() & !mask & !opbits) | m | (op << shift);
            let mut w = lo as Word | if len >= 8 { (next() as Word) << 32 } else { 0 };
            if len == 12 {
                w |= (next() as Word) << 64;
            }
            if matches!(format, Format::Vop3 | Format::Vop3p) && next() % 2 == 0 {
                // Half the VOP3 words: VGPR sources and no neg bits, so that valid words with
                // modifiers (op_sel, clamp, omod, abs) are frequent.
                w &= !((0x7 as Word) << 61);
                for i in 0..3 {
                    w |= (0x100 as Word) << (32 + 9 * i);
                }
            }
            let l = [
                LIT_PROBES[(next() % LIT_PROBES.len() as u32) as usize][0],
                next(),
            ];
            let a = self.oracle.ask(w, l);
            all_probes.push((w, l, a));
        }
        // Words derived from the base: every field of the table entry random (operands from
        // their whole range), constraints kept, and one random bit of the fixed part flipped
        // in half of them (bits no field covers are checked this way).
        for k in 0..RANDOM_CHECKS {
            let mut next = || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng >> 16) as u32
            };
            let mut w = bw;
            for spec in info.operands {
                let (_, width) = spec.field.bits();
                if width > 0 && width <= 32 {
                    w = spec.field.insert(w, next());
                }
            }
            if k % 2 == 1 {
                let bit = next() % (8 * len as u32);
                let is_op = bit < 32 && ((opbits | mask) >> bit) & 1 == 1;
                if !is_op {
                    w ^= (1 as Word) << bit;
                }
            }
            let l = [
                LIT_PROBES[(next() % LIT_PROBES.len() as u32) as usize][0],
                next(),
            ];
            let a = self.oracle.ask(w, l);
            all_probes.push((w, l, a));
        }
        for (w, l, a) in &all_probes {
            if spec::oracle_crashes64(self.target, *w as u64, l[0])
                || spec::vop_extension(self.target, *w as u32).is_some()
            {
                continue;
            }
            let mut b = w.to_le_bytes()[..len].to_vec();
            b.extend_from_slice(&l[0].to_le_bytes());
            b.extend_from_slice(&l[1].to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes());
            let ours = match decode_fields(self.target, &info, *w, &b) {
                Ok(d) => Some((
                    d.len,
                    format_inst(
                        self.target,
                        info.mnemonic,
                        &d.operands,
                        Some(*w),
                        self.names,
                    ),
                )),
                Err(OperandError::Unsupported) => continue,
                Err(_) => None,
            };
            let theirs = a.as_ref().map(|a| {
                (
                    a.len,
                    if a.comment.is_empty() {
                        a.text.clone()
                    } else {
                        format!("{} ; {}", a.text, a.comment)
                    },
                )
            });
            if ours != theirs {
                if std::env::var_os("HX_TABLES_DEBUG").is_some() {
                    eprintln!(
                        "{} whole-instruction check of {:?}",
                        self.target.cpu(),
                        info
                    );
                }
                return unsup(format!("whole-instruction check fails at {w:#010x} {l:x?}: LLVM {theirs:?}, ours {ours:?}"));
            }
        }
        Entry::Ok(info)
    }

    /// The symbolic `sendmsg(...)` forms of `s_sendmsg`: every immediate is swept, the values
    /// printing one symbolic text must form one (care mask, value) class.
    fn sendmsg_forms(&mut self) -> Result<Vec<(u16, u16, String)>> {
        let op = (0..opcode_count(self.target.family(), Format::Sopp))
            .find(|&op| {
                let w = encode(
                    self.target.family(),
                    Format::Sopp,
                    op,
                    &[(Field::Simm16, 1)],
                );
                self.oracle
                    .ask(w, LIT)
                    .is_some_and(|a| a.text.starts_with("s_sendmsg "))
            })
            .context("no s_sendmsg in SOPP")?;
        let mut groups: Vec<(String, Vec<u16>)> = Vec::new();
        for v in 0..=0xffffu32 {
            let w = encode(
                self.target.family(),
                Format::Sopp,
                op,
                &[(Field::Simm16, v)],
            );
            let Some(a) = self.oracle.ask(w, LIT) else {
                continue;
            };
            let Some(inner) = a
                .text
                .strip_prefix("s_sendmsg sendmsg(")
                .and_then(|t| t.strip_suffix(')'))
            else {
                continue;
            };
            if !inner.starts_with(|c: char| c.is_ascii_alphabetic()) {
                continue;
            }
            match groups.iter_mut().find(|(t, _)| t == inner) {
                Some((_, vs)) => vs.push(v as u16),
                None => groups.push((inner.to_string(), vec![v as u16])),
            }
        }
        let mut forms = Vec::new();
        for (t, vs) in groups {
            let first = vs[0];
            let varying = vs.iter().fold(0u16, |acc, &x| acc | (x ^ first));
            let care = !varying;
            if vs.len() != 1usize << varying.count_ones() {
                bail!(
                    "{}: sendmsg form {t} is not one mask class ({} values)",
                    self.target.cpu(),
                    vs.len()
                );
            }
            forms.push((care, first & care, t));
        }
        Ok(forms)
    }

    /// Names of `s_sendmsg_rtn_b32` message ids (none when the target has no such instruction).
    fn sendmsg_rtn_names(&mut self) -> Vec<Option<String>> {
        let op = (0..opcode_count(self.target.family(), Format::Sop1)).find(|&op| {
            let w = encode(
                self.target.family(),
                Format::Sop1,
                op,
                &[(Field::Sdst, 10), (Field::Ssrc0, 0x80)],
            );
            self.oracle
                .ask(w, LIT)
                .is_some_and(|a| a.text.starts_with("s_sendmsg_rtn_b32 "))
        });
        let Some(op) = op else { return Vec::new() };
        (0..256u32)
            .map(|id| {
                let w = encode(
                    self.target.family(),
                    Format::Sop1,
                    op,
                    &[(Field::Sdst, 10), (Field::Ssrc0, id)],
                );
                self.oracle.ask(w, LIT).and_then(|a| {
                    let inner = a
                        .text
                        .split("sendmsg(")
                        .nth(1)?
                        .trim_end_matches(')')
                        .to_string();
                    inner
                        .starts_with(|c: char| c.is_ascii_alphabetic())
                        .then_some(inner)
                })
            })
            .collect()
    }

    /// Names of `hwreg(...)` ids, found through `s_getreg_b32`.
    fn hwreg_names(&mut self) -> Result<Vec<Option<String>>> {
        let getreg = (0..opcode_count(self.target.family(), Format::Sopk))
            .find(|&op| {
                let w = encode(
                    self.target.family(),
                    Format::Sopk,
                    op,
                    &[(Field::Sdst, 10), (Field::Simm16, 0xf801)],
                );
                self.oracle
                    .ask(w, LIT)
                    .is_some_and(|a| a.text.starts_with("s_getreg_b32 "))
            })
            .context("no s_getreg_b32 in SOPK")?;
        let mut names = Vec::new();
        for id in 0..64u32 {
            let w = encode(
                self.target.family(),
                Format::Sopk,
                getreg,
                &[(Field::Sdst, 10), (Field::Simm16, id | 31 << 11)],
            );
            let name = self.oracle.ask(w, LIT).and_then(|a| {
                let t = a
                    .text
                    .split("hwreg(")
                    .nth(1)?
                    .trim_end_matches(')')
                    .to_string();
                if t.chars().all(|c| c.is_ascii_digit()) {
                    None
                } else {
                    Some(t)
                }
            });
            names.push(name);
        }
        Ok(names)
    }
}

fn module_name(t: Target) -> &'static str {
    t.cpu()
}

fn static_name(f: Format) -> &'static str {
    f.name()
}

/// Generates one target's table source.
fn generate_target(target: Target) -> Result<String> {
    let d = Disassembler::new(gpu(target))
        .with_context(|| format!("LLVM disassembler for {}", target.cpu()))?;
    let mut g = Gen {
        target,
        oracle: Oracle { d, target, len: 4 },
        names: Names::EMPTY,
        vop3_sdst: false,
        vop3p_packed: false,
        smem_split: false,
    };
    let names = g.hwreg_names()?;
    let leaked: Vec<Option<&'static str>> = names.iter().map(|n| n.clone().map(leak_str)).collect();
    let sendmsg = g.sendmsg_forms()?;
    let sendmsg_leaked: Vec<(u16, u16, &'static str)> = sendmsg
        .iter()
        .map(|(c, v, t)| (*c, *v, leak_str(t.clone())))
        .collect();
    let rtn = g.sendmsg_rtn_names();
    let rtn_leaked: Vec<Option<&'static str>> =
        rtn.iter().map(|n| n.clone().map(leak_str)).collect();
    g.names = Names {
        hwreg: Box::leak(leaked.into_boxed_slice()),
        sendmsg: Box::leak(sendmsg_leaked.into_boxed_slice()),
        sendmsg_rtn: Box::leak(rtn_leaked.into_boxed_slice()),
    };

    let mut out = String::new();
    out.push_str("// Generated by `cargo xtask tables`; do not edit by hand.\n");
    let _ = writeln!(
        out,
        "// Source: LLVM's AMDGPU disassembler for {} (see crates/isa-gen/src/lib.rs).",
        target.cpu()
    );
    out.push_str("#![allow(clippy::all, unused_imports)]\n");
    out.push_str("use crate::spec::{Field::*, Format, Imm16::*, KImmStyle::*, Kind::*, OpInfo, OperandSpec, SrcMods::*, Unused::*, ValType::*};\n");
    out.push_str("use super::sem_ids as ids;\n\n");
    out.push_str("/// `hwreg(...)` names by id.\n");
    let _ = writeln!(
        out,
        "pub static HWREG_NAMES: [Option<&str>; {}] = [",
        names.len()
    );
    for n in &names {
        match n {
            Some(s) => {
                let _ = writeln!(out, "    Some({s:?}),");
            }
            None => out.push_str("    None,\n"),
        }
    }
    out.push_str("];\n");
    out.push_str("\n/// `s_sendmsg_rtn_*` message names by id.\n");
    let _ = writeln!(
        out,
        "pub static SENDMSG_RTN: [Option<&str>; {}] = [",
        rtn.len()
    );
    for n in &rtn {
        match n {
            Some(s) => {
                let _ = writeln!(out, "    Some({s:?}),");
            }
            None => out.push_str("    None,\n"),
        }
    }
    out.push_str("];\n");
    out.push_str(
        "\n/// `sendmsg(...)` symbolic forms: (care mask, value, text); first match applies.\n",
    );
    out.push_str("pub static SENDMSG: &[(u16, u16, &str)] = &[\n");
    for (c, v, t) in &sendmsg {
        let _ = writeln!(out, "    (0x{c:04x}, 0x{v:04x}, {t:?}),");
    }
    out.push_str("];\n");
    let mut unsupported = Vec::new();
    for format in FORMATS {
        if std::env::var_os("HX_TABLES_TRACE").is_some() {
            eprintln!("format {format:?}");
        }
        let modelled = spec::modelled(target, format);
        let count = opcode_count(target.family(), format);
        let _ = writeln!(
            out,
            "\n/// {} opcodes (index = opcode field).",
            format.name()
        );
        let _ = writeln!(
            out,
            "pub static {}: [Option<OpInfo>; {count}] = [",
            static_name(format)
        );
        for op in 0..count {
            if !modelled {
                let _ = writeln!(out, "    None, // 0x{op:02x}");
                continue;
            }
            let mut entry = g.gen_opcode(format, op);
            if matches!(&entry, Entry::Unsupported { why, .. } if why.contains("SmemOffset moves between operands"))
            {
                // Offset and soffset printed as two operands (s_prefetch_*): split the field.
                g.smem_split = true;
                entry = g.gen_opcode(format, op);
                g.smem_split = false;
            }
            match entry {
                Entry::Invalid => {
                    let _ = writeln!(out, "    None, // 0x{op:02x}");
                }
                Entry::Unsupported { text, why } => {
                    let _ = writeln!(out, "    None, // 0x{op:02x} unsupported: {text}");
                    unsupported.push((format, op, text, why));
                }
                Entry::Ok(info) => {
                    let _ = writeln!(
                        out,
                        "    Some(OpInfo {{ mnemonic: {:?}, sem: ids::{}, format: Format::{:?}, opcode: 0x{:02x}, operands: &{:?}, unused: &{:?} }}),",
                        info.mnemonic, sem_const(info.mnemonic), info.format, info.opcode, info.operands, info.unused
                    );
                }
            }
        }
        out.push_str("];\n");
    }
    out.push_str("\n/// Opcodes LLVM decodes that the tables do not model yet: (format, opcode, LLVM text, reason).\n");
    out.push_str("pub static UNSUPPORTED: &[(Format, u16, &str, &str)] = &[\n");
    for (f, op, text, why) in &unsupported {
        let _ = writeln!(out, "    (Format::{f:?}, 0x{op:02x}, {text:?}, {why:?}),");
    }
    out.push_str("];\n");
    let _ = module_name(target);
    Ok(out)
}

/// One opcode's table entry (or why it is unsupported), for working on the fitting:
/// `cargo xtask tables-one gfx1250 VOP3 0x303` (with `HX_TABLES_DEBUG=1` for each rejected kind).
#[allow(dead_code)] // `cargo xtask tables-one`; unused by the tests that include this file
pub fn generate_one(target: Target, format: Format, op: u32) -> Result<String> {
    let d = Disassembler::new(gpu(target))
        .with_context(|| format!("LLVM disassembler for {}", target.cpu()))?;
    let mut g = Gen {
        target,
        oracle: Oracle { d, target, len: 4 },
        names: Names::EMPTY,
        vop3_sdst: false,
        vop3p_packed: false,
        smem_split: false,
    };
    if std::env::var_os("HX_TABLES_NAMES").is_some() {
        let names = g.hwreg_names()?;
        let leaked: Vec<Option<&'static str>> = names.iter().map(|n| n.clone().map(leak_str)).collect();
        g.names = Names { hwreg: Box::leak(leaked.into_boxed_slice()), sendmsg: &[], sendmsg_rtn: &[] };
    }
    // HX_TABLES_WARM=n: fit the n opcodes before `op` first (the full run's order).
    let warm: u32 = std::env::var("HX_TABLES_WARM").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    for o in op.saturating_sub(warm)..op {
        let _ = g.gen_opcode(format, o);
    }
    Ok(format!("{:?}", g.gen_opcode(format, op)))
}

/// The constant of a mnemonic's [`spec::SemId`] in sem_ids.rs: its stem in capitals.
fn sem_const(mnemonic: &str) -> String {
    spec::mnemonic_stem(mnemonic).to_ascii_uppercase()
}

/// Mnemonics hx-isa decodes by hand, outside the generated tables, whose meaning hx-sem keys on
/// their id: the true16 `v_mov_b16` (LLVM decodes it only with +real-true16, while the tables
/// are fitted in its default mode; crates/isa/src/true16.rs) and `v_bitop3_b16/b32`
/// (crates/isa/src/bitop3.rs).
const HAND_DECODED: &[&str] = &["v_bitop3_b16", "v_bitop3_b32", "v_mov_b16"];

/// sem_ids.rs: every mnemonic stem of the target tables' entries (`mnemonic: "..."`) and of
/// [`HAND_DECODED`], sorted, with its id (the index) and a constant each.
fn sem_ids_source(tables: &[String]) -> String {
    let mut stems: std::collections::BTreeSet<String> = HAND_DECODED.iter().map(|s| s.to_string()).collect();
    for t in tables {
        for part in t.split("mnemonic: \"").skip(1) {
            if let Some(end) = part.find('"') {
                stems.insert(spec::mnemonic_stem(&part[..end]).to_string());
            }
        }
    }
    let mut out = String::from("// Generated by `cargo xtask tables`; do not edit by hand.\n");
    out.push_str("// The semantic ids (hx_isa::SemId): every mnemonic stem of the gfx1250, gfx942 and gfx950 tables,\n");
    out.push_str("// sorted; the id is the index (see crates/isa-gen/src/lib.rs).\n");
    out.push_str("#![allow(clippy::all)]\nuse crate::spec::SemId;\n\n");
    let _ = writeln!(out, "/// Each id's stem.\npub static NAMES: [&str; {}] = [", stems.len());
    for s in &stems {
        let _ = writeln!(out, "    {s:?},");
    }
    out.push_str("];\n\n");
    for (i, s) in stems.iter().enumerate() {
        let _ = writeln!(out, "pub const {}: SemId = SemId({i});", s.to_ascii_uppercase());
    }
    out
}

/// Writes `gfx1250.rs`, `gfx942.rs`, `gfx950.rs` and `sem_ids.rs` into `out_dir` (normally
/// crates/isa/src/tables). With `HX_TABLES_TARGETS`, the other targets' tables are read from
/// `out_dir` for the ids.
pub fn generate(out_dir: &Path) -> Result<()> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    // HX_TABLES_TARGETS=gfx942,gfx950 limits a developer's run to some targets.
    let only = std::env::var("HX_TABLES_TARGETS").ok();
    for target in Target::ALL {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|t| t == target.cpu())) {
            continue;
        }
        let src = generate_target(target)?;
        if !src.contains("pub static SOP2") {
            bail!(
                "table generation for {} produced no SOP2 table",
                target.cpu()
            );
        }
        let path = out_dir.join(format!("{}.rs", module_name(target)));
        std::fs::write(&path, src).with_context(|| format!("writing {}", path.display()))?;
    }
    let mut tables = Vec::new();
    for target in Target::ALL {
        let path = out_dir.join(format!("{}.rs", module_name(target)));
        tables.push(std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?);
    }
    let path = out_dir.join("sem_ids.rs");
    std::fs::write(&path, sem_ids_source(&tables)).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
