//! Cache hits are served without invoking the translator (and so without LLVM): one test in its
//! own binary, because it reads the process-wide translator call counter.

use hotswap_comgr::transpile::{cache_key, transpile, LookupStatus, Request, TRANSLATOR_CALLS};
use hotswap_comgr::{isa::IsaName, Env, AMD_COMGR_STATUS_SUCCESS};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

fn corpus(rel: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus").join(rel)).unwrap()
}

#[test]
fn hits_do_not_call_the_translator_and_bad_hits_are_rebuilt() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hotswap-comgr-cache-hit");
    let _ = std::fs::remove_dir_all(&dir);
    let env = Env::from_map(&HashMap::from([("HSA_HOTSWAP_CACHE_DIR".to_string(), dir.display().to_string())]));
    let input = corpus("gfx1250/saxpy.hsaco");
    let (src, tgt) = ("amdgcn-amd-amdhsa--gfx1250", "amdgcn-amd-amdhsa--gfx942");

    // A miss runs the translator once.
    let before = TRANSLATOR_CALLS.load(Ordering::SeqCst);
    let first = transpile(&input, src, tgt, &Request::default(), &env);
    assert_eq!(TRANSLATOR_CALLS.load(Ordering::SeqCst), before + 1);
    assert_eq!(first.lookup, LookupStatus::Miss);

    // Replace the stored translation with the native gfx942 build of saxpy (bytes the translator
    // never produces). Every later call is served from it: success, the planted bytes, and the
    // translator is never called.
    let planted = corpus("gfx942/saxpy.hsaco");
    let options = hotswap::Options { target: hotswap::GpuTarget::Gfx942, strict: true, ..Default::default() };
    let key = cache_key(&input, &IsaName::parse(src).unwrap(), &IsaName::parse(tgt).unwrap(), &options);
    let cache = hx_cache::Cache::new(&dir, hx_cache::Mode::ReadWrite);
    cache.put(&key, &planted).unwrap();
    let before = TRANSLATOR_CALLS.load(Ordering::SeqCst);
    for _ in 0..10 {
        let r = transpile(&input, src, tgt, &Request::default(), &env);
        assert_eq!(r.status, AMD_COMGR_STATUS_SUCCESS, "{}", r.message);
        assert!(r.cache_hit);
        assert_eq!(r.lookup, LookupStatus::Hit);
        assert_eq!(r.output.as_deref(), Some(&planted[..]));
        assert_eq!(r.cache_key, key.hex());
    }
    assert_eq!(TRANSLATOR_CALLS.load(Ordering::SeqCst), before, "a cache hit must not run the translator");

    // An entry that passes the checksum but is not a code object for the target is rejected
    // and the translator runs again.
    cache.put(&key, &corpus("gfx950/saxpy.hsaco")).unwrap();
    let r = transpile(&input, src, tgt, &Request::default(), &env);
    assert_eq!(TRANSLATOR_CALLS.load(Ordering::SeqCst), before + 1);
    assert!(!r.cache_hit);
    assert_eq!(r.lookup, LookupStatus::Invalid, "{}", r.cache_detail);
    assert_eq!(r.success, hotswap::translate(&input, &options).is_ok());

    // A corrupt entry (flipped byte) is a miss too.
    cache.put(&key, &planted).unwrap();
    let path = cache.entry_path(&key);
    let mut b = std::fs::read(&path).unwrap();
    *b.last_mut().unwrap() ^= 1;
    std::fs::write(&path, b).unwrap();
    let r = transpile(&input, src, tgt, &Request::default(), &env);
    assert_eq!(TRANSLATOR_CALLS.load(Ordering::SeqCst), before + 2);
    assert!(!r.cache_hit);
}
