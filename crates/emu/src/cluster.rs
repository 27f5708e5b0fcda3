//! gfx1250 work-group clusters on a machine without them: every work-group is a cluster of one.
//! The cluster registers read accordingly (TTMP6 = 0: the work-group is cluster work-group 0 of
//! a cluster whose largest work-group ID is 0; HW_REG_IB_STS2's cluster fields 0), and the
//! cluster barrier (ID -3) synchronises the work-group's waves only. Named barriers are not
//! modelled.

pub use hx_isa::barrier::BarrierId;
use hx_isa::Instruction;

/// The barrier a split-barrier instruction names (see [`Instruction::barrier_id`]).
pub fn barrier_id(inst: &Instruction) -> Option<BarrierId> {
    inst.barrier_id()
}
