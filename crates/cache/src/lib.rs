//! hx-cache: a content-addressed on-disk cache of translations, plus the HotSwap environment
//! contract ([`env`]) that says where it lives.
//!
//! - **Key**: a SHA-256 over length-prefixed, named fields ([`KeyBuilder`]): the input bytes, the
//!   target ID, every translation option and the project version. Two different requests can only
//!   share a key if SHA-256 collides.
//! - **Entry**: one file `<dir>/v1/<k[0..2]>/<k>.hxc` holding a header (magic, format version, the
//!   key itself, payload length, SHA-256 of the payload) then the payload. Every read checks all of
//!   it; an entry that is truncated, has a flipped byte or belongs to another key is a miss, is
//!   removed (read-write mode) and is rebuilt by the next [`Cache::get_or_insert_with`].
//! - **Writes are atomic**: the entry is written to a uniquely named temporary file in the same
//!   directory, then renamed over the final name. A reader sees either no entry or a complete
//!   one, never a torn one, whatever number of threads and processes share the directory.
//!   There is no fsync: a cache need not survive a power loss, and an entry the kernel had not
//!   written back by then (empty, truncated) fails the reader's checks and is rebuilt like any
//!   corrupt one. (An fdatasync of an entry took 0.24 ms on this
//!   machine's virtual disk, most of a miss's own cost; on a disk that honours it, milliseconds.)
//!   Within one process, concurrent [`Cache::get_or_insert_with`] calls for one key run the
//!   producer once; other processes may duplicate the work, never corrupt the result.
//! - **Read-only mode** serves hits and never creates, writes or removes anything.
//! - **Only regular files are entries.** A lookup opens the entry without following a symlink
//!   and without blocking, checks with fstat that it is a regular file no larger than
//!   [`MAX_ENTRY_BYTES`] whose size is what its header declares, and reads no more than that; a
//!   FIFO, device, socket, symlink (e.g. to `/dev/zero`), oversized or sparse entry, or a layout
//!   directory that is a symlink out of the cache, is corrupt, never a hang or an unbounded read.
//! - A failed producer is not cached: only successful translations are stored.

pub mod env;

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// File magic of a cache entry.
const MAGIC: &[u8; 4] = b"HXC\x01";
/// Entry format version (bump when the layout changes; older entries then read as corrupt).
const FORMAT: u32 = 1;
/// magic 4 + format 4 + key 32 + payload length 8 + payload sha256 32.
const HEADER_LEN: usize = 4 + 4 + 32 + 8 + 32;
/// Name of the layout directory under the cache root.
const LAYOUT_DIR: &str = "v1";

/// A cache key: 32 bytes of SHA-256.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Key {
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn hex(&self) -> String {
        hex(&self.0)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.hex())
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Builds a [`Key`] from named fields. Each field is fed to the hash as
/// `len(name) name len(value) value` (lengths as u64 little-endian), so no two different
/// field lists hash the same input stream.
#[derive(Clone)]
pub struct KeyBuilder {
    hasher: Sha256,
}

impl KeyBuilder {
    /// `domain` separates unrelated uses of one cache directory (e.g. "hotswap-xlate/translate").
    pub fn new(domain: &str) -> KeyBuilder {
        let mut b = KeyBuilder { hasher: Sha256::new() };
        b.push("domain", domain.as_bytes());
        b
    }

    fn push(&mut self, name: &str, value: &[u8]) {
        self.hasher.update((name.len() as u64).to_le_bytes());
        self.hasher.update(name.as_bytes());
        self.hasher.update((value.len() as u64).to_le_bytes());
        self.hasher.update(value);
    }

    pub fn field(mut self, name: &str, value: impl AsRef<[u8]>) -> KeyBuilder {
        self.push(name, value.as_ref());
        self
    }

    pub fn finish(self) -> Key {
        Key(self.hasher.finalize().into())
    }
}

/// Whether the cache may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ReadWrite,
    /// Hits are served; nothing is ever created, written or removed.
    ReadOnly,
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Hit(Vec<u8>),
    Miss,
    /// An entry existed but failed verification (the reason says how). It was removed in
    /// read-write mode and ignored in read-only mode.
    Corrupt(String),
}

/// What [`Cache::get_or_insert_with`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Served from the cache; the producer was not called.
    Hit,
    /// Not in the cache (or the entry was corrupt: `replaced_corrupt`); the producer ran and
    /// `stored` says whether the result was written (false in read-only mode or when the write
    /// failed, with `write_error` saying why).
    Miss { replaced_corrupt: Option<String>, stored: bool, write_error: Option<String> },
}

impl Outcome {
    pub fn is_hit(&self) -> bool {
        matches!(self, Outcome::Hit)
    }
}

/// An on-disk cache rooted at one directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
    mode: Mode,
}

/// Serialises producers per (root, key) inside this process.
fn inflight_lock(path: &Path) -> Arc<Mutex<()>> {
    static MAP: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let map = MAP.get_or_init(|| Mutex::new(HashMap::new()));
    let mut m = map.lock().unwrap_or_else(|p| p.into_inner());
    // Forget locks nobody holds any more, so the map stays small in a long-lived process.
    if m.len() > 1024 {
        m.retain(|_, v| Arc::strong_count(v) > 1);
    }
    m.entry(path.to_path_buf()).or_insert_with(|| Arc::new(Mutex::new(()))).clone()
}

impl Cache {
    /// A cache at `root`. Nothing is created until the first write (never in read-only mode).
    pub fn new(root: impl Into<PathBuf>, mode: Mode) -> Cache {
        Cache { root: root.into(), mode }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Where the entry of `key` lives (whether or not it exists).
    pub fn entry_path(&self, key: &Key) -> PathBuf {
        let h = key.hex();
        self.root.join(LAYOUT_DIR).join(&h[..2]).join(format!("{h}.hxc"))
    }

    /// Looks `key` up, verifying the entry.
    ///
    /// Only a regular file is read, and only as much of it as its header declares, never more
    /// than [`MAX_ENTRY_BYTES`]: the entry is opened without following a symlink and without
    /// blocking (O_NOFOLLOW | O_NONBLOCK, so a FIFO cannot hang the caller), its type and size are
    /// taken from the open descriptor (fstat) before anything is read, and the layout directories
    /// must be real directories inside the root, not symlinks out of it. Anything else (a FIFO,
    /// device, socket, symlink, directory, oversized or sparse entry) is [`Lookup::Corrupt`]:
    /// removed and rebuilt in read-write mode, skipped in read-only mode.
    pub fn get(&self, key: &Key) -> Lookup {
        let path = self.entry_path(key);
        if let Err(why) = self.check_layout_dirs(key) {
            // Never remove a directory tree through a symlink: the layout directory is only
            // reported, and `put` refuses to write through it.
            return why.map_or(Lookup::Miss, Lookup::Corrupt);
        }
        let file = match open_entry(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return self.corrupt(&path, format!("{}: is a symlink (cache entries are regular files)", path.display()));
            }
            Err(e) => return self.corrupt(&path, format!("cannot open {}: {e}", path.display())),
        };
        match read_entry(file, key) {
            Ok(payload) => Lookup::Hit(payload),
            Err(why) => self.corrupt(&path, format!("{}: {why}", path.display())),
        }
    }

    /// Ok when the entry's layout directories (`v1`, `v1/<k[0..2]>`) are absent or real
    /// directories; Err(None) when absent (a miss), Err(Some(why)) when one is not a directory.
    fn check_layout_dirs(&self, key: &Key) -> Result<(), Option<String>> {
        let h = key.hex();
        let v1 = self.root.join(LAYOUT_DIR);
        for dir in [v1.clone(), v1.join(&h[..2])] {
            match fs::symlink_metadata(&dir) {
                Ok(m) if m.file_type().is_dir() => {}
                Ok(m) => {
                    let what = if m.file_type().is_symlink() { "a symlink" } else { "not a directory" };
                    return Err(Some(format!("{}: cache layout directory is {what}", dir.display())));
                }
                Err(_) => return Err(None),
            }
        }
        Ok(())
    }

    fn corrupt(&self, path: &Path, why: String) -> Lookup {
        if self.mode == Mode::ReadWrite {
            // Another process may have replaced it with a good entry meanwhile; removing that
            // costs one rebuild, never a wrong answer.
            let _ = fs::remove_file(path);
        }
        Lookup::Corrupt(why)
    }

    /// Removes the entry of `key` (for a caller whose own check of a hit failed). A no-op in
    /// read-only mode or when there is no entry.
    pub fn remove(&self, key: &Key) {
        if self.mode == Mode::ReadWrite {
            let _ = fs::remove_file(self.entry_path(key));
        }
    }

    /// Stores `payload` under `key` atomically. Returns Ok(false) without touching the disk in
    /// read-only mode.
    pub fn put(&self, key: &Key, payload: &[u8]) -> io::Result<bool> {
        if self.mode == Mode::ReadOnly {
            return Ok(false);
        }
        let path = self.entry_path(key);
        let Some(dir) = path.parent() else {
            return Err(io::Error::other(format!("{}: entry path has no directory", path.display())));
        };
        fs::create_dir_all(dir)?;
        if let Err(Some(why)) = self.check_layout_dirs(key) {
            return Err(io::Error::other(why));
        }
        let tmp = dir.join(temp_name(key));
        let result = (|| {
            let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(&encode(key, payload))?;
            drop(f);
            fs::rename(&tmp, &path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        } else {
            // Temporary files of writers that died mid-write (a crash, a kill) are left behind;
            // sweep the old ones of this directory now and then.
            sweep_stale_temps(dir, STALE_TEMP_AGE);
        }
        result.map(|()| true)
    }

    /// Returns the cached value of `key`, or runs `produce`, stores its Ok value and returns it.
    /// A hit never calls `produce`. An Err from `produce` is returned as is and not stored.
    /// A failed write does not fail the call (the value is still returned; the outcome says so).
    pub fn get_or_insert_with<E>(
        &self,
        key: &Key,
        produce: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<(Vec<u8>, Outcome), E> {
        let first_corrupt = match self.get(key) {
            Lookup::Hit(v) => return Ok((v, Outcome::Hit)),
            Lookup::Miss => None,
            Lookup::Corrupt(why) => Some(why),
        };
        // Single-flight inside this process: the first thread produces, the others then hit.
        let lock = inflight_lock(&self.entry_path(key));
        let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let replaced_corrupt = match self.get(key) {
            Lookup::Hit(v) => return Ok((v, Outcome::Hit)),
            // The first lookup's corrupt entry was removed (read-write mode): report it.
            Lookup::Miss => first_corrupt,
            Lookup::Corrupt(why) => Some(why),
        };
        let value = produce()?;
        let (stored, write_error) = match self.put(key, &value) {
            Ok(stored) => (stored, None),
            Err(e) => (false, Some(format!("cannot write {}: {e}", self.entry_path(key).display()))),
        };
        Ok((value, Outcome::Miss { replaced_corrupt, stored, write_error }))
    }
}

/// The largest entry (header and payload) a lookup reads; a larger one is corrupt. Translated
/// code objects are bounded by the translator's input limit (hotswap's `Limits::max_input_bytes`,
/// 256 MiB by default) and grow by a small factor at most; an entry past this is not one this
/// cache wrote.
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// Opens an entry for reading: no symlink followed (ELOOP), no blocking open of a FIFO.
fn open_entry(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC).open(path)
}

/// Reads and verifies an open entry: a regular file (fstat) of at most [`MAX_ENTRY_BYTES`]
/// whose size is exactly what its header declares; reads no more than that.
fn read_entry(file: fs::File, key: &Key) -> Result<Vec<u8>, String> {
    let meta = file.metadata().map_err(|e| format!("cannot stat: {e}"))?;
    let ft = meta.file_type();
    if !ft.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let what = if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_char_device() || ft.is_block_device() {
            "a device"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(format!("is {what} (cache entries are regular files)"));
    }
    let size = meta.len();
    if size > MAX_ENTRY_BYTES {
        return Err(format!("entry of {size} bytes is over the {MAX_ENTRY_BYTES}-byte cap"));
    }
    if size < HEADER_LEN as u64 {
        return Err(format!("truncated header ({size} bytes)"));
    }
    let mut file = file;
    let mut header = [0u8; HEADER_LEN];
    file.read_exact(&mut header).map_err(|e| format!("cannot read the header: {e}"))?;
    let declared = check_header(&header, key)?;
    if declared != size - HEADER_LEN as u64 {
        return Err(format!("payload is {} bytes, header says {declared}", size - HEADER_LEN as u64));
    }
    let mut payload = Vec::new();
    payload.try_reserve_exact(declared as usize).map_err(|e| format!("cannot allocate {declared} bytes: {e}"))?;
    // One byte more than declared: a file that grew since fstat is caught, and reading stops.
    file.take(declared + 1).read_to_end(&mut payload).map_err(|e| format!("cannot read: {e}"))?;
    if payload.len() as u64 != declared {
        return Err(format!("payload is {} bytes, header says {declared}", payload.len()));
    }
    if Sha256::digest(&payload).as_slice() != &header[48..80] {
        return Err("payload checksum mismatch".into());
    }
    Ok(payload)
}

/// Checks magic, format and key of a header; returns the declared payload length.
fn check_header(raw: &[u8; HEADER_LEN], key: &Key) -> Result<u64, String> {
    if &raw[0..4] != MAGIC {
        return Err("bad magic".into());
    }
    let mut format = [0u8; 4];
    format.copy_from_slice(&raw[4..8]);
    let format = u32::from_le_bytes(format);
    if format != FORMAT {
        return Err(format!("entry format {format}, expected {FORMAT}"));
    }
    if &raw[8..40] != key.bytes() {
        return Err("entry belongs to another key".into());
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&raw[40..48]);
    Ok(u64::from_le_bytes(len))
}

/// A temporary file older than this belongs to a writer that is gone.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes temporary files (`.<key>.tmp.*`) in `dir` last modified more than `age` ago.
/// Returns how many it removed.
pub fn sweep_stale_temps(dir: &Path, age: std::time::Duration) -> usize {
    let Ok(rd) = fs::read_dir(dir) else { return 0 };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with('.') && name.contains(".tmp.")) {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|d| d > age);
        if old && fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn temp_name(key: &Key) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!(".{}.tmp.{}.{n}.{nanos}", key.hex(), std::process::id())
}

fn encode(key: &Key, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(key.bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
fn decode(raw: &[u8], key: &Key) -> Result<Vec<u8>, String> {
    let header: &[u8; HEADER_LEN] = raw.get(..HEADER_LEN).and_then(|h| h.try_into().ok()).ok_or_else(|| format!("truncated header ({} bytes)", raw.len()))?;
    let len = check_header(header, key)?;
    let payload = &raw[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(format!("payload is {} bytes, header says {len}", payload.len()));
    }
    if Sha256::digest(payload).as_slice() != &raw[48..80] {
        return Err("payload checksum mismatch".into());
    }
    Ok(payload.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_fields() {
        let a = KeyBuilder::new("d").field("a", "bc").finish();
        let b = KeyBuilder::new("d").field("ab", "c").finish();
        let c = KeyBuilder::new("d").field("a", "bc").finish();
        assert_ne!(a, b);
        assert_eq!(a, c);
        assert_ne!(a, KeyBuilder::new("e").field("a", "bc").finish());
        assert_eq!(a.hex().len(), 64);
    }

    #[test]
    fn encode_decode_round_trip() {
        let k = KeyBuilder::new("t").finish();
        let raw = encode(&k, b"payload");
        assert_eq!(decode(&raw, &k).unwrap(), b"payload");
        let other = KeyBuilder::new("u").finish();
        assert!(decode(&raw, &other).unwrap_err().contains("another key"));
    }
}
