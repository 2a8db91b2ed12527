//! The result model every renderer reads. Conformance fills it; JSON is its serde form.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Cell counts. A cell is one checked output dword of one measured row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Checked cells.
    pub cells: u64,
    /// Cells equal to the measurement under its mask, or accepted by the cell's NaN rule.
    pub matched: u64,
    /// Of `matched`: cells whose bits differ but whose check letter accepts both NaNs.
    pub matched_nan_rule: u64,
    /// Cells within a column's declared tolerance (not counted in `matched`).
    pub matched_with_tolerance: u64,
    /// Cells that differ.
    pub mismatched: u64,
    /// Of `mismatched`: cells listed as known differences, with their reason.
    pub known_differences: u64,
    /// Cells the backend could not run (it reported the instruction or mode unsupported).
    pub unsupported: u64,
    /// Cells whose job failed (fault, timeout, device error).
    pub errors: u64,
}

impl Counts {
    /// Adds another count into this one.
    pub fn add(&mut self, o: &Counts) {
        self.cells += o.cells;
        self.matched += o.matched;
        self.matched_nan_rule += o.matched_nan_rule;
        self.matched_with_tolerance += o.matched_with_tolerance;
        self.mismatched += o.mismatched;
        self.known_differences += o.known_differences;
        self.unsupported += o.unsupported;
        self.errors += o.errors;
    }

    /// Share of cells matched exactly or within tolerance, in percent (100 when there are no cells).
    pub fn pass_percent(&self) -> f64 {
        if self.cells == 0 {
            100.0
        } else {
            (self.matched + self.matched_with_tolerance) as f64 * 100.0 / self.cells as f64
        }
    }
}

/// Counts of one suite on one backend.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteSummary {
    /// Suite name.
    pub suite: String,
    /// The counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// The same counts split by the rows' evidence kind (`hardware`, `peer-pinned`, `peer-formula`).
    pub by_evidence: BTreeMap<String, Counts>,
}

/// One cell that differed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Measurement ID of the row.
    pub id: String,
    /// Suite.
    pub suite: String,
    /// Kernel name.
    pub kernel: String,
    /// Target the expected value was measured on.
    pub target: String,
    /// Lane in the dispatch.
    pub lane: u32,
    /// Float mode, canonical (`c0/0/1/0`).
    pub mode: String,
    /// Evidence kind of the row.
    pub evidence: String,
    /// The lane's inputs (8-digit hex).
    pub inputs: Vec<String>,
    /// Output dword index.
    pub column: u32,
    /// Label of the column, when the kernel has one.
    pub label: String,
    /// Expected value (8-digit hex).
    pub expected: String,
    /// What the backend produced (8-digit hex).
    pub actual: String,
    /// Compared bits (8-digit hex).
    pub mask: String,
    /// The cell's check letter.
    pub check: String,
    /// `(expected ^ actual) & mask` (8-digit hex).
    pub differing_bits: String,
    /// Reason, when this mismatch is a listed known difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_difference: Option<String>,
}

/// A job the backend did not run to completion: every cell of it is unsupported or an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Suite.
    pub suite: String,
    /// Kernel.
    pub kernel: String,
    /// Float mode, canonical.
    pub mode: String,
    /// Dispatch hash.
    pub dispatch: String,
    /// `unsupported` or `error`.
    pub kind: String,
    /// The backend's message.
    pub message: String,
    /// Cells affected.
    pub cells: u64,
}

/// Everything about one backend.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BackendSummary {
    /// Backend name (`model`, `vulkan:lavapipe`, ...).
    pub name: String,
    /// Totals over all suites.
    #[serde(flatten)]
    pub counts: Counts,
    /// Per suite, in name order.
    pub suites: Vec<SuiteSummary>,
    /// Differing cells (at most [`Summary::mismatch_limit`] per backend; `mismatches_omitted` counts the rest).
    pub mismatches: Vec<Mismatch>,
    /// Mismatches not listed because of the limit.
    pub mismatches_omitted: u64,
    /// Jobs that were unsupported or failed.
    pub problems: Vec<Problem>,
}

/// A hardware rule of the reference model with its evidence and how the cells that exercise it fared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RuleSummary {
    /// Stable name (`f32.tininess.after_rounding`).
    pub name: String,
    /// `measured`, `documented` or `inferred`.
    pub status: String,
    /// What the model does.
    pub text: String,
    /// Measurement IDs, suites or documents behind it.
    pub evidence: String,
    /// Suites whose cells exercise it (empty: no bundled rows do).
    pub suites: Vec<String>,
    /// Per backend, the counts over those suites' cells.
    pub results: BTreeMap<String, Counts>,
    /// Per backend, the same counts split by evidence kind (`peer-pinned`, `peer-formula`, `hardware`), so a
    /// rule's pass count over peer-formula rows is never read as hardware agreement.
    #[serde(default)]
    pub by_evidence: BTreeMap<String, BTreeMap<String, Counts>>,
}

impl RuleSummary {
    /// The evidence split of `backend`'s counts, e.g. `peer-pinned 96/96, peer-formula 32/32`; empty when the
    /// rule has no cells there.
    pub fn evidence_split(&self, backend: &str) -> String {
        self.by_evidence
            .get(backend)
            .map(|m| {
                m.iter()
                    .filter(|(_, c)| c.cells > 0)
                    .map(|(k, c)| {
                        format!("{k} {}/{}", c.matched + c.matched_with_tolerance, c.cells)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    }
}

/// The whole result of a conformance run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// One entry per backend, in the order they ran.
    pub backends: Vec<BackendSummary>,
    /// The measurement folders that were verified.
    pub measurements: Vec<String>,
    /// Rows loaded.
    pub rows: u64,
    /// Most mismatches listed per backend.
    pub mismatch_limit: u64,
    /// The model's rules registry with pass/fail counts.
    #[serde(default)]
    pub rules: Vec<RuleSummary>,
    /// Which tool made the summary, from which source, and when.
    #[serde(default)]
    pub run: RunInfo,
}

/// Who made a report and when, shown at the top of every report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The tool (`conformance`).
    pub tool: String,
    /// Its version (the crate version).
    pub version: String,
    /// The source commit it was built from, when the build could tell (`-dirty` when the tree had changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// When the report was made, UTC, RFC 3339 (`2026-12-01T20:07:27Z`).
    pub generated_at: String,
}

impl RunInfo {
    /// One line: `conformance 0.1.0, commit 0123456789ab, 2026-12-01T20:07:27Z`.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", self.tool, self.version);
        if let Some(c) = &self.commit {
            s.push_str(", commit ");
            s.push_str(c);
        }
        if !self.generated_at.is_empty() {
            s.push_str(", ");
            s.push_str(&self.generated_at);
        }
        s
    }
}

/// The evidence kinds every report lists, in this order, each even when it has no cells: a reader must see
/// how many cells were measured on hardware by this project (none in the bundled data today) beside those a
/// peer pinned from hardware and those a peer computed with its own formula.
pub const EVIDENCE_KINDS: [&str; 3] = ["hardware", "peer-pinned", "peer-formula"];

impl SuiteSummary {
    /// The evidence kinds of the suite's cells, e.g. `peer-pinned` or `peer-pinned+peer-formula`.
    pub fn evidence_label(&self) -> String {
        let kinds: Vec<&str> = self
            .by_evidence
            .iter()
            .filter(|(_, c)| c.cells > 0)
            .map(|(k, _)| k.as_str())
            .collect();
        if kinds.is_empty() {
            "-".into()
        } else {
            kinds.join("+")
        }
    }
}

impl BackendSummary {
    /// The backend's totals per evidence kind: every kind of [`EVIDENCE_KINDS`] (0 cells where none), then any
    /// other kind the rows carry.
    pub fn by_evidence(&self) -> Vec<(String, Counts)> {
        let mut m: BTreeMap<String, Counts> = BTreeMap::new();
        for s in &self.suites {
            for (k, c) in &s.by_evidence {
                m.entry(k.clone()).or_default().add(c);
            }
        }
        let mut out: Vec<(String, Counts)> = EVIDENCE_KINDS
            .iter()
            .map(|k| (k.to_string(), m.remove(*k).unwrap_or_default()))
            .collect();
        out.extend(m);
        out
    }
}

/// Seconds since the Unix epoch as an RFC 3339 UTC time (`1970-01-01T00:00:00Z`), by the civil-from-days
/// conversion of the proleptic Gregorian calendar (no time-zone data needed).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days since 0000-03-01, eras of 400 years (146,097 days).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

impl Summary {
    /// Did any backend mismatch a cell that is not a known difference?
    pub fn has_unexplained_mismatch(&self) -> bool {
        self.backends
            .iter()
            .any(|b| b.counts.mismatched > b.counts.known_differences)
    }
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_155_647), "2026-12-01T20:07:27Z");
        assert_eq!(rfc3339(4_102_444_799), "2099-12-31T23:59:59Z");
    }
}
