//! A job that runs past its timeout but ends later: the Context is poisoned while it runs,
//! then frees what the job used and works again. Its own test binary, so that no endless job
//! of another test competes for the CPU.

mod common;

use std::time::{Duration, Instant};

use common::*;
use driver::{BufferSpec, ComputeJob, DriverError};

#[test]
fn context_recovers_once_a_timed_out_job_ends() {
    let Some(slow) = assemble(FOREVER) else {
        return;
    };
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    // About 2 s on the 2-core VM (1024 workgroups of 65535 iterations), far past 100 ms.
    let err = ctx
        .run(&ComputeJob {
            spirv: &slow,
            entry: "main",
            buffers: &buffers,
            push_constants: &[],
            workgroups: [1024, 1, 1],
            required_subgroup_size: None,
            timeout: Duration::from_millis(100),
        })
        .unwrap_err();
    assert!(matches!(err, DriverError::Timeout { .. }), "{err}");

    let input = words_to_bytes(&[5]);
    let again = [BufferSpec::input(&input), BufferSpec::output(4)];
    let pc = words_to_bytes(&[1, 1]);
    let job = job(&triple, &again, &pc);
    let mut saw_poisoned = false;
    let start = Instant::now();
    while ctx.is_poisoned() {
        if !saw_poisoned {
            match ctx.run(&job) {
                Err(DriverError::Poisoned(why)) => assert!(why.contains("timed out"), "{why}"),
                // The job may have ended between the two calls.
                Ok(_) => break,
                Err(e) => panic!("want Poisoned, got {e}"),
            }
            saw_poisoned = true;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the slow job never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("usable again {:?} after the timeout", start.elapsed());
    let r = ctx.run(&job).unwrap();
    assert_eq!(bytes_to_words(r.buffers[1].as_ref().unwrap()), vec![16]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // close() fails on leaked allocations: the timed-out job's buffers were freed.
    ctx.close().unwrap();
}
