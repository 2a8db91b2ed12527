//! gfx10 (RDNA) machine code to SPIR-V compute modules that run exactly as the reference model does, on any
//! Vulkan device and any host subgroup size.
//!
//! # Execution model
//!
//! One host workgroup runs the whole dispatch: the guest workgroups one after another, in the model's order,
//! and within each the guest waves round-robin up to `s_barrier`, as `reference_model::exec` schedules them.
//! Every guest lane is one host invocation (local size = waves x wave size); its VGPRs and a replicated copy
//! of its wave's scalar state (SGPRs, SCC, EXEC, VCC, M0 as 32-bit words, never booleans) live in function
//! variables. Guest control flow is wave-uniform, so the lanes of a wave always agree on the next segment.
//!
//! The program is cut into **segments**: basic blocks, split after every instruction that needs other lanes
//! (a compare's lane mask, a carry-out, DPP, readlane, permlane, swizzle) or serial memory order (stores and
//! atomics). A dispatcher loop runs the current wave's segments until one yields; every iteration of the
//! loop starts with a workgroup barrier, taken by every invocation the same number of times, so barriers are
//! always in uniform control flow whatever the guest waves do. Lanes exchange values through a small
//! workgroup-memory area (three slots used in turn, so a segment reads one while it publishes into the next).
//! Nothing depends on the host's subgroup size: lavapipe's 4- and 8-wide subgroups run wave64 exactly.
//!
//! A block that branches back to itself and holds nothing that cuts it (the hot loop of most kernels) is
//! a loop of its own inside its case, so the dispatcher's switch is not in the loop and the host compiler
//! sees what the body leaves unwritten as loop invariants. When its instructions are scalar and vector
//! ALU only, it runs **speculatively**: every f32 add and multiply takes the host instruction unguarded
//! and ands its exactness guard into one flag; a lane whose flag fell restores the registers and
//! variables the block can write and runs the block again on the exact per-instruction path
//! ([`sem::float`], "Host fast paths"). The hot loop then has no branch per float instruction.
//!
//! Lane masks (compare results, carry-outs) are ballots: each lane sets its bit with an atomic or into a
//! per-wave word of the exchange slot, which is cleared two exchanges ahead of its next use.
//!
//! Memory: the job's arrays live in one storage buffer; the module is compiled for their guest addresses
//! ([`Region`]), so an address lookup is a few compares against constants, done in the shader for every
//! access, and one outside every region writes a fault record. Buffer range checks (num_records, stride,
//! swizzle, OOB_SELECT) are the model's, in the shader, and so are the buffer formats: a format access reads
//! the format from the V# (or an MTBUF instruction) and converts in integer operations ([`format`]). Loads
//! run in their lanes; stores go through one
//! store unit per module (a pair of segments every store calls): the wave's first lane performs every
//! lane's pieces in ascending lane order, as the model does, so same-address stores are exact, and a
//! barrier makes them visible to every lane (scalar loads included) before the wave goes on.
//!
//! An instruction budget per wave turns a runaway kernel into a timeout record; the host bounds its fence
//! wait too. Hosts may cut loops short (lavapipe ends an invocation's loops after 65535 iterations in all,
//! without an error), so every loop of the module checks how it ended and a cut one makes the job
//! unsupported rather than wrong. What the compiler does not translate exactly is a [`Refusal`] before
//! anything runs.
#![deny(missing_docs)]

pub mod audit;
mod compile;
mod ds;
pub mod format;
pub mod job;
pub mod lower;
mod memfmt;
pub mod program;
pub mod sem;
pub mod spv;
pub mod sweep;
mod translate;
mod units;
pub mod words;

use reference_model::isa::Target;

/// Why a program or launch cannot be translated exactly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{instruction}: {reason}")]
pub struct Refusal {
    /// The instruction (mnemonic and word index) or launch aspect.
    pub instruction: String,
    /// Why.
    pub reason: String,
}

/// The launch a module is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Guest wave size: 32 or 64.
    pub wave: u32,
    /// Threads per guest workgroup.
    pub threads: u32,
    /// Guest workgroups per dimension.
    pub groups: [u32; 3],
    /// Which workgroup ids follow the user SGPRs.
    pub tgid: [bool; 3],
    /// User SGPRs loaded from the launch info.
    pub user_sgprs: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// Instructions one wave may execute before the job times out.
    pub budget: u32,
    /// The MODE hardware register at launch (float mode fields, IEEE, DX10_CLAMP, FP16_OVFL).
    pub mode: u32,
    /// The device's workgroup-memory limit in bytes (`maxComputeSharedMemorySize`): LDS is workgroup memory
    /// when it fits beside the exchange area, else a storage buffer (binding [`layout::BIND_LDS`]). 0 keeps
    /// LDS in the buffer.
    pub shared_bytes: u32,
    /// The guest workgroups are independent (`Job::independent_groups`): each runs in a host workgroup of its
    /// own, concurrently, and reports into a status record of its own; the host takes the lowest workgroup's
    /// report, as the model's order would. Ignored (one host workgroup runs them all in order) when LDS
    /// lives in the storage buffer, which host workgroups would share.
    pub parallel: bool,
    /// The device rounds f32 to nearest even under SPV_KHR_float_controls (`shaderRoundingModeRTEFloat32`):
    /// the float engine may then use host f32 adds and multiplies where they are exact (`sem::float`,
    /// "Host fast paths").
    pub host_floats: bool,
    /// Helper functions (the f32 add and multiply slow paths, the memory units' address lookups) are
    /// marked `DontInline`, so the host compiler keeps them as calls. Results should be the same, but are
    /// not on the H200: with calls it mismatches 138 cells of peer-global-loads that it matches inlined
    /// (cause not found), and since speculative loops the inlined float bench is faster too, so the
    /// `vulkan` backend leaves this off (README, "Speed figures"). For measurements only.
    pub call_helpers: bool,
    /// The float engine's long fixed-step computations (`v_log`'s 62 squarings, the `v_exp`, `v_sin` and
    /// `v_cos` series) are loops, not unrolled code ([`lower::Lower::repeat`]). The module is then much
    /// smaller for every transcendental it holds, which is what a driver's compile time follows on NVIDIA,
    /// but every evaluation spends loop iterations: lavapipe ends an invocation's loops after 65535 in all
    /// (see [`layout::HOST_LOOP`]), so the `vulkan` backend leaves this off there.
    pub rolled_loops: bool,
}

impl Shape {
    /// Guest waves per workgroup.
    pub fn waves(&self) -> u32 {
        self.threads.div_ceil(self.wave).max(1)
    }
}

/// Where the module finds its inputs and leaves its results: descriptor bindings of set 0 and the word
/// layout of the launch-info and status buffers.
pub mod layout {
    /// Guest memory: every region's bytes at its offset in the region table.
    pub const BIND_MEM: u32 = 0;
    /// Launch info: the user SGPRs.
    pub const BIND_INFO: u32 = 1;
    /// Status: what stopped the job, if anything.
    pub const BIND_STATUS: u32 = 2;
    /// LDS of the running workgroup.
    pub const BIND_LDS: u32 = 3;
    /// Launch info word of the first user SGPR (16 words).
    pub const INFO_USER: u32 = 0;
    /// Launch info word the host sets to 0, which [`crate::spv::Emit::opaque`] ORs into a value so that the
    /// host compiler never sees it as the constant it is (a `v_bfi_b32` mask; a select between +-1.0 and a
    /// zero of the other sign: two lavapipe bugs) or a value as unused (an f64 result's high dword: an NVIDIA
    /// compiler bug); README "Host limits and host bugs worked around".
    pub const INFO_ZERO: u32 = 16;
    /// Words of launch info.
    pub const INFO_WORDS: u32 = 17;
    /// Status kind: the job ran to its end.
    pub const OK: u32 = 0;
    /// Status kind: an access outside every region (words 1..3: pc, address lo, address hi).
    pub const FAULT: u32 = 1;
    /// Status kind: a wave ran past the instruction budget (word 4: instructions executed).
    pub const TIMEOUT: u32 = 2;
    /// Status kind: the program reached something the module cannot run (word 3: why).
    pub const UNSUPPORTED: u32 = 3;
    /// Status kind: a misaligned LDS access, which faults the wave (words 1..3: pc, LDS address lo, hi).
    pub const LDS_FAULT: u32 = 4;
    /// Status kind: the program counter left the kernel (words 1..3: pc, byte address lo, hi).
    pub const PC_FAULT: u32 = 5;
    /// Unsupported detail: a computed jump reached a word no translated block starts at (word 1: the word).
    pub const BAD_PC: u32 = 1;
    /// Unsupported detail: a 64-bit two-address LDS exchange whose element is half inside the allocation
    /// (word 1: pc).
    pub const PARTIAL_LDS: u32 = 3;
    /// Unsupported detail: a loop of the module ended before its condition did: the host device cut it
    /// short (lavapipe ends every invocation's loops after 65535 iterations in all, without an error). Word
    /// 2 numbers the loop check that saw it.
    pub const HOST_LOOP: u32 = 2;
    /// Status word every invocation adds 1 to as its last act: a dispatch that comes back with fewer
    /// than the module's local size did not run to its end (whatever word 0 says).
    pub const FINISHED: u32 = 7;
    /// Unsupported detail: a format load or store the model refuses (word 2: [`FORMAT_CODE`],
    /// [`FORMAT_SEL`], [`FORMAT_ALIGN`] or [`FORMAT_STORE_SEL`] in the low byte, with what they name above it).
    pub const FORMAT: u32 = 4;
    /// Format refusal: a format code without a gfx10 format (0, 78 to 127; the code in bits 8..15).
    pub const FORMAT_CODE: u32 = 1;
    /// Format refusal: a load's DST_SEL of output `i` (bits 8..15) is reserved (2 or 3).
    pub const FORMAT_SEL: u32 = 2;
    /// Format refusal: an element whose address is not a multiple of its alignment.
    pub const FORMAT_ALIGN: u32 = 3;
    /// Format refusal: a store through a V# whose DST_SEL of component `c` (bits 8..15) is not `4 + c` (the
    /// DST_SEL in bits 16..19).
    pub const FORMAT_STORE_SEL: u32 = 4;
    /// Unsupported detail: an operand value the model refuses at run time (word 2: [`MULLIT`] or
    /// [`TRIG_PREOP_NAN`]).
    pub const LANE_VALUE: u32 = 5;
    /// `v_mullit_f32` with an infinite or NaN factor or an overflowing product.
    pub const MULLIT: u32 = 1;
    /// `v_trig_preop_f64` of a NaN.
    pub const TRIG_PREOP_NAN: u32 = 2;
    /// Status words: kind, pc, a, b, executed, wave, lane, finished.
    pub const STATUS_WORDS: u32 = 8;
}

/// A compiled module.
#[derive(Clone, Debug)]
pub struct Module {
    /// SPIR-V words.
    pub spirv: Vec<u32>,
    /// Invocations of each host workgroup the module runs in.
    pub local_size: u32,
    /// Whether LDS is workgroup memory (else the buffer at [`layout::BIND_LDS`]).
    pub lds_in_workgroup: bool,
    /// Host workgroups to dispatch: `[1, 1, 1]`, or with independent guest workgroups one per guest
    /// workgroup, up to 65,535 in x and the rest in y (the spare ones of the last row do nothing).
    pub host_groups: [u32; 3],
    /// Words of the status buffer: [`layout::STATUS_WORDS`], and as many per guest workgroup after them
    /// when the workgroups run in host workgroups of their own.
    pub status_words: u32,
    /// Cases of the dispatcher's switch: the block leaders with a case of their own, the continuations the
    /// cuts start, the memory units and their returns, the timeout case. A host compiler's time grows with
    /// them (README, "Differential fuzzing").
    pub cases: u32,
}

/// The host grid for `total` guest workgroups run one per host workgroup.
pub fn host_grid(total: u32) -> [u32; 3] {
    let x = total.clamp(1, 65_535);
    [x, total.div_ceil(x).max(1), 1]
}

/// The most guest workgroups one module runs (they run one after another in one host workgroup).
pub const MAX_GROUPS: u32 = 1 << 20;
/// LDS bytes of a gfx10 workgroup.
pub const MAX_LDS_BYTES: u32 = 64 << 10;
/// The most memory regions a launch maps.
pub const MAX_REGIONS: usize = 64;

/// One range of guest memory and where its bytes are in the guest-memory buffer (binding
/// [`layout::BIND_MEM`]). The module is compiled for its regions: an address lookup is a few compares
/// against constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Guest address of byte 0.
    pub base: u64,
    /// Bytes.
    pub bytes: u32,
    /// Byte offset in the guest-memory buffer (a multiple of 4).
    pub offset: u32,
}

/// The SPIR-V assembly text of a module (rspirv's disassembler: one instruction per line, result ids as
/// `%N`), for contributors reading what was generated. `Err` names what is not a SPIR-V module.
pub fn disassemble(spirv: &[u32]) -> Result<String, String> {
    use rspirv::binary::Disassemble;
    let module = rspirv::dr::load_words(spirv).map_err(|e| format!("not a SPIR-V module: {e}"))?;
    Ok(module.disassemble())
}

/// Runs the static check ([`audit::check`]) over an emitted module: `Err` names the undefined operation
/// found, as a refusal of the module.
pub fn audited(spirv: &[u32]) -> Result<(), Refusal> {
    audit::check(spirv).map_err(|why| Refusal {
        instruction: "emitted module".into(),
        reason: format!("the static check found an undefined operation ({why}); a recompiler bug"),
    })
}

/// Compiles the kernel `words` for `target`, `shape` and the memory `regions` (debug builds also run the
/// static check, [`audited`]).
pub fn compile(
    target: Target,
    words: &[u32],
    shape: Shape,
    regions: &[Region],
) -> Result<Module, Refusal> {
    if shape.wave != 32 && shape.wave != 64 {
        return Err(Refusal {
            instruction: "launch".into(),
            reason: format!("wave size {} (gfx10 has 32 and 64)", shape.wave),
        });
    }
    if shape.threads == 0 || shape.threads > 1024 {
        return Err(Refusal {
            instruction: "launch".into(),
            reason: format!(
                "{} threads per workgroup (gfx10 allows 1 to 1024)",
                shape.threads
            ),
        });
    }
    if shape.lds_bytes > MAX_LDS_BYTES {
        return Err(Refusal {
            instruction: "launch".into(),
            reason: format!(
                "{} bytes of LDS per workgroup (gfx10 has {MAX_LDS_BYTES})",
                shape.lds_bytes
            ),
        });
    }
    let groups = shape.groups.iter().try_fold(1u32, |a, &g| a.checked_mul(g));
    if groups.is_none_or(|g| g > MAX_GROUPS) {
        return Err(Refusal {
            instruction: "launch".into(),
            reason: format!(
                "a grid of {:?} workgroups (the recompiled module runs them one after another; at most {MAX_GROUPS})",
                shape.groups
            ),
        });
    }
    if regions.len() > MAX_REGIONS {
        return Err(Refusal {
            instruction: "launch".into(),
            reason: format!("{} memory regions (at most {MAX_REGIONS})", regions.len()),
        });
    }
    let prog = program::Program::decode(target, words)?;
    let (spirv, lds_in_workgroup, parallel, cases) = compile::compile(&prog, shape, regions)?;
    let total = groups.unwrap_or(1);
    // A module with an instruction the specs leave undefined is a recompiler bug. Debug builds (every
    // test) refuse one; release builds leave the check to the tests and to `oracle recompile`, since it
    // costs a tenth of the compile time and only the emitter's code decides what it finds.
    if cfg!(debug_assertions) {
        audited(&spirv)?;
    }
    Ok(Module {
        spirv,
        local_size: shape.waves() * shape.wave,
        lds_in_workgroup,
        host_groups: if parallel {
            host_grid(total)
        } else {
            [1, 1, 1]
        },
        status_words: if parallel {
            layout::STATUS_WORDS * (1 + total)
        } else {
            layout::STATUS_WORDS
        },
        cases,
    })
}
