//! The transpose loads against LLVM: gfx1250 ds_load_tr4/tr6/tr8/tr16_* and global_load_tr4/tr6/
//! tr8/tr16_*, gfx950 ds_read_b64_tr_b4/b8/b16 and ds_read_b96_tr_b6. The 96-bit forms take any
//! VGPR tuple (LLVM prints v[11:13] without the alignment note other 96-bit loads carry).
//! Random words with these opcodes: ours equals LLVM's text or both reject the word.
mod common;

use common::{compare, Rng, Tally, Verdict};
use hx_isa::spec::{self, Format};
use hx_isa::{decode, Target};
use hx_llvm::Disassembler;

#[test]
fn transpose_loads_match_llvm() {
    let cases: &[(Target, Format, &[&str])] = &[
        (Target::Gfx1250, Format::Ds, &["ds_load_tr4_b64", "ds_load_tr6_b96", "ds_load_tr8_b64", "ds_load_tr16_b128"]),
        (Target::Gfx1250, Format::Global, &["global_load_tr4_b64", "global_load_tr6_b96", "global_load_tr8_b64", "global_load_tr16_b128"]),
        (Target::Gfx950, Format::Ds, &["ds_read_b64_tr_b4", "ds_read_b96_tr_b6", "ds_read_b64_tr_b8", "ds_read_b64_tr_b16"]),
    ];
    for &(target, format, names) in cases {
        let (mask, m, shift, width) = spec::format_encoding(target.family(), format).unwrap();
        let len = spec::format_len(target.family(), format);
        let opmask = ((1u32 << width) - 1) << shift;
        let mut d = Disassembler::new(common::gpu(target)).expect("LLVM");
        for &name in names {
            let op = hx_isa::tables::table(target, format).iter().flatten().find(|i| i.mnemonic == name).unwrap_or_else(|| panic!("{name} is not decoded")).opcode as u32;
            let mut rng = Rng(0x7ea5_0000 ^ op as u64 ^ (len as u64) << 12);
            let (mut tally, mut valid, mut odd) = (Tally::default(), 0, 0);
            for _ in 0..4000 {
                let mut words = vec![(rng.u32() & !mask & !opmask) | m | (op << shift)];
                words.extend((1..len / 4).map(|_| rng.u32()));
                if format == Format::Ds && rng.below(8) != 0 {
                    // Loads: data0/data1 must be 0, as bits 17 (gfx1250) and 16, gds (gfx950).
                    words[1] &= 0xff00_00ff;
                    words[0] &= if target == Target::Gfx950 { !(1 << 16) } else { !(3 << 16) };
                }
                if format == Format::Global {
                    // Mostly saddr `off` or an SGPR pair, sve (bit 49) clear and a small offset.
                    if rng.below(2) == 0 {
                        words[0] = (words[0] & !0x7f) | 124;
                    } else {
                        words[0] = (words[0] & !0x7f) | rng.below(100);
                    }
                    words[1] &= !(1 << 17);
                    words[2] &= 0x00ff_ffff | rng.u32() & 0xff00_0000;
                }
                let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let v = compare(&mut d, target, &b);
                if v == Verdict::Match {
                    if let Ok(i) = decode(target, &b, 0) {
                        assert_eq!(i.mnemonic(), name);
                        valid += 1;
                        // A tuple starting at an odd VGPR printed without LLVM's alignment note
                        // (the b96 forms only).
                        odd += (!i.text().contains("Align2") && i.operands().any(|o| matches!(o.value, hx_isa::Operand::Reg(r) if r.class == hx_isa::RegClass::Vgpr && r.dwords > 1 && r.index % 2 == 1))) as u32;
                    }
                }
                tally.add(v);
            }
            assert!(tally.examples.is_empty(), "{name}: mismatches:\n{}", tally.examples.join("\n"));
            assert_eq!(tally.unsupported, 0, "{name}: {:?}", tally.unsupported_examples);
            println!("{name}: {} words, {valid} valid ({odd} with an odd tuple and no note), {} both rejected", tally.total, tally.total - valid);
            assert!(valid >= 500, "{name}: only {valid} valid words");
            assert_eq!(odd > 0, name.contains("b96"), "{name}: {odd} valid words with an odd VGPR tuple and no alignment note");
        }
    }
}
