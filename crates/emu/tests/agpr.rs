//! AGPR data in memory instructions: GFX9 DS with the acc bit (25) and GLOBAL with the acc bit
//! (55) decode to AGPR operands, and the memory layer moves AGPR contents (a store from
//! a[2:3] and a load into a[6:7] round-trip through LDS and global memory).

use hx_emu::mem_ops::{execute, MemOp, MemRegs, Memories, Space, Width};
use hx_emu::memory::{GlobalMemory, LocalMemory};
use hx_emu::wave::Wave;
use hx_isa::{decode, Field, Operand, Reg, RegClass, Target};

fn reg(inst: &hx_isa::Instruction, f: Field) -> Option<Reg> {
    inst.operands().find(|o| o.spec.field == f).and_then(|o| match o.value {
        Operand::Reg(r) => Some(r),
        _ => None,
    })
}

fn inst(target: Target, w0: u32, w1: u32) -> hx_isa::Instruction {
    let b: Vec<u8> = [w0, w1, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
    decode(target, &b, 0).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn ds_and_global_acc_forms_move_agpr_data() {
    for target in [Target::Gfx942, Target::Gfx950] {
        // ds_write_b64 v1, a[2:3] and ds_read_b64 a[6:7], v1 (bit 25 set).
        let store = inst(target, 0xd800_0000 | 1 << 25 | 0x4d << 17, 1 | 2 << 8);
        let load = inst(target, 0xd800_0000 | 1 << 25 | 0x76 << 17, 1 | 6 << 24);
        assert_eq!(store.text(), "ds_write_b64 v1, a[2:3]");
        assert_eq!(load.text(), "ds_read_b64 a[6:7], v1");
        let data = reg(&store, Field::DsData0).unwrap();
        let dst = reg(&load, Field::DsVdst).unwrap();
        assert_eq!((data.class, dst.class), (RegClass::Agpr, RegClass::Agpr));

        let mut w = Wave::new(64, 8, 8);
        w.exec = u64::MAX;
        for l in 0..64 {
            w.write_vreg_dwords(data, l, &[0x1000 + l as u32, 0x2000 + l as u32]).unwrap();
        }
        let (mut global, mut lds) = (GlobalMemory::new(), LocalMemory::new("lds", 1024));
        let mut scratch: Vec<LocalMemory> = (0..64).map(|_| LocalMemory::new("scratch", 16)).collect();
        let mut mem = Memories { global: &mut global, lds: &mut lds, scratch: &mut scratch, fp_mode: Default::default() };
        let addrs: Vec<u64> = (0..64).map(|l| 8 * l as u64).collect();
        execute(&MemOp::store(Space::Lds, Width::B64), &mut w, &mut mem, &addrs, &MemRegs { dst: None, data: Some(data), data2: None }).unwrap();
        execute(&MemOp::load(Space::Lds, Width::B64), &mut w, &mut mem, &addrs, &MemRegs { dst: Some(dst), data: None, data2: None }).unwrap();
        for l in 0..64 {
            assert_eq!(w.read_vreg_dwords(dst, l).unwrap(), vec![0x1000 + l as u32, 0x2000 + l as u32]);
        }

        // global_store_dwordx2 v[0:1], a[6:7], off (bit 55 set): the data comes from AGPRs.
        let gstore = inst(target, 0xdc00_8000 | 0x1d << 18, 6 << 8 | 0x7f << 16 | 1 << 23);
        assert_eq!(gstore.text(), "global_store_dwordx2 v[0:1], a[6:7], off");
        let gdata = reg(&gstore, Field::FlatVdata).unwrap();
        assert_eq!(gdata.class, RegClass::Agpr);
        let buf = mem.global.alloc(vec![0; 64 * 8]);
        let gaddrs: Vec<u64> = (0..64).map(|l| buf + 8 * l as u64).collect();
        execute(&MemOp::store(Space::Global, Width::B64), &mut w, &mut mem, &gaddrs, &MemRegs { dst: None, data: Some(gdata), data2: None }).unwrap();
        let out = mem.global.buffer(buf).unwrap();
        assert_eq!(&out[8..16], &[0x01, 0x10, 0, 0, 0x01, 0x20, 0, 0]);
    }
}

/// The emulator's unified register file: ACCUM_OFFSET splits a gfx90a-family allocation.
#[test]
fn agprs_beyond_the_allocation_are_errors() {
    let w = Wave::new(64, 8, 4);
    assert!(w.read_vreg(Reg { class: RegClass::Agpr, index: 3, dwords: 1 }, 0).is_ok());
    assert!(w.read_vreg(Reg { class: RegClass::Agpr, index: 3, dwords: 2 }, 0).is_err());
}
