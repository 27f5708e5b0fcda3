//! Clang offload bundles: the container `clang-offload-bundler` puts around per-target code
//! objects (HIP fat binaries: `.hipfb`/`.co` files and `.hip_fatbin` sections).
//!
//! Format facts, from llvm-project `clang/lib/Driver/OffloadBundler.cpp` and
//! `clang/include/clang/Driver/OffloadBundler.h`; all integers little-endian:
//!
//! - Plain (`BinaryFileHandler`): `__CLANG_OFFLOAD_BUNDLE__`, u64 entry count, then per entry
//!   u64 offset, u64 size, u64 id length, id bytes; entry data follows the table. Offsets count
//!   from the start of the bundle. The writer rounds every entry's offset (empty ones too) up to
//!   `-bundle-align` (default 1); the HIP driver and the linker wrapper pass 4096, so a HIP fat
//!   binary's empty host entry and first code object both sit at 4096.
//! - Compressed (`CompressedOffloadBundle`): `CCOB`, u16 version, u16 method (the index of
//!   `llvm::compression::Format`: 0 zlib, 1 zstd), then v1: u32 uncompressed size; v2: u32 total
//!   size, u32 uncompressed size; v3: u64 total size, u64 uncompressed size; then u64 hash and the
//!   compressed plain bundle. "Total" is the whole blob, header included. The hash is
//!   `MD5(uncompressed).low()`, i.e. the first 8 digest bytes read as a little-endian u64 (clang
//!   checks it only in verbose mode; we always do).
//! - A `.hip_fatbin` section of a program linked from several translation units holds one bundle
//!   per unit, concatenated with zero padding from section alignment; llvm's `OffloadBundle.cpp`
//!   walks them. The total size field is what delimits a CCOB: its magic can occur inside the
//!   payload (llvm/test/tools/llvm-objdump/Offloading/fatbin-magic-collision.test). A v1 CCOB
//!   has no total size, so it ends where its zlib stream or zstd frames do.
//!
//! Error offsets are byte offsets into the input, except inside [`BundleError::Payload`], whose
//! source counts from the start of the decompressed plain bundle.

use std::collections::HashSet;
use std::io::{Read, Write};

/// Magic of a plain bundle.
pub const PLAIN_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed bundle.
pub const CCOB_MAGIC: &[u8; 4] = b"CCOB";
/// Alignment [`Bundle::write`] gives entry data: what clang uses for HIP (`-bundle-align=4096`).
pub const BUNDLE_ALIGN: usize = 4096;
/// Largest uncompressed size a CCOB may claim; anything bigger is refused before decompressing.
pub const MAX_UNCOMPRESSED_SIZE: u64 = 1 << 30;

const PLAIN_HEADER_LEN: usize = PLAIN_MAGIC.len() + 8;
/// Offset, size and id length of one entry record.
const RECORD_FIXED_LEN: usize = 24;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error("no offload bundle magic (__CLANG_OFFLOAD_BUNDLE__ or CCOB) at offset {offset}")]
    NotABundle { offset: usize },
    #[error("truncated {what} at offset {offset}: needs {need} bytes, {have} left")]
    Truncated {
        what: &'static str,
        offset: usize,
        need: u64,
        have: usize,
    },
    #[error("entry table out of bounds: count at offset {offset} claims {count} entries, only {have} bytes follow")]
    EntryTableOutOfBounds {
        offset: usize,
        count: u64,
        have: usize,
    },
    #[error("entry {index} (record at offset {offset}): data {data_offset}+{size} is outside the {len}-byte bundle")]
    EntryOutOfBounds {
        index: usize,
        offset: usize,
        data_offset: u64,
        size: u64,
        len: usize,
    },
    #[error("entry {index} (record at offset {offset}): data at {data_offset} overlaps the header, which ends at {header_end}")]
    EntryOverlapsHeader {
        index: usize,
        offset: usize,
        data_offset: u64,
        header_end: usize,
    },
    #[error("entry {index} (record at offset {offset}): data overlaps that of entry {other}")]
    EntriesOverlap {
        index: usize,
        other: usize,
        offset: usize,
    },
    #[error("entry {index}: id at offset {offset} is not UTF-8")]
    IdNotUtf8 { index: usize, offset: usize },
    #[error("entry {index}: id {id:?} at offset {offset} repeats an earlier entry's")]
    DuplicateId {
        index: usize,
        offset: usize,
        id: String,
    },
    #[error("unknown CCOB version {version} at offset {offset}")]
    UnknownVersion { version: u16, offset: usize },
    #[error("unknown CCOB compression method {method} at offset {offset}")]
    UnknownCompression { method: u16, offset: usize },
    #[error("{method:?} decompression of the payload at offset {offset} failed: {message}")]
    Decompress {
        method: Compression,
        offset: usize,
        message: String,
    },
    /// `actual` is `claimed + 1` when a payload decompresses to more than claimed: reading stops there.
    #[error("{what} at offset {offset} says {claimed}, found {actual}")]
    SizeMismatch {
        what: &'static str,
        offset: usize,
        claimed: u64,
        actual: u64,
    },
    #[error("size {size} at offset {offset} exceeds the {limit}-byte limit")]
    TooLarge {
        offset: usize,
        size: u64,
        limit: u64,
    },
    #[error("CCOB hash at offset {offset} is {stored:#018x}, the payload's is {computed:#018x}")]
    HashMismatch {
        offset: usize,
        stored: u64,
        computed: u64,
    },
    #[error("non-zero bytes at offset {offset} after the bundle (Bundle::parse_all reads concatenated bundles)")]
    TrailingData { offset: usize },
    #[error("in the compressed bundle at offset {offset} (inner offsets count from its decompressed start): {source}")]
    Payload {
        offset: usize,
        source: Box<BundleError>,
    },
    #[error("no entry with id {id:?}")]
    NoSuchEntry { id: String },
    #[error("CCOB version {version} cannot record a size of {size} bytes")]
    TooLargeForVersion { version: u16, size: u64 },
    #[error("{method:?} compression failed: {message}")]
    Compress {
        method: Compression,
        message: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    Zlib,
    Zstd,
}

impl Compression {
    // On disk: the enumerator's index in llvm::compression::Format { Zlib, Zstd }.
    fn from_raw(raw: u16) -> Option<Self> {
        match raw {
            0 => Some(Self::Zlib),
            1 => Some(Self::Zstd),
            _ => None,
        }
    }

    fn raw(self) -> u16 {
        match self {
            Self::Zlib => 0,
            Self::Zstd => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BundleFormat {
    Plain,
    /// `version` is 1, 2 or 3 (clang writes 2 or 3).
    Compressed {
        version: u16,
        method: Compression,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntry {
    /// E.g. `hipv4-amdgcn-amd-amdhsa--gfx1250`, `host-x86_64-unknown-linux-gnu-`.
    pub id: String,
    pub data: Vec<u8>,
}

impl BundleEntry {
    pub fn parsed_id(&self) -> BundleId {
        parse_id(&self.id)
    }

    pub fn is_host(&self) -> bool {
        self.parsed_id().is_host()
    }
}

/// An entry id, `<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]`, taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BundleId {
    /// `hip`, `hipv4`, `host`, `openmp`, ...
    pub kind: String,
    /// The triple, without the trailing `-` of an empty environment: `amdgcn-amd-amdhsa`.
    pub triple: String,
    /// Processor and features, e.g. `gfx1250` or `gfx90a:xnack+`; empty if none.
    pub target_id: String,
}

impl BundleId {
    pub fn is_host(&self) -> bool {
        self.kind == "host"
    }

    /// The processor part of the target id (`gfx90a` for `gfx90a:xnack+`).
    pub fn processor(&self) -> &str {
        self.target_id.split(':').next().unwrap_or_default()
    }
}

/// Splits an entry id as clang's `OffloadTargetInfo` does: the kind, four triple components
/// (possibly empty), and everything after the fourth as the target id.
pub fn parse_id(id: &str) -> BundleId {
    let (kind, rest) = id.split_once('-').unwrap_or((id, ""));
    let (triple, target_id) = match rest.match_indices('-').nth(3) {
        Some((i, _)) => (&rest[..i], &rest[i + 1..]),
        // Old HIP ids have a three-part triple, `hip-amdgcn-amd-amdhsa-gfx906`: no
        // environment starts with "gfx", so such a component is the processor.
        None => match rest.rsplit_once('-') {
            Some((t, last)) if rest.matches('-').count() == 3 && last.starts_with("gfx") => {
                (t, last)
            }
            _ => (rest, ""),
        },
    };
    BundleId {
        kind: kind.to_string(),
        triple: triple.strip_suffix('-').unwrap_or(triple).to_string(),
        target_id: target_id.to_string(),
    }
}

/// Whether `bytes` starts with a plain or compressed bundle magic.
pub fn is_bundle(bytes: &[u8]) -> bool {
    bytes.starts_with(PLAIN_MAGIC) || bytes.starts_with(CCOB_MAGIC)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub format: BundleFormat,
    pub entries: Vec<BundleEntry>,
}

impl Bundle {
    /// Parses one bundle starting at byte 0. Zero bytes may follow it (section padding); other
    /// bytes are an error, so a second concatenated bundle is never silently dropped.
    pub fn parse(bytes: &[u8]) -> Result<Bundle, BundleError> {
        let (bundle, end) = parse_at(bytes, 0)?;
        check_zero_tail(bytes, end)?;
        Ok(bundle)
    }

    /// Parses concatenated bundles, as in a `.hip_fatbin` section, skipping zero padding between
    /// them. Returns each bundle with its start offset; all-zero or empty input gives none.
    pub fn parse_all(bytes: &[u8]) -> Result<Vec<(usize, Bundle)>, BundleError> {
        let mut bundles = Vec::new();
        let mut pos = 0;
        while let Some(skip) = bytes
            .get(pos..)
            .and_then(|rest| rest.iter().position(|&b| b != 0))
        {
            let start = pos + skip;
            let (bundle, end) = parse_at(bytes, start)?;
            bundles.push((start, bundle));
            pos = end; // > start: every bundle has a non-empty header
        }
        Ok(bundles)
    }

    /// Serializes in `self.format`. Plain layout is clang's with `-bundle-align=4096`, so a plain
    /// bundle written by clang for HIP (or by this function) comes back byte for byte. Compressed
    /// output round-trips through [`Bundle::parse`] but need not match clang's bytes.
    pub fn write(&self) -> Result<Vec<u8>, BundleError> {
        let plain = write_plain(&self.entries, BUNDLE_ALIGN);
        match self.format {
            BundleFormat::Plain => Ok(plain),
            BundleFormat::Compressed { version, method } => {
                write_compressed(&plain, version, method)
            }
        }
    }

    pub fn entry(&self, id: &str) -> Option<&BundleEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Replaces the data of entry `id`, returning the old data.
    pub fn replace(&mut self, id: &str, data: Vec<u8>) -> Result<Vec<u8>, BundleError> {
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.id == id)
            .ok_or_else(|| BundleError::NoSuchEntry { id: id.to_string() })?;
        Ok(std::mem::replace(&mut entry.data, data))
    }

    /// Entries whose kind is not `host`, in file order.
    pub fn device_entries(&self) -> impl Iterator<Item = &BundleEntry> + '_ {
        self.entries.iter().filter(|e| !e.is_host())
    }
}

/// Bounds-checked little-endian reader; `pos` is absolute in `bytes`.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], BundleError> {
        let have = self.left();
        match usize::try_from(n) {
            Ok(n) if n <= have => {
                let s = &self.bytes[self.pos..self.pos + n];
                self.pos += n;
                Ok(s)
            }
            _ => Err(BundleError::Truncated {
                what,
                offset: self.pos,
                need: n,
                have,
            }),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], BundleError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N as u64, what)?);
        Ok(a)
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, BundleError> {
        self.array(what).map(u16::from_le_bytes)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, BundleError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, BundleError> {
        self.array(what).map(u64::from_le_bytes)
    }
}

/// Parses the bundle at `base`, returning it and the offset just past it.
fn parse_at(bytes: &[u8], base: usize) -> Result<(Bundle, usize), BundleError> {
    let rest = bytes.get(base..).unwrap_or_default();
    if rest.starts_with(PLAIN_MAGIC) {
        let (entries, end) = parse_plain(bytes, base)?;
        Ok((
            Bundle {
                format: BundleFormat::Plain,
                entries,
            },
            end,
        ))
    } else if rest.starts_with(CCOB_MAGIC) {
        parse_compressed(bytes, base)
    } else {
        Err(BundleError::NotABundle { offset: base })
    }
}

fn check_zero_tail(bytes: &[u8], end: usize) -> Result<(), BundleError> {
    match bytes
        .get(end..)
        .and_then(|tail| tail.iter().position(|&b| b != 0))
    {
        Some(i) => Err(BundleError::TrailingData { offset: end + i }),
        None => Ok(()),
    }
}

/// Parses a plain bundle whose magic is at `base`; returns its entries and end offset (the end
/// of the furthest entry, or of the header).
fn parse_plain(bytes: &[u8], base: usize) -> Result<(Vec<BundleEntry>, usize), BundleError> {
    struct Record<'a> {
        at: usize,
        offset: u64,
        size: u64,
        id: &'a str,
    }

    let mut r = Reader {
        bytes,
        pos: base + PLAIN_MAGIC.len(),
    };
    let count_at = r.pos;
    let count = r.u64("entry count")?;
    // Refuse a forged count before looping on it: every record takes at least 24 bytes.
    if count > (r.left() / RECORD_FIXED_LEN) as u64 {
        return Err(BundleError::EntryTableOutOfBounds {
            offset: count_at,
            count,
            have: r.left(),
        });
    }
    let mut records = Vec::new();
    for index in 0..count as usize {
        let at = r.pos;
        let offset = r.u64("entry offset")?;
        let size = r.u64("entry size")?;
        let id_len = r.u64("entry id length")?;
        let id_at = r.pos;
        let id = std::str::from_utf8(r.take(id_len, "entry id")?).map_err(|_| {
            BundleError::IdNotUtf8 {
                index,
                offset: id_at,
            }
        })?;
        records.push(Record {
            at,
            offset,
            size,
            id,
        });
    }

    let header_end = r.pos - base;
    let len = bytes.len() - base;
    let mut end = header_end;
    let mut ids = HashSet::new();
    for (index, rec) in records.iter().enumerate() {
        let stop = rec
            .offset
            .checked_add(rec.size)
            .and_then(|stop| usize::try_from(stop).ok())
            .filter(|&stop| stop <= len)
            .ok_or(BundleError::EntryOutOfBounds {
                index,
                offset: rec.at,
                data_offset: rec.offset,
                size: rec.size,
                len,
            })?;
        // Empty entries (the HIP host entry) carry no bytes, so where they point is harmless.
        if rec.size > 0 && rec.offset < header_end as u64 {
            return Err(BundleError::EntryOverlapsHeader {
                index,
                offset: rec.at,
                data_offset: rec.offset,
                header_end,
            });
        }
        if !ids.insert(rec.id) {
            return Err(BundleError::DuplicateId {
                index,
                offset: rec.at,
                id: rec.id.to_string(),
            });
        }
        end = end.max(stop);
    }

    // Non-empty entries must be disjoint: clang never shares bytes between entries, write()
    // could not reproduce it, and it bounds what we copy by the input size.
    let mut order: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (records[i].offset, i));
    for pair in order.windows(2) {
        let (prev, next) = (&records[pair[0]], &records[pair[1]]);
        if prev.offset + prev.size > next.offset {
            return Err(BundleError::EntriesOverlap {
                index: pair[1],
                other: pair[0],
                offset: next.at,
            });
        }
    }

    let entries = records
        .iter()
        .map(|rec| {
            // In bounds: checked above.
            let start = base + rec.offset as usize;
            BundleEntry {
                id: rec.id.to_string(),
                data: bytes[start..start + rec.size as usize].to_vec(),
            }
        })
        .collect();
    Ok((entries, base + end))
}

/// Parses a CCOB whose magic is at `base`; returns the bundle and the offset just past the blob.
fn parse_compressed(bytes: &[u8], base: usize) -> Result<(Bundle, usize), BundleError> {
    let mut r = Reader {
        bytes,
        pos: base + CCOB_MAGIC.len(),
    };
    let version = r.u16("CCOB version")?;
    if !(1..=3).contains(&version) {
        return Err(BundleError::UnknownVersion {
            version,
            offset: base + 4,
        });
    }
    let raw_method = r.u16("CCOB compression method")?;
    let method = Compression::from_raw(raw_method).ok_or(BundleError::UnknownCompression {
        method: raw_method,
        offset: base + 6,
    })?;
    let total_at = r.pos;
    let total = match version {
        1 => None,
        2 => Some(u64::from(r.u32("CCOB total size")?)),
        _ => Some(r.u64("CCOB total size")?),
    };
    let size_at = r.pos;
    let claimed = match version {
        3 => r.u64("CCOB uncompressed size")?,
        _ => u64::from(r.u32("CCOB uncompressed size")?),
    };
    let hash_at = r.pos;
    let stored = r.u64("CCOB hash")?;
    let payload_at = r.pos;

    // v1 records no total size: the compressed stream's own end is the blob's (clang instead
    // scans for the next magic, which can occur inside a payload).
    let region_end = match total {
        Some(total) => {
            let have = bytes.len() - base;
            match usize::try_from(total) {
                Ok(t) if t >= payload_at - base && t <= have => base + t,
                _ => {
                    return Err(BundleError::SizeMismatch {
                        what: "CCOB total size",
                        offset: total_at,
                        claimed: total,
                        actual: have as u64,
                    })
                }
            }
        }
        None => bytes.len(),
    };
    if claimed > MAX_UNCOMPRESSED_SIZE {
        return Err(BundleError::TooLarge {
            offset: size_at,
            size: claimed,
            limit: MAX_UNCOMPRESSED_SIZE,
        });
    }
    let (plain, used) =
        decompress(method, &bytes[payload_at..region_end], claimed).map_err(|message| {
            BundleError::Decompress {
                method,
                offset: payload_at,
                message,
            }
        })?;
    if plain.len() as u64 != claimed {
        return Err(BundleError::SizeMismatch {
            what: "CCOB uncompressed size",
            offset: size_at,
            claimed,
            actual: plain.len() as u64,
        });
    }
    let computed = md5_low(&plain);
    if computed != stored {
        return Err(BundleError::HashMismatch {
            offset: hash_at,
            stored,
            computed,
        });
    }
    let entries = parse_payload(&plain).map_err(|e| BundleError::Payload {
        offset: base,
        source: Box::new(e),
    })?;
    let end = if total.is_some() {
        region_end
    } else {
        payload_at + used
    };
    Ok((
        Bundle {
            format: BundleFormat::Compressed { version, method },
            entries,
        },
        end,
    ))
}

/// The decompressed payload must be exactly one plain bundle (no nested CCOB).
fn parse_payload(plain: &[u8]) -> Result<Vec<BundleEntry>, BundleError> {
    if !plain.starts_with(PLAIN_MAGIC) {
        return Err(BundleError::NotABundle { offset: 0 });
    }
    let (entries, end) = parse_plain(plain, 0)?;
    check_zero_tail(plain, end)?;
    Ok(entries)
}

/// Decompresses the stream at the start of `data`, returning it and the compressed bytes it
/// took; what follows the stream is left alone. Stops one byte past `claimed`, which is enough
/// to notice an overlong payload without letting a small input expand without bound.
fn decompress(method: Compression, data: &[u8], claimed: u64) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::new();
    let limit = claimed + 1;
    let used = match method {
        Compression::Zlib => {
            let mut dec = flate2::read::ZlibDecoder::new(data);
            (&mut dec)
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| e.to_string())?;
            usize::try_from(dec.total_in()).map_err(|e| e.to_string())?
        }
        Compression::Zstd => {
            // The stream is a run of frames (the skippable frames of the collision test too).
            let mut used = 0;
            while let Some(rest) = data.get(used..).filter(|rest| is_zstd_frame(rest)) {
                let n = zstd::zstd_safe::find_frame_compressed_size(rest)
                    .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
                used += n.clamp(1, rest.len());
            }
            if used == 0 {
                return Err("no zstd frame".into());
            }
            // The default window limit (2^27) is what clang's zstd long-distance mode uses.
            zstd::stream::read::Decoder::with_buffer(&data[..used])
                .and_then(|d| d.take(limit).read_to_end(&mut out))
                .map_err(|e| e.to_string())?;
            used
        }
    };
    Ok((out, used))
}

fn is_zstd_frame(bytes: &[u8]) -> bool {
    match bytes.get(..4) {
        Some(&[a, b, c, d]) => {
            let magic = u32::from_le_bytes([a, b, c, d]);
            magic == 0xFD2F_B528 || magic & !0xF == 0x184D_2A50
        }
        _ => false,
    }
}

fn compress(method: Compression, data: &[u8]) -> Result<Vec<u8>, BundleError> {
    let result = match method {
        // clang's levels: zlib's default (6), zstd 3.
        Compression::Zlib => {
            let mut enc =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(data).and_then(|()| enc.finish())
        }
        Compression::Zstd => zstd::bulk::compress(data, 3),
    };
    result.map_err(|e| BundleError::Compress {
        method,
        message: e.to_string(),
    })
}

/// clang's plain layout: header, then each entry at its offset rounded up to `align`.
fn write_plain(entries: &[BundleEntry], align: usize) -> Vec<u8> {
    let header_len = PLAIN_HEADER_LEN
        + entries
            .iter()
            .map(|e| RECORD_FIXED_LEN + e.id.len())
            .sum::<usize>();
    let mut offsets = Vec::with_capacity(entries.len());
    let mut pos = header_len;
    for e in entries {
        let at = pos.next_multiple_of(align);
        offsets.push(at);
        pos = at + e.data.len();
    }

    let mut out = Vec::with_capacity(pos);
    out.extend_from_slice(PLAIN_MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (e, &at) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&(at as u64).to_le_bytes());
        out.extend_from_slice(&(e.data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(e.id.len() as u64).to_le_bytes());
        out.extend_from_slice(e.id.as_bytes());
    }
    for (e, &at) in entries.iter().zip(&offsets) {
        out.resize(at, 0);
        out.extend_from_slice(&e.data);
    }
    out
}

fn write_compressed(
    plain: &[u8],
    version: u16,
    method: Compression,
) -> Result<Vec<u8>, BundleError> {
    let header_len = match version {
        1 => 20,
        2 => 24,
        3 => 32,
        _ => return Err(BundleError::UnknownVersion { version, offset: 4 }),
    };
    let payload = compress(method, plain)?;
    let total = (header_len + payload.len()) as u64;
    let size = plain.len() as u64;
    let narrow =
        |v: u64| u32::try_from(v).map_err(|_| BundleError::TooLargeForVersion { version, size: v });

    let mut out = Vec::with_capacity(header_len + payload.len());
    out.extend_from_slice(CCOB_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&method.raw().to_le_bytes());
    match version {
        1 => out.extend_from_slice(&narrow(size)?.to_le_bytes()),
        2 => {
            out.extend_from_slice(&narrow(total)?.to_le_bytes());
            out.extend_from_slice(&narrow(size)?.to_le_bytes());
        }
        _ => {
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
        }
    }
    out.extend_from_slice(&md5_low(plain).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// `llvm::MD5::MD5Result::low()`: the first 8 digest bytes as a little-endian u64.
fn md5_low(data: &[u8]) -> u64 {
    let d = md5(data);
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// MD5 (RFC 1321). Only the CCOB check needs it, too little to justify a dependency.
fn md5(data: &[u8]) -> [u8; 16] {
    const SHIFT: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    const K: [u32; 64] = [
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391,
    ];
    let blocks = data.chunks_exact(64);
    let mut tail = blocks.remainder().to_vec();
    tail.push(0x80);
    while tail.len() % 64 != 56 {
        tail.push(0);
    }
    tail.extend_from_slice(&(data.len() as u64).wrapping_mul(8).to_le_bytes());

    let mut state: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
    for block in blocks.chain(tail.chunks_exact(64)) {
        let mut m = [0u32; 16];
        for (w, b) in m.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(K[i]).wrapping_add(m[g]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(f.rotate_left(SHIFT[i / 16 * 4 + i % 4]));
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    let mut digest = [0; 16];
    for (out, s) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&s.to_le_bytes());
    }
    digest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        let s: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        s.chunks(2)
            .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
            .collect()
    }

    fn entry(id: &str, data: &[u8]) -> BundleEntry {
        BundleEntry {
            id: id.to_string(),
            data: data.to_vec(),
        }
    }

    /// A HIP-style bundle: empty host entry and two code objects.
    fn sample(format: BundleFormat) -> Bundle {
        let mut co1 = b"\x7fELF".to_vec();
        co1.extend((0..296u32).map(|i| (i * 7) as u8));
        Bundle {
            format,
            entries: vec![
                entry("host-x86_64-unknown-linux-gnu-", b""),
                entry("hipv4-amdgcn-amd-amdhsa--gfx1250", &co1),
                entry("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", &[0x5a; 100]),
            ],
        }
    }

    /// A plain bundle from hand-written records, data bytes 0xAB up to `len`.
    fn raw_plain(records: &[(u64, u64, &[u8])], len: usize) -> Vec<u8> {
        let mut out = PLAIN_MAGIC.to_vec();
        out.extend((records.len() as u64).to_le_bytes());
        for (offset, size, id) in records {
            out.extend(offset.to_le_bytes());
            out.extend(size.to_le_bytes());
            out.extend((id.len() as u64).to_le_bytes());
            out.extend(*id);
        }
        let header = out.len();
        out.resize(len.max(header), 0xab);
        out
    }

    /// A CCOB with the given fields; the total size is the real one.
    fn raw_ccob(version: u16, method: u16, claimed: u64, hash: u64, payload: &[u8]) -> Vec<u8> {
        let header = [0, 20, 24, 32][version as usize];
        let total = (header + payload.len()) as u64;
        let mut out = CCOB_MAGIC.to_vec();
        out.extend(version.to_le_bytes());
        out.extend(method.to_le_bytes());
        match version {
            1 => out.extend((claimed as u32).to_le_bytes()),
            2 => {
                out.extend((total as u32).to_le_bytes());
                out.extend((claimed as u32).to_le_bytes());
            }
            _ => {
                out.extend(total.to_le_bytes());
                out.extend(claimed.to_le_bytes());
            }
        }
        out.extend(hash.to_le_bytes());
        out.extend(payload);
        out
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        compress(Compression::Zlib, data).unwrap()
    }

    #[test]
    fn md5_matches_reference_digests() {
        // RFC 1321 test suite, plus lengths around the padding boundary (digests from Python's hashlib).
        let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
        for (n, want) in [
            (55, "52c0e574e1198de5fe3f8f11440dcb1b"),
            (56, "46c9907fc908ee68b1e7b8e71286a518"),
            (63, "a62f6d59e837867693f042f5b8f5a236"),
            (64, "7160b8fb5e9e4023d549c3971fbaeead"),
            (1000, "10046f077f2082ac19676b8079f1cb1a"),
        ] {
            let data: Vec<u8> = (0..n).map(|i| ((i * 7 + 3) % 256) as u8).collect();
            assert_eq!(hex(md5(&data)), want, "length {n}");
        }
    }

    #[test]
    fn parse_id_splits_kind_triple_target() {
        let id = |kind: &str, triple: &str, target_id: &str| BundleId {
            kind: kind.into(),
            triple: triple.into(),
            target_id: target_id.into(),
        };
        assert_eq!(
            parse_id("hipv4-amdgcn-amd-amdhsa--gfx1250"),
            id("hipv4", "amdgcn-amd-amdhsa", "gfx1250")
        );
        assert_eq!(
            parse_id("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"),
            id("hipv4", "amdgcn-amd-amdhsa", "gfx90a:sramecc+:xnack-")
        );
        assert_eq!(
            parse_id("host-x86_64-unknown-linux-gnu-"),
            id("host", "x86_64-unknown-linux-gnu", "")
        );
        assert_eq!(
            parse_id("host-x86_64-unknown-linux-gnu"),
            id("host", "x86_64-unknown-linux-gnu", "")
        );
        assert_eq!(
            parse_id("host-x86_64-unknown-linux--"),
            id("host", "x86_64-unknown-linux", "")
        );
        assert_eq!(
            parse_id("host-x86_64-unknown-linux"),
            id("host", "x86_64-unknown-linux", "")
        );
        assert_eq!(
            parse_id("hip-amdgcn-amd-amdhsa-gfx906"),
            id("hip", "amdgcn-amd-amdhsa", "gfx906")
        );
        assert_eq!(
            parse_id("openmp-amdgcn-amd-amdhsa--gfx942"),
            id("openmp", "amdgcn-amd-amdhsa", "gfx942")
        );
        assert_eq!(parse_id("weird"), id("weird", "", ""));
        assert_eq!(
            parse_id("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+").processor(),
            "gfx90a"
        );
        assert!(parse_id("host-x86_64-unknown-linux-gnu-").is_host());
    }

    #[test]
    fn plain_round_trip_is_byte_exact_and_4096_aligned() {
        let bundle = sample(BundleFormat::Plain);
        let bytes = bundle.write().unwrap();
        assert!(is_bundle(&bytes));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        // Records: host (offset, size) at 32, 40; gfx1250 at 86, 94; gfx90a at 142, 150.
        assert_eq!(u64_at(24), 3);
        assert_eq!((u64_at(32), u64_at(40)), (4096, 0));
        assert_eq!((u64_at(86), u64_at(94)), (4096, 300));
        assert_eq!((u64_at(142), u64_at(150)), (8192, 100));
        assert_eq!(bytes.len(), 8192 + 100);

        let parsed = Bundle::parse(&bytes).unwrap();
        assert_eq!(parsed, bundle);
        assert_eq!(parsed.write().unwrap(), bytes);
    }

    #[test]
    fn compressed_round_trips() {
        for version in 1..=3 {
            for method in [Compression::Zlib, Compression::Zstd] {
                let format = BundleFormat::Compressed { version, method };
                let bundle = sample(format);
                let bytes = bundle.write().unwrap();
                assert!(bytes.starts_with(CCOB_MAGIC) && is_bundle(&bytes));
                assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), version);
                assert_eq!(u16::from_le_bytes([bytes[6], bytes[7]]), method.raw());
                assert_eq!(Bundle::parse(&bytes).unwrap(), bundle, "{format:?}");
            }
        }
        // The two the brief names, and that the total size field is the blob's length.
        let v2 = sample(BundleFormat::Compressed {
            version: 2,
            method: Compression::Zlib,
        })
        .write()
        .unwrap();
        assert_eq!(
            u32::from_le_bytes(v2[8..12].try_into().unwrap()) as usize,
            v2.len()
        );
        let v3 = sample(BundleFormat::Compressed {
            version: 3,
            method: Compression::Zstd,
        })
        .write()
        .unwrap();
        assert_eq!(
            u64::from_le_bytes(v3[8..16].try_into().unwrap()) as usize,
            v3.len()
        );
    }

    #[test]
    fn accessors() {
        let mut bundle = sample(BundleFormat::Plain);
        let ids: Vec<&str> = bundle.device_entries().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "hipv4-amdgcn-amd-amdhsa--gfx1250",
                "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
            ]
        );
        assert_eq!(
            bundle
                .entry("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+")
                .unwrap()
                .data,
            [0x5a; 100]
        );
        assert!(bundle.entry("hipv4-amdgcn-amd-amdhsa--gfx942").is_none());

        let old = bundle
            .replace("hipv4-amdgcn-amd-amdhsa--gfx1250", b"new".to_vec())
            .unwrap();
        assert_eq!(old.len(), 300);
        assert_eq!(
            bundle.replace("nope", vec![]),
            Err(BundleError::NoSuchEntry { id: "nope".into() })
        );
        let reparsed = Bundle::parse(&bundle.write().unwrap()).unwrap();
        assert_eq!(
            reparsed
                .entry("hipv4-amdgcn-amd-amdhsa--gfx1250")
                .unwrap()
                .data,
            b"new"
        );
        assert!(!is_bundle(b"\x7fELF"));
    }

    /// Header of the `.hip_fatbin` section in llvm-project
    /// llvm/test/tools/llvm-objdump/Offloading/fatbin.test, made by clang's HIP toolchain. The
    /// facts checked: the record layout; both the empty host entry and the gfx908 code object
    /// sit at 0x1000 (4096 alignment applied to every entry, the empty one included); no padding
    /// after the last entry. Writing the parsed bundle reproduces it byte for byte.
    #[test]
    fn matches_clang_hip_fatbin_layout() {
        let header = unhex(
            "5F5F434C414E475F4F46464C4F41445F42554E444C455F5F 0200000000000000
             0010000000000000 0000000000000000 1B00000000000000
             686F73742D7838365F36342D756E6B6E6F776E2D6C696E75782D2D
             0010000000000000 D00F000000000000 1F00000000000000
             68697076342D616D6467636E2D616D642D616D646873612D2D676678393038",
        );
        // The code object itself is not reproduced here; any 0xFD0 bytes do.
        let mut bytes = header.clone();
        bytes.resize(0x1000, 0);
        bytes.extend(b"\x7fELF");
        bytes.extend((4..0xfd0u32).map(|i| i as u8));

        let bundle = Bundle::parse(&bytes).unwrap();
        assert_eq!(bundle.format, BundleFormat::Plain);
        assert_eq!(bundle.entries.len(), 2);
        assert_eq!(bundle.entries[0].id, "host-x86_64-unknown-linux--");
        assert!(bundle.entries[0].data.is_empty() && bundle.entries[0].is_host());
        assert_eq!(bundle.entries[1].id, "hipv4-amdgcn-amd-amdhsa--gfx908");
        assert_eq!(bundle.entries[1].data, bytes[0x1000..]);
        assert_eq!(bundle.entries[1].parsed_id().target_id, "gfx908");
        assert_eq!(bundle.write().unwrap(), bytes);
    }

    /// The `.hip_fatbin` of llvm/test/tools/llvm-objdump/Offloading/fatbin-magic-collision.test:
    /// a clang-offload-bundler `-compress` output (CCOB v3, zstd) into which the generator script
    /// spliced a zstd skippable frame holding "CCOB", fixing up the total size but keeping clang's
    /// hash. Facts checked: v3 field layout, method 1 = zstd, the hash is the low 64 bits of the
    /// MD5 of the decompressed plain bundle, the total size (not a magic scan) ends the blob.
    const CLANG_CCOB_V3: &str = "43434F42030001009D00000000000000BC00000000000000C4C20F3D5905B03E
        502A4D180400000043434F4228B52FFD20BC45030024055F5F434C414E475F4F46464C4F41445F42554E444C45
        5F5F02008A0019001D006869702D616D6467636E6873612D2D676678393036A338436F6E74656E74206F662064
        65766963652066696C6520310A320A0800F2AC07B03ADAED52591D600C0606033B8031";

    #[test]
    fn reads_clang_compressed_bundle() {
        let bytes = unhex(CLANG_CCOB_V3);
        let bundle = Bundle::parse(&bytes).unwrap();
        assert_eq!(
            bundle.format,
            BundleFormat::Compressed {
                version: 3,
                method: Compression::Zstd
            }
        );
        assert_eq!(
            bundle.entries,
            [
                entry(
                    "hip-amdgcn-amd-amdhsa--gfx906",
                    b"Content of device file 1\n"
                ),
                entry(
                    "hip-amdgcn-amd-amdhsa--gfx908",
                    b"Content of device file 2\n"
                ),
            ]
        );
        assert_eq!(bundle.device_entries().count(), 2);
    }

    #[test]
    fn parse_all_walks_concatenated_bundles() {
        let ccob = unhex(CLANG_CCOB_V3);
        let plain = sample(BundleFormat::Plain).write().unwrap();
        let zlib = sample(BundleFormat::Compressed {
            version: 2,
            method: Compression::Zlib,
        })
        .write()
        .unwrap();
        let mut section = ccob.clone();
        section.resize(4096, 0); // padding, as section alignment leaves it
        section.extend(&plain);
        section.extend(&zlib); // no padding
        section.extend([0; 10]);

        let all = Bundle::parse_all(&section).unwrap();
        let starts: Vec<usize> = all.iter().map(|(at, _)| *at).collect();
        assert_eq!(starts, [0, 4096, 4096 + plain.len()]);
        assert_eq!(all[1].1, sample(BundleFormat::Plain));
        assert_eq!(all[2].1.entries, sample(BundleFormat::Plain).entries);
        assert!(Bundle::parse_all(&[0; 16]).unwrap().is_empty());

        // parse() reads one bundle and refuses to drop the next.
        assert_eq!(
            Bundle::parse(&section),
            Err(BundleError::TrailingData { offset: 4096 })
        );
        assert_eq!(
            Bundle::parse_all(&[&plain[..], b"junk"].concat()),
            Err(BundleError::NotABundle {
                offset: plain.len()
            })
        );
    }

    #[test]
    fn v1_blob_ends_at_the_next_bundle() {
        // v1 has no total size: zero padding after it must not reach the decompressor.
        let plain = sample(BundleFormat::Plain);
        for method in [Compression::Zlib, Compression::Zstd] {
            let v1 = Bundle {
                format: BundleFormat::Compressed { version: 1, method },
                ..plain.clone()
            };
            let mut bytes = v1.write().unwrap();
            let next = bytes.len() + 100;
            bytes.resize(next, 0);
            assert_eq!(Bundle::parse(&bytes).unwrap(), v1);
            bytes.extend(plain.write().unwrap());
            let all = Bundle::parse_all(&bytes).unwrap();
            assert_eq!(all, [(0, v1), (next, plain.clone())]);
        }
    }

    #[test]
    fn plain_errors_name_the_offset() {
        use BundleError::*;
        assert_eq!(Bundle::parse(b"junk"), Err(NotABundle { offset: 0 }));
        assert_eq!(
            Bundle::parse(&[&PLAIN_MAGIC[..], &[2, 0, 0, 0]].concat()),
            Err(Truncated {
                what: "entry count",
                offset: 24,
                need: 8,
                have: 4
            })
        );
        let mut bytes = raw_plain(&[], 0);
        bytes[24] = 0xe8; // 1000 entries
        bytes[25] = 0x03;
        assert_eq!(
            Bundle::parse(&bytes),
            Err(EntryTableOutOfBounds {
                offset: 24,
                count: 1000,
                have: 0
            })
        );

        // One entry with id "a": its record is at 32, the header ends at 57.
        let mut bytes = raw_plain(&[(57, 3, b"a")], 60);
        bytes[48] = 50; // id length 50, only 4 bytes follow
        assert_eq!(
            Bundle::parse(&bytes),
            Err(Truncated {
                what: "entry id",
                offset: 56,
                need: 50,
                have: 4
            })
        );
        assert_eq!(
            Bundle::parse(&raw_plain(&[(57, 100, b"a")], 60)),
            Err(EntryOutOfBounds {
                index: 0,
                offset: 32,
                data_offset: 57,
                size: 100,
                len: 60
            })
        );
        assert_eq!(
            Bundle::parse(&raw_plain(&[(u64::MAX, 2, b"a")], 60)),
            Err(EntryOutOfBounds {
                index: 0,
                offset: 32,
                data_offset: u64::MAX,
                size: 2,
                len: 60
            })
        );
        assert_eq!(
            Bundle::parse(&raw_plain(&[(8, 3, b"a")], 60)),
            Err(EntryOverlapsHeader {
                index: 0,
                offset: 32,
                data_offset: 8,
                header_end: 57
            })
        );
        assert_eq!(
            Bundle::parse(&raw_plain(&[(57, 3, b"\xff")], 60)),
            Err(IdNotUtf8 {
                index: 0,
                offset: 56
            })
        );

        // Two entries "a", "b": records at 32 and 57, header ends at 82.
        assert_eq!(
            Bundle::parse(&raw_plain(&[(82, 4, b"a"), (84, 4, b"b")], 88)),
            Err(EntriesOverlap {
                index: 1,
                other: 0,
                offset: 57
            })
        );
        assert_eq!(
            Bundle::parse(&raw_plain(&[(82, 2, b"a"), (84, 2, b"a")], 86)),
            Err(DuplicateId {
                index: 1,
                offset: 57,
                id: "a".into()
            })
        );
        // Empty entries may share an offset with data (clang's HIP host entry does).
        assert!(Bundle::parse(&raw_plain(&[(82, 0, b"a"), (82, 4, b"b")], 86)).is_ok());

        let mut bytes = raw_plain(&[(57, 3, b"a")], 60);
        bytes.extend([0, 0, 7]);
        assert_eq!(Bundle::parse(&bytes), Err(TrailingData { offset: 62 }));
    }

    #[test]
    fn compressed_errors_name_the_offset() {
        use BundleError::*;
        let plain = raw_plain(&[(57, 3, b"a")], 60);
        let hash = md5_low(&plain);
        let good = raw_ccob(2, 0, 60, hash, &zlib(&plain));
        assert_eq!(
            Bundle::parse(&good).unwrap().entries,
            [entry("a", &[0xab; 3])]
        );

        assert_eq!(
            Bundle::parse(b"CCOB\x04\x00\x00\x00"),
            Err(UnknownVersion {
                version: 4,
                offset: 4
            })
        );
        assert_eq!(
            Bundle::parse(b"CCOB\x02\x00\x07\x00"),
            Err(UnknownCompression {
                method: 7,
                offset: 6
            })
        );
        assert_eq!(
            Bundle::parse(&good[..10]),
            Err(Truncated {
                what: "CCOB total size",
                offset: 8,
                need: 4,
                have: 2
            })
        );
        assert!(matches!(
            Bundle::parse(&raw_ccob(2, 0, 60, hash, b"not zlib at all")),
            Err(Decompress {
                method: Compression::Zlib,
                offset: 24,
                ..
            })
        ));
        assert!(matches!(
            Bundle::parse(&raw_ccob(3, 1, 60, hash, b"not zstd at all")),
            Err(Decompress {
                method: Compression::Zstd,
                offset: 32,
                ..
            })
        ));
        assert_eq!(
            Bundle::parse(&raw_ccob(2, 0, 65, hash, &zlib(&plain))),
            Err(SizeMismatch {
                what: "CCOB uncompressed size",
                offset: 12,
                claimed: 65,
                actual: 60
            })
        );
        assert_eq!(
            Bundle::parse(&raw_ccob(2, 0, 50, hash, &zlib(&plain))),
            Err(SizeMismatch {
                what: "CCOB uncompressed size",
                offset: 12,
                claimed: 50,
                actual: 51
            })
        );
        let mut long = raw_ccob(3, 0, 60, hash, &zlib(&plain));
        let claimed_total = long.len() as u64 + 1;
        long[8..16].copy_from_slice(&claimed_total.to_le_bytes());
        assert_eq!(
            Bundle::parse(&long),
            Err(SizeMismatch {
                what: "CCOB total size",
                offset: 8,
                claimed: claimed_total,
                actual: claimed_total - 1
            })
        );
        assert_eq!(
            Bundle::parse(&raw_ccob(3, 0, 2 << 30, hash, &zlib(&plain))),
            Err(TooLarge {
                offset: 16,
                size: 2 << 30,
                limit: MAX_UNCOMPRESSED_SIZE
            })
        );
        assert_eq!(
            Bundle::parse(&raw_ccob(2, 0, 60, hash ^ 1, &zlib(&plain))),
            Err(HashMismatch {
                offset: 16,
                stored: hash ^ 1,
                computed: hash
            })
        );
        assert_eq!(
            Bundle::parse(&raw_ccob(1, 0, 5, md5_low(b"hello"), &zlib(b"hello"))),
            Err(Payload {
                offset: 0,
                source: Box::new(NotABundle { offset: 0 })
            })
        );
        // Errors inside the payload count from the decompressed start.
        let bad = raw_plain(&[(8, 3, b"a")], 60);
        assert_eq!(
            Bundle::parse(&raw_ccob(2, 0, 60, md5_low(&bad), &zlib(&bad))),
            Err(Payload {
                offset: 0,
                source: Box::new(EntryOverlapsHeader {
                    index: 0,
                    offset: 32,
                    data_offset: 8,
                    header_end: 57
                })
            })
        );
        assert_eq!(
            sample(BundleFormat::Compressed {
                version: 4,
                method: Compression::Zlib
            })
            .write(),
            Err(UnknownVersion {
                version: 4,
                offset: 4
            })
        );
    }

    /// Truncates at every length and flips every bit; parse must return, and every strict
    /// prefix must be an error (each of these bundles ends exactly where its data does).
    fn mangle(valid: &[u8]) {
        assert!(Bundle::parse(valid).is_ok());
        for n in 0..valid.len() {
            assert!(
                Bundle::parse(&valid[..n]).is_err(),
                "prefix of {n} bytes parsed"
            );
            let _ = Bundle::parse_all(&valid[..n]);
        }
        let mut bytes = valid.to_vec();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                bytes[i] ^= 1 << bit;
                let _ = Bundle::parse(&bytes);
                let _ = Bundle::parse_all(&bytes);
                bytes[i] ^= 1 << bit;
            }
        }
    }

    #[test]
    fn mangled_inputs_never_panic() {
        let entries = sample(BundleFormat::Plain).entries;
        mangle(&write_plain(&entries, 8));
        mangle(&unhex(CLANG_CCOB_V3));
        for (version, method) in [
            (1, Compression::Zlib),
            (2, Compression::Zlib),
            (3, Compression::Zstd),
        ] {
            mangle(
                &Bundle {
                    format: BundleFormat::Compressed { version, method },
                    entries: entries.clone(),
                }
                .write()
                .unwrap(),
            );
        }
        // The 4096-aligned layout: truncations only (bit flips over the padding add nothing).
        let aligned = sample(BundleFormat::Plain).write().unwrap();
        for n in 0..aligned.len() {
            assert!(Bundle::parse(&aligned[..n]).is_err());
        }
    }
}
