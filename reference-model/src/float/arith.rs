//! Add, subtract, multiply, fused and legacy multiply-add, the mixed-precision FMAs,
//! packed f16 and the dot product, with source and output modifiers.

use super::core::{
    add_num, first_nan, mul_num, product, round_pack, scale, sum_num, unpack, Env, Fmt, Num, F16,
    F32, F64,
};
use super::mode::Mode;

/// The f32 fields of a mode: round32 and the f32 denormal field (rules `mode.float_mode_fields`,
/// `round.mode_field` and `round.mode_field.others`; fields 1 and 2 by `f32.denorm.modes_1_2`). Arithmetic that
/// quiets a returned NaN source only with IEEE 1 reads `ieee` from here (rules `nan.quiet.ieee_only`,
/// `nan.quiet.ieee_only.f16_f64`).
pub(crate) fn env32(m: Mode) -> Env {
    Env {
        rm: m.round32(),
        keep_in: m.denorm32().keep_in(),
        keep_out: m.denorm32().keep_out(),
        ieee: m.ieee,
    }
}

/// The f16/f64 fields of a mode: round16/64 and the f16/f64 denormal field (rules `mode.float_mode_fields`,
/// `f16.denorm.field_bits`, `f16.denorm.field_bits.others`, `f64.denorm.field`; f64 results flush with tininess
/// before rounding, rules `f64.tininess.before_rounding` and `f64.tininess.before_rounding.others`).
pub(crate) fn env16_64(m: Mode) -> Env {
    Env {
        rm: m.round16_64(),
        keep_in: m.denorm16_64().keep_in(),
        keep_out: m.denorm16_64().keep_out(),
        ieee: m.ieee,
    }
}

// ---------------------------------------------------------------------------------------
// Source modifiers.

/// `-x` on f16 bits: the sign bit flips, in every mode and for NaNs too.
///
/// Rule `modifier.neg_abs_bits`: the seed's NaN rule sees a negated NaN source with its
/// sign flipped, so the modifiers act on the bits before anything else.
pub const fn neg_f16(x: u16) -> u16 {
    x ^ 0x8000
}
/// `|x|` on f16 bits (rule `modifier.neg_abs_bits`).
pub const fn abs_f16(x: u16) -> u16 {
    x & 0x7fff
}
/// `-x` on f32 bits (rule `modifier.neg_abs_bits`).
pub const fn neg_f32(x: u32) -> u32 {
    x ^ 0x8000_0000
}
/// `|x|` on f32 bits (rule `modifier.neg_abs_bits`).
pub const fn abs_f32(x: u32) -> u32 {
    x & 0x7fff_ffff
}
/// `-x` on f64 bits (rule `modifier.neg_abs_bits`).
pub const fn neg_f64(x: u64) -> u64 {
    x ^ (1 << 63)
}
/// `|x|` on f64 bits (rule `modifier.neg_abs_bits`).
pub const fn abs_f64(x: u64) -> u64 {
    x & !(1 << 63)
}
/// A VOP3 source with its `abs` then `neg` modifiers applied (abs first, as the
/// encoding's `-|x|` reads), f16.
pub const fn src_mod_f16(x: u16, neg: bool, abs: bool) -> u16 {
    let x = if abs { abs_f16(x) } else { x };
    if neg {
        neg_f16(x)
    } else {
        x
    }
}
/// A VOP3 source with `abs` then `neg` applied, f32.
pub const fn src_mod_f32(x: u32, neg: bool, abs: bool) -> u32 {
    let x = if abs { abs_f32(x) } else { x };
    if neg {
        neg_f32(x)
    } else {
        x
    }
}
/// A VOP3 source with `abs` then `neg` applied, f64.
pub const fn src_mod_f64(x: u64, neg: bool, abs: bool) -> u64 {
    let x = if abs { abs_f64(x) } else { x };
    if neg {
        neg_f64(x)
    } else {
        x
    }
}

// ---------------------------------------------------------------------------------------
// Generic operations on bits.

#[inline]
pub(crate) fn g_add(f: Fmt, env: Env, a: u64, b: u64) -> u64 {
    if let Some(n) = first_nan(f, env.ieee, &[a, b]) {
        return n;
    }
    add_num(
        f,
        env,
        unpack(f, a, !env.keep_in),
        unpack(f, b, !env.keep_in),
    )
}

#[inline]
pub(crate) fn g_mul(f: Fmt, env: Env, a: u64, b: u64) -> u64 {
    if let Some(n) = first_nan(f, env.ieee, &[a, b]) {
        return n;
    }
    mul_num(
        f,
        env,
        unpack(f, a, !env.keep_in),
        unpack(f, b, !env.keep_in),
    )
}

#[inline]
pub(crate) fn g_fma(f: Fmt, env: Env, a: u64, b: u64, c: u64) -> u64 {
    if let Some(n) = first_nan(f, env.ieee, &[a, b]) {
        return n;
    }
    let p = product(unpack(f, a, !env.keep_in), unpack(f, b, !env.keep_in));
    if p == Num::Nan {
        return f.default_nan();
    }
    if let Some(n) = first_nan(f, env.ieee, &[c]) {
        return n;
    }
    sum_num(f, env, p, unpack(f, c, !env.keep_in))
}

/// FP16_OVFL: an f16 result that became infinite from finite sources is written as the
/// largest finite half of its sign (rule `f16.fp16_ovfl`).
#[inline]
pub(crate) fn ovfl16(mode: Mode, r: u64, srcs: &[u64]) -> u16 {
    if mode.fp16_ovfl && F16.is_inf(r) && !srcs.iter().any(|&s| F16.is_inf(s)) {
        (F16.max_finite(F16.is_neg(r))) as u16
    } else {
        r as u16
    }
}

// ---------------------------------------------------------------------------------------
// f32.

/// `v_add_f32`: `a + b`.
///
/// Rules: `f32.denorm.arith` (inputs and result flushed by the f32 field),
/// `f32.tininess.after_rounding`, `nan.select.first_source`, `nan.quiet.ieee_only`,
/// `nan.default`, `round.mode_field`.
pub fn add_f32(mode: Mode, a: u32, b: u32) -> u32 {
    if host_path32(mode) && plain32(a) && plain32(b) {
        if let Some(r) = host_result32((f32::from_bits(a) as f64 + f32::from_bits(b) as f64) as f32)
        {
            return r;
        }
    }
    g_add(F32, env32(mode), a as u64, b as u64) as u32
}

/// `v_sub_f32`: `a - b`, computed as `a + (-b)`, so a NaN `b` comes back with its sign
/// flipped (rules of [`add_f32`]; `nan.select.first_source` names the negated subtrahend).
pub fn sub_f32(mode: Mode, a: u32, b: u32) -> u32 {
    add_f32(mode, a, neg_f32(b))
}

/// `v_subrev_f32`: `b - a` (src1 minus src0), computed as `(-a) + b`: src0 stays the
/// first operand in the NaN choice (rules of [`add_f32`]).
pub fn subrev_f32(mode: Mode, a: u32, b: u32) -> u32 {
    add_f32(mode, neg_f32(a), b)
}

/// `v_mul_f32`: `a * b`. Rules of [`add_f32`]; the tininess rule was measured on this
/// instruction (seed 000: `0x3f7ffffe * 0x00800001` gives `0x00800000`,
/// `0x3f7fffff * 0x00800000` gives 0 with f32 denormals flushed).
pub fn mul_f32(mode: Mode, a: u32, b: u32) -> u32 {
    if host_path32(mode) && plain32(a) && plain32(b) {
        // The product of two f32 values is exact in f64 (48 significant bits), so this rounds once.
        if let Some(r) = host_result32((f32::from_bits(a) as f64 * f32::from_bits(b) as f64) as f32)
        {
            return r;
        }
    }
    g_mul(F32, env32(mode), a as u64, b as u64) as u32
}

/// `v_fma_f32` (and `v_fmac_f32` with `c` the old destination, `v_fmamk_f32` with `b`
/// the literal, `v_fmaak_f32` with `c` the literal): `a * b + c` rounded once.
///
/// Rules of [`add_f32`] plus `nan.fma.invalid_product` (inf * 0 gives the default NaN even
/// when `c` is a NaN). With a zero addend the result is the rounded product, tininess
/// included (measured); with a non-zero addend the same after-rounding tininess is applied
/// to the fused result (`f32.tininess.fma_addend`, inferred).
pub fn fma_f32(mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    if host_path32(mode) && plain32(a) && plain32(b) && plain32(c) {
        if let Some(r) = host_fma32(a, b, c) {
            return r;
        }
    }
    g_fma(F32, env32(mode), a as u64, b as u64, c as u64) as u32
}

// ---------------------------------------------------------------------------------------
// The host's binary64 arithmetic for the plain f32 case.
//
// With round to nearest even, operands that are zeros or normal numbers and a result at least 2^-125 in
// magnitude and finite, no rule of the mode applies (no NaN, no infinity, nothing to flush or to call tiny:
// `f32.denorm.arith`, `f32.tininess.after_rounding` and `f32.tininess.fma_addend` only decide results below
// 2^-126), and the result is the IEEE 754 one, which the host computes in binary64:
// - a product of two f32 values is exact in binary64 (48 significant bits of 53), so `a * b` rounds once;
// - a sum of two f32 values rounded to binary64 and then to binary32 is the correctly rounded sum, because 53 >=
//   2 * 24 + 2 makes the double rounding innocuous for addition (S. A. Figueroa, "When is double rounding
//   innocuous?", ACM SIGNUM Newsletter 30(3), 1995);
// - a fused `a * b + c` is the exact product plus `c`, rounded to binary64 once; rounding that to binary32 again
//   is wrong only when the first rounding landed exactly on a binary32 midpoint (29 low significand bits
//   `1000...0`), and then the soft engine decides (the same test as musl's `fmaf`, without its fix-up).
// Everything else, and every other rounding mode, goes to the soft engine, which `tests` below hold this path
// to. Rust's f64 operations are IEEE 754 binary64 with round to nearest even on every target with SSE2 or an
// FPU of its own; x86 without SSE2 (x87, which rounds to 64 bits first) always takes the soft engine.

/// Whether the host path may run: f32 round to nearest even on a host with IEEE binary64 arithmetic.
#[inline(always)]
fn host_path32(mode: Mode) -> bool {
    const HOST_BINARY64: bool = !cfg!(all(target_arch = "x86", not(target_feature = "sse2")));
    HOST_BINARY64 && mode.float_mode & 3 == 0
}

/// A zero or a normal f32 (no infinity, NaN or denormal).
#[inline(always)]
fn plain32(x: u32) -> bool {
    let e = x >> 23 & 0xff;
    e != 0xff && (e != 0 || x & 0x7f_ffff == 0)
}

/// The bits of a host result when it is finite and at least 2^-125 in magnitude (exponent field 2..=254).
#[inline(always)]
fn host_result32(r: f32) -> Option<u32> {
    let b = r.to_bits();
    (2..0xff).contains(&(b >> 23 & 0xff)).then_some(b)
}

/// `a * b + c` of plain operands through binary64, or `None` where it might round twice wrongly.
#[inline(always)]
fn host_fma32(a: u32, b: u32, c: u32) -> Option<u32> {
    let s = f32::from_bits(a) as f64 * f32::from_bits(b) as f64 + f32::from_bits(c) as f64;
    if s.to_bits() & 0x1fff_ffff == 0x1000_0000 {
        return None;
    }
    host_result32(s as f32)
}

/// The legacy zero rule: a zero factor (after flushing) makes the product +0, even when
/// the other factor is infinite or a NaN (rule `legacy.zero_product`).
#[inline]
fn legacy_product(a: u64, b: u64, flush_in: bool) -> Option<Num> {
    let ua = unpack(F32, a, flush_in);
    let ub = unpack(F32, b, flush_in);
    if matches!(ua, Num::Zero(_)) || matches!(ub, Num::Zero(_)) {
        Some(Num::Zero(false))
    } else {
        None
    }
}

/// `v_mul_legacy_f32`: `a * b` where a zero factor gives +0 whatever the other factor
/// (DX9 rule); otherwise as [`mul_f32`].
///
/// Rules: `legacy.zero_product`, and those of [`mul_f32`].
pub fn mul_legacy_f32(mode: Mode, a: u32, b: u32) -> u32 {
    let env = env32(mode);
    if legacy_product(a as u64, b as u64, !env.keep_in).is_some() {
        return 0;
    }
    mul_f32(mode, a, b)
}

/// `-MAX_FLOAT`, the result v_mullit_f32 selects when its lighting condition fails.
const NEG_MAX_F32: u32 = 0xff7f_ffff;

/// `v_mullit_f32` (VOP3 only): the multiply of a lighting (LIT) computation. With
/// `b == -MAX_FLOAT`, `b == -inf`, `b` a NaN, `c <= 0` or `c` a NaN the result is
/// `-MAX_FLOAT` (0xff7fffff, which a following exp2 turns into 0); otherwise `a * b`,
/// where a zero factor gives +0 whatever the other factor.
///
/// Returns `None` where no document says what the hardware writes: an infinite or NaN
/// factor, or a product that overflows, in the multiply branch. The AMD guides announce
/// "alternate INF, NAN, overflow rules" for this instruction without spelling them out,
/// so the interpreter refuses those lanes rather than guess.
///
/// Sources are flushed by the f32 denormal field before the tests and the multiply (as
/// compares and `v_mul_f32` do); the product is rounded as [`mul_f32`].
///
/// Rules: `mullit.lighting` (documented: AMD RDNA 3 / RDNA 3.5 ISA guides, V_MULLIT_F32
/// pseudo-code), `mullit.zero_factor` (inferred: the guides' "0.0 * x = 0.0" with the +0
/// of `legacy.zero_product`), `f32.denorm.arith`, `round.mode_field`.
pub fn mullit_f32(mode: Mode, a: u32, b: u32, c: u32) -> Option<u32> {
    let env = env32(mode);
    let flush = !env.keep_in;
    let ub = unpack(F32, b as u64, flush);
    let uc = unpack(F32, c as u64, flush);
    // The lighting condition of the pseudo-code, read on the flushed values: a zero or
    // negative `c` (either zero sign, since -0 <= 0) fails it like a NaN does.
    let b_fails = b == NEG_MAX_F32 || matches!(ub, Num::Inf(true) | Num::Nan);
    let c_fails = matches!(
        uc,
        Num::Nan | Num::Zero(_) | Num::Inf(true) | Num::Fin(true, ..)
    );
    if b_fails || c_fails {
        return Some(NEG_MAX_F32);
    }
    let ua = unpack(F32, a as u64, flush);
    match (ua, ub) {
        (Num::Zero(_), _) | (_, Num::Zero(_)) => Some(0),
        (Num::Fin(s1, m1, e1), Num::Fin(s2, m2, e2)) => {
            let (s, m, e) = super::core::mul_exact((s1, m1, e1), (s2, m2, e2));
            let r = round_pack(F32, s, m, e, env.rm, env.keep_out);
            (!r.overflow).then_some(r.bits as u32)
        }
        _ => None,
    }
}

/// `v_fma_legacy_f32` (RDNA2's VOP3 0x140; gfx1013 decodes the same encoding as
/// [`mad_legacy_f32`]): fused `a * b + c` with the legacy zero rule; a NaN factor hidden
/// by a zero factor is ignored and a NaN `c` still wins.
///
/// Rules: `legacy.zero_product`, `legacy.fma_rdna2` (denormal sources flushed in every
/// mode; the result follows the f32 field), `nan.select.first_source`.
pub fn fma_legacy_f32(mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    let env = env32(mode);
    let env_src = Env {
        keep_in: false,
        ..env
    };
    let (a, b, c) = (a as u64, b as u64, c as u64);
    match legacy_product(a, b, true) {
        Some(p) => {
            if let Some(n) = first_nan(F32, env.ieee, &[c]) {
                return n as u32;
            }
            sum_num(F32, env_src, p, unpack(F32, c, true)) as u32
        }
        None => g_fma(F32, env_src, a, b, c) as u32,
    }
}

/// Rounds a product for the separately rounded multiply-adds: flushed to a signed zero
/// when its exact value is below 2^-126 (tininess before rounding), else rounded.
#[inline]
fn separate_product(env: Env, p: Num) -> Num {
    match p {
        Num::Fin(s, m, e) => {
            let n = 128 - m.leading_zeros() as i32;
            if e + n - 1 < F32.emin() {
                Num::Zero(s)
            } else {
                unpack(F32, round_pack(F32, s, m, e, env.rm, false).bits, true)
            }
        }
        other => other,
    }
}

/// `v_mad_legacy_f32` / `v_mac_legacy_f32` (gfx1013, VOP3 0x140 / VOP2 0x06): the
/// product is rounded to f32 before the add, a zero factor gives a +0 product, and the
/// sources, the product and the result are flushed to signed zeros in every f32
/// denormal mode.
///
/// Rules: `legacy.mad_gfx10` (measured on gfx1010, the console not measured),
/// `legacy.zero_product`, `legacy.mad_product_tininess` (inferred: the product is
/// checked on its exact value), `nan.select.first_source`.
pub fn mad_legacy_f32(mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    let env = Env {
        keep_in: false,
        keep_out: false,
        ..env32(mode)
    };
    let (a, b, c) = (a as u64, b as u64, c as u64);
    let p = match legacy_product(a, b, true) {
        Some(p) => p,
        None => {
            if let Some(n) = first_nan(F32, env.ieee, &[a, b]) {
                return n as u32;
            }
            let p = product(unpack(F32, a, true), unpack(F32, b, true));
            if p == Num::Nan {
                return F32.default_nan() as u32;
            }
            separate_product(env, p)
        }
    };
    if let Some(n) = first_nan(F32, env.ieee, &[c]) {
        return n as u32;
    }
    sum_num(F32, env, p, unpack(F32, c, true)) as u32
}

/// `v_mad_f32` / `v_mac_f32` / `v_madak_f32` / `v_madmk_f32` (gfx1013 only): `a * b + c`
/// with the product rounded before the add; denormal sources, product and result are
/// flushed in every mode.
///
/// Rule `mad.unfused_flush` (inferred: not measurable on RDNA2; LLVM selects these only
/// when f32 denormals are flushed), `nan.select.first_source`, `nan.fma.invalid_product`.
pub fn mad_f32(mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    let env = Env {
        keep_in: false,
        keep_out: false,
        ..env32(mode)
    };
    let (a, b, c) = (a as u64, b as u64, c as u64);
    if let Some(n) = first_nan(F32, env.ieee, &[a, b]) {
        return n as u32;
    }
    let p = product(unpack(F32, a, true), unpack(F32, b, true));
    if p == Num::Nan {
        return F32.default_nan() as u32;
    }
    let p = separate_product(env, p);
    if let Some(n) = first_nan(F32, env.ieee, &[c]) {
        return n as u32;
    }
    sum_num(F32, env, p, unpack(F32, c, true)) as u32
}

// ---------------------------------------------------------------------------------------
// f16 and f64.

/// `v_add_f16`: `a + b` in the f16 round and denormal fields.
///
/// Rules: `f16.denorm.field_bits` (bit 0 keeps inputs, bit 1 keeps results; measured),
/// `f16.tininess.after_rounding`, `f16.fp16_ovfl`, `nan.select.first_source` (f16 NaN bits
/// inferred), `round.mode_field`.
pub fn add_f16(mode: Mode, a: u16, b: u16) -> u16 {
    let r = g_add(F16, env16_64(mode), a as u64, b as u64);
    ovfl16(mode, r, &[a as u64, b as u64])
}
/// `v_sub_f16`: `a + (-b)` (rules of [`add_f16`]).
pub fn sub_f16(mode: Mode, a: u16, b: u16) -> u16 {
    add_f16(mode, a, neg_f16(b))
}
/// `v_subrev_f16`: `(-a) + b` (rules of [`add_f16`]).
pub fn subrev_f16(mode: Mode, a: u16, b: u16) -> u16 {
    add_f16(mode, neg_f16(a), b)
}
/// `v_mul_f16`: `a * b`; tininess after rounding to 11 bits (seed 000: `0x3bff * 0x0400`
/// flushes, `0x3c01 * 0x03ff` gives `0x0400`). Rules of [`add_f16`].
pub fn mul_f16(mode: Mode, a: u16, b: u16) -> u16 {
    let r = g_mul(F16, env16_64(mode), a as u64, b as u64);
    ovfl16(mode, r, &[a as u64, b as u64])
}
/// `v_fma_f16` / `v_fmac_f16`: `a * b + c` rounded once. Rules of [`add_f16`] and
/// `nan.fma.invalid_product`.
pub fn fma_f16(mode: Mode, a: u16, b: u16, c: u16) -> u16 {
    let r = g_fma(F16, env16_64(mode), a as u64, b as u64, c as u64);
    ovfl16(mode, r, &[a as u64, b as u64, c as u64])
}
/// `v_mad_f16` / `v_mac_f16` (gfx10.1): `a * b + c` with the product rounded to f16
/// first (rule `mad.unfused_f16`, inferred); denormals follow the f16 field.
pub fn mad_f16(mode: Mode, a: u16, b: u16, c: u16) -> u16 {
    let p = mul_f16(
        Mode {
            fp16_ovfl: false,
            ..mode
        },
        a,
        b,
    );
    if F16.is_nan(p as u64) && !F16.is_nan(a as u64) && !F16.is_nan(b as u64) {
        return F16.default_nan() as u16;
    }
    let r = g_add(F16, env16_64(mode), p as u64, c as u64);
    ovfl16(mode, r, &[a as u64, b as u64, c as u64])
}

/// `v_add_f64`: `a + b` in the f16/f64 round and denormal fields.
///
/// Rules: `f64.denorm.field`, `nan.select.first_source` (f64 NaN bits inferred),
/// `round.mode_field`.
pub fn add_f64(mode: Mode, a: u64, b: u64) -> u64 {
    g_add(F64, env16_64(mode), a, b)
}
/// `a - b` as `a + (-b)` (no such VALU opcode; for the interpreter's convenience).
pub fn sub_f64(mode: Mode, a: u64, b: u64) -> u64 {
    add_f64(mode, a, neg_f64(b))
}
/// `v_mul_f64`: `a * b` (rules of [`add_f64`]).
pub fn mul_f64(mode: Mode, a: u64, b: u64) -> u64 {
    g_mul(F64, env16_64(mode), a, b)
}
/// `v_fma_f64`: `a * b + c` rounded once; subnormal operands and results round once as
/// IEEE fusedMultiplyAdd (rule `f64.fma_subnormal`, measured with denormals kept).
pub fn fma_f64(mode: Mode, a: u64, b: u64, c: u64) -> u64 {
    g_fma(F64, env16_64(mode), a, b, c)
}

// ---------------------------------------------------------------------------------------
// Mixed precision.

/// One source of `v_fma_mix*`, after `op_sel`/`op_sel_hi` chose its width and half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MixSrc {
    /// The whole register as f32.
    F32(u32),
    /// One half of the register as f16.
    F16(u16),
}

impl MixSrc {
    /// Selects source `i`'s form from its register: `op_sel_hi[i]` clear reads f32,
    /// set reads the f16 half `op_sel[i]` chooses (1 = high). `neg`/`abs` are applied to
    /// the selected value as bit operations (rule `modifier.neg_abs_bits`).
    pub const fn select(reg: u32, op_sel: bool, op_sel_hi: bool, neg: bool, abs: bool) -> MixSrc {
        if op_sel_hi {
            let h = if op_sel {
                (reg >> 16) as u16
            } else {
                reg as u16
            };
            MixSrc::F16(src_mod_f16(h, neg, abs))
        } else {
            MixSrc::F32(src_mod_f32(reg, neg, abs))
        }
    }
}

/// The source as f32 bits: f16 values widen exactly (their denormals flushed by the f16
/// field's input bit, rule `mix.f16_source_denorm`, inferred); f32 values keep their bits.
#[inline]
fn mix_as_f32(mode: Mode, s: MixSrc) -> (u64, bool) {
    match s {
        MixSrc::F32(x) => (x as u64, false),
        MixSrc::F16(h) => {
            let h = F16.flush(h as u64, !mode.denorm16_64().keep_in());
            (widen16(h as u16) as u64, true)
        }
    }
}

/// f16 to f32 exactly, NaN payload moved to the top of the f32 fraction.
pub(crate) fn widen16(h: u16) -> u32 {
    let h = h as u64;
    let s = (h >> 15) as u32;
    match unpack(F16, h, false) {
        Num::Nan => (s << 31) | 0x7f80_0000 | (((h & 0x3ff) as u32) << 13),
        Num::Inf(_) => (s << 31) | 0x7f80_0000,
        Num::Zero(_) => s << 31,
        Num::Fin(sg, m, e) => {
            round_pack(F32, sg, m, e, super::mode::Round::NearestEven, true).bits as u32
        }
    }
}

/// `v_fma_mix_f32`: `a * b + c` rounded once to f32 in the f32 fields, each source f32 or
/// f16.
///
/// Rules: the f32 arithmetic rules of [`fma_f32`] (NaN choice measured with f32 sources:
/// `0x7f812345` is returned as is with IEEE 0 and as `0x7fc12345` with IEEE 1),
/// `f32.tininess.after_rounding` (measured with mixed sources: `0x00801002` times f16
/// `0x3bff` gives `0x00800000`), `mix.f16_source_denorm`.
pub fn fma_mix_f32(mode: Mode, a: MixSrc, b: MixSrc, c: MixSrc) -> u32 {
    let env = env32(mode);
    let (a, _) = mix_as_f32(mode, a);
    let (b, _) = mix_as_f32(mode, b);
    let (c, _) = mix_as_f32(mode, c);
    g_fma(F32, env, a, b, c) as u32
}

/// `v_fma_mixlo_f16` / `v_fma_mixhi_f16`: `a * b + c` from f32/f16 sources, the exact
/// product-sum rounded once to f16 in the f16 round and denormal fields; the caller writes
/// the half into the low or high 16 bits.
///
/// Rules: `mix.lo_hi_rounding` (measured: `0xbfc00000 * 0x33800000 + 0x00800000` gives
/// `0x8001`, `0x8000` with f16 denormals flushed, `0x8002` toward -inf), f32 sources
/// flushed by the f32 field and the product kept below 2^-126, `nan.mix_lo_hi_quiet`
/// (a NaN result is always quiet: f32 `0x7f812345` gives `0x7e09`), `f16.fp16_ovfl`
/// (inferred for these instructions).
pub fn fma_mixlo_f16(mode: Mode, a: MixSrc, b: MixSrc, c: MixSrc) -> u16 {
    let e32 = env32(mode);
    let e16 = env16_64(mode);
    let load = |s: MixSrc| -> (u64, Num) {
        let (x, from16) = mix_as_f32(mode, s);
        let flush = !from16 && !e32.keep_in;
        (x, unpack(F32, x, flush))
    };
    let (ab, an) = load(a);
    let (bb, bn) = load(b);
    let (cb, cn) = load(c);
    let nan_out = |x: u64| -> u16 { narrow_nan32(x as u32) };
    if let Some(n) = first_nan(F32, true, &[ab, bb]) {
        return nan_out(n);
    }
    let p = product(an, bn);
    if p == Num::Nan {
        return F16.default_nan() as u16;
    }
    if F32.is_nan(cb) {
        return nan_out(cb);
    }
    let env = Env {
        rm: e16.rm,
        keep_in: true,
        keep_out: e16.keep_out,
        ieee: true,
    };
    let r = sum_num(F16, env, p, cn);
    ovfl16(mode, r, &[ab_inf(ab), ab_inf(bb), ab_inf(cb)])
}

/// Maps an f32 infinity to the f16 infinity for the FP16_OVFL source check.
fn ab_inf(x: u64) -> u64 {
    if F32.is_inf(x) {
        F16.inf(false)
    } else {
        0
    }
}

/// An f32 NaN as a quiet f16 NaN: sign kept, the top 10 fraction bits kept, quiet bit set.
pub(crate) fn narrow_nan32(x: u32) -> u16 {
    (((x >> 16) & 0x8000) | 0x7e00 | ((x >> 13) & 0x3ff)) as u16
}

/// `v_fma_mixhi_f16`: the same value as [`fma_mixlo_f16`], written to the high half.
pub fn fma_mixhi_f16(mode: Mode, a: MixSrc, b: MixSrc, c: MixSrc) -> u16 {
    fma_mixlo_f16(mode, a, b, c)
}

// ---------------------------------------------------------------------------------------
// Packed f16 (VOP3P), one call per half.

/// One half of `v_pk_add_f16` (rules of [`add_f16`] and `pk.nan_rules`).
pub fn pk_add_f16(mode: Mode, a: u16, b: u16) -> u16 {
    add_f16(mode, a, b)
}
/// One half of `v_pk_mul_f16` (rules of [`mul_f16`] and `pk.nan_rules`).
pub fn pk_mul_f16(mode: Mode, a: u16, b: u16) -> u16 {
    mul_f16(mode, a, b)
}
/// One half of `v_pk_fma_f16` (rules of [`fma_f16`]: inf * 0 gives the default NaN even
/// with a NaN `c`, measured).
pub fn pk_fma_f16(mode: Mode, a: u16, b: u16, c: u16) -> u16 {
    fma_f16(mode, a, b, c)
}

/// The two halves a VOP3P source supplies: `op_sel` picks the half for the low lane,
/// `op_sel_hi` the half for the high lane (1 = high half), then `neg_lo`/`neg_hi` flip
/// the sign of the chosen halves.
pub const fn pk_source(
    reg: u32,
    op_sel: bool,
    op_sel_hi: bool,
    neg_lo: bool,
    neg_hi: bool,
) -> [u16; 2] {
    let lo = if op_sel {
        (reg >> 16) as u16
    } else {
        reg as u16
    };
    let hi = if op_sel_hi {
        (reg >> 16) as u16
    } else {
        reg as u16
    };
    [
        if neg_lo { neg_f16(lo) } else { lo },
        if neg_hi { neg_f16(hi) } else { hi },
    ]
}

/// `v_dot2_f32_f16`: `a.lo * b.lo + a.hi * b.hi + c` with f16 halves and an f32 `c`,
/// the exact sum rounded once to f32; a NaN result is always quiet.
///
/// Rules: `dot2.single_rounding` and `nan.dot2_quiet` (both inferred: seed 000 lists the instruction as always
/// quieting, without a recorded value).
pub fn dot2_f32_f16(mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    let env = env32(mode);
    let h = |x: u32, hi: bool| -> u64 {
        let v = if hi { (x >> 16) as u16 } else { x as u16 };
        let v = F16.flush(v as u64, !mode.denorm16_64().keep_in());
        widen16(v as u16) as u64
    };
    let (a0, a1, b0, b1) = (h(a, false), h(a, true), h(b, false), h(b, true));
    let c = c as u64;
    if let Some(n) = first_nan(F32, true, &[a0, b0, a1, b1, c]) {
        return n as u32;
    }
    let p0 = product(unpack(F32, a0, false), unpack(F32, b0, false));
    let p1 = product(unpack(F32, a1, false), unpack(F32, b1, false));
    let cn = unpack(F32, c, !env.keep_in);
    if p0 == Num::Nan || p1 == Num::Nan {
        return F32.default_nan() as u32;
    }
    // Infinities first, then the exact three-term sum.
    let infs: Vec<bool> = [p0, p1, cn]
        .iter()
        .filter_map(|n| if let Num::Inf(s) = n { Some(*s) } else { None })
        .collect();
    if !infs.is_empty() {
        return if infs.iter().all(|&s| s == infs[0]) {
            F32.inf(infs[0]) as u32
        } else {
            F32.default_nan() as u32
        };
    }
    let fin = |n: Num| -> Option<(bool, u128, i32)> {
        if let Num::Fin(s, m, e) = n {
            Some((s, m, e))
        } else {
            None
        }
    };
    let terms: Vec<(bool, u128, i32)> = [p0, p1, cn].iter().filter_map(|&n| fin(n)).collect();
    let mut acc: Option<(bool, u128, i32)> = None;
    let mut cancelled = false;
    for t in terms {
        acc = match acc {
            None if !cancelled => Some(t),
            None => Some(t),
            Some(x) => {
                let s = super::core::add_exact(x, t);
                if s.is_none() {
                    cancelled = true;
                }
                s
            }
        };
    }
    match acc {
        Some((s, m, e)) => round_pack(F32, s, m, e, env.rm, env.keep_out).bits as u32,
        None => {
            let zs = [p0, p1, cn].iter().all(|n| matches!(n, Num::Zero(true)));
            if cancelled {
                F32.zero(env.rm == super::mode::Round::Down) as u32
            } else {
                F32.zero(zs) as u32
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Output modifiers.

/// The VOP3 output modifier field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Omod {
    /// 0: none.
    None,
    /// 1: `mul:2`.
    Mul2,
    /// 2: `mul:4`.
    Mul4,
    /// 3: `div:2`.
    Div2,
}

impl Omod {
    /// Decodes the 2-bit field.
    pub const fn from_field(v: u8) -> Omod {
        match v & 3 {
            0 => Omod::None,
            1 => Omod::Mul2,
            2 => Omod::Mul4,
            _ => Omod::Div2,
        }
    }
    const fn exp(self) -> i32 {
        match self {
            Omod::None => 0,
            Omod::Mul2 => 1,
            Omod::Mul4 => 2,
            Omod::Div2 => -1,
        }
    }
}

/// The output modifiers (rules `omod.mode_dependent` for f32, `omod.f16_f64`, `omod.denormal_result` for a
/// result the operation did not flush) then clamp (`clamp.dx10`).
fn g_omod_clamp(f: Fmt, mode: Mode, env: Env, x: u64, omod: Omod, clamp: bool) -> u64 {
    let mut r = x;
    if omod != Omod::None && !mode.ieee && !env.keep_out && !f.is_nan(r) {
        // A zero result comes out +0; a value that underflows while scaled keeps its sign.
        r = if f.is_zero(r) {
            0
        } else {
            scale(f, r, omod.exp(), env.rm, true, false)
        };
    }
    if clamp {
        r = g_clamp(f, mode.dx10_clamp, r);
    }
    r
}

/// The clamp modifier: NaN becomes +0 with DX10_CLAMP and stays as it is without; other
/// values are clamped to [+0, 1] (rule `clamp.dx10`).
pub(crate) fn g_clamp(f: Fmt, dx10: bool, r: u64) -> u64 {
    if f.is_nan(r) {
        if dx10 {
            0
        } else {
            r
        }
    } else if f.is_neg(r) {
        0
    } else if f.mag(r) > f.one() {
        f.one()
    } else {
        r
    }
}

/// Applies `omod` then `clamp` to an f32 result.
///
/// Rules: `omod.mode_dependent` (measured: applied only with IEEE 0 and f32 denormal
/// results flushed, ignored otherwise; the scaled value flushes like any result),
/// `clamp.dx10` (measured).
pub fn omod_clamp_f32(mode: Mode, value: u32, omod: Omod, clamp: bool) -> u32 {
    g_omod_clamp(F32, mode, env32(mode), value as u64, omod, clamp) as u32
}
/// Applies `omod` then `clamp` to an f16 result (the f16 field decides; rule
/// `omod.mode_dependent`, inferred for f16, and `clamp.dx10`, measured).
pub fn omod_clamp_f16(mode: Mode, value: u16, omod: Omod, clamp: bool) -> u16 {
    g_omod_clamp(F16, mode, env16_64(mode), value as u64, omod, clamp) as u16
}
/// Applies `omod` then `clamp` to an f64 result (the f64 field decides; rules as
/// [`omod_clamp_f16`]).
pub fn omod_clamp_f64(mode: Mode, value: u64, omod: Omod, clamp: bool) -> u64 {
    g_omod_clamp(F64, mode, env16_64(mode), value, omod, clamp)
}

#[cfg(test)]
mod tests {
    //! The host path of `add_f32`, `mul_f32` and `fma_f32` against the soft engine alone.

    use super::*;

    fn modes() -> [Mode; 4] {
        [
            Mode::TITLE,
            Mode::IEEE,
            Mode {
                float_mode: 0xd0,
                ..Mode::TITLE
            },
            Mode {
                float_mode: 0xf3,
                ..Mode::IEEE
            },
        ]
    }

    /// Operands around the edges: exponents near the bottom of the normal range and the top, denormals,
    /// zeros, infinities and NaNs, and plain random values.
    fn operand(s: &mut u64) -> u32 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        let r = *s;
        let mant = (r >> 8) as u32 & 0x7f_ffff;
        let sign = ((r >> 40) as u32 & 1) << 31;
        let exp = match r % 8 {
            0 => (r >> 44) as u32 % 6,
            1 => 250 + (r >> 44) as u32 % 6,
            2 => 60 + (r >> 44) as u32 % 10,
            _ => (r >> 44) as u32 % 256,
        };
        sign | exp << 23 | mant
    }

    #[test]
    fn host_path_equals_the_soft_engine() {
        let mut s = 0x1234_5678_9abc_def1u64;
        // The soft engine is slow in a debug build; release runs ten times as many.
        let n = if cfg!(debug_assertions) {
            20_000
        } else {
            200_000
        };
        for _ in 0..n {
            let (a, b, c) = (operand(&mut s), operand(&mut s), operand(&mut s));
            for m in modes() {
                let e = env32(m);
                let (a64, b64, c64) = (a as u64, b as u64, c as u64);
                assert_eq!(
                    add_f32(m, a, b),
                    g_add(F32, e, a64, b64) as u32,
                    "{m:?} {a:#x} + {b:#x}"
                );
                assert_eq!(
                    mul_f32(m, a, b),
                    g_mul(F32, e, a64, b64) as u32,
                    "{m:?} {a:#x} * {b:#x}"
                );
                assert_eq!(
                    fma_f32(m, a, b, c),
                    g_fma(F32, e, a64, b64, c64) as u32,
                    "{m:?} fma {a:#x} {b:#x} {c:#x}"
                );
            }
        }
    }

    /// The double-rounding case: 8 (1 + 2^-23) * 8 (1 - 2^-23) = 64 - 2^-40, plus 2^30 + 2^7, lands in binary64
    /// on the binary32 midpoint 2^30 + 2^7 + 2^6, which ties to even upwards; the exact sum is below it.
    #[test]
    fn the_fma_midpoint_case_goes_to_the_soft_engine() {
        let (a, b, c) = (0x4100_0001, 0x40ff_fffe, 0x4e80_0001);
        let naive =
            (f32::from_bits(a) as f64 * f32::from_bits(b) as f64 + f32::from_bits(c) as f64) as f32;
        assert_eq!(
            naive.to_bits(),
            0x4e80_0002,
            "binary64 then binary32 rounds up"
        );
        assert_eq!(host_fma32(a, b, c), None);
        assert_eq!(fma_f32(Mode::TITLE, a, b, c), 0x4e80_0001);
        assert_eq!(
            fma_f32(Mode::TITLE, a, b, c),
            g_fma(F32, env32(Mode::TITLE), a as u64, b as u64, c as u64) as u32
        );
    }
}
