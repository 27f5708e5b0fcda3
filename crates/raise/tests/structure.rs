//! Structure recovery on hand-written gfx1250 code: which if-then regions become a thread's own
//! branch (hx_raise::structure), which stay predicated, and that the raised IR of both verifies.

use hx_codeobj::CodeObject;
use hx_llvm::inkwell::context::Context;
use hx_llvm::GpuTarget;
use hx_raise::cfg::{self, Cfg};
use hx_raise::structure::{recover, RestoreTo, Structure};
use hx_raise::{raise_kernel, KernelAbi};

fn assemble(body: &str) -> Vec<u8> {
    let obj = hx_llvm::assemble(&format!(".text\n{body}\n"), "t", GpuTarget::Gfx1250).unwrap();
    let co = CodeObject::parse(&obj).unwrap();
    let text = co.section(".text").unwrap();
    obj[text.offset as usize..(text.offset + text.size) as usize].to_vec()
}

/// The graph and what recovery finds; the raised IR must verify either way.
fn analyse(asm: &str) -> (Cfg, Structure) {
    let code = assemble(asm);
    let g = cfg::build(hx_isa::Target::Gfx1250, &code, "k").unwrap();
    let abi = KernelAbi { kernarg_ptr_sgpr: Some(0), preload: None, private_segment_size: 0, group_segment_size: 256, kernarg_size: 16, uses_lds: false, entry_mode: 0xf0, workitem_ids: 2, workgroup_id_z: true, one_source_wave: false, paired_groups: false, dispatch_ptr_sgpr: None, queue_ptr_sgpr: None, dispatch_id_sgpr: None };
    let ctx = Context::create();
    let module = ctx.create_module("raised");
    raise_kernel(&ctx, &module, "k", &code, &abi).unwrap();
    hx_llvm::verify(&module, "raised").unwrap();
    (g.clone(), recover(&g))
}

trait Heads {
    fn heads_contain(&self, g: &Cfg, offset: usize) -> bool;
}

impl Heads for Structure {
    /// Whether the block holding `offset` is a recovered head (or loop latch).
    fn heads_contain(&self, g: &Cfg, offset: usize) -> bool {
        self.head[block_of(g, offset)]
    }
}

/// Starts of the blocks recovered as region heads.
fn heads(g: &Cfg, s: &Structure) -> Vec<usize> {
    g.blocks.iter().zip(&s.head).filter(|(_, &h)| h).map(|(b, _)| b.start).collect()
}

/// The offset of the first instruction whose text starts with `text`.
fn at(g: &Cfg, text: &str) -> usize {
    g.blocks.iter().flat_map(|b| b.insts.iter()).filter(|i| i.text().starts_with(text)).map(|i| i.offset).min().unwrap_or_else(|| panic!("no {text}"))
}

fn block_of(g: &Cfg, offset: usize) -> usize {
    g.blocks.iter().position(|b| b.insts.iter().any(|i| i.offset == offset)).unwrap()
}

/// An if-then as LLVM writes it, with `body` inside and `after` past the join.
fn if_then(save: &str, body: &str, after: &str) -> String {
    format!(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    v_cmp_gt_u32_e32 vcc_lo, 5, v0
    {save}
    s_cbranch_execz .Ljoin
    {body}
.Ljoin:
    s_or_b32 exec_lo, exec_lo, s5
    {after}
    s_endpgm"
    )
}

const STORE: &str = "v_add_nc_u32_e32 v1, 1, v0\n    global_store_b32 v0, v1, s[2:3]";

#[test]
fn saveexec_and_cmpx_if_then_become_branches() {
    for save in ["s_and_saveexec_b32 s5, vcc_lo", "s_mov_b32 s5, exec_lo\n    v_cmpx_gt_u32_e32 7, v0"] {
        let (g, s) = analyse(&if_then(save, STORE, "global_store_b32 v0, v1, s[2:3] offset:256"));
        let head = block_of(&g, at(&g, "s_cbranch_execz"));
        assert_eq!(heads(&g, &s), [g.blocks[head].start], "{save}");
        // The body runs with the thread's bit known set; so does the code after the restore.
        let body = block_of(&g, at(&g, "v_add_nc_u32"));
        assert!(s.known_on_entry[body], "{save}");
        assert!(s.known_after.contains(&at(&g, "s_or_b32 exec_lo")), "{save}");
        // The head itself wrote EXEC: not known there.
        assert!(!s.known_on_entry[block_of(&g, at(&g, "s_or_b32 exec_lo"))]);
    }
}

#[test]
fn a_region_that_ends_the_program_becomes_a_branch() {
    let (g, s) = analyse(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    v_cmp_gt_u32_e32 vcc_lo, 5, v0
    s_and_saveexec_b32 s5, vcc_lo
    s_cbranch_execz .Lend
    s_load_b64 s[6:7], s[0:1], 0x8
    global_store_b32 v0, v0, s[6:7]
.Lend:
    s_endpgm",
    );
    assert_eq!(heads(&g, &s).len(), 1);
}

#[test]
fn nested_narrowing_to_the_same_join_and_nested_regions_are_recovered() {
    // As lds_bitonic: an inner s_and_b32 exec narrowing whose execz goes to the outer join.
    let (g, s) = analyse(&if_then(
        "s_and_saveexec_b32 s5, vcc_lo",
        "v_cmp_lt_u32_e64 s7, 2, v0\n    s_and_b32 exec_lo, exec_lo, s7\n    s_cbranch_execz .Ljoin\n    global_store_b32 v0, v0, s[2:3]",
        "",
    ));
    assert_eq!(heads(&g, &s).len(), 2);
    // As nested_loops: a region inside another with its own saved mask and restore.
    let inner = "s_mov_b32 s8, exec_lo\n    v_cmpx_gt_u32_e32 3, v0\n    s_cbranch_execz .Linner\n    global_store_b32 v0, v0, s[2:3]\n.Linner:\n    s_or_b32 exec_lo, exec_lo, s8\n    global_store_b32 v0, v0, s[2:3] offset:64";
    let (g, s) = analyse(&if_then("s_and_saveexec_b32 s5, vcc_lo", inner, ""));
    assert_eq!(heads(&g, &s).len(), 2);
    // After the inner restore the thread's bit is known set again (it was at the inner save).
    assert!(s.known_after.contains(&at(&g, "s_or_b32 exec_lo, exec_lo, s8")));
}

#[test]
fn if_else_and_a_loop_inside_an_if_are_recovered() {
    // If-else as LLVM writes it when the arms join directly: the then-arm's join is the
    // else-arm's head (s_and_not1_saveexec), whose join restores both halves.
    let (g, s) = analyse(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_mov_b32 s3, exec_lo
    v_cmpx_gt_u32_e32 9, v0
    s_xor_b32 s3, exec_lo, s3
    s_cbranch_execz .Lelse
    v_add_nc_u32_e32 v1, 1, v0
.Lelse:
    s_and_not1_saveexec_b32 s3, s3
    s_cbranch_execz .Ljoin
    v_sub_nc_u32_e32 v1, 1, v0
.Ljoin:
    s_or_b32 exec_lo, exec_lo, s3
    global_store_b32 v0, v1, s[2:3]
    s_endpgm",
    );
    assert_eq!(heads(&g, &s).len(), 2);
    // If-else through a flow block (s_or_saveexec, then s_xor of EXEC), the else-arm holding a
    // divergent loop whose exit mask starts at 0 in the arm's head.
    let (g, s) = analyse(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_mov_b32 s6, exec_lo
    v_cmpx_gt_u32_e32 9, v0
    s_xor_b32 s6, exec_lo, s6
    s_cbranch_execz .Lflow
    v_add_nc_u32_e32 v1, 1, v0
.Lflow:
    s_or_saveexec_b32 s6, s6
    v_mov_b32_e32 v2, 0
    s_xor_b32 exec_lo, exec_lo, s6
    s_cbranch_execz .Ljoin
    s_mov_b32 s4, 0
    s_mov_b32 s7, exec_lo
    v_cmpx_ne_u32_e32 0, v0
    s_cbranch_execz .Lafter
    s_mov_b32 s5, 0
.Lloop:
    v_add_nc_u32_e32 v2, s5, v2
    s_add_co_i32 s5, s5, 1
    v_cmp_eq_u32_e32 vcc_lo, s5, v0
    s_or_b32 s4, vcc_lo, s4
    s_and_not1_b32 exec_lo, exec_lo, s4
    s_cbranch_execnz .Lloop
    s_or_b32 exec_lo, exec_lo, s4
.Lafter:
    s_or_b32 exec_lo, exec_lo, s7
    v_mov_b32_e32 v1, v2
.Ljoin:
    s_or_b32 exec_lo, exec_lo, s6
    global_store_b32 v0, v1, s[2:3]
    s_endpgm",
    );
    // The then-arm, the else-arm, the if around the loop, and the loop (its latch).
    assert_eq!(heads(&g, &s).len(), 4);
    assert!(s.heads_contain(&g, at(&g, "s_cbranch_execnz")));
    assert!(s.known_on_entry[block_of(&g, at(&g, "s_mov_b32 s5, 0"))]);
    // A thread goes round the loop only while its bit is set: known inside.
    assert!(s.known_on_entry[block_of(&g, at(&g, "v_add_nc_u32_e32 v2, s5, v2"))]);
    // And after the loop's restore (EXEC is the loop's entry value again).
    assert!(s.known_after.contains(&at(&g, "s_or_b32 exec_lo, exec_lo, s4")));
}

/// A divergent loop as LLVM writes it: the exit mask s4 starts at 0, collects the lanes whose
/// exit test holds, and leaves EXEC; JOIN restores it. `body` is inside the loop, `after` past
/// the restore.
fn divergent_loop(body: &str, after: &str) -> String {
    format!(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_mov_b32 s4, 0
    s_mov_b32 s5, 0
.Lloop:
    v_add_nc_u32_e32 v1, s5, v1
    s_add_co_i32 s5, s5, 1
    {body}
    v_cmp_eq_u32_e32 vcc_lo, s5, v0
    s_or_b32 s4, vcc_lo, s4
    s_and_not1_b32 exec_lo, exec_lo, s4
    s_cbranch_execnz .Lloop
    s_or_b32 exec_lo, exec_lo, s4
    global_store_b32 v0, v1, s[2:3]
    {after}
    s_endpgm"
    )
}

#[test]
fn divergent_loops_become_per_thread_loops_where_proven() {
    let (g, s) = analyse(&divergent_loop("global_store_b32 v0, v1, s[2:3] offset:64", ""));
    assert_eq!(heads(&g, &s), [g.blocks[block_of(&g, at(&g, "s_cbranch_execnz"))].start]);
    // Refused: the loop counter read after the loop (threads that left early stopped counting);
    // the exit mask read after the restore; a barrier or readlane inside; EXEC widened inside.
    let refused = [
        ("live counter", divergent_loop("", "v_mov_b32_e32 v2, s5\n    global_store_b32 v0, v2, s[2:3]")),
        ("live exit mask", divergent_loop("", "v_mov_b32_e32 v2, s4\n    global_store_b32 v0, v2, s[2:3]")),
        ("barrier", divergent_loop("s_barrier_signal -1\n    s_barrier_wait 0xffff", "")),
        ("readlane", divergent_loop("v_readlane_b32 s9, v1, 1", "")),
        ("widened", divergent_loop("s_mov_b32 exec_lo, s9", "")),
    ];
    for (what, asm) in refused {
        let (g, s) = analyse(&asm);
        assert!(heads(&g, &s).is_empty(), "{what}: recovered");
    }
}

/// The raised IR of `asm` after the raised pipeline (as hx-lower runs it), as text.
fn optimized(asm: &str) -> String {
    let code = assemble(asm);
    let abi = KernelAbi { kernarg_ptr_sgpr: Some(0), preload: None, private_segment_size: 0, group_segment_size: 256, kernarg_size: 16, uses_lds: false, entry_mode: 0xf0, workitem_ids: 2, workgroup_id_z: true, one_source_wave: false, paired_groups: false, dispatch_ptr_sgpr: None, queue_ptr_sgpr: None, dispatch_id_sgpr: None };
    let ctx = Context::create();
    let module = ctx.create_module("raised");
    raise_kernel(&ctx, &module, "k", &code, &abi).unwrap();
    let ir = module.print_to_string().to_string();
    let o = hx_llvm::OptLevel::O2;
    String::from_utf8(hx_llvm::compile_ir_with(&ir, "k", GpuTarget::Gfx942, o, o.raised_pipeline(), hx_llvm::Emit::LlvmIr).unwrap()).unwrap()
}

#[test]
fn closing_restores_give_exec_its_entry_value() {
    // A loop's restore gives the EXEC of its entry edge: EXEC read after the loop is the
    // kernel's entry ballot, and the exit mask's ballot in the loop, which only fed the
    // restore, goes.
    let asm = divergent_loop("global_store_b32 v0, v1, s[2:3] offset:64", "s_mov_b32 s9, exec_lo
    v_mov_b32_e32 v2, s9
    global_store_b32 v0, v2, s[2:3] offset:128");
    let (g, s) = analyse(&asm);
    let restore = at(&g, "s_or_b32 exec_lo, exec_lo, s4");
    assert!(matches!(s.restore_to.get(&restore), Some(RestoreTo::LoopEntry(_))), "{:?}", s.restore_to);
    let ir = optimized(&asm);
    assert_eq!(ir.matches("call i64 @llvm.amdgcn.ballot").count(), 1, "{ir}");
    // An if-then's restore gives the mask its head saved (s5).
    let (g, s) = analyse(&if_then("s_and_saveexec_b32 s5, vcc_lo", STORE, ""));
    assert_eq!(s.restore_to.get(&at(&g, "s_or_b32 exec_lo")), Some(&RestoreTo::Saved(5)));
}

#[test]
fn regions_that_do_not_qualify_stay_predicated() {
    let cases = [
        // Another lane's register, a ballot of the whole wave's bits, DPP, a barrier.
        ("readlane", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_readlane_b32 s9, v0, 3\n    v_mov_b32_e32 v1, s9", "")),
        ("readfirstlane", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_readfirstlane_b32 s9, v0\n    v_mov_b32_e32 v1, s9", "")),
        // DPP the target has no row-local form of (row_share, DPP8) or that fetches inactive lanes.
        ("dpp row_share", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_mov_b32_dpp v1, v0 row_share:3 row_mask:0xf bank_mask:0xf", "")),
        ("dpp8", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_mov_b32_dpp v1, v0 dpp8:[1,0,3,2,5,4,7,6]", "")),
        ("dpp fi", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_mov_b32_dpp v1, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf fi:1", "")),
        ("swizzle", if_then("s_and_saveexec_b32 s5, vcc_lo", "ds_swizzle_b32 v1, v0 offset:swizzle(SWAP,1)", "")),
        ("barrier", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_barrier_signal -1\n    s_barrier_wait 0xffff", "")),
        // The saved mask written inside: the restore would not give the saved EXEC back.
        ("saved mask reused", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_mov_b32 s5, 0\n    global_store_b32 v0, v0, s[2:3]", "")),
        // An SGPR the body writes and the code after the join reads.
        ("live SGPR", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_mov_b32 s9, 7\n    global_store_b32 v0, v0, s[2:3]", "v_mov_b32_e32 v1, s9\n    global_store_b32 v0, v1, s[2:3]")),
        // VCC written inside and read after.
        ("live VCC", if_then("s_and_saveexec_b32 s5, vcc_lo", "v_cmp_eq_u32_e32 vcc_lo, 3, v0", "v_cndmask_b32_e64 v1, 0, 1, vcc_lo\n    global_store_b32 v0, v1, s[2:3]")),
        // EXEC widened inside (restored from a mask saved before the region).
        ("widened", format!("s_mov_b32 s9, exec_lo\n{}", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_or_b32 exec_lo, exec_lo, s9\n    global_store_b32 v0, v0, s[2:3]", ""))),
        // The body narrows EXEC for good and the restore's mask is not saved before the head's
        // narrowing: threads that skipped and threads that did not would disagree on EXEC.
        ("unsaved", if_then("v_cmpx_gt_u32_e32 7, v0", "v_cmpx_gt_u32_e32 3, v0\n    global_store_b32 v0, v0, s[2:3]", "")),
        // EXEC widened inside with a mask the analysis knows nothing of.
        ("unknown or", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_mov_b32 s9, -1\n    s_or_b32 exec_lo, exec_lo, s9\n    global_store_b32 v0, v0, s[2:3]", "")),
        // A second way into the body.
        ("second entry", format!("s_cmp_eq_u32 s4, 0\n    s_cbranch_scc1 .Lin\n{}", if_then("s_and_saveexec_b32 s5, vcc_lo", "s_nop 0\n.Lin:\n    global_store_b32 v0, v0, s[2:3]", ""))),
        // The program ends inside the body.
        ("end inside", if_then("s_and_saveexec_b32 s5, vcc_lo", "global_store_b32 v0, v0, s[2:3]\n    s_endpgm", "")),
    ];
    for (what, asm) in cases {
        let (g, s) = analyse(&asm);
        assert!(heads(&g, &s).is_empty(), "{what}: recovered as a branch");
        // Nothing after the narrowing is known active.
        assert!(s.known_after.is_empty(), "{what}");
    }
}

#[test]
fn reading_or_saving_exec_keeps_it_known() {
    let (g, s) = analyse(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_mov_b32 s9, exec_lo
    s_and_b32 s10, exec_lo, s4
    s_cmp_eq_u32 s4, 0
    s_cbranch_scc1 .Lnext
    v_mov_b32_e32 v1, s9
.Lnext:
    global_store_b32 v0, v1, s[2:3]
    s_mov_b32 exec_lo, s10
    s_cbranch_scc1 .Lend
    global_store_b32 v0, v0, s[2:3]
.Lend:
    s_endpgm",
    );
    assert!(s.known_on_entry[block_of(&g, at(&g, "v_mov_b32"))]);
    assert!(s.known_on_entry[block_of(&g, at(&g, "global_store_b32 v0, v1"))]);
    // A write of EXEC ends it.
    assert!(!s.known_on_entry[block_of(&g, at(&g, "global_store_b32 v0, v0"))]);
}

/// A kernel calling a device function that holds a divergent loop; `after` runs past the call.
/// The function starts at 256.
fn call_of_loop(after: &str) -> String {
    format!(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_load_b64 s[6:7], s[0:1], 0x8
    s_wait_kmcnt 0x0
    s_swap_pc_i64 s[30:31], s[6:7]
    global_store_b32 v0, v1, s[2:3]
    {after}
    s_endpgm
    .p2align 8
    s_mov_b32 s4, 0
    s_mov_b32 s5, 0
.Lloop:
    v_add_nc_u32_e32 v1, s5, v1
    s_add_co_i32 s5, s5, 1
    v_cmp_eq_u32_e32 vcc_lo, s5, v0
    s_or_b32 s4, vcc_lo, s4
    s_and_not1_b32 exec_lo, exec_lo, s4
    s_cbranch_execnz .Lloop
    s_or_b32 exec_lo, exec_lo, s4
    s_set_pc_i64 s[30:31]"
    )
}

/// Graph and structure of a kernel at offset 0 with one device function at 256.
fn analyse_program(asm: &str) -> (Cfg, Structure) {
    let code = assemble(asm);
    let prog = cfg::Program { bytes: &code, base: 0, entry: 0, functions: vec![256], region: (0, code.len()), data: None };
    let g = cfg::build_program(hx_isa::Target::Gfx1250, &prog, "k").unwrap();
    let abi = KernelAbi { kernarg_ptr_sgpr: Some(0), preload: None, private_segment_size: 0, group_segment_size: 256, kernarg_size: 16, uses_lds: false, entry_mode: 0xf0, workitem_ids: 2, workgroup_id_z: true, one_source_wave: false, paired_groups: false, dispatch_ptr_sgpr: None, queue_ptr_sgpr: None, dispatch_id_sgpr: None };
    let ctx = Context::create();
    let module = ctx.create_module("raised");
    hx_raise::raise_program(&ctx, &module, "k", &prog, &abi).unwrap();
    hx_llvm::verify(&module, "raised").unwrap();
    (g.clone(), recover(&g))
}

#[test]
fn liveness_flows_through_calls_and_returns() {
    // Nothing after the return reads the loop's counter s5 or its exit mask: the callee's loop
    // is recovered, and the callee is entered (and left) with the thread's EXEC bit set.
    let (g, s) = analyse_program(&call_of_loop(""));
    assert_eq!(heads(&g, &s), [g.blocks[block_of(&g, at(&g, "s_cbranch_execnz"))].start]);
    assert!(s.known_on_entry[block_of(&g, 256)], "the callee's entry");
    assert!(s.known_on_entry[block_of(&g, at(&g, "global_store_b32 v0, v1"))], "the return site");
    // The caller reads the counter after the call: the loop stays predicated.
    let (g, s) = analyse_program(&call_of_loop("v_mov_b32_e32 v2, s5\n    global_store_b32 v0, v2, s[2:3]"));
    assert!(heads(&g, &s).is_empty(), "recovered with the counter live at the return site");
}

#[test]
fn hardware_register_reads_and_writes_have_their_own_effects() {
    // A mask compare in the body (s9) and an s_getreg after the join: s_getreg writes its SGPR
    // and reads no scalar state, so s9 is dead at the join and the region is recovered.
    let body = "v_cmp_eq_u32_e64 s9, 0, v0\n    global_store_b32 v0, v1, s[2:3]";
    let getreg = "s_getreg_b32 s9, hwreg(HW_REG_IB_STS2, 6, 4)\n    v_mov_b32_e32 v2, s9\n    global_store_b32 v0, v2, s[2:3]";
    let (g, s) = analyse(&if_then("s_and_saveexec_b32 s5, vcc_lo", body, getreg));
    assert_eq!(heads(&g, &s).len(), 1, "s_getreg after the join");
    // s_setreg inside the body would change MODE for threads that skipped it: predicated.
    let setreg = "s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 25, 1), 1\n    global_store_b32 v0, v1, s[2:3]";
    let (g, s) = analyse(&if_then("s_and_saveexec_b32 s5, vcc_lo", setreg, ""));
    assert!(heads(&g, &s).is_empty(), "s_setreg inside the body");
}

#[test]
fn row_local_dpp_stays_inside_recovered_regions() {
    // The target's own DPP reads the lanes that skipped the body as inactive, as the source does.
    for dpp in ["v_mov_b32_dpp v1, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", "v_add_nc_u32_dpp v1, v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1"] {
        let (g, s) = analyse(&if_then("s_and_saveexec_b32 s5, vcc_lo", &format!("{dpp}\n    global_store_b32 v0, v1, s[2:3]"), ""));
        assert_eq!(heads(&g, &s).len(), 1, "{dpp}");
    }
}
