//! What the PM4 tests share: a backend that records the jobs it is given, and guest-memory helpers.
#![allow(dead_code)]

use driver::pm4::Memory;
use measurements::job::{Backend, BackendError, Job, JobOutput};
use std::cell::RefCell;

/// A backend that records every job and returns its arrays as they came (or a fixed error), so a test sees
/// exactly what the command processor built.
#[derive(Default)]
pub struct Recorder {
    /// Every job run, in order.
    pub jobs: RefCell<Vec<Job>>,
    /// When set, every run fails with it.
    pub fail: Option<BackendError>,
    /// When set, a run writes this dword at the start of the array of this name.
    pub mark: Option<(String, u32)>,
}

impl Backend for Recorder {
    fn name(&self) -> String {
        "recorder".into()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        self.jobs.borrow_mut().push(job.clone());
        if let Some(e) = &self.fail {
            return Err(e.clone());
        }
        let mut arrays: Vec<(String, Vec<u32>)> = job
            .memory_image()?
            .into_iter()
            .map(|a| (a.name, a.dwords))
            .collect();
        if let Some((name, v)) = &self.mark {
            if let Some((_, d)) = arrays.iter_mut().find(|(n, _)| n == name) {
                d[0] = *v;
            }
        }
        Ok(job.output_from(arrays))
    }
}

/// Guest memory with one region per `(name, base, dwords)`.
pub fn memory(regions: &[(&str, u64, &[u32])]) -> Memory {
    let mut m = Memory::new();
    for (name, base, dwords) in regions {
        m.map(name, *base, dwords).unwrap();
    }
    m
}

/// `s_endpgm`.
pub const S_ENDPGM: u32 = 0xbf81_0000;
