//! `v_exp_f32`/`v_exp_f16` (2^x), `v_log_f32`/`v_log_f16` (log2 x) and `v_sin`/`v_cos` (of x turns,
//! [`sincos`]) in integer arithmetic, for the float engine's formats f32 and f16 (FP16_OVFL is the caller's,
//! as for the other f16 operations).
//!
//! The model (`reference_model::float::exp_f32` and siblings, rule `transcendental.approximation`, inferred)
//! takes `libm`'s f64 value of the exact function and rounds that once more in the mode's direction; its
//! special cases decide on the bits. Here the exact function is computed in 64-bit fixed point to about 2^-58
//! relative (every product truncated, so the value is a little low, with a sticky bit: inexact unless the
//! result is exact, which only 2^integer and log2 of a power of two are) and rounded as the model rounds:
//! first to an f64 significand (53 bits, nearest even), then by the engine's `round_pack` in the mode. The
//! first rounding matters: 2^x of a tiny x is 1 + x ln 2, which f64 holds as 1, so the model returns 1.0
//! rounding up or down as well. The two agree except where the exact value lies within about 2^-58 of an
//! f64 rounding boundary that is also one of the result format's: no input among the 766,112 of
//! `recompiler/tests/f32_soft.rs` (f32 edges and random values in 11 modes, every f16 input in 4), and within
//! the 1-ULP tolerance conformance allows these instructions (`rules::tolerance_ulp`) wherever it happens.
//!
//! - 2^x: x = n + f with n = floor(x) and f in [0, 1) as a 64-bit fraction (bits below 2^-64 kept as a sticky
//!   flag); 2^f by Horner's rule on the Taylor series of e^(f ln 2), 19 terms (the rest is below 2^-66), the
//!   coefficients (ln 2)^k / k! rounded to 62 fraction bits (computed with Python's `decimal` at 80 digits;
//!   ln 2 times 2^64 is 0xb17217f7d1cf79ac). The model's f64 limits decide the ends: x >= 1024 gives +inf in every mode (the
//!   f64 result is infinite), x <= -1075 gives +0 (the f64 result is 0); between, the result rounds and flushes
//!   by the mode. Below |x| = 2^-20 the series is not used: 2^x = 1 + d with d = y (1 + y/2 + y^2/6), y = x ln 2,
//!   to 2^-60 of d, and the f64 step rounds 1 + d to a multiple of 2^-52 (above 1) or 2^-53 (below) on d
//!   itself. Near x = -2^-54 / ln 2 the series' 2^-58 of 1 is larger than the distance of 1 + d from that
//!   midpoint, and the H200's 2^32 sweep in round-toward-zero found those inputs before the tiny path existed.
//! - log2 x: x = m * 2^E with m in [1, 2), taken as m/2 and E+1 when m >= 1.5 so that x near 1 has E = 0;
//!   log2 m by repeated squaring (62 steps, each bit of the result is whether the square reached 2), which
//!   keeps 62 fraction bits absolute: with E = 0 the result is kept at that scale, otherwise |log2 x| >= 0.41
//!   and 54 fraction bits are plenty. log2 1 = +0 in every mode (the model's f64 zero).

use super::float::{
    flush_in, is_nan, kf, low_bits, round_pack, shr_round, unary_nan, unpack, Env, Fmt, F16,
};
use crate::lower::{Bin, Cmp, Lower, Un};

/// (ln 2)^k / k! * 2^62, k = 0..=18.
const EXP2_TAYLOR: [u64; 19] = [
    0x4000000000000000,
    0x2c5c85fdf473de6b,
    0x0f5fdeffc162c754,
    0x038d611ae09417f1,
    0x009d955b7dd273b9,
    0x0015d87fe78a6731,
    0x0002861225f0d8f1,
    0x00003ff97f8b1162,
    0x0000058b0088e972,
    0x0000006d494f4e58,
    0x00000007933d4563,
    0x000000007a32b1cd,
    0x00000000070ef594,
    0x0000000000605865,
    0x000000000004c526,
    0x000000000000386e,
    0x0000000000000272,
    0x000000000000001a,
    0x0000000000000001,
];

/// The high 64 bits of the 128-bit product of two u64.
fn mul_hi<L: Lower>(e: &mut L, a: L::V, b: L::V) -> L::V {
    mul_full(e, a, b).1
}

/// The 128-bit product of two u64 as (low, high).
fn mul_full<L: Lower>(e: &mut L, a: L::V, b: L::V) -> (L::V, L::V) {
    let al = e.bink(Bin::And, a, 0xffff_ffff);
    let bl = e.bink(Bin::And, b, 0xffff_ffff);
    let ah = e.bink(Bin::LShr, a, 32);
    let bh = e.bink(Bin::LShr, b, 32);
    let ll = e.bin(Bin::Mul, al, bl);
    let lh = e.bin(Bin::Mul, al, bh);
    let hl = e.bin(Bin::Mul, ah, bl);
    let hh = e.bin(Bin::Mul, ah, bh);
    // The middle column: below 3 * 2^32, no overflow.
    let c0 = e.bink(Bin::LShr, ll, 32);
    let c1 = e.bink(Bin::And, lh, 0xffff_ffff);
    let c2 = e.bink(Bin::And, hl, 0xffff_ffff);
    let mid = e.bin(Bin::Add, c0, c1);
    let mid = e.bin(Bin::Add, mid, c2);
    let lo_low = e.bink(Bin::And, ll, 0xffff_ffff);
    let mid_lo = e.bink(Bin::Shl, mid, 32);
    let lo = e.bin(Bin::Or, lo_low, mid_lo);
    let h1 = e.bink(Bin::LShr, lh, 32);
    let h2 = e.bink(Bin::LShr, hl, 32);
    let h3 = e.bink(Bin::LShr, mid, 32);
    let hi = e.bin(Bin::Add, hh, h1);
    let hi = e.bin(Bin::Add, hi, h2);
    (lo, e.bin(Bin::Add, hi, h3))
}

/// The model's two roundings of the non-zero value `sig * 2^exp` (`sig` with a sticky bit at bit 0): to an
/// f64 significand (53 bits, nearest even: `libm`'s result), then to the format in the mode. `sig` must be
/// below 2^63: the first rounding may carry one bit up.
fn round_twice<L: Lower>(e: &mut L, env: &Env<L::V>, sign: L::V, sig: L::V, exp: L::V) -> L::V {
    let msb = e.un(Un::FindMsb, sig);
    let k52 = e.k32(52);
    let wide = e.cmp(Cmp::UGt, msb, k52);
    let d = e.bin(Bin::Sub, msb, k52);
    let z = e.k32(0);
    let d = e.select(wide, d, z);
    let q = shr_round(e, z, sign, sig, d);
    let dw = e.zext(d);
    let q = e.bin(Bin::Shl, q, dw);
    round_pack(e, env, sign, q, exp)
}

/// The bits of 1024 and 1075 in format `f` (f16: 2^10 and 2^10 * (1 + 51/1024)).
fn limits(f: Fmt) -> (u64, u64) {
    if f == F16 {
        (0x6400, 0x6433)
    } else {
        (0x4480_0000, 0x4486_6000)
    }
}

/// `v_exp_f32` / `v_exp_f16` on bits `x` (modifiers applied): the module docs.
pub fn exp2<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let xf = flush_in(e, env, x);
    let u = unpack(e, env, xf);
    let neg = e.nz(u.sign);
    let mag = e.bink(Bin::And, xf, f.mag_mask());
    let (b1024, b1075) = limits(f);
    let k1024 = kf(e, f, b1024);
    let k1075 = kf(e, f, b1075);
    let ge1024 = e.cmp(Cmp::UGe, mag, k1024);
    let ge1075 = e.cmp(Cmp::UGe, mag, k1075);
    // |x| = m * 2^ex with m below 2^24; below 1024 the integer part fits easily.
    let m = e.zext(u.sig);
    let ex = u.exp;
    let z32 = e.k32(0);
    let k64 = e.k32(64);
    let ex_ge0 = e.cmp(Cmp::SGe, ex, z32);
    let sh = e.bin(Bin::Sub, z32, ex); // fraction bits of |x| (when ex < 0)
    let sh_lt64 = e.cmp(Cmp::ULt, sh, k64);
    // Integer part.
    let exl = e.bink(Bin::And, ex, 63);
    let exw = e.zext(exl);
    let int_a = e.bin(Bin::Shl, m, exw);
    let shl = e.bink(Bin::And, sh, 63);
    let shw = e.zext(shl);
    let int_b = e.bin(Bin::LShr, m, shw);
    let z64 = e.k64(0);
    let int_bc = e.select(sh_lt64, int_b, z64);
    let int = e.select(ex_ge0, int_a, int_bc);
    // Fraction as f * 2^64, and whether bits below 2^-64 were dropped.
    let up = e.bin(Bin::Sub, k64, sh);
    let upl = e.bink(Bin::And, up, 63);
    let upw = e.zext(upl);
    let frac_b = e.bin(Bin::Shl, m, upw);
    let sh0 = e.cmp(Cmp::Eq, sh, z32);
    let frac_b = e.select(sh0, z64, frac_b);
    let down = e.bin(Bin::Sub, sh, k64); // >= 0 when sh >= 64
    let down_big = e.cmp(Cmp::UGe, down, k64);
    let dl = e.bink(Bin::And, down, 63);
    let dw = e.zext(dl);
    let frac_c = e.bin(Bin::LShr, m, dw);
    let frac_c = e.select(down_big, z64, frac_c);
    let back = e.bin(Bin::Shl, frac_c, dw);
    let lost_c = e.cmp(Cmp::Ne, back, m);
    let m_nz = e_nz64(e, m);
    let lost_c = e.select(down_big, m_nz, lost_c);
    let frac_bc = e.select(sh_lt64, frac_b, frac_c);
    let frac = e.select(ex_ge0, z64, frac_bc);
    let no = e.kbool(false);
    let lost_bc = e.select(sh_lt64, no, lost_c);
    let lost = e.select(ex_ge0, no, lost_bc);
    // floor(x) and x - floor(x) for a negative x with a fraction: -(int + 1) and 1 - f.
    let has_frac = e.cmp(Cmp::Ne, frac, z64);
    let has_frac = e.bor(has_frac, lost);
    let neg_frac = e.band(neg, has_frac);
    let nf = e.un(Un::Not, frac);
    let one64 = e.k64(1);
    let nf_exact = e.bin(Bin::Add, nf, one64);
    let nf = e.select(lost, nf, nf_exact);
    let frac = e.select(neg_frac, nf, frac);
    let int32 = e.trunc(int);
    let nint = e.bin(Bin::Sub, z32, int32);
    let one32 = e.k32(1);
    let nint1 = e.bin(Bin::Sub, nint, one32);
    let n_neg = e.select(has_frac, nint1, nint);
    let n = e.select(neg, n_neg, int32);
    // 2^f in Q62 by Horner's rule, from the highest coefficient down.
    let top = e.k64(EXP2_TAYLOR[18]);
    let t = e.repeat(18, &[top], |e, i, s| {
        let k17 = e.k32(17);
        let j = e.bin(Bin::Sub, k17, i);
        let a = e.table64(&EXP2_TAYLOR[..18], j);
        let p = mul_hi(e, frac, s[0]);
        vec![e.bin(Bin::Add, p, a)]
    })[0];
    let sticky = e.b2i(has_frac, crate::lower::Ty::I64);
    let sig = e.bin(Bin::Or, t, sticky);
    let exp = e.bink(Bin::Sub, n, 62);
    let zero_sign = e.k32(0);
    let r = round_twice(e, env, zero_sign, sig, exp);
    // |x| below 2^-20: 2^x = 1 + d with d = y (1 + y/2 + y^2/6), y = x ln 2, kept to 2^-60 of d itself, so that
    // the f64 step (1 + d to a multiple of 2^-52 above 1, of 2^-53 below) is decided on d, not on a value
    // near 1 whose last bits the series above cannot resolve.
    let ktiny = kf(e, f, tiny_limit(f));
    let tiny = e.cmp(Cmp::ULt, mag, ktiny);
    let r_tiny = exp2_tiny(e, env, neg, m, ex);
    let r = e.select(tiny, r_tiny, r);
    let inf = kf(e, f, f.exp_mask());
    let pz = kf(e, f, 0);
    let over = e.bnot(neg);
    let over = e.band(over, ge1024);
    let under = e.band(neg, ge1075);
    let r = e.select(over, inf, r);
    let r = e.select(under, pz, r);
    e.select(nan, nan_r, r)
}

/// The bits of 2^-20 in format `f` (an f16 denormal).
fn tiny_limit(f: Fmt) -> u64 {
    if f == F16 {
        0x0010
    } else {
        0x3580_0000
    }
}

/// ln 2 * 2^64, rounded.
const LN2_64: u64 = 0xb172_17f7_d1cf_79ac;
/// 2^64 / 6, rounded up.
const SIXTH_64: u64 = 0x2aaa_aaaa_aaaa_aaab;

/// 2^x for |x| = m * 2^ex below 2^-20 (`neg`: x < 0), rounded as the model rounds (the module docs).
fn exp2_tiny<L: Lower>(e: &mut L, env: &Env<L::V>, neg: L::V, m: L::V, ex: L::V) -> L::V {
    // m moved up to bit 63: |x| = m64 * 2^(ex - sh1).
    let msb = e.un(Un::FindMsb, m);
    let k63 = e.k32(63);
    let sh1 = e.bin(Bin::Sub, k63, msb);
    let sh1 = e.bink(Bin::And, sh1, 63);
    let sh1w = e.zext(sh1);
    let m64 = e.bin(Bin::Shl, m, sh1w);
    // |y| = ys * 2^ey, ys in [2^62, 2^64).
    let l = e.k64(LN2_64);
    let ys = mul_hi(e, m64, l);
    let ey = e.bin(Bin::Sub, ex, sh1);
    // Y = |y| * 2^64 (below 2^44), 0 when |y| < 2^-64: ys shifted right by -(ey + 64).
    let k64 = e.k32(64);
    let e64 = e.bin(Bin::Add, ey, k64);
    let z32 = e.k32(0);
    let rs = e.bin(Bin::Sub, z32, e64);
    let far = e.cmp(Cmp::SGe, rs, k64);
    let rsl = e.bink(Bin::And, rs, 63);
    let rsw = e.zext(rsl);
    let yq = e.bin(Bin::LShr, ys, rsw);
    let z64 = e.k64(0);
    let yq = e.select(far, z64, yq);
    // C = |y|/2 +- y^2/6 in Q64: the relative change of d against y (+ for x > 0, - for x < 0).
    let half = e.bink(Bin::LShr, yq, 1);
    let sq = mul_hi(e, yq, yq);
    let sixth = e.k64(SIXTH_64);
    let sq6 = mul_hi(e, sq, sixth);
    let c_pos = e.bin(Bin::Add, half, sq6);
    let c_neg = e.bin(Bin::Sub, half, sq6);
    let corr_pos = mul_hi(e, ys, c_pos);
    let corr_neg = mul_hi(e, ys, c_neg);
    let d_pos = e.bin(Bin::Add, ys, corr_pos);
    let d_neg = e.bin(Bin::Sub, ys, corr_neg);
    let d = e.select(neg, d_neg, d_pos);
    // A carry of the sum above 2^64 cannot happen: ys < 2^64 * ln 2 * (1 + 2^-20).
    let one = e.k64(1);
    let d = e.bin(Bin::Or, d, one);
    // k = |d| / 2^-52 (above 1) or / 2^-53 (below), nearest even: d * 2^(ey + 52 or 53).
    let k52 = e.k32(52);
    let k53 = e.k32(53);
    let g = e.select(neg, k53, k52);
    let sh = e.bin(Bin::Add, ey, g);
    let sh = e.bin(Bin::Sub, z32, sh);
    let rne = e.k32(0);
    let sign0 = e.k32(0);
    let k = shr_round(e, rne, sign0, d, sh);
    let base_pos = e.k64(1 << 52);
    let base_neg = e.k64(1 << 53);
    let up = e.bin(Bin::Add, base_pos, k);
    let down = e.bin(Bin::Sub, base_neg, k);
    let sig = e.select(neg, down, up);
    let kexp_pos = e.k32(-52i32 as u32);
    let kexp_neg = e.k32(-53i32 as u32);
    let exp = e.select(neg, kexp_neg, kexp_pos);
    round_pack(e, env, sign0, sig, exp)
}

fn e_nz64<L: Lower>(e: &mut L, v: L::V) -> L::V {
    let z = e.k64(0);
    e.cmp(Cmp::Ne, v, z)
}

/// `v_log_f32` / `v_log_f16` on bits `x` (modifiers applied): the module docs.
pub fn log2<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let xf = flush_in(e, env, x);
    let u = unpack(e, env, xf);
    let neg = e.nz(u.sign);
    let m = e.zext(u.sig);
    // m * 2^exp with its top bit moved to bit 62: mq in [2^62, 2^63), E the unbiased exponent.
    let msb = e.un(Un::FindMsb, m);
    let k62 = e.k32(62);
    let s = e.bin(Bin::Sub, k62, msb);
    let sl = e.bink(Bin::And, s, 63);
    let sw = e.zext(sl);
    let mq = e.bin(Bin::Shl, m, sw);
    let big_e = e.bin(Bin::Add, u.exp, msb);
    let k15 = e.k64(3 << 61);
    let high = e.cmp(Cmp::UGe, mq, k15);
    // log2 of mq / 2^62 in Q62, one bit per squaring: state (value, result, the next result bit).
    let z = e.k64(0);
    let first_bit = e.k64(1 << 61);
    let out = e.repeat(62, &[mq, z, first_bit], |e, _, s| {
        let &[v, l, bit] = s else {
            unreachable!("three state values")
        };
        let (lo, hi) = mul_full(e, v, v);
        let hi2 = e.bink(Bin::Shl, hi, 2);
        let lo2 = e.bink(Bin::LShr, lo, 62);
        let sq = e.bin(Bin::Or, hi2, lo2);
        let top = e.k64(1 << 63);
        let two = e.cmp(Cmp::UGe, sq, top);
        let halved = e.bink(Bin::LShr, sq, 1);
        let v = e.select(two, halved, sq);
        let z = e.k64(0);
        let add = e.select(two, bit, z);
        let l = e.bin(Bin::Or, l, add);
        let bit = e.bink(Bin::LShr, bit, 1);
        vec![v, l, bit]
    });
    let l = out[1];
    // m >= 1.5: log2 m - 1 with E + 1.
    let one_q = e.k64(1 << 62);
    let l_high = e.bin(Bin::Sub, l, one_q);
    let lv = e.select(high, l_high, l);
    let one32 = e.k32(1);
    let e_high = e.bin(Bin::Add, big_e, one32);
    let ev = e.select(high, e_high, big_e);
    let z32 = e.k32(0);
    let e_zero = e.cmp(Cmp::Eq, ev, z32);
    // E = 0: lv at 62 fraction bits; otherwise E * 2^55 + lv / 2^7 (lv's sign kept by the arithmetic shift), at
    // least 54 significant bits, so the f64 rounding has a bit to drop.
    let ew = e.sext(ev);
    let e55 = e.bink(Bin::Shl, ew, 55);
    let l55 = e.bink(Bin::AShr, lv, 7);
    let v55 = e.bin(Bin::Add, e55, l55);
    let val = e.select(e_zero, lv, v55);
    let k55 = e.k32(-55i32 as u32);
    let k62n = e.k32(-62i32 as u32);
    let exp = e.select(e_zero, k62n, k55);
    let z64 = e.k64(0);
    let vneg = e.cmp(Cmp::SLt, val, z64);
    let nval = e.bin(Bin::Sub, z64, val);
    let magv = e.select(vneg, nval, val);
    let exact = e.cmp(Cmp::Eq, mq, one_q);
    let inexact = e.bnot(exact);
    let sticky = e.b2i(inexact, crate::lower::Ty::I64);
    let sig = e.bin(Bin::Or, magv, sticky);
    let sign = e.b2i(vneg, crate::lower::Ty::I32);
    let r = round_twice(e, env, sign, sig, exp);
    let res_zero = e.cmp(Cmp::Eq, sig, z64);
    let pz = kf(e, f, 0);
    let r = e.select(res_zero, pz, r);
    let inf = kf(e, f, f.exp_mask());
    let ninf = kf(e, f, f.exp_mask() | 1 << f.sign_bit());
    let dnan = kf(e, f, f.default_nan());
    let r = e.select(u.inf, inf, r);
    let r = e.select(neg, dnan, r);
    let r = e.select(u.zero, ninf, r);
    e.select(nan, nan_r, r)
}

/// The significand of the f64 nearest 2 pi (`0x401921fb54442d18`): 2 pi in f64 is `TWO_PI_SIG * 2^-50`.
const TWO_PI_SIG: u64 = 0x001921fb54442d18;
/// q pi / 2 * 2^125 for q = 1..=4, rounded to nearest, as (high, low) 64-bit halves.
const QUARTERS_Q125: [(u64, u64); 4] = [
    (0x3243f6a8885a308d, 0x313198a2e0370734),
    (0x6487ed5110b4611a, 0x62633145c06e0e69),
    (0x96cbe3f9990e91a7, 0x9394c9e8a0a5159d),
    (0xc90fdaa22168c234, 0xc4c6628b80dc1cd1),
];
/// The high halves of floor(k pi / 4 * 2^125), k = 1, 3, 5, 7 (their low halves are non-zero, so an `x` whose
/// Q125 form has a zero low half exceeds k pi / 4 exactly when its high half exceeds this).
const OCTANTS_Q125: [u64; 4] = [
    0x1921fb54442d1846,
    0x4b65f1fccc8748d3,
    0x7da9e8a554e17960,
    0xafeddf4ddd3ba9ee,
];
/// 2^64 / ((2j)(2j + 1)), j = 1..=10, rounded: the factors of the nested series of sin(r) / r.
const SIN_STEPS: [u64; 10] = [
    0x2aaaaaaaaaaaaaab,
    0x0ccccccccccccccd,
    0x0618618618618618,
    0x038e38e38e38e38e,
    0x0253c8253c8253c8,
    0x01a41a41a41a41a4,
    0x0138138138138138,
    0x00f0f0f0f0f0f0f1,
    0x00bfa02fe80bfa03,
    0x009c09c09c09c09c,
];
/// 2^64 / ((2j - 1)(2j)), j = 1..=10, rounded: the factors of the nested series of cos(r).
const COS_STEPS: [u64; 10] = [
    0x8000000000000000,
    0x1555555555555555,
    0x0888888888888889,
    0x0492492492492492,
    0x02d82d82d82d82d8,
    0x01f07c1f07c1f07c,
    0x0168168168168168,
    0x0111111111111111,
    0x00d62b80d62b80d6,
    0x00ac7691840ac769,
];

/// `1 - series`, where the series is `z/d1 (1 - z/d2 (1 - ...))` over `steps` (2^64 / d), in Q64: returns the
/// Q64 value `h` with `series = h` (every factor below one, so no term needs an integer bit).
fn nested<L: Lower>(e: &mut L, z: L::V, steps: &[u64]) -> L::V {
    let h = e.k64(0);
    let last = steps.len() as u32 - 1;
    e.repeat(last + 1, &[h], |e, i, s| {
        let kl = e.k32(last);
        let j = e.bin(Bin::Sub, kl, i);
        let kd = e.table64(steps, j);
        let zd = mul_hi(e, z, kd);
        let p = mul_hi(e, zd, s[0]);
        vec![e.bin(Bin::Sub, zd, p)]
    })[0]
}

/// `v_sin` (`cos` false) or `v_cos` (true), f32 or f16, on bits `x` (modifiers applied).
///
/// The model (`reference_model::float::sin_f32` and siblings, rule `transcendental.approximation`, inferred)
/// takes the fraction `t` of `|x|` (exact), the f64 product `X = 2 pi * t` (the f64 constant, rounded to
/// nearest even), `libm`'s f64 sine or cosine of `X`, and rounds that again in the mode; `t` of 0 and 1/2
/// (sine) or 1/4 and 3/4 (cosine) give +0, and the sine of a negative `x` is negated. Here `X` is formed
/// exactly as the model forms it (the 77-bit product of the significands rounded to 53 bits), reduced by the
/// nearest multiple of pi / 2 in 128-bit fixed point (pi / 2 to 2^-126, so `r` is known to 2^-124 where
/// `|r|` is never below about 2^-57), and sin r = r (1 - h) or cos r = 1 - h from the Taylor series nested
/// in Q64 (ten terms each: the rest is below 2^-68 for `|r| <= pi / 4`), the cosine's `h` relative to its own
/// size, since near its maximum the cosine is flat. The result is then rounded as the
/// model rounds: to 53 bits, nearest even, then in the mode ([`round_twice`]). The two agree wherever
/// `libm` is correctly rounded and the exact value is not within about 2^-62 of an f64 rounding boundary
/// that is also one of the result format's; `conformance sweep` measures that over every input.
pub fn sincos<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, cos: bool) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let xf = flush_in(e, env, x);
    let u = unpack(e, env, xf);
    let xneg = e.nz(u.sign);
    let z32 = e.k32(0);
    let z64 = e.k64(0);
    // t = frac(|x|) = mt * 2^ex (mt below 2^24, possibly 0).
    let m = u.sig;
    let ex = u.exp;
    let int_only = e.cmp(Cmp::SGe, ex, z32);
    let sh = e.bin(Bin::Sub, z32, ex);
    let k32 = e.k32(32);
    let narrow = e.cmp(Cmp::ULt, sh, k32);
    let one32 = e.k32(1);
    let shl = e.bink(Bin::And, sh, 31);
    let mask = e.bin(Bin::Shl, one32, shl);
    let mask = e.bin(Bin::Sub, mask, one32);
    let low = e.bin(Bin::And, m, mask);
    let mt = e.select(narrow, low, m);
    let mt = e.select(int_only, z32, mt);
    let t_zero = e.cmp(Cmp::Eq, mt, z32);
    // t in 1/4, 1/2, 3/4: a power of two (or three times one) at exponent -1 or -2.
    let kt = e.un(Un::FindMsb, mt);
    let et = e.bin(Bin::Add, ex, kt);
    let mt1 = e.bin(Bin::Sub, mt, one32);
    let and1 = e.bin(Bin::And, mt, mt1);
    let pow2 = e.cmp(Cmp::Eq, and1, z32);
    let km1 = e.k32(-1i32 as u32);
    let km2 = e.k32(-2i32 as u32);
    let at_m1 = e.cmp(Cmp::Eq, et, km1);
    let at_m2 = e.cmp(Cmp::Eq, et, km2);
    let half = e.band(pow2, at_m1);
    let quarter = e.band(pow2, at_m2);
    let kt1 = e.bin(Bin::Sub, kt, one32);
    let kt1 = e.bink(Bin::And, kt1, 31);
    let three = e.k32(3);
    let three_k = e.bin(Bin::Shl, three, kt1);
    let is3 = e.cmp(Cmp::Eq, mt, three_k);
    let two_bits = e.un(Un::BitCount, mt);
    let k2 = e.k32(2);
    let two_bits = e.cmp(Cmp::Eq, two_bits, k2);
    let is3 = e.band(is3, two_bits);
    let three_q = e.band(is3, at_m1);
    // X = RN53(2 pi_f64 * t): the exact product P = TWO_PI_SIG * mt * 2^(ex - 50), below 2^77.
    let mtw = e.zext(mt);
    let kpi = e.k64(TWO_PI_SIG);
    let (lo, hi) = mul_full(e, kpi, mtw);
    let hi_nz = e.cmp(Cmp::Ne, hi, z64);
    let mh = e.un(Un::FindMsb, hi);
    let k64_32 = e.k32(64);
    let mh = e.bin(Bin::Add, mh, k64_32);
    let ml = e.un(Un::FindMsb, lo);
    let msb_p = e.select(hi_nz, mh, ml);
    // Into 64 bits with a sticky bit (s0 <= 13), then to 53 bits, nearest even.
    let k63 = e.k32(63);
    let s0 = e.bin(Bin::Sub, msb_p, k63);
    let s0 = e.bin(Bin::SMax, s0, z32);
    let s0w = e.zext(s0);
    let up = e.bin(Bin::Sub, k64_32, s0);
    let up = e.bink(Bin::And, up, 63);
    let upw = e.zext(up);
    let hi_part = e.bin(Bin::Shl, hi, upw);
    let lo_part = e.bin(Bin::LShr, lo, s0w);
    let joined = e.bin(Bin::Or, hi_part, lo_part);
    let one64 = e.k64(1);
    let lost = low_bits(e, lo, s0w);
    let sticky = e.b2i(lost, crate::lower::Ty::I64);
    let joined = e.bin(Bin::Or, joined, sticky);
    let s0_zero = e.cmp(Cmp::Eq, s0, z32);
    let p64 = e.select(s0_zero, lo, joined);
    let mp = e.un(Un::FindMsb, p64);
    let k52 = e.k32(52);
    let d = e.bin(Bin::Sub, mp, k52);
    let xm = shr_round(e, z32, z32, p64, d);
    let carry = e.bink(Bin::LShr, xm, 53);
    let cw = e.trunc(carry);
    let xm = e.bin(Bin::LShr, xm, carry);
    let xe = e.bink(Bin::Sub, ex, 50);
    let xe = e.bin(Bin::Add, xe, s0);
    let xe = e.bin(Bin::Add, xe, d);
    let xe = e.bin(Bin::Add, xe, cw);
    // X >= 1/2: X * 2^125 in 128 bits has the low half 0 and the high half xm << (xe + 61), xe + 61 in 8..=11.
    let km53 = e.k32(-53i32 as u32);
    let big = e.cmp(Cmp::SGe, xe, km53);
    let k61 = e.k32(61);
    let xs = e.bin(Bin::Add, xe, k61);
    let xs = e.bink(Bin::And, xs, 63);
    let xsw = e.zext(xs);
    let xh = e.bin(Bin::Shl, xm, xsw);
    // q = the nearest multiple of pi / 2 (0..=4).
    let mut q = e.k32(0);
    for &o in &OCTANTS_Q125 {
        let ko = e.k64(o);
        let gt = e.cmp(Cmp::UGt, xh, ko);
        let inc = e.b2i(gt, crate::lower::Ty::I32);
        q = e.bin(Bin::Add, q, inc);
    }
    let q = e.select(big, q, z32);
    let mut qh = e.k64(0);
    let mut ql = e.k64(0);
    for (i, &(h, l)) in QUARTERS_Q125.iter().enumerate() {
        let ki = e.k32(i as u32 + 1);
        let is = e.cmp(Cmp::Eq, q, ki);
        let kh = e.k64(h);
        let kl = e.k64(l);
        qh = e.select(is, kh, qh);
        ql = e.select(is, kl, ql);
    }
    // r = X - q pi / 2 in two's complement over 128 bits, then its magnitude.
    let rl = e.bin(Bin::Sub, z64, ql);
    let borrow = e.cmp(Cmp::Ne, ql, z64);
    let bw = e.b2i(borrow, crate::lower::Ty::I64);
    let rh = e.bin(Bin::Sub, xh, qh);
    let rh = e.bin(Bin::Sub, rh, bw);
    let rneg = e.cmp(Cmp::SLt, rh, z64);
    let nl = e.bin(Bin::Sub, z64, rl);
    let nh = e.un(Un::Not, rh);
    let lz = e.cmp(Cmp::Eq, rl, z64);
    let lc = e.b2i(lz, crate::lower::Ty::I64);
    let nh = e.bin(Bin::Add, nh, lc);
    let ah = e.select(rneg, nh, rh);
    let al = e.select(rneg, nl, rl);
    // Normalized to a 64-bit significand (|r| < 2^125 scaled, so a non-zero high half has its msb <= 60).
    let ah_nz = e.cmp(Cmp::Ne, ah, z64);
    let mah = e.un(Un::FindMsb, ah);
    let s_h = e.bin(Bin::Sub, k63, mah);
    let s_h = e.bink(Bin::And, s_h, 63);
    let s_hw = e.zext(s_h);
    let sig_hh = e.bin(Bin::Shl, ah, s_hw);
    let back = e.bin(Bin::Sub, k64_32, s_h);
    let back = e.bink(Bin::And, back, 63);
    let backw = e.zext(back);
    let sig_hl = e.bin(Bin::LShr, al, backw);
    let sig_h = e.bin(Bin::Or, sig_hh, sig_hl);
    let km61 = e.k32(-61i32 as u32);
    let re_h = e.bin(Bin::Sub, km61, s_h);
    let mal = e.un(Un::FindMsb, al);
    let s_l = e.bin(Bin::Sub, k63, mal);
    let s_l = e.bink(Bin::And, s_l, 63);
    let s_lw = e.zext(s_l);
    let sig_l = e.bin(Bin::Shl, al, s_lw);
    let km125 = e.k32(-125i32 as u32);
    let re_l = e.bin(Bin::Sub, km125, s_l);
    let sig_b = e.select(ah_nz, sig_h, sig_l);
    let re_b = e.select(ah_nz, re_h, re_l);
    // X below 1/2: r = X.
    let sig_s = e.bink(Bin::Shl, xm, 11);
    let re_s = e.bink(Bin::Sub, xe, 11);
    let sig = e.select(big, sig_b, sig_s);
    let re = e.select(big, re_b, re_s);
    let no = e.kbool(false);
    let rneg = e.select(big, rneg, no);
    // r in Q64 (|r| < 1), z = r^2 in Q64.
    let km64 = e.k32(-64i32 as u32);
    let rs = e.bin(Bin::Sub, km64, re);
    let rs_far = e.cmp(Cmp::UGe, rs, k64_32);
    let rsl = e.bink(Bin::And, rs, 63);
    let rsw = e.zext(rsl);
    let rq = e.bin(Bin::LShr, sig, rsw);
    let rq = e.select(rs_far, z64, rq);
    let z = mul_hi(e, rq, rq);
    // sin r = r (1 - hs), cos r = 1 - hc.
    let hs = nested(e, z, &SIN_STEPS);
    let shs = mul_hi(e, sig, hs);
    let sin_sig = e.bin(Bin::Sub, sig, shs);
    // 1 - cos r = hc = (r^2 / 2)(1 - g) is kept relative to its own size: near r = 0 the cosine is flat, and
    // whether 1 - hc rounds to 1 or to the f64 below it is decided by bits of hc far below 2^-64 (a fixed
    // Q64 hc read a band of f32 inputs around r^2 / 2 = 2^-54 wrong in round-toward-zero).
    let g = nested(e, z, &COS_STEPS[1..]);
    let zs = mul_hi(e, sig, sig); // r^2 = zs * 2^(2 re + 64), zs in [2^62, 2^64)
    let zg = mul_hi(e, zs, g);
    let hcs = e.bin(Bin::Sub, zs, zg); // hc = hcs * 2^(2 re + 63)
                                       // hc * 2^62 = hcs >> k with k = -(2 re + 125) >= 2: its integer part and whether a fraction remains.
    let re2 = e.bin(Bin::Add, re, re);
    let k125 = e.k32(125);
    let re2 = e.bin(Bin::Add, re2, k125);
    let k = e.bin(Bin::Sub, z32, re2);
    let k_far = e.cmp(Cmp::UGe, k, k64_32);
    let kl = e.bink(Bin::And, k, 63);
    let kw = e.zext(kl);
    let int = e.bin(Bin::LShr, hcs, kw);
    let int = e.select(k_far, z64, int);
    let fr = low_bits(e, hcs, kw);
    let all = e.cmp(Cmp::Ne, hcs, z64);
    let fnz = e.select(k_far, all, fr);
    let fnz = e.b2i(fnz, crate::lower::Ty::I64);
    // (1 - hc) * 2^63 = 2^63 - 2 ceil(hc * 2^62), plus one for a remaining fraction (a sticky bit).
    let top = e.k64(1 << 62);
    let c = e.bin(Bin::Sub, top, int);
    let c = e.bin(Bin::Sub, c, fnz);
    let c = e.bink(Bin::Shl, c, 1);
    let cos_sig = e.bin(Bin::Or, c, fnz);
    let cos_exp = e.k32(-63i32 as u32);
    // The quadrant picks sin r or cos r and the sign.
    let q_odd = e.bink(Bin::And, q, 1);
    let q_odd = e.nz(q_odd);
    let use_cos = if cos { e.bnot(q_odd) } else { q_odd };
    let k1 = e.k32(1);
    let k2q = e.k32(2);
    let k3 = e.k32(3);
    let (na, nb) = if cos { (k1, k2q) } else { (k2q, k3) };
    let qa = e.cmp(Cmp::Eq, q, na);
    let qb = e.cmp(Cmp::Eq, q, nb);
    let neg_q = e.bor(qa, qb);
    let use_sin = e.bnot(use_cos);
    let sgn_r = e.band(use_sin, rneg);
    let neg = e.bxor(neg_q, sgn_r);
    let neg = if cos { neg } else { e.bxor(neg, xneg) };
    let sig_f = e.select(use_cos, cos_sig, sin_sig);
    let exp_f = e.select(use_cos, cos_exp, re);
    // One bit down with a sticky bit, so that the first rounding cannot carry past bit 63.
    let sig_f = e.bink(Bin::LShr, sig_f, 1);
    let sig_f = e.bin(Bin::Or, sig_f, one64);
    let exp_f = e.bin(Bin::Add, exp_f, one32);
    let sign = e.b2i(neg, crate::lower::Ty::I32);
    let r = round_twice(e, env, sign, sig_f, exp_f);
    // Exact results, then zeros, infinities and NaNs as the model chooses them.
    let pz = kf(e, f, 0);
    let one = kf(e, f, (f.bias() as u64) << f.man);
    let r = if cos {
        let zero_t = e.bor(quarter, three_q);
        let r = e.select(zero_t, pz, r);
        let to_one = e.bor(t_zero, u.zero);
        e.select(to_one, one, r)
    } else {
        let zero_t = e.bor(t_zero, half);
        let r = e.select(zero_t, pz, r);
        let sz = e.bink(Bin::And, xf, 1u64 << f.sign_bit());
        e.select(u.zero, sz, r)
    };
    let dnan = kf(e, f, f.default_nan());
    let r = e.select(u.inf, dnan, r);
    e.select(nan, nan_r, r)
}
