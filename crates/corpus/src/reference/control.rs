//! References of the control-flow, geometry, hidden-argument and call kernels.

use super::{items, Ctx};
use crate::CorpusError;

type R = Result<(), CorpusError>;

/// divergent_if.ll.
pub fn divergent_if(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["in", "out", "outf"] {
        c.expect_len(name, n)?;
    }
    c.expect_len("tab", 64)?;
    let (input, tab) = (c.buf::<i32>("in")?, c.buf::<i32>("tab")?);
    let (mut out, mut outf) = (c.buf::<i32>("out")?, c.buf::<f32>("outf")?);
    for i in 0..n {
        let x = input[i];
        out[i] = if x & 1 != 0 {
            let t = tab[(x & 63) as usize];
            if x > 1000 {
                x.wrapping_mul(3).wrapping_sub(t)
            } else {
                x.wrapping_add(17).wrapping_add(t)
            }
        } else {
            let mut acc = x >> 1;
            for j in 0..(i as i32 & 7) {
                acc = acc.wrapping_mul(5).wrapping_add(j);
            }
            if i & 3 == 0 {
                acc ^ 0x55
            } else {
                acc
            }
        };
        outf[i] = if x < 0 { x as f32 * 0.5 } else { x as f32 + 0.25 };
    }
    c.set("out", &out)?;
    c.set("outf", &outf)
}

/// nested_loops.ll.
pub fn nested_loops(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("data", 256)?;
    for name in ["limit", "acc_out", "steps_out"] {
        c.expect_len(name, n)?;
    }
    let (data, limit) = (c.buf::<i32>("data")?, c.buf::<i32>("limit")?);
    let (mut acc_out, mut steps_out) = (c.buf::<i32>("acc_out")?, c.buf::<i32>("steps_out")?);
    for t in 0..n {
        let (mut acc, mut steps) = (0i32, 0i32);
        for i in 0..8u32 {
            for j in 0..16u32 {
                let v = data[((i * 16 + j + t as u32) & 255) as usize];
                if (v as u32).is_multiple_of(7) {
                    break;
                }
                acc = acc.wrapping_add(v.wrapping_mul(i as i32 + 1));
                steps += 1;
            }
            if acc > limit[t] {
                break;
            }
        }
        acc_out[t] = acc;
        steps_out[t] = steps;
    }
    c.set("acc_out", &acc_out)?;
    c.set("steps_out", &steps_out)
}

/// uniform_branch.ll.
pub fn uniform_branch(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("in", n)?;
    c.expect_len("out", n)?;
    let mode = c.val::<i32>("mode")?;
    let iters = c.val::<i32>("iters")?;
    let input = c.buf::<u32>("in")?;
    let mut out = c.buf::<u32>("out")?;
    for i in 0..n {
        let v = input[i];
        let mut w = match mode {
            0 => v.wrapping_mul(2).wrapping_add(1),
            1 => v ^ 0xA5A5_A5A5,
            2 => v.rotate_left(5),
            _ => 0u32.wrapping_sub(v),
        };
        for _ in 0..iters.max(0) {
            w = w.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        out[i] = if mode > 1 { w } else { w.wrapping_add(i as u32) };
    }
    c.set("out", &out)
}

/// grid2d.ll.
pub fn grid2d(c: &mut Ctx) -> R {
    let w = c.val::<i32>("width")? as u32;
    let h = c.val::<i32>("height")? as u32;
    let input = c.buf::<u32>("in")?;
    let (mut out, mut flip) = (c.buf::<u32>("out")?, c.buf::<u32>("flip")?);
    for it in items(c.launch) {
        let [gx, gy, _] = it.global;
        let p = (gy.wrapping_mul(w).wrapping_add(gx)) as usize;
        let f = (h.wrapping_sub(1).wrapping_sub(gy).wrapping_mul(w).wrapping_add(gx)) as usize;
        if p >= input.len() || p >= out.len() || p >= flip.len() || f >= input.len() {
            return Err(c.err(format!("work-item {:?} indexes outside the buffers", it.global)));
        }
        out[p] = input[p].wrapping_mul(3).wrapping_add(gx).wrapping_sub(2 * gy);
        flip[p] = input[f];
    }
    c.set("out", &out)?;
    c.set("flip", &flip)
}

/// grid3d.ll.
pub fn grid3d(c: &mut Ctx) -> R {
    let bc = c.launch.hidden_block_count();
    let gs = c.launch.block;
    let (gxn, gyn) = (bc[0] * gs[0], bc[1] * gs[1]);
    let input = c.buf::<u32>("in")?;
    let (mut ids, mut vals) = (c.buf::<u32>("ids")?, c.buf::<u32>("vals")?);
    for it in items(c.launch) {
        let [gx, gy, gz] = it.global;
        let lin = ((gz * gyn + gy) * gxn + gx) as usize;
        if lin >= ids.len() || lin >= vals.len() || lin >= input.len() {
            return Err(c.err(format!("work-item {:?} indexes outside the buffers", it.global)));
        }
        let [wx, wy, wz] = it.wg;
        let [tx, ty, tz] = it.local;
        ids[lin] = wz << 24 | wy << 16 | wx << 8 | tz << 6 | ty << 3 | tx;
        vals[lin] = input[lin].wrapping_add(gx.wrapping_mul(gy).wrapping_mul(gz));
    }
    c.set("ids", &ids)?;
    c.set("vals", &vals)
}

/// hidden_args.ll: the local size as the kernel computes it from the hidden arguments.
pub fn hidden_args(c: &mut Ctx) -> R {
    let bc = c.launch.hidden_block_count();
    let gs = c.launch.hidden_group_size().map(u32::from);
    let rem = c.launch.hidden_remainder().map(u32::from);
    c.expect_len("info", 9)?;
    let mut out = c.buf::<u32>("out")?;
    let mut info = c.buf::<u32>("info")?;
    let width = bc[0] * gs[0] + rem[0];
    for it in items(c.launch) {
        let ls: [u32; 3] = std::array::from_fn(|d| if it.wg[d] < bc[d] { gs[d] } else { rem[d] });
        let [gx, gy, _] = it.global;
        let p = (gy * width + gx) as usize;
        if p >= out.len() {
            return Err(c.err(format!("work-item {:?} indexes outside `out`", it.global)));
        }
        out[p] = gx | gy << 8 | ls[0] << 16 | ls[1] << 24;
        if p == 0 {
            info[..3].copy_from_slice(&bc);
            info[3..6].copy_from_slice(&gs);
            info[6..9].copy_from_slice(&rem);
        }
    }
    c.set("out", &out)?;
    c.set("info", &info)
}

/// device_call.ll, @collatz_steps.
fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while !(n == 1 || steps >= 1000) {
        n = if n & 1 == 0 { n >> 1 } else { n.wrapping_mul(3).wrapping_add(1) };
        steps += 1;
    }
    steps
}

/// device_call.ll.
pub fn device_call(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    for name in ["in", "steps", "mix"] {
        c.expect_len(name, n)?;
    }
    let input = c.buf::<u32>("in")?;
    let (mut steps, mut mix) = (c.buf::<u32>("steps")?, c.buf::<u32>("mix")?);
    for i in 0..n {
        let v = input[i];
        steps[i] = collatz_steps(v);
        let tab: [u32; 16] = std::array::from_fn(|k| v ^ (k as u32).wrapping_mul(0x9E37_79B9));
        let j = (v & 15) as usize;
        mix[i] = tab[j].wrapping_add(tab[(j + 5) & 15]);
    }
    c.set("steps", &steps)?;
    c.set("mix", &mix)
}

/// multi_kernel.ll, @mk_hash.
fn mk_hash(x: u32) -> u32 {
    x.wrapping_mul(0x85EB_CA6B) ^ (x >> 13)
}

/// multi_kernel.ll, @mk_fill.
pub fn mk_fill(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("out", n)?;
    let value = c.val::<u32>("value")?;
    let mut out = c.buf::<u32>("out")?;
    for (i, o) in out.iter_mut().enumerate().take(n) {
        *o = value.wrapping_add(mk_hash(i as u32));
    }
    c.set("out", &out)
}

/// multi_kernel.ll, @mk_scale.
pub fn mk_scale(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    c.expect_len("x", n)?;
    let s = c.val::<f32>("s")?;
    let mut x = c.buf::<f32>("x")?;
    for v in x.iter_mut().take(n) {
        *v = *v * s + 1.0;
    }
    c.set("x", &x)
}

/// multi_kernel.ll, @mk_blocksum.
pub fn mk_blocksum(c: &mut Ctx) -> R {
    c.expect_block([64, 1, 1])?;
    let n = c.items_1d()?;
    let groups = n / 64;
    c.expect_len("in", n)?;
    c.expect_len("out", groups)?;
    let input = c.buf::<u32>("in")?;
    let mut out = c.buf::<u32>("out")?;
    for (wg, o) in out.iter_mut().enumerate().take(groups) {
        let sum = input[wg * 64..wg * 64 + 64].iter().fold(0u32, |s, &v| s.wrapping_add(v));
        *o = sum.wrapping_add(mk_hash(wg as u32));
    }
    c.set("out", &out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collatz_by_hand() {
        // 6 -> 3 -> 10 -> 5 -> 16 -> 8 -> 4 -> 2 -> 1: 8 steps. 1: 0 steps. 27 takes 111 steps.
        assert_eq!(collatz_steps(6), 8);
        assert_eq!(collatz_steps(1), 0);
        assert_eq!(collatz_steps(27), 111);
        assert_eq!(collatz_steps(0), 1000);
    }

    #[test]
    fn mk_hash_by_hand() {
        assert_eq!(mk_hash(0), 0);
        assert_eq!(mk_hash(1), 0x85EB_CA6B);
        // 8192 * 0x85EBCA6B mod 2^32: the low 19 bits 0x3CA6B shifted left by 13 = 0x794D6000; ^ (8192 >> 13)
        assert_eq!(mk_hash(8192), 0x794D_6001);
    }
}
