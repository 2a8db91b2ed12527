//! Lane masks of VOP3-encoded instructions land in the scalar registers the instruction names.
//!
//! VOPC in the VOP3 encoding (`v_cmp_*_e64`, `v_cmp_class_*_e64`) names its scalar destination in the VDST
//! field, word 0 bits [7:0] (RDNA ISA guide, VOP3A: VDST is the destination VGPR, or the SGPR(s) of a VOPC
//! result; LLVM's llvm/test/MC/AMDGPU/gfx10_asm_vopc_e64.s: `v_cmp_f_f32_e64 s[12:13], v1, v2` is
//! `[0x0c,0x00,0x00,0xd4,...]`), one SGPR in wave32 and a pair in wave64; VCC is written only when that field
//! names it. A carry-out (`v_add_co_u32_e64`, VOP3B) names its SGPR(s) in SDST, bits [14:8]. `v_cmpx_*_e64`
//! writes EXEC only. Lanes run with v0 = lane id; every value read back is wave-uniform.

mod common;

use common::{job, test_kernel};
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};

const CPUS: [(&str, &str); 2] = [("gfx1013", "gfx1013"), ("gfx1030", "rdna2")];

/// Runs `body` (after the common prologue) on one wave of `wave` lanes; returns v10..v13 of lane 0, after
/// checking that every lane stored the same values.
fn uniform(cpu: &str, target: &str, wave: u32, body: &str) -> [u32; 4] {
    let k = test_kernel(cpu, body, wave, wave);
    let inputs: Vec<[u32; 4]> = (0..wave).map(|l| [l, 0, 0, 0]).collect();
    let out = run_job(
        &job(k, target, FloatMode::TITLE, &inputs),
        Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{cpu} wave{wave}: {e:?}\n{body}"))
    .lanes;
    assert_eq!(out.len(), wave as usize);
    for (lane, o) in out.iter().enumerate() {
        assert_eq!(o, &out[0], "{cpu} wave{wave} lane {lane} differs\n{body}");
    }
    [out[0][0], out[0][1], out[0][2], out[0][3]]
}

/// The mask of lanes `f` holds for, as the registers hold it: (low dword, high dword; 0 in wave32).
fn mask(wave: u32, f: impl Fn(u32) -> bool) -> (u32, u32) {
    let m = (0..wave).filter(|&l| f(l)).fold(0u64, |m, l| m | 1 << l);
    (m as u32, (m >> 32) as u32)
}

/// Presets s20..s23 and VCC to markers, runs `op` (which writes a mask to `dst`), and returns (dst lo, dst hi,
/// VCC lo, VCC hi). In wave32 "dst hi" is the register after dst, which must keep its marker.
fn run_mask(cpu: &str, target: &str, wave: u32, prep: &str, op: &str, dst: u32) -> [u32; 4] {
    let read = match dst {
        106 => "v_mov_b32 v10, vcc_lo\nv_mov_b32 v11, vcc_hi".to_string(),
        d => format!("v_mov_b32 v10, s{d}\nv_mov_b32 v11, s{}", d + 1),
    };
    let body = format!(
        "{}\n{prep}\n{op}\n{read}\nv_mov_b32 v12, vcc_lo\nv_mov_b32 v13, vcc_hi",
        presets()
    );
    uniform(cpu, target, wave, &body)
}

/// The value s20..s23 and VCC hold before the instruction: register number r reads 0x5a5a0000 | r.
fn marker(r: u32) -> u32 {
    0x5a5a_0000 | r
}

/// Sets s20..s23, VCC_LO and VCC_HI to their markers.
fn presets() -> String {
    [
        (20, "s20"),
        (21, "s21"),
        (22, "s22"),
        (23, "s23"),
        (106, "vcc_lo"),
        (107, "vcc_hi"),
    ]
    .map(|(r, name)| format!("s_mov_b32 {name}, {:#x}", marker(r)))
    .join("\n")
}

/// What run_mask must return: the mask in dst (and dst+1 in wave64), markers elsewhere.
fn expect(wave: u32, dst: u32, m: (u32, u32)) -> [u32; 4] {
    let hi = if wave == 64 { m.1 } else { marker(dst + 1) };
    if dst == 106 {
        [m.0, hi, m.0, hi]
    } else {
        [m.0, hi, marker(106), marker(107)]
    }
}

/// Each case: (setup, instruction with `{d}` for the destination, the lanes the mask holds).
type Case = (&'static str, &'static str, fn(u32) -> bool);

const CASES: [Case; 9] = [
    // The reported kernel: 40 > lane.
    ("v_mov_b32 v5, 40", "v_cmp_gt_u32_e64 {d}, v5, v0", |l| {
        40 > l
    }),
    ("", "v_cmp_gt_i32_e64 {d}, 5, v0", |l| 5 > l),
    // 16-bit compare: only the low halves count.
    (
        "v_or_b32 v24, 0x10000, v0",
        "v_cmp_ge_u16_e64 {d}, v24, 3",
        |l| l >= 3,
    ),
    // 64-bit compare: lane < 20 through the low dword, and the high dwords equal.
    (
        "v_mov_b32 v26, v0\nv_mov_b32 v27, 7\nv_mov_b32 v28, 20\nv_mov_b32 v29, 7",
        "v_cmp_lt_u64_e64 {d}, v[26:27], v[28:29]",
        |l| l < 20,
    ),
    // Float compares (f32, f64, f16) of the lane id converted.
    (
        "v_cvt_f32_u32 v24, v0",
        "v_cmp_lt_f32_e64 {d}, v24, 4.0",
        |l| l < 4,
    ),
    (
        "v_cvt_f64_u32 v[26:27], v0",
        "v_cmp_lt_f64_e64 {d}, v[26:27], 4.0",
        |l| l < 4,
    ),
    (
        "v_cvt_f16_u16 v24, v0",
        "v_cmp_gt_f16_e64 {d}, v24, 4.0",
        |l| l > 4,
    ),
    // v_cmp_class: class bit 6 is +0, which only lane 0 holds.
    (
        "v_cvt_f32_u32 v24, v0",
        "v_cmp_class_f32_e64 {d}, v24, 64",
        |l| l == 0,
    ),
    // Carry-out (VOP3B, SDST field): lane + 0xfffffff0 carries from lane 16 on.
    (
        "v_mov_b32 v23, 0xfffffff0",
        "v_add_co_u32_e64 v21, {d}, v0, v23",
        |l| l >= 16,
    ),
];

#[test]
fn vop3_compares_and_carries_write_the_named_sgprs() {
    for (cpu, target) in CPUS {
        for wave in [32, 64] {
            let sgpr = |r: u32| {
                if wave == 64 {
                    format!("s[{r}:{}]", r + 1)
                } else {
                    format!("s{r}")
                }
            };
            for (prep, op, f) in CASES {
                let m = mask(wave, f);
                for dst in [20, 22] {
                    let inst = op.replace("{d}", &sgpr(dst));
                    let got = run_mask(cpu, target, wave, prep, &inst, dst);
                    assert_eq!(
                        got,
                        expect(wave, dst, m),
                        "{cpu} wave{wave}: {inst} (dst lo, dst hi, vcc lo, vcc hi)"
                    );
                }
            }
        }
    }
}

#[test]
fn vop3_compares_and_carries_to_vcc_write_vcc() {
    for (cpu, target) in CPUS {
        for wave in [32, 64] {
            let vcc = if wave == 64 { "vcc" } else { "vcc_lo" };
            for (prep, op, f) in CASES {
                let inst = op.replace("{d}", vcc);
                let got = run_mask(cpu, target, wave, prep, &inst, 106);
                let want = expect(wave, 106, mask(wave, f));
                // In wave32 VCC_HI keeps its marker.
                assert_eq!(
                    got, want,
                    "{cpu} wave{wave}: {inst} (vcc lo, vcc hi, twice)"
                );
            }
        }
    }
}

#[test]
fn vop3_compares_to_null_write_nothing() {
    for (cpu, target) in CPUS {
        for wave in [32, 64] {
            let got = run_mask(
                cpu,
                target,
                wave,
                "v_mov_b32 v5, 40",
                "v_cmp_gt_u32_e64 null, v5, v0",
                20,
            );
            assert_eq!(
                got,
                [marker(20), marker(21), marker(106), marker(107)],
                "{cpu} wave{wave}: s20, s21 and VCC keep their values"
            );
        }
    }
}

#[test]
fn vop3_cmpx_writes_exec_only() {
    for (cpu, target) in CPUS {
        for wave in [32u32, 64] {
            // The EXEC read back is copied to s30/s31 before EXEC is restored, so every lane stores it.
            let restore = if wave == 64 {
                "s_mov_b32 s30, exec_lo\ns_mov_b32 s31, exec_hi\ns_mov_b32 exec_lo, -1\ns_mov_b32 exec_hi, -1"
            } else {
                "s_mov_b32 s30, exec_lo\ns_mov_b32 s31, 0\ns_mov_b32 exec_lo, -1"
            };
            let body = format!(
                "{}\nv_mov_b32 v20, 37\nv_cmpx_gt_u32_e64 v20, v0\n{restore}\n\
                 v_mov_b32 v10, s30\nv_mov_b32 v11, s31\nv_mov_b32 v12, vcc_lo\nv_mov_b32 v13, s20",
                presets()
            );
            let m = mask(wave, |l| 37 > l);
            assert_eq!(
                uniform(cpu, target, wave, &body),
                [m.0, m.1, marker(106), marker(20)],
                "{cpu} wave{wave}: exec lo, exec hi, vcc lo, s20"
            );
        }
    }
}
