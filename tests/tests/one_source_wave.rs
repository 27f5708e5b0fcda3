//! Kernels whose work-groups are at most 32 work-items (their metadata's
//! .max_flat_workgroup_size): a target wave64 runs one source wave in lanes 0..31, so the
//! raiser drops the half offset of lane reads and votes and keeps `v_readlane` a lane read.
//! The launch bound is part of the contract: the emulator, like the runtime, refuses a larger
//! work-group. Results are checked by the corpus tests (translate_corpus: wave_ballot and the
//! WMMA kernels run in work-groups of 32) and tests/tests/wmma_mfma.rs.

use hotswap::translate::{translate_code_object_to, Output};
use hotswap::{GpuTarget, Options};

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(hx_corpus::corpus_dir().join("gfx1250").join(format!("{name}.hsaco"))).unwrap()
}

fn raised(name: &str) -> String {
    let options = Options { target: GpuTarget::Gfx942, ..Default::default() };
    String::from_utf8(translate_code_object_to(&corpus(name), &options, Output::RaisedIr).unwrap()).unwrap()
}

#[test]
fn one_wave_kernels_read_lanes_without_the_half_offset() {
    // wave_ballot: .max_flat_workgroup_size 32, v_readlane and v_readfirstlane in the source.
    let one = raised("wave_ballot");
    assert!(!one.contains("%half_shift"), "a half offset in a one-wave kernel");
    assert!(one.contains("@llvm.amdgcn.readlane.i32("), "v_readlane is not a lane read");
    // saxpy: work-groups up to 256, two source waves per target wave.
    let two = raised("saxpy");
    assert!(two.contains("%half_shift"), "no half offset in a two-wave kernel");
}

#[test]
fn launches_past_the_work_group_bound_are_refused() {
    let co = hotswap::codeobj::CodeObject::parse(&corpus("wave_ballot")).unwrap();
    let args: Vec<hx_emu::launch::Arg> = (0..6).map(|_| hx_emu::launch::Arg::Buffer(vec![0; 1024])).collect();
    let run = |block: u32| {
        let d = hx_emu::Dispatch { grid: [64, 1, 1], block: [block, 1, 1], dynamic_lds: 0 };
        hx_emu::launch::launch(&co, "wave_ballot", &d, &args, &hx_emu::Limits::default())
    };
    let err = run(64).err().expect("a work-group of 64 launched").to_string();
    assert!(err.contains("max_flat_workgroup_size 32"), "{err}");
    run(32).expect("a work-group of 32");
}
