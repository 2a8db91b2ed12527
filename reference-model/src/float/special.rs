//! Transcendentals, the division helpers, cube-map coordinates and interpolation.
//!
//! The hardware's transcendental approximations are not documented. These functions
//! round the exact function and choose special values on the bits: f16 and f32 reciprocals
//! and roots correctly, from the exact integer quotient or root with a sticky bit (one
//! rounding, in the mode's direction), the rest in f64 with the `libm` crate (so every host
//! gives the same bits) rounded once more to the format in the mode (two roundings: a value
//! within half an f64 ulp of a format number becomes that number);
//! [`crate::rules::tolerance_ulp`] states how far conformance may let them differ from a
//! measurement (rule `transcendental.approximation`, inferred).

use super::arith::{env16_64, env32, g_fma, ovfl16, widen16};
use super::core::{
    first_nan, pack_exact, product, round_pack, scale, sum_num, unpack, Env, Fmt, Num, F16, F32,
    F64,
};
use super::mode::{Mode, Round};

#[inline]
fn unary_nan(f: Fmt, env: Env, x: u64) -> u64 {
    if env.ieee {
        f.quiet(x)
    } else {
        x
    }
}

/// A host f64 as format `f`, rounded in `env`.
fn from_host(f: Fmt, env: Env, v: f64) -> u64 {
    let b = v.to_bits();
    match unpack(F64, b, false) {
        Num::Nan => f.default_nan(),
        Num::Inf(s) => f.inf(s),
        Num::Zero(s) => f.zero(s),
        Num::Fin(s, m, e) => round_pack(f, s, m, e, env.rm, env.keep_out).bits,
    }
}

/// The value of a finite or infinite operand as a host f64 (exact for f16 and f32).
fn to_host(f: Fmt, n: Num) -> f64 {
    let _ = f;
    match n {
        Num::Nan => f64::NAN,
        Num::Inf(s) => {
            if s {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Num::Zero(s) => {
            if s {
                -0.0
            } else {
                0.0
            }
        }
        Num::Fin(s, m, e) => {
            let v = libm::ldexp(m as f64, e);
            if s {
                -v
            } else {
                v
            }
        }
    }
}

/// `1/x`, `sqrt(x)` or `1/sqrt(x)` of the positive `m * 2^ex` (`m` below 2^24) as `sig * 2^exp`, where
/// `sig` carries at least 26 significant bits and its lowest bit is a sticky bit (set when the dropped
/// part is non-zero), so one rounding of it to 24 bits or fewer is the correctly rounded result.
fn exact_recip_root(op: Tr, m: u128, ex: i32) -> (u128, i32) {
    // The significand with its top bit at bit 23, then an even exponent for the roots.
    let sh = 23 - (127 - m.leading_zeros() as i32);
    let (mut m, mut ex) = (m << sh, ex - sh);
    if !matches!(op, Tr::Rcp) && ex & 1 != 0 {
        m <<= 1;
        ex -= 1;
    }
    let (q, exact, exp) = match op {
        // 2^49 / m: at least 26 bits.
        Tr::Rcp => ((1u128 << 49) / m, (1u128 << 49) % m == 0, -ex - 49),
        // sqrt(m * 2^28): at least 26 bits.
        Tr::Sqrt => {
            let a = m << 28;
            let r = a.isqrt();
            (r, r * r == a, (ex >> 1) - 14)
        }
        // sqrt(2^78 / m) = floor(sqrt(floor(2^78 / m))), exact only when both steps are.
        _ => {
            let a = (1u128 << 78) / m;
            let r = a.isqrt();
            (r, (1u128 << 78) % m == 0 && r * r == a, -(ex >> 1) - 39)
        }
    };
    ((q << 1) | u128::from(!exact), exp - 1)
}

#[derive(Clone, Copy)]
enum Tr {
    Rcp,
    Rsq,
    Sqrt,
    Log,
    Exp,
    Sin,
    Cos,
}

fn g_trans(f: Fmt, env: Env, x: u64, op: Tr) -> u64 {
    let n = unpack(f, x, !env.keep_in);
    if n == Num::Nan {
        return unary_nan(f, env, x);
    }
    let neg = f.is_neg(x);
    // f16 and f32 reciprocals and roots are computed exactly in integers and rounded once.
    if let (Tr::Rcp | Tr::Rsq | Tr::Sqrt, Num::Fin(s, m, ex), false) = (op, n, f == F64) {
        if !(neg && matches!(op, Tr::Rsq | Tr::Sqrt)) {
            let (sig, exp) = exact_recip_root(op, m, ex);
            let s = s && matches!(op, Tr::Rcp);
            return round_pack(f, s, sig, exp, env.rm, env.keep_out).bits;
        }
    }
    let v = to_host(f, n);
    let r = match op {
        Tr::Rcp => match n {
            Num::Zero(s) => return f.inf(s),
            Num::Inf(s) => return f.zero(s),
            _ => 1.0 / v,
        },
        Tr::Rsq => match n {
            Num::Zero(s) => return f.inf(s),
            Num::Inf(false) => return f.zero(false),
            _ if neg => return f.default_nan(),
            _ => 1.0 / libm::sqrt(v),
        },
        Tr::Sqrt => match n {
            Num::Zero(s) => return f.zero(s),
            Num::Inf(false) => return f.inf(false),
            _ if neg => return f.default_nan(),
            _ => libm::sqrt(v),
        },
        Tr::Log => match n {
            Num::Zero(_) => return f.inf(true),
            Num::Inf(false) => return f.inf(false),
            _ if neg => return f.default_nan(),
            _ => libm::log2(v),
        },
        Tr::Exp => match n {
            Num::Inf(true) => return f.zero(false),
            Num::Inf(false) => return f.inf(false),
            _ => libm::exp2(v),
        },
        Tr::Sin | Tr::Cos => match n {
            Num::Inf(_) => return f.default_nan(),
            Num::Zero(s) => {
                return if matches!(op, Tr::Sin) {
                    f.zero(s)
                } else {
                    f.one()
                }
            }
            _ => {
                // The argument is in turns. The fraction of |x| is exact in f64 for f16/f32; that of a
                // negative x itself is not (1 - 2^-60 rounds to 1), so sine's oddness and cosine's
                // evenness take the sign.
                let a = libm::fabs(v);
                let t = a - libm::floor(a);
                let exact_zero = match op {
                    Tr::Sin => t == 0.0 || t == 0.5,
                    _ => t == 0.25 || t == 0.75,
                };
                if exact_zero {
                    0.0
                } else if matches!(op, Tr::Sin) {
                    let r = libm::sin(2.0 * core::f64::consts::PI * t);
                    if v < 0.0 {
                        -r
                    } else {
                        r
                    }
                } else {
                    libm::cos(2.0 * core::f64::consts::PI * t)
                }
            }
        },
    };
    from_host(f, env, r)
}

macro_rules! trans {
    ($name:ident, $t:ty, $fmt:expr, $env:ident, $op:expr, $doc:literal, f16) => {
        #[doc = $doc]
        #[doc = ""]
        #[doc = "Rules `transcendental.approximation` (inferred; tolerance in `rules::tolerance_ulp`), `nan.unary_quiet_ieee_only`, `f16.denorm.unary`, `f16.fp16_ovfl` (an infinite input passes, a finite one that overflows is clamped)."]
        pub fn $name(mode: Mode, x: $t) -> $t {
            let r = g_trans($fmt, $env(mode), x as u64, $op);
            ovfl16(mode, r, &[x as u64])
        }
    };
    ($name:ident, $t:ty, $fmt:expr, $env:ident, $op:expr, $doc:literal) => {
        #[doc = $doc]
        #[doc = ""]
        #[doc = "Rules `transcendental.approximation` (inferred; tolerance in `rules::tolerance_ulp`), `nan.unary_quiet_ieee_only`, the format's denormal field."]
        pub fn $name(mode: Mode, x: $t) -> $t {
            g_trans($fmt, $env(mode), x as u64, $op) as $t
        }
    };
}

trans!(rcp_f32, u32, F32, env32, Tr::Rcp, "`v_rcp_f32`: 1 / x.");
trans!(
    rsq_f32,
    u32,
    F32,
    env32,
    Tr::Rsq,
    "`v_rsq_f32`: 1 / sqrt(x)."
);
trans!(
    sqrt_f32,
    u32,
    F32,
    env32,
    Tr::Sqrt,
    "`v_sqrt_f32`: sqrt(x)."
);
trans!(log_f32, u32, F32, env32, Tr::Log, "`v_log_f32`: log2(x).");
trans!(exp_f32, u32, F32, env32, Tr::Exp, "`v_exp_f32`: 2^x.");
trans!(
    sin_f32,
    u32,
    F32,
    env32,
    Tr::Sin,
    "`v_sin_f32`: sin(2 pi x), x in turns."
);
trans!(
    cos_f32,
    u32,
    F32,
    env32,
    Tr::Cos,
    "`v_cos_f32`: cos(2 pi x), x in turns."
);
trans!(
    rcp_f16,
    u16,
    F16,
    env16_64,
    Tr::Rcp,
    "`v_rcp_f16`: 1 / x.",
    f16
);
trans!(
    rsq_f16,
    u16,
    F16,
    env16_64,
    Tr::Rsq,
    "`v_rsq_f16`: 1 / sqrt(x).",
    f16
);
trans!(
    sqrt_f16,
    u16,
    F16,
    env16_64,
    Tr::Sqrt,
    "`v_sqrt_f16`: sqrt(x).",
    f16
);
trans!(
    log_f16,
    u16,
    F16,
    env16_64,
    Tr::Log,
    "`v_log_f16`: log2(x).",
    f16
);
trans!(
    exp_f16,
    u16,
    F16,
    env16_64,
    Tr::Exp,
    "`v_exp_f16`: 2^x.",
    f16
);
trans!(
    sin_f16,
    u16,
    F16,
    env16_64,
    Tr::Sin,
    "`v_sin_f16`: sin(2 pi x).",
    f16
);
trans!(
    cos_f16,
    u16,
    F16,
    env16_64,
    Tr::Cos,
    "`v_cos_f16`: cos(2 pi x).",
    f16
);
trans!(rcp_f64, u64, F64, env16_64, Tr::Rcp, "`v_rcp_f64`: 1 / x.");
trans!(
    rsq_f64,
    u64,
    F64,
    env16_64,
    Tr::Rsq,
    "`v_rsq_f64`: 1 / sqrt(x)."
);
trans!(
    sqrt_f64,
    u64,
    F64,
    env16_64,
    Tr::Sqrt,
    "`v_sqrt_f64`: sqrt(x)."
);

/// `v_rcp_iflag_f32`: as [`rcp_f32`] (the integer-divide flag is not float state).
pub fn rcp_iflag_f32(mode: Mode, x: u32) -> u32 {
    rcp_f32(mode, x)
}

// ---------------------------------------------------------------------------------------
// Division helpers.

fn biased_exp(f: Fmt, x: u64) -> i32 {
    ((x >> f.man) & f.exp_field_max()) as i32
}

fn g_div_scale(f: Fmt, env: Env, s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (big, tiny_exp, k) = if f == F32 {
        (96, 23, 64)
    } else {
        (768, 53, 128)
    };
    let fl = |x: u64| f.flush(x, !env.keep_in);
    let (s0, s1, s2) = (fl(s0), fl(s1), fl(s2));
    let mut d = s0;
    let mut vcc = false;
    if f.is_nan(s0) || f.is_nan(s1) || f.is_nan(s2) {
        return (first_nan(f, false, &[s0, s1, s2]).unwrap_or(s0), false);
    }
    let up = |x: u64| scale(f, x, k, Round::NearestEven, true, true);
    let down = |x: u64| scale(f, x, -k, Round::NearestEven, true, true);
    let h1 = to_host(f, unpack(f, s1, false));
    let h2 = to_host(f, unpack(f, s2, false));
    let min_normal = libm::ldexp(1.0, f.emin());
    let is_denorm_val = |v: f64| v != 0.0 && v.is_finite() && v.abs() < min_normal;
    if f.is_zero(s2) || f.is_zero(s1) {
        d = f.default_nan();
    } else if biased_exp(f, s2) - biased_exp(f, s1) >= big {
        vcc = true;
        if s0 == s1 {
            d = up(s0);
        }
    } else if f.is_denorm(s1) {
        d = up(s0);
    } else if is_denorm_val(1.0 / h1) && is_denorm_val(h2 / h1) {
        vcc = true;
        if s0 == s1 {
            d = up(s0);
        }
    } else if is_denorm_val(1.0 / h1) {
        d = down(s0);
    } else if is_denorm_val(h2 / h1) {
        vcc = true;
        if s0 == s2 {
            d = up(s0);
        }
    } else if biased_exp(f, s2) <= tiny_exp {
        d = up(s0);
    }
    (d, vcc)
}

/// `v_div_scale_f32`: the scaled operand and the VCC bit, following the RDNA ISA guide's
/// pseudo-code (`div.scale`, documented); the three inputs are flushed by the f32 field
/// (measured) and a NaN is never quieted (measured).
pub fn div_scale_f32(mode: Mode, s0: u32, s1: u32, s2: u32) -> (u32, bool) {
    let (d, v) = g_div_scale(F32, env32(mode), s0 as u64, s1 as u64, s2 as u64);
    (d as u32, v)
}
/// `v_div_scale_f64` (see [`div_scale_f32`]; f64 field).
pub fn div_scale_f64(mode: Mode, s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    g_div_scale(F64, env16_64(mode), s0, s1, s2)
}

/// `v_div_fmas_f32`: `a * b + c`, scaled by 2^32 when `vcc` is set (rule `div.fmas`); only the
/// result is flushed (rule `div.fmas.f32_flush`).
pub fn div_fmas_f32(mode: Mode, a: u32, b: u32, c: u32, vcc: bool) -> u32 {
    let env = env32(mode);
    let inner = Env {
        keep_in: true,
        keep_out: true,
        ..env
    };
    let r = g_fma(F32, inner, a as u64, b as u64, c as u64);
    let k = if vcc { 32 } else { 0 };
    scale(F32, r, k, env.rm, true, env.keep_out) as u32
}
/// `v_div_fmas_f64`: as [`div_fmas_f32`] with 2^64; subnormal operands and results round
/// once and only the result flushes (rules `f64.fma_subnormal`, `div.fmas.f64_flush`).
pub fn div_fmas_f64(mode: Mode, a: u64, b: u64, c: u64, vcc: bool) -> u64 {
    let env = env16_64(mode);
    let inner = Env {
        keep_in: true,
        keep_out: true,
        ..env
    };
    let r = g_fma(F64, inner, a, b, c);
    let k = if vcc { 64 } else { 0 };
    scale(F64, r, k, env.rm, true, env.keep_out)
}

fn g_div_fixup(f: Fmt, env: Env, s0: u64, s1: u64, s2: u64) -> u64 {
    let s1 = f.flush(s1, !env.keep_in);
    let s2 = f.flush(s2, !env.keep_in);
    let sign = f.is_neg(s1) ^ f.is_neg(s2);
    if f.is_nan(s2) {
        return unary_nan(f, env, s2);
    }
    if f.is_nan(s1) {
        return unary_nan(f, env, s1);
    }
    if f.is_zero(s1) && f.is_zero(s2) {
        return f.default_nan();
    }
    if f.is_inf(s1) && f.is_inf(s2) {
        return f.default_nan();
    }
    if f.is_zero(s1) || f.is_inf(s2) {
        return f.inf(sign);
    }
    if f.is_inf(s1) || f.is_zero(s2) {
        return f.zero(sign);
    }
    if f.is_nan(s0) {
        return unary_nan(f, env, s0);
    }
    f.mag(s0) | f.sgn(sign)
}

/// `v_div_fixup_f32`: special cases of `s2 / s1` around the quotient estimate `s0`
/// (`div.fixup`, documented); `s1` and `s2` are flushed by the f32 field, a denormal `s0`
/// and result are kept (measured), NaNs are quieted only with IEEE 1 (measured).
pub fn div_fixup_f32(mode: Mode, s0: u32, s1: u32, s2: u32) -> u32 {
    g_div_fixup(F32, env32(mode), s0 as u64, s1 as u64, s2 as u64) as u32
}
/// `v_div_fixup_f16` (see [`div_fixup_f32`]; FP16_OVFL keeps the infinity it writes for a
/// zero denominator or an infinite numerator and clamps other infinite quotients). A NaN
/// quotient estimate with ordinary `s1` and `s2` gives the infinity of the quotient's sign,
/// not the NaN the guide's pseudo-code passes through (rule `div.fixup_f16_nan_quotient`).
pub fn div_fixup_f16(mode: Mode, s0: u16, s1: u16, s2: u16) -> u16 {
    let env = env16_64(mode);
    let (f1, f2) = (
        F16.flush(s1 as u64, !env.keep_in),
        F16.flush(s2 as u64, !env.keep_in),
    );
    let ordinary = |x: u64| !F16.is_nan(x) && !F16.is_inf(x) && !F16.is_zero(x);
    let r = if F16.is_nan(s0 as u64) && ordinary(f1) && ordinary(f2) {
        F16.inf(F16.is_neg(f1) ^ F16.is_neg(f2))
    } else {
        g_div_fixup(F16, env, s0 as u64, s1 as u64, s2 as u64)
    };
    let s1f = F16.flush(s1 as u64, !env.keep_in);
    let own_inf = F16.is_inf(r) && (F16.is_zero(s1f) || F16.is_inf(s2 as u64));
    if own_inf {
        r as u16
    } else {
        ovfl16(mode, r, &[])
    }
}
/// `v_div_fixup_f64` (see [`div_fixup_f32`]; f64 field).
pub fn div_fixup_f64(mode: Mode, s0: u64, s1: u64, s2: u64) -> u64 {
    g_div_fixup(F64, env16_64(mode), s0, s1, s2)
}

// ---------------------------------------------------------------------------------------
// Cube maps.

fn cube_axis(x: u32, y: u32, z: u32) -> u8 {
    let (ax, ay, az) = (x & 0x7fff_ffff, y & 0x7fff_ffff, z & 0x7fff_ffff);
    let ge = |a: u32, b: u32| {
        let fa = f32::from_bits(a);
        let fb = f32::from_bits(b);
        fa >= fb
    };
    if ge(az, ax) && ge(az, ay) {
        2
    } else if ge(ay, ax) {
        1
    } else {
        0
    }
}

fn cube_nan(mode: Mode, r: u32) -> u32 {
    if mode.ieee {
        F32.quiet(r as u64) as u32
    } else {
        r
    }
}

/// `v_cubeid_f32`: the face index 0..5 as an f32 (`cube.ops`, documented pseudo-code).
pub fn cubeid_f32(_mode: Mode, x: u32, y: u32, z: u32) -> u32 {
    let neg = |v: u32| v >> 31 != 0 && (v & 0x7fff_ffff) != 0;
    let id = match cube_axis(x, y, z) {
        2 => 4 + neg(z) as u32,
        1 => 2 + neg(y) as u32,
        _ => neg(x) as u32,
    };
    (id as f32).to_bits()
}
/// `v_cubesc_f32`: the face's s coordinate (`cube.ops`; a signalling NaN result keeps the
/// sign the instruction gives it and is quieted only with IEEE 1, measured).
pub fn cubesc_f32(mode: Mode, x: u32, y: u32, z: u32) -> u32 {
    let neg = |v: u32| f32::from_bits(v) < 0.0;
    let r = match cube_axis(x, y, z) {
        2 => {
            if neg(z) {
                x ^ 0x8000_0000
            } else {
                x
            }
        }
        1 => x,
        _ => {
            if neg(x) {
                z
            } else {
                z ^ 0x8000_0000
            }
        }
    };
    cube_nan(mode, r)
}
/// `v_cubetc_f32`: the face's t coordinate (`cube.ops`).
pub fn cubetc_f32(mode: Mode, x: u32, y: u32, z: u32) -> u32 {
    let neg = |v: u32| f32::from_bits(v) < 0.0;
    let r = match cube_axis(x, y, z) {
        1 => {
            if neg(y) {
                z ^ 0x8000_0000
            } else {
                z
            }
        }
        _ => y ^ 0x8000_0000,
    };
    cube_nan(mode, r)
}
/// `v_cubema_f32`: twice the major axis coordinate (`cube.ops`).
pub fn cubema_f32(mode: Mode, x: u32, y: u32, z: u32) -> u32 {
    let m = match cube_axis(x, y, z) {
        2 => z,
        1 => y,
        _ => x,
    };
    if F32.is_nan(m as u64) {
        return cube_nan(mode, m);
    }
    super::arith::mul_f32(mode, 0x4000_0000, m)
}

// ---------------------------------------------------------------------------------------
// Trigonometric range reduction.

/// The first 1184 fraction bits of 2/pi, most significant first (2/pi = 0.a2f9836e...
/// in hexadecimal), the length of the table LLVM's constant folder uses for
/// `llvm.amdgcn.trig.preop`. A mathematical constant: recomputed for this model with
/// mpmath at 1400 bits of precision, and equal to LLVM's table word for word.
const TWO_OVER_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];

/// `v_trig_preop_f64`: 53 bits of 2/pi for Payne-Hanek range reduction of `x`.
///
/// Following the AMD ISA guide's pseudo-code (RDNA 3, V_TRIG_PREOP_F64): the bit offset
/// into the fraction of 2/pi is `shift = 53 * seg[4:0]`, plus `E - 1077` when the biased
/// exponent `E` of `x` exceeds 1077; the 53 fraction bits from that offset, read as an
/// integer, are scaled by `2^(-53 - shift)`, or by `2^(75 - shift)` when `E >= 1968` (the
/// guide scales very large inputs up so their segments do not become denormal). The
/// sign of `x` is not used and the result is never negative.
///
/// Where the guide's 1201-bit constant and the hardware's table may differ, this follows
/// LLVM's constant folder (llvm/llvm-project,
/// llvm/lib/Target/AMDGPU/AMDGPUInstCombineIntrinsic.cpp, `Intrinsic::amdgcn_trig_preop`,
/// whose comment calls it hardware behaviour): a segment whose 96-bit window would run
/// past the 1184-bit table (`shift >= 1120`) gives +0. A result below the f64 normal
/// range is truncated, as the guide says ("Rounding is round-to-zero"), and flushed to +0
/// when the f64 denormal field flushes results. LLVM's folder rounds such results to
/// nearest, but inside the table the two agree: the cut always falls at the same bit of
/// 2/pi, the one of weight 2^-1075, which is 0 (checked for every shift from 1022 to 1119).
///
/// Returns `None` for a NaN `x`: the pseudo-code reads only its exponent (giving a
/// segment) while LLVM's folder returns the quieted NaN, so nothing says which the
/// hardware does. Rule `trig.preop` (documented), `f64.denorm.field` (inferred).
pub fn trig_preop_f64(mode: Mode, x: u64, seg: u32) -> Option<u64> {
    if F64.is_nan(x) {
        return None;
    }
    let exp = biased_exp(F64, x) as u32;
    let mut shift = (seg & 31) * 53;
    if exp > 1077 {
        shift += exp - 1077;
    }
    let word = (shift / 32) as usize;
    if word + 2 >= TWO_OVER_PI.len() {
        return Some(0);
    }
    // Bits 32*word .. 32*word + 96 of the fraction, most significant first; the 53 bits
    // from `shift` end `43 - shift % 32` places above the window's bottom.
    let window = (TWO_OVER_PI[word] as u128) << 64
        | (TWO_OVER_PI[word + 1] as u128) << 32
        | TWO_OVER_PI[word + 2] as u128;
    let bits = (window >> (43 - shift % 32)) & ((1u128 << 53) - 1);
    let mut k = -53 - shift as i32;
    if exp >= 1968 {
        k += 128;
    }
    let keep_out = env16_64(mode).keep_out;
    Some(pack_exact(F64, false, bits, k, Round::TowardZero, keep_out).bits)
}

// ---------------------------------------------------------------------------------------
// Interpolation arithmetic.

/// `v_interp_p1_f32` arithmetic: `p10 * i + p0` rounded once in the f32 fields (rule
/// `interp.f32`, inferred).
pub fn interp_p1_f32(mode: Mode, p0: u32, p10: u32, i: u32) -> u32 {
    super::arith::fma_f32(mode, p10, i, p0)
}
/// `v_interp_p2_f32` arithmetic: `p20 * j + acc` rounded once (rule `interp.f32`).
pub fn interp_p2_f32(mode: Mode, p20: u32, j: u32, acc: u32) -> u32 {
    super::arith::fma_f32(mode, p20, j, acc)
}

fn interp16(mode: Mode, p: u16, w: u32, add: u64, add_is_f16: bool, out: Fmt) -> u64 {
    let e32 = env32(mode);
    let e16 = env16_64(mode);
    let p = F16.flush(p as u64, !e16.keep_in);
    let w = F32.flush(w as u64, !e32.keep_in);
    let add32 = if add_is_f16 {
        widen16(F16.flush(add, !e16.keep_in) as u16) as u64
    } else {
        F32.flush(add, !e32.keep_in)
    };
    let p32 = widen16(p as u16) as u64;
    let quiet = mode.ieee;
    if let Some(n) = first_nan(F32, quiet, &[p32, w, add32]) {
        return if out == F16 {
            super::arith::narrow_nan32(n as u32) as u64
        } else {
            n
        };
    }
    let pr = product(unpack(F32, p32, false), unpack(F32, w, false));
    if pr == Num::Nan {
        return out.default_nan();
    }
    let env = if out == F16 { e16 } else { e32 };
    sum_num(
        out,
        Env {
            keep_in: true,
            ..env
        },
        pr,
        unpack(F32, add32, false),
    )
}

/// `v_interp_p1ll_f16` arithmetic: `p10 * i + p0` from f16 `p0`/`p10` and f32 `i`, the
/// exact value rounded once to f32 (rule `interp.f16`, measured on gfx1035 in the eight
/// IEEE/denormal combinations: f32 denormals flush `i` and the result, f16 denormals flush
/// `p0` and `p10`; NaN quieted only with IEEE 1).
pub fn interp_p1ll_f16(mode: Mode, p0: u16, p10: u16, i: u32) -> u32 {
    interp16(mode, p10, i, p0 as u64, true, F32) as u32
}
/// `v_interp_p1lv_f16` arithmetic: as [`interp_p1ll_f16`] with an f16 `s2` addend.
pub fn interp_p1lv_f16(mode: Mode, s2: u16, p10: u16, i: u32) -> u32 {
    interp16(mode, p10, i, s2 as u64, true, F32) as u32
}
/// `v_interp_p2_f16` arithmetic: `p20 * j + s2` with f16 `p20`, f32 `j` and f32 `s2`,
/// rounded once to f16 in the f16 fields; its NaN result is always quiet (rule
/// `interp.f16`).
pub fn interp_p2_f16(mode: Mode, p20: u16, j: u32, s2: u32) -> u16 {
    let r = interp16(mode, p20, j, s2 as u64, false, F16);
    let r = F16.quiet(r);
    ovfl16(mode, r, &[])
}
