//! [`Context`]: an open device that runs [`ComputeJob`]s.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::AllocatorDebugSettings;

use crate::error::{DriverError, VkContext};
use crate::exec::{allocation_error, round_up4, Checked, Health, Inner, JobResources};
use crate::info::{self, DeviceFacts, DeviceInfo, DeviceType, Features};
use crate::instance::{split, Instance};
use crate::job::{ComputeJob, Init, JobResult};
use crate::pipeline::{PipelineCache, PipelineKey};
use crate::spirv;

/// The environment variable that turns validation on for [`Validation::FromEnv`].
pub const VALIDATION_ENV: &str = "DRIVER_VALIDATION";

/// The size of the buffer bound for a zero-size [`crate::BufferSpec`].
pub const ZERO_SIZE_DUMMY_BYTES: u64 = 16;

/// Whether to load the Khronos validation layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Validation {
    /// On when `DRIVER_VALIDATION=1`, off when it is unset, empty or `0`; any other value is
    /// an error (so a typo never silently runs unvalidated).
    #[default]
    FromEnv,
    /// Always on (fails to open when the layer is missing).
    On,
    /// Always off.
    Off,
}

/// Where job buffers live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryStrategy {
    /// Host-visible memory on CPU devices (lavapipe: all memory is host memory, so a copy
    /// would only cost time), device-local memory with staging buffers elsewhere.
    #[default]
    Auto,
    /// Device-local buffers, filled with `vkCmdFillBuffer` or copied from a host-visible
    /// staging buffer, and copied to a host-visible buffer for read-back.
    Staged,
    /// Host-visible, host-coherent buffers that the host writes and reads directly.
    HostVisible,
}

/// How [`Context::open_with`] opens a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions<'a> {
    /// A case-insensitive part of the device's name; `None` (or empty) picks the only device,
    /// or lavapipe when there are several.
    pub selector: Option<&'a str>,
    /// Whether to turn on the validation layer.
    pub validation: Validation,
    /// Where job buffers live.
    pub memory: MemoryStrategy,
    /// How many pipelines the Context keeps between jobs (0: none, each job builds its own).
    pub pipeline_cache_capacity: usize,
}

impl Default for OpenOptions<'_> {
    fn default() -> Self {
        OpenOptions {
            selector: None,
            validation: Validation::FromEnv,
            memory: MemoryStrategy::Auto,
            pipeline_cache_capacity: 64,
        }
    }
}

fn validation_wanted(v: Validation) -> Result<bool, DriverError> {
    match v {
        Validation::On => Ok(true),
        Validation::Off => Ok(false),
        Validation::FromEnv => match std::env::var(VALIDATION_ENV) {
            Err(std::env::VarError::NotPresent) => Ok(false),
            Ok(s) if s.is_empty() || s == "0" => Ok(false),
            Ok(s) if s == "1" => Ok(true),
            Ok(s) => Err(DriverError::InvalidInput(format!(
                "{VALIDATION_ENV} must be 1 (on) or 0 (off), not {s:?}"
            ))),
            Err(std::env::VarError::NotUnicode(s)) => Err(DriverError::InvalidInput(format!(
                "{VALIDATION_ENV} must be 1 (on) or 0 (off), not {s:?}"
            ))),
        },
    }
}

/// Chooses a device: see [`OpenOptions::selector`]. `devices` is (name, is lavapipe).
pub(crate) fn select(
    devices: &[(String, bool)],
    selector: Option<&str>,
) -> Result<usize, DriverError> {
    let names = || devices.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if devices.is_empty() {
        return Err(DriverError::NoDevice);
    }
    let pick = |wanted: Option<&str>, candidates: Vec<usize>| -> Result<usize, DriverError> {
        let first = candidates.first().copied();
        match (first, candidates.len()) {
            (Some(i), 1) => Ok(i),
            (Some(i), _) => {
                if let Some(w) = wanted {
                    if let Some(&exact) = candidates.iter().find(|&&c| {
                        devices
                            .get(c)
                            .is_some_and(|(n, _)| n.eq_ignore_ascii_case(w))
                    }) {
                        return Ok(exact);
                    }
                }
                let same_name = candidates
                    .iter()
                    .filter_map(|&c| devices.get(c).map(|(n, _)| n))
                    .all(|n| devices.get(i).is_some_and(|(first, _)| first == n));
                if same_name {
                    Ok(i)
                } else {
                    Err(DriverError::DeviceAmbiguous {
                        wanted: wanted.map(str::to_string),
                        candidates: candidates
                            .iter()
                            .filter_map(|&c| devices.get(c).map(|(n, _)| n.clone()))
                            .collect(),
                    })
                }
            }
            (None, _) => Err(DriverError::Internal("no candidate devices".into())),
        }
    };
    match selector.filter(|s| !s.is_empty()) {
        Some(wanted) => {
            let w = wanted.to_lowercase();
            let matches: Vec<usize> = devices
                .iter()
                .enumerate()
                .filter(|(_, (n, _))| n.to_lowercase().contains(&w))
                .map(|(i, _)| i)
                .collect();
            if matches.is_empty() {
                return Err(DriverError::DeviceNotFound {
                    wanted: wanted.to_string(),
                    available: names(),
                });
            }
            pick(Some(wanted), matches)
        }
        None => {
            if devices.len() == 1 {
                return Ok(0);
            }
            let lavapipes: Vec<usize> = devices
                .iter()
                .enumerate()
                .filter(|(_, (_, lp))| *lp)
                .map(|(i, _)| i)
                .collect();
            if lavapipes.is_empty() {
                return Err(DriverError::DeviceAmbiguous {
                    wanted: None,
                    candidates: names(),
                });
            }
            pick(None, lavapipes)
        }
    }
}

/// Every physical device the Vulkan loader reports, with its properties and features.
///
/// Creates a short-lived instance (without validation) and destroys it again.
pub fn list_devices() -> Result<Vec<DeviceInfo>, DriverError> {
    let instance = Instance::new(false)?;
    let pds = instance.physical_devices()?;
    pds.iter()
        .enumerate()
        .map(|(i, pd)| info::query(&instance.instance, instance.version, *pd, i).map(|f| f.info))
        .collect()
}

/// An open Vulkan device that runs compute jobs.
///
/// `Context` is `Send + Sync`; jobs from several threads run one at a time (the queue, the
/// command buffer and the allocator sit behind one lock).
pub struct Context {
    info: DeviceInfo,
    validation: bool,
    staged: bool,
    /// VK_KHR_pipeline_executable_properties is enabled.
    statistics_offered: bool,
    /// New pipelines capture their statistics ([`Context::set_capture_statistics`]).
    capture: AtomicBool,
    /// New pipelines are made without the driver's optimisation ([`Context::set_optimize`]).
    unoptimized: AtomicBool,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.info.name)
            .field("validation", &self.validation)
            .field("staged", &self.staged)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// Opens a device by a case-insensitive part of its name (`None`: the only device, or
    /// lavapipe when there are several), with validation as `DRIVER_VALIDATION` says.
    pub fn open(selector: Option<&str>) -> Result<Context, DriverError> {
        Context::open_with(&OpenOptions {
            selector,
            ..OpenOptions::default()
        })
    }

    /// Opens a device with explicit options.
    pub fn open_with(options: &OpenOptions<'_>) -> Result<Context, DriverError> {
        let validation = validation_wanted(options.validation)?;
        let instance = Instance::new(validation)?;
        let pds = instance.physical_devices()?;
        let mut all: Vec<(vk::PhysicalDevice, DeviceFacts)> = Vec::with_capacity(pds.len());
        for (i, pd) in pds.iter().enumerate() {
            all.push((
                *pd,
                info::query(&instance.instance, instance.version, *pd, i)?,
            ));
        }
        let names: Vec<(String, bool)> = all
            .iter()
            .map(|(_, f)| (f.info.name.clone(), f.info.is_lavapipe()))
            .collect();
        let chosen = select(&names, options.selector)?;
        let Some((pd, facts)) = all.into_iter().nth(chosen) else {
            return Err(DriverError::Internal("selected device vanished".into()));
        };
        if !facts.effective_version.at_least(1, 2) {
            return Err(DriverError::Unsupported(format!(
                "{} offers Vulkan {}; this crate needs 1.2 or later",
                facts.info.name, facts.effective_version
            )));
        }
        Context::create(instance, pd, facts, options)
    }

    fn create(
        instance: Instance,
        pd: vk::PhysicalDevice,
        facts: DeviceFacts,
        options: &OpenOptions<'_>,
    ) -> Result<Context, DriverError> {
        let mut info = facts.info;
        // SAFETY: `pd` belongs to the live instance.
        let families = unsafe {
            instance
                .instance
                .get_physical_device_queue_family_properties(pd)
        };
        let Some(family) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0)
            .and_then(|i| u32::try_from(i).ok())
        else {
            return Err(DriverError::Unsupported(format!(
                "{} has no compute queue",
                info.name
            )));
        };

        let s = info.features;
        let enabled = Features {
            shader_int64: s.shader_int64,
            shader_int16: s.shader_int16,
            shader_int8: s.shader_int8,
            shader_float64: s.shader_float64,
            shader_float16: s.shader_float16,
            storage_buffer_8bit_access: s.storage_buffer_8bit_access,
            storage_buffer_16bit_access: s.storage_buffer_16bit_access,
            shader_buffer_int64_atomics: s.shader_buffer_int64_atomics,
            shader_shared_int64_atomics: s.shader_shared_int64_atomics,
            vulkan_memory_model: s.vulkan_memory_model,
            vulkan_memory_model_device_scope: s.vulkan_memory_model_device_scope
                && s.vulkan_memory_model,
            subgroup_size_control: s.subgroup_size_control,
            compute_full_subgroups: s.compute_full_subgroups,
        };
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_int64(enabled.shader_int64)
            .shader_int16(enabled.shader_int16)
            .shader_float64(enabled.shader_float64);
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(enabled.storage_buffer_16bit_access);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_int8(enabled.shader_int8)
            .shader_float16(enabled.shader_float16)
            .storage_buffer8_bit_access(enabled.storage_buffer_8bit_access)
            .shader_buffer_int64_atomics(enabled.shader_buffer_int64_atomics)
            .shader_shared_int64_atomics(enabled.shader_shared_int64_atomics)
            .vulkan_memory_model(enabled.vulkan_memory_model)
            .vulkan_memory_model_device_scope(enabled.vulkan_memory_model_device_scope);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(enabled.subgroup_size_control)
            .compute_full_subgroups(enabled.compute_full_subgroups);
        let mut size_ext = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
            .subgroup_size_control(enabled.subgroup_size_control)
            .compute_full_subgroups(enabled.compute_full_subgroups);
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .features(core)
            .push_next(&mut f11)
            .push_next(&mut f12);
        let mut extensions: Vec<*const std::ffi::c_char> = Vec::new();
        if facts.effective_version.at_least(1, 3) {
            f2 = f2.push_next(&mut f13);
        } else if facts.subgroup_size_control_ext {
            f2 = f2.push_next(&mut size_ext);
            extensions.push(ash::ext::subgroup_size_control::NAME.as_ptr());
        }
        let portability = c"VK_KHR_portability_subset";
        if facts.extensions.contains(portability) {
            // Required by the spec wherever the device offers it (MoltenVK).
            extensions.push(portability.as_ptr());
        }
        // Enabled wherever offered: it costs nothing until a pipeline asks to capture statistics.
        let statistics_offered = facts
            .extensions
            .contains(ash::khr::pipeline_executable_properties::NAME);
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        if statistics_offered {
            extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
            f2 = f2.push_next(&mut executable_info);
        }
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut f2);
        // SAFETY: every feature enabled was reported supported, every extension named is
        // offered by the device (or core), and all pointers are live for the call.
        let device =
            unsafe { instance.instance.create_device(pd, &create, None) }.call("vkCreateDevice")?;
        info.enabled_features = Some(enabled);

        let staged = match options.memory {
            MemoryStrategy::Auto => info.device_type != DeviceType::Cpu,
            MemoryStrategy::Staged => true,
            MemoryStrategy::HostVisible => false,
        };

        // SAFETY: the family and index 0 were requested in `create`.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let mut inner = Inner {
            device,
            queue,
            command_pool: vk::CommandPool::null(),
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            allocator: None,
            cache: PipelineCache::new(options.pipeline_cache_capacity),
            health: Health::Good,
            staged,
            torn_down: false,
            abandoned: None,
            instance: None,
        };
        // From here on `inner`'s Drop frees whatever has been made if a step fails; the
        // instance is moved in first so it outlives the device.
        let validation = instance.validation();
        inner.instance = Some(instance);

        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: the device is live; the info is valid for the call.
        inner.command_pool = unsafe { inner.device.create_command_pool(&pool_info, None) }
            .call("vkCreateCommandPool")?;
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(inner.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool was just created from this device.
        let buffers = unsafe { inner.device.allocate_command_buffers(&alloc_info) }
            .call("vkAllocateCommandBuffers")?;
        inner.command_buffer = buffers.into_iter().next().ok_or_else(|| {
            DriverError::Internal("vkAllocateCommandBuffers returned nothing".into())
        })?;
        // SAFETY: the device is live.
        inner.fence = unsafe {
            inner
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .call("vkCreateFence")?;

        let vk_instance = match inner.instance.as_ref() {
            Some(i) => i.instance.clone(),
            None => return Err(DriverError::Internal("instance missing".into())),
        };
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: vk_instance,
            device: inner.device.clone(),
            physical_device: pd,
            debug_settings: AllocatorDebugSettings {
                log_leaks_on_shutdown: false,
                ..AllocatorDebugSettings::default()
            },
            buffer_device_address: false,
            allocation_sizes: gpu_allocator::AllocationSizes::default(),
        })
        .map_err(|e| allocation_error("the allocator", e))?;
        inner.allocator = Some(allocator);

        let (error, messages) = split(inner.take_messages());
        if error {
            return Err(DriverError::Validation(messages));
        }
        Ok(Context {
            info,
            validation,
            staged,
            statistics_offered,
            capture: AtomicBool::new(false),
            unoptimized: AtomicBool::new(false),
            inner: Mutex::new(inner),
        })
    }

    /// Whether pipelines made from now on capture the driver's statistics about them (register count,
    /// binary size: [`JobResult::statistics`]). Returns whether the device can (it offers
    /// VK_KHR_pipeline_executable_properties); a pipeline is captured or not when it is first made,
    /// and the cache keeps the two apart.
    pub fn set_capture_statistics(&self, on: bool) -> bool {
        self.capture.store(on, Ordering::Relaxed);
        self.statistics_offered
    }

    /// Whether pipelines made from now on let the driver optimise them (the default), or ask it not to
    /// (VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT, a hint the driver may ignore): for work whose time is
    /// the driver's compile, such as differential fuzzing, where no module runs twice. A pipeline is made
    /// one way or the other when it is first made, and the cache keeps the two apart.
    pub fn set_optimize(&self, on: bool) {
        self.unoptimized.store(!on, Ordering::Relaxed);
    }

    /// Whether pipelines made from now on are optimised ([`Context::set_optimize`]).
    pub fn optimizes(&self) -> bool {
        !self.unoptimized.load(Ordering::Relaxed)
    }

    /// The device this Context runs on, with [`DeviceInfo::enabled_features`] set.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Whether the validation layer is on.
    pub fn validation_enabled(&self) -> bool {
        self.validation
    }

    /// Whether job buffers are device-local with staging copies (see [`MemoryStrategy`]).
    pub fn uses_staging(&self) -> bool {
        self.staged
    }

    /// How many pipelines are cached now.
    pub fn cached_pipelines(&self) -> usize {
        self.lock().cache.len()
    }

    /// True while a timed-out job may still be running, and for good once the device was
    /// lost: [`Context::run`] then fails at once. A timed-out job that has ended since (its
    /// fence signalled) is cleaned up here, and the Context is usable again.
    pub fn is_poisoned(&self) -> bool {
        let mut inner = self.lock();
        inner.try_recover();
        inner.health != Health::Good
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Destroys everything, returning an error if the validation layer reported an error
    /// during teardown (e.g. an object left undestroyed) or an allocation was leaked. Dropping
    /// a Context does the same but cannot report. A Context whose timed-out job is still
    /// running (see [`Context::is_poisoned`]) is leaked, not destroyed.
    pub fn close(self) -> Result<(), DriverError> {
        let mut inner = self
            .inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        inner.teardown()
    }

    fn check(&self, job: &ComputeJob<'_>) -> Result<Checked, DriverError> {
        let limits = &self.info.limits;
        let n = u32::try_from(job.buffers.len()).unwrap_or(u32::MAX);
        let max_bindings = limits
            .max_per_stage_descriptor_storage_buffers
            .min(limits.max_descriptor_set_storage_buffers);
        if n > max_bindings {
            return Err(DriverError::Limit {
                what: "storage buffer bindings (maxPerStageDescriptorStorageBuffers / \
                       maxDescriptorSetStorageBuffers)"
                    .into(),
                requested: job.buffers.len() as u64,
                limit: max_bindings.into(),
            });
        }
        let mut sizes = Vec::with_capacity(job.buffers.len());
        for (i, b) in job.buffers.iter().enumerate() {
            if b.size > u64::from(limits.max_storage_buffer_range) {
                return Err(DriverError::Limit {
                    what: format!("buffer {i} size in bytes (maxStorageBufferRange)"),
                    requested: b.size,
                    limit: limits.max_storage_buffer_range.into(),
                });
            }
            if let Init::Bytes(bytes) = b.init {
                if bytes.len() as u64 > b.size {
                    return Err(DriverError::InvalidInput(format!(
                        "buffer {i} has {} initial bytes but a size of {}",
                        bytes.len(),
                        b.size
                    )));
                }
            }
            let alloc = if b.size == 0 {
                ZERO_SIZE_DUMMY_BYTES
            } else {
                round_up4(b.size)
            };
            sizes.push((b.size, alloc));
        }
        let push_size = round_up4(job.push_constants.len() as u64);
        if push_size > u64::from(limits.max_push_constants_size) {
            return Err(DriverError::Limit {
                what: "push constants in bytes (maxPushConstantsSize)".into(),
                requested: job.push_constants.len() as u64,
                limit: limits.max_push_constants_size.into(),
            });
        }
        for ((axis, count), max) in ["x", "y", "z"]
            .iter()
            .zip(job.workgroups)
            .zip(limits.max_compute_work_group_count)
        {
            if count > max {
                return Err(DriverError::Limit {
                    what: format!("workgroup count in {axis} (maxComputeWorkGroupCount)"),
                    requested: count.into(),
                    limit: max.into(),
                });
            }
        }
        if job.entry.contains('\0') {
            return Err(DriverError::InvalidInput(
                "the entry point name contains a NUL".into(),
            ));
        }
        let facts =
            spirv::inspect(job.spirv, job.entry).map_err(|reason| DriverError::ShaderRejected {
                result: None,
                reason,
                messages: Vec::new(),
            })?;
        if let Some(local) = facts.local_size {
            for ((axis, size), max) in ["x", "y", "z"]
                .iter()
                .zip(local)
                .zip(limits.max_compute_work_group_size)
            {
                if size > max {
                    return Err(DriverError::Limit {
                        what: format!("workgroup size in {axis} (maxComputeWorkGroupSize)"),
                        requested: size.into(),
                        limit: max.into(),
                    });
                }
            }
            let invocations: u64 = local.iter().map(|&v| u64::from(v)).product();
            if invocations > u64::from(limits.max_compute_work_group_invocations) {
                return Err(DriverError::Limit {
                    what: "invocations per workgroup (maxComputeWorkGroupInvocations)".into(),
                    requested: invocations,
                    limit: limits.max_compute_work_group_invocations.into(),
                });
            }
        }
        let mut full_subgroups = false;
        if let Some(size) = job.required_subgroup_size {
            let enabled = self.info.enabled_features.unwrap_or_default();
            let control = self.info.subgroup.as_ref().and_then(|s| s.size_control);
            let Some(control) = control.filter(|_| enabled.subgroup_size_control) else {
                return Err(DriverError::Unsupported(format!(
                    "a required subgroup size ({size}): the device has no subgroup size control"
                )));
            };
            if !control.required_size_in_compute {
                return Err(DriverError::Unsupported(format!(
                    "a required subgroup size ({size}): not for compute shaders on this device"
                )));
            }
            if !size.is_power_of_two() || size < control.min_size || size > control.max_size {
                return Err(DriverError::Unsupported(format!(
                    "subgroup size {size}: this device can require powers of two from {} to {}",
                    control.min_size, control.max_size
                )));
            }
            // Full subgroups whenever they can be asked for: a guest wave mapped onto a host
            // subgroup needs every lane present.
            full_subgroups = enabled.compute_full_subgroups
                && facts.local_size.is_some_and(|[x, _, _]| x % size == 0);
        }
        let mut push = job.push_constants.to_vec();
        push.resize(usize::try_from(push_size).unwrap_or(usize::MAX), 0);
        Ok(Checked {
            key: PipelineKey {
                spirv: job.spirv.to_vec(),
                entry: job.entry.to_string(),
                bindings: n,
                push_size: u32::try_from(push_size).unwrap_or(u32::MAX),
                subgroup_size: job.required_subgroup_size,
                full_subgroups,
                capture_statistics: self.statistics_offered && self.capture.load(Ordering::Relaxed),
                unoptimized: self.unoptimized.load(Ordering::Relaxed),
            },
            sizes,
            push,
        })
    }

    /// Runs one job: checks it against the device's limits, builds (or reuses) its pipeline,
    /// makes and fills its buffers, dispatches, waits at most `job.timeout` and reads back.
    ///
    /// After [`DriverError::Timeout`] the Context is poisoned: the job may still be running
    /// (Vulkan cannot abandon a submitted shader), so its resources are kept, and every later
    /// call fails with [`DriverError::Poisoned`] until the job's fence signals; then they are
    /// freed and the Context works again. A job that never ends keeps it poisoned (and is
    /// leaked on drop): open a new Context to go on.
    pub fn run(&self, job: &ComputeJob<'_>) -> Result<JobResult, DriverError> {
        let checked = self.check(job)?;
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner.try_recover();
        match inner.health {
            Health::Good => {}
            Health::Abandoned(ref why) => return Err(DriverError::Poisoned(why.clone())),
            Health::Lost => return Err(DriverError::DeviceLost),
        }
        let mut resources = JobResources::default();
        let outcome = inner.run_job(job, &checked, &mut resources);
        if matches!(inner.health, Health::Abandoned(_)) {
            // The command buffer may still be executing: destroying what it uses would be a
            // use-after-free on the device. Keep it until the fence signals (`try_recover`).
            inner.abandoned = Some(resources);
            return outcome;
        }
        inner.free(resources);
        let (error, messages) = split(inner.take_messages());
        match outcome {
            Ok(mut result) => {
                if error {
                    result.warnings.extend(messages);
                    return Err(DriverError::Validation(result.warnings));
                }
                result.warnings.extend(messages);
                Ok(result)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn devs(list: &[(&str, bool)]) -> Vec<(String, bool)> {
        list.iter().map(|(n, l)| (n.to_string(), *l)).collect()
    }

    #[test]
    fn select_rules() {
        let one = devs(&[("NVIDIA H200", false)]);
        assert_eq!(select(&one, None).unwrap(), 0);
        assert_eq!(select(&one, Some("h200")).unwrap(), 0);
        assert!(matches!(
            select(&one, Some("radv")),
            Err(DriverError::DeviceNotFound { .. })
        ));
        let two = devs(&[("AMD Radeon (RADV)", false), ("llvmpipe (LLVM 15)", true)]);
        assert_eq!(select(&two, None).unwrap(), 1);
        assert_eq!(select(&two, Some("RADV")).unwrap(), 0);
        assert_eq!(select(&two, Some("")).unwrap(), 1);
        let gpus = devs(&[("GPU A", false), ("GPU B", false)]);
        assert!(matches!(
            select(&gpus, None),
            Err(DriverError::DeviceAmbiguous { wanted: None, .. })
        ));
        assert!(matches!(
            select(&gpus, Some("gpu")),
            Err(DriverError::DeviceAmbiguous { .. })
        ));
        assert_eq!(select(&gpus, Some("gpu b")).unwrap(), 1);
        let twins = devs(&[("GPU A", false), ("GPU A", false)]);
        assert_eq!(select(&twins, Some("gpu")).unwrap(), 0);
        assert!(matches!(select(&[], None), Err(DriverError::NoDevice)));
    }

    #[test]
    fn context_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Context>();
    }
}
