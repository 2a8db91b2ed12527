//! f32 FMA lane-operations per second: the model in the title mode (FLOAT_MODE 0xc0) and
//! in round-toward-zero with denormals kept (0xf3), beside the host's native `mul_add`.
//!
//! `cargo bench -p reference-model --bench float`; the figures are in the crate README.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use reference_model::float::{self, Mode};
use std::hint::black_box;
use std::time::Instant;

const LANES: usize = 4096;

/// Operands of one pseudo-random wave batch: mostly normal values, some denormals.
fn operands() -> Vec<[u32; 3]> {
    let mut s = 0x853c_49e6_748f_ea9bu64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as u32
    };
    (0..LANES)
        .map(|i| {
            let mut v = [next(), next(), next()];
            if i % 16 == 0 {
                v[0] &= 0x807f_ffff;
            }
            for x in &mut v {
                if *x & 0x7f80_0000 == 0x7f80_0000 {
                    *x ^= 0x4000_0000;
                }
            }
            v
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let ops = operands();
    let mut g = c.benchmark_group("f32_fma");
    g.throughput(Throughput::Elements(LANES as u64));
    for (name, mode) in [
        ("model_0xc0", Mode::TITLE),
        (
            "model_rtz_denorm_0xf3",
            Mode {
                float_mode: 0xf3,
                ..Mode::TITLE
            },
        ),
    ] {
        g.bench_with_input(BenchmarkId::new(name, LANES), &ops, |b, ops| {
            b.iter(|| {
                let mut acc = 0u32;
                for &[x, y, z] in ops.iter() {
                    acc ^= float::fma_f32(black_box(mode), x, y, z);
                }
                acc
            })
        });
    }
    g.bench_with_input(BenchmarkId::new("native_mul_add", LANES), &ops, |b, ops| {
        b.iter(|| {
            let mut acc = 0u32;
            for &[x, y, z] in ops.iter() {
                let r = black_box(f32::from_bits(x)).mul_add(f32::from_bits(y), f32::from_bits(z));
                acc ^= r.to_bits();
            }
            acc
        })
    });
    g.finish();

    // Ratios from the same process, for the README: each loop timed for two seconds, native last.
    let time = |f: &mut dyn FnMut() -> u32| {
        let t = Instant::now();
        let mut n = 0u32;
        while t.elapsed().as_secs_f64() < 2.0 {
            black_box(f());
            n += 1;
        }
        t.elapsed().as_secs_f64() / n as f64
    };
    let model = |mode: Mode| {
        time(&mut || {
            let mut acc = 0u32;
            for &[x, y, z] in ops.iter() {
                acc ^= float::fma_f32(black_box(mode), x, y, z);
            }
            acc
        })
    };
    let t_c0 = model(Mode::TITLE);
    let t_f3 = model(Mode {
        float_mode: 0xf3,
        ..Mode::TITLE
    });
    let t_native = time(&mut || {
        let mut acc = 0u32;
        for &[x, y, z] in ops.iter() {
            let r = black_box(f32::from_bits(x)).mul_add(f32::from_bits(y), f32::from_bits(z));
            acc ^= r.to_bits();
        }
        acc
    });
    let rate = |t: f64| LANES as f64 / t / 1e6;
    println!(
        "f32 FMA: native {:.1} M/s; model 0xc0 {:.1} M/s (1/{:.1} of native); model 0xf3 {:.1} M/s (1/{:.1})",
        rate(t_native),
        rate(t_c0),
        t_c0 / t_native,
        rate(t_f3),
        t_f3 / t_native
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
