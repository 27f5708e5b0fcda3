//! Developer probe of LLVM's disassembler:
//! `cargo run -p hx-isa --example probe -- gfx1250 0xbe8a0014 [...]` prints LLVM's text for each
//! argument (dwords separated by ':' form one instruction buffer); with `-` as the only word
//! argument it reads such words from stdin, one a line, flushing each answer (so a driver can see
//! where LLVM itself crashes).
use std::io::{BufRead, Write};

fn answer(d: &mut hx_llvm::Disassembler, a: &str) -> String {
    let mut bytes = Vec::new();
    for w in a.split(':') {
        let w = u32::from_str_radix(w.trim().trim_start_matches("0x"), 16).expect("hex");
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    match d.decode(&bytes, 0) {
        Some((n, s)) => format!("{a}: [{n}] {s}"),
        None => format!("{a}: <invalid>"),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let t = hx_llvm::GpuTarget::from_cpu(&args.next().expect("cpu")).expect("cpu name");
    let mut d = hx_llvm::Disassembler::new(t).expect("disasm");
    let words: Vec<String> = args.collect();
    if words == ["-"] {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout();
        for line in stdin.lock().lines() {
            let line = line.expect("stdin");
            if line.trim().is_empty() {
                continue;
            }
            let _ = writeln!(out, "{}", answer(&mut d, line.trim()));
            let _ = out.flush();
        }
        return;
    }
    for a in words {
        println!("{}", answer(&mut d, &a));
    }
}
