//! Instruction semantics over [`crate::lower::Lower`]: what each operation computes from its operand values,
//! written once for the CPU evaluator and the SPIR-V emitter.

pub mod atomic;
pub mod float;
pub mod salu;
pub mod trans;
pub mod valu;
