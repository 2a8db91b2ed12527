//! Known differences: mismatches a backend cannot avoid (a host that cannot do what the hardware does), listed
//! with the measurement IDs they cover and the reason. They are still counted as mismatched, and also as
//! `known_differences`, and shown with their reason; only unlisted mismatches fail a run.
//!
//! ```toml
//! [[difference]]
//! backend = "vulkan:*"          # a backend name or pattern (`crate::pattern` syntax)
//! ids = ["M-0123456789abcdef"]
//! columns = [3]                 # optional: only these output dwords
//! reason = "why, with evidence"
//! ```

use crate::pattern::Pattern;
use measurements::Dataset;
use serde::Deserialize;
use std::path::Path;

/// Largest known-differences file read (the bundled one has 48 entries in a few KB).
pub const MAX_BYTES: u64 = 16 << 20;

/// One listed difference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownDifference {
    /// Backend name or pattern (`vulkan:*`, [`crate::pattern`] syntax).
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

/// All listed differences, their backend patterns compiled once.
#[derive(Debug, Clone, Default)]
pub struct KnownDifferences {
    entries: Vec<KnownDifference>,
    /// `entries[i].backend`, compiled.
    backends: Vec<Pattern>,
}

impl KnownDifferences {
    /// Checks and compiles `entries`: every one needs a reason, well-formed measurement IDs and a backend
    /// pattern that compiles. The error names the entry by its backend.
    pub fn new(entries: Vec<KnownDifference>) -> Result<KnownDifferences, String> {
        let mut backends = Vec::with_capacity(entries.len());
        for d in &entries {
            if d.reason.trim().is_empty() {
                return Err(format!(
                    "a known difference for {} has no reason",
                    d.backend
                ));
            }
            if let Some(bad) = d.ids.iter().find(|i| !measurements::id::valid_id(i)) {
                return Err(format!(
                    "`{bad}` is not a measurement ID (M- and 16 lowercase hex digits)"
                ));
            }
            backends.push(Pattern::new(&d.backend).map_err(|e| format!("backend {e}"))?);
        }
        Ok(KnownDifferences { entries, backends })
    }

    /// Reads a known-differences file; errors name the file, line and reason.
    pub fn read(path: &Path) -> Result<KnownDifferences, String> {
        // Read like every measurement input: a regular file, capped, UTF-8 with the bad byte's position.
        let text = measurements::input::read_text(path, MAX_BYTES).map_err(|e| e.to_string())?;
        let file: File = toml::from_str(&text).map_err(|e| {
            let pos = e.span().map_or(String::new(), |s| {
                let p = measurements::error::Pos::of_offset(&text, s.start);
                format!(":{}:{}", p.line, p.column)
            });
            let message = measurements::hex::shorten_message(e.message().trim());
            format!("{}{pos}: {message}", path.display())
        })?;
        // A malformed ID is named with its line and column, as a TOML error would be.
        for d in &file.difference {
            if d.reason.trim().is_empty() {
                return Err(format!(
                    "{}: a known difference for {} has no reason",
                    path.display(),
                    measurements::hex::truncate(&d.backend)
                ));
            }
            if let Some(bad) = d.ids.iter().find(|i| !measurements::id::valid_id(i)) {
                let pos = text
                    .find(&format!("\"{bad}\""))
                    .map_or(String::new(), |at| {
                        let p = measurements::error::Pos::of_offset(&text, at + 1);
                        format!(":{}:{}", p.line, p.column)
                    });
                return Err(format!(
                    "{}{pos}: `{}` is not a measurement ID (M- and 16 lowercase hex digits)",
                    path.display(),
                    measurements::hex::truncate(bad)
                ));
            }
        }
        KnownDifferences::new(file.difference).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[KnownDifference] {
        &self.entries
    }

    /// The reason a mismatch of `id` column `column` on `backend` is expected, if it is listed.
    pub fn reason(&self, backend: &str, id: &str, column: u32) -> Option<&str> {
        self.entries
            .iter()
            .zip(&self.backends)
            .find(|(d, pattern)| {
                pattern.matches(backend)
                    && d.ids.iter().any(|i| i == id)
                    && d.columns.as_ref().is_none_or(|c| c.contains(&column))
            })
            .map(|(d, _)| d.reason.as_str())
    }

    /// The listed IDs that match no row of `ds`, each once, in file order: a stale entry (the row was
    /// re-measured under a new ID, or the file belongs to other data) hides nothing, but it no longer documents
    /// anything either, so the run reports it.
    pub fn stale_ids(&self, ds: &Dataset) -> Vec<String> {
        let mut seen = std::collections::BTreeSet::new();
        self.entries
            .iter()
            .flat_map(|d| &d.ids)
            .filter(|id| ds.find(id).is_none() && seen.insert(id.as_str()))
            .cloned()
            .collect()
    }
}
