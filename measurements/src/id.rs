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
//! ```
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
//! ([`crate::kernel::Kernel::canonical`]), so the dispatch hash covers all that ran. Nothing here depends on
//! file names, file order or the kernel's name: the same measurement made twice gets the same ID.

use crate::hex::format_dwords;
use crate::kernel::hex_digest;
use crate::mode::FloatMode;
use std::fmt::Write as _;

/// The canonical string a measurement ID is hashed from.
pub fn id_canonical(
    kernel_hash: &str,
    target: &str,
    mode: &FloatMode,
    dispatch: &str,
    lane: u32,
) -> String {
    format!(
        "measurement-id-v1\nkernel={kernel_hash}\ntarget={target}\nmode={}\ndispatch={dispatch}\nlane={lane}\n",
        mode.canonical()
    )
}

/// The measurement ID of one row.
pub fn measurement_id(
    kernel_hash: &str,
    target: &str,
    mode: &FloatMode,
    dispatch: &str,
    lane: u32,
) -> String {
    let digest = hex_digest(id_canonical(kernel_hash, target, mode, dispatch, lane).as_bytes());
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
            id_canonical(&k, "gfx1036", &FloatMode::TITLE, "0123456789abcdef", 5),
            format!("measurement-id-v1\nkernel={k}\ntarget=gfx1036\nmode=c0/0/1/0\ndispatch=0123456789abcdef\nlane=5\n")
        );
        assert_eq!(
            measurement_id(&k, "gfx1036", &FloatMode::TITLE, "0123456789abcdef", 5),
            "M-5b59af6befcbbfff"
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
