//! Minimum, maximum, median, compares, class tests and the LDS float atomics.

use super::arith::{env16_64, env32};
use super::core::{Env, Fmt, F16, F32, F64};
use super::mode::Mode;

/// Orders two non-NaN values with -0 below +0.
#[inline]
fn less(f: Fmt, a: u64, b: u64) -> bool {
    let key = |x: u64| -> i128 {
        let m = f.mag(x) as i128;
        if f.is_neg(x) {
            -m - 1
        } else {
            m
        }
    };
    key(a) < key(b)
}

/// min or max with the RDNA NaN rules (rules `minmax.nan.ieee0`, `minmax.nan.ieee1`):
/// IEEE 1 returns a signalling NaN operand quieted (src0 checked first); otherwise a NaN
/// operand gives the other operand unchanged, src0 when both are NaN. Denormal inputs are
/// flushed by the field's input bit (`minmax.denorm_inputs`; the forms and fields it does not measure, `minmax.denorm_inputs.others`).
#[inline]
pub(crate) fn g_minmax(f: Fmt, env: Env, a: u64, b: u64, max: bool) -> u64 {
    let a = f.flush(a, !env.keep_in);
    let b = f.flush(b, !env.keep_in);
    if env.ieee {
        if f.is_snan(a) {
            return f.quiet(a);
        }
        if f.is_snan(b) {
            return f.quiet(b);
        }
    }
    if f.is_nan(b) {
        return a;
    }
    if f.is_nan(a) {
        return b;
    }
    if less(f, a, b) != max {
        a
    } else {
        b
    }
}

fn g_med3(f: Fmt, env: Env, a: u64, b: u64, c: u64) -> u64 {
    let (fa, fb, fc) = (
        f.flush(a, !env.keep_in),
        f.flush(b, !env.keep_in),
        f.flush(c, !env.keep_in),
    );
    if f.is_nan(fa) || f.is_nan(fb) || f.is_nan(fc) {
        let m = g_minmax(f, env, a, b, false);
        return g_minmax(f, env, m, c, false);
    }
    let lo = g_minmax(f, env, fa, fb, false);
    let hi = g_minmax(f, env, fa, fb, true);
    g_minmax(f, env, hi, g_minmax(f, env, lo, fc, true), false)
}

macro_rules! minmax_family {
    ($t:ty, $fmt:expr, $env:ident, $min:ident, $max:ident, $min3:ident, $max3:ident, $med3:ident, $name:literal) => {
        #[doc = concat!("`v_min_", $name, "`. Rules `minmax.nan.ieee0`, `minmax.nan.ieee1`, `minmax.signed_zero` (-0 below +0), `minmax.denorm_inputs`.")]
        pub fn $min(mode: Mode, a: $t, b: $t) -> $t {
            g_minmax($fmt, $env(mode), a as u64, b as u64, false) as $t
        }
        #[doc = concat!("`v_max_", $name, "`. Rules as [`", stringify!($min), "`].")]
        pub fn $max(mode: Mode, a: $t, b: $t) -> $t {
            g_minmax($fmt, $env(mode), a as u64, b as u64, true) as $t
        }
        #[doc = concat!("`v_min3_", $name, "`: `min(min(a, b), c)` (rule `minmax.three_as_pairs`).")]
        pub fn $min3(mode: Mode, a: $t, b: $t, c: $t) -> $t {
            let e = $env(mode);
            g_minmax($fmt, e, g_minmax($fmt, e, a as u64, b as u64, false), c as u64, false) as $t
        }
        #[doc = concat!("`v_max3_", $name, "`: `max(max(a, b), c)` (rule `minmax.three_as_pairs`).")]
        pub fn $max3(mode: Mode, a: $t, b: $t, c: $t) -> $t {
            let e = $env(mode);
            g_minmax($fmt, e, g_minmax($fmt, e, a as u64, b as u64, true), c as u64, true) as $t
        }
        #[doc = concat!("`v_med3_", $name, "`: the median; with any NaN operand it is `min3` (rule `minmax.med3_nan`).")]
        pub fn $med3(mode: Mode, a: $t, b: $t, c: $t) -> $t {
            g_med3($fmt, $env(mode), a as u64, b as u64, c as u64) as $t
        }
    };
}

minmax_family!(u32, F32, env32, min_f32, max_f32, min3_f32, max3_f32, med3_f32, "f32");
minmax_family!(u16, F16, env16_64, min_f16, max_f16, min3_f16, max3_f16, med3_f16, "f16");

/// `v_min_f64` (rules of [`min_f32`]; measured with IEEE 0 and 1, rule
/// `minmax.f64_denorm_inputs` inferred for flushed f64 inputs).
pub fn min_f64(mode: Mode, a: u64, b: u64) -> u64 {
    g_minmax(F64, env16_64(mode), a, b, false)
}
/// `v_max_f64` (rules of [`min_f64`]).
pub fn max_f64(mode: Mode, a: u64, b: u64) -> u64 {
    g_minmax(F64, env16_64(mode), a, b, true)
}

// ---------------------------------------------------------------------------------------
// Compares.

/// A VOPC float condition, numbered as the low 4 bits of the VOPC opcode
/// (`v_cmp_f_f32` = 0x00 ... `v_cmp_tru_f32` = 0x0f).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// Always false.
    F,
    /// a < b.
    Lt,
    /// a == b.
    Eq,
    /// a <= b.
    Le,
    /// a > b.
    Gt,
    /// a < b or a > b (ordered not-equal).
    Lg,
    /// a >= b.
    Ge,
    /// Neither is NaN.
    O,
    /// Either is NaN.
    U,
    /// Not a >= b.
    Nge,
    /// Not (a < b or a > b).
    Nlg,
    /// Not a > b.
    Ngt,
    /// Not a <= b.
    Nle,
    /// Not a == b.
    Neq,
    /// Not a < b.
    Nlt,
    /// Always true.
    Tru,
}

impl Cmp {
    /// The condition of VOPC opcode bits 3:0.
    pub const fn from_code(code: u8) -> Cmp {
        match code & 15 {
            0 => Cmp::F,
            1 => Cmp::Lt,
            2 => Cmp::Eq,
            3 => Cmp::Le,
            4 => Cmp::Gt,
            5 => Cmp::Lg,
            6 => Cmp::Ge,
            7 => Cmp::O,
            8 => Cmp::U,
            9 => Cmp::Nge,
            10 => Cmp::Nlg,
            11 => Cmp::Ngt,
            12 => Cmp::Nle,
            13 => Cmp::Neq,
            14 => Cmp::Nlt,
            _ => Cmp::Tru,
        }
    }
}

fn g_cmp(f: Fmt, cond: Cmp, a: u64, b: u64) -> bool {
    let unordered = f.is_nan(a) || f.is_nan(b);
    let (lt, eq, gt) = if unordered {
        (false, false, false)
    } else {
        let za = f.is_zero(a);
        let zb = f.is_zero(b);
        if za && zb {
            (false, true, false)
        } else {
            let l = less(f, a, b);
            let e = a == b;
            (l, e, !l && !e)
        }
    };
    match cond {
        Cmp::F => false,
        Cmp::Lt => lt,
        Cmp::Eq => eq,
        Cmp::Le => lt || eq,
        Cmp::Gt => gt,
        Cmp::Lg => lt || gt,
        Cmp::Ge => gt || eq,
        Cmp::O => !unordered,
        Cmp::U => unordered,
        Cmp::Nge => !(gt || eq),
        Cmp::Nlg => !(lt || gt),
        Cmp::Ngt => !gt,
        Cmp::Nle => !(lt || eq),
        Cmp::Neq => !eq,
        Cmp::Nlt => !lt,
        Cmp::Tru => true,
    }
}

/// `v_cmp_*_f32` / `v_cmpx_*_f32`: the operands compared in sign-magnitude order (both
/// zeros equal, NaN unordered); a denormal input is read as its signed zero when bit 0 of
/// the f32 field is clear and compared exactly otherwise.
///
/// Rule `cmp.denorm_inputs` (measured).
pub fn cmp_f32(mode: Mode, cond: Cmp, a: u32, b: u32) -> bool {
    let fl = !mode.denorm32().keep_in();
    g_cmp(F32, cond, F32.flush(a as u64, fl), F32.flush(b as u64, fl))
}
/// `v_cmp_*_f16` (rule `cmp.denorm_inputs`, the f16 field; inferred for f16).
pub fn cmp_f16(mode: Mode, cond: Cmp, a: u16, b: u16) -> bool {
    let fl = !mode.denorm16_64().keep_in();
    g_cmp(F16, cond, F16.flush(a as u64, fl), F16.flush(b as u64, fl))
}
/// `v_cmp_*_f64` (rule `cmp.denorm_inputs`, the f64 field; inferred for f64).
pub fn cmp_f64(mode: Mode, cond: Cmp, a: u64, b: u64) -> bool {
    let fl = !mode.denorm16_64().keep_in();
    g_cmp(F64, cond, F64.flush(a, fl), F64.flush(b, fl))
}

fn g_class(f: Fmt, a: u64, mask: u32) -> bool {
    let neg = f.is_neg(a);
    let bit = if f.is_snan(a) {
        0
    } else if f.is_qnan(a) {
        1
    } else if f.is_inf(a) {
        if neg {
            2
        } else {
            9
        }
    } else if f.is_zero(a) {
        if neg {
            5
        } else {
            6
        }
    } else if f.is_denorm(a) {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        3
    } else {
        8
    };
    mask >> bit & 1 != 0
}

/// `v_cmp_class_f32`: whether `a`'s class is in `mask` (bit 0 signalling NaN, 1 quiet
/// NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf), read
/// from the bits (rule `class.raw_bits`, documented in the RDNA ISA guide's VOPC
/// section; not flushing a denormal is inferred).
pub fn cmp_class_f32(a: u32, mask: u32) -> bool {
    g_class(F32, a as u64, mask)
}
/// `v_cmp_class_f16` (see [`cmp_class_f32`]).
pub fn cmp_class_f16(a: u16, mask: u32) -> bool {
    g_class(F16, a as u64, mask)
}
/// `v_cmp_class_f64` (see [`cmp_class_f32`]).
pub fn cmp_class_f64(a: u64, mask: u32) -> bool {
    g_class(F64, a, mask)
}

// ---------------------------------------------------------------------------------------
// LDS float atomics (seed 003).

fn lds_minmax(f: Fmt, flush: bool, old: u64, data: u64, max: bool) -> u64 {
    let o = f.flush(old, flush);
    let d = f.flush(data, flush);
    if f.is_snan(d) {
        f.quiet(d)
    } else if f.is_snan(o) {
        f.quiet(o)
    } else if f.is_qnan(o) {
        d
    } else if f.is_qnan(d) || less(f, o, d) != max {
        o
    } else {
        d
    }
}

fn lds_cmpst(f: Fmt, flush: bool, old: u64, cmp: u64, src: u64) -> u64 {
    let o = f.flush(old, flush);
    let c = f.flush(cmp, flush);
    let equal = !f.is_nan(o) && !f.is_nan(c) && (o == c || (f.is_zero(o) && f.is_zero(c)));
    if equal {
        src
    } else {
        old
    }
}

/// `ds_min_f32` / `ds_min_rtn_f32` (and the buffer float atomics): the new memory value
/// from the old one and the data; the instruction returns `old` unchanged.
///
/// Rule `lds.float_minmax` (seed 003, measured on gfx1036): both operands flushed to signed
/// zeros when bit 0 of the f32 denormal field is clear; a signalling-NaN data is stored
/// quieted, else a signalling-NaN old value is stored quieted, else a quiet-NaN old value
/// is replaced by the data, else a quiet-NaN data loses, else the ordered compare with -0
/// below +0 decides; the flushed value is written even when the old value wins. IEEE_MODE
/// has no effect.
pub fn lds_min_f32(mode: Mode, old: u32, data: u32) -> u32 {
    lds_minmax(
        F32,
        !mode.denorm32().keep_in(),
        old as u64,
        data as u64,
        false,
    ) as u32
}
/// `ds_max_f32` / `ds_max_rtn_f32` (rule `lds.float_minmax`).
pub fn lds_max_f32(mode: Mode, old: u32, data: u32) -> u32 {
    lds_minmax(
        F32,
        !mode.denorm32().keep_in(),
        old as u64,
        data as u64,
        true,
    ) as u32
}
/// `ds_min_f64` / `ds_min_rtn_f64`: rule `lds.float_minmax` with the f16/f64 field.
pub fn lds_min_f64(mode: Mode, old: u64, data: u64) -> u64 {
    lds_minmax(F64, !mode.denorm16_64().keep_in(), old, data, false)
}
/// `ds_max_f64` / `ds_max_rtn_f64` (rule `lds.float_minmax`).
pub fn lds_max_f64(mode: Mode, old: u64, data: u64) -> u64 {
    lds_minmax(F64, !mode.denorm16_64().keep_in(), old, data, true)
}
/// `ds_cmpst_f32` / `ds_cmpst_rtn_f32` (`DATA0` = `cmp`, `DATA1` = `src`): the new memory
/// value. The flushed old value and `cmp` are compared (both zeros equal, NaN never
/// equal); when equal `src` is stored as given, otherwise memory is unchanged.
///
/// Rule `lds.float_cmpst` (seed 003, measured; a denormal or signalling-NaN `src` is
/// stored as given, not measured).
pub fn lds_cmpst_f32(mode: Mode, old: u32, cmp: u32, src: u32) -> u32 {
    lds_cmpst(
        F32,
        !mode.denorm32().keep_in(),
        old as u64,
        cmp as u64,
        src as u64,
    ) as u32
}
/// `ds_cmpst_f64` / `ds_cmpst_rtn_f64` (rule `lds.float_cmpst`, f16/f64 field).
pub fn lds_cmpst_f64(mode: Mode, old: u64, cmp: u64, src: u64) -> u64 {
    lds_cmpst(F64, !mode.denorm16_64().keep_in(), old, cmp, src)
}
/// `ds_add_f32` / `ds_add_rtn_f32`: `old + data` as [`super::add_f32`] with IEEE_MODE
/// treated as 0 (rule `lds.add_f32`, inferred: seed 000 measured that it ignores IEEE_MODE
/// and depends on the f32 denormal field, the exact bits were not recorded).
pub fn lds_add_f32(mode: Mode, old: u32, data: u32) -> u32 {
    super::arith::add_f32(
        Mode {
            ieee: false,
            ..mode
        },
        old,
        data,
    )
}
