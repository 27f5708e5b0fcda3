//! gfx1250 `s_set_vgpr_msb` slots of the operand fields: the VGPRs an instruction names under an
//! MSB state equal the ones llvm-objdump-22 (22.1.8) annotates (`v3 /*v259*/`), for the forms
//! whose slots are not the plain src0/src1/src2/vdst ones: v_fmamk (its second source takes slot
//! 2), VOPD and VOPD3 halves (each field the slot of its VALU field, Y sharing X's), and WMMA
//! tuples that run past v255. The words were assembled by llvm-mc-22 or come from Triton's
//! matmul_f16_128_w4; the expected registers are LLVM's annotations.

use hx_isa::{decode, Instruction, Operand, RegClass, Target};

fn words(dw: &[u32]) -> Vec<u8> {
    dw.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn vgprs(i: &Instruction) -> Vec<u16> {
    i.operands()
        .filter_map(|o| match o.value {
            Operand::Reg(r) if r.class == RegClass::Vgpr => Some(r.index),
            _ => None,
        })
        .collect()
}

#[test]
fn fmamk_and_vopd_halves_take_llvms_slots() {
    // (dwords, MSB state, registers of the instruction or of its X and Y halves)
    let cases: &[(&[u32], u8, &[&[u16]])] = &[
        // s_set_vgpr_msb 0x10; v_fmamk_f32 v1, v2, 0x11223344, v3 /*v259*/
        (&[0x5802_0702, 0x1122_3344], 0x10, &[&[1, 2, 259]]),
        // s_set_vgpr_msb 0x04; v_fmamk_f32 v1, v2, 0x11223344, v3
        (&[0x5802_0702, 0x1122_3344], 0x04, &[&[1, 2, 3]]),
        // v_dual_fmamk_f32 v1, v2, 0x11223344, v3 /*v259*/ :: v_dual_mov_b32 v4, v5
        (&[0xc890_0702, 0x0104_0105, 0x1122_3344], 0x10, &[&[1, 2, 259], &[4, 5]]),
        (&[0xc890_0702, 0x0104_0105, 0x1122_3344], 0x04, &[&[1, 2, 3], &[4, 5]]),
        // v_dual_mul_f32 v1, v2, v3 /*v259*/ :: v_dual_fmamk_f32 v4, v5, 0x11223344, v6
        (&[0xc8c4_0702, 0x0104_0d05, 0x1122_3344], 0x04, &[&[1, 2, 259], &[4, 5, 6]]),
        // v_dual_mul_f32 v1, v2, v3 :: v_dual_fmamk_f32 v4, v5, 0x11223344, v6 /*v262*/
        (&[0xc8c4_0702, 0x0104_0d05, 0x1122_3344], 0x10, &[&[1, 2, 3], &[4, 5, 262]]),
        // s_set_vgpr_msb 0xff: v_dual_fmaak_f32 v1 /*v769*/, v2 /*v770*/, v3 /*v771*/, K ::
        // v_dual_mov_b32 v4 /*v772*/, v5 /*v773*/
        (&[0xc850_0702, 0x0104_0105, 0x1122_3344], 0xff, &[&[769, 770, 771], &[772, 773]]),
        // Triton matmul_f16_128_w4 +0x4124 (VOPD3), state 0x04:
        // v_dual_lshlrev_b32 v0, 7, v131 /*v387*/ :: v_dual_mov_b32 v120, 0
        (&[0xcf44_8087, 0x0083_0080, 0x7800_0000], 0x04, &[&[0, 387], &[120]]),
        // +0x57e8, state 0x54: v_dual_lshrrev_b32 v1 /*v257*/, 4, v0 /*v256*/ ::
        // v_dual_add_nc_u32 v0 /*v256*/, s8, v0 /*v256*/
        (&[0xcf55_0084, 0x0000_0008, 0x0000_0001], 0x54, &[&[257, 256], &[256, 256]]),
        // +0x59c8 (VOPD), state 0x04: v_dual_mov_b32 v129, 0 :: v_dual_lshrrev_b32 v128, 1, v128 /*v384*/
        (&[0xca2a_0080, 0x8181_0081], 0x04, &[&[129], &[128, 384]]),
    ];
    for (dw, msb, want) in cases {
        let b = words(dw);
        let i = decode(Target::Gfx1250, &b, 0).expect("decodes");
        let m = i.with_vgpr_msb(*msb).expect("remaps");
        let got: Vec<Vec<u16>> = match m.vopd_parts() {
            Some(parts) => parts.iter().map(vgprs).collect(),
            None => vec![vgprs(&m)],
        };
        let want: Vec<Vec<u16>> = want.iter().map(|w| w.to_vec()).collect();
        assert_eq!(got, want, "{} under {msb:#x}", i.text());
        // Without a state the word is as decoded (its text is LLVM's, low 8 bits only).
        assert_eq!(i.with_vgpr_msb(0).unwrap(), i);
        if m.vopd_parts().is_some() {
            assert_eq!(m.vopd_vgpr_msb(), *msb);
            assert!(m.with_vgpr_msb(1).is_err(), "a VOPD word is remapped once");
        }
    }
}

/// Triton matmul_f16_128_w4 +0x4fd4: `v_wmma_f32_16x16x32_f16 v[24:31], v[210:217] /*v[466:473]*/,
/// v[250:257] /*v[506:513]*/, v[24:31]`: a B tuple running past v255 decodes as LLVM prints it and
/// moves whole under the state (0x05: slots 0 and 1).
#[test]
fn wmma_tuple_past_v255() {
    let b = words(&[0xcc60_0018, 0x1c63_f5d2]);
    let i = decode(Target::Gfx1250, &b, 0).expect("decodes");
    assert_eq!(i.text(), "v_wmma_f32_16x16x32_f16 v[24:31], v[210:217], v[250:257], v[24:31]");
    assert_eq!(vgprs(&i.with_vgpr_msb(0x05).unwrap()), [24, 466, 506, 24]);
}
