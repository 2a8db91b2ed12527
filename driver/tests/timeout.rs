//! Shaders that do not end: what lavapipe does with `loop {}`, and that a job running past
//! its timeout returns `Timeout` in bounded time, poisons its Context, and leaves the process
//! able to open a fresh Context. Kept in its own test binary because the timed-out job keeps
//! lavapipe's worker threads busy until this process exits.

mod common;

use std::time::{Duration, Instant};

use common::*;
use driver::{BufferSpec, ComputeJob, DriverError};

#[test]
fn lavapipe_ends_an_endless_loop_after_65535_iterations() {
    let Some(forever) = assemble(FOREVER) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let start = Instant::now();
    let r = ctx
        .run(&ComputeJob {
            spirv: &forever,
            entry: "main",
            buffers: &buffers,
            push_constants: &[],
            workgroups: [1, 1, 1],
            required_subgroup_size: None,
            timeout: Duration::from_secs(20),
        })
        .unwrap();
    // gallivm (llvmpipe's compiler) gives every shader invocation a budget of 65535 loop
    // iterations in all (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop of the shader), then
    // breaks out silently. So `loop {}` ends on lavapipe, with the counter at 65535.
    assert_eq!(bytes_to_words(r.buffers[1].as_ref().unwrap()), vec![65535]);
    eprintln!(
        "lavapipe ended `loop {{}}` after 65535 iterations in {:?}",
        start.elapsed()
    );
    ctx.close().unwrap();
}

#[test]
fn a_job_past_its_timeout_returns_timeout_in_bounded_time() {
    let Some(forever) = assemble(FOREVER) else {
        return;
    };
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    // Since lavapipe cuts every loop off (see above), an endless job needs a huge grid: 65535
    // x 65535 workgroups of 65535 iterations each would take days of CPU time.
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let start = Instant::now();
    let err = ctx
        .run(&ComputeJob {
            spirv: &forever,
            entry: "main",
            buffers: &buffers,
            push_constants: &[],
            workgroups: [65535, 65535, 1],
            required_subgroup_size: None,
            timeout: Duration::from_secs(2),
        })
        .unwrap_err();
    let took = start.elapsed();
    match err {
        DriverError::Timeout { waited } => {
            assert!(waited >= Duration::from_secs(2), "waited only {waited:?}");
        }
        e => panic!("want Timeout, got {e}"),
    }
    assert!(took < Duration::from_secs(10), "run took {took:?}");
    eprintln!("timed out after {took:?}");
    assert!(ctx.is_poisoned());

    // The poisoned Context refuses work, at once and saying why.
    let input = words_to_bytes(&[5]);
    let again = [BufferSpec::input(&input), BufferSpec::output(4)];
    let pc = words_to_bytes(&[1, 1]);
    let job = ComputeJob {
        spirv: &triple,
        entry: "main",
        buffers: &again,
        push_constants: &pc,
        workgroups: [1, 1, 1],
        required_subgroup_size: None,
        timeout: Duration::from_secs(20),
    };
    match ctx.run(&job) {
        Err(DriverError::Poisoned(why)) => assert!(why.contains("timed out"), "{why}"),
        other => panic!("want Poisoned, got {other:?}"),
    }
    // Dropping it returns at once: it leaks the device instead of waiting for it.
    let t = Instant::now();
    ctx.close().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "close took {:?}",
        t.elapsed()
    );

    // A new Context works while the old dispatch still runs.
    let Some(fresh) = lavapipe() else { return };
    let result = fresh.run(&job).unwrap();
    assert_eq!(
        bytes_to_words(result.buffers[1].as_ref().unwrap()),
        vec![16]
    );
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    fresh.close().unwrap();
}
