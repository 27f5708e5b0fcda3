//! SALU operations, returning (result, scc). Where an instruction leaves SCC unchanged the
//! function returns only the result (the table marks it `scc_out: false`).
//!
//! SCC rules (CDNA / RDNA4 pseudocode): unsigned add/sub: carry/borrow out; signed add/sub
//! (s_add_i32 / GFX12 s_add_co_i32): signed overflow; bitwise ops, shifts, bfe, bcnt, abs,
//! not: result != 0; min/max: SCC = the first operand was selected (S0 < S1 for min,
//! S0 >= S1 for max); s_lshlN_add_u32: unsigned carry out of the add.

pub fn add_u32(a: u32, b: u32) -> (u32, bool) {
    a.overflowing_add(b)
}
pub fn sub_u32(a: u32, b: u32) -> (u32, bool) {
    (a.wrapping_sub(b), b > a)
}
pub fn addc_u32(a: u32, b: u32, scc: bool) -> (u32, bool) {
    super::int::addc_u32(a, b, scc)
}
pub fn subb_u32(a: u32, b: u32, scc: bool) -> (u32, bool) {
    super::int::subb_u32(a, b, scc)
}
/// s_add_i32 / s_add_co_i32: SCC = signed overflow.
pub fn add_i32(a: u32, b: u32) -> (u32, bool) {
    let (r, o) = (a as i32).overflowing_add(b as i32);
    (r as u32, o)
}
pub fn sub_i32(a: u32, b: u32) -> (u32, bool) {
    let (r, o) = (a as i32).overflowing_sub(b as i32);
    (r as u32, o)
}
fn nz32(r: u32) -> (u32, bool) {
    (r, r != 0)
}
fn nz64(r: u64) -> (u64, bool) {
    (r, r != 0)
}
pub fn and_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a & b)
}
pub fn or_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a | b)
}
pub fn xor_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a ^ b)
}
/// s_andn2_b32 (GFX9) / s_and_not1_b32 (GFX12): a & !b.
pub fn andn2_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a & !b)
}
pub fn orn2_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a | !b)
}
pub fn nand_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(!(a & b))
}
pub fn nor_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(!(a | b))
}
pub fn xnor_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(!(a ^ b))
}
pub fn not_b32(a: u32) -> (u32, bool) {
    nz32(!a)
}
pub fn and_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(a & b)
}
pub fn or_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(a | b)
}
pub fn xor_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(a ^ b)
}
pub fn andn2_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(a & !b)
}
pub fn orn2_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(a | !b)
}
pub fn nand_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(!(a & b))
}
pub fn nor_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(!(a | b))
}
pub fn xnor_b64(a: u64, b: u64) -> (u64, bool) {
    nz64(!(a ^ b))
}
pub fn not_b64(a: u64) -> (u64, bool) {
    nz64(!a)
}
pub fn lshl_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a << (b & 31))
}
pub fn lshr_b32(a: u32, b: u32) -> (u32, bool) {
    nz32(a >> (b & 31))
}
pub fn ashr_i32(a: u32, b: u32) -> (u32, bool) {
    nz32(((a as i32) >> (b & 31)) as u32)
}
pub fn lshl_b64(a: u64, b: u32) -> (u64, bool) {
    nz64(a << (b & 63))
}
pub fn lshr_b64(a: u64, b: u32) -> (u64, bool) {
    nz64(a >> (b & 63))
}
pub fn ashr_i64(a: u64, b: u32) -> (u64, bool) {
    nz64(((a as i64) >> (b & 63)) as u64)
}
/// s_lshl{1,2,3,4}_add_u32: (a << n) + b, SCC = carry out of the 33-bit sum.
pub fn lshl_add_u32(a: u32, n: u32, b: u32) -> (u32, bool) {
    let t = ((a as u64) << n) + b as u64;
    (t as u32, t >> 32 != 0)
}
pub fn min_i32(a: u32, b: u32) -> (u32, bool) {
    let s = (a as i32) < (b as i32);
    (if s { a } else { b }, s)
}
pub fn min_u32(a: u32, b: u32) -> (u32, bool) {
    let s = a < b;
    (if s { a } else { b }, s)
}
pub fn max_i32(a: u32, b: u32) -> (u32, bool) {
    let s = (a as i32) >= (b as i32);
    (if s { a } else { b }, s)
}
pub fn max_u32(a: u32, b: u32) -> (u32, bool) {
    let s = a >= b;
    (if s { a } else { b }, s)
}
/// s_bfe_u32: `S1[4:0]` = offset, `S1[22:16]` = width (0..=127; widths >= 32 take all bits).
pub fn bfe_u32(a: u32, b: u32) -> (u32, bool) {
    let off = b & 31;
    let w = (b >> 16) & 0x7f;
    let v = a >> off;
    nz32(if w >= 32 { v } else { v & ((1u32 << w) - 1) })
}
pub fn bfe_i32(a: u32, b: u32) -> (u32, bool) {
    let off = b & 31;
    let w = (b >> 16) & 0x7f;
    let v = (a as i32) >> off;
    nz32(if w == 0 {
        0
    } else if w >= 32 {
        v as u32
    } else {
        ((v << (32 - w)) >> (32 - w)) as u32
    })
}
/// s_bfe_u64 / s_bfe_i64: `S1[5:0]` offset, `S1[22:16]` width.
pub fn bfe_u64(a: u64, b: u32) -> (u64, bool) {
    let off = b & 63;
    let w = (b >> 16) & 0x7f;
    let v = a >> off;
    nz64(if w >= 64 { v } else { v & ((1u64 << w) - 1) })
}
pub fn bfe_i64(a: u64, b: u32) -> (u64, bool) {
    let off = b & 63;
    let w = (b >> 16) & 0x7f;
    let v = (a as i64) >> off;
    nz64(if w == 0 {
        0
    } else if w >= 64 {
        v as u64
    } else {
        ((v << (64 - w)) >> (64 - w)) as u64
    })
}
/// s_bfm_b32 (no SCC): ((1 << (a & 31)) - 1) << (b & 31).
pub fn bfm_b32(a: u32, b: u32) -> u32 {
    super::int::bfm_b32(a, b)
}
pub fn bfm_b64(a: u32, b: u32) -> u64 {
    ((1u64 << (a & 63)).wrapping_sub(1)) << (b & 63)
}
/// s_bcnt1_i32_b32 / b64: popcount, SCC = result != 0. s_bcnt0: count of zeros.
pub fn bcnt1_b32(a: u32) -> (u32, bool) {
    nz32(a.count_ones())
}
pub fn bcnt1_b64(a: u64) -> (u32, bool) {
    nz32(a.count_ones())
}
pub fn bcnt0_b32(a: u32) -> (u32, bool) {
    nz32(a.count_zeros())
}
pub fn bcnt0_b64(a: u64) -> (u32, bool) {
    nz32(a.count_zeros())
}
/// s_ff1_i32_b32/b64 (GFX9) = s_ctz_i32_b32/b64 (GFX12): index of the lowest set bit, -1 if
/// none. SCC unchanged.
pub fn ff1_b32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}
pub fn ff1_b64(a: u64) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}
/// s_flbit_i32_b32 (GFX9) = s_clz_i32_u32 (GFX12): leading zeros, -1 if none.
pub fn flbit_b32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}
pub fn flbit_b64(a: u64) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}
/// s_flbit_i32 (GFX9) = s_cls_i32 (GFX12).
pub fn flbit_i32(a: u32) -> u32 {
    super::int::ffbh_i32(a)
}
pub fn brev_b32(a: u32) -> u32 {
    a.reverse_bits()
}
pub fn brev_b64(a: u64) -> u64 {
    a.reverse_bits()
}
/// s_abs_i32: SCC = result != 0 (abs(i32::MIN) = i32::MIN).
pub fn abs_i32(a: u32) -> (u32, bool) {
    nz32((a as i32).wrapping_abs() as u32)
}
/// s_absdiff_i32: |a - b| (wrapping), SCC = result != 0.
pub fn absdiff_i32(a: u32, b: u32) -> (u32, bool) {
    nz32((a as i32).wrapping_sub(b as i32).wrapping_abs() as u32)
}
pub fn mul_i32(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    super::int::mul_hi_u32(a, b)
}
pub fn mul_hi_i32(a: u32, b: u32) -> u32 {
    super::int::mul_hi_i32(a, b)
}
pub fn cselect(a: u64, b: u64, scc: bool) -> u64 {
    if scc { a } else { b }
}
pub fn sext_i32_i8(a: u32) -> u32 {
    a as i8 as i32 as u32
}
pub fn sext_i32_i16(a: u32) -> u32 {
    a as i16 as i32 as u32
}
/// s_movk_i32 / s_cmovk_i32 / s_mulk_i32 / s_addk: the 16-bit immediate sign-extended.
pub fn simm16(k: u32) -> u32 {
    k as u16 as i16 as i32 as u32
}
/// s_pack_{ll,lh,hl,hh}_b32_b16.
pub fn pack_ll(a: u32, b: u32) -> u32 {
    (a & 0xffff) | (b << 16)
}
pub fn pack_lh(a: u32, b: u32) -> u32 {
    (a & 0xffff) | (b & 0xffff_0000)
}
pub fn pack_hl(a: u32, b: u32) -> u32 {
    (a >> 16) | (b << 16)
}
pub fn pack_hh(a: u32, b: u32) -> u32 {
    (a >> 16) | (b & 0xffff_0000)
}
/// s_bitcmp0_b32 / s_bitcmp1_b32: SCC = bit (b & 31) of a is 0 / 1.
pub fn bitcmp1_b32(a: u32, b: u32) -> bool {
    a >> (b & 31) & 1 != 0
}
pub fn bitcmp1_b64(a: u64, b: u32) -> bool {
    a >> (b & 63) & 1 != 0
}
/// s_bitset0/1_b32: D = D with bit (a & 31) cleared/set (D is the old destination).
pub fn bitset_b32(d: u32, a: u32, one: bool) -> u32 {
    if one { d | 1 << (a & 31) } else { d & !(1 << (a & 31)) }
}
/// s_bitset0/1_b64: D = D with bit (a & 63) cleared/set.
pub fn bitset_b64(d: u64, a: u32, one: bool) -> u64 {
    if one { d | 1 << (a & 63) } else { d & !(1 << (a & 63)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scc_rules() {
        assert_eq!(add_u32(0xffff_ffff, 1), (0, true));
        assert_eq!(add_u32(1, 2), (3, false));
        assert_eq!(sub_u32(1, 2), (u32::MAX, true));
        assert_eq!(addc_u32(0xffff_ffff, 0, true), (0, true));
        assert_eq!(subb_u32(0, 0, true), (u32::MAX, true));
        // Signed overflow, not carry: 0xffffffff + 1 = 0 does not overflow as i32.
        assert_eq!(add_i32(0xffff_ffff, 1), (0, false));
        assert_eq!(add_i32(0x7fff_ffff, 1), (0x8000_0000, true));
        assert_eq!(sub_i32(0x8000_0000, 1), (0x7fff_ffff, true));
        assert_eq!(and_b32(0xf0, 0x0f), (0, false));
        assert_eq!(and_b32(0xf0, 0x30), (0x30, true));
        assert_eq!(andn2_b64(u64::MAX, u64::MAX), (0, false));
        assert_eq!(andn2_b32(0xff, 0x0f), (0xf0, true));
        assert_eq!(orn2_b32(0, u32::MAX), (0, false));
        assert_eq!(xor_b64(5, 5), (0, false));
        assert_eq!(not_b32(u32::MAX), (0, false));
        assert_eq!(nand_b32(u32::MAX, u32::MAX), (0, false));
        assert_eq!(xnor_b32(1, 0), (u32::MAX - 1, true));
        assert_eq!(lshl_b32(1, 32), (1, true)); // amount masked
        assert_eq!(lshl_b32(0x8000_0000, 1), (0, false));
        assert_eq!(lshl_b64(1, 63), (1 << 63, true));
        assert_eq!(lshr_b32(0x10, 5), (0, false));
        assert_eq!(ashr_i32(0x8000_0000, 31), (u32::MAX, true));
        assert_eq!(lshl_add_u32(0x4000_0000, 2, 0), (0, true));
        assert_eq!(lshl_add_u32(3, 2, 5), (17, false));
        assert_eq!(lshl_add_u32(0x3fff_ffff, 2, 4), (0, true));
        assert_eq!(min_i32(0xffff_ffff, 0), (0xffff_ffff, true));
        assert_eq!(min_u32(0xffff_ffff, 0), (0, false));
        assert_eq!(max_u32(5, 5), (5, true));
        assert_eq!(max_i32(0xffff_ffff, 0), (0, false));
        assert_eq!(abs_i32(0x8000_0000), (0x8000_0000, true));
        assert_eq!(abs_i32((-5i32) as u32), (5, true));
        assert_eq!(absdiff_i32(3, 10), (7, true));
    }

    #[test]
    fn bitfield_and_count() {
        // offset 8, width 8.
        assert_eq!(bfe_u32(0xdead_beef, 8 | (8 << 16)), (0xbe, true));
        assert_eq!(bfe_u32(0xdead_beef, 8), (0, false)); // width 0
        assert_eq!(bfe_u32(0xdead_beef, 4 | (40 << 16)), (0x0dea_dbee, true)); // width >= 32
        assert_eq!(bfe_i32(0x0000_0f00, 8 | (4 << 16)), (u32::MAX, true));
        assert_eq!(bfe_i32(0x0000_0700, 8 | (4 << 16)), (7, true));
        assert_eq!(bfe_u64(0xdead_beef_0000_0000, 32 | (16 << 16)), (0xbeef, true));
        assert_eq!(bfe_i64(0x8000_0000_0000_0000, 63 | (1 << 16)), (u64::MAX, true));
        assert_eq!(bfm_b32(4, 4), 0xf0);
        assert_eq!(bfm_b64(40, 8), ((1u64 << 40) - 1) << 8);
        assert_eq!(bcnt1_b32(0), (0, false));
        assert_eq!(bcnt1_b64(u64::MAX), (64, true));
        assert_eq!(bcnt0_b32(u32::MAX), (0, false));
        assert_eq!(ff1_b32(0), u32::MAX);
        assert_eq!(ff1_b32(0x100), 8);
        assert_eq!(ff1_b64(1 << 40), 40);
        assert_eq!(flbit_b32(1), 31);
        assert_eq!(flbit_b64(1), 63);
        assert_eq!(flbit_i32(0xffff_0000), 16);
        assert_eq!(brev_b32(0x8000_0001), 0x8000_0001);
        assert_eq!(brev_b32(0x0000_0003), 0xc000_0000);
        assert_eq!(brev_b64(1), 1 << 63);
        assert_eq!(cselect(1, 2, true), 1);
        assert_eq!(cselect(1, 2, false), 2);
        assert_eq!(simm16(0xfffe), (-2i32) as u32);
        assert_eq!(simm16(0x7fff), 0x7fff);
        assert_eq!(sext_i32_i8(0x80), 0xffff_ff80);
        assert_eq!(sext_i32_i16(0x1_7fff), 0x7fff);
        assert_eq!(pack_ll(0x1111_2222, 0x3333_4444), 0x4444_2222);
        assert_eq!(pack_lh(0x1111_2222, 0x3333_4444), 0x3333_2222);
        assert_eq!(pack_hl(0x1111_2222, 0x3333_4444), 0x4444_1111);
        assert_eq!(pack_hh(0x1111_2222, 0x3333_4444), 0x3333_1111);
        assert!(bitcmp1_b32(0x10, 36));
        assert!(!bitcmp1_b64(0x10, 5));
        assert_eq!(bitset_b32(0, 33, true), 2);
        assert_eq!(bitset_b32(u32::MAX, 0, false), u32::MAX - 1);
        assert_eq!(bitset_b64(0, 65, true), 2);
        assert_eq!(bitset_b64(u64::MAX, 40, false), u64::MAX - (1 << 40));
        assert_eq!(mul_i32(0xffff_ffff, 3), (-3i32) as u32);
    }
}
