//! `oracle recompile`: the SPIR-V the `vulkan` backend runs, as text.
//!
//! A bundled (or `--measurements`) kernel is compiled for the launch of its first dispatch in its suite, as
//! `conformance --backend vulkan` compiles it: its memory regions, user SGPRs, grid and LDS. Words
//! (arguments or `--file`, read as `oracle disasm` reads them) are compiled for the launch the options give,
//! with no memory mapped: any memory access in them compiles to its fault record. LDS is workgroup memory when
//! it fits lavapipe's 32 KiB beside the exchange area. The text is rspirv's
//! disassembly, after a comment header naming the kernel, the launch and the sizes; `--spv FILE` also writes
//! the binary module (atomically) for `spirv-val` or `spirv-dis`.

use crate::disasm;
use measurements::job::{plan_jobs, BackendError};
use measurements::Dataset;
use recompiler::{Module, Shape};
use std::path::{Path, PathBuf};

/// The workgroup memory the modules are compiled for: lavapipe's 32 KiB (a device with more may keep a
/// larger LDS in workgroup memory).
const SHARED_BYTES: u32 = 32 << 10;

/// What to compile.
pub struct Request<'a> {
    /// A kernel by name (with `suite` when several suites have one of that name).
    pub kernel: Option<&'a str>,
    /// The suite to look for `kernel` in.
    pub suite: Option<&'a str>,
    /// Measurement folders (empty: the bundled data).
    pub measurements: &'a [PathBuf],
    /// Words on the command line.
    pub words: &'a [String],
    /// Or a word file.
    pub file: Option<&'a Path>,
    /// Read `file` as a binary blob.
    pub binary: bool,
    /// Target for words.
    pub target: &'a str,
    /// Wave size for words.
    pub wave: u32,
    /// Threads per workgroup for words (default: one wave).
    pub threads: Option<u32>,
    /// Workgroups for words.
    pub groups: u32,
    /// LDS bytes for words.
    pub lds: u32,
    /// Compile for a device with host float controls ([`recompiler::Shape::host_floats`]).
    pub host_floats: bool,
    /// Keep helpers as calls ([`recompiler::Shape::call_helpers`]).
    pub call_helpers: bool,
}

/// The header and the module.
pub fn run(r: &Request) -> Result<(String, Module), String> {
    match (r.kernel, r.words.is_empty() && r.file.is_none()) {
        (Some(_), false) => Err("give --kernel or words (--file), not both".into()),
        (Some(k), true) => bundled(r, k),
        (None, true) => Err("nothing to compile: give --kernel NAME, words or --file".into()),
        (None, false) => words(r),
    }
}

fn bundled(r: &Request, kernel: &str) -> Result<(String, Module), String> {
    let dirs = if r.measurements.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        r.measurements.to_vec()
    };
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    let mut found = Vec::new();
    for (name, suite) in &ds.suites {
        if r.suite.is_some_and(|s| s != name) {
            continue;
        }
        if let Some(j) = plan_jobs(suite)
            .into_iter()
            .find(|j| j.job.kernel.name == kernel)
        {
            found.push((name.clone(), j.job));
        }
    }
    if let Some(s) = r.suite.filter(|s| !ds.suites.contains_key(*s)) {
        return Err(format!("no suite `{s}` in the measurements"));
    }
    let (suite, job) = match found.len() {
        0 => {
            return Err(format!(
                "no kernel `{kernel}` with rows{}",
                r.suite
                    .map_or(String::new(), |s| format!(" in suite `{s}`"))
            ))
        }
        1 => found.remove(0),
        _ => {
            let names: Vec<&str> = found.iter().map(|(s, _)| s.as_str()).collect();
            return Err(format!(
                "kernel `{kernel}` is in several suites ({}): add --suite",
                names.join(", ")
            ));
        }
    };
    let options = recompiler::job::Options {
        shared_bytes: SHARED_BYTES,
        host_floats: r.host_floats,
        call_helpers: r.call_helpers,
        ..Default::default()
    };
    let p = recompiler::job::prepare(&job, options).map_err(|e| match e {
        BackendError::Unsupported {
            instruction,
            reason,
        } => {
            format!("{suite}/{kernel}: not translated: {instruction}: {reason}")
        }
        other => format!("{suite}/{kernel}: {other}"),
    })?;
    let k = &job.kernel;
    let header = format!(
        "; suite {suite}, kernel {kernel} ({} words), target {}, mode {}\n\
         ; launch: wave{}, {} threads, dispatch {}; {} bytes of guest memory, LDS {} bytes ({})\n\
         ; SPIR-V: {} words, local size {}\n",
        k.words().len(),
        job.target,
        job.mode,
        k.wave,
        k.threads,
        job.dispatch,
        p.memory.len(),
        p.lds_bytes,
        if p.module.lds_in_workgroup {
            "workgroup memory"
        } else {
            "storage buffer"
        },
        p.module.spirv.len(),
        p.module.local_size,
    );
    Ok((header, p.module))
}

fn words(r: &Request) -> Result<(String, Module), String> {
    let target = disasm::parse_target(r.target)?;
    let words = disasm::input_words(r.words, r.file, r.binary)?;
    if r.wave != 32 && r.wave != 64 {
        return Err(format!("--wave {}: gfx10 waves are 32 or 64 lanes", r.wave));
    }
    let threads = r.threads.unwrap_or(r.wave);
    let shape = Shape {
        wave: r.wave,
        threads,
        groups: [r.groups, 1, 1],
        tgid: [false; 3],
        user_sgprs: 0,
        lds_bytes: r.lds,
        budget: 1_000_000,
        mode: title_mode(),
        shared_bytes: SHARED_BYTES,
        parallel: false,
        host_floats: r.host_floats,
        call_helpers: r.call_helpers,
        rolled_loops: false,
    };
    let m = recompiler::compile(target, &words, shape, &[])
        .map_err(|e| format!("not translated: {e}"))?;
    let header = format!(
        "; {} words, target {}, launch: wave{}, {threads} threads, workgroups: {}, LDS {} bytes, no memory mapped\n\
         ; SPIR-V: {} words, local size {}\n",
        words.len(),
        r.target,
        r.wave,
        r.groups,
        r.lds,
        m.spirv.len(),
        m.local_size
    );
    Ok((header, m))
}

/// The MODE register of the float mode titles run in.
fn title_mode() -> u32 {
    let t = measurements::FloatMode::TITLE;
    reference_model::float::Mode {
        float_mode: t.float_mode,
        ieee: t.ieee,
        dx10_clamp: t.dx10_clamp,
        fp16_ovfl: t.fp16_ovfl,
    }
    .to_hwreg()
}
