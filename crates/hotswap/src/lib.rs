//! hotswap: hotswap-xlate's library facade. The CLI, the C ABI and the benches call only this crate.
//!
//! Pipeline (one crate per stage): codeobj (read) -> isa (decode) -> raise (LLVM IR) ->
//! lower (gfx942/gfx950 object) -> relink (code object). Today the read stage and inspection
//! exist; [`translate`] fails closed with [`Error::NotImplemented`] until raise/lower/relink land.

pub use hx_codeobj as codeobj;
pub use hx_llvm::{GpuTarget, OptLevel};

pub mod disasm;
pub mod inspect;
pub mod run;
pub mod translate;

pub use hx_emu as emu;

pub use hx_isa as isa;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    CodeObject(#[from] hx_codeobj::CodeObjectError),
    #[error(transparent)]
    Bundle(#[from] hx_codeobj::bundle::BundleError),
    #[error("source processor {found} is not gfx1250: hotswap-xlate translates gfx1250 code objects")]
    NotGfx1250 { found: String },
    #[error(transparent)]
    Llvm(#[from] hx_llvm::LlvmError),
    #[error("processor {found} is not one hotswap-xlate decodes (gfx1250, gfx942, gfx950)")]
    UnsupportedProcessor { found: String },
    #[error(transparent)]
    Emu(#[from] hx_emu::EmuError),
    #[error("{0}")]
    Run(String),
    #[error(transparent)]
    Raise(#[from] hx_raise::RaiseError),
    #[error(transparent)]
    Lower(#[from] hx_lower::LowerError),
    #[error(transparent)]
    Relink(#[from] hx_relink::RelinkError),
    #[error("translation stage `{stage}` is not implemented yet; nothing was translated")]
    NotImplemented { stage: &'static str },
}

/// Options of one translation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Options {
    pub target: GpuTarget,
    pub opt_level: OptLevel,
    /// Fail on anything not handled exactly (the default; there is no lenient mode yet).
    pub strict: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { target: GpuTarget::Gfx942, opt_level: OptLevel::O2, strict: true }
    }
}

/// The result of a translation.
#[derive(Debug, Clone)]
pub struct Translated {
    pub bytes: Vec<u8>,
}

/// Translates a gfx1250 code object for `options.target`: raise, lower, relink, all in-process.
/// Anything the stages do not handle exactly is an error naming kernel, offset and mnemonic;
/// nothing is ever returned untranslated.
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translated, Error> {
    if hx_codeobj::bundle::is_bundle(bytes) {
        return Err(Error::Run("offload bundles are not translated yet: extract the gfx1250 entry".into()));
    }
    if options.target == GpuTarget::Gfx1250 {
        return Err(Error::Run("the target must be gfx942 or gfx950".into()));
    }
    Ok(Translated { bytes: translate::translate_code_object(bytes, options)? })
}
