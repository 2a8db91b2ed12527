//! Differential run of the gfx10 disassembler against llvm-mc 19.
//!
//! `cargo run --release -p reference-model --example isa_diff -- --target gfx1013 --count 200000 --seed 1`
//!
//! Half the candidates are random words per encoding family, half sweep every opcode value of every family with
//! random operands. Prints the outcome counts and the first mismatches.

#[path = "../tests/isa_support/mod.rs"]
mod support;

use std::collections::BTreeMap;

use reference_model::isa::Target;
use support::*;

fn main() {
    let mut target = Target::Gfx1013;
    let mut count = 200_000usize;
    let mut seed = 1u64;
    let mut show = 20usize;
    let mut only: Option<String> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--target" => target = Target::from_name(&v).expect("--target gfx1013|gfx1030"),
            "--count" => count = v.parse().expect("--count N"),
            "--seed" => seed = v.parse().expect("--seed N"),
            "--show" => show = v.parse().expect("--show N"),
            "--family" => only = Some(v),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    let Some(mc) = find_llvm_mc() else {
        eprintln!("llvm-mc not found (set LLVM_MC or install llvm-19)");
        std::process::exit(2);
    };
    let mut rng = Rng(seed);
    let fams: Vec<usize> = (0..FAMILIES.len())
        .filter(|&f| only.as_deref().is_none_or(|o| o == FAMILIES[f].0))
        .collect();
    let cands: Vec<Vec<u32>> = (0..count)
        .map(|k| sweep_or_random(&mut rng, fams[k % fams.len()], k))
        .collect();
    let feeds: Vec<Vec<u32>> = cands.iter().map(|c| feed(target, c)).collect();
    let t0 = std::time::Instant::now();
    let mut results = Vec::with_capacity(count);
    for chunk in feeds.chunks(20_000) {
        results.extend(llvm_batch(&mc, target, chunk));
    }
    let llvm_s = t0.elapsed().as_secs_f64();
    let mut tally: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut total: BTreeMap<Outcome, usize> = BTreeMap::new();
    let mut shown = 0;
    for (k, (c, l)) in cands.iter().zip(&results).enumerate() {
        let (o, msg) = compare(target, c, l);
        *tally
            .entry((FAMILIES[fams[k % fams.len()]].0, o))
            .or_default() += 1;
        *total.entry(o).or_default() += 1;
        if let Some(m) = msg {
            if shown < show {
                println!("MISMATCH {m}");
                shown += 1;
            }
        }
    }
    println!(
        "target {} seed {seed} count {count} (llvm-mc {llvm_s:.1}s)",
        target.name()
    );
    for ((f, o), n) in &tally {
        if *o == Outcome::Mismatch {
            println!("  {f:7} {o:?} {n}");
        }
    }
    let accepted = total.get(&Outcome::Identical).copied().unwrap_or(0)
        + mismatched_accepted(&cands, &results, target);
    println!("totals: {total:?}");
    println!(
        "llvm decodes {accepted}; identical {} ({:.4}%)",
        total.get(&Outcome::Identical).copied().unwrap_or(0),
        100.0 * total.get(&Outcome::Identical).copied().unwrap_or(0) as f64
            / accepted.max(1) as f64
    );
}

fn mismatched_accepted(cands: &[Vec<u32>], results: &[Llvm], target: Target) -> usize {
    cands
        .iter()
        .zip(results)
        .filter(|(c, l)| {
            matches!(l, Llvm::Text(_) | Llvm::Misaligned(..))
                && compare(target, c, l).0 == Outcome::Mismatch
        })
        .count()
}
