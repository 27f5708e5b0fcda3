//! ELF header flags of AMDGPU code objects (AMDGPUUsage "ELF Header"): the processor in
//! EF_AMDGPU_MACH and, for code object v4 and later, the xnack and sramecc target features.

use bitflags::bitflags;

/// Mask of the processor field.
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// v4+ XNACK setting: 2 bits at 8.
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
/// v4+ SRAMECC setting: 2 bits at 10.
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
/// v6+: generic version, 8 bits at 24.
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;

bitflags! {
    /// The e_flags bits outside the processor field, as named flags (v4+ layout).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct EFlagBits: u32 {
        const XNACK_ANY = 0x100;
        const XNACK_OFF = 0x200;
        const XNACK_ON = 0x300;
        const SRAMECC_ANY = 0x400;
        const SRAMECC_OFF = 0x800;
        const SRAMECC_ON = 0xc00;
    }
}

/// Processors (EF_AMDGPU_MACH values), the subset with names here; others are kept as numbers.
pub const MACHS: &[(u8, &str)] = &[
    (0x2c, "gfx900"),
    (0x2f, "gfx906"),
    (0x30, "gfx908"),
    (0x33, "gfx1010"),
    (0x36, "gfx1030"),
    (0x3f, "gfx90a"),
    (0x40, "gfx940"),
    (0x41, "gfx1100"),
    (0x43, "gfx1150"),
    (0x48, "gfx1200"),
    (0x49, "gfx1250"),
    (0x4b, "gfx941"),
    (0x4c, "gfx942"),
    (0x4e, "gfx1201"),
    (0x4f, "gfx950"),
    (0x5a, "gfx1251"),
];

pub fn mach_name(mach: u8) -> Option<&'static str> {
    MACHS.iter().find(|(m, _)| *m == mach).map(|(_, n)| *n)
}

pub fn mach_for_name(name: &str) -> Option<u8> {
    MACHS.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
}

/// A target feature's setting in a v4+ code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureSetting {
    /// The processor does not support the feature.
    Unsupported,
    /// Code runs either way ("any", the default; no suffix in the target ID).
    Any,
    Off,
    On,
}

impl FeatureSetting {
    fn from_bits(v: u32) -> FeatureSetting {
        match v & 3 {
            0 => FeatureSetting::Unsupported,
            1 => FeatureSetting::Any,
            2 => FeatureSetting::Off,
            _ => FeatureSetting::On,
        }
    }
    fn bits(self) -> u32 {
        match self {
            FeatureSetting::Unsupported => 0,
            FeatureSetting::Any => 1,
            FeatureSetting::Off => 2,
            FeatureSetting::On => 3,
        }
    }
    /// Target-ID suffix (`+`, `-`) or none.
    pub fn suffix(self) -> Option<char> {
        match self {
            FeatureSetting::On => Some('+'),
            FeatureSetting::Off => Some('-'),
            _ => None,
        }
    }
}

/// Decoded e_flags of a v4+ AMDGPU code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct EFlags {
    pub raw: u32,
    pub mach: u8,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
    /// v6 generic version (0 when not a generic target).
    pub generic_version: u8,
}

impl EFlags {
    pub fn decode(raw: u32) -> EFlags {
        EFlags {
            raw,
            mach: (raw & EF_AMDGPU_MACH) as u8,
            xnack: FeatureSetting::from_bits(raw >> 8),
            sramecc: FeatureSetting::from_bits(raw >> 10),
            generic_version: (raw >> 24) as u8,
        }
    }

    pub fn encode(mach: u8, xnack: FeatureSetting, sramecc: FeatureSetting) -> u32 {
        mach as u32 | xnack.bits() << 8 | sramecc.bits() << 10
    }

    pub fn processor(&self) -> Option<&'static str> {
        mach_name(self.mach)
    }

    /// Target ID as ROCm spells it: `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
    pub fn target_id(&self) -> String {
        let mut s = format!(
            "amdgcn-amd-amdhsa--{}",
            self.processor().map(str::to_string).unwrap_or_else(|| format!("mach-0x{:02x}", self.mach))
        );
        // LLVM orders features alphabetically: sramecc before xnack.
        if let Some(c) = self.sramecc.suffix() {
            s.push_str(&format!(":sramecc{c}"));
        }
        if let Some(c) = self.xnack.suffix() {
            s.push_str(&format!(":xnack{c}"));
        }
        s
    }
}

/// Code object version from EI_ABIVERSION (with ELFOSABI_AMDGPU_HSA): 2 -> v4, 3 -> v5, 4 -> v6.
pub fn code_object_version(abi_version: u8) -> Option<u32> {
    match abi_version {
        0 => Some(2),
        1 => Some(3),
        2 => Some(4),
        3 => Some(5),
        4 => Some(6),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_flags_rust_lld_writes() {
        // Values seen on objects linked by rust-lld (shared/LLVM.md).
        let f = EFlags::decode(0x549);
        assert_eq!(f.processor(), Some("gfx1250"));
        assert_eq!((f.xnack, f.sramecc), (FeatureSetting::Any, FeatureSetting::Any));
        assert_eq!(f.target_id(), "amdgcn-amd-amdhsa--gfx1250");
        assert_eq!(EFlags::decode(0x54c).processor(), Some("gfx942"));
        assert_eq!(EFlags::decode(0x54f).processor(), Some("gfx950"));
        let f = EFlags::decode(0xb4c); // xnack on (0x300), sramecc off (0x800)
        assert_eq!(f.target_id(), "amdgcn-amd-amdhsa--gfx942:sramecc-:xnack+");
        assert_eq!(EFlags::encode(0x4c, FeatureSetting::On, FeatureSetting::Off), 0xb4c);
        assert_eq!(EFlagBits::from_bits_truncate(0x549 & !EF_AMDGPU_MACH), EFlagBits::XNACK_ANY | EFlagBits::SRAMECC_ANY);
        assert_eq!(EFlags::decode(0x77).target_id(), "amdgcn-amd-amdhsa--mach-0x77");
        assert_eq!(code_object_version(3), Some(5));
        assert_eq!(code_object_version(9), None);
    }
}

/// The LDS one work-group can allocate on a processor, in bytes: LLVM's addressable local
/// memory size (64 KiB on gfx942, 160 KiB on gfx950, 320 KiB on gfx1250). A dispatch that asks
/// for more does not launch; a kernel whose static LDS is larger cannot be compiled for it.
pub fn lds_limit(processor: &str) -> Option<u64> {
    Some(match processor {
        "gfx942" => 64 << 10,
        "gfx950" => 160 << 10,
        "gfx1250" => 320 << 10,
        _ => return None,
    })
}
