//! Jobs the driver refuses: invalid modules, and parameters beyond the device's limits. Each
//! is a typed error, never a panic, and the Context stays usable afterwards.

mod common;

use common::*;
use driver::{BufferSpec, ComputeJob, Context, DriverError, Init, OpenOptions, Validation};

/// The job that must still work after each refusal.
fn still_works(ctx: &Context, triple: &[u32]) {
    let input = words_to_bytes(&[4]);
    let buffers = [BufferSpec::input(&input), BufferSpec::output(4)];
    let pc = words_to_bytes(&[2, 1]);
    let r = ctx.run(&job(triple, &buffers, &pc)).unwrap();
    assert_eq!(bytes_to_words(r.buffers[1].as_ref().unwrap()), vec![14]);
    assert!(!ctx.is_poisoned());
}

fn rejected(err: DriverError) -> (Option<driver::vk::Result>, String, Vec<String>) {
    match err {
        DriverError::ShaderRejected {
            result,
            reason,
            messages,
        } => (result, reason, messages),
        e => panic!("want ShaderRejected, got {e}"),
    }
}

#[test]
fn malformed_modules_are_rejected_before_the_driver() {
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let pc = words_to_bytes(&[0, 0]);

    let mut truncated = triple.clone();
    let last = truncated.len() - 1; // OpFunctionEnd, one word: claim five
    truncated[last] = (5 << 16) | (truncated[last] & 0xffff);
    let swapped: Vec<u32> = triple.iter().map(|w| w.swap_bytes()).collect();
    let cases: Vec<(&str, Vec<u32>, &str)> = vec![
        ("empty", vec![], "5-word header"),
        ("garbage", vec![0xdead_beef; 32], "magic"),
        ("byte-swapped", swapped, "byte-swapped"),
        ("truncated", truncated, "claims 5 words"),
        (
            "zero word count",
            [&triple[..], &[0]].concat(),
            "word count of 0",
        ),
    ];
    for (what, words, needle) in &cases {
        let err = ctx.run(&job(words, &buffers, &pc)).unwrap_err();
        let (result, reason, messages) = rejected(err);
        assert_eq!(result, None, "{what}");
        assert!(reason.contains(needle), "{what}: {reason}");
        assert!(messages.is_empty());
    }
    let err = ctx
        .run(&ComputeJob {
            entry: "not_main",
            ..job(&triple, &buffers, &pc)
        })
        .unwrap_err();
    let (_, reason, _) = rejected(err);
    assert!(
        reason.contains("no GLCompute entry point named \"not_main\""),
        "{reason}"
    );
    still_works(&ctx, &triple);
    ctx.close().unwrap();
}

/// TRIPLE with one operand replaced by an ID that is never defined: structurally fine,
/// semantically invalid.
fn undefined_id_module() -> Option<Vec<u32>> {
    let text = TRIPLE.replace(
        "%y = OpIAdd %uint %x3 %add",
        "%y = OpIAdd %uint %x3 %nowhere",
    );
    let words = run_spirv_as_unchecked(&text)?;
    Some(words)
}

fn run_spirv_as_unchecked(text: &str) -> Option<Vec<u32>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        return missing("spirv-as (Debian: spirv-tools)");
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    Some(bytes_to_words(&out.stdout))
}

#[test]
fn invalid_module_with_validation_names_the_problem() {
    let Some(bad) = undefined_id_module() else {
        return;
    };
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    if !ctx.validation_enabled() {
        eprintln!("SKIPPED: no validation layer (this fails in CI)");
        return;
    }
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let pc = words_to_bytes(&[0, 0]);
    let err = ctx.run(&job(&bad, &buffers, &pc)).unwrap_err();
    let text = err.to_string();
    let (result, _, messages) = rejected(err);
    assert_eq!(result, None, "stopped before the driver compiled it");
    assert!(
        messages.iter().any(|m| m.contains("has not been defined")),
        "{messages:?}"
    );
    assert!(text.contains("has not been defined"), "{text}");
    still_works(&ctx, &triple);
    ctx.close().unwrap();
}

#[test]
fn invalid_module_without_validation_is_refused_by_lavapipe() {
    let Some(bad) = undefined_id_module() else {
        return;
    };
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let ctx = match Context::open_with(&OpenOptions {
        selector: Some("llvmpipe"),
        validation: Validation::Off,
        ..OpenOptions::default()
    }) {
        Ok(c) => c,
        Err(e) => {
            let _: Option<()> = missing(&format!("lavapipe: {e}"));
            return;
        }
    };
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let pc = words_to_bytes(&[0, 0]);
    let err = ctx.run(&job(&bad, &buffers, &pc)).unwrap_err();
    let (result, reason, messages) = rejected(err);
    // Observed on Mesa 22.3.6: spirv_to_nir fails and pipeline creation returns
    // VK_ERROR_UNKNOWN.
    assert!(result.is_some(), "{reason}");
    assert!(messages.is_empty());
    still_works(&ctx, &triple);
    ctx.close().unwrap();
}

#[test]
fn validation_reports_a_push_constant_range_the_layout_lacks() {
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    if !ctx.validation_enabled() {
        eprintln!("SKIPPED: no validation layer (this fails in CI)");
        return;
    }
    // The shader reads 8 push-constant bytes; the job gives none, so the layout has no range.
    let buffers = [BufferSpec::output(4), BufferSpec::output(4)];
    let err = ctx.run(&job(&triple, &buffers, &[])).unwrap_err();
    let (result, reason, messages) = rejected(err);
    assert_eq!(result, None);
    assert!(reason.contains("validation layer"), "{reason}");
    assert!(
        messages
            .iter()
            .any(|m| m.to_lowercase().contains("push constant")),
        "{messages:?}"
    );
    assert_eq!(
        ctx.cached_pipelines(),
        0,
        "a refused pipeline is not cached"
    );
    still_works(&ctx, &triple);
    ctx.close().unwrap();
}

fn limit(err: DriverError, needle: &str, requested: u64, limit_is: u64) {
    match err {
        DriverError::Limit {
            what,
            requested: r,
            limit: l,
        } => {
            assert!(what.contains(needle), "{what}");
            assert_eq!((r, l), (requested, limit_is), "{what}");
        }
        e => panic!("want Limit({needle}), got {e}"),
    }
}

#[test]
fn limits_are_checked_before_submission() {
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let l = ctx.info().limits;
    let pc = words_to_bytes(&[0, 0]);
    let small = [BufferSpec::output(4), BufferSpec::output(4)];

    let range = u64::from(l.max_storage_buffer_range);
    let big = [BufferSpec::output(4), BufferSpec::output(range + 4)];
    limit(
        ctx.run(&job(&triple, &big, &pc)).unwrap_err(),
        "maxStorageBufferRange",
        range + 4,
        range,
    );

    let max_bindings = l
        .max_per_stage_descriptor_storage_buffers
        .min(l.max_descriptor_set_storage_buffers);
    let many = vec![BufferSpec::output(4); max_bindings as usize + 1];
    limit(
        ctx.run(&job(&triple, &many, &pc)).unwrap_err(),
        "maxPerStageDescriptorStorageBuffers",
        u64::from(max_bindings) + 1,
        u64::from(max_bindings),
    );

    let max_push = l.max_push_constants_size as usize;
    let too_much = vec![0u8; max_push + 1];
    limit(
        ctx.run(&job(&triple, &small, &too_much)).unwrap_err(),
        "maxPushConstantsSize",
        max_push as u64 + 1,
        max_push as u64,
    );
    // Exactly the limit is fine.
    let mut full = vec![0u8; max_push];
    full[..8].copy_from_slice(&pc);
    ctx.run(&job(&triple, &small, &full)).unwrap();

    for axis in 0..3 {
        let mut workgroups = [1, 1, 1];
        workgroups[axis] = l.max_compute_work_group_count[axis] + 1;
        limit(
            ctx.run(&ComputeJob {
                workgroups,
                ..job(&triple, &small, &pc)
            })
            .unwrap_err(),
            "maxComputeWorkGroupCount",
            u64::from(workgroups[axis]),
            u64::from(l.max_compute_work_group_count[axis]),
        );
    }

    let wide = assemble(&TRIPLE.replace("LocalSize 64 1 1", "LocalSize 1025 1 1")).unwrap();
    limit(
        ctx.run(&job(&wide, &small, &pc)).unwrap_err(),
        "maxComputeWorkGroupSize",
        1025,
        u64::from(l.max_compute_work_group_size[0]),
    );
    let deep = assemble(&TRIPLE.replace("LocalSize 64 1 1", "LocalSize 64 2 16")).unwrap();
    limit(
        ctx.run(&job(&deep, &small, &pc)).unwrap_err(),
        "maxComputeWorkGroupInvocations",
        64 * 2 * 16,
        u64::from(l.max_compute_work_group_invocations),
    );

    // Malformed jobs independent of the device.
    let bytes = [0u8; 8];
    let overfull = [
        BufferSpec {
            size: 4,
            init: Init::Bytes(&bytes),
            read_back: false,
        },
        BufferSpec::output(4),
    ];
    let err = ctx.run(&job(&triple, &overfull, &pc)).unwrap_err();
    assert!(matches!(err, DriverError::InvalidInput(_)), "{err}");
    let err = ctx
        .run(&ComputeJob {
            entry: "ma\0in",
            ..job(&triple, &small, &pc)
        })
        .unwrap_err();
    assert!(matches!(err, DriverError::InvalidInput(_)), "{err}");

    still_works(&ctx, &triple);
    ctx.close().unwrap();
}
