//! A valid instruction the tables do not model is refused by name: `v_s_exp_f16 s10, s20` (LLVM
//! 22.1.8's disassembler decodes it; the tables model no 16-bit form of the scalar
//! transcendentals). Triton 3.9's fp8 -> f32 upcast `v_cvt_scale_pk8_f32_fp8` was the first such
//! name; it decodes now (a 64-bit VGPR-only source and `scale_sel`).

use hx_isa::{decode, unsupported_mnemonic, DecodeError, Target};

#[test]
fn unsupported_opcodes_are_named() {
    let bytes = [0x0a, 0x00, 0x81, 0xd6, 0x14, 0x00, 0x00, 0x00];
    assert!(matches!(decode(Target::Gfx1250, &bytes, 0), Err(DecodeError::Unsupported { .. })));
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes, 0), Some("v_s_exp_f16"));
    // The upcast decodes, as LLVM prints it.
    let pk8 = [0x10, 0x00, 0xaa, 0xd6, 0x18, 0xff, 0x01, 0x02, 0x00, 0x00, 0x80, 0x3f];
    let i = decode(Target::Gfx1250, &pk8, 0).expect("v_cvt_scale_pk8_f32_fp8 decodes");
    assert_eq!(i.mnemonic(), "v_cvt_scale_pk8_f32_fp8");
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &pk8, 0), None);
    // A modelled instruction and truncated input have no such name.
    let add = [0x01, 0x05, 0x00, 0x4a];
    assert!(decode(Target::Gfx1250, &add, 0).is_ok());
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &add, 0), None);
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes[..2], 0), None);
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes, usize::MAX), None);
}
