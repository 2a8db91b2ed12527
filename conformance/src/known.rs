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

/// Largest known-differences file read (the bundled one has 48 entries in a few KB).
pub const MAX_BYTES: u64 = 16 << 20;

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
        for d in &file.difference {
            if d.reason.trim().is_empty() {
                return Err(format!(
                    "{}: a known difference for {} has no reason",
                    path.display(),
                    measurements::hex::truncate(&d.backend)
                ));
            }
            if let Some(bad) = d.ids.iter().find(|i| !measurements::id::valid_id(i)) {
                return Err(format!(
                    "{}: `{}` is not a measurement ID",
                    path.display(),
                    measurements::hex::truncate(bad)
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
