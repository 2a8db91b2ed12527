//! Text renderers: terminal table, Markdown and JUnit XML.

use crate::escape;
use crate::model::{BackendSummary, Counts, Summary};
use std::fmt::Write as _;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};
use tabled::{Table, Tabled};

#[derive(Tabled)]
struct Line {
    backend: String,
    suite: String,
    cells: u64,
    matched: u64,
    #[tabled(rename = "tolerance")]
    tolerance: u64,
    mismatched: u64,
    #[tabled(rename = "known")]
    known: u64,
    unsupported: u64,
    errors: u64,
    #[tabled(rename = "pass %")]
    pass: String,
    evidence: String,
}

fn line(backend: &str, suite: &str, c: &Counts, evidence: String) -> Line {
    Line {
        backend: backend.to_string(),
        suite: suite.to_string(),
        cells: c.cells,
        matched: c.matched,
        tolerance: c.matched_with_tolerance,
        mismatched: c.mismatched,
        known: c.known_differences,
        unsupported: c.unsupported,
        errors: c.errors,
        pass: format!("{:.1}", c.pass_percent()),
        evidence,
    }
}

/// `hardware 0 cells; peer-pinned 37152 cells, 37104 matched; ...`: every evidence kind, hardware first.
fn evidence_line(b: &BackendSummary) -> String {
    b.by_evidence()
        .iter()
        .map(|(k, c)| {
            if c.cells == 0 {
                format!("{k} 0 cells")
            } else {
                format!(
                    "{k} {} cells, {} matched, {} mismatched ({} known)",
                    c.cells,
                    c.matched + c.matched_with_tolerance,
                    c.mismatched,
                    c.known_differences
                )
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The summary as a terminal table: one line per backend and suite, then the backend's total.
pub fn table(summary: &Summary) -> String {
    let mut lines = Vec::new();
    for b in &summary.backends {
        for s in &b.suites {
            lines.push(line(&b.name, &s.suite, &s.counts, s.evidence_label()));
        }
        lines.push(line(&b.name, "TOTAL", &b.counts, String::new()));
    }
    let mut t = Table::new(lines);
    t.with(Style::rounded())
        .modify(Columns::new(2..10), Alignment::right());
    let mut out = t.to_string();
    out.push('\n');
    for b in &summary.backends {
        let _ = writeln!(out, "{} by evidence: {}", b.name, evidence_line(b));
        if b.counts.known_differences > 0 {
            let _ = writeln!(
                out,
                "{}: {} mismatched cells are listed known differences",
                b.name, b.counts.known_differences
            );
        }
        let mut kinds: std::collections::BTreeMap<&str, u64> = Default::default();
        for p in &b.problems {
            *kinds.entry(p.message.as_str()).or_default() += p.cells;
        }
        let mut worst: Vec<(&str, u64)> = kinds.into_iter().collect();
        worst.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (msg, cells) in worst.iter().take(5) {
            let _ = writeln!(out, "{}: {cells} cells not run: {msg}", b.name);
        }
    }
    if !summary.run.tool.is_empty() {
        let _ = writeln!(out, "{}", summary.run.line());
    }
    out
}

/// The summary as Markdown: a table per backend and the first mismatches.
pub fn markdown(summary: &Summary) -> String {
    let mut s = String::from("# Conformance summary\n\n");
    if !summary.run.tool.is_empty() {
        let _ = writeln!(s, "{}\n", summary.run.line());
    }
    let _ = writeln!(
        s,
        "Measurements: {} ({} rows)\n",
        summary.measurements.join(", "),
        summary.rows
    );
    for b in &summary.backends {
        let _ = writeln!(s, "## Backend `{}`\n", b.name);
        s.push_str("| evidence | cells | matched | tolerance | mismatched | of which known | unsupported | errors |\n");
        s.push_str("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (k, c) in b.by_evidence() {
            let _ = writeln!(
                s,
                "| {k} | {} | {} | {} | {} | {} | {} | {} |",
                c.cells,
                c.matched,
                c.matched_with_tolerance,
                c.mismatched,
                c.known_differences,
                c.unsupported,
                c.errors
            );
        }
        s.push('\n');
        s.push_str("| suite | evidence | cells | matched | tolerance | mismatched | of which known | unsupported | errors | pass % |\n");
        s.push_str("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        let row = |s: &mut String, name: &str, evidence: &str, c: &Counts| {
            let _ = writeln!(
                s,
                "| {name} | {evidence} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
                c.cells,
                c.matched,
                c.matched_with_tolerance,
                c.mismatched,
                c.known_differences,
                c.unsupported,
                c.errors,
                c.pass_percent()
            );
        };
        for su in &b.suites {
            row(&mut s, &su.suite, &su.evidence_label(), &su.counts);
        }
        row(&mut s, "**total**", "", &b.counts);
        s.push('\n');
        if !b.mismatches.is_empty() {
            s.push_str("| measurement | kernel | lane | mode | evidence | column | expected | actual | differing bits | known difference |\n");
            s.push_str("|---|---|--:|---|---|--:|---|---|---|---|\n");
            for m in b.mismatches.iter().take(50) {
                let _ = writeln!(
                    s,
                    "| {} | {}/{} | {} | {} | {} | {} | `{}` | `{}` | `{}` | {} |",
                    m.id,
                    m.suite,
                    m.kernel,
                    m.lane,
                    m.mode,
                    m.evidence,
                    m.column,
                    m.expected,
                    m.actual,
                    m.differing_bits,
                    if m.known_difference.is_some() {
                        "yes"
                    } else {
                        "no"
                    }
                );
            }
            let more = b.mismatches.len().saturating_sub(50) as u64 + b.mismatches_omitted;
            if more > 0 {
                let _ = writeln!(
                    s,
                    "\n{more} more mismatches: see summary.json or index.html."
                );
            }
            s.push('\n');
        }
    }
    if !summary.rules.is_empty() {
        s.push_str("## Rules and evidence\n\n| rule | status | suites | ");
        let names: Vec<&str> = summary.backends.iter().map(|b| b.name.as_str()).collect();
        s.push_str(
            &names
                .iter()
                .map(|n| format!("{n} pass/cells"))
                .collect::<Vec<_>>()
                .join(" | "),
        );
        s.push_str(" |\n|---|---|---|");
        s.push_str(&"---|".repeat(names.len()));
        s.push('\n');
        for r in &summary.rules {
            let _ = write!(
                s,
                "| `{}` | {} | {} |",
                r.name,
                r.status,
                if r.suites.is_empty() {
                    "-".into()
                } else {
                    r.suites.join(", ")
                }
            );
            for n in &names {
                match r.results.get(*n) {
                    Some(c) if c.cells > 0 => {
                        let _ = write!(
                            s,
                            " {}/{} ({}) |",
                            c.matched + c.matched_with_tolerance,
                            c.cells,
                            r.evidence_split(n)
                        );
                    }
                    _ => s.push_str(" - |"),
                }
            }
            s.push('\n');
        }
        s.push('\n');
    }
    s
}

/// The summary as JUnit XML: one `<testsuite>` per backend, one `<testcase>` per suite. Mismatches are
/// failures, errors are errors, and a suite with only unsupported cells is skipped.
pub fn junit(summary: &Summary) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total = |f: fn(&Counts) -> u64| {
        summary
            .backends
            .iter()
            .map(|b| b.suites.iter().filter(|x| f(&x.counts) > 0).count() as u64)
            .sum::<u64>()
    };
    let tests: usize = summary.backends.iter().map(|b| b.suites.len()).sum();
    let _ = writeln!(
        s,
        "<testsuites name=\"conformance\" tests=\"{tests}\" failures=\"{}\" errors=\"{}\">",
        total(|c| c.mismatched.saturating_sub(c.known_differences)),
        total(|c| c.errors)
    );
    for b in &summary.backends {
        let failures = b
            .suites
            .iter()
            .filter(|x| x.counts.mismatched > x.counts.known_differences)
            .count();
        let errors = b.suites.iter().filter(|x| x.counts.errors > 0).count();
        let skipped = b
            .suites
            .iter()
            .filter(|x| x.counts.unsupported == x.counts.cells && x.counts.cells > 0)
            .count();
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
            escape(&b.name),
            b.suites.len()
        );
        s.push_str("    <properties>\n");
        let mut prop = |name: &str, value: &str| {
            let _ = writeln!(
                s,
                "      <property name=\"{}\" value=\"{}\"/>",
                escape(name),
                escape(value)
            );
        };
        if !summary.run.tool.is_empty() {
            prop("tool", &summary.run.tool);
            prop("version", &summary.run.version);
            if let Some(c) = &summary.run.commit {
                prop("commit", c);
            }
            prop("generated_at", &summary.run.generated_at);
        }
        for (k, c) in b.by_evidence() {
            prop(
                &format!("evidence.{k}"),
                &format!(
                    "cells {} matched {} mismatched {} known {}",
                    c.cells,
                    c.matched + c.matched_with_tolerance,
                    c.mismatched,
                    c.known_differences
                ),
            );
        }
        prop("known_differences", &b.counts.known_differences.to_string());
        s.push_str("    </properties>\n");
        for su in &b.suites {
            let c = &su.counts;
            let _ = write!(
                s,
                "    <testcase classname=\"{}\" name=\"{}\">",
                escape(&b.name),
                escape(&su.suite)
            );
            let split: Vec<String> = su
                .by_evidence
                .iter()
                .filter(|(_, e)| e.cells > 0)
                .map(|(k, e)| format!("{k} {}", e.cells))
                .collect();
            let mut detail = format!(
                "cells {} matched {} tolerance {} mismatched {} (known {}) unsupported {} errors {}; evidence: {}",
                c.cells,
                c.matched,
                c.matched_with_tolerance,
                c.mismatched,
                c.known_differences,
                c.unsupported,
                c.errors,
                split.join(", ")
            );
            if c.known_differences > 0 {
                let _ = write!(
                    detail,
                    "; {} mismatched cells are listed known differences (not failures)",
                    c.known_differences
                );
            }
            if c.mismatched > c.known_differences {
                let ids: Vec<String> = b
                    .mismatches
                    .iter()
                    .filter(|m| m.suite == su.suite && m.known_difference.is_none())
                    .take(20)
                    .map(|m| {
                        format!(
                            "{} lane {} out[{}] expected {} got {}",
                            m.id, m.lane, m.column, m.expected, m.actual
                        )
                    })
                    .collect();
                let _ = write!(
                    s,
                    "<failure message=\"{} mismatched cells\">{}\n{}</failure>",
                    c.mismatched - c.known_differences,
                    escape(&detail),
                    escape(&ids.join("\n"))
                );
            }
            if c.errors > 0 {
                let _ = write!(
                    s,
                    "<error message=\"{} cells failed to run\">{}</error>",
                    c.errors,
                    escape(&detail)
                );
            }
            if c.cells > 0 && c.unsupported == c.cells {
                let _ = write!(
                    s,
                    "<skipped message=\"all {} cells unsupported\"/>",
                    c.cells
                );
            }
            let _ = writeln!(s, "<system-out>{}</system-out></testcase>", escape(&detail));
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}
