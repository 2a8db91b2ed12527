//! `oracle pm4`: PM4 command buffers as a hardware debugger shows them (`dump`), and the command buffer the
//! driver writes for a measured job (`encode`), which `dump` reads back.

use driver::pm4::{encode_job, EncodeOptions, Engine};
use measurements::job::plan_jobs;
use measurements::Dataset;
use std::path::{Path, PathBuf};

/// The text of a command buffer read from `file` (a hex listing, or a little-endian binary blob; `-` is
/// stdin), and whether a packet could not be decoded (the text then ends with the error).
pub fn dump(file: &Path, binary: bool, engine: Engine) -> Result<(String, bool), String> {
    let words = crate::disasm::input_words(&[], Some(file), binary)?;
    let (text, err) = driver::pm4::dump(&words, engine);
    let queue = match engine {
        Engine::Compute => "compute queue",
        Engine::Graphics => "graphics ring",
    };
    Ok((
        format!(
            "# {}: {} dwords, {queue}\n{text}",
            file.display(),
            words.len()
        ),
        err.is_some(),
    ))
}

/// Which buffer of an encoded job `encode` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The IB2 with the state, the user data and the dispatch.
    Body,
    /// The submitted IB1 that calls it and waits for its fence.
    Submission,
}

/// The command buffer of the first job of kernel `kernel` (in `suite`, when several suites have one of that
/// name) of the measurements in `dirs` (default: the bundled data), as a hex listing of 8 words a line.
pub fn encode(
    kernel: &str,
    suite: Option<&str>,
    dirs: &[PathBuf],
    options: &EncodeOptions,
    part: Part,
) -> Result<String, String> {
    let dirs = if dirs.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        dirs.to_vec()
    };
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    let mut found = Vec::new();
    for s in ds.suites.values() {
        if suite.is_some_and(|want| want != s.name()) {
            continue;
        }
        if let Some(p) = plan_jobs(s)
            .into_iter()
            .find(|p| p.job.kernel.name == kernel)
        {
            found.push(p.job);
        }
    }
    let job = match found.len() {
        0 => {
            return Err(format!(
                "no kernel `{kernel}` with rows in the measurements"
            ))
        }
        1 => found.remove(0),
        n => {
            return Err(format!(
                "{n} suites have a kernel `{kernel}`: name one with --suite ({})",
                found
                    .iter()
                    .map(|j| j.suite.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    let e = encode_job(&job, options).map_err(|e| format!("{}: {e}", job.describe()))?;
    let (at, n) = match part {
        Part::Body => (e.body, e.body_dwords),
        Part::Submission => (e.submission, e.submission_dwords),
    };
    let words = e
        .memory
        .read_dwords(at, u64::from(n))
        .map_err(|f| f.to_string())?;
    Ok(words
        .chunks(8)
        .map(|c| {
            c.iter()
                .map(|w| format!("{w:08x}"))
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        })
        .collect())
}
