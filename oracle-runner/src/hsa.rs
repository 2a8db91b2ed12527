//! The ROCr (HSA) runtime, loaded at run time with `libloading`: `oracle` builds without ROCm, and an RDNA
//! owner needs only the runtime library (Debian/Ubuntu `libhsa-runtime64-1`, or ROCm's).
//!
//! This module opens the library, initialises the runtime and lists its agents, and says precisely what is
//! missing when something is: the library file (which one, and how to install or choose it), the kernel
//! driver's compute device `/dev/kfd` (without it `hsa_init` fails before any agent is listed), a GPU agent,
//! an RDNA (gfx10) one. It is the crate's FFI module, the only one with `unsafe`: what a dispatch needs from
//! the runtime comes as owning wrappers ([`PoolMemory`], [`Signal`], [`DispatchQueue`], [`Executable`]) that
//! release their handle when dropped, and that a caller leaks instead where the GPU may still use it (a
//! dispatch that did not finish). Function and enum values: ROCm/ROCR-Runtime `src/inc/hsa.h` and
//! `src/inc/hsa_ext_amd.h` (commit e0fadddb3175cb95ce9e9af2ebd2a205045e854e).

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The library's usual name (the soname of ROCr 1.x).
pub const DEFAULT_LIBRARY: &str = "libhsa-runtime64.so.1";
/// The environment variable that names the library file when `--hsa-lib` does not.
pub const LIBRARY_ENV: &str = "ORACLE_HSA_LIB";
/// The kernel driver's compute device.
pub const KFD: &str = "/dev/kfd";

/// `hsa_status_t`.
pub type Status = u32;
/// `HSA_STATUS_SUCCESS`.
pub const HSA_STATUS_SUCCESS: Status = 0;
/// `HSA_STATUS_INFO_BREAK`: a callback stopped an iteration.
pub const HSA_STATUS_INFO_BREAK: Status = 1;
/// `HSA_STATUS_ERROR`, the generic failure.
pub const HSA_STATUS_ERROR: Status = 0x1000;
const HSA_AGENT_INFO_NAME: u32 = 0;
const HSA_AGENT_INFO_VENDOR_NAME: u32 = 1;
const HSA_AGENT_INFO_DEVICE: u32 = 17;
const HSA_DEVICE_TYPE_GPU: u32 = 1;
const HSA_SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
const HSA_SYSTEM_INFO_VERSION_MINOR: u32 = 1;
const HSA_AMD_SYSTEM_INFO_BUILD_VERSION: u32 = 0x200;
const HSA_AMD_AGENT_INFO_PRODUCT_NAME: u32 = 0xA009;

/// An opaque runtime handle (`hsa_agent_t`, `hsa_signal_t`, `hsa_amd_memory_pool_t`, `hsa_executable_t`,
/// ...: each a struct of one `uint64_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Handle {
    /// The runtime's value.
    pub handle: u64,
}

/// `hsa_queue_t` (the large-model layout).
#[repr(C)]
#[derive(Debug)]
pub struct Queue {
    /// `type`.
    pub queue_type: u32,
    /// `features`.
    pub features: u32,
    /// `base_address`: the ring of 64-byte packets.
    pub base_address: *mut c_void,
    /// `doorbell_signal`.
    pub doorbell_signal: Handle,
    /// `size`: packets in the ring (a power of two).
    pub size: u32,
    /// `reserved1`.
    pub reserved1: u32,
    /// `id`.
    pub id: u64,
}

/// `hsa_iterate_agents`' callback.
pub type AgentCallback = unsafe extern "C" fn(Handle, *mut c_void) -> Status;
/// `hsa_amd_agent_iterate_memory_pools`' callback.
pub type PoolCallback = unsafe extern "C" fn(Handle, *mut c_void) -> Status;
/// `hsa_queue_create`'s error callback.
pub type QueueCallback = unsafe extern "C" fn(Status, *mut Queue, *mut c_void);

macro_rules! api {
    ($($(#[$doc:meta])* $name:ident: $ty:ty,)*) => {
        /// The ROCr functions oracle calls, with their `hsa.h` / `hsa_ext_amd.h` signatures: looked up all at
        /// once by [`Runtime::load`] (so a wrong library is one clear error), or supplied by a caller, e.g. a
        /// test's stand-in runtime ([`Runtime::with_api`]).
        #[derive(Clone, Copy, Debug)]
        #[allow(missing_docs)]
        pub struct Api {
            $($(#[$doc])* pub $name: $ty,)*
        }

        impl Api {
            fn from_library(lib: &libloading::Library, path: &Path) -> Result<Api, HsaError> {
                Ok(Api {
                    $($name: {
                        let symbol = concat!(stringify!($name), "\0");
                        // SAFETY: the field's type is the signature hsa.h declares for this symbol.
                        *unsafe { lib.get::<$ty>(symbol.as_bytes()) }.map_err(|e| HsaError::SymbolMissing {
                            path: path.to_path_buf(),
                            symbol: stringify!($name),
                            why: e.to_string(),
                        })?
                    },)*
                })
            }
        }
    };
}

api! {
    hsa_init: unsafe extern "C" fn() -> Status,
    hsa_shut_down: unsafe extern "C" fn() -> Status,
    hsa_status_string: unsafe extern "C" fn(Status, *mut *const c_char) -> Status,
    hsa_system_get_info: unsafe extern "C" fn(u32, *mut c_void) -> Status,
    hsa_iterate_agents: unsafe extern "C" fn(AgentCallback, *mut c_void) -> Status,
    hsa_agent_get_info: unsafe extern "C" fn(Handle, u32, *mut c_void) -> Status,
    hsa_amd_agent_iterate_memory_pools: unsafe extern "C" fn(Handle, PoolCallback, *mut c_void) -> Status,
    hsa_amd_memory_pool_get_info: unsafe extern "C" fn(Handle, u32, *mut c_void) -> Status,
    hsa_amd_memory_pool_allocate: unsafe extern "C" fn(Handle, usize, u32, *mut *mut c_void) -> Status,
    hsa_amd_memory_pool_free: unsafe extern "C" fn(*mut c_void) -> Status,
    hsa_amd_agents_allow_access: unsafe extern "C" fn(u32, *const Handle, *const u32, *const c_void) -> Status,
    hsa_queue_create: unsafe extern "C" fn(
        Handle,
        u32,
        u32,
        Option<QueueCallback>,
        *mut c_void,
        u32,
        u32,
        *mut *mut Queue,
    ) -> Status,
    hsa_queue_destroy: unsafe extern "C" fn(*mut Queue) -> Status,
    hsa_queue_add_write_index_screlease: unsafe extern "C" fn(*const Queue, u64) -> u64,
    hsa_queue_load_read_index_scacquire: unsafe extern "C" fn(*const Queue) -> u64,
    hsa_signal_create: unsafe extern "C" fn(i64, u32, *const Handle, *mut Handle) -> Status,
    hsa_signal_destroy: unsafe extern "C" fn(Handle) -> Status,
    hsa_signal_store_screlease: unsafe extern "C" fn(Handle, i64),
    hsa_signal_wait_scacquire: unsafe extern "C" fn(Handle, u32, i64, u64, u32) -> i64,
    hsa_code_object_reader_create_from_memory: unsafe extern "C" fn(*const c_void, usize, *mut Handle) -> Status,
    hsa_code_object_reader_destroy: unsafe extern "C" fn(Handle) -> Status,
    hsa_executable_create_alt: unsafe extern "C" fn(u32, u32, *const c_char, *mut Handle) -> Status,
    hsa_executable_load_agent_code_object: unsafe extern "C" fn(Handle, Handle, Handle, *const c_char, *mut Handle) -> Status,
    hsa_executable_freeze: unsafe extern "C" fn(Handle, *const c_char) -> Status,
    hsa_executable_get_symbol_by_name: unsafe extern "C" fn(Handle, *const c_char, *const Handle, *mut Handle) -> Status,
    hsa_executable_symbol_get_info: unsafe extern "C" fn(Handle, u32, *mut c_void) -> Status,
    hsa_executable_destroy: unsafe extern "C" fn(Handle) -> Status,
}

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
    /// No RDNA agent has the name asked for.
    #[error("no RDNA GPU agent is named like `{want}`: the runtime lists {agents}")]
    NoSuchAgent {
        /// What was asked for.
        want: String,
        /// The RDNA agents, by ISA and product name.
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
    /// The runtime's handle.
    pub handle: Handle,
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

/// The loaded runtime library (or a caller's stand-in for it).
pub struct Runtime {
    path: PathBuf,
    api: Api,
    _lib: Option<libloading::Library>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("path", &self.path).finish()
    }
}

impl Runtime {
    /// Loads the library at `path` (a bare name goes through the system loader's search) and looks up every
    /// function of [`Api`].
    pub fn load(path: &Path) -> Result<Runtime, HsaError> {
        // SAFETY: loading runs the library's initialisers; ROCr's only set up its own state.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| HsaError::LibraryMissing {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let api = Api::from_library(&lib, path)?;
        Ok(Runtime {
            path: path.to_path_buf(),
            api,
            _lib: Some(lib),
        })
    }

    /// A runtime whose functions are `api` (a stand-in that implements hsa.h's contract), shown as `label`.
    pub fn with_api(api: Api, label: &Path) -> Runtime {
        Runtime {
            path: label.to_path_buf(),
            api,
            _lib: None,
        }
    }

    /// The library's file, as asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `hsa_status_string`, or the number.
    pub(crate) fn status_text(&self, s: Status) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: hsa_status_string writes a pointer to a static string; callable before hsa_init.
        let r = unsafe { (self.api.hsa_status_string)(s, &mut text) };
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
        // SAFETY: no arguments; reference-counted by the runtime, paired with hsa_shut_down on drop.
        let s = unsafe { (self.api.hsa_init)() };
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
        // SAFETY: pairs the successful hsa_init of this session.
        let _ = unsafe { (self.rt.api.hsa_shut_down)() };
    }
}

/// What the agent callback collects.
struct Found {
    agents: Vec<Handle>,
}

/// `hsa_iterate_agents` callback: records each agent.
unsafe extern "C" fn collect_agent(agent: Handle, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Found` that `Session::agents` passes, alive for the whole iteration.
    let found = unsafe { &mut *(data as *mut Found) };
    found.agents.push(agent);
    if found.agents.len() >= 64 {
        HSA_STATUS_INFO_BREAK
    } else {
        HSA_STATUS_SUCCESS
    }
}

/// `hsa_amd_agent_iterate_memory_pools` callback: records each pool.
unsafe extern "C" fn collect_pool(pool: Handle, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Vec<Handle>` that `Session::memory_pools` passes, alive for the whole iteration.
    let pools = unsafe { &mut *(data as *mut Vec<Handle>) };
    pools.push(pool);
    HSA_STATUS_SUCCESS
}

/// The queue error callback [`Session::queue`] gives `hsa_queue_create` (its `data` a `&'static AtomicU32`):
/// stores the failing status (at least 1), which [`DispatchQueue::error`] reads.
unsafe extern "C" fn queue_error_flag(status: Status, _queue: *mut Queue, data: *mut c_void) {
    // SAFETY: `Session::queue` passes a leaked `AtomicU32`, which is never freed.
    let flag = unsafe { &*(data as *const AtomicU32) };
    flag.store(status.max(1), Ordering::Release);
}

/// A queue made by `hsa_queue_create`. ROCr's queue may be used from any thread (its write index and doorbell
/// are atomic); the pointer stays valid until `hsa_queue_destroy`, which its owner calls.
#[derive(Clone, Copy, Debug)]
struct QueuePtr(*mut Queue);

// SAFETY: the pointee is the runtime's queue, shared by design between threads (hsa.h queues are thread-safe).
unsafe impl Send for QueuePtr {}
// SAFETY: as above: every access goes through the runtime's atomic index and signal functions.
unsafe impl Sync for QueuePtr {}

/// Memory from a runtime pool that one agent may access (`hsa_amd_memory_pool_allocate` and
/// `hsa_amd_agents_allow_access`), freed when dropped unless [`PoolMemory::leak`]ed. The device reads and
/// writes it behind the process's back, which is why every access copies bytes rather than lending a slice.
#[derive(Debug)]
pub struct PoolMemory<'r> {
    rt: &'r Runtime,
    base: *mut u8,
    bytes: usize,
}

impl PoolMemory<'_> {
    /// The address the runtime gave (as the device sees it: ROCr maps pool memory at the same address).
    pub fn address(&self) -> u64 {
        self.base as u64
    }

    fn check(&self, offset: usize, dwords: usize) {
        assert!(
            offset
                .checked_add(4 * dwords)
                .is_some_and(|end| end <= self.bytes),
            "{} dwords at byte {offset} of a {}-byte allocation",
            dwords,
            self.bytes
        );
    }

    /// Copies `dwords` (little-endian, as the host is) to byte `offset`.
    ///
    /// # Panics
    ///
    /// When they do not fit.
    pub fn write(&self, offset: usize, dwords: &[u32]) {
        self.check(offset, dwords.len());
        // SAFETY: the range lies within the allocation (checked above); bytes have no alignment.
        unsafe {
            std::ptr::copy_nonoverlapping(
                dwords.as_ptr().cast::<u8>(),
                self.base.add(offset),
                4 * dwords.len(),
            )
        };
    }

    /// Copies `out.len()` dwords from byte `offset` into `out`.
    ///
    /// # Panics
    ///
    /// When they do not fit.
    pub fn read(&self, offset: usize, out: &mut [u32]) {
        self.check(offset, out.len());
        // SAFETY: the range lies within the allocation (checked above); bytes have no alignment.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.add(offset),
                out.as_mut_ptr().cast::<u8>(),
                4 * out.len(),
            )
        };
    }

    /// Gives the memory up without freeing it: a dispatch that did not finish may still write it.
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

impl Drop for PoolMemory<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by hsa_amd_memory_pool_allocate and freed once; the owner leaks instead while a
        // dispatch may still use it.
        unsafe { (self.rt.api.hsa_amd_memory_pool_free)(self.base.cast()) };
    }
}

/// A completion signal (`hsa_signal_create`), destroyed when dropped unless [`Signal::leak`]ed.
#[derive(Debug)]
pub struct Signal<'r> {
    rt: &'r Runtime,
    handle: Handle,
}

impl Signal<'_> {
    /// The runtime's handle (what a packet names as its completion signal).
    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// `hsa_signal_store_screlease`.
    pub fn store(&self, value: i64) {
        // SAFETY: a live signal of this runtime.
        unsafe { (self.rt.api.hsa_signal_store_screlease)(self.handle, value) };
    }

    /// Waits, blocked, until the value is below `value` or about `ticks` timestamp ticks passed
    /// (`hsa_signal_wait_scacquire` with `HSA_SIGNAL_CONDITION_LT`); returns the value seen last.
    pub fn wait_below(&self, value: i64, ticks: u64) -> i64 {
        // SAFETY: a live signal of this runtime; the condition and wait state are hsa.h enum values.
        unsafe {
            (self.rt.api.hsa_signal_wait_scacquire)(
                self.handle,
                HSA_SIGNAL_CONDITION_LT,
                value,
                ticks,
                HSA_WAIT_STATE_BLOCKED,
            )
        }
    }

    /// Gives the signal up without destroying it: a dispatch that did not finish may still signal it.
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

impl Drop for Signal<'_> {
    fn drop(&mut self) {
        // SAFETY: made by hsa_signal_create and destroyed once; the owner leaks instead while a dispatch may
        // still signal it.
        unsafe { (self.rt.api.hsa_signal_destroy)(self.handle) };
    }
}

/// A single-producer AQL queue on a GPU agent (`hsa_queue_create`), destroyed when dropped unless
/// [`DispatchQueue::abandon`]ed. Its error callback records a failing status, which [`DispatchQueue::error`]
/// reads.
#[derive(Debug)]
pub struct DispatchQueue<'r> {
    rt: &'r Runtime,
    queue: QueuePtr,
    /// Where the error callback writes; leaked, since the runtime may call it as long as the queue lives.
    error: &'static AtomicU32,
}

impl DispatchQueue<'_> {
    /// The status the runtime reported through the queue's error callback, if it did.
    pub fn error(&self) -> Option<Status> {
        let s = self.error.load(Ordering::Acquire);
        (s != 0).then_some(s)
    }

    /// Writes one 64-byte AQL packet: bytes 4..64 of `packet` into the next slot, then `header` (the packet's
    /// first dword: header and setup) with release order so the packet processor sees a whole packet, then
    /// rings the doorbell. Returns the packet's index; fails (writing nothing) when the ring has no free slot.
    pub fn submit(&self, header: u32, packet: &[u8; 64]) -> Result<u64, HsaError> {
        let api = &self.rt.api;
        let queue = self.queue.0;
        // SAFETY: a live queue of this runtime; `size` and `base_address` never change after creation.
        let (size, base, doorbell) = unsafe {
            (
                (*queue).size,
                (*queue).base_address.cast::<u8>(),
                (*queue).doorbell_signal,
            )
        };
        // SAFETY: reserves one packet slot of this live queue.
        let index = unsafe { (api.hsa_queue_add_write_index_screlease)(queue, 1) };
        // SAFETY: a live queue of this runtime.
        let read = unsafe { (api.hsa_queue_load_read_index_scacquire)(queue) };
        if size == 0 || index.wrapping_sub(read) >= u64::from(size) {
            return Err(HsaError::Call {
                call: "hsa_queue_add_write_index_screlease",
                status: format!(
                    "packet {index} while the packet processor reads {read}: the {size}-packet ring is full"
                ),
            });
        }
        let slot = (index % u64::from(size)) as usize;
        // SAFETY: the ring holds `size` 64-byte packets, 64-byte aligned (hsa.h); the slot at `index` is ours
        // (reserved above, and the processor has read every packet before it up to `size` back), so no one
        // else writes it. The header dword goes last with release order.
        unsafe {
            let p = base.add(slot * 64);
            std::ptr::copy_nonoverlapping(packet.as_ptr().add(4), p.add(4), 60);
            AtomicU32::from_ptr(p.cast::<u32>()).store(header, Ordering::Release);
            (api.hsa_signal_store_screlease)(doorbell, index as i64);
        }
        Ok(index)
    }

    /// Gives the queue up without destroying it: a dispatch on it did not finish, and the GPU may still run
    /// it.
    pub fn abandon(self) {
        std::mem::forget(self);
    }
}

impl Drop for DispatchQueue<'_> {
    fn drop(&mut self) {
        // SAFETY: made by hsa_queue_create and destroyed once, with no dispatch in flight (an unfinished one
        // abandons the queue instead).
        unsafe { (self.rt.api.hsa_queue_destroy)(self.queue.0) };
    }
}

/// A frozen executable holding one agent's code object (`hsa_executable_create_alt`, `..._load_agent_code_object`,
/// `..._freeze`), destroyed when dropped.
#[derive(Debug)]
pub struct Executable<'r> {
    rt: &'r Runtime,
    handle: Handle,
}

/// What a kernel symbol of an executable says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSymbol {
    /// `KERNEL_OBJECT`: the address of the kernel descriptor, which a dispatch packet names.
    pub kernel_object: u64,
    /// `KERNEL_KERNARG_SEGMENT_SIZE`, in bytes.
    pub kernarg_size: u32,
    /// `KERNEL_GROUP_SEGMENT_SIZE` (LDS), in bytes.
    pub group_segment_size: u32,
    /// `KERNEL_PRIVATE_SEGMENT_SIZE` (scratch per work-item), in bytes.
    pub private_segment_size: u32,
}

/// Why [`Session::load`] made no executable.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The runtime refused the code object (reading, loading or freezing it): another version may load.
    #[error("{0}")]
    Refused(HsaError),
    /// The runtime failed for a reason the code object does not change.
    #[error("{0}")]
    Failed(HsaError),
}

impl Executable<'_> {
    /// The kernel symbol `name` (the descriptor's name, `NAME.kd`) for `agent`.
    pub fn kernel(&self, name: &str, agent: Handle) -> Result<KernelSymbol, HsaError> {
        let api = &self.rt.api;
        let failed = |call, status| HsaError::Call { call, status };
        let c = std::ffi::CString::new(name).map_err(|_| {
            failed(
                "hsa_executable_get_symbol_by_name",
                format!("the symbol name {name:?} holds a NUL"),
            )
        })?;
        let mut symbol = Handle::default();
        // SAFETY: a NUL-terminated name, a live executable and an agent handle; writes the symbol's handle.
        let s = unsafe {
            (api.hsa_executable_get_symbol_by_name)(self.handle, c.as_ptr(), &agent, &mut symbol)
        };
        if s != HSA_STATUS_SUCCESS {
            return Err(failed(
                "hsa_executable_get_symbol_by_name",
                format!("`{name}`: {}", self.rt.status_text(s)),
            ));
        }
        let get = api.hsa_executable_symbol_get_info;
        let mut k = KernelSymbol {
            kernel_object: 0,
            kernarg_size: 0,
            group_segment_size: 0,
            private_segment_size: 0,
        };
        // SAFETY: KERNEL_OBJECT is a uint64_t, the three segment sizes uint32_t, each written into a field of
        // that type.
        let ok = unsafe {
            get(
                symbol,
                HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                (&mut k.kernel_object as *mut u64).cast(),
            ) == HSA_STATUS_SUCCESS
                && get(
                    symbol,
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                    (&mut k.kernarg_size as *mut u32).cast(),
                ) == HSA_STATUS_SUCCESS
                && get(
                    symbol,
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                    (&mut k.group_segment_size as *mut u32).cast(),
                ) == HSA_STATUS_SUCCESS
                && get(
                    symbol,
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                    (&mut k.private_segment_size as *mut u32).cast(),
                ) == HSA_STATUS_SUCCESS
        };
        if !ok {
            return Err(failed(
                "hsa_executable_symbol_get_info",
                format!("`{name}`: the runtime does not describe the kernel symbol"),
            ));
        }
        Ok(k)
    }
}

impl Drop for Executable<'_> {
    fn drop(&mut self) {
        // SAFETY: made by hsa_executable_create_alt and destroyed once; its owner keeps it while a dispatch of
        // its kernels may run (an unfinished dispatch abandons its queue, not the executable, which the device
        // keeps until it is dropped itself).
        unsafe { (self.rt.api.hsa_executable_destroy)(self.handle) };
    }
}

/// A code object reader, destroyed when dropped (the executable keeps what it loaded).
struct Reader<'r> {
    rt: &'r Runtime,
    handle: Handle,
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        // SAFETY: made by hsa_code_object_reader_create_from_memory and destroyed once.
        unsafe { (self.rt.api.hsa_code_object_reader_destroy)(self.handle) };
    }
}

const HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: u32 = 3;
const HSA_AGENT_INFO_QUEUE_MIN_SIZE: u32 = 13;
const HSA_AMD_MEMORY_POOL_INFO_SEGMENT: u32 = 0;
const HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
const HSA_AMD_SEGMENT_GLOBAL: u32 = 0;
const HSA_AMD_AGENT_INFO_UCODE_VERSION: u32 = 0xA108;
const HSA_QUEUE_TYPE_SINGLE: u32 = 1;
const HSA_PROFILE_FULL: u32 = 1;
const HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT: u32 = 0;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: u32 = 11;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
const HSA_SIGNAL_CONDITION_LT: u32 = 2;
const HSA_WAIT_STATE_BLOCKED: u32 = 0;

impl<'r> Session<'r> {
    /// The runtime.
    pub fn runtime(&self) -> &'r Runtime {
        self.rt
    }

    /// The memory pools of `agent` (`hsa_amd_agent_iterate_memory_pools`).
    pub fn memory_pools(&self, agent: Handle) -> Result<Vec<Handle>, HsaError> {
        let mut pools: Vec<Handle> = Vec::new();
        // SAFETY: the callback only pushes into `pools`, which outlives the call.
        let s = unsafe {
            (self.rt.api.hsa_amd_agent_iterate_memory_pools)(
                agent,
                collect_pool,
                (&mut pools as *mut Vec<Handle>).cast(),
            )
        };
        self.check("hsa_amd_agent_iterate_memory_pools", s)?;
        Ok(pools)
    }

    /// The `HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS` of `pool` when it is a pool of the global segment that the
    /// runtime may allocate from; `None` for any other pool or when a query fails.
    pub fn global_pool_flags(&self, pool: Handle) -> Option<u32> {
        let get = self.rt.api.hsa_amd_memory_pool_get_info;
        let (mut segment, mut flags, mut alloc) = (u32::MAX, 0u32, 0u8);
        // SAFETY: SEGMENT is an hsa_amd_segment_t (32 bits), GLOBAL_FLAGS a uint32_t, RUNTIME_ALLOC_ALLOWED a
        // bool (one byte), each written into a variable of that size.
        let ok = unsafe {
            get(
                pool,
                HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                (&mut segment as *mut u32).cast(),
            ) == HSA_STATUS_SUCCESS
                && get(
                    pool,
                    HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS,
                    (&mut flags as *mut u32).cast(),
                ) == HSA_STATUS_SUCCESS
                && get(
                    pool,
                    HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                    (&mut alloc as *mut u8).cast(),
                ) == HSA_STATUS_SUCCESS
        };
        (ok && segment == HSA_AMD_SEGMENT_GLOBAL && alloc != 0).then_some(flags)
    }

    /// The timestamp counter's ticks per second (`HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY`).
    pub fn timestamp_frequency(&self) -> Result<u64, HsaError> {
        let mut ticks = 0u64;
        // SAFETY: TIMESTAMP_FREQUENCY is a uint64_t.
        let s = unsafe {
            (self.rt.api.hsa_system_get_info)(
                HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY,
                (&mut ticks as *mut u64).cast(),
            )
        };
        self.check("hsa_system_get_info", s)?;
        Ok(ticks)
    }

    /// The smallest queue `agent` creates, in packets (`HSA_AGENT_INFO_QUEUE_MIN_SIZE`).
    pub fn queue_min_size(&self, agent: Handle) -> Result<u32, HsaError> {
        let mut size = 0u32;
        // SAFETY: QUEUE_MIN_SIZE is a uint32_t.
        let s = unsafe {
            (self.rt.api.hsa_agent_get_info)(
                agent,
                HSA_AGENT_INFO_QUEUE_MIN_SIZE,
                (&mut size as *mut u32).cast(),
            )
        };
        self.check("hsa_agent_get_info", s)?;
        Ok(size)
    }

    /// The GPU microcode version of `agent` (`HSA_AMD_AGENT_INFO_UCODE_VERSION`), where the runtime gives it.
    pub fn ucode_version(&self, agent: Handle) -> Option<u32> {
        let mut v = 0u32;
        // SAFETY: UCODE_VERSION is a uint32_t.
        let s = unsafe {
            (self.rt.api.hsa_agent_get_info)(
                agent,
                HSA_AMD_AGENT_INFO_UCODE_VERSION,
                (&mut v as *mut u32).cast(),
            )
        };
        (s == HSA_STATUS_SUCCESS).then_some(v)
    }

    /// `bytes` (at least one) from `pool`, made accessible to `agent`; 16-byte aligned or an error.
    pub fn allocate(
        &self,
        pool: Handle,
        bytes: usize,
        agent: Handle,
    ) -> Result<PoolMemory<'r>, HsaError> {
        let api = &self.rt.api;
        let bytes = bytes.max(1);
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes the new allocation's address into `p`.
        let s = unsafe { (api.hsa_amd_memory_pool_allocate)(pool, bytes, 0, &mut p) };
        self.check("hsa_amd_memory_pool_allocate", s)?;
        if p.is_null() {
            return Err(HsaError::Call {
                call: "hsa_amd_memory_pool_allocate",
                status: format!("success with a null address for {bytes} bytes"),
            });
        }
        // From here the allocation is freed when `memory` is dropped.
        let memory = PoolMemory {
            rt: self.rt,
            base: p.cast(),
            bytes,
        };
        // SAFETY: one agent handle, no flags (NULL), a pointer the runtime just allocated.
        let s = unsafe { (api.hsa_amd_agents_allow_access)(1, &agent, std::ptr::null(), p) };
        self.check("hsa_amd_agents_allow_access", s)?;
        if p as usize % 16 != 0 {
            return Err(HsaError::Call {
                call: "hsa_amd_memory_pool_allocate",
                status: format!("{p:p} is not 16-byte aligned"),
            });
        }
        Ok(memory)
    }

    /// A signal with the value `initial`, any agent its consumer.
    pub fn signal(&self, initial: i64) -> Result<Signal<'r>, HsaError> {
        let mut handle = Handle::default();
        // SAFETY: any consumer (0, NULL); writes the signal's handle.
        let s =
            unsafe { (self.rt.api.hsa_signal_create)(initial, 0, std::ptr::null(), &mut handle) };
        self.check("hsa_signal_create", s)?;
        Ok(Signal {
            rt: self.rt,
            handle,
        })
    }

    /// A single-producer queue of `size` packets (a power of two) on `agent`, with the runtime's default
    /// private and group segment limits.
    pub fn queue(&self, agent: Handle, size: u32) -> Result<DispatchQueue<'r>, HsaError> {
        let error: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
        let mut queue: *mut Queue = std::ptr::null_mut();
        // SAFETY: the callback reads `data` as the leaked AtomicU32, which lives for the process; u32::MAX
        // segment limits ask for the runtime's defaults; writes the queue's address.
        let s = unsafe {
            (self.rt.api.hsa_queue_create)(
                agent,
                size,
                HSA_QUEUE_TYPE_SINGLE,
                Some(queue_error_flag),
                (error as *const AtomicU32).cast_mut().cast(),
                u32::MAX,
                u32::MAX,
                &mut queue,
            )
        };
        self.check("hsa_queue_create", s)?;
        if queue.is_null() {
            return Err(HsaError::Call {
                call: "hsa_queue_create",
                status: "success with a null queue".into(),
            });
        }
        Ok(DispatchQueue {
            rt: self.rt,
            queue: QueuePtr(queue),
            error,
        })
    }

    /// Loads the code object `code` for `agent` into a new frozen executable (the full profile, the default
    /// rounding mode).
    pub fn load(&self, code: &[u8], agent: Handle) -> Result<Executable<'r>, LoadError> {
        let api = &self.rt.api;
        let mut reader = Handle::default();
        // SAFETY: `code` outlives the reader, which `Reader` destroys at the end of this function.
        let s = unsafe {
            (api.hsa_code_object_reader_create_from_memory)(
                code.as_ptr().cast(),
                code.len(),
                &mut reader,
            )
        };
        self.check("hsa_code_object_reader_create_from_memory", s)
            .map_err(LoadError::Refused)?;
        let _reader = Reader {
            rt: self.rt,
            handle: reader,
        };
        let mut handle = Handle::default();
        // SAFETY: no options (NULL); writes the executable's handle.
        let s = unsafe {
            (api.hsa_executable_create_alt)(
                HSA_PROFILE_FULL,
                HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                std::ptr::null(),
                &mut handle,
            )
        };
        self.check("hsa_executable_create_alt", s)
            .map_err(LoadError::Failed)?;
        let exec = Executable {
            rt: self.rt,
            handle,
        };
        let mut loaded_object = Handle::default();
        // SAFETY: live handles made above; no options; writes the loaded object's handle.
        let s = unsafe {
            (api.hsa_executable_load_agent_code_object)(
                exec.handle,
                agent,
                reader,
                std::ptr::null(),
                &mut loaded_object,
            )
        };
        self.check("hsa_executable_load_agent_code_object", s)
            .map_err(LoadError::Refused)?;
        // SAFETY: the live executable made above; no options.
        let s = unsafe { (api.hsa_executable_freeze)(exec.handle, std::ptr::null()) };
        self.check("hsa_executable_freeze", s)
            .map_err(LoadError::Refused)?;
        Ok(exec)
    }

    /// The runtime's version (`HSA_SYSTEM_INFO_VERSION_MAJOR`.`MINOR`: the HSA specification it implements).
    pub fn version(&self) -> Result<(u16, u16), HsaError> {
        let f = self.rt.api.hsa_system_get_info;
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

    /// ROCr's build identifier (`HSA_AMD_SYSTEM_INFO_BUILD_VERSION`), where the runtime gives one (older
    /// ones refuse the attribute).
    pub fn build_version(&self) -> Option<String> {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: the attribute is a `const char*`, written into the pointed-to pointer.
        let s = unsafe {
            (self.rt.api.hsa_system_get_info)(
                HSA_AMD_SYSTEM_INFO_BUILD_VERSION,
                (&mut text as *mut *const c_char).cast(),
            )
        };
        if s != HSA_STATUS_SUCCESS || text.is_null() {
            return None;
        }
        // SAFETY: non-null, a NUL-terminated string the runtime keeps.
        Some(
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .trim()
                .to_string(),
        )
    }

    pub(crate) fn check(&self, call: &'static str, s: Status) -> Result<(), HsaError> {
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
    fn agent_string(&self, a: Handle, attribute: u32) -> Result<String, HsaError> {
        let mut buf = [0u8; 64];
        // SAFETY: these attributes are char[64], written into the 64-byte buffer.
        let s = unsafe { (self.rt.api.hsa_agent_get_info)(a, attribute, buf.as_mut_ptr().cast()) };
        self.check("hsa_agent_get_info", s)?;
        let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).trim().to_string())
    }

    /// Every agent the runtime lists.
    pub fn agents(&self) -> Result<Vec<Agent>, HsaError> {
        let mut found = Found { agents: Vec::new() };
        // SAFETY: the callback only pushes into `found`, which outlives the call.
        let s = unsafe {
            (self.rt.api.hsa_iterate_agents)(collect_agent, (&mut found as *mut Found).cast())
        };
        if s != HSA_STATUS_INFO_BREAK {
            self.check("hsa_iterate_agents", s)?;
        }
        let mut out = Vec::new();
        for a in found.agents {
            let mut device = u32::MAX;
            // SAFETY: HSA_AGENT_INFO_DEVICE is an hsa_device_type_t (32 bits).
            let s = unsafe {
                (self.rt.api.hsa_agent_get_info)(
                    a,
                    HSA_AGENT_INFO_DEVICE,
                    (&mut device as *mut u32).cast(),
                )
            };
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
                handle: a,
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
