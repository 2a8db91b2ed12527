//! Vector ALU integer semantics per lane over [`Lower`], from the RDNA 2 ISA guide's descriptions and the rules
//! the reference model registers (integer clamps: valu.int_clamp, valu.int_clamp.mad, valu.sad_clamp). The
//! operands arrive after the encoding's lane selection and SDWA/op_sel handling, which are the compiler's.

use crate::lower::{Bin, Cmp, Lower, Ty, Un};
use reference_model::isa::Op;

fn sat_u32<L: Lower>(l: &mut L, wide: L::V) -> L::V {
    let max = l.k64(u32::MAX as u64);
    let m = l.bin(Bin::UMin, wide, max);
    l.trunc(m)
}

fn sat_i32<L: Lower>(l: &mut L, wide: L::V) -> L::V {
    let lo = l.k64(i32::MIN as i64 as u64);
    let hi = l.k64(i32::MAX as u64);
    let m = l.bin(Bin::SMax, wide, lo);
    let m = l.bin(Bin::SMin, m, hi);
    l.trunc(m)
}

/// `a` saturated to [lo, hi] (signed, 32-bit values).
fn clamp_s<L: Lower>(l: &mut L, a: L::V, lo: i32, hi: i32) -> L::V {
    let klo = l.k32(lo as u32);
    let khi = l.k32(hi as u32);
    let m = l.bin(Bin::SMax, a, klo);
    l.bin(Bin::SMin, m, khi)
}

fn sext24<L: Lower>(l: &mut L, a: L::V) -> L::V {
    let s = l.sext_in(a, 24);
    l.sext(s)
}

fn zext24<L: Lower>(l: &mut L, a: L::V) -> L::V {
    let s = l.bink(Bin::And, a, 0xff_ffff);
    l.zext(s)
}

/// Sum of absolute byte differences of `a` against `b` as a 64-bit value; `masked` skips reference bytes of 0.
fn sad_bytes<L: Lower>(l: &mut L, a: L::V, b: L::V, masked: bool) -> L::V {
    let mut s = l.k32(0);
    for i in 0..4 {
        let x = l.field(a, 8 * i, 8);
        let y = l.field(b, 8 * i, 8);
        let hi = l.bin(Bin::UMax, x, y);
        let lo = l.bin(Bin::UMin, x, y);
        let mut d = l.bin(Bin::Sub, hi, lo);
        if masked {
            let z = l.k32(0);
            let skip = l.cmp(Cmp::Eq, y, z);
            d = l.select(skip, z, d);
        }
        s = l.bin(Bin::Add, s, d);
    }
    l.zext(s)
}

/// `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8` and `v_mqsad_u32_u8` (the model's `quad_sad`, rule `valu.quad_sad`):
/// the SADs of the four byte windows of the 64-bit `a` starting at bytes 0..3 against `b` (the masked forms skip
/// the bytes where `b` is 0), each added to its 16-bit (truncated) or 32-bit field of `c` (`c_lo` and, for the
/// 32-bit form, `c_hi`). Returns the result's dwords: two, or four for `v_mqsad_u32_u8`.
pub fn quad_sad<L: Lower>(
    l: &mut L,
    op: Op,
    a: L::V,
    b: L::V,
    c_lo: L::V,
    c_hi: Option<L::V>,
) -> Vec<L::V> {
    let masked = op != Op::VQsadPkU16U8;
    let wide = op == Op::VMqsadU32U8;
    let c_words = [l.trunc(c_lo), l.hi(c_lo)];
    let c_words = match c_hi {
        Some(h) => vec![c_words[0], c_words[1], l.trunc(h), l.hi(h)],
        None => c_words.to_vec(),
    };
    let mut fields = Vec::with_capacity(4);
    for i in 0..4u32 {
        let w = l.bink(Bin::LShr, a, 8 * i as u64);
        let window = l.trunc(w);
        let acc = if wide {
            c_words[i as usize]
        } else {
            l.field(c_words[(i / 2) as usize], 16 * (i % 2), 16)
        };
        let sum = sad_bytes(l, window, b, masked);
        let sum = l.trunc(sum);
        let total = l.bin(Bin::Add, sum, acc);
        fields.push(if wide {
            total
        } else {
            l.bink(Bin::And, total, 0xffff)
        });
    }
    if wide {
        fields
    } else {
        let h0 = l.bink(Bin::Shl, fields[1], 16);
        let h1 = l.bink(Bin::Shl, fields[3], 16);
        vec![l.bin(Bin::Or, fields[0], h0), l.bin(Bin::Or, fields[2], h1)]
    }
}

/// A 32-bit integer operation of up to three 32-bit sources (absent ones are 0).
pub fn int32<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V, c: L::V, clamp: bool) -> Option<L::V> {
    use Op::*;
    let wide_add = |l: &mut L, x: L::V, y: L::V| {
        let (x, y) = (l.zext(x), l.zext(y));
        l.bin(Bin::Add, x, y)
    };
    Some(match op {
        VMovB32 => a,
        VNotB32 => l.un(Un::Not, a),
        VBfrevB32 => l.un(Un::BitRev, a),
        VFfbhU32 => {
            let msb = l.un(Un::FindMsb, a);
            let none = l.k32(u32::MAX);
            let is_none = l.cmp(Cmp::Eq, msb, none);
            let k = l.k32(31);
            let lz = l.bin(Bin::Sub, k, msb);
            l.select(is_none, none, lz)
        }
        VFfblB32 => l.un(Un::FindLsb, a),
        VFfbhI32 => {
            let z = l.k32(0);
            let neg = l.cmp(Cmp::SLt, a, z);
            let n = l.un(Un::Not, a);
            let x = l.select(neg, n, a);
            return int32(l, VFfbhU32, x, b, c, clamp);
        }
        VAddNcU32 => {
            if clamp {
                let w = wide_add(l, a, b);
                sat_u32(l, w)
            } else {
                l.bin(Bin::Add, a, b)
            }
        }
        VSubNcU32 | VSubrevNcU32 => {
            let (x, y) = if op == VSubNcU32 { (a, b) } else { (b, a) };
            if clamp {
                let m = l.bin(Bin::UMax, x, y);
                l.bin(Bin::Sub, m, y)
            } else {
                l.bin(Bin::Sub, x, y)
            }
        }
        VAddNcI32 | VSubNcI32 => {
            if clamp {
                let (x, y) = (l.sext(a), l.sext(b));
                let r = l.bin(if op == VAddNcI32 { Bin::Add } else { Bin::Sub }, x, y);
                sat_i32(l, r)
            } else {
                l.bin(if op == VAddNcI32 { Bin::Add } else { Bin::Sub }, a, b)
            }
        }
        VMulI32I24 | VMulHiI32I24 => {
            let (x, y) = (sext24(l, a), sext24(l, b));
            let p = l.bin(Bin::Mul, x, y);
            if op == VMulI32I24 {
                l.trunc(p)
            } else {
                l.hi(p)
            }
        }
        VMulU32U24 | VMulHiU32U24 => {
            let (x, y) = (zext24(l, a), zext24(l, b));
            let p = l.bin(Bin::Mul, x, y);
            if op == VMulU32U24 {
                l.trunc(p)
            } else {
                l.hi(p)
            }
        }
        VMinI32 => l.bin(Bin::SMin, a, b),
        VMaxI32 => l.bin(Bin::SMax, a, b),
        VMinU32 => l.bin(Bin::UMin, a, b),
        VMaxU32 => l.bin(Bin::UMax, a, b),
        VLshrrevB32 => l.bin(Bin::LShr, b, a),
        VAshrrevI32 => l.bin(Bin::AShr, b, a),
        VLshlrevB32 => l.bin(Bin::Shl, b, a),
        VAndB32 => l.bin(Bin::And, a, b),
        VOrB32 => l.bin(Bin::Or, a, b),
        VXorB32 => l.bin(Bin::Xor, a, b),
        VXnorB32 => {
            let x = l.bin(Bin::Xor, a, b);
            l.un(Un::Not, x)
        }
        VBcntU32B32 => {
            let n = l.un(Un::BitCount, a);
            l.bin(Bin::Add, n, b)
        }
        VBfmB32 => {
            let one = l.k32(1);
            let m = l.bin(Bin::Shl, one, a);
            let m = l.bink(Bin::Sub, m, 1);
            l.bin(Bin::Shl, m, b)
        }
        VMulLoU32 | VMulLoI32 => l.bin(Bin::Mul, a, b),
        VMulHiU32 | VMulHiI32 => {
            let (x, y) = if op == VMulHiU32 {
                (l.zext(a), l.zext(b))
            } else {
                (l.sext(a), l.sext(b))
            };
            let p = l.bin(Bin::Mul, x, y);
            l.hi(p)
        }
        VMadU32U24 => {
            let (x, y) = (zext24(l, a), zext24(l, b));
            let p = l.bin(Bin::Mul, x, y);
            let z = l.zext(c);
            let r = l.bin(Bin::Add, p, z);
            if clamp {
                sat_u32(l, r)
            } else {
                l.trunc(r)
            }
        }
        VMadI32I24 => {
            let (x, y) = (sext24(l, a), sext24(l, b));
            let p = l.bin(Bin::Mul, x, y);
            let z = l.sext(c);
            let r = l.bin(Bin::Add, p, z);
            if clamp {
                sat_i32(l, r)
            } else {
                l.trunc(r)
            }
        }
        VBfeU32 | VBfeI32 => {
            let off = l.bink(Bin::And, b, 31);
            let width = l.bink(Bin::And, c, 31);
            let signed = op == VBfeI32;
            let s = l.bin(if signed { Bin::AShr } else { Bin::LShr }, a, off);
            let k32 = l.k32(32);
            let up_by = l.bin(Bin::Sub, k32, width);
            let up = l.bin(Bin::Shl, s, up_by);
            let down = l.bin(if signed { Bin::AShr } else { Bin::LShr }, up, up_by);
            let z = l.k32(0);
            let zero_width = l.cmp(Cmp::Eq, width, z);
            l.select(zero_width, z, down)
        }
        VBfiB32 => {
            let x = l.bin(Bin::And, a, b);
            let na = l.un(Un::Not, a);
            let y = l.bin(Bin::And, na, c);
            l.bin(Bin::Or, x, y)
        }
        VAlignbitB32 | VAlignbyteB32 => {
            let w = l.pack(b, a);
            let amount = if op == VAlignbitB32 {
                l.bink(Bin::And, c, 31)
            } else {
                let k = l.bink(Bin::And, c, 3);
                l.bink(Bin::Mul, k, 8)
            };
            let amount = l.zext(amount);
            let s = l.bin(Bin::LShr, w, amount);
            l.trunc(s)
        }
        VMin3I32 | VMax3I32 | VMin3U32 | VMax3U32 => {
            let bin = match op {
                VMin3I32 => Bin::SMin,
                VMax3I32 => Bin::SMax,
                VMin3U32 => Bin::UMin,
                _ => Bin::UMax,
            };
            let m = l.bin(bin, a, b);
            l.bin(bin, m, c)
        }
        VMed3I32 | VMed3U32 => {
            let (mn, mx) = if op == VMed3I32 {
                (Bin::SMin, Bin::SMax)
            } else {
                (Bin::UMin, Bin::UMax)
            };
            let hi = l.bin(mx, a, b);
            let lo = l.bin(mn, a, b);
            let m = l.bin(mx, lo, c);
            l.bin(mn, hi, m)
        }
        VLshlAddU32 => {
            let s = l.bin(Bin::Shl, a, b);
            l.bin(Bin::Add, s, c)
        }
        VAddLshlU32 => {
            let s = l.bin(Bin::Add, a, b);
            l.bin(Bin::Shl, s, c)
        }
        VAdd3U32 => {
            let s = l.bin(Bin::Add, a, b);
            l.bin(Bin::Add, s, c)
        }
        VLshlOrB32 => {
            let s = l.bin(Bin::Shl, a, b);
            l.bin(Bin::Or, s, c)
        }
        VAndOrB32 => {
            let s = l.bin(Bin::And, a, b);
            l.bin(Bin::Or, s, c)
        }
        VOr3B32 => {
            let s = l.bin(Bin::Or, a, b);
            l.bin(Bin::Or, s, c)
        }
        VXor3B32 => {
            let s = l.bin(Bin::Xor, a, b);
            l.bin(Bin::Xor, s, c)
        }
        VXadU32 => {
            let s = l.bin(Bin::Xor, a, b);
            l.bin(Bin::Add, s, c)
        }
        VPermB32 => {
            let cat = l.pack(b, a);
            let mut r = l.k32(0);
            for i in 0..4 {
                let sel = l.field(c, 8 * i, 8);
                let byte = perm_byte(l, cat, sel);
                let placed = l.bink(Bin::Shl, byte, 8 * i as u64);
                r = l.bin(Bin::Or, r, placed);
            }
            r
        }
        VSadU8 | VSadHiU8 | VMsadU8 | VSadU16 | VSadU32 => {
            let sad = match op {
                VSadU8 => sad_bytes(l, a, b, false),
                VMsadU8 => sad_bytes(l, a, b, true),
                VSadHiU8 => {
                    let s = sad_bytes(l, a, b, false);
                    l.bink(Bin::Shl, s, 16)
                }
                VSadU16 => {
                    let mut s = l.k32(0);
                    for i in 0..2 {
                        let x = l.field(a, 16 * i, 16);
                        let y = l.field(b, 16 * i, 16);
                        let hi = l.bin(Bin::UMax, x, y);
                        let lo = l.bin(Bin::UMin, x, y);
                        let d = l.bin(Bin::Sub, hi, lo);
                        s = l.bin(Bin::Add, s, d);
                    }
                    l.zext(s)
                }
                _ => {
                    let hi = l.bin(Bin::UMax, a, b);
                    let lo = l.bin(Bin::UMin, a, b);
                    let d = l.bin(Bin::Sub, hi, lo);
                    l.zext(d)
                }
            };
            let z = l.zext(c);
            let r = l.bin(Bin::Add, sad, z);
            if clamp {
                sat_u32(l, r)
            } else {
                l.trunc(r)
            }
        }
        VLerpU8 => {
            let mut r = l.k32(0);
            for i in 0..4 {
                let x = l.field(a, 8 * i, 8);
                let y = l.field(b, 8 * i, 8);
                let z = l.field(c, 8 * i, 1);
                let s = l.bin(Bin::Add, x, y);
                let s = l.bin(Bin::Add, s, z);
                let s = l.bink(Bin::LShr, s, 1);
                let placed = l.bink(Bin::Shl, s, 8 * i as u64);
                r = l.bin(Bin::Or, r, placed);
            }
            r
        }
        VCvtPkU16U32 => {
            let x = l.bink(Bin::UMin, a, 0xffff);
            let y = l.bink(Bin::UMin, b, 0xffff);
            let y = l.bink(Bin::Shl, y, 16);
            l.bin(Bin::Or, x, y)
        }
        VCvtPkI16I32 => {
            let x = clamp_s(l, a, i16::MIN as i32, i16::MAX as i32);
            let y = clamp_s(l, b, i16::MIN as i32, i16::MAX as i32);
            let x = l.bink(Bin::And, x, 0xffff);
            let y = l.bink(Bin::Shl, y, 16);
            l.bin(Bin::Or, x, y)
        }
        VSatPkU8I16 => {
            let lo = l.sext_in(a, 16);
            let hi = l.bink(Bin::AShr, a, 16);
            let lo = clamp_s(l, lo, 0, 255);
            let hi = clamp_s(l, hi, 0, 255);
            let hi = l.bink(Bin::Shl, hi, 8);
            l.bin(Bin::Or, lo, hi)
        }
        _ => return None,
    })
}

/// One byte of v_perm_b32's selector `sel` over the 8 bytes `cat` (src0:src1).
fn perm_byte<L: Lower>(l: &mut L, cat: L::V, sel: L::V) -> L::V {
    let mut r = l.k32(0xff);
    for s in (0..13u32).rev() {
        let v = match s {
            0..=7 => {
                let f = l.field(cat, 8 * s, 8);
                l.trunc(f)
            }
            8..=11 => {
                let bit = [15u32, 31, 47, 63][(s - 8) as usize];
                let b = l.field(cat, bit, 1);
                let b = l.trunc(b);
                l.bink(Bin::Mul, b, 0xff)
            }
            _ => l.k32(0),
        };
        let k = l.k32(s);
        let is = l.cmp(Cmp::Eq, sel, k);
        r = l.select(is, v, r);
    }
    r
}

/// A 16-bit integer operation on 16-bit sources held in the low halves of 32-bit values (the result in the
/// low half, the high half zero).
pub fn int16<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V, c: L::V, clamp: bool) -> Option<L::V> {
    use Op::*;
    let u = |l: &mut L, v: L::V| l.bink(Bin::And, v, 0xffff);
    let s = |l: &mut L, v: L::V| l.sext_in(v, 16);
    let (ua, ub, uc) = (u(l, a), u(l, b), u(l, c));
    let (sa, sb, sc) = (s(l, a), s(l, b), s(l, c));
    let r = match op {
        VAddNcU16 => {
            let r = l.bin(Bin::Add, ua, ub);
            if clamp {
                l.bink(Bin::UMin, r, 0xffff)
            } else {
                r
            }
        }
        VSubNcU16 => {
            if clamp {
                let m = l.bin(Bin::UMax, ua, ub);
                l.bin(Bin::Sub, m, ub)
            } else {
                l.bin(Bin::Sub, ua, ub)
            }
        }
        VAddNcI16 | VSubNcI16 => {
            let r = l.bin(if op == VAddNcI16 { Bin::Add } else { Bin::Sub }, sa, sb);
            if clamp {
                clamp_s(l, r, i16::MIN as i32, i16::MAX as i32)
            } else {
                r
            }
        }
        VMulLoU16 => l.bin(Bin::Mul, ua, ub),
        VLshlrevB16 => {
            let k = l.bink(Bin::And, a, 15);
            l.bin(Bin::Shl, ub, k)
        }
        VLshrrevB16 => {
            let k = l.bink(Bin::And, a, 15);
            l.bin(Bin::LShr, ub, k)
        }
        VAshrrevI16 => {
            let k = l.bink(Bin::And, a, 15);
            l.bin(Bin::AShr, sb, k)
        }
        VMaxU16 => l.bin(Bin::UMax, ua, ub),
        VMinU16 => l.bin(Bin::UMin, ua, ub),
        VMaxI16 => l.bin(Bin::SMax, sa, sb),
        VMinI16 => l.bin(Bin::SMin, sa, sb),
        VMadU16 => {
            let p = l.bin(Bin::Mul, ua, ub);
            let r = l.bin(Bin::Add, p, uc);
            if clamp {
                l.bink(Bin::UMin, r, 0xffff)
            } else {
                r
            }
        }
        VMadI16 => {
            let p = l.bin(Bin::Mul, sa, sb);
            let r = l.bin(Bin::Add, p, sc);
            if clamp {
                clamp_s(l, r, i16::MIN as i32, i16::MAX as i32)
            } else {
                r
            }
        }
        VMin3U16 | VMax3U16 | VMin3I16 | VMax3I16 => {
            let (bin, x, y, z) = match op {
                VMin3U16 => (Bin::UMin, ua, ub, uc),
                VMax3U16 => (Bin::UMax, ua, ub, uc),
                VMin3I16 => (Bin::SMin, sa, sb, sc),
                _ => (Bin::SMax, sa, sb, sc),
            };
            let m = l.bin(bin, x, y);
            l.bin(bin, m, z)
        }
        VMed3U16 | VMed3I16 => {
            let (mn, mx, x, y, z) = if op == VMed3U16 {
                (Bin::UMin, Bin::UMax, ua, ub, uc)
            } else {
                (Bin::SMin, Bin::SMax, sa, sb, sc)
            };
            let hi = l.bin(mx, x, y);
            let lo = l.bin(mn, x, y);
            let m = l.bin(mx, lo, z);
            l.bin(mn, hi, m)
        }
        _ => return None,
    };
    Some(l.bink(Bin::And, r, 0xffff))
}

/// v_mad_u32_u16 / v_mad_i32_i16: 16-bit `a`, `b` (low halves), 32-bit `c`.
pub fn mad32_16<L: Lower>(
    l: &mut L,
    op: Op,
    a: L::V,
    b: L::V,
    c: L::V,
    clamp: bool,
) -> Option<L::V> {
    match op {
        Op::VMadU32U16 => {
            let x = l.bink(Bin::And, a, 0xffff);
            let y = l.bink(Bin::And, b, 0xffff);
            let p = l.bin(Bin::Mul, x, y);
            let p = l.zext(p);
            let z = l.zext(c);
            let r = l.bin(Bin::Add, p, z);
            Some(if clamp { sat_u32(l, r) } else { l.trunc(r) })
        }
        Op::VMadI32I16 => {
            let x = l.sext_in(a, 16);
            let y = l.sext_in(b, 16);
            let p = l.bin(Bin::Mul, x, y);
            let p = l.sext(p);
            let z = l.sext(c);
            let r = l.bin(Bin::Add, p, z);
            Some(if clamp { sat_i32(l, r) } else { l.trunc(r) })
        }
        _ => None,
    }
}

/// A packed 16-bit integer operation (VOP3P) on one half: 16-bit values in the low halves.
pub fn pk16<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V, c: L::V, clamp: bool) -> Option<L::V> {
    int16(l, pk16_scalar(op)?, a, b, c, clamp)
}

/// The 16-bit operation each half of the packed integer operation `op` applies, if `op` is one.
pub fn pk16_scalar(op: Op) -> Option<Op> {
    use Op::*;
    Some(match op {
        VPkAddU16 => VAddNcU16,
        VPkSubU16 => VSubNcU16,
        VPkAddI16 => VAddNcI16,
        VPkSubI16 => VSubNcI16,
        VPkMulLoU16 => VMulLoU16,
        VPkLshlrevB16 => VLshlrevB16,
        VPkLshrrevB16 => VLshrrevB16,
        VPkAshrrevI16 => VAshrrevI16,
        VPkMaxU16 => VMaxU16,
        VPkMinU16 => VMinU16,
        VPkMaxI16 => VMaxI16,
        VPkMinI16 => VMinI16,
        VPkMadU16 => VMadU16,
        VPkMadI16 => VMadI16,
        _ => return None,
    })
}

/// An integer dot product (VOP3P) of `a`, `b` accumulated onto `c`.
pub fn dot<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V, c: L::V, clamp: bool) -> Option<L::V> {
    use Op::*;
    let (n, bits, signed) = match op {
        VDot2I32I16 => (2, 16, true),
        VDot2U32U16 => (2, 16, false),
        VDot4I32I8 | VDot4cI32I8 => (4, 8, true),
        VDot4U32U8 => (4, 8, false),
        VDot8I32I4 => (8, 4, true),
        VDot8U32U4 => (8, 4, false),
        _ => return None,
    };
    let mut acc = if signed { l.sext(c) } else { l.zext(c) };
    for i in 0..n {
        let x = l.field(a, bits * i, bits);
        let y = l.field(b, bits * i, bits);
        let (x, y) = if signed {
            let x = l.sext_in(x, bits);
            let y = l.sext_in(y, bits);
            (l.sext(x), l.sext(y))
        } else {
            (l.zext(x), l.zext(y))
        };
        let p = l.bin(Bin::Mul, x, y);
        acc = l.bin(Bin::Add, acc, p);
    }
    Some(match (clamp, signed) {
        (true, true) => sat_i32(l, acc),
        (true, false) => sat_u32(l, acc),
        _ => l.trunc(acc),
    })
}

/// The integer compare `op`: (width in bits, signedness, predicate, writes EXEC), or `None`.
pub fn int_compare(op: Op) -> Option<(u32, Cmp, bool, Option<bool>)> {
    let mn = op.mnemonic();
    let rest = mn
        .strip_prefix("v_cmpx_")
        .map(|r| (r, true))
        .or_else(|| mn.strip_prefix("v_cmp_").map(|r| (r, false)))?;
    let (r, cmpx) = rest;
    let (pred, ty) = r.split_once('_')?;
    let (bits, signed) = match ty {
        "i16" => (16, true),
        "u16" => (16, false),
        "i32" => (32, true),
        "u32" => (32, false),
        "i64" => (64, true),
        "u64" => (64, false),
        _ => return None,
    };
    let s = signed;
    // `None` in the last slot: the predicate is the constant false (f) or true (t).
    let (c, k) = match pred {
        "f" => (Cmp::Eq, Some(false)),
        "t" => (Cmp::Eq, Some(true)),
        "lt" => (if s { Cmp::SLt } else { Cmp::ULt }, None),
        "eq" => (Cmp::Eq, None),
        "le" => (if s { Cmp::SLe } else { Cmp::ULe }, None),
        "gt" => (if s { Cmp::SGt } else { Cmp::UGt }, None),
        "ne" => (Cmp::Ne, None),
        "ge" => (if s { Cmp::SGe } else { Cmp::UGe }, None),
        _ => return None,
    };
    Some((bits, c, cmpx, k))
}

/// The lane's result of an integer compare of `a`, `b` (16-bit sources in the low halves, sign- or
/// zero-extended here; 64-bit sources as 64-bit values).
pub fn compare<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V) -> Option<L::V> {
    let (bits, c, _, k) = int_compare(op)?;
    if let Some(k) = k {
        return Some(l.kbool(k));
    }
    let signed = matches!(c, Cmp::SLt | Cmp::SLe | Cmp::SGt | Cmp::SGe);
    let (a, b) = if bits == 16 {
        if signed {
            (l.sext_in(a, 16), l.sext_in(b, 16))
        } else {
            (l.bink(Bin::And, a, 0xffff), l.bink(Bin::And, b, 0xffff))
        }
    } else {
        (a, b)
    };
    let _ = Ty::I32;
    Some(l.cmp(c, a, b))
}
