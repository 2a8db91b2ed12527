//! The command processor: runs a submitted command buffer packet by packet against guest memory, keeps the SH
//! register state, and hands each dispatch to a backend as a job ([`super::dispatch`]).
//!
//! It runs one queue, in order, and every packet completes before the next starts: a dispatch's results are in
//! guest memory when the next packet runs, so cache and synchronisation packets (ACQUIRE_MEM, EVENT_WRITE
//! flushes, the cache actions of RELEASE_MEM) have nothing left to do, and a WAIT_REG_MEM either holds at once
//! or never will. The first packet it cannot carry out stops the submission with a [`CpError`] at that packet;
//! nothing after it runs.

use super::command::{command, Command, IndirectArgs, MemSpace};
use super::dispatch::{self, ShState};
use super::error::{CpError, CpErrorKind, Location, Refusal};
use super::memory::{Fault, Memory};
use super::packet::{decode_from, op_info, opcode as op, Packet, PacketKind};
use super::regs::{self, Role};
use super::Engine;
use measurements::job::Backend;
use measurements::FloatMode;

/// How a command processor runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The kind of queue: compute (AGC's ACB) or the graphics ring (DCB).
    pub engine: Engine,
    /// The chip the jobs are for (`gfx1013`, the PS5).
    pub target: String,
    /// The most packets one submission may run (a chain of INDIRECT_BUFFERs that loops ends here).
    pub max_packets: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            engine: Engine::Compute,
            target: "gfx1013".into(),
            max_packets: 1 << 24,
        }
    }
}

/// One dispatch the command processor launched (or found empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchRecord {
    /// Where its packet is.
    pub at: Location,
    /// The shader's guest address.
    pub pgm: u64,
    /// Wave size.
    pub wave: u32,
    /// Threads per workgroup.
    pub threads: u32,
    /// Workgroups.
    pub groups: [u32; 3],
    /// Float mode.
    pub mode: FloatMode,
    /// User SGPRs.
    pub user_data: Vec<u32>,
    /// User SGPRs no packet wrote (they were 0).
    pub unset_user_data: Vec<u16>,
    /// Workgroup-id SGPRs.
    pub tgid: [bool; 3],
    /// LDS bytes.
    pub lds_bytes: u32,
    /// Whether a job ran (false for a dispatch of no workgroups).
    pub ran: bool,
}

/// An interrupt a RELEASE_MEM asked for (INT_SEL), in the order they were raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupt {
    /// Where its packet is.
    pub at: Location,
    /// INT_SEL.
    pub int_sel: u32,
    /// INT_CTXID.
    pub context: u32,
}

/// What a submission did so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Packets run (type-2 fillers included).
    pub packets: u64,
    /// Dispatches, in order.
    pub dispatches: Vec<DispatchRecord>,
    /// Interrupts, in order.
    pub interrupts: Vec<Interrupt>,
}

/// A command processor over one guest memory.
#[derive(Debug, Clone)]
pub struct CommandProcessor {
    config: Config,
    memory: Memory,
    state: ShState,
    /// SET_BASE index 1 (graphics ring): what DISPATCH_INDIRECT's offset counts from.
    dispatch_base: Option<u64>,
    report: Report,
}

/// One buffer being run.
struct Frame {
    base: u64,
    words: Vec<u32>,
    pos: usize,
    level: u32,
}

/// What runs after a packet.
enum Flow {
    Next,
    Call(Frame),
    Chain(Frame),
}

type Step<T> = Result<T, (CpErrorKind, Option<u8>)>;

fn refused(what: impl Into<String>, reason: impl Into<String>) -> CpErrorKind {
    CpErrorKind::Refused(Refusal::new(what, reason))
}

fn fault(f: Fault, what: &str) -> CpErrorKind {
    CpErrorKind::Fault {
        fault: f,
        what: what.to_string(),
    }
}

impl CommandProcessor {
    /// A command processor with `memory` and no register written.
    pub fn new(memory: Memory, config: Config) -> CommandProcessor {
        CommandProcessor {
            config,
            memory,
            state: ShState::new(),
            dispatch_base: None,
            report: Report::default(),
        }
    }

    /// Guest memory as the packets and dispatches left it.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The guest memory, taken back.
    pub fn into_memory(self) -> Memory {
        self.memory
    }

    /// The SH register state.
    pub fn registers(&self) -> &ShState {
        &self.state
    }

    /// What the submissions did so far (also after an error: everything before the failing packet).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Runs the `dwords` dwords at `address` as an IB1 (the buffer a title submits), each dispatch on
    /// `backend`. On error nothing after the failing packet has run.
    pub fn submit(
        &mut self,
        address: u64,
        dwords: u32,
        backend: &dyn Backend,
    ) -> Result<(), CpError> {
        let top = Location {
            buffer: address,
            dword: 0,
            level: 1,
        };
        let words = self
            .memory
            .read_dwords(address, u64::from(dwords))
            .map_err(|f| CpError {
                at: top,
                opcode: None,
                kind: fault(f, "the submitted command buffer"),
            })?;
        let mut stack = vec![Frame {
            base: address,
            words,
            pos: 0,
            level: 1,
        }];
        let mut budget = self.config.max_packets;
        while let Some(frame) = stack.last_mut() {
            if frame.pos >= frame.words.len() {
                stack.pop();
                continue;
            }
            let at = Location {
                buffer: frame.base,
                dword: frame.pos,
                level: frame.level,
            };
            if budget == 0 {
                return Err(CpError {
                    at,
                    opcode: None,
                    kind: CpErrorKind::Budget {
                        packets: self.config.max_packets,
                    },
                });
            }
            budget -= 1;
            let next = decode_from(&frame.words, frame.pos, self.config.engine).next();
            let packet = match next {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    return Err(CpError {
                        at,
                        opcode: e.opcode(),
                        kind: CpErrorKind::Decode(e),
                    })
                }
                None => break,
            };
            let len = packet.dwords.len().max(1);
            let level = frame.level;
            let flow = self
                .execute(&packet, at, level, backend)
                .map_err(|(kind, opcode)| CpError { at, opcode, kind })?;
            self.report.packets += 1;
            frame.pos += len;
            match flow {
                Flow::Next => {}
                Flow::Call(f) => stack.push(f),
                Flow::Chain(f) => {
                    if let Some(top) = stack.last_mut() {
                        *top = f;
                    }
                }
            }
        }
        Ok(())
    }

    fn execute(
        &mut self,
        p: &Packet,
        at: Location,
        level: u32,
        backend: &dyn Backend,
    ) -> Step<Flow> {
        let (info, shader_type) = match p.kind {
            PacketKind::Filler => return Ok(Flow::Next),
            PacketKind::Type3 {
                info, shader_type, ..
            } => (info, shader_type),
        };
        let opcode = Some(info.opcode);
        let cmd = command(p, self.config.engine).map_err(|e| (CpErrorKind::Decode(e), opcode))?;
        let r = self.run(cmd, info.opcode, shader_type, at, level, backend);
        r.map_err(|k| (k, opcode))
    }

    fn run(
        &mut self,
        cmd: Command,
        opcode: u8,
        shader_type: bool,
        at: Location,
        level: u32,
        backend: &dyn Backend,
    ) -> Result<Flow, CpErrorKind> {
        let name = op_info(opcode).map_or("?".to_string(), |i| i.display_name());
        match cmd {
            Command::Filler | Command::AcquireMem { .. } => {}
            // Debug markers (push and pop, a string payload) change nothing on the GPU.
            Command::Nop {
                agc_subcommand: 0 | 0x0b | 0x0c,
                ..
            } => {}
            Command::Nop { agc_subcommand, .. } => {
                let what = super::command::agc_nop_name(agc_subcommand)
                    .map_or(String::new(), |n| format!(" ({n} in OpenAGC's reading)"));
                return Err(refused(
                    format!("a NOP with AGC subcommand {agc_subcommand:#x}{what}"),
                    "the AGC library wraps commands of its own in NOPs for the PS5's driver to act on at \
                     submission; skipping it as a NOP could drop work, so it is not run",
                ));
            }
            Command::SetShReg {
                opcode,
                start,
                index,
                values,
            } => {
                let writes: Vec<(u16, u32)> = (start..).zip(values).collect();
                let allowed_index = match (opcode, index) {
                    (_, 0) => true,
                    // SET_SH_REG_INDEX 3 ANDs a CU mask with the kernel driver's: scheduling only.
                    (op::SET_SH_REG_INDEX, 3) => writes
                        .iter()
                        .all(|(o, _)| regs::name(*o).starts_with("COMPUTE_DESTINATION_EN")),
                    _ => false,
                };
                if !allowed_index {
                    return Err(refused(
                        format!("{name} INDEX {index}"),
                        "only INDEX 0, and 3 on the CU masks, are carried out",
                    ));
                }
                self.write_registers(&writes)?;
            }
            Command::LoadShRegIndex {
                index,
                address,
                pairs,
                reg_offset,
                count,
            } => {
                if index != 0 {
                    return Err(refused(
                        format!("{name} INDEX {index}"),
                        "only a direct address (INDEX 0) is carried out",
                    ));
                }
                let writes: Vec<(u16, u32)> = if pairs {
                    let d = self
                        .memory
                        .read_dwords(address, u64::from(count) * 2)
                        .map_err(|f| fault(f, "the register list of LOAD_SH_REG_INDEX"))?;
                    let mut w = Vec::new();
                    for pair in d.chunks_exact(2) {
                        if let [o, v] = *pair {
                            let Some(o16) = u16::try_from(o)
                                .ok()
                                .filter(|&o| u32::from(o) < regs::SH_DWORDS)
                            else {
                                return Err(refused(
                                    format!("{name}: register offset {o:#x} in the list at {address:#x}"),
                                    "not in the SH register space",
                                ));
                            };
                            w.push((o16, v));
                        }
                    }
                    w
                } else {
                    let d = self
                        .memory
                        .read_dwords(address, u64::from(count))
                        .map_err(|f| fault(f, "the register values of LOAD_SH_REG_INDEX"))?;
                    if u32::from(reg_offset) + count > regs::SH_DWORDS {
                        return Err(refused(
                            format!("{name}: {count} registers from SH+{reg_offset:#x}"),
                            "they run past the SH register space",
                        ));
                    }
                    (reg_offset..).zip(d).collect()
                };
                self.write_registers(&writes)?;
            }
            Command::DispatchDirect { dims, initiator } => {
                self.check_shader_type(shader_type, &name)?;
                for (off, d) in (regs::DIM_X..).zip(dims) {
                    self.state.set(off, d);
                }
                self.dispatch(dims, initiator, at, backend)?;
            }
            Command::DispatchIndirect { args, initiator } => {
                self.check_shader_type(shader_type, &name)?;
                let address = match args {
                    IndirectArgs::Address(a) => a,
                    IndirectArgs::Offset(o) => {
                        let base = self.dispatch_base.ok_or_else(|| {
                            refused(
                                format!("{name} at offset {o:#x}"),
                                "no SET_BASE (index 1) gave the base the offset counts from",
                            )
                        })?;
                        base.wrapping_add(u64::from(o))
                    }
                };
                let d = self
                    .memory
                    .read_dwords(address, 3)
                    .map_err(|f| fault(f, "the group counts of DISPATCH_INDIRECT"))?;
                let dims = [
                    d.first().copied().unwrap_or(0),
                    d.get(1).copied().unwrap_or(0),
                    d.get(2).copied().unwrap_or(0),
                ];
                self.dispatch(dims, initiator, at, backend)?;
            }
            Command::SetBase { index, address } => {
                if index != 1 {
                    return Err(refused(
                        format!("{name} BASE_INDEX {index}"),
                        "only index 1 (the base of DISPATCH_INDIRECT) is carried out",
                    ));
                }
                self.dispatch_base = Some(address);
            }
            Command::IndirectBuffer {
                address,
                dwords,
                chain,
                valid,
                vmid: _,
            } => {
                if !valid {
                    return Err(refused(
                        format!("{name} with VALID clear"),
                        "a compute queue's INDIRECT_BUFFER sets VALID (PAL does); what the CP does without it is \
                         not documented",
                    ));
                }
                if !chain && level >= 2 {
                    return Err(refused(
                        format!("{name} call from an IB{level}"),
                        "the CP runs two IB levels: the submitted buffer and the buffers it calls",
                    ));
                }
                let words = self
                    .memory
                    .read_dwords(address, u64::from(dwords))
                    .map_err(|f| fault(f, "the indirect buffer"))?;
                let frame = Frame {
                    base: address,
                    words,
                    pos: 0,
                    level: if chain { level } else { level + 1 },
                };
                return Ok(if chain {
                    Flow::Chain(frame)
                } else {
                    Flow::Call(frame)
                });
            }
            Command::WriteData {
                dst,
                increment,
                address,
                data,
            } => {
                if dst != MemSpace::Memory {
                    return Err(refused(
                        format!("{name} DST_SEL {dst:?}"),
                        "only writes to memory are carried out",
                    ));
                }
                let span = if increment { data.len() as u64 * 4 } else { 4 };
                self.memory.read(address, span).map_err(|mut f| {
                    f.write = true;
                    fault(f, "the destination of WRITE_DATA")
                })?;
                for (i, v) in data.iter().enumerate() {
                    let a = if increment {
                        address + 4 * i as u64
                    } else {
                        address
                    };
                    self.memory
                        .write_u32(a, *v)
                        .map_err(|f| fault(f, "the destination of WRITE_DATA"))?;
                }
            }
            Command::DmaData {
                src,
                dst,
                source,
                destination,
                bytes,
                sas,
                das,
                saic,
                daic,
            } => {
                let what = |w: &str| format!("{name} {w}");
                if sas || das {
                    return Err(refused(
                        what("with SAS or DAS"),
                        "register addresses are not carried out",
                    ));
                }
                if saic || daic {
                    return Err(refused(
                        what("with SAIC or DAIC"),
                        "addresses that do not advance are not carried out",
                    ));
                }
                if bytes == 0 {
                    return Err(refused(
                        what("BYTE_COUNT 0"),
                        "what the CP does with no bytes is not documented",
                    ));
                }
                match (src, dst) {
                    (_, MemSpace::Nowhere) => {}
                    (Some(MemSpace::Memory), MemSpace::Memory) => {
                        let n = u64::from(bytes);
                        let (s_end, d_end) =
                            (source.saturating_add(n), destination.saturating_add(n));
                        if source < d_end && destination < s_end {
                            return Err(refused(
                                what(&format!("{source:#x} to {destination:#x} ({bytes} bytes)")),
                                "overlapping copies are not carried out (their order is not documented)",
                            ));
                        }
                        let data = self
                            .memory
                            .read(source, n)
                            .map_err(|f| fault(f, "the source of DMA_DATA"))?
                            .to_vec();
                        self.memory
                            .write(destination, &data)
                            .map_err(|f| fault(f, "the destination of DMA_DATA"))?;
                    }
                    (None, MemSpace::Memory) => {
                        if destination % 4 != 0 || bytes % 4 != 0 {
                            return Err(refused(
                                what(&format!("fill of {bytes} bytes at {destination:#x}")),
                                "a DATA fill writes whole dwords",
                            ));
                        }
                        let fill: Vec<u8> = (0..bytes / 4)
                            .flat_map(|_| (source as u32).to_le_bytes())
                            .collect();
                        self.memory
                            .write(destination, &fill)
                            .map_err(|f| fault(f, "the destination of DMA_DATA"))?;
                    }
                    _ => {
                        return Err(refused(what("to or from GDS"), "there is no GDS here"));
                    }
                }
            }
            Command::ReleaseMem {
                event_type,
                event_index,
                gcr_cntl: _,
                dst_sel,
                int_sel,
                data_sel,
                address,
                data,
                int_ctxid,
            } => {
                let event_ok = match event_index {
                    // End-of-pipe timestamp events.
                    5 => matches!(event_type, 0x04 | 0x14 | 0x28 | 0x2b | 0x2d),
                    // Shader-done events.
                    6 => matches!(event_type, 0x2f | 0x30),
                    _ => false,
                };
                if !event_ok {
                    return Err(refused(
                        format!("{name} EVENT_TYPE {event_type:#x} EVENT_INDEX {event_index}"),
                        "not an end-of-pipe or shader-done event",
                    ));
                }
                if dst_sel > 1 {
                    return Err(refused(
                        format!("{name} DST_SEL {dst_sel}"),
                        "only memory destinations (0 and 1) are carried out",
                    ));
                }
                if int_sel > 4 {
                    return Err(refused(
                        format!("{name} INT_SEL {int_sel}"),
                        "conditional interrupts are not carried out",
                    ));
                }
                match data_sel {
                    0 => {}
                    1 => self
                        .memory
                        .write_u32(address, data as u32)
                        .map_err(|f| fault(f, "the destination of RELEASE_MEM"))?,
                    2 => self
                        .memory
                        .write(address, &data.to_le_bytes())
                        .map_err(|f| fault(f, "the destination of RELEASE_MEM"))?,
                    _ => {
                        return Err(refused(
                            format!("{name} DATA_SEL {data_sel}"),
                            "only no data, 32-bit and 64-bit data are carried out (a clock or GDS value has no \
                             value here)",
                        ))
                    }
                }
                if int_sel != 0 {
                    self.report.interrupts.push(Interrupt {
                        at,
                        int_sel,
                        context: int_ctxid,
                    });
                }
            }
            Command::WaitRegMem {
                wide,
                function,
                memory,
                operation,
                address,
                reference,
                mask,
                poll_interval: _,
            } => {
                if !memory || (operation != 0 && operation != 3) {
                    return Err(refused(
                        format!(
                            "{name} MEM_SPACE {} OPERATION {operation}",
                            u32::from(memory)
                        ),
                        "only waits on memory are carried out",
                    ));
                }
                let n = if wide { 8 } else { 4 };
                let raw = self
                    .memory
                    .read(address, n)
                    .map_err(|f| fault(f, "the polled value of WAIT_REG_MEM"))?;
                let value = raw.iter().rev().fold(0u64, |v, b| (v << 8) | u64::from(*b));
                let v = value & mask;
                let ok = match function {
                    0 => true,
                    1 => v < reference,
                    2 => v <= reference,
                    3 => v == reference,
                    4 => v != reference,
                    5 => v >= reference,
                    _ => v > reference,
                };
                if !ok {
                    let op = ["always", "<", "<=", "==", "!=", ">=", ">"]
                        .get(function as usize)
                        .copied()
                        .unwrap_or("?");
                    return Err(CpErrorKind::WaitNeverSatisfied {
                        address,
                        value,
                        condition: format!("value & {mask:#x} {op} {reference:#x}"),
                    });
                }
            }
            Command::EventWrite {
                event_type,
                event_index,
                address,
            } => {
                if address.is_some() {
                    return Err(refused(
                        format!("{name} EVENT_INDEX {event_index}"),
                        "sampling counters to memory is not carried out",
                    ));
                }
                // Flushes and partial flushes: every earlier packet has already completed here.
                let graphics = self.config.engine == Engine::Graphics;
                let ok = matches!(event_type, 0x06 | 0x07 | 0x16)
                    || (graphics && matches!(event_type, 0x0f | 0x10));
                if !ok {
                    return Err(refused(
                        format!("{name} EVENT_TYPE {event_type:#x}"),
                        "only cache flushes and partial flushes are carried out",
                    ));
                }
            }
            Command::Other { .. } => {
                return Err(refused(name, "outside the compute path"));
            }
        }
        Ok(Flow::Next)
    }

    /// On the graphics ring a dispatch packet says SHADER_TYPE 1 (compute), as Mesa and PAL write it.
    fn check_shader_type(&self, shader_type: bool, name: &str) -> Result<(), CpErrorKind> {
        if self.config.engine == Engine::Graphics && !shader_type {
            return Err(refused(
                format!("{name} with SHADER_TYPE 0"),
                "a dispatch on the graphics ring is a compute packet (SHADER_TYPE 1)",
            ));
        }
        Ok(())
    }

    /// Writes SH registers after checking all of them, so a refused packet changes nothing.
    fn write_registers(&mut self, writes: &[(u16, u32)]) -> Result<(), CpErrorKind> {
        for &(offset, v) in writes {
            match regs::register(offset) {
                None => {
                    return Err(refused(
                        format!("a write of {v:#x} to SH+{offset:#05x}"),
                        "no gfx10 compute register is there",
                    ))
                }
                Some(r) if r.role == Role::CpWritten => {
                    return Err(refused(
                        format!("a write of {v:#x} to {}", r.name),
                        "the CP writes it itself when it dispatches",
                    ))
                }
                Some(_) => {}
            }
        }
        for &(offset, v) in writes {
            self.state.set(offset, v);
        }
        Ok(())
    }

    fn dispatch(
        &mut self,
        dims: [u32; 3],
        initiator: u32,
        at: Location,
        backend: &dyn Backend,
    ) -> Result<(), CpErrorKind> {
        let d = dispatch::dispatch(&self.state, dims, initiator).map_err(CpErrorKind::Refused)?;
        self.state.set(regs::DISPATCH_INITIATOR, initiator);
        let index = self.report.dispatches.len();
        let mut record = DispatchRecord {
            at,
            pgm: d.pgm,
            wave: d.wave,
            threads: d.threads,
            groups: d.groups,
            mode: d.mode,
            user_data: d.user_data.clone(),
            unset_user_data: d.unset_user_data.clone(),
            tgid: d.tgid,
            lds_bytes: d.lds_bytes,
            ran: false,
        };
        if d.is_empty() {
            self.report.dispatches.push(record);
            return Ok(());
        }
        let job = dispatch::job(&d, &self.memory, &self.config.target, index)?;
        let out = backend.run(&job).map_err(CpErrorKind::Backend)?;
        for (name, dwords) in &out.arrays {
            if !self.memory.replace(name, dwords) {
                return Err(refused(
                    format!("the backend's result for region `{name}`"),
                    "it is not a region of guest memory of that size",
                ));
            }
        }
        record.ran = true;
        self.report.dispatches.push(record);
        Ok(())
    }
}
