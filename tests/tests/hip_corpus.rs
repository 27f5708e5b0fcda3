//! corpus/hip holds what it says it holds, and the emulator semantics it needed.
//!
//! - The llc-built objects (`llc_*`) enable the dispatch-pointer, queue-pointer and dispatch-id
//!   user SGPRs on every target (that is why they are built with plain llc), and the clang-built
//!   ones do not ask for the queue pointer; the suite has code object v5 and v6 objects for every
//!   target; the OpenCL `__local` pointer arguments are `dynamic_shared_pointer`s.
//!   (compiled_corpus.rs runs the objects against their references.)
//! - GFX12 sub-dword scalar loads read one byte or short and extend it (clang 22's OpenCL code
//!   loads a 2-byte-aligned hidden argument with s_load_u16), in the emulator and in translations.

use hx_codeobj::CodeObject;

/// kernel_code_properties bits (AMDGPUUsage, kernel descriptor).
const DISPATCH_PTR: u16 = 1 << 1;
const QUEUE_PTR: u16 = 1 << 2;
const DISPATCH_ID: u16 = 1 << 4;

fn hip_objects() -> Vec<(String, String, CodeObject)> {
    let mut out = Vec::new();
    for obj in hx_corpus::compiled_suite("hip").unwrap() {
        for cpu in &obj.targets {
            let bytes = std::fs::read(obj.object_path(cpu)).unwrap();
            let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{}@{cpu}: {e}", obj.name));
            out.push((obj.name.clone(), cpu.clone(), co));
        }
    }
    out
}

#[test]
fn llc_objects_enable_the_packet_queue_and_dispatch_id_sgprs() {
    let objects = hip_objects();
    assert!(objects.len() >= 45, "corpus/hip has {} (object, target) builds", objects.len());
    let mut llc = 0;
    for (name, cpu, co) in &objects {
        for k in &co.kernels {
            let props = k.descriptor.kernel_code_properties;
            let all = DISPATCH_PTR | QUEUE_PTR | DISPATCH_ID;
            if name.starts_with("llc_") {
                llc += 1;
                assert_eq!(props & all, all, "{name}@{cpu}: kernel_code_properties {props:#x}");
            } else {
                assert_eq!(props & QUEUE_PTR, 0, "{name}@{cpu}: the attributor should have dropped the queue pointer");
            }
        }
    }
    assert_eq!(llc, 6, "two llc objects on three targets");
}

#[test]
fn objects_have_the_code_object_version_their_case_names_v5_and_v6_both() {
    let cases = xtask::hip::cases();
    let mut seen = std::collections::BTreeSet::new();
    for (name, cpu, co) in hip_objects() {
        let case = cases.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}: no case in xtask/src/hip.rs"));
        assert_eq!(co.code_object_version, case.cov, "{name}@{cpu}");
        seen.insert((cpu, co.code_object_version));
    }
    for cpu in hx_corpus::ALL_TARGETS {
        for v in [5, 6] {
            assert!(seen.contains(&(cpu.to_string(), v)), "no code object v{v} for {cpu}");
        }
    }
}

#[test]
fn opencl_local_pointers_are_dynamic_shared_pointers() {
    for (name, cpu, co) in hip_objects().iter().filter(|(n, _, _)| n == "cl_local_args") {
        let meta = co.metadata.as_ref().and_then(|m| m.kernel("local_args")).unwrap();
        let kinds: Vec<&str> = meta.args.iter().filter(|a| !a.is_hidden()).map(|a| a.value_kind.as_str()).collect();
        assert_eq!(kinds, ["global_buffer", "global_buffer", "dynamic_shared_pointer", "dynamic_shared_pointer"], "{name}@{cpu}");
        assert_eq!(meta.group_segment_fixed_size, 0, "{name}@{cpu}: the __local blocks start at LDS offset 0");
    }
}

#[test]
fn gfx12_sub_dword_scalar_loads_extend_one_byte_or_short() {
    let body = "define amdgpu_kernel void @sl(ptr addrspace(1) %out, ptr addrspace(4) %src) {
  %p1 = getelementptr i8, ptr addrspace(4) %src, i64 2
  %a = load i16, ptr addrspace(4) %p1, align 2
  %p2 = getelementptr i8, ptr addrspace(4) %src, i64 5
  %b = load i8, ptr addrspace(4) %p2, align 1
  %p3 = getelementptr i8, ptr addrspace(4) %src, i64 6
  %c = load i16, ptr addrspace(4) %p3, align 2
  %p4 = getelementptr i8, ptr addrspace(4) %src, i64 9
  %d = load i8, ptr addrspace(4) %p4, align 1
  %as = sext i16 %a to i32
  %bs = sext i8 %b to i32
  %cz = zext i16 %c to i32
  %dz = zext i8 %d to i32
  store i32 %as, ptr addrspace(1) %out
  %o1 = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %bs, ptr addrspace(1) %o1
  %o2 = getelementptr i32, ptr addrspace(1) %out, i64 2
  store i32 %cz, ptr addrspace(1) %o2
  %o3 = getelementptr i32, ptr addrspace(1) %out, i64 3
  store i32 %dz, ptr addrspace(1) %o3
  ret void
}
";
    let bytes = hx_tests::gfx1250_object(body, "sl");
    let co = CodeObject::parse(&bytes).unwrap();
    let k = co.kernel("sl").unwrap();
    let mnemonics: Vec<String> = hotswap::isa::decode_all(hotswap::isa::Target::Gfx1250, co.kernel_code(k))
        .unwrap()
        .iter()
        .map(|i| i.mnemonic().to_string())
        .collect();
    for m in ["s_load_i16", "s_load_i8", "s_load_u16", "s_load_u8"] {
        assert!(mnemonics.iter().any(|x| x == m), "LLVM no longer selects {m}: {mnemonics:?}");
    }
    // Bytes 2-3: 0x8534 (negative as i16); byte 5: 0x9a (negative as i8); bytes 6-7: 0xfffe;
    // byte 9: 0xc3. The neighbouring bytes must not leak into the results.
    let src = vec![0x11, 0x22, 0x34, 0x85, 0x77, 0x9a, 0xfe, 0xff, 0x66, 0xc3, 0x55, 0x44, 0, 0, 0, 0];
    let args = [hx_emu::launch::Arg::Buffer(vec![0; 16]), hx_emu::launch::Arg::Buffer(src)];
    let out = hx_tests::run_1d(&bytes, "sl", 1, 1, &args, 0);
    let words: Vec<u32> = out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(words, [0xffff_8534, 0xffff_ff9a, 0x0000_fffe, 0x0000_00c3]);
    // The raiser reads the same byte or short and extends it the same way.
    hx_tests::assert_translations_match(&bytes, "sl", 1, 1, &args, 0, &out, 4);
}
