//! What an instruction's operand fields mean, shared by every reader of decoded instructions:
//! inline constants and literals by operand type, which modifiers apply to which source
//! (op_sel halves, neg/abs types, integer clamp), SOPK destinations that are also sources,
//! the hwreg field layout, the VMEM operand roles, and the `s_sendmsg` that releases VGPRs.

use crate::alu::table as alu;
use hx_isa::{Instruction, Kind, Operand, Reg, RegClass, ValType};

/// SOPK forms whose destination is also their first source (`s_addk_i32 sdst, simm16`).
pub fn sopk_reads_dst(m: &str) -> bool {
    m.starts_with("s_addk_") || m.starts_with("s_mulk_")
}

/// v_fmaak_f64/v_fmamk_f64 with src0 = 255: LLVM reads that source as the low dword of the
/// 64-bit K literal, but what the hardware feeds it is not documented; the emulator and the
/// raiser refuse it.
pub fn kimm64_with_short_literal(inst: &Instruction) -> bool {
    inst.operands().any(|o| matches!(o.spec.kind, Kind::KImm(hx_isa::spec::KImmStyle::Lit64)))
        && inst.operands().any(|o| matches!(o.value, Operand::Literal { wide: false, .. }))
}

/// The op_sel bits of a VOP3 op that selects 16-bit halves (bit k: source k reads its high
/// half; bit 3: the result goes to the destination's high half), or why they cannot apply:
/// every selected source and the selected destination must be 16 bits wide. The raiser uses it
/// too.
pub fn op_sel_halves(op: &alu::AluOp, op_sel: u8) -> Result<u8, &'static str> {
    for k in 0..3 {
        if op_sel >> k & 1 != 0 && op.srcs.get(k).is_none_or(|t| t.bits() != 16) {
            return Err("op_sel on a source that is not 16 bits wide");
        }
    }
    if op_sel & 8 != 0 && op.dst.is_none_or(|t| t.bits() != 16) {
        return Err("op_sel on a destination that is not 16 bits wide");
    }
    Ok(op_sel)
}

/// The clamped (saturating) result of an integer add/sub, None for ops whose clamp is not
/// modelled. The raiser uses the same list.
pub fn int_saturate(op: alu::Op, a: u64, b: u64) -> Option<u64> {
    let (a32, b32) = (a as u32, b as u32);
    let (a16, b16) = (a as u16, b as u16);
    Some(match op {
        alu::Op::AddU32 | alu::Op::AddCoU32 => a32.saturating_add(b32) as u64,
        alu::Op::SubU32 | alu::Op::SubCoU32 => a32.saturating_sub(b32) as u64,
        alu::Op::SubrevU32 => b32.saturating_sub(a32) as u64,
        alu::Op::AddI32 => (a32 as i32).saturating_add(b32 as i32) as u32 as u64,
        alu::Op::SubI32 => (a32 as i32).saturating_sub(b32 as i32) as u32 as u64,
        alu::Op::AddU16 => a16.saturating_add(b16) as u64,
        alu::Op::SubU16 => a16.saturating_sub(b16) as u64,
        alu::Op::AddI16 => (a16 as i16).saturating_add(b16 as i16) as u16 as u64,
        alu::Op::SubI16 => (a16 as i16).saturating_sub(b16 as i16) as u16 as u64,
        _ => return None,
    })
}

/// The float type neg/abs act on in source `k` of `op`, None for an integer source (compares
/// carry untyped bit sources; v_cmp_class's mask is an integer). The raiser uses it too.
pub fn neg_abs_type(op: &alu::AluOp, k: usize) -> Option<alu::Ty> {
    match op.op {
        alu::Op::Cmp(c) => match c.kind {
            crate::alu::cmp::CmpKind::Float { bits: 16, .. } => Some(alu::Ty::F16),
            crate::alu::cmp::CmpKind::Float { bits: 32, .. } => Some(alu::Ty::F32),
            crate::alu::cmp::CmpKind::Float { .. } => Some(alu::Ty::F64),
            crate::alu::cmp::CmpKind::Class { .. } if k == 0 => op.srcs.first().copied(),
            _ => None,
        },
        // VOP3 v_cndmask_b32 takes float input modifiers on its two data sources: sign-bit
        // operations on the 32-bit values (LLVM folds fneg/fabs of a select into them).
        alu::Op::Cndmask if k < 2 => Some(alu::Ty::F32),
        _ => op.srcs.get(k).copied().filter(|t| t.is_float()),
    }
}

/// s_sendmsg(MSG_DEALLOC_VGPRS) (message id 3): frees registers before s_endpgm and changes
/// no result, so the emulator and the raiser skip it.
pub fn is_dealloc_vgprs(inst: &Instruction) -> bool {
    inst.mnemonic() == "s_sendmsg" && inst.operands().any(|o| o.value == Operand::Imm(3))
}

/// hwreg(ID, offset, size) as encoded in SOPK simm16: id bits 5:0, offset 10:6, size-1 15:11.
pub fn hwreg_fields(imm: u32) -> (u32, u32, u32) {
    (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1)
}

/// The hwreg(ID, offset, size) an s_setreg/s_getreg names (its simm16 operand); None without one.
pub fn hwreg_operand(inst: &Instruction) -> Option<(u32, u32, u32)> {
    inst.operands().find_map(|o| match (&o.spec.kind, o.value) {
        (Kind::Imm16(_), Operand::Imm(v)) => Some(hwreg_fields(v)),
        _ => None,
    })
}

/// The raw immediate of the operand in encoding field `f`.
pub fn field_imm(inst: &Instruction, f: hx_isa::Field) -> Option<u32> {
    inst.operands().find(|o| o.spec.field == f).and_then(|o| match o.value {
        Operand::Imm(v) => Some(v),
        _ => None,
    })
}

/// The register an operand in encoding field `f` names.
pub fn field_reg(inst: &Instruction, f: hx_isa::Field) -> Option<Reg> {
    inst.operands().find(|o| o.spec.field == f).and_then(|o| match o.value {
        Operand::Reg(r) => Some(r),
        _ => None,
    })
}

/// The operands of a global/flat/scratch instruction, independent of the encoding family.
#[derive(Debug, Clone, Copy, Default)]
pub struct VmemOperands {
    pub vdst: Option<Reg>,
    /// The address VGPR(s): a 64-bit address without `saddr` (global/flat), else a 32-bit offset.
    pub vaddr: Option<Reg>,
    pub vdata: Option<Reg>,
    /// The SGPR base (global: a 64-bit pair; scratch: a 32-bit offset); None for `off`.
    pub saddr: Option<Reg>,
    /// The instruction's signed byte offset.
    pub offset: i64,
    /// GFX12.5 `scale_offset`: the VGPR offset is scaled by the access size.
    pub scale_offset: bool,
    /// An atomic returns its pre-op value (GFX9 sc0/glc, GFX12 th:TH_ATOMIC_RETURN).
    pub returns: bool,
}

/// The vector-memory operands of a decoded FLAT/GLOBAL/SCRATCH instruction (GFX9 `Flat*` fields,
/// GFX12.5 `Vf*` fields). Operands LLVM shows as `off` decode as implicit and are left empty.
pub fn vmem_operands(inst: &Instruction) -> Result<VmemOperands, String> {
    use hx_isa::Field;
    let mut o = VmemOperands { offset: inst.mem_offset as i64, ..Default::default() };
    for op in inst.operands() {
        let reg = match op.value {
            Operand::Reg(r) if r.class != RegClass::Null => Some(r),
            _ => None,
        };
        match op.spec.field {
            Field::FlatVdst | Field::VfVdst => o.vdst = reg,
            Field::FlatVaddr | Field::VfVaddr => o.vaddr = reg,
            Field::FlatVdata | Field::VfVdata => o.vdata = reg,
            Field::FlatSaddr | Field::VfSaddr => o.saddr = reg,
            Field::FlatSc0 => o.returns = matches!(op.value, Operand::Imm(v) if v != 0),
            Field::VfScale => o.scale_offset = matches!(op.value, Operand::Imm(v) if v != 0),
            _ => {}
        }
    }
    // gfx1250: th bit 0 (TH_ATOMIC_RETURN) of an atomic.
    if let Some(c) = inst.vf_cpol() {
        o.returns = c.returns();
    }
    let m = inst.mnemonic();
    if (m.contains("_async_") || m.contains("_lds_")) && crate::memory::async_load_size(m).is_none() && m != "global_load_lds_dword" {
        return Err("this LDS transfer (stores from LDS, cluster and GFX9 LDS loads) is not modelled yet".into());
    }
    Ok(o)
}

/// The value of an inline constant or literal for an operand of type `ty`.
pub fn constant_value(op: &Operand, ty: ValType) -> Option<u64> {
    Some(match *op {
        Operand::IntConst(i) => match ty.bits() {
            64 => i as i64 as u64,
            32 => i as i32 as u32 as u64,
            _ => i as i16 as u16 as u64,
        },
        Operand::FloatConst(code) => float_const(code, ty),
        Operand::Literal { value, wide } => match ty {
            _ if wide => value,
            // A 32-bit literal of a 64-bit float operand holds the high half (ISA "literal expansion").
            ValType::F64 => (value & 0xffff_ffff) << 32,
            ValType::B64 => value & 0xffff_ffff,
            _ => value & 0xffff_ffff,
        },
        _ => return None,
    })
}

/// Inline float constants 240..=248: 0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2*pi).
fn float_const(code: u8, ty: ValType) -> u64 {
    const F32: [u32; 9] = [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];
    const F64: [u64; 9] = [
        0x3fe0_0000_0000_0000, 0xbfe0_0000_0000_0000, 0x3ff0_0000_0000_0000, 0xbff0_0000_0000_0000, 0x4000_0000_0000_0000,
        0xc000_0000_0000_0000, 0x4010_0000_0000_0000, 0xc010_0000_0000_0000, 0x3fc4_5f30_6dc9_c882,
    ];
    const F16: [u16; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
    const BF16: [u16; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
    let i = (code.saturating_sub(240) as usize).min(8);
    match ty {
        ValType::F64 | ValType::B64 => F64[i],
        ValType::F16 | ValType::B16 => F16[i] as u64,
        ValType::BF16 => BF16[i] as u64,
        ValType::F32 | ValType::B32 => F32[i] as u64,
        // Other 16-bit forms (packed, integer): the f16 bit pattern.
        _ => F16[i] as u64,
    }
}
