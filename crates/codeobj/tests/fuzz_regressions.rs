//! Inputs the coverage-guided fuzzer (`cargo xtask fuzz codeobj`) found to crash the parser,
//! kept as regression tests: each must parse to Ok or Err without a panic, and what parses must
//! give every kernel's and function's code without a panic. The files are the fuzzer's inputs
//! byte for byte (tests/fuzz_regressions/*.bin).

use hx_codeobj::CodeObject;

#[test]
fn fuzz_findings_parse_without_panicking() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        n += 1;
        if let Ok(co) = CodeObject::parse(&bytes) {
            for k in &co.kernels {
                assert_eq!(co.kernel_code(k).len() as u64, k.code_size, "{}: kernel {}", path.display(), k.name);
            }
            for f in &co.functions {
                assert_eq!(co.function_code(f).len() as u64, f.size, "{}: function {}", path.display(), f.name);
            }
        }
    }
    assert!(n >= 1, "no regression inputs in {}", dir.display());
}

/// The first finding: a kernel's code inside .text by address, but .text's file image did not
/// hold it (kernel_code sliced past the end of the file). Now an error naming the kernel's code.
#[test]
fn kernel_code_outside_the_file_is_an_error() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/codeobj-text-outside-file.bin");
    let err = CodeObject::parse(&std::fs::read(path).unwrap()).unwrap_err().to_string();
    assert!(err.contains("code of kernel") || err.contains("not inside .text"), "{err}");
}

/// The second finding: a note section whose offset plus size overflowed u64 (a panic with
/// overflow checks on, a skipped note without). Now an error.
#[test]
fn note_extent_past_u64_is_an_error() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/codeobj-note-size-overflow.bin");
    assert!(CodeObject::parse(&std::fs::read(path).unwrap()).is_err());
}

/// A finding of this stop's 12-million-execution run: a kernel without a function-symbol size
/// whose .text ends past 2^64 (address + size overflowed while looking for the code's end). Now
/// the end saturates and the kernel's code is refused by name as outside .text.
#[test]
fn text_end_past_u64_is_not_a_panic() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/codeobj-text-end-overflow.bin");
    let err = CodeObject::parse(&std::fs::read(path).unwrap()).unwrap_err().to_string();
    assert!(err.contains("kernel wmma_bf15") && err.contains("is not inside .text"), "{err}");
}
