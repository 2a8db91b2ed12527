//! Compute pipelines and the per-Context cache of them.

use std::collections::HashMap;
use std::ffi::CString;

use ash::vk;

use crate::error::{DriverError, VkContext};
use crate::instance::{split, Instance};

/// What makes two jobs share a pipeline: the same module words, entry point, layout shape and
/// subgroup requirements. The full words are part of the key, so a hash collision can never
/// hand a job another module's pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub spirv: Vec<u32>,
    pub entry: String,
    pub bindings: u32,
    /// Push-constant range size in bytes (a multiple of 4; 0 for none).
    pub push_size: u32,
    pub subgroup_size: Option<u32>,
    pub full_subgroups: bool,
    /// Create with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR and read the statistics back.
    pub capture_statistics: bool,
    /// Create with VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT.
    pub unoptimized: bool,
}

/// A compute pipeline and the layouts it was made with.
#[derive(Debug)]
pub(crate) struct Pipeline {
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    /// What the driver reported about it ([`PipelineKey::capture_statistics`]).
    pub statistics: Vec<crate::Statistic>,
    last_used: u64,
}

impl Pipeline {
    /// Destroys the pipeline and its layouts.
    ///
    /// The caller guarantees that no submitted work uses them any more.
    pub fn destroy(self, device: &ash::Device) {
        // SAFETY: the handles were created from `device` and (the caller guarantees) are no
        // longer used by any pending command buffer; each is destroyed exactly once here.
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// Creates a compute pipeline for `key`. Returns the pipeline and the validation warnings
/// reported while creating it. With validation on, a module the layer calls invalid is not
/// passed on to pipeline creation (drivers need not survive invalid SPIR-V).
pub(crate) fn create(
    device: &ash::Device,
    instance: &Instance,
    key: &PipelineKey,
) -> Result<(Pipeline, Vec<String>), DriverError> {
    let entry = CString::new(key.entry.as_str())
        .map_err(|_| DriverError::InvalidInput("the entry point name contains a NUL".into()))?;
    let mut warnings = Vec::new();

    let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..key.bindings)
        .map(|i| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let set_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
    // SAFETY: `device` is alive and `set_info` points to live data for the call.
    let set_layout = unsafe { device.create_descriptor_set_layout(&set_info, None) }
        .call("vkCreateDescriptorSetLayout")?;

    let ranges = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(key.push_size)];
    let set_layouts = [set_layout];
    let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    if key.push_size > 0 {
        layout_info = layout_info.push_constant_ranges(&ranges);
    }
    // SAFETY: as above; `set_layout` is a live handle of this device.
    let layout = match unsafe { device.create_pipeline_layout(&layout_info, None) } {
        Ok(l) => l,
        Err(r) => {
            // SAFETY: created above, unused by anything else.
            unsafe { device.destroy_descriptor_set_layout(set_layout, None) };
            return Err(DriverError::vk("vkCreatePipelineLayout", r));
        }
    };
    let destroy_layouts = || {
        // SAFETY: both were created above and nothing else holds them.
        unsafe {
            device.destroy_pipeline_layout(layout, None);
            device.destroy_descriptor_set_layout(set_layout, None);
        }
    };

    // Messages so far concern the layouts (this crate's doing), not the module.
    let (error, messages) = split(instance.take_messages());
    if error {
        destroy_layouts();
        return Err(DriverError::Validation(messages));
    }
    warnings.extend(messages);
    let module_info = vk::ShaderModuleCreateInfo::default().code(&key.spirv);
    // SAFETY: the words passed `spirv::inspect` (header, instruction bounds, entry point);
    // `module_info` points to live data for the call.
    let module = match unsafe { device.create_shader_module(&module_info, None) } {
        Ok(m) => m,
        Err(r) => {
            destroy_layouts();
            let (_, messages) = split(instance.take_messages());
            return Err(match r {
                vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
                    DriverError::vk("vkCreateShaderModule", r)
                }
                r => DriverError::ShaderRejected {
                    result: Some(r),
                    reason: "the driver refused the shader module".into(),
                    messages,
                },
            });
        }
    };
    let destroy_module = || {
        // SAFETY: created above; a module may be destroyed once its pipeline exists.
        unsafe { device.destroy_shader_module(module, None) };
    };
    let (error, messages) = split(instance.take_messages());
    if error {
        destroy_module();
        destroy_layouts();
        return Err(DriverError::ShaderRejected {
            result: None,
            reason: "the validation layer found the SPIR-V module invalid".into(),
            messages,
        });
    }
    warnings.extend(messages);

    let mut size_info = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
        .required_subgroup_size(key.subgroup_size.unwrap_or(0));
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(&entry);
    if key.subgroup_size.is_some() {
        stage = stage.push_next(&mut size_info);
    }
    if key.full_subgroups {
        stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
    }
    let mut flags = vk::PipelineCreateFlags::empty();
    if key.capture_statistics {
        flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
    }
    if key.unoptimized {
        flags |= vk::PipelineCreateFlags::DISABLE_OPTIMIZATION;
    }
    let create_info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .flags(flags)
        .layout(layout)];
    // SAFETY: module, layout and every chained struct are live; one create info, so at most
    // one pipeline comes back.
    let created =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &create_info, None) };
    destroy_module();
    let pipeline = match created {
        Ok(p) => p.into_iter().next(),
        Err((partial, r)) => {
            for p in partial.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                // SAFETY: a pipeline handle returned by the failed call; never used.
                unsafe { device.destroy_pipeline(p, None) };
            }
            destroy_layouts();
            let (_, messages) = split(instance.take_messages());
            return Err(match r {
                vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
                    DriverError::vk("vkCreateComputePipelines", r)
                }
                r => DriverError::ShaderRejected {
                    result: Some(r),
                    reason: "the driver could not create a compute pipeline from the module".into(),
                    messages,
                },
            });
        }
    };
    let Some(pipeline) = pipeline.filter(|p| *p != vk::Pipeline::null()) else {
        destroy_layouts();
        return Err(DriverError::Internal(
            "vkCreateComputePipelines succeeded without a pipeline".into(),
        ));
    };
    let statistics = if key.capture_statistics {
        statistics(device, instance, pipeline)
    } else {
        Vec::new()
    };
    let made = Pipeline {
        set_layout,
        layout,
        pipeline,
        statistics,
        last_used: 0,
    };
    let (error, messages) = split(instance.take_messages());
    if error {
        made.destroy(device);
        return Err(DriverError::ShaderRejected {
            result: None,
            reason: "the validation layer reported errors creating the compute pipeline".into(),
            messages,
        });
    }
    warnings.extend(messages);
    Ok((made, warnings))
}

/// Pipelines kept between jobs, least recently used evicted first.
#[derive(Debug)]
pub(crate) struct PipelineCache {
    map: HashMap<PipelineKey, Pipeline>,
    capacity: usize,
    clock: u64,
}

impl PipelineCache {
    pub fn new(capacity: usize) -> Self {
        PipelineCache {
            map: HashMap::new(),
            capacity,
            clock: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The cached pipeline for `key`, marked as just used.
    pub fn get(&mut self, key: &PipelineKey) -> Option<&Pipeline> {
        self.clock += 1;
        let now = self.clock;
        self.map.get_mut(key).map(|p| {
            p.last_used = now;
            &*p
        })
    }

    /// Keeps `pipeline` (evicting the least recently used one when full). Returns it back when
    /// the cache keeps nothing (capacity 0), for the caller to destroy after use.
    pub fn insert(
        &mut self,
        device: &ash::Device,
        key: PipelineKey,
        mut pipeline: Pipeline,
    ) -> Option<Pipeline> {
        if self.capacity == 0 {
            return Some(pipeline);
        }
        while self.map.len() >= self.capacity {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, p)| p.last_used)
                .map(|(k, _)| k.clone());
            match oldest.and_then(|k| self.map.remove(&k)) {
                Some(old) => old.destroy(device),
                None => break,
            }
        }
        self.clock += 1;
        pipeline.last_used = self.clock;
        if let Some(old) = self.map.insert(key, pipeline) {
            old.destroy(device);
        }
        None
    }

    /// Destroys every cached pipeline.
    pub fn clear(&mut self, device: &ash::Device) {
        for (_, p) in self.map.drain() {
            p.destroy(device);
        }
    }
}

/// The statistics the driver captured for `pipeline` (created with the capture flag on a device with
/// VK_KHR_pipeline_executable_properties enabled); a query that fails gives what came before it.
fn statistics(
    device: &ash::Device,
    instance: &Instance,
    pipeline: vk::Pipeline,
) -> Vec<crate::Statistic> {
    let ext = ash::khr::pipeline_executable_properties::Device::new(&instance.instance, device);
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    // SAFETY: the pipeline is live and was created with the capture flag on a device that enabled
    // the extension and its feature.
    let Ok(executables) = (unsafe { ext.get_pipeline_executable_properties(&info) }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, e) in executables.iter().enumerate() {
        let executable = e
            .name_as_c_str()
            .map_or_else(|_| format!("#{i}"), |n| n.to_string_lossy().into_owned());
        let which = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(i as u32);
        // SAFETY: as above; `i` is an index the driver returned.
        let Ok(stats) = (unsafe { ext.get_pipeline_executable_statistics(&which) }) else {
            continue;
        };
        for st in stats {
            use vk::PipelineExecutableStatisticFormatKHR as F;
            // SAFETY: the union member read is the one `format` names.
            let value = unsafe {
                match st.format {
                    F::BOOL32 => (st.value.b32 != 0).to_string(),
                    F::INT64 => st.value.i64.to_string(),
                    F::UINT64 => st.value.u64.to_string(),
                    _ => st.value.f64.to_string(),
                }
            };
            let name = st
                .name_as_c_str()
                .map_or_else(|_| "?".into(), |n| n.to_string_lossy().into_owned());
            out.push(crate::Statistic {
                executable: executable.clone(),
                name,
                value,
            });
        }
    }
    out
}
