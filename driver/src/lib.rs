//! A small Vulkan compute runtime (on [`ash`]) that runs one SPIR-V compute dispatch per job
//! on any Vulkan device: lavapipe (Mesa's CPU device, the one CI has), RADV, NVIDIA, ....
//! It is the lower half of the project's `vulkan` backend: the recompiler turns gfx10 machine
//! code into SPIR-V, and this crate runs it and reads the results back (DESIGN.md, "Driver and
//! PM4"). It is the only crate of the workspace that contains `unsafe` code.
//!
//! ```no_run
//! use std::time::Duration;
//! use driver::{BufferSpec, ComputeJob, Context};
//!
//! # fn main() -> Result<(), driver::DriverError> {
//! # let spirv: Vec<u32> = Vec::new();
//! let ctx = Context::open(Some("llvmpipe"))?; // or None: the only device, or lavapipe
//! let input = [1u8, 0, 0, 0, 2, 0, 0, 0];
//! let buffers = [BufferSpec::input(&input), BufferSpec::output(8)];
//! let result = ctx.run(&ComputeJob {
//!     spirv: &spirv,
//!     entry: "main",
//!     buffers: &buffers,                  // set 0, binding i = buffers[i]
//!     push_constants: &[7, 0, 0, 0],
//!     workgroups: [1, 1, 1],
//!     required_subgroup_size: None,
//!     timeout: Duration::from_secs(10),
//! })?;
//! let out: &[u8] = result.buffers[1].as_deref().unwrap_or_default();
//! # let _ = out;
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! **Loading.** `ash` is built with its `loaded` feature: `libvulkan.so.1` is opened with
//! `dlopen` when a [`Context`] is opened or [`list_devices`] is called, so nothing links
//! against Vulkan at build time, and a machine without the loader gets
//! [`DriverError::NoVulkan`] naming the file and the Debian packages to install.
//!
//! **Devices.** [`list_devices`] reports every physical device with what a recompiler needs
//! to know ([`DeviceInfo`]: subgroup size and operations, subgroup size control, compute
//! limits, float controls, feature flags). [`Context::open`] picks one by a case-insensitive
//! part of its name; with none given it takes the only device, or lavapipe when there are
//! several and one is lavapipe, else it fails listing them. Several different devices that
//! all match a name are an error too; identical devices (same name) give the first. The
//! device needs Vulkan 1.2. Every feature of [`Features`] the device supports is enabled
//! (integer and float widths, 8/16-bit storage, 64-bit buffer and shared atomics, the Vulkan
//! memory model, subgroup size control); [`DeviceInfo::enabled_features`] says which.
//!
//! **Validation.** With `DRIVER_VALIDATION=1` (or [`Validation::On`]) the instance loads
//! `VK_LAYER_KHRONOS_validation`, with synchronization validation when the layer offers
//! `VK_EXT_validation_features`, and a debug-utils messenger collects every warning and
//! error (also those of instance creation and destruction). A job during which the layer
//! reports an error fails with [`DriverError::Validation`] carrying all of that job's
//! messages; warnings come back in [`JobResult::warnings`]. A module the layer calls invalid
//! is refused as [`DriverError::ShaderRejected`] *before* pipeline creation, because drivers
//! need not survive invalid SPIR-V. If validation is asked for and the layer is missing,
//! opening fails ([`DriverError::ValidationUnavailable`]); any other value of the variable
//! than `1`, `0` or empty is an error, so a typo never silently runs unvalidated.
//!
//! **A job** ([`ComputeJob`]) is checked against the device first: buffer sizes against
//! `maxStorageBufferRange`, the binding count against the per-stage and per-set storage
//! buffer limits, push constants against `maxPushConstantsSize`, the grid against
//! `maxComputeWorkGroupCount`, the module's `LocalSize` against `maxComputeWorkGroupSize` and
//! `maxComputeWorkGroupInvocations`, a required subgroup size against subgroup size control;
//! and the module's structure (header, instruction bounds, the named `GLCompute` entry point)
//! is checked by this crate. Each failure is a typed error returned before anything is
//! created or submitted. Then the job gets its pipeline (from the cache or made now), its
//! buffers, one command buffer with the dispatch and its barriers, one submission, a fence
//! wait bounded by [`ComputeJob::timeout`], and the read-back. Everything it created is freed
//! on every path, success or error, except after a timeout (below).
//!
//! **Memory.** Buffers come from [`gpu_allocator`]. On CPU devices (lavapipe) they are
//! host-visible, host-coherent memory the host fills and reads directly, with a host-write to
//! shader barrier before the dispatch and a shader-write to host-read barrier after it.
//! Elsewhere they are device-local: filled by `vkCmdFillBuffer` or copied from a host-visible
//! staging buffer (transfer to shader barrier), and copied to a host-visible read-back buffer
//! after the dispatch (shader to transfer, then transfer to host barriers).
//! [`MemoryStrategy`] forces either way (the tests run both on lavapipe). Buffers are
//! allocated rounded up to 4 bytes (so fills cover them); the descriptor's range is the exact
//! size asked for. A zero-size buffer is legal in a job although Vulkan has no zero-size
//! buffers: its binding gets a zeroed dummy of [`ZERO_SIZE_DUMMY_BYTES`] bytes (bound with
//! `VK_WHOLE_SIZE`), and it reads back as an empty vector.
//!
//! **Pipeline cache.** Each Context keeps up to [`OpenOptions::pipeline_cache_capacity`]
//! pipelines (default 64), least recently used evicted first, keyed by the module's full
//! words (not only a hash, so a collision can never run the wrong module), the entry point,
//! the binding count, the push-constant size and the subgroup requirements.
//!
//! **Timeouts.** Vulkan has no way to abandon a submitted command buffer. When the fence wait
//! times out, [`Context::run`] returns [`DriverError::Timeout`] and the Context is poisoned
//! while the job may still run: its buffers, memory and command buffer are kept (freeing them
//! under a running shader would be a use-after-free) and every later job fails at once with
//! [`DriverError::Poisoned`]. Each later call ([`Context::run`], [`Context::is_poisoned`],
//! closing) first asks the fence: once the job has ended after all, its resources are freed
//! and the Context works again. A job that never ends keeps it poisoned, and dropping it then
//! leaks the device and instance instead of waiting for an idle device that may never come; a
//! fresh Context can be opened at once.
//!
//! On lavapipe (Mesa 22.3.6, measured by `tests/timeout.rs` and `tests/timeout_recovery.rs`):
//! a `loop {}` shader does not run forever, because llvmpipe gives each invocation a budget
//! of 65535 loop iterations shared by all its loops and then silently breaks out. A job that
//! really runs past its timeout (a huge grid of such loops) returns `Timeout` after the
//! timeout (2.0 s for 2 s) and keeps lavapipe's worker threads busy until it finishes or the
//! process exits; a new Context opened meanwhile works, and the process still exits
//! normally. A job that ends later (about 2 s of work under a 100 ms timeout) leaves its
//! Context usable again once it has. So the recompiler must bound guest loops itself (an
//! instruction budget in the generated code), both to avoid timeouts and because on lavapipe
//! a long loop would otherwise be cut short without a word.
//!
//! **Threads.** [`Context`] is `Send + Sync`; its jobs run one at a time behind one lock,
//! which also provides the external synchronisation Vulkan requires for the queue and the
//! command buffer.
//!
//! # Why the `unsafe` blocks are sound
//!
//! Every block carries a one-line `// SAFETY:` comment (enforced by
//! `clippy::undocumented_unsafe_blocks`). They rest on these invariants:
//!
//! - *Lifetimes of handles.* Every Vulkan object is created from the device (or instance) it
//!   is used with, owned by exactly one Rust value, and destroyed once, children before
//!   parents (job objects, then pipelines, memory, fence and command pool, then the device,
//!   the messenger, the instance, and last the loader). Nothing is destroyed while the device
//!   may still use it: job resources are freed only after their fence signalled (after a
//!   timeout, only once a later status query finds it signalled; otherwise never).
//! - *Valid create infos.* Every pointer in a create info (names, arrays, chained `pNext`
//!   structs) points to data that outlives the call; ash's builders tie them by lifetime.
//!   Structures are chained only when the device's version or extensions provide them, and
//!   features are enabled only when reported supported.
//! - *External synchronisation.* The queue, the command buffer, the fence and the allocator
//!   are used only under the Context's lock; the command buffer and fence are reused only
//!   after the previous submission's fence signalled.
//! - *Shader input.* A module reaches `vkCreateShaderModule` only after this crate's
//!   structural check, and, with validation on, reaches pipeline creation only if the layer
//!   found it valid.
//! - *Host access.* Mapped memory is touched only through [`gpu_allocator`]'s slices, before
//!   submission or after the fence signalled, and only for host-coherent memory.
//! - *The messenger callback* reads only the strings the layer passes for the call and
//!   writes to a boxed sink that outlives the messenger and the instance.
//!
//! No function panics on any input: Vulkan results are matched, never unwrapped (the crate
//! denies `clippy::unwrap_used`, `expect_used`, `panic` and `indexing_slicing`).

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

mod context;
mod error;
mod exec;
mod info;
mod instance;
mod job;
mod pipeline;
pub mod pm4;
mod spirv;

/// The `ash` Vulkan bindings this crate is built on (for [`vk::Result`] in errors).
pub use ash::vk;
pub use context::{
    list_devices, Context, MemoryStrategy, OpenOptions, Validation, VALIDATION_ENV,
    ZERO_SIZE_DUMMY_BYTES,
};
pub use error::DriverError;
pub use info::{
    ApiVersion, ComputeLimits, DeviceInfo, DeviceType, Features, FloatControls, Independence,
    PerWidth, SubgroupInfo, SubgroupOperations, SubgroupSizeControl,
};
pub use job::{BufferSpec, ComputeJob, Init, JobResult, Statistic};

/// Environment variables the host drivers read once, when they load, and the values this project runs
/// them with. [`set_environment_defaults`] applies them where the environment leaves them unset (the
/// `conformance` binary calls it first thing); the workspace's `.cargo/config.toml` gives the same to the
/// processes of `cargo test` and `cargo run`.
///
/// - `LP_NATIVE_VECTOR_WIDTH=128`: lavapipe vectorises 4 lanes at a time instead of 8. With 8 (its choice
///   when the variable is unset, on an AVX2 and on an AVX-512 VM alike: both reported subgroups of 8), its
///   LLVM 15 aborts the whole process on some of the recompiler's modules when the CPU has AVX or AVX2 but
///   not AVX-512 ("LLVM ERROR: Cannot emit physreg copy instruction",
///   `conformance/fuzz-regressions/seed-9500-batch-16053-program-8.toml`, an f64 add under EXEC masks; seen
///   on an AMD EPYC with AVX2). With 4 it compiles them, and a fuzz batch ran no slower (README, "Host
///   limits and host bugs worked around").
pub const ENVIRONMENT_DEFAULTS: &[(&str, &str)] = &[("LP_NATIVE_VECTOR_WIDTH", "128")];

/// Sets each of [`ENVIRONMENT_DEFAULTS`] that the environment leaves unset ([`set_where_unset`]), and returns
/// the names it set.
pub fn set_environment_defaults() -> Vec<&'static str> {
    set_where_unset(ENVIRONMENT_DEFAULTS)
}

/// Sets each (name, value) of `vars` whose name the environment leaves unset, and returns the names it set:
/// a value the user gave wins. Call it before any other thread starts and before a Vulkan instance exists:
/// drivers read such settings when they load, and `std::env::set_var` is only sound while no other thread
/// reads the environment.
pub fn set_where_unset(vars: &[(&'static str, &str)]) -> Vec<&'static str> {
    let mut set = Vec::new();
    for &(name, value) in vars {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
            set.push(name);
        }
    }
    set
}
