//! f32, f64, f16 and integer operations that clang 22 emits for HIP math (`c - a * b`, floor/ceil/trunc/
//! rint of doubles, fmin/fmax of doubles, sqrt and division of doubles, `__builtin_amdgcn_fmed3f`,
//! frexp, fract, f64 and f16 compares and class tests), each run on special values (NaN pairs
//! with different payloads, signaling NaNs, signed zeros, denormals, infinities, numbers with
//! fractions) and translated bit for bit on both targets. A clang 22 HIP kernel using these
//! (`--offload-arch=gfx1250`) refused with "v_cmp_gt_f64_e64: this compare is not raised yet",
//! then v_floor_f64 and v_med3_num_f32; one of integer and conversion math (24-bit multiplies,
//! sad, alignbyte, 64-bit mad, `__builtin_amdgcn_cvt_pkrtz`, half stores) on v_sad_u8, then
//! v_cvt_pk_rtz_f16_f32, then v_pack_b32_f16; Triton 3.9's `tl.maximum(..., propagate_nan=ALL)` on
//! v_maximum_f32; and one of 8- and 16-bit integer math (`tl.histogram`, `tl.gather`, u8/i8/i16
//! arithmetic) on v_mad_u16, v_max_i16, global_store_d16_hi_b16, v_cvt_f32_ubyte0, v_and_b16.

use hx_emu::launch::Arg;

/// (instruction text on $1..$6, result dwords): $1-$3 are f32 dwords, $4-$6 f64 pairs; each
/// result goes to its own dwords.
const OPS: &[(&str, &str, usize)] = &[
    ("v_subrev_f32 $0, $1, $2", "=v,v,v", 1),
    ("v_ceil_f32 $0, $1", "=v,v", 1),
    ("v_fract_f32 $0, $1", "=v,v", 1),
    ("v_rsq_f32 $0, $1", "=v,v", 1),
    ("v_cos_f32 $0, $1", "=v,v", 1),
    ("v_frexp_mant_f32 $0, $1", "=v,v", 1),
    ("v_frexp_exp_i32_f32 $0, $1", "=v,v", 1),
    ("v_med3_num_f32 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_med3_num_f32 $0, $1, -1.0, 2.0", "=v,v", 1),
    ("v_floor_f64 $0, $4", "=v,v", 2),
    ("v_ceil_f64 $0, $4", "=v,v", 2),
    ("v_trunc_f64 $0, $4", "=v,v", 2),
    ("v_rndne_f64 $0, $4", "=v,v", 2),
    ("v_fract_f64 $0, $4", "=v,v", 2),
    ("v_rsq_f64 $0, $4", "=v,v", 2),
    ("v_sqrt_f64 $0, $4", "=v,v", 2),
    ("v_frexp_mant_f64 $0, $4", "=v,v", 2),
    ("v_frexp_exp_i32_f64 $0, $4", "=v,v", 1),
    ("v_max_num_f64 $0, $4, $5", "=v,v,v", 2),
    ("v_min_num_f64 $0, $5, $4", "=v,v,v", 2),
    ("v_cmp_gt_f64 vcc_lo, $4, $5\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,v", 1),
    ("v_cmp_nlt_f64 vcc_lo, $4, $5\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,v", 1),
    ("v_cmp_class_f64 vcc_lo, $4, 0x3f\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v", 1),
    ("v_cmp_class_f64 vcc_lo, $4, $1\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,v", 1),
    ("v_cmp_lt_f16 vcc_lo, $1, $2\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,v", 1),
    ("v_cmp_class_f16 vcc_lo, $1, $2\n v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,v", 1),
    ("v_cvt_pk_rtz_f16_f32 $0, $1, $2", "=v,v,v", 1),
    ("v_maximum_f32 $0, $1, $2", "=v,v,v", 1),
    ("v_minimum_f32 $0, $2, $1", "=v,v,v", 1),
    ("v_maximum3_f32 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_minimum3_f32 $0, $3, $1, $2", "=v,v,v,v", 1),
    ("v_maximumminimum_f32 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_maximum_f64 $0, $4, $5", "=v,v,v", 2),
    ("v_minimum_f64 $0, $5, $6", "=v,v,v", 2),
    ("v_pack_b32_f16 $0, $1, $2", "=v,v,v", 1),
    ("v_pack_b32_f16 $0, -$1, |$2| op_sel:[1,0,0]", "=v,v,v", 1),
    ("v_sad_u8 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_sad_u32 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_alignbyte_b32 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_mul_hi_u32_u24 $0, $1, $2", "=v,v,v", 1),
    ("v_mul_hi_i32_i24 $0, $1, $2", "=v,v,v", 1),
    ("v_mad_u32_u16 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_mad_i32_i16 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_bfm_b32 $0, $1, $2", "=v,v,v", 1),
    ("v_xnor_b32 $0, $1, $2", "=v,v,v", 1),
    ("v_mad_co_i64_i32 $0, vcc_lo, $1, $2, $4", "=v,v,v,v", 2),
    ("v_mad_u16 $0, $1, $2, $3", "=v,v,v,v", 1),
    ("v_mad_i16 $0, $3, $2, $1", "=v,v,v,v", 1),
    ("v_max_i16 $0, $1, $2", "=v,v,v", 1),
    ("v_min_u16 $0, $1, $2", "=v,v,v", 1),
    ("v_min_i16 $0, $2, $3", "=v,v,v", 1),
    ("v_max_u16 $0, $3, $1", "=v,v,v", 1),
    ("v_and_b16 $0, $1, $2", "=v,v,v", 1),
    ("v_xor_b16 $0, $1, $3", "=v,v,v", 1),
    ("v_not_b16 $0, $2", "=v,v", 1),
    ("v_cvt_f32_ubyte0 $0, $1", "=v,v", 1),
    ("v_cvt_f32_ubyte3 $0, $2", "=v,v", 1),
    ("v_mad_nc_i64_i32 $0, $2, $3, $5", "=v,v,v,v", 2),
    // Triton 3.9's libdevice.tanh on gfx1250 (hx_sem::alu::float::tanh_f32).
    ("v_tanh_f32 $0, $1", "=v,v", 1),
    ("v_tanh_f32 $0, -|$2|", "=v,v", 1),
];

fn kernel() -> (String, usize) {
    let per: usize = OPS.iter().map(|o| o.2).sum();
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @fops(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t9 = mul i32 %tid, 9
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t9
"#,
    );
    for k in 0..3 {
        body += &format!("  %pa{k} = getelementptr inbounds i32, ptr addrspace(1) %p, i32 {k}\n  %a{k} = load i32, ptr addrspace(1) %pa{k}, align 4\n");
    }
    for k in 0..3 {
        body += &format!("  %pd{k} = getelementptr inbounds i32, ptr addrspace(1) %p, i32 {}\n  %d{k} = load i64, ptr addrspace(1) %pd{k}, align 4\n", 3 + 2 * k);
    }
    body += &format!("  %o = mul i32 %tid, {per}\n");
    let mut at = 0;
    for (k, (op, cons, dwords)) in OPS.iter().enumerate() {
        let n = cons.matches(",v").count();
        // The operands the text names, in order ($1.. are bound to the inputs they name).
        let names: Vec<usize> = (1..=6).filter(|i| op.contains(&format!("${i}"))).collect();
        assert_eq!(names.len(), n, "{op}");
        let mut text = op.to_string();
        for (j, i) in names.iter().enumerate() {
            text = text.replace(&format!("${i}"), &format!("${{{}}}", j + 1));
        }
        let text = text.replace("${", "$").replace('}', "");
        let args: Vec<String> = names.iter().map(|&i| if i <= 3 { format!("i32 %a{}", i - 1) } else { format!("i64 %d{}", i - 4) }).collect();
        let rt = if *dwords == 2 { "i64" } else { "i32" };
        let clob = if op.contains("vcc") { ",~{vcc}" } else { "" };
        body += &format!(
            "  %r{k} = call {rt} asm sideeffect \"{}\", \"{cons}{clob}\"({})\n{}",
            text.replace('\n', "\\0A"),
            args.join(", "),
            hx_tests::store_slot(&k.to_string(), rt, &format!("%r{k}"), at)
        );
        at += dwords;
    }
    body += "  ret void\n}\n";
    (body, per)
}

const F32: [u32; 16] = [0x7fc0_0001, 0xffa0_0023, 0x7f80_0000, 0xff80_0000, 0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807f_ffff, 0x3f80_0000, 0xbfc0_0000, 0x4049_0fdb, 0xc2f6_e979, 0x3eaa_aaab, 0x4b7f_ffff, 0x0000_0003, 0x0000_0066];
const F64: [u64; 16] = [
    0x7ff8_0000_0000_0001, 0xfff4_0000_0000_0023, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0, 0x8000_0000_0000_0000, 1, 0x800f_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000, 0xbff8_0000_0000_0000, 0x4009_21fb_5444_2d18, 0xc05e_dd2f_1a9f_be77, 0x3fd5_5555_5555_5555, 0x432f_ffff_ffff_ffff, 0x4004_0000_0000_0000, 0xc004_0000_0000_0000,
];

fn input() -> Vec<u8> {
    let mut v = Vec::new();
    for t in 0..64usize {
        for k in 0..3 {
            v.extend_from_slice(&F32[(t * (k + 1) + t / 16 * k) % 16].to_le_bytes());
        }
        for k in 0..3 {
            v.extend_from_slice(&F64[(t + t / 16 * (k + 2) + 5 * k) % 16].to_le_bytes());
        }
    }
    v
}

#[test]
fn math_ops_translate_bit_for_bit() {
    let (ir, per) = kernel();
    let source = hx_tests::gfx1250_object(&ir, "fops");
    let args = [Arg::Buffer(input()), Arg::Buffer(vec![0xee; 64 * 4 * per])];
    let want = hx_tests::run_1d(&source, "fops", 64, 1, &args, 1);
    hx_tests::assert_translations_match(&source, "fops", 64, 1, &args, 1, &want, per);
}

/// Scalar ops of clang 22's uniform integer math (`(signed char)k`, halves packed from two
/// kernel arguments, 64-bit bit fields, bit reverses, counts, conditional moves):
/// `s_sext_i32_i8` refused first.
/// Each runs on the values of lanes 0-7 of the inputs (read into SGPRs), so on 8 operand pairs
/// a wave.
const SOPS: &[(&str, bool)] = &[
    ("s_sext_i32_i8 $0, $1", false),
    ("s_pack_ll_b32_b16 $0, $1, $2", false),
    ("s_pack_lh_b32_b16 $0, $1, $2", false),
    ("s_pack_hl_b32_b16 $0, $1, $2", false),
    ("s_pack_hh_b32_b16 $0, $1, $2", false),
    ("s_bcnt0_i32_b32 $0, $1", false),
    ("s_bcnt0_i32_b64 $0, $3", false),
    ("s_clz_i32_u32 $0, $1", false),
    ("s_clz_i32_u64 $0, $3", false),
    ("s_cls_i32 $0, $1", false),
    ("s_absdiff_i32 $0, $1, $2", false),
    ("s_bitcmp1_b64 $3, $1\n s_cselect_b32 $0, 1, 0", false),
    ("s_bitcmp0_b64 $3, $2\n s_cselect_b32 $0, 1, 0", false),
    ("s_brev_b64 $0, $3", true),
    ("s_bfm_b64 $0, $1, $2", true),
    ("s_bfe_u64 $0, $3, $2", true),
    ("s_bfe_i64 $0, $3, $2", true),
    ("s_bfe_i64 $0, $3, 0x1f0005", true),
    ("s_bfe_u64 $0, $3, 0x400003", true),
    ("s_mov_b32 $0, $1\n s_cmp_lt_u32 $1, $2\n s_cmov_b32 $0, $2", false),
    ("s_mov_b32 $0, $1\n s_cmp_gt_u32 $1, $2\n s_cmovk_i32 $0, 0x8765", false),
    ("s_mov_b64 $0, $3\n s_bitcmp1_b32 $1, 3\n s_cmov_b64 $0, -5", true),
    // GFX12.5's scalar transcendentals (Triton 3.9's `div_rn`/`sqrt_rn` on uniform values:
    // "v_s_rcp_f32: this instruction is not raised yet"), with their float modifiers.
    ("v_s_rcp_f32 $0, $1", false),
    ("v_s_sqrt_f32 $0, $2", false),
    ("v_s_rsq_f32 $0, |$1|", false),
    ("v_s_exp_f32 $0, -$2 mul:2", false),
    ("v_s_log_f32 $0, -|$1| clamp", false),
    ("v_s_rcp_f32 $0, $2 clamp div:2", false),
];

#[test]
fn scalar_ops_translate_bit_for_bit() {
    let per: usize = 8 * SOPS.iter().map(|o| if o.1 { 2 } else { 1 }).sum::<usize>();
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @sops(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t9 = mul i32 %tid, 9
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t9
  %a = load i32, ptr addrspace(1) %p, align 4
  %pb = getelementptr inbounds i32, ptr addrspace(1) %p, i32 4
  %b = load i32, ptr addrspace(1) %pb, align 4
  %pd = getelementptr inbounds i32, ptr addrspace(1) %p, i32 5
  %d = load i64, ptr addrspace(1) %pd, align 4
  %w = lshr i32 %tid, 5
"#,
    );
    body += &format!("  %o = mul i32 %w, {per}\n");
    let mut at = 0;
    for l in 0..8 {
        body += &format!(
            "  %a{l} = call i32 @llvm.amdgcn.readlane.i32(i32 %a, i32 {l})\n  %b{l} = call i32 @llvm.amdgcn.readlane.i32(i32 %b, i32 {l})\n  %d{l} = call i64 @llvm.amdgcn.readlane.i64(i64 %d, i32 {l})\n"
        );
        for (k, (op, wide)) in SOPS.iter().enumerate() {
            let names: Vec<usize> = (1..=3).filter(|i| op.contains(&format!("${i}"))).collect();
            let mut text = op.to_string();
            for (j, i) in names.iter().enumerate() {
                text = text.replace(&format!("${i}"), &format!("$@{}", j + 1));
            }
            let text = text.replace("$@", "$").replace('\n', "\\0A");
            let args: Vec<String> = names.iter().map(|&i| match i {
                1 => format!("i32 %a{l}"),
                2 => format!("i32 %b{l}"),
                _ => format!("i64 %d{l}"),
            }).collect();
            let rt = if *wide { "i64" } else { "i32" };
            let cons = format!("=s{},~{{scc}}", ",s".repeat(names.len()));
            body += &format!(
                "  %r{l}_{k} = call {rt} asm sideeffect \"{text}\", \"{cons}\"({})\n{}",
                args.join(", "),
                hx_tests::store_slot(&format!("{l}_{k}"), rt, &format!("%r{l}_{k}"), at)
            );
            at += if *wide { 2 } else { 1 };
        }
    }
    body += "  ret void\n}\ndeclare i32 @llvm.amdgcn.readlane.i32(i32, i32)\ndeclare i64 @llvm.amdgcn.readlane.i64(i64, i32)\n";
    let source = hx_tests::gfx1250_object(&body, "sops");
    let args = [Arg::Buffer(input()), Arg::Buffer(vec![0xee; 2 * 4 * per])];
    let want = hx_tests::run_1d(&source, "sops", 64, 1, &args, 1);
    hx_tests::assert_translations_match(&source, "sops", 64, 1, &args, 1, &want, per);
}

/// Float atomics (HIP `atomicAdd(float *)`, `__hip_atomic_fetch_max` on floats and doubles):
/// `global_atomic_add_f32` refused. Lanes of a wave update four words each, in lane order, with
/// the special values above (NaN pairs of different payloads included), so the order and the
/// NaN rules of every step show in the results.
#[test]
fn float_atomics_translate_bit_for_bit() {
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @fatom(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %acc, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t9 = mul i32 %tid, 9
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t9
  %x = load float, ptr addrspace(1) %p, align 4
  %pd = getelementptr inbounds i32, ptr addrspace(1) %p, i32 3
  %y = load double, ptr addrspace(1) %pd, align 4
  %slot = and i32 %tid, 3
"#,
    );
    // (f64 min/max are refused: the targets' global_atomic_{min,max}_f64 is not modelled.)
    for (k, (op, ty)) in [("fadd", "float"), ("fmax", "float"), ("fmin", "float"), ("fadd", "double")].iter().enumerate() {
        let (v, size) = if *ty == "float" { ("%x", 4) } else { ("%y", 8) };
        body += &format!(
            "  %i{k} = add i32 %slot, {}\n  %a{k} = getelementptr inbounds i8, ptr addrspace(1) %acc, i32 {}\n  %s{k} = mul i32 %slot, {size}\n  %q{k} = getelementptr inbounds i8, ptr addrspace(1) %a{k}, i32 %s{k}\n  %r{k} = atomicrmw {op} ptr addrspace(1) %q{k}, {ty} {v} syncscope(\"agent\") monotonic, align {size}\n  %o{k} = mul i32 %tid, 4\n  %ok{k} = add i32 %o{k}, {k}\n  %po{k} = getelementptr inbounds i64, ptr addrspace(1) %out, i32 %ok{k}\n  %rb{k} = bitcast {ty} %r{k} to {}\n  %rz{k} = zext {} %rb{k} to i64\n  store i64 %rz{k}, ptr addrspace(1) %po{k}, align 8\n",
            4 * k,
            64 * k,
            if *ty == "float" { "i32" } else { "i64" },
            if *ty == "float" { "i32" } else { "i64" },
        );
    }
    body += "  ret void\n}\n";
    let body = body.replace("  %rz3 = zext i64 %rb3 to i64\n", "  %rz3 = add i64 %rb3, 0\n");
    let source = hx_tests::gfx1250_object(&body, "fatom");
    // Accumulators start as special values too.
    let acc: Vec<u8> = (0..96).flat_map(|i| F32[(5 * i + 1) % 16].to_le_bytes()).collect();
    let args = [Arg::Buffer(input()), Arg::Buffer(acc), Arg::Buffer(vec![0xee; 64 * 4 * 8])];
    for out in [1, 2] {
        let want = hx_tests::run_1d(&source, "fatom", 64, 1, &args, out);
        hx_tests::assert_translations_match(&source, "fatom", 64, 1, &args, out, &want, if out == 1 { 96 } else { 8 });
    }
}

/// The vector-memory d16 loads and stores: a load writes one half of its destination (a 16-bit
/// value, or a byte zero- or sign-extended to 16 bits) and keeps the other; a store writes the
/// low or high half (or its low byte). Triton 3.9's u8/i16 kernels store with
/// `global_store_d16_hi_b16`.
#[test]
fn d16_loads_and_stores_translate_bit_for_bit() {
    let loads = ["global_load_d16_b16", "global_load_d16_hi_b16", "global_load_d16_u8", "global_load_d16_i8", "global_load_d16_hi_u8", "global_load_d16_hi_i8"];
    let stores = ["global_store_d16_hi_b16", "global_store_d16_hi_b8", "global_store_b16", "global_store_b8"];
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @d16(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %st) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t9 = mul i32 %tid, 9
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t9
  %old = load i32, ptr addrspace(1) %p, align 4
  %pb = getelementptr inbounds i8, ptr addrspace(1) %p, i32 6
  %addr = ptrtoint ptr addrspace(1) %pb to i64
"#,
    );
    let n = loads.len() + stores.len();
    body += &format!("  %o = mul i32 %tid, {n}\n");
    for (k, op) in loads.iter().enumerate() {
        body += &format!(
            "  %r{k} = call i32 asm sideeffect \"{op} $0, $1, off\\0A s_wait_loadcnt 0\", \"=v,v,0\"(i64 %addr, i32 %old)\n{}",
            hx_tests::store_slot(&k.to_string(), "i32", &format!("%r{k}"), k)
        );
    }
    for (j, op) in stores.iter().enumerate() {
        let k = loads.len() + j;
        body += &format!(
            "  %o{k} = add i32 %o, {k}\n  %q{k} = getelementptr inbounds i32, ptr addrspace(1) %st, i32 %o{k}\n  %a{k} = ptrtoint ptr addrspace(1) %q{k} to i64\n  call void asm sideeffect \"{op} $0, $1, off\\0A s_wait_storecnt 0\", \"v,v\"(i64 %a{k}, i32 %old)\n"
        );
    }
    body += "  ret void\n}\n";
    let source = hx_tests::gfx1250_object(&body, "d16");
    let args = [Arg::Buffer(input()), Arg::Buffer(vec![0xee; 64 * 4 * n]), Arg::Buffer(vec![0x5a; 64 * 4 * n])];
    for out in [1, 2] {
        let want = hx_tests::run_1d(&source, "d16", 64, 1, &args, out);
        hx_tests::assert_translations_match(&source, "d16", 64, 1, &args, out, &want, n);
    }
}

/// The LDS d16 forms (`ds_load_u16_d16_hi` and the rest, `ds_store_b16_d16_hi`): one half of
/// the register loaded or stored, the other half kept.
#[test]
fn lds_d16_loads_and_stores_translate_bit_for_bit() {
    let loads = ["ds_load_u16_d16", "ds_load_u16_d16_hi", "ds_load_u8_d16", "ds_load_u8_d16_hi", "ds_load_i8_d16", "ds_load_i8_d16_hi"];
    let stores = ["ds_store_b16_d16_hi", "ds_store_b8_d16_hi"];
    let n = loads.len() + stores.len();
    let mut body = format!(
        r#"target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [512 x i32] poison, align 4
define amdgpu_kernel void @d16lds(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out) #0 {{
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t9 = mul i32 %tid, 9
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t9
  %old = load i32, ptr addrspace(1) %p, align 4
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %p, i32 4
  %val = load i32, ptr addrspace(1) %p2, align 4
  %l = getelementptr inbounds i32, ptr addrspace(3) @lds, i32 %tid
  store i32 %val, ptr addrspace(3) %l, align 4
  %lb = getelementptr inbounds i8, ptr addrspace(3) %l, i32 2
  %a = ptrtoint ptr addrspace(3) %lb to i32
  %o = mul i32 %tid, {n}
"#
    );
    for (k, op) in loads.iter().enumerate() {
        body += &format!(
            "  %r{k} = call i32 asm sideeffect \"s_wait_dscnt 0\\0A {op} $0, $1\\0A s_wait_dscnt 0\", \"=v,v,0\"(i32 %a, i32 %old)\n{}",
            hx_tests::store_slot(&k.to_string(), "i32", &format!("%r{k}"), k)
        );
    }
    for (j, op) in stores.iter().enumerate() {
        let k = loads.len() + j;
        body += &format!(
            "  %s{k} = getelementptr inbounds i32, ptr addrspace(3) @lds, i32 {}\n  %t{k} = getelementptr inbounds i32, ptr addrspace(3) %s{k}, i32 %tid\n  store i32 -1, ptr addrspace(3) %t{k}, align 4\n  %sa{k} = ptrtoint ptr addrspace(3) %t{k} to i32\n  call void asm sideeffect \"s_wait_dscnt 0\\0A {op} $0, $1\\0A s_wait_dscnt 0\", \"v,v\"(i32 %sa{k}, i32 %old)\n  %v{k} = load i32, ptr addrspace(3) %t{k}, align 4\n{}",
            64 * (j + 1),
            hx_tests::store_slot(&k.to_string(), "i32", &format!("%v{k}"), k)
        );
    }
    body += "  ret void\n}\n";
    let source = hx_tests::gfx1250_object(&body, "d16lds");
    let args = [Arg::Buffer(input()), Arg::Buffer(vec![0xee; 64 * 4 * n])];
    let want = hx_tests::run_1d(&source, "d16lds", 64, 1, &args, 1);
    hx_tests::assert_translations_match(&source, "d16lds", 64, 1, &args, 1, &want, n);
}

/// An f64 compare with a 32-bit literal reads it as the high half of the double (OCML's f64
/// `exp` range check `v_cmp_nlt_f64 vcc_lo, 0x40900000, v[2:3]`, 1024.0). The emulator read it
/// as the low half (a denormal), so exp gave inf or 0 everywhere in the original and, bit for
/// bit, in its translations; numpy's reference for Triton's libm_f64 case showed it. Checked here
/// against host compares, then translated.
#[test]
fn f64_compares_read_a_32_bit_literal_as_the_high_half() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @c(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds i64, ptr addrspace(1) %in, i32 %tid
  %x = load i64, ptr addrspace(1) %p, align 8
  %a = call i32 asm sideeffect "v_cmp_nlt_f64 vcc_lo, 0x40900000, $1\0A v_cndmask_b32 $0, 0, 1, vcc_lo", "=v,v,~{vcc}"(i64 %x)
  %b = call i32 asm sideeffect "v_cmp_ngt_f64_e64 s0, 0xc090cc00, $1\0A v_cndmask_b32_e64 $0, 0, 1, s0", "=v,v,~{s0}"(i64 %x)
  %o = mul i32 %tid, 2
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o
  store i32 %a, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 1
  store i32 %b, ptr addrspace(1) %q1, align 4
  ret void
}
"#;
    let xs = [0.5f64, 1023.9, 1024.0, 1024.1, 2000.0, -7.0, -1075.0, -1075.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0];
    let source = hx_tests::gfx1250_object(ir, "c");
    let mut inp: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    inp.resize(32 * 8, 0);
    let args = [Arg::Buffer(inp), Arg::Buffer(vec![0xee; 32 * 8])];
    let want = hx_tests::run_1d(&source, "c", 32, 1, &args, 1);
    for (t, x) in xs.iter().enumerate() {
        let got = |k: usize| u32::from_le_bytes(want[4 * (2 * t + k)..4 * (2 * t + k) + 4].try_into().unwrap());
        assert_eq!(got(0), !(1024.0 < *x) as u32, "nlt(1024, {x})");
        assert_eq!(got(1), !(-1075.0 > *x) as u32, "ngt(-1075, {x})");
    }
    hx_tests::assert_translations_match(&source, "c", 32, 1, &args, 1, &want, 2);
}

/// v_permlane16_swap_b32 (Triton's one-wave causal attention: "v_permlane16_swap_b32_e32: this
/// instruction is not raised yet"): lanes 16..31 of vdst trade values with lanes 0..15 of vsrc
/// (LLVM's llvm.amdgcn.permlane16.swap description), checked against that on the host, then
/// translated.
#[test]
fn permlane16_swap_translates_bit_for_bit() {
    let ir = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @sw(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %tid
  %a = load i32, ptr addrspace(1) %p, align 4
  %b = xor i32 %a, 1431655765
  %r = call { i32, i32 } asm sideeffect "v_permlane16_swap_b32 $0, $1", "=v,=v,0,1"(i32 %a, i32 %b)
  %d = extractvalue { i32, i32 } %r, 0
  %s = extractvalue { i32, i32 } %r, 1
  %o = mul i32 %tid, 2
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %o
  store i32 %d, ptr addrspace(1) %q, align 4
  %q1 = getelementptr inbounds i32, ptr addrspace(1) %q, i32 1
  store i32 %s, ptr addrspace(1) %q1, align 4
  ret void
}
"#;
    let source = hx_tests::gfx1250_object(ir, "sw");
    let xs: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x1234_5678).collect();
    let args = [Arg::Buffer(xs.iter().flat_map(|v| v.to_le_bytes()).collect()), Arg::Buffer(vec![0xee; 64 * 8])];
    let want = hx_tests::run_1d(&source, "sw", 64, 1, &args, 1);
    for t in 0..64usize {
        let (wave, l) = (t / 32 * 32, t % 32);
        let a = |lane: usize| xs[wave + lane];
        let b = |lane: usize| xs[wave + lane] ^ 0x5555_5555;
        let (d, s) = if l < 16 { (a(l), a(l + 16)) } else { (b(l - 16), b(l)) };
        let got = |k: usize| u32::from_le_bytes(want[4 * (2 * t + k)..4 * (2 * t + k) + 4].try_into().unwrap());
        assert_eq!((got(0), got(1)), (d, s), "lane {t}");
    }
    hx_tests::assert_translations_match(&source, "sw", 64, 1, &args, 1, &want, 2);
}

/// v_pk_fma_bf16, v_pk_min/max_num_bf16 (Triton's bf16 elementwise math: "packed FmaBf16 is not
/// raised yet", then v_pk_min_num_bf16). The fma is raised as one rounding (f64 TwoSum, round to
/// odd twice, then to nearest bf16); these operands include products that are exact bf16
/// midpoints plus addends far below them (where rounding the f64 or f32 sum first would round
/// to even), cancellations, infinities, NaN pairs, zeros of both signs and denormals. The
/// original computes hx-sem's soft fma; the translations must equal it bit for bit.
#[test]
fn packed_bf16_translates_bit_for_bit() {
    const OPS: [&str; 4] = ["v_pk_fma_bf16 $0, $1, $2, $3", "v_pk_min_num_bf16 $0, $1, $2", "v_pk_max_num_bf16 $0, $2, -0.5", "v_pk_fma_bf16 $0, $3, $1, -1.0"];
    let mut body = String::from(
        r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @bf(ptr addrspace(1) noalias readonly %in, ptr addrspace(1) noalias %out) #0 {
entry:
  %lid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %wg64 = mul i32 %wg, 64
  %tid = add i32 %wg64, %lid
  %t3 = mul i32 %tid, 3
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t3
  %a = load i32, ptr addrspace(1) %p, align 4
  %pb = getelementptr inbounds i32, ptr addrspace(1) %p, i32 1
  %b = load i32, ptr addrspace(1) %pb, align 4
  %pc = getelementptr inbounds i32, ptr addrspace(1) %p, i32 2
  %c = load i32, ptr addrspace(1) %pc, align 4
  %o = mul i32 %tid, 4
"#,
    );
    for (k, op) in OPS.iter().enumerate() {
        let n = (1..=3).filter(|i| op.contains(&format!("${i}"))).count();
        let args: Vec<&str> = ["i32 %a", "i32 %b", "i32 %c"][..3].iter().enumerate().filter(|(i, _)| op.contains(&format!("${}", i + 1))).map(|(_, a)| *a).collect();
        let mut text = op.to_string();
        let names: Vec<usize> = (1..=3).filter(|i| op.contains(&format!("${i}"))).collect();
        for (j, i) in names.iter().enumerate() {
            text = text.replace(&format!("${i}"), &format!("$@{}", j + 1));
        }
        let text = text.replace("$@", "$");
        let cons = format!("=v{}", ",v".repeat(n));
        body += &format!("  %r{k} = call i32 asm sideeffect \"{text}\", \"{cons}\"({})\n{}", args.join(", "), hx_tests::store_slot(&k.to_string(), "i32", &format!("%r{k}"), k));
    }
    body += "  ret void\n}\n";
    let source = hx_tests::gfx1250_object(&body, "bf");
    // bf16 pairs: (a, b, c) halves. 1 + 2^-8 (0x3f80 * 0x3f81 = 1 + 2^-7 + 2^-14 ...) style
    // midpoints, tiny addends, cancellations and specials.
    let halves: [u16; 24] = [
        0x3f81, 0x3f81, 0x2f80, 0x3f80, 0xbf80, 0x8000, 0x0000, 0x7f80, 0xff80, 0x7fc1, 0xffa2, 0x0001,
        0x8081, 0x4049, 0xc2f7, 0x3eab, 0x7f7f, 0x3f7f, 0x3fc1, 0x00a0, 0x3c01, 0xb3ff, 0x0080, 0x3f40,
    ];
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut words = Vec::new();
    for t in 0..256usize {
        for k in 0..3 {
            let (lo, hi) = if t < 64 {
                (halves[(t + 5 * k) % 24], halves[(t / 3 + 7 * k + 1) % 24])
            } else {
                let r = next();
                // Random bf16 with exponents near each other, so sums and cancellations round.
                let e = |x: u64| (((x & 0x7f) as u16) | ((0x3c + (x >> 8 & 7)) as u16) << 7 | ((x >> 12 & 1) as u16) << 15) as u16;
                (e(r), e(r >> 20))
            };
            words.push((lo as u32) | (hi as u32) << 16);
        }
    }
    // 0x3f82 * 0x3fa0 = 1.26953125 and 0x3f84 * 0x3f90 = 1.16015625 are bf16 midpoints whose tie
    // goes down to even; a tiny addend (2^-100, 0x0d80; -2^-100 in the high half) moves the
    // exact sum off the tie, so the single rounding goes up in the low half (a sum rounded to
    // f64 or f32 first would sit on the tie and go down).
    words[0] = 0x3f84_3f82;
    words[1] = 0x3f90_3fa0;
    words[2] = 0x8d80_0d80;
    let args = [Arg::Buffer(words.iter().flat_map(|w| w.to_le_bytes()).collect()), Arg::Buffer(vec![0xee; 256 * 16])];
    let want = hx_tests::run_1d(&source, "bf", 64, 4, &args, 1);
    hx_tests::assert_translations_match(&source, "bf", 64, 4, &args, 1, &want, 4);
}
