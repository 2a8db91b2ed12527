//! Property tests of the interpreter's integer operations: every opcode below runs in a real kernel (assembled
//! by llvm-mc, executed by the model in wave32 and wave64) over random operands biased toward edge values, and
//! each lane's result must equal a plain Rust definition written here independently of the model.

mod common;

use common::{job, test_kernel};
use measurements::FloatMode;
use proptest::prelude::*;
use reference_model::exec::{run_job, Limits};
use std::collections::HashMap;
use std::sync::Mutex;

type Def = fn([u32; 4], u32) -> [u32; 4];

/// (assembly of the body, the expected v10..v13 from the lane's inputs v4..v7 and its lane index).
/// `{vcc}` is vcc_lo or vcc and `{sd}` a scalar mask destination (s20 or s[20:21]) for the wave size.
fn cases() -> Vec<(&'static str, Def)> {
    fn s24(v: u32) -> i64 {
        ((v << 8) as i32 >> 8) as i64
    }
    vec![
        ("v_add_nc_u32 v10, v4, v5", |i, _| [i[0].wrapping_add(i[1]), 0, 0, 0]),
        ("v_add_nc_u32 v10, v4, v5 clamp", |i, _| [i[0].saturating_add(i[1]), 0, 0, 0]),
        ("v_sub_nc_u32 v10, v4, v5", |i, _| [i[0].wrapping_sub(i[1]), 0, 0, 0]),
        ("v_sub_nc_u32 v10, v4, v5 clamp", |i, _| [i[0].saturating_sub(i[1]), 0, 0, 0]),
        ("v_subrev_nc_u32 v10, v4, v5", |i, _| [i[1].wrapping_sub(i[0]), 0, 0, 0]),
        ("v_add_nc_i32 v10, v4, v5", |i, _| [i[0].wrapping_add(i[1]), 0, 0, 0]),
        ("v_add_nc_i32 v10, v4, v5 clamp", |i, _| [(i[0] as i32).saturating_add(i[1] as i32) as u32, 0, 0, 0]),
        ("v_sub_nc_i32 v10, v4, v5 clamp", |i, _| [(i[0] as i32).saturating_sub(i[1] as i32) as u32, 0, 0, 0]),
        ("v_add_co_u32 v10, {sd}, v4, v5\nv_cndmask_b32_e64 v11, 0, 1, {sd}", |i, _| {
            let (r, c) = i[0].overflowing_add(i[1]);
            [r, c as u32, 0, 0]
        }),
        ("v_sub_co_u32 v10, {sd}, v4, v5\nv_cndmask_b32_e64 v11, 0, 1, {sd}", |i, _| {
            [i[0].wrapping_sub(i[1]), (i[1] > i[0]) as u32, 0, 0]
        }),
        ("v_subrev_co_u32 v10, {sd}, v4, v5\nv_cndmask_b32_e64 v11, 0, 1, {sd}", |i, _| {
            [i[1].wrapping_sub(i[0]), (i[0] > i[1]) as u32, 0, 0]
        }),
        ("v_cmp_gt_u32 {vcc}, v6, v7\nv_add_co_ci_u32 v10, {vcc}, v4, v5, {vcc}\nv_cndmask_b32_e64 v11, 0, 1, {vcc}", |i, _| {
            let c = (i[2] > i[3]) as u64;
            let r = i[0] as u64 + i[1] as u64 + c;
            [r as u32, (r >> 32) as u32, 0, 0]
        }),
        ("v_cmp_gt_u32 {vcc}, v6, v7\nv_sub_co_ci_u32 v10, {vcc}, v4, v5, {vcc}\nv_cndmask_b32_e64 v11, 0, 1, {vcc}", |i, _| {
            let c = (i[2] > i[3]) as u64;
            [(i[0] as u64).wrapping_sub(i[1] as u64 + c) as u32, (i[1] as u64 + c > i[0] as u64) as u32, 0, 0]
        }),
        ("v_cmp_gt_u32 {vcc}, v6, v7\nv_subrev_co_ci_u32 v10, {vcc}, v4, v5, {vcc}\nv_cndmask_b32_e64 v11, 0, 1, {vcc}", |i, _| {
            let c = (i[2] > i[3]) as u64;
            [(i[1] as u64).wrapping_sub(i[0] as u64 + c) as u32, (i[0] as u64 + c > i[1] as u64) as u32, 0, 0]
        }),
        ("v_mul_lo_u32 v10, v4, v5", |i, _| [i[0].wrapping_mul(i[1]), 0, 0, 0]),
        ("v_mul_hi_u32 v10, v4, v5", |i, _| [((i[0] as u64 * i[1] as u64) >> 32) as u32, 0, 0, 0]),
        ("v_mul_hi_i32 v10, v4, v5", |i, _| [((i[0] as i32 as i64 * i[1] as i32 as i64) >> 32) as u32, 0, 0, 0]),
        ("v_mul_u32_u24 v10, v4, v5", |i, _| [(i[0] & 0xffffff).wrapping_mul(i[1] & 0xffffff), 0, 0, 0]),
        ("v_mul_hi_u32_u24 v10, v4, v5", |i, _| [(((i[0] & 0xffffff) as u64 * (i[1] & 0xffffff) as u64) >> 32) as u32, 0, 0, 0]),
        ("v_mul_i32_i24 v10, v4, v5", |i, _| [(s24(i[0]) * s24(i[1])) as u32, 0, 0, 0]),
        ("v_mul_hi_i32_i24 v10, v4, v5", |i, _| [((s24(i[0]) * s24(i[1])) >> 32) as u32, 0, 0, 0]),
        ("v_mad_u32_u24 v10, v4, v5, v6", |i, _| [(i[0] & 0xffffff).wrapping_mul(i[1] & 0xffffff).wrapping_add(i[2]), 0, 0, 0]),
        ("v_mad_i32_i24 v10, v4, v5, v6", |i, _| [(s24(i[0]) * s24(i[1]) + i[2] as i32 as i64) as u32, 0, 0, 0]),
        ("v_mad_u64_u32 v[10:11], {sd}, v4, v5, v[6:7]\nv_cndmask_b32_e64 v12, 0, 1, {sd}", |i, _| {
            let c = i[2] as u128 | (i[3] as u128) << 32;
            let r = i[0] as u128 * i[1] as u128 + c;
            [r as u32, (r >> 32) as u32, (r >> 64 != 0) as u32, 0]
        }),
        ("v_lshlrev_b32 v10, v4, v5", |i, _| [i[1] << (i[0] & 31), 0, 0, 0]),
        ("v_lshrrev_b32 v10, v4, v5", |i, _| [i[1] >> (i[0] & 31), 0, 0, 0]),
        ("v_ashrrev_i32 v10, v4, v5", |i, _| [((i[1] as i32) >> (i[0] & 31)) as u32, 0, 0, 0]),
        ("v_lshlrev_b64 v[10:11], v4, v[6:7]", |i, _| {
            let v = (i[2] as u64 | (i[3] as u64) << 32) << (i[0] & 63);
            [v as u32, (v >> 32) as u32, 0, 0]
        }),
        ("v_ashrrev_i64 v[10:11], v4, v[6:7]", |i, _| {
            let v = ((i[2] as u64 | (i[3] as u64) << 32) as i64 >> (i[0] & 63)) as u64;
            [v as u32, (v >> 32) as u32, 0, 0]
        }),
        ("v_and_b32 v10, v4, v5\nv_or_b32 v11, v4, v5\nv_xor_b32 v12, v4, v5\nv_xnor_b32 v13, v4, v5", |i, _| {
            [i[0] & i[1], i[0] | i[1], i[0] ^ i[1], !(i[0] ^ i[1])]
        }),
        ("v_not_b32 v10, v4\nv_bfrev_b32 v11, v4\nv_ffbh_u32 v12, v4\nv_ffbl_b32 v13, v4", |i, _| {
            let a = i[0];
            [!a, a.reverse_bits(), if a == 0 { u32::MAX } else { a.leading_zeros() }, if a == 0 { u32::MAX } else { a.trailing_zeros() }]
        }),
        ("v_ffbh_i32 v10, v4", |i, _| {
            let a = i[0] as i32;
            let x = if a < 0 { !a } else { a } as u32;
            [if x == 0 { u32::MAX } else { x.leading_zeros() }, 0, 0, 0]
        }),
        ("v_bfe_u32 v10, v4, v5, v6", |i, _| {
            let (o, w) = (i[1] & 31, i[2] & 31);
            [if w == 0 { 0 } else { (i[0] >> o) & ((1u32 << w) - 1) }, 0, 0, 0]
        }),
        ("v_bfi_b32 v10, v4, v5, v6\nv_bfm_b32 v11, v4, v5", |i, _| {
            [(i[0] & i[1]) | (!i[0] & i[2]), ((1u32 << (i[0] & 31)).wrapping_sub(1)) << (i[1] & 31), 0, 0]
        }),
        ("v_alignbit_b32 v10, v4, v5, v6\nv_alignbyte_b32 v11, v4, v5, v6", |i, _| {
            let c = (i[0] as u64) << 32 | i[1] as u64;
            [(c >> (i[2] & 31)) as u32, (c >> (8 * (i[2] & 3))) as u32, 0, 0]
        }),
        ("v_min_i32 v10, v4, v5\nv_max_i32 v11, v4, v5\nv_min_u32 v12, v4, v5\nv_max_u32 v13, v4, v5", |i, _| {
            [(i[0] as i32).min(i[1] as i32) as u32, (i[0] as i32).max(i[1] as i32) as u32, i[0].min(i[1]), i[0].max(i[1])]
        }),
        ("v_min3_i32 v10, v4, v5, v6\nv_max3_u32 v11, v4, v5, v6\nv_med3_i32 v12, v4, v5, v6\nv_med3_u32 v13, v4, v5, v6", |i, _| {
            let mut s = [i[0] as i32, i[1] as i32, i[2] as i32];
            s.sort();
            let mut u = [i[0], i[1], i[2]];
            u.sort();
            [(i[0] as i32).min(i[1] as i32).min(i[2] as i32) as u32, u[2], s[1] as u32, u[1]]
        }),
        ("v_lshl_add_u32 v10, v4, v5, v6\nv_add_lshl_u32 v11, v4, v5, v6\nv_add3_u32 v12, v4, v5, v6\nv_lshl_or_b32 v13, v4, v5, v6", |i, _| {
            [
                (i[0] << (i[1] & 31)).wrapping_add(i[2]),
                i[0].wrapping_add(i[1]) << (i[2] & 31),
                i[0].wrapping_add(i[1]).wrapping_add(i[2]),
                (i[0] << (i[1] & 31)) | i[2],
            ]
        }),
        ("v_and_or_b32 v10, v4, v5, v6\nv_or3_b32 v11, v4, v5, v6\nv_xor3_b32 v12, v4, v5, v6\nv_xad_u32 v13, v4, v5, v6", |i, _| {
            [(i[0] & i[1]) | i[2], i[0] | i[1] | i[2], i[0] ^ i[1] ^ i[2], (i[0] ^ i[1]).wrapping_add(i[2])]
        }),
        ("v_bcnt_u32_b32 v10, v4, v5\nv_mbcnt_lo_u32_b32 v11, v4, v5\nv_mbcnt_hi_u32_b32 v12, v4, v5", |i, lane| {
            let below = if lane == 0 { 0u64 } else { u64::MAX >> (64 - lane) };
            [
                i[0].count_ones().wrapping_add(i[1]),
                (i[0] & below as u32).count_ones().wrapping_add(i[1]),
                (i[0] & (below >> 32) as u32).count_ones().wrapping_add(i[1]),
                0,
            ]
        }),
        ("v_sad_u8 v10, v4, v5, v6\nv_sad_u16 v11, v4, v5, v6\nv_sad_u32 v12, v4, v5, v6\nv_sad_hi_u8 v13, v4, v5, v6", |i, _| {
            let b = |v: u32, k: u32| (v >> (8 * k)) & 0xff;
            let h = |v: u32, k: u32| (v >> (16 * k)) & 0xffff;
            let s8: u32 = (0..4).map(|k| b(i[0], k).abs_diff(b(i[1], k))).sum();
            let s16: u32 = (0..2).map(|k| h(i[0], k).abs_diff(h(i[1], k))).sum();
            [s8.wrapping_add(i[2]), s16.wrapping_add(i[2]), i[0].abs_diff(i[1]).wrapping_add(i[2]), (s8 << 16).wrapping_add(i[2])]
        }),
        ("v_add_nc_u16 v10, v4, v5\nv_sub_nc_u16 v11, v4, v5\nv_mul_lo_u16 v12, v4, v5\nv_lshlrev_b16 v13, v4, v5", |i, _| {
            let (a, b) = (i[0] as u16, i[1] as u16);
            [a.wrapping_add(b) as u32, a.wrapping_sub(b) as u32, a.wrapping_mul(b) as u32, (b << (a & 15)) as u32]
        }),
        ("v_add_nc_u16 v10, v4, v5 op_sel:[1,1,1]\nv_max_i16 v11, v4, v5\nv_add_nc_i16 v12, v4, v5 clamp", |i, _| {
            let hi = |v: u32| (v >> 16) as u16;
            let r0 = (hi(i[0]).wrapping_add(hi(i[1])) as u32) << 16;
            let r1 = (i[0] as u16 as i16).max(i[1] as u16 as i16) as u16 as u32;
            let r2 = (i[0] as u16 as i16).saturating_add(i[1] as u16 as i16) as u16 as u32;
            [r0, r1, r2, 0]
        }),
        ("v_pk_add_u16 v10, v4, v5\nv_pk_mul_lo_u16 v11, v4, v5\nv_pk_lshlrev_b16 v12, v4, v5\nv_pk_sub_i16 v13, v4, v5 clamp", |i, _| {
            let h = |v: u32, k: u32| (v >> (16 * k)) as u16;
            let pk = |f: &dyn Fn(u16, u16) -> u16| (f(h(i[0], 0), h(i[1], 0)) as u32) | (f(h(i[0], 1), h(i[1], 1)) as u32) << 16;
            [
                pk(&|a, b| a.wrapping_add(b)),
                pk(&|a, b| a.wrapping_mul(b)),
                pk(&|a, b| b << (a & 15)),
                pk(&|a, b| (a as i16).saturating_sub(b as i16) as u16),
            ]
        }),
        ("v_pk_mad_u16 v10, v4, v5, v6 op_sel:[1,0,0] op_sel_hi:[0,1,1]", |i, _| {
            let h = |v: u32, k: u32| (v >> (16 * k)) as u16;
            let lo = h(i[0], 1).wrapping_mul(h(i[1], 0)).wrapping_add(h(i[2], 0));
            let hi = h(i[0], 0).wrapping_mul(h(i[1], 1)).wrapping_add(h(i[2], 1));
            [lo as u32 | (hi as u32) << 16, 0, 0, 0]
        }),
        ("v_cmp_lt_i32 {vcc}, v4, v5\nv_cndmask_b32_e64 v10, 0, 1, {vcc}\nv_cmp_ge_u32 {vcc}, v4, v5\nv_cndmask_b32_e64 v11, 0, 1, {vcc}\nv_cmp_lt_u64 {vcc}, v[4:5], v[6:7]\nv_cndmask_b32_e64 v12, 0, 1, {vcc}\nv_cmp_ne_i16 {vcc}, v4, v5\nv_cndmask_b32_e64 v13, 0, 1, {vcc}", |i, _| {
            let a64 = i[0] as u64 | (i[1] as u64) << 32;
            let b64 = i[2] as u64 | (i[3] as u64) << 32;
            [((i[0] as i32) < (i[1] as i32)) as u32, (i[0] >= i[1]) as u32, (a64 < b64) as u32, (i[0] as u16 != i[1] as u16) as u32]
        }),
        // Scalar ALU, fed from lane 0 (the same result in every lane).
        ("v_readfirstlane_b32 s20, v4\nv_readfirstlane_b32 s21, v5\ns_add_u32 s22, s20, s21\ns_cselect_b32 s23, 1, 0\ns_addc_u32 s24, s20, s21\ns_cselect_b32 s25, 1, 0\nv_mov_b32 v10, s22\nv_mov_b32 v11, s23\nv_mov_b32 v12, s24\nv_mov_b32 v13, s25", |_, _| [0; 4]),
    ]
}

fn expected_scalar(first: [u32; 4]) -> [u32; 4] {
    let (r, c) = first[0].overflowing_add(first[1]);
    let (r2, c2) = first[0].overflowing_add(first[1].wrapping_add(c as u32));
    let c2 = c2 || (c && first[1] == u32::MAX);
    [r, c as u32, r2, c2 as u32]
}

fn value() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        prop::sample::select(vec![
            0,
            1,
            2,
            15,
            16,
            31,
            32,
            33,
            63,
            64,
            0x7f,
            0x80,
            0xff,
            0xffff,
            0x8000,
            0x7fff,
            0x00ff_ffff,
            0x0080_0000,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            u32::MAX
        ]),
    ]
}

fn kernels() -> &'static Mutex<HashMap<(usize, u32), measurements::kernel::Kernel>> {
    static K: std::sync::OnceLock<Mutex<HashMap<(usize, u32), measurements::kernel::Kernel>>> =
        std::sync::OnceLock::new();
    K.get_or_init(|| Mutex::new(HashMap::new()))
}

fn check(case: usize, wave: u32, inputs: &[[u32; 4]]) -> Result<(), TestCaseError> {
    let (body, def) = cases()[case];
    let kernel = {
        let mut k = kernels().lock().unwrap();
        k.entry((case, wave))
            .or_insert_with(|| {
                let (vcc, sd) = if wave == 32 {
                    ("vcc_lo", "s20")
                } else {
                    ("vcc", "s[20:21]")
                };
                let src = body.replace("{vcc}", vcc).replace("{sd}", sd);
                test_kernel("gfx1030", &src, wave, 64)
            })
            .clone()
    };
    let out = run_job(
        &job(kernel, "rdna2", FloatMode::TITLE, inputs),
        Limits::default(),
    )
    .map_err(|e| TestCaseError::fail(format!("{body}: {e}")))?;
    for (lane, inp) in inputs.iter().enumerate() {
        let want = if body.starts_with("v_readfirstlane") {
            expected_scalar(inputs[lane / wave as usize * wave as usize])
        } else {
            def(*inp, (lane % wave as usize) as u32)
        };
        prop_assert_eq!(
            &out.lanes[lane][..],
            &want[..],
            "{} (wave{}) lane {} inputs {:08x?}",
            body,
            wave,
            lane,
            inp
        );
    }
    Ok(())
}

proptest! {
    // Integration tests have no lib.rs beside them, so proptest's default persistence finds no place: keep
    // failing seeds next to this file (tests/<name>.proptest-regressions), where they are read back.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn integer_ops_match_plain_rust(rows in prop::collection::vec(prop::array::uniform4(value()), 64)) {
        for case in 0..cases().len() {
            for wave in [32, 64] {
                check(case, wave, &rows)?;
            }
        }
    }
}
