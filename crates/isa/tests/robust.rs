//! Any input decodes to an instruction or an error: no panic, errors name the offset.
use hx_isa::{decode, decode_all, DecodeError, Target};

#[test]
fn arbitrary_bytes_never_panic() {
    let mut s: u64 = 0x1234_5678_9abc_def1;
    let mut buf = vec![0u8; 4096];
    for b in buf.iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *b = s as u8;
    }
    for t in Target::ALL {
        for off in 0..buf.len() + 8 {
            let _ = decode(t, &buf, off);
        }
        for len in 0..16 {
            for off in 0..8 {
                let _ = decode(t, &buf[..len], off);
            }
        }
        let _ = decode_all(t, &buf);
    }
}

#[test]
fn errors_name_offset_and_bytes() {
    // s_add_co_u32 s10, <literal>, s30 with the literal cut off.
    let bytes = [0u8, 0, 0, 0, 0xff, 0x1e, 0x0a, 0x80];
    match decode(Target::Gfx1250, &bytes, 4) {
        Err(e @ DecodeError::Truncated { offset: 4, .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("0x4") && msg.contains("ff 1e 0a 80"), "{msg}");
        }
        other => panic!("expected a truncation error, got {other:?}"),
    }
    assert!(matches!(
        decode(Target::Gfx942, &[1, 2], 0),
        Err(DecodeError::Truncated { offset: 0, .. })
    ));
}

#[test]
fn structured_fields() {
    // s_and_b64 s[10:11], s[20:21], s[30:31]
    let w: u32 = 0x8b8a_1e14;
    let i = decode(Target::Gfx1250, &w.to_le_bytes(), 0).expect("decodes");
    assert_eq!(i.mnemonic(), "s_and_b64");
    assert_eq!(i.len, 4);
    let regs: Vec<_> = i
        .operands()
        .map(|o| match o.value {
            hx_isa::Operand::Reg(r) => (r.class, r.index, r.dwords),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        regs,
        vec![
            (hx_isa::RegClass::Sgpr, 10, 2),
            (hx_isa::RegClass::Sgpr, 20, 2),
            (hx_isa::RegClass::Sgpr, 30, 2)
        ]
    );
    assert_eq!(i.to_string(), "s_and_b64 s[10:11], s[20:21], s[30:31]");
}
