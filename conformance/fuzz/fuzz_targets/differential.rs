//! Long differential runs under libFuzzer: the input's first eight bytes are a `conformance fuzz` seed; the
//! batch of four programs it generates (gfx1030's when byte 9 is odd, else gfx1013's; byte 8 odd: metamorphic)
//! runs on the model and on the default Vulkan device, and a divergence
//! aborts with the minimised program. libFuzzer's coverage of the recompiler and the model steers the seeds.
//! `cargo +nightly fuzz run differential` (in `conformance/`).

#![no_main]

use conformance::fuzz::{run_batch, Report, Rewrite};
use conformance::vulkan::VulkanBackend;
use libfuzzer_sys::fuzz_target;
use reference_model::exec::{Limits, ModelBackend};
use reference_model::isa::Target;

thread_local! {
    static VULKAN: VulkanBackend =
        VulkanBackend::open(None, Limits::default()).expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)");
}

fuzz_target!(|data: &[u8]| {
    let Some(head) = data.get(..8) else { return };
    let seed = u64::from_le_bytes(head.try_into().expect("eight bytes"));
    let metamorphic = data.get(8).is_some_and(|b| b & 1 == 1);
    let rw = if metamorphic {
        Rewrite {
            vop3: true,
            nops: true,
            exec_wrap: true,
            rename: true,
        }
    } else {
        Rewrite::default()
    };
    VULKAN.with(|vulkan| {
        let model = ModelBackend::default();
        let mut report = Report::default();
        // Odd bytes at 9 draw gfx1030's programs, even ones gfx1013's.
        let target = if data.get(9).is_some_and(|b| b & 1 == 1) {
            Target::Gfx1030
        } else {
            Target::Gfx1013
        };
        run_batch(&model, &[vulkan], seed, 0, 4, None, target, rw, &mut report)
            .expect("the batch builds");
        if let Some(d) = report.divergences.first() {
            panic!(
                "divergence: {} on {}, mode {}, wave{}\n{}\n{}",
                d.origin,
                d.backend,
                d.mode,
                d.wave,
                d.text,
                d.lanes.join("\n")
            );
        }
    });
});
