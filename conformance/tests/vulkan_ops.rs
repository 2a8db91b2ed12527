//! The recompiler against the reference model, opcode by opcode, on lavapipe: every opcode of the ALU,
//! scalar, LDS and memory encodings that the decoder accepts is probed with fixed operands (as the model's
//! coverage test does), in wave32 and wave64. Whatever the recompiler translates must give exactly the
//! model's memory; what it refuses is counted. A probe whose translation differs from the model fails the
//! test with the instruction.
//!
//! Probes run in batches of sixteen per kernel (each mixes its results into a per-lane checksum that the
//! kernel stores at its end), so a compile serves sixteen instructions; a batch whose results differ is
//! rerun one probe at a time to name the instruction.
//!
//! Needs lavapipe and llvm-mc (CI installs both); outside CI the test is skipped with a note when either is
//! missing.

mod common;

use common::asm;
use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::ModelBackend;
use reference_model::isa::{self, Target};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every probed word pair: (encoding, opcode, words).
fn candidates() -> Vec<(&'static str, u32, [u32; 2])> {
    let endpgm = 0xbf81_0000;
    let mut c = Vec::new();
    for op in 0..0x400u32 {
        let w0 = 0xd400_0000 | op << 16 | 10;
        for w1 in [
            260 | 261 << 9 | 262 << 18,
            22 | 24 << 9 | 26 << 18,
            260 | 24 << 9 | 26 << 18,
        ] {
            c.push(("VOP3", op, [w0, w1]));
        }
    }
    for op in 0..0x80u32 {
        c.push(("SOP1", op, [0xbe80_0000 | op << 8 | 20 << 16 | 22, endpgm]));
        c.push(("SOPC", op, [0xbf00_0000 | op << 16 | 24 << 8 | 22, endpgm]));
        c.push(("SOPP", op, [0xbf80_0000 | op << 16 | 1, endpgm]));
        // VOP1 / VOP2 / VOPC e32 forms: v10, v4 (and v5).
        c.push(("VOP1", op, [0x7e00_0000 | 10 << 17 | op << 9 | 260, endpgm]));
        c.push(("VOP2", op, [op << 25 | 10 << 17 | 5 << 9 | 260, endpgm]));
    }
    for op in 0..0x100u32 {
        c.push(("VOPC", op, [0x7c00_0000 | op << 17 | 5 << 9 | 260, endpgm]));
        c.push((
            "DS",
            op,
            [0xd800_0000 | op << 18, 1 | 4 << 8 | 5 << 16 | 10 << 24],
        ));
    }
    for op in 0..0x60u32 {
        c.push((
            "SOP2",
            op,
            [0x8000_0000 | op << 23 | 20 << 16 | 24 << 8 | 22, endpgm],
        ));
    }
    for op in 0..0x20u32 {
        c.push(("SOPK", op, [0xb000_0000 | op << 23 | 20 << 16 | 5, endpgm]));
    }
    for op in 0..0x80u32 {
        // MUBUF on the out buffer (s[4:7], offen v1, data v22..), glc set so atomics return.
        c.push((
            "MUBUF",
            op,
            [
                0xe000_0000 | op << 18 | 1 << 12 | 1 << 14,
                1 | 22 << 8 | 1 << 16 | 0x80 << 24,
            ],
        ));
        // GLOBAL at the out buffer's base (v[20:21]), data v22.., result v10.
        c.push((
            "GLOBAL",
            op,
            [
                0xdc00_0000 | op << 18 | 2 << 14 | 1 << 16,
                20 | 22 << 8 | 0x7d << 16 | 10 << 24,
            ],
        ));
    }
    for op in 0..0x100u32 {
        // SMEM: s_load* from s[8:9], s_buffer_load* from s[4:7], into s20.
        c.push((
            "SMEM",
            op,
            [0xf400_0000 | op << 18 | 4 | 20 << 6, 0x7d << 25],
        ));
        c.push((
            "SMEM",
            op,
            [0xf400_0000 | op << 18 | 2 | 20 << 6, 0x7d << 25],
        ));
    }
    c
}

/// Probes per kernel.
const BATCH: usize = 32;

struct Probe {
    wave: u32,
    pre: Vec<u32>,
    /// The words after each probe: its results (v10, v11, s20, s21, SCC, VCC) mixed into the lane's
    /// checksum in v30, EXEC restored first. Mixing instead of storing keeps the kernel to one store:
    /// lavapipe's compile time grows with the memory accesses a module has.
    post: Vec<u32>,
    /// The checksum's store and s_endpgm.
    end: Vec<u32>,
}

impl Probe {
    fn new(wave: u32) -> Probe {
        let exec = if wave == 32 {
            "s_mov_b32 exec_lo, -1"
        } else {
            "s_mov_b64 exec, -1"
        };
        let pre = asm(
            wave,
            "v_lshlrev_b32 v1, 4, v0\nv_lshlrev_b32 v2, 3, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\n\
             s_waitcnt vmcnt(0)\nv_mov_b32 v10, 0\nv_mov_b32 v11, 0\nv_mov_b32 v22, v4\nv_mov_b32 v23, v5\n\
             s_mov_b32 s8, s4\ns_and_b32 s9, s5, 0xffff\nv_mov_b32 v20, s8\nv_mov_b32 v21, s9\n\
             s_mov_b32 s22, 0x12345678\ns_mov_b32 s23, 0x9abcdef0\ns_mov_b32 s24, 7\ns_mov_b32 s25, 0x80000001\n\
             s_mov_b32 s26, 0xfffffff0\ns_mov_b32 s27, 3\ns_mov_b32 m0, 0x40\nv_mov_b32 v30, 0x811c9dc5",
        );
        let mut post = format!(
            "v_mov_b32 v12, s20\nv_mov_b32 v13, s21\ns_cselect_b32 s41, 1, 0\nv_mov_b32 v14, s41\n\
             v_mov_b32 v15, vcc_lo\n{exec}\n"
        );
        for v in 10..16 {
            post += &format!(
                "v_alignbit_b32 v30, v30, v30, 27\nv_xor_b32 v30, v30, v{v}\nv_mul_lo_u32 v30, v30, 0x9e3779b1\n"
            );
        }
        post += "v_mov_b32 v10, 0\nv_mov_b32 v11, 0";
        let end = asm(
            wave,
            &format!(
                "s_movk_i32 s40, {}\nbuffer_store_dword v30, v2, s[4:7], s40 offen\ns_endpgm",
                wave * 32
            ),
        );
        Probe {
            wave,
            pre,
            post: asm(wave, &post),
            end,
        }
    }

    fn job(&self, probes: &[Vec<u32>]) -> Job {
        let mut words = self.pre.clone();
        for p in probes {
            words.extend_from_slice(p);
            words.extend_from_slice(&self.post);
        }
        words.extend_from_slice(&self.end);
        // out: 64 bytes per lane, the probes' own stores in the first half, the checksums after.
        let k = Kernel::agc_buffer(
            "probe",
            &words,
            self.wave,
            self.wave,
            (4, 16),
            0xdead_beef,
            4096,
        );
        Job {
            suite: "probe".into(),
            kernel: Arc::new(k),
            target: "gfx1013".into(),
            mode: FloatMode::TITLE,
            dispatch: "0000000000000000".into(),
            lanes: (0..self.wave)
                .map(|i| {
                    (
                        i,
                        vec![i * 0x0101_0101, 0x3f80_0000 + i, 0x4000_0000 ^ i, i],
                    )
                })
                .collect(),
            independent_groups: false,
            addresses: None,
        }
    }
}

fn same(a: &Result<JobOutput, BackendError>, b: &Result<JobOutput, BackendError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.arrays == y.arrays,
        (Err(BackendError::Fault { .. }), Err(BackendError::Fault { .. })) => true,
        (Err(BackendError::Timeout { .. }), Err(BackendError::Timeout { .. })) => true,
        _ => false,
    }
}

/// The first differences of two results.
fn diff(m: &Result<JobOutput, BackendError>, v: &Result<JobOutput, BackendError>) -> String {
    match (m, v) {
        (Ok(x), Ok(y)) => {
            let mut d = Vec::new();
            for ((name, a), (_, b)) in x.arrays.iter().zip(&y.arrays) {
                for (i, (p, q)) in a
                    .iter()
                    .zip(b)
                    .enumerate()
                    .filter(|(_, (p, q))| p != q)
                    .take(4)
                {
                    d.push(format!("{name}[{i}] model {p:08x} vulkan {q:08x}"));
                }
            }
            d.join(", ")
        }
        _ => format!("model {:?} vulkan {:?}", m.as_ref().err(), v.as_ref().err()),
    }
}

#[test]
fn translated_opcodes_match_the_model_in_wave32_and_wave64() {
    if !common::have_llvm_mc() {
        return;
    }
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    let model = ModelBackend::default();
    let mut report = BTreeMap::new();
    let mut failures = Vec::new();
    // PROBES=text runs only the mnemonics containing it.
    let only = std::env::var("PROBES").ok();
    for wave in [32u32, 64] {
        let probe = Probe::new(wave);
        // Probes the model runs and the recompiler translates, one per mnemonic and operand pattern.
        let mut runnable = Vec::new();
        let mut solo = Vec::new();
        let (mut refused, mut model_only) = (0usize, 0usize);
        let mut seen = std::collections::BTreeSet::new();
        for (_, _, words) in candidates() {
            let Ok(inst) = isa::decode(Target::Gfx1013, &words, 0) else {
                continue;
            };
            let w = words[..inst.size as usize].to_vec();
            if !seen.insert(w.clone()) {
                continue;
            }
            let job = probe.job(std::slice::from_ref(&w));
            // A probe that ends the wave (fault, timeout) would hide the rest of a batch: it runs alone.
            let alone = match model.run(&job) {
                Ok(_) => false,
                Err(BackendError::Fault { .. }) | Err(BackendError::Timeout { .. }) => true,
                Err(_) => continue,
            };
            match recompiler::job::prepare(&job, Default::default()) {
                Ok(_)
                    if only
                        .as_deref()
                        .is_none_or(|o| inst.op.mnemonic().contains(o)) =>
                {
                    if alone {
                        solo.push((inst.op.mnemonic(), w))
                    } else {
                        runnable.push((inst.op.mnemonic(), w))
                    }
                }
                Ok(_) => {}
                Err(BackendError::Unsupported { .. }) => {
                    refused += 1;
                    model_only += 1;
                }
                Err(e) => panic!("{}: {e}", inst.op.mnemonic()),
            }
        }
        let mut matched = 0;
        eprintln!(
            "wave{wave}: {} probes to run ({} alone), {refused} refused",
            runnable.len() + solo.len(),
            solo.len()
        );
        let batches = runnable.chunks(BATCH).chain(solo.chunks(1));
        for (b, batch) in batches.enumerate() {
            let words: Vec<Vec<u32>> = batch.iter().map(|(_, w)| w.clone()).collect();
            let job = probe.job(&words);
            let t = std::time::Instant::now();
            let (m, v) = (model.run(&job), vulkan.run(&job));
            eprintln!(
                "batch {b} {} {:?} {:?}",
                batch[0].0,
                t.elapsed(),
                v.as_ref().err()
            );
            if same(&m, &v) {
                matched += batch.len();
                continue;
            }
            // Name the probe that differs.
            for (name, w) in batch {
                let job = probe.job(std::slice::from_ref(w));
                let (m, v) = (model.run(&job), vulkan.run(&job));
                if same(&m, &v) {
                    matched += 1;
                } else if let Err(BackendError::Unsupported { .. }) = v {
                    // A refusal the shader made at run time (never wrong, counted).
                    refused += 1;
                } else {
                    failures.push(format!("wave{wave} {name} {w:08x?}: {}", diff(&m, &v)));
                }
            }
        }
        report.insert(wave, (matched, refused, model_only));
    }
    for (wave, (matched, refused, _)) in &report {
        eprintln!("wave{wave}: {matched} probes translated and bit-exact, {refused} refused by the recompiler");
    }
    assert!(
        failures.is_empty(),
        "{} probes differ from the model:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for (wave, (matched, _, _)) in report.iter().filter(|_| only.is_none()) {
        assert!(
            *matched > 300,
            "wave{wave}: only {matched} probes translated"
        );
    }
}
