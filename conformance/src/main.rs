//! `conformance`: verify backends against measured rows and report.
//!
//! Exit status: 0 when no cell mismatched (listed known differences aside), 1 when one did, 2 on bad input or
//! usage.

use clap::{Parser, ValueEnum};
use conformance::{backends, job_count, verify, Filter, KnownDifferences, Options};
use measurements::Dataset;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Parser)]
#[command(
    name = "conformance",
    version,
    about = "Verify backends against measured gfx10 rows, bit for bit"
)]
struct Cli {
    /// Measurement folder (a suite, or a folder of suites); repeatable. Default: the bundled measurements.
    #[arg(long = "measurements", value_name = "DIR")]
    measurements: Vec<PathBuf>,
    /// Backend: model, vulkan[:NAME] or all; repeatable. Default: model.
    #[arg(long = "backend", value_name = "NAME")]
    backends: Vec<String>,
    /// Only suites matching this name or pattern (`*` wildcard); repeatable.
    #[arg(long = "suite", value_name = "PATTERN")]
    suites: Vec<String>,
    /// Only kernels matching this name or pattern; repeatable.
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
    #[arg(long, default_value_t = 5000)]
    mismatch_limit: usize,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("conformance: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let dirs = if cli.measurements.is_empty() {
        vec![measurements::bundled_data_dir()]
    } else {
        cli.measurements
    };
    let backends = backends::resolve(&cli.backends)?;
    let known = match cli.known {
        Some(p) => KnownDifferences::read(&p)?,
        None => {
            let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("known-differences.toml");
            if p.is_file() {
                KnownDifferences::read(&p)?
            } else {
                KnownDifferences::default()
            }
        }
    };
    let ds = Dataset::load(&dirs).map_err(|e| e.to_string())?;
    // Leftovers of an interrupted import that do not change what was loaded (measurements `store` docs).
    for w in &ds.warnings {
        eprintln!("conformance: warning: {w}");
    }
    let filter = Filter {
        suites: cli.suites,
        kernels: cli.kernels,
    };
    if filter.selected(&ds).is_empty() {
        return Err(format!("no suite matches {:?}", filter.suites));
    }
    let opts = Options {
        filter,
        known,
        mismatch_limit: cli.mismatch_limit,
    };

    let total = (job_count(&ds, &opts.filter) * backends.len()) as u64;
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

    match cli.format {
        Format::Text => print!("{}", reports::table(&summary)),
        Format::Json => print!("{}", reports::json(&summary)),
        Format::Markdown => print!("{}", reports::markdown(&summary)),
    }
    if let Some(dir) = cli.report {
        reports::write_all(&dir, &summary).map_err(|e| format!("{}: {e}", dir.display()))?;
        eprintln!("conformance: reports written to {}", dir.display());
    }
    Ok(if summary.has_unexplained_mismatch() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
