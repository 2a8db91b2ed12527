//! `oracle collect --backend hsa` end to end without an AMD GPU: a stand-in ROCr implements the hsa.h functions
//! the dispatcher calls (agents, memory pools, code object loading, a queue and its packet processor, signals)
//! and executes each AQL packet on the reference model, reading only what a GPU reads: the kernel descriptor
//! and code at `kernel_object`, the kernarg segment, the buffers it points to. The rows must equal a
//! `--backend model` collection for the same chip, ID for ID and bit for bit; v5 refused falls back to v4; a
//! dispatch that never completes is abandoned after the timeout and the next one runs on a new queue.
//!
//! The stand-in checks the packet as the hardware's packet processor would need it (type, barrier, system
//! fences, one dimension, one workgroup, a kernarg segment of the size the descriptor declares from the kernarg
//! pool, buffers the GPU was given access to, 256-byte aligned as the kernels declare) and the descriptor as
//! the loader and dispatcher would (the chip's `e_flags` mach, the kernarg pointer in the user SGPRs, the float
//! mode in COMPUTE_PGM_RSRC1). For a template with buffers it reads the 56-byte segment as the layout defines
//! it: the `scratch` address and the two V#s, whose bases must be the arrays' addresses; the model then runs
//! over the arrays' contents as it finds them in memory (the rows, the fills) and every array is written back,
//! so the rows equal the model's only if the dispatcher set the arrays, fills and V# words up as the model
//! path does.

use measurements::row::Evidence;
use measurements::{Backend, Dataset, FloatMode};
use oracle_runner::collect::{self as co, Shard};
use oracle_runner::dispatch::{self, Device};
use oracle_runner::hsa;
use std::path::{Path, PathBuf};
use std::sync::MutexGuard;
use std::time::Duration;

mod ffi;
use ffi::*;

fn have_llvm_mc() -> bool {
    let ok = std::process::Command::new("llvm-mc-19")
        .arg("--version")
        .output()
        .is_ok()
        || Path::new("/usr/lib/llvm-19/bin/llvm-mc").exists();
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI needs llvm-mc-19 (Debian llvm-19)"
    );
    ok
}

fn template(name: &str) -> templates::Template {
    templates::bundled()
        .unwrap()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap()
}

/// Collects `t` through the stand-in (into `dir/hsa`) and, with `model`, on the model (into `dir/model`).
fn both(
    t: &templates::Template,
    dir: &Path,
    timeout: Duration,
    model: bool,
    jobs: usize,
) -> (co::Summary, PathBuf, PathBuf, Vec<u8>) {
    let rt = hsa::Runtime::with_api(api(), Path::new("stand-in"));
    let session = rt.init().unwrap();
    let agents = session.rdna_agents().unwrap();
    assert_eq!(agents[0].name, "gfx1036");
    let device = Device::open(&session, &agents[0], timeout).unwrap();
    assert!(
        device
            .fingerprint()
            .contains("Stand-in Radeon (gfx1036), HSA 1.1, ROCr stand-in 0.1"),
        "{}",
        device.fingerprint()
    );
    let (hw, dry) = (dir.join("hsa"), dir.join("model"));
    let s = co::collect(
        t,
        &co::Target::Hsa { device: &device },
        &hw,
        false,
        Shard::ALL,
        jobs,
        &mut |_, _| {},
    )
    .unwrap();
    drop(device);
    if model {
        let model = reference_model::exec::ModelBackend::default();
        let m = co::collect(
            t,
            &co::Target::Model {
                chip: "gfx1036".into(),
                backend: &model,
            },
            &dry,
            false,
            Shard::ALL,
            2,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(m.failed.is_empty());
    }
    let versions = with(|f| std::mem::take(&mut f.loaded_versions));
    (s, hw, dry, versions)
}

/// Every row of `hw` has the ID, inputs and cells of the same row of `dry`.
fn same_rows(hw: &Path, dry: &Path) -> usize {
    let (h, d) = (
        Dataset::load(&[hw.to_path_buf()]).unwrap(),
        Dataset::load(&[dry.to_path_buf()]).unwrap(),
    );
    assert_eq!(h.row_count(), d.row_count());
    let (hs, ds) = (
        h.suites.values().next().unwrap(),
        d.suites.values().next().unwrap(),
    );
    for (id, r) in &hs.rows {
        let m = &ds.rows[id].row;
        assert_eq!(r.row.evidence, Evidence::Hardware);
        assert_eq!(m.evidence, Evidence::Model);
        assert!(
            r.row.source.contains("--backend hsa") && r.row.source.contains("gfx1036"),
            "{}",
            r.row.source
        );
        assert_eq!(
            (&r.row.inputs, &r.row.cells),
            (&m.inputs, &m.cells),
            "row {id}"
        );
    }
    h.row_count()
}

fn setup(refuse_v5: bool) -> MutexGuard<'static, ()> {
    let g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *fake() = Some(Fake {
        refuse_v5,
        ..Default::default()
    });
    g
}

#[test]
fn hsa_rows_equal_the_models_id_for_id_in_both_wave_sizes() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    let t = template("cross-lane");
    let (s, hw, dry, versions) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!(s.ran, t.cases().len());
    assert_eq!(same_rows(&hw, &dry), s.rows);
    // One executable per kernel and mode, loaded as v5.
    assert!(
        !versions.is_empty() && versions.iter().all(|&v| v == 5),
        "{versions:?}"
    );
    with(|f| {
        assert_eq!(f.dispatched, t.cases().len());
        assert!(f.allocations.is_empty(), "every buffer is freed");
        assert!(
            f.executables.is_empty()
                && f.queues.is_empty()
                && f.signals.is_empty()
                && f.readers.is_empty(),
            "the device cleans up: executables {}, queues {}, signals {}, readers {}",
            f.executables.len(),
            f.queues.len(),
            f.signals.len(),
            f.readers.len()
        );
    });
}

#[test]
fn float_modes_reach_the_descriptor_and_v4_is_loaded_where_v5_is_refused() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(true);
    let tmp = tempfile::tempdir().unwrap();
    // MODE itself is an output: a descriptor whose float fields were not the mode's gives other rows.
    let text = r#"
name = "mode-probe"
about = "the MODE register and a sum near the denormals in several modes"
settles = []
body = """
s_getreg_b32 s20, hwreg(HW_REG_MODE, 0, 32)
v_mov_b32 v10, s20
v_add_f32 v11, v4, v5
v_mul_f32 v12, v4, v5
"""
outputs = 3
waves = [32, 64]
operands = [["f32"], ["f32"]]
modes = ["c0/0/1/0", "f0/1/1/0", "03/1/0/1", "30/0/0/0", "c2/1/1/0"]
"#;
    let t = templates::Template::parse("mode-probe.toml", text).unwrap();
    let (s, hw, dry, versions) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!(same_rows(&hw, &dry), s.rows);
    assert!(
        !versions.is_empty() && versions.iter().all(|&v| v == 4),
        "{versions:?}"
    );
}

#[test]
fn a_dispatch_that_never_finishes_is_abandoned_and_the_next_runs_on_a_new_queue() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    // A wave holding the input 5 spins forever; the stand-in's model gives up and never signals, as a GPU
    // running the loop would. `shift` is 0..=70: the first chunk of 64 lanes holds 5, the second does not.
    let text = r#"
name = "spin"
about = "a loop that never ends in a wave holding the input 5"
settles = []
body = """
v_cmp_eq_u32 vcc_lo, 5, v4
s_cbranch_vccz 1
s_branch -1
v_mov_b32 v10, v4
"""
outputs = 1
lanes = 64
operands = [["shift"]]
"#;
    let t = templates::Template::parse("spin.toml", text).unwrap();
    assert!(t.cases().len() >= 2);
    let (s, hw, _dry, _) = both(&t, tmp.path(), Duration::from_millis(300), false, 1);
    assert_eq!(s.failed.len(), 1, "{:?}", s.failed);
    assert!(
        s.failed[0].contains("did not finish within 0.3 s: abandoned"),
        "{}",
        s.failed[0]
    );
    with(|f| {
        assert_eq!(f.hung, 1);
        assert_eq!(f.queues_made, 2, "a new queue after the abandoned one");
        // The GPU may still run the abandoned dispatch: its queue, completion signal and buffers (two arrays
        // and the kernel arguments) stay; the second queue, its signal and its buffers are gone with the device.
        assert_eq!(f.queues.len(), 1, "the abandoned queue is left alone");
        assert_eq!(f.signals.len(), 2, "its doorbell and completion signal");
        assert_eq!(f.allocations.len(), 3, "its buffers");
        assert!(f.executables.is_empty() && f.readers.is_empty());
    });
    // In order (one job at a time): the hung first chunk, then the second on a new queue, whose rows are
    // written: lanes 64..70 copy their input.
    let ds = Dataset::load(&[hw]).unwrap();
    let suite = ds.suites.values().next().unwrap();
    assert_eq!(suite.rows.len(), 7);
    assert!(suite
        .rows
        .values()
        .all(|r| r.row.cells[0].value == r.row.inputs[0]));
}

/// A template with buffers whose V#s the template declares: a short `in` (NUM_RECORDS 40), a swizzled
/// `scratch` V# of its own stride, INDEX_STRIDE, format and DST_SEL, a fill, and a load of the `scratch`
/// address from s[8:9]. Lane i (its index) stores at (i / 16) * 128 + (i % 16) * 4 (stride 8, 16 lanes, 4-byte
/// elements): every lane its own dword, each 16-lane block's 64 bytes followed by 64 bytes of fill, and a
/// lane's 8-byte slot written only by lanes of its own wave.
const DECLARED: &str = r#"
name = "declared-v-sharps"
about = "the V# fields a template declares reach the kernel"
settles = []
body = """
buffer_load_dword v10, v1, s[12:15], 0 offen
buffer_load_format_xyzw v[11:14], v1, s[12:15], 0 offen
v_mov_b32 v8, v0
v_mov_b32 v9, 0
buffer_store_dword v4, v[8:9], s[16:19], 0 idxen offen
s_waitcnt_vscnt null, 0x0
global_load_dwordx2 v[15:16], v2, s[8:9] glc dlc
buffer_load_format_xyzw v[17:20], v[8:9], s[16:19], 0 idxen offen glc dlc
s_waitcnt vmcnt(0)
"""
outputs = 11
waves = [32, 64]
operands = [["random:100:9"], ["random:100:10"]]
combine = "zip"
modes = ["c0/0/1/0", "f0/1/1/0"]

[buffers]
scratch_bytes = 8
fill = "a5a5a5a5"

[buffers.in]
format = 56
dst_sel = "wzyx"
records = 40

[buffers.scratch]
stride = 8
swizzle = true
index_stride = 16
format = 13
dst_sel = "xy01"
"#;

#[test]
fn buffer_templates_set_up_their_arrays_and_v_sharps_as_the_model_does() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    // A bundled template with a scratch array, its fill and a V# changed per wave, a dispatch with a padded
    // wave; and one declaring every V# field.
    for t in [
        template("buffer-store-zero-fill"),
        templates::Template::parse("declared.toml", DECLARED).unwrap(),
    ] {
        // A fresh stand-in for each (the previous device's executables are gone).
        *fake() = Some(Fake::default());
        let tmp = tempfile::tempdir().unwrap();
        let (s, hw, dry, _) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
        assert!(s.failed.is_empty(), "{}: {:?}", t.name, s.failed);
        assert_eq!(s.ran, t.cases().len());
        assert_eq!(same_rows(&hw, &dry), s.rows, "{}", t.name);
        assert!(s.rows > 0);
        with(|f| assert!(f.allocations.is_empty(), "every buffer is freed"));
    }
    // The rows are not trivially equal: the fill shows where nothing was stored, and lanes past the short
    // `in` read zeros.
    *fake() = Some(Fake::default());
    let tmp = tempfile::tempdir().unwrap();
    let t = templates::Template::parse("declared.toml", DECLARED).unwrap();
    let (_, hw, _, _) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, false, 1);
    let ds = Dataset::load(&[hw]).unwrap();
    let rows = &ds.suites.values().next().unwrap().rows;
    let lane = |l: u32| {
        rows.values()
            .find(|r| r.row.lane == l && r.row.kernel.contains("-w32-"))
            .unwrap()
            .row
            .cells
            .iter()
            .map(|c| c.value)
            .collect::<Vec<u32>>()
    };
    let (l0, l3, l8) = (lane(0), lane(3), lane(8));
    assert_ne!(l0[0], 0, "lane 0 lies within NUM_RECORDS 40");
    assert_eq!(l3[..5], [0; 5], "lane 3's element lies past NUM_RECORDS 40");
    assert_eq!(
        l8[5..7],
        [0xa5a5_a5a5; 2],
        "nothing is stored in lane 8's slot"
    );
    assert!(
        !l0[5..7].contains(&0xa5a5_a5a5),
        "lanes 0 and 1 store in lane 0's slot"
    );
}

/// `conformance --backend hsa` opens its GPU with [`Device::open_for_process`]: through the stand-in, the rows
/// `oracle collect --backend hsa` wrote verify bit for bit on the model and on the GPU, a bundled peer suite
/// (another ABI, another target) is unsupported there with the reason, and an agent name that matches none is
/// an error listing the agents.
#[test]
fn conformance_verifies_collected_rows_on_the_hsa_backend() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    let (s, hw, _dry, _) = both(
        &template("cross-lane"),
        tmp.path(),
        dispatch::DEFAULT_TIMEOUT,
        false,
        2,
    );
    assert!(s.failed.is_empty() && s.rows > 0, "{:?}", s.failed);
    let stand_in = || hsa::Runtime::with_api(api(), Path::new("stand-in"));
    let e = Device::open_for_process(stand_in(), Some("gfx1013"), dispatch::DEFAULT_TIMEOUT)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "no RDNA GPU agent is named like `gfx1013`: the runtime lists gfx1036 (Stand-in Radeon)"
    );
    for selector in [None, Some("GFX1036"), Some("stand-in radeon")] {
        let device =
            Device::open_for_process(stand_in(), selector, dispatch::DEFAULT_TIMEOUT).unwrap();
        assert_eq!(device.name(), "hsa:gfx1036");
        let peer =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../measurements/data/peer-read-lane");
        let ds = Dataset::load(&[hw.clone(), peer]).unwrap();
        let backends: Vec<Box<dyn Backend>> = vec![
            Box::new(reference_model::exec::ModelBackend::default()),
            Box::new(device),
        ];
        let v = conformance::verify(&ds, &backends, &conformance::Options::default(), |_| {});
        let on = |b: usize, suite: &str| {
            v.backends[b]
                .suites
                .iter()
                .find(|x| x.suite == suite)
                .unwrap_or_else(|| panic!("{suite} on {}", v.backends[b].name))
                .counts
        };
        let collected = on(1, "oracle-cross-lane");
        assert!(collected.cells > 0);
        assert_eq!(
            collected,
            on(0, "oracle-cross-lane"),
            "the GPU as the model"
        );
        assert_eq!(collected.matched, collected.cells, "{collected:?}");
        let peer = on(1, "peer-read-lane");
        assert_eq!(peer.unsupported, peer.cells, "{peer:?}");
        // The same kernel for another chip: unsupported, with the reason.
        let suite = &ds.suites["oracle-cross-lane"];
        let job = measurements::Job {
            suite: "oracle-cross-lane".into(),
            kernel: std::sync::Arc::new(suite.kernels.kernels[0].clone()),
            target: "gfx1030".into(),
            mode: FloatMode::TITLE,
            dispatch: "0000000000000000".into(),
            lanes: vec![(0, vec![0; 2])],
            independent_groups: false,
            addresses: None,
        };
        match backends[1].run(&job) {
            Err(measurements::BackendError::Unsupported { reason, .. }) => assert_eq!(
                reason,
                "this GPU is gfx1036; the hsa backend runs the rows of its own target only"
            ),
            other => panic!("{other:?}"),
        }
        assert!(peer.cells > 0 && on(0, "peer-read-lane").matched == peer.cells);
    }
    with(|f| {
        assert!(f.allocations.is_empty(), "every buffer is freed");
        assert!(f.queues.is_empty() && f.executables.is_empty());
    });
}
