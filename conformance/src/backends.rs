//! The backends this build can run, chosen by name on the command line.
//!
//! DESIGN.md names three: `model` (the reference model), `vulkan[:NAME]` (recompiler and driver on a Vulkan
//! device) and `hsa` (a real AMD GPU through ROCr). `hsa` is not in this build yet: asking for it by name is
//! an error with that reason, and `all` runs what exists and says what it left out ([`Resolved::missing`]),
//! so nobody reads a model-only run as a hardware result. `all` also says when no Vulkan device was found.

use measurements::job::Backend;

pub use crate::vulkan::VulkanBackend;
pub use reference_model::exec::{Limits, ModelBackend};

/// Backends DESIGN.md defines that this build lacks, with the reason (what `--backend all` cannot run).
pub const NOT_IN_BUILD: [(&str, &str); 1] =
    [("hsa", "the ROCr/HSA runtime crate does not exist yet")];

/// What the `--backend` values resolved to.
pub struct Resolved {
    /// The backends to run, in the order asked, each once.
    pub backends: Vec<Box<dyn Backend>>,
    /// Backends `all` stands for that this run lacks: (name, reason).
    pub missing: Vec<(String, String)>,
}

/// The device selector of a `vulkan` or `vulkan:NAME` backend name: `None` for the default device, the NAME
/// otherwise; any other name, or an empty NAME, is an error.
pub fn vulkan_selector(name: &str) -> Result<Option<&str>, String> {
    match name.split_once(':') {
        None if name == "vulkan" => Ok(None),
        Some(("vulkan", sel)) if !sel.is_empty() => Ok(Some(sel)),
        Some(("vulkan", _)) => Err(format!(
            "backend `{name}`: name a device after `vulkan:` (see --list-devices)"
        )),
        _ => Err(format!("backend `{name}` is not vulkan or vulkan:NAME")),
    }
}

/// Resolves `--backend` values to backends, each running jobs under `limits`: `model`, `vulkan` (lavapipe,
/// or the only Vulkan device), `vulkan:NAME` (the device whose name contains NAME, case-insensitive) and
/// `all` (the model and every Vulkan device found). No value means `model`.
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
    let mut add = |b: Box<dyn Backend>, out: &mut Resolved| {
        if seen.insert(b.name()) {
            out.backends.push(b);
        }
    };
    let vulkan = |sel: Option<&str>| -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(VulkanBackend::open(sel, limits)?))
    };
    for n in names {
        let kind = n.split_once(':').map_or(n, |(k, _)| k);
        match (kind, n.split_once(':').map(|(_, s)| s)) {
            ("model", None) => add(Box::new(ModelBackend { limits }), &mut out),
            ("model", Some(_)) => {
                return Err(format!(
                    "backend `{n}`: the model takes no `:NAME` (it is one backend)"
                ))
            }
            ("vulkan", _) => add(vulkan(vulkan_selector(n)?)?, &mut out),
            ("all", None) => {
                add(Box::new(ModelBackend { limits }), &mut out);
                match driver::list_devices() {
                    Ok(devs) if !devs.is_empty() => {
                        for d in devs {
                            add(vulkan(Some(&d.name))?, &mut out);
                        }
                    }
                    Ok(_) => out
                        .missing
                        .push(("vulkan".into(), "no Vulkan device was found".into())),
                    Err(e) => out
                        .missing
                        .push(("vulkan".into(), format!("no Vulkan devices: {e}"))),
                }
                for (name, why) in NOT_IN_BUILD {
                    if !out.missing.iter().any(|(m, _)| m == name) {
                        out.missing.push((name.to_string(), why.to_string()));
                    }
                }
            }
            _ => {
                if let Some((_, why)) = NOT_IN_BUILD.iter().find(|(k, _)| *k == kind) {
                    return Err(format!(
                        "backend `{n}` is not available in this build: {why} (use `model`, `vulkan` or `all`)"
                    ));
                }
                return Err(format!(
                    "unknown backend `{n}` (model, vulkan, vulkan:NAME, hsa, all)"
                ));
            }
        }
    }
    Ok(out)
}
