//! NIDs: the 11-character names under which PS4/PS5 system libraries export their symbols.
//!
//! `nid(name)` = the first 8 bytes of SHA-1(`name` ++ the 16-byte suffix `518D64A635DED8C1E6B039B1C3E55230`),
//! read as a little-endian `u64`, written big-endian and encoded in base64 with the alphabet
//! `A-Z a-z 0-9 + -` (64 bits give 10 full 6-bit digits and a last digit holding the low 4 bits
//! shifted left by 2), so 11 characters.
//!
//! Source: shadPS4 `src/core/module.cpp` (`StringToNid`, the salt and the alphabet), repository
//! `shadps4-emu/shadPS4`, commit `0aea6ef36f6202104bdb7777cf5682333991d185`.
//!
//! The library and module parts of a symbol name `NID#LIB#MOD` are the library's and module's
//! numeric ids encoded by `EncodeId` of the same file (1 to 3 digits of the same alphabet): [`encode_id`].

use sha1::{Digest, Sha1};

/// The 16-byte suffix appended to a name before hashing.
pub const NID_SUFFIX: [u8; 16] = [
    0x51, 0x8D, 0x64, 0xA6, 0x35, 0xDE, 0xD8, 0xC1, 0xE6, 0xB0, 0x39, 0xB1, 0xC3, 0xE5, 0x52, 0x30,
];

/// The base64 alphabet of NIDs and encoded ids.
pub const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-";

/// The NID of a symbol name.
pub fn nid(name: &str) -> String {
    let mut input = Vec::with_capacity(name.len() + NID_SUFFIX.len());
    input.extend_from_slice(name.as_bytes());
    input.extend_from_slice(&NID_SUFFIX);
    let digest = Sha1::digest(&input);
    let value = u64::from_le_bytes(digest[..8].try_into().expect("SHA-1 has 20 bytes"));
    let mut out = String::with_capacity(11);
    for i in 0..10 {
        out.push(ALPHABET[((value >> (58 - i * 6)) & 0x3f) as usize] as char);
    }
    out.push(ALPHABET[((value & 0xf) * 4) as usize] as char);
    out
}

/// Whether `s` has the shape of a NID: 11 characters of the alphabet, the last a multiple of 4.
pub fn looks_like_nid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 11
        && b.iter().all(|c| ALPHABET.contains(c))
        && ALPHABET
            .iter()
            .position(|c| *c == b[10])
            .is_some_and(|p| p % 4 == 0)
}

/// A library or module id as it appears in `NID#LIB#MOD` (shadPS4 `EncodeId`).
pub fn encode_id(id: u16) -> String {
    let v = id as usize;
    let mut s = String::new();
    if v < 0x40 {
        s.push(ALPHABET[v] as char);
    } else if v < 0x1000 {
        s.push(ALPHABET[(v >> 6) & 0x3f] as char);
        s.push(ALPHABET[v & 0x3f] as char);
    } else {
        s.push(ALPHABET[(v >> 12) & 0x3f] as char);
        s.push(ALPHABET[(v >> 6) & 0x3f] as char);
        s.push(ALPHABET[v & 0x3f] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nid_golden_vectors() {
        assert_eq!(nid("scePthreadSetaffinity"), "bt3CTBKmGyI");
        assert_eq!(nid("sceKernelIsNeoMode"), "WslcK1FQcGI");
        assert_eq!(nid("sceAgcCreateShader"), "f3dg2CSgRKY");
        assert_eq!(nid("sceAgcDcbResetQueue"), "TRO721eVt4g");
        for n in ["scePthreadSetaffinity", "printf", ""] {
            assert!(looks_like_nid(&nid(n)));
        }
        assert!(!looks_like_nid("bt3CTBKmGyJ"));
        assert!(!looks_like_nid("short"));
    }

    #[test]
    fn encoded_ids() {
        assert_eq!(encode_id(0), "A");
        assert_eq!(encode_id(1), "B");
        assert_eq!(encode_id(63), "-");
        assert_eq!(encode_id(64), "BA");
        assert_eq!(encode_id(0xfff), "--");
        assert_eq!(encode_id(0x1000), "BAA");
    }
}
