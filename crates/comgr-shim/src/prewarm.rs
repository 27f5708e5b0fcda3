//! `HSA_HOTSWAP_PREWARM=<target ISA>`: when the runtime loads the shim, a background thread does
//! the first translation's one-time work for that target (`hotswap::prewarm`: decoder tables, a
//! target machine with its caches, shared by every thread), so the first rewrite costs about what
//! a later one does (BENCHMARKS.md, section 2) instead of waiting for it.
//!
//! A process that exits while the thread runs waits for it at exit, before libLLVM's own
//! exit-time destructors run (they were registered when libLLVM loaded, before this library, and
//! exit handlers run last-registered first); the library is linked `-z nodelete` so that a
//! `dlclose` never unmaps code the thread runs.

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

static THREAD: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

// The loader runs this when the library is loaded (or, for the rlib, when a program linking it
// starts). It only reads two variables and, when asked, starts the thread.
#[used]
#[link_section = ".init_array"]
static AT_LOAD: extern "C" fn() = at_load;

extern "C" fn at_load() {
    // Nothing may unwind out of a library constructor.
    let _ = std::panic::catch_unwind(|| {
        // Read apart from `process_env()`, which a runtime may still be setting up: that one is
        // read at the first HotSwap call.
        let env = crate::env_from(|k| std::env::var(k).ok());
        if let (Some(target), false) = (env.prewarm, env.disable) {
            start(target, env.verbose);
        }
    });
}

fn start(target: String, verbose: u32) {
    let spawned = std::thread::Builder::new().name("hotswap-prewarm".into()).spawn(move || {
        match prewarm(&target) {
            Ok(took) if verbose >= 1 => eprintln!("hotswap: prewarmed {target} in {:.1} ms", took.as_secs_f64() * 1e3),
            Ok(_) => {}
            // A value the user set that cannot work is said whatever the verbosity.
            Err(e) => eprintln!("hotswap: {}: {e}", hx_cache::env::PREWARM),
        }
    });
    if let Ok(handle) = spawned {
        if let Ok(mut slot) = THREAD.lock() {
            *slot = Some(handle);
            // SAFETY: registers a plain function; it runs at exit, on the exiting thread.
            unsafe { libc::atexit(join_at_exit) };
        }
    }
}

extern "C" fn join_at_exit() {
    let handle = THREAD.lock().ok().and_then(|mut t| t.take());
    if let Some(h) = handle {
        let _ = h.join();
    }
}

/// `hotswap::prewarm` for the target ISA `name` (`gfx942`, `amdgcn-amd-amdhsa--gfx950`, ...), with
/// the options the shim translates with; how long it took.
pub fn prewarm(name: &str) -> Result<Duration, String> {
    let isa = crate::isa::IsaName::parse(name)?;
    let target = isa.gpu_target().ok_or_else(|| format!("`{name}`: the target must be gfx942 or gfx950"))?;
    let started = Instant::now();
    hotswap::prewarm(&hotswap::Options { target, ..Default::default() }).map_err(|e| e.to_string())?;
    Ok(started.elapsed())
}
