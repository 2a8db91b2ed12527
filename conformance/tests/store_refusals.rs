//! `conformance` refuses a damaged store (exit 2, the folder and the reason on stderr) instead of running fewer
//! cells: a suite with kernels and no rows, misnamed row files, an interrupted import. The rules are the
//! measurements crate's (`store` docs); this holds the command to them.

use std::path::Path;
use std::process::Command;

fn conformance(dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .arg("--measurements")
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A store with copies of two bundled suites.
fn store() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["peer-read-lane", "peer-dpp8"] {
        let src = measurements::bundled_data_dir().join(name);
        let dst = tmp.path().join(name);
        std::fs::create_dir(&dst).unwrap();
        for f in ["kernels.toml", "rdna2.csv"] {
            std::fs::copy(src.join(f), dst.join(f)).unwrap();
        }
    }
    tmp
}

#[test]
fn a_suite_without_rows_exits_2_instead_of_counting_0_cells() {
    let s = store();
    std::fs::remove_file(s.path().join("peer-dpp8/rdna2.csv")).unwrap();
    let (code, err) = conformance(s.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("peer-dpp8") && err.contains("no row file"),
        "{err}"
    );
}

#[test]
fn a_misnamed_row_file_exits_2() {
    let s = store();
    std::fs::rename(
        s.path().join("peer-dpp8/rdna2.csv"),
        s.path().join("peer-dpp8/rdna2.csv.old"),
    )
    .unwrap();
    let (code, err) = conformance(s.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("rdna2.csv.old") && err.contains("known target"),
        "{err}"
    );
}

#[test]
fn an_interrupted_import_exits_2_and_leftovers_warn() {
    let s = store();
    std::fs::write(
        s.path().join(".import-1-0.commit"),
        "measurements-import-v1\npeer-dpp8\n",
    )
    .unwrap();
    let (code, err) = conformance(s.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("interrupted after it committed"), "{err}");
    // An unfinished staging folder does not change what is loaded: a warning, and the run goes on.
    std::fs::remove_file(s.path().join(".import-1-0.commit")).unwrap();
    std::fs::create_dir(s.path().join(".tmp-1-0-peer-dpp8")).unwrap();
    let (code, err) = conformance(s.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning") && err.contains(".tmp-1-0-peer-dpp8"),
        "{err}"
    );
}
