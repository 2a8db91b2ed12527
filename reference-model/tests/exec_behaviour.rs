//! Interpreter behaviour that is not arithmetic: timeouts, range checks, faults, barriers, ABIs, refusals,
//! and robustness against arbitrary words.

mod common;

use common::{asm, job, test_kernel};
use measurements::job::{BackendError, TimeLimit};
use measurements::kernel::Abi;
use measurements::FloatMode;
use proptest::prelude::*;
use reference_model::exec::{run_job, Limits};
use std::time::{Duration, Instant};

fn run(
    body: &str,
    wave: u32,
    threads: u32,
    inputs: &[[u32; 4]],
) -> Result<Vec<Vec<u32>>, BackendError> {
    let k = test_kernel("gfx1030", body, wave, threads);
    run_job(
        &job(k, "rdna2", FloatMode::TITLE, inputs),
        Limits {
            instructions: 100_000,
            ..Limits::default()
        },
    )
    .map(|o| o.lanes)
}

fn rows(n: usize) -> Vec<[u32; 4]> {
    (0..n as u32)
        .map(|i| [i, i * 3 + 1, 0x1000 + i, 7])
        .collect()
}

#[test]
fn a_runaway_loop_times_out() {
    let e = run("s_branch -1", 32, 32, &rows(32)).unwrap_err();
    match &e {
        BackendError::Timeout {
            limit: TimeLimit::WaveInstructions,
            instructions: 100_000,
            budget: 100_000,
            time_limit: Some(t),
            ..
        } => assert_eq!(*t, Limits::DEFAULT_WALL_CLOCK),
        other => panic!("{other:?}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("a wave executed 100000 instructions, its budget of 100000 per wave")
            && text.contains("of the 60.000 s wall-clock limit"),
        "{text}"
    );
}

/// A loop of 3 x 30,000 instructions: under any wave budget here, but 64 workgroups of it run 5.8 million.
const LONG_LOOP: &str =
    "s_movk_i32 s20, 30000\ns_sub_u32 s20, s20, 1\ns_cmp_lg_u32 s20, 0\ns_cbranch_scc1 -3";

/// Regression: only each wave had a budget, so a grid of many workgroups, each just under it, ran for hours.
#[test]
fn the_whole_dispatch_has_an_instruction_budget() {
    let mut k = test_kernel("gfx1030", LONG_LOOP, 32, 32);
    k.grid = [64, 1, 1];
    let limits = Limits {
        instructions: 1_000_000,
        dispatch_instructions: 500_000,
        wall_clock: None,
        ..Limits::default()
    };
    let e = run_job(&job(k, "rdna2", FloatMode::TITLE, &rows(32)), limits).unwrap_err();
    match &e {
        BackendError::Timeout {
            limit: TimeLimit::DispatchInstructions,
            instructions: 500_000,
            budget: 500_000,
            time_limit: None,
            ..
        } => {}
        other => panic!("{other:?}"),
    }
    let text = e.to_string();
    assert!(
        text.contains(
            "the dispatch executed 500000 instructions, its budget of 500000 for all waves"
        ) && text.contains("no wall-clock limit"),
        "{text}"
    );
}

/// A kernel file may list any number of 64 MiB arrays: past the memory limit the job is refused before
/// anything is allocated, rather than the run dying of out-of-memory.
#[test]
fn a_memory_image_past_the_limit_is_refused() {
    let mut k = test_kernel("gfx1030", "", 32, 32);
    let mut big = k.memory[1].clone();
    big.bytes = 64 << 20;
    for i in 0..64 {
        big.name = format!("big{i}");
        k.memory.push(big.clone());
    }
    let e = run_job(
        &job(k, "rdna2", FloatMode::TITLE, &rows(32)),
        Limits::default(),
    )
    .unwrap_err();
    match &e {
        BackendError::Unsupported {
            instruction,
            reason,
        } => {
            assert!(instruction.contains("66 arrays"), "{instruction}");
            assert!(reason.contains("1073741824 bytes"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_job_past_its_wall_clock_limit_times_out_promptly() {
    let mut k = test_kernel("gfx1030", LONG_LOOP, 32, 32);
    k.grid = [1 << 15, 1, 1];
    let limit = Duration::from_millis(200);
    let limits = Limits {
        instructions: u64::MAX,
        dispatch_instructions: u64::MAX,
        wall_clock: Some(limit),
        ..Limits::default()
    };
    let t = Instant::now();
    let e = run_job(&job(k, "rdna2", FloatMode::TITLE, &rows(32)), limits).unwrap_err();
    let took = t.elapsed();
    match &e {
        BackendError::Timeout {
            limit: TimeLimit::WallClock,
            instructions,
            budget: u64::MAX,
            elapsed,
            time_limit: Some(l),
        } => {
            assert!(
                *elapsed >= limit && *l == limit && *instructions > 0,
                "{e:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The clock is read every few thousand instructions: the job ends close to the limit.
    assert!(took < limit + Duration::from_secs(2), "{took:?}");
    assert!(e.to_string().contains("wall-clock limit (0.2"), "{e}");
}

#[test]
fn buffer_accesses_past_num_records_read_zero_and_drop_stores() {
    // s[8:11]: the input V# with NUM_RECORDS 64 bytes (4 lanes' rows). Lane L loads dword 4L and stores
    // 0x1234 over dword 4L+1 through the same resource; lanes 4.. are out of range.
    let body = "s_mov_b32 s8, s0\ns_mov_b32 s9, s1\ns_mov_b32 s10, 64\ns_mov_b32 s11, s3\n\
                buffer_load_dword v10, v1, s[8:11], 0 offen\n\
                v_mov_b32 v20, 0x1234\n\
                buffer_store_dword v20, v1, s[8:11], 0 offen offset:4\n\
                s_waitcnt vmcnt(0)\n\
                buffer_load_dword v11, v1, s[0:3], 0 offen offset:4\n\
                buffer_load_dwordx4 v[12:15], v1, s[8:11], 0 offen offset:60\n\
                s_waitcnt vmcnt(0)";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    for (lane, o) in out.iter().enumerate() {
        let in_range = lane < 4;
        assert_eq!(
            o[0],
            if in_range { lane as u32 } else { 0 },
            "lane {lane} load"
        );
        assert_eq!(
            o[1],
            if in_range {
                0x1234
            } else {
                lane as u32 * 3 + 1
            },
            "lane {lane} store dropped"
        );
    }
    // Per-dword checking of a dwordx4 at byte 60 of lane 0: the dword at 60 is in range, the one at 64 out.
    assert_eq!(out[0][2..4], [7, 0]);
}

#[test]
fn a_wild_global_address_faults() {
    let body = "v_mov_b32 v20, 0xdead0000\nv_mov_b32 v21, 0x7\nglobal_load_dword v10, v[20:21], off\ns_waitcnt vmcnt(0)";
    match run(body, 32, 32, &rows(32)).unwrap_err() {
        BackendError::Fault {
            address, reason, ..
        } => {
            assert_eq!(address, 0x7_dead_0000);
            assert!(reason.contains("global_load_dword"), "{reason}");
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn misaligned_lds_access_faults() {
    let body = "v_mov_b32 v20, 2\nds_read_b32 v10, v20\ns_waitcnt lgkmcnt(0)";
    assert!(matches!(
        run(body, 32, 32, &rows(32)).unwrap_err(),
        BackendError::Fault { .. }
    ));
}

#[test]
fn lds_past_the_allocation_reads_zero() {
    // The test kernel has 4096 bytes of LDS.
    let body = "v_mov_b32 v20, 4092\nv_mov_b32 v21, 0x55\nds_write_b32 v20, v21\nds_write_b32 v20, v21 offset:4\n\
                s_waitcnt lgkmcnt(0)\nds_read_b32 v10, v20\nds_read_b32 v11, v20 offset:4\ns_waitcnt lgkmcnt(0)";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    assert_eq!(out[0][..2], [0x55, 0]);
}

#[test]
fn s_barrier_orders_lds_between_waves() {
    // 64 threads in wave32: two waves. Each lane writes its id, waits at the barrier, then reads the lane 32
    // places away, which the other wave wrote.
    let body = "v_lshlrev_b32 v20, 2, v0\nds_write_b32 v20, v0\ns_waitcnt lgkmcnt(0)\ns_barrier\n\
                v_xor_b32 v21, 0x80, v20\nds_read_b32 v10, v21\ns_waitcnt lgkmcnt(0)";
    let out = run(body, 32, 64, &rows(64)).unwrap();
    for (lane, o) in out.iter().enumerate() {
        assert_eq!(o[0], (lane as u32) ^ 32, "lane {lane}");
    }
    // Without the barrier the first wave runs ahead and reads LDS the second has not written.
    let racy = body.replace("s_barrier\n", "");
    let out = run(&racy, 32, 64, &rows(64)).unwrap();
    assert_eq!(out[0][0], 0);
}

#[test]
fn wave64_and_wave32_see_their_lane_ids() {
    for (wave, threads) in [(32, 64), (64, 64), (64, 128)] {
        let out = run(
            "v_mov_b32 v10, v0\nv_mbcnt_lo_u32_b32 v11, -1, 0\nv_mbcnt_hi_u32_b32 v11, -1, v11",
            wave,
            threads,
            &rows(threads as usize),
        )
        .unwrap();
        for (lane, o) in out.iter().enumerate() {
            assert_eq!(o[0], lane as u32);
            assert_eq!(o[1], lane as u32 % wave, "wave{wave} lane {lane}");
        }
    }
}

#[test]
fn oracle_v1_abi_passes_the_kernarg_pointer() {
    // oracle-v1: s[0:1] points at the kernel arguments (here the in and out addresses); each lane loads its
    // four input dwords into v4..v7 and stores v10..v13.
    let src = "s_load_dwordx4 s[4:7], s[0:1], 0\ns_waitcnt lgkmcnt(0)\n\
               v_lshlrev_b32 v1, 4, v0\n\
               global_load_dwordx4 v[4:7], v1, s[4:5]\ns_waitcnt vmcnt(0)\n\
               v_add_nc_u32 v10, v4, v5\nv_mov_b32 v11, v6\nv_mov_b32 v12, s6\nv_mov_b32 v13, 0\n\
               global_store_dwordx4 v1, v[10:13], s[6:7]\ns_endpgm";
    let mut k = test_kernel("gfx1030", "", 32, 32);
    k.abi = Abi::OracleV1;
    k.user_data = ["in.lo", "in.hi", "out.lo", "out.hi"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    k.words = asm("gfx1030", 32, src)
        .into_iter()
        .map(measurements::hex::HexDword)
        .collect();
    let out = run_job(
        &job(k, "rdna2", FloatMode::TITLE, &rows(32)),
        Limits::default(),
    )
    .unwrap();
    for (lane, o) in out.lanes.iter().enumerate() {
        let l = lane as u32;
        assert_eq!(o[..2], [l + l * 3 + 1, 0x1000 + l]);
        assert_ne!(o[2], 0, "the out address is a real mapping");
    }
}

#[test]
fn instructions_the_model_lacks_are_unsupported_with_their_name() {
    let e = run("v_interp_mov_f32 v10, p10, attr0.x", 32, 32, &rows(32)).unwrap_err();
    match e {
        BackendError::Unsupported { instruction, .. } => {
            assert!(instruction.starts_with("v_interp_mov_f32"), "{instruction}")
        }
        other => panic!("{other:?}"),
    }
    let e = run("s_getreg_b32 s20, hwreg(HW_REG_HW_ID)", 32, 32, &rows(32)).unwrap_err();
    assert!(matches!(e, BackendError::Unsupported { .. }), "{e:?}");
}

#[test]
fn the_pc_leaving_the_kernel_is_a_fault() {
    let mut k = test_kernel("gfx1030", "", 32, 32);
    k.words.pop(); // drop s_endpgm
    let e = run_job(
        &job(k, "rdna2", FloatMode::TITLE, &rows(32)),
        Limits::default(),
    )
    .unwrap_err();
    assert!(matches!(e, BackendError::Fault { .. }), "{e:?}");
}

proptest! {
    // Integration tests have no lib.rs beside them, so proptest's default persistence finds no place: keep
    // failing seeds next to this file (tests/<name>.proptest-regressions), where they are read back.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions"
        ))),
        ..ProptestConfig::default()
    })]

    /// Arbitrary words after a valid prologue: any result or typed error, never a panic or a hang.
    #[test]
    fn random_words_never_panic(words in prop::collection::vec(prop_oneof![
        any::<u32>(),
        // Bias toward real encodings: common families' prefixes with random fields.
        any::<u32>().prop_map(|w| 0x7e00_0000 | (w & 0x01ff_ffff)),
        any::<u32>().prop_map(|w| 0xbe80_0000 | (w & 0x007f_ffff)),
        any::<u32>().prop_map(|w| 0xd400_0000 | (w & 0x03ff_ffff)),
        any::<u32>().prop_map(|w| 0xd800_0000 | (w & 0x03ff_ffff)),
        any::<u32>().prop_map(|w| 0xe000_0000 | (w & 0x03ff_ffff)),
        any::<u32>().prop_map(|w| w & 0x7fff_ffff),
    ], 1..40)) {
        let mut k = test_kernel("gfx1030", "", 32, 32);
        let end = k.words.pop().unwrap();
        k.words.extend(words.into_iter().map(measurements::hex::HexDword));
        k.words.push(end);
        let _ = run_job(&job(k, "rdna2", FloatMode::TITLE, &rows(32)), Limits { instructions: 2_000, ..Limits::default() });
    }
}

#[test]
fn cross_lane_operations_follow_the_isa() {
    // v_permlane16: lane l of each 16-lane row reads row lane sel(l) (4 bits per lane from s20 then s21);
    // v_permlanex16 reads from the other row of the pair. Selects here reverse the row.
    let body = "s_mov_b32 s20, 0x89abcdef\ns_mov_b32 s21, 0x01234567\n\
                v_permlane16_b32 v10, v0, s20, s21\nv_permlanex16_b32 v11, v0, s20, s21\n\
                v_writelane_b32 v12, s20, 3\n\
                v_lshlrev_b32 v20, 2, v0\nv_xor_b32 v20, 4, v20\nds_bpermute_b32 v13, v20, v0";
    for wave in [32, 64] {
        let out = run(body, wave, wave, &rows(wave as usize)).unwrap();
        for (lane, o) in out.iter().enumerate() {
            let l = lane as u32;
            assert_eq!(
                o[0],
                (l & !15) + (15 - (l & 15)),
                "permlane16 wave{wave} lane {lane}"
            );
            assert_eq!(
                o[1],
                ((l & !15) ^ 16) + (15 - (l & 15)),
                "permlanex16 wave{wave} lane {lane}"
            );
            assert_eq!(o[2], if lane == 3 { 0x89ab_cdef } else { 0 }, "writelane");
            assert_eq!(o[3], l ^ 1, "bpermute");
        }
    }
}

#[test]
fn ds_permute_scatters_and_unwritten_lanes_read_zero() {
    // Every lane sends its id to lane (id * 2) mod 32: odd lanes receive nothing and read 0.
    let body = "v_lshlrev_b32 v20, 3, v0\nds_permute_b32 v10, v20, v0";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    for (lane, o) in out.iter().enumerate() {
        let want = if lane % 2 == 1 {
            0
        } else {
            (lane as u32 / 2) + 16
        };
        // Lanes l and l + 16 both target 2l mod 32; the higher lane writes last.
        assert_eq!(o[0], want, "lane {lane}");
    }
}

#[test]
fn program_counter_instructions() {
    // s_getpc gives the byte address of the next instruction; s_setpc jumps over a move; s_call and
    // s_setpc return.
    let body = "s_getpc_b64 s[20:21]\n\
                s_add_u32 s20, s20, 12\n\
                s_setpc_b64 s[20:21]\n\
                v_mov_b32 v10, 1\n\
                v_mov_b32 v11, 2\n\
                s_call_b64 s[22:23], 1\n\
                s_branch 2\n\
                v_mov_b32 v12, 3\n\
                s_setpc_b64 s[22:23]\n\
                v_mov_b32 v13, s22";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    assert_eq!(out[0][0], 0, "skipped by s_setpc");
    assert_eq!(out[0][1], 2);
    assert_eq!(out[0][2], 3, "reached through s_call");
    assert_ne!(out[0][3], 0, "the return address");
}

#[test]
fn s_setreg_changes_the_float_mode_of_later_instructions() {
    // 0x00000001 (a denormal) * 1.0: flushed in FLOAT_MODE 0xc0, kept after setting denorm32 to 3.
    let body = "v_mul_f32 v10, 1, 1.0\n\
                s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n\
                v_mul_f32 v11, 1, 1.0\n\
                s_getreg_b32 s20, hwreg(HW_REG_MODE, 0, 8)\nv_mov_b32 v12, s20";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    assert_eq!(out[0][..3], [0, 1, 0xf0]);
}

#[test]
fn format_stores_and_loads_round_trip_integer_formats() {
    // tbuffer with 16_16_UINT writes two 16-bit fields, each saturated to 0xffff when the dword does not fit
    // (rule buffer.store_int_saturate); the load reads them back.
    let body = "v_mov_b32 v20, 0x5678\nv_mov_b32 v21, 0x9abcdef0\n\
                tbuffer_store_format_xy v[20:21], v1, s[4:7], 0 format:[BUF_FMT_16_16_UINT] offen\n\
                s_waitcnt vmcnt(0)\n\
                tbuffer_load_format_xy v[10:11], v1, s[4:7], 0 format:[BUF_FMT_16_16_UINT] offen\n\
                buffer_load_dword v12, v1, s[4:7], 0 offen\n\
                s_waitcnt vmcnt(0)";
    let out = run(body, 32, 32, &rows(32)).unwrap();
    assert_eq!(out[5][..3], [0x5678, 0xffff, 0xffff_5678]);
    // A format code gfx10 does not have is refused, not guessed.
    let e = run(
        "tbuffer_store_format_x v4, v1, s[4:7], 0 format:78 offen",
        32,
        32,
        &rows(32),
    )
    .unwrap_err();
    assert!(matches!(e, BackendError::Unsupported { .. }), "{e:?}");
}

/// The quad SADs slide a 4-byte window over the 8 bytes of source 0 (AMD RDNA 3 ISA guide pseudo-code for
/// V_QSAD_PK_U16_U8, V_MQSAD_PK_U16_U8 and V_MQSAD_U32_U8). Expected values worked by hand: source 0 holds
/// bytes 1..8, so window i differs from the reference 1,2,3,4 by i in each byte.
#[test]
fn quad_sads_slide_over_eight_bytes() {
    let input = [[0x0403_0201, 0x0807_0605, 0x0403_0201, 0x0400_0201]];
    // Unmasked, accumulators 1 and 0xffff: the pk form truncates 0xffff + 12 to 16 bits.
    let o = run(
        "v_mov_b32 v22, 1\nv_mov_b32 v23, 0xffff0000\n\
         v_qsad_pk_u16_u8 v[10:11], v[4:5], v6, v[22:23]",
        32,
        1,
        &input,
    )
    .unwrap();
    assert_eq!(o[0][..2], [0x0004_0001, 0x000b_0008]);
    // Masked: the reference's byte 2 is 0 and is skipped, so window i adds 3i.
    let o = run("v_mqsad_pk_u16_u8 v[10:11], v[4:5], v7, 0", 32, 1, &input).unwrap();
    assert_eq!(o[0][..2], [0x0003_0000, 0x0009_0006]);
    // 32-bit accumulators: 0xffffffff + 0 stays, 1 + 3, 2 + 6, 3 + 9.
    let o = run(
        "v_mov_b32 v20, -1\nv_mov_b32 v21, 1\nv_mov_b32 v22, 2\nv_mov_b32 v23, 3\n\
         v_mqsad_u32_u8 v[10:13], v[4:5], v7, v[20:23]",
        32,
        1,
        &input,
    )
    .unwrap();
    assert_eq!(o[0], vec![0xffff_ffff, 4, 8, 12]);
}

/// ds_wrxchg2_rtn_b32 writes both data registers at the two scaled offsets and returns the old dwords.
#[test]
fn ds_wrxchg2_exchanges_two_dwords() {
    let o = run(
        "v_mov_b32 v20, 0\nds_write2_b32 v20, v4, v5 offset1:1\ns_waitcnt lgkmcnt(0)\n\
         ds_wrxchg2_rtn_b32 v[10:11], v20, v6, v7 offset1:1\ns_waitcnt lgkmcnt(0)\n\
         ds_read2_b32 v[12:13], v20 offset1:1\ns_waitcnt lgkmcnt(0)",
        32,
        1,
        &[[11, 22, 33, 44]],
    )
    .unwrap();
    assert_eq!(o[0], vec![11, 22, 33, 44]);
}

/// The ADDTID forms address offset + M0[15:0] + 4 * lane (CDNA/RDNA ISA guides; M0 bit 16 ignored).
#[test]
fn ds_addtid_addresses_by_lane_and_m0() {
    let o = run(
        "s_mov_b32 m0, 0x10040\nv_mov_b32 v20, 0x1000\nds_write_addtid_b32 v4 offset:16\ns_waitcnt lgkmcnt(0)\n\
         v_lshl_add_u32 v21, v0, 2, 0x50\nds_read_b32 v10, v21\nds_read_addtid_b32 v11 offset:16\n\
         s_waitcnt lgkmcnt(0)",
        32,
        32,
        &rows(32),
    )
    .unwrap();
    for (l, o) in o.iter().enumerate() {
        assert_eq!(o[..2], [l as u32, l as u32], "lane {l}");
    }
}

/// ds_append / ds_consume move the counter at the instruction offset by the active-lane count and return
/// the old value to every active lane (RDNA ISA guides, DS_APPEND / DS_CONSUME).
#[test]
fn ds_append_and_consume_count_active_lanes() {
    let o = run(
        "v_mov_b32 v20, 0\nds_append v10 offset:8\ns_waitcnt lgkmcnt(0)\n\
         s_mov_b32 exec_lo, 0xf\nds_append v11 offset:8\ns_waitcnt lgkmcnt(0)\n\
         s_mov_b32 exec_lo, 1\nds_consume v12 offset:8\ns_waitcnt lgkmcnt(0)\n\
         s_mov_b32 exec_lo, -1\nds_read_b32 v13, v20 offset:8\ns_waitcnt lgkmcnt(0)",
        32,
        32,
        &rows(32),
    )
    .unwrap();
    assert_eq!(o[0], vec![0, 32, 36, 35]);
    assert_eq!(o[3], vec![0, 32, 0, 35]);
    assert_eq!(o[4], vec![0, 0, 0, 35]);
}

/// gfx1013's src2 DS forms combine two LDS dwords: B = A + 4 * stride, the stride from the offset (bit 15
/// clear) or from A's high bits (bit 15 set) (AMD GCN3 ISA guide, DS_ADD_SRC2_U32).
#[test]
fn ds_src2_forms_combine_two_lds_dwords_on_gfx1013() {
    let body = "v_mov_b32 v20, 0\nv_mov_b32 v22, 16\nv_mov_b32 v21, 0x40010\n\
                ds_write2_b32 v20, v4, v5 offset1:3\nds_write2_b32 v22, v6, v7 offset1:2\ns_waitcnt lgkmcnt(0)\n\
                ds_add_src2_u32 v20 offset:3\nds_max_src2_u32 v21 offset:0x8000\ns_waitcnt lgkmcnt(0)\n\
                ds_read_b32 v10, v20\nds_read_b32 v11, v22\ns_waitcnt lgkmcnt(0)";
    let k = test_kernel("gfx1013", body, 32, 1);
    let o = run_job(
        &job(k, "gfx1013", FloatMode::TITLE, &[[100, 23, 7, 9]]),
        Limits::default(),
    )
    .unwrap()
    .lanes;
    assert_eq!(o[0][..2], [123, 9]);
}

/// 64-bit buffer and global atomics carry across the dword boundary and return the old pair with GLC;
/// gfx1030's csub clamps at 0 (RDNA 3 ISA guide, BUFFER_ATOMIC_CSUB_U32).
#[test]
fn wide_buffer_and_global_atomics() {
    let body = "v_mov_b32 v20, 1\nv_mov_b32 v21, 0\n\
                buffer_atomic_add_x2 v[20:21], v1, s[0:3], 0 offen glc\ns_waitcnt vmcnt(0)\n\
                v_mov_b32 v12, v20\nv_mov_b32 v13, v21\n\
                s_and_b32 s9, s1, 0xffff\nv_add_co_u32 v24, vcc_lo, s0, v1\n\
                v_add_co_ci_u32 v25, vcc_lo, s9, 0, vcc_lo\nv_add_co_u32 v24, vcc_lo, v24, 8\n\
                v_add_co_ci_u32 v25, vcc_lo, v25, 0, vcc_lo\n\
                v_mov_b32 v22, 3\nv_mov_b32 v23, 0x80000000\n\
                global_atomic_smin_x2 v[26:27], v[24:25], v[22:23], off glc\n\
                v_mov_b32 v28, 0\nbuffer_atomic_csub v28, v1, s[0:3], 0 offen offset:8 glc\ns_waitcnt vmcnt(0)\n\
                buffer_load_dwordx2 v[10:11], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)\n\
                buffer_load_dwordx2 v[30:31], v1, s[0:3], 0 offen offset:8\ns_waitcnt vmcnt(0)";
    // After: in[0..2] = 0x1_ffffffff + 1; in[2..4] = smin(0x7_00000005, 0x80000000_00000003), then csub 0.
    let o = run(body, 32, 1, &[[0xffff_ffff, 1, 5, 7]]).unwrap();
    assert_eq!(o[0], vec![0, 2, 0xffff_ffff, 1]);
    let o = run(
        &format!("{body}\nv_mov_b32 v10, v26\nv_mov_b32 v11, v27\nv_mov_b32 v12, v30\nv_mov_b32 v13, v31"),
        32,
        1,
        &[[0xffff_ffff, 1, 5, 7]],
    )
    .unwrap();
    // smin returned the old pair (5, 7) and stored (3, 0x80000000); csub returned 3 and stored 3 - 0.
    assert_eq!(o[0], vec![5, 7, 3, 0x8000_0000]);
}

/// gfx1013's scalar stores and atomics write through to memory; s_get_waveid_in_workgroup reads the wave's
/// index (RDNA 1 ISA guide, SMEM chapter).
#[test]
fn gfx1013_scalar_stores_and_atomics() {
    let body = "s_mov_b32 s8, s0\ns_and_b32 s9, s1, 0xffff\ns_mov_b32 s20, 0x1234\n\
                s_store_dword s20, s[8:9], 0x0\ns_mov_b32 s21, 5\ns_atomic_add s21, s[8:9], 0x4 glc\n\
                s_dcache_wb\ns_get_waveid_in_workgroup s22\ns_waitcnt lgkmcnt(0)\n\
                v_mov_b32 v12, s21\nv_mov_b32 v13, s22\n\
                buffer_load_dwordx2 v[10:11], v1, s[0:3], 0 offen\ns_waitcnt vmcnt(0)";
    let k = test_kernel("gfx1013", body, 32, 64);
    let inputs: Vec<[u32; 4]> = (0..64).map(|i| [i, 100 + i, 0, 0]).collect();
    let o = run_job(
        &job(k, "gfx1013", FloatMode::TITLE, &inputs),
        Limits::default(),
    )
    .unwrap()
    .lanes;
    // Each of the two waves stored 0x1234 and added 5 to dword 1 once; wave 0's own load sees its add and
    // the other wave's too if that ran first.
    assert_eq!(o[0][0], 0x1234);
    assert!([105, 110].contains(&o[0][1]), "{:?}", o[0]);
    assert_eq!(o[32][..2], [32, 132], "lane 32 reads its own row");
    assert_eq!(o[0][3], 0);
    assert_eq!(o[32][3], 1, "the second wave's index");
    assert!([100, 105].contains(&o[0][2]) && [100, 105].contains(&o[32][2]));
    assert_ne!(o[0][2], o[32][2], "one wave saw the other's add");
}

/// The 64-bit aperture sources give the shared aperture the flat routing uses (seed 000, measured on gfx1035).
#[test]
fn shared_aperture_sources_read_as_64_bits() {
    let o = run(
        "s_mov_b64 s[20:21], src_shared_base\ns_mov_b64 s[22:23], src_shared_limit\n\
         v_mov_b32 v10, s20\nv_mov_b32 v11, s21\nv_mov_b32 v12, s22\nv_mov_b32 v13, s23",
        32,
        1,
        &rows(1),
    )
    .unwrap();
    assert_eq!(o[0], vec![0, 0x0001_0000, 0xffff_ffff, 0x0001_0000]);
    let e = run("s_mov_b32 s20, src_shared_base", 32, 1, &rows(1)).unwrap_err();
    assert!(matches!(e, BackendError::Unsupported { .. }), "{e:?}");
}

/// gfx1030's global ADDTID forms address SADDR + offset + 4 * lane (RDNA 2 ISA guide).
#[test]
fn global_addtid_addresses_by_lane() {
    let o = run(
        "s_mov_b32 s8, s0\ns_and_b32 s9, s1, 0xffff\n\
         global_load_dword_addtid v10, s[8:9] offset:4\ns_waitcnt vmcnt(0)\n\
         global_store_dword_addtid v0, s[8:9]\ns_waitcnt vmcnt(0)\n\
         v_lshlrev_b32 v21, 2, v0\nbuffer_load_dword v11, v21, s[0:3], 0 offen\ns_waitcnt vmcnt(0)",
        32,
        8,
        &rows(8),
    )
    .unwrap();
    let flat: Vec<u32> = rows(8).concat();
    for (l, o) in o.iter().enumerate() {
        assert_eq!(o[..2], [flat[l + 1], l as u32], "lane {l}");
    }
}
