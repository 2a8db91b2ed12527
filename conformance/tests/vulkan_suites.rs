//! Every bundled suite on the vulkan backend (lavapipe in CI) against the measured rows: per suite, the
//! cells that match and the cells counted unsupported are the figures below, none mismatches and none is
//! an error; every job the backend runs (does not refuse) leaves exactly the model's memory.

mod common;

use conformance::{verify, Options};
use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::store::Dataset;
use reference_model::exec::ModelBackend;
use std::sync::{Arc, Mutex};

/// (suite, matched cells, unsupported cells) on the vulkan backend: every cell the model matches, nothing
/// refused; the two f64 suites keep the model's 48 listed known differences (`known-differences.toml`). A
/// change here is a change in what the recompiler runs: say why in the commit.
const EXPECTED: &[(&str, u64, u64)] = &[
    ("peer-buffer-load-store", 4032, 0),
    ("peer-dpp16-row-share-xmask", 1536, 0),
    ("peer-dpp8", 1152, 0),
    ("peer-ds-swizzle", 1536, 0),
    ("peer-f16-min-max-nan", 4864, 0),
    ("peer-f32-arithmetic-nan", 1024, 0),
    ("peer-f32-denormal-flush", 1024, 0),
    ("peer-f32-min-max-nan", 1792, 0),
    ("peer-f32-output-modifier", 2004, 0),
    ("peer-f64-arithmetic", 477, 0),
    ("peer-f64-nan-conversions", 83, 0),
    ("peer-float16-rounding", 768, 0),
    ("peer-fma-legacy", 100, 0),
    ("peer-global-loads", 512, 0),
    ("peer-lds-atomics", 744, 0),
    ("peer-lds-read-write", 5568, 0),
    ("peer-read-lane", 96, 0),
    ("peer-scalar-program-flow", 1344, 0),
    ("peer-scalar-sop1", 4544, 0),
    ("peer-scalar-sop2", 1888, 0),
    ("peer-sdwa-integer-selectors", 512, 0),
    ("peer-vop1-vop2-integer", 1312, 0),
    ("peer-vop3-integer", 896, 0),
    ("peer-vopc-compare", 384, 0),
];

/// Every job run and its result.
type Ran = Arc<Mutex<Vec<(Job, Result<JobOutput, BackendError>)>>>;

/// The vulkan backend, keeping every job it ran and its result for the comparison with the model.
struct Recording<B> {
    inner: B,
    ran: Ran,
}

impl<B: Backend> Backend for Recording<B> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let r = self.inner.run(job);
        if !matches!(r, Err(BackendError::Unsupported { .. })) {
            self.ran.lock().unwrap().push((job.clone(), r.clone()));
        }
        r
    }
}

#[test]
fn every_bundled_suite_matches_or_is_refused_on_vulkan() {
    let Some(vulkan) = common::vulkan() else {
        return;
    };
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let rec = Recording {
        inner: vulkan,
        ran: ran.clone(),
    };
    let backends: Vec<Box<dyn Backend>> = vec![Box::new(rec)];
    let known = conformance::known::KnownDifferences::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("known-differences.toml"),
    )
    .unwrap();
    let options = Options {
        known,
        ..Options::default()
    };
    let summary = verify(&ds, &backends, &options, |_| {});
    let b = &summary.backends[0];
    let got: Vec<(String, u64, u64)> = b
        .suites
        .iter()
        .map(|s| (s.suite.clone(), s.counts.matched, s.counts.unsupported))
        .collect();
    let table: String = got
        .iter()
        .map(|(s, m, u)| format!("    (\"{s}\", {m}, {u}),\n"))
        .collect();
    for s in &b.suites {
        assert_eq!(
            s.counts.mismatched, s.counts.known_differences,
            "{}: mismatched cells outside the known differences:\n{:#?}",
            s.suite, b.mismatches
        );
        assert_eq!(s.counts.errors, 0, "{}: errors: {:#?}", s.suite, b.problems);
        assert_eq!(
            s.counts.matched + s.counts.unsupported + s.counts.known_differences,
            s.counts.cells,
            "{}",
            s.suite
        );
    }
    let want: Vec<(String, u64, u64)> = EXPECTED
        .iter()
        .map(|(s, m, u)| (s.to_string(), *m, *u))
        .collect();
    assert_eq!(got, want, "per-suite counts changed; now:\n{table}");

    // What vulkan ran is what the model computes, memory word for word (or the same kind of error).
    let model = ModelBackend::default();
    let ran = ran.lock().unwrap();
    // The jobs (kernel, mode, dispatch) of every suite: 93 compiles and dispatches.
    assert_eq!(ran.len(), 93, "jobs vulkan ran");
    for (job, v) in ran.iter() {
        let m = model.run(job);
        let same = match (&m, v) {
            (Ok(a), Ok(b)) => a.arrays == b.arrays,
            (Err(a), Err(b)) => std::mem::discriminant(a) == std::mem::discriminant(b),
            _ => false,
        };
        assert!(
            same,
            "{}: model {:?}, vulkan {:?}",
            job.describe(),
            m.err(),
            v.as_ref().err()
        );
    }
}
