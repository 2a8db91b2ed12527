//! Running compute jobs on lavapipe.

mod common;

use std::time::Duration;

use common::*;
use driver::{BufferSpec, ComputeJob, Init};

fn push(add: u32, count: u32) -> Vec<u8> {
    words_to_bytes(&[add, count])
}

#[test]
fn triple_plus_push_constant_exact() {
    let Some(spirv) = assemble(TRIPLE) else { return };
    let Some(ctx) = lavapipe() else { return };
    let n = 64u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let in_bytes = words_to_bytes(&input);
    let buffers = [BufferSpec::input(&in_bytes), BufferSpec::output(u64::from(n) * 4)];
    let pc = push(7, n);
    let result = ctx
        .run(&ComputeJob {
            spirv: &spirv,
            entry: "main",
            buffers: &buffers,
            push_constants: &pc,
            workgroups: [1, 1, 1],
            required_subgroup_size: None,
            timeout: Duration::from_secs(20),
        })
        .unwrap();
    assert_eq!(result.buffers.len(), 2);
    assert!(result.buffers[0].is_none());
    let out = bytes_to_words(result.buffers[1].as_ref().unwrap());
    let want: Vec<u32> = input.iter().map(|x| x.wrapping_mul(3).wrapping_add(7)).collect();
    assert_eq!(out, want);
    assert!(result.warnings.is_empty(), "validation warnings: {:?}", result.warnings);
    eprintln!("validation: {}, staged: {}", ctx.validation_enabled(), ctx.uses_staging());
    ctx.close().unwrap();
}
