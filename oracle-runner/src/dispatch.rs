//! `oracle collect --backend hsa`: one `oracle-v1` job as one AQL kernel dispatch on an RDNA GPU, through ROCr.
//!
//! The path, kept short because it cannot be run on the project's machines (no AMD GPU), and checked end to
//! end against a stand-in runtime in `oracle-runner/tests/dispatch.rs` that implements the same hsa.h
//! contract over the reference model:
//! 1. the job's kernel becomes a code object ([`crate::codeobj`]) for the agent's chip, its descriptor's float
//!    fields from the job's mode; v5 is tried first and v4 where the runtime refuses v5 (ROCr before 5.0
//!    loads v4 only); one executable per kernel and mode, loaded once;
//! 2. every array of the job's memory image (`in` with the rows, `out`, and `scratch` for a template with
//!    buffers, each filled as the kernel says) comes from the CPU agent's fine-grained pool at the alignment
//!    the kernel declares, and the kernarg segment (the kernel's `user_data` list evaluated at those addresses:
//!    the array addresses and, with buffers, the two V#s) from its kernarg pool, all made accessible to the
//!    GPU (`hsa_amd_agents_allow_access`); every array is read back after the dispatch, as the model returns
//!    them;
//! 3. one packet on a single-producer queue: workgroup = grid = the kernel's threads (one workgroup), the
//!    header written last with release order, acquire and release fences of system scope, then the doorbell;
//! 4. the completion signal is waited for in slices until the dispatch timeout; a dispatch that does not finish
//!    is abandoned (its queue, signal and buffers are leaked, since the GPU may still write them; the next
//!    job gets a fresh queue) and reported as a failed dispatch, and a queue error (the runtime's callback)
//!    ends the job the same way.
//!
//! Facts: ROCm/ROCR-Runtime `runtime/hsa-runtime/inc/hsa.h` (packet and queue layouts, header bit positions,
//! enum values) and `hsa_ext_amd.h` (memory pools), commit c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9.

use crate::codeobj::{self, BufferArg, KernelSpec, ValueArg, Version};
use crate::hsa::{
    queue_error_flag, Agent, Handle, HsaError, Queue, QueuePtr, Session, HSA_STATUS_SUCCESS,
};
use measurements::kernel::{Abi, Kernel, UserData};
use measurements::{Backend, BackendError, FloatMode, Job, JobOutput};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const HSA_AMD_AGENT_INFO_UCODE_VERSION: u32 = 0xA108;
const HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT: u32 = 1;
const HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
const HSA_QUEUE_TYPE_SINGLE: u32 = 1;
const HSA_PROFILE_FULL: u32 = 1;
const HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT: u32 = 0;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: u32 = 11;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
const HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
const HSA_SIGNAL_CONDITION_LT: u32 = 2;
const HSA_WAIT_STATE_BLOCKED: u32 = 0;
/// Packet header: type KERNEL_DISPATCH (2) in bits 7:0, the barrier bit 8, acquire fence scope SYSTEM (2) in
/// bits 10:9, release fence scope SYSTEM in bits 12:11.
pub const DISPATCH_HEADER: u16 = 2 | 1 << 8 | 2 << 9 | 2 << 11;
/// Packet setup: one dimension (bits 1:0).
pub const DISPATCH_SETUP: u16 = 1;
/// The SGPRs the metadata declares (gfx10 allocates SGPRs itself; this is LLVM's figure for gfx10 waves).
const SGPRS: u32 = 106;

/// The default time a dispatch may take before it is abandoned.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// An executable loaded for one kernel and mode.
struct Loaded {
    exec: Handle,
    kernel_object: u64,
    group_segment: u32,
    private_segment: u32,
    version: Version,
}

/// The queue and its completion signal, made on first use and after an abandoned dispatch.
struct Lane {
    queue: QueuePtr,
    signal: Handle,
    /// Where the queue's error callback writes a failing status (0 while the queue is healthy); leaked with
    /// the queue, since the runtime may call the callback as long as the queue lives.
    error: &'static AtomicU32,
}

struct State {
    lane: Option<Lane>,
    loaded: HashMap<(String, FloatMode), Loaded>,
}

/// One RDNA GPU agent ready to run `oracle-v1` jobs (a [`Backend`]).
pub struct Device<'a> {
    session: &'a Session<'a>,
    gpu: Agent,
    kernarg_pool: Handle,
    buffer_pool: Handle,
    ticks_per_second: u64,
    queue_size: u32,
    timeout: Duration,
    fingerprint: String,
    state: Mutex<State>,
}

impl std::fmt::Debug for Device<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("gpu", &self.gpu.name)
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

fn call(what: &'static str, status: String) -> BackendError {
    BackendError::Device(HsaError::Call { call: what, status }.to_string())
}

impl<'a> Device<'a> {
    /// Opens `gpu` (one of `session`'s RDNA agents): finds the CPU agent's kernarg and fine-grained pools and
    /// reads what the fingerprint and the waits need.
    pub fn open(
        session: &'a Session<'a>,
        gpu: &Agent,
        timeout: Duration,
    ) -> Result<Device<'a>, HsaError> {
        let agents = session.agents()?;
        let cpu = agents
            .iter()
            .find(|a| !a.gpu)
            .ok_or_else(|| HsaError::Call {
                call: "hsa_iterate_agents",
                status:
                    "the runtime lists no CPU agent, whose memory pools hold the kernel arguments"
                        .into(),
            })?;
        let pools = session.memory_pools(cpu.handle)?;
        let (mut kernarg_pool, mut buffer_pool) = (None, None);
        for &p in &pools {
            // Only pools of the global segment that the runtime may allocate from.
            let Some(flags) = session.global_pool_flags(p) else {
                continue;
            };
            if flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT != 0 && kernarg_pool.is_none() {
                kernarg_pool = Some(p);
            }
            // Buffers prefer a fine-grained pool that is not the kernarg one (ROCr lists both on the CPU agent).
            if flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED != 0
                && (buffer_pool.is_none()
                    || flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT == 0
                        && buffer_pool == kernarg_pool)
            {
                buffer_pool = Some(p);
            }
        }
        let missing = |what: &str| HsaError::Call {
            call: "hsa_amd_agent_iterate_memory_pools",
            status: format!("the CPU agent `{}` has no {what} memory pool", cpu.name),
        };
        let kernarg_pool = kernarg_pool.ok_or_else(|| missing("kernarg"))?;
        let buffer_pool = buffer_pool.ok_or_else(|| missing("fine-grained"))?;
        let ticks_per_second = session.timestamp_frequency()?;
        let queue_size = session.queue_min_size(gpu.handle)?;
        let fingerprint = fingerprint(session, gpu);
        Ok(Device {
            session,
            gpu: gpu.clone(),
            kernarg_pool,
            buffer_pool,
            ticks_per_second: ticks_per_second.max(1),
            queue_size: queue_size.max(1).next_power_of_two(),
            timeout,
            fingerprint,
            state: Mutex::new(State {
                lane: None,
                loaded: HashMap::new(),
            }),
        })
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.gpu
    }

    /// Who measured: the agent's product and ISA names, the runtime's HSA version and build, the kernel
    /// driver and the GPU's microcode (what a row's `source` says beside the command).
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn allocate(&self, pool: Handle, bytes: usize, what: &str) -> Result<*mut u32, BackendError> {
        let api = self.session.runtime().api();
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: allocates `bytes` from a pool of this runtime; the pointer is written into `p`.
        let s = unsafe { (api.hsa_amd_memory_pool_allocate)(pool, bytes, 0, &mut p) };
        if s != HSA_STATUS_SUCCESS || p.is_null() {
            return Err(call(
                "hsa_amd_memory_pool_allocate",
                format!(
                    "{what} ({bytes} bytes): {}",
                    self.session.runtime().status_text(s)
                ),
            ));
        }
        // SAFETY: one agent handle, no flags (NULL), a pointer the runtime just allocated.
        let s =
            unsafe { (api.hsa_amd_agents_allow_access)(1, &self.gpu.handle, std::ptr::null(), p) };
        if s != HSA_STATUS_SUCCESS {
            // SAFETY: frees what was allocated above, never used.
            unsafe { (api.hsa_amd_memory_pool_free)(p) };
            return Err(call(
                "hsa_amd_agents_allow_access",
                self.session.runtime().status_text(s),
            ));
        }
        if p as usize % 16 != 0 {
            return Err(call(
                "hsa_amd_memory_pool_allocate",
                format!("{what}: {p:p} is not 16-byte aligned"),
            ));
        }
        Ok(p.cast())
    }

    fn free(&self, p: *mut u32) {
        // SAFETY: `p` came from hsa_amd_memory_pool_allocate and no dispatch uses it any more.
        unsafe { (self.session.runtime().api().hsa_amd_memory_pool_free)(p.cast()) };
    }

    /// Loads the code object of `spec` (v5, else v4) and finds its kernel.
    fn load(&self, spec: &KernelSpec) -> Result<Loaded, BackendError> {
        let api = self.session.runtime().api();
        let rt = self.session.runtime();
        let gpu = codeobj::gpu(&self.gpu.name).map_err(BackendError::InvalidJob)?;
        let mut refused = Vec::new();
        for version in [Version::V5, Version::V4] {
            let bytes = codeobj::write(spec, gpu, version).map_err(BackendError::InvalidJob)?;
            let mut reader = Handle::default();
            // SAFETY: `bytes` outlives the reader, which is destroyed below.
            let s = unsafe {
                (api.hsa_code_object_reader_create_from_memory)(
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    &mut reader,
                )
            };
            if s != HSA_STATUS_SUCCESS {
                refused.push(format!(
                    "v{}: hsa_code_object_reader_create_from_memory: {}",
                    version.number(),
                    rt.status_text(s)
                ));
                continue;
            }
            let mut exec = Handle::default();
            // SAFETY: no options (NULL); writes the executable's handle.
            let s = unsafe {
                (api.hsa_executable_create_alt)(
                    HSA_PROFILE_FULL,
                    HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                    std::ptr::null(),
                    &mut exec,
                )
            };
            if s != HSA_STATUS_SUCCESS {
                // SAFETY: the reader made above.
                unsafe { (api.hsa_code_object_reader_destroy)(reader) };
                return Err(call("hsa_executable_create_alt", rt.status_text(s)));
            }
            let mut loaded_object = Handle::default();
            // SAFETY: handles made above; no options.
            let mut s = unsafe {
                (api.hsa_executable_load_agent_code_object)(
                    exec,
                    self.gpu.handle,
                    reader,
                    std::ptr::null(),
                    &mut loaded_object,
                )
            };
            let mut step = "hsa_executable_load_agent_code_object";
            if s == HSA_STATUS_SUCCESS {
                // SAFETY: the executable made above; no options.
                s = unsafe { (api.hsa_executable_freeze)(exec, std::ptr::null()) };
                step = "hsa_executable_freeze";
            }
            // SAFETY: the executable keeps what it loaded; the reader is no longer needed.
            unsafe { (api.hsa_code_object_reader_destroy)(reader) };
            if s != HSA_STATUS_SUCCESS {
                // SAFETY: the executable made above, not frozen into any dispatch.
                unsafe { (api.hsa_executable_destroy)(exec) };
                refused.push(format!(
                    "v{}: {step}: {}",
                    version.number(),
                    rt.status_text(s)
                ));
                continue;
            }
            let name = std::ffi::CString::new(format!("{}.kd", spec.name))
                .map_err(|_| BackendError::InvalidJob("a kernel name with NUL".into()))?;
            let mut symbol = Handle::default();
            // SAFETY: a NUL-terminated name and this agent's handle.
            let s = unsafe {
                (api.hsa_executable_get_symbol_by_name)(
                    exec,
                    name.as_ptr(),
                    &self.gpu.handle,
                    &mut symbol,
                )
            };
            if s != HSA_STATUS_SUCCESS {
                // SAFETY: as above.
                unsafe { (api.hsa_executable_destroy)(exec) };
                return Err(call("hsa_executable_get_symbol_by_name", rt.status_text(s)));
            }
            let (mut kernel_object, mut kernarg, mut group, mut private) = (0u64, 0u32, 0u32, 0u32);
            // SAFETY: KERNEL_OBJECT is a uint64_t, the three segment sizes uint32_t.
            let ok = unsafe {
                (api.hsa_executable_symbol_get_info)(
                    symbol,
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                    (&mut kernel_object as *mut u64).cast(),
                ) == HSA_STATUS_SUCCESS
                    && (api.hsa_executable_symbol_get_info)(
                        symbol,
                        HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                        (&mut kernarg as *mut u32).cast(),
                    ) == HSA_STATUS_SUCCESS
                    && (api.hsa_executable_symbol_get_info)(
                        symbol,
                        HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                        (&mut group as *mut u32).cast(),
                    ) == HSA_STATUS_SUCCESS
                    && (api.hsa_executable_symbol_get_info)(
                        symbol,
                        HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                        (&mut private as *mut u32).cast(),
                    ) == HSA_STATUS_SUCCESS
            };
            if !ok || kernel_object == 0 || kernarg < spec.kernarg_size {
                // SAFETY: as above.
                unsafe { (api.hsa_executable_destroy)(exec) };
                return Err(call(
                    "hsa_executable_symbol_get_info",
                    format!("kernel `{}`: object {kernel_object:#x}, kernarg segment {kernarg} bytes (want an object and {} bytes)", spec.name, spec.kernarg_size),
                ));
            }
            return Ok(Loaded {
                exec,
                kernel_object,
                group_segment: group,
                private_segment: private,
                version,
            });
        }
        Err(BackendError::Device(format!(
            "the runtime loads no code object this writer makes for {}: {}",
            self.gpu.name,
            refused.join("; ")
        )))
    }

    /// The queue, made now if there is none.
    fn lane<'s>(&self, state: &'s mut State) -> Result<&'s Lane, BackendError> {
        if state.lane.is_none() {
            let api = self.session.runtime().api();
            let rt = self.session.runtime();
            let error: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
            let mut queue: *mut Queue = std::ptr::null_mut();
            // SAFETY: the callback reads `data` as the leaked AtomicU32, which lives for the process; no private
            // or group segment limits (u32::MAX: the runtime's defaults).
            let s = unsafe {
                (api.hsa_queue_create)(
                    self.gpu.handle,
                    self.queue_size,
                    HSA_QUEUE_TYPE_SINGLE,
                    Some(queue_error_flag),
                    (error as *const AtomicU32).cast_mut().cast(),
                    u32::MAX,
                    u32::MAX,
                    &mut queue,
                )
            };
            if s != HSA_STATUS_SUCCESS || queue.is_null() {
                return Err(call("hsa_queue_create", rt.status_text(s)));
            }
            let mut signal = Handle::default();
            // SAFETY: initial value 1, any consumer (0, NULL).
            let s = unsafe { (api.hsa_signal_create)(1, 0, std::ptr::null(), &mut signal) };
            if s != HSA_STATUS_SUCCESS {
                // SAFETY: the queue made above, with nothing submitted.
                unsafe { (api.hsa_queue_destroy)(queue) };
                return Err(call("hsa_signal_create", rt.status_text(s)));
            }
            state.lane = Some(Lane {
                queue: QueuePtr(queue),
                signal,
                error,
            });
        }
        Ok(state.lane.as_ref().expect("made above"))
    }

    fn spec(&self, job: &Job) -> Result<KernelSpec, BackendError> {
        let k = &job.kernel;
        if k.abi != Abi::OracleV1 {
            return Err(BackendError::Unsupported {
                instruction: format!("kernel `{}` (ABI {})", k.name, k.abi.name()),
                reason: "the hsa backend runs oracle-v1 kernels only".into(),
            });
        }
        if job.addresses.is_some() {
            return Err(BackendError::Unsupported {
                instruction: format!("kernel `{}` at fixed guest addresses", k.name),
                reason: "the hsa backend takes its arrays from ROCr's pools and cannot map them at the guest's \
                         addresses"
                    .into(),
            });
        }
        if k.grid != [1, 1, 1] || k.threads == 0 || k.threads > 1024 {
            return Err(BackendError::InvalidJob(format!(
                "kernel `{}`: an oracle-v1 dispatch is one workgroup of 1 to 1024 threads (grid {:?}, {} threads)",
                k.name, k.grid, k.threads
            )));
        }
        if job.target != self.gpu.name {
            return Err(BackendError::InvalidJob(format!(
                "the job is for {} and this GPU is {}",
                job.target, self.gpu.name
            )));
        }
        let (args, values) = kernarg_args(k).map_err(BackendError::InvalidJob)?;
        Ok(KernelSpec {
            name: k.name.clone(),
            code: k.words(),
            wave: k.wave,
            vgprs: 256,
            sgprs: SGPRS,
            mode: job.mode,
            kernarg_ptr: true,
            workgroup_id: [false; 3],
            workitem_ids: 0,
            lds_bytes: k.lds_bytes,
            kernarg_size: 4 * k.user_data.len() as u32,
            args,
            values,
            max_workgroup_size: k.threads,
        })
    }
}

/// The kernel arguments of an `oracle-v1` kernel's segment, from its `user_data` list (each item one dword):
/// an array's `lo` and `hi` in a row are a global-buffer pointer, an array's `lo` followed by its `hi16` and two
/// more dwords a V# (16 bytes by value), any other item a 4-byte value. The plain layout is two pointers (`in`,
/// `out`); the layout with buffers adds the `scratch` pointer and two V#s.
fn kernarg_args(k: &Kernel) -> Result<(Vec<BufferArg>, Vec<ValueArg>), String> {
    let items = k.user_data()?;
    let (mut args, mut values) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < items.len() {
        let offset = 4 * i as u32;
        match (&items[i], items.get(i + 1)) {
            (UserData::Lo(a), Some(UserData::Hi(b))) if a == b => {
                args.push(BufferArg { offset });
                i += 2;
            }
            (UserData::Lo(a), Some(UserData::Hi16 { array, .. }))
                if a == array && i + 4 <= items.len() =>
            {
                values.push(ValueArg { offset, size: 16 });
                i += 4;
            }
            _ => {
                values.push(ValueArg { offset, size: 4 });
                i += 1;
            }
        }
    }
    if args.is_empty() && values.is_empty() {
        return Err(format!("kernel `{}` has no kernel arguments", k.name));
    }
    Ok((args, values))
}

/// The buffers of one dispatch, freed when dropped unless the dispatch was abandoned (the GPU may still write
/// them).
struct Buffers<'d, 'a> {
    device: &'d Device<'a>,
    /// What the runtime allocated, to free.
    raw: Vec<*mut u32>,
}

impl Buffers<'_, '_> {
    /// Allocates `bytes` from `pool` aligned to `align` (a power of two): the allocation is `align` bytes
    /// larger and the address rounded up, so the GPU sees each array at the alignment its kernel declares,
    /// as the model places it, whatever the pool's own granule.
    fn take(
        &mut self,
        pool: Handle,
        bytes: usize,
        align: usize,
        what: &str,
    ) -> Result<*mut u32, BackendError> {
        let p = self.device.allocate(pool, bytes.max(4) + align, what)?;
        self.raw.push(p);
        // `skip` < `align`: the aligned array lies within the allocation.
        let skip = (p as usize).next_multiple_of(align) - p as usize;
        Ok(p.cast::<u8>().wrapping_add(skip).cast())
    }

    /// Keeps the buffers: the abandoned dispatch's GPU may still write them.
    fn leak(mut self) {
        self.raw.clear();
    }
}

impl Drop for Buffers<'_, '_> {
    fn drop(&mut self) {
        for &p in &self.raw {
            self.device.free(p);
        }
    }
}

impl Drop for Device<'_> {
    fn drop(&mut self) {
        let api = self.session.runtime().api();
        let state = self
            .state
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(lane) = state.lane.take() {
            // SAFETY: every dispatch on this queue finished (an abandoned one took its queue with it).
            unsafe {
                (api.hsa_signal_destroy)(lane.signal);
                (api.hsa_queue_destroy)(lane.queue.0);
            }
        }
        for (_, l) in state.loaded.drain() {
            // SAFETY: no dispatch of these executables is in flight.
            unsafe { (api.hsa_executable_destroy)(l.exec) };
        }
    }
}

/// The fingerprint text of `gpu` (see [`Device::fingerprint`]).
fn fingerprint(session: &Session, gpu: &Agent) -> String {
    let api = session.runtime().api();
    let hsa = session
        .version()
        .map_or_else(|_| "?".into(), |(a, b)| format!("{a}.{b}"));
    let build = session
        .build_version()
        .unwrap_or_else(|| "build not reported".into());
    let mut ucode = 0u32;
    // SAFETY: UCODE_VERSION is a uint32_t.
    let s = unsafe {
        (api.hsa_agent_get_info)(
            gpu.handle,
            HSA_AMD_AGENT_INFO_UCODE_VERSION,
            (&mut ucode as *mut u32).cast(),
        )
    };
    let ucode = if s == HSA_STATUS_SUCCESS {
        format!("microcode {ucode}")
    } else {
        "microcode not reported".into()
    };
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let driver = match (
        read("/sys/module/amdgpu/version"),
        read("/proc/sys/kernel/osrelease"),
    ) {
        (Some(v), _) => format!("amdgpu {v}"),
        (None, Some(k)) => format!("amdgpu of Linux {k}"),
        (None, None) => "driver not reported".into(),
    };
    let product = if gpu.product.is_empty() {
        "GPU".to_string()
    } else {
        gpu.product.clone()
    };
    format!(
        "{product} ({}), HSA {hsa}, ROCr {build}, {driver}, {ucode}",
        gpu.name
    )
}

impl Backend for Device<'_> {
    fn name(&self) -> String {
        format!("hsa:{}", self.gpu.name)
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let spec = self.spec(job)?;
        let threads = spec.max_workgroup_size as usize;
        let api = self.session.runtime().api();
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (job.kernel.content_hash(), job.mode);
        if !state.loaded.contains_key(&key) {
            let l = self.load(&spec)?;
            state.loaded.insert(key.clone(), l);
        }
        let (kernel_object, group, private) = {
            let l = &state.loaded[&key];
            (
                l.kernel_object,
                l.group_segment.max(spec.lds_bytes),
                l.private_segment,
            )
        };
        // Every array of the job's memory image (filled, the rows placed) and the kernarg segment its user-data
        // list makes of their addresses: the same image and segment the model builds.
        let images = job.memory_image()?;
        let mut buffers = Buffers {
            device: self,
            raw: Vec::new(),
        };
        let mut placed = Vec::with_capacity(images.len());
        for a in &images {
            let p = buffers.take(
                self.buffer_pool,
                4 * a.dwords.len(),
                a.align as usize,
                &format!("the `{}` array", a.name),
            )?;
            // SAFETY: `p` holds the array's dwords (allocated above, 4-aligned), unused by any dispatch yet.
            unsafe { std::ptr::copy_nonoverlapping(a.dwords.as_ptr(), p, a.dwords.len()) };
            placed.push(p);
        }
        let addresses: Vec<u64> = placed.iter().map(|&p| p as u64).collect();
        let args = job
            .user_data(&addresses)
            .map_err(BackendError::InvalidJob)?;
        let kernarg = buffers.take(
            self.kernarg_pool,
            4 * args.len(),
            16,
            "the kernel arguments",
        )?;
        // SAFETY: `kernarg` holds `args.len()` dwords, just allocated.
        unsafe { std::ptr::copy_nonoverlapping(args.as_ptr(), kernarg, args.len()) };
        let timeout = self.timeout;
        let ticks = self.ticks_per_second;
        let lane = self.lane(&mut state)?;
        let (queue, signal, error) = (lane.queue.0, lane.signal, lane.error);
        // SAFETY: `queue` is a live queue of this runtime, used by this thread alone (under the state lock).
        let q = unsafe { &*queue };
        // SAFETY: the completion signal belongs to this queue's lane; nothing waits on it now.
        unsafe { (api.hsa_signal_store_screlease)(signal, 1) };
        // SAFETY: reserves one packet slot of this single-producer queue.
        let index = unsafe { (api.hsa_queue_add_write_index_screlease)(queue, 1) };
        let slot = (index % u64::from(q.size)) as usize;
        // SAFETY: the ring holds `size` 64-byte packets; this slot is ours since its index was reserved and the
        // queue runs one packet at a time (the previous one finished or its queue was abandoned).
        let packet = unsafe { q.base_address.cast::<u8>().add(slot * 64) };
        let mut body = [0u8; 64];
        body[4..6].copy_from_slice(&(threads as u16).to_le_bytes());
        body[6..8].copy_from_slice(&1u16.to_le_bytes());
        body[8..10].copy_from_slice(&1u16.to_le_bytes());
        body[12..16].copy_from_slice(&(threads as u32).to_le_bytes());
        body[16..20].copy_from_slice(&1u32.to_le_bytes());
        body[20..24].copy_from_slice(&1u32.to_le_bytes());
        body[24..28].copy_from_slice(&private.to_le_bytes());
        body[28..32].copy_from_slice(&group.to_le_bytes());
        body[32..40].copy_from_slice(&kernel_object.to_le_bytes());
        body[40..48].copy_from_slice(&(kernarg as u64).to_le_bytes());
        body[56..64].copy_from_slice(&signal.handle.to_le_bytes());
        // SAFETY: bytes 4..64 of our slot; the header dword (0..4) follows with release order, so the packet
        // processor sees a whole packet once it sees a valid header. The slot is 64-byte aligned.
        unsafe {
            std::ptr::copy_nonoverlapping(body.as_ptr().add(4), packet.add(4), 60);
            AtomicU32::from_ptr(packet.cast::<u32>()).store(
                u32::from(DISPATCH_HEADER) | u32::from(DISPATCH_SETUP) << 16,
                Ordering::Release,
            );
            (api.hsa_signal_store_screlease)(q.doorbell_signal, index as i64);
        }
        let start = Instant::now();
        let outcome = loop {
            let status = error.load(Ordering::Acquire);
            if status != 0 {
                break Err(format!(
                    "the queue reported an error: {}",
                    self.session.runtime().status_text(status)
                ));
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                break Err(format!(
                    "the dispatch did not finish within {:.1} s: abandoned (its queue and buffers are left to the \
                     process; the next dispatch gets a new queue)",
                    timeout.as_secs_f64()
                ));
            }
            let slice = left.min(Duration::from_millis(100));
            let hint = (slice.as_secs_f64() * ticks as f64) as u64;
            // SAFETY: waits on this lane's signal, at most about `slice`.
            let v = unsafe {
                (api.hsa_signal_wait_scacquire)(
                    signal,
                    HSA_SIGNAL_CONDITION_LT,
                    1,
                    hint.max(1),
                    HSA_WAIT_STATE_BLOCKED,
                )
            };
            if v < 1 {
                break Ok(());
            }
        };
        if let Err(why) = outcome {
            // Abandoned: the GPU may still write these, so nothing is freed or reused.
            buffers.leak();
            state.lane = None;
            return Err(BackendError::Device(format!(
                "{} on {}: {why}",
                job.kernel.name, self.gpu.name
            )));
        }
        // Every array comes back, as from the model: each row reads its own placement.
        let arrays = images
            .iter()
            .zip(&placed)
            .map(|(a, &p)| {
                let mut d = vec![0u32; a.dwords.len()];
                // SAFETY: the dispatch finished (signal acquired), so the array's dwords at `p` are final.
                unsafe { std::ptr::copy_nonoverlapping(p, d.as_mut_ptr(), d.len()) };
                (a.name.clone(), d)
            })
            .collect();
        drop(buffers);
        Ok(job.output_from(arrays))
    }
}

/// The code object version an executable of `device` for `job` was loaded as, once it has run (for reports).
pub fn loaded_version(device: &Device, job: &Job) -> Option<Version> {
    let state = device
        .state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    state
        .loaded
        .get(&(job.kernel.content_hash(), job.mode))
        .map(|l| l.version)
}
