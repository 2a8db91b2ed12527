//! The vulkan backend on the default device (lavapipe in CI) against the reference model: runaway loops,
//! faults and wave64 cross-lane operations on a host subgroup narrower than the wave.

mod common;

use common::{asm, have_llvm_mc, job, vulkan, vulkan_with};
use measurements::job::{Backend, BackendError, TimeLimit};
use reference_model::exec::{Limits, ModelBackend};

/// s_branch -2 at word 2 jumps back to word 1: the wave counts in s10 forever.
const LOOP: &str = "s_mov_b32 s10, 0\ns_add_u32 s10, s10, 1\ns_branch -2\ns_endpgm";

#[test]
fn an_endless_loop_times_out_on_its_instruction_budget() {
    if !have_llvm_mc() {
        return;
    }
    // A budget the host's loop limit leaves room for (lavapipe ends a shader's loops after 65535
    // iterations; each guest block executed is one).
    let limits = Limits {
        instructions: 20_000,
        ..Limits::default()
    };
    let Some(vulkan) = vulkan_with(limits) else {
        return;
    };
    let j = job(&asm(32, LOOP), 32, 32, (1, 1), |l| vec![l]);
    let model = ModelBackend { limits }.run(&j);
    assert!(
        matches!(model, Err(BackendError::Timeout { .. })),
        "{model:?}"
    );
    match vulkan.run(&j) {
        Err(BackendError::Timeout {
            limit: TimeLimit::WaveInstructions,
            instructions,
            budget,
            ..
        }) => {
            assert_eq!(budget, 20_000);
            assert!((20_000..20_010).contains(&instructions), "{instructions}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // The device survives: the next job runs.
    let ok = job(&asm(32, "v_mov_b32 v1, 5\nv_lshlrev_b32 v2, 2, v0\nbuffer_store_dword v1, v2, s[4:7], 0 offen\ns_endpgm"), 32, 32, (1, 1), |l| vec![l]);
    let out = vulkan.run(&ok).expect("a job after the timeout");
    assert_eq!(out.array("out").unwrap(), &[5; 32][..]);
}

#[test]
fn an_endless_loop_under_the_default_budget_ends_typed() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    // One wave, then two waves of a workgroup (on lavapipe their invocations part at the scheduler's
    // barriers once the host cuts a loop, and the ones left waiting never finish), in both wave sizes.
    for (wave, threads) in [(32, 32), (32, 64), (64, 128)] {
        let j = job(&asm(wave, LOOP), wave, threads, (1, 1), |l| vec![l]);
        match vulkan.run(&j) {
            // A device without a loop limit runs the million instructions.
            Err(BackendError::Timeout { instructions, .. }) => {
                assert!(instructions >= 1_000_000)
            }
            // lavapipe stops the module's loop first: the job is refused, never reported as finished.
            Err(BackendError::Unsupported { reason, .. }) => {
                assert!(
                    reason.contains("65535"),
                    "wave{wave}, {threads} lanes: {reason}"
                )
            }
            other => panic!(
                "wave{wave}, {threads} lanes: expected a timeout or a refusal, got {other:?}"
            ),
        }
    }
}

#[test]
fn a_store_outside_every_region_faults_like_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let src = "v_mov_b32 v1, 0x10000\nv_mov_b32 v2, 0\nv_mov_b32 v3, 7\nglobal_store_dword v[1:2], v3, off\ns_endpgm";
    let j = job(&asm(32, src), 32, 32, (1, 1), |l| vec![l]);
    let model = ModelBackend::default().run(&j);
    let Err(BackendError::Fault { address: ma, .. }) = model else {
        panic!("model: {model:?}")
    };
    match vulkan.run(&j) {
        Err(BackendError::Fault { address, .. }) => assert_eq!((address, ma), (0x10000, 0x10000)),
        other => panic!("expected a fault, got {other:?}"),
    }
    // A buffer store past num_records is dropped by the range check, not a fault: the same on both.
    let src = "v_mov_b32 v1, 0x4000\nv_mov_b32 v3, 7\nbuffer_store_dword v3, v1, s[4:7], 0 offen\ns_endpgm";
    let j = job(&asm(32, src), 32, 32, (1, 1), |l| vec![l]);
    let (m, v) = (
        ModelBackend::default().run(&j).unwrap(),
        vulkan.run(&j).unwrap(),
    );
    assert_eq!(v.arrays, m.arrays);
    assert_eq!(v.array("out").unwrap(), &[0xdead_beef; 32][..]);
}

/// Cross-lane operations of wave64 (two waves of 64 in one workgroup): each lane's results are stored
/// to its own eight dwords.
const CROSS_LANE: &str = "
    v_lshlrev_b32 v1, 2, v0          ; byte offset of lane's input
    buffer_load_dword v2, v1, s[0:3], 0 offen
    s_waitcnt vmcnt(0)
    v_readlane_b32 s10, v2, 63
    v_readlane_b32 s11, v2, 37
    v_mov_b32 v10, s10
    v_cmp_gt_u32 s[12:13], 40, v0     ; lanes 0..39 of wave 0 (VOP3: the mask goes to s[12:13])
    v_mov_b32 v11, s13
    s_bcnt1_i32_b64 s14, s[12:13]
    v_mov_b32 v12, s14
    v_mov_b32 v13, v2 row_shr:1 bound_ctrl:0
    v_mov_b32 v18, v2 quad_perm:[3,1,2,0]
    v_xor_b32 v13, v13, v18           ; row_shr and quad_perm both reach the compared memory
    v_mov_b32 v14, v2 dpp8:[7,6,5,4,3,2,1,0]
    v_mov_b32 v16, 0
    v_sub_nc_u32 v3, 63, v0
    v_and_b32 v3, 63, v3
    v_lshlrev_b32 v3, 2, v3
    ds_bpermute_b32 v15, v3, v2
    s_waitcnt lgkmcnt(0)
    s_mov_b64 exec, s[12:13]
    v_readfirstlane_b32 s15, v2
    v_writelane_b32 v16, s11, 5
    s_mov_b64 exec, -1
    v_mbcnt_lo_u32_b32 v17, s12, 0
    v_mbcnt_hi_u32_b32 v17, s13, v17
    v_add_nc_u32 v16, s15, v16
    v_lshlrev_b32 v4, 5, v0
    buffer_store_dwordx4 v[10:13], v4, s[4:7], 0 offen
    buffer_store_dwordx4 v[14:17], v4, s[4:7], 0 offen offset:16
    s_endpgm";

#[test]
fn wave64_cross_lane_operations_are_exact_on_a_narrower_host_subgroup() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let words = asm(64, CROSS_LANE);
    let j = job(&words, 64, 128, (1, 8), |l| vec![0x100 + 3 * l]);
    let m = ModelBackend::default().run(&j).expect("model");
    let v = vulkan.run(&j).expect("vulkan");
    assert_eq!(v.arrays, m.arrays, "vulkan and the model differ");
    let out = v.array("out").unwrap();
    let input = |l: u32| 0x100 + 3 * l;
    for l in 0..128u32 {
        let (w, i) = (l / 64, l % 64);
        let r = &out[l as usize * 8..][..8];
        assert_eq!(r[0], input(w * 64 + 63), "lane {l}: v_readlane 63");
        // v0 is the thread id in the workgroup: only wave 0 has lanes below 40.
        let below = if w == 0 { 40 } else { 0 };
        assert_eq!(
            r[1],
            if w == 0 { 0xff } else { 0 },
            "lane {l}: high word of the mask"
        );
        assert_eq!(r[2], below, "lane {l}: s_bcnt1");
        assert_eq!(
            r[5],
            input(w * 64 + 63 - i),
            "lane {l}: ds_bpermute reversed"
        );
        assert_eq!(r[7], i.min(below), "lane {l}: v_mbcnt");
    }
}

/// Element data for the format tests: every lane's four dwords mix special 8-, 10-, 11-, 16- and 32-bit
/// patterns (f16 and small-float infinities, NaNs with payloads, denormals, ones, integer extremes) with
/// random words.
fn format_data(lanes: u32) -> Vec<Vec<u32>> {
    const SPECIAL: [u32; 24] = [
        0x7c00_fc00,
        0x7e01_7d00,
        0x0001_83ff,
        0x3c00_bc00,
        0x7bff_fbff,
        0x0000_8000,
        0xffff_0000,
        0x8000_7fff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0xffa0_2001,
        0x3f80_0000,
        0xbf80_0000,
        0x477f_f000,
        0x0000_0001,
        0x807f_ffff,
        0x3f00_0000,
        0xbf7f_ffff,
        0x7c0f_8000,
        0xf800_07e0,
        0x0000_07c1,
        0x8080_7f01,
        0xc000_0001,
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 16) as u32
    };
    (0..lanes)
        .map(|l| {
            (0..4u32)
                .map(|k| {
                    let r = next();
                    if r % 2 == 0 {
                        SPECIAL[((l * 4 + k) as usize * 7 + (r as usize >> 8)) % SPECIAL.len()]
                    } else {
                        next()
                    }
                })
                .collect()
        })
        .collect()
}

/// Assembles a kernel whose loop body is `body` between `pre` and `post`: the loop's closing
/// `s_cbranch_scc1` jumps back over the body (llvm-mc leaves label fixups unresolved, so the offset is
/// counted from the assembled body).
fn loop_kernel(wave: u32, pre: &str, body: &str, post: &str) -> Vec<u32> {
    let n = asm(wave, body).len() as i32;
    asm(
        wave,
        &format!("{pre}\n{body}\ns_cbranch_scc1 {}\n{post}", -(n + 1)),
    )
}

/// Format loads of every gfx10 format code (1 to 77) in one kernel, each under four DST_SELs (identity,
/// reversed, constants 0 and 1 with X and W, rotated): a scalar loop builds the V# word 3 of each (code,
/// DST_SEL) and loads each lane's element through `buffer_load_format_xyzw`, `_xy`, `_d16_xyzw`,
/// `_d16_xyz` (the high half of its second register kept), and `_d16_hi_x` over preset registers, with
/// NUM_RECORDS short of the last lanes (out-of-range elements read 0) and one lane inactive.
const FORMAT_LOADS: &str = "v_lshlrev_b32 v1, 4, v0\nv_mul_u32_u24 v2, 48, v0\n\
    s_movk_i32 s20, 4\ns_mov_b32 s21, 0\n\
    s_mov_b32 s24, 0x0f080977\ns_mov_b32 s25, 0x09f50fac\n\
    s_mov_b32 s8, s0\ns_mov_b32 s9, s1\ns_sub_u32 s10, s2, 40\ns_mov_b32 exec_lo, 0xfffeffff";
const FORMAT_LOADS_BODY: &str = "s_lshr_b32 s22, s20, 2\ns_and_b32 s23, s20, 3\n\
    s_lshl_b32 s23, s23, 4\ns_lshr_b64 s[26:27], s[24:25], s23\ns_and_b32 s26, s26, 0xfff\n\
    s_lshl_b32 s22, s22, 12\ns_or_b32 s11, s22, s26\ns_or_b32 s11, s11, 0x30000000\n\
    v_mov_b32 v14, 0x12345678\nv_mov_b32 v15, 0x9abcdef0\nv_mov_b32 v16, 0x55aa55aa\n\
    v_mov_b32 v19, 0x13579bdf\nv_mov_b32 v20, 0x2468ace0\n\
    buffer_load_format_xyzw v[10:13], v1, s[8:11], 0 offen\n\
    buffer_load_format_d16_xyzw v[14:15], v1, s[8:11], 0 offen\n\
    buffer_load_format_d16_hi_x v16, v1, s[8:11], 0 offen\n\
    buffer_load_format_xy v[17:18], v1, s[8:11], 0 offen\n\
    buffer_load_format_d16_xyz v[19:20], v1, s[8:11], 0 offen\n\
    s_waitcnt vmcnt(0)\n\
    buffer_store_dwordx4 v[10:13], v2, s[4:7], s21 offen\n\
    buffer_store_dwordx4 v[14:17], v2, s[4:7], s21 offen offset:16\n\
    buffer_store_dwordx3 v[18:20], v2, s[4:7], s21 offen offset:32\n\
    s_addk_i32 s21, 0x600\ns_add_u32 s20, s20, 1\ns_cmp_lt_u32 s20, 312";

#[test]
fn format_loads_of_every_code_and_dst_sel_match_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let words = loop_kernel(32, FORMAT_LOADS, FORMAT_LOADS_BODY, "s_endpgm");
    let data = format_data(32);
    // 308 (code, DST_SEL) turns of 48 bytes per lane.
    let j = job(&words, 32, 32, (4, 308 * 12), |l| data[l as usize].clone());
    let m = ModelBackend::default().run(&j).expect("model");
    let t = std::time::Instant::now();
    let v = vulkan.run(&j).unwrap_or_else(|e| panic!("vulkan: {e}"));
    eprintln!("format loads on vulkan: {:?}", t.elapsed());
    let (mo, vo) = (m.array("out").unwrap(), v.array("out").unwrap());
    // The loads wrote thousands of different values (9,842 when this was written), not a few constants.
    let distinct: std::collections::BTreeSet<u32> = vo.iter().copied().collect();
    assert!(distinct.len() > 5000, "{} distinct words", distinct.len());
    for (i, (a, b)) in mo.iter().zip(vo).enumerate() {
        let (turn, lane, word) = (i / (32 * 12), i / 12 % 32, i % 12);
        assert_eq!(
            a,
            b,
            "format {} DST_SEL pattern {}, lane {lane} output word {word}: model {a:#x}, vulkan {b:#x}",
            (turn + 4) / 4,
            turn % 4
        );
    }
    assert_eq!(v.arrays, m.arrays);
}

/// Format stores of every gfx10 format code in one kernel (wave64): a scalar loop sets the code in the `out`
/// V# (DST_SEL X, Y, Z, W) and stores each lane's four data dwords through `buffer_store_format_xyzw`, `_xy`
/// (components past Y written 0), `_d16_xyzw` and `_d16_hi_x` into 64-byte slots over a 0xdeadbeef fill,
/// NUM_RECORDS cutting the last lane's later elements (dropped), one lane inactive.
const FORMAT_STORES: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_lshlrev_b32 v2, 6, v0\ns_movk_i32 s20, 1\ns_mov_b32 s21, 0\n\
    s_mov_b32 s8, s4\ns_mov_b32 s9, s5\ns_movk_i32 s10, 0xfe8\ns_mov_b32 exec_lo, 0xfffeffff";
const FORMAT_STORES_BODY: &str = "s_lshl_b32 s22, s20, 12\ns_or_b32 s11, s22, 0x30000fac\n\
    buffer_store_format_xyzw v[4:7], v2, s[8:11], s21 offen\n\
    buffer_store_format_xy v[4:5], v2, s[8:11], s21 offen offset:16\n\
    buffer_store_format_d16_xyzw v[6:7], v2, s[8:11], s21 offen offset:32\n\
    buffer_store_format_d16_hi_x v5, v2, s[8:11], s21 offen offset:48\n\
    s_add_u32 s21, s21, 0x1000\ns_add_u32 s20, s20, 1\ns_cmp_lt_u32 s20, 78";

#[test]
fn format_stores_of_every_code_match_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let words = loop_kernel(64, FORMAT_STORES, FORMAT_STORES_BODY, "s_endpgm");
    let data = format_data(64);
    // 77 codes of 64 bytes per lane.
    let j = job(&words, 64, 64, (4, 77 * 16), |l| data[l as usize].clone());
    let m = ModelBackend::default().run(&j).expect("model");
    let t = std::time::Instant::now();
    let v = vulkan.run(&j).unwrap_or_else(|e| panic!("vulkan: {e}"));
    eprintln!("format stores on vulkan: {:?}", t.elapsed());
    let (mo, vo) = (m.array("out").unwrap(), v.array("out").unwrap());
    // The stores wrote many different elements (1,864 different words when this was written).
    let distinct: std::collections::BTreeSet<u32> = vo.iter().copied().collect();
    assert!(distinct.len() > 1000, "{} distinct words", distinct.len());
    for (i, (a, b)) in mo.iter().zip(vo).enumerate() {
        let (code, lane, word) = (1 + i / (64 * 16), i / 16 % 64, i % 16);
        assert_eq!(
            a,
            b,
            "format {code}, lane {lane} (data {:08x?}) slot word {word}: model {a:#x}, vulkan {b:#x}",
            data[lane]
        );
    }
    assert_eq!(v.arrays, m.arrays);
}

/// MTBUF loads and stores (the format from the instruction: norm, scaled, packed, small-float, 16- and
/// 32-bit FLOAT, d16 forms) and the plain d16 buffer and global loads and stores, each load into a preset
/// register whose other half it keeps, the last lanes' buffer elements out of range.
const TBUFFER_D16: &str = "v_lshlrev_b32 v1, 4, v0\nv_lshlrev_b32 v2, 8, v0\n\
    buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    s_mov_b32 s8, s0\ns_mov_b32 s9, s1\ns_sub_u32 s10, s2, 40\ns_mov_b32 s11, 0x30000fac\n\
    s_mov_b32 s12, s4\ns_mov_b32 s13, s5\ns_mov_b32 s14, s6\ns_mov_b32 s15, 0x30000fac\n\
    v_mov_b32 v10, 0x01234567\nv_mov_b32 v11, v10\nv_mov_b32 v12, v10\nv_mov_b32 v13, v10\n\
    v_mov_b32 v14, v10\nv_mov_b32 v15, v10\nv_mov_b32 v16, v10\nv_mov_b32 v17, v10\n\
    v_mov_b32 v18, v10\nv_mov_b32 v19, v10\nv_mov_b32 v20, v10\nv_mov_b32 v21, v10\n\
    v_mov_b32 v22, v10\nv_mov_b32 v23, v10\nv_mov_b32 v24, v10\nv_mov_b32 v25, v10\n\
    v_mov_b32 v26, v10\nv_mov_b32 v27, v10\nv_mov_b32 v28, v10\nv_mov_b32 v29, v10\n\
    v_mov_b32 v30, v10\nv_mov_b32 v31, v10\nv_mov_b32 v34, v10\nv_mov_b32 v35, v10\n\
    v_mov_b32 v36, v10\nv_mov_b32 v37, v10\nv_mov_b32 v38, v10\nv_mov_b32 v39, v10\n\
    tbuffer_load_format_xyzw v[10:13], v1, s[8:11], 0 format:2 offen\n\
    tbuffer_load_format_xyzw v[14:17], v1, s[8:11], 0 format:57 offen\n\
    tbuffer_load_format_xy v[18:19], v1, s[8:11], 0 format:36 offen\n\
    tbuffer_load_format_d16_xyzw v[20:21], v1, s[8:11], 0 format:71 offen\n\
    tbuffer_load_format_d16_xyz v[22:23], v1, s[8:11], 0 format:52 offen\n\
    tbuffer_load_format_d16_x v24, v1, s[8:11], 0 format:77 offen\n\
    tbuffer_load_format_x v25, v1, s[8:11], 0 format:10 offen\n\
    buffer_load_ubyte_d16 v26, v1, s[8:11], 0 offen offset:1\n\
    buffer_load_ubyte_d16_hi v27, v1, s[8:11], 0 offen offset:3\n\
    buffer_load_sbyte_d16 v28, v1, s[8:11], 0 offen offset:2\n\
    buffer_load_sbyte_d16_hi v29, v1, s[8:11], 0 offen offset:7\n\
    buffer_load_short_d16 v30, v1, s[8:11], 0 offen offset:6\n\
    buffer_load_short_d16_hi v31, v1, s[8:11], 0 offen offset:10\n\
    v_add_co_u32 v32, vcc_lo, s0, v1\ns_and_b32 s16, s1, 0xffff\nv_add_co_ci_u32 v33, vcc_lo, s16, 0, vcc_lo\n\
    global_load_ubyte_d16 v34, v[32:33], off offset:5\n\
    global_load_ubyte_d16_hi v35, v[32:33], off offset:11\n\
    global_load_sbyte_d16 v36, v[32:33], off offset:3\n\
    global_load_sbyte_d16_hi v37, v[32:33], off offset:15\n\
    global_load_short_d16 v38, v[32:33], off offset:8\n\
    global_load_short_d16_hi v39, v[32:33], off offset:14\n\
    s_waitcnt vmcnt(0)\n\
    buffer_store_dwordx4 v[10:13], v2, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[14:17], v2, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[18:21], v2, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[22:25], v2, s[4:7], 0 offen offset:48\n\
    buffer_store_dwordx4 v[26:29], v2, s[4:7], 0 offen offset:64\n\
    buffer_store_dwordx4 v[34:37], v2, s[4:7], 0 offen offset:80\n\
    buffer_store_dwordx4 v[30:33], v2, s[4:7], 0 offen offset:96\n\
    buffer_store_dwordx2 v[38:39], v2, s[4:7], 0 offen offset:112\n\
    tbuffer_store_format_xyzw v[4:7], v2, s[12:15], 0 format:57 offen offset:128\n\
    tbuffer_store_format_xyz v[4:6], v2, s[12:15], 0 format:36 offen offset:144\n\
    tbuffer_store_format_xy v[4:5], v2, s[12:15], 0 format:53 offen offset:160\n\
    tbuffer_store_format_d16_xyzw v[6:7], v2, s[12:15], 0 format:71 offen offset:176\n\
    tbuffer_store_format_d16_x v5, v2, s[12:15], 0 format:13 offen offset:192\n\
    tbuffer_store_format_x v7, v2, s[12:15], 0 format:8 offen offset:196\n\
    buffer_store_byte_d16_hi v4, v2, s[12:15], 0 offen offset:200\n\
    buffer_store_short_d16_hi v5, v2, s[12:15], 0 offen offset:202\n\
    v_add_co_u32 v40, vcc_lo, s4, v2\ns_and_b32 s16, s5, 0xffff\nv_add_co_ci_u32 v41, vcc_lo, s16, 0, vcc_lo\n\
    global_store_byte_d16_hi v[40:41], v6, off offset:205\n\
    global_store_short_d16_hi v[40:41], v7, off offset:206\n\
    s_endpgm";

#[test]
fn mtbuf_and_d16_accesses_match_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let data = format_data(32);
    let j = job(&asm(32, TBUFFER_D16), 32, 32, (4, 64), |l| {
        data[l as usize].clone()
    });
    let m = ModelBackend::default().run(&j).expect("model");
    let t = std::time::Instant::now();
    let v = vulkan.run(&j).unwrap_or_else(|e| panic!("vulkan: {e}"));
    eprintln!("tbuffer and d16 on vulkan: {:?}", t.elapsed());
    let (mo, vo) = (m.array("out").unwrap(), v.array("out").unwrap());
    for (i, (a, b)) in mo.iter().zip(vo).enumerate() {
        assert_eq!(
            a,
            b,
            "lane {} word {}: model {a:#x}, vulkan {b:#x}",
            i / 64,
            i % 64
        );
    }
    assert_eq!(v.arrays, m.arrays);
}

/// What the model refuses in a format access, the recompiled module refuses in the shader with the same
/// reason: a format code without a gfx10 format, a reserved DST_SEL among a load's outputs, a store through a
/// swizzling DST_SEL, an element off its alignment. The V# word 3 and SOFFSET come from lane 0's data.
#[test]
fn format_accesses_the_model_refuses_are_refused() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let src = "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
        v_readfirstlane_b32 s11, v7\nv_readfirstlane_b32 s12, v6\n\
        s_mov_b32 s8, s0\ns_mov_b32 s9, s1\ns_mov_b32 s10, s2\n\
        buffer_load_format_xy v[10:11], v1, s[8:11], s12 offen\ns_waitcnt vmcnt(0)\n\
        buffer_store_format_xy v[4:5], v1, s[8:11], s12 offen\n\
        buffer_store_dwordx2 v[10:11], v1, s[4:7], 0 offen\ns_endpgm";
    let words = asm(32, src);
    // (word 3, SOFFSET, what the reasons say)
    let cases = [
        (0x3000_0fac | 78 << 12, 0, "format 78"),
        (0x3000_0000 | 22 << 12 | 4 | 3 << 3, 0, "DST_SEL 1"),
        (
            0x3000_0000 | 28 << 12 | 5 | 4 << 3 | 6 << 6 | 7 << 9,
            0,
            "DST_SEL X is 5",
        ),
        (0x3000_0fac | 28 << 12, 1, "not a multiple"),
    ];
    for (w3, soffset, says) in cases {
        let j = job(&words, 32, 32, (4, 4), |l| vec![l, l, soffset, w3]);
        for (name, r) in [
            ("model", ModelBackend::default().run(&j)),
            ("vulkan", vulkan.run(&j)),
        ] {
            match r {
                Err(BackendError::Unsupported { reason, .. }) => {
                    assert!(
                        reason.contains(says),
                        "{name}: {reason} (expected {says:?})"
                    )
                }
                other => panic!("{name} {w3:#x}: expected unsupported, got {other:?}"),
            }
        }
    }
}

/// f32 arithmetic through the integer float engine: add, sub, subrev, mul, fma (VOP3 with source
/// modifiers and VOP2 fmac), legacy multiply and the conversions from and to integers, on special and random
/// operands.
const FLOAT_OPS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_add_f32 v20, v10, v11\nv_sub_f32 v21, v10, v11\nv_subrev_f32 v22, v10, v11\nv_mul_f32 v23, v10, v11\n\
    v_fma_f32 v24, v10, v11, v12\nv_mov_b32 v25, v12\nv_fmac_f32 v25, v10, v11\n\
    v_fma_f32 v26, -v10, |v11|, -|v12|\nv_mul_legacy_f32 v27, v10, v11\n\
    v_cvt_f32_i32 v28, v10\nv_cvt_f32_u32 v29, v11\nv_add_f32_e64 v30, -|v12|, v13\nv_cvt_f32_ubyte2 v31, v12\n\
    v_cvt_i32_f32 v32, v10\nv_cvt_u32_f32 v33, v11\nv_cvt_flr_i32_f32 v34, v12\nv_cvt_rpi_i32_f32 v35, v13\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

/// f16 arithmetic, min/max/med3 and the conversions to f16 (16-bit sources from both halves through SDWA,
/// results into the low half and, through SDWA, the high half; gfx1013 has no VOP3 op_sel), and the output
/// modifiers, clamp and floor.
const FLOAT16_OPS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_mov_b32 v20, v13\nv_add_f16 v20, v10, v11\nv_mov_b32 v21, v13\nv_mul_f16 v21, v10, v11\n\
    v_mov_b32 v22, v13\nv_fma_f16 v22, v10, v11, v12\nv_mov_b32 v23, v13\nv_sub_f16_sdwa v23, -|v10|, v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0\n\
    v_mov_b32 v24, v13\nv_min_f16 v24, v10, v11\nv_mov_b32 v25, v13\nv_max_f16_sdwa v25, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1\n\
    v_mov_b32 v26, v13\nv_med3_f16 v26, v10, v11, v12\nv_mov_b32 v27, v13\nv_cvt_f16_f32 v27, v10\n\
    v_mov_b32 v28, v13\nv_cvt_f16_i16 v28, v11\nv_mov_b32 v29, v13\nv_cvt_f16_u16 v29, v12\n\
    v_mov_b32 v30, v13\nv_fmac_f16 v30, v10, v11\nv_mov_b32 v31, v13\nv_subrev_f16 v31, v12, v10\n\
    v_mul_f32_e64 v32, v10, v11 mul:2\nv_add_f32_e64 v33, v10, v12 clamp div:2\nv_floor_f32 v34, v12\n\
    v_mov_b32 v35, v13\nv_max_f16_e64 v35, v10, v11 clamp mul:4\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

/// v_div_fixup in f32, f16 and f64, with source modifiers and clamp; v_div_fmas in f32 and f64 with a VCC
/// that differs from lane to lane.
const DIV_FIXUP: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_div_fixup_f32 v20, v10, v11, v12\nv_div_fixup_f32 v21, v12, v10, v11\n\
    v_mov_b32 v22, 0\nv_div_fixup_f16 v22, v10, v11, v12\n\
    v_div_fixup_f32 v23, -v10, |v11|, v13 clamp\n\
    v_div_fixup_f64 v[24:25], v[10:11], v[12:13], v[10:11]\n\
    v_cmp_gt_u32 vcc_lo, v13, v12\n\
    v_div_fmas_f32 v26, v10, v11, v12\n\
    v_div_fmas_f64 v[28:29], v[10:11], v[12:13], v[10:11]\n\
    v_div_fmas_f32 v30, -v11, v12, |v13| mul:2\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\ns_endpgm";

/// v_div_scale in f32 and f64, as the numerator (s0 = s2) and the denominator (s0 = s1) of a division and with a
/// negated source, each VCC (or SGPR) destination turned into a lane value.
const DIV_SCALE: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_div_scale_f32 v20, vcc_lo, v11, v11, v12\nv_cndmask_b32 v21, 0, 1, vcc_lo\n\
    v_div_scale_f32 v22, s20, v12, v11, v12\nv_cndmask_b32 v23, 0, 1, s20\n\
    v_div_scale_f32 v24, vcc_lo, -v13, v10, v13\nv_cndmask_b32 v25, 0, 1, vcc_lo\n\
    v_div_scale_f64 v[26:27], vcc_lo, v[10:11], v[10:11], v[12:13]\nv_cndmask_b32 v28, 0, 1, vcc_lo\n\
    v_div_scale_f64 v[30:31], s21, v[12:13], v[10:11], v[12:13]\nv_cndmask_b32 v29, 0, 1, s21\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\ns_endpgm";

/// The normalized 16-bit conversions: pknorm from f32 and f16 (op_sel picking high halves) with source
/// modifiers, and the f16 norm forms (16-bit results, the high half kept).
const NORM: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_cvt_pknorm_i16_f32 v20, v10, -v11\nv_cvt_pknorm_u16_f32 v21, |v12|, v13\n\
    v_cvt_pknorm_i16_f16 v22, v10, v11 op_sel:[1,0,0]\nv_cvt_pknorm_u16_f16 v23, -v12, v13 op_sel:[0,1,0]\n\
    v_mov_b32 v24, v12\nv_cvt_norm_i16_f16 v24, v10\nv_mov_b32 v25, v11\nv_cvt_norm_u16_f16_e64 v25, -v13\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx2 v[24:25], v1, s[4:7], 0 offen offset:16\ns_endpgm";

/// A loop of one block (so the recompiler runs it speculatively): products and sums that drift into
/// denormals, zeros, infinities and NaNs at different turns in different lanes, so some turns of some
/// lanes fail a host guard and run again exactly, while EXEC changes every turn (the rerun must start
/// from the turn's EXEC) and a scalar counter ends the loop after 24 turns. The branch goes back 11 words.
const FLOAT_LOOP: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_mov_b32 v20, v10\nv_mov_b32 v21, v11\nv_mov_b32 v22, v12\nv_mov_b32 v23, v13\n\
    v_mov_b32 v24, v10\nv_mov_b32 v25, v11\ns_movk_i32 s20, 24\ns_mov_b32 s30, 0x55555555\n\
    v_mul_f32 v20, v20, v11\nv_add_f32 v21, v21, v20\nv_mul_f32 v22, v22, v12\n\
    v_add_f32_e64 v23, -|v23|, v13\nv_mac_f32 v24, v20, v11\nv_mul_legacy_f32 v25, v25, v12\n\
    s_xor_b32 exec_lo, exec_lo, s30\ns_sub_u32 s20, s20, 1\ns_cmp_lg_u32 s20, 0\ns_cbranch_scc1 -11\n\
    s_mov_b32 exec_lo, -1\nv_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\ns_endpgm";

/// Runs `src` on 256 lanes of special and random operands (`special` words and random ones biased to the
/// exponent extremes) in every `(FLOAT_MODE, IEEE, FP16_OVFL)` of `modes`, on vulkan and the model, and
/// compares the first `results` output words of every lane.
fn float_kernel_matches(src: &str, special: &[u32], modes: &[(u8, bool, bool)], results: usize) {
    float_kernel_matches_on("gfx1013", src, special, modes, results)
}

/// [`float_kernel_matches`] for the chip `mcpu` (assembled and run as that target).
fn float_kernel_matches_on(
    mcpu: &str,
    src: &str,
    special: &[u32],
    modes: &[(u8, bool, bool)],
    results: usize,
) {
    float_kernel_matches_in(mcpu, vulkan, src, special, modes, results)
}

/// [`float_kernel_matches_on`] on the backend `open` gives.
fn float_kernel_matches_in(
    mcpu: &str,
    open: impl FnOnce() -> Option<conformance::vulkan::VulkanBackend>,
    src: &str,
    special: &[u32],
    modes: &[(u8, bool, bool)],
    results: usize,
) {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = open() else { return };
    let model = ModelBackend::default();
    let words = common::asm_for(mcpu, 32, src);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 16) as u32
    };
    let inputs: Vec<Vec<u32>> = (0..256u32)
        .map(|_| {
            (0..4)
                .map(|k| {
                    let r = next();
                    if r % 3 == 0 {
                        special[(r as usize >> 4) % special.len()] ^ (k << 31)
                    } else if r % 3 == 1 {
                        // Tiny and huge exponents, where flushing and overflow decide.
                        (r & 0x8000_8000) | ((r >> 8 & 1) * 0x7e00_7800) | (next() & 0x01ff_03ff)
                    } else {
                        next()
                    }
                })
                .collect()
        })
        .collect();
    for &(float_mode, ieee, fp16_ovfl) in modes {
        let mut j = job(&words, 32, 256, (4, 16), |l| inputs[l as usize].clone());
        j.target = mcpu.into();
        j.mode = measurements::FloatMode {
            float_mode,
            ieee,
            fp16_ovfl,
            ..measurements::FloatMode::TITLE
        };
        let m = model.run(&j).expect("model");
        let v = vulkan
            .run(&j)
            .unwrap_or_else(|e| panic!("mode {float_mode:#x}: {e}"));
        let (mo, vo) = (m.array("out").unwrap(), v.array("out").unwrap());
        let written = vo
            .chunks(16)
            .all(|l| l[..results].iter().all(|&w| w != 0xdead_beef));
        assert!(written, "mode {float_mode:#x}: results missing");
        for (i, (a, b)) in mo.iter().zip(vo).enumerate() {
            assert_eq!(
                a,
                b,
                "mode {float_mode:#x} ieee {ieee}: lane {} output {}: inputs {:08x?}",
                i / 16,
                i % 16,
                inputs[i / 16]
            );
        }
        assert_eq!(v.arrays, m.arrays, "mode {float_mode:#x}");
    }
}

#[test]
fn f32_arithmetic_matches_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0xbf7f_ffff,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0xffbf_ffff,
        0x3400_0000,
        0x0040_0000,
        0x4b80_0001,
    ];
    // Every round direction and f32 denormal setting, IEEE_MODE on and off.
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0xf1, false, false),
        (0xe2, true, false),
        (0xd3, false, false),
        (0xc3, true, false),
    ];
    float_kernel_matches(FLOAT_OPS, &special, &modes, 16);
}

#[test]
fn a_speculative_float_loop_matches_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x3f00_0000,
        0x4000_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0xf1, false, false),
        (0x30, true, false),
        (0xc3, true, false),
    ];
    float_kernel_matches(FLOAT_LOOP, &special, &modes, 8);
}

/// Mode writes the recompiler follows at compile time (a constant `s_setreg_imm32_b32`, `s_setreg_b32` of a
/// known SGPR) and where it cannot (paths that meet with different modes, a loop that changes the mode).
const MODE_PATHS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_add_f32 v20, v10, v11\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x3\nv_add_f32 v21, v10, v11\n\
    v_readfirstlane_b32 s10, v0\ns_bitcmp1_b32 s10, 5\ns_cbranch_scc0 2\n\
    s_round_mode 0x1\ns_denorm_mode 0x0\nv_mul_f32 v22, v10, v11\ns_movk_i32 s20, 3\n\
    v_fma_f32 v23, v10, v11, v23\ns_round_mode 0x2\ns_sub_u32 s20, s20, 1\ns_cmp_lg_u32 s20, 0\n\
    s_cbranch_scc1 -6\nv_add_f32 v24, v12, v13\ns_mov_b32 s11, 0xc\n\
    s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s11\nv_mul_f32 v25, v12, v13\n\
    s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xf0\nv_add_f32 v26, v12, v13\nv_sub_f32 v27, v10, v13\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\ns_endpgm";

#[test]
fn mode_writes_on_some_paths_match_the_model() {
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x3f80_0000,
        0x3380_0001,
        0x7f7f_ffff,
        0x7fc0_0000,
    ];
    let modes = [(0xc0u8, false, false), (0x30, true, false)];
    float_kernel_matches(MODE_PATHS, &special, &modes, 8);
}

#[test]
fn div_fixup_and_div_fmas_match_the_model_in_every_float_mode() {
    // f32 and f16 classes in both halves (v_div_fixup_f16 reads the low ones), quotients' edge cases.
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0xffc1_2345,
        0x3c00_7c00,
        0x7e00_0001,
        0xfc00_8001,
        0x0000_7e01,
        0x7bff_3c00,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0x00, false, true),
        (0x30, true, true),
    ];
    float_kernel_matches(DIV_FIXUP, &special, &modes, 12);
}

#[test]
fn div_scale_matches_the_model_in_every_float_mode() {
    // Divisors with huge and denormal reciprocal classes, dividends with small exponent fields, quotients
    // near 2^-126, NaNs, zeros and infinities; the f64 pairs read two of these as one value.
    let special = [
        0u32,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x0080_0000,
        0x0b80_0000,
        0x3f80_0000,
        0x4000_0000,
        0x7e80_0001,
        0x7f00_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0x1000_0000,
        0x6000_0000,
        0x7fd0_0000,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0x00, false, true),
        (0x30, true, true),
        (0x8f, false, false),
    ];
    float_kernel_matches(DIV_SCALE, &special, &modes, 12);
}

#[test]
fn norm_conversions_match_the_model_in_every_float_mode() {
    // f32 and f16 values around the codes' ends and halves, denormals, infinities and NaNs.
    let special = [
        0u32,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f00_0000,
        0x3780_0100,
        0x7f80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x3c00_bc00,
        0x3800_0001,
        0x7c00_fe00,
        0x0200_8001,
        0x3bff_3c01,
        0x4b80_0000,
        0x3f7f_ffff,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0x00, false, true),
        (0x30, true, false),
        (0x4f, false, false),
    ];
    float_kernel_matches(NORM, &special, &modes, 6);
}

#[test]
fn f16_arithmetic_matches_the_model_in_every_float_mode() {
    // f16 classes in both halves: zeros, denormals, the smallest normal, one, the largest finite,
    // infinities, quiet and signalling NaNs.
    let special = [
        0x0000_8000u32,
        0x0001_83ff,
        0x0400_3c00,
        0x7bff_fbff,
        0x7c00_fc00,
        0x7e00_7d01,
        0xfe00_0200,
        0x3bff_7bff,
        0x3c00_0001,
        0x7f80_0000,
        0x4780_0000,
        0x3380_0000,
    ];
    // Every f16 round direction and f16/f64 denormal setting, IEEE_MODE and FP16_OVFL on and off.
    let modes = [
        (0xf0u8, false, false),
        (0x30, true, false),
        (0x74, false, true),
        (0xb8, true, true),
        (0xfc, false, false),
        (0x7c, true, true),
    ];
    float_kernel_matches(FLOAT16_OPS, &special, &modes, 16);
}

/// fract, frexp and ldexp in f32 and f16 (VOP1/VOP2, VOP3 with source and output modifiers, SDWA halves,
/// small and huge exponent operands).
const FRACT_FREXP_LDEXP: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_fract_f32 v20, v10\nv_frexp_mant_f32 v21, v11\nv_frexp_exp_i32_f32 v22, v12\n\
    v_bfe_i32 v2, v13, 0, 9\nv_ldexp_f32 v23, v10, v2\nv_ldexp_f32_e64 v24, -|v11|, v13\n\
    v_fract_f32_e64 v25, -|v12| mul:2\nv_frexp_mant_f32_e64 v26, v10 clamp\nv_mov_b32 v27, v13\n\
    v_fract_f16 v27, v10\nv_mov_b32 v28, v13\nv_frexp_mant_f16 v28, v11\n\
    v_mov_b32 v29, v13\nv_frexp_exp_i16_f16 v29, v12\nv_mov_b32 v30, v13\n\
    v_ldexp_f16 v30, v10, v2\nv_mov_b32 v31, v13\nv_ldexp_f16_e64 v31, -v11, v13 clamp\n\
    v_mov_b32 v32, v13\nv_fract_f16_sdwa v32, v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1\nv_mov_b32 v33, v13\n\
    v_frexp_exp_i16_f16_sdwa v33, v10 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1\nv_ldexp_f32 v34, v12, -3\nv_mov_b32 v35, v13\n\
    v_frexp_mant_f16_sdwa v35, -|v12| dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

#[test]
fn fract_frexp_and_ldexp_match_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_0001,
        0x007f_ffff,
        0x3f7f_ffff,
        0xbf00_0000,
        0xb400_0000,
        0x4b00_0001,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7fa0_0001,
        0xffc0_0000,
        0x3bff_83ff,
        0x0001_b800,
        0x7c00_7d01,
        0x0000_0095,
        0xffff_ff6a,
    ];
    // f32 and f16 round directions and denormal settings, IEEE_MODE and FP16_OVFL on and off.
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, true),
        (0x35, false, true),
        (0xe2, true, false),
        (0x0f, false, false),
        (0x7b, true, true),
    ];
    float_kernel_matches(FRACT_FREXP_LDEXP, &special, &modes, 16);
}

/// The sine and cosine (f32 and f16, with modifiers and SDWA) and the f64 reciprocal and roots.
const TRANSCENDENTALS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_sin_f32 v20, v10\nv_cos_f32_e64 v21, -|v11| mul:2\nv_sin_f32_e64 v22, v12 clamp\n\
    v_mov_b32 v23, v13\nv_cos_f16 v23, v10\nv_mov_b32 v24, v13\n\
    v_sin_f16_sdwa v24, -v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1\n\
    v_cos_f32 v25, v13\nv_rcp_f64 v[26:27], v[10:11]\nv_sqrt_f64_e64 v[28:29], |v[12:13]|\n\
    v_rsq_f64_e64 v[30:31], v[11:12] mul:2\nv_rcp_f64_e64 v[32:33], -v[12:13] clamp\n\
    v_sqrt_f64 v[34:35], v[10:11]\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

#[test]
fn sin_cos_and_f64_roots_match_the_model_in_every_float_mode() {
    // Quarter turns and their neighbours, integers, tiny turns, the f64 denormal and overflow edges (as high
    // words), infinities and NaNs.
    let special = [
        0u32,
        0x8000_0001,
        0x3e80_0000,
        0x3f00_0001,
        0x3f3f_ffff,
        0x4b00_0001,
        0x3000_0000,
        0x7f80_0000,
        0x7fa0_0001,
        0xffc0_0000,
        0x3400_3800,
        0x000f_ffff,
        0x7fef_ffff,
        0x0010_0000,
        0x3ff0_0000,
        0x0000_0001,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf3, true, true),
        (0x35, false, true),
        (0xe2, true, false),
    ];
    float_kernel_matches(TRANSCENDENTALS, &special, &modes, 16);
}

/// Buffer and global atomics, integer and float, 32 and 64 bits, with and without GLC, lanes of one wave and
/// of several sharing an element, compare-swaps whose compare value is the element's first value, lanes past
/// NUM_RECORDS; and the f64 LDS atomics. The `in` array is the atomics' memory, so it is compared too.
const MEMORY_ATOMICS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\n\
    s_waitcnt vmcnt(0)\n\
    v_and_b32 v2, 7, v0\n\
    v_lshlrev_b32 v2, 3, v2\n\
    buffer_load_dword v23, v2, s[0:3], 0 offen offset:64\n\
    s_waitcnt vmcnt(0)\n\
    v_mov_b32 v20, v10\n\
    buffer_atomic_fmin v20, v2, s[0:3], 0 offen glc\n\
    v_mov_b32 v21, v11\n\
    buffer_atomic_fmax v21, v2, s[0:3], 0 offen offset:4 glc\n\
    v_mov_b32 v22, v12\n\
    buffer_atomic_fcmpswap v[22:23], v2, s[0:3], 0 offen offset:64 glc\n\
    v_mov_b32 v24, v10\n\
    v_mov_b32 v25, v11\n\
    buffer_atomic_fmin_x2 v[24:25], v2, s[0:3], 0 offen offset:128 glc\n\
    v_mov_b32 v26, v12\n\
    v_mov_b32 v27, v13\n\
    buffer_atomic_fmax_x2 v[26:27], v2, s[0:3], 0 offen offset:192\n\
    v_mov_b32 v28, v13\n\
    buffer_atomic_add v28, v2, s[0:3], 0 offen offset:256 glc\n\
    v_lshlrev_b32 v3, 6, v0\n\
    v_mov_b32 v29, v12\n\
    buffer_atomic_inc v29, v3, s[0:3], 0 offen glc\n\
    s_and_b32 s9, s1, 0xffff\n\
    v_mov_b32 v42, s9\n\
    v_add_co_u32 v40, vcc_lo, s0, v2\n\
    v_add_co_ci_u32_e32 v41, vcc_lo, 0, v42, vcc_lo\n\
    v_mov_b32 v30, v10\n\
    v_mov_b32 v31, v11\n\
    global_atomic_cmpswap v30, v[40:41], v[30:31], off offset:320 glc\n\
    global_atomic_smin_x2 v[32:33], v[40:41], v[12:13], off offset:384 glc\n\
    global_atomic_fmax v34, v[40:41], v10, off offset:448 glc\n\
    global_atomic_fcmpswap_x2 v[40:41], v[10:13], off offset:512\n\
    v_lshlrev_b32 v4, 3, v0\n\
    ds_write_b64 v4, v[12:13]\n\
    s_waitcnt lgkmcnt(0)\n\
    s_barrier\n\
    v_and_b32 v5, 7, v0\n\
    v_lshlrev_b32 v5, 3, v5\n\
    ds_min_rtn_f64 v[36:37], v5, v[10:11]\n\
    ds_cmpst_rtn_f64 v[38:39], v5, v[36:37], v[12:13] offset:64\n\
    ds_max_f64 v5, v[12:13] offset:128\n\
    ds_cmpst_f64 v5, v[10:11], v[12:13] offset:192\n\
    s_waitcnt lgkmcnt(0)\n\
    s_barrier\n\
    ds_read_b64 v[36:37], v5 offset:128\n\
    s_waitcnt lgkmcnt(0)\n\
    v_xor_b32 v35, v36, v39\n\
    v_xor_b32 v35, v35, v37\n\
    v_xor_b32 v35, v35, v38\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\n\
    s_endpgm";

/// The f32 and f16 logarithms, exponentials, reciprocals and roots.
const LOG_EXP_ROOTS: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_log_f32 v20, v10\nv_exp_f32 v21, v11\nv_rcp_f32 v22, v12\nv_sqrt_f32 v23, v13\n\
    v_rsq_f32 v24, v10\nv_log_f16 v25, v11\nv_exp_f16 v26, v12\nv_rsq_f16 v27, v13\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\ns_endpgm";

/// The transcendentals with the float engine's fixed-step computations as loops (`rolled_loops`, on
/// everywhere but lavapipe, forced on here): the same results as unrolled.
#[test]
fn transcendentals_as_loops_match_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_0001,
        0x3f80_0000,
        0x3f80_0001,
        0x3f7f_ffff,
        0x4b00_0001,
        0x3000_0000,
        0x7f80_0000,
        0x7fa0_0001,
        0x3400_3800,
        0x000f_ffff,
        0x7fef_ffff,
        0x0010_0000,
        0x3ff0_0000,
        0x42fe_0000,
        0xc2fc_0000,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf3, true, true),
        (0x35, false, true),
    ];
    let rolled = || vulkan().map(|v| v.rolling_loops(true));
    float_kernel_matches_in("gfx1013", rolled, TRANSCENDENTALS, &special, &modes, 16);
    float_kernel_matches_in("gfx1013", rolled, LOG_EXP_ROOTS, &special, &modes, 8);
}

#[test]
fn buffer_global_and_f64_lds_atomics_match_the_model() {
    let special = [
        0u32,
        0x8000_0000,
        0x8000_0001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0x3f80_0000,
        0x000f_ffff,
        0x7ff0_0000,
        0xfff8_0000,
        0x0000_0001,
        0xffff_ffff,
        0x7fff_ffff,
    ];
    // f32 and f16/f64 denormal fields both ways, IEEE_MODE on and off.
    let modes = [
        (0xc0u8, false, false),
        (0x30, true, false),
        (0xf3, true, false),
    ];
    float_kernel_matches(MEMORY_ATOMICS, &special, &modes, 16);
}

/// The cube-map operations with source and output modifiers, v_cvt_pk_u8_f32 and the f16 FMAs with a literal.
const CUBE_PK_U8_FMAK: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_cubeid_f32 v20, v10, v11, v12\nv_cubesc_f32 v21, -v10, |v11|, v12\n\
    v_cubetc_f32 v22, v10, v11, -|v12|\nv_cubema_f32 v23, v10, v11, v12 mul:2\n\
    v_cubema_f32 v24, v12, v10, v11 clamp\nv_mov_b32 v25, v11\nv_cvt_pk_u8_f32 v25, v10, v13, v11\n\
    v_mov_b32 v26, v13\nv_fmamk_f16 v26, v10, 0x3c01, v11\nv_mov_b32 v27, v13\n\
    v_fmaak_f16 v27, v11, v12, 0xbc00\nv_cvt_pk_u8_f32 v28, -|v12|, 2, v13\n\
    v_cubeid_f32 v29, v13, v12, v11\nv_cubesc_f32 v30, v12, v13, v10\nv_cubetc_f32 v31, v11, v13, v12\n\
    v_cubema_f32 v32, v11, v12, v13\nv_mov_b32 v33, 0\nv_mov_b32 v34, 0\nv_mov_b32 v35, 0\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

#[test]
fn cube_ops_pk_u8_and_f16_literal_fmas_match_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_0000,
        0x8000_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x437f_0000,
        0x3f00_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fa0_0001,
        0xffc0_0000,
        0x3c00_bc00,
        0x0001_7c00,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf3, true, true),
        (0x35, false, true),
        (0xe2, true, false),
    ];
    float_kernel_matches(CUBE_PK_U8_FMAK, &special, &modes, 16);
}

/// Every float compare condition on f32 (VOPC into VCC, VOP3 into an SGPR with modifiers) and f16, through
/// v_cndmask.
const COMPARES: &str = "v_lshlrev_b32 v1, 4, v0\n\
    buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
    v_cmp_f_f32 vcc_lo, v10, v11\nv_cndmask_b32 v20, 0, 1, vcc_lo\n\
    v_cmp_lt_f32_e64 s8, -v10, |v12|\nv_cndmask_b32_e64 v21, 0, 1, s8\n\
    v_cmp_eq_f32 vcc_lo, v10, v11\nv_cndmask_b32 v22, 0, 1, vcc_lo\n\
    v_cmp_le_f16 vcc_lo, v11, v12\nv_cndmask_b32 v23, 0, 1, vcc_lo\n\
    v_cmp_gt_f32 vcc_lo, v10, v11\nv_cndmask_b32 v24, 0, 1, vcc_lo\n\
    v_cmp_lg_f32_e64 s8, -v10, |v12|\nv_cndmask_b32_e64 v25, 0, 1, s8\n\
    v_cmp_ge_f32 vcc_lo, v10, v11\nv_cndmask_b32 v26, 0, 1, vcc_lo\n\
    v_cmp_o_f16 vcc_lo, v11, v12\nv_cndmask_b32 v27, 0, 1, vcc_lo\n\
    v_cmp_u_f32 vcc_lo, v10, v11\nv_cndmask_b32 v28, 0, 1, vcc_lo\n\
    v_cmp_nge_f32_e64 s8, -v10, |v12|\nv_cndmask_b32_e64 v29, 0, 1, s8\n\
    v_cmp_nlg_f32 vcc_lo, v10, v11\nv_cndmask_b32 v30, 0, 1, vcc_lo\n\
    v_cmp_ngt_f16 vcc_lo, v11, v12\nv_cndmask_b32 v31, 0, 1, vcc_lo\n\
    v_cmp_nle_f32 vcc_lo, v10, v11\nv_cndmask_b32 v32, 0, 1, vcc_lo\n\
    v_cmp_neq_f32_e64 s8, -v10, |v12|\nv_cndmask_b32_e64 v33, 0, 1, s8\n\
    v_cmp_nlt_f32 vcc_lo, v10, v11\nv_cndmask_b32 v34, 0, 1, vcc_lo\n\
    v_cmp_tru_f16 vcc_lo, v11, v12\nv_cndmask_b32 v35, 0, 1, vcc_lo\n\
    v_lshlrev_b32 v1, 6, v0\n\
    buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
    buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
    buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
    buffer_store_dwordx4 v[32:35], v1, s[4:7], 0 offen offset:48\ns_endpgm";

#[test]
fn float_compares_match_the_model_in_every_float_mode() {
    let special = [
        0u32,
        0x8000_8000,
        1,
        0x807f_83ff,
        0x0080_0400,
        0x3f80_3c00,
        0x7f80_7c00,
        0xff80_fc00,
        0x7fc0_7e00,
        0x7fa0_7d01,
        0x3f80_3c00,
        0xbf80_bc00,
    ];
    let modes = [
        (0xc0u8, false, false),
        (0xf0, true, false),
        (0x30, false, false),
    ];
    float_kernel_matches(COMPARES, &special, &modes, 16);
}

/// v_swap_b32, the relative moves (M0 in range, past the file, the scalar source of v_movreld, the split M0 of
/// v_movrelsd_2), v_permlane16/v_permlanex16 with fetch-inactive and bound_ctrl under a partial EXEC and the quad
/// SADs, in wave32 and wave64.
fn swap_movrel_permlane(wave: u32) -> String {
    let (exec_set, exec_all) = if wave == 32 {
        ("s_mov_b32 exec_lo, 0x5a5a3c3c", "s_mov_b32 exec_lo, -1")
    } else {
        (
            "s_mov_b32 exec_lo, 0x5a5a3c3c\ns_mov_b32 exec_hi, 0xf0f00ff1",
            "s_mov_b64 exec, -1",
        )
    };
    format!(
        "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
         v_mov_b32 v20, v10\nv_mov_b32 v21, v11\nv_swap_b32 v20, v21\n\
         s_mov_b32 m0, 2\nv_movrels_b32 v22, v10\ns_mov_b32 m0, 3\nv_movreld_b32 v20, v13\n\
         s_mov_b32 m0, 0x40002\nv_movrelsd_2_b32 v20, v10\ns_mov_b32 m0, 1\nv_movrelsd_b32 v24, v11\n\
         s_mov_b32 m0, 300\nv_mov_b32 v26, 7\nv_movreld_b32 v26, v10\nv_movrels_b32 v26, v11\n\
         s_mov_b32 m0, 2\nv_movreld_b32 v25, s5\n\
         s_mov_b32 s8, 0x76543210\ns_mov_b32 s9, 0xfedcba98\ns_mov_b32 s10, 0x01234567\n\
         v_mov_b32 v28, -1\nv_mov_b32 v29, -1\nv_mov_b32 v30, -1\nv_mov_b32 v31, -1\n{exec_set}\n\
         v_permlane16_b32 v28, v10, s8, s9\nv_permlanex16_b32 v29, v11, s9, s8 op_sel:[1,0]\n\
         v_permlane16_b32 v30, v12, s10, s8 op_sel:[1,1]\nv_permlanex16_b32 v31, v13, s8, s10 op_sel:[0,1]\n\
         s_mov_b32 m0, 5\nv_movrels_b32 v32, v30\n{exec_all}\n\
         v_qsad_pk_u16_u8 v[34:35], v[10:11], v12, v[12:13]\nv_mqsad_pk_u16_u8 v[36:37], v[11:12], v13, v[10:11]\n\
         v_mqsad_u32_u8 v[40:43], v[10:11], v12, v[10:13]\nv_xor_b32 v44, v35, v37\nv_xor_b32 v44, v44, v40\n\
         v_xor_b32 v44, v44, v41\nv_xor_b32 v44, v44, v42\nv_add_nc_u32 v44, v44, v43\n\
         v_lshlrev_b32 v1, 6, v0\n\
         buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
         buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\n\
         buffer_store_dwordx4 v[28:31], v1, s[4:7], 0 offen offset:32\n\
         buffer_store_dword v32, v1, s[4:7], 0 offen offset:48\n\
         buffer_store_dword v34, v1, s[4:7], 0 offen offset:52\n\
         buffer_store_dword v36, v1, s[4:7], 0 offen offset:56\n\
         buffer_store_dword v44, v1, s[4:7], 0 offen offset:60\ns_endpgm"
    )
}

#[test]
fn swap_relative_moves_and_permlanes_match_the_model_in_both_wave_sizes() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    for wave in [32u32, 64] {
        let words = asm(wave, &swap_movrel_permlane(wave));
        let j = job(&words, wave, 128, (4, 16), |l| {
            vec![0x1000 + l, 0x2000 + 3 * l, 0x3000 ^ l, 0x4000 + 5 * l]
        });
        let m = ModelBackend::default().run(&j).expect("model");
        let v = vulkan.run(&j).expect("vulkan");
        let (mo, vo) = (m.array("out").unwrap(), v.array("out").unwrap());
        for (i, (a, b)) in mo.iter().zip(vo).enumerate() {
            assert_eq!(a, b, "wave{wave}: lane {} output {}", i / 16, i % 16);
        }
        // Spot checks against the instructions' definitions: the swap, v23 = v13 through M0 = 3, a move past
        // the file reads v0 and a write there is dropped.
        let r = &mo[..16];
        assert_eq!((r[0], r[1]), (0x2000, 0x1000));
        assert_eq!(r[3], 0x4000);
        assert_eq!(r[6], 0, "v_movrels past the file reads v0 (lane 0)");
        assert_eq!(v.arrays, m.arrays, "wave{wave}");
    }
}

/// v_mullit_f32 and v_trig_preop_f64 on lanes the model runs (with output modifiers), and the lanes it refuses
/// ending the job as unsupported on both.
#[test]
fn mullit_and_trig_preop_match_the_model_and_refuse_its_lanes() {
    if !have_llvm_mc() {
        return;
    }
    let Some(vulkan) = vulkan() else { return };
    let src = "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
               v_mullit_f32 v20, v10, v11, v12\nv_mullit_f32 v21, -v11, v10, |v13| mul:2\n\
               v_trig_preop_f64 v[22:23], v[10:11], v12\nv_trig_preop_f64 v[24:25], -v[12:13], v10 clamp\n\
               v_lshlrev_b32 v1, 5, v0\nbuffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
               buffer_store_dwordx2 v[24:25], v1, s[4:7], 0 offen offset:16\ns_endpgm";
    let words = asm(32, src);
    let modes = [0xc0u8, 0xf3, 0x31, 0x0e];
    // Lanes none of the four modes refuses: both mullit forms run and neither trig_preop source is a NaN.
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rows = Vec::new();
    let specials = [
        0u32,
        0x8000_0000,
        0x3f80_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0x7fc0_0000,
        1,
    ];
    while rows.len() < 128 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let r: Vec<u32> = (0..4)
            .map(|k| {
                let v = (seed >> (16 * k)) as u32 ^ (seed >> 7) as u32;
                if v % 5 == 0 {
                    specials[(v as usize >> 3) % specials.len()]
                } else {
                    v
                }
            })
            .collect();
        let nan64 =
            |lo: u32, hi: u32| (hi & 0x7ff0_0000) == 0x7ff0_0000 && (hi & 0xf_ffff | lo) != 0;
        let fine = modes.iter().all(|&fm| {
            let m = reference_model::float::Mode {
                float_mode: fm,
                ..reference_model::float::Mode::TITLE
            };
            reference_model::float::mullit_f32(m, r[0], r[1], r[2]).is_some()
                && reference_model::float::mullit_f32(
                    m,
                    r[1] ^ 0x8000_0000,
                    r[0],
                    r[3] & 0x7fff_ffff,
                )
                .is_some()
        }) && !nan64(r[0], r[1])
            && !nan64(r[2], r[3]);
        if fine {
            rows.push(r);
        }
    }
    let model = ModelBackend::default();
    for fm in modes {
        let mut j = job(&words, 32, 128, (4, 8), |l| rows[l as usize].clone());
        j.mode.float_mode = fm;
        let m = model.run(&j).expect("model");
        let v = vulkan
            .run(&j)
            .unwrap_or_else(|e| panic!("mode {fm:#x}: {e}"));
        assert_eq!(v.arrays, m.arrays, "mode {fm:#x}");
    }
    // One refused lane refuses the job on both: an infinite factor, then a NaN trig_preop source.
    for (bad, what) in [
        (
            vec![0x7f80_0000, 0x3f80_0000, 0x3f80_0000, 0],
            "v_mullit_f32",
        ),
        (vec![0, 0x7ff8_0000, 0x3f80_0000, 0], "v_trig_preop_f64"),
    ] {
        let j = job(&words, 32, 128, (4, 8), |l| {
            if l == 77 {
                bad.clone()
            } else {
                rows[l as usize].clone()
            }
        });
        for (name, r) in [("model", model.run(&j)), ("vulkan", vulkan.run(&j))] {
            match r {
                Err(BackendError::Unsupported {
                    instruction,
                    reason,
                }) => assert!(
                    format!("{instruction} {reason}").contains(what),
                    "{name}: {instruction}: {reason}"
                ),
                other => panic!("{name}: {what} lane not refused: {other:?}"),
            }
        }
    }
}

/// gfx10.3's `v_dot2_f32_f16` (op_sel, op_sel_hi, neg_lo, neg_hi, clamp) and `v_dot2c_f32_f16` (plain and
/// DPP) on packed f16 pairs of every class, in every f32 round direction and both formats' denormal settings;
/// with them the integer `v_dot4c_i32_i8` (plain and DPP), the other accumulating gfx10.3 dot product.
#[test]
fn dot2_and_dot4c_match_the_model_in_every_float_mode() {
    let src = "v_lshlrev_b32 v1, 4, v0\n\
        buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
        v_dot2_f32_f16 v20, v10, v11, v12\n\
        v_dot2_f32_f16 v21, v10, v11, v13 op_sel:[1,0,0] op_sel_hi:[0,1,1]\n\
        v_dot2_f32_f16 v22, v11, v12, v10 neg_lo:[1,0,0] neg_hi:[0,1,0]\n\
        v_dot2_f32_f16 v23, v13, v10, v11 clamp\n\
        v_mov_b32 v24, v12\nv_dot2c_f32_f16 v24, v10, v11\n\
        v_mov_b32 v25, v13\n\
        v_dot2c_f32_f16_dpp v25, v10, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n\
        v_mov_b32 v26, v12\nv_dot4c_i32_i8 v26, v10, v11\n\
        v_mov_b32 v27, v13\nv_dot4c_i32_i8_dpp v27, v11, v13 row_shr:1 row_mask:0xf bank_mask:0xf\n\
        v_lshlrev_b32 v1, 6, v0\n\
        buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\n\
        buffer_store_dwordx4 v[24:27], v1, s[4:7], 0 offen offset:16\ns_endpgm";
    let special = [
        0x3c00_bc00u32,
        0x0001_8001,
        0x03ff_0400,
        0x7bff_fbff,
        0x7c00_fc00,
        0x7c00_0000,
        0x7e00_3c00,
        0x3c00_7d01,
        0x0000_8000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0x7fa0_0001,
        0x0000_0001,
        0x4b80_0001,
        0x1400_9400,
    ];
    let modes = [
        (0xf0u8, false, false),
        (0xf5, true, false),
        (0x0a, false, false),
        (0xcf, true, true),
        (0x3b, false, false),
        (0x80, true, false),
    ];
    float_kernel_matches_on("gfx1030", src, &special, &modes, 8);
}

/// `v_cndmask_b32` with abs and neg on its sources in the VOP3, DPP and SDWA forms (bit operations, rule
/// `valu.cndmask_modifiers`), and the operand-less `v_nop`/`v_pipeflush` in VOP3 and DPP forms, which the
/// model runs as nothing.
#[test]
fn cndmask_source_modifiers_and_operandless_forms_match_the_model() {
    let src = "v_lshlrev_b32 v1, 4, v0\n\
        buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
        v_cmp_gt_u32 vcc_lo, v10, v11\nv_cmp_lt_f32_e64 s20, v12, v13\n\
        v_cndmask_b32_e64 v20, -v10, |v11|, vcc_lo\n\
        v_cndmask_b32_e64 v21, -|v12|, -v13, s20\n\
        v_cndmask_b32_dpp v22, -v10, v11, vcc_lo quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n\
        v_cndmask_b32_sdwa v23, |v12|, -v13, vcc_lo dst_sel:DWORD dst_unused:UNUSED_PRESERVE \
        src0_sel:WORD_1 src1_sel:DWORD\n\
        v_nop_e64\nv_nop_dpp quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\nv_pipeflush_e64\n\
        v_lshlrev_b32 v1, 6, v0\n\
        buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen\ns_endpgm";
    let special = [
        0u32,
        0x8000_0000,
        0x7fc0_0000,
        0xffbf_ffff,
        0x3f80_0000,
        0x8000_0001,
    ];
    float_kernel_matches(
        src,
        &special,
        &[(0xf0, true, false), (0x03, false, false)],
        4,
    );
}

/// A backend opened with no pipeline cache (as `fuzz` opens its workers) keeps nothing between jobs and gives
/// the same results; the default one keeps the job's pipeline.
#[test]
fn a_backend_without_a_pipeline_cache_keeps_no_pipeline() {
    if !have_llvm_mc() {
        return;
    }
    let Some(cached) = vulkan() else { return };
    let uncached =
        conformance::vulkan::VulkanBackend::open_with(None, Limits::default(), 0).unwrap();
    let j = job(
        &asm(32, "v_mul_u32_u24 v1, v0, 3\nv_lshlrev_b32 v2, 2, v0\nbuffer_store_dword v1, v2, s[4:7], 0 offen\ns_endpgm"),
        32,
        32,
        (1, 1),
        |l| vec![l],
    );
    let a = cached.run(&j).unwrap();
    let b = uncached.run(&j).unwrap();
    let want: Vec<u32> = (0..32).map(|l| 3 * l).collect();
    assert_eq!(a.array("out").unwrap(), &want[..]);
    assert_eq!(b.array("out").unwrap(), &want[..]);
    assert_eq!(
        (cached.cached_pipelines(), uncached.cached_pipelines()),
        (1, 0)
    );
}
