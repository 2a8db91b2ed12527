//! Running one job on an open device, and tearing the device down.

use std::time::Instant;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::{AllocationError, MemoryLocation};

use crate::error::{DriverError, VkContext};
use crate::instance::{split, Instance, Message};
use crate::job::{ComputeJob, Init, JobResult};
use crate::pipeline::{self, PipelineCache, PipelineKey};

/// Why a Context runs no more jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Health {
    Good,
    /// A job timed out (or its fence wait failed); its command buffer may still be executing,
    /// so nothing it uses (and nothing of the device) may be destroyed until its fence signals
    /// (`Inner::try_recover`); if it never does, everything is leaked on drop. The text says
    /// what happened.
    Abandoned(String),
    /// The driver reported device loss; objects may still be destroyed.
    Lost,
}

pub(crate) struct Inner {
    // Destruction order is explicit in `teardown`; `instance` is an `Option` so it can be
    // leaked (forgotten) after a timeout.
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub command_pool: vk::CommandPool,
    pub command_buffer: vk::CommandBuffer,
    pub fence: vk::Fence,
    pub allocator: Option<Allocator>,
    pub cache: PipelineCache,
    pub health: Health,
    pub staged: bool,
    pub torn_down: bool,
    /// The resources of a timed-out job, kept until its fence signals (see `try_recover`).
    pub abandoned: Option<JobResources>,
    pub instance: Option<Instance>,
}

/// A buffer made for one job.
struct JobBuffer {
    buffer: vk::Buffer,
    allocation: Option<Allocation>,
}

/// Everything a job creates, freed together once the job is over (or leaked after a timeout).
#[derive(Default)]
pub(crate) struct JobResources {
    buffers: Vec<JobBuffer>,
    descriptor_pool: Option<vk::DescriptorPool>,
    pipeline: Option<pipeline::Pipeline>,
}

pub(crate) fn round_up4(n: u64) -> u64 {
    n.div_ceil(4).saturating_mul(4)
}

pub(crate) fn allocation_error(what: &str, e: AllocationError) -> DriverError {
    match e {
        AllocationError::OutOfMemory => DriverError::OutOfMemory(format!("allocating {what}")),
        AllocationError::NoCompatibleMemoryTypeFound => {
            DriverError::Unsupported(format!("no memory type fits {what}"))
        }
        e => DriverError::Internal(format!("allocating {what}: {e}")),
    }
}

pub(crate) fn fill(dst: &mut [u8], init: &Init<'_>) {
    match init {
        Init::Zero => dst.fill(0),
        Init::Fill(word) => {
            let pattern = word.to_le_bytes();
            for chunk in dst.chunks_mut(4) {
                for (d, s) in chunk.iter_mut().zip(pattern) {
                    *d = s;
                }
            }
        }
        Init::Bytes(src) => {
            let n = src.len().min(dst.len());
            let (head, tail) = dst.split_at_mut(n);
            for (d, s) in head.iter_mut().zip(src.iter()) {
                *d = *s;
            }
            tail.fill(0);
        }
    }
}

/// Checks of a job against the device, done before anything is created or submitted.
pub(crate) struct Checked {
    pub key: PipelineKey,
    /// Per buffer: (requested size, allocated size).
    pub sizes: Vec<(u64, u64)>,
    pub push: Vec<u8>,
}

impl Inner {
    pub fn take_messages(&self) -> Vec<Message> {
        self.instance
            .as_ref()
            .map(Instance::take_messages)
            .unwrap_or_default()
    }

    fn allocator(&mut self) -> Result<&mut Allocator, DriverError> {
        self.allocator
            .as_mut()
            .ok_or_else(|| DriverError::Internal("the allocator is gone".into()))
    }

    /// Makes a buffer with memory bound, recorded in `resources` so it is freed with them.
    fn make_buffer(
        &mut self,
        resources: &mut JobResources,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<usize, DriverError> {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: the device is live and `size` is above 0 (checked by the caller).
        let buffer = unsafe { self.device.create_buffer(&info, None) }.call("vkCreateBuffer")?;
        resources.buffers.push(JobBuffer {
            buffer,
            allocation: None,
        });
        let index = resources.buffers.len() - 1;
        // SAFETY: `buffer` was created from this device.
        let requirements = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let allocation = self
            .allocator()?
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| allocation_error(name, e))?;
        // SAFETY: `memory()` is the allocation's live VkDeviceMemory (the documented use of
        // this accessor); the offset and size come from the allocator for these requirements.
        let bound = unsafe {
            self.device
                .bind_buffer_memory(buffer, allocation.memory(), allocation.offset())
        };
        if let Some(slot) = resources.buffers.last_mut() {
            slot.allocation = Some(allocation);
        }
        bound.call("vkBindBufferMemory")?;
        Ok(index)
    }

    fn mapped(
        resources: &mut JobResources,
        index: usize,
        len: u64,
    ) -> Result<&mut [u8], DriverError> {
        let len = usize::try_from(len).map_err(|_| {
            DriverError::OutOfMemory("a buffer larger than the address space".into())
        })?;
        resources
            .buffers
            .get_mut(index)
            .and_then(|b| b.allocation.as_mut())
            .and_then(|a| a.mapped_slice_mut())
            .and_then(|s| s.get_mut(..len))
            .ok_or_else(|| DriverError::Internal("a host-visible buffer is not mapped".into()))
    }

    fn buffer(resources: &JobResources, index: usize) -> vk::Buffer {
        resources
            .buffers
            .get(index)
            .map_or(vk::Buffer::null(), |b| b.buffer)
    }

    pub fn run_job(
        &mut self,
        job: &ComputeJob<'_>,
        checked: &Checked,
        resources: &mut JobResources,
    ) -> Result<JobResult, DriverError> {
        let mut warnings = Vec::new();

        // The pipeline: cached, or made now (and cached, or kept in `resources`).
        let made_at = Instant::now();
        let cached = self
            .cache
            .get(&checked.key)
            .map(|p| ((p.set_layout, p.layout, p.pipeline), p.statistics.clone()));
        let ((set_layout, layout, pipeline), statistics) = match cached {
            Some(found) => found,
            None => {
                let instance = self
                    .instance
                    .as_ref()
                    .ok_or_else(|| DriverError::Internal("instance missing".into()))?;
                let (made, w) = pipeline::create(&self.device, instance, &checked.key)?;
                warnings.extend(w);
                let handles = (made.set_layout, made.layout, made.pipeline);
                let statistics = made.statistics.clone();
                resources.pipeline = self.cache.insert(&self.device, checked.key.clone(), made);
                (handles, statistics)
            }
        };
        let pipeline_time = made_at.elapsed();

        // Buffers: the bound ones, then staging for upload and read-back where staged.
        let storage_usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::TRANSFER_SRC;
        let mut bound = Vec::with_capacity(job.buffers.len());
        let mut uploads = Vec::new();
        let mut downloads = Vec::new();
        for (i, (spec, &(size, alloc_size))) in job.buffers.iter().zip(&checked.sizes).enumerate() {
            let name = format!("binding {i}");
            // A zero-size binding is a zeroed dummy buffer, whatever its `init` says.
            let init = if size == 0 { Init::Zero } else { spec.init };
            if self.staged {
                let b = self.make_buffer(
                    resources,
                    &name,
                    alloc_size,
                    storage_usage,
                    MemoryLocation::GpuOnly,
                )?;
                bound.push(b);
                match init {
                    Init::Bytes(_) => {
                        let up = self.make_buffer(
                            resources,
                            &format!("upload {i}"),
                            alloc_size,
                            vk::BufferUsageFlags::TRANSFER_SRC,
                            MemoryLocation::CpuToGpu,
                        )?;
                        fill(Inner::mapped(resources, up, alloc_size)?, &init);
                        uploads.push((b, Some(up), 0u32, alloc_size));
                    }
                    Init::Zero => uploads.push((b, None, 0, alloc_size)),
                    Init::Fill(word) => uploads.push((b, None, word, alloc_size)),
                }
                if spec.read_back {
                    let down = self.make_buffer(
                        resources,
                        &format!("read-back {i}"),
                        alloc_size,
                        vk::BufferUsageFlags::TRANSFER_DST,
                        MemoryLocation::GpuToCpu,
                    )?;
                    downloads.push((i, b, down, size, alloc_size));
                }
            } else {
                let b = self.make_buffer(
                    resources,
                    &name,
                    alloc_size,
                    storage_usage,
                    MemoryLocation::CpuToGpu,
                )?;
                fill(Inner::mapped(resources, b, alloc_size)?, &init);
                bound.push(b);
                if spec.read_back {
                    downloads.push((i, b, b, size, alloc_size));
                }
            }
        }

        // The descriptor set.
        let mut set = None;
        if !bound.is_empty() {
            let count = u32::try_from(bound.len()).unwrap_or(u32::MAX);
            let pool_sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: count,
            }];
            let pool_info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(1)
                .pool_sizes(&pool_sizes);
            // SAFETY: the device is live; the info is valid for the call.
            let pool = unsafe { self.device.create_descriptor_pool(&pool_info, None) }
                .call("vkCreateDescriptorPool")?;
            resources.descriptor_pool = Some(pool);
            let layouts = [set_layout];
            let alloc = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: pool and layout are live objects of this device.
            let sets = unsafe { self.device.allocate_descriptor_sets(&alloc) }
                .call("vkAllocateDescriptorSets")?;
            let s = sets.into_iter().next().ok_or_else(|| {
                DriverError::Internal("vkAllocateDescriptorSets returned nothing".into())
            })?;
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bound
                .iter()
                .zip(&checked.sizes)
                .map(|(&b, &(size, _))| {
                    [vk::DescriptorBufferInfo {
                        buffer: Inner::buffer(resources, b),
                        offset: 0,
                        range: if size == 0 { vk::WHOLE_SIZE } else { size },
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = infos
                .iter()
                .zip(0u32..)
                .map(|(info, binding)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(s)
                        .dst_binding(binding)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(info)
                })
                .collect();
            // SAFETY: the set, buffers and infos are live; the set is not in use.
            unsafe { self.device.update_descriptor_sets(&writes, &[]) };
            set = Some(s);
        }

        // Record.
        let cb = self.command_buffer;
        let d = &self.device;
        // SAFETY: the command buffer is not pending (the previous job's fence was waited on,
        // and a timed-out Context never gets here) and its pool allows resets.
        unsafe { d.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty()) }
            .call("vkResetCommandBuffer")?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: as above; the buffer is in the initial state after the reset.
        unsafe { d.begin_command_buffer(cb, &begin) }.call("vkBeginCommandBuffer")?;
        let barrier = |src_stage, src_access, dst_stage, dst_access| {
            let mb = [vk::MemoryBarrier::default()
                .src_access_mask(src_access)
                .dst_access_mask(dst_access)];
            // SAFETY: `cb` is recording; a global memory barrier has no other requirements.
            unsafe {
                d.cmd_pipeline_barrier(
                    cb,
                    src_stage,
                    dst_stage,
                    vk::DependencyFlags::empty(),
                    &mb,
                    &[],
                    &[],
                )
            };
        };
        let shader_access = vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE;
        if self.staged {
            for &(dst, src, word, len) in &uploads {
                let dst = Inner::buffer(resources, dst);
                match src {
                    Some(src) => {
                        let region = [vk::BufferCopy {
                            src_offset: 0,
                            dst_offset: 0,
                            size: len,
                        }];
                        let src = Inner::buffer(resources, src);
                        // SAFETY: both buffers are live, `len` bytes, with transfer usage.
                        unsafe { d.cmd_copy_buffer(cb, src, dst, &region) };
                    }
                    // SAFETY: `dst` is live with TRANSFER_DST usage; its size is a multiple of 4.
                    None => unsafe { d.cmd_fill_buffer(cb, dst, 0, vk::WHOLE_SIZE, word) },
                }
            }
            barrier(
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                shader_access,
            );
        } else {
            barrier(
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::HOST_WRITE,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                shader_access,
            );
        }
        // SAFETY: `cb` is recording; the pipeline, layout and set are live and compatible
        // (the set was allocated with the pipeline layout's set layout).
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            if let Some(s) = set {
                d.cmd_bind_descriptor_sets(
                    cb,
                    vk::PipelineBindPoint::COMPUTE,
                    layout,
                    0,
                    &[s],
                    &[],
                );
            }
            if !checked.push.is_empty() {
                d.cmd_push_constants(cb, layout, vk::ShaderStageFlags::COMPUTE, 0, &checked.push);
            }
            let [x, y, z] = job.workgroups;
            d.cmd_dispatch(cb, x, y, z);
        }
        if self.staged {
            barrier(
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_READ,
            );
            for &(_, src, dst, _, alloc_size) in &downloads {
                let region = [vk::BufferCopy {
                    src_offset: 0,
                    dst_offset: 0,
                    size: alloc_size,
                }];
                // SAFETY: both buffers are live, `alloc_size` bytes, with transfer usage.
                unsafe {
                    d.cmd_copy_buffer(
                        cb,
                        Inner::buffer(resources, src),
                        Inner::buffer(resources, dst),
                        &region,
                    )
                };
            }
            barrier(
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::HOST_READ,
            );
        } else {
            barrier(
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::HOST_READ,
            );
        }
        // SAFETY: `cb` is recording.
        unsafe { d.end_command_buffer(cb) }.call("vkEndCommandBuffer")?;

        // Submit and wait.
        // SAFETY: the fence is not in use by a pending submission (waited on before).
        unsafe { d.reset_fences(&[self.fence]) }.call("vkResetFences")?;
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        let start = Instant::now();
        // SAFETY: the command buffer is executable; the queue is used under the Context lock
        // only (external synchronisation); the fence is unsignalled.
        let submitted = unsafe { d.queue_submit(self.queue, &submit, self.fence) };
        if let Err(r) = submitted {
            if r == vk::Result::ERROR_DEVICE_LOST {
                self.health = Health::Lost;
            }
            return Err(DriverError::vk("vkQueueSubmit", r));
        }
        let timeout_ns = u64::try_from(job.timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fence belongs to this device.
        let waited = unsafe { d.wait_for_fences(&[self.fence], true, timeout_ns) };
        let elapsed = start.elapsed();
        match waited {
            Ok(()) => {}
            Err(vk::Result::TIMEOUT) => {
                self.health = Health::Abandoned(format!(
                    "an earlier job timed out after {elapsed:?} and may still be running"
                ));
                return Err(DriverError::Timeout { waited: elapsed });
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.health = Health::Lost;
                return Err(DriverError::DeviceLost);
            }
            Err(r) => {
                // The submission's state is unknown: poison and leak as after a timeout.
                self.health = Health::Abandoned(format!(
                    "waiting for an earlier job failed ({r:?}); it may still be running"
                ));
                return Err(DriverError::vk("vkWaitForFences", r));
            }
        }

        // Read back.
        let mut out: Vec<Option<Vec<u8>>> = vec![None; job.buffers.len()];
        for &(i, _, down, size, _) in &downloads {
            let bytes = Inner::mapped(resources, down, size)?.to_vec();
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(bytes);
            }
        }
        Ok(JobResult {
            buffers: out,
            elapsed,
            pipeline_time,
            warnings,
            statistics,
        })
    }

    /// Frees a finished job's resources.
    pub fn free(&mut self, resources: JobResources) {
        let JobResources {
            buffers,
            descriptor_pool,
            pipeline,
        } = resources;
        if let Some(pool) = descriptor_pool {
            // SAFETY: the job's submission has completed (or never happened), so the pool's
            // set is not in use; the pool is destroyed once.
            unsafe { self.device.destroy_descriptor_pool(pool, None) };
        }
        if let Some(p) = pipeline {
            p.destroy(&self.device);
        }
        for b in buffers {
            // SAFETY: as above: no pending work uses the buffer; destroyed once.
            unsafe { self.device.destroy_buffer(b.buffer, None) };
            if let (Some(a), Some(allocator)) = (b.allocation, self.allocator.as_mut()) {
                // An error here means the allocator's own bookkeeping is broken; `close`
                // reports leaks through the allocator's report.
                let _ = allocator.free(a);
            }
        }
    }

    /// After a timed-out job: if its fence has signalled since (the job ended after all),
    /// frees what it used and makes the Context usable again. Cheap: one fence status query.
    pub fn try_recover(&mut self) {
        if !matches!(self.health, Health::Abandoned(_)) {
            return;
        }
        // SAFETY: the fence belongs to this device; querying its status is always valid.
        match unsafe { self.device.get_fence_status(self.fence) } {
            Ok(true) => self.health = Health::Good,
            // Objects of a lost device may be destroyed: nothing runs on it any more.
            Err(vk::Result::ERROR_DEVICE_LOST) => self.health = Health::Lost,
            Ok(false) | Err(_) => return,
        }
        if let Some(resources) = self.abandoned.take() {
            self.free(resources);
        }
        // Whatever validation said about the abandoned job belongs to no later job.
        let _ = self.take_messages();
    }

    /// Destroys every object (or, while a timed-out job may still run, leaks them) and returns
    /// what validation said during teardown.
    pub fn teardown(&mut self) -> Result<(), DriverError> {
        if self.torn_down {
            return Ok(());
        }
        self.torn_down = true;
        self.try_recover();
        if let Health::Abandoned(_) = self.health {
            // The timed-out command buffer may still run on the device (lavapipe keeps
            // executing it on its worker threads): destroying the device, its memory or the
            // instance would pull memory from under it, and waiting for idle might never
            // return. Leak everything instead.
            std::mem::forget(self.abandoned.take());
            std::mem::forget(self.allocator.take());
            std::mem::forget(self.instance.take());
            return Ok(());
        }
        // SAFETY: waiting for idle is always valid; after it nothing is pending (a lost
        // device returns at once, and destroying objects of a lost device is allowed).
        let _ = unsafe { self.device.device_wait_idle() };
        self.cache.clear(&self.device);
        let mut leaked = 0usize;
        if let Some(allocator) = self.allocator.take() {
            leaked = allocator.generate_report().allocations.len();
            drop(allocator);
        }
        // SAFETY: nothing is pending; each object is destroyed once, children before the
        // device (the command buffer goes with its pool).
        unsafe {
            if self.fence != vk::Fence::null() {
                self.device.destroy_fence(self.fence, None);
            }
            if self.command_pool != vk::CommandPool::null() {
                self.device.destroy_command_pool(self.command_pool, None);
            }
            self.device.destroy_device(None);
        }
        let (error, messages) = split(self.take_messages());
        self.instance = None; // destroys the messenger and the instance
        if error {
            return Err(DriverError::Validation(messages));
        }
        if leaked > 0 {
            return Err(DriverError::Internal(format!(
                "{leaked} allocations were still live at teardown"
            )));
        }
        Ok(())
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let _ = self.teardown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_patterns() {
        let mut b = [9u8; 6];
        fill(&mut b, &Init::Fill(0x0403_0201));
        assert_eq!(b, [1, 2, 3, 4, 1, 2]);
        fill(&mut b, &Init::Bytes(&[7, 7]));
        assert_eq!(b, [7, 7, 0, 0, 0, 0]);
        fill(&mut b, &Init::Fill(1));
        fill(&mut b, &Init::Zero);
        assert_eq!(b, [0; 6]);
    }
}
