//! The `vulkan` backend: each job recompiled to SPIR-V ([`recompiler::job::prepare`]) and dispatched on a
//! Vulkan device through the `driver` crate; the guest-memory and status buffers come back as the job's
//! output or its typed error.

use driver::{BufferSpec, ComputeJob, Context, DriverError, Init};
use measurements::job::{Backend, BackendError, Job, JobOutput};
use recompiler::job::{prepare, Options};
use recompiler::layout;
use std::time::Duration;

/// How long the host waits for one dispatch's fence before it gives the job up (the shader's own instruction
/// budget normally ends a runaway kernel much sooner).
pub const FENCE_TIMEOUT: Duration = Duration::from_secs(60);

/// A Vulkan device running recompiled jobs.
pub struct VulkanBackend {
    ctx: Context,
    name: String,
    options: Options,
    timeout: Duration,
}

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

impl VulkanBackend {
    /// Opens the device whose name contains `selector` (lavapipe, or the only device, when `None`).
    pub fn open(selector: Option<&str>) -> Result<VulkanBackend, String> {
        let ctx = Context::open(selector).map_err(|e| format!("vulkan backend: {e}"))?;
        let info = ctx.info();
        let options = Options {
            shared_bytes: info.limits.max_compute_shared_memory_size,
            ..Options::default()
        };
        Ok(VulkanBackend {
            name: backend_name(&info.name),
            ctx,
            options,
            timeout: FENCE_TIMEOUT,
        })
    }

    /// The device's full name.
    pub fn device_name(&self) -> &str {
        &self.ctx.info().name
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

fn device_error(e: DriverError) -> BackendError {
    match e {
        DriverError::Timeout { waited } => BackendError::Device(format!(
            "the dispatch did not finish within {waited:?} (the device is given up for this run)"
        )),
        other => BackendError::Device(other.to_string()),
    }
}

impl Backend for VulkanBackend {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let p = prepare(job, self.options)?;
        let info: Vec<u8> = p.info.iter().flat_map(|w| w.to_le_bytes()).collect();
        let status_bytes = 4 * layout::STATUS_WORDS as u64;
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
                size: if p.module.lds_in_workgroup { 0 } else { p.lds_bytes as u64 },
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
                workgroups: [1, 1, 1],
                required_subgroup_size: None,
                timeout: self.timeout,
            })
            .map_err(device_error)?;
        let memory = r.buffers.first().and_then(|b| b.as_deref()).unwrap_or(&[]);
        let status: Vec<u32> = r
            .buffers
            .get(2)
            .and_then(|b| b.as_deref())
            .unwrap_or(&[])
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        p.finish(job, memory, &status)
    }
}

#[cfg(test)]
mod tests {
    use super::backend_name;

    #[test]
    fn names_are_short() {
        assert_eq!(backend_name("llvmpipe (LLVM 15.0.6, 256 bits)"), "vulkan:llvmpipe");
        assert_eq!(backend_name("NVIDIA H200"), "vulkan:nvidia-h200");
    }
}
