//! The `oracle` command end to end.

use std::path::PathBuf;
use std::process::Command;

fn oracle(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oracle"))
        .args(args)
        .output()
        .unwrap()
}

/// A peer corpus file; fails naming the folder when the corpus is not beside the repository.
fn peer(name: &str) -> String {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/peer"
    ));
    assert!(
        dir.is_dir(),
        "the peer corpus must sit beside the repository (as CI places ../shared): {} is not a folder",
        dir.display()
    );
    dir.join(name).display().to_string()
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

fn oracle_with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_oracle"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Regression: one bad word made `oracle disasm` print nothing. Now it does what llvm-mc does: every
/// instruction it can decode on stdout, a warning per bad word with its index, decoding resumed at the next
/// word; exit 1 says something was bad.
#[test]
fn disasm_warns_per_bad_word_and_resynchronises() {
    let o = oracle(&["disasm", "7e140304", "ffffffff", "bf810000"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "v_mov_b32_e32 v10, v4\ns_endpgm\n");
    let err = text(&o.stderr);
    assert!(
        err.contains("oracle: warning: word 1: 0xffffffff matches no gfx10 encoding"),
        "{err}"
    );
    let o = oracle(&["disasm", "7e140304", "bf810000"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty());
}

/// Regression: a text file that was not a valid listing was read as a binary blob. Text is a listing, a bad
/// token is named by line and column; only non-text bytes or `--binary` make a blob; `--file -` is stdin.
#[test]
fn disasm_files_listings_blobs_and_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let hex = tmp.path().join("k.hex");
    std::fs::write(&hex, "7e140304\n  xyz0\n").unwrap();
    let o = oracle(&["disasm", "--file", hex.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("k.hex:2:3: `xyz0` is not a word"), "{err}");
    assert!(o.stdout.is_empty());

    std::fs::write(&hex, "7e140304, ffffffff\nbf810000\n").unwrap();
    let o = oracle(&["disasm", "--file", hex.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "v_mov_b32_e32 v10, v4\ns_endpgm\n");
    assert!(
        text(&o.stderr).contains("k.hex:1:11: word 1:"),
        "{}",
        text(&o.stderr)
    );

    let o = oracle_with_stdin(&["disasm", "--file", "-"], b"0x7e140304 0xbf810000\n");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "v_mov_b32_e32 v10, v4\ns_endpgm\n");
    let mut blob = Vec::new();
    for w in [0x7e14_0304u32, 0xbf81_0000] {
        blob.extend_from_slice(&w.to_le_bytes());
    }
    let o = oracle_with_stdin(&["disasm", "--file", "-"], &blob);
    assert_eq!(text(&o.stdout), "v_mov_b32_e32 v10, v4\ns_endpgm\n");
    // Printable bytes are a listing unless --binary says they are a blob.
    let o = oracle_with_stdin(&["disasm", "--file", "-"], b"AAAAZZZZ");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("<stdin>:1:1:") && text(&o.stderr).contains("--binary"));
    let o = oracle_with_stdin(&["disasm", "--binary", "--file", "-"], b"AAAAZZZZ");
    assert_ne!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = oracle(&["disasm", "--binary", "bf810000"]);
    assert_eq!(o.status.code(), Some(2));
    let o = oracle(&["disasm", "--file", "/nonexistent.hex"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/nonexistent.hex"));
}

/// `rdna2` (what rows say), the gfx1030 family, gfx1013 and ps5 are accepted wherever a target is.
#[test]
fn disasm_accepts_every_target_name() {
    for (target, want) in [
        ("gfx1013", "v_mac_legacy_f32"),
        ("ps5", "v_mac_legacy_f32"),
        ("rdna2", "v_fmac_legacy_f32"),
        ("gfx1030", "v_fmac_legacy_f32"),
        ("gfx1035", "v_fmac_legacy_f32"),
        ("gfx1036", "v_fmac_legacy_f32"),
        ("RDNA2", "v_fmac_legacy_f32"),
    ] {
        let o = oracle(&["disasm", "--target", target, "0c000102"]);
        assert_eq!(o.status.code(), Some(0), "{target}: {}", text(&o.stderr));
        assert!(text(&o.stdout).starts_with(want), "{target}");
    }
    let o = oracle(&["disasm", "--target", "gfx1100", "bf810000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("rdna2, gfx1030"),
        "{}",
        text(&o.stderr)
    );
}

/// A malformed ID is reported as malformed (exit 2) before any data is read; a well-formed one that is not
/// there is reported as missing.
#[test]
fn show_tells_malformed_ids_from_missing_ones() {
    for bad in [
        "M-xyz",
        "M-1b06b043fc6b884",
        "M-1b06b043fc6b884e00",
        "1b06b043fc6b884e",
    ] {
        let o = oracle(&["show", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = text(&o.stderr);
        assert!(
            err.contains("malformed measurement ID") && err.contains(bad),
            "{err}"
        );
    }
    let o = oracle(&["show", "M-0000000000000000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no measurement M-0000000000000000"));
    // Hex digits in either case name the same row.
    let o = oracle(&["show", "M-1B06B043FC6B884E"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

/// `show` prints each cell's column label (what the HTML report shows next to the dword) and the mode in the
/// reports' notation.
#[test]
fn show_prints_labels_and_the_mode_notation() {
    let o = oracle(&["show", "M-1b06b043fc6b884e"]);
    let s = text(&o.stdout);
    assert!(
        s.contains("out[  0]  7f812345 mask ffffffff check x  v_add_f32\n"),
        "{s}"
    );
    assert!(
        s.contains("out[  1]  7f812345 mask ffffffff check x  v_sub_f32\n"),
        "{s}"
    );
    assert!(
        s.contains("mode      c0/0/1/0 (FLOAT_MODE 0xc0 IEEE 0 DX10_CLAMP 1 FP16_OVFL 0)"),
        "{s}"
    );
}

/// Regression: `oracle show ... | head -1` and `oracle disasm ... | head -1` panicked (exit 101).
#[test]
fn a_reader_that_closes_stdout_early_ends_the_output_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let hex = tmp.path().join("k.hex");
    std::fs::write(&hex, "7e140304\n".repeat(50_000)).unwrap();
    for args in [
        &[
            "show",
            "--disasm",
            "M-1b06b043fc6b884e",
            "M-1b06b043fc6b884e",
        ][..],
        &["disasm", "--file", hex.to_str().unwrap()],
        &["completions", "bash"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oracle"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn help_explains_ids_modes_targets_and_completions_exist() {
    for args in [&["--help"][..], &["show", "--help"], &["disasm", "--help"]] {
        let o = oracle(args);
        assert!(o.status.success());
        let help = text(&o.stdout);
        for want in [
            "Measurement IDs: `M-` and 16 hex digits",
            "FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL",
            "c0/0/1/0",
            "rdna2",
            "gfx1036",
            "ps5",
            "Exit status: 0",
        ] {
            assert!(help.contains(want), "{args:?} lacks {want:?}:\n{help}");
        }
    }
    for shell in ["bash", "zsh", "fish"] {
        let o = oracle(&["completions", shell]);
        assert!(o.status.success(), "{shell}");
        let script = text(&o.stdout);
        assert!(
            script.contains("oracle") && script.contains("disasm"),
            "{shell}"
        );
    }
}

/// An endless input (`--file /dev/zero`) is refused before it is read, not read until memory runs out.
#[test]
fn disasm_refuses_endless_input() {
    let o = oracle(&["disasm", "--file", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("/dev/zero: not a regular file"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn recompile_prints_valid_spirv_of_a_bundled_kernel_and_of_words() {
    let dir = tempfile::tempdir().unwrap();
    let spv = dir.path().join("k.spv");
    let out = oracle(&[
        "recompile",
        "--kernel",
        "ReadLaneCode",
        "--spv",
        spv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("; suite peer-read-lane, kernel ReadLaneCode (21 words)"),
        "{text}"
    );
    assert!(text.contains("OpEntryPoint GLCompute") && text.contains("LocalSize 32 1 1"));
    // The binary module is the one printed: same size as the header says.
    let words = std::fs::metadata(&spv).unwrap().len() / 4;
    assert!(
        text.contains(&format!("; SPIR-V: {words} words")),
        "{words}"
    );
    // Words: v_mov_b32 v1, 5; s_endpgm, as wave64 with two waves.
    let out = oracle(&[
        "recompile",
        "--wave",
        "64",
        "--threads",
        "128",
        "7e020285",
        "bf810000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("LocalSize 128 1 1"));
}

#[test]
fn recompile_errors_name_what_is_wrong() {
    for (args, want) in [
        (
            &["recompile", "--kernel", "NoSuchKernel"][..],
            "no kernel `NoSuchKernel`",
        ),
        (
            &["recompile", "--kernel", "ReadLaneCode", "--suite", "nope"][..],
            "no suite `nope`",
        ),
        (&["recompile"][..], "nothing to compile"),
        (&["recompile", "--wave", "16", "bf810000"][..], "--wave 16"),
        (
            &["recompile", "--lds", "65540", "bf810000"][..],
            "65540 bytes of LDS per workgroup (gfx10 has 65536)",
        ),
        (
            &["recompile", "--threads", "0", "bf810000"][..],
            "0 threads per workgroup",
        ),
        (&["recompile", "zz"][..], "zz"),
        // s_sethalt 1: the recompiler refuses it before anything runs.
        (
            &["recompile", "bf8d0001", "bf810000"][..],
            "not translated: ",
        ),
    ] {
        let out = oracle(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn agents_names_a_missing_runtime_library() {
    let out = oracle(&["agents", "--hsa-lib", "/nonexistent/libhsa-runtime64.so.1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`/nonexistent/libhsa-runtime64.so.1` could not be loaded")
            && err.contains("apt install libhsa-runtime64-1")
            && err.contains("--hsa-lib"),
        "{err}"
    );
    // The environment variable chooses the file when the flag does not.
    let out = Command::new(env!("CARGO_BIN_EXE_oracle"))
        .arg("agents")
        .env("ORACLE_HSA_LIB", "/nonexistent/other.so")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`/nonexistent/other.so`"), "{err}");
    // A library that is no ROCr runtime is named with the function it lacks.
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).exists());
    if let Some(libc) = libc {
        let out = oracle(&["agents", "--hsa-lib", libc]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("is not a usable ROCr runtime") && err.contains("hsa_init"),
            "{err}"
        );
    }
}

#[test]
fn agents_without_an_amd_gpu_says_why() {
    // Debian's libhsa-runtime64-1 (CI installs it); on a machine with an RDNA GPU this test has nothing to
    // show.
    let lib = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
    if !std::path::Path::new(lib).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs Debian's libhsa-runtime64-1"
        );
        eprintln!("NOTE: {lib} is not installed; skipping");
        return;
    }
    let out = oracle(&["agents", "--hsa-lib", lib]);
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        eprintln!(
            "NOTE: this machine has an RDNA GPU: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    if std::path::Path::new("/dev/kfd").exists() {
        assert!(
            err.contains("no GPU agent")
                || err.contains("no RDNA")
                || err.contains("hsa_init failed"),
            "{err}"
        );
    } else {
        assert!(
            err.contains("no AMD GPU kernel driver: /dev/kfd does not exist"),
            "{err}"
        );
    }
}

#[test]
fn collect_on_hsa_without_an_amd_gpu_exits_2_saying_why() {
    let o = oracle(&[
        "collect",
        "f32-legacy",
        "--backend",
        "hsa",
        "--out",
        "/nonexistent/out",
        "--hsa-lib",
        "/nonexistent/libhsa-runtime64.so.1",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`/nonexistent/libhsa-runtime64.so.1` could not be loaded"),
        "{err}"
    );
    let lib = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
    if std::path::Path::new(lib).exists() && !std::path::Path::new("/dev/kfd").exists() {
        let o = oracle(&[
            "collect",
            "f32-legacy",
            "--backend",
            "hsa",
            "--out",
            "/nonexistent/out",
            "--hsa-lib",
            lib,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("/dev/kfd does not exist"), "{err}");
    }
    // A template that does not assemble is named with llvm-mc's message.
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("bad.toml");
    std::fs::write(&t, "name = \"bad\"\nsettles = [\"legacy.zero_product\"]\nbody = \"v_bogus_f32 v10, v4\"\noutputs = 1\noperands = [[\"f32\"]]\n").unwrap();
    let o = oracle(&[
        "collect",
        t.to_str().unwrap(),
        "--backend",
        "model",
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    if std::process::Command::new("llvm-mc-19")
        .arg("--version")
        .output()
        .is_ok()
        || std::path::Path::new("/usr/lib/llvm-19/bin/llvm-mc").exists()
    {
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("does not assemble") && err.contains("v_bogus_f32"),
            "{err}"
        );
    }
}

#[test]
fn pm4_encode_writes_what_pm4_dump_lists() {
    let o = oracle(&["pm4", "encode", "--kernel", "LoadsCode"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listing = o.stdout;
    let o = oracle_with_stdin(&["pm4", "dump", "-"], &listing);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let packets: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("0x"))
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(packets.first(), Some(&"ACQUIRE_MEM"));
    assert_eq!(packets.last(), Some(&"RELEASE_MEM"));
    assert!(packets.contains(&"DISPATCH_DIRECT"));
    // Registers by name, fields decoded: wave32 in the initiator, the title mode in RSRC1, ten user SGPRs.
    assert!(out.contains("CS_W32_EN=1"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.contains("COMPUTE_PGM_RSRC1") && l.contains("FLOAT_MODE=0xc0 DX10_CLAMP=1")),
        "{out}"
    );
    assert!(out.contains("USER_SGPR=0xa"), "{out}");
    // The indirect forms, and the AGC alias of LOAD_SH_REG_INDEX.
    let o = oracle(&["pm4", "encode", "--kernel", "LoadsCode", "--indirect"]);
    let o = oracle_with_stdin(&["pm4", "dump", "-"], &o.stdout);
    let out = text(&o.stdout);
    assert!(
        out.contains("LOAD_SH_REG_INDEX (AGC SET_SH_REG_INDIRECT)"),
        "{out}"
    );
    assert!(out.contains("DISPATCH_INDIRECT"), "{out}");
    // The submission calls the body and waits for the fence.
    let o = oracle(&["pm4", "encode", "--kernel", "LoadsCode", "--submission"]);
    let o = oracle_with_stdin(&["pm4", "dump", "-"], &o.stdout);
    let out = text(&o.stdout);
    assert!(
        out.contains("INDIRECT_BUFFER") && out.contains("WAIT_REG_MEM64"),
        "{out}"
    );
}

#[test]
fn pm4_dump_stops_at_a_bad_packet_with_its_offset() {
    let tmp = tempfile::tempdir().unwrap();
    // SET_SH_REG of COMPUTE_USER_DATA_0, then opcode 0xee, then a NOP that is never listed.
    let listing = tmp.path().join("cb.txt");
    std::fs::write(
        &listing,
        "c0017600 00000240 00000007\nc001ee00 00000000 00000000\nffff1000\n",
    )
    .unwrap();
    let o = oracle(&["pm4", "dump", listing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("COMPUTE_USER_DATA_0") && out.contains("0x00000007"),
        "{out}"
    );
    let last = out.lines().last().unwrap();
    assert!(
        last.contains("dword 3") && last.contains("unknown type-3 opcode 0xee"),
        "{out}"
    );
    assert!(!out.contains("NOP"), "{out}");
    // The same as a binary blob; a DISPATCH_INDIRECT of the compute queue is a bad count on the graphics ring.
    let blob = tmp.path().join("cb.bin");
    let words: [u32; 4] = [0xc002_1600, 0x1000, 0, 1];
    std::fs::write(
        &blob,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let o = oracle(&["pm4", "dump", "--binary", blob.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = oracle(&[
        "pm4",
        "dump",
        "--binary",
        "--queue",
        "graphics",
        blob.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).contains("it is 3 dwords on the graphics ring"));
    // A file that is not there is bad input.
    let o = oracle(&["pm4", "dump", tmp.path().join("none").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}
