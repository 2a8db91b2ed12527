//! The behaviours fixed after measured data showed the model ignoring part of an encoding, each with values
//! worked out by hand in the test: SAD clamps, DPP on the relative moves, v_pk_fmac_f16's DPP forms (which LLVM
//! 19 cannot assemble, so they are written as words), v_div_fixup_f16 of a NaN quotient, the ds_wrxchg2 exchange
//! order and v_pack_b32_f16's NaN quieting. The rules are in `reference_model::rules` (valu.sad_clamp,
//! valu.movrel_dpp16, valu.movrel_dpp8, valu.pk_fmac_dpp, div.fixup_f16_nan_quotient, ds.wrxchg2_order,
//! nan.pack_b32_quiet).

mod common;

use common::{asm, job, test_kernel};
use measurements::job::BackendError;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};
use reference_model::float::{self, Mode};
use reference_model::isa::{self, Target};

fn run_mode(
    body: &str,
    mode: FloatMode,
    inputs: &[[u32; 4]],
) -> Result<Vec<Vec<u32>>, BackendError> {
    let k = test_kernel("gfx1030", body, 32, inputs.len() as u32);
    run_job(
        &job(k, "rdna2", mode, inputs),
        Limits {
            instructions: 100_000,
            ..Limits::default()
        },
    )
    .map(|o| o.lanes)
}

fn run(body: &str, inputs: &[[u32; 4]]) -> Vec<Vec<u32>> {
    run_mode(body, FloatMode::TITLE, inputs).unwrap()
}

/// The standard test kernel (`common::test_kernel`) with raw `words` after `body`: words llvm-mc 19 cannot
/// assemble.
fn run_words(body: &str, words: &[u32], inputs: &[[u32; 4]]) -> Vec<Vec<u32>> {
    let pre = asm(
        "gfx1030",
        32,
        &format!(
            "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
             v_mov_b32 v10, 0\nv_mov_b32 v11, 0\nv_mov_b32 v12, 0\nv_mov_b32 v13, 0\n{body}"
        ),
    );
    let post = asm(
        "gfx1030",
        32,
        "buffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\ns_endpgm",
    );
    let all: Vec<u32> = pre
        .into_iter()
        .chain(words.iter().copied())
        .chain(post)
        .collect();
    let k = Kernel::agc_buffer(
        "test",
        &all,
        32,
        inputs.len() as u32,
        (4, 4),
        0xdead_beef,
        4096,
    );
    run_job(
        &job(k, "rdna2", FloatMode::TITLE, inputs),
        Limits {
            instructions: 100_000,
            ..Limits::default()
        },
    )
    .unwrap()
    .lanes
}

/// An exactly representable f16 value's bits (normal range only).
fn f16(x: f64) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let e = x.abs().log2().floor() as i32;
    let m = x.abs() / 2f64.powi(e) - 1.0;
    let frac = m * 1024.0;
    assert_eq!(frac.fract(), 0.0, "{x} is not an f16");
    (if x < 0.0 { 0x8000 } else { 0 }) | ((e + 15) as u32) << 10 | frac as u32
}

#[test]
fn sad_clamp_saturates_the_unsigned_sum() {
    // [src0, src1, src2, -]; without clamp the sum wraps, with clamp it stops at 0xffffffff.
    let cases: [(&str, [u32; 4], u32, u32); 6] = [
        ("v_sad_u32", [0, 10, 0xffff_fffa, 0], 4, 0xffff_ffff),
        ("v_sad_u32", [0, 10, 0x10, 0], 0x1a, 0x1a),
        (
            "v_sad_u8",
            [0xffff_ffff, 0, 0xffff_ff00, 0],
            0x2fc,
            0xffff_ffff,
        ),
        (
            "v_sad_hi_u8",
            [0xffff_ffff, 0, 0xffff_f000, 0],
            0x03fb_f000,
            0xffff_ffff,
        ),
        (
            "v_sad_u16",
            [0xffff_0000, 0x0000_ffff, 0xffff_f000, 0],
            0x1effe,
            0xffff_ffff,
        ),
        // Reference bytes of 0 are skipped: |0xff - 1| twice.
        (
            "v_msad_u8",
            [0xffff_ffff, 0x0100_0100, 0xffff_ff00, 0],
            0xfc,
            0xffff_ffff,
        ),
    ];
    for (op, input, wrapped, clamped) in cases {
        let o = run(
            &format!("{op} v10, v4, v5, v6\n{op} v11, v4, v5, v6 clamp"),
            &[input],
        );
        assert_eq!([o[0][0], o[0][1]], [wrapped, clamped], "{op} {input:08x?}");
    }
}

fn lanes32() -> Vec<[u32; 4]> {
    (0..32u32).map(|l| [l, 0x100 + l, 0x200 + l, 0]).collect()
}

#[test]
fn relative_moves_read_src0_from_the_dpp_lane() {
    // v20 = lane, v21 = 0x100 + lane, v22 = 0x200 + lane; M0 = 1.
    let pre = "v_mov_b32 v20, v4\nv_mov_b32 v21, v5\nv_mov_b32 v22, v6\ns_mov_b32 m0, 1\n";
    // movrels reads v[20 + M0] = v21 from lane L ^ 1; row_mask:0x1 leaves lanes 16..31 unwritten (v10 = 0).
    let o = run(
        &format!("{pre}v_movrels_b32_dpp v10, v20 quad_perm:[1,0,3,2] row_mask:0x1 bank_mask:0xf"),
        &lanes32(),
    );
    for (l, out) in o.iter().enumerate() {
        let want = if l < 16 { 0x100 + (l as u32 ^ 1) } else { 0 };
        assert_eq!(out[0], want, "movrels lane {l}");
    }
    // movreld writes v[10 + M0] = v11 with the plain source v20 from lane L ^ 1.
    let o = run(
        &format!("{pre}v_movreld_b32_dpp v10, v20 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"),
        &lanes32(),
    );
    for (l, out) in o.iter().enumerate() {
        assert_eq!([out[0], out[1]], [0, l as u32 ^ 1], "movreld lane {l}");
    }
    // movrelsd: source and destination relative; row_shr:1 with bound_ctrl gives lane 0 of each row a zero.
    let o = run(
        &format!(
            "{pre}v_movrelsd_b32_dpp v10, v20 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1"
        ),
        &lanes32(),
    );
    for (l, out) in o.iter().enumerate() {
        let want = if l % 16 == 0 { 0 } else { 0x100 + l as u32 - 1 };
        assert_eq!(out[1], want, "movrelsd lane {l}");
    }
    // DPP8: lane L reads lane 7 - (L & 7) of its group of eight.
    let o = run(
        &format!("{pre}v_movrels_b32_dpp v10, v20 dpp8:[7,6,5,4,3,2,1,0]"),
        &lanes32(),
    );
    for (l, out) in o.iter().enumerate() {
        assert_eq!(
            out[0],
            0x100 + ((l as u32 & !7) | (7 - (l as u32 & 7))),
            "movrels dpp8 lane {l}"
        );
    }
}

#[test]
fn pk_fmac_f16_dpp_forms_decode_and_run() {
    // VOP2 0x3c: vdst v10, vsrc1 v21, src0 0xfa (DPP16) or 0xe9 (DPP8), src0 register v20 in the DPP dword.
    let w0 = |src0: u32| 0x3c << 25 | 10 << 17 | 21 << 9 | src0;
    let dpp16 = [w0(0xfa), 20 | 0xb1 << 8 | 0xff << 24]; // quad_perm:[1,0,3,2]
    let dpp8 = [
        w0(0xe9),
        20 | [7u32, 6, 5, 4, 3, 2, 1, 0]
            .iter()
            .enumerate()
            .fold(0, |w, (i, s)| w | s << (8 + 3 * i)),
    ];
    for (words, text) in [
        (
            dpp16,
            "v_pk_fmac_f16_dpp v10, v20, v21 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
        ),
        (
            dpp8,
            "v_pk_fmac_f16_dpp v10, v20, v21 dpp8:[7,6,5,4,3,2,1,0]",
        ),
    ] {
        let inst = isa::decode(Target::Gfx1030, &words, 0).unwrap();
        assert_eq!(inst.to_string(), text);
        assert!(!inst.canonical);
        assert!(inst.non_canonical_reason().unwrap().contains("PR #144782"));
    }
    // Lane L: src0 = (lo L, hi L + 1), src1 = (lo 1.0, hi 2.0), accumulator (0.5, 0.25).
    let inputs: Vec<[u32; 4]> = (0..32u32)
        .map(|l| {
            [
                f16(l as f64) | f16(l as f64 + 1.0) << 16,
                f16(1.0) | f16(2.0) << 16,
                f16(0.5) | f16(0.25) << 16,
                0,
            ]
        })
        .collect();
    for (words, from) in [
        (dpp16, (|l: u32| l ^ 1) as fn(u32) -> u32),
        (dpp8, |l: u32| (l & !7) | (7 - (l & 7))),
    ] {
        let o = run_words(
            "v_mov_b32 v20, v4\nv_mov_b32 v21, v5\nv_mov_b32 v10, v6",
            &words,
            &inputs,
        );
        for (l, out) in o.iter().enumerate() {
            let s = from(l as u32) as f64;
            let want = f16(s + 0.5) | f16((s + 1.0) * 2.0 + 0.25) << 16;
            assert_eq!(out[0], want, "lane {l} (source lane {s})");
        }
    }
}

#[test]
fn div_fixup_f16_of_a_nan_quotient_is_the_quotients_infinity() {
    let mode = |ieee: bool, ovfl: bool| Mode {
        float_mode: 0xf0,
        ieee,
        dx10_clamp: true,
        fp16_ovfl: ovfl,
    };
    for ieee in [false, true] {
        // The two pinned examples: S0 7e00 (quiet) and 7de0 (signalling), S1 -1, S2 of either sign.
        assert_eq!(
            float::div_fixup_f16(mode(ieee, false), 0x7e00, 0xbc00, 0x6dd1),
            0xfc00
        );
        assert_eq!(
            float::div_fixup_f16(mode(ieee, false), 0x7de0, 0xbc00, 0xc000),
            0x7c00
        );
        // FP16_OVFL clamps that infinity (seed 000: "a NaN one included").
        assert_eq!(
            float::div_fixup_f16(mode(ieee, true), 0x7e00, 0xbc00, 0x6dd1),
            0xfbff
        );
        assert_eq!(
            float::div_fixup_f16(mode(ieee, true), 0x7de0, 0xbc00, 0xc000),
            0x7bff
        );
        // A zero denominator still gives its own infinity, a NaN S2 still wins.
        assert_eq!(
            float::div_fixup_f16(mode(ieee, true), 0x7e00, 0x0000, 0x3c00),
            0x7c00
        );
        let nan = float::div_fixup_f16(mode(ieee, false), 0x7e00, 0x3c00, 0x7d00);
        assert_eq!(nan, if ieee { 0x7f00 } else { 0x7d00 });
    }
    // The f32 form keeps the guide's pass-through (rule div.fixup): the NaN comes back.
    let m32 = Mode {
        float_mode: 0xf0,
        ieee: true,
        dx10_clamp: true,
        fp16_ovfl: false,
    };
    assert_eq!(
        float::div_fixup_f32(m32, 0x7fc0_0000, 0xbf80_0000, 0x4000_0000),
        0x7fc0_0000
    );
}

#[test]
fn wrxchg2_does_every_first_exchange_before_any_second() {
    // Lane L exchanges at dword L (data0 = 0x100 + L) and at dword L + 1 (data1 = 0x200 + L): lane L's second
    // address is lane L + 1's first. LDS starts as 0xa000 + dword.
    let n = 8usize;
    let inputs: Vec<[u32; 4]> = (0..n as u32)
        .map(|l| [l * 4, 0x100 + l, 0x200 + l, 0])
        .collect();
    let body = "v_mov_b32 v21, 0xa000\nv_add_nc_u32 v22, v21, v0\nds_write_b32 v4, v22\n\
                v_cmp_eq_u32 vcc_lo, 7, v0\nv_add_nc_u32 v23, 1, v22\nv_add_nc_u32 v24, 4, v4\n\
                s_and_saveexec_b32 s20, vcc_lo\nds_write_b32 v24, v23\ns_mov_b32 exec_lo, s20\n\
                s_waitcnt lgkmcnt(0)\ns_barrier\n\
                ds_wrxchg2_rtn_b32 v[10:11], v4, v5, v6 offset1:1\ns_waitcnt lgkmcnt(0)\ns_barrier\n\
                ds_read_b32 v12, v4\ns_waitcnt lgkmcnt(0)";
    let o = run(body, &inputs);
    for (l, out) in o.iter().enumerate() {
        let first_old = 0xa000 + l as u32;
        // The second exchange finds lane L + 1's data0, written by the first pass; the last lane finds dword n.
        let second_old = if l + 1 < n {
            0x100 + l as u32 + 1
        } else {
            0xa000 + n as u32
        };
        // Memory: dword 0 keeps lane 0's data0, dword L (L >= 1) lane L - 1's data1.
        let mem = if l == 0 { 0x100 } else { 0x200 + l as u32 - 1 };
        assert_eq!(
            [out[0], out[1], out[2]],
            [first_old, second_old, mem],
            "lane {l}"
        );
    }
}

#[test]
fn pack_b32_f16_quiets_signalling_halves_only_with_ieee() {
    let body = "v_pack_b32_f16 v10, v4, v5";
    let input = [[0x7d00, 0xfd01, 0, 0], [0x3c00, 0x7e00, 0, 0]];
    let ieee0 = run_mode(body, FloatMode::TITLE, &input).unwrap();
    assert_eq!([ieee0[0][0], ieee0[1][0]], [0xfd01_7d00, 0x7e00_3c00]);
    let ieee1 = FloatMode {
        float_mode: 0xf0,
        ieee: true,
        dx10_clamp: true,
        fp16_ovfl: false,
    };
    let ieee1 = run_mode(body, ieee1, &input).unwrap();
    assert_eq!([ieee1[0][0], ieee1[1][0]], [0xff01_7f00, 0x7e00_3c00]);
}
