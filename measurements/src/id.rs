//! Measurement IDs and dispatch hashes.
//!
//! A measurement ID is `M-` followed by the first 16 hex digits of SHA-256 over this canonical string (UTF-8,
//! every line ending in `\n`):
//!
//! ```text
//! measurement-id-v1
//! kernel=<the kernel's content hash: 64 lowercase hex digits>
//! target=<target>
//! mode=<float_mode as 2 hex digits>/<ieee>/<dx10_clamp>/<fp16_ovfl>
//! dispatch=<the dispatch hash: 16 lowercase hex digits>
//! lane=<lane in decimal>
//! compare=<array>:stride=<stride_dwords in decimal>      (only when the row's placement is not the default)
//! ```
//!
//! The last line is what the row compares ([`crate::row::Placement`]), written only when that is not the
//! kernel's default placement, `out` at stride `output_dwords` ([`crate::kernel::Kernel::default_placement`]).
//! Every row measured before placements were per row compared the default, so its string, and its ID, is
//! byte-for-byte what it was. The scheme keeps both guarantees: the default is a function of the kernel's
//! content (its `output_dwords` is in the content hash), so one measurement always gives one string; and two
//! placements of one lane give two strings (the default has no `compare=` line, any other placement has its
//! own), so comparing `out` and comparing `scratch` of the same dispatch are two measurements with two IDs.
//!
//! The dispatch hash is the first 16 hex digits of SHA-256 over:
//!
//! ```text
//! dispatch-v1
//! kernel=<the kernel's content hash>
//! lane=<lane>:<inputs as space-separated 8-digit hex>     (one line per lane present, ascending)
//! ```
//!
//! The kernel content hash already covers the memory image layout and the user-SGPR recipe
//! ([`crate::kernel::Kernel::canonical`]), so the dispatch hash covers all that ran. What a row compares is not
//! part of the dispatch: rows of one dispatch that read different arrays share its hash (and run as one job).
//! Nothing here depends on file names, file order or the kernel's name: the same measurement made twice gets
//! the same ID.

use crate::hex::format_dwords;
use crate::kernel::hex_digest;
use crate::mode::FloatMode;
use crate::row::Placement;
use std::fmt::Write as _;

/// The canonical string a measurement ID is hashed from. `compare` is the row's placement when it is not the
/// kernel's default ([`crate::kernel::Kernel::id_placement`] gives it), `None` for the default.
pub fn id_canonical(
    kernel_hash: &str,
    target: &str,
    mode: &FloatMode,
    dispatch: &str,
    lane: u32,
    compare: Option<&Placement>,
) -> String {
    let mut s = format!(
        "measurement-id-v1\nkernel={kernel_hash}\ntarget={target}\nmode={}\ndispatch={dispatch}\nlane={lane}\n",
        mode.canonical()
    );
    if let Some(p) = compare {
        let _ = writeln!(s, "compare={}:stride={}", p.array, p.stride_dwords);
    }
    s
}

/// The measurement ID of one row (arguments as [`id_canonical`]).
pub fn measurement_id(
    kernel_hash: &str,
    target: &str,
    mode: &FloatMode,
    dispatch: &str,
    lane: u32,
    compare: Option<&Placement>,
) -> String {
    let digest =
        hex_digest(id_canonical(kernel_hash, target, mode, dispatch, lane, compare).as_bytes());
    format!("M-{}", &digest[..16])
}

/// The dispatch hash of a kernel run with the given lanes' inputs (any order; sorted here).
pub fn dispatch_hash(kernel_hash: &str, lanes: &[(u32, &[u32])]) -> String {
    let mut sorted: Vec<&(u32, &[u32])> = lanes.iter().collect();
    sorted.sort_by_key(|(l, _)| *l);
    let mut s = format!("dispatch-v1\nkernel={kernel_hash}\n");
    for (lane, inputs) in sorted {
        let _ = writeln!(s, "lane={lane}:{}", format_dwords(inputs));
    }
    hex_digest(s.as_bytes())[..16].to_string()
}

/// Is `id` shaped like a measurement ID?
pub fn valid_id(id: &str) -> bool {
    id.len() == 18
        && id.starts_with("M-")
        && id[2..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fixed vectors: if these change, every measurement ID ever cited changes. Never edit them to make a test pass.
    #[test]
    fn fixed_vectors() {
        let k = "0".repeat(64);
        assert_eq!(
            id_canonical(&k, "gfx1036", &FloatMode::TITLE, "0123456789abcdef", 5, None),
            format!("measurement-id-v1\nkernel={k}\ntarget=gfx1036\nmode=c0/0/1/0\ndispatch=0123456789abcdef\nlane=5\n")
        );
        assert_eq!(
            measurement_id(
                &k,
                "gfx1036",
                &FloatMode::TITLE,
                "0123456789abcdef",
                5,
                None
            ),
            "M-5b59af6befcbbfff"
        );
        // A row that compares another placement than the default adds one line.
        let scratch = Placement::new("scratch", 8);
        assert_eq!(
            id_canonical(&k, "gfx1036", &FloatMode::TITLE, "0123456789abcdef", 5, Some(&scratch)),
            format!("measurement-id-v1\nkernel={k}\ntarget=gfx1036\nmode=c0/0/1/0\ndispatch=0123456789abcdef\nlane=5\ncompare=scratch:stride=8\n")
        );
        assert_eq!(
            measurement_id(
                &k,
                "gfx1036",
                &FloatMode::TITLE,
                "0123456789abcdef",
                5,
                Some(&scratch)
            ),
            "M-bf8908289096955c"
        );
        assert_eq!(
            dispatch_hash(&k, &[(1, &[2, 3]), (0, &[0, 1])]),
            "31c5c8002fe831e8"
        );
        // Lane order does not matter.
        assert_eq!(
            dispatch_hash(&k, &[(0, &[0, 1]), (1, &[2, 3])]),
            "31c5c8002fe831e8"
        );
    }
}
