//! hx-cache behaviour: hit/miss, corruption, races between threads and processes, read-only mode,
//! and that a hit never calls the producer.

use hx_cache::{Cache, Key, KeyBuilder, Lookup, Mode, Outcome};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

/// A fresh directory under the target dir's tmp (removed at the start of each test that uses it).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hx-cache-tests").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn key(s: &str) -> Key {
    KeyBuilder::new("hx-cache-test").field("input", s).finish()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn miss_then_hit() {
    let c = Cache::new(scratch("miss_then_hit"), Mode::ReadWrite);
    let k = key("a");
    assert_eq!(c.get(&k), Lookup::Miss);
    let (v, o) = c.get_or_insert_with(&k, || Ok::<_, ()>(b"value-a".to_vec())).unwrap();
    assert_eq!(v, b"value-a");
    assert_eq!(o, Outcome::Miss { replaced_corrupt: None, stored: true, write_error: None });
    assert_eq!(c.get(&k), Lookup::Hit(b"value-a".to_vec()));
    assert_eq!(c.get(&key("b")), Lookup::Miss);
}

#[test]
fn hit_does_not_call_producer() {
    let c = Cache::new(scratch("hit_no_producer"), Mode::ReadWrite);
    let k = key("x");
    let calls = AtomicUsize::new(0);
    let produce = || {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok::<_, ()>(b"expensive".to_vec())
    };
    c.get_or_insert_with(&k, produce).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    for _ in 0..5 {
        let (v, o) = c
            .get_or_insert_with(&k, || -> Result<Vec<u8>, ()> { panic!("the producer must not run on a hit") })
            .unwrap();
        assert_eq!(v, b"expensive");
        assert!(o.is_hit());
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn producer_errors_are_not_cached() {
    let c = Cache::new(scratch("errors_not_cached"), Mode::ReadWrite);
    let k = key("e");
    let r = c.get_or_insert_with(&k, || Err::<Vec<u8>, _>("translation failed"));
    assert_eq!(r.unwrap_err(), "translation failed");
    assert_eq!(c.get(&k), Lookup::Miss);
    assert!(files_under(c.root()).is_empty(), "a failure must leave nothing behind");
}

fn corrupt_and_rebuild(name: &str, damage: impl Fn(&Path)) {
    let c = Cache::new(scratch(name), Mode::ReadWrite);
    let k = key(name);
    c.put(&k, b"the original translation bytes").unwrap();
    let path = c.entry_path(&k);
    damage(&path);
    match c.get(&k) {
        Lookup::Corrupt(why) => assert!(!why.is_empty()),
        other => panic!("{name}: expected a corrupt entry, got {other:?}"),
    }
    assert!(!path.exists(), "{name}: a corrupt entry is removed in read-write mode");
    // Damage again, then get_or_insert_with rebuilds it.
    c.put(&k, b"the original translation bytes").unwrap();
    damage(&path);
    let (v, o) = c.get_or_insert_with(&k, || Ok::<_, ()>(b"rebuilt".to_vec())).unwrap();
    assert_eq!(v, b"rebuilt");
    match o {
        Outcome::Miss { stored: true, .. } => {}
        other => panic!("{name}: expected a rebuild, got {other:?}"),
    }
    assert_eq!(c.get(&k), Lookup::Hit(b"rebuilt".to_vec()));
}

#[test]
fn truncated_entry_is_a_miss_and_rebuilt() {
    corrupt_and_rebuild("truncate_payload", |p| {
        let len = fs::metadata(p).unwrap().len();
        fs::OpenOptions::new().write(true).open(p).unwrap().set_len(len - 3).unwrap();
    });
    corrupt_and_rebuild("truncate_header", |p| {
        fs::OpenOptions::new().write(true).open(p).unwrap().set_len(10).unwrap();
    });
    corrupt_and_rebuild("truncate_empty", |p| {
        fs::OpenOptions::new().write(true).open(p).unwrap().set_len(0).unwrap();
    });
}

#[test]
fn flipped_byte_is_a_miss_and_rebuilt() {
    for (name, at_end) in [("flip_payload", true), ("flip_header", false)] {
        corrupt_and_rebuild(name, |p| {
            let mut b = fs::read(p).unwrap();
            let i = if at_end { b.len() - 1 } else { 45 };
            b[i] ^= 0x01;
            fs::write(p, b).unwrap();
        });
    }
    corrupt_and_rebuild("appended", |p| {
        let mut b = fs::read(p).unwrap();
        b.push(0);
        fs::write(p, b).unwrap();
    });
}

#[test]
fn entry_of_another_key_is_rejected() {
    let c = Cache::new(scratch("wrong_key"), Mode::ReadWrite);
    let (a, b) = (key("a"), key("b"));
    c.put(&a, b"A").unwrap();
    fs::create_dir_all(c.entry_path(&b).parent().unwrap()).unwrap();
    fs::copy(c.entry_path(&a), c.entry_path(&b)).unwrap();
    assert!(matches!(c.get(&b), Lookup::Corrupt(_)));
    assert_eq!(c.get(&a), Lookup::Hit(b"A".to_vec()));
}

#[test]
fn sixteen_threads_race_on_one_key() {
    let c = Arc::new(Cache::new(scratch("race16"), Mode::ReadWrite));
    let k = key("contended");
    let calls = Arc::new(AtomicUsize::new(0));
    let barrier = Arc::new(Barrier::new(16));
    let handles: Vec<_> = (0..16)
        .map(|_| {
            let (c, calls, barrier) = (c.clone(), calls.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let (v, _) = c
                    .get_or_insert_with(&k, || {
                        calls.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        Ok::<_, ()>(vec![0xab; 100_000])
                    })
                    .unwrap();
                v
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), vec![0xab; 100_000]);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1, "one process produces one key once");
    assert_eq!(c.get(&k), Lookup::Hit(vec![0xab; 100_000]));
    let files = files_under(c.root());
    assert_eq!(files, vec![c.entry_path(&k)], "no temporary files are left behind");
}

#[test]
fn sixteen_threads_many_keys_and_puts() {
    // Writers that bypass single-flight (plain put) racing with readers: a reader sees a miss or
    // a complete entry, never a torn one.
    let c = Arc::new(Cache::new(scratch("race_puts"), Mode::ReadWrite));
    let k = key("shared");
    let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let handles: Vec<_> = (0..16)
        .map(|t| {
            let (c, payload) = (c.clone(), payload.clone());
            std::thread::spawn(move || {
                for _ in 0..20 {
                    if t % 2 == 0 {
                        c.put(&k, &payload).unwrap();
                    } else {
                        match c.get(&k) {
                            Lookup::Hit(v) => assert_eq!(v, payload),
                            Lookup::Miss => {}
                            Lookup::Corrupt(why) => panic!("torn read: {why}"),
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(c.get(&k), Lookup::Hit(payload));
}

/// Child-process side of `processes_race_on_one_key`: runs only when the parent sets the
/// variable, otherwise it is an empty test.
#[test]
fn process_race_worker() {
    let Ok(dir) = std::env::var("HX_CACHE_TEST_WORKER_DIR") else { return };
    let c = Cache::new(dir, Mode::ReadWrite);
    let k = key("cross-process");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let c = c.clone();
            std::thread::spawn(move || {
                let (v, _) = c.get_or_insert_with(&k, || Ok::<_, ()>(vec![7u8; 300_000])).unwrap();
                assert_eq!(v, vec![7u8; 300_000]);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn processes_race_on_one_key() {
    let dir = scratch("race_processes");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "process_race_worker", "--test-threads", "1"])
                .env("HX_CACHE_TEST_WORKER_DIR", &dir)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut ch in children {
        assert!(ch.wait().unwrap().success(), "a worker process failed");
    }
    let c = Cache::new(&dir, Mode::ReadWrite);
    assert_eq!(c.get(&key("cross-process")), Lookup::Hit(vec![7u8; 300_000]));
    assert_eq!(files_under(&dir).len(), 1, "only the entry remains: {:?}", files_under(&dir));
}

#[test]
fn read_only_mode_writes_nothing() {
    let root = scratch("read_only").join("not-created");
    let ro = Cache::new(&root, Mode::ReadOnly);
    let k = key("ro");
    let calls = AtomicUsize::new(0);
    let (v, o) = ro
        .get_or_insert_with(&k, || {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ()>(b"computed".to_vec())
        })
        .unwrap();
    assert_eq!(v, b"computed");
    assert_eq!(o, Outcome::Miss { replaced_corrupt: None, stored: false, write_error: None });
    assert!(!ro.put(&k, b"x").unwrap());
    assert!(!root.exists(), "read-only mode created {}", root.display());

    // It serves hits written by a read-write cache, and leaves corrupt entries alone.
    let rw = Cache::new(&root, Mode::ReadWrite);
    rw.put(&k, b"stored").unwrap();
    assert_eq!(ro.get(&k), Lookup::Hit(b"stored".to_vec()));
    let path = rw.entry_path(&k);
    let mut b = fs::read(&path).unwrap();
    *b.last_mut().unwrap() ^= 0xff;
    fs::write(&path, &b).unwrap();
    let before = files_under(&root);
    assert!(matches!(ro.get(&k), Lookup::Corrupt(_)));
    let (v, _) = ro.get_or_insert_with(&k, || Ok::<_, ()>(b"again".to_vec())).unwrap();
    assert_eq!(v, b"again");
    assert_eq!(files_under(&root), before);
    assert_eq!(fs::read(&path).unwrap(), b, "read-only mode does not touch the entry");
}

#[test]
fn unwritable_directory_still_returns_the_value() {
    let base = scratch("unwritable");
    let file = base.join("a-file");
    fs::write(&file, b"not a directory").unwrap();
    let c = Cache::new(&file, Mode::ReadWrite);
    let (v, o) = c.get_or_insert_with(&key("w"), || Ok::<_, ()>(b"v".to_vec())).unwrap();
    assert_eq!(v, b"v");
    match o {
        Outcome::Miss { stored: false, write_error: Some(e), .. } => assert!(e.contains("cannot write")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn stale_temporary_files_are_swept() {
    let c = Cache::new(scratch("sweep"), Mode::ReadWrite);
    let k = key("sweep");
    c.put(&k, b"one").unwrap();
    let dir = c.entry_path(&k).parent().unwrap().to_path_buf();
    let stale = dir.join(format!(".{}.tmp.999.0.0", k.hex()));
    let fresh = dir.join(format!(".{}.tmp.998.0.0", k.hex()));
    fs::write(&stale, b"half a write").unwrap();
    fs::write(&fresh, b"a write in progress").unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    fs::File::options().write(true).open(&stale).unwrap().set_modified(two_hours_ago).unwrap();
    c.put(&k, b"two").unwrap();
    assert!(!stale.exists(), "a stale temporary file is removed");
    assert!(fresh.exists(), "a recent one may belong to a live writer");
    assert_eq!(c.get(&k), Lookup::Hit(b"two".to_vec()));
}
