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
    let digest = sha1(&input);
    let value = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
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

/// SHA-1 (FIPS 180-4) of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes(word.try_into().expect("4 bytes"));
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (hv, v) in h.iter_mut().zip([a, b, c, d, e]) {
            *hv = hv.wrapping_add(v);
        }
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha1_known_vectors() {
        assert_eq!(hex(&sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(&sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(hex(&sha1(long)), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
        assert_eq!(
            hex(&sha1(&[b'a'; 1000])),
            "291e9a6c66994949b57ba5e650361e98fc36b1ba"
        );
    }

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
