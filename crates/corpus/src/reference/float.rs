//! References of the floating-point kernels.

use super::Ctx;
use crate::{bf16, f16, CorpusError};

type R = Result<(), CorpusError>;

/// saxpy.ll: y[i] = fma(a, x[i], y[i]) for i < n.
pub fn saxpy(c: &mut Ctx) -> R {
    let items = c.items_1d()?;
    let n = c.val::<u32>("n")? as usize;
    let a = c.val::<f32>("a")?;
    let live = n.min(items);
    c.expect_len("x", live)?;
    c.expect_len("y", live)?;
    let x = c.buf::<f32>("x")?;
    let mut y = c.buf::<f32>("y")?;
    for i in 0..live {
        y[i] = a.mul_add(x[i], y[i]);
    }
    c.set("y", &y)
}

/// f64_math.ll: fma, division, mul/add/sub and conversions on f64.
pub fn f64_math(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "c", "bits", "fma", "div", "mix", "toi", "tof", "fromi", "fromu"] {
        c.expect_len(name, n)?;
    }
    let (a, b, cc) = (c.buf::<f64>("a")?, c.buf::<f64>("b")?, c.buf::<f64>("c")?);
    let bits = c.buf::<u64>("bits")?;
    let (mut fma, mut div, mut mix) = (c.buf::<f64>("fma")?, c.buf::<f64>("div")?, c.buf::<f64>("mix")?);
    let (mut toi, mut tof) = (c.buf::<i32>("toi")?, c.buf::<f32>("tof")?);
    let (mut fromi, mut fromu) = (c.buf::<f64>("fromi")?, c.buf::<f64>("fromu")?);
    for i in 0..n {
        fma[i] = a[i].mul_add(b[i], cc[i]);
        let q = a[i] / b[i];
        div[i] = q;
        mix[i] = ((a[i] * b[i]) + cc[i]) - a[i];
        toi[i] = (a[i] * 1000.0) as i32;
        tof[i] = q as f32;
        fromi[i] = (i as i64).wrapping_mul(-7046029254386353131) as f64;
        fromu[i] = bits[i] as f64;
    }
    c.set("fma", &fma)?;
    c.set("div", &div)?;
    c.set("mix", &mix)?;
    c.set("toi", &toi)?;
    c.set("tof", &tof)?;
    c.set("fromi", &fromi)?;
    c.set("fromu", &fromu)
}

/// f16 arithmetic: compute in f32 and round to f16 after each operation. For add and mul of two
/// f16 values this is the correctly rounded f16 result (f32 has at least 2*11+2 bits).
fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

/// f16_math.ll.
pub fn f16_math(c: &mut Ctx) -> R {
    c.expect_block([128, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "c", "h", "e", "t", "k", "s"] {
        c.expect_len(name, n)?;
    }
    let (a, b, cc) = (c.buf::<f16>("a")?, c.buf::<f16>("b")?, c.buf::<f32>("c")?);
    let (mut ho, mut e, mut t) = (c.buf::<f16>("h")?, c.buf::<f32>("e")?, c.buf::<f16>("t")?);
    let (mut k, mut s) = (c.buf::<i32>("k")?, c.buf::<f16>("s")?);
    for i in 0..n {
        let p = h(a[i].to_f32() * b[i].to_f32());
        let hv = h(p.to_f32() + a[i].to_f32());
        ho[i] = hv;
        e[i] = hv.to_f32() * cc[i];
        t[i] = h(cc[i] * 3.0);
        k[i] = hv.to_f32() as i32;
        let ih = h((i as i32 - 256) as f32);
        s[i] = h(ih.to_f32() + a[i].to_f32());
    }
    c.set("h", &ho)?;
    c.set("e", &e)?;
    c.set("t", &t)?;
    c.set("k", &k)?;
    c.set("s", &s)
}

/// bf16 arithmetic, like [`h`]: f32 then round to bf16 (f32 has at least 2*8+2 bits).
fn bf(x: f32) -> bf16 {
    bf16::from_f32(x)
}

/// bf16_math.ll.
pub fn bf16_math(c: &mut Ctx) -> R {
    c.expect_block([256, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "x", "n", "m", "fx", "tr", "ci", "ti"] {
        c.expect_len(name, n)?;
    }
    let (a, b, x, nn) = (c.buf::<bf16>("a")?, c.buf::<bf16>("b")?, c.buf::<f32>("x")?, c.buf::<i32>("n")?);
    let (mut m, mut fx, mut tr) = (c.buf::<bf16>("m")?, c.buf::<f32>("fx")?, c.buf::<bf16>("tr")?);
    let (mut ci, mut ti) = (c.buf::<bf16>("ci")?, c.buf::<i32>("ti")?);
    for i in 0..n {
        let s = bf(a[i].to_f32() + b[i].to_f32());
        let mv = bf(s.to_f32() * b[i].to_f32());
        m[i] = mv;
        fx[i] = mv.to_f32() + x[i];
        tr[i] = bf(x[i] * 1.5);
        // sitofp i32 -> bf16: the inputs are below 2^24 in magnitude, exact in f32, so one rounding.
        ci[i] = bf(nn[i] as f32);
        ti[i] = mv.to_f32() as i32;
    }
    c.set("m", &m)?;
    c.set("fx", &fx)?;
    c.set("tr", &tr)?;
    c.set("ci", &ci)?;
    c.set("ti", &ti)
}

/// convert_f32.ll.
pub fn convert_f32(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["f", "u", "l", "oi", "ou", "fu", "fl", "ul", "ol", "od"] {
        c.expect_len(name, n)?;
    }
    let (f, u, l) = (c.buf::<f32>("f")?, c.buf::<u32>("u")?, c.buf::<i64>("l")?);
    let (mut oi, mut ou, mut fu) = (c.buf::<i32>("oi")?, c.buf::<u32>("ou")?, c.buf::<f32>("fu")?);
    let (mut fl, mut ul, mut ol, mut od) = (c.buf::<f32>("fl")?, c.buf::<f32>("ul")?, c.buf::<i64>("ol")?, c.buf::<f64>("od")?);
    let third = f64::from_bits(0x3FD5_5555_5555_5555);
    for i in 0..n {
        // Rust's `as` truncates toward zero like fptosi/fptoui for in-range values, and rounds to
        // nearest even for integer -> float.
        oi[i] = f[i] as i32;
        ou[i] = f[i].abs() as u32;
        fu[i] = u[i] as f32;
        fl[i] = l[i] as f32;
        ul[i] = (l[i] as u64) as f32;
        ol[i] = (f[i] * 1_048_576.0) as i64;
        od[i] = (f[i] as f64) * third;
    }
    c.set("oi", &oi)?;
    c.set("ou", &ou)?;
    c.set("fu", &fu)?;
    c.set("fl", &fl)?;
    c.set("ul", &ul)?;
    c.set("ol", &ol)?;
    c.set("od", &od)
}

/// math_f32.ll. The approximate results (exp2, log2, sin) are the correctly rounded values
/// (computed in f64, then rounded); their outputs carry a tolerance in the launch description.
pub fn math_f32(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "p", "q", "s", "ia", "ib", "e2", "l2", "sn"] {
        c.expect_len(name, n)?;
    }
    c.expect_len("exact", 8 * n)?;
    c.expect_len("ints", 4 * n)?;
    let (a, b, p, q, s) = (c.buf::<f32>("a")?, c.buf::<f32>("b")?, c.buf::<f32>("p")?, c.buf::<f32>("q")?, c.buf::<f32>("s")?);
    let (ia, ib) = (c.buf::<i32>("ia")?, c.buf::<i32>("ib")?);
    let (mut exact, mut ints) = (c.buf::<f32>("exact")?, c.buf::<i32>("ints")?);
    let (mut e2, mut l2, mut sn) = (c.buf::<f32>("e2")?, c.buf::<f32>("l2")?, c.buf::<f32>("sn")?);
    for i in 0..n {
        let ab = a[i] * b[i];
        let out = &mut exact[8 * i..8 * i + 8];
        out[0] = a[i].mul_add(b[i], p[i]);
        // minnum/maxnum: no NaN inputs, and no +0/-0 pairs (the inputs have no -0).
        out[1] = a[i].min(b[i]);
        out[2] = a[i].max(b[i]);
        out[3] = p[i].sqrt();
        out[4] = ab.floor();
        out[5] = p[i].copysign(b[i]);
        out[6] = a[i].abs() * b[i];
        out[7] = ab.round_ties_even();
        let (x, y) = (ia[i], ib[i]);
        ints[4 * i] = x.min(y);
        ints[4 * i + 1] = (x as u32).max(y as u32) as i32;
        ints[4 * i + 2] = x.wrapping_abs();
        ints[4 * i + 3] = (x as u32).min(y as u32) as i32;
        e2[i] = (a[i] as f64).exp2() as f32;
        l2[i] = (q[i] as f64).log2() as f32;
        sn[i] = (s[i] as f64).sin() as f32;
    }
    c.set("exact", &exact)?;
    c.set("ints", &ints)?;
    c.set("e2", &e2)?;
    c.set("l2", &l2)?;
    c.set("sn", &sn)
}
