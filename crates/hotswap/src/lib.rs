//! hotswap: hotswap-xlate's translation library, what the CLI, the C ABI and the COMGR shim
//! call to translate.
//!
//! Pipeline (one crate per stage): codeobj (read) -> isa (decode) -> raise (LLVM IR) ->
//! lower (gfx942/gfx950 object) -> relink (code object), with inspection and disassembly
//! beside it. The emulator's run and verify are in hx-verify, which this crate does not link,
//! so a runtime that loads the library never carries the emulator. [`translate`] returns the
//! code object and a per-kernel
//! [`report::Report`]; what the stages do not handle is refused by name (kernel, offset,
//! mnemonic): the whole object in strict mode, only that kernel (a trap stub) in lenient mode.
//! [`limits`] bounds every translation (input size, kernels, instructions per kernel, memory
//! estimate) before the work, with a named error for each.

pub use hx_codeobj as codeobj;
pub use hx_llvm::{GpuTarget, OptLevel};
pub use hx_raise::WmmaLowering;

pub mod disasm;
pub mod heap;
pub mod inspect;
pub mod limits;
pub mod report;
pub mod translate;

pub use hx_isa as isa;

/// Where in the input an inconsistency sits (for [`Error::BadInput`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The code object as a whole (its metadata, its kernel list).
    Object,
    /// A kernel (its descriptor, its code, its metadata).
    Kernel(String),
    /// A byte offset in the file.
    FileOffset(u64),
    /// An offload bundle.
    Bundle,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Object => f.write_str("the code object"),
            Place::Kernel(k) => write!(f, "kernel {k}"),
            Place::FileOffset(o) => write!(f, "file offset {o:#x}"),
            Place::Bundle => f.write_str("the bundle"),
        }
    }
}

/// Why a translation failed. [`Error::kind`] follows from the variant; the C API's status, the
/// COMGR shim's fail reason and the CLI's exit code follow from the kind.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: the file is not a code object this crate reads.
    #[error(transparent)]
    CodeObject(#[from] hx_codeobj::CodeObjectError),
    /// Bad input: the offload bundle does not parse.
    #[error(transparent)]
    Bundle(#[from] hx_codeobj::bundle::BundleError),
    /// Bad input: the code object parses but is inconsistent (what, and where).
    #[error("{place}: {what}")]
    BadInput { place: Place, what: String },
    /// The caller's options cannot be used (an unknown target or feature, a kernel to skip that
    /// the object does not have, every kernel skipped).
    #[error("{0}")]
    InvalidOption(String),
    #[error("source processor {found} is not gfx1250: hotswap-xlate translates gfx1250 code objects")]
    NotGfx1250 { found: String },
    #[error("processor {found} is not one hotswap-xlate decodes (gfx1250, gfx942, gfx950)")]
    UnsupportedProcessor { found: String },
    /// Unsupported: an instruction, register or form the raiser does not translate (kernel,
    /// offset, mnemonic and reason are in the [`hx_raise::RaiseError`]).
    #[error(transparent)]
    Raise(#[from] hx_raise::RaiseError),
    /// A limit refused the work before it started.
    #[error(transparent)]
    Limit(#[from] limits::LimitError),
    /// Internal: LLVM failed on input that was accepted.
    #[error(transparent)]
    Llvm(#[from] hx_llvm::LlvmError),
    /// Internal: the target backend failed on raised IR.
    #[error(transparent)]
    Lower(#[from] hx_lower::LowerError),
    /// Internal: the output code object could not be written.
    #[error(transparent)]
    Relink(#[from] hx_relink::RelinkError),
    /// Internal: a step's own check failed (what it found).
    #[error("internal error: {0}")]
    Internal(String),
    #[error("bundle entry {id}: {cause}")]
    BundleEntry { id: String, cause: Box<Error> },
    /// Strict mode: every refused kernel with why (in kernel order).
    #[error("{} kernels refused (lenient mode translates the rest and gives these trap stubs):{}", refusals.len(), list_refusals(refusals))]
    Refused { refusals: Vec<(String, report::Refusal)> },
}

impl Error {
    /// [`Error::BadInput`] at a kernel.
    pub(crate) fn bad_kernel(kernel: &str, what: impl Into<String>) -> Error {
        Error::BadInput { place: Place::Kernel(kernel.to_string()), what: what.into() }
    }
    /// [`Error::BadInput`] of the object as a whole.
    pub(crate) fn bad_object(what: impl Into<String>) -> Error {
        Error::BadInput { place: Place::Object, what: what.into() }
    }
}

fn list_refusals(refusals: &[(String, report::Refusal)]) -> String {
    refusals.iter().map(|(k, r)| format!("\n  {}", r.line(k))).collect()
}

/// Identifies the translator's behaviour for caches: bump it whenever any stage changes what a
/// translation produces, so that a cache never serves an older translator's output.
pub const TRANSLATOR_ID: &str = concat!("hotswap-xlate/", env!("CARGO_PKG_VERSION"), "/pipeline-6");

/// What kind of failure an [`Error`] is, for callers that map errors to status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is not a well-formed code object or bundle.
    BadInput,
    /// The input is well formed but not gfx1250 code.
    NotGfx1250,
    /// Something the translator does not handle (yet): an instruction, register, form.
    Unsupported,
    /// LLVM or an internal step failed on input that was accepted.
    Internal,
    /// The caller's options cannot be used.
    InvalidArgument,
    /// A limit ([`limits::Limits`]) refused the translation before the work, or a large buffer
    /// could not be allocated.
    OutOfResources,
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::CodeObject(_) | Error::Bundle(_) | Error::BadInput { .. } => ErrorKind::BadInput,
            Error::InvalidOption(_) => ErrorKind::InvalidArgument,
            Error::NotGfx1250 { .. } => ErrorKind::NotGfx1250,
            Error::UnsupportedProcessor { .. } | Error::Raise(_) => ErrorKind::Unsupported,
            Error::Llvm(_) | Error::Lower(_) | Error::Relink(_) | Error::Internal(_) => ErrorKind::Internal,
            Error::BundleEntry { cause, .. } => cause.kind(),
            Error::Limit(_) => ErrorKind::OutOfResources,
            // The most serious kind among the refusals.
            Error::Refused { refusals } => {
                let kinds: Vec<ErrorKind> = refusals.iter().map(|(_, r)| r.kind).collect();
                [ErrorKind::Internal, ErrorKind::BadInput, ErrorKind::InvalidArgument, ErrorKind::Unsupported]
                    .into_iter()
                    .find(|k| kinds.contains(k))
                    .unwrap_or(ErrorKind::Unsupported)
            }
        }
    }
}

/// Options of one translation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Options {
    pub target: GpuTarget,
    pub opt_level: OptLevel,
    /// Strict (the default): a kernel any stage refuses refuses the whole object, and the error
    /// lists every refused kernel ([`Error::Refused`]). Lenient (false): every kernel that can be
    /// is translated; each refused kernel keeps its symbol, descriptor and interface and its code
    /// is a trap stub (`s_trap`; its metadata's `.hotswap_refused` says why), and the report
    /// ([`Translated::report`]) names it with offset, mnemonic and reason.
    pub strict: bool,
    /// Target features of the output (`:xnack+` = `Some(true)`, `:xnack-` = `Some(false)`,
    /// None = "any", as the target ID spells them).
    pub xnack: Option<bool>,
    pub sramecc: Option<bool>,
    /// Kernels left out of the output: not raised, not lowered, absent from the result (a
    /// loader then does not find them; every other kernel works).
    pub skip_kernels: Vec<String>,
    /// How dense WMMA is lowered: onto the target's MFMAs where exact (the default), or the
    /// cross-lane path (hx_raise::wmma_plan).
    pub wmma: WmmaLowering,
    /// Bounds on the translation, each refused before the work ([`limits`]). Not part of the
    /// cache key: a limit decides whether a translation runs, never what it produces.
    pub limits: limits::Limits,
    /// The sizes above which the lowering changes what it asks of LLVM so that its time grows
    /// with the code (scheduling regions, skipped passes, kernels split into called parts).
    /// The default suits every kernel; tests lower the bounds to put small kernels through the
    /// same paths.
    pub size_bounds: hx_lower::SizeBounds,
    /// Two source work-groups per target wave64 where a kernel allows it (work-groups of one
    /// gfx1250 wave, no LDS, no dispatch packet read: `hx_raise::pairing_blocker`). Such a
    /// kernel's metadata carries `.hotswap_dispatch_scale: 2`: the runtime must dispatch it with
    /// the packet's `workgroup_size_x` and `grid_size_x` doubled (the HotSwap runtime's scaled
    /// dispatch; the emulator does the same). Off by default: a runtime that does not scale the
    /// dispatch makes such a kernel trap.
    pub pair_groups: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: GpuTarget::Gfx942,
            opt_level: OptLevel::O2,
            strict: true,
            xnack: None,
            sramecc: None,
            skip_kernels: Vec::new(),
            wmma: WmmaLowering::default(),
            limits: limits::Limits::default(),
            size_bounds: hx_lower::SizeBounds::DEFAULT,
            pair_groups: false,
        }
    }
}

impl Options {
    /// Err unless the target is one the translator writes (gfx942, gfx950).
    fn check_target(&self) -> Result<(), Error> {
        if self.target == GpuTarget::Gfx1250 {
            return Err(Error::InvalidOption("the target must be gfx942 or gfx950".into()));
        }
        Ok(())
    }

    /// The lowering stage's share of the options.
    fn lower_options(&self) -> hx_lower::LowerOptions {
        hx_lower::LowerOptions { target: self.target, opt: self.opt_level, xnack: self.xnack, sramecc: self.sramecc }
    }

    /// Adds every option to a cache key (after the caller's own fields), in one fixed order.
    /// The destructuring has no `..`: a new field fails to compile here until it is part of
    /// every translation cache key (C API, COMGR shim, CLI).
    pub fn key_fields(&self, key: hx_cache::KeyBuilder) -> hx_cache::KeyBuilder {
        let Options { target, opt_level, strict, xnack, sramecc, skip_kernels, wmma, limits: _, size_bounds, pair_groups } = self;
        let key = key
            .field("target", target.cpu())
            .field("opt_level", format!("{opt_level:?}"))
            .field("strict", [*strict as u8])
            .field("xnack", format!("{xnack:?}"))
            .field("sramecc", format!("{sramecc:?}"))
            .field("skip_kernels", format!("{skip_kernels:?}"))
            .field("wmma", wmma.name())
            .field("size_bounds", if *size_bounds == hx_lower::SizeBounds::DEFAULT { String::new() } else { format!("{size_bounds:?}") });
        // (Only when on: the keys of every translation without it stay what they were.)
        if *pair_groups {
            key.field("pair_groups", [1u8])
        } else {
            key
        }
    }

    /// Parses a target ID's processor and features: `gfx942`, `gfx950:xnack+`,
    /// `amdgcn-amd-amdhsa--gfx942:sramecc-:xnack+`.
    pub fn with_target_id(mut self, id: &str) -> Result<Options, Error> {
        let id = id.rsplit("--").next().unwrap_or(id);
        let mut parts = id.split(':');
        let cpu = parts.next().unwrap_or("");
        self.target = match GpuTarget::from_cpu(cpu) {
            Some(t) if t != GpuTarget::Gfx1250 => t,
            _ => return Err(Error::InvalidOption(format!("unknown target {cpu} (expected gfx942 or gfx950)"))),
        };
        let (mut xnack, mut sramecc) = (None, None);
        for f in parts {
            let (name, on) = match f.strip_suffix('+') {
                Some(n) => (n, true),
                None => (f.strip_suffix('-').ok_or_else(|| Error::InvalidOption(format!("target feature {f:?} has no + or -")))?, false),
            };
            let slot = match name {
                "xnack" => &mut xnack,
                "sramecc" => &mut sramecc,
                _ => return Err(Error::InvalidOption(format!("unknown target feature {name:?} (expected xnack or sramecc)"))),
            };
            if slot.is_some() {
                return Err(Error::InvalidOption(format!("target ID {id}: feature {name} is given twice")));
            }
            *slot = Some(on);
        }
        self.xnack = xnack.or(self.xnack);
        self.sramecc = sramecc.or(self.sramecc);
        Ok(self)
    }

    /// The target ID of the output as clang writes it: `gfx942`, `gfx942:sramecc+:xnack-`
    /// (features in LLVM's order, only those set).
    pub fn target_id(&self) -> String {
        let mut id = self.target.cpu().to_string();
        let sign = |on: bool| if on { '+' } else { '-' };
        if let Some(on) = self.sramecc {
            id.push_str(&format!(":sramecc{}", sign(on)));
        }
        if let Some(on) = self.xnack {
            id.push_str(&format!(":xnack{}", sign(on)));
        }
        id
    }
}

/// Does ahead of time the one-time work of a process's first translation for `options`: the
/// decoder's tables, the raised modules' data layout, and a target machine for the target with
/// its lazily built caches and the backend's code paged in (hx_lower::prewarm), kept for any
/// thread's translations. A runtime calls it while it has time, e.g. on a background thread at
/// start-up; a translation works the same without it. Translating with the same options after
/// it costs about what a warm translation does (BENCHMARKS.md, section 2).
pub fn prewarm(options: &Options) -> Result<(), Error> {
    options.check_target()?;
    heap::keep_translation_heap();
    // s_endpgm: any instruction builds the gfx1250 decoder's tables.
    hx_isa::decode(hx_isa::Target::Gfx1250, &[0x00, 0x00, 0xb0, 0xbf], 0).map_err(|e| Error::Internal(format!("prewarm: decoding s_endpgm: {e}")))?;
    let ctx = hx_llvm::inkwell::context::Context::create();
    hx_llvm::set_amdgpu_layout(&ctx.create_module("hx_prewarm"))?;
    hx_lower::prewarm(&options.lower_options())?;
    Ok(())
}

/// The result of a translation.
#[derive(Debug, Clone)]
pub struct Translated {
    pub bytes: Vec<u8>,
    /// Every kernel's status, refusal, counts, resources and stage times.
    pub report: report::Report,
}

/// Translates a gfx1250 code object (or every gfx1250 entry of an offload bundle) for
/// `options.target`: raise, lower, relink, all in-process. Anything the stages do not handle
/// exactly is refused, naming kernel, offset and mnemonic: in strict mode as an error listing
/// every refused kernel, in lenient mode as a trap stub and a line of the report. Untranslated
/// code is never returned.
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translated, Error> {
    translate_inner(bytes, options, None)
}

/// [`translate`], calling `progress(kernels done, kernels in total)` as kernels finish (from the
/// translating threads; the total grows as a bundle's entries start).
pub fn translate_with_progress(bytes: &[u8], options: &Options, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Translated, Error> {
    translate_inner(bytes, options, Some(&translate::Progress::new(progress)))
}

fn translate_inner(bytes: &[u8], options: &Options, progress: Option<&translate::Progress>) -> Result<Translated, Error> {
    options.check_target()?;
    options.limits.check_input(bytes.len())?;
    heap::keep_translation_heap();
    let (bytes, report) = if hx_codeobj::bundle::is_bundle(bytes) {
        translate::translate_bundle_with_report(bytes, options, progress)?
    } else {
        translate::translate_whole(bytes, options, translate::Output::CodeObject, progress)?
    };
    Ok(Translated { bytes, report })
}
