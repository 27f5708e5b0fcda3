//! `hotswap::prewarm` leaves a warm target machine that the translations of every thread use
//! (one test in its own process, so that the pool's count is this test's alone).

use hotswap::{GpuTarget, Options};

#[test]
fn prewarm_leaves_a_machine_every_thread_translates_with() {
    let source = Options { target: GpuTarget::Gfx1250, ..Default::default() };
    let e = hotswap::prewarm(&source).unwrap_err();
    assert!(e.to_string().contains("gfx942 or gfx950"), "{e}");

    let o = Options { target: GpuTarget::Gfx942, ..Default::default() };
    let lower = hx_lower::LowerOptions::new(GpuTarget::Gfx942);
    assert_eq!(hx_lower::pooled_machines(&lower), 0);
    let o1 = o.clone();
    std::thread::spawn(move || hotswap::prewarm(&o1)).join().unwrap().unwrap();
    assert_eq!(hx_lower::pooled_machines(&lower), 1);

    // Translations on other threads, one after the other, take that machine and put it back:
    // none makes its own.
    let input = std::fs::read(hx_corpus::corpus_dir().join("gfx1250/saxpy.hsaco")).unwrap();
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let (i, o) = (input.clone(), o.clone());
        outputs.push(std::thread::spawn(move || hotswap::translate(&i, &o)).join().unwrap().unwrap().bytes);
        assert_eq!(hx_lower::pooled_machines(&lower), 1);
    }
    assert_eq!(outputs[0], outputs[1]);
}
