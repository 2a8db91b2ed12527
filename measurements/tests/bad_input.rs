//! Bad input of every kind gets an error naming the file, the line and the reason; nothing panics.

mod common;

use measurements::peer::import_peer;
use measurements::Dataset;
use std::path::{Path, PathBuf};

/// A copy of a bundled suite in a temporary folder.
fn suite_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(name);
    std::fs::create_dir(&dst).unwrap();
    for e in std::fs::read_dir(measurements::bundled_data_dir().join(name)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
    }
    (tmp, dst)
}

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, f(text)).unwrap();
}

/// Replaces field `field` (0-based) of line `line` (1-based) of a CSV without quoted commas.
fn set_field(text: String, line: usize, field: usize, value: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut fields: Vec<String> = lines[line - 1].split(',').map(String::from).collect();
    fields[field] = value.to_string();
    lines[line - 1] = fields.join(",");
    lines.join("\n") + "\n"
}

fn load_err(dir: &Path) -> String {
    match Dataset::load(&[dir.to_path_buf()]) {
        Ok(_) => panic!("{} loaded although it is bad", dir.display()),
        Err(e) => e.to_string(),
    }
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error `{msg}` lacks `{p}`");
    }
}

const SUITE: &str = "peer-read-lane";

#[test]
fn csv_bad_hex() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| {
        set_field(t, 3, 10, "0000zz00 00000001 00000002 00000003")
    });
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:3:11",
            "field `inputs`",
            "`0000zz00` is not a dword",
        ],
    );
}

#[test]
fn csv_wrong_field_count() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| {
        let mut l: Vec<&str> = t.lines().collect();
        let cut = l[4].rsplit_once(',').unwrap().0.to_string();
        l[4] = &cut;
        l.join("\n") + "\n"
    });
    assert_has(&load_err(&d), &["rdna2.csv:5:", "18 fields, the header 19"]);
}

#[test]
fn csv_truncated_mid_line() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| t[..t.len() / 2].to_string());
    assert_has(&load_err(&d), &["rdna2.csv:", "the file is truncated"]);
}

#[test]
fn csv_unknown_mode_values() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 5, "2"));
    assert_has(&load_err(&d), &["rdna2.csv:2:6", "ieee `2` is not 0 or 1"]);
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 4, "C0"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2:5",
            "float_mode `C0` is not two lowercase hex digits",
        ],
    );
}

#[test]
fn csv_unknown_check_letter_and_evidence() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 16, "xqx"));
    assert_has(&load_err(&d), &["rdna2.csv:2:17", "`q` is not one of"]);
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 17, "rumour"));
    assert_has(
        &load_err(&d),
        &["rdna2.csv:2:18", "`rumour` is not hardware"],
    );
}

#[test]
fn csv_duplicate_id_with_other_outputs_is_a_conflict() {
    let (_t, d) = suite_copy(SUITE);
    let csv = d.join("rdna2.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let line2 = text.lines().nth(1).unwrap().to_string();
    let mut fields: Vec<String> = line2.split(',').map(String::from).collect();
    let mut outs: Vec<String> = fields[14].split(' ').map(String::from).collect();
    outs[0] = format!("{:08x}", u32::from_str_radix(&outs[0], 16).unwrap() ^ 0x10);
    fields[14] = outs.join(" ");
    std::fs::write(&csv, format!("{text}{}\n", fields.join(","))).unwrap();
    let last = text.lines().count() + 1;
    assert_has(
        &load_err(&d),
        &[
            &format!("rdna2.csv:{last}"),
            "repeatability conflict",
            &fields[0],
            "rdna2.csv:2",
        ],
    );
}

#[test]
fn csv_duplicate_id_with_same_outputs_merges() {
    let (_t, d) = suite_copy(SUITE);
    let csv = d.join("rdna2.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let line2 = text.lines().nth(1).unwrap().to_string();
    std::fs::write(&csv, format!("{text}{line2}\n")).unwrap();
    let ds = Dataset::load(&[d]).unwrap();
    assert_eq!(ds.row_count(), 32);
}

#[test]
fn csv_missing_kernel() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 2, "NoSuchKernel"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2",
            "kernel `NoSuchKernel` is not defined",
            "missing kernel",
        ],
    );
}

#[test]
fn csv_edited_content_breaks_the_id() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 9, "7"));
    assert_has(
        &load_err(&d),
        &["rdna2.csv:2", "does not match the row's content"],
    );
}

#[test]
fn csv_removed_row_breaks_the_dispatch() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| {
        let mut l: Vec<&str> = t.lines().collect();
        l.remove(5);
        l.join("\n") + "\n"
    });
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:",
            "a row of the dispatch is missing, extra or edited",
        ],
    );
}

#[test]
fn csv_header_empty_and_binary() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| {
        t.replacen("id,suite", "id,suit", 1)
    });
    assert_has(&load_err(&d), &["rdna2.csv:1:1", "the header must be"]);
    let (_t, d) = suite_copy(SUITE);
    std::fs::write(d.join("rdna2.csv"), "").unwrap();
    assert_has(&load_err(&d), &["rdna2.csv:1:1", "empty"]);
    let (_t, d) = suite_copy(SUITE);
    let mut bytes = std::fs::read(d.join("rdna2.csv")).unwrap();
    let at = bytes.len() - 5;
    bytes[at] = 0xff;
    std::fs::write(d.join("rdna2.csv"), bytes).unwrap();
    assert_has(&load_err(&d), &["rdna2.csv:", "UTF-8"]);
}

#[test]
fn csv_row_in_the_wrong_target_file() {
    let (_t, d) = suite_copy(SUITE);
    std::fs::rename(d.join("rdna2.csv"), d.join("gfx1036.csv")).unwrap();
    assert_has(
        &load_err(&d),
        &[
            "gfx1036.csv:2",
            "target `rdna2` in the file of target `gfx1036`",
        ],
    );
}

#[test]
fn toml_errors_have_positions() {
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| {
        t.replacen("wave = 32", "wave = 48", 1)
    });
    assert_has(&load_err(&d), &["kernels.toml:", "wave 48 is not 32 or 64"]);
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| {
        t.replacen("wave = 32", "wave = 32\nflavour = 1", 1)
    });
    assert_has(&load_err(&d), &["kernels.toml:", "unknown field `flavour`"]);
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| {
        t.replacen("\"bf810000\"", "\"bf81000\"", 1)
    });
    assert_has(
        &load_err(&d),
        &["kernels.toml:", "`bf81000` is not a dword"],
    );
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| t[..t.len() - 20].to_string());
    assert_has(&load_err(&d), &["kernels.toml:"]);
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| {
        t.replacen("name = \"in\"", "name = \"nowhere\"", 1)
    });
    assert_has(
        &load_err(&d),
        &[
            "kernels.toml:",
            "user data refers to array `in`, which is not in its memory list",
        ],
    );
}

#[test]
fn a_kernels_v1_file_is_refused_with_the_reason() {
    // A file from before placements moved to rows: schema v1 and an `output` key in the kernel.
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("kernels.toml"), |t| {
        t.replacen("schema = \"kernels-v2\"", "schema = \"kernels-v1\"", 1)
            .replacen(
                "tgid = [false, false, false]",
                "tgid = [false, false, false]\noutput = { array = \"out\", stride_dwords = 4 }",
                1,
            )
    });
    assert_has(
        &load_err(&d),
        &[
            "kernels.toml:1",
            "`kernels-v1` kept the output placement in the kernel",
            "re-import",
        ],
    );
}

#[test]
fn csv_bad_placements_name_the_row() {
    // Unknown array.
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 11, "scratch"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2",
            "compares array `scratch`, which kernel `ReadLaneCode` does not have (its arrays: in, out)",
        ],
    );
    // The row's columns (0 1 2) do not fit in a stride of 2.
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 12, "2"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2",
            "column 2 does not fit in the lane stride of 2 dwords in array `out`",
        ],
    );
    // `out` has 128 dwords: 32 lanes at stride 8 up to column 2 need 251.
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 12, "8"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2",
            "array `out` has 128 dwords; 32 lanes at stride 8 up to column 2 need 251",
        ],
    );
    // A placement that can be read but is not the one the ID was made with.
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 12, "3"));
    assert_has(
        &load_err(&d),
        &["rdna2.csv:2", "lane or placement was edited"],
    );
    let (_t, d) = suite_copy(SUITE);
    edit(&d.join("rdna2.csv"), |t| set_field(t, 2, 12, "bad"));
    assert_has(
        &load_err(&d),
        &[
            "rdna2.csv:2:13",
            "field `stride_dwords`: `bad` is not a dword count",
        ],
    );
}

fn peer_err(name: &str, f: impl FnOnce(String) -> String) -> String {
    let path = common::peer_dir().join(name);
    let text = f(std::fs::read_to_string(&path).unwrap());
    match import_peer(&path, &text) {
        Ok(_) => panic!("bad {name} imported"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn json_errors_have_positions() {
    let m = peer_err("ReadLane.json", |t| t[..t.len() / 3].to_string());
    assert_has(&m, &["ReadLane.json:", "EOF"]);
    let m = peer_err("ReadLane.json", |t| {
        t.replacen("\"ieee\": 0", "\"ieee\": 2", 1)
    });
    assert_has(&m, &["ReadLane.json:", "mode bit 2 is not 0 or 1"]);
    let m = peer_err("ReadLane.json", |t| {
        t.replacen("\"float_mode\": \"c0\"", "\"float_mode\": \"x0\"", 1)
    });
    assert_has(&m, &["ReadLane.json:", "float_mode `x0`"]);
    let m = peer_err("ReadLane.json", |t| {
        t.replacen("\"bf810000\"", "\"bf81z000\"", 1)
    });
    assert_has(&m, &["ReadLane.json:", "`bf81z000` is not a dword"]);
    let m = peer_err("ReadLane.json", |t| {
        t.replacen("\"kernel\": \"ReadLaneCode\"", "\"kernel\": \"Gone\"", 1)
    });
    assert_has(
        &m,
        &[
            "ReadLane.json:",
            "kernel `Gone` is not in the file (missing kernel)",
        ],
    );
    let m = peer_err("ReadLane.json", |t| {
        t.replacen("\"rows_per_dispatch\": 32", "\"rows_per_dispatch\": 16", 1)
    });
    assert_has(&m, &["ReadLane.json:", "rows_per_dispatch 16"]);
    let m = peer_err("ReadLane.json", |t| t.replacen("\"test\":", "\"tset\":", 1));
    assert_has(&m, &["ReadLane.json:", "unknown field `tset`"]);
}

#[test]
fn json_semantic_errors_point_at_the_case_line() {
    let path = common::peer_dir().join("ReadLane.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let case_line = text
        .lines()
        .position(|l| l.contains("\"kernel\": \"ReadLaneCode\""))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["cases"][0]["expected"][3].as_array_mut().unwrap().pop();
    let bad = serde_json::to_string_pretty(&v).unwrap();
    let msg = import_peer(&path, &bad).unwrap_err().to_string();
    assert_has(
        &msg,
        &[
            "ReadLane.json:",
            "row 3 has 2 expected values for 3 columns",
        ],
    );
    assert!(case_line > 0);
}
