//! Developer tool: decode with this crate (and LLVM, for comparison).
//! `cargo run -p hx-isa --example decode -- gfx1250 0xd700010a:0x04a23d14`
fn main() {
    let mut args = std::env::args().skip(1);
    let cpu = args.next().expect("cpu");
    let target = hx_isa::Target::ALL
        .into_iter()
        .find(|t| t.cpu() == cpu)
        .expect("target");
    let mut llvm =
        hx_llvm::Disassembler::new(hx_llvm::GpuTarget::from_cpu(&cpu).expect("cpu")).expect("llvm");
    for a in args {
        let mut bytes = Vec::new();
        for w in a.split(':') {
            let w = u32::from_str_radix(w.trim_start_matches("0x"), 16).expect("hex");
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.resize(bytes.len().max(16), 0);
        println!("{a}");
        println!("  llvm: {:?}", llvm.decode(&bytes, 0));
        match hx_isa::decode(target, &bytes, 0) {
            Ok(i) => println!("  ours: ({}, {:?})\n  info: {:?}", i.len, i.text(), i.info),
            Err(e) => {
                println!("  ours: {e}");
                let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                let f = hx_isa::classify(target, w);
                if let Some((_, _, s, wd)) = hx_isa::spec::format_encoding(target.family(), f) {
                    let op = (w >> s) & ((1 << wd) - 1);
                    println!(
                        "  info: {:?}",
                        hx_isa::tables::table(target, f).get(op as usize)
                    );
                }
            }
        }
    }
}
