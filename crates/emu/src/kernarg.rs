//! The kernarg segment as the ROCm runtime lays it out: explicit arguments at the offsets the
//! metadata gives, then the hidden arguments (code object v5) filled from the dispatch.

use crate::{Dispatch, EmuError};
use hx_codeobj::KernelMeta;

/// Builds the kernarg segment of `meta` for `dispatch`. `explicit` holds the bytes of each
/// non-hidden argument, in order (a pointer is its 8-byte device address).
pub fn build(meta: &KernelMeta, explicit: &[Vec<u8>], dispatch: &Dispatch) -> Result<Vec<u8>, EmuError> {
    // Rounded up to 16 bytes: runtimes allocate the segment 16-byte aligned (AMDGPUUsage), and
    // LLVM, which assumes that alignment, widens the last kernarg loads up to it (clang 22 loads
    // 32 bytes at offset 32 of a 60-byte segment).
    let size = (meta.kernarg_segment_size as usize)
        .max(meta.args.iter().map(|a| (a.offset + a.size) as usize).max().unwrap_or(0))
        .next_multiple_of(16);
    let mut seg = vec![0u8; size];
    let mut next_explicit = explicit.iter();
    for a in &meta.args {
        let at = a.offset as usize;
        let put = |seg: &mut Vec<u8>, bytes: &[u8]| -> Result<(), EmuError> {
            if bytes.len() as u64 != a.size {
                return Err(EmuError::Launch(format!(
                    "kernel {}: argument {} at offset {} is {} bytes, {} given",
                    meta.name,
                    a.name.as_deref().unwrap_or("?"),
                    a.offset,
                    a.size,
                    bytes.len()
                )));
            }
            seg[at..at + bytes.len()].copy_from_slice(bytes);
            Ok(())
        };
        let dim = |s: &str| match s.chars().last() {
            Some('x') => 0,
            Some('y') => 1,
            _ => 2,
        };
        let kind = a.value_kind.as_str();
        match kind {
            _ if !a.is_hidden() => {
                let v = next_explicit.next().ok_or_else(|| {
                    EmuError::Launch(format!("kernel {}: too few explicit arguments given", meta.name))
                })?;
                put(&mut seg, v)?;
            }
            // As the ROCm runtime fills it: the number of *full* work-groups (grid / block rounded
            // down); a partial last group shows in hidden_remainder.
            "hidden_block_count_x" | "hidden_block_count_y" | "hidden_block_count_z" => {
                let d = dim(kind);
                put(&mut seg, &(dispatch.grid[d] / dispatch.block[d].max(1)).to_le_bytes())?
            }
            "hidden_group_size_x" | "hidden_group_size_y" | "hidden_group_size_z" => {
                put(&mut seg, &(dispatch.block[dim(kind)] as u16).to_le_bytes())?
            }
            "hidden_remainder_x" | "hidden_remainder_y" | "hidden_remainder_z" => {
                let d = dim(kind);
                put(&mut seg, &((dispatch.grid[d] % dispatch.block[d]) as u16).to_le_bytes())?
            }
            "hidden_global_offset_x" | "hidden_global_offset_y" | "hidden_global_offset_z" => {
                put(&mut seg, &0u64.to_le_bytes())?
            }
            "hidden_grid_dims" => {
                let dims = if dispatch.grid[2] > 1 { 3u16 } else if dispatch.grid[1] > 1 { 2 } else { 1 };
                put(&mut seg, &dims.to_le_bytes())?
            }
            "hidden_dynamic_lds_size" => put(&mut seg, &dispatch.dynamic_lds.to_le_bytes())?,
            "hidden_private_base" => put(&mut seg, &crate::PRIVATE_APERTURE_HI.to_le_bytes())?,
            "hidden_shared_base" => put(&mut seg, &crate::SHARED_APERTURE_HI.to_le_bytes())?,
            // Services the emulator does not provide read as null; a kernel that dereferences one
            // faults on address 0 instead of computing with garbage.
            "hidden_queue_ptr" | "hidden_printf_buffer" | "hidden_hostcall_buffer" | "hidden_heap_v1"
            | "hidden_default_queue" | "hidden_completion_action" | "hidden_multigrid_sync_arg"
            | "hidden_none" => {}
            other => {
                return Err(EmuError::Launch(format!(
                    "kernel {}: hidden argument kind {other} at offset {} is not supported",
                    meta.name, a.offset
                )))
            }
        }
    }
    if next_explicit.next().is_some() {
        return Err(EmuError::Launch(format!("kernel {}: too many explicit arguments given", meta.name)));
    }
    Ok(seg)
}
