//! Developer probe: `cargo run -p hx-isa --example probe -- gfx1250 0xbe8a0014 [...]` prints LLVM's text for
//! each little-endian 32-bit word sequence (words separated by ':' form one instruction buffer).
fn main() {
    let mut args = std::env::args().skip(1);
    let t = hx_llvm::GpuTarget::from_cpu(&args.next().expect("cpu")).expect("cpu name");
    let mut d = hx_llvm::Disassembler::new(t).expect("disasm");
    for a in args {
        let mut bytes = Vec::new();
        for w in a.split(':') {
            let w = u32::from_str_radix(w.trim_start_matches("0x"), 16).expect("hex");
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        match d.decode(&bytes, 0) {
            Some((n, s)) => println!("{a}: [{n}] {s}"),
            None => println!("{a}: <invalid>"),
        }
    }
}
