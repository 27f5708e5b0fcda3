//! The per-kernel report of a translation ([`crate::translate`] returns it beside the bytes):
//! for each kernel its status (translated, refused, skipped), for a refusal the offset, mnemonic
//! and reason, static instruction counts and register/LDS use of source and target, and the time
//! each stage took. `hotswap-xlate --report FILE.json` / `--json` write it as JSON
//! ([`Report::to_json`]), the C API hands out the same JSON (`hx_translate_report`), and the
//! command's text summary is [`Report::summary`].

use crate::{Error, ErrorKind};
use hx_codeobj::CodeObject;
use std::time::Duration;

/// What happened to one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Translated: the output runs the kernel's own code, raised and lowered for the target.
    Translated,
    /// Not translated: in lenient mode the output keeps its symbol, descriptor and interface, and
    /// its code is a trap stub (the wave ends in `s_trap`); in strict mode the whole object was
    /// refused.
    Refused,
    /// Left out on request (`Options::skip_kernels`): absent from the output.
    Skipped,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Translated => "translated",
            Status::Refused => "refused",
            Status::Skipped => "skipped",
        }
    }
}

/// Why a kernel was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub kind: ErrorKind,
    /// Byte address of the refused instruction, as `disasm` prints it (None when the refusal is
    /// not about one instruction).
    pub offset: Option<usize>,
    pub mnemonic: Option<String>,
    /// The reason, naming hwregs and operands as the decoder spells them.
    pub reason: String,
    /// The whole error message (kernel, offset, mnemonic and reason).
    pub message: String,
    /// The refused instruction as the decoder (or, for one it does not know, LLVM's
    /// disassembler) prints it: hwregs and operands by name.
    pub instruction: Option<String>,
}

impl Refusal {
    /// `kernel K, offset 0x..., MNEMONIC: reason [instruction]`, as the text summary and strict
    /// errors print it.
    pub fn line(&self, kernel: &str) -> String {
        let text = self.instruction.as_deref().map(|t| format!(" [{t}]")).unwrap_or_default();
        match (self.offset, &self.mnemonic) {
            (Some(o), Some(m)) => format!("kernel {kernel}, offset {o:#x}, {m}: {}{text}", self.reason),
            (Some(o), None) => format!("kernel {kernel}, offset {o:#x}: {}{text}", self.reason),
            _ => format!("kernel {kernel}: {}", self.reason),
        }
    }

    /// The refusal of `error` for kernel `k` of `co`, with the refused instruction's text (its
    /// hwregs and operands by name). An instruction the project's decoder does not know is named
    /// by LLVM's disassembler (the reason says so).
    pub(crate) fn of_kernel(error: &Error, co: &CodeObject, k: &hx_codeobj::Kernel) -> Refusal {
        let mut r = Refusal::of(error);
        let Some(offset) = r.offset else { return r };
        // The offset is an address in the kernel's code, or in a device function's.
        let mut ranges = vec![(k.code_addr, k.code_offset, k.code_size)];
        ranges.extend(co.functions.iter().map(|f| (f.addr, f.offset, f.size)));
        let at = offset as u64;
        let Some(&(addr, file, size)) = ranges.iter().find(|(a, _, s)| (*a..a.saturating_add(*s)).contains(&at)) else { return r };
        let (start, end) = (file.saturating_add(at - addr), file.saturating_add(size));
        let code = co.bytes.get(start as usize..end as usize).unwrap_or_default();
        if let Ok(inst) = hx_isa::decode(hx_isa::Target::Gfx1250, code, 0) {
            r.instruction = Some(inst.text());
            return r;
        }
        let text = hx_llvm::Disassembler::new(hx_llvm::GpuTarget::Gfx1250).ok().and_then(|mut d| d.decode(code, at));
        if let Some((_, text)) = text {
            let m = text.split_whitespace().next().unwrap_or_default().to_string();
            if r.mnemonic.is_none() && !m.is_empty() {
                r.reason = format!("{} (named by LLVM's disassembler)", r.reason);
                r.mnemonic = Some(m);
            }
            r.instruction = Some(text);
        }
        r
    }

    pub(crate) fn of(error: &Error) -> Refusal {
        let (offset, mnemonic, reason) = match error {
            Error::Raise(hx_raise::RaiseError::Unsupported { offset, mnemonic, msg, .. }) => (Some(*offset), Some(mnemonic.clone()), msg.clone()),
            Error::Raise(hx_raise::RaiseError::Decode { offset, message, .. }) => (Some(*offset), None, format!("cannot decode: {message}")),
            Error::Raise(hx_raise::RaiseError::Kernel { msg, .. }) => (None, None, msg.clone()),
            other => (None, None, other.to_string()),
        };
        Refusal { kind: error.kind(), offset, mnemonic, reason, message: error.to_string(), instruction: None }
    }
}

/// Registers and LDS of a kernel, as its code object's metadata states them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resources {
    pub vgprs: u64,
    pub agprs: u64,
    pub sgprs: u64,
    /// Static LDS bytes (`.group_segment_fixed_size`).
    pub lds_bytes: u64,
    /// Scratch bytes per work-item (`.private_segment_fixed_size`).
    pub scratch_bytes: u64,
}

impl Resources {
    pub(crate) fn of(co: &CodeObject, kernel: &str) -> Option<Resources> {
        let m = co.metadata.as_ref()?.kernel(kernel)?;
        Some(Resources {
            vgprs: m.vgpr_count,
            agprs: m.agpr_count.unwrap_or(0),
            sgprs: m.sgpr_count,
            lds_bytes: m.group_segment_fixed_size,
            scratch_bytes: m.private_segment_fixed_size,
        })
    }

    fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "vgprs": self.vgprs, "agprs": self.agprs, "sgprs": self.sgprs,
            "lds_bytes": self.lds_bytes, "scratch_bytes": self.scratch_bytes,
        })
    }
}

/// One kernel's line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelReport {
    /// The bundle entry id the kernel came from (None for a plain code object).
    pub entry: Option<String>,
    pub name: String,
    pub status: Status,
    pub refusal: Option<Refusal>,
    /// Static instruction count of the source kernel's own code (device functions not included).
    pub source_instructions: Option<u64>,
    /// Static instruction count of the output kernel's code (for a refused kernel: its stub).
    pub target_instructions: Option<u64>,
    pub source: Option<Resources>,
    pub target: Option<Resources>,
    /// Time raising this kernel to LLVM IR (None: not raised).
    pub raise_time: Option<Duration>,
    /// Time lowering the module the kernel was lowered in, shared by `module_kernels` kernels.
    pub lower_time: Option<Duration>,
    pub module_kernels: usize,
}

/// Wall time of each stage of a whole translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StageTimes {
    /// Reading the code object (ELF, notes, descriptors).
    pub parse: Duration,
    /// Raising and lowering every module (on the thread pool; wall time).
    pub compile: Duration,
    /// Lowering the refused kernels' trap stubs.
    pub stubs: Duration,
    /// Relinking the objects into the output code object.
    pub link: Duration,
    /// Counting instructions and resources for this report.
    pub report: Duration,
    pub total: Duration,
}

impl StageTimes {
    fn add(&mut self, o: &StageTimes) {
        self.parse += o.parse;
        self.compile += o.compile;
        self.stubs += o.stubs;
        self.link += o.link;
        self.report += o.report;
        self.total += o.total;
    }
}

/// The report of one translation (of a code object, or of every gfx1250 entry of a bundle).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The target processor.
    pub target: String,
    pub strict: bool,
    pub kernels: Vec<KernelReport>,
    /// What a person should know that is not a kernel's line (a bundle entry left alone).
    pub notes: Vec<String>,
    pub times: StageTimes,
}

/// Seconds, as JSON numbers (milliseconds with microsecond resolution).
fn ms(d: Duration) -> serde_json::Value {
    serde_json::json!((d.as_secs_f64() * 1e6).round() / 1e3)
}

/// A duration a person reads: `850 µs`, `12.3 ms`, `1.42 s`, `2 min 5 s`.
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{} µs", d.as_micros())
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else if s < 60.0 {
        format!("{s:.2} s")
    } else {
        format!("{} min {} s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

impl Report {
    pub fn count(&self, status: Status) -> usize {
        self.kernels.iter().filter(|k| k.status == status).count()
    }

    pub fn refused(&self) -> impl Iterator<Item = &KernelReport> {
        self.kernels.iter().filter(|k| k.status == Status::Refused)
    }

    /// Adds a bundle entry's report.
    pub(crate) fn append(&mut self, mut other: Report, entry: &str) {
        for k in &mut other.kernels {
            k.entry = Some(entry.to_string());
        }
        self.kernels.extend(other.kernels);
        self.times.add(&other.times);
    }

    pub fn to_json(&self) -> serde_json::Value {
        let kernels: Vec<serde_json::Value> = self
            .kernels
            .iter()
            .map(|k| {
                let mut v = serde_json::json!({
                    "name": k.name,
                    "status": k.status.name(),
                    "source_instructions": k.source_instructions,
                    "target_instructions": k.target_instructions,
                    "source": k.source.map(Resources::to_json),
                    "target": k.target.map(Resources::to_json),
                    "raise_ms": k.raise_time.map(ms),
                    "module_lower_ms": k.lower_time.map(ms),
                    "module_kernels": k.module_kernels,
                });
                if let Some(e) = &k.entry {
                    v["entry"] = serde_json::json!(e);
                }
                if let Some(r) = &k.refusal {
                    v["refusal"] = serde_json::json!({
                        "kind": format!("{:?}", r.kind),
                        "offset": r.offset,
                        "offset_hex": r.offset.map(|o| format!("{o:#x}")),
                        "mnemonic": r.mnemonic,
                        "instruction": r.instruction,
                        "reason": r.reason,
                        "message": r.message,
                    });
                }
                v
            })
            .collect();
        serde_json::json!({
            "target": self.target,
            "strict": self.strict,
            "totals": {
                "kernels": self.kernels.len(),
                "translated": self.count(Status::Translated),
                "refused": self.count(Status::Refused),
                "skipped": self.count(Status::Skipped),
            },
            "times_ms": {
                "parse": ms(self.times.parse),
                "compile": ms(self.times.compile),
                "stubs": ms(self.times.stubs),
                "link": ms(self.times.link),
                "report": ms(self.times.report),
                "total": ms(self.times.total),
            },
            "notes": self.notes,
            "kernels": kernels,
        })
    }

    /// One line per refused kernel, then the totals.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        for k in self.refused() {
            let entry = k.entry.as_deref().map(|e| format!("{e}: ")).unwrap_or_default();
            let Some(r) = &k.refusal else { continue };
            out.push_str(&format!("refused: {entry}{}\n", r.line(&k.name)));
        }
        out.push_str(&format!(
            "{} kernels: {} translated, {} refused, {} skipped ({} for {})\n",
            self.kernels.len(),
            self.count(Status::Translated),
            self.count(Status::Refused),
            self.count(Status::Skipped),
            human_duration(self.times.total),
            self.target,
        ));
        out
    }

    /// The verbose timings, one stage a line.
    pub fn timings(&self) -> String {
        let t = &self.times;
        format!(
            "parse {}, raise+lower {}, trap stubs {}, link {}, report {}, total {}",
            human_duration(t.parse),
            human_duration(t.compile),
            human_duration(t.stubs),
            human_duration(t.link),
            human_duration(t.report),
            human_duration(t.total)
        )
    }
}

/// Static instruction count of `size` bytes of code at file offset `offset`: decoded from the
/// start until the end or the first word the decoder does not know (counted up to there).
pub(crate) fn count_instructions(target: hx_isa::Target, bytes: &[u8], offset: u64, size: u64) -> Option<u64> {
    let code = bytes.get(offset as usize..offset.checked_add(size)? as usize)?;
    let mut at = 0;
    let mut n = 0;
    while at < code.len() {
        match hx_isa::decode(target, code, at) {
            Ok(i) if i.len > 0 => {
                at += i.len as usize;
                n += 1;
            }
            _ => break,
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_person_writes_them() {
        assert_eq!(human_duration(Duration::from_micros(850)), "850 µs");
        assert_eq!(human_duration(Duration::from_micros(12_340)), "12.3 ms");
        assert_eq!(human_duration(Duration::from_millis(1_420)), "1.42 s");
        assert_eq!(human_duration(Duration::from_secs(125)), "2 min 5 s");
    }

    #[test]
    fn summary_is_a_line_per_refused_kernel_and_the_totals() {
        let kernel = |name: &str, status, refusal| KernelReport {
            entry: None,
            name: name.into(),
            status,
            refusal,
            source_instructions: None,
            target_instructions: None,
            source: None,
            target: None,
            raise_time: None,
            lower_time: None,
            module_kernels: 0,
        };
        let refusal = Refusal { kind: ErrorKind::Unsupported, offset: Some(0x1a14), mnemonic: Some("v_foo".into()), reason: "not raised".into(), message: String::new(), instruction: Some("v_foo v0".into()) };
        let r = Report {
            target: "gfx942".into(),
            strict: false,
            kernels: vec![kernel("a", Status::Translated, None), kernel("b", Status::Refused, Some(refusal)), kernel("c", Status::Skipped, None)],
            notes: vec![],
            times: StageTimes { total: Duration::from_millis(5), ..Default::default() },
        };
        assert_eq!(r.summary(), "refused: kernel b, offset 0x1a14, v_foo: not raised [v_foo v0]\n3 kernels: 1 translated, 1 refused, 1 skipped (5.0 ms for gfx942)\n");
        let json = r.to_json();
        assert_eq!(json["kernels"][1]["refusal"]["offset_hex"], "0x1a14");
        assert_eq!(json["totals"]["skipped"], 1);
    }
}
