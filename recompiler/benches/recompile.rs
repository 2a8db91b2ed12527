//! Recompile time per 1,000 guest instructions: every bundled kernel compiled for its first dispatch (as the
//! vulkan backend compiles it), and a synthetic 50,000-instruction kernel with a conditional branch every
//! 16 instructions, lane-mask compares and cross-lane reads.
//!
//! `cargo bench -p recompiler --bench recompile`; the figures are in the README. Besides criterion's
//! report it prints one line per workload: the best of ten wall times per 1,000 instructions (after ten
//! warm-up runs) and the SPIR-V words per guest instruction.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use measurements::job::{plan_jobs, Job};
use measurements::store::Dataset;
use recompiler::job::{prepare, Options};
use recompiler::Shape;
use reference_model::isa::{self, Target};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// 16 instructions (llvm-mc 19, gfx1013): v_add_nc_u32 v1, v2, v1; v_xor_b32 v2, v1, v3; v_lshlrev_b32 v3,
/// 3, v2; v_and_b32 v4, 0xff, v3; v_mad_u32_u24 v5, v1, v2, v4; v_bfe_u32 v6, v5, 4, 8; v_cmp_gt_u32
/// vcc_lo, v6, v1; v_cndmask_b32 v7, v1, v2, vcc_lo; s_add_u32 s10, s10, 1; s_and_b32 s11, s10, 7;
/// s_cmp_lg_u32 s11, 0; s_cbranch_scc1 1; v_or_b32 v1, v7, v5; v_readfirstlane_b32 s12, v1; v_add3_u32
/// v1, v1, s12, v4; s_nop 0.
const CHUNK: [u32; 20] = [
    0x4a020302, 0x3a040701, 0x34060483, 0x360806ff, 0x000000ff, 0xd5430005, 0x04120501, 0xd5480006,
    0x02210905, 0x7d880306, 0x020e0501, 0x800a810a, 0x870b870a, 0xbf07800b, 0xbf850001, 0x38020b07,
    0x7e180501, 0xd76d0001, 0x04101901, 0xbf800000,
];

/// The synthetic kernel: `CHUNK` 3,125 times (50,000 instructions) and s_endpgm.
fn synthetic() -> Vec<u32> {
    let mut w: Vec<u32> = CHUNK
        .iter()
        .copied()
        .cycle()
        .take(CHUNK.len() * 3125)
        .collect();
    w.push(0xbf81_0000);
    w
}

/// The first dispatch of every bundled kernel (one job per kernel and suite).
fn bundled_jobs() -> Vec<Job> {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).expect("bundled data");
    let mut jobs = Vec::new();
    for suite in ds.suites.values() {
        let mut seen = std::collections::BTreeSet::new();
        for j in plan_jobs(suite) {
            if seen.insert(j.job.kernel.name.clone()) {
                jobs.push(j.job);
            }
        }
    }
    jobs
}

fn instructions(target: Target, words: &[u32]) -> u64 {
    let mut n = 0;
    let mut pc = 0;
    while pc < words.len() {
        match isa::decode(target, words, pc) {
            Ok(i) => pc += i.size as usize,
            Err(_) => pc += 1,
        }
        n += 1;
    }
    n
}

/// The best of ten wall times after ten runs that warm the allocator and caches: the first runs fault in
/// fresh pages for every module until glibc's malloc raises its mmap threshold and reuses freed memory.
fn best_of(mut f: impl FnMut()) -> Duration {
    for _ in 0..10 {
        f();
    }
    (0..10)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let opts = Options {
        shared_bytes: 32 << 10,
        ..Options::default()
    };
    let jobs = bundled_jobs();
    // Kernels the recompiler refuses (float arithmetic) are refused early: only the translated ones count.
    let jobs: Vec<Job> = jobs
        .into_iter()
        .filter(|j| prepare(j, opts).is_ok())
        .collect();
    let bundled: u64 = jobs
        .iter()
        .map(|j| instructions(Target::Gfx1013, &j.kernel.words()))
        .sum();
    let words = synthetic();
    let shape = Shape {
        wave: 32,
        threads: 64,
        groups: [1, 1, 1],
        tgid: [false; 3],
        user_sgprs: 0,
        lds_bytes: 0,
        budget: 1_000_000,
        mode: 0,
        shared_bytes: 32 << 10,
        parallel: false,
        host_floats: false,
        call_helpers: false,
        rolled_loops: false,
    };
    let synth = instructions(Target::Gfx1013, &words);
    let compile_bundled = || {
        for j in &jobs {
            black_box(prepare(j, opts).expect("translated").module.spirv.len());
        }
    };
    let compile_synth = || {
        let m = recompiler::compile(Target::Gfx1013, &words, shape, &[]).expect("translated");
        black_box(m.spirv.len());
    };
    let bundled_words: usize = jobs
        .iter()
        .map(|j| prepare(j, opts).expect("translated").module.spirv.len())
        .sum();
    let synth_words = recompiler::compile(Target::Gfx1013, &words, shape, &[])
        .expect("translated")
        .spirv
        .len();
    for (name, n, size, t) in [
        (
            format!("{} bundled kernels", jobs.len()),
            bundled,
            bundled_words,
            best_of(compile_bundled),
        ),
        (
            "synthetic kernel".to_string(),
            synth,
            synth_words,
            best_of(compile_synth),
        ),
    ] {
        println!(
            "{name}: {n} instructions in {:.1} ms: {:.3} ms per 1,000 instructions, {:.0} SPIR-V words each",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e6 / n as f64,
            size as f64 / n as f64
        );
    }
    let mut g = c.benchmark_group("recompile");
    g.throughput(Throughput::Elements(bundled));
    g.bench_function("bundled", |b| b.iter(compile_bundled));
    g.throughput(Throughput::Elements(synth));
    g.sample_size(10);
    g.bench_function("synthetic_50k", |b| b.iter(compile_synth));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
