//! hx-relink: an in-process linker for AMDGPU code objects.
//!
//! [`link`] turns the relocatable ELF (ET_REL) that LLVM's AMDGPU backend emits for one module into
//! the loadable code object (ET_DYN) that `ld.lld -shared --no-undefined` (ROCm's linker, or the Rust
//! toolchain's `rust-lld -flavor gnu`) produces from it: the same sections in the same order at the
//! same addresses and file offsets, the same program headers, `.dynsym`/`.gnu.hash`/`.hash`/`.dynstr`,
//! `.dynamic`, `.relro_padding`, `.comment`, `.symtab`/`.shstrtab`/`.strtab`, relocations applied the
//! way lld applies them. For the project's corpus the output is byte-identical to rust-lld's.
//!
//! What it links (everything else is an error naming the item and its offset, never a guess):
//! - one input object (ELF64, little-endian, EM_AMDGPU, ET_REL);
//! - sections of type PROGBITS and NOTE (allocated with any of W/X, or non-allocated without flags,
//!   e.g. `.AMDGPU.gpr_maximums`) and NOBITS (allocated-writable); `.text.*`, `.rodata.*`, `.data.*`,
//!   `.bss.*`, `.data.rel.ro.*` are merged into their output section as lld does; `.note.GNU-stack`
//!   and `.llvm_addrsig` are consumed;
//! - RELA relocations in allocated sections, resolved as lld resolves them:
//!   `R_AMDGPU_REL32`, `_REL32_LO`, `_REL32_HI`, `_REL64`, `_REL16` (PC-relative, against
//!   non-preemptible symbols); `R_AMDGPU_GOTPCREL`, `_GOTPCREL32_LO`, `_GOTPCREL32_HI` (a `.got`
//!   entry per symbol, in lld's order, filled by a dynamic relocation or a link-time constant);
//!   `R_AMDGPU_ABS64` (a link-time constant for absolute symbols, else kept as a dynamic relocation
//!   in `.rela.dyn`: `R_AMDGPU_RELATIVE64`, or `R_AMDGPU_ABS64` against a preemptible symbol, in
//!   writable sections only); `R_AMDGPU_ABS32` (absolute symbols only); `R_AMDGPU_NONE`;
//! - symbols of type NOTYPE, OBJECT, FUNC, SECTION, FILE; local, global or weak; any visibility
//!   (hidden/internal become local, default/protected are exported in `.dynsym`).
//!
//! Several objects (kernels lowered apart, on several threads) link through [`link_objects`]: they
//! are merged into one relocatable object first ([`merge_objects`], what `ld -r` does), which links
//! as `ld.lld -shared a.o b.o ...` links the objects.
//!
//! Refused, as lld refuses them: undefined symbols (`--no-undefined`), PC-relative relocations
//! against preemptible or absolute symbols, dynamic relocations in read-only sections, 32-bit
//! absolute addresses of section symbols, `R_AMDGPU_ABS32_LO/HI`. Refused because this linker does
//! not reproduce lld there: common, TLS and IFUNC symbols, undefined weak symbols, SHF_MERGE /
//! SHF_GROUP / TLS / LINK_ORDER sections, an input `.comment` (lld merges it with its own using
//! hashed shards), relocations in non-allocated sections, SHT_REL.
//!
//! Output is a pure function of the input bytes and options: deterministic and thread-safe.

mod link;
mod merge;

/// Options for [`link_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// e_flags of the output instead of the input's (to set the target's xnack/sramecc bits).
    pub e_flags_override: Option<u32>,
    /// msgpack bytes that replace the descriptor of the input's NT_AMDGPU_METADATA note (for a
    /// metadata document rewritten for the target); the layout follows the new size.
    pub metadata: Option<Vec<u8>>,
}

/// Why an object could not be linked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelinkError {
    #[error("input is {len} bytes, too short for an ELF64 header (64 bytes)")]
    TooShort { len: usize },
    #[error("input is not an ELF file (magic {magic:02x?} at offset 0)")]
    NotElf { magic: Vec<u8> },
    #[error("input is not ELF64 little-endian (EI_CLASS {class} at offset 4, EI_DATA {data} at offset 5)")]
    WrongClass { class: u8, data: u8 },
    #[error("input is not a relocatable object: e_type {e_type} at offset 16 (need ET_REL = 1)")]
    NotRelocatable { e_type: u16 },
    #[error("input is for machine {machine} (e_machine at offset 18), not EM_AMDGPU (224)")]
    WrongMachine { machine: u16 },
    #[error("malformed input: {what} at offset {offset:#x}: {msg}")]
    Malformed { what: String, offset: u64, msg: String },
    #[error("unsupported section {name} (#{index}, sh_type {sh_type:#x}, sh_flags {flags:#x}, file offset {offset:#x}): {why}")]
    UnsupportedSection {
        name: String,
        index: usize,
        sh_type: u32,
        flags: u64,
        offset: u64,
        why: String,
    },
    #[error(
        "unsupported relocation {type_name} (type {r_type}) at {section}+{offset:#x} against symbol {symbol}: {why}"
    )]
    UnsupportedRelocation {
        r_type: u32,
        type_name: String,
        section: String,
        offset: u64,
        symbol: String,
        why: String,
    },
    #[error("undefined symbol {name} (symbol #{index}){}", referenced_at.as_ref().map(|r| format!(", referenced at {r}")).unwrap_or_default())]
    UndefinedSymbol {
        name: String,
        index: usize,
        referenced_at: Option<String>,
    },
    #[error("unsupported symbol {name} (symbol #{index}, symtab offset {offset:#x}): {why}")]
    UnsupportedSymbol {
        name: String,
        index: usize,
        offset: u64,
        why: String,
    },
    #[error("relocation {type_name} at {section}+{offset:#x} against {symbol} is out of range: value {value:#x}")]
    RelocationOverflow {
        type_name: String,
        section: String,
        offset: u64,
        symbol: String,
        value: u64,
    },
    #[error("output layout overflows 64 bits or the format's limits: {0}")]
    Layout(String),
    #[error("ELF writer failed: {0}")]
    Write(String),
}

/// Links `relocatable` (ET_REL) into a loadable code object (ET_DYN) with default options.
pub fn link(relocatable: &[u8]) -> Result<Vec<u8>, RelinkError> {
    link_with(relocatable, &LinkOptions::default())
}

/// Links `relocatable` (ET_REL) into a loadable code object (ET_DYN).
pub fn link_with(relocatable: &[u8], options: &LinkOptions) -> Result<Vec<u8>, RelinkError> {
    link::link(relocatable, options)
}

/// Links several relocatable objects (same target and e_flags) into one loadable code object, as
/// `ld.lld -shared` links them in this order. With [`LinkOptions::metadata`], the first object's
/// metadata note is replaced and the others' are left out: the result has one note.
pub fn link_objects(objects: &[&[u8]], options: &LinkOptions) -> Result<Vec<u8>, RelinkError> {
    match objects {
        [one] => link::link(one, options),
        _ => link::link(&merge_objects(objects, options.metadata.is_some())?, options),
    }
}

/// Merges several relocatable objects into one (sections in file order, locals file by file, then
/// globals in order of first appearance), so that [`link`] of the result equals lld's link of the
/// objects. With `one_metadata_note`, only the first object's NT_AMDGPU_METADATA note is kept.
pub fn merge_objects(objects: &[&[u8]], one_metadata_note: bool) -> Result<Vec<u8>, RelinkError> {
    merge::merge(objects, one_metadata_note)
}

/// The `.comment` string that lld writes (the toolchain's rust-lld, LLVM 22.1.2). Written so that the
/// output is byte-identical to the reference link; [`LINKER_COMMENT`] is the only content of
/// `.comment` because the backend's objects carry none.
pub const LINKER_COMMENT: &str =
    "Linker: LLD 22.1.2 (/checkout/src/llvm-project/llvm 1cb4e3833c1919c2e6fb579a23ac0e2b22587b7e)";

/// Names of the AMDGPU relocation types (AMDGPUUsage "Relocation Records").
pub fn relocation_name(r_type: u32) -> &'static str {
    match r_type {
        0 => "R_AMDGPU_NONE",
        1 => "R_AMDGPU_ABS32_LO",
        2 => "R_AMDGPU_ABS32_HI",
        3 => "R_AMDGPU_ABS64",
        4 => "R_AMDGPU_REL32",
        5 => "R_AMDGPU_REL64",
        6 => "R_AMDGPU_ABS32",
        7 => "R_AMDGPU_GOTPCREL",
        8 => "R_AMDGPU_GOTPCREL32_LO",
        9 => "R_AMDGPU_GOTPCREL32_HI",
        10 => "R_AMDGPU_REL32_LO",
        11 => "R_AMDGPU_REL32_HI",
        13 => "R_AMDGPU_RELATIVE64",
        14 => "R_AMDGPU_REL16",
        _ => "unknown",
    }
}
