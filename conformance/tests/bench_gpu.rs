//! `bench-gpu` on the default device (lavapipe in CI): the recompiled guest kernel and the hand-written
//! exact GLSL agree with the model bit for bit, special lanes included, with and without the host fast
//! paths; the committed SPIR-V is what glslang makes of the GLSL.

mod common;

use conformance::bench_gpu::{run, Settings};
use std::process::Command;

#[test]
fn both_exact_versions_match_the_model() {
    let Some(b) = common::vulkan() else { return };
    let s = Settings {
        groups: 2,
        turns: 6,
        steps: 3,
        repeats: 1,
        check_groups: 2,
        special_every: 4,
        waves: 2,
    };
    let f = run(&b, s).unwrap();
    assert_eq!(f.len(), 3);
    assert_eq!(
        (f[0].differing_lanes, f[1].differing_lanes),
        (0, 0),
        "{f:?}"
    );
    // The special lanes (NaN, infinity and denormal starts) are where plain floats differ, if anywhere:
    // never more lanes than there are special ones.
    assert!(f[2].differing_lanes <= 2 * 64 / 4, "{f:?}");
    let f = run(&common::vulkan().unwrap().without_host_floats(), s).unwrap();
    assert_eq!(f[0].differing_lanes, 0, "{f:?}");
    let f = run(&b, Settings { waves: 1, ..s }).unwrap();
    assert_eq!(f[0].differing_lanes, 0, "{f:?}");
    assert!(run(&b, Settings { steps: 0, ..s }).is_err());
    assert!(run(&b, Settings { waves: 3, ..s }).is_err());
}

#[test]
fn the_committed_spirv_is_what_glslang_compiles() {
    if Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "glslangValidator (Debian glslang-tools) is not installed; CI must install it"
        );
        eprintln!("skipped: glslangValidator (Debian glslang-tools) is not installed");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["exact", "native"] {
        let out = tmp.path().join(format!("{name}.spv"));
        let st = Command::new("glslangValidator")
            .args(["-s", "--target-env", "vulkan1.2", "-o"])
            .arg(&out)
            .arg(dir.join(format!("{name}.comp")))
            .status()
            .unwrap();
        assert!(st.success(), "{name}.comp does not compile");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(dir.join(format!("{name}.spv"))).unwrap(),
            "bench/{name}.spv is stale: run bench/build.sh"
        );
    }
}
