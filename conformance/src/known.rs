//! Known differences: mismatches a backend cannot avoid (a host that cannot do what the hardware does), listed
//! with the measurement IDs they cover and the reason. They are still counted as mismatched, and also as
//! `known_differences`, and shown with their reason; only unlisted mismatches fail a run.
//!
//! ```toml
//! [[difference]]
//! backend = "vulkan:*"          # a backend name; `*` at the end matches any suffix
//! ids = ["M-0123456789abcdef"]
//! columns = [3]                 # optional: only these output dwords
//! reason = "why, with evidence"
//! ```

use serde::Deserialize;
use std::path::Path;

/// One listed difference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDifference {
    /// Backend name or prefix pattern (`vulkan:*`).
    pub backend: String,
    /// Measurement IDs covered.
    pub ids: Vec<String>,
    /// Output dwords covered (all when absent).
    #[serde(default)]
    pub columns: Option<Vec<u32>>,
    /// Why the difference is expected.
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    difference: Vec<KnownDifference>,
}

/// All listed differences.
#[derive(Debug, Clone, Default)]
pub struct KnownDifferences {
    /// The entries.
    pub entries: Vec<KnownDifference>,
}

impl KnownDifferences {
    /// Reads a known-differences file; errors name the file, line and reason.
    pub fn read(path: &Path) -> Result<KnownDifferences, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: File = toml::from_str(&text).map_err(|e| {
            let pos = e.span().map_or(String::new(), |s| {
                let p = measurements::error::Pos::of_offset(&text, s.start);
                format!(":{}:{}", p.line, p.column)
            });
            format!("{}{pos}: {}", path.display(), e.message().trim())
        })?;
        for d in &file.difference {
            if d.reason.trim().is_empty() {
                return Err(format!(
                    "{}: a known difference for {} has no reason",
                    path.display(),
                    d.backend
                ));
            }
            if let Some(bad) = d.ids.iter().find(|i| !measurements::id::valid_id(i)) {
                return Err(format!(
                    "{}: `{bad}` is not a measurement ID",
                    path.display()
                ));
            }
        }
        Ok(KnownDifferences {
            entries: file.difference,
        })
    }

    /// The reason a mismatch of `id` column `column` on `backend` is expected, if it is listed.
    pub fn reason(&self, backend: &str, id: &str, column: u32) -> Option<&str> {
        self.entries
            .iter()
            .find(|d| {
                let backend_ok = match d.backend.strip_suffix('*') {
                    Some(prefix) => backend.starts_with(prefix),
                    None => backend == d.backend,
                };
                backend_ok
                    && d.ids.iter().any(|i| i == id)
                    && d.columns.as_ref().is_none_or(|c| c.contains(&column))
            })
            .map(|d| d.reason.as_str())
    }
}
