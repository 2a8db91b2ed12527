//! The parts of the peer schema beyond the bundled corpus, on small files written for them
//! (`tests/data/*.json`, assembled from the `.s` beside each): per-case placements, 0-byte arrays and user data
//! longer than a launch can load. That they also run is `conformance/tests/schema.rs`.

use measurements::id::measurement_id;
use measurements::job::plan_jobs;
use measurements::kernel::MAX_SGPRS;
use measurements::peer::{import_peer, import_peer_file};
use measurements::row::Placement;
use measurements::{Dataset, Suite};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Imports `name`, writes it to a temporary folder and loads it back: what `oracle import-peer` then
/// `conformance --measurements` do.
fn import_write_load(name: &str) -> (Suite, Suite, tempfile::TempDir) {
    let imported = import_peer_file(&data(name)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    imported.write(tmp.path()).unwrap();
    let ds = Dataset::load(&[tmp.path().to_path_buf()]).unwrap();
    let loaded = ds.suites[imported.name()].clone();
    (imported, loaded, tmp)
}

fn assert_same_rows(a: &Suite, b: &Suite) {
    assert_eq!(
        a.rows.keys().collect::<Vec<_>>(),
        b.rows.keys().collect::<Vec<_>>()
    );
    for (id, r) in &a.rows {
        assert_eq!(r.row, b.rows[id].row, "{id}");
    }
}

#[test]
fn two_cases_of_one_dispatch_compare_out_and_scratch() {
    let (suite, loaded, _tmp) = import_write_load("TwoArrays.json");
    assert_same_rows(&suite, &loaded);
    let kernel = suite.kernel("TwoArraysCode").unwrap();
    let hash = &suite.kernel_hashes["TwoArraysCode"];
    let out = Placement::new("out", 2);
    let scratch = Placement::new("scratch", 4);
    assert_eq!(kernel.default_placement(), out);

    let rows: Vec<_> = suite.rows.values().map(|r| &r.row).collect();
    assert_eq!(rows.len(), 64, "32 lanes of each case");
    let dispatches: BTreeSet<&str> = rows.iter().map(|r| r.dispatch.as_str()).collect();
    assert_eq!(dispatches.len(), 1, "both cases are one dispatch");
    for r in &rows {
        let source_case = r.source.rsplit_once('#').unwrap().1;
        let (placement, columns) = match source_case {
            "TwoArrays_Out" => (&out, vec![0, 1]),
            "TwoArrays_Scratch" => (&scratch, vec![0, 1]),
            other => panic!("row from case {other}"),
        };
        assert_eq!(&r.placement, placement, "{}", r.id);
        assert_eq!(
            r.cells.iter().map(|c| c.column).collect::<Vec<_>>(),
            columns
        );
        // The default placement adds nothing to the ID; scratch adds its `compare=` line.
        let extra = (placement != &out).then_some(placement);
        assert_eq!(
            r.id,
            measurement_id(hash, &r.target, &r.mode, &r.dispatch, r.lane, extra)
        );
    }
    // Same lane, two placements: two measurements.
    let ids_of = |p: &Placement| -> BTreeSet<(u32, String)> {
        rows.iter()
            .filter(|r| &r.placement == p)
            .map(|r| (r.lane, r.id.clone()))
            .collect()
    };
    let (a, b) = (ids_of(&out), ids_of(&scratch));
    assert_eq!((a.len(), b.len()), (32, 32));
    assert!(a
        .iter()
        .map(|(_, id)| id)
        .collect::<BTreeSet<_>>()
        .is_disjoint(&b.iter().map(|(_, id)| id).collect()));

    // One dispatch runs once, for the rows of both cases.
    let jobs = plan_jobs(&suite);
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].rows.len(), 64);
}

#[test]
fn reordering_the_cases_keeps_every_id_and_placement() {
    let path = data("TwoArrays.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let here = import_peer(&path, &text).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array_mut().unwrap().reverse();
    let reordered = import_peer(&path, &v.to_string()).unwrap();
    assert_same_rows(&here, &reordered);
}

#[test]
fn a_zero_byte_array_imports_and_round_trips() {
    let (suite, loaded, tmp) = import_write_load("ZeroBytes.json");
    assert_same_rows(&suite, &loaded);
    let k = loaded.kernel("ZeroBytesCode").unwrap();
    assert_eq!(k.array("empty").unwrap().bytes, 0);
    let toml = std::fs::read_to_string(tmp.path().join("peer-zero-bytes/kernels.toml")).unwrap();
    assert!(toml.contains("name = \"empty\"\nbytes = 0\n"), "{toml}");
    // The job's memory image has the array, with no dwords.
    let jobs = plan_jobs(&loaded);
    let image = jobs[0].job.memory_image().unwrap();
    let empty = image.iter().find(|a| a.name == "empty").unwrap();
    assert!(empty.dwords.is_empty());
    // Its V# says 0 bytes.
    let addresses: Vec<u64> = (0..image.len() as u64).map(|i| (i + 1) << 32).collect();
    let user = jobs[0].job.user_data(&addresses).unwrap();
    assert_eq!(&user[8..12], &[0, 2, 0, 0x3101_6fac]);
}

#[test]
fn more_user_data_than_a_launch_loads_imports() {
    let (suite, loaded, _tmp) = import_write_load("ManyUserSgprs.json");
    assert_same_rows(&suite, &loaded);
    assert_eq!(
        loaded.kernel("ManyUserSgprsCode").unwrap().user_data.len(),
        20
    );
    assert_eq!(loaded.rows.len(), 32);
}

#[test]
fn user_data_past_the_sgpr_file_is_refused() {
    let path = data("ManyUserSgprs.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ud = v["kernels"][0]["user_data"].as_array_mut().unwrap();
    while ud.len() < MAX_SGPRS {
        ud.push("00000000".into());
    }
    // 106 user SGPRs fill s0..s105: still a kernel a backend may refuse, not a bad file.
    import_peer(&path, &v.to_string()).unwrap();
    v["kernels"][0]["tgid"][0] = true.into();
    let msg = import_peer(&path, &v.to_string()).unwrap_err().to_string();
    for part in [
        "ManyUserSgprs.json:",
        "kernel `ManyUserSgprsCode`: 106 user SGPRs and 1 workgroup-id SGPRs do not fit in s0..s105",
    ] {
        assert!(msg.contains(part), "`{msg}` lacks `{part}`");
    }
}

/// The error of importing TwoArrays.json with case `case` edited by `f`.
fn case_err(file: &str, case: usize, f: impl FnOnce(&mut serde_json::Value)) -> String {
    let path = data(file);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    f(&mut v["cases"][case]);
    // Pretty, so the case's `"name"` line can be found again.
    let text = serde_json::to_string_pretty(&v).unwrap();
    let name = v["cases"][case]["name"].as_str().unwrap();
    let line = text
        .lines()
        .position(|l| l.contains(&format!("\"name\": \"{name}\"")))
        .unwrap()
        + 1;
    let msg = import_peer(&path, &text).unwrap_err().to_string();
    let at = format!("{file}:{line}:");
    assert!(msg.contains(&at), "`{msg}` does not point at line {line}");
    msg
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error `{msg}` lacks `{p}`");
    }
}

#[test]
fn bad_per_case_placements_are_refused_naming_the_case() {
    let m = case_err("TwoArrays.json", 1, |c| {
        c["compare_array"] = "nowhere".into()
    });
    assert_has(
        &m,
        &[
            "case `TwoArrays_Scratch`",
            "compare_array `nowhere`",
            "compares array `nowhere`, which kernel `TwoArraysCode` does not have (its arrays: in, out, scratch)",
        ],
    );
    let m = case_err("TwoArrays.json", 1, |c| {
        c["compare_stride_dwords"] = 1.into()
    });
    assert_has(
        &m,
        &[
            "case `TwoArrays_Scratch`",
            "column 1 does not fit in the lane stride of 1 dwords in array `scratch`",
        ],
    );
    let m = case_err("TwoArrays.json", 1, |c| {
        c["compare_stride_dwords"] = 16.into()
    });
    assert_has(
        &m,
        &[
            "case `TwoArrays_Scratch`",
            "array `scratch` has 128 dwords; 32 lanes at stride 16 up to column 1 need 498",
        ],
    );
    // The first case is checked on its own too: `out` at stride 2 is fine, at stride 8 too small.
    let m = case_err("TwoArrays.json", 0, |c| {
        c["compare_stride_dwords"] = 8.into()
    });
    assert_has(
        &m,
        &[
            "case `TwoArrays_Out`",
            "array `out` has 64 dwords; 32 lanes at stride 8 up to column 1 need 250",
        ],
    );
    // A 0-byte array can be loaded through, not compared.
    let m = case_err("ZeroBytes.json", 0, |c| c["compare_array"] = "empty".into());
    assert_has(
        &m,
        &[
            "case `ZeroBytes_LoadReadsZero`",
            "array `empty` has 0 dwords; 32 lanes at stride 2 up to column 1 need 64",
        ],
    );
}
