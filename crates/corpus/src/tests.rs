use std::collections::BTreeSet;
use std::path::Path;

use super::*;

fn launch_from(text: &str) -> Launch {
    let mut l = parse_launches(text, Path::new("<test>")).expect("test launch parses");
    assert_eq!(l.len(), 1);
    l.remove(0)
}

fn run(object: &str, launch: &Launch, inputs: &[ArgData]) -> Vec<ArgData> {
    reference(object, launch, inputs).unwrap_or_else(|e| panic!("{e}"))
}

fn out<T: Scalar>(launch: &Launch, data: &[ArgData], name: &str) -> Vec<T> {
    let (i, spec) = launch.arg(name).unwrap();
    assert_eq!(spec.elem, T::ELEM);
    data[i].to_vec()
}

// ---------------------------------------------------------------- the corpus as a whole

#[test]
fn every_launch_description_parses() {
    let objects = objects().unwrap();
    let kernels: Vec<&str> = objects.iter().flat_map(|o| o.kernels()).collect();
    assert!(kernels.len() >= 26, "{} kernels: {kernels:?}", kernels.len());
    let unique: BTreeSet<&str> = kernels.iter().copied().collect();
    assert_eq!(unique.len(), kernels.len(), "a kernel name is used by two objects");
    let names: Vec<&str> = objects.iter().map(|o| o.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "objects() is sorted by name");
    assert!(objects.iter().any(|o| o.kernels().len() >= 2), "some object holds several kernels");
    for o in &objects {
        assert!(o.ir_path.is_file(), "{}", o.ir_path.display());
        assert_eq!(object(&o.name).unwrap(), *o);
    }
    assert!(matches!(object("no_such_object"), Err(CorpusError::UnknownObject(_))));
}

#[test]
fn every_toml_has_an_ll_and_back() {
    for entry in std::fs::read_dir(kernels_dir()).unwrap() {
        let path = entry.unwrap().path();
        match path.extension().and_then(|e| e.to_str()) {
            Some("ll") => assert!(path.with_extension("toml").is_file(), "{} has no .toml", path.display()),
            Some("toml") => assert!(path.with_extension("ll").is_file(), "{} has no .ll", path.display()),
            _ => panic!("unexpected file {} in corpus/kernels", path.display()),
        }
    }
}

/// The IR type of each explicit parameter of `define amdgpu_kernel void @name(...)`.
fn kernel_params(ir: &str, name: &str) -> Option<Vec<String>> {
    let head = format!("define amdgpu_kernel void @{name}(");
    let start = ir.find(&head)? + head.len();
    let mut depth = 1;
    let mut end = start;
    for (i, ch) in ir[start..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let params = &ir[start..end];
    if params.trim().is_empty() {
        return Some(vec![]);
    }
    let mut out = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, ch) in params.char_indices().chain(std::iter::once((params.len(), ','))) {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                let p = params[from..i].split_whitespace().collect::<Vec<_>>().join(" ");
                let ty = if p.starts_with("ptr addrspace(1)") { "ptr addrspace(1)".to_string() } else { p.split(' ').next().unwrap().to_string() };
                out.push(ty);
                from = i + 1;
            }
            _ => {}
        }
    }
    Some(out)
}

#[test]
fn launch_arguments_match_the_kernel_signatures() {
    for o in objects().unwrap() {
        let ir = o.ir().unwrap();
        assert!(ir.contains("target triple = \"amdgcn-amd-amdhsa\""), "{}", o.name);
        assert!(ir.contains("!\"amdhsa_code_object_version\", i32 500"), "{}", o.name);
        assert!(!ir.contains("target-cpu") && !ir.contains("target-features"), "{}: no CPU attributes", o.name);
        assert!(!ir.contains("wavefrontsize"), "{}: must not depend on the wave size", o.name);
        for l in &o.launches {
            let params =
                kernel_params(&ir, &l.kernel).unwrap_or_else(|| panic!("{}: no kernel @{} in the IR", o.name, l.kernel));
            assert_eq!(params.len(), l.args.len(), "{}: @{} has {} parameters, the launch {}", o.name, l.kernel, params.len(), l.args.len());
            for (ty, a) in params.iter().zip(&l.args) {
                let ok = match a.kind {
                    ArgKind::Buffer => ty == "ptr addrspace(1)",
                    ArgKind::Value => matches!(
                        (ty.as_str(), a.elem),
                        ("i8", Elem::I8 | Elem::U8)
                            | ("i16", Elem::I16 | Elem::U16)
                            | ("i32", Elem::I32 | Elem::U32)
                            | ("i64", Elem::I64 | Elem::U64)
                            | ("half", Elem::F16)
                            | ("bfloat", Elem::Bf16)
                            | ("float", Elem::F32)
                            | ("double", Elem::F64)
                    ),
                };
                assert!(ok, "{}: @{} argument `{}` is `{ty}` in the IR, {:?} {} in the launch", o.name, l.kernel, a.name, a.kind, a.elem);
            }
        }
    }
}

#[test]
fn every_kernel_has_a_reference_and_it_writes_every_output() {
    let mut seen = BTreeSet::new();
    for o in objects().unwrap() {
        for l in &o.launches {
            seen.insert(l.kernel.clone());
            let inputs = make_inputs(l, 1);
            let after = run(&o.name, l, &inputs);
            assert_eq!(after.len(), inputs.len());
            for ((spec, before), after) in l.args.iter().zip(&inputs).zip(&after) {
                assert_eq!(before.bytes().len(), after.bytes().len(), "{}: {}", l.kernel, spec.name);
                if spec.output {
                    assert_ne!(before, after, "{}: the reference leaves output `{}` unchanged", l.kernel, spec.name);
                } else {
                    assert_eq!(before, after, "{}: the reference changes input `{}`", l.kernel, spec.name);
                }
            }
            // A run that matches the reference passes the comparison.
            compare_outputs(l, &after, &after).unwrap();
        }
    }
    let listed: BTreeSet<String> = REFERENCE_KERNELS.iter().map(|s| s.to_string()).collect();
    assert_eq!(listed, seen, "REFERENCE_KERNELS and the corpus kernels differ");
}

#[test]
fn unknown_kernel_is_an_error() {
    let mut l = objects().unwrap()[0].launches[0].clone();
    l.kernel = "no_such_kernel".into();
    let inputs = make_inputs(&l, 0);
    assert!(matches!(reference("x", &l, &inputs), Err(CorpusError::UnknownKernel { .. })));
}

#[test]
fn wrong_input_sizes_are_an_error() {
    let o = object("saxpy").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    inputs[2] = ArgData::Buffer(vec![0; 3]);
    assert!(matches!(reference("saxpy", l, &inputs), Err(CorpusError::Reference { .. })));
    assert!(reference("saxpy", l, &inputs[..2]).is_err());
}

#[test]
fn inputs_are_deterministic_and_depend_on_the_seed() {
    for o in objects().unwrap() {
        for l in &o.launches {
            let a = make_inputs(l, 42);
            assert_eq!(a, make_inputs(l, 42), "{}", l.kernel);
            let random = l.args.iter().any(|s| matches!(s.init, Init::Random(_) | Init::RandomBits));
            if random {
                assert_ne!(a, make_inputs(l, 43), "{}: seeds 42 and 43 give the same inputs", l.kernel);
            }
        }
    }
}

#[test]
fn random_floats_are_exact_multiples_in_range() {
    for o in objects().unwrap() {
        for l in &o.launches {
            let inputs = make_inputs(l, 9);
            for (spec, data) in l.args.iter().zip(&inputs) {
                let Init::Random([lo, hi]) = spec.init else { continue };
                let values: Vec<f64> = match spec.elem {
                    Elem::F32 => data.to_vec::<f32>().into_iter().map(f64::from).collect(),
                    Elem::F64 => data.to_vec::<f64>(),
                    Elem::F16 => data.to_vec::<f16>().into_iter().map(f64::from).collect(),
                    Elem::Bf16 => data.to_vec::<bf16>().into_iter().map(f64::from).collect(),
                    _ => continue,
                };
                for v in values {
                    assert!(v.is_finite() && v >= lo.as_f64() && v <= hi.as_f64(), "{}: {} = {v}", l.kernel, spec.name);
                    if matches!(spec.elem, Elem::F32 | Elem::F64) {
                        assert_eq!((v * 1024.0).fract(), 0.0, "{}: {} = {v}", l.kernel, spec.name);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------- parsing and inputs

const SMALL: &str = r#"
[[launch]]
kernel = "k"
grid = [8, 1, 1]
block = [4, 1, 1]
[[launch.args]]
name = "a"
kind = "buffer"
elem = "i16"
count = 5
init = "iota"
[[launch.args]]
name = "b"
kind = "buffer"
elem = "u8"
count = 3
init = { values = [1, 255, -1] }
[[launch.args]]
name = "c"
kind = "buffer"
elem = "f32"
count = 2
init = { fill = 0.5 }
output = true
tolerance_ulps = 2
[[launch.args]]
name = "d"
kind = "value"
elem = "i64"
value = -2
[[launch.args]]
name = "e"
kind = "buffer"
elem = "u32"
count = 200
init = { random = [10, 12] }
"#;

#[test]
fn a_small_description_parses_into_the_right_values() {
    let l = launch_from(SMALL);
    assert_eq!((l.kernel.as_str(), l.grid, l.block, l.dynamic_lds), ("k", [8, 1, 1], [4, 1, 1], 0));
    assert_eq!(l.args.len(), 5);
    assert_eq!(l.args[2].tolerance_ulps, 2);
    assert!(l.args[2].output && !l.args[0].output);
    let inputs = make_inputs(&l, 5);
    assert_eq!(inputs[0], ArgData::Buffer(vec![0, 0, 1, 0, 2, 0, 3, 0, 4, 0]));
    assert_eq!(inputs[1], ArgData::Buffer(vec![1, 255, 255]));
    assert_eq!(inputs[2], ArgData::Buffer([0.5f32.to_le_bytes(), 0.5f32.to_le_bytes()].concat()));
    assert_eq!(inputs[3], ArgData::Value((-2i64).to_le_bytes().to_vec()));
    let e = inputs[4].to_vec::<u32>();
    assert!(e.iter().all(|v| (10..=12).contains(v)));
    for v in 10..=12 {
        assert!(e.contains(&v), "{v} never drawn in 200 tries");
    }
    assert_eq!(l.args[4].byte_size(), 800);
}

#[test]
fn bad_descriptions_are_rejected() {
    let base = "[[launch]]\nkernel = \"k\"\ngrid = [4, 1, 1]\nblock = [4, 1, 1]\n[[launch.args]]\nname = \"a\"\n";
    for (bad, what) in [
        ("kind = \"buffer\"\nelem = \"f24\"\ncount = 1\n", "unknown element type"),
        ("kind = \"buffer\"\nelem = \"f32\"\n", "buffer without count"),
        ("kind = \"value\"\nelem = \"f32\"\n", "value without value"),
        ("kind = \"value\"\nelem = \"u8\"\nvalue = 256\n", "value out of range"),
        ("kind = \"value\"\nelem = \"i32\"\nvalue = 1.5\n", "fractional integer"),
        ("kind = \"buffer\"\nelem = \"u32\"\ncount = 2\noutput = true\ntolerance_ulps = 1\n", "tolerance on an integer"),
        ("kind = \"buffer\"\nelem = \"f32\"\ncount = 2\ninit = \"random_bits\"\n", "random bits for floats"),
        ("kind = \"buffer\"\nelem = \"u32\"\ncount = 2\ninit = { values = [1] }\n", "too few values"),
        ("kind = \"buffer\"\nelem = \"u32\"\ncount = 2\ninit = { random = [5, 1] }\n", "empty range"),
        ("kind = \"buffer\"\nelem = \"u32\"\ncount = 2\ncolour = 1\n", "unknown key"),
    ] {
        let text = format!("{base}{bad}");
        assert!(parse_launches(&text, Path::new("t")).is_err(), "accepted: {what}");
    }
    let zero_block = "[[launch]]\nkernel = \"k\"\ngrid = [4, 1, 1]\nblock = [0, 1, 1]\n";
    assert!(parse_launches(zero_block, Path::new("t")).is_err());
    assert!(parse_launches("", Path::new("t")).is_err());
}

#[test]
fn hidden_arguments_of_a_partial_grid() {
    let l = launch_from("[[launch]]\nkernel = \"k\"\ngrid = [200, 6, 1]\nblock = [64, 4, 1]\n");
    assert_eq!(l.workgroups(), [4, 2, 1]);
    assert_eq!(l.hidden_block_count(), [3, 1, 1]);
    assert_eq!(l.hidden_group_size(), [64, 4, 1]);
    assert_eq!(l.hidden_remainder(), [8, 2, 0]);
    assert_eq!(l.work_items(), 1200);
    assert_eq!(reference::items(&l).len(), 1200);
}

#[test]
fn ulp_distances() {
    let one = 1.0f32.to_bits() as u64;
    assert_eq!(ulp_distance(Elem::F32, one, one + 1), Some(1));
    assert_eq!(ulp_distance(Elem::F32, 0x8000_0000, 0), Some(1));
    assert_eq!(ulp_distance(Elem::F32, (-1.0f32).to_bits() as u64, one), Some(2 * 0x3f80_0000 + 1));
    assert_eq!(ulp_distance(Elem::F32, 0x7fc0_0000, one), None);
    assert_eq!(ulp_distance(Elem::F64, 1.0f64.to_bits(), 1.0f64.to_bits() + 3), Some(3));
    assert_eq!(ulp_distance(Elem::F16, 0x3c00, 0x3c02), Some(2));
}

#[test]
fn comparison_honours_tolerance_and_reports_the_first_difference() {
    let l = launch_from(SMALL);
    let expected = make_inputs(&l, 1);
    let mut actual = expected.clone();
    // `c` (f32, 2 ulps allowed): one ulp off passes, three do not.
    let c = 2;
    let bumped = |n: u32| ArgData::from_slice(&[f32::from_bits(0.5f32.to_bits() + n), 0.5]);
    actual[c] = bumped(1);
    compare_outputs(&l, &expected, &actual).unwrap();
    actual[c] = bumped(3);
    let e = compare_outputs(&l, &expected, &actual).unwrap_err().to_string();
    assert!(e.contains("`c`") && e.contains("[0]"), "{e}");
    // Non-output arguments are not compared.
    actual[c] = expected[c].clone();
    actual[0] = ArgData::Buffer(vec![9; 10]);
    compare_outputs(&l, &expected, &actual).unwrap();
}

// ---------------------------------------------------------------- references, by hand

#[test]
fn saxpy_by_hand() {
    let l = launch_from(
        r#"
[[launch]]
kernel = "saxpy"
grid = [4, 1, 1]
block = [4, 1, 1]
[[launch.args]]
name = "n"
kind = "value"
elem = "u32"
value = 3
[[launch.args]]
name = "a"
kind = "value"
elem = "f32"
value = 2.0
[[launch.args]]
name = "x"
kind = "buffer"
elem = "f32"
count = 4
init = { values = [1.0, 2.0, -3.0, 4.0] }
[[launch.args]]
name = "y"
kind = "buffer"
elem = "f32"
count = 4
init = { fill = 0.5 }
output = true
"#,
    );
    let after = run("saxpy", &l, &make_inputs(&l, 0));
    // 2*1+0.5, 2*2+0.5, 2*-3+0.5; element 3 is past n.
    assert_eq!(out::<f32>(&l, &after, "y"), vec![2.5, 4.5, -5.5, 0.5]);
}

#[test]
fn int_div32_by_hand() {
    let pad = |v: &[i64]| {
        let mut all: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        all.resize(128, "0".into());
        all.join(", ")
    };
    let text = format!(
        "[[launch]]\nkernel = \"int_div32\"\ngrid = [128, 1, 1]\nblock = [128, 1, 1]\n\
         [[launch.args]]\nname = \"a\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 128\ninit = {{ values = [{}] }}\n\
         [[launch.args]]\nname = \"b\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 128\ninit = {{ values = [{}] }}\n\
         [[launch.args]]\nname = \"q\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 128\noutput = true\n\
         [[launch.args]]\nname = \"r\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 128\noutput = true\n\
         [[launch.args]]\nname = \"uq\"\nkind = \"buffer\"\nelem = \"u32\"\ncount = 128\noutput = true\n\
         [[launch.args]]\nname = \"ur\"\nkind = \"buffer\"\nelem = \"u32\"\ncount = 128\noutput = true\n",
        pad(&[7, -7, 7, -7, -2147483648]),
        pad(&[2, 2, -1, 0, -1]),
    );
    let l = launch_from(&text);
    let after = run("int_div", &l, &make_inputs(&l, 0));
    let (q, r) = (out::<i32>(&l, &after, "q"), out::<i32>(&l, &after, "r"));
    let (uq, ur) = (out::<u32>(&l, &after, "uq"), out::<u32>(&l, &after, "ur"));
    // Signed: 7/2 = 3 r 1; -7/2 = -3 r -1 (truncation); divisors -1 and 0 become 7: 7/7 = 1, -7/7 = -1,
    // INT_MIN/7 = -306783378 r -2 (7 * 306783378 = 2147483646).
    assert_eq!(&q[..5], &[3, -3, 1, -1, -306783378]);
    assert_eq!(&r[..5], &[1, -1, 0, 0, -2]);
    // Unsigned divisor (b >> (i & 15)) | 1: i=0: 2|1 = 3; i=1: 1|1 = 1; i=2: 0xFFFFFFFF >> 2 | 1 = 0x3FFFFFFF;
    // i=3: 0 | 1 = 1; i=4: 0xFFFFFFFF >> 4 = 0x0FFFFFFF.
    // 7/3 = 2 r 1; 0xFFFFFFF9/1; 7/0x3FFFFFFF = 0 r 7; 0xFFFFFFF9/1; 0x80000000/0x0FFFFFFF = 8 r 8.
    assert_eq!(&uq[..5], &[2, 0xFFFF_FFF9, 0, 0xFFFF_FFF9, 8]);
    assert_eq!(&ur[..5], &[1, 0, 7, 0, 8]);
    // Zero padding: a = 0 gives 0 everywhere.
    assert!(q[5..].iter().chain(&r[5..]).all(|&v| v == 0));
}

#[test]
fn lds_reduce_follows_the_tree_order() {
    let mut x = vec!["0.0".to_string(); 256];
    x[0] = "16777216.0".into();
    x[1] = "1.0".into();
    x[129] = "1.0".into();
    let text = format!(
        "[[launch]]\nkernel = \"lds_reduce\"\ngrid = [256, 1, 1]\nblock = [256, 1, 1]\n\
         [[launch.args]]\nname = \"x\"\nkind = \"buffer\"\nelem = \"f32\"\ncount = 256\ninit = {{ values = [{}] }}\n\
         [[launch.args]]\nname = \"v\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 256\ninit = \"iota\"\n\
         [[launch.args]]\nname = \"outf\"\nkind = \"buffer\"\nelem = \"f32\"\ncount = 1\noutput = true\n\
         [[launch.args]]\nname = \"outi\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 1\noutput = true\n",
        x.join(", ")
    );
    let l = launch_from(&text);
    let after = run("lds_reduce", &l, &make_inputs(&l, 0));
    // The tree first adds x[1] + x[129] = 2, and only in the last step 2^24 + 2 (exact). Adding left
    // to right would give 2^24 (2^24 + 1 rounds to even, twice).
    assert_eq!(out::<f32>(&l, &after, "outf"), vec![16777218.0]);
    // 0 + 1 + ... + 255
    assert_eq!(out::<i32>(&l, &after, "outi"), vec![32640]);
}

#[test]
fn bf16_rounds_after_every_operation() {
    let l = launch_from(
        r#"
[[launch]]
kernel = "bf16_math"
grid = [256, 1, 1]
block = [256, 1, 1]
[[launch.args]]
name = "a"
kind = "buffer"
elem = "bf16"
count = 256
init = { fill = 1.0 }
[[launch.args]]
name = "b"
kind = "buffer"
elem = "bf16"
count = 256
init = { fill = 0.01171875 }
[[launch.args]]
name = "x"
kind = "buffer"
elem = "f32"
count = 256
init = { fill = 1.0078125 }
[[launch.args]]
name = "n"
kind = "buffer"
elem = "i32"
count = 256
init = { fill = 100001 }
[[launch.args]]
name = "m"
kind = "buffer"
elem = "bf16"
count = 256
output = true
[[launch.args]]
name = "fx"
kind = "buffer"
elem = "f32"
count = 256
output = true
[[launch.args]]
name = "tr"
kind = "buffer"
elem = "bf16"
count = 256
output = true
[[launch.args]]
name = "ci"
kind = "buffer"
elem = "bf16"
count = 256
output = true
[[launch.args]]
name = "ti"
kind = "buffer"
elem = "i32"
count = 256
output = true
"#,
    );
    let after = run("bf16_math", &l, &make_inputs(&l, 0));
    // b = 3 * 2^-8. a + b = 1 + 1.5 * 2^-7: a tie between 1 + 2^-7 and 1 + 2^-6, to even: 1 + 2^-6.
    // (1 + 2^-6) * 3 * 2^-8 = 195 * 2^-14, exact in bf16: exponent -7 (0x78), mantissa 67 -> 0x3C43.
    // (Without rounding the sum, 1.01171875 * 0.01171875 = 194.25 * 2^-14 would give 194 * 2^-14.)
    let m = out::<bf16>(&l, &after, "m");
    assert!(m.iter().all(|v| v.to_bits() == 0x3C43), "{:#x}", m[0].to_bits());
    // fx = 195 * 2^-14 + 1.0078125, exact in f32.
    assert!(out::<f32>(&l, &after, "fx").iter().all(|&v| v == 195.0 / 16384.0 + 1.0078125));
    // x * 1.5 = 1.51171875 = 193.5 * 2^-7: a tie, to even 194 * 2^-7 = 1.515625 (0x3FC2).
    assert!(out::<bf16>(&l, &after, "tr").iter().all(|v| v.to_bits() == 0x3FC2));
    // 100001 with 8 significant bits: steps of 512 around it; 100001 / 512 = 195.3 -> 195 * 512 = 99840.
    assert!(out::<bf16>(&l, &after, "ci").iter().all(|v| v.to_f32() == 99840.0));
    assert!(out::<i32>(&l, &after, "ti").iter().all(|&v| v == 0));
}

#[test]
fn hidden_args_by_hand() {
    let o = object("hidden_args").unwrap();
    let l = &o.launches[0];
    let after = run("hidden_args", l, &make_inputs(l, 0));
    // 200 x 6 in 64 x 4: 3 x 1 full groups, remainders 8 and 2.
    assert_eq!(out::<u32>(l, &after, "info"), vec![3, 1, 1, 64, 4, 1, 8, 2, 0]);
    let o_ = out::<u32>(l, &after, "out");
    // (0, 0): local size 64 x 4 -> 64 << 16 | 4 << 24.
    assert_eq!(o_[0], 71_303_168);
    // (199, 5) is in the partial group in both dimensions: 199 | 5 << 8 | 8 << 16 | 2 << 24.
    assert_eq!(o_[5 * 200 + 199], 199 + 1280 + 524_288 + 33_554_432);
    // (130, 3): full group in x (wg 2), full in y: 130 | 3 << 8 | 64 << 16 | 4 << 24.
    assert_eq!(o_[3 * 200 + 130], 130 + 768 + 4_194_304 + 67_108_864);
}

fn one_wave(kernel: &str, outs: &[&str]) -> Launch {
    let mut text = format!(
        "[[launch]]\nkernel = \"{kernel}\"\ngrid = [32, 1, 1]\nblock = [32, 1, 1]\n\
         [[launch.args]]\nname = \"in\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 32\ninit = \"iota\"\n"
    );
    for o in outs {
        text += &format!("[[launch.args]]\nname = \"{o}\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 32\noutput = true\n");
    }
    launch_from(&text)
}

#[test]
fn wave_dpp_by_hand() {
    let l = one_wave("wave_dpp", &["shr", "qp", "mir", "hmir", "ror", "scan", "rowm"]);
    let a = run("wave_dpp", &l, &make_inputs(&l, 0));
    let get = |n: &str| out::<i32>(&l, &a, n);
    // Lane l holds l.
    let shr = get("shr");
    assert_eq!((shr[0], shr[1], shr[15], shr[16], shr[17]), (0xDEAD, 0, 14, 0xDEAD, 16));
    assert_eq!(&get("qp")[..8], &[2, 3, 0, 1, 6, 7, 4, 5]);
    let mir = get("mir");
    assert_eq!((mir[0], mir[15], mir[16], mir[31]), (15, 0, 31, 16));
    let hmir = get("hmir");
    assert_eq!((hmir[0], hmir[7], hmir[8], hmir[20]), (7, 0, 15, 19));
    let ror = get("ror");
    assert_eq!((ror[0], ror[2], ror[3], ror[16], ror[31]), (13, 15, 0, 29, 28));
    let scan = get("scan");
    // 0+1+2 = 3; 0+..+15 = 120; row 1 starts again: 16; 16+..+31 = 376.
    assert_eq!((scan[2], scan[15], scan[16], scan[31]), (3, 120, 16, 376));
    let rowm = get("rowm");
    assert_eq!((rowm[0], rowm[13], rowm[14], rowm[15], rowm[16], rowm[29]), (2, 15, 7, 7, 7, 7));
}

#[test]
fn wave_permute_by_hand() {
    let l = one_wave("wave_permute", &["bp1", "bp2", "perm", "swx", "swb", "swr", "swq"]);
    let a = run("wave_permute", &l, &make_inputs(&l, 0));
    let get = |n: &str| out::<i32>(&l, &a, n);
    let bp1 = get("bp1");
    // (5l + 3) & 31: l=0 -> 3, l=1 -> 8, l=7 -> 38 & 31 = 6.
    assert_eq!((bp1[0], bp1[1], bp1[7]), (3, 8, 6));
    assert_eq!((get("bp2")[0], get("bp2")[31]), (31, 0));
    // Lane l sends l to lane (7l + 1) & 31: 0 -> 1, 1 -> 8, 5 -> 36 & 31 = 4, 9 -> 64 & 31 = 0.
    let perm = get("perm");
    assert_eq!((perm[1], perm[8], perm[4], perm[0]), (0, 1, 5, 9));
    assert_eq!(&get("swx")[..4], &[1, 0, 3, 2]);
    let swb = get("swb");
    assert_eq!((swb[0], swb[5], swb[13], swb[31]), (3, 3, 11, 27));
    assert_eq!((get("swr")[0], get("swr")[10]), (31, 21));
    assert_eq!(&get("swq")[..8], &[3, 2, 1, 0, 7, 6, 5, 4]);
}

#[test]
fn wave_ballot_by_hand() {
    // Lane l holds l - 10: positive from lane 11 on, odd for odd l.
    let vals: Vec<String> = (0..32).map(|l| (l - 10).to_string()).collect();
    let text = format!(
        "[[launch]]\nkernel = \"wave_ballot\"\ngrid = [32, 1, 1]\nblock = [32, 1, 1]\n\
         [[launch.args]]\nname = \"in\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 32\ninit = {{ values = [{}] }}\n\
         [[launch.args]]\nname = \"masks\"\nkind = \"buffer\"\nelem = \"u64\"\ncount = 1\noutput = true\n\
         [[launch.args]]\nname = \"below\"\nkind = \"buffer\"\nelem = \"u32\"\ncount = 32\noutput = true\n\
         [[launch.args]]\nname = \"lanes\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 32\noutput = true\n\
         [[launch.args]]\nname = \"oddfirst\"\nkind = \"buffer\"\nelem = \"i32\"\ncount = 32\ninit = {{ fill = -99 }}\noutput = true\n\
         [[launch.args]]\nname = \"oddmask\"\nkind = \"buffer\"\nelem = \"u64\"\ncount = 32\noutput = true\n",
        vals.join(", ")
    );
    let l = launch_from(&text);
    let a = run("wave_ballot", &l, &make_inputs(&l, 0));
    // Lanes 11..31 positive.
    assert_eq!(out::<u64>(&l, &a, "masks"), vec![0xFFFF_F800]);
    let below = out::<u32>(&l, &a, "below");
    assert_eq!((below[0], below[11], below[12], below[31]), (0, 0, 1, 20));
    // f = -10, r5 = -5, r31 = 21: -30 - 25 + 147 = 92, plus lane 7's 21 or the lane's own value.
    let lanes = out::<i32>(&l, &a, "lanes");
    assert_eq!((lanes[0], lanes[7], lanes[8], lanes[31]), (92 - 10, 92 + 21, 92 - 2, 92 + 21));
    // Odd lanes are 1, 3, ..., 31: the first holds -9; their mask is 0xAAAAAAAA. Even lanes keep -99 / 0.
    let (of, om) = (out::<i32>(&l, &a, "oddfirst"), out::<u64>(&l, &a, "oddmask"));
    assert_eq!((of[0], of[1], of[31]), (-99, -9, -9));
    assert_eq!((om[0], om[1], om[31]), (0, 0xAAAA_AAAA, 0xAAAA_AAAA));
}

#[test]
fn int64_math_by_hand() {
    let text = "[[launch]]\nkernel = \"int64_math\"\ngrid = [64, 1, 1]\nblock = [64, 1, 1]\n\
         [[launch.args]]\nname = \"x\"\nkind = \"buffer\"\nelem = \"u64\"\ncount = 64\ninit = { fill = -1 }\n\
         [[launch.args]]\nname = \"y\"\nkind = \"buffer\"\nelem = \"u64\"\ncount = 64\ninit = { fill = 65 }\n\
         [[launch.args]]\nname = \"out\"\nkind = \"buffer\"\nelem = \"u64\"\ncount = 512\noutput = true\n";
    let l = launch_from(text);
    let a = run("int64_math", &l, &make_inputs(&l, 0));
    let o = out::<u64>(&l, &a, "out");
    let m = u64::MAX;
    // x = 2^64 - 1 (-1), y = 65, work-item 3:
    let w = &o[24..32];
    // (-1)*65 + (-1 - 65) = -131
    assert_eq!(w[0], (-131i64) as u64);
    // shifts by 65 & 63 = 1; ashr by (65 >> 6) & 63 = 1 keeps -1
    assert_eq!((w[1], w[2], w[3]), (m - 1, m >> 1, m));
    // (2^64 - 1) * 65 = 64 * 2^64 + (2^64 - 65): high word 64
    assert_eq!(w[4], 64);
    // fshl(x, y, 3) = x << 3 | y >> 61 = ...11111000 | 0
    assert_eq!(w[5], m << 3);
    // ctpop(x) = 64, ctlz(65) = 57, cttz(x | 2^63) = 0
    assert_eq!(w[6], 64 + (57 << 8));
    // smax(-1, 65) = 65, umin = 65: cancel; bitreverse(x) = x; bswap(65) = 65 << 56; abs(-1) = 1
    assert_eq!(w[7], (m ^ (65u64 << 56)).wrapping_add(1));
}

/// `"amdgpu-flat-work-group-size"="min,max"` of kernel `name`, if it has one.
fn flat_work_group_size(ir: &str, name: &str) -> Option<(u64, u64)> {
    let start = ir.find(&format!("define amdgpu_kernel void @{name}("))?;
    let body = start + ir[start..].find('{')?;
    let group = ir[start..body].split_whitespace().rev().find(|w| w.starts_with('#'))?;
    let attrs = ir.lines().find(|l| l.starts_with(&format!("attributes {group} = ")))?;
    let key = "\"amdgpu-flat-work-group-size\"=\"";
    let rest = &attrs[attrs.find(key)? + key.len()..];
    let (lo, hi) = rest[..rest.find('"')?].split_once(',')?;
    Some((lo.parse().ok()?, hi.parse().ok()?))
}

#[test]
fn launches_respect_the_kernels_work_group_size_and_wave_rules() {
    const WAVE_OPS: &[&str] = &[
        "llvm.amdgcn.ballot",
        "llvm.amdgcn.readlane",
        "llvm.amdgcn.readfirstlane",
        "llvm.amdgcn.writelane",
        "llvm.amdgcn.update.dpp",
        "llvm.amdgcn.mov.dpp",
        "llvm.amdgcn.ds.bpermute",
        "llvm.amdgcn.ds.permute",
        "llvm.amdgcn.ds.swizzle",
        "llvm.amdgcn.mbcnt",
    ];
    for o in objects().unwrap() {
        let ir = o.ir().unwrap();
        let wave_level = WAVE_OPS.iter().any(|op| ir.contains(op));
        for l in &o.launches {
            let size: u64 = l.block.iter().map(|&b| b as u64).product();
            // Every corpus kernel states its work-group size range, and the launch fits it.
            let (lo, hi) = flat_work_group_size(&ir, &l.kernel)
                .unwrap_or_else(|| panic!("{}: no \"amdgpu-flat-work-group-size\"", l.kernel));
            assert!((lo..=hi).contains(&size), "{}: block {:?} outside [{lo}, {hi}]", l.kernel, l.block);
            if wave_level {
                // One wave32, or the lower half of one wave64: the results agree on both.
                assert_eq!(l.block, [32, 1, 1], "{}: wave-level kernels run in groups of exactly 32", l.kernel);
                assert_eq!(l.hidden_remainder(), [0, 0, 0], "{}", l.kernel);
            }
        }
    }
    assert_eq!(flat_work_group_size("define amdgpu_kernel void @k(i32 %x) #3 {\nattributes #3 = { \"amdgpu-flat-work-group-size\"=\"32,64\" }\n", "k"), Some((32, 64)));
}

#[test]
fn the_bitonic_network_of_the_kernel_sorts() {
    // Run the kernel's compare-exchange network step by step (as lds_bitonic.ll does, one barrier
    // per step) and check it agrees with the reference, which simply sorts.
    let mut rng = SplitMix64::new(3);
    for _ in 0..20 {
        let mut s: Vec<u32> = (0..256).map(|_| (rng.next_u64() % 50) as u32).collect();
        let mut sorted = s.clone();
        sorted.sort_unstable();
        let mut k = 2;
        while k <= 256 {
            let mut j = k >> 1;
            while j > 0 {
                for t in 0..256usize {
                    let p = t ^ j;
                    if p > t {
                        let (a, b) = (s[t], s[p]);
                        let swap = if t & k == 0 { a > b } else { a < b };
                        if swap {
                            s.swap(t, p);
                        }
                    }
                }
                j >>= 1;
            }
            k <<= 1;
        }
        assert_eq!(s, sorted);
    }
}

#[test]
fn f16_rounds_after_every_operation() {
    let mut text = String::from("[[launch]]\nkernel = \"f16_math\"\ngrid = [512, 1, 1]\nblock = [128, 1, 1]\n");
    for (name, elem, init) in [
        ("a", "f16", "{ fill = 1.0 }"),
        ("b", "f16", "{ fill = 0.00048828125 }"),
        ("c", "f32", "{ fill = 0.1 }"),
    ] {
        text += &format!("[[launch.args]]\nname = \"{name}\"\nkind = \"buffer\"\nelem = \"{elem}\"\ncount = 512\ninit = {init}\n");
    }
    for (name, elem) in [("h", "f16"), ("e", "f32"), ("t", "f16"), ("k", "i32"), ("s", "f16")] {
        text += &format!("[[launch.args]]\nname = \"{name}\"\nkind = \"buffer\"\nelem = \"{elem}\"\ncount = 512\noutput = true\n");
    }
    let l = launch_from(&text);
    let a = run("f16_math", &l, &make_inputs(&l, 0));
    // a*b = 2^-11; 1 + 2^-11 is a tie between 1 and 1 + 2^-10 (f16 spacing at 1): to even, 1.0.
    assert!(out::<f16>(&l, &a, "h").iter().all(|v| v.to_bits() == 0x3C00));
    // e = 1.0 * c
    assert!(out::<f32>(&l, &a, "e").iter().all(|&v| v == 0.1));
    // c*3 in f32 is 0.30000000447; f16 steps of 2^-12 there: 1228.8 -> 1229 * 2^-12 = 0.300048828125,
    // exponent -2 (13 << 10) and mantissa 205: 0x34CD.
    assert!(out::<f16>(&l, &a, "t").iter().all(|v| v.to_bits() == 0x34CD));
    assert!(out::<i32>(&l, &a, "k").iter().all(|&v| v == 1));
    // s[i] = (i - 256) + 1: -255 at 0, +0 at 255, 45 at 300.
    let s = out::<f16>(&l, &a, "s");
    assert_eq!((s[0].to_f32(), s[255].to_bits(), s[300].to_f32()), (-255.0, 0x0000, 45.0));
}

// ---------------------------------------------------------------- gfx1250-only kernels

/// The launch of corpus object `name` with buffer `arg` replaced by `values` in `inputs`.
fn set_input<T: Scalar>(l: &Launch, inputs: &mut [ArgData], arg: &str, values: &[T]) {
    let (i, spec) = l.arg(arg).unwrap();
    assert_eq!((spec.elem, spec.count), (T::ELEM, values.len()), "{arg}");
    inputs[i] = ArgData::from_slice(values);
}

#[test]
fn gfx1250_only_objects_list_their_target() {
    for name in ["wmma_f16", "wmma_f16_acc", "wmma_bf16", "wmma_f32", "wmma_fp8", "wmma_iu8", "softmax_wave", "fp8_quant", "async_pipeline", "split_barrier", "cache_policy", "tensor_tile"] {
        let o = object(name).unwrap();
        assert_eq!(o.targets, ["gfx1250"], "{name}");
        assert!(o.builds_for("gfx1250") && !o.builds_for("gfx942") && !o.builds_for("gfx950"));
    }
    for name in ["saxpy", "pk_f32", "vgpr_high"] {
        assert_eq!(object(name).unwrap().targets, ALL_TARGETS, "{name}");
    }
    let launch = "[[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\n";
    let (t, _) = parse_description(&format!("targets = [\"gfx950\", \"gfx1250\"]\n{launch}"), Path::new("t")).unwrap();
    assert_eq!(t, ["gfx1250", "gfx950"], "kept in the canonical order");
    for bad in ["targets = []", "targets = [\"gfx90a\"]", "targets = [\"gfx942\", \"gfx942\"]", "targets = \"gfx942\""] {
        assert!(parse_description(&format!("{bad}\n{launch}"), Path::new("t")).is_err(), "accepted {bad}");
    }
}

#[test]
fn random_choice_picks_only_listed_values() {
    let l = launch_from(
        "[[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\n[[launch.args]]\nname = \"x\"\nkind = \"buffer\"\n\
         elem = \"u8\"\ncount = 400\ninit = { random_choice = [0, 0x30, 0xc7] }\n",
    );
    let v = make_inputs(&l, 3)[0].to_vec::<u8>();
    for want in [0u8, 0x30, 0xc7] {
        assert!(v.contains(&want), "{want:#x} never picked");
    }
    assert!(v.iter().all(|x| [0u8, 0x30, 0xc7].contains(x)));
    let empty = "[[launch]]\nkernel = \"k\"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\n[[launch.args]]\nname = \"x\"\nkind = \"buffer\"\n\
                 elem = \"u8\"\ncount = 4\ninit = { random_choice = [] }\n";
    assert!(parse_launches(empty, Path::new("t")).is_err());
    let too_big = empty.replace("[]", "[256]");
    assert!(parse_launches(&too_big, Path::new("t")).is_err());
}

#[test]
fn wmma_f16_by_hand() {
    let o = object("wmma_f16").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    // A = [I | I] (A[m][k] = 1 where k == m or k == m + 16), B[k][n] = k + n/8, C[m][n] = m - n:
    // D[m][n] = B[m][n] + B[m+16][n] + C[m][n] = (2m + 16 + n/4) + m - n.
    let a: Vec<f16> = (0..512).map(|i| f16::from_f32(if i % 32 == i / 32 || i % 32 == i / 32 + 16 { 1.0 } else { 0.0 })).collect();
    let bt: Vec<f16> = (0..512).map(|i| f16::from_f32((i % 32) as f32 + (i / 32) as f32 / 8.0)).collect();
    let c: Vec<f32> = (0..256).map(|i| (i % 16) as f32 - (i / 16) as f32).collect();
    set_input(l, &mut inputs, "a", &a);
    set_input(l, &mut inputs, "bt", &bt);
    set_input(l, &mut inputs, "c", &c);
    let d = out::<f32>(l, &run("wmma_f16", l, &inputs), "d");
    for n in 0..16 {
        for m in 0..16 {
            assert_eq!(d[n * 16 + m], (3 * m) as f32 + 16.0 + n as f32 / 4.0 - n as f32, "D[{m}][{n}] (column-major)");
        }
    }
    // Inputs too wide for an exact sum are refused, not rounded in some guessed order.
    let wide: Vec<f16> = (0..512).map(|i| f16::from_f32(if i % 2 == 0 { 1000.0 } else { 1.0 / 1024.0 })).collect();
    set_input(l, &mut inputs, "a", &wide);
    set_input(l, &mut inputs, "bt", &wide);
    assert!(matches!(reference("wmma_f16", l, &inputs), Err(CorpusError::Reference { .. })));
}

#[test]
fn wmma_fp8_formats_by_hand() {
    let o = object("wmma_fp8").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    // Every byte 0x38: fp8 1.0, bf8 0.5. Each D element sums 64 equal products.
    set_input(l, &mut inputs, "a", &vec![0x38u8; 1024]);
    set_input(l, &mut inputs, "bt", &vec![0x38u8; 1024]);
    let r = run("wmma_fp8", l, &inputs);
    assert!(out::<f32>(l, &r, "dff").iter().all(|&v| v == 64.0));
    assert!(out::<f32>(l, &r, "dbb").iter().all(|&v| v == 64.0 * 0.25));
    assert!(out::<f32>(l, &r, "dfb").iter().all(|&v| v == 64.0 * 0.5));
    // A NaN byte is refused.
    let mut a = vec![0x38u8; 1024];
    a[5] = 0x7f;
    set_input(l, &mut inputs, "a", &a);
    assert!(reference("wmma_fp8", l, &inputs).is_err());
}

#[test]
fn wmma_iu8_signedness_by_hand() {
    let o = object("wmma_iu8").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    // A all 0xff (signed: -1), B all 0xff (unsigned: 255): 64 products of -255.
    set_input(l, &mut inputs, "a", &vec![-1i8; 1024]);
    set_input(l, &mut inputs, "bt", &vec![255u8; 1024]);
    let c: Vec<i32> = (0..256).collect();
    set_input(l, &mut inputs, "c", &c);
    let d = out::<i32>(l, &run("wmma_iu8", l, &inputs), "d");
    assert_eq!((d[0], d[17], d[255]), (-16320, -16320 + 17, -16320 + 255));
}

#[test]
fn softmax_of_equal_scores_is_uniform() {
    let o = object("softmax_wave").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    // Row 0: all 3.0; row 1: lane 5 is 1 higher than the rest (2^1 = 2 times the weight).
    let mut x = vec![3.0f32; 128];
    x[32..64].fill(-1.0);
    x[32 + 5] = 0.0;
    set_input(l, &mut inputs, "in", &x);
    let r = run("softmax_wave", l, &inputs);
    let (p, mx, sm) = (out::<f32>(l, &r, "p"), out::<f32>(l, &r, "mx"), out::<f32>(l, &r, "sm"));
    assert!(p[..32].iter().all(|&v| v == 1.0 / 32.0));
    assert_eq!((mx[0], sm[0], mx[1], sm[1]), (3.0, 32.0, 0.0, 1.0 + 31.0 * 0.5));
    assert_eq!((p[32 + 5], p[32]), (1.0 / 16.5, 0.5 / 16.5));
}

#[test]
fn fp8_quant_saturates_and_keeps_subnormals() {
    let o = object("fp8_quant").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    let mut big = vec![1.0f32; 128];
    big[..4].copy_from_slice(&[600.0, -500.0, 447.0, 0.3]);
    let mut small = vec![0.0f32; 128];
    small[..4].copy_from_slice(&[2f32.powi(-9), -3.0 * 2f32.powi(-10), 0.0, -0.0009765625]);
    set_input(l, &mut inputs, "big", &big);
    set_input(l, &mut inputs, "small", &small);
    let r = run("fp8_quant", l, &inputs);
    let q = out::<u16>(l, &r, "qf8");
    // Byte 0 from big (600 and -500 saturate to +-448 = 0x7e/0xfe, 447 rounds to 448, 0.3 -> 0.3125),
    // byte 1 from small (smallest subnormal, a tie to even 2 subnormal steps, +0, -2^-10 -> -0).
    assert_eq!(&q[..4], &[0x017e, 0x82fe, 0x007e, 0x802a]);
    let dq = out::<f32>(l, &r, "deqf8");
    assert_eq!(&dq[..8], &[448.0, 2f32.powi(-9), -448.0, -2.0 * 2f32.powi(-9), 448.0, 0.0, 0.3125, -0.0]);
    assert!(dq[7].is_sign_negative());
    // bf8: 600 -> 640 (spacing 128 above 512), -500 -> -512, 447 -> 448, 0.3 -> 0.3125.
    let dqb = out::<f32>(l, &r, "deqbf8");
    assert_eq!((dqb[0], dqb[2], dqb[4], dqb[6]), (640.0, -512.0, 448.0, 0.3125));
    // The f16 path rounds to f16 first; these values are exact in f16, so it agrees.
    assert_eq!(&out::<u16>(l, &r, "qh8")[..4], &q[..4]);
    let dh = out::<f16>(l, &r, "deqh8");
    assert_eq!(dh[0].to_f32(), 448.0);
}

#[test]
fn async_pipeline_and_split_barrier_by_hand() {
    let o = object("async_pipeline").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    let x: Vec<f32> = (0..512).map(|i| i as f32).collect();
    set_input(l, &mut inputs, "in", &x);
    let y = out::<f32>(l, &run("async_pipeline", l, &inputs), "out");
    // Tile 5 (work-group 1, tile 1) starts at 320: lane 3 reads itself and lane 35.
    assert_eq!((y[0], y[320 + 3], y[320 + 40]), (32.0, 2.0 * 323.0 + 355.0, 2.0 * 360.0 + 328.0));

    let o = object("split_barrier").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    let x: Vec<i32> = (0..256).collect();
    set_input(l, &mut inputs, "in", &x);
    let r = run("split_barrier", l, &inputs);
    let (sq, nb) = (out::<i32>(l, &r, "sq"), out::<i32>(l, &r, "nb"));
    assert_eq!((sq[3], sq[130]), (9 ^ 3, (130 * 130) ^ 2));
    // Work-group 1, lane 100: lds[(100 + 37) & 127 = 9] = 3*137 + 1, lds[27] = 3*155 + 1.
    assert_eq!(nb[228], 412 + 466);

    let o = object("cache_policy").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    let x: Vec<i32> = (0..128).map(|i| i * 10).collect();
    set_input(l, &mut inputs, "in", &x);
    let r = run("cache_policy", l, &inputs);
    assert_eq!((out::<i32>(l, &r, "out")[3], out::<i32>(l, &r, "flag")[63]), (30 + 670, 630));
}

#[test]
fn pk_f32_by_hand() {
    let o = object("pk_f32").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    set_input(l, &mut inputs, "u", &vec![0u64; 64]);
    set_input(l, &mut inputs, "x", &vec![0.0f64; 64]);
    let r = run("pk_f32", l, &inputs);
    assert!(out::<u64>(l, &r, "ii").iter().all(|&v| v == 0x1234_5678_9abc_def1 ^ 0x0f1f_2f3f_4f5f_7178));
    assert!(out::<f64>(l, &r, "dd").iter().all(|&v| v == 3.3));
    let (a, b) = (out::<f32>(l, &inputs, "a"), out::<f32>(l, &inputs, "b"));
    assert_eq!(out::<f32>(l, &r, "mul")[7], a[7] * b[7]);
}

#[test]
fn wmma_launches_stay_exact_for_many_seeds() {
    // The WMMA references refuse inputs whose exact result is not an f32 (see reference/gfx1250.rs);
    // the launch ranges must never produce such inputs, whatever the seed.
    for name in ["wmma_f16", "wmma_f16_acc", "wmma_bf16", "wmma_f32", "wmma_fp8", "wmma_iu8"] {
        let o = object(name).unwrap();
        for seed in 0..64 {
            reference(name, &o.launches[0], &make_inputs(&o.launches[0], seed)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
}

#[test]
fn wmma_f16_acc_by_hand() {
    let o = object("wmma_f16_acc").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    // A all 0.5, B all 1 except B[k][3] = -1, C[m][n] = m/2: D[m][n] = 16 + m/2, or -16 + m/2 in column 3.
    let a = vec![f16::from_f32(0.5); 512];
    let bt: Vec<f16> = (0..512).map(|i| f16::from_f32(if i / 32 == 3 { -1.0 } else { 1.0 })).collect();
    let c: Vec<f16> = (0..256).map(|i| f16::from_f32((i % 16) as f32 / 2.0)).collect();
    set_input(l, &mut inputs, "a", &a);
    set_input(l, &mut inputs, "bt", &bt);
    set_input(l, &mut inputs, "c", &c);
    let to_bf = |v: &[f16]| v.iter().map(|x| bf16::from_f32(x.to_f32())).collect::<Vec<_>>();
    set_input(l, &mut inputs, "ab", &to_bf(&a));
    set_input(l, &mut inputs, "bbt", &to_bf(&bt));
    set_input(l, &mut inputs, "cb", &to_bf(&c));
    let r = run("wmma_f16_acc", l, &inputs);
    let (d, db) = (out::<f16>(l, &r, "d"), out::<bf16>(l, &r, "db"));
    for n in 0..16 {
        for m in 0..16 {
            let want = if n == 3 { -16.0 } else { 16.0 } + m as f32 / 2.0;
            assert_eq!((d[n * 16 + m].to_f32(), db[n * 16 + m].to_f32()), (want, want), "D[{m}][{n}]");
        }
    }
}

#[test]
fn vgpr_high_is_horner_from_the_last_value() {
    let o = object("vgpr_high").unwrap();
    let l = &o.launches[0];
    let mut inputs = make_inputs(l, 0);
    let mut x = vec![0i32; 9600];
    x[5] = 1; // v_0 of work-item 5: added last, weight 1
    x[32 + 6] = 1; // v_1 of work-item 6: weight 31
    x[64 + 7] = 2; // v_2 of work-item 7: weight 961
    x[32 * 299 + 8] = 1; // v_299 of work-item 8: weight 31^299 (wrapping)
    set_input(l, &mut inputs, "in", &x);
    let y = out::<i32>(l, &run("vgpr_high", l, &inputs), "out");
    assert_eq!((y[5], y[6], y[7], y[0]), (1, 31, 1922, 0));
    assert_eq!(y[8], (0..299).fold(1i32, |p, _| p.wrapping_mul(31)));
}
