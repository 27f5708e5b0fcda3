//! hx-lower's build script.
//!
//! 1. Binaries and tests of this package load the toolchain's libLLVM at run time: they get its
//!    rpath (hx-llvm exports the directory through its `links` metadata).
//! 2. The codegen pipeline shim (shim/codegen_pipeline.cpp) is compiled with the `cc` crate against
//!    LLVM 22 C++ headers: `LLVM22_INCLUDE`, else /usr/lib/llvm-22/include (Debian's llvm-22-dev).
//!    It is linked to the same libLLVM as the rest (the Rust toolchain's, which exports LLVM's C++
//!    API), never to a second LLVM. The headers' major.minor must equal the library's; otherwise,
//!    or without headers or a C++ compiler, the crate builds without the shim (cfg
//!    `hx_codegen_shim` unset), emits through the C API, and says so in a cargo warning.
//!    `HX_NO_CODEGEN_SHIM=1` builds without it on purpose (to test the fallback).
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=shim/codegen_pipeline.cpp");
    println!("cargo:rerun-if-env-changed=LLVM22_INCLUDE");
    println!("cargo:rerun-if-env-changed=HX_NO_CODEGEN_SHIM");
    println!("cargo::rustc-check-cfg=cfg(hx_codegen_shim)");
    let libdir = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIBDIR").ok();
    if let Some(dir) = &libdir {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    match build_shim(libdir.as_deref().map(Path::new)) {
        Ok(version) => {
            println!("cargo:rustc-cfg=hx_codegen_shim");
            println!("cargo:rustc-env=HX_CODEGEN_SHIM_HEADERS={version}");
        }
        Err(why) => {
            println!("cargo:warning=hx-lower: codegen pipeline shim not built ({why}); emitting through LLVM's C API, which rebuilds the codegen pipeline on every emit (slower, same bytes)");
            println!("cargo:rustc-env=HX_CODEGEN_SHIM_HEADERS=");
            println!("cargo:rustc-env=HX_CODEGEN_SHIM_MISSING={why}");
        }
    }
}

/// `LLVM_VERSION_<what>` from llvm-config.h.
fn header_version(config: &str, what: &str) -> Option<u32> {
    let key = format!("#define LLVM_VERSION_{what} ");
    config.lines().find_map(|l| l.strip_prefix(&key)).and_then(|v| v.trim().parse().ok())
}

/// (major, minor) of the toolchain's libLLVM, from its versioned file name
/// `libLLVM.so.<major>.<minor>-rust-...` in `libdir`.
fn library_version(libdir: &Path) -> Option<(u32, u32)> {
    std::fs::read_dir(libdir).ok()?.flatten().find_map(|e| {
        let name = e.file_name().to_string_lossy().to_string();
        let rest = name.strip_prefix("libLLVM.so.")?;
        let ver = rest.split('-').next()?;
        let (major, minor) = ver.split_once('.')?;
        Some((major.parse().ok()?, minor.parse().ok()?))
    })
}

fn build_shim(libdir: Option<&Path>) -> Result<String, String> {
    if std::env::var_os("HX_NO_CODEGEN_SHIM").is_some_and(|v| !v.is_empty() && v != "0") {
        return Err("HX_NO_CODEGEN_SHIM is set".into());
    }
    let include = std::env::var_os("LLVM22_INCLUDE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/include"));
    let config_h = include.join("llvm/Config/llvm-config.h");
    let config = std::fs::read_to_string(&config_h)
        .map_err(|_| format!("no LLVM 22 C++ headers: {} missing; set LLVM22_INCLUDE or install llvm-22-dev", config_h.display()))?;
    println!("cargo:rerun-if-changed={}", config_h.display());
    let (Some(hmajor), Some(hminor), patch) = (header_version(&config, "MAJOR"), header_version(&config, "MINOR"), header_version(&config, "PATCH"))
    else {
        return Err(format!("{} has no LLVM_VERSION_MAJOR/MINOR", config_h.display()));
    };
    let libdir = libdir.ok_or("hx-llvm did not say where the toolchain's libLLVM is")?;
    let (lmajor, lminor) =
        library_version(libdir).ok_or_else(|| format!("no libLLVM.so.<major>.<minor>-* in {} to check the headers against", libdir.display()))?;
    if (hmajor, hminor) != (lmajor, lminor) {
        return Err(format!(
            "headers in {} are LLVM {hmajor}.{hminor}, the toolchain's libLLVM is {lmajor}.{lminor}: the C++ ABI may differ",
            include.display()
        ));
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/codegen_pipeline.cpp")
        .include(&include)
        .std("c++17")
        // LLVM is built without RTTI and exceptions; the shim defines no classes of its own
        // that derive from LLVM's.
        .flag_if_supported("-fno-rtti")
        .flag_if_supported("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        // The toolchain's libLLVM carries (and exports) the C++ runtime it was built with: the
        // shim links to nothing else.
        .cpp_link_stdlib(None)
        .cargo_warnings(false);
    build.try_compile("hx_codegen_shim").map_err(|e| format!("compiling shim/codegen_pipeline.cpp failed: {e}"))?;
    Ok(format!("{hmajor}.{hminor}.{}", patch.unwrap_or(0)))
}
