//! Running compute jobs on lavapipe, with the validation layer on (CI requires it), and exact
//! results read back.

mod common;

use common::*;
use driver::{BufferSpec, ComputeJob, DriverError, Init, MemoryStrategy};

fn push(add: u32, count: u32) -> Vec<u8> {
    words_to_bytes(&[add, count])
}

fn expect(input: &[u32], add: u32) -> Vec<u32> {
    input
        .iter()
        .map(|x| x.wrapping_mul(3).wrapping_add(add))
        .collect()
}

#[test]
fn triple_plus_push_constant_exact() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    if ci() {
        assert!(ctx.validation_enabled());
    }
    let n = 64u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let in_bytes = words_to_bytes(&input);
    let buffers = [
        BufferSpec::input(&in_bytes),
        BufferSpec::output(u64::from(n) * 4),
    ];
    let pc = push(7, n);
    let result = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    assert_eq!(result.buffers.len(), 2);
    assert!(result.buffers[0].is_none(), "binding 0 was not asked back");
    let out = bytes_to_words(result.buffers[1].as_ref().unwrap());
    assert_eq!(out, expect(&input, 7));
    assert!(
        result.warnings.is_empty(),
        "validation: {:?}",
        result.warnings
    );
    assert!(result.elapsed.as_nanos() > 0);
    // Teardown reports validation errors (objects left alive) and leaked allocations.
    ctx.close().unwrap();
}

#[test]
fn several_workgroups_fill_unread_and_zero_size_buffers() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    for memory in [
        MemoryStrategy::Auto,
        MemoryStrategy::Staged,
        MemoryStrategy::HostVisible,
    ] {
        let Some(ctx) = lavapipe_with(memory, 64) else {
            return;
        };
        assert_eq!(ctx.uses_staging(), memory == MemoryStrategy::Staged);
        let n = 1000u32; // 16 workgroups of 64, the last one partly idle
        let input: Vec<u32> = (0..n).map(|i| i ^ 0x5555_0000).collect();
        let in_bytes = words_to_bytes(&input);
        let buffers = [
            BufferSpec {
                size: in_bytes.len() as u64,
                init: Init::Bytes(&in_bytes),
                read_back: true,
            },
            BufferSpec {
                size: 1024 * 4,
                init: Init::Fill(0xdead_beef),
                read_back: true,
            },
            BufferSpec {
                size: 256,
                init: Init::Fill(1),
                read_back: false,
            },
            BufferSpec {
                size: 0,
                init: Init::Zero,
                read_back: true,
            },
        ];
        let pc = push(0x1234_5678, n);
        let result = ctx
            .run(&ComputeJob {
                workgroups: [16, 1, 1],
                ..job(&spirv, &buffers, &pc)
            })
            .unwrap();
        let b = &result.buffers;
        assert_eq!(b.len(), 4);
        assert_eq!(
            b[0].as_deref(),
            Some(&in_bytes[..]),
            "{memory:?}: input unchanged"
        );
        let out = bytes_to_words(b[1].as_ref().unwrap());
        assert_eq!(out.len(), 1024);
        assert_eq!(&out[..1000], &expect(&input, 0x1234_5678)[..], "{memory:?}");
        assert!(
            out[1000..].iter().all(|&w| w == 0xdead_beef),
            "{memory:?}: tail kept its fill"
        );
        assert!(b[2].is_none());
        assert_eq!(
            b[3].as_deref(),
            Some(&[][..]),
            "zero-size buffer reads back empty"
        );
        assert!(
            result.warnings.is_empty(),
            "{memory:?}: {:?}",
            result.warnings
        );
        ctx.close().unwrap();
    }
}

#[test]
fn short_initial_bytes_are_zero_padded_and_odd_sizes_read_back_exactly() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    for memory in [MemoryStrategy::Staged, MemoryStrategy::HostVisible] {
        let Some(ctx) = lavapipe_with(memory, 64) else {
            return;
        };
        let head = words_to_bytes(&[10, 20]);
        let buffers = [
            BufferSpec {
                size: 16,
                init: Init::Bytes(&head),
                read_back: true,
            },
            BufferSpec::output(16),
        ];
        let pc = push(1, 4);
        let r = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
        assert_eq!(
            bytes_to_words(r.buffers[0].as_ref().unwrap()),
            vec![10, 20, 0, 0]
        );
        assert_eq!(
            bytes_to_words(r.buffers[1].as_ref().unwrap()),
            vec![31, 61, 1, 1]
        );

        // Odd sizes: a 6-byte filled buffer and a 3-byte one from bytes; count 0, so the
        // shader touches neither.
        let buffers = [
            BufferSpec {
                size: 6,
                init: Init::Fill(0x0403_0201),
                read_back: true,
            },
            BufferSpec {
                size: 3,
                init: Init::Bytes(&[9, 8]),
                read_back: true,
            },
        ];
        let pc = push(1, 0);
        let r = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
        assert_eq!(
            r.buffers[0].as_deref(),
            Some(&[1u8, 2, 3, 4, 1, 2][..]),
            "{memory:?}"
        );
        assert_eq!(
            r.buffers[1].as_deref(),
            Some(&[9u8, 8, 0][..]),
            "{memory:?}"
        );
        ctx.close().unwrap();
    }
}

#[test]
fn zero_workgroups_dispatch_nothing() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let input = words_to_bytes(&[1, 2]);
    let buffers = [
        BufferSpec::input(&input),
        BufferSpec {
            size: 8,
            init: Init::Fill(7),
            read_back: true,
        },
    ];
    let pc = push(0, 2);
    let r = ctx
        .run(&ComputeJob {
            workgroups: [0, 1, 1],
            ..job(&spirv, &buffers, &pc)
        })
        .unwrap();
    assert_eq!(bytes_to_words(r.buffers[1].as_ref().unwrap()), vec![7, 7]);
    ctx.close().unwrap();
}

#[test]
fn pipelines_are_cached_evicted_and_optional() {
    let Some(triple) = assemble(TRIPLE) else {
        return;
    };
    let Some(subgroup) = assemble(SUBGROUP_SIZE) else {
        return;
    };
    let input = words_to_bytes(&[2]);
    let tb = [BufferSpec::input(&input), BufferSpec::output(4)];
    let pc = push(1, 1);
    let sb = [BufferSpec::output(4)];
    for capacity in [0usize, 1, 8] {
        let Some(ctx) = lavapipe_with(MemoryStrategy::Auto, capacity) else {
            return;
        };
        for round in 0..3 {
            let r = ctx.run(&job(&triple, &tb, &pc)).unwrap();
            assert_eq!(bytes_to_words(r.buffers[1].as_ref().unwrap()), vec![7]);
            let r = ctx.run(&job(&subgroup, &sb, &[])).unwrap();
            assert_eq!(
                bytes_to_words(r.buffers[0].as_ref().unwrap()),
                vec![lavapipe_subgroup_size()]
            );
            let want = capacity.min(2);
            assert_eq!(
                ctx.cached_pipelines(),
                want,
                "capacity {capacity}, round {round}"
            );
        }
        ctx.close().unwrap();
    }
}

#[test]
fn required_subgroup_size() {
    let Some(subgroup) = assemble(SUBGROUP_SIZE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let sb = [BufferSpec::output(4)];
    let n = lavapipe_subgroup_size();
    let r = ctx
        .run(&ComputeJob {
            required_subgroup_size: Some(n),
            ..job(&subgroup, &sb, &[])
        })
        .unwrap();
    assert_eq!(bytes_to_words(r.buffers[0].as_ref().unwrap()), vec![n]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    for size in [16, 32, 6, 0] {
        let err = ctx
            .run(&ComputeJob {
                required_subgroup_size: Some(size),
                ..job(&subgroup, &sb, &[])
            })
            .unwrap_err();
        assert!(
            matches!(err, DriverError::Unsupported(_)),
            "size {size}: {err}"
        );
    }
    ctx.close().unwrap();
}

#[test]
fn threads_share_one_context() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    std::thread::scope(|s| {
        for t in 0..3u32 {
            let ctx = &ctx;
            let spirv = &spirv;
            s.spawn(move || {
                for k in 0..4u32 {
                    let input: Vec<u32> = (0..64).map(|i| i + 100 * t).collect();
                    let bytes = words_to_bytes(&input);
                    let buffers = [BufferSpec::input(&bytes), BufferSpec::output(256)];
                    let pc = push(k, 64);
                    let r = ctx.run(&job(spirv, &buffers, &pc)).unwrap();
                    assert_eq!(
                        bytes_to_words(r.buffers[1].as_ref().unwrap()),
                        expect(&input, k)
                    );
                }
            });
        }
    });
    assert_eq!(ctx.cached_pipelines(), 1);
    ctx.close().unwrap();
}

#[test]
fn statistics_come_back_only_where_the_device_offers_them() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let input = words_to_bytes(&[1, 2, 3, 4]);
    let buffers = [BufferSpec::input(&input), BufferSpec::output(16)];
    let pc = push(1, 4);
    // Off by default: nothing captured.
    let r = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    assert!(r.statistics.is_empty());
    let offered = ctx.set_capture_statistics(true);
    let r = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    assert_eq!(
        bytes_to_words(r.buffers[1].as_ref().unwrap()),
        expect(&[1, 2, 3, 4], 1)
    );
    // A pipeline made with capture on is a different cache entry: it reports, where the device can.
    assert_eq!(!r.statistics.is_empty(), offered, "{:?}", r.statistics);
    assert!(r.warnings.is_empty(), "validation: {:?}", r.warnings);
    ctx.close().unwrap();
}

#[test]
fn an_unoptimized_pipeline_is_its_own_cache_entry_and_computes_the_same() {
    let Some(spirv) = assemble(TRIPLE) else {
        return;
    };
    let Some(ctx) = lavapipe() else { return };
    let input = words_to_bytes(&[7, 0, 0xffff_ffff, 40]);
    let buffers = [BufferSpec::input(&input), BufferSpec::output(16)];
    let pc = push(3, 4);
    let optimized = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    ctx.set_optimize(false);
    let plain = ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    assert_eq!(
        ctx.cached_pipelines(),
        2,
        "the flag is part of the pipeline key"
    );
    assert_eq!(plain.buffers[1], optimized.buffers[1]);
    assert_eq!(
        bytes_to_words(plain.buffers[1].as_ref().unwrap()),
        expect(&[7, 0, 0xffff_ffff, 40], 3)
    );
    assert!(
        plain.warnings.is_empty(),
        "validation: {:?}",
        plain.warnings
    );
    ctx.set_optimize(true);
    ctx.run(&job(&spirv, &buffers, &pc)).unwrap();
    assert_eq!(
        ctx.cached_pipelines(),
        2,
        "back on: the first pipeline again"
    );
    ctx.close().unwrap();
}
