//! PM4 packet framing: headers, the opcode table and a decoder that splits a command buffer into packets with
//! their exact sizes, or stops at the first one it cannot frame with a [`DecodeError`] naming its dword offset.
//!
//! A type-3 header is `TYPE[31:30] = 3 | COUNT[29:16] | OPCODE[15:8] | SHADER_TYPE[1] | PREDICATE[0]`, and the
//! packet is `COUNT + 2` dwords long (header included), except the header-only NOP (`COUNT = 0x3fff`, one dword).
//! Type-2 is a one-dword filler. Type-0 (register writes by address) and type-1 (reserved) are not part of a
//! gfx10 command buffer built by AGC, Mesa or PAL, and are errors with their offset.

use super::Engine;
use std::fmt;

/// The header-only NOP (`PKT3(NOP, 0x3fff, 0)` in Mesa's `sid.h`): one dword with no body.
pub const NOP_HEADER_ONLY: u32 = 0xffff_1000;
/// The type-2 filler dword.
pub const TYPE2_FILLER: u32 = 0x8000_0000;
/// The largest `COUNT` field: a type-3 packet has at most `0x3fff + 2` dwords.
pub const MAX_COUNT: u32 = 0x3fff;

/// A type-3 header for `opcode` whose packet is `dwords` long (header included, 2 ..= 0x4001).
pub fn header(opcode: u8, dwords: usize) -> u32 {
    let count = (dwords.saturating_sub(2) as u32) & MAX_COUNT;
    0xc000_0000 | (count << 16) | (u32::from(opcode) << 8)
}

/// How many dwords a packet of an opcode has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Exactly this many, header included.
    Fixed(u32),
    /// At least this many (register writes and data packets: a fixed part and one or more values).
    AtLeast(u32),
    /// On the compute queue (MEC) and on the graphics ring (PFP) the packet has different layouts.
    PerEngine {
        /// On a compute queue.
        compute: u32,
        /// On the graphics ring.
        graphics: u32,
    },
    /// NOP: the header-only form, or any count (the body is a payload the CP skips).
    Nop,
    /// EVENT_WRITE: 2 dwords for a plain event, 4 for a sampling event with an address (by `EVENT_INDEX`).
    EventWrite,
    /// No public layout gives the size: the header's count is taken as written.
    AsWritten,
}

/// One opcode of the table: AMD's name, the AGC library's name where it differs, its size and where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// The IT_OPCODE.
    pub opcode: u8,
    /// AMD's name (Mesa `sid.h`, PAL `gfx9_plus_merged_pm4_it_opcodes.h`).
    pub name: &'static str,
    /// The PS5 AGC library's name, where it differs from AMD's (OpenAGC `include/agc_pm4.h`).
    pub agc: Option<&'static str>,
    /// The packet's size.
    pub size: Size,
    /// Only the graphics ring (PFP/ME) has this packet; on a compute queue it is refused.
    pub graphics_only: bool,
    /// The command processor executes it ([`super::cp`]); the others decode (and dump) but are refused
    /// when run, as outside the compute path.
    pub executed: bool,
}

const fn op(opcode: u8, name: &'static str, size: Size) -> OpInfo {
    OpInfo {
        opcode,
        name,
        agc: None,
        size,
        graphics_only: false,
        executed: false,
    }
}

const fn gfx(mut o: OpInfo) -> OpInfo {
    o.graphics_only = true;
    o
}

const fn run(mut o: OpInfo) -> OpInfo {
    o.executed = true;
    o
}

const fn agc(mut o: OpInfo, name: &'static str) -> OpInfo {
    o.agc = Some(name);
    o
}

use Size::{AsWritten, AtLeast, Fixed};

/// Opcode constants of the packets the compute path executes.
pub mod opcode {
    /// NOP.
    pub const NOP: u8 = 0x10;
    /// SET_BASE (graphics ring: the base DISPATCH_INDIRECT's offset counts from).
    pub const SET_BASE: u8 = 0x11;
    /// DISPATCH_DIRECT.
    pub const DISPATCH_DIRECT: u8 = 0x15;
    /// DISPATCH_INDIRECT.
    pub const DISPATCH_INDIRECT: u8 = 0x16;
    /// WRITE_DATA.
    pub const WRITE_DATA: u8 = 0x37;
    /// WAIT_REG_MEM.
    pub const WAIT_REG_MEM: u8 = 0x3c;
    /// INDIRECT_BUFFER.
    pub const INDIRECT_BUFFER: u8 = 0x3f;
    /// EVENT_WRITE.
    pub const EVENT_WRITE: u8 = 0x46;
    /// RELEASE_MEM.
    pub const RELEASE_MEM: u8 = 0x49;
    /// DMA_DATA.
    pub const DMA_DATA: u8 = 0x50;
    /// ACQUIRE_MEM.
    pub const ACQUIRE_MEM: u8 = 0x58;
    /// LOAD_SH_REG_INDEX (AGC: SET_SH_REG_INDIRECT).
    pub const LOAD_SH_REG_INDEX: u8 = 0x63;
    /// LOAD_UCONFIG_REG_INDEX (AGC: SET_UC_REG_INDIRECT).
    pub const LOAD_UCONFIG_REG_INDEX: u8 = 0x64;
    /// SET_CONTEXT_REG_INDIRECT (PAL; not in Mesa's `sid.h`).
    pub const SET_CONTEXT_REG_INDIRECT: u8 = 0x73;
    /// SET_SH_REG.
    pub const SET_SH_REG: u8 = 0x76;
    /// WAIT_REG_MEM64 (PAL; not in Mesa's `sid.h`).
    pub const WAIT_REG_MEM64: u8 = 0x93;
    /// SET_SH_REG_INDEX.
    pub const SET_SH_REG_INDEX: u8 = 0x9b;
    /// LOAD_CONTEXT_REG_INDEX (AGC: SET_CX_REG_INDIRECT).
    pub const LOAD_CONTEXT_REG_INDEX: u8 = 0x9f;
}

/// Every type-3 opcode this decoder knows, by opcode: AMD's name with the AGC alias beside it, the exact size
/// (PAL's `PM4_MEC_*`/`PM4_PFP_*` `SIZEDW` for gfx10, the graphics ring's PFP layout where the two queues
/// differ), the ring it belongs to and whether the compute path executes it. An opcode missing here is
/// [`DecodeError::UnknownOpcode`]: gfx6-8 packets such as EVENT_WRITE_EOP (0x47) included.
pub static OPCODES: &[OpInfo] = &[
    run(op(0x10, "NOP", Size::Nop)),
    run(gfx(op(0x11, "SET_BASE", Fixed(4)))),
    gfx(op(0x12, "CLEAR_STATE", Fixed(2))),
    gfx(op(0x13, "INDEX_BUFFER_SIZE", Fixed(2))),
    run(op(0x15, "DISPATCH_DIRECT", Fixed(5))),
    run(op(
        0x16,
        "DISPATCH_INDIRECT",
        Size::PerEngine {
            compute: 4,
            graphics: 3,
        },
    )),
    op(0x1d, "ATOMIC_GDS", Fixed(11)),
    op(0x1e, "ATOMIC_MEM", Fixed(9)),
    gfx(op(0x1f, "OCCLUSION_QUERY", Fixed(5))),
    gfx(op(0x20, "SET_PREDICATION", Fixed(4))),
    op(0x22, "COND_EXEC", Fixed(5)),
    gfx(op(0x23, "PRED_EXEC", Fixed(2))),
    gfx(op(0x24, "DRAW_INDIRECT", Fixed(5))),
    gfx(op(0x25, "DRAW_INDEX_INDIRECT", Fixed(5))),
    gfx(op(0x26, "INDEX_BASE", Fixed(3))),
    gfx(op(0x27, "DRAW_INDEX_2", Fixed(6))),
    gfx(op(0x28, "CONTEXT_CONTROL", Fixed(3))),
    gfx(op(0x2c, "DRAW_INDIRECT_MULTI", Fixed(10))),
    gfx(op(0x2d, "DRAW_INDEX_AUTO", Fixed(3))),
    gfx(op(0x2f, "NUM_INSTANCES", Fixed(2))),
    gfx(op(0x30, "DRAW_INDEX_MULTI_AUTO", Fixed(4))),
    gfx(op(0x35, "DRAW_INDEX_OFFSET_2", Fixed(5))),
    run(op(0x37, "WRITE_DATA", AtLeast(5))),
    gfx(op(0x38, "DRAW_INDEX_INDIRECT_MULTI", Fixed(10))),
    op(0x39, "MEM_SEMAPHORE", Fixed(4)),
    run(op(0x3c, "WAIT_REG_MEM", Fixed(7))),
    run(op(0x3f, "INDIRECT_BUFFER", Fixed(4))),
    op(0x40, "COPY_DATA", Fixed(6)),
    gfx(op(0x42, "PFP_SYNC_ME", Fixed(2))),
    op(0x45, "COND_WRITE", Fixed(9)),
    run(op(0x46, "EVENT_WRITE", Size::EventWrite)),
    run(op(0x49, "RELEASE_MEM", Fixed(8))),
    run(op(0x50, "DMA_DATA", Fixed(7))),
    gfx(op(0x51, "CONTEXT_REG_RMW", Fixed(4))),
    run(op(0x58, "ACQUIRE_MEM", Fixed(8))),
    op(0x59, "REWIND", Fixed(2)),
    op(0x5d, "PRIME_UTCL2", Fixed(5)),
    gfx(op(0x5e, "LOAD_UCONFIG_REG", AtLeast(5))),
    gfx(op(0x5f, "LOAD_SH_REG", AtLeast(5))),
    gfx(op(0x60, "LOAD_CONFIG_REG", AtLeast(5))),
    gfx(op(0x61, "LOAD_CONTEXT_REG", AtLeast(5))),
    run(agc(
        op(0x63, "LOAD_SH_REG_INDEX", Fixed(5)),
        "SET_SH_REG_INDIRECT",
    )),
    gfx(agc(
        op(0x64, "LOAD_UCONFIG_REG_INDEX", Fixed(5)),
        "SET_UC_REG_INDIRECT",
    )),
    op(0x68, "SET_CONFIG_REG", AtLeast(3)),
    gfx(op(0x69, "SET_CONTEXT_REG", AtLeast(3))),
    gfx(op(0x6a, "SET_CONTEXT_REG_INDEX", AtLeast(3))),
    gfx(op(0x73, "SET_CONTEXT_REG_INDIRECT", AsWritten)),
    run(op(0x76, "SET_SH_REG", AtLeast(3))),
    gfx(op(0x77, "SET_SH_REG_OFFSET", Fixed(4))),
    op(0x78, "SET_QUEUE_REG", AtLeast(3)),
    op(0x79, "SET_UCONFIG_REG", AtLeast(3)),
    op(0x7a, "SET_UCONFIG_REG_INDEX", AtLeast(3)),
    gfx(op(0x85, "INCREMENT_DE_COUNTER", Fixed(2))),
    gfx(op(0x86, "WAIT_ON_CE_COUNTER", Fixed(2))),
    gfx(op(0x91, "INDEX_ATTRIBUTES_INDIRECT", Fixed(4))),
    run(op(0x93, "WAIT_REG_MEM64", Fixed(9))),
    op(0x95, "HDP_FLUSH", Fixed(2)),
    op(0x98, "INVALIDATE_TLBS", Fixed(2)),
    op(0x9a, "DMA_DATA_FILL_MULTI", Fixed(7)),
    run(op(0x9b, "SET_SH_REG_INDEX", AtLeast(3))),
    gfx(agc(
        op(0x9f, "LOAD_CONTEXT_REG_INDEX", Fixed(5)),
        "SET_CX_REG_INDIRECT",
    )),
];

/// The table entry of `opcode`, if it is known.
pub fn op_info(opcode: u8) -> Option<&'static OpInfo> {
    OPCODES.iter().find(|o| o.opcode == opcode)
}

impl OpInfo {
    /// `NAME` or `NAME (AGC ALIAS)`, for messages and dumps.
    pub fn display_name(&self) -> String {
        match self.agc {
            Some(a) => format!("{} (AGC {a})", self.name),
            None => self.name.to_string(),
        }
    }
}

/// What kind of packet a [`Packet`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A type-2 filler dword.
    Filler,
    /// A type-3 packet.
    Type3 {
        /// Its table entry.
        info: &'static OpInfo,
        /// PREDICATE (header bit 0).
        predicate: bool,
        /// SHADER_TYPE (header bit 1): 1 for compute work on the graphics ring.
        shader_type: bool,
    },
}

/// One framed packet of a command buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Dword offset of its header from the buffer's start.
    pub offset: usize,
    /// What it is.
    pub kind: PacketKind,
    /// All its dwords, header first.
    pub dwords: &'a [u32],
}

impl<'a> Packet<'a> {
    /// The dwords after the header.
    pub fn body(&self) -> &'a [u32] {
        self.dwords.get(1..).unwrap_or(&[])
    }

    /// The header dword.
    pub fn header(&self) -> u32 {
        self.dwords.first().copied().unwrap_or(0)
    }

    /// The table entry of a type-3 packet.
    pub fn info(&self) -> Option<&'static OpInfo> {
        match self.kind {
            PacketKind::Type3 { info, .. } => Some(info),
            PacketKind::Filler => None,
        }
    }
}

/// Why a command buffer could not be framed. Every variant carries the dword offset of the packet's header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A type-0 packet (register writes by address), which the compute path does not take.
    #[error(
        "dword {offset}: type-0 packet (header {header:#010x}: {count} registers from {register:#06x}); \
         only type-2 and type-3 packets are taken"
    )]
    Type0 {
        /// Dword offset.
        offset: usize,
        /// The header.
        header: u32,
        /// BASE_INDEX, the first register's dword address.
        register: u16,
        /// How many registers it writes (COUNT + 1).
        count: u32,
    },
    /// A type-1 header, reserved on gfx10.
    #[error("dword {offset}: type-1 packet header {header:#010x} (reserved on gfx10)")]
    Type1 {
        /// Dword offset.
        offset: usize,
        /// The header.
        header: u32,
    },
    /// A type-3 opcode the table does not have.
    #[error("dword {offset}: unknown type-3 opcode {opcode:#04x} (header {header:#010x})")]
    UnknownOpcode {
        /// Dword offset.
        offset: usize,
        /// The header.
        header: u32,
        /// The IT_OPCODE.
        opcode: u8,
    },
    /// A graphics-ring packet in a compute queue's buffer.
    #[error("dword {offset}: {name} ({opcode:#04x}) exists only on the graphics ring, not on a compute queue")]
    WrongEngine {
        /// Dword offset.
        offset: usize,
        /// The IT_OPCODE.
        opcode: u8,
        /// Its name.
        name: String,
    },
    /// The header's count runs past the end of the buffer.
    #[error(
        "dword {offset}: {name} ({opcode:#04x}) is {needs} dwords by its header, but the buffer has {remaining} \
         left"
    )]
    Truncated {
        /// Dword offset.
        offset: usize,
        /// The IT_OPCODE.
        opcode: u8,
        /// Its name.
        name: String,
        /// Dwords the header claims.
        needs: usize,
        /// Dwords left in the buffer from the header on.
        remaining: usize,
    },
    /// The header's count disagrees with the packet's size.
    #[error(
        "dword {offset}: {name} ({opcode:#04x}) has {dwords} dwords by its header; {expected}"
    )]
    BadCount {
        /// Dword offset.
        offset: usize,
        /// The IT_OPCODE.
        opcode: u8,
        /// Its name.
        name: String,
        /// Dwords the header says.
        dwords: usize,
        /// What the size must be.
        expected: String,
    },
    /// A field of the packet holds a value the layout does not define.
    #[error("dword {offset}: {name} ({opcode:#04x}): {field} = {value:#x}: {reason}")]
    BadField {
        /// Dword offset of the packet.
        offset: usize,
        /// The IT_OPCODE.
        opcode: u8,
        /// Its name.
        name: String,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
        /// Why it is refused.
        reason: String,
    },
}

impl DecodeError {
    /// The dword offset of the packet at fault.
    pub fn offset(&self) -> usize {
        match self {
            DecodeError::Type0 { offset, .. }
            | DecodeError::Type1 { offset, .. }
            | DecodeError::UnknownOpcode { offset, .. }
            | DecodeError::WrongEngine { offset, .. }
            | DecodeError::Truncated { offset, .. }
            | DecodeError::BadCount { offset, .. }
            | DecodeError::BadField { offset, .. } => *offset,
        }
    }

    /// The opcode of the packet at fault (type-3 packets only).
    pub fn opcode(&self) -> Option<u8> {
        match self {
            DecodeError::Type0 { .. } | DecodeError::Type1 { .. } => None,
            DecodeError::UnknownOpcode { opcode, .. }
            | DecodeError::WrongEngine { opcode, .. }
            | DecodeError::Truncated { opcode, .. }
            | DecodeError::BadCount { opcode, .. }
            | DecodeError::BadField { opcode, .. } => Some(*opcode),
        }
    }
}

/// The packets of a command buffer, in order; after the first error it yields nothing more.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    words: &'a [u32],
    at: usize,
    engine: Engine,
    stopped: bool,
}

/// Splits `words` into packets for a queue of kind `engine` ([`Decoder`]).
pub fn decode(words: &[u32], engine: Engine) -> Decoder<'_> {
    Decoder {
        words,
        at: 0,
        engine,
        stopped: false,
    }
}

/// Like [`decode`], from dword `start` of `words` (offsets still count from `words`' start).
pub fn decode_from(words: &[u32], start: usize, engine: Engine) -> Decoder<'_> {
    Decoder {
        words,
        at: start,
        engine,
        stopped: false,
    }
}

impl<'a> Decoder<'a> {
    /// Dword offset of the next packet.
    pub fn position(&self) -> usize {
        self.at
    }

    fn frame(&self) -> Result<Packet<'a>, DecodeError> {
        let offset = self.at;
        let rest = self.words.get(offset..).unwrap_or(&[]);
        let header = rest.first().copied().unwrap_or(0);
        match header >> 30 {
            0 => {
                return Err(DecodeError::Type0 {
                    offset,
                    header,
                    register: header as u16,
                    count: ((header >> 16) & MAX_COUNT) + 1,
                })
            }
            1 => return Err(DecodeError::Type1 { offset, header }),
            2 => {
                return Ok(Packet {
                    offset,
                    kind: PacketKind::Filler,
                    dwords: rest.get(..1).unwrap_or(&[]),
                })
            }
            _ => {}
        }
        let opcode = (header >> 8) as u8;
        let info = op_info(opcode).ok_or(DecodeError::UnknownOpcode {
            offset,
            header,
            opcode,
        })?;
        let name = || info.display_name();
        if info.graphics_only && self.engine == Engine::Compute {
            return Err(DecodeError::WrongEngine {
                offset,
                opcode,
                name: name(),
            });
        }
        let count = (header >> 16) & MAX_COUNT;
        let len = if info.size == Size::Nop && count == MAX_COUNT {
            1
        } else {
            count as usize + 2
        };
        let dwords = rest.get(..len).ok_or_else(|| DecodeError::Truncated {
            offset,
            opcode,
            name: name(),
            needs: len,
            remaining: rest.len(),
        })?;
        let bad = |expected: String| DecodeError::BadCount {
            offset,
            opcode,
            name: name(),
            dwords: len,
            expected,
        };
        match info.size {
            Fixed(n) if len != n as usize => return Err(bad(format!("it is {n} dwords"))),
            AtLeast(n) if len < n as usize => {
                return Err(bad(format!("it is at least {n} dwords")))
            }
            Size::PerEngine { compute, graphics } => {
                let n = match self.engine {
                    Engine::Compute => compute,
                    Engine::Graphics => graphics,
                };
                if len != n as usize {
                    return Err(bad(format!("it is {n} dwords on {}", self.engine)));
                }
            }
            Size::EventWrite => {
                let index = (dwords.get(1).copied().unwrap_or(0) >> 8) & 0xf;
                let n =
                    event_write_size(self.engine, index).ok_or_else(|| DecodeError::BadField {
                        offset,
                        opcode,
                        name: name(),
                        field: "EVENT_INDEX",
                        value: index.into(),
                        reason: format!("not an EVENT_WRITE event index on {}", self.engine),
                    })?;
                if len != n {
                    return Err(bad(format!("EVENT_INDEX {index} makes it {n} dwords")));
                }
            }
            _ => {}
        }
        Ok(Packet {
            offset,
            kind: PacketKind::Type3 {
                info,
                predicate: header & 1 != 0,
                shader_type: header & 2 != 0,
            },
            dwords,
        })
    }
}

/// The size of EVENT_WRITE by EVENT_INDEX (PAL's `MEC_EVENT_WRITE_event_index_enum` and
/// `ME_EVENT_WRITE_event_index_enum` for gfx10): other (0) and the partial flushes (4) are the header and the
/// event dword; the sampling events (pipeline statistics 2 on both queues; pixel pipe 1 and stream-out 3 on
/// the graphics ring) add a 64-bit address. Other indices are not EVENT_WRITE's.
pub fn event_write_size(engine: Engine, index: u32) -> Option<usize> {
    match (engine, index) {
        (_, 0 | 4) => Some(2),
        (_, 2) | (Engine::Graphics, 1 | 3) => Some(4),
        _ => None,
    }
}

impl<'a> Iterator for Decoder<'a> {
    type Item = Result<Packet<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped || self.at >= self.words.len() {
            return None;
        }
        let r = self.frame();
        match &r {
            Ok(p) => self.at += p.dwords.len().max(1),
            Err(_) => self.stopped = true,
        }
        Some(r)
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::Compute => "a compute queue",
            Engine::Graphics => "the graphics ring",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_each_opcode_once_in_order() {
        for w in OPCODES.windows(2) {
            assert!(
                w[0].opcode < w[1].opcode,
                "{:#x} {:#x}",
                w[0].opcode,
                w[1].opcode
            );
        }
    }

    #[test]
    fn amd_names_with_the_agc_aliases_beside_them() {
        let names = |op: u8| op_info(op).map(|i| (i.name, i.agc));
        assert_eq!(
            names(0x63),
            Some(("LOAD_SH_REG_INDEX", Some("SET_SH_REG_INDIRECT")))
        );
        assert_eq!(
            names(0x64),
            Some(("LOAD_UCONFIG_REG_INDEX", Some("SET_UC_REG_INDIRECT")))
        );
        assert_eq!(
            names(0x9f),
            Some(("LOAD_CONTEXT_REG_INDEX", Some("SET_CX_REG_INDIRECT")))
        );
        assert_eq!(names(0x73), Some(("SET_CONTEXT_REG_INDIRECT", None)));
        assert_eq!(names(0x93), Some(("WAIT_REG_MEM64", None)));
        assert_eq!(op_info(0x47), None, "EVENT_WRITE_EOP is gfx6-8's");
        let run: Vec<&str> = OPCODES
            .iter()
            .filter(|o| o.executed)
            .map(|o| o.name)
            .collect();
        assert_eq!(
            run,
            [
                "NOP",
                "SET_BASE",
                "DISPATCH_DIRECT",
                "DISPATCH_INDIRECT",
                "WRITE_DATA",
                "WAIT_REG_MEM",
                "INDIRECT_BUFFER",
                "EVENT_WRITE",
                "RELEASE_MEM",
                "DMA_DATA",
                "ACQUIRE_MEM",
                "LOAD_SH_REG_INDEX",
                "SET_SH_REG",
                "WAIT_REG_MEM64",
                "SET_SH_REG_INDEX"
            ]
        );
        assert_eq!(header(0x49, 8), 0xc006_4900);
        assert_eq!(header(0x63, 5), 0xc003_6300);
    }
}
