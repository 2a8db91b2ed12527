//! Smoke tests of the instructions that no measured value covers: documented special
//! values and exact cases (rules `transcendental.approximation`, `cvt.float_to_int`,
//! `cube.ops`, `div.fixup`, `mode.hwreg_layout`).

use reference_model::float::*;

#[test]
fn transcendental_exact_points() {
    let m = Mode::TITLE;
    assert_eq!(rcp_f32(m, 0x4000_0000), 0x3f00_0000);
    assert_eq!(sqrt_f32(m, 0x4080_0000), 0x4000_0000);
    assert_eq!(rsq_f32(m, 0x4080_0000), 0x3f00_0000);
    assert_eq!(exp_f32(m, 0x4040_0000), 0x4100_0000);
    assert_eq!(log_f32(m, 0x4100_0000), 0x4040_0000);
    assert_eq!(sin_f32(m, 0x3e80_0000), 0x3f80_0000);
    assert_eq!(cos_f32(m, 0x3f00_0000), 0xbf80_0000);
    assert_eq!(sin_f32(m, 0x3f00_0000), 0);
    assert_eq!(rsq_f32(m, 0xbf80_0000), 0xffc0_0000);
    assert_eq!(log_f32(m, 0x8000_0000), 0xff80_0000);
    assert_eq!(sqrt_f64(m, 0x4010_0000_0000_0000), 0x4000_0000_0000_0000);
    assert_eq!(rcp_f16(m, 0x4000), 0x3800);
}

#[test]
fn conversions() {
    let m = Mode::TITLE;
    assert_eq!(cvt_rpi_i32_f32(m, 0x4020_0000), 3);
    assert_eq!(cvt_rpi_i32_f32(m, 0xc020_0000), -2);
    assert_eq!(cvt_flr_i32_f32(m, 0xbfc0_0000), -2);
    assert_eq!(cvt_i32_f32(m, 0x7fc0_0000), 0);
    assert_eq!(cvt_u32_f32(m, 0xbf80_0000), 0);
    assert_eq!(cvt_i32_f32(m, 0x7f80_0000), i32::MAX);
    assert_eq!(cvt_f32_f16(m, 0x3c00), 0x3f80_0000);
    assert_eq!(cvt_f16_f32(m, 0x3f80_0000), 0x3c00);
    assert_eq!(
        cvt_f16_u16(
            Mode {
                fp16_ovfl: true,
                ..m
            },
            65535
        ),
        0x7bff
    );
    assert_eq!(cvt_pknorm_u16_f32(m, 0x3f80_0000, 0x3f00_0000), 0x8000_ffff);
    assert_eq!(cvt_pk_u8_f32(m, 0x437f_0000, 1, 0), 0xff00);
    assert_eq!(cvt_f32_ubyte(0x1234_5678, 2), 0x4250_0000);
    assert_eq!(cvt_off_f32_i4(0xf), 0xbd80_0000);
    assert_eq!(fract_f32(m, 0xbf40_0000), 0x3e80_0000);
    assert_eq!(fract_f32(Mode::IEEE, 0x8000_0001), 0x3f7f_ffff);
    assert_eq!(frexp_mant_f32(m, 0x4100_0000), 0x3f00_0000);
    assert_eq!(frexp_exp_i32_f32(m, 0x4100_0000), 4);
    assert_eq!(rndne_f32(m, 0x4020_0000), 0x4000_0000);
    assert_eq!(trunc_f32(m, 0xbfc0_0000), 0xbf80_0000);
}

#[test]
fn division_and_cube() {
    let m = Mode::TITLE;
    assert_eq!(
        div_fixup_f32(m, 0x3f00_0000, 0x4000_0000, 0xbf80_0000),
        0xbf00_0000
    );
    assert_eq!(div_fixup_f32(m, 0, 0, 0), 0xffc0_0000);
    assert_eq!(
        div_scale_f32(m, 0x4000_0000, 0x4000_0000, 0x3f80_0000),
        (0x4000_0000, false)
    );
    assert_eq!(
        div_fmas_f32(m, 0x3f80_0000, 0x3f80_0000, 0, true),
        0x4f80_0000
    );
    assert_eq!(cubeid_f32(m, 0x3f80_0000, 0, 0), 0);
    assert_eq!(cubeid_f32(m, 0, 0, 0xbf80_0000), 0x40a0_0000);
    assert_eq!(cubema_f32(m, 0, 0x4000_0000, 0), 0x4080_0000);
}

#[test]
fn mode_register() {
    let m = Mode::TITLE;
    assert_eq!(m.to_hwreg(), 0x1c0);
    assert_eq!(Mode::from_hwreg(m.to_hwreg()), m);
    let m2 = m.setreg(23, 1, 1);
    assert!(m2.fp16_ovfl);
    assert_eq!(m.setreg(0, 4, 3).round32(), Round::TowardZero);
    assert_eq!(m.getreg(4, 4), 0xc);
    assert_eq!(m.with_denorm_mode(0xf).float_mode, 0xf0);
    assert_eq!(m.with_round_mode(0x5).round16_64(), Round::Up);
}
