//! Every concrete value that seeds 000 and 003 record as measured, as a test.
//!
//! Seed 000 is `shared/seeds/000_836b1374c983af00.txt`, seed 003 is
//! `shared/seeds/003_97da9db6370916fb.txt`; each test names the seed entry and the rule of
//! `reference_model::rules` it checks.

use reference_model::float::*;
use reference_model::rules;

/// A mode from its FLOAT_MODE byte and IEEE bit (DX10_CLAMP 1, FP16_OVFL 0).
fn m(float_mode: u8, ieee: bool) -> Mode {
    Mode {
        float_mode,
        ieee,
        dx10_clamp: true,
        fp16_ovfl: false,
    }
}

#[test]
fn every_cited_rule_is_registered() {
    for name in [
        "f32.tininess.after_rounding",
        "f16.tininess.after_rounding",
        "ldexp.f16_denorm",
        "mix.lo_hi_rounding",
        "nan.mix_lo_hi_quiet",
        "lds.float_minmax",
        "lds.float_cmpst",
        "f16.fp16_ovfl",
        "legacy.mad_gfx10",
        "legacy.zero_product",
        "nan.select.first_source",
        "nan.fma.invalid_product",
        "cmp.denorm_inputs",
        "omod.mode_dependent",
        "clamp.dx10",
    ] {
        assert!(rules::lookup(name).is_some(), "{name} not registered");
    }
    let mut names: Vec<_> = rules::RULES.iter().map(|r| r.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), rules::RULES.len(), "duplicate rule names");
}

/// Seed 000, f32 denormals entry; rule `f32.tininess.after_rounding`: with f32 denormals
/// flushed a product is flushed when, rounded to 24 bits with an unbounded exponent, it
/// is below 2^-126 (gfx1036, IEEE 0 and 1).
#[test]
fn seed000_mul_f32_tininess_pairs() {
    for ieee in [false, true] {
        let md = m(0xc0, ieee);
        assert_eq!(mul_f32(md, 0x3f7f_fffe, 0x0080_0001), 0x0080_0000);
        assert_eq!(mul_f32(md, 0x3f7f_ffff, 0x0080_0000), 0);
        assert_eq!(mul_legacy_f32(md, 0x3f7f_fffe, 0x0080_0001), 0x0080_0000);
        assert_eq!(mul_legacy_f32(md, 0x3f7f_ffff, 0x0080_0000), 0);
        // Zero addend: the fma forms follow the product rule.
        assert_eq!(fma_f32(md, 0x3f7f_fffe, 0x0080_0001, 0), 0x0080_0000);
        assert_eq!(fma_f32(md, 0x3f7f_ffff, 0x0080_0000, 0), 0);
        // Both signs.
        assert_eq!(mul_f32(md, 0xbf7f_fffe, 0x0080_0001), 0x8080_0000);
        assert_eq!(mul_f32(md, 0xbf7f_ffff, 0x0080_0000), 0x8000_0000);
    }
    // The check rounds in the f32 round mode (bits 1:0): toward zero the first product
    // stays below 2^-126 and is flushed; toward +inf the second rounds up to 2^-126.
    assert_eq!(mul_f32(m(0xc3, false), 0x3f7f_fffe, 0x0080_0001), 0);
    assert_eq!(
        mul_f32(m(0xc1, false), 0x3f7f_fffe, 0x0080_0001),
        0x0080_0000
    );
    assert_eq!(mul_f32(m(0xc2, false), 0x3f7f_fffe, 0x0080_0001), 0);
    assert_eq!(
        mul_f32(m(0xc2, false), 0xbf7f_fffe, 0x0080_0001),
        0x8080_0000
    );
    assert_eq!(mul_f32(m(0xc1, false), 0x3f7f_ffff, 0x0080_0000), 0);
}

/// Seed 000, f32 denormals entry: v_fma_mix_f32 follows the tininess rule with mixed
/// sources: f32 0x00801002 times f16 0x3bff gives 0x00800000 to nearest at IEEE 0 and 1,
/// the neighbours 0x00801001 and 0x00801003 give 0 and 0x00800001.
#[test]
fn seed000_fma_mix_f32_tiny_product() {
    for ieee in [false, true] {
        let md = m(0xc0, ieee);
        let h = MixSrc::F16(0x3bff);
        let zero = MixSrc::F32(0);
        assert_eq!(
            fma_mix_f32(md, MixSrc::F32(0x0080_1002), h, zero),
            0x0080_0000
        );
        assert_eq!(fma_mix_f32(md, MixSrc::F32(0x0080_1001), h, zero), 0);
        assert_eq!(
            fma_mix_f32(md, MixSrc::F32(0x0080_1003), h, zero),
            0x0080_0001
        );
        // f16 in the other multiplicand slot and an f16 zero addend.
        assert_eq!(
            fma_mix_f32(md, h, MixSrc::F32(0x0080_1002), MixSrc::F16(0)),
            0x0080_0000
        );
        // Selected from a register's high half.
        let hi = MixSrc::select(0x3bff_0000, true, true, false, false);
        assert_eq!(
            fma_mix_f32(md, MixSrc::F32(0x0080_1002), hi, zero),
            0x0080_0000
        );
    }
}

/// Seed 000, f32 denormals entry: the fused v_fma_f32 `0x1fffffff * 0x1fffffff +
/// 0x00800000` is `0x00ffffff` on hardware (a split multiply and add gives `0x00800000`).
#[test]
fn seed000_fma_f32_fused_with_tiny_product() {
    assert_eq!(
        fma_f32(Mode::TITLE, 0x1fff_ffff, 0x1fff_ffff, 0x0080_0000),
        0x00ff_ffff
    );
}

/// Seed 000, v_fma_mixlo_f16 entry; rule `mix.lo_hi_rounding`: -1.5 * 2^-24 + 2^-126 from
/// f32 sources gives 0x8001 (f16 denormals kept, nearest even), 0x8000 (f16 denormals
/// flushed) and 0x8002 (f16 round toward -inf), gfx1036.
#[test]
fn seed000_fma_mixlo_f16_cases() {
    let (a, b, c) = (
        MixSrc::F32(0xbfc0_0000),
        MixSrc::F32(0x3380_0000),
        MixSrc::F32(0x0080_0000),
    );
    for ieee in [false, true] {
        assert_eq!(fma_mixlo_f16(m(0xf0, ieee), a, b, c), 0x8001);
        assert_eq!(fma_mixlo_f16(m(0xc0, ieee), a, b, c), 0x8001);
        assert_eq!(fma_mixlo_f16(m(0x30, ieee), a, b, c), 0x8000);
        assert_eq!(fma_mixlo_f16(m(0xf8, ieee), a, b, c), 0x8002);
        assert_eq!(fma_mixhi_f16(m(0xf0, ieee), a, b, c), 0x8001);
    }
}

/// Seed 000, signalling NaN inputs entry; rules `nan.mix_lo_hi_quiet`,
/// `nan.quiet.ieee_only`: the f32 signalling NaN 0x7f812345 as src0 or src2 gives 0x7e09
/// from mixlo and mixhi at IEEE 0 and 1; v_fma_mix_f32 gives 0x7f812345 at IEEE 0 and
/// 0x7fc12345 at IEEE 1.
#[test]
fn seed000_mix_signalling_nan() {
    let s = MixSrc::F32(0x7f81_2345);
    let one = MixSrc::F32(0x3f80_0000);
    for ieee in [false, true] {
        let md = m(0xc0, ieee);
        assert_eq!(fma_mixlo_f16(md, s, one, one), 0x7e09);
        assert_eq!(fma_mixlo_f16(md, one, one, s), 0x7e09);
        assert_eq!(fma_mixhi_f16(md, s, one, one), 0x7e09);
        assert_eq!(fma_mixhi_f16(md, one, one, s), 0x7e09);
    }
    assert_eq!(fma_mix_f32(m(0xc0, false), s, one, one), 0x7f81_2345);
    assert_eq!(fma_mix_f32(m(0xc0, true), s, one, one), 0x7fc1_2345);
    assert_eq!(fma_mix_f32(m(0xc0, false), one, one, s), 0x7f81_2345);
    assert_eq!(fma_mix_f32(m(0xc0, true), one, one, s), 0x7fc1_2345);
    // v_cvt_f16_f32 always quiets the same way (rule `nan.cvt_narrow_quiet`).
    assert_eq!(cvt_f16_f32(m(0xc0, false), 0x7f81_2345), 0x7e09);
}

/// Seed 000, v_ldexp_f16 entry; rule `ldexp.f16_denorm`: `v_ldexp_f16 0x07ff, -1` gives +0
/// when f16 denormal results flush (fields 0 and 1), not 0x0400; with results kept
/// (fields 2 and 3) it rounds to 0x0400; a denormal input is flushed when bit 0 is clear.
#[test]
fn seed000_ldexp_f16_07ff() {
    for ieee in [false, true] {
        assert_eq!(ldexp_f16(m(0x00, ieee), 0x07ff, -1), 0x0000);
        assert_eq!(ldexp_f16(m(0x40, ieee), 0x07ff, -1), 0x0000);
        assert_eq!(ldexp_f16(m(0x80, ieee), 0x07ff, -1), 0x0400);
        assert_eq!(ldexp_f16(m(0xc0, ieee), 0x07ff, -1), 0x0400);
        assert_eq!(ldexp_f16(m(0x00, ieee), 0x87ff, -1), 0x8000);
        // Input bit: 0x03ff by 2^0 is kept only with bit 0 and bit 1 set.
        assert_eq!(ldexp_f16(m(0x80, ieee), 0x03ff, 0), 0x0000);
        assert_eq!(ldexp_f16(m(0x40, ieee), 0x03ff, 0), 0x0000);
        assert_eq!(ldexp_f16(m(0xc0, ieee), 0x03ff, 0), 0x03ff);
        assert_eq!(ldexp_f16(m(0x40, ieee), 0x03ff, 1), 0x07fe);
    }
}

/// Seed 000, scalar f16 add/sub/subrev/mul denormals entry; rule
/// `f16.tininess.after_rounding`: `0x3bff * 0x0400` flushes while `0x3c01 * 0x03ff` rounds
/// to `0x0400` and is kept (field 1: inputs kept, results flushed).
#[test]
fn seed000_mul_f16_tininess() {
    for ieee in [false, true] {
        for ovfl in [false, true] {
            let md = Mode {
                fp16_ovfl: ovfl,
                ..m(0x40, ieee)
            };
            assert_eq!(mul_f16(md, 0x3bff, 0x0400), 0x0000);
            assert_eq!(mul_f16(md, 0x3c01, 0x03ff), 0x0400);
        }
    }
    // Field 0 also flushes the denormal input.
    assert_eq!(mul_f16(m(0x00, false), 0x3c01, 0x03ff), 0x0000);
    // Field 3 keeps both.
    assert_eq!(mul_f16(m(0xc0, false), 0x3bff, 0x0400), 0x0400);
    assert_eq!(mul_f16(m(0xc0, false), 0x3bfe, 0x0400), 0x03ff);
    // add: inputs flushed by bit 0, results by bit 1.
    assert_eq!(add_f16(m(0x00, false), 0x0001, 0x0001), 0x0000);
    assert_eq!(add_f16(m(0x40, false), 0x0001, 0x0001), 0x0000);
    assert_eq!(add_f16(m(0xc0, false), 0x0001, 0x0001), 0x0002);
    assert_eq!(add_f16(m(0x80, false), 0x0001, 0x0400), 0x0400);
}

/// Seed 000, FP16_OVFL entry; rule `f16.fp16_ovfl`: v_rcp_f16, v_rsq_f16 and v_log_f16
/// of 0 and v_exp_f16 of 16 or more are clamped to the largest half, an infinite input
/// passes, and v_div_fixup_f16 keeps the infinity it writes for a zero denominator.
#[test]
fn seed000_fp16_ovfl() {
    for ieee in [false, true] {
        for field in [0x00u8, 0xc0] {
            let on = Mode {
                fp16_ovfl: true,
                ..m(field, ieee)
            };
            let off = m(field, ieee);
            assert_eq!(rcp_f16(on, 0x0000), 0x7bff);
            assert_eq!(rcp_f16(on, 0x8000), 0xfbff);
            assert_eq!(rcp_f16(off, 0x0000), 0x7c00);
            assert_eq!(rsq_f16(on, 0x0000), 0x7bff);
            assert_eq!(log_f16(on, 0x0000), 0xfbff);
            assert_eq!(log_f16(off, 0x0000), 0xfc00);
            assert_eq!(exp_f16(on, 0x4c00), 0x7bff);
            assert_eq!(exp_f16(off, 0x4c00), 0x7c00);
            // An infinite source passes through.
            assert_eq!(exp_f16(on, 0x7c00), 0x7c00);
            assert_eq!(log_f16(on, 0x7c00), 0x7c00);
            assert_eq!(add_f16(on, 0x7c00, 0x3c00), 0x7c00);
            // A finite overflow is clamped.
            assert_eq!(add_f16(on, 0x7bff, 0x7bff), 0x7bff);
            assert_eq!(mul_f16(on, 0xfbff, 0x4000), 0xfbff);
            // div_fixup keeps its own infinity (zero denominator), clamps others.
            assert_eq!(div_fixup_f16(on, 0x3c00, 0x0000, 0x3c00), 0x7c00);
            assert_eq!(div_fixup_f16(on, 0x7c00, 0x3c00, 0x3c00), 0x7bff);
        }
    }
    // v_cvt_pkrtz_f16_f32 rounds toward zero and never overflows.
    assert_eq!(
        cvt_pkrtz_f16_f32(Mode::TITLE, 0x5020_0000, 0xd020_0000),
        0xfbff_7bff
    );
}

/// Seed 000, v_mad_legacy_f32 entry; rules `legacy.mad_gfx10`, `legacy.zero_product`:
/// the product is rounded before the add, a zero factor gives a +0 product even against a
/// NaN or infinity, denormal sources/product/result flush in every mode, a NaN is quieted
/// only with IEEE 1, inf - inf gives 0xffc00000, a NaN src2 wins, and a sum of two zeros is
/// +0 unless both are -0.
#[test]
fn seed000_mad_legacy_f32() {
    for field in [0x00u8, 0x10, 0x20, 0x30, 0xf0] {
        for ieee in [false, true] {
            let md = m(field, ieee);
            assert_eq!(mad_legacy_f32(md, 0, 0x7f81_2345, 0x3f80_0000), 0x3f80_0000);
            assert_eq!(mad_legacy_f32(md, 0x7f80_0000, 0, 0x3f80_0000), 0x3f80_0000);
            assert_eq!(
                mad_legacy_f32(md, 0x7f80_0000, 0x3f80_0000, 0xff80_0000),
                0xffc0_0000
            );
            let q = if ieee { 0x7fc1_2345 } else { 0x7f81_2345 };
            assert_eq!(mad_legacy_f32(md, 0, 0x3f80_0000, 0x7f81_2345), q);
            assert_eq!(mad_legacy_f32(md, 0x7f81_2345, 0x3f80_0000, 0), q);
            // Denormal sources flush in every mode.
            assert_eq!(mad_legacy_f32(md, 0x0000_0001, 0x4000_0000, 0), 0);
            assert_eq!(
                mad_legacy_f32(md, 0x3f80_0000, 0x3f80_0000, 0x0000_0001),
                0x3f80_0000
            );
            // Zeros: +0 unless both are -0.
            assert_eq!(mad_legacy_f32(md, 0x8000_0000, 0x3f80_0000, 0x8000_0000), 0);
            assert_eq!(
                mad_legacy_f32(md, 0x9e3c_e508, 0x1e3c_e508, 0x8000_0000),
                0x8000_0000
            );
            // The product is rounded first: (1 + 2^-23)(1 + 2^-22) - 1 loses 2^-45.
            assert_eq!(
                mad_legacy_f32(md, 0x3f80_0001, 0x3f80_0002, 0xbf80_0000),
                0x34c0_0000
            );
            assert_eq!(
                fma_f32(m(0xf0, ieee), 0x3f80_0001, 0x3f80_0002, 0xbf80_0000),
                0x34c0_0001
            );
        }
    }
}

/// Seed 000, signalling NaN inputs entry; rules `nan.select.first_source`,
/// `nan.default`, `nan.fma.invalid_product`, `legacy.zero_product`.
#[test]
fn seed000_f32_nan_choice() {
    let s = 0x7f81_2345;
    for ieee in [false, true] {
        let md = m(0xc0, ieee);
        let q = |x: u32| if ieee { x | 0x0040_0000 } else { x };
        assert_eq!(add_f32(md, 0x3f80_0000, s), q(s));
        assert_eq!(add_f32(md, 0xffd5_4321, s), 0xffd5_4321);
        // The subtrahend is negated.
        assert_eq!(sub_f32(md, 0x3f80_0000, s), q(s ^ 0x8000_0000));
        assert_eq!(add_f32(md, 0x7f80_0000, 0xff80_0000), 0xffc0_0000);
        assert_eq!(mul_f32(md, 0x7f80_0000, 0), 0xffc0_0000);
        // inf * 0 wins over a NaN addend.
        assert_eq!(fma_f32(md, 0x7f80_0000, 0, s), 0xffc0_0000);
        assert_eq!(fma_f32(md, 0x3f80_0000, 0, s), q(s));
        // Legacy zero rule hides a NaN factor.
        assert_eq!(mul_legacy_f32(md, 0, s), 0);
        assert_eq!(mul_legacy_f32(md, 0x7f80_0000, 0), 0);
        assert_eq!(fma_legacy_f32(md, 0, s, 0x3f80_0000), 0x3f80_0000);
        assert_eq!(fma_legacy_f32(md, 0, 0x3f80_0000, s), q(s));
        // v_div_scale_f32 never quiets.
        assert_eq!(div_scale_f32(md, s, 0x3f80_0000, 0x3f80_0000).0, s);
        // Unary instructions and ldexp quiet only with IEEE 1.
        assert_eq!(floor_f32(md, s), q(s));
        assert_eq!(sqrt_f32(md, s), q(s));
        assert_eq!(ldexp_f32(md, s, 3), q(s));
        assert_eq!(
            cvt_f64_f32(md, s),
            if ieee {
                0x7ff8_2468_a000_0000
            } else {
                0x7ff0_2468_a000_0000
            }
        );
    }
}

/// Seed 000, f32 denormals entry; rule `cmp.denorm_inputs`: with f32 denormals kept a
/// denormal is not read as zero; with them flushed the compares flush their inputs.
#[test]
fn seed000_compares_denormals() {
    assert!(!cmp_f32(m(0xc0, false), Cmp::Lt, 0x0000_0001, 0x0000_0002));
    assert!(cmp_f32(m(0x00, true), Cmp::Eq, 0x8000_0001, 0x0000_0002));
    for md in [m(0xf0, false), m(0xf0, true), m(0x10, true)] {
        assert!(cmp_f32(md, Cmp::Lt, 0x0000_0001, 0x0000_0002));
        assert!(cmp_f32(md, Cmp::Gt, 0x0000_0001, 0x8000_0000));
        assert!(cmp_f32(md, Cmp::Eq, 0x0000_0000, 0x8000_0000));
        assert!(!cmp_f32(md, Cmp::Eq, 0x7fc0_0000, 0x7fc0_0000));
        assert!(cmp_f32(md, Cmp::Neq, 0x7fc0_0000, 0x7fc0_0000));
    }
}

/// Seed 000, v_ldexp_f32 entry; rule `ldexp.rounding`: subnormal results round in the
/// f32 round mode, overflow gives infinity or the largest finite value by direction.
#[test]
fn seed000_ldexp_f32_rounding() {
    // 1.5 * 2^-149 rounds to 2^-148 to nearest even, 2^-149 toward zero.
    assert_eq!(ldexp_f32(m(0xf0, false), 0x3fc0_0000, -149), 0x0000_0002);
    assert_eq!(ldexp_f32(m(0xf3, false), 0x3fc0_0000, -149), 0x0000_0001);
    assert_eq!(ldexp_f32(m(0xf2, false), 0xbfc0_0000, -149), 0x8000_0002);
    assert_eq!(ldexp_f32(m(0xf0, false), 0x3f80_0000, 128), 0x7f80_0000);
    assert_eq!(ldexp_f32(m(0xf3, false), 0x3f80_0000, 128), 0x7f7f_ffff);
    // Flushed: input and result.
    assert_eq!(ldexp_f32(m(0xc0, false), 0x0000_0001, 100), 0);
    assert_eq!(ldexp_f32(m(0xc0, false), 0x3f80_0000, -127), 0);
    assert_eq!(ldexp_f32(m(0xf0, false), 0x0000_0001, 23), 0x0080_0000);
}

/// Seed 000, output modifier and clamp entries; rules `omod.mode_dependent`,
/// `clamp.dx10`.
#[test]
fn seed000_output_modifiers() {
    // Applied: IEEE 0 and f32 results flushed.
    assert_eq!(
        omod_clamp_f32(m(0xc0, false), 0x3f80_0000, Omod::Mul2, false),
        0x4000_0000
    );
    assert_eq!(
        omod_clamp_f32(m(0xc0, false), 0x3f80_0000, Omod::Div2, false),
        0x3f00_0000
    );
    // The scaled value flushes like any result.
    assert_eq!(
        omod_clamp_f32(m(0xc0, false), 0x0080_0000, Omod::Div2, false),
        0
    );
    // Ignored with IEEE 1 or f32 denormal results kept.
    assert_eq!(
        omod_clamp_f32(m(0xc0, true), 0x3f80_0000, Omod::Mul4, false),
        0x3f80_0000
    );
    assert_eq!(
        omod_clamp_f32(m(0xf0, false), 0x3f80_0000, Omod::Mul4, false),
        0x3f80_0000
    );
    // Clamp: NaN to +0 with DX10_CLAMP, unchanged without.
    let dx = Mode::TITLE;
    let nodx = Mode {
        dx10_clamp: false,
        ..dx
    };
    assert_eq!(omod_clamp_f32(dx, 0xffc0_0000, Omod::None, true), 0);
    assert_eq!(
        omod_clamp_f32(nodx, 0xffc0_0000, Omod::None, true),
        0xffc0_0000
    );
    assert_eq!(
        omod_clamp_f32(dx, 0x4000_0000, Omod::None, true),
        0x3f80_0000
    );
    assert_eq!(omod_clamp_f16(dx, 0x7e00, Omod::None, true), 0);
    assert_eq!(
        omod_clamp_f64(nodx, 0xfff8_0000_0000_0000, Omod::None, true),
        0xfff8_0000_0000_0000
    );
    // v_pk_max_f16 returns a quieted signalling NaN with IEEE 1; clamp makes it +0.
    let ie = m(0xc0, true);
    let r = max_f16(ie, 0x7d00, 0x3c00);
    assert_eq!(r, 0x7f00);
    assert_eq!(omod_clamp_f16(ie, r, Omod::None, true), 0);
}

/// Seed 001 (shader float mode entry) and seed 000 (packed f16 NaN results); rules
/// `minmax.nan.ieee0`, `minmax.nan.ieee1`, `pk.nan_rules`, `minmax.med3_nan`.
#[test]
fn seed_minmax_nan_rules() {
    let s16 = 0x7d00; // signalling f16 NaN
    let q16 = 0x7e01;
    assert_eq!(min_f16(m(0xc0, false), s16, 0x3c00), 0x3c00);
    assert_eq!(min_f16(m(0xc0, false), q16, s16), q16);
    assert_eq!(min_f16(m(0xc0, true), s16, 0x3c00), 0x7f00);
    assert_eq!(min_f16(m(0xc0, true), 0x3c00, s16), 0x7f00);
    assert_eq!(min_f16(m(0xc0, true), q16, 0x3c00), 0x3c00);
    // f64 with IEEE 0: src0 when src1 is NaN, else src1 when src0 is NaN.
    let n64 = 0x7ff0_0000_0000_0001;
    assert_eq!(
        min_f64(m(0xc0, false), 0x3ff0_0000_0000_0000, n64),
        0x3ff0_0000_0000_0000
    );
    assert_eq!(
        min_f64(m(0xc0, false), n64, 0x3ff0_0000_0000_0000),
        0x3ff0_0000_0000_0000
    );
    assert_eq!(
        max_f64(m(0xc0, true), n64, 0x3ff0_0000_0000_0000),
        0x7ff8_0000_0000_0001
    );
    // f16 min/max flush inputs by bit 0 only.
    assert_eq!(min_f16(m(0x40, false), 0x0001, 0x0002), 0x0001);
    assert_eq!(min_f16(m(0x80, false), 0x0001, 0x8000), 0x8000);
    // med3 with a NaN is min3.
    assert_eq!(
        med3_f32(m(0xc0, false), 0x7fc0_0000, 0x4000_0000, 0x3f80_0000),
        0x3f80_0000
    );
    // packed fma: inf * 0 gives the default NaN even with a NaN c.
    assert_eq!(pk_fma_f16(m(0xc0, false), 0x7c00, 0x0000, 0x7e01), 0xfe00);
}

/// Seed 003 and seed 000, LDS float atomics; rules `lds.float_minmax`, `lds.float_cmpst`:
/// the order of the NaN rules, the flush by the type's field (bit 0), IEEE_MODE without
/// effect, the flushed value written even when the old value wins.
#[test]
fn seed003_lds_float_atomic_rules() {
    let snan = 0x7f81_2345;
    let snan_neg = 0xff81_2345;
    let qnan = 0x7fc1_2345;
    for ieee in [false, true] {
        let fl = m(0xc0, ieee); // f32 flushed, f64 kept
        let kp = m(0xf0, ieee);
        // A signalling-NaN data is stored quieted, even against a signalling old value.
        assert_eq!(lds_min_f32(kp, snan_neg, snan), 0x7fc1_2345);
        assert_eq!(lds_max_f32(kp, 0x3f80_0000, snan), 0x7fc1_2345);
        // Else a signalling-NaN old value is stored quieted.
        assert_eq!(lds_min_f32(kp, snan, qnan), 0x7fc1_2345);
        assert_eq!(lds_min_f32(kp, snan_neg, 0x3f80_0000), 0xffc1_2345);
        // Else a quiet-NaN old value is replaced by the data.
        assert_eq!(lds_min_f32(kp, qnan, 0x3f80_0000), 0x3f80_0000);
        assert_eq!(lds_min_f32(kp, qnan, 0xffc0_0000), 0xffc0_0000);
        // Else a quiet-NaN data loses.
        assert_eq!(lds_max_f32(kp, 0xbf80_0000, qnan), 0xbf80_0000);
        // Else the ordered compare with -0 below +0.
        assert_eq!(lds_min_f32(kp, 0, 0x8000_0000), 0x8000_0000);
        assert_eq!(lds_max_f32(kp, 0x8000_0000, 0), 0);
        // Flush when bit 0 of the field is clear; the flushed old value is written.
        assert_eq!(lds_min_f32(fl, 0x0000_0001, 0x3f80_0000), 0);
        assert_eq!(lds_min_f32(kp, 0x0000_0001, 0x3f80_0000), 1);
        assert_eq!(lds_max_f32(fl, 0x8000_0001, 0x8000_0000), 0x8000_0000);
        // f64 follows the f16/f64 field: kept in 0xc0, flushed in 0x00.
        assert_eq!(lds_min_f64(fl, 1, 0x3ff0_0000_0000_0000), 1);
        assert_eq!(lds_min_f64(m(0x00, ieee), 1, 0x3ff0_0000_0000_0000), 0);
        assert_eq!(
            lds_max_f64(kp, 0x7ff0_0000_0000_0001, 2),
            0x7ff8_0000_0000_0001
        );
        // cmpst: flushed bits compared, both zeros equal, NaN never equal, src stored
        // as given; memory unchanged when different.
        assert_eq!(
            lds_cmpst_f32(fl, 0x0000_0001, 0x8000_0000, 0x4000_0000),
            0x4000_0000
        );
        assert_eq!(
            lds_cmpst_f32(kp, 0x0000_0001, 0x8000_0000, 0x4000_0000),
            0x0000_0001
        );
        assert_eq!(lds_cmpst_f32(kp, qnan, qnan, 0x4000_0000), qnan);
        assert_eq!(lds_cmpst_f32(kp, 0, 0x8000_0000, 0x0000_0001), 0x0000_0001);
        assert_eq!(lds_cmpst_f64(kp, 0, 1 << 63, 5), 5);
    }
}
