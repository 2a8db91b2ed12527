//! A conformance job as a compiled module and its buffers, and the buffers back as the job's output: what a
//! Vulkan backend does around one dispatch, with no device in it.
//!
//! Arrays are placed at the guest addresses the reference model gives them
//! ([`reference_model::exec::memory::GuestMemory`]), so user data, V#s and anything a kernel computes from an
//! address are the same on both backends. Their bytes are packed, dword-aligned, into one guest-memory
//! buffer; the launch-info buffer maps each region's guest range to its offset there.

use crate::{compile, layout, Module, Refusal, Region, Shape};
use measurements::job::{BackendError, Job, JobOutput};
use measurements::kernel::Abi;
use reference_model::exec::memory::{dwords_to_bytes, GuestMemory};
use reference_model::exec::{target_of, MAX_USER_SGPRS};

/// Bytes of slack after the last region: an unaligned read of the last bytes touches the next dword.
const TAIL_PAD: usize = 8;

/// A job ready to run: the module and the initial contents of its buffers.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The compiled module.
    pub module: Module,
    /// Binding [`layout::BIND_MEM`]: every region's bytes at its offset.
    pub memory: Vec<u8>,
    /// Binding [`layout::BIND_INFO`]: the user SGPRs, as words, then [`layout::INFO_ZERO`].
    pub info: Vec<u32>,
    /// Bytes of binding [`layout::BIND_LDS`] (at least 4: a binding cannot be empty).
    pub lds_bytes: u32,
    /// The job's arrays: (name, byte offset in `memory`, bytes), in memory-list order.
    pub arrays: Vec<(String, usize, usize)>,
    /// The per-wave instruction budget compiled in.
    pub budget: u32,
}

/// What the device and the caller decide about a compiled job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Instructions one wave may execute before the job ends with a timeout (the model's default).
    pub budget: u32,
    /// The device's `maxComputeSharedMemorySize`: LDS is workgroup memory when it fits (see [`Shape`]).
    pub shared_bytes: u32,
    /// The device supports what [`Shape::host_floats`] needs.
    pub host_floats: bool,
    /// Keep helper functions as calls on this device ([`Shape::call_helpers`]).
    pub call_helpers: bool,
    /// Emit the float engine's fixed-step computations as loops ([`Shape::rolled_loops`]).
    pub rolled_loops: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: 1_000_000,
            shared_bytes: 0,
            host_floats: false,
            call_helpers: false,
            rolled_loops: false,
        }
    }
}

/// Compiles `job` and lays out its buffers.
pub fn prepare(job: &Job, options: Options) -> Result<Prepared, BackendError> {
    let target = target_of(&job.target).ok_or_else(|| BackendError::Unsupported {
        instruction: format!("target {}", job.target),
        reason: "the recompiler knows gfx1013 and the gfx1030 family (rdna2, gfx1030..gfx1036)"
            .into(),
    })?;
    let k = &job.kernel;
    let images = job.memory_image()?;
    let mut guest = GuestMemory::new();
    // The model's placement (or the job's fixed addresses), so addresses agree between the backends.
    let addresses = reference_model::exec::map_arrays(&mut guest, job, &images)?;
    let mut regions: Vec<(String, u64, Vec<u8>)> = Vec::new();
    for (a, &base) in images.iter().zip(&addresses) {
        regions.push((a.name.clone(), base, dwords_to_bytes(&a.dwords)));
    }
    let user = job
        .user_data(&addresses)
        .map_err(BackendError::InvalidJob)?;
    let user_sgprs = match k.abi {
        // The launch info has room for 16, as the hardware's COMPUTE_USER_DATA registers.
        Abi::AgcBufferV1 if user.len() > MAX_USER_SGPRS => {
            return Err(BackendError::Unsupported {
                instruction: format!("launch with {} user SGPRs", user.len()),
                reason: format!("gfx10 compute has {MAX_USER_SGPRS} COMPUTE_USER_DATA registers; the recompiler loads no more"),
            })
        }
        Abi::AgcBufferV1 => user,
        Abi::OracleV1 => {
            let bytes = dwords_to_bytes(&user);
            let base = guest.map("kernarg", 256, bytes.clone());
            regions.push(("kernarg".into(), base, bytes));
            vec![base as u32, (base >> 32) as u32]
        }
    };
    let mode = reference_model::float::Mode {
        float_mode: job.mode.float_mode,
        ieee: job.mode.ieee,
        dx10_clamp: job.mode.dx10_clamp,
        fp16_ovfl: job.mode.fp16_ovfl,
    };
    let shape = Shape {
        wave: k.wave,
        threads: k.threads,
        groups: k.grid,
        tgid: k.tgid,
        user_sgprs: user_sgprs.len() as u32,
        lds_bytes: k.lds_bytes,
        budget: options.budget,
        mode: mode.to_hwreg(),
        shared_bytes: options.shared_bytes,
        parallel: job.independent_groups,
        host_floats: options.host_floats,
        call_helpers: options.call_helpers,
        rolled_loops: options.rolled_loops,
    };
    let mut memory = Vec::new();
    // The user SGPRs, then INFO_ZERO (0).
    let mut info = vec![0u32; layout::INFO_WORDS as usize];
    for (i, &u) in user_sgprs.iter().enumerate() {
        info[layout::INFO_USER as usize + i] = u;
    }
    let mut arrays = Vec::new();
    let mut table = Vec::new();
    for (name, base, bytes) in &regions {
        let off = memory.len();
        let too_big = || {
            BackendError::InvalidJob(format!(
                "array `{name}` ends past 4 GiB of guest-memory buffer; the recompiler addresses at most that"
            ))
        };
        let len = u32::try_from(bytes.len()).map_err(|_| too_big())?;
        let offset = u32::try_from(off).map_err(|_| too_big())?;
        table.push(Region {
            base: *base,
            bytes: len,
            offset,
        });
        memory.extend_from_slice(bytes);
        memory.resize(memory.len().next_multiple_of(4), 0);
        arrays.push((name.clone(), off, bytes.len()));
    }
    let module = compile(target, &k.words(), shape, &table).map_err(unsupported)?;
    if memory.len() + TAIL_PAD > u32::MAX as usize {
        return Err(BackendError::InvalidJob(format!(
            "the job's arrays take {} bytes; the recompiler addresses at most 4 GiB",
            memory.len()
        )));
    }
    memory.resize(memory.len() + TAIL_PAD, 0);
    // The kernarg region is the backend's, not the job's: it does not come back.
    arrays.truncate(images.len());
    Ok(Prepared {
        module,
        memory,
        info,
        lds_bytes: k.lds_bytes.next_multiple_of(4) + 8,
        arrays,
        budget: options.budget,
    })
}

/// A refusal as the backend error reports count it.
pub fn unsupported(r: Refusal) -> BackendError {
    BackendError::Unsupported {
        instruction: r.instruction,
        reason: r.reason,
    }
}

impl Prepared {
    /// The job's output from the guest-memory buffer and the status words the dispatch left; `elapsed` and
    /// `time_limit` (the dispatch's time and the host's limit) go into a timeout's report.
    pub fn finish(
        &self,
        job: &Job,
        memory: &[u8],
        status: &[u32],
        elapsed: std::time::Duration,
        time_limit: Option<std::time::Duration>,
    ) -> Result<JobOutput, BackendError> {
        let at = |i: u32| status.get(i as usize).copied().unwrap_or(0);
        // Independent workgroups report into records of their own after the first: the lowest workgroup's
        // report is the one the model's order would meet first.
        let base = (layout::STATUS_WORDS..self.module.status_words)
            .step_by(layout::STATUS_WORDS as usize)
            .find(|&b| at(b) != layout::OK)
            .unwrap_or(0);
        let word = |i: u32| at(base + i);
        let host_loop = word(0) == layout::UNSUPPORTED && word(3) == layout::HOST_LOOP;
        let [x, y, z] = self.module.host_groups;
        let invocations = self.module.local_size * x * y * z;
        // A loop the host cut short also parts a workgroup's invocations at the scheduler's barriers, and
        // those left waiting never finish (lavapipe): the cut, not the count, is the reason then.
        if at(layout::FINISHED) != invocations && !host_loop {
            return Err(BackendError::Device(format!(
                "the dispatch came back with {} of its {} invocations finished",
                at(layout::FINISHED),
                invocations
            )));
        }
        match word(0) {
            layout::OK => {}
            layout::FAULT => {
                return Err(BackendError::Fault {
                    address: word(2) as u64 | (word(3) as u64) << 32,
                    pc: word(1),
                    reason: format!("access outside every region (wave {}, lane {})", word(5), word(6)),
                })
            }
            layout::TIMEOUT => {
                return Err(BackendError::Timeout {
                    limit: measurements::job::TimeLimit::WaveInstructions,
                    instructions: word(4) as u64,
                    budget: self.budget as u64,
                    elapsed,
                    time_limit,
                })
            }
            layout::UNSUPPORTED if word(3) == layout::HOST_LOOP => {
                return Err(BackendError::Unsupported {
                    instruction: "dispatch".into(),
                    reason: "the device ended one of the module's loops early (lavapipe stops an invocation's \
                             loops after 65535 iterations in all); the results cannot be trusted"
                        .into(),
                })
            }
            layout::UNSUPPORTED if word(3) == layout::FORMAT => {
                let a = word(2);
                let reason = match a & 0xff {
                    layout::FORMAT_CODE => format!(
                        "a format access with format {}, which has no gfx10 format (the model refuses it too)",
                        a >> 8 & 0xff
                    ),
                    layout::FORMAT_SEL => format!(
                        "a format load through a V# whose DST_SEL {} is reserved (2 or 3; the model refuses it too)",
                        a >> 8 & 0xff
                    ),
                    layout::FORMAT_STORE_SEL => format!(
                        "a format store through a V# whose DST_SEL {} is {} (not {}): what a store does with a \
                         swizzle is neither documented nor measured (the model refuses it too)",
                        ['X', 'Y', 'Z', 'W'][(a >> 8 & 3) as usize],
                        a >> 16 & 7,
                        4 + (a >> 8 & 3)
                    ),
                    _ => "a format access to an element whose address is not a multiple of its alignment (the \
                          component size, 4 bytes for packed formats; not documented or measured, the model \
                          refuses it too)"
                        .into(),
                };
                return Err(BackendError::Unsupported {
                    instruction: format!("word {}", word(1)),
                    reason,
                });
            }
            layout::UNSUPPORTED if word(3) == layout::LANE_VALUE => {
                let reason = if word(2) == layout::MULLIT {
                    "v_mullit_f32 with an infinite or NaN factor or an overflowing product: AMD's guides name \
                     \"alternate INF, NAN, overflow rules\" for it without defining them (the model refuses it too)"
                } else {
                    "v_trig_preop_f64 of a NaN, where AMD's pseudo-code (which reads only the exponent) and LLVM's \
                     constant folder (which returns the quieted NaN) disagree (the model refuses it too)"
                };
                return Err(BackendError::Unsupported {
                    instruction: format!("word {}", word(1)),
                    reason: reason.into(),
                });
            }
            layout::UNSUPPORTED if word(3) == layout::PARTIAL_LDS => {
                return Err(BackendError::Unsupported {
                    instruction: format!("word {}", word(1)),
                    reason: "a 64-bit two-address LDS exchange half inside the allocation (the recompiler \
                             exchanges whole elements; the model the dword inside)"
                        .into(),
                })
            }
            layout::UNSUPPORTED => {
                return Err(BackendError::Unsupported {
                    instruction: format!("word {}", word(1)),
                    reason: "a computed jump (s_setpc, s_swappc) reached a word where no instruction the \
                             recompiler decoded starts"
                        .into(),
                })
            }
            layout::PC_FAULT => {
                return Err(BackendError::Fault {
                    address: word(2) as u64 | (word(3) as u64) << 32,
                    pc: word(1),
                    reason: format!("the program counter left the kernel's {} words", job.kernel.words().len()),
                })
            }
            layout::LDS_FAULT => {
                return Err(BackendError::Fault {
                    address: word(2) as u64 | (word(3) as u64) << 32,
                    pc: word(1),
                    reason: format!("misaligned LDS access (the hardware faults the wave; wave {}, lane {})", word(5), word(6)),
                })
            }
            k => return Err(BackendError::Device(format!("status word 0 is {k}, which the module never writes"))),
        }
        let arrays = self
            .arrays
            .iter()
            .map(|(name, off, len)| {
                let bytes = memory.get(*off..off + len).ok_or_else(|| {
                    BackendError::Device(format!(
                        "guest-memory buffer came back with {} bytes",
                        memory.len()
                    ))
                })?;
                Ok((
                    name.clone(),
                    reference_model::exec::memory::bytes_to_dwords(bytes),
                ))
            })
            .collect::<Result<Vec<_>, BackendError>>()?;
        Ok(job.output_from(arrays))
    }
}
