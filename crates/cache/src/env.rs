//! The HotSwap environment contract, parsed into one value.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `HSA_HOTSWAP_SOURCE_TARGET` | source processor and wave size, `gfx1250:32` | `gfx1250:32` |
//! | `HSA_HOTSWAP_ISA_OVERRIDE` | physical target to translate for, instead of the one asked for (`gfx950` or a full ISA name) | unset |
//! | `HSA_HOTSWAP_STRICT` | strict mode on (`1`) or off (`0`) | unset: the library default (strict) |
//! | `HSA_HOTSWAP_DISABLE` | refuse every translation (the runtime then keeps the original) | off |
//! | `HSA_HOTSWAP_VERBOSE` | log level on stderr (`1` = one line per call, `2` = more) | 0 |
//! | `HSA_HOTSWAP_CACHE_DIR` | cache directory | `$XDG_CACHE_HOME/rocm/hotswap`, else `$HOME/.cache/rocm/hotswap` |
//! | `HSA_HOTSWAP_CACHE_DISABLE` | do not use the cache | off |
//! | `HSA_HOTSWAP_CACHE_READONLY` | read the cache, never write it | off |
//! | `HSA_HOTSWAP_CACHE_SKIP_KERNELS` | comma-separated kernel names: an object holding one bypasses the cache | empty |
//! | `HSA_HOTSWAP_PAIR_GROUPS` | per-kernel COMGR calls: two source work-groups per target wave where a kernel allows it, reported as `SCALED_DISPATCH_FACTOR` 2 (the runtime then doubles the packet's work-group and grid x extents) | off |
//! | `HSA_HOTSWAP_PREWARM` | a target ISA (`gfx942`, or a full name): the COMGR shim does the first translation's one-time work for it on a background thread when it is loaded | unset |
//!
//! A flag is on when set to anything but empty, `0`, `false`, `no` or `off` (any case). Values that
//! do not parse are listed in [`Env::errors`]; a caller that fails closed refuses to translate
//! while there are any.
//!
//! [`Env::from_lookup`] takes any lookup function, so tests pass explicit maps instead of mutating
//! the process environment.

use std::collections::HashMap;
use std::path::PathBuf;

pub const SOURCE_TARGET: &str = "HSA_HOTSWAP_SOURCE_TARGET";
pub const ISA_OVERRIDE: &str = "HSA_HOTSWAP_ISA_OVERRIDE";
pub const STRICT: &str = "HSA_HOTSWAP_STRICT";
pub const DISABLE: &str = "HSA_HOTSWAP_DISABLE";
pub const VERBOSE: &str = "HSA_HOTSWAP_VERBOSE";
pub const CACHE_DIR: &str = "HSA_HOTSWAP_CACHE_DIR";
pub const CACHE_DISABLE: &str = "HSA_HOTSWAP_CACHE_DISABLE";
pub const CACHE_READONLY: &str = "HSA_HOTSWAP_CACHE_READONLY";
pub const CACHE_SKIP_KERNELS: &str = "HSA_HOTSWAP_CACHE_SKIP_KERNELS";
pub const PREWARM: &str = "HSA_HOTSWAP_PREWARM";
pub const PAIR_GROUPS: &str = "HSA_HOTSWAP_PAIR_GROUPS";

/// Every variable [`Env`] reads.
pub const ALL: [&str; 11] = [
    SOURCE_TARGET,
    ISA_OVERRIDE,
    STRICT,
    DISABLE,
    VERBOSE,
    CACHE_DIR,
    CACHE_DISABLE,
    CACHE_READONLY,
    CACHE_SKIP_KERNELS,
    PREWARM,
    PAIR_GROUPS,
];

/// `HSA_HOTSWAP_SOURCE_TARGET`: the processor HotSwap translates from and its wave size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTarget {
    pub processor: String,
    pub wave_size: u32,
}

impl Default for SourceTarget {
    fn default() -> Self {
        SourceTarget { processor: "gfx1250".into(), wave_size: 32 }
    }
}

impl SourceTarget {
    /// Parses `gfx1250:32` (the wave size may be left out: `gfx1250` means its only wave size).
    pub fn parse(s: &str) -> Result<SourceTarget, String> {
        let s = s.trim();
        let (proc_, wave) = match s.split_once(':') {
            Some((p, w)) => (p, Some(w)),
            None => (s, None),
        };
        if proc_.is_empty() || !proc_.starts_with("gfx") || !proc_[3..].chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("{SOURCE_TARGET}=`{s}`: expected a processor and wave size such as `gfx1250:32`"));
        }
        let wave_size = match wave {
            None => 32,
            Some(w) => match w.parse::<u32>() {
                Ok(n @ (32 | 64)) => n,
                _ => return Err(format!("{SOURCE_TARGET}=`{s}`: wave size `{w}` is not 32 or 64")),
            },
        };
        Ok(SourceTarget { processor: proc_.to_string(), wave_size })
    }
}

/// The parsed environment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Env {
    pub source_target: SourceTarget,
    pub isa_override: Option<String>,
    /// None: not set, use the library default.
    pub strict: Option<bool>,
    pub disable: bool,
    pub verbose: u32,
    /// The resolved cache directory (None when no variable gives one, e.g. no HOME).
    pub cache_dir: Option<PathBuf>,
    pub cache_disable: bool,
    pub cache_read_only: bool,
    pub cache_skip_kernels: Vec<String>,
    /// The target ISA to prewarm for when the shim is loaded (not checked here).
    pub prewarm: Option<String>,
    /// Pair work-groups in per-kernel calls (`hotswap::Options::pair_groups`).
    pub pair_groups: bool,
    /// Values that did not parse.
    pub errors: Vec<String>,
}

/// Whether a flag value means "on".
pub fn flag_on(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    !(v.is_empty() || v == "0" || v == "false" || v == "no" || v == "off")
}

/// Splits a comma-separated list, trimming and dropping empty items.
pub fn split_list(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(str::to_string).collect()
}

impl Env {
    /// Reads the variables through `lookup` (name -> value).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Env {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let mut env = Env::default();
        if let Some(v) = get(SOURCE_TARGET) {
            match SourceTarget::parse(&v) {
                Ok(t) => env.source_target = t,
                Err(e) => env.errors.push(e),
            }
        }
        env.isa_override = get(ISA_OVERRIDE).map(|v| v.trim().to_string());
        env.strict = get(STRICT).map(|v| flag_on(&v));
        env.disable = get(DISABLE).is_some_and(|v| flag_on(&v));
        env.verbose = match get(VERBOSE) {
            None => 0,
            Some(v) => v.trim().parse::<u32>().unwrap_or(if flag_on(&v) { 1 } else { 0 }),
        };
        env.cache_dir = resolve_cache_dir(&get);
        env.cache_disable = get(CACHE_DISABLE).is_some_and(|v| flag_on(&v));
        env.cache_read_only = get(CACHE_READONLY).is_some_and(|v| flag_on(&v));
        env.cache_skip_kernels = get(CACHE_SKIP_KERNELS).map(|v| split_list(&v)).unwrap_or_default();
        env.prewarm = get(PREWARM).map(|v| v.trim().to_string());
        env.pair_groups = get(PAIR_GROUPS).is_some_and(|v| flag_on(&v));
        env
    }

    pub fn from_map(map: &HashMap<String, String>) -> Env {
        Env::from_lookup(|k| map.get(k).cloned())
    }

    /// Reads the process environment.
    pub fn from_process() -> Env {
        Env::from_lookup(|k| std::env::var(k).ok())
    }
}

/// `HSA_HOTSWAP_CACHE_DIR`, else `$XDG_CACHE_HOME/rocm/hotswap` (XDG says a relative value is
/// ignored), else `$HOME/.cache/rocm/hotswap`.
fn resolve_cache_dir(get: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(d) = get(CACHE_DIR) {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = get("XDG_CACHE_HOME").filter(|x| x.starts_with('/')) {
        return Some(PathBuf::from(x).join("rocm").join("hotswap"));
    }
    get("HOME").map(|h| PathBuf::from(h).join(".cache").join("rocm").join("hotswap"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Env::from_map(&m)
    }

    #[test]
    fn defaults() {
        let e = env(&[]);
        assert_eq!(e.source_target, SourceTarget { processor: "gfx1250".into(), wave_size: 32 });
        assert_eq!(e.isa_override, None);
        assert_eq!(e.strict, None);
        assert!(!e.disable && !e.cache_disable && !e.cache_read_only);
        assert_eq!(e.verbose, 0);
        assert_eq!(e.cache_dir, None);
        assert_eq!(e.prewarm, None);
        assert!(e.errors.is_empty());
    }

    #[test]
    fn prewarm_target() {
        assert_eq!(env(&[(PREWARM, " gfx950 ")]).prewarm.as_deref(), Some("gfx950"));
        assert_eq!(env(&[(PREWARM, "")]).prewarm, None);
    }

    #[test]
    fn cache_dir_precedence() {
        let home = [("HOME", "/home/u")];
        assert_eq!(env(&home).cache_dir, Some(PathBuf::from("/home/u/.cache/rocm/hotswap")));
        let xdg = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")];
        assert_eq!(env(&xdg).cache_dir, Some(PathBuf::from("/xdg/rocm/hotswap")));
        let rel = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "relative")];
        assert_eq!(env(&rel).cache_dir, Some(PathBuf::from("/home/u/.cache/rocm/hotswap")));
        let all = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg"), (CACHE_DIR, "/explicit")];
        assert_eq!(env(&all).cache_dir, Some(PathBuf::from("/explicit")));
        let empty = [("HOME", "/home/u"), (CACHE_DIR, "")];
        assert_eq!(env(&empty).cache_dir, Some(PathBuf::from("/home/u/.cache/rocm/hotswap")));
    }

    #[test]
    fn flags() {
        for on in ["1", "true", "YES", "on", "2"] {
            let e = env(&[(STRICT, on), (DISABLE, on), (CACHE_DISABLE, on), (CACHE_READONLY, on)]);
            assert_eq!(e.strict, Some(true), "{on}");
            assert!(e.disable && e.cache_disable && e.cache_read_only, "{on}");
        }
        for off in ["0", "false", "No", "off", " "] {
            let e = env(&[(STRICT, off), (DISABLE, off)]);
            assert!(!e.disable, "{off:?}");
            let expect = if off.trim().is_empty() { None } else { Some(false) };
            assert_eq!(e.strict, expect, "{off:?}");
        }
    }

    #[test]
    fn verbose_levels() {
        assert_eq!(env(&[(VERBOSE, "2")]).verbose, 2);
        assert_eq!(env(&[(VERBOSE, "yes")]).verbose, 1);
        assert_eq!(env(&[(VERBOSE, "0")]).verbose, 0);
    }

    #[test]
    fn source_target() {
        assert_eq!(SourceTarget::parse("gfx1250:32").unwrap().wave_size, 32);
        assert_eq!(SourceTarget::parse("gfx1250").unwrap(), SourceTarget::default());
        assert_eq!(SourceTarget::parse("gfx1251:64").unwrap().processor, "gfx1251");
        for bad in ["1250:32", "gfx1250:16", "gfx1250:x", "", "gfx12 50"] {
            assert!(SourceTarget::parse(bad).is_err(), "{bad:?}");
        }
        let e = env(&[(SOURCE_TARGET, "gfx1250:48")]);
        assert_eq!(e.source_target, SourceTarget::default());
        assert_eq!(e.errors.len(), 1);
        assert!(e.errors[0].contains("gfx1250:48"));
    }

    #[test]
    fn override_and_skip_list() {
        let e = env(&[(ISA_OVERRIDE, " gfx950 "), (CACHE_SKIP_KERNELS, "a, b,,c ")]);
        assert_eq!(e.isa_override.as_deref(), Some("gfx950"));
        assert_eq!(e.cache_skip_kernels, vec!["a", "b", "c"]);
    }
}
