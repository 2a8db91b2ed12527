//! The `oracle` command end to end.

use std::path::PathBuf;
use std::process::Command;

fn oracle(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oracle"))
        .args(args)
        .output()
        .unwrap()
}

fn peer(name: &str) -> String {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/peer"
    ))
    .join(name)
    .display()
    .to_string()
}

#[test]
fn import_peer_writes_a_suite_per_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let o = oracle(&[
        "import-peer",
        &peer("ReadLane.json"),
        &peer("Dpp8.json"),
        "--out",
        out,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for s in ["peer-read-lane", "peer-dpp8"] {
        for f in ["kernels.toml", "rdna2.csv"] {
            assert!(tmp.path().join(s).join(f).is_file());
        }
    }
    let first = std::fs::read(tmp.path().join("peer-dpp8/rdna2.csv")).unwrap();
    let o = oracle(&["import-peer", &peer("Dpp8.json"), "--out", out]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read(tmp.path().join("peer-dpp8/rdna2.csv")).unwrap(),
        first,
        "re-import is byte-identical"
    );
}

#[test]
fn a_bad_file_among_good_ones_exits_2_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("Bad.json");
    let text = std::fs::read_to_string(peer("ReadLane.json")).unwrap();
    std::fs::write(&bad, &text[..text.len() - 100]).unwrap();
    let out = tmp.path().join("out");
    let o = oracle(&[
        "import-peer",
        &peer("Dpp8.json"),
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("Bad.json:") && err.contains("EOF"), "{err}");
    assert!(!out.exists(), "no partial output");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(oracle(&["import-peer"]).status.code(), Some(2));
    assert_eq!(
        oracle(&["import-peer", "/nonexistent.json", "--out", "/tmp/x"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(oracle(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        oracle(&["show", "M-0000000000000000"]).status.code(),
        Some(2)
    );
}

#[test]
fn show_prints_a_cited_row() {
    let o = oracle(&["show", "M-1b06b043fc6b884e"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("peer-f32-arithmetic-nan") && s.contains("7f812345 3f800000 3f800000 00000000"),
        "{s}"
    );
    assert!(s.contains("F32ArithmeticNan_NoFloatMode_MatchesNonIeeeResults"));
    assert!(
        s.contains("compares  out at lane stride 16 (lane 0 at dword 0)"),
        "{s}"
    );
    assert!(s.contains("out[  0]  7f812345"), "{s}");
}

#[test]
fn disasm_prints_llvm_syntax_and_rejects_bad_words() {
    let o = oracle(&[
        "disasm",
        "--target",
        "gfx1030",
        "34020084",
        "0xe0381000",
        "80000401",
        "bf810000",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "v_lshlrev_b32_e32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\ns_endpgm\n"
    );
    // VOP2 opcode 6 differs by target.
    let a = oracle(&["disasm", "--target", "gfx1013", "0c000102"]);
    let b = oracle(&["disasm", "--target", "gfx1030", "0c000102"]);
    assert!(String::from_utf8_lossy(&a.stdout).starts_with("v_mac_legacy_f32"));
    assert!(String::from_utf8_lossy(&b.stdout).starts_with("v_fmac_legacy_f32"));
    let bad = oracle(&["disasm", "1234"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("word 0"));
    assert_eq!(
        oracle(&["disasm", "--target", "gfx9000", "bf810000"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn show_can_disassemble_the_kernel() {
    let o = oracle(&["show", "--disasm", "M-1b06b043fc6b884e"]);
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("v_fma_legacy_f32") && s.contains("s_endpgm"),
        "{s}"
    );
}

#[test]
fn disasm_refuses_a_device_instead_of_reading_it_for_ever() {
    let o = oracle(&["disasm", "--file", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );
}
