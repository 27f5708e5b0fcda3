//! Links the libLLVM shared library that ships inside the Rust toolchain (see shared/LLVM.md).
//! No llvm-config is needed: the library is found in `$(rustc --print sysroot)/lib`, its name is
//! derived from the file found, and an rpath is set so binaries, tests and cdylibs load it.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .expect("hx-llvm build: cannot run `rustc --print sysroot`");
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
    let libdir = sysroot.join("lib");
    let mut found = None;
    for entry in std::fs::read_dir(&libdir).expect("hx-llvm build: cannot read <sysroot>/lib") {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        // libLLVM-22-rust-1.95.0-stable.so -> LLVM-22-rust-1.95.0-stable
        if let Some(stem) = name.strip_prefix("lib").and_then(|n| n.strip_suffix(".so")) {
            if stem.starts_with("LLVM-") {
                found = Some(stem.to_string());
            }
        }
    }
    let lib = found.unwrap_or_else(|| {
        panic!("hx-llvm build: no libLLVM-*.so in {} (the Rust toolchain ships one)", libdir.display())
    });
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib={lib}");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
    // Exported to dependents (DEP_HX_LLVM_RUST_TOOLCHAIN_*) so their build scripts can set the rpath too.
    println!("cargo:libdir={}", libdir.display());
    println!("cargo:lib={lib}");
}
