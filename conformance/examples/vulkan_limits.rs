//! A runaway kernel and a stray store on a Vulkan device: what the `vulkan` backend reports for each.
//!
//! `cargo run --release -p conformance --example vulkan_limits [-- DEVICE]` (DEVICE: part of the device's
//! name, as `--backend vulkan:DEVICE`; default lavapipe or the only device). It runs, in wave32 with 32
//! lanes:
//! - an endless loop under the default limits (1,000,000 instructions per wave, 60 s per dispatch): a
//!   device without a loop limit ends it with `Timeout`; lavapipe ends every shader loop after 65535
//!   iterations, so there the job is refused as unsupported, never reported finished;
//! - the same loop with a 20,000-instruction budget: `Timeout` on every device;
//! - a global store to 0x10000, where no array is mapped: `Fault` at that address.

use conformance::vulkan::VulkanBackend;
use measurements::job::{Backend, Job};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::exec::{Limits, ModelBackend};
use std::sync::Arc;
use std::time::Instant;

/// s_mov_b32 s10, 0; loop: s_add_u32 s10, s10, 1; s_branch loop; s_endpgm (llvm-mc 19, gfx1013).
const ENDLESS: [u32; 4] = [0xbe8a_0380, 0x800a_810a, 0xbf82_fffe, 0xbf81_0000];
/// v_mov_b32 v1, 0x10000; v_mov_b32 v2, 0; v_mov_b32 v3, 7; global_store_dword v[1:2], v3, off;
/// s_endpgm.
const STRAY_STORE: [u32; 7] = [
    0x7e02_02ff,
    0x0001_0000,
    0x7e04_0280,
    0x7e06_0287,
    0xdc70_8000,
    0x007d_0301,
    0xbf81_0000,
];

fn job(words: &[u32]) -> Job {
    let k = Kernel::agc_buffer("example", words, 32, 32, (1, 1), 0xdead_beef, 0);
    Job {
        suite: "example".into(),
        kernel: Arc::new(k),
        target: "gfx1013".into(),
        mode: FloatMode::TITLE,
        dispatch: "0000000000000000".into(),
        lanes: (0..32).map(|l| (l, vec![l])).collect(),
        independent_groups: false,
        addresses: None,
    }
}

fn main() -> Result<(), String> {
    let device = std::env::args().nth(1);
    let budget = Limits {
        instructions: 20_000,
        ..Limits::default()
    };
    for (what, limits, words) in [
        (
            "endless loop, default limits",
            Limits::default(),
            &ENDLESS[..],
        ),
        (
            "endless loop, 20,000 instructions a wave",
            budget,
            &ENDLESS[..],
        ),
        ("store to 0x10000", Limits::default(), &STRAY_STORE[..]),
    ] {
        let b = VulkanBackend::open(device.as_deref(), limits)?;
        let show = |r: Result<_, measurements::job::BackendError>| match r {
            Ok(_) => "finished".to_string(),
            Err(e) => e.to_string(),
        };
        let t = Instant::now();
        let r = show(b.run(&job(words)));
        let s = t.elapsed().as_secs_f64();
        let model = show(ModelBackend { limits }.run(&job(words)));
        println!(
            "{} | {what} | {s:.2} s | {r} | model: {model}",
            b.device_name()
        );
    }
    Ok(())
}
