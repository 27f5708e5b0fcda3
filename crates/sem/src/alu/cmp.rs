//! Comparisons: the 16 floating-point predicates, the 8 integer predicates, and a parser from
//! compare mnemonics (v_cmp_*, v_cmpx_*, s_cmp_*, s_cmpk_*) to (type, predicate).
//!
//! Float predicates follow the ISA's definitions: the "n" forms are the negations of the
//! ordered ones (so they are true on unordered operands): nge = !(a >= b), nlg = !(a <> b),
//! ngt, nle, neq = !(a == b), nlt; lg = ordered and not equal; o = both ordered; u = either NaN.
//! Comparisons ignore denormal flushing of the mode except where the caller flushes operands.

use super::soft::F16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatPred {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    Tru,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntPred {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
    T,
}

impl FloatPred {
    /// The predicate for the 4-bit VOPC opcode offset (f=0 ... tru=15).
    pub fn from_index(i: u32) -> FloatPred {
        use FloatPred::*;
        [F, Lt, Eq, Le, Gt, Lg, Ge, O, U, Nge, Nlg, Ngt, Nle, Neq, Nlt, Tru][(i & 15) as usize]
    }
    pub fn from_name(s: &str) -> Option<FloatPred> {
        use FloatPred::*;
        Some(match s {
            "f" => F,
            "lt" => Lt,
            "eq" => Eq,
            "le" => Le,
            "gt" => Gt,
            "lg" => Lg,
            "ge" => Ge,
            "o" => O,
            "u" => U,
            "nge" => Nge,
            "nlg" => Nlg,
            "ngt" => Ngt,
            "nle" => Nle,
            "neq" => Neq,
            "nlt" => Nlt,
            "tru" | "t" => Tru,
            _ => return None,
        })
    }
    /// Evaluate on two values already widened to f64 (exact for f16/f32).
    #[allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)] // NaN-aware negations
    pub fn eval(self, a: f64, b: f64) -> bool {
        use FloatPred::*;
        let unord = a.is_nan() || b.is_nan();
        match self {
            F => false,
            Lt => a < b,
            Eq => a == b,
            Le => a <= b,
            Gt => a > b,
            Lg => !unord && a != b,
            Ge => a >= b,
            O => !unord,
            U => unord,
            Nge => !(a >= b),
            Nlg => !(!unord && a != b),
            Ngt => !(a > b),
            Nle => !(a <= b),
            Neq => !(a == b),
            Nlt => !(a < b),
            Tru => true,
        }
    }
}

impl IntPred {
    pub fn from_name(s: &str) -> Option<IntPred> {
        use IntPred::*;
        Some(match s {
            "f" => F,
            "lt" => Lt,
            "eq" => Eq,
            "le" => Le,
            "gt" => Gt,
            "ne" | "lg" => Ne,
            "ge" => Ge,
            "t" | "tru" => T,
            _ => return None,
        })
    }
}

pub fn cmp_f32(p: FloatPred, a: u32, b: u32) -> bool {
    p.eval(f32::from_bits(a) as f64, f32::from_bits(b) as f64)
}
pub fn cmp_f64(p: FloatPred, a: u64, b: u64) -> bool {
    p.eval(f64::from_bits(a), f64::from_bits(b))
}
pub fn cmp_f16(p: FloatPred, a: u32, b: u32) -> bool {
    let w = |x: u32| f64::from_bits(super::soft::convert(F16, super::soft::F64, (x & 0xffff) as u64));
    p.eval(w(a), w(b))
}

/// Integer compare of `bits`-wide values (16, 32 or 64), signed or unsigned. Operands are
/// bit patterns; bits above `bits` are ignored.
pub fn cmp_int(p: IntPred, signed: bool, bits: u32, a: u64, b: u64) -> bool {
    use std::cmp::Ordering::*;
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (a, b) = (a & mask, b & mask);
    let ord = if signed {
        super::int::sext(a, bits).cmp(&super::int::sext(b, bits))
    } else {
        a.cmp(&b)
    };
    match p {
        IntPred::F => false,
        IntPred::Lt => ord == Less,
        IntPred::Eq => ord == Equal,
        IntPred::Le => ord != Greater,
        IntPred::Gt => ord == Greater,
        IntPred::Ne => ord != Equal,
        IntPred::Ge => ord != Less,
        IntPred::T => true,
    }
}

/// The operand type of a compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpKind {
    Float { bits: u32, pred: FloatPred },
    Int { bits: u32, signed: bool, pred: IntPred },
    /// v_cmp_class_f16/f32/f64: S1 is the class mask.
    Class { bits: u32 },
}

/// A parsed compare mnemonic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CmpName {
    pub kind: CmpKind,
    /// v_cmpx_*: the result is written to EXEC (GFX12: only EXEC; GFX9: EXEC and the SGPR dst).
    pub writes_exec: bool,
    /// s_cmp_* / s_cmpk_*: the result goes to SCC.
    pub scalar: bool,
    /// s_cmpk_*: S1 is a 16-bit literal (zero-extended for _u32, sign-extended for _i32).
    pub k_imm: bool,
}

impl CmpName {
    /// Evaluate the compare on operand bit patterns (for Class, `b` is the mask).
    pub fn eval(&self, a: u64, b: u64) -> bool {
        match self.kind {
            CmpKind::Float { bits: 16, pred } => cmp_f16(pred, a as u32, b as u32),
            CmpKind::Float { bits: 32, pred } => cmp_f32(pred, a as u32, b as u32),
            CmpKind::Float { pred, .. } => cmp_f64(pred, a, b),
            CmpKind::Int { bits, signed, pred } => cmp_int(pred, signed, bits, a, b),
            CmpKind::Class { bits: 16 } => super::float::cmp_class_f16(a as u32, b as u32),
            CmpKind::Class { bits: 32 } => super::float::cmp_class_f32(a as u32, b as u32),
            CmpKind::Class { .. } => super::float::cmp_class_f64(a, b as u32),
        }
    }
}

/// Parse "v_cmp_ge_u32", "v_cmpx_lt_f32_e64", "s_cmp_lg_u32", "s_cmpk_gt_u32", "v_cmp_class_f32",
/// "s_cmp_eq_u64", "v_cmp_neq_f16_t16" ... Encoding suffixes (_e32, _e64, _dpp, _sdwa, _t16,
/// _fake16) are ignored.
pub fn parse_cmp(name: &str) -> Option<CmpName> {
    let mut n = name;
    for suf in ["_e32", "_e64", "_dpp", "_sdwa", "_fake16", "_t16"] {
        if let Some(s) = n.strip_suffix(suf) {
            n = s;
        }
    }
    let (rest, writes_exec, scalar, k_imm) = if let Some(r) = n.strip_prefix("v_cmpx_") {
        (r, true, false, false)
    } else if let Some(r) = n.strip_prefix("v_cmp_") {
        (r, false, false, false)
    } else if let Some(r) = n.strip_prefix("s_cmpk_") {
        (r, false, true, true)
    } else if let Some(r) = n.strip_prefix("s_cmp_") {
        (r, false, true, false)
    } else {
        return None;
    };
    let (pred, ty) = rest.split_once('_')?;
    let (tchar, bits) = ty.split_at(1);
    let bits: u32 = bits.parse().ok()?;
    if !matches!(bits, 16 | 32 | 64) {
        return None;
    }
    let kind = if pred == "class" {
        if tchar != "f" || scalar {
            return None;
        }
        CmpKind::Class { bits }
    } else {
        match tchar {
            "f" => CmpKind::Float { bits, pred: FloatPred::from_name(pred)? },
            "i" | "u" => CmpKind::Int { bits, signed: tchar == "i", pred: IntPred::from_name(pred)? },
            _ => return None,
        }
    };
    Some(CmpName { kind, writes_exec, scalar, k_imm })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_predicates_truth_table() {
        let (one, two, nan) = (1.0f32.to_bits(), 2.0f32.to_bits(), f32::NAN.to_bits());
        use FloatPred::*;
        // (pred, 1<2, 2<1... i.e. (1,2), (2,1), (1,1), (1,nan))
        let table = [
            (F, [false, false, false, false]),
            (Lt, [true, false, false, false]),
            (Eq, [false, false, true, false]),
            (Le, [true, false, true, false]),
            (Gt, [false, true, false, false]),
            (Lg, [true, true, false, false]),
            (Ge, [false, true, true, false]),
            (O, [true, true, true, false]),
            (U, [false, false, false, true]),
            (Nge, [true, false, false, true]),
            (Nlg, [false, false, true, true]),
            (Ngt, [true, false, true, true]),
            (Nle, [false, true, false, true]),
            (Neq, [true, true, false, true]),
            (Nlt, [false, true, true, true]),
            (Tru, [true, true, true, true]),
        ];
        for (i, (p, want)) in table.into_iter().enumerate() {
            assert_eq!(FloatPred::from_index(i as u32), p);
            let got = [cmp_f32(p, one, two), cmp_f32(p, two, one), cmp_f32(p, one, one), cmp_f32(p, one, nan)];
            assert_eq!(got, want, "{p:?}");
            assert_eq!(cmp_f64(p, 1f64.to_bits(), f64::NAN.to_bits()), want[3]);
            assert_eq!(cmp_f16(p, 0x3c00, 0x4000), want[0]);
        }
        // Signed zeros compare equal.
        assert!(cmp_f32(Eq, 0, 0x8000_0000));
        assert!(!cmp_f32(Lt, 0x8000_0000, 0));
    }

    #[test]
    fn int_predicates() {
        use IntPred::*;
        assert!(cmp_int(Lt, true, 32, 0xffff_ffff, 0));
        assert!(!cmp_int(Lt, false, 32, 0xffff_ffff, 0));
        assert!(cmp_int(Gt, false, 64, u64::MAX, 0));
        assert!(cmp_int(Lt, true, 64, u64::MAX, 0));
        assert!(cmp_int(Lt, true, 16, 0x8000, 0x7fff));
        assert!(cmp_int(Eq, false, 16, 0x1_0005, 0x5)); // high bits ignored
        assert!(cmp_int(Ne, false, 32, 1, 2));
        assert!(cmp_int(Ge, true, 32, 5, 5) && cmp_int(Le, true, 32, 5, 5));
        assert!(!cmp_int(F, true, 32, 5, 5) && cmp_int(T, true, 32, 5, 6));
    }

    #[test]
    fn parse_names() {
        let c = parse_cmp("v_cmp_ge_u32_e64").unwrap();
        assert_eq!(c.kind, CmpKind::Int { bits: 32, signed: false, pred: IntPred::Ge });
        assert!(!c.writes_exec && !c.scalar);
        let c = parse_cmp("v_cmpx_lt_f32").unwrap();
        assert_eq!(c.kind, CmpKind::Float { bits: 32, pred: FloatPred::Lt });
        assert!(c.writes_exec);
        let c = parse_cmp("s_cmp_lg_u32").unwrap();
        assert_eq!(c.kind, CmpKind::Int { bits: 32, signed: false, pred: IntPred::Ne });
        assert!(c.scalar && !c.k_imm);
        let c = parse_cmp("s_cmpk_gt_u32").unwrap();
        assert!(c.k_imm);
        assert_eq!(parse_cmp("v_cmp_class_f32").unwrap().kind, CmpKind::Class { bits: 32 });
        assert_eq!(
            parse_cmp("v_cmp_ne_u64_e32").unwrap().kind,
            CmpKind::Int { bits: 64, signed: false, pred: IntPred::Ne }
        );
        assert_eq!(parse_cmp("v_cmp_u_f32").unwrap().kind, CmpKind::Float { bits: 32, pred: FloatPred::U });
        assert_eq!(
            parse_cmp("v_cmp_neq_f16_t16").unwrap().kind,
            CmpKind::Float { bits: 16, pred: FloatPred::Neq }
        );
        assert!(parse_cmp("v_cmp_lg_u32").is_some());
        assert!(parse_cmp("v_cmp_foo_u32").is_none());
        assert!(parse_cmp("v_cmp_lt_u8").is_none());
        assert!(parse_cmp("v_add_f32").is_none());
        assert!(parse_cmp("v_cmp_eq_u32").unwrap().eval(7, 7));
        assert!(parse_cmp("v_cmp_class_f64").unwrap().eval(f64::NAN.to_bits(), 2));
    }
}
