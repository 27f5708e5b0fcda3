//! MFMA semantics: for each shape tested, the inputs are placed in the registers by the layout
//! written out here from AMD's Matrix Instruction Calculator (not by the code under test), the
//! instruction is decoded from its bytes and executed, and D is compared, read back through
//! the same hand-written layout, with a plain matrix product computed here.

#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use hx_emu::mfma::exec_mfma;
use hx_emu::wave::Wave;
use hx_isa::{decode, Reg, RegClass, Target};

/// xorshift: deterministic small integers.
struct Rng(u64);
impl Rng {
    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (self.0 % (hi - lo + 1) as u64) as i32
    }
}

fn f16_bits(x: f32) -> u32 {
    // Small integers only: exact in f16.
    let h = half_from_f32(x);
    h as u32
}

fn half_from_f32(x: f32) -> u16 {
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let m = ((b >> 13) & 0x3ff) as u16;
    assert!((1..31).contains(&e) && b & 0x1fff == 0, "{x} is not an exact normal half");
    sign | (e as u16) << 10 | m
}

/// An MFMA word: D at v`d` (AGPRs with `acc_cd`), A at v`a`, B at v`b`, C at v`c`.
fn mfma(target: Target, op: u32, d: u32, a: u32, b: u32, c: u32, acc_cd: bool, cbsz: u32, abid: u32, blgp: u32) -> hx_isa::Instruction {
    let w0 = 0xd380_0000 | op << 16 | (acc_cd as u32) << 15 | abid << 11 | cbsz << 8 | d;
    let w1 = (256 + a) | (256 + b) << 9 | (256 + c) << 18 | blgp << 29;
    let bytes = word_bytes(w0, w1);
    decode(target, &bytes, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn word_bytes(w0: u32, w1: u32) -> Vec<u8> {
    [w0, w1, 0u32].iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn wave() -> Wave {
    let mut w = Wave::new(64, 256, 256);
    w.exec = u64::MAX;
    w
}

fn set_bits(w: &mut Wave, class: RegClass, base: u32, lane: usize, bit: u32, bits: u32, v: u64) {
    for i in 0..bits {
        let at = bit + i;
        let r = Reg { class, index: (base + at / 32) as u16, dwords: 1 };
        let old = w.read_vreg(r, lane).unwrap() as u32;
        let b = ((v >> i) & 1) as u32;
        let new = (old & !(1 << (at % 32))) | b << (at % 32);
        w.write_vreg_dwords(r, lane, &[new]).unwrap();
    }
}

fn get(w: &Wave, class: RegClass, reg: u32, lane: usize) -> u32 {
    w.read_vreg(Reg { class, index: reg as u16, dwords: 1 }, lane).unwrap() as u32
}

/// 32x32x8 f16 (one block): A[i][k] in lane i + 32*(k/4), half k%4 of the lane's 2 VGPRs;
/// B[k][j] likewise by column; D[i][j] in VGPR 4*(i/8) + i%4 of lane j + 32*((i/4)%2).
#[test]
fn f32_32x32x8_f16_layout() {
    for (target, acc) in [(Target::Gfx942, false), (Target::Gfx950, true)] {
        let mut r = Rng(7);
        let mut w = wave();
        let a: Vec<Vec<i32>> = (0..32).map(|_| (0..8).map(|_| r.int(-4, 4)).collect()).collect();
        let b: Vec<Vec<i32>> = (0..8).map(|_| (0..32).map(|_| r.int(-4, 4)).collect()).collect();
        let c: Vec<Vec<i32>> = (0..32).map(|_| (0..32).map(|_| r.int(-50, 50)).collect()).collect();
        let cfile = if acc { RegClass::Agpr } else { RegClass::Vgpr };
        for i in 0..32 {
            for k in 0..8 {
                set_bits(&mut w, RegClass::Vgpr, 0, i + 32 * (k / 4), 16 * (k as u32 % 4), 16, f16_bits(a[i][k] as f32) as u64);
                set_bits(&mut w, RegClass::Vgpr, 2, i + 32 * (k / 4), 16 * (k as u32 % 4), 16, f16_bits(b[k][i] as f32) as u64);
            }
            for j in 0..32 {
                let (reg, lane) = (4 * (i / 8) + i % 4, j + 32 * ((i / 4) % 2));
                w.write_vreg_dwords(Reg { class: cfile, index: 64 + reg as u16, dwords: 1 }, lane, &[(c[i][j] as f32).to_bits()]).unwrap();
            }
        }
        let inst = mfma(target, 0x4c, 64, 0, 2, 64, acc, 0, 0, 0);
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for i in 0..32 {
            for j in 0..32 {
                let want = c[i][j] + (0..8).map(|k| a[i][k] * b[k][j]).sum::<i32>();
                let got = f32::from_bits(get(&w, cfile, 64 + (4 * (i / 8) + i % 4) as u32, j + 32 * ((i / 4) % 2)));
                assert_eq!(got, want as f32, "{target:?} D[{i}][{j}]");
            }
        }
    }
}

/// 16x16x16 f16 and gfx950's 16x16x32 f16: A[i][k] in lane i + 16*(k/P) (P = 4 or 8 halves
/// per lane), element k%P; D[i][j] in VGPR i%4 of lane j + 16*(i/4).
#[test]
fn f32_16x16_f16_layouts() {
    for (target, op, kk) in [(Target::Gfx942, 0x4d, 16usize), (Target::Gfx950, 0x4d, 16), (Target::Gfx950, 0x54, 32)] {
        let per = kk / 4;
        let mut r = Rng(11 + kk as u64);
        let mut w = wave();
        let a: Vec<Vec<i32>> = (0..16).map(|_| (0..kk).map(|_| r.int(-3, 3)).collect()).collect();
        let b: Vec<Vec<i32>> = (0..kk).map(|_| (0..16).map(|_| r.int(-3, 3)).collect()).collect();
        for i in 0..16 {
            for k in 0..kk {
                set_bits(&mut w, RegClass::Vgpr, 0, i + 16 * (k / per), 16 * (k % per) as u32, 16, f16_bits(a[i][k] as f32) as u64);
                set_bits(&mut w, RegClass::Vgpr, 8, i + 16 * (k / per), 16 * (k % per) as u32, 16, f16_bits(b[k][i] as f32) as u64);
            }
        }
        // C = 1.0 as an inline constant (242).
        let w0 = 0xd380_0000 | op << 16 | 32;
        let w1 = 256 | (256 + 8) << 9 | 242 << 18;
        let bytes = word_bytes(w0, w1);
        let inst = decode(target, &bytes, 0).unwrap();
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for i in 0..16 {
            for j in 0..16 {
                let want = 1 + (0..kk).map(|k| a[i][k] * b[k][j]).sum::<i32>();
                assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 32 + (i % 4) as u32, j + 16 * (i / 4))), want as f32, "{target:?} {op:#x} D[{i}][{j}]");
            }
        }
    }
}

/// 4x4x4_16b f16: 16 blocks; A[b][i][k] in lane 4b + i, B[b][k][j] in lane 4b + j (all K in
/// one lane), D[b][i][j] in VGPR i of lane 4b + j. cbsz:4 abid:3 makes every block read A
/// from block 3.
#[test]
fn f32_4x4x4_16b_f16_blocks_and_broadcast() {
    for (cbsz, abid) in [(0, 0), (4, 3), (2, 1)] {
        let mut r = Rng(3 + cbsz as u64);
        let mut w = wave();
        let a: Vec<Vec<Vec<i32>>> = (0..16).map(|_| (0..4).map(|_| (0..4).map(|_| r.int(-5, 5)).collect()).collect()).collect();
        let b: Vec<Vec<Vec<i32>>> = (0..16).map(|_| (0..4).map(|_| (0..4).map(|_| r.int(-5, 5)).collect()).collect()).collect();
        for blk in 0..16 {
            for i in 0..4 {
                for k in 0..4 {
                    set_bits(&mut w, RegClass::Vgpr, 0, 4 * blk + i, 16 * k as u32, 16, f16_bits(a[blk][i][k] as f32) as u64);
                    set_bits(&mut w, RegClass::Vgpr, 2, 4 * blk + i, 16 * k as u32, 16, f16_bits(b[blk][k][i] as f32) as u64);
                }
            }
        }
        let inst = mfma(Target::Gfx942, 0x4a, 8, 0, 2, 8, false, cbsz, abid, 0);
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for blk in 0..16 {
            let src = blk >> cbsz << cbsz | abid as usize;
            for i in 0..4 {
                for j in 0..4 {
                    let want: i32 = (0..4).map(|k| a[src][i][k] * b[blk][k][j]).sum();
                    assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 8 + i as u32, 4 * blk + j)), want as f32, "cbsz {cbsz} block {blk} D[{i}][{j}]");
                }
            }
        }
    }
}

/// 32x32x1_2b f32: A[b][i] in lane 32b + i, B[b][j] in lane 32b + j; D[b][i][j] in VGPR
/// 16b + 4*(i/8) + i%4 of lane j + 32*((i/4)%2). blgp:1 makes both blocks read B from lanes
/// 0..31 (block 0's B).
#[test]
fn f32_32x32x1_2b_f32_and_blgp() {
    for blgp in [0u32, 1] {
        let mut r = Rng(5 + blgp as u64);
        let mut w = wave();
        let a: Vec<i32> = (0..64).map(|_| r.int(-9, 9)).collect();
        let b: Vec<i32> = (0..64).map(|_| r.int(-9, 9)).collect();
        for l in 0..64 {
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 1 }, l, &[(a[l] as f32).to_bits()]).unwrap();
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 1, dwords: 1 }, l, &[(b[l] as f32).to_bits()]).unwrap();
        }
        // C = 0 in v[32:63] (LLVM 22 cannot print this opcode with a constant C: not decoded).
        for l in 0..64 {
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 32, dwords: 32 }, l, &[0; 32]).unwrap();
        }
        let inst = mfma(Target::Gfx942, 0x40, 32, 0, 1, 32, false, 0, 0, blgp);
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for blk in 0..2 {
            for i in 0..32 {
                for j in 0..32 {
                    let b_blk = if blgp == 1 { 0 } else { blk };
                    let want = a[32 * blk + i] * b[32 * b_blk + j];
                    let reg = 32 + 16 * blk + 4 * (i / 8) + i % 4;
                    assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, reg as u32, j + 32 * ((i / 4) % 2))), want as f32, "blgp {blgp} block {blk} D[{i}][{j}]");
                }
            }
        }
    }
}

/// f64 16x16x4: A[i][k] in lane i + 16k (a VGPR pair), D[i][j] in pair i/4 of lane
/// j + 16*(i%4); neg:[1,0,1] negates A and C.
#[test]
fn f64_16x16x4_layout_and_neg() {
    for neg in [0u32, 5] {
        let mut r = Rng(17 + neg as u64);
        let mut w = wave();
        let a: Vec<Vec<i32>> = (0..16).map(|_| (0..4).map(|_| r.int(-20, 20)).collect()).collect();
        let b: Vec<Vec<i32>> = (0..4).map(|_| (0..16).map(|_| r.int(-20, 20)).collect()).collect();
        let c: Vec<Vec<i32>> = (0..16).map(|_| (0..16).map(|_| r.int(-99, 99)).collect()).collect();
        let pair = |v: f64| [v.to_bits() as u32, (v.to_bits() >> 32) as u32];
        for i in 0..16 {
            for k in 0..4 {
                w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 2 }, i + 16 * k, &pair(a[i][k] as f64)).unwrap();
                w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 2, dwords: 2 }, i + 16 * k, &pair(b[k][i] as f64)).unwrap();
            }
            for j in 0..16 {
                w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: (8 + 2 * (i / 4)) as u16, dwords: 2 }, j + 16 * (i % 4), &pair(c[i][j] as f64)).unwrap();
            }
        }
        let inst = mfma(Target::Gfx942, 0x6e, 8, 0, 2, 8, false, 0, 0, neg);
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for i in 0..16 {
            for j in 0..16 {
                let sa = if neg & 1 != 0 { -1 } else { 1 };
                let sc = if neg & 4 != 0 { -1 } else { 1 };
                let want = sc * c[i][j] + (0..4).map(|k| sa * a[i][k] * b[k][j]).sum::<i32>();
                let got = w.read_vreg(Reg { class: RegClass::Vgpr, index: (8 + 2 * (i / 4)) as u16, dwords: 2 }, j + 16 * (i % 4)).unwrap();
                assert_eq!(f64::from_bits(got), want as f64, "neg {neg} D[{i}][{j}]");
            }
        }
    }
}

/// 8-bit inputs, 16x16x32: A[i][k] in lane i + 16*(k/8), byte k%8 of the VGPR pair. i8 wraps in
/// i32; fp8 is FNUZ on gfx942 (0x40 = 1.0, bias 8) and OCP on gfx950 (0x38 = 1.0, bias 7).
#[test]
fn eight_bit_16x16x32() {
    // i8 with C = -7 (inline 199).
    let mut r = Rng(23);
    let mut w = wave();
    let a: Vec<Vec<i32>> = (0..16).map(|_| (0..32).map(|_| r.int(-128, 127)).collect()).collect();
    let b: Vec<Vec<i32>> = (0..32).map(|_| (0..16).map(|_| r.int(-128, 127)).collect()).collect();
    for i in 0..16 {
        for k in 0..32 {
            set_bits(&mut w, RegClass::Vgpr, 0, i + 16 * (k / 8), 8 * (k % 8) as u32, 8, a[i][k] as u8 as u64);
            set_bits(&mut w, RegClass::Vgpr, 2, i + 16 * (k / 8), 8 * (k % 8) as u32, 8, b[k][i] as u8 as u64);
        }
    }
    let w0 = 0xd380_0000 | 0x57 << 16 | 8;
    let bytes = word_bytes(w0, 256 | 258 << 9 | 199 << 18);
    let inst = decode(Target::Gfx942, &bytes, 0).unwrap();
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
    for i in 0..16 {
        for j in 0..16 {
            let want = -7 + (0..32).map(|k| a[i][k] * b[k][j]).sum::<i32>();
            assert_eq!(get(&w, RegClass::Vgpr, 8 + (i % 4) as u32, j + 16 * (i / 4)) as i32, want, "i8 D[{i}][{j}]");
        }
    }
    // fp8 x fp8: the byte that means 1.0 differs between the targets; A = 1.0 everywhere,
    // B = 2.0 (gfx942 0x48, gfx950 0x40) in column j < 8, else -0.5 (0xb0 / 0xb0 - 8).
    for (target, one, two, minus_half) in [(Target::Gfx942, 0x40u64, 0x48u64, 0xb8u64), (Target::Gfx950, 0x38, 0x40, 0xb0)] {
        let mut w = wave();
        for l in 0..64 {
            for k in 0..8 {
                set_bits(&mut w, RegClass::Vgpr, 0, l, 8 * k, 8, one);
                let j = l % 16;
                set_bits(&mut w, RegClass::Vgpr, 2, l, 8 * k, 8, if j < 8 { two } else { minus_half });
            }
        }
        let w0 = 0xd380_0000 | 0x73 << 16 | 8;
        let bytes = word_bytes(w0, 256 | 258 << 9 | 128 << 18);
        let inst = decode(target, &bytes, 0).unwrap();
        exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
        for i in 0..16 {
            for j in 0..16 {
                let want = if j < 8 { 64.0 } else { -16.0 };
                assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 8 + (i % 4) as u32, j + 16 * (i / 4))), want, "{target:?} fp8 D[{i}][{j}]");
            }
        }
    }
}

/// gfx950 16x16x128 f8f6f4 with fp4 A (cbsz:4, 4 VGPRs: nibble k%32 of lane i + 16*(k/32)) and
/// fp8 B (8 VGPRs, placed here as byte k%32 of lane j + 16*(k/32); the emulator reads 8-bit
/// values in 16-byte chunks per lane group, see scaled_fp8_times_fp4_by_blocks, which this B,
/// constant over k of one parity, does not see).
#[test]
fn f8f6f4_fp4_times_fp8() {
    let mut r = Rng(31);
    let mut w = wave();
    // fp4 E2M1 codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6; the sign in bit 3.
    const FP4: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let a: Vec<Vec<u32>> = (0..16).map(|_| (0..128).map(|_| r.int(0, 15) as u32).collect()).collect();
    for i in 0..16 {
        for k in 0..128 {
            set_bits(&mut w, RegClass::Vgpr, 0, i + 16 * (k / 32), 4 * (k % 32) as u32, 4, a[i][k] as u64);
            // B = 1.0 (OCP E4M3 0x38) for even k, -2.0 (0xc0) for odd k.
            set_bits(&mut w, RegClass::Vgpr, 8, i + 16 * (k / 32), 8 * (k % 32) as u32, 8, if k % 2 == 0 { 0x38 } else { 0xc0 });
        }
    }
    let inst = mfma(Target::Gfx950, 0x2d, 16, 0, 8, 16, false, 4, 0, 0);
    assert_eq!(inst.text(), "v_mfma_f32_16x16x128_f8f6f4 v[16:19], v[0:3], v[8:15], v[16:19] cbsz:4");
    for l in 0..64 {
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 16, dwords: 4 }, l, &[0; 4]).unwrap();
    }
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
    let val = |c: u32| if c & 8 != 0 { -FP4[(c & 7) as usize] } else { FP4[c as usize] };
    for i in 0..16 {
        let want: f32 = (0..128).map(|k| val(a[i][k]) * if k % 2 == 0 { 1.0 } else { -2.0 }).sum();
        for j in 0..16 {
            assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 16 + (i % 4) as u32, j + 16 * (i / 4))), want, "D[{i}][{j}]");
        }
    }
}

/// gfx950 v_mfma_scale_f32_32x32x64_f8f6f4 with fp8 (E4M3) A and fp4 B and E8M0 scales, as
/// Triton's gfx950 dot_scaled kernels pin it: the two lane halves hold 16-byte chunks of k in
/// turn (8-bit A: k = 32 (e / 16) + 16 h + e % 16 at byte e of lane i + 32 h; 4-bit B: one run,
/// k = 32 h + e at nibble e of lane j + 32 h); row i's scale for k-block b is byte op_sel of the
/// scale VGPR in lane i + 32 b (here op_sel [1,1]: byte 1).
#[test]
fn scaled_fp8_times_fp4_by_blocks() {
    let mut r = Rng(77);
    let mut w = wave();
    const FP4: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    // E4M3 codes of small exact values: 0, 1, 2, 3, -1, 0.5.
    const FP8: [(u32, f32); 6] = [(0x00, 0.0), (0x38, 1.0), (0x40, 2.0), (0x44, 3.0), (0xb8, -1.0), (0x30, 0.5)];
    let a: Vec<Vec<usize>> = (0..32).map(|_| (0..64).map(|_| r.int(0, 5) as usize).collect()).collect();
    let b: Vec<Vec<u32>> = (0..64).map(|_| (0..32).map(|_| r.int(0, 15) as u32).collect()).collect();
    let sa: Vec<[u32; 2]> = (0..32).map(|_| [r.int(124, 130) as u32, r.int(124, 130) as u32]).collect();
    let sb: Vec<[u32; 2]> = (0..32).map(|_| [r.int(124, 130) as u32, r.int(124, 130) as u32]).collect();
    for i in 0..32 {
        for k in 0..64 {
            let (h, e) = ((k / 16) % 2, 16 * (k / 32) + k % 16);
            set_bits(&mut w, RegClass::Vgpr, 32, i + 32 * h, 8 * e as u32, 8, FP8[a[i][k]].0 as u64);
            set_bits(&mut w, RegClass::Vgpr, 48, i + 32 * (k / 32), 4 * (k % 32) as u32, 4, b[k][i] as u64);
        }
        for blk in 0..2 {
            // Byte 1 holds the scale; bytes 0, 2, 3 hold others that must not be used.
            let word = |s: u32| 0x7f00_0081 | s << 8;
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 60, dwords: 1 }, i + 32 * blk, &[word(sa[i][blk])]).unwrap();
            w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 61, dwords: 1 }, i + 32 * blk, &[word(sb[i][blk])]).unwrap();
        }
    }
    for l in 0..64 {
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 16 }, l, &[0; 16]).unwrap();
    }
    // v_mfma_ld_scale_b32 v60, v61 op_sel:[1,1] + v_mfma_f32_32x32x64_f8f6f4 (abid 1, blgp 4).
    let words = [0xd3ac_1800u32, (256 + 60) | (256 + 61) << 9, 0xd3ae_0800, (256 + 32) | (256 + 48) << 9 | 256 << 18 | 4 << 29, 0];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(Target::Gfx950, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inst.text(), "v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[32:39], v[48:51], v[0:15], v60, v61 op_sel:[1,1,0] op_sel_hi:[0,0,0] blgp:4");
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
    let fp4 = |c: u32| if c & 8 != 0 { -FP4[(c & 7) as usize] } else { FP4[c as usize] } as f64;
    for i in 0..32 {
        for j in 0..32 {
            let want: f64 = (0..64)
                .map(|k| FP8[a[i][k]].1 as f64 * fp4(b[k][j]) * 2f64.powi(sa[i][k / 32] as i32 - 127 + sb[j][k / 32] as i32 - 127))
                .sum();
            let got = f32::from_bits(get(&w, RegClass::Vgpr, (4 * (i / 8) + i % 4) as u32, j + 32 * ((i / 4) % 2)));
            assert_eq!(got as f64, want, "D[{i}][{j}]");
        }
    }
}

/// The documented precision: the sum is kept in f64 and rounded once. 2^24 + 1 + 1 in f32
/// steps would lose both ones; one rounding of the exact 2^24 + 2 keeps them.
#[test]
fn one_rounding_at_the_end() {
    let mut w = wave();
    // 16x16x4 f32: A[i][k] in lane i + 16k, B[k][j] in lane j + 16k. Row 0: A = (1, 1, 0, 0),
    // B column 0 = (1, 1, 0, 0); C[0][0] = 2^24.
    for l in 0..64 {
        let (row, k) = (l % 16, l / 16);
        let one = if row == 0 && k < 2 { 1.0f32 } else { 0.0 };
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 1 }, l, &[one.to_bits()]).unwrap();
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 1, dwords: 1 }, l, &[one.to_bits()]).unwrap();
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 4, dwords: 4 }, l, &[0; 4]).unwrap();
    }
    w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 4, dwords: 1 }, 0, &[16_777_216f32.to_bits()]).unwrap();
    let inst = mfma(Target::Gfx942, 0x45, 4, 0, 1, 4, false, 0, 0, 0);
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
    assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 4, 0)), 16_777_218.0);
}

/// What is not modelled is refused, not guessed.
#[test]
fn refusals() {
    let mut w = wave();
    // Partial EXEC.
    w.exec = 1;
    let inst = mfma(Target::Gfx942, 0x4d, 8, 0, 2, 8, false, 0, 0, 0);
    assert!(exec_mfma(&mut w, &inst, inst.mai().unwrap()).is_err());
    w.exec = u64::MAX;
    // blgp on a shape without B patterns.
    let inst = mfma(Target::Gfx942, 0x4d, 8, 0, 2, 8, false, 0, 0, 1);
    assert!(exec_mfma(&mut w, &inst, inst.mai().unwrap()).is_err(), "{}", inst.text());
    // xf32 operands that fit xf32's 10 mantissa bits run (as f32); one with lower bits set is
    // refused (the hardware's reduction of them is not documented).
    let inst = mfma(Target::Gfx942, 0x3e, 8, 0, 2, 8, false, 0, 0, 0);
    w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 1 }, 3, &[1.5f32.to_bits()]).unwrap();
    assert!(exec_mfma(&mut w, &inst, inst.mai().unwrap()).is_ok(), "{}", inst.text());
    w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 0, dwords: 1 }, 3, &[(1.0f32 + f32::EPSILON).to_bits()]).unwrap();
    assert!(exec_mfma(&mut w, &inst, inst.mai().unwrap()).is_err(), "{}", inst.text());
    // A scaled 16x16x128 runs (corpus/triton dot_scaled_*_n16 pin its layout against numpy);
    // with fp6 A (cbsz 2) it is refused (no compiled kernel pins 6-bit values' k order).
    let words = [0xd3ac_0000u32, (256 + 60) | (256 + 61) << 9, 0xd3ad_0810, 256 | (256 + 8) << 9 | (256 + 16) << 18, 0];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(Target::Gfx950, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    assert!(inst.text().starts_with("v_mfma_scale_f32_16x16x128_f8f6f4"), "{}", inst.text());
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let bytes: Vec<u8> = [words[0], words[1], words[2] | 2 << 8, words[3], words[4]].iter().flat_map(|w| w.to_le_bytes()).collect();
    let inst = decode(Target::Gfx950, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    assert!(inst.text().contains("cbsz:2"), "{}", inst.text());
    let e = exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap_err().to_string();
    assert!(e.contains("6-bit"), "{e}");
}

/// gfx942 v_smfmac_f32_16x16x32_f16 (4:2 sparse A): stored value s (0..15) of row i in lane
/// i + 16*(s/4), half s%4 of its 2 VGPRs; the index VGPR of that lane holds, in set abid (8 bits
/// at 8*abid), 4 bits [idx1, idx0] per pair of stored values; B[k][j] in lane j + 16*(k/8),
/// half k%8 of 4 VGPRs; D (the accumulator) as the dense 16x16 layout.
#[test]
fn smfmac_16x16x32_f16_sparse_a() {
    let mut r = Rng(41);
    let mut w = wave();
    let abid = 2u32;
    // Dense A with two non-zeros in each group of four, as (positions, values) per group.
    let mut dense = vec![vec![0i32; 32]; 16];
    for i in 0..16 {
        for g in 0..8 {
            let p0 = r.int(0, 2) as usize;
            let p1 = r.int(p0 as i32 + 1, 3) as usize;
            let (v0, v1) = (r.int(-4, 4), r.int(-4, 4));
            dense[i][4 * g + p0] = v0;
            dense[i][4 * g + p1] = v1;
            for (k, (p, v)) in [(p0, v0), (p1, v1)].into_iter().enumerate() {
                let st = 2 * g + k;
                set_bits(&mut w, RegClass::Vgpr, 0, i + 16 * (st / 4), 16 * (st % 4) as u32, 16, f16_bits(v as f32) as u64);
                set_bits(&mut w, RegClass::Vgpr, 20, i + 16 * (st / 4), 8 * abid + 4 * ((st % 4) / 2) as u32 + 2 * k as u32, 2, p as u64);
            }
        }
    }
    // Garbage in the other index sets.
    for l in 0..64 {
        for other in [0u32, 1, 3] {
            set_bits(&mut w, RegClass::Vgpr, 20, l, 8 * other, 8, 0xa5);
        }
    }
    let b: Vec<Vec<i32>> = (0..32).map(|_| (0..16).map(|_| r.int(-4, 4)).collect()).collect();
    for k in 0..32 {
        for j in 0..16 {
            set_bits(&mut w, RegClass::Vgpr, 4, j + 16 * (k / 8), 16 * (k % 8) as u32, 16, f16_bits(b[k][j] as f32) as u64);
        }
    }
    for l in 0..64 {
        w.write_vreg_dwords(Reg { class: RegClass::Vgpr, index: 8, dwords: 4 }, l, &[2f32.to_bits(); 4]).unwrap();
    }
    // v_smfmac_f32_16x16x32_f16 v[8:11], v[0:1], v[4:7], v20 abid:2
    let inst = mfma(Target::Gfx942, 0x62, 8, 0, 4, 20, false, 0, abid, 0);
    assert_eq!(inst.text(), "v_smfmac_f32_16x16x32_f16 v[8:11], v[0:1], v[4:7], v20 abid:2");
    exec_mfma(&mut w, &inst, inst.mai().unwrap()).unwrap();
    for i in 0..16 {
        for j in 0..16 {
            let want = 2 + (0..32).map(|k| dense[i][k] * b[k][j]).sum::<i32>();
            assert_eq!(f32::from_bits(get(&w, RegClass::Vgpr, 8 + (i % 4) as u32, j + 16 * (i / 4))), want as f32, "D[{i}][{j}]");
        }
    }
}
