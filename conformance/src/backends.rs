//! The backends this build can run, chosen by name on the command line.

use measurements::job::Backend;

pub use reference_model::exec::ModelBackend;

/// Resolves `--backend` values to backends. `all` is every backend this build has.
pub fn resolve(names: &[String]) -> Result<Vec<Box<dyn Backend>>, String> {
    let names: Vec<&str> = if names.is_empty() {
        vec!["model"]
    } else {
        names.iter().map(String::as_str).collect()
    };
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for n in names {
        let list: Vec<&str> = if n == "all" { vec!["model"] } else { vec![n] };
        for n in list {
            if !seen.insert(n.to_string()) {
                continue;
            }
            match n.split_once(':').map_or(n, |(k, _)| k) {
                "model" if !n.contains(':') => out.push(Box::new(ModelBackend::default())),
                "vulkan" => {
                    return Err(format!(
                        "backend `{n}` is not available in this build: the recompiler and Vulkan driver crates do not \
                         exist yet (use `model` or `all`)"
                    ))
                }
                _ => return Err(format!("unknown backend `{n}` (model, vulkan[:NAME], all)")),
            }
        }
    }
    Ok(out)
}
