//! Shared by the isa tests and the `isa_diff` example: running `llvm-mc` over many candidate encodings at once,
//! generating candidates, and comparing the two disassemblers.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use reference_model::isa::{self, Target};

/// `s_nop 0`: padding after each candidate, so an instruction that reads more words than we gave it shows up.
const PAD: u32 = 0xbf80_0000;
/// `s_trap 0xee`: ends each candidate's group of printed lines.
const SENT: u32 = 0xbf92_00ee;
const SENT_TEXT: &str = "s_trap 0xee";

/// Where llvm-mc 19 is: `$LLVM_MC`, Debian's llvm-19 path, or `llvm-mc-19` on PATH.
pub fn find_llvm_mc() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("LLVM_MC") {
        return Some(PathBuf::from(p));
    }
    let deb = PathBuf::from("/usr/lib/llvm-19/bin/llvm-mc");
    if deb.exists() {
        return Some(deb);
    }
    let ok = Command::new("llvm-mc-19")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if ok.map(|s| s.success()).unwrap_or(false) {
        return Some(PathBuf::from("llvm-mc-19"));
    }
    None
}

/// llvm-mc 19 for `test`: in CI (`CI` set, as `.ci/run` does) a missing one fails; elsewhere the caller skips
/// and this says so.
pub fn require_llvm_mc(test: &str) -> Option<PathBuf> {
    let mc = find_llvm_mc();
    if mc.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: llvm-mc 19 not found (install Debian llvm-19 or set LLVM_MC); CI must run this test"
        );
        eprintln!("SKIPPED {test}: llvm-mc 19 not found (install Debian llvm-19 or set LLVM_MC)");
    }
    mc
}

/// What llvm-mc made of one candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Llvm {
    /// Printed this text, reading exactly the words given.
    Text(String),
    /// Printed this text but read a different number of words than given (the group had `lines` lines).
    Misaligned(String, usize),
    /// "invalid instruction encoding" at the candidate's first word.
    Rejected,
    /// llvm-mc crashed on it.
    Crash,
}

fn bytes_of(words: &[u32], line: &mut String) {
    for w in words {
        for b in w.to_le_bytes() {
            line.push_str(&format!("0x{b:02x} "));
        }
    }
}

fn run_batch(mc: &PathBuf, target: Target, cands: &[Vec<u32>]) -> Option<Vec<Llvm>> {
    let mut input = String::with_capacity(cands.len() * 120);
    for c in cands {
        bytes_of(c, &mut input);
        input.push('\n');
        bytes_of(&[PAD, PAD, PAD, PAD, PAD, SENT], &mut input);
        input.push('\n');
    }
    let mut child = Command::new(mc)
        .args([
            "-triple=amdgcn",
            &format!("-mcpu={}", target.name()),
            "--disassemble",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    if !out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut rejected = vec![false; cands.len()];
    for l in stderr.lines() {
        // "<stdin>:LINE:COL: warning: invalid instruction encoding"
        let Some(rest) = l.strip_prefix("<stdin>:") else {
            continue;
        };
        if !l.contains("invalid instruction encoding") {
            continue;
        }
        let mut it = rest.split(':');
        let (Some(line), Some(col)) = (it.next(), it.next()) else {
            continue;
        };
        let (Ok(line), Ok(col)) = (line.parse::<usize>(), col.parse::<usize>()) else {
            continue;
        };
        if line % 2 == 1 && col == 1 && (line - 1) / 2 < cands.len() {
            rejected[(line - 1) / 2] = true;
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut groups: Vec<Vec<String>> = Vec::with_capacity(cands.len());
    let mut cur = Vec::new();
    for l in stdout.lines() {
        let Some(t) = l.strip_prefix('\t') else {
            continue;
        };
        let t = t.trim();
        if t == ".text" {
            continue;
        }
        if t == SENT_TEXT {
            groups.push(std::mem::take(&mut cur));
        } else {
            cur.push(t.to_string());
        }
    }
    if groups.len() != cands.len() {
        return None;
    }
    Some(
        groups
            .into_iter()
            .zip(rejected)
            .map(|(g, rej)| {
                if rej {
                    Llvm::Rejected
                } else if g.len() == 6 {
                    Llvm::Text(g[0].clone())
                } else {
                    Llvm::Misaligned(g.first().cloned().unwrap_or_default(), g.len())
                }
            })
            .collect(),
    )
}

/// Disassembles each candidate with llvm-mc; batches that crash are split until the crashing words are found.
pub fn llvm_batch(mc: &PathBuf, target: Target, cands: &[Vec<u32>]) -> Vec<Llvm> {
    if cands.is_empty() {
        return Vec::new();
    }
    // A candidate equal to the sentinel would end its group early.
    let safe: Vec<Vec<u32>> = cands
        .iter()
        .map(|c| {
            if c.first() == Some(&SENT) {
                vec![PAD]
            } else {
                c.clone()
            }
        })
        .collect();
    if let Some(r) = run_batch(mc, target, &safe) {
        return r;
    }
    if safe.len() == 1 {
        return vec![Llvm::Crash];
    }
    let h = safe.len() / 2;
    let mut a = llvm_batch(mc, target, &safe[..h]);
    a.extend(llvm_batch(mc, target, &safe[h..]));
    a
}

/// A small deterministic generator (SplitMix64), so runs are reproducible from a seed without extra crates.
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Next 32 random bits.
    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % n.max(1) as u64) as u32
    }
}

/// (name, fixed-bit mask, fixed value, opcode field (mask) in word 0) of each encoding family.
pub const FAMILIES: &[(&str, u32, u32)] = &[
    ("SOP2", 0xc000_0000, 0x8000_0000),
    ("SOPK", 0xf000_0000, 0xb000_0000),
    ("SOP1", 0xff80_0000, 0xbe80_0000),
    ("SOPC", 0xff80_0000, 0xbf00_0000),
    ("SOPP", 0xff80_0000, 0xbf80_0000),
    ("SMEM", 0xfc00_0000, 0xf400_0000),
    ("VOP1", 0xfe00_0000, 0x7e00_0000),
    ("VOP2", 0x8000_0000, 0x0000_0000),
    ("VOPC", 0xfe00_0000, 0x7c00_0000),
    ("VOP3", 0xfc00_0000, 0xd400_0000),
    ("VOP3P", 0xff00_0000, 0xcc00_0000),
    ("VINTRP", 0xfc00_0000, 0xc800_0000),
    ("DS", 0xfc00_0000, 0xd800_0000),
    ("MUBUF", 0xfc00_0000, 0xe000_0000),
    ("MTBUF", 0xfc00_0000, 0xe800_0000),
    ("MIMG", 0xfc00_0000, 0xf000_0000),
    ("FLAT", 0xfc00_0000, 0xdc00_0000),
    ("EXP", 0xfc00_0000, 0xf800_0000),
    ("DPP16", 0xfe00_01ff, 0x7e00_00fa),
    ("DPP8", 0xfe00_01ff, 0x7e00_00e9),
    ("SDWA", 0xfe00_01ff, 0x7e00_00f9),
];

/// Random operand values biased toward the interesting ones: VGPRs, SGPRs, constants, literal.
fn src9(r: &mut Rng) -> u32 {
    match r.below(8) {
        0 => 255,
        1 => 128 + r.below(81),
        2 => 240 + r.below(9),
        3 => r.below(128),
        4 => 235 + r.below(21),
        _ => 256 + r.below(256),
    }
}

/// One random candidate: 5 words, the first forced into `family` (an index into FAMILIES).
pub fn candidate(r: &mut Rng, family: usize) -> Vec<u32> {
    let (name, mask, val) = FAMILIES[family];
    let mut w: Vec<u32> = (0..5).map(|_| r.u32()).collect();
    w[0] = (w[0] & !mask) | val;
    // Keep unused fields zero half of the time, so most candidates are ones LLVM accepts.
    let tidy = r.below(2) == 0;
    match name {
        "VOP2" => {
            // VOP2 opcodes 0x3e/0x3f are VOPC/VOP1; keep the opcode in range.
            let op = r.below(0x3e);
            w[0] = (w[0] & !(0x3f << 25)) | op << 25;
            if tidy {
                w[0] = (w[0] & !0x1ff) | src9(r);
            }
        }
        "VOP1" | "VOPC" if tidy => {
            w[0] = (w[0] & !0x1ff) | src9(r);
        }
        "DPP16" | "DPP8" | "SDWA" => {
            // Spread the DPP/SDWA forms over VOP1, VOP2 and VOPC.
            let which = r.below(3);
            let body = w[0] & 0x01ff_fe00;
            w[0] = match which {
                0 => 0x7e00_0000 | body,
                1 => (r.below(0x3e) << 25) | body,
                _ => 0x7c00_0000 | body,
            } | (val & 0x1ff);
            if name == "DPP8" && r.below(2) == 0 {
                w[0] = (w[0] & !0x1ff) | 0xea;
            }
            if name == "DPP16" && tidy {
                let ctrls = [
                    r.below(0x100),
                    0x101 + r.below(15),
                    0x111 + r.below(15),
                    0x121 + r.below(15),
                    0x140,
                    0x141,
                    0x150 + r.below(16),
                    0x160 + r.below(16),
                ];
                w[1] = (w[1] & !(0x1ff << 8)) | ctrls[r.below(8) as usize] << 8;
            }
            if name == "SDWA" && tidy {
                // Valid selects (0..6) and dst_unused (0..2).
                let s = |r: &mut Rng| r.below(7);
                w[1] = (w[1] & 0x00ff_00ff & !(0x7 << 16))
                    | s(r) << 8
                    | r.below(3) << 11
                    | s(r) << 16
                    | s(r) << 24;
                w[1] &= !(1 << 15 | 1 << 22 | 1 << 30);
            }
        }
        "VOP3" | "VOP3P" if tidy => {
            // Most VOP3 operations leave some of src1/src2 and the modifiers unused, and LLVM requires
            // unused fields to be zero: clear them often enough that most candidates are canonical.
            let s1 = if r.below(4) == 0 { 0 } else { src9(r) };
            let s2 = if r.below(2) == 0 { 0 } else { src9(r) };
            w[1] = (w[1] & !0x07ff_ffff) | src9(r) | s1 << 9 | s2 << 18;
            if r.below(2) == 0 {
                w[0] &= !(0x7f << 8);
                w[1] &= 0x07ff_ffff;
            }
            if r.below(2) == 0 && name == "VOP3" {
                w[0] &= !(0x7f << 8);
            }
        }
        _ => {}
    }
    w
}

/// How one candidate compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// LLVM decoded it; same text, same size, marked canonical.
    Identical,
    /// LLVM rejected it; we return a typed error.
    BothReject,
    /// LLVM rejected it; we decode it and mark it non-canonical.
    NonCanonical,
    /// llvm-mc crashed on it.
    LlvmCrash,
    /// Anything else: a bug on our side (or LLVM's).
    Mismatch,
}

/// Compares one candidate; returns the outcome and, on mismatch, a line saying what differed.
pub fn compare(target: Target, cand: &[u32], llvm: &Llvm) -> (Outcome, Option<String>) {
    let ours = isa::decode(target, cand, 0);
    let hex: Vec<String> = cand.iter().map(|w| format!("{w:08x}")).collect();
    let hex = hex.join(" ");
    match (llvm, &ours) {
        (Llvm::Crash, _) => (Outcome::LlvmCrash, None),
        (Llvm::Rejected, Err(_)) => (Outcome::BothReject, None),
        (Llvm::Rejected, Ok(i)) if !i.canonical => (Outcome::NonCanonical, None),
        (Llvm::Rejected, Ok(i)) => (
            Outcome::Mismatch,
            Some(format!("{hex}: llvm rejects, we print `{i}`")),
        ),
        (Llvm::Text(t), Ok(i)) if i.canonical && i.to_string() == *t => (Outcome::Identical, None),
        (Llvm::Text(t), Ok(i)) => (
            Outcome::Mismatch,
            Some(format!(
                "{hex}: llvm `{t}`, we `{i}`{}",
                if i.canonical { "" } else { " (non-canonical)" }
            )),
        ),
        (Llvm::Text(t), Err(e)) => (
            Outcome::Mismatch,
            Some(format!("{hex}: llvm `{t}`, we error: {e}")),
        ),
        (Llvm::Misaligned(t, n), _) => (
            Outcome::Mismatch,
            Some(format!(
                "{hex}: llvm `{t}` read a different size ({n} lines), we {}",
                match &ours {
                    Ok(i) => format!("`{i}` ({} words)", i.size),
                    Err(e) => format!("error: {e}"),
                }
            )),
        ),
    }
}

/// The words to give llvm-mc for a candidate: our size when we decode it, all five words otherwise.
pub fn feed(target: Target, cand: &[u32]) -> Vec<u32> {
    match isa::decode(target, cand, 0) {
        Ok(i) => cand[..i.size as usize].to_vec(),
        Err(_) => cand.to_vec(),
    }
}

/// Sets the opcode field of a family's first word(s) (for the opcode sweep).
pub fn with_opcode(family: usize, w: &mut [u32], op: u32) {
    let set = |w: &mut u32, hi: u32, lo: u32, v: u32| {
        let m = ((1u64 << (hi - lo + 1)) - 1) as u32;
        *w = (*w & !(m << lo)) | (v & m) << lo;
    };
    match FAMILIES[family].0 {
        "SOP2" => set(&mut w[0], 29, 23, op % 0x60),
        "SOPK" => set(&mut w[0], 27, 23, op % 0x1d),
        "SOP1" => set(&mut w[0], 15, 8, op),
        "SOPC" | "SOPP" => set(&mut w[0], 22, 16, op),
        "SMEM" | "DS" => set(&mut w[0], 25, 18, op),
        "VOP1" => set(&mut w[0], 16, 9, op),
        "VOP2" => set(&mut w[0], 30, 25, op % 0x3e),
        "VOPC" => set(&mut w[0], 24, 17, op),
        "VOP3" => set(&mut w[0], 25, 16, op),
        "VOP3P" => set(&mut w[0], 22, 16, op),
        "VINTRP" => set(&mut w[0], 17, 16, op),
        "MUBUF" => set(&mut w[0], 25, 18, op),
        "FLAT" => set(&mut w[0], 24, 18, op),
        "MTBUF" => {
            set(&mut w[0], 18, 16, op);
            set(&mut w[1], 21, 21, op >> 3);
        }
        "MIMG" => {
            set(&mut w[0], 24, 18, op);
            set(&mut w[0], 0, 0, op >> 7);
        }
        _ => {}
    }
}

/// Number of opcode values the sweep walks for a family.
pub fn opcode_count(family: usize) -> u32 {
    match FAMILIES[family].0 {
        "SOP2" => 0x60,
        "SOPK" => 0x1d,
        "SOP1" | "SMEM" | "DS" | "VOP1" | "VOPC" | "MIMG" | "MUBUF" => 256,
        "SOPC" | "SOPP" | "VOP3P" | "FLAT" => 128,
        "VOP2" => 0x3e,
        "VOP3" => 1024,
        "VINTRP" => 4,
        "MTBUF" => 16,
        _ => 1,
    }
}

/// Candidate k of a run: even k random in its family, odd k walks the family's opcodes in turn.
pub fn sweep_or_random(r: &mut Rng, family: usize, k: usize) -> Vec<u32> {
    let mut c = candidate(r, family);
    if k % 2 == 1 && !matches!(FAMILIES[family].0, "DPP16" | "DPP8" | "SDWA") {
        let n = opcode_count(family);
        let op = ((k / 2 / FAMILIES.len()) as u32) % n;
        with_opcode(family, &mut c, op);
    }
    c
}
