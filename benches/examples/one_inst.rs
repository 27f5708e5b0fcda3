// temp: decode one instruction word repeatedly (callgrind per-format costs)
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let target = match a[1].as_str() { "gfx942" => hotswap::isa::Target::Gfx942, _ => hotswap::isa::Target::Gfx1250 };
    let words: Vec<u32> = a[2].split(',').map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).unwrap()).collect();
    let n: usize = a[3].parse().unwrap();
    let mut bytes = Vec::new();
    for _ in 0..1000 { for w in &words { bytes.extend_from_slice(&w.to_le_bytes()); } }
    let mut i = hotswap::isa::Instruction::empty(target);
    let mut c = 0usize;
    for _ in 0..n {
        let mut at = 0;
        while at < bytes.len() {
            hotswap::isa::decode_into(target, &bytes, at, &mut i).unwrap();
            std::hint::black_box(&i);
            at += i.len as usize;
            c += 1;
        }
    }
    println!("{c} {}", i.text());
}
