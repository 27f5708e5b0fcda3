//! Memory instructions' meaning, apart from how any machine executes them: the address space,
//! kind (load, store, atomic and which) and width of each vector-memory and LDS mnemonic
//! ([`classify`]), the atomics' results ([`atomic_value`]), alignment rules, the DS cross-lane
//! permutes and swizzles as pure functions over a wave's lanes, the transpose loads' lane
//! mapping, and the sizes of gfx1250's asynchronous loads to LDS. The emulator's `mem_ops`
//! executes these; the raiser compiles them. Facts and their sources: the module documentation
//! of hx-emu's `mem_ops`.

use crate::alu::float as fp;
use crate::alu::FpMode;
use hx_isa::{Reg, RegClass, Target};

/// The apertures the emulator gives flat (generic) addresses, and the raiser gives the
/// aperture registers a kernel reads, so that a generic address stored as data is the same in
/// both runs.
/// High 32 bits of flat addresses that fall in the LDS (shared) aperture.
pub const SHARED_APERTURE_HI: u32 = 0x0001_0000;
/// High 32 bits of flat addresses that fall in the scratch (private) aperture.
pub const PRIVATE_APERTURE_HI: u32 = 0x0002_0000;
/// gfx1250's `src_flat_scratch_base` (globally addressable scratch). LLVM 22 lowers a private
/// pointer `p` of lane `l` to the flat address `FLAT_SCRATCH_BASE + (l << (57 - log2(wave size)) | p)`,
/// a flat pointer back to private as its low 32 bits minus the base's, and `is.private` as "bits
/// 63:58 equal the base's"; the emulator routes such flat addresses to lane `l`'s scratch at `p`.
/// Bits 63:58 = 1 keep the window clear of the global, LDS and GFX9 private addresses. Pinned by
/// corpus/hip private_array@gfx1250 (clang 22's code passes a private array to a function).
pub const FLAT_SCRATCH_BASE: u64 = 0x0400_0000_0000_0000;

/// Which memory an instruction addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Flat,
    Scratch,
    Lds,
}

/// The width and register behaviour of an access.
///
/// Loads: `U8`/`U16` zero-extend and `I8`/`I16` sign-extend into a full dword; the `D16Lo*`
/// forms write bits 15:0 and keep bits 31:16 of the destination, the `D16Hi*` forms write bits
/// 31:16 and keep bits 15:0 (`*U8`/`*I8` widen the byte to 16 bits first).
/// Stores: `U8`/`I8`/`D16LoU8`/`D16LoI8` store bits 7:0, `U16`/`I16`/`D16Lo` bits 15:0,
/// `D16HiU8`/`D16HiI8` bits 23:16 (`*_store_byte_d16_hi`), `D16Hi` bits 31:16
/// (`*_store_short_d16_hi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    U8,
    I8,
    U16,
    I16,
    B32,
    B64,
    B96,
    B128,
    D16LoU8,
    D16LoI8,
    D16Lo,
    D16HiU8,
    D16HiI8,
    D16Hi,
}

impl Width {
    /// Bytes of memory accessed.
    pub fn bytes(self) -> usize {
        match self {
            Width::U8 | Width::I8 | Width::D16LoU8 | Width::D16LoI8 | Width::D16HiU8 | Width::D16HiI8 => 1,
            Width::U16 | Width::I16 | Width::D16Lo | Width::D16Hi => 2,
            Width::B32 => 4,
            Width::B64 => 8,
            Width::B96 => 12,
            Width::B128 => 16,
        }
    }

    /// Dwords of the register operand (data or destination).
    pub fn reg_dwords(self) -> usize {
        match self {
            Width::B64 => 2,
            Width::B96 => 3,
            Width::B128 => 4,
            _ => 1,
        }
    }

    pub fn is_d16(self) -> bool {
        matches!(self, Width::D16LoU8 | Width::D16LoI8 | Width::D16Lo | Width::D16HiU8 | Width::D16HiI8 | Width::D16Hi)
    }

    /// The d16 forms on bits 31:16 of the register.
    pub fn is_d16_hi(self) -> bool {
        matches!(self, Width::D16HiU8 | Width::D16HiI8 | Width::D16Hi)
    }
}

/// Read-modify-write operations. Each has a 32-bit and a 64-bit form chosen by [`MemOp::width`]
/// (`B32` / `B64`); the packed float adds are 32-bit only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    /// `src - mem` (ds_rsub).
    Rsub,
    Min { signed: bool },
    Max { signed: bool },
    And,
    Or,
    Xor,
    Swap,
    /// `mem == cmp ? src : mem`; src from `data`, cmp from `data2` or from the dwords after src
    /// in `data` (see [`MemRegs`]).
    CmpSwap,
    /// `mem >= src ? 0 : mem + 1`.
    Inc,
    /// `mem == 0 || mem > src ? src : mem - 1`.
    Dec,
    /// GFX12 `cond_sub_u32`: `mem >= src ? mem - src : mem`.
    CondSub,
    /// GFX12 `sub_clamp_u32`: `mem < src ? 0 : mem - src`.
    SubClamp,
    /// `ds_mskor`: `(mem & ~data) | data2`.
    MaskOr,
    /// IEEE add, `mem + src`, in the float mode given to [`Memories`].
    FAdd,
    /// IEEE minimumNumber (`min_num`): NaN loses, `-0 < +0`.
    FMin,
    /// IEEE maximumNumber (`max_num`): NaN loses, `+0 > -0`.
    FMax,
    /// Two f16 adds, one per half.
    PkAddF16,
    /// Two bf16 adds, one per half.
    PkAddBf16,
}

/// What the instruction does with memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemKind {
    Load,
    Store,
    Atomic(AtomicOp),
}

/// Which alignments are checked (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AlignPolicy {
    /// Every width at its own size (B96 at 4).
    Natural,
    /// 16-bit at 2, 4 bytes and wider at 4.
    #[default]
    Dword,
    /// No check except atomics, which are always naturally aligned.
    Unaligned,
}

/// The two addresses of `ds_{load,store}_2addr{,_stride64}_b32/b64` (GFX9: `ds_read2`/`ds_write2`):
/// element `n` is at `addr + offsetN * elem_bytes * (stride64 ? 64 : 1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DsPair {
    pub offset0: u8,
    pub offset1: u8,
    pub stride64: bool,
}

/// An abstract memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemOp {
    pub space: Space,
    pub kind: MemKind,
    /// The access width; for [`DsPair`] the width of one element (`B32` or `B64`).
    pub width: Width,
    /// Atomics: write the pre-op value to `dst` (`_rtn`, GLC/TH_ATOMIC_RETURN set).
    pub returns: bool,
    /// `ds_*_2addr_*`: two elements at two addresses.
    pub pair: Option<DsPair>,
    pub align: AlignPolicy,
}

impl MemOp {
    pub fn load(space: Space, width: Width) -> MemOp {
        MemOp { space, kind: MemKind::Load, width, returns: false, pair: None, align: AlignPolicy::default() }
    }
    pub fn store(space: Space, width: Width) -> MemOp {
        MemOp { space, kind: MemKind::Store, width, returns: false, pair: None, align: AlignPolicy::default() }
    }
    pub fn atomic(space: Space, op: AtomicOp, width: Width, returns: bool) -> MemOp {
        MemOp { space, kind: MemKind::Atomic(op), width, returns, pair: None, align: AlignPolicy::default() }
    }
    pub fn with_pair(mut self, offset0: u8, offset1: u8, stride64: bool) -> MemOp {
        self.pair = Some(DsPair { offset0, offset1, stride64 });
        self
    }
    pub fn with_align(mut self, align: AlignPolicy) -> MemOp {
        self.align = align;
        self
    }

    pub fn required_align(&self) -> u64 {
        let bytes = self.width.bytes() as u64;
        if let MemKind::Atomic(_) = self.kind {
            return bytes;
        }
        match self.align {
            AlignPolicy::Unaligned => 1,
            AlignPolicy::Natural if self.width == Width::B96 => 4,
            AlignPolicy::Natural => bytes,
            AlignPolicy::Dword => bytes.min(4),
        }
    }
}

/// The vector registers of a memory instruction: only the base register of each operand is used
/// (its class, VGPR or AGPR, and index); the number of dwords comes from the [`MemOp`].
///
/// * `dst`: load destination, or the returned pre-op value of an atomic.
/// * `data`: store data; atomic source (for [`AtomicOp::CmpSwap`] the *src*, the value stored
///   when the compare succeeds; for [`AtomicOp::MaskOr`] the mask); the first element of a
///   [`DsPair`] store.
/// * `data2`: the second element of a [`DsPair`] store; the cmp of a DS compare-and-swap; the
///   or-value of `ds_mskor`. When a `CmpSwap` has no `data2`, cmp is read from the dwords right
///   after src in `data` (the VMEM `{src, cmp}` tuple).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemRegs {
    pub dst: Option<Reg>,
    pub data: Option<Reg>,
    pub data2: Option<Reg>,
}

impl MemRegs {
    /// Registers given as VGPR numbers.
    pub fn vgprs(dst: Option<u16>, data: Option<u16>, data2: Option<u16>) -> MemRegs {
        MemRegs { dst: dst.map(vgpr), data: data.map(vgpr), data2: data2.map(vgpr) }
    }
}

/// VGPR `index`, one dword.
pub fn vgpr(index: u16) -> Reg {
    Reg { class: RegClass::Vgpr, index, dwords: 1 }
}

/// Maps the encoded DATA0/DATA1 registers of a DS compare-and-swap to (src, cmp) for
/// [`MemRegs::data`] / [`MemRegs::data2`]: GFX12 `ds_cmpstore_*` has DATA0 = src, DATA1 = cmp;
/// GFX9 `ds_cmpst_*` has DATA0 = cmp, DATA1 = src.
pub fn ds_cmpswap_regs(target: Target, data0: Reg, data1: Reg) -> (Reg, Reg) {
    match target {
        Target::Gfx1250 => (data0, data1),
        Target::Gfx942 | Target::Gfx950 => (data1, data0),
    }
}

/// The new memory value of atomic `a` on `old` (32-bit values in the low half when `!wide`).
/// `src` is DATA; `second` is cmp for [`AtomicOp::CmpSwap`] and DATA2 for [`AtomicOp::MaskOr`].
pub fn atomic_value(a: AtomicOp, wide: bool, old: u64, src: u64, second: u64, m: &FpMode) -> u64 {
    let (o32, s32) = (old as u32, src as u32);
    let signed_lt = |x: u64, y: u64| if wide { (x as i64) < (y as i64) } else { (x as u32 as i32) < (y as u32 as i32) };
    match a {
        AtomicOp::Add => old.wrapping_add(src),
        AtomicOp::Sub => old.wrapping_sub(src),
        AtomicOp::Rsub => src.wrapping_sub(old),
        AtomicOp::Min { signed: true } => if signed_lt(src, old) { src } else { old },
        AtomicOp::Max { signed: true } => if signed_lt(old, src) { src } else { old },
        AtomicOp::Min { signed: false } => old.min(src),
        AtomicOp::Max { signed: false } => old.max(src),
        AtomicOp::And => old & src,
        AtomicOp::Or => old | src,
        AtomicOp::Xor => old ^ src,
        AtomicOp::Swap => src,
        AtomicOp::CmpSwap => if old == second { src } else { old },
        AtomicOp::Inc => if old >= src { 0 } else { old.wrapping_add(1) },
        AtomicOp::Dec => if old == 0 || old > src { src } else { old - 1 },
        AtomicOp::CondSub => if old >= src { old - src } else { old },
        AtomicOp::SubClamp => if old < src { 0 } else { old - src },
        AtomicOp::MaskOr => (old & !src) | second,
        AtomicOp::FAdd if wide => fp::add_f64(old, src, m),
        AtomicOp::FAdd => fp::add_f32(o32, s32, m) as u64,
        AtomicOp::FMin if wide => fp::min_num_f64(src, old, m),
        AtomicOp::FMin => fp::min_num_f32(s32, o32, m) as u64,
        AtomicOp::FMax if wide => fp::max_num_f64(src, old, m),
        AtomicOp::FMax => fp::max_num_f32(s32, o32, m) as u64,
        AtomicOp::PkAddF16 => {
            let lo = fp::add_f16(o32 & 0xffff, s32 & 0xffff, m) & 0xffff;
            let hi = fp::add_f16(o32 >> 16, s32 >> 16, m) & 0xffff;
            (lo | hi << 16) as u64
        }
        AtomicOp::PkAddBf16 => {
            let lo = fp::add_bf16(o32 & 0xffff, s32 & 0xffff, m) & 0xffff;
            let hi = fp::add_bf16(o32 >> 16, s32 >> 16, m) & 0xffff;
            (lo | hi << 16) as u64
        }
    }
}

/// What a memory mnemonic means, independent of its operands: see [`classify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemShape {
    pub space: Space,
    pub kind: MemKind,
    pub width: Width,
    /// `ds_*2*` two-address forms: `Some(stride64)`; the offsets come from the instruction.
    pub pair: Option<bool>,
    /// Whether an atomic returns the pre-op value, when the name says so (`ds_*_rtn_*`, and
    /// `ds_wrxchg`/`ds_storexchg`, which always return). `None` for VMEM atomics: GFX9 returns
    /// when GLC/SC0 is set, GFX12 when TH bit 0 (TH_ATOMIC_RETURN) is set.
    pub returns: Option<bool>,
}

impl MemShape {
    /// The [`MemOp`], given the DS pair offsets (ignored unless `pair`) and whether a VMEM
    /// atomic returns (from its cache-policy bits; ignored when the name decides).
    pub fn to_op(&self, offset0: u8, offset1: u8, vmem_returns: bool) -> MemOp {
        MemOp {
            space: self.space,
            kind: self.kind,
            width: self.width,
            returns: matches!(self.kind, MemKind::Atomic(_)) && self.returns.unwrap_or(vmem_returns),
            pair: self.pair.map(|stride64| DsPair { offset0, offset1, stride64 }),
            align: AlignPolicy::default(),
        }
    }
}

fn load_width(t: &str) -> Option<Width> {
    Some(match t {
        "ubyte" | "u8" => Width::U8,
        "sbyte" | "i8" => Width::I8,
        "ushort" | "u16" => Width::U16,
        "sshort" | "i16" => Width::I16,
        "dword" | "b32" => Width::B32,
        "dwordx2" | "b64" => Width::B64,
        "dwordx3" | "b96" => Width::B96,
        "dwordx4" | "b128" => Width::B128,
        "ubyte_d16" | "u8_d16" | "d16_u8" => Width::D16LoU8,
        "sbyte_d16" | "i8_d16" | "d16_i8" => Width::D16LoI8,
        "short_d16" | "u16_d16" | "d16_b16" => Width::D16Lo,
        "ubyte_d16_hi" | "u8_d16_hi" | "d16_hi_u8" => Width::D16HiU8,
        "sbyte_d16_hi" | "i8_d16_hi" | "d16_hi_i8" => Width::D16HiI8,
        "short_d16_hi" | "u16_d16_hi" | "d16_hi_b16" => Width::D16Hi,
        _ => return None,
    })
}

fn store_width(t: &str) -> Option<Width> {
    Some(match t {
        "byte" | "b8" => Width::U8,
        "short" | "b16" => Width::U16,
        "dword" | "b32" => Width::B32,
        "dwordx2" | "b64" => Width::B64,
        "dwordx3" | "b96" => Width::B96,
        "dwordx4" | "b128" => Width::B128,
        "byte_d16_hi" | "b8_d16_hi" | "d16_hi_b8" => Width::D16HiU8,
        "short_d16_hi" | "b16_d16_hi" | "d16_hi_b16" => Width::D16Hi,
        _ => return None,
    })
}

/// An atomic's operation and width from its name without the space prefix and `_rtn`
/// (`add_u32`, `add_x2`, `cmpswap`, `smin`, `min_num_f32`, `pk_add_f16`, ...).
fn atomic_shape(name: &str) -> Option<(AtomicOp, Width)> {
    let (base, wide) = if let Some(b) = name.strip_suffix("_x2") {
        (b, Some(true))
    } else {
        (name, None)
    };
    // Float forms carry their type in the operation.
    let float = |op: AtomicOp, w: Width| Some((op, w));
    match base {
        "add_f32" => return float(AtomicOp::FAdd, Width::B32),
        "add_f64" => return float(AtomicOp::FAdd, Width::B64),
        "min_num_f32" => return float(AtomicOp::FMin, Width::B32),
        "max_num_f32" => return float(AtomicOp::FMax, Width::B32),
        // GFX9 `*_min_f64`/`*_max_f64` and `ds_min_f32`/`ds_max_f32` compare with the older
        // legacy rules (NaN and signed-zero handling not pinned down by the guides): not modelled.
        "min_num_f64" => return float(AtomicOp::FMin, Width::B64),
        "max_num_f64" => return float(AtomicOp::FMax, Width::B64),
        "pk_add_f16" => return float(AtomicOp::PkAddF16, Width::B32),
        "pk_add_bf16" => return float(AtomicOp::PkAddBf16, Width::B32),
        _ => {}
    }
    let (op_name, ty_wide) = match base.rsplit_once('_') {
        Some((o, "b32" | "u32" | "i32")) => (o, Some(false)),
        Some((o, "b64" | "u64" | "i64")) => (o, Some(true)),
        _ => (base, None),
    };
    let wide = match (wide, ty_wide) {
        (Some(_), Some(_)) => return None,
        (w, t) => w.or(t).unwrap_or(false),
    };
    let signed = base.ends_with("_i32") || base.ends_with("_i64");
    let op = match op_name {
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "rsub" => AtomicOp::Rsub,
        "smin" => AtomicOp::Min { signed: true },
        "umin" => AtomicOp::Min { signed: false },
        "smax" => AtomicOp::Max { signed: true },
        "umax" => AtomicOp::Max { signed: false },
        "min" if ty_wide.is_some() => AtomicOp::Min { signed },
        "max" if ty_wide.is_some() => AtomicOp::Max { signed },
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "swap" | "wrxchg" | "storexchg" => AtomicOp::Swap,
        "cmpswap" | "cmpst" | "cmpstore" => AtomicOp::CmpSwap,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "cond_sub" => AtomicOp::CondSub,
        "sub_clamp" => AtomicOp::SubClamp,
        "mskor" => AtomicOp::MaskOr,
        _ => return None,
    };
    Some((op, if wide { Width::B64 } else { Width::B32 }))
}

/// Classifies a global/flat/scratch/DS memory mnemonic of gfx942/gfx950 (GFX9 spellings:
/// `global_load_dwordx2`, `ds_read2st64_b32`, `global_atomic_add_x2`, `ds_cmpst_rtn_b32`) or
/// gfx1250 (GFX12 spellings: `global_load_b64`, `ds_load_2addr_stride64_b32`,
/// `global_atomic_add_u64`, `ds_cmpstore_rtn_b32`). `None` for anything else, including
/// forms not modelled here (buffer/MUBUF, `*_lds` loads to LDS, `ds_wrxchg2*`, GFX9 legacy
/// float min/max atomics `ds_min_f32`/`global_atomic_min_f64`..., `ds_append`, transposing loads) — the executor reports those as
/// unsupported. DS compare-and-swap operands still need [`ds_cmpswap_regs`].
/// Transpose loads (gfx1250 `ds_load_tr*`/`global_load_tr*`, gfx950 `ds_read_b*_tr_b*`): a lane's
/// result holds elements other lanes addressed. No source at hand (LLVM's .td files, intrinsic
/// descriptions and docs; public ISA excerpts) states the lane-to-element mapping exactly: the
/// forms compiled kernels pin are modelled ([`ds_transpose_shape`]), the others are refused
/// ([`TRANSPOSE_REFUSED`]) instead of guessed.
pub fn is_transpose_load(mnemonic: &str) -> bool {
    mnemonic.starts_with("ds_load_tr") || mnemonic.starts_with("global_load_tr") || (mnemonic.starts_with("ds_read_b") && mnemonic.contains("_tr_b"))
}

/// Which lane mapping an LDS transpose load follows ([`ds_transpose_lanes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrLanes {
    /// gfx950's `ds_read_b64_tr_b8/b16` (wave64).
    Gfx950,
    /// gfx1250's `ds_load_tr8_b64` (wave32).
    Gfx1250Tr8,
    /// gfx1250's `ds_load_tr16_b128` (wave32).
    Gfx1250Tr16,
}

/// (element bits, bytes a lane reads, lane mapping) of the LDS transpose loads the emulator
/// models: gfx950's `ds_read_b64_tr_b8` and `ds_read_b64_tr_b16` and gfx1250's `ds_load_tr8_b64`
/// and `ds_load_tr16_b128`, the forms compiled kernels pin (see [`ds_transpose_source`]).
/// gfx1250's `ds_load_tr4_b64` and `ds_load_tr6_b96` and the global transpose loads stay
/// refused: no kernel at hand uses them.
pub fn ds_transpose_shape(mnemonic: &str) -> Option<(usize, usize, TrLanes)> {
    match mnemonic {
        "ds_read_b64_tr_b8" => Some((8, 8, TrLanes::Gfx950)),
        "ds_read_b64_tr_b16" => Some((16, 8, TrLanes::Gfx950)),
        "ds_load_tr8_b64" => Some((8, 8, TrLanes::Gfx1250Tr8)),
        "ds_load_tr16_b128" => Some((16, 16, TrLanes::Gfx1250Tr16)),
        _ => None,
    }
}

/// The lane of a 16-lane group whose load supplies element `r` of lane `c`'s result, and which
/// element of that load it is, for an LDS transpose load with `e` elements a lane. Decided by
/// compiled kernels (no document at hand gives it; see below).
///
/// gfx950 (`ds_read_b64_tr_b8/b16`): the group's loads, in lane order, form a tile of E rows and
/// 16 columns (row r is lanes (16/E) r .. (16/E) (r+1) - 1, end to end), and lane c of the group
/// receives column c: element r of lane c's result is element c % E of the load of lane
/// (16/E) r + c / E. Pinned by corpus/triton's gfx950 natives built by Triton 3.9, which compute
/// numpy's answer under this reading (and not under an 8x8 transpose in 8-lane groups, nor a
/// 32-lane tile): `matmul_i8_64_w4` (ds_read_b64_tr_b8, exact int32 results),
/// `matmul_e4m3_64_w4`, `matmul_e5m2_64_w4` (ds_read_b64_tr_b8), `matmul_f16_32_w1/w4/w8`,
/// `matmul_f16_128_w4/w8`, `matmul_bf16_64_w4` and `flash_attn_fwd_w4` (ds_read_b64_tr_b16).
///
/// gfx1250 (`ds_load_tr8_b64`, 8 bytes a lane): the group's 16 loads form two 8x8 byte blocks.
/// Block b (0 or 1) has the loads of lanes 4b..4b+3 as rows 0-3 and of lanes 8+4b..8+4b+3 as
/// rows 4-7; lane 8b + i receives column i of block b. So byte r of lane c's result is byte
/// c % 8 of the load of lane (r % 4) + 4 (c / 8) + 8 (r / 4). This is not gfx950's reading
/// (which puts row r in lanes 2r, 2r+1). Pinned by corpus/triton's gfx1250 builds by Triton 3.9
/// of `matmul_i8_64_w4` (exact int32 results), `matmul_e4m3_64_w4` and `matmul_e5m2_64_w4`,
/// which compute numpy's answer under it and not under gfx950's reading, an 8x8 transpose in
/// 8-lane groups or a 32-lane tile. How it was found: with A[m][k] = m or k and B[k][n] = k or
/// n as inputs, lane l of such a kernel loads (k, n) = (l % 4 + 4 (l % 16 / 8) + 8 (l / 16) + 16
/// j, 8 (l / 4 % 2) ..) for its j-th load, and the WMMA's other operand (plain loads) holds k =
/// 16 (e / 8) + 8 (l / 16) + e % 8 in byte e (GFX12's 8-bit A layout); the mapping above is the
/// only one that gives the transposed operand the same k in every byte.
///
/// gfx1250 (`ds_load_tr16_b128`, 8 16-bit elements a lane): two 8x8 blocks of 16-bit elements,
/// block b the loads of lanes 8b..8b+7 as rows 0-7; lane 8b + i receives column i. So element r
/// of lane c's result is element c % 8 of the load of lane r + 8 (c / 8). Found the same way on
/// Triton's gfx1250 `matmul_f16_32_w1` (lane l loads (k, n) = (l % 8 + 8 (l / 16) + 16 j,
/// 8 (l % 16 / 8) ..); the plain-loaded operand holds GFX12's 16-bit A layout, k = 16 (e / 8) +
/// 8 (l / 16) + e % 8 in element e), and pinned by the gfx1250 builds of `matmul_f16_32_w1/w4/w8`,
/// `matmul_f16_128_w8`, `matmul_bf16_64_w4` and `flash_attn_fwd_w4`, which compute numpy's answer
/// under it (they run once the decoder knows true16 `v_mov_b16`, which they also use).
pub fn ds_transpose_source(lanes: TrLanes, e: usize, c: usize, r: usize) -> (usize, usize) {
    match lanes {
        TrLanes::Gfx950 => ((16 / e.max(1)) * r + c / e.max(1), c % e.max(1)),
        TrLanes::Gfx1250Tr8 => ((r % 4) + 4 * (c / 8) + 8 * (r / 4), c % 8),
        TrLanes::Gfx1250Tr16 => (r + 8 * (c / 8), c % 8),
    }
}

/// The results of an LDS transpose load from every lane's `loaded` bytes (lanes in groups of 16;
/// see [`ds_transpose_source`]).
pub fn ds_transpose_lanes(loaded: &[Vec<u8>], elem_bits: usize, lanes: TrLanes) -> Vec<Vec<u8>> {
    let gsize = 16;
    let bytes = loaded.first().map_or(0, Vec::len);
    let eb = elem_bits / 8;
    let e = bytes / eb;
    let mut out = vec![vec![0u8; bytes]; loaded.len()];
    for g in (0..loaded.len()).step_by(gsize) {
        for c in 0..gsize.min(loaded.len() - g) {
            for r in 0..e {
                let (src_lane, src_elem) = ds_transpose_source(lanes, e, c, r);
                if let Some(src) = loaded.get(g + src_lane) {
                    out[g + c][r * eb..(r + 1) * eb].copy_from_slice(&src[src_elem * eb..(src_elem + 1) * eb]);
                }
            }
        }
    }
    out
}

/// Why [`is_transpose_load`] instructions are refused.
pub const TRANSPOSE_REFUSED: &str = "transpose loads are not modelled: their lane-to-element mapping is not documented in any source at hand";

pub fn classify(mnemonic: &str) -> Option<MemShape> {
    let shape = |space, kind, width, pair, returns| Some(MemShape { space, kind, width, pair, returns });
    if let Some(rest) = mnemonic.strip_prefix("ds_") {
        fn pair_kind(r: &str) -> Option<(bool, &str)> {
            [("2st64_", true), ("2_", false), ("_2addr_stride64_", true), ("_2addr_", false)]
                .into_iter()
                .find_map(|(p, st)| r.strip_prefix(p).map(|t| (st, t)))
        }
        for (verb, load) in [("read", true), ("load", true), ("write", false), ("store", false)] {
            let Some(r) = rest.strip_prefix(verb) else { continue };
            if let Some((st64, t)) = pair_kind(r) {
                let w = match t {
                    "b32" => Width::B32,
                    "b64" => Width::B64,
                    _ => return None,
                };
                return shape(Space::Lds, if load { MemKind::Load } else { MemKind::Store }, w, Some(st64), None);
            }
            let Some(t) = r.strip_prefix('_') else { continue };
            if t.starts_with("addtid") {
                return None;
            }
            if load {
                return shape(Space::Lds, MemKind::Load, load_width(t)?, None, None);
            }
            return shape(Space::Lds, MemKind::Store, store_width(t)?, None, None);
        }
        let (name, rtn) = match rest.split_once("_rtn") {
            Some((a, b)) => (format!("{a}{b}"), true),
            None => (rest.to_string(), false),
        };
        let (op, w) = atomic_shape(&name)?;
        // ds_wrxchg/storexchg exist only with return.
        let rtn = rtn || op == AtomicOp::Swap;
        return shape(Space::Lds, MemKind::Atomic(op), w, None, Some(rtn));
    }
    let (space, rest) = if let Some(r) = mnemonic.strip_prefix("global_") {
        (Space::Global, r)
    } else if let Some(r) = mnemonic.strip_prefix("flat_") {
        (Space::Flat, r)
    } else if let Some(r) = mnemonic.strip_prefix("scratch_") {
        (Space::Scratch, r)
    } else {
        return None;
    };
    if let Some(t) = rest.strip_prefix("load_") {
        return shape(space, MemKind::Load, load_width(t)?, None, None);
    }
    if let Some(t) = rest.strip_prefix("store_") {
        return shape(space, MemKind::Store, store_width(t)?, None, None);
    }
    if let Some(t) = rest.strip_prefix("atomic_") {
        if space == Space::Scratch {
            return None;
        }
        let (op, w) = atomic_shape(t)?;
        return shape(space, MemKind::Atomic(op), w, None, None);
    }
    None
}

/// The lane a `ds_bpermute_b32` / `ds_permute_b32` address selects: `((addr + offset) / 4) mod
/// lanes`, computed as bits of the 32-bit sum (the guides: "ADDR needs to be divided by 4;
/// high-order bits are ignored"). So it wraps within the wave: on gfx1250 (wave32) only bits 6:2
/// count, on gfx942/gfx950 (wave64) bits 7:2. For wave32 code run as one half of a wave64, the
/// translation must keep bits 6:2 and add the half's base lane (`lane & 32`) — a plain wave64
/// bpermute of a wave32 address ≥ 128 would read the other half.
pub fn permute_lane(addr: u32, offset: u16, lanes: usize) -> usize {
    (addr.wrapping_add(offset as u32) >> 2) as usize & (lanes - 1)
}

/// `ds_bpermute_b32` (pull): lane `i` gets `data[permute_lane(addr[i])]`, or 0 when that source
/// lane is inactive, unless `fetch_inactive` (`ds_bpermute_fi_b32`, GFX12) reads it anyway.
/// Returns one value per lane; the caller writes only active lanes. `addr`, `data`: one entry
/// per lane of the wave.
pub fn bpermute(addr: &[u32], data: &[u32], exec: u64, offset: u16, fetch_inactive: bool) -> Vec<u32> {
    let lanes = data.len();
    (0..lanes)
        .map(|i| {
            let s = permute_lane(addr[i], offset, lanes);
            if fetch_inactive || exec >> s & 1 != 0 { data[s] } else { 0 }
        })
        .collect()
}

/// `ds_permute_b32` (push): each active lane `i` sends `data[i]` to lane `permute_lane(addr[i])`;
/// lanes nobody sends to get 0. Where several lanes send to one lane, the highest-numbered
/// sender wins (CDNA3 guide pseudocode; the RDNA4 guide calls the choice nondeterministic, so a
/// kernel whose result depends on it is not portable anyway).
pub fn permute(addr: &[u32], data: &[u32], exec: u64, offset: u16) -> Vec<u32> {
    let lanes = data.len();
    let mut out = vec![0u32; lanes];
    for i in (0..lanes).filter(|i| exec >> i & 1 != 0) {
        out[permute_lane(addr[i], offset, lanes)] = data[i];
    }
    out
}

/// A decoded `ds_swizzle_b32` offset (the 16-bit `offset` field), per the GFX9/CDNA3 and RDNA4
/// guides' pseudocode and LLVM's `AMDGPU::Swizzle` encoding (SIDefines.h). LLVM prints the FFT
/// and rotate modes for GFX9+ (gfx942, gfx950, gfx1250 all have them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// offset ≥ 0xE000: `j = (bitreverse5(i) >> popcount(mask)) | (i & mask)` within 32 lanes.
    Fft { mask: u8 },
    /// 0xC000 ≤ offset < 0xE000: rotate by `amount` lanes within 32 (`right` = offset bit 10),
    /// keeping the lane bits in `mask` (offset 4:0; LLVM's syntax always leaves it 0):
    /// `j = (i & mask) | ((i ± amount) & ~mask & 31)`; left means lane `i` reads lane `i + amount`.
    Rotate { right: bool, amount: u8, mask: u8 },
    /// offset bit 15 set (below 0xC000): in every group of 4 lanes, lane `k` reads lane `sel[k]`
    /// (offset bits 2k+1:2k).
    QuadPerm([u8; 4]),
    /// offset bit 15 clear: within each group of 32 lanes,
    /// `j = ((i & and_mask) | or_mask) ^ xor_mask` (masks at offset bits 4:0, 9:5, 14:10).
    BitMask { and_mask: u8, or_mask: u8, xor_mask: u8 },
}

impl Swizzle {
    pub fn decode(offset: u16) -> Swizzle {
        let f = |shift: u32| ((offset >> shift) & 0x1f) as u8;
        if offset >= 0xe000 {
            Swizzle::Fft { mask: f(0) }
        } else if offset >= 0xc000 {
            Swizzle::Rotate { right: offset >> 10 & 1 != 0, amount: f(5), mask: f(0) }
        } else if offset & 0x8000 != 0 {
            Swizzle::QuadPerm([0, 1, 2, 3].map(|k| ((offset >> (2 * k)) & 3) as u8))
        } else {
            Swizzle::BitMask { and_mask: f(0), or_mask: f(5), xor_mask: f(10) }
        }
    }

    /// The lane that lane `lane` reads.
    pub fn source_lane(&self, lane: usize) -> usize {
        let (i, group) = (lane & 31, lane & !31);
        let j = match *self {
            Swizzle::Fft { mask } => {
                let rev = (i as u32).reverse_bits() >> 27;
                ((rev >> mask.count_ones()) as usize) | (i & mask as usize)
            }
            Swizzle::Rotate { right, amount, mask } => {
                let m = mask as usize;
                let moved = if right { i.wrapping_sub(amount as usize) } else { i + amount as usize };
                (i & m) | (moved & !m & 31)
            }
            Swizzle::QuadPerm(sel) => (i & !3) | sel[i & 3] as usize,
            Swizzle::BitMask { and_mask, or_mask, xor_mask } => {
                (((i & and_mask as usize) | or_mask as usize) ^ xor_mask as usize) & 31
            }
        };
        group | j
    }
}

/// The source lane of `lane` under swizzle `pattern` in a wave of `lanes` lanes (`None` if
/// `lane` is not in the wave).
pub fn swizzle_lane(pattern: u16, lane: usize, lanes: usize) -> Option<usize> {
    (lane < lanes).then(|| Swizzle::decode(pattern).source_lane(lane))
}

/// `ds_swizzle_b32` over a wave's values: lane `i` reads its source lane, or 0 when that lane is
/// inactive ("reading from an invalid thread results in 0").
pub fn swizzle(data: &[u32], exec: u64, pattern: u16) -> Vec<u32> {
    let s = Swizzle::decode(pattern);
    (0..data.len())
        .map(|i| {
            let j = s.source_lane(i);
            if exec >> j & 1 != 0 { data[j] } else { 0 }
        })
        .collect()
}

/// The bytes one lane copies, for the async global→LDS loads; None for other mnemonics.
pub fn async_load_size(mnemonic: &str) -> Option<u64> {
    Some(match mnemonic.strip_prefix("global_load_async_to_lds_")? {
        "b8" => 1,
        "b32" => 4,
        "b64" => 8,
        "b128" => 16,
        _ => return None,
    })
}
