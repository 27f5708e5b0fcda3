//! References of the integer kernels.

use super::Ctx;
use crate::CorpusError;

type R = Result<(), CorpusError>;

/// The signed divisor the kernels use: 0 and -1 are replaced by 7.
fn safe_divisor<T: PartialEq + From<i8>>(b: T) -> T {
    if b == T::from(0) || b == T::from(-1) {
        T::from(7)
    } else {
        b
    }
}

/// int_div.ll, @int_div32.
pub fn int_div32(c: &mut Ctx) -> R {
    c.expect_block([128, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "q", "r", "uq", "ur"] {
        c.expect_len(name, n)?;
    }
    let (a, b) = (c.buf::<i32>("a")?, c.buf::<i32>("b")?);
    let (mut q, mut r, mut uq, mut ur) = (c.buf::<i32>("q")?, c.buf::<i32>("r")?, c.buf::<u32>("uq")?, c.buf::<u32>("ur")?);
    for i in 0..n {
        let d = safe_divisor(b[i]);
        // Rust's / and % truncate toward zero like sdiv/srem; d is neither 0 nor -1.
        q[i] = a[i] / d;
        r[i] = a[i] % d;
        let ud = ((b[i] as u32) >> (i & 15)) | 1;
        uq[i] = a[i] as u32 / ud;
        ur[i] = a[i] as u32 % ud;
    }
    c.set("q", &q)?;
    c.set("r", &r)?;
    c.set("uq", &uq)?;
    c.set("ur", &ur)
}

/// int_div.ll, @int_div64.
pub fn int_div64(c: &mut Ctx) -> R {
    c.expect_block([128, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["a", "b", "q", "r", "uq", "ur"] {
        c.expect_len(name, n)?;
    }
    let (a, b) = (c.buf::<i64>("a")?, c.buf::<i64>("b")?);
    let (mut q, mut r, mut uq, mut ur) = (c.buf::<i64>("q")?, c.buf::<i64>("r")?, c.buf::<u64>("uq")?, c.buf::<u64>("ur")?);
    for i in 0..n {
        let d = safe_divisor(b[i] >> (i % 48));
        q[i] = a[i] / d;
        r[i] = a[i] % d;
        let ud = ((b[i] as u64) >> (i % 61)) | 1;
        uq[i] = a[i] as u64 / ud;
        ur[i] = a[i] as u64 % ud;
    }
    c.set("q", &q)?;
    c.set("r", &r)?;
    c.set("uq", &uq)?;
    c.set("ur", &ur)
}

/// llvm.fshl.i64: the high 64 bits of (x:y) << (s mod 64).
pub(crate) fn fshl64(x: u64, y: u64, s: u64) -> u64 {
    let s = s % 64;
    if s == 0 {
        x
    } else {
        (x << s) | (y >> (64 - s))
    }
}

/// int64_math.ll: eight results per work-item.
pub fn int64_math(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("x", n)?;
    c.expect_len("y", n)?;
    c.expect_len("out", 8 * n)?;
    let (xs, ys) = (c.buf::<u64>("x")?, c.buf::<u64>("y")?);
    let mut out = c.buf::<u64>("out")?;
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let o = &mut out[8 * i..8 * i + 8];
        o[0] = x.wrapping_mul(y).wrapping_add(x.wrapping_sub(y));
        o[1] = x << (y & 63);
        o[2] = x >> (y & 63);
        o[3] = ((x as i64) >> ((y >> 6) & 63)) as u64;
        o[4] = ((x as u128 * y as u128) >> 64) as u64;
        o[5] = fshl64(x, y, i as u64);
        o[6] = x.count_ones() as u64 + ((y.leading_zeros() as u64) << 8) + (((x | 1 << 63).trailing_zeros() as u64) << 16);
        let smax = (x as i64).max(y as i64) as u64;
        let umin = x.min(y);
        o[7] = (smax ^ umin ^ x.reverse_bits() ^ y.swap_bytes()).wrapping_add((x as i64).wrapping_abs() as u64);
    }
    c.set("out", &out)
}
