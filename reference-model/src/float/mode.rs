//! The float mode a VALU instruction runs under.

/// A rounding direction, as encoded in the FLOAT_MODE round fields.
///
/// The encoding (0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero) is
/// `FP_ROUND_ROUND_TO_*` in LLVM's `llvm/lib/Target/AMDGPU/SIDefines.h`
/// (llvm/llvm-project 332b9e38c3817def5bd4ca9e8bbfb885405c2888); Mesa ACO's
/// `fp_round_ne/pi/ni/tz` agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// Round to nearest, ties to even (field value 0).
    NearestEven,
    /// Round toward +infinity (field value 1).
    Up,
    /// Round toward -infinity (field value 2).
    Down,
    /// Round toward zero (field value 3).
    TowardZero,
}

impl Round {
    /// Decodes a 2-bit round field.
    pub const fn from_field(field: u8) -> Round {
        match field & 3 {
            0 => Round::NearestEven,
            1 => Round::Up,
            2 => Round::Down,
            _ => Round::TowardZero,
        }
    }

    /// The 2-bit field value of this direction.
    pub const fn field(self) -> u8 {
        match self {
            Round::NearestEven => 0,
            Round::Up => 1,
            Round::Down => 2,
            Round::TowardZero => 3,
        }
    }
}

/// A 2-bit denormal field: bit 0 keeps denormal inputs, bit 1 keeps denormal results.
///
/// LLVM's `SIDefines.h` names the values `FP_DENORM_FLUSH_IN_FLUSH_OUT` (0),
/// `FP_DENORM_FLUSH_OUT` (1: inputs kept), `FP_DENORM_FLUSH_IN` (2: results kept) and
/// `FP_DENORM_FLUSH_NONE` (3); seed 000 measured the same bit meaning for f16 (rule
/// `f16.denorm.field_bits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Denorm(pub u8);

impl Denorm {
    /// Denormal inputs are read as they are (not flushed to a signed zero).
    pub const fn keep_in(self) -> bool {
        self.0 & 1 != 0
    }
    /// Denormal (tiny) results are written as they are (not flushed to a signed zero).
    pub const fn keep_out(self) -> bool {
        self.0 & 2 != 0
    }
    /// Both inputs and results keep denormals (IEEE behaviour).
    pub const fn keeps_all(self) -> bool {
        self.0 & 3 == 3
    }
}

/// Everything of the wave's MODE that changes float results.
///
/// `float_mode` is the FLOAT_MODE byte of `COMPUTE_PGM_RSRC1` (bits 19:12 there), which is
/// also bits 7:0 of the MODE hardware register: round32 bits 1:0, round16/64 bits 3:2,
/// denorm32 bits 5:4, denorm16/64 bits 7:6 (LLVM `SIDefines.h`: `FP_ROUND_MODE_SP/DP`,
/// `FP_DENORM_MODE_SP/DP`). The mode titles use is [`Mode::TITLE`].
///
/// ```
/// use reference_model::float::{Mode, Round};
/// let m = Mode::TITLE;
/// assert_eq!(m.round32(), Round::NearestEven);
/// assert!(!m.denorm32().keep_in() && m.denorm16_64().keeps_all());
/// let rtz = Mode { float_mode: 0xf3, ..Mode::IEEE };
/// assert_eq!(rtz.round32(), Round::TowardZero);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mode {
    /// The FLOAT_MODE byte.
    pub float_mode: u8,
    /// IEEE_MODE: signalling NaNs are quieted and min/max follow IEEE 754-2008.
    pub ieee: bool,
    /// DX10_CLAMP: the clamp modifier turns a NaN into +0.
    pub dx10_clamp: bool,
    /// FP16_OVFL: an f16 result that overflows is written as the largest finite value.
    pub fp16_ovfl: bool,
}

impl Mode {
    /// The mode PS5 titles run with: FLOAT_MODE 0xc0 (nearest even, f32 denormals flushed,
    /// f16/f64 denormals kept), IEEE 0, DX10_CLAMP 1, FP16_OVFL 0.
    pub const TITLE: Mode = Mode {
        float_mode: 0xc0,
        ieee: false,
        dx10_clamp: true,
        fp16_ovfl: false,
    };

    /// The IEEE-conforming mode: nearest even, every denormal kept, IEEE 1.
    pub const IEEE: Mode = Mode {
        float_mode: 0xf0,
        ieee: true,
        dx10_clamp: true,
        fp16_ovfl: false,
    };

    /// Rounding of f32 results (bits 1:0).
    pub const fn round32(self) -> Round {
        Round::from_field(self.float_mode)
    }
    /// Rounding of f16 and f64 results (bits 3:2).
    pub const fn round16_64(self) -> Round {
        Round::from_field(self.float_mode >> 2)
    }
    /// Denormal handling of f32 (bits 5:4).
    pub const fn denorm32(self) -> Denorm {
        Denorm((self.float_mode >> 4) & 3)
    }
    /// Denormal handling of f16 and f64 (bits 7:6).
    pub const fn denorm16_64(self) -> Denorm {
        Denorm((self.float_mode >> 6) & 3)
    }

    /// The low bits of the MODE hardware register (`s_getreg_b32 hwreg(HW_REG_MODE)`):
    /// FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9 (LLVM `SIDefines.h`
    /// `Hwreg::ModeRegisterMasks`) and FP16_OVFL 23 (Mesa ACO
    /// `src/amd/compiler/aco_insert_fp_mode.cpp` writes it with `s_setreg_imm32_b32` at
    /// offset 23). Other MODE bits are not float state and read as 0 here.
    ///
    /// Rule `mode.hwreg_layout`.
    pub const fn to_hwreg(self) -> u32 {
        (self.float_mode as u32)
            | (self.dx10_clamp as u32) << 8
            | (self.ieee as u32) << 9
            | (self.fp16_ovfl as u32) << 23
    }

    /// The float state after the MODE hardware register holds `bits`
    /// (the inverse of [`Mode::to_hwreg`] on the float fields).
    ///
    /// Rule `mode.hwreg_layout`.
    pub const fn from_hwreg(bits: u32) -> Mode {
        Mode {
            float_mode: bits as u8,
            dx10_clamp: bits >> 8 & 1 != 0,
            ieee: bits >> 9 & 1 != 0,
            fp16_ovfl: bits >> 23 & 1 != 0,
        }
    }

    /// The effect of `s_setreg_b32 hwreg(HW_REG_MODE, offset, size), value` on the float
    /// state: the field `[offset + size - 1 : offset]` of MODE takes the low `size` bits of
    /// `value` (size 1..=32), the other bits keep their value.
    ///
    /// Rule `mode.hwreg_layout`.
    pub const fn setreg(self, offset: u32, size: u32, value: u32) -> Mode {
        let size = if size == 0 {
            1
        } else if size > 32 {
            32
        } else {
            size
        };
        let field = if size == 32 {
            u32::MAX
        } else {
            (1u32 << size) - 1
        };
        let mask = field.wrapping_shl(offset);
        let old = self.to_hwreg();
        let new = (old & !mask) | ((value & field).wrapping_shl(offset) & mask);
        Mode::from_hwreg(new)
    }

    /// `s_getreg_b32 hwreg(HW_REG_MODE, offset, size)`: the field, right-aligned.
    ///
    /// Rule `mode.hwreg_layout`.
    pub const fn getreg(self, offset: u32, size: u32) -> u32 {
        let size = if size == 0 {
            1
        } else if size > 32 {
            32
        } else {
            size
        };
        let field = if size == 32 {
            u32::MAX
        } else {
            (1u32 << size) - 1
        };
        self.to_hwreg().wrapping_shr(offset) & field
    }

    /// `s_round_mode imm` (gfx10 SOPP): FP_ROUND takes `imm[3:0]`.
    pub const fn with_round_mode(self, imm: u8) -> Mode {
        Mode {
            float_mode: (self.float_mode & 0xf0) | (imm & 0x0f),
            ..self
        }
    }

    /// `s_denorm_mode imm` (gfx10 SOPP): FP_DENORM takes `imm[3:0]`.
    pub const fn with_denorm_mode(self, imm: u8) -> Mode {
        Mode {
            float_mode: (self.float_mode & 0x0f) | ((imm & 0x0f) << 4),
            ..self
        }
    }
}

impl Default for Mode {
    fn default() -> Self {
        Mode::TITLE
    }
}
