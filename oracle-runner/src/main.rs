//! `oracle`: the measurement side of the project.
//!
//! - `oracle import-peer FILE.json... --out DIR` converts peer-test JSON into suites.
//! - `oracle show ID...` prints measured rows by measurement ID, with their kernel, column labels and
//!   provenance.
//! - `oracle disasm --target NAME WORD...` (or `--file PATH`, `-` for stdin) prints LLVM-syntax disassembly;
//!   the target names are those of `reference_model::exec::TARGET_NAMES` (`gfx1013`, `ps5`, `rdna2`,
//!   `gfx1030`..`gfx1036`).
//! - `oracle recompile --kernel NAME` (a bundled kernel, compiled for its first dispatch) or `oracle
//!   recompile WORD...` / `--file PATH` prints the SPIR-V the `vulkan` backend runs, as text; `--spv FILE`
//!   writes the binary module too.
//! - `oracle collect TEMPLATE...|--all --backend model|hsa --out DIR [--resume] [--shard K/N] [--jobs N]` runs
//!   measurement templates into suites (`--list` shows the bundled ones).
//! - `oracle merge DIR... --out DIR` merges measurement folders (repeatability conflicts are errors that name both
//!   values); `oracle cite ID...` prints a Markdown block per measurement for a pull request.
//! - `oracle agents [--hsa-lib PATH]` lists the agents the ROCr runtime sees (loaded at run time), or says
//!   what is missing: the library, the kernel driver (`/dev/kfd`), an RDNA GPU agent.
//! - `oracle pm4 dump FILE` prints a PM4 command buffer packet by packet with register names and fields;
//!   `oracle pm4 encode --kernel NAME` prints the command buffer the driver writes for a measured job.
//! - `oracle completions SHELL` prints a shell completion script.
//!
//! Exit status: 0 on success; 1 when `disasm` met words that are no instruction (each one is a warning on
//! stderr, the rest is printed) or `pm4 dump` a packet it cannot decode (the listing ends with it); 2 on bad input or usage (the message names the file, line and reason).
//! Output cut short by its reader (`| head`) is not an error.

mod disasm;
mod out;
mod pm4;
mod recompile;

use clap::{CommandFactory, Parser, Subcommand};
use measurements::{peer, Dataset};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--help` adds after the commands: the notions `show` and `disasm` print.
const AFTER_HELP: &str = "\
Measurement IDs: `M-` and 16 hex digits, the start of a SHA-256 over the row's kernel content hash, target,
float mode, dispatch hash (the dispatch's memory image, user-SGPR recipe and every lane's inputs) and lane (and
the compared array when it is not the kernel's default `out`). The same measurement made twice gets the same
ID. An argument of another shape is reported as malformed, not as missing.

Float modes are written FLOAT_MODE/IEEE/DX10_CLAMP/FP16_OVFL, e.g. `c0/0/1/0`: the FLOAT_MODE byte in hex
(round32 bits 1:0, round16/64 bits 3:2, denorm32 bits 5:4, denorm16/64 bits 7:6), then IEEE_MODE, DX10_CLAMP
and FP16_OVFL as 0 or 1.

Checks (`show`): each cell is compared under its mask by its letter: x bit-exact; n bit-exact or both f32 NaNs;
h bit-exact, or equal upper halves and both low halves f16 NaNs; l bit-exact or both low halves f16 NaNs;
a the output must be an f32 NaN; - not checked. A label after a cell is the kernel's name for that dword.

Targets: gfx1013 and ps5 (the PS5 GPU) decode with gfx1013's tables; rdna2 (what rows say when the source
names no chip) and gfx1030, gfx1031, gfx1032, gfx1033, gfx1034, gfx1035, gfx1036 with gfx1030's.

Exit status: 0 success; 1 `disasm` met words that are no instruction (a warning for each, the rest printed),
or `pm4 dump` a packet it cannot decode; 2 bad input or usage. Output cut short by its reader (`| head`) is not an error.";

#[derive(Parser)]
#[command(
    name = "oracle",
    version,
    about = "Measurements of gfx10 behaviour: import, show, disassemble",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert peer-test JSON (shared/corpus/peer) into measurement suites under DIR.
    ImportPeer {
        /// Peer JSON files; each becomes one suite.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Folder that receives one subfolder per suite.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Print measured rows by measurement ID: kernel, target, mode, inputs, every cell with its column label,
    /// evidence and provenance.
    #[command(after_help = AFTER_HELP)]
    Show {
        /// Measurement IDs (`M-` and 16 hex digits).
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
        /// Measurement folders (default: the bundled data).
        #[arg(long = "measurements", value_name = "DIR")]
        measurements: Vec<PathBuf>,
        /// Also print the kernel's disassembly.
        #[arg(long)]
        disasm: bool,
    },
    /// Disassemble gfx10 words, one instruction per line in LLVM's syntax. A word that is no instruction is a
    /// warning on stderr naming its index; decoding resumes at the next word and the exit status is 1.
    #[command(after_help = AFTER_HELP)]
    Disasm {
        /// Target: gfx1013 or ps5 (gfx1013 tables); rdna2 or gfx1030..gfx1036 (gfx1030 tables).
        #[arg(long, default_value = "gfx1013", value_name = "NAME")]
        target: String,
        /// Words as 8 hex digits (0x optional); an argument may hold several, separated by spaces or commas.
        words: Vec<String>,
        /// A hex listing (words separated by whitespace or commas) when the file is printable text, else a
        /// little-endian binary blob; `-` reads stdin.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// Read --file as a little-endian binary blob even if its bytes are printable.
        #[arg(long)]
        binary: bool,
        /// Threads that decode a long input (1 or 2; default 2 where the machine has two cores). The listing is
        /// the same either way.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=2))]
        jobs: Option<u64>,
    },
    /// Print the SPIR-V the `vulkan` backend runs for a kernel, as text: a bundled kernel by name (compiled
    /// for the first dispatch of its suite: memory regions, user SGPRs, grid, LDS) or words (arguments or
    /// --file, read as `disasm` reads them; compiled with no memory mapped, so a memory access compiles to
    /// its fault record).
    Recompile {
        /// A kernel of the measurements by name.
        #[arg(long, value_name = "NAME")]
        kernel: Option<String>,
        /// The suite holding --kernel, when several do.
        #[arg(long, value_name = "NAME", requires = "kernel")]
        suite: Option<String>,
        /// Measurement folders for --kernel (default: the bundled data).
        #[arg(long = "measurements", value_name = "DIR", requires = "kernel")]
        measurements: Vec<PathBuf>,
        /// Words as 8 hex digits (0x optional), several per argument allowed.
        words: Vec<String>,
        /// A hex listing or little-endian binary blob (`-`: stdin), as `disasm --file`.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// Read --file as a binary blob even if its bytes are printable.
        #[arg(long)]
        binary: bool,
        /// Target of the words: gfx1013 or ps5 (gfx1013 tables); rdna2 or gfx1030..gfx1036.
        #[arg(long, default_value = "gfx1013", value_name = "NAME")]
        target: String,
        /// Wave size of the words' launch: 32 or 64.
        #[arg(long, default_value_t = 32, value_name = "N")]
        wave: u32,
        /// Threads per workgroup of the words' launch (default: one wave).
        #[arg(long, value_name = "N")]
        threads: Option<u32>,
        /// Workgroups of the words' launch.
        #[arg(long, default_value_t = 1, value_name = "N")]
        groups: u32,
        /// LDS bytes per workgroup of the words' launch.
        #[arg(long, default_value_t = 0, value_name = "BYTES")]
        lds: u32,
        /// Compile for a device with round-to-nearest-even float controls for f32 (lavapipe, NVIDIA): f32
        /// adds and multiplies go to host float instructions where those are exact.
        #[arg(long)]
        host_floats: bool,
        /// Mark helper functions DontInline, as `conformance bench-gpu --call-helpers` does (the vulkan backend inlines them).
        #[arg(long)]
        call_helpers: bool,
        /// Also write the binary module to FILE (replaced atomically).
        #[arg(long, value_name = "FILE")]
        spv: Option<PathBuf>,
    },
    /// Run measurement templates and write their rows (suite oracle-NAME per template) under DIR: on the
    /// reference model (`--backend model`, a dry run whose rows carry evidence `model`) or on an RDNA GPU
    /// through ROCr (`--backend hsa`). Resumable (`--resume`) and shardable (`--shard K/N`).
    Collect(CollectArgs),
    /// Merge measurement folders (collection shards, several owners' runs) into DIR: rows with one ID must
    /// agree cell for cell (a repeatability conflict is reported with both values and where each was read,
    /// never resolved), model rows never merge with measured ones, sources are united.
    Merge {
        /// The folders to merge.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged suites are written (atomically, suite by suite).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Print a Markdown block for each measurement ID that a contributor pastes into a pull request: the
    /// ID, the kernel's disassembly, the mode, the inputs, the outputs and where they were measured.
    Cite {
        /// Measurement IDs.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Measurement folders (default: the bundled data).
        #[arg(long, value_name = "DIR")]
        measurements: Vec<PathBuf>,
    },
    /// List the agents the ROCr (HSA) runtime sees and which are RDNA GPUs `collect --backend hsa` can
    /// measure: what an RDNA owner checks first. Exit 2, saying why, when the runtime library, the kernel
    /// driver (/dev/kfd) or an RDNA GPU agent is missing.
    Agents {
        /// The runtime library file (default: $ORACLE_HSA_LIB, else libhsa-runtime64.so.1 from the system
        /// loader's search path).
        #[arg(long, value_name = "PATH")]
        hsa_lib: Option<PathBuf>,
    },
    /// PM4 command buffers: print one packet by packet (`dump`), or write the one the driver's command
    /// processor runs for a measured job (`encode`).
    Pm4 {
        #[command(subcommand)]
        command: Pm4Command,
    },
    /// Print a completion script for SHELL on stdout (e.g. `oracle completions bash >
    /// /etc/bash_completion.d/oracle`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// The queue a command buffer is for.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Queue {
    /// A compute queue (AGC's asynchronous compute command buffers).
    Compute,
    /// The graphics ring (AGC's draw command buffers).
    Graphics,
}

impl Queue {
    fn engine(self) -> driver::pm4::Engine {
        match self {
            Queue::Compute => driver::pm4::Engine::Compute,
            Queue::Graphics => driver::pm4::Engine::Graphics,
        }
    }
}

#[derive(Subcommand)]
enum Pm4Command {
    /// Print a PM4 command buffer like a hardware debugger's decoder: one line per packet with its dword
    /// offset, header, name (AMD's, and the AGC library's beside it where it differs), size and fields, and
    /// every register a SET_SH_REG writes by name with its fields. A packet that cannot be decoded (type-0,
    /// unknown opcode, truncated, wrong size, undefined field) ends the listing with the error, its offset
    /// and opcode; the exit status is then 1. Indirect buffers are listed, not followed (no guest memory).
    Dump {
        /// A hex listing (words separated by whitespace or commas) when the file is printable text, else a
        /// little-endian binary blob; `-` reads stdin.
        file: PathBuf,
        /// Read the file as a little-endian binary blob even if its bytes are printable.
        #[arg(long)]
        binary: bool,
        /// The queue the buffer is for: packet sizes differ (DISPATCH_INDIRECT, EVENT_WRITE, SET_BASE).
        #[arg(long, value_enum, default_value = "compute")]
        queue: Queue,
    },
    /// Print, as a hex listing `dump` reads, the command buffer the driver writes for the first job of a
    /// measured kernel (what `conformance --via pm4` runs): the IB2 with the state, the user data and the
    /// dispatch, or with --submission the IB1 that calls it and waits for its fence.
    Encode {
        /// The kernel's name.
        #[arg(long, value_name = "NAME")]
        kernel: String,
        /// The suite holding it, when several do.
        #[arg(long, value_name = "NAME")]
        suite: Option<String>,
        /// Measurement folders (default: the bundled data).
        #[arg(long = "measurements", value_name = "DIR")]
        measurements: Vec<PathBuf>,
        /// The queue.
        #[arg(long, value_enum, default_value = "compute")]
        queue: Queue,
        /// User SGPRs through AGC's SET_SH_REG_INDIRECT and the dispatch through DISPATCH_INDIRECT.
        #[arg(long)]
        indirect: bool,
        /// Print the submitted IB1 instead of the IB2 it calls.
        #[arg(long)]
        submission: bool,
    },
}

fn pm4_command(c: Pm4Command) -> Result<ExitCode, String> {
    match c {
        Pm4Command::Dump {
            file,
            binary,
            queue,
        } => {
            let (text, bad) = pm4::dump(&file, binary, queue.engine())?;
            out::print(&text)?;
            if bad {
                out::warn(
                    "oracle: the command buffer has a packet that cannot be decoded (last line)",
                );
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Pm4Command::Encode {
            kernel,
            suite,
            measurements,
            queue,
            indirect,
            submission,
        } => {
            let options = driver::pm4::EncodeOptions {
                engine: queue.engine(),
                indirect_user_data: indirect,
                indirect_dispatch: indirect,
            };
            let part = if submission {
                pm4::Part::Submission
            } else {
                pm4::Part::Body
            };
            let text = pm4::encode(&kernel, suite.as_deref(), &measurements, &options, part)?;
            out::print(&text)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::ImportPeer { files, out } => import_peer(&files, &out),
        Command::Show {
            ids,
            measurements,
            disasm,
        } => show(&ids, &measurements, disasm),
        Command::Disasm {
            target,
            words,
            file,
            binary,
            jobs,
        } => disasm::run_to(
            &target,
            &words,
            file.as_deref(),
            binary,
            jobs.map(|n| n as usize),
            &mut out::print,
        )
        .map(|warnings| {
            for w in &warnings {
                out::warn(&format!("oracle: warning: {w}"));
            }
            if warnings.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
        Command::Recompile {
            kernel,
            suite,
            measurements,
            words,
            file,
            binary,
            target,
            wave,
            threads,
            groups,
            lds,
            host_floats,
            call_helpers,
            spv,
        } => recompile::run(&recompile::Request {
            kernel: kernel.as_deref(),
            suite: suite.as_deref(),
            measurements: &measurements,
            words: &words,
            file: file.as_deref(),
            binary,
            target: &target,
            wave,
            threads,
            groups,
            lds,
            host_floats,
            call_helpers,
        })
        .and_then(|(header, module)| {
            if let Some(path) = &spv {
                let bytes: Vec<u8> = module.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                measurements::atomic::write_atomic(path, &bytes).map_err(|e| e.to_string())?;
            }
            recompiler::audited(&module.spirv)
                .map_err(|r| format!("{}: {}", r.instruction, r.reason))?;
            let text = recompiler::disassemble(&module.spirv)?;
            out::print(&format!("{header}{text}\n"))?;
            Ok(ExitCode::SUCCESS)
        }),
        Command::Agents { hsa_lib } => agents(hsa_lib.as_deref()),
        Command::Merge { dirs, out } => merge(&dirs, &out),
        Command::Cite { ids, measurements } => cite(&ids, &measurements),
        Command::Collect(a) => collect(&a),
        Command::Pm4 { command } => pm4_command(command),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "oracle", &mut script);
            out::print(&String::from_utf8_lossy(&script)).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            out::warn(&format!("oracle: {message}"));
            ExitCode::from(2)
        }
    }
}

fn import_peer(files: &[PathBuf], out: &std::path::Path) -> Result<ExitCode, String> {
    // Convert everything before writing anything, so bad input leaves no partial output.
    let mut suites = BTreeMap::new();
    for f in files {
        let suite = peer::import_peer_file(f).map_err(|e| e.to_string())?;
        let name = suite.name().to_string();
        if let Some((other, _)) = suites.insert(name.clone(), (f.clone(), suite)) {
            return Err(format!(
                "{} and {} both give suite `{name}`",
                other.display(),
                f.display()
            ));
        }
    }
    // One transaction for the whole import: killed at any point, the store holds the old suites or the new
    // ones, and the next import finishes or undoes an interrupted one (measurements crate, `commit`).
    let all: Vec<&measurements::Suite> = suites.values().map(|(_, s)| s).collect();
    let notes = measurements::store::write_suites(out, &all).map_err(|e| e.to_string())?;
    for n in notes {
        out::warn(&format!("oracle: {n}"));
    }
    for (name, (file, suite)) in &suites {
        out::print(&format!(
            "{}: suite {name}: {} kernels, {} rows -> {}\n",
            file.display(),
            suite.kernels.kernels.len(),
            suite.rows.len(),
            out.join(name).display()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The measurement ID `arg` spells, in its stored form (hex digits lowercase), or why it is malformed.
fn parse_id(arg: &str) -> Result<String, String> {
    let shape = "a measurement ID is `M-` and 16 hex digits, e.g. M-1b06b043fc6b884e";
    let hex = arg
        .strip_prefix("M-")
        .or_else(|| arg.strip_prefix("m-"))
        .ok_or_else(|| format!("malformed measurement ID `{arg}`: no `M-` prefix ({shape})"))?;
    if let Some(c) = hex.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "malformed measurement ID `{arg}`: `{c}` is not a hex digit ({shape})"
        ));
    }
    if hex.len() != 16 {
        return Err(format!(
            "malformed measurement ID `{arg}`: {} hex digits, not 16 ({shape})",
            hex.len()
        ));
    }
    Ok(format!("M-{}", hex.to_ascii_lowercase()))
}

/// The IDs of `args` (every one checked before the data is loaded: a typo is named as such, not as a missing
/// row), the folders (`dirs`, or the bundled data) and the rows loaded from them.
fn ids_and_rows(
    args: &[String],
    dirs: &[PathBuf],
) -> Result<(Vec<String>, Vec<PathBuf>, Dataset), String> {
    let ids = args
        .iter()
        .map(|a| parse_id(a))
        .collect::<Result<Vec<_>, _>>()?;
    let dirs = if dirs.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        dirs.to_vec()
    };
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    for w in &ds.warnings {
        out::warn(&format!("oracle: warning: {w}"));
    }
    Ok((ids, dirs, ds))
}

fn show(args: &[String], dirs: &[PathBuf], with_disasm: bool) -> Result<ExitCode, String> {
    let (ids, dirs, ds) = ids_and_rows(args, dirs)?;
    let mut missing = Vec::new();
    for id in &ids {
        let Some((suite, stored)) = ds.find(id) else {
            missing.push(id.as_str());
            continue;
        };
        let r = &stored.row;
        let kernel = suite.kernel(&r.kernel);
        let mut s = String::new();
        let _ = writeln!(s, "{id}");
        let _ = writeln!(
            s,
            "  suite     {} (kernel {}, content hash {})",
            suite.name(),
            r.kernel,
            suite
                .kernel_hashes
                .get(&r.kernel)
                .map_or("unknown", String::as_str)
        );
        let _ = writeln!(s, "  target    {}", r.target);
        let _ = writeln!(s, "  mode      {} ({})", r.mode.canonical(), r.mode);
        let _ = writeln!(s, "  dispatch  {} lane {}", r.dispatch, r.lane);
        let _ = writeln!(
            s,
            "  inputs    {}",
            measurements::hex::format_dwords(&r.inputs)
        );
        let _ = writeln!(
            s,
            "  compares  {} (lane {} at dword {})",
            r.placement,
            r.lane,
            r.placement.dword(r.lane, 0)
        );
        // The kernel's labels name the dwords of its default placement, as the HTML report shows them; a row
        // comparing another array has no labels (its `array[column]` is all there is to say).
        let labels = kernel
            .filter(|k| r.placement == k.default_placement())
            .map_or(&[][..], |k| k.labels.as_slice());
        for c in &r.cells {
            let _ = write!(
                s,
                "  {}[{:>3}]  {:08x} mask {:08x} check {}",
                r.placement.array,
                c.column,
                c.value,
                c.mask,
                c.check.letter()
            );
            match labels.get(c.column as usize).filter(|l| !l.is_empty()) {
                Some(l) => {
                    let _ = writeln!(s, "  {l}");
                }
                None => s.push('\n'),
            }
        }
        let _ = writeln!(s, "  evidence  {}", r.evidence);
        for src in r.source.split(" ; ") {
            let _ = writeln!(s, "  source    {src}");
        }
        let _ = writeln!(s, "  read from {}", stored.origin);
        if with_disasm {
            let kernel = kernel.ok_or_else(|| format!("{id}: kernel `{}` missing", r.kernel))?;
            match reference_model::exec::target_of(&r.target) {
                Some(target) => {
                    let l = disasm::listing(target, &kernel.words());
                    for line in l.text.lines() {
                        let _ = writeln!(s, "    {line}");
                    }
                    for w in &l.warnings {
                        let _ = writeln!(s, "    ; cannot decode {w}");
                    }
                }
                None => {
                    let _ = writeln!(
                        s,
                        "    (no disassembly: target `{}` is none of {})",
                        r.target,
                        disasm::target_names()
                    );
                }
            }
        }
        out::print(&s)?;
    }
    if !missing.is_empty() {
        return Err(format!(
            "no measurement {} in {}",
            missing.join(", "),
            join(&dirs)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn join(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `oracle merge`.
fn merge(dirs: &[PathBuf], out_dir: &std::path::Path) -> Result<ExitCode, String> {
    if dirs.iter().any(|d| d == out_dir) {
        return Err("oracle merge: --out must be a folder other than the ones merged".into());
    }
    let ds = Dataset::load(dirs).map_err(|e| e.to_string())?;
    for w in &ds.warnings {
        out::warn(&format!("oracle: warning: {w}"));
    }
    let suites: Vec<&measurements::Suite> = ds.suites.values().collect();
    measurements::commit::write_suites(out_dir, &suites).map_err(|e| e.to_string())?;
    out::print(&format!(
        "merged {} rows of {} suites from {} into {}\n",
        ds.row_count(),
        suites.len(),
        join(dirs),
        out_dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `oracle cite`.
fn cite(args: &[String], dirs: &[PathBuf]) -> Result<ExitCode, String> {
    let (ids, dirs, ds) = ids_and_rows(args, dirs)?;
    let mut text = String::new();
    let mut missing = Vec::new();
    for id in &ids {
        let Some((suite, stored)) = ds.find(id) else {
            missing.push(id.as_str());
            continue;
        };
        let r = &stored.row;
        let kernel = suite
            .kernel(&r.kernel)
            .ok_or_else(|| format!("{id}: kernel `{}` missing", r.kernel))?;
        let _ = writeln!(text, "#### Measurement `{id}`\n");
        let _ = writeln!(text, "| | |\n|---|---|");
        let _ = writeln!(
            text,
            "| suite / kernel | `{}` / `{}` (content hash `{}`) |",
            suite.name(),
            r.kernel,
            suite
                .kernel_hashes
                .get(&r.kernel)
                .map_or("?", String::as_str)
        );
        let _ = writeln!(text, "| target | `{}` |", r.target);
        let _ = writeln!(text, "| mode | `{}` ({}) |", r.mode.canonical(), r.mode);
        let _ = writeln!(
            text,
            "| launch | {}, wave{}, {} threads, dispatch `{}`, lane {} |",
            kernel.abi.name(),
            kernel.wave,
            kernel.threads,
            r.dispatch,
            r.lane
        );
        let _ = writeln!(
            text,
            "| inputs | `{}` |",
            measurements::hex::format_dwords(&r.inputs)
        );
        let outputs: Vec<String> = r
            .cells
            .iter()
            .map(|c| {
                let mask = if c.mask == u32::MAX {
                    String::new()
                } else {
                    format!(" mask {:08x}", c.mask)
                };
                format!(
                    "`{}[{}]` = `{:08x}`{mask} ({})",
                    r.placement.array,
                    c.column,
                    c.value,
                    c.check.letter()
                )
            })
            .collect();
        let _ = writeln!(text, "| outputs | {} |", outputs.join(", "));
        let _ = writeln!(text, "| evidence | {} |", r.evidence);
        let _ = writeln!(
            text,
            "| measured by | {} |",
            r.source.replace('|', "\\|").replace(" ; ", "; ")
        );
        let _ = writeln!(text, "\n```asm");
        match reference_model::exec::target_of(&r.target) {
            Some(target) => {
                let l = disasm::listing(target, &kernel.words());
                text.push_str(&l.text);
                for w in &l.warnings {
                    let _ = writeln!(text, "; cannot decode {w}");
                }
            }
            None => {
                let _ = writeln!(text, "; no disassembly for target `{}`", r.target);
            }
        }
        let _ = writeln!(text, "```\n");
    }
    out::print(&text)?;
    if !missing.is_empty() {
        return Err(format!(
            "no measurement {} in {}",
            missing.join(", "),
            join(&dirs)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `oracle collect`'s arguments.
#[derive(clap::Args)]
struct CollectArgs {
    /// Template files (TOML) or names of bundled templates (`oracle collect --list` shows them).
    templates: Vec<String>,
    /// Every bundled template.
    #[arg(long)]
    all: bool,
    /// List the bundled templates and what they settle, and exit.
    #[arg(long)]
    list: bool,
    /// `model` or `hsa`.
    #[arg(long)]
    backend: Option<String>,
    /// Where the suites go.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Continue (or redo from its journal) a collection into the same DIR.
    #[arg(long)]
    resume: bool,
    /// Only shard K of N (1 <= K <= N): dispatches K-1, K-1+N, ... (0-based).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Dispatches run at a time (default: the number of cores; the files do not depend on it).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: Option<u64>,
    /// The chip the model runs as (`--backend model`): gfx1013 (default), gfx1030 .. gfx1036.
    #[arg(long, default_value = "gfx1013")]
    target: String,
    /// The ROCr runtime library (`--backend hsa`; default $ORACLE_HSA_LIB, else libhsa-runtime64.so.1).
    #[arg(long, value_name = "PATH")]
    hsa_lib: Option<PathBuf>,
    /// Seconds a dispatch may run on the GPU before it is abandoned and reported (`--backend hsa`).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = positive_seconds)]
    dispatch_timeout: f64,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!("`{s}`: seconds, more than 0 and at most 86400")),
    }
}

/// `oracle collect`.
fn collect(a: &CollectArgs) -> Result<ExitCode, String> {
    use oracle_runner::collect as co;
    let bundled = templates::bundled().map_err(|e| e.to_string())?;
    if a.list {
        let mut text = String::new();
        for t in &bundled {
            let _ = writeln!(
                text,
                "{:<22} {} dispatches; settles {}\n    {}",
                t.name,
                t.cases().len(),
                t.settles.join(", "),
                t.about
            );
        }
        return out::print(&text).map(|()| ExitCode::SUCCESS);
    }
    let mut chosen = Vec::new();
    if a.all {
        chosen.extend(bundled.iter().cloned());
    }
    for name in &a.templates {
        let p = std::path::Path::new(name);
        if name.ends_with(".toml") || p.exists() {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{name}: {e}"))?;
            chosen.push(templates::Template::parse(name, &text).map_err(|e| e.to_string())?);
        } else {
            let t = bundled.iter().find(|t| &t.name == name).ok_or_else(|| {
                format!("`{name}` is neither a template file nor a bundled template (oracle collect --list)")
            })?;
            chosen.push(t.clone());
        }
    }
    if chosen.is_empty() {
        return Err("oracle collect: name templates (files or bundled names) or pass --all".into());
    }
    let out_dir = a
        .out
        .as_deref()
        .ok_or("oracle collect: --out DIR is required")?;
    let shard = match &a.shard {
        Some(s) => co::Shard::parse(s)?,
        None => co::Shard::ALL,
    };
    let model = reference_model::exec::ModelBackend::default();
    // The runtime, its session and the device outlive the collection that borrows them.
    let rt: oracle_runner::hsa::Runtime;
    let session: oracle_runner::hsa::Session;
    let device: oracle_runner::dispatch::Device;
    let target = match a.backend.as_deref() {
        Some("model") => {
            if !measurements::row::valid_target(&a.target) || !a.target.starts_with("gfx") {
                return Err(format!(
                    "--target `{}`: a gfx10 chip (gfx1013, gfx1030 .. gfx1036)",
                    a.target
                ));
            }
            co::Target::Model {
                chip: a.target.clone(),
                backend: &model,
            }
        }
        Some("hsa") => {
            use oracle_runner::{dispatch, hsa};
            rt = hsa::Runtime::load(&hsa::library_path(a.hsa_lib.as_deref()))
                .map_err(|e| e.to_string())?;
            session = rt.init().map_err(|e| e.to_string())?;
            let agents = session.rdna_agents().map_err(|e| e.to_string())?;
            let timeout = std::time::Duration::from_secs_f64(a.dispatch_timeout);
            device =
                dispatch::Device::open(&session, &agents[0], timeout).map_err(|e| e.to_string())?;
            out::warn(&format!(
                "oracle: measuring on {}{}",
                device.fingerprint(),
                if agents.len() > 1 {
                    " (the first RDNA agent; ROCR_VISIBLE_DEVICES chooses another)"
                } else {
                    ""
                }
            ));
            co::Target::Hsa { device: &device }
        }
        Some(other) => return Err(format!("--backend `{other}`: model or hsa")),
        None => return Err("oracle collect: --backend model|hsa is required".into()),
    };
    let mut failed = 0;
    for t in &chosen {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} dispatches, {per_sec}, {eta} left",
            )
            .map_err(|e| e.to_string())?,
        );
        bar.set_prefix(t.name.clone());
        let jobs = a.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |n| n as usize,
        );
        let summary = co::collect(
            t,
            &target,
            out_dir,
            a.resume,
            shard,
            jobs,
            &mut |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            },
        )?;
        bar.finish_and_clear();
        if let Some(why) = &summary.skipped {
            out::print(&format!("{}: skipped: {why}\n", t.name))?;
            continue;
        }
        out::print(&format!(
            "{}: {} rows in {}; {} dispatches run, {} from the journal{}\n",
            t.name,
            summary.rows,
            out_dir.join(format!("oracle-{}", t.name)).display(),
            summary.ran,
            summary.resumed,
            if summary.failed.is_empty() {
                String::new()
            } else {
                format!(", {} failed", summary.failed.len())
            }
        ))?;
        for f in &summary.failed {
            out::warn(&format!("oracle: {}: {f}", t.name));
        }
        failed += summary.failed.len();
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `oracle agents`.
fn agents(lib: Option<&std::path::Path>) -> Result<ExitCode, String> {
    use oracle_runner::hsa;
    let path = hsa::library_path(lib);
    let rt = hsa::Runtime::load(&path).map_err(|e| e.to_string())?;
    let session = rt.init().map_err(|e| e.to_string())?;
    let (major, minor) = session.version().map_err(|e| e.to_string())?;
    let all = session.agents().map_err(|e| e.to_string())?;
    let mut text = format!("ROCr {major}.{minor} ({})\n", rt.path().display());
    for a in &all {
        let kind = if a.is_rdna() {
            "RDNA GPU: oracle can measure it"
        } else if a.gpu {
            "GPU, not RDNA (gfx10)"
        } else {
            "CPU"
        };
        let product = if a.product.is_empty() {
            String::new()
        } else {
            format!(" ({})", a.product)
        };
        let _ = writeln!(text, "  {}{product}, {}: {kind}", a.name, a.vendor);
    }
    out::print(&text)?;
    session.rdna_agents().map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_for_shape() {
        assert_eq!(
            parse_id("M-1B06B043FC6B884E").unwrap(),
            "M-1b06b043fc6b884e"
        );
        for (bad, why) in [
            ("M-xyz", "`x` is not a hex digit"),
            ("M-1b06", "4 hex digits, not 16"),
            ("1b06b043fc6b884e", "no `M-` prefix"),
            ("M-1b06b043fc6b884e0", "17 hex digits"),
        ] {
            let e = parse_id(bad).unwrap_err();
            assert!(e.contains("malformed") && e.contains(why), "{bad}: {e}");
        }
    }

    /// The help's target list is the model's mapping, name for name.
    #[test]
    fn help_lists_every_target_name() {
        for (name, _) in reference_model::exec::TARGET_NAMES {
            assert!(AFTER_HELP.contains(name), "{name}");
        }
    }
}
