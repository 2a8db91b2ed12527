//! `oracle disasm` against `llvm-mc-19 --disassemble` on the same clean instruction stream, whole process.
//!
//! `cargo bench -p oracle-runner --bench disasm` builds the stream, runs both tools on it (best of
//! `DISASM_BENCH_RUNS` runs each, default 5, process start and output included; `oracle disasm` with `--jobs 1`
//! and `--jobs 2`), checks that they print the same text, and prints the times and the ratios.
//!
//! The stream: every kernel of `shared/corpus/peer` (gfx1013), each instruction kept only where llvm-mc decodes
//! it (the decoder's `canonical` flag, held to llvm-mc by `reference-model/tests/isa_llvm_diff.rs`; the corpus's
//! non-canonical words are two-source VOP3 with src2 = 0x080), one kernel per line, the kernel list repeated
//! `DISASM_BENCH_REPEAT` times (default 300). A word llvm-mc rejects makes it print a
//! warning that repeats the whole input line, which costs llvm-mc time that has nothing to do with decoding, so
//! the clean stream compares the decoders' work. Both tools read text: `oracle disasm --file` a hex listing of
//! 32-bit words, llvm-mc its usual `0x..` byte list; the files are written once, before any timing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reference_model::isa::{self, Target};

/// The kernels of the peer corpus, in file order, as word lists.
fn corpus_kernels() -> Vec<Vec<u32>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/peer");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut kernels = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for k in v["kernels"].as_array().into_iter().flatten() {
            let words: Vec<u32> = k["words"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| u32::from_str_radix(w.as_str()?, 16).ok())
                .collect();
            kernels.push(words);
        }
    }
    kernels
}

/// A kernel with only the instructions llvm-mc decodes, and how many there are.
fn clean(target: Target, words: &[u32]) -> (Vec<u32>, usize) {
    let mut out = Vec::with_capacity(words.len());
    let mut n = 0;
    let mut i = 0;
    while i < words.len() {
        match isa::decode(target, words, i) {
            Ok(inst) => {
                if inst.canonical {
                    out.extend_from_slice(inst.encoded());
                    n += 1;
                }
                i += inst.size as usize;
            }
            Err(_) => i += 1,
        }
    }
    (out, n)
}

fn llvm_mc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LLVM_MC") {
        return Some(PathBuf::from(p));
    }
    let deb = PathBuf::from("/usr/lib/llvm-19/bin/llvm-mc");
    deb.exists().then_some(deb)
}

/// Runs `cmd` to completion `runs` times with stdout captured; the fastest wall time and the last output.
fn best_of(runs: usize, mut cmd: impl FnMut() -> Command) -> (Duration, Vec<u8>) {
    let mut best = Duration::MAX;
    let mut out = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let o = cmd()
            .stderr(Stdio::piped())
            .output()
            .expect("the command starts");
        let e = t.elapsed();
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "{}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr[..o.stderr.len().min(2000)])
        );
        best = best.min(e);
        out = o.stdout;
    }
    (best, out)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too, so a test run stays small.
    let testing = !std::env::args().any(|a| a == "--bench");
    let repeat = env_usize("DISASM_BENCH_REPEAT", if testing { 2 } else { 300 });
    let runs = env_usize("DISASM_BENCH_RUNS", if testing { 1 } else { 5 });
    let target = Target::Gfx1013;
    let kernels: Vec<(Vec<u32>, usize)> = corpus_kernels()
        .iter()
        .map(|k| clean(target, k))
        .filter(|(w, _)| !w.is_empty())
        .collect();
    let per_pass: usize = kernels.iter().map(|(_, n)| n).sum();
    let instructions = per_pass * repeat;

    let (mut hex, mut mc) = (String::new(), String::new());
    for _ in 0..repeat {
        for (words, _) in &kernels {
            for w in words {
                hex.push_str(&format!("{w:08x} "));
                for b in w.to_le_bytes() {
                    mc.push_str(&format!("0x{b:02x} "));
                }
            }
            hex.push('\n');
            mc.push('\n');
        }
    }
    // DISASM_BENCH_DIR keeps the two input files there, to run either tool by hand.
    let keep = std::env::var_os("DISASM_BENCH_DIR").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("oracle-disasm-bench-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let (hex_path, mc_path) = (dir.join("stream.hex"), dir.join("stream.txt"));
    std::fs::write(&hex_path, &hex).expect("write the hex listing");
    std::fs::write(&mc_path, &mc).expect("write the llvm-mc input");
    println!(
        "disasm stream: {} kernels x {repeat} = {instructions} instructions ({} clean per pass), {} bytes of \
         hex listing",
        kernels.len(),
        per_pass,
        hex.len()
    );

    let oracle = env!("CARGO_BIN_EXE_oracle");
    let disasm = |jobs: &'static str| {
        let hex_path = hex_path.clone();
        move || {
            let mut c = Command::new(oracle);
            c.args(["disasm", "--target", "gfx1013", "--jobs", jobs, "--file"])
                .arg(&hex_path);
            c
        }
    };
    let (one, text_one) = best_of(runs, disasm("1"));
    let (ours, text) = best_of(runs, disasm("2"));
    assert!(text_one == text, "--jobs 1 and 2 print the same listing");
    let text = String::from_utf8(text).expect("utf-8 listing");
    assert_eq!(
        text.lines().count(),
        instructions,
        "one line per instruction"
    );
    println!(
        "oracle disasm --jobs 1: {:.3} s ({:.2} M instructions/s); --jobs 2: {:.3} s ({:.2} M instructions/s); \
         best of {runs} each",
        one.as_secs_f64(),
        instructions as f64 / one.as_secs_f64() / 1e6,
        ours.as_secs_f64(),
        instructions as f64 / ours.as_secs_f64() / 1e6
    );

    let Some(mc_bin) = llvm_mc() else {
        println!("llvm-mc 19 not found (set LLVM_MC): no comparison");
        if keep.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        return;
    };
    let (llvm, llvm_text) = best_of(runs, || {
        let mut c = Command::new(&mc_bin);
        c.args(["-triple=amdgcn", "-mcpu=gfx1013", "--disassemble"])
            .arg(&mc_path);
        c
    });
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    // llvm-mc prints `\t.text` first and every instruction after a tab.
    let llvm_text = String::from_utf8(llvm_text).expect("utf-8 listing");
    let theirs: Vec<&str> = llvm_text
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && *l != ".text")
        .collect();
    let mine: Vec<&str> = text.lines().collect();
    assert_eq!(
        theirs.len(),
        mine.len(),
        "llvm-mc printed a different count"
    );
    if let Some((i, (a, b))) = mine
        .iter()
        .zip(&theirs)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        panic!("instruction {i}: oracle `{a}`, llvm-mc `{b}`");
    }
    println!(
        "llvm-mc --disassemble: {:.3} s ({:.2} M instructions/s), best of {runs}; identical text",
        llvm.as_secs_f64(),
        instructions as f64 / llvm.as_secs_f64() / 1e6
    );
    println!(
        "oracle disasm is {:.1}x llvm-mc with two threads, {:.1}x with one (whole process, same stream)",
        llvm.as_secs_f64() / ours.as_secs_f64(),
        llvm.as_secs_f64() / one.as_secs_f64()
    );
}
