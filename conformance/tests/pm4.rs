//! `--via pm4`: every job written as a PM4 command buffer and run by the driver's command processor gives the
//! direct run's result, job for job and cell for cell: on the model over all the bundled data, on lavapipe
//! over a few suites (the whole set is a documented command; it doubles the lavapipe time CI spends).

mod common;

use conformance::pm4::{wrap, Via};
use conformance::{verify, Filter, Options};
use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::store::Dataset;
use reference_model::exec::ModelBackend;
use std::process::Command;
use std::sync::{Arc, Mutex};

type Outputs = Arc<Mutex<Vec<(String, Result<JobOutput, BackendError>)>>>;

/// Keeps every result, by job.
struct Recording {
    inner: Box<dyn Backend>,
    out: Outputs,
}

impl Backend for Recording {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let r = self.inner.run(job);
        self.out.lock().unwrap().push((job.describe(), r.clone()));
        r
    }
}

fn known() -> conformance::KnownDifferences {
    conformance::known::KnownDifferences::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("known-differences.toml"),
    )
    .unwrap()
}

/// Runs the selected suites on `backend` directly and through PM4 (both queue kinds) and checks that every
/// job's result and the whole summary are the same. Returns the number of cells compared.
fn same_through_pm4(make: &dyn Fn() -> Box<dyn Backend>, suites: &[&str]) -> u64 {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let options = Options {
        known: known(),
        filter: Filter::new(suites, &[]).unwrap(),
        ..Options::default()
    };
    let run = |via: Via| {
        let out = Outputs::default();
        let backends = wrap(vec![make()], via)
            .into_iter()
            .map(|b| {
                Box::new(Recording {
                    inner: b,
                    out: out.clone(),
                }) as Box<dyn Backend>
            })
            .collect::<Vec<_>>();
        let summary = verify(&ds, &backends, &options, |_| {});
        let out = out.lock().unwrap().clone();
        (summary, out)
    };
    let (direct, want) = run(Via::Direct);
    for via in [Via::Pm4, Via::Pm4Graphics] {
        let (summary, got) = run(via);
        assert_eq!(got.len(), want.len(), "{via:?}");
        for ((job, a), (_, b)) in got.iter().zip(&want) {
            assert!(
                a == b,
                "{via:?} {job}: {:?} through PM4, {:?} direct",
                a.as_ref().err(),
                b.as_ref().err()
            );
        }
        assert_eq!(
            serde_json::to_value(&summary.backends).unwrap(),
            serde_json::to_value(&direct.backends).unwrap(),
            "{via:?}"
        );
    }
    let b = &direct.backends[0];
    assert_eq!(b.counts.errors, 0, "{:#?}", b.problems);
    b.counts.cells
}

#[test]
fn through_pm4_the_model_gives_the_direct_results_on_all_bundled_data() {
    let cells = same_through_pm4(&|| Box::new(ModelBackend::default()), &[]);
    // 38,240 checked cells in the bundled data (README).
    assert!(cells >= 38_000, "{cells} cells");
}

#[test]
fn through_pm4_lavapipe_gives_the_direct_results() {
    if common::vulkan().is_none() {
        return;
    }
    // LDS (peer-lds-atomics), ten user SGPRs and global loads through addresses (peer-global-loads), wave64
    // cross-lane reads (peer-read-lane).
    let cells = same_through_pm4(
        &|| Box::new(common::vulkan().unwrap()),
        &["peer-lds-atomics", "peer-global-loads", "peer-read-lane"],
    );
    assert!(cells > 1000, "{cells} cells");
}

#[test]
fn on_the_command_line_via_pm4_equals_the_direct_run() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    // All the bundled data: `conformance --via pm4 --backend model` against `conformance --backend model`.
    let common = ["--backend", "model", "--format", "json"];
    let (direct, code, _) = run(&common);
    let mut args = vec!["--via", "pm4"];
    args.extend(common);
    let (pm4, code_pm4, stderr) = run(&args);
    assert_eq!((code, code_pm4), (Some(0), Some(0)));
    assert_eq!(direct["via"], "direct");
    assert_eq!(pm4["via"], "pm4");
    assert!(stderr.contains("PM4 command processor"), "{stderr}");
    assert_eq!(pm4["backends"], direct["backends"]);
    assert_eq!(pm4["backends"][0]["name"], "model");
    assert_eq!(pm4["backends"][0]["cells"], 38_240);
}
