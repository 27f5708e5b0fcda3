//! Keeps the heap a translation grows in mapped between translations.
//!
//! A translation of a small kernel grows glibc's heap by a few MiB (mostly LLVM's per-function
//! codegen state, sized by the target's thousands of physical registers) and frees it at the end;
//! with glibc's default thresholds the free top of the heap is returned to the kernel at once, so
//! every later translation faults the same pages in again (about 900 page faults, a quarter of a
//! warm saxpy translation's wall time on the benchmark machine; callgrind does not see them).
//! Raising the trim threshold keeps up to [`TRIM`] of free heap mapped, and a fixed mmap
//! threshold keeps allocations below [`MMAP`] in the heap instead of in fresh mappings.
//!
//! These are process-wide settings, applied once by the first translation. A process that tunes
//! malloc itself (glibc.malloc tunables or the MALLOC_*_ variables) keeps its own settings.

/// Free heap top kept mapped after a translation.
pub const TRIM: usize = 32 << 20;
/// Allocations from this size on get their own mapping (glibc's own default starts at 128 KiB
/// and rises up to 32 MiB as large blocks are freed).
pub const MMAP: usize = 4 << 20;

/// Applies the settings once per process (glibc only; elsewhere nothing happens). Returns
/// whether this process has them (false: not glibc, or the process tunes malloc itself).
pub fn keep_translation_heap() -> bool {
    static APPLIED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *APPLIED.get_or_init(apply)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn apply() -> bool {
    let own = std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("glibc.malloc."))
        || ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
    if own {
        return false;
    }
    // SAFETY: mallopt only changes allocator parameters; it takes the allocator's own lock.
    unsafe { libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM as i32) == 1 && libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP as i32) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn apply() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    #[test]
    fn glibc_takes_the_settings() {
        // Only meaningful in a process that does not tune malloc itself.
        if std::env::vars().any(|(k, _)| k == "GLIBC_TUNABLES" || k.starts_with("MALLOC_")) {
            return;
        }
        assert!(super::keep_translation_heap(), "mallopt refused the settings");
    }
}
