//! The library side of `oracle`: what `oracle collect` builds and loads, public so that tests (and other
//! tools) can check it without a GPU.
//!
//! - [`codeobj`]: the HSA code object writer (ELF for ROCr, one kernel, its descriptor and metadata).
#![deny(missing_docs)]

pub mod codeobj;
