//! References of the kernels written for GFX12.5 features (WMMA tiles, fp8/bf8 conversions,
//! asynchronous LDS loads, split barriers, row_xmask DPP, packed fp32, 64-bit literals, VGPRs above
//! 255, prefetches and cache-policy bits). Those that use gfx1250-only intrinsics list
//! `targets = ["gfx1250"]`: no native gfx942/gfx950 build exists, so this reference and the gfx1250
//! emulation are the oracles for the translations. pk_f32 and vgpr_high are plain IR and are built
//! for all three targets.
//!
//! # WMMA results
//! A WMMA computes D = A*B + C with the products summed in an order the ISA does not define (nor
//! whether partial sums are rounded). Every WMMA launch therefore draws its inputs so that every
//! product and every partial sum is exactly representable in f32 (ranges in the launch
//! descriptions, checked here): the exact sum is then the only possible result, whatever the
//! accumulation order or internal precision, and the outputs are compared bit for bit. The
//! reference sums exactly in f64 and fails if the exact result does not fit f32, rather than guess.
//!
//! The kernels load A and B with the same k order (see the .ll files), so the sum does not depend
//! on which register element holds which k either. What the result does depend on is the C/D
//! layout, which the references assume as documented for gfx11/gfx12 WMMA and kept by gfx1250:
//! lane l holds column n = l & 15, element i of its accumulator row m = 8*(l >> 4) + i. The kernels
//! store it column-major: D[m][n] at n*16 + m.

use super::Ctx;
use crate::{f16, CorpusError};

type R = Result<(), CorpusError>;

// ---------------------------------------------------------------- fp8 / bf8 (OCP formats)

/// An 8-bit float format of the OCP FP8 specification as gfx12/gfx1250 implement it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fp8 {
    /// "fp8": E4M3, bias 7, no infinities, S.1111.111 is NaN, largest finite 448 (0x7e).
    E4M3,
    /// "bf8": E5M2, bias 15, S.11111.00 infinity, S.11111.xx (xx != 0) NaN, largest finite 57344 (0x7b).
    E5M2,
}

impl Fp8 {
    fn mbits(self) -> i32 {
        match self {
            Fp8::E4M3 => 3,
            Fp8::E5M2 => 2,
        }
    }
    fn bias(self) -> i32 {
        match self {
            Fp8::E4M3 => 7,
            Fp8::E5M2 => 15,
        }
    }
    /// The largest finite magnitude's code.
    fn max_code(self) -> u8 {
        match self {
            Fp8::E4M3 => 0x7e,
            Fp8::E5M2 => 0x7b,
        }
    }

    /// The value of code `b` (exact in f64; NaN and infinities as such).
    pub(crate) fn decode(self, b: u8) -> f64 {
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let mag = b & 0x7f;
        let (m, e) = (self.mbits(), self.bias());
        let exp = (mag >> m) as i32;
        let man = (mag & ((1 << m) - 1)) as f64;
        match self {
            Fp8::E4M3 if mag == 0x7f => return f64::NAN,
            Fp8::E5M2 if exp == 31 => return if man == 0.0 { sign * f64::INFINITY } else { f64::NAN },
            _ => {}
        }
        let v = if exp == 0 { man * 2f64.powi(1 - e - m) } else { (man + (1 << m) as f64) * 2f64.powi(exp - e - m) };
        sign * v
    }

    /// `x` rounded to nearest even into this format, subnormals kept, the sign of zero kept. `x` must
    /// be finite and no larger in magnitude than the largest finite value (the kernels clamp first),
    /// and have at most 53 significant bits (any f32 or f16 value).
    pub(crate) fn encode(self, x: f64) -> Result<u8, String> {
        if !x.is_finite() {
            return Err(format!("{x} is not finite"));
        }
        let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
        let a = x.abs();
        if a == 0.0 {
            return Ok(sign);
        }
        // The nearest of the format's magnitudes, ties to the even code (the even significand),
        // found by search over the codes' values (the emulator computes it arithmetically: this
        // oracle does not share its method). One step past the largest code stands for overflow.
        let top = self.max_code();
        let value = |c: u8| if c > top { 2.0 * self.decode(top) - self.decode(top - 1) } else { self.decode(c) };
        let mut best = 0u8;
        for c in 1..=top + 1 {
            let (d, db) = ((value(c) - a).abs(), (value(best) - a).abs());
            if d < db || (d == db && c & 1 == 0) {
                best = c;
            }
        }
        if best > top {
            return Err(format!("{x} overflows the format (the kernels saturate before converting)"));
        }
        let code = best;
        Ok(sign | code as u8)
    }
}

// ---------------------------------------------------------------- WMMA tiles

/// D = A*B + C for a 16x16 tile with `k` terms, summed exactly; D column-major (n*16 + m). Fails if a
/// result is not exactly an f32 (the launch's inputs are then too wide for an exact reference).
fn gemm_exact(
    c: &Ctx,
    k: usize,
    a: impl Fn(usize, usize) -> f64,
    b: impl Fn(usize, usize) -> f64,
    acc: impl Fn(usize, usize) -> f64,
) -> Result<Vec<f32>, CorpusError> {
    let mut d = vec![0f32; 256];
    for n in 0..16 {
        for m in 0..16 {
            // Each product and partial sum of the inputs the launches allow is exact in f64 too.
            let s = (0..k).fold(acc(m, n), |s, kk| s + a(m, kk) * b(kk, n));
            let f = s as f32;
            if f as f64 != s {
                return Err(c.err(format!(
                    "D[{m}][{n}] = {s:e} is not exactly an f32: the inputs are too wide for an \
                     order-independent (exact) WMMA result"
                )));
            }
            d[n * 16 + m] = f;
        }
    }
    Ok(d)
}

fn one_wave(c: &Ctx) -> R {
    c.expect_block([32, 1, 1])?;
    if c.launch.grid != [32, 1, 1] {
        return Err(c.err("the WMMA kernels run as one work-group of 32"));
    }
    Ok(())
}

/// wmma_f16.ll.
pub fn wmma_f16(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 512), ("bt", 512), ("c", 256), ("d", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt, acc) = (c.buf::<f16>("a")?, c.buf::<f16>("bt")?, c.buf::<f32>("c")?);
    let d = gemm_exact(
        c,
        32,
        |m, k| a[m * 32 + k].to_f64(),
        |k, n| bt[n * 32 + k].to_f64(),
        |m, n| acc[n * 16 + m] as f64,
    )?;
    c.set("d", &d)
}

/// wmma_f16_acc.ll: 16-bit accumulators and results. The exact sum must be exactly an f16 (bf16):
/// then rounding it once, or rounding every partial sum, gives the same bits.
pub fn wmma_f16_acc(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 512), ("bt", 512), ("c", 256), ("d", 256), ("ab", 512), ("bbt", 512), ("cb", 256), ("db", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt, acc) = (c.buf::<f16>("a")?, c.buf::<f16>("bt")?, c.buf::<f16>("c")?);
    let d = gemm_exact(c, 32, |m, k| a[m * 32 + k].to_f64(), |k, n| bt[n * 32 + k].to_f64(), |m, n| acc[n * 16 + m].to_f64())?;
    let dh: Vec<f16> = d.iter().map(|&v| f16::from_f32(v)).collect();
    if let Some(i) = (0..256).find(|&i| dh[i].to_f32() != d[i]) {
        return Err(c.err(format!("d[{i}] = {} is not exactly an f16", d[i])));
    }
    let (ab, bbt, cb) = (c.buf::<crate::bf16>("ab")?, c.buf::<crate::bf16>("bbt")?, c.buf::<crate::bf16>("cb")?);
    let e = gemm_exact(c, 32, |m, k| ab[m * 32 + k].to_f64(), |k, n| bbt[n * 32 + k].to_f64(), |m, n| cb[n * 16 + m].to_f64())?;
    let eb: Vec<crate::bf16> = e.iter().map(|&v| crate::bf16::from_f32(v)).collect();
    if let Some(i) = (0..256).find(|&i| eb[i].to_f32() != e[i]) {
        return Err(c.err(format!("db[{i}] = {} is not exactly a bf16", e[i])));
    }
    c.set("d", &dh)?;
    c.set("db", &eb)
}

/// wmma_bf16.ll: K = 64 in two chained WMMAs from a zero accumulator.
pub fn wmma_bf16(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 1024), ("bt", 1024), ("d", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt) = (c.buf::<crate::bf16>("a")?, c.buf::<crate::bf16>("bt")?);
    let d = gemm_exact(c, 64, |m, k| a[m * 64 + k].to_f64(), |k, n| bt[n * 64 + k].to_f64(), |_, _| 0.0)?;
    c.set("d", &d)
}

/// wmma_f32.ll: K = 16 in four chained 16x16x4 WMMAs.
pub fn wmma_f32(c: &mut Ctx) -> R {
    one_wave(c)?;
    for name in ["a", "bt", "c", "d"] {
        c.expect_len(name, 256)?;
    }
    let (a, bt, acc) = (c.buf::<f32>("a")?, c.buf::<f32>("bt")?, c.buf::<f32>("c")?);
    let d = gemm_exact(
        c,
        16,
        |m, k| a[m * 16 + k] as f64,
        |k, n| bt[n * 16 + k] as f64,
        |m, n| acc[n * 16 + m] as f64,
    )?;
    c.set("d", &d)
}

/// wmma_fp8.ll: three 16x16x64 tiles of the same bytes read as fp8/fp8, bf8/bf8 and fp8/bf8.
pub fn wmma_fp8(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 1024), ("bt", 1024), ("dff", 256), ("dbb", 256), ("dfb", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt) = (c.buf::<u8>("a")?, c.buf::<u8>("bt")?);
    for (name, fa, fb) in [("dff", Fp8::E4M3, Fp8::E4M3), ("dbb", Fp8::E5M2, Fp8::E5M2), ("dfb", Fp8::E4M3, Fp8::E5M2)] {
        if let Some(x) = a.iter().chain(&bt).find(|&&x| !fa.decode(x).is_finite() || !fb.decode(x).is_finite()) {
            return Err(c.err(format!("input byte {x:#04x} is not a finite fp8/bf8 value")));
        }
        let d = gemm_exact(c, 64, |m, k| fa.decode(a[m * 64 + k]), |k, n| fb.decode(bt[n * 64 + k]), |_, _| 0.0)?;
        c.set(name, &d)?;
    }
    Ok(())
}

/// The value of an OCP MX fp4 (E2M1: bias 1, no infinities or NaNs) nibble.
fn fp4(x: u8) -> f64 {
    let (e, m) = ((x >> 1) & 3, x & 1);
    let mag = if e == 0 { m as f64 * 0.5 } else { (1.0 + m as f64 * 0.5) * 2f64.powi(e as i32 - 1) };
    if x & 8 != 0 {
        -mag
    } else {
        mag
    }
}

/// wmma_fp4.ll: a 16x16x128 tile of fp4 values, two to a byte (low nibble first).
pub fn wmma_fp4(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 1024), ("bt", 1024), ("d", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt) = (c.buf::<u8>("a")?, c.buf::<u8>("bt")?);
    let nib = |v: &[u8], row: usize, k: usize| fp4(v[row * 64 + k / 2] >> (4 * (k % 2)) & 15);
    let d = gemm_exact(c, 128, |m, k| nib(&a, m, k), |k, n| nib(&bt, n, k), |_, _| 0.0)?;
    c.set("d", &d)
}

/// wmma_iu8.ll: signed A times unsigned B plus C, exact in i32 (fails if a result would wrap, which
/// the launch's ranges rule out: the ISA's behaviour on i32 overflow is not what this kernel tests).
pub fn wmma_iu8(c: &mut Ctx) -> R {
    one_wave(c)?;
    for (name, n) in [("a", 1024), ("bt", 1024), ("c", 256), ("d", 256)] {
        c.expect_len(name, n)?;
    }
    let (a, bt, acc) = (c.buf::<i8>("a")?, c.buf::<u8>("bt")?, c.buf::<i32>("c")?);
    let mut d = vec![0i32; 256];
    for n in 0..16 {
        for m in 0..16 {
            let s = (0..64).fold(acc[n * 16 + m] as i64, |s, k| s + a[m * 64 + k] as i64 * bt[n * 64 + k] as i64);
            d[n * 16 + m] = i32::try_from(s).map_err(|_| c.err(format!("D[{m}][{n}] = {s} overflows i32")))?;
        }
    }
    c.set("d", &d)
}

// ---------------------------------------------------------------- softmax

const LANES: usize = 32;

/// The butterfly sum of softmax_wave.ll: five steps s[l] = s[l] + s[l ^ step], step 1, 2, 4, 8, 16.
/// Every lane ends with the same value (f32 addition is commutative); lane 0's is returned.
pub(crate) fn butterfly_sum(v: &[f32; LANES]) -> f32 {
    let mut s = *v;
    for step in [1, 2, 4, 8, 16] {
        let prev = s;
        for l in 0..LANES {
            s[l] = prev[l] + prev[l ^ step];
        }
    }
    s[0]
}

/// softmax_wave.ll. exp2 is computed in f64 and rounded to f32 (the ideal v_exp_f32 result; the
/// hardware is within 1 ulp of it, which the launch's tolerances cover).
pub fn softmax_wave(c: &mut Ctx) -> R {
    c.expect_block([32, 1, 1])?;
    let n = c.items_1d()?;
    let rows = n / LANES;
    c.expect_len("in", n)?;
    c.expect_len("p", n)?;
    c.expect_len("mx", rows)?;
    c.expect_len("sm", rows)?;
    let x = c.buf::<f32>("in")?;
    let (mut p, mut mx, mut sm) = (c.buf::<f32>("p")?, c.buf::<f32>("mx")?, c.buf::<f32>("sm")?);
    for w in 0..rows {
        let row = &x[w * LANES..(w + 1) * LANES];
        if row.iter().any(|v| v.is_nan()) {
            return Err(c.err("NaN score"));
        }
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: [f32; LANES] = std::array::from_fn(|l| ((row[l] - m) as f64).exp2() as f32);
        let s = butterfly_sum(&e);
        for l in 0..LANES {
            p[w * LANES + l] = e[l] / s;
        }
        mx[w] = m;
        sm[w] = s;
    }
    c.set("p", &p)?;
    c.set("mx", &mx)?;
    c.set("sm", &sm)
}

// ---------------------------------------------------------------- fp8 quantise / dequantise

/// fp8_quant.ll.
pub fn fp8_quant(c: &mut Ctx) -> R {
    let n = c.items_1d()?;
    for (name, len) in [("big", n), ("small", n), ("qf8", n), ("qbf8", n), ("qh8", n), ("qhb8", n)] {
        c.expect_len(name, len)?;
    }
    for name in ["deqf8", "deqbf8", "deqh8", "deqhb8"] {
        c.expect_len(name, 2 * n)?;
    }
    let (big, small) = (c.buf::<f32>("big")?, c.buf::<f32>("small")?);
    let mut qf8 = c.buf::<u16>("qf8")?;
    let mut qbf8 = c.buf::<u16>("qbf8")?;
    let mut qh8 = c.buf::<u16>("qh8")?;
    let mut qhb8 = c.buf::<u16>("qhb8")?;
    let mut deqf8 = c.buf::<f32>("deqf8")?;
    let mut deqbf8 = c.buf::<f32>("deqbf8")?;
    let mut deqh8 = c.buf::<f16>("deqh8")?;
    let mut deqhb8 = c.buf::<f16>("deqhb8")?;
    let enc = |f: Fp8, v: f64| f.encode(v).map_err(|m| c.err(m));
    for g in 0..n {
        let (x, y) = (big[g], small[g]);
        if x.is_nan() || y.is_nan() {
            return Err(c.err("NaN input"));
        }
        let x8 = x.clamp(-448.0, 448.0);
        let x5 = x.clamp(-57344.0, 57344.0);
        let pair = |f: Fp8, a: f64, b: f64| -> Result<[u8; 2], CorpusError> { Ok([enc(f, a)?, enc(f, b)?]) };
        let qf = pair(Fp8::E4M3, x8 as f64, y as f64)?;
        let qb = pair(Fp8::E5M2, x5 as f64, y as f64)?;
        let (hx, hy) = (f16::from_f32(x8), f16::from_f32(y));
        let qh = pair(Fp8::E4M3, hx.to_f64(), hy.to_f64())?;
        let qhb = pair(Fp8::E5M2, hx.to_f64(), hy.to_f64())?;
        qf8[g] = u16::from_le_bytes(qf);
        qbf8[g] = u16::from_le_bytes(qb);
        qh8[g] = u16::from_le_bytes(qh);
        qhb8[g] = u16::from_le_bytes(qhb);
        for i in 0..2 {
            // Every fp8/bf8 value is exact in f32 and in f16.
            deqf8[2 * g + i] = Fp8::E4M3.decode(qf[i]) as f32;
            deqbf8[2 * g + i] = Fp8::E5M2.decode(qb[i]) as f32;
            deqh8[2 * g + i] = f16::from_f64(Fp8::E4M3.decode(qh[i]));
            deqhb8[2 * g + i] = f16::from_f64(Fp8::E5M2.decode(qhb[i]));
        }
    }
    c.set("qf8", &qf8)?;
    c.set("qbf8", &qbf8)?;
    c.set("qh8", &qh8)?;
    c.set("qhb8", &qhb8)?;
    c.set("deqf8", &deqf8)?;
    c.set("deqbf8", &deqbf8)?;
    c.set("deqh8", &deqh8)?;
    c.set("deqhb8", &deqhb8)
}

// ---------------------------------------------------------------- LDS pipeline, barriers

/// async_pipeline.ll: 4 tiles of 64 per work-group of 64.
pub fn async_pipeline(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    let len = n * 4;
    c.expect_len("in", len)?;
    c.expect_len("out", len)?;
    let x = c.buf::<f32>("in")?;
    let mut out = c.buf::<f32>("out")?;
    for tile in 0..len / 64 {
        let t = &x[tile * 64..tile * 64 + 64];
        for l in 0..64 {
            out[tile * 64 + l] = t[l] * 2.0 + t[(l + 32) & 63];
        }
    }
    c.set("out", &out)
}

/// split_barrier.ll: work-groups of 128.
pub fn split_barrier(c: &mut Ctx) -> R {
    c.expect_block([128, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["in", "sq", "nb"] {
        c.expect_len(name, n)?;
    }
    let x = c.buf::<i32>("in")?;
    let (mut sq, mut nb) = (c.buf::<i32>("sq")?, c.buf::<i32>("nb")?);
    for w in 0..n / 128 {
        let v = &x[w * 128..w * 128 + 128];
        let lds: Vec<i32> = v.iter().map(|&v| v.wrapping_mul(3).wrapping_add(1)).collect();
        for l in 0..128 {
            sq[w * 128 + l] = v[l].wrapping_mul(v[l]) ^ l as i32;
            nb[w * 128 + l] = lds[(l + 37) & 127].wrapping_add(lds[127 - l]);
        }
    }
    c.set("sq", &sq)?;
    c.set("nb", &nb)
}

// ---------------------------------------------------------------- prefetch, cache policy

/// cache_policy.ll: the hints change no result.
pub fn cache_policy(c: &mut Ctx) -> R {
    let n = c.items_1d()?;
    c.expect_len("in", n + 64)?;
    c.expect_len("out", n)?;
    c.expect_len("flag", n)?;
    let x = c.buf::<i32>("in")?;
    let out: Vec<i32> = (0..n).map(|g| x[g].wrapping_add(x[g + 64])).collect();
    let mut flag = c.buf::<i32>("flag")?;
    flag.copy_from_slice(&x[..n]);
    c.set("out", &out)?;
    c.set("flag", &flag)
}

// ---------------------------------------------------------------- VGPRs above 255

/// The number of values vgpr_high.ll keeps live.
pub(crate) const VGPR_HIGH_VALUES: usize = 300;

/// vgpr_high.ll: out[g] = Horner over v_i = in[32i + g], i from the last down to 0, base 31.
pub fn vgpr_high(c: &mut Ctx) -> R {
    c.expect_block([32, 1, 1])?;
    if c.items_1d()? != 32 {
        return Err(c.err("the kernel runs as one work-group of 32"));
    }
    c.expect_len("in", 32 * VGPR_HIGH_VALUES)?;
    c.expect_len("out", 32)?;
    let x = c.buf::<i32>("in")?;
    let out: Vec<i32> =
        (0..32).map(|g| (0..VGPR_HIGH_VALUES).rev().fold(0i32, |s, i| s.wrapping_mul(31).wrapping_add(x[32 * i + g]))).collect();
    c.set("out", &out)
}

// ---------------------------------------------------------------- packed fp32, 64-bit literals

/// The constants of pk_f32.ll.
pub(crate) const PK_ADD: u64 = 0x1234_5678_9abc_def1;
pub(crate) const PK_XOR: u64 = 0x0f1f_2f3f_4f5f_7178;

/// pk_f32.ll.
pub fn pk_f32(c: &mut Ctx) -> R {
    let n = c.items_1d()?;
    for name in ["a", "b", "c", "add", "mul", "fma"] {
        c.expect_len(name, 2 * n)?;
    }
    for name in ["x", "dd", "u", "ii"] {
        c.expect_len(name, n)?;
    }
    let (a, b, cc) = (c.buf::<f32>("a")?, c.buf::<f32>("b")?, c.buf::<f32>("c")?);
    let (mut add, mut mul, mut fma) = (c.buf::<f32>("add")?, c.buf::<f32>("mul")?, c.buf::<f32>("fma")?);
    for i in 0..2 * n {
        add[i] = a[i] + b[i];
        mul[i] = a[i] * b[i];
        fma[i] = a[i].mul_add(b[i], cc[i]);
    }
    let (x, u) = (c.buf::<f64>("x")?, c.buf::<u64>("u")?);
    let (mut dd, mut ii) = (c.buf::<f64>("dd")?, c.buf::<u64>("ii")?);
    for g in 0..n {
        dd[g] = x[g].mul_add(1.0000001, 3.3);
        ii[g] = u[g].wrapping_add(PK_ADD) ^ PK_XOR;
    }
    c.set("add", &add)?;
    c.set("mul", &mul)?;
    c.set("fma", &fma)?;
    c.set("dd", &dd)?;
    c.set("ii", &ii)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_e4m3_by_hand() {
        let f = Fp8::E4M3;
        for (x, code) in [
            (1.0, 0x38),
            (-2.0, 0xc0),
            (448.0, 0x7e),
            (-448.0, 0xfe),
            (0.5, 0x30),
            (3.75, 0x47),
            (2f64.powi(-6), 0x08), // smallest normal
            (2f64.powi(-9), 0x01), // smallest subnormal
            (7.0 * 2f64.powi(-9), 0x07),
            (2f64.powi(-10), 0x00),       // half the smallest subnormal: tie to even (0)
            (3.0 * 2f64.powi(-10), 0x02), // 1.5 subnormal steps: tie to even (2)
            (7.5 * 2f64.powi(-9), 0x08),  // tie between the largest subnormal and the smallest normal
            (1.0625, 0x38),               // 1 + 1/16: tie, mantissa 0 is even
            (1.1875, 0x3a),               // 1 + 3/16: tie between 1.125 and 1.25, 1.25 is even
            (1.1, 0x39),
            (440.0, 0x7e), // 13.75 steps of 32: rounds up to 448
            (464.0, 0x7e), // halfway between 448 and 480 (NaN's code): 448 has the even mantissa
            (-0.0, 0x80),
            (-2f64.powi(-11), 0x80), // underflow keeps the sign
        ] {
            assert_eq!(f.encode(x).unwrap(), code, "{x}");
        }
        assert!(f.encode(470.0).is_err(), "rounds past 448: the kernels saturate first");
        for b in 0..=255u8 {
            let v = f.decode(b);
            if b & 0x7f == 0x7f {
                assert!(v.is_nan());
            } else {
                assert_eq!(f.encode(v).unwrap(), b, "{b:#x} round trip");
            }
        }
        assert_eq!(f.decode(0x7e), 448.0);
        assert_eq!(f.decode(0x01), 2f64.powi(-9));
    }

    #[test]
    fn fp8_e5m2_by_hand() {
        let f = Fp8::E5M2;
        for (x, code) in [
            (1.0, 0x3c),
            (57344.0, 0x7b),
            (2f64.powi(-16), 0x01),
            (2f64.powi(-14), 0x04),
            (1.125, 0x3c), // tie between 1.0 and 1.25: 1.0 is even
            (1.375, 0x3e), // tie between 1.25 and 1.5: 1.5 is even
            (-3.0, 0xc2),
            (0.125, 0x30),
            (7.0, 0x47),
        ] {
            assert_eq!(f.encode(x).unwrap(), code, "{x}");
        }
        assert!(f.decode(0x7c).is_infinite() && f.decode(0xfc) < 0.0);
        assert!(f.decode(0x7d).is_nan());
        for b in (0..=255u8).filter(|b| b & 0x7c != 0x7c) {
            assert_eq!(f.encode(f.decode(b)).unwrap(), b, "{b:#x} round trip");
        }
    }

    #[test]
    fn butterfly_sum_pairs_neighbours_first() {
        let v: [f32; LANES] = std::array::from_fn(|l| l as f32);
        assert_eq!(butterfly_sum(&v), 496.0);
        // Left to right, ((1e8 + 1) - 1e8) + 1 = 1; the butterfly adds (1e8 + 1) + (-1e8 + 1), and
        // both ones are lost: the order is the kernel's, not a sequential one.
        let mut w = [0f32; LANES];
        w[0] = 1e8;
        w[1] = 1.0;
        w[2] = -1e8;
        w[3] = 1.0;
        assert_eq!(butterfly_sum(&w), 0.0);
    }
}

// ---------------------------------------------------------------- clusters

/// cluster_barrier.ll, launched without clusters: each work-group is a cluster of one (cluster
/// ID = work-group ID, its ID in the cluster, the largest such ID and the flat ID all 0).
pub fn cluster_barrier(c: &mut Ctx) -> R {
    c.expect_block([128, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("in", n)?;
    c.expect_len("out", n)?;
    let x = c.buf::<u32>("in")?;
    let out: Vec<u32> = (0..n)
        .map(|g| {
            let (wg, t) = (g / 128, g % 128);
            x[wg * 128 + ((t + 37) & 127)].wrapping_add(1000 * wg as u32)
        })
        .collect();
    c.set("out", &out)
}

// ---------------------------------------------------------------- tensor data mover

/// tensor_tile.ll: work-group (wx, wy) writes the 8 x 16 tile of the 12 x 20 tensor at
/// (row 8wy, column 16wx), row by row, with 0 for the elements outside the tensor.
pub fn tensor_tile(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let bc = c.launch.hidden_block_count();
    if bc != [2, 2, 1] {
        return Err(c.err(format!("tensor_tile is written for 2 x 2 work-groups, not {bc:?}")));
    }
    let (rows, cols) = (12usize, 20usize);
    c.expect_len("in", rows * cols)?;
    c.expect_len("out", 4 * 128)?;
    let x = c.buf::<u32>("in")?;
    let mut out = c.buf::<u32>("out")?;
    for wy in 0..2 {
        for wx in 0..2 {
            for r in 0..8 {
                for col in 0..16 {
                    let (gr, gc) = (8 * wy + r, 16 * wx + col);
                    let v = if gr < rows && gc < cols { x[gr * cols + gc] } else { 0 };
                    out[(2 * wy + wx) * 128 + r * 16 + col] = v;
                }
            }
        }
    }
    c.set("out", &out)
}

/// tensor_tile.ll, tensor_row16: work-group w writes elements 40w .. 40w + 47 of the 100-element
/// tensor, 0 past its end.
pub fn tensor_row16(c: &mut Ctx) -> R {
    c.expect_block([32, 1, 1])?;
    let groups = c.items_1d()? / 32;
    c.expect_len("in16", 100)?;
    c.expect_len("out16", groups * 48)?;
    let x = c.buf::<u16>("in16")?;
    let mut out = c.buf::<u16>("out16")?;
    for w in 0..groups {
        for i in 0..48 {
            let e = 40 * w + i;
            out[48 * w + i] = if e < 100 { x[e] } else { 0 };
        }
    }
    c.set("out16", &out)
}

/// tensor_tile.ll, tensor_store2d: the 4 x 8 tiles at (1, 2) and (7, 6) of the 10 x 12 grid get
/// 7(r*8 + c + 1) + 1000w where they lie inside it; every other element keeps its value.
pub fn tensor_store2d(c: &mut Ctx) -> R {
    c.expect_block([32, 1, 1])?;
    if c.items_1d()? != 64 {
        return Err(c.err("tensor_store2d is written for 2 work-groups"));
    }
    c.expect_len("grid", 120)?;
    let mut g = c.buf::<u32>("grid")?;
    for (w, (y0, x0)) in [(1usize, 2usize), (7, 6)].into_iter().enumerate() {
        for r in 0..4 {
            for col in 0..8 {
                let (gr, gc) = (y0 + r, x0 + col);
                if gr < 10 && gc < 12 {
                    g[gr * 12 + gc] = 7 * (r * 8 + col + 1) as u32 + 1000 * w as u32;
                }
            }
        }
    }
    c.set("grid", &g)
}
