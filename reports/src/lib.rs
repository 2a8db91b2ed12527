//! Renders conformance results ([`model::Summary`]) for people and tools: a terminal table, Markdown, JSON,
//! JUnit XML (one test case per suite and backend) and one self-contained HTML page (no network, no external
//! assets) with the summary, a per-suite table and a drill-down of each mismatch.
//!
//! Every renderer is a pure function from the summary to text; writing files is [`write_all`]'s job.
#![deny(missing_docs)]

pub mod browser;
pub mod html;
pub mod model;
mod text;

pub use model::{BackendSummary, Counts, Mismatch, Problem, RuleSummary, SuiteSummary, Summary};
pub use text::{junit, markdown, table};

/// The JSON form of a summary (pretty-printed, stable key order).
pub fn json(summary: &Summary) -> String {
    // Serializing plain structs of strings and integers cannot fail.
    serde_json::to_string_pretty(summary).unwrap_or_default() + "\n"
}

/// The files [`write_all`] writes, relative to its folder.
pub const FILES: [&str; 4] = ["summary.json", "summary.md", "junit.xml", "index.html"];

/// Writes every report into `dir` (created if needed): `summary.json`, `summary.md`, `junit.xml`, `index.html`.
/// Each file is written to a temporary name and renamed, so a reader never sees half a report.
pub fn write_all(dir: &std::path::Path, summary: &Summary) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let contents = [
        json(summary),
        markdown(summary),
        junit(summary),
        html::page(summary),
    ];
    for (name, text) in FILES.iter().zip(contents) {
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, dir.join(name))?;
    }
    Ok(())
}

/// Escapes text for HTML and XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            // XML 1.0 forbids most control characters even escaped; they carry no meaning in a report.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => s.push('?'),
            c => s.push(c),
        }
    }
    s
}
