//! Typed operands: registers with their width, inline constants, literals and the named special sources.
//!
//! The source-operand space (8 bits for scalar sources, 9 bits for vector sources) is laid out in the RDNA ISA
//! manuals ("RDNA 2 Instruction Set Architecture", section 3.6 "Scalar operands" / 6.1 "Operands"). The names used
//! in printing are the ones LLVM's AMDGPU disassembler prints (`src_shared_base`, `src_vccz`, ...).

use std::fmt;

/// How an immediate value is printed and how an inline float constant is widened.
///
/// Each class corresponds to one way LLVM 19's AMDGPU instruction printer renders an immediate operand; the
/// class of every source of every opcode was measured by probing `llvm-mc` (see `isa` module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmClass {
    /// A 32-bit operand (integer or float).
    B32,
    /// A 64-bit float operand: a literal supplies the high 32 bits.
    F64,
    /// A 64-bit integer operand: a literal is zero-extended.
    I64,
    /// A 16-bit float operand.
    F16,
    /// A 16-bit integer operand.
    I16,
    /// A packed pair of 16-bit floats.
    V2F16,
    /// Interpolation attribute selector (v_interp_*_f16 in VOP3): printed as `attrN.c`.
    Attr,
    /// Interpolation parameter selector (v_interp_mov_f32 in VOP3): `p10`, `p20`, `p0`.
    InterpParam,
}

/// One of the inline float constants of the source space (operand codes 240..=248).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InlineFloat {
    /// 0.5
    Half,
    /// -0.5
    NegHalf,
    /// 1.0
    One,
    /// -1.0
    NegOne,
    /// 2.0
    Two,
    /// -2.0
    NegTwo,
    /// 4.0
    Four,
    /// -4.0
    NegFour,
    /// 1/(2*pi)
    InvTwoPi,
}

impl InlineFloat {
    /// The constant's value as f64 (1/(2pi) rounded as the 64-bit operand sees it).
    pub fn value(self) -> f64 {
        match self {
            InlineFloat::Half => 0.5,
            InlineFloat::NegHalf => -0.5,
            InlineFloat::One => 1.0,
            InlineFloat::NegOne => -1.0,
            InlineFloat::Two => 2.0,
            InlineFloat::NegTwo => -2.0,
            InlineFloat::Four => 4.0,
            InlineFloat::NegFour => -4.0,
            InlineFloat::InvTwoPi => f64::from_bits(0x3fc4_5f30_6dc9_c882),
        }
    }

    /// The bit pattern the operand reads for a given operand width in bits (16, 32 or 64).
    pub fn bits(self, width_bits: u32) -> u64 {
        const F16: [u64; 9] = [
            0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
        ];
        const F32: [u64; 9] = [
            0x3f00_0000,
            0xbf00_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x4000_0000,
            0xc000_0000,
            0x4080_0000,
            0xc080_0000,
            0x3e22_f983,
        ];
        const F64: [u64; 9] = [
            0x3fe0_0000_0000_0000,
            0xbfe0_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0xbff0_0000_0000_0000,
            0x4000_0000_0000_0000,
            0xc000_0000_0000_0000,
            0x4010_0000_0000_0000,
            0xc010_0000_0000_0000,
            0x3fc4_5f30_6dc9_c882,
        ];
        let i = self as usize;
        match width_bits {
            16 => F16[i],
            64 => F64[i],
            _ => F32[i],
        }
    }

    fn from_code(code: u16) -> Option<Self> {
        Some(match code {
            240 => InlineFloat::Half,
            241 => InlineFloat::NegHalf,
            242 => InlineFloat::One,
            243 => InlineFloat::NegOne,
            244 => InlineFloat::Two,
            245 => InlineFloat::NegTwo,
            246 => InlineFloat::Four,
            247 => InlineFloat::NegFour,
            248 => InlineFloat::InvTwoPi,
            _ => return None,
        })
    }
}

/// A decoded operand: what the encoded field names, with its width in dwords where it is a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Scalar registers s[first .. first+width).
    Sgpr {
        /// First register.
        first: u8,
        /// Width in dwords.
        width: u8,
    },
    /// Vector registers v[first .. first+width).
    Vgpr {
        /// First register.
        first: u8,
        /// Width in dwords.
        width: u8,
    },
    /// Trap temporaries ttmp[first .. first+width).
    Ttmp {
        /// First register.
        first: u8,
        /// Width in dwords.
        width: u8,
    },
    /// VCC_LO, or the whole VCC pair when `width` is 2.
    VccLo {
        /// Width in dwords.
        width: u8,
    },
    /// VCC_HI.
    VccHi,
    /// EXEC_LO, or the whole EXEC pair when `width` is 2.
    ExecLo {
        /// Width in dwords.
        width: u8,
    },
    /// EXEC_HI.
    ExecHi,
    /// M0.
    M0,
    /// NULL (reads zero, writes are dropped).
    Null,
    /// Inline integer constant -16..=64.
    InlineInt(i8),
    /// Inline float constant.
    InlineFloat(InlineFloat),
    /// 32-bit literal dword following the instruction.
    Literal(u32),
    /// SCC (source code 253).
    Scc,
    /// VCCZ (251).
    Vccz,
    /// EXECZ (252).
    Execz,
    /// LDS_DIRECT (254).
    LdsDirect,
    /// SHARED_BASE (235).
    SharedBase,
    /// SHARED_LIMIT (236).
    SharedLimit,
    /// PRIVATE_BASE (237).
    PrivateBase,
    /// PRIVATE_LIMIT (238).
    PrivateLimit,
    /// POPS_EXITING_WAVE_ID (239).
    PopsExitingWaveId,
    /// A plain immediate carried by the instruction word (offsets, simm16, attribute numbers ...).
    Imm(i32),
    /// An address operand the instruction does not use in this addressing mode (printed `off`).
    Off,
}

/// Why a source field cannot be decoded for an operand of a given width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SrcErr {
    /// An encoding the source space reserves (209..=234, or a special register that has no pair).
    Reserved,
}

/// Decodes an 8-bit scalar or 9-bit vector source code for an operand `width` dwords wide.
///
/// `literal` is the dword after the instruction when there is one (the caller checks for truncation).
pub(crate) fn decode_src(code: u16, width: u8, literal: Option<u32>) -> Result<Operand, SrcErr> {
    let w = width.max(1);
    // Register tuples wider than one dword start on an aligned register; LLVM rounds the number down
    // (AMDGPUDisassembler::createSRegOperand) rather than rejecting it, so do the same.
    let align = |n: u8| -> u8 {
        let a: u8 = match w {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        n - n % a
    };
    Ok(match code {
        // A tuple that would run past s105 (into VCC) or past ttmp15 names no register.
        0..=105 if w > 2 && align(code as u8) as u16 + w as u16 > 106 => {
            return Err(SrcErr::Reserved)
        }
        108..=123 if align((code - 108) as u8) as u16 + w as u16 > 16 => {
            return Err(SrcErr::Reserved)
        }
        0..=105 => Operand::Sgpr {
            first: align(code as u8),
            width: w,
        },
        106 => Operand::VccLo { width: w },
        107 if w == 1 => Operand::VccHi,
        108..=123 => Operand::Ttmp {
            first: align((code - 108) as u8),
            width: w,
        },
        124 if w == 1 => Operand::M0,
        125 => Operand::Null,
        126 => Operand::ExecLo { width: w },
        127 if w == 1 => Operand::ExecHi,
        128..=192 => Operand::InlineInt((code - 128) as i8),
        193..=208 => Operand::InlineInt(-((code - 192) as i8)),
        235 => Operand::SharedBase,
        236 => Operand::SharedLimit,
        237 => Operand::PrivateBase,
        238 => Operand::PrivateLimit,
        239 => Operand::PopsExitingWaveId,
        240..=248 => Operand::InlineFloat(InlineFloat::from_code(code).ok_or(SrcErr::Reserved)?),
        251 => Operand::Vccz,
        252 => Operand::Execz,
        253 => Operand::Scc,
        254 if w == 1 => Operand::LdsDirect,
        255 => Operand::Literal(literal.unwrap_or(0)),
        256..=511 if code as usize - 256 + w as usize <= 256 => Operand::Vgpr {
            first: (code - 256) as u8,
            width: w,
        },
        _ => return Err(SrcErr::Reserved),
    })
}

/// Prints a register tuple the way LLVM does: `v7` for one dword, `v[6:7]` for more.
#[inline]
pub(crate) fn fmt_range<W: fmt::Write + ?Sized>(
    f: &mut W,
    prefix: &str,
    first: u32,
    width: u8,
) -> fmt::Result {
    // Characters rather than tiny strings: for a String each is one byte pushed, not a copy call.
    prefix.chars().try_for_each(|c| f.write_char(c))?;
    if width <= 1 {
        put_dec(f, first as i64)
    } else {
        f.write_char('[')?;
        put_dec(f, first as i64)?;
        f.write_char(':')?;
        put_dec(f, (first + width as u32 - 1) as i64)?;
        f.write_char(']')
    }
}

/// Writes `v` in decimal. The printer writes millions of register numbers and offsets in a long listing, and
/// `core::fmt`'s machinery (padding, flags, the argument table) costs several times the digits themselves.
pub(crate) fn put_dec<W: fmt::Write + ?Sized>(f: &mut W, v: i64) -> fmt::Result {
    // Register numbers, counts and most offsets are below 256: at most three characters, no loop.
    if let Ok(small) = u8::try_from(v) {
        if small >= 100 {
            f.write_char((b'0' + small / 100) as char)?;
        }
        if small >= 10 {
            f.write_char((b'0' + small / 10 % 10) as char)?;
        }
        return f.write_char((b'0' + small % 10) as char);
    }
    // 19 digits and a sign hold every i64.
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut m = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    // ASCII, a character at a time: for a String each is one byte pushed.
    buf[i..].iter().try_for_each(|&b| f.write_char(b as char))
}

/// Writes `0x` and `v` in lower-case hex (as `{:#x}` does), without `core::fmt` (see [`put_dec`]).
pub(crate) fn put_hex<W: fmt::Write + ?Sized>(f: &mut W, v: u64) -> fmt::Result {
    let mut buf = [0u8; 18];
    let mut i = buf.len();
    let mut m = v;
    loop {
        i -= 1;
        buf[i] = b"0123456789abcdef"[(m & 15) as usize];
        m >>= 4;
        if m == 0 {
            break;
        }
    }
    i -= 2;
    buf[i] = b'0';
    buf[i + 1] = b'x';
    buf[i..].iter().try_for_each(|&b| f.write_char(b as char))
}

fn is_inline_int(v: i64) -> bool {
    (-16..=64).contains(&v)
}

/// Name of a 32-bit float bit pattern that is an inline constant, if it is one.
fn f32_name(bits: u32) -> Option<&'static str> {
    Some(match bits {
        0x3f00_0000 => "0.5",
        0xbf00_0000 => "-0.5",
        0x3f80_0000 => "1.0",
        0xbf80_0000 => "-1.0",
        0x4000_0000 => "2.0",
        0xc000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xc080_0000 => "-4.0",
        0x3e22_f983 => "0.15915494",
        _ => return None,
    })
}

fn f16_name(bits: u16) -> Option<&'static str> {
    Some(match bits {
        0x3800 => "0.5",
        0xb800 => "-0.5",
        0x3c00 => "1.0",
        0xbc00 => "-1.0",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4400 => "4.0",
        0xc400 => "-4.0",
        0x3118 => "0.15915494",
        _ => return None,
    })
}

fn f64_name(bits: u64) -> Option<&'static str> {
    Some(match bits {
        0x3fe0_0000_0000_0000 => "0.5",
        0xbfe0_0000_0000_0000 => "-0.5",
        0x3ff0_0000_0000_0000 => "1.0",
        0xbff0_0000_0000_0000 => "-1.0",
        0x4000_0000_0000_0000 => "2.0",
        0xc000_0000_0000_0000 => "-2.0",
        0x4010_0000_0000_0000 => "4.0",
        0xc010_0000_0000_0000 => "-4.0",
        0x3fc4_5f30_6dc9_c882 => "0.15915494309189532",
        _ => return None,
    })
}

/// Prints an immediate the way LLVM 19's printer does for the operand class.
///
/// `bits` is the value as the decoder widened it: inline constants already carry the class's bit pattern.
pub(crate) fn fmt_imm<W: fmt::Write + ?Sized>(
    f: &mut W,
    class: ImmClass,
    bits: u64,
) -> fmt::Result {
    match class {
        ImmClass::B32 | ImmClass::Attr | ImmClass::InterpParam => {
            let v = bits as u32;
            if is_inline_int(v as i32 as i64) {
                put_dec(f, v as i32 as i64)
            } else if let Some(n) = f32_name(v) {
                f.write_str(n)
            } else {
                put_hex(f, v as u64)
            }
        }
        ImmClass::F64 | ImmClass::I64 => {
            if is_inline_int(bits as i64) {
                put_dec(f, bits as i64)
            } else if let Some(n) = f64_name(bits) {
                f.write_str(n)
            } else if class == ImmClass::F64 && bits & 0xffff_ffff == 0 {
                put_hex(f, bits >> 32)
            } else {
                put_hex(f, bits)
            }
        }
        ImmClass::F16 => {
            let v = bits as u16;
            if is_inline_int(v as i16 as i64) {
                put_dec(f, v as i16 as i64)
            } else if let Some(n) = f16_name(v) {
                f.write_str(n)
            } else {
                put_hex(f, v as u64)
            }
        }
        ImmClass::I16 => {
            // The whole literal dword decides whether it reads as an inline integer.
            let v = bits as u32;
            if is_inline_int(v as i32 as i64) {
                put_dec(f, v as i32 as i64)
            } else if let Some(n) = f32_name(v) {
                f.write_str(n)
            } else {
                put_hex(f, (v & 0xffff) as u64)
            }
        }
        ImmClass::V2F16 => {
            let v = bits as u32;
            if is_inline_int(v as i32 as i64) {
                put_dec(f, v as i32 as i64)
            } else if v >> 16 == 0 && f16_name(v as u16).is_some() {
                f.write_str(f16_name(v as u16).unwrap_or_default())
            } else {
                put_hex(f, v as u64)
            }
        }
    }
}

impl Operand {
    /// The bits an immediate operand supplies for an operand of `class`, as LLVM widens it for printing.
    pub(crate) fn imm_bits(self, class: ImmClass) -> Option<u64> {
        let wbits = match class {
            ImmClass::F16 | ImmClass::I16 | ImmClass::V2F16 => 16,
            ImmClass::F64 | ImmClass::I64 => 64,
            _ => 32,
        };
        Some(match self {
            Operand::InlineInt(v) => v as i64 as u64,
            Operand::InlineFloat(c) => c.bits(wbits),
            Operand::Literal(v) => match class {
                ImmClass::F64 => (v as u64) << 32,
                _ => v as u64,
            },
            _ => return None,
        })
    }

    /// Prints this operand for an operand of `class` (LLVM syntax).
    pub(crate) fn fmt_as<W: fmt::Write + ?Sized>(self, f: &mut W, class: ImmClass) -> fmt::Result {
        if let Some(bits) = self.imm_bits(class) {
            return fmt_imm(f, class, bits);
        }
        match self {
            Operand::Sgpr { first, width } => fmt_range(f, "s", first as u32, width),
            Operand::Vgpr { first, width } => fmt_range(f, "v", first as u32, width),
            Operand::Ttmp { first, width } => fmt_range(f, "ttmp", first as u32, width),
            Operand::VccLo { width } => f.write_str(if width >= 2 { "vcc" } else { "vcc_lo" }),
            Operand::VccHi => f.write_str("vcc_hi"),
            Operand::ExecLo { width } => f.write_str(if width >= 2 { "exec" } else { "exec_lo" }),
            Operand::ExecHi => f.write_str("exec_hi"),
            Operand::M0 => f.write_str("m0"),
            Operand::Null => f.write_str("null"),
            Operand::Scc => f.write_str("src_scc"),
            Operand::Vccz => f.write_str("src_vccz"),
            Operand::Execz => f.write_str("src_execz"),
            Operand::LdsDirect => f.write_str("src_lds_direct"),
            Operand::SharedBase => f.write_str("src_shared_base"),
            Operand::SharedLimit => f.write_str("src_shared_limit"),
            Operand::PrivateBase => f.write_str("src_private_base"),
            Operand::PrivateLimit => f.write_str("src_private_limit"),
            Operand::PopsExitingWaveId => f.write_str("src_pops_exiting_wave_id"),
            Operand::Imm(v) => put_dec(f, v as i64),
            Operand::Off => f.write_str("off"),
            Operand::InlineInt(_) | Operand::InlineFloat(_) | Operand::Literal(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod digit_tests {
    /// The table and the digit loop of `put_dec` print what `Display` prints.
    #[test]
    fn decimal_and_hex_digits() {
        for v in (-300i64..70_000).chain([i64::MIN, i64::MAX, -1 << 40]) {
            let mut s = String::new();
            super::put_dec(&mut s, v).unwrap();
            assert_eq!(s, v.to_string());
        }
        for v in [0u64, 9, 10, 0xff, 0x1234_abcd, u64::MAX] {
            let mut s = String::new();
            super::put_hex(&mut s, v).unwrap();
            assert_eq!(s, format!("{v:#x}"));
        }
    }
}
