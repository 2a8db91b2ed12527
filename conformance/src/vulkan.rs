//! The `vulkan` backend: each job recompiled to SPIR-V ([`recompiler::job::prepare`]) and dispatched on a
//! Vulkan device through the `driver` crate; the guest-memory and status buffers come back as the job's
//! output or its typed error.

use driver::{BufferSpec, ComputeJob, Context, DriverError, Init};
use measurements::job::{Backend, BackendError, Job, JobOutput, TimeLimit};
use recompiler::job::{prepare, Options};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A Vulkan device running recompiled jobs.
pub struct VulkanBackend {
    ctx: Context,
    name: String,
    options: Options,
    timeout: Duration,
    /// Time in each of [`PHASES`] since [`Backend::take_phases`] last took it.
    phases: Mutex<[Duration; 3]>,
}

/// The phases a job's time is divided into: the recompiler's translation to SPIR-V, the driver's pipeline
/// creation (its compile), and the dispatch (submission to fence); indexed by [`SPIRV`], [`PIPELINE`] and
/// [`DISPATCH`].
const PHASES: [&str; 3] = ["SPIR-V", "pipeline", "dispatch"];
const SPIRV: usize = 0;
const PIPELINE: usize = 1;
const DISPATCH: usize = 2;

/// The short name of a device in reports: `vulkan:` and its name up to any parenthesis, lower case, words
/// joined by `-` (`vulkan:llvmpipe`, `vulkan:nvidia-h200`).
pub fn backend_name(device: &str) -> String {
    let head = device.split('(').next().unwrap_or(device);
    let slug: Vec<String> = head
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    format!("vulkan:{}", slug.join("-"))
}

/// Whether the device gives what the float engine's host fast paths need (`recompiler::Shape::host_floats`):
/// round-to-nearest-even float controls for f32.
pub fn host_floats(info: &driver::DeviceInfo) -> bool {
    info.float_controls.is_some_and(|f| f.rounding_rte.f32)
}

/// Whether the float engine's fixed-step computations are loops on the device by default
/// (`recompiler::Shape::rolled_loops`): everywhere but on lavapipe, whose loop budget (65535 iterations per
/// invocation) a kernel evaluating many transcendentals would spend; elsewhere loops make smaller modules,
/// which compile faster.
pub fn rolls_loops(info: &driver::DeviceInfo) -> bool {
    !info.is_lavapipe()
}

impl VulkanBackend {
    /// Opens the device whose name contains `selector` (lavapipe, or the only device, when `None`). Each
    /// wave gets `limits.instructions` instructions (at most `u32::MAX`) before the job times out in the
    /// shader, and the host waits `limits.wall_clock` for a dispatch's fence (`None`: without bound). The whole-dispatch instruction
    /// budget is the model's alone: the recompiled module counts per wave.
    pub fn open(
        selector: Option<&str>,
        limits: reference_model::exec::Limits,
    ) -> Result<VulkanBackend, String> {
        VulkanBackend::open_with(
            selector,
            limits,
            driver::OpenOptions::default().pipeline_cache_capacity,
        )
    }

    /// [`VulkanBackend::open`], keeping up to `pipelines` pipelines between jobs (0: each job builds its own
    /// and destroys it after).
    pub fn open_with(
        selector: Option<&str>,
        limits: reference_model::exec::Limits,
        pipelines: usize,
    ) -> Result<VulkanBackend, String> {
        let ctx = Context::open_with(&driver::OpenOptions {
            selector,
            pipeline_cache_capacity: pipelines,
            ..driver::OpenOptions::default()
        })
        .map_err(|e| format!("vulkan backend: {e}"))?;
        let info = ctx.info();
        let options = Options {
            shared_bytes: info.limits.max_compute_shared_memory_size,
            budget: u32::try_from(limits.instructions).unwrap_or(u32::MAX),
            host_floats: host_floats(info),
            // Helpers are inlined everywhere (`recompiler::Shape::call_helpers` docs): kept as calls on
            // NVIDIA's driver, peer-global-loads/LoadsCode read 138 wrong cells on the H200 (2026-12-04).
            call_helpers: false,
            rolled_loops: rolls_loops(info),
        };
        Ok(VulkanBackend {
            name: backend_name(&info.name),
            ctx,
            options,
            timeout: limits.wall_clock.unwrap_or(Duration::MAX),
            phases: Mutex::default(),
        })
    }

    fn lock_phases(&self) -> MutexGuard<'_, [Duration; 3]> {
        // A poisoned count is still a count.
        self.phases.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn spend(&self, phase: usize, d: Duration) {
        self.lock_phases()[phase] += d;
    }

    /// How many pipelines its context keeps now.
    pub fn cached_pipelines(&self) -> usize {
        self.ctx.cached_pipelines()
    }

    /// The device's full name.
    pub fn device_name(&self) -> &str {
        &self.ctx.info().name
    }

    /// Turns the float engine's host fast paths off (they are on where the device allows them), to measure
    /// what they gain.
    pub fn without_host_floats(mut self) -> VulkanBackend {
        self.options.host_floats = false;
        self
    }

    /// Keeps the recompiler's helpers as calls (`DontInline`), to measure what calls cost or gain on a driver
    /// that honours it (NVIDIA's): `bench-gpu --call-helpers`. Not for verification: on the H200 a bundled
    /// suite (peer-global-loads) differs from the model with calls and matches without.
    pub fn calling_helpers(mut self) -> VulkanBackend {
        self.options.call_helpers = true;
        self
    }

    /// Emits the float engine's fixed-step computations as loops, or unrolled, whatever the device
    /// (`recompiler::Shape::rolled_loops`; by default they are loops everywhere but on lavapipe): for tests
    /// of the loop form on lavapipe, and to measure what rolling gains. A form other than the device's
    /// default shows in the backend's name (`vulkan:llvmpipe+rolled`), so reports and saved fuzz
    /// regressions say which form ran.
    pub fn rolling_loops(mut self, on: bool) -> VulkanBackend {
        self.options.rolled_loops = on;
        self.rename();
        self
    }

    /// Asks the driver to optimise its pipelines (the default) or not (`driver::Context::set_optimize`: a
    /// hint the driver may ignore). Off is for work whose time is the driver's compile, such as differential
    /// fuzzing on NVIDIA. The backend's name says so (`vulkan:nvidia-...+unoptimized`), so reports and saved
    /// fuzz regressions say which code ran.
    pub fn optimizing(mut self, on: bool) -> VulkanBackend {
        self.ctx.set_optimize(on);
        self.rename();
        self
    }

    /// The name: the device's, then what differs from its defaults.
    fn rename(&mut self) {
        let rolled = self.options.rolled_loops;
        self.name = backend_name(&self.ctx.info().name);
        if rolled != rolls_loops(self.ctx.info()) {
            self.name
                .push_str(if rolled { "+rolled" } else { "+unrolled" });
        }
        if !self.ctx.optimizes() {
            self.name.push_str("+unoptimized");
        }
    }

    /// Whether compiled modules keep their helpers as calls.
    pub fn calls_helpers(&self) -> bool {
        self.options.call_helpers
    }

    /// Sets the instruction budget of each wave (default: the model's 1,000,000).
    pub fn with_budget(mut self, budget: u32) -> VulkanBackend {
        self.options.budget = budget;
        self
    }

    /// Sets the host's fence wait per dispatch.
    pub fn with_timeout(mut self, timeout: Duration) -> VulkanBackend {
        self.timeout = timeout;
        self
    }
}

fn device_error(e: DriverError, budget: u32, limit: Duration) -> BackendError {
    match e {
        // The driver keeps the context from running more until the dispatch ends.
        DriverError::Timeout { waited } => BackendError::Timeout {
            limit: TimeLimit::WallClock,
            instructions: 0,
            budget: budget as u64,
            elapsed: waited,
            time_limit: Some(limit),
        },
        other => BackendError::Device(other.to_string()),
    }
}

impl VulkanBackend {
    /// The device's context, for running other modules on it (`bench-gpu`).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// [`Backend::run`], the dispatch's time (submission to fence, without pipeline creation) and what
    /// the driver reported about the pipeline ([`driver::JobResult::statistics`]).
    pub fn run_timed(
        &self,
        job: &Job,
    ) -> Result<(JobOutput, Duration, Vec<driver::Statistic>), BackendError> {
        let started = Instant::now();
        let p = prepare(job, self.options);
        self.spend(SPIRV, started.elapsed());
        let p = p?;
        let info: Vec<u8> = p.info.iter().flat_map(|w| w.to_le_bytes()).collect();
        let status_bytes = 4 * p.module.status_words as u64;
        let buffers = [
            BufferSpec {
                size: p.memory.len() as u64,
                init: Init::Bytes(&p.memory),
                read_back: true,
            },
            BufferSpec::input(&info),
            BufferSpec::output(status_bytes),
            BufferSpec {
                // Unused (a zero-size dummy) when LDS is workgroup memory.
                size: if p.module.lds_in_workgroup {
                    0
                } else {
                    p.lds_bytes as u64
                },
                init: Init::Zero,
                read_back: false,
            },
        ];
        let r = self
            .ctx
            .run(&ComputeJob {
                spirv: &p.module.spirv,
                entry: "main",
                buffers: &buffers,
                push_constants: &[],
                workgroups: p.module.host_groups,
                required_subgroup_size: None,
                timeout: self.timeout,
            })
            .map_err(|e| device_error(e, p.budget, self.timeout))?;
        self.spend(PIPELINE, r.pipeline_time);
        self.spend(DISPATCH, r.elapsed);
        let memory = r.buffers.first().and_then(|b| b.as_deref()).unwrap_or(&[]);
        let status: Vec<u32> = r
            .buffers
            .get(2)
            .and_then(|b| b.as_deref())
            .unwrap_or(&[])
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let limit = (self.timeout != Duration::MAX).then_some(self.timeout);
        let out = p.finish(job, memory, &status, r.elapsed, limit)?;
        Ok((out, r.elapsed, r.statistics))
    }
}

impl Backend for VulkanBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        self.run_timed(job).map(|(out, _, _)| out)
    }

    fn take_phases(&self) -> Vec<(&'static str, Duration)> {
        let spent = std::mem::take(&mut *self.lock_phases());
        PHASES.iter().copied().zip(spent).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::backend_name;

    #[test]
    fn names_are_short() {
        assert_eq!(
            backend_name("llvmpipe (LLVM 15.0.6, 256 bits)"),
            "vulkan:llvmpipe"
        );
        assert_eq!(backend_name("NVIDIA H200"), "vulkan:nvidia-h200");
    }
}
