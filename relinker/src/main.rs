//! `relink`: PS5/PS4 executables to native Linux programs. See `relinker/README.md`.

use clap::{Parser, Subcommand};
use relinker::{names::KnownNames, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "relink",
    version,
    about = "PS5/PS4 executables and modules to native Linux x86-64 programs, imports bound by NID"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct LinkArgs {
    /// The PS executable (eboot.bin); its `sce_module/*.prx` are converted too.
    input: PathBuf,
    /// Native library directory (every *.so) or file; repeatable.
    #[arg(short = 'L', long = "native")]
    natives: Vec<PathBuf>,
    /// Extra module (.prx) to convert; repeatable.
    #[arg(long = "module")]
    modules: Vec<PathBuf>,
    /// Do not convert `sce_module/*.prx` beside the input.
    #[arg(long)]
    no_module_dir: bool,
    /// A shipped module not to convert, by file name (e.g. libc.prx, when the native libc provides it); repeatable.
    #[arg(long = "skip-module")]
    skip_modules: Vec<String>,
    /// Bind unresolved imports to a stub that prints the NID and aborts when called.
    #[arg(long)]
    stub_unresolved: bool,
    /// Write the output even though direct system calls (or other non-native instructions) were found.
    #[arg(long)]
    allow_non_native: bool,
    /// Leave the PS init/fini arrays to the module's own start code (not in DT_INIT_ARRAY/DT_FINI_ARRAY).
    #[arg(long)]
    no_init_arrays: bool,
    /// A file of names (one a line) whose NIDs the report and errors should name.
    #[arg(long)]
    names: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Relink an executable and its modules into OUT.
    Link {
        #[command(flatten)]
        args: LinkArgs,
        /// Output directory (executable, converted modules, copies of the native libraries used).
        #[arg(short, long)]
        out: PathBuf,
        /// Also write the report (JSON) to this file.
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Print every import (NID, library, module, known name, where it resolved) as JSON; exit 1 if
    /// an import is unresolved or a NID is exported twice.
    Report {
        #[command(flatten)]
        args: LinkArgs,
    },
    /// Print the SCE structures of a file.
    Inspect {
        file: PathBuf,
        #[arg(long)]
        names: Vec<PathBuf>,
    },
    /// Print the NID of each name.
    Nid { names: Vec<String> },
}

fn names(files: &[PathBuf]) -> Result<KnownNames, String> {
    let mut k = KnownNames::builtin();
    for f in files {
        let t = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        k.add_text(&t);
    }
    Ok(k)
}

fn options(a: &LinkArgs) -> Result<Options, String> {
    Ok(Options {
        natives: a.natives.clone(),
        modules: a.modules.clone(),
        no_module_dir: a.no_module_dir,
        skip_modules: a.skip_modules.clone(),
        stub_unresolved: a.stub_unresolved,
        allow_non_native: a.allow_non_native,
        init_arrays: !a.no_init_arrays,
        names: names(&a.names)?,
    })
}

fn run() -> Result<ExitCode, String> {
    let cli = Cli::parse();
    match cli.command {
        Command::Nid { names } => {
            for n in names {
                println!("{}  {}", relinker::nid::nid(&n), n);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Inspect { file, names: nf } => {
            let f = relinker::read_file(&file).map_err(|e| e.to_string())?;
            print!("{}", relinker::inspect::inspect(&f, &names(&nf)?));
            Ok(ExitCode::SUCCESS)
        }
        Command::Report { args } => {
            let opts = options(&args)?;
            let plan = relinker::plan(&args.input, &opts).map_err(|e| e.to_string())?;
            println!(
                "{}",
                serde_json::to_string_pretty(&plan.report).map_err(|e| e.to_string())?
            );
            match relinker::check(&plan, &opts) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    eprintln!("relink: {e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::Link { args, out, report } => {
            let opts = options(&args)?;
            let rep = relinker::relink(&args.input, &out, &opts).map_err(|e| e.to_string())?;
            if let Some(p) = report {
                let t = serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?;
                std::fs::write(&p, t).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            eprintln!(
                "relink: wrote {} ({} imports bound, {} stubbed)",
                out.display(),
                rep.imports
                    .iter()
                    .filter(|i| matches!(i.resolution, relinker::link::Resolution::Resolved { .. }))
                    .count(),
                rep.imports
                    .iter()
                    .filter(|i| i.resolution == relinker::link::Resolution::Stub)
                    .count()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("relink: {e}");
            ExitCode::from(2)
        }
    }
}
