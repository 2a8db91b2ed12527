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
    Agent, DispatchQueue, Executable, Handle, HsaError, LoadError, PoolMemory, Session, Signal,
};
use measurements::kernel::{Abi, Kernel, UserData};
use measurements::{Backend, BackendError, FloatMode, Job, JobOutput};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT: u32 = 1;
const HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
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
struct Loaded<'a> {
    /// Kept for its kernel while the device lives.
    _exec: Executable<'a>,
    kernel_object: u64,
    group_segment: u32,
    private_segment: u32,
    version: Version,
}

/// The queue and its completion signal, made on first use and after an abandoned dispatch (which leaks both).
struct Lane<'a> {
    /// Dropped first: a signal no queue will complete.
    signal: Signal<'a>,
    queue: DispatchQueue<'a>,
}

struct State<'a> {
    lane: Option<Lane<'a>>,
    loaded: HashMap<(String, FloatMode), Loaded<'a>>,
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
    state: Mutex<State<'a>>,
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

    /// Opens an RDNA agent of `rt` for the rest of the process (what `conformance --backend hsa` keeps): the
    /// runtime and its session are leaked, never shut down, so the device may be boxed as any backend.
    /// `selector` picks the agent whose ISA or product name contains it (case-insensitive); `None` the first.
    pub fn open_for_process(
        rt: crate::hsa::Runtime,
        selector: Option<&str>,
        timeout: Duration,
    ) -> Result<Device<'static>, HsaError> {
        let rt: &'static crate::hsa::Runtime = Box::leak(Box::new(rt));
        let session = rt.init()?;
        let agents = session.rdna_agents()?;
        let agent = match selector {
            None => agents[0].clone(),
            Some(want) => {
                let want = want.to_ascii_lowercase();
                agents
                    .iter()
                    .find(|a| {
                        a.name.to_ascii_lowercase().contains(&want)
                            || a.product.to_ascii_lowercase().contains(&want)
                    })
                    .cloned()
                    .ok_or_else(|| HsaError::NoSuchAgent {
                        want: want.clone(),
                        agents: agents
                            .iter()
                            .map(|a| format!("{} ({})", a.name, a.product))
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?
            }
        };
        // Leaked only once an agent is chosen: a failed open shuts the runtime down again.
        let session: &'static Session<'static> = Box::leak(Box::new(session));
        Device::open(session, &agent, timeout)
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

    /// Loads the code object of `spec` (v5, else v4) and finds its kernel.
    fn load(&self, spec: &KernelSpec) -> Result<Loaded<'a>, BackendError> {
        let gpu = codeobj::gpu(&self.gpu.name).map_err(BackendError::InvalidJob)?;
        let mut refused = Vec::new();
        for version in [Version::V5, Version::V4] {
            let bytes = codeobj::write(spec, gpu, version).map_err(BackendError::InvalidJob)?;
            let exec = match self.session.load(&bytes, self.gpu.handle) {
                Ok(e) => e,
                Err(LoadError::Refused(e)) => {
                    refused.push(format!("v{}: {e}", version.number()));
                    continue;
                }
                Err(LoadError::Failed(e)) => return Err(BackendError::Device(e.to_string())),
            };
            let k = exec
                .kernel(&format!("{}.kd", spec.name), self.gpu.handle)
                .map_err(|e| BackendError::Device(e.to_string()))?;
            if k.kernel_object == 0 || k.kernarg_size < spec.kernarg_size {
                return Err(call(
                    "hsa_executable_symbol_get_info",
                    format!(
                        "kernel `{}`: object {:#x}, kernarg segment {} bytes (want an object and {} bytes)",
                        spec.name, k.kernel_object, k.kernarg_size, spec.kernarg_size
                    ),
                ));
            }
            return Ok(Loaded {
                _exec: exec,
                kernel_object: k.kernel_object,
                group_segment: k.group_segment_size,
                private_segment: k.private_segment_size,
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
    fn lane<'s>(&self, state: &'s mut State<'a>) -> Result<&'s Lane<'a>, BackendError> {
        if state.lane.is_none() {
            let device = |e: HsaError| BackendError::Device(e.to_string());
            let queue = self
                .session
                .queue(self.gpu.handle, self.queue_size)
                .map_err(device)?;
            let signal = self.session.signal(1).map_err(device)?;
            state.lane = Some(Lane { signal, queue });
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
            // Rows of another chip (or of a family name such as `rdna2`) are that chip's measurements: a GPU
            // reproduces its own.
            return Err(BackendError::Unsupported {
                instruction: format!("kernel `{}` for {}", k.name, job.target),
                reason: format!(
                    "this GPU is {}; the hsa backend runs the rows of its own target only",
                    self.gpu.name
                ),
            });
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

/// One array of a dispatch (or its kernel arguments) in pool memory, at the alignment its kernel declares:
/// the allocation is `align` bytes larger and the address rounded up, so the GPU sees the array where the
/// model places it whatever the pool's own granule. Freed when dropped, unless the dispatch was abandoned.
struct Placed<'a> {
    memory: PoolMemory<'a>,
    /// Bytes from the allocation's start to the aligned array (less than the alignment).
    skip: usize,
}

impl Placed<'_> {
    fn address(&self) -> u64 {
        self.memory.address() + self.skip as u64
    }
}

impl<'a> Device<'a> {
    /// `bytes` from `pool` at an `align`-byte boundary (a power of two), accessible to the GPU.
    fn place(
        &self,
        pool: Handle,
        bytes: usize,
        align: usize,
        what: &str,
    ) -> Result<Placed<'a>, BackendError> {
        let memory = self
            .session
            .allocate(pool, bytes.max(4) + align, self.gpu.handle)
            .map_err(|e| BackendError::Device(format!("{what} ({bytes} bytes): {e}")))?;
        let skip = (memory.address() as usize).next_multiple_of(align) - memory.address() as usize;
        Ok(Placed { memory, skip })
    }
}

/// The fingerprint text of `gpu` (see [`Device::fingerprint`]).
fn fingerprint(session: &Session, gpu: &Agent) -> String {
    let hsa = session
        .version()
        .map_or_else(|_| "?".into(), |(a, b)| format!("{a}.{b}"));
    let build = session
        .build_version()
        .unwrap_or_else(|| "build not reported".into());
    let ucode = session.ucode_version(gpu.handle).map_or_else(
        || "microcode not reported".into(),
        |v| format!("microcode {v}"),
    );
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
        let mut placed = Vec::with_capacity(images.len() + 1);
        for a in &images {
            let p = self.place(
                self.buffer_pool,
                4 * a.dwords.len(),
                a.align as usize,
                &format!("the `{}` array", a.name),
            )?;
            p.memory.write(p.skip, &a.dwords);
            placed.push(p);
        }
        let addresses: Vec<u64> = placed.iter().map(Placed::address).collect();
        let args = job
            .user_data(&addresses)
            .map_err(BackendError::InvalidJob)?;
        let kernarg = self.place(
            self.kernarg_pool,
            4 * args.len(),
            16,
            "the kernel arguments",
        )?;
        kernarg.memory.write(kernarg.skip, &args);
        let mut packet = [0u8; 64];
        packet[4..6].copy_from_slice(&(threads as u16).to_le_bytes());
        packet[6..8].copy_from_slice(&1u16.to_le_bytes());
        packet[8..10].copy_from_slice(&1u16.to_le_bytes());
        packet[12..16].copy_from_slice(&(threads as u32).to_le_bytes());
        packet[16..20].copy_from_slice(&1u32.to_le_bytes());
        packet[20..24].copy_from_slice(&1u32.to_le_bytes());
        packet[24..28].copy_from_slice(&private.to_le_bytes());
        packet[28..32].copy_from_slice(&group.to_le_bytes());
        packet[32..40].copy_from_slice(&kernel_object.to_le_bytes());
        packet[40..48].copy_from_slice(&kernarg.address().to_le_bytes());
        placed.push(kernarg);
        let timeout = self.timeout;
        let ticks = self.ticks_per_second;
        let lane = self.lane(&mut state)?;
        packet[56..64].copy_from_slice(&lane.signal.handle().handle.to_le_bytes());
        lane.signal.store(1);
        let start = Instant::now();
        let outcome = match lane.queue.submit(
            u32::from(DISPATCH_HEADER) | u32::from(DISPATCH_SETUP) << 16,
            &packet,
        ) {
            Err(e) => Err(e.to_string()),
            Ok(_) => loop {
                if let Some(status) = lane.queue.error() {
                    break Err(format!(
                        "the queue reported an error: {}",
                        self.session.runtime().status_text(status)
                    ));
                }
                let left = timeout.saturating_sub(start.elapsed());
                if left.is_zero() {
                    break Err(format!(
                        "the dispatch did not finish within {:.1} s: abandoned (its queue and buffers are left to \
                         the process; the next dispatch gets a new queue)",
                        timeout.as_secs_f64()
                    ));
                }
                let slice = left.min(Duration::from_millis(100));
                let hint = (slice.as_secs_f64() * ticks as f64) as u64;
                if lane.signal.wait_below(1, hint.max(1)) < 1 {
                    break Ok(());
                }
            },
        };
        if let Err(why) = outcome {
            // Abandoned: the GPU may still write these, so nothing is freed or reused.
            placed.into_iter().for_each(|p| p.memory.leak());
            if let Some(lane) = state.lane.take() {
                lane.signal.leak();
                lane.queue.abandon();
            }
            return Err(BackendError::Device(format!(
                "{} on {}: {why}",
                job.kernel.name, self.gpu.name
            )));
        }
        // Every array comes back, as from the model: each row reads its own placement.
        let arrays = images
            .iter()
            .zip(&placed)
            .map(|(a, p)| {
                let mut d = vec![0u32; a.dwords.len()];
                p.memory.read(p.skip, &mut d);
                (a.name.clone(), d)
            })
            .collect();
        drop(placed);
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
