//! Measured rows and the kernels they were measured with: the format, measurement IDs, validation, merging and
//! atomic writing, the peer-corpus importer, and the job/backend abstraction every tool shares.
//!
//! # Layout on disk
//!
//! `measurements/data/<suite>/kernels.toml` holds a suite's kernels ([`kernel`]); `<target>.csv` beside it holds
//! the rows measured on that target ([`csvio`]; the targets are [`row::KNOWN_TARGETS`]). Every kernel of a suite
//! folder has rows there. The loader refuses a suite folder with no row file, a row file with no rows, a kernel
//! without rows, a file named like a row file that is not `<known target>.csv`, and a store whose last import was
//! interrupted after it committed ([`store`] docs): a damaged store is an error naming the folder, never a run
//! with fewer cells. Hidden entries (`.tmp-*`, `.old-*`, `.import-*.commit`) are an import's work in progress
//! ([`commit`]), never suites.
//!
//! # Limits
//!
//! Every input is bounded: file sizes, name lengths, launch sizes (lanes and workgroups of a dispatch, computed
//! checked) and the memory a job maps. The table, with the bundled figures and why each limit is what it is, is
//! in [`limits`]; names are checked by [`names`], files are read by [`input`].
//!
//! # Row format
//!
//! One CSV line per lane of a dispatch, with the header [`csvio::HEADER`]:
//!
//! | field | meaning |
//! |---|---|
//! | `id` | measurement ID ([`id`]), derived from the content; cite it |
//! | `suite`, `kernel` | the suite and the kernel's name in its `kernels.toml` |
//! | `target` | the chip the values come from (`gfx1036`, or `rdna2` when the source says no more); the file name |
//! | `float_mode`, `ieee`, `dx10_clamp`, `fp16_ovfl` | the float mode: FLOAT_MODE as 2 hex digits, then 0/1 |
//! | `dispatch` | 16 hex digits: hash of the kernel and every lane's inputs; rows with one value ran together |
//! | `lane` | the lane's index in the dispatch (group * threads + local id) |
//! | `inputs` | the lane's input dwords, space-separated 8-digit lowercase hex |
//! | `array` | the array of the kernel's memory list the row's outputs are read from after the dispatch |
//! | `stride_dwords` | lane L's outputs start at dword `L * stride_dwords` of `array` ([`row::Placement`]) |
//! | `columns` | the output dword indices (below `stride_dwords`) that have expected values, ascending |
//! | `outputs` | the expected values, parallel to `columns` |
//! | `masks` | the compared bits per column; empty means all `ffffffff` |
//! | `checks` | one letter per column ([`row::Check`]); empty means all `x` |
//! | `evidence` | `hardware`, `peer-pinned`, `peer-formula`, or `model` (a dry run of `oracle collect --backend model`: not a measurement, never merged with the others under one ID) |
//! | `source` | who measured it where, or `repo@commit:path#case` of a transcribed test (several joined by ` ; `) |
//!
//! What a row compares (`array`, `stride_dwords`) belongs to the row, not to the kernel: two rows of one
//! dispatch may read different arrays (`out` and `scratch`) and then run as one job. A row's placement is checked
//! against its kernel when it is loaded: the array exists, every column is below the stride, and the array holds
//! the columns of every lane of the dispatch. A row comparing anything but the kernel's default placement (`out`
//! at stride `output_dwords`) has that placement in its measurement ID ([`id`]); rows comparing the default have
//! the IDs they always had.
//!
//! # Guarantees
//!
//! - Every error names the file, the line and (for CSV) the field number, or for TOML the kernel and key path,
//!   and says what was wrong; a quoted value is cut to [`limits::QUOTE_CHARS`] characters with its size. Invalid
//!   UTF-8 is reported at the line, column and byte offset of the first bad byte. Nothing panics on any input
//!   (`tests/fuzz.rs`).
//! - Unknown keys and arrays of the wrong length (`grid`, `tgid`, `groups`) are refused, in kernel TOML and peer
//!   JSON alike.
//! - Two rows with one ID merge (columns united, sources united); if they disagree on a cell the load fails with
//!   a [`error::Conflict`] that says what differs (value, mask or check): a repeatability failure is never
//!   resolved silently.
//! - Reading, importing and loading take time linear in the input.
//! - Writers check what they write with the readers' own functions before writing anything
//!   ([`store::Suite::check_writable`]), so the store never writes what it refuses to read.
//! - Writes are atomic: a file through [`atomic::write_atomic`] (temp file, fsync, rename), a suite and a whole
//!   import through [`commit::write_suites`] (staged folders, a commit journal, renames), so a writer killed at any
//!   point leaves every suite old or new, and the next import settles the store.
#![deny(missing_docs)]

pub mod atomic;
pub mod commit;
pub mod compare;
pub mod csvio;
mod de;
pub mod error;
pub mod hex;
pub mod id;
pub mod input;
pub mod job;
pub mod kernel;
pub mod limits;
pub mod mode;
pub mod names;
pub mod peer;
pub mod row;
pub mod store;

pub use error::{Error, Result};
pub use job::{Backend, BackendError, Job, JobOutput};
pub use mode::FloatMode;
pub use store::{Dataset, Suite};

/// The folder of the bundled measurements (`measurements/data` in the source tree).
pub fn bundled_data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}
