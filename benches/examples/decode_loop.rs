//! Decodes the corpus stream many times: a steady workload for profilers (callgrind).
//! `decode_loop [gfx1250|gfx942|gfx950] [ours|llvm] [ROUNDS]`: the project's decoder (default)
//! or LLVM's disassembler over the same bytes, so the two can be counted side by side.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = match args.get(1).map(String::as_str) {
        Some("gfx942") => hotswap::isa::Target::Gfx942,
        Some("gfx950") => hotswap::isa::Target::Gfx950,
        _ => hotswap::isa::Target::Gfx1250,
    };
    let llvm = args.get(2).is_some_and(|a| a == "llvm");
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(200);
    let code = hx_benches::decodable_corpus_code(target);
    let mut n = 0usize;
    let started = std::time::Instant::now();
    if llvm {
        let mut d = hx_llvm::Disassembler::new(hx_llvm::GpuTarget::from_cpu(target.cpu()).unwrap()).unwrap();
        for _ in 0..rounds {
            let mut at = 0;
            while at < code.len() {
                let (len, text) = d.decode(&code[at..], at as u64).unwrap();
                std::hint::black_box(text);
                at += len;
                n += 1;
            }
        }
    } else {
        // One instruction slot filled in place per decode (`decode_into`), as LLVM's
        // disassembler fills one MCInst; the result stays observable (black_box).
        let mut i = hotswap::isa::Instruction::empty(target);
        for _ in 0..rounds {
            let mut at = 0;
            while at < code.len() {
                hotswap::isa::decode_into(target, &code, at, &mut i).unwrap();
                std::hint::black_box(&i);
                at += i.len as usize;
                n += 1;
            }
        }
    }
    println!("{n}");
    eprintln!("{:.1} ns/decode", started.elapsed().as_secs_f64() * 1e9 / n.max(1) as f64);
}
