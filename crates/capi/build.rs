// The cdylib loads the toolchain's libLLVM at run time: give it the rpath (hx-llvm exports the
// directory through its `links` metadata), and give it a SONAME, libhotswap_capi.so.0, with a
// file of that name beside the build output (a symlink to libhotswap_capi.so) so that a program
// linked against the build output runs (`cargo xtask install` lays out the same links, with the
// real file named by the full version, and rewrites the rpath to $ORIGIN). Also renders an uninstalled
// pkg-config file, <target>/<profile>/pkgconfig/hotswap-capi.pc, whose libdir is the build output
// directory and includedir this crate's include/ (an install step renders the same template with
// its own prefix).
use std::path::{Path, PathBuf};

pub fn render_pc(template: &str, prefix: &Path, libdir: &Path, includedir: &Path, version: &str) -> String {
    template
        .replace("@PREFIX@", &prefix.display().to_string())
        .replace("@LIBDIR@", &libdir.display().to_string())
        .replace("@INCLUDEDIR@", &includedir.display().to_string())
        .replace("@VERSION@", version)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=hotswap-capi.pc.in");
    if let Ok(dir) = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhotswap_capi.so.0");

    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else { return };
    let template = std::fs::read_to_string(manifest.join("hotswap-capi.pc.in")).expect("hotswap-capi.pc.in");
    let pc = render_pc(
        &template,
        profile_dir,
        profile_dir,
        &manifest.join("include"),
        &std::env::var("CARGO_PKG_VERSION").unwrap(),
    );
    let link = profile_dir.join("libhotswap_capi.so.0");
    if std::fs::symlink_metadata(&link).is_err() {
        let _ = std::os::unix::fs::symlink("libhotswap_capi.so", &link);
    }
    let dir = profile_dir.join("pkgconfig");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("hotswap-capi.pc"), pc);
    }
}
