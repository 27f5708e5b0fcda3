//! Raising hand-written gfx1250 code: the CFG it finds, and IR that verifies and lowers for
//! gfx942 and gfx950.

use hx_codeobj::CodeObject;
use hx_llvm::inkwell::context::Context;
use hx_llvm::GpuTarget;
use hx_raise::cfg::{self, Cond, Exit};
use hx_raise::{raise_kernel, KernelAbi, RaiseError};

/// Assembles gfx1250 instructions in-process and returns the .text bytes.
fn assemble(body: &str) -> Vec<u8> {
    let obj = hx_llvm::assemble(&format!(".text\n{body}\n"), "t", GpuTarget::Gfx1250).unwrap();
    let co = CodeObject::parse(&obj).unwrap();
    let text = co.section(".text").unwrap();
    obj[text.offset as usize..(text.offset + text.size) as usize].to_vec()
}

const LOOP_AND_IF: &str = "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_mov_b32 s4, 0
    v_mov_b32_e32 v1, 0
.Lloop:
    v_add_nc_u32_e32 v1, s4, v1
    s_add_co_i32 s4, s4, 1
    s_cmp_lt_u32 s4, 10
    s_cbranch_scc1 .Lloop
    v_cmp_gt_u32_e32 vcc_lo, 5, v0
    s_and_saveexec_b32 s5, vcc_lo
    s_cbranch_execz .Lskip
    v_add_nc_u32_e32 v1, 1, v1
.Lskip:
    s_or_b32 exec_lo, exec_lo, s5
    s_endpgm
";

#[test]
fn cfg_of_a_loop_and_an_if() {
    let code = assemble(LOOP_AND_IF);
    let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
    let starts: Vec<usize> = g.blocks.iter().map(|b| b.start).collect();
    // entry (s_load, s_mov, v_mov: 8 + 4 + 4 bytes), loop, compare+saveexec+branch, then, join.
    assert_eq!(starts.len(), 5, "{starts:?}");
    let loop_start = starts[1];
    assert_eq!(loop_start, 16);
    assert_eq!(g.blocks[0].exit, Exit::Fall(loop_start));
    match g.blocks[1].exit {
        Exit::Cond { cond: Cond::Scc1, taken, fall } => {
            assert_eq!(taken, loop_start);
            assert_eq!(fall, starts[2]);
        }
        e => panic!("{e:?}"),
    }
    match g.blocks[2].exit {
        Exit::Cond { cond: Cond::Execz, taken, fall } => assert_eq!((taken, fall), (starts[4], starts[3])),
        e => panic!("{e:?}"),
    }
    assert_eq!(g.blocks[4].exit, Exit::End);
    assert_eq!(g.blocks[4].insts.last().unwrap().mnemonic(), "s_endpgm");
}

#[test]
fn raised_ir_verifies_and_lowers_for_both_targets() {
    let code = assemble(LOOP_AND_IF);
    let abi = KernelAbi { kernarg_ptr_sgpr: Some(0), preload: None, private_segment_size: 0, group_segment_size: 0, kernarg_size: 16, uses_lds: false, entry_mode: 0xf0, workitem_ids: 2, workgroup_id_z: true, one_source_wave: false, paired_groups: false, dispatch_ptr_sgpr: None, queue_ptr_sgpr: None, dispatch_id_sgpr: None };
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let ctx = Context::create();
        let module = ctx.create_module("raised");
        raise_kernel(&ctx, &module, "k", &code, &abi).unwrap();
        hx_llvm::verify(&module, "raised").unwrap();
        let ir = module.print_to_string().to_string();
        assert!(ir.contains("@llvm.amdgcn.ballot.i64"), "masks are rebuilt with ballots");
        let asm = hx_lower::lower(&module, "raised", &hx_lower::LowerOptions::new(target), hx_lower::Emit::Assembly).unwrap();
        let asm = String::from_utf8(asm).unwrap();
        assert!(asm.contains(".amdhsa_kernel k"), "{asm}");
    }
}

#[test]
fn unsupported_instructions_and_bad_branches_are_named_errors() {
    // A call: not raised yet.
    let code = assemble("s_swap_pc_i64 s[30:31], s[0:1]\ns_endpgm");
    let e = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap_err();
    match e {
        RaiseError::Unsupported { kernel, offset, mnemonic, .. } => assert_eq!((kernel.as_str(), offset, mnemonic.as_str()), ("k", 0, "s_swap_pc_i64")),
        e => panic!("{e}"),
    }
    // A branch out of the code.
    let code = assemble("s_branch -100\ns_endpgm");
    assert!(matches!(cfg::build(hx_isa::Target::Gfx1250, &code, "k"), Err(RaiseError::Unsupported { offset: 0, .. })));
    // Code that runs off the end without s_endpgm.
    let code = assemble("s_mov_b32 s0, 1");
    assert!(cfg::build(hx_isa::Target::Gfx1250, &code, "k").is_err());
    // Undecodable bytes.
    assert!(matches!(cfg::build(hx_isa::Target::Gfx1250, &[0xff; 8], "k"), Err(RaiseError::Decode { offset: 0, .. })));
}

#[test]
fn lds_and_cross_lane_ds_raise_and_lower() {
    let code = assemble(
        "
    v_lshlrev_b32_e32 v1, 2, v0
    ds_store_b32 v1, v0
    s_wait_dscnt 0x0
    s_barrier_signal -1
    s_barrier_wait -1
    ds_load_b32 v2, v1 offset:4
    ds_add_u32 v1, v2
    ds_max_rtn_u32 v7, v1, v2
    ds_bpermute_b32 v3, v1, v2
    ds_load_2addr_b32 v[6:7], v1 offset1:1
    ds_store_2addr_stride64_b32 v1, v6, v7 offset1:2
    ds_cmpstore_rtn_b32 v8, v1, v2, v3
    ds_load_b128 v[12:15], v1
    s_endpgm",
    );
    let abi = KernelAbi { kernarg_ptr_sgpr: Some(0), preload: None, private_segment_size: 0, group_segment_size: 1024, kernarg_size: 16, uses_lds: false, entry_mode: 0xf0, workitem_ids: 2, workgroup_id_z: true, one_source_wave: false, paired_groups: false, dispatch_ptr_sgpr: None, queue_ptr_sgpr: None, dispatch_id_sgpr: None };
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let ctx = Context::create();
        let module = ctx.create_module("raised");
        raise_kernel(&ctx, &module, "k", &code, &abi).unwrap();
        hx_llvm::verify(&module, "raised").unwrap();
        let ir = module.print_to_string().to_string();
        for needle in ["@k.lds", "llvm.amdgcn.ds.bpermute", "atomicrmw add", "atomicrmw umax", "cmpxchg", "llvm.amdgcn.s.barrier"] {
            assert!(ir.contains(needle), "{needle} missing in\n{ir}");
        }
        let obj = hx_lower::lower(&module, "raised", &hx_lower::LowerOptions::new(target), hx_lower::Emit::Object).unwrap();
        let co = CodeObject::parse(&obj).unwrap();
        let k = co.kernel("k").unwrap();
        assert!(k.descriptor.group_segment_fixed_size >= 1024, "the source's LDS size is reserved");
    }
}

#[test]
fn cfg_follows_calls_into_device_functions_and_back() {
    // kernel at 0: two calls of the function at .Lf (address computed PC-relative, as LLVM does).
    let code = assemble(
        "
    s_get_pc_i64 s[0:1]
    s_add_nc_u64 s[0:1], s[0:1], .Lf-4
    s_swap_pc_i64 s[30:31], s[0:1]
    v_add_nc_u32_e32 v0, 1, v0
    s_swap_pc_i64 s[30:31], s[0:1]
    s_endpgm
.Lf:
    v_add_nc_u32_e32 v0, 2, v0
    s_set_pc_i64 s[30:31]
",
    );
    let insts = hx_isa::decode_all(hx_isa::Target::Gfx1250, &code).unwrap();
    let end = insts.iter().find(|i| i.mnemonic() == "s_endpgm").unwrap();
    let f = end.offset + end.len as usize;
    let prog = cfg::Program { bytes: &code, base: 0x1000, entry: 0, functions: vec![f], region: (0, code.len()), data: None };
    let g = cfg::build_program(hx_isa::Target::Gfx1250, &prog, "k").unwrap();
    assert_eq!(g.functions, vec![f]);
    let calls: Vec<usize> = g.blocks.iter().filter_map(|b| match b.exit {
        Exit::Call { ret } => Some(ret),
        _ => None,
    }).collect();
    assert_eq!(calls.len(), 2, "{:?}", g.blocks.iter().map(|b| (b.start, b.exit)).collect::<Vec<_>>());
    assert_eq!(g.return_sites, calls, "each call returns to the instruction after it");
    let fb = g.block_at(f).expect("the function is a block");
    assert_eq!(g.blocks[fb].exit, Exit::Return);
    assert_eq!(g.successors(fb), calls);
    // Without device functions a call is refused, naming it.
    let err = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap_err().to_string();
    assert!(err.contains("s_swap_pc_i64"), "{err}");
}

/// An if-then whose body LLVM placed out of line with its own copy of the join's code
/// (`s_cbranch_execnz BODY`, the body ending in a restore and what follows it): the graph runs the
/// body into the join (the copy merged away), and structure recovery finds the region.
#[test]
fn tail_duplicated_if_then_gets_its_join_back() {
    let code = assemble(
        "
        v_cmp_gt_i32_e32 vcc_lo, s6, v0
        s_and_saveexec_b32 s7, vcc_lo
        s_cbranch_execnz 3
        s_or_b32 exec_lo, exec_lo, s7
        v_mov_b32_e32 v1, 1
        s_endpgm
        v_mov_b32_e32 v2, 5
        s_or_b32 exec_lo, exec_lo, s7
        v_mov_b32_e32 v1, 1
        s_endpgm",
    );
    let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
    let at = |start: usize| g.blocks.iter().find(|b| b.start == start).unwrap_or_else(|| panic!("no block at {start:#x}"));
    assert!(matches!(at(0).exit, Exit::Cond { cond: Cond::Execnz, taken: 0x18, fall: 0xc }));
    let body = at(0x18);
    assert_eq!(body.exit, Exit::Jump(0xc), "the body runs into the join");
    assert_eq!(body.insts.iter().map(|i| i.text()).collect::<Vec<_>>(), ["v_mov_b32_e32 v2, 5"]);
    let s = hx_raise::structure::recover(&g);
    let head = g.blocks.iter().position(|b| b.start == 0).unwrap();
    assert!(s.head[head], "the if-then is recovered");
    // A copy that differs (v1 = 2 in the body's) stays where it is.
    let code = assemble(
        "
        v_cmp_gt_i32_e32 vcc_lo, s6, v0
        s_and_saveexec_b32 s7, vcc_lo
        s_cbranch_execnz 3
        s_or_b32 exec_lo, exec_lo, s7
        v_mov_b32_e32 v1, 1
        s_endpgm
        v_mov_b32_e32 v2, 5
        s_or_b32 exec_lo, exec_lo, s7
        v_mov_b32_e32 v1, 2
        s_endpgm",
    );
    let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
    let body = g.blocks.iter().find(|b| b.start == 0x18).unwrap();
    assert_eq!((body.exit, body.insts.len()), (Exit::End, 4));
}

/// LLVM's guarded loop: an if-then (`s_mov_b32 s6, exec_lo; v_cmpx; s_cbranch_execz JOIN`)
/// around a divergent loop that leaves to the same JOIN, whose restore of s6 closes both. Both
/// are recovered; without the head's save of s6 neither the if-then nor the loop is.
#[test]
fn a_guarded_loop_is_recovered_with_its_if_then() {
    let src = |save: &str| {
        format!(
            "
        s_mov_b32 s7, 0
        {save}
        v_cmpx_gt_u32_e64 s2, v1
        s_cbranch_execz .Ljoin
    .Lloop:
        v_add_nc_u32_e32 v1, s0, v1
        v_cmp_le_u32_e32 vcc_lo, s2, v1
        s_or_b32 s7, vcc_lo, s7
        s_and_not1_b32 exec_lo, exec_lo, s7
        s_cbranch_execnz .Lloop
    .Ljoin:
        s_or_b32 exec_lo, exec_lo, s6
        s_endpgm"
        )
    };
    let heads = |save: &str| {
        let code = assemble(&src(save));
        let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
        let s = hx_raise::structure::recover(&g);
        let mut h: Vec<usize> = g.blocks.iter().zip(&s.head).filter(|(_, &h)| h).map(|(b, _)| b.start).collect();
        h.sort();
        (h, g.blocks.len())
    };
    let (h, n) = heads("s_mov_b32 s6, exec_lo");
    assert_eq!(n, 3);
    assert_eq!(h.len(), 2, "the if-then and the loop: {h:x?}");
    let (h, _) = heads("s_mov_b32 s6, s5");
    assert!(h.is_empty(), "{h:x?}");
}

/// A cross-lane DS move after an if-then's join reads no scalar register: an SGPR the body
/// writes is dead at the join, and the if-then is recovered (ds_bpermute after softmax's loops).
#[test]
fn a_bpermute_after_the_join_keeps_body_sgprs_dead() {
    let code = assemble(
        "
        v_cmp_gt_u32_e32 vcc_lo, 4, v0
        s_and_saveexec_b32 s3, vcc_lo
        s_cbranch_execz .Ljoin
        s_mov_b32 s5, 7
        v_add_nc_u32_e32 v1, s5, v1
    .Ljoin:
        s_or_b32 exec_lo, exec_lo, s3
        ds_bpermute_b32 v2, v0, v1
        s_endpgm",
    );
    let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
    let s = hx_raise::structure::recover(&g);
    let head = g.blocks.iter().position(|b| b.start == 0).unwrap();
    assert!(s.head[head]);
}
