//! The buffer format conversions of format loads and stores (`buffer_*_format_*`, `tbuffer_*_format_*`) in
//! integer operations, bit-exact with `reference_model::exec::format`, which defines them (rules `buffer.*`
//! of `reference_model::rules`: `buffer.format_convert`, `buffer.load_small_float`, `buffer.load_f16_f10`,
//! `buffer.d16_load_convert`, `buffer.store_norm`, `buffer.store_norm_tie`, `buffer.store_scaled_as_norm`,
//! `buffer.store_int_saturate`, `buffer.store_float_rtz`, `buffer.store_float_nan`,
//! `buffer.d16_store_convert`).
//!
//! A `buffer_*_format` instruction takes its format from the V#, which is data: the module decodes it in
//! the shader, so every function here takes the component width and the numeric kind as values ([`Lower`]
//! values, constants when the format is known, as for MTBUF) and computes the conversion for whichever kind
//! it is. The conversions do not depend on the MODE register (the format unit's, not the shader's float
//! mode), so there is one engine and no mode parameter.
//!
//! How the exact results are formed without division or host floats:
//! - **UNORM / SNORM loads**: `a / (2^d - 1)` (d = the width, or the width - 1 for SNORM, whose magnitude is
//!   clamped to `2^(d-1) - 1`) is, for `0 < a < 2^d - 1`, the binary fraction `0.aaaa...` with the d-bit
//!   pattern `a` repeated for ever (`a * (2^-d + 2^-2d + ...)`, no carries since `a < 2^d`). Its first 64
//!   bits are built by placing `a` at the top of a u64 and or-ing in copies shifted by d, 2d, 4d, ... (six
//!   doublings fill 64 bits even for d = 1); the rest is never all zero, so a sticky bit is always set and
//!   one rounding ([`crate::sem::float`]'s `round_pack`, to nearest even, denormals kept) gives the
//!   correctly rounded f32 or f16. `a = 2^d - 1` is exactly 1.0 and `a = 0` is +0.
//! - **USCALED / SSCALED loads**: the integer (at most 16 bits) rounded by the same routine (exact for f32;
//!   to nearest even for the d16 f16, a magnitude past 65504 giving 65504 as the model does).
//! - **FLOAT loads**: f16 widened exactly (`widen16`, NaN payloads kept); the unsigned 11- and 10-bit floats
//!   have f16's 5-bit exponent and bias, so they are f16 bit patterns shifted left by 4 or 5. A d16 load of
//!   a 32-bit FLOAT narrows it toward zero like a store.
//! - **Stores**: UNORM/USCALED and SNORM/SSCALED clamp the f32 to [0, 1] or [-1, 1] and round `x * m` to an
//!   integer, ties to even: `x = sig * 2^exp` with a 24-bit `sig`, so `sig * m` is exact in 40 bits and one
//!   shift with rounding gives the code. FLOAT narrows toward zero: to f16 by the same rounding routine in
//!   round-toward-zero, then to the 11- and 10-bit floats by dropping 4 or 5 fraction bits (their values are
//!   a subset of f16's with the same exponent range, and truncating twice toward zero is truncating once).
//!   NaNs keep the top of their payload (at least 1); the unsigned formats store every other negative value
//!   as 0.
//!
//! `tests/formats.rs` evaluates every function through [`crate::lower::Eval`] against the model's on every
//! code of every component width and kind (loads, both register widths), every 16-bit d16 store value, and
//! f32 store inputs around every code's rounding midpoint plus special and random values.

use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::sem::float::{round_pack, unpack, widen16, Env, Fmt, F16, F32};
use reference_model::exec::format::{lookup, Num};

/// The numeric kind numbers the info word carries (`Num` in the order of LLVM's format names).
pub const UNORM: u32 = 0;
/// SNORM.
pub const SNORM: u32 = 1;
/// USCALED.
pub const USCALED: u32 = 2;
/// SSCALED.
pub const SSCALED: u32 = 3;
/// UINT.
pub const UINT: u32 = 4;
/// SINT.
pub const SINT: u32 = 5;
/// FLOAT.
pub const FLOAT: u32 = 6;

/// The kind number of a model format kind.
pub fn kind(num: Num) -> u32 {
    match num {
        Num::Unorm => UNORM,
        Num::Snorm => SNORM,
        Num::Uscaled => USCALED,
        Num::Sscaled => SSCALED,
        Num::Uint => UINT,
        Num::Sint => SINT,
        Num::Float => FLOAT,
    }
}

/// The info word of format `code` as the module's format table gives it, 0 for a code without a gfx10
/// format (0 and 78 to 127: the model refuses them, rule `buffer.format_table`). Bits 0..3 the component
/// count, 3..6 the kind ([`UNORM`] ... [`FLOAT`]), 6..8 the log2 of the element's alignment (the component
/// size for formats of equal 8-, 16- or 32-bit components, else 4 bytes, as the model checks it), and from
/// bit 8 each component's width in 6 bits, X first (an absent component 0). Components lie in the element
/// in order, X in the lowest bits, and none crosses a dword boundary.
pub fn info_of(code: u32) -> u32 {
    let Some(f) = u8::try_from(code).ok().and_then(|c| lookup(c).ok()) else {
        return 0;
    };
    let uniform = f.bits[0] % 8 == 0 && f.bits[..f.comps].iter().all(|&b| b == f.bits[0]);
    let align = if uniform { (f.bits[0] / 8).min(4) } else { 4 };
    let mut info = f.comps as u32 | kind(f.num) << 3 | align.trailing_zeros() << 6;
    for c in 0..f.comps {
        info |= f.bits[c] << (8 + 6 * c);
    }
    info
}

/// The body of the module's format table: `code` (u32, 0..=127) to its [`info_of`] word, one compare and
/// select per gfx10 format.
pub fn info<L: Lower>(e: &mut L, code: L::V) -> L::V {
    let mut r = e.k32(0);
    for c in 1..128u32 {
        let i = info_of(c);
        if i == 0 {
            continue;
        }
        let k = e.k32(c);
        let is = e.cmp(Cmp::Eq, code, k);
        let v = e.k32(i);
        r = e.select(is, v, r);
    }
    r
}

/// The fields of an info word: (components, kind).
pub fn comps_kind<L: Lower>(e: &mut L, info: L::V) -> (L::V, L::V) {
    (e.field(info, 0, 3), e.field(info, 3, 3))
}

/// The width of component `c` (a u32 value 0..=3) of an info word.
pub fn width<L: Lower>(e: &mut L, info: L::V, c: L::V) -> L::V {
    let s = e.bink(Bin::Mul, c, 6);
    let s = e.bink(Bin::Add, s, 8);
    let w = e.bin(Bin::LShr, info, s);
    e.bink(Bin::And, w, 63)
}

/// The bit position of component `c` (0..=3, a constant) in the element: the widths before it added.
pub fn shift_of<L: Lower>(e: &mut L, info: L::V, c: u32) -> L::V {
    let mut s = e.k32(0);
    for k in 0..c {
        let w = e.field(info, 8 + 6 * k, 6);
        s = e.bin(Bin::Add, s, w);
    }
    s
}

/// The element's bytes: all widths added, over 8.
pub fn element_bytes<L: Lower>(e: &mut L, info: L::V) -> L::V {
    let s = shift_of(e, info, 4);
    e.bink(Bin::LShr, s, 3)
}

/// The mask of the low `bits` (u32 0..=32) bits.
fn low_mask<L: Lower>(e: &mut L, bits: L::V) -> L::V {
    let b = e.zext(bits);
    let one = e.k64(1);
    let m = e.bin(Bin::Shl, one, b);
    let m = e.bink(Bin::Sub, m, 1);
    e.trunc(m)
}

/// `v`'s low `bits` (u32 1..=32) bits sign-extended to 32 bits.
fn sext_bits<L: Lower>(e: &mut L, v: L::V, bits: L::V) -> L::V {
    let k32 = e.k32(32);
    let s = e.bin(Bin::Sub, k32, bits);
    let l = e.bin(Bin::Shl, v, s);
    e.bin(Bin::AShr, l, s)
}

fn is<L: Lower>(e: &mut L, v: L::V, k: u32) -> L::V {
    let kv = e.k32(k);
    e.cmp(Cmp::Eq, v, kv)
}

/// Round to nearest even, denormals kept: the environment the format unit rounds in (no MODE field
/// applies).
fn nearest<L: Lower>(e: &mut L, fmt: Fmt) -> Env<L::V> {
    round_env(e, fmt, 0)
}

fn round_env<L: Lower>(e: &mut L, fmt: Fmt, rm: u32) -> Env<L::V> {
    let yes = e.kbool(true);
    let no = e.kbool(false);
    Env {
        fmt,
        rm: e.k32(rm),
        keep_in: yes,
        keep_out: yes,
        ieee: no,
        ovfl: no,
    }
}

/// The first 64 bits of `a / (2^d - 1)` for `0 < a < 2^d - 1` (u32 `a`, `d` 1..=16): the d-bit pattern `a`
/// repeated from the top of a u64 (see the module docs).
fn repeat<L: Lower>(e: &mut L, a: L::V, d: L::V) -> L::V {
    let k64 = e.k32(64);
    let top = e.bin(Bin::Sub, k64, d);
    let topw = e.zext(top);
    let a64 = e.zext(a);
    let mut t = e.bin(Bin::Shl, a64, topw);
    for i in 0..6 {
        // Copies `d << i` further down; a shift of 64 or more adds nothing (the word is already full).
        let s = e.bink(Bin::Shl, d, i);
        let inside = e.cmp(Cmp::ULt, s, k64);
        let sw = e.zext(s);
        let moved = e.bin(Bin::LShr, t, sw);
        let z = e.k64(0);
        let moved = e.select(inside, moved, z);
        t = e.bin(Bin::Or, t, moved);
    }
    t
}

/// Converts component code `c` (its low `bits` bits; `bits` a u32 of the format's widths 2..=32) of kind
/// `num` to the 32-bit register value a format load writes (`d16` false: the model's `format::load32`) or
/// the 16-bit value a d16 load writes in the low half (`d16`: `format::load16`).
pub fn load<L: Lower>(e: &mut L, c: L::V, bits: L::V, num: L::V, d16: bool) -> L::V {
    let fmt = if d16 { F16 } else { F32 };
    let sx = sext_bits(e, c, bits);
    let z = e.k32(0);
    let snorm = is(e, num, SNORM);
    let sscaled = is(e, num, SSCALED);
    let uscaled = is(e, num, USCALED);
    let signed = e.bor(snorm, sscaled);
    let scaled = e.bor(sscaled, uscaled);
    // Sign and magnitude of the integer (norm and scaled kinds).
    let lt = e.cmp(Cmp::SLt, sx, z);
    let neg = e.band(signed, lt);
    let nx = e.bin(Bin::Sub, z, sx);
    let absv = e.select(neg, nx, c);
    let sign = e.b2i(neg, Ty::I32);
    // Norm: a / (2^d - 1), the SNORM magnitude clamped (-2^(d) reads -1.0).
    let one32 = e.k32(1);
    let dm = e.select(snorm, one32, z);
    let d = e.bin(Bin::Sub, bits, dm);
    let m = low_mask(e, d);
    let a = e.bin(Bin::UMin, absv, m);
    let t = repeat(e, a, d);
    let t = e.bink(Bin::LShr, t, 1);
    let norm_sig = e.bink(Bin::Or, t, 1);
    let norm_exp = e.k32(-63i32 as u32);
    let exact_one = e.cmp(Cmp::Eq, a, m);
    // Scaled: the integer itself.
    let scaled_sig = e.zext(absv);
    let sig = e.select(scaled, scaled_sig, norm_sig);
    let exp = e.select(scaled, z, norm_exp);
    let mag = e.select(scaled, absv, a);
    let zero = e.cmp(Cmp::Eq, mag, z);
    let one64 = e.k64(1);
    let sig = e.select(zero, one64, sig);
    let env = nearest(e, fmt);
    let r = round_pack(e, &env, sign, sig, exp);
    let sb = e.bink(Bin::Shl, sign, fmt.sign_bit() as u64);
    let one_bits = e.k32(if d16 { 0x3c00 } else { 0x3f80_0000 });
    let one_bits = e.bin(Bin::Or, sb, one_bits);
    let not_scaled = e.bnot(scaled);
    let is_one = e.band(not_scaled, exact_one);
    let r = e.select(is_one, one_bits, r);
    let r = if d16 {
        // USCALED/SSCALED past 65504 round to infinity; the model gives 65504 of the sign.
        let mg = e.bink(Bin::And, r, 0x7fff);
        let inf = is(e, mg, 0x7c00);
        let sat = e.band(scaled, inf);
        let less = e.bink(Bin::Sub, r, 1);
        e.select(sat, less, r)
    } else {
        r
    };
    let norm_or_scaled = e.select(zero, z, r);
    // FLOAT.
    let b32 = is(e, bits, 32);
    let b16 = is(e, bits, 16);
    let k15 = e.k32(15);
    let up = e.bin(Bin::Sub, k15, bits);
    let as_f16 = e.bin(Bin::Shl, c, up);
    let as_f16 = e.select(b16, c, as_f16);
    let float = if d16 {
        let n = narrow_rtz16(e, c);
        e.select(b32, n, as_f16)
    } else {
        let w = widen16(e, as_f16);
        e.select(b32, c, w)
    };
    // UINT / SINT.
    let (uint, sint) = if d16 {
        let u = e.bink(Bin::UMin, c, 0xffff);
        let u = e.select(b32, u, c);
        let lo = e.k32(-0x8000i32 as u32);
        let hi = e.k32(0x7fff);
        let s = e.bin(Bin::SMax, sx, lo);
        let s = e.bin(Bin::SMin, s, hi);
        let s = e.select(b32, s, sx);
        (u, e.bink(Bin::And, s, 0xffff))
    } else {
        (c, sx)
    };
    let is_float = is(e, num, FLOAT);
    let is_uint = is(e, num, UINT);
    let is_sint = is(e, num, SINT);
    let r = e.select(is_float, float, norm_or_scaled);
    let r = e.select(is_uint, uint, r);
    e.select(is_sint, sint, r)
}

/// The value of a DST_SEL "one" (and of a missing W): 1 for UINT/SINT, else 1.0 as an f32 or, for `d16`,
/// an f16.
pub fn one<L: Lower>(e: &mut L, num: L::V, d16: bool) -> L::V {
    let k4 = e.k32(UINT);
    let int = e.cmp(Cmp::UGe, num, k4);
    let k6 = e.k32(FLOAT);
    let below = e.cmp(Cmp::ULt, num, k6);
    let int = e.band(int, below);
    let i = e.k32(1);
    let f = e.k32(if d16 { 0x3c00 } else { 0x3f80_0000 });
    e.select(int, i, f)
}

/// f32 bits `x` narrowed to f16 toward zero (the model's `narrow_rtz` to f16): a finite value past the largest
/// gives the largest, an infinity stays infinite, a NaN keeps its sign and the top ten bits of its payload (at
/// least 1), denormals are kept (f32 denormals are below f16's smallest and give a signed zero).
fn narrow_rtz16<L: Lower>(e: &mut L, x: L::V) -> L::V {
    let env32 = nearest(e, F32);
    let u = unpack(e, &env32, x);
    let nan = crate::sem::float::is_nan(e, F32, x);
    let s15 = e.bink(Bin::Shl, u.sign, 15);
    let m = e.zext(u.sig);
    let special = e.bor(u.zero, u.inf);
    let one = e.k64(1);
    let m = e.select(special, one, m);
    let env16 = round_env(e, F16, 3);
    let r = round_pack(e, &env16, u.sign, m, u.exp);
    let inf = e.bink(Bin::Or, s15, 0x7c00);
    let r = e.select(u.inf, inf, r);
    let r = e.select(u.zero, s15, r);
    let pay = e.bink(Bin::LShr, x, 13);
    let pay = e.bink(Bin::And, pay, 0x3ff);
    let pay = e.bink(Bin::UMax, pay, 1);
    let q = e.bin(Bin::Or, inf, pay);
    e.select(nan, q, r)
}

/// The normalized store conversion: f32 `x` clamped to [0, 1] (`signed` false) or [-1, 1] (`signed` true,
/// a value, for the kinds chosen at run time), times `m` (u32 below 2^16), rounded to an integer, ties to
/// even, two's complement; NaN, zeros and (unsigned) negative values give 0 (the model's `norm_store`).
fn norm_store<L: Lower>(e: &mut L, x: L::V, m: L::V, signed: L::V) -> L::V {
    let z = e.k32(0);
    let mag = e.bink(Bin::And, x, 0x7fff_ffff);
    let sign = e.bink(Bin::LShr, x, 31);
    let neg = e.nz(sign);
    let kinf = e.k32(0x7f80_0000);
    let nan = e.cmp(Cmp::UGt, mag, kinf);
    let zero = e.cmp(Cmp::Eq, mag, z);
    let unsigned = e.bnot(signed);
    let dropped = e.band(neg, unsigned);
    let nothing = e.bor(nan, zero);
    let nothing = e.bor(nothing, dropped);
    let k1 = e.k32(0x3f80_0000);
    let big = e.cmp(Cmp::UGe, mag, k1);
    // |x| < 1: x = sig * 2^exp with exp <= -24, so sig * m fits 40 bits and the code is that shifted
    // right by -exp, rounded.
    let ef = e.bink(Bin::LShr, mag, 23);
    let frac = e.bink(Bin::And, mag, 0x7f_ffff);
    let e0 = e.cmp(Cmp::Eq, ef, z);
    let imp = e.bink(Bin::Or, frac, 0x80_0000);
    let sig = e.select(e0, frac, imp);
    let one = e.k32(1);
    let ef = e.select(e0, one, ef);
    // -exp = 150 - ef.
    let k150 = e.k32(150);
    let s = e.bin(Bin::Sub, k150, ef);
    let sig64 = e.zext(sig);
    let m64 = e.zext(m);
    let p = e.bin(Bin::Mul, sig64, m64);
    let k = crate::sem::float::shr_round(e, z, z, p, s);
    let k = e.trunc(k);
    let k = e.select(big, m, k);
    let nk = e.bin(Bin::Sub, z, k);
    let k = e.select(neg, nk, k);
    e.select(nothing, z, k)
}

/// Converts a 32-bit register value `x` (`d16` false: the model's `format::store32`) or the 16-bit value in
/// the low half of `x` (`d16`: `format::store16`) to the code of a component `bits` (u32 2..=32) wide of kind
/// `num`, in the low `bits` bits (the bits above are not meaningful: the caller masks).
pub fn store<L: Lower>(e: &mut L, x: L::V, bits: L::V, num: L::V, d16: bool) -> L::V {
    let is_float = is(e, num, FLOAT);
    let is_uint = is(e, num, UINT);
    let is_sint = is(e, num, SINT);
    let b32 = is(e, bits, 32);
    let b16 = is(e, bits, 16);
    let (x, half) = if d16 {
        // A 16-bit FLOAT component stores the half as is; UINT and SINT read it as an integer; the other
        // kinds widen it exactly to f32 first.
        let h = e.bink(Bin::And, x, 0xffff);
        let sh = e.sext_in(h, 16);
        let w = widen16(e, h);
        let v = e.select(is_uint, h, w);
        let v = e.select(is_sint, sh, v);
        (v, Some(h))
    } else {
        (x, None)
    };
    let z = e.k32(0);
    // UINT and SINT of fewer than 32 bits saturate.
    let max = low_mask(e, bits);
    let u = e.bin(Bin::UMin, x, max);
    let u = e.select(b32, x, u);
    let one = e.k32(1);
    let bm1 = e.bin(Bin::Sub, bits, one);
    let hi = low_mask(e, bm1);
    let lo = e.bin(Bin::Sub, z, hi);
    let lo = e.bink(Bin::Sub, lo, 1);
    let s = e.bin(Bin::SMin, x, hi);
    let s = e.bin(Bin::SMax, s, lo);
    let s = e.select(b32, x, s);
    // Norm and scaled kinds.
    let snorm = is(e, num, SNORM);
    let sscaled = is(e, num, SSCALED);
    let signed = e.bor(snorm, sscaled);
    let m = e.select(signed, hi, max);
    let n = norm_store(e, x, m, signed);
    // FLOAT: f16 toward zero, then 11 or 10 bits by dropping fraction bits; unsigned formats store negative
    // values (not NaNs) as 0; NaNs keep the top of their payload.
    let h = narrow_rtz16(e, x);
    let k15 = e.k32(15);
    let down = e.bin(Bin::Sub, k15, bits);
    let small = e.bin(Bin::LShr, h, down);
    let k0x7f = e.k32(0x7f80_0000);
    let mag = e.bink(Bin::And, x, 0x7fff_ffff);
    let nan = e.cmp(Cmp::UGt, mag, k0x7f);
    let neg = e.cmp(Cmp::SLt, x, z);
    let small = e.select(neg, z, small);
    // NaN: infinity | max(payload >> (23 - mantissa bits), 1), mantissa bits = bits - 5.
    let k28 = e.k32(28);
    let ps = e.bin(Bin::Sub, k28, bits);
    let pay = e.bink(Bin::And, x, 0x7f_ffff);
    let pay = e.bin(Bin::LShr, pay, ps);
    let pay = e.bink(Bin::UMax, pay, 1);
    let k5 = e.k32(5);
    let mb = e.bin(Bin::Sub, bits, k5);
    let k31 = e.k32(31);
    let inf = e.bin(Bin::Shl, k31, mb);
    let qn = e.bin(Bin::Or, inf, pay);
    let small = e.select(nan, qn, small);
    let f = e.select(b16, h, small);
    let f = e.select(b32, x, f);
    let f = match half {
        Some(h) => e.select(b16, h, f),
        None => f,
    };
    let r = e.select(is_float, f, n);
    let r = e.select(is_uint, u, r);
    e.select(is_sint, s, r)
}

/// One output of a format load as DST_SEL `sel` (u32 0..=7) picks it, from the element's four
/// little-endian dwords `d` (bytes past the element are not read) and the format's [`info_of`] word:
/// component X..W (sel 4..7) converted by [`load`] (a component the format lacks reads 0, a missing W reads
/// [`one`]), [`one`] for sel 1 and 0 otherwise (sel 2 and 3 are reserved: the module refuses them before
/// this runs). The model's `format_access` load path for one output of an in-range lane.
pub fn select_load<L: Lower>(e: &mut L, d: [L::V; 4], info: L::V, sel: L::V, d16: bool) -> L::V {
    let (comps, num) = comps_kind(e, info);
    let k4 = e.k32(4);
    let valid = e.cmp(Cmp::UGe, sel, k4);
    let ci = e.bin(Bin::Sub, sel, k4);
    let ci = e.bink(Bin::And, ci, 3);
    let w = width(e, info, ci);
    // The component's bit position and its dword (no component crosses one).
    let mut at = e.k32(0);
    for c in 1..4 {
        let s = shift_of(e, info, c);
        let here = is(e, ci, c);
        at = e.select(here, s, at);
    }
    let dw = e.bink(Bin::LShr, at, 5);
    let bit = e.bink(Bin::And, at, 31);
    let mut word = d[0];
    for (k, &dk) in d.iter().enumerate().skip(1) {
        let here = is(e, dw, k as u32);
        word = e.select(here, dk, word);
    }
    let code = e.bin(Bin::LShr, word, bit);
    let mask = low_mask(e, w);
    let code = e.bin(Bin::And, code, mask);
    let v = load(e, code, w, num, d16);
    let o = one(e, num, d16);
    let z = e.k32(0);
    let present = e.cmp(Cmp::ULt, ci, comps);
    let is_w = is(e, ci, 3);
    let missing = e.select(is_w, o, z);
    let comp = e.select(present, v, missing);
    let is1 = is(e, sel, 1);
    let constant = e.select(is1, o, z);
    e.select(valid, comp, constant)
}

/// The code of component `c` (u32 0..=3) of a format store from its data `x` (a register, or for `d16` a
/// 16-bit value in the low half), converted by [`store`] and masked to the component's width; 0 for a
/// component the format lacks (rule `buffer.store_extra_components`: the data is ignored).
pub fn store_component<L: Lower>(e: &mut L, x: L::V, info: L::V, c: L::V, d16: bool) -> L::V {
    let (comps, num) = comps_kind(e, info);
    let w = width(e, info, c);
    let code = store(e, x, w, num, d16);
    let mask = low_mask(e, w);
    let code = e.bin(Bin::And, code, mask);
    let present = e.cmp(Cmp::ULt, c, comps);
    let z = e.k32(0);
    e.select(present, code, z)
}
