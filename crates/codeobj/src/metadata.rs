//! The NT_AMDGPU_METADATA note (code object v3+): a msgpack map, parsed into a typed model.
//!
//! Every map keeps its original entries ([`RawMap`]), so keys this model does not know are kept,
//! in their order, and `to_msgpack` of an unchanged model writes the same bytes back.

use crate::error::CodeObjectError;
use rmpv::Value;

/// A msgpack map in its original order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawMap(pub Vec<(Value, Value)>);

impl RawMap {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }
    /// Replaces the value in place (keeping its position), or appends.
    pub fn set(&mut self, key: &str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
            Some(slot) => slot.1 = value,
            None => self.0.push((Value::from(key), value)),
        }
    }
    pub fn remove(&mut self, key: &str) {
        self.0.retain(|(k, _)| k.as_str() != Some(key));
    }
    fn set_opt<T: Into<Value>>(&mut self, key: &str, v: Option<T>) {
        match v {
            Some(v) => self.set(key, v.into()),
            None => self.remove(key),
        }
    }
    /// Keys not in `known`.
    pub fn unknown_keys<'a>(&'a self, known: &'a [&str]) -> impl Iterator<Item = String> + 'a {
        self.0.iter().filter_map(move |(k, _)| {
            let name = k.as_str().map(str::to_string).unwrap_or_else(|| k.to_string());
            (!known.contains(&name.as_str())).then_some(name)
        })
    }
}

/// One kernel argument (`.args` entry).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub offset: u64,
    pub size: u64,
    /// `by_value`, `global_buffer`, `dynamic_shared_pointer`, `hidden_block_count_x`, ...
    pub value_kind: String,
    pub address_space: Option<String>,
    pub raw: RawMap,
}

impl KernelArg {
    pub const KNOWN: &'static [&'static str] =
        &[".name", ".type_name", ".offset", ".size", ".value_kind", ".address_space"];
    pub fn is_hidden(&self) -> bool {
        self.value_kind.starts_with("hidden_")
    }
}

/// One `amdhsa.kernels` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMeta {
    pub name: String,
    /// Descriptor symbol, `<name>.kd`.
    pub symbol: String,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u64,
    pub kernarg_segment_align: u64,
    pub group_segment_fixed_size: u64,
    pub private_segment_fixed_size: u64,
    pub wavefront_size: u64,
    pub sgpr_count: u64,
    pub vgpr_count: u64,
    pub agpr_count: Option<u64>,
    pub sgpr_spill_count: Option<u64>,
    pub vgpr_spill_count: Option<u64>,
    pub max_flat_workgroup_size: Option<u64>,
    pub reqd_workgroup_size: Option<[u64; 3]>,
    pub workgroup_size_hint: Option<[u64; 3]>,
    pub uses_dynamic_stack: Option<bool>,
    pub raw: RawMap,
}

impl KernelMeta {
    /// A translation's kernel key (not AMD's): the factor the HotSwap runtime multiplies the
    /// dispatch packet's `workgroup_size_x` and `grid_size_x` by before it dispatches the kernel
    /// (the COMGR result's `SCALED_DISPATCH_FACTOR`). Absent: 1, the packet as the source's.
    pub const DISPATCH_SCALE_KEY: &'static str = ".hotswap_dispatch_scale";

    /// [`KernelMeta::DISPATCH_SCALE_KEY`]'s value, 1 without it (or with a value that is not a
    /// positive integer below 2^16).
    pub fn dispatch_scale(&self) -> u32 {
        match self.raw.get(Self::DISPATCH_SCALE_KEY).and_then(Value::as_u64) {
            Some(f) if (1..1 << 16).contains(&f) => f as u32,
            _ => 1,
        }
    }

    pub const KNOWN: &'static [&'static str] = &[
        ".name", ".symbol", ".args", ".kernarg_segment_size", ".kernarg_segment_align",
        ".group_segment_fixed_size", ".private_segment_fixed_size", ".wavefront_size", ".sgpr_count",
        ".vgpr_count", ".agpr_count", ".sgpr_spill_count", ".vgpr_spill_count",
        ".max_flat_workgroup_size", ".reqd_workgroup_size", ".workgroup_size_hint", ".uses_dynamic_stack",
    ];
}

/// The whole metadata document.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `amdhsa.version`: [major, minor] (v5 is 1.2, v6 is 1.3).
    pub version: [u64; 2],
    /// `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx1250`.
    pub target: Option<String>,
    pub kernels: Vec<KernelMeta>,
    pub raw: RawMap,
}

impl Metadata {
    pub const KNOWN: &'static [&'static str] = &["amdhsa.version", "amdhsa.target", "amdhsa.kernels"];

    /// Parses the note descriptor. `offset` (file offset of the descriptor) is used in errors.
    pub fn parse(bytes: &[u8], offset: u64) -> Result<Metadata, CodeObjectError> {
        let mut cursor = bytes;
        let value = rmpv::decode::read_value_ref(&mut cursor)
            .map_err(|e| CodeObjectError::Msgpack { offset: offset + (bytes.len() - cursor.len()) as u64, msg: e.to_string() })?
            .to_owned();
        let bad = |msg: String| CodeObjectError::Metadata { offset, msg };
        let top = as_map(&value, "metadata root").map_err(bad)?;
        let version = match top.get("amdhsa.version") {
            Some(Value::Array(a)) if a.len() == 2 => [
                a[0].as_u64().ok_or_else(|| bad("amdhsa.version[0] is not an integer".into()))?,
                a[1].as_u64().ok_or_else(|| bad("amdhsa.version[1] is not an integer".into()))?,
            ],
            _ => return Err(bad("amdhsa.version missing or not [major, minor]".into())),
        };
        let target = match top.get("amdhsa.target") {
            None => None,
            Some(v) => Some(v.as_str().ok_or_else(|| bad("amdhsa.target is not a string".into()))?.to_string()),
        };
        let mut kernels = Vec::new();
        match top.get("amdhsa.kernels") {
            None => {}
            Some(Value::Array(ks)) => {
                // A name or descriptor symbol listed twice leaves the kernel ambiguous: bad input,
                // found here rather than by a later stage as an internal failure.
                let mut names = std::collections::HashMap::new();
                let mut symbols = std::collections::HashMap::new();
                for (i, k) in ks.iter().enumerate() {
                    let k = parse_kernel(k).map_err(|m| bad(format!("amdhsa.kernels[{i}]: {m}")))?;
                    if let Some(j) = names.insert(k.name.clone(), i) {
                        return Err(bad(format!("amdhsa.kernels[{i}]: kernel {} is listed twice (also amdhsa.kernels[{j}])", k.name)));
                    }
                    if let Some(j) = symbols.insert(k.symbol.clone(), i) {
                        return Err(bad(format!(
                            "amdhsa.kernels[{i}]: kernel {}: descriptor symbol {} is also that of amdhsa.kernels[{j}]",
                            k.name, k.symbol
                        )));
                    }
                    kernels.push(k);
                }
            }
            Some(_) => return Err(bad("amdhsa.kernels is not an array".into())),
        }
        Ok(Metadata { version, target, kernels, raw: top })
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelMeta> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The document as a msgpack value, known fields from the model, the rest as read.
    pub fn to_value(&self) -> Value {
        let mut m = self.raw.clone();
        m.set("amdhsa.version", Value::Array(self.version.iter().map(|&v| Value::from(v)).collect()));
        m.set_opt("amdhsa.target", self.target.clone());
        if !self.kernels.is_empty() || m.get("amdhsa.kernels").is_some() {
            m.set("amdhsa.kernels", Value::Array(self.kernels.iter().map(kernel_value).collect()));
        }
        Value::Map(m.0)
    }

    pub fn to_msgpack(&self) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &self.to_value()).expect("writing to a Vec cannot fail");
        out
    }
}

fn as_map(v: &Value, what: &str) -> Result<RawMap, String> {
    match v {
        Value::Map(m) => Ok(RawMap(m.clone())),
        _ => Err(format!("{what} is not a map")),
    }
}

fn req_str(m: &RawMap, key: &str) -> Result<String, String> {
    m.get(key).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("{key} missing or not a string"))
}
fn opt_str(m: &RawMap, key: &str) -> Result<Option<String>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => v.as_str().map(|s| Some(s.to_string())).ok_or_else(|| format!("{key} is not a string")),
    }
}
fn req_u64(m: &RawMap, key: &str) -> Result<u64, String> {
    m.get(key).and_then(Value::as_u64).ok_or_else(|| format!("{key} missing or not an unsigned integer"))
}
fn opt_u64(m: &RawMap, key: &str) -> Result<Option<u64>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| format!("{key} is not an unsigned integer")),
    }
}
fn opt_u64x3(m: &RawMap, key: &str) -> Result<Option<[u64; 3]>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::Array(a)) if a.len() == 3 => {
            let g = |i: usize| a[i].as_u64().ok_or_else(|| format!("{key}[{i}] is not an unsigned integer"));
            Ok(Some([g(0)?, g(1)?, g(2)?]))
        }
        Some(_) => Err(format!("{key} is not an array of 3 integers")),
    }
}

fn parse_kernel(v: &Value) -> Result<KernelMeta, String> {
    let m = as_map(v, "kernel")?;
    let mut args = Vec::new();
    match m.get(".args") {
        None => {}
        Some(Value::Array(a)) => {
            for (i, arg) in a.iter().enumerate() {
                let am = as_map(arg, ".args entry")?;
                let e = |msg: String| format!(".args[{i}]: {msg}");
                args.push(KernelArg {
                    name: opt_str(&am, ".name").map_err(e)?,
                    type_name: opt_str(&am, ".type_name").map_err(e)?,
                    offset: req_u64(&am, ".offset").map_err(e)?,
                    size: req_u64(&am, ".size").map_err(e)?,
                    value_kind: req_str(&am, ".value_kind").map_err(e)?,
                    address_space: opt_str(&am, ".address_space").map_err(e)?,
                    raw: am,
                });
            }
        }
        Some(_) => return Err(".args is not an array".into()),
    }
    let name = req_str(&m, ".name")?;
    let max_flat_workgroup_size = opt_u64(&m, ".max_flat_workgroup_size")?;
    let reqd_workgroup_size = opt_u64x3(&m, ".reqd_workgroup_size")?;
    check_workgroup_sizes(max_flat_workgroup_size, reqd_workgroup_size).map_err(|e| format!("kernel {name}: {e}"))?;
    let uses_dynamic_stack = match m.get(".uses_dynamic_stack") {
        None => None,
        Some(Value::Boolean(b)) => Some(*b),
        Some(_) => return Err(".uses_dynamic_stack is not a boolean".into()),
    };
    Ok(KernelMeta {
        name,
        symbol: req_str(&m, ".symbol")?,
        args,
        kernarg_segment_size: req_u64(&m, ".kernarg_segment_size")?,
        kernarg_segment_align: req_u64(&m, ".kernarg_segment_align")?,
        group_segment_fixed_size: req_u64(&m, ".group_segment_fixed_size")?,
        private_segment_fixed_size: req_u64(&m, ".private_segment_fixed_size")?,
        wavefront_size: req_u64(&m, ".wavefront_size")?,
        sgpr_count: req_u64(&m, ".sgpr_count")?,
        vgpr_count: req_u64(&m, ".vgpr_count")?,
        agpr_count: opt_u64(&m, ".agpr_count")?,
        sgpr_spill_count: opt_u64(&m, ".sgpr_spill_count")?,
        vgpr_spill_count: opt_u64(&m, ".vgpr_spill_count")?,
        max_flat_workgroup_size,
        reqd_workgroup_size,
        workgroup_size_hint: opt_u64x3(&m, ".workgroup_size_hint")?,
        uses_dynamic_stack,
        raw: m,
    })
}

/// The most work-items a work-group of any AMDGPU processor holds (AMDGPUUsage: the flat
/// work-group size is 1 to 1024).
pub const MAX_WORKGROUP_SIZE: u64 = 1024;

/// Work-group sizes no dispatch can have: a `.max_flat_workgroup_size` outside
/// 1..=[`MAX_WORKGROUP_SIZE`], a `.reqd_workgroup_size` with a zero dimension, more than
/// [`MAX_WORKGROUP_SIZE`] work-items, or more than the maximum flat size.
fn check_workgroup_sizes(max_flat: Option<u64>, reqd: Option<[u64; 3]>) -> Result<(), String> {
    if let Some(m) = max_flat {
        if !(1..=MAX_WORKGROUP_SIZE).contains(&m) {
            return Err(format!(".max_flat_workgroup_size {m} is not 1 to {MAX_WORKGROUP_SIZE}"));
        }
    }
    if let Some(r) = reqd {
        let items = r.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        if r.contains(&0) || items.is_none_or(|n| n > MAX_WORKGROUP_SIZE) {
            return Err(format!(".reqd_workgroup_size {r:?} is not 1 to {MAX_WORKGROUP_SIZE} work-items"));
        }
        if let (Some(n), Some(m)) = (items, max_flat) {
            if n > m {
                return Err(format!(".reqd_workgroup_size {r:?} has {n} work-items, more than .max_flat_workgroup_size {m}"));
            }
        }
    }
    Ok(())
}

fn arr3(v: [u64; 3]) -> Value {
    Value::Array(v.iter().map(|&x| Value::from(x)).collect())
}

fn kernel_value(k: &KernelMeta) -> Value {
    let mut m = k.raw.clone();
    m.set(".name", k.name.clone().into());
    m.set(".symbol", k.symbol.clone().into());
    if !k.args.is_empty() || m.get(".args").is_some() {
        let args = k
            .args
            .iter()
            .map(|a| {
                let mut am = a.raw.clone();
                am.set_opt(".name", a.name.clone());
                am.set_opt(".type_name", a.type_name.clone());
                am.set(".offset", a.offset.into());
                am.set(".size", a.size.into());
                am.set(".value_kind", a.value_kind.clone().into());
                am.set_opt(".address_space", a.address_space.clone());
                Value::Map(am.0)
            })
            .collect();
        m.set(".args", Value::Array(args));
    }
    m.set(".kernarg_segment_size", k.kernarg_segment_size.into());
    m.set(".kernarg_segment_align", k.kernarg_segment_align.into());
    m.set(".group_segment_fixed_size", k.group_segment_fixed_size.into());
    m.set(".private_segment_fixed_size", k.private_segment_fixed_size.into());
    m.set(".wavefront_size", k.wavefront_size.into());
    m.set(".sgpr_count", k.sgpr_count.into());
    m.set(".vgpr_count", k.vgpr_count.into());
    m.set_opt(".agpr_count", k.agpr_count);
    m.set_opt(".sgpr_spill_count", k.sgpr_spill_count);
    m.set_opt(".vgpr_spill_count", k.vgpr_spill_count);
    m.set_opt(".max_flat_workgroup_size", k.max_flat_workgroup_size);
    m.set_opt(".reqd_workgroup_size", k.reqd_workgroup_size.map(arr3));
    m.set_opt(".workgroup_size_hint", k.workgroup_size_hint.map(arr3));
    m.set_opt(".uses_dynamic_stack", k.uses_dynamic_stack);
    Value::Map(m.0)
}

/// msgpack value -> JSON (for `inspect --json`); binary data as a hex string.
pub fn value_to_json(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Nil => J::Null,
        Value::Boolean(b) => J::Bool(*b),
        Value::Integer(i) => i
            .as_u64()
            .map(J::from)
            .or_else(|| i.as_i64().map(J::from))
            .unwrap_or(J::Null),
        Value::F32(f) => serde_json::Number::from_f64(*f as f64).map(J::Number).unwrap_or(J::Null),
        Value::F64(f) => serde_json::Number::from_f64(*f).map(J::Number).unwrap_or(J::Null),
        Value::String(s) => J::String(s.as_str().map(str::to_string).unwrap_or_else(|| format!("{s:?}"))),
        Value::Binary(b) => J::String(b.iter().map(|x| format!("{x:02x}")).collect()),
        Value::Array(a) => J::Array(a.iter().map(value_to_json).collect()),
        Value::Map(m) => J::Object(
            m.iter()
                .map(|(k, v)| (k.as_str().map(str::to_string).unwrap_or_else(|| k.to_string()), value_to_json(v)))
                .collect(),
        ),
        Value::Ext(t, d) => J::String(format!("ext({t}):{}", d.iter().map(|x| format!("{x:02x}")).collect::<String>())),
    }
}
