//! gfx1250 work-group clusters on a machine without them: every work-group is a cluster of one.
//! The cluster registers read accordingly (TTMP6 = 0: the work-group is cluster work-group 0 of
//! a cluster whose largest work-group ID is 0; HW_REG_IB_STS2's cluster fields 0), and the
//! cluster barrier (ID -3) synchronises the work-group's waves only. Named barriers are not
//! modelled.

use hx_isa::{Instruction, Operand};

/// The barriers a split-barrier instruction can name that the emulator and raiser model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierId {
    /// -1: the work-group barrier.
    Workgroup,
    /// -3: the cluster barrier.
    Cluster,
}

/// The barrier `s_barrier_signal[_isfirst]` / `s_barrier_wait` names (`None`: another ID, a
/// named barrier or an M0 operand).
pub fn barrier_id(inst: &Instruction) -> Option<BarrierId> {
    let v = match inst.operand(0)?.value {
        Operand::IntConst(i) => i as i64,
        Operand::Imm(v) => v as u16 as i16 as i64,
        Operand::Literal { value, .. } => value as u32 as i32 as i64,
        _ => return None,
    };
    match v {
        -1 => Some(BarrierId::Workgroup),
        -3 => Some(BarrierId::Cluster),
        _ => None,
    }
}
