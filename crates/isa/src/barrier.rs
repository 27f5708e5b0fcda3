//! gfx1250 split-barrier operands: which barrier `s_barrier_signal[_isfirst]` / `s_barrier_wait`
//! name. Read by the emulator and the raiser, which model the work-group barrier and the cluster
//! barrier (a machine without clusters runs every work-group as a cluster of one).

use crate::{Instruction, Operand};

/// The barriers the emulator and the raiser model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierId {
    /// -1: the work-group barrier.
    Workgroup,
    /// -3: the cluster barrier.
    Cluster,
}

impl Instruction {
    /// The barrier a split-barrier instruction names (`None`: another ID, a named barrier or an
    /// M0 operand, or not a split-barrier instruction).
    pub fn barrier_id(&self) -> Option<BarrierId> {
        if !matches!(self.mnemonic(), "s_barrier_signal" | "s_barrier_signal_isfirst" | "s_barrier_wait") {
            return None;
        }
        let v = match self.operand(0)?.value {
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
}
