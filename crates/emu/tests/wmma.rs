//! gfx1250 WMMA semantics on hand-built matrices: the inputs are placed in the registers by a
//! layout written out here (lane l holds row / column l % 16; lanes 0-15 and 16-31 split K; the
//! order of k within a lane is free as long as A and B share it; C/D: lane l holds column l % 16,
//! element i of it row 8 * (l / 16) + i; the scaled and mixed-width forms need the real order,
//! written out in `k_in_chunks`), the instruction is decoded from its bytes and run,
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
        // f8f6f4 with fp6 A and fp8 B (no kernel pins the fp6 K order)
        vec![0xcc33_1000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18],
        // v_wmma_f32_32x16x128_f4
        vec![0xcc88_4000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18 | 3 << 27],
        // v_wmma_scale16_f32_16x16x128_f8f6f4 (prefix v[2:3], v[4:5])
        vec![0xcc3a_0000, 258 | 260 << 9 | 256 << 18, 0xcc33_0000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18],
        // E4M3 scales for A (matrix_a_scale_fmt, neg_lo of the prefix)
        vec![0xcc35_0000, 257 | 258 << 9 | 256 << 18 | 2 << 29, 0xcc33_0000, (256 + 32) | (256 + 96) << 9 | (256 + 160) << 18],
        // a scale prefix alone
        vec![0xcc35_0000, 257 | 258 << 9 | 256 << 18],
    ];
    for c in cases {
        let mut bytes: Vec<u8> = c.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend([0; 8]);
        let inst = decode(Target::Gfx1250, &bytes, 0).unwrap();
        let m = inst.wmma().unwrap();
        let err = exec_wmma(&mut wave(), &inst, &m).expect_err(&inst.text()).to_string();
        assert!(err.contains("not documented") || err.contains("pins") || err.contains("alone"), "{}: {err}", inst.text());
    }
}

/// The k of element `e` of lane half `h` for `bits`-bit elements, as read here: each lane half
/// holds 16-byte chunks of consecutive k, halves alternating (the reading Triton's gfx1250
/// dot_scaled kernels pin; see hx_emu::wmma::k_of).
fn k_in_chunks(bits: usize, h: usize, e: usize) -> usize {
    let per_chunk = 128 / bits;
    (e / per_chunk) * 2 * per_chunk + h * per_chunk + e % per_chunk
}

/// v_wmma_scale_f32_16x16x128_f8f6f4 with A and B of different widths and E8M0 scales: D =
/// C + sum over k of A[m][k] 2^(sa[m][k/32]-127) B[k][n] 2^(sb[n][k/32]-127), A's scales from
/// lanes 16-31 (matrix_a_scale:MATRIX_SCALE_ROW1) and B's from lanes 0-15.
#[test]
fn scaled_mixed_width_products() {
    for (fa, a_fmt, fb, b_fmt) in [("bf8", 1u32, "fp4", 4u32), ("fp4", 4, "fp8", 0), ("fp8", 0, "fp8", 0)] {
        let (sa_reg, sb_reg) = (200u32, 201u32);
        let prefix = [0xcc35_0000 | 1 << 11, (256 + sa_reg) | (256 + sb_reg) << 9 | 128 << 18];
        let (a_regs, b_regs) = (32u32, 96u32);
        let wm = [
            0xcc33_0000 | a_fmt << 11 | (b_fmt >> 2) << 14,
            (256 + a_regs) | (256 + b_regs) << 9 | (256 + 160) << 18 | (b_fmt & 3) << 27,
        ];
        let bytes: Vec<u8> = prefix.iter().chain(&wm).chain(&[0, 0]).flat_map(|w| w.to_le_bytes()).collect();
        let inst = decode(Target::Gfx1250, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(inst.len, 16, "{}", inst.text());
        assert!(inst.text().contains("matrix_a_scale:MATRIX_SCALE_ROW1"), "{}", inst.text());
        let m = inst.wmma().expect("a WMMA");
        let mut rng = Rng(0x5ca1_ed00 + a_fmt as u64);
        let (ca, cb) = (codes(fa), codes(fb));
        let k = 128;
        let a: Vec<Vec<(u64, f64)>> = (0..16).map(|_| (0..k).map(|_| ca[rng.below(ca.len())]).collect()).collect();
        let b: Vec<Vec<(u64, f64)>> = (0..k).map(|_| (0..16).map(|_| cb[rng.below(cb.len())]).collect()).collect();
        // E8M0 scales 2^-3 .. 2^3, one per row (column) and 32 k.
        let sa: Vec<[u32; 4]> = (0..16).map(|_| [0; 4].map(|_: u32| 124 + rng.below(7) as u32)).collect();
        let sb: Vec<[u32; 4]> = (0..16).map(|_| [0; 4].map(|_: u32| 124 + rng.below(7) as u32)).collect();
        let mut w = wave();
        for lane in 0..32 {
            let (r, h) = (lane % 16, lane / 16);
            for e in 0..k / 2 {
                let (ka, kb) = (k_in_chunks(bits_of(fa) as usize, h, e), k_in_chunks(bits_of(fb) as usize, h, e));
                set_bits(&mut w, a_regs, lane, e as u32 * bits_of(fa), bits_of(fa), a[r][ka].0);
                set_bits(&mut w, b_regs, lane, e as u32 * bits_of(fb), bits_of(fb), b[kb][r].0);
            }
            for i in 0..8 {
                let row = 8 * h + i;
                w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 160 + i as u16, dwords: 1 }, lane, &[((row + r) as f32).to_bits()]).unwrap();
            }
            // A's scales in lanes 16-31 (ROW1; lanes 0-15 hold garbage), B's in lanes 0-15.
            let pack = |s: [u32; 4]| s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24;
            let a_word = if h == 1 { pack(sa[r]) } else { 0x8181_8181 };
            let b_word = if h == 0 { pack(sb[r]) } else { 0x7e7e_7e7e };
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: sa_reg as u16, dwords: 1 }, lane, &[a_word]).unwrap();
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: sb_reg as u16, dwords: 1 }, lane, &[b_word]).unwrap();
        }
        exec_wmma(&mut w, &inst, &m).unwrap_or_else(|e| panic!("{}: {e}", inst.text()));
        for lane in 0..32 {
            let (n, h) = (lane % 16, lane / 16);
            for i in 0..8 {
                let row = 8 * h + i;
                let scale = |kk: usize| 2f64.powi(sa[row][kk / 32] as i32 - 127 + sb[n][kk / 32] as i32 - 127);
                let want = (row + n) as f64 + (0..k).map(|kk| a[row][kk].1 * b[kk][n].1 * scale(kk)).sum::<f64>();
                let got = f32::from_bits(get(&w, i as u32, lane)) as f64;
                assert_eq!(got, want, "{}: D[{row}][{n}]", inst.text());
            }
        }
    }
}
