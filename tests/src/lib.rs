//! Shared helpers of the end-to-end tests.

use hx_llvm::GpuTarget;
use std::path::PathBuf;

/// Every checked-in corpus code object: (target, object name, path), sorted.
pub fn corpus_objects() -> Vec<(GpuTarget, String, PathBuf)> {
    let mut out = Vec::new();
    for t in GpuTarget::ALL {
        let dir = hx_corpus::corpus_dir().join(t.cpu());
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "hsaco") {
                out.push((t, p.file_stem().unwrap().to_string_lossy().to_string(), p));
            }
        }
    }
    out.sort();
    out
}

/// One corpus object for tests that mutate a real input.
pub fn sample_object(target: GpuTarget) -> Vec<u8> {
    let (_, _, path) = corpus_objects()
        .into_iter()
        .find(|(t, _, _)| *t == target)
        .expect("the corpus has objects for every target (run `cargo xtask corpus`)");
    std::fs::read(path).unwrap()
}

/// Runs one corpus launch in the emulator: the object built for `target`, inputs from `seed`.
/// Returns every argument after the run (buffers with their final contents) and the counts.
pub fn run_corpus_launch(
    target: GpuTarget,
    object: &str,
    launch: &hx_corpus::Launch,
    seed: u64,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    let path = hx_corpus::corpus_dir().join(target.cpu()).join(format!("{object}.hsaco"));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    run_launch_bytes(&bytes, &format!("{target}/{object}"), launch, seed)
}

/// Runs one corpus launch on the code object `bytes` (any target) in the emulator.
pub fn run_launch_bytes(
    bytes: &[u8],
    label: &str,
    launch: &hx_corpus::Launch,
    seed: u64,
) -> Result<(Vec<hx_corpus::ArgData>, hx_emu::Stats), String> {
    let co = hx_codeobj::CodeObject::parse(bytes).map_err(|e| e.to_string())?;
    let inputs = hx_corpus::make_inputs(launch, seed);
    let args: Vec<hx_emu::launch::Arg> = inputs
        .iter()
        .map(|a| match a {
            hx_corpus::ArgData::Buffer(b) => hx_emu::launch::Arg::Buffer(b.clone()),
            hx_corpus::ArgData::Value(v) => hx_emu::launch::Arg::Value(v.clone()),
        })
        .collect();
    let dispatch = hx_emu::Dispatch { grid: launch.grid, block: launch.block, dynamic_lds: launch.dynamic_lds };
    let r = hx_emu::launch::launch(&co, &launch.kernel, &dispatch, &args, &hx_emu::Limits::default())
        .map_err(|e| format!("{label}/{}: {e}", launch.kernel))?;
    let out = r
        .args
        .into_iter()
        .map(|a| match a {
            hx_emu::launch::Arg::Buffer(b) => hx_corpus::ArgData::Buffer(b),
            hx_emu::launch::Arg::Value(v) => hx_corpus::ArgData::Value(v),
        })
        .collect();
    Ok((out, r.stats))
}
