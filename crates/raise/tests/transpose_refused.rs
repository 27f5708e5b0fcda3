//! gfx1250 transpose loads that no compiled kernel pins are refused by name (kernel, offset,
//! mnemonic, why): their lane-to-element mapping is not documented in any source at hand, so
//! neither the emulator nor the raiser models them (hx_emu::mem_ops::is_transpose_load).
//! ds_load_tr8_b64 and ds_load_tr16_b128, pinned by Triton's gfx1250 matmuls, are raised
//! (tests/tests/translate_transpose.rs).

mod common;

#[test]
fn transpose_loads_are_refused_by_name() {
    for asm in [
        "ds_load_tr4_b64 v[2:3], v0",
        "ds_load_tr6_b96 v[3:5], v0 offset:16",
        "global_load_tr4_b64 v[2:3], v0, s[2:3]",
        "global_load_tr6_b96 v[3:5], v[0:1], off",
        "global_load_tr8_b64 v[2:3], v0, s[2:3]",
        "global_load_tr16_b128 v[4:7], v0, s[2:3] offset:64",
    ] {
        let e = common::raise(&format!("s_nop 0\n{asm}\ns_endpgm")).expect_err(asm);
        let mnemonic = asm.split_whitespace().next().unwrap();
        assert!(e.contains(&format!("kernel k, offset 0x4, {mnemonic}: transpose loads are not modelled")), "{asm}: {e}");
    }
}

