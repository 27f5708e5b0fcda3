//! hx-corpus: the corpus of test kernels.
//!
//! Every kernel object is an LLVM IR file `corpus/kernels/<name>.ll` (thread-level code with amdgcn
//! intrinsics, compiled by the test suite for gfx1250, gfx942 and gfx950) with a launch description
//! `corpus/kernels/<name>.toml`. This crate
//! - lists the objects and parses their launch descriptions ([`objects`], [`Launch`], [`ArgSpec`]),
//! - makes the initial argument contents deterministically from a seed ([`make_inputs`]),
//! - computes, in plain Rust, what memory looks like after each kernel ran ([`reference`]),
//! - compares a run's buffers with the reference ([`compare_outputs`]).
//!
//! # Launch description
//! ```toml
//! targets = ["gfx1250"]   # optional, top level: the targets the IR is built for (by `cargo xtask
//!                         # corpus` and the compile test); default all three, gfx1250 gfx942 gfx950.
//!                         # Objects that use gfx1250-only intrinsics list only gfx1250: their
//!                         # gfx942/gfx950 code objects come from translation, never a native build.
//!
//! [[launch]]              # one per launch; an object may hold several kernels
//! kernel = "saxpy"        # the kernel's symbol name
//! grid = [1024, 1, 1]     # work-items per dimension (HSA dispatch-packet grid size)
//! block = [128, 1, 1]     # work-group size
//! dynamic_lds = 0         # bytes of dynamic LDS added to the kernel's static LDS (optional, 0)
//!
//! [[launch.args]]         # the explicit kernel arguments, in order
//! name = "x"
//! kind = "buffer"         # a global buffer: the runner allocates it and passes its address
//! elem = "f32"            # u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64
//! count = 1024            # elements
//! init = { random = [-4.0, 4.0] }  # "zeros" (default), "iota", "random_bits", { fill = 7 },
//!                                  # { values = [...] }, { random = [lo, hi] },
//!                                  # { random_choice = [...] }
//! output = true           # compared after the run (optional, false)
//! tolerance_ulps = 0      # float outputs only: allowed distance in units in the last place (optional, 0)
//!
//! [[launch.args]]
//! name = "a"
//! kind = "value"          # passed by value in the kernarg segment
//! elem = "f32"
//! value = 2.5
//! ```
//! `random = [lo, hi]` gives, for float elements, random multiples of 1/1024 in `[lo, hi]` rounded
//! (to nearest even) to the element type, so every value is an exact finite number; for integer
//! elements, random integers in `[lo, hi]` inclusive. `random_bits` (integer elements only) gives
//! uniformly random bit patterns. `iota` gives 0, 1, 2, ... (wrapping for narrow integers).
//! `random_choice = [v, ...]` gives each element as one of the listed values, picked uniformly (for
//! example the bit patterns of chosen fp8 values in a `u8` buffer).
//!
//! # Hidden arguments
//! Kernels read code object v5 hidden arguments through `llvm.amdgcn.implicitarg.ptr`. The runner must
//! fill them as the ROCm runtime does (see [`Launch::hidden_block_count`]): `hidden_block_count_*` =
//! number of *full* work-groups (grid / block, rounded down), `hidden_group_size_*` = block,
//! `hidden_remainder_*` = grid % block (the size of the partial last work-group, 0 when there is none).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

mod prng;
mod reference;
mod scalar;

pub use half::{bf16, f16};
pub use prng::SplitMix64;
pub use reference::{reference, REFERENCE_KERNELS};
pub use scalar::Scalar;

/// Errors of this crate: I/O, launch descriptions, references, comparisons.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: bad launch description: {msg}")]
    Toml { path: PathBuf, msg: String },
    #[error("{path}: kernel `{kernel}`: {msg}")]
    Invalid { path: PathBuf, kernel: String, msg: String },
    #[error("no corpus object named `{0}`")]
    UnknownObject(String),
    #[error("no reference for kernel `{kernel}` (object `{object}`)")]
    UnknownKernel { object: String, kernel: String },
    #[error("reference of kernel `{kernel}`: {msg}")]
    Reference { kernel: String, msg: String },
    #[error("kernel `{kernel}`, argument `{arg}`: {msg}")]
    Mismatch { kernel: String, arg: String, msg: String },
}

/// Element type of a buffer or a by-value argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
}

impl Elem {
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 | Elem::F16 | Elem::Bf16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F16 | Elem::Bf16 | Elem::F32 | Elem::F64)
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }

    /// The name used in launch descriptions.
    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::I8 => "i8",
            Elem::U16 => "u16",
            Elem::I16 => "i16",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U64 => "u64",
            Elem::I64 => "i64",
            Elem::F16 => "f16",
            Elem::Bf16 => "bf16",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How an argument is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A global buffer (`ptr addrspace(1)`): the runner allocates `count` elements and passes the address.
    Buffer,
    /// A by-value scalar in the kernarg segment.
    Value,
}

/// A number as written in a launch description.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// Initial contents of a buffer.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// All bytes zero.
    #[default]
    Zeros,
    /// 0, 1, 2, ... converted to the element type (wrapping for narrow integers).
    Iota,
    /// Uniformly random bit patterns (integer elements only).
    RandomBits,
    /// Every element the same value.
    Fill(Num),
    /// Exactly these values (as many as `count`).
    Values(Vec<Num>),
    /// Random values in `[lo, hi]`: integers (inclusive) for integer elements, multiples of 1/1024
    /// rounded to the element type for float elements.
    Random([Num; 2]),
    /// Each element one of these values, picked uniformly at random.
    RandomChoice(Vec<Num>),
    /// The contents of a file, named relative to the launch description (`{ file = "data/x.bin" }`):
    /// exactly `count` little-endian elements. Read when the description is parsed.
    File(String),
    /// A file's contents, as read when the description was parsed.
    #[serde(skip)]
    Data(std::sync::Arc<[u8]>),
}

/// One explicit kernel argument.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgSpec {
    pub name: String,
    pub kind: ArgKind,
    pub elem: Elem,
    /// Buffers: number of elements. Values: 1.
    pub count: usize,
    /// Buffers: initial contents. Values: `Init::Zeros` (unused).
    pub init: Init,
    /// Values: the value.
    pub value: Option<Num>,
    /// Buffers: compared after the run.
    pub output: bool,
    /// Float outputs: allowed distance in ULPs (0 = bit-exact).
    pub tolerance_ulps: u32,
    /// Outputs of compiled-kernel suites: the expected contents, read from the file the description
    /// names (`expected = "data/x.expected"`): the element type's bytes for integer outputs,
    /// little-endian f64 for float outputs (the reference's exact value, before rounding).
    pub expected: Option<Expected>,
    /// Float outputs with an `expected` file: allowed |got - want| <= atol + rtol * |want|.
    pub atol: f64,
    pub rtol: f64,
}

/// An output's expected contents, from a compiled-kernel suite's data file.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// Integer outputs: exactly these bytes.
    Bits(std::sync::Arc<[u8]>),
    /// Float outputs: these values (as f64, one per element).
    Values(std::sync::Arc<[f64]>),
}

impl ArgSpec {
    /// Size in bytes of the buffer or of the by-value argument.
    pub fn byte_size(&self) -> usize {
        self.count * self.elem.size()
    }
}

/// One kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub kernel: String,
    /// Work-items per dimension (HSA dispatch packet grid size).
    pub grid: [u32; 3],
    /// Work-group size.
    pub block: [u32; 3],
    /// Bytes of dynamic LDS.
    pub dynamic_lds: u32,
    pub args: Vec<ArgSpec>,
    /// Geometry of natively built objects whose work-groups differ from the gfx1250 build's
    /// (`[launch.native.gfx942]`: Triton's wave64 builds run `num_warps` waves of 64 lanes, and
    /// allocate their own LDS). The grid in work-groups stays the same. See [`Launch::for_target`].
    pub native: std::collections::BTreeMap<String, NativeGeometry>,
}

/// A native build's work-group size and dynamic LDS (`[launch.native.<target>]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeGeometry {
    pub block: [u32; 3],
    #[serde(default)]
    pub dynamic_lds: u32,
}

impl Launch {
    /// Work-groups per dimension, counting a partial last work-group (grid / block rounded up).
    pub fn workgroups(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.grid[d].div_ceil(self.block[d]))
    }

    /// `hidden_block_count_{x,y,z}`: the number of full work-groups (grid / block rounded down).
    pub fn hidden_block_count(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.grid[d] / self.block[d])
    }

    /// `hidden_group_size_{x,y,z}`.
    pub fn hidden_group_size(&self) -> [u16; 3] {
        std::array::from_fn(|d| self.block[d] as u16)
    }

    /// `hidden_remainder_{x,y,z}`: the size of the partial last work-group, 0 when there is none.
    pub fn hidden_remainder(&self) -> [u16; 3] {
        std::array::from_fn(|d| (self.grid[d] % self.block[d]) as u16)
    }

    /// Total work-items.
    pub fn work_items(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }

    pub fn arg(&self, name: &str) -> Option<(usize, &ArgSpec)> {
        self.args.iter().enumerate().find(|(_, a)| a.name == name)
    }

    /// The launch as the object built natively for processor `cpu` takes it: the same work-groups,
    /// with that build's work-group size and dynamic LDS where `[launch.native.<cpu>]` gives them
    /// (translations of the gfx1250 object keep the gfx1250 geometry, as the runtime sends it).
    pub fn for_target(&self, cpu: &str) -> Launch {
        let mut l = self.clone();
        if let Some(g) = self.native.get(cpu) {
            let groups = self.workgroups();
            l.grid = std::array::from_fn(|d| groups[d] * g.block[d]);
            l.block = g.block;
            l.dynamic_lds = g.dynamic_lds;
        }
        l
    }
}

/// The targets a corpus object is built for when its description names none.
pub const ALL_TARGETS: [&str; 3] = ["gfx1250", "gfx942", "gfx950"];

/// One corpus object: an IR file and its launches.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusObject {
    /// File stem: `saxpy` for `corpus/kernels/saxpy.ll`.
    pub name: String,
    pub ir_path: PathBuf,
    pub launches: Vec<Launch>,
    /// The processors (`gfx1250`, `gfx942`, `gfx950`) the IR is compiled for, in [`ALL_TARGETS`]
    /// order: the launch description's top-level `targets`, or all three.
    pub targets: Vec<String>,
}

impl CorpusObject {
    /// Whether the IR is compiled natively for processor `cpu` (`corpus/<cpu>/<name>.hsaco` exists).
    pub fn builds_for(&self, cpu: &str) -> bool {
        self.targets.iter().any(|t| t == cpu)
    }

    /// The LLVM IR text.
    pub fn ir(&self) -> Result<String, CorpusError> {
        std::fs::read_to_string(&self.ir_path).map_err(|source| CorpusError::Io { path: self.ir_path.clone(), source })
    }

    /// The distinct kernel names of the launches, in launch order.
    pub fn kernels(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.launches.iter().map(|l| l.kernel.as_str()).filter(|k| seen.insert(*k)).collect()
    }
}

/// The repository's `corpus/` directory.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("corpus")
}

/// The directory of the kernel objects, `corpus/kernels`.
pub fn kernels_dir() -> PathBuf {
    corpus_dir().join("kernels")
}

/// Every `corpus/kernels/*.ll`, sorted by name, with its parsed launch description.
pub fn objects() -> Result<Vec<CorpusObject>, CorpusError> {
    let dir = kernels_dir();
    let entries = std::fs::read_dir(&dir).map_err(|source| CorpusError::Io { path: dir.clone(), source })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| CorpusError::Io { path: dir.clone(), source })?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "ll") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names.iter().map(|n| load_object(&dir, n)).collect()
}

/// One object by name.
pub fn object(name: &str) -> Result<CorpusObject, CorpusError> {
    let dir = kernels_dir();
    if !dir.join(format!("{name}.ll")).is_file() {
        return Err(CorpusError::UnknownObject(name.to_string()));
    }
    load_object(&dir, name)
}

fn load_object(dir: &Path, name: &str) -> Result<CorpusObject, CorpusError> {
    let toml_path = dir.join(format!("{name}.toml"));
    let text =
        std::fs::read_to_string(&toml_path).map_err(|source| CorpusError::Io { path: toml_path.clone(), source })?;
    let (targets, launches) = parse_description(&text, &toml_path)?;
    Ok(CorpusObject { name: name.to_string(), ir_path: dir.join(format!("{name}.ll")), launches, targets })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    targets: Option<Vec<String>>,
    launch: Vec<RawLaunch>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    #[serde(default)]
    dynamic_lds: u32,
    #[serde(default)]
    args: Vec<RawArg>,
    #[serde(default)]
    native: std::collections::BTreeMap<String, NativeGeometry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    name: String,
    kind: ArgKind,
    elem: Elem,
    count: Option<usize>,
    init: Option<Init>,
    value: Option<Num>,
    #[serde(default)]
    output: bool,
    #[serde(default)]
    tolerance_ulps: u32,
    expected: Option<String>,
    atol: Option<f64>,
    rtol: Option<f64>,
}

/// Parses and validates a launch description; `path` is only used in error messages.
pub fn parse_launches(text: &str, path: &Path) -> Result<Vec<Launch>, CorpusError> {
    Ok(parse_description(text, path)?.1)
}

/// Parses and validates a launch description: the target list (see [`CorpusObject::targets`]) and
/// the launches; `path` is only used in error messages.
pub fn parse_description(text: &str, path: &Path) -> Result<(Vec<String>, Vec<Launch>), CorpusError> {
    let raw: RawFile =
        toml::from_str(text).map_err(|e| CorpusError::Toml { path: path.to_path_buf(), msg: e.to_string() })?;
    let bad = |msg: String| CorpusError::Toml { path: path.to_path_buf(), msg };
    if raw.launch.is_empty() {
        return Err(bad("no [[launch]]".into()));
    }
    let targets = match &raw.targets {
        None => ALL_TARGETS.iter().map(|t| t.to_string()).collect(),
        Some(list) => {
            if list.is_empty() {
                return Err(bad("`targets` is empty".into()));
            }
            for (i, t) in list.iter().enumerate() {
                if !ALL_TARGETS.contains(&t.as_str()) {
                    return Err(bad(format!("unknown target `{t}` (known: {})", ALL_TARGETS.join(", "))));
                }
                if list[..i].contains(t) {
                    return Err(bad(format!("target `{t}` listed twice")));
                }
            }
            ALL_TARGETS.iter().filter(|t| list.iter().any(|l| l == *t)).map(|t| t.to_string()).collect()
        }
    };
    let launches = raw.launch.into_iter().map(|l| validate_launch(l, path)).collect::<Result<_, _>>()?;
    Ok((targets, launches))
}

fn validate_launch(raw: RawLaunch, path: &Path) -> Result<Launch, CorpusError> {
    let bad = |msg: String| CorpusError::Invalid { path: path.to_path_buf(), kernel: raw.kernel.clone(), msg };
    if raw.kernel.is_empty() {
        return Err(bad("empty kernel name".into()));
    }
    for d in 0..3 {
        if raw.grid[d] == 0 || raw.block[d] == 0 {
            return Err(bad(format!("grid {:?} and block {:?} must be non-zero", raw.grid, raw.block)));
        }
        if raw.block[d] > 1024 {
            return Err(bad(format!("block {:?} larger than 1024 in a dimension", raw.block)));
        }
    }
    if raw.block.iter().map(|&b| b as u64).product::<u64>() > 1024 {
        return Err(bad(format!("block {:?} has more than 1024 work-items", raw.block)));
    }
    let mut names = BTreeSet::new();
    let mut args = Vec::new();
    for a in &raw.args {
        if !names.insert(a.name.as_str()) {
            return Err(bad(format!("argument `{}` appears twice", a.name)));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let arg = validate_arg(a, dir).map_err(|m| bad(format!("argument `{}`: {m}", a.name)))?;
        args.push(arg);
    }
    for (cpu, g) in &raw.native {
        if !ALL_TARGETS.contains(&cpu.as_str()) || cpu == "gfx1250" {
            return Err(bad(format!("[launch.native.{cpu}]: not a native wave64 target (gfx942, gfx950)")));
        }
        if g.block.contains(&0) || g.block.iter().map(|&b| b as u64).product::<u64>() > 1024 {
            return Err(bad(format!("[launch.native.{cpu}]: block {:?} is empty or over 1024 work-items", g.block)));
        }
    }
    Ok(Launch {
        kernel: raw.kernel.clone(),
        grid: raw.grid,
        block: raw.block,
        dynamic_lds: raw.dynamic_lds,
        args,
        native: raw.native.clone(),
    })
}

/// Reads a data file named by a launch description (relative to its directory), at most `limit` bytes.
fn read_data_file(dir: &Path, name: &str, want: usize) -> Result<Vec<u8>, String> {
    if Path::new(name).is_absolute() || name.split('/').any(|c| c == "..") {
        return Err(format!("data file `{name}` must be a relative path inside the corpus"));
    }
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() != want {
        return Err(format!("{} has {} bytes, {want} expected", path.display(), bytes.len()));
    }
    Ok(bytes)
}

fn validate_arg(a: &RawArg, dir: &Path) -> Result<ArgSpec, String> {
    if a.tolerance_ulps > 0 && !(a.elem.is_float() && a.output) {
        return Err("tolerance_ulps only applies to float outputs".into());
    }
    if (a.expected.is_some() || a.atol.is_some() || a.rtol.is_some()) && !(a.output && a.kind == ArgKind::Buffer) {
        return Err("expected, atol and rtol apply to output buffers".into());
    }
    if (a.atol.is_some() || a.rtol.is_some()) && !(a.elem.is_float() && a.expected.is_some()) {
        return Err("atol and rtol apply to float outputs with an `expected` file".into());
    }
    let (atol, rtol) = (a.atol.unwrap_or(0.0), a.rtol.unwrap_or(0.0));
    if !(atol >= 0.0 && rtol >= 0.0 && atol.is_finite() && rtol.is_finite()) {
        return Err(format!("atol {atol} and rtol {rtol} must be finite and non-negative"));
    }
    match a.kind {
        ArgKind::Value => {
            if a.count.is_some() || a.init.is_some() || a.output {
                return Err("a value argument takes `value` only (no count, init, output)".into());
            }
            let v = a.value.ok_or("a value argument needs `value`")?;
            encode(a.elem, v)?;
            Ok(ArgSpec {
                name: a.name.clone(),
                kind: ArgKind::Value,
                elem: a.elem,
                count: 1,
                init: Init::Zeros,
                value: Some(v),
                output: false,
                tolerance_ulps: 0,
                expected: None,
                atol: 0.0,
                rtol: 0.0,
            })
        }
        ArgKind::Buffer => {
            if a.value.is_some() {
                return Err("a buffer argument takes `init`, not `value`".into());
            }
            let count = a.count.ok_or("a buffer needs `count`")?;
            if count == 0 {
                return Err("count must be non-zero".into());
            }
            let mut init = a.init.clone().unwrap_or_default();
            if let Init::File(name) = &init {
                init = Init::Data(read_data_file(dir, name, count * a.elem.size())?.into());
            }
            let expected = match &a.expected {
                None => None,
                Some(name) if a.elem.is_float() => {
                    let b = read_data_file(dir, name, count * 8)?;
                    Some(Expected::Values(b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()))
                }
                Some(name) => Some(Expected::Bits(read_data_file(dir, name, count * a.elem.size())?.into())),
            };
            match &init {
                Init::Zeros | Init::Iota | Init::Data(_) => {}
                Init::File(_) => return Err("internal: file init not loaded".into()),
                Init::RandomBits => {
                    if a.elem.is_float() {
                        return Err("random_bits is for integer elements (float bits could be NaN)".into());
                    }
                }
                Init::Fill(v) => {
                    encode(a.elem, *v)?;
                }
                Init::RandomChoice(vs) => {
                    if vs.is_empty() {
                        return Err("random_choice needs at least one value".into());
                    }
                    for v in vs {
                        encode(a.elem, *v)?;
                    }
                }
                Init::Values(vs) => {
                    if vs.len() != count {
                        return Err(format!("{} values for count {count}", vs.len()));
                    }
                    for v in vs {
                        encode(a.elem, *v)?;
                    }
                }
                Init::Random([lo, hi]) => {
                    if a.elem.is_float() {
                        if !(lo.as_f64().is_finite() && hi.as_f64().is_finite()) || lo.as_f64() > hi.as_f64() {
                            return Err(format!("bad random range [{lo:?}, {hi:?}]"));
                        }
                        if (lo.as_f64() * 1024.0).ceil() > (hi.as_f64() * 1024.0).floor() {
                            return Err("random range holds no multiple of 1/1024".into());
                        }
                    } else {
                        match (lo, hi) {
                            (Num::Int(l), Num::Int(h)) if l <= h => {
                                encode(a.elem, *lo)?;
                                encode(a.elem, *hi)?;
                            }
                            _ => return Err(format!("integer random range needs integers lo <= hi: [{lo:?}, {hi:?}]")),
                        }
                    }
                }
            }
            Ok(ArgSpec {
                name: a.name.clone(),
                kind: ArgKind::Buffer,
                elem: a.elem,
                count,
                init,
                value: None,
                output: a.output,
                tolerance_ulps: a.tolerance_ulps,
                expected,
                atol,
                rtol,
            })
        }
    }
}

/// Little-endian bytes of `v` as an element of type `elem`. Integers must fit the element's signed or
/// unsigned range (they are stored as their two's complement bits); floats are rounded to nearest even.
pub fn encode(elem: Elem, v: Num) -> Result<Vec<u8>, String> {
    if elem.is_float() {
        let x = v.as_f64();
        if !x.is_finite() {
            return Err(format!("{v:?} is not finite"));
        }
        return Ok(match elem {
            Elem::F16 => f16::from_f64(x).to_le_bytes().to_vec(),
            Elem::Bf16 => bf16::from_f64(x).to_le_bytes().to_vec(),
            Elem::F32 => (x as f32).to_le_bytes().to_vec(),
            _ => x.to_le_bytes().to_vec(),
        });
    }
    let i = match v {
        Num::Int(i) => i as i128,
        Num::Float(f) if f.fract() == 0.0 && f.abs() < 1.9e19 => f as i128,
        Num::Float(f) => return Err(format!("{f} is not an integer")),
    };
    let bits = elem.size() as u32 * 8;
    let min = -(1i128 << (bits - 1));
    let max = (1i128 << bits) - 1;
    if i < min || i > max {
        return Err(format!("{i} does not fit in {elem}"));
    }
    Ok((i as u64).to_le_bytes()[..elem.size()].to_vec())
}

/// The contents of one argument: a buffer's bytes, or a by-value argument's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgData {
    /// Little-endian elements.
    Buffer(Vec<u8>),
    /// The bytes of the by-value argument.
    Value(Vec<u8>),
}

impl ArgData {
    pub fn bytes(&self) -> &[u8] {
        match self {
            ArgData::Buffer(b) | ArgData::Value(b) => b,
        }
    }

    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        match self {
            ArgData::Buffer(b) | ArgData::Value(b) => b,
        }
    }

    pub fn is_buffer(&self) -> bool {
        matches!(self, ArgData::Buffer(_))
    }

    /// The elements, decoded.
    pub fn to_vec<T: Scalar>(&self) -> Vec<T> {
        self.bytes().chunks_exact(T::SIZE).map(T::read).collect()
    }

    /// A buffer made of these elements.
    pub fn from_slice<T: Scalar>(v: &[T]) -> ArgData {
        let mut b = vec![0u8; v.len() * T::SIZE];
        for (x, chunk) in v.iter().zip(b.chunks_exact_mut(T::SIZE)) {
            x.write(chunk);
        }
        ArgData::Buffer(b)
    }
}

/// FNV-1a, to give every argument its own random stream.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The initial contents of every argument of `launch`, in argument order, made deterministically
/// from `seed` (each argument has its own stream, keyed by kernel and argument name).
pub fn make_inputs(launch: &Launch, seed: u64) -> Vec<ArgData> {
    launch
        .args
        .iter()
        .map(|a| match a.kind {
            ArgKind::Value => ArgData::Value(encode(a.elem, a.value.expect("validated")).expect("validated")),
            ArgKind::Buffer => {
                let mut rng = SplitMix64::new(seed ^ fnv1a(&[&launch.kernel, &a.name]));
                ArgData::Buffer(fill_buffer(a, &mut rng))
            }
        })
        .collect()
}

fn fill_buffer(a: &ArgSpec, rng: &mut SplitMix64) -> Vec<u8> {
    if let Init::Data(d) = &a.init {
        return d.to_vec();
    }
    let size = a.elem.size();
    let mut out = Vec::with_capacity(a.count * size);
    for i in 0..a.count {
        let bytes = match &a.init {
            Init::Zeros => vec![0u8; size],
            Init::Iota => {
                if a.elem.is_float() {
                    encode(a.elem, Num::Float(i as f64)).expect("float")
                } else {
                    (i as u64).to_le_bytes()[..size].to_vec()
                }
            }
            Init::RandomBits => rng.next_u64().to_le_bytes()[..size].to_vec(),
            Init::Fill(v) => encode(a.elem, *v).expect("validated"),
            Init::Data(_) | Init::File(_) => unreachable!("handled above / loaded when parsed"),
            Init::Values(vs) => encode(a.elem, vs[i]).expect("validated"),
            Init::RandomChoice(vs) => encode(a.elem, vs[rng.below(vs.len() as u64) as usize]).expect("validated"),
            Init::Random([lo, hi]) => {
                if a.elem.is_float() {
                    let klo = (lo.as_f64() * 1024.0).ceil() as i64;
                    let khi = (hi.as_f64() * 1024.0).floor() as i64;
                    let k = klo + rng.below((khi - klo) as u64 + 1) as i64;
                    encode(a.elem, Num::Float(k as f64 / 1024.0)).expect("finite")
                } else {
                    let (Num::Int(l), Num::Int(h)) = (lo, hi) else { unreachable!("validated") };
                    let span = (*h as i128 - *l as i128) as u64;
                    let v = if span == u64::MAX { rng.next_u64() as i128 } else { rng.below(span + 1) as i128 };
                    ((*l as i128 + v) as u64).to_le_bytes()[..size].to_vec()
                }
            }
        };
        out.extend_from_slice(&bytes);
    }
    out
}

/// Distance in units in the last place between two floats of type `elem` given as bits; `None` when
/// exactly one of them is NaN. Equal bits (including NaNs) are distance 0; +0 and -0 are distance 1.
pub fn ulp_distance(elem: Elem, a: u64, b: u64) -> Option<u64> {
    let (sign, exp_mask, mant_mask): (u64, u64, u64) = match elem {
        Elem::F16 => (0x8000, 0x7c00, 0x3ff),
        Elem::Bf16 => (0x8000, 0x7f80, 0x7f),
        Elem::F32 => (0x8000_0000, 0x7f80_0000, 0x7f_ffff),
        Elem::F64 => (1 << 63, 0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
        _ => return if a == b { Some(0) } else { None },
    };
    if a == b {
        return Some(0);
    }
    let is_nan = |x: u64| x & exp_mask == exp_mask && x & mant_mask != 0;
    if is_nan(a) || is_nan(b) {
        return None;
    }
    // Map to a monotonic integer line: negative numbers below -0, which sits just below +0.
    let key = |x: u64| -> i128 {
        if x & sign != 0 {
            -((x & !sign) as i128) - 1
        } else {
            x as i128
        }
    };
    Some((key(a) - key(b)).unsigned_abs() as u64)
}

/// Compares the output buffers of a run with the expected ones (from [`reference`]); non-output
/// arguments are ignored. Float outputs may differ by their `tolerance_ulps`, everything else must
/// be bit-identical. The error names the first differing element.
pub fn compare_outputs(launch: &Launch, expected: &[ArgData], actual: &[ArgData]) -> Result<(), CorpusError> {
    let mismatch = |arg: &str, msg: String| CorpusError::Mismatch { kernel: launch.kernel.clone(), arg: arg.to_string(), msg };
    if expected.len() != launch.args.len() || actual.len() != launch.args.len() {
        return Err(mismatch(
            "*",
            format!("{} args in the launch, {} expected, {} actual", launch.args.len(), expected.len(), actual.len()),
        ));
    }
    for (i, spec) in launch.args.iter().enumerate() {
        if !spec.output {
            continue;
        }
        let (e, a) = (expected[i].bytes(), actual[i].bytes());
        if e.len() != a.len() {
            return Err(mismatch(&spec.name, format!("{} bytes expected, {} bytes actual", e.len(), a.len())));
        }
        let size = spec.elem.size();
        let mut bad = 0usize;
        let mut first = None;
        for (idx, (ec, ac)) in e.chunks_exact(size).zip(a.chunks_exact(size)).enumerate() {
            let eb = le_bits(ec);
            let ab = le_bits(ac);
            if eb == ab {
                continue;
            }
            let ok = spec.elem.is_float()
                && ulp_distance(spec.elem, eb, ab).is_some_and(|d| d <= spec.tolerance_ulps as u64);
            if !ok {
                bad += 1;
                first.get_or_insert((idx, eb, ab));
            }
        }
        if let Some((idx, eb, ab)) = first {
            return Err(mismatch(
                &spec.name,
                format!(
                    "{bad} of {} elements differ; first at [{idx}]: expected {}, got {} (tolerance {} ulps)",
                    spec.count,
                    show(spec.elem, eb),
                    show(spec.elem, ab),
                    spec.tolerance_ulps
                ),
            ));
        }
    }
    Ok(())
}

/// Compares the output buffers of a run with the expected contents that a compiled-kernel suite's
/// description names (`expected = ...`): integer outputs bit for bit, float outputs within
/// `atol + rtol * |want|` (a NaN must meet a NaN). Outputs without an expected file are an error.
pub fn compare_expected(launch: &Launch, actual: &[ArgData]) -> Result<(), CorpusError> {
    let mismatch = |arg: &str, msg: String| CorpusError::Mismatch { kernel: launch.kernel.clone(), arg: arg.to_string(), msg };
    if actual.len() != launch.args.len() {
        return Err(mismatch("*", format!("{} args in the launch, {} actual", launch.args.len(), actual.len())));
    }
    for (spec, got) in launch.args.iter().zip(actual).filter(|(s, _)| s.output) {
        let got = got.bytes();
        if got.len() != spec.byte_size() {
            return Err(mismatch(&spec.name, format!("{} bytes expected, {} bytes actual", spec.byte_size(), got.len())));
        }
        let mut bad = 0usize;
        let mut first = None;
        match &spec.expected {
            None => return Err(mismatch(&spec.name, "no `expected` file for this output".into())),
            Some(Expected::Bits(want)) => {
                for (idx, (w, g)) in want.chunks_exact(spec.elem.size()).zip(got.chunks_exact(spec.elem.size())).enumerate() {
                    if w != g {
                        bad += 1;
                        first.get_or_insert_with(|| format!("[{idx}]: expected {}, got {}", show(spec.elem, le_bits(w)), show(spec.elem, le_bits(g))));
                    }
                }
            }
            Some(Expected::Values(want)) => {
                for (idx, (w, g)) in want.iter().zip(got.chunks_exact(spec.elem.size())).enumerate() {
                    let gv = float_value(spec.elem, le_bits(g));
                    let ok = if w.is_nan() { gv.is_nan() } else { (gv - w).abs() <= spec.atol + spec.rtol * w.abs() };
                    if !ok {
                        bad += 1;
                        first.get_or_insert_with(|| format!("[{idx}]: expected {w:e}, got {}", show(spec.elem, le_bits(g))));
                    }
                }
            }
        }
        if let Some(first) = first {
            return Err(mismatch(
                &spec.name,
                format!("{bad} of {} elements differ (atol {}, rtol {}); first at {first}", spec.count, spec.atol, spec.rtol),
            ));
        }
    }
    Ok(())
}

/// The value of a float element given as bits.
pub fn float_value(elem: Elem, bits: u64) -> f64 {
    match elem {
        Elem::F16 => f16::from_bits(bits as u16).to_f64(),
        Elem::Bf16 => bf16::from_bits(bits as u16).to_f64(),
        Elem::F32 => f32::from_bits(bits as u32) as f64,
        Elem::F64 => f64::from_bits(bits),
        _ => bits as f64,
    }
}

/// The suites of objects built by real compilers, each a folder of `corpus/`: `triton` (Triton 3.9,
/// `cargo xtask triton`) and `hip` (clang 22 HIP and OpenCL).
pub const COMPILED_SUITES: [&str; 2] = ["triton", "hip"];

/// One object of a compiled-kernel suite: `corpus/<suite>/<name>.toml`, with the code objects the
/// compiler built at `corpus/<suite>/<cpu>/<name>.hsaco` for each of `targets`, and the inputs
/// and expected outputs the description names under `corpus/<suite>/data/`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledObject {
    pub suite: String,
    pub name: String,
    pub launches: Vec<Launch>,
    pub targets: Vec<String>,
    pub dir: PathBuf,
}

impl CompiledObject {
    /// The code object the compiler built for processor `cpu`.
    pub fn object_path(&self, cpu: &str) -> PathBuf {
        self.dir.join(cpu).join(format!("{}.hsaco", self.name))
    }

    /// `suite/name`, as reports name it.
    pub fn id(&self) -> String {
        format!("{}/{}", self.suite, self.name)
    }
}

/// Every object of compiled-kernel suite `suite` (a folder of `corpus/`), sorted by name; an
/// absent folder is an empty suite.
pub fn compiled_suite(suite: &str) -> Result<Vec<CompiledObject>, CorpusError> {
    let dir = corpus_dir().join(suite);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut names = Vec::new();
    for entry in entries {
        let path = entry.map_err(|source| CorpusError::Io { path: dir.clone(), source })?.path();
        if path.extension().is_some_and(|e| e == "toml") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let toml_path = dir.join(format!("{name}.toml"));
            let text = std::fs::read_to_string(&toml_path)
                .map_err(|source| CorpusError::Io { path: toml_path.clone(), source })?;
            let (targets, launches) = parse_description(&text, &toml_path)?;
            Ok(CompiledObject { suite: suite.to_string(), name, launches, targets, dir: dir.clone() })
        })
        .collect()
}

fn le_bits(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// A readable rendering of one element given as bits.
pub fn show(elem: Elem, bits: u64) -> String {
    let hex = format!("{:#0w$x}", bits, w = elem.size() * 2 + 2);
    match elem {
        Elem::F16 => format!("{} ({hex})", f16::from_bits(bits as u16)),
        Elem::Bf16 => format!("{} ({hex})", bf16::from_bits(bits as u16)),
        Elem::F32 => format!("{:e} ({hex})", f32::from_bits(bits as u32)),
        Elem::F64 => format!("{:e} ({hex})", f64::from_bits(bits)),
        Elem::I8 => format!("{} ({hex})", bits as u8 as i8),
        Elem::I16 => format!("{} ({hex})", bits as u16 as i16),
        Elem::I32 => format!("{} ({hex})", bits as u32 as i32),
        Elem::I64 => format!("{} ({hex})", bits as i64),
        _ => format!("{bits} ({hex})"),
    }
}

#[cfg(test)]
mod tests;
