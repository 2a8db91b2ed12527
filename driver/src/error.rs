//! The crate's one error type.

use std::time::Duration;

use ash::vk;

/// Everything that can go wrong opening a device or running a job.
///
/// Errors found by checking a job against the device's limits (`Limit`, `InvalidInput`,
/// `Unsupported`, `ShaderRejected` with no `result`) are returned before anything is submitted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// The Vulkan loader library could not be loaded.
    #[error(
        "the Vulkan loader `{library}` could not be loaded ({reason}); install it (Debian: \
         `apt-get install libvulkan1`) and a Vulkan driver (Debian: `mesa-vulkan-drivers` \
         gives lavapipe, a CPU device)"
    )]
    NoVulkan {
        /// The file name that was looked for (`libvulkan.so.1` on Linux).
        library: &'static str,
        /// Why loading failed, as the dynamic loader said.
        reason: String,
    },

    /// The loader works but reports no physical device.
    #[error(
        "no Vulkan device found: the Vulkan loader found no driver; install one (Debian: \
         `mesa-vulkan-drivers` gives lavapipe, a CPU device) or check VK_DRIVER_FILES / \
         VK_ICD_FILENAMES"
    )]
    NoDevice,

    /// No device's name contains the requested text.
    #[error(
        "no Vulkan device's name contains {wanted:?} (case-insensitive); available: {}",
        list(.available)
    )]
    DeviceNotFound {
        /// The selector that was given.
        wanted: String,
        /// The names of every device present.
        available: Vec<String>,
    },

    /// Several different devices fit and nothing says which one to take.
    #[error(
        "{}: {}; name one (a case-insensitive part of its name)",
        match .wanted {
            Some(w) => format!("several Vulkan devices' names contain {w:?}"),
            None => "no device was named and there are several Vulkan devices, none of them lavapipe".to_string(),
        },
        list(.candidates)
    )]
    DeviceAmbiguous {
        /// The selector that was given, if any.
        wanted: Option<String>,
        /// The names of the devices that fit.
        candidates: Vec<String>,
    },

    /// Validation was asked for (`DRIVER_VALIDATION=1` or [`crate::Validation::On`]) but
    /// cannot be turned on.
    #[error(
        "Vulkan validation was asked for (DRIVER_VALIDATION=1 or Validation::On) but {0}; \
         install the layer (Debian: `apt-get install vulkan-validationlayers`) or unset \
         DRIVER_VALIDATION"
    )]
    ValidationUnavailable(String),

    /// The device cannot do what the job or the crate needs.
    #[error("unsupported on this device: {0}")]
    Unsupported(String),

    /// The job itself is malformed (independent of the device).
    #[error("invalid job: {0}")]
    InvalidInput(String),

    /// A job's parameter is beyond a device limit; nothing was submitted.
    #[error("{what}: {requested} is beyond the device's limit of {limit}")]
    Limit {
        /// What was too large (names the Vulkan limit).
        what: String,
        /// The requested value.
        requested: u64,
        /// The device's limit.
        limit: u64,
    },

    /// The SPIR-V module was refused, by this crate's structural check (`result` is `None`),
    /// by the validation layer, or by the driver (`result` is its `VkResult`).
    #[error(
        "shader rejected: {reason}{}{}",
        match .result { Some(r) => format!(" ({r:?})"), None => String::new() },
        messages_suffix(.messages)
    )]
    ShaderRejected {
        /// The driver's `VkResult` when the driver refused the module or pipeline.
        result: Option<vk::Result>,
        /// What was wrong, in words.
        reason: String,
        /// The validation layer's messages about it (empty without validation).
        messages: Vec<String>,
    },

    /// Host or device memory ran out.
    #[error("out of memory: {0}")]
    OutOfMemory(String),

    /// The job did not finish within its timeout. The Context is poisoned until the job ends
    /// (see [`crate::Context::is_poisoned`]); a job that never ends keeps it so: open a new
    /// Context to go on.
    #[error(
        "the job did not finish within {waited:?}; it may still be running on the device, so \
         this Context runs no more jobs until it ends (or open a new Context)"
    )]
    Timeout {
        /// How long the fence was waited for.
        waited: Duration,
    },

    /// The driver reported `VK_ERROR_DEVICE_LOST`; the Context is no longer usable.
    #[error("the Vulkan device was lost (VK_ERROR_DEVICE_LOST); open a new Context")]
    DeviceLost,

    /// An earlier job on this Context timed out and is still running, so it runs no more jobs
    /// for now.
    #[error(
        "this Context runs no more jobs for now: {0}; wait for it to end or open a new Context"
    )]
    Poisoned(String),

    /// The validation layer reported at least one error during the job (all its error and
    /// warning messages of the job are here).
    #[error("the Vulkan validation layer reported errors:{}", messages_suffix(.0))]
    Validation(Vec<String>),

    /// Any other failing Vulkan call: the call and its result.
    #[error("{0} failed: {1:?}")]
    Vk(String, vk::Result),

    /// A failure inside this crate or its allocator that is neither of the above.
    #[error("internal error: {0}")]
    Internal(String),
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn messages_suffix(messages: &[String]) -> String {
    messages.iter().map(|m| format!("\n  {m}")).collect()
}

impl DriverError {
    /// Maps a failed Vulkan call's result: out-of-memory results and device loss get their own
    /// variants, everything else is [`DriverError::Vk`] naming the call.
    pub(crate) fn vk(call: &str, result: vk::Result) -> Self {
        match result {
            vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                DriverError::OutOfMemory(format!("{call}: out of host memory"))
            }
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
                DriverError::OutOfMemory(format!("{call}: out of device memory"))
            }
            vk::Result::ERROR_DEVICE_LOST => DriverError::DeviceLost,
            r => DriverError::Vk(call.to_string(), r),
        }
    }
}

/// Extension for `VkResult<T>`: turns the error into a [`DriverError`] naming the call.
pub(crate) trait VkContext<T> {
    fn call(self, call: &str) -> Result<T, DriverError>;
}

impl<T> VkContext<T> for Result<T, vk::Result> {
    fn call(self, call: &str) -> Result<T, DriverError> {
        self.map_err(|r| DriverError::vk(call, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let e = DriverError::NoVulkan {
            library: "libvulkan.so.1",
            reason: "libvulkan.so.1: cannot open shared object file".into(),
        };
        let t = e.to_string();
        assert!(
            t.contains("libvulkan.so.1") && t.contains("libvulkan1"),
            "{t}"
        );
        assert!(t.contains("mesa-vulkan-drivers"), "{t}");
        assert!(DriverError::NoDevice
            .to_string()
            .contains("mesa-vulkan-drivers"));
        let t = DriverError::DeviceNotFound {
            wanted: "radv".into(),
            available: vec!["llvmpipe (LLVM 15.0.6, 256 bits)".into()],
        }
        .to_string();
        assert!(
            t.contains("\"radv\"") && t.contains("llvmpipe (LLVM"),
            "{t}"
        );
        let t = DriverError::DeviceAmbiguous {
            wanted: None,
            candidates: vec!["A".into(), "B".into()],
        }
        .to_string();
        assert!(t.contains("several") && t.contains("\"A\", \"B\""), "{t}");
        let t = DriverError::Limit {
            what: "push constants in bytes (maxPushConstantsSize)".into(),
            requested: 132,
            limit: 128,
        }
        .to_string();
        assert_eq!(
            t,
            "push constants in bytes (maxPushConstantsSize): 132 is beyond the device's limit of 128"
        );
        let t = DriverError::ShaderRejected {
            result: Some(vk::Result::ERROR_UNKNOWN),
            reason: "the driver refused".into(),
            messages: vec!["m1".into()],
        }
        .to_string();
        assert_eq!(
            t,
            "shader rejected: the driver refused (ERROR_UNKNOWN)\n  m1"
        );
        let t = DriverError::Timeout {
            waited: Duration::from_secs(2),
        }
        .to_string();
        assert!(t.contains("2s"), "{t}");
        assert_eq!(
            DriverError::vk("vkCreateBuffer", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY).to_string(),
            "out of memory: vkCreateBuffer: out of device memory"
        );
        assert!(matches!(
            DriverError::vk("vkQueueSubmit", vk::Result::ERROR_DEVICE_LOST),
            DriverError::DeviceLost
        ));
        assert_eq!(
            DriverError::vk("vkCreateFence", vk::Result::ERROR_UNKNOWN).to_string(),
            "vkCreateFence failed: ERROR_UNKNOWN"
        );
    }
}
