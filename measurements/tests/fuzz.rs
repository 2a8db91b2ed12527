//! Property-based fuzzing of the three readers (CSV rows, kernel TOML, peer JSON): arbitrary bytes and random
//! mutations of real files must give `Ok` or an error, never a panic. CI runs the default case count; a long
//! run is `PROPTEST_CASES=200000 cargo test --release -p measurements --test fuzz` (figure in the README).

mod common;

use measurements::csvio::parse_rows;
use measurements::kernel::KernelFile;
use measurements::peer::import_peer;
use proptest::prelude::*;
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
}
