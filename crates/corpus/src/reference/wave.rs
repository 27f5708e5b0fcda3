//! References of the wave-level kernels. Their work-groups are exactly 32 work-items: one wave32,
//! or the lower half of a wave64 with the upper 32 lanes inactive. Lane l of wave w is global
//! work-item 32*w + l.

use super::Ctx;
use crate::CorpusError;

type R = Result<(), CorpusError>;

const LANES: usize = 32;

/// (waves, items) of a launch of 32-work-item groups.
fn waves(c: &Ctx) -> Result<(usize, usize), CorpusError> {
    c.expect_block([32, 1, 1])?;
    let n = c.items_1d()?;
    Ok((n / LANES, n))
}

/// A wave's 64-bit ballot of `p` over its 32 lanes (the upper half is zero).
fn ballot(p: impl Fn(usize) -> bool) -> u64 {
    (0..LANES).filter(|&l| p(l)).fold(0u64, |m, l| m | 1 << l)
}

/// Bits of `m` below lane `l` (what mbcnt counts).
fn below(m: u64, l: usize) -> u32 {
    (m & ((1u64 << l) - 1)).count_ones()
}

/// wave_ballot.ll, @wave_ballot.
pub fn wave_ballot(c: &mut Ctx) -> R {
    let (nw, n) = waves(c)?;
    for name in ["in", "below", "lanes", "oddfirst", "oddmask"] {
        c.expect_len(name, n)?;
    }
    c.expect_len("masks", nw)?;
    let input = c.buf::<i32>("in")?;
    let (mut masks, mut below_out, mut lanes) = (c.buf::<u64>("masks")?, c.buf::<u32>("below")?, c.buf::<i32>("lanes")?);
    let (mut oddfirst, mut oddmask) = (c.buf::<i32>("oddfirst")?, c.buf::<u64>("oddmask")?);
    for w in 0..nw {
        let x = &input[w * LANES..w * LANES + LANES];
        let m = ballot(|l| x[l] > 0);
        masks[w] = m;
        let (f, r5, r31) = (x[0], x[5], x[31]);
        let odd = ballot(|l| x[l] & 1 != 0);
        for l in 0..LANES {
            let g = w * LANES + l;
            below_out[g] = below(m, l);
            let written = if l == 7 { r31 } else { x[l] };
            lanes[g] = f
                .wrapping_mul(3)
                .wrapping_add(r5.wrapping_mul(5))
                .wrapping_add(r31.wrapping_mul(7))
                .wrapping_add(written);
            if odd & 1 << l != 0 {
                oddfirst[g] = x[odd.trailing_zeros() as usize];
                oddmask[g] = odd;
            }
        }
    }
    c.set("masks", &masks)?;
    c.set("below", &below_out)?;
    c.set("lanes", &lanes)?;
    c.set("oddfirst", &oddfirst)?;
    c.set("oddmask", &oddmask)
}

/// wave_ballot.ll, @wave_compact: each wave's multiples of 3, in lane order, at the start of its
/// 32 slots of `out`; the other slots keep their contents.
pub fn wave_compact(c: &mut Ctx) -> R {
    let (nw, n) = waves(c)?;
    c.expect_len("in", n)?;
    c.expect_len("out", n)?;
    c.expect_len("cnt", nw)?;
    let input = c.buf::<u32>("in")?;
    let (mut out, mut cnt) = (c.buf::<u32>("out")?, c.buf::<u32>("cnt")?);
    for w in 0..nw {
        let x = &input[w * LANES..w * LANES + LANES];
        let m = ballot(|l| x[l] % 3 == 0);
        for l in 0..LANES {
            if m & 1 << l != 0 {
                out[w * LANES + below(m, l) as usize] = x[l];
            }
        }
        cnt[w] = m.count_ones();
    }
    c.set("out", &out)?;
    c.set("cnt", &cnt)
}

/// wave_dpp.ll. Lane l sits at position l & 15 of its row of 16.
pub fn wave_dpp(c: &mut Ctx) -> R {
    let (nw, n) = waves(c)?;
    let outs = ["shr", "qp", "mir", "hmir", "ror", "scan", "rowm"];
    c.expect_len("in", n)?;
    for name in outs {
        c.expect_len(name, n)?;
    }
    let input = c.buf::<i32>("in")?;
    let mut res: Vec<Vec<i32>> = outs.iter().map(|name| c.buf::<i32>(name)).collect::<Result<_, _>>()?;
    for w in 0..nw {
        let x = &input[w * LANES..w * LANES + LANES];
        for l in 0..LANES {
            let (row, r) = (l & !15, l & 15);
            let g = w * LANES + l;
            // row_shr:1, bound_ctrl off: lanes without a source keep `old`.
            res[0][g] = if r >= 1 { x[l - 1] } else { 0xDEAD };
            // quad_perm [2,3,0,1]
            res[1][g] = x[(l & !3) | [2, 3, 0, 1][l & 3]];
            // row_mirror, row_half_mirror
            res[2][g] = x[row | (15 - r)];
            res[3][g] = x[(l & !7) | (7 - (l & 7))];
            // row_ror:3: lane r reads lane (r - 3) mod 16 of its row
            res[4][g] = x[row | ((r + 16 - 3) & 15)];
            // four row_shr steps with zero fill: the inclusive prefix sum within the row
            res[5][g] = x[row..=l].iter().fold(0i32, |s, &v| s.wrapping_add(v));
            // row_shl:2 with row_mask 0x1 and bound_ctrl off
            res[6][g] = if l < 16 && r + 2 < 16 { x[l + 2] } else { 7 };
        }
    }
    for (name, v) in outs.iter().zip(&res) {
        c.set(name, v)?;
    }
    Ok(())
}

/// wave_permute.ll.
pub fn wave_permute(c: &mut Ctx) -> R {
    let (nw, n) = waves(c)?;
    let outs = ["bp1", "bp2", "perm", "swx", "swb", "swr", "swq"];
    c.expect_len("in", n)?;
    for name in outs {
        c.expect_len(name, n)?;
    }
    let input = c.buf::<i32>("in")?;
    let mut res: Vec<Vec<i32>> = outs.iter().map(|name| c.buf::<i32>(name)).collect::<Result<_, _>>()?;
    for w in 0..nw {
        let x = &input[w * LANES..w * LANES + LANES];
        let g = |l: usize| w * LANES + l;
        for l in 0..LANES {
            // ds_bpermute: lane l reads lane addr/4.
            res[0][g(l)] = x[(5 * l + 3) & 31];
            res[1][g(l)] = x[31 - l];
            // ds_permute: lane l writes its value to lane addr/4.
            res[2][g((7 * l + 1) & 31)] = x[l];
            // ds_swizzle bitmask mode: lane l reads ((l & and) | or) ^ xor.
            res[3][g(l)] = x[l ^ 1];
            res[4][g(l)] = x[(l & 0x18) | 3];
            res[5][g(l)] = x[l ^ 31];
            // ds_swizzle quad-perm mode [3,2,1,0]
            res[6][g(l)] = x[(l & !3) | (3 - (l & 3))];
        }
    }
    for (name, v) in outs.iter().zip(&res) {
        c.set(name, v)?;
    }
    Ok(())
}
