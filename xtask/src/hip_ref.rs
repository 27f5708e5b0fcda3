//! The launches of corpus/hip and their host references: for each kernel of `corpus/hip/src`, the
//! inputs (from a fixed-seed PRNG) and, computed here in plain Rust from those inputs, what the
//! kernel must leave in its output buffers. Nothing here comes from the emulator, the translator
//! or the compiled code.
//!
//! Float inputs are small multiples of a power of two wherever the kernel's arithmetic can then be
//! exact, so that those outputs are compared with no tolerance; the one kernel with
//! transcendentals (softmax) states its tolerance and why.

use hx_corpus::{Elem, SplitMix64};

/// One launch: geometry and arguments in the kernel's order.
pub struct Setup {
    /// One line for the launch description: what the launch checks.
    pub about: &'static str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic LDS the kernel itself sizes (`extern __shared__`), not counting `__local` blocks.
    pub dynamic_lds: u32,
    pub args: Vec<Arg>,
}

pub enum Arg {
    /// A global buffer: its initial bytes and, for an output, what it must hold after the run.
    Buf { name: &'static str, elem: Elem, init: Vec<u8>, want: Option<Want> },
    /// A by-value argument (its value as the description writes it).
    Val { name: &'static str, elem: Elem, value: String },
    /// An OpenCL `__local` pointer with the size of the block the host gives it.
    Local { name: &'static str, bytes: u32 },
}

pub enum Want {
    /// Integer outputs: exactly these bytes.
    Bits(Vec<u8>),
    /// Float outputs: these values, within `atol + rtol * |want|`, for the reason given.
    Floats { values: Vec<f64>, atol: f64, rtol: f64, why: &'static str },
}

impl Want {
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Want::Bits(b) => b.clone(),
            Want::Floats { values, .. } => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    pub fn tolerance(&self) -> Option<(f64, f64, &'static str)> {
        match self {
            Want::Floats { atol, rtol, why, .. } if *atol != 0.0 || *rtol != 0.0 => Some((*atol, *rtol, why)),
            Want::Floats { why, .. } => Some((0.0, 0.0, why)),
            Want::Bits(_) => None,
        }
    }
}

/// Element types the references use.
pub trait El: Copy {
    const ELEM: Elem;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! el {
    ($t:ty, $e:ident) => {
        impl El for $t {
            const ELEM: Elem = Elem::$e;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
el!(i32, I32);
el!(u32, U32);
el!(i64, I64);
el!(u64, U64);
el!(f32, F32);

fn bytes<T: El>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::ELEM.size());
    for &x in v {
        x.put(&mut out);
    }
    out
}

fn input<T: El>(name: &'static str, v: &[T]) -> Arg {
    Arg::Buf { name, elem: T::ELEM, init: bytes(v), want: None }
}

/// An integer output: initial contents and the exact expected contents.
fn output<T: El>(name: &'static str, init: &[T], want: &[T]) -> Arg {
    Arg::Buf { name, elem: T::ELEM, init: bytes(init), want: Some(Want::Bits(bytes(want))) }
}

/// An f32 output starting as zeros, with its expected values and tolerance.
fn output_f32(name: &'static str, want: Vec<f64>, atol: f64, rtol: f64, why: &'static str) -> Arg {
    Arg::Buf { name, elem: Elem::F32, init: vec![0; want.len() * 4], want: Some(Want::Floats { values: want, atol, rtol, why }) }
}

fn val(name: &'static str, elem: Elem, value: impl ToString) -> Arg {
    Arg::Val { name, elem, value: value.to_string() }
}

/// `n` random integers in `[lo, hi]`.
fn ints(rng: &mut SplitMix64, n: usize, lo: i64, hi: i64) -> Vec<i32> {
    (0..n).map(|_| (lo + rng.below((hi - lo + 1) as u64) as i64) as i32).collect()
}

/// `n` random multiples of `1/den` in `[-lim, lim]`, as f32 (exact).
fn grid_floats(rng: &mut SplitMix64, n: usize, lim: i64, den: i64) -> Vec<f32> {
    ints(rng, n, -lim * den, lim * den).into_iter().map(|k| k as f32 / den as f32).collect()
}

pub fn geometry(_: &mut SplitMix64) -> Setup {
    let (grid, block) = ([80u32, 8, 1], [16u32, 4, 1]);
    let mut want = vec![0u32; (grid[0] * grid[1] * 8) as usize];
    for y in 0..grid[1] {
        for x in 0..grid[0] {
            let o = ((y * grid[0] + x) * 8) as usize;
            want[o..o + 8].copy_from_slice(&[
                block[0],
                block[1],
                grid[0] / block[0],
                grid[1] / block[1],
                block[0],
                block[1],
                grid[0],
                grid[1],
            ]);
        }
    }
    Setup {
        about: "A 2-D grid of 5x2 work-groups of 16x4: blockDim and gridDim from the implicit arguments, sizes from the dispatch packet.",
        grid,
        block,
        dynamic_lds: 0,
        args: vec![output("out", &vec![0u32; want.len()], &want), val("row_len", Elem::U32, grid[0])],
    }
}

pub fn block_sum(rng: &mut SplitMix64) -> Setup {
    let n = 2000usize;
    let input_v = ints(rng, n, -100_000, 100_000);
    let want: Vec<i64> = (0..8).map(|b| input_v.iter().skip(b * 256).take(256).map(|&v| v as i64).sum()).collect();
    Setup {
        about: "8 work-groups of 256 (the last partly past n): 64-bit tree sums in static shared memory.",
        grid: [2048, 1, 1],
        block: [256, 1, 1],
        dynamic_lds: 0,
        args: vec![input("in", &input_v), output("out", &[0i64; 8], &want), val("n", Elem::U32, n)],
    }
}

pub fn dyn_shared(rng: &mut SplitMix64) -> Setup {
    let (block, groups) = (128usize, 4usize);
    let x = grid_floats(rng, block * groups, 4, 1024);
    let want: Vec<f64> =
        (0..block * groups).map(|i| { let (b, t) = (i / block, i % block); x[b * block + block - 1 - t] as f64 * (b + 1) as f64 }).collect();
    Setup {
        about: "extern __shared__ sized by the launch (512 bytes): each group reverses its slice, scaled by group index + 1.",
        grid: [(block * groups) as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: (block * 4) as u32,
        args: vec![
            input("in", &x),
            output_f32("out", want, 0.0, 0.0, "exact: multiples of 1/1024 below 4 times an integer up to 4 are exact in f32"),
        ],
    }
}

pub fn shuffle(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    let x = ints(rng, n, -1000, 1000);
    let mut sum = vec![0i32; n];
    let mut scan = vec![0i32; n];
    for seg in 0..n / 32 {
        let s: i32 = x[seg * 32..seg * 32 + 32].iter().sum();
        let mut acc = 0;
        for l in 0..32 {
            acc += x[seg * 32 + l];
            sum[seg * 32 + l] = s;
            scan[seg * 32 + l] = acc;
        }
    }
    Setup {
        about: "ds_bpermute shuffles in 32-lane segments: xor-butterfly sums and shfl_up inclusive scans, the same in wave32 and wave64.",
        grid: [n as u32, 1, 1],
        block: [128, 1, 1],
        dynamic_lds: 0,
        args: vec![input("in", &x), output("sum", &vec![0i32; n], &sum), output("scan", &vec![0i32; n], &scan)],
    }
}

pub fn ballot(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    let mut x = ints(rng, n, -3, 3);
    // Some segments all positive and some all non-positive, so that `all` and `none` both happen.
    for seg in 0..n / 32 {
        for l in 0..32 {
            let v = &mut x[seg * 32 + l];
            match seg % 4 {
                1 => *v = v.abs() + 1,
                2 => *v = -v.abs(),
                _ => {}
            }
        }
    }
    let (mut count, mut rank, mut votes) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    for seg in 0..n / 32 {
        let p: Vec<bool> = x[seg * 32..seg * 32 + 32].iter().map(|&v| v > 0).collect();
        let c = p.iter().filter(|&&b| b).count() as u32;
        for l in 0..32 {
            let g = seg * 32 + l;
            count[g] = c;
            rank[g] = if p[l] { p[..l].iter().filter(|&&b| b).count() as u32 } else { u32::MAX };
            votes[g] = u32::from(c > 0) | u32::from(c == 32) << 1;
        }
    }
    let z = vec![0u32; n];
    Setup {
        about: "64-bit ballots read per 32-lane segment: counts, ranks (mbcnt-style) and any/all votes, the same in wave32 and wave64.",
        grid: [n as u32, 1, 1],
        block: [128, 1, 1],
        dynamic_lds: 0,
        args: vec![input("in", &x), output("count", &z, &count), output("rank", &z, &rank), output("votes", &z, &votes)],
    }
}

pub fn atomics(rng: &mut SplitMix64) -> Setup {
    let n = 1000usize;
    let x = ints(rng, n, -5000, 5000);
    let (mut hist, mut lhist) = (vec![0u32; 64], vec![0u32; 64]);
    let mut fsum = 0i64;
    for &v in &x {
        hist[(v & 63) as usize] += 1;
        lhist[((v >> 6) & 63) as usize] += 1;
        fsum += (v % 100) as i64;
    }
    let ext = [*x.iter().max().unwrap_or(&0), *x.iter().min().unwrap_or(&0)];
    Setup {
        about: "Global and shared-memory atomic histograms, atomic max/min, and a float sum by compare-and-swap.",
        grid: [1024, 1, 1],
        block: [256, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("in", &x),
            output("hist", &[0u32; 64], &hist),
            output("lhist", &[0u32; 64], &lhist),
            output("extremes", &[i32::MIN, i32::MAX], &ext),
            Arg::Buf {
                name: "fsum",
                elem: Elem::F32,
                init: bytes(&[0f32]),
                want: Some(Want::Floats {
                    values: vec![fsum as f64],
                    atol: 0.0,
                    rtol: 0.0,
                    why: "exact: integers whose partial sums stay below 2^24 add exactly in f32 in any order",
                }),
            },
            val("n", Elem::U32, n),
        ],
    }
}

fn mix(mut a: u32, mut b: u32, c: u32) -> u32 {
    a ^= b >> 3;
    b = b.wrapping_add(c.wrapping_mul(2_654_435_761));
    a.rotate_left(7).wrapping_add(b)
}

pub fn calls(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    let a: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let coef = ints(rng, 5, -20, 20);
    let (mut wide, mut pv) = (vec![0u64; n], vec![0i32; n]);
    for (g, &x) in a.iter().enumerate() {
        let b = g as u32 + 1;
        wide[g] = (x as u64).wrapping_mul(b as u64).wrapping_add(mix(x, b, x ^ b) as u64);
        let px = (x & 15) as i32 - 8;
        pv[g] = coef.iter().rev().fold(0i32, |r, &c| r.wrapping_mul(px).wrapping_add(c));
    }
    Setup {
        about: "noinline device functions: several arguments, a pointer argument, a 64-bit result.",
        grid: [n as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![input("a", &a), input("coef", &coef), output("wide", &vec![0u64; n], &wide), output("pv", &vec![0i32; n], &pv)],
    }
}

pub fn private_array(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    let a: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let (mut picked, mut summed) = (vec![0u32; n], vec![0u32; n]);
    for (g, &x) in a.iter().enumerate() {
        let k = (x >> 29) & 7;
        picked[g] = x.wrapping_mul(k + 1) ^ (x >> k);
        let local: Vec<u32> = (0..6u32).map(|i| (x & 0xffff) + i * i).collect();
        summed[g] = (0..6u32).fold(0u32, |s, i| s.wrapping_add(local[((i.wrapping_add(x)) % 6) as usize].wrapping_mul(i + 1)));
    }
    Setup {
        about: "A noinline function's private array indexed at run time, and a kernel's private array filled through a pointer.",
        grid: [n as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![input("a", &a), output("picked", &vec![0u32; n], &picked), output("summed", &vec![0u32; n], &summed)],
    }
}

pub fn mixed_shared(rng: &mut SplitMix64) -> Setup {
    let (block, groups) = (96usize, 3usize);
    let x: Vec<u32> = (0..block * groups).map(|_| rng.below(1 << 20) as u32).collect();
    let mut want = vec![0u32; x.len()];
    for b in 0..groups {
        let s = &x[b * block..(b + 1) * block];
        let mut hist = [0u32; 32];
        for &v in s {
            hist[(v & 31) as usize] += 1;
        }
        for t in 0..block {
            want[b * block + t] = s[(t + 5) % block] + 1000 * hist[(s[t] & 31) as usize];
        }
    }
    Setup {
        about: "Static shared memory (a histogram) and dynamic shared memory (384 bytes after it) in one kernel.",
        grid: [(block * groups) as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: (block * 4) as u32,
        args: vec![input("in", &x), output("out", &vec![0u32; x.len()], &want)],
    }
}

pub fn index64(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    let (stride, offset) = (-3i64, 770i64);
    let x: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let mut out = vec![0u64; 771];
    let mut quot = vec![0u64; 2 * n];
    for (g, &v) in x.iter().enumerate() {
        let g64 = g as u64;
        out[(g as i64 * stride + offset) as usize] = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (g64 << 33);
        quot[2 * g] = v / (g64 + 3);
        quot[2 * g + 1] = (v as i64).wrapping_rem(-((g64 + 7) as i64)) as u64;
    }
    Setup {
        about: "64-bit index math: a scatter with a negative 64-bit stride, 64-bit multiply, shift, unsigned division and signed remainder.",
        grid: [n as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("in", &x),
            output("out", &vec![0u64; out.len()], &out),
            output("quot", &vec![0u64; quot.len()], &quot),
            val("stride", Elem::I64, stride),
            val("offset", Elem::I64, offset),
        ],
    }
}

pub fn transpose(rng: &mut SplitMix64) -> Setup {
    let (rows, cols) = (40usize, 56usize);
    let x = grid_floats(rng, rows * cols, 8, 1024);
    let mut want = vec![0f64; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            want[c * rows + r] = x[r * cols + c] as f64;
        }
    }
    Setup {
        about: "A 40x56 transpose through padded 16x16 shared-memory tiles, edge tiles partly outside the matrix.",
        grid: [64, 48, 1],
        block: [16, 16, 1],
        dynamic_lds: 0,
        args: vec![
            input("in", &x),
            output_f32("out", want, 0.0, 0.0, "exact: a transpose moves values"),
            val("rows", Elem::U32, rows),
            val("cols", Elem::U32, cols),
        ],
    }
}

pub fn scan(rng: &mut SplitMix64) -> Setup {
    let (block, groups) = (256usize, 4usize);
    let x = ints(rng, block * groups, -1000, 1000);
    let mut want = vec![0i32; x.len()];
    for b in 0..groups {
        let mut acc = 0;
        for t in 0..block {
            acc += x[b * block + t];
            want[b * block + t] = acc;
        }
    }
    Setup {
        about: "Inclusive prefix sums of each 256-item group, double-buffered in static shared memory.",
        grid: [(block * groups) as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![input("in", &x), output("out", &vec![0i32; x.len()], &want)],
    }
}

pub fn softmax(rng: &mut SplitMix64) -> Setup {
    let (rows, cols) = (8usize, 200usize);
    let x = grid_floats(rng, rows * cols, 4, 1024);
    let mut want = vec![0f64; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for c in 0..cols {
            want[r * cols + c] = (row[c] as f64 - m).exp() / s;
        }
    }
    Setup {
        about: "Row softmax, 8 rows of 200: shuffle and shared-memory max and sum reductions, exp from the hardware.",
        grid: [64 * rows as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("x", &x),
            output_f32(
                "y",
                want,
                1e-9,
                4e-6,
                "exp is the hardware's exp2 with a range reduction (a few ulp), the row sum rounds in f32 in the kernel's order over 200 terms, and 1/sum is a division then a multiply",
            ),
            val("cols", Elem::U32, cols),
        ],
    }
}

/// The f16 bits of `v`, a value f16 holds exactly (zero or normal).
fn f16_bits(v: f64) -> u16 {
    if v == 0.0 {
        return if v.is_sign_negative() { 0x8000 } else { 0 };
    }
    let (sign, m) = (if v < 0.0 { 0x8000u16 } else { 0 }, v.abs());
    let e = m.log2().floor() as i32;
    let frac = m / 2f64.powi(e) - 1.0;
    let bits = frac * 1024.0;
    assert!(bits.fract() == 0.0 && (-14..=15).contains(&e), "{v} is not an f16 normal");
    sign | ((e + 15) as u16) << 10 | bits as u16
}

/// f16 `a` and `b` rounded as the kernel's f16 arithmetic leaves them: the inputs make every
/// result exact, which this checks.
fn exact16(v: f64) -> f64 {
    f16_bits(v);
    v
}

pub fn half2_math(rng: &mut SplitMix64) -> Setup {
    let n = 256usize;
    // Pairs of quarters in [-4, 4] (a zero is +0).
    let q = |rng: &mut SplitMix64| -> [f64; 2] { [0, 1].map(|_| (rng.below(33) as i64 - 16) as f64 / 4.0) };
    let (xs, ys, zs): (Vec<[f64; 2]>, Vec<[f64; 2]>, Vec<[f64; 2]>) = ((0..n).map(|_| q(rng)).collect(), (0..n).map(|_| q(rng)).collect(), (0..n).map(|_| q(rng)).collect());
    let word = |p: &[f64; 2]| f16_bits(p[0]) as u32 | (f16_bits(p[1]) as u32) << 16;
    let (xw, yw, zw): (Vec<u32>, Vec<u32>, Vec<u32>) = (xs.iter().map(word).collect(), ys.iter().map(word).collect(), zs.iter().map(word).collect());
    let mut want = vec![0f64; 10 * n];
    let mut iwant = vec![0i32; 2 * n];
    // minnum/maxnum of numbers (no NaNs here): -0 does not occur (quarters of integers give +0).
    for i in 0..n {
        let (a, b, c) = (xs[i], ys[i], zs[i]);
        let r0 = [0, 1].map(|h| exact16(a[h] * b[h] + c[h]));
        let r1 = [0, 1].map(|h| exact16(a[h].min(b[h]) * 0.5));
        let r2 = [0, 1].map(|h| exact16(r0[1 - h] - exact16(a[h] + b[h]).max(exact16(a[h] * c[h]))));
        let r3 = [0, 1].map(|h| exact16(-a[h] * b[h] + 1.0));
        for (k, r) in [r0, r1, r2, r3].iter().enumerate() {
            want[10 * i + 2 * k] = r[0];
            want[10 * i + 2 * k + 1] = r[1];
        }
        want[10 * i + 8] = exact16(a[0] * b[0] + a[1] * b[1]) + exact16(c[0] * c[1] + a[0]);
        want[10 * i + 9] = a[1].max(c[0]);
        // The same words as i16 pairs, wrapping.
        let halves = |w: u32| [w as u16 as i16, (w >> 16) as u16 as i16];
        let (ia, ib) = (halves(xw[i]), halves(yw[i]));
        let sum = [0, 1].map(|h| ia[h].wrapping_add(ib[h]));
        let mix = [0, 1].map(|h| (ia[h] >> 3).wrapping_mul(ib[h]).wrapping_sub(ia[h].max(ib[h])));
        let pack = |p: [i16; 2]| (p[0] as u16 as u32 | (p[1] as u16 as u32) << 16) as i32;
        iwant[2 * i] = pack(sum);
        iwant[2 * i + 1] = pack(mix);
    }
    Setup {
        about: "Packed half arithmetic (fma, add, mul, min/max with op_sel, negation and inline constants) and packed 16-bit integers, on exact quarters.",
        grid: [n as u32, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("x", &xw),
            input("y", &yw),
            input("z", &zw),
            output_f32("out", want, 0.0, 0.0, "every input is a quarter in [-4, 4], so each f16 result is exact"),
            output("iout", &vec![0i32; 2 * n], &iwant),
            val("n", Elem::U32, n),
        ],
    }
}

pub fn cl_local_args(rng: &mut SplitMix64) -> Setup {
    let (block, groups) = (256usize, 4usize);
    let x = ints(rng, block * groups, -1000, 1000);
    let mut want = vec![0i32; groups * 17];
    for b in 0..groups {
        let slice = &x[b * block..(b + 1) * block];
        want[b * 17] = slice.iter().sum();
        for &v in slice {
            want[b * 17 + 1 + (v & 15) as usize] += 1;
        }
    }
    Setup {
        about: "Two __local pointer arguments (1024 and 64 bytes): a tree sum in one, a local-atomic histogram in the other.",
        grid: [(block * groups) as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("in", &x),
            output("out", &vec![0i32; want.len()], &want),
            Arg::Local { name: "sums", bytes: (block * 4) as u32 },
            Arg::Local { name: "bins", bytes: 64 },
        ],
    }
}

pub fn cl_vec4(rng: &mut SplitMix64) -> Setup {
    // 250 work-items in groups of 64: the last group has 58 (get_local_size reads the remainder).
    let (block, n) = (64usize, 250usize);
    let groups = n.div_ceil(block);
    // Multiples of 1/64 in [-4, 4]: products are multiples of 2^-12 below 16 and sums of four
    // stay below 128, so every result is exact in f32.
    let a = grid_floats(rng, 4 * n, 4, 64);
    let b = grid_floats(rng, 4 * n, 4, 64);
    let mut c = vec![0f64; 4 * n];
    let mut dots = vec![0f64; n];
    for g in 0..n {
        let (grp, t) = (g / block, g % block);
        let size = block.min(n - grp * block);
        let nb = grp * block + (t + 1) % size;
        let (x, y) = (&a[4 * nb..4 * nb + 4], &b[4 * nb..4 * nb + 4]);
        let tile: Vec<f64> = (0..4).map(|k| x[k] as f64 * y[3 - k] as f64).collect();
        let extra = [groups as f64, size as f64, a[4 * g] as f64, b[4 * g + 1] as f64];
        for k in 0..4 {
            c[4 * g + k] = tile[k] + extra[k];
        }
        let p: Vec<f64> = (0..4).map(|k| a[4 * g + k] as f64 * b[4 * g + k] as f64).collect();
        dots[g] = (p[0] + p[1]) + (p[2] + p[3]);
    }
    let exact = "exact: multiples of 1/64 below 4; products, and sums of up to four of them, are exact in f32";
    Setup {
        about: "float4 arithmetic and swizzles, a static __local float4 tile, get_num_groups/get_local_size with a partial last group.",
        grid: [n as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![input("a", &a), input("b", &b), output_f32("c", c, 0.0, 0.0, exact), output_f32("dots", dots, 0.0, 0.0, exact)],
    }
}

pub fn cl_atomics(rng: &mut SplitMix64) -> Setup {
    let (block, groups) = (128usize, 4usize);
    let x = ints(rng, block * groups, -100_000, 100_000);
    let mut glob = [0i32, 0];
    let mut per = vec![0i32; groups * 4];
    for b in 0..groups {
        let s = &x[b * block..(b + 1) * block];
        per[b * 4] = s.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        per[b * 4 + 1] = *s.iter().min().unwrap_or(&i32::MAX);
        per[b * 4 + 2] = *s.iter().max().unwrap_or(&i32::MIN);
        per[b * 4 + 3] = s.iter().fold(0, |a, &v| a ^ v);
    }
    for &v in &x {
        glob[0] = glob[0].wrapping_add(v);
        glob[1] |= 1i32.wrapping_shl((v & 31) as u32);
    }
    Setup {
        about: "OpenCL 2.0 atomics on __local and __global memory, through a noinline helper taking a generic pointer.",
        grid: [(block * groups) as u32, 1, 1],
        block: [block as u32, 1, 1],
        dynamic_lds: 0,
        args: vec![input("in", &x), output("glob", &[0i32, 0], &glob), output("per_group", &vec![0i32; per.len()], &per)],
    }
}

pub fn llc_packet(rng: &mut SplitMix64) -> Setup {
    let n = 1000usize;
    let a = ints(rng, n, -1_000_000, 1_000_000);
    let b = ints(rng, n, -1_000_000, 1_000_000);
    let c: Vec<i32> = a.iter().zip(&b).map(|(&x, &y)| x.wrapping_mul(3).wrapping_sub(y)).collect();
    Setup {
        about: "A grid-stride loop (256 work-items over 1000 elements) stepping by the dispatch packet's grid size.",
        grid: [256, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            input("a", &a),
            input("b", &b),
            output("c", &vec![0i32; n], &c),
            output("geom", &[0u32; 3], &[64, 256, 4]),
            val("n", Elem::U32, n),
        ],
    }
}

pub fn llc_rows(rng: &mut SplitMix64) -> Setup {
    let (grid, block) = ([40u32, 8, 1], [16u32, 4, 1]);
    let (cols, rows) = (36usize, 8usize);
    let x = ints(rng, cols * rows, -1000, 1000);
    let mut want = vec![0i32; x.len()];
    for y in 0..rows {
        for c in 0..cols {
            want[y * cols + c] = x[y * cols + c] * block[1] as i32 + (y as u32 / block[1]) as i32 + (grid[0] / block[0]) as i32;
        }
    }
    Setup {
        about: "A 2-D launch whose last column of groups is partial and partly past the 36 columns: packet group sizes, group ids, gridDim.x.",
        grid,
        block,
        dynamic_lds: 0,
        args: vec![input("in", &x), output("out", &vec![0i32; want.len()], &want), val("cols", Elem::U32, cols)],
    }
}
