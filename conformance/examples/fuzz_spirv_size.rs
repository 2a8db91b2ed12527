//! Where the SPIR-V of a fuzz batch goes: the recompiled module's words per kind of fuzz item, for the batches
//! `conformance fuzz` runs. A host driver's compile time bounds the fuzz rate on every device (README,
//! "Differential fuzzing"), and it grows with the module, so this says which guest instructions to make
//! smaller first. It also gives a batch module's dispatcher cases, whose number NVIDIA's compile time grows
//! with too (recompiler README, "Each block leader starts a case").
//!
//! `cargo run --release -p conformance --example fuzz_spirv_size [-- SEED FIRST_BATCH BATCHES [--no-host-floats] [--rolled]]`
//! (default seed 9500 from batch 2015, 20 batches of 16 programs; host fast paths on, as on NVIDIA and
//! lavapipe; `--rolled`: the float engine's fixed-step computations as loops, as on NVIDIA, not lavapipe).
//! No device is needed: the module is compiled, not run.
//!
//! An item's cost is the module's words with the program whole minus its words without that item (programs
//! compiled one per module), summed per kind: a mnemonic, or `<exec>`, `<skip>` and `<loop>` for the items
//! with a body (the body included). Multi-instruction items (the LDS exchange, the LDS float atomic) count
//! under their first instruction (`v_xor_b32`, `v_and_b32`).

use conformance::fuzz::{self as fz, Batch, Item};
use reference_model::isa::{self, Target};
use std::collections::BTreeMap;

/// The recompiled module's words for `programs` of batch `b`.
fn words(b: &Batch, programs: &[Vec<Item>], opts: (bool, bool)) -> Result<usize, String> {
    module(b, programs, opts).map(|m| m.spirv.len())
}

/// The recompiled module for `programs` of batch `b`.
fn module(
    b: &Batch,
    programs: &[Vec<Item>],
    (host_floats, rolled_loops): (bool, bool),
) -> Result<recompiler::Module, String> {
    let job = b.job_of(programs)?;
    let options = recompiler::job::Options {
        // NVIDIA's 48 KiB, so LDS is workgroup memory as on the GPUs.
        shared_bytes: 48 * 1024,
        host_floats,
        rolled_loops,
        ..Default::default()
    };
    recompiler::job::prepare(&job, options)
        .map(|p| p.module)
        .map_err(|e| e.to_string())
}

/// The kind an item counts under.
fn kind(item: &Item, t: Target) -> String {
    match item {
        Item::Inst { words, .. } => isa::decode(t, words, 0)
            .map(|i| i.op.mnemonic().to_string())
            .unwrap_or_else(|e| format!("<undecodable: {e}>")),
        Item::Exec { .. } => "<exec>".into(),
        Item::Skip { .. } => "<skip>".into(),
        Item::Loop { .. } => "<loop>".into(),
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host_floats = !args.iter().any(|a| a == "--no-host-floats");
    let rolled = args.iter().any(|a| a == "--rolled");
    let opts = (host_floats, rolled);
    let nums: Vec<u64> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.parse().map_err(|_| format!("`{a}` is not a number")))
        .collect::<Result<_, _>>()?;
    let (seed, first, batches) = (
        nums.first().copied().unwrap_or(9500),
        nums.get(1).copied().unwrap_or(2015),
        nums.get(2).copied().unwrap_or(20),
    );
    let target = Target::Gfx1013;
    // kind -> (items, words)
    let mut by_kind: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    let (mut batch_words, mut batch_cases, mut frame_words, mut programs, mut alone) =
        (0, 0, 0, 0, 0);
    for index in first..first + batches {
        let b = fz::batch(seed, index, 16, None, target);
        let m = module(&b, &b.programs, opts)?;
        batch_words += m.spirv.len();
        batch_cases += m.cases;
        frame_words += words(&b, &vec![Vec::new(); b.programs.len()], opts)?;
        for p in &b.programs {
            let whole = words(&b, std::slice::from_ref(p), opts)?;
            alone += whole;
            programs += 1;
            for i in 0..p.len() {
                let mut q = p.clone();
                let item = q.remove(i);
                let without = words(&b, &[q], opts)?;
                let e = by_kind.entry(kind(&item, target)).or_default();
                e.0 += 1;
                e.1 += whole as i64 - without as i64;
            }
        }
    }
    println!(
        "seed {seed}, batches {first}..{}, host fast paths {}, loops {}: {programs} programs; a 16-program module {} words \
         and {:.1} dispatcher cases on average ({} words the kernel frame with empty programs); one program alone in a \
         module {} words",
        first + batches,
        if host_floats { "on" } else { "off" },
        if rolled { "rolled" } else { "unrolled" },
        batch_words / batches as usize,
        batch_cases as f64 / batches as f64,
        frame_words / batches as usize,
        alone / programs.max(1),
    );
    let mut rows: Vec<_> = by_kind.into_iter().collect();
    rows.sort_by_key(|(_, (_, w))| -*w);
    let total: i64 = rows.iter().map(|(_, (_, w))| *w).sum();
    println!(
        "{:<24} {:>6} {:>10} {:>8} {:>6}",
        "kind", "items", "words", "per item", "share"
    );
    for (k, (n, w)) in rows.iter().take(40) {
        println!(
            "{k:<24} {n:>6} {w:>10} {:>8.0} {:>5.1}%",
            *w as f64 / *n as f64,
            100.0 * *w as f64 / total.max(1) as f64
        );
    }
    Ok(())
}
