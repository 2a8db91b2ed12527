//! What the model runs, the recompiler translates: every vector ALU opcode of gfx1013 and gfx1030 in the
//! VOP1, VOP2, VOPC, VOP3 and VOP3P encodings, plain and with the modifier fields (clamp, omod, abs, neg,
//! op_sel), DPP16, DPP8 and SDWA patterns, as a one-instruction kernel. A word the model runs must compile,
//! except the refusals listed in `KNOWN` (each in `recompiler/README.md`, "What it refuses"): a new gap
//! fails this test with the instruction and the recompiler's reason.

use measurements::job::{Backend, BackendError, Job};
use measurements::kernel::Kernel;
use reference_model::exec::ModelBackend;
use reference_model::isa::{self, Target};
use std::sync::Arc;

/// Refusals the README lists: (mnemonic prefix, reason fragment).
const KNOWN: [(&str, &str); 3] = [
    ("v_movrel", "relative addressing with DPP"),
    ("ds_", "src2 LDS forms"),
    ("s_atomic", "scalar stores, atomics and probes"),
];

const ENDPGM: u32 = 0xbf81_0000;

/// Candidate words: the encodings' opcode spaces with operand and modifier patterns.
fn candidates() -> Vec<[u32; 3]> {
    let mut c = Vec::new();
    for op in 0..0x400u32 {
        for w1 in [260 | 261 << 9 | 262 << 18, 22 | 24 << 9 | 26 << 18] {
            c.push([0xd400_0000 | op << 16 | 10, w1, ENDPGM]);
            // clamp, omod, abs, neg, op_sel.
            for (a, b) in [
                (0x8000u32, 0u32),
                (0, 1 << 27),
                (0, 3 << 27),
                (0x100, 0),
                (0x700, 0),
                (0, 1 << 29),
                (0, 7 << 29),
                (0x800, 0),
                (0x4000, 0),
            ] {
                c.push([0xd400_0000 | op << 16 | 10 | a, w1 | b, ENDPGM]);
            }
        }
    }
    for op in 0..0x80u32 {
        // VOP3P with the default op_sel_hi, then with neg_lo/neg_hi and clamp.
        let w1 = 22 | 24 << 9 | 26 << 18 | 3 << 27;
        c.push([0xcc00_0000 | op << 16 | 10 | 0x4000, w1, ENDPGM]);
        c.push([
            0xcc00_0000 | op << 16 | 10 | 0x4000 | 0x8000 | 0x300,
            w1 | 3 << 29,
            ENDPGM,
        ]);
        c.push([0x7e00_0000 | 10 << 17 | op << 9 | 260, ENDPGM, ENDPGM]);
        c.push([op << 25 | 10 << 17 | 5 << 9 | 260, ENDPGM, ENDPGM]);
        // DPP16 quad_perm and row_shr, DPP8, SDWA (word and byte selects, sext) on VOP1 and VOP2.
        for dpp in [0xff00_0000u32 | 0x1b << 8 | 2, 0xff00_0000 | 0x111 << 8 | 2] {
            c.push([0x7e00_0000 | 10 << 17 | op << 9 | 0xfa, dpp, ENDPGM]);
            c.push([op << 25 | 10 << 17 | 5 << 9 | 0xfa, dpp, ENDPGM]);
        }
        c.push([
            0x7e00_0000 | 10 << 17 | op << 9 | 0xe9,
            2 | 0x00fa_c688 << 8,
            ENDPGM,
        ]);
        for sdwa in [
            2u32 | 6 << 8 | 6 << 16 | 6 << 24,
            2 | 4 << 8 | 1 << 16 | 5 << 24,
            2 | 6 << 8 | 0x0a << 16 | 1 << 24,
        ] {
            c.push([0x7e00_0000 | 10 << 17 | op << 9 | 0xf9, sdwa, ENDPGM]);
            c.push([op << 25 | 10 << 17 | 5 << 9 | 0xf9, sdwa, ENDPGM]);
        }
    }
    for op in 0..0x100u32 {
        c.push([0x7c00_0000 | op << 17 | 5 << 9 | 260, ENDPGM, ENDPGM]);
    }
    c
}

#[test]
fn every_vector_form_the_model_runs_is_translated() {
    let model = ModelBackend::default();
    let mut gaps = std::collections::BTreeSet::new();
    let mut translated = 0;
    for (name, target) in [("gfx1013", Target::Gfx1013), ("gfx1030", Target::Gfx1030)] {
        let mut seen = std::collections::BTreeSet::new();
        for w in candidates() {
            let Ok(inst) = isa::decode(target, &w, 0) else {
                continue;
            };
            let words = &w[..inst.size as usize];
            if !seen.insert(words.to_vec()) {
                continue;
            }
            // v0 = 1.0, v2 = 2.0, v3 = 0.5 (VGPR and DPP sources), then the instruction.
            let mut prog = vec![
                0x7e00_02ff,
                0x3f80_0000,
                0x7e04_02ff,
                0x4000_0000,
                0x7e06_02ff,
                0x3f00_0000,
            ];
            prog.extend_from_slice(words);
            prog.push(ENDPGM);
            let k = Kernel::agc_buffer("coverage", &prog, 32, 32, (4, 16), 0xdead_beef, 4096);
            let job = Job {
                suite: "coverage".into(),
                kernel: Arc::new(k),
                target: name.into(),
                mode: measurements::FloatMode::TITLE,
                dispatch: "0".repeat(16),
                lanes: (0..32).map(|l| (l, vec![l, 1, 2, 3])).collect(),
                independent_groups: false,
                addresses: None,
            };
            if matches!(
                model.run(&job),
                Err(BackendError::Unsupported { .. }) | Err(BackendError::InvalidJob(_))
            ) {
                continue;
            }
            match recompiler::job::prepare(&job, Default::default()) {
                Ok(_) => translated += 1,
                Err(BackendError::Unsupported {
                    instruction,
                    reason,
                }) => {
                    let m = inst.op.mnemonic();
                    if !KNOWN
                        .iter()
                        .any(|(p, r)| m.starts_with(p) && reason.contains(r))
                    {
                        gaps.insert(format!("{name} {instruction}: {reason}"));
                    }
                }
                Err(e) => panic!("{name} {}: {e}", inst.op.mnemonic()),
            }
        }
    }
    assert!(
        gaps.is_empty(),
        "the model runs these and the recompiler refuses them:\n{}",
        gaps.into_iter().collect::<Vec<_>>().join("\n")
    );
    // 6,883 words on 2026-12-07.
    assert!(translated > 6000, "only {translated} words translated");
}
