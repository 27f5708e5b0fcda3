// Binaries and tests of this package load the toolchain's libLLVM at run time: give them its rpath
// (hx-llvm exports the directory through its `links` metadata).
fn main() {
    if let Ok(dir) = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
