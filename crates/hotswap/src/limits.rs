//! Bounds on one translation, checked before the work they bound.
//!
//! A translation runs inside a GPU runtime at load time: refusing an input is better than taking
//! the host down with unbounded memory or time. [`Limits`] holds four bounds, each refused with
//! its own [`LimitError`] (C API: `HX_STATUS_OUT_OF_RESOURCES`) before the stage it protects:
//!
//! | limit | checked | default | environment |
//! |---|---|---|---|
//! | input size | before parsing | 256 MiB | `HSA_HOTSWAP_MAX_INPUT_BYTES` |
//! | kernels per code object | after parsing, before decoding | 10,000 | `HSA_HOTSWAP_MAX_KERNELS` |
//! | instructions per kernel | decoded (a linear count of the kernel's code), before raising | 250,000 | `HSA_HOTSWAP_MAX_KERNEL_INSTRUCTIONS` |
//! | memory budget of one translation | estimated from the instruction count, before raising; each large buffer the facade allocates | 2 GiB | `HSA_HOTSWAP_MEMORY_BUDGET` |
//!
//! A value of 0 turns that limit off. Sizes in the environment are bytes, or a number with a
//! `K`, `M` or `G` suffix (binary: `512M` is 512 MiB).
//!
//! The memory estimate is [`BASE_BYTES`] plus [`BYTES_PER_INSTRUCTION`] for every gfx1250
//! instruction of the kernels translated: peak resident memory grows linearly with the
//! instruction count, with the constant measured in BENCHMARKS.md (section "Limits and scaling").
//! The estimate is what is refused; LLVM's own allocations are not counted one by one (LLVM
//! ends the process when an allocation fails, so the budget must be met before it starts).
//! The facade's own large buffers (the code image of a kernel, the source's loaded image) are
//! allocated fallibly (`try_reserve`): a refused allocation is [`LimitError::Allocation`], never
//! an abort.

use std::fmt;

/// Built-in default of [`Limits::max_input_bytes`].
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 << 20;
/// Built-in default of [`Limits::max_kernels`].
pub const DEFAULT_MAX_KERNELS: u64 = 10_000;
/// Built-in default of [`Limits::max_kernel_instructions`].
pub const DEFAULT_MAX_KERNEL_INSTRUCTIONS: u64 = 250_000;
/// Built-in default of [`Limits::memory_budget_bytes`].
pub const DEFAULT_MEMORY_BUDGET_BYTES: u64 = 2 << 30;

/// Memory of a translation before its first instruction: LLVM's context, target machine and
/// pass pipelines, the decoder's tables (measured: about 60 MiB resident for a small kernel).
pub const BASE_BYTES: u64 = 64 << 20;
/// Peak memory per gfx1250 instruction translated (measured on straight-line code, branches and
/// divergent ifs up to 100,000 instructions; BENCHMARKS.md).
pub const BYTES_PER_INSTRUCTION: u64 = 2048;

/// Environment variables that set the limits.
pub const ENV_MAX_INPUT_BYTES: &str = "HSA_HOTSWAP_MAX_INPUT_BYTES";
pub const ENV_MAX_KERNELS: &str = "HSA_HOTSWAP_MAX_KERNELS";
pub const ENV_MAX_KERNEL_INSTRUCTIONS: &str = "HSA_HOTSWAP_MAX_KERNEL_INSTRUCTIONS";
pub const ENV_MEMORY_BUDGET: &str = "HSA_HOTSWAP_MEMORY_BUDGET";
/// Every variable [`Limits::from_lookup`] reads.
pub const ENV_ALL: [&str; 4] = [ENV_MAX_INPUT_BYTES, ENV_MAX_KERNELS, ENV_MAX_KERNEL_INSTRUCTIONS, ENV_MEMORY_BUDGET];

/// Bounds on one translation (0: no bound). Not part of a cache key: a limit decides whether a
/// translation runs, never what it produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Bytes of the input (code object or bundle).
    pub max_input_bytes: u64,
    /// Kernels in one code object (each entry of a bundle counts on its own).
    pub max_kernels: u64,
    /// gfx1250 instructions in one kernel's code.
    pub max_kernel_instructions: u64,
    /// Estimated peak memory of one translation, in bytes.
    pub memory_budget_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_kernels: DEFAULT_MAX_KERNELS,
            max_kernel_instructions: DEFAULT_MAX_KERNEL_INSTRUCTIONS,
            memory_budget_bytes: DEFAULT_MEMORY_BUDGET_BYTES,
        }
    }
}

/// A translation refused by a limit, before the work it bounds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("input of {size} bytes is over the input size limit of {limit} bytes ({ENV_MAX_INPUT_BYTES})")]
    InputTooLarge { size: u64, limit: u64 },
    #[error("code object has {count} kernels, over the limit of {limit} kernels per object ({ENV_MAX_KERNELS})")]
    TooManyKernels { count: u64, limit: u64 },
    #[error("kernel {kernel}: {instructions} instructions, over the limit of {limit} instructions per kernel ({ENV_MAX_KERNEL_INSTRUCTIONS})")]
    KernelTooLong { kernel: String, instructions: u64, limit: u64 },
    #[error(
        "translating {instructions} instructions needs an estimated {estimate} bytes, over the memory budget of {budget} bytes ({ENV_MEMORY_BUDGET})"
    )]
    OverMemoryBudget { instructions: u64, estimate: u64, budget: u64 },
    #[error("cannot allocate {bytes} bytes for {what}")]
    Allocation { what: String, bytes: u64 },
}

impl Limits {
    /// No bounds at all (for tools that translate trusted inputs of any size).
    pub const UNLIMITED: Limits = Limits { max_input_bytes: 0, max_kernels: 0, max_kernel_instructions: 0, memory_budget_bytes: 0 };

    /// The defaults, with every variable of [`ENV_ALL`] that `lookup` finds applied. A value
    /// that does not parse is an error naming the variable.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let mut l = Limits::default();
        let fields: [(&str, &mut u64); 4] = [
            (ENV_MAX_INPUT_BYTES, &mut l.max_input_bytes),
            (ENV_MAX_KERNELS, &mut l.max_kernels),
            (ENV_MAX_KERNEL_INSTRUCTIONS, &mut l.max_kernel_instructions),
            (ENV_MEMORY_BUDGET, &mut l.memory_budget_bytes),
        ];
        for (name, slot) in fields {
            if let Some(v) = lookup(name).filter(|v| !v.trim().is_empty()) {
                *slot = parse_size(&v).ok_or_else(|| format!("{name}=`{v}`: expected a number, optionally with a K, M or G suffix"))?;
            }
        }
        Ok(l)
    }

    /// [`Limits::from_lookup`] on the process environment.
    pub fn from_env() -> Result<Limits, String> {
        Limits::from_lookup(|k| std::env::var(k).ok())
    }

    /// Refuses an input larger than [`Limits::max_input_bytes`].
    pub fn check_input(&self, size: usize) -> Result<(), LimitError> {
        let size = size as u64;
        if over(size, self.max_input_bytes) {
            return Err(LimitError::InputTooLarge { size, limit: self.max_input_bytes });
        }
        Ok(())
    }

    /// Refuses a code object with more than [`Limits::max_kernels`] kernels.
    pub fn check_kernels(&self, count: usize) -> Result<(), LimitError> {
        let count = count as u64;
        if over(count, self.max_kernels) {
            return Err(LimitError::TooManyKernels { count, limit: self.max_kernels });
        }
        Ok(())
    }

    /// Refuses a kernel of more than [`Limits::max_kernel_instructions`] instructions.
    pub fn check_kernel_instructions(&self, kernel: &str, instructions: u64) -> Result<(), LimitError> {
        if over(instructions, self.max_kernel_instructions) {
            return Err(LimitError::KernelTooLong { kernel: kernel.to_string(), instructions, limit: self.max_kernel_instructions });
        }
        Ok(())
    }

    /// Refuses a translation of `instructions` instructions whose estimated peak memory
    /// ([`estimate_bytes`]) is over [`Limits::memory_budget_bytes`].
    pub fn check_memory(&self, instructions: u64) -> Result<(), LimitError> {
        let estimate = estimate_bytes(instructions);
        if over(estimate, self.memory_budget_bytes) {
            return Err(LimitError::OverMemoryBudget { instructions, estimate, budget: self.memory_budget_bytes });
        }
        Ok(())
    }

    /// A zeroed buffer of `len` bytes for `what`, allocated fallibly and within the budget.
    pub fn zeroed(&self, len: usize, what: &str) -> Result<Vec<u8>, LimitError> {
        let refuse = || LimitError::Allocation { what: what.to_string(), bytes: len as u64 };
        if over(len as u64, self.memory_budget_bytes) {
            return Err(refuse());
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        // Zeroed by the allocator (fresh pages stay untouched until written, as with vec![0; n]),
        // and a null pointer is an error instead of the abort of `vec!`.
        let layout = std::alloc::Layout::array::<u8>(len).map_err(|_| refuse())?;
        // SAFETY: the layout has a non-zero size (len > 0).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(refuse());
        }
        // SAFETY: `ptr` was allocated by the global allocator with the layout of [u8; len], and
        // all `len` bytes are initialised (zero).
        Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
    }
}

/// Whether `value` is over `limit` (0: no limit).
fn over(value: u64, limit: u64) -> bool {
    limit != 0 && value > limit
}

/// Estimated peak memory of translating `instructions` gfx1250 instructions.
pub fn estimate_bytes(instructions: u64) -> u64 {
    BASE_BYTES.saturating_add(instructions.saturating_mul(BYTES_PER_INSTRUCTION))
}

/// `123`, `64K`, `512M`, `2G` (binary multiples; `KiB`/`MiB`/`GiB` and lower case too).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    let n: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// gfx1250 instructions in `code`, counted by decoding it front to back (an undecodable word
/// counts as one instruction of 4 bytes, as the raiser would refuse it there). Work is bounded
/// by the code's length.
pub fn count_instructions(code: &[u8]) -> u64 {
    let mut inst = hx_isa::Instruction::empty(hx_isa::Target::Gfx1250);
    let mut at = 0usize;
    let mut n = 0u64;
    while at < code.len() {
        let len = match hx_isa::decode_into(hx_isa::Target::Gfx1250, code, at, &mut inst) {
            Ok(()) if inst.len > 0 => inst.len as usize,
            _ => 4,
        };
        at = at.saturating_add(len);
        n += 1;
    }
    n
}

/// Checks a parsed code object against the limits: its kernel count, each translated kernel's
/// instruction count, and the memory estimate of all of them together.
pub fn check_object(limits: &Limits, co: &hx_codeobj::CodeObject, skip: &[String]) -> Result<(), LimitError> {
    limits.check_kernels(co.kernels.len())?;
    let mut total = 0u64;
    for k in co.kernels.iter().filter(|k| !skip.contains(&k.name)) {
        let code = k.code_offset.checked_add(k.code_size).and_then(|end| co.bytes.get(k.code_offset as usize..end as usize)).unwrap_or(&[]);
        // Cheap bound first: no instruction is shorter than 4 bytes.
        let n = if over(code.len() as u64 / 4, limits.max_kernel_instructions) { count_instructions(code) } else { code.len() as u64 / 4 };
        limits.check_kernel_instructions(&k.name, n)?;
        total = total.saturating_add(n);
    }
    // The estimate uses the upper bound of 4 bytes per instruction; the exact count is only
    // taken where the bound would refuse.
    limits.check_memory(total)
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: u64| if v == 0 { "none".to_string() } else { v.to_string() };
        write!(
            f,
            "input {} bytes, {} kernels, {} instructions per kernel, memory budget {} bytes",
            show(self.max_input_bytes),
            show(self.max_kernels),
            show(self.max_kernel_instructions),
            show(self.memory_budget_bytes)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size(" 64K "), Some(64 << 10));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        for bad in ["", "x", "12T", "-1", "1.5G", "99999999999999999999G"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn environment_overrides_defaults_and_names_bad_values() {
        let l = Limits::from_lookup(|k| (k == ENV_MAX_KERNELS).then(|| "7".to_string())).unwrap();
        assert_eq!(l, Limits { max_kernels: 7, ..Limits::default() });
        let l = Limits::from_lookup(|k| (k == ENV_MEMORY_BUDGET).then(|| "0".to_string())).unwrap();
        assert_eq!(l.memory_budget_bytes, 0);
        let e = Limits::from_lookup(|k| (k == ENV_MAX_INPUT_BYTES).then(|| "lots".to_string())).unwrap_err();
        assert!(e.contains(ENV_MAX_INPUT_BYTES) && e.contains("lots"), "{e}");
    }

    #[test]
    fn each_limit_refuses_past_its_bound_and_zero_is_unbounded() {
        let l = Limits { max_input_bytes: 10, max_kernels: 2, max_kernel_instructions: 5, memory_budget_bytes: estimate_bytes(100) };
        assert!(l.check_input(10).is_ok());
        assert_eq!(l.check_input(11), Err(LimitError::InputTooLarge { size: 11, limit: 10 }));
        assert!(l.check_kernels(2).is_ok());
        assert!(matches!(l.check_kernels(3), Err(LimitError::TooManyKernels { count: 3, .. })));
        assert!(l.check_kernel_instructions("k", 5).is_ok());
        let e = l.check_kernel_instructions("k", 6).unwrap_err();
        assert!(e.to_string().contains("kernel k: 6 instructions"), "{e}");
        assert!(l.check_memory(100).is_ok());
        assert!(matches!(l.check_memory(101), Err(LimitError::OverMemoryBudget { instructions: 101, .. })));
        let u = Limits::UNLIMITED;
        assert!(u.check_input(usize::MAX).is_ok() && u.check_kernels(usize::MAX).is_ok() && u.check_memory(u64::MAX).is_ok());
    }

    #[test]
    fn a_buffer_past_the_budget_or_the_address_space_is_an_error_not_an_abort() {
        let l = Limits { memory_budget_bytes: 1 << 20, ..Limits::default() };
        assert_eq!(l.zeroed(1 << 20, "x").unwrap().len(), 1 << 20);
        assert!(matches!(l.zeroed((1 << 20) + 1, "the code image"), Err(LimitError::Allocation { .. })));
        // No budget: the allocator itself refuses (isize::MAX is never available).
        assert!(matches!(Limits::UNLIMITED.zeroed(isize::MAX as usize, "x"), Err(LimitError::Allocation { .. })));
    }

    #[test]
    fn instructions_are_counted_by_decoding() {
        // s_nop 0 (4 bytes) x3, then s_mov_b32 s0, literal (8 bytes), then s_endpgm.
        let mut code = Vec::new();
        for _ in 0..3 {
            code.extend_from_slice(&0xbf80_0000u32.to_le_bytes());
        }
        code.extend_from_slice(&0xbe80_00ffu32.to_le_bytes());
        code.extend_from_slice(&0x1234_5678u32.to_le_bytes());
        code.extend_from_slice(&0xbfb0_0000u32.to_le_bytes());
        assert_eq!(count_instructions(&code), 5);
        assert_eq!(count_instructions(&[]), 0);
        assert_eq!(count_instructions(&[1, 2]), 1);
    }
}
