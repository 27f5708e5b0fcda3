//! GFX9 MUBUF in the emulator: raw buffer loads, stores and atomics through a V# in SGPRs, with
//! lanes wholly past num_records dropped (loads and returning atomics read 0), and the cases the
//! emulator refuses (typed accesses, structured addressing, verdicts that depend on soffset).

use hx_emu::buffer::{exec_mubuf_in, gfx9_range, Range};
use hx_emu::mem_ops::Memories;
use hx_emu::memory::{GlobalMemory, LocalMemory};
use hx_emu::wave::Wave;
use hx_isa::{decode, Reg, RegClass, Target};

fn inst(target: Target, w0: u32, w1: u32) -> hx_isa::Instruction {
    let b: Vec<u8> = [w0, w1].iter().flat_map(|w| w.to_le_bytes()).collect();
    decode(target, &b, 0).unwrap_or_else(|e| panic!("{e}"))
}

/// MUBUF word 0: opcode, offen, instruction offset, sc0.
fn w0(op: u32, offen: bool, offset: u32, sc0: bool) -> u32 {
    0xe000_0000 | op << 18 | (offen as u32) << 12 | (sc0 as u32) << 14 | offset
}

/// MUBUF word 1: vaddr, vdata, srsrc (SGPR/4), soffset encoding.
fn w1(vaddr: u32, vdata: u32, srsrc4: u32, soffset: u32) -> u32 {
    vaddr | vdata << 8 | srsrc4 << 16 | soffset << 24
}

struct Env {
    global: GlobalMemory,
    lds: LocalMemory,
    scratch: Vec<LocalMemory>,
}

impl Env {
    fn new() -> Env {
        Env { global: GlobalMemory::new(), lds: LocalMemory::new("lds", 16), scratch: (0..64).map(|_| LocalMemory::new("scratch", 16)).collect() }
    }
    fn mem(&mut self) -> Memories<'_> {
        Memories { global: &mut self.global, lds: &mut self.lds, scratch: &mut self.scratch, fp_mode: Default::default() }
    }
}

fn set_rsrc(w: &mut Wave, base: u64, num_records: u32, stride: u32) {
    // s[4:7]: base, stride, num_records, dword 3 (a typical raw-buffer value, no add_tid).
    let d = [base as u32, (base >> 32) as u32 | stride << 16, num_records, 0x0002_0000];
    w.write_sgprs(Reg { class: RegClass::Sgpr, index: 4, dwords: 4 }, &d).unwrap();
}

#[test]
fn raw_loads_stores_and_atomics_with_range_checks() {
    for target in [Target::Gfx942, Target::Gfx950] {
        let mut env = Env::new();
        let data: Vec<u8> = (0..256u32).flat_map(|i| (1000 + i).to_le_bytes()).collect();
        let buf = env.global.alloc(data);
        let mut w = Wave::new(64, 16, 0);
        w.exec = u64::MAX & !(1 << 5); // lane 5 inactive
        // 40 dwords are in range; s8 = 8 bytes of soffset.
        set_rsrc(&mut w, buf, 160, 0);
        w.write_sreg(Reg { class: RegClass::Sgpr, index: 8, dwords: 1 }, 8).unwrap();
        for l in 0..64 {
            // v0: lane l's byte offset; lanes 40.. fall wholly past num_records (with or without soffset).
            let off = if l < 36 { 4 * l as u32 } else { 400 + 4 * l as u32 };
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 1 }, l, &[off]).unwrap();
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 1, dwords: 1 }, l, &[0xdead]).unwrap();
        }
        // buffer_load_dword v1, v0, s[4:7], s8 offen offset:4
        let load = inst(target, w0(0x14, true, 4, false), w1(0, 1, 1, 8));
        assert_eq!(load.text(), "buffer_load_dword v1, v0, s[4:7], s8 offen offset:4");
        exec_mubuf_in(&mut w, &mut env.mem(), &load, &load.mubuf().unwrap()).unwrap();
        for l in 0..64 {
            let got = w.v(1, l).unwrap();
            let want = match l {
                5 => 0xdead,
                0..36 => 1000 + l as u32 + 3, // base + 8 (soffset) + 4l + 4
                _ => 0,
            };
            assert_eq!(got, want, "{target:?} lane {l}");
        }
        // buffer_store_dword v1, v0, s[4:7], 0 offen: lanes past the end write nothing.
        for l in 0..64 {
            w.set_v(1, l, 7000 + l as u32).unwrap();
        }
        let store = inst(target, w0(0x1c, true, 0, false), w1(0, 1, 1, 128));
        assert_eq!(store.text(), "buffer_store_dword v1, v0, s[4:7], 0 offen");
        exec_mubuf_in(&mut w, &mut env.mem(), &store, &store.mubuf().unwrap()).unwrap();
        let out = env.global.buffer(buf).unwrap().to_vec();
        let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
        for i in 0..256 {
            let want = if i < 36 && i != 5 { 7000 + i as u32 } else { 1000 + i as u32 };
            assert_eq!(word(i), want, "{target:?} dword {i}");
        }
        // buffer_atomic_add v1, v0, s[4:7], 0 offen sc0: returns the old value; 0 past the end.
        for l in 0..64 {
            w.set_v(1, l, 1).unwrap();
        }
        let add = inst(target, w0(0x42, true, 0, true), w1(0, 1, 1, 128));
        assert_eq!(add.text(), "buffer_atomic_add v1, v0, s[4:7], 0 offen sc0");
        exec_mubuf_in(&mut w, &mut env.mem(), &add, &add.mubuf().unwrap()).unwrap();
        let out = env.global.buffer(buf).unwrap().to_vec();
        for l in 0..64 {
            let want = match l {
                5 => 1,
                0..36 => 7000 + l as u32,
                _ => 0,
            };
            assert_eq!(w.v(1, l).unwrap(), want, "{target:?} atomic lane {l}");
            if l < 36 && l != 5 {
                assert_eq!(u32::from_le_bytes(out[4 * l..4 * l + 4].try_into().unwrap()), 7001 + l as u32);
            }
        }
        // buffer_wbl2 / buffer_inv do nothing (no caches are modelled).
        let inv = inst(target, w0(0x29, false, 0, true), 0);
        assert_eq!(inv.text(), "buffer_inv sc0");
        exec_mubuf_in(&mut w, &mut env.mem(), &inv, &inv.mubuf().unwrap()).unwrap();
    }
}

#[test]
fn undecided_and_unmodelled_forms_are_refused() {
    let target = Target::Gfx942;
    let mut env = Env::new();
    let buf = env.global.alloc(vec![0; 64]);
    let mut w = Wave::new(64, 8, 0);
    w.exec = 1;
    w.write_sreg(Reg { class: RegClass::Sgpr, index: 8, dwords: 1 }, 8).unwrap();
    // In range without soffset, out of range with it: the GFX9 rule is not modelled.
    set_rsrc(&mut w, buf, 8, 0);
    let load = inst(target, w0(0x14, false, 4, false), w1(0, 1, 1, 8));
    let e = exec_mubuf_in(&mut w, &mut env.mem(), &load, &load.mubuf().unwrap()).unwrap_err();
    assert!(e.to_string().contains("range rule"), "{e}");
    assert_eq!(gfx9_range(4, 8, 4, 8), Range::Unknown);
    assert_eq!(gfx9_range(0, 0, 8, 4), Range::Unknown); // straddles
    assert_eq!(gfx9_range(16, 8, 4, 8), Range::Out);
    // A strided resource, and a typed load.
    set_rsrc(&mut w, buf, 64, 16);
    let e = exec_mubuf_in(&mut w, &mut env.mem(), &load, &load.mubuf().unwrap()).unwrap_err();
    assert!(e.to_string().contains("structured"), "{e}");
    let fmt = inst(target, w0(0x00, false, 0, false), w1(0, 1, 1, 8));
    assert!(exec_mubuf_in(&mut w, &mut env.mem(), &fmt, &fmt.mubuf().unwrap()).is_err());
}
