//! What to measure: measurement templates, their operand classes and their float-mode matrix.
//!
//! A template is a TOML file: a kernel body in the `oracle-v1` ABI (DESIGN.md, "Kernel ABIs": each lane's
//! four input dwords arrive in v4..v7, the body writes up to sixteen output dwords to v10..v25, which start at
//! 0), the operands it is measured with, the float modes and wave sizes, and how each output column is
//! compared. [`Template::cases`] expands it into dispatches: every combination of operands (cartesian or
//! zipped), in every mode and wave size, cut into dispatches of at most [`Template::lanes`] lanes.
//!
//! ```toml
//! name = "f32-add"
//! settles = ["nan.select.first_source"]   # rules of reference_model::rules it would measure
//! about = "v_add_f32 over the f32 special classes"
//! body = "v_add_f32 v10, v4, v5"          # assembly (llvm-mc syntax) or `words = ["...", ...]`
//! outputs = 1
//! compare = ["x"]                          # per output column: x exact, n NaN-tolerant, - unchecked
//! waves = [32]
//! combine = "cartesian"                    # or "zip"
//! operands = [["f32"], ["f32", "random:64:7"]]   # one list of classes per input dword
//!
//! [modes]                                  # a matrix; or `modes = ["c0/0/1/0", ...]`
//! round = [0, 3]                           # both round fields
//! denorm = [0, 3]                          # both denormal fields
//! ieee = [false, true]
//! ```
//!
//! Operand classes ([`class_values`]): `f32` (the 14 f32 classes: +-0, +-1, +-inf, +-smallest denormal,
//! quiet and signalling NaNs of both signs with payloads), `f16` (the same 14 in the low half; `f16x2` in
//! both halves), `f64lo`/`f64hi` (the f64 classes' halves, zipped in pairs of input dwords), `int` (0, 1, -1,
//! the extremes of i32 and u32, the sign bit, alternating bits), `shift` (0..63 and 64..), `random:N:SEED`
//! (N dwords of a fixed xorshift stream), `0xHEX` (that one value), `seq:START:STEP:N` (START + i * STEP for
//! i = 0..N, wrapping; numbers decimal or `0x` hex: `seq:0x00010000:0x00080008:8192` counts every 16-bit code
//! in pairs of halves), `each:K:CLASS` (every value of CLASS K times in a row) and `repeat:K:CLASS` (the whole
//! list of CLASS K times), where CLASS may join several with `+` (`repeat:77:f32+int+random:232:5`), and
//! `midpoints:N` (for every code k of an N-bit normalized field, the two f32 values around the midpoint
//! (k + 0.5) / (2^N - 1), found exactly, and their negations; `midpoints:N:COUNT:SEED` for COUNT random k).
//! A class expands to at most [`MAX_VALUES`] values. With `combine = "zip"`, `each` and `repeat` give a value
//! every lane of a wave shares (`each:32:...`) beside values that change per lane (`repeat:...`), which is how
//! a body picks a format, a stride or a V# field per wave. `targets = ["gfx1013", ...]` limits a template to the
//! chips that have its instructions (`oracle collect` skips it elsewhere). Parse errors name the file, line and
//! column.
//!
//! The reader is fuzzed (`tests/fuzz.rs`): class names built from the grammar's pieces, arbitrary bytes and
//! mutations of every bundled template give `Ok` within the limits or a short error, never a panic; `each` and
//! `repeat` nest at most [`MAX_NESTING`] deep. CI runs 512 cases of each target; `PROPTEST_CASES=1000000 cargo
//! test -p templates --test fuzz` ran 10^6 of each crash-free in 162 s (debug build, shared 2-core VM,
//! 2026-12-06).
//!
//! # Buffers
//!
//! A `[buffers]` table asks for the buffer extension of the layout, which gives the body buffer resources
//! (V#s) over the inputs and over a scratch array of its own:
//!
//! ```toml
//! [buffers]
//! scratch_bytes = 48       # bytes of `scratch` per lane (0 to 1024, a multiple of 4; default 0)
//! fill = "deadbeef"        # the dword `scratch` starts as (default 00000000)
//!
//! [buffers.scratch]        # fields of the V# over `scratch` (every key optional)
//! format = 22              # FORMAT, word 3 bits 18:12 (buffer_*_format instructions use it)
//! dst_sel = "xyzw"         # DST_SEL X..W: four of 0, 1, x, y, z, w
//! oob_select = 3           # OOB_SELECT (3: raw, the byte offset against NUM_RECORDS)
//! index_stride = 8         # INDEX_STRIDE in lanes (8, 16, 32, 64)
//! add_tid = false          # ADD_TID_ENABLE
//! stride = 0               # record stride in bytes (word 1 bits 29:16)
//! swizzle = false          # SWIZZLE_ENABLE (word 1 bit 31)
//! records = 64             # NUM_RECORDS (default: the array's size in bytes)
//!
//! [buffers.in]             # the same fields for the V# over `in`
//! ```
//!
//! The prologue then also loads, from the kernel argument segment (56 bytes: the addresses of `in`, `out` and
//! `scratch` at bytes 0, 8 and 16, the V# over `in` at 24, the V# over `scratch` at 40):
//!
//! | register | holds |
//! |---|---|
//! | `s[4:5]`, `s[6:7]` | the addresses of `in` and `out` (as without buffers) |
//! | `s[8:9]` | the address of `scratch` (lane L's slot at byte `L * scratch_bytes`) |
//! | `s[12:15]` | the V# over `in` (lane L's four inputs at byte `16 L`) |
//! | `s[16:19]` | the V# over `scratch` |
//! | v1 | the lane's byte offset in `in` (16 L), as without buffers |
//! | v2 | the lane's byte offset in `scratch` (`L * scratch_bytes`) |
//! | v3 | the lane's byte offset in `out` (64 L): the body keeps it, and `s[6:7]` |
//!
//! Both V#s default to [`Vsharp::RAW`]: a raw buffer (OOB_SELECT 3, no stride) over the whole array, FORMAT
//! 32_FLOAT, DST_SEL X, Y, Z, W, word 3 0x31016fac as in the `agc-buffer-v1` peer kernels. A body that needs
//! other fields per wave copies a V# into free SGPRs (s20 upwards) and changes them there, so one dispatch can
//! use several formats. A format load reads a lane's inputs as its element
//! (`tbuffer_load_format_xyzw v[10:13], v1, s[12:15], 0 format:[...] offen`); a format store writes into the
//! lane's scratch slot, and after `s_waitcnt_vscnt null, 0x0` (the stores have reached memory)
//! `buffer_load_dword* ... glc dlc` (past the vector L0 and L1 caches) brings the bytes back into v10..v25 as
//! raw bits. A body that updates its inputs in memory (atomics) works on `in` through its V# or on a copy it
//! stores in `scratch`. There is no V# over `out`: the epilogue overwrites every dword of the lane's 64 bytes
//! of `out`, so nothing a body stored there would survive. Without `[buffers]` the kernel and its measurement
//! IDs are exactly those of the plain layout.
//!
//! llvm-mc does not insert the wait states a compiler would, so a body keeps clear of the gfx10 hazards itself
//! (LLVM `llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp`, llvm/llvm-project
//! d18555214feacd149f0bdf592b86f66dcb8f2d0a: `fixVMEMtoScalarWriteHazards`, `fixSMEMtoVectorWriteHazards`):
//! no scalar instruction writes an SGPR that a vector memory instruction before it read, and no VALU
//! instruction writes an SGPR that a scalar memory instruction before it read, unless a VALU instruction
//! (resp. `s_waitcnt lgkmcnt(0)`) lies between; the bundled bodies set every V# up in full, in SGPRs of their
//! own, before the first memory instruction that uses it.
#![deny(missing_docs)]

use serde::Deserialize;
use std::fmt;

/// The f32 special classes: +-0, +-1, +-inf, +-smallest denormal, +-largest denormal, quiet NaNs of both signs
/// (one with a payload) and signalling NaNs of both signs with payloads.
pub const F32_CLASSES: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x7fc0_0000,
    0xffc1_2345,
    0x7f80_0001,
    0xffa1_2345,
];

/// The f16 special classes, as [`F32_CLASSES`] in half precision.
pub const F16_CLASSES: [u16; 14] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x7e00, 0xfe12,
    0x7c01, 0xfd23,
];

/// The f64 special classes, as [`F32_CLASSES`] in double precision.
pub const F64_CLASSES: [u64; 14] = [
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x800f_ffff_ffff_ffff,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0001_2345,
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0001_2345,
];

/// Integer edge classes.
pub const INT_CLASSES: [u32; 10] = [
    0,
    1,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0x5555_5555,
    0xaaaa_aaaa,
    0x0000_ffff,
    0xffff_0000,
];

/// Why a template is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The file (or the bundled template's name).
    pub file: String,
    /// 1-based line and column, where the TOML parser knows them.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for Error {}

/// A float mode: the FLOAT_MODE byte (round32 bits 1:0, round16/64 3:2, denorm32 5:4, denorm16/64 7:6),
/// IEEE_MODE, DX10_CLAMP and FP16_OVFL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mode {
    /// The FLOAT_MODE byte.
    pub float_mode: u8,
    /// IEEE_MODE.
    pub ieee: bool,
    /// DX10_CLAMP.
    pub dx10_clamp: bool,
    /// FP16_OVFL.
    pub fp16_ovfl: bool,
}

impl Mode {
    /// The PS5 titles' mode, `c0/0/1/0`.
    pub const TITLE: Mode = Mode {
        float_mode: 0xc0,
        ieee: false,
        dx10_clamp: true,
        fp16_ovfl: false,
    };

    /// Parses `c0/0/1/0` (FLOAT_MODE in hex, then IEEE_MODE, DX10_CLAMP, FP16_OVFL as 0 or 1).
    pub fn parse(text: &str) -> Result<Mode, String> {
        let parts: Vec<&str> = text.split('/').collect();
        let bit = |s: &str, what: &str| match s {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(format!("mode `{text}`: {what} must be 0 or 1, not `{s}`")),
        };
        match parts.as_slice() {
            [f, i, d, o] if f.len() == 2 => Ok(Mode {
                float_mode: u8::from_str_radix(f, 16).map_err(|_| {
                    format!("mode `{text}`: FLOAT_MODE `{f}` is not two hex digits")
                })?,
                ieee: bit(i, "IEEE_MODE")?,
                dx10_clamp: bit(d, "DX10_CLAMP")?,
                fp16_ovfl: bit(o, "FP16_OVFL")?,
            }),
            _ => Err(format!(
                "mode `{text}` is not FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL, e.g. c0/0/1/0"
            )),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02x}/{}/{}/{}",
            self.float_mode, self.ieee as u8, self.dx10_clamp as u8, self.fp16_ovfl as u8
        )
    }
}

/// How a template's operand lists combine into lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Combine {
    /// Every combination (the first input dword varies slowest).
    #[default]
    Cartesian,
    /// The i-th value of every list together; lists must have equal lengths.
    Zip,
}

/// The `[modes]` matrix: every combination of the listed settings (unlisted ones take the title mode's).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    /// Round fields (0 nearest even, 1 +inf, 2 -inf, 3 toward zero), each set in both the f32 and the
    /// f16/f64 field; unlisted, the title mode's (nearest even).
    #[serde(default)]
    pub round: Vec<u8>,
    /// Denormal fields (FLOAT_MODE bit 0 of a field keeps denormal inputs, bit 1 keeps denormal results: 0
    /// flushes both, 3 keeps both), each set in both formats' fields; unlisted, the title mode's (f32
    /// flushed, f16/f64 kept).
    #[serde(default)]
    pub denorm: Vec<u8>,
    /// IEEE_MODE settings.
    #[serde(default)]
    pub ieee: Vec<bool>,
    /// DX10_CLAMP settings.
    #[serde(default)]
    pub dx10_clamp: Vec<bool>,
    /// FP16_OVFL settings.
    #[serde(default)]
    pub fp16_ovfl: Vec<bool>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Modes {
    List(Vec<String>),
    Matrix(Matrix),
}

/// The file's fields, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    #[serde(default)]
    about: String,
    #[serde(default)]
    settles: Vec<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    words: Option<Vec<String>>,
    outputs: u32,
    #[serde(default)]
    compare: Vec<String>,
    #[serde(default)]
    waves: Option<Vec<u32>>,
    #[serde(default)]
    combine: Combine,
    operands: Vec<Vec<String>>,
    #[serde(default)]
    modes: Option<Modes>,
    #[serde(default)]
    lanes: Option<u32>,
    #[serde(default)]
    lds_bytes: u32,
    #[serde(default)]
    targets: Vec<String>,
    #[serde(default)]
    buffers: Option<BuffersFile>,
}

/// The `[buffers]` table, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BuffersFile {
    #[serde(default)]
    scratch_bytes: Option<u32>,
    #[serde(default)]
    fill: Option<String>,
    #[serde(default, rename = "in")]
    in_vsharp: Option<VsharpFile>,
    #[serde(default)]
    scratch: Option<VsharpFile>,
}

/// A `[buffers.in]` or `[buffers.scratch]` table, as written.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct VsharpFile {
    #[serde(default)]
    format: Option<u32>,
    #[serde(default)]
    dst_sel: Option<String>,
    #[serde(default)]
    index_stride: Option<u32>,
    #[serde(default)]
    add_tid: Option<bool>,
    #[serde(default)]
    oob_select: Option<u32>,
    #[serde(default)]
    stride: Option<u32>,
    #[serde(default)]
    swizzle: Option<bool>,
    #[serde(default)]
    records: Option<u32>,
}

/// The fields of a buffer resource (V#) the extended `oracle-v1` prologue builds over an array (gfx10 layout:
/// the RDNA 2 ISA guide's buffer resource table; LLVM `SIDefines.h` and Mesa `sid.h` name the word-3 fields).
/// Word 0 is the array's address bits 31:0; word 1 its bits 47:32 with `stride` in bits 29:16 and `swizzle` in
/// bit 31; word 2 NUM_RECORDS; word 3 [`Vsharp::word3`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vsharp {
    /// FORMAT, word 3 bits 18:12: the 7-bit gfx10 buffer format `buffer_*_format` instructions use (`tbuffer`
    /// instructions carry their own).
    pub format: u8,
    /// DST_SEL_X..W, word 3 bits 11:0 in threes: 0 reads 0, 1 reads one, 4..7 component X..W.
    pub dst_sel: [u8; 4],
    /// INDEX_STRIDE in lanes (8, 16, 32 or 64), word 3 bits 22:21 (swizzled addressing).
    pub index_stride: u32,
    /// ADD_TID_ENABLE, word 3 bit 23.
    pub add_tid: bool,
    /// OOB_SELECT, word 3 bits 29:28 (3: raw, the byte offset against NUM_RECORDS).
    pub oob_select: u8,
    /// The record stride in bytes (0 to 16383), word 1 bits 29:16.
    pub stride: u32,
    /// SWIZZLE_ENABLE, word 1 bit 31.
    pub swizzle: bool,
    /// NUM_RECORDS (word 2); `None` for the array's size in bytes.
    pub records: Option<u32>,
}

impl Vsharp {
    /// A raw buffer over the whole array: format 32_FLOAT (22), DST_SEL X, Y, Z, W, OOB_SELECT 3, no stride:
    /// word 3 0x31016fac, the word the `agc-buffer-v1` peer kernels use.
    pub const RAW: Vsharp = Vsharp {
        format: 22,
        dst_sel: [4, 5, 6, 7],
        index_stride: 8,
        add_tid: false,
        oob_select: 3,
        stride: 0,
        swizzle: false,
        records: None,
    };

    /// Word 3: DST_SEL, FORMAT, INDEX_STRIDE, ADD_TID_ENABLE, RESOURCE_LEVEL (bit 24, 1 on gfx10 as Mesa's
    /// `ac_build_buffer_descriptor` sets it) and OOB_SELECT; TYPE (bits 31:30) 0, a buffer.
    pub fn word3(&self) -> u32 {
        let sel = self
            .dst_sel
            .iter()
            .enumerate()
            .fold(0, |w, (i, &s)| w | u32::from(s) << (3 * i));
        sel | u32::from(self.format) << 12
            | self.index_stride.trailing_zeros().saturating_sub(3) << 21
            | u32::from(self.add_tid) << 23
            | 1 << 24
            | u32::from(self.oob_select) << 28
    }

    fn parse(f: Option<VsharpFile>, what: &str) -> Result<Vsharp, String> {
        let f = f.unwrap_or_default();
        let mut v = Vsharp::RAW;
        if let Some(x) = f.format {
            v.format = u8::try_from(x)
                .ok()
                .filter(|&x| x < 128)
                .ok_or_else(|| format!("{what}: format {x} (0 to 127)"))?;
        }
        if let Some(sel) = f.dst_sel {
            let codes: Vec<u8> = sel
                .chars()
                .map(|c| match c {
                    '0' => Some(0),
                    '1' => Some(1),
                    'x' => Some(4),
                    'y' => Some(5),
                    'z' => Some(6),
                    'w' => Some(7),
                    _ => None,
                })
                .collect::<Option<_>>()
                .filter(|c: &Vec<u8>| c.len() == 4)
                .ok_or_else(|| {
                    format!("{what}: dst_sel `{sel}` is four of 0, 1, x, y, z, w (e.g. \"wzyx\")")
                })?;
            v.dst_sel.copy_from_slice(&codes);
        }
        if let Some(x) = f.index_stride {
            if ![8, 16, 32, 64].contains(&x) {
                return Err(format!("{what}: index_stride {x} (8, 16, 32 or 64)"));
            }
            v.index_stride = x;
        }
        if let Some(x) = f.oob_select {
            v.oob_select = u8::try_from(x)
                .ok()
                .filter(|&x| x < 4)
                .ok_or_else(|| format!("{what}: oob_select {x} (0 to 3)"))?;
        }
        if let Some(x) = f.stride {
            if x >= 1 << 14 {
                return Err(format!("{what}: stride {x} (0 to 16383)"));
            }
            v.stride = x;
        }
        v.add_tid = f.add_tid.unwrap_or(false);
        v.swizzle = f.swizzle.unwrap_or(false);
        v.records = f.records;
        Ok(v)
    }
}

/// The buffer extension of the `oracle-v1` layout a template asks for with a `[buffers]` table ([crate
/// docs](crate), "Buffers").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffers {
    /// Bytes per lane of the `scratch` array (a multiple of 4, 0 to 1024; 0 for a template that only reads
    /// `in` through its V#): lane L's slot starts at byte `L * scratch_bytes`.
    pub scratch_bytes: u32,
    /// The dword every byte of `scratch` starts as.
    pub fill: u32,
    /// The V# over `in`, in `s[12:15]`.
    pub in_vsharp: Vsharp,
    /// The V# over `scratch`, in `s[16:19]`.
    pub scratch_vsharp: Vsharp,
}

impl Buffers {
    fn parse(f: BuffersFile) -> Result<Buffers, String> {
        let scratch_bytes = f.scratch_bytes.unwrap_or(0);
        if scratch_bytes % 4 != 0 || scratch_bytes > 1024 {
            return Err(format!(
                "buffers: scratch_bytes = {scratch_bytes}: a multiple of 4 from 0 to 1024"
            ));
        }
        let fill = match f.fill {
            None => 0,
            Some(t) => {
                let h = t.strip_prefix("0x").unwrap_or(&t);
                u32::from_str_radix(h, 16)
                    .ok()
                    .filter(|_| h.len() == 8)
                    .ok_or_else(|| format!("buffers: fill `{t}` is not 8 hex digits"))?
            }
        };
        Ok(Buffers {
            scratch_bytes,
            fill,
            in_vsharp: Vsharp::parse(f.in_vsharp, "buffers.in")?,
            scratch_vsharp: Vsharp::parse(f.scratch, "buffers.scratch")?,
        })
    }
}

/// The gfx10 chips a template may name in `targets`.
pub const CHIPS: [&str; 11] = [
    "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033",
    "gfx1034", "gfx1035", "gfx1036",
];

/// The kernel body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Assembly text in llvm-mc's syntax (`oracle collect` assembles it with llvm-mc-19 for the target).
    Asm(String),
    /// Machine words.
    Words(Vec<u32>),
}

/// One template, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    /// Its name: the suite its rows go to is `oracle-NAME`.
    pub name: String,
    /// What it measures, in a sentence.
    pub about: String,
    /// The rules (of `reference_model::rules`) or transcendental tolerances it would settle.
    pub settles: Vec<String>,
    /// The body.
    pub body: Body,
    /// Output dwords (v10 upwards), 1 to 16.
    pub outputs: u32,
    /// Per output column the check letter (`x`, `n`, `h`, `l`, `a`, `-`); default `x`.
    pub compare: Vec<char>,
    /// Wave sizes.
    pub waves: Vec<u32>,
    /// How operand lists combine.
    pub combine: Combine,
    /// Per input dword (1 to 4), the values: its classes expanded and concatenated.
    pub operands: Vec<Vec<u32>>,
    /// The float modes, in order.
    pub modes: Vec<Mode>,
    /// Lanes per dispatch (a multiple of 64, at most 1024).
    pub lanes: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// The chips whose instruction set has the body's instructions (gfx10.3 lacks `v_mad_f32`, `v_mac_f32`
    /// and `v_mac_legacy_f32`; gfx1010 and gfx1013 lack `v_dot2_f32_f16`); empty for every gfx10 chip.
    pub targets: Vec<String>,
    /// The buffer extension of the layout (`[buffers]`), or `None` for the plain `oracle-v1` kernel.
    pub buffers: Option<Buffers>,
}

/// One dispatch of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The wave size.
    pub wave: u32,
    /// The float mode.
    pub mode: Mode,
    /// Which chunk of the operand combinations (0-based), for names and resumption.
    pub chunk: u32,
    /// Each lane's four input dwords (unused ones 0).
    pub lanes: Vec<[u32; 4]>,
}

impl Case {
    /// Threads of the dispatch: the lanes rounded up to whole 64-lane blocks (whole waves in both sizes).
    pub fn threads(&self) -> u32 {
        (self.lanes.len() as u32).div_ceil(64) * 64
    }
}

/// The most values one operand class may expand to (and the most operand combinations of a template).
pub const MAX_VALUES: u64 = 1 << 24;

/// `text` cut to 80 characters for a message (a class name may be as long as its file).
fn truncate(text: &str) -> String {
    match text.char_indices().nth(80) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}...({} bytes)", &text[..cut], text.len()),
    }
}

/// A number in a class name: `0x` and hex digits, or decimal.
fn number(text: &str, what: &str, class: &str) -> Result<u32, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(h) if !h.is_empty() && h.len() <= 8 => u32::from_str_radix(h, 16).ok(),
        Some(_) => None,
        None => text.parse().ok(),
    };
    parsed.ok_or_else(|| {
        format!("`{class}`: {what} `{text}` is not a 32-bit number (decimal or 0x hex)")
    })
}

/// A count in a class name, 1 to `max`.
fn count(text: &str, what: &str, class: &str, max: u64) -> Result<u32, String> {
    number(text, what, class)
        .ok()
        .filter(|&n| n >= 1 && u64::from(n) <= max)
        .ok_or_else(|| format!("`{class}`: {what} must be 1 to {max}"))
}

/// The f32 just above `x` (both positive and finite).
fn next_up(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

/// Whether the positive normal f32 `x` is at most (2k + 1) / (2d), decided exactly in integers: x = m 2^e with a
/// 24-bit m and e < 0 (the midpoints lie in (2^-18, 1)), so the comparison is m * 2d <= (2k + 1) * 2^-e.
fn at_most_midpoint(x: f32, k: u32, d: u32) -> bool {
    let bits = x.to_bits();
    let m = u128::from(bits & 0x7f_ffff | 0x80_0000);
    let e = (bits >> 23) as i32 - 127 - 23;
    debug_assert!(e < 0 && e > -100);
    m * 2 * u128::from(d) <= (2 * u128::from(k) + 1) << (-e) as u32
}

/// The two f32 values around the midpoint (k + 0.5) / d between the codes k and k + 1 of a normalized format
/// with d = 2^n - 1: the largest f32 at most the midpoint and the f32 above it, found by exact comparison (the
/// f64 quotient only gives the start). For n = 1 the midpoint is 0.5 itself, an exact tie.
fn midpoint_pair(k: u32, d: u32) -> (u32, u32) {
    let mut a = ((2.0 * f64::from(k) + 1.0) / (2.0 * f64::from(d))) as f32;
    while !at_most_midpoint(a, k, d) {
        a = f32::from_bits(a.to_bits() - 1);
    }
    while at_most_midpoint(next_up(a), k, d) {
        a = next_up(a);
    }
    (a.to_bits(), next_up(a).to_bits())
}

/// The xorshift stream of the `random` classes for `seed`.
fn stream(seed: u64) -> impl FnMut() -> u32 {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    }
}

/// How deep `each` and `repeat` may nest (`each:2:repeat:3:f32` is two deep): far past any use, and it keeps a
/// hostile class name from recursing as deep as it is long.
pub const MAX_NESTING: u32 = 8;

/// The values of operand class `name` ([crate docs](crate)).
pub fn class_values(name: &str) -> Result<Vec<u32>, String> {
    class_at(name, 0)
}

fn class_at(name: &str, depth: u32) -> Result<Vec<u32>, String> {
    let shown = truncate(name);
    Ok(match name {
        "f32" => F32_CLASSES.to_vec(),
        "f16" => F16_CLASSES.iter().map(|&h| u32::from(h)).collect(),
        "f16x2" => F16_CLASSES
            .iter()
            .flat_map(|&hi| {
                F16_CLASSES
                    .iter()
                    .map(move |&lo| u32::from(hi) << 16 | u32::from(lo))
            })
            .collect(),
        "f64lo" => F64_CLASSES.iter().map(|&d| d as u32).collect(),
        "f64hi" => F64_CLASSES.iter().map(|&d| (d >> 32) as u32).collect(),
        "int" => INT_CLASSES.to_vec(),
        "shift" => (0..=70).collect(),
        other if other.starts_with("0x") => vec![number(other, "the value", &shown)?],
        other => {
            let (kind, rest) = other.split_once(':').unwrap_or((other, ""));
            match kind {
                "random" => {
                    let (n, seed) = rest
                        .split_once(':')
                        .ok_or_else(|| format!("`{shown}`: random classes are random:N:SEED"))?;
                    let n: u32 = n
                        .parse()
                        .ok()
                        .filter(|n| (1..=65_536).contains(n))
                        .ok_or_else(|| format!("`{shown}`: N must be 1 to 65536"))?;
                    let seed: u64 = seed
                        .parse()
                        .map_err(|_| format!("`{shown}`: SEED must be a decimal integer"))?;
                    let mut next = stream(seed);
                    (0..n).map(|_| next()).collect()
                }
                "seq" => {
                    let parts: Vec<&str> = rest.split(':').collect();
                    let [start, step, n] = parts[..] else {
                        return Err(format!("`{shown}`: sequences are seq:START:STEP:N"));
                    };
                    let start = number(start, "START", &shown)?;
                    let step = number(step, "STEP", &shown)?;
                    let n = count(n, "N", &shown, MAX_VALUES)?;
                    // Wrapping: a step of 0x00080008 from 0x00010000 counts halves without carries.
                    (0..n).map(|i| start.wrapping_add(i.wrapping_mul(step))).collect()
                }
                "each" | "repeat" => {
                    if depth >= MAX_NESTING {
                        return Err(format!(
                            "`{shown}`: each and repeat nest at most {MAX_NESTING} deep"
                        ));
                    }
                    let (k, inner) = rest.split_once(':').ok_or_else(|| {
                        format!("`{shown}`: {kind}:K:CLASS repeats other classes (CLASS+CLASS+...)")
                    })?;
                    let k = count(k, "K", &shown, 65_536)?;
                    // `+` joins several classes into the list repeated.
                    let mut values = Vec::new();
                    for c in inner.split('+') {
                        values.extend(
                            class_at(c, depth + 1)
                                .map_err(|m| format!("in `{shown}`: {m}"))?,
                        );
                        if values.len() as u64 > MAX_VALUES {
                            return Err(format!("`{shown}`: more than {MAX_VALUES} values"));
                        }
                    }
                    if values.len() as u64 * u64::from(k) > MAX_VALUES {
                        return Err(format!(
                            "`{shown}`: {} values, at most {MAX_VALUES}",
                            values.len() as u64 * u64::from(k)
                        ));
                    }
                    if kind == "each" {
                        values
                            .iter()
                            .flat_map(|&v| std::iter::repeat_n(v, k as usize))
                            .collect()
                    } else {
                        values.repeat(k as usize)
                    }
                }
                "midpoints" => {
                    let parts: Vec<&str> = rest.split(':').collect();
                    let (n, pick) = match parts[..] {
                        [n] => (n, None),
                        [n, c, seed] => (n, Some((c, seed))),
                        _ => {
                            return Err(format!(
                                "`{shown}`: midpoints:N (every code) or midpoints:N:COUNT:SEED"
                            ))
                        }
                    };
                    let n = count(n, "N", &shown, 16)?;
                    let d = (1u32 << n) - 1;
                    // The midpoints between codes k and k + 1 for k = 0 .. 2^n - 2.
                    let ks: Vec<u32> = match pick {
                        None => (0..d).collect(),
                        Some((c, seed)) => {
                            let c = count(c, "COUNT", &shown, 65_536)?;
                            let seed: u64 = seed.parse().map_err(|_| {
                                format!("`{shown}`: SEED must be a decimal integer")
                            })?;
                            let mut next = stream(seed);
                            (0..c).map(|_| next() % d).collect()
                        }
                    };
                    ks.iter()
                        .flat_map(|&k| {
                            let (a, b) = midpoint_pair(k, d);
                            [a, b, a | 0x8000_0000, b | 0x8000_0000]
                        })
                        .collect()
                }
                _ => {
                    return Err(format!(
                        "`{shown}` is no operand class (f32, f16, f16x2, f64lo, f64hi, int, shift, 0xHEX, \
                         random:N:SEED, seq:START:STEP:N, each:K:CLASS, repeat:K:CLASS, midpoints:N[:COUNT:SEED])"
                    ))
                }
            }
        }
    })
}

/// `byte` with the two-bit fields at bits `a` and `b` set to `v`.
fn with_fields(byte: u8, a: u32, b: u32, v: u8) -> u8 {
    let clear = !(3u8 << a | 3u8 << b);
    byte & clear | v << a | v << b
}

impl Matrix {
    /// The modes of the matrix, in a fixed order.
    pub fn modes(&self) -> Result<Vec<Mode>, String> {
        let t = Mode::TITLE;
        let orb = |v: &Vec<bool>, d: bool| if v.is_empty() { vec![d] } else { v.clone() };
        if let Some(bad) = self.round.iter().chain(&self.denorm).find(|&&v| v > 3) {
            return Err(format!("modes: field value {bad} (0 to 3)"));
        }
        // An unlisted setting keeps the title mode's fields (which differ between the formats: 0xc0 flushes
        // f32 denormals and keeps f16/f64 ones); a listed one sets both formats' fields.
        let rounds: Vec<Option<u8>> = if self.round.is_empty() {
            vec![None]
        } else {
            self.round.iter().map(|&v| Some(v)).collect()
        };
        let denorms: Vec<Option<u8>> = if self.denorm.is_empty() {
            vec![None]
        } else {
            self.denorm.iter().map(|&v| Some(v)).collect()
        };
        let mut out = Vec::new();
        for &r in &rounds {
            for &d in &denorms {
                for &ieee in &orb(&self.ieee, t.ieee) {
                    for &dx10_clamp in &orb(&self.dx10_clamp, t.dx10_clamp) {
                        for &fp16_ovfl in &orb(&self.fp16_ovfl, t.fp16_ovfl) {
                            let mut fm = t.float_mode;
                            if let Some(r) = r {
                                fm = with_fields(fm, 0, 2, r);
                            }
                            if let Some(d) = d {
                                fm = with_fields(fm, 4, 6, d);
                            }
                            out.push(Mode {
                                float_mode: fm,
                                ieee,
                                dx10_clamp,
                                fp16_ovfl,
                            });
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The TOML parser's position of an error as 1-based line and column.
fn position(text: &str, span: Option<std::ops::Range<usize>>) -> Option<(usize, usize)> {
    let at = span?.start.min(text.len());
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((line, col))
}

impl Template {
    /// Parses and checks the template in `text`; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Template, Error> {
        let err = |message: String| Error {
            file: file.to_string(),
            at: None,
            message,
        };
        let f: File = toml::from_str(text).map_err(|e| Error {
            file: file.to_string(),
            at: position(text, e.span()),
            message: e.message().to_string(),
        })?;
        if f.name.is_empty()
            || !f
                .name
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        {
            return Err(err(format!(
                "name `{}`: lowercase letters, digits and `-` only (it names the suite oracle-NAME)",
                f.name
            )));
        }
        let body = match (f.body, f.words) {
            (Some(b), None) if !b.trim().is_empty() => Body::Asm(b),
            (None, Some(w)) if !w.is_empty() => Body::Words(
                w.iter()
                    .map(|s| {
                        let h = s.strip_prefix("0x").unwrap_or(s);
                        u32::from_str_radix(h, 16)
                            .ok()
                            .filter(|_| h.len() == 8)
                            .ok_or_else(|| err(format!("word `{s}` is not 8 hex digits")))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => {
                return Err(err(
                    "give exactly one of `body` (assembly) and `words`".into()
                ))
            }
        };
        if !(1..=16).contains(&f.outputs) {
            return Err(err(format!("outputs = {}: 1 to 16 (v10..v25)", f.outputs)));
        }
        let mut compare = Vec::new();
        for c in &f.compare {
            match c.as_str() {
                "x" | "n" | "h" | "l" | "a" | "-" => compare.push(c.chars().next().unwrap_or('x')),
                other => {
                    return Err(err(format!(
                        "compare `{other}`: one of x, n, h, l, a, - per output column"
                    )))
                }
            }
        }
        if compare.len() > f.outputs as usize {
            return Err(err(format!(
                "{} compare letters for {} outputs",
                compare.len(),
                f.outputs
            )));
        }
        compare.resize(f.outputs as usize, 'x');
        let waves = f.waves.unwrap_or_else(|| vec![32]);
        if waves.is_empty() || waves.iter().any(|w| *w != 32 && *w != 64) {
            return Err(err(format!("waves {waves:?}: 32 and/or 64")));
        }
        if f.operands.is_empty() || f.operands.len() > 4 {
            return Err(err(format!(
                "{} operand lists: one per input dword, 1 to 4 (v4..v7)",
                f.operands.len()
            )));
        }
        let mut operands = Vec::new();
        for (i, classes) in f.operands.iter().enumerate() {
            if classes.is_empty() {
                return Err(err(format!("operand list {i} names no class")));
            }
            let mut v = Vec::new();
            for c in classes {
                v.extend(class_values(c).map_err(|m| err(format!("operand {i}: {m}")))?);
                if v.len() as u64 > MAX_VALUES {
                    return Err(err(format!(
                        "operand {i}: more than {MAX_VALUES} values in one list"
                    )));
                }
            }
            operands.push(v);
        }
        if f.combine == Combine::Zip && operands.iter().any(|o| o.len() != operands[0].len()) {
            let lens: Vec<usize> = operands.iter().map(Vec::len).collect();
            return Err(err(format!(
                "combine = \"zip\" needs operand lists of one length, not {lens:?}"
            )));
        }
        let count: u64 = match f.combine {
            Combine::Cartesian => operands
                .iter()
                .try_fold(1u64, |n, o| n.checked_mul(o.len() as u64))
                .unwrap_or(u64::MAX),
            Combine::Zip => operands[0].len() as u64,
        };
        if count > MAX_VALUES {
            return Err(err(format!(
                "{} operand combinations: at most 2^24 per template",
                if count == u64::MAX {
                    "2^64 or more".to_string()
                } else {
                    count.to_string()
                }
            )));
        }
        let modes = match f.modes {
            None => vec![Mode::TITLE],
            Some(Modes::List(l)) if !l.is_empty() => l
                .iter()
                .map(|m| Mode::parse(m))
                .collect::<Result<_, _>>()
                .map_err(err)?,
            Some(Modes::List(_)) => return Err(err("modes: an empty list".into())),
            Some(Modes::Matrix(m)) => m.modes().map_err(err)?,
        };
        let lanes = f.lanes.unwrap_or(256);
        if lanes == 0 || lanes % 64 != 0 || lanes > 1024 {
            return Err(err(format!(
                "lanes = {lanes}: a multiple of 64, at most 1024"
            )));
        }
        if f.lds_bytes > 65_536 {
            return Err(err(format!("lds_bytes = {}: at most 65536", f.lds_bytes)));
        }
        if let Some(t) = f.targets.iter().find(|t| !CHIPS.contains(&t.as_str())) {
            return Err(err(format!(
                "targets: `{t}` is no gfx10 chip ({})",
                CHIPS.join(", ")
            )));
        }
        let buffers = f.buffers.map(Buffers::parse).transpose().map_err(err)?;
        Ok(Template {
            buffers,
            targets: f.targets,
            name: f.name,
            about: f.about,
            settles: f.settles,
            body,
            outputs: f.outputs,
            compare,
            waves,
            combine: f.combine,
            operands,
            modes,
            lanes,
            lds_bytes: f.lds_bytes,
        })
    }

    /// Whether the template runs on `chip` (its `targets` name it, or it names none).
    pub fn runs_on(&self, chip: &str) -> bool {
        self.targets.is_empty() || self.targets.iter().any(|t| t == chip)
    }

    /// Every lane's inputs, in order.
    pub fn inputs(&self) -> Vec<[u32; 4]> {
        let mut out = Vec::new();
        match self.combine {
            Combine::Zip => {
                for i in 0..self.operands[0].len() {
                    let mut l = [0; 4];
                    for (k, o) in self.operands.iter().enumerate() {
                        l[k] = o[i];
                    }
                    out.push(l);
                }
            }
            Combine::Cartesian => {
                let total: usize = self.operands.iter().map(Vec::len).product();
                for mut i in 0..total {
                    let mut l = [0; 4];
                    for (k, o) in self.operands.iter().enumerate().rev() {
                        l[k] = o[i % o.len()];
                        i /= o.len();
                    }
                    out.push(l);
                }
            }
        }
        out
    }

    /// The dispatches: for each wave size and mode, the inputs in chunks of [`Template::lanes`]. A short last
    /// chunk still dispatches whole waves ([`Case::threads`]); its extra lanes have no inputs (they read the
    /// input array's zero fill) and no rows.
    pub fn cases(&self) -> Vec<Case> {
        let inputs = self.inputs();
        let mut out = Vec::new();
        for &wave in &self.waves {
            for &mode in &self.modes {
                for (chunk, lanes) in inputs.chunks(self.lanes as usize).enumerate() {
                    let lanes = lanes.to_vec();
                    out.push(Case {
                        wave,
                        mode,
                        chunk: chunk as u32,
                        lanes,
                    });
                }
            }
        }
        out
    }
}

/// The bundled templates: (file name, text).
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "atomic-float-f32.toml",
        include_str!("../bundled/atomic-float-f32.toml"),
    ),
    (
        "atomic-float-f64.toml",
        include_str!("../bundled/atomic-float-f64.toml"),
    ),
    (
        "buffer-d16-load-convert.toml",
        include_str!("../bundled/buffer-d16-load-convert.toml"),
    ),
    (
        "buffer-d16-load-norm16.toml",
        include_str!("../bundled/buffer-d16-load-norm16.toml"),
    ),
    (
        "buffer-d16-store-convert.toml",
        include_str!("../bundled/buffer-d16-store-convert.toml"),
    ),
    (
        "buffer-load-16-float.toml",
        include_str!("../bundled/buffer-load-16-float.toml"),
    ),
    (
        "buffer-load-16-int.toml",
        include_str!("../bundled/buffer-load-16-int.toml"),
    ),
    (
        "buffer-load-16-norm.toml",
        include_str!("../bundled/buffer-load-16-norm.toml"),
    ),
    (
        "buffer-load-16-scaled.toml",
        include_str!("../bundled/buffer-load-16-scaled.toml"),
    ),
    (
        "buffer-load-f16-f10.toml",
        include_str!("../bundled/buffer-load-f16-f10.toml"),
    ),
    (
        "buffer-load-format.toml",
        include_str!("../bundled/buffer-load-format.toml"),
    ),
    (
        "buffer-load-packed.toml",
        include_str!("../bundled/buffer-load-packed.toml"),
    ),
    (
        "buffer-load-small-float.toml",
        include_str!("../bundled/buffer-load-small-float.toml"),
    ),
    (
        "buffer-store-extra-components.toml",
        include_str!("../bundled/buffer-store-extra-components.toml"),
    ),
    (
        "buffer-store-float-nan.toml",
        include_str!("../bundled/buffer-store-float-nan.toml"),
    ),
    (
        "buffer-store-int-saturate.toml",
        include_str!("../bundled/buffer-store-int-saturate.toml"),
    ),
    (
        "buffer-store-norm-tie.toml",
        include_str!("../bundled/buffer-store-norm-tie.toml"),
    ),
    (
        "buffer-store-norm.toml",
        include_str!("../bundled/buffer-store-norm.toml"),
    ),
    (
        "buffer-store-scaled.toml",
        include_str!("../bundled/buffer-store-scaled.toml"),
    ),
    (
        "buffer-store-zero-fill.toml",
        include_str!("../bundled/buffer-store-zero-fill.toml"),
    ),
    (
        "buffer-swizzle.toml",
        include_str!("../bundled/buffer-swizzle.toml"),
    ),
    (
        "cdbg-not-taken.toml",
        include_str!("../bundled/cdbg-not-taken.toml"),
    ),
    (
        "cross-lane.toml",
        include_str!("../bundled/cross-lane.toml"),
    ),
    (
        "cvt-flr-rpi-nan.toml",
        include_str!("../bundled/cvt-flr-rpi-nan.toml"),
    ),
    (
        "cvt-norm-f16.toml",
        include_str!("../bundled/cvt-norm-f16.toml"),
    ),
    ("cvt-pack.toml", include_str!("../bundled/cvt-pack.toml")),
    (
        "div-fixup-fmas.toml",
        include_str!("../bundled/div-fixup-fmas.toml"),
    ),
    ("div-fixup.toml", include_str!("../bundled/div-fixup.toml")),
    (
        "dot2-f32-f16.toml",
        include_str!("../bundled/dot2-f32-f16.toml"),
    ),
    (
        "dpp8-inactive.toml",
        include_str!("../bundled/dpp8-inactive.toml"),
    ),
    (
        "f16-arithmetic.toml",
        include_str!("../bundled/f16-arithmetic.toml"),
    ),
    (
        "f32-add-mul.toml",
        include_str!("../bundled/f32-add-mul.toml"),
    ),
    (
        "f32-compare.toml",
        include_str!("../bundled/f32-compare.toml"),
    ),
    (
        "f32-convert.toml",
        include_str!("../bundled/f32-convert.toml"),
    ),
    ("f32-fma.toml", include_str!("../bundled/f32-fma.toml")),
    (
        "f32-legacy.toml",
        include_str!("../bundled/f32-legacy.toml"),
    ),
    (
        "f32-min-max.toml",
        include_str!("../bundled/f32-min-max.toml"),
    ),
    (
        "f64-arithmetic.toml",
        include_str!("../bundled/f64-arithmetic.toml"),
    ),
    (
        "f64-tininess-others.toml",
        include_str!("../bundled/f64-tininess-others.toml"),
    ),
    (
        "initial-registers.toml",
        include_str!("../bundled/initial-registers.toml"),
    ),
    ("int-alu.toml", include_str!("../bundled/int-alu.toml")),
    (
        "int-clamp-sad.toml",
        include_str!("../bundled/int-clamp-sad.toml"),
    ),
    (
        "lds-add-f32.toml",
        include_str!("../bundled/lds-add-f32.toml"),
    ),
    (
        "lds-atomic-lane-order.toml",
        include_str!("../bundled/lds-atomic-lane-order.toml"),
    ),
    (
        "minmax-f64-denorm.toml",
        include_str!("../bundled/minmax-f64-denorm.toml"),
    ),
    (
        "minmax-signed-zero.toml",
        include_str!("../bundled/minmax-signed-zero.toml"),
    ),
    (
        "mix-f16-source-denorm.toml",
        include_str!("../bundled/mix-f16-source-denorm.toml"),
    ),
    (
        "movrel-dpp16.toml",
        include_str!("../bundled/movrel-dpp16.toml"),
    ),
    (
        "movrel-dpp8.toml",
        include_str!("../bundled/movrel-dpp8.toml"),
    ),
    (
        "movrel-range.toml",
        include_str!("../bundled/movrel-range.toml"),
    ),
    (
        "mullit-zero-factor.toml",
        include_str!("../bundled/mullit-zero-factor.toml"),
    ),
    (
        "nan-cvt-narrow.toml",
        include_str!("../bundled/nan-cvt-narrow.toml"),
    ),
    (
        "omod-f16-f64.toml",
        include_str!("../bundled/omod-f16-f64.toml"),
    ),
    (
        "permlane-fi-bound-ctrl.toml",
        include_str!("../bundled/permlane-fi-bound-ctrl.toml"),
    ),
    (
        "pk-fmac-dpp.toml",
        include_str!("../bundled/pk-fmac-dpp.toml"),
    ),
    (
        "rcp-rsq-sqrt-f32.toml",
        include_str!("../bundled/rcp-rsq-sqrt-f32.toml"),
    ),
    (
        "round-mode-others.toml",
        include_str!("../bundled/round-mode-others.toml"),
    ),
    (
        "saveexec-width.toml",
        include_str!("../bundled/saveexec-width.toml"),
    ),
    (
        "smem-atomics.toml",
        include_str!("../bundled/smem-atomics.toml"),
    ),
    (
        "smem-buffer-range-x16.toml",
        include_str!("../bundled/smem-buffer-range-x16.toml"),
    ),
    (
        "smem-buffer-range.toml",
        include_str!("../bundled/smem-buffer-range.toml"),
    ),
    (
        "smem-cache-ops.toml",
        include_str!("../bundled/smem-cache-ops.toml"),
    ),
    (
        "transcendental-f32.toml",
        include_str!("../bundled/transcendental-f32.toml"),
    ),
];

/// Every bundled template, parsed.
pub fn bundled() -> Result<Vec<Template>, Error> {
    BUNDLED.iter().map(|(f, t)| Template::parse(f, t)).collect()
}

/// The bundled template named `name` (its `name` field).
pub fn bundled_named(name: &str) -> Result<Option<Template>, Error> {
    Ok(bundled()?.into_iter().find(|t| t.name == name))
}
