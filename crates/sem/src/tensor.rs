//! gfx1250 Tensor Data Mover descriptors: which descriptor fields a `tensor_load_to_lds` /
//! `tensor_store_from_lds` uses, and the tile copy they describe ([`parse`]), with every field
//! that is not modelled refused by name. The emulator's `tensor` performs the copy; the raiser
//! emits it.

/// A tile transfer the emulator models: 1-D (`tile_dim[1] == 0`) or 2-D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileCopy {
    pub lds: u32,
    pub global: u64,
    /// Element size in bytes: 1, 2, 4 or 8.
    pub esize: u64,
    pub tensor_dim: [u64; 2],
    pub tile_dim: [u32; 2],
    /// Elements between consecutive rows (dim 1) in global memory.
    pub stride1: u64,
    /// LDS padding (pad enable): after every `interval` bytes of the tile's linear stream,
    /// `amount` bytes of LDS are skipped.
    pub pad: Option<Pad>,
}

/// The LDS padding of a tile copy, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pad {
    pub interval: u64,
    pub amount: u64,
}

impl TileCopy {
    /// Rows of the tile (a 1-D tile has one).
    pub fn rows(&self) -> u64 {
        self.tile_dim[1].max(1) as u64
    }
    /// Element (x, y) of the tile: its global address if it lies inside the tensor, and its LDS
    /// address.
    pub fn element(&self, x: u64, y: u64) -> (Option<u64>, u32) {
        let inside = x < self.tensor_dim[0] && (self.tile_dim[1] == 0 || y < self.tensor_dim[1]);
        let g = self.global.wrapping_add((y * self.stride1 + x) * self.esize);
        let at = (y * self.tile_dim[0] as u64 + x) * self.esize;
        let padded = match self.pad {
            Some(p) => at + at / p.interval * p.amount,
            None => at,
        };
        let l = self.lds.wrapping_add(padded as u32);
        (inside.then_some(g), l)
    }
}

fn bits(v: u32, lo: u32, n: u32) -> u32 {
    (v >> lo) & ((1u64 << n) - 1) as u32
}

/// Reads the descriptor. `Ok(None)`: pred is 0, the instruction does nothing. `Err(field)`:
/// a field (named) holds something this model does not handle.
pub fn parse(g0: [u32; 4], g1: [u32; 8], g2: Option<[u32; 4]>, g3: Option<[u32; 4]>) -> Result<Option<TileCopy>, String> {
    let refuse = |what: &str| Err(what.to_string());
    if g0[0] >> 31 != 0 {
        return refuse("gather/scatter mode (group 0 bit 31)");
    }
    if bits(g0[0], 30, 1) != 0 {
        return refuse("gather/scatter index size (group 0 bit 30)");
    }
    if bits(g0[0], 2, 28) != 0 {
        return refuse("group 0 bits 29:2 (no source names them)");
    }
    if g0[3] >> 30 != 2 {
        return refuse(&format!("descriptor type {} (group 0 bits 127:126; 2 is the one known)", g0[3] >> 30));
    }
    if bits(g0[3], 25, 5) != 0 {
        return refuse("group 0 bits 125:121 (no source names them)");
    }
    if bits(g1[0], 0, 16) != 0 {
        return refuse("workgroup multicast mask (group 1 bits 15:0)");
    }
    if bits(g1[0], 18, 1) != 0 {
        return refuse("atomic barrier enable (group 1 bit 18)");
    }
    if bits(g1[0], 19, 1) != 0 {
        return refuse("iterate enable (group 1 bit 19)");
    }
    if bits(g1[0], 21, 1) != 0 {
        return refuse("group 1 bit 21 (no source names it)");
    }
    let pad_enable = bits(g1[0], 20, 1) != 0;
    if !pad_enable && bits(g1[0], 22, 10) != 0 {
        return refuse("pad interval and amount without pad enable (group 1 bits 31:22)");
    }
    // Pad interval: log2(interval in dwords) - 1; pad amount: dwords - 1.
    let pad = pad_enable.then(|| Pad { interval: 4 << (bits(g1[0], 22, 3) + 1), amount: 4 * (bits(g1[0], 25, 7) as u64 + 1) });
    if bits(g1[1], 0, 16) != 0 {
        return refuse("atomic barrier address (group 1 bits 47:32)");
    }
    if bits(g1[4], 16, 16) != 0 || g2.is_some_and(|g| g != [0; 4]) || g3.is_some_and(|g| g != [0; 4]) {
        return refuse("more than 2 dimensions (tile_dim2, groups 2 and 3)");
    }
    if g1[6] >> 16 != 0 || g1[7] != 0 {
        return refuse("tensor_dim1_stride (group 1 bits 255:208), a 3-D stride");
    }
    let esize = 1u64 << bits(g1[0], 16, 2);
    let tensor_dim = [(g1[1] >> 16 | g1[2] << 16) as u64, (g1[2] >> 16 | g1[3] << 16) as u64];
    let tile_dim = [g1[3] >> 16, g1[4] & 0xffff];
    let stride1 = g1[5] as u64 | ((g1[6] & 0xffff) as u64) << 32;
    if tile_dim[0] == 0 {
        return refuse("tile_dim0 = 0");
    }
    if tile_dim[1] == 0 && (tensor_dim[1] != 0 || stride1 != 0) {
        return refuse("tile_dim1 = 0 (1-D) with a nonzero tensor_dim1 or stride");
    }
    let copy = TileCopy {
        lds: g0[1],
        global: g0[2] as u64 | ((g0[3] & 0x1ff_ffff) as u64) << 32,
        esize,
        tensor_dim,
        tile_dim,
        stride1,
        pad,
    };
    match g0[0] & 3 {
        0 => Ok(None),
        1 => Ok(Some(copy)),
        p => refuse(&format!("pred = {p} (group 0 bits 1:0; 0 and 1 are the known values)")),
    }
}
