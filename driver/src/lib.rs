//! placeholder
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![warn(
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
mod info;
mod instance;
mod job;
mod pipeline;
mod spirv;

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
pub use job::{BufferSpec, ComputeJob, Init, JobResult};
