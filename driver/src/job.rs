//! What a compute job is ([`ComputeJob`]) and what it returns ([`JobResult`]).

use std::time::Duration;

/// One compute dispatch: a SPIR-V module, its storage buffers, push constants and grid.
#[derive(Debug, Clone)]
pub struct ComputeJob<'a> {
    /// A SPIR-V compute module, in host word order.
    pub spirv: &'a [u32],
    /// The name of its `GLCompute` entry point.
    pub entry: &'a str,
    /// Storage buffers: `buffers[i]` is bound at descriptor set 0, binding `i`.
    pub buffers: &'a [BufferSpec<'a>],
    /// Push-constant bytes, offset 0, compute stage, at most `maxPushConstantsSize`. Padded
    /// with zeros to a multiple of 4 (Vulkan's push-constant granularity). Empty: no range.
    pub push_constants: &'a [u8],
    /// The number of workgroups in x, y and z (each at most `maxComputeWorkGroupCount`; 0 is
    /// allowed and dispatches nothing).
    pub workgroups: [u32; 3],
    /// A required subgroup size (`VK_EXT_subgroup_size_control` / Vulkan 1.3); `None` lets
    /// the driver choose. A size the device cannot require is
    /// [`crate::DriverError::Unsupported`].
    pub required_subgroup_size: Option<u32>,
    /// The longest the fence is waited for. `Duration::MAX` (anything of `u64::MAX`
    /// nanoseconds or more) waits without bound.
    pub timeout: Duration,
}

/// One storage buffer of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferSpec<'a> {
    /// Size in bytes, as the shader sees it (the descriptor's range), at most
    /// `maxStorageBufferRange`. 0 is allowed: the binding then gets a 16-byte zeroed dummy
    /// buffer, because Vulkan has no zero-size buffers, and reads back as an empty vector.
    pub size: u64,
    /// Initial contents.
    pub init: Init<'a>,
    /// Whether [`JobResult::buffers`] gets this buffer's contents after the dispatch.
    pub read_back: bool,
}

impl<'a> BufferSpec<'a> {
    /// A zero-filled buffer of `size` bytes that is read back.
    pub fn output(size: u64) -> Self {
        BufferSpec {
            size,
            init: Init::Zero,
            read_back: true,
        }
    }

    /// A buffer holding `bytes` (size `bytes.len()`), not read back.
    pub fn input(bytes: &'a [u8]) -> Self {
        BufferSpec {
            size: bytes.len() as u64,
            init: Init::Bytes(bytes),
            read_back: false,
        }
    }
}

/// The initial contents of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init<'a> {
    /// All zero bytes.
    Zero,
    /// This 32-bit word repeated (little-endian); a size that is not a multiple of 4 ends with
    /// the word's first bytes.
    Fill(u32),
    /// These bytes from offset 0 (at most `size` of them), zero after them.
    Bytes(&'a [u8]),
}

/// What a finished job returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobResult {
    /// One entry per [`ComputeJob::buffers`] entry: `Some(contents)` (exactly `size` bytes)
    /// where `read_back` was set, else `None`.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Wall-clock time from queue submission to the fence signalling: the dispatch, plus on
    /// devices that use staging buffers the upload and read-back copies in the same command
    /// buffer. It does not include pipeline creation.
    pub elapsed: Duration,
    /// Wall-clock time spent getting the job's pipeline: the driver's compile when the context made it for
    /// this job, next to nothing when it came from the context's cache.
    pub pipeline_time: Duration,
    /// Validation-layer warnings reported during the job (empty without validation). Errors
    /// fail the job with [`crate::DriverError::Validation`] instead.
    pub warnings: Vec<String>,
    /// What the driver reported about the job's pipeline when it was created
    /// (VK_KHR_pipeline_executable_properties, with [`crate::Context::set_capture_statistics`] on):
    /// register count, binary size and the like, per executable. Empty where the device does not offer
    /// the extension or capture was off when the pipeline was made.
    pub statistics: Vec<Statistic>,
}

/// One statistic a driver reports about a pipeline executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statistic {
    /// The executable's name (one compute shader: "CS" on NVIDIA's driver).
    pub executable: String,
    /// The statistic's name, as the driver gives it ("Register Count").
    pub name: String,
    /// Its value, as text (an integer, a float or true/false).
    pub value: String,
}
