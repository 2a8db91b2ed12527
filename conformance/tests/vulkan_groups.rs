//! Independent workgroups (`Job::independent_groups`): the vulkan backend runs each guest workgroup in a host
//! workgroup of its own, and the results, faults included, are those of the model's one-after-another order.

mod common;

use conformance::fuzz::{self, Rewrite};
use measurements::job::{Backend, BackendError};
use reference_model::exec::ModelBackend;
use reference_model::isa::Target;
use std::sync::Arc;

#[test]
fn independent_workgroups_give_the_models_results() {
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    let model = ModelBackend::default();
    for seed in 1..=4u64 {
        let wave = Some(if seed % 2 == 0 { 64 } else { 32 });
        let b = fuzz::batch(seed, 0, 16, wave, Target::Gfx1013);
        let words = fuzz::kernel_words(&b.programs, b.wave, Rewrite::default(), b.target).unwrap();
        let job = fuzz::job(&words, b.wave, 16, b.mode, &b.inputs, b.target);
        assert!(job.independent_groups);
        // The same job one workgroup after another: on lavapipe, whose invocations stop after 65,535 loop
        // iterations in all, several programs in one invocation are refused (hence the parallel runs).
        let mut serial = job.clone();
        serial.independent_groups = false;
        let want = model.run(&job).unwrap();
        match vulkan.run(&serial) {
            Ok(s) => assert_eq!(
                s.arrays, want.arrays,
                "seed {seed}: serial run and the model differ"
            ),
            Err(BackendError::Unsupported { reason, .. }) if reason.contains("65535") => {}
            Err(e) => panic!("seed {seed}: serial {e:?}"),
        }
        let got = vulkan
            .run(&job)
            .unwrap_or_else(|e| panic!("seed {seed}: parallel {e:?}"));
        assert_eq!(
            got.arrays, want.arrays,
            "seed {seed}: vulkan and the model differ"
        );
    }
}

#[test]
fn the_lowest_faulting_workgroup_is_the_one_reported() {
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    if !common::have_llvm_mc() {
        return;
    }
    // Workgroup 0 finishes; 1 faults at one load, 2 and 3 at another (address 0 is in no region).
    let words = common::asm(
        32,
        "v_mov_b32 v2, 0
         v_mov_b32 v3, 0
         s_cmp_eq_u32 s8, 0
         s_cbranch_scc1 9
         s_cmp_eq_u32 s8, 1
         s_cbranch_scc0 4
         global_load_dword v1, v[2:3], off
         s_waitcnt vmcnt(0)
         s_branch 3
         global_load_dword v1, v[2:3], off offset:64
         s_waitcnt vmcnt(0)
         s_endpgm",
    );
    let mut job = common::job(&words, 32, 32, (1, 1), |l| vec![l]);
    let mut k = (*job.kernel).clone();
    k.grid = [4, 1, 1];
    k.tgid = [true, false, false];
    job.kernel = Arc::new(k);
    job.independent_groups = true;
    let model = ModelBackend::default().run(&job);
    let got = vulkan.run(&job);
    match (&model, &got) {
        (
            Err(BackendError::Fault {
                pc: a, address: x, ..
            }),
            Err(BackendError::Fault {
                pc: b, address: y, ..
            }),
        ) => {
            assert_eq!((a, x), (b, y), "model {model:?}, vulkan {got:?}");
            // Workgroup 1's load (word 6), not the later workgroups' one (word 10).
            assert_eq!(*a, 6, "{model:?}");
        }
        other => panic!("both must fault: {other:?}"),
    }
}
