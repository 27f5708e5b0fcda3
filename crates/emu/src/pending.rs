//! gfx1250 load results in flight. The emulator completes a load at issue, but the hardware
//! writes its destination registers some time before the `s_wait_loadcnt` / `s_wait_dscnt` /
//! `s_wait_kmcnt` that waits for it; until then reading those registers (or writing them) has
//! no defined result. The wave keeps them marked, and an instruction touching one is an error
//! rather than a guess at which value the hardware would have read. Waits complete loads in
//! the order they were issued, as the counters do (all but the newest N).

use crate::wave::Wave;
use crate::EmuError;
use hx_isa::{Instruction, Operand, RegClass};

/// The counter that tracks a load until its registers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// Vector memory loads and returning atomics (global, buffer, scratch, flat).
    Load,
    /// LDS loads and returning LDS operations.
    Ds,
    /// Scalar memory loads.
    Km,
}

impl Counter {
    fn wait_name(self) -> &'static str {
        match self {
            Counter::Load => "s_wait_loadcnt",
            Counter::Ds => "s_wait_dscnt",
            Counter::Km => "s_wait_kmcnt",
        }
    }
}

/// Registers `lo..hi` of `class` written by load `seq`, tracked by `counter`.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    counter: Counter,
    seq: u64,
    class: RegClass,
    lo: u32,
    hi: u32,
}

/// The counter of `inst` when it writes registers from memory.
fn counter_of(inst: &Instruction) -> Option<Counter> {
    let m = inst.mnemonic();
    if m.starts_with("global_load_async") || m.starts_with("global_store") || m.starts_with("tensor_") {
        return None;
    }
    let counter = if m.starts_with("s_load") || m.starts_with("s_buffer_load") {
        Counter::Km
    } else if m.starts_with("ds_") {
        Counter::Ds
    } else if ["global_", "buffer_", "scratch_", "flat_"].iter().any(|p| m.starts_with(p)) {
        Counter::Load
    } else {
        return None;
    };
    Some(counter)
}

/// The registers `inst` writes from memory: its destination operand (VDst / SDst).
fn destinations(inst: &Instruction) -> Vec<(RegClass, u32, u32)> {
    inst.operands()
        .filter(|o| matches!(crate::exec::role_of(&o.spec.kind), crate::exec::OperandRole::Dst))
        .filter_map(|o| match o.value {
            Operand::Reg(r) => Some((r.class, r.index as u32, r.index as u32 + r.dwords.max(1) as u32)),
            _ => None,
        })
        .collect()
}

/// Before `inst` runs: a wait completes loads; any other instruction must not touch registers
/// still in flight (a load's own destination may be one: loads of a counter return in order).
pub fn before(wave: &mut Wave, inst: &Instruction) -> Result<(), EmuError> {
    let m = inst.mnemonic();
    let imm = || inst.operands().find_map(|o| match o.value {
        Operand::Imm(v) => Some(v),
        _ => None,
    });
    let waits: &[(Counter, u32)] = match m {
        "s_wait_loadcnt" => &[(Counter::Load, imm().unwrap_or(0))],
        "s_wait_dscnt" => &[(Counter::Ds, imm().unwrap_or(0))],
        "s_wait_kmcnt" => &[(Counter::Km, imm().unwrap_or(0))],
        // SIMM16[13:8] LOADcnt, [5:0] DScnt; STOREcnt and DScnt for the other.
        "s_wait_loadcnt_dscnt" => &[(Counter::Load, imm().unwrap_or(0) >> 8 & 0x3f), (Counter::Ds, imm().unwrap_or(0) & 0x3f)],
        "s_wait_storecnt_dscnt" => &[(Counter::Ds, imm().unwrap_or(0) & 0x3f)],
        _ => &[],
    };
    if !waits.is_empty() {
        for &(counter, n) in waits {
            wait(wave, counter, n);
        }
        return Ok(());
    }
    if wave.in_flight.is_empty() {
        return Ok(());
    }
    let producer = counter_of(inst).is_some();
    for o in inst.operands() {
        let Operand::Reg(r) = o.value else { continue };
        if producer && matches!(crate::exec::role_of(&o.spec.kind), crate::exec::OperandRole::Dst) {
            continue;
        }
        let (lo, hi) = (r.index as u32, r.index as u32 + r.dwords.max(1) as u32);
        if let Some(f) = wave.in_flight.iter().find(|f| f.class == r.class && f.lo < hi && lo < f.hi) {
            return Err(EmuError::NotReady { what: format!("{:?} {}..{}", r.class, lo, hi), wait: f.counter.wait_name() });
        }
    }
    Ok(())
}

/// After `inst` ran: its registers from memory are in flight.
pub fn after(wave: &mut Wave, inst: &Instruction) {
    let Some(counter) = counter_of(inst) else { return };
    let dsts = destinations(inst);
    let seq = wave.next_load;
    if dsts.is_empty() {
        // DScnt counts every LDS operation, stores and non-returning atomics too: `s_wait_dscnt
        // 1` after a load and a store completes the load (Triton 3.9's argmax reduction does
        // that). They are kept as entries without registers. (LOADcnt counts only loads and
        // returning atomics; stores have STOREcnt.)
        if counter != Counter::Ds {
            return;
        }
        wave.next_load += 1;
        wave.in_flight.push(InFlight { counter, seq, class: RegClass::Vgpr, lo: 0, hi: 0 });
    } else {
        wave.next_load += 1;
        wave.in_flight.extend(dsts.into_iter().map(|(class, lo, hi)| InFlight { counter, seq, class, lo, hi }));
    }
    // The counters hold at most 63 operations (6 bits; the hardware stalls an issue beyond), so
    // anything older is complete, and the list stays bounded.
    let mut seqs: Vec<u64> = wave.in_flight.iter().filter(|f| f.counter == counter).map(|f| f.seq).collect();
    seqs.dedup();
    if seqs.len() > 63 {
        wait(wave, counter, 63);
    }
}

/// A wait for `counter` down to `outstanding`: all but its newest `outstanding` loads are done.
fn wait(wave: &mut Wave, counter: Counter, outstanding: u32) {
    let mut seqs: Vec<u64> = wave.in_flight.iter().filter(|f| f.counter == counter).map(|f| f.seq).collect();
    seqs.dedup();
    let keep_from = seqs.len().checked_sub(outstanding as usize).and_then(|i| seqs.get(i)).copied().unwrap_or(u64::MAX);
    wave.in_flight.retain(|f| f.counter != counter || f.seq >= keep_from);
}

#[cfg(test)]
mod tests {
    use super::*;
    use hx_isa::{decode, Target};

    fn inst(bytes: &[u8]) -> Instruction {
        let mut b = bytes.to_vec();
        b.resize(16, 0);
        decode(Target::Gfx1250, &b, 0).unwrap()
    }

    #[test]
    fn lds_stores_count_in_dscnt() {
        // ds_load_b32 v13, v0; ds_store_b32 v12, v2 offset:16; s_wait_dscnt 0x1: the load, the
        // older of the two, is done (Triton 3.9's argmax reduction, gfx1250).
        let load = inst(&[0x00, 0x00, 0xd8, 0xd8, 0x00, 0x00, 0x00, 0x0d]);
        let store = inst(&[0x10, 0x00, 0x34, 0xd8, 0x0c, 0x02, 0x00, 0x00]);
        let wait = inst(&[0x01, 0x00, 0xc6, 0xbf]);
        let read = inst(&[0x0d, 0x03, 0x04, 0x7e]);
        assert_eq!(load.text(), "ds_load_b32 v13, v0");
        assert_eq!(store.text(), "ds_store_b32 v12, v2 offset:16");
        assert_eq!(wait.text(), "s_wait_dscnt 0x1");
        assert_eq!(read.text(), "v_mov_b32_e32 v2, v13");
        let mut w = Wave::new(32, 8, 0);
        for i in [&load, &store] {
            before(&mut w, i).unwrap();
            after(&mut w, i);
        }
        assert!(before(&mut w, &read).is_err(), "v13 read before any wait");
        before(&mut w, &wait).unwrap();
        assert!(before(&mut w, &read).is_ok(), "v13 read after s_wait_dscnt 1");
        // Without the store the same wait leaves the load in flight.
        let mut w = Wave::new(32, 8, 0);
        before(&mut w, &load).unwrap();
        after(&mut w, &load);
        before(&mut w, &wait).unwrap();
        assert!(before(&mut w, &read).is_err());
    }

    #[test]
    fn loaded_registers_wait_for_their_counter_in_issue_order() {
        // From saxpy's gfx1250 code.
        let load1 = inst(&[0x04, 0x00, 0x05, 0xee, 0x01, 0x00, 0x01, 0x00, 0, 0, 0, 0]);
        let load2 = inst(&[0x06, 0x00, 0x05, 0xee, 0x02, 0x00, 0x01, 0x00, 0, 0, 0, 0]);
        let wait = |n: u8| inst(&[n, 0x00, 0xc0, 0xbf]);
        let fmac = inst(&[0x03, 0x02, 0x04, 0x56]);
        assert_eq!(load1.text(), "global_load_b32 v1, v0, s[4:5] scale_offset");
        assert_eq!(load2.text(), "global_load_b32 v2, v0, s[6:7] scale_offset");
        assert_eq!(wait(1).text(), "s_wait_loadcnt 0x1");
        assert_eq!(fmac.text(), "v_fmac_f32_e32 v2, s3, v1");
        let mut w = Wave::new(32, 8, 0);
        for l in [&load1, &load2] {
            before(&mut w, l).unwrap();
            after(&mut w, l);
        }
        // v_fmac reads v1 and v2: neither load has been waited for.
        assert!(matches!(before(&mut w, &fmac), Err(EmuError::NotReady { wait: "s_wait_loadcnt", .. })));
        // One outstanding: the older load (v1) is done, v2 is not.
        before(&mut w, &wait(1)).unwrap();
        let err = before(&mut w, &fmac).unwrap_err().to_string();
        assert!(err.contains("Vgpr 2..3"), "{err}");
        before(&mut w, &wait(0)).unwrap();
        before(&mut w, &fmac).unwrap();
    }
}
