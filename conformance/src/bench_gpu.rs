//! `conformance bench-gpu`: the recompiled kernel's throughput on a float-heavy workload against the same
//! computation in GLSL, on one Vulkan device, in one process.
//!
//! The workload: every lane runs four independent chains of `x = x * a + b` (`v_mul_f32` then `v_add_f32`,
//! two roundings) for `turns` turns of four steps, in the PS5 title mode (MODE 0xc0: round to nearest even,
//! f32 denormals flushed; IEEE_MODE 0, DX10_CLAMP 1). Three versions run it on the same inputs:
//! - the guest kernel (gfx1013 words) recompiled by [`crate::vulkan::VulkanBackend`];
//! - `bench/exact.comp`: the same semantics written by hand in GLSL (host floats under RTE float controls
//!   where they are exact, the mode's rules by hand elsewhere);
//! - `bench/native.comp`: plain GLSL floats (the device's rounding, denormals and contraction).
//!
//! glslang compiles the two GLSL files (`bench/build.sh`; the `.spv` files are in the repository so the
//! command needs no glslang). Each version runs `repeats` times; the fastest dispatch counts (submission to
//! fence, without pipeline creation). The first `check_groups` workgroups of every version are compared
//! with the reference model bit for bit: the recompiled and exact versions must match (exit 1 otherwise),
//! the native one's differing lanes are counted.

use crate::vulkan::VulkanBackend;
use driver::{BufferSpec, ComputeJob};
use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::memory::{bytes_to_dwords, dwords_to_bytes};
use reference_model::exec::{Limits, ModelBackend};
use reference_model::isa::encode::{self as enc, Buf, Src};
use reference_model::isa::{Op, Target};
use std::sync::Arc;
use std::time::Duration;

/// The hand-written exact GLSL, compiled by `bench/build.sh`.
const EXACT: &[u8] = include_bytes!("../bench/exact.spv");
/// The plain GLSL, compiled by `bench/build.sh`.
const NATIVE: &[u8] = include_bytes!("../bench/native.spv");
/// Lanes per workgroup (the GLSL's `local_size_x`).
const THREADS: u32 = 64;
/// `a` and `b` of the chains: 0.9990234375 and 2^-10, so values stay normal and keep rounding.
const A: u32 = 0x3f7f_c000;
const B: u32 = 0x3a80_0000;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Workgroups of 64 lanes.
    pub groups: u32,
    /// Turns of the loop.
    pub turns: u32,
    /// Steps per turn (each a multiply and an add on four chains: 8 float operations per lane).
    pub steps: u32,
    /// Runs of each version; the fastest counts.
    pub repeats: u32,
    /// Workgroups compared with the model.
    pub check_groups: u32,
    /// One lane in this many starts from special values (zeros, denormals, infinities, NaNs, the smallest
    /// normal), so every wave also runs the exact versions' other paths; 0: every lane normal.
    pub special_every: u32,
    /// Guest wave32 waves per guest workgroup: 2 (64 lanes, as the GLSL's workgroups) or 1 (twice the
    /// workgroups of 32 lanes). The same lanes run either way.
    pub waves: u32,
}

/// One version's figures.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Which version.
    pub name: &'static str,
    /// Its fastest dispatch.
    pub best: Duration,
    /// Lanes of the checked workgroups whose four results differ from the model's.
    pub differing_lanes: u32,
    /// What the driver reported about the version's pipeline (register count and the like), where the
    /// device offers VK_KHR_pipeline_executable_properties.
    pub statistics: Vec<driver::Statistic>,
}

/// The guest kernel: load four dwords per lane, the chains, store them.
fn guest_words(turns: u32, steps: u32, threads: u32) -> Result<Vec<u32>, String> {
    const T: Target = Target::Gfx1013;
    let mut w = Vec::new();
    // v1 = byte offset of the lane's 16 bytes: (s8 * threads + v0) * 16.
    w.extend(enc::sop2(
        T,
        Op::SMulI32,
        9,
        Src::s(8),
        Src::int(threads as i32),
    )?);
    w.extend(enc::vop2(T, Op::VAddNcU32, 1, Src::s(9), 0)?);
    w.extend(enc::vop2(T, Op::VLshlrevB32, 1, Src::int(4), 1)?);
    w.extend(enc::mubuf(
        T,
        Op::BufferLoadDwordx4,
        Buf::offen(10, 1, 0, 0),
    )?);
    w.extend(enc::vop1(T, Op::VMovB32, 20, Src::lit(A))?);
    w.extend(enc::vop1(T, Op::VMovB32, 21, Src::lit(B))?);
    w.extend(enc::sopp(T, Op::SWaitcnt, 0)?);
    let turns = u16::try_from(turns).map_err(|_| format!("--turns {turns}: at most 65535"))?;
    w.extend(enc::sopk(T, Op::SMovkI32, 18, turns)?);
    let mut body = Vec::new();
    for _ in 0..steps {
        for v in 10..14u8 {
            body.extend(enc::vop2(T, Op::VMulF32, v, Src::v(v), 20)?);
            body.extend(enc::vop2(T, Op::VAddF32, v, Src::v(v), 21)?);
        }
    }
    let len = body.len() as i32;
    w.extend(body);
    w.extend(enc::sop2(T, Op::SSubU32, 18, Src::s(18), Src::int(1))?);
    w.extend(enc::sopc(T, Op::SCmpLgU32, Src::s(18), Src::int(0))?);
    w.extend(enc::sopp(T, Op::SCbranchScc1, (-(len + 3)) as i16 as u16)?);
    w.extend(enc::mubuf(
        T,
        Op::BufferStoreDwordx4,
        Buf::offen(10, 1, 1, 0),
    )?);
    w.extend(enc::sopp(T, Op::SEndpgm, 0)?);
    Ok(w)
}

/// The guest job over `groups` workgroups of `threads` lanes of `inputs` (four dwords each).
fn guest_job(words: &[u32], groups: u32, threads: u32, inputs: &[[u32; 4]]) -> Job {
    let mut k = Kernel::agc_buffer("bench", words, 32, threads, (4, 4), 0, 0);
    k.grid = [groups, 1, 1];
    k.tgid = [true, false, false];
    k.memory[0].bytes = groups * threads * 16;
    k.memory[1].bytes = groups * threads * 16;
    Job {
        suite: "bench-gpu".into(),
        kernel: Arc::new(k),
        target: "gfx1013".into(),
        mode: FloatMode {
            float_mode: 0xc0,
            ieee: false,
            dx10_clamp: true,
            fp16_ovfl: false,
        },
        dispatch: "0000000000000000".into(),
        lanes: inputs
            .iter()
            .take((groups * threads) as usize)
            .enumerate()
            .map(|(l, v)| (l as u32, v.to_vec()))
            .collect(),
        independent_groups: true,
        addresses: None,
    }
}

/// Inputs: normal values in [0.5, 4), and in one lane of every `special_every` (0: none) special values
/// (zeros, denormals, infinities, NaNs, the smallest normal) so the exact versions' other paths run too.
fn inputs(n: usize, special_every: u32) -> Vec<[u32; 4]> {
    const SPECIAL: [u32; 8] = [
        0,
        0x8000_0000,
        1,
        0x807f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fa0_0001,
        0x0080_0000,
    ];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as u32
    };
    (0..n)
        .map(|i| {
            [0; 4].map(|_| {
                let r = next();
                if special_every != 0 && i % special_every as usize == 5 % special_every as usize {
                    SPECIAL[r as usize % SPECIAL.len()]
                } else {
                    (0x3f00_0000 + (r % (3 << 23))) & 0x7fff_ffff
                }
            })
        })
        .collect()
}

/// Workgroups at most: every Vulkan device dispatches 65,535 in X (`maxComputeWorkGroupCount`), as the GLSL
/// versions do.
pub const MAX_GROUPS: u32 = 65_535;

/// Why `s` cannot run, naming the option: the guest's loop counter is 16 bits, and a wave must end within the
/// model's default budget (the model checks the first workgroups).
pub fn check(s: &Settings) -> Result<(), String> {
    if !(1..=MAX_GROUPS).contains(&s.groups) {
        return Err(format!(
            "--groups {}: 1 to {MAX_GROUPS} (the GLSL versions dispatch them in X, which every Vulkan device \
             allows up to 65,535)",
            s.groups
        ));
    }
    if s.check_groups > s.groups {
        return Err(format!(
            "--check-groups {} is more than --groups {}",
            s.check_groups, s.groups
        ));
    }
    if s.repeats == 0 {
        return Err("--repeats 0: at least one run of each version".into());
    }
    if !(1..=64).contains(&s.steps) {
        return Err(format!("--steps {}: 1 to 64", s.steps));
    }
    if !(1..=2).contains(&s.waves) {
        return Err(format!("--waves {}: 1 or 2", s.waves));
    }
    if !(1..=u16::MAX as u32).contains(&s.turns) {
        return Err(format!(
            "--turns {}: 1 to 65535 (the guest's loop counter is s_movk_i32's 16 bits)",
            s.turns
        ));
    }
    let per_wave = wave_instructions(s.turns, s.steps);
    let limits = Limits::default();
    if per_wave > limits.instructions {
        return Err(format!(
            "--turns {} with --steps {}: a wave would execute {per_wave} instructions, more than the \
             {} the model, which checks the first workgroups, allows one wave",
            s.turns, s.steps, limits.instructions
        ));
    }
    // Every 64 lanes are two wave32 waves, whatever --waves groups them into.
    let checked = per_wave * 2 * s.check_groups as u64;
    if checked > limits.dispatch_instructions {
        return Err(format!(
            "--check-groups {} with --turns {} and --steps {}: the model would execute {checked} \
             instructions, more than the {} it allows one dispatch",
            s.check_groups, s.turns, s.steps, limits.dispatch_instructions
        ));
    }
    Ok(())
}

/// The instructions a wave of the guest kernel executes: per turn 8 float instructions a step and the
/// counter's three, and the frame's ten.
fn wave_instructions(turns: u32, steps: u32) -> u64 {
    turns as u64 * (8 * steps as u64 + 3) + 10
}

/// Runs the three versions on `backend`'s device.
pub fn run(backend: &VulkanBackend, s: Settings) -> Result<Vec<Figure>, String> {
    check(&s)?;
    let threads = 32 * s.waves;
    let per = THREADS / threads;
    let lanes = (s.groups * THREADS) as usize;
    let data = inputs(lanes, s.special_every);
    let words = guest_words(s.turns, s.steps, threads)?;
    let check_lanes = (s.check_groups * THREADS) as usize;
    let model = ModelBackend {
        limits: Limits::default(),
    }
    .run(&guest_job(&words, s.check_groups * per, threads, &data))
    .map_err(|e| format!("model: {e}"))?;
    let want = model.array("out").ok_or("model: no out array")?.to_vec();
    let differing = |got: &[u32]| -> u32 {
        (0..check_lanes)
            .filter(|&l| got.get(4 * l..4 * l + 4) != want.get(4 * l..4 * l + 4))
            .count() as u32
    };
    let mut figures = Vec::new();
    // Register counts explain figures (occupancy); capturing them does not change the code.
    backend.context().set_capture_statistics(true);
    // The recompiled guest kernel.
    let job = guest_job(&words, s.groups * per, threads, &data);
    let mut best = Duration::MAX;
    let mut last = None;
    let mut statistics = Vec::new();
    for _ in 0..s.repeats {
        let (out, t, st) = backend
            .run_timed(&job)
            .map_err(|e| format!("recompiled: {e}"))?;
        best = best.min(t);
        last = Some(out);
        statistics = st;
    }
    let got = last.as_ref().and_then(|o| o.array("out")).unwrap_or(&[]);
    figures.push(Figure {
        name: "recompiled guest kernel",
        best,
        differing_lanes: differing(got),
        statistics,
    });
    // The GLSL versions.
    let input = dwords_to_bytes(&data.concat());
    let push = dwords_to_bytes(&[s.turns, A, B, s.steps]);
    for (name, spv) in [
        ("hand-written exact GLSL", EXACT),
        ("plain GLSL (native floats)", NATIVE),
    ] {
        let spirv = bytes_to_dwords(spv);
        let buffers = [
            BufferSpec::input(&input),
            BufferSpec::output(lanes as u64 * 16),
        ];
        let mut best = Duration::MAX;
        let mut got = Vec::new();
        let mut statistics = Vec::new();
        for _ in 0..s.repeats {
            let r = backend
                .context()
                .run(&ComputeJob {
                    spirv: &spirv,
                    entry: "main",
                    buffers: &buffers,
                    push_constants: &push,
                    workgroups: [s.groups, 1, 1],
                    required_subgroup_size: None,
                    timeout: Duration::from_secs(60),
                })
                .map_err(|e| format!("{name}: {e}"))?;
            best = best.min(r.elapsed);
            got = bytes_to_dwords(r.buffers[1].as_deref().unwrap_or(&[]));
            statistics = r.statistics;
        }
        figures.push(Figure {
            name,
            best,
            differing_lanes: differing(&got),
            statistics,
        });
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_out_of_range_are_named() {
        let ok = Settings {
            groups: 8,
            turns: 1000,
            steps: 4,
            repeats: 1,
            check_groups: 4,
            special_every: 0,
            waves: 2,
        };
        assert_eq!(check(&ok), Ok(()));
        let bad = |f: fn(&mut Settings), want: &str| {
            let mut s = ok;
            f(&mut s);
            let e = check(&s).unwrap_err();
            assert!(e.contains(want), "{e}");
        };
        bad(|s| s.groups = 0, "--groups 0");
        bad(|s| s.groups = u32::MAX, "--groups 4294967295");
        bad(
            |s| s.check_groups = 9,
            "--check-groups 9 is more than --groups 8",
        );
        bad(|s| s.repeats = 0, "--repeats 0");
        bad(|s| s.steps = 65, "--steps 65");
        bad(|s| s.waves = 3, "--waves 3");
        bad(|s| s.turns = 0, "--turns 0");
        bad(|s| s.turns = 65_536, "--turns 65536");
        // The budget's edge: 1941 turns of 64 steps fit in 1,000,000 instructions, 1942 do not.
        bad(
            |s| (s.steps, s.turns) = (64, 1942),
            "a wave would execute 1000140 instructions",
        );
        let mut s = ok;
        (s.steps, s.turns) = (64, 1941);
        assert_eq!(check(&s), Ok(()));
        // 50 groups of two such waves are 99,962,500 instructions for the model, 51 are too many.
        (s.groups, s.check_groups) = (64, 50);
        assert_eq!(check(&s), Ok(()));
        s.check_groups = 51;
        assert!(check(&s).unwrap_err().contains("--check-groups 51"));
    }

    #[test]
    fn a_wave_executes_the_instructions_the_check_counts() {
        let data = inputs(THREADS as usize, 0);
        for (turns, steps) in [(1, 1), (3, 2), (5, 7)] {
            let words = guest_words(turns, steps, THREADS).unwrap();
            let n = wave_instructions(turns, steps);
            let run = |instructions| {
                ModelBackend {
                    limits: Limits {
                        instructions,
                        ..Limits::default()
                    },
                }
                .run(&guest_job(&words, 1, THREADS, &data))
            };
            assert!(
                run(n).is_ok(),
                "{turns} turns, {steps} steps: {n} is too few"
            );
            assert!(
                run(n - 1).is_err(),
                "{turns} turns, {steps} steps: {n} is too many"
            );
        }
    }

    #[test]
    fn the_guest_kernel_decodes_and_the_model_runs_it_like_the_formula() {
        let words = guest_words(2, 4, THREADS).unwrap();
        let data = inputs(THREADS as usize, 16);
        let out = ModelBackend {
            limits: Limits::default(),
        }
        .run(&guest_job(&words, 1, THREADS, &data))
        .unwrap();
        let got = out.array("out").unwrap();
        // A normal lane: eight steps of x * a + b, each rounded, as the host computes them.
        let x = f32::from_bits(data[0][0]);
        let (a, b) = (f32::from_bits(A), f32::from_bits(B));
        let want = (0..8).fold(x, |x, _| {
            let p = x * a;
            p + b
        });
        assert_eq!(got[0], want.to_bits());
        assert_eq!(EXACT.len() % 4, 0);
        assert_eq!(bytes_to_dwords(NATIVE)[0], 0x0723_0203);
    }
}
