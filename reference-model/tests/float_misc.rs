//! Smoke tests of the instructions that no measured value covers: documented special
//! values and exact cases (rules `transcendental.approximation`, `cvt.float_to_int`,
//! `cube.ops`, `div.fixup`, `mode.hwreg_layout`, `cvt.norm_f16`, `mullit.lighting`,
//! `mullit.zero_factor`, `trig.preop`), in the float library and through the interpreter.

mod common;

use common::{job, test_kernel};
use measurements::job::BackendError;
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};
use reference_model::float::*;

/// Runs `body` in the standard test kernel (gfx1030, wave32) with one input row per lane
/// and returns each lane's v10..v13.
fn run(body: &str, mode: FloatMode, inputs: &[[u32; 4]]) -> Result<Vec<Vec<u32>>, BackendError> {
    let k = test_kernel("gfx1030", body, 32, inputs.len() as u32);
    run_job(&job(k, "rdna2", mode, inputs), Limits::default()).map(|o| o.lanes)
}

/// The title mode with FLOAT_MODE replaced (the other mode bits as titles run).
fn fm(float_mode: u8) -> FloatMode {
    FloatMode {
        float_mode,
        ..FloatMode::TITLE
    }
}

/// An f64 as the two dwords of a register pair (low, high).
fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

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

/// Rule `cvt.norm_f16`: the f16 forms apply the f32 rule `cvt.pknorm` (clamp, scale by
/// 32767 / 65535, nearest even, NaN 0) to the exactly widened value; AMD's RDNA 3 guide
/// defines them as f16_to_snorm / f16_to_unorm. Expected codes are worked out by hand from
/// the f16 values (e.g. 0x3555 = 1365/4096: 1365 * 65535 / 4096 = 21839.67 -> 21840).
#[test]
fn norm_f16_conversions() {
    let m = Mode::TITLE;
    // Signed: +-1 and beyond clamp to +-32767; 0.5 * 32767 = 16383.5 ties to even 16384.
    assert_eq!(cvt_norm_i16_f16(m, 0x3c00), 0x7fff);
    assert_eq!(cvt_norm_i16_f16(m, 0xbc00), -0x7fff);
    assert_eq!(cvt_norm_i16_f16(m, 0xc000), -0x7fff);
    assert_eq!(cvt_norm_i16_f16(m, 0x3800), 0x4000);
    assert_eq!(cvt_norm_i16_f16(m, 0x3555), 0x2aa8);
    assert_eq!(cvt_norm_i16_f16(m, 0x7c00), 0x7fff);
    assert_eq!(cvt_norm_i16_f16(m, 0xfc00), -0x7fff);
    assert_eq!(cvt_norm_i16_f16(m, 0x7e00), 0);
    assert_eq!(cvt_norm_i16_f16(m, 0xfe01), 0);
    // Unsigned: negatives clamp to 0; 0.5 * 65535 = 32767.5 ties to even 32768.
    assert_eq!(cvt_norm_u16_f16(m, 0x3c00), 0xffff);
    assert_eq!(cvt_norm_u16_f16(m, 0x3800), 0x8000);
    assert_eq!(cvt_norm_u16_f16(m, 0x3555), 0x5550);
    assert_eq!(cvt_norm_u16_f16(m, 0xb800), 0);
    assert_eq!(cvt_norm_u16_f16(m, 0xfc00), 0);
    assert_eq!(cvt_norm_u16_f16(m, 0x7e00), 0);
    // The largest denormal half, 1023 * 2^-24: 65535 times it is 3.996 (code 4), 32767
    // times it is 1.998 (code 2). Kept in the title mode (f16 field 3); with bit 0 of the
    // f16 field clear the input reads as zero (rule `f16.denorm.unary`).
    assert_eq!(cvt_norm_u16_f16(m, 0x03ff), 4);
    assert_eq!(cvt_norm_i16_f16(m, 0x83ff), -2);
    let flush_in = m.with_denorm_mode(0x8); // f16/f64 field 2: results kept, inputs flushed
    assert_eq!(cvt_norm_u16_f16(flush_in, 0x03ff), 0);
    assert_eq!(cvt_norm_i16_f16(flush_in, 0x83ff), 0);
    // Packed forms: low half from the first source.
    assert_eq!(cvt_pknorm_i16_f16(m, 0x3800, 0xbc00), 0x8001_4000);
    assert_eq!(cvt_pknorm_u16_f16(m, 0x3c00, 0x3800), 0x8000_ffff);
    // The f16 form agrees with the f32 form on the widened value (the inference itself).
    for h in [0x3555u16, 0x3800, 0xb7ff, 0x2e66, 0x03ff, 0x3bff, 0x0001] {
        let w = cvt_f32_f16(m, h);
        assert_eq!(
            cvt_pknorm_u16_f16(m, h, h),
            cvt_pknorm_u16_f32(Mode::IEEE, w, w),
            "{h:#06x}"
        );
        assert_eq!(
            cvt_pknorm_i16_f16(m, h, h),
            cvt_pknorm_i16_f32(Mode::IEEE, w, w),
            "{h:#06x}"
        );
    }
}

/// Rule `cvt.norm_f16` through the interpreter: the VOP1 form writes the low half and
/// keeps the high half (`valu.d16_preserve`), the VOP3 form takes neg, SDWA selects the
/// source word and the destination word (`sdwa.select_merge`), and the packed VOP3 form
/// follows op_sel. Expected codes as in [`norm_f16_conversions`].
#[test]
fn norm_f16_through_the_interpreter() {
    let body = "v_mov_b32 v10, 0xdead0000\n\
                v_cvt_norm_i16_f16 v10, v4\n\
                v_cvt_norm_u16_f16_e64 v11, -v4\n\
                v_mov_b32 v12, 0x1234\n\
                v_cvt_norm_u16_f16_sdwa v12, v4 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1\n\
                v_cvt_pknorm_i16_f16 v13, v4, v5 op_sel:[1,0,0]";
    let rows = [
        // v4 = (lo 0.5, hi -1.0), v5 lo 1.0
        [0xbc00_3800, 0x0000_3c00, 0, 0],
        // v4 = (lo -1.0, hi 0.5), v5 lo NaN
        [0x3800_bc00, 0x0000_7e00, 0, 0],
        // v4 = (lo -denormal 0x83ff, hi +denormal 0x03ff), v5 lo -2.0
        [0x03ff_83ff, 0x0000_c000, 0, 0],
    ];
    let out = run(body, FloatMode::TITLE, &rows).unwrap();
    assert_eq!(out[0], [0xdead_4000, 0x0000_0000, 0x0000_1234, 0x7fff_8001]);
    assert_eq!(out[1], [0xdead_8001, 0x0000_ffff, 0x8000_1234, 0x0000_4000]);
    assert_eq!(out[2], [0xdead_fffe, 0x0000_0004, 0x0004_1234, 0x8001_0002]);
    // FLOAT_MODE 0x80 (f16 field 2): denormal f16 inputs read as zero.
    let out = run(body, fm(0x80), &rows).unwrap();
    assert_eq!(out[2], [0xdead_0000, 0x0000_0000, 0x0000_1234, 0x8001_0000]);
}

/// Rules `mullit.lighting` (AMD RDNA 3 / 3.5 ISA guides, V_MULLIT_F32 pseudo-code: -MAX_FLOAT
/// when src1 is -MAX_FLOAT, -inf or NaN or src2 <= 0 or NaN, else src0 * src1) and
/// `mullit.zero_factor` (the guides' "0.0 * x = 0.0", +0 as `legacy.zero_product`); the
/// cases the guides leave undefined come back as `None`.
#[test]
fn mullit_lighting_rule() {
    let m = Mode::TITLE;
    const NEG_MAX: u32 = 0xff7f_ffff;
    // 2 * 3 with a positive src2.
    assert_eq!(
        mullit_f32(m, 0x4000_0000, 0x4040_0000, 0x3f80_0000),
        Some(0x40c0_0000)
    );
    // The lighting condition: src2 zero (either sign), negative or NaN; src1 -MAX, -inf or NaN.
    for c in [0, 0x8000_0000, 0xbf80_0000, 0x7fc0_0000, 0xff80_0000] {
        assert_eq!(
            mullit_f32(m, 0x4000_0000, 0x4040_0000, c),
            Some(NEG_MAX),
            "{c:#x}"
        );
    }
    for b in [NEG_MAX, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000] {
        assert_eq!(
            mullit_f32(m, 0x4000_0000, b, 0x3f80_0000),
            Some(NEG_MAX),
            "{b:#x}"
        );
    }
    // +MAX and +inf in src1 do not trip the condition; 1 * MAX is MAX.
    assert_eq!(
        mullit_f32(m, 0x3f80_0000, 0x7f7f_ffff, 0x3f80_0000),
        Some(0x7f7f_ffff)
    );
    // A zero factor gives +0, even against +inf or a NaN src0.
    assert_eq!(mullit_f32(m, 0, 0x7f80_0000, 0x3f80_0000), Some(0));
    assert_eq!(
        mullit_f32(m, 0x8000_0000, 0x4000_0000, 0x3f80_0000),
        Some(0)
    );
    assert_eq!(mullit_f32(m, 0x7fc0_0000, 0, 0x3f80_0000), Some(0));
    // Rounded as v_mul_f32: (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 rounds to 1 + 2^-22.
    assert_eq!(
        mullit_f32(m, 0x3f80_0001, 0x3f80_0001, 0x3f80_0000),
        Some(0x3f80_0002)
    );
    // Undefined by the guides ("alternate INF, NAN, overflow rules"): refused.
    assert_eq!(mullit_f32(m, 0x7f80_0000, 0x4000_0000, 0x3f80_0000), None);
    assert_eq!(mullit_f32(m, 0x7fc0_0000, 0x4000_0000, 0x3f80_0000), None);
    assert_eq!(mullit_f32(m, 0x4000_0000, 0x7f80_0000, 0x3f80_0000), None);
    assert_eq!(mullit_f32(m, 0x7f00_0000, 0x4000_0000, 0x3f80_0000), None);
    // Denormal sources follow the f32 field: flushed in the title mode (denorm32 0), so a
    // denormal src2 fails the condition and a denormal src0 is a zero factor; kept in the
    // IEEE mode.
    assert_eq!(mullit_f32(m, 0x4000_0000, 0x4040_0000, 1), Some(NEG_MAX));
    assert_eq!(mullit_f32(m, 1, 0x4040_0000, 0x3f80_0000), Some(0));
    assert_eq!(
        mullit_f32(Mode::IEEE, 0x4000_0000, 0x4040_0000, 1),
        Some(0x40c0_0000)
    );
    assert_eq!(mullit_f32(Mode::IEEE, 1, 0x4040_0000, 0x3f80_0000), Some(3));
}

/// Rules `mullit.lighting` and `mullit.zero_factor` through the interpreter, with source
/// modifiers and clamp; an undefined case refuses the job with the reason.
#[test]
fn mullit_through_the_interpreter() {
    let body = "v_mullit_f32 v10, v4, v5, v6\n\
                v_mullit_f32 v11, -v4, |v5|, v6\n\
                v_mullit_f32 v12, v4, v5, v6 clamp";
    let rows = [
        [0x4000_0000, 0x4040_0000, 0x3f80_0000, 0], // 2, 3, 1
        [0x4000_0000, 0x4040_0000, 0, 0],           // src2 0
        [0, 0x7f80_0000, 0x3f80_0000, 0],           // 0 * +inf
        [0x4000_0000, 0x7fc0_0000, 0x3f80_0000, 0], // src1 NaN (|NaN| too)
        [0x4000_0000, 0x4040_0000, 1, 0],           // denormal src2
        [0x4000_0000, 0xc040_0000, 0x3f80_0000, 0], // src1 -3: |src1| = 3
    ];
    let out = run(body, FloatMode::TITLE, &rows).unwrap();
    let neg_max = 0xff7f_ffff;
    assert_eq!(out[0][..3], [0x40c0_0000, 0xc0c0_0000, 0x3f80_0000]);
    // -MAX_FLOAT clamps to +0.
    assert_eq!(out[1][..3], [neg_max, neg_max, 0]);
    assert_eq!(out[2][..3], [0, 0, 0]);
    assert_eq!(out[3][..3], [neg_max, neg_max, 0]);
    assert_eq!(out[4][..3], [neg_max, neg_max, 0]);
    assert_eq!(out[5][..3], [0xc0c0_0000, 0xc0c0_0000, 0]);
    // FLOAT_MODE 0xf0 keeps f32 denormals: the denormal src2 is positive.
    let out = run(body, fm(0xf0), &rows[4..5]).unwrap();
    assert_eq!(out[0][..3], [0x40c0_0000, 0xc0c0_0000, 0x3f80_0000]);
    // An infinite src0 with a finite src1 is not defined by the guides: refused.
    let e = run(
        "v_mullit_f32 v10, v4, v5, v6",
        FloatMode::TITLE,
        &[[0x7f80_0000, 0x4000_0000, 0x3f80_0000, 0]],
    )
    .unwrap_err();
    match e {
        BackendError::Unsupported {
            instruction,
            reason,
        } => {
            assert!(instruction.starts_with("v_mullit_f32"), "{instruction}");
            assert!(reason.contains("alternate INF, NAN, overflow"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

/// Rule `trig.preop`: AMD RDNA 3 ISA guide V_TRIG_PREOP_F64 pseudo-code, with LLVM's
/// constant folder (llvm/lib/Target/AMDGPU/AMDGPUInstCombineIntrinsic.cpp) for the table
/// length. Expected values were derived independently of the model with python mpmath (2/pi
/// to 3000 bits; the 53 bits from the shift as an integer, scaled and truncated to f64);
/// segment 0 of 1.0 is 2/pi truncated to 53 bits, 0x3fe45f306dc9c882 (2/pi rounded to
/// nearest is ...883).
#[test]
fn trig_preop_segments() {
    let m = Mode::TITLE;
    let one = 0x3ff0_0000_0000_0000;
    let p = |x: u64, seg: u32| trig_preop_f64(m, x, seg).unwrap();
    assert_eq!(p(one, 0), 0x3fe4_5f30_6dc9_c882);
    assert_eq!(p(one, 1), 0x3c94_a7f0_9d5f_47d4);
    assert_eq!(p(one, 2), 0x394a_6ee0_6db1_4acc);
    // Only seg[4:0] and not the sign of x are used.
    assert_eq!(p(one, 32), p(one, 0));
    assert_eq!(p(0xbff0_0000_0000_0000, 0), p(one, 0));
    // A zero (exponent field 0) selects the plain segment.
    assert_eq!(p(0, 5), 0x2f42_371d_2126_e970);
    // 2^100: biased exponent 1123 > 1077 moves the window 46 bits further.
    assert_eq!(p(0x4630_0000_0000_0000, 0), 0x3cb5_29fc_2757_d1e0);
    assert_eq!(p(0x4630_0000_0000_0000, 1), 0x39b5_34dd_c0db_6295);
    // 2^1000: exponent 2023 >= 1968 also scales the result up by 2^128.
    assert_eq!(p(0x7e70_0000_0000_0000, 0), 0x0cc5_16ba_93dd_63f5);
    assert_eq!(p(0x7e70_0000_0000_0000, 1), 0x097e_5f17_b3d0_739f);
    assert_eq!(p(0x7e70_0000_0000_0000, 3), 0x02d7_ec47_e357_4215);
    // Shift 1158 runs past LLVM's 1184-bit table: +0 (the guide's 1201-bit constant would
    // give 0x0000080cc11bf1ec here).
    assert_eq!(p(0x7e70_0000_0000_0000, 4), 0);
    // +inf reads as exponent 2047.
    assert_eq!(p(0x7ff0_0000_0000_0000, 0), 0x0b43_dd63_f5f2_f8bd);
    assert_eq!(p(0x7ff0_0000_0000_0000, 1), 0x07f3_d073_9f78_a529);
    // Segment 19 is the last normal one for 1.0; segment 20 is denormal (kept in the title
    // mode, flushed with the f16/f64 result bit clear) and segment 21 truncates to 0.
    assert_eq!(p(one, 19), 0x00ff_17b3_d073_9f78);
    assert_eq!(p(one, 20), 0x294a);
    assert_eq!(p(one, 21), 0);
    assert_eq!(trig_preop_f64(m.with_denorm_mode(0x4), one, 20), Some(0));
    // A NaN source is refused (the guide and LLVM disagree).
    assert_eq!(trig_preop_f64(m, 0x7ff8_0000_0000_0000, 0), None);
}

/// Rule `trig.preop` through the interpreter: the f64 source pair, a VGPR or inline
/// segment, neg ignored; a NaN source refuses the job. Values as in [`trig_preop_segments`].
#[test]
fn trig_preop_through_the_interpreter() {
    let body = "v_trig_preop_f64 v[10:11], v[4:5], v6\n\
                v_trig_preop_f64 v[12:13], -v[4:5], 1";
    let row = |x: u64, seg: u32| {
        let [lo, hi] = split(x);
        [lo, hi, seg, 0]
    };
    let rows = [
        row(0x3ff0_0000_0000_0000, 0),
        row(0x3ff0_0000_0000_0000, 2),
        row(0x4630_0000_0000_0000, 0),
        row(0x7e70_0000_0000_0000, 3),
        row(0x7e70_0000_0000_0000, 4),
        row(0x3ff0_0000_0000_0000, 20),
        row(0x7ff0_0000_0000_0000, 0),
        row(0x3ff0_0000_0000_0000, 32),
    ];
    let want: [(u64, u64); 8] = [
        (0x3fe4_5f30_6dc9_c882, 0x3c94_a7f0_9d5f_47d4),
        (0x394a_6ee0_6db1_4acc, 0x3c94_a7f0_9d5f_47d4),
        (0x3cb5_29fc_2757_d1e0, 0x39b5_34dd_c0db_6295),
        (0x02d7_ec47_e357_4215, 0x097e_5f17_b3d0_739f),
        (0, 0x097e_5f17_b3d0_739f),
        (0x294a, 0x3c94_a7f0_9d5f_47d4),
        (0x0b43_dd63_f5f2_f8bd, 0x07f3_d073_9f78_a529),
        (0x3fe4_5f30_6dc9_c882, 0x3c94_a7f0_9d5f_47d4),
    ];
    let out = run(body, FloatMode::TITLE, &rows).unwrap();
    for (lane, (o, (a, b))) in out.iter().zip(want).enumerate() {
        let [a_lo, a_hi] = split(a);
        let [b_lo, b_hi] = split(b);
        assert_eq!(o[..], [a_lo, a_hi, b_lo, b_hi], "lane {lane}");
    }
    // FLOAT_MODE 0x40 (f16/f64 field 1): results below the normal range flush to +0.
    let out = run(body, fm(0x40), &rows[5..6]).unwrap();
    assert_eq!(out[0][..2], [0, 0]);
    let e = run(body, FloatMode::TITLE, &[row(0x7ff8_0000_0000_0000, 0)]).unwrap_err();
    assert!(
        matches!(&e, BackendError::Unsupported { reason, .. } if reason.contains("NaN")),
        "{e:?}"
    );
}

/// The VOP3 interpolation forms stay refused (`Unsupported`), and the reason names why:
/// their attribute operand reads parameter data that the SPI writes to LDS for pixel waves,
/// which a compute job does not have. Their arithmetic is tested in the float library
/// (rules `interp.f32`, `interp.f16`).
#[test]
fn vop3_interpolation_is_refused_with_the_reason() {
    for src in [
        "v_interp_p1_f32_e64 v10, v4, attr0.x",
        "v_interp_p2_f32_e64 v10, v4, attr0.x",
        "v_interp_mov_f32_e64 v10, p10, attr0.x",
        "v_interp_p1ll_f16 v10, v4, attr0.x",
        "v_interp_p1lv_f16 v10, v4, attr0.x, v5",
        "v_interp_p2_f16 v10, v4, attr0.x, v5",
    ] {
        let e = run(src, FloatMode::TITLE, &[[0x3f80_0000, 0x3c00, 0, 0]]).unwrap_err();
        match e {
            BackendError::Unsupported {
                instruction,
                reason,
            } => {
                let mnemonic = src.split(' ').next().unwrap();
                assert!(instruction.starts_with(mnemonic), "{instruction} / {src}");
                assert!(
                    reason.contains("SPI") && reason.contains("compute jobs have none"),
                    "{reason}"
                );
            }
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn sin_and_cos_of_small_negative_turns_keep_their_precision() {
    // sin(2 pi x) of x = -2^-60 is -2 pi 2^-60 (to 2^-120 relative): the f32 2 pi scaled, negated. Reducing
    // -2^-60 to [0, 1) first (1 - 2^-60) would round to 1 in f64 and give sin(2 pi) = -2.4e-16 instead.
    let m = Mode::TITLE;
    assert_eq!(sin_f32(m, 0xa180_0000), 0xa2c9_0fdb);
    assert_eq!(sin_f32(m, 0x2180_0000), 0x22c9_0fdb);
    // Odd and even: sin(-x) = -sin(x), cos(-x) = cos(x), for an x whose fraction needs all its bits.
    for x in [
        0x3e9a_7e31u32,
        0x3a83_126f,
        0x4a3f_ffff,
        0x3f7f_ffff,
        0x3eff_ffff,
    ] {
        assert_eq!(
            sin_f32(m, x | 0x8000_0000),
            sin_f32(m, x) ^ 0x8000_0000,
            "{x:#x}"
        );
        assert_eq!(cos_f32(m, x | 0x8000_0000), cos_f32(m, x), "{x:#x}");
    }
    // Exact zeros stay +0 on both sides (sin of a half turn, cos of a quarter turn).
    assert_eq!(sin_f32(m, 0xbf00_0000), 0);
    assert_eq!(cos_f32(m, 0xbe80_0000), 0);
    assert_eq!(sin_f32(m, 0xbe80_0000), 0xbf80_0000);
}
