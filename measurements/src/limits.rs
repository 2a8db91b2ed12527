//! Every size the store accepts, in one place: input files, names, launches and the memory of one job.
//!
//! A measurement file comes from outside (a contributor, a peer corpus, an interrupted tool), so nothing read from
//! it may make a reader or a backend use unbounded time or memory. Each limit is far above what the bundled data
//! needs, so that real collections fit, and low enough that the worst accepted input still loads and runs on a
//! developer machine. The bundled figures below are the largest in `measurements/data` and `shared/corpus/peer`.
//!
//! | what | limit | bundled | why this value |
//! |---|---|---|---|
//! | peer JSON file | [`MAX_PEER_FILE_BYTES`] 64 MiB | 263 KB | 250x the largest peer file; parsing holds about 3x the file |
//! | `kernels.toml` | [`MAX_KERNELS_FILE_BYTES`] 16 MiB | 55 KB | 300x; a kernel is its words and memory list |
//! | row CSV (`<target>.csv`) | [`MAX_CSV_FILE_BYTES`] 256 MiB | 447 KB | 500x: about 500,000 rows of one target |
//! | one CSV record | [`MAX_CSV_RECORD_BYTES`] 1 MiB | 1 KB | a row of 4,096 columns with masks and checks is ~100 KB |
//! | a row's `source` | [`MAX_SOURCE_BYTES`] 16 KiB | 0.2 KB | about 150 merged sources; bounds the cost of a merge |
//! | suite, kernel, array, test and case names | [`MAX_NAME_BYTES`] 128 bytes | 71 | the CSV reader's long-standing limit |
//! | other free text of a kernel or peer file (provenance, labels) | [`MAX_TEXT_BYTES`] 64 KiB | 4 KB | notes of a peer case are the longest |
//! | lanes of one dispatch (threads x workgroups) | [`MAX_LANES`] 65,536 | 128 | 512x; 64 full 1,024-thread groups |
//! | workgroups of one dispatch | [`MAX_WORKGROUPS`] 4,096 | 1 | a backend pays per group (waves, LDS) whatever its size |
//! | arrays of one job | [`MAX_ARRAYS`] 64 | 3 | a gfx10 wave can hold at most 26 V#s in its SGPRs |
//! | bytes of one array | [`MAX_ARRAY_BYTES`] 64 MiB | 64 KiB | [`MAX_LANES`] lanes of 256 input dwords |
//! | bytes of all arrays of one job | [`MAX_JOB_BYTES`] 128 MiB | 66 KiB | a backend holds the image, its mapping and the result |
//!
//! Every product of launch sizes (threads x workgroups, lanes x dwords) is computed checked, so a value that would
//! wrap is refused with the limit named, never wrapped into a small number ([`crate::kernel::Kernel::lanes`]).
//! An error message quotes at most [`QUOTE_CHARS`] characters of a value ([`crate::hex::truncate`]).

/// Largest peer JSON file `oracle import-peer` reads.
pub const MAX_PEER_FILE_BYTES: u64 = 64 << 20;
/// Largest `kernels.toml` the store reads.
pub const MAX_KERNELS_FILE_BYTES: u64 = 16 << 20;
/// Largest row CSV file the store reads.
pub const MAX_CSV_FILE_BYTES: u64 = 256 << 20;
/// Largest single CSV record (one row's line), so one absurd row cannot hold the rest of the file in a field.
pub const MAX_CSV_RECORD_BYTES: usize = 1 << 20;
/// Largest `source` of a row (several sources joined by ` ; ` after merges).
pub const MAX_SOURCE_BYTES: usize = 16 << 10;
/// Longest suite, kernel, array, peer test or peer case name, in bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// Longest other free-text value of a kernel file or peer file (provenance fields, labels, descriptions).
pub const MAX_TEXT_BYTES: usize = 64 << 10;
/// Most lanes (threads per group x workgroups) of one dispatch.
pub const MAX_LANES: u64 = 1 << 16;
/// Most workgroups of one dispatch.
pub const MAX_WORKGROUPS: u64 = 1 << 12;
/// Most arrays in one job's memory image.
pub const MAX_ARRAYS: usize = 64;
/// Largest array of a job's memory image, in bytes.
pub const MAX_ARRAY_BYTES: u32 = 64 << 20;
/// Largest sum of the array sizes of one job's memory image, in bytes.
pub const MAX_JOB_BYTES: u64 = 128 << 20;
/// Characters of a value an error message quotes before it is cut short.
pub const QUOTE_CHARS: usize = 80;

// The limits agree with one another, checked when the crate compiles: the rows array of the largest dispatch
// (every lane, 256 input dwords) is the largest array, and one such array fits in a job.
const _: () = {
    assert!(MAX_LANES * 256 * 4 == MAX_ARRAY_BYTES as u64);
    assert!(MAX_WORKGROUPS <= MAX_LANES);
    assert!(MAX_ARRAY_BYTES as u64 <= MAX_JOB_BYTES);
};

/// A byte count for messages: `64 MiB`, `512 KiB` or `1000 bytes`.
pub fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_read_well() {
        assert_eq!(bytes(MAX_JOB_BYTES), "128 MiB");
        assert_eq!(bytes(16 << 10), "16 KiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
