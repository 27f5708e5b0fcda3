use anyhow::{bail, Result};

use hx_isa_gen as isa_tables;

const USAGE: &str = "usage: cargo xtask <command>
  corpus [--check]   compile corpus/kernels/*.ll for the targets each lists (default gfx1250,
                     gfx942, gfx950) and link them
                     into corpus/<target>/<name>.hsaco (--check: compare, write nothing)
  triton [--check] [CASE...]
                     build corpus/triton with Triton 3.9 and numpy from PyPI (a venv under
                     target/, or HX_TRITON_PYTHON): objects for gfx1250, gfx942, gfx950, launch
                     descriptions, inputs, numpy's expected outputs (--check: rebuild elsewhere
                     and compare)
  hip [--check]      build corpus/hip with Debian's clang-22, ld.lld-22 and llc-22: HIP, OpenCL C
                     and llc-built objects for gfx1250, gfx942, gfx950, launch descriptions,
                     inputs and the Rust host references' expected outputs (--check: rebuild
                     elsewhere and compare; skipped with a message when the tools are missing)
  tables             regenerate crates/isa/src/tables/*.rs from LLVM's disassembler
                     (checked by crates/isa/tests/tables_fresh.rs)
  fast-tables        regenerate crates/isa/src/tables/fast_*.rs, the decoder fast path's value
                     tables (run after `tables`; checked by crates/isa/tests/fast_tables_fresh.rs)
  tables-one TARGET FORMAT OPCODE
                     fit one opcode and print its entry (HX_TABLES_DEBUG=1: every rejected kind)
  build-one IR TARGET OUT
                     compile one LLVM IR file for gfx1250|gfx942|gfx950 and link it to OUT
  bench [--quick] [--out FILE] [--only 1b,9]
                     run the benchmarks (crate hx-benches, release) and write BENCHMARKS.md
                     with machine, date, commit and command (--quick: one run of each, to check;
                     --only: run these sections and splice them into the existing file)
  install --prefix DIR [--from PROFILE_DIR]
                     build (release) and install libamd_comgr.so.3, libhotswap_capi, libLLVM,
                     hotswap-xlate, headers, pkg-config and share/hotswap/env.sh under DIR
                     (--from: install what is already built there, build nothing)
  fuzz TARGET [--time S] [--jobs N] [-- LIBFUZZER ARGS]
                     build fuzz/ (libFuzzer, stable toolchain) and run TARGET for S seconds
                     (default 60) seeded from the corpus; TARGET `list` prints the targets";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("corpus") => {
            let check = args.iter().any(|a| a == "--check");
            let differ = xtask::corpus::build(check)?;
            if check && !differ.is_empty() {
                for d in &differ {
                    eprintln!("differs: {}", d.display());
                }
                bail!("{} corpus objects differ from a rebuild", differ.len());
            }
            Ok(())
        }
        Some("triton") => {
            let check = args.iter().any(|a| a == "--check");
            let cases: Vec<String> = args[1..].iter().filter(|a| !a.starts_with("--")).cloned().collect();
            let differ = xtask::triton::build(check, &cases)?;
            if check && !differ.is_empty() {
                for d in &differ {
                    eprintln!("differs: {}", d.display());
                }
                bail!("{} corpus/triton files differ from a rebuild", differ.len());
            }
            Ok(())
        }
        Some("hip") => {
            let check = args.iter().any(|a| a == "--check");
            let differ = xtask::hip::build(check)?;
            if check && !differ.is_empty() {
                for d in &differ {
                    eprintln!("differs: {}", d.display());
                }
                bail!("{} corpus/hip files differ from a rebuild", differ.len());
            }
            Ok(())
        }
        Some("bench") => {
            let quick = args.iter().any(|a| a == "--quick");
            let out = args.iter().position(|a| a == "--out").and_then(|i| args.get(i + 1)).map(std::path::PathBuf::from);
            let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
            xtask::bench::run(quick, out.as_deref(), only.as_deref())
        }
        Some("install") => {
            let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(std::path::PathBuf::from);
            let prefix = value("--prefix").ok_or_else(|| anyhow::anyhow!("install needs --prefix DIR"))?;
            xtask::install::run(&prefix, value("--from").as_deref())
        }
        Some("fuzz") if args.len() >= 2 => {
            if args[1] == "list" {
                xtask::fuzz::TARGETS.iter().for_each(|(t, _)| println!("{t}"));
                return Ok(());
            }
            let (ours, extra) = args.split_at(args.iter().position(|a| a == "--").unwrap_or(args.len()));
            let flag = |f: &str| ours.iter().position(|a| a == f).and_then(|i| ours.get(i + 1)).map(|v| v.parse::<u64>()).transpose();
            let time = flag("--time")?.unwrap_or(60);
            let jobs = flag("--jobs")?.unwrap_or(1) as u32;
            xtask::fuzz::run(&args[1], time, jobs, extra.get(1..).unwrap_or(&[]))
        }
        Some("tables") => {
            let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/isa/src/tables");
            isa_tables::generate(&out)
        }
        Some("fast-tables") => {
            let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/isa/src/tables");
            for target in hx_isa::Target::ALL {
                let path = out.join(format!("fast_{}.rs", target.cpu()));
                std::fs::write(&path, hx_isa::fast_tables_source(target))
                    .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            }
            Ok(())
        }
        Some("tables-one") if args.len() == 4 => {
            let target = [isa_tables::spec::Target::Gfx1250, isa_tables::spec::Target::Gfx942, isa_tables::spec::Target::Gfx950]
                .into_iter()
                .find(|t| t.cpu() == args[1])
                .ok_or_else(|| anyhow::anyhow!("unknown target {}", args[1]))?;
            let format = isa_tables::FORMATS
                .into_iter()
                .find(|f| f.name().eq_ignore_ascii_case(&args[2]))
                .ok_or_else(|| anyhow::anyhow!("unknown format {}", args[2]))?;
            let op = u32::from_str_radix(args[3].trim_start_matches("0x"), 16)?;
            println!("{}", isa_tables::generate_one(target, format, op)?);
            Ok(())
        }
        Some("build-one") if args.len() == 4 => {
            let target = hx_llvm::GpuTarget::from_cpu(&args[2])
                .ok_or_else(|| anyhow::anyhow!("unknown target {}", args[2]))?;
            let work = std::env::temp_dir().join(format!("hx-build-one-{}", std::process::id()));
            let bytes = xtask::corpus::build_one(std::path::Path::new(&args[1]), target, &work)?;
            std::fs::write(&args[3], bytes)?;
            let _ = std::fs::remove_dir_all(&work);
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            bail!("unknown or missing command");
        }
    }
}
