//! The emulator's race check (`Limits::races`): a plain store and another wave's access of the
//! same global byte with no work-group barrier between them is refused as undefined. Every
//! corpus launch, on every target it builds for, is race-free; the mutant the differential
//! mutation test could not judge before (plain stores racing with other threads' atomics on
//! one address, which LLVM may order differently within a thread) is refused; and a kernel
//! where one wave stores and another updates the same address is refused without a barrier
//! between them and runs with one.

use hx_emu::launch::Arg;
use hx_llvm::{compile_ir, Emit, GpuTarget, OptLevel};

fn checked() -> hx_emu::Limits {
    hx_emu::Limits { races: true, ..Default::default() }
}

#[test]
fn corpus_launches_are_race_free() {
    let mut runs = 0;
    for obj in hx_corpus::objects().unwrap() {
        for cpu in ["gfx1250", "gfx942", "gfx950"].into_iter().filter(|c| obj.builds_for(c)) {
            let bytes = std::fs::read(hx_corpus::corpus_dir().join(cpu).join(format!("{}.hsaco", obj.name))).unwrap();
            for launch in &obj.launches {
                let r = hx_tests::run_launch_with(&bytes, &obj.name, launch, 11, &checked());
                assert!(r.is_ok(), "{cpu}: {}", r.unwrap_err());
                runs += 1;
            }
        }
    }
    assert!(runs > 100, "only {runs} launches ran");
}

/// The mutant of seed 3 (`HX_MUTANTS=120`): bit 25 of atomics_global's word at 0x954.
#[test]
fn plain_stores_against_atomics_are_a_race() {
    let obj = hx_corpus::object("atomics_global").unwrap();
    let launch = &obj.launches[0];
    let source = std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join("atomics_global.hsaco")).unwrap();
    let bytes = hx_tests::mutant(&source, 0x954, 25);
    hx_tests::run_launch_with(&bytes, "mutant", launch, 5, &hx_emu::Limits::default()).expect("runs unchecked");
    let e = hx_tests::run_launch_with(&bytes, "mutant", launch, 5, &checked()).unwrap_err();
    assert!(e.contains("data race on global memory"), "{e}");
}

/// tests/fixtures/store_then_update.ll, with a work-group barrier between the store and the
/// update when `barrier`.
fn kernel(barrier: bool) -> String {
    let ir = include_str!("../fixtures/store_then_update.ll");
    if barrier { ir.replace("; BARRIER", "call void @llvm.amdgcn.s.barrier()") } else { ir.to_string() }
}

#[test]
fn a_store_and_another_waves_update_race_unless_a_barrier_orders_them() {
    for barrier in [false, true] {
        let rel = compile_ir(&kernel(barrier), "race", GpuTarget::Gfx1250, OptLevel::O2, Emit::Object).unwrap();
        let co_bytes = hx_relink::link(&rel).unwrap();
        let co = hotswap::codeobj::CodeObject::parse(&co_bytes).unwrap();
        // One work-group of two wave32s.
        let dispatch = hx_emu::Dispatch { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
        let args = [Arg::Buffer(vec![0; 4])];
        hx_emu::launch::launch(&co, "race", &dispatch, &args, &hx_emu::Limits::default()).expect("runs unchecked");
        let checked = hx_emu::launch::launch(&co, "race", &dispatch, &args, &checked());
        match (barrier, checked) {
            (false, Err(e)) => assert!(e.to_string().contains("data race on global memory"), "{e}"),
            (false, Ok(_)) => panic!("wave 1 reads and stores out[0] unordered with wave 0's store, and the check passed it"),
            (true, Err(e)) => panic!("the barrier orders the stores, yet: {e}"),
            (true, Ok(_)) => {}
        }
    }
}
