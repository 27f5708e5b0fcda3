//! Inputs shared by the benches.

use hotswap::codeobj::CodeObject;
use hotswap::isa::Target;

/// Every instruction of every corpus kernel and function for `target` that hotswap-xlate's
/// decoder handles, as one byte stream (instructions back to back). Both decoders in the decode
/// bench read exactly these bytes, so the comparison is like for like.
pub fn decodable_corpus_code(target: Target) -> Vec<u8> {
    let mut out = Vec::new();
    for obj in hx_corpus::objects().expect("corpus") {
        let path = hx_corpus::corpus_dir().join(target.cpu()).join(format!("{}.hsaco", obj.name));
        // Objects built only for some targets (gfx1250-only kernels) have no file for the others.
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let co = CodeObject::parse(&bytes).expect("corpus object parses");
        let mut regions: Vec<&[u8]> = co.kernels.iter().map(|k| co.kernel_code(k)).collect();
        regions.extend(co.functions.iter().map(|f| co.function_code(f)));
        for code in regions {
            let mut at = 0;
            while at < code.len() {
                match hotswap::isa::decode(target, code, at) {
                    Ok(i) => {
                        out.extend_from_slice(&code[at..at + i.len as usize]);
                        at += i.len as usize;
                    }
                    Err(_) => at += 4,
                }
            }
        }
    }
    out
}

pub mod measure;
pub mod quality;
pub mod scale;
pub mod shellout;
pub mod synth;

/// Passes options to LLVM's command line (as `llc` would take them, e.g. `-time-passes`), for
/// profiling runs of the bench tools. LLVM parses its command line once per process.
pub fn set_llvm_options(options: &[String]) -> anyhow::Result<()> {
    let owned: Vec<std::ffi::CString> = std::iter::once("hx-bench").chain(options.iter().map(String::as_str)).map(std::ffi::CString::new).collect::<Result<_, _>>()?;
    let pointers: Vec<*const std::ffi::c_char> = owned.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: the strings outlive the call; LLVM copies what it keeps.
    unsafe { hx_llvm::llvm_sys::support::LLVMParseCommandLineOptions(pointers.len() as i32, pointers.as_ptr(), std::ptr::null()) };
    Ok(())
}

/// Prints the reports the options of [`set_llvm_options`] asked for (`-time-passes` and the like
/// print when LLVM's managed statics are destroyed). LLVM must not be used afterwards.
pub fn print_llvm_reports() {
    // SAFETY: the callers run this last, after every use of LLVM in the process.
    unsafe { hx_llvm::llvm_sys::core::LLVMShutdown() };
}
