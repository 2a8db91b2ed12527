//! Interpreter throughput: lane-instructions per second of an integer ALU loop (1,024 lanes in wave32: 32
//! waves of one workgroup, 100 iterations of 8 VALU operations), next to the same arithmetic as a native Rust
//! loop in the same run. `cargo bench -p reference-model --bench interp` prints both and their ratio.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use measurements::job::Job;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const LANES: u32 = 1024;
const ITERATIONS: u64 = 100;
const VALU_PER_ITERATION: u64 = 8;

/// Assembled by llvm-mc 19 for gfx1030 (wave32).
const WORDS: &[u32] = &[
    0x34020084, // v_lshlrev_b32_e32 v1, 4, v0
    0xe0381000, 0x80000401, // buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xb0140064, // s_movk_i32 s20, 0x64
    0x4a080b04, // loop: v_add_nc_u32_e32 v4, v4, v5
    0x3a0a0d05, // v_xor_b32_e32 v5, v5, v6
    0x340c0c83, // v_lshlrev_b32_e32 v6, 3, v6
    0xd5690007, 0x00020907, // v_mul_lo_u32 v7, v7, v4
    0x360c0f06, // v_and_b32_e32 v6, v6, v7
    0x4c0a0905, // v_sub_nc_u32_e32 v5, v5, v4
    0x380e0b07, // v_or_b32_e32 v7, v7, v5
    0x4a080f04, // v_add_nc_u32_e32 v4, v4, v7
    0x80948114, // s_sub_u32 s20, s20, 1
    0xbf078014, // s_cmp_lg_u32 s20, 0
    0xbf85fff4, // s_cbranch_scc1 loop
    0xe0781000, 0x80010401, // buffer_store_dwordx4 v[4:7], v1, s[4:7], 0 offen
    0xbf810000, // s_endpgm
];

fn inputs() -> Vec<[u32; 4]> {
    (0..LANES)
        .map(|l| {
            [
                l.wrapping_mul(0x9e37_79b9),
                l ^ 0x5555,
                l + 7,
                l.wrapping_mul(3) | 1,
            ]
        })
        .collect()
}

fn job() -> Job {
    let kernel = Kernel::agc_buffer("alu-loop", WORDS, 32, LANES, (4, 4), 0, 0);
    Job {
        suite: "bench".into(),
        kernel: Arc::new(kernel),
        target: "rdna2".into(),
        mode: FloatMode::TITLE,
        dispatch: "0000000000000000".into(),
        lanes: inputs()
            .into_iter()
            .enumerate()
            .map(|(l, i)| (l as u32, i.to_vec()))
            .collect(),
        independent_groups: false,
        addresses: None,
    }
}

/// The loop body in plain Rust, lane by lane.
fn native(rows: &[[u32; 4]]) -> Vec<[u32; 4]> {
    rows.iter()
        .map(|r| {
            let [mut v4, mut v5, mut v6, mut v7] = *r;
            for _ in 0..ITERATIONS {
                v4 = v4.wrapping_add(v5);
                v5 ^= v6;
                v6 <<= 3;
                v7 = v7.wrapping_mul(v4);
                v6 &= v7;
                v5 = v5.wrapping_sub(v4);
                v7 |= v5;
                v4 = v4.wrapping_add(v7);
            }
            [v4, v5, v6, v7]
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let job = job();
    let rows = inputs();
    // The model must compute what the native loop computes, or the comparison means nothing.
    let model_out = run_job(&job, Limits::default()).expect("the loop runs");
    let native_out = native(&rows);
    for (l, (m, n)) in model_out.lanes.iter().zip(&native_out).enumerate() {
        assert_eq!(&m[..], &n[..], "lane {l}");
    }
    let lane_instructions = LANES as u64 * ITERATIONS * VALU_PER_ITERATION;
    let mut g = c.benchmark_group("integer_alu_loop");
    g.throughput(Throughput::Elements(lane_instructions));
    g.bench_function("model", |b| {
        b.iter(|| run_job(black_box(&job), Limits::default()).unwrap())
    });
    g.bench_function("native", |b| b.iter(|| native(black_box(&rows))));
    g.finish();

    // A direct ratio from the same process, for the README.
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        let mut n = 0u32;
        while t.elapsed().as_secs_f64() < 2.0 {
            f();
            n += 1;
        }
        t.elapsed().as_secs_f64() / n as f64
    };
    let tm = time(&mut || {
        black_box(run_job(black_box(&job), Limits::default()).unwrap());
    });
    let tn = time(&mut || {
        black_box(native(black_box(&rows)));
    });
    println!(
        "integer ALU loop: model {:.1} M lane-instr/s, native {:.1} M lane-instr/s, native/model = {:.1}x",
        lane_instructions as f64 / tm / 1e6,
        lane_instructions as f64 / tn / 1e6,
        tm / tn
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
