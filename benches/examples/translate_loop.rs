//! Translates one code object many times: a steady workload for profilers.
//! `valgrind --tool=callgrind target/release/examples/translate_loop corpus/gfx1250/saxpy.hsaco 10`
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().map(String::as_str).unwrap_or("corpus/gfx1250/saxpy.hsaco");
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(10);
    let bytes = std::fs::read(path)?;
    let o = hotswap::Options { target: hotswap::GpuTarget::Gfx942, ..Default::default() };
    let mut total = 0;
    for _ in 0..n {
        total += hotswap::translate(&bytes, &o)?.bytes.len();
    }
    println!("{total}");
    Ok(())
}
