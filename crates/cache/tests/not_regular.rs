//! Cache entries that are not regular files (issue 29): a FIFO used to hang a lookup forever, a
//! symlink to /dev/zero read without bound, an 8 GiB sparse entry was read whole before its
//! length was checked. Each is now corrupt: removed and rebuilt in read-write mode, skipped (and
//! left alone) in read-only mode.
//!
//! Every lookup here runs on a thread with a deadline ([`within`]): a regression fails the test
//! instead of hanging the suite.

use hx_cache::{Cache, Key, KeyBuilder, Lookup, Mode, Outcome};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hx-cache-not-regular").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn key(s: &str) -> Key {
    KeyBuilder::new("hx-cache-test").field("input", s).finish()
}

/// Runs `f` on its own thread and fails if it has not returned within 20 s. (A hung thread is
/// left behind; the test process ends with the failure.)
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(v) => v,
        Err(_) => panic!("{what}: did not return within 20 s (a cache lookup hangs)"),
    }
}

/// Whether anything (even a dangling symlink) is at `p`.
fn present(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok()
}

/// Puts the entry's parent directory in place and `make`s the entry at its path.
fn plant(c: &Cache, k: &Key, make: &dyn Fn(&Path)) -> PathBuf {
    let path = c.entry_path(k);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = fs::remove_file(&path);
    make(&path);
    path
}

/// In read-write mode: `get` reports corrupt (with `expect` in the reason) and removes the entry;
/// `get_or_insert_with` rebuilds it into a regular file that then hits. In read-only mode: `get`
/// reports corrupt, leaves the entry where it was, and `get_or_insert_with` returns the
/// producer's value without storing it.
fn check(name: &str, expect: &'static str, make: fn(&Path)) {
    let root = scratch(name);
    let k = key(name);

    let rw = Cache::new(&root, Mode::ReadWrite);
    let path = plant(&rw, &k, &make);
    let (c, kk) = (rw.clone(), k);
    let got = within(name, move || c.get(&kk));
    match got {
        Lookup::Corrupt(why) => assert!(why.contains(expect), "{name}: reason {why:?} does not say {expect:?}"),
        other => panic!("{name}: expected a corrupt entry, got {other:?}"),
    }
    assert!(!present(&path), "{name}: the entry is removed in read-write mode");

    plant(&rw, &k, &make);
    let (c, kk) = (rw.clone(), k);
    let (v, o) = within(name, move || c.get_or_insert_with(&kk, || Ok::<_, ()>(b"rebuilt".to_vec())).unwrap());
    assert_eq!(v, b"rebuilt");
    assert!(matches!(o, Outcome::Miss { replaced_corrupt: Some(_), stored: true, .. }), "{name}: {o:?}");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file(), "{name}: rebuilt as a regular file");
    assert_eq!(rw.get(&k), Lookup::Hit(b"rebuilt".to_vec()));

    let ro = Cache::new(&root, Mode::ReadOnly);
    plant(&rw, &k, &make);
    let (c, kk) = (ro.clone(), k);
    assert!(matches!(within(name, move || c.get(&kk)), Lookup::Corrupt(_)), "{name}: read-only lookup");
    let (c, kk) = (ro.clone(), k);
    let (v, o) = within(name, move || c.get_or_insert_with(&kk, || Ok::<_, ()>(b"fresh".to_vec())).unwrap());
    assert_eq!(v, b"fresh");
    assert!(matches!(o, Outcome::Miss { stored: false, .. }), "{name}: {o:?}");
    assert!(present(&path), "{name}: read-only mode leaves the entry alone");
    let _ = fs::remove_file(&path);
}

#[test]
fn fifo_entry_is_corrupt_not_a_hang() {
    check("fifo", "FIFO", |p| {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", p.display());
    });
}

#[test]
fn symlink_to_dev_zero_is_corrupt_not_an_unbounded_read() {
    check("dev_zero", "symlink", |p| std::os::unix::fs::symlink("/dev/zero", p).unwrap());
}

#[test]
fn symlink_to_a_good_entry_elsewhere_is_not_followed() {
    // A valid entry for the same key outside the cache: still refused, the link is not followed.
    let outside = scratch("outside_store");
    let other = Cache::new(&outside, Mode::ReadWrite);
    other.put(&key("symlink_out"), b"planted").unwrap();
    let target = other.entry_path(&key("symlink_out"));
    let root = scratch("symlink_out");
    let c = Cache::new(&root, Mode::ReadWrite);
    let k = key("symlink_out");
    plant(&c, &k, &|p| std::os::unix::fs::symlink(&target, p).unwrap());
    assert!(matches!(c.get(&k), Lookup::Corrupt(why) if why.contains("symlink")));
    assert_eq!(other.get(&k), Lookup::Hit(b"planted".to_vec()), "the link's target is untouched");
}

#[test]
fn socket_entry_is_corrupt() {
    check("socket", "socket", |p| {
        // A socket path must be short (sun_path): bind in a short directory, then move the
        // socket file into place. The listener is dropped at once; the socket file stays.
        let short = std::env::temp_dir().join(format!("hxs{}", std::process::id()));
        let _ = fs::remove_file(&short);
        std::os::unix::net::UnixListener::bind(&short).unwrap();
        fs::rename(&short, p).unwrap();
    });
}

#[test]
fn directory_entry_is_corrupt_and_left_to_the_next_write() {
    let root = scratch("dir_entry");
    let c = Cache::new(&root, Mode::ReadWrite);
    let k = key("dir_entry");
    let path = plant(&c, &k, &|p| fs::create_dir(p).unwrap());
    assert!(matches!(within("dir", move || c.get(&k)), Lookup::Corrupt(_)));
    assert!(present(&path));
}

#[test]
fn sparse_8_gib_entry_is_refused_from_its_size() {
    // Only the size is set: no data blocks are written, and the lookup must not read it.
    check("sparse", "cap", |p| fs::File::create(p).unwrap().set_len(8 << 30).unwrap());
}

#[test]
fn entry_longer_than_its_header_says_is_refused_without_reading_the_rest() {
    // A valid header declaring 4 payload bytes, followed by 64 MiB (sparse): the size check
    // rejects it before the payload is read.
    let root = scratch("long_tail");
    let c = Cache::new(&root, Mode::ReadWrite);
    let k = key("long_tail");
    c.put(&k, b"four").unwrap();
    let path = c.entry_path(&k);
    fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(64 << 20).unwrap();
    match within("long_tail", move || c.get(&k)) {
        Lookup::Corrupt(why) => assert!(why.contains("header says 4"), "{why}"),
        other => panic!("expected corrupt, got {other:?}"),
    }
}

#[test]
fn layout_directory_symlinked_out_of_the_cache_is_not_used() {
    // v1/<xx> is a symlink to a directory elsewhere holding a valid entry for the key.
    let outside = scratch("layout_outside");
    let other = Cache::new(&outside, Mode::ReadWrite);
    let k = key("layout");
    other.put(&k, b"planted").unwrap();
    let root = scratch("layout");
    let c = Cache::new(&root, Mode::ReadWrite);
    let sub = c.entry_path(&k).parent().unwrap().to_path_buf();
    fs::create_dir_all(sub.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(other.entry_path(&k).parent().unwrap(), &sub).unwrap();
    assert!(matches!(c.get(&k), Lookup::Corrupt(why) if why.contains("symlink")));
    // Writing through it is refused too; the value still comes back.
    let (v, o) = c.get_or_insert_with(&k, || Ok::<_, ()>(b"fresh".to_vec())).unwrap();
    assert_eq!(v, b"fresh");
    assert!(matches!(o, Outcome::Miss { stored: false, write_error: Some(_), .. }), "{o:?}");
    assert_eq!(other.get(&k), Lookup::Hit(b"planted".to_vec()), "nothing outside the cache changed");
}
