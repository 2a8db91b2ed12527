//! `oracle`: the measurement side of the project.
//!
//! - `oracle import-peer FILE.json... --out DIR` converts peer-test JSON into suites.
//! - `oracle show ID...` prints measured rows by measurement ID, with their kernel and provenance.
//! - `oracle disasm --target gfx1013|gfx1030 WORD...` (or `--file PATH`) prints LLVM-syntax disassembly.
//!
//! Exit status: 0 on success, 2 on bad input or usage (the message names the file, line and reason).

mod disasm;

use clap::{Parser, Subcommand};
use measurements::{peer, Dataset};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "oracle",
    version,
    about = "Measurements of gfx10 behaviour: import, show, disassemble"
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
        #[arg(long)]
        out: PathBuf,
    },
    /// Print measured rows by measurement ID.
    Show {
        /// Measurement IDs (M-...).
        #[arg(required = true)]
        ids: Vec<String>,
        /// Measurement folders (default: the bundled data).
        #[arg(long = "measurements")]
        measurements: Vec<PathBuf>,
        /// Also print the kernel's disassembly.
        #[arg(long)]
        disasm: bool,
    },
    /// Disassemble gfx10 words, one instruction per line in LLVM's syntax.
    Disasm {
        /// gfx1013 (PS5) or gfx1030 (RDNA2).
        #[arg(long, default_value = "gfx1013")]
        target: String,
        /// Words as 8 hex digits (0x optional).
        words: Vec<String>,
        /// A file of hex words, or a little-endian binary blob.
        #[arg(long)]
        file: Option<PathBuf>,
    },
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
        } => disasm::run(&target, &words, file.as_deref()).map(|s| print!("{s}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("oracle: {message}");
            ExitCode::from(2)
        }
    }
}

fn import_peer(files: &[PathBuf], out: &std::path::Path) -> Result<(), String> {
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
        eprintln!("oracle: {n}");
    }
    for (name, (file, suite)) in &suites {
        println!(
            "{}: suite {name}: {} kernels, {} rows -> {}",
            file.display(),
            suite.kernels.kernels.len(),
            suite.rows.len(),
            out.join(name).display()
        );
    }
    Ok(())
}

fn show(ids: &[String], dirs: &[PathBuf], with_disasm: bool) -> Result<(), String> {
    let dirs = if dirs.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        dirs.to_vec()
    };
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    for w in &ds.warnings {
        eprintln!("oracle: warning: {w}");
    }
    for id in ids {
        let (suite, stored) = ds
            .find(id)
            .ok_or_else(|| format!("no measurement {id} in {}", join(&dirs)))?;
        let r = &stored.row;
        println!("{id}");
        println!(
            "  suite     {} (kernel {}, content hash {})",
            suite.name(),
            r.kernel,
            suite.kernel_hashes[&r.kernel]
        );
        println!("  target    {}", r.target);
        println!("  mode      {}", r.mode);
        println!("  dispatch  {} lane {}", r.dispatch, r.lane);
        println!(
            "  inputs    {}",
            measurements::hex::format_dwords(&r.inputs)
        );
        println!(
            "  compares  {} (lane {} at dword {})",
            r.placement,
            r.lane,
            r.placement.dword(r.lane, 0)
        );
        for c in &r.cells {
            println!(
                "  {}[{:>3}]  {:08x} mask {:08x} check {}",
                r.placement.array,
                c.column,
                c.value,
                c.mask,
                c.check.letter()
            );
        }
        println!("  evidence  {}", r.evidence);
        for s in r.source.split(" ; ") {
            println!("  source    {s}");
        }
        println!("  read from {}", stored.origin);
        if with_disasm {
            let kernel = suite.kernel(&r.kernel).ok_or("kernel missing")?;
            let target = reference_model::exec::target_of(&r.target)
                .unwrap_or(reference_model::isa::Target::Gfx1030);
            for line in disasm::listing(target, &kernel.words())?.lines() {
                println!("    {line}");
            }
        }
    }
    Ok(())
}

fn join(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
