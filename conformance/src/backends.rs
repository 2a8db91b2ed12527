//! The backends this build can run, chosen by name on the command line.
//!
//! DESIGN.md names three: `model` (the reference model), `vulkan[:NAME]` (recompiler and driver on a Vulkan
//! device) and `hsa[:NAME]` (a real RDNA GPU through ROCr, `oracle_runner::dispatch`: `oracle-v1` kernels of
//! the GPU's own target only, every other job unsupported with its reason). `all` runs the model, every Vulkan
//! device and the ROCr GPU where each exists, and says what it could not run and why ([`Resolved::missing`]),
//! so nobody reads a model-only run as a hardware result.

use measurements::job::Backend;

pub use crate::vulkan::VulkanBackend;
pub use reference_model::exec::{Limits, ModelBackend};

/// What the `--backend` values resolved to.
pub struct Resolved {
    /// The backends to run, in the order asked, each once.
    pub backends: Vec<Box<dyn Backend>>,
    /// Backends `all` stands for that this run could not open: (name, reason).
    pub missing: Vec<(String, String)>,
}

/// The agent selector of an `hsa` or `hsa:NAME` backend name (as [`vulkan_selector`]).
pub fn hsa_selector(name: &str) -> Result<Option<&str>, String> {
    selector(
        name,
        "hsa",
        "a GPU after `hsa:` (its ISA name, e.g. gfx1030; `oracle agents` lists them)",
    )
}

/// The NAME of `KIND:NAME`, `None` for a bare `KIND`; an empty NAME is an error that asks for `what`.
fn selector<'a>(name: &'a str, kind: &str, what: &str) -> Result<Option<&'a str>, String> {
    match name.split_once(':') {
        None if name == kind => Ok(None),
        Some((k, sel)) if k == kind && !sel.is_empty() => Ok(Some(sel)),
        Some((k, _)) if k == kind => Err(format!("backend `{name}`: name {what}")),
        _ => Err(format!("backend `{name}` is not {kind} or {kind}:NAME")),
    }
}

/// Opens the RDNA GPU `selector` names (the first when `None`) through the ROCr library that
/// `ORACLE_HSA_LIB` names, or the system's `libhsa-runtime64.so.1`; a dispatch that runs longer than
/// `limits.wall_clock` (default 10 s) is abandoned.
pub fn open_hsa(selector: Option<&str>, limits: Limits) -> Result<Box<dyn Backend>, String> {
    use oracle_runner::{dispatch, hsa};
    let name = selector.map_or("hsa".to_string(), |s| format!("hsa:{s}"));
    let rt = hsa::Runtime::load(&hsa::library_path(None)).map_err(|e| format!("{name}: {e}"))?;
    let timeout = limits.wall_clock.unwrap_or(dispatch::DEFAULT_TIMEOUT);
    let device = dispatch::Device::open_for_process(rt, selector, timeout)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(Box::new(device))
}

/// The device selector of a `vulkan` or `vulkan:NAME` backend name: `None` for the default device, the NAME
/// otherwise; any other name, or an empty NAME, is an error.
pub fn vulkan_selector(name: &str) -> Result<Option<&str>, String> {
    selector(
        name,
        "vulkan",
        "a device after `vulkan:` (see --list-devices)",
    )
}

/// Resolves `--backend` values to backends, each running jobs under `limits`: `model`, `vulkan` (lavapipe,
/// or the only Vulkan device), `vulkan:NAME` (the device whose name contains NAME, case-insensitive) and
/// `all` (the model and every Vulkan device found). No value means `model`.
pub fn resolve(names: &[String], limits: Limits) -> Result<Resolved, String> {
    resolve_with(
        names,
        limits,
        driver::OpenOptions::default().pipeline_cache_capacity,
        Forms::default(),
    )
}

/// How the Vulkan backends compile where a command says otherwise than the device's defaults; each
/// difference shows in the backend's name (`vulkan:llvmpipe+rolled+unoptimized`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forms {
    /// The float engine's fixed-step computations rolled or not ([`VulkanBackend::rolling_loops`]; `None`:
    /// the device's default).
    pub rolled: Option<bool>,
    /// Ask the driver not to optimise its pipelines ([`VulkanBackend::optimizing`]).
    pub unoptimized: bool,
}

/// [`resolve`], each Vulkan backend keeping up to `pipelines` pipelines between jobs (`fuzz` keeps none,
/// since no module of its runs twice and a lavapipe pipeline of a fuzz batch holds tens of MiB) and
/// compiling as `forms` says.
pub fn resolve_with(
    names: &[String],
    limits: Limits,
    pipelines: usize,
    forms: Forms,
) -> Result<Resolved, String> {
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
        let b = VulkanBackend::open_with(sel, limits, pipelines)?;
        let b = match forms.rolled {
            Some(on) => b.rolling_loops(on),
            None => b,
        };
        Ok(Box::new(if forms.unoptimized {
            b.optimizing(false)
        } else {
            b
        }))
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
            ("hsa", _) => add(open_hsa(hsa_selector(n)?, limits)?, &mut out),
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
                match open_hsa(None, limits) {
                    Ok(b) => add(b, &mut out),
                    Err(e) => out.missing.push(("hsa".into(), e)),
                }
            }
            _ => {
                return Err(format!(
                    "unknown backend `{n}` (model, vulkan, vulkan:NAME, hsa, hsa:NAME, all)"
                ));
            }
        }
    }
    Ok(out)
}
