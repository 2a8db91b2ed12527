//! `conformance --via pm4`: every job written as a PM4 command buffer ([`driver::pm4::encode_job`]), decoded
//! and run by the command processor, whose dispatch runs on the chosen backend ([`driver::pm4::run_job`]).
//! The rows are the same and the backends keep their names, so a summary through PM4 compares cell by cell
//! with the direct one; the JSON summary says which path ran (`via`).

use driver::pm4::{EncodeOptions, Engine};
use measurements::job::{Backend, BackendError, Job, JobOutput};

/// How jobs reach the backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Via {
    /// `backend.run(job)`.
    #[default]
    Direct,
    /// Through a command buffer on a compute queue (AGC's ACB) and the command processor.
    Pm4,
    /// Through a command buffer on the graphics ring (AGC's DCB) and the command processor.
    Pm4Graphics,
}

impl Via {
    /// The name in summaries and on the command line: `direct`, `pm4`, `pm4-graphics`.
    pub fn name(self) -> &'static str {
        match self {
            Via::Direct => "direct",
            Via::Pm4 => "pm4",
            Via::Pm4Graphics => "pm4-graphics",
        }
    }
}

/// A backend reached through the PM4 path.
pub struct ViaPm4 {
    inner: Box<dyn Backend>,
    options: EncodeOptions,
}

impl ViaPm4 {
    /// `inner` behind command buffers written with `options`.
    pub fn new(inner: Box<dyn Backend>, options: EncodeOptions) -> ViaPm4 {
        ViaPm4 { inner, options }
    }
}

impl Backend for ViaPm4 {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        driver::pm4::run_job(job, self.inner.as_ref(), &self.options)
    }
}

/// The backends as `via` reaches them.
pub fn wrap(backends: Vec<Box<dyn Backend>>, via: Via) -> Vec<Box<dyn Backend>> {
    let engine = match via {
        Via::Direct => return backends,
        Via::Pm4 => Engine::Compute,
        Via::Pm4Graphics => Engine::Graphics,
    };
    backends
        .into_iter()
        .map(|b| {
            Box::new(ViaPm4::new(
                b,
                EncodeOptions {
                    engine,
                    ..EncodeOptions::default()
                },
            )) as Box<dyn Backend>
        })
        .collect()
}
