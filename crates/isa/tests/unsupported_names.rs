//! A valid instruction the tables do not model is refused by name: Triton 3.9's fp8 -> f32
//! upcast emits `v_cvt_scale_pk8_f32_fp8` (LLVM 22.1.8's disassembler:
//! `v_cvt_scale_pk8_f32_fp8 v[16:23], v[24:25], lit(0x3f800000)`), whose 64-bit VOP3 source the
//! operand kinds do not describe.

use hx_isa::{decode, unsupported_mnemonic, DecodeError, Target};

#[test]
fn unsupported_opcodes_are_named() {
    let bytes = [0x10, 0x00, 0xaa, 0xd6, 0x18, 0xff, 0x01, 0x02, 0x00, 0x00, 0x80, 0x3f];
    assert!(matches!(decode(Target::Gfx1250, &bytes, 0), Err(DecodeError::Unsupported { .. })));
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes, 0), Some("v_cvt_scale_pk8_f32_fp8"));
    // A modelled instruction and truncated input have no such name.
    let add = [0x01, 0x05, 0x00, 0x4a];
    assert!(decode(Target::Gfx1250, &add, 0).is_ok());
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &add, 0), None);
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes[..2], 0), None);
    assert_eq!(unsupported_mnemonic(Target::Gfx1250, &bytes, usize::MAX), None);
}
