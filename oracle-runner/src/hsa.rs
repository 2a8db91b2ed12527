//! The ROCr (HSA) runtime, loaded at run time with `libloading`: `oracle` builds without ROCm, and an RDNA
//! owner needs only the runtime library (Debian/Ubuntu `libhsa-runtime64-1`, or ROCm's).
//!
//! This module opens the library, initialises the runtime and lists its agents, and says precisely what is
//! missing when something is: the library file (which one, and how to install or choose it), the kernel
//! driver's compute device `/dev/kfd` (without it `hsa_init` fails before any agent is listed), a GPU agent,
//! an RDNA (gfx10) one. Function and enum values: ROCm/ROCR-Runtime `src/inc/hsa.h` and
//! `src/inc/hsa_ext_amd.h` (commit e0fadddb3175cb95ce9e9af2ebd2a205045e854e).

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};

/// The library's usual name (the soname of ROCr 1.x).
pub const DEFAULT_LIBRARY: &str = "libhsa-runtime64.so.1";
/// The environment variable that names the library file when `--hsa-lib` does not.
pub const LIBRARY_ENV: &str = "ORACLE_HSA_LIB";
/// The kernel driver's compute device.
pub const KFD: &str = "/dev/kfd";

type Status = u32;
const HSA_STATUS_SUCCESS: Status = 0;
const HSA_STATUS_INFO_BREAK: Status = 1;
const HSA_AGENT_INFO_NAME: u32 = 0;
const HSA_AGENT_INFO_VENDOR_NAME: u32 = 1;
const HSA_AGENT_INFO_DEVICE: u32 = 17;
const HSA_DEVICE_TYPE_GPU: u32 = 1;
const HSA_SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
const HSA_SYSTEM_INFO_VERSION_MINOR: u32 = 1;
const HSA_AMD_AGENT_INFO_PRODUCT_NAME: u32 = 0xA009;

/// `hsa_agent_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct AgentHandle {
    handle: u64,
}

type AgentCallback = unsafe extern "C" fn(AgentHandle, *mut c_void) -> Status;

/// Why the runtime cannot run a collection.
#[derive(Debug, thiserror::Error)]
pub enum HsaError {
    /// The library file could not be loaded.
    #[error(
        "the ROCr runtime library `{path}` could not be loaded ({why}); install it (Debian/Ubuntu: `apt install \
         libhsa-runtime64-1`, or ROCm), or name the file with --hsa-lib PATH or {LIBRARY_ENV}=PATH"
    )]
    LibraryMissing {
        /// The file asked for.
        path: PathBuf,
        /// The loader's message.
        why: String,
    },
    /// The library lacks a function this module calls.
    #[error("`{path}` is not a usable ROCr runtime: it has no `{symbol}` ({why})")]
    SymbolMissing {
        /// The file.
        path: PathBuf,
        /// The function.
        symbol: &'static str,
        /// The loader's message.
        why: String,
    },
    /// `hsa_init` failed and there is no `/dev/kfd`.
    #[error(
        "no AMD GPU kernel driver: {KFD} does not exist, so the runtime cannot start (hsa_init: {status}). An \
         AMD GPU with the amdgpu driver provides it; in a container, pass --device {KFD} --device /dev/dri"
    )]
    NoKernelDriver {
        /// What `hsa_init` said.
        status: String,
    },
    /// `hsa_init` failed for another reason.
    #[error("hsa_init failed: {status} ({KFD} exists: check its permissions, e.g. membership of the `render` group)")]
    InitFailed {
        /// What `hsa_init` said.
        status: String,
    },
    /// A runtime call failed.
    #[error("{call} failed: {status}")]
    Call {
        /// The function.
        call: &'static str,
        /// What it said.
        status: String,
    },
    /// The runtime started but lists no GPU agent.
    #[error("the runtime lists no GPU agent (agents: {agents})")]
    NoGpu {
        /// The agents it lists.
        agents: String,
    },
    /// GPU agents exist, none of them RDNA (gfx10).
    #[error(
        "no RDNA (gfx10) GPU agent: the runtime lists {agents}; oracle measures gfx10 chips only"
    )]
    NotRdna {
        /// The GPU agents, by name.
        agents: String,
    },
}

/// One agent the runtime lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    /// `HSA_AGENT_INFO_NAME`: the ISA name for a GPU (`gfx1036`), the CPU's name otherwise.
    pub name: String,
    /// `HSA_AGENT_INFO_VENDOR_NAME`.
    pub vendor: String,
    /// `HSA_AMD_AGENT_INFO_PRODUCT_NAME` (the marketing name), where the runtime gives it.
    pub product: String,
    /// Whether it is a GPU.
    pub gpu: bool,
}

impl Agent {
    /// Whether it is an RDNA GPU (a gfx10 ISA name).
    pub fn is_rdna(&self) -> bool {
        self.gpu && self.name.starts_with("gfx10")
    }
}

/// The library to load: `explicit`, else [`LIBRARY_ENV`], else [`DEFAULT_LIBRARY`] (found by the system
/// loader's search).
pub fn library_path(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(LIBRARY_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LIBRARY))
}

/// The loaded runtime library.
pub struct Runtime {
    path: PathBuf,
    lib: libloading::Library,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("path", &self.path).finish()
    }
}

impl Runtime {
    /// Loads the library at `path` (a bare name goes through the system loader's search).
    pub fn load(path: &Path) -> Result<Runtime, HsaError> {
        // SAFETY: loading runs the library's initialisers; ROCr's only set up its own state.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| HsaError::LibraryMissing {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let rt = Runtime {
            path: path.to_path_buf(),
            lib,
        };
        // Every function this module calls, looked up now so that a wrong library is one clear error.
        for symbol in [
            "hsa_init",
            "hsa_shut_down",
            "hsa_status_string",
            "hsa_iterate_agents",
            "hsa_agent_get_info",
            "hsa_system_get_info",
        ] {
            rt.raw(symbol)?;
        }
        Ok(rt)
    }

    /// The library's file, as asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn raw(&self, symbol: &'static str) -> Result<*mut c_void, HsaError> {
        let name = format!("{symbol}\0");
        // SAFETY: the symbol is only turned into a function pointer of its hsa.h type by the callers.
        unsafe { self.lib.get::<*mut c_void>(name.as_bytes()) }
            .map(|s| *s)
            .map_err(|e| HsaError::SymbolMissing {
                path: self.path.clone(),
                symbol,
                why: e.to_string(),
            })
    }

    /// A function of the library with its hsa.h signature `F`.
    fn func<F: Copy>(&self, symbol: &'static str) -> Result<F, HsaError> {
        let p = self.raw(symbol)?;
        debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        // SAFETY: `F` is the function pointer type hsa.h declares for `symbol` (each caller names both).
        Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }

    /// `hsa_status_string`, or the number.
    fn status_text(&self, s: Status) -> String {
        let Ok(f) = self.func::<unsafe extern "C" fn(Status, *mut *const c_char) -> Status>(
            "hsa_status_string",
        ) else {
            return format!("status {s:#x}");
        };
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: hsa_status_string writes a pointer to a static string; callable before hsa_init.
        let r = unsafe { f(s, &mut text) };
        if r != HSA_STATUS_SUCCESS || text.is_null() {
            return format!("status {s:#x}");
        }
        // SAFETY: non-null, a NUL-terminated static string of the runtime.
        let t = unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned();
        format!("{t} (status {s:#x})")
    }

    /// Starts the runtime (`hsa_init`); it shuts down when the session is dropped.
    pub fn init(&self) -> Result<Session<'_>, HsaError> {
        let init = self.func::<unsafe extern "C" fn() -> Status>("hsa_init")?;
        // SAFETY: no arguments; reference-counted by the runtime, paired with hsa_shut_down on drop.
        let s = unsafe { init() };
        if s != HSA_STATUS_SUCCESS {
            let status = self.status_text(s);
            return Err(if Path::new(KFD).exists() {
                HsaError::InitFailed { status }
            } else {
                HsaError::NoKernelDriver { status }
            });
        }
        Ok(Session { rt: self })
    }
}

/// A started runtime.
#[derive(Debug)]
pub struct Session<'r> {
    rt: &'r Runtime,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Ok(f) = self
            .rt
            .func::<unsafe extern "C" fn() -> Status>("hsa_shut_down")
        {
            // SAFETY: pairs the successful hsa_init of this session.
            let _ = unsafe { f() };
        }
    }
}

/// What the agent callback collects.
struct Found {
    agents: Vec<AgentHandle>,
}

/// `hsa_iterate_agents` callback: records each agent.
unsafe extern "C" fn collect_agent(agent: AgentHandle, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Found` that `Session::agents` passes, alive for the whole iteration.
    let found = unsafe { &mut *(data as *mut Found) };
    found.agents.push(agent);
    if found.agents.len() >= 64 {
        HSA_STATUS_INFO_BREAK
    } else {
        HSA_STATUS_SUCCESS
    }
}

impl Session<'_> {
    /// The runtime's version (`HSA_SYSTEM_INFO_VERSION_MAJOR`.`MINOR`).
    pub fn version(&self) -> Result<(u16, u16), HsaError> {
        let f = self
            .rt
            .func::<unsafe extern "C" fn(u32, *mut c_void) -> Status>("hsa_system_get_info")?;
        let (mut major, mut minor) = (0u16, 0u16);
        // SAFETY: both attributes are uint16_t, written into the pointed-to u16.
        let s = unsafe {
            f(
                HSA_SYSTEM_INFO_VERSION_MAJOR,
                (&mut major as *mut u16).cast(),
            )
        };
        self.check("hsa_system_get_info", s)?;
        // SAFETY: as above.
        let s = unsafe {
            f(
                HSA_SYSTEM_INFO_VERSION_MINOR,
                (&mut minor as *mut u16).cast(),
            )
        };
        self.check("hsa_system_get_info", s)?;
        Ok((major, minor))
    }

    fn check(&self, call: &'static str, s: Status) -> Result<(), HsaError> {
        if s == HSA_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(HsaError::Call {
                call,
                status: self.rt.status_text(s),
            })
        }
    }

    /// A 64-byte string attribute of an agent (name, vendor, product).
    fn agent_string(&self, a: AgentHandle, attribute: u32) -> Result<String, HsaError> {
        let f = self
            .rt
            .func::<unsafe extern "C" fn(AgentHandle, u32, *mut c_void) -> Status>(
                "hsa_agent_get_info",
            )?;
        let mut buf = [0u8; 64];
        // SAFETY: these attributes are char[64], written into the 64-byte buffer.
        let s = unsafe { f(a, attribute, buf.as_mut_ptr().cast()) };
        self.check("hsa_agent_get_info", s)?;
        let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).trim().to_string())
    }

    /// Every agent the runtime lists.
    pub fn agents(&self) -> Result<Vec<Agent>, HsaError> {
        let iterate = self
            .rt
            .func::<unsafe extern "C" fn(AgentCallback, *mut c_void) -> Status>(
                "hsa_iterate_agents",
            )?;
        let info = self
            .rt
            .func::<unsafe extern "C" fn(AgentHandle, u32, *mut c_void) -> Status>(
                "hsa_agent_get_info",
            )?;
        let mut found = Found { agents: Vec::new() };
        // SAFETY: the callback only pushes into `found`, which outlives the call.
        let s = unsafe { iterate(collect_agent, (&mut found as *mut Found).cast()) };
        if s != HSA_STATUS_INFO_BREAK {
            self.check("hsa_iterate_agents", s)?;
        }
        let mut out = Vec::new();
        for a in found.agents {
            let mut device = u32::MAX;
            // SAFETY: HSA_AGENT_INFO_DEVICE is an hsa_device_type_t (32 bits).
            let s = unsafe { info(a, HSA_AGENT_INFO_DEVICE, (&mut device as *mut u32).cast()) };
            self.check("hsa_agent_get_info", s)?;
            let gpu = device == HSA_DEVICE_TYPE_GPU;
            out.push(Agent {
                name: self.agent_string(a, HSA_AGENT_INFO_NAME)?,
                vendor: self.agent_string(a, HSA_AGENT_INFO_VENDOR_NAME)?,
                product: if gpu {
                    self.agent_string(a, HSA_AMD_AGENT_INFO_PRODUCT_NAME)
                        .unwrap_or_default()
                } else {
                    String::new()
                },
                gpu,
            });
        }
        Ok(out)
    }

    /// The RDNA GPU agents, or why there are none.
    pub fn rdna_agents(&self) -> Result<Vec<Agent>, HsaError> {
        let all = self.agents()?;
        let names = |v: &[Agent]| -> String {
            if v.is_empty() {
                "none".into()
            } else {
                v.iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let gpus: Vec<Agent> = all.iter().filter(|a| a.gpu).cloned().collect();
        if gpus.is_empty() {
            return Err(HsaError::NoGpu {
                agents: names(&all),
            });
        }
        let rdna: Vec<Agent> = gpus.iter().filter(|a| a.is_rdna()).cloned().collect();
        if rdna.is_empty() {
            return Err(HsaError::NotRdna {
                agents: names(&gpus),
            });
        }
        Ok(rdna)
    }
}
