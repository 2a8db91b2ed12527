//! Scalar ALU semantics (SOP1, SOP2, SOPC, SOPK arithmetic) over [`Lower`], from the RDNA 2 ISA guide's
//! instruction descriptions; the reference model is the oracle the tests compare them with. Program control,
//! EXEC updates and relative addressing are the compiler's (they touch state, not values).

use crate::lower::{Bin, Cmp, Lower, Ty, Un};
use reference_model::isa::Op;

/// What a scalar operation produces: the destination value (32 or 64 bits) and the new SCC, each when the
/// operation writes it.
#[derive(Clone, Copy, Debug)]
pub struct SOut<V> {
    /// The destination value.
    pub dst: Option<V>,
    /// The new SCC (a boolean).
    pub scc: Option<V>,
}

fn out<V>(dst: V, scc: Option<V>) -> SOut<V> {
    SOut {
        dst: Some(dst),
        scc,
    }
}

/// SCC = result != 0, the rule of the logical and shift operations.
fn nz<L: Lower>(l: &mut L, v: L::V) -> SOut<L::V> {
    let c = l.nz(v);
    out(v, Some(c))
}

/// Bit-field extract of SOP2 (`s_bfe_*`): S1[4:0] (or [5:0]) offset, S1[22:16] width. Signed forms shift
/// arithmetically, so a field past the top takes S0's sign (measured, rule salu.bfe_signed_shift).
fn bfe<L: Lower>(l: &mut L, a: L::V, b: L::V, signed: bool) -> L::V {
    let wide = l.ty(a) == Ty::I64;
    let bits: u64 = if wide { 64 } else { 32 };
    let off = l.bink(Bin::And, b, bits - 1);
    let width = l.field(b, 16, 7);
    let (off, width) = if wide {
        (l.zext(off), l.zext(width))
    } else {
        (off, width)
    };
    let shifted = l.bin(if signed { Bin::AShr } else { Bin::LShr }, a, off);
    // Keep `width` bits: shift left by (bits - width) then back, when 0 < width < bits.
    let full = l.k_like(a, bits);
    let wide_enough = l.cmp(Cmp::UGe, width, full);
    let zero_w = l.zero_like(a);
    let is_zero = l.cmp(Cmp::Eq, width, zero_w);
    let s = l.bin(Bin::Sub, full, width);
    let up = l.bin(Bin::Shl, shifted, s);
    let down = l.bin(if signed { Bin::AShr } else { Bin::LShr }, up, s);
    let kept = l.select(wide_enough, shifted, down);
    let z = l.zero_like(a);
    l.select(is_zero, z, kept)
}

/// A SOP2 operation on `a`, `b` (widths as the operation reads them: 64-bit sources for the _b64/_u64
/// forms, a 32-bit shift amount) with the incoming `scc`. `None` for operations that are not pure values.
pub fn sop2<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V, scc: L::V) -> Option<SOut<L::V>> {
    use Op::*;
    let wide = |l: &mut L, v: L::V| if l.ty(v) == Ty::I32 { l.zext(v) } else { v };
    Some(match op {
        SAddU32 | SAddcU32 | SLshl1AddU32 | SLshl2AddU32 | SLshl3AddU32 | SLshl4AddU32 => {
            let x = l.zext(a);
            let x = match op {
                SLshl1AddU32 => l.bink(Bin::Shl, x, 1),
                SLshl2AddU32 => l.bink(Bin::Shl, x, 2),
                SLshl3AddU32 => l.bink(Bin::Shl, x, 3),
                SLshl4AddU32 => l.bink(Bin::Shl, x, 4),
                _ => x,
            };
            let y = l.zext(b);
            let mut r = l.bin(Bin::Add, x, y);
            if op == SAddcU32 {
                let c = l.b2i(scc, Ty::I64);
                r = l.bin(Bin::Add, r, c);
            }
            let carry = l.hi(r);
            let c = l.nz(carry);
            let d = l.trunc(r);
            out(d, Some(c))
        }
        SSubU32 | SSubbU32 => {
            let mut d = l.bin(Bin::Sub, a, b);
            let mut borrow_from = l.zext(b);
            if op == SSubbU32 {
                let c = l.b2i(scc, Ty::I32);
                d = l.bin(Bin::Sub, d, c);
                let c64 = l.b2i(scc, Ty::I64);
                borrow_from = l.bin(Bin::Add, borrow_from, c64);
            }
            let a64 = l.zext(a);
            let borrow = l.cmp(Cmp::UGt, borrow_from, a64);
            out(d, Some(borrow))
        }
        SAddI32 | SSubI32 => {
            let (x, y) = (l.sext(a), l.sext(b));
            let r = l.bin(if op == SAddI32 { Bin::Add } else { Bin::Sub }, x, y);
            let d = l.trunc(r);
            let back = l.sext(d);
            let overflow = l.cmp(Cmp::Ne, back, r);
            out(d, Some(overflow))
        }
        SMinI32 | SMinU32 | SMaxI32 | SMaxU32 => {
            let (bin, cmp) = match op {
                SMinI32 => (Bin::SMin, Cmp::SLt),
                SMinU32 => (Bin::UMin, Cmp::ULt),
                SMaxI32 => (Bin::SMax, Cmp::SGt),
                _ => (Bin::UMax, Cmp::UGt),
            };
            let d = l.bin(bin, a, b);
            let c = l.cmp(cmp, a, b);
            out(d, Some(c))
        }
        SCselectB32 | SCselectB64 => {
            let d = l.select(scc, a, b);
            out(d, None)
        }
        SAndB32 | SAndB64 => {
            let v = l.bin(Bin::And, a, b);
            nz(l, v)
        }
        SOrB32 | SOrB64 => {
            let v = l.bin(Bin::Or, a, b);
            nz(l, v)
        }
        SXorB32 | SXorB64 => {
            let v = l.bin(Bin::Xor, a, b);
            nz(l, v)
        }
        SAndn2B32 | SAndn2B64 => {
            let nb = l.un(Un::Not, b);
            let v = l.bin(Bin::And, a, nb);
            nz(l, v)
        }
        SOrn2B32 | SOrn2B64 => {
            let nb = l.un(Un::Not, b);
            let v = l.bin(Bin::Or, a, nb);
            nz(l, v)
        }
        SNandB32 | SNandB64 | SNorB32 | SNorB64 | SXnorB32 | SXnorB64 => {
            let bin = match op {
                SNandB32 | SNandB64 => Bin::And,
                SNorB32 | SNorB64 => Bin::Or,
                _ => Bin::Xor,
            };
            let v = l.bin(bin, a, b);
            let v = l.un(Un::Not, v);
            nz(l, v)
        }
        SLshlB32 | SLshrB32 | SAshrI32 | SLshlB64 | SLshrB64 | SAshrI64 => {
            let bin = match op {
                SLshlB32 | SLshlB64 => Bin::Shl,
                SLshrB32 | SLshrB64 => Bin::LShr,
                _ => Bin::AShr,
            };
            let amount = if l.ty(a) == Ty::I64 { wide(l, b) } else { b };
            let v = l.bin(bin, a, amount);
            nz(l, v)
        }
        SBfmB32 => {
            let one = l.k32(1);
            let m = l.bin(Bin::Shl, one, a);
            let m = l.bink(Bin::Sub, m, 1);
            let d = l.bin(Bin::Shl, m, b);
            out(d, None)
        }
        SBfmB64 => {
            let one = l.k64(1);
            let a = l.zext(a);
            let b = l.zext(b);
            let m = l.bin(Bin::Shl, one, a);
            let m = l.bink(Bin::Sub, m, 1);
            let d = l.bin(Bin::Shl, m, b);
            out(d, None)
        }
        SMulI32 => {
            let d = l.bin(Bin::Mul, a, b);
            out(d, None)
        }
        SMulHiU32 | SMulHiI32 => {
            let (x, y) = if op == SMulHiU32 {
                (l.zext(a), l.zext(b))
            } else {
                (l.sext(a), l.sext(b))
            };
            let p = l.bin(Bin::Mul, x, y);
            let d = l.hi(p);
            out(d, None)
        }
        SBfeU32 | SBfeI32 | SBfeU64 | SBfeI64 => {
            let v = bfe(l, a, b, matches!(op, SBfeI32 | SBfeI64));
            nz(l, v)
        }
        SAbsdiffI32 => {
            let d = l.bin(Bin::Sub, a, b);
            let z = l.k32(0);
            let neg = l.cmp(Cmp::SLt, d, z);
            let n = l.bin(Bin::Sub, z, d);
            let v = l.select(neg, n, d);
            nz(l, v)
        }
        SPackLlB32B16 => {
            let lo = l.bink(Bin::And, a, 0xffff);
            let hi = l.bink(Bin::Shl, b, 16);
            let d = l.bin(Bin::Or, lo, hi);
            out(d, None)
        }
        SPackLhB32B16 => {
            let lo = l.bink(Bin::And, a, 0xffff);
            let hi = l.bink(Bin::And, b, 0xffff_0000);
            let d = l.bin(Bin::Or, lo, hi);
            out(d, None)
        }
        SPackHhB32B16 => {
            let lo = l.bink(Bin::LShr, a, 16);
            let hi = l.bink(Bin::And, b, 0xffff_0000);
            let d = l.bin(Bin::Or, lo, hi);
            out(d, None)
        }
        _ => return None,
    })
}

/// Four-bit group masks: each nibble of `a` that is non-zero becomes all ones (`quad` false, s_wqm) or one
/// bit of the result (`quad` true, s_quadmask).
fn nibbles<L: Lower>(l: &mut L, a: L::V, groups: u32, quad: bool, wide_out: bool) -> L::V {
    let mut d = if wide_out { l.k64(0) } else { l.k32(0) };
    let a = if l.ty(a) == Ty::I32 && wide_out {
        l.zext(a)
    } else {
        a
    };
    for q in 0..groups {
        let n = l.field(a, 4 * q, 4);
        let on = l.nz(n);
        let bit = if quad { 1u64 << q } else { 0xfu64 << (4 * q) };
        let k = l.k_like(d, bit);
        let z = l.zero_like(d);
        let m = l.select(on, k, z);
        d = l.bin(Bin::Or, d, m);
    }
    d
}

/// A SOP1 operation on `src` (its width is the operation's source width). `None` for operations that are
/// not pure values (saveexec, movrel, getpc/setpc and the like are the compiler's).
pub fn sop1<L: Lower>(l: &mut L, op: Op, src: L::V) -> Option<SOut<L::V>> {
    use Op::*;
    Some(match op {
        SMovB32 | SMovB64 => out(src, None),
        SNotB32 | SNotB64 => {
            let v = l.un(Un::Not, src);
            nz(l, v)
        }
        SWqmB32 => {
            let v = nibbles(l, src, 8, false, false);
            nz(l, v)
        }
        SWqmB64 => {
            let v = nibbles(l, src, 16, false, true);
            nz(l, v)
        }
        SQuadmaskB32 => {
            let v = nibbles(l, src, 8, true, false);
            nz(l, v)
        }
        SQuadmaskB64 => {
            let v = nibbles(l, src, 16, true, true);
            nz(l, v)
        }
        SBrevB32 | SBrevB64 => {
            let v = l.un(Un::BitRev, src);
            out(v, None)
        }
        SBcnt1I32B32 | SBcnt0I32B32 | SBcnt1I32B64 | SBcnt0I32B64 => {
            let x = if matches!(op, SBcnt0I32B32 | SBcnt0I32B64) {
                l.un(Un::Not, src)
            } else {
                src
            };
            let c = l.un(Un::BitCount, x);
            let c = if l.ty(c) == Ty::I64 { l.trunc(c) } else { c };
            nz(l, c)
        }
        SFf1I32B32 | SFf1I32B64 => {
            let v = l.un(Un::FindLsb, src);
            out(v, None)
        }
        SFf0I32B32 | SFf0I32B64 => {
            let n = l.un(Un::Not, src);
            let v = l.un(Un::FindLsb, n);
            out(v, None)
        }
        SFlbitI32B32 | SFlbitI32B64 | SFlbitI32 | SFlbitI32I64 => {
            let bits = if l.ty(src) == Ty::I64 { 63 } else { 31 };
            let x = if matches!(op, SFlbitI32 | SFlbitI32I64) {
                // Signed: count from the first bit that differs from the sign.
                let z = l.zero_like(src);
                let negative = l.cmp(Cmp::SLt, src, z);
                let n = l.un(Un::Not, src);
                l.select(negative, n, src)
            } else {
                src
            };
            let msb = l.un(Un::FindMsb, x);
            let none = l.k32(u32::MAX);
            let is_none = l.cmp(Cmp::Eq, msb, none);
            let k = l.k32(bits);
            let lz = l.bin(Bin::Sub, k, msb);
            let v = l.select(is_none, none, lz);
            out(v, None)
        }
        SSextI32I8 => {
            let v = l.sext_in(src, 8);
            out(v, None)
        }
        SSextI32I16 => {
            let v = l.sext_in(src, 16);
            out(v, None)
        }
        SAbsI32 => {
            let z = l.k32(0);
            let neg = l.cmp(Cmp::SLt, src, z);
            let n = l.bin(Bin::Sub, z, src);
            let v = l.select(neg, n, src);
            nz(l, v)
        }
        SBitreplicateB64B32 => {
            let s = l.zext(src);
            let mut d = l.k64(0);
            for i in 0..32u32 {
                let b = l.field(s, i, 1);
                let m = l.bink(Bin::Mul, b, 3);
                let m = l.bink(Bin::Shl, m, 2 * i as u64);
                d = l.bin(Bin::Or, d, m);
            }
            out(d, None)
        }
        _ => return None,
    })
}

/// A SOPC compare of `a`, `b` (s_bitcmp's second source is 32-bit): the new SCC.
pub fn sopc<L: Lower>(l: &mut L, op: Op, a: L::V, b: L::V) -> Option<L::V> {
    use Op::*;
    let cmp = match op {
        SCmpEqI32 | SCmpEqU32 | SCmpEqU64 => Cmp::Eq,
        SCmpLgI32 | SCmpLgU32 | SCmpLgU64 => Cmp::Ne,
        SCmpGtI32 => Cmp::SGt,
        SCmpGeI32 => Cmp::SGe,
        SCmpLtI32 => Cmp::SLt,
        SCmpLeI32 => Cmp::SLe,
        SCmpGtU32 => Cmp::UGt,
        SCmpGeU32 => Cmp::UGe,
        SCmpLtU32 => Cmp::ULt,
        SCmpLeU32 => Cmp::ULe,
        SBitcmp0B32 | SBitcmp1B32 | SBitcmp0B64 | SBitcmp1B64 => {
            let amount = if l.ty(a) == Ty::I64 { l.zext(b) } else { b };
            let s = l.bin(Bin::LShr, a, amount);
            let bit = l.bink(Bin::And, s, 1);
            let one = l.k_like(a, 1);
            let set = l.cmp(Cmp::Eq, bit, one);
            return Some(if matches!(op, SBitcmp1B32 | SBitcmp1B64) {
                set
            } else {
                l.bnot(set)
            });
        }
        _ => return None,
    };
    Some(l.cmp(cmp, a, b))
}

/// A SOPK operation with the sign- or zero-extended immediate `k` (32-bit) and the destination's old value.
pub fn sopk<L: Lower>(l: &mut L, op: Op, simm16: u16, old: L::V, scc: L::V) -> Option<SOut<L::V>> {
    use Op::*;
    let ks = l.k32(simm16 as i16 as i32 as u32);
    let ku = l.k32(simm16 as u32);
    Some(match op {
        SMovkI32 => out(ks, None),
        SCmovkI32 => {
            let d = l.select(scc, ks, old);
            out(d, None)
        }
        SAddkI32 => {
            let (x, y) = (l.sext(old), l.sext(ks));
            let r = l.bin(Bin::Add, x, y);
            let d = l.trunc(r);
            let back = l.sext(d);
            let o = l.cmp(Cmp::Ne, back, r);
            out(d, Some(o))
        }
        SMulkI32 => {
            let d = l.bin(Bin::Mul, old, ks);
            out(d, None)
        }
        SCmpkEqI32 | SCmpkLgI32 | SCmpkGtI32 | SCmpkGeI32 | SCmpkLtI32 | SCmpkLeI32 => {
            let c = match op {
                SCmpkEqI32 => Cmp::Eq,
                SCmpkLgI32 => Cmp::Ne,
                SCmpkGtI32 => Cmp::SGt,
                SCmpkGeI32 => Cmp::SGe,
                SCmpkLtI32 => Cmp::SLt,
                _ => Cmp::SLe,
            };
            let s = l.cmp(c, old, ks);
            SOut {
                dst: None,
                scc: Some(s),
            }
        }
        SCmpkEqU32 | SCmpkLgU32 | SCmpkGtU32 | SCmpkGeU32 | SCmpkLtU32 | SCmpkLeU32 => {
            let c = match op {
                SCmpkEqU32 => Cmp::Eq,
                SCmpkLgU32 => Cmp::Ne,
                SCmpkGtU32 => Cmp::UGt,
                SCmpkGeU32 => Cmp::UGe,
                SCmpkLtU32 => Cmp::ULt,
                _ => Cmp::ULe,
            };
            let s = l.cmp(c, old, ku);
            SOut {
                dst: None,
                scc: Some(s),
            }
        }
        _ => return None,
    })
}
