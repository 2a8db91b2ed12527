//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The peer corpus (shared/corpus/peer), beside the repository as CI places it.
pub fn peer_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/peer"
    ))
}

/// Every peer JSON file, sorted.
pub fn peer_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(peer_dir())
        .unwrap_or_else(|e| {
            panic!(
                "the peer corpus must sit beside the repository (as CI places ../shared): cannot read {}: {e}",
                peer_dir().display()
            )
        })
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    assert!(
        v.len() >= 24,
        "expected the 24 peer files, found {}",
        v.len()
    );
    v
}

/// Every file under `dir` with its bytes, relative paths sorted.
pub fn tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}
