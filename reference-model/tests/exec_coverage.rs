//! Which opcodes the model refuses: every opcode of the ALU, scalar and LDS encodings that the decoder
//! accepts is run once (random-ish operands, one wave) on both targets, and the instructions that end in
//! `Unsupported` must be exactly those listed in `tests/data/refused.txt`, so the list in the docs stays
//! true. Faults and timeouts from meaningless operands (a jump to s20) are not refusals and do not count.
//!
//! Regenerate the list after implementing something: `REFUSED_BLESS=1 cargo test -p reference-model --test
//! exec_coverage`.

mod common;

use common::{asm, job};
use measurements::job::BackendError;
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::{run_job, Limits};
use reference_model::isa::{self, Target};
use std::collections::BTreeMap;

const LIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/refused.txt");

struct Probe {
    target: Target,
    cpu: &'static str,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Probe {
    fn new(target: Target, cpu: &'static str) -> Probe {
        let pre = asm(
            cpu,
            32,
            "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen\n\
             s_waitcnt vmcnt(0)\nv_mov_b32 v10, 0\nv_mov_b32 v11, 0\n\
             s_mov_b32 s8, s4\ns_and_b32 s9, s5, 0xffff\nv_mov_b32 v20, s8\nv_mov_b32 v21, s9",
        );
        let post = asm(
            cpu,
            32,
            "buffer_store_dwordx4 v[10:13], v1, s[4:7], 0 offen\ns_endpgm",
        );
        Probe {
            target,
            cpu,
            pre,
            post,
        }
    }

    /// The mnemonic and refusal reason of the instruction in `words`, if it decodes and is refused.
    fn refusal(&self, words: [u32; 2]) -> Option<(String, Option<String>)> {
        let inst = isa::decode(self.target, &words, 0).ok()?;
        let mut all = self.pre.clone();
        all.extend_from_slice(&words[..inst.size as usize]);
        all.extend_from_slice(&self.post);
        let k = Kernel::agc_buffer("probe", &all, 32, 32, (4, 4), 1, 65536);
        let inputs: Vec<[u32; 4]> = (0..32u32)
            .map(|i| [i * 0x0101_0101, 0x3f80_0000 + i, 0x4000_0000 ^ i, i])
            .collect();
        let r = run_job(
            &job(k, self.cpu, FloatMode::TITLE, &inputs),
            Limits {
                instructions: 10_000,
                ..Limits::default()
            },
        );
        let reason = match r {
            Err(BackendError::Unsupported { reason, .. }) => Some(reason),
            _ => None,
        };
        Some((inst.op.mnemonic().to_string(), reason))
    }
}

/// Every probed word: (encoding name, opcode, word pairs to try; the opcode counts as run if any runs).
fn candidates() -> Vec<(&'static str, u32, Vec<[u32; 2]>)> {
    let endpgm = 0xbf81_0000;
    let mut c = Vec::new();
    for op in 0..0x400u32 {
        // v10, v4, v5, v6; then v10, s22, s24, s26 for opcodes whose sources must be scalar (lane selects,
        // carry-in masks).
        let w0 = 0xd400_0000 | op << 16 | 10;
        c.push((
            "VOP3",
            op,
            vec![
                [w0, 260 | 261 << 9 | 262 << 18],
                [w0, 22 | 24 << 9 | 26 << 18],
                [w0, 260 | 24 << 9 | 26 << 18],
            ],
        ));
    }
    for op in 0..0x80u32 {
        c.push((
            "VOP3P",
            op,
            vec![[
                0xcc00_0000 | op << 16 | 10 | 1 << 14,
                260 | 261 << 9 | 262 << 18 | 3 << 27,
            ]],
        ));
        c.push((
            "SOP1",
            op,
            vec![[0xbe80_0000 | op << 8 | 20 << 16 | 22, endpgm]],
        ));
        c.push((
            "SOPC",
            op,
            vec![[0xbf00_0000 | op << 16 | 24 << 8 | 22, endpgm]],
        ));
        c.push(("SOPP", op, vec![[0xbf80_0000 | op << 16 | 1, endpgm]]));
    }
    for op in 0..0x60u32 {
        c.push((
            "SOP2",
            op,
            vec![[0x8000_0000 | op << 23 | 20 << 16 | 24 << 8 | 22, endpgm]],
        ));
    }
    for op in 0..0x20u32 {
        c.push((
            "SOPK",
            op,
            vec![[0xb000_0000 | op << 23 | 20 << 16 | 5, endpgm]],
        ));
    }
    for op in 0..0x80u32 {
        // MUBUF on the out buffer (s[4:7], offen v1, data v22..), glc set so atomics return.
        c.push((
            "MUBUF",
            op,
            vec![[
                0xe000_0000 | op << 18 | 1 << 12 | 1 << 14,
                1 | 22 << 8 | 1 << 16 | 0x80 << 24,
            ]],
        ));
        // GLOBAL / FLAT at the out buffer's base (v[20:21]), data v22.., result v10.
        for (enc, seg) in [("GLOBAL", 2u32), ("FLAT", 0), ("SCRATCH", 1)] {
            c.push((
                enc,
                op,
                vec![
                    [
                        0xdc00_0000 | op << 18 | seg << 14 | 1 << 16,
                        20 | 22 << 8 | 0x7d << 16 | 10 << 24,
                    ],
                    // SGPR base s[8:9] plus the 32-bit offset v1 (and the ADDTID forms' base).
                    [
                        0xdc00_0000 | op << 18 | seg << 14 | 1 << 16,
                        1 | 22 << 8 | 8 << 16 | 10 << 24,
                    ],
                ],
            ));
        }
    }
    for op in 0..0x10u32 {
        // MTBUF, format 20 (BUF_FMT_32_UINT).
        c.push((
            "MTBUF",
            op,
            vec![[
                0xe800_0000 | (op & 7) << 16 | 20 << 19 | 1 << 12,
                1 | 22 << 8 | 1 << 16 | (op >> 3) << 21 | 0x80 << 24,
            ]],
        ));
    }
    for op in 0..0x100u32 {
        // SMEM: s_load* from s[8:9], s_buffer_load* from s[4:7], into s20.
        c.push((
            "SMEM",
            op,
            vec![
                [0xf400_0000 | op << 18 | 4 | 20 << 6, 0x7d << 25],
                [0xf400_0000 | op << 18 | 2 | 20 << 6, 0x7d << 25],
            ],
        ));
    }
    for op in 0..0x100u32 {
        c.push((
            "DS",
            op,
            vec![[0xd800_0000 | op << 18, 1 | 4 << 8 | 5 << 16 | 10 << 24]],
        ));
    }
    c
}

fn refused_list() -> String {
    // mnemonic -> (targets, encoding, reason)
    let mut refused: BTreeMap<String, (Vec<&str>, &str, String)> = BTreeMap::new();
    for probe in [
        Probe::new(Target::Gfx1013, "gfx1013"),
        Probe::new(Target::Gfx1030, "gfx1030"),
    ] {
        for (enc, _op, tries) in candidates() {
            let results: Vec<_> = tries.iter().filter_map(|w| probe.refusal(*w)).collect();
            let Some((name, _)) = results.first() else {
                continue;
            };
            if results.iter().any(|(_, r)| r.is_none()) {
                continue;
            }
            let reason = results[0].1.clone().unwrap_or_default();
            let e = refused
                .entry(name.clone())
                .or_insert((Vec::new(), enc, reason));
            e.0.push(probe.cpu);
        }
    }
    let mut out = String::from(
        "# Opcodes of the ALU, scalar and LDS encodings that the model refuses (tests/exec_coverage.rs).\n\
         # mnemonic | encoding | targets | reason\n",
    );
    for (name, (targets, enc, reason)) in refused {
        out.push_str(&format!(
            "{name} | {enc} | {} | {reason}\n",
            targets.join(",")
        ));
    }
    out
}

#[test]
fn refused_opcodes_are_the_documented_ones() {
    let got = refused_list();
    if std::env::var_os("REFUSED_BLESS").is_some() {
        std::fs::write(LIST, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(LIST).unwrap_or_default();
    if got != want {
        let diff: Vec<String> = got
            .lines()
            .filter(|l| !want.lines().any(|w| w == *l))
            .map(|l| format!("+ {l}"))
            .chain(
                want.lines()
                    .filter(|l| !got.lines().any(|g| g == *l))
                    .map(|l| format!("- {l}")),
            )
            .collect();
        panic!(
            "the refused opcodes changed; check, then rerun with REFUSED_BLESS=1:\n{}",
            diff.join("\n")
        );
    }
}
