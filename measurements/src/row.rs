//! One measured row: one lane of one dispatch of one kernel in one float mode on one target.

use crate::mode::FloatMode;
use std::fmt;

/// How one cell (one output dword of one row) is compared, under its mask.
///
/// The letters are those of the peer corpus (shared/corpus/README.md): the NaN-tolerant ones exist because the
/// source accepted any NaN there, so its expected NaN bits are not the hardware's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    /// `x`: bit-exact.
    Exact,
    /// `n`: bit-exact, or both values are f32 NaNs.
    NanF32,
    /// `h`: bit-exact, or the upper 16 bits are equal and both low halves are f16 NaNs.
    NanF16LowHighEqual,
    /// `l`: bit-exact, or both low halves are f16 NaNs.
    NanF16Low,
    /// `a`: the output must be an f32 NaN; the expected value is not used.
    AnyNanF32,
    /// `-`: not checked (the cell is not counted).
    Unchecked,
}

impl Check {
    /// The check's letter.
    pub fn letter(self) -> char {
        match self {
            Check::Exact => 'x',
            Check::NanF32 => 'n',
            Check::NanF16LowHighEqual => 'h',
            Check::NanF16Low => 'l',
            Check::AnyNanF32 => 'a',
            Check::Unchecked => '-',
        }
    }

    /// The check for a letter.
    pub fn from_letter(c: char) -> Option<Check> {
        Some(match c {
            'x' => Check::Exact,
            'n' => Check::NanF32,
            'h' => Check::NanF16LowHighEqual,
            'l' => Check::NanF16Low,
            'a' => Check::AnyNanF32,
            '-' => Check::Unchecked,
            _ => return None,
        })
    }
}

/// What kind of evidence a row is (DESIGN.md, "Measurements"); reports count each apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// Measured by the hardware oracle.
    Hardware,
    /// A peer test's value, pinned from hardware runs.
    PeerPinned,
    /// A peer test's own formula.
    PeerFormula,
    /// Computed by the reference model (`oracle collect --backend model`, a dry run): not a measurement.
    /// Its ID is the one a hardware row of the same kernel, mode, inputs and lane gets, so a dry run can
    /// be compared with a collection by ID, but the store never merges the two under one ID.
    Model,
}

impl Evidence {
    /// The name written in files.
    pub fn name(self) -> &'static str {
        match self {
            Evidence::Hardware => "hardware",
            Evidence::PeerPinned => "peer-pinned",
            Evidence::PeerFormula => "peer-formula",
            Evidence::Model => "model",
        }
    }

    /// Parses a name written in files.
    pub fn parse(text: &str) -> Option<Evidence> {
        Some(match text {
            "hardware" => Evidence::Hardware,
            "peer-pinned" => Evidence::PeerPinned,
            "peer-formula" => Evidence::PeerFormula,
            "model" => Evidence::Model,
            _ => return None,
        })
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One expected output dword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Dword index within the lane's outputs (0-based, below the row's [`Placement::stride_dwords`]).
    pub column: u32,
    /// The expected value.
    pub value: u32,
    /// Bits that are compared.
    pub mask: u32,
    /// How the cell is compared.
    pub check: Check,
}

/// What a row compares: the array its output dwords are read from after the dispatch, and the lane stride.
///
/// Lane L's column c is dword `L * stride_dwords + c` of `array`. It belongs to the row, not to the kernel
/// (DESIGN.md): two rows of one dispatch may read different arrays, e.g. `out` and `scratch`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    /// The array's name in the kernel's memory list.
    pub array: String,
    /// Dwords between the starts of consecutive lanes' outputs.
    pub stride_dwords: u32,
}

impl Placement {
    /// A placement in `array` at `stride_dwords`.
    pub fn new(array: &str, stride_dwords: u32) -> Placement {
        Placement {
            array: array.to_string(),
            stride_dwords,
        }
    }

    /// The dword of the array that holds `column` of `lane` (never overflows: both factors are 32-bit).
    pub fn dword(&self, lane: u32, column: u32) -> u64 {
        lane as u64 * self.stride_dwords as u64 + column as u64
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at lane stride {}", self.array, self.stride_dwords)
    }
}

/// One measured row. Field meanings: crate docs, "Row format".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The measurement ID (`M-` and 16 hex digits), derived from the row's content.
    pub id: String,
    /// The suite (a folder under `measurements/data`).
    pub suite: String,
    /// The kernel's name in the suite's `kernels.toml`.
    pub kernel: String,
    /// The chip the values come from (`gfx1036`, `rdna2`, ...).
    pub target: String,
    /// The float mode the dispatch ran in.
    pub mode: FloatMode,
    /// Hash of the dispatch (kernel content and every lane's inputs): rows with the same one ran together.
    pub dispatch: String,
    /// The lane's index in the dispatch (workgroup-major: group * threads + local id).
    pub lane: u32,
    /// The lane's input dwords.
    pub inputs: Vec<u32>,
    /// Where the compared dwords are read after the dispatch.
    pub placement: Placement,
    /// The expected output cells, in ascending column order.
    pub cells: Vec<Cell>,
    /// What kind of evidence the row is.
    pub evidence: Evidence,
    /// Who measured it where, or which public test it was transcribed from.
    pub source: String,
}

impl Row {
    /// The cells that are compared (not `-`).
    pub fn checked_cells(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(|c| c.check != Check::Unchecked)
    }
}

/// The targets a row may name: the gfx10 chips and the two family names for data that says no more (DESIGN.md,
/// "Measurements"). A row file is `<target>.csv`, so this list is also every row file name the loader accepts:
/// a CSV file named anything else in a suite folder is refused rather than skipped.
pub const KNOWN_TARGETS: [&str; 13] = [
    "rdna1", "rdna2", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032",
    "gfx1033", "gfx1034", "gfx1035", "gfx1036",
];

/// Is `name` a known target ([`KNOWN_TARGETS`])?
pub fn valid_target(name: &str) -> bool {
    KNOWN_TARGETS.contains(&name)
}
