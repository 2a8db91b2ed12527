//! What a host compiler spends per kind of fuzz item, fitted from the rows `conformance fuzz --timing FILE`
//! wrote on that host: the cost model behind "the driver's compile bounds the fuzz rate" (README,
//! "Differential fuzzing"), measured on the device itself while the fuzz run counts its programs.
//!
//! `cargo run --release -p conformance --example fuzz_compile_time -- FILE... [--backend PREFIX] [--phase NAME]
//! [--module rolled|unrolled]` (default: the rows of backends whose name starts with `vulkan`, the `pipeline`
//! phase; `--phase run` takes the run's whole time, as lavapipe compiles at its first dispatch). No device is
//! needed: every batch is drawn again from its row's seed, batch, programs, wave and target. `--module` fits
//! against each batch's recompiled module instead: its SPIR-V words and its dispatcher cases
//! (`recompiler::Module::cases`), with the float engine's loops in the form given. The module is the current
//! recompiler's, so for rows timed with an older one this prices today's modules by yesterday's times: use
//! it on rows the same recompiler timed.
//!
//! Only rows whose backend ran the batch once (`calls` = 1) and plain (not `--metamorphic`: its rewritten
//! kernels hold more than the batch's items) are used. Each item is counted under a class of
//! its instructions (below), and the rows' times are fitted by least squares as a constant per batch plus
//! a cost per program and per item of each class. With workers compiling side by side the times include
//! their contention, so the costs are relative to one another on that host, not a single compile's.

use conformance::fuzz::{self as fz, Item};
use reference_model::isa::{self, Target};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;

/// Whether a mnemonic belongs to a class.
type Is = dyn Fn(&str) -> bool;

/// The class an item of instructions `words` counts under: the first that any of its instructions has, in
/// the order of this list (so the LDS atomic item, which starts with VALU address arithmetic, is `lds`).
fn class(words: &[u32], t: Target) -> &'static str {
    let names: Vec<String> = isa::decode_all(t, words)
        .map(|v| v.iter().map(|i| i.op.mnemonic().to_string()).collect())
        .unwrap_or_default();
    const TRANS: [&str; 7] = ["rcp", "rsq", "sqrt", "log", "exp", "sin", "cos"];
    let classes: [(&'static str, &Is); 10] = [
        ("lds", &|n| n.starts_with("ds_")),
        ("buffer", &|n| n.starts_with("buffer_")),
        ("mode", &|n| n == "s_round_mode" || n == "s_denorm_mode"),
        ("transcendental", &|n| {
            n.strip_prefix("v_")
                .is_some_and(|r| TRANS.iter().any(|t| r.starts_with(t)))
        }),
        ("compare", &|n| n.starts_with("v_cmp")),
        ("packed", &|n| n.starts_with("v_pk_")),
        ("f64", &|n| n.contains("f64")),
        ("f16", &|n| n.contains("f16")),
        ("f32", &|n| n.contains("f32")),
        ("salu", &|n| n.starts_with("s_")),
    ];
    classes
        .iter()
        .find(|(_, is)| names.iter().any(|n| is(n)))
        .map_or("int", |(c, _)| c)
}

/// Adds the items of `items` (bodies included) to `counts`.
fn count(items: &[Item], t: Target, counts: &mut BTreeMap<&'static str, f64>) {
    for it in items {
        let (key, body) = match it {
            Item::Inst { words, .. } => (class(words, t), &[][..]),
            Item::Exec { body, .. } => ("<exec>", &body[..]),
            Item::Skip { body, .. } => ("<skip>", &body[..]),
            Item::Loop { body, .. } => ("<loop>", &body[..]),
        };
        *counts.entry(key).or_default() += 1.0;
        count(body, t, counts);
    }
}

/// Least squares `x` for `a x ~ y` by the normal equations, with Gaussian elimination (partial pivoting);
/// `None` when the columns are dependent.
fn fit(a: &[Vec<f64>], y: &[f64]) -> Option<Vec<f64>> {
    let n = a.first()?.len();
    let mut m = vec![vec![0.0; n + 1]; n];
    for (row, &yv) in a.iter().zip(y) {
        for i in 0..n {
            for j in 0..n {
                m[i][j] += row[i] * row[j];
            }
            m[i][n] += row[i] * yv;
        }
    }
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[p][c].abs() < 1e-9 {
            return None;
        }
        m.swap(c, p);
        let pivot = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, pv) in row.iter_mut().zip(&pivot) {
                    *x -= f * pv;
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The seconds of `phase` in a row (`run`: the run's whole time).
fn seconds(row: &csv::StringRecord, at: &BTreeMap<&str, usize>, phase: &str) -> Option<f64> {
    if phase == "run" {
        return row.get(at["run_seconds"])?.parse().ok();
    }
    row.get(at["phases"])?.split(';').find_map(|p| {
        let (name, v) = p.split_once('=')?;
        (name == phase).then(|| v.parse().ok()).flatten()
    })
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut files, mut prefix, mut phase) =
        (Vec::new(), "vulkan".to_string(), "pipeline".to_string());
    // Some(rolled): fit against the module's words and cases instead of the item classes.
    let mut module = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--backend" => prefix = args.next().ok_or("--backend needs a name prefix")?,
            "--phase" => phase = args.next().ok_or("--phase needs a name")?,
            "--module" => {
                module = Some(match args.next().as_deref() {
                    Some("rolled") => true,
                    Some("unrolled") => false,
                    _ => return Err("--module needs `rolled` or `unrolled`".into()),
                })
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        return Err(
            "usage: fuzz_compile_time FILE... [--backend PREFIX] [--phase NAME] [--module rolled|unrolled]"
                .into(),
        );
    }
    let mut samples: Vec<(BTreeMap<&'static str, f64>, f64)> = Vec::new();
    for f in &files {
        let mut r = csv::Reader::from_path(f).map_err(|e| format!("{f}: {e}"))?;
        let head = r.headers().map_err(|e| format!("{f}: {e}"))?.clone();
        let at: BTreeMap<&str, usize> = fz::TIMING_COLUMNS
            .iter()
            .map(|c| {
                head.iter()
                    .position(|h| h == *c)
                    .map(|i| (*c, i))
                    .ok_or_else(|| format!("{f}: no column `{c}`"))
            })
            .collect::<Result<_, _>>()?;
        for (line, row) in r.records().enumerate() {
            let row = row.map_err(|e| format!("{f}: {e}"))?;
            let cell = |c: &str| row.get(at[c]).unwrap_or("");
            let num = |c: &str| -> Result<u64, String> {
                cell(c).parse().map_err(|_| {
                    format!("{f}, row {}: {c} `{}` is not a number", line + 2, cell(c))
                })
            };
            if !cell("backend").starts_with(&prefix)
                || num("calls")? != 1
                || cell("metamorphic") != "false"
            {
                continue;
            }
            let Some(secs) = seconds(&row, &at, &phase) else {
                return Err(format!("{f}, row {}: no phase `{phase}`", line + 2));
            };
            let target = Target::from_name(cell("target"))
                .ok_or_else(|| format!("{f}, row {}: target `{}`", line + 2, cell("target")))?;
            let wave = match cell("wave") {
                "" => None,
                w => Some(
                    w.parse()
                        .map_err(|_| format!("{f}, row {}: wave `{w}`", line + 2))?,
                ),
            };
            let programs = num("programs")? as usize;
            let b = fz::batch(num("seed")?, num("batch")?, programs, wave, target);
            let mut counts = BTreeMap::new();
            counts.insert("(batch)", 1.0);
            counts.insert("(program)", programs as f64);
            match module {
                Some(rolled_loops) => {
                    let options = recompiler::job::Options {
                        // NVIDIA's 48 KiB, so LDS is workgroup memory as on the GPUs.
                        shared_bytes: 48 * 1024,
                        host_floats: true,
                        rolled_loops,
                        ..Default::default()
                    };
                    let m = recompiler::job::prepare(&b.job_of(&b.programs)?, options)
                        .map_err(|e| format!("{f}, row {}: {e}", line + 2))?
                        .module;
                    counts.insert("10^5 words", m.spirv.len() as f64 / 1e5);
                    counts.insert("case", f64::from(m.cases));
                }
                None => {
                    for p in &b.programs {
                        count(p, target, &mut counts);
                    }
                }
            }
            samples.push((counts, secs));
        }
    }
    let mut keys: Vec<&'static str> = samples
        .iter()
        .flat_map(|(c, _)| c.keys().copied())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    // With one batch size the cost per program cannot be told from the batch's: it counts in `(batch)`.
    let sizes: Vec<f64> = samples.iter().map(|(c, _)| c["(program)"]).collect();
    if sizes.iter().all(|&n| n == sizes[0]) {
        keys.retain(|&k| k != "(program)");
    }
    let a: Vec<Vec<f64>> = samples
        .iter()
        .map(|(c, _)| {
            keys.iter()
                .map(|k| c.get(k).copied().unwrap_or(0.0))
                .collect()
        })
        .collect();
    let y: Vec<f64> = samples.iter().map(|s| s.1).collect();
    if samples.len() <= keys.len() {
        return Err(format!(
            "{} usable rows for {} unknowns: more batches are needed",
            samples.len(),
            keys.len()
        ));
    }
    let x = fit(&a, &y).ok_or("the classes are not independent in these rows")?;
    let total: f64 = y.iter().sum();
    let mean = total / y.len() as f64;
    let resid: f64 = a
        .iter()
        .zip(&y)
        .map(|(row, yv)| (yv - row.iter().zip(&x).map(|(p, q)| p * q).sum::<f64>()).powi(2))
        .sum();
    let var: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} batches from {} file(s), backend {prefix}*, phase {phase}: {total:.1} s in all, {mean:.3} s a batch; \
         fit R^2 {:.3}",
        samples.len(),
        files.len(),
        1.0 - resid / var.max(1e-12)
    );
    let _ = writeln!(
        out,
        "{:<16} {:>8} {:>12} {:>8}",
        "class", "items", "s per item", "share"
    );
    let mut rows: Vec<(f64, String)> = keys
        .iter()
        .zip(&x)
        .enumerate()
        .map(|(i, (k, c))| {
            let n: f64 = a.iter().map(|row| row[i]).sum();
            (
                c * n,
                format!(
                    "{k:<16} {n:>8.0} {c:>12.5} {:>7.1}%",
                    100.0 * c * n / total.max(1e-12)
                ),
            )
        })
        .collect();
    rows.sort_by(|p, q| q.0.total_cmp(&p.0));
    for (_, line) in rows {
        out.push_str(&line);
        out.push('\n');
    }
    // A reader that closed early (`| head`) is not an error: the fit was made.
    match std::io::stdout().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}
