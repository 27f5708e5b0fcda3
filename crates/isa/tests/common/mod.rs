//! Shared pieces of the differential tests: the LLVM oracle, a deterministic RNG, and the
//! comparison of one instruction buffer.
#![allow(dead_code)]

use hx_isa::{decode, DecodeError, Target};
use hx_llvm::{Disassembler, GpuTarget};

pub fn gpu(t: Target) -> GpuTarget {
    match t {
        Target::Gfx1250 => GpuTarget::Gfx1250,
        Target::Gfx942 => GpuTarget::Gfx942,
        Target::Gfx950 => GpuTarget::Gfx950,
    }
}

/// xorshift64*: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next() >> 32) % n as u64) as u32
    }
    /// A literal dword biased towards values LLVM prints specially.
    pub fn literal(&mut self) -> u32 {
        const SPECIAL: [u32; 16] = [
            0,
            1,
            0x40,
            0x41,
            0xffff_fff0,
            0xffff_ffff,
            0x3f00_0000,
            0xbf80_0000,
            0x3e22_f983,
            0x3800,
            0x3118,
            0x3f00,
            0x3fe0_0000,
            0x3fc4_5f30,
            0xfff0,
            0x8000_0000,
        ];
        match self.below(4) {
            0 => SPECIAL[self.below(16) as usize],
            1 => self.below(0x100),
            _ => self.u32(),
        }
    }
}

/// Outcome of comparing one buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Same validity, and when valid the same length and text.
    Match,
    /// This crate does not model the encoding (LLVM's verdict is in the string).
    Unsupported(String),
    /// A disagreement: (bytes, LLVM's answer, ours).
    Mismatch(String),
}

pub fn compare(llvm: &mut Disassembler, target: Target, bytes: &[u8]) -> Verdict {
    let theirs = llvm.decode(bytes, 0);
    let ours = decode(target, bytes, 0);
    // gfx1250 true16 words (v_mov_b16) decode in LLVM only with +real-true16: compared with it.
    let theirs = match (&theirs, &ours) {
        (None, Ok(i)) if i.is_true16() => Disassembler::with_features(gpu(target), "+real-true16").expect("LLVM disassembler").decode(bytes, 0),
        _ => theirs,
    };
    // A 16-bit result into a high half (a Lo128 destination of 128 and up): LLVM decodes it
    // only with +real-true16, whose text names halves (`v1.h, v30.l`) where ours names the
    // fake16 register numbers (`v129`, with LLVM's invalid-register note): compared with the
    // halves written as those numbers.
    if let (None, Ok(i)) = (&theirs, &ours) {
        if i.true16_high_half().is_some_and(|o| matches!(o.spec.kind, hx_isa::Kind::VDstLo128 { .. })) {
            let t16 = Disassembler::with_features(gpu(target), "+real-true16").expect("LLVM disassembler").decode(bytes, 0);
            return match t16 {
                Some((len, text)) if len == i.len as usize && fake16_numbers(&text) == strip_notes(&i.text()) => Verdict::Match,
                _ => Verdict::Mismatch(format!("bytes {:02x?}: llvm +real-true16 {t16:?}, ours {:?}", &bytes[..bytes.len().min(12)], (i.len, i.text()))),
            };
        }
    }
    match (&theirs, &ours) {
        (None, Err(e)) if e.is_invalid() => Verdict::Match,
        (Some((len, text)), Ok(i)) if *len == i.len as usize && *text == i.text() => Verdict::Match,
        (_, Err(DecodeError::Unsupported { .. })) => Verdict::Unsupported(format!("{theirs:?}")),
        _ => Verdict::Mismatch(format!(
            "bytes {:02x?}: llvm {:?}, ours {:?}",
            &bytes[..bytes.len().min(12)],
            theirs,
            ours.map(|i| (i.len, i.text()))
        )),
    }
}

/// Per-format tally.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub total: u64,
    pub matched: u64,
    pub unsupported: u64,
    pub mismatched: u64,
    pub examples: Vec<String>,
    pub unsupported_examples: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, v: Verdict) {
        self.total += 1;
        match v {
            Verdict::Match => self.matched += 1,
            Verdict::Unsupported(s) => {
                self.unsupported += 1;
                if self.unsupported_examples.len() < 5 && !self.unsupported_examples.contains(&s) {
                    self.unsupported_examples.push(s);
                }
            }
            Verdict::Mismatch(s) => {
                self.mismatched += 1;
                if self.examples.len() < 20 {
                    self.examples.push(s);
                }
            }
        }
    }
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.matched as f64 / self.total as f64
        }
    }
}

/// LLVM's +real-true16 text with VGPR halves as the fake16 register numbers: `v1.h` is v129,
/// `v1.l` is v1.
pub fn fake16_numbers(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find('v') {
        out.push_str(&rest[..p]);
        let tail = &rest[p + 1..];
        let digits = tail.chars().take_while(|c| c.is_ascii_digit()).count();
        let preceded = out.chars().last().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if digits > 0 && !preceded && (tail[digits..].starts_with(".h") || tail[digits..].starts_with(".l")) {
            let n: u32 = tail[..digits].parse().unwrap_or(0);
            let hi = tail[digits..].starts_with(".h");
            out.push_str(&format!("v{}", if hi { n + 128 } else { n }));
            rest = &tail[digits + 2..];
        } else {
            out.push('v');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// `text` without `/* ... */` notes and the spaces before them.
pub fn strip_notes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find("/*") {
        out.push_str(rest[..p].trim_end());
        match rest[p..].find("*/") {
            Some(q) => rest = &rest[p + q + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}
