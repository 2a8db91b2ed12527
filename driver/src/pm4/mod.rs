//! The PS5 GPU's command processor, compute path: PM4 command buffers in, jobs out.
//!
//! A PS5 title does not hand over jobs: through the AGC library it writes PM4 command buffers that set shader
//! registers and dispatch. This module decodes them ([`packet`], [`mod@command`]), keeps the SH register state
//! and runs each dispatch as a [`measurements::Job`] on any backend ([`cp`], [`dispatch`]); it also writes them
//! ([`encode`], the AGC builder's side, our own code) and prints them ([`mod@dump`]). `conformance --via pm4`
//! writes every measured job as a command buffer and runs it through here, so the driver is held to the same
//! measured rows as the recompiler.
//!
//! ```
//! use driver::pm4::{decode, CommandBuffer, Engine, regs};
//!
//! let mut cb = CommandBuffer::new(Engine::Compute);
//! cb.set_sh_regs(regs::PGM_LO, &[0x0010_0000, 0]).dispatch_direct([4, 1, 1], 0x8041);
//! let names: Vec<&str> = decode(cb.words(), Engine::Compute)
//!     .map(|p| p.unwrap().info().unwrap().name)
//!     .collect();
//! assert_eq!(names, ["SET_SH_REG", "DISPATCH_DIRECT"]);
//! ```
//!
//! # Placement
//!
//! DESIGN.md puts the PM4 command processor in the driver crate. It lives in `driver::pm4` and needs no Vulkan
//! device: `ash` loads the Vulkan library only when a [`crate::Context`] is opened, so the model backend runs
//! decoded jobs with nothing but this module. It depends on `measurements` (the job abstraction, a leaf crate)
//! and `reference-model` (the backends' array placement, which the encoder follows), both of which the
//! dependency direction of DESIGN.md allows below the driver; no new crate was needed.
//!
//! # Sources
//!
//! Facts, not code, from these public sources:
//!
//! - Opcodes: Mesa `src/amd/common/sid.h` (mirror `bminor/mesa-mesa`, commit
//!   `0d20bdbe2c17644ff6a126b88e17c5f39be67761`) and PAL `src/core/hw/gfxip/gfx9/chip/gfx9_plus_merged_pm4_it_opcodes.h`
//!   (`GPUOpen-Drivers/pal`, commit `c5e800072a32f68b6ccc4422936d96167c6e0728`), which alone has WAIT_REG_MEM64
//!   (0x93), SET_CONTEXT_REG_INDIRECT (0x73) and LOAD_UCONFIG_REG_INDEX (0x64).
//! - Packet layouts and sizes: PAL `gfx9_plus_merged_f32_mec_pm4_packets.h` (compute queue),
//!   `gfx9_plus_merged_f32_pfp_pm4_packets.h` and `gfx9_plus_merged_f32_me_pm4_packets.h` (graphics ring),
//!   same commit: the gfx10 `SIZEDW` of each packet, the gfx10 field positions of RELEASE_MEM (GCR_CNTL
//!   23:12), ACQUIRE_MEM (eight dwords with GCR_CNTL; gfx9's was seven), EVENT_WRITE's event indices, and
//!   LOAD_SH_REG_INDEX's data formats with `gfx9CmdUtil.cpp` (count values, or count offset/value pairs; only
//!   bits 15:0 of the address's high dword), which also sets VALID on a compute queue's INDIRECT_BUFFER.
//! - Registers and fields: Mesa `src/amd/registers/gfx10.json` (mirror `Grima04/mesa-turnip-kgsl`, commit
//!   `50ed40fb8ec486490dcbed29680621ec5cb03125`); the 512-byte LDS_SIZE unit from `src/amd/common/ac_gpu_info.c`
//!   there (`lds_encode_granularity`).
//! - The AGC names and shapes: OpenAGC `include/agc_pm4.h` and `src/cb_builders.c` (`OpenAGC/OpenAGC`, commit
//!   `7bb639dfc3644cf8dca4f2bfaecf674a6d5f8823`), from the PS5's `libSceAgc.sprx`: 0x63 is AGC's
//!   SET_SH_REG_INDIRECT (AMD's LOAD_SH_REG_INDEX, written as five dwords with DATA_FORMAT 1), 0x64 its
//!   SET_UC_REG_INDIRECT (AMD's LOAD_UCONFIG_REG_INDEX) and 0x9F its SET_CX_REG_INDIRECT (AMD's
//!   LOAD_CONTEXT_REG_INDEX; AMD's SET_CONTEXT_REG_INDIRECT is 0x73); RELEASE_MEM is eight dwords (a peer that
//!   wrote nine overran a title's reserved space); `sceAgcCbDispatch` writes the initiator as
//!   `(modifier & 0xa038) | 0x41`, COMPUTE_SHADER_EN and ORDER_MODE always.
//!
//! # What runs
//!
//! [`packet::OPCODES`] is the one table of opcodes: AMD's name with AGC's beside it, the exact size on each
//! queue, and whether the compute path runs it. On a compute queue (AGC's ACB, the default) and on the
//! graphics ring (AGC's DCB: DISPATCH_INDIRECT is three dwords there and counts from SET_BASE index 1), the
//! command processor carries out:
//!
//! | packet | what it does here |
//! |---|---|
//! | NOP, type-2 filler | nothing (a NOP's payload is skipped; the header-only NOP is one dword). A NOP with header bits 7:2 set is one of the AGC library's NOP-wrapped commands, which the PS5's driver acts on ([`command::agc_nop_name`], OpenAGC's names; Kyty decodes 0xc0061060, subcommand 0x18, as a RELEASE_MEM): push and pop markers are skipped, the others refused, since skipping them could drop a fence or a write |
//! | SET_SH_REG, SET_SH_REG_INDEX | writes compute registers ([`regs`]); INDEX 3 only on the CU masks; a register gfx10 has no compute register at, or one the CP writes itself (COMPUTE_DISPATCH_INITIATOR, COMPUTE_DIM_*), is refused, and a refused packet writes nothing |
//! | LOAD_SH_REG_INDEX (AGC SET_SH_REG_INDIRECT) | reads the values, or (offset, value) pairs, from memory when the packet runs; INDEX 0 (direct address) only |
//! | DISPATCH_DIRECT, DISPATCH_INDIRECT | one job ([`dispatch`]); the group counts of the indirect form are read when it runs |
//! | INDIRECT_BUFFER | a call (one level: the submitted IB1 may call an IB2) or a chain; the buffer is read when it starts; VALID must be set on a compute queue |
//! | WRITE_DATA | to memory (DST_SEL 2 or 5), incrementing or not; registers and GDS are refused |
//! | DMA_DATA | memory to memory, or a dword fill (SRC_SEL DATA); GDS, register addresses, non-advancing addresses, BYTE_COUNT 0 and overlapping copies are refused |
//! | ACQUIRE_MEM | nothing: the backends keep no caches between packets |
//! | RELEASE_MEM | end-of-pipe (EVENT_INDEX 5) and shader-done (6) events writing no data, 32 or 64 bits; an interrupt request (INT_SEL 1..4) is recorded in the [`cp::Report`]; clock and GDS data are refused |
//! | WAIT_REG_MEM, WAIT_REG_MEM64 | on memory: holds at once (every earlier packet has completed) or never, which is an error; register waits are refused |
//! | EVENT_WRITE | cache flushes and partial flushes (nothing left to wait for); sampling events are refused |
//! | SET_BASE (graphics ring) | index 1, the base of DISPATCH_INDIRECT |
//!
//! Every other opcode of the table decodes (for `oracle pm4 dump`) and is refused when run. A packet with
//! PREDICATE set runs: this CP has no SET_PREDICATION (refused), so predication is never on, and AMD's CP runs
//! predicated packets then.
//!
//! # From registers to a job
//!
//! A dispatch reads COMPUTE_PGM_LO/HI (the shader at `LO << 8 | HI << 40`, whose words are read from guest
//! memory up to the end of the region holding them), COMPUTE_PGM_RSRC1 (FLOAT_MODE, IEEE_MODE, DX10_CLAMP and
//! FP16_OVFL make the float mode; PRIV is refused), COMPUTE_PGM_RSRC2 (USER_SGPR, TGID_X/Y/Z_EN, LDS_SIZE in
//! 512-byte units; SCRATCH_EN, TRAP_PRESENT, TG_SIZE_EN and the exception enables are refused), the initiator's
//! CS_W32_EN (wave size), COMPUTE_NUM_THREAD_X/Y/Z (a one-dimensional workgroup of NUM_THREAD_FULL threads),
//! the grid (DIM_X/Y/Z, in groups or with USE_THREAD_DIMENSIONS in threads) and COMPUTE_START_X/Y/Z (honoured
//! when 0 or when FORCE_START_AT_000 is set). A register field no gfx10 field covers is refused. The job has
//! every region of guest memory as an array at its guest address ([`measurements::Job::addresses`]) and the
//! user SGPRs as the registers' values. [`dispatch::INITIATOR_BITS`] says for each of the 32 initiator bits
//! what is done with it.
//!
//! Assumptions, not measurements: COMPUTE_USER_DATA registers a dispatch loads that no packet wrote are 0, as
//! AnyPS5 (seed 001), Kyty and SharpEmu read them and as PAL and Mesa initialise them; the console's value is
//! not confirmed ([`cp::DispatchRecord::unset_user_data`] lists them). The other registers a dispatch needs
//! (PGM_LO/HI, RSRC1, RSRC2, NUM_THREAD_X/Y/Z) must have been written: their reset values are not documented.
//! COMPUTE_START_*, RSRC3 and the inert registers read 0 when unwritten.
//!
//! Not carried by a job, so nothing reads them: RSRC1's VGPRS, SGPRS, PRIORITY, BULKY, WGP_MODE, MEM_ORDERED and
//! FWD_PROGRESS and RSRC3's SHARED_VGPR_CNT (allocation and scheduling; a program within its allocation
//! computes the same), and the registers [`regs::Role::Inert`] marks.

pub mod command;
pub mod cp;
pub mod dispatch;
pub mod dump;
pub mod encode;
pub mod error;
pub mod memory;
pub mod packet;
pub mod regs;

pub use command::{command, Command};
pub use cp::{CommandProcessor, Config, Report};
pub use dump::dump;
pub use encode::{encode_job, run_job, CommandBuffer, EncodeOptions, Encoded};
pub use error::{CpError, CpErrorKind, Location, Refusal};
pub use memory::Memory;
pub use packet::{decode, op_info, DecodeError, Packet, OPCODES};

/// The kind of queue a command buffer is for: packets and sizes differ between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// A compute queue (the MEC; AGC's asynchronous compute command buffers).
    Compute,
    /// The graphics ring (PFP and ME; AGC's draw command buffers).
    Graphics,
}
