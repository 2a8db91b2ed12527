//! The builder side: a [`CommandBuffer`] that writes PM4 packets the way the PS5's AGC library lays them out
//! (our own code, from the packet layouts the module docs cite), and [`encode_job`], which expresses a measured
//! job as a submission and the guest memory it runs in.

use super::cp::{CommandProcessor, Config};
use super::memory::{MapError, Memory};
use super::packet::{header, opcode as op, NOP_HEADER_ONLY, TYPE2_FILLER};
use super::regs::{self, field, RSRC1_FIELDS, RSRC2_FIELDS};
use super::Engine;
use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::kernel::Abi;

/// COMPUTE_DISPATCH_INITIATOR.COMPUTE_SHADER_EN.
pub const COMPUTE_SHADER_EN: u32 = 1 << 0;
/// COMPUTE_DISPATCH_INITIATOR.FORCE_START_AT_000.
pub const FORCE_START_AT_000: u32 = 1 << 2;
/// COMPUTE_DISPATCH_INITIATOR.USE_THREAD_DIMENSIONS.
pub const USE_THREAD_DIMENSIONS: u32 = 1 << 5;
/// COMPUTE_DISPATCH_INITIATOR.ORDER_MODE.
pub const ORDER_MODE: u32 = 1 << 6;
/// COMPUTE_DISPATCH_INITIATOR.CS_W32_EN.
pub const CS_W32_EN: u32 = 1 << 15;

/// EVENT_TYPE CS_PARTIAL_FLUSH (gfx10.json `VGT_EVENT_TYPE`).
pub const CS_PARTIAL_FLUSH: u32 = 0x07;
/// EVENT_TYPE BOTTOM_OF_PIPE_TS.
pub const BOTTOM_OF_PIPE_TS: u32 = 0x28;
/// EVENT_TYPE CS_DONE.
pub const CS_DONE: u32 = 0x2f;

/// A command buffer being written. Every method appends one packet with its exact size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandBuffer {
    engine: Engine,
    words: Vec<u32>,
}

impl CommandBuffer {
    /// An empty buffer for a queue of kind `engine`.
    pub fn new(engine: Engine) -> CommandBuffer {
        CommandBuffer {
            engine,
            words: Vec::new(),
        }
    }

    /// The dwords written so far.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The dwords.
    pub fn into_words(self) -> Vec<u32> {
        self.words
    }

    /// Dwords written so far.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True before the first packet.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// A type-3 packet of `opcode` with `body`; `compute` sets SHADER_TYPE on the graphics ring.
    fn packet(&mut self, opcode: u8, body: &[u32], compute: bool) -> &mut Self {
        let mut h = header(opcode, body.len() + 1);
        if compute && self.engine == Engine::Graphics {
            h |= 2;
        }
        self.words.push(h);
        self.words.extend_from_slice(body);
        self
    }

    /// A NOP with `payload` (1 to 0x3fff dwords), or the header-only NOP when `payload` is empty.
    pub fn nop(&mut self, payload: &[u32]) -> &mut Self {
        if payload.is_empty() {
            self.words.push(NOP_HEADER_ONLY);
            self
        } else {
            self.packet(op::NOP, payload, false)
        }
    }

    /// A type-2 filler dword.
    pub fn filler(&mut self) -> &mut Self {
        self.words.push(TYPE2_FILLER);
        self
    }

    /// SET_SH_REG: `values` into consecutive SH registers from `start` (dwords from the SH base).
    pub fn set_sh_regs(&mut self, start: u16, values: &[u32]) -> &mut Self {
        let mut body = vec![u32::from(start)];
        body.extend_from_slice(values);
        self.packet(op::SET_SH_REG, &body, false)
    }

    /// SET_SH_REG_INDEX with INDEX `index`.
    pub fn set_sh_regs_index(&mut self, start: u16, index: u32, values: &[u32]) -> &mut Self {
        let mut body = vec![u32::from(start) | (index << 28)];
        body.extend_from_slice(values);
        self.packet(op::SET_SH_REG_INDEX, &body, false)
    }

    /// AGC's SET_SH_REG_INDIRECT (AMD's LOAD_SH_REG_INDEX, direct address, offset-and-data format): `pairs`
    /// (register offset, value) pairs read from `list` when the packet runs. Five dwords, as
    /// `sceAgcDcbSetShRegistersIndirect` writes them.
    pub fn set_sh_regs_indirect(&mut self, list: u64, pairs: u32) -> &mut Self {
        self.packet(
            op::LOAD_SH_REG_INDEX,
            &[
                list as u32 & !3,
                (list >> 32) as u32,
                0x8000_0000,
                pairs & 0x3fff,
            ],
            false,
        )
    }

    /// LOAD_SH_REG_INDEX in the offset-and-size format: `count` values at `values` into the registers from
    /// `start`.
    pub fn load_sh_regs(&mut self, values: u64, start: u16, count: u32) -> &mut Self {
        self.packet(
            op::LOAD_SH_REG_INDEX,
            &[
                values as u32 & !3,
                (values >> 32) as u32,
                u32::from(start),
                count & 0x3fff,
            ],
            false,
        )
    }

    /// DISPATCH_DIRECT of `groups` workgroups (or threads, with USE_THREAD_DIMENSIONS) with `initiator`.
    pub fn dispatch_direct(&mut self, groups: [u32; 3], initiator: u32) -> &mut Self {
        let [x, y, z] = groups;
        self.packet(op::DISPATCH_DIRECT, &[x, y, z, initiator], true)
    }

    /// DISPATCH_INDIRECT on a compute queue: the group counts are the three dwords at `args`.
    pub fn dispatch_indirect(&mut self, args: u64, initiator: u32) -> &mut Self {
        self.packet(
            op::DISPATCH_INDIRECT,
            &[args as u32, (args >> 32) as u32, initiator],
            true,
        )
    }

    /// DISPATCH_INDIRECT on the graphics ring: the group counts are at `offset` from the SET_BASE index 1 base.
    pub fn dispatch_indirect_offset(&mut self, offset: u32, initiator: u32) -> &mut Self {
        self.packet(op::DISPATCH_INDIRECT, &[offset, initiator], true)
    }

    /// SET_BASE `index` to `address` (graphics ring; index 1 is DISPATCH_INDIRECT's base).
    pub fn set_base(&mut self, index: u32, address: u64) -> &mut Self {
        self.packet(
            op::SET_BASE,
            &[index, address as u32, (address >> 32) as u32],
            false,
        )
    }

    /// INDIRECT_BUFFER: run `dwords` dwords at `address` and come back (a call), or continue there for good
    /// (`chain`). VALID is set, as PAL sets it on a compute queue.
    pub fn indirect_buffer(&mut self, address: u64, dwords: u32, chain: bool) -> &mut Self {
        let valid = match self.engine {
            Engine::Compute => 1 << 23,
            Engine::Graphics => 0,
        };
        self.packet(
            op::INDIRECT_BUFFER,
            &[
                address as u32,
                (address >> 32) as u32,
                (dwords & 0xf_ffff) | (u32::from(chain) << 20) | valid,
            ],
            false,
        )
    }

    /// WRITE_DATA of `data` to consecutive dwords of memory at `address` (DST_SEL 5, write confirmed).
    pub fn write_data(&mut self, address: u64, data: &[u32]) -> &mut Self {
        let mut body = vec![(5 << 8) | (1 << 20), address as u32, (address >> 32) as u32];
        body.extend_from_slice(data);
        self.packet(op::WRITE_DATA, &body, false)
    }

    /// DMA_DATA copying `bytes` bytes from `src` to `dst` (memory to memory through L2).
    pub fn dma_copy(&mut self, src: u64, dst: u64, bytes: u32) -> &mut Self {
        self.packet(
            op::DMA_DATA,
            &[
                (3 << 29) | (3 << 20),
                src as u32,
                (src >> 32) as u32,
                dst as u32,
                (dst >> 32) as u32,
                bytes & 0x3ff_ffff,
            ],
            false,
        )
    }

    /// DMA_DATA filling `bytes` bytes at `dst` with the dword `value` (SRC_SEL DATA).
    pub fn dma_fill(&mut self, dst: u64, value: u32, bytes: u32) -> &mut Self {
        self.packet(
            op::DMA_DATA,
            &[
                (2 << 29) | (3 << 20),
                value,
                0,
                dst as u32,
                (dst >> 32) as u32,
                bytes & 0x3ff_ffff,
            ],
            false,
        )
    }

    /// ACQUIRE_MEM over all of memory with GCR_CNTL `gcr_cntl` (the gfx10 eight-dword form).
    pub fn acquire_mem(&mut self, gcr_cntl: u32) -> &mut Self {
        self.packet(
            op::ACQUIRE_MEM,
            &[0, 0xffff_ffff, 0xff, 0, 0, 10, gcr_cntl & 0x7_ffff],
            false,
        )
    }

    /// RELEASE_MEM of `event_type` writing the 64-bit `value` at `address` once the work before it is done,
    /// with INT_SEL `int_sel` (0: no interrupt). Eight dwords, as AGC writes it: EVENT_INDEX 6 for the
    /// shader-done events (CS_DONE and later), 5 for the end-of-pipe ones.
    pub fn release_mem(
        &mut self,
        event_type: u32,
        address: u64,
        value: u64,
        int_sel: u32,
    ) -> &mut Self {
        let index = if event_type >= CS_DONE { 6 } else { 5 };
        self.packet(
            op::RELEASE_MEM,
            &[
                (event_type & 0x3f) | (index << 8),
                (2 << 29) | ((int_sel & 7) << 24),
                address as u32 & !7,
                (address >> 32) as u32,
                value as u32,
                (value >> 32) as u32,
                0,
            ],
            false,
        )
    }

    /// WAIT_REG_MEM on the dword at `address`: until `(value & mask) function reference` (FUNCTION 3 is
    /// equal).
    pub fn wait_mem(
        &mut self,
        address: u64,
        function: u32,
        reference: u32,
        mask: u32,
    ) -> &mut Self {
        self.packet(
            op::WAIT_REG_MEM,
            &[
                (function & 7) | (1 << 4),
                address as u32 & !3,
                (address >> 32) as u32,
                reference,
                mask,
                10,
            ],
            false,
        )
    }

    /// WAIT_REG_MEM64 on the 64-bit value at `address`.
    pub fn wait_mem64(
        &mut self,
        address: u64,
        function: u32,
        reference: u64,
        mask: u64,
    ) -> &mut Self {
        self.packet(
            op::WAIT_REG_MEM64,
            &[
                (function & 7) | (1 << 4),
                address as u32 & !7,
                (address >> 32) as u32,
                reference as u32,
                (reference >> 32) as u32,
                mask as u32,
                (mask >> 32) as u32,
                10,
            ],
            false,
        )
    }

    /// EVENT_WRITE of `event_type` with EVENT_INDEX `index` (the two-dword form).
    pub fn event_write(&mut self, event_type: u32, index: u32) -> &mut Self {
        self.packet(
            op::EVENT_WRITE,
            &[(event_type & 0x3f) | ((index & 0xf) << 8)],
            false,
        )
    }
}

/// How [`encode_job`] writes a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// The queue kind.
    pub engine: Engine,
    /// The user SGPRs through AGC's SET_SH_REG_INDIRECT (a register list in memory) instead of SET_SH_REG.
    pub indirect_user_data: bool,
    /// The dispatch through DISPATCH_INDIRECT (group counts in memory) instead of DISPATCH_DIRECT.
    pub indirect_dispatch: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            engine: Engine::Compute,
            indirect_user_data: false,
            indirect_dispatch: false,
        }
    }
}

/// A job written as a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// Guest memory: the job's arrays where the backends place them for the job itself, then the shader, the
    /// command buffers and what they read.
    pub memory: Memory,
    /// Guest address of the submitted command buffer (the IB1).
    pub submission: u64,
    /// Its dwords.
    pub submission_dwords: u32,
    /// Guest address of the command buffer the submission calls (the IB2 with the dispatch).
    pub body: u64,
    /// Its dwords.
    pub body_dwords: u32,
    /// For each array of the job, in memory-list order, the region holding it.
    pub arrays: Vec<String>,
    /// Where the RELEASE_MEM at the end writes its fence, and the value.
    pub fence: (u64, u64),
}

/// Why a job cannot be written as a command buffer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The job needs something a command buffer cannot express.
    #[error("unsupported: {what}: {reason}")]
    Unsupported {
        /// What.
        what: String,
        /// Why.
        reason: String,
    },
    /// The job itself is malformed.
    #[error("invalid job: {0}")]
    Invalid(String),
}

impl EncodeError {
    /// As a backend's error: `Unsupported` or `InvalidJob`.
    pub fn to_backend_error(&self) -> BackendError {
        match self {
            EncodeError::Unsupported { what, reason } => BackendError::Unsupported {
                instruction: what.clone(),
                reason: reason.clone(),
            },
            EncodeError::Invalid(m) => BackendError::InvalidJob(m.clone()),
        }
    }
}

fn unsupported(what: impl Into<String>, reason: impl Into<String>) -> EncodeError {
    EncodeError::Unsupported {
        what: what.into(),
        reason: reason.into(),
    }
}

fn map_error(e: MapError) -> EncodeError {
    EncodeError::Invalid(e.to_string())
}

/// The value the fence is released with.
pub const FENCE_VALUE: u64 = 0x0000_0001_f0e1_d2c3;

/// Lowest address of what the encoder adds after the job's arrays (64 GiB, far above the model's placement from
/// 4 GiB), 1 MiB-aligned.
pub const CP_REGION_BASE: u64 = 0x10_0000_0000;

/// Writes `job` as a submission: an IB1 that calls an IB2 with the state, the user data and the dispatch, a
/// CS_PARTIAL_FLUSH and an end-of-pipe RELEASE_MEM of a fence, then waits for the fence. The arrays are where
/// the backends put them for `job` itself (its own addresses when it fixes them), so a kernel that computes
/// with addresses computes the same through the command processor.
pub fn encode_job(job: &Job, options: &EncodeOptions) -> Result<Encoded, EncodeError> {
    let k = &job.kernel;
    k.validate().map_err(EncodeError::Invalid)?;
    let images = job
        .memory_image()
        .map_err(|e| EncodeError::Invalid(e.to_string()))?;
    let mut placed = reference_model::exec::memory::GuestMemory::new();
    let addresses = reference_model::exec::map_arrays(&mut placed, job, &images)
        .map_err(|e| EncodeError::Invalid(e.to_string()))?;
    let mut memory = Memory::new();
    let mut taken: Vec<String> = Vec::new();
    for (a, &base) in images.iter().zip(&addresses) {
        memory.map(&a.name, base, &a.dwords).map_err(map_error)?;
        taken.push(a.name.clone());
    }
    let mut fresh = |stem: &str| {
        let mut name = stem.to_string();
        let mut n = 1;
        while taken.contains(&name) {
            name = format!("{stem}-{n}");
            n += 1;
        }
        taken.push(name.clone());
        name
    };
    let user = job.user_data(&addresses).map_err(EncodeError::Invalid)?;
    let user = match k.abi {
        Abi::AgcBufferV1 => user,
        Abi::OracleV1 => {
            // The kernel argument segment where the backends put it for the job itself: after the arrays.
            let base = placed.map(
                "kernarg",
                256,
                user.iter().flat_map(|d| d.to_le_bytes()).collect(),
            );
            memory
                .map(&fresh("kernarg"), base, &user)
                .map_err(map_error)?;
            vec![base as u32, (base >> 32) as u32]
        }
    };
    if user.len() > usize::from(regs::USER_DATA_COUNT) {
        return Err(unsupported(
            format!("a launch with {} user SGPRs", user.len()),
            "gfx10 compute has 16 COMPUTE_USER_DATA registers",
        ));
    }
    if k.lds_bytes % super::dispatch::LDS_GRANULE != 0 {
        return Err(unsupported(
            format!("lds_bytes {}", k.lds_bytes),
            "COMPUTE_PGM_RSRC2.LDS_SIZE counts 512-byte granules; the hardware would give the kernel the rounded-up \
             size, a different job",
        ));
    }
    if k.threads > 1024 || k.threads == 0 {
        return Err(EncodeError::Invalid(format!(
            "{} threads per workgroup",
            k.threads
        )));
    }

    // The encoder's own regions, above everything the job maps.
    let highest = memory.regions().iter().map(|r| r.end()).max().unwrap_or(0);
    let mut next = CP_REGION_BASE.max((highest + (2 << 20)) & !((1 << 20) - 1));
    let mut place =
        |memory: &mut Memory, stem: &str, dwords: &[u32]| -> Result<(u64, String), EncodeError> {
            let base = next;
            let name = fresh(stem);
            memory.map(&name, base, dwords).map_err(map_error)?;
            next = (base + dwords.len() as u64 * 4 + 0x1fff) & !0xfff;
            Ok((base, name))
        };
    let (pgm, _) = place(&mut memory, "pm4-code", &k.words())?;
    let (fence, _) = place(&mut memory, "pm4-fence", &[0, 0])?;

    let mut rsrc1 = 0;
    let r1 = |v: u32, name: &str, x: u32| field(RSRC1_FIELDS, name).put(v, x);
    // All 256 VGPRs allocated (VGPRS counts granules of 8 in wave32, 4 in wave64): the job does not say.
    rsrc1 = r1(rsrc1, "VGPRS", if k.wave == 32 { 31 } else { 63 });
    rsrc1 = r1(rsrc1, "FLOAT_MODE", u32::from(job.mode.float_mode));
    rsrc1 = r1(rsrc1, "IEEE_MODE", u32::from(job.mode.ieee));
    rsrc1 = r1(rsrc1, "DX10_CLAMP", u32::from(job.mode.dx10_clamp));
    rsrc1 = r1(rsrc1, "FP16_OVFL", u32::from(job.mode.fp16_ovfl));
    let r2 = |v: u32, name: &str, x: u32| field(RSRC2_FIELDS, name).put(v, x);
    let mut rsrc2 = 0;
    rsrc2 = r2(rsrc2, "USER_SGPR", user.len() as u32);
    rsrc2 = r2(rsrc2, "TGID_X_EN", u32::from(k.tgid[0]));
    rsrc2 = r2(rsrc2, "TGID_Y_EN", u32::from(k.tgid[1]));
    rsrc2 = r2(rsrc2, "TGID_Z_EN", u32::from(k.tgid[2]));
    rsrc2 = r2(
        rsrc2,
        "LDS_SIZE",
        k.lds_bytes / super::dispatch::LDS_GRANULE,
    );
    let initiator = COMPUTE_SHADER_EN | ORDER_MODE | if k.wave == 32 { CS_W32_EN } else { 0 };

    let mut ib = CommandBuffer::new(options.engine);
    // Invalidate the shader caches before the dispatch reads memory (GCR_CNTL: GLK_INV, GLV_INV, GL1_INV,
    // GL2_INV).
    ib.acquire_mem(0x4380)
        .set_sh_regs(regs::PGM_LO, &[(pgm >> 8) as u32, (pgm >> 40) as u32])
        .set_sh_regs(regs::PGM_RSRC1, &[rsrc1, rsrc2])
        .set_sh_regs(regs::RESOURCE_LIMITS, &[0])
        .set_sh_regs(regs::TMPRING_SIZE, &[0])
        .set_sh_regs(regs::PGM_RSRC3, &[0])
        .set_sh_regs(regs::START_X, &[0, 0, 0, k.threads, 1, 1]);
    if !user.is_empty() {
        if options.indirect_user_data {
            let pairs: Vec<u32> = (regs::USER_DATA_0..)
                .zip(&user)
                .flat_map(|(o, v)| [u32::from(o), *v])
                .collect();
            let (list, _) = place(&mut memory, "pm4-user-data", &pairs)?;
            ib.set_sh_regs_indirect(list, user.len() as u32);
        } else {
            ib.set_sh_regs(regs::USER_DATA_0, &user);
        }
    }
    let [gx, gy, gz] = k.grid;
    if options.indirect_dispatch {
        let (args, _) = place(&mut memory, "pm4-dispatch-args", &[gx, gy, gz])?;
        match options.engine {
            Engine::Compute => ib.dispatch_indirect(args, initiator),
            Engine::Graphics => ib.set_base(1, args).dispatch_indirect_offset(0, initiator),
        };
    } else {
        ib.dispatch_direct(k.grid, initiator);
    }
    ib.event_write(CS_PARTIAL_FLUSH, 4)
        .release_mem(BOTTOM_OF_PIPE_TS, fence, FENCE_VALUE, 0);
    let body_dwords = ib.len() as u32;
    let (body, _) = place(&mut memory, "pm4-ib", ib.words())?;
    let mut top = CommandBuffer::new(options.engine);
    top.indirect_buffer(body, body_dwords, false)
        .wait_mem64(fence, 3, FENCE_VALUE, u64::MAX);
    let submission_dwords = top.len() as u32;
    let (submission, _) = place(&mut memory, "pm4-submission", top.words())?;
    Ok(Encoded {
        memory,
        submission,
        submission_dwords,
        body,
        body_dwords,
        arrays: images.iter().map(|a| a.name.clone()).collect(),
        fence: (fence, FENCE_VALUE),
    })
}

/// Runs `job` through the PM4 path: [`encode_job`], then the command processor runs the submission with
/// `backend` for the dispatch, and the job's arrays are read back from guest memory. The result is what
/// `backend.run(job)` returns when the command processor carries the job over exactly; an error of the
/// backend comes back unchanged, the encoder's and the command processor's as `Unsupported`, `Fault` or
/// `InvalidJob`.
pub fn run_job(
    job: &Job,
    backend: &dyn Backend,
    options: &EncodeOptions,
) -> Result<JobOutput, BackendError> {
    let e = encode_job(job, options).map_err(|e| e.to_backend_error())?;
    let mut cp = CommandProcessor::new(
        e.memory,
        Config {
            engine: options.engine,
            target: job.target.clone(),
            ..Config::default()
        },
    );
    cp.submit(e.submission, e.submission_dwords, backend)
        .map_err(|err| err.to_backend_error())?;
    let ran = cp.report().dispatches.iter().filter(|d| d.ran).count();
    let fence = cp
        .memory()
        .read_dwords(e.fence.0, 2)
        .map(|d| d.iter().rev().fold(0u64, |v, x| (v << 32) | u64::from(*x)));
    if ran != 1 || fence != Ok(e.fence.1) {
        return Err(BackendError::InvalidJob(format!(
            "the command buffer ran {ran} dispatches and its fence holds {fence:?}; one dispatch and {:#x} were \
             written",
            e.fence.1
        )));
    }
    let arrays = e
        .arrays
        .iter()
        .map(|name| {
            let r = cp.memory().region(name).ok_or_else(|| {
                BackendError::InvalidJob(format!("region `{name}` left guest memory"))
            })?;
            Ok((name.clone(), r.dwords()))
        })
        .collect::<Result<Vec<_>, BackendError>>()?;
    Ok(job.output_from(arrays))
}
