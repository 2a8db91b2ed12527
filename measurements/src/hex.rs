//! Hex dwords as the measurement files write them: exactly 8 lowercase hex digits.

/// Parses one dword written as exactly 8 lowercase hex digits.
pub fn parse_dword(text: &str) -> Result<u32, String> {
    if text.len() != 8
        || !text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(format!(
            "`{}` is not a dword (8 lowercase hex digits)",
            truncate(text)
        ));
    }
    u32::from_str_radix(text, 16).map_err(|e| format!("`{text}`: {e}"))
}

/// Parses a space-separated list of dwords; an empty string is an empty list.
pub fn parse_dwords(text: &str) -> Result<Vec<u32>, String> {
    text.split_ascii_whitespace()
        .enumerate()
        .map(|(i, w)| parse_dword(w).map_err(|e| format!("item {}: {e}", i + 1)))
        .collect()
}

/// Writes dwords as a space-separated list of 8-digit lowercase hex.
pub fn format_dwords(words: &[u32]) -> String {
    let mut out = String::with_capacity(words.len() * 9);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{w:08x}"));
    }
    out
}

/// Shortens user text quoted in an error message so a huge field cannot flood the terminal.
pub fn truncate(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(MAX).collect::<String>())
    }
}

/// A dword that deserializes from an 8-digit lowercase hex string, so parsers report bad hex with a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HexDword(pub u32);

impl<'de> serde::Deserialize<'de> for HexDword {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        parse_dword(&s)
            .map(HexDword)
            .map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for HexDword {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:08x}", self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        assert_eq!(
            parse_dwords("00000000 7fc00000").unwrap(),
            vec![0, 0x7fc0_0000]
        );
        assert_eq!(format_dwords(&[1, 0xdead_beef]), "00000001 deadbeef");
        assert!(
            parse_dword("7FC00000").is_err(),
            "uppercase is not canonical"
        );
        assert!(parse_dword("7fc0000").is_err(), "7 digits");
        assert!(parse_dword("0x7fc0000").is_err());
        assert!(parse_dword("7fc0000g").is_err());
        assert!(parse_dwords("00000000  zz").unwrap_err().contains("item 2"));
        assert_eq!(parse_dwords("").unwrap(), Vec::<u32>::new());
    }
}
