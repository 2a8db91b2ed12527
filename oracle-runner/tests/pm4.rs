//! Kernels in the oracle's own layout (`oracle-v1`: the kernel argument segment's address in s[0:1]) through
//! the PM4 path: the encoder puts the kernarg segment where the backends put it for the job itself, and the
//! command processor's job gives the model's direct result, in both wave sizes. llvm-mc-19 assembles the
//! kernels (CI installs llvm-19).

use driver::pm4::{run_job, EncodeOptions, Engine};
use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use oracle_runner::collect::{assemble, kernel_text};
use reference_model::exec::ModelBackend;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn have_llvm_mc() -> bool {
    let ok = Command::new("llvm-mc-19").arg("--version").output().is_ok()
        || Path::new("/usr/lib/llvm-19/bin/llvm-mc").exists();
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI needs llvm-mc-19 (Debian llvm-19)"
    );
    if !ok {
        eprintln!("NOTE: llvm-mc-19 is not installed; skipping");
    }
    ok
}

#[test]
fn oracle_v1_kernels_through_pm4_equal_the_direct_model_run() {
    if !have_llvm_mc() {
        return;
    }
    let model = ModelBackend::default();
    for wave in [32, 64] {
        let words = assemble(
            &kernel_text(
                "v_add_f32 v10, v4, v5\nv_mul_f32 v11, v6, v7\nv_mov_b32 v12, s0",
                wave,
            ),
            "gfx1013",
            wave,
        )
        .unwrap();
        let threads = 64;
        let job = Job {
            suite: "oracle-pm4".into(),
            kernel: Arc::new(Kernel::oracle_v1("add", &words, wave, threads, 0)),
            target: "gfx1013".into(),
            mode: FloatMode::TITLE,
            dispatch: "0".into(),
            lanes: (0..threads)
                .map(|l| {
                    (
                        l,
                        vec![0x3f80_0000 + l, 0x4000_0000, 0x7f80_0001, 0x3f00_0000 + l],
                    )
                })
                .collect(),
            independent_groups: false,
            addresses: None,
        };
        let direct = model.run(&job).unwrap();
        // Column 2 is s0: the kernarg segment's low address dword, the same on both paths.
        assert_ne!(direct.lanes[0][2], 0);
        for engine in [Engine::Compute, Engine::Graphics] {
            let options = EncodeOptions {
                engine,
                ..EncodeOptions::default()
            };
            assert_eq!(
                run_job(&job, &model, &options).unwrap(),
                direct,
                "wave{wave} {engine:?}"
            );
        }
    }
}
