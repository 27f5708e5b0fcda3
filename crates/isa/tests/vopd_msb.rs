//! A VOPD pair under s_set_vgpr_msb: both halves take the slot MSBs by operand position (src0X
//! and src0Y slot 0, vsrc1 slot 1, vsrc2 slot 2, vdstX and vdstY slot 3), as LLVM's
//! getVGPRLoweringOperandTables pairs them. The word keeps the state and its parts come remapped; Triton's
//! dot_scaled_*_w1 gfx1250 kernels (VOPD pairs on v256 and up) pin it end to end.

use hx_isa::{decode, Operand, Target};

fn vgprs(i: &hx_isa::Instruction) -> Vec<u16> {
    i.operands()
        .filter_map(|o| match o.value {
            Operand::Reg(r) if r.class == hx_isa::RegClass::Vgpr => Some(r.index),
            _ => None,
        })
        .collect()
}

#[test]
fn vopd_parts_share_the_slot_msbs() {
    // v_dual_mov_b32 v1, v2 :: v_dual_add_f32 v4, v5, v6 (llvm-mc-22 -mcpu=gfx1250).
    let bytes = [0x02, 0x01, 0x08, 0xca, 0x05, 0x0d, 0x04, 0x01, 0, 0, 0, 0];
    let inst = decode(Target::Gfx1250, &bytes, 0).unwrap();
    assert_eq!(inst.text(), "v_dual_mov_b32 v1, v2 :: v_dual_add_f32 v4, v5, v6");
    // dst MSBs 1 (slot 3), src0 1 (slot 0), src1 2 (slot 1): s_set_vgpr_msb 0x49. The word
    // keeps the state and hands out its parts remapped.
    let [x, y] = inst.with_vgpr_msb(0x49).unwrap().vopd_parts().unwrap();
    assert_eq!(vgprs(&x), vec![257, 258]);
    assert_eq!(vgprs(&y), vec![260, 261, 518]);
    // MSB state 0 leaves them alone.
    let [x0, y0] = inst.with_vgpr_msb(0).unwrap().vopd_parts().unwrap();
    assert_eq!((vgprs(&x0), vgprs(&y0)), (vec![1, 2], vec![4, 5, 6]));
}
