//! References of the LDS kernels: each work-group's computation, in the order the kernel fixes.

use super::Ctx;
use crate::CorpusError;

type R = Result<(), CorpusError>;

/// A 1-D launch of `block`-sized work-groups: returns (work-groups, items).
fn groups_1d(c: &Ctx, block: u32) -> Result<(usize, usize), CorpusError> {
    c.expect_block([block, 1, 1])?;
    let n = c.items_1d()?;
    Ok((n / block as usize, n))
}

/// lds_reduce.ll: the tree `for s in 128, 64, .., 1: v[t] += v[t + s] for t < s`, per work-group.
pub fn lds_reduce(c: &mut Ctx) -> R {
    let (groups, n) = groups_1d(c, 256)?;
    c.expect_len("x", n)?;
    c.expect_len("v", n)?;
    c.expect_len("outf", groups)?;
    c.expect_len("outi", groups)?;
    let (x, v) = (c.buf::<f32>("x")?, c.buf::<i32>("v")?);
    let (mut outf, mut outi) = (c.buf::<f32>("outf")?, c.buf::<i32>("outi")?);
    for wg in 0..groups {
        let mut lf = x[wg * 256..wg * 256 + 256].to_vec();
        let mut li = v[wg * 256..wg * 256 + 256].to_vec();
        let mut s = 128;
        while s > 0 {
            for t in 0..s {
                lf[t] += lf[t + s];
                li[t] = li[t].wrapping_add(li[t + s]);
            }
            s >>= 1;
        }
        outf[wg] = lf[0];
        outi[wg] = li[0];
    }
    c.set("outf", &outf)?;
    c.set("outi", &outi)
}

/// lds_scan.ll: inclusive prefix sums per work-group of 256 (wrapping i32).
pub fn lds_scan(c: &mut Ctx) -> R {
    let (groups, n) = groups_1d(c, 256)?;
    c.expect_len("in", n)?;
    c.expect_len("out", n)?;
    let input = c.buf::<i32>("in")?;
    let mut out = c.buf::<i32>("out")?;
    for wg in 0..groups {
        let mut sum = 0i32;
        for i in wg * 256..wg * 256 + 256 {
            sum = sum.wrapping_add(input[i]);
            out[i] = sum;
        }
    }
    c.set("out", &out)
}

/// lds_matmul.ll: C[row][col] = fma chain over k in increasing order, from +0.0.
pub fn lds_matmul(c: &mut Ctx) -> R {
    c.expect_block([16, 16, 1])?;
    c.expect_full_groups()?;
    let n = c.val::<i32>("n")? as usize;
    let k = c.val::<i32>("k")? as usize;
    let (cols, rows) = (c.launch.grid[0] as usize, c.launch.grid[1] as usize);
    if !k.is_multiple_of(16) || cols > n {
        return Err(c.err(format!("k = {k} must be a multiple of 16 and the grid width {cols} at most n = {n}")));
    }
    c.expect_len("A", rows * k)?;
    c.expect_len("B", k * n)?;
    c.expect_len("C", rows * n)?;
    let (a, b) = (c.buf::<f32>("A")?, c.buf::<f32>("B")?);
    let mut out = c.buf::<f32>("C")?;
    for row in 0..rows {
        for col in 0..cols {
            let mut acc = 0.0f32;
            for kk in 0..k {
                acc = a[row * k + kk].mul_add(b[kk * n + col], acc);
            }
            out[row * n + col] = acc;
        }
    }
    c.set("C", &out)
}

/// lds_transpose.ll: out[c][r] = in[r][c] over the tiles the grid covers.
pub fn lds_transpose(c: &mut Ctx) -> R {
    c.expect_block([32, 8, 1])?;
    c.expect_full_groups()?;
    let w = c.val::<i32>("width")? as usize;
    let h = c.val::<i32>("height")? as usize;
    let [gx, gy, _] = c.launch.workgroups();
    let (tiles_x, tiles_y) = (gx as usize, gy as usize);
    if tiles_x * 32 > w || tiles_y * 32 > h || c.launch.grid[2] != 1 {
        return Err(c.err("the grid covers more tiles than the matrix has"));
    }
    c.expect_len("in", w * h)?;
    c.expect_len("out", w * h)?;
    let input = c.buf::<u32>("in")?;
    let mut out = c.buf::<u32>("out")?;
    for wy in 0..tiles_y {
        for wx in 0..tiles_x {
            for r in wy * 32..wy * 32 + 32 {
                for col in wx * 32..wx * 32 + 32 {
                    out[col * h + r] = input[r * w + col];
                }
            }
        }
    }
    c.set("out", &out)
}

/// lds_bitonic.ll: each work-group's 256 keys sorted ascending (unsigned).
pub fn lds_bitonic(c: &mut Ctx) -> R {
    let (groups, n) = groups_1d(c, 256)?;
    c.expect_len("keys", n)?;
    let mut keys = c.buf::<u32>("keys")?;
    for chunk in keys.chunks_mut(256).take(groups) {
        chunk.sort_unstable();
    }
    c.set("keys", &keys)
}

/// dyn_lds.ll: with n the work-group size,
/// out[gid] = in[base + n-1-t] + 2*in[base + (t+1) % n] + 5*(t & 63).
pub fn dyn_lds(c: &mut Ctx) -> R {
    let bx = c.launch.block[0] as usize;
    let (groups, n) = groups_1d(c, bx as u32)?;
    if bx < 64 {
        return Err(c.err("the static array is filled by the first 64 work-items: the block needs at least 64"));
    }
    if (c.launch.dynamic_lds as usize) < 2 * bx * 4 {
        return Err(c.err(format!("the kernel uses {} bytes of dynamic LDS, the launch gives {}", 2 * bx * 4, c.launch.dynamic_lds)));
    }
    c.expect_len("in", n)?;
    c.expect_len("out", n)?;
    let input = c.buf::<u32>("in")?;
    let mut out = c.buf::<u32>("out")?;
    for wg in 0..groups {
        let base = wg * bx;
        for t in 0..bx {
            let a = input[base + bx - 1 - t];
            let b = input[base + (t + 1) % bx].wrapping_mul(2);
            let s = (t as u32 & 63) * 5;
            out[base + t] = a.wrapping_add(b).wrapping_add(s);
        }
    }
    c.set("out", &out)
}
