//! Dynamic instruction counts, the measure translations' code quality is judged by.

use std::collections::BTreeMap;

/// Instruction classes counted separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Valu,
    Salu,
    /// Scalar memory (s_load/s_buffer_load).
    Smem,
    /// Vector memory: global, flat, scratch, buffer.
    Vmem,
    /// LDS (ds_*).
    Lds,
    /// Branches, s_endpgm, calls.
    Branch,
    /// Waits, barriers, hints, nops.
    Other,
}

impl Class {
    pub fn of(mnemonic: &str) -> Class {
        let m = mnemonic;
        if m.starts_with("s_cbranch") || m.starts_with("s_branch") || m == "s_endpgm" || m.starts_with("s_setpc")
            || m.starts_with("s_swappc") || m.starts_with("s_set_pc") || m.starts_with("s_swap_pc") || m.starts_with("s_call")
        {
            Class::Branch
        } else if m.starts_with("s_load") || m.starts_with("s_buffer_load") || m.starts_with("s_store") {
            Class::Smem
        } else if m.starts_with("s_wait") || m.starts_with("s_barrier") || m == "s_nop" || m.starts_with("s_delay")
            || m.starts_with("s_clause") || m.starts_with("s_sleep") || m.starts_with("s_set_inst_prefetch")
            || m.starts_with("s_prefetch") || m == "v_nop"
        {
            Class::Other
        } else if m.starts_with("s_") {
            Class::Salu
        } else if m.starts_with("ds_") {
            Class::Lds
        } else if m.starts_with("global_") || m.starts_with("flat_") || m.starts_with("scratch_") || m.starts_with("buffer_") {
            Class::Vmem
        } else {
            Class::Valu
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Wave-instructions per class.
    pub by_class: BTreeMap<Class, u64>,
    /// Wave-instructions per mnemonic.
    pub by_mnemonic: BTreeMap<&'static str, u64>,
    /// Sum over executed instructions of the lanes active in EXEC (lane-instructions).
    pub lane_instructions: u64,
}

impl Stats {
    pub fn count(&mut self, mnemonic: &'static str, active_lanes: u32) {
        *self.by_class.entry(Class::of(mnemonic)).or_default() += 1;
        *self.by_mnemonic.entry(mnemonic).or_default() += 1;
        self.lane_instructions += active_lanes as u64;
    }

    pub fn total(&self) -> u64 {
        self.by_class.values().sum()
    }

    pub fn class(&self, c: Class) -> u64 {
        self.by_class.get(&c).copied().unwrap_or(0)
    }

    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in &other.by_class {
            *self.by_class.entry(*k).or_default() += v;
        }
        for (k, v) in &other.by_mnemonic {
            *self.by_mnemonic.entry(k).or_default() += v;
        }
        self.lane_instructions += other.lane_instructions;
    }
}
