//! Every instruction's meaning, in one catalogue keyed by the decoder's [`SemId`]: an ALU
//! operation of the table, a memory operation of a known shape, an instruction family whose
//! decoded fields carry the operation (buffer, matrix, tensor, VOPD pair, bitop3), one of the
//! named kinds of instruction that change no data value by themselves (flow, waits, barriers,
//! EXEC, cross-lane moves, hardware registers, scalar loads), or an explicit refusal with why.
//! The catalogue is made once per process; [`meaning`] is then an array index. A mnemonic in
//! none of these is `None`: the corpus test (tests/coverage.rs) fails on it.

use crate::alu::{self, AluOp};
use crate::memory::{self, MemShape};
use hx_isa::{Instruction, SemId};
use std::sync::OnceLock;

/// What an instruction is, for the readers of decoded code (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Meaning {
    /// A value operation of the ALU table.
    Alu(AluOp),
    /// A vector-memory or LDS access of this shape.
    Memory(MemShape),
    /// Decoded by its own family; the family's typed fields carry the operation.
    Family(Family),
    /// An instruction that moves no data value through the ALU table or memory shapes.
    Other(Other),
    /// Known and refused, with why.
    Unsupported(&'static str),
}

/// The decoder families whose meaning is in their typed fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// MUBUF (GFX9) and VBUFFER (gfx1250): [`crate::buffer`].
    Buffer,
    /// WMMA (gfx1250) and MFMA/SMFMAC (GFX9): [`crate::wmma`].
    Matrix,
    /// gfx1250 tensor data mover: [`crate::tensor`].
    Tensor,
    /// A VOPD pair: two ALU operations.
    VopdPair,
    /// `v_bitop3_b32/b16`: a truth table.
    Bitop3,
}

/// The kinds of [`Meaning::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Other {
    /// Branches, calls, returns, the program counter, the end of the program.
    Flow,
    /// Waits on counters, dependency hints, clauses, priority, sleep, no-ops: no value effect.
    Schedule,
    /// Barriers, messages, traps.
    Sync,
    /// Operations on EXEC (saveexec and friends).
    Exec,
    /// Cross-lane moves: readlane, writelane, permlanes, DS permutes and swizzles.
    Lanes,
    /// Hardware registers and modes: getreg, setreg, setprio-like state.
    HwReg,
    /// Scalar memory: loads, buffer loads, prefetches, cache maintenance.
    ScalarMemory,
    /// Vector cache maintenance and prefetches (global_inv/wb/wbinv, global_prefetch...).
    CacheControl,
    /// LDS loads whose lanes exchange elements (`ds_load_tr*`, `ds_read_b64_tr_*`).
    TransposeLoad,
    /// Copies from global memory straight to LDS (gfx1250 `*_async_to_lds_*`, GFX9
    /// `global_load_lds_*`).
    ToLds,
    /// Value operations outside the ALU table, which the emulator runs with code of their own:
    /// gfx950's scaled conversions `v_cvt_scalef32_pk_bf16_{fp4,fp8,bf8}` (they occur only in
    /// native code, never in a source the raiser reads), the fp8 ones `v_cvt_scalef32_pk_{fp8,bf8}_f32`
    /// and `v_cvt_scalef32_pk_f32_{fp8,bf8}` (likewise), and gfx1250's eight-element ones
    /// `v_cvt_scale_pk8_*` / `v_cvt_scalef32_pk8_*` (`alu::pk8`, raised too).
    OwnCode,
}

/// Stems (exact, or a prefix ending in `*`) of [`Meaning::Other`] instructions.
const OTHER: &[(&str, Other)] = &[
    ("s_endpgm*", Other::Flow),
    ("s_branch", Other::Flow),
    ("s_cbranch_*", Other::Flow),
    ("s_setpc_b64", Other::Flow),
    ("s_swappc_b64", Other::Flow),
    ("s_getpc_b64", Other::Flow),
    ("s_get_pc_i64", Other::Flow),
    ("s_set_pc_i64", Other::Flow),
    ("s_swap_pc_i64", Other::Flow),
    ("s_add_pc_i64", Other::Flow),
    ("s_call_b64", Other::Flow),
    ("s_rfe_b64", Other::Flow),
    ("s_wait*", Other::Schedule),
    ("s_nop", Other::Schedule),
    ("v_nop", Other::Schedule),
    ("s_delay_alu", Other::Schedule),
    ("s_clause", Other::Schedule),
    ("s_setprio*", Other::Schedule),
    ("s_sleep*", Other::Schedule),
    ("s_set_inst_prefetch_distance", Other::Schedule),
    ("s_inst_prefetch", Other::Schedule),
    ("s_set_vgpr_msb", Other::Schedule),
    ("s_barrier*", Other::Sync),
    ("s_sendmsg*", Other::Sync),
    ("s_trap", Other::Sync),
    ("s_sethalt", Other::Sync),
    ("s_icache_inv", Other::CacheControl),
    ("s_get_barrier_state", Other::Sync),
    ("s_*_saveexec_b32", Other::Exec),
    ("s_*_saveexec_b64", Other::Exec),
    ("s_*_wrexec_b32", Other::Exec),
    ("s_*_wrexec_b64", Other::Exec),
    ("v_readlane_b32", Other::Lanes),
    ("v_readfirstlane_b32", Other::Lanes),
    ("v_writelane_b32", Other::Lanes),
    ("v_permlane*", Other::Lanes),
    ("ds_bpermute*", Other::Lanes),
    ("ds_permute_b32", Other::Lanes),
    ("ds_swizzle_b32", Other::Lanes),
    ("v_mov_b32_dpp", Other::Lanes),
    ("v_accvgpr_*", Other::Lanes),
    ("s_getreg_*", Other::HwReg),
    ("s_setreg_*", Other::HwReg),
    ("s_round_mode", Other::HwReg),
    ("s_denorm_mode", Other::HwReg),
    ("s_load_*", Other::ScalarMemory),
    ("s_buffer_load_*", Other::ScalarMemory),
    ("s_prefetch_*", Other::ScalarMemory),
    ("s_dcache_*", Other::ScalarMemory),
    ("global_inv", Other::CacheControl),
    ("global_prefetch_*", Other::CacheControl),
    ("global_load_lds_*", Other::ToLds),
    ("v_cvt_scalef32_pk_bf16_*", Other::OwnCode),
    ("v_cvt_scale_pk8_*", Other::OwnCode),
    ("v_cvt_scalef32_pk_fp8_f32", Other::OwnCode),
    ("v_cvt_scalef32_pk_bf8_f32", Other::OwnCode),
    ("v_cvt_scalef32_pk_f32_fp8", Other::OwnCode),
    ("v_cvt_scalef32_pk_f32_bf8", Other::OwnCode),
    ("v_cvt_scalef32_pk8_*", Other::OwnCode),
    ("global_wb", Other::CacheControl),
    ("global_wbinv", Other::CacheControl),
    ("buffer_wbl2", Other::CacheControl),
    ("buffer_inv", Other::CacheControl),
];

/// Stems known and refused by both the emulator and the raiser, with why.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("v_permlane16_var_b32", "the variable permlane's lane selects are not modelled"),
    ("v_permlanex16_var_b32", "the variable permlane's lane selects are not modelled"),
];

fn matches(pattern: &str, stem: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == stem,
        Some((head, tail)) => stem.len() >= head.len() + tail.len() && stem.starts_with(head) && stem.ends_with(tail),
    }
}

/// The meaning of a stem, where the stem alone decides it.
fn of_stem(id: SemId, stem: &str) -> Option<Meaning> {
    if let Some((_, why)) = UNSUPPORTED.iter().find(|(s, _)| *s == stem) {
        return Some(Meaning::Unsupported(why));
    }
    if let Some(op) = alu::of_id(id) {
        return Some(Meaning::Alu(op));
    }
    if let Some((_, kind)) = OTHER.iter().find(|(p, _)| matches(p, stem)) {
        return Some(Meaning::Other(*kind));
    }
    if memory::is_transpose_load(stem) {
        return Some(Meaning::Other(Other::TransposeLoad));
    }
    if memory::async_load_size(stem).is_some() {
        return Some(Meaning::Other(Other::ToLds));
    }
    memory::classify(stem).map(Meaning::Memory)
}

/// The meaning of a semantic id (`None`: not in the catalogue).
pub fn of_id(id: SemId) -> Option<Meaning> {
    static BY_ID: OnceLock<Vec<Option<Meaning>>> = OnceLock::new();
    BY_ID
        .get_or_init(|| {
            hx_isa::tables::sem_ids::NAMES.iter().enumerate().map(|(i, stem)| of_stem(SemId(i as u16), stem)).collect()
        })
        .get(id.0 as usize)
        .copied()
        .flatten()
}

/// The meaning of a decoded instruction (`None`: not in the catalogue).
pub fn meaning(inst: &Instruction) -> Option<Meaning> {
    if inst.mubuf().is_some() || inst.vbuffer().is_some() {
        return Some(Meaning::Family(Family::Buffer));
    }
    if inst.wmma().is_some() || inst.mai().is_some() {
        return Some(Meaning::Family(Family::Matrix));
    }
    if inst.tensor().is_some() {
        return Some(Meaning::Family(Family::Tensor));
    }
    if inst.vopd_parts().is_some() {
        return Some(Meaning::Family(Family::VopdPair));
    }
    if inst.bitop3_table().is_some() {
        return Some(Meaning::Family(Family::Bitop3));
    }
    of_id(inst.sem())
}
