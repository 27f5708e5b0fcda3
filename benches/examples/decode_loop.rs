//! Decodes the corpus stream many times: a steady workload for profilers (callgrind).
fn main() {
    let target = hotswap::isa::Target::Gfx1250;
    let code = hx_benches::decodable_corpus_code(target);
    let mut n = 0usize;
    for _ in 0..200 {
        let mut at = 0;
        while at < code.len() {
            let i = hotswap::isa::decode(target, &code, at).unwrap();
            at += i.len as usize;
            n += 1;
        }
    }
    println!("{n}");
}
