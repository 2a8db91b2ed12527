//! `conformance sweep` on the default device (lavapipe in CI): every f16 operation over all 2^16 inputs in
//! several modes, f32 operations over the ranges where rounding, flushing and saturation decide, and a wrong
//! reference to show that a divergence is found, counted and reported.

mod common;

use conformance::sweep::{self, Divergence};
use measurements::FloatMode;
use reference_model::isa::Op;

fn ctx() -> Option<driver::Context> {
    match driver::Context::open(None) {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "no Vulkan device ({e}); CI must install mesa-vulkan-drivers"
            );
            eprintln!("skipped: {e}");
            None
        }
    }
}

fn mode(text: &str) -> FloatMode {
    sweep::parse_mode(text).unwrap()
}

#[test]
fn every_f16_operation_matches_the_model_on_all_inputs() {
    let Some(ctx) = ctx() else { return };
    let ops: Vec<Op> = recompiler::sweep::unary_ops()
        .into_iter()
        .filter(|&op| recompiler::sweep::unary(op).unwrap().input_bits == 16)
        .collect();
    assert!(ops.len() >= 13, "{ops:?}");
    // Every f16 direction and denormal setting among them, IEEE and FP16_OVFL on and off.
    for m in ["c0/0/1/0", "34/1/1/1", "78/0/1/1", "fc/1/1/0", "0f/0/1/0"] {
        for &op in &ops {
            let r = sweep::run(&ctx, "lavapipe", op, mode(m), (0, 1 << 16), &mut |_| {}).unwrap();
            assert_eq!((r.start, r.end, r.total), (0, 1 << 16, 1 << 16));
            assert_eq!(r.divergences, 0, "{} {m}: {:x?}", op.mnemonic(), r.first);
        }
    }
}

#[test]
fn f32_operations_match_the_model_where_it_matters() {
    let Some(ctx) = ctx() else { return };
    // Around zero and the denormals, around one and the integers' limit (2^23 .. 2^31), the largest finite
    // values and the NaNs, for both signs.
    // 2^x's limits (126 .. 128, 1024 .. 1075) for v_exp.
    let windows: [u64; 8] = [
        0,
        0x3f7f_0000,
        0x42fc_0000,
        0x4480_0000,
        0x4afc_0000,
        0x4eff_0000,
        0x7f7f_0000,
        0x7fc0_0000,
    ];
    let ops = [
        Op::VFractF32,
        Op::VFrexpMantF32,
        Op::VFrexpExpI32F32,
        Op::VCvtI32F32,
        Op::VCvtU32F32,
        Op::VCvtFlrI32F32,
        Op::VCvtRpiI32F32,
        Op::VFloorF32,
        Op::VRndneF32,
        Op::VCvtF16F32,
        Op::VCvtF32I32,
        Op::VCvtF32U32,
        Op::VRcpF32,
        Op::VSqrtF32,
        Op::VRsqF32,
        Op::VExpF32,
        Op::VLogF32,
        Op::VSinF32,
        Op::VCosF32,
    ];
    for m in ["c0/0/1/0", "f1/1/1/0", "e2/0/1/0", "d3/1/1/0", "f0/0/1/0"] {
        for op in ops {
            for w in windows {
                for sign in [0, 0x8000_0000u64] {
                    let s = w | sign;
                    let r = sweep::run(
                        &ctx,
                        "lavapipe",
                        op,
                        mode(m),
                        (s, s + (1 << 16)),
                        &mut |_| {},
                    )
                    .unwrap();
                    assert_eq!(
                        r.divergences,
                        0,
                        "{} {m} from {s:#x}: {:x?}",
                        op.mnemonic(),
                        r.first
                    );
                }
            }
        }
    }
}

#[test]
fn a_wrong_reference_gives_counted_divergences_in_input_order() {
    let Some(ctx) = ctx() else { return };
    // v_floor_f16 against trunc: they differ exactly on the negative non-integral values.
    let trunc: sweep::ModelFn = |m, x| reference_model::float::trunc_f16(m, x as u16) as u32;
    let mut seen = 0;
    let r = sweep::run_against(
        &ctx,
        "lavapipe",
        Op::VFloorF16,
        FloatMode::TITLE,
        (0, 1 << 16),
        trunc,
        false,
        &mut |n| seen = n,
    )
    .unwrap();
    assert_eq!(seen, 1 << 16);
    let m = reference_model::float::Mode::TITLE;
    let want = (0..1u32 << 16)
        .filter(|&x| {
            reference_model::float::floor_f16(m, x as u16)
                != reference_model::float::trunc_f16(m, x as u16)
        })
        .count() as u64;
    assert!(want > 10_000, "{want}");
    assert_eq!(r.divergences, want);
    assert_eq!(r.first.len(), sweep::KEEP);
    assert!(r.first.windows(2).all(|w| w[0].input < w[1].input));
    let d: Divergence = r.first[0];
    assert_eq!(
        d.got,
        reference_model::float::floor_f16(m, d.input as u16) as u32
    );
    assert_eq!(
        d.want,
        reference_model::float::trunc_f16(m, d.input as u16) as u32
    );
    assert!(d.input & 0x8000 != 0, "{d:?}");
}

/// The transcendentals with their fixed-step computations as loops (`recompiler::Shape::rolled_loops`, on
/// everywhere but lavapipe): lavapipe runs them too, one input per invocation being far inside its loop
/// budget, so CI checks the loop form against the model as well.
#[test]
fn rolled_transcendentals_match_the_model() {
    let Some(ctx) = ctx() else { return };
    let run = |op: Op, m: &str, range: (u64, u64)| {
        let model = sweep::model_fn(op).expect("a model function");
        let r = sweep::run_against(
            &ctx,
            "lavapipe",
            op,
            mode(m),
            range,
            model,
            true,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(
            r.divergences,
            0,
            "{} {m} {range:x?}: {:x?}",
            op.mnemonic(),
            r.first
        );
    };
    for m in ["c0/0/1/0", "34/1/1/1", "fc/1/1/0"] {
        for op in [
            Op::VLogF16,
            Op::VExpF16,
            Op::VSinF16,
            Op::VCosF16,
            Op::VRcpF16,
            Op::VSqrtF16,
            Op::VRsqF16,
        ] {
            run(op, m, (0, 1 << 16));
        }
    }
    // Around one (log2's E = 0 path), the denormals, the largest values and 2^x's limits.
    for m in ["c0/0/1/0", "f1/1/1/0", "d3/1/1/0"] {
        for op in [
            Op::VLogF32,
            Op::VExpF32,
            Op::VSinF32,
            Op::VCosF32,
            Op::VRcpF32,
            Op::VSqrtF32,
            Op::VRsqF32,
        ] {
            for w in [0u64, 0x3f7f_0000, 0x42fc_0000, 0x7f7f_0000] {
                for sign in [0, 0x8000_0000u64] {
                    run(op, m, (w | sign, (w | sign) + (1 << 16)));
                }
            }
        }
    }
}
