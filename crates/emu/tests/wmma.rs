//! gfx1250 WMMA semantics on hand-built matrices: the inputs are placed in the registers by a
//! layout written out here (lane l holds row / column l % 16; lanes 0-15 and 16-31 split K; the
//! order of k within a lane is free as long as A and B share it; C/D: lane l holds column l % 16,
//! element i of it row 8 * (l / 16) + i), the instruction is decoded from its bytes and run,
//! and D is compared with a plain matrix product computed here. Forms whose layouts are not
//! documented must be refused, not guessed.

use hx_emu::wave::Wave;
use hx_emu::wmma::exec_wmma;
use hx_isa::{decode, Reg, RegClass, Target};

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// (code, value) pairs of each format that are small exact numbers.
fn codes(fmt: &str) -> Vec<(u64, f64)> {
    match fmt {
        "fp8" => vec![(0x00, 0.0), (0x38, 1.0), (0x40, 2.0), (0x44, 3.0), (0xb8, -1.0), (0x30, 0.5)],
        "bf8" => vec![(0x00, 0.0), (0x3c, 1.0), (0x40, 2.0), (0x42, 3.0), (0xbc, -1.0), (0x38, 0.5)],
        "fp6" => vec![(0, 0.0), (8, 1.0), (16, 2.0), (20, 3.0), (0x28, -1.0), (4, 0.5)],
        "bf6" => vec![(0, 0.0), (12, 1.0), (16, 2.0), (18, 3.0), (0x2c, -1.0), (8, 0.5)],
        "fp4" => vec![(0, 0.0), (2, 1.0), (4, 2.0), (5, 3.0), (0xa, -1.0), (1, 0.5)],
        "bf16" => vec![(0, 0.0), (0x3f80, 1.0), (0x4000, 2.0), (0x4040, 3.0), (0xbf80, -1.0), (0x3f00, 0.5)],
        _ => unreachable!(),
    }
}

fn bits_of(fmt: &str) -> u32 {
    match fmt {
        "fp8" | "bf8" => 8,
        "fp6" | "bf6" => 6,
        "fp4" => 4,
        _ => 16,
    }
}

fn wave() -> Wave {
    let mut w = Wave::new(32, 256, 0);
    w.exec = u32::MAX as u64;
    w
}

fn set_bits(w: &mut Wave, base: u32, lane: usize, bit: u32, bits: u32, v: u64) {
    for i in 0..bits {
        let at = bit + i;
        let r = Reg { class: RegClass::Vgpr, index: (base + at / 32) as u16, dwords: 1 };
        let old = w.read_vreg(r, lane).unwrap() as u32;
        let new = (old & !(1 << (at % 32))) | (((v >> i) & 1) as u32) << (at % 32);
        w.write_vreg_dwords(r, lane, &[new]).unwrap();
    }
}

fn get(w: &Wave, reg: u32, lane: usize) -> u32 {
    w.read_vreg(Reg { class: RegClass::Vgpr, index: reg as u16, dwords: 1 }, lane).unwrap() as u32
}

/// Runs one WMMA (w0/w1 with D = v0, A = v32, B = v96, C = v160 set by the caller) on random
/// A (fa), B (fb) and C = row + column, and compares D (f32 or bf16 in `d_bf16`) with the
/// product.
fn check(w0: u32, w1: u32, k: usize, fa: &str, fb: &str, d_bf16: bool) {
    let bytes: Vec<u8> = [w0, w1, 0, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(Target::Gfx1250, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    let m = inst.wmma().expect("a WMMA");
    let mut rng = Rng(0x1234_5678);
    let (ca, cb) = (codes(fa), codes(fb));
    let a: Vec<Vec<(u64, f64)>> = (0..16).map(|_| (0..k).map(|_| ca[rng.below(ca.len())]).collect()).collect();
    let b: Vec<Vec<(u64, f64)>> = (0..k).map(|_| (0..16).map(|_| cb[rng.below(cb.len())]).collect()).collect();
    let mut w = wave();
    for lane in 0..32 {
        let (r, h) = (lane % 16, lane / 16);
        for e in 0..k / 2 {
            let kk = h * k / 2 + e;
            set_bits(&mut w, 32, lane, e as u32 * bits_of(fa), bits_of(fa), a[r][kk].0);
            set_bits(&mut w, 96, lane, e as u32 * bits_of(fb), bits_of(fb), b[kk][r].0);
        }
        for i in 0..8 {
            let row = 8 * h + i;
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 160 + i as u16, dwords: 1 }, lane, &[((row + r) as f32).to_bits()]).unwrap();
        }
    }
    exec_wmma(&mut w, &inst, &m).unwrap_or_else(|e| panic!("{}: {e}", inst.text()));
    for lane in 0..32 {
        let (n, h) = (lane % 16, lane / 16);
        for i in 0..8 {
            let row = 8 * h + i;
            let mut want = (row + n) as f64 + (0..k).map(|kk| a[row][kk].1 * b[kk][n].1).sum::<f64>();
            if d_bf16 {
                // One rounding, to nearest even, of the exact sum (exact in f32 here).
                let x = (want as f32).to_bits();
                want = f32::from_bits(((x + 0x7fff + ((x >> 16) & 1)) >> 16) << 16) as f64;
            }
            let got = if d_bf16 {
                let dw = get(&w, (i / 2) as u32, lane);
                f32::from_bits((dw >> (16 * (i % 2))) << 16) as f64
            } else {
                f32::from_bits(get(&w, i as u32, lane)) as f64
            };
            assert_eq!(got, want, "{}: D[{row}][{n}]", inst.text());
        }
    }
}

/// A dense word: D v0, A v32, B v96, C v160, op_sel_hi = 3 (`hi` adds the f8f6f4 B format).
fn words(op: u32, w0_extra: u32, b_fmt_lo: u32) -> (u32, u32) {
    (0xcc00_0000 | op << 16 | w0_extra << 8, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18 | b_fmt_lo << 27)
}

#[test]
fn bf16f32_rounds_an_f32_accumulation_to_bf16() {
    let (w0, w1) = words(0x64, 0, 3);
    check(w0, w1, 32, "bf16", "bf16", true);
}

#[test]
fn k128_fp8_products() {
    for (op, fa, fb) in [(0x80, "fp8", "fp8"), (0x81, "fp8", "bf8"), (0x82, "bf8", "fp8"), (0x83, "bf8", "bf8")] {
        let (w0, w1) = words(op, 0, 3);
        check(w0, w1, 128, fa, fb, false);
    }
}

#[test]
fn f8f6f4_same_width_formats() {
    // matrix_a_fmt in op_sel (bits 13:11), matrix_b_fmt in {op_sel_hi[2], op_sel_hi[1:0]}.
    for (fa, fb, ac, bc) in [("fp4", "fp4", 4u32, 4u32), ("fp6", "bf6", 2, 3), ("bf6", "fp6", 3, 2), ("fp8", "bf8", 0, 1)] {
        let (w0, w1) = words(0x33, ac << 3 | (bc >> 2) << 6, bc & 3);
        check(w0, w1, 128, fa, fb, false);
    }
}

#[test]
fn undocumented_layouts_are_refused() {
    let cases: Vec<Vec<u32>> = vec![
        // v_swmmac_f32_16x16x64_f16 v[0:7], v[32:39], v[96:111], v160
        vec![0xcc65_0000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18 | 3 << 27],
        // f8f6f4 with fp8 A and fp4 B
        vec![0xcc33_4000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18],
        // v_wmma_f32_32x16x128_f4
        vec![0xcc88_4000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18 | 3 << 27],
        // v_wmma_scale_f32_16x16x128_f8f6f4 (prefix v1, v2)
        vec![0xcc35_0000, 257 | 258 << 9 | 256 << 18, 0xcc33_0000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18],
    ];
    for c in cases {
        let mut bytes: Vec<u8> = c.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend([0; 8]);
        let inst = decode(Target::Gfx1250, &bytes, 0).unwrap();
        let m = inst.wmma().unwrap();
        let err = exec_wmma(&mut wave(), &inst, &m).expect_err(&inst.text()).to_string();
        assert!(err.contains("not documented"), "{}: {err}", inst.text());
    }
}
