//! Conversions, rounding to integers, fract, frexp and ldexp.

use super::arith::{env16_64, env32, narrow_nan32, ovfl16, widen16};
use super::core::{add_exact, pack_exact, round_pack, scale, unpack, Env, Fmt, Num, F16, F32, F64};
use super::mode::{Mode, Round};

/// A NaN input of a unary instruction: quieted only with IEEE 1 (rule
/// `nan.unary_quiet_ieee_only`, measured for f32, f16 and f64 unary instructions).
#[inline]
fn unary_nan(f: Fmt, env: Env, x: u64) -> u64 {
    if env.ieee {
        f.quiet(x)
    } else {
        x
    }
}

fn g_round_int(f: Fmt, env: Env, x: u64, dir: Round) -> u64 {
    match unpack(f, x, !env.keep_in) {
        Num::Nan => unary_nan(f, env, x),
        Num::Inf(s) => f.inf(s),
        Num::Zero(s) => f.zero(s),
        Num::Fin(s, m, e) => {
            if e >= 0 {
                return x;
            }
            let sh = (-e) as u32;
            let (q, half, sticky) = if sh >= 128 {
                (0u128, false, true)
            } else {
                (
                    m >> sh,
                    (m >> (sh - 1)) & 1 != 0,
                    m & ((1u128 << (sh - 1)) - 1) != 0,
                )
            };
            let inexact = half || sticky;
            let up = match dir {
                Round::NearestEven => half && (sticky || q & 1 == 1),
                Round::TowardZero => false,
                Round::Up => inexact && !s,
                Round::Down => inexact && s,
            };
            let q = q + up as u128;
            pack_exact(f, s, q, 0, Round::NearestEven, true).bits
        }
    }
}

macro_rules! round_family {
    ($t:ty, $fmt:expr, $env:ident, $floor:ident, $ceil:ident, $trunc:ident, $rndne:ident, $name:literal) => {
        #[doc = concat!("`v_floor_", $name, "`. Rules `nan.unary_quiet_ieee_only` and the denormal input flush of the format's field (`f32.denorm.arith`, `f16.denorm.unary`).")]
        pub fn $floor(mode: Mode, x: $t) -> $t {
            g_round_int($fmt, $env(mode), x as u64, Round::Down) as $t
        }
        #[doc = concat!("`v_ceil_", $name, "` (rules of [`", stringify!($floor), "`]).")]
        pub fn $ceil(mode: Mode, x: $t) -> $t {
            g_round_int($fmt, $env(mode), x as u64, Round::Up) as $t
        }
        #[doc = concat!("`v_trunc_", $name, "` (rules of [`", stringify!($floor), "`]).")]
        pub fn $trunc(mode: Mode, x: $t) -> $t {
            g_round_int($fmt, $env(mode), x as u64, Round::TowardZero) as $t
        }
        #[doc = concat!("`v_rndne_", $name, "` (rules of [`", stringify!($floor), "`]).")]
        pub fn $rndne(mode: Mode, x: $t) -> $t {
            g_round_int($fmt, $env(mode), x as u64, Round::NearestEven) as $t
        }
    };
}

round_family!(u32, F32, env32, floor_f32, ceil_f32, trunc_f32, rndne_f32, "f32");
round_family!(u16, F16, env16_64, floor_f16, ceil_f16, trunc_f16, rndne_f16, "f16");
round_family!(u64, F64, env16_64, floor_f64, ceil_f64, trunc_f64, rndne_f64, "f64");

fn g_fract(f: Fmt, env: Env, x: u64) -> u64 {
    match unpack(f, x, !env.keep_in) {
        Num::Nan => unary_nan(f, env, x),
        Num::Inf(_) => f.default_nan(),
        Num::Zero(s) => f.zero(s),
        Num::Fin(s, m, e) => {
            let fl = g_round_int(f, env, x, Round::Down);
            let r = match unpack(f, fl, false) {
                Num::Fin(fs, fm, fe) => add_exact((s, m, e), (!fs, fm, fe)),
                _ => Some((s, m, e)),
            };
            match r {
                None => f.zero(false),
                Some((rs, rm, re)) => {
                    let v = round_pack(f, rs, rm, re, env.rm, env.keep_out).bits;
                    let below_one = f.one() - 1;
                    if v > below_one {
                        below_one
                    } else {
                        v
                    }
                }
            }
        }
    }
}

/// `v_fract_f32`: `x - floor(x)`, at most the largest value below 1; an infinity gives
/// the default NaN. Rules `fract.clamp_below_one` (documented), `f32.denorm.arith`,
/// `nan.unary_quiet_ieee_only`.
pub fn fract_f32(mode: Mode, x: u32) -> u32 {
    g_fract(F32, env32(mode), x as u64) as u32
}
/// `v_fract_f16` (rules of [`fract_f32`], f16 field).
pub fn fract_f16(mode: Mode, x: u16) -> u16 {
    g_fract(F16, env16_64(mode), x as u64) as u16
}
/// `v_fract_f64` (rules of [`fract_f32`], f64 field).
pub fn fract_f64(mode: Mode, x: u64) -> u64 {
    g_fract(F64, env16_64(mode), x)
}

fn g_frexp_mant(f: Fmt, env: Env, x: u64) -> u64 {
    match unpack(f, x, !env.keep_in) {
        Num::Nan => unary_nan(f, env, x),
        Num::Inf(s) => f.inf(s),
        Num::Zero(s) => f.zero(s),
        Num::Fin(s, m, _) => {
            let n = 128 - m.leading_zeros() as i32;
            round_pack(f, s, m, -n, Round::NearestEven, true).bits
        }
    }
}

fn g_frexp_exp(f: Fmt, env: Env, x: u64) -> i32 {
    match unpack(f, x, !env.keep_in) {
        Num::Fin(_, m, e) => e + (128 - m.leading_zeros() as i32),
        _ => 0,
    }
}

/// `v_frexp_mant_f32`: the significand scaled into [0.5, 1) with the sign kept; zeros,
/// infinities and NaNs (rule `nan.unary_quiet_ieee_only`) are returned as they are.
/// Rule `frexp.special` (documented), `f32.denorm.arith` (input flush).
pub fn frexp_mant_f32(mode: Mode, x: u32) -> u32 {
    g_frexp_mant(F32, env32(mode), x as u64) as u32
}
/// `v_frexp_mant_f16` (rules of [`frexp_mant_f32`], f16 field).
pub fn frexp_mant_f16(mode: Mode, x: u16) -> u16 {
    g_frexp_mant(F16, env16_64(mode), x as u64) as u16
}
/// `v_frexp_mant_f64` (rules of [`frexp_mant_f32`], f64 field).
pub fn frexp_mant_f64(mode: Mode, x: u64) -> u64 {
    g_frexp_mant(F64, env16_64(mode), x)
}
/// `v_frexp_exp_i32_f32`: `e` with `x = m * 2^e`, `m` in [0.5, 1); 0 for zeros,
/// infinities and NaNs; a flushed denormal gives 0 (rules `frexp.special`,
/// `f32.denorm.arith`).
pub fn frexp_exp_i32_f32(mode: Mode, x: u32) -> i32 {
    g_frexp_exp(F32, env32(mode), x as u64)
}
/// `v_frexp_exp_i16_f16` (rules of [`frexp_exp_i32_f32`], f16 field).
pub fn frexp_exp_i16_f16(mode: Mode, x: u16) -> i16 {
    g_frexp_exp(F16, env16_64(mode), x as u64) as i16
}
/// `v_frexp_exp_i32_f64` (rules of [`frexp_exp_i32_f32`], f64 field).
pub fn frexp_exp_i32_f64(mode: Mode, x: u64) -> i32 {
    g_frexp_exp(F64, env16_64(mode), x)
}

/// `v_ldexp_f32`: `x * 2^n` rounded once in the f32 round mode; subnormal inputs and
/// results follow the f32 field.
///
/// Rules `ldexp.rounding` (measured on gfx1036 in all four round modes),
/// `nan.unary_quiet_ieee_only`.
pub fn ldexp_f32(mode: Mode, x: u32, n: i32) -> u32 {
    let env = env32(mode);
    if F32.is_nan(x as u64) {
        return unary_nan(F32, env, x as u64) as u32;
    }
    scale(F32, x as u64, n, env.rm, env.keep_in, env.keep_out) as u32
}
/// `v_ldexp_f16` (`n` is the sign-extended 16-bit source): `x * 2^n` rounded in the f16
/// round mode; bit 0 of the f16 field keeps denormal inputs and bit 1 denormal results.
///
/// Rules `ldexp.f16_denorm` (seed 000, measured: `0x07ff` by -1 gives +0 with results
/// flushed, tiny before and after rounding being the same for ldexp), `f16.fp16_ovfl`,
/// `nan.unary_quiet_ieee_only`.
pub fn ldexp_f16(mode: Mode, x: u16, n: i32) -> u16 {
    let env = env16_64(mode);
    if F16.is_nan(x as u64) {
        return unary_nan(F16, env, x as u64) as u16;
    }
    let r = scale(F16, x as u64, n, env.rm, env.keep_in, env.keep_out);
    ovfl16(mode, r, &[x as u64])
}
/// `v_ldexp_f64` (rules of [`ldexp_f32`], f64 field).
pub fn ldexp_f64(mode: Mode, x: u64, n: i32) -> u64 {
    let env = env16_64(mode);
    if F64.is_nan(x) {
        return unary_nan(F64, env, x);
    }
    scale(F64, x, n, env.rm, env.keep_in, env.keep_out)
}

// ---------------------------------------------------------------------------------------
// Float to float.

/// `v_cvt_f64_f32`: exact widening; the f32 input is flushed by the f32 field; a NaN keeps
/// its payload and is quieted only with IEEE 1 (rule `nan.cvt_f64_f32`, measured).
pub fn cvt_f64_f32(mode: Mode, x: u32) -> u64 {
    let env = env32(mode);
    let x = x as u64;
    match unpack(F32, x, !env.keep_in) {
        Num::Nan => {
            let q = unary_nan(F32, env, x);
            ((q >> 31) << 63) | F64.exp_mask() | ((q & F32.man_mask()) << 29)
        }
        Num::Inf(s) => F64.inf(s),
        Num::Zero(s) => F64.zero(s),
        Num::Fin(s, m, e) => round_pack(F64, s, m, e, Round::NearestEven, true).bits,
    }
}

/// `v_cvt_f32_f64`: rounded in the f32 round mode and f32 result field, the f64 input
/// flushed by the f64 field; a NaN is always quieted, keeping its top payload bits (rule
/// `nan.cvt_narrow_quiet`, measured).
pub fn cvt_f32_f64(mode: Mode, x: u64) -> u32 {
    let e32 = env32(mode);
    let e64 = env16_64(mode);
    match unpack(F64, x, !e64.keep_in) {
        Num::Nan => (((x >> 63) << 31) | 0x7fc0_0000 | ((x >> 29) & 0x7f_ffff)) as u32,
        Num::Inf(s) => F32.inf(s) as u32,
        Num::Zero(s) => F32.zero(s) as u32,
        Num::Fin(s, m, e) => round_pack(F32, s, m, e, e32.rm, e32.keep_out).bits as u32,
    }
}

fn f32_to_f16(mode: Mode, x: u32, rm: Round) -> u16 {
    let e32 = env32(mode);
    let e16 = env16_64(mode);
    let r = match unpack(F32, x as u64, !e32.keep_in) {
        Num::Nan => narrow_nan32(x) as u64,
        Num::Inf(s) => F16.inf(s),
        Num::Zero(s) => F16.zero(s),
        Num::Fin(s, m, e) => round_pack(F16, s, m, e, rm, e16.keep_out).bits,
    };
    let src_inf = if F32.is_inf(x as u64) {
        F16.inf(false)
    } else {
        0
    };
    ovfl16(mode, r, &[src_inf])
}

/// `v_cvt_f16_f32`: rounded in the f16 round field with the f16 result field, the f32
/// input flushed by the f32 field; a NaN is always quieted (`0x7f812345` gives `0x7e09`).
///
/// Rules `cvt.f16_directed` (measured with f16 denormals kept), `nan.cvt_narrow_quiet`,
/// `f16.fp16_ovfl`.
pub fn cvt_f16_f32(mode: Mode, x: u32) -> u16 {
    f32_to_f16(mode, x, mode.round16_64())
}

/// `v_cvt_f32_f16`: exact widening; a denormal half is flushed when bit 0 of the f16
/// field is clear (rule `f16.denorm.unary`, measured); a NaN keeps its payload and is
/// quieted only with IEEE 1 (`nan.unary_quiet_ieee_only`, inferred for this conversion).
pub fn cvt_f32_f16(mode: Mode, h: u16) -> u32 {
    let env = env16_64(mode);
    let h = F16.flush(h as u64, !env.keep_in);
    let h = unary_nan(F16, env, h);
    widen16(h as u16)
}

/// `v_pack_b32_f16`: `lo` in bits 15:0 and `hi` in bits 31:16 (sources after their modifiers); a signalling-NaN
/// half is quieted with IEEE 1 and kept as it is with IEEE 0, the rule of the f16 unary results.
///
/// Rule: `nan.pack_b32_quiet` (measured on gfx1036 in both IEEE modes, seed 000).
pub fn pack_b32_f16(mode: Mode, lo: u16, hi: u16) -> u32 {
    let q = |h: u16| {
        if mode.ieee {
            F16.quiet(h as u64) as u16
        } else {
            h
        }
    };
    q(lo) as u32 | (q(hi) as u32) << 16
}

/// `v_cvt_pkrtz_f16_f32`: both f32 sources rounded toward zero to f16 (low half from
/// `a`), so a finite value never overflows to infinity.
///
/// Rules `cvt.pkrtz` (measured: never overflows; NaN quieting and result flushing by the
/// f16 field inferred from `v_cvt_f16_f32`).
pub fn cvt_pkrtz_f16_f32(mode: Mode, a: u32, b: u32) -> u32 {
    let m = Mode {
        fp16_ovfl: false,
        ..mode
    };
    (f32_to_f16(m, a, Round::TowardZero) as u32)
        | (f32_to_f16(m, b, Round::TowardZero) as u32) << 16
}

// ---------------------------------------------------------------------------------------
// Integer conversions.

/// Rounds an exact value to an integer in direction `dir` and saturates to
/// `[lo, hi]`; NaN gives 0.
fn to_int(n: Num, dir: Round, lo: i64, hi: i64) -> i64 {
    match n {
        Num::Nan => 0,
        Num::Inf(s) => {
            if s {
                lo
            } else {
                hi
            }
        }
        Num::Zero(_) => 0,
        Num::Fin(s, m, e) => {
            let mag: i128 = if e >= 0 {
                if e > 64 {
                    i128::MAX
                } else {
                    let v = (m as i128).checked_shl(e as u32).unwrap_or(i128::MAX);
                    if v >> e != m as i128 {
                        i128::MAX
                    } else {
                        v
                    }
                }
            } else {
                let sh = (-e) as u32;
                let (q, half, sticky) = if sh >= 128 {
                    (0u128, false, m != 0)
                } else {
                    (
                        m >> sh,
                        (m >> (sh - 1)) & 1 != 0,
                        m & ((1u128 << (sh - 1)) - 1) != 0,
                    )
                };
                let inexact = half || sticky;
                let up = match dir {
                    Round::NearestEven => half && (sticky || q & 1 == 1),
                    Round::TowardZero => false,
                    Round::Up => inexact && !s,
                    Round::Down => inexact && s,
                };
                (q + up as u128) as i128
            };
            let v = if s { -mag } else { mag };
            v.clamp(lo as i128, hi as i128) as i64
        }
    }
}

/// A conversion toward zero saturating to [lo, hi] (NaN gives 0), the input flushed by the denormal field
/// of its format (f32, or the shared f16/f64 one).
fn trunc_sat(mode: Mode, f: Fmt, x: u64, lo: i64, hi: i64) -> i64 {
    let keep_in = if f == F32 {
        env32(mode).keep_in
    } else {
        env16_64(mode).keep_in
    };
    to_int(unpack(f, x, !keep_in), Round::TowardZero, lo, hi)
}

/// `v_cvt_i32_f32`: toward zero, saturating, NaN gives 0; the input is flushed by the
/// f32 field (rules `cvt.float_to_int` documented, `f32.denorm.arith`).
pub fn cvt_i32_f32(mode: Mode, x: u32) -> i32 {
    trunc_sat(mode, F32, x as u64, i32::MIN as i64, i32::MAX as i64) as i32
}
/// `v_cvt_u32_f32`: toward zero, saturating to [0, 2^32 - 1], NaN gives 0 (rules of
/// [`cvt_i32_f32`]).
pub fn cvt_u32_f32(mode: Mode, x: u32) -> u32 {
    trunc_sat(mode, F32, x as u64, 0, u32::MAX as i64) as u32
}
/// A NaN converted by `v_cvt_flr_i32_f32` / `v_cvt_rpi_i32_f32` saturates by its sign: 0x7fffffff for a
/// positive NaN, 0x80000000 for a negative one (rule `cvt.flr_rpi_nan_sign`, measured in the peer corpus).
fn flr_rpi_nan(x: u32) -> i32 {
    if x >> 31 == 1 {
        i32::MIN
    } else {
        i32::MAX
    }
}

/// `v_cvt_flr_i32_f32`: `floor(x)` as a saturated i32; a NaN saturates by its sign (rules
/// `cvt.float_to_int`, `cvt.flr_rpi_nan_sign`).
pub fn cvt_flr_i32_f32(mode: Mode, x: u32) -> i32 {
    let env = env32(mode);
    if F32.is_nan(x as u64) {
        return flr_rpi_nan(x);
    }
    to_int(
        unpack(F32, x as u64, !env.keep_in),
        Round::Down,
        i32::MIN as i64,
        i32::MAX as i64,
    ) as i32
}
/// `v_cvt_rpi_i32_f32`: `floor(x + 0.5)` with the sum exact, as a saturated i32; a NaN saturates by its
/// sign as for [`cvt_flr_i32_f32`] (rules `cvt.float_to_int`, `cvt.flr_rpi_nan_sign`).
pub fn cvt_rpi_i32_f32(mode: Mode, x: u32) -> i32 {
    let env = env32(mode);
    if F32.is_nan(x as u64) {
        return flr_rpi_nan(x);
    }
    let n = match unpack(F32, x as u64, !env.keep_in) {
        Num::Fin(s, m, e) => match add_exact((s, m, e), (false, 1, -1)) {
            Some((s, m, e)) => Num::Fin(s, m, e),
            None => Num::Zero(false),
        },
        Num::Zero(_) => Num::Fin(false, 1, -1),
        other => other,
    };
    to_int(n, Round::Down, i32::MIN as i64, i32::MAX as i64) as i32
}
/// `v_cvt_i32_f64`: toward zero, saturating, NaN gives 0; input flushed by the f64 field.
pub fn cvt_i32_f64(mode: Mode, x: u64) -> i32 {
    trunc_sat(mode, F64, x, i32::MIN as i64, i32::MAX as i64) as i32
}
/// `v_cvt_u32_f64`: toward zero, saturating, NaN gives 0.
pub fn cvt_u32_f64(mode: Mode, x: u64) -> u32 {
    trunc_sat(mode, F64, x, 0, u32::MAX as i64) as u32
}
/// `v_cvt_i16_f16`: toward zero, saturating to i16, NaN gives 0 (input flushed by the f16
/// field, rule `f16.denorm.unary`).
pub fn cvt_i16_f16(mode: Mode, x: u16) -> i16 {
    trunc_sat(mode, F16, x as u64, i16::MIN as i64, i16::MAX as i64) as i16
}
/// `v_cvt_u16_f16`: toward zero, saturating to u16, NaN gives 0.
pub fn cvt_u16_f16(mode: Mode, x: u16) -> u16 {
    trunc_sat(mode, F16, x as u64, 0, u16::MAX as i64) as u16
}

fn from_int(f: Fmt, v: i64, rm: Round) -> u64 {
    let s = v < 0;
    pack_exact(f, s, v.unsigned_abs() as u128, 0, rm, true).bits
}

/// `v_cvt_f32_i32`: rounded in the f32 round mode (`round.mode_field`).
pub fn cvt_f32_i32(mode: Mode, v: i32) -> u32 {
    from_int(F32, v as i64, mode.round32()) as u32
}
/// `v_cvt_f32_u32`: rounded in the f32 round mode.
pub fn cvt_f32_u32(mode: Mode, v: u32) -> u32 {
    from_int(F32, v as i64, mode.round32()) as u32
}
/// `v_cvt_f64_i32`: exact.
pub fn cvt_f64_i32(v: i32) -> u64 {
    from_int(F64, v as i64, Round::NearestEven)
}
/// `v_cvt_f64_u32`: exact.
pub fn cvt_f64_u32(v: u32) -> u64 {
    from_int(F64, v as i64, Round::NearestEven)
}
/// `v_cvt_f16_i16`: rounded in the f16 round field (`cvt.f16_directed`), FP16_OVFL
/// applies.
pub fn cvt_f16_i16(mode: Mode, v: i16) -> u16 {
    ovfl16(mode, from_int(F16, v as i64, mode.round16_64()), &[])
}
/// `v_cvt_f16_u16`: rounded in the f16 round field; 65520 and above overflow (FP16_OVFL
/// applies).
pub fn cvt_f16_u16(mode: Mode, v: u16) -> u16 {
    ovfl16(mode, from_int(F16, v as i64, mode.round16_64()), &[])
}
/// `v_cvt_f32_ubyte0..3`: byte `n` of `x` as an f32 (exact).
pub fn cvt_f32_ubyte(x: u32, n: u32) -> u32 {
    cvt_f32_u32(Mode::IEEE, (x >> (8 * (n & 3))) & 0xff)
}
/// `v_cvt_off_f32_i4`: the signed 4-bit `x[3:0]` divided by 16 (exact).
pub fn cvt_off_f32_i4(x: u32) -> u32 {
    let v = ((x & 0xf) as i32) << 28 >> 28;
    scale(
        F32,
        cvt_f32_i32(Mode::IEEE, v) as u64,
        -4,
        Round::NearestEven,
        true,
        true,
    ) as u32
}

/// The normalized-integer rule shared by the f32 and f16 forms (rule `cvt.pknorm`): the
/// exact value is clamped to [-1, 1] (signed) or [0, 1] (unsigned), scaled by 32767 or
/// 65535 and rounded to nearest even; NaN gives 0. Scaling the exact significand before
/// rounding is the same as clamping first, because every value past the clamp bound
/// saturates to the same end code.
fn norm_num(n: Num, signed: bool) -> u16 {
    let (lo, hi, scale_k) = if signed {
        (-32767i64, 32767i64, 32767u128)
    } else {
        (0, 65535, 65535u128)
    };
    let n = match n {
        Num::Fin(s, m, e) => Num::Fin(s, m * scale_k, e),
        other => other,
    };
    to_int(n, Round::NearestEven, lo, hi) as u16
}

fn norm(mode: Mode, x: u32, signed: bool) -> u32 {
    let env = env32(mode);
    norm_num(unpack(F32, x as u64, !env.keep_in), signed) as u32
}

/// An f16 source of the norm conversions, decoded with the f16 field's input flush (rule
/// `f16.denorm.unary`, measured for the other conversions from f16).
fn unpack16_in(mode: Mode, x: u16) -> Num {
    unpack(F16, x as u64, !env16_64(mode).keep_in)
}

/// `v_cvt_pknorm_i16_f32`: each source clamped to [-1, 1], scaled by 32767 and rounded to
/// nearest even; NaN gives 0; low half from `a` (rule `cvt.pknorm`, inferred rounding).
pub fn cvt_pknorm_i16_f32(mode: Mode, a: u32, b: u32) -> u32 {
    norm(mode, a, true) | norm(mode, b, true) << 16
}
/// `v_cvt_pknorm_u16_f32`: each source clamped to [0, 1], scaled by 65535 and rounded to
/// nearest even (rule `cvt.pknorm`).
pub fn cvt_pknorm_u16_f32(mode: Mode, a: u32, b: u32) -> u32 {
    norm(mode, a, false) | norm(mode, b, false) << 16
}
/// `v_cvt_norm_i16_f16`: the f16 `x` clamped to [-1, 1], scaled by 32767 and rounded to
/// nearest even, as a signed 16-bit integer; NaN gives 0; a denormal `x` is read as zero
/// when bit 0 of the f16 field is clear.
///
/// Rule `cvt.norm_f16` (inferred from `cvt.pknorm`: widening f16 to f32 is exact, so the
/// f32 rule applies to the same value), `f16.denorm.unary`.
pub fn cvt_norm_i16_f16(mode: Mode, x: u16) -> i16 {
    norm_num(unpack16_in(mode, x), true) as i16
}
/// `v_cvt_norm_u16_f16`: the f16 `x` clamped to [0, 1], scaled by 65535 and rounded to
/// nearest even; NaN gives 0 (rules of [`cvt_norm_i16_f16`]).
pub fn cvt_norm_u16_f16(mode: Mode, x: u16) -> u16 {
    norm_num(unpack16_in(mode, x), false)
}
/// `v_cvt_pknorm_i16_f16`: [`cvt_norm_i16_f16`] of `a` in the low half and of `b` in the
/// high half (rule `cvt.norm_f16`).
pub fn cvt_pknorm_i16_f16(mode: Mode, a: u16, b: u16) -> u32 {
    cvt_norm_i16_f16(mode, a) as u16 as u32 | (cvt_norm_i16_f16(mode, b) as u16 as u32) << 16
}
/// `v_cvt_pknorm_u16_f16`: [`cvt_norm_u16_f16`] of `a` in the low half and of `b` in the
/// high half (rule `cvt.norm_f16`).
pub fn cvt_pknorm_u16_f16(mode: Mode, a: u16, b: u16) -> u32 {
    cvt_norm_u16_f16(mode, a) as u32 | (cvt_norm_u16_f16(mode, b) as u32) << 16
}
/// `v_cvt_pk_u8_f32`: `x` rounded in the f32 round mode and saturated to [0, 255] is
/// written into byte `sel[1:0]` of `acc` (rule `cvt.pk_u8`: Mesa ACO marks this
/// instruction as reading the f32 round field; NaN gives 0, inferred).
pub fn cvt_pk_u8_f32(mode: Mode, x: u32, sel: u32, acc: u32) -> u32 {
    let env = env32(mode);
    let v = to_int(unpack(F32, x as u64, !env.keep_in), env.rm, 0, 255) as u32;
    let sh = 8 * (sel & 3);
    (acc & !(0xff << sh)) | (v << sh)
}
