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
//! access outside every mapped region is a [`BackendError::Fault`]; a wave that runs past
//! [`Limits::instructions`] is a [`BackendError::Timeout`]. Nothing is guessed.

pub mod buffer;
mod ctx;
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
use measurements::job::{BackendError, Job, JobOutput};
use measurements::kernel::Abi;
use memory::{bytes_to_dwords, dwords_to_bytes, GuestMemory};
use state::Wave;

pub use ctx::Ctx;

/// User SGPRs the model loads for an `agc-buffer-v1` launch, s0 upwards: as many as the hardware, whose compute
/// launch sets them from the 16 COMPUTE_USER_DATA registers. A job with more is `Unsupported`, not loaded past
/// what a PS5 could launch.
pub const MAX_USER_SGPRS: usize = 16;

/// Execution limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Instructions one wave may execute before the job ends with `Timeout`.
    pub instructions: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 1_000_000,
        }
    }
}

/// The instruction set a job's target runs: gfx1013 for the PS5, the gfx1030 family for RDNA2 parts
/// (`rdna2`, `gfx1030`..`gfx1036`).
pub fn target_of(name: &str) -> Option<Target> {
    match name {
        "gfx1013" | "ps5" => Some(Target::Gfx1013),
        "rdna2" | "gfx1030" | "gfx1031" | "gfx1032" | "gfx1033" | "gfx1034" | "gfx1035"
        | "gfx1036" => Some(Target::Gfx1030),
        _ => None,
    }
}

/// A decoded program: instructions by word index, decoded on first use.
pub struct Program {
    target: Target,
    words: Vec<u32>,
    cache: Vec<Option<Instruction>>,
}

impl Program {
    /// A program over `words` for `target`.
    pub fn new(target: Target, words: Vec<u32>) -> Program {
        let n = words.len();
        Program {
            target,
            words,
            cache: vec![None; n],
        }
    }

    /// The instruction at word `pc`.
    pub fn at(&mut self, pc: usize) -> Result<Instruction, BackendError> {
        if let Some(Some(i)) = self.cache.get(pc) {
            return Ok(*i);
        }
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
        let inst =
            isa::decode(self.target, &self.words, pc).map_err(|e| BackendError::Unsupported {
                instruction: format!("word {pc} ({:08x})", self.words[pc]),
                reason: format!("cannot decode: {e}"),
            })?;
        self.cache[pc] = Some(inst);
        Ok(inst)
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
    let target = target_of(&job.target).ok_or_else(|| BackendError::Unsupported {
        instruction: format!("target {}", job.target),
        reason: "the model knows gfx1013 and the gfx1030 family (rdna2, gfx1030..gfx1036)".into(),
    })?;
    let k = &job.kernel;
    let mut mem = GuestMemory::new();
    let images = job.memory_image()?;
    let mut addresses = Vec::with_capacity(images.len());
    for a in &images {
        addresses.push(mem.try_map(&a.name, a.align as u64, &a.dwords)?);
    }
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
                run_group(&mut program, &mut waves, &mut mem, &mut lds, limits)?;
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

/// Runs the waves of one workgroup to completion.
fn run_group(
    program: &mut Program,
    waves: &mut [Wave],
    mem: &mut GuestMemory,
    lds: &mut lds::Lds,
    limits: Limits,
) -> Result<(), BackendError> {
    loop {
        for wave in waves.iter_mut() {
            if wave.done || wave.at_barrier {
                continue;
            }
            let mut cx = Ctx { wave, mem, lds };
            while !cx.wave.done && !cx.wave.at_barrier {
                if cx.wave.executed >= limits.instructions {
                    return Err(BackendError::Timeout {
                        instructions: cx.wave.executed,
                    });
                }
                let pc = cx.wave.pc;
                let inst = program.at(pc)?;
                cx.wave.pc = pc + inst.size as usize;
                cx.wave.executed += 1;
                cx.step(&inst, pc)?;
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
}
