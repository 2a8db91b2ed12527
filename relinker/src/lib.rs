//! `relinker`: PS5/PS4 executables and their shipped modules to native Linux x86-64 programs, every
//! import bound by NID to a native library. Nothing is emulated: the output is a PIE (and shared
//! objects) that the Linux loader starts as a normal process. See `relinker/README.md`.
//!
//! - [`reader`]: ELF and SELF containers, the SCE program headers, the dynamic table in both table
//!   conventions, module and library descriptors, `NID#LIB#MOD` symbols, relocations.
//! - [`nid`]: NIDs (SHA-1 based names) and encoded ids.
//! - [`link`]: binding by NID, duplicate exports, unresolved imports, non-native instructions, report.
//! - [`elfout`]: the native ELF writer.
//! - [`inspect`]: the text dump of `relink inspect`.
//!
//! Sources of the format facts (each constant is cited again where [`sce`] defines it):
//! - shadPS4, repository `shadps4-emu/shadPS4`, commit `0aea6ef36f6202104bdb7777cf5682333991d185`:
//!   `src/core/loader/elf.h`, `src/core/loader/elf.cpp`, `src/core/module.cpp`, `src/core/module.h`,
//!   `src/core/linker.cpp`, `src/core/linker.h`, `src/core/loader/symbols_resolver.cpp`.
//! - KytyPS5, repository `KytyPS5/KytyPS5`, commit `0d92ce49da6e27fcca35c2fa19b7440d86d637ed`:
//!   `src/loader/elf.h`, `src/loader/elf.cpp`.

pub mod elfout;
pub mod error;
pub mod inspect;
pub mod link;
pub mod names;
pub mod nid;
pub mod reader;
pub mod sce;

use error::LinkError;
use link::{Import, NonNative, Provider, Report};
use names::KnownNames;
use reader::PsFile;
use std::path::{Path, PathBuf};

/// How to relink.
#[derive(Debug, Clone)]
pub struct Options {
    /// Native library directories (every `*.so`) or files.
    pub natives: Vec<PathBuf>,
    /// Extra modules, beside the `sce_module/*.prx` found next to the executable.
    pub modules: Vec<PathBuf>,
    /// Do not look for `sce_module/*.prx` beside the executable.
    pub no_module_dir: bool,
    /// Shipped modules not to convert, by file name (`libc.prx`): for one whose functions the native
    /// libraries provide, which would otherwise export the same NIDs (a duplicate).
    pub skip_modules: Vec<String>,
    /// Bind unresolved imports to a stub that reports the NID and aborts.
    pub stub_unresolved: bool,
    /// Write the output even where non-native instructions were found (they stay listed in the report).
    pub allow_non_native: bool,
    /// Put the PS init/fini arrays in the output's `DT_INIT_ARRAY`/`DT_FINI_ARRAY` (default), or leave
    /// them to the module's own start code.
    pub init_arrays: bool,
    pub names: KnownNames,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            natives: Vec::new(),
            modules: Vec::new(),
            no_module_dir: false,
            skip_modules: Vec::new(),
            stub_unresolved: false,
            allow_non_native: false,
            init_arrays: true,
            names: KnownNames::builtin(),
        }
    }
}

/// One input file.
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    /// The output file name.
    pub output: String,
    pub file: PsFile,
    /// Its index among the providers (the executable and the modules).
    pub provider: Option<usize>,
}

/// Everything read and bound, before writing.
#[derive(Debug, Clone)]
pub struct Plan {
    pub inputs: Vec<Input>,
    pub providers: Vec<Provider>,
    pub imports: Vec<Vec<Import>>,
    pub report: Report,
}

/// Read a PS file from disk.
pub fn read_file(path: &Path) -> Result<PsFile, LinkError> {
    let bytes = std::fs::read(path).map_err(|e| LinkError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    reader::read(&bytes).map_err(|source| LinkError::Read {
        path: path.display().to_string(),
        source,
    })
}

fn output_name(path: &Path, exe: bool) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    if exe {
        stem
    } else {
        format!("{stem}.so")
    }
}

/// The modules shipped beside an executable: `DIR/sce_module/*.prx`, sorted.
pub fn shipped_modules(main: &Path) -> Vec<PathBuf> {
    let dir = main.parent().unwrap_or(Path::new(".")).join("sce_module");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "prx" || x == "sprx"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Read the executable, its modules and the native libraries, and bind every import.
pub fn plan(main: &Path, opts: &Options) -> Result<Plan, LinkError> {
    let main_file = read_file(main)?;
    let mut inputs = vec![Input {
        path: main.to_path_buf(),
        output: output_name(main, main_file.kind.is_executable()),
        file: main_file,
        provider: None,
    }];
    let mut mods = if opts.no_module_dir {
        Vec::new()
    } else {
        shipped_modules(main)
    };
    mods.retain(|m| {
        let name = m
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        !opts.skip_modules.contains(&name)
    });
    mods.extend(opts.modules.iter().cloned());
    // The executable is a provider too: the Linux loader searches it first, so a NID that it and a library
    // both export is a duplicate like any other (and a module may import from it).
    let mut providers = vec![link::module_provider(&inputs[0].output, &inputs[0].file)];
    inputs[0].provider = Some(0);
    for m in &mods {
        let file = read_file(m)?;
        let output = output_name(m, false);
        providers.push(link::module_provider(&output, &file));
        inputs.push(Input {
            path: m.clone(),
            output,
            file,
            provider: Some(providers.len() - 1),
        });
    }
    for n in &opts.natives {
        if n.is_dir() {
            providers.extend(link::scan_native_dir(n)?);
        } else {
            providers.push(link::scan_native(n)?);
        }
    }
    let (index, duplicates) = link::provider_index(&providers, &opts.names);
    let mut imports = Vec::new();
    let mut non_native: Vec<NonNative> = Vec::new();
    let mut summaries = Vec::new();
    for inp in &inputs {
        let name = inp
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let im = link::bind(
            &name,
            &inp.file,
            inp.provider,
            &providers,
            &index,
            &opts.names,
            opts.stub_unresolved,
        );
        non_native.extend(link::scan_non_native(&name, &inp.file));
        summaries.push(link::InputSummary {
            file: name,
            output: inp.output.clone(),
            kind: inp.file.kind,
            module: inp.file.module_info.as_ref().map(|m| m.name.clone()),
            imports: im.len(),
            exports: inp
                .file
                .symbols
                .iter()
                .filter(|s| s.index != 0 && s.is_defined() && s.bind != sce::STB_LOCAL)
                .count(),
            relocations: inp.file.relocs.len(),
        });
        imports.push(im);
    }
    let all: Vec<Import> = imports.iter().flatten().cloned().collect();
    let unresolved = all
        .iter()
        .filter(|i| i.resolution == link::Resolution::Unresolved)
        .count();
    let report = Report {
        inputs: summaries,
        providers: providers.clone(),
        duplicate_policy: "error: a NID exported by two libraries fails the relink (the Linux loader would bind the first it finds)",
        duplicates,
        imports: all,
        unresolved,
        non_native,
    };
    Ok(Plan {
        inputs,
        providers,
        imports,
        report,
    })
}

/// The checks that fail a relink: duplicate exports, unresolved imports, non-native instructions.
pub fn check(plan: &Plan, opts: &Options) -> Result<(), LinkError> {
    if let Some(d) = plan.report.duplicates.first() {
        return Err(LinkError::DuplicateExport {
            nid: d.nid.clone(),
            known: d.known_name.clone(),
            libraries: d.libraries.clone(),
        });
    }
    if let Some(e) = link::unresolved_error(&plan.report.imports) {
        return Err(e);
    }
    if !opts.allow_non_native && !plan.report.non_native.is_empty() {
        let nn = &plan.report.non_native;
        let list = nn
            .iter()
            .map(|n| format!("  {} at {:#x} ({})", n.instruction, n.vaddr, n.bytes))
            .collect::<Vec<_>>()
            .join("\n");
        return Err(LinkError::NonNative {
            module: nn[0].file.clone(),
            count: nn.len(),
            list,
        });
    }
    Ok(())
}

/// The provider that exports a runtime symbol.
fn runtime_provider(
    providers: &[Provider],
    symbol: &'static str,
    what: &'static str,
) -> Result<usize, LinkError> {
    providers
        .iter()
        .position(|p| p.kind == "native" && p.exports.contains_key(symbol))
        .ok_or(LinkError::MissingRuntime { what, symbol })
}

/// Relink: write the executable and the converted modules (and copies of the native libraries they
/// need) into `out_dir`. Returns the report.
pub fn relink(main: &Path, out_dir: &Path, opts: &Options) -> Result<Report, LinkError> {
    let plan = plan(main, opts)?;
    check(&plan, opts)?;
    std::fs::create_dir_all(out_dir).map_err(|e| LinkError::Io {
        path: out_dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut used_natives: Vec<usize> = Vec::new();
    for (inp, imports) in plan.inputs.iter().zip(&plan.imports) {
        let exe = inp.file.kind.is_executable();
        let mut needed: Vec<usize> = Vec::new();
        let mut need = |i: usize| {
            if !needed.contains(&i) {
                needed.push(i);
            }
        };
        for im in imports {
            if let link::Resolution::Resolved { library, .. } = &im.resolution {
                if let Some(i) = plan.providers.iter().position(|p| &p.name == library) {
                    need(i);
                }
            }
        }
        if exe {
            need(runtime_provider(
                &plan.providers,
                link::RT_START,
                "the executable's entry",
            )?);
            // The shipped modules are all loaded (and started) with the executable, as on the console.
            for p in plan.inputs.iter().filter_map(|i| i.provider) {
                need(p);
            }
        }
        if imports
            .iter()
            .any(|i| i.resolution == link::Resolution::Stub)
        {
            need(runtime_provider(
                &plan.providers,
                link::RT_UNRESOLVED,
                "--stub-unresolved",
            )?);
        }
        // The executable is no library to name in DT_NEEDED (nor is a file itself).
        let own = inp.provider;
        needed.retain(|i| plan.providers[*i].kind != "executable" && Some(*i) != own);
        for &i in &needed {
            if plan.providers[i].kind == "native" && !used_natives.contains(&i) {
                used_natives.push(i);
            }
        }
        let name = inp
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let spec = elfout::WriteSpec {
            file: &inp.file,
            file_name: &name,
            imports,
            soname: if exe { None } else { Some(inp.output.clone()) },
            needed: needed
                .iter()
                .map(|i| plan.providers[*i].name.clone())
                .collect(),
            runpath: Some("$ORIGIN".into()),
            init_arrays: opts.init_arrays,
        };
        let bytes = elfout::write(&spec)?;
        let path = out_dir.join(&inp.output);
        write_file(&path, &bytes, exe)?;
    }
    for i in used_natives {
        let p = &plan.providers[i];
        if let Some(src) = &p.path {
            let dst = out_dir.join(&p.name);
            if src.canonicalize().ok() != dst.canonicalize().ok() {
                std::fs::copy(src, &dst).map_err(|e| LinkError::Io {
                    path: dst.display().to_string(),
                    reason: e.to_string(),
                })?;
            }
        }
    }
    Ok(plan.report)
}

fn write_file(path: &Path, bytes: &[u8], exe: bool) -> Result<(), LinkError> {
    let io = |e: std::io::Error| LinkError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let _ = std::fs::remove_file(path);
    std::fs::write(path, bytes).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if exe { 0o755 } else { 0o644 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
    Ok(())
}
