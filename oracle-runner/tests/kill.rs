//! `oracle import-peer` killed with SIGKILL at random points (`std::process::Child::kill`) while it replaces an
//! older import: every suite folder must be the old one or the new one, whole, never a mix of files; the store
//! loads as all-old or all-new or is refused as interrupted; and once settled (`measurements::store::recover`,
//! which every import runs first) it is all-old or all-new with nothing left over.
//!
//! The corpus is generated: many small suites, so that most of the run is the writing (where a kill can do
//! damage) rather than the conversion. The seed of the kill points is printed; `KILL_SEED=<n>` repeats a run.

mod common;

use common::Rng;
use measurements::Dataset;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SUITES: usize = 40;
const KILL_POINTS: usize = 24;

fn oracle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oracle"))
}

/// Writes `SUITES` peer files made from ReadLane.json (tests `Kill0`...), their sources at `commit`.
fn corpus(dir: &Path, commit: &str) -> Vec<PathBuf> {
    let base = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/peer/ReadLane.json"
    ));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    (0..SUITES)
        .map(|i| {
            let mut v = v.clone();
            v["test"] = format!("Kill{i}").into();
            v["source"]["commit"] = commit.into();
            let p = dir.join(format!("Kill{i}.json"));
            std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
            p
        })
        .collect()
}

fn import(files: &[PathBuf], out: &Path) -> Command {
    let mut c = oracle();
    c.arg("import-peer")
        .args(files)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Every file under `dir` (relative path -> bytes).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Suite folder name -> its tree, for the visible suite folders of a store.
fn suites(store: &Path) -> BTreeMap<String, BTreeMap<String, Vec<u8>>> {
    std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                tree(&e.path()),
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Version {
    Old,
    New,
}

fn version_of(
    name: &str,
    t: &BTreeMap<String, Vec<u8>>,
    old: &BTreeMap<String, BTreeMap<String, Vec<u8>>>,
    new: &BTreeMap<String, BTreeMap<String, Vec<u8>>>,
) -> Version {
    if old.get(name) == Some(t) {
        Version::Old
    } else if new.get(name) == Some(t) {
        Version::New
    } else {
        panic!(
            "suite {name} is neither the old nor the new one: files {:?}",
            t.keys().collect::<Vec<_>>()
        )
    }
}

#[test]
fn sigkill_at_random_points_leaves_old_or_new_suites_never_a_mix() {
    let tmp = tempfile::tempdir().unwrap();
    let old_files = corpus(&tmp.path().join("old-corpus"), "0000000-old");
    let new_files = corpus(&tmp.path().join("new-corpus"), "1111111-new");

    // The two complete stores every kill must leave (per suite), and how long a whole import takes.
    let template = tmp.path().join("template");
    assert!(import(&old_files, &template).status().unwrap().success());
    let reference = tmp.path().join("reference");
    copy_dir(&template, &reference);
    let started = Instant::now();
    assert!(import(&new_files, &reference).status().unwrap().success());
    let full = started.elapsed();
    let (old, new) = (suites(&template), suites(&reference));
    assert_eq!((old.len(), new.len()), (SUITES, SUITES));
    assert!(old.keys().eq(new.keys()));
    assert!(
        old.iter().all(|(n, t)| new[n] != *t),
        "old and new differ in every suite"
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
        "kill test: seed {seed} (KILL_SEED={seed} repeats it), a whole import takes {full:?}"
    );
    let mut rng = Rng(seed);
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    for point in 0..KILL_POINTS {
        let store = tmp.path().join(format!("store{point}"));
        copy_dir(&template, &store);
        // Anywhere from the start to the end of a whole import.
        let delay = Duration::from_micros(rng.next() % (full.as_micros() as u64 + 1));
        let mut child = import(&new_files, &store).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL on Unix; an error means it had already finished
        let status = child.wait().unwrap();

        // 1. Every visible suite folder is one version, whole. A missing one only while a journal says the
        //    committed import is being finished.
        let now = suites(&store);
        let hidden: Vec<String> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        let journal = hidden.iter().any(|n| n.ends_with(".commit"));
        let versions: Vec<Version> = now
            .iter()
            .map(|(n, t)| version_of(n, t, &old, &new))
            .collect();
        if now.len() != SUITES {
            assert!(
                journal,
                "kill point {point} ({delay:?}): a suite is missing and no journal says why"
            );
        }

        // 2. The loader gives one version of everything, or refuses the interrupted store.
        match Dataset::load(std::slice::from_ref(&store)) {
            Ok(ds) => {
                assert!(!journal, "a store with a journal must not load");
                assert_eq!(ds.suites.len(), SUITES);
                let first = versions[0];
                assert!(
                    versions.iter().all(|v| *v == first),
                    "kill point {point} ({delay:?}): the store loads with old and new suites mixed"
                );
            }
            Err(e) => {
                let m = e.to_string();
                assert!(
                    journal,
                    "kill point {point}: refused without a journal: {m}"
                );
                assert!(m.contains("interrupted after it committed"), "{m}");
            }
        }

        // 3. Settled, it is all-old or all-new (the import as a whole is atomic) with nothing left over.
        measurements::store::recover(&store).unwrap();
        let settled = suites(&store);
        assert_eq!(settled.len(), SUITES, "kill point {point}");
        let versions: Vec<Version> = settled
            .iter()
            .map(|(n, t)| version_of(n, t, &old, &new))
            .collect();
        assert!(
            versions.iter().all(|v| *v == versions[0]),
            "kill point {point} ({delay:?}): after recovery some suites are old and some new"
        );
        let left = std::fs::read_dir(&store).unwrap().count();
        assert_eq!(left, SUITES, "kill point {point}: leftovers after recovery");
        let ds = Dataset::load(std::slice::from_ref(&store)).unwrap();
        assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);

        let what = match (status.success(), versions[0], journal) {
            (true, _, _) => "finished before the kill",
            (false, Version::Old, _) => "killed before the commit: old store",
            (false, Version::New, true) => "killed after the commit: finished by recovery",
            (false, Version::New, false) => "killed while cleaning up: new store",
        };
        *outcomes.entry(what).or_default() += 1;
        std::fs::remove_dir_all(&store).unwrap();
    }
    eprintln!("kill test: {KILL_POINTS} kill points: {outcomes:?}");
}
