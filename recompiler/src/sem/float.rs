//! f32 and f16 arithmetic in integer operations, bit-exact with the reference model in every float mode:
//! add, multiply, fused multiply-add, min/max/med3, the legacy f32 multiply and FMA, and the conversions
//! between f32, f16 and integers.
//!
//! The engine needs no host float instruction: Vulkan leaves denormal handling, NaN payloads and (without
//! float controls) the rounding to the implementation, and lavapipe has no round-to-zero at all. The engine is the model's (`reference_model::float::core`) restated branch-free and
//! with the format ([`Fmt`]) a parameter: operands unpack to a significand and an exponent, the exact sum or
//! product is formed in 64-bit integers (a sum normalizes both terms to bit 61 and keeps a sticky bit, exact
//! for rounding to 24 bits: see `exact_sum`), and one rounding routine applies the mode's direction,
//! tininess after rounding (rule `f32.tininess.after_rounding`) and the output flush. NaN sources are chosen
//! before anything else (rule `nan.select.first_source`), quieted only under IEEE_MODE
//! (`nan.quiet.ieee_only`); invalid operations give the format's default NaN (`nan.default`). f16 results
//! take FP16_OVFL through [`ovfl16`]. `tests/f32_soft.rs` compares every function here, through
//! [`crate::lower::Eval`], with the model's on special and random operands in all 32 f32 and 48 f16 modes.
//!
//! Signed exponents are carried as two's-complement `I32` values and compared signed.
//!
//! # Host fast paths
//!
//! Where the device declares round-to-nearest-even for f32 (SPV_KHR_float_controls, Vulkan 1.2
//! `shaderRoundingModeRTEFloat32`; [`Lower::host_floats`]), f32 [`add`] and [`mul`] first compute a host
//! `OpFAdd`/`OpFMul` and keep it only when it is provably the engine's; otherwise the integer path runs
//! (in SPIR-V, behind a branch, as a call of one helper function per module: [`Lower::soft`]). The
//! argument, once:
//! - Vulkan ("Precision and Operation of SPIR-V Instructions") makes f32 `OpFAdd` and `OpFMul` correctly
//!   rounded, in the rounding the execution mode fixes, but lets the device flush any denormal input or
//!   result and choose NaN bits. The guard (`host_exact`) therefore asks for the nearest-even mode, sources
//!   that are zeros or normal numbers (no denormal to flush, no NaN or infinity), and a finite result whose
//!   magnitude is *above* the smallest normal. A result equal to the smallest normal is refused: the exact
//!   value may lie just below it, which tininess after rounding (rule `f32.tininess.after_rounding`) calls
//!   tiny, so a flushing mode writes zero (the test `host::f32_add_and_mul_take_the_host_only_where_it_is_exact`
//!   fails without that margin). A result above it comes from an exact value above it: neither tiny nor
//!   flushed, and IEEE_MODE, DX10_CLAMP and the denormal fields cannot change it. Zero results (whose sign
//!   the engine decides) take the integer path.
//! - Every host add and multiply is decorated `NoContraction`: a fused multiply-add would round once where
//!   the guard expects the product rounded.
//! - Not taken: f64, whose precision Vulkan bounds only by "at least that of single precision", and the
//!   f32 FMA, which GLSL.std.450 `Fma` does not promise to fuse (the VK_KHR_shader_fma proposal says so)
//!   and which an f64 product would get right only on a device whose f64 is correctly rounded. An exact
//!   f32-only FMA (Dekker's product and a round-to-odd sum) is the next candidate. f16 stays integer too.
//!
//! - In a speculative block (the crate docs, "Execution model") the guards of all the block's host
//!   operations are and-ed into one flag instead of each branching to its integer path; a lane whose flag
//!   fell runs the whole block again, from its saved state, with the per-operation choice above. A lane
//!   whose guards all held computed every result exactly by the argument above, so the lane's state is
//!   the engine's either way.
//!
//! [`crate::audit`] checks that the emitted float instructions are only these.

use crate::lower::{Bin, Cmp, HostF, Lower, SoftF, Ty, Un};
/// The sixteen VOPC float conditions, as the model numbers them.
pub use reference_model::float::Cmp as Cmp16;

/// A format's fields of the MODE register as values: the round field (0 nearest even, 1 toward +inf,
/// 2 toward -inf, 3 toward zero), whether denormal inputs and results are kept, IEEE_MODE and FP16_OVFL.
#[derive(Clone, Copy, Debug)]
pub struct Env<V: Copy> {
    /// The format the operation works in.
    pub fmt: Fmt,
    /// The format's MODE.FP_ROUND field (bits 1:0 for f32, 3:2 for f16), u32 0..=3.
    pub rm: V,
    /// FP_DENORM bit 4 (f32) or 6 (f16): denormal inputs are read as they are (else as signed zeros).
    pub keep_in: V,
    /// FP_DENORM bit 5 (f32) or 7 (f16): denormal results are written (else tiny results are signed zeros).
    pub keep_out: V,
    /// IEEE_MODE (bit 9): a returned NaN source is quieted.
    pub ieee: V,
    /// FP16_OVFL (bit 23) for f16: an infinite result from finite sources is the largest finite value
    /// ([`ovfl16`]); always false for f32.
    pub ovfl: V,
}

/// A binary interchange format: stored fraction bits and exponent bits. Values are carried in the low
/// bits of a u32 (f16 with the upper half zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// Stored fraction bits.
    pub man: u32,
    /// Exponent bits.
    pub exp: u32,
}

/// IEEE binary32.
pub const F32: Fmt = Fmt { man: 23, exp: 8 };
/// IEEE binary16.
pub const F16: Fmt = Fmt { man: 10, exp: 5 };
/// IEEE binary64 (values carried in 64-bit integers).
pub const F64: Fmt = Fmt { man: 52, exp: 11 };

impl Fmt {
    /// Whether values of the format are carried in 64-bit integers (f64), not in the low bits of a u32.
    pub const fn wide(self) -> bool {
        self.exp == 11
    }
    pub(crate) const fn sign_bit(self) -> u32 {
        self.man + self.exp
    }
    pub(crate) const fn sign(self) -> u64 {
        1 << self.sign_bit()
    }
    pub(crate) const fn mag_mask(self) -> u64 {
        self.sign() - 1
    }
    const fn ef_max(self) -> u32 {
        (1 << self.exp) - 1
    }
    pub(crate) const fn exp_mask(self) -> u64 {
        (self.ef_max() as u64) << self.man
    }
    pub(crate) const fn man_mask(self) -> u64 {
        (1 << self.man) - 1
    }
    pub(crate) const fn implicit(self) -> u64 {
        1 << self.man
    }
    const fn quiet(self) -> u64 {
        1 << (self.man - 1)
    }
    pub(crate) const fn bias(self) -> u32 {
        (1 << (self.exp - 1)) - 1
    }
    /// The largest finite magnitude.
    const fn max_finite(self) -> u64 {
        self.exp_mask() - self.implicit() + self.man_mask()
    }
    /// The NaN an invalid operation gives: sign, quiet bit, payload 0 (rules `nan.default`,
    /// `nan.default.f16_f64`).
    pub(crate) const fn default_nan(self) -> u64 {
        self.sign() | self.exp_mask() | self.quiet()
    }
}

/// A bit pattern of format `f` as a constant of its carrier width.
pub(crate) fn kf<L: Lower>(e: &mut L, f: Fmt, v: u64) -> L::V {
    if f.wide() {
        e.k64(v)
    } else {
        e.k32(v as u32)
    }
}

/// A field of a format's value (sign, exponent) as a u32.
fn fld<L: Lower>(e: &mut L, f: Fmt, x: L::V, off: u32, n: u32) -> L::V {
    let v = e.field(x, off, n);
    if f.wide() {
        e.trunc(v)
    } else {
        v
    }
}

/// A u32 (a sign or biased exponent) in the carrier width of format `f`.
fn ext<L: Lower>(e: &mut L, f: Fmt, v: L::V) -> L::V {
    if f.wide() {
        e.zext(v)
    } else {
        v
    }
}

/// A significand of format `f` (its carrier width) as a u64.
fn sig64<L: Lower>(e: &mut L, f: Fmt, v: L::V) -> L::V {
    if f.wide() {
        v
    } else {
        e.zext(v)
    }
}

/// A u64 holding a packed result of format `f` in its carrier width.
fn narrow_to<L: Lower>(e: &mut L, f: Fmt, v: L::V) -> L::V {
    if f.wide() {
        v
    } else {
        e.trunc(v)
    }
}

/// The f32 environment of the MODE register value `mode` (rule `mode.hwreg_layout`).
pub fn env<L: Lower>(e: &mut L, mode: L::V) -> Env<L::V> {
    env_at(e, mode, F32, 0, 4)
}

/// The f16 environment of `mode`: the shared f16/f64 round and denormal fields (rules
/// `mode.float_mode_fields`, `f16.denorm.field_bits`).
pub fn env16<L: Lower>(e: &mut L, mode: L::V) -> Env<L::V> {
    env_at(e, mode, F16, 2, 6)
}

/// The f64 environment of `mode`: the shared f16/f64 round and denormal fields (no FP16_OVFL).
pub fn env64<L: Lower>(e: &mut L, mode: L::V) -> Env<L::V> {
    env_at(e, mode, F64, 2, 6)
}

fn env_at<L: Lower>(e: &mut L, mode: L::V, fmt: Fmt, round: u32, denorm: u32) -> Env<L::V> {
    let rm = e.field(mode, round, 2);
    let ki = e.field(mode, denorm, 1);
    let ko = e.field(mode, denorm + 1, 1);
    let ie = e.field(mode, 9, 1);
    let ovfl = if fmt == F16 {
        let o = e.field(mode, 23, 1);
        e.nz(o)
    } else {
        e.kbool(false)
    };
    Env {
        fmt,
        rm,
        keep_in: e.nz(ki),
        keep_out: e.nz(ko),
        ieee: e.nz(ie),
        ovfl,
    }
}

/// FP16_OVFL: an infinite result `r` none of whose `sources` is infinite becomes the largest finite value
/// of its sign when the mode asks for it (rule `f16.fp16_ovfl`); a no-op for f32.
pub fn ovfl16<L: Lower>(e: &mut L, env: &Env<L::V>, r: L::V, sources: &[L::V]) -> L::V {
    let f = env.fmt;
    if f != F16 {
        return r;
    }
    let is_inf = |e: &mut L, x: L::V| {
        let m = e.bink(Bin::And, x, f.mag_mask());
        let k = e.k32(f.exp_mask() as u32);
        e.cmp(Cmp::Eq, m, k)
    };
    let mut hit = is_inf(e, r);
    hit = e.band(hit, env.ovfl);
    for &x in sources {
        let i = is_inf(e, x);
        let not = e.bnot(i);
        hit = e.band(hit, not);
    }
    let s = e.bink(Bin::And, r, f.sign());
    let m = e.bink(Bin::Or, s, f.max_finite());
    e.select(hit, m, r)
}

/// An unpacked operand: sign bit (0/1), class flags, 24-bit significand and the exponent of its lsb.
pub(crate) struct Unpacked<V> {
    pub(crate) sign: V,
    pub(crate) zero: V,
    pub(crate) inf: V,
    /// The significand with its implicit bit (0 for zeros and infinities).
    pub(crate) sig: V,
    /// The value is `sig * 2^exp` (two's complement).
    pub(crate) exp: V,
}

pub(crate) fn is_nan<L: Lower>(e: &mut L, f: Fmt, x: L::V) -> L::V {
    let mag = e.bink(Bin::And, x, f.mag_mask());
    let inf = kf(e, f, f.exp_mask());
    e.cmp(Cmp::UGt, mag, inf)
}

/// The first NaN of `a`, `b` (as given, quieted under IEEE_MODE) and whether there was one.
fn first_nan<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> (L::V, L::V) {
    let na = is_nan(e, env.fmt, a);
    let nb = is_nan(e, env.fmt, b);
    let any = e.bor(na, nb);
    let v = e.select(na, a, b);
    let q = e.bink(Bin::Or, v, env.fmt.quiet());
    let v = e.select(env.ieee, q, v);
    (any, v)
}

/// Unpacks a non-NaN `x`; a denormal is read as its signed zero unless denormal inputs are kept.
pub(crate) fn unpack<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> Unpacked<L::V> {
    let f = env.fmt;
    let sign = fld(e, f, x, f.sign_bit(), 1);
    let ef = fld(e, f, x, f.man, f.exp);
    let m = e.bink(Bin::And, x, f.man_mask());
    let z = e.k32(0);
    let zw = kf(e, f, 0);
    let e0 = e.cmp(Cmp::Eq, ef, z);
    let m0 = e.cmp(Cmp::Eq, m, zw);
    let flush = e.bnot(env.keep_in);
    let sub_zero = e.bor(m0, flush);
    let zero = e.band(e0, sub_zero);
    let kmax = e.k32(f.ef_max());
    let inf = e.cmp(Cmp::Eq, ef, kmax);
    let implicit = e.bink(Bin::Or, m, f.implicit());
    let sig = e.select(e0, m, implicit);
    let special = e.bor(zero, inf);
    let sig = e.select(special, zw, sig);
    // Denormals have the exponent of the smallest normal: field 1.
    let one = e.k32(1);
    let ef = e.select(e0, one, ef);
    let exp = e.bink(Bin::Sub, ef, (f.bias() + f.man) as u64);
    Unpacked {
        sign,
        zero,
        inf,
        sig,
        exp,
    }
}

/// Does rounding in direction `rm` add one ulp, for a value of sign `sign` (0/1) whose dropped part
/// has its half bit `half` and any lower bit `sticky`, the kept part being odd `odd`?
fn rounds_up<L: Lower>(
    e: &mut L,
    rm: L::V,
    sign: L::V,
    half: L::V,
    sticky: L::V,
    odd: L::V,
) -> L::V {
    let inexact = e.bor(half, sticky);
    let tie_or_more = e.bor(sticky, odd);
    let ne = e.band(half, tie_or_more);
    let z = e.k32(0);
    let pos = e.cmp(Cmp::Eq, sign, z);
    let neg = e.bnot(pos);
    let up = e.band(inexact, pos);
    let down = e.band(inexact, neg);
    let no = e.kbool(false);
    // rm: 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
    let is = |e: &mut L, k: u32| {
        let kv = e.k32(k);
        e.cmp(Cmp::Eq, rm, kv)
    };
    let r0 = is(e, 0);
    let r1 = is(e, 1);
    let r2 = is(e, 2);
    let a = e.select(r2, down, no);
    let b = e.select(r1, up, a);
    e.select(r0, ne, b)
}

/// Is any of the `n` low bits of the 64-bit `m` set (`n` a 64-bit value below 64)?
pub(crate) fn low_bits<L: Lower>(e: &mut L, m: L::V, n: L::V) -> L::V {
    let one = e.k64(1);
    let mask = e.bin(Bin::Shl, one, n);
    let mask = e.bink(Bin::Sub, mask, 1);
    let low = e.bin(Bin::And, m, mask);
    let z = e.k64(0);
    e.cmp(Cmp::Ne, low, z)
}

/// `sig >> s` rounded in direction `rm` (64-bit `sig`, u32 `s` of any size): the quotient (64 bits).
pub(crate) fn shr_round<L: Lower>(e: &mut L, rm: L::V, sign: L::V, sig: L::V, s: L::V) -> L::V {
    let z32 = e.k32(0);
    let z64 = e.k64(0);
    let none = e.cmp(Cmp::Eq, s, z32);
    let k64 = e.k32(64);
    let all = e.cmp(Cmp::UGt, s, k64);
    // Shifts of 1..=64 in two steps so no single shift reaches the width.
    let s1 = e.bink(Bin::Sub, s, 1);
    let s1 = e.bink(Bin::UMin, s1, 63);
    let s1w = e.zext(s1);
    let below = e.bin(Bin::LShr, sig, s1w);
    let half = e.bink(Bin::And, below, 1);
    let half = e.nz(half);
    let q = e.bink(Bin::LShr, below, 1);
    let sticky = low_bits(e, sig, s1w);
    // s > 64: everything is sticky; s == 0: nothing is dropped.
    let nz = e.cmp(Cmp::Ne, sig, z64);
    let no = e.kbool(false);
    let half = e.select(all, no, half);
    let sticky = e.select(all, nz, sticky);
    let q = e.select(all, z64, q);
    let half = e.select(none, no, half);
    let sticky = e.select(none, no, sticky);
    let q = e.select(none, sig, q);
    let odd = e.bink(Bin::And, q, 1);
    let odd = e.nz(odd);
    let up = rounds_up(e, rm, sign, half, sticky, odd);
    let u = e.b2i(up, Ty::I64);
    e.bin(Bin::Add, q, u)
}

/// Rounds the exact non-zero value `(-1)^sign * sig * 2^exp` (64-bit `sig`, two's-complement `exp`) to
/// f32 bits, as the model's `round_pack`.
pub(crate) fn round_pack<L: Lower>(
    e: &mut L,
    env: &Env<L::V>,
    sign: L::V,
    sig: L::V,
    exp: L::V,
) -> L::V {
    let f = env.fmt;
    let msb = e.un(Un::FindMsb, sig);
    // Exponent of the msb, then the shift that leaves 24 bits.
    let emsb = e.bin(Bin::Add, exp, msb);
    let kman = e.k32(f.man);
    let wide = e.cmp(Cmp::UGt, msb, kman);
    let sr = e.bink(Bin::Sub, msb, f.man as u64);
    let z = e.k32(0);
    let sr = e.select(wide, sr, z);
    let sl = e.bin(Bin::Sub, kman, msb);
    let sl = e.select(wide, z, sl);
    let q = shr_round(e, env.rm, sign, sig, sr);
    let slw = e.zext(sl);
    let q = e.bin(Bin::Shl, q, slw);
    // A carry out of the 24 bits: one more exponent.
    let carry = e.bink(Bin::LShr, q, f.man as u64 + 1);
    let carry = e.trunc(carry);
    let cw = e.zext(carry);
    let q = e.bin(Bin::LShr, q, cw);
    // The exact value's exponent, before the rounding carry.
    let pre = e.bink(Bin::Add, emsb, f.bias() as u64);
    let emsb = e.bin(Bin::Add, emsb, carry);
    let biased = e.bink(Bin::Add, emsb, f.bias() as u64);
    // Tininess after rounding: the rounded exponent is below the smallest normal's.
    let k1 = e.k32(1);
    let tiny = e.cmp(Cmp::SLt, biased, k1);
    // f64 results flushed test the exact value (rule `f64.tininess.before_rounding`).
    let tiny = if f.wide() {
        let before = e.cmp(Cmp::SLt, pre, k1);
        let flushing = e.bnot(env.keep_out);
        let b = e.band(before, flushing);
        e.bor(tiny, b)
    } else {
        tiny
    };
    let kbig = e.k32(f.ef_max() - 1);
    let over = e.cmp(Cmp::SGt, biased, kbig);
    let sw = ext(e, f, sign);
    let s31 = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let q32 = narrow_to(e, f, q);
    let frac = e.bink(Bin::And, q32, f.man_mask());
    let bw = ext(e, f, biased);
    let ex = e.bink(Bin::Shl, bw, f.man as u64);
    let normal = e.bin(Bin::Or, ex, frac);
    let normal = e.bin(Bin::Or, normal, s31);
    // Overflow: infinity, or the largest finite value where the direction points to zero.
    let z32 = e.k32(0);
    let pos = e.cmp(Cmp::Eq, sign, z32);
    let neg = e.bnot(pos);
    let r0 = {
        let k = e.k32(0);
        e.cmp(Cmp::Eq, env.rm, k)
    };
    let r1 = {
        let k = e.k32(1);
        e.cmp(Cmp::Eq, env.rm, k)
    };
    let r2 = {
        let k = e.k32(2);
        e.cmp(Cmp::Eq, env.rm, k)
    };
    let up_inf = e.band(r1, pos);
    let down_inf = e.band(r2, neg);
    let to_inf = e.bor(r0, up_inf);
    let to_inf = e.bor(to_inf, down_inf);
    let inf = e.bink(Bin::Or, s31, f.exp_mask());
    let maxf = e.bink(Bin::Or, s31, f.max_finite());
    let ovf = e.select(to_inf, inf, maxf);
    // Tiny: the signed zero, or the denormal rounded from the exact value (quantum 2^(emin - man)).
    let kq = e.k32((1 - f.bias() as i32 - f.man as i32) as u32);
    let sd = e.bin(Bin::Sub, kq, exp);
    let pos_shift = e.cmp(Cmp::SGt, sd, z32);
    let sd_r = e.select(pos_shift, sd, z32);
    let dq = shr_round(e, env.rm, sign, sig, sd_r);
    let ls = e.bin(Bin::Sub, z32, sd);
    let ls = e.select(pos_shift, z32, ls);
    let ls = e.bink(Bin::UMin, ls, 63);
    let lsw = e.zext(ls);
    let dq = e.bin(Bin::Shl, dq, lsw);
    let dq = narrow_to(e, f, dq);
    let den = e.bin(Bin::Or, s31, dq);
    let tiny_bits = e.select(env.keep_out, den, s31);
    let r = e.select(over, ovf, normal);
    e.select(tiny, tiny_bits, r)
}

/// Moves the top bit of the non-zero 64-bit `m` to bit 61, adjusting the exponent `x` (a zero stays).
fn normalize<L: Lower>(e: &mut L, m: L::V, x: L::V) -> (L::V, L::V) {
    let msb = e.un(Un::FindMsb, m);
    let k61 = e.k32(61);
    let sh = e.bin(Bin::Sub, k61, msb);
    let sh = e.bink(Bin::And, sh, 63);
    let shw = e.zext(sh);
    let m2 = e.bin(Bin::Shl, m, shw);
    let x2 = e.bin(Bin::Sub, x, sh);
    let z = e.k64(0);
    let zero = e.cmp(Cmp::Eq, m, z);
    (e.select(zero, m, m2), e.select(zero, x, x2))
}

/// The exact sum of `(-1)^s1 * m1 * 2^x1` and `(-1)^s2 * m2 * 2^x2` (64-bit significands below 2^62),
/// as sign, significand and exponent for [`round_pack`]; the significand is 0 for an exact zero.
///
/// Both are normalized to bit 61 and the one with the smaller exponent shifted right with a sticky bit,
/// the model's `add_exact` in 64 bits: a difference of exponents of two or more cancels at most one bit,
/// so the sum keeps its top bit at 60 or above and the sticky bit lies 36 bits below the rounding
/// position of a 24-bit result; at a difference of one or zero nothing is shifted out (both operands
/// carry at least 14 zero bits at the bottom).
fn exact_sum<L: Lower>(
    e: &mut L,
    a: (L::V, L::V, L::V),
    b: (L::V, L::V, L::V),
) -> (L::V, L::V, L::V) {
    let (s1, m1, x1) = a;
    let (s2, m2, x2) = b;
    let (m1, x1) = normalize(e, m1, x1);
    let (m2, x2) = normalize(e, m2, x2);
    let z64 = e.k64(0);
    let z1 = e.cmp(Cmp::Eq, m1, z64);
    let z2 = e.cmp(Cmp::Eq, m2, z64);
    let first = first_by_exponent(e, (z1, x1), (z2, x2));
    let (ea, eb) = (e.select(first, x1, x2), e.select(first, x2, x1));
    let (ma, mb) = (e.select(first, m1, m2), e.select(first, m2, m1));
    let (sa, sb) = (e.select(first, s1, s2), e.select(first, s2, s1));
    let d = e.bin(Bin::Sub, ea, eb);
    let k63 = e.k32(63);
    let far = e.cmp(Cmp::UGe, d, k63);
    let dc = e.bink(Bin::UMin, d, 63);
    let dw = e.zext(dc);
    let shifted = e.bin(Bin::LShr, mb, dw);
    let lost = low_bits(e, mb, dw);
    let mb_nz = e.cmp(Cmp::Ne, mb, z64);
    let lost = e.select(far, mb_nz, lost);
    let shifted = e.select(far, z64, shifted);
    let st = e.b2i(lost, Ty::I64);
    let mb = e.bin(Bin::Or, shifted, st);
    let same_sign = e.cmp(Cmp::Eq, sa, sb);
    let sum = e.bin(Bin::Add, ma, mb);
    let a_big = e.cmp(Cmp::UGe, ma, mb);
    let d1 = e.bin(Bin::Sub, ma, mb);
    let d2 = e.bin(Bin::Sub, mb, ma);
    let diff = e.select(a_big, d1, d2);
    let dsign = e.select(a_big, sa, sb);
    let m = e.select(same_sign, sum, diff);
    let s = e.select(same_sign, sa, dsign);
    (s, m, ea)
}

/// Whether the first of two terms (zero flag, exponent) goes first in an exact sum: it has the larger exponent,
/// and a zero term never does.
fn first_by_exponent<L: Lower>(e: &mut L, a: (L::V, L::V), b: (L::V, L::V)) -> L::V {
    let ge = e.cmp(Cmp::SGe, a.1, b.1);
    let nz = e.bnot(a.0);
    let by_exp = e.band(nz, ge);
    e.bor(b.0, by_exp)
}

/// The result of an exact zero sum of two values whose zero flags are `z1`, `z2` and signs `s1`, `s2`:
/// two zeros of one sign give that zero; otherwise +0, or -0 rounding toward -inf.
fn zero_sum<L: Lower>(e: &mut L, env: &Env<L::V>, z1: L::V, s1: L::V, z2: L::V, s2: L::V) -> L::V {
    let k2 = e.k32(2);
    let down = e.cmp(Cmp::Eq, env.rm, k2);
    let both = e.band(z1, z2);
    let same = e.cmp(Cmp::Eq, s1, s2);
    let keep = e.band(both, same);
    let zs = e.b2i(down, Ty::I32);
    let zs = e.select(keep, s1, zs);
    let zs = ext(e, env.fmt, zs);
    e.bink(Bin::Shl, zs, env.fmt.sign_bit() as u64)
}

/// The infinity of a sum with infinite flags `i1`, `i2` and signs `s1`, `s2` (opposite infinities: the
/// default NaN).
fn inf_sum<L: Lower>(e: &mut L, f: Fmt, i1: L::V, s1: L::V, i2: L::V, s2: L::V) -> L::V {
    let both = e.band(i1, i2);
    let same = e.cmp(Cmp::Eq, s1, s2);
    let opposite = e.bnot(same);
    let invalid = e.band(both, opposite);
    let s = e.select(i1, s1, s2);
    let s = ext(e, f, s);
    let s = e.bink(Bin::Shl, s, f.sign_bit() as u64);
    let inf = e.bink(Bin::Or, s, f.exp_mask());
    let dnan = kf(e, f, f.default_nan());
    e.select(invalid, dnan, inf)
}

/// `v_add_f32` semantics on f32 bits `a`, `b` (modifiers already applied): the model's `add_f32`. A host
/// f32 `OpFAdd` stands in where it is exact ("Host fast paths").
pub fn add<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    if env.fmt != F32 || !e.host_floats() {
        return add_soft(e, env, a, b);
    }
    let r = e.host(HostF::Add32, &[a, b]);
    let ok = host_exact(e, env, &[a, b], r);
    e.unless(ok, r, |e: &mut L| soft_call(e, SoftF::Add32, env, a, b))
}

/// [`add`] in integer arithmetic, every operand and mode.
fn add_soft<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    let (any_nan, nan) = first_nan(e, env, a, b);
    let x = unpack(e, env, a);
    let y = unpack(e, env, b);
    let any_inf = e.bor(x.inf, y.inf);
    let inf = inf_sum(e, env.fmt, x.inf, x.sign, y.inf, y.sign);
    let mx = sig64(e, env.fmt, x.sig);
    let my = sig64(e, env.fmt, y.sig);
    let (s, m, exp) = exact_sum(e, (x.sign, mx, x.exp), (y.sign, my, y.exp));
    let z64 = e.k64(0);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let one = e.k64(1);
    let m_safe = e.select(m_zero, one, m);
    let rounded = round_pack(e, env, s, m_safe, exp);
    let zero = zero_sum(e, env, x.zero, x.sign, y.zero, y.sign);
    let r = e.select(m_zero, zero, rounded);
    let r = e.select(any_inf, inf, r);
    e.select(any_nan, nan, r)
}

/// `v_fma_f32` semantics (`a * b + c` rounded once, modifiers already applied): the model's `fma_f32`,
/// NaN order included (a NaN among `a`, `b`; then inf * 0, which gives the default NaN even with a NaN
/// `c`, rule `nan.fma.invalid_product`; then a NaN `c`).
pub fn fma<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, c: L::V) -> L::V {
    let (nan_ab, nan1) = first_nan(e, env, a, b);
    let (nan_c, nan2) = first_nan(e, env, c, c);
    let x = unpack(e, env, a);
    let y = unpack(e, env, b);
    let z = unpack(e, env, c);
    let psign = e.bin(Bin::Xor, x.sign, y.sign);
    let p_inf = e.bor(x.inf, y.inf);
    let p_zero = e.bor(x.zero, y.zero);
    let invalid = e.band(p_inf, p_zero);
    let any_inf = e.bor(p_inf, z.inf);
    let inf = inf_sum(e, env.fmt, p_inf, psign, z.inf, z.sign);
    let (s, m, exp) = if env.fmt.wide() {
        wide::fma_sum(
            e,
            (psign, x.sig, x.exp),
            (y.sig, y.exp),
            (z.sign, z.sig, z.exp),
        )
    } else {
        let mx = e.zext(x.sig);
        let my = e.zext(y.sig);
        let p = e.bin(Bin::Mul, mx, my);
        let pe = e.bin(Bin::Add, x.exp, y.exp);
        let mz = e.zext(z.sig);
        exact_sum(e, (psign, p, pe), (z.sign, mz, z.exp))
    };
    let z64 = e.k64(0);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let one = e.k64(1);
    let m_safe = e.select(m_zero, one, m);
    let rounded = round_pack(e, env, s, m_safe, exp);
    let zero = zero_sum(e, env, p_zero, psign, z.zero, z.sign);
    let r = e.select(m_zero, zero, rounded);
    let r = e.select(any_inf, inf, r);
    let r = e.select(nan_c, nan2, r);
    let dnan = kf(e, env.fmt, env.fmt.default_nan());
    let r = e.select(invalid, dnan, r);
    e.select(nan_ab, nan1, r)
}

/// `v_dot2_f32_f16` on the sources as the instruction selects them (`a`, `b`: f16 pairs, low half first, neg
/// applied; `c` f32): `a.lo * b.lo + a.hi * b.hi + c`, the exact sum rounded once to f32, as the model's
/// `dot2_f32_f16` (rules `dot2.single_rounding` and `nan.dot2_quiet`, both inferred). The halves are flushed by
/// the f16 input field (`e16`), `c` by the f32 one. The first NaN of a.lo, b.lo, a.hi, b.hi, c comes out
/// widened and always quiet; then inf * 0 gives the default NaN, infinities their sum; an exact zero sum
/// is -0 only rounding toward -inf, and a sum of zeros alone -0 only when all three are -0.
pub fn dot2<L: Lower>(
    e: &mut L,
    e32: &Env<L::V>,
    e16: &Env<L::V>,
    a: L::V,
    b: L::V,
    c: L::V,
) -> L::V {
    let half = |e: &mut L, x: L::V, hi: bool| {
        let v = if hi { e.bink(Bin::LShr, x, 16) } else { x };
        e.bink(Bin::And, v, 0xffff)
    };
    let h = [
        half(e, a, false),
        half(e, b, false),
        half(e, a, true),
        half(e, b, true),
    ];
    let mut any_nan = is_nan(e, F32, c);
    let mut nan = e.bink(Bin::Or, c, F32.quiet());
    for &x in h.iter().rev() {
        let n = is_nan(e, F16, x);
        let w = widen16(e, x);
        let w = e.bink(Bin::Or, w, F32.quiet());
        nan = e.select(n, w, nan);
        any_nan = e.bor(any_nan, n);
    }
    let u = h.map(|x| unpack(e, e16, x));
    let z = unpack(e, e32, c);
    let mut invalid = e.kbool(false);
    let mut terms = Vec::new();
    let mut flags = Vec::new();
    for i in 0..2 {
        let (x, y) = (&u[2 * i], &u[2 * i + 1]);
        let sign = e.bin(Bin::Xor, x.sign, y.sign);
        let inf = e.bor(x.inf, y.inf);
        let zero = e.bor(x.zero, y.zero);
        let bad = e.band(inf, zero);
        invalid = e.bor(invalid, bad);
        let mx = e.zext(x.sig);
        let my = e.zext(y.sig);
        let m = e.bin(Bin::Mul, mx, my);
        let exp = e.bin(Bin::Add, x.exp, y.exp);
        terms.push((sign, m, exp));
        flags.push((sign, inf, zero));
    }
    let mz = e.zext(z.sig);
    terms.push((z.sign, mz, z.exp));
    flags.push((z.sign, z.inf, z.zero));
    // Infinities: the first one's sign; one of the other sign makes the default NaN.
    let dnan = kf(e, F32, F32.default_nan());
    let mut any_inf = e.kbool(false);
    let mut s_inf = flags[2].0;
    for &(s, inf, _) in flags[..2].iter().rev() {
        s_inf = e.select(inf, s, s_inf);
    }
    let mut conflict = e.kbool(false);
    for &(s, inf, _) in &flags {
        any_inf = e.bor(any_inf, inf);
        let other = e.cmp(Cmp::Ne, s, s_inf);
        let c = e.band(inf, other);
        conflict = e.bor(conflict, c);
    }
    let si = e.bink(Bin::Shl, s_inf, 31);
    let inf = e.bink(Bin::Or, si, F32.exp_mask());
    let inf = e.select(conflict, dnan, inf);
    // The finite sum.
    let (s, m, exp) = wide::dot_sum(e, [terms[0], terms[1], terms[2]]);
    let z64 = e.k64(0);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let one = e.k64(1);
    let m_safe = e.select(m_zero, one, m);
    let rounded = round_pack(e, e32, s, m_safe, exp);
    let mut all_zero = e.kbool(true);
    let mut all_neg = e.kbool(true);
    for &(s, _, zero) in &flags {
        all_zero = e.band(all_zero, zero);
        let neg = e.nz(s);
        all_neg = e.band(all_neg, neg);
    }
    let k2 = e.k32(2);
    let down = e.cmp(Cmp::Eq, e32.rm, k2);
    let neg_zero = e.select(all_zero, all_neg, down);
    let zs = e.b2i(neg_zero, Ty::I32);
    let zero = e.bink(Bin::Shl, zs, 31);
    let r = e.select(m_zero, zero, rounded);
    let r = e.select(any_inf, inf, r);
    let r = e.select(invalid, dnan, r);
    e.select(any_nan, nan, r)
}

/// `v_mul_f32` semantics on f32 bits `a`, `b` (modifiers already applied): the model's `mul_f32`. A host
/// f32 `OpFMul` stands in where it is exact ("Host fast paths").
pub fn mul<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    if env.fmt != F32 || !e.host_floats() {
        return mul_soft(e, env, a, b);
    }
    let r = e.host(HostF::Mul32, &[a, b]);
    let ok = host_exact(e, env, &[a, b], r);
    e.unless(ok, r, |e: &mut L| soft_call(e, SoftF::Mul32, env, a, b))
}

/// The f32 integer path of `op` through [`Lower::soft`]: one copy per module behind the host fast path.
fn soft_call<L: Lower>(e: &mut L, op: SoftF, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    let args = [a, b, env.rm, env.keep_in, env.keep_out, env.ieee];
    e.soft(op, &args, |e, p| soft_body(e, op, p))
}

/// The body of [`Lower::soft`]'s `op` on its parameters (`a`, `b`, round field, keep-denormal-inputs,
/// keep-denormal-results, IEEE_MODE).
pub fn soft_body<L: Lower>(e: &mut L, op: SoftF, p: &[L::V]) -> L::V {
    let ovfl = e.kbool(false);
    let env = Env {
        fmt: F32,
        rm: p[2],
        keep_in: p[3],
        keep_out: p[4],
        ieee: p[5],
        ovfl,
    };
    match op {
        SoftF::Add32 => add_soft(e, &env, p[0], p[1]),
        SoftF::Mul32 => mul_soft(e, &env, p[0], p[1]),
    }
}

/// Whether the host result `r` of `sources` is the engine's: the mode rounds to nearest even, every source
/// is a zero or a normal number, and `r` is finite with a magnitude above the smallest normal.
fn host_exact<L: Lower>(e: &mut L, env: &Env<L::V>, sources: &[L::V], r: L::V) -> L::V {
    let f = env.fmt;
    let rne = e.nz(env.rm);
    let mut ok = e.bnot(rne);
    for &x in sources {
        let mag = e.bink(Bin::And, x, f.mag_mask());
        let k0 = kf(e, f, 0);
        let zero = e.cmp(Cmp::Eq, mag, k0);
        let off = e.bink(Bin::Sub, mag, f.implicit());
        let span = kf(e, f, f.exp_mask() - f.implicit());
        let normal = e.cmp(Cmp::ULt, off, span);
        let plain = e.bor(zero, normal);
        ok = e.band(ok, plain);
    }
    let mag = e.bink(Bin::And, r, f.mag_mask());
    let off = e.bink(Bin::Sub, mag, f.implicit() + 1);
    let span = kf(e, f, f.exp_mask() - f.implicit() - 1);
    let above = e.cmp(Cmp::ULt, off, span);
    e.band(ok, above)
}

/// [`mul`] in integer arithmetic, every operand and mode.
fn mul_soft<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    let (any_nan, nan) = first_nan(e, env, a, b);
    let x = unpack(e, env, a);
    let y = unpack(e, env, b);
    let sign = e.bin(Bin::Xor, x.sign, y.sign);
    let sw = ext(e, env.fmt, sign);
    let s31 = e.bink(Bin::Shl, sw, env.fmt.sign_bit() as u64);
    let any_inf = e.bor(x.inf, y.inf);
    let any_zero = e.bor(x.zero, y.zero);
    let invalid = e.band(any_inf, any_zero);
    let inf = e.bink(Bin::Or, s31, env.fmt.exp_mask());
    let dnan = kf(e, env.fmt, env.fmt.default_nan());
    let inf = e.select(invalid, dnan, inf);
    let (p, exp) = if env.fmt.wide() {
        wide::mul_sig(e, (x.sig, x.exp), (y.sig, y.exp))
    } else {
        let ma = e.zext(x.sig);
        let mb = e.zext(y.sig);
        (e.bin(Bin::Mul, ma, mb), e.bin(Bin::Add, x.exp, y.exp))
    };
    // A zero or infinite operand never reaches rounding (round_pack needs a non-zero value).
    let one = e.k64(1);
    let special = e.bor(any_zero, any_inf);
    let p_safe = e.select(special, one, p);
    let rounded = round_pack(e, env, sign, p_safe, exp);
    let r = e.select(any_zero, s31, rounded);
    let r = e.select(any_inf, inf, r);
    e.select(any_nan, nan, r)
}

/// `v_mul_legacy_f32`: a zero factor (after the input flush) gives +0 whatever the other factor, NaN
/// and infinity included (rule `legacy.zero_product`); otherwise [`mul`].
pub fn mul_legacy<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V) -> L::V {
    let x = unpack(e, env, a);
    let y = unpack(e, env, b);
    // A NaN is never a zero factor; unpack's zero flag ignores NaN bits (exponent 255).
    let zero = e.bor(x.zero, y.zero);
    let r = mul(e, env, a, b);
    let z = e.k32(0);
    e.select(zero, z, r)
}

/// `v_cvt_f32_i32` (`signed`) and `v_cvt_f32_u32`: the integer rounded in the f32 round field (rule
/// `round.mode_field`); never tiny, so the denormal fields do not apply.
pub fn from_int<L: Lower>(e: &mut L, env: &Env<L::V>, v: L::V, signed: bool) -> L::V {
    let z = e.k32(0);
    let (sign, mag) = if signed {
        let neg = e.cmp(Cmp::SLt, v, z);
        let n = e.bin(Bin::Sub, z, v);
        (e.b2i(neg, Ty::I32), e.select(neg, n, v))
    } else {
        (z, v)
    };
    let m = e.zext(mag);
    let is_zero = e.cmp(Cmp::Eq, v, z);
    let one = e.k64(1);
    let m = e.select(is_zero, one, m);
    let r = round_pack(e, env, sign, m, z);
    let zf = kf(e, env.fmt, 0);
    e.select(is_zero, zf, r)
}

/// A denormal `x` as its signed zero unless denormal inputs are kept.
pub(crate) fn flush_in<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let f = env.fmt;
    let ef = e.bink(Bin::And, x, f.exp_mask());
    let m = e.bink(Bin::And, x, f.man_mask());
    let z = kf(e, f, 0);
    let e0 = e.cmp(Cmp::Eq, ef, z);
    let m_nz = e.cmp(Cmp::Ne, m, z);
    let den = e.band(e0, m_nz);
    let drop = e.bnot(env.keep_in);
    let flush = e.band(den, drop);
    let s = e.bink(Bin::And, x, env.fmt.sign());
    e.select(flush, s, x)
}

/// The signed order key of a non-NaN f32: -0 below +0 (rule `minmax.signed_zero`).
fn order_key<L: Lower>(e: &mut L, f: Fmt, x: L::V) -> L::V {
    let mag = e.bink(Bin::And, x, f.mag_mask());
    let s = e.field(x, f.sign_bit(), 1);
    let neg = e.nz(s);
    let z = kf(e, f, 0);
    let n = e.bin(Bin::Sub, z, mag);
    let n = e.bink(Bin::Sub, n, 1);
    e.select(neg, n, mag)
}

/// `v_min_f32` / `v_max_f32` (`max`): the model's `g_minmax`. Inputs flushed by the denormal field
/// (`minmax.denorm_inputs`); under IEEE_MODE a signalling NaN operand is returned quieted, src0 first
/// (`minmax.nan.ieee1`); otherwise a NaN operand gives the other operand, src0 when both are NaN
/// (`minmax.nan.ieee0`); equal keys give src0 for max and src1 for min.
pub fn minmax<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, max: bool) -> L::V {
    let a = flush_in(e, env, a);
    let b = flush_in(e, env, b);
    let f = env.fmt;
    let na = is_nan(e, f, a);
    let nb = is_nan(e, f, b);
    let z = kf(e, f, 0);
    let qa = e.bink(Bin::And, a, f.quiet());
    let qa = e.cmp(Cmp::Eq, qa, z);
    let sa = e.band(na, qa);
    let qb = e.bink(Bin::And, b, f.quiet());
    let qb = e.cmp(Cmp::Eq, qb, z);
    let sb = e.band(nb, qb);
    let ka = order_key(e, f, a);
    let kb = order_key(e, f, b);
    let less = e.cmp(Cmp::SLt, ka, kb);
    let pick_a = if max { e.bnot(less) } else { less };
    let r = e.select(pick_a, a, b);
    let r = e.select(na, b, r);
    let r = e.select(nb, a, r);
    let qa = e.bink(Bin::Or, a, f.quiet());
    let qb = e.bink(Bin::Or, b, f.quiet());
    let ie_b = e.band(env.ieee, sb);
    let r = e.select(ie_b, qb, r);
    let ie_a = e.band(env.ieee, sa);
    e.select(ie_a, qa, r)
}

/// `v_med3_f32`: the median of the flushed operands; with any NaN operand `min(min(a, b), c)` (rule
/// `minmax.med3_nan`), the model's `g_med3`.
pub fn med3<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, c: L::V) -> L::V {
    let (fa, fb, fc) = (
        flush_in(e, env, a),
        flush_in(e, env, b),
        flush_in(e, env, c),
    );
    let na = is_nan(e, env.fmt, fa);
    let nb = is_nan(e, env.fmt, fb);
    let nc = is_nan(e, env.fmt, fc);
    let n = e.bor(na, nb);
    let any_nan = e.bor(n, nc);
    let m = minmax(e, env, a, b, false);
    let min3 = minmax(e, env, m, c, false);
    let lo = minmax(e, env, fa, fb, false);
    let hi = minmax(e, env, fa, fb, true);
    let mid = minmax(e, env, lo, fc, true);
    let med = minmax(e, env, hi, mid, false);
    e.select(any_nan, min3, med)
}

/// `v_fma_legacy_f32` (RDNA2's VOP3 0x140) and `v_fmac_legacy_f32`: fused, with the legacy zero rule; a
/// zero factor makes the product +0 even beside an infinite or NaN factor, and sources are flushed in
/// every mode (rules `legacy.zero_product`, `legacy.fma_rdna2`).
pub fn fma_legacy<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, c: L::V) -> L::V {
    let src = Env {
        keep_in: e.kbool(false),
        ..*env
    };
    let x = unpack(e, &src, a);
    let y = unpack(e, &src, b);
    let legacy = e.bor(x.zero, y.zero);
    // +0 + c: a NaN c wins, zeros and infinities as for an add, else c rounded (flushed on the way in).
    let z = e.k32(0);
    let zero_product = add(e, &src, z, c);
    let fused = fma(e, &src, a, b, c);
    e.select(legacy, zero_product, fused)
}

/// `v_cvt_i32_f32` (`signed`) and `v_cvt_u32_f32`: toward zero, saturating, a NaN gives 0 (rule
/// `cvt.float_to_int`); a denormal truncates to 0 whatever the denormal field.
pub fn to_int<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, signed: bool) -> L::V {
    let nan = is_nan(e, env.fmt, x);
    let u = unpack(e, env, x);
    let m = sig64(e, env.fmt, u.sig);
    let (mag, _, huge) = int_part(e, m, u.exp);
    let huge = e.bor(huge, u.inf);
    let neg = e.nz(u.sign);
    let z = e.k32(0);
    let r = if signed {
        sat_i32(e, neg, mag, huge)
    } else {
        let lo = e.trunc(mag);
        let all = e.k32(u32::MAX);
        let p = e.select(huge, all, lo);
        e.select(neg, z, p)
    };
    e.select(nan, z, r)
}

/// `floor((-1)^sign * m * 2^exp)` as an i32, saturating (64-bit `m` below 2^62, two's-complement `exp`).
fn floor_i32<L: Lower>(e: &mut L, sign: L::V, m: L::V, exp: L::V) -> L::V {
    let (mag, inexact, huge) = int_part(e, m, exp);
    let neg = e.nz(sign);
    let bump = e.band(neg, inexact);
    let b = e.b2i(bump, Ty::I64);
    let mag = e.bin(Bin::Add, mag, b);
    sat_i32(e, neg, mag, huge)
}

/// The integer part of `m * 2^exp` (64-bit `m` below 2^62, two's-complement `exp`): its magnitude, whether
/// a fraction was dropped, and whether it is 2^32 or more (then the magnitude is not meaningful).
fn int_part<L: Lower>(e: &mut L, m: L::V, exp: L::V) -> (L::V, L::V, L::V) {
    let z = e.k32(0);
    let z64 = e.k64(0);
    let msb = e.un(Un::FindMsb, m);
    let top = e.bin(Bin::Add, exp, msb);
    let k32 = e.k32(32);
    let huge = e.cmp(Cmp::SGe, top, k32);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let nz = e.bnot(m_zero);
    let huge = e.band(huge, nz);
    let left = e.cmp(Cmp::SGe, exp, z);
    let sl = e.bink(Bin::And, exp, 63);
    let slw = e.zext(sl);
    let l = e.bin(Bin::Shl, m, slw);
    let sr = e.bin(Bin::Sub, z, exp);
    let k63 = e.k32(63);
    let gone = e.cmp(Cmp::UGt, sr, k63);
    let src = e.bink(Bin::UMin, sr, 63);
    let srw = e.zext(src);
    let r = e.bin(Bin::LShr, m, srw);
    let lost = low_bits(e, m, srw);
    let r = e.select(gone, z64, r);
    let lost = e.select(gone, nz, lost);
    let mag = e.select(left, l, r);
    let no = e.kbool(false);
    let inexact = e.select(left, no, lost);
    (mag, inexact, huge)
}

/// The i32 of sign `neg` and 64-bit magnitude `mag`, saturating (also whenever `huge`).
fn sat_i32<L: Lower>(e: &mut L, neg: L::V, mag: L::V, huge: L::V) -> L::V {
    let z = e.k32(0);
    let max = e.k64(0x7fff_ffff);
    let min_mag = e.k64(0x8000_0000);
    let pos_sat = e.cmp(Cmp::UGt, mag, max);
    let neg_sat = e.cmp(Cmp::UGt, mag, min_mag);
    let pos_sat = e.bor(pos_sat, huge);
    let neg_sat = e.bor(neg_sat, huge);
    let lo = e.trunc(mag);
    let n = e.bin(Bin::Sub, z, lo);
    let kmax = e.k32(0x7fff_ffff);
    let kmin = e.k32(0x8000_0000);
    let p = e.select(pos_sat, kmax, lo);
    let q = e.select(neg_sat, kmin, n);
    e.select(neg, q, p)
}

/// `v_cvt_flr_i32_f32` (`half` false: `floor(x)`) and `v_cvt_rpi_i32_f32` (`half`: `floor(x + 0.5)`, the
/// sum exact), saturating; the input flushed by the denormal field; a NaN saturates by its sign (rules
/// `cvt.float_to_int`, `cvt.flr_rpi_nan_sign`).
pub fn floor_to_int<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, half: bool) -> L::V {
    let nan = is_nan(e, F32, x);
    let u = unpack(e, env, x);
    let m = e.zext(u.sig);
    let (s, m, exp) = if half {
        let z = e.k32(0);
        let one = e.k64(1);
        let minus1 = e.k32(u32::MAX);
        exact_sum(e, (u.sign, m, u.exp), (z, one, minus1))
    } else {
        (u.sign, m, u.exp)
    };
    let r = floor_i32(e, s, m, exp);
    let kmax = e.k32(0x7fff_ffff);
    let kmin = e.k32(0x8000_0000);
    let neg = e.nz(u.sign);
    let sat = e.select(neg, kmin, kmax);
    let r = e.select(u.inf, sat, r);
    e.select(nan, sat, r)
}

/// `v_cvt_f16_f32`: the f32 input flushed by the f32 field, rounded in the f16 round field with the f16
/// result field; a NaN is always quieted, its payload's top ten bits kept (rules `cvt.f16_directed`,
/// `nan.cvt_narrow_quiet`); FP16_OVFL from a finite source (`f16.fp16_ovfl`). `e32` and `e16` are the
/// two environments of one MODE value.
pub fn cvt_f16_f32<L: Lower>(e: &mut L, e32: &Env<L::V>, e16: &Env<L::V>, x: L::V) -> L::V {
    let nan = is_nan(e, F32, x);
    let u = unpack(e, e32, x);
    let s15 = e.bink(Bin::Shl, u.sign, 15);
    let m = e.zext(u.sig);
    let special = e.bor(u.zero, u.inf);
    let one = e.k64(1);
    let m = e.select(special, one, m);
    let rounded = round_pack(e, e16, u.sign, m, u.exp);
    let inf = e.bink(Bin::Or, s15, 0x7c00);
    let r = e.select(u.inf, inf, rounded);
    let r = e.select(u.zero, s15, r);
    let hi = e.bink(Bin::LShr, x, 16);
    let hi = e.bink(Bin::And, hi, 0x8000);
    let pay = e.bink(Bin::LShr, x, 13);
    let pay = e.bink(Bin::And, pay, 0x3ff);
    let q = e.bink(Bin::Or, hi, 0x7e00);
    let q = e.bin(Bin::Or, q, pay);
    let r = e.select(nan, q, r);
    let z = e.k32(0);
    let k = e.k32(0x7c00);
    let src_inf = e.select(u.inf, k, z);
    let src_inf = e.select(nan, z, src_inf);
    ovfl16(e, e16, r, &[src_inf])
}

/// The output modifier `omod` (0 none, 1 `mul:2`, 2 `mul:4`, 3 `div:2`) then `clamp` on a result `x`,
/// the model's `g_omod_clamp`: omod applies only with IEEE 0 and the format's denormal results flushed
/// (rule `omod.mode_dependent`; a zero comes out +0, a scaled value rounds and flushes like a result,
/// `omod.denormal_result`); clamp takes values to [+0, 1] and a NaN to +0 under DX10_CLAMP, else keeps it
/// (`clamp.dx10`). `mode` is the MODE register value (DX10_CLAMP is bit 8).
pub fn omod_clamp<L: Lower>(
    e: &mut L,
    env: &Env<L::V>,
    mode: L::V,
    x: L::V,
    omod: u8,
    clamp: bool,
) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let mut r = x;
    if omod != 0 {
        let k: i32 = match omod {
            1 => 1,
            2 => 2,
            _ => -1,
        };
        let scaled_env = Env {
            keep_in: e.kbool(true),
            keep_out: e.kbool(false),
            ..*env
        };
        let u = unpack(e, &scaled_env, x);
        let m = sig64(e, f, u.sig);
        let special = e.bor(u.zero, u.inf);
        let one = e.k64(1);
        let m = e.select(special, one, m);
        let exp = e.bink(Bin::Add, u.exp, k as u32 as u64);
        let scaled = round_pack(e, &scaled_env, u.sign, m, exp);
        let sw = ext(e, f, u.sign);
        let s = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
        let inf = e.bink(Bin::Or, s, f.exp_mask());
        let scaled = e.select(u.inf, inf, scaled);
        let z = kf(e, f, 0);
        let scaled = e.select(u.zero, z, scaled);
        let no_ieee = e.bnot(env.ieee);
        let flushing = e.bnot(env.keep_out);
        let not_nan = e.bnot(nan);
        let apply = e.band(no_ieee, flushing);
        let apply = e.band(apply, not_nan);
        r = e.select(apply, scaled, r);
    }
    if clamp {
        let z = kf(e, f, 0);
        let nan = is_nan(e, f, r);
        let dx10 = e.field(mode, 8, 1);
        let dx10 = e.nz(dx10);
        let s = e.field(r, f.sign_bit(), 1);
        let neg = e.nz(s);
        let mag = e.bink(Bin::And, r, f.mag_mask());
        let one = kf(e, f, (f.bias() as u64) << f.man);
        let above = e.cmp(Cmp::UGt, mag, one);
        let c = e.select(above, one, r);
        let c = e.select(neg, z, c);
        let nan_r = e.select(dx10, z, r);
        r = e.select(nan, nan_r, c);
    }
    r
}

/// `v_floor` (`dir` 2), `v_ceil` (1), `v_trunc` (3) and `v_rndne` (0) in the environment's format: the
/// model's `g_round_int`. The input is flushed by the denormal field; a NaN is returned quieted only under
/// IEEE_MODE (rule `nan.unary_quiet_ieee_only`); an integral value comes back as it is.
pub fn round_int<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, dir: u32) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let sw = ext(e, f, u.sign);
    let s = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let inf = e.bink(Bin::Or, s, f.exp_mask());
    let z = e.k32(0);
    let integral = e.cmp(Cmp::SGe, u.exp, z);
    let sh = e.bin(Bin::Sub, z, u.exp);
    let m = sig64(e, f, u.sig);
    let rm = e.k32(dir);
    let q = shr_round(e, rm, u.sign, m, sh);
    let z64 = e.k64(0);
    let q_zero = e.cmp(Cmp::Eq, q, z64);
    let one = e.k64(1);
    let q_safe = e.select(q_zero, one, q);
    let exact = Env {
        rm: e.k32(0),
        keep_out: e.kbool(true),
        ..*env
    };
    let packed = round_pack(e, &exact, u.sign, q_safe, z);
    let r = e.select(q_zero, s, packed);
    let r = e.select(integral, x, r);
    let r = e.select(u.zero, s, r);
    let r = e.select(u.inf, inf, r);
    e.select(nan, nan_r, r)
}

/// A NaN source of a unary operation as its result: quieted only under IEEE_MODE (rule
/// `nan.unary_quiet_ieee_only`).
pub(crate) fn unary_nan<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let q = e.bink(Bin::Or, x, env.fmt.quiet());
    e.select(env.ieee, q, x)
}

/// `v_div_scale` (f32, f64): the scaled operand and the VCC bit of the model's `div_scale_*` (rule `div.scale`, the
/// RDNA ISA guide's pseudo-code): the three sources flushed by the format's denormal input field, a NaN among
/// them returned as it is (never quieted) with VCC clear, and then, in order: a zero divisor or dividend gives
/// the default NaN; an exponent gap of 96 (768) or more sets VCC and scales a numerator `s0 == s1` up by 2^64
/// (2^128); a denormal divisor scales `s0` up; a divisor whose reciprocal is denormal scales a numerator up and
/// sets VCC when the quotient is denormal too, else scales `s0` down; a denormal quotient sets VCC and scales a
/// denominator `s0 == s2` up; a dividend exponent field of 23 (53) or less scales `s0` up.
///
/// The model decides "denormal" on host f64 values (`1.0 / s1`, `s2 / s1`); here the same decisions are exact
/// comparisons of the operands: for f32 the f64 quotient cannot cross 2^-126 wrongly (two 24-bit
/// significands' ratio is 2^-48 or more away from a power of two), so it is the real quotient's test; for f64
/// the quotient is the f64 division's rounded result, whose test is worked out on the normalized significands
/// (see the comments).
pub fn div_scale<L: Lower>(
    e: &mut L,
    env: &Env<L::V>,
    s0: L::V,
    s1: L::V,
    s2: L::V,
) -> (L::V, L::V) {
    let f = env.fmt;
    let wide = f.wide();
    let (big, tiny_exp, k): (u64, u64, u32) = if wide { (768, 53, 128) } else { (96, 23, 64) };
    let s0 = flush_in(e, env, s0);
    let s1 = flush_in(e, env, s1);
    let s2 = flush_in(e, env, s2);
    let (n0, n1, n2) = (is_nan(e, f, s0), is_nan(e, f, s1), is_nan(e, f, s2));
    let nan12 = e.select(n1, s1, s2);
    let nan = e.select(n0, s0, nan12);
    let any_nan = e.bor(n0, n1);
    let any_nan = e.bor(any_nan, n2);
    let no = e.kbool(false);
    let yes = e.kbool(true);
    let rne = e.k32(0);
    let exact = Env {
        rm: rne,
        keep_in: yes,
        keep_out: yes,
        ieee: no,
        ..*env
    };
    let kup = e.k32(k);
    let kdown = e.k32(k.wrapping_neg());
    let up = ldexp(e, &exact, s0, kup);
    let down = ldexp(e, &exact, s0, kdown);
    let e1 = fld(e, f, s1, f.man, f.exp);
    let e2 = fld(e, f, s2, f.man, f.exp);
    let u1 = unpack(e, env, s1);
    let u2 = unpack(e, env, s2);
    let zero = e.bor(u1.zero, u2.zero);
    let gap = e.bin(Bin::Sub, e2, e1);
    let kbig = e.k32(big as u32);
    let c_big = e.cmp(Cmp::SGe, gap, kbig);
    let m1 = e.bink(Bin::And, s1, f.man_mask());
    let zw = kf(e, f, 0);
    let m1nz = e.cmp(Cmp::Ne, m1, zw);
    let z32 = e.k32(0);
    let e1z = e.cmp(Cmp::Eq, e1, z32);
    let den1 = e.band(e1z, m1nz);
    // 1/s1 is denormal exactly when |s1| > 2^(emax - 1) (2^126, 2^1022), s1 finite.
    let mag1 = e.bink(Bin::And, s1, f.mag_mask());
    let half_max = kf(e, f, u64::from(2 * f.bias() - 1) << f.man);
    let infw = kf(e, f, f.exp_mask());
    let above = e.cmp(Cmp::UGt, mag1, half_max);
    let finite1 = e.cmp(Cmp::ULt, mag1, infw);
    let r_den = e.band(above, finite1);
    // s2/s1 for finite non-zero operands: q = (m2/m1) * 2^d with both significands normalized to bit 61.
    let sig1 = sig64(e, f, u1.sig);
    let sig2 = sig64(e, f, u2.sig);
    let (m1n, x1) = normalize(e, sig1, u1.exp);
    let (m2n, x2) = normalize(e, sig2, u2.exp);
    let d = e.bin(Bin::Sub, x2, x1);
    // Dn = d + (bias - 1): q < 2^-126 (2^-1022) for Dn <= -2, for Dn = -1 (but for one f64 pair, below), and for
    // Dn = 0 when m2 < m1.
    let dn = e.bink(Bin::Add, d, u64::from(f.bias() - 1));
    let km1 = e.k32(-1i32 as u32);
    let le_m2 = e.cmp(Cmp::SLt, dn, km1);
    let eq_m1 = e.cmp(Cmp::Eq, dn, km1);
    let eq_0 = e.cmp(Cmp::Eq, dn, z32);
    let m2_lt = e.cmp(Cmp::ULt, m2n, m1n);
    let m2_gt = e.cmp(Cmp::UGt, m2n, m1n);
    let at_0 = e.band(eq_0, m2_lt);
    let at_m1 = if wide {
        // f64: q = (2^53 - 1) / 2^52 * 2^-1023 is the midpoint below 2^-1022, which the division rounds (ties
        // to even) up to 2^-1022: not denormal.
        let lo = e.k64(1 << 61);
        let hi = e.k64((1 << 62) - (1 << 9));
        let a = e.cmp(Cmp::Eq, m1n, lo);
        let b = e.cmp(Cmp::Eq, m2n, hi);
        let pair = e.band(a, b);
        let not_pair = e.bnot(pair);
        e.band(eq_m1, not_pair)
    } else {
        eq_m1
    };
    let q_small = e.bor(le_m2, at_m1);
    let q_small = e.bor(q_small, at_0);
    let q_nonzero = if wide {
        // The f64 division's result is non-zero when q > 2^-1075: d >= -1074, or d = -1075 with m2 > m1.
        let lim = e.k32(-1074i32 as u32);
        let ge = e.cmp(Cmp::SGe, d, lim);
        let lim = e.k32(-1075i32 as u32);
        let at = e.cmp(Cmp::Eq, d, lim);
        let at = e.band(at, m2_gt);
        e.bor(ge, at)
    } else {
        yes
    };
    let ordinary = e.bor(u1.inf, u2.inf);
    let ordinary = e.bor(ordinary, zero);
    let ordinary = e.bnot(ordinary);
    let q_den = e.band(q_small, q_nonzero);
    let q_den = e.band(q_den, ordinary);
    let tiny_k = e.k32(tiny_exp as u32);
    let tiny = e.cmp(Cmp::ULe, e2, tiny_k);
    let eq01 = e.cmp(Cmp::Eq, s0, s1);
    let eq02 = e.cmp(Cmp::Eq, s0, s2);
    let up_if01 = e.select(eq01, up, s0);
    let up_if02 = e.select(eq02, up, s0);
    // The chain, last case first.
    let dnan = kf(e, f, f.default_nan());
    let mut r = e.select(tiny, up, s0);
    let mut vcc = no;
    r = e.select(q_den, up_if02, r);
    vcc = e.select(q_den, yes, vcc);
    r = e.select(r_den, down, r);
    vcc = e.select(r_den, no, vcc);
    let both = e.band(r_den, q_den);
    r = e.select(both, up_if01, r);
    vcc = e.select(both, yes, vcc);
    r = e.select(den1, up, r);
    vcc = e.select(den1, no, vcc);
    r = e.select(c_big, up_if01, r);
    vcc = e.select(c_big, yes, vcc);
    r = e.select(zero, dnan, r);
    vcc = e.select(zero, no, vcc);
    r = e.select(any_nan, nan, r);
    vcc = e.select(any_nan, no, vcc);
    (r, vcc)
}

/// `v_div_fmas` (f32, f64): `a * b + c` rounded once with denormal operands and result kept, then scaled by
/// 2^32 (f32) or 2^64 (f64) in a lane whose VCC bit `vcc` is set, rounded again and flushed by the format's result
/// field: the model's `div_fmas_*` (rules `div.fmas`, `div.fmas.f32_flush`, `div.fmas.f64_flush`). The scaling
/// is [`ldexp`] with denormal inputs kept (its NaN handling equals the model's `scale`: the FMA already
/// quieted a NaN under IEEE_MODE).
pub fn div_fmas<L: Lower>(
    e: &mut L,
    env: &Env<L::V>,
    a: L::V,
    b: L::V,
    c: L::V,
    vcc: L::V,
) -> L::V {
    let yes = e.kbool(true);
    let inner = Env {
        keep_in: yes,
        keep_out: yes,
        ..*env
    };
    let r = fma(e, &inner, a, b, c);
    let k = if env.fmt == F32 { 32 } else { 64 };
    let kk = e.k32(k);
    let z = e.k32(0);
    let n = e.select(vcc, kk, z);
    let outer = Env {
        keep_in: yes,
        ..*env
    };
    ldexp(e, &outer, r, n)
}

/// `v_div_fixup` (f16, f32, f64): the special cases of `s2 / s1` around the quotient estimate `s0`, the model's
/// `div_fixup_*` (rule `div.fixup`): `s1` and `s2` flushed by the format's denormal input field, `s0` and the
/// result kept; a NaN `s2`, then `s1`, then `s0` returned ([`unary_nan`]); 0/0 and inf/inf the default NaN;
/// x/0 and inf/x the infinity of the quotient's sign; 0/x and x/inf its zero; otherwise `|s0|` with that sign.
/// f16 (rule `div.fixup_f16_nan_quotient`): a NaN estimate with ordinary `s1`, `s2` gives the infinity of the
/// quotient's sign; FP16_OVFL clamps an infinite result the operands did not make infinite.
pub fn div_fixup<L: Lower>(e: &mut L, env: &Env<L::V>, s0: L::V, s1: L::V, s2: L::V) -> L::V {
    let f = env.fmt;
    let f1 = flush_in(e, env, s1);
    let f2 = flush_in(e, env, s2);
    let class = |e: &mut L, x: L::V| {
        let mag = e.bink(Bin::And, x, f.mag_mask());
        let z = kf(e, f, 0);
        let inf = kf(e, f, f.exp_mask());
        let zero = e.cmp(Cmp::Eq, mag, z);
        let is_inf = e.cmp(Cmp::Eq, mag, inf);
        let nan = e.cmp(Cmp::UGt, mag, inf);
        (zero, is_inf, nan)
    };
    let (z1, i1, n1) = class(e, f1);
    let (z2, i2, n2) = class(e, f2);
    let (_, _, n0) = class(e, s0);
    let sb = e.bink(Bin::And, f1, f.sign());
    let sb2 = e.bink(Bin::And, f2, f.sign());
    let sign = e.bin(Bin::Xor, sb, sb2);
    let inf = e.bink(Bin::Or, sign, f.exp_mask());
    let mag0 = e.bink(Bin::And, s0, f.mag_mask());
    let quotient = e.bin(Bin::Or, mag0, sign);
    let nan0 = unary_nan(e, env, s0);
    // The f16 NaN-estimate rule: with ordinary operands a NaN estimate gives the signed infinity.
    let r0 = if f == F16 {
        let special1 = e.bor(z1, i1);
        let special1 = e.bor(special1, n1);
        let special2 = e.bor(z2, i2);
        let special2 = e.bor(special2, n2);
        let extra = e.bor(special1, special2);
        let ordinary = e.bnot(extra);
        let nan_est = e.band(n0, ordinary);
        let v = e.select(n0, nan0, quotient);
        e.select(nan_est, inf, v)
    } else {
        e.select(n0, nan0, quotient)
    };
    let zero = sign;
    let to_zero = e.bor(i1, z2);
    let r = e.select(to_zero, zero, r0);
    let to_inf = e.bor(z1, i2);
    let r = e.select(to_inf, inf, r);
    let both_inf = e.band(i1, i2);
    let both_zero = e.band(z1, z2);
    let invalid = e.bor(both_inf, both_zero);
    let dnan = kf(e, f, f.default_nan());
    let r = e.select(invalid, dnan, r);
    let q1 = unary_nan(e, env, f1);
    let r = e.select(n1, q1, r);
    let q2 = unary_nan(e, env, f2);
    let r = e.select(n2, q2, r);
    if f == F16 {
        // The infinity it writes for a zero denominator or an infinite numerator is kept; other infinite
        // results clamp under FP16_OVFL.
        let own = e.bor(z1, i2);
        let clamped = ovfl16(e, env, r, &[]);
        e.select(own, r, clamped)
    } else {
        r
    }
}

/// `v_fract`: `x - floor(x)` rounded in the mode's direction and result field, at most the largest value
/// below one (rule `fract.clamp_below_one`); an infinity gives the default NaN, a zero (or a flushed
/// denormal) its signed zero, a NaN [`unary_nan`]. The model's `g_fract`: the difference is exact before the
/// one rounding (both terms have 24-bit significands, see [`exact_sum`]).
pub fn fract<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let fl = round_int(e, env, x, 2);
    // The floor is integral (or a zero): read as it is.
    let exact = Env {
        keep_in: e.kbool(true),
        ..*env
    };
    let v = unpack(e, &exact, fl);
    let nfs = e.bink(Bin::Xor, v.sign, 1);
    let mx = sig64(e, f, u.sig);
    let mf = sig64(e, f, v.sig);
    let (s, m, exp) = exact_sum(e, (u.sign, mx, u.exp), (nfs, mf, v.exp));
    let z64 = e.k64(0);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let one = e.k64(1);
    let m_safe = e.select(m_zero, one, m);
    let rounded = round_pack(e, env, s, m_safe, exp);
    let below_one = kf(e, f, ((f.bias() as u64) << f.man) - 1);
    let over = e.cmp(Cmp::UGt, rounded, below_one);
    let r = e.select(over, below_one, rounded);
    let z = kf(e, f, 0);
    let r = e.select(m_zero, z, r);
    let sw = ext(e, f, u.sign);
    let sz = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let r = e.select(u.zero, sz, r);
    let dnan = kf(e, f, f.default_nan());
    let r = e.select(u.inf, dnan, r);
    e.select(nan, nan_r, r)
}

/// Which of the exactly computed reciprocals and roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recip {
    /// `v_rcp`: `1 / x`.
    Rcp,
    /// `v_sqrt`: `sqrt(x)`.
    Sqrt,
    /// `v_rsq`: `1 / sqrt(x)`.
    Rsq,
}

/// `n` restoring-division steps after the integer step: from a remainder `r < 2d` (64-bit), the quotient
/// `floor(r * 2^n / d)` and whether the division is exact. `d` is never zero for the callers (a normalized
/// significand), and the remainder stays below `2d`, so nothing overflows.
fn div_steps<L: Lower>(e: &mut L, r: L::V, d: L::V, n: u32) -> (L::V, L::V) {
    let ge = e.cmp(Cmp::UGe, r, d);
    let rd = e.bin(Bin::Sub, r, d);
    let r = e.select(ge, rd, r);
    let q = e.b2i(ge, Ty::I64);
    let out = e.repeat(n, &[r, q], |e, _, s| {
        let &[r, q] = s else {
            unreachable!("two state values")
        };
        let r2 = e.bink(Bin::Shl, r, 1);
        let ge = e.cmp(Cmp::UGe, r2, d);
        let rd = e.bin(Bin::Sub, r2, d);
        let r = e.select(ge, rd, r2);
        let bit = e.b2i(ge, Ty::I64);
        let q2 = e.bink(Bin::Shl, q, 1);
        vec![r, e.bin(Bin::Or, q2, bit)]
    });
    let z = e.k64(0);
    (out[1], e.cmp(Cmp::Eq, out[0], z))
}

/// `floor(sqrt(v))` of a 64-bit `v` below `2^(top + 2)` (`top` even), digit by digit, and whether the root is
/// exact.
fn isqrt_steps<L: Lower>(e: &mut L, v: L::V, top: u32) -> (L::V, L::V) {
    let root = e.k64(0);
    let bit = e.k64(1 << top);
    // State: the remainder, the root so far, the bit of this step (two places lower each step).
    let out = e.repeat(top / 2 + 1, &[v, root, bit], |e, _, s| {
        let &[v, root, bit] = s else {
            unreachable!("three state values")
        };
        let t = e.bin(Bin::Add, root, bit);
        let ge = e.cmp(Cmp::UGe, v, t);
        let vt = e.bin(Bin::Sub, v, t);
        let v = e.select(ge, vt, v);
        let half = e.bink(Bin::LShr, root, 1);
        let up = e.bin(Bin::Add, half, bit);
        let root = e.select(ge, up, half);
        vec![v, root, e.bink(Bin::LShr, bit, 2)]
    });
    let z = e.k64(0);
    (out[1], e.cmp(Cmp::Eq, out[0], z))
}

/// `v_rcp`, `v_sqrt` and `v_rsq` in f32 and f16, correctly rounded once in the mode's direction, as the
/// model computes them (`reference_model::float::rcp_f32` and its siblings: the exact quotient or root in
/// integers, rule `transcendental.approximation` for how far the hardware may be from it). A finite operand
/// `m * 2^x` has its significand normalized to 24 bits (an even exponent for the roots); the restoring
/// division gives `floor(2^49 / m)`, the digit-by-digit root `floor(sqrt(m * 2^28))`, and `1 / sqrt` is
/// `floor(sqrt(floor(2^78 / m)))`, which equals the floor of the exact value; each carries at least 26
/// bits, and a sticky bit below them (a non-zero remainder) makes the one [`round_pack`] exact. Special
/// values: a NaN as [`unary_nan`]; `1/+-0` and `1/sqrt(+-0)` are infinities of the zero's sign, `1/+-inf` a
/// zero of its sign, `sqrt(+-0)` the zero, `sqrt(+inf)` `+inf`, `1/sqrt(+inf)` `+0`, and a root of any other
/// negative value the default NaN. f16 results take FP16_OVFL from the caller ([`ovfl16`], source `x`).
pub fn recip_root<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, op: Recip) -> L::V {
    let f = env.fmt;
    debug_assert!(!f.wide(), "f64 reciprocals and roots are not computed here");
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let msb = sig_msb(e, &u);
    let k23 = e.k32(23);
    let sh = e.bin(Bin::Sub, k23, msb);
    let m = e.zext(u.sig);
    let shw = e.zext(sh);
    let mut m = e.bin(Bin::Shl, m, shw);
    let mut ex = e.bin(Bin::Sub, u.exp, sh);
    if op != Recip::Rcp {
        let odd = e.bink(Bin::And, ex, 1);
        let odd = e.nz(odd);
        let m2 = e.bink(Bin::Shl, m, 1);
        m = e.select(odd, m2, m);
        let ex2 = e.bink(Bin::Sub, ex, 1);
        ex = e.select(odd, ex2, ex);
    }
    // A zero or infinity has no significand: divide by a stand-in, the result is replaced below.
    let special = e.bor(u.zero, u.inf);
    let k = e.k64(1 << 23);
    let m = e.select(special, k, m);
    let half = e.bink(Bin::AShr, ex, 1);
    let z32 = e.k32(0);
    let (q, exact, exp) = match op {
        Recip::Rcp => {
            let (q, exact) = div_steps(e, k, m, 26);
            let neg = e.bin(Bin::Sub, z32, ex);
            (q, exact, e.bink(Bin::Sub, neg, 49))
        }
        Recip::Sqrt => {
            let a = e.bink(Bin::Shl, m, 28);
            let (q, exact) = isqrt_steps(e, a, 52);
            (q, exact, e.bink(Bin::Sub, half, 14))
        }
        Recip::Rsq => {
            let (a, exact_div) = div_steps(e, k, m, 55);
            let (q, exact_root) = isqrt_steps(e, a, 54);
            let neg = e.bin(Bin::Sub, z32, half);
            let exact = e.band(exact_div, exact_root);
            (q, exact, e.bink(Bin::Sub, neg, 39))
        }
    };
    let q2 = e.bink(Bin::Shl, q, 1);
    let inexact = e.bnot(exact);
    let st = e.b2i(inexact, Ty::I64);
    let sig = e.bin(Bin::Or, q2, st);
    let exp = e.bink(Bin::Sub, exp, 1);
    let sign = if op == Recip::Rcp { u.sign } else { z32 };
    let rounded = round_pack(e, env, sign, sig, exp);
    let r = recip_specials(e, f, &u, op, rounded);
    e.select(nan, nan_r, r)
}

/// The special values of the reciprocals and roots around a finite operand's `rounded` result: `1/+-0` and
/// `1/sqrt(+-0)` are infinities of the zero's sign, `1/+-inf` a zero of its sign, `sqrt(+-0)` the zero,
/// `sqrt(+inf)` `+inf`, `1/sqrt(+inf)` `+0`, and a root of any other negative value the default NaN.
fn recip_specials<L: Lower>(
    e: &mut L,
    f: Fmt,
    u: &Unpacked<L::V>,
    op: Recip,
    rounded: L::V,
) -> L::V {
    let sw = ext(e, f, u.sign);
    let s = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let inf = e.bink(Bin::Or, s, f.exp_mask());
    if op == Recip::Rcp {
        let r = e.select(u.zero, inf, rounded);
        return e.select(u.inf, s, r);
    }
    let (at_inf, at_zero) = if op == Recip::Sqrt {
        (kf(e, f, f.exp_mask()), s)
    } else {
        (kf(e, f, 0), inf)
    };
    let dnan = kf(e, f, f.default_nan());
    let neg = e.nz(u.sign);
    let r = e.select(neg, dnan, rounded);
    let r = e.select(u.inf, at_inf, r);
    let ninf = e.band(u.inf, neg);
    let r = e.select(ninf, dnan, r);
    e.select(u.zero, at_zero, r)
}

/// `v_rcp_f64`, `v_sqrt_f64` and `v_rsq_f64` as the model computes them (`reference_model::float::rcp_f64`
/// and siblings, rule `transcendental.approximation`): the host's f64 operation, rounded to nearest even
/// whatever the mode (`1.0 / x`, `sqrt(x)` and `1.0 / sqrt(x)`, the latter rounded twice), and then only the
/// mode's output flush, since the value is already an f64. Here `1 / m` is `floor(2^114 / m)` by 62
/// restoring steps and the root `floor(sqrt(m * 2^58))` by 56 digit steps, each with at least 55 bits and a
/// sticky bit, so one [`round_pack`] to nearest even with denormals kept is the host's result (an
/// overflowing reciprocal of a kept denormal is infinite, a reciprocal above 2^1022 a denormal); a
/// denormal reciprocal is then flushed where the mode flushes results. Special values as
/// [`recip_root`].
pub fn recip_root64<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, op: Recip) -> L::V {
    let f = env.fmt;
    debug_assert!(f.wide());
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let msb = sig_msb(e, &u);
    let kman = e.k32(f.man);
    let sh = e.bin(Bin::Sub, kman, msb);
    let shw = e.zext(sh);
    let m = e.bin(Bin::Shl, u.sig, shw);
    let ex = e.bin(Bin::Sub, u.exp, sh);
    // A zero or infinity has no significand: a stand-in, the result is replaced below.
    let special = e.bor(u.zero, u.inf);
    let k = e.k64(1 << 52);
    let m = e.select(special, k, m);
    let rne = Env {
        rm: e.k32(0),
        keep_out: e.kbool(true),
        ..*env
    };
    let z32 = e.k32(0);
    let rounded = match op {
        Recip::Rcp => {
            let r = rcp64_steps(e, &rne, u.sign, m, ex);
            // The mode's flush of a denormal reciprocal (the host kept it).
            let mag = e.bink(Bin::And, r, f.mag_mask());
            let kmin = e.k64(f.implicit());
            let den = e.cmp(Cmp::ULt, mag, kmin);
            let z = e.k64(0);
            let nz = e.cmp(Cmp::Ne, mag, z);
            let den = e.band(den, nz);
            let flush = e.bnot(env.keep_out);
            let den = e.band(den, flush);
            let sign = e.bink(Bin::And, r, f.sign());
            e.select(den, sign, r)
        }
        Recip::Sqrt => sqrt64_steps(e, &rne, m, ex),
        Recip::Rsq => {
            // The host rounds the root, then its reciprocal: both normal, nothing to flush.
            let s = sqrt64_steps(e, &rne, m, ex);
            let ef = e.field(s, f.man, f.exp);
            let ef = e.trunc(ef);
            let sm = e.bink(Bin::And, s, f.man_mask());
            let sm = e.bink(Bin::Or, sm, f.implicit());
            let se = e.bink(Bin::Sub, ef, (f.bias() + f.man) as u64);
            rcp64_steps(e, &rne, z32, sm, se)
        }
    };
    let r = recip_specials(e, f, &u, op, rounded);
    e.select(nan, nan_r, r)
}

/// `(-1)^sign / (m * 2^ex)` for a significand `m` in [2^52, 2^53), rounded in `env`.
fn rcp64_steps<L: Lower>(e: &mut L, env: &Env<L::V>, sign: L::V, m: L::V, ex: L::V) -> L::V {
    let k = e.k64(1 << 52);
    let (q, exact) = div_steps(e, k, m, 62);
    let q2 = e.bink(Bin::Shl, q, 1);
    let inexact = e.bnot(exact);
    let st = e.b2i(inexact, Ty::I64);
    let sig = e.bin(Bin::Or, q2, st);
    let z = e.k32(0);
    let neg = e.bin(Bin::Sub, z, ex);
    let exp = e.bink(Bin::Sub, neg, 115);
    round_pack(e, env, sign, sig, exp)
}

/// `sqrt(m * 2^ex)` for a significand `m` in [2^52, 2^53), rounded in `env`: the digit-by-digit root of the
/// 112-bit `m * 2^58` (an even exponent first), two radicand bits a step, the remainder below 2^58.
fn sqrt64_steps<L: Lower>(e: &mut L, env: &Env<L::V>, m: L::V, ex: L::V) -> L::V {
    let odd = e.bink(Bin::And, ex, 1);
    let odd = e.nz(odd);
    let m2 = e.bink(Bin::Shl, m, 1);
    let m = e.select(odd, m2, m);
    let ex2 = e.bink(Bin::Sub, ex, 1);
    let ex = e.select(odd, ex2, ex);
    let z = e.k64(0);
    // Radicand bits 2p + 1 and 2p, p = 55 down to 0: a step of the root from the remainder shifted in with
    // `pair`. The radicand's bits below bit 58 are zero, so from p = 28 down nothing is shifted in.
    let step = |e: &mut L, rem: L::V, root: L::V, pair: Option<L::V>| {
        let r4 = e.bink(Bin::Shl, rem, 2);
        let r4 = match pair {
            Some(p) => e.bin(Bin::Or, r4, p),
            None => r4,
        };
        let t = e.bink(Bin::Shl, root, 2);
        let t = e.bink(Bin::Or, t, 1);
        let ge = e.cmp(Cmp::UGe, r4, t);
        let rt = e.bin(Bin::Sub, r4, t);
        let rem = e.select(ge, rt, r4);
        let r2 = e.bink(Bin::Shl, root, 1);
        let bit = e.b2i(ge, Ty::I64);
        vec![rem, e.bin(Bin::Or, r2, bit)]
    };
    // p = 55 - i down to 29: the pair at bit 2p - 58 = 52 - 2i of m.
    let high = e.repeat(27, &[z, z], |e, i, s| {
        let k52 = e.k32(52);
        let i2 = e.bink(Bin::Shl, i, 1);
        let sh = e.bin(Bin::Sub, k52, i2);
        let sh = e.zext(sh);
        let pair = e.bin(Bin::LShr, m, sh);
        let pair = e.bink(Bin::And, pair, 3);
        step(e, s[0], s[1], Some(pair))
    });
    let out = e.repeat(29, &high, |e, _, s| step(e, s[0], s[1], None));
    let (rem, root) = (out[0], out[1]);
    let z = e.k64(0);
    let inexact = e.cmp(Cmp::Ne, rem, z);
    let st = e.b2i(inexact, Ty::I64);
    let q2 = e.bink(Bin::Shl, root, 1);
    let sig = e.bin(Bin::Or, q2, st);
    // sqrt(m * 2^58) * 2^((ex - 58) / 2), one bit down for the sticky bit.
    let k58 = e.k32(58);
    let h = e.bin(Bin::Sub, ex, k58);
    let h = e.bink(Bin::AShr, h, 1);
    let exp = e.bink(Bin::Sub, h, 1);
    let z32 = e.k32(0);
    round_pack(e, env, z32, sig, exp)
}

/// `v_cubeid_f32` (`k` 0), `v_cubesc_f32` (1), `v_cubetc_f32` (2) and `v_cubema_f32` (3) on f32 sources with
/// their modifiers, as the model's (rule `cube.ops`): the major axis is z when |z| >= |x| and |z| >= |y|, else y
/// when |y| >= |x|, else x (a comparison with a NaN fails); the face index counts a negative non-zero axis
/// value (a NaN by its sign) as the face after the positive one; the coordinates pick and negate sources by
/// the signs of the axis values as floats (below zero: not a NaN, not a zero), a NaN result quieted only under
/// IEEE_MODE; `v_cubema` doubles the axis value as `v_mul_f32` would, a NaN passed as the others.
pub fn cube<L: Lower>(e: &mut L, env: &Env<L::V>, k: u32, x: L::V, y: L::V, z: L::V) -> L::V {
    let f = env.fmt;
    let mag = |e: &mut L, v: L::V| e.bink(Bin::And, v, 0x7fff_ffff);
    let (ax, ay, az) = (mag(e, x), mag(e, y), mag(e, z));
    let ge = |e: &mut L, a: L::V, b: L::V| {
        let na = is_nan(e, f, a);
        let nb = is_nan(e, f, b);
        let any = e.bor(na, nb);
        let ok = e.bnot(any);
        let c = e.cmp(Cmp::UGe, a, b);
        e.band(ok, c)
    };
    let zx = ge(e, az, ax);
    let zy = ge(e, az, ay);
    let on_z = e.band(zx, zy);
    let yx = ge(e, ay, ax);
    let not_z = e.bnot(on_z);
    let on_y = e.band(not_z, yx);
    let z32 = e.k32(0);
    // Below zero as a float, and (for the face index) a set sign on a non-zero magnitude.
    let below = |e: &mut L, v: L::V, m: L::V| {
        let s = e.bink(Bin::LShr, v, 31);
        let s = e.nz(s);
        let nz = e.cmp(Cmp::Ne, m, z32);
        let nan = is_nan(e, f, v);
        let ok = e.bnot(nan);
        let neg = e.band(s, nz);
        (neg, e.band(neg, ok))
    };
    let (sx, bx) = below(e, x, ax);
    let (sy, by) = below(e, y, ay);
    let (sz, bz) = below(e, z, az);
    let flip = |e: &mut L, v: L::V| e.bink(Bin::Xor, v, 0x8000_0000);
    let quiet = |e: &mut L, r: L::V| {
        let nan = is_nan(e, f, r);
        let q = e.bink(Bin::Or, r, f.quiet());
        let q = e.select(nan, q, r);
        e.select(env.ieee, q, r)
    };
    match k {
        0 => {
            let face = |e: &mut L, base: u32, neg: L::V| {
                let a = e.k32((base as f32).to_bits());
                let b = e.k32((base as f32 + 1.0).to_bits());
                e.select(neg, b, a)
            };
            let fz = face(e, 4, sz);
            let fy = face(e, 2, sy);
            let fx = face(e, 0, sx);
            let r = e.select(on_y, fy, fx);
            e.select(on_z, fz, r)
        }
        1 => {
            let nx = flip(e, x);
            let nz = flip(e, z);
            let rz = e.select(bz, nx, x);
            let rx = e.select(bx, z, nz);
            let r = e.select(on_y, x, rx);
            let r = e.select(on_z, rz, r);
            quiet(e, r)
        }
        2 => {
            let nz = flip(e, z);
            let ny = flip(e, y);
            let ry = e.select(by, nz, z);
            let r = e.select(on_y, ry, ny);
            quiet(e, r)
        }
        _ => {
            let m = e.select(on_y, y, x);
            let m = e.select(on_z, z, m);
            let nan = is_nan(e, f, m);
            let q = quiet(e, m);
            let two = e.k32(0x4000_0000);
            let p = mul(e, env, two, m);
            e.select(nan, q, p)
        }
    }
}

/// `v_cvt_pk_u8_f32`: `x` (flushed by the input field) rounded to an integer in the mode's direction and
/// saturated to 0..=255 (a NaN 0), written into byte `sel[1:0]` of `acc` (the model's `cvt_pk_u8_f32`, rule
/// `cvt.pk_u8`).
pub fn cvt_pk_u8<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, sel: L::V, acc: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let u = unpack(e, env, x);
    let neg = e.nz(u.sign);
    let m = e.zext(u.sig);
    let z32 = e.k32(0);
    let whole = e.cmp(Cmp::SGe, u.exp, z32);
    // A whole number: 255 or more once shifted by 8 or more (m is non-zero unless the value is zero).
    let k8 = e.k32(8);
    let big = e.cmp(Cmp::SGe, u.exp, k8);
    let el = e.bink(Bin::And, u.exp, 7);
    let elw = e.zext(el);
    let shifted = e.bin(Bin::Shl, m, elw);
    let shifted = e.select(big, m, shifted);
    let k255 = e.k64(255);
    let z64 = e.k64(0);
    let m_nz = e.cmp(Cmp::Ne, m, z64);
    let big = e.band(big, m_nz);
    let w = e.select(big, k255, shifted);
    // A fraction: rounded in the mode's direction with the value's sign.
    let sh = e.bin(Bin::Sub, z32, u.exp);
    let q = shr_round(e, env.rm, u.sign, m, sh);
    let v = e.select(whole, w, q);
    let v = e.bin(Bin::UMin, v, k255);
    let inf = e.select(neg, z64, k255);
    let v = e.select(u.inf, inf, v);
    let v = e.select(neg, z64, v);
    let v = e.select(nan, z64, v);
    let v = e.trunc(v);
    let s = e.bink(Bin::And, sel, 3);
    let s = e.bink(Bin::Shl, s, 3);
    let byte = e.k32(0xff);
    let mask = e.bin(Bin::Shl, byte, s);
    let keep = e.un(Un::Not, mask);
    let kept = e.bin(Bin::And, acc, keep);
    let placed = e.bin(Bin::Shl, v, s);
    e.bin(Bin::Or, kept, placed)
}

/// `v_mullit_f32` as the model computes it (`reference_model::float::mullit_f32`, rules `mullit.lighting`,
/// `mullit.zero_factor`): the largest negative finite value when `b` is that value, -inf or a NaN, or `c` is
/// a NaN, a zero, -inf or negative (both read flushed by the f32 input field); else +0 for a zero factor, else
/// the product as `v_mul_f32` rounds it. Returns (result, refused): the model refuses a lane whose factors
/// are then infinite or NaN, or whose product overflows (the guides' "alternate INF, NAN, overflow rules" are
/// undefined), and so must the caller.
pub fn mullit<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, c: L::V) -> (L::V, L::V) {
    let f = env.fmt;
    const NEG_MAX: u64 = 0xff7f_ffff;
    let na = is_nan(e, f, a);
    let nb = is_nan(e, f, b);
    let nc = is_nan(e, f, c);
    let ua = unpack(e, env, a);
    let ub = unpack(e, env, b);
    let uc = unpack(e, env, c);
    let kneg = kf(e, f, NEG_MAX);
    let b_max = e.cmp(Cmp::Eq, b, kneg);
    let b_neg = e.nz(ub.sign);
    let b_ninf = e.band(ub.inf, b_neg);
    let b_fails = e.bor(b_max, b_ninf);
    let b_fails = e.bor(b_fails, nb);
    let c_neg = e.nz(uc.sign);
    let c_fails = e.bor(nc, uc.zero);
    let c_fails = e.bor(c_fails, c_neg);
    let fails = e.bor(b_fails, c_fails);
    let zero = e.bor(ua.zero, ub.zero);
    let special = e.bor(ua.inf, ub.inf);
    let special = e.bor(special, na);
    // Overflow of the exact product P * 2^E in the mode's direction (the model's `round_pack` flag): its top
    // bit at 2^128 or above always; at 2^127 when the value reaches the rounding threshold below 2^128.
    let ma = e.zext(ua.sig);
    let mb = e.zext(ub.sig);
    let p = e.bin(Bin::Mul, ma, mb);
    let ex = e.bin(Bin::Add, ua.exp, ub.exp);
    let msb = e.un(Un::FindMsb, p);
    let top = e.bin(Bin::Add, ex, msb);
    let k128 = e.k32(128);
    let k127 = e.k32(127);
    let over_top = e.cmp(Cmp::SGe, top, k128);
    let at127 = e.cmp(Cmp::Eq, top, k127);
    let k63 = e.k32(63);
    let sh = e.bin(Bin::Sub, k63, msb);
    let sh = e.bink(Bin::And, sh, 63);
    let shw = e.zext(sh);
    let pn = e.bin(Bin::Shl, p, shw); // msb at bit 63, the value pn * 2^64 at exponent 127
    let sx = e.bin(Bin::Xor, ua.sign, ub.sign);
    let neg = e.nz(sx);
    let rm = env.rm;
    let is = |e: &mut L, k: u32| {
        let kv = e.k32(k);
        e.cmp(Cmp::Eq, rm, kv)
    };
    let (r0, r1, r2) = (is(e, 0), is(e, 1), is(e, 2));
    let pos = e.bnot(neg);
    let up_pos = e.band(r1, pos);
    let up_neg = e.band(r2, neg);
    let away = e.bor(up_pos, up_neg);
    // Thresholds of the value / 2^64 at exponent 127: above the largest finite (rounding away from zero), the
    // midpoint above it (nearest even); toward zero nothing below 2^128 overflows.
    let t_away = e.k64(0x00ff_ffff << 40);
    let t_near = e.k64(0u64.wrapping_sub(1 << 39));
    let ge_away = e.cmp(Cmp::UGt, pn, t_away);
    let ge_near = e.cmp(Cmp::UGe, pn, t_near);
    let no = e.kbool(false);
    let at_over = e.select(r0, ge_near, no);
    let at_over = e.select(away, ge_away, at_over);
    let at_over = e.band(at127, at_over);
    let over = e.bor(over_top, at_over);
    let prod = mul(e, env, a, b);
    let z = kf(e, f, 0);
    let r = e.select(zero, z, prod);
    let r = e.select(fails, kneg, r);
    let finite_bad = e.bor(special, over);
    let not_zero = e.bnot(zero);
    let refused = e.band(finite_bad, not_zero);
    let ok = e.bnot(fails);
    let refused = e.band(refused, ok);
    (r, refused)
}

/// The first 1184 fraction bits of 2/pi, most significant first: the model's table (`reference_model::float`,
/// `TWO_OVER_PI`, equal to LLVM's constant folder's word for word).
const TWO_OVER_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];

/// `v_trig_preop_f64` as the model computes it (`reference_model::float::trig_preop_f64`, rule `trig.preop`):
/// 53 bits of 2/pi from bit `53 * seg[4:0]` (plus `E - 1077` past a biased exponent `E` of 1077), scaled by
/// `2^(-53 - shift)` (`2^(75 - shift)` from `E` = 1968), truncated and flushed by the f64 denormal field; +0
/// past the table. Returns (result, refused): the model refuses a NaN `x` (the guide and LLVM disagree), and so
/// must the caller.
pub fn trig_preop<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, seg: L::V) -> (L::V, L::V) {
    let f = env.fmt;
    debug_assert!(f.wide());
    let nan = is_nan(e, f, x);
    let ef = e.field(x, f.man, f.exp);
    let ef = e.trunc(ef);
    let s5 = e.bink(Bin::And, seg, 31);
    let shift = e.bink(Bin::Mul, s5, 53);
    let k1077 = e.k32(1077);
    let past = e.cmp(Cmp::UGt, ef, k1077);
    let extra = e.bin(Bin::Sub, ef, k1077);
    let z32 = e.k32(0);
    let extra = e.select(past, extra, z32);
    let shift = e.bin(Bin::Add, shift, extra);
    let word = e.bink(Bin::LShr, shift, 5);
    let r = e.bink(Bin::And, shift, 31);
    // The 96-bit window of words word .. word + 2 (a select per table position), as hi64 and lo32.
    let mut hi = e.k64(0);
    let mut lo = e.k64(0);
    for w in 0..TWO_OVER_PI.len() - 2 {
        let kw = e.k32(w as u32);
        let is = e.cmp(Cmp::Eq, word, kw);
        let h = e.k64((TWO_OVER_PI[w] as u64) << 32 | TWO_OVER_PI[w + 1] as u64);
        let l = e.k64(TWO_OVER_PI[w + 2] as u64);
        hi = e.select(is, h, hi);
        lo = e.select(is, l, lo);
    }
    let kmax = e.k32(TWO_OVER_PI.len() as u32 - 2);
    let inside = e.cmp(Cmp::ULt, word, kmax);
    // bits = (window >> (43 - r)) & (2^53 - 1), s = 43 - r in 12..=43.
    let k43 = e.k32(43);
    let sft = e.bin(Bin::Sub, k43, r);
    let k32 = e.k32(32);
    let small = e.cmp(Cmp::ULe, sft, k32);
    let up = e.bin(Bin::Sub, k32, sft);
    let up = e.bink(Bin::And, up, 63);
    let upw = e.zext(up);
    let sw = e.bink(Bin::And, sft, 63);
    let sww = e.zext(sw);
    let a1 = e.bin(Bin::Shl, hi, upw);
    let a2 = e.bin(Bin::LShr, lo, sww);
    let near = e.bin(Bin::Or, a1, a2);
    let down = e.bin(Bin::Sub, sft, k32);
    let down = e.bink(Bin::And, down, 63);
    let downw = e.zext(down);
    let far = e.bin(Bin::LShr, hi, downw);
    let bits = e.select(small, near, far);
    let bits = e.bink(Bin::And, bits, (1u64 << 53) - 1);
    // k = -53 - shift, + 128 from E = 1968.
    let km53 = e.k32(-53i32 as u32);
    let k = e.bin(Bin::Sub, km53, shift);
    let k1968 = e.k32(1968);
    let big = e.cmp(Cmp::UGe, ef, k1968);
    let k128 = e.bink(Bin::Add, k, 128);
    let k = e.select(big, k128, k);
    let rtz = Env {
        rm: e.k32(3),
        ..*env
    };
    let z64 = e.k64(0);
    let nz = e.cmp(Cmp::Ne, bits, z64);
    let one = e.k64(1 << 52);
    let safe = e.select(nz, bits, one);
    let packed = round_pack(e, &rtz, z32, safe, k);
    let ok = e.band(nz, inside);
    let r = e.select(ok, packed, z64);
    (r, nan)
}

/// The index of the top bit of a finite operand's significand (0 for zeros and infinities, whose
/// significand is 0).
fn sig_msb<L: Lower>(e: &mut L, u: &Unpacked<L::V>) -> L::V {
    let msb = e.un(Un::FindMsb, u.sig);
    let z = e.k32(0);
    let zs = e.zero_like(u.sig);
    let none = e.cmp(Cmp::Eq, u.sig, zs);
    e.select(none, z, msb)
}

/// `v_frexp_mant`: the significand scaled into [0.5, 1) with the sign kept (exact, so no rounding); zeros
/// (flushed denormals included) and infinities are returned as they are, a NaN as [`unary_nan`] (rules
/// `frexp.special`, the format's input flush).
pub fn frexp_mant<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let msb = sig_msb(e, &u);
    // A denormal's significand moves up to the implicit bit; a normal one is already there.
    let kman = e.k32(f.man);
    let sh = e.bin(Bin::Sub, kman, msb);
    let sh = ext(e, f, sh);
    let m = e.bin(Bin::Shl, u.sig, sh);
    let frac = e.bink(Bin::And, m, f.man_mask());
    let sw = ext(e, f, u.sign);
    let s = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let half = e.bink(Bin::Or, s, ((f.bias() as u64) - 1) << f.man);
    let r = e.bin(Bin::Or, half, frac);
    let r = e.select(u.zero, s, r);
    let r = e.select(u.inf, x, r);
    e.select(nan, nan_r, r)
}

/// `v_frexp_exp_i32_f32` and `v_frexp_exp_i16_f16` (the caller keeps the low half): `e` with
/// `x = m * 2^e`, `m` in [0.5, 1); 0 for zeros, flushed denormals, infinities and NaNs (rule
/// `frexp.special`).
pub fn frexp_exp<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V) -> L::V {
    let nan = is_nan(e, env.fmt, x);
    let u = unpack(e, env, x);
    let msb = sig_msb(e, &u);
    let r = e.bin(Bin::Add, u.exp, msb);
    let r = e.bink(Bin::Add, r, 1);
    let special = e.bor(u.zero, u.inf);
    let special = e.bor(special, nan);
    let z = e.k32(0);
    e.select(special, z, r)
}

/// `v_ldexp`: `x * 2^n` (`n` a two's-complement i32) rounded once in the mode's direction, denormal inputs
/// and results by the format's field (rules `ldexp.rounding`, `ldexp.f16_denorm`); a NaN as [`unary_nan`].
/// `n` is clamped to +-20,000 first, as the model clamps the exponent: far beyond any format's range, so
/// the clamp changes no result and the exponent sum cannot wrap. f16 results take FP16_OVFL from the
/// caller ([`ovfl16`], source `x`).
pub fn ldexp<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, n: L::V) -> L::V {
    let f = env.fmt;
    let nan = is_nan(e, f, x);
    let nan_r = unary_nan(e, env, x);
    let u = unpack(e, env, x);
    let n = e.bink(Bin::SMin, n, 20_000);
    let n = e.bink(Bin::SMax, n, (-20_000i32) as u32 as u64);
    let exp = e.bin(Bin::Add, u.exp, n);
    let m = sig64(e, f, u.sig);
    let special = e.bor(u.zero, u.inf);
    let one = e.k64(1);
    let m = e.select(special, one, m);
    let rounded = round_pack(e, env, u.sign, m, exp);
    let sw = ext(e, f, u.sign);
    let s = e.bink(Bin::Shl, sw, f.sign_bit() as u64);
    let inf = e.bink(Bin::Or, s, f.exp_mask());
    let r = e.select(u.zero, s, rounded);
    let r = e.select(u.inf, inf, r);
    e.select(nan, nan_r, r)
}

/// `v_cvt_i16_f16` (`signed`) and `v_cvt_u16_f16`: toward zero, saturating to the 16-bit range, a NaN gives
/// 0, the input flushed by the f16 field (rules `cvt.float_to_int`, `f16.denorm.unary`); the 16-bit result
/// in the low half.
pub fn to_int16<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, signed: bool) -> L::V {
    let nan = is_nan(e, env.fmt, x);
    let u = unpack(e, env, x);
    let z = e.k32(0);
    // An f16 magnitude is below 2^16: the 64-bit integer part fits 32 bits.
    let m = e.zext(u.sig);
    let (mag, _, _) = int_part(e, m, u.exp);
    let mag = e.trunc(mag);
    let neg = e.nz(u.sign);
    let (lo, hi) = if signed {
        (0x8000u32, 0x7fffu32)
    } else {
        (0, 0xffff)
    };
    let khi = e.k32(hi);
    let over = e.cmp(Cmp::UGt, mag, khi);
    let over = e.bor(over, u.inf);
    let pos = e.select(over, khi, mag);
    let neg_r = if signed {
        let klo = e.k32(lo);
        let over_n = e.cmp(Cmp::UGt, mag, klo);
        let over_n = e.bor(over_n, u.inf);
        let n = e.bin(Bin::Sub, z, mag);
        let n = e.bink(Bin::And, n, 0xffff);
        e.select(over_n, klo, n)
    } else {
        z
    };
    let r = e.select(neg, neg_r, pos);
    e.select(nan, z, r)
}

/// The normalized 16-bit code of `x` (f32 or f16 by the environment, modifiers applied): the model's `norm_num`
/// (rules `cvt.pknorm`, `cvt.norm_f16`): the input flushed by the format's denormal field, the exact value
/// times 32767 (`signed`) or 65535 rounded to nearest even on its magnitude, then clamped to [-32767, 32767]
/// or [0, 65535]; infinities saturate, a NaN gives 0. The code in the low 16 bits.
pub fn norm16<L: Lower>(e: &mut L, env: &Env<L::V>, x: L::V, signed: bool) -> L::V {
    let nan = is_nan(e, env.fmt, x);
    let u = unpack(e, env, x);
    let z = e.k32(0);
    let k: u64 = if signed { 32767 } else { 65535 };
    let m = e.zext(u.sig);
    let m = e.bink(Bin::Mul, m, k);
    // An exponent of 0 or more is a magnitude of 2^23 or more: saturated like an infinity.
    let big = e.cmp(Cmp::SGe, u.exp, z);
    let big = e.bor(big, u.inf);
    let sh = e.bin(Bin::Sub, z, u.exp);
    let q = shr_round(e, z, u.sign, m, sh);
    let kk = e.k64(k);
    let over = e.cmp(Cmp::UGt, q, kk);
    let over = e.bor(over, big);
    let q = e.select(over, kk, q);
    let q = e.trunc(q);
    let neg = e.nz(u.sign);
    let r = if signed {
        let n = e.bin(Bin::Sub, z, q);
        let n = e.bink(Bin::And, n, 0xffff);
        e.select(neg, n, q)
    } else {
        e.select(neg, z, q)
    };
    e.select(nan, z, r)
}

/// `v_cmp_<cond>` on two floats of the environment's format (modifiers already applied): the operands
/// flushed by the denormal field, compared in sign-magnitude order with both zeros equal, a NaN unordered
/// (rule `cmp.denorm_inputs`); the conditions are the model's.
pub fn compare<L: Lower>(e: &mut L, env: &Env<L::V>, cond: Cmp16, a: L::V, b: L::V) -> L::V {
    let f = env.fmt;
    let a = flush_in(e, env, a);
    let b = flush_in(e, env, b);
    let na = is_nan(e, f, a);
    let nb = is_nan(e, f, b);
    let unordered = e.bor(na, nb);
    let ordered = e.bnot(unordered);
    let z = kf(e, f, 0);
    let ma = e.bink(Bin::And, a, f.mag_mask());
    let mb = e.bink(Bin::And, b, f.mag_mask());
    let za = e.cmp(Cmp::Eq, ma, z);
    let zb = e.cmp(Cmp::Eq, mb, z);
    let zeros = e.band(za, zb);
    let same = e.cmp(Cmp::Eq, a, b);
    let eq = e.bor(zeros, same);
    let ka = order_key(e, f, a);
    let kb = order_key(e, f, b);
    let less = e.cmp(Cmp::SLt, ka, kb);
    let not_zeros = e.bnot(zeros);
    let lt = e.band(less, not_zeros);
    let not_lt = e.bnot(lt);
    let not_eq = e.bnot(eq);
    let gt = e.band(not_lt, not_eq);
    let (lt, eq, gt) = (
        e.band(lt, ordered),
        e.band(eq, ordered),
        e.band(gt, ordered),
    );
    let no = e.kbool(false);
    let yes = e.kbool(true);
    match cond {
        Cmp16::F => no,
        Cmp16::Lt => lt,
        Cmp16::Eq => eq,
        Cmp16::Le => e.bor(lt, eq),
        Cmp16::Gt => gt,
        Cmp16::Lg => e.bor(lt, gt),
        Cmp16::Ge => e.bor(gt, eq),
        Cmp16::O => ordered,
        Cmp16::U => unordered,
        Cmp16::Nge => {
            let x = e.bor(gt, eq);
            e.bnot(x)
        }
        Cmp16::Nlg => {
            let x = e.bor(lt, gt);
            e.bnot(x)
        }
        Cmp16::Ngt => e.bnot(gt),
        Cmp16::Nle => {
            let x = e.bor(lt, eq);
            e.bnot(x)
        }
        Cmp16::Neq => e.bnot(eq),
        Cmp16::Nlt => e.bnot(lt),
        Cmp16::Tru => yes,
    }
}

// ---------------------------------------------------------------------------------------------------------
// f16 sources in f32 arithmetic: v_cvt_f32_f16 and the mixed-precision FMAs (VOP3P).

/// f16 bits `h` (low half) as f32 bits, exactly: a denormal becomes the f32 normal of its value, an infinity
/// the f32 infinity, a NaN keeps its sign and quiet bit with the payload moved to the top of the f32 fraction
/// (the model's `widen16`). No flush: callers flush by the field that applies first.
pub fn widen16<L: Lower>(e: &mut L, h: L::V) -> L::V {
    let s = e.bink(Bin::And, h, 0x8000);
    let s = e.bink(Bin::Shl, s, 16);
    let mag = e.bink(Bin::And, h, 0x7fff);
    let m = e.bink(Bin::And, h, 0x3ff);
    let ef = e.field(h, 10, 5);
    let z = e.k32(0);
    // Normal: the exponent rebased by 127 - 15.
    let n = e.bink(Bin::Shl, mag, 13);
    let normal = e.bink(Bin::Add, n, 112 << 23);
    // Infinity and NaN: the top exponent, the fraction moved up.
    let mm = e.bink(Bin::Shl, m, 13);
    let special = e.bink(Bin::Or, mm, 0x7f80_0000);
    // Denormal m * 2^-24: the msb p (0..=9) becomes the implicit bit, the exponent field p - 24 + 127.
    let m0 = e.cmp(Cmp::Eq, m, z);
    let one = e.k32(1);
    let ms = e.select(m0, one, m);
    let p = e.un(Un::FindMsb, ms);
    let k23 = e.k32(23);
    let sh = e.bin(Bin::Sub, k23, p);
    let frac = e.bin(Bin::Shl, ms, sh);
    let frac = e.bink(Bin::And, frac, 0x7f_ffff);
    let ex = e.bink(Bin::Add, p, 103);
    let ex = e.bink(Bin::Shl, ex, 23);
    let den = e.bin(Bin::Or, ex, frac);
    let den = e.select(m0, z, den);
    let e0 = e.cmp(Cmp::Eq, ef, z);
    let k31 = e.k32(31);
    let emax = e.cmp(Cmp::Eq, ef, k31);
    let r = e.select(e0, den, normal);
    let r = e.select(emax, special, r);
    e.bin(Bin::Or, s, r)
}

/// `v_cvt_f32_f16`: the f16 source flushed by the f16 input field, a NaN quieted only under IEEE_MODE, then
/// widened exactly (the model's `cvt_f32_f16`; `e16` is the f16 environment).
pub fn cvt_f32_f16<L: Lower>(e: &mut L, e16: &Env<L::V>, h: L::V) -> L::V {
    let h = flush_in(e, e16, h);
    let nan = is_nan(e, F16, h);
    let q = unary_nan(e, e16, h);
    let h = e.select(nan, q, h);
    widen16(e, h)
}

/// One source of `v_fma_mix*` as f32 bits: an f16 half (`f16`; already selected and with its modifiers)
/// flushed by the f16 input field and widened, or the f32 value as it is (rule `mix.f16_source_denorm`,
/// inferred).
pub fn mix_source<L: Lower>(e: &mut L, e16: &Env<L::V>, x: L::V, f16: bool) -> L::V {
    if f16 {
        let h = flush_in(e, e16, x);
        widen16(e, h)
    } else {
        x
    }
}

/// `v_fma_mixlo_f16` / `v_fma_mixhi_f16` on sources already made f32 by [`mix_source`] (`from16[i]`: source
/// `i` was an f16 half): the exact `a * b + c` rounded once to f16 in the f16 round field and result field,
/// the model's `fma_mixlo_f16`. f32 sources are flushed by the f32 input field, the product is never
/// flushed (rule `mix.lo_hi_rounding`); a NaN among `a`, `b`, then inf * 0 (the f16 default NaN), then a NaN
/// `c` decide first, a NaN always quiet with its payload's top bits (`nan.mix_lo_hi_quiet`); FP16_OVFL
/// against f32 infinite sources (`f16.fp16_ovfl`).
pub fn fma_mix_f16<L: Lower>(
    e: &mut L,
    e32: &Env<L::V>,
    e16: &Env<L::V>,
    s: [L::V; 3],
    from16: [bool; 3],
) -> L::V {
    let [a, b, c] = s;
    let load = |e: &mut L, x: L::V, f16: bool| {
        let env = Env {
            keep_in: if f16 { e.kbool(true) } else { e32.keep_in },
            ..*e32
        };
        unpack(e, &env, x)
    };
    let x = load(e, a, from16[0]);
    let y = load(e, b, from16[1]);
    let w = load(e, c, from16[2]);
    let narrow = |e: &mut L, v: L::V| {
        let hi = e.bink(Bin::LShr, v, 16);
        let hi = e.bink(Bin::And, hi, 0x8000);
        let pay = e.bink(Bin::LShr, v, 13);
        let pay = e.bink(Bin::And, pay, 0x3ff);
        let q = e.bink(Bin::Or, hi, 0x7e00);
        e.bin(Bin::Or, q, pay)
    };
    let na = is_nan(e, F32, a);
    let nb = is_nan(e, F32, b);
    let nan_ab = e.bor(na, nb);
    let first = e.select(na, a, b);
    let nan1 = narrow(e, first);
    let nan_c = is_nan(e, F32, c);
    let nan2 = narrow(e, c);
    let psign = e.bin(Bin::Xor, x.sign, y.sign);
    let p_inf = e.bor(x.inf, y.inf);
    let p_zero = e.bor(x.zero, y.zero);
    let invalid = e.band(p_inf, p_zero);
    let any_inf = e.bor(p_inf, w.inf);
    let inf = inf_sum(e, F16, p_inf, psign, w.inf, w.sign);
    let mx = e.zext(x.sig);
    let my = e.zext(y.sig);
    let p = e.bin(Bin::Mul, mx, my);
    let pe = e.bin(Bin::Add, x.exp, y.exp);
    let mz = e.zext(w.sig);
    let (sg, m, exp) = exact_sum(e, (psign, p, pe), (w.sign, mz, w.exp));
    let z64 = e.k64(0);
    let m_zero = e.cmp(Cmp::Eq, m, z64);
    let one = e.k64(1);
    let m_safe = e.select(m_zero, one, m);
    let rounded = round_pack(e, e16, sg, m_safe, exp);
    let zero = zero_sum(e, e16, p_zero, psign, w.zero, w.sign);
    let r = e.select(m_zero, zero, rounded);
    let r = e.select(any_inf, inf, r);
    // FP16_OVFL looks at the sources' f32 infinities.
    let src_inf = |e: &mut L, v: L::V, u: &Unpacked<L::V>| {
        let nan = is_nan(e, F32, v);
        let not_nan = e.bnot(nan);
        let i = e.band(u.inf, not_nan);
        let k = e.k32(0x7c00);
        let z = e.k32(0);
        e.select(i, k, z)
    };
    let ia = src_inf(e, a, &x);
    let ib = src_inf(e, b, &y);
    let ic = src_inf(e, c, &w);
    let r = ovfl16(e, e16, r, &[ia, ib, ic]);
    let r = e.select(nan_c, nan2, r);
    let dnan = e.k32(F16.default_nan() as u32);
    let r = e.select(invalid, dnan, r);
    e.select(nan_ab, nan1, r)
}

// ---------------------------------------------------------------------------------------------------------
// LDS float atomics.

/// The new memory value of `ds_min_f32` / `ds_max_f32` (`max`) from `old` and `data`, the model's
/// `lds_minmax` (rule `lds.float_minmax`, seed 003): both flushed by the f32 input field; a signalling-NaN
/// data is stored quieted, else a signalling-NaN old value quieted, else a quiet-NaN old value gives the
/// data, a quiet-NaN data the old value, else the order with -0 below +0; IEEE_MODE plays no part.
pub fn lds_minmax<L: Lower>(e: &mut L, env: &Env<L::V>, old: L::V, data: L::V, max: bool) -> L::V {
    let f = env.fmt;
    let o = flush_in(e, env, old);
    let d = flush_in(e, env, data);
    let z = kf(e, f, 0);
    let nan_quiet = |e: &mut L, x: L::V| {
        let n = is_nan(e, f, x);
        let q = e.bink(Bin::And, x, f.quiet());
        let q = e.cmp(Cmp::Ne, q, z);
        let qn = e.band(n, q);
        let nq = e.bnot(q);
        (qn, e.band(n, nq))
    };
    let (oq, os) = nan_quiet(e, o);
    let (dq, ds) = nan_quiet(e, d);
    let ko = order_key(e, f, o);
    let kd = order_key(e, f, d);
    let less = e.cmp(Cmp::SLt, ko, kd);
    // The old value stays when it is below the data (min) or not below it (max); equal keys are equal bits.
    let keep = if max { e.bnot(less) } else { less };
    let keep = e.bor(keep, dq);
    let r = e.select(keep, o, d);
    let r = e.select(oq, d, r);
    let qo = e.bink(Bin::Or, o, f.quiet());
    let r = e.select(os, qo, r);
    let qd = e.bink(Bin::Or, d, f.quiet());
    e.select(ds, qd, r)
}

/// The new memory value of `ds_cmpst_f32` (`cmp` = DATA0, `src` = DATA1), the model's `lds_cmpst` (rule
/// `lds.float_cmpst`, seed 003): `src` as given when the flushed old value and the flushed `cmp` are equal
/// as floats (both zeros equal, a NaN never), else `old` unchanged.
pub fn lds_cmpst<L: Lower>(e: &mut L, env: &Env<L::V>, old: L::V, cmp: L::V, src: L::V) -> L::V {
    let f = env.fmt;
    let o = flush_in(e, env, old);
    let c = flush_in(e, env, cmp);
    let no = is_nan(e, f, o);
    let nc = is_nan(e, f, c);
    let same = e.cmp(Cmp::Eq, o, c);
    let mo = e.bink(Bin::And, o, f.mag_mask());
    let mc = e.bink(Bin::And, c, f.mag_mask());
    let m = e.bin(Bin::Or, mo, mc);
    let z = kf(e, f, 0);
    let zeros = e.cmp(Cmp::Eq, m, z);
    let eq = e.bor(same, zeros);
    let nan = e.bor(no, nc);
    let not_nan = e.bnot(nan);
    let eq = e.band(eq, not_nan);
    e.select(eq, src, old)
}

// ---------------------------------------------------------------------------------------------------------
// f64: the engine above with `F64` (values in 64-bit integers), and the two operations whose exact
// intermediate needs more than 64 bits.

/// `v_cvt_f64_f32`: exact widening of the f32 input flushed by the f32 field (`e32`); a NaN keeps its payload
/// (moved to the top of the f64 fraction) and is quieted only under IEEE_MODE (rule `nan.cvt_f64_f32`). The
/// model's `cvt_f64_f32`.
pub fn cvt_f64_f32<L: Lower>(e: &mut L, e32: &Env<L::V>, x: L::V) -> L::V {
    let nan = is_nan(e, F32, x);
    let q = unary_nan(e, e32, x);
    let u = unpack(e, e32, x);
    let env = Env {
        fmt: F64,
        rm: e.k32(0),
        keep_in: e.kbool(true),
        keep_out: e.kbool(true),
        ..*e32
    };
    let m = e.zext(u.sig);
    let special = e.bor(u.zero, u.inf);
    let one = e.k64(1);
    let m = e.select(special, one, m);
    let r = round_pack(e, &env, u.sign, m, u.exp);
    let sw = e.zext(u.sign);
    let s = e.bink(Bin::Shl, sw, 63);
    let inf = e.bink(Bin::Or, s, F64.exp_mask());
    let r = e.select(u.zero, s, r);
    let r = e.select(u.inf, inf, r);
    let qs = e.bink(Bin::LShr, q, 31);
    let qs = e.zext(qs);
    let qs = e.bink(Bin::Shl, qs, 63);
    let qm = e.bink(Bin::And, q, F32.man_mask());
    let qm = e.zext(qm);
    let qm = e.bink(Bin::Shl, qm, 29);
    let n = e.bin(Bin::Or, qs, qm);
    let n = e.bink(Bin::Or, n, F64.exp_mask());
    e.select(nan, n, r)
}

/// `v_cvt_f32_f64`: the f64 input flushed by the f64 field (`e64`), rounded in the f32 round field and
/// result field (`e32`); a NaN is always quiet with the top 23 payload bits (the model's `cvt_f32_f64`).
pub fn cvt_f32_f64<L: Lower>(e: &mut L, e32: &Env<L::V>, e64: &Env<L::V>, x: L::V) -> L::V {
    let nan = is_nan(e, F64, x);
    let u = unpack(e, e64, x);
    let special = e.bor(u.zero, u.inf);
    let one = e.k64(1);
    let m = e.select(special, one, u.sig);
    let r = round_pack(e, e32, u.sign, m, u.exp);
    let s = e.bink(Bin::Shl, u.sign, 31);
    let inf = e.bink(Bin::Or, s, 0x7f80_0000);
    let r = e.select(u.zero, s, r);
    let r = e.select(u.inf, inf, r);
    let top = e.hi(x);
    let sn = e.bink(Bin::And, top, 0x8000_0000);
    let pay = e.bink(Bin::LShr, x, 29);
    let pay = e.trunc(pay);
    let pay = e.bink(Bin::And, pay, 0x7f_ffff);
    let n = e.bin(Bin::Or, sn, pay);
    let n = e.bink(Bin::Or, n, 0x7fc0_0000);
    e.select(nan, n, r)
}

/// 128-bit significand arithmetic in pairs of u64 (`hi`, `lo`) for the f64 product.
mod wide {
    use super::{low_bits, Bin, Cmp, Lower, Ty, Un};

    /// `(sig, exp)` with a non-zero 53-bit-or-less significand moved up to bit 52 (a zero stays zero).
    fn normalize53<L: Lower>(e: &mut L, sig: L::V, exp: L::V) -> (L::V, L::V) {
        let msb = e.un(Un::FindMsb, sig);
        let k52 = e.k32(52);
        let sh = e.bin(Bin::Sub, k52, msb);
        let sh = e.bink(Bin::And, sh, 63);
        let shw = e.zext(sh);
        let s = e.bin(Bin::Shl, sig, shw);
        let x = e.bin(Bin::Sub, exp, sh);
        (s, x)
    }

    /// The exact 106-bit product of two significands below 2^53.
    fn product<L: Lower>(e: &mut L, a: L::V, b: L::V) -> (L::V, L::V) {
        let lo32 = |e: &mut L, v: L::V| e.bink(Bin::And, v, 0xffff_ffff);
        let (al, bl) = (lo32(e, a), lo32(e, b));
        let ah = e.bink(Bin::LShr, a, 32);
        let bh = e.bink(Bin::LShr, b, 32);
        let ll = e.bin(Bin::Mul, al, bl);
        let lh = e.bin(Bin::Mul, al, bh);
        let hl = e.bin(Bin::Mul, ah, bl);
        let hh = e.bin(Bin::Mul, ah, bh);
        // al*bh + ah*bl < 2^54: no carry out.
        let mid = e.bin(Bin::Add, lh, hl);
        let ml = e.bink(Bin::Shl, mid, 32);
        let lo = e.bin(Bin::Add, ll, ml);
        let carry = e.cmp(Cmp::ULt, lo, ll);
        let c = e.b2i(carry, Ty::I64);
        let mh = e.bink(Bin::LShr, mid, 32);
        let hi = e.bin(Bin::Add, hh, mh);
        (e.bin(Bin::Add, hi, c), lo)
    }

    /// `(hi, lo) >> d` (u32 `d`, any size) with every bit shifted out OR-ed into bit 0.
    fn shr_jam<L: Lower>(e: &mut L, hi: L::V, lo: L::V, d: L::V) -> (L::V, L::V) {
        let z = e.k64(0);
        let k64 = e.k32(64);
        let k128 = e.k32(128);
        let zero_d = e.k32(0);
        let none = e.cmp(Cmp::Eq, d, zero_d);
        let big = e.cmp(Cmp::UGe, d, k64);
        let all = e.cmp(Cmp::UGe, d, k128);
        // d in 1..=63.
        let ds = e.bink(Bin::And, d, 63);
        let dsw = e.zext(ds);
        let k = e.k32(64);
        let inv = e.bin(Bin::Sub, k, ds);
        let inv = e.bink(Bin::And, inv, 63);
        let invw = e.zext(inv);
        let lo_s = e.bin(Bin::LShr, lo, dsw);
        let hi_in = e.bin(Bin::Shl, hi, invw);
        let lo1 = e.bin(Bin::Or, lo_s, hi_in);
        let hi1 = e.bin(Bin::LShr, hi, dsw);
        let lost1 = low_bits(e, lo, dsw);
        // d in 64..=127: the high word shifted by d - 64.
        let lo2 = e.bin(Bin::LShr, hi, dsw);
        let lost_hi = low_bits(e, hi, dsw);
        let lo_nz = e.cmp(Cmp::Ne, lo, z);
        let lost2 = e.bor(lost_hi, lo_nz);
        // d >= 128: everything is lost.
        let hi_nz = e.cmp(Cmp::Ne, hi, z);
        let lost3 = e.bor(hi_nz, lo_nz);
        let lo_r = e.select(big, lo2, lo1);
        let hi_r = e.select(big, z, hi1);
        let lost = e.select(big, lost2, lost1);
        let lo_r = e.select(all, z, lo_r);
        let hi_r = e.select(all, z, hi_r);
        let lost = e.select(all, lost3, lost);
        let st = e.b2i(lost, Ty::I64);
        let lo_r = e.bin(Bin::Or, lo_r, st);
        (e.select(none, hi, hi_r), e.select(none, lo, lo_r))
    }

    /// A 128-bit value below 2^127 as a significand below 2^63 with a sticky bit, and the exponent change.
    fn compress<L: Lower>(e: &mut L, hi: L::V, lo: L::V, exp: L::V) -> (L::V, L::V) {
        let z = e.k64(0);
        let hi0 = e.cmp(Cmp::Eq, hi, z);
        let mh = e.un(Un::FindMsb, hi);
        let k64 = e.k32(64);
        let mh = e.bin(Bin::Add, mh, k64);
        let ml = e.un(Un::FindMsb, lo);
        let msb = e.select(hi0, ml, mh);
        let k62 = e.k32(62);
        let over = e.cmp(Cmp::SGt, msb, k62);
        let s = e.bin(Bin::Sub, msb, k62);
        let zero = e.k32(0);
        let s = e.select(over, s, zero);
        let (_, m) = shr_jam(e, hi, lo, s);
        (m, e.bin(Bin::Add, exp, s))
    }

    /// The significand and exponent of the exact product of two f64 significands (`sig * 2^exp` each; the
    /// result below 2^63 with a sticky bit, for `round_pack`).
    pub(super) fn mul_sig<L: Lower>(e: &mut L, a: (L::V, L::V), b: (L::V, L::V)) -> (L::V, L::V) {
        let (sa, xa) = normalize53(e, a.0, a.1);
        let (sb, xb) = normalize53(e, b.0, b.1);
        let (hi, lo) = product(e, sa, sb);
        let x = e.bin(Bin::Add, xa, xb);
        compress(e, hi, lo, x)
    }

    /// The exact `(-1)^ps * a * b + (-1)^cs * c` of f64 significands as sign, significand (below 2^63, sticky
    /// in bit 0; 0 for an exact zero) and exponent, for `round_pack`.
    ///
    /// The product (106 bits, with 20 zero bits below it) and the addend (53 bits, 72 below) both have their
    /// msb at bit 124 or 125 of a 128-bit window; the one with the smaller exponent is shifted right with a
    /// sticky bit. A bit is lost only when that one is more than 19 bits below the other, so at most one bit
    /// cancels and the sticky bit lies far below the rounding position of a 53-bit result.
    pub(super) fn fma_sum<L: Lower>(
        e: &mut L,
        a: (L::V, L::V, L::V),
        b: (L::V, L::V),
        c: (L::V, L::V, L::V),
    ) -> (L::V, L::V, L::V) {
        let (ps, sa, xa) = a;
        let (cs, sc, xc) = c;
        let (sa, xa) = normalize53(e, sa, xa);
        let (sb, xb) = normalize53(e, b.0, b.1);
        let (ph, pl) = product(e, sa, sb);
        let ph = e.bink(Bin::Shl, ph, 20);
        let pt = e.bink(Bin::LShr, pl, 44);
        let ph = e.bin(Bin::Or, ph, pt);
        let pl = e.bink(Bin::Shl, pl, 20);
        let pe = e.bin(Bin::Add, xa, xb);
        let pe = e.bink(Bin::Sub, pe, 20);
        let (sc, xc) = normalize53(e, sc, xc);
        let ch = e.bink(Bin::Shl, sc, 8);
        let cl = e.k64(0);
        let ce = e.bink(Bin::Sub, xc, 72);
        let (s, rh, rl, x) = add(e, (ps, ph, pl, pe), (cs, ch, cl, ce));
        let (m, x) = compress(e, rh, rl, x);
        (s, m, x)
    }

    /// The exact `p0 + p1 + c` of `v_dot2_f32_f16`'s terms (sign, 64-bit significand, exponent; a zero term
    /// has significand 0) as sign, significand (below 2^63, sticky in bit 0; 0 for an exact zero) and
    /// exponent, for `round_pack`: the model's two `add_exact` steps in a 128-bit window.
    ///
    /// The products have 22-bit significands and msb exponents within 79 of each other (f16 values from
    /// 2^-24 to below 2^16), so their sum, each at msb 125, loses nothing: the smaller keeps its lowest bit at
    /// 25 or above. That exact sum (82 bits at most, so 44 zero bits below it once its msb is back at 125)
    /// and `c` (24 bits, 102 below) then meet [`add`]'s condition.
    pub(super) fn dot_sum<L: Lower>(
        e: &mut L,
        terms: [(L::V, L::V, L::V); 3],
    ) -> (L::V, L::V, L::V) {
        let window = |e: &mut L, (s, m, x): (L::V, L::V, L::V)| {
            let (m, x) = super::normalize(e, m, x);
            let lo = e.k64(0);
            (s, m, lo, e.bink(Bin::Sub, x, 64))
        };
        let p0 = window(e, terms[0]);
        let p1 = window(e, terms[1]);
        let c = window(e, terms[2]);
        let (s, h, l, x) = add(e, p0, p1);
        let (h, l, x) = to_msb125(e, h, l, x);
        let (s, h, l, x) = add(e, (s, h, l, x), c);
        let (m, x) = compress(e, h, l, x);
        (s, m, x)
    }

    /// Moves the msb of `(hi, lo)` (below 2^127, bit 0 clear when it is at 126) to bit 125; a zero stays.
    fn to_msb125<L: Lower>(e: &mut L, hi: L::V, lo: L::V, exp: L::V) -> (L::V, L::V, L::V) {
        let z = e.k64(0);
        let hi0 = e.cmp(Cmp::Eq, hi, z);
        let mh = e.un(Un::FindMsb, hi);
        let mh = e.bink(Bin::Add, mh, 64);
        let ml = e.un(Un::FindMsb, lo);
        let msb = e.select(hi0, ml, mh);
        let k126 = e.k32(126);
        let down = e.cmp(Cmp::Eq, msb, k126);
        // Left by 125 - msb (0..=125; a zero's -1 gives 126, moving nothing in).
        let k125 = e.k32(125);
        let n = e.bin(Bin::Sub, k125, msb);
        let n = e.bink(Bin::And, n, 127);
        let k64 = e.k32(64);
        let big = e.cmp(Cmp::UGe, n, k64);
        let ns = e.bink(Bin::And, n, 63);
        let nsw = e.zext(ns);
        let k0 = e.k32(0);
        let none = e.cmp(Cmp::Eq, ns, k0);
        let inv = e.bin(Bin::Sub, k64, ns);
        let inv = e.bink(Bin::And, inv, 63);
        let invw = e.zext(inv);
        let carried = e.bin(Bin::LShr, lo, invw);
        let carried = e.select(none, z, carried);
        let hs = e.bin(Bin::Shl, hi, nsw);
        let h1 = e.bin(Bin::Or, hs, carried);
        let l1 = e.bin(Bin::Shl, lo, nsw);
        let uh = e.select(big, l1, h1);
        let ul = e.select(big, z, l1);
        let ux = e.bin(Bin::Sub, exp, n);
        // Right by one: exact, bit 0 is clear.
        let dh = e.bink(Bin::LShr, hi, 1);
        let dl = e.bink(Bin::LShr, lo, 1);
        let top = e.bink(Bin::Shl, hi, 63);
        let dl = e.bin(Bin::Or, dl, top);
        let dx = e.bink(Bin::Add, exp, 1);
        (
            e.select(down, dh, uh),
            e.select(down, dl, ul),
            e.select(down, dx, ux),
        )
    }

    /// The sum of two values `(sign, hi, lo, exp)` (`(hi, lo) * 2^exp`, msb at bit 124 or 125 of the window,
    /// or zero), exact for rounding to 53 bits or fewer, as `(sign, hi, lo, exp)`: the one with the smaller
    /// exponent is shifted right with a sticky bit, and when it loses a bit the two differ by so much that at
    /// most one bit cancels. Each caller says why its operands leave enough zero bits at the bottom for the
    /// close cases (exponents within one), where nothing may be shifted out.
    fn add<L: Lower>(
        e: &mut L,
        a: (L::V, L::V, L::V, L::V),
        b: (L::V, L::V, L::V, L::V),
    ) -> (L::V, L::V, L::V, L::V) {
        let (ps, ph, pl, pe) = a;
        let (cs, ch, cl, ce) = b;
        let z = e.k64(0);
        let pz = e.cmp(Cmp::Eq, ph, z);
        let cz = e.cmp(Cmp::Eq, ch, z);
        let first = super::first_by_exponent(e, (pz, pe), (cz, ce));
        let (ea, eb) = (e.select(first, pe, ce), e.select(first, ce, pe));
        let (ah, al) = (e.select(first, ph, ch), e.select(first, pl, cl));
        let (bh, bl) = (e.select(first, ch, ph), e.select(first, cl, pl));
        let (sa, sb) = (e.select(first, ps, cs), e.select(first, cs, ps));
        let d = e.bin(Bin::Sub, ea, eb);
        let (bh, bl) = shr_jam(e, bh, bl, d);
        // Sum.
        let sl = e.bin(Bin::Add, al, bl);
        let carry = e.cmp(Cmp::ULt, sl, al);
        let carry = e.b2i(carry, Ty::I64);
        let sh = e.bin(Bin::Add, ah, bh);
        let sh = e.bin(Bin::Add, sh, carry);
        // Difference, larger minus smaller.
        let h_gt = e.cmp(Cmp::UGt, ah, bh);
        let h_eq = e.cmp(Cmp::Eq, ah, bh);
        let l_ge = e.cmp(Cmp::UGe, al, bl);
        let eq_ge = e.band(h_eq, l_ge);
        let a_big = e.bor(h_gt, eq_ge);
        let (xh, xl) = (e.select(a_big, ah, bh), e.select(a_big, al, bl));
        let (yh, yl) = (e.select(a_big, bh, ah), e.select(a_big, bl, al));
        let dl = e.bin(Bin::Sub, xl, yl);
        let borrow = e.cmp(Cmp::ULt, xl, yl);
        let borrow = e.b2i(borrow, Ty::I64);
        let dh = e.bin(Bin::Sub, xh, yh);
        let dh = e.bin(Bin::Sub, dh, borrow);
        let dsign = e.select(a_big, sa, sb);
        let same = e.cmp(Cmp::Eq, sa, sb);
        let (rh, rl) = (e.select(same, sh, dh), e.select(same, sl, dl));
        let s = e.select(same, sa, dsign);
        (s, rh, rl, ea)
    }
}

/// `v_cmp_class_*`: whether `x`'s class is one of those `mask` selects (bit 0 signalling NaN, 1 quiet NaN, 2 -inf,
/// 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf), on the bits as given (no flush), the
/// model's `g_class`. `mask` is a u32.
pub fn class<L: Lower>(e: &mut L, f: Fmt, x: L::V, mask: L::V) -> L::V {
    let nan = is_nan(e, f, x);
    let q = e.bink(Bin::And, x, f.quiet());
    let zw = kf(e, f, 0);
    let quiet = e.cmp(Cmp::Ne, q, zw);
    let mag = e.bink(Bin::And, x, f.mag_mask());
    let infk = kf(e, f, f.exp_mask());
    let inf = e.cmp(Cmp::Eq, mag, infk);
    let zero = e.cmp(Cmp::Eq, mag, zw);
    let ex = e.bink(Bin::And, x, f.exp_mask());
    let den = e.cmp(Cmp::Eq, ex, zw);
    let s = fld(e, f, x, f.sign_bit(), 1);
    let neg = e.nz(s);
    let pick = |e: &mut L, a: u32, b: u32| {
        let (ka, kb) = (e.k32(a), e.k32(b));
        e.select(neg, ka, kb)
    };
    let normal = pick(e, 3, 8);
    let denorm = pick(e, 4, 7);
    let zeros = pick(e, 5, 6);
    let infs = pick(e, 2, 9);
    let r = e.select(den, denorm, normal);
    let r = e.select(zero, zeros, r);
    let r = e.select(inf, infs, r);
    let (k1, k0) = (e.k32(1), e.k32(0));
    let n = e.select(quiet, k1, k0);
    let idx = e.select(nan, n, r);
    let bit = e.bin(Bin::LShr, mask, idx);
    let bit = e.bink(Bin::And, bit, 1);
    e.nz(bit)
}

// ---------------------------------------------------------------------------------------------------------
// The separately rounded f32 multiply-adds (gfx1013).

/// `v_mad_f32` (and mac/madak/madmk; `legacy`: `v_mad_legacy_f32`/`v_mac_legacy_f32`): `a * b` rounded to f32
/// in the round field, then `+ c` rounded again; sources, product and result flushed to signed zeros in every
/// denormal setting, a product whose exact value is below 2^-126 flushed before rounding (rules
/// `mad.unfused_flush` and `legacy.mad_product_tininess`, both inferred; `legacy.mad_gfx10`, measured on gfx1010); a NaN among `a`, `b` first, then
/// inf * 0 (the default NaN), then a NaN `c` (quieted under IEEE_MODE). `legacy`: a zero factor makes the
/// product +0 whatever the other factor (`legacy.zero_product`). The model's `mad_f32` / `mad_legacy_f32`.
pub fn mad<L: Lower>(e: &mut L, env: &Env<L::V>, a: L::V, b: L::V, c: L::V, legacy: bool) -> L::V {
    let env = Env {
        keep_in: e.kbool(false),
        keep_out: e.kbool(false),
        ..*env
    };
    let x = unpack(e, &env, a);
    let y = unpack(e, &env, b);
    let p = mul(e, &env, a, b);
    // Tininess of the exact product, before rounding.
    let mx = e.zext(x.sig);
    let my = e.zext(y.sig);
    let prod = e.bin(Bin::Mul, mx, my);
    let z64 = e.k64(0);
    let nonzero = e.cmp(Cmp::Ne, prod, z64);
    let msb = e.un(Un::FindMsb, prod);
    let pe = e.bin(Bin::Add, x.exp, y.exp);
    let top = e.bin(Bin::Add, pe, msb);
    let biased = e.bink(Bin::Add, top, F32.bias() as u64);
    let k1 = e.k32(1);
    let below = e.cmp(Cmp::SLt, biased, k1);
    let finite = e.bor(x.inf, y.inf);
    let finite = e.bnot(finite);
    let tiny = e.band(below, nonzero);
    let tiny = e.band(tiny, finite);
    let nan_p = is_nan(e, F32, p);
    let not_nan = e.bnot(nan_p);
    let tiny = e.band(tiny, not_nan);
    let s = e.bink(Bin::And, p, F32.sign());
    let p = e.select(tiny, s, p);
    let p = if legacy {
        let zero = e.bor(x.zero, y.zero);
        let z = e.k32(0);
        e.select(zero, z, p)
    } else {
        p
    };
    // The product's NaN (a source's, or inf * 0's) is the result; else the add, whose NaN choice is c's.
    let nan_p = is_nan(e, F32, p);
    let sum = add(e, &env, p, c);
    e.select(nan_p, p, sum)
}

/// One half of `v_pack_b32_f16`: the f16 bits as given, a NaN quieted only under IEEE_MODE (rule
/// `nan.pack_b32_quiet`).
pub fn pack_half<L: Lower>(e: &mut L, e16: &Env<L::V>, h: L::V) -> L::V {
    let nan = is_nan(e, F16, h);
    let q = unary_nan(e, e16, h);
    e.select(nan, q, h)
}

/// One half of `v_cvt_pkrtz_f16_f32`: [`cvt_f16_f32`] toward zero whatever the round field, without FP16_OVFL
/// (a finite value never overflows toward zero; rule `cvt.pkrtz`).
pub fn cvt_pkrtz_half<L: Lower>(e: &mut L, e32: &Env<L::V>, e16: &Env<L::V>, x: L::V) -> L::V {
    let rtz = Env {
        rm: e.k32(3),
        ovfl: e.kbool(false),
        ..*e16
    };
    cvt_f16_f32(e, e32, &rtz, x)
}
