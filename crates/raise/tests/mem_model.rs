//! Raising gfx1250 atomics, cache-policy/scope bits, cache control, prefetches and async
//! global->LDS loads onto the target memory model: the IR says what the source's bits say, and it
//! verifies and lowers for gfx942 and gfx950.

use hx_codeobj::CodeObject;
use hx_llvm::inkwell::context::Context;
use hx_llvm::GpuTarget;
use hx_raise::{raise_kernel, KernelAbi};

fn assemble(body: &str) -> Vec<u8> {
    let obj = hx_llvm::assemble(&format!(".text\n{body}\n"), "t", GpuTarget::Gfx1250).unwrap();
    let co = CodeObject::parse(&obj).unwrap();
    let text = co.section(".text").unwrap();
    obj[text.offset as usize..(text.offset + text.size) as usize].to_vec()
}

fn raise(body: &str) -> Vec<(GpuTarget, String)> {
    let code = assemble(body);
    let abi = KernelAbi {
        kernarg_ptr_sgpr: Some(0),
        preload: None,
        private_segment_size: 0,
        group_segment_size: 1024,
        kernarg_size: 16,
        uses_lds: false,
        entry_mode: 0xf0,
        workitem_ids: 2,
        workgroup_id_z: true,
        one_source_wave: false, paired_groups: false,
        dispatch_ptr_sgpr: None,
        queue_ptr_sgpr: None,
        dispatch_id_sgpr: None,
    };
    let mut out = Vec::new();
    for target in [GpuTarget::Gfx942, GpuTarget::Gfx950] {
        let ctx = Context::create();
        let module = ctx.create_module("raised");
        raise_kernel(&ctx, &module, "k", &code, &abi).unwrap();
        hx_llvm::verify(&module, "raised").unwrap();
        let ir = module.print_to_string().to_string();
        hx_lower::lower(&module, "raised", &hx_lower::LowerOptions::new(target), hx_lower::Emit::Object).unwrap();
        out.push((target, ir));
    }
    out
}

#[test]
fn atomics_keep_their_scope_and_return_only_when_asked() {
    let irs = raise(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_wait_kmcnt 0x0
    global_atomic_add_u32 v1, v2, s[2:3] scope:SCOPE_DEV
    global_atomic_max_u32 v3, v1, v2, s[2:3] th:TH_ATOMIC_RETURN
    global_atomic_cmpswap_b32 v4, v1, v[6:7], s[2:3] th:TH_ATOMIC_RETURN scope:SCOPE_SYS
    global_atomic_xor_b64 v1, v[8:9], s[2:3] offset:8 th:TH_ATOMIC_NT scope:SCOPE_SE
    global_atomic_inc_u32 v1, v2, s[2:3]
    global_store_b32 v1, v3, s[2:3]
    global_store_b32 v1, v4, s[2:3] offset:4
    s_endpgm",
    );
    for (target, ir) in irs {
        for needle in [
            "atomicrmw add ptr addrspace(1) %",
            "syncscope(\"agent\") monotonic",
            "atomicrmw umax ptr addrspace(1) %",
            "syncscope(\"workgroup\") monotonic",
            "cmpxchg ptr addrspace(1) %",
            "atomicrmw xor ptr addrspace(1) %",
            "atomicrmw uinc_wrap ptr addrspace(1) %",
            "!nontemporal",
        ] {
            assert!(ir.contains(needle), "{target}: {needle} missing in\n{ir}");
        }
        // The system-scope cmpxchg has no syncscope (LLVM's system scope).
        let cmpxchg = ir.lines().find(|l| l.contains("cmpxchg ptr")).unwrap();
        assert!(!cmpxchg.contains("syncscope"), "{cmpxchg}");
        assert!(cmpxchg.contains("monotonic monotonic"), "{cmpxchg}");
        // The NT hint is on the atomic whose th has it, not on the others.
        let nt = ir.lines().filter(|l| l.contains("!nontemporal")).collect::<Vec<_>>();
        assert_eq!(nt.len(), 1, "{nt:?}");
        assert!(nt[0].contains("atomicrmw xor") && nt[0].contains("syncscope(\"agent\")"), "{}", nt[0]);
    }
}

#[test]
fn cache_policy_scope_and_cache_control_map_onto_the_target_model() {
    let irs = raise(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    s_prefetch_data s[2:3], 0x0, null, 31
    s_wait_kmcnt 0x0
    global_prefetch_b8 v[2:3], off
    global_load_b32 v1, v0, s[2:3] scale_offset th:TH_LOAD_NT
    global_load_b32 v2, v0, s[2:3] offset:256 scale_offset scope:SCOPE_DEV
    global_inv scope:SCOPE_DEV
    global_load_b32 v3, v0, s[2:3] offset:512 scope:SCOPE_SYS
    global_store_b32 v0, v2, s[2:3] scale_offset th:TH_STORE_NT
    global_wb scope:SCOPE_SYS
    global_store_b32 v0, v1, s[2:3] offset:64 scope:SCOPE_SYS
    global_store_b32 v0, v3, s[2:3] offset:128
    s_endpgm",
    );
    for (target, ir) in irs {
        let lines: Vec<&str> = ir.lines().collect();
        let find = |pat: &[&str]| lines.iter().filter(|l| pat.iter().all(|p| l.contains(p))).count();
        assert_eq!(find(&["load i32", "!nontemporal"]), 1, "{target}: NT load\n{ir}");
        assert_eq!(find(&["store i32", "!nontemporal"]), 1, "{target}: NT store\n{ir}");
        assert_eq!(find(&["load atomic i32", "syncscope(\"agent\") monotonic"]), 1, "{target}: DEV load\n{ir}");
        assert_eq!(find(&["fence syncscope(\"agent\") acquire"]), 1, "{target}: global_inv\n{ir}");
        assert_eq!(find(&["fence release"]), 1, "{target}: global_wb\n{ir}");
        assert_eq!(find(&["load volatile i32"]), 1, "{target}: SYS load\n{ir}");
        assert_eq!(find(&["store volatile i32"]), 1, "{target}: SYS store\n{ir}");
        // The unscoped store stays a plain store.
        assert_eq!(find(&["store i32", "addrspace(1)"]), 2, "{target}: plain stores\n{ir}");
        assert!(!ir.contains("prefetch"), "{target}: prefetches are dropped\n{ir}");
    }
}

#[test]
fn async_loads_to_lds_become_a_global_load_and_an_lds_store() {
    let irs = raise(
        "
    s_load_b64 s[2:3], s[0:1], 0x0
    v_lshlrev_b32_e32 v1, 2, v0
    s_wait_kmcnt 0x0
    global_load_async_to_lds_b32 v1, v0, s[2:3] offset:16 scale_offset
    global_load_async_to_lds_b128 v1, v0, s[2:3] scale_offset
    s_wait_asynccnt 0x0
    ds_load_b32 v2, v1
    s_endpgm",
    );
    for (target, ir) in irs {
        assert!(ir.contains("@k.lds"), "{target}: the kernel reserves LDS\n{ir}");
        assert!(ir.lines().any(|l| l.contains("load i32, ptr addrspace(1)")), "{target}\n{ir}");
        assert!(ir.lines().any(|l| l.contains("store i32") && l.contains("ptr addrspace(3)")), "{target}\n{ir}");
        assert!(ir.lines().any(|l| l.contains("load i128, ptr addrspace(1)")), "{target}\n{ir}");
        assert!(ir.lines().any(|l| l.contains("store i128") && l.contains("ptr addrspace(3)")), "{target}\n{ir}");
    }
}
