//! The peer importer on the real corpus: determinism, ID stability and the committed data being current.

mod common;

use common::{peer_files, tree};
use measurements::peer::{import_peer, import_peer_file};
use measurements::Dataset;
use std::collections::BTreeSet;
use std::path::Path;

fn ids(suite: &measurements::Suite) -> BTreeSet<String> {
    suite.rows.keys().cloned().collect()
}

#[test]
fn importing_twice_gives_identical_files() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for f in peer_files() {
        import_peer_file(&f).unwrap().write(a.path()).unwrap();
        import_peer_file(&f).unwrap().write(b.path()).unwrap();
    }
    let (ta, tb) = (tree(a.path()), tree(b.path()));
    assert_eq!(ta.len(), 48, "24 suites, kernels.toml + rdna2.csv each");
    assert!(ta == tb, "two imports differ");
}

#[test]
fn bundled_data_is_the_current_import_of_the_corpus() {
    let fresh = tempfile::tempdir().unwrap();
    for f in peer_files() {
        import_peer_file(&f).unwrap().write(fresh.path()).unwrap();
    }
    let bundled = tree(&measurements::bundled_data_dir());
    let fresh = tree(fresh.path());
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    let bundled_peer: Vec<(String, Vec<u8>)> = bundled
        .into_iter()
        .filter(|(n, _)| n.starts_with("peer-"))
        .collect();
    assert_eq!(names(&bundled_peer), names(&fresh));
    for ((n, x), (_, y)) in bundled_peer.iter().zip(&fresh) {
        assert!(x == y, "measurements/data/{n} is stale: re-run `oracle import-peer ../shared/corpus/peer/*.json --out measurements/data`");
    }
}

#[test]
fn bundled_data_loads_and_counts() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    assert_eq!(ds.suites.len(), 24);
    // 4,596 transcribed rows; 512 of them repeat another case's measurement (same kernel, mode, dispatch
    // and lane, e.g. "no float mode" and "explicit title mode") and merge into one row each.
    assert_eq!(ds.row_count(), 4084);
    let merged = ds.suites["peer-f32-arithmetic-nan"]
        .rows
        .values()
        .filter(|r| r.row.source.contains(" ; "))
        .count();
    assert_eq!(
        merged, 32,
        "the no-float-mode and IEEE-disabled cases are the same 32 measurements"
    );
    // A known row: lane 0 of F32ArithmeticNan in the title mode, v_add_f32 of a signaling NaN keeps its bits.
    let (_, r) = ds
        .find("M-1b06b043fc6b884e")
        .expect("a cited ID must stay stable");
    assert_eq!(r.row.inputs, vec![0x7f81_2345, 0x3f80_0000, 0x3f80_0000, 0]);
    assert_eq!(r.row.cells[0].value, 0x7f81_2345);
}

#[test]
fn ids_do_not_depend_on_path_or_order() {
    let f = common::peer_dir().join("BufferLoadStore.json");
    let text = std::fs::read_to_string(&f).unwrap();
    let here = import_peer(&f, &text).unwrap();
    let elsewhere = import_peer(Path::new("/some/other/place/renamed.json"), &text).unwrap();
    assert_eq!(ids(&here), ids(&elsewhere));

    // Reverse the kernels, the cases and each case's column order is kept (columns are data, not order).
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["kernels"].as_array_mut().unwrap().reverse();
    v["cases"].as_array_mut().unwrap().reverse();
    let reordered = import_peer(&f, &serde_json::to_string_pretty(&v).unwrap()).unwrap();
    assert_eq!(ids(&here), ids(&reordered));
    for (id, r) in &here.rows {
        assert_eq!(r.row.cells, reordered.rows[id].row.cells, "{id}");
    }
}

#[test]
fn one_changed_word_changes_every_id_of_that_kernel_only() {
    let f = common::peer_dir().join("BufferLoadStore.json");
    let text = std::fs::read_to_string(&f).unwrap();
    let before = import_peer(&f, &text).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let kernel = v["kernels"][0]["name"].as_str().unwrap().to_string();
    // Any bit flip in any word must change the IDs.
    let words = v["kernels"][0]["words"].as_array_mut().unwrap();
    let w = u32::from_str_radix(words[1].as_str().unwrap(), 16).unwrap() ^ 1;
    words[1] = serde_json::Value::String(format!("{w:08x}"));
    let after = import_peer(&f, &v.to_string()).unwrap();
    let of = |s: &measurements::Suite, k: &str| -> BTreeSet<String> {
        s.rows
            .values()
            .filter(|r| r.row.kernel == k)
            .map(|r| r.row.id.clone())
            .collect()
    };
    let (b, a) = (of(&before, &kernel), of(&after, &kernel));
    assert_eq!(b.len(), a.len());
    assert!(!b.is_empty());
    assert!(b.is_disjoint(&a), "every ID of kernel {kernel} must change");
    let others = |s: &measurements::Suite| -> BTreeSet<String> {
        s.rows
            .values()
            .filter(|r| r.row.kernel != kernel)
            .map(|r| r.row.id.clone())
            .collect()
    };
    assert_eq!(
        others(&before),
        others(&after),
        "IDs of the other kernels must not change"
    );
}
