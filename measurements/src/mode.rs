//! The float mode a measurement was taken in.

use std::fmt;

/// FLOAT_MODE byte plus the three mode bits that change float results (DESIGN.md, "Float mode").
///
/// FLOAT_MODE: round32 in bits 1:0, round16/64 in bits 3:2, denorm32 in bits 5:4, denorm16/64 in bits 7:6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatMode {
    /// The FLOAT_MODE byte.
    pub float_mode: u8,
    /// IEEE_MODE.
    pub ieee: bool,
    /// DX10_CLAMP.
    pub dx10_clamp: bool,
    /// FP16_OVFL.
    pub fp16_ovfl: bool,
}

impl FloatMode {
    /// The mode titles run in: FLOAT_MODE 0xc0, IEEE 0, DX10_CLAMP 1, FP16_OVFL 0.
    pub const TITLE: FloatMode = FloatMode {
        float_mode: 0xc0,
        ieee: false,
        dx10_clamp: true,
        fp16_ovfl: false,
    };

    /// The canonical text used in measurement IDs and reports: `c0/0/1/0` (float_mode/ieee/dx10_clamp/fp16_ovfl).
    pub fn canonical(&self) -> String {
        format!(
            "{:02x}/{}/{}/{}",
            self.float_mode, self.ieee as u8, self.dx10_clamp as u8, self.fp16_ovfl as u8
        )
    }
}

impl fmt::Display for FloatMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FLOAT_MODE 0x{:02x} IEEE {} DX10_CLAMP {} FP16_OVFL {}",
            self.float_mode, self.ieee as u8, self.dx10_clamp as u8, self.fp16_ovfl as u8
        )
    }
}

/// Parses the FLOAT_MODE byte as two lowercase hex digits (`c0`).
pub fn parse_float_mode(text: &str) -> Result<u8, String> {
    if text.len() != 2
        || !text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(format!(
            "float_mode `{}` is not two lowercase hex digits",
            crate::hex::truncate(text)
        ));
    }
    u8::from_str_radix(text, 16).map_err(|e| e.to_string())
}

/// Parses a mode bit written as `0` or `1`.
pub fn parse_bit(name: &str, text: &str) -> Result<bool, String> {
    match text {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!(
            "{name} `{}` is not 0 or 1",
            crate::hex::truncate(text)
        )),
    }
}
