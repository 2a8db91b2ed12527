//! Every minimised divergence `conformance fuzz --save` wrote into `conformance/fuzz-regressions/` (and the
//! hand-made variants of one in its subfolders) runs on the model and on the default Vulkan device (lavapipe
//! in CI) and must now agree there, and a short seeded fuzz run (the CI smoke run) finds no divergence.

mod common;

use conformance::fuzz::{self, Regression, Report, Rewrite};
use measurements::job::Backend;
use reference_model::exec::ModelBackend;
use reference_model::isa::Target;

#[test]
fn saved_regressions_agree() {
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-regressions");
    let mut n = 0;
    for path in fuzz::regression_files(std::slice::from_ref(&dir)).unwrap() {
        let text = std::fs::read_to_string(&path).unwrap();
        let r: Regression =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(r.schema, "fuzz-regression-v1");
        let job = r
            .job()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let want = ModelBackend::default().run(&job);
        let got = vulkan.run(&job);
        assert_eq!(
            fuzz::compare(&want, &got),
            fuzz::Verdict::Same,
            "{}: {}",
            path.display(),
            r.origin
        );
        n += 1;
    }
    assert!(n >= 1, "no regression files in {}", dir.display());
}

#[test]
fn a_seeded_smoke_run_finds_no_divergence() {
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    let model = ModelBackend::default();
    let mut report = Report::default();
    // The metamorphic form too: rewritten programs on both backends against the model's plain results.
    let rw = Rewrite {
        vop3: true,
        nops: true,
        exec_wrap: true,
        rename: true,
    };
    let plain = Rewrite::default();
    // (seed, batch, wave, target, rewrite): gfx1013 in both wave sizes and rewritten, and gfx1030's programs
    // (its dot products and legacy FMAs among the rest), plain and rewritten.
    let runs = [
        (20261202, 0, Some(32), Target::Gfx1013, plain),
        (20261202, 1, Some(64), Target::Gfx1013, plain),
        (20261202, 2, None, Target::Gfx1013, plain),
        (20261202, 3, None, Target::Gfx1013, rw),
        (20261207, 0, None, Target::Gfx1030, plain),
        (20261207, 1, None, Target::Gfx1030, rw),
    ];
    for (seed, i, wave, target, rw) in runs {
        fuzz::run_batch(
            &model,
            &[&vulkan],
            seed,
            i,
            12,
            wave,
            target,
            rw,
            &mut report,
        )
        .unwrap();
    }
    assert_eq!(report.programs, 72);
    assert!(report.compared >= 66, "{report:?}");
    assert!(report.divergences.is_empty(), "{:#?}", report.divergences);
}

/// The module form NVIDIA and the other non-lavapipe devices get, with the float engine's fixed-step
/// computations as loops (`fuzz --loops rolled`), run on lavapipe: two batches rich in transcendentals.
#[test]
fn a_seeded_smoke_run_with_rolled_loops_finds_no_divergence() {
    let Some(vulkan) = common::vulkan().map(|v| v.rolling_loops(true)) else {
        return;
    };
    if vulkan.device_name().contains("llvmpipe") {
        // Not lavapipe's own form: the name says so, and so do regressions saved from it.
        assert_eq!(vulkan.name(), "vulkan:llvmpipe+rolled");
    }
    let model = ModelBackend::default();
    let mut report = Report::default();
    // Seed 9500's batches 8749 (wave32) and 8753 (wave64) hold 12 and 16 transcendentals (v_log, v_exp,
    // v_sin, v_cos, reciprocals and roots).
    for i in [8749, 8753] {
        fuzz::run_batch(
            &model,
            &[&vulkan],
            9500,
            i,
            16,
            None,
            Target::Gfx1013,
            Rewrite::default(),
            &mut report,
        )
        .unwrap();
    }
    assert_eq!(report.programs, 32);
    assert!(report.compared >= 30, "{report:?}");
    assert!(report.divergences.is_empty(), "{:#?}", report.divergences);
}

#[test]
fn a_bad_regression_file_is_an_error() {
    let mut r: Regression = toml::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fuzz-regressions/seed-1-batch-7-program-21.toml"),
        )
        .unwrap(),
    )
    .unwrap();
    // Written before targets were recorded: gfx1013's.
    assert_eq!(r.target, "gfx1013");
    assert_eq!(r.job().unwrap().target, "gfx1013");
    r.target = "gfx1030".into();
    assert_eq!(r.job().unwrap().target, "gfx1030");
    r.target = "gfx900".into();
    assert_eq!(
        r.job().unwrap_err(),
        "target `gfx900` is not gfx1013 or gfx1030"
    );
    r.target = "gfx1013".into();
    r.inputs.pop();
    assert!(r.job().unwrap_err().contains("lanes"));
    r.inputs.push("zz".into());
    assert!(r.job().unwrap_err().contains("not a hex dword"));
}

/// `conformance fuzz --backend model --metamorphic --seed 3 --count 22` with `more` arguments: its stdout, after
/// a successful exit.
fn fuzz_model_seed3(more: &[&str]) -> String {
    let o = cli(&[
        &[
            "fuzz",
            "--backend",
            "model",
            "--metamorphic",
            "--seed",
            "3",
            "--count",
            "22",
        ],
        more,
    ]
    .concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// `fuzz --jobs N` runs the same programs as one worker and says the same, whatever N (the model against its
/// own rewritten programs: no device needed).
#[test]
fn fuzz_output_does_not_depend_on_jobs() {
    let run = |jobs: &str| {
        let text = fuzz_model_seed3(&["--batch", "4", "--jobs", jobs]);
        // The timing at the end of the first line, and the time line, differ between runs.
        let cut = text.find("divergences;").expect("summary line") + "divergences".len();
        let rest = &text[text[cut..].find('\n').map_or(text.len(), |i| cut + i)..];
        let (time, rest): (Vec<&str>, Vec<&str>) = rest
            .split_inclusive('\n')
            .partition(|l| l.starts_with("  time in batches "));
        assert_eq!(time.len(), 1, "{text}");
        // One worker per batch at most: 22 programs are 6 batches of 4.
        let workers = jobs.parse::<usize>().unwrap().min(6);
        assert!(time[0].contains(&format!("({workers} worker")), "{text}");
        format!("{}{}", &text[..cut], rest.concat())
    };
    let one = run("1");
    assert!(
        one.starts_with(
            "fuzz seed 3: 22 programs in 6 batches on model (metamorphic): 22 compared"
        ),
        "{one}"
    );
    assert_eq!(run("3"), one);
    assert_eq!(run("8"), one);
}

/// `fuzz --timing FILE` writes a row per backend per batch, in stream order whatever `--jobs`, each batch's
/// programs as the stream cuts it; a file that cannot be made is refused before the run.
#[test]
fn fuzz_timing_rows_follow_the_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path().join("timing.csv");
    fuzz_model_seed3(&[
        "--batch",
        "4",
        "--jobs",
        "3",
        "--first-batch",
        "2",
        "--timing",
        at.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&at).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], fuzz::TIMING_COLUMNS, "{text}");
    // 22 programs from batch 2 on: batches 2..8, the last of 2 programs; the model runs the plain and the
    // rewritten kernel of each.
    assert_eq!(rows.len(), 1 + 6, "{text}");
    for (k, row) in rows[1..].iter().enumerate() {
        let want = [
            "3",
            &(2 + k).to_string(),
            if k == 5 { "2" } else { "4" },
            "gfx1013",
            "",
            "true",
            "model",
            "2",
        ];
        assert_eq!(row[..8], want, "{text}");
        let (run, batch): (f64, f64) = (row[8].parse().unwrap(), row[9].parse().unwrap());
        assert!(run > 0.0 && run <= batch, "{text}");
        assert_eq!(row[10], "", "{text}");
    }
    let o = cli(&[
        "fuzz",
        "--backend",
        "model",
        "--metamorphic",
        "--count",
        "4",
        "--timing",
        tmp.path().join("no/such/folder.csv").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--timing ") && err.contains("folder.csv"),
        "{err}"
    );
}

/// `fuzz --time-limit 0` starts no batch and says which prefix of the stream it ran (none), exit 0.
#[test]
fn fuzz_time_limit_ends_at_a_known_prefix() {
    let text = fuzz_model_seed3(&["--time-limit", "0"]);
    assert!(
        text.starts_with("fuzz seed 3: 0 programs in 0 batches"),
        "{text}"
    );
    assert!(
        text.contains(
            "stopped at the time limit: these are programs 0..0 of seed 3's stream (batch 32)"
        ),
        "{text}"
    );
}

/// `fuzz --first-batch K` continues a seed's stream at batch K and says which programs it ran.
#[test]
fn fuzz_first_batch_continues_the_stream() {
    let text = fuzz_model_seed3(&["--batch", "4", "--first-batch", "5"]);
    assert!(
        text.starts_with("fuzz seed 3: 22 programs in 6 batches"),
        "{text}"
    );
    assert!(
        text.contains("  these are programs 20..42 of seed 3's stream (batch 4)"),
        "{text}"
    );
}

/// `--save` makes its folder (a missing one cost a whole device run once) and refuses a file, before any
/// batch runs.
#[test]
fn fuzz_save_makes_its_folder_and_refuses_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a/b");
    fuzz_model_seed3(&["--save", dir.to_str().unwrap()]);
    assert!(dir.is_dir());
    let file = tmp.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let o = cli(&[
        "fuzz",
        "--backend",
        "model",
        "--metamorphic",
        "--save",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists and is not a folder"));
}

#[test]
fn fuzz_refuses_a_range_past_the_streams_end() {
    let run = |first: &str, batch: &str| {
        cli(&[
            "fuzz",
            "--backend",
            "model",
            "--metamorphic",
            "--count",
            "16",
            "--first-batch",
            first,
            "--batch",
            batch,
        ])
    };
    // 2^60 - 1 batches of 16 start 16 programs before 2^64: the last batch would wrap to program 0.
    let o = run("1152921504606846975", "16");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("past the stream's end"));
    let o = run("1152921504606846974", "16");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("18446744073709551584..18446744073709551600")
    );
}

/// `fuzz --loops rolled` on lavapipe names the form in its summary, as in the time line and saved regressions.
#[test]
fn fuzz_names_a_forced_loop_form() {
    if !on_lavapipe() {
        return;
    }
    let text = model_and_vulkan(&["--loops", "rolled"], 3, 2);
    assert!(
        text.starts_with("fuzz seed 3: 2 programs in 1 batches on model, vulkan:llvmpipe+rolled: "),
        "{text}"
    );
    assert!(text.contains("); vulkan:llvmpipe+rolled "), "{text}");
}

/// `fuzz` keeps Mesa's disk shader cache off unless the environment asks for it: with the variable unset
/// the cache folder gets no entry, with it set to false by the user (the control) it does.
#[test]
fn fuzz_leaves_the_disk_shader_cache_alone() {
    if common::vulkan().is_none() {
        return;
    }
    let entries = |disable: Option<&str>| {
        let home = tempfile::tempdir().unwrap();
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
        c.args(["fuzz", "--backend", "model", "--backend", "vulkan"])
            .args(["--seed", "3", "--count", "2", "--batch", "2"])
            .env("XDG_CACHE_HOME", home.path())
            .env("HOME", home.path())
            .env_remove("MESA_SHADER_CACHE_DISABLE");
        if let Some(v) = disable {
            c.env("MESA_SHADER_CACHE_DISABLE", v);
        }
        let o = c.output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        walk(home.path())
    };
    assert_eq!(entries(None), 0);
    assert!(
        entries(Some("false")) > 0,
        "the control wrote no cache entry"
    );
}

/// Files under `dir`, recursively.
fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p)
                } else {
                    1
                }
            })
            .sum()
        })
        .unwrap_or(0)
}

#[test]
fn one_backend_named_twice_is_refused_with_what_it_named() {
    let regression = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz-regressions/seed-1-batch-7-program-21.toml");
    for args in [
        vec!["fuzz", "--count", "1"],
        vec!["fuzz-replay", regression.to_str().unwrap()],
    ] {
        let o = cli(&[&args[..], &["--backend", "model", "--backend", "model"]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains("needs two different backends")
                && e.contains("`model, model` name one (model)"),
            "{args:?}: {e}"
        );
    }
}

/// Runs the `conformance` binary with `args`.
fn cli(args: &[&str]) -> std::process::Output {
    command(args).output().unwrap()
}

/// The `conformance` command with `args`, for a test to set its environment.
fn command(args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
    c.args(args);
    c
}

/// `--unoptimized-pipelines` asks the driver for unoptimised pipelines: the programs still match the model,
/// and the backend's name says how it compiled, with a forced loop form too.
#[test]
fn fuzz_with_unoptimized_pipelines_matches_and_says_so() {
    if !on_lavapipe() {
        return;
    }
    let text = model_and_vulkan(&["--unoptimized-pipelines", "--loops", "rolled"], 4, 8);
    assert!(
        text.starts_with(
            "fuzz seed 4: 8 programs in 1 batches on model, vulkan:llvmpipe+rolled+unoptimized: 8 compared, 0 refused, 0 divergences"
        ),
        "{text}"
    );
}

/// The summary of `fuzz --backend model --backend vulkan EXTRA --seed SEED` over one batch of `count`
/// programs, which must succeed.
fn model_and_vulkan(extra: &[&str], seed: u64, count: u32) -> String {
    let (seed, count) = (seed.to_string(), count.to_string());
    let mut args = vec!["fuzz", "--backend", "model", "--backend", "vulkan"];
    args.extend_from_slice(extra);
    args.extend(["--seed", &seed, "--count", &count, "--batch", &count]);
    let o = cli(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Whether the default Vulkan device is lavapipe, whose backend names the tests spell out (closed again at
/// once: the CLI opens its own).
fn on_lavapipe() -> bool {
    common::vulkan().is_some_and(|v| v.device_name().contains("llvmpipe"))
}

/// The modules of fuzz batches are valid SPIR-V for Vulkan 1.1 in both loop forms (`spirv-val` from Debian's
/// `spirv-tools`, which CI installs): their selection chain and skips are the deepest inlined blocks
/// (nested selections with unreachable merges), and the fuzz runs themselves do not validate.
#[test]
fn fuzz_batch_modules_validate() {
    if !common::have_tool("spirv-val", "spirv-tools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for index in 16040..16043 {
        let b = fuzz::batch(9500, index, 16, None, Target::Gfx1013);
        let job = b.job_of(&b.programs).unwrap();
        for rolled_loops in [false, true] {
            let options = recompiler::job::Options {
                shared_bytes: 48 * 1024,
                host_floats: true,
                rolled_loops,
                ..Default::default()
            };
            let m = recompiler::job::prepare(&job, options).unwrap().module;
            let path = dir.path().join(format!("{index}-{rolled_loops}.spv"));
            let bytes: Vec<u8> = m.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&path, bytes).unwrap();
            let out = std::process::Command::new("spirv-val")
                .args(["--target-env", "vulkan1.1"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "batch {index} (rolled {rolled_loops}): {}",
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

/// The binary gives lavapipe its vector width itself (`driver::set_environment_defaults`), so a user's shell
/// without the workspace's `.cargo/config.toml` gets it too: with 8 lanes per vector, lavapipe's LLVM 15
/// aborts the process on this regression's module on AVX2 hosts without AVX-512 (it passes with or without
/// the setting elsewhere). The disk cache is off so that the module is compiled, not loaded.
#[test]
fn the_binary_sets_lavapipes_vector_width_itself() {
    if !on_lavapipe() {
        return;
    }
    let regression = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz-regressions/seed-9500-batch-16053-program-8.toml");
    let o = command(&["fuzz-replay", regression.to_str().unwrap()])
        .env_remove("LP_NATIVE_VECTOR_WIDTH")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && text.contains("agree"),
        "{:?}\n{text}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}
