//! Every module the recompiler emits for the bundled measurements is valid SPIR-V for Vulkan 1.1
//! (`spirv-val` from Debian's `spirv-tools`, which CI installs; outside CI the test is skipped with a note
//! when the tool is missing), and every job is either compiled or refused with a reason.

use measurements::job::plan_jobs;
use measurements::Dataset;
use recompiler::job::{prepare, Options};
use std::collections::BTreeSet;
use std::process::Command;

fn spirv_val() -> Option<&'static str> {
    if Command::new("spirv-val").arg("--version").output().is_ok() {
        return Some("spirv-val");
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "spirv-val (Debian spirv-tools) is not installed; CI must install it"
    );
    eprintln!("skipped: spirv-val (Debian spirv-tools) is not installed");
    None
}

#[test]
fn every_emitted_module_validates() {
    let Some(val) = spirv_val() else { return };
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).expect("bundled measurements");
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut seen = BTreeSet::new();
    let (mut compiled, mut refused) = (0, 0);
    for suite in ds.suites.values() {
        for pj in plan_jobs(suite) {
            let j = &pj.job;
            // One module per kernel and mode: dispatches differ only in data.
            if !seen.insert((j.suite.clone(), j.kernel.name.clone(), j.mode.canonical())) {
                continue;
            }
            for (shared, host_floats) in [(0, false), (32768, false), (32768, true)] {
                // The last setting turns every option on: host floats, helpers as calls, rolled loops.
                let options = Options {
                    call_helpers: host_floats,
                    rolled_loops: host_floats,
                    shared_bytes: shared,
                    host_floats,
                    ..Options::default()
                };
                match prepare(j, options) {
                    Err(e) => {
                        assert!(
                            e.to_string().starts_with("unsupported: "),
                            "{}: {e}",
                            j.describe()
                        );
                        refused += 1;
                    }
                    Ok(p) => {
                        compiled += 1;
                        // compile() runs the static check; run it here too so a change there cannot hide.
                        recompiler::audit::check(&p.module.spirv).unwrap_or_else(|e| {
                            panic!("{}: undefined operation: {e}", j.describe())
                        });
                        let path = dir.path().join(format!("{compiled}.spv"));
                        let bytes: Vec<u8> = p
                            .module
                            .spirv
                            .iter()
                            .flat_map(|w| w.to_le_bytes())
                            .collect();
                        std::fs::write(&path, bytes).expect("write module");
                        let out = Command::new(val)
                            .args(["--target-env", "vulkan1.1"])
                            .arg(&path)
                            .output()
                            .expect("run spirv-val");
                        assert!(
                            out.status.success(),
                            "{} (shared {shared}, host floats {host_floats}): invalid module: {}",
                            j.describe(),
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                }
            }
        }
    }
    eprintln!("{compiled} modules valid, {refused} jobs refused");
    assert!(compiled > 0);
}

/// One wave32 workgroup in mode 0xc0, host float paths and rolled loops as given.
fn one_wave(host_floats: bool, rolled_loops: bool) -> recompiler::Shape {
    recompiler::Shape {
        wave: 32,
        threads: 32,
        groups: [1, 1, 1],
        tgid: [false; 3],
        user_sgprs: 0,
        lds_bytes: 0,
        budget: 1000,
        mode: 0xc0,
        shared_bytes: 32768,
        parallel: false,
        host_floats,
        call_helpers: false,
        rolled_loops,
    }
}

#[test]
fn disassembly_names_the_entry_point_and_rejects_what_is_not_spirv() {
    // v_mov_b32 v1, 5; s_endpgm
    let m = recompiler::compile(
        reference_model::isa::Target::Gfx1013,
        &[0x7e02_0285, 0xbf81_0000],
        one_wave(false, false),
        &[],
    )
    .unwrap();
    let text = recompiler::disassemble(&m.spirv).unwrap();
    assert!(text.contains("OpEntryPoint GLCompute"), "{text}");
    assert!(
        text.contains("OpExecutionMode %") && text.contains("LocalSize 32 1 1"),
        "{text}"
    );
    let err = recompiler::disassemble(&[0x1234_5678, 1, 2]).unwrap_err();
    assert!(err.starts_with("not a SPIR-V module"), "{err}");
}

/// A rolled fixed-step computation counts to a bound the host compiler cannot see (a launch-info zero OR-ed
/// in): NVIDIA's compiler was measured cheaper on such loops than on constant-bound ones, which it appears to
/// unroll whatever the `DontUnroll` hint says (README, "Speed figures").
#[test]
fn rolled_loops_count_to_a_bound_the_host_cannot_see() {
    // (counted loops, those counting to a constant) of the v_log_f32 kernel in each loop form.
    let loops = |rolled_loops: bool| {
        let shape = one_wave(true, rolled_loops);
        // v_log_f32 v1, v0; s_endpgm: 62 squarings.
        let m = recompiler::compile(
            reference_model::isa::Target::Gfx1013,
            &[0x7e02_4f00, 0xbf81_0000],
            shape,
            &[],
        )
        .unwrap();
        let text = recompiler::disassemble(&m.spirv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let constants: BTreeSet<&str> = lines
            .iter()
            .filter_map(|l| l.split_once(" = OpConstant "))
            .map(|(id, _)| id.trim())
            .collect();
        let (mut counted, mut constant) = (0, 0);
        for (i, l) in lines.iter().enumerate() {
            if !l.contains("OpLoopMerge") {
                continue;
            }
            // A counted loop's header compares its counter with the bound: `OpULessThan %bool %i %n`.
            let cmp = lines[i..(i + 8).min(lines.len())]
                .iter()
                .find(|l| l.contains("OpULessThan"));
            if let Some(cmp) = cmp {
                counted += 1;
                let bound = cmp.split_whitespace().last().unwrap();
                constant += usize::from(constants.contains(bound));
            }
        }
        (counted, constant)
    };
    let (unrolled, rolled) = (loops(false), loops(true));
    assert!(rolled.0 > unrolled.0, "{rolled:?} against {unrolled:?}");
    assert_eq!(
        rolled.1, unrolled.1,
        "the rolled loops add constant bounds: {rolled:?} against {unrolled:?}"
    );
}

/// Every f64 result's low dword is tied to its high one through the launch-info zero (`lo ^ (hi & z)`), so that
/// no host compiler sees a high dword unused: NVIDIA's computed a soft `v_fma_f64`'s low dword wrong when the
/// program overwrote the high one (README, "Host limits and host bugs worked around").
#[test]
fn every_f64_result_ties_its_low_dword_to_its_high_one() {
    #[rustfmt::skip]
    let words = [
        0xd54c_0004, 0x0402_0500, // v_fma_f64 v[4:5], v[0:1], v[2:3], v[0:1]
        0x7e0a_0280,              // v_mov_b32 v5, 0: the FMA's high dword overwritten
        0xd565_0006, 0x0002_0500, // v_mul_f64 v[6:7], v[0:1], v[2:3]
        0xd56e_6a08, 0x0402_0500, // v_div_scale_f64 v[8:9], vcc_lo, v[0:1], v[2:3], v[0:1]
        0xd564_000a, 0x0002_0500, // v_add_f64 v[10:11], v[0:1], v[2:3]
        0xbf81_0000,              // s_endpgm
    ];
    for host_floats in [false, true] {
        let m = recompiler::compile(
            reference_model::isa::Target::Gfx1013,
            &words,
            one_wave(host_floats, false),
            &[],
        )
        .unwrap();
        let text = recompiler::disassemble(&m.spirv).unwrap();
        // `%id = OpName %type operands...`, by result id.
        let defs: std::collections::HashMap<&str, Vec<&str>> = text
            .lines()
            .filter_map(|l| l.split_once(" = "))
            .map(|(id, rest)| (id.trim(), rest.split_whitespace().collect()))
            .collect();
        let info = text
            .lines()
            .find_map(|l| l.strip_prefix("OpName ")?.strip_suffix(" \"launch_info\""))
            .expect("the launch-info buffer");
        let zero_word = recompiler::layout::INFO_ZERO.to_string();
        let constant = |id: &str, k: &str| {
            defs.get(id)
                .is_some_and(|d| d[0] == "OpConstant" && d.last() == Some(&k))
        };
        // `%p = OpAccessChain %ptr %launch_info %0 %16`: the word the host sets to 0.
        let word = |id: &str| {
            defs.get(id).is_some_and(|d| {
                d[0] == "OpAccessChain" && d[2] == info && constant(d[d.len() - 1], &zero_word)
            })
        };
        // The launch-info zero: `OpLoad %uint %p`, or a value OR-ed with that load (`Emit::opaque`).
        let load = |id: &str| defs.get(id).is_some_and(|d| d[0] == "OpLoad" && word(d[2]));
        let zero = |id: &str| {
            load(id)
                || defs
                    .get(id)
                    .is_some_and(|d| d[0] == "OpBitwiseOr" && d[2..].iter().any(|&a| load(a)))
        };
        let ands: BTreeSet<&str> = defs
            .iter()
            .filter(|(_, d)| d[0] == "OpBitwiseAnd" && d[2..].iter().any(|&a| zero(a)))
            .map(|(&id, _)| id)
            .collect();
        let ties = defs
            .values()
            .filter(|d| d[0] == "OpBitwiseXor" && d[2..].iter().any(|a| ands.contains(a)))
            .count();
        assert_eq!(ties, 4, "host floats {host_floats}: {ties} tied low dwords");
    }
}
