//! What a physical device is and can do: [`DeviceInfo`] and its parts.

use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::fmt;

use ash::vk;

use crate::error::{DriverError, VkContext};

/// A Vulkan version (`VK_MAKE_API_VERSION` without the variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ApiVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

impl ApiVersion {
    pub(crate) fn from_raw(v: u32) -> Self {
        ApiVersion {
            major: vk::api_version_major(v),
            minor: vk::api_version_minor(v),
            patch: vk::api_version_patch(v),
        }
    }

    /// True when this version is at least `major.minor`.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// `VkPhysicalDeviceType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// `VK_PHYSICAL_DEVICE_TYPE_OTHER` (or a value this crate does not know).
    Other,
    /// An integrated GPU.
    IntegratedGpu,
    /// A discrete GPU.
    DiscreteGpu,
    /// A virtual GPU.
    VirtualGpu,
    /// A CPU implementation (lavapipe, SwiftShader).
    Cpu,
}

impl DeviceType {
    fn from_vk(t: vk::PhysicalDeviceType) -> Self {
        match t {
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
            vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
            _ => DeviceType::Other,
        }
    }
}

/// Which subgroup operation classes are supported (`VkSubgroupFeatureFlags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SubgroupOperations {
    /// `VK_SUBGROUP_FEATURE_BASIC_BIT`.
    pub basic: bool,
    /// `VK_SUBGROUP_FEATURE_VOTE_BIT`.
    pub vote: bool,
    /// `VK_SUBGROUP_FEATURE_ARITHMETIC_BIT`.
    pub arithmetic: bool,
    /// `VK_SUBGROUP_FEATURE_BALLOT_BIT`.
    pub ballot: bool,
    /// `VK_SUBGROUP_FEATURE_SHUFFLE_BIT`.
    pub shuffle: bool,
    /// `VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT`.
    pub shuffle_relative: bool,
    /// `VK_SUBGROUP_FEATURE_CLUSTERED_BIT`.
    pub clustered: bool,
    /// `VK_SUBGROUP_FEATURE_QUAD_BIT`.
    pub quad: bool,
    /// The raw flags, including bits this crate does not name.
    pub raw: u32,
}

impl SubgroupOperations {
    fn from_vk(f: vk::SubgroupFeatureFlags) -> Self {
        SubgroupOperations {
            basic: f.contains(vk::SubgroupFeatureFlags::BASIC),
            vote: f.contains(vk::SubgroupFeatureFlags::VOTE),
            arithmetic: f.contains(vk::SubgroupFeatureFlags::ARITHMETIC),
            ballot: f.contains(vk::SubgroupFeatureFlags::BALLOT),
            shuffle: f.contains(vk::SubgroupFeatureFlags::SHUFFLE),
            shuffle_relative: f.contains(vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE),
            clustered: f.contains(vk::SubgroupFeatureFlags::CLUSTERED),
            quad: f.contains(vk::SubgroupFeatureFlags::QUAD),
            raw: f.as_raw(),
        }
    }
}

/// Subgroup facts (`VkPhysicalDeviceSubgroupProperties`, Vulkan 1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubgroupInfo {
    /// `subgroupSize`: the default number of invocations in a subgroup.
    pub size: u32,
    /// `subgroupSupportedStages` includes the compute stage.
    pub supported_in_compute: bool,
    /// `subgroupSupportedStages` as raw `VkShaderStageFlags`.
    pub supported_stages_raw: u32,
    /// `subgroupSupportedOperations`.
    pub operations: SubgroupOperations,
    /// `subgroupQuadOperationsInAllStages`.
    pub quad_operations_in_all_stages: bool,
    /// Subgroup size control (Vulkan 1.3 or `VK_EXT_subgroup_size_control`), when present.
    pub size_control: Option<SubgroupSizeControl>,
}

/// `VkPhysicalDeviceSubgroupSizeControlProperties`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubgroupSizeControl {
    /// `minSubgroupSize`.
    pub min_size: u32,
    /// `maxSubgroupSize`.
    pub max_size: u32,
    /// `maxComputeWorkgroupSubgroups`.
    pub max_compute_workgroup_subgroups: u32,
    /// `requiredSubgroupSizeStages` includes the compute stage.
    pub required_size_in_compute: bool,
}

/// The limits that matter to compute jobs (`VkPhysicalDeviceLimits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeLimits {
    /// `maxComputeSharedMemorySize` in bytes.
    pub max_compute_shared_memory_size: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_compute_work_group_invocations: u32,
    /// `maxComputeWorkGroupSize`.
    pub max_compute_work_group_size: [u32; 3],
    /// `maxComputeWorkGroupCount`.
    pub max_compute_work_group_count: [u32; 3],
    /// `maxStorageBufferRange` in bytes: the largest buffer a job may bind.
    pub max_storage_buffer_range: u32,
    /// `maxPushConstantsSize` in bytes.
    pub max_push_constants_size: u32,
    /// `maxPerStageDescriptorStorageBuffers`.
    pub max_per_stage_descriptor_storage_buffers: u32,
    /// `maxDescriptorSetStorageBuffers`.
    pub max_descriptor_set_storage_buffers: u32,
    /// `minStorageBufferOffsetAlignment` in bytes.
    pub min_storage_buffer_offset_alignment: u64,
}

/// Float controls independence (`VkShaderFloatControlsIndependence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Independence {
    /// Only 32-bit floats may be set apart from the other widths.
    Only32Bit,
    /// Every width may be set independently.
    All,
    /// All widths must use the same setting.
    None,
}

impl Independence {
    fn from_vk(i: vk::ShaderFloatControlsIndependence) -> Self {
        match i {
            vk::ShaderFloatControlsIndependence::TYPE_32_ONLY => Independence::Only32Bit,
            vk::ShaderFloatControlsIndependence::ALL => Independence::All,
            _ => Independence::None,
        }
    }
}

/// One boolean per float width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PerWidth {
    /// For 16-bit floats.
    pub f16: bool,
    /// For 32-bit floats.
    pub f32: bool,
    /// For 64-bit floats.
    pub f64: bool,
}

/// `VkPhysicalDeviceFloatControlsProperties` (Vulkan 1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatControls {
    /// `denormBehaviorIndependence`.
    pub denorm_behavior_independence: Independence,
    /// `roundingModeIndependence`.
    pub rounding_mode_independence: Independence,
    /// `shaderSignedZeroInfNanPreserveFloat{16,32,64}`.
    pub signed_zero_inf_nan_preserve: PerWidth,
    /// `shaderDenormPreserveFloat{16,32,64}`.
    pub denorm_preserve: PerWidth,
    /// `shaderDenormFlushToZeroFloat{16,32,64}`.
    pub denorm_flush_to_zero: PerWidth,
    /// `shaderRoundingModeRTEFloat{16,32,64}`.
    pub rounding_rte: PerWidth,
    /// `shaderRoundingModeRTZFloat{16,32,64}`.
    pub rounding_rtz: PerWidth,
}

/// Device features that compute jobs care about. In [`DeviceInfo::features`] a flag means
/// supported; in [`DeviceInfo::enabled_features`] it means enabled on the open device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// `shaderInt64`.
    pub shader_int64: bool,
    /// `shaderInt16`.
    pub shader_int16: bool,
    /// `shaderInt8` (Vulkan 1.2).
    pub shader_int8: bool,
    /// `shaderFloat64`.
    pub shader_float64: bool,
    /// `shaderFloat16` (Vulkan 1.2).
    pub shader_float16: bool,
    /// `storageBuffer8BitAccess` (Vulkan 1.2).
    pub storage_buffer_8bit_access: bool,
    /// `storageBuffer16BitAccess` (Vulkan 1.1).
    pub storage_buffer_16bit_access: bool,
    /// `shaderBufferInt64Atomics` (Vulkan 1.2).
    pub shader_buffer_int64_atomics: bool,
    /// `shaderSharedInt64Atomics` (Vulkan 1.2).
    pub shader_shared_int64_atomics: bool,
    /// `vulkanMemoryModel` (Vulkan 1.2).
    pub vulkan_memory_model: bool,
    /// `vulkanMemoryModelDeviceScope` (Vulkan 1.2).
    pub vulkan_memory_model_device_scope: bool,
    /// `subgroupSizeControl` (Vulkan 1.3 or `VK_EXT_subgroup_size_control`).
    pub subgroup_size_control: bool,
    /// `computeFullSubgroups` (Vulkan 1.3 or `VK_EXT_subgroup_size_control`).
    pub compute_full_subgroups: bool,
}

/// Everything this crate reports about one physical device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// Position in the loader's enumeration order.
    pub index: usize,
    /// `deviceName`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// `driverName` (`VkPhysicalDeviceDriverProperties`), empty when not reported.
    pub driver_name: String,
    /// `driverInfo`, e.g. `Mesa 22.3.6 (LLVM 15.0.6)`, empty when not reported.
    pub driver_info: String,
    /// `driverID` as its raw `VkDriverId` value (0 when not reported); see
    /// [`DeviceInfo::is_lavapipe`].
    pub driver_id: i32,
    /// `vendorID`.
    pub vendor_id: u32,
    /// `deviceID`.
    pub device_id: u32,
    /// `deviceType`.
    pub device_type: DeviceType,
    /// `apiVersion`: the Vulkan version the device supports.
    pub api_version: ApiVersion,
    /// `driverVersion`, raw (its encoding is vendor-specific).
    pub driver_version: u32,
    /// Subgroup facts; `None` on a Vulkan 1.0 device.
    pub subgroup: Option<SubgroupInfo>,
    /// Compute limits.
    pub limits: ComputeLimits,
    /// Float controls; `None` before Vulkan 1.2.
    pub float_controls: Option<FloatControls>,
    /// Supported features.
    pub features: Features,
    /// The features enabled on the open device: `Some` in [`crate::Context::info`], `None`
    /// from [`crate::list_devices`].
    pub enabled_features: Option<Features>,
}

impl DeviceInfo {
    /// True for Mesa's lavapipe (llvmpipe) CPU device.
    pub fn is_lavapipe(&self) -> bool {
        self.driver_id == vk::DriverId::MESA_LLVMPIPE.as_raw()
            || self.name.to_ascii_lowercase().contains("llvmpipe")
            || self.driver_name.to_ascii_lowercase().contains("llvmpipe")
    }

    /// True for NVIDIA's proprietary driver.
    pub fn is_nvidia(&self) -> bool {
        self.driver_id == vk::DriverId::NVIDIA_PROPRIETARY.as_raw()
    }

    /// The default subgroup size, when the device reports one.
    pub fn subgroup_size(&self) -> Option<u32> {
        self.subgroup.as_ref().map(|s| s.size)
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:?}, Vulkan {}, {} {}",
            self.name, self.device_type, self.api_version, self.driver_name, self.driver_info
        )?;
        if let Some(s) = self.subgroup_size() {
            write!(f, ", subgroup {s}")?;
        }
        write!(
            f,
            ", shared memory {} bytes)",
            self.limits.max_compute_shared_memory_size
        )
    }
}

/// What [`query`] learns beside the [`DeviceInfo`]: what device creation needs.
pub(crate) struct DeviceFacts {
    pub info: DeviceInfo,
    /// The version actually usable: the smaller of the device's and the instance's.
    pub effective_version: ApiVersion,
    pub extensions: HashSet<CString>,
    /// Subgroup size control comes from `VK_EXT_subgroup_size_control` (device before 1.3).
    pub subgroup_size_control_ext: bool,
}

fn cstr_string(r: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    r.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn b(v: vk::Bool32) -> bool {
    v != vk::FALSE
}

/// Reads everything about one physical device.
pub(crate) fn query(
    instance: &ash::Instance,
    instance_version: ApiVersion,
    pd: vk::PhysicalDevice,
    index: usize,
) -> Result<DeviceFacts, DriverError> {
    // SAFETY: `pd` was enumerated from `instance`, which is alive; the call only reads.
    let props = unsafe { instance.get_physical_device_properties(pd) };
    // SAFETY: as above.
    let ext_props = unsafe { instance.enumerate_device_extension_properties(pd) }
        .call("vkEnumerateDeviceExtensionProperties")?;
    let extensions: HashSet<CString> = ext_props
        .iter()
        .filter_map(|e| e.extension_name_as_c_str().ok().map(CStr::to_owned))
        .collect();
    let has = |name: &CStr| extensions.contains(name);

    let device_version = ApiVersion::from_raw(props.api_version);
    let effective_version = device_version.min(instance_version);
    let v11 = effective_version.at_least(1, 1);
    let v12 = effective_version.at_least(1, 2);
    let v13 = effective_version.at_least(1, 3);
    let size_control_ext = !v13 && v11 && has(ash::ext::subgroup_size_control::NAME);
    let size_control = v13 || size_control_ext;
    let driver_props_ok = v12 || (v11 && has(ash::khr::driver_properties::NAME));
    let float_controls_ok = v12 || (v11 && has(ash::khr::shader_float_controls::NAME));

    let l = &props.limits;
    let limits = ComputeLimits {
        max_compute_shared_memory_size: l.max_compute_shared_memory_size,
        max_compute_work_group_invocations: l.max_compute_work_group_invocations,
        max_compute_work_group_size: l.max_compute_work_group_size,
        max_compute_work_group_count: l.max_compute_work_group_count,
        max_storage_buffer_range: l.max_storage_buffer_range,
        max_push_constants_size: l.max_push_constants_size,
        max_per_stage_descriptor_storage_buffers: l.max_per_stage_descriptor_storage_buffers,
        max_descriptor_set_storage_buffers: l.max_descriptor_set_storage_buffers,
        min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
    };

    let mut info = DeviceInfo {
        index,
        name: cstr_string(props.device_name_as_c_str()),
        driver_name: String::new(),
        driver_info: String::new(),
        driver_id: 0,
        vendor_id: props.vendor_id,
        device_id: props.device_id,
        device_type: DeviceType::from_vk(props.device_type),
        api_version: device_version,
        driver_version: props.driver_version,
        subgroup: None,
        limits,
        float_controls: None,
        features: Features::default(),
        enabled_features: None,
    };

    // SAFETY: `pd` belongs to `instance`, which is alive.
    let core = unsafe { instance.get_physical_device_features(pd) };
    info.features.shader_int64 = b(core.shader_int64);
    info.features.shader_int16 = b(core.shader_int16);
    info.features.shader_float64 = b(core.shader_float64);

    if v11 {
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut float = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut size = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        if driver_props_ok {
            p2 = p2.push_next(&mut driver);
        }
        if float_controls_ok {
            p2 = p2.push_next(&mut float);
        }
        if size_control {
            p2 = p2.push_next(&mut size);
        }
        // SAFETY: the instance is Vulkan 1.1 (checked above), every chained struct is core in
        // the effective version or its extension is present, and all outlive the call.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };

        if driver_props_ok {
            info.driver_name = cstr_string(driver.driver_name_as_c_str());
            info.driver_info = cstr_string(driver.driver_info_as_c_str());
            info.driver_id = driver.driver_id.as_raw();
        }
        info.subgroup = Some(SubgroupInfo {
            size: subgroup.subgroup_size,
            supported_in_compute: subgroup
                .supported_stages
                .contains(vk::ShaderStageFlags::COMPUTE),
            supported_stages_raw: subgroup.supported_stages.as_raw(),
            operations: SubgroupOperations::from_vk(subgroup.supported_operations),
            quad_operations_in_all_stages: b(subgroup.quad_operations_in_all_stages),
            size_control: size_control.then_some(SubgroupSizeControl {
                min_size: size.min_subgroup_size,
                max_size: size.max_subgroup_size,
                max_compute_workgroup_subgroups: size.max_compute_workgroup_subgroups,
                required_size_in_compute: size
                    .required_subgroup_size_stages
                    .contains(vk::ShaderStageFlags::COMPUTE),
            }),
        });
        if float_controls_ok {
            info.float_controls = Some(FloatControls {
                denorm_behavior_independence: Independence::from_vk(
                    float.denorm_behavior_independence,
                ),
                rounding_mode_independence: Independence::from_vk(float.rounding_mode_independence),
                signed_zero_inf_nan_preserve: PerWidth {
                    f16: b(float.shader_signed_zero_inf_nan_preserve_float16),
                    f32: b(float.shader_signed_zero_inf_nan_preserve_float32),
                    f64: b(float.shader_signed_zero_inf_nan_preserve_float64),
                },
                denorm_preserve: PerWidth {
                    f16: b(float.shader_denorm_preserve_float16),
                    f32: b(float.shader_denorm_preserve_float32),
                    f64: b(float.shader_denorm_preserve_float64),
                },
                denorm_flush_to_zero: PerWidth {
                    f16: b(float.shader_denorm_flush_to_zero_float16),
                    f32: b(float.shader_denorm_flush_to_zero_float32),
                    f64: b(float.shader_denorm_flush_to_zero_float64),
                },
                rounding_rte: PerWidth {
                    f16: b(float.shader_rounding_mode_rte_float16),
                    f32: b(float.shader_rounding_mode_rte_float32),
                    f64: b(float.shader_rounding_mode_rte_float64),
                },
                rounding_rtz: PerWidth {
                    f16: b(float.shader_rounding_mode_rtz_float16),
                    f32: b(float.shader_rounding_mode_rtz_float32),
                    f64: b(float.shader_rounding_mode_rtz_float64),
                },
            });
        }

        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default();
        let mut sizef = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if v12 {
            f2 = f2.push_next(&mut f11).push_next(&mut f12);
        } else {
            f2 = f2.push_next(&mut storage16);
        }
        if size_control {
            f2 = f2.push_next(&mut sizef);
        }
        // SAFETY: as for the properties: Vulkan 1.1 instance, supported structs, all alive.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        if v12 {
            info.features.storage_buffer_16bit_access = b(f11.storage_buffer16_bit_access);
            info.features.shader_int8 = b(f12.shader_int8);
            info.features.shader_float16 = b(f12.shader_float16);
            info.features.storage_buffer_8bit_access = b(f12.storage_buffer8_bit_access);
            info.features.shader_buffer_int64_atomics = b(f12.shader_buffer_int64_atomics);
            info.features.shader_shared_int64_atomics = b(f12.shader_shared_int64_atomics);
            info.features.vulkan_memory_model = b(f12.vulkan_memory_model);
            info.features.vulkan_memory_model_device_scope =
                b(f12.vulkan_memory_model_device_scope);
        } else {
            info.features.storage_buffer_16bit_access = b(storage16.storage_buffer16_bit_access);
        }
        if size_control {
            info.features.subgroup_size_control = b(sizef.subgroup_size_control);
            info.features.compute_full_subgroups = b(sizef.compute_full_subgroups);
        }
    }

    Ok(DeviceFacts {
        info,
        effective_version,
        extensions,
        subgroup_size_control_ext: size_control_ext,
    })
}
