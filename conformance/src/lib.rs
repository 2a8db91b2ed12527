//! Runs measured rows through backends and compares, bit for bit under each cell's mask.
//!
//! For every suite the rows are grouped into jobs (one per kernel, float mode and dispatch:
//! [`measurements::job::plan_jobs`]); each job runs once per backend and every checked cell of its rows is
//! compared ([`measurements::compare::compare_cell`]), each row read at its own placement (rows of one dispatch
//! may compare different arrays). A job the backend refuses (`Unsupported`) counts all its
//! cells as unsupported; one that fails (fault, timeout, device error) counts them as errors. Nothing is
//! skipped silently: every cell lands in exactly one of matched, matched with tolerance, mismatched,
//! unsupported or errors.
#![deny(missing_docs)]

pub mod backends;
pub mod bench_gpu;
pub mod fuzz;
pub mod known;
pub mod pattern;
pub mod pm4;
pub mod sweep;
pub mod vulkan;

use measurements::compare::{compare_cell, Verdict};
use measurements::job::{plan_jobs, Backend, BackendError, PlannedJob};
use measurements::row::Placement;
use measurements::{Dataset, Suite};
use rayon::prelude::*;
use reports::{BackendSummary, Counts, Mismatch, Problem, SuiteSummary, Summary};
use std::collections::BTreeMap;

pub use known::KnownDifferences;
pub use pattern::{Pattern, Patterns};

/// What to verify: which suites and kernels ([`pattern`] syntax).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Suite names or patterns (`peer-f32-*`); empty means all.
    pub suites: Patterns,
    /// Kernel names or patterns; empty means all.
    pub kernels: Patterns,
}

impl Filter {
    /// A filter from the patterns of `--suite` and `--kernel`; the error names a pattern that does not compile.
    pub fn new<S: AsRef<str>>(suites: &[S], kernels: &[S]) -> Result<Filter, String> {
        Ok(Filter {
            suites: Patterns::new(suites)?,
            kernels: Patterns::new(kernels)?,
        })
    }

    fn suite(&self, name: &str) -> bool {
        self.suites.matches(name)
    }

    /// Does the filter select kernel `name`?
    pub fn kernel(&self, name: &str) -> bool {
        self.kernels.matches(name)
    }

    /// The suites of `ds` this filter selects.
    pub fn selected<'a>(&self, ds: &'a Dataset) -> Vec<&'a Suite> {
        ds.suites
            .values()
            .filter(|s| self.suite(s.name()))
            .collect()
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which suites and kernels.
    pub filter: Filter,
    /// Listed differences.
    pub known: KnownDifferences,
    /// Most mismatches kept in detail per backend.
    pub mismatch_limit: usize,
    /// Shard `(k, n)`, 1 <= k <= n: only the selected jobs whose 0-based index (suites in name order, jobs
    /// in plan order) is k-1 modulo n run; [`merge_summaries`] of the n shards is the unsharded summary.
    pub shard: (u64, u64),
    /// Threads that run the jobs of a backend that allows it ([`Backend::concurrent`]); 1 (the default) runs
    /// every job on the calling thread. The summary is the same whatever the number.
    pub jobs: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            filter: Filter::default(),
            known: KnownDifferences::default(),
            mismatch_limit: 5000,
            shard: (1, 1),
            jobs: 1,
        }
    }
}

/// Whether selected job `index` belongs to shard `(k, n)`.
fn in_shard(index: u64, (k, n): (u64, u64)) -> bool {
    n <= 1 || index % n == k - 1
}

/// The summary of a run made of the summaries of its shards (`conformance --shard K/N` for K = 1..N, or runs
/// over disjoint suites): counts added per backend, suite and evidence kind, mismatches and problems
/// gathered (in suite and ID order, at most the limit listed), the rules' counts recomputed. The parts must
/// name the same backends in the same order.
pub fn merge_summaries(parts: Vec<Summary>) -> Result<Summary, String> {
    let mut parts = parts.into_iter();
    let mut out = parts.next().ok_or("no summaries to merge")?;
    for p in parts {
        let names = |s: &Summary| {
            s.backends
                .iter()
                .map(|b| b.name.clone())
                .collect::<Vec<_>>()
        };
        if names(&p) != names(&out) {
            return Err(format!(
                "summaries of different backends cannot be merged: {:?} and {:?}",
                names(&out),
                names(&p)
            ));
        }
        out.rows = out.rows.max(p.rows);
        out.mismatch_limit = out.mismatch_limit.max(p.mismatch_limit);
        for m in p.measurements {
            if !out.measurements.contains(&m) {
                out.measurements.push(m);
            }
        }
        for (b, pb) in out.backends.iter_mut().zip(p.backends) {
            b.counts.add(&pb.counts);
            for ps in pb.suites {
                match b.suites.iter_mut().find(|s| s.suite == ps.suite) {
                    Some(s) => {
                        s.counts.add(&ps.counts);
                        for (k, c) in ps.by_evidence {
                            s.by_evidence.entry(k).or_default().add(&c);
                        }
                    }
                    None => b.suites.push(ps),
                }
            }
            b.suites.sort_by(|x, y| x.suite.cmp(&y.suite));
            b.mismatches.extend(pb.mismatches);
            b.mismatches_omitted += pb.mismatches_omitted;
            b.problems.extend(pb.problems);
        }
    }
    let limit = out.mismatch_limit as usize;
    for b in &mut out.backends {
        b.mismatches
            .sort_by(|x, y| (&x.suite, &x.id, x.column).cmp(&(&y.suite, &y.id, y.column)));
        if b.mismatches.len() > limit {
            b.mismatches_omitted += (b.mismatches.len() - limit) as u64;
            b.mismatches.truncate(limit);
        }
        b.problems.sort_by(|x, y| {
            (&x.suite, &x.kernel, &x.dispatch).cmp(&(&y.suite, &y.kernel, &y.dispatch))
        });
    }
    attach_rules(&mut out);
    Ok(out)
}

/// Number of jobs a run will execute per backend (for progress reporting).
pub fn job_count(ds: &Dataset, filter: &Filter, shard: (u64, u64)) -> usize {
    let selected: u64 = filter
        .selected(ds)
        .iter()
        .map(|s| {
            plan_jobs(s)
                .iter()
                .filter(|j| filter.kernel(&j.job.kernel.name))
                .count() as u64
        })
        .sum();
    (0..selected).filter(|&i| in_shard(i, shard)).count()
}

/// Verifies every selected row on every backend. `progress` is called once per job run, in plan order.
///
/// With [`Options::jobs`] above 1, the jobs of a backend that can run them concurrently
/// ([`Backend::concurrent`], the model) run on that many threads; each job's cells are compared where it ran and
/// the results are added up in plan order, so the summary is the one a serial run gives, field for field
/// (`tests/verify.rs` holds the two equal).
pub fn verify(
    ds: &Dataset,
    backends: &[Box<dyn Backend>],
    opts: &Options,
    mut progress: impl FnMut(&str),
) -> Summary {
    let mut summary = Summary {
        rows: ds.row_count() as u64,
        mismatch_limit: opts.mismatch_limit as u64,
        ..Default::default()
    };
    // One pool for the whole run; none when it would have one thread or cannot be built (then jobs run here).
    let pool = (opts.jobs > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(opts.jobs)
                .build()
                .ok()
        })
        .flatten();
    for backend in backends {
        let name = backend.name();
        let mut b = BackendSummary {
            name: name.clone(),
            ..Default::default()
        };
        let shared = pool.as_ref().zip(backend.concurrent());
        let mut index = 0u64;
        for suite in opts.filter.selected(ds) {
            let mut su = SuiteSummary {
                suite: suite.name().to_string(),
                ..Default::default()
            };
            let mut planned: Vec<PlannedJob> = Vec::new();
            for p in plan_jobs(suite) {
                if !opts.filter.kernel(&p.job.kernel.name) {
                    continue;
                }
                index += 1;
                if in_shard(index - 1, opts.shard) {
                    planned.push(p);
                }
            }
            match shared {
                Some((pool, concurrent)) => {
                    // Chunks bound what is held at once (each job's compared cells, not its output) and let
                    // progress move while a large suite runs.
                    for chunk in planned.chunks(PARALLEL_CHUNK.max(4 * opts.jobs)) {
                        let checked: Vec<JobCheck> = pool.install(|| {
                            chunk
                                .par_iter()
                                .map(|p| check_job(concurrent, &name, suite, p, opts))
                                .collect()
                        });
                        for (p, c) in chunk.iter().zip(checked) {
                            progress(&p.job.describe());
                            c.add_to(&mut b, &mut su, opts.mismatch_limit);
                        }
                    }
                }
                None => {
                    for p in &planned {
                        progress(&p.job.describe());
                        check_job(backend.as_ref(), &name, suite, p, opts).add_to(
                            &mut b,
                            &mut su,
                            opts.mismatch_limit,
                        );
                    }
                }
            }
            b.counts.add(&su.counts);
            b.suites.push(su);
        }
        summary.backends.push(b);
    }
    summary
}

/// Jobs handed to the thread pool at a time (at least four per thread).
const PARALLEL_CHUNK: usize = 256;

/// What one job contributed to its backend's and suite's summaries, computed where the job ran.
struct JobCheck {
    /// Counts per evidence kind; every row's kind is present, with zero counts for a row without checked
    /// cells, as the serial run creates the entry.
    by_evidence: BTreeMap<String, Counts>,
    /// All the job's cells.
    counts: Counts,
    /// The job's mismatches in row and cell order, at most the run's mismatch limit.
    mismatches: Vec<Mismatch>,
    /// Mismatches past that limit.
    more_mismatches: u64,
    /// The job's failure, if it did not run to the end.
    problem: Option<Problem>,
}

impl JobCheck {
    /// Adds the job to the summaries exactly as a serial run would have counted it then.
    fn add_to(self, b: &mut BackendSummary, su: &mut SuiteSummary, limit: usize) {
        for (k, c) in self.by_evidence {
            su.by_evidence.entry(k).or_default().add(&c);
        }
        su.counts.add(&self.counts);
        for m in self.mismatches {
            if b.mismatches.len() < limit {
                b.mismatches.push(m);
            } else {
                b.mismatches_omitted += 1;
            }
        }
        b.mismatches_omitted += self.more_mismatches;
        if let Some(p) = self.problem {
            b.problems.push(p);
        }
    }
}

/// Runs one planned job on `backend` and compares every checked cell of its rows.
fn check_job(
    backend: &dyn Backend,
    name: &str,
    suite: &Suite,
    planned: &PlannedJob,
    opts: &Options,
) -> JobCheck {
    let job = &planned.job;
    let result = backend.run(job);
    let mut out = JobCheck {
        by_evidence: BTreeMap::new(),
        counts: Counts::default(),
        mismatches: Vec::new(),
        more_mismatches: 0,
        problem: None,
    };
    let mut job_cells = 0;
    for id in &planned.rows {
        let row = &suite.rows[id].row;
        let evidence = out
            .by_evidence
            .entry(row.evidence.name().to_string())
            .or_default();
        for cell in row.checked_cells() {
            let mut c = Counts {
                cells: 1,
                ..Default::default()
            };
            match &result {
                Err(BackendError::Unsupported { .. }) => c.unsupported = 1,
                Err(_) => c.errors = 1,
                Ok(o) => {
                    let actual = o.value(&row.placement, row.lane, cell.column);
                    let verdict = match actual {
                        Some(a) => compare_cell(
                            cell,
                            a,
                            job.kernel.policy_for(&row.placement, cell.column),
                        ),
                        None => Verdict::Mismatch,
                    };
                    match verdict {
                        Verdict::Exact => c.matched = 1,
                        Verdict::NanAccepted => {
                            c.matched = 1;
                            c.matched_nan_rule = 1;
                        }
                        Verdict::WithinTolerance(_) => c.matched_with_tolerance = 1,
                        Verdict::Mismatch => {
                            c.mismatched = 1;
                            let known = opts
                                .known
                                .reason(name, &row.id, cell.column)
                                .map(str::to_string);
                            c.known_differences = known.is_some() as u64;
                            if out.mismatches.len() < opts.mismatch_limit {
                                let a = actual;
                                out.mismatches.push(Mismatch {
                                    id: row.id.clone(),
                                    suite: row.suite.clone(),
                                    kernel: row.kernel.clone(),
                                    target: row.target.clone(),
                                    lane: row.lane,
                                    mode: row.mode.canonical(),
                                    evidence: row.evidence.name().to_string(),
                                    inputs: row.inputs.iter().map(|i| format!("{i:08x}")).collect(),
                                    column: cell.column,
                                    label: label(&job.kernel, &row.placement, cell.column),
                                    expected: format!("{:08x}", cell.value),
                                    actual: a.map_or("missing".into(), |a| format!("{a:08x}")),
                                    mask: format!("{:08x}", cell.mask),
                                    check: cell.check.letter().to_string(),
                                    differing_bits: format!(
                                        "{:08x}",
                                        (cell.value ^ a.unwrap_or(!cell.value)) & cell.mask
                                    ),
                                    known_difference: known,
                                });
                            } else {
                                out.more_mismatches += 1;
                            }
                        }
                    }
                }
            }
            evidence.add(&c);
            out.counts.add(&c);
            job_cells += 1;
        }
    }
    if let Err(e) = &result {
        out.problem = Some(Problem {
            suite: suite.name().to_string(),
            kernel: job.kernel.name.clone(),
            mode: job.mode.canonical(),
            dispatch: job.dispatch.clone(),
            kind: if matches!(e, BackendError::Unsupported { .. }) {
                "unsupported"
            } else {
                "error"
            }
            .into(),
            message: e.to_string(),
            cells: job_cells,
        });
    }
    out
}

/// The label of a compared dword: the kernel's labels describe its default placement; a dword of another
/// array is named by where it is, so a report never shows an `out` label for a `scratch` value.
fn label(kernel: &measurements::kernel::Kernel, placement: &Placement, column: u32) -> String {
    if *placement == kernel.default_placement() {
        kernel
            .labels
            .get(column as usize)
            .cloned()
            .unwrap_or_default()
    } else {
        format!("{} dword {column}", placement.array)
    }
}

/// Adds the reference model's rules registry to a summary, each rule with the counts of the suites that
/// exercise it ([`reference_model::rules::suites_of`]) on every backend.
pub fn attach_rules(summary: &mut Summary) {
    use reference_model::rules::{suites_of, Status, RULES};
    summary.rules = RULES
        .iter()
        .map(|r| {
            let suites = suites_of(r.name);
            let mut by_evidence = BTreeMap::new();
            let results = summary
                .backends
                .iter()
                .map(|b| {
                    let mut c = Counts::default();
                    let mut split: BTreeMap<String, Counts> = BTreeMap::new();
                    for s in b
                        .suites
                        .iter()
                        .filter(|s| suites.contains(&s.suite.as_str()))
                    {
                        c.add(&s.counts);
                        for (k, e) in &s.by_evidence {
                            split.entry(k.clone()).or_default().add(e);
                        }
                    }
                    by_evidence.insert(b.name.clone(), split);
                    (b.name.clone(), c)
                })
                .collect();
            reports::RuleSummary {
                name: r.name.to_string(),
                status: match r.status {
                    Status::Measured => "measured",
                    Status::PeerPinned => "peer-pinned",
                    Status::Documented => "documented",
                    Status::Inferred => "inferred",
                }
                .to_string(),
                text: r.text.to_string(),
                evidence: r.evidence.to_string(),
                suites: suites.iter().map(|s| s.to_string()).collect(),
                results,
                by_evidence,
            }
        })
        .collect();
}

/// Who made a summary and when: this tool, its version, the commit it was built from when the build knew it,
/// and the time now in UTC (or `SOURCE_DATE_EPOCH` when that is set, for reproducible reports).
pub fn run_info() -> reports::model::RunInfo {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    reports::model::RunInfo {
        tool: "conformance".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        commit: option_env!("CONFORMANCE_GIT_COMMIT").map(str::to_string),
        generated_at: reports::model::rfc3339(secs),
    }
}

/// Totals per evidence kind over all suites of a backend.
pub fn evidence_totals(b: &BackendSummary) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for s in &b.suites {
        for (k, c) in &s.by_evidence {
            out.entry(k.clone()).or_default().add(c);
        }
    }
    out
}
