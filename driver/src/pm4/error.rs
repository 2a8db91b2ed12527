//! The command processor's errors: where in which buffer, and what.

use super::memory::Fault;
use super::packet::DecodeError;
use measurements::job::BackendError;
use std::fmt;

/// Where a packet is: the guest address of the buffer it is in, its dword offset there, and the buffer's IB
/// level (1: the submitted buffer, 2: one it calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Guest address of the buffer's first dword.
    pub buffer: u64,
    /// Dword offset of the packet's header in the buffer.
    pub dword: usize,
    /// IB level.
    pub level: u32,
}

impl Location {
    /// Guest address of the packet's header.
    pub fn address(&self) -> u64 {
        self.buffer.wrapping_add(self.dword as u64 * 4)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dword {} of the IB{} at {:#x} (address {:#x})",
            self.dword,
            self.level,
            self.buffer,
            self.address()
        )
    }
}

/// Something the compute path does not carry out, with the reason: refused, never guessed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What (a packet, a field and its value, a register, an initiator bit).
    pub what: String,
    /// Why.
    pub reason: String,
}

impl Refusal {
    /// A refusal of `what` because `reason`.
    pub fn new(what: impl Into<String>, reason: impl Into<String>) -> Refusal {
        Refusal {
            what: what.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.reason)
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpErrorKind {
    /// The packet could not be framed or decoded (its offset is the location's).
    Decode(DecodeError),
    /// A packet, field, register or bit outside what the compute path carries out.
    Refused(Refusal),
    /// A packet read or wrote memory outside every region.
    Fault {
        /// The access.
        fault: Fault,
        /// What was accessed (an indirect buffer, the shader code, ...).
        what: String,
    },
    /// A WAIT_REG_MEM whose condition does not hold once every earlier packet has completed: no other queue
    /// runs here, so nothing could ever satisfy it.
    WaitNeverSatisfied {
        /// The polled address.
        address: u64,
        /// The value there.
        value: u64,
        /// The comparison, as text (`value & mask == reference`).
        condition: String,
    },
    /// The submission ran more packets than the CP's budget (an INDIRECT_BUFFER chain that loops).
    Budget {
        /// The budget.
        packets: u64,
    },
    /// The backend running a dispatch failed; its error unchanged.
    Backend(BackendError),
}

/// An error of the command processor: where, with the opcode of the packet at fault when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpError {
    /// Where.
    pub at: Location,
    /// The opcode of the packet (type-3 packets).
    pub opcode: Option<u8>,
    /// What.
    pub kind: CpErrorKind,
}

impl fmt::Display for CpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PM4 {}", self.at)?;
        if let Some(op) = self.opcode {
            let name =
                super::packet::op_info(op).map_or("unknown".to_string(), |i| i.display_name());
            write!(f, ", {name} ({op:#04x})")?;
        }
        match &self.kind {
            CpErrorKind::Decode(e) => write!(f, ": {e}"),
            CpErrorKind::Refused(r) => write!(f, ": unsupported: {r}"),
            CpErrorKind::Fault { fault, what } => write!(f, ": {what}: {fault}"),
            CpErrorKind::WaitNeverSatisfied {
                address,
                value,
                condition,
            } => write!(
                f,
                ": the wait on {address:#x} can never end: it holds {value:#x} and waits for {condition}, and every \
                 earlier packet has completed"
            ),
            CpErrorKind::Budget { packets } => write!(
                f,
                ": the submission ran {packets} packets, the CP's budget (an INDIRECT_BUFFER chain that loops?)"
            ),
            CpErrorKind::Backend(e) => write!(f, ": the dispatch failed: {e}"),
        }
    }
}

impl std::error::Error for CpError {}

impl CpError {
    /// The error as a backend's: a backend failure unchanged, a refusal as `Unsupported`, a fault as `Fault`,
    /// anything else (a malformed command buffer, a wait that cannot end) as `InvalidJob`.
    pub fn to_backend_error(&self) -> BackendError {
        match &self.kind {
            CpErrorKind::Backend(e) => e.clone(),
            CpErrorKind::Refused(r) => BackendError::Unsupported {
                instruction: format!("PM4 {} at {}", r.what, self.at),
                reason: r.reason.clone(),
            },
            CpErrorKind::Fault { fault, what } => BackendError::Fault {
                address: fault.address,
                pc: 0,
                reason: format!("{what} (PM4 {})", self.at),
            },
            _ => BackendError::InvalidJob(self.to_string()),
        }
    }
}
