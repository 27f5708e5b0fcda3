//! The 64-byte AMDHSA kernel descriptor (AMDGPUUsage "Kernel Descriptor"), decoded field by field.
//!
//! The bit layouts of COMPUTE_PGM_RSRC1/2/3 differ between generations; they are data here
//! ([`FIELDS`]), each field naming the generations it exists on, so one decoder serves all.

use crate::error::CodeObjectError;

pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// Hardware generations whose descriptor layouts differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Generation {
    /// GFX9 before gfx90a (no RSRC3).
    Gfx9,
    /// gfx90a, gfx940/941/942, gfx950 (RSRC3 = ACCUM_OFFSET, TG_SPLIT).
    Gfx90a,
    Gfx10,
    Gfx11,
    /// GFX12.0 (gfx1200/gfx1201).
    Gfx120,
    /// GFX12.5 (gfx1250/gfx1251).
    Gfx125,
}

impl Generation {
    pub fn for_processor(name: &str) -> Option<Generation> {
        let g = match name {
            "gfx900" | "gfx902" | "gfx904" | "gfx906" | "gfx908" | "gfx909" | "gfx90c" => Generation::Gfx9,
            "gfx90a" | "gfx940" | "gfx941" | "gfx942" | "gfx950" => Generation::Gfx90a,
            "gfx1250" | "gfx1251" => Generation::Gfx125,
            n if n.starts_with("gfx10") => Generation::Gfx10,
            n if n.starts_with("gfx11") => Generation::Gfx11,
            n if n.starts_with("gfx12") => Generation::Gfx120,
            _ => return None,
        };
        Some(g)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Sets of generations a field exists on.
mod gens {
    pub const ALL: u8 = 0b11_1111;
    pub const GFX9_PLUS: u8 = ALL;
    pub const GFX6_GFX11: u8 = 0b00_1111;
    pub const GFX10_PLUS: u8 = 0b11_1100;
    pub const GFX11_PLUS: u8 = 0b11_1000;
    pub const GFX12_PLUS: u8 = 0b11_0000;
    pub const GFX90A: u8 = 0b00_0010;
    pub const GFX10_GFX11: u8 = 0b00_1100;
    pub const GFX11: u8 = 0b00_1000;
    pub const GFX120: u8 = 0b01_0000;
    pub const GFX125: u8 = 0b10_0000;
    pub const UP_TO_GFX120: u8 = 0b01_1111;
}

/// Which 32-bit word of the descriptor a field lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Word {
    Rsrc1,
    Rsrc2,
    Rsrc3,
    KernelCodeProperties,
    KernargPreload,
}

/// One named bit field of a descriptor word.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub word: Word,
    pub name: &'static str,
    pub shift: u32,
    pub width: u32,
    gens: u8,
}

const fn f(word: Word, name: &'static str, shift: u32, width: u32, gens: u8) -> Field {
    Field { word, name, shift, width, gens }
}

use gens::*;
use Word::*;

/// Every bit field, in register order (from AMDHSAKernelDescriptor facts).
pub const FIELDS: &[Field] = &[
    f(Rsrc1, "GRANULATED_WORKITEM_VGPR_COUNT", 0, 6, ALL),
    f(Rsrc1, "GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4, ALL),
    f(Rsrc1, "PRIORITY", 10, 2, ALL),
    f(Rsrc1, "FLOAT_ROUND_MODE_32", 12, 2, ALL),
    f(Rsrc1, "FLOAT_ROUND_MODE_16_64", 14, 2, ALL),
    f(Rsrc1, "FLOAT_DENORM_MODE_32", 16, 2, ALL),
    f(Rsrc1, "FLOAT_DENORM_MODE_16_64", 18, 2, ALL),
    f(Rsrc1, "PRIV", 20, 1, ALL),
    f(Rsrc1, "ENABLE_DX10_CLAMP", 21, 1, GFX6_GFX11),
    f(Rsrc1, "ENABLE_WG_RR_EN", 21, 1, GFX12_PLUS),
    f(Rsrc1, "DEBUG_MODE", 22, 1, ALL),
    f(Rsrc1, "ENABLE_IEEE_MODE", 23, 1, GFX6_GFX11),
    f(Rsrc1, "DISABLE_PERF", 23, 1, GFX12_PLUS),
    f(Rsrc1, "BULKY", 24, 1, ALL),
    f(Rsrc1, "CDBG_USER", 25, 1, ALL),
    f(Rsrc1, "FP16_OVFL", 26, 1, GFX9_PLUS),
    f(Rsrc1, "FLAT_SCRATCH_IS_NV", 27, 1, GFX125),
    f(Rsrc1, "WGP_MODE", 29, 1, GFX10_PLUS),
    f(Rsrc1, "MEM_ORDERED", 30, 1, GFX10_PLUS),
    f(Rsrc1, "FWD_PROGRESS", 31, 1, GFX10_PLUS),
    f(Rsrc2, "ENABLE_PRIVATE_SEGMENT", 0, 1, ALL),
    f(Rsrc2, "USER_SGPR_COUNT", 1, 5, UP_TO_GFX120),
    f(Rsrc2, "USER_SGPR_COUNT", 1, 6, GFX125),
    f(Rsrc2, "ENABLE_TRAP_HANDLER", 6, 1, GFX6_GFX11),
    f(Rsrc2, "ENABLE_DYNAMIC_VGPR", 6, 1, GFX120),
    f(Rsrc2, "ENABLE_SGPR_WORKGROUP_ID_X", 7, 1, ALL),
    f(Rsrc2, "ENABLE_SGPR_WORKGROUP_ID_Y", 8, 1, ALL),
    f(Rsrc2, "ENABLE_SGPR_WORKGROUP_ID_Z", 9, 1, ALL),
    f(Rsrc2, "ENABLE_SGPR_WORKGROUP_INFO", 10, 1, ALL),
    f(Rsrc2, "ENABLE_VGPR_WORKITEM_ID", 11, 2, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_ADDRESS_WATCH", 13, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_MEMORY", 14, 1, ALL),
    f(Rsrc2, "GRANULATED_LDS_SIZE", 15, 9, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION", 24, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", 25, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO", 26, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", 27, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", 28, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", 29, 1, ALL),
    f(Rsrc2, "ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", 30, 1, ALL),
    f(Rsrc2, "WGP_TAKEOVER", 31, 1, GFX12_PLUS),
    f(Rsrc3, "ACCUM_OFFSET", 0, 6, GFX90A),
    f(Rsrc3, "TG_SPLIT", 16, 1, GFX90A),
    f(Rsrc3, "SHARED_VGPR_COUNT", 0, 4, GFX10_GFX11),
    f(Rsrc3, "INST_PREF_SIZE", 4, 6, GFX11),
    f(Rsrc3, "TRAP_ON_START", 10, 1, GFX11),
    f(Rsrc3, "TRAP_ON_END", 11, 1, GFX11),
    f(Rsrc3, "INST_PREF_SIZE", 4, 8, GFX12_PLUS),
    f(Rsrc3, "GLG_EN", 13, 1, GFX12_PLUS),
    f(Rsrc3, "NAMED_BAR_CNT", 14, 3, GFX125),
    f(Rsrc3, "ENABLE_DYNAMIC_VGPR", 17, 1, GFX125),
    f(Rsrc3, "TCP_SPLIT", 18, 3, GFX125),
    f(Rsrc3, "ENABLE_DIDT_THROTTLE", 21, 1, GFX125),
    f(Rsrc3, "IMAGE_OP", 31, 1, GFX11_PLUS),
    f(KernelCodeProperties, "ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", 0, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_DISPATCH_PTR", 1, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_QUEUE_PTR", 2, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_KERNARG_SEGMENT_PTR", 3, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_DISPATCH_ID", 4, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_FLAT_SCRATCH_INIT", 5, 1, ALL),
    f(KernelCodeProperties, "ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", 6, 1, ALL),
    f(KernelCodeProperties, "ENABLE_WAVEFRONT_SIZE32", 10, 1, GFX10_PLUS),
    f(KernelCodeProperties, "USES_DYNAMIC_STACK", 11, 1, ALL),
    f(KernargPreload, "KERNARG_PRELOAD_SPEC_LENGTH", 0, 7, ALL),
    f(KernargPreload, "KERNARG_PRELOAD_SPEC_OFFSET", 7, 9, ALL),
];

/// A kernel descriptor: the raw words plus decoders.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    pub kernel_code_entry_byte_offset: i64,
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
    /// Reserved bytes (0-3 @12, 24-43, 60-63) that are not zero, kept to report and round-trip.
    pub reserved_nonzero: bool,
    #[serde(skip)]
    pub bytes: [u8; KERNEL_DESCRIPTOR_SIZE],
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl KernelDescriptor {
    /// Decodes 64 bytes; `offset` is only used for the error.
    pub fn parse(bytes: &[u8], offset: u64) -> Result<KernelDescriptor, CodeObjectError> {
        if bytes.len() < KERNEL_DESCRIPTOR_SIZE {
            return Err(CodeObjectError::Truncated {
                what: "kernel descriptor",
                offset,
                need: KERNEL_DESCRIPTOR_SIZE as u64,
                have: bytes.len() as u64,
            });
        }
        let b = &bytes[..KERNEL_DESCRIPTOR_SIZE];
        let reserved_nonzero = b[12..16].iter().chain(&b[24..44]).chain(&b[60..64]).any(|&x| x != 0);
        Ok(KernelDescriptor {
            group_segment_fixed_size: le32(b, 0),
            private_segment_fixed_size: le32(b, 4),
            kernarg_size: le32(b, 8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(b[16..24].try_into().unwrap()),
            compute_pgm_rsrc3: le32(b, 44),
            compute_pgm_rsrc1: le32(b, 48),
            compute_pgm_rsrc2: le32(b, 52),
            kernel_code_properties: u16::from_le_bytes([b[56], b[57]]),
            kernarg_preload: u16::from_le_bytes([b[58], b[59]]),
            reserved_nonzero,
            bytes: b.try_into().unwrap(),
        })
    }

    /// Encodes back to 64 bytes (reserved bytes as they were read).
    pub fn to_bytes(&self) -> [u8; KERNEL_DESCRIPTOR_SIZE] {
        let mut b = self.bytes;
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    fn word(&self, w: Word) -> u32 {
        match w {
            Rsrc1 => self.compute_pgm_rsrc1,
            Rsrc2 => self.compute_pgm_rsrc2,
            Rsrc3 => self.compute_pgm_rsrc3,
            KernelCodeProperties => self.kernel_code_properties as u32,
            KernargPreload => self.kernarg_preload as u32,
        }
    }

    /// Every field defined for `generation`, with its value, in register order.
    pub fn fields(&self, generation: Generation) -> Vec<(Word, &'static str, u32)> {
        FIELDS
            .iter()
            .filter(|fl| fl.gens & generation.bit() != 0)
            .filter(|fl| fl.word != Rsrc3 || generation != Generation::Gfx9)
            .map(|fl| (fl.word, fl.name, (self.word(fl.word) >> fl.shift) & ((1u64 << fl.width) - 1) as u32))
            .collect()
    }

    /// One named field for `generation` (None if the generation does not define it).
    pub fn field(&self, generation: Generation, name: &str) -> Option<u32> {
        self.fields(generation).into_iter().find(|(_, n, _)| *n == name).map(|(_, _, v)| v)
    }

    /// USER_SGPR_COUNT: 5 bits up to GFX12.0, 6 bits on GFX12.5.
    pub fn user_sgpr_count(&self, generation: Generation) -> u32 {
        self.field(generation, "USER_SGPR_COUNT").unwrap_or(0)
    }

    pub fn wavefront_size32(&self) -> bool {
        self.kernel_code_properties & (1 << 10) != 0
    }

    /// Kernarg preload: (length in dwords, offset in dwords).
    pub fn kernarg_preload(&self) -> (u32, u32) {
        (self.kernarg_preload as u32 & 0x7f, self.kernarg_preload as u32 >> 7)
    }

    /// VGPRs the granulated count stands for (the allocation, not the exact count). Granule:
    /// 8 for gfx90a-family (accumulation registers are part of the unified file), 8 for wave32
    /// GFX10-GFX12.0, 4 for wave64 GFX10+ and GFX9 (AMDGPUUsage, "GRANULATED_WORKITEM_VGPR_COUNT"),
    /// 16 on GFX12.5 (its 1024-register file; LLVM 22 encodes 10 VGPRs as granule count 0).
    pub fn vgpr_allocation(&self, generation: Generation) -> u32 {
        let g = self.compute_pgm_rsrc1 & 0x3f;
        let granule = match generation {
            Generation::Gfx90a => 8,
            Generation::Gfx9 => 4,
            Generation::Gfx125 => 16,
            _ if self.wavefront_size32() => 8,
            _ => 4,
        };
        (g + 1) * granule
    }
}
