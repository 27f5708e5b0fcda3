//! gfx1250 VOPD / VOPD3 (dual-issue) words.
//!
//! A VOPD word holds two independent VALU operations, X and Y, that read all their sources
//! before either writes. Each half is an ordinary gfx1250 VALU operation: this module turns
//! each into the equivalent single instruction (VOP1/VOP2 for VOPD, VOP3 for VOPD3, whose
//! halves carry neg modifiers, a third source and an SGPR mask) and decodes that with the
//! regular tables. So a half has exactly the operand shapes, value types and text of the
//! instruction it stands for, and the emulator and raiser execute it like any other;
//! [`Instruction::vopd_parts`] hands them out. The text of the pair is the two halves' texts
//! with `v_dual_` names, joined by ` :: `, as LLVM prints it.
//!
//! Encodings (checked against LLVM 22, crates/isa/tests/vopd_facts.rs):
//! - VOPD (bits 31:26 = 0x32, 8 bytes, 12 with a literal): src0X[8:0], vsrc1X[16:9], opY[21:17],
//!   opX[25:22], src0Y[40:32], vsrc1Y[48:41], vdstY[55:49] (see [`vopd_vdst_y`]), vdstX[63:56].
//! - VOPD3 (bits 31:24 = 0xcf, 12 bytes, 16 with a literal): src0X[8:0], opY[17:12], opX[23:18],
//!   src0Y[40:32], neg bits 41..46 (src0X, src1X, src2X, src0Y, src1Y, src2Y), vsrc1X[55:48],
//!   vsrc2X[63:56], vdstX[71:64], vsrc1Y[79:72], vsrc2Y or bitop3[87:80], vdstY[95:88].
//!
//! Not modelled (reported as `DecodeError::Unsupported`): the dot2acc halves (gfx1250 has no
//! single VOP2 form of them), and any half whose single-instruction form this crate does not
//! decode yet (e.g. a DPP source).

use crate::operand::InstOperand;
use crate::spec::{Field, Kind, OperandSpec};
use crate::{DecodeError, Format, Instruction, OpInfo, Target};

/// VOPD (bits 31:26 = 0x32) holds vdstY >> 1 in a 7-bit field; the low bit is the opposite of
/// vdstX's, so the two results never share a VGPR bank.
pub fn vopd_vdst_y(field: u32, vdst_x: u32) -> u32 {
    ((field & 0x7f) << 1) | ((vdst_x & 1) ^ 1)
}

/// The pair instruction's table entries: its operands live in the halves.
/// The slot a remapped VOPD word keeps its `s_set_vgpr_msb` state in (printed as nothing).
static MSB_STATE: OperandSpec = OperandSpec { field: Field::Implicit, kind: Kind::Fixed("") };
static VOPD_INFO: OpInfo = OpInfo { mnemonic: "v_dual", sem: crate::SemId::NONE, format: Format::Vopd, opcode: 0, operands: &[], unused: &[] };
static VOPD3_INFO: OpInfo = OpInfo { mnemonic: "v_dual_e96", sem: crate::SemId::NONE, format: Format::Vopd, opcode: 1, operands: &[], unused: &[] };

/// How one half is spelled as a single instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Single {
    /// VOP2 opcode: `op vdst, src0, vsrc1` (or with the mandatory literal for fmaak/fmamk).
    Vop2(u32),
    /// VOP1 v_mov_b32: `vdst, src0`.
    Mov,
    /// VOP3 opcode; `srcs` sources, the last one the SGPR mask for cndmask.
    Vop3 { op: u32, srcs: u8, mask: bool },
    /// VOP3 v_bitop3_b32 with src2 = 0 (VOPD3's bitop2 holds the truth table in vsrc2Y).
    Bitop2,
    /// A half LLVM accepts that has no single form here.
    NoSingle,
}

/// VOPD X/Y opcodes (X uses 0..=13). `None`: not an opcode.
fn vopd_op(op: u32) -> Option<Single> {
    use Single::*;
    Some(match op {
        0 => Vop2(0x2b), // v_fmac_f32
        1 => Vop2(0x2d), // v_fmaak_f32
        2 => Vop2(0x2c), // v_fmamk_f32
        3 => Vop2(0x08), // v_mul_f32
        4 => Vop2(0x03), // v_add_f32
        5 => Vop2(0x04), // v_sub_f32
        6 => Vop2(0x05), // v_subrev_f32
        7 => Vop2(0x07), // v_mul_dx9_zero_f32
        8 => Mov,
        9 => Vop2(0x01), // v_cndmask_b32 (mask: vcc_lo)
        10 => Vop2(0x16), // v_max_num_f32
        11 => Vop2(0x15), // v_min_num_f32
        12 | 13 => NoSingle, // v_dot2acc_f32_f16 / _bf16
        16 => Vop2(0x25), // v_add_nc_u32
        17 => Vop2(0x18), // v_lshlrev_b32
        20 => Vop2(0x26), // v_sub_nc_u32
        21 => Vop2(0x19), // v_lshrrev_b32
        22 => Vop2(0x1a), // v_ashrrev_i32
        23 => Vop2(0x12), // v_max_i32
        24 => Vop2(0x11), // v_min_i32
        _ => return None,
    })
}

/// VOPD3 X/Y opcodes as VOP3 (`y`: the Y slot, which has bitop2 and no f64 ops).
fn vopd3_op(op: u32, y: bool) -> Option<Single> {
    use Single::*;
    let v3 = |op, srcs| Vop3 { op, srcs, mask: false };
    Some(match op {
        0 => v3(0x12b, 2), // v_fmac_f32
        3 => v3(0x108, 2),
        4 => v3(0x103, 2),
        5 => v3(0x104, 2),
        6 => v3(0x105, 2),
        7 => v3(0x107, 2),
        8 => v3(0x181, 1), // v_mov_b32
        9 => Vop3 { op: 0x101, srcs: 3, mask: true },
        10 => v3(0x116, 2),
        11 => v3(0x115, 2),
        12 | 13 => NoSingle,
        16 => v3(0x125, 2),
        17 => v3(0x118, 2),
        18 if y => Bitop2,
        19 => v3(0x213, 3), // v_fma_f32
        20 => v3(0x126, 2),
        21 => v3(0x119, 2),
        22 => v3(0x11a, 2),
        23 if y => v3(0x112, 2),
        24 if y => v3(0x111, 2),
        32 if !y => v3(0x214, 3), // v_fma_f64
        33 if !y => v3(0x102, 2), // v_add_f64
        34 if !y => v3(0x106, 2), // v_mul_f64
        35 if !y => v3(0x10e, 2), // v_max_num_f64
        36 if !y => v3(0x10d, 2), // v_min_num_f64
        _ => return None,
    })
}

/// One half's fields.
#[derive(Clone, Copy)]
struct Half {
    single: Single,
    vdst: u32,
    src0: u32,
    vsrc1: u32,
    /// VOPD3: vsrc2 (or the cndmask SGPR, or bitop2's truth table).
    vsrc2: u32,
    /// VOPD3: neg bits of src0, src1, src2.
    neg: u32,
}

/// The VOPD/VOPD3 fixed part, split.
struct Fields {
    vopd3: bool,
    x: Half,
    y: Half,
}

fn fields(word: u128) -> Result<Fields, bool> {
    let f = |lo: u32, n: u32| ((word >> lo) as u32) & ((1u32 << n) - 1);
    if f(24, 8) == 0xcf {
        let (opx, opy) = (f(18, 6), f(12, 6));
        let x = vopd3_op(opx, false).ok_or(false)?;
        let y = vopd3_op(opy, true).ok_or(false)?;
        let neg = f(41, 6);
        Ok(Fields {
            vopd3: true,
            x: Half { single: x, vdst: f(64, 8), src0: f(0, 9), vsrc1: f(48, 8), vsrc2: f(56, 8), neg: neg & 7 },
            y: Half { single: y, vdst: f(88, 8), src0: f(32, 9), vsrc1: f(72, 8), vsrc2: f(80, 8), neg: neg >> 3 },
        })
    } else {
        let (opx, opy) = (f(22, 4), f(17, 5));
        let x = vopd_op(opx).filter(|_| opx <= 13).ok_or(false)?;
        let y = vopd_op(opy).ok_or(false)?;
        let vdst_x = f(56, 8);
        Ok(Fields {
            vopd3: false,
            x: Half { single: x, vdst: vdst_x, src0: f(0, 9), vsrc1: f(9, 8), vsrc2: 0, neg: 0 },
            y: Half { single: y, vdst: vopd_vdst_y(f(49, 7), vdst_x), src0: f(32, 9), vsrc1: f(41, 8), vsrc2: 0, neg: 0 },
        })
    }
}

/// Why a half has no single instruction: the pair is invalid (LLVM agrees) or not modelled.
enum HalfError {
    Invalid,
    Truncated,
    Unsupported,
}

/// The single-instruction words of a half (without literal).
/// The single-instruction words of a half (one or two: the array and the count).
fn single_words(h: &Half) -> Result<([u32; 2], usize), HalfError> {
    Ok(match h.single {
        Single::Vop2(op) => {
            if h.neg != 0 || h.vsrc2 != 0 {
                return Err(HalfError::Invalid);
            }
            ([op << 25 | (h.vdst & 0xff) << 17 | (h.vsrc1 & 0xff) << 9 | h.src0, 0], 1)
        }
        Single::Mov => {
            if h.vsrc1 != 0 || h.neg != 0 || h.vsrc2 != 0 {
                return Err(HalfError::Invalid);
            }
            ([0x3f << 25 | (h.vdst & 0xff) << 17 | 0x01 << 9 | h.src0, 0], 1)
        }
        Single::Vop3 { op, srcs, mask } => {
            // Fields a half does not have must be zero (LLVM encodes them as 0).
            let used = |i: u8| i < srcs;
            if (!used(1) && (h.vsrc1 != 0 || h.neg & 2 != 0)) || (!used(2) && (h.vsrc2 != 0 || h.neg & 4 != 0)) {
                return Err(HalfError::Invalid);
            }
            let src1 = if used(1) { 256 + h.vsrc1 } else { 0 };
            let src2 = match (used(2), mask) {
                (false, _) => 0,
                (true, true) => h.vsrc2,
                (true, false) => 256 + h.vsrc2,
            };
            ([0x35 << 26 | op << 16 | h.vdst, h.neg << 29 | src2 << 18 | src1 << 9 | h.src0], 2)
        }
        Single::Bitop2 => {
            // v_bitop3_b32 vdst, src0, src1, 0: the truth table's bits 5:3 sit in abs (10:8),
            // 7:6 in omod (60:59), 2:0 in neg (63:61).
            let t = h.vsrc2;
            if h.neg != 0 {
                return Err(HalfError::Invalid);
            }
            (
                [
                    0x35 << 26 | 0x234 << 16 | ((t >> 3) & 7) << 8 | h.vdst,
                    (t & 7) << 29 | ((t >> 6) & 3) << 27 | 128 << 18 | (256 + h.vsrc1) << 9 | h.src0,
                ],
                2,
            )
        }
        Single::NoSingle => return Err(HalfError::Unsupported),
    })
}

/// Decodes one half: its single-instruction words followed by the pair's literal bytes.
fn decode_half(h: &Half, tail: &[u8], slot: &mut Instruction) -> Result<(), HalfError> {
    // A VOPD half has no DPP form: its single word must not be read as one.
    if matches!(h.src0, crate::dpp::DPP16 | crate::dpp::DPP8 | crate::dpp::DPP8_FI) {
        return Err(HalfError::Unsupported);
    }
    let (words, n) = single_words(h)?;
    // The words, then at most a 64-bit literal (a half reads no more of the buffer), on the
    // stack.
    let mut bytes = [0u8; 16];
    for (i, w) in words.iter().take(n).enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    let lit = &tail[..tail.len().min(8)];
    bytes[4 * n..4 * n + lit.len()].copy_from_slice(lit);
    match crate::decode_into(Target::Gfx1250, &bytes[..4 * n + lit.len()], 0, slot) {
        Ok(()) => Ok(()),
        Err(DecodeError::Invalid { .. }) => Err(HalfError::Invalid),
        Err(DecodeError::Truncated { .. }) => Err(HalfError::Truncated),
        Err(DecodeError::Unsupported { .. }) => Err(HalfError::Unsupported),
    }
}

/// Decodes the VOPD/VOPD3 word at `bytes[offset..]` (called by [`crate::decode`]).
pub(crate) fn decode_vopd(bytes: &[u8], offset: usize) -> Result<Instruction, DecodeError> {
    let inst = bytes.get(offset..).unwrap_or(&[]);
    let raw = |n: usize| inst[..n.min(inst.len())].to_vec();
    let vopd3 = inst.get(3) == Some(&0xcf);
    let fixed = if vopd3 { 12 } else { 8 };
    if inst.len() < fixed {
        return Err(DecodeError::Truncated { offset, bytes: raw(fixed) });
    }
    let mut word: u128 = 0;
    for (i, b) in inst[..fixed].iter().enumerate() {
        word |= (*b as u128) << (8 * i);
    }
    let invalid = || DecodeError::Invalid { offset, bytes: raw(fixed) };
    let unsupported = || DecodeError::Unsupported { format: Format::Vopd, offset, bytes: raw(fixed + 4) };
    let f = fields(word).map_err(|_| invalid())?;
    // Encodings 254 (64-bit literal) and 255 (32-bit literal).
    let is_literal = |v: u32| v == 254 || v == 255;
    let mask_is_literal = |h: &Half| matches!(h.single, Single::Vop3 { mask: true, .. }) && is_literal(h.vsrc2);
    if f.vopd3 && (is_literal(f.x.src0) || is_literal(f.y.src0) || mask_is_literal(&f.x) || mask_is_literal(&f.y)) {
        // LLVM 22 reads a VOPD3 literal from the word's second dword, so its text cannot be
        // checked; no corpus kernel uses one.
        return Err(unsupported());
    }
    let tail = &inst[fixed..];
    // The halves are decoded for their validity and literal only (`vopd_parts` rebuilds them).
    let (mut x, mut y) = (Instruction::empty(Target::Gfx1250), Instruction::empty(Target::Gfx1250));
    let rx = decode_half(&f.x, tail, &mut x);
    let ry = decode_half(&f.y, tail, &mut y);
    match (rx, ry) {
        (Ok(()), Ok(())) => {}
        (Err(HalfError::Invalid), _) | (_, Err(HalfError::Invalid)) => return Err(invalid()),
        (Err(HalfError::Truncated), _) | (_, Err(HalfError::Truncated)) => {
            return Err(DecodeError::Truncated { offset, bytes: raw(fixed + 4) })
        }
        _ => return Err(unsupported()),
    };
    // Both halves read the same literal (at most one follows the pair).
    let literal = x.literal.or(y.literal);
    if let (Some(a), Some(b)) = (x.literal, y.literal) {
        if a != b {
            return Err(unsupported());
        }
    }
    let lit_len = match literal {
        Some((_, true)) => 8,
        Some(_) => 4,
        None => 0,
    };
    Ok(Instruction {
        target: Target::Gfx1250,
        info: if f.vopd3 { &VOPD3_INFO } else { &VOPD_INFO },
        offset,
        len: (fixed + lit_len) as u8,
        literal,
        mods: Default::default(),
        cache: Default::default(),
        mem_offset: 0,
        word,
        operands: Default::default(),
    })
}

/// A half's text under its VOPD name: `v_add_f32_e32 v1, v2, v3` -> `v_dual_add_f32 v1, v2, v3`.
fn dual_text(part: &Instruction, single: Single) -> String {
    let text = part.text();
    let (name, rest) = text.split_once(' ').unwrap_or((&text, ""));
    let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
    let base = base.strip_prefix("v_").unwrap_or(base);
    match single {
        // VOPD's cndmask reads vcc_lo implicitly and does not print it.
        Single::Vop2(0x01) => format!("v_dual_{base} {}", rest.trim_end_matches(", vcc_lo")),
        Single::Bitop2 => {
            // `v_bitop3_b32 vD, s0, s1, 0[ bitop3:N]` -> `v_dual_bitop2_b32 vD, s0, s1[ bitop3:N]`.
            let (ops, table) = rest.split_once(" bitop3:").map(|(o, t)| (o, Some(t))).unwrap_or((rest, None));
            let ops = ops.trim_end_matches(", 0");
            match table {
                Some(t) => format!("v_dual_bitop2_b32 {ops} bitop3:{t}"),
                None => format!("v_dual_bitop2_b32 {ops}"),
            }
        }
        _ => format!("v_dual_{base} {rest}"),
    }
}

impl Instruction {
    /// The X and Y operations of a VOPD/VOPD3 word, each as the equivalent single gfx1250
    /// instruction (VOP1/VOP2 for VOPD, VOP3 for VOPD3) at this word's offset and length;
    /// `None` for every other instruction. Both read their sources before either writes.
    pub fn vopd_parts(&self) -> Option<[Instruction; 2]> {
        if self.format() != Format::Vopd {
            return None;
        }
        let f = fields(self.word).ok()?;
        let tail: Vec<u8> = match self.literal {
            Some((v, true)) => v.to_le_bytes().to_vec(),
            Some((v, false)) => (v as u32).to_le_bytes().to_vec(),
            None => Vec::new(),
        };
        let half = |h: &Half| {
            let mut i = Instruction::empty(Target::Gfx1250);
            decode_half(h, &tail, &mut i).ok()?;
            i.offset = self.offset;
            i.len = self.len;
            Some(i)
        };
        let parts = [half(&f.x)?, half(&f.y)?];
        match self.vopd_vgpr_msb() {
            0 => Some(parts),
            // Checked by `with_vgpr_msb` when it stored the state.
            msb => Some([parts[0].with_vgpr_msb(msb).ok()?, parts[1].with_vgpr_msb(msb).ok()?]),
        }
    }

    /// The `s_set_vgpr_msb` state a VOPD word was remapped under ([`Instruction::with_vgpr_msb`];
    /// 0 for every other instruction and a word not remapped).
    pub fn vopd_vgpr_msb(&self) -> u8 {
        if self.format() != Format::Vopd {
            return 0;
        }
        match self.operands[0] {
            Some(InstOperand { spec, value: crate::Operand::Imm(v), .. }) if std::ptr::eq(spec, &MSB_STATE) => v as u8,
            _ => 0,
        }
    }

    pub(crate) fn set_vopd_vgpr_msb(&mut self, msb: u8) {
        self.operands[0] = Some(InstOperand { spec: &MSB_STATE, value: crate::Operand::Imm(msb as u32), raw: msb as u32 });
    }

    /// LLVM's text of a VOPD/VOPD3 pair (`None` for other instructions).
    pub(crate) fn vopd_text(&self) -> Option<String> {
        let [x, y] = self.vopd_parts()?;
        let f = fields(self.word).ok()?;
        let madk = |s| matches!(s, Single::Vop2(0x2c | 0x2d));
        let mut y_text = dual_text(&y, f.y.single);
        // LLVM quirk: after an X fmamk, a MADK Y half prints its src0 literal without lit().
        if f.x.single == Single::Vop2(0x2c) && madk(f.y.single) && f.y.src0 == 255 {
            if let (Some((v, _)), Some(at)) = (self.literal, y_text.find("lit(")) {
                if let Some(end) = y_text[at..].find(')') {
                    y_text.replace_range(at..at + end + 1, &crate::operand::plain_literal32(v as u32));
                }
            }
        }
        // When both halves are fmaak/fmamk, LLVM prints X's K (the shared literal) as plain
        // hex, without the inline aliasing it applies to the VOP2 form's K (and to Y's).
        let mut x = x;
        let both_madk = madk(f.x.single) && madk(f.y.single);
        static K_HEX: crate::OperandSpec = crate::OperandSpec { field: crate::Field::Lit32, kind: crate::Kind::KImm(crate::spec::KImmStyle::LitHex) };
        for o in x.operands.iter_mut().flatten().filter(|_| both_madk) {
            if matches!(o.spec.kind, crate::Kind::KImm(_)) && o.spec.field == crate::Field::Lit32 {
                o.spec = &K_HEX;
            }
        }
        let mut x_text = dual_text(&x, f.x.single);
        if f.vopd3 {
            // VOPD3's vsrc1/vsrc2 fields hold only VGPRs: LLVM names their register class
            // VReg_64_Align2 where the VOP3 form's sources say VS_64_Align2.
            let src0_misaligned = f.x.src0 >= 256 && f.x.src0 & 1 == 1;
            let note = "'VS_64_Align2'";
            let mut seen = 0;
            let mut out = String::new();
            let mut rest = x_text.as_str();
            while let Some(at) = rest.find(note) {
                out.push_str(&rest[..at]);
                out.push_str(if seen == 0 && src0_misaligned { note } else { "'VReg_64_Align2'" });
                seen += 1;
                rest = &rest[at + note.len()..];
            }
            out.push_str(rest);
            x_text = out;
            // ... and puts X's warning comment (a misaligned SGPR pair) after the whole pair.
            if let Some(at) = x_text.find(" ; Warning") {
                let warning = x_text.split_off(at);
                y_text.push_str(&warning);
            }
        }
        Some(format!("{x_text} :: {y_text}"))
    }
}

/// The VGPRs (first index, count) an operand names, if it is a VGPR operand.
fn vgprs(o: &crate::InstOperand) -> Option<(u16, u16)> {
    match o.value {
        crate::Operand::Reg(r) if r.class == crate::RegClass::Vgpr => Some((r.index, r.dwords as u16)),
        _ => None,
    }
}

/// Why a pair cannot be executed one half after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VopdOrderError(pub String);

/// The halves of a VOPD pair in an order in which executing them one after the other gives
/// the pair's result (both halves read their sources before either writes): X then Y, unless
/// Y reads X's destination, then Y then X. An error when each half reads the other's
/// destination or the destinations overlap (no sequential order exists).
pub fn sequential_order(parts: &[Instruction; 2]) -> Result<[Instruction; 2], VopdOrderError> {
    let dst = |i: &Instruction| i.operand(0).and_then(vgprs);
    let reads = |i: &Instruction, (d, n): (u16, u16)| {
        i.operands().skip(1).filter_map(vgprs).any(|(s, m)| s < d + n && d < s + m)
    };
    let [x, y] = *parts;
    let (Some(dx), Some(dy)) = (dst(&x), dst(&y)) else {
        return Err(VopdOrderError(format!("{x} :: {y}: a half without a VGPR destination")));
    };
    if dx.0 < dy.0 + dy.1 && dy.0 < dx.0 + dx.1 {
        return Err(VopdOrderError(format!("{x} :: {y}: the destinations overlap")));
    }
    match (reads(&y, dx), reads(&x, dy)) {
        (false, _) => Ok([x, y]),
        (true, false) => Ok([y, x]),
        (true, true) => Err(VopdOrderError(format!("{x} :: {y}: each half reads the other's destination"))),
    }
}
