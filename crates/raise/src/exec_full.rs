//! Where EXEC still holds its value from kernel entry.
//!
//! At entry, EXEC is the set of threads that exist, so every running thread's own EXEC bit is
//! set: until something writes EXEC, the predication of VALU writes and memory accesses on that
//! bit is always true. The raiser then writes and accesses memory unpredicated there, which
//! leaves the optimisation pipeline and the backend less to remove (a predicated load is a
//! branch around it, and a machine basic block more). crate::structure computes where that
//! holds (with the recovered regions, where the thread's own bit is known set).

use hx_isa::{Instruction, Operand, RegClass};

/// Whether `inst` may write EXEC (conservative: any instruction that names EXEC, the
/// saveexec/wrexec forms and v_cmpx, which write it implicitly).
pub fn may_write_exec(inst: &Instruction) -> bool {
    let m = inst.mnemonic();
    if m.contains("exec") || m.contains("cmpx") {
        return true;
    }
    let parts = inst.vopd_parts().map(|p| p.to_vec()).unwrap_or_else(|| vec![*inst]);
    parts.iter().any(|i| i.operands().any(|o| matches!(o.value, Operand::Reg(r) if r.class == RegClass::Exec)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, Cfg, Cond, Exit};

    fn full_on_entry(g: &Cfg) -> Vec<bool> {
        crate::structure::recover(g).known_on_entry
    }
    use hx_isa::Target;

    fn inst(bytes: &[u8], text: &str) -> Instruction {
        let i = hx_isa::decode(Target::Gfx1250, bytes, 0).unwrap();
        assert_eq!(i.text(), text);
        i
    }

    fn graph(blocks: Vec<(usize, Vec<Instruction>, Exit)>) -> Cfg {
        let blocks = blocks.into_iter().map(|(start, insts, exit)| Block { start, insts, exit }).collect();
        Cfg { blocks, functions: vec![], return_sites: vec![], base: 0 }
    }

    #[test]
    fn exec_is_full_until_a_path_writes_it() {
        let write = inst(&[0x00, 0x00, 0xfe, 0xbe], "s_mov_b32 exec_lo, s0");
        let other = inst(&[0x00, 0x00, 0x81, 0xbe], "s_mov_b32 s1, s0");
        assert!(may_write_exec(&write) && !may_write_exec(&other));
        // 0 -> {4, 8}; 4 writes EXEC and goes to 8; 8 -> 12 (a loop on itself through 12).
        let g = graph(vec![
            (0, vec![other], Exit::Cond { cond: Cond::Scc0, taken: 8, fall: 4 }),
            (4, vec![write], Exit::Jump(8)),
            (8, vec![other], Exit::Jump(12)),
            (12, vec![], Exit::Cond { cond: Cond::Scc1, taken: 12, fall: 16 }),
            (16, vec![], Exit::End),
        ]);
        assert_eq!(full_on_entry(&g), [true, true, false, false, false]);
        // Without the write, the loop and everything after it keep EXEC full.
        let g = graph(vec![
            (0, vec![other], Exit::Cond { cond: Cond::Scc0, taken: 8, fall: 4 }),
            (4, vec![other], Exit::Jump(8)),
            (8, vec![other], Exit::Jump(12)),
            (12, vec![], Exit::Cond { cond: Cond::Scc1, taken: 12, fall: 16 }),
            (16, vec![], Exit::End),
        ]);
        assert_eq!(full_on_entry(&g), [true; 5]);
    }
}
