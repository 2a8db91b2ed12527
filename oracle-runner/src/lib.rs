//! The library side of `oracle`: what `oracle collect` builds and loads, public so that tests (and other
//! tools) can check it without a GPU.
//!
//! - [`codeobj`]: the HSA code object writer (ELF for ROCr, one kernel, its descriptor and metadata).
//! - [`dispatch`]: one `oracle-v1` job as one AQL dispatch on an RDNA GPU through ROCr (`--backend hsa`).
//! - [`collect`]: templates into rows, resumable and shardable (`oracle collect`).
//! - [`hsa`]: the ROCr runtime loaded at run time (`libloading`), its agents, and what is missing when it
//!   cannot run.
#![deny(missing_docs)]

pub mod codeobj;
pub mod collect;
pub mod dispatch;
pub mod hsa;
