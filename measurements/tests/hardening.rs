//! Regression tests for hostile input: launch sizes whose products wrap, jobs that map too much memory, inputs
//! that never end, huge names, many cases, extra array elements and unknown keys, invalid UTF-8, conflicts that
//! differ only in a mask, and a store left half written. Each test names the limit or rule it holds
//! (`measurements::limits`, `measurements::store` docs).

mod common;

use measurements::job::{BackendError, Job};
use measurements::kernel::{Array, Kernel, KernelFile};
use measurements::limits::{
    MAX_ARRAYS, MAX_ARRAY_BYTES, MAX_JOB_BYTES, MAX_LANES, MAX_NAME_BYTES, MAX_PEER_FILE_BYTES,
    MAX_WORKGROUPS,
};
use measurements::peer::{import_peer, import_peer_file};
use measurements::{Dataset, FloatMode, Suite};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn read_lane() -> (PathBuf, Value) {
    let path = common::peer_dir().join("ReadLane.json");
    let v = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, v)
}

fn import_err(path: &Path, v: &Value) -> String {
    match import_peer(path, &serde_json::to_string_pretty(v).unwrap()) {
        Ok(_) => panic!("imported although it is bad"),
        Err(e) => e.to_string(),
    }
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error `{msg}` lacks `{p}`");
    }
}

fn set_groups(v: &mut Value, groups: [u64; 3]) {
    for c in v["cases"].as_array_mut().unwrap() {
        c["groups"] = json!(groups);
    }
}

/// A copy of a bundled suite in a temporary folder of suites.
fn store_copy(names: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for name in names {
        let dst = tmp.path().join(name);
        std::fs::create_dir(&dst).unwrap();
        for e in std::fs::read_dir(measurements::bundled_data_dir().join(name)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn load_err(dir: &Path) -> String {
    match Dataset::load(&[dir.to_path_buf()]) {
        Ok(_) => panic!("{} loaded although it is bad", dir.display()),
        Err(e) => e.to_string(),
    }
}

// ---- Hangs, panics, crashes --------------------------------------------------------------------------------

#[test]
fn a_launch_of_2_to_the_64_lanes_is_refused_not_a_panic() {
    let (path, mut v) = read_lane();
    // 32 threads x 2^59 groups = 2^64 lanes: the old product wrapped to 0 and `chunks(0)` panicked.
    set_groups(&mut v, [1 << 30, 1 << 29, 1]);
    let m = import_err(&path, &v);
    assert_has(
        &m,
        &[
            "ReadLane.json:",
            "kernel `ReadLaneCode`",
            "launches 576460752303423488 workgroups; a dispatch has at most 4096",
        ],
    );
}

#[test]
fn a_launch_whose_product_wraps_to_32_lanes_is_refused() {
    let (path, mut v) = read_lane();
    // 32 x 315916329 x 1824726041 = 2^64 + 32: wrapped, it matched rows_per_dispatch 32 and the import
    // succeeded; conformance then ran 2^59 workgroups.
    set_groups(&mut v, [315_916_329, 1_824_726_041, 1]);
    let m = import_err(&path, &v);
    assert_has(
        &m,
        &[
            "kernel `ReadLaneCode`",
            "workgroups; a dispatch has at most 4096",
        ],
    );
    // Within the workgroup limit but past the lane limit.
    set_groups(&mut v, [64, 64, 1]);
    let m = import_err(&path, &v);
    assert_has(
        &m,
        &["32 threads x grid [64, 64, 1] is 131072 lanes; a dispatch has at most 65536"],
    );
    // The same kernel in a kernels.toml.
    let tmp = store_copy(&["peer-read-lane"]);
    let k = tmp.path().join("peer-read-lane/kernels.toml");
    let text = std::fs::read_to_string(&k).unwrap();
    std::fs::write(
        &k,
        text.replacen("grid = [1, 1, 1]", "grid = [315916329, 1824726041, 1]", 1),
    )
    .unwrap();
    assert_has(
        &load_err(tmp.path()),
        &["kernels.toml:", "workgroups; a dispatch has at most 4096"],
    );
}

#[test]
fn lanes_and_workgroups_are_computed_checked() {
    let mut k = Kernel::agc_buffer("k", &[0xbf81_0000], 32, 1024, (4, 16), 0, 0);
    k.grid = [u32::MAX, u32::MAX, u32::MAX];
    assert_eq!(k.workgroups(), u64::MAX, "2^96 does not fit: saturated");
    assert_eq!(k.lanes(), u64::MAX);
    k.grid = [1 << 30, 1 << 29, 1];
    k.threads = 32;
    assert_eq!(k.lanes(), u64::MAX, "2^64 does not fit either");
    assert!(k.validate().is_err());
}

#[test]
fn every_bundled_suite_fits_the_limits_with_room_to_spare() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    for s in ds.suites.values() {
        for k in &s.kernels.kernels {
            let bytes: u64 = k.memory.iter().map(|a| a.bytes as u64).sum();
            assert!(k.lanes() * 100 <= MAX_LANES, "{}", k.name);
            assert!(k.workgroups() * 100 <= MAX_WORKGROUPS, "{}", k.name);
            assert!(k.memory.len() * 10 <= MAX_ARRAYS, "{}", k.name);
            assert!(bytes * 100 <= MAX_JOB_BYTES, "{}", k.name);
            assert!(k.memory.iter().all(|a| a.bytes * 100 <= MAX_ARRAY_BYTES));
        }
    }
}

#[test]
fn a_job_may_not_map_more_than_the_limits() {
    let (path, mut v) = read_lane();
    let arrays = v["kernels"][0]["memory"].as_array_mut().unwrap();
    for i in 0..200 {
        arrays.push(json!({"name": format!("big{i}"), "bytes": 64 << 20, "fill": "00000000"}));
    }
    assert_has(
        &import_err(&path, &v),
        &["kernel `ReadLaneCode` has 202 arrays; a job maps at most 64"],
    );
    let (path, mut v) = read_lane();
    let arrays = v["kernels"][0]["memory"].as_array_mut().unwrap();
    for i in 0..2 {
        arrays.push(json!({"name": format!("big{i}"), "bytes": 64 << 20, "fill": "00000000"}));
    }
    assert_has(
        &import_err(&path, &v),
        &["its 4 arrays hold 134218752 bytes; a job maps at most 128 MiB in all"],
    );
    let (path, mut v) = read_lane();
    v["kernels"][0]["memory"][1]["bytes"] = json!((64 << 20) + 4);
    assert_has(
        &import_err(&path, &v),
        &["array `out` has 67108868 bytes (a multiple of 4 from 0 to 64 MiB)"],
    );
}

#[test]
fn a_job_built_in_code_past_the_memory_limits_is_an_error_not_an_abort() {
    let mut k = Kernel::agc_buffer("k", &[0xbf81_0000], 32, 32, (4, 16), 0, 0);
    for i in 0..200 {
        k.memory.push(Array {
            name: format!("big{i}"),
            bytes: 64 << 20,
            fill: measurements::hex::HexDword(0),
            align: 256,
            init: vec![],
        });
    }
    let job = Job {
        suite: "s".into(),
        kernel: Arc::new(k),
        target: "rdna2".into(),
        mode: FloatMode::TITLE,
        dispatch: "0".repeat(16),
        lanes: vec![],
        independent_groups: false,
        addresses: None,
    };
    // Refused from the sizes: nothing of the 12.5 GiB is allocated.
    match job.memory_image() {
        Err(BackendError::InvalidJob(m)) => assert_has(&m, &["202 arrays", "limits of one job"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn devices_fifos_and_huge_files_are_refused_before_they_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    // /dev/zero never ends.
    #[cfg(unix)]
    assert_has(
        &import_peer_file(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string(),
        &["/dev/zero", "not a regular file"],
    );
    // A FIFO without a writer would block `open` for ever; one with a writer would feed it for ever.
    let fifo = tmp.path().join("fifo.json");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        assert_has(
            &import_peer_file(&fifo).unwrap_err().to_string(),
            &["fifo.json", "not a regular file"],
        );
        assert!(KernelFile::read(&fifo).is_err());
        assert!(measurements::csvio::read_rows(&fifo).is_err());
    }
    // A sparse file one byte past the limit: refused from its size, none of it read.
    let big = tmp.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_PEER_FILE_BYTES + 1)
        .unwrap();
    assert_has(
        &import_peer_file(&big).unwrap_err().to_string(),
        &["big.json", "67108865 bytes or more", "at most 64 MiB"],
    );
    let csv = tmp.path().join("rdna2.csv");
    std::fs::File::create(&csv)
        .unwrap()
        .set_len(measurements::limits::MAX_CSV_FILE_BYTES + 1)
        .unwrap();
    assert_has(
        &measurements::csvio::read_rows(&csv)
            .unwrap_err()
            .to_string(),
        &["rdna2.csv", "at most 256 MiB"],
    );
    // In a store, a kernels.toml that is a FIFO is refused too.
    let store = store_copy(&["peer-read-lane"]);
    let k = store.path().join("peer-read-lane/kernels.toml");
    std::fs::remove_file(&k).unwrap();
    if std::process::Command::new("mkfifo")
        .arg(&k)
        .status()
        .is_ok_and(|s| s.success())
    {
        assert_has(
            &load_err(store.path()),
            &["kernels.toml", "not a regular file"],
        );
    }
}

#[test]
fn a_megabyte_name_is_refused_with_a_short_message() {
    let huge = "A".repeat(1 << 20);
    for edit in [
        |v: &mut Value, s: &str| v["test"] = json!(s),
        |v: &mut Value, s: &str| v["cases"][0]["name"] = json!(s),
        |v: &mut Value, s: &str| v["skipped"] = json!([{"name": s, "reason": "r"}]),
        |v: &mut Value, s: &str| v["kernels"][0]["memory"][1]["name"] = json!(s),
        |v: &mut Value, s: &str| {
            v["kernels"][0]["name"] = json!(s);
            for c in v["cases"].as_array_mut().unwrap() {
                c["kernel"] = json!(s);
            }
        },
        |v: &mut Value, s: &str| v["source"]["commit"] = json!(s),
    ] {
        let (path, mut v) = read_lane();
        edit(&mut v, &huge);
        let m = import_err(&path, &v);
        assert!(m.len() < 600, "a {}-byte message: {}", m.len(), &m[..600]);
        assert!(m.contains("…(1048576 bytes)"), "{m}");
    }
}

#[test]
fn a_test_name_that_gives_a_suite_name_too_long_to_read_back_is_refused() {
    // `peer-` + 124 characters is 129 bytes: the old importer wrote it and the CSV reader refused it.
    let (path, mut v) = read_lane();
    v["test"] = json!("A".repeat(124));
    assert_has(
        &import_err(&path, &v),
        &["gives no usable suite name", "longer than 128 bytes"],
    );
    // 123 characters is the longest that works, and it reads back.
    v["test"] = json!("A".repeat(123));
    let suite = import_peer(&path, &v.to_string()).unwrap();
    assert_eq!(suite.name().len(), MAX_NAME_BYTES);
    let tmp = tempfile::tempdir().unwrap();
    suite.write(tmp.path()).unwrap();
    let ds = Dataset::load(&[tmp.path().to_path_buf()]).unwrap();
    assert_eq!(ds.row_count(), 32);
}

#[test]
fn the_writer_refuses_what_the_reader_would_before_writing_anything() {
    let suite = import_peer_file(&common::peer_dir().join("ReadLane.json")).unwrap();
    let mut bad = suite.clone();
    let id = bad.rows.keys().next().unwrap().clone();
    bad.rows.get_mut(&id).unwrap().row.source =
        "x".repeat(measurements::limits::MAX_SOURCE_BYTES + 1);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("store");
    let m = bad.write(&out).unwrap_err().to_string();
    assert_has(
        &m,
        &[&id, "field `source`", "a row's sources take at most 16384"],
    );
    assert!(!out.exists(), "nothing written");
    let mut bad = suite.clone();
    bad.kernels.suite = "Not-Kebab".into();
    assert!(bad.write(&out).is_err() && !out.exists());
}

/// A peer file with `n` cases of one row each (one kernel of 1 thread), every row its own dispatch; case `i`'s
/// input is `i`.
fn many_cases(n: usize, same_row: bool) -> String {
    let cases: Vec<Value> = (0..n)
        .map(|i| {
            let x = if same_row { 0 } else { i };
            json!({
                "name": format!("Case{i}"), "kernel": "One",
                "mode": {"float_mode": "c0", "ieee": 0, "dx10_clamp": 1, "fp16_ovfl": 0, "explicit": false},
                "rows_per_dispatch": 1, "columns": [0], "masks": null, "compare": "exact", "checks": ["x"],
                "compare_array": "out", "compare_stride_dwords": 1, "expectation": "pinned",
                "rows": [[format!("{x:08x}")]], "expected": [[format!("{x:08x}")]]
            })
        })
        .collect();
    let v = json!({
        "test": "ManyCases",
        "source": {"repo": "example/peer", "path": "tests/many.cpp", "commit": "0123456"},
        "kernels": [{
            "name": "One", "words": ["bf810000"], "declared_word_count": 1, "wave": 32, "threads": 1,
            "input_dwords": 1, "output_dwords": 1, "output_fill": "00000000", "lds_bytes": 0,
            "user_data": ["in.lo", "in.hi16", "in.bytes", "31016fac", "out.lo", "out.hi16", "out.bytes", "31016fac"],
            "tgid": [false, false, false],
            "memory": [{"name": "in", "bytes": 4, "fill": "00000000", "init": [{"dword_offset": 0, "rows": true}]},
                       {"name": "out", "bytes": 4, "fill": "00000000"}]
        }],
        "cases": cases,
        "expectation": "pinned"
    });
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn twenty_thousand_one_row_cases_import_write_and_load() {
    // Each case used to search the whole text for its name (and count lines up to it): quadratic, over two
    // minutes at this size. Positions are now found in one pass; this must finish in seconds.
    let n = 20_000;
    let text = many_cases(n, false);
    let path = Path::new("many.json");
    let suite = import_peer(path, &text).unwrap();
    assert_eq!(suite.rows.len(), n);
    let tmp = tempfile::tempdir().unwrap();
    suite.write(tmp.path()).unwrap();
    assert_eq!(
        Dataset::load(&[tmp.path().to_path_buf()])
            .unwrap()
            .row_count(),
        n
    );
    // The one-pass positions are the right ones: an error in the last case points at its name's line.
    let bad = text.replace(
        &format!("\"name\": \"Case{}\"", n - 1),
        &format!("\"name\": \"Case{}\", \"bogus\": 1", n - 1),
    );
    let m = import_peer(path, &bad).unwrap_err().to_string();
    assert_has(&m, &["unknown field `bogus`"]);
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut w = v.clone();
    w["cases"][n - 1]["checks"] = json!(["q"]);
    let bad = serde_json::to_string_pretty(&w).unwrap();
    let line = bad
        .lines()
        .position(|l| l.contains(&format!("\"name\": \"Case{}\"", n - 1)))
        .unwrap()
        + 1;
    let m = import_peer(path, &bad).unwrap_err().to_string();
    assert_has(
        &m,
        &[
            &format!("many.json:{line}:"),
            "check letter `q` is not one of",
        ],
    );
}

#[test]
fn a_measurement_repeated_by_many_cases_merges_with_bounded_sources() {
    // Every case measures the same row: each merge unites sources, which are bounded, so a merge costs at most
    // the bound and the import stays linear; past the bound the import says why.
    let suite = import_peer(Path::new("same.json"), &many_cases(100, true)).unwrap();
    assert_eq!(suite.rows.len(), 1);
    assert_eq!(
        suite
            .rows
            .values()
            .next()
            .unwrap()
            .row
            .source
            .split(" ; ")
            .count(),
        100
    );
    let m = import_peer(Path::new("same.json"), &many_cases(5_000, true))
        .unwrap_err()
        .to_string();
    assert_has(&m, &["repeats in too many places", "at most 16384"]);
}

// ---- Data that is lost or accepted silently -------------------------------------------------------------------

#[test]
fn extra_or_missing_array_elements_are_refused_with_their_key() {
    for (from, to, want) in [
        (
            "grid = [1, 1, 1]",
            "grid = [1, 1, 1, \"junk\"]",
            "kernel `ReadLaneCode`, key `kernel[0].grid`: the array has 4 elements; it must have exactly 3",
        ),
        (
            "grid = [1, 1, 1]",
            "grid = [1, 1]",
            "key `kernel[0].grid`: the array has 2 elements; it must have exactly 3",
        ),
        (
            "tgid = [false, false, false]",
            "tgid = [false, false, false, true]",
            "kernel `ReadLaneCode`, key `kernel[0].tgid`: the array has 4 elements",
        ),
        (
            "lds_bytes = 0",
            "lds_bytes = 0\nflavour = 1",
            "kernel `ReadLaneCode`, key `kernel[0].flavour`: unknown field `flavour`",
        ),
        (
            "bytes = 512\nfill = \"deadbeef\"",
            "bytes = 512\nfill = \"deadbeef\"\ncolour = 2",
            "key `kernel[0].memory[1].colour`: unknown field `colour`",
        ),
        (
            "rows = true",
            "rows = true\nmore = true",
            "key `kernel[0].memory[0].init[0].more`: unknown field `more`",
        ),
        (
            "schema = \"kernels-v2\"",
            "schema = \"kernels-v2\"\nversion = 3",
            "key `version`: unknown field `version`",
        ),
    ] {
        let tmp = store_copy(&["peer-read-lane"]);
        let k = tmp.path().join("peer-read-lane/kernels.toml");
        let text = std::fs::read_to_string(&k).unwrap();
        assert!(text.contains(from), "{from}");
        std::fs::write(&k, text.replacen(from, to, 1)).unwrap();
        let m = load_err(tmp.path());
        assert_has(&m, &["kernels.toml:", want]);
    }
    // The peer JSON: the file, the line and column, and what was wrong.
    for (edit, want) in [
        (
            (|v: &mut Value| v["kernels"][0]["tgid"] = json!([false, false, false, true]))
                as fn(&mut Value),
            "the array has 4 elements; it must have exactly 3",
        ),
        (
            |v: &mut Value| v["cases"][0]["groups"] = json!([1, 1, 1, 1]),
            "the array has 4 elements; it must have exactly 3",
        ),
        (
            |v: &mut Value| v["cases"][0]["groups"] = json!([1, 1]),
            "the array has 2 elements; it must have exactly 3",
        ),
        (|v: &mut Value| v["junk"] = json!(1), "unknown field `junk`"),
        (
            |v: &mut Value| v["source"]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["kernels"][0]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["kernels"][0]["memory"][0]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["kernels"][0]["memory"][0]["init"][0]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["cases"][0]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["cases"][0]["mode"]["junk"] = json!(1),
            "unknown field `junk`",
        ),
        (
            |v: &mut Value| v["skipped"] = json!([{"name": "a", "reason": "b", "junk": 1}]),
            "unknown field `junk`",
        ),
    ] {
        let (path, mut v) = read_lane();
        edit(&mut v);
        let m = import_err(&path, &v);
        assert_has(&m, &["ReadLane.json:", want]);
        // A line and a column, from the parser.
        let after = m.split("ReadLane.json:").nth(1).unwrap();
        assert!(
            after
                .split(':')
                .take(2)
                .all(|n| n.parse::<u64>().is_ok_and(|n| n > 0)),
            "{m}"
        );
    }
}

#[test]
fn every_key_of_the_bundled_corpus_is_still_accepted() {
    // The corpus README lists the keys; the bundled files use all of those they need, and must keep importing.
    for f in common::peer_files() {
        import_peer_file(&f).unwrap();
    }
}

#[test]
fn invalid_utf8_names_the_line_and_byte() {
    // CSV: the byte offset, line and column of the first bad byte.
    let tmp = store_copy(&["peer-read-lane"]);
    let csv = tmp.path().join("peer-read-lane/rdna2.csv");
    let mut bytes = std::fs::read(&csv).unwrap();
    let line3 = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .unwrap()
        .0
        + 1;
    bytes[line3 + 4] = 0xff;
    std::fs::write(&csv, &bytes).unwrap();
    assert_has(
        &load_err(tmp.path()),
        &[
            "rdna2.csv:3:5",
            &format!("invalid UTF-8 at byte offset {} (byte 0xff)", line3 + 4),
        ],
    );
    // TOML.
    let tmp = store_copy(&["peer-read-lane"]);
    let k = tmp.path().join("peer-read-lane/kernels.toml");
    let mut bytes = std::fs::read(&k).unwrap();
    let at = bytes.windows(4).position(|w| w == b"wave").unwrap();
    bytes[at] = 0xc3; // a lead byte with no continuation
    std::fs::write(&k, &bytes).unwrap();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    assert_has(
        &load_err(tmp.path()),
        &[
            &format!("kernels.toml:{line}:1"),
            &format!("byte offset {at}"),
        ],
    );
    // JSON.
    let path = tmp.path().join("Bad.json");
    let mut bytes = std::fs::read(common::peer_dir().join("ReadLane.json")).unwrap();
    let at = bytes.windows(6).position(|w| w == b"\"wave\"").unwrap() + 1;
    bytes[at] = 0xfe;
    std::fs::write(&path, &bytes).unwrap();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    assert_has(
        &import_peer_file(&path).unwrap_err().to_string(),
        &[
            &format!("Bad.json:{line}:"),
            &format!("byte offset {at} (byte 0xfe)"),
        ],
    );
}

/// Appends a copy of data line 1 of the suite's CSV with field `field` changed by `f`.
fn append_edited_row(csv: &Path, field: usize, f: impl Fn(&str) -> String) -> (String, usize) {
    let text = std::fs::read_to_string(csv).unwrap();
    let line = text.lines().nth(1).unwrap();
    let mut fields: Vec<String> = line.split(',').map(String::from).collect();
    fields[field] = f(&fields[field]);
    std::fs::write(csv, format!("{text}{}\n", fields.join(","))).unwrap();
    (fields[0].clone(), text.lines().count() + 1)
}

#[test]
fn a_conflict_in_the_mask_only_says_so() {
    let tmp = store_copy(&["peer-read-lane"]);
    let csv = tmp.path().join("peer-read-lane/rdna2.csv");
    let (id, last) = append_edited_row(&csv, 15, |_| "0000ffff ffffffff ffffffff".into());
    let m = load_err(tmp.path());
    let value = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(14)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    assert_has(
        &m,
        &[
            &format!("rdna2.csv:{last}"),
            &id,
            &format!(
                "output dword 0: the rows differ only in their masks (mask 0000ffff here, ffffffff there; both \
                 expect {value}) at"
            ),
            "rdna2.csv:2",
        ],
    );
    assert!(!m.contains(&format!("{value} here but {value}")), "{m}");
}

#[test]
fn a_conflict_in_value_and_check_names_both() {
    let tmp = store_copy(&["peer-read-lane"]);
    let csv = tmp.path().join("peer-read-lane/rdna2.csv");
    let (_, _) = append_edited_row(&csv, 14, |outs| {
        let mut v: Vec<String> = outs.split(' ').map(String::from).collect();
        v[0] = "7fc00001".into();
        v.join(" ")
    });
    // Make the new row's first check NaN-tolerant: values still differ (the old one is no NaN).
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last = lines.len() - 1;
    let mut fields: Vec<String> = lines[last].split(',').map(String::from).collect();
    fields[16] = "nxx".into();
    lines[last] = fields.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let m = load_err(tmp.path());
    assert_has(&m, &["is 7fc00001 here but", "(check `n` here, `x` there)"]);
}

#[test]
fn a_suite_with_kernels_and_no_rows_is_refused() {
    // No row file at all (what a writer killed between its files left behind).
    let tmp = store_copy(&["peer-read-lane", "peer-dpp8"]);
    std::fs::remove_file(tmp.path().join("peer-read-lane/rdna2.csv")).unwrap();
    assert_has(
        &load_err(tmp.path()),
        &[
            "peer-read-lane",
            "has kernels.toml and no row file",
            "0 cells",
        ],
    );
    // A row file with a header only.
    let tmp = store_copy(&["peer-read-lane"]);
    let csv = tmp.path().join("peer-read-lane/rdna2.csv");
    let header = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(&csv, header + "\n").unwrap();
    assert_has(
        &load_err(tmp.path()),
        &["rdna2.csv:1", "a header and no rows"],
    );
    // A kernel that no row uses (another kernel's rows are all there).
    let tmp = store_copy(&["peer-dpp8"]);
    let csv = tmp.path().join("peer-dpp8/rdna2.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let kernels: std::collections::BTreeSet<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert!(kernels.len() > 1);
    let gone = *kernels.iter().next().unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.split(',').nth(2) != Some(gone))
        .collect();
    std::fs::write(&csv, kept.join("\n") + "\n").unwrap();
    assert_has(
        &load_err(tmp.path()),
        &[
            "kernels.toml",
            &format!("kernel `{gone}` of suite `peer-dpp8` has no rows"),
        ],
    );
}

#[test]
fn misnamed_row_files_are_refused() {
    for name in [
        "rdna2.csv.bak",
        "RDNA2.csv",
        "gfx9000.csv",
        "rdna2 (copy).csv",
    ] {
        let tmp = store_copy(&["peer-read-lane"]);
        let d = tmp.path().join("peer-read-lane");
        std::fs::copy(d.join("rdna2.csv"), d.join(name)).unwrap();
        assert_has(
            &load_err(tmp.path()),
            &[name, "is not named `<target>.csv` with a known target"],
        );
    }
    // Row files without kernels.toml.
    let tmp = store_copy(&["peer-read-lane", "peer-dpp8"]);
    std::fs::remove_file(tmp.path().join("peer-dpp8/kernels.toml")).unwrap();
    assert_has(&load_err(tmp.path()), &["peer-dpp8", "no kernels.toml"]);
    // Another file beside a suite is fine.
    let tmp = store_copy(&["peer-read-lane"]);
    std::fs::write(tmp.path().join("peer-read-lane/NOTES.md"), "notes").unwrap();
    Dataset::load(&[tmp.path().to_path_buf()]).unwrap();
}

#[test]
fn leftovers_of_an_interrupted_import_are_reported_and_settled() {
    let tmp = store_copy(&["peer-read-lane", "peer-dpp8"]);
    let root = tmp.path();
    // An uncommitted staging folder (a complete suite copy: it must not be loaded as a second suite) and a
    // temporary file of an atomic write.
    let staged = root.join(".tmp-99999-0-peer-read-lane");
    std::fs::create_dir(&staged).unwrap();
    for f in ["kernels.toml", "rdna2.csv"] {
        std::fs::copy(root.join("peer-read-lane").join(f), staged.join(f)).unwrap();
    }
    std::fs::write(root.join("peer-dpp8/.rdna2.csv.tmp-99999-3"), "partial").unwrap();
    let ds = Dataset::load(&[root.to_path_buf()]).unwrap();
    assert_eq!(ds.suites.len(), 2);
    assert_eq!(ds.warnings.len(), 2, "{:?}", ds.warnings);
    assert!(ds
        .warnings
        .iter()
        .any(|w| w.contains(".tmp-99999-0-peer-read-lane")));
    // A committed, unfinished import: some suites may be new and some old, so the store is refused.
    std::fs::write(
        root.join(".import-99999-0.commit"),
        "measurements-import-v1\npeer-read-lane\n",
    )
    .unwrap();
    std::fs::rename(
        root.join("peer-read-lane"),
        root.join(".old-99999-0-peer-read-lane"),
    )
    .unwrap();
    assert_has(
        &load_err(root),
        &[
            ".import-99999-0.commit",
            "interrupted after it committed",
            "oracle import-peer",
        ],
    );
    // Recovery finishes it: the staged suite goes in, the old one and the journal go.
    let notes = measurements::store::recover(root).unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("finished the interrupted import")),
        "{notes:?}"
    );
    let left: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
    let ds = Dataset::load(&[root.to_path_buf()]).unwrap();
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    assert_eq!(ds.suites.len(), 2);
}

#[test]
fn an_import_does_not_replace_a_suite_folder_holding_files_it_does_not_write() {
    let suite = import_peer_file(&common::peer_dir().join("ReadLane.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    suite.write(tmp.path()).unwrap();
    let extra = tmp.path().join("peer-read-lane/gfx1036.csv");
    std::fs::write(&extra, "hardware rows").unwrap();
    let m = suite.write(tmp.path()).unwrap_err().to_string();
    assert_has(&m, &["gfx1036.csv", "replacing the suite would lose it"]);
    assert!(extra.is_file());
}

#[test]
fn writing_a_suite_again_replaces_it_whole() {
    let suite = import_peer_file(&common::peer_dir().join("ReadLane.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    suite.write(tmp.path()).unwrap();
    suite.write(tmp.path()).unwrap();
    let entries: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries, vec!["peer-read-lane".to_string()], "no leftovers");
    let loaded: Suite = Dataset::load(&[tmp.path().to_path_buf()])
        .unwrap()
        .suites
        .remove("peer-read-lane")
        .unwrap();
    assert_eq!(loaded.rows.len(), suite.rows.len());
}

#[test]
fn csv_columns_must_be_written_canonically() {
    // `+1` and `01` parsed as 1 and would be written back as `1`: a row that does not read back as it was read.
    for bad in ["+0 1 2", "00 1 2"] {
        let tmp = store_copy(&["peer-read-lane"]);
        let csv = tmp.path().join("peer-read-lane/rdna2.csv");
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let mut fields: Vec<String> = lines[1].split(',').map(String::from).collect();
        assert_eq!(fields[13], "0 1 2");
        fields[13] = bad.into();
        lines[1] = fields.join(",");
        std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
        assert_has(
            &load_err(tmp.path()),
            &["rdna2.csv:2:14", "is not a dword index"],
        );
    }
}
