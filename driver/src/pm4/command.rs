//! Typed decoding of the packets the compute path executes: each [`Packet`] of [`super::packet`] becomes a
//! [`Command`] with its fields, laid out as PAL's gfx10 `PM4_MEC_*` (compute queue) and `PM4_PFP_*`/`PM4_ME_*`
//! (graphics ring) structures give them. A field value the layout does not define is a
//! [`DecodeError::BadField`]; a defined value the compute path does not carry out is refused later, when the
//! command runs ([`super::cp`]), so a dump still shows it.

use super::packet::{opcode as op, DecodeError, Packet, PacketKind};
use super::regs::SH_DWORDS;
use super::Engine;

/// Where a DISPATCH_INDIRECT finds its three group counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndirectArgs {
    /// Compute queue: a 64-bit address in the packet.
    Address(u64),
    /// Graphics ring: an offset from the base SET_BASE (index 1) set.
    Offset(u32),
}

/// WRITE_DATA's, DMA_DATA's and RELEASE_MEM's destination kinds that matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    /// Guest memory (through the L2 or the memory controller).
    Memory,
    /// A memory-mapped register.
    Register,
    /// The GDS.
    Gds,
    /// Nowhere (DMA_DATA to no destination: a prefetch).
    Nowhere,
    /// A selector value the layout defines but the compute path has no meaning for (the raw value).
    Other(u32),
}

/// A decoded command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A type-2 filler dword.
    Filler,
    /// NOP with its payload (empty for the header-only NOP).
    Nop {
        /// The payload dwords.
        payload: Vec<u32>,
        /// Header bits 7:2, which AMD reserves and the AGC library uses to mark NOP-wrapped commands of its
        /// own ([`agc_nop_name`]); 0 in a plain NOP.
        agc_subcommand: u32,
    },
    /// SET_SH_REG (0x76) or SET_SH_REG_INDEX (0x9B): consecutive SH registers from `start`.
    SetShReg {
        /// The opcode (0x76 or 0x9B).
        opcode: u8,
        /// First register, dwords from the SH base.
        start: u16,
        /// INDEX (bits 31:28 of the offset dword).
        index: u32,
        /// The values.
        values: Vec<u32>,
    },
    /// LOAD_SH_REG_INDEX (AGC's SET_SH_REG_INDIRECT): SH registers read from memory.
    LoadShRegIndex {
        /// INDEX: 0 direct address, 1 offset from a base, 2 indirect address.
        index: u32,
        /// The address (INDEX 0).
        address: u64,
        /// DATA_FORMAT: false = offset and size (values for consecutive registers from `reg_offset`), true =
        /// offset and data (pairs of register offset and value).
        pairs: bool,
        /// REG_OFFSET (offset-and-size format).
        reg_offset: u16,
        /// NUM_DWORDS: values (offset and size) or pairs (offset and data).
        count: u32,
    },
    /// DISPATCH_DIRECT.
    DispatchDirect {
        /// DIM_X, DIM_Y, DIM_Z.
        dims: [u32; 3],
        /// COMPUTE_DISPATCH_INITIATOR.
        initiator: u32,
    },
    /// DISPATCH_INDIRECT.
    DispatchIndirect {
        /// Where the group counts are.
        args: IndirectArgs,
        /// COMPUTE_DISPATCH_INITIATOR.
        initiator: u32,
    },
    /// SET_BASE (graphics ring).
    SetBase {
        /// BASE_INDEX.
        index: u32,
        /// The address.
        address: u64,
    },
    /// INDIRECT_BUFFER: run `dwords` dwords at `address` (a call), or continue there (a chain).
    IndirectBuffer {
        /// IB_BASE.
        address: u64,
        /// IB_SIZE in dwords.
        dwords: u32,
        /// CHAIN.
        chain: bool,
        /// VALID (compute queue; always true on the graphics ring, which has no such bit).
        valid: bool,
        /// VMID.
        vmid: u32,
    },
    /// WRITE_DATA.
    WriteData {
        /// DST_SEL.
        dst: MemSpace,
        /// ADDR_INCR clear: consecutive dwords; set: every dword to the same address.
        increment: bool,
        /// The destination (memory byte address, or register dword address).
        address: u64,
        /// The data.
        data: Vec<u32>,
    },
    /// DMA_DATA.
    DmaData {
        /// SRC_SEL: memory, GDS, or `None` for the DATA form (fill with `src`'s low dword).
        src: Option<MemSpace>,
        /// DST_SEL.
        dst: MemSpace,
        /// Source address, or the fill value.
        source: u64,
        /// Destination address.
        destination: u64,
        /// BYTE_COUNT.
        bytes: u32,
        /// SAS, DAS: the address is a register (true) or memory.
        sas: bool,
        /// DAS.
        das: bool,
        /// SAIC, DAIC: the address does not advance.
        saic: bool,
        /// DAIC.
        daic: bool,
    },
    /// ACQUIRE_MEM: cache actions before later work reads memory.
    AcquireMem {
        /// COHER_SIZE with COHER_SIZE_HI, as written.
        size: u64,
        /// COHER_BASE.
        base: u64,
        /// POLL_INTERVAL.
        poll_interval: u32,
        /// GCR_CNTL.
        gcr_cntl: u32,
    },
    /// RELEASE_MEM: an end-of-pipe event that writes data and may interrupt.
    ReleaseMem {
        /// EVENT_TYPE.
        event_type: u32,
        /// EVENT_INDEX.
        event_index: u32,
        /// GCR_CNTL (gfx10, bits 23:12).
        gcr_cntl: u32,
        /// DST_SEL (0 memory controller, 1 TC L2).
        dst_sel: u32,
        /// INT_SEL.
        int_sel: u32,
        /// DATA_SEL.
        data_sel: u32,
        /// The address.
        address: u64,
        /// DATA (64 bits; the low dword for 32-bit data).
        data: u64,
        /// INT_CTXID.
        int_ctxid: u32,
    },
    /// WAIT_REG_MEM (32-bit) or WAIT_REG_MEM64.
    WaitRegMem {
        /// 64-bit compare.
        wide: bool,
        /// FUNCTION (0 always, 1 <, 2 <=, 3 ==, 4 !=, 5 >=, 6 >).
        function: u32,
        /// MEM_SPACE: true for memory, false for a register.
        memory: bool,
        /// OPERATION (0 wait, 1 write-wait-write, 3 wait on memory, preemptable).
        operation: u32,
        /// The polled address (memory byte address or register dword address).
        address: u64,
        /// REFERENCE.
        reference: u64,
        /// MASK.
        mask: u64,
        /// POLL_INTERVAL.
        poll_interval: u32,
    },
    /// EVENT_WRITE.
    EventWrite {
        /// EVENT_TYPE.
        event_type: u32,
        /// EVENT_INDEX.
        event_index: u32,
        /// The sampling address of the 4-dword form.
        address: Option<u64>,
    },
    /// A known packet outside the compute path: decoded for dumps, refused when run.
    Other {
        /// The opcode.
        opcode: u8,
    },
}

/// The name of an AGC NOP subcommand (header bits 7:2 of a NOP), as OpenAGC reads them from
/// `libSceAgc.sprx` (`include/agc_pm4.h`, `AgcPm4Subcommand`): commands the PS5's driver, not the CP, acts on.
pub fn agc_nop_name(sub: u32) -> Option<&'static str> {
    Some(match sub {
        0x04 => "DRAW_INDEX_AUTO",
        0x05 => "DRAW_RESET",
        0x06 => "WAIT_FLIP_DONE",
        0x09 => "ACB_RESET",
        0x0a => "WAIT_MEM32 or SET_MARKER",
        0x0b => "PUSH_MARKER",
        0x0c => "POP_MARKER",
        0x11 => "SH_REGS_INDIRECT",
        0x12 => "CX_REGS_INDIRECT",
        0x13 => "UC_REGS_INDIRECT",
        0x14 => "ACQUIRE_MEM",
        0x15 => "WRITE_DATA",
        0x16 => "WAIT_MEM64",
        0x17 => "FLIP",
        0x18 => "RELEASE_MEM",
        0x19 => "DMA_DATA",
        _ => return None,
    })
}

fn at(p: &Packet, i: usize) -> u32 {
    p.body().get(i).copied().unwrap_or(0)
}

fn addr(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | (u64::from(hi) << 32)
}

/// Decodes a framed packet into its command (the packet's dword offset is in every error).
pub fn command(p: &Packet, engine: Engine) -> Result<Command, DecodeError> {
    let info = match p.kind {
        PacketKind::Filler => return Ok(Command::Filler),
        PacketKind::Type3 { info, .. } => info,
    };
    let bad = |field: &'static str, value: u64, reason: &str| DecodeError::BadField {
        offset: p.offset,
        opcode: info.opcode,
        name: info.display_name(),
        field,
        value,
        reason: reason.to_string(),
    };
    let body = p.body();
    Ok(match info.opcode {
        op::NOP => Command::Nop {
            payload: body.to_vec(),
            agc_subcommand: (p.header() >> 2) & 0x3f,
        },
        op::SET_SH_REG | op::SET_SH_REG_INDEX => {
            let d = at(p, 0);
            let start = d as u16;
            let values = body.get(1..).unwrap_or(&[]).to_vec();
            if u32::from(start) + values.len() as u32 > SH_DWORDS {
                return Err(bad(
                    "REG_OFFSET",
                    start.into(),
                    &format!(
                        "{} registers from there run past the {SH_DWORDS:#x}-dword SH register space",
                        values.len()
                    ),
                ));
            }
            Command::SetShReg {
                opcode: info.opcode,
                start,
                index: d >> 28,
                values,
            }
        }
        op::LOAD_SH_REG_INDEX => {
            let d0 = at(p, 0);
            let index = d0 & 3;
            if index == 3 {
                return Err(bad(
                    "INDEX",
                    3,
                    "not defined (0 direct, 1 offset, 2 indirect)",
                ));
            }
            let hi = at(p, 1);
            if index != 1 && hi >> 16 != 0 {
                return Err(bad(
                    "MEM_ADDR_HI",
                    hi.into(),
                    "only bits 15:0 are an address (48-bit GPU addresses)",
                ));
            }
            let d2 = at(p, 2);
            let count = at(p, 3);
            if count >> 14 != 0 {
                return Err(bad("NUM_DWORDS", count.into(), "the field has 14 bits"));
            }
            Command::LoadShRegIndex {
                index,
                address: addr(d0 & !3, hi),
                pairs: d2 >> 31 != 0,
                reg_offset: d2 as u16,
                count,
            }
        }
        op::DISPATCH_DIRECT => Command::DispatchDirect {
            dims: [at(p, 0), at(p, 1), at(p, 2)],
            initiator: at(p, 3),
        },
        op::DISPATCH_INDIRECT => match engine {
            Engine::Compute => {
                let lo = at(p, 0);
                if lo & 3 != 0 {
                    return Err(bad(
                        "ADDR_LO",
                        lo.into(),
                        "the group counts are dwords: 4-byte aligned",
                    ));
                }
                Command::DispatchIndirect {
                    args: IndirectArgs::Address(addr(lo, at(p, 1))),
                    initiator: at(p, 2),
                }
            }
            Engine::Graphics => Command::DispatchIndirect {
                args: IndirectArgs::Offset(at(p, 0)),
                initiator: at(p, 1),
            },
        },
        op::SET_BASE => {
            let lo = at(p, 1);
            if lo & 7 != 0 {
                return Err(bad(
                    "ADDRESS_LO",
                    lo.into(),
                    "bits 2:0 are reserved (8-byte aligned base)",
                ));
            }
            Command::SetBase {
                index: at(p, 0) & 0xf,
                address: addr(lo, at(p, 2)),
            }
        }
        op::INDIRECT_BUFFER => {
            let lo = at(p, 0);
            if lo & 3 != 0 {
                return Err(bad(
                    "IB_BASE_LO",
                    lo.into(),
                    "bits 1:0 are reserved (dword-aligned buffer)",
                ));
            }
            let c = at(p, 2);
            Command::IndirectBuffer {
                address: addr(lo, at(p, 1)),
                dwords: c & 0xf_ffff,
                chain: c & (1 << 20) != 0,
                valid: match engine {
                    Engine::Compute => c & (1 << 23) != 0,
                    Engine::Graphics => true,
                },
                vmid: (c >> 24) & 0xf,
            }
        }
        op::WRITE_DATA => {
            let c = at(p, 0);
            let sel = (c >> 8) & 0xf;
            let dst = match sel {
                0 => MemSpace::Register,
                2 | 5 => MemSpace::Memory,
                3 => MemSpace::Gds,
                6 => MemSpace::Other(6),
                _ => return Err(bad("DST_SEL", sel.into(), "not defined (0, 2, 3, 5, 6)")),
            };
            let lo = at(p, 1);
            if dst == MemSpace::Memory && lo & 3 != 0 {
                return Err(bad(
                    "DST_MEM_ADDR_LO",
                    lo.into(),
                    "bits 1:0 are reserved (dword writes)",
                ));
            }
            Command::WriteData {
                dst,
                increment: c & (1 << 16) == 0,
                address: match dst {
                    MemSpace::Register => u64::from(lo & 0x3_ffff),
                    _ => addr(lo, at(p, 2)),
                },
                data: body.get(3..).unwrap_or(&[]).to_vec(),
            }
        }
        op::DMA_DATA => {
            let c = at(p, 0);
            let src_sel = (c >> 29) & 3;
            let dst_sel = (c >> 20) & 3;
            let n = at(p, 5);
            Command::DmaData {
                src: match src_sel {
                    0 | 3 => Some(MemSpace::Memory),
                    1 => Some(MemSpace::Gds),
                    _ => None,
                },
                dst: match dst_sel {
                    0 | 3 => MemSpace::Memory,
                    1 => MemSpace::Gds,
                    _ => MemSpace::Nowhere,
                },
                source: addr(at(p, 1), at(p, 2)),
                destination: addr(at(p, 3), at(p, 4)),
                bytes: n & 0x3ff_ffff,
                sas: n & (1 << 26) != 0,
                das: n & (1 << 27) != 0,
                saic: n & (1 << 28) != 0,
                daic: n & (1 << 29) != 0,
            }
        }
        op::ACQUIRE_MEM => Command::AcquireMem {
            size: u64::from(at(p, 1)) | (u64::from(at(p, 2) & 0xff) << 32),
            base: u64::from(at(p, 3)) | (u64::from(at(p, 4) & 0xff_ffff) << 32),
            poll_interval: at(p, 5) & 0xffff,
            gcr_cntl: at(p, 6) & 0x7_ffff,
        },
        op::RELEASE_MEM => {
            let c = at(p, 0);
            let d = at(p, 1);
            let data_sel = d >> 29;
            let lo = at(p, 2);
            let align = match data_sel {
                1 => 3,
                2..=4 => 7,
                _ => 0,
            };
            if lo & align != 0 {
                return Err(bad(
                    "ADDRESS_LO",
                    lo.into(),
                    &format!(
                        "DATA_SEL {data_sel} writes to an address aligned to {} bytes",
                        align + 1
                    ),
                ));
            }
            Command::ReleaseMem {
                event_type: c & 0x3f,
                event_index: (c >> 8) & 0xf,
                gcr_cntl: (c >> 12) & 0xfff,
                dst_sel: (d >> 16) & 3,
                int_sel: (d >> 24) & 7,
                data_sel,
                address: addr(lo, at(p, 3)),
                data: addr(at(p, 4), at(p, 5)),
                int_ctxid: at(p, 6),
            }
        }
        op::WAIT_REG_MEM | op::WAIT_REG_MEM64 => {
            let wide = info.opcode == op::WAIT_REG_MEM64;
            let c = at(p, 0);
            let function = c & 7;
            if function == 7 {
                return Err(bad(
                    "FUNCTION",
                    7,
                    "not defined (0 always .. 6 greater than)",
                ));
            }
            let space = (c >> 4) & 3;
            if space > 1 {
                return Err(bad(
                    "MEM_SPACE",
                    space.into(),
                    "not defined (0 register, 1 memory)",
                ));
            }
            let memory = space == 1;
            let lo = at(p, 1);
            let align = if wide { 7 } else { 3 };
            if memory && lo & align != 0 {
                return Err(bad(
                    "MEM_POLL_ADDR_LO",
                    lo.into(),
                    &format!("the polled value is aligned to {} bytes", align + 1),
                ));
            }
            let (reference, mask, poll) = if wide {
                (addr(at(p, 3), at(p, 4)), addr(at(p, 5), at(p, 6)), at(p, 7))
            } else {
                (u64::from(at(p, 3)), u64::from(at(p, 4)), at(p, 5))
            };
            Command::WaitRegMem {
                wide,
                function,
                memory,
                operation: (c >> 6) & 3,
                address: if memory {
                    addr(lo, at(p, 2))
                } else {
                    u64::from(lo & 0x3_ffff)
                },
                reference,
                mask,
                poll_interval: poll & 0xffff,
            }
        }
        op::EVENT_WRITE => {
            let c = at(p, 0);
            Command::EventWrite {
                event_type: c & 0x3f,
                event_index: (c >> 8) & 0xf,
                address: (body.len() >= 3).then(|| addr(at(p, 1) & !7, at(p, 2))),
            }
        }
        other => Command::Other { opcode: other },
    })
}
