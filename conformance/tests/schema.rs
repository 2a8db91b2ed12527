//! The peer schema's per-case placements, 0-byte arrays and long user data, end to end: the small corpus files
//! of `measurements/tests/data` go through the importer (`oracle import-peer`'s path) and then through
//! `conformance --backend model`, and every cell lands where it should.

mod common;

use conformance::{verify, Options};
use measurements::job::{Backend, BackendError, Job};
use measurements::kernel::{Array, Kernel};
use measurements::peer::{import_peer, import_peer_file};
use measurements::{Dataset, FloatMode};
use reference_model::exec::memory::GuestMemory;
use reference_model::exec::ModelBackend;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../measurements/tests/data")
        .join(name)
}

/// Assembles gfx1030 wave32 source into words.
fn asm(src: &str) -> Vec<u32> {
    common::asm_for("gfx1030", 32, src)
}

/// Imports peer JSON texts into a temporary measurements folder, as `oracle import-peer --out` does.
fn import(files: &[(&str, String)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in files {
        import_peer(&data(name), text)
            .unwrap()
            .write(tmp.path())
            .unwrap();
    }
    tmp
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

/// `conformance --measurements DIR --backend model --format json`: the model's summary and the exit status.
fn run_cli(dir: &Path) -> (serde_json::Value, i32) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["--measurements", dir.to_str().unwrap()])
        .args(["--backend", "model", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (v["backends"][0].clone(), out.status.code().unwrap())
}

fn counts(b: &serde_json::Value) -> [u64; 5] {
    ["cells", "matched", "mismatched", "unsupported", "errors"].map(|k| b[k].as_u64().unwrap())
}

#[test]
fn the_test_kernels_are_what_llvm_mc_assembles() {
    for name in ["TwoArrays", "ZeroBytes", "ManyUserSgprs"] {
        let v: serde_json::Value = serde_json::from_str(&read(&format!("{name}.json"))).unwrap();
        let words: Vec<u32> = v["kernels"][0]["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| u32::from_str_radix(w.as_str().unwrap(), 16).unwrap())
            .collect();
        let src = std::fs::read_to_string(data(&format!("{name}.s"))).unwrap();
        assert_eq!(words, asm(&src), "{name}.json words vs {name}.s");
    }
}

#[test]
fn a_dispatch_comparing_out_and_scratch_matches_every_cell() {
    let tmp = import(&[("TwoArrays.json", read("TwoArrays.json"))]);
    let (b, code) = run_cli(tmp.path());
    assert_eq!(counts(&b), [128, 128, 0, 0, 0], "{b}");
    assert_eq!(code, 0);

    // The scratch case is really read from scratch: a wrong expected value there is a mismatch with the
    // scratch row's ID, and the out case is untouched.
    let mut v: serde_json::Value = serde_json::from_str(&read("TwoArrays.json")).unwrap();
    assert_eq!(v["cases"][1]["compare_array"], "scratch");
    v["cases"][1]["expected"][5][1] = "00000000".into();
    let tmp = import(&[("TwoArrays.json", v.to_string())]);
    let (b, code) = run_cli(tmp.path());
    assert_eq!(counts(&b), [128, 127, 1, 0, 0], "{b}");
    assert_eq!(code, 1);
    let ds = Dataset::load(&[tmp.path().to_path_buf()]).unwrap();
    let s = verify(
        &ds,
        &[Box::new(ModelBackend::default())],
        &Options::default(),
        |_| {},
    );
    let m = &s.backends[0].mismatches[0];
    let (_, row) = ds.find(&m.id).unwrap();
    assert_eq!(row.row.placement.array, "scratch");
    assert_eq!((m.lane, m.column), (5, 1));
    assert_eq!(m.label, "scratch dword 1");
}

#[test]
fn a_zero_byte_array_reads_zero_and_drops_stores() {
    // Every lane's load through the empty V# gives 0 over the -1 it had; its store there is dropped (a store
    // that reached memory would be a fault, and the job would count errors).
    let tmp = import(&[("ZeroBytes.json", read("ZeroBytes.json"))]);
    let (b, code) = run_cli(tmp.path());
    assert_eq!(counts(&b), [64, 64, 0, 0, 0], "{b}");
    assert_eq!(code, 0);
}

#[test]
fn more_than_16_user_sgprs_import_and_are_unsupported_at_run_time() {
    let tmp = import(&[("ManyUserSgprs.json", read("ManyUserSgprs.json"))]);
    let (b, code) = run_cli(tmp.path());
    assert_eq!(counts(&b), [32, 0, 0, 32, 0], "{b}");
    assert_eq!(code, 0, "unsupported is not a mismatch");

    let ds = Dataset::load(&[tmp.path().to_path_buf()]).unwrap();
    let s = verify(
        &ds,
        &[Box::new(ModelBackend::default())],
        &Options::default(),
        |_| {},
    );
    let p = &s.backends[0].problems;
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].kind.as_str(), p[0].cells), ("unsupported", 32));
    assert!(
        p[0].message.contains(
            "launch with 20 user SGPRs: gfx10 compute has 16 COMPUTE_USER_DATA registers"
        ),
        "{}",
        p[0].message
    );
}

#[test]
fn sixteen_user_sgprs_run() {
    // The same kernel reading s15, the last of 16: the hardware's limit is within the model's.
    let mut v: serde_json::Value = serde_json::from_str(&read("ManyUserSgprs.json")).unwrap();
    let src = std::fs::read_to_string(data("ManyUserSgprs.s"))
        .unwrap()
        .replace("v_add_nc_u32 v3, s19, v2", "v_add_nc_u32 v3, s15, v2");
    let k = &mut v["kernels"][0];
    k["words"] = asm(&src)
        .iter()
        .map(|w| serde_json::Value::from(format!("{w:08x}")))
        .collect();
    k["declared_word_count"] = k["words"].as_array().unwrap().len().into();
    k["user_data"].as_array_mut().unwrap().truncate(16);
    let s15 = u32::from_str_radix(k["user_data"][15].as_str().unwrap(), 16).unwrap();
    let c = &mut v["cases"][0];
    let expected: Vec<serde_json::Value> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let x = u32::from_str_radix(r[0].as_str().unwrap(), 16).unwrap();
            serde_json::json!([format!("{:08x}", x.wrapping_add(s15))])
        })
        .collect();
    c["expected"] = expected.into();
    let tmp = import(&[("ManyUserSgprs.json", v.to_string())]);
    let (b, code) = run_cli(tmp.path());
    assert_eq!(counts(&b), [32, 32, 0, 0, 0], "{b}");
    assert_eq!(code, 0);
}

#[test]
fn a_global_access_to_a_zero_byte_array_faults() {
    // Through a V# of size 0 an access never reaches memory (the test above); a global access to the array's
    // address reaches it and finds nothing mapped there.
    let suite = import_peer_file(&data("ZeroBytes.json")).unwrap();
    let words = asm("v_mov_b32 v2, s8\n\
         v_mov_b32 v3, s9\n\
         global_load_dword v4, v[2:3], off\n\
         s_waitcnt vmcnt(0)\n\
         s_endpgm\n");
    let mut kernel: Kernel = suite.kernel("ZeroBytesCode").unwrap().clone();
    kernel.words = words
        .iter()
        .map(|&w| measurements::hex::HexDword(w))
        .collect();
    // s[8:9] hold the empty array's full address.
    kernel.user_data[9] = "empty.hi".into();
    assert_eq!(
        kernel.array("empty"),
        Some(&Array {
            name: "empty".into(),
            bytes: 0,
            fill: measurements::hex::HexDword(0),
            align: 256,
            init: vec![],
        })
    );
    kernel.validate().unwrap();
    let job = Job {
        suite: "test".into(),
        kernel: Arc::new(kernel),
        target: "rdna2".into(),
        mode: FloatMode::TITLE,
        dispatch: "0000000000000000".into(),
        lanes: (0..32).map(|l| (l, vec![l])).collect(),
        independent_groups: false,
        addresses: None,
    };
    // Where the model puts the array: mapped in memory-list order, `in` (128 bytes) first.
    let mut mem = GuestMemory::new();
    mem.map("in", 256, vec![0; 128]);
    let empty = mem.map("empty", 256, Vec::new());
    match ModelBackend::default().run(&job) {
        Err(BackendError::Fault { address, pc, .. }) => assert_eq!((address, pc), (empty, 2)),
        other => panic!("a global load of a 0-byte array must fault, got {other:?}"),
    }
}
