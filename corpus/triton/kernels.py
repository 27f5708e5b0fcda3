"""The Triton corpus: kernels written as ML code writes them, with inputs and numpy references.

Each entry of CASES is a Case: a Triton kernel, its signature and constexprs, the warp counts it is
built at, how many programs it launches, its arguments (numpy arrays and scalars) and a numpy
reference that computes the expected outputs from the inputs. build.py compiles every case with
Triton 3.9 for gfx1250 (wave32) and natively for gfx942/gfx950 (wave64) and writes the objects,
launch descriptions and data files under corpus/triton/.

Tolerances: integer outputs are exact. Float outputs state `atol`/`rtol` (|got - want| <= atol +
rtol * |want|) with the reason next to them: the reference is computed in float64 by numpy, while
the GPU code rounds in f32 (or f16/bf16) in its own order (reductions split across lanes and
waves, FMA contraction, matrix units accumulating in f32 in their own order), and uses the
hardware's approximate transcendental instructions (v_exp_f32, v_log_f32, v_rcp_f32, v_sqrt_f32:
about 1 ulp) where Triton asks for fast math.
"""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import triton
import triton.language as tl
from triton.language.extra import libdevice


# ---------------------------------------------------------------- numpy helpers

def f32(x):
    return np.asarray(x, dtype=np.float32)


def bf16_bits(x):
    """float32 -> bfloat16 bits (round to nearest even), as uint16."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_value(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def fp8_table(exp_bits, man_bits, bias, fn):
    """The value of every fp8 bit pattern (NaN for NaN/inf codes): OCP e4m3fn (fn=True) or e5m2."""
    out = np.zeros(256, dtype=np.float64)
    for v in range(256):
        s = -1.0 if v & 0x80 else 1.0
        e = (v >> man_bits) & ((1 << exp_bits) - 1)
        m = v & ((1 << man_bits) - 1)
        if fn and e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:
            out[v] = np.nan
        elif not fn and e == (1 << exp_bits) - 1:
            out[v] = np.nan
        elif e == 0:
            out[v] = s * m * 2.0 ** (1 - bias - man_bits)
        else:
            out[v] = s * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return out


E4M3 = fp8_table(4, 3, 7, True)
E5M2 = fp8_table(5, 2, 15, False)
# MX fp4 e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit.
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0] * 1, dtype=np.float64)
E2M1 = np.concatenate([E2M1, -E2M1])


def small_fp8_codes(table, rng, shape, limit=4.0):
    """Random fp8 codes whose values are finite with |v| <= limit."""
    ok = np.nonzero(np.isfinite(table) & (np.abs(table) <= limit))[0].astype(np.uint8)
    return rng.choice(ok, size=shape)


def grid_vals(rng, shape, lo=-2.0, hi=2.0, step=1 / 64, dtype=np.float32):
    """Random multiples of `step` in [lo, hi]: exact in f16/bf16/f32."""
    k = rng.integers(int(lo / step), int(hi / step) + 1, size=shape)
    return (k * step).astype(dtype)


def philox_rand(seed, offsets, rounds=10):
    """tl.rand(seed, offsets) for int32 offsets: Philox4x32 with key (seed lo, seed hi), counter
    (offset, 0, 0, 0); the first word mapped to [0, 1) as Triton does."""
    M = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64) & M
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint64(seed & 0xFFFFFFFF)
    k1 = np.uint64((seed >> 32) & 0xFFFFFFFF)
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(rounds):
        p0, p2 = c0 * A, c2 * B  # 64-bit products of 32-bit values
        n0 = ((p2 >> np.uint64(32)) ^ c1 ^ k0) & M
        n2 = ((p0 >> np.uint64(32)) ^ c3 ^ k1) & M
        c1, c3 = p2 & M, p0 & M
        c0, c2 = n0, n2
        k0 = (k0 + np.uint64(0x9E3779B9)) & M
        k1 = (k1 + np.uint64(0xBB67AE85)) & M
    x = c0.astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, ~x, x)
    return (x.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)


# ---------------------------------------------------------------- the case type

@dataclass
class Buf:
    name: str
    data: np.ndarray          # initial contents (flattened on write)
    elem: str                 # launch-description element type: f32 f16 bf16 u8 i8 i32 ...
    output: bool = False
    atol: float = 0.0
    rtol: float = 0.0
    why: str = ""             # the tolerance's justification (a comment in the description)


@dataclass
class Val:
    name: str
    value: object
    elem: str


@dataclass
class Case:
    name: str
    fn: object
    signature: dict
    constexprs: dict
    programs: tuple            # (x, y, z) programs
    make_args: Callable        # rng -> list[Buf | Val]
    reference: Callable        # args dict name -> np.ndarray/value -> dict name -> expected array
    warps: tuple = (1, 4, 8)
    stages: int | None = None
    targets: tuple = ("gfx1250", "gfx942", "gfx950")
    note: str = ""
    options: dict = field(default_factory=dict)


CASES = []


def case(**kw):
    CASES.append(Case(**kw))


# ---------------------------------------------------------------- elementwise

@triton.jit
def vec_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


N_VEC = 4000
case(
    name="vec_add",
    fn=vec_add,
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 1024},
    programs=(4, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 4096, -8, 8), "f32"),
        Buf("y", grid_vals(rng, 4096, -8, 8), "f32"),
        Buf("out", np.full(4096, -1.0, np.float32), "f32", output=True),
        Val("n", N_VEC, "i32"),
    ],
    reference=lambda a: {"out": np.concatenate([(a["x"] + a["y"])[:N_VEC], a["out"][N_VEC:]])},
)


@triton.jit
def elementwise_math(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    a = tl.exp(x) * 0.25 + tl.log(tl.abs(y) + 1.0)
    b = tl.sqrt(tl.abs(x) + 0.5) - tl.math.erf(y)
    r = tl.where(x > y, a, b)
    tl.store(out_ptr + offs, r, mask=m)


def erf64(x):
    # numpy has no erf: math.erf element by element (the inputs are small).
    import math
    return np.vectorize(math.erf)(x.astype(np.float64))


def elementwise_ref(a):
    x, y = a["x"].astype(np.float64), a["y"].astype(np.float64)
    r = np.where(x > y, np.exp(x) * 0.25 + np.log(np.abs(y) + 1.0), np.sqrt(np.abs(x) + 0.5) - erf64(y))
    out = a["out"].copy()
    out[:N_VEC] = r[:N_VEC]
    return {"out": out}


case(
    name="elementwise_math",
    fn=elementwise_math,
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 4096, -3, 3), "f32"),
        Buf("y", grid_vals(rng, 4096, -3, 3), "f32"),
        Buf("out", np.zeros(4096, np.float32), "f32", output=True, atol=1e-5, rtol=1e-5,
            why="exp/log/sqrt are the hardware's ~1 ulp approximations and erf is Triton's own "
                "polynomial, against a float64 reference"),
        Val("n", N_VEC, "i32"),
    ],
    reference=elementwise_ref,
)


@triton.jit
def fp8_cast(x_ptr, q4_ptr, q5_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    q4 = x.to(tl.float8e4nv)
    q5 = x.to(tl.float8e5)
    tl.store(q4_ptr + offs, q4.to(tl.uint8, bitcast=True), mask=m)
    tl.store(q5_ptr + offs, q5.to(tl.uint8, bitcast=True), mask=m)
    tl.store(out_ptr + offs, q4.to(tl.float32) * 0.5 + q5.to(tl.float32), mask=m)


def fp8_encode(x, table):
    """float64 values -> codes of an OCP fp8 format (round to nearest, ties to the even code;
    past the largest finite value and infinities: the largest finite value, as Triton's casts
    saturate). No NaN inputs here."""
    finite = np.nonzero(np.isfinite(table) & (np.arange(256) < 0x80))[0]
    vals = table[finite]
    top, top_code = vals.max(), int(finite[np.argmax(vals)])
    out = np.zeros(x.shape, dtype=np.uint8)
    for i, v in enumerate(x.ravel()):
        a = abs(v)
        sign = 0x80 if np.signbit(v) else 0
        if a >= top:
            # Saturating: every magnitude from the largest finite value up, infinities included.
            out.flat[i] = sign | top_code
            continue
        d = np.abs(vals - a)
        best = np.nonzero(d == d.min())[0]
        codes = finite[best]
        even = [c for c in codes if c % 2 == 0]
        out.flat[i] = sign | int(even[0] if even else codes[0])
    return out


def fp8_cast_inputs(rng):
    # Values on both sides of the formats' ranges and subnormals, exact ties between neighbours,
    # infinities, and random magnitudes from 2^-20 to 2^17.
    special = np.array([0.0, -0.0, 1.0625, 1.1875, -3.25, 448.0, 464.0, 464.5, -500.0, 57344.0, 59392.0, 61440.0,
                        -1e30, np.inf, -np.inf, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11, 2.0 ** -16, 2.0 ** -17,
                        -3 * 2.0 ** -18, 1e-40], dtype=np.float32)
    r = (rng.uniform(-1, 1, 4096) * 2.0 ** rng.uniform(-20, 17, 4096)).astype(np.float32)
    r[:len(special)] = special
    return r


def fp8_cast_ref(a):
    x = a["x"].astype(np.float64)
    q4, q5 = fp8_encode(x, E4M3), fp8_encode(x, E5M2)
    out = a["out"].copy()
    r = (E4M3[q4].astype(np.float32) * np.float32(0.5) + E5M2[q5].astype(np.float32)).astype(np.float32)
    out[:N_VEC] = r[:N_VEC]
    q4o, q5o = a["q4"].copy(), a["q5"].copy()
    q4o[:N_VEC], q5o[:N_VEC] = q4[:N_VEC], q5[:N_VEC]
    return {"q4": q4o, "q5": q5o, "out": out}


case(
    name="fp8_cast",
    fn=fp8_cast,
    signature={"x_ptr": "*fp32", "q4_ptr": "*u8", "q5_ptr": "*u8", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", fp8_cast_inputs(rng), "f32"),
        Buf("q4", np.zeros(4096, np.uint8), "u8", output=True),
        Buf("q5", np.zeros(4096, np.uint8), "u8", output=True),
        Buf("out", np.zeros(4096, np.float32), "f32", output=True),
        Val("n", N_VEC, "i32"),
    ],
    reference=fp8_cast_ref,
    note="Triton's fp8 casts: gfx1250 v_cvt_scalef32_pk8_*_f32 and v_cvt_scale_pk8_f32_* under MODE.FP16_OVFL (saturating)",
)


@triton.jit
def half_math(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.exp(x.to(tl.float32)).to(tl.float16) + x * x - tl.abs(x)
    z = tl.maximum(x, y) + tl.minimum(x, 1.0)
    tl.store(out_ptr + offs, tl.where(x > 0, y, z), mask=m)


def half_math_ref(a):
    x = a["x"].astype(np.float64)
    y = np.exp(x) + x * x - np.abs(x)
    z = np.maximum(x, y) + np.minimum(x, 1.0)
    out = a["out"].astype(np.float64)
    out[:N_VEC] = np.where(x > 0, y, z)[:N_VEC]
    return {"out": out}


case(
    name="half_math",
    fn=half_math,
    signature={"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 4096, -3, 3, dtype=np.float16), "f16"),
        Buf("out", np.zeros(4096, np.float16), "f16", output=True, atol=2e-2, rtol=4e-3,
            why="f16 arithmetic (x*x - |x| contracted into one fma, then rounded to f16 at each step) "
                "and exp in f32 rounded to f16, against a float64 reference: a few f16 ulps"),
        Val("n", N_VEC, "i32"),
    ],
    reference=half_math_ref,
    note="f16 elementwise math: true16 VOP2 halves (v_mul_f16_e32 v0.h, ...), v_fmac_f16, v_cndmask_b16",
)


@triton.jit
def int4_dequant(q_ptr, sc_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    q = tl.load(q_ptr + offs)
    sc = tl.load(sc_ptr + offs // 32)
    lo = (q & 15).to(tl.int8) - 8
    hi = (q >> 4).to(tl.int8) - 8
    tl.store(out_ptr + 2 * offs, lo.to(tl.float16) * sc)
    tl.store(out_ptr + 2 * offs + 1, hi.to(tl.float16) * sc)


def int4_dequant_ref(a):
    q = a["q"].astype(np.int64)
    sc = a["sc"][np.arange(4096) // 32]
    out = np.zeros(8192, np.float16)
    out[0::2] = ((q & 15) - 8).astype(np.float16) * sc
    out[1::2] = ((q >> 4) - 8).astype(np.float16) * sc
    return {"out": out}


case(
    name="int4_dequant",
    fn=int4_dequant,
    signature={"q_ptr": "*u8", "sc_ptr": "*fp16", "out_ptr": "*fp16"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("q", rng.integers(0, 256, 4096).astype(np.uint8), "u8"),
        Buf("sc", (rng.uniform(0.5, 2.0, 128) * 2.0 ** rng.integers(-8, 4, 128)).astype(np.float16), "f16"),
        Buf("out", np.zeros(8192, np.float16), "f16", output=True),
    ],
    reference=int4_dequant_ref,
    note="int4 weights unpacked and scaled in f16 (a product of two f16 rounded once: numpy's f16 multiply)",
)


@triton.jit
def libm_f64(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = libdevice.sin(x) + libdevice.cos(x * 0.5) + libdevice.exp(x * 1e-15) + libdevice.log(tl.abs(x) + 1.0)
    tl.store(out_ptr + offs, y, mask=m)


def libm_f64_ref(a):
    x = a["x"]
    out = a["out"].copy()
    out[:N_VEC] = (np.sin(x) + np.cos(x * 0.5) + np.exp(x * 1e-15) + np.log(np.abs(x) + 1.0))[:N_VEC]
    return {"out": out}


def libm_f64_inputs(rng):
    # Arguments small and huge (the sine's Payne-Hanek reduction past 2^31 goes through
    # v_trig_preop_f64), both signs.
    x = rng.uniform(-10, 10, 4096) * 10.0 ** rng.integers(0, 16, 4096)
    return x.astype(np.float64)


case(
    name="libm_f64",
    fn=libm_f64,
    signature={"x_ptr": "*fp64", "out_ptr": "*fp64", "n": "i32"},
    constexprs={"BLOCK": 256},
    programs=(16, 1, 1),
    make_args=lambda rng: [
        Buf("x", libm_f64_inputs(rng), "f64"),
        Buf("out", np.zeros(4096, np.float64), "f64", output=True, atol=1e-9, rtol=1e-13,
            why="ROCm's OCML f64 sin/cos/exp/log (about 1 ulp each) against numpy's; the sum of four"),
        Val("n", N_VEC, "i32"),
    ],
    reference=libm_f64_ref,
    # Triton's default FP fusion contracts OCML's error-free products and sums (p1h + p2l into one
    # fma) in the sine's Payne-Hanek reduction: from |x| = 2^31 up the result drifts from the
    # true sine (1e15: 0.8405 for 0.8583), on hardware as in the emulator. Unfused, it is exact.
    options={"enable_fp_fusion": False},
    note="f64 libdevice math through OCML: v_trig_preop_f64 for large sine arguments",
)


@triton.jit
def gelu_tanh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    t = libdevice.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + t), mask=m)


def gelu_tanh_ref(a):
    x = a["x"].astype(np.float64)
    out = a["out"].copy()
    out[:N_VEC] = (0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))))[:N_VEC]
    return {"out": out}


case(
    name="gelu_tanh",
    fn=gelu_tanh,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 4096, -6, 6), "f32"),
        Buf("out", np.zeros(4096, np.float32), "f32", output=True, atol=1e-6, rtol=1e-5,
            why="gfx1250's v_tanh_f32 (about an ulp) and f32 arithmetic against a float64 reference"),
        Val("n", N_VEC, "i32"),
    ],
    reference=gelu_tanh_ref,
    note="GELU with the tanh approximation: v_tanh_f32 on gfx1250, OCML's tanh natively",
)


@triton.jit
def attn_causal(q_ptr, k_ptr, v_ptr, o_ptr, N: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, N)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + rm[:, None] * D + rd[None, :])
    v = tl.load(v_ptr + rm[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k)) * 0.125
    s = tl.where(rm[:, None] >= rm[None, :], s, float("-inf"))
    p = tl.exp(s - tl.max(s, 1)[:, None])
    p = p / tl.sum(p, 1)[:, None]
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], tl.dot(p.to(tl.float16), v))


def attn_causal_ref(a):
    q, k, v = (a[n].astype(np.float64).reshape(64, 32) for n in ("q", "k", "v"))
    s = q @ k.T * 0.125
    s = np.where(np.tril(np.ones((64, 64), bool)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return {"o": (p @ v).reshape(-1)}


case(
    name="attn_causal",
    fn=attn_causal,
    signature={"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp32"},
    constexprs={"N": 64, "D": 32},
    programs=(1, 1, 1),
    make_args=lambda rng: [
        Buf("q", grid_vals(rng, 64 * 32, -1, 1, dtype=np.float16), "f16"),
        Buf("k", grid_vals(rng, 64 * 32, -1, 1, dtype=np.float16), "f16"),
        Buf("v", grid_vals(rng, 64 * 32, -1, 1, dtype=np.float16), "f16"),
        Buf("o", np.zeros(64 * 32, np.float32), "f32", output=True, atol=2e-3, rtol=2e-3,
            why="the probabilities rounded to f16 before the second product, exp approximated"),
    ],
    reference=attn_causal_ref,
    warps=(1, 4),
    note="one causal attention tile: WMMA, masking, a row softmax (v_permlane16_swap_b32 at one wave)",
)


@triton.jit
def bf16_math(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = x * x + x - tl.maximum(x, 0.5)
    tl.store(out_ptr + offs, tl.where(x > 0, y, x * 2), mask=m)


def bf16_math_ref(a):
    x = bf16_value(a["x"]).astype(np.float64)
    r = np.where(x > 0, x * x + x - np.maximum(x, 0.5), x * 2)
    out = bf16_value(a["out"]).astype(np.float64)
    out[:N_VEC] = r[:N_VEC]
    return {"out": out}


case(
    name="bf16_math",
    fn=bf16_math,
    signature={"x_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32"},
    constexprs={"BLOCK": 512},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", bf16_bits(grid_vals(rng, 4096, -4, 4)), "bf16"),
        Buf("out", np.zeros(4096, np.uint16), "bf16", output=True, atol=2e-2, rtol=1e-2,
            why="bf16 arithmetic (8 significant bits: x*x + x as one bf16 fma, then a bf16 add) "
                "against a float64 reference"),
        Val("n", N_VEC, "i32"),
    ],
    reference=bf16_math_ref,
    note="bf16 elementwise math: v_pk_fma_bf16, v_pk_min_num_bf16 with an inline constant, v_pk_add_bf16",
)


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=m)


def dropout_ref(a):
    offs = np.arange(4096, dtype=np.int64)
    r = philox_rand(a["seed"], offs)
    p = np.float32(a["p"])
    keep = r > p
    scaled = (a["x"] / (np.float32(1) - p)).astype(np.float32)
    out = a["out"].copy()
    res = np.where(keep, scaled, np.float32(0))
    out[:N_VEC] = res[:N_VEC]
    return {"out": out}


case(
    name="dropout",
    fn=dropout,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32"},
    constexprs={"BLOCK": 1024},
    programs=(4, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 4096, -4, 4), "f32"),
        Buf("out", np.full(4096, 7.0, np.float32), "f32", output=True, atol=0, rtol=2.5e-7,
            why="x / (1 - p) may be computed as x * rcp(1 - p) (1 ulp); the keep mask is exact"),
        Val("n", N_VEC, "i32"),
        Val("p", 0.25, "f32"),
        Val("seed", 12345, "i32"),
    ],
    reference=dropout_ref,
)


# ---------------------------------------------------------------- reductions, normalisations

ROWS, COLS = 64, 256


@triton.jit
def row_sum_max(x_ptr, sum_ptr, max_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    xm = tl.where(m, x, float("-inf"))
    tl.store(max_ptr + row, tl.max(xm, axis=0))


case(
    name="row_sum_max",
    fn=row_sum_max,
    signature={"x_ptr": "*fp32", "sum_ptr": "*fp32", "max_ptr": "*fp32", "stride": "i32", "n_cols": "i32"},
    constexprs={"BLOCK": 256},
    programs=(ROWS, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, ROWS * COLS, -4, 4), "f32"),
        Buf("sum", np.zeros(ROWS, np.float32), "f32", output=True,
            why="multiples of 1/64 below 4 in magnitude: every partial sum of 256 is exact in f32"),
        Buf("max", np.zeros(ROWS, np.float32), "f32", output=True),
        Val("stride", COLS, "i32"),
        Val("n_cols", 250, "i32"),
    ],
    reference=lambda a: {
        "sum": a["x"].reshape(ROWS, COLS)[:, :250].astype(np.float64).sum(1),
        "max": a["x"].reshape(ROWS, COLS)[:, :250].max(1),
    },
)


@triton.jit
def softmax(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=float("-inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    s = tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride + cols, e / s, mask=m)


def softmax_ref(a):
    x = a["x"].reshape(ROWS, COLS)[:, :250].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    out = a["out"].reshape(ROWS, COLS).copy()
    out[:, :250] = e / e.sum(1, keepdims=True)
    return {"out": out}


case(
    name="softmax",
    fn=softmax,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "n_cols": "i32"},
    constexprs={"BLOCK": 256},
    programs=(ROWS, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, ROWS * COLS, -4, 4), "f32"),
        Buf("out", np.full(ROWS * COLS, 5.0, np.float32), "f32", output=True, atol=1e-7, rtol=2e-6,
            why="exp is the hardware's approximation (~1 ulp), the row sum rounds in f32 in the "
                "kernel's lane/wave order, and the division may be a reciprocal and a multiply"),
        Val("stride", COLS, "i32"),
        Val("n_cols", 250, "i32"),
    ],
    reference=softmax_ref,
)


@triton.jit
def softmax_f16(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs).to(tl.float32)
    e = tl.exp(x - tl.max(x, 0))
    tl.store(out_ptr + row * N + offs, (e / tl.sum(e, 0)).to(tl.float16))


def softmax_f16_ref(a):
    x = a["x"].reshape(8, 1024).astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return {"out": (e / e.sum(1, keepdims=True)).reshape(-1)}


case(
    name="softmax_f16",
    fn=softmax_f16,
    signature={"x_ptr": "*fp16", "out_ptr": "*fp16"},
    constexprs={"N": 1024},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 8 * 1024, -4, 4, dtype=np.float16), "f16"),
        Buf("out", np.zeros(8 * 1024, np.float16), "f16", output=True, atol=1e-6, rtol=2e-3,
            why="f16 results (11 significant bits) of the f32 softmax: exp approximated, the row sum "
                "in the kernel's order"),
    ],
    reference=softmax_f16_ref,
    note="f16 rows of 1024 reduced across waves through LDS",
)


@triton.jit
def rmsnorm_f16(x_ptr, w_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs).to(tl.float32)
    w = tl.load(w_ptr + offs)
    r = tl.math.rsqrt(tl.sum(x * x, 0) / N + 1e-6)
    tl.store(out_ptr + row * N + offs, (x * r).to(tl.float16) * w)


def rmsnorm_f16_ref(a):
    x = a["x"].reshape(8, 1024).astype(np.float64)
    r = 1.0 / np.sqrt((x * x).mean(1, keepdims=True) + 1e-6)
    return {"out": ((x * r) * a["w"].astype(np.float64)).reshape(-1)}


case(
    name="rmsnorm_f16",
    fn=rmsnorm_f16,
    signature={"x_ptr": "*fp16", "w_ptr": "*fp16", "out_ptr": "*fp16"},
    constexprs={"N": 1024},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 8 * 1024, -4, 4, dtype=np.float16), "f16"),
        Buf("w", grid_vals(rng, 1024, -2, 2, dtype=np.float16), "f16"),
        Buf("out", np.zeros(8 * 1024, np.float16), "f16", output=True, atol=2e-3, rtol=3e-3,
            why="x * rsqrt(mean) rounded to f16, then multiplied by w in f16 (two f16 roundings), "
                "rsqrt approximated"),
    ],
    reference=rmsnorm_f16_ref,
    note="f16 RMSNorm: the sum of squares reduced across waves through LDS",
)


@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, out_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=m)
    b = tl.load(b_ptr + cols, mask=m)
    tl.store(out_ptr + row * stride + cols, d * rstd * w + b, mask=m)


def layer_norm_ref(a):
    x = a["x"].reshape(ROWS, COLS)[:, :250].astype(np.float64)
    mean = x.mean(1, keepdims=True)
    var = ((x - mean) ** 2).mean(1, keepdims=True)
    y = (x - mean) / np.sqrt(var + float(np.float32(a["eps"]))) * a["w"][:250] + a["b"][:250]
    out = a["out"].reshape(ROWS, COLS).copy()
    out[:, :250] = y
    return {"out": out}


case(
    name="layer_norm",
    fn=layer_norm,
    signature={"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32",
               "n_cols": "i32", "eps": "fp32"},
    constexprs={"BLOCK": 256},
    programs=(ROWS, 1, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, ROWS * COLS, -4, 4), "f32"),
        Buf("w", grid_vals(rng, COLS, -2, 2), "f32"),
        Buf("b", grid_vals(rng, COLS, -2, 2), "f32"),
        Buf("out", np.zeros(ROWS * COLS, np.float32), "f32", output=True, atol=2e-5, rtol=2e-5,
            why="mean and variance are f32 sums in the kernel's order; sqrt and the reciprocal are "
                "the hardware's approximations"),
        Val("stride", COLS, "i32"),
        Val("n_cols", 250, "i32"),
        Val("eps", 1e-5, "f32"),
    ],
    reference=layer_norm_ref,
)


@triton.jit
def cumsum_rows(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    tl.store(out_ptr + row * BLOCK + cols, tl.cumsum(x, axis=0))


case(
    name="cumsum",
    fn=cumsum_rows,
    signature={"x_ptr": "*i32", "out_ptr": "*i32"},
    constexprs={"BLOCK": 256},
    programs=(16, 1, 1),
    make_args=lambda rng: [
        Buf("x", rng.integers(-1000, 1000, 16 * 256).astype(np.int32), "i32"),
        Buf("out", np.zeros(16 * 256, np.int32), "i32", output=True),
    ],
    reference=lambda a: {"out": np.cumsum(a["x"].reshape(16, 256), axis=1, dtype=np.int64).astype(np.int32)},
)


@triton.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + (x % BINS), 1, mask=m)


case(
    name="histogram",
    fn=histogram,
    signature={"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32"},
    constexprs={"BLOCK": 512, "BINS": 64},
    programs=(8, 1, 1),
    make_args=lambda rng: [
        Buf("x", rng.integers(0, 1 << 20, 4096).astype(np.int32), "i32"),
        Buf("hist", np.zeros(64, np.int32), "i32", output=True),
        Val("n", N_VEC, "i32"),
    ],
    reference=lambda a: {"hist": np.bincount(a["x"][:N_VEC] % 64, minlength=64).astype(np.int32)},
)


@triton.jit
def embedding_gather(idx_ptr, table_ptr, out_ptr, dim, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    i = tl.load(idx_ptr + row)
    cols = tl.arange(0, BLOCK)
    m = cols < dim
    v = tl.load(table_ptr + i.to(tl.int64) * dim + cols, mask=m)
    tl.store(out_ptr + row * dim + cols, v, mask=m)


case(
    name="embedding_gather",
    fn=embedding_gather,
    signature={"idx_ptr": "*i32", "table_ptr": "*fp16", "out_ptr": "*fp16", "dim": "i32"},
    constexprs={"BLOCK": 128},
    programs=(32, 1, 1),
    make_args=lambda rng: [
        Buf("idx", rng.integers(0, 100, 32).astype(np.int32), "i32"),
        Buf("table", grid_vals(rng, 100 * 96, -8, 8, dtype=np.float16), "f16"),
        Buf("out", np.zeros(32 * 96, np.float16), "f16", output=True),
        Val("dim", 96, "i32"),
    ],
    reference=lambda a: {"out": a["table"].reshape(100, 96)[a["idx"]]},
)


@triton.jit
def transpose2d(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], x, mask=m)


case(
    name="transpose2d",
    fn=transpose2d,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32"},
    constexprs={"BM": 32, "BN": 32},
    programs=(3, 2, 1),
    make_args=lambda rng: [
        Buf("x", grid_vals(rng, 80 * 60, -8, 8), "f32"),
        Buf("out", np.zeros(60 * 80, np.float32), "f32", output=True),
        Val("M", 80, "i32"),
        Val("N", 60, "i32"),
    ],
    reference=lambda a: {"out": a["x"].reshape(80, 60).T},
)


# ---------------------------------------------------------------- matmuls

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC_INT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    if ACC_INT:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    cm = rm[:, None] < M
    cn = rn[None, :] < N
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=cm & cn)


def matmul_case(name, dt, M, N, K, BM, BN, BK, warps=(1, 4, 8), stages=None, targets=None, note=""):
    sig_t = {"f16": "*fp16", "bf16": "*bf16", "f32": "*fp32", "e4m3": "*fp8e4nv", "e5m2": "*fp8e5", "i8": "*i8"}[dt]
    acc_int = dt == "i8"
    out_t = "*i32" if acc_int else "*fp32"

    def make(rng):
        if dt == "f16":
            a = grid_vals(rng, M * K, -2, 2, 1 / 16, np.float16)
            b = grid_vals(rng, K * N, -2, 2, 1 / 16, np.float16)
            ae = be = "f16"
        elif dt == "bf16":
            a = bf16_bits(grid_vals(rng, M * K, -2, 2, 1 / 16))
            b = bf16_bits(grid_vals(rng, K * N, -2, 2, 1 / 16))
            ae = be = "bf16"
        elif dt == "f32":
            a = grid_vals(rng, M * K, -2, 2, 1 / 16)
            b = grid_vals(rng, K * N, -2, 2, 1 / 16)
            ae = be = "f32"
        elif dt in ("e4m3", "e5m2"):
            tab = E4M3 if dt == "e4m3" else E5M2
            a = small_fp8_codes(tab, rng, M * K)
            b = small_fp8_codes(tab, rng, K * N)
            ae = be = "u8"
        else:
            a = rng.integers(-128, 128, M * K).astype(np.int8)
            b = rng.integers(-128, 128, K * N).astype(np.int8)
            ae = be = "i8"
        c = np.zeros(M * N, np.int32 if acc_int else np.float32)
        if dt == "f32":
            why = ("f32 dot: Triton's default input precision on these targets may round A and B to tf32/xf32 "
                   "or split them; the products of multiples of 1/16 below 2 are exact, sums of K of them are "
                   "exact in f32 except where tf32 rounding applies")
            atol, rtol = 1e-2, 1e-3
        elif acc_int:
            why, atol, rtol = "", 0.0, 0.0
        elif dt in ("e4m3", "e5m2"):
            why = ("fp8 subnormal products reach 2^-18 (e4m3) and 2^-32 (e5m2) beside sums near 2^11: the f32 "
                   "accumulation rounds, in the matrix unit's own order")
            atol, rtol = 1e-5, 1e-5
        else:
            why = ("products of the inputs are exact and every partial sum is a multiple of a power of two "
                   "far above f32's resolution: the f32 accumulation is exact in any order")
            atol, rtol = 0.0, 0.0
        return [Buf("a", a, ae), Buf("b", b, be),
                Buf("c", c, "i32" if acc_int else "f32", output=True, atol=atol, rtol=rtol, why=why),
                Val("M", M, "i32"), Val("N", N, "i32"), Val("K", K, "i32"),
                Val("stride_am", K, "i32"), Val("stride_bk", N, "i32"), Val("stride_cm", N, "i32")]

    def ref(a):
        if dt == "f16":
            A, B = a["a"].astype(np.float64), a["b"].astype(np.float64)
        elif dt == "bf16":
            A, B = bf16_value(a["a"]).astype(np.float64), bf16_value(a["b"]).astype(np.float64)
        elif dt == "f32":
            A, B = a["a"].astype(np.float64), a["b"].astype(np.float64)
        elif dt in ("e4m3", "e5m2"):
            tab = E4M3 if dt == "e4m3" else E5M2
            A, B = tab[a["a"]], tab[a["b"]]
        else:
            A, B = a["a"].astype(np.int64), a["b"].astype(np.int64)
        C = A.reshape(M, K) @ B.reshape(K, N)
        return {"c": C.astype(np.int32) if acc_int else C}

    case(name=name, fn=matmul,
         signature={"a_ptr": sig_t, "b_ptr": sig_t, "c_ptr": out_t, "M": "i32", "N": "i32", "K": "i32",
                    "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
         constexprs={"BM": BM, "BN": BN, "BK": BK, "ACC_INT": acc_int},
         programs=(M // BM, N // BN, 1), make_args=make, reference=ref, warps=warps, stages=stages,
         targets=targets or ("gfx1250", "gfx942", "gfx950"), note=note)


matmul_case("matmul_f16_32", "f16", 64, 64, 64, 32, 32, 32)
matmul_case("matmul_f16_128", "f16", 128, 128, 128, 128, 128, 64, warps=(4, 8), stages=2)
matmul_case("matmul_bf16_64", "bf16", 64, 64, 64, 64, 64, 32, warps=(4,), stages=3)
matmul_case("matmul_f32_32", "f32", 64, 64, 32, 32, 32, 16, warps=(4,))
matmul_case("matmul_i8_64", "i8", 64, 64, 128, 64, 64, 64, warps=(4,))
matmul_case("matmul_e4m3_64", "e4m3", 64, 64, 128, 64, 64, 64, warps=(4,), targets=("gfx1250", "gfx950"),
            note="OCP e4m3 is not a gfx942 type")
matmul_case("matmul_e5m2_64", "e5m2", 64, 64, 128, 64, 64, 64, warps=(4,), targets=("gfx1250", "gfx950"),
            note="OCP e5m2 is not a gfx942 type")


# ---------------------------------------------------------------- flash attention (forward)

@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, seq, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + rn[None, :] * D + rd[:, None])
        s = tl.dot(q, k) * scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc / l_i[:, None])


def attn_ref(a):
    S, D = 128, 64
    q = a["q"].astype(np.float64).reshape(S, D)
    k = a["k"].astype(np.float64).reshape(S, D)
    v = a["v"].astype(np.float64).reshape(S, D)
    s = q @ k.T * float(np.float32(a["scale"]))
    p = np.exp(s - s.max(1, keepdims=True))
    return {"o": (p / p.sum(1, keepdims=True)) @ v}


case(
    name="flash_attn_fwd",
    fn=attn_fwd,
    signature={"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp32", "seq": "i32",
               "scale": "fp32"},
    constexprs={"D": 64, "BM": 64, "BN": 32},
    programs=(2, 1, 1),
    warps=(4,),
    make_args=lambda rng: [
        Buf("q", grid_vals(rng, 128 * 64, -1, 1, 1 / 64, np.float16), "f16"),
        Buf("k", grid_vals(rng, 128 * 64, -1, 1, 1 / 64, np.float16), "f16"),
        Buf("v", grid_vals(rng, 128 * 64, -1, 1, 1 / 64, np.float16), "f16"),
        Buf("o", np.zeros(128 * 64, np.float32), "f32", output=True, atol=3e-3, rtol=3e-3,
            why="P is rounded to f16 before the second dot (as flash attention does), exp is the "
                "hardware's approximation, and the online softmax rescales in f32"),
        Val("seq", 128, "i32"),
        Val("scale", 0.125, "f32"),
    ],
    reference=attn_ref,
)


# ---------------------------------------------------------------- num_stages 3 beyond bf16

# Software pipelining three deep (two tiles in flight while the third is multiplied) on the
# element types whose B tile does not need a transpose load: K runs four tiles so the prologue,
# steady state and epilogue of the pipeline all execute.
matmul_case("matmul_f16_32_s3", "f16", 64, 64, 128, 32, 32, 32, stages=3)
matmul_case("matmul_f32_32_s3", "f32", 64, 64, 64, 32, 32, 16, warps=(4,), stages=3)
matmul_case("matmul_i8_32_s3", "i8", 64, 64, 256, 32, 32, 64, warps=(4,), stages=3)


# ---------------------------------------------------------------- tensor descriptors

@triton.jit
def matmul_tdesc(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A is [M, K] and B is given transposed, [N, K] (a weight stored as nn.Linear stores it), both
    # row-major and read through device-side tensor descriptors; C is written through one too.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(bt_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([pid_n * BN, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


TD_M, TD_N, TD_K = 64, 64, 96
case(
    name="matmul_tdesc_f16",
    fn=matmul_tdesc,
    signature={"a_ptr": "*fp16", "bt_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
    constexprs={"BM": 32, "BN": 32, "BK": 32},
    programs=(TD_M // 32, TD_N // 32, 1),
    make_args=lambda rng: [
        Buf("a", grid_vals(rng, TD_M * TD_K, -2, 2, 1 / 16, np.float16), "f16"),
        Buf("bt", grid_vals(rng, TD_N * TD_K, -2, 2, 1 / 16, np.float16), "f16"),
        Buf("c", np.full(TD_M * TD_N, -3.0, np.float32), "f32", output=True,
            why="products of multiples of 1/16 below 2 are multiples of 1/256 below 4; sums of 96 of them "
                "stay below 2^9: exact in f32 in any order"),
        Val("M", TD_M, "i32"), Val("N", TD_N, "i32"), Val("K", TD_K, "i32"),
    ],
    reference=lambda a: {"c": a["a"].astype(np.float64).reshape(TD_M, TD_K)
                         @ a["bt"].astype(np.float64).reshape(TD_N, TD_K).T},
)


# ---------------------------------------------------------------- microscaled dot (MX formats)

@triton.jit
def matmul_scaled(a_ptr, sa_ptr, bt_ptr, sb_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, AFMT: tl.constexpr, BFMT: tl.constexpr):
    # A is [M, K] and B is given as [N, K] (K contiguous), e2m1 packed two to a byte along K (the
    # first element in the low nibble); one e8m0 scale per 32 elements of K: SA is [M, K/32],
    # SB is [N, K/32].
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    APACK: tl.constexpr = 2 if AFMT == "e2m1" else 1
    BPACK: tl.constexpr = 2 if BFMT == "e2m1" else 1
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rka = tl.arange(0, BK // APACK)
    rkb = tl.arange(0, BK // BPACK)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * (K // APACK) + (k // APACK + rka)[None, :])
        b = tl.load(bt_ptr + rn[None, :] * (K // BPACK) + (k // BPACK + rkb)[:, None])
        sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, AFMT, b, sb, BFMT, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


MX_TABLES = {"e2m1": E2M1, "e4m3": E4M3, "e5m2": E5M2}


def mx_values(codes, fmt, rows, k):
    """The element values of an MX operand stored [rows, k] (e2m1: two codes a byte, low nibble first)."""
    codes = codes.reshape(rows, -1)
    if fmt == "e2m1":
        codes = np.stack([codes & 0xF, codes >> 4], axis=-1).reshape(rows, k)
    return MX_TABLES[fmt][codes]


def e8m0_value(s):
    """An e8m0 scale: 2^(s - 127) (255 is NaN and not generated)."""
    return np.exp2(s.astype(np.float64) - 127.0)


def scaled_case(name, afmt, bfmt, M=64, N=64, K=256, BM=32, BN=32, BK=128, **kw):
    def codes(rng, fmt, rows):
        if fmt == "e2m1":
            return rng.integers(0, 256, rows * K // 2).astype(np.uint8)
        return small_fp8_codes(MX_TABLES[fmt], rng, rows * K)

    def make(rng):
        exact = afmt == bfmt == "e2m1"
        return [
            Buf("a", codes(rng, afmt, M), "u8"),
            Buf("sa", rng.integers(126, 129, M * K // 32).astype(np.uint8), "u8"),
            Buf("bt", codes(rng, bfmt, N), "u8"),
            Buf("sb", rng.integers(126, 129, N * K // 32).astype(np.uint8), "u8"),
            Buf("c", np.full(M * N, -5.0, np.float32), "f32", output=True,
                atol=0.0 if exact else 1e-5, rtol=0.0 if exact else 1e-5,
                why=("e2m1 values are multiples of 1/2 up to 6 and the scales 2^-1..2^1: products are multiples of "
                     "2^-4 up to 2^7.2, sums of 256 of them below 2^16: exact in f32 in any order") if exact else
                    ("e4m3/e5m2 subnormals (down to 2^-16) times scales and partners make products far below "
                     "the sums' f32 resolution: the accumulation rounds in the matrix unit's own order")),
            Val("M", M, "i32"), Val("N", N, "i32"), Val("K", K, "i32"),
        ]

    def ref(a):
        A = mx_values(a["a"], afmt, M, K) * np.repeat(e8m0_value(a["sa"].reshape(M, K // 32)), 32, axis=1)
        B = mx_values(a["bt"], bfmt, N, K) * np.repeat(e8m0_value(a["sb"].reshape(N, K // 32)), 32, axis=1)
        return {"c": A @ B.T}

    case(name=name, fn=matmul_scaled,
         signature={"a_ptr": "*u8", "sa_ptr": "*u8", "bt_ptr": "*u8", "sb_ptr": "*u8", "c_ptr": "*fp32",
                    "M": "i32", "N": "i32", "K": "i32"},
         constexprs={"BM": BM, "BN": BN, "BK": BK, "AFMT": afmt, "BFMT": bfmt},
         programs=(M // BM, N // BN, 1), make_args=make, reference=ref, **kw)


scaled_case("dot_scaled_e2m1", "e2m1", "e2m1")
scaled_case("dot_scaled_e4m3", "e4m3", "e4m3")
scaled_case("dot_scaled_e2m1_e5m2", "e2m1", "e5m2")
# The same products on gfx950's 16x16x128 scaled MFMA (Triton picks 32x32x64 by default): these
# native builds pin that instruction's operand, scale and K layout in the emulator, which the
# translation of gfx1250's scaled WMMA (16x16x128) targets.
for _fmts in [("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e2m1", "e5m2")]:
    scaled_case("dot_scaled_" + "_".join(dict.fromkeys(_fmts)) + "_n16", *_fmts, targets=("gfx1250", "gfx950"),
                options={"matrix_instr_nonkdim": 16}, warps=(4, 8))
