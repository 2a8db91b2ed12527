//! `oracle collect --backend model` end to end: the rows load into the store with the IDs the kernel, mode,
//! inputs and lane give, pass `conformance --backend model`, shards together equal one unsharded run, and a
//! collection killed with SIGKILL at random points and resumed writes the same files as one never killed.
//!
//! The kill points come from a seed that is printed; `KILL_SEED=<n>` repeats a run. llvm-mc-19 assembles the
//! templates (CI installs llvm-19).

mod common;

use common::Rng;
use measurements::row::Evidence;
use measurements::Dataset;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn have_llvm_mc() -> bool {
    let ok = Command::new("llvm-mc-19").arg("--version").output().is_ok()
        || Path::new("/usr/lib/llvm-19/bin/llvm-mc").exists();
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI needs llvm-mc-19 (Debian llvm-19)"
    );
    if !ok {
        eprintln!("NOTE: llvm-mc-19 is not installed; skipping");
    }
    ok
}

fn oracle(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oracle"))
        .args(args)
        .output()
        .unwrap()
}

/// A template of 108 dispatches (6 modes x 2 waves x 9 chunks of 64 lanes): small enough to run in a moment,
/// long enough that most kill points land between dispatches.
const TEMPLATE: &str = r#"
name = "probe"
about = "v_mul_legacy_f32 and v_add_f32 over two f32 class lists"
settles = ["legacy.zero_product"]
body = """
v_mul_legacy_f32 v10, v4, v5
v_add_f32 v11, v4, v5
v_max_f32 v12, v4, v5
"""
outputs = 3
compare = ["x", "x", "n"]
waves = [32, 64]
lanes = 64
operands = [["f32", "random:10:1"], ["f32", "random:10:2"]]
modes = ["c0/0/1/0", "f0/1/1/0", "c3/0/0/1", "c1/0/1/0", "c2/1/1/0", "30/0/1/0"]
"#;

fn template_file(dir: &Path) -> PathBuf {
    let p = dir.join("probe.toml");
    std::fs::write(&p, TEMPLATE).unwrap();
    p
}

/// Every file under `dir`, by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

#[test]
fn model_rows_load_with_their_ids_and_pass_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let out = tmp.path().join("out");
    let o = oracle(&[
        "collect",
        t.to_str().unwrap(),
        "--backend",
        "model",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("probe: 6912 rows"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let ds = Dataset::load(std::slice::from_ref(&out)).unwrap();
    assert_eq!(ds.row_count(), 24 * 24 * 6 * 2);
    let suite = ds.suites.values().next().unwrap();
    assert_eq!(suite.name(), "oracle-probe");
    for r in suite.rows.values() {
        assert_eq!(r.row.evidence, Evidence::Model);
        assert_eq!(r.row.cells.len(), 3);
        assert_eq!(r.row.target, "gfx1013");
    }
    // Fixed vectors: a template without `[buffers]` keeps its kernel text, kernel and so its measurement IDs
    // (these were the IDs before the buffer extension of the layout existed).
    for (id, kernel, lane) in [
        ("M-1f49462d5730639f", "probe-w32-t64", 0),
        ("M-35a53b3e2a1ef814", "probe-w64-t64", 5),
    ] {
        let r = &suite.rows.get(id).unwrap_or_else(|| panic!("{id}")).row;
        assert_eq!((r.kernel.as_str(), r.lane), (kernel, lane), "{id}");
    }
    // A legacy multiply by +0 gives +0 even beside infinity, NaN and -1 (rule legacy.zero_product).
    let zero_times: Vec<_> = suite
        .rows
        .values()
        .filter(|r| r.row.inputs[0] == 0 && r.row.mode.float_mode == 0xc0)
        .collect();
    assert_eq!(zero_times.len(), 24 * 2);
    assert!(zero_times.iter().all(|r| r.row.cells[0].value == 0));
    // The rows pass the model, and the same collection again finds nothing to do but refuses to overwrite.
    let o = oracle(&[
        "collect",
        t.to_str().unwrap(),
        "--backend",
        "model",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--resume"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ds = Dataset::load(&[out]).unwrap();
    let backends: Vec<Box<dyn measurements::Backend>> =
        vec![Box::new(reference_model::exec::ModelBackend::default())];
    let s = conformance::verify(&ds, &backends, &conformance::Options::default(), |_| {});
    let b = &s.backends[0];
    assert_eq!(
        (b.counts.cells, b.counts.matched, b.counts.mismatched),
        (20736, 20736, 0),
        "{b:?}"
    );
}

/// `t` collected whole into `dir/whole` and in three shards into `dir/shard1..3`.
fn whole_and_shards(dir: &Path, t: &str) -> (PathBuf, Vec<PathBuf>) {
    let whole = dir.join("whole");
    assert!(oracle(&[
        "collect",
        t,
        "--backend",
        "model",
        "--out",
        whole.to_str().unwrap()
    ])
    .status
    .success());
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let d = dir.join(format!("shard{k}"));
        let shard = format!("{k}/3");
        let o = oracle(&[
            "collect",
            t,
            "--backend",
            "model",
            "--out",
            d.to_str().unwrap(),
            "--shard",
            &shard,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        dirs.push(d);
    }
    (whole, dirs)
}

#[test]
fn three_shards_hold_exactly_the_unsharded_rows() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let t = t.to_str().unwrap();
    let (whole, dirs) = whole_and_shards(tmp.path(), t);
    let rows = |ds: &Dataset| -> BTreeMap<String, measurements::row::Row> {
        ds.suites
            .values()
            .flat_map(|s| s.rows.values().map(|r| (r.row.id.clone(), r.row.clone())))
            .collect()
    };
    let merged = Dataset::load(&dirs).unwrap();
    let one = Dataset::load(&[whole]).unwrap();
    let (a, b) = (rows(&merged), rows(&one));
    assert_eq!(a.len(), b.len());
    assert_eq!(a, b);
    // Each shard holds its third (36 of the 108 dispatches, all of 64 lanes).
    for d in &dirs {
        assert_eq!(
            Dataset::load(std::slice::from_ref(d)).unwrap().row_count(),
            6912 / 3
        );
    }
    for bad in ["0/3", "4/3", "1", "a/b", "0/0"] {
        let o = oracle(&[
            "collect",
            t,
            "--backend",
            "model",
            "--out",
            "/nonexistent",
            "--shard",
            bad,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn sigkill_at_random_points_then_resume_gives_the_uninterrupted_files() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let t = t.to_str().unwrap();
    let reference = tmp.path().join("reference");
    let start = Instant::now();
    assert!(oracle(&[
        "collect",
        t,
        "--backend",
        "model",
        "--out",
        reference.to_str().unwrap()
    ])
    .status
    .success());
    let full = start.elapsed();
    let want = files(&reference);
    assert!(
        want.keys().any(|k| k.ends_with("gfx1013.csv")),
        "{:?}",
        want.keys()
    );
    let seed = std::env::var("KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!(
        "kill test: seed {seed} (KILL_SEED={seed} repeats it), a whole collection takes {full:?}"
    );
    let mut rng = Rng(seed);
    let out = tmp.path().join("killed");
    let journal = out.join(".oracle-collect/probe.gfx1013.jsonl");
    let lines = || std::fs::read(&journal).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let resume = || {
        Command::new(env!("CARGO_BIN_EXE_oracle"))
            .args([
                "collect",
                t,
                "--backend",
                "model",
                "--resume",
                "--out",
                out.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Five cycles of four kill points, each cycle resumed to the end and compared with the reference: two
    // kills when the journal has reached a random number of dispatches (between appends; assembling the
    // kernels with llvm-mc is most of a short run and leaves nothing behind), two at a random time after the
    // first append (the final write of the suite included).
    let (mut kills, mut mid_journal) = (0, 0);
    let mut cycle = 0;
    while kills < 20 {
        cycle += 1;
        assert!(
            cycle < 40,
            "seed {seed}: 20 kill points not reached in 40 cycles"
        );
        for k in 0..4 {
            let mut child = resume();
            let begun = Instant::now();
            let running = |c: &mut std::process::Child| c.try_wait().unwrap().is_none();
            if k < 2 {
                let now = lines().min(106);
                let m = now + 1 + (rng.next() % (107 - now) as u64) as usize;
                while lines() < m && running(&mut child) && begun.elapsed() < 10 * full {
                    std::thread::sleep(Duration::from_micros(100));
                }
            } else {
                while !journal.exists() && running(&mut child) && begun.elapsed() < 10 * full {
                    std::thread::sleep(Duration::from_micros(200));
                }
                std::thread::sleep(Duration::from_micros(
                    rng.next() % (full.as_micros() as u64).max(1),
                ));
            }
            let _ = child.kill();
            let status = child.wait().unwrap();
            if status.success() {
                // It ended before the kill point: the whole collection, which must be the reference.
                assert_eq!(
                    files(&out),
                    want,
                    "seed {seed} cycle {cycle}: a run that ended on its own differs"
                );
                break;
            }
            kills += 1;
            if (1..108).contains(&lines()) {
                mid_journal += 1;
            }
        }
        let o = oracle(&[
            "collect",
            t,
            "--backend",
            "model",
            "--resume",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            files(&out),
            want,
            "seed {seed} cycle {cycle}: the resumed collection's files differ"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
    assert!(
        mid_journal >= 5,
        "seed {seed}: only {mid_journal} kills landed between dispatches"
    );
}

#[test]
fn the_store_never_merges_model_rows_with_hardware_rows_under_one_id() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let dry = tmp.path().join("dry");
    assert!(oracle(&[
        "collect",
        t.to_str().unwrap(),
        "--backend",
        "model",
        "--out",
        dry.to_str().unwrap()
    ])
    .status
    .success());
    // The same rows as if measured: the same IDs, evidence hardware.
    let hw = tmp.path().join("hw");
    let suite = hw.join("oracle-probe");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::copy(
        dry.join("oracle-probe/kernels.toml"),
        suite.join("kernels.toml"),
    )
    .unwrap();
    let csv = std::fs::read_to_string(dry.join("oracle-probe/gfx1013.csv")).unwrap();
    std::fs::write(
        suite.join("gfx1013.csv"),
        csv.replace(",model,oracle collect", ",hardware,oracle collect"),
    )
    .unwrap();
    assert!(Dataset::load(std::slice::from_ref(&hw)).is_ok());
    let e = Dataset::load(&[dry, hw]).unwrap_err().to_string();
    assert!(
        e.contains("is both a model row") && e.contains("hardware"),
        "{e}"
    );
}

#[test]
fn merge_of_the_shards_is_the_unsharded_collection_and_conflicts_are_named() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let t = t.to_str().unwrap();
    let (whole, dirs) = whole_and_shards(tmp.path(), t);
    let mut args = vec!["merge".to_string()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let merged = tmp.path().join("merged");
    args.extend(["--out".into(), merged.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = oracle(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        files(&merged),
        files(&whole),
        "merged shards differ from the unsharded collection"
    );
    // A repeat that disagrees in one cell: a conflict naming the ID and both files, nothing written.
    let csv_path = whole.join("oracle-probe/gfx1013.csv");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let line = csv.lines().nth(1).unwrap();
    let fields: Vec<&str> = line.split(',').collect();
    let id = fields[0];
    let mut outputs: Vec<String> = fields[14].split(' ').map(String::from).collect();
    outputs[0] = if outputs[0] == "00000000" {
        "00000001".into()
    } else {
        "00000000".into()
    };
    let changed = line.replace(fields[14], &outputs.join(" "));
    let other = tmp.path().join("other/oracle-probe");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(
        whole.join("oracle-probe/kernels.toml"),
        other.join("kernels.toml"),
    )
    .unwrap();
    std::fs::write(
        other.join("gfx1013.csv"),
        format!("{}\n{changed}\n", csv.lines().next().unwrap()),
    )
    .unwrap();
    let out2 = tmp.path().join("merged2");
    let o = oracle(&[
        "merge",
        whole.to_str().unwrap(),
        tmp.path().join("other").to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(id) && err.contains("gfx1013.csv"), "{err}");
    assert!(!out2.exists());
    // cite: the ID, the inputs, the outputs, the kernel's disassembly, the evidence.
    let o = oracle(&["cite", id, "--measurements", whole.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for want in [
        format!("#### Measurement `{id}`"),
        format!("`{}`", fields[10]),
        "v_mul_legacy_f32".into(),
        "| evidence | model |".into(),
        "```asm".into(),
    ] {
        assert!(text.contains(&want), "cite lacks {want}:\n{text}");
    }
    let o = oracle(&[
        "cite",
        "M-0000000000000000",
        "--measurements",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_files_do_not_depend_on_jobs() {
    if !have_llvm_mc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = template_file(tmp.path());
    let t = t.to_str().unwrap();
    let mut all = Vec::new();
    for jobs in ["1", "3", "8"] {
        let d = tmp.path().join(format!("j{jobs}"));
        let o = oracle(&[
            "collect",
            t,
            "--backend",
            "model",
            "--out",
            d.to_str().unwrap(),
            "--jobs",
            jobs,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        all.push(files(&d));
    }
    assert_eq!(all[0], all[1]);
    assert_eq!(all[0], all[2]);
    let o = oracle(&[
        "collect",
        t,
        "--backend",
        "model",
        "--out",
        "/nonexistent",
        "--jobs",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_template_of_words_makes_the_kernel_its_assembly_makes() {
    if !have_llvm_mc() {
        return;
    }
    // The probe's body as llvm-mc-19 encodes it for gfx1013.
    let words = TEMPLATE.replace(
        "body = \"\"\"\nv_mul_legacy_f32 v10, v4, v5\nv_add_f32 v11, v4, v5\nv_max_f32 v12, v4, v5\n\"\"\"",
        "words = [\"0e140b04\", \"06160b04\", \"20180b04\"]",
    );
    assert_ne!(words, TEMPLATE);
    let (a, b) = (
        templates::Template::parse("asm.toml", TEMPLATE).unwrap(),
        templates::Template::parse("words.toml", &words).unwrap(),
    );
    for wave in [32, 64] {
        let ka = oracle_runner::collect::kernel_words(&a, "gfx1013", wave).unwrap();
        let kb = oracle_runner::collect::kernel_words(&b, "gfx1013", wave).unwrap();
        assert_eq!(ka, kb, "wave{wave}");
    }
}

#[test]
fn every_bundled_template_assembles_for_the_chips_it_targets_and_runs_on_the_model() {
    if !have_llvm_mc() {
        return;
    }
    let all = templates::bundled().unwrap();
    for chip in ["gfx1013", "gfx1030", "gfx1036"] {
        for t in all.iter().filter(|t| t.runs_on(chip)) {
            for &w in &t.waves {
                if let Err(e) = oracle_runner::collect::kernel_words(t, chip, w) {
                    panic!("{} on {chip} wave{w}: {e}", t.name);
                }
            }
        }
    }
    // On the PS5's chip every template runs, each dispatch on the model (a dry run of `collect --all`); on
    // gfx1036 the gfx10.1-only ones are skipped, not failed.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("all");
    let o = oracle(&[
        "collect",
        "--all",
        "--backend",
        "model",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(text.lines().count(), all.len(), "{text}");
    assert!(!text.contains("failed"), "{text}");
    assert_eq!(
        text.matches("skipped").count(),
        1,
        "only dot2 is not on gfx1013: {text}"
    );
    let o = oracle(&[
        "collect",
        "f32-legacy",
        "cross-lane",
        "dot2-f32-f16",
        "--backend",
        "model",
        "--target",
        "gfx1036",
        "--out",
        tmp.path().join("rdna2").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("f32-legacy: skipped: gfx1036 lacks its instructions")
            && text.contains("cross-lane: 128 rows")
            && text.contains("dot2-f32-f16: 69888 rows"),
        "{text}"
    );
}

/// A transcendental's output column carries the registry's tolerance (the last write of the register decides),
/// and conformance counts a value within it apart from the exact matches and one beyond it as a mismatch.
#[test]
fn transcendental_columns_carry_the_registry_tolerance() {
    if !have_llvm_mc() {
        return;
    }
    const T: &str = r#"
name = "trans"
about = "tolerance columns"
settles = ["transcendental.approximation"]
body = """
v_sin_f32 v10, v4
v_mov_b32 v11, v4
v_exp_f32 v12, v4
v_mov_b32 v12, 0
v_mov_b32 v13, 0
v_rcp_f16 v13, v4
"""
outputs = 4
lanes = 64
operands = [["random:64:5"]]
modes = ["c0/0/1/0"]
"#;
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("trans.toml");
    std::fs::write(&t, T).unwrap();
    let out = tmp.path().join("out");
    let o = oracle(&[
        "collect",
        t.to_str().unwrap(),
        "--backend",
        "model",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut ds = Dataset::load(std::slice::from_ref(&out)).unwrap();
    let suite = ds.suites.values_mut().next().unwrap();
    for k in &suite.kernels.kernels {
        let cols: Vec<(u32, u32)> = k.columns.iter().map(|c| (c.index, c.ulp)).collect();
        assert_eq!(cols, [(0, 10), (3, 1)], "{}", k.name);
        assert_eq!(k.columns[1].format, measurements::kernel::TolFormat::F16);
    }
    // Every finite non-zero sine moved 3 ULP (within 10), one f16 reciprocal 2 ULP (beyond 1).
    let mut moved = 0u64;
    for r in suite.rows.values_mut() {
        let v = r.row.cells[0].value;
        if v & 0x7fff_ffff != 0 && v & 0x7f80_0000 != 0x7f80_0000 && v & 0x7fff_ffff < 0x7f00_0000 {
            r.row.cells[0].value = v + 3;
            moved += 1;
        }
    }
    assert!(moved > 30, "{moved}");
    let r = suite.rows.values_mut().next().unwrap();
    r.row.cells[3].value += 2;
    let backends: Vec<Box<dyn measurements::Backend>> =
        vec![Box::new(reference_model::exec::ModelBackend::default())];
    let s = conformance::verify(&ds, &backends, &conformance::Options::default(), |_| {});
    let b = &s.backends[0];
    assert_eq!(
        (b.counts.matched_with_tolerance, b.counts.mismatched),
        (moved, 1),
        "{b:?}"
    );
}
