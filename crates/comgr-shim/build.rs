// The cdylib is a COMGR drop-in: installed as libamd_comgr.so.3 it carries that SONAME, and the
// HotSwap entry points carry COMGR's symbol versions (amd_comgr_3.2/3.4/3.6).
//
// rustc gives a cdylib its own (anonymous) version script listing the exported symbols, so a
// second script cannot move those symbols into named versions. Instead the Rust functions are
// exported as `hotswap_comgr_impl_<name>`, and this script assembles a small object, linked into
// the cdylib only, in which `<name>@@<version>` is a jump to each; the version script passed with
// it defines the version nodes. The rlib (tests, in-process callers) is not affected.
//
// The cdylib also loads the toolchain's libLLVM at run time: it gets that rpath (hx-llvm exports
// the directory through its `links` metadata); `cargo xtask install` rewrites it to $ORIGIN.
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

include!("src/symbol_versions.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/symbol_versions.rs");
    if let Ok(dir) = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    // Part of the cache identifier: which libLLVM build translates.
    let llvm = std::env::var("DEP_HX_LLVM_RUST_TOOLCHAIN_LIB").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=HX_LIBLLVM_NAME={llvm}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamd_comgr.so.3");
    // HSA_HOTSWAP_PREWARM runs a thread in the library: dlclose must never unmap it (prewarm.rs).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let mut versions: Vec<&str> = Vec::new();
    for (_, v) in VERSIONED {
        if !versions.contains(v) {
            versions.push(v);
        }
    }
    let mut map = String::new();
    let mut previous: Option<&str> = None;
    for v in &versions {
        match previous {
            None => writeln!(map, "{v} {{ }};").unwrap(),
            Some(p) => writeln!(map, "{v} {{ }} {p};").unwrap(),
        }
        previous = Some(v);
    }
    let mut asm = String::from(".text\n");
    for (i, (name, version)) in VERSIONED.iter().enumerate() {
        let t = format!("hotswap_comgr_versioned_{i}");
        writeln!(asm, ".globl {t}\n.type {t},@function\n.p2align 4\n{t}:\n\tjmp hotswap_comgr_impl_{name}@PLT").unwrap();
        writeln!(asm, ".size {t}, .-{t}\n.symver {t}, {name}@@{version}").unwrap();
    }
    asm.push_str(".section .note.GNU-stack,\"\",@progbits\n");
    let map_path = out.join("amd_comgr.map");
    let asm_path = out.join("symbol_versions.s");
    let obj_path = out.join("symbol_versions.o");
    std::fs::write(&map_path, map).expect("write the version script");
    std::fs::write(&asm_path, asm).expect("write the symbol version aliases");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc).arg("-c").arg(&asm_path).arg("-o").arg(&obj_path).status();
    match status {
        Ok(s) if s.success() => {
            println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map_path.display());
            println!("cargo:rustc-cdylib-link-arg={}", obj_path.display());
        }
        other => panic!(
            "hotswap-comgr build: `{cc} -c {}` failed ({other:?}): the C compiler assembles the symbol-versioned COMGR entry points",
            asm_path.display()
        ),
    }
}
