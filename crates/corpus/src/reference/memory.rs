//! References of the atomic and scratch kernels. The atomics are order-independent, so the
//! reference applies them in work-item order, starting from the buffers' initial contents.

use super::Ctx;
use crate::CorpusError;

type R = Result<(), CorpusError>;

/// atomics_global.ll.
pub fn atomics_global(c: &mut Ctx) -> R {
    c.expect_block([256, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("keys", n)?;
    for (name, len) in [("hist", 64), ("maxv", 4), ("minv", 4), ("orv", 8), ("flags", 4), ("counter", 1), ("sum64", 2), ("bits", 2)] {
        c.expect_len(name, len)?;
    }
    let keys = c.buf::<u32>("keys")?;
    let (mut hist, mut maxv, mut minv) = (c.buf::<u32>("hist")?, c.buf::<u32>("maxv")?, c.buf::<i32>("minv")?);
    let (mut orv, mut flags, mut counter) = (c.buf::<u32>("orv")?, c.buf::<u32>("flags")?, c.buf::<u32>("counter")?);
    let (mut tickets, mut sum64, mut bits) = (c.buf::<u32>("tickets")?, c.buf::<u64>("sum64")?, c.buf::<u32>("bits")?);
    for (i, &k) in keys.iter().enumerate().take(n) {
        let hi = (k & 63) as usize;
        hist[hi] = hist[hi].wrapping_add(1);
        maxv[i & 3] = maxv[i & 3].max(k);
        minv[i & 3] = minv[i & 3].min(k as i32);
        orv[i & 7] |= 1 << (k & 31);
        flags[i & 3] = 100 + (i as u32 & 3);
        let ticket = counter[0] as usize;
        counter[0] = counter[0].wrapping_add(1);
        *tickets.get_mut(ticket).ok_or_else(|| c.err(format!("ticket {ticket} is outside `tickets`")))? = 1;
        sum64[0] = sum64[0].wrapping_add(k as u64);
        sum64[1] ^= (k as u64) << (i & 31);
        bits[0] &= k | (1 << (i & 31));
        bits[1] = bits[1].wrapping_sub(k);
    }
    c.set("hist", &hist)?;
    c.set("maxv", &maxv)?;
    c.set("minv", &minv)?;
    c.set("orv", &orv)?;
    c.set("flags", &flags)?;
    c.set("counter", &counter)?;
    c.set("tickets", &tickets)?;
    c.set("sum64", &sum64)?;
    c.set("bits", &bits)
}

/// atomics_lds.ll.
pub fn atomics_lds(c: &mut Ctx) -> R {
    c.expect_block([256, 1, 1])?;
    let n = c.items_1d()?;
    let groups = n / 256;
    c.expect_len("keys", n)?;
    c.expect_len("hist", 32)?;
    c.expect_len("wgh", 32 * groups)?;
    for name in ["wgmax", "wgor", "wgmin"] {
        c.expect_len(name, groups)?;
    }
    let keys = c.buf::<u32>("keys")?;
    let (mut hist, mut wgh) = (c.buf::<u32>("hist")?, c.buf::<u32>("wgh")?);
    let (mut wgmax, mut wgor, mut wgmin) = (c.buf::<u32>("wgmax")?, c.buf::<u32>("wgor")?, c.buf::<i32>("wgmin")?);
    for wg in 0..groups {
        let mut lh = [0u32; 32];
        let (mut mx, mut or, mut mn) = (0u32, 0u32, i32::MAX);
        for &k in &keys[wg * 256..wg * 256 + 256] {
            lh[(k & 31) as usize] += 1;
            mx = mx.max(k);
            or |= 1 << (k >> 27);
            mn = mn.min(k as i32);
        }
        for (t, &count) in lh.iter().enumerate() {
            hist[t] = hist[t].wrapping_add(count);
            wgh[wg * 32 + t] = count;
        }
        wgmax[wg] = mx;
        wgor[wg] = or;
        wgmin[wg] = mn;
    }
    c.set("hist", &hist)?;
    c.set("wgh", &wgh)?;
    c.set("wgmax", &wgmax)?;
    c.set("wgor", &wgor)?;
    c.set("wgmin", &wgmin)
}

/// scratch_array.ll.
pub fn scratch_array(c: &mut Ctx) -> R {
    let n = c.items_1d()?;
    c.expect_len("seeds", n)?;
    c.expect_len("idx", 8 * n)?;
    c.expect_len("out", n)?;
    let (seeds, idx) = (c.buf::<u32>("seeds")?, c.buf::<u32>("idx")?);
    let mut out = c.buf::<u32>("out")?;
    for i in 0..n {
        let s = seeds[i];
        let mut arr: [u32; 128] = std::array::from_fn(|k| s.wrapping_mul(k as u32).wrapping_add(k as u32 ^ i as u32));
        let mut acc = 0u32;
        for r in 0..8 {
            let j = (idx[8 * i + r] & 127) as usize;
            acc = acc.wrapping_add(arr[j]);
            arr[(j + 1) & 127] = acc ^ r as u32;
        }
        out[i] = acc.wrapping_add(arr[i & 127]);
    }
    c.set("out", &out)
}

/// buffer_raw.ll: lanes past a buffer resource's num_records read 0 and write nothing.
pub fn buffer_raw(c: &mut Ctx) -> R {
    let items = c.items_1d()?;
    let (n, m) = (c.val::<u32>("n")? as usize, c.val::<u32>("m")? as usize);
    for name in ["in", "out", "cnt", "old"] {
        c.expect_len(name, items)?;
    }
    let input = c.buf::<u32>("in")?;
    let (mut out, mut cnt, mut old) = (c.buf::<u32>("out")?, c.buf::<u32>("cnt")?, c.buf::<u32>("old")?);
    for i in 0..items {
        let v = if i < n { input[i] } else { 0 };
        if i < m {
            out[i] = v.wrapping_add(1);
            old[i] = cnt[i];
            cnt[i] = cnt[i].wrapping_add(1);
        } else {
            old[i] = 0;
        }
    }
    c.set("out", &out)?;
    c.set("cnt", &cnt)?;
    c.set("old", &old)
}
