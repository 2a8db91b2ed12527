//! The buffer format conversions (`recompiler::format`), evaluated on the CPU, against the reference model's
//! (`reference_model::exec::format`): loads of every code of every component width of every kind, to 32 bits
//! and to 16 (d16); d16 stores of every 16-bit value into 16-bit components (and a sample into the others);
//! 32-bit stores of the f32 pair around every normalized code's rounding midpoint, special and random
//! values; and the DST_SEL selection and component placement of every
//! format code. The conversions take no float mode (the format unit's rounding is fixed), so there is no
//! mode to vary.

use recompiler::format as fmt;
use recompiler::lower::{Eval, Lower, Val};
use reference_model::exec::format::{self as model, lookup, Format, Num};

/// Every (width, kind) a gfx10 format has a component of.
fn widths_and_kinds() -> Vec<(u32, Num)> {
    let mut v: Vec<(u32, Num)> = Vec::new();
    for code in 1..128u8 {
        let Ok(f) = lookup(code) else { continue };
        for c in 0..f.comps {
            if !v.contains(&(f.bits[c], f.num)) {
                v.push((f.bits[c], f.num));
            }
        }
    }
    v
}

fn formats() -> Vec<Format> {
    (0..128u8).filter_map(|c| lookup(c).ok()).collect()
}

/// A small xorshift generator (the test must be repeatable).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

fn w(v: Val) -> u32 {
    match v {
        Val::W(x) => x,
        other => panic!("not a word: {other:?}"),
    }
}

fn load(c: u32, bits: u32, num: Num, d16: bool) -> u32 {
    let e = &mut Eval;
    let (c, b, k) = (e.k32(c), e.k32(bits), e.k32(fmt::kind(num)));
    w(fmt::load(e, c, b, k, d16))
}

fn store(x: u32, bits: u32, num: Num, d16: bool) -> u32 {
    let e = &mut Eval;
    let (x, b, k) = (e.k32(x), e.k32(bits), e.k32(fmt::kind(num)));
    let r = w(fmt::store(e, x, b, k, d16));
    if bits == 32 {
        r
    } else {
        r & ((1 << bits) - 1)
    }
}

/// 32-bit codes to try where a width's codes are too many to run all: special f32 and integer values,
/// every f16-relevant boundary, and random words.
fn wide_codes() -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff,
        0x1_0000,
        0x7fff,
        0x8000,
        0xffff_8000,
        0xffff_7fff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xffa0_2001,
        0x7f80_2000,
        0x7f80_1fff,
        0x0000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0x477f_e000,
        0x477f_efff,
        0x477f_f000,
        0x4780_0000,
        0xc77f_f000,
        0x3880_0000,
        0x387f_ffff,
        0x3380_0000,
        0x337f_ffff,
        0x3300_0000,
        0xb300_0001,
    ];
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for i in 0..2000u32 {
        let x = r.next();
        // Half random words, half f32 with exponents around f16's range.
        v.push(if i % 2 == 0 {
            x
        } else {
            (x & 0x807f_ffff) | (0x60 + (x >> 23) % 0x40) << 23
        });
    }
    v
}

#[test]
fn every_load_code_of_every_width_and_kind_matches_the_model() {
    let mut checked = 0u64;
    for (bits, num) in widths_and_kinds() {
        let codes: Vec<u32> = if bits <= 16 {
            (0..1u32 << bits).collect()
        } else {
            wide_codes()
        };
        for &c in &codes {
            for d16 in [false, true] {
                let want = if d16 {
                    model::load16(c, bits, num) as u32
                } else {
                    model::load32(c, bits, num)
                };
                let got = load(c, bits, num, d16);
                assert_eq!(
                    got, want,
                    "{bits}-bit {num:?} code {c:#x} (d16 {d16}): got {got:#x}, model {want:#x}"
                );
                checked += 1;
            }
        }
    }
    // Every code of 2, 8, 10, 11 and 16 bits of each kind, both widths.
    assert!(checked > 600_000, "{checked}");
}

/// Every 16-bit value for each kind's 16-bit components (every kind has one); for the other widths every
/// value whose exponent field is at an end or around 1.0, and every 61st other (the conversion after the
/// d16 front end is the 32-bit store's, which the next test covers around every code).
#[test]
fn every_d16_store_value_matches_the_model() {
    for (bits, num) in widths_and_kinds() {
        let values = (0..=0xffffu32).filter(|&h| {
            let ef = h >> 10 & 31;
            bits == 16 || matches!(ef, 0 | 1 | 14 | 15 | 30 | 31) || h % 61 == 0
        });
        for h in values {
            let want = model::store16(h as u16, bits, num);
            let got = store(h | 0xabcd_0000, bits, num, true);
            assert_eq!(
                got, want,
                "d16 store of {h:#06x} to {bits}-bit {num:?}: got {got:#x}, model {want:#x}"
            );
        }
    }
}

/// The two f32 values around every `step`-th rounding midpoint `(k + 0.5) / m` of the normalized store
/// conversion (`m = 2^d - 1`), negated too when `signed`.
fn norm_inputs(d: u32, signed: bool, step: u64) -> Vec<u32> {
    let m = (1u64 << d) - 1;
    let mut v = Vec::new();
    for k in (0..m).step_by(step as usize) {
        // (2k + 1) / 2m in 64 fraction bits, truncated to an f32 (at or just below it), and the next f32.
        let num = (2 * k + 1) as u128;
        let den = (2 * m) as u128;
        let q = (num << 64) / den;
        let x = f32_near(q);
        for y in [x, x + 1] {
            v.push(y);
            if signed {
                v.push(y | 0x8000_0000);
            }
        }
    }
    v
}

/// The f32 bits of `q * 2^-64` truncated (0 < q < 2^64).
fn f32_near(q: u128) -> u32 {
    let msb = 127 - q.leading_zeros();
    let e = msb as i32 - 64;
    let sig = (q >> (msb - 23)) as u32 & 0x7f_ffff;
    ((e + 127) as u32) << 23 | sig
}

#[test]
fn stores_match_the_model_around_every_code_midpoint_and_on_special_values() {
    let mut special = wide_codes();
    special.extend([
        0x3f00_0000,
        0xbf00_0000,
        0x3f7f_ffff,
        0xbf7f_ffff,
        0x3f80_0001,
        0xbf80_0001,
        0x4000_0000,
        0xc000_0000,
        0x0000_0001,
        0x8000_0001,
    ]);
    let mut checked = 0u64;
    for (bits, num) in widths_and_kinds() {
        let mut inputs = special.clone();
        // Every midpoint of the normalized kinds; every 97th of the scaled ones, which run the same
        // conversion (rule buffer.store_scaled_as_norm).
        match num {
            Num::Unorm => inputs.extend(norm_inputs(bits, false, 1)),
            Num::Snorm => inputs.extend(norm_inputs(bits - 1, true, 1)),
            Num::Uscaled => inputs.extend(norm_inputs(bits, false, 97)),
            Num::Sscaled => inputs.extend(norm_inputs(bits - 1, true, 97)),
            _ => {}
        }
        for &x in &inputs {
            let want = model::store32(x, bits, num);
            let want = if bits == 32 {
                want
            } else {
                want & ((1 << bits) - 1)
            };
            let got = store(x, bits, num, false);
            assert_eq!(
                got, want,
                "store of {x:#010x} to {bits}-bit {num:?}: got {got:#x}, model {want:#x}"
            );
            checked += 1;
        }
    }
    assert!(checked > 300_000, "{checked}");
}

/// The model's output `i` of a format load of an in-range element (mem_ops::format_access).
fn model_select(f: &Format, element: u128, sel: u32, d16: bool) -> u32 {
    let one = if d16 {
        model::one16(f.num) as u32
    } else {
        model::one32(f.num)
    };
    match sel {
        1 => one,
        4..=7 => {
            let c = sel as usize - 4;
            if c < f.comps {
                let code = f.field(element, c);
                if d16 {
                    model::load16(code, f.bits[c], f.num) as u32
                } else {
                    model::load32(code, f.bits[c], f.num)
                }
            } else if c == 3 {
                one
            } else {
                0
            }
        }
        _ => 0,
    }
}

#[test]
fn dst_sel_and_component_placement_of_every_format_match_the_model() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for f in formats() {
        let code = f.code as u32;
        let info = fmt::info_of(code);
        assert_ne!(info, 0, "{}", f.name());
        for _ in 0..40 {
            let d = [r.next(), r.next(), r.next(), r.next()];
            let element = d
                .iter()
                .enumerate()
                .fold(0u128, |a, (i, &x)| a | (x as u128) << (32 * i));
            for sel in [0u32, 1, 4, 5, 6, 7] {
                for d16 in [false, true] {
                    let e = &mut Eval;
                    let dv = d.map(|x| e.k32(x));
                    let (iv, sv) = (e.k32(info), e.k32(sel));
                    let got = w(fmt::select_load(e, dv, iv, sv, d16));
                    let want = model_select(&f, element, sel, d16);
                    assert_eq!(
                        got,
                        want,
                        "{} sel {sel} d16 {d16} element {d:08x?}",
                        f.name()
                    );
                }
            }
            // A store of all four components: the element the model builds.
            let data = [r.next(), r.next(), r.next(), r.next()];
            for d16 in [false, true] {
                let mut want = 0u128;
                let mut got = 0u128;
                for (c, &x) in data.iter().enumerate() {
                    if c < f.comps {
                        let code = if d16 {
                            model::store16(x as u16, f.bits[c], f.num)
                        } else {
                            model::store32(x, f.bits[c], f.num)
                        };
                        want |= f.place(c, code);
                    }
                    let e = &mut Eval;
                    let (xv, iv, cv) = (e.k32(x), e.k32(info), e.k32(c as u32));
                    let k = w(fmt::store_component(e, xv, iv, cv, d16));
                    let at = w(fmt::shift_of(e, iv, c as u32));
                    got |= (k as u128) << at;
                }
                assert_eq!(got, want, "{} store d16 {d16} of {data:08x?}", f.name());
            }
        }
        let e = &mut Eval;
        let iv = e.k32(info);
        assert_eq!(w(fmt::element_bytes(e, iv)), f.bytes, "{}", f.name());
    }
    // Codes without a format have none in the table either.
    let e = &mut Eval;
    for code in (0..128u32).filter(|&c| lookup(c as u8).is_err()) {
        let k = e.k32(code);
        assert_eq!(fmt::info_of(code), 0);
        assert_eq!(w(fmt::info(e, k)), 0, "code {code}");
    }
    for f in formats() {
        let k = e.k32(f.code as u32);
        assert_eq!(w(fmt::info(e, k)), fmt::info_of(f.code as u32));
    }
}

proptest::proptest! {
    /// Random 32-bit register values and codes through every (width, kind) a format has, both register
    /// widths, loads and stores, against the model: the 32-bit domains the tests above sample. CI runs
    /// proptest's default 256 cases; `PROPTEST_CASES=1000000 cargo test --release -p recompiler --test
    /// formats random_` is the long run (the crate README gives its figure).
    #[test]
    fn random_values_convert_as_the_model_does(x: u32, pick: usize, d16: bool) {
        let all = widths_and_kinds();
        let (bits, num) = all[pick % all.len()];
        let code = if bits == 32 { x } else { x & ((1 << bits) - 1) };
        let want = if d16 { model::load16(code, bits, num) as u32 } else { model::load32(code, bits, num) };
        proptest::prop_assert_eq!(load(code, bits, num, d16), want, "load {:#x} {}-bit {:?}", code, bits, num);
        let want = if d16 {
            model::store16(x as u16, bits, num)
        } else {
            model::store32(x, bits, num)
        };
        let want = if bits == 32 { want } else { want & ((1 << bits) - 1) };
        proptest::prop_assert_eq!(store(x, bits, num, d16), want, "store {:#x} {}-bit {:?}", x, bits, num);
    }
}
