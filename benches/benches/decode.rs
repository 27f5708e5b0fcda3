//! Decode throughput: hotswap-xlate's decoder against LLVM's disassembler on the same bytes
//! (every corpus instruction the decoder handles), per target. Reported as bytes/s by criterion;
//! the instruction count per iteration is printed once so instructions/s follows.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hotswap::isa::Target;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    for target in Target::ALL {
        let code = hx_benches::decodable_corpus_code(target);
        let count = hotswap::isa::decode_all(target, &code).map(|v| v.len()).unwrap_or(0);
        eprintln!("{}: {} bytes, {count} instructions per iteration", target.cpu(), code.len());
        if code.is_empty() {
            continue;
        }
        let mut g = c.benchmark_group(format!("decode/{}", target.cpu()));
        g.throughput(Throughput::Bytes(code.len() as u64));
        // One instruction slot filled in place per decode (`decode_into`), as LLVM's
        // disassembler fills one MCInst.
        let mut i = hotswap::isa::Instruction::empty(target);
        g.bench_function("hotswap-xlate", |b| {
            b.iter(|| {
                let mut at = 0;
                let mut n = 0usize;
                while at < code.len() {
                    hotswap::isa::decode_into(target, black_box(&code), at, &mut i).unwrap();
                    at += i.len as usize;
                    n += i.operands().map(|o| o.raw as usize).sum::<usize>();
                }
                n
            })
        });
        g.bench_function("hotswap-xlate+text", |b| {
            b.iter(|| {
                let mut at = 0;
                let mut n = 0usize;
                while at < code.len() {
                    hotswap::isa::decode_into(target, black_box(&code), at, &mut i).unwrap();
                    at += i.len as usize;
                    n += i.text().len();
                }
                n
            })
        });
        let mut llvm = hx_llvm::Disassembler::new(hx_llvm::GpuTarget::from_cpu(target.cpu()).unwrap()).unwrap();
        g.bench_function("llvm", |b| {
            b.iter(|| {
                let mut at = 0;
                let mut n = 0usize;
                while at < code.len() {
                    let (len, text) = llvm.decode(black_box(&code[at..]), at as u64).unwrap();
                    at += len;
                    n += text.len();
                }
                n
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
