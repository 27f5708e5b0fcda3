//! Rust references: what memory holds after each corpus kernel ran.
//!
//! One function per kernel, written from the kernel's IR: the same IEEE operations in the same
//! order (f32 in f32, `mul_add` for fma, f16/bf16 rounded to nearest even after each operation),
//! wrapping integer arithmetic, and for wave-level operations the lane semantics of a 32-lane wave.

use crate::{ArgData, ArgKind, CorpusError, Launch, Scalar};

mod control;
mod float;
mod gfx1250;
mod integer;
mod lds;
mod memory;
mod wave;

type KernelFn = fn(&mut Ctx) -> Result<(), CorpusError>;

/// Every kernel with a reference, with its function.
const TABLE: &[(&str, KernelFn)] = &[
    ("saxpy", float::saxpy),
    ("f64_math", float::f64_math),
    ("f16_math", float::f16_math),
    ("bf16_math", float::bf16_math),
    ("convert_f32", float::convert_f32),
    ("math_f32", float::math_f32),
    ("int_div32", integer::int_div32),
    ("int_div64", integer::int_div64),
    ("int64_math", integer::int64_math),
    ("divergent_if", control::divergent_if),
    ("nested_loops", control::nested_loops),
    ("uniform_branch", control::uniform_branch),
    ("grid2d", control::grid2d),
    ("grid3d", control::grid3d),
    ("hidden_args", control::hidden_args),
    ("device_call", control::device_call),
    ("mk_fill", control::mk_fill),
    ("mk_scale", control::mk_scale),
    ("mk_blocksum", control::mk_blocksum),
    ("lds_reduce", lds::lds_reduce),
    ("lds_scan", lds::lds_scan),
    ("lds_matmul", lds::lds_matmul),
    ("lds_transpose", lds::lds_transpose),
    ("lds_bitonic", lds::lds_bitonic),
    ("dyn_lds", lds::dyn_lds),
    ("atomics_global", memory::atomics_global),
    ("atomics_lds", memory::atomics_lds),
    ("scratch_array", memory::scratch_array),
    ("buffer_raw", memory::buffer_raw),
    ("wave_ballot", wave::wave_ballot),
    ("wave_compact", wave::wave_compact),
    ("wave_dpp", wave::wave_dpp),
    ("wave_permute", wave::wave_permute),
    ("wmma_f16", gfx1250::wmma_f16),
    ("wmma_f16_acc", gfx1250::wmma_f16_acc),
    ("wmma_bf16", gfx1250::wmma_bf16),
    ("wmma_f32", gfx1250::wmma_f32),
    ("wmma_fp8", gfx1250::wmma_fp8),
    ("wmma_fp4", gfx1250::wmma_fp4),
    ("wmma_iu8", gfx1250::wmma_iu8),
    ("softmax_wave", gfx1250::softmax_wave),
    ("fp8_quant", gfx1250::fp8_quant),
    ("async_pipeline", gfx1250::async_pipeline),
    ("split_barrier", gfx1250::split_barrier),
    ("pk_f32", gfx1250::pk_f32),
    ("vgpr_high", gfx1250::vgpr_high),
    ("cache_policy", gfx1250::cache_policy),
    ("cluster_barrier", gfx1250::cluster_barrier),
    ("tensor_tile", gfx1250::tensor_tile),
    ("tensor_row16", gfx1250::tensor_row16),
    ("tensor_store2d", gfx1250::tensor_store2d),
];

/// The names of the kernels that have a reference.
pub const REFERENCE_KERNELS: &[&str] = &{
    let mut names = [""; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        names[i] = TABLE[i].0;
        i += 1;
    }
    names
};

/// The arguments after `launch` ran on `inputs` (as made by [`crate::make_inputs`] or any other
/// contents of the right sizes): by-value arguments unchanged, buffers as the kernel leaves them.
/// `object` names the corpus object (used in errors).
pub fn reference(object: &str, launch: &Launch, inputs: &[ArgData]) -> Result<Vec<ArgData>, CorpusError> {
    let (_, f) = TABLE
        .iter()
        .find(|(k, _)| *k == launch.kernel)
        .ok_or_else(|| CorpusError::UnknownKernel { object: object.to_string(), kernel: launch.kernel.clone() })?;
    let mut ctx = Ctx::new(launch, inputs)?;
    f(&mut ctx)?;
    Ok(ctx.args)
}

/// A kernel's arguments, by name, for a reference function.
pub(crate) struct Ctx<'a> {
    pub launch: &'a Launch,
    pub args: Vec<ArgData>,
}

impl<'a> Ctx<'a> {
    fn new(launch: &'a Launch, inputs: &[ArgData]) -> Result<Ctx<'a>, CorpusError> {
        let bad = |msg: String| CorpusError::Reference { kernel: launch.kernel.clone(), msg };
        if inputs.len() != launch.args.len() {
            return Err(bad(format!("{} inputs for {} arguments", inputs.len(), launch.args.len())));
        }
        for (spec, data) in launch.args.iter().zip(inputs) {
            let kind_ok = matches!((spec.kind, data), (ArgKind::Buffer, ArgData::Buffer(_)) | (ArgKind::Value, ArgData::Value(_)));
            if !kind_ok || data.bytes().len() != spec.byte_size() {
                return Err(bad(format!(
                    "argument `{}`: expected a {:?} of {} bytes, got {} bytes",
                    spec.name,
                    spec.kind,
                    spec.byte_size(),
                    data.bytes().len()
                )));
            }
        }
        Ok(Ctx { launch, args: inputs.to_vec() })
    }

    pub fn err(&self, msg: impl Into<String>) -> CorpusError {
        CorpusError::Reference { kernel: self.launch.kernel.clone(), msg: msg.into() }
    }

    fn index<T: Scalar>(&self, name: &str, kind: ArgKind) -> Result<usize, CorpusError> {
        let (i, spec) = self.launch.arg(name).ok_or_else(|| self.err(format!("no argument `{name}`")))?;
        if spec.kind != kind || spec.elem != T::ELEM {
            return Err(self.err(format!(
                "argument `{name}` is a {:?} of {}, the reference reads a {kind:?} of {}",
                spec.kind,
                spec.elem,
                T::ELEM
            )));
        }
        Ok(i)
    }

    /// The elements of buffer `name`.
    pub fn buf<T: Scalar>(&self, name: &str) -> Result<Vec<T>, CorpusError> {
        Ok(self.args[self.index::<T>(name, ArgKind::Buffer)?].to_vec())
    }

    /// Replaces the contents of buffer `name` (same element count).
    pub fn set<T: Scalar>(&mut self, name: &str, v: &[T]) -> Result<(), CorpusError> {
        let i = self.index::<T>(name, ArgKind::Buffer)?;
        if v.len() != self.launch.args[i].count {
            return Err(self.err(format!("writing {} elements into `{name}` of {}", v.len(), self.launch.args[i].count)));
        }
        self.args[i] = ArgData::from_slice(v);
        Ok(())
    }

    /// The by-value argument `name`.
    pub fn val<T: Scalar>(&self, name: &str) -> Result<T, CorpusError> {
        Ok(T::read(self.args[self.index::<T>(name, ArgKind::Value)?].bytes()))
    }

    /// Fails unless the launch uses this work-group size (for kernels whose IR assumes it).
    pub fn expect_block(&self, block: [u32; 3]) -> Result<(), CorpusError> {
        if self.launch.block != block {
            return Err(self.err(format!("the kernel assumes work-groups of {block:?}, the launch has {:?}", self.launch.block)));
        }
        Ok(())
    }

    /// Fails unless the grid is a whole number of work-groups (for kernels that assume it).
    pub fn expect_full_groups(&self) -> Result<(), CorpusError> {
        if self.launch.hidden_remainder() != [0, 0, 0] {
            return Err(self.err(format!("grid {:?} is not a multiple of block {:?}", self.launch.grid, self.launch.block)));
        }
        Ok(())
    }

    /// Fails unless buffer `name` holds at least `n` elements.
    pub fn expect_len(&self, name: &str, n: usize) -> Result<(), CorpusError> {
        let (_, spec) = self.launch.arg(name).ok_or_else(|| self.err(format!("no argument `{name}`")))?;
        if spec.count < n {
            return Err(self.err(format!("`{name}` has {} elements, the kernel touches {n}", spec.count)));
        }
        Ok(())
    }

    /// Total work-items in a 1-D launch with full work-groups (global ids 0..n).
    pub fn items_1d(&self) -> Result<usize, CorpusError> {
        if self.launch.grid[1] != 1 || self.launch.grid[2] != 1 {
            return Err(self.err("the kernel is one-dimensional"));
        }
        self.expect_full_groups()?;
        Ok(self.launch.grid[0] as usize)
    }
}

/// One work-item of a launch: its work-group id, local id and global id per dimension.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    pub wg: [u32; 3],
    pub local: [u32; 3],
    pub global: [u32; 3],
}

/// Every work-item of the launch, partial work-groups included, in a fixed order.
pub(crate) fn items(launch: &Launch) -> Vec<Item> {
    let groups = launch.workgroups();
    let mut out = Vec::with_capacity(launch.work_items() as usize);
    for wz in 0..groups[2] {
        for wy in 0..groups[1] {
            for wx in 0..groups[0] {
                let wg = [wx, wy, wz];
                let size: [u32; 3] = std::array::from_fn(|d| launch.block[d].min(launch.grid[d] - wg[d] * launch.block[d]));
                for lz in 0..size[2] {
                    for ly in 0..size[1] {
                        for lx in 0..size[0] {
                            let local = [lx, ly, lz];
                            let global = std::array::from_fn(|d| wg[d] * launch.block[d] + local[d]);
                            out.push(Item { wg, local, global });
                        }
                    }
                }
            }
        }
    }
    out
}
