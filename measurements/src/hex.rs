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

/// Shortens user text quoted in an error message so a huge field cannot flood the terminal: at most
/// [`crate::limits::QUOTE_CHARS`] characters, then `…(N bytes)` with the whole value's size.
pub fn truncate(text: &str) -> String {
    let max = crate::limits::QUOTE_CHARS;
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…({} bytes)", &text[..cut], text.len()),
    }
}

/// Shortens every quoted span (between backticks or double quotes) of a message from a parser (serde, toml, csv)
/// with [`truncate`], and the message as a whole to a few quoted lengths, because such messages quote the
/// offending input whole (``unknown field `KEY` `` with KEY a megabyte long).
pub fn shorten_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        match rest.find(quote) {
            Some(close) => {
                out.push_str(&truncate(&rest[..close]));
                out.push(quote);
                rest = &rest[close + 1..];
            }
            None => {
                out.push_str(&truncate(rest));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    let max = 8 * crate::limits::QUOTE_CHARS;
    if out.chars().count() > max {
        let cut = out.char_indices().nth(max).map_or(out.len(), |(i, _)| i);
        out = format!("{}…({} bytes)", &out[..cut], out.len());
    }
    out
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

    #[test]
    fn quoted_values_are_cut_short_with_their_size() {
        assert_eq!(truncate("short"), "short");
        let long = "x".repeat(1 << 20);
        let t = truncate(&long);
        assert_eq!(t, format!("{}…(1048576 bytes)", "x".repeat(80)));
        let e = parse_dword(&long).unwrap_err();
        assert!(e.len() < 200, "{e}");
        let m = shorten_message(&format!(
            "unknown field `{long}`, expected \"{long}\" or `a`"
        ));
        assert!(m.len() < 300 && m.ends_with("or `a`"), "{m}");
        assert!(m.starts_with("unknown field `xxxx"), "{m}");
        // Not quoted at all: the whole message is capped.
        assert!(shorten_message(&long).len() < 1000);
    }
}
