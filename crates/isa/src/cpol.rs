//! The gfx1250 VFLAT cache-policy operand (`Field::VfCpol`): temporal hint (th) and scope, read
//! by the emulator (does an atomic return?) and the raiser (memory-model scope, non-temporal).

use crate::{Instruction, Kind, Operand};

/// Coherence scope of a gfx1250 memory access (`scope:SCOPE_..`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The work-group's compute unit (no `scope:` printed).
    Cu,
    /// The shader engine.
    Se,
    /// The device (agent).
    Dev,
    /// The system.
    Sys,
}

/// A decoded VFLAT cache policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VfCpol {
    /// The 3-bit temporal hint.
    pub th: u8,
    pub scope: Scope,
    /// Whether the instruction is an atomic (th bits mean return / non-temporal / cascade).
    pub atomic: bool,
}

impl VfCpol {
    /// An atomic that returns its pre-op value (TH_ATOMIC_RETURN, th bit 0).
    pub fn returns(&self) -> bool {
        self.atomic && self.th & 1 != 0
    }
    /// A non-temporal hint: TH_LOAD_NT / TH_STORE_NT (th 1) on loads and stores, the NT bit
    /// (th bit 1) on atomics.
    pub fn nontemporal(&self) -> bool {
        if self.atomic {
            self.th & 2 != 0
        } else {
            self.th == 1
        }
    }
}

impl Instruction {
    /// The cache policy of a gfx1250 VFLAT/VGLOBAL/VSCRATCH instruction; None for others.
    pub fn vf_cpol(&self) -> Option<VfCpol> {
        self.operands().find_map(|o| {
            let atomic = match o.spec.kind {
                Kind::VfAtomicCachePolicy => true,
                Kind::VfCachePolicy { .. } => false,
                _ => return None,
            };
            let Operand::Imm(v) = o.value else { return None };
            let scope = match v & 3 {
                0 => Scope::Cu,
                1 => Scope::Se,
                2 => Scope::Dev,
                _ => Scope::Sys,
            };
            Some(VfCpol { th: ((v >> 2) & 7) as u8, scope, atomic })
        })
    }
}
