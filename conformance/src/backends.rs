//! The backends this build can run, chosen by name on the command line.

use measurements::job::Backend;

pub use crate::vulkan::VulkanBackend;
pub use reference_model::exec::ModelBackend;

/// Resolves `--backend` values to backends: `model`, `vulkan` (lavapipe, or the only Vulkan device),
/// `vulkan:NAME` (the device whose name contains NAME, case-insensitive) and `all` (the model and every
/// Vulkan device found; none found is not an error for `all`, and is printed).
pub fn resolve(names: &[String]) -> Result<Vec<Box<dyn Backend>>, String> {
    let names: Vec<&str> = if names.is_empty() {
        vec!["model"]
    } else {
        names.iter().map(String::as_str).collect()
    };
    let mut out: Vec<Box<dyn Backend>> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut add = |b: Box<dyn Backend>, out: &mut Vec<Box<dyn Backend>>| {
        if seen.insert(b.name()) {
            out.push(b);
        }
    };
    for n in names {
        match n.split_once(':') {
            None if n == "model" => add(Box::new(ModelBackend::default()), &mut out),
            None if n == "vulkan" => add(Box::new(VulkanBackend::open(None)?), &mut out),
            Some(("vulkan", sel)) if !sel.is_empty() => {
                add(Box::new(VulkanBackend::open(Some(sel))?), &mut out)
            }
            None if n == "all" => {
                add(Box::new(ModelBackend::default()), &mut out);
                match driver::list_devices() {
                    Ok(devs) if !devs.is_empty() => {
                        for d in devs {
                            add(Box::new(VulkanBackend::open(Some(&d.name))?), &mut out);
                        }
                    }
                    Ok(_) => eprintln!("conformance: --backend all: no Vulkan device found; running the model only"),
                    Err(e) => eprintln!("conformance: --backend all: no Vulkan devices ({e}); running the model only"),
                }
            }
            _ => return Err(format!("unknown backend `{n}` (model, vulkan, vulkan:NAME, all)")),
        }
    }
    Ok(out)
}
