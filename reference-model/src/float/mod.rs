//! Bit-exact f16, f32 and f64 arithmetic of RDNA (gfx10) in every float mode.
//!
//! Every function takes and returns raw bits and a [`Mode`]; it knows nothing about
//! registers, encodings or lanes. The interpreter applies source modifiers with the
//! `neg_*`/`abs_*`/`src_mod_*` helpers (pure bit operations in every mode), calls one
//! function per lane, then [`omod_clamp_f32`] (or its f16/f64 form) for the output
//! modifiers.
//!
//! ```
//! use reference_model::float::{self, Mode, Omod};
//! let m = Mode::TITLE; // FLOAT_MODE 0xc0, IEEE 0, DX10_CLAMP 1
//! // Tininess after rounding (seed 000): 2^-126 * (1 - 2^-46) rounds up to 2^-126.
//! assert_eq!(float::mul_f32(m, 0x3f7f_fffe, 0x0080_0001), 0x0080_0000);
//! assert_eq!(float::mul_f32(m, 0x3f7f_ffff, 0x0080_0000), 0);
//! // A signalling NaN passes unquieted with IEEE 0 and is quieted with IEEE 1.
//! assert_eq!(float::add_f32(m, 0x7f81_2345, 0x3f80_0000), 0x7f81_2345);
//! assert_eq!(float::add_f32(Mode { ieee: true, ..m }, 0x7f81_2345, 0), 0x7fc1_2345);
//! // omod applies with IEEE 0 and f32 denormal results flushed.
//! let r = float::mul_f32(m, 0x4000_0000, 0x3f80_0000);
//! assert_eq!(float::omod_clamp_f32(m, r, Omod::Mul2, false), 0x4080_0000);
//! ```
//!
//! Every behaviour that is not plain IEEE 754 is a named rule in [`crate::rules`]; each
//! function's docs name the rules it applies.
//!
//! # How it is computed
//!
//! One soft-float engine (`core`) carries exact intermediate values (an integer
//! significand of up to 128 bits and an exponent) and rounds once. It does not use host
//! float arithmetic, so results do not depend on the host's rounding or flushing. It was
//! checked bit for bit against `rustc_apfloat` in the IEEE-conforming mode (FLOAT_MODE
//! 0xf0 and its three directed forms, IEEE 1) for add, sub, mul and fma of f16, f32 and
//! f64: `PROPTEST_CASES=1000000 cargo test --release -p reference-model --test float_props`
//! draws 1,000,000 operand triples per format and checks each of the 4 operations in each
//! of the 4 rounding directions, 48 million comparisons in all, with no difference (14.5 s
//! on the 2-core development machine; see the crate README). CI runs proptest's default
//! 256 cases per format, plus an exhaustive f16 band around the subnormal range and
//! overflow.
//!
//! Transcendentals are the exception: the hardware's approximations are not documented,
//! so they are computed in f64 with the `libm` crate (the same on every host) and rounded
//! once; conformance applies [`crate::rules::tolerance_ulp`] to them.

mod arith;
mod convert;
mod core;
mod minmax;
mod mode;
mod special;

pub use arith::*;
pub use convert::*;
pub use minmax::*;
pub use mode::{Denorm, Mode, Round};
pub use special::*;
