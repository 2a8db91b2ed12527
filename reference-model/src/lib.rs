//! The gfx10 (RDNA 1/2) instruction set as code: the software oracle of the project.
//!
//! Modules (each added when it has real content):
//! - `isa`: encodings, typed decode and LLVM-syntax disassembly for gfx1013 (PS5) and gfx1030.
//! - `float`: bit-exact f16/f32/f64 arithmetic in every RDNA float mode.
//! - `exec`: the wave interpreter that runs a measurement job and is the `model` conformance backend.
//! - `rules`: the registry of hardware rules the model implements, with their evidence.
#![deny(missing_docs)]

pub mod exec;
pub mod float;
pub mod isa;
pub mod rules;
