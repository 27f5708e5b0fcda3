//! Code quality on real compilers' code: every object of corpus/triton and corpus/hip that
//! translates, run in the emulator on the translation (the gfx1250 launch, as the runtime sends
//! it) and on the compiler's own native build for the same target (its native geometry), with the
//! same inputs. Prints a Markdown table for BENCHMARKS.md: dynamic wave-instructions translated /
//! native and VGPRs, then the median and worst ratio, over all objects and over those whose
//! gfx1250 work-groups hold 2 or more waves.
//!
//! usage: cargo run --release -p hx-benches --example compiled_quality [-- FILTER...]
//! (FILTERs: substrings of `suite/object`; the objects matching any are measured, all without.
//! `--detail` adds, per pair, the 25 mnemonics whose dynamic counts differ most (`--detail=N`: N
//! of them); `--pair-groups`
//! translates with `Options::pair_groups`; each translation's wall time goes to stderr.)

use hx_benches::quality::{registers, run_launch};

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn main() -> anyhow::Result<()> {
    println!("| suite/object | target | native insts | translated insts | ratio | VGPRs native/translated | waves per gfx1250 group |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut all = Vec::new();
    let mut multi = Vec::new();
    let mut worst: Option<(f64, String)> = None;
    // `--detail` lists 25 mnemonics, `--detail=N` N of them.
    let detail = std::env::args().find_map(|a| if a == "--detail" { Some(25) } else { a.strip_prefix("--detail=").and_then(|n| n.parse::<usize>().ok()) });
    let pair_groups = std::env::args().any(|a| a == "--pair-groups");
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    for suite in hx_corpus::COMPILED_SUITES {
        for obj in hx_corpus::compiled_suite(suite)? {
            if !obj.targets.iter().any(|t| t == "gfx1250") || !(filters.is_empty() || filters.iter().any(|f| obj.id().contains(f.as_str()))) {
                continue;
            }
            let source = std::fs::read(obj.object_path("gfx1250"))?;
            for target in [hotswap::GpuTarget::Gfx942, hotswap::GpuTarget::Gfx950] {
                if !obj.targets.iter().any(|t| t == target.cpu()) {
                    continue;
                }
                let start = std::time::Instant::now();
                let t = hotswap::translate(&source, &hotswap::Options { target, pair_groups, ..Default::default() });
                eprintln!("{} on {target}: translated in {:.2} s{}", obj.id(), start.elapsed().as_secs_f64(), if t.is_ok() { "" } else { " (refused)" });
                let Ok(t) = t else { continue };
                let native = std::fs::read(obj.object_path(target.cpu()))?;
                let (mut n_insts, mut t_insts) = (0u64, 0u64);
                let mut by_mnemonic: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
                let mut ok = true;
                for l in &obj.launches {
                    match (run_launch(&native, &l.for_target(target.cpu()), 0), run_launch(&t.bytes, l, 0)) {
                        (Ok(n), Ok(tr)) => {
                            n_insts += n.wave_instructions;
                            t_insts += tr.wave_instructions;
                            for (m, c) in n.by_mnemonic {
                                by_mnemonic.entry(m).or_default().0 += c;
                            }
                            for (m, c) in tr.by_mnemonic {
                                by_mnemonic.entry(m).or_default().1 += c;
                            }
                        }
                        _ => ok = false,
                    }
                }
                if !ok || n_insts == 0 {
                    continue;
                }
                let k = &obj.launches[0].kernel;
                let (nv, _) = registers(&native, k)?;
                let (tv, _) = registers(&t.bytes, k)?;
                let waves = obj.launches[0].block.iter().product::<u32>().div_ceil(32);
                let ratio = t_insts as f64 / n_insts as f64;
                println!("| {} | {target} | {n_insts} | {t_insts} | {ratio:.2} | {nv}/{tv} | {waves} |", obj.id());
                if let Some(lines) = detail {
                    let mut d: Vec<_> = by_mnemonic.into_iter().collect();
                    d.sort_by_key(|(_, (n, t))| std::cmp::Reverse(n.abs_diff(*t)));
                    for (m, (n, t)) in d.into_iter().take(lines) {
                        println!("    {m}: native {n}, translated {t}");
                    }
                }
                all.push(ratio);
                if waves >= 2 {
                    multi.push(ratio);
                    if worst.as_ref().is_none_or(|(w, _)| ratio > *w) {
                        worst = Some((ratio, format!("{} on {target}", obj.id())));
                    }
                }
            }
        }
    }
    println!();
    println!("{} (object, target) pairs: median ratio {:.2}, max {:.2}.", all.len(), median(all.clone()), all.iter().cloned().fold(f64::NAN, f64::max));
    if let Some((w, at)) = worst {
        println!("Work-groups of 2+ waves ({} pairs): median {:.2}, worst {w:.2} ({at}).", multi.len(), median(multi.clone()));
    }
    Ok(())
}
