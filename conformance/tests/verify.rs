//! The comparison engine with stand-in backends, so every branch of the counting is exercised on the real
//! bundled rows: a backend that reproduces the measurements, one that flips a bit, one that faults.

use conformance::{verify, Filter, KnownDifferences, Options};
use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::row::Placement;
use measurements::Dataset;
use std::collections::BTreeMap;

/// Answers every job with the measured values (what a perfect backend does), optionally flipping one bit of
/// one column.
struct Replay {
    /// (kernel, mode, dispatch, lane) of a row -> (placement, column, value) of its cells.
    expected: BTreeMap<RowKey, Vec<(Placement, u32, u32)>>,
    flip: Option<(u32, u32)>,
}

/// (kernel, mode, dispatch, lane) of a row.
type RowKey = (String, String, String, u32);

impl Replay {
    fn new(ds: &Dataset, flip: Option<(u32, u32)>) -> Replay {
        let mut expected: BTreeMap<RowKey, Vec<(Placement, u32, u32)>> = BTreeMap::new();
        for s in ds.suites.values() {
            for r in s.rows.values() {
                expected
                    .entry((
                        r.row.kernel.clone(),
                        r.row.mode.canonical(),
                        r.row.dispatch.clone(),
                        r.row.lane,
                    ))
                    .or_default()
                    .extend(
                        r.row
                            .cells
                            .iter()
                            .map(|c| (r.row.placement.clone(), c.column, c.value)),
                    );
            }
        }
        Replay { expected, flip }
    }
}

impl Backend for Replay {
    fn name(&self) -> String {
        "replay".into()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let k = &job.kernel;
        let mut arrays: Vec<(String, Vec<u32>)> = job
            .memory_image()?
            .into_iter()
            .map(|a| (a.name, a.dwords))
            .collect();
        for lane in 0..job.lane_count() as u32 {
            let key = (
                k.name.clone(),
                job.mode.canonical(),
                job.dispatch.clone(),
                lane,
            );
            for (p, c, v) in self.expected.get(&key).into_iter().flatten() {
                let flip = match self.flip {
                    Some((col, bit)) if col == *c => 1 << bit,
                    _ => 0,
                };
                let (_, dwords) = arrays.iter_mut().find(|(n, _)| *n == p.array).unwrap();
                dwords[p.dword(lane, *c) as usize] = v ^ flip;
            }
        }
        Ok(job.output_from(arrays))
    }
}

struct Faulty;

impl Backend for Faulty {
    fn name(&self) -> String {
        "faulty".into()
    }

    fn run(&self, _: &Job) -> Result<JobOutput, BackendError> {
        Err(BackendError::Fault {
            address: 0xdead_0000,
            pc: 3,
            reason: "load outside every region".into(),
        })
    }
}

fn opts(suite: &str) -> Options {
    Options {
        filter: Filter::new(&[suite], &[]).unwrap(),
        ..Options::default()
    }
}

#[test]
fn a_backend_that_reproduces_the_rows_matches_every_cell() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let s = verify(&ds, &[Box::new(Replay::new(&ds, None))], &opts("*"), |_| {});
    let c = s.backends[0].counts;
    assert_eq!(c.cells, 38240);
    assert_eq!(c.matched, c.cells);
    assert_eq!(c.mismatched + c.unsupported + c.errors, 0);
}

#[test]
fn a_flipped_bit_is_a_mismatch_with_its_measurement_id() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let s = verify(
        &ds,
        &[Box::new(Replay::new(&ds, Some((0, 22))))],
        &opts("peer-f32-arithmetic-nan"),
        |_| {},
    );
    let b = &s.backends[0];
    // Column 0 of 64 rows differs in bit 22 (the quiet bit).
    assert_eq!(b.counts.mismatched, 64);
    assert_eq!(b.counts.matched, b.counts.cells - 64);
    let m = &b.mismatches[0];
    assert_eq!(m.differing_bits, "00400000");
    assert!(ds.find(&m.id).is_some());
    assert!(s.has_unexplained_mismatch());

    // Listing them as known differences keeps them counted but no longer failing.
    let known = KnownDifferences::new(vec![conformance::known::KnownDifference {
        backend: "rep*".into(),
        ids: b.mismatches.iter().map(|m| m.id.clone()).collect(),
        columns: Some(vec![0]),
        reason: "test".into(),
    }])
    .unwrap();
    let o = Options {
        known,
        ..opts("peer-f32-arithmetic-nan")
    };
    let s = verify(
        &ds,
        &[Box::new(Replay::new(&ds, Some((0, 22))))],
        &o,
        |_| {},
    );
    assert_eq!(s.backends[0].counts.known_differences, 64);
    assert!(!s.has_unexplained_mismatch());
}

#[test]
fn nan_tolerant_cells_accept_other_nans_and_count_apart() {
    // F32DenormalFlush has `n` cells: flipping a payload bit of a NaN keeps it a NaN.
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let suite = &ds.suites["peer-f32-denormal-flush"];
    let n_cells: Vec<(u32, u32)> = suite
        .rows
        .values()
        .flat_map(|r| {
            r.row
                .cells
                .iter()
                .filter(|c| c.check == measurements::row::Check::NanF32)
                .map(|c| (c.column, c.value))
        })
        .collect();
    assert!(!n_cells.is_empty());
    let col = n_cells[0].0;
    let s = verify(
        &ds,
        &[Box::new(Replay::new(&ds, Some((col, 0))))],
        &opts("peer-f32-denormal-flush"),
        |_| {},
    );
    let c = s.backends[0].counts;
    assert!(c.matched_nan_rule > 0);
    assert_eq!(c.matched + c.mismatched, c.cells);
}

#[test]
fn faults_count_as_errors_with_the_message() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let s = verify(&ds, &[Box::new(Faulty)], &opts("peer-read-lane"), |_| {});
    let b = &s.backends[0];
    assert_eq!(b.counts.errors, b.counts.cells);
    assert_eq!(b.problems.len(), 1);
    assert_eq!(b.problems[0].kind, "error");
    assert!(b.problems[0].message.contains("0xdead0000"));
}

/// A rule's pass counts keep peer-formula rows apart from pinned ones: lds.float_minmax is exercised only by
/// the peer-formula suite peer-lds-atomics, sdwa.select_merge only by pinned suites.
#[test]
fn rule_counts_split_pinned_and_formula_rows() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let mut s = verify(&ds, &[Box::new(Replay::new(&ds, None))], &opts("*"), |_| {});
    conformance::attach_rules(&mut s);
    let rule = |n: &str| s.rules.iter().find(|r| r.name == n).unwrap();
    let lds = &rule("lds.float_minmax").by_evidence["replay"];
    assert_eq!(lds.keys().collect::<Vec<_>>(), ["peer-formula"]);
    assert_eq!(
        lds["peer-formula"].cells,
        rule("lds.float_minmax").results["replay"].cells
    );
    let sdwa = &rule("sdwa.select_merge").by_evidence["replay"];
    assert!(sdwa.contains_key("peer-pinned") && !sdwa.contains_key("peer-formula"));
    assert!(rule("lds.float_minmax")
        .evidence_split("replay")
        .starts_with("peer-formula "));
}

/// The model, with every job whose dispatch hash starts with a digit below 8 failing and bit 0 flipped in every
/// third dword of the other jobs with an odd lane count: mismatches, errors and matches all in one run, from a
/// backend that allows concurrent jobs.
struct Mixed;

impl Backend for Mixed {
    fn name(&self) -> String {
        "model".into()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        if job.dispatch.as_bytes().first().is_some_and(|c| *c < b'8') {
            return Err(BackendError::Fault {
                address: 0,
                pc: 0,
                reason: "stand-in fault".into(),
            });
        }
        let mut out = reference_model::exec::ModelBackend::default().run(job)?;
        if job.lane_count() % 2 == 1 {
            for (_, dwords) in &mut out.arrays {
                for v in dwords.iter_mut().step_by(3) {
                    *v ^= 1;
                }
            }
        }
        Ok(out)
    }

    fn concurrent(&self) -> Option<&(dyn Backend + Sync)> {
        Some(self)
    }
}

/// Jobs on several threads give the summary of a serial run, field for field: counts, the order of the kept
/// mismatches under a small limit, the omitted count, and the problems.
#[test]
fn parallel_jobs_give_the_serial_summary() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    for (mixed, backend) in [
        (true, Box::new(Mixed) as Box<dyn Backend>),
        (
            false,
            Box::new(reference_model::exec::ModelBackend::default()),
        ),
    ] {
        let backends = [backend];
        let run = |jobs: usize, mismatch_limit: usize| {
            let mut seen = Vec::new();
            let s = verify(
                &ds,
                &backends,
                &Options {
                    jobs,
                    mismatch_limit,
                    ..opts("*")
                },
                |what| seen.push(what.to_string()),
            );
            (s, seen)
        };
        for limit in [7, 5000] {
            let (serial, order) = run(1, limit);
            let c = serial.backends[0].counts;
            assert_eq!(c.cells, 38240);
            for jobs in [2, 3] {
                let (parallel, parallel_order) = run(jobs, limit);
                assert_eq!(parallel, serial, "{jobs} threads, mismatch limit {limit}");
                assert_eq!(parallel_order, order, "progress in plan order");
            }
        }
        let (s, _) = run(3, 7);
        let b = &s.backends[0];
        if mixed {
            // The stand-in exercises every branch of the merge.
            assert!(
                b.counts.mismatched > 7 && b.mismatches.len() == 7,
                "{:?}",
                b.counts
            );
            assert_eq!(b.mismatches_omitted, b.counts.mismatched - 7);
            assert!(b.counts.errors > 0 && !b.problems.is_empty() && b.counts.matched > 0);
        } else {
            assert_eq!((b.counts.mismatched, b.counts.errors), (48, 0));
        }
    }
}
