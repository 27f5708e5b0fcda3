use thiserror::Error;

/// Why a code object cannot be read. Every variant says what was wrong and at which file offset.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CodeObjectError {
    #[error("truncated {what} at offset {offset:#x}: needs {need} bytes, {have} available")]
    Truncated { what: &'static str, offset: u64, need: u64, have: u64 },
    #[error("not an ELF file (bad magic at offset 0)")]
    NotElf,
    #[error("unsupported ELF class {class} at offset 4 (AMDGPU code objects are ELF64)")]
    WrongClass { class: u8 },
    #[error("unsupported ELF data encoding {0} at offset 5 (AMDGPU code objects are little-endian)")]
    WrongEndian(u8),
    #[error("ELF machine {machine} at offset 18 is not EM_AMDGPU (224)")]
    WrongMachine { machine: u16 },
    #[error("ELF OS ABI {osabi} at offset 7 is not ELFOSABI_AMDGPU_HSA (64)")]
    WrongOsAbi { osabi: u8 },
    #[error("unsupported code object ABI version {abi_version} at offset 8 (v4, v5 and v6 are supported)")]
    UnsupportedVersion { abi_version: u8 },
    #[error("ELF type {e_type} at offset 16 is neither ET_REL nor ET_DYN")]
    WrongType { e_type: u16 },
    #[error("{what} at offset {offset:#x} (size {size:#x}) lies outside the file ({file_size:#x} bytes)")]
    OutOfBounds { what: String, offset: u64, size: u64, file_size: u64 },
    #[error("malformed ELF: {0}")]
    Elf(String),
    #[error("malformed note at offset {offset:#x}: {msg}")]
    Note { offset: u64, msg: String },
    #[error("bad msgpack in the AMDGPU metadata note at offset {offset:#x}: {msg}")]
    Msgpack { offset: u64, msg: String },
    #[error("bad AMDGPU metadata (note descriptor at offset {offset:#x}): {msg}")]
    Metadata { offset: u64, msg: String },
    #[error("kernel {kernel}: {msg}")]
    Kernel { kernel: String, msg: String },
    #[error("kernel {kernel}: descriptor symbol {symbol} at {addr:#x} is not inside .rodata")]
    DescriptorOutsideRodata { kernel: String, symbol: String, addr: u64 },
    #[error("kernel {kernel}: code at {addr:#x} (from the descriptor at {descriptor:#x}) is not inside .text")]
    CodeOutsideText { kernel: String, addr: u64, descriptor: u64 },
}
