//! The wave interpreter: runs a [`Job`] the way gfx10 hardware does and returns the final contents of its
//! arrays, from which each row reads its own placement.
//!
//! A dispatch is laid out as the job's ABI says ([`run_job`]): arrays mapped into [`memory::GuestMemory`],
//! user SGPRs, workgroup ids and v0 initialised, EXEC set to the lanes that exist. Workgroups run one after
//! another; the waves of a workgroup share LDS and run round-robin, each until it ends or reaches
//! `s_barrier`, and a barrier releases when every live wave of the group has reached it.
//!
//! An instruction the model does not implement stops the job with [`BackendError::Unsupported`] naming it and
//! its word index, and so does a launch with more user SGPRs than the hardware has ([`MAX_USER_SGPRS`]); an
//! access outside every mapped region is a [`BackendError::Fault`]. A job that runs into one of its
//! [`Limits`] is a [`BackendError::Timeout`] carrying the figures: a wave past its own instruction budget
//! ([`Limits::instructions`], a runaway loop), the whole dispatch past its budget
//! ([`Limits::dispatch_instructions`]: 2^20 one-lane workgroups may each stay under the wave budget and still
//! run for hours) or the job past its wall-clock limit ([`Limits::wall_clock`], checked every
//! [`CLOCK_CHECK_INTERVAL`] instructions and before each workgroup, so the clock costs nothing measurable).
//! Nothing is guessed.
//!
//! A [`Program`] decodes each word index once, the first time a wave reaches it, into a compact form (`fast`):
//! the VALU field check done, the common integer, compare, select and f32 operations with their operands
//! resolved (run as one loop over whole register rows, a plain copy when EXEC is all ones), the common scalar
//! operations and branches resolved, and everything else routed to the general paths, the memory instructions
//! by their typed facts ([`facts::MemFacts`]). No mnemonic text is read while a program runs.

pub mod buffer;
mod ctx;
pub mod facts;
mod fast;
mod fields;
pub mod format;
mod lds;
mod mem_ops;
pub mod memory;
mod salu;
pub mod state;
mod valu;
mod vfloat;

use crate::isa::{self, Instruction, Target};
use measurements::job::{BackendError, Job, JobOutput, TimeLimit};
use measurements::kernel::Abi;
use memory::{bytes_to_dwords, dwords_to_bytes, GuestMemory};
use state::Wave;
use std::time::{Duration, Instant};

pub use ctx::Ctx;
pub use mem_ops::ds_plain_access;

/// User SGPRs the model loads for an `agc-buffer-v1` launch, s0 upwards: as many as the hardware, whose compute
/// launch sets them from the 16 COMPUTE_USER_DATA registers. A job with more is `Unsupported`, not loaded past
/// what a PS5 could launch.
pub const MAX_USER_SGPRS: usize = 16;

/// How often, in instructions of the dispatch, the model reads the clock for [`Limits::wall_clock`]: reading
/// it costs about as much as a simple instruction, so once every 4,096 keeps it out of the profile while the
/// limit is still met within a millisecond or so (the model runs millions of instructions a second).
pub const CLOCK_CHECK_INTERVAL: u64 = 4096;

/// Execution limits of one job. Every bound that runs out ends the job with [`BackendError::Timeout`] and
/// its figures.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Instructions one wave may execute (a runaway loop ends here). Default 1,000,000.
    pub instructions: u64,
    /// Instructions all waves of the dispatch may execute together. Default 100,000,000: 100 waves at the
    /// whole wave budget, one to a few minutes of the model, more than 3,000 times what the largest bundled
    /// dispatch runs (under 30,000); it bounds the work of a job whatever the machine's speed, where the
    /// wall-clock limit bounds its time.
    pub dispatch_instructions: u64,
    /// Wall-clock time one job may take; `None` for no limit. Default 60 s (the `conformance --job-timeout`
    /// default), so no job holds a run for hours whatever its grid.
    pub wall_clock: Option<Duration>,
    /// Bytes of memory image (all arrays together) the model maps for one job; a job with more is
    /// [`BackendError::Unsupported`] before anything is allocated. Default 1 GiB: a kernel file may list any
    /// number of arrays of up to 64 MiB each, and thousands of them must be a refusal, not an out-of-memory
    /// abort of the whole run. The bundled kernels use a few KiB.
    pub memory_bytes: u64,
}

impl Limits {
    /// The default per-wave instruction budget.
    pub const DEFAULT_INSTRUCTIONS: u64 = 1_000_000;
    /// The default whole-dispatch instruction budget.
    pub const DEFAULT_DISPATCH_INSTRUCTIONS: u64 = 100_000_000;
    /// The default wall-clock limit.
    pub const DEFAULT_WALL_CLOCK: Duration = Duration::from_secs(60);
    /// The default memory-image limit.
    pub const DEFAULT_MEMORY_BYTES: u64 = 1 << 30;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: Self::DEFAULT_INSTRUCTIONS,
            dispatch_instructions: Self::DEFAULT_DISPATCH_INSTRUCTIONS,
            wall_clock: Some(Self::DEFAULT_WALL_CLOCK),
            memory_bytes: Self::DEFAULT_MEMORY_BYTES,
        }
    }
}

/// What a job has used of its [`Limits`] so far.
struct Budget {
    limits: Limits,
    start: Instant,
    /// Instructions executed by all waves of the dispatch.
    executed: u64,
}

impl Budget {
    fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            start: Instant::now(),
            executed: 0,
        }
    }

    fn timeout(&self, limit: TimeLimit, instructions: u64, budget: u64) -> BackendError {
        BackendError::Timeout {
            limit,
            instructions,
            budget,
            elapsed: self.start.elapsed(),
            time_limit: self.limits.wall_clock,
        }
    }

    fn check_clock(&self) -> Result<(), BackendError> {
        match self.limits.wall_clock {
            Some(limit) if self.start.elapsed() >= limit => Err(self.timeout(
                TimeLimit::WallClock,
                self.executed,
                self.limits.dispatch_instructions,
            )),
            _ => Ok(()),
        }
    }

    /// Accounts for one instruction of `wave`, or says which bound it would pass.
    fn charge(&mut self, wave: &mut Wave) -> Result<(), BackendError> {
        let l = &self.limits;
        if wave.executed >= l.instructions {
            return Err(self.timeout(TimeLimit::WaveInstructions, wave.executed, l.instructions));
        }
        if self.executed >= l.dispatch_instructions {
            return Err(self.timeout(
                TimeLimit::DispatchInstructions,
                self.executed,
                l.dispatch_instructions,
            ));
        }
        if self.executed % CLOCK_CHECK_INTERVAL == 0 {
            self.check_clock()?;
        }
        wave.executed += 1;
        self.executed += 1;
        Ok(())
    }
}

/// Every target name the model accepts, with the instruction set it runs: `gfx1013` and `ps5` (the PS5 GPU)
/// run gfx1013's tables; `rdna2` (what a row says when its source names no chip) and `gfx1030`..`gfx1036` (the
/// RDNA2 chips) run gfx1030's. The one mapping every tool uses ([`target_of`]): rows, `oracle disasm --target`,
/// `oracle show --disasm`.
pub const TARGET_NAMES: [(&str, Target); 10] = [
    ("gfx1013", Target::Gfx1013),
    ("ps5", Target::Gfx1013),
    ("rdna2", Target::Gfx1030),
    ("gfx1030", Target::Gfx1030),
    ("gfx1031", Target::Gfx1030),
    ("gfx1032", Target::Gfx1030),
    ("gfx1033", Target::Gfx1030),
    ("gfx1034", Target::Gfx1030),
    ("gfx1035", Target::Gfx1030),
    ("gfx1036", Target::Gfx1030),
];

/// The instruction set a job's target runs ([`TARGET_NAMES`]): gfx1013 for the PS5, the gfx1030 family for
/// RDNA2 parts (`rdna2`, `gfx1030`..`gfx1036`).
pub fn target_of(name: &str) -> Option<Target> {
    TARGET_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
}

/// A decoded program: instructions by word index, each decoded on first use into its compact form
/// (`exec/fast.rs`: operands resolved, fields checked, the path it runs chosen), which every later execution reuses.
pub struct Program {
    target: Target,
    words: Vec<u32>,
    cache: Vec<Option<Box<fast::Prepared>>>,
}

impl Program {
    /// A program over `words` for `target`.
    pub fn new(target: Target, words: Vec<u32>) -> Program {
        let n = words.len();
        let mut cache = Vec::with_capacity(n);
        cache.resize_with(n, || None);
        Program {
            target,
            words,
            cache,
        }
    }

    /// The instruction at word `pc`.
    pub fn at(&mut self, pc: usize) -> Result<Instruction, BackendError> {
        self.prepared(pc).map(|p| p.inst)
    }

    /// The compact form of the instruction at word `pc`, decoded the first time.
    fn prepared(&mut self, pc: usize) -> Result<&fast::Prepared, BackendError> {
        if pc >= self.words.len() {
            return Err(BackendError::Fault {
                address: (pc as u64).wrapping_mul(4),
                pc: pc as u32,
                reason: format!(
                    "the program counter left the kernel's {} words",
                    self.words.len()
                ),
            });
        }
        let slot = &mut self.cache[pc];
        if slot.is_none() {
            let inst = isa::decode(self.target, &self.words, pc).map_err(|e| {
                BackendError::Unsupported {
                    instruction: format!("word {pc} ({:08x})", self.words[pc]),
                    reason: format!("cannot decode: {e}"),
                }
            })?;
            *slot = Some(Box::new(fast::Prepared {
                fast: fast::prepare(&inst, pc),
                size: inst.size as usize,
                inst,
            }));
        }
        // Filled just above when it was empty.
        slot.as_deref()
            .ok_or_else(|| BackendError::InvalidJob("program cache".into()))
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True for an empty program.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Runs a job on the reference model.
pub fn run_job(job: &Job, limits: Limits) -> Result<JobOutput, BackendError> {
    let mut budget = Budget::new(limits);
    let target = target_of(&job.target).ok_or_else(|| BackendError::Unsupported {
        instruction: format!("target {}", job.target),
        reason: "the model knows gfx1013 and the gfx1030 family (rdna2, gfx1030..gfx1036)".into(),
    })?;
    let k = &job.kernel;
    let image_bytes: u64 = k.memory.iter().map(|a| u64::from(a.bytes)).sum();
    if image_bytes > limits.memory_bytes {
        return Err(BackendError::Unsupported {
            instruction: format!(
                "a memory image of {image_bytes} bytes ({} arrays)",
                k.memory.len()
            ),
            reason: format!(
                "the model maps at most {} bytes per job (Limits::memory_bytes)",
                limits.memory_bytes
            ),
        });
    }
    let mut mem = GuestMemory::new();
    let images = job.memory_image()?;
    let addresses = map_arrays(&mut mem, job, &images)?;
    let user = job
        .user_data(&addresses)
        .map_err(BackendError::InvalidJob)?;
    // oracle-v1: the user data list is the kernel argument segment, whose address goes in s[0:1].
    let user_sgprs = match k.abi {
        Abi::AgcBufferV1 if user.len() > MAX_USER_SGPRS => {
            return Err(BackendError::Unsupported {
                instruction: format!("launch with {} user SGPRs", user.len()),
                reason: format!(
                    "gfx10 compute has {MAX_USER_SGPRS} COMPUTE_USER_DATA registers; the model loads no more"
                ),
            })
        }
        Abi::AgcBufferV1 => user,
        Abi::OracleV1 => {
            let kernarg = mem.map("kernarg", 256, dwords_to_bytes(&user));
            vec![kernarg as u32, (kernarg >> 32) as u32]
        }
    };
    let mode = crate::float::Mode {
        float_mode: job.mode.float_mode,
        ieee: job.mode.ieee,
        dx10_clamp: job.mode.dx10_clamp,
        fp16_ovfl: job.mode.fp16_ovfl,
    };
    let mut program = Program::new(target, k.words());
    let wave = k.wave as usize;
    let groups = k.grid;
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                // Setting up a group costs time without instructions (LDS up to 64 KiB), so the clock is read
                // here too: 2^20 groups of one s_endpgm each still end at the limit.
                budget.check_clock()?;
                let mut waves = Vec::new();
                let nwaves = (k.threads as usize).div_ceil(wave);
                for w in 0..nwaves {
                    // Registers the ABI does not set start at 0 (rule exec.initial_registers).
                    let mut wv = Wave::new(wave, w as u32);
                    let mut sg = 0;
                    for &u in &user_sgprs {
                        wv.sset(sg, u);
                        sg += 1;
                    }
                    for (dim, g) in [gx, gy, gz].into_iter().enumerate() {
                        if k.tgid[dim] {
                            wv.sset(sg, g);
                            sg += 1;
                        }
                    }
                    let first = w * wave;
                    let count = (k.threads as usize - first).min(wave);
                    for lane in 0..wave {
                        wv.vset(0, lane, (first + lane) as u32);
                    }
                    wv.set_exec(if count == 64 {
                        u64::MAX
                    } else {
                        (1u64 << count) - 1
                    });
                    wv.mode = mode.to_hwreg();
                    waves.push(wv);
                }
                let mut lds = lds::Lds::new(k.lds_bytes as usize);
                run_group(&mut program, &mut waves, &mut mem, &mut lds, &mut budget)?;
            }
        }
    }
    // Every array comes back: each row of the job reads its own placement.
    let arrays = images
        .iter()
        .map(|a| {
            let region = mem.region(&a.name).ok_or_else(|| {
                BackendError::InvalidJob(format!("array `{}` is not mapped", a.name))
            })?;
            Ok((a.name.clone(), bytes_to_dwords(&region.bytes)))
        })
        .collect::<Result<Vec<_>, BackendError>>()?;
    Ok(job.output_from(arrays))
}

/// Maps a job's arrays: where the job fixes their addresses ([`Job::addresses`], a job rebuilt from a command
/// buffer), there; otherwise one after another from [`memory::FIRST_BASE`]. Returns the addresses in
/// memory-list order. The recompiler's backend maps through this too, so both agree on every address.
pub fn map_arrays(
    mem: &mut GuestMemory,
    job: &Job,
    images: &[measurements::job::ArrayImage],
) -> Result<Vec<u64>, BackendError> {
    let mut addresses = Vec::with_capacity(images.len());
    match &job.addresses {
        Some(fixed) if fixed.len() != images.len() => {
            return Err(BackendError::InvalidJob(format!(
                "the job fixes {} addresses for {} arrays",
                fixed.len(),
                images.len()
            )))
        }
        Some(fixed) => {
            for (a, &base) in images.iter().zip(fixed) {
                if base % u64::from(a.align.max(1)) != 0 {
                    return Err(BackendError::InvalidJob(format!(
                        "array `{}` is fixed at {base:#x}, not a multiple of its alignment {}",
                        a.name, a.align
                    )));
                }
                addresses.push(mem.try_map_at(&a.name, base, &a.dwords)?);
            }
        }
        None => {
            for a in images {
                addresses.push(mem.try_map(&a.name, a.align as u64, &a.dwords)?);
            }
        }
    }
    Ok(addresses)
}

/// Runs the waves of one workgroup to completion.
fn run_group(
    program: &mut Program,
    waves: &mut [Wave],
    mem: &mut GuestMemory,
    lds: &mut lds::Lds,
    budget: &mut Budget,
) -> Result<(), BackendError> {
    loop {
        for wave in waves.iter_mut() {
            if wave.done || wave.at_barrier {
                continue;
            }
            let mut cx = Ctx { wave, mem, lds };
            while !cx.wave.done && !cx.wave.at_barrier {
                budget.charge(cx.wave)?;
                let pc = cx.wave.pc;
                let p = program.prepared(pc)?;
                cx.wave.pc = pc + p.size;
                fast::run(&mut cx, p, pc)?;
            }
        }
        // Every wave has ended or waits at the barrier: release it, or finish.
        if waves.iter().all(|w| w.done) {
            return Ok(());
        }
        for w in waves.iter_mut() {
            w.at_barrier = false;
        }
    }
}

/// Executes one decoded instruction on `wave` with no guest memory and an empty LDS of `lds_bytes`: the
/// entry point of instruction-level tests and fuzzers, which set the registers themselves. The wave's pc is
/// advanced past the instruction; memory instructions fault.
pub fn step(wave: &mut Wave, inst: &Instruction, lds_bytes: usize) -> Result<(), BackendError> {
    let mut mem = GuestMemory::new();
    let mut lds = lds::Lds::new(lds_bytes);
    let pc = wave.pc;
    wave.pc = pc + inst.size as usize;
    wave.executed += 1;
    Ctx {
        wave,
        mem: &mut mem,
        lds: &mut lds,
    }
    .step(inst, pc)
}

/// Refuses the encoding fields (modifiers, DPP, SDWA selects) that the model does not apply to `inst`'s
/// operation, as running it would: other backends call this to refuse exactly what the model refuses.
pub fn check_fields(inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    fields::check(inst, pc)
}

/// The reference model as a conformance backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct ModelBackend {
    /// Limits every job runs under.
    pub limits: Limits,
}

impl measurements::Backend for ModelBackend {
    fn name(&self) -> String {
        "model".into()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        run_job(job, self.limits)
    }

    /// Every job builds its own memory, waves and LDS, so jobs may run on several threads at once.
    fn concurrent(&self) -> Option<&(dyn measurements::Backend + Sync)> {
        Some(self)
    }
}
