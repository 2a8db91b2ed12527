//! The soft-float engine every instruction is built on: formats, exact intermediate
//! values and one rounding routine.
//!
//! Values are carried as bits in a `u64` whatever the format. An exact finite value is
//! `sig * 2^exp` with an integer significand of up to 128 bits; sums and products of
//! format values are exact in that form (products of two f64 significands take 106 bits),
//! so every instruction rounds once, in [`round_pack`], which also decides tininess the way
//! RDNA does (rule `f32.tininess.after_rounding`).
//!
//! The engine is checked bit for bit against `rustc_apfloat` in the IEEE-conforming mode
//! (tests/float_props.rs); it exists because `rustc_apfloat` has neither flushing nor
//! tininess after rounding with an unbounded exponent, and because it is several times
//! faster on the interpreter's hot path.

use super::mode::Round;

/// A binary interchange format: `man` stored fraction bits and `exp` exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fmt {
    pub man: u32,
    pub exp: u32,
}

pub(crate) const F16: Fmt = Fmt { man: 10, exp: 5 };
pub(crate) const F32: Fmt = Fmt { man: 23, exp: 8 };
pub(crate) const F64: Fmt = Fmt { man: 52, exp: 11 };

impl Fmt {
    pub const fn bits(self) -> u32 {
        1 + self.exp + self.man
    }
    pub const fn sign(self) -> u64 {
        1u64 << (self.bits() - 1)
    }
    pub const fn exp_field_max(self) -> u64 {
        (1u64 << self.exp) - 1
    }
    pub const fn exp_mask(self) -> u64 {
        self.exp_field_max() << self.man
    }
    pub const fn man_mask(self) -> u64 {
        (1u64 << self.man) - 1
    }
    pub const fn quiet_bit(self) -> u64 {
        1u64 << (self.man - 1)
    }
    pub const fn bias(self) -> i32 {
        (1i32 << (self.exp - 1)) - 1
    }
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }
    pub const fn emax(self) -> i32 {
        self.bias()
    }
    pub const fn sgn(self, s: bool) -> u64 {
        if s {
            self.sign()
        } else {
            0
        }
    }
    pub const fn zero(self, s: bool) -> u64 {
        self.sgn(s)
    }
    pub const fn inf(self, s: bool) -> u64 {
        self.sgn(s) | self.exp_mask()
    }
    pub const fn max_finite(self, s: bool) -> u64 {
        self.sgn(s) | (self.exp_mask() - (1u64 << self.man)) | self.man_mask()
    }
    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.man
    }
    /// The NaN an invalid operation produces: sign set, quiet bit set, payload 0
    /// (0xffc00000 for f32, rule `nan.default`; the f16 and f64 patterns, rule `nan.default.f16_f64`).
    pub const fn default_nan(self) -> u64 {
        self.sign() | self.exp_mask() | self.quiet_bit()
    }
    pub const fn is_neg(self, b: u64) -> bool {
        b & self.sign() != 0
    }
    pub const fn mag(self, b: u64) -> u64 {
        b & (self.sign() - 1)
    }
    pub const fn is_nan(self, b: u64) -> bool {
        self.mag(b) > self.exp_mask()
    }
    pub const fn is_snan(self, b: u64) -> bool {
        self.is_nan(b) && b & self.quiet_bit() == 0
    }
    pub const fn is_qnan(self, b: u64) -> bool {
        self.is_nan(b) && b & self.quiet_bit() != 0
    }
    pub const fn is_inf(self, b: u64) -> bool {
        self.mag(b) == self.exp_mask()
    }
    pub const fn is_zero(self, b: u64) -> bool {
        self.mag(b) == 0
    }
    pub const fn is_denorm(self, b: u64) -> bool {
        let m = self.mag(b);
        m != 0 && m < (1u64 << self.man)
    }
    pub const fn quiet(self, b: u64) -> u64 {
        if self.is_nan(b) {
            b | self.quiet_bit()
        } else {
            b
        }
    }
    /// A denormal becomes the zero of its sign when `flush` is set.
    pub const fn flush(self, b: u64, flush: bool) -> u64 {
        if flush && self.is_denorm(b) {
            b & self.sign()
        } else {
            b
        }
    }
}

/// A decoded operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    Nan,
    Inf(bool),
    Zero(bool),
    /// sign, significand (non-zero), exponent: the value is `sig * 2^exp`.
    Fin(bool, u128, i32),
}

/// Decodes `b`; a denormal is read as its signed zero when `flush_in` is set.
#[inline]
pub(crate) fn unpack(f: Fmt, b: u64, flush_in: bool) -> Num {
    let s = f.is_neg(b);
    let e = (b >> f.man) & f.exp_field_max();
    let m = b & f.man_mask();
    if e == f.exp_field_max() {
        if m == 0 {
            Num::Inf(s)
        } else {
            Num::Nan
        }
    } else if e == 0 {
        if m == 0 || flush_in {
            Num::Zero(s)
        } else {
            Num::Fin(s, m as u128, f.emin() - f.man as i32)
        }
    } else {
        Num::Fin(
            s,
            (m | (1u64 << f.man)) as u128,
            e as i32 - f.bias() - f.man as i32,
        )
    }
}

/// The result of rounding an exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rounded {
    pub bits: u64,
    /// The written value differs from the exact one.
    pub inexact: bool,
    /// Rounded to the format's precision with an unbounded exponent, the value is below
    /// the smallest normal.
    pub tiny: bool,
    /// The rounded value exceeded the largest finite value.
    pub overflow: bool,
}

/// Drops the `s` low bits of `sig`, rounding in direction `rm` for a value of sign `sign`.
#[inline]
fn shr_round(sig: u128, s: u32, rm: Round, sign: bool) -> (u128, bool) {
    if s == 0 {
        return (sig, false);
    }
    let (q, half, sticky) = if s > 128 {
        (0, false, sig != 0)
    } else if s == 128 {
        (0, sig >> 127 != 0, sig & (u128::MAX >> 1) != 0)
    } else {
        (
            sig >> s,
            (sig >> (s - 1)) & 1 != 0,
            sig & ((1u128 << (s - 1)) - 1) != 0,
        )
    };
    let inexact = half || sticky;
    let up = match rm {
        Round::NearestEven => half && (sticky || q & 1 == 1),
        Round::TowardZero => false,
        Round::Up => inexact && !sign,
        Round::Down => inexact && sign,
    };
    (q + up as u128, inexact)
}

/// Whether an overflow in direction `rm` for sign `sign` gives infinity (else the
/// largest finite value).
#[inline]
pub(crate) fn overflow_to_inf(rm: Round, sign: bool) -> bool {
    match rm {
        Round::NearestEven => true,
        Round::TowardZero => false,
        Round::Up => !sign,
        Round::Down => sign,
    }
}

/// Rounds the exact non-zero value `(-1)^sign * sig * 2^exp` to format `f`.
///
/// Tininess is decided after rounding to the format's precision with an unbounded
/// exponent, in the same direction `rm` (rule `f32.tininess.after_rounding`, measured for
/// f32 and f16 products). A tiny result is written as the zero of its sign unless
/// `keep_out`; otherwise it is rounded gradually, as IEEE 754 does.
#[inline]
pub(crate) fn round_pack(
    f: Fmt,
    sign: bool,
    sig: u128,
    exp: i32,
    rm: Round,
    keep_out: bool,
) -> Rounded {
    debug_assert!(sig != 0);
    let n = 128 - sig.leading_zeros() as i32;
    let p = f.man as i32 + 1;
    if !keep_out && f.man == F64.man && exp + n - 1 < f.emin() {
        // Rule `f64.tininess.before_rounding`: flushed f64 results test the exact value.
        return Rounded {
            bits: f.zero(sign),
            inexact: true,
            tiny: true,
            overflow: false,
        };
    }
    let (mut q, inexact) = if n > p {
        shr_round(sig, (n - p) as u32, rm, sign)
    } else {
        (sig << (p - n), false)
    };
    let mut e_msb = exp + n - 1;
    if q >> p != 0 {
        q >>= 1;
        e_msb += 1;
    }
    if e_msb >= f.emin() {
        if e_msb > f.emax() {
            let bits = if overflow_to_inf(rm, sign) {
                f.inf(sign)
            } else {
                f.max_finite(sign)
            };
            return Rounded {
                bits,
                inexact: true,
                tiny: false,
                overflow: true,
            };
        }
        let bits = f.sgn(sign) | ((e_msb + f.bias()) as u64) << f.man | (q as u64 & f.man_mask());
        return Rounded {
            bits,
            inexact,
            tiny: false,
            overflow: false,
        };
    }
    if !keep_out {
        return Rounded {
            bits: f.zero(sign),
            inexact: true,
            tiny: true,
            overflow: false,
        };
    }
    let qe = f.emin() - f.man as i32;
    let s = qe - exp;
    let (q, inexact) = if s > 0 {
        shr_round(sig, s as u32, rm, sign)
    } else {
        (sig << (-s) as u32, false)
    };
    Rounded {
        bits: f.sgn(sign) | q as u64,
        inexact,
        tiny: true,
        overflow: false,
    }
}

/// An exact finite value for [`add_exact`]: sign, significand, exponent.
pub(crate) type Exact = (bool, u128, i32);

/// The exact product of two finite values (significands of at most 64 bits each).
#[inline]
pub(crate) fn mul_exact(a: Exact, b: Exact) -> Exact {
    (a.0 ^ b.0, a.1 * b.1, a.2 + b.2)
}

/// The sum of two exact finite values, exact for rounding to any format of at most 64
/// significand bits; `None` when it is exactly zero.
///
/// Both significands are moved so their top bit is bit 125. The operand with the smaller
/// exponent is shifted right and shifted-out bits are kept as a sticky bit 0: the sum's
/// top bit is then at bit 124 or above unless the exponents differ by at most one, where
/// nothing is shifted out (significands of at most 106 bits leave 19 zero bits), so the
/// sticky bit always lies far below any rounding position.
#[inline]
pub(crate) fn add_exact(a: Exact, b: Exact) -> Option<Exact> {
    let norm = |(s, m, e): Exact| -> Exact {
        let sh = m.leading_zeros() as i32 - 2;
        if sh >= 0 {
            (s, m << sh, e - sh)
        } else {
            let lost = m & ((1u128 << -sh) - 1) != 0;
            (s, (m >> -sh) | lost as u128, e - sh)
        }
    };
    let (mut a, mut b) = (norm(a), norm(b));
    if b.2 > a.2 {
        core::mem::swap(&mut a, &mut b);
    }
    let d = (a.2 - b.2) as u32;
    let bm = if d == 0 {
        b.1
    } else if d >= 127 {
        (b.1 != 0) as u128
    } else {
        (b.1 >> d) | ((b.1 & ((1u128 << d) - 1)) != 0) as u128
    };
    if a.0 == b.0 {
        Some((a.0, a.1 + bm, a.2))
    } else if a.1 > bm {
        Some((a.0, a.1 - bm, a.2))
    } else if bm > a.1 {
        Some((b.0, bm - a.1, a.2))
    } else {
        None
    }
}

/// The first NaN among `ops` (already carrying their source modifiers), quieted when
/// `quiet`; rule `nan.select.first_source`.
#[inline]
pub(crate) fn first_nan(f: Fmt, quiet: bool, ops: &[u64]) -> Option<u64> {
    for &x in ops {
        if f.is_nan(x) {
            return Some(if quiet { f.quiet(x) } else { x });
        }
    }
    None
}

/// Rounding and flushing controls of one operation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Env {
    pub rm: Round,
    pub keep_in: bool,
    pub keep_out: bool,
    pub ieee: bool,
}

/// `a + b` for non-NaN operands; the caller has chosen NaN results already.
#[inline]
pub(crate) fn add_num(f: Fmt, env: Env, a: Num, b: Num) -> u64 {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => f.default_nan(),
        (Num::Inf(x), Num::Inf(y)) => {
            if x == y {
                f.inf(x)
            } else {
                f.default_nan()
            }
        }
        (Num::Inf(s), _) | (_, Num::Inf(s)) => f.inf(s),
        (Num::Zero(x), Num::Zero(y)) => f.zero(if x == y { x } else { env.rm == Round::Down }),
        (Num::Zero(_), Num::Fin(s, m, e)) | (Num::Fin(s, m, e), Num::Zero(_)) => {
            round_pack(f, s, m, e, env.rm, env.keep_out).bits
        }
        (Num::Fin(s1, m1, e1), Num::Fin(s2, m2, e2)) => {
            match add_exact((s1, m1, e1), (s2, m2, e2)) {
                None => f.zero(env.rm == Round::Down),
                Some((s, m, e)) => round_pack(f, s, m, e, env.rm, env.keep_out).bits,
            }
        }
    }
}

/// `a * b` for non-NaN operands.
#[inline]
pub(crate) fn mul_num(f: Fmt, env: Env, a: Num, b: Num) -> u64 {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => f.default_nan(),
        (Num::Inf(_), Num::Zero(_)) | (Num::Zero(_), Num::Inf(_)) => f.default_nan(),
        (Num::Inf(x), Num::Inf(y))
        | (Num::Inf(x), Num::Fin(y, _, _))
        | (Num::Fin(x, _, _), Num::Inf(y)) => f.inf(x ^ y),
        (Num::Zero(x), Num::Zero(y))
        | (Num::Zero(x), Num::Fin(y, _, _))
        | (Num::Fin(x, _, _), Num::Zero(y)) => f.zero(x ^ y),
        (Num::Fin(s1, m1, e1), Num::Fin(s2, m2, e2)) => {
            let (s, m, e) = mul_exact((s1, m1, e1), (s2, m2, e2));
            round_pack(f, s, m, e, env.rm, env.keep_out).bits
        }
    }
}

/// The exact product of two non-NaN operands, as a number (`Nan` for inf * 0).
#[inline]
pub(crate) fn product(a: Num, b: Num) -> Num {
    match (a, b) {
        (Num::Nan, _) | (_, Num::Nan) => Num::Nan,
        (Num::Inf(_), Num::Zero(_)) | (Num::Zero(_), Num::Inf(_)) => Num::Nan,
        (Num::Inf(x), Num::Inf(y))
        | (Num::Inf(x), Num::Fin(y, _, _))
        | (Num::Fin(x, _, _), Num::Inf(y)) => Num::Inf(x ^ y),
        (Num::Zero(x), Num::Zero(y))
        | (Num::Zero(x), Num::Fin(y, _, _))
        | (Num::Fin(x, _, _), Num::Zero(y)) => Num::Zero(x ^ y),
        (Num::Fin(s1, m1, e1), Num::Fin(s2, m2, e2)) => {
            let (s, m, e) = mul_exact((s1, m1, e1), (s2, m2, e2));
            Num::Fin(s, m, e)
        }
    }
}

/// `p + c` rounded once into `f`, where `p` is an exact product from [`product`] (its
/// significand may exceed the format) and `c` an operand; NaN results are the caller's.
#[inline]
pub(crate) fn sum_num(f: Fmt, env: Env, p: Num, c: Num) -> u64 {
    match (p, c) {
        (Num::Fin(s, m, e), Num::Zero(_)) => round_pack(f, s, m, e, env.rm, env.keep_out).bits,
        _ => add_num(f, env, p, c),
    }
}

/// Scales a format value by `2^k` with one rounding (the engine of ldexp, omod and the
/// division helpers); NaN is returned as it is.
#[inline]
pub(crate) fn scale(f: Fmt, b: u64, k: i32, rm: Round, keep_in: bool, keep_out: bool) -> u64 {
    match unpack(f, b, !keep_in) {
        Num::Nan => b,
        Num::Inf(s) => f.inf(s),
        Num::Zero(s) => f.zero(s),
        Num::Fin(s, m, e) => {
            round_pack(
                f,
                s,
                m,
                e.saturating_add(k).clamp(-20_000, 20_000),
                rm,
                keep_out,
            )
            .bits
        }
    }
}

/// Rounds an exact value given as sign, significand and exponent into `f` (a helper for
/// conversions).
#[inline]
pub(crate) fn pack_exact(f: Fmt, s: bool, m: u128, e: i32, rm: Round, keep_out: bool) -> Rounded {
    if m == 0 {
        Rounded {
            bits: f.zero(s),
            inexact: false,
            tiny: false,
            overflow: false,
        }
    } else {
        round_pack(f, s, m, e, rm, keep_out)
    }
}
