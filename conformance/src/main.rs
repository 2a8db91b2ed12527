//! `conformance`: verify backends against measured rows and report.
//!
//! Exit status: 0 when no cell mismatched (listed known differences aside), 1 when one did (stderr says which
//! backends and suites, how many cells and the first measurement IDs), 2 on bad input or usage. `--help`
//! explains the options, the limits, measurement IDs and the mode notation.

mod out;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use conformance::backends::{self, Limits};
use conformance::{job_count, verify, Filter, KnownDifferences, Options};
use measurements::Dataset;
use reports::Summary;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// How jobs reach the backends (`--via`).
#[derive(Clone, Copy, ValueEnum)]
enum ViaArg {
    /// Each job straight to the backend.
    Direct,
    /// Each job as a PM4 command buffer on a compute queue, run by the driver's command processor.
    Pm4,
    /// Each job as a PM4 command buffer on the graphics ring.
    Pm4Graphics,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

/// What `--help` adds after the options: the notions every report and message uses.
const AFTER_HELP: &str = "\
Patterns (--suite, --kernel, a known difference's backend): shell globs matched against the whole name: `*` any
run of characters, `?` one, `[abc]`/`[!abc]`/`[a-z]` a set, `{a,b}` either, `\\` escapes. Matching takes time
linear in the name whatever the pattern; a pattern that does not compile is a usage error.

Measurement IDs: `M-` and 16 lowercase hex digits, the start of a SHA-256 over the row's kernel content hash,
target, float mode, dispatch hash (the dispatch's memory image, user-SGPR recipe and every lane's inputs) and
lane (and the compared array when it is not the kernel's default `out`). The same measurement made twice gets
the same ID; reports and known-differences files cite rows by it, `oracle show M-...` prints one.

Float modes are written FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL, e.g. `c0/0/1/0`: the FLOAT_MODE byte in hex
(round32 bits 1:0, round16/64 bits 3:2, denorm32 bits 5:4, denorm16/64 bits 7:6), then IEEE_MODE, DX10_CLAMP
and FP16_OVFL as 0 or 1. `c0/0/1/0` is the mode titles run in.

Targets: a row's target picks the instruction set the model runs: gfx1013 and ps5 (the PS5 GPU) run
gfx1013's; rdna2 (a source that names no chip) and gfx1030, gfx1031, gfx1032, gfx1033, gfx1034, gfx1035,
gfx1036 run gfx1030's. Any other target is unsupported, with that reason.

Limits: every job runs under a per-wave budget of 1,000,000 instructions, a whole-dispatch budget
(--job-instructions, default 100,000,000, all waves together) and a wall-clock limit (--job-timeout, default
60 s). A job past one is a timeout: its cells count as errors and the message gives the figures. A job whose
arrays add up to more than 1 GiB is refused (unsupported) before anything is allocated.

Backends: `model` (the reference model); `vulkan` (the recompiler on lavapipe, or on the only Vulkan device),
`vulkan:NAME` (on the device whose name contains NAME; --list-devices shows them). What the recompiler does
not translate (f64, packed and mixed-precision f16, transcendentals, float atomics, ...) is refused by `vulkan`
with the instruction and the reason (counted unsupported). lavapipe ends every shader loop after 65535 iterations:
a job that runs longer per invocation is refused there, never reported finished. `hsa` (`hsa:NAME`) runs
`oracle-v1` rows of the GPU's own target on an RDNA GPU through ROCr (ORACLE_HSA_LIB names the library;
exit 2 naming what is missing: the library, /dev/kfd, an RDNA agent); other rows are unsupported there. `all`
runs the model, every Vulkan device and the RDNA GPU where each exists, and says on stderr what it left out.

PM4: `--via pm4` writes every job as a PM4 command buffer for a compute queue (`pm4-graphics`: the graphics
ring), which the driver's command processor decodes and runs, its dispatch on the chosen backend; the rows and
backend names are the same, so the summary compares cell by cell with the direct run (`via` in the JSON says
which ran). A command buffer the processor refuses counts its job's cells as unsupported.

Sweeps: `conformance sweep --op v_fract_f32 --mode c0/0/1/0 --backend vulkan:NAME [--shard K/N] [--out F]`
runs all 2^32 (2^16) inputs of a unary float operation on a device and compares them with the model's float
library; `conformance sweep-merge F...` adds shards up.

Fuzzing: `conformance fuzz --backend model --backend vulkan:NAME --seed S --count N [--metamorphic] [--save D]`
compares random valid programs between backends (the first is the reference) and minimises what differs;
`conformance fuzz-replay F|DIR...` runs saved divergences again.

Exit status: 0 no cell mismatched outside the known differences; 1 some did (stderr names the backends,
suites, cell counts and first measurement IDs); 2 bad input or usage. Output cut short by its reader
(`| head`) is not an error.";

#[derive(Parser)]
#[command(
    name = "conformance",
    version,
    about = "Verify backends against measured gfx10 rows, bit for bit",
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Measurement folder (a suite, or a folder of suites); repeatable. Default: the bundled measurements.
    #[arg(long = "measurements", value_name = "DIR")]
    measurements: Vec<PathBuf>,
    /// Backend: model, vulkan (lavapipe or the only device), vulkan:NAME (the device whose name contains NAME),
    /// hsa (an RDNA GPU through ROCr), hsa:NAME (the RDNA agent whose name contains NAME) or all (the model,
    /// every Vulkan device and the RDNA GPU, where each exists); repeatable. Default: model.
    #[arg(long = "backend", value_name = "NAME")]
    backends: Vec<String>,
    /// Only suites whose name matches this pattern (see Patterns below); repeatable.
    #[arg(long = "suite", value_name = "PATTERN")]
    suites: Vec<String>,
    /// Only kernels whose name matches this pattern; repeatable.
    #[arg(long = "kernel", value_name = "PATTERN")]
    kernels: Vec<String>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write every report (JSON, Markdown, JUnit XML, HTML) into this folder.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Known-differences file (default: conformance/known-differences.toml when it exists).
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// Most mismatches listed in detail per backend.
    #[arg(long, value_name = "N", default_value_t = 5000)]
    mismatch_limit: usize,
    /// Wall-clock limit of one job, in seconds (decimals allowed; 0: no limit).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_seconds,
          allow_negative_numbers = true)]
    job_timeout: JobTimeout,
    /// Instructions one job may execute, all waves of its dispatch together.
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT_DISPATCH_INSTRUCTIONS,
          value_parser = clap::value_parser!(u64).range(1..))]
    job_instructions: u64,
    /// How each job reaches the backends: `direct`, or `pm4` (written as a PM4 command buffer for a compute
    /// queue, decoded and run by the driver's command processor, whose dispatch runs on the backend;
    /// `pm4-graphics` for the graphics ring). The summary is the same shape, with `via` in the JSON.
    #[arg(long, value_enum, default_value = "direct")]
    via: ViaArg,
    /// List the Vulkan devices the `vulkan` backend can use (name, driver, subgroup size, shared memory) and
    /// exit.
    #[arg(long)]
    list_devices: bool,
    /// Run only shard K of N (1 <= K <= N): the selected jobs whose 0-based index is K-1 modulo N (suites in
    /// name order, jobs in plan order). `conformance merge-summaries` of the N shards' `--format json` output
    /// is the unsharded summary.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Threads that run the model's jobs (default: the number of cores). Output is the same for every N; other
    /// backends run one job at a time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
}

#[derive(Subcommand)]
enum Sub {
    /// The recompiled kernel's speed on a float-heavy loop (v_mul_f32 and v_add_f32 chains, mode
    /// c0/0/1/0) against the same computation written by hand in exact GLSL and in plain GLSL, on one Vulkan
    /// device; the first workgroups of each are compared with the model. Exit 1 when an exact version
    /// differs.
    BenchGpu {
        /// vulkan (lavapipe, or the only device) or vulkan:NAME.
        #[arg(long, value_name = "NAME", default_value = "vulkan")]
        backend: String,
        /// Workgroups of 64 lanes.
        #[arg(long, default_value_t = 2048)]
        groups: u32,
        /// Loop turns.
        #[arg(long, default_value_t = 1000)]
        turns: u32,
        /// Steps per turn, 1 to 64 (each 8 float operations per lane).
        #[arg(long, default_value_t = 4)]
        steps: u32,
        /// Compile the guest kernel without the float engine's host fast paths (what they gain).
        #[arg(long)]
        no_host_floats: bool,
        /// Keep the recompiler's helper functions as calls (`DontInline`) instead of letting the driver inline
        /// them, to measure what calls cost (only a driver that honours it, such as NVIDIA's, differs).
        #[arg(long)]
        call_helpers: bool,
        /// Runs of each version; the fastest counts. Keep it above 1 on lavapipe, which compiles a shader at its
        /// first dispatch (`fuzz`'s time line shows it), so a single run times the compile.
        #[arg(long, default_value_t = 5)]
        repeats: u32,
        /// Workgroups compared with the model.
        #[arg(long, default_value_t = 4)]
        check_groups: u32,
        /// One lane in N starts from special values (zeros, denormals, infinities, NaNs), so every wave
        /// also takes the exact versions' slow paths; 0: all lanes normal.
        #[arg(long, default_value_t = 0, value_name = "N")]
        special_every: u32,
        /// Guest waves (wave32) per guest workgroup: 2 (64 lanes, like the GLSL) or 1 (twice as many
        /// workgroups of 32 lanes).
        #[arg(long, default_value_t = 2)]
        waves: u32,
    },
    /// Run every input of a unary float operation (2^32 for a 32-bit source, 2^16 for a 16-bit one) on a
    /// Vulkan device and compare each result, bit for bit, with the model's float library. Exit 1 when one
    /// differs.
    Sweep {
        /// The operation's mnemonic (v_fract_f32, v_frexp_mant_f32, v_cvt_i32_f32, v_floor_f16, ...; a wrong
        /// name lists them all).
        #[arg(long, value_name = "OPCODE")]
        op: String,
        /// The float mode, FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL (see the main help).
        #[arg(long, value_name = "MODE", default_value = "c0/0/1/0")]
        mode: String,
        /// vulkan (lavapipe, or the only device) or vulkan:NAME.
        #[arg(long, value_name = "NAME", default_value = "vulkan")]
        backend: String,
        /// Only the K-th of N equal parts of the inputs (K from 1); `sweep-merge` adds shards up.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Only the first N inputs of the range (a quick check).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Write the result as JSON to FILE (atomically), for `sweep-merge`.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Differential fuzzing: random valid programs (integer and float ALU, special operands, EXEC blocks,
    /// branches, bounded loops, LDS and buffer traffic, every float mode, wave32 and wave64) run on every
    /// backend and compared with the first, bit for bit. A divergence is minimised and printed with its seed;
    /// exit 1 when there is one, or when the host fails a batch twice (not compared; the second try runs on
    /// backends opened afresh). The drivers' disk shader caches are off for the run (Mesa's and NVIDIA's,
    /// unless the environment sets `MESA_SHADER_CACHE_DISABLE` or `__GL_SHADER_DISK_CACHE`): no fuzz module
    /// compiles twice, so a cache only costs time and fills the user's cache.
    Fuzz {
        /// Backends as for the main command; the first is the reference. Default: model and vulkan.
        #[arg(long = "backend", value_name = "NAME")]
        backends: Vec<String>,
        /// The stream's seed: the same seed and count run the same programs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Programs to run.
        #[arg(long, default_value_t = 256)]
        count: u64,
        /// Programs per dispatch (one kernel, the workgroup picks the program).
        #[arg(long, value_name = "N", default_value_t = 32,
              value_parser = clap::value_parser!(u64).range(1..=128))]
        batch: u64,
        /// Only this wave size (32 or 64); default: each batch draws one.
        #[arg(long, value_parser = ["32", "64"])]
        wave: Option<String>,
        /// Also run rewritten programs (VOP3 forms, s_nop after every item, an EXEC-all-ones wrapper) and
        /// require the reference's plain results from them, on every backend the reference included.
        #[arg(long)]
        metamorphic: bool,
        /// Write each minimised divergence as a regression file (TOML) into this folder (made if missing).
        #[arg(long, value_name = "DIR")]
        save: Option<PathBuf>,
        /// Write a CSV row per backend per batch with the time it took (its runs and the phases it reports:
        /// for Vulkan the SPIR-V, the driver's pipeline and the dispatch) to this file, as batches finish.
        #[arg(long, value_name = "FILE")]
        timing: Option<PathBuf>,
        /// Batches run at a time, each worker with backends of its own (its own Vulkan device context, so the
        /// driver compiles several batches' pipelines at once). The programs and the output do not depend on it.
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: u64,
        /// Start no batch after this many seconds: the run ends with the batches begun, so what it ran is the
        /// first N programs of the seed's stream (N in the summary), whatever `--count` says. For runs that
        /// must fit a time budget.
        #[arg(long, value_name = "SECS")]
        time_limit: Option<u64>,
        /// Start at this batch of the seed's stream (with the same `--batch`), so a run continues where an
        /// earlier one of the same seed stopped: batch `K` holds programs `K * batch ..`.
        #[arg(long, value_name = "K", default_value_t = 0)]
        first_batch: u64,
        /// The instruction set the programs are drawn from and run as: gfx1013 (the PS5 GPU) or gfx1030 (RDNA
        /// 2, adding its dot products and legacy FMAs). A seed's stream differs per target.
        #[arg(long, value_parser = ["gfx1013", "gfx1030"], default_value = "gfx1013")]
        target: String,
        /// The float engine's fixed-step computations (v_log, v_exp, v_sin, v_cos, reciprocals and roots)
        /// on the Vulkan backends: as loops (`rolled`), unrolled, or `auto`: rolled everywhere but on
        /// lavapipe, whose loop budget per invocation a kernel of many of them would spend. To fuzz the form
        /// a device does not get by default.
        #[arg(long, value_parser = ["auto", "rolled", "unrolled"], default_value = "auto")]
        loops: String,
        /// Ask the Vulkan drivers not to optimise the fuzz pipelines (VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT,
        /// a hint a driver may ignore): the rate is the driver's compile, and no fuzz module runs twice. The
        /// backend's name says so (`+unoptimized`).
        #[arg(long)]
        unoptimized_pipelines: bool,
        /// Wall-clock limit of one batch's job on each backend, in seconds (decimals allowed; 0: no limit). A
        /// batch past it is a host failure (run again once, then counted apart, not compared): raise it on a
        /// slow or busy host.
        #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_seconds,
              allow_negative_numbers = true)]
        job_timeout: JobTimeout,
    },
    /// Run `fuzz --save` regression files on the backends (the first is the reference; default model and
    /// vulkan) and say for each whether they agree now, with the first eight differing lanes' inputs and
    /// both backends' outputs where one differs. Exit 1 when one still differs, or when the host could not
    /// run one (device error, memory, the wall-clock limit: `NOT RUN`).
    FuzzReplay {
        /// Backends as for the main command.
        #[arg(long = "backend", value_name = "NAME")]
        backends: Vec<String>,
        /// Regression files, or folders whose `*.toml` files (at any depth) are all replayed.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// As for `fuzz`: the form of the float engine's fixed-step computations on the Vulkan backends. A
        /// regression found with a forced form names it in its backend (`vulkan:llvmpipe+rolled`).
        #[arg(long, value_parser = ["auto", "rolled", "unrolled"], default_value = "auto")]
        loops: String,
        /// As for `fuzz`: ask the Vulkan drivers not to optimise the pipelines (a regression found so names
        /// `+unoptimized` in its backend).
        #[arg(long)]
        unoptimized_pipelines: bool,
        /// As for `fuzz`: wall-clock limit of one file's job on each backend, in seconds (0: no limit).
        #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_seconds,
              allow_negative_numbers = true)]
        job_timeout: JobTimeout,
    },
    /// Add up the `--format json` summaries of shards (`--shard K/N`) or of runs over disjoint suites and
    /// print the whole as `--format` says (text, json, markdown). Exit 1 when the merged summary has an
    /// unexplained mismatch.
    MergeSummaries {
        /// Summary files (JSON).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Add up `sweep --out` results of one operation, mode and backend: coverage, gaps, overlaps and
    /// divergences. Exit 1 on a divergence or a gap.
    SweepMerge {
        /// Result files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a completion script for SHELL on stdout (e.g. `conformance completions bash >
    /// /etc/bash_completion.d/conformance`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// A `--job-timeout`: `None` is no limit.
#[derive(Clone, Copy)]
struct JobTimeout(Option<Duration>);

fn parse_seconds(s: &str) -> Result<JobTimeout, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v == 0.0 {
        return Ok(JobTimeout(None));
    }
    Duration::try_from_secs_f64(v)
        .map(|d| JobTimeout(Some(d)))
        .map_err(|_| format!("`{s}`: not a duration (seconds from 0, where 0 means no limit)"))
}

fn list_devices() -> Result<ExitCode, String> {
    let devs = driver::list_devices().map_err(|e| e.to_string())?;
    if devs.is_empty() {
        out::print("no Vulkan devices\n")?;
    }
    for d in devs {
        out::print(&format!(
            "{}  backend {}  driver {} {}  Vulkan {}  subgroup {}  shared memory {} bytes  host floats {}\n",
            d.name,
            conformance::vulkan::backend_name(&d.name),
            d.driver_name,
            d.driver_info,
            d.api_version,
            d.subgroup_size()
                .map_or("unknown".to_string(), |s| s.to_string()),
            d.limits.max_compute_shared_memory_size,
            if conformance::vulkan::host_floats(&d) {
                "yes"
            } else {
                "no"
            },
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // Before any thread or driver starts (its docs say why).
    driver::set_environment_defaults();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            out::warn(&format!("conformance: {message}"));
            ExitCode::from(2)
        }
    }
}

/// Facts of the run that the JSON summary carries besides [`Summary`] (the documented shape stays; these are
/// added keys).
#[derive(Serialize)]
struct JsonOutput<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    /// The known-differences file read, if any.
    known_differences_file: Option<String>,
    /// IDs of that file that match no loaded row.
    stale_known_ids: &'a [String],
    /// Backends `all` stood for that this run could not open, with the reason.
    backends_not_run: Vec<NotRun<'a>>,
    /// The limits every job ran under.
    limits: JsonLimits,
    /// How the jobs reached the backends: `direct`, `pm4` or `pm4-graphics` (`--via`).
    via: &'static str,
}

#[derive(Serialize)]
struct NotRun<'a> {
    name: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonLimits {
    wave_instructions: u64,
    dispatch_instructions: u64,
    /// `null`: no wall-clock limit.
    job_timeout_seconds: Option<f64>,
    memory_bytes: u64,
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    if cli.list_devices {
        return list_devices();
    }
    match cli.command {
        Some(Sub::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "conformance", &mut script);
            out::print(&String::from_utf8_lossy(&script))?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Sub::Sweep {
            op,
            mode,
            backend,
            shard,
            limit,
            out,
        }) => {
            return sweep(
                &op,
                &mode,
                &backend,
                shard.as_deref(),
                limit,
                out.as_deref(),
            )
        }
        Some(Sub::SweepMerge { files }) => return sweep_merge(&files),
        Some(Sub::MergeSummaries { files, format }) => return merge_summaries(&files, format),
        Some(Sub::BenchGpu {
            backend,
            groups,
            turns,
            steps,
            no_host_floats,
            call_helpers,
            repeats,
            check_groups,
            special_every,
            waves,
        }) => {
            return bench_gpu(
                &backend,
                no_host_floats,
                call_helpers,
                conformance::bench_gpu::Settings {
                    groups,
                    turns,
                    steps,
                    repeats,
                    check_groups,
                    special_every,
                    waves,
                },
            )
        }
        Some(Sub::FuzzReplay {
            backends,
            files,
            loops,
            unoptimized_pipelines,
            job_timeout,
        }) => {
            return fuzz_replay(
                &backends,
                &files,
                forms(&loops, unoptimized_pipelines),
                with_timeout(job_timeout),
            )
        }
        Some(Sub::Fuzz {
            backends,
            seed,
            count,
            batch,
            wave,
            metamorphic,
            save,
            timing,
            jobs,
            time_limit,
            first_batch,
            target,
            loops,
            unoptimized_pipelines,
            job_timeout,
        }) => {
            no_disk_shader_caches();
            let forms = forms(&loops, unoptimized_pipelines);
            let wave = wave.map(|w| if w == "64" { 64 } else { 32 });
            let target = reference_model::isa::Target::from_name(&target)
                .ok_or_else(|| format!("--target {target}: gfx1013 or gfx1030"))?;
            return fuzz(
                &backends,
                seed,
                count,
                batch as usize,
                wave,
                metamorphic,
                save.as_deref(),
                timing.as_deref(),
                jobs as usize,
                time_limit.map(std::time::Duration::from_secs),
                first_batch,
                target,
                forms,
                with_timeout(job_timeout),
            );
        }
        None => {}
    }
    // Checked before the run, so a bad folder does not cost the whole run first.
    if let Some(dir) = cli.report.as_ref().filter(|d| d.exists() && !d.is_dir()) {
        return Err(format!(
            "--report {}: exists and is not a folder",
            dir.display()
        ));
    }
    let dirs = if cli.measurements.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        cli.measurements
    };
    let limits = Limits {
        dispatch_instructions: cli.job_instructions,
        wall_clock: cli.job_timeout.0,
        ..Limits::default()
    };
    let resolved = backends::resolve(&cli.backends, limits)?;
    let via = match cli.via {
        ViaArg::Direct => conformance::pm4::Via::Direct,
        ViaArg::Pm4 => conformance::pm4::Via::Pm4,
        ViaArg::Pm4Graphics => conformance::pm4::Via::Pm4Graphics,
    };
    let backends = conformance::pm4::wrap(resolved.backends, via);
    if via != conformance::pm4::Via::Direct {
        out::warn(&format!(
            "conformance: every job runs through the PM4 command processor ({})",
            via.name()
        ));
    }
    if !resolved.missing.is_empty() {
        let names: Vec<String> = backends.iter().map(|b| b.name()).collect();
        let missing: Vec<String> = resolved
            .missing
            .iter()
            .map(|(n, why)| format!("{n} ({why})"))
            .collect();
        out::warn(&format!(
            "conformance: --backend all runs {}; could not run: {}",
            names.join(", "),
            missing.join("; ")
        ));
    }
    let known_file = match cli.known {
        Some(p) => Some(p),
        None => {
            let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("known-differences.toml");
            p.is_file().then_some(p)
        }
    };
    let known = match &known_file {
        Some(p) => KnownDifferences::read(p)?,
        None => KnownDifferences::default(),
    };
    let filter = Filter::new(&cli.suites, &cli.kernels)?;
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    // Leftovers of an interrupted import that do not change what was loaded (measurements `store` docs).
    for w in &ds.warnings {
        out::warn(&format!("conformance: warning: {w}"));
    }
    if filter.selected(&ds).is_empty() {
        return Err(format!("no suite matches {:?}", filter.suites.texts()));
    }
    let shard = match &cli.shard {
        Some(t) => conformance::sweep::parse_shard(t)?,
        None => (1, 1),
    };
    if job_count(&ds, &filter, (1, 1)) == 0 {
        return Err(format!(
            "no kernel of the selected suites matches {:?}",
            filter.kernels.texts()
        ));
    }
    let stale = known.stale_ids(&ds);
    if let (Some(file), Some(first)) = (&known_file, stale.first()) {
        out::warn(&format!(
            "conformance: warning: {} of {} listed in {} match no loaded row (first: {first}); they explain \
             nothing here",
            stale.len(),
            plural(known.entries().iter().map(|d| d.ids.len()).sum(), "ID"),
            file.display()
        ));
    }
    let opts = Options {
        filter,
        known,
        mismatch_limit: cli.mismatch_limit,
        shard,
        jobs: cli.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            |n| n as usize,
        ),
    };

    let total = (job_count(&ds, &opts.filter, opts.shard) * backends.len()) as u64;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} jobs {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut summary = verify(&ds, &backends, &opts, |what| {
        bar.set_message(what.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    summary.measurements = dirs.iter().map(|d| d.display().to_string()).collect();
    conformance::attach_rules(&mut summary);
    summary.run = conformance::run_info();

    let json = || {
        let o = JsonOutput {
            summary: &summary,
            known_differences_file: known_file.as_ref().map(|p| p.display().to_string()),
            stale_known_ids: &stale,
            backends_not_run: resolved
                .missing
                .iter()
                .map(|(name, reason)| NotRun { name, reason })
                .collect(),
            limits: JsonLimits {
                wave_instructions: limits.instructions,
                dispatch_instructions: limits.dispatch_instructions,
                job_timeout_seconds: limits.wall_clock.map(|d| d.as_secs_f64()),
                memory_bytes: limits.memory_bytes,
            },
            via: via.name(),
        };
        // Plain structs of strings and numbers always serialize.
        serde_json::to_string_pretty(&o).unwrap_or_default() + "\n"
    };
    match cli.format {
        Format::Text => out::print(&reports::table(&summary))?,
        Format::Json => out::print(&json())?,
        Format::Markdown => out::print(&reports::markdown(&summary))?,
    }
    if let Some(dir) = cli.report {
        reports::write_all(&dir, &summary).map_err(|e| format!("{}: {e}", dir.display()))?;
        // summary.json is what `--format json` prints, with the run's facts.
        write_atomically(&dir.join("summary.json"), &json())?;
        out::warn(&format!(
            "conformance: reports written to {}",
            dir.display()
        ));
    }
    for line in problems(&summary) {
        out::warn(&line);
    }
    Ok(if summary.has_unexplained_mismatch() {
        for line in why_failed(&summary) {
            out::warn(&line);
        }
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `conformance bench-gpu`.
fn bench_gpu(
    backend: &str,
    no_host_floats: bool,
    call_helpers: bool,
    s: conformance::bench_gpu::Settings,
) -> Result<ExitCode, String> {
    // Before the device opens: a bad option costs nothing.
    conformance::bench_gpu::check(&s)?;
    let selector =
        backends::vulkan_selector(backend).map_err(|e| format!("bench-gpu --backend: {e}"))?;
    let b = conformance::vulkan::VulkanBackend::open(
        selector,
        reference_model::exec::Limits::default(),
    )?
    .with_budget(u32::MAX);
    let b = if no_host_floats {
        b.without_host_floats()
    } else {
        b
    };
    let b = if call_helpers { b.calling_helpers() } else { b };
    let figures = conformance::bench_gpu::run(&b, s)?;
    let base = figures[0].best.as_secs_f64();
    let ops = f64::from(s.groups) * 64.0 * f64::from(s.turns) * f64::from(s.steps) * 8.0;
    out::print(&format!(
        "bench-gpu on {}: {} workgroups x 64 lanes, {} turns of {} steps ({:.3e} float operations), host fast paths {}, helper calls {}, special lanes {}, fastest of {}; {} workgroups checked against the model\n",
        b.device_name(),
        s.groups,
        s.turns,
        s.steps,
        ops,
        if no_host_floats { "off" } else { "on" },
        if b.calls_helpers() { "kept" } else { "inlined" },
        if s.special_every == 0 {
            "none".to_string()
        } else {
            format!("1 in {}", s.special_every)
        },
        s.repeats,
        s.check_groups
    ))?;
    let mut bad = false;
    for (i, f) in figures.iter().enumerate() {
        let t = f.best.as_secs_f64();
        out::print(&format!(
            "  {:<28} {:>10.3} ms  {:>8.2} G op/s  recompiled speed / this {:>6.3}  lanes differing from the model: {}\n",
            f.name,
            t * 1e3,
            ops / t / 1e9,
            t / base,
            f.differing_lanes
        ))?;
        bad |= i < 2 && f.differing_lanes != 0;
    }
    for f in figures.iter().filter(|f| !f.statistics.is_empty()) {
        let list: Vec<String> = f
            .statistics
            .iter()
            .map(|st| format!("{} {}", st.name, st.value))
            .collect();
        out::print(&format!(
            "  driver on the {}: {}\n",
            f.name,
            list.join(", ")
        ))?;
    }
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `conformance sweep`.
fn sweep(
    op: &str,
    mode: &str,
    backend: &str,
    shard: Option<&str>,
    limit: Option<u64>,
    out_file: Option<&Path>,
) -> Result<ExitCode, String> {
    use conformance::sweep as sw;
    let op = sw::parse_op(op)?;
    let mode = sw::parse_mode(mode)?;
    // The model's float library is what a sweep compares with: only devices run one.
    let selector =
        backends::vulkan_selector(backend).map_err(|e| format!("sweep --backend: {e}"))?;
    let (k, n) = shard.map(sw::parse_shard).transpose()?.unwrap_or((1, 1));
    let shape = recompiler::sweep::unary(op).ok_or("not a sweep operation")?;
    let total = 1u64 << shape.input_bits;
    let (start, mut end) = sw::shard_range(total, k, n);
    if let Some(l) = limit {
        end = end.min(start.saturating_add(l));
    }
    if let Some(dir) = out_file
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
    {
        if !dir.is_dir() {
            return Err(format!("--out: folder {} does not exist", dir.display()));
        }
    }
    let ctx = driver::Context::open(selector).map_err(|e| format!("{backend}: {e}"))?;
    let name = conformance::vulkan::backend_name(&ctx.info().name);
    let bar = progress_bar(
        end - start,
        "{bar:40} {human_pos}/{human_len} inputs {per_sec} eta {eta}",
    );
    let mut result = sw::run(&ctx, &name, op, mode, (start, end), &mut |d| {
        bar.set_position(d)
    })?;
    bar.finish_and_clear();
    result.tool = format!(
        "conformance {}, commit {}",
        env!("CARGO_PKG_VERSION"),
        option_env!("CONFORMANCE_GIT_COMMIT").unwrap_or("unknown")
    );
    let mut text = format!(
        "{} {} on {}: inputs {:#x}..{:#x} ({} of {}), {} divergences; device {:.2} s, wall {:.2} s\n",
        result.op,
        result.mode,
        result.backend,
        result.start,
        result.end,
        result.end - result.start,
        result.total,
        result.divergences,
        result.device_seconds,
        result.wall_seconds
    );
    text.push_str(&divergence_lines(&result.first));
    out::print(&text)?;
    if let Some(path) = out_file {
        let json = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?;
        write_atomically(path, &json)?;
    }
    Ok(if result.divergences == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The line a fuzz run writes to a log about every minute: `programs` of `count` so far, the divergences, the
/// seconds, the rate since the last line, and the first batch not yet reported, where a run that a host crash
/// ends (a driver's compiler aborting takes the process) goes on with nothing lost or counted twice: the batches
/// are reported in stream order, so every one before it is counted.
fn progress_line(
    (programs, count): (u64, u64),
    divergences: usize,
    secs: f64,
    recent: f64,
    next_batch: u64,
) -> String {
    format!(
        "conformance fuzz: {programs} of {count} programs, {divergences} divergences, {secs:.0} s ({recent:.1} \
         programs/s since the last line); to go on from here: --first-batch {next_batch}"
    )
}

/// Turns the drivers' disk shader caches off for this process where the environment leaves them unset: a
/// fuzz run compiles each module once, and on an NVIDIA H100 a run with `__GL_SHADER_DISK_CACHE=0` did 57.3
/// programs/s against 46.1 with the cache (README, Speed). Called before any thread or driver starts, since
/// the drivers read these once and `set_var` is only sound while no other thread reads the environment.
fn no_disk_shader_caches() {
    driver::set_where_unset(&[
        ("MESA_SHADER_CACHE_DISABLE", "true"),
        ("__GL_SHADER_DISK_CACHE", "0"),
    ]);
}

/// What `names` came to when they resolved to fewer than two backends (`model, model` name one).
fn named_one(names: &[String], got: &[Box<dyn measurements::Backend>]) -> String {
    format!(
        "`{}` name one ({})",
        names.join(", "),
        got.first().map_or("none".into(), |b| b.name())
    )
}

/// The Vulkan backends' forms from `--loops` (`auto`: the device's own) and `--unoptimized-pipelines`.
fn forms(loops: &str, unoptimized: bool) -> backends::Forms {
    backends::Forms {
        rolled: match loops {
            "rolled" => Some(true),
            "unrolled" => Some(false),
            _ => None,
        },
        unoptimized,
    }
}

/// The default limits with `timeout` as the wall-clock limit of a job (`fuzz`, `fuzz-replay`).
fn with_timeout(timeout: JobTimeout) -> Limits {
    Limits {
        wall_clock: timeout.0,
        ..Limits::default()
    }
}

/// The differing lanes `fuzz-replay` prints with their values.
const REPLAY_LANES: usize = 8;

/// `conformance fuzz-replay`.
fn fuzz_replay(
    names: &[String],
    files: &[PathBuf],
    forms: backends::Forms,
    limits: Limits,
) -> Result<ExitCode, String> {
    use conformance::fuzz as fz;
    let files = fz::regression_files(files)?;
    let mut jobs = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let r: fz::Regression = toml::from_str(&text)
            .map_err(|e| format!("{}: not a fuzz regression: {e}", f.display()))?;
        if r.schema != "fuzz-regression-v1" {
            return Err(format!(
                "{}: schema `{}` is not fuzz-regression-v1",
                f.display(),
                r.schema
            ));
        }
        let at = |e: String| format!("{}: {e}", f.display());
        jobs.push((
            f,
            r.job().map_err(at)?,
            r.input_dwords().map_err(at)?,
            format!("{}, found on {}", r.origin, r.backend),
        ));
    }
    let names: Vec<String> = if names.is_empty() {
        vec!["model".into(), "vulkan".into()]
    } else {
        names.to_vec()
    };
    let all = backends::resolve_with(
        &names,
        limits,
        driver::OpenOptions::default().pipeline_cache_capacity,
        forms,
    )?
    .backends;
    if all.len() < 2 {
        return Err(format!(
            "fuzz-replay needs two different backends (the first is the reference); {}",
            named_one(&names, &all)
        ));
    }
    let (mut differ, mut not_run) = (0, 0);
    let mut text = String::new();
    for (f, job, inputs, origin) in &jobs {
        let want = all[0].run(job);
        // An error on either side differs in no lane: say what each gave instead.
        let gave =
            |name: String, r: &Result<measurements::JobOutput, measurements::BackendError>| match r
            {
                Ok(_) => format!("{name} ran it"),
                Err(e) => format!("{name}: {e}"),
            };
        for b in &all[1..] {
            let got = b.run(job);
            let host = |r: &Result<measurements::JobOutput, measurements::BackendError>| {
                r.as_ref().is_err_and(fz::is_host_failure)
            };
            let what = match fz::compare(&want, &got) {
                // Nothing was compared: not an agreement, and not a divergence of the program.
                _ if host(&want) || host(&got) => {
                    not_run += 1;
                    format!(
                        "NOT RUN ({}; {})",
                        gave(all[0].name(), &want),
                        gave(b.name(), &got)
                    )
                }
                fz::Verdict::Same => "agree".to_string(),
                fz::Verdict::Refused(why) => format!("refused: {why}"),
                fz::Verdict::Differ(lanes) if lanes.is_empty() => {
                    differ += 1;
                    format!(
                        "DIFFER ({}; {})",
                        gave(all[0].name(), &want),
                        gave(b.name(), &got)
                    )
                }
                fz::Verdict::Differ(lanes) => {
                    differ += 1;
                    let mut what = format!("DIFFER in {} lanes", lanes.len());
                    if let (Ok(w), Ok(g)) = (&want, &got) {
                        let shown = &lanes[..lanes.len().min(REPLAY_LANES)];
                        for line in fz::lane_lines(&b.name(), inputs, w, g, shown) {
                            what.push_str("\n  ");
                            what.push_str(&line);
                        }
                    }
                    what
                }
            };
            text.push_str(&format!(
                "{} ({origin}): {} and {}: {what}\n",
                f.display(),
                all[0].name(),
                b.name()
            ));
        }
    }
    out::print(&text)?;
    Ok(if differ == 0 && not_run == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `conformance fuzz`.
#[allow(clippy::too_many_arguments)]
fn fuzz(
    names: &[String],
    seed: u64,
    count: u64,
    batch: usize,
    wave: Option<u32>,
    metamorphic: bool,
    save: Option<&Path>,
    timing: Option<&Path>,
    jobs: usize,
    time_limit: Option<std::time::Duration>,
    first_batch: u64,
    target: reference_model::isa::Target,
    forms: backends::Forms,
    limits: Limits,
) -> Result<ExitCode, String> {
    use conformance::fuzz as fz;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let names: Vec<String> = if names.is_empty() {
        vec!["model".into(), "vulkan".into()]
    } else {
        names.to_vec()
    };
    // Program numbers are u64 (a regression names its batch): a range past 2^64 would wrap onto other programs.
    if first_batch
        .checked_mul(batch as u64)
        .and_then(|s| s.checked_add(count))
        .is_none()
    {
        return Err(format!(
            "--first-batch {first_batch} with --batch {batch} and --count {count}: the programs would run past \
             the stream's end (2^64 programs)"
        ));
    }
    // Made before the run, so a path that cannot be a folder does not cost the run first.
    if let Some(d) = save {
        if d.exists() && !d.is_dir() {
            return Err(format!(
                "--save {}: exists and is not a folder",
                d.display()
            ));
        }
        std::fs::create_dir_all(d).map_err(|e| format!("--save {}: {e}", d.display()))?;
    }
    let mut timing = timing
        .map(|p| fz::TimingLog::create(p, target, wave, metamorphic))
        .transpose()?;
    // Backends opened once to check the arguments and name the run before anything starts.
    // Opened as the workers' are, so the summary names them as they ran (`vulkan:llvmpipe+rolled`).
    let first = backends::resolve_with(&names, limits, 0, forms)?.backends;
    if first.len() < 2 && !metamorphic {
        return Err(format!(
            "fuzz needs two different backends (the first is the reference), or --metamorphic; {}",
            named_one(&names, &first)
        ));
    }
    let who: Vec<String> = first.iter().map(|b| b.name()).collect();
    // Backends are not `Send`: every worker opens its own.
    drop(first);
    let rw = if metamorphic {
        fz::Rewrite {
            vop3: true,
            nops: true,
            exec_wrap: true,
            rename: true,
        }
    } else {
        fz::Rewrite::default()
    };
    // Batch i holds programs i * batch .. of the stream, as a serial run cuts it.
    let batches = count.div_ceil(batch as u64);
    let size = |i: u64| (count - i * batch as u64).min(batch as u64) as usize;
    let bar = progress_bar(
        count,
        "{bar:40} {pos}/{len} programs {per_sec} eta {eta} {wide_msg}",
    );
    let t0 = std::time::Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(u64, Result<fz::Report, String>)>();
    // No pipeline is kept between batches: no module runs twice, and on lavapipe two workers' caches grew to
    // 5.7 GB.
    let resolve = |names: &[String]| backends::resolve_with(names, limits, 0, forms);
    let open = || resolve(&names).map(|r| r.backends);
    // A batch the host fails (fz::Stop::Host) runs again once on backends opened afresh (a timed-out job
    // leaves its Vulkan context unusable); failing again, it is counted apart, not compared.
    let work = |mut all: Vec<Box<dyn measurements::Backend>>, tx: std::sync::mpsc::Sender<_>| {
        while !stop.load(Ordering::Relaxed) {
            if time_limit.is_some_and(|l| t0.elapsed() >= l) {
                break;
            }
            // j counts this run's batches; i is the batch's index in the seed's stream.
            let j = next.fetch_add(1, Ordering::Relaxed);
            if j >= batches {
                break;
            }
            let i = first_batch + j;
            let mut res = Err(fz::Stop::Fatal(String::new()));
            for attempt in 0..2 {
                let timed: Vec<fz::Timed> =
                    all.iter().map(|b| fz::Timed::new(b.as_ref())).collect();
                let others: Vec<&dyn measurements::Backend> =
                    timed[1..].iter().map(|b| b as _).collect();
                let mut r = fz::Report::default();
                let started = std::time::Instant::now();
                res = fz::run_batch(
                    &timed[0],
                    &others,
                    seed,
                    i,
                    size(j),
                    wave,
                    target,
                    rw,
                    &mut r,
                )
                .map(|()| r);
                if let Ok(r) = &mut res {
                    r.time.batches += started.elapsed();
                    for t in &timed {
                        t.add_to(&mut r.time);
                    }
                }
                let Err(fz::Stop::Host(_)) = &res else {
                    break;
                };
                match open() {
                    Ok(fresh) if attempt == 0 => all = fresh,
                    Ok(_) => {}
                    Err(e) => {
                        res = Err(fz::Stop::Fatal(e));
                        break;
                    }
                }
            }
            let res = match res {
                Ok(r) => Ok(r),
                Err(fz::Stop::Host(why)) => Ok(fz::Report {
                    programs: size(j) as u64,
                    host_failures: vec![format!("seed {seed} batch {i}: {why}")],
                    ..fz::Report::default()
                }),
                Err(fz::Stop::Fatal(e)) => Err(e),
            };
            if res.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            if tx.send((j, res)).is_err() {
                break;
            }
        }
    };
    let mut report = fz::Report::default();
    let mut done = 0u64;
    let workers = jobs.min(batches.max(1) as usize);
    let mut failure = None;
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..workers {
            let tx = tx.clone();
            let work = &work;
            let names = &names;
            let stop = &stop;
            let resolve = &resolve;
            scope.spawn(move || match resolve(names) {
                Ok(r) => work(r.backends, tx),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    let _ = tx.send((u64::MAX, Err(e)));
                }
            });
        }
        drop(tx);
        // Reports are taken in batch order, so the output is a serial run's whatever the workers.
        let mut pending = std::collections::BTreeMap::new();
        let mut shown = 0;
        let (mut last_note, mut noted) = (std::time::Instant::now(), 0u64);
        // An error here stops the workers after their current batch (as a failed batch does) and ends the run.
        'recv: for (i, res) in rx.iter() {
            match res {
                Ok(r) => {
                    pending.insert(i, r);
                }
                Err(e) => {
                    failure.get_or_insert(e);
                    continue;
                }
            }
            while let Some(r) = pending.remove(&done) {
                if let Some(log) = timing.as_mut() {
                    if let Err(e) = log.batch(seed, first_batch + done, r.programs, &r.time) {
                        stop.store(true, Ordering::Relaxed);
                        failure.get_or_insert(e);
                        break 'recv;
                    }
                }
                report.programs += r.programs;
                report.compared += r.compared;
                for (why, n) in r.refused {
                    *report.refused.entry(why).or_default() += n;
                }
                report.divergences.extend(r.divergences);
                report.host_failures.extend(r.host_failures);
                report.time.merge(&r.time);
                done += 1;
            }
            bar.set_position(report.programs);
            bar.set_message(format!("{} divergences", report.divergences.len()));
            // Divergences as they are found (and saved), so a long run loses none.
            for d in &report.divergences[shown..] {
                let said = divergence_text(shown + 1, d, save)
                    .and_then(|text| bar.suspend(|| out::print(&text)));
                if let Err(e) = said {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                    break 'recv;
                }
                shown += 1;
            }
            if bar.is_hidden() && last_note.elapsed().as_secs() >= 60 {
                // The rate since the last line, so a long run's log shows a slowing host.
                let recent = (report.programs - noted) as f64 / last_note.elapsed().as_secs_f64();
                out::warn(&progress_line(
                    (report.programs, count),
                    report.divergences.len(),
                    t0.elapsed().as_secs_f64(),
                    recent,
                    first_batch + done,
                ));
                (last_note, noted) = (std::time::Instant::now(), report.programs);
            }
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    let secs = t0.elapsed().as_secs_f64();
    let mut text = format!(
        "fuzz seed {seed}: {} programs in {} batches on {}{}{}: {} compared, {} refused, {} divergences; {:.1} s ({:.1} programs/s)\n",
        report.programs,
        done,
        who.join(", "),
        if target == reference_model::isa::Target::Gfx1013 {
            String::new()
        } else {
            format!(" ({})", target.name())
        },
        if metamorphic { " (metamorphic)" } else { "" },
        report.compared,
        report.refused.values().sum::<u64>(),
        report.divergences.len(),
        secs,
        report.programs as f64 / secs.max(1e-9),
    );
    if report.programs < count || first_batch > 0 {
        let start = first_batch * batch as u64;
        text.push_str(&format!(
            "  {}these are programs {start}..{} of seed {seed}'s stream (batch {batch})\n",
            if report.programs < count {
                "stopped at the time limit: "
            } else {
                ""
            },
            start + report.programs
        ));
    }
    for (why, n) in &report.refused {
        text.push_str(&format!("  refused {n}: {why}\n"));
    }
    text.push_str(&format!("  {}\n", report.time.line(workers, t0.elapsed())));
    if !report.host_failures.is_empty() {
        text.push_str(&format!(
            "  not compared: {} batches the host failed twice (each retried on backends opened afresh):\n",
            report.host_failures.len()
        ));
        for f in &report.host_failures {
            text.push_str(&format!("    {f}\n"));
        }
        text.push_str(&format!(
            "  (to run batch K again: --first-batch K --count {batch} --batch {batch}; a timeout on a busy host \
             may pass with a larger --job-timeout)\n"
        ));
    }
    out::print(&text)?;
    Ok(
        if report.divergences.is_empty() && report.host_failures.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// One minimised divergence for the terminal, written as a regression file into `save` when given.
fn divergence_text(
    i: usize,
    d: &conformance::fuzz::Regression,
    save: Option<&Path>,
) -> Result<String, String> {
    let mut text = format!(
        "divergence {i}: {} on {}, mode {}, wave{}; minimised program:\n{}",
        d.origin, d.backend, d.mode, d.wave, d.text
    );
    for l in &d.lanes {
        text.push_str(&format!("  {l}\n"));
    }
    if let Some(dir) = save {
        let path = dir.join(format!("{}.toml", d.origin.replace(' ', "-")));
        let toml = toml::to_string(d).map_err(|e| e.to_string())?;
        measurements::atomic::write_atomic(&path, toml.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        text.push_str(&format!("  regression written to {}\n", path.display()));
    }
    text.push('\n');
    Ok(text)
}

/// `conformance sweep-merge`.
fn sweep_merge(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut results = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let r: conformance::sweep::SweepResult = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a sweep result: {e}", f.display()))?;
        results.push(r);
    }
    let m = conformance::sweep::merge(&results)?;
    let mut text = format!(
        "{} {} on {}: {} of {} inputs in {} shards, {} divergences; device {:.2} s\n",
        m.op,
        m.mode,
        m.backend,
        m.covered,
        m.total,
        results.len(),
        m.divergences,
        m.device_seconds
    );
    for (s, e) in &m.gaps {
        text.push_str(&format!("  missing inputs {s:#x}..{e:#x}\n"));
    }
    text.push_str(&divergence_lines(&m.first));
    out::print(&text)?;
    Ok(if m.divergences == 0 && m.gaps.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The first ten sweep divergences, a line each.
fn divergence_lines(first: &[conformance::sweep::Divergence]) -> String {
    first
        .iter()
        .take(10)
        .map(|d| {
            format!(
                "  input {:#010x}: got {:#010x}, model {:#010x}\n",
                d.input, d.got, d.want
            )
        })
        .collect()
}

/// A progress bar of `len` steps on stderr when it is a terminal (hidden otherwise), drawn with `template`.
fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// How many IDs of a failure message name: enough to start from, few enough for one line.
const FIRST_IDS: usize = 5;

/// Why the run exits 1: per failing backend, the suites with unexplained mismatches and their cell counts,
/// and the first measurement IDs.
fn why_failed(summary: &Summary) -> Vec<String> {
    let mut lines = Vec::new();
    for b in &summary.backends {
        let unexplained = b.counts.mismatched - b.counts.known_differences;
        if unexplained == 0 {
            continue;
        }
        let suites: Vec<String> = b
            .suites
            .iter()
            .filter(|s| s.counts.mismatched > s.counts.known_differences)
            .map(|s| {
                format!(
                    "{} ({})",
                    s.suite,
                    s.counts.mismatched - s.counts.known_differences
                )
            })
            .collect();
        let ids: Vec<String> = b
            .mismatches
            .iter()
            .filter(|m| m.known_difference.is_none())
            .take(FIRST_IDS)
            .map(|m| {
                format!(
                    "{} ({}/{} lane {} dword {}: expected {} got {})",
                    m.id, m.suite, m.kernel, m.lane, m.column, m.expected, m.actual
                )
            })
            .collect();
        let first = if ids.is_empty() {
            format!(
                "none kept in detail (--mismatch-limit {})",
                summary.mismatch_limit
            )
        } else {
            ids.join(", ")
        };
        lines.push(format!(
            "conformance: {}: {} mismatched outside the known differences, in {}: {}; first: {first}",
            b.name,
            plural(unexplained as usize, "cell"),
            plural(suites.len(), "suite"),
            suites.join(", ")
        ));
    }
    lines
}

/// Jobs that did not run to the end (timeouts, faults, refusals): one line per backend with the first message,
/// so a run whose cells are errors never looks like a clean one.
fn problems(summary: &Summary) -> Vec<String> {
    summary
        .backends
        .iter()
        .filter_map(|b| {
            let p = b.problems.first()?;
            Some(format!(
                "conformance: {}: {} did not run to the end ({} error cells, {} unsupported); first: {}/{} \
                 mode {} dispatch {}: {}",
                b.name,
                plural(b.problems.len(), "job"),
                b.counts.errors,
                b.counts.unsupported,
                p.suite,
                p.kernel,
                p.mode,
                p.dispatch,
                p.message
            ))
        })
        .collect()
}

/// `conformance merge-summaries`.
fn merge_summaries(files: &[PathBuf], format: Format) -> Result<ExitCode, String> {
    let mut parts = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let s: Summary = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a conformance JSON summary ({e})", f.display()))?;
        parts.push(s);
    }
    let mut summary = conformance::merge_summaries(parts)?;
    summary.run = conformance::run_info();
    match format {
        Format::Text => out::print(&reports::table(&summary))?,
        Format::Json => {
            out::print(&(serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n"))?
        }
        Format::Markdown => out::print(&reports::markdown(&summary))?,
    }
    Ok(if summary.has_unexplained_mismatch() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    /// The help's target list is the model's mapping, name for name.
    #[test]
    fn help_lists_every_target_name() {
        for (name, _) in reference_model::exec::TARGET_NAMES {
            assert!(super::AFTER_HELP.contains(name), "{name}");
        }
    }

    /// A log's progress line names the batch to go on from, after the rate.
    #[test]
    fn the_progress_line_says_where_to_go_on() {
        assert_eq!(
            super::progress_line((3168, 100_000), 0, 816.4, 3.31, 198 + 9830),
            "conformance fuzz: 3168 of 100000 programs, 0 divergences, 816 s (3.3 programs/s since the last \
             line); to go on from here: --first-batch 10028"
        );
    }
}
