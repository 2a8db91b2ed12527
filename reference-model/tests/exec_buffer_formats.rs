//! Format loads and stores for every gfx10 buffer format, run through real kernels (assembled by llvm-mc 19)
//! on the model, against expectations worked out here from the format definitions alone, without the model's
//! conversion code:
//! - the layouts from the LLVM 19 names (`BUF_FMT_*`, code = index in [`NAMES`]): channels are named most
//!   significant first, so X is the last-named channel and sits in the lowest bits (Mesa
//!   `src/amd/common/gfx10_format_table.py` reads the names the same way);
//! - the values with f64 arithmetic (exact for these operands) and, for the 16-, 11- and 10-bit floats, searches
//!   over the table of every finite code, so that "toward zero" and "to nearest" mean what they say;
//! - the rules the model follows (`reference_model::rules`, `buffer.*`) as their texts state them.
//!
//! Every format code is loaded (through `tbuffer_*` with the format in the instruction, and through
//! `buffer_*_format_*` with the format in V# word 3 bits 18:12), loaded with d16, stored and stored with d16;
//! the named tests below pin edge values by hand.

mod common;

use common::{asm, job};
use measurements::job::BackendError;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};
use std::sync::OnceLock;

const CPU: &str = "gfx1030";
/// What the output array holds before the kernel runs.
const FILL: u32 = 0xdead_beef;
/// V# word 3 as the agc-buffer-v1 ABI sets it (DST_SEL X, Y, Z, W; format 22 in bits 18:12), without the format.
const WORD3: u32 = 0x3100_0fac;

/// LLVM 19's gfx10 unified format names (`BUF_FMT_` dropped) by code; codes 78 to 127 have none.
const NAMES: [&str; 78] = [
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_UNORM",
    "10_11_11_SNORM",
    "10_11_11_USCALED",
    "10_11_11_SSCALED",
    "10_11_11_UINT",
    "10_11_11_SINT",
    "10_11_11_FLOAT",
    "11_11_10_UNORM",
    "11_11_10_SNORM",
    "11_11_10_USCALED",
    "11_11_10_SSCALED",
    "11_11_10_UINT",
    "11_11_10_SINT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_USCALED",
    "10_10_10_2_SSCALED",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// A format as its name defines it: component widths X first, their bit positions, the element size.
#[derive(Clone, Debug)]
struct Spec {
    name: &'static str,
    kind: Kind,
    bits: Vec<u32>,
    shift: Vec<u32>,
    bytes: u32,
}

impl Spec {
    fn comps(&self) -> usize {
        self.bits.len()
    }
    fn field(&self, element: u128, c: usize) -> u32 {
        (element >> self.shift[c] & ((1u128 << self.bits[c]) - 1)) as u32
    }
    fn place(&self, c: usize, v: u32) -> u128 {
        ((v as u128) & ((1u128 << self.bits[c]) - 1)) << self.shift[c]
    }
}

fn spec(code: u8) -> Spec {
    let name = NAMES[code as usize];
    let mut parts: Vec<&str> = name.split('_').collect();
    let kind = match parts.pop().unwrap() {
        "UNORM" => Kind::Unorm,
        "SNORM" => Kind::Snorm,
        "USCALED" => Kind::Uscaled,
        "SSCALED" => Kind::Sscaled,
        "UINT" => Kind::Uint,
        "SINT" => Kind::Sint,
        "FLOAT" => Kind::Float,
        other => panic!("{other}"),
    };
    let bits: Vec<u32> = parts.iter().rev().map(|p| p.parse().unwrap()).collect();
    let mut shift = Vec::new();
    let mut at = 0;
    for b in &bits {
        shift.push(at);
        at += b;
    }
    Spec {
        name,
        kind,
        bits,
        shift,
        bytes: at / 8,
    }
}

// ---------------------------------------------------------------------------------------------------------
// The expectations.

fn sext(c: u32, bits: u32) -> i64 {
    let c = c as i64;
    if c >> (bits - 1) & 1 == 1 {
        c - (1i64 << bits)
    } else {
        c
    }
}

/// The largest code of an unsigned (or the largest positive code of a signed) `bits`-wide normalized field.
fn norm_max(bits: u32, signed: bool) -> f64 {
    if signed {
        ((1u64 << (bits - 1)) - 1) as f64
    } else {
        ((1u64 << bits) - 1) as f64
    }
}

/// Mantissa width and sign of the `bits`-wide float: 16 is the IEEE half, 11 and 10 the unsigned small floats
/// (5-bit exponent, bias 15, like the half).
fn small(bits: u32) -> (u32, bool) {
    if bits == 16 {
        (10, true)
    } else {
        (bits - 5, false)
    }
}

/// The value of a finite code of a small float.
fn small_value(code: u32, mbits: u32, signed: bool) -> f64 {
    let s = if signed && code >> (5 + mbits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (code >> mbits & 31) as i32;
    let m = (code & ((1 << mbits) - 1)) as f64 / (1u64 << mbits) as f64;
    if e == 0 {
        s * m * 2f64.powi(-14)
    } else {
        s * (1.0 + m) * 2f64.powi(e - 15)
    }
}

/// The values of every non-negative finite code (ascending, index = code), per mantissa width.
fn table(mbits: u32) -> &'static [f64] {
    static T: [OnceLock<Vec<f64>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = match mbits {
        5 => 0,
        6 => 1,
        _ => 2,
    };
    T[i].get_or_init(|| {
        (0..31u32 << mbits)
            .map(|c| small_value(c, mbits, false))
            .collect()
    })
}

/// The code of the largest value <= x (x >= 0, finite), the largest finite code past the top.
fn toward_zero(x: f64, mbits: u32) -> u32 {
    let t = table(mbits);
    (t.partition_point(|&v| v <= x) - 1) as u32
}

/// The code nearest to x (x >= 0, at most the largest value), ties to the even code.
fn nearest(x: f64, mbits: u32) -> u32 {
    let t = table(mbits);
    let lo = toward_zero(x, mbits) as usize;
    if lo + 1 == t.len() {
        return lo as u32;
    }
    let (dl, dh) = (x - t[lo], t[lo + 1] - x);
    if dl < dh || (dl == dh && lo % 2 == 0) {
        lo as u32
    } else {
        lo as u32 + 1
    }
}

/// An f32 narrowed to a `bits`-wide float toward zero: past the largest finite value the largest, infinities
/// kept, a NaN keeping its top payload bits (at least 1) and its sign where the format has one, negatives
/// (-0 too) 0 in the unsigned formats.
fn narrow(x: u32, bits: u32) -> u32 {
    let (mb, signed) = small(bits);
    let v = f32::from_bits(x);
    let neg = x >> 31 == 1;
    let sign = if signed && neg { 1 << (5 + mb) } else { 0 };
    if v.is_nan() {
        return sign | 31 << mb | ((x & 0x7f_ffff) >> (23 - mb)).max(1);
    }
    if neg && !signed {
        return 0;
    }
    if v.is_infinite() {
        return sign | 31 << mb;
    }
    sign | toward_zero((v as f64).abs(), mb)
}

/// The 32-bit register value a format load gives for component code `c`.
fn load32(c: u32, bits: u32, kind: Kind) -> u32 {
    match kind {
        Kind::Uint => c,
        Kind::Sint => sext(c, bits) as u32,
        // The f64 quotient is correctly rounded, and rounding it again to f32 gives the correctly rounded f32
        // quotient (53 >= 2 * 24 + 2 bits: double rounding of a quotient is innocuous).
        Kind::Unorm => ((c as f64 / norm_max(bits, false)) as f32).to_bits(),
        Kind::Snorm => (((sext(c, bits) as f64 / norm_max(bits, true)).max(-1.0)) as f32).to_bits(),
        Kind::Uscaled => (c as f32).to_bits(),
        Kind::Sscaled => (sext(c, bits) as f32).to_bits(),
        Kind::Float => {
            if bits == 32 {
                return c;
            }
            let (mb, signed) = small(bits);
            if c >> mb & 31 == 31 {
                let sign = if signed { (c >> 15) << 31 } else { 0 };
                sign | 0x7f80_0000 | (c & ((1 << mb) - 1)) << (23 - mb)
            } else {
                (small_value(c, mb, signed) as f32).to_bits()
            }
        }
    }
}

/// The 16-bit value a d16 format load gives for component code `c`.
fn load16(c: u32, bits: u32, kind: Kind) -> u16 {
    let signed_half = |v: f64, f: &dyn Fn(f64) -> u32| -> u16 {
        let s = if v < 0.0 || (v == 0.0 && v.is_sign_negative()) {
            0x8000
        } else {
            0
        };
        (s | f(v.abs())) as u16
    };
    match kind {
        Kind::Uint if bits == 32 => c.min(0xffff) as u16,
        Kind::Sint if bits == 32 => (c as i32).clamp(-0x8000, 0x7fff) as u16,
        Kind::Uint => c as u16,
        Kind::Sint => sext(c, bits) as u16,
        Kind::Unorm => nearest(c as f64 / norm_max(bits, false), 10) as u16,
        Kind::Snorm => signed_half(
            (sext(c, bits) as f64 / norm_max(bits, true)).max(-1.0),
            &|v| nearest(v, 10),
        ),
        Kind::Uscaled | Kind::Sscaled => {
            let v = if kind == Kind::Sscaled {
                sext(c, bits)
            } else {
                c as i64
            } as f64;
            signed_half(v, &|a| if a > 65504.0 { 0x7bff } else { nearest(a, 10) })
        }
        Kind::Float => match bits {
            32 => narrow(c, 16) as u16,
            16 => c as u16,
            _ => {
                let (mb, _) = small(bits);
                if c >> mb == 31 {
                    (0x7c00 | (c & ((1 << mb) - 1)) << (10 - mb)) as u16
                } else {
                    nearest(small_value(c, mb, false), 10) as u16
                }
            }
        },
    }
}

/// The code a format store writes for the 32-bit register value `x`.
fn store32(x: u32, bits: u32, kind: Kind) -> u32 {
    let v = f32::from_bits(x);
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    match kind {
        Kind::Unorm | Kind::Uscaled => {
            if v.is_nan() {
                0
            } else {
                (v.clamp(0.0, 1.0) as f64 * norm_max(bits, false)).round_ties_even() as u32
            }
        }
        Kind::Snorm | Kind::Sscaled => {
            if v.is_nan() {
                0
            } else {
                ((v.clamp(-1.0, 1.0) as f64 * norm_max(bits, true)).round_ties_even() as i64) as u32
                    & mask
            }
        }
        Kind::Uint => x.min(mask),
        Kind::Sint => {
            if bits == 32 {
                x
            } else {
                let hi = norm_max(bits, true) as i64;
                ((x as i32 as i64).clamp(-hi - 1, hi) as u32) & mask
            }
        }
        Kind::Float => {
            if bits == 32 {
                x
            } else {
                narrow(x, bits)
            }
        }
    }
}

/// The code a d16 format store writes for the 16-bit value `h`.
fn store16(h: u16, bits: u32, kind: Kind) -> u32 {
    match kind {
        Kind::Float if bits == 16 => h as u32,
        Kind::Uint => store32(h as u32, bits, kind),
        Kind::Sint => store32(h as i16 as i32 as u32, bits, kind),
        _ => store32(load32(h as u32, 16, Kind::Float), bits, kind),
    }
}

/// DST_SEL "one" and the missing W: 1 for the integer kinds, 1.0 otherwise.
fn one32(kind: Kind) -> u32 {
    if matches!(kind, Kind::Uint | Kind::Sint) {
        1
    } else {
        0x3f80_0000
    }
}

fn one16(kind: Kind) -> u16 {
    if matches!(kind, Kind::Uint | Kind::Sint) {
        1
    } else {
        0x3c00
    }
}

// ---------------------------------------------------------------------------------------------------------
// Kernels and jobs.

/// A wave32 kernel of 32 lanes: v1 = lane * 16, v2 = lane * 64, v[4:7] = the lane's input row; `body` runs,
/// then v10..v25 are stored as the lane's 16 output dwords when `regs_out`, otherwise the output array is
/// whatever `body` stored at v1 (4 dwords a lane, initially [`FILL`]).
fn kernel(body: &str, regs_out: bool) -> Kernel {
    let (init, save) = if regs_out {
        (
            (10..26)
                .map(|r| format!("v_mov_b32 v{r}, 0\n"))
                .collect::<String>(),
            (0..4)
                .map(|k| {
                    format!(
                        "buffer_store_dwordx4 v[{}:{}], v2, s[4:7], 0 offen offset:{}\n",
                        10 + 4 * k,
                        13 + 4 * k,
                        16 * k
                    )
                })
                .collect::<String>(),
        )
    } else {
        (String::new(), String::new())
    };
    let src = format!(
        "v_lshlrev_b32 v1, 4, v0\nv_lshlrev_b32 v2, 6, v0\n\
         buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
         s_mov_b32 s20, s0\ns_mov_b32 s21, s1\ns_mov_b32 s22, s2\n\
         s_mov_b32 s24, s4\ns_mov_b32 s25, s5\ns_mov_b32 s26, s6\n\
         {init}{body}\ns_waitcnt vmcnt(0)\n{save}s_endpgm\n"
    );
    let out = if regs_out { 16 } else { 4 };
    Kernel::agc_buffer("formats", &asm(CPU, 32, &src), 32, 32, (4, out), FILL, 0)
}

/// Runs `k` over `rows` (32 lanes a dispatch) and returns every lane's output dwords.
fn run(k: &Kernel, rows: &[[u32; 4]]) -> Result<Vec<Vec<u32>>, BackendError> {
    let mut out = Vec::new();
    for chunk in rows.chunks(32) {
        let mut inputs = chunk.to_vec();
        inputs.resize(32, [0; 4]);
        let o = run_job(
            &job(k.clone(), "rdna2", FloatMode::TITLE, &inputs),
            Limits::default(),
        )?;
        out.extend(o.lanes.into_iter().take(chunk.len()));
    }
    Ok(out)
}

fn rows_of(dwords: &[u32]) -> Vec<[u32; 4]> {
    dwords
        .chunks(4)
        .map(|c| {
            let mut r = [0; 4];
            r[..c.len()].copy_from_slice(c);
            r
        })
        .collect()
}

/// A deterministic stream of pseudo-random dwords (xorshift32).
fn random(seed: u32, n: usize) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

/// The component codes a load test reads for a `bits`-wide field: every code up to 16 bits; for 32 bits the
/// edges and a sample.
fn codes(bits: u32) -> Vec<u32> {
    match bits {
        0..=16 => (0..1u32 << bits).collect(),
        _ => {
            let mut v: Vec<u32> = vec![
                0,
                1,
                0x7f,
                0x80,
                0xff,
                0x7fff,
                0x8000,
                0xffff,
                0x1_0000,
                0x7fff_ffff,
                0x8000_0000,
                0xffff_ffff,
                0x3f80_0000,
                0xbf80_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0x7f80_0001,
                0xffc1_2345,
                0x0000_0001,
                0x807f_ffff,
                0x477f_f000,
                0x4780_0000,
                0x3300_0001,
                0x387f_c000,
            ];
            v.extend(random(32, 300));
            v
        }
    }
}

/// The elements a load test reads: component c runs through its codes shifted by 37 * c, so every component
/// sees every code.
fn elements(s: &Spec) -> Vec<u128> {
    let lists: Vec<Vec<u32>> = s.bits.iter().map(|&b| codes(b)).collect();
    let n = lists.iter().map(Vec::len).max().unwrap();
    (0..n)
        .map(|i| {
            (0..s.comps())
                .map(|c| s.place(c, lists[c][(i + 37 * c) % lists[c].len()]))
                .fold(0, |a, b| a | b)
        })
        .collect()
}

/// Lays elements out `per` to a lane at byte offsets k * bytes of the lane's 16-byte row.
fn pack_rows(s: &Spec, elems: &[u128], per: usize) -> Vec<[u32; 4]> {
    elems
        .chunks(per)
        .map(|ch| {
            let mut b = [0u8; 16];
            for (k, e) in ch.iter().enumerate() {
                let at = k * s.bytes as usize;
                b[at..at + s.bytes as usize].copy_from_slice(&e.to_le_bytes()[..s.bytes as usize]);
            }
            let mut r = [0u32; 4];
            for (i, w) in r.iter_mut().enumerate() {
                *w = u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
            }
            r
        })
        .collect()
}

fn show(rows: &[[u32; 4]], lane: usize) -> String {
    format!("{:08x?}", rows.get(lane))
}

// ---------------------------------------------------------------------------------------------------------
// The checks every format runs.

/// Elements a lane holds for a load test, and how many components the store tests give each element.
fn per_lane(s: &Spec) -> usize {
    (16 / s.bytes as usize).min(4)
}

/// 32-bit loads: xyzw through tbuffer (format in the instruction) and through buffer_load_format (format in
/// the V#) give each component converted and (0, 0, 0, 1) past the format's components.
fn check_loads(code: u8) {
    let s = spec(code);
    let per = per_lane(&s);
    let rows = pack_rows(&s, &elements(&s), per);
    let loads = |via_vsharp: bool| -> String {
        (0..per)
            .map(|k| {
                let (op, rsrc, fmt) = if via_vsharp {
                    ("buffer_load_format_xyzw", "s[20:23]", String::new())
                } else {
                    (
                        "tbuffer_load_format_xyzw",
                        "s[0:3]",
                        format!(" format:[BUF_FMT_{}]", s.name),
                    )
                };
                format!(
                    "{op} v[{}:{}], v1, {rsrc}, 0{fmt} offen offset:{}\n",
                    10 + 4 * k,
                    13 + 4 * k,
                    k as u32 * s.bytes
                )
            })
            .collect()
    };
    let want: Vec<Vec<u32>> = rows
        .iter()
        .map(|r| {
            let b: Vec<u8> = r.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut out = vec![0u32; 16];
            for k in 0..per {
                let at = k * s.bytes as usize;
                let mut e = [0u8; 16];
                e[..s.bytes as usize].copy_from_slice(&b[at..at + s.bytes as usize]);
                let e = u128::from_le_bytes(e);
                for i in 0..4 {
                    out[4 * k + i] = if i < s.comps() {
                        load32(s.field(e, i), s.bits[i], s.kind)
                    } else if i == 3 {
                        one32(s.kind)
                    } else {
                        0
                    };
                }
            }
            out
        })
        .collect();
    for via_vsharp in [false, true] {
        let body = format!(
            "s_mov_b32 s23, {:#x}\n{}",
            WORD3 | (code as u32) << 12,
            loads(via_vsharp)
        );
        let got = run(&kernel(&body, true), &rows).unwrap();
        for (lane, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "{} load (V#: {via_vsharp}) of {}",
                s.name,
                show(&rows, lane)
            );
        }
    }
}

/// d16 loads: xyzw packs the four converted 16-bit values into two VGPRs.
fn check_loads_d16(code: u8) {
    let s = spec(code);
    let per = per_lane(&s);
    let rows = pack_rows(&s, &elements(&s), per);
    let body: String = (0..per)
        .map(|k| {
            format!(
                "tbuffer_load_format_d16_xyzw v[{}:{}], v1, s[0:3], 0 format:[BUF_FMT_{}] offen offset:{}\n",
                10 + 2 * k,
                11 + 2 * k,
                s.name,
                k as u32 * s.bytes
            )
        })
        .collect();
    let got = run(&kernel(&body, true), &rows).unwrap();
    for (lane, r) in rows.iter().enumerate() {
        let b: Vec<u8> = r.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut want = vec![0u32; 16];
        for k in 0..per {
            let at = k * s.bytes as usize;
            let mut e = [0u8; 16];
            e[..s.bytes as usize].copy_from_slice(&b[at..at + s.bytes as usize]);
            let e = u128::from_le_bytes(e);
            let h: Vec<u32> = (0..4)
                .map(|i| {
                    (if i < s.comps() {
                        load16(s.field(e, i), s.bits[i], s.kind)
                    } else if i == 3 {
                        one16(s.kind)
                    } else {
                        0
                    }) as u32
                })
                .collect();
            want[2 * k] = h[0] | h[1] << 16;
            want[2 * k + 1] = h[2] | h[3] << 16;
        }
        assert_eq!(
            got[lane],
            want,
            "{} d16 load of {}",
            s.name,
            show(&rows, lane)
        );
    }
}

/// The 32-bit store data: special values of each kind, then pseudo-random ones.
fn store_data(kind: Kind) -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        // Zeros, ones, halves, two, the largest and smallest f32s, infinities, NaNs, denormals.
        0x0000_0000,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f00_0000,
        0xbf00_0000,
        0x4000_0000,
        0xc000_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0001,
        0xffc1_2345,
        0x7fa0_0000,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        // Just below and above 1.0 and -1.0; 0.25, 0.75; 1/255 and 0.5/255 with their neighbours.
        0x3f7f_ffff,
        0x3f80_0001,
        0xbf7f_ffff,
        0xbf80_0001,
        0x3e80_0000,
        0x3f40_0000,
        0x3b80_8081,
        0x3b00_8081,
        0x3b00_8080,
        0x3b00_8082,
        0x3bc0_c0c1,
        0xbb00_8081,
        // Half-float edges: 65504, 65519, 65520, 65536, 2^-14, 2^-24, 2^-25, 1 + 2^-11, 1 + 2^-10.
        0x477f_e000,
        0x477f_ef00,
        0x477f_f000,
        0x4780_0000,
        0x3880_0000,
        0x3380_0000,
        0x3300_0000,
        0x3f80_1000,
        0x3f80_2000,
        0xbf80_1000,
        0x387f_c000,
        // 11- and 10-bit float edges: 65024, 64512, 2^-20, 2^-19.
        0x477e_0000,
        0x477c_0000,
        0x3580_0000,
        0x3600_0000,
        0x477e_ffff,
        // Integers and integer-looking bit patterns for the UINT/SINT formats.
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x3ff,
        0x400,
        0x7ff,
        0x800,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0xffff_ffff,
        0xffff_ff80,
        0xffff_ff7f,
        0xffff_8000,
        0xffff_7fff,
        0xffff_fe00,
        0xffff_fdff,
        0xffff_fc00,
        0xffff_fbff,
        0xffff_fffe,
        0xffff_fffd,
    ];
    // Values in [-2, 2) for the normalized kinds (bits of random f32s with small exponents), and raw dwords.
    let r = random(kind as u32 + 7, 400);
    v.extend(
        r.iter()
            .map(|x| (x & 0x80ff_ffff) | (0x3c00_0000 + (x >> 24 & 0x3) * 0x0100_0000)),
    );
    v.extend(random(kind as u32 + 99, 200));
    v
}

/// 32-bit stores: `_x`.. `_xyzw` with as many components as the format has, through tbuffer and through
/// buffer_store_format; every byte of the element written, nothing else.
fn check_stores(code: u8) {
    let s = spec(code);
    let c = s.comps();
    let per = 4 / c;
    let data = store_data(s.kind);
    // Each value also fills a whole row, so that every component sees every special value.
    let mut rows = rows_of(&data);
    rows.extend(data.iter().map(|&v| [v; 4]));
    let suffix = ["x", "xy", "xyz", "xyzw"][c - 1];
    let regs = |k: usize| {
        if c == 1 {
            format!("v{}", 4 + k)
        } else {
            format!("v[{}:{}]", 4 + k * c, 3 + (k + 1) * c)
        }
    };
    let want: Vec<Vec<u32>> = rows
        .iter()
        .map(|r| {
            let mut b: Vec<u8> = [FILL; 4].iter().flat_map(|w| w.to_le_bytes()).collect();
            for k in 0..per {
                let e = (0..c)
                    .map(|i| s.place(i, store32(r[k * c + i], s.bits[i], s.kind)))
                    .fold(0, |a, x| a | x);
                let at = k * s.bytes as usize;
                b[at..at + s.bytes as usize].copy_from_slice(&e.to_le_bytes()[..s.bytes as usize]);
            }
            b.chunks(4)
                .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
                .collect()
        })
        .collect();
    for via_vsharp in [false, true] {
        let body: String = (0..per)
            .map(|k| {
                if via_vsharp {
                    format!(
                        "buffer_store_format_{suffix} {}, v1, s[24:27], 0 offen offset:{}\n",
                        regs(k),
                        k as u32 * s.bytes
                    )
                } else {
                    format!(
                        "tbuffer_store_format_{suffix} {}, v1, s[4:7], 0 format:[BUF_FMT_{}] offen offset:{}\n",
                        regs(k),
                        s.name,
                        k as u32 * s.bytes
                    )
                }
            })
            .collect();
        let body = format!("s_mov_b32 s27, {:#x}\n{body}", WORD3 | (code as u32) << 12);
        let got = run(&kernel(&body, false), &rows).unwrap();
        for (lane, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g,
                w,
                "{} store (V#: {via_vsharp}) of {}",
                s.name,
                show(&rows, lane)
            );
        }
    }
}

/// The 16-bit store data: half-float specials and integer edges, then pseudo-random halves.
fn store_data_d16() -> Vec<u32> {
    let halves: Vec<u32> = [
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3bff, 0x3c01, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfe09, 0x7dff, 0x0001, 0x8001, 0x03ff, 0x0400, 0x00ff,
        0x0100, 0x5bf8, 0x5c00, 0x7fff, 0xffff, 0x007f, 0x0080, 0x01ff, 0x0200, 0x03fe, 0xff80,
        0xff7f, 0xfe00, 0xfdff, 0x2e66, 0x3555,
    ]
    .to_vec();
    let mut v: Vec<u32> = halves
        .iter()
        .zip(halves.iter().rev())
        .map(|(&a, &b)| a | b << 16)
        .collect();
    v.extend(random(1616, 300));
    v
}

/// d16 stores: the component values come two to a VGPR, low half first.
fn check_stores_d16(code: u8) {
    let s = spec(code);
    let c = s.comps();
    let per = 4 / c;
    let data = store_data_d16();
    let mut rows = rows_of(&data);
    rows.extend(data.iter().map(|&v| [v; 4]));
    let suffix = ["x", "xy", "xyz", "xyzw"][c - 1];
    // Store k's registers: one per store for x and xy, v[4:5] for xyz and xyzw.
    let regs = |k: usize| {
        if c <= 2 {
            format!("v{}", 4 + k)
        } else {
            "v[4:5]".to_string()
        }
    };
    let body: String = (0..per)
        .map(|k| {
            format!(
                "tbuffer_store_format_d16_{suffix} {}, v1, s[4:7], 0 format:[BUF_FMT_{}] offen offset:{}\n",
                regs(k),
                s.name,
                k as u32 * s.bytes
            )
        })
        .collect();
    let got = run(&kernel(&body, false), &rows).unwrap();
    for (lane, r) in rows.iter().enumerate() {
        let mut b: Vec<u8> = [FILL; 4].iter().flat_map(|w| w.to_le_bytes()).collect();
        for k in 0..per {
            let half = |i: usize| -> u16 {
                let reg = if c <= 2 { k } else { i / 2 };
                let sh = if c <= 2 { 16 * i } else { 16 * (i % 2) };
                (r[reg] >> sh) as u16
            };
            let e = (0..c)
                .map(|i| s.place(i, store16(half(i), s.bits[i], s.kind)))
                .fold(0, |a, x| a | x);
            let at = k * s.bytes as usize;
            b[at..at + s.bytes as usize].copy_from_slice(&e.to_le_bytes()[..s.bytes as usize]);
        }
        let want: Vec<u32> = b
            .chunks(4)
            .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
            .collect();
        assert_eq!(
            got[lane],
            want,
            "{} d16 store of {}",
            s.name,
            show(&rows, lane)
        );
    }
}

macro_rules! every_format {
    ($($name:ident: $code:expr,)*) => {
        /// 32-bit format loads of each code.
        mod load {
            $(#[test] fn $name() { super::check_loads($code) })*
        }
        /// d16 format loads of each code.
        mod load_d16 {
            $(#[test] fn $name() { super::check_loads_d16($code) })*
        }
        /// 32-bit format stores of each code.
        mod store {
            $(#[test] fn $name() { super::check_stores($code) })*
        }
        /// d16 format stores of each code.
        mod store_d16 {
            $(#[test] fn $name() { super::check_stores_d16($code) })*
        }
    };
}

every_format! {
    f01_8_unorm: 1,
    f02_8_snorm: 2,
    f03_8_uscaled: 3,
    f04_8_sscaled: 4,
    f05_8_uint: 5,
    f06_8_sint: 6,
    f07_16_unorm: 7,
    f08_16_snorm: 8,
    f09_16_uscaled: 9,
    f10_16_sscaled: 10,
    f11_16_uint: 11,
    f12_16_sint: 12,
    f13_16_float: 13,
    f14_8_8_unorm: 14,
    f15_8_8_snorm: 15,
    f16_8_8_uscaled: 16,
    f17_8_8_sscaled: 17,
    f18_8_8_uint: 18,
    f19_8_8_sint: 19,
    f20_32_uint: 20,
    f21_32_sint: 21,
    f22_32_float: 22,
    f23_16_16_unorm: 23,
    f24_16_16_snorm: 24,
    f25_16_16_uscaled: 25,
    f26_16_16_sscaled: 26,
    f27_16_16_uint: 27,
    f28_16_16_sint: 28,
    f29_16_16_float: 29,
    f30_10_11_11_unorm: 30,
    f31_10_11_11_snorm: 31,
    f32_10_11_11_uscaled: 32,
    f33_10_11_11_sscaled: 33,
    f34_10_11_11_uint: 34,
    f35_10_11_11_sint: 35,
    f36_10_11_11_float: 36,
    f37_11_11_10_unorm: 37,
    f38_11_11_10_snorm: 38,
    f39_11_11_10_uscaled: 39,
    f40_11_11_10_sscaled: 40,
    f41_11_11_10_uint: 41,
    f42_11_11_10_sint: 42,
    f43_11_11_10_float: 43,
    f44_10_10_10_2_unorm: 44,
    f45_10_10_10_2_snorm: 45,
    f46_10_10_10_2_uscaled: 46,
    f47_10_10_10_2_sscaled: 47,
    f48_10_10_10_2_uint: 48,
    f49_10_10_10_2_sint: 49,
    f50_2_10_10_10_unorm: 50,
    f51_2_10_10_10_snorm: 51,
    f52_2_10_10_10_uscaled: 52,
    f53_2_10_10_10_sscaled: 53,
    f54_2_10_10_10_uint: 54,
    f55_2_10_10_10_sint: 55,
    f56_8_8_8_8_unorm: 56,
    f57_8_8_8_8_snorm: 57,
    f58_8_8_8_8_uscaled: 58,
    f59_8_8_8_8_sscaled: 59,
    f60_8_8_8_8_uint: 60,
    f61_8_8_8_8_sint: 61,
    f62_32_32_uint: 62,
    f63_32_32_sint: 63,
    f64_32_32_float: 64,
    f65_16_16_16_16_unorm: 65,
    f66_16_16_16_16_snorm: 66,
    f67_16_16_16_16_uscaled: 67,
    f68_16_16_16_16_sscaled: 68,
    f69_16_16_16_16_uint: 69,
    f70_16_16_16_16_sint: 70,
    f71_16_16_16_16_float: 71,
    f72_32_32_32_uint: 72,
    f73_32_32_32_sint: 73,
    f74_32_32_32_float: 74,
    f75_32_32_32_32_uint: 75,
    f76_32_32_32_32_sint: 76,
    f77_32_32_32_32_float: 77,
}

// ---------------------------------------------------------------------------------------------------------
// Edge values, worked out by hand.

fn word3(code: u32, dst_sel: u32) -> u32 {
    0x3100_0000 | code << 12 | dst_sel
}

fn lane0(body: &str, regs_out: bool, row: [u32; 4]) -> Vec<u32> {
    run(&kernel(body, regs_out), &[row]).unwrap().remove(0)
}

fn refusal(body: &str) -> String {
    match run(&kernel(body, true), &[[0; 4]]) {
        Err(BackendError::Unsupported { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The most negative SNORM code reads as -1.0 like the one above it: 8-bit 0x80, 16-bit 0x8000, 10-bit 0x200
/// and the 2-bit 0b10 of 2_10_10_10.
#[test]
fn snorm_most_negative_code_loads_as_minus_one() {
    let m1 = 0xbf80_0000;
    let one = 0x3f80_0000;
    // 8_8_8_8: 0x00, 0x7f, 0x80, 0x81; 16_16: 0x8000, 0x8001; 2_10_10_10: 0x200, 0x201, 0x1ff, 0b10.
    let row = [
        0x8180_7f00,
        0x8001_8000,
        0x200 | 0x201 << 10 | 0x1ff << 20 | 2 << 30,
        0,
    ];
    let out = lane0(
        "tbuffer_load_format_xyzw v[10:13], v1, s[0:3], 0 format:[BUF_FMT_8_8_8_8_SNORM] offen\n\
         tbuffer_load_format_xy v[14:15], v1, s[0:3], 0 format:[BUF_FMT_16_16_SNORM] offen offset:4\n\
         tbuffer_load_format_xyzw v[16:19], v1, s[0:3], 0 format:[BUF_FMT_2_10_10_10_SNORM] offen offset:8",
        true,
        row,
    );
    assert_eq!(out[..10], [0, one, m1, m1, m1, m1, m1, m1, one, m1]);
}

/// 11- and 10-bit floats widen exactly: infinity, NaNs with their payload (a signalling one stays signalling),
/// denormals (2^-20 and 2^-19 at the bottom), the largest values (65024 and 64512); an f16 NaN and denormal the
/// same; the d16 form gives the same values as halves.
#[test]
fn small_float_loads_expand_exactly() {
    // 10_11_11: X 0x7c0 (inf), Y 0x001, Z 0x3df (10-bit max); then X 0x7c1, Y 0x7bf (11-bit max), Z 0x3e1.
    // 11_11_10: X 0x001 (10-bit), Y 0x3c0 (1.0), Z 0x7e0 (quiet NaN). 16_16: 0x7c01, 0x8001.
    let row = [0xf7c0_0fc0, 0xf87d_ffc1, 0xfc0f_0001, 0x8001_7c01];
    let out = lane0(
        "tbuffer_load_format_xyzw v[10:13], v1, s[0:3], 0 format:[BUF_FMT_10_11_11_FLOAT] offen\n\
         tbuffer_load_format_xyzw v[14:17], v1, s[0:3], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:4\n\
         tbuffer_load_format_xyz v[18:20], v1, s[0:3], 0 format:[BUF_FMT_11_11_10_FLOAT] offen offset:8\n\
         tbuffer_load_format_xy v[21:22], v1, s[0:3], 0 format:[BUF_FMT_16_16_FLOAT] offen offset:12\n\
         tbuffer_load_format_d16_xyzw v[24:25], v1, s[0:3], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:4",
        true,
        row,
    );
    assert_eq!(
        out[..16],
        [
            0x7f80_0000,
            0x3580_0000,
            0x477c_0000,
            0x3f80_0000,
            0x7f82_0000,
            0x477e_0000,
            0x7f84_0000,
            0x3f80_0000,
            0x3600_0000,
            0x3f80_0000,
            0x7fc0_0000,
            0x7f80_2000,
            0xb380_0000,
            0,
            0x7bf0_7c10,
            0x3c00_7c20,
        ]
    );
}

/// Normalized stores: NaN gives 0, the range clamps (infinities too, -1.0 and below store the most negative
/// code plus one: 0x81), the scaled value rounds to nearest (0.5 / 255 rounded to f32 lies just above the tie
/// and gives 1; the f32 below it gives 0); the only exact ties, the 2-bit SNORM W at +-0.5, go to even (0).
#[test]
fn norm_stores_clamp_round_and_send_nan_to_zero() {
    let body = "tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_SNORM] offen offset:4\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_2_10_10_10_SNORM] offen offset:8\n\
                tbuffer_store_format_xy v[6:7], v1, s[4:7], 0 format:[BUF_FMT_16_16_UNORM] offen offset:12";
    let cases: [([u32; 4], [u32; 4]); 7] = [
        // NaN, -inf, 1 + 2^-23, 0.5.
        (
            [0x7fc0_0000, 0xff80_0000, 0x3f80_0001, 0x3f00_0000],
            [0x80ff_0000, 0x407f_8100, 0x1ff8_0400, 0x8000_ffff],
        ),
        // -1, -2, -0.5, 0.5 / 255 just above.
        (
            [0xbf80_0000, 0xc000_0000, 0xbf00_0000, 0x3b00_8081],
            [0x0100_0000, 0x00c0_8181, 0x3008_0601, 0x0081_0000],
        ),
        // 0.5 / 255 just below, just above, 1 - 2^-24, -0.
        (
            [0x3b00_8080, 0x3b00_8081, 0x3f7f_ffff, 0x8000_0000],
            [0x00ff_0100, 0x007f_0000, 0x1ff0_0401, 0x0000_ffff],
        ),
        // W = 0.5, -0.5, 0.75: the ties give 0, 0.75 gives 1.
        (
            [0, 0, 0, 0x3f00_0000],
            [0x8000_0000, 0x4000_0000, 0, 0x8000_0000],
        ),
        ([0, 0, 0, 0xbf00_0000], [0, 0xc000_0000, 0, 0]),
        (
            [0, 0, 0, 0x3f40_0000],
            [0xbf00_0000, 0x5f00_0000, 0x4000_0000, 0xbfff_0000],
        ),
        // 1, -1, 0.5 (255.5 in 10 bits: 256), -0.75 (-1 in 2 bits).
        (
            [0x3f80_0000, 0xbf80_0000, 0x3f00_0000, 0xbf40_0000],
            [0x0080_00ff, 0xa140_817f, 0xd008_05ff, 0x0000_8000],
        ),
    ];
    let k = kernel(body, false);
    for (row, want) in cases {
        assert_eq!(run(&k, &[row]).unwrap()[0], want, "{row:08x?}");
    }
}

/// Scaled stores convert like normalized ones (rule buffer.store_scaled_as_norm): 1.0 gives the largest code,
/// 2.0 and 200.0 clamp to it, 0.25 gives a quarter of it.
#[test]
fn scaled_stores_convert_like_norm_stores() {
    let body = "tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_USCALED] offen\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_SSCALED] offen offset:4\n\
                tbuffer_store_format_xy v[4:5], v1, s[4:7], 0 format:[BUF_FMT_16_16_SSCALED] offen offset:8";
    // 1.0, 2.0, 0.25, -1.0 (and 200.0 is past the range like 2.0).
    let out = lane0(
        body,
        false,
        [0x3f80_0000, 0x4000_0000, 0x3e80_0000, 0xbf80_0000],
    );
    assert_eq!(out, [0x0040_ffff, 0x8120_7f7f, 0x7fff_7fff, FILL]);
    let out = lane0(body, false, [0x4348_0000, 0, 0, 0]);
    assert_eq!(out, [0x0000_00ff, 0x0000_007f, 0x0000_7fff, FILL]);
}

/// Integer stores saturate to the field (rule buffer.store_int_saturate); 32-bit fields take the register.
#[test]
fn integer_stores_saturate() {
    let body = "tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_UINT] offen\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_SINT] offen offset:4\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_10_10_10_2_UINT] offen offset:8\n\
                tbuffer_store_format_x v6, v1, s[4:7], 0 format:[BUF_FMT_32_SINT] offen offset:12";
    // 0x100, -1, 0x7f, -129.
    let out = lane0(body, false, [0x100, 0xffff_ffff, 0x7f, 0xffff_ff7f]);
    // UINT: 0xff, 0xff, 0x7f, 0xff; SINT: 0x7f, -1, 0x7f, -128; 10_10_10_2 UINT: X (2 bits) 3, Y 1023, Z 127,
    // W 1023.
    assert_eq!(
        out,
        [
            0xff7f_ffff,
            0x807f_ff7f,
            3 | 1023 << 2 | 127 << 12 | 1023 << 22,
            0x7f
        ]
    );
}

/// Half-float stores round toward zero (rule buffer.store_float_rtz): 65519, 65520 and 65536 give 65504,
/// infinity stays, 2^-24 is the smallest denormal and 2^-25 is 0, 1 + 2^-11 truncates to 1; a NaN keeps the top
/// of its payload (a signalling one whose payload truncates to 0 gets 1), -0 stays. The 11- and 10-bit floats do
/// the same without a sign: negatives store 0, a NaN of either sign stays NaN.
#[test]
fn float_stores_truncate() {
    let body = "tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_16_16_16_16_FLOAT] offen\n\
                tbuffer_store_format_xyz v[4:6], v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:8";
    let cases: [([u32; 4], [u32; 4]); 3] = [
        // 65519, 65520, 65536, +inf.
        (
            [0x477f_ef00, 0x477f_f000, 0x4780_0000, 0x7f80_0000],
            [
                0x7bff_7bff,
                0x7c00_7bff,
                0x7bf | 0x7bf << 11 | 0x3df << 22,
                FILL,
            ],
        ),
        // 2^-24, 2^-25, 1 + 2^-11, 1 + 2^-10.
        (
            [0x3380_0000, 0x3300_0000, 0x3f80_1000, 0x3f80_2000],
            [0x0000_0001, 0x3c01_3c00, 0x1e0 << 22, FILL],
        ),
        // -(1 + 2^-11), a signalling NaN with payload 1, a negative quiet NaN, -0.
        (
            [0xbf80_1000, 0x7f80_0001, 0xffc1_2345, 0x8000_0000],
            [0x7c01_bc00, 0x8000_fe09, 0x7c1 << 11 | 0x3f0 << 22, FILL],
        ),
    ];
    let k = kernel(body, false);
    for (row, want) in cases {
        assert_eq!(run(&k, &[row]).unwrap()[0], want, "{row:08x?}");
    }
}

/// d16 loads pack two components a VGPR: `_d16_x` keeps the high half, `_d16_xyz` keeps the high half of its
/// second VGPR, `_d16_hi_x` writes the high half and keeps the low one; norm values round to the nearest half.
#[test]
fn d16_loads_pack_halves_and_keep_the_rest() {
    // 16_16_UNORM 0xffff, 0x8000; 8_8_8_8_UINT 1, 2, 3, 4; 16_16_FLOAT 0x7bff.
    let row = [0x8000_ffff, 0x0403_0201, 0x3c00_7bff, 0];
    let body = format!(
        "v_mov_b32 v10, 0xbeefbeef\nv_mov_b32 v12, 0xcafecafe\nv_mov_b32 v13, 0x12345678\n\
         tbuffer_load_format_d16_x v10, v1, s[0:3], 0 format:[BUF_FMT_16_16_UNORM] offen\n\
         tbuffer_load_format_d16_xyz v[11:12], v1, s[0:3], 0 format:[BUF_FMT_8_8_8_8_UINT] offen offset:4\n\
         s_mov_b32 s23, {:#x}\n\
         buffer_load_format_d16_hi_x v13, v1, s[20:23], 0 offen offset:8\n\
         tbuffer_load_format_d16_xy v14, v1, s[0:3], 0 format:[BUF_FMT_16_16_UNORM] offen",
        word3(29, 0xfac)
    );
    let out = lane0(&body, true, row);
    assert_eq!(
        out[..5],
        [
            0xbeef_3c00,
            0x0002_0001,
            0xcafe_0003,
            0x7bff_5678,
            0x3800_3c00
        ]
    );
}

/// d16 stores take their components from the halves: `_d16_xy` both halves of one VGPR, `_d16_hi_x` the high
/// half; a half widens exactly to f32 for a 32_FLOAT element and is clamped like an f32 for a norm one.
#[test]
fn d16_stores_take_halves() {
    // Halves: 1.0 and 0.5; +inf and 0xbc00.
    let row = [0x3800_3c00, 0xbc00_7c00, 0, 0];
    let body = format!(
        "tbuffer_store_format_d16_xy v4, v1, s[4:7], 0 format:[BUF_FMT_16_16_UNORM] offen\n\
         s_mov_b32 s27, {:#x}\n\
         buffer_store_format_d16_hi_x v4, v1, s[24:27], 0 offen offset:4\n\
         tbuffer_store_format_d16_x v5, v1, s[4:7], 0 format:[BUF_FMT_8_8_UNORM] offen offset:8\n\
         s_mov_b32 s27, {:#x}\n\
         buffer_store_format_d16_hi_x v5, v1, s[24:27], 0 offen offset:12",
        word3(22, 0xfac),
        word3(12, 0xfac)
    );
    // 8_8_UNORM: +inf clamps to 0xff, Y is zero-filled; 16_SINT: 0xbc00 is -17408 as an integer.
    let out = lane0(&body, false, row);
    assert_eq!(out, [0x8000_ffff, 0x3f00_0000, 0xdead_00ff, 0xdead_bc00]);
}

/// A store with fewer components than the format writes the whole element with 0 in the others (rule
/// buffer.store_zero_fill): buffer_store_format_xy to 16_16_16_16 leaves 0 in the element's upper dword.
#[test]
fn stores_with_fewer_components_zero_fill_the_element() {
    let body = format!(
        "s_mov_b32 s27, {:#x}\n\
         buffer_store_format_xy v[4:5], v1, s[24:27], 0 offen\n\
         tbuffer_store_format_x v4, v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen offset:8\n\
         tbuffer_store_format_x v6, v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:12",
        word3(65, 0xfac)
    );
    // 1.0, 0.5, 2.0 (11-bit 0x400).
    let out = lane0(&body, false, [0x3f80_0000, 0x3f00_0000, 0x4000_0000, 0]);
    assert_eq!(out, [0x8000_ffff, 0, 0x0000_00ff, 0x400]);
    let out = lane0(
        "tbuffer_store_format_x v4, v1, s[4:7], 0 format:[BUF_FMT_32_32_UINT] offen offset:4",
        false,
        [7, 8, 9, 10],
    );
    assert_eq!(out, [FILL, 7, 0, FILL]);
}

/// A store with more components than the format writes only the format's element (rule
/// buffer.store_extra_components).
#[test]
fn stores_with_more_components_write_only_the_element() {
    let body = format!(
        "s_mov_b32 s27, {:#x}\n\
         buffer_store_format_xyzw v[4:7], v1, s[24:27], 0 offen\n\
         tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_UNORM] offen offset:4",
        word3(22, 0xfac)
    );
    let out = lane0(
        &body,
        false,
        [0x3f80_0000, 0x3f00_0000, 0x3e80_0000, 0x3f40_0000],
    );
    assert_eq!(out, [0x3f80_0000, 0xdead_80ff, FILL, FILL]);
}

/// DST_SEL picks each output from the element's components, 0 or 1 (1.0 for the float kinds, 1 for the integer
/// ones, 0x3c00 in a d16 load); a component the format lacks reads 0 (W: 1).
#[test]
fn load_dst_sel_swizzles() {
    // 8_8_8_8: 0x00, 0x80, 0xff, 0x01; then 16_UNORM 0xffff.
    let row = [0x01ff_8000, 0xffff, 0, 0];
    let sel = |x: u32, y: u32, z: u32, w: u32| x | y << 3 | z << 6 | w << 9;
    let body = format!(
        "s_mov_b32 s23, {:#x}\nbuffer_load_format_xyzw v[10:13], v1, s[20:23], 0 offen\n\
         s_mov_b32 s23, {:#x}\nbuffer_load_format_xyzw v[14:17], v1, s[20:23], 0 offen\n\
         s_mov_b32 s23, {:#x}\nbuffer_load_format_xyzw v[18:21], v1, s[20:23], 0 offen offset:4\n\
         s_mov_b32 s23, {:#x}\nbuffer_load_format_d16_xyzw v[22:23], v1, s[20:23], 0 offen",
        word3(56, sel(7, 6, 5, 4)),
        word3(60, sel(5, 1, 0, 4)),
        word3(7, sel(4, 5, 6, 7)),
        word3(56, sel(4, 1, 0, 1)),
    );
    let out = lane0(&body, true, row);
    assert_eq!(
        out[..14],
        [
            0x3b80_8081,
            0x3f80_0000,
            0x3f00_8081,
            0,
            0x80,
            1,
            0,
            0,
            0x3f80_0000,
            0,
            0,
            0x3f80_0000,
            0x3c00_0000,
            0x3c00_0000,
        ]
    );
}

/// An element past NUM_RECORDS (OOB_SELECT 3: byte offset + element size) reads all zeros and is not written;
/// the check is all or nothing for the element.
#[test]
fn format_elements_past_the_records() {
    let body = format!(
        "s_mov_b32 s22, 4\ns_mov_b32 s23, {:#x}\n\
         buffer_load_format_xyzw v[10:13], off, s[20:23], 0\n\
         tbuffer_load_format_x v14, off, s[20:23], 0 format:[BUF_FMT_32_FLOAT]\n\
         s_mov_b32 s26, 4\ns_mov_b32 s27, {:#x}\n\
         buffer_store_format_xy v[4:5], off, s[24:27], 0\n\
         s_mov_b32 exec_lo, 1\n\
         tbuffer_store_format_x v6, off, s[24:27], 0 format:[BUF_FMT_32_FLOAT] offset:4\n\
         s_mov_b32 exec_lo, -1",
        word3(65, 0xfac),
        word3(65, 0xfac),
    );
    let got = run(&kernel(&body, true), &[[0x1234_5678, 1, 2, 3]]).unwrap();
    // The 8-byte element at 0 is past 4 bytes; the dword at 0 is not. The store of 8 bytes is dropped, the
    // 4-byte one at offset 4 is past the records too: the output array keeps its fill.
    assert_eq!(got[0][..5], [0, 0, 0, 0, 0x1234_5678]);
}

/// Format codes gfx10 does not have, a reserved DST_SEL on a load, a swizzling DST_SEL on a store and a
/// misaligned element are refused with the reason, not guessed.
#[test]
fn unknown_formats_and_selects_are_refused() {
    for code in [0u32, 78, 100, 127] {
        let r = refusal(&format!(
            "tbuffer_load_format_x v10, v1, s[0:3], 0 format:{code} offen"
        ));
        assert!(r.contains(&format!("buffer format {code}")), "{r}");
        let r = refusal(&format!(
            "s_mov_b32 s27, {:#x}\nbuffer_store_format_x v4, v1, s[24:27], 0 offen",
            word3(code, 0xfac)
        ));
        assert!(r.contains(&format!("buffer format {code}")), "{r}");
    }
    let r = refusal(&format!(
        "s_mov_b32 s23, {:#x}\nbuffer_load_format_x v10, v1, s[20:23], 0 offen",
        word3(22, 0xfaa)
    ));
    assert!(r.contains("reserved"), "{r}");
    let r = refusal(&format!(
        "s_mov_b32 s27, {:#x}\nbuffer_store_format_xyzw v[4:7], v1, s[24:27], 0 offen",
        word3(56, 5 | 4 << 3 | 6 << 6 | 7 << 9)
    ));
    assert!(r.contains("DST_SEL"), "{r}");
    // Elements off their component alignment (4 bytes for the packed formats); a byte format aligns anywhere.
    for (name, offset) in [("16_UNORM", 1), ("32_32_FLOAT", 2), ("10_11_11_FLOAT", 2)] {
        let r = refusal(&format!(
            "tbuffer_load_format_x v10, v1, s[0:3], 0 format:[BUF_FMT_{name}] offen offset:{offset}"
        ));
        assert!(r.contains("not a multiple"), "{r}");
    }
    let out = lane0(
        "tbuffer_load_format_x v10, v1, s[0:3], 0 format:[BUF_FMT_8_UINT] offen offset:3",
        true,
        [0x4433_2211, 0, 0, 0],
    );
    assert_eq!(out[0], 0x44);
}

/// The LLVM names this file's table is built from are llvm-mc 19's: `format:N` prints as `BUF_FMT_<name>`
/// (code 1, the default, prints no format), and 78 and above print as numbers.
#[test]
fn the_format_names_are_llvm_19s() {
    let src: String = (0..128)
        .map(|n| format!("tbuffer_load_format_x v1, v0, s[0:3], 0 format:{n} offen\n"))
        .collect();
    let out = std::process::Command::new(common::LLVM_MC)
        .args(["-triple=amdgcn", "-mcpu=gfx1030"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(src.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("tbuffer")).collect();
    assert_eq!(lines.len(), 128);
    for (n, line) in lines.iter().enumerate() {
        let want = match n {
            1 => "offen".to_string(),
            0..=77 => format!("format:[BUF_FMT_{}]", NAMES[n]),
            _ => format!("format:{n}"),
        };
        assert!(line.contains(&want), "{n}: {line}");
    }
}

/// Every 16-bit code through 16_16_16_16 UNORM, SNORM, USCALED and FLOAT, as 32-bit and as d16 loads: the
/// d16 norm values round once from the exact quotient, which only an exhaustive run can show for every code.
#[test]
fn every_16_bit_code_loads() {
    let all: Vec<u32> = (0..0x1_0000).collect();
    let rows: Vec<[u32; 4]> = all
        .chunks(4)
        .map(|c| [c[0] | c[1] << 16, c[2] | c[3] << 16, 0, 0])
        .collect();
    for (code, kind) in [
        (65u32, Kind::Unorm),
        (66, Kind::Snorm),
        (67, Kind::Uscaled),
        (71, Kind::Float),
    ] {
        let name = NAMES[code as usize];
        let body = format!(
            "tbuffer_load_format_xyzw v[10:13], v1, s[0:3], 0 format:[BUF_FMT_{name}] offen\n\
             tbuffer_load_format_d16_xyzw v[14:15], v1, s[0:3], 0 format:[BUF_FMT_{name}] offen"
        );
        let got = run(&kernel(&body, true), &rows).unwrap();
        for (lane, r) in rows.iter().enumerate() {
            let c = [r[0] & 0xffff, r[0] >> 16, r[1] & 0xffff, r[1] >> 16];
            let h: Vec<u32> = c.iter().map(|&x| load16(x, 16, kind) as u32).collect();
            let want: Vec<u32> = c
                .iter()
                .map(|&x| load32(x, 16, kind))
                .chain([h[0] | h[1] << 16, h[2] | h[3] << 16])
                .collect();
            assert_eq!(got[lane][..6], want[..], "{name} codes {c:04x?}");
        }
    }
}

/// Every half through d16 stores to 16_16_16_16 SNORM, 8_8_8_8 UNORM and 11_11_10_FLOAT, four (three) halves
/// an element.
#[test]
fn every_half_d16_stores() {
    let all: Vec<u32> = (0..0x1_0000).collect();
    let rows: Vec<[u32; 4]> = all
        .chunks(4)
        .map(|c| [c[0] | c[1] << 16, c[2] | c[3] << 16, 0, 0])
        .collect();
    let body = "tbuffer_store_format_d16_xyzw v[4:5], v1, s[4:7], 0 format:[BUF_FMT_16_16_16_16_SNORM] offen\n\
                tbuffer_store_format_d16_xyzw v[4:5], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen offset:8\n\
                tbuffer_store_format_d16_xyz v[4:5], v1, s[4:7], 0 format:[BUF_FMT_11_11_10_FLOAT] offen offset:12";
    let got = run(&kernel(body, false), &rows).unwrap();
    let (snorm, unorm, float) = (spec(66), spec(56), spec(43));
    for (lane, r) in rows.iter().enumerate() {
        let h = [
            r[0] as u16,
            (r[0] >> 16) as u16,
            r[1] as u16,
            (r[1] >> 16) as u16,
        ];
        let pack = |s: &Spec, n: usize| -> u128 {
            (0..n)
                .map(|i| s.place(i, store16(h[i], s.bits[i], s.kind)))
                .fold(0, |a, b| a | b)
        };
        let e = pack(&snorm, 4);
        let want = [
            e as u32,
            (e >> 32) as u32,
            pack(&unorm, 4) as u32,
            pack(&float, 3) as u32,
        ];
        assert_eq!(got[lane], want, "halves {h:04x?}");
    }
}

/// Pseudo-random f32 bit patterns (every class: NaNs, infinities, denormals, huge and tiny values) stored to
/// 16_16_FLOAT, 10_11_11_FLOAT, 8_8_8_8_SNORM and 16_16_UNORM.
#[test]
fn random_f32_stores() {
    let data = random(0x5eed, 4 * 8192);
    let rows = rows_of(&data);
    let body = "tbuffer_store_format_xy v[4:5], v1, s[4:7], 0 format:[BUF_FMT_16_16_FLOAT] offen\n\
                tbuffer_store_format_xyz v[4:6], v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:4\n\
                tbuffer_store_format_xyzw v[4:7], v1, s[4:7], 0 format:[BUF_FMT_8_8_8_8_SNORM] offen offset:8\n\
                tbuffer_store_format_xy v[6:7], v1, s[4:7], 0 format:[BUF_FMT_16_16_UNORM] offen offset:12";
    let got = run(&kernel(body, false), &rows).unwrap();
    let (f16x2, f11, s8, u16x2) = (spec(29), spec(36), spec(57), spec(23));
    for (lane, r) in rows.iter().enumerate() {
        let pack = |s: &Spec, d: &[u32]| -> u32 {
            d.iter()
                .enumerate()
                .map(|(i, &x)| s.place(i, store32(x, s.bits[i], s.kind)))
                .fold(0, |a, b| a | b) as u32
        };
        let want = [
            pack(&f16x2, &r[..2]),
            pack(&f11, &r[..3]),
            pack(&s8, &r[..4]),
            pack(&u16x2, &r[2..4]),
        ];
        assert_eq!(got[lane], want, "{r:08x?}");
    }
}
