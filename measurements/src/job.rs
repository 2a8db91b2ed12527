//! The one abstraction every tool shares (DESIGN.md): a job is one dispatch of one kernel in one float mode over
//! a memory image; a backend runs it and returns what the dispatch left in its arrays, from which every row reads
//! its lane's output dwords at its own placement ([`JobOutput::value`]), or a typed error.
//!
//! # Launch limits
//!
//! A kernel file accepts user data up to what a gfx10 wave can address ([`crate::kernel::MAX_SGPRS`]); how many
//! user SGPRs a launch can set is the backend's limit, and a job past it is [`BackendError::Unsupported`] with
//! the reason (counted as unsupported, never a failed import):
//!
//! | backend | user SGPRs it loads (`agc-buffer-v1`) |
//! |---|---|
//! | `model` (reference-model) | 16, as the hardware: gfx10 compute has 16 `COMPUTE_USER_DATA` registers |
//! | `hsa` (real AMD GPU, not built yet) | 16, the same registers set by the command processor |
//! | `vulkan` (recompiler + driver) | 16, read from the launch-info buffer; a job with more is refused as unsupported |
//!
//! Workgroups run in the model's order (x fastest, then y, z), one after another. A job built in code may
//! declare them independent ([`Job::independent_groups`]: no workgroup touches memory another writes, as the
//! differential fuzzer's kernels are built); a backend may then run them concurrently, and must still report
//! what the model's order would (the first workgroup's fault, say).
//!
//! `oracle-v1` kernels get their user data through the kernel argument segment, whose address is the only
//! thing in SGPRs (`s[0:1]`), so the user-SGPR limit does not apply to them.
//!
//! Launch sizes and memory are bounded for every backend at validation, before any job exists: at most
//! [`crate::limits::MAX_LANES`] lanes and [`crate::limits::MAX_WORKGROUPS`] workgroups per dispatch, at most
//! [`crate::limits::MAX_ARRAYS`] arrays of [`crate::limits::MAX_ARRAY_BYTES`] each and
//! [`crate::limits::MAX_JOB_BYTES`] in all. [`Job::memory_image`] holds a job built in code to the same limits
//! and allocates with `try_reserve`, so a host short of memory gets [`BackendError::OutOfMemory`], not an abort.

use crate::kernel::{Abi, Kernel};
use crate::mode::FloatMode;
use crate::row::Placement;
use crate::store::Suite;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// One dispatch to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The suite the kernel belongs to (for messages).
    pub suite: String,
    /// The kernel: words, ABI, launch shape, memory layout. What is compared is each row's placement.
    pub kernel: Arc<Kernel>,
    /// The target whose behaviour the job reproduces (`rdna2`, `gfx1036`, `gfx1013`, ...): a backend that
    /// models several chips picks the instruction set by it.
    pub target: String,
    /// The float mode the dispatch runs in.
    pub mode: FloatMode,
    /// The dispatch hash shared by the rows this job reproduces.
    pub dispatch: String,
    /// Inputs of the lanes that have rows, ascending by lane; other lanes see only the arrays' fill.
    pub lanes: Vec<(u32, Vec<u32>)>,
    /// The job's author asserts that no workgroup reads or writes guest memory that another workgroup
    /// writes (the differential fuzzer's kernels, by construction): a backend may then run the workgroups
    /// concurrently, with the result of the model's one-after-another order. Jobs built from measured rows
    /// never set it.
    pub independent_groups: bool,
    /// Guest addresses the arrays must be mapped at, parallel to the kernel's memory list; `None` lets the
    /// backend place them (the model's placement, which every backend shares). Jobs built from measured rows
    /// leave it `None`. A job rebuilt from a command buffer by the PM4 command processor (`driver::pm4`) sets
    /// it: its user SGPRs and memory hold the guest's own addresses, so the arrays must be where the guest
    /// put them. A backend refuses addresses it cannot map (overlapping arrays, a list of the wrong length)
    /// as [`BackendError::InvalidJob`].
    pub addresses: Option<Vec<u64>>,
}

/// One array of a job's memory image with its initial contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayImage {
    /// Name (as the kernel's memory list and user data say).
    pub name: String,
    /// Required address alignment in bytes.
    pub align: u32,
    /// Initial contents.
    pub dwords: Vec<u32>,
}

impl Job {
    /// The initial memory image: every array of the kernel, filled and initialised, rows placed.
    ///
    /// A kernel past the memory limits ([`crate::limits::MAX_ARRAYS`], [`crate::limits::MAX_ARRAY_BYTES`],
    /// [`crate::limits::MAX_JOB_BYTES`]) is [`BackendError::InvalidJob`]: validation refuses such kernels, and a
    /// job built in code is held to the same limits here. Memory the host cannot give is
    /// [`BackendError::OutOfMemory`], not an abort.
    pub fn memory_image(&self) -> Result<Vec<ArrayImage>, BackendError> {
        let k = &self.kernel;
        let total: u64 = k.memory.iter().map(|a| a.bytes as u64).sum();
        if k.memory.len() > crate::limits::MAX_ARRAYS
            || k.memory
                .iter()
                .any(|a| a.bytes > crate::limits::MAX_ARRAY_BYTES)
            || total > crate::limits::MAX_JOB_BYTES
        {
            return Err(BackendError::InvalidJob(format!(
                "kernel `{}` maps {} arrays of {total} bytes in all, past the limits of one job (measurements \
                 crate docs, `limits`)",
                k.name,
                k.memory.len()
            )));
        }
        let mut images = Vec::new();
        images
            .try_reserve_exact(k.memory.len())
            .map_err(|_| out_of_memory("the memory image's array list", 0))?;
        for a in &k.memory {
            let len = a.bytes as usize / 4;
            let mut dwords = Vec::new();
            dwords
                .try_reserve_exact(len)
                .map_err(|_| out_of_memory(&format!("array `{}`", a.name), a.bytes as u64))?;
            dwords.resize(len, a.fill.0);
            for init in &a.init {
                let base = init.dword_offset as usize;
                if init.rows {
                    for (lane, inputs) in &self.lanes {
                        // Kernel validation bounds `rows` inits to the array, so this never truncates; checked
                        // arithmetic keeps an unvalidated kernel from wrapping.
                        let Some(at) = (*lane as usize)
                            .checked_mul(k.input_dwords as usize)
                            .and_then(|d| d.checked_add(base))
                        else {
                            continue;
                        };
                        let end = at.saturating_add(inputs.len());
                        if let Some(dst) = dwords.get_mut(at..end) {
                            dst.copy_from_slice(inputs);
                        }
                    }
                } else if let Some(dst) =
                    dwords.get_mut(base..base.saturating_add(init.dwords.len()))
                {
                    for (d, s) in dst.iter_mut().zip(&init.dwords) {
                        *d = s.0;
                    }
                }
            }
            images.push(ArrayImage {
                name: a.name.clone(),
                align: a.align,
                dwords,
            });
        }
        Ok(images)
    }

    /// The values of the kernel's `user_data` list once the backend has placed the arrays at `addresses`
    /// (parallel to [`Job::memory_image`]). For `agc-buffer-v1` these are the user SGPRs from s0; for `oracle-v1`
    /// they are the dwords of the kernel argument segment, whose address goes in `s[0:1]`.
    pub fn user_data(&self, addresses: &[u64]) -> Result<Vec<u32>, String> {
        let k = &self.kernel;
        let items = k.user_data()?;
        items
            .iter()
            .map(|u| match u.array() {
                None => Ok(u.value(0, 0)),
                Some(name) => {
                    let i = k.memory.iter().position(|a| a.name == name).ok_or_else(|| {
                        format!("user data refers to array `{name}`, which kernel `{}` does not have", k.name)
                    })?;
                    let addr = *addresses.get(i).ok_or("fewer addresses than arrays")?;
                    Ok(u.value(addr, k.memory[i].bytes))
                }
            })
            .collect()
    }

    /// The ABI.
    pub fn abi(&self) -> Abi {
        self.kernel.abi
    }

    /// Number of lanes in the dispatch.
    pub fn lane_count(&self) -> u64 {
        self.kernel.lanes()
    }

    /// Wraps the final contents of the job's arrays (name and dwords, as [`Job::memory_image`] lists them) as
    /// the job's output. A backend returns every array because the job's rows may compare any of them.
    pub fn output_from(&self, arrays: Vec<(String, Vec<u32>)>) -> JobOutput {
        let k = &self.kernel;
        let default = k.default_placement();
        let lanes = arrays
            .iter()
            .find(|(name, _)| *name == default.array)
            .and_then(|(_, out)| {
                (0..u32::try_from(self.lane_count()).unwrap_or(u32::MAX))
                    .map(|lane| {
                        let at = default.dword(lane, 0) as usize;
                        out.get(at..at + k.output_dwords as usize)
                            .map(<[u32]>::to_vec)
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .unwrap_or_default();
        JobOutput { arrays, lanes }
    }

    /// A one-line description for messages.
    pub fn describe(&self) -> String {
        format!(
            "{}/{} mode {} dispatch {}",
            self.suite,
            self.kernel.name,
            self.mode.canonical(),
            self.dispatch
        )
    }
}

/// What a dispatch left in memory: every array's final contents, from which each row reads its own placement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobOutput {
    /// Final contents of every array of the memory image, by name, in memory-list order.
    pub arrays: Vec<(String, Vec<u32>)>,
    /// `lanes[lane][column]`: every lane's `output_dwords` at the kernel's default placement (`out` at stride
    /// `output_dwords`), for callers that only compare that; empty when the kernel has no `out` array that holds
    /// them all.
    pub lanes: Vec<Vec<u32>>,
}

impl JobOutput {
    /// The final contents of array `name`.
    pub fn array(&self, name: &str) -> Option<&[u32]> {
        self.arrays
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.as_slice())
    }

    /// The value of `column` of `lane` in `placement`, or `None` where the array is missing or too small.
    pub fn value(&self, placement: &Placement, lane: u32, column: u32) -> Option<u32> {
        let at = usize::try_from(placement.dword(lane, column)).ok()?;
        self.array(&placement.array)?.get(at).copied()
    }
}

/// Why a backend did not produce outputs. `Unsupported` is counted apart from the other errors in reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The backend does not implement an instruction or mode the job needs; it refuses rather than guess.
    #[error("unsupported: {instruction}: {reason}")]
    Unsupported {
        /// The instruction (or feature) in words, e.g. `v_sin_f32 (word 12)` or `FLOAT_MODE 0xd0`.
        instruction: String,
        /// Why.
        reason: String,
    },
    /// A memory access outside every region of the job's memory.
    #[error("fault: {reason} (address {address:#x}, pc word {pc})")]
    Fault {
        /// The guest address.
        address: u64,
        /// The program counter, in words from the kernel's start.
        pc: u32,
        /// What was accessed.
        reason: String,
    },
    /// The job did not finish within one of the backend's bounds: a wave's instruction budget, the whole
    /// dispatch's instruction budget or the wall-clock limit. Every figure is carried, so the message says how
    /// far the job got and which bound to raise.
    #[error("{}", timeout_text(*.limit, *.instructions, *.budget, *.elapsed, *.time_limit))]
    Timeout {
        /// The bound the job ran into.
        limit: TimeLimit,
        /// Instructions executed when it stopped: by the wave for [`TimeLimit::WaveInstructions`], by all waves
        /// of the dispatch together otherwise.
        instructions: u64,
        /// The instruction budget of the same scope: per wave for [`TimeLimit::WaveInstructions`], the
        /// dispatch's otherwise.
        budget: u64,
        /// Wall-clock time the job had run.
        elapsed: Duration,
        /// The wall-clock limit; `None` when the job ran without one.
        time_limit: Option<Duration>,
    },
    /// The job itself is malformed (e.g. user data naming a missing array).
    #[error("invalid job: {0}")]
    InvalidJob(String),
    /// The device or driver failed.
    #[error("device error: {0}")]
    Device(String),
    /// The host could not allocate memory the job needs (its memory image, a mapping): counted as an error,
    /// never an abort of the whole run.
    #[error("out of memory: {what} ({bytes} bytes)")]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// How many bytes.
        bytes: u64,
    },
}

/// [`BackendError::OutOfMemory`] for `what` of `bytes` bytes.
pub fn out_of_memory(what: &str, bytes: u64) -> BackendError {
    BackendError::OutOfMemory {
        what: what.to_string(),
        bytes,
    }
}

/// Which bound of a backend a job ran into ([`BackendError::Timeout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeLimit {
    /// One wave executed its whole instruction budget without reaching `s_endpgm` (a runaway loop).
    WaveInstructions,
    /// All waves of the dispatch together executed the dispatch's instruction budget (many workgroups, each
    /// within its own budget, that together would run for hours).
    DispatchInstructions,
    /// The job ran longer than the wall-clock limit.
    WallClock,
}

fn seconds(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// The message of [`BackendError::Timeout`]: the bound first, then every figure.
fn timeout_text(
    limit: TimeLimit,
    instructions: u64,
    budget: u64,
    elapsed: Duration,
    time_limit: Option<Duration>,
) -> String {
    let clock = match time_limit {
        Some(t) => format!(
            "{} elapsed of the {} wall-clock limit",
            seconds(elapsed),
            seconds(t)
        ),
        None => format!("{} elapsed, no wall-clock limit", seconds(elapsed)),
    };
    match limit {
        TimeLimit::WaveInstructions => format!(
            "timeout: a wave executed {instructions} instructions, its budget of {budget} per wave, without \
             reaching s_endpgm ({clock})"
        ),
        TimeLimit::DispatchInstructions => format!(
            "timeout: the dispatch executed {instructions} instructions, its budget of {budget} for all waves \
             together ({clock})"
        ),
        TimeLimit::WallClock => format!(
            "timeout: the job ran past its wall-clock limit ({clock}; {instructions} instructions executed of \
             the dispatch's budget of {budget})"
        ),
    }
}

/// Something that runs jobs: the reference model, the recompiler on a Vulkan device, a real GPU.
pub trait Backend {
    /// Name shown in reports (`model`, `vulkan:lavapipe`, ...).
    fn name(&self) -> String;
    /// Runs one job.
    fn run(&self, job: &Job) -> Result<JobOutput, BackendError>;
    /// This backend as one that several threads may run jobs on at once, where it is one (the reference model:
    /// each job has its own state). `None`, the default, has its jobs run one at a time on one thread (a
    /// Vulkan device queue, a test double with interior state).
    fn concurrent(&self) -> Option<&(dyn Backend + Sync)> {
        None
    }
    /// The time this backend spent in each of its phases (translation, the host's compile, the dispatch)
    /// since the last call or since it opened; the count starts afresh. Empty, the default, where a backend
    /// does not divide its time. `conformance fuzz` sums it over its workers to say where a run went.
    fn take_phases(&self) -> Vec<(&'static str, std::time::Duration)> {
        Vec::new()
    }
}

/// A job and the IDs of the rows (one per lane) it reproduces.
#[derive(Debug, Clone)]
pub struct PlannedJob {
    /// The job.
    pub job: Job,
    /// Measurement IDs of the rows it is compared with.
    pub rows: Vec<String>,
}

/// Groups a suite's rows into jobs: one per kernel, target, mode and dispatch.
pub fn plan_jobs(suite: &Suite) -> Vec<PlannedJob> {
    let kernels: BTreeMap<&str, Arc<Kernel>> = suite
        .kernels
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), Arc::new(k.clone())))
        .collect();
    let order = suite.kernels.order();
    // (kernel index, target, mode, dispatch) -> (inputs by lane, row IDs)
    type Group<'a> = (BTreeMap<u32, &'a [u32]>, Vec<String>);
    let mut groups: BTreeMap<(usize, &str, FloatMode, &str), Group> = BTreeMap::new();
    for s in suite.rows.values() {
        let r = &s.row;
        let Some(&ki) = order.get(r.kernel.as_str()) else {
            continue;
        };
        let g = groups
            .entry((ki, r.target.as_str(), r.mode, r.dispatch.as_str()))
            .or_default();
        g.0.insert(r.lane, &r.inputs);
        g.1.push(r.id.clone());
    }
    groups
        .into_iter()
        .map(|((ki, target, mode, dispatch), (lanes, ids))| {
            let kernel = kernels[suite.kernels.kernels[ki].name.as_str()].clone();
            PlannedJob {
                job: Job {
                    suite: suite.name().to_string(),
                    kernel,
                    target: target.to_string(),
                    mode,
                    dispatch: dispatch.to_string(),
                    lanes: lanes.into_iter().map(|(l, i)| (l, i.to_vec())).collect(),
                    independent_groups: false,
                    addresses: None,
                },
                rows: ids,
            }
        })
        .collect()
}
