//! Decoded instructions per second on a realistic stream (every peer corpus kernel, concatenated and
//! repeated), and in the same run llvm-mc 19's disassembly throughput on the same bytes.
//!
//! `cargo bench -p reference-model --bench decode`; the figures are in the crate README.

#[path = "../tests/isa_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use reference_model::isa::{self, Target};

/// Words of the stream: the corpus kernels back to back until there are at least this many.
const STREAM_WORDS: usize = 200_000;

fn corpus_words() -> Vec<u32> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/peer");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("peer corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut words = Vec::new();
    for f in files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("json");
        for k in v["kernels"].as_array().into_iter().flatten() {
            for w in k["words"].as_array().into_iter().flatten() {
                words.push(u32::from_str_radix(w.as_str().unwrap_or("0"), 16).unwrap_or(0));
            }
        }
    }
    let one = words.clone();
    while words.len() < STREAM_WORDS {
        words.extend_from_slice(&one);
    }
    words
}

/// Best-of-five wall time of `f`.
fn best_of(mut f: impl FnMut()) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let words = corpus_words();
    let target = Target::Gfx1013;
    let n = isa::decode_all(target, &words)
        .expect("corpus decodes")
        .len();
    let mut g = c.benchmark_group("isa");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("decode", |b| {
        b.iter(|| black_box(isa::decode_all(target, black_box(&words))))
    });
    g.bench_function("decode_and_print", |b| {
        b.iter(|| black_box(isa::disassemble(target, black_box(&words))))
    });
    g.finish();

    // The same stream through llvm-mc, timed in this run; both sides print text, so compare
    // llvm-mc with decode_and_print.
    let ours = best_of(|| {
        black_box(isa::disassemble(target, &words).ok());
    });
    let ours_rate = n as f64 / ours.as_secs_f64();
    println!(
        "isa: {n} instructions in {} words; decode+print {:.0} inst/s",
        words.len(),
        ours_rate
    );
    let Some(mc) = support::find_llvm_mc() else {
        println!("llvm-mc not found: no comparison");
        return;
    };
    let mut text = String::with_capacity(words.len() * 20);
    for w in &words {
        for b in w.to_le_bytes() {
            text.push_str(&format!("0x{b:02x} "));
        }
        text.push('\n');
    }
    let path = std::env::temp_dir().join(format!("isa-bench-{}.txt", std::process::id()));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .expect("write llvm-mc input");
    let llvm = best_of(|| {
        let out = std::process::Command::new(&mc)
            .args(["-triple=amdgcn", "-mcpu=gfx1013", "--disassemble"])
            .arg(&path)
            .output()
            .expect("run llvm-mc");
        black_box(out.stdout.len());
    });
    let _ = std::fs::remove_file(&path);
    let llvm_rate = n as f64 / llvm.as_secs_f64();
    println!(
        "isa: llvm-mc {:.0} inst/s (process included); ratio ours/llvm-mc {:.1}x",
        llvm_rate,
        ours_rate / llvm_rate
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
