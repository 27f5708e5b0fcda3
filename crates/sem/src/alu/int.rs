//! Integer and bitwise VALU operations (CDNA3/CDNA4 and RDNA4/GFX12.5 pseudocode). Shift
//! amounts are masked to the operand width (`& 31`, `& 63`, `& 15`), as the hardware does.
//! "rev" shifts take the shift amount as their *first* operand (v_lshlrev_b32 d, amt, val).

// ---- add / sub with carry ---------------------------------------------------------------

/// v_add_co_u32 (GFX9 v_add_co_u32, GFX12 v_add_co_u32): (sum, carry-out).
pub fn add_co_u32(a: u32, b: u32) -> (u32, bool) {
    a.overflowing_add(b)
}
/// v_addc_co_u32 (GFX9) / v_add_co_ci_u32 (GFX10+): a + b + carry-in -> (sum, carry-out).
pub fn addc_u32(a: u32, b: u32, cin: bool) -> (u32, bool) {
    let t = a as u64 + b as u64 + cin as u64;
    (t as u32, t >> 32 != 0)
}
/// v_sub_co_u32: a - b -> (difference, borrow = b > a).
pub fn sub_co_u32(a: u32, b: u32) -> (u32, bool) {
    (a.wrapping_sub(b), b > a)
}
/// v_subb_co_u32 (GFX9) / v_sub_co_ci_u32: a - b - borrow-in -> (difference, borrow-out).
pub fn subb_u32(a: u32, b: u32, bin: bool) -> (u32, bool) {
    (a.wrapping_sub(b).wrapping_sub(bin as u32), b as u64 + bin as u64 > a as u64)
}
/// v_add_co_u32 etc. with the VOP3 clamp bit: unsigned saturation.
pub fn add_u32_clamp(a: u32, b: u32) -> u32 {
    a.saturating_add(b)
}
pub fn sub_u32_clamp(a: u32, b: u32) -> u32 {
    a.saturating_sub(b)
}
pub fn add_i32_clamp(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}
pub fn sub_i32_clamp(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}

// ---- multiplies ----------------------------------------------------------------------------

pub fn mul_lo_u32(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}
pub fn mul_hi_i32(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}
fn u24(x: u32) -> u64 {
    (x & 0xff_ffff) as u64
}
fn i24(x: u32) -> i64 {
    ((x << 8) as i32 >> 8) as i64
}
pub fn mul_u32_u24(a: u32, b: u32) -> u32 {
    (u24(a) * u24(b)) as u32
}
pub fn mul_hi_u32_u24(a: u32, b: u32) -> u32 {
    ((u24(a) * u24(b)) >> 32) as u32
}
pub fn mul_i32_i24(a: u32, b: u32) -> u32 {
    (i24(a) * i24(b)) as u32
}
pub fn mul_hi_i32_i24(a: u32, b: u32) -> u32 {
    ((i24(a) * i24(b)) >> 32) as u32
}
pub fn mad_u32_u24(a: u32, b: u32, c: u32) -> u32 {
    mul_u32_u24(a, b).wrapping_add(c)
}
pub fn mad_i32_i24(a: u32, b: u32, c: u32) -> u32 {
    mul_i32_i24(a, b).wrapping_add(c)
}
pub fn mad_u32_u16(a: u32, b: u32, c: u32) -> u32 {
    ((a & 0xffff) * (b & 0xffff)).wrapping_add(c)
}
pub fn mad_i32_i16(a: u32, b: u32, c: u32) -> u32 {
    ((a as i16 as i32).wrapping_mul(b as i16 as i32)).wrapping_add(c as i32) as u32
}
/// v_mad_u32 (GFX12.5): low 32 bits of a*b + c.
pub fn mad_u32(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}
/// v_mad_u64_u32: {carry, D} = 65-bit a*b + c.
pub fn mad_u64_u32(a: u32, b: u32, c: u64) -> (u64, bool) {
    let t = a as u128 * b as u128 + c as u128;
    (t as u64, t >> 64 != 0)
}
/// v_mad_i64_i32: {D1, D} = 65-bit signed a*b + c; the flag is bit 64 of the 65-bit result
/// (i.e. the result's sign extension bit), per the ISA pseudocode `65'I(S0)*65'I(S1)+65'I(S2)`.
pub fn mad_i64_i32(a: u32, b: u32, c: u64) -> (u64, bool) {
    let t = a as i32 as i128 * b as i32 as i128 + c as i64 as i128;
    (t as u64, (t >> 64) & 1 != 0)
}
/// v_mad_nc_u64_u32 / v_mad_nc_i64_i32 (GFX12.5): the same without the carry output.
pub fn mad_nc_u64_u32(a: u32, b: u32, c: u64) -> u64 {
    mad_u64_u32(a, b, c).0
}
pub fn mad_nc_i64_i32(a: u32, b: u32, c: u64) -> u64 {
    mad_i64_i32(a, b, c).0
}
/// v_mul_u64 (GFX12.5): low 64 bits.
pub fn mul_u64(a: u64, b: u64) -> u64 {
    a.wrapping_mul(b)
}

// ---- three-operand integer ops -------------------------------------------------------------

pub fn add3_u32(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b).wrapping_add(c)
}
/// v_xad_u32: (a ^ b) + c.
pub fn xad_u32(a: u32, b: u32, c: u32) -> u32 {
    (a ^ b).wrapping_add(c)
}
/// v_lshl_add_u32: (a << (b & 31)) + c.
pub fn lshl_add_u32(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)).wrapping_add(c)
}
/// v_add_lshl_u32: (a + b) << (c & 31).
pub fn add_lshl_u32(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b) << (c & 31)
}
pub fn lshl_or_b32(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)) | c
}
pub fn and_or_b32(a: u32, b: u32, c: u32) -> u32 {
    (a & b) | c
}
pub fn or3_b32(a: u32, b: u32, c: u32) -> u32 {
    a | b | c
}
pub fn xor3_b32(a: u32, b: u32, c: u32) -> u32 {
    a ^ b ^ c
}
/// v_lshl_add_u64: (a << (b & 7)) + c. The CDNA guide limits the shift to 0..4 and says
/// larger counts act as 0; that is modelled.
pub fn lshl_add_u64(a: u64, b: u32, c: u64) -> u64 {
    let s = b & 7;
    let s = if s > 4 { 0 } else { s };
    (a << s).wrapping_add(c)
}
/// v_bitop3_b32 with truth table `ttbl`: `D[i] = ttbl[{a[i], b[i], c[i]}]`.
pub fn bitop3_b32(a: u32, b: u32, c: u32, ttbl: u8) -> u32 {
    let mut r = 0;
    for i in 0..8 {
        if ttbl >> i & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            r |= x & y & z;
        }
    }
    r
}

// ---- bitfields -------------------------------------------------------------------------------

/// v_bfe_u32: (a >> (b & 31)) & ((1 << (c & 31)) - 1). Width 0 gives 0.
pub fn bfe_u32(a: u32, b: u32, c: u32) -> u32 {
    let w = c & 31;
    (a >> (b & 31)) & ((1u32 << w).wrapping_sub(1))
}
/// v_bfe_i32: the field sign-extended from bit width-1. Width 0 gives 0.
pub fn bfe_i32(a: u32, b: u32, c: u32) -> u32 {
    let w = c & 31;
    if w == 0 {
        return 0;
    }
    let v = (a as i32) >> (b & 31);
    ((v << (32 - w)) >> (32 - w)) as u32
}
/// v_bfi_b32: (a & b) | (!a & c).
pub fn bfi_b32(a: u32, b: u32, c: u32) -> u32 {
    (a & b) | (!a & c)
}
/// v_bfm_b32: ((1 << (a & 31)) - 1) << (b & 31).
pub fn bfm_b32(a: u32, b: u32) -> u32 {
    ((1u32 << (a & 31)).wrapping_sub(1)) << (b & 31)
}
/// v_alignbit_b32: ({a, b} >> (c & 31)) low 32 bits; a holds the high half.
pub fn alignbit_b32(a: u32, b: u32, c: u32) -> u32 {
    ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
}
/// v_alignbyte_b32: ({a, b} >> 8 * (c & 3)).
pub fn alignbyte_b32(a: u32, b: u32, c: u32) -> u32 {
    ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32
}
/// v_perm_b32: each result byte selects from the 8 bytes of {a, b} (a = high half, so
/// selector 0..3 = bytes of b, 4..7 = bytes of a); 8..11 = sign of byte 1/3/5/7 replicated;
/// 12 = 0x00; 13 and above = 0xff.
pub fn perm_b32(a: u32, b: u32, sel: u32) -> u32 {
    let data = ((a as u64) << 32) | b as u64;
    let byte = |i: u32| ((data >> (8 * i)) & 0xff) as u32;
    let mut r = 0;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let v = match s {
            0..=7 => byte(s),
            8..=11 => {
                let src = 2 * (s - 8) + 1;
                if byte(src) & 0x80 != 0 { 0xff } else { 0 }
            }
            12 => 0,
            _ => 0xff,
        };
        r |= v << (8 * k);
    }
    r
}

// ---- bit counting ----------------------------------------------------------------------------

/// v_bcnt_u32_b32: popcount(a) + b.
pub fn bcnt_u32_b32(a: u32, b: u32) -> u32 {
    a.count_ones().wrapping_add(b)
}
/// v_mbcnt_lo_u32_b32: popcount of the mask bits of lanes below `lane` among lanes 0..31, + acc.
pub fn mbcnt_lo(mask: u32, lane: u32, acc: u32) -> u32 {
    let below = if lane >= 32 { u32::MAX } else { (1u32 << lane) - 1 };
    (mask & below).count_ones().wrapping_add(acc)
}
/// v_mbcnt_hi_u32_b32: the same for lanes 32..63 (mask = the high half of the 64-bit mask).
pub fn mbcnt_hi(mask: u32, lane: u32, acc: u32) -> u32 {
    let below = if lane < 32 { 0 } else if lane >= 64 { u32::MAX } else { (1u32 << (lane - 32)) - 1 };
    (mask & below).count_ones().wrapping_add(acc)
}
pub fn bfrev_b32(a: u32) -> u32 {
    a.reverse_bits()
}
/// v_ffbh_u32 / GFX12 v_clz_i32_u32: leading zeros, -1 (0xffffffff) for 0.
pub fn ffbh_u32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}
/// v_ffbl_b32 / GFX12 v_ctz_i32_b32: trailing zeros, -1 for 0.
pub fn ffbl_b32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}
/// v_ffbh_i32 / GFX12 v_cls_i32: count of leading bits equal to the sign bit, excluding the
/// sign bit itself... precisely: index (from the MSB) of the first bit differing from bit 31;
/// -1 if all bits are equal (0 and 0xffffffff).
pub fn ffbh_i32(a: u32) -> u32 {
    let x = if (a as i32) < 0 { !a } else { a };
    if x == 0 { u32::MAX } else { x.leading_zeros() }
}

// ---- 64-bit and 16-bit -----------------------------------------------------------------------

pub fn lshlrev_b64(amt: u32, v: u64) -> u64 {
    v << (amt & 63)
}
pub fn lshrrev_b64(amt: u32, v: u64) -> u64 {
    v >> (amt & 63)
}
pub fn ashrrev_i64(amt: u32, v: u64) -> u64 {
    ((v as i64) >> (amt & 63)) as u64
}
pub fn lshlrev_b32(amt: u32, v: u32) -> u32 {
    v << (amt & 31)
}
pub fn lshrrev_b32(amt: u32, v: u32) -> u32 {
    v >> (amt & 31)
}
pub fn ashrrev_i32(amt: u32, v: u32) -> u32 {
    ((v as i32) >> (amt & 31)) as u32
}
pub fn lshlrev_b16(amt: u32, v: u32) -> u32 {
    ((v as u16) << (amt & 15)) as u32
}
pub fn lshrrev_b16(amt: u32, v: u32) -> u32 {
    ((v as u16) >> (amt & 15)) as u32
}
pub fn ashrrev_i16(amt: u32, v: u32) -> u32 {
    ((v as i16) >> (amt & 15)) as u16 as u32
}
pub fn add_u16(a: u32, b: u32) -> u32 {
    (a as u16).wrapping_add(b as u16) as u32
}
pub fn sub_u16(a: u32, b: u32) -> u32 {
    (a as u16).wrapping_sub(b as u16) as u32
}
pub fn mul_lo_u16(a: u32, b: u32) -> u32 {
    (a as u16).wrapping_mul(b as u16) as u32
}
pub fn add_nc_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}
pub fn sub_nc_u64(a: u64, b: u64) -> u64 {
    a.wrapping_sub(b)
}

/// Integer min/max/med3 of a given signedness and width, on zero-extended bit patterns.
pub fn min_u(a: u64, b: u64) -> u64 {
    a.min(b)
}
pub fn max_u(a: u64, b: u64) -> u64 {
    a.max(b)
}
/// Signed min/max on `bits`-wide values (sign bit at bits-1); the result is masked to width.
pub fn min_s(a: u64, b: u64, bits: u32) -> u64 {
    if sext(a, bits) < sext(b, bits) { a } else { b }
}
pub fn max_s(a: u64, b: u64, bits: u32) -> u64 {
    if sext(a, bits) >= sext(b, bits) { a } else { b }
}
pub fn sext(x: u64, bits: u32) -> i64 {
    ((x << (64 - bits)) as i64) >> (64 - bits)
}
pub fn med3_u(a: u64, b: u64, c: u64) -> u64 {
    a.max(b).min(a.min(b).max(c))
}
pub fn med3_s(a: u64, b: u64, c: u64, bits: u32) -> u64 {
    max_s(min_s(a, b, bits), min_s(max_s(a, b, bits), c, bits), bits)
}

/// v_cndmask_b32: `cond ? b : a` (cond = the lane's VCC / SGPR-mask bit).
pub fn cndmask(a: u64, b: u64, cond: bool) -> u64 {
    if cond { b } else { a }
}

/// v_sad_u32 / v_sad_u8 / v_msad_u8 (sum of absolute differences).
pub fn sad_u32(a: u32, b: u32, c: u32) -> u32 {
    a.abs_diff(b).wrapping_add(c)
}
pub fn sad_u8(a: u32, b: u32, c: u32) -> u32 {
    (0..4).fold(c, |acc, i| acc.wrapping_add(((a >> (8 * i)) as u8).abs_diff((b >> (8 * i)) as u8) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alu::Rng;

    #[test]
    fn carries() {
        assert_eq!(add_co_u32(0xffff_ffff, 1), (0, true));
        assert_eq!(add_co_u32(5, 6), (11, false));
        assert_eq!(addc_u32(0xffff_ffff, 0, true), (0, true));
        assert_eq!(addc_u32(0xffff_fffe, 0, true), (0xffff_ffff, false));
        assert_eq!(addc_u32(0xffff_ffff, 0xffff_ffff, true), (0xffff_ffff, true));
        assert_eq!(sub_co_u32(3, 5), ((-2i32) as u32, true));
        assert_eq!(sub_co_u32(5, 5), (0, false));
        assert_eq!(subb_u32(5, 5, true), (u32::MAX, true));
        assert_eq!(subb_u32(6, 5, true), (0, false));
        assert_eq!(subb_u32(0, 0xffff_ffff, true), (0, true));
        // 64-bit add through lo/hi carry chain equals u64 add.
        let mut r = Rng(1);
        for _ in 0..2000 {
            let (a, b) = (r.next(), r.next());
            let (lo, c) = add_co_u32(a as u32, b as u32);
            let (hi, _) = addc_u32((a >> 32) as u32, (b >> 32) as u32, c);
            assert_eq!((hi as u64) << 32 | lo as u64, a.wrapping_add(b));
            let (lo, c) = sub_co_u32(a as u32, b as u32);
            let (hi, bo) = subb_u32((a >> 32) as u32, (b >> 32) as u32, c);
            assert_eq!((hi as u64) << 32 | lo as u64, a.wrapping_sub(b));
            assert_eq!(bo, b > a);
        }
        assert_eq!(add_u32_clamp(u32::MAX, 3), u32::MAX);
        assert_eq!(sub_i32_clamp(0x8000_0000, 1), 0x8000_0000);
    }

    #[test]
    fn multiplies() {
        assert_eq!(mul_hi_u32(0xffff_ffff, 0xffff_ffff), 0xffff_fffe);
        assert_eq!(mul_hi_i32(0xffff_ffff, 0xffff_ffff), 0); // -1 * -1 = 1
        assert_eq!(mul_hi_i32(0x8000_0000, 2), 0xffff_ffff);
        assert_eq!(mul_lo_u32(0x1_0001, 0x1_0001), 0x0002_0001);
        // 24-bit: the high byte is ignored.
        assert_eq!(mul_u32_u24(0xff00_0003, 0x0100_0005), 15);
        assert_eq!(mul_u32_u24(0xff_ffff, 0xff_ffff), 0xfe00_0001);
        assert_eq!(mul_hi_u32_u24(0xff_ffff, 0xff_ffff), 0xffff);
        assert_eq!(mul_i32_i24(0x00ff_ffff, 3), (-3i32) as u32); // 0xffffff is -1 in 24 bits
        assert_eq!(mul_hi_i32_i24(0x0080_0000, 0x0080_0000), 0x4000); // (-2^23)^2 = 2^46
        assert_eq!(mad_u32_u24(0x100_0002, 3, 10), 16);
        assert_eq!(mad_i32_i24(0xff_ffff, 5, 5), 0);
        assert_eq!(mad_u32(0x8000_0000, 2, 7), 7);
        // mad_u64_u32 carry: max*max + max = 2^64 - 2^33 + 1 + 2^64 - 1 overflows.
        assert_eq!(mad_u64_u32(u32::MAX, u32::MAX, u64::MAX), (0xffff_fffe_0000_0000, true));
        assert_eq!(mad_u64_u32(u32::MAX, u32::MAX, 0), (0xffff_fffe_0000_0001, false));
        assert_eq!(mad_u64_u32(u32::MAX, u32::MAX, 0x1_ffff_fffe), (0xffff_ffff_ffff_ffff, false));
        assert_eq!(mad_u64_u32(u32::MAX, u32::MAX, 0x1_ffff_ffff), (0, true));
        assert_eq!(mad_i64_i32(u32::MAX, 1, 0), (u64::MAX, true)); // -1: bit 64 of 65-bit is set
        assert_eq!(mad_i64_i32(2, 3, 4), (10, false));
        assert_eq!(mad_nc_u64_u32(3, 4, 5), 17);
        assert_eq!(mul_u64(u64::MAX, 3), u64::MAX - 2);
        let mut r = Rng(2);
        for _ in 0..2000 {
            let (a, b, c) = (r.u32(), r.u32(), r.next());
            let (lo, cy) = mad_u64_u32(a, b, c);
            let exact = a as u128 * b as u128 + c as u128;
            assert_eq!((lo, cy), (exact as u64, exact >= 1 << 64));
        }
    }

    #[test]
    fn three_operand() {
        assert_eq!(add3_u32(u32::MAX, 1, 5), 5);
        assert_eq!(xad_u32(0xf0, 0xff, 1), 0x10);
        assert_eq!(lshl_add_u32(3, 33, 1), 7); // shift masked to 1
        assert_eq!(add_lshl_u32(1, 2, 4), 48);
        assert_eq!(lshl_or_b32(1, 4, 1), 17);
        assert_eq!(and_or_b32(0xff00, 0x0ff0, 1), 0x0f01);
        assert_eq!(or3_b32(1, 2, 4), 7);
        assert_eq!(xor3_b32(7, 2, 4), 1);
        assert_eq!(lshl_add_u64(1, 4, 1), 17);
        assert_eq!(lshl_add_u64(1, 5, 1), 2); // unsupported shift counts act as 0
        assert_eq!(lshl_add_u64(u64::MAX, 1, 2), 0);
        assert_eq!(bitop3_b32(0xf0f0, 0xcccc, 0xaaaa, 0x96), 0xf0f0 ^ 0xcccc ^ 0xaaaa);
        assert_eq!(bitop3_b32(0xf0f0, 0xcccc, 0, 0x40), 0xf0f0 & 0xcccc);
        assert_eq!(bitop3_b32(0xf0f0, 0xcccc, 0xaaaa, 0xea), (0xf0f0 & 0xcccc) | 0xaaaa);
    }

    #[test]
    fn bitfields() {
        assert_eq!(bfe_u32(0xdead_beef, 8, 8), 0xbe);
        assert_eq!(bfe_u32(0xdead_beef, 0, 0), 0); // width 0
        assert_eq!(bfe_u32(0xdead_beef, 4, 32), 0); // width masked to 0
        assert_eq!(bfe_u32(0xdead_beef, 4, 31), 0x0dea_dbee);
        assert_eq!(bfe_u32(0xdead_beef, 36, 4), 0xe); // offset masked to 4
        assert_eq!(bfe_u32(0xdead_beef, 28, 8), 0xd); // field runs off the top
        assert_eq!(bfe_i32(0x0000_0080, 4, 4), 0xffff_fff8);
        assert_eq!(bfe_i32(0x0000_0070, 4, 4), 7);
        assert_eq!(bfe_i32(0x8000_0000, 31, 1), u32::MAX);
        assert_eq!(bfe_i32(0x8000_0000, 0, 0), 0);
        assert_eq!(bfe_i32(0xdead_beef, 28, 8), 0xffff_fffd); // arithmetic shift fills sign
        assert_eq!(bfi_b32(0x00ff_00ff, 0x1234_5678, 0xabcd_ef01), 0xab34_ef78);
        assert_eq!(bfm_b32(4, 8), 0xf00);
        assert_eq!(bfm_b32(0, 8), 0);
        assert_eq!(bfm_b32(32, 0), 0); // width masked
        assert_eq!(alignbit_b32(0x1234_5678, 0x9abc_def0, 8), 0x789a_bcde);
        assert_eq!(alignbit_b32(0x1234_5678, 0x9abc_def0, 0), 0x9abc_def0);
        assert_eq!(alignbit_b32(0x1234_5678, 0x9abc_def0, 32), 0x9abc_def0);
        assert_eq!(alignbyte_b32(0x1234_5678, 0x9abc_def0, 3), 0x3456_789a);
        // v_perm_b32: {S0, S1} = 0x11223344_55667788; selector 0x07060504 picks S0 unchanged,
        // 0x03020100 S1; 0x0c = 0x00, 0x0d = 0xff; 0x08 = sign of byte 1 (0x77 -> 0x00),
        // 0x0b = sign of byte 7 (0x11 -> 0x00).
        let (a, b) = (0x1122_3344, 0x5566_7788);
        assert_eq!(perm_b32(a, b, 0x0706_0504), a);
        assert_eq!(perm_b32(a, b, 0x0302_0100), b);
        assert_eq!(perm_b32(a, b, 0x0001_0203), 0x8877_6655);
        assert_eq!(perm_b32(a, b, 0x0c0d_0c0d), 0x00ff_00ff);
        assert_eq!(perm_b32(a, b, 0x0e0f_ff10), 0xffff_ffff);
        assert_eq!(perm_b32(0x8000_0000, 0x0000_8000, 0x0b0a_0908), 0xff00_00ff);
        // Byte-swap of a 32-bit value, the classic use: sel 0x00010203 on (0, x).
        assert_eq!(perm_b32(0, 0xa1b2_c3d4, 0x0001_0203), 0xd4c3_b2a1);
        // Sign-extend byte 1 of S1 into the upper half: sel 0x08080100.
        assert_eq!(perm_b32(0, 0x0000_8012, 0x0808_0100), 0xffff_8012);
    }

    #[test]
    fn counting() {
        assert_eq!(bcnt_u32_b32(0xf0f0_0001, 3), 12);
        assert_eq!(mbcnt_lo(0xffff_ffff, 5, 0), 5);
        assert_eq!(mbcnt_lo(0xffff_ffff, 40, 1), 33);
        assert_eq!(mbcnt_lo(0b1011, 3, 0), 2);
        assert_eq!(mbcnt_hi(0xffff_ffff, 5, 7), 7);
        assert_eq!(mbcnt_hi(0xffff_ffff, 36, 7), 11);
        // The usual pair mbcnt_hi(hi, mbcnt_lo(lo, 0)) = lane index under a full mask.
        for lane in 0..64 {
            assert_eq!(mbcnt_hi(u32::MAX, lane, mbcnt_lo(u32::MAX, lane, 0)), lane);
        }
        assert_eq!(bfrev_b32(1), 0x8000_0000);
        assert_eq!(bfrev_b32(0x0000_00f1), 0x8f00_0000);
        // ffbh / ffbl / ffbh_i32 examples from the ISA guide.
        for (x, want) in [(0, u32::MAX), (0x8000_00ff, 0), (0x1000_00ff, 3), (0x0000_ffff, 16), (1, 31)] {
            assert_eq!(ffbh_u32(x), want);
        }
        for (x, want) in [(0, u32::MAX), (0xff00_0001, 0), (0xff00_0008, 3), (0xffff_0000, 16), (0x8000_0000, 31)] {
            assert_eq!(ffbl_b32(x), want);
        }
        for (x, want) in [
            (0, u32::MAX),
            (0x4000_0000, 1),
            (0x8000_0000, 1),
            (0x0fff_ffff, 4),
            (0xffff_0000, 16),
            (0xffff_fffe, 31),
            (0xffff_ffff, u32::MAX),
        ] {
            assert_eq!(ffbh_i32(x), want, "{x:#x}");
        }
    }

    #[test]
    fn shifts_and_minmax() {
        assert_eq!(lshlrev_b32(33, 1), 2);
        assert_eq!(lshrrev_b32(31, 0x8000_0000), 1);
        assert_eq!(ashrrev_i32(4, 0x8000_0000), 0xf800_0000);
        assert_eq!(ashrrev_i32(36, 0x8000_0000), 0xf800_0000);
        assert_eq!(lshlrev_b64(65, 1), 2);
        assert_eq!(lshrrev_b64(63, 1 << 63), 1);
        assert_eq!(ashrrev_i64(60, 1 << 63), 0xffff_ffff_ffff_fff8);
        assert_eq!(lshlrev_b16(17, 0x8001), 2);
        assert_eq!(ashrrev_i16(15, 0x8000), 0xffff);
        assert_eq!(add_u16(0xffff, 2), 1);
        assert_eq!(sub_u16(0, 1), 0xffff);
        assert_eq!(mul_lo_u16(0x100, 0x100), 0);
        assert_eq!(add_nc_u64(u64::MAX, 2), 1);
        assert_eq!(sub_nc_u64(0, 1), u64::MAX);
        assert_eq!(min_s(0xffff_ffff, 1, 32), 0xffff_ffff);
        assert_eq!(max_s(0xffff_ffff, 1, 32), 1);
        assert_eq!(min_u(0xffff_ffff, 1), 1);
        assert_eq!(max_s(u64::MAX, 0, 64), 0);
        assert_eq!(min_s(1 << 63, 0, 64), 1 << 63);
        assert_eq!(med3_u(5, 1, 3), 3);
        assert_eq!(med3_s(0xffff_ffff, 5, 0, 32), 0);
        let mut r = Rng(8);
        for _ in 0..2000 {
            let (a, b, c) = (r.u32() as i32, r.u32() as i32, r.u32() as i32);
            let mut v = [a, b, c];
            v.sort();
            assert_eq!(med3_s(a as u32 as u64, b as u32 as u64, c as u32 as u64, 32), v[1] as u32 as u64);
            let mut w = [a as u32, b as u32, c as u32];
            w.sort();
            assert_eq!(med3_u(a as u32 as u64, b as u32 as u64, c as u32 as u64), w[1] as u64);
        }
        assert_eq!(cndmask(1, 2, true), 2);
        assert_eq!(cndmask(1, 2, false), 1);
        assert_eq!(sad_u8(0x0102_0304, 0x0403_0201, 1), 1 + 3 + 1 + 1 + 3);
        assert_eq!(sad_u32(3, 10, 1), 8);
        assert_eq!(mad_u32_u16(0x1_ffff, 2, 1), 0x1_ffff);
        assert_eq!(mad_i32_i16(0xffff, 2, 0), (-2i32) as u32);
    }
}
