//! Property-based fuzzing of the three readers (CSV rows, kernel TOML, peer JSON) and of a whole suite folder:
//! arbitrary bytes and random mutations of real files must give `Ok` or an error, never a panic. Targets aimed at
//! the limits (`measurements::limits`) set launch sizes, array sizes, fixed-array lengths and names to values
//! around and far past them: whatever imports must be within every limit, and every error message stays short.
//! CI runs the default case count; a long run is `PROPTEST_CASES=200000 cargo test --release -p measurements
//! --test fuzz` (figure in the README).

mod common;

use measurements::csvio::parse_rows;
use measurements::kernel::KernelFile;
use measurements::limits;
use measurements::peer::import_peer;
use measurements::Suite;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::OnceLock;

fn sample(rel: &str) -> &'static [u8] {
    static CSV: OnceLock<Vec<u8>> = OnceLock::new();
    static TOML: OnceLock<Vec<u8>> = OnceLock::new();
    static JSON: OnceLock<Vec<u8>> = OnceLock::new();
    let dir = measurements::bundled_data_dir().join("peer-read-lane");
    match rel {
        "csv" => CSV.get_or_init(|| std::fs::read(dir.join("rdna2.csv")).unwrap()),
        "toml" => TOML.get_or_init(|| std::fs::read(dir.join("kernels.toml")).unwrap()),
        _ => JSON.get_or_init(|| std::fs::read(common::peer_dir().join("ReadLane.json")).unwrap()),
    }
}

/// A mutation of a real file: byte flips, a cut, an insertion, a duplicated slice.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, Vec<u8>),
    Repeat(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Cut),
        (
            any::<usize>(),
            prop::collection::vec(
                prop_oneof![
                    Just(b','),
                    Just(b'"'),
                    Just(b'\n'),
                    Just(b'['),
                    Just(b'{'),
                    any::<u8>()
                ],
                1..8
            )
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..200).prop_map(|(i, n)| Mutation::Repeat(i, n)),
    ]
}

fn apply(base: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut v = base.to_vec();
    for m in muts {
        if v.is_empty() {
            break;
        }
        match m {
            Mutation::Flip(i, b) => {
                let i = i % v.len();
                v[i] = *b;
            }
            Mutation::Cut(i) => v.truncate(i % v.len()),
            Mutation::Insert(i, bytes) => {
                let i = i % v.len();
                v.splice(i..i, bytes.iter().copied());
            }
            Mutation::Repeat(i, n) => {
                let i = i % v.len();
                let end = (i + n).min(v.len());
                let piece = v[i..end].to_vec();
                v.splice(i..i, piece);
            }
        }
    }
    v
}

/// `PROPTEST_CASES` when set (long runs), else a CI-sized count.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

fn toml_of(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = KernelFile::parse(Path::new("fuzz.toml"), &text);
}

fn json_of(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = import_peer(Path::new("fuzz.json"), &text);
}

fn sample_json() -> Value {
    serde_json::from_slice(sample("json")).unwrap()
}

/// Imports an edited ReadLane.json: never a panic; what imports is within every limit; an error is short.
fn import_checked(v: &Value) -> Result<(), TestCaseError> {
    match import_peer(Path::new("fuzz.json"), &v.to_string()) {
        Ok(suite) => {
            for k in &suite.kernels.kernels {
                prop_assert!(k.lanes() <= limits::MAX_LANES);
                prop_assert!(k.workgroups() <= limits::MAX_WORKGROUPS);
                prop_assert!(k.memory.len() <= limits::MAX_ARRAYS);
                let total: u64 = k.memory.iter().map(|a| a.bytes as u64).sum();
                prop_assert!(total <= limits::MAX_JOB_BYTES);
                prop_assert!(k.name.len() <= limits::MAX_NAME_BYTES);
            }
            prop_assert!(suite.name().len() <= limits::MAX_NAME_BYTES);
        }
        Err(e) => {
            let m = e.to_string();
            prop_assert!(m.len() < 2000, "a {}-byte message", m.len());
        }
    }
    Ok(())
}

/// A value around a limit or far past it: 0, 1, the limit and its neighbours, powers of two, `u32::MAX`.
fn size(limit: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        (limit.saturating_sub(2)..=limit.saturating_add(2)),
        (0u32..33).prop_map(|b| (1u64 << b).min(u32::MAX as u64)),
        Just(u32::MAX as u64),
        any::<u32>().prop_map(|v| v as u64),
    ]
}

/// A name of any length up to a few times the limit, from letters, digits, separators and odd characters.
fn name() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        Just('a'),
        Just('Z'),
        Just('7'),
        Just('-'),
        Just('_'),
        Just('.'),
        Just(' '),
        Just(';'),
        Just('#'),
        Just('é'),
        Just('\n'),
    ];
    (0usize..4 * limits::MAX_NAME_BYTES, ch).prop_map(|(n, c)| std::iter::repeat_n(c, n).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn csv_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_rows(Path::new("fuzz.csv"), &bytes);
    }

    #[test]
    fn csv_mutated(muts in prop::collection::vec(mutation(), 1..6)) {
        let _ = parse_rows(Path::new("fuzz.csv"), &apply(sample("csv"), &muts));
    }

    #[test]
    fn toml_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        toml_of(&bytes);
    }

    #[test]
    fn toml_mutated(muts in prop::collection::vec(mutation(), 1..6)) {
        toml_of(&apply(sample("toml"), &muts));
    }

    #[test]
    fn json_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        json_of(&bytes);
    }

    #[test]
    fn json_mutated(muts in prop::collection::vec(mutation(), 1..6)) {
        json_of(&apply(sample("json"), &muts));
    }

    #[test]
    fn json_launch_sizes(threads in size(1024), groups in prop::collection::vec(size(limits::MAX_WORKGROUPS), 0..5),
                         rpd in size(limits::MAX_LANES)) {
        let mut v = sample_json();
        v["kernels"][0]["threads"] = json!(threads);
        for c in v["cases"].as_array_mut().unwrap() {
            c["groups"] = json!(groups);
            c["rows_per_dispatch"] = json!(rpd);
        }
        import_checked(&v)?;
    }

    #[test]
    fn json_memory_sizes(arrays in prop::collection::vec(size(limits::MAX_ARRAY_BYTES as u64), 0..80)) {
        let mut v = sample_json();
        let memory = v["kernels"][0]["memory"].as_array_mut().unwrap();
        for (i, bytes) in arrays.iter().enumerate() {
            memory.push(json!({"name": format!("a{i}"), "bytes": bytes, "fill": "00000000"}));
        }
        import_checked(&v)?;
    }

    #[test]
    fn json_names(test in name(), case in name(), kernel in name(), array in name()) {
        for (which, n) in [(0, &test), (1, &case), (2, &kernel), (3, &array)] {
            let mut v = sample_json();
            match which {
                0 => v["test"] = json!(n),
                1 => v["cases"][0]["name"] = json!(n),
                2 => {
                    v["kernels"][0]["name"] = json!(n);
                    for c in v["cases"].as_array_mut().unwrap() {
                        c["kernel"] = json!(n);
                    }
                }
                _ => v["kernels"][0]["memory"][1]["name"] = json!(n),
            }
            import_checked(&v)?;
        }
    }

    #[test]
    fn toml_fixed_arrays(grid in prop::collection::vec(size(limits::MAX_WORKGROUPS), 0..6),
                         tgid in prop::collection::vec(any::<bool>(), 0..6)) {
        let text = String::from_utf8_lossy(sample("toml"))
            .replacen("grid = [1, 1, 1]", &format!("grid = {grid:?}"), 1)
            .replacen("tgid = [false, false, false]", &format!("tgid = {tgid:?}"), 1);
        match KernelFile::parse(Path::new("fuzz.toml"), &text) {
            Ok(f) => {
                prop_assert_eq!(grid.len(), 3);
                prop_assert_eq!(tgid.len(), 3);
                prop_assert!(f.kernels[0].lanes() <= limits::MAX_LANES);
            }
            Err(e) => prop_assert!(e.to_string().len() < 2000),
        }
    }

    #[test]
    fn suite_folder_mutated(toml_muts in prop::collection::vec(mutation(), 0..3),
                            csv_muts in prop::collection::vec(mutation(), 0..3)) {
        // The loader's whole path over a suite folder's files (what `Dataset::load` reads), mutated.
        let files = vec![
            ("kernels.toml".to_string(), apply(sample("toml"), &toml_muts)),
            ("rdna2.csv".to_string(), apply(sample("csv"), &csv_muts)),
        ];
        let _ = Suite::from_files(Path::new("fuzz-suite"), &files);
    }
}
