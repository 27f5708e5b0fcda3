//! The `hotswap-xlate` command.
//!
//!   hotswap-xlate IN --target gfx942 [-o OUT]   translate a gfx1250 code object (fails closed
//!                                               until the raise/lower/relink stages land)
//!   hotswap-xlate inspect FILE [--json]         describe a code object or offload bundle

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "hotswap-xlate", version, about = "Load-time translator of gfx1250 code objects to gfx942/gfx950")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Input code object or offload bundle (gfx1250).
    input: Option<PathBuf>,
    /// Target processor: gfx942 or gfx950.
    #[arg(long, default_value = "gfx942")]
    target: String,
    /// Output file.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Optimisation level of the lowering (0-3).
    #[arg(short = 'O', long = "opt-level", default_value = "2")]
    opt_level: String,
}

#[derive(Subcommand)]
enum Command {
    /// Print target ID, kernels, descriptor fields, metadata, sections, symbols and bundle entries.
    Inspect {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hotswap-xlate: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Inspect { file, json }) => {
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let report = hotswap::inspect::inspect(&bytes).with_context(|| format!("inspecting {}", file.display()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", hotswap::inspect::render_text(&report));
            }
            Ok(())
        }
        None => {
            let Some(input) = cli.input else { bail!("no input file given (see --help)") };
            let target = hotswap::GpuTarget::from_cpu(&cli.target)
                .filter(|t| *t != hotswap::GpuTarget::Gfx1250)
                .with_context(|| format!("unknown target {} (expected gfx942 or gfx950)", cli.target))?;
            let opt_level = hotswap::OptLevel::parse(&cli.opt_level)
                .with_context(|| format!("unknown optimisation level {}", cli.opt_level))?;
            let bytes = std::fs::read(&input).with_context(|| format!("reading {}", input.display()))?;
            let options = hotswap::Options { target, opt_level, ..Default::default() };
            let out = hotswap::translate(&bytes, &options).with_context(|| format!("translating {}", input.display()))?;
            let path = cli.output.unwrap_or_else(|| input.with_extension(format!("{}.hsaco", target.cpu())));
            std::fs::write(&path, &out.bytes).with_context(|| format!("writing {}", path.display()))?;
            Ok(())
        }
    }
}
