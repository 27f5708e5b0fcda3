// The cdylib loads the toolchain's libLLVM at run time: give it the rpath (hx-llvm exports the
// directory through its `links` metadata), and give it a libhotswap_comgr.so.0.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if let Ok(dir) = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhotswap_comgr.so.0");
    // HSA_HOTSWAP_PREWARM runs a thread in the library: dlclose must never unmap it (prewarm.rs).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
}
