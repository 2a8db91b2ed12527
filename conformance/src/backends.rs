//! The backends this build can run, chosen by name on the command line.
//!
//! DESIGN.md names three: `model` (the reference model, built), `vulkan[:NAME]` (recompiler and driver on a
//! Vulkan device) and `hsa` (a real AMD GPU through ROCr). The last two are not in this build yet: asking for
//! one by name is an error with that reason, and `all` runs what exists and says what it left out
//! ([`Resolved::missing`]), so nobody reads a model-only run as a Vulkan result.

use measurements::job::Backend;

pub use reference_model::exec::{Limits, ModelBackend};

/// Backends DESIGN.md defines that this build lacks, with the reason (what `--backend all` cannot run).
pub const NOT_IN_BUILD: [(&str, &str); 2] = [
    (
        "vulkan",
        "the recompiler and Vulkan driver crates do not exist yet",
    ),
    ("hsa", "the ROCr/HSA runtime crate does not exist yet"),
];

/// What the `--backend` values resolved to.
pub struct Resolved {
    /// The backends to run, in the order asked, each once.
    pub backends: Vec<Box<dyn Backend>>,
    /// Backends `all` stands for that this build lacks: (name, reason).
    pub missing: Vec<(String, String)>,
}

/// Resolves `--backend` values to backends, each running jobs under `limits`. `all` is every backend this
/// build has; the ones it lacks are listed in [`Resolved::missing`]. No value means `model`.
pub fn resolve(names: &[String], limits: Limits) -> Result<Resolved, String> {
    let names: Vec<&str> = if names.is_empty() {
        vec!["model"]
    } else {
        names.iter().map(String::as_str).collect()
    };
    let mut out = Resolved {
        backends: Vec::new(),
        missing: Vec::new(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for n in names {
        if n == "all" {
            for (name, why) in NOT_IN_BUILD {
                if !out.missing.iter().any(|(m, _)| m == name) {
                    out.missing.push((name.to_string(), why.to_string()));
                }
            }
        }
        let list: Vec<&str> = if n == "all" { vec!["model"] } else { vec![n] };
        for n in list {
            if !seen.insert(n.to_string()) {
                continue;
            }
            let kind = n.split_once(':').map_or(n, |(k, _)| k);
            match kind {
                "model" if !n.contains(':') => out.backends.push(Box::new(ModelBackend { limits })),
                "model" => {
                    return Err(format!(
                        "backend `{n}`: the model takes no `:NAME` (it is one backend)"
                    ))
                }
                _ => {
                    if let Some((_, why)) = NOT_IN_BUILD.iter().find(|(k, _)| *k == kind) {
                        return Err(format!(
                            "backend `{n}` is not available in this build: {why} (use `model` or `all`)"
                        ));
                    }
                    return Err(format!(
                        "unknown backend `{n}` (model, vulkan[:NAME], hsa, all)"
                    ));
                }
            }
        }
    }
    Ok(out)
}
