//! gfx1250 tensor data mover: `tensor_load_to_lds` and `tensor_store_from_lds`, driven by a
//! descriptor in SGPRs (group 0: 4 dwords, group 1: 8 dwords, groups 2 and 3: 4 dwords each in
//! the up-to-4-D form).
//!
//! No AMD document describing the descriptor was reachable; the fields relied on here come from
//! public users of it, and everything else is refused with an error naming the field:
//!
//! | field | bits | source |
//! |---|---|---|
//! | pred (issue the copy or not) | g0 1:0 | Triton `TDMUtility.cpp` (group 0 chart: "[1:0] pred"; fill writes the i32 predicate into dword 0), gluon `tdm.py` (`pred`: "enable or disable the load") |
//! | gather/scatter index size, enable | g0 30, 31 | `TDMUtility.cpp` group 0 chart |
//! | LDS byte address | g0 63:32 | `TDMUtility.cpp` (dword 1 = ptrtoint of the LDS pointer) |
//! | global byte address | g0 120:64 | `TDMUtility.cpp` group 0 chart (dwords 2, 3) |
//! | type, 2 | g0 127:126 | `TDMUtility.cpp` ("currently always set to 0x2") |
//! | workgroup (multicast) mask | g1 15:0 | `TDMUtility.cpp` group 1 chart |
//! | data size, log2 bytes | g1 17:16 | same |
//! | atomic barrier enable, iterate enable, pad enable | g1 18, 19, 20 | same |
//! | pad interval (log2 dwords - 1), pad amount (dwords - 1) | g1 24:22, 31:25 | same |
//! | atomic barrier address | g1 47:32 | same |
//! | tensor_dim0 (innermost), tensor_dim1 | g1 79:48, 111:80 | same; `decodeTDMDescriptorFull` |
//! | tile_dim0, tile_dim1, tile_dim2 | g1 127:112, 143:128, 159:144 | same |
//! | tensor_dim0_stride (elements between rows), tensor_dim1_stride | g1 207:160, 255:208 | same (48 bits each; Triton writes its element strides there) |
//! | tensor_dim2.., tile_dim3.., strides of higher dims | groups 2, 3 | `TDMUtility.cpp` group 2/3 charts |
//!
//! Semantics taken from the same sources: the descriptor's global address is the tile's origin
//! and the tensor dims count the elements left from it (Triton moves the address to the tile
//! and installs `max(0, shape - offset)` as the dims, relying on the hardware's bounds check);
//! elements outside the tensor read as zero (gluon's `make_tensor_descriptor` asks for padding
//! option "zero") and are not written by a store (Triton's store lowering relies on the bounds
//! check dropping them); the tile lands in LDS as one linear stream, dim 0 fastest ("TDM writes
//! data as a linear element stream", `TDMUtility.cpp`); a 1-D tensor has tile_dim1 = 0 and
//! tensor_dim1 = 0 (what Triton writes for one dimension).
//!
//! Padding: the tile's linear stream in LDS skips `pad amount` dwords after every `pad interval`
//! dwords of data ("TDM writes data as a linear element stream with LDS padding applied every
//! padInterval elements", `TDMUtility.cpp`, which sizes Triton's `padded_shared<[interval:
//! +amount]>` LDS layouts that way). A store (`tensor_store_from_lds`) reads the LDS tile as a
//! dense stream, pad fields or not. Both pinned by corpus/triton matmul_tdesc_f16 (gfx1250,
//! num_warps 1/4/8): its A and B loads are padded (8 and 16 f16 after every 128); its C store's
//! descriptor sets pad enable (4 dwords every 32) over an LDS tile the kernel wrote densely, and
//! the result equals numpy's only if the store skips no LDS.
//!
//! Modelled: 1-D and 2-D tiles of 1, 2, 4, 8-byte elements, loads and stores, pred 0 or 1,
//! padding. Refused (an error naming the field): more than 2 dimensions (tile_dim2, groups 2/3
//! nonzero), gather/scatter, iterate, the
//! atomic barrier, workgroup masks (clusters), other pred or type values, and the bits no
//! source names. EXEC = 0 is refused: whether the instruction then issues is not established.
//!
//! Ordering: like the async loads (crate::async_lds) the copy completes at issue, one of the
//! orders the ISA allows between issue and the `s_wait_tensorcnt` that waits for it.

use crate::dispatch::Group;
use crate::exec::{unsupported, Flow};
use crate::mem_ops::{Location, Memories};
use crate::wave::Wave;
use crate::EmuError;
use hx_isa::tensor::Tensor;
use hx_isa::Instruction;

pub use hx_sem::tensor::*;

/// Copies the tile (load: global to LDS, zeros outside the tensor, padded; store: LDS, read as
/// a dense stream, to the global elements inside the tensor).
pub fn copy_tile(c: &TileCopy, store: bool, mem: &mut Memories<'_>) -> Result<(), EmuError> {
    // A store reads the tile densely whatever the pad fields say (see the module doc).
    let dense;
    let c = if store && c.pad.is_some() {
        dense = TileCopy { pad: None, ..*c };
        &dense
    } else {
        c
    };
    let mut buf = [0u8; 8];
    let data = &mut buf[..c.esize as usize];
    for y in 0..c.rows() {
        for x in 0..c.tile_dim[0] as u64 {
            let (g, l) = c.element(x, y);
            if store {
                if let Some(g) = g {
                    mem.read(0, Location::Lds(l as u64), data, c.esize)?;
                    mem.write(0, Location::Global(g), data, c.esize)?;
                }
            } else {
                match g {
                    Some(g) => mem.read(0, Location::Global(g), data, c.esize)?,
                    None => data.fill(0),
                }
                mem.write(0, Location::Lds(l as u64), data, c.esize)?;
            }
        }
    }
    Ok(())
}

fn group<const N: usize>(wave: &Wave, r: hx_isa::Reg) -> Result<[u32; N], EmuError> {
    let v = wave.read_sgprs(r)?;
    v.try_into().map_err(|_| EmuError::Register(format!("descriptor group {r:?} is not {N} dwords")))
}

/// Executes a tensor instruction (the whole copy, at issue).
pub fn exec_tensor(wave: &mut Wave, wave_index: usize, inst: &Instruction, group_: &mut Group<'_>, t: &Tensor) -> Result<Flow, EmuError> {
    if wave.exec & wave.lane_mask() == 0 {
        return Err(unsupported(inst, "EXEC = 0 (whether the copy issues is not established)"));
    }
    let g2 = t.group2.map(|r| group::<4>(wave, r)).transpose()?;
    let g3 = t.group3.map(|r| group::<4>(wave, r)).transpose()?;
    let desc = parse(group::<4>(wave, t.group0)?, group::<8>(wave, t.group1)?, g2, g3).map_err(|f| unsupported(inst, format!("descriptor field {f}")))?;
    if let Some(c) = desc {
        let mut mem = Memories::of_group(group_, wave_index)?;
        copy_tile(&c, t.store, &mut mem)?;
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::FpMode;
    use crate::{GlobalMemory, LocalMemory};

    /// A descriptor written field by field from the table in the module doc.
    struct Fields {
        pred: u32,
        lds: u32,
        global: u64,
        log2_esize: u32,
        tensor_dim: [u32; 2],
        tile_dim: [u32; 2],
        stride: u32,
    }

    fn groups(f: &Fields) -> ([u32; 4], [u32; 8]) {
        let g0 = [f.pred, f.lds, f.global as u32, (f.global >> 32) as u32 | 2 << 30];
        let mut g1 = [0u32; 8];
        g1[0] = f.log2_esize << 16;
        g1[1] = f.tensor_dim[0] << 16;
        g1[2] = f.tensor_dim[0] >> 16 | f.tensor_dim[1] << 16;
        g1[3] = f.tensor_dim[1] >> 16 | f.tile_dim[0] << 16;
        g1[4] = f.tile_dim[1];
        g1[5] = f.stride;
        (g0, g1)
    }

    /// Runs a load (or store) of the descriptor on a fresh global buffer of `src` bytes and an
    /// LDS pre-filled with 0xee; returns (global buffer, LDS).
    fn run(f: &mut Fields, src: &[u8], lds_init: &[u8], store: bool) -> Result<(Vec<u8>, Vec<u8>), EmuError> {
        let mut global = GlobalMemory::new();
        let base = global.alloc(src.to_vec());
        f.global += base;
        let mut lds = LocalMemory::new("lds", 4096);
        lds.write(0, lds_init, 1).unwrap();
        let mut scratch: Vec<LocalMemory> = Vec::new();
        let (g0, g1) = groups(f);
        let c = parse(g0, g1, None, None).map_err(EmuError::Launch)?;
        let mut mem = Memories { global: &mut global, lds: &mut lds, scratch: &mut scratch, fp_mode: FpMode::default() };
        if let Some(c) = c {
            copy_tile(&c, store, &mut mem)?;
        }
        let mut out = vec![0u8; src.len()];
        global.read(base, &mut out, 1).unwrap();
        let mut l = vec![0u8; 4096];
        lds.read(0, &mut l, 1).unwrap();
        Ok((out, l))
    }

    #[test]
    fn two_d_tile_partly_outside_the_tensor_reads_zero_there() {
        for log2 in 0..4u32 {
            let es = 1usize << log2;
            // A 7 x 10 tensor (rows x cols) of elements whose bytes are distinct; rows 13 apart.
            let (rows, cols, pitch) = (7usize, 10usize, 13usize);
            let src: Vec<u8> = (0..rows * pitch * es).map(|i| (i * 7 + 3) as u8).collect();
            // A 4 x 6 tile at (row 5, col 6): 2 rows and 4 columns inside.
            let (ty, tx, th, tw) = (5usize, 6usize, 4usize, 6usize);
            let mut f = Fields {
                pred: 1,
                lds: 64,
                global: ((ty * pitch + tx) * es) as u64,
                log2_esize: log2,
                tensor_dim: [(cols - tx) as u32, (rows - ty) as u32],
                tile_dim: [tw as u32, th as u32],
                stride: pitch as u32,
            };
            let (_, lds) = run(&mut f, &src, &[0xee; 4096], false).unwrap();
            let mut want = vec![0xeeu8; 4096];
            for r in 0..th {
                for c in 0..tw {
                    let at = 64 + (r * tw + c) * es;
                    let (gr, gc) = (ty + r, tx + c);
                    for b in 0..es {
                        want[at + b] = if gr < rows && gc < cols { src[(gr * pitch + gc) * es + b] } else { 0 };
                    }
                }
            }
            assert_eq!(lds, want, "element size {es}");
        }
    }

    #[test]
    fn one_d_tile_and_pred_zero() {
        let src: Vec<u8> = (0..64u8).collect();
        let mut f = Fields { pred: 1, lds: 8, global: 4, log2_esize: 1, tensor_dim: [5, 0], tile_dim: [8, 0], stride: 0 };
        let (_, lds) = run(&mut f, &src, &[0xee; 4096], false).unwrap();
        let mut want = vec![0xeeu8; 4096];
        want[8..18].copy_from_slice(&src[4..14]);
        want[18..24].fill(0);
        assert_eq!(lds, want);
        f = Fields { pred: 0, lds: 8, global: 4, log2_esize: 1, tensor_dim: [5, 0], tile_dim: [8, 0], stride: 0 };
        let (_, lds) = run(&mut f, &src, &[0xee; 4096], false).unwrap();
        assert_eq!(lds, vec![0xee; 4096], "pred 0 copies nothing");
    }

    #[test]
    fn padding_skips_lds_after_every_interval() {
        // 2-byte elements, a 4 x 16 tile (32 bytes a row); pad interval 8 dwords (field 2),
        // amount 2 dwords (field 1): 8 bytes of LDS skipped after every 32 bytes of data.
        let src: Vec<u8> = (0..=255u8).collect();
        let f = Fields { pred: 1, lds: 16, global: 0, log2_esize: 1, tensor_dim: [16, 4], tile_dim: [16, 4], stride: 16 };
        let (mut g0, mut g1) = groups(&f);
        g1[0] |= 1 << 20 | 2 << 22 | 1 << 25;
        let c = parse(g0, g1, None, None).unwrap().unwrap();
        assert_eq!(c.pad, Some(Pad { interval: 32, amount: 8 }));
        let mut global = GlobalMemory::new();
        let base = global.alloc(src.clone());
        g0[2] = base as u32;
        g0[3] = (base >> 32) as u32 | 2 << 30;
        let c = parse(g0, g1, None, None).unwrap().unwrap();
        let mut lds = LocalMemory::new("lds", 4096);
        lds.write(0, &[0xee; 4096], 1).unwrap();
        let mut scratch: Vec<LocalMemory> = Vec::new();
        let mut mem = Memories { global: &mut global, lds: &mut lds, scratch: &mut scratch, fp_mode: FpMode::default() };
        copy_tile(&c, false, &mut mem).unwrap();
        let mut l = vec![0u8; 4096];
        lds.read(0, &mut l, 1).unwrap();
        let mut want = vec![0xeeu8; 4096];
        for row in 0..4 {
            want[16 + 40 * row..16 + 40 * row + 32].copy_from_slice(&src[32 * row..32 * row + 32]);
        }
        assert_eq!(l, want);
        // A store with the same descriptor reads the LDS tile densely.
        let c = parse(g0, g1, None, None).unwrap().unwrap();
        let mut mem = Memories { global: &mut global, lds: &mut lds, scratch: &mut scratch, fp_mode: FpMode::default() };
        let mut dense: Vec<u8> = (0..128u8).map(|i| i ^ 0x5a).collect();
        mem.lds.write(16, &dense, 1).unwrap();
        copy_tile(&c, true, &mut mem).unwrap();
        let mut out = vec![0u8; 128];
        global.read(base, &mut out, 1).unwrap();
        dense.truncate(128);
        assert_eq!(out, dense);
    }

    #[test]
    fn store_writes_only_inside_the_tensor() {
        let src = vec![0x11u8; 200];
        let lds_init: Vec<u8> = (0..4096).map(|i| (i % 251) as u8).collect();
        // 4-byte elements, tensor of 3 rows x 5 cols left from the origin (offset 8), pitch 9;
        // tile 4 x 4 from LDS 100.
        let mut f = Fields { pred: 1, lds: 100, global: 8, log2_esize: 2, tensor_dim: [3, 2], tile_dim: [4, 4], stride: 9 };
        let (out, _) = run(&mut f, &src, &lds_init, true).unwrap();
        let mut want = src.clone();
        for r in 0..2 {
            for c in 0..3 {
                let g = 8 + (r * 9 + c) * 4;
                let l = 100 + (r * 4 + c) * 4;
                want[g..g + 4].copy_from_slice(&lds_init[l..l + 4]);
            }
        }
        assert_eq!(out, want);
    }

    #[test]
    fn unmodelled_fields_are_refused_by_name() {
        let f = Fields { pred: 1, lds: 0, global: 0, log2_esize: 2, tensor_dim: [4, 4], tile_dim: [4, 4], stride: 4 };
        let (g0, g1) = groups(&f);
        let err = |g0: [u32; 4], g1: [u32; 8], g2: Option<[u32; 4]>| parse(g0, g1, g2, None).unwrap_err();
        assert!(err(g0, { let mut g = g1; g[0] |= 5 << 22; g }, None).contains("without pad enable"));
        assert!(err(g0, { let mut g = g1; g[0] |= 1 << 19; g }, None).contains("iterate"));
        assert!(err(g0, { let mut g = g1; g[0] |= 3; g }, None).contains("multicast"));
        assert!(err(g0, { let mut g = g1; g[0] |= 1 << 18; g }, None).contains("atomic barrier"));
        assert!(err(g0, { let mut g = g1; g[4] |= 2 << 16; g }, None).contains("more than 2 dimensions"));
        assert!(err(g0, g1, Some([1, 0, 0, 0])).contains("more than 2 dimensions"));
        assert!(err({ let mut g = g0; g[0] |= 1 << 31; g }, g1, None).contains("gather"));
        assert!(err({ let mut g = g0; g[3] &= !(3 << 30); g }, g1, None).contains("type"));
        assert!(err({ let mut g = g0; g[0] = 2; g }, g1, None).contains("pred"));
        assert!(parse(g0, g1, Some([0; 4]), Some([0; 4])).unwrap().is_some(), "zero groups 2/3: still 2-D");
    }
}
