//! The buffer data formats of gfx10 (the 7-bit unified FORMAT field of a V# or an MTBUF instruction) and the
//! conversions a format load or store applies to each component.
//!
//! Sources (rules `buffer.*` in [`crate::rules`]):
//! - the format codes: LLVM 19 `llvm/lib/Target/AMDGPU/Utils/AMDGPUAsmUtils.cpp` (`UfmtSymbolicGFX10`, codes 1 to
//!   77 named, 0 `BUF_FMT_INVALID`, 78 to 127 unnamed), checked by assembling `format:N` with llvm-mc 19;
//! - the bit layout: a format name lists its channels most significant first, so the first channel (X) sits in
//!   the lowest bits of the element (Mesa `src/amd/common/gfx10_format_table.py` reverses the name's channel sizes
//!   into little-endian order): `2_10_10_10` keeps X in bits 9:0 and W in bits 31:30, `10_10_10_2` keeps X in
//!   bits 1:0 and W in bits 31:22, `10_11_11` keeps X in 10:0, Y in 21:11, Z in 31:22, and `11_11_10` keeps X in
//!   9:0, Y in 20:10, Z in 31:21;
//! - the conversions: see each function.

/// The numeric kind of a format's components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// Unsigned normalized: code / (2^n - 1).
    Unorm,
    /// Signed normalized: code / (2^(n-1) - 1), the most negative code reading as -1.0.
    Snorm,
    /// Unsigned integer converted to float.
    Uscaled,
    /// Signed integer converted to float.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Floating point (32-bit IEEE, 16-bit IEEE half, or the unsigned 11-bit and 10-bit small floats).
    Float,
}

impl Num {
    /// True for the kinds whose register values are integers (UINT, SINT): their constant "one" is 1, not 1.0.
    pub fn is_int(self) -> bool {
        matches!(self, Num::Uint | Num::Sint)
    }

    fn name(self) -> &'static str {
        match self {
            Num::Unorm => "UNORM",
            Num::Snorm => "SNORM",
            Num::Uscaled => "USCALED",
            Num::Sscaled => "SSCALED",
            Num::Uint => "UINT",
            Num::Sint => "SINT",
            Num::Float => "FLOAT",
        }
    }
}

/// One buffer format: its components, their widths and bit positions in the little-endian element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The 7-bit format code.
    pub code: u8,
    /// Component count (1 to 4).
    pub comps: usize,
    /// Width of each component in bits (unused entries 0).
    pub bits: [u32; 4],
    /// Position of each component's lowest bit in the element.
    pub shift: [u32; 4],
    /// Element size in bytes (4 for the packed formats).
    pub bytes: u32,
    /// The numeric kind.
    pub num: Num,
    /// The channel layout as LLVM names it (`"10_11_11"`, `"8_8_8_8"`, ...).
    pub layout: &'static str,
}

impl Format {
    /// The LLVM name of the format, e.g. `BUF_FMT_2_10_10_10_SNORM`.
    pub fn name(&self) -> String {
        format!("BUF_FMT_{}_{}", self.layout, self.num.name())
    }

    /// Component `c` of a little-endian element.
    pub fn field(&self, element: u128, c: usize) -> u32 {
        let bits = self.bits[c];
        ((element >> self.shift[c]) & ((1u128 << bits) - 1)) as u32
    }

    /// Places `value` (its low `bits[c]` bits) as component `c` of an element.
    pub fn place(&self, c: usize, value: u32) -> u128 {
        let bits = self.bits[c];
        ((value as u128) & ((1u128 << bits) - 1)) << self.shift[c]
    }
}

/// The layouts: name, component widths (X first) and the numeric kinds the format exists in, each with its
/// first code. Kinds are listed in LLVM's order UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT.
const SIX: [Num; 6] = [
    Num::Unorm,
    Num::Snorm,
    Num::Uscaled,
    Num::Sscaled,
    Num::Uint,
    Num::Sint,
];
const SEVEN: [Num; 7] = [
    Num::Unorm,
    Num::Snorm,
    Num::Uscaled,
    Num::Sscaled,
    Num::Uint,
    Num::Sint,
    Num::Float,
];
const INTS_AND_FLOAT: [Num; 3] = [Num::Uint, Num::Sint, Num::Float];

/// (first code, layout name, X-first component widths, kinds).
const LAYOUTS: &[(u8, &str, &[u32], &[Num])] = &[
    (1, "8", &[8], &SIX),
    (7, "16", &[16], &SEVEN),
    (14, "8_8", &[8, 8], &SIX),
    (20, "32", &[32], &INTS_AND_FLOAT),
    (23, "16_16", &[16, 16], &SEVEN),
    (30, "10_11_11", &[11, 11, 10], &SEVEN),
    (37, "11_11_10", &[10, 11, 11], &SEVEN),
    (44, "10_10_10_2", &[2, 10, 10, 10], &SIX),
    (50, "2_10_10_10", &[10, 10, 10, 2], &SIX),
    (56, "8_8_8_8", &[8, 8, 8, 8], &SIX),
    (62, "32_32", &[32, 32], &INTS_AND_FLOAT),
    (65, "16_16_16_16", &[16, 16, 16, 16], &SEVEN),
    (72, "32_32_32", &[32, 32, 32], &INTS_AND_FLOAT),
    (75, "32_32_32_32", &[32, 32, 32, 32], &INTS_AND_FLOAT),
];

/// The format with code `code`, or why there is none: 0 is `BUF_FMT_INVALID` and 78 to 127 have no format on
/// gfx10 (rule `buffer.format_table`).
pub fn lookup(code: u8) -> Result<Format, String> {
    for &(first, layout, widths, kinds) in LAYOUTS {
        let Some(k) = code.checked_sub(first) else {
            continue;
        };
        if let Some(&num) = kinds.get(k as usize) {
            let mut f = Format {
                code,
                comps: widths.len(),
                bits: [0; 4],
                shift: [0; 4],
                bytes: 0,
                num,
                layout,
            };
            let mut at = 0;
            for (c, &w) in widths.iter().enumerate() {
                f.bits[c] = w;
                f.shift[c] = at;
                at += w;
            }
            f.bytes = at / 8;
            return Ok(f);
        }
    }
    Err(if code == 0 {
        "buffer format 0 is BUF_FMT_INVALID".to_string()
    } else {
        format!("buffer format {code} is reserved on gfx10 (no BUF_FMT name in LLVM 19)")
    })
}

// ---------------------------------------------------------------------------------------------------------
// Exact rounding to small binary floats.

/// A binary float format: exponent and mantissa widths, and whether it has a sign bit (the 11- and 10-bit
/// floats of 10_11_11 / 11_11_10 do not).
#[derive(Clone, Copy)]
struct Small {
    ebits: u32,
    mbits: u32,
    signed: bool,
}

const F32: Small = Small {
    ebits: 8,
    mbits: 23,
    signed: true,
};
const F16: Small = Small {
    ebits: 5,
    mbits: 10,
    signed: true,
};

impl Small {
    /// The unsigned small float of a `bits`-wide FLOAT component (11: 5e6m, 10: 5e5m).
    fn unsigned(bits: u32) -> Small {
        Small {
            ebits: 5,
            mbits: bits - 5,
            signed: false,
        }
    }
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn exp_all_ones(self) -> u32 {
        (1 << self.ebits) - 1
    }
    fn sign_bit(self, negative: bool) -> u32 {
        if self.signed && negative {
            1 << (self.ebits + self.mbits)
        } else {
            0
        }
    }
    fn infinity(self, negative: bool) -> u32 {
        self.sign_bit(negative) | self.exp_all_ones() << self.mbits
    }
    fn max_finite(self, negative: bool) -> u32 {
        self.infinity(negative) - 1
    }
}

/// How a value between two representable ones is rounded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    NearestEven,
    TowardZero,
}

/// Rounds the non-negative value `sig * 2^exp` (plus a fraction below one unit of `sig` when `sticky`) to `f`
/// in direction `dir`, with gradual underflow. A finite value too large for `f` gives infinity to nearest and
/// the largest finite value toward zero, as IEEE 754 does. `sig` must be below 2^100.
fn round(negative: bool, sig: u128, exp: i32, sticky: bool, f: Small, dir: Dir) -> u32 {
    if sig == 0 {
        return f.sign_bit(negative);
    }
    let msb = 127 - sig.leading_zeros() as i32;
    let emin = 1 - f.bias();
    let e = (msb + exp).max(emin);
    // Quantum 2^(e - mbits); shift sig right by s to count quanta.
    let s = e - f.mbits as i32 - exp;
    let mut k: u128 = if s <= 0 {
        sig << (-s) as u32
    } else if s > 110 {
        0
    } else {
        let k = sig >> s as u32;
        let rem = sig & ((1u128 << s as u32) - 1);
        let half = 1u128 << (s as u32 - 1);
        let up = dir == Dir::NearestEven && (rem > half || (rem == half && (sticky || k & 1 == 1)));
        k + up as u128
    };
    let mut e = e;
    if k >> (f.mbits + 1) != 0 {
        k >>= 1;
        e += 1;
    }
    let biased = if k >> f.mbits == 0 { 0 } else { e + f.bias() };
    if biased >= f.exp_all_ones() as i32 {
        return match dir {
            Dir::NearestEven => f.infinity(negative),
            Dir::TowardZero => f.max_finite(negative),
        };
    }
    f.sign_bit(negative) | (biased as u32) << f.mbits | (k as u32 & ((1 << f.mbits) - 1))
}

/// `num / den` (den > 0) rounded to `f`: the quotient is computed with 64 fraction bits and a sticky bit, so the
/// rounding is exact.
fn round_ratio(negative: bool, num: u64, den: u64, f: Small, dir: Dir) -> u32 {
    let scaled = (num as u128) << 64;
    let q = scaled / den as u128;
    let sticky = scaled % den as u128 != 0;
    // q < 2^80 for num < 2^16.
    round(negative, q, -64, sticky, f, dir)
}

/// The f32 bits of an IEEE float's fields (sign, biased exponent, mantissa) decomposed as (negative,
/// significand, exponent) of `sig * 2^exp`, or `None` for infinities and NaNs.
fn decompose(x: u32, f: Small) -> Option<(bool, u128, i32)> {
    let total = f.ebits + f.mbits;
    let negative = f.signed && x >> total & 1 == 1;
    let e = x >> f.mbits & f.exp_all_ones();
    let m = x & ((1 << f.mbits) - 1);
    if e == f.exp_all_ones() {
        return None;
    }
    let bias_shift = f.bias() + f.mbits as i32;
    Some(if e == 0 {
        (negative, m as u128, 1 - bias_shift)
    } else {
        (negative, (m | 1 << f.mbits) as u128, e as i32 - bias_shift)
    })
}

/// Widens a 16-, 11- or 10-bit float to the same value in the wider format `to` exactly: denormals become
/// normals (or stay denormal), infinities stay infinite, and a NaN keeps its payload in the top mantissa bits
/// without being quieted (rules `buffer.load_small_float`, `buffer.load_f16_f10`).
fn widen(v: u32, from: Small, to: Small) -> u32 {
    let total = from.ebits + from.mbits;
    let negative = from.signed && v >> total & 1 == 1;
    match decompose(v, from) {
        Some((neg, sig, exp)) => round(neg, sig, exp, false, to, Dir::NearestEven),
        None => {
            let m = v & ((1 << from.mbits) - 1);
            to.infinity(negative) | m << (to.mbits - from.mbits)
        }
    }
}

/// Narrows an f32 to a 16-, 11- or 10-bit float toward zero (rules `buffer.store_float_rtz`,
/// `buffer.store_float_nan`): a finite value past the largest becomes the largest, an infinity stays infinite;
/// a NaN keeps the top bits of its payload (a payload that truncates to 0 becomes 1) and its sign only where the
/// format has one; the unsigned formats store every other negative value, -0 included, as 0.
fn narrow_rtz(x: u32, to: Small) -> u32 {
    let negative = x >> 31 == 1;
    let e = x >> 23 & 0xff;
    let m = x & 0x7f_ffff;
    if e == 0xff && m != 0 {
        let payload = (m >> (23 - to.mbits)).max(1);
        return to.infinity(negative) | payload;
    }
    if negative && !to.signed {
        return 0;
    }
    match decompose(x, F32) {
        Some((neg, sig, exp)) => round(neg, sig, exp, false, to, Dir::TowardZero),
        None => to.infinity(negative),
    }
}

fn sign_extend(c: u32, bits: u32) -> i32 {
    if bits >= 32 {
        c as i32
    } else {
        ((c << (32 - bits)) as i32) >> (32 - bits)
    }
}

fn max_code(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

// ---------------------------------------------------------------------------------------------------------
// Loads.

/// Converts component code `c` (`bits` wide) to its 32-bit register value (rules `buffer.format_convert`,
/// `buffer.load_small_float`, `buffer.load_f16_f10`): UINT/SINT zero/sign extend; UNORM is c / (2^n - 1) and SNORM
/// c / (2^(n-1) - 1), never below -1.0, both rounded once to the nearest f32; USCALED/SSCALED are the integer as
/// an f32 (exact: at most 16 bits); FLOAT widens exactly.
pub fn load32(c: u32, bits: u32, num: Num) -> u32 {
    match num {
        Num::Uint => c,
        Num::Sint => sign_extend(c, bits) as u32,
        Num::Unorm => round_ratio(false, c as u64, max_code(bits), F32, Dir::NearestEven),
        Num::Snorm => {
            let v = sign_extend(c, bits);
            let m = max_code(bits - 1);
            let mag = (v.unsigned_abs() as u64).min(m);
            round_ratio(v < 0, mag, m, F32, Dir::NearestEven)
        }
        Num::Uscaled => round(false, c as u128, 0, false, F32, Dir::NearestEven),
        Num::Sscaled => {
            let v = sign_extend(c, bits);
            round(
                v < 0,
                v.unsigned_abs() as u128,
                0,
                false,
                F32,
                Dir::NearestEven,
            )
        }
        Num::Float => match bits {
            32 => c,
            16 => widen(c, F16, F32),
            _ => widen(c, Small::unsigned(bits), F32),
        },
    }
}

/// The 32-bit register value of a DST_SEL "one" (or of a missing W component).
pub fn one32(num: Num) -> u32 {
    if num.is_int() {
        1
    } else {
        0x3f80_0000
    }
}

/// Converts component code `c` to the 16-bit value a d16 load writes (rule `buffer.d16_load_convert`): FLOAT
/// 16-bit as is, 11/10-bit widened exactly (same exponent bias), 32-bit narrowed toward zero like a store;
/// UNORM/SNORM the exact quotient rounded once to the nearest f16; USCALED/SSCALED the integer rounded to the
/// nearest f16 (ties to even), a magnitude past 65504 giving 65504; UINT/SINT up to 16 bits the low 16 bits of
/// the extended value, 32-bit ones saturated to the 16-bit range.
pub fn load16(c: u32, bits: u32, num: Num) -> u16 {
    let h = match num {
        Num::Uint if bits == 32 => c.min(0xffff),
        Num::Sint if bits == 32 => (c as i32).clamp(-0x8000, 0x7fff) as u32,
        Num::Uint => c,
        Num::Sint => sign_extend(c, bits) as u32,
        Num::Unorm => round_ratio(false, c as u64, max_code(bits), F16, Dir::NearestEven),
        Num::Snorm => {
            let v = sign_extend(c, bits);
            let m = max_code(bits - 1);
            let mag = (v.unsigned_abs() as u64).min(m);
            round_ratio(v < 0, mag, m, F16, Dir::NearestEven)
        }
        Num::Uscaled | Num::Sscaled => {
            let v = if num == Num::Sscaled {
                sign_extend(c, bits)
            } else {
                c as i32
            };
            let r = round(
                v < 0,
                v.unsigned_abs() as u128,
                0,
                false,
                F16,
                Dir::NearestEven,
            );
            if r & 0x7fff == 0x7c00 {
                r - 1
            } else {
                r
            }
        }
        Num::Float => match bits {
            32 => narrow_rtz(c, F16),
            16 => c,
            _ => widen(c, Small::unsigned(bits), F16),
        },
    };
    h as u16
}

/// The 16-bit value of a DST_SEL "one" in a d16 load: 1.0 as an f16, or 1 for the integer kinds.
pub fn one16(num: Num) -> u16 {
    if num.is_int() {
        1
    } else {
        0x3c00
    }
}

// ---------------------------------------------------------------------------------------------------------
// Stores.

/// Converts a 32-bit register value to a component code of `bits` bits (rules `buffer.store_norm`,
/// `buffer.store_norm_tie`, `buffer.store_scaled_as_norm`, `buffer.store_int_saturate`, `buffer.store_float_rtz`,
/// `buffer.store_float_nan`):
/// - UNORM and USCALED: NaN gives 0, the f32 is clamped to [0, 1], multiplied by 2^n - 1 exactly and rounded to
///   the nearest integer, ties to even;
/// - SNORM and SSCALED: the same over [-1, 1] with 2^(n-1) - 1, so -1.0 stores the most negative code plus one;
/// - UINT/SINT of fewer than 32 bits saturate to the field's range; 32-bit ones store the register;
/// - FLOAT: 32-bit as is, 16-, 11- and 10-bit narrowed toward zero.
pub fn store32(x: u32, bits: u32, num: Num) -> u32 {
    match num {
        Num::Uint => {
            if bits >= 32 {
                x
            } else {
                x.min(max_code(bits) as u32)
            }
        }
        Num::Sint => {
            if bits >= 32 {
                x
            } else {
                let hi = max_code(bits - 1) as i32;
                ((x as i32).clamp(-hi - 1, hi) as u32) & max_code(bits) as u32
            }
        }
        Num::Unorm | Num::Uscaled => norm_store(x, max_code(bits), false),
        Num::Snorm | Num::Sscaled => {
            norm_store(x, max_code(bits - 1), true) & max_code(bits) as u32
        }
        Num::Float => match bits {
            32 => x,
            16 => narrow_rtz(x, F16),
            _ => narrow_rtz(x, Small::unsigned(bits)),
        },
    }
}

/// The normalized conversion of an f32 to an integer of magnitude at most `m`, two's complement when `signed`.
fn norm_store(x: u32, m: u64, signed: bool) -> u32 {
    let negative = x >> 31 == 1;
    let magnitude = x & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 || magnitude == 0 || (negative && !signed) {
        return 0;
    }
    // |x| >= 1.0, infinity included, clamps to the largest code.
    let r = if magnitude >= 0x3f80_0000 {
        m
    } else {
        let e = (magnitude >> 23) as i32;
        let (sig, exp) = if e == 0 {
            ((magnitude & 0x7f_ffff) as u128, -149)
        } else {
            (((magnitude & 0x7f_ffff) | 0x80_0000) as u128, e - 150)
        };
        // |x| < 1, so exp <= -24 and the product sig * m has at most 40 bits.
        let p = sig * m as u128;
        let s = (-exp) as u32;
        if s >= 100 {
            0
        } else {
            let k = p >> s;
            let rem = p & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            let up = rem > half || (rem == half && k & 1 == 1);
            (k + up as u128) as u64
        }
    };
    if negative {
        (r as u32).wrapping_neg()
    } else {
        r as u32
    }
}

/// Converts the 16-bit value of a d16 store to a component code (rule `buffer.d16_store_convert`): a 16-bit
/// FLOAT component stores it as is; UINT takes it zero-extended and SINT sign-extended, then saturates like
/// [`store32`]; every other kind widens the f16 exactly to f32 (NaN payloads not quieted) and converts that.
pub fn store16(h: u16, bits: u32, num: Num) -> u32 {
    match num {
        Num::Float if bits == 16 => h as u32,
        Num::Uint => store32(h as u32, bits, num),
        Num::Sint => store32(h as i16 as i32 as u32, bits, num),
        _ => store32(widen(h as u32, F16, F32), bits, num),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_code_has_a_layout_and_no_other() {
        let named = (0..=127u8).filter(|&c| lookup(c).is_ok()).count();
        assert_eq!(named, 77);
        assert!(lookup(0).is_err() && lookup(78).is_err() && lookup(127).is_err());
        assert_eq!(lookup(36).unwrap().name(), "BUF_FMT_10_11_11_FLOAT");
        assert_eq!(lookup(77).unwrap().name(), "BUF_FMT_32_32_32_32_FLOAT");
        assert_eq!(lookup(50).unwrap().shift, [0, 10, 20, 30]);
        assert_eq!(lookup(44).unwrap().shift, [0, 2, 12, 22]);
    }

    #[test]
    fn rounding_helper_edges() {
        // 65520 is the f16 tie between 65504 and 65536: to nearest it overflows, toward zero it stays finite.
        assert_eq!(round(false, 65520, 0, false, F16, Dir::NearestEven), 0x7c00);
        assert_eq!(round(false, 65520, 0, false, F16, Dir::TowardZero), 0x7bff);
        // 2^-25 (half the smallest f16 denormal) ties to 0; a sticky bit rounds it up.
        assert_eq!(round(false, 1, -25, false, F16, Dir::NearestEven), 0);
        assert_eq!(round(false, 1, -25, true, F16, Dir::NearestEven), 1);
        assert_eq!(widen(0x7c01, F16, F32), 0x7f80_2000);
        assert_eq!(narrow_rtz(0x7f80_0001, F16), 0x7c01);
    }
}
