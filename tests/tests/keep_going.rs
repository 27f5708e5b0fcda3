//! Whole code objects as applications ship them: 300 kernels of which 5 use an instruction the
//! translator refuses. Lenient mode translates the 295 (each verified in the emulator against the
//! gfx1250 original) and gives the 5 trap stubs that keep symbol, descriptor and interface; the
//! report names the 5 with offset and mnemonic; strict mode lists all 5 in one error.

use hotswap::report::Status;
use hotswap::{GpuTarget, Options};
use hx_emu::launch::Arg;

const KERNELS: usize = 300;
/// The kernels that use the refused instruction.
const BAD: [usize; 5] = [3, 61, 150, 222, 299];
/// The refused instruction of each bad kernel: one hx-isa does not decode (LLVM names it) and
/// one it decodes but the raiser refuses (reading the HW_ID1 hwreg).
fn refused(i: usize) -> &'static str {
    if i % 2 == 1 {
        "v_permlane16_var_b32"
    } else {
        "s_getreg_b32"
    }
}

/// The object's IR: kernel k{i} stores `id * (i + 1) + i` to out[id]; the bad ones also run
/// the refused instruction (inline asm, so the compiler keeps it).
fn object_ir() -> String {
    let mut ir = String::new();
    for i in 0..KERNELS {
        let bad = if BAD.contains(&i) {
            let call = match refused(i) {
                "s_getreg_b32" => "call i32 asm sideeffect \"s_getreg_b32 $0, hwreg(HW_REG_WAVE_HW_ID1)\", \"=s\"()".to_string(),
                m => format!("call i32 asm sideeffect \"{m} $0, $1, $1\", \"=v,v\"(i32 %id)"),
            };
            format!("  %x = {call}\n  %w = add i32 %v, %x\n")
        } else {
            "  %w = add i32 %v, 0\n".to_string()
        };
        ir.push_str(&format!(
            "define amdgpu_kernel void @k{i}(ptr addrspace(1) %out) #0 {{\n  %id = call i32 @llvm.amdgcn.workitem.id.x()\n  %m = mul i32 %id, {}\n  %v = add i32 %m, {i}\n{bad}  %p = getelementptr i32, ptr addrspace(1) %out, i32 %id\n  store i32 %w, ptr addrspace(1) %p\n  ret void\n}}\n",
            i + 1
        ));
    }
    ir
}

fn source() -> Vec<u8> {
    let ir = hx_tests::kernel_ir(&object_ir());
    let rel = hx_llvm::compile_ir(&ir, "keep_going", GpuTarget::Gfx1250, hx_llvm::OptLevel::O1, hx_llvm::Emit::Object).unwrap();
    hx_relink::link(&rel).unwrap()
}

fn launch(bytes: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let co = hotswap::codeobj::CodeObject::parse(bytes).map_err(|e| e.to_string())?;
    let dispatch = hx_emu::Dispatch { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let r = hx_emu::launch::launch(&co, name, &dispatch, &[Arg::Buffer(vec![0xa5; 256])], &hx_emu::Limits::default()).map_err(|e| e.to_string())?;
    match &r.args[0] {
        Arg::Buffer(b) => Ok(b.clone()),
        Arg::Value(_) => Err("not a buffer".into()),
    }
}

#[test]
fn keep_going_translates_295_verified_kernels_and_traps_the_5_refused() {
    let source = source();
    let src_co = hotswap::codeobj::CodeObject::parse(&source).unwrap();
    assert_eq!(src_co.kernels.len(), KERNELS);
    let bad_names: Vec<String> = BAD.iter().map(|i| format!("k{i}")).collect();

    // Strict (the default): one error listing all 5, each with its offset and mnemonic.
    let e = hotswap::translate(&source, &Options::default()).unwrap_err();
    assert_eq!(e.kind(), hotswap::ErrorKind::Unsupported);
    let msg = e.to_string();
    assert!(msg.starts_with("5 kernels refused"), "{msg}");
    for (i, name) in BAD.iter().zip(&bad_names) {
        let line = msg.lines().find(|l| l.contains(&format!("kernel {name}, offset 0x"))).unwrap_or_else(|| panic!("{name} missing from: {msg}"));
        assert!(line.contains(refused(*i)), "{line}");
    }

    let options = Options { target: GpuTarget::Gfx942, strict: false, ..Default::default() };
    // With progress: every kernel counted once, never past the total.
    let seen = std::sync::Mutex::new(Vec::new());
    let t = hotswap::translate_with_progress(&source, &options, &|done, total| seen.lock().unwrap().push((done, total))).unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.iter().all(|&(d, t)| d <= t && t == KERNELS), "{seen:?}");
    assert_eq!(seen.iter().map(|&(d, _)| d).max(), Some(KERNELS));
    let out = hotswap::codeobj::CodeObject::parse(&t.bytes).unwrap();
    assert_eq!(out.processor(), Some("gfx942"));
    assert_eq!(out.kernels.len(), KERNELS, "every kernel keeps its symbol and descriptor");

    // The report: 295 translated, the 5 refused by offset and mnemonic. The offset is checked
    // against the source's own code: the instruction there decodes as the refused mnemonic.
    let report = &t.report;
    assert_eq!(report.count(Status::Translated), KERNELS - BAD.len());
    let refused_names: Vec<&str> = report.refused().map(|k| k.name.as_str()).collect();
    assert_eq!(refused_names, bad_names.iter().map(String::as_str).collect::<Vec<_>>());
    let mut llvm = hx_llvm::Disassembler::new(GpuTarget::Gfx1250).unwrap();
    for (i, k) in BAD.iter().zip(report.refused()) {
        let r = k.refusal.as_ref().unwrap();
        assert_eq!(r.mnemonic.as_deref(), Some(refused(*i)), "{}", k.name);
        // The one hx-isa does not decode is named by LLVM's disassembler, and says so.
        assert_eq!(r.reason.contains("(named by LLVM's disassembler)"), i % 2 == 1, "{}: {}", k.name, r.reason);
        assert!(r.instruction.as_deref().is_some_and(|t| t.starts_with(&format!("{} ", refused(*i)))), "{}: {:?}", k.name, r.instruction);
        let offset = r.offset.unwrap();
        let sk = src_co.kernel(&k.name).unwrap();
        assert!((sk.code_addr..sk.code_addr + sk.code_size).contains(&(offset as u64)), "{}: {offset:#x}", k.name);
        let file_offset = (offset as u64 - sk.code_addr + sk.code_offset) as usize;
        let (_, text) = llvm.decode(&source[file_offset..], offset as u64).unwrap();
        assert!(text.starts_with(&format!("{} ", refused(*i))), "{}: LLVM reads `{text}` at {offset:#x}", k.name);
    }
    let json = report.to_json();
    assert_eq!(json["totals"]["refused"], 5);
    let named: Vec<&serde_json::Value> = json["kernels"].as_array().unwrap().iter().filter(|k| k["status"] == "refused").collect();
    assert_eq!(named.len(), 5);
    for (i, k) in BAD.iter().zip(named) {
        assert_eq!(k["refusal"]["mnemonic"], refused(*i));
        assert!(k["refusal"]["offset"].as_u64().is_some());
    }
    // Every translated kernel has its counts and resources.
    for k in report.kernels.iter().filter(|k| k.status == Status::Translated) {
        assert!(k.source_instructions.unwrap() > 0 && k.target_instructions.unwrap() > 0, "{k:?}");
        assert!(k.target.unwrap().vgprs > 0, "{k:?}");
    }

    // The refused kernels keep their interface, say why in their metadata, and trap.
    let md = out.metadata.as_ref().unwrap();
    let src_md = src_co.metadata.as_ref().unwrap();
    for name in &bad_names {
        let km = md.kernel(name).unwrap();
        assert_eq!(km.args.len(), src_md.kernel(name).unwrap().args.len());
        assert_eq!(out.kernel(name).unwrap().descriptor.kernarg_size, src_co.kernel(name).unwrap().descriptor.kernarg_size);
        let why = km.raw.get(hotswap::translate::REFUSED_KEY).and_then(|v| v.as_str()).unwrap_or_default();
        assert!(why.contains(name.as_str()) && why.contains("offset 0x"), "{name}: {why}");
        let e = launch(&t.bytes, name).unwrap_err();
        assert!(e.contains("s_trap"), "{name}: {e}");
    }
    // The 295 compute what the originals compute.
    for i in (0..KERNELS).filter(|i| !BAD.contains(i)) {
        let name = format!("k{i}");
        let want = launch(&source, &name).unwrap();
        let expected: Vec<u8> = (0..64u32).flat_map(|id| (id * (i as u32 + 1) + i as u32).to_le_bytes()).collect();
        assert_eq!(want, expected, "{name}: the gfx1250 original");
        assert_eq!(launch(&t.bytes, &name).unwrap(), want, "{name}: the translation");
    }
}
