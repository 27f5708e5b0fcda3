//! Every dense WMMA shape, lowered onto MFMA (hx_raise::wmma_plan), must compute in the
//! emulator exactly what the gfx1250 original computes: one kernel per shape and modifier
//! variant (C in registers or an inline constant, C negated or absolute, A/B negated, iu8
//! signedness), run on one source wave (block 32: the other half of the wave64 absent) and on
//! two (block 64), with random bits (NaN, infinities, denormals) and with finite values of
//! spread magnitudes (where the order and precision of the sum decide the rounding). The target
//! assembly must hold the planned MFMA instruction, and the cross-lane lowering none.

use hotswap::isa::wmma::{Elem, Shape, SHAPES};
use hotswap::translate::{translate_code_object_to, Output};
use hotswap::{GpuTarget, Options, WmmaLowering};
use hx_emu::launch::{launch, Arg};

/// One kernel: the WMMA's extra operands.
#[derive(Clone, Copy, Debug)]
struct Variant {
    /// A and B negated (float A/B) or signed (iu8).
    a_flag: bool,
    b_flag: bool,
    /// The i16 matrix-C modifier: 1 neg, 2 abs.
    c_mod: u16,
    /// C an inline constant (1 in the C type) instead of registers.
    c_const: bool,
}

fn variants(s: &Shape) -> Vec<Variant> {
    let v = |a_flag, b_flag, c_mod, c_const| Variant { a_flag, b_flag, c_mod, c_const };
    match s.a {
        Elem::Iu8 => vec![v(true, true, 0, false), v(true, false, 0, false), v(false, true, 0, true), v(false, false, 0, false)],
        // LLVM sets neg_hi with neg_lo for 16-bit A/B, which neither raiser nor emulator model.
        Elem::F32 => vec![v(false, false, 0, false), v(true, false, 1, false), v(false, true, 2, false), v(false, false, 0, true)],
        _ => vec![v(false, false, 0, false), v(false, false, 1, false), v(false, false, 3, false), v(false, false, 0, true)],
    }
}

fn llvm_elem(e: Elem) -> &'static str {
    match e {
        Elem::F32 => "float",
        Elem::F16 => "half",
        Elem::BF16 => "bfloat",
        _ => "i32",
    }
}

/// (IR vector type, mangled suffix) of an A/B or C/D operand of `dwords` dwords.
fn vec_type(e: Elem, dwords: u32) -> (String, String) {
    let (n, short) = match e {
        Elem::F32 => (dwords, "f32"),
        Elem::F16 => (2 * dwords, "f16"),
        Elem::BF16 => (2 * dwords, "bf16"),
        _ => (dwords, "i32"),
    };
    (format!("<{n} x {}>", llvm_elem(e)), format!("v{n}{short}"))
}

/// A module with one kernel per variant of `s`, each lane loading its A, B and C registers
/// from its own slots of the buffers and storing D likewise.
fn module(s: &Shape) -> (String, usize) {
    let abn = s.ab_dwords() as u32;
    let dd = s.d_dwords() as u32;
    let (ab_ty, ab_suffix) = vec_type(s.a, abn);
    let (d_ty, d_suffix) = vec_type(s.d, dd);
    let parts: Vec<&str> = s.mnemonic.trim_start_matches("v_wmma_").split('_').collect();
    let name = format!("llvm.amdgcn.wmma.{}.{}.{}.{}", parts[0], parts[1..].join("."), d_suffix, ab_suffix);
    let one = match s.d {
        Elem::I32 => "1".to_string(),
        _ => "1.0".to_string(),
    };
    // D always has 8 elements per lane.
    let splat = format!("<{}>", vec![format!("{} {one}", llvm_elem(s.d)); 8].join(", "));
    let signature = match s.a {
        Elem::Fp8 | Elem::Bf8 => format!("({ab_ty}, {ab_ty}, i16, {d_ty}, i1, i1)"),
        Elem::Iu8 => format!("(i1, {ab_ty}, i1, {ab_ty}, {d_ty}, i1, i1)"),
        _ => format!("(i1, {ab_ty}, i1, {ab_ty}, i16, {d_ty}, i1, i1)"),
    };
    let mut ir = String::from("target triple = \"amdgcn-amd-amdhsa\"\n");
    let vs = variants(s);
    for (i, v) in vs.iter().enumerate() {
        let c = if v.c_const { splat.clone() } else { "%c".to_string() };
        let call = match s.a {
            Elem::Fp8 | Elem::Bf8 => format!("{ab_ty} %a, {ab_ty} %b, i16 {}, {d_ty} {c}, i1 false, i1 false", v.c_mod),
            Elem::Iu8 => format!("i1 {}, {ab_ty} %a, i1 {}, {ab_ty} %b, {d_ty} {c}, i1 false, i1 false", v.a_flag, v.b_flag),
            _ => format!("i1 {}, {ab_ty} %a, i1 {}, {ab_ty} %b, i16 {}, {d_ty} {c}, i1 false, i1 false", v.a_flag, v.b_flag, v.c_mod),
        };
        ir += &format!(
            "define amdgpu_kernel void @k{i}(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd) #0 {{
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %qa = getelementptr <{abn} x i32>, ptr addrspace(1) %pa, i32 %tid
  %ia = load <{abn} x i32>, ptr addrspace(1) %qa, align 4
  %a = bitcast <{abn} x i32> %ia to {ab_ty}
  %qb = getelementptr <{abn} x i32>, ptr addrspace(1) %pb, i32 %tid
  %ib = load <{abn} x i32>, ptr addrspace(1) %qb, align 4
  %b = bitcast <{abn} x i32> %ib to {ab_ty}
  %qc = getelementptr <{dd} x i32>, ptr addrspace(1) %pc, i32 %tid
  %ic = load <{dd} x i32>, ptr addrspace(1) %qc, align 4
  %c = bitcast <{dd} x i32> %ic to {d_ty}
  %d = call {d_ty} @{name}({call})
  %id = bitcast {d_ty} %d to <{dd} x i32>
  %qd = getelementptr <{dd} x i32>, ptr addrspace(1) %pd, i32 %tid
  store <{dd} x i32> %id, ptr addrspace(1) %qd, align 4
  ret void
}}
"
        );
    }
    ir += &format!(
        "declare i32 @llvm.amdgcn.workitem.id.x()
declare {d_ty} @{name}{signature}
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,64\" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}
"
    );
    (ir, vs.len())
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A finite element of `e` with its exponent field within `spread` of the bias (zeros and
/// denormals now and then), as bits.
fn finite(e: Elem, r: u64, spread: u64) -> u64 {
    let (ebits, mbits, bias): (u64, u64, u64) = match e {
        Elem::F32 => (8, 23, 127),
        Elem::F16 => (5, 10, 15),
        Elem::BF16 => (8, 7, 127),
        Elem::Fp8 => (4, 3, 7),
        Elem::Bf8 => (5, 2, 15),
        _ => return r,
    };
    let max_e = (1u64 << ebits) - 2; // no infinity or NaN exponent (E4M3's NaN is S.1111.111)
    let lo = bias.saturating_sub(spread).max(1);
    let hi = (bias + spread).min(max_e);
    let mut exp = lo + (r >> 40) % (hi - lo + 1);
    if (r >> 56) % 16 == 0 {
        exp = 0;
    }
    let mant = r & ((1 << mbits) - 1);
    let sign = (r >> 63) & 1;
    let bits = sign << (ebits + mbits) | exp << mbits | mant;
    if e == Elem::Fp8 && exp == 15 && mant == 7 {
        return bits & !1;
    }
    bits
}

/// A buffer of `dwords` dwords of elements of `e`: random bits, or finite values.
fn buffer(e: Elem, dwords: usize, seed: u64, finite_spread: Option<u64>) -> Vec<u8> {
    let mut state = seed;
    let bits = e.bits() as usize;
    let mut out = Vec::with_capacity(4 * dwords);
    for _ in 0..dwords {
        let mut dw = 0u32;
        for k in 0..32 / bits {
            let r = splitmix(&mut state);
            let v = match finite_spread {
                Some(s) => finite(e, r, s),
                None => r,
            };
            dw |= ((v as u32) & (((1u64 << bits) - 1) as u32)) << (k * bits);
        }
        out.extend_from_slice(&dw.to_le_bytes());
    }
    out
}

/// The bits of a float of `e` with sign `neg`, unbiased exponent `exp` (below the normal range:
/// a denormal) and mantissa bits `mant`.
fn float_bits(e: Elem, neg: bool, exp: i32, mant: u64) -> u64 {
    let (ebits, mbits, bias) = match e {
        Elem::F32 => (8, 23, 127),
        Elem::F16 => (5, 10, 15),
        Elem::BF16 => (8, 7, 127),
        Elem::Fp8 => (4, 3, 7),
        _ => (5, 2, 15),
    };
    let field = (exp + bias).max(0) as u64;
    let mant = mant & ((1 << mbits) - 1);
    (neg as u64) << (ebits + mbits) | field << mbits | mant
}

/// (largest, smallest) unbiased exponents used for the big and small values of `e`.
fn ranges(e: Elem) -> ((i32, i32), (i32, i32)) {
    match e {
        Elem::F32 | Elem::BF16 => ((38, 42), (-44, -38)),
        Elem::F16 => ((14, 15), (-16, -10)),
        Elem::Fp8 => ((7, 8), (-9, -5)),
        _ => ((14, 15), (-16, -12)),
    }
}

/// A and B in the WMMA lane layout (64 lanes, both waves) made of small values and a few pairs
/// of big products that cancel exactly (A[k+1] = -A[k], B[k+1] = B[k], the same k for every
/// row and column): summed in the emulator's order the pair cancels before the small terms
/// meet it; in another order the small terms are absorbed by a big partial sum and lost.
fn cancelling(s: &Shape, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut st = seed;
    let k = s.k as usize;
    let mut big_at = vec![false; k];
    let mut first = splitmix(&mut st) as usize % 3;
    while first + 1 < k {
        big_at[first] = true;
        first += 2 + splitmix(&mut st) as usize % (k / 4);
    }
    let mut matrix = |e: Elem, negate_second: bool| -> Vec<Vec<Vec<u64>>> {
        let ((blo, bhi), (slo, shi)) = ranges(e);
        let mut v = vec![vec![vec![0u64; k]; 16]; 2];
        for w in v.iter_mut() {
            for row in w.iter_mut() {
                let mut kk = 0;
                while kk < k {
                    let r = splitmix(&mut st);
                    let (lo, hi) = if big_at[kk] { (blo, bhi) } else { (slo, shi) };
                    let exp = lo + (r >> 32) as i32 % (hi - lo + 1);
                    row[kk] = float_bits(e, r >> 63 == 1, exp, r);
                    if big_at[kk] {
                        row[kk + 1] = row[kk] ^ if negate_second { 1 << (e.bits() - 1) } else { 0 };
                        kk += 1;
                    }
                    kk += 1;
                }
            }
        }
        v
    };
    let (a, b) = (matrix(s.a, true), matrix(s.b, false));
    let pack = |m: &Vec<Vec<Vec<u64>>>, e: Elem| -> Vec<u8> {
        let bits = e.bits() as usize;
        let mut out = Vec::new();
        for lane in 0..64 {
            let (w, i, h) = (lane / 32, lane % 16, lane % 32 / 16);
            let mut dws = vec![0u32; s.ab_dwords() as usize];
            for el in 0..k / 2 {
                let v = m[w][i][h * k / 2 + el] as u32 & ((1u64 << bits) - 1) as u32;
                dws[el * bits / 32] |= v << (el * bits % 32);
            }
            out.extend(dws.iter().flat_map(|d| d.to_le_bytes()));
        }
        out
    };
    (pack(&a, s.a), pack(&b, s.b))
}

/// One work-group of `lanes` work-items running `kernel`.
fn launch_one(co: &[u8], kernel: &str, lanes: u32, args: &[Arg]) -> hx_emu::launch::LaunchResult {
    let co = hotswap::codeobj::CodeObject::parse(co).unwrap();
    let d = hx_emu::Dispatch { grid: [lanes, 1, 1], block: [lanes, 1, 1], dynamic_lds: 0 };
    launch(&co, kernel, &d, args, &hx_emu::Limits::default()).unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

fn run(co: &[u8], kernel: &str, lanes: u32, args: &[Arg]) -> Vec<u8> {
    let r = launch_one(co, kernel, lanes, args);
    match &r.args[3] {
        Arg::Buffer(b) => b.clone(),
        a => panic!("{a:?}"),
    }
}

/// How many MFMAs a run of `kernel` on `lanes` work-items executes.
fn mfmas_run(co: &[u8], kernel: &str, lanes: u32, args: &[Arg]) -> u64 {
    launch_one(co, kernel, lanes, args)
        .stats.by_mnemonic.iter().filter(|(m, _)| m.starts_with("v_mfma")).map(|(_, n)| n).sum()
}

fn check_shape(s: &Shape) {
    let (ir, kernels) = module(s);
    let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object)
        .unwrap_or_else(|e| panic!("{}: {e}\n{ir}", s.mnemonic));
    let source = hx_relink::link(&obj).unwrap();
    // The same kernels bounded to 32 work-items: a target wave runs one source wave, and the
    // other wave's MFMA chain is left out.
    let one_wave_ir = ir.replace("\"amdgpu-flat-work-group-size\"=\"1,64\"", "\"amdgpu-flat-work-group-size\"=\"1,32\"");
    let one_wave = hx_relink::link(&hx_llvm::compile_ir(&one_wave_ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap()).unwrap();
    let abn = s.ab_dwords() as usize;
    let dd = s.d_dwords() as usize;
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let plan = hx_raise::wmma_plan::plan(s, target).unwrap_or_else(|| panic!("no plan for {} on {target:?}", s.mnemonic));
        let options = Options { target, wmma: WmmaLowering::Mfma, ..Default::default() };
        let asm = String::from_utf8(translate_code_object_to(&source, &options, Output::Assembly).unwrap()).unwrap();
        assert!(asm.contains(plan.mnemonic), "{} on {target:?}: no {} in the assembly", s.mnemonic, plan.mnemonic);
        let one_asm = String::from_utf8(translate_code_object_to(&one_wave, &options, Output::Assembly).unwrap()).unwrap();
        assert!(one_asm.contains("v_mfma"), "{} on {target:?}: no MFMA for one source wave", s.mnemonic);
        let cross = Options { wmma: WmmaLowering::CrossLane, ..options.clone() };
        let asm = String::from_utf8(translate_code_object_to(&source, &cross, Output::Assembly).unwrap()).unwrap();
        assert!(!asm.contains("v_mfma"), "{}: the cross-lane lowering used an MFMA", s.mnemonic);
        let translated = hotswap::translate(&source, &options).unwrap().bytes;
        let one_translated = hotswap::translate(&one_wave, &options).unwrap().bytes;
        let (two_wave_t, one_wave_t) = (translated.clone(), one_translated.clone());
        // Random bits, finite values of three spreads, cancelling big products (floats).
        // Seed 6 (floats): A +0, B and C -0: D is -0 only if every padding product is -0 too.
        for (seed, spread) in [(1u64, None), (2, Some(6)), (3, Some(20)), (4, Some(3)), (5, Some(3)), (6, None)] {
            for (source, translated, lanes) in [(&source, &translated, 32u32), (&source, &translated, 64), (&one_wave, &one_translated, 32)] {
                let float = s.d != Elem::I32;
                let negative_zeros = |e: Elem, dwords: usize| -> Vec<u8> {
                    let bits = e.bits();
                    let dw: u32 = (0..32 / bits).map(|i| 1u32 << (bits - 1) << (i * bits)).sum();
                    dw.to_le_bytes().repeat(dwords)
                };
                let (a, b) = match seed {
                    4 | 5 if float => cancelling(s, seed),
                    6 if float => (vec![0; 4 * 64 * abn], negative_zeros(s.b, 64 * abn)),
                    _ => (buffer(s.a, 64 * abn, seed * 7 + 1, spread), buffer(s.b, 64 * abn, seed * 7 + 2, spread)),
                };
                let c = if seed == 6 && float { negative_zeros(s.d, 64 * dd) } else { buffer(s.d, 64 * dd, seed * 7 + 3, spread) };
                let args = vec![Arg::Buffer(a), Arg::Buffer(b), Arg::Buffer(c), Arg::Buffer(vec![0xa5; 4 * 64 * dd])];
                for k in 0..kernels {
                    let kernel = format!("k{k}");
                    let want = run(source, &kernel, lanes, &args);
                    let got = run(translated, &kernel, lanes, &args);
                    // Bounded to one wave, the other wave's MFMA chain is left out: half the
                    // MFMAs run.
                    if seed == 1 && k == 0 && std::ptr::eq(source, &one_wave) {
                        let (one, two) = (mfmas_run(&one_wave_t, &kernel, 32, &args), mfmas_run(&two_wave_t, &kernel, 64, &args));
                        assert!(one > 0 && 2 * one == two, "{} on {target:?}: {one} MFMAs run for one source wave, {two} for two", s.mnemonic);
                    }
                    if let Some(at) = want.iter().zip(&got).position(|(x, y)| x != y) {
                        let dw = |v: &[u8]| u32::from_le_bytes(v[at / 4 * 4..at / 4 * 4 + 4].try_into().unwrap());
                        panic!(
                            "{} {kernel} ({:?}) on {target:?}, {lanes} lanes{}, seed {seed}: D differs at byte {at} (lane {}, dword {}): {:#010x} != {:#010x}",
                            s.mnemonic,
                            variants(s)[k],
                            if std::ptr::eq(source, &one_wave) { " (bounded to one wave)" } else { "" },
                            at / 4 / dd,
                            at / 4 % dd,
                            dw(&got),
                            dw(&want)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn f32_shape() {
    check_shape(hotswap::isa::wmma::by_mnemonic("v_wmma_f32_16x16x4_f32").unwrap());
}

#[test]
fn f16_and_bf16_shapes() {
    for s in SHAPES.iter().filter(|s| hx_raise::wmma_plan::has_plan(s) && matches!(s.a, Elem::F16 | Elem::BF16)) {
        check_shape(s);
    }
}

#[test]
fn fp8_and_bf8_shapes() {
    for s in SHAPES.iter().filter(|s| hx_raise::wmma_plan::has_plan(s) && matches!(s.a, Elem::Fp8 | Elem::Bf8)) {
        check_shape(s);
    }
}

#[test]
fn iu8_shape() {
    check_shape(hotswap::isa::wmma::by_mnemonic("v_wmma_i32_16x16x64_iu8").unwrap());
}

/// Runs every kernel of `ir` (buffers: `args` dwords each, all random bits or finite f16) on
/// the gfx1250 original and both MFMA translations, one and two source waves.
fn check_module(ir: &str, kernels: &[&str], args: usize) {
    check_module_with(ir, kernels, &|seed| {
        let spread = (seed > 1).then_some(4 * seed);
        (0..args).map(|i| Arg::Buffer(buffer(Elem::F16, 4096, seed * 31 + i as u64, spread))).collect()
    });
}

/// [`check_module`] with the buffers `bufs(seed)` for seeds 1 to 3.
fn check_module_with(ir: &str, kernels: &[&str], bufs: &dyn Fn(u64) -> Vec<Arg>) {
    let obj = hx_llvm::compile_ir(ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let source = hx_relink::link(&obj).unwrap();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let options = Options { target, wmma: WmmaLowering::Mfma, ..Default::default() };
        let translated = hotswap::translate(&source, &options).unwrap().bytes;
        for seed in 1..=3u64 {
            let bufs = bufs(seed);
            for lanes in [32u32, 64] {
                for k in kernels {
                    let co = |bytes: &[u8]| launch_one(bytes, k, lanes, &bufs).args;
                    let (want, got) = (co(&source), co(&translated));
                    for (i, (x, y)) in want.iter().zip(&got).enumerate() {
                        let (Arg::Buffer(x), Arg::Buffer(y)) = (x, y) else { continue };
                        let at = x.iter().zip(y).position(|(p, q)| p != q);
                        assert!(at.is_none(), "{k} on {target:?}, {lanes} lanes, seed {seed}: buffer {i} differs at byte {at:?}");
                    }
                }
            }
        }
    }
}

const F16_WMMA: &str = "declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1, <16 x half>, i1, <16 x half>, i16, <8 x float>, i1, i1)";

fn header(params: &str) -> String {
    format!(
        "target triple = \"amdgcn-amd-amdhsa\"
define amdgpu_kernel void @k({params}) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t = zext i32 %tid to i64
"
    )
}

const FOOTER: &str = "declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,64\" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}
";

/// One K step's A and B rows (16 f16 each) of this thread, loaded from %pa and %pb at row
/// `%i` (the loop counter) of 64 threads.
const K_STEP_LOADS: &str = "  %i64 = zext i32 %i to i64
  %row = mul i64 %i64, 64
  %idx = add i64 %row, %t
  %qa = getelementptr <8 x i32>, ptr addrspace(1) %pa, i64 %idx
  %a = load <16 x half>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <8 x i32>, ptr addrspace(1) %pb, i64 %idx
  %b = load <16 x half>, ptr addrspace(1) %qb, align 4
";

/// %n: a trip count (0-3) per source wave, word `tid / 32` of %pn made wave-uniform (%n1 the
/// whole word); the module then declares llvm.amdgcn.readfirstlane.i32.
const PER_WAVE_TRIP_COUNT: &str = "  %w = lshr i32 %tid, 5
  %w64 = zext i32 %w to i64
  %qn = getelementptr i32, ptr addrspace(1) %pn, i64 %w64
  %n0 = load i32, ptr addrspace(1) %qn, align 4
  %n1 = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %n0)
  %n = and i32 %n1, 3
";

/// `n` values %l0.. loaded (volatile) from buffer %`buf`, one row of 64 threads apart, to be
/// live across what follows ([`volatile_stores`] keeps them).
fn volatile_loads(n: usize, buf: &str) -> String {
    (0..n).map(|i| format!("  %lq{i} = getelementptr i32, ptr addrspace(1) %{buf}, i64 {}\n  %lx{i} = getelementptr i32, ptr addrspace(1) %lq{i}, i64 %t\n  %l{i} = load volatile i32, ptr addrspace(1) %lx{i}, align 4\n", 64 * i)).collect()
}

/// The values of [`volatile_loads`] stored (volatile) to buffer %`buf`.
fn volatile_stores(n: usize, buf: &str) -> String {
    (0..n).map(|i| format!("  %sq{i} = getelementptr i32, ptr addrspace(1) %{buf}, i64 {}\n  %sx{i} = getelementptr i32, ptr addrspace(1) %sq{i}, i64 %t\n  store volatile i32 %l{i}, ptr addrspace(1) %sx{i}, align 4\n", 64 * i)).collect()
}

/// [`check_module_with`] on `args` f16 buffers but the third (%pn), which holds the trip
/// counts of [`PER_WAVE_TRIP_COUNT`]: (wave 0, wave 1) = (1, 3), (2, 0), (3, 1) for seeds 1-3.
fn check_with_wave_counts(ir: &str, args: usize) {
    check_module_with(ir, &["k"], &|seed| {
        let spread = (seed > 1).then_some(4 * seed);
        let counts: Vec<u8> = [seed % 4, (seed + 2) % 4].iter().flat_map(|&n| (n as u32).to_le_bytes()).chain(std::iter::repeat_n(0, 4 * 4094)).collect();
        (0..args).map(|i| Arg::Buffer(if i == 2 { counts.clone() } else { buffer(Elem::F16, 4096, seed * 31 + i as u64, spread) })).collect()
    });
}

/// The two source waves of a wave64 take different branches, each to its own WMMA, with values
/// of both live across: each runs its MFMAs in whole-wave mode while the other half's lanes are
/// inactive, and must neither read nor clobber them.
#[test]
fn diverged_source_waves() {
    let mut ir = header("ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %pe, ptr addrspace(1) %pf");
    ir += "  %qa = getelementptr <8 x i32>, ptr addrspace(1) %pa, i64 %t
  %a = load <16 x half>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <8 x i32>, ptr addrspace(1) %pb, i64 %t
  %b = load <16 x half>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i64 %t
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
";
    ir += &volatile_loads(24, "pe");
    ir += "  %w0 = icmp ult i32 %tid, 32
  br i1 %w0, label %then, label %else
then:
  %d1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %b, i16 0, <8 x float> %c, i1 false, i1 false)
  br label %join
else:
  %d2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %b, i1 false, <16 x half> %a, i16 1, <8 x float> %c, i1 false, i1 false)
  br label %join
join:
  %d = phi <8 x float> [ %d1, %then ], [ %d2, %else ]
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  store <8 x float> %d, ptr addrspace(1) %qd, align 4
";
    ir += &volatile_stores(24, "pf");
    ir += &format!("  ret void\n}}\n{F16_WMMA}\n{FOOTER}");
    check_module(&ir, &["k"], 6);
}

/// A K loop (its trip count from memory) accumulating through a loop-carried C, and two WMMAs
/// sharing A.
/// The end of a K loop body over `%i` to `%n` (labels `loop`, `done`), storing the
/// accumulator `%acc` (this thread's 8 floats) at `%pd`.
fn k_loop_end(acc: &str) -> String {
    format!(
        "  %i1 = add i32 %i, 1
  %more = icmp ule i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  store <8 x float> %{acc}, ptr addrspace(1) %qd, align 4
  ret void
}}
"
    )
}

#[test]
fn accumulating_loop() {
    let mut ir = header("ptr addrspace(1) noalias readonly %pa, ptr addrspace(1) noalias readonly %pb, ptr addrspace(1) noalias readonly %pn, ptr addrspace(1) %pd");
    ir += "  %n0 = load i32, ptr addrspace(1) %pn, align 4
  %n = and i32 %n0, 3
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi <8 x float> [ zeroinitializer, %entry ], [ %acc2, %loop ]
";
    ir += K_STEP_LOADS;
    ir += "  %acc1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %b, i16 0, <8 x float> %acc, i1 false, i1 false)
  %acc2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %a, i16 0, <8 x float> %acc1, i1 false, i1 false)
";
    ir += &k_loop_end("acc2");
    ir += &format!("{F16_WMMA}\n{FOOTER}");
    check_module(&ir, &["k"], 4);
}

/// K loops whose trip count differs between the two source waves of a wave64 (each wave's
/// count uniform, from memory: an SCC loop in the source, a divergent one on the target), so
/// that one wave leaves the loop while the other goes on with half the lanes off; one wave may
/// skip the loop. gfx950 keeps the accumulators between the WMMAs and round the loop as lazy
/// chains (wmma_carry.rs), made from the registers on the loop's entry (one accumulator starts
/// from memory: D's own buffer read as floats, NaNs included) and written to them on its exit;
/// values live across the loop add register pressure.
#[test]
fn carried_accumulators_diverged_trip_counts() {
    let mut ir = header("ptr addrspace(1) noalias readonly %pa, ptr addrspace(1) noalias readonly %pb, ptr addrspace(1) noalias readonly %pn, ptr addrspace(1) %pd, ptr addrspace(1) %pe, ptr addrspace(1) %pf");
    ir += PER_WAVE_TRIP_COUNT;
    ir += &volatile_loads(16, "pe");
    ir += "  %qc = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %skip = icmp eq i32 %n, 0
  br i1 %skip, label %done, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi <8 x float> [ %c, %entry ], [ %acc3, %loop ]
  %acc_b = phi <8 x float> [ zeroinitializer, %entry ], [ %acc4, %loop ]
";
    ir += K_STEP_LOADS;
    ir += "  %acc1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %b, i16 0, <8 x float> %acc, i1 false, i1 false)
  %acc2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %b, i1 false, <16 x half> %b, i16 0, <8 x float> %acc_b, i1 false, i1 false)
  %acc3 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %b, i1 false, <16 x half> %a, i16 0, <8 x float> %acc1, i1 false, i1 false)
  %acc4 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %a, i16 0, <8 x float> %acc2, i1 false, i1 false)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %d = phi <8 x float> [ zeroinitializer, %entry ], [ %acc3, %loop ]
  %d_b = phi <8 x float> [ zeroinitializer, %entry ], [ %acc4, %loop ]
  %sum = fadd <8 x float> %d, %d_b
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  store <8 x float> %sum, ptr addrspace(1) %qd, align 4
";
    ir += &volatile_stores(16, "pf");
    ir += &format!("  ret void\n}}\n{F16_WMMA}\ndeclare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n{FOOTER}");
    check_with_wave_counts(&ir, 6);
}

/// A K loop whose body branches between its two WMMAs (on a per-wave value from memory, so
/// the two source waves of a wave64 may go different ways), the accumulator passing through
/// the arms untouched, starting from values in memory: on gfx950 the chain is made from the
/// registers before the loop, carried through the arms into the join's WMMA and round the
/// loop, and written to its registers after it.
#[test]
fn carried_accumulators_through_branches() {
    let mut ir = header("ptr addrspace(1) noalias readonly %pa, ptr addrspace(1) noalias readonly %pb, ptr addrspace(1) noalias readonly %pn, ptr addrspace(1) noalias %pd, ptr addrspace(1) noalias readonly %pc, ptr addrspace(1) %pe");
    ir += PER_WAVE_TRIP_COUNT;
    ir += "  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i64 %t
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %qe = getelementptr i32, ptr addrspace(1) %pe, i64 %t
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %join ]
  %acc = phi <8 x float> [ %c, %entry ], [ %acc3, %join ]
";
    ir += K_STEP_LOADS;
    ir += "  %acc1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %b, i16 0, <8 x float> %acc, i1 false, i1 false)
  %bit = shl i32 1, %i
  %sel = and i32 %n1, %bit
  %odd = icmp ne i32 %sel, 0
  br i1 %odd, label %left, label %right
left:
  store volatile i32 %i, ptr addrspace(1) %qe, align 4
  br label %join
right:
  %old = load volatile i32, ptr addrspace(1) %qe, align 4
  %new = add i32 %old, 7
  store volatile i32 %new, ptr addrspace(1) %qe, align 4
  br label %join
join:
  %acc3 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %b, i1 false, <16 x half> %a, i16 0, <8 x float> %acc1, i1 false, i1 false)
";
    ir += &k_loop_end("acc3");
    ir += &format!("{F16_WMMA}\ndeclare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n{FOOTER}");
    // Per wave (count, arm bits): seed 1 (1, 1) and (3, 3), seed 2 (2, 2) and (0, 0), seed 3
    // (3, 3) and (1, 1); the arm bits are the count's.
    check_with_wave_counts(&ir, 6);
}

/// v_wmma_f32_16x16x128_f8f6f4 with A and B of one width from the format fields (fp4, fp8,
/// bf8 with fp8): on both targets the f64 MFMA path (K = 128, 32 steps per wave), against the
/// gfx1250 original on one and two source waves, C in registers (plain and negated) or an
/// inline constant; random bits (fp8 NaNs included) and finite values of a few spreads.
#[test]
fn f8f6f4_fp4_and_fp8_shapes() {
    // (format code of A, of B, element types): 0 fp8, 1 bf8, 4 fp4.
    for (fa, fb, ta, tb) in [(4u32, 4u32, Elem::Fp4, Elem::Fp4), (0, 0, Elem::Fp8, Elem::Fp8), (1, 0, Elem::Bf8, Elem::Fp8)] {
        let abn = 16 * 128 * ta.bits() / 1024;
        let name = format!("llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{abn}i32.v{abn}i32");
        let mut ir = String::from("target triple = \"amdgcn-amd-amdhsa\"\n");
        let kernels = [("%c", 0u16), ("%c", 1), ("<float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0>", 0)];
        for (i, (c, cmod)) in kernels.iter().enumerate() {
            ir += &format!(
                "define amdgpu_kernel void @k{i}(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd) #0 {{
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %qa = getelementptr <{abn} x i32>, ptr addrspace(1) %pa, i32 %tid
  %a = load <{abn} x i32>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <{abn} x i32>, ptr addrspace(1) %pb, i32 %tid
  %b = load <{abn} x i32>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i32 %tid
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %d = call <8 x float> @{name}(i32 {fa}, <{abn} x i32> %a, i32 {fb}, <{abn} x i32> %b, i16 {cmod}, <8 x float> {c})
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i32 %tid
  store <8 x float> %d, ptr addrspace(1) %qd, align 4
  ret void
}}
"
            );
        }
        ir += &format!(
            "declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @{name}(i32 immarg, <{abn} x i32>, i32 immarg, <{abn} x i32>, i16 immarg, <8 x float>)
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,64\" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}
"
        );
        let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap_or_else(|e| panic!("{ta:?}: {e}\n{ir}"));
        let source = hx_relink::link(&obj).unwrap();
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = Options { target, wmma: WmmaLowering::Mfma, ..Default::default() };
            let asm = String::from_utf8(translate_code_object_to(&source, &options, Output::Assembly).unwrap()).unwrap();
            assert!(asm.contains("v_mfma_f64_16x16x4_f64"), "{ta:?}x{tb:?} on {target:?}: not the f64 MFMA path");
            let translated = hotswap::translate(&source, &options).unwrap().bytes;
            for (seed, spread) in [(1u64, None), (2, Some(3)), (3, Some(6))] {
                let a = buffer(ta, 64 * abn as usize, seed * 7 + 1, spread);
                let b = buffer(tb, 64 * abn as usize, seed * 7 + 2, spread);
                let c = buffer(Elem::F32, 64 * 8, seed * 7 + 3, spread.map(|s| s * 2));
                let args = vec![Arg::Buffer(a), Arg::Buffer(b), Arg::Buffer(c), Arg::Buffer(vec![0xa5; 4 * 64 * 8])];
                for lanes in [32u32, 64] {
                    for k in 0..kernels.len() {
                        let kernel = format!("k{k}");
                        let (want, got) = (run(&source, &kernel, lanes, &args), run(&translated, &kernel, lanes, &args));
                        let at = want.chunks(4).zip(got.chunks(4)).position(|(x, y)| x != y);
                        assert!(at.is_none(), "{ta:?}x{tb:?} {kernel} on {target:?}, {lanes} lanes, seed {seed}: D differs at dword {at:?}");
                    }
                }
            }
        }
    }
}

/// A 16-bit result rounds once, from the exact sum: every D element of this f16 WMMA is
/// 1 + 2^-11 + 31 * 2^-36 (C = 1, one product 2^-12 * 2, 31 products 2^-12 * 2^-24), just above
/// the midpoint of 1 and 1 + 2^-10, so 0x3c01. Rounding through f32 to nearest would land on the
/// midpoint and then on 1.0 (0x3c00); the translation rounds to odd in f32 first.
#[test]
fn f16_results_round_once() {
    let mut ir = header("ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd");
    ir += "  %qa = getelementptr <8 x i32>, ptr addrspace(1) %pa, i64 %t
  %a = load <16 x half>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <8 x i32>, ptr addrspace(1) %pb, i64 %t
  %b = load <16 x half>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <4 x i32>, ptr addrspace(1) %pc, i64 %t
  %c = load <8 x half>, ptr addrspace(1) %qc, align 4
  %d = call <8 x half> @llvm.amdgcn.wmma.f16.16x16x32.f16.v8f16.v16f16(i1 false, <16 x half> %a, i1 false, <16 x half> %b, i16 0, <8 x half> %c, i1 false, i1 false)
  %qd = getelementptr <4 x i32>, ptr addrspace(1) %pd, i64 %t
  store <8 x half> %d, ptr addrspace(1) %qd, align 4
  ret void
}
declare <8 x half> @llvm.amdgcn.wmma.f16.16x16x32.f16.v8f16.v16f16(i1, <16 x half>, i1, <16 x half>, i16, <8 x half>, i1, i1)
";
    ir += FOOTER;
    let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let source = hx_relink::link(&obj).unwrap();
    // A: 2^-12 everywhere. B: column j's k = 0 (lane j of each wave, low half of dword 0) is 2,
    // every other element 2^-24 (the smallest f16 denormal). C: 1.0.
    let a = 0x0c00_0c00u32.to_le_bytes().repeat(64 * 8);
    let mut b = Vec::new();
    for lane in 0..64 {
        for dw in 0..8 {
            b.extend_from_slice(&(if lane % 32 < 16 && dw == 0 { 0x0001_4000u32 } else { 0x0001_0001 }).to_le_bytes());
        }
    }
    let c = 0x3c00_3c00u32.to_le_bytes().repeat(64 * 4);
    let args = vec![Arg::Buffer(a), Arg::Buffer(b), Arg::Buffer(c), Arg::Buffer(vec![0xa5; 4 * 64 * 4])];
    for lanes in [32u32, 64] {
        let want = run(&source, "k", lanes, &args);
        let ran = &want[..lanes as usize * 16];
        assert!(ran.chunks(2).all(|h| h == [0x01, 0x3c]), "the emulator's gfx1250 WMMA: {ran:02x?}");
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = Options { target, wmma: WmmaLowering::Mfma, ..Default::default() };
            let got = run(&hotswap::translate(&source, &options).unwrap().bytes, "k", lanes, &args);
            let at = got.iter().zip(&want).position(|(x, y)| x != y);
            assert!(at.is_none(), "{target:?}, {lanes} lanes: D differs from byte {at:?}: {:02x?}", &got[at.unwrap_or(0) / 2 * 2..][..2]);
        }
    }
}

/// Chained WMMAs (C is the previous D, in the same registers) take the previous D in its MFMA
/// layout: a plain f32 chain, one with C negated, one where an instruction writes into D
/// between the two (the chain must be dropped there), and f16 ones on the f64 path (gfx942) and
/// gfx950's own MFMA, against the gfx1250 original.
#[test]
fn chained_wmmas() {
    const F32: &str = "llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32";
    let mut ir = header("ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %pe, ptr addrspace(1) %pf");
    ir += &format!(
        "  %qa = getelementptr <2 x float>, ptr addrspace(1) %pa, i64 %t
  %a = load <2 x float>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <2 x float>, ptr addrspace(1) %pb, i64 %t
  %b = load <2 x float>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i64 %t
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %d1 = call <8 x float> @{F32}(i1 false, <2 x float> %a, i1 false, <2 x float> %b, i16 0, <8 x float> %c, i1 false, i1 false)
  %d2 = call <8 x float> @{F32}(i1 false, <2 x float> %b, i1 false, <2 x float> %a, i16 0, <8 x float> %d1, i1 false, i1 false)
  %d3 = call <8 x float> @{F32}(i1 false, <2 x float> %a, i1 false, <2 x float> %a, i16 1, <8 x float> %d2, i1 false, i1 false)
  %e = extractelement <8 x float> %d3, i64 2
  %e1 = fadd float %e, 1.0
  %d3x = insertelement <8 x float> %d3, float %e1, i64 2
  %d4 = call <8 x float> @{F32}(i1 false, <2 x float> %b, i1 false, <2 x float> %b, i16 0, <8 x float> %d3x, i1 false, i1 false)
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  store <8 x float> %d4, ptr addrspace(1) %qd, align 4
  %qe = getelementptr <16 x half>, ptr addrspace(1) %pe, i64 %t
  %h = load <16 x half>, ptr addrspace(1) %qe, align 4
  %g1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %h, i1 false, <16 x half> %h, i16 0, <8 x float> %c, i1 false, i1 false)
  %g2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %h, i1 false, <16 x half> %h, i16 1, <8 x float> %g1, i1 false, i1 false)
  %qf = getelementptr <8 x float>, ptr addrspace(1) %pf, i64 %t
  store <8 x float> %g2, ptr addrspace(1) %qf, align 4
  ret void
}}
declare <8 x float> @{F32}(i1, <2 x float>, i1, <2 x float>, i16, <8 x float>, i1, i1)
{F16_WMMA}
{FOOTER}"
    );
    // Finite f32 A, B and C of a few binades (adding 1.0 to D shows), f16 for the f64 path.
    let bufs = |seed: u64| -> Vec<Arg> {
        let f = |i: u64, e: Elem| Arg::Buffer(buffer(e, 1024, seed * 31 + i, Some(3)));
        vec![f(0, Elem::F32), f(1, Elem::F32), f(2, Elem::F32), Arg::Buffer(vec![0; 4096]), f(4, Elem::F16), Arg::Buffer(vec![0; 4096])]
    };
    check_module_with(&ir, &["k"], &bufs);
}

/// Scale bytes for [`f8f6f4_scaled_shapes`]: seed 1 random (0xff, NaN, now and then), 2 any
/// finite scale (blocks whose products differ by up to 2^508), 3 near 2^0 with a NaN now and
/// then, 4 the extremes 2^-127 and 2^127.
fn scale_buffer(seed: u64, dwords: usize) -> Vec<u8> {
    let mut state = seed * 977;
    (0..4 * dwords)
        .map(|n| {
            let r = splitmix(&mut state);
            match seed {
                1 => r as u8,
                2 => (r % 255) as u8,
                3 if r % 97 == 0 => 0xff,
                3 => (125 + r % 5) as u8,
                _ => if (n + (r as usize & 1)) % 2 == 0 { 0 } else { 254 },
            }
        })
        .collect()
}

/// A, B and their scales (64 lanes) where the order of the f64 sum decides the result: in every
/// row, A's k = 0 and k = 16 are x and -x (B's the same y in both), A's other k of block 0 are
/// zeros, and block 0's A scale is 2^127 (the others' 2^0): summed in the emulator's order (of
/// k) the big pair cancels before any small term; in A's register order (k 0..15, 32..47,
/// 64..79, 96..111, then 16..31, ...) it would meet half the small terms between its two
/// products and absorb them.
fn scaled_cancelling(ta: Elem, tb: Elem, abn: usize, bbn: usize, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut a = buffer(ta, 64 * abn, seed * 7 + 1, Some(2));
    let mut b = buffer(tb, 64 * bbn, seed * 7 + 2, Some(2));
    // Set element k of lane half h's row/column `i` (both waves).
    let put = |buf: &mut Vec<u8>, e_ty: Elem, dwords: usize, k: usize, f: &dyn Fn(u32) -> u32| {
        let bits = e_ty.bits() as usize;
        let chunk = 128 / bits;
        let (h, e) = (k % (2 * chunk) / chunk, k / (2 * chunk) * chunk + k % chunk);
        for lane in (0..64).filter(|l| l / 16 % 2 == h) {
            let at = 4 * (lane * dwords + e * bits / 32);
            let mut dw = u32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
            let shift = e * bits % 32;
            let mask = ((1u64 << bits) - 1) as u32;
            let v = f((dw >> shift) & mask) & mask;
            dw = dw & !(mask << shift) | v << shift;
            buf[at..at + 4].copy_from_slice(&dw.to_le_bytes());
        }
    };
    let sign = |e: Elem| 1u32 << (e.bits() - 1);
    for k in (1..32).filter(|&k| k != 16) {
        put(&mut a, ta, abn, k, &|_| 0);
    }
    // x at k = 0 (made nonzero), -x at k = 16; B's k = 16 is its k = 0.
    let x = {
        let bits = ta.bits() as usize;
        u32::from_le_bytes(a[0..4].try_into().unwrap()) & ((1u64 << bits) - 1) as u32 | 1
    };
    put(&mut a, ta, abn, 0, &|_| x);
    put(&mut a, ta, abn, 16, &|_| x ^ sign(ta));
    let y = {
        let bits = tb.bits() as usize;
        u32::from_le_bytes(b[0..4].try_into().unwrap()) & ((1u64 << bits) - 1) as u32 | 1
    };
    put(&mut b, tb, bbn, 0, &|_| y);
    put(&mut b, tb, bbn, 16, &|_| y);
    let sa = [254u8, 127, 127, 127].repeat(64);
    let sb = [127u8; 4].repeat(64);
    (a, b, sa, sb)
}

/// v_wmma_scale_f32_16x16x128_f8f6f4 (E8M0 scales, ROW0/ROW1 scale lanes, A and B of one or
/// two widths) and the unscaled f8f6f4 with A and B of different widths: on gfx942 the f64 MFMA
/// path, on gfx950 the 16x16x128 f8f6f4 MFMA (scaled where the WMMA is), against the gfx1250 original on one and two source waves, with random bits
/// and finite values, scales random, extreme (2^-127 and 2^127) and NaN (0xff), and data where
/// the order of the f64 sum decides the result ([`scaled_cancelling`]); C in registers (plain, negated) or an
/// inline constant; scales per lane (VGPRs) or one for every lane (a scalar load).
#[test]
fn f8f6f4_scaled_shapes() {
    // (format code of A, of B, element types): 0 fp8, 1 bf8, 4 fp4.
    let cases = [(0u32, 0u32, Elem::Fp8, Elem::Fp8), (4, 4, Elem::Fp4, Elem::Fp4), (1, 4, Elem::Bf8, Elem::Fp4), (4, 0, Elem::Fp4, Elem::Fp8), (1, 1, Elem::Bf8, Elem::Bf8)];
    for (fa, fb, ta, tb) in cases {
        let (abn, bbn) = (16 * 128 * ta.bits() / 1024, 16 * 128 * tb.bits() / 1024);
        let scaled = format!("llvm.amdgcn.wmma.scale.f32.16x16x128.f8f6f4.v8f32.v{abn}i32.v{bbn}i32");
        let plain = format!("llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{abn}i32.v{bbn}i32");
        let one = "<float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0, float 1.0>";
        // (C, C modifier, A scale row, B scale row, scales per lane, scaled)
        let kernels = [("%c", 0u16, 0u32, 0u32, true, true), ("%c", 1, 1, 0, true, true), (one, 0, 0, 1, true, true), ("%c", 0, 1, 1, false, true), ("%c", 0, 0, 0, true, false)];
        let mut ir = String::from("target triple = \"amdgcn-amd-amdhsa\"\n");
        for (n, (c, cmod, ra, rb, per_lane, with_scale)) in kernels.iter().enumerate() {
            let idx = if *per_lane { "%tid" } else { "0" };
            let call = if *with_scale {
                format!("@{scaled}(i32 {fa}, <{abn} x i32> %a, i32 {fb}, <{bbn} x i32> %b, i16 {cmod}, <8 x float> {c}, i32 {ra}, i32 0, i32 %sa, i32 {rb}, i32 0, i32 %sb, i1 false, i1 false)")
            } else {
                format!("@{plain}(i32 {fa}, <{abn} x i32> %a, i32 {fb}, <{bbn} x i32> %b, i16 {cmod}, <8 x float> {c})")
            };
            ir += &format!(
                "define amdgpu_kernel void @k{n}(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %psa, ptr addrspace(1) %psb) #0 {{
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %qa = getelementptr <{abn} x i32>, ptr addrspace(1) %pa, i32 %tid
  %a = load <{abn} x i32>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <{bbn} x i32>, ptr addrspace(1) %pb, i32 %tid
  %b = load <{bbn} x i32>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i32 %tid
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %qsa = getelementptr i32, ptr addrspace(1) %psa, i32 {idx}
  %sa = load i32, ptr addrspace(1) %qsa, align 4
  %qsb = getelementptr i32, ptr addrspace(1) %psb, i32 {idx}
  %sb = load i32, ptr addrspace(1) %qsb, align 4
  %d = call <8 x float> {call}
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i32 %tid
  store <8 x float> %d, ptr addrspace(1) %qd, align 4
  ret void
}}
"
            );
        }
        ir += &format!(
            "declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @{scaled}(i32 immarg, <{abn} x i32>, i32 immarg, <{bbn} x i32>, i16 immarg, <8 x float>, i32 immarg, i32 immarg, i32, i32 immarg, i32 immarg, i32, i1 immarg, i1 immarg)
declare <8 x float> @{plain}(i32 immarg, <{abn} x i32>, i32 immarg, <{bbn} x i32>, i16 immarg, <8 x float>)
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,64\" }}
!llvm.module.flags = !{{!0}}
!0 = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}
"
        );
        let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap_or_else(|e| panic!("{ta:?}x{tb:?}: {e}\n{ir}"));
        let source = hx_relink::link(&obj).unwrap();
        let source_asm = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Assembly).unwrap();
        let source_asm = String::from_utf8_lossy(&source_asm);
        assert!(source_asm.matches("v_wmma_scale_f32_16x16x128_f8f6f4").count() >= 4, "{ta:?}x{tb:?}: the source has no scaled WMMA\n{source_asm}");
        for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
            let options = Options { target, wmma: WmmaLowering::Mfma, ..Default::default() };
            let asm = String::from_utf8(translate_code_object_to(&source, &options, Output::Assembly).unwrap()).unwrap();
            // gfx942: the f64 path; gfx950: its 16x16x128 f8f6f4 MFMA (scaled for the scaled
            // WMMAs), in the k-order layout wherever the emulator sums by k (all but the unscaled
            // kernel of one width, which keeps the f64 path).
            if target == GpuTarget::Gfx942 {
                assert!(asm.matches("v_mfma_f64_16x16x4_f64").count() >= kernels.len(), "{ta:?}x{tb:?} on {target:?}: not the f64 MFMA path");
            } else {
                let scaled_mfmas = asm.matches("v_mfma_scale_f32_16x16x128_f8f6f4").count();
                let plain = if ta == tb { "v_mfma_f64_16x16x4_f64" } else { "v_mfma_f32_16x16x128_f8f6f4" };
                assert!(scaled_mfmas == 2 * (kernels.len() - 1) && asm.contains(plain), "{ta:?}x{tb:?} on gfx950: {scaled_mfmas} scaled MFMAs\n{asm}");
            }
            let translated = hotswap::translate(&source, &options).unwrap().bytes;
            for (seed, spread) in [(1u64, None), (2, Some(3)), (3, Some(6)), (4, Some(2)), (5, Some(2))] {
                let (a, b, sa, sb) = if seed == 5 {
                    scaled_cancelling(ta, tb, abn as usize, bbn as usize, seed)
                } else {
                    let a = buffer(ta, 64 * abn as usize, seed * 7 + 1, spread);
                    let b = buffer(tb, 64 * bbn as usize, seed * 7 + 2, spread);
                    (a, b, scale_buffer(seed, 64), scale_buffer(seed + 10, 64))
                };
                let c = buffer(Elem::F32, 64 * 8, seed * 7 + 3, spread.map(|s| s * 2));
                let args = vec![Arg::Buffer(a), Arg::Buffer(b), Arg::Buffer(c), Arg::Buffer(vec![0xa5; 4 * 64 * 8]), Arg::Buffer(sa), Arg::Buffer(sb)];
                for lanes in [32u32, 64] {
                    for k in 0..kernels.len() {
                        let kernel = format!("k{k}");
                        let (want, got) = (run(&source, &kernel, lanes, &args), run(&translated, &kernel, lanes, &args));
                        let at = want.chunks(4).zip(got.chunks(4)).position(|(x, y)| x != y);
                        let nans = want.chunks(4).filter(|x| f32::from_le_bytes([x[0], x[1], x[2], x[3]]).is_nan()).count();
                        assert!(at.is_none(), "{ta:?}x{tb:?} {kernel} on {target:?}, {lanes} lanes, seed {seed}: D differs at dword {at:?} ({nans} NaNs expected)");
                        // Seeds 2, 4 and 5 (finite values and scales): no NaN at all.
                        assert!(!matches!(seed, 2 | 4 | 5) || nans == 0, "{ta:?}x{tb:?} {kernel} seed {seed}: {nans} NaNs");
                    }
                }
            }
        }
    }
}

/// A kernel of more than hx_raise::MANY_WMMAS WMMAs (a chain of f16 WMMAs, A and B swapping
/// places) keeps the f64 path's k loop for 16-bit elements (gfx942: no ds_swizzle, the fetch of
/// the unrolled form), and computes what the gfx1250 original computes, bit for bit.
#[test]
fn many_wmmas_keep_the_k_loop() {
    let n = hx_raise::MANY_WMMAS + 2;
    let mut body = String::new();
    for i in 0..n {
        let (x, y) = if i % 2 == 0 { ("%a", "%b") } else { ("%b", "%a") };
        body += &format!(
            "  %d{} = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> {x}, i1 false, <16 x half> {y}, i16 0, <8 x float> %d{i}, i1 false, i1 false)\n",
            i + 1
        );
    }
    let ir = format!(
        "target triple = \"amdgcn-amd-amdhsa\"
define amdgpu_kernel void @many(ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd) #0 {{
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %qa = getelementptr <16 x half>, ptr addrspace(1) %pa, i32 %tid
  %a = load <16 x half>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <16 x half>, ptr addrspace(1) %pb, i32 %tid
  %b = load <16 x half>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i32 %tid
  %d0 = load <8 x float>, ptr addrspace(1) %qc, align 4
{body}  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i32 %tid
  store <8 x float> %d{n}, ptr addrspace(1) %qd, align 4
  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1, <16 x half>, i1, <16 x half>, i16, <8 x float>, i1, i1)
attributes #0 = {{ \"amdgpu-flat-work-group-size\"=\"1,64\" }}
"
    );
    let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Object).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let source = hx_relink::link(&obj).unwrap();
    let options = Options { target: GpuTarget::Gfx942, wmma: WmmaLowering::Mfma, ..Default::default() };
    let asm = String::from_utf8(translate_code_object_to(&source, &options, Output::Assembly).unwrap()).unwrap();
    assert!(asm.matches("v_mfma_f64_16x16x4_f64").count() > 0, "no f64 MFMA");
    assert!(!asm.contains("ds_swizzle"), "the unrolled form in a kernel of {n} WMMAs");
    // Seeds 1-2: cancelling big products (`cancelling`: a change in the k order of a step
    // shows); seed 3: f16 of every normal exponent.
    let f16_shape = hotswap::isa::wmma::by_mnemonic("v_wmma_f32_16x16x32_f16").unwrap();
    check_module_with(&ir, &["many"], &|seed| {
        let (a, b) = if seed < 3 { cancelling(f16_shape, seed + 3) } else { (buffer(Elem::F16, 4096, 93, Some(15)), buffer(Elem::F16, 4096, 94, Some(15))) };
        let mut bufs = vec![Arg::Buffer(a), Arg::Buffer(b)];
        bufs.push(Arg::Buffer(buffer(Elem::F32, 4096, seed * 31 + 2, Some(10))));
        bufs.push(Arg::Buffer(vec![0; 4 * 4096]));
        bufs
    });
}

/// WMMAs of one block share the whole-wave copies and lane swaps of the registers they read
/// (hx-raise `shared_operand`), so a register rewritten between two of them must be read
/// again: A rewritten in place by an ordinary instruction (`v_xor_b32` on its own
/// registers), and B taken from the registers of an earlier WMMA's D. The gfx1250 build must
/// show both (else the test proves nothing), and every translation must compute what it does.
#[test]
fn rewritten_operands_are_read_again() {
    const F32: &str = "llvm.amdgcn.wmma.f32.16x16x4.f32.v8f32.v2f32";
    let mut ir = header("ptr addrspace(1) %pa, ptr addrspace(1) %pb, ptr addrspace(1) %pc, ptr addrspace(1) %pd, ptr addrspace(1) %pe, ptr addrspace(1) %pf");
    ir += &format!(
        "  %qa = getelementptr <16 x half>, ptr addrspace(1) %pa, i64 %t
  %h = load <16 x half>, ptr addrspace(1) %qa, align 4
  %qb = getelementptr <16 x half>, ptr addrspace(1) %pb, i64 %t
  %g = load <16 x half>, ptr addrspace(1) %qb, align 4
  %qc = getelementptr <8 x float>, ptr addrspace(1) %pc, i64 %t
  %c = load <8 x float>, ptr addrspace(1) %qc, align 4
  %g1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %h, i1 false, <16 x half> %g, i16 0, <8 x float> %c, i1 false, i1 false)
  %hi = bitcast <16 x half> %h to <8 x i32>
  %hx = xor <8 x i32> %hi, splat (i32 1)
  %h2 = bitcast <8 x i32> %hx to <16 x half>
  %g2 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16(i1 false, <16 x half> %h2, i1 false, <16 x half> %g, i16 0, <8 x float> %c, i1 false, i1 false)
  %qd = getelementptr <8 x float>, ptr addrspace(1) %pd, i64 %t
  store <8 x float> %g1, ptr addrspace(1) %qd, align 4
  %qd2 = getelementptr <8 x float>, ptr addrspace(1) %qd, i64 64
  store <8 x float> %g2, ptr addrspace(1) %qd2, align 4
  %qe = getelementptr <2 x float>, ptr addrspace(1) %pe, i64 %t
  %a = load <2 x float>, ptr addrspace(1) %qe, align 4
  %qx = getelementptr <2 x float>, ptr addrspace(1) %qe, i64 64
  %x = load <2 x float>, ptr addrspace(1) %qx, align 4
  %d1 = call <8 x float> @{F32}(i1 false, <2 x float> %a, i1 false, <2 x float> %a, i16 0, <8 x float> %c, i1 false, i1 false)
  %d2 = call <8 x float> @{F32}(i1 false, <2 x float> %x, i1 false, <2 x float> %x, i16 0, <8 x float> %d1, i1 false, i1 false)
  %b2 = shufflevector <8 x float> %d2, <8 x float> poison, <2 x i32> <i32 2, i32 3>
  %d3 = call <8 x float> @{F32}(i1 false, <2 x float> %x, i1 false, <2 x float> %b2, i16 0, <8 x float> %d1, i1 false, i1 false)
  %qf = getelementptr <8 x float>, ptr addrspace(1) %pf, i64 %t
  store <8 x float> %d3, ptr addrspace(1) %qf, align 4
  ret void
}}
declare <8 x float> @{F32}(i1, <2 x float>, i1, <2 x float>, i16, <8 x float>, i1, i1)
{F16_WMMA}
{FOOTER}"
    );
    let obj = hx_llvm::compile_ir(&ir, "wmma", GpuTarget::Gfx1250, hx_llvm::OptLevel::O2, hx_llvm::Emit::Assembly).unwrap();
    let asm = String::from_utf8(obj).unwrap();
    let insts: Vec<&str> = asm.lines().map(str::trim).filter(|l| l.starts_with("v_")).collect();
    let wmmas: Vec<usize> = insts.iter().enumerate().filter(|(_, l)| l.starts_with("v_wmma_f32_16x16x32_f16")).map(|(i, _)| i).collect();
    assert_eq!(wmmas.len(), 2, "{asm}");
    let a_of = |l: &str| l.split(", ").nth(1).map(str::to_string).unwrap();
    let a1 = a_of(insts[wmmas[0]]);
    assert_eq!(a1, a_of(insts[wmmas[1]]), "the second f16 WMMA reads A from other registers:\n{asm}");
    let first = a1.trim_start_matches("v[").split(':').next().unwrap();
    assert!(insts[wmmas[0]..wmmas[1]].iter().any(|l| l.starts_with("v_xor_b32") && l.contains(&format!("v{first}, 1, v{first}"))), "A not rewritten in place:\n{asm}");
    // The f32 WMMAs: the first reads R, the second's D covers R, the third reads R as B.
    let f32s: Vec<Vec<String>> = insts.iter().filter(|l| l.starts_with("v_wmma_f32_16x16x4_f32")).map(|l| l.split_once(' ').unwrap().1.split(", ").map(str::to_string).collect()).collect();
    assert_eq!(f32s.len(), 3, "{asm}");
    let range = |r: &str| -> (u32, u32) {
        let (lo, hi) = r.trim_start_matches("v[").trim_end_matches(']').split_once(':').unwrap();
        (lo.parse().unwrap(), hi.parse().unwrap())
    };
    let (r, d) = (range(&f32s[0][1]), range(&f32s[1][0]));
    assert!(f32s[2][2] == f32s[0][1] && d.0 <= r.0 && r.1 <= d.1, "B of the third f32 WMMA is not the first's A inside the second's D:\n{asm}");
    let bufs = |seed: u64| -> Vec<Arg> {
        let f = |i: u64, e: Elem| Arg::Buffer(buffer(e, 1024, seed * 31 + i, Some(3)));
        vec![f(0, Elem::F16), f(1, Elem::F16), f(2, Elem::F32), Arg::Buffer(vec![0; 4096]), f(4, Elem::F32), Arg::Buffer(vec![0; 4096])]
    };
    check_module_with(&ir, &["k"], &bufs);
}
