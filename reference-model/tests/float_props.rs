//! The float engine against `rustc_apfloat` in the IEEE-conforming modes: every denormal
//! kept, IEEE 1, each of the four rounding directions (FLOAT_MODE 0xf0, 0xf5, 0xfa, 0xff).
//!
//! Each case draws three operands (half of them biased toward zeros, infinities, NaNs,
//! denormal and normal boundaries, as wasmtime's value generator does) and checks add,
//! sub, mul and fma in all four directions: 16 comparisons per case and format. Non-NaN
//! results must be bit-identical; where apfloat gives a NaN the model must too (NaN bits
//! are the hardware's rules, tested in float_seeds.rs and float_corpus.rs).
//!
//! CI runs proptest's default case count. The large run recorded in the crate README:
//! `PROPTEST_CASES=85000 cargo test --release -p reference-model --test float_props`.

use proptest::prelude::*;
use reference_model::float::{self, Mode};
use rustc_apfloat::ieee::{Double, Half, Single};
use rustc_apfloat::{Float, Round};

const ROUNDS: [(u8, Round); 4] = [
    (0, Round::NearestTiesToEven),
    (1, Round::TowardPositive),
    (2, Round::TowardNegative),
    (3, Round::TowardZero),
];

fn ieee_mode(r: u8) -> Mode {
    Mode {
        float_mode: 0xf0 | r | r << 2,
        ieee: true,
        dx10_clamp: true,
        fp16_ovfl: false,
    }
}

/// Operand bits of a `bits`-wide format with `man` fraction bits, biased half the time.
fn operand(bits: u32, man: u32) -> impl Strategy<Value = u64> {
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let sign = 1u64 << (bits - 1);
    let exp_max = (1u64 << (bits - 1 - man)) - 1;
    let specials = vec![
        0,
        1,
        (1u64 << man) - 1,
        1u64 << man,
        exp_max << man,
        (exp_max << man) | 1,
        (exp_max << man) | (1 << (man - 1)),
        ((exp_max - 1) << man) | ((1u64 << man) - 1),
        (exp_max >> 1) << man,
    ];
    let special =
        (proptest::sample::select(specials), any::<bool>())
            .prop_map(move |(v, s)| if s { v | sign } else { v });
    // Values with a random fraction and an exponent near the edges or near 1.
    let edge =
        (any::<u64>(), 0u64..6, any::<bool>(), any::<bool>()).prop_map(move |(frac, k, low, s)| {
            let e = if low {
                k
            } else {
                exp_max - 1 - k.min(exp_max - 1)
            };
            let v = (e << man) | (frac & ((1u64 << man) - 1));
            if s {
                v | sign
            } else {
                v
            }
        });
    let near_one = (any::<u64>(), 0u64..4, any::<bool>()).prop_map(move |(frac, k, s)| {
        let e = (exp_max >> 1) - 2 + k;
        let v = (e << man) | (frac & ((1u64 << man) - 1));
        if s {
            v | sign
        } else {
            v
        }
    });
    prop_oneof![
        4 => any::<u64>().prop_map(move |v| v & all),
        2 => special,
        2 => edge,
        2 => near_one,
    ]
}

macro_rules! check_format {
    ($name:ident, $ap:ty, $t:ty, $bits:expr, $man:expr, $add:path, $sub:path, $mul:path, $fma:path) => {
        proptest! {
            #![proptest_config(ProptestConfig {
                failure_persistence: Some(Box::new(
                    proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
                )),
                ..ProptestConfig::default()
            })]
            #[test]
            fn $name(a in operand($bits, $man), b in operand($bits, $man), c in operand($bits, $man)) {
                let (fa, fb, fc) = (
                    <$ap>::from_bits(a as u128),
                    <$ap>::from_bits(b as u128),
                    <$ap>::from_bits(c as u128),
                );
                for (r, rm) in ROUNDS {
                    let md = ieee_mode(r);
                    let cases: [(&str, $t, $ap); 4] = [
                        ("add", $add(md, a as $t, b as $t), fa.add_r(fb, rm).value),
                        ("sub", $sub(md, a as $t, b as $t), fa.sub_r(fb, rm).value),
                        ("mul", $mul(md, a as $t, b as $t), fa.mul_r(fb, rm).value),
                        ("fma", $fma(md, a as $t, b as $t, c as $t), fa.mul_add_r(fb, fc, rm).value),
                    ];
                    for (op, got, want) in cases {
                        if want.is_nan() {
                            let g = <$ap>::from_bits(got as u128);
                            prop_assert!(g.is_nan(), "{} {:x} {:x} {:x} round {}: got {:x}, want NaN", op, a, b, c, r, got);
                        } else {
                            prop_assert_eq!(got as u128, want.to_bits(),
                                "{} {:x} {:x} {:x} round {}", op, a, b, c, r);
                        }
                    }
                }
            }
        }
    };
}

check_format!(
    f16_matches_apfloat,
    Half,
    u16,
    16,
    10,
    float::add_f16,
    float::sub_f16,
    float::mul_f16,
    float::fma_f16
);
check_format!(
    f32_matches_apfloat,
    Single,
    u32,
    32,
    23,
    float::add_f32,
    float::sub_f32,
    float::mul_f32,
    float::fma_f32
);
check_format!(
    f64_matches_apfloat,
    Double,
    u64,
    64,
    52,
    float::add_f64,
    float::sub_f64,
    float::mul_f64,
    float::fma_f64
);

/// Every f16 pair in a band that covers subnormals, the normal boundary and overflow,
/// for add and mul in all four directions (exhaustive, not sampled).
#[test]
fn f16_exhaustive_band_matches_apfloat() {
    let vals: Vec<u16> = (0u16..0x0840).chain(0x7b00..0x7c01).step_by(7).collect();
    for &a in &vals {
        for &b in &vals {
            for sa in [0u16, 0x8000] {
                let (x, y) = (a | sa, b);
                for (r, rm) in ROUNDS {
                    let md = ieee_mode(r);
                    let (fx, fy) = (Half::from_bits(x as u128), Half::from_bits(y as u128));
                    let want = fx.add_r(fy, rm).value;
                    if !want.is_nan() {
                        assert_eq!(
                            float::add_f16(md, x, y) as u128,
                            want.to_bits(),
                            "add {x:x} {y:x} r{r}"
                        );
                    }
                    let want = fx.mul_r(fy, rm).value;
                    if !want.is_nan() {
                        assert_eq!(
                            float::mul_f16(md, x, y) as u128,
                            want.to_bits(),
                            "mul {x:x} {y:x} r{r}"
                        );
                    }
                }
            }
        }
    }
}
