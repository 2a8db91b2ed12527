//! Binding: which native library (or converted module) provides each import, by NID; the checks
//! (duplicate exports, unresolved imports, instructions that cannot run natively); the report.

use crate::error::LinkError;
use crate::names::KnownNames;
use crate::nid::looks_like_nid;
use crate::reader::{PsFile, Symbol};
use crate::sce::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The plain-named runtime entry points that the native `libkernel` exports for generated code.
pub const RT_START: &str = "__relink_start";
pub const RT_UNRESOLVED: &str = "__relink_unresolved";

/// A library that provides symbols: a native library or a converted module.
#[derive(Debug, Clone, Serialize)]
pub struct Provider {
    /// The file name written in `DT_NEEDED`.
    pub name: String,
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// `native` or `module`.
    pub kind: &'static str,
    /// Exported NIDs (and plain runtime names) with their symbol type.
    #[serde(skip)]
    pub exports: BTreeMap<String, u8>,
}

/// Read a native library's exported dynamic symbols (with `goblin`).
pub fn scan_native(path: &Path) -> Result<Provider, LinkError> {
    let err = |reason: String| LinkError::NativeLibrary {
        path: path.display().to_string(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let elf = goblin::elf::Elf::parse(&bytes).map_err(|e| err(e.to_string()))?;
    if elf.header.e_type != goblin::elf::header::ET_DYN {
        return Err(err("not a shared object".into()));
    }
    let mut exports = BTreeMap::new();
    for sym in elf.dynsyms.iter() {
        let bind = sym.st_bind();
        if sym.st_shndx == 0 || (bind != STB_GLOBAL && bind != STB_WEAK) {
            continue;
        }
        let Some(name) = elf.dynstrtab.get_at(sym.st_name) else {
            continue;
        };
        if looks_like_nid(name) || name == RT_START || name == RT_UNRESOLVED {
            exports.insert(name.to_string(), sym.st_type());
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| err("no file name".into()))?;
    Ok(Provider {
        name,
        path: Some(path.to_path_buf()),
        kind: "native",
        exports,
    })
}

/// All `*.so` files of a directory, sorted by name.
pub fn scan_native_dir(dir: &Path) -> Result<Vec<Provider>, LinkError> {
    let rd = std::fs::read_dir(dir).map_err(|e| LinkError::Io {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "so"))
        .collect();
    paths.sort();
    paths.iter().map(|p| scan_native(p)).collect()
}

/// Whether a symbol is a module's own entry point (`module_start`, `module_stop`, or typed `STT_SCE`,
/// which shadPS4 elf.h documents as theirs): every module has them and nobody imports them, so they are
/// not library exports and take no part in binding or the duplicate check.
pub fn is_module_entry(s: &Symbol) -> bool {
    s.sym_type == STT_SCE
        || [
            crate::nid::nid("module_start"),
            crate::nid::nid("module_stop"),
        ]
        .contains(&s.nid)
}

/// The exports of a converted module (kind `module`) or of the executable (`executable`): its defined
/// global or weak symbols, less the module entry points.
pub fn module_provider(name: &str, file: &PsFile) -> Provider {
    let mut exports = BTreeMap::new();
    for s in &file.symbols {
        if s.index != 0
            && s.is_defined()
            && (s.bind == STB_GLOBAL || s.bind == STB_WEAK)
            && !is_module_entry(s)
        {
            exports.insert(s.nid.clone(), s.sym_type);
        }
    }
    let kind = if file.kind.is_executable() {
        "executable"
    } else {
        "module"
    };
    Provider {
        name: name.to_string(),
        path: None,
        kind,
        exports,
    }
}

/// How one import was bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// Bound to the symbol of this name in this library.
    Resolved {
        library: String,
        provider: &'static str,
    },
    /// Weak and provided by nobody: binds to 0.
    WeakNull,
    /// Bound to a generated stub that reports the NID and aborts (`--stub-unresolved`).
    Stub,
    /// Provided by nobody.
    Unresolved,
}

/// One import of one input file.
#[derive(Debug, Clone, Serialize)]
pub struct Import {
    pub file: String,
    pub symbol_index: usize,
    pub nid: String,
    pub library: Option<String>,
    pub module: Option<String>,
    pub known_name: Option<String>,
    pub symbol_type: &'static str,
    pub bind: &'static str,
    pub resolution: Resolution,
}

/// An instruction that cannot run natively.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NonNative {
    pub file: String,
    /// Address in the PS image.
    pub vaddr: u64,
    pub instruction: &'static str,
    pub bytes: String,
}

/// A NID exported by more than one provider.
#[derive(Debug, Clone, Serialize)]
pub struct Duplicate {
    pub nid: String,
    pub known_name: Option<String>,
    pub libraries: Vec<String>,
}

/// What `relink report` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub inputs: Vec<InputSummary>,
    pub providers: Vec<Provider>,
    pub duplicate_policy: &'static str,
    pub duplicates: Vec<Duplicate>,
    pub imports: Vec<Import>,
    pub unresolved: usize,
    pub non_native: Vec<NonNative>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InputSummary {
    pub file: String,
    pub output: String,
    pub kind: crate::reader::FileKind,
    pub module: Option<String>,
    pub imports: usize,
    pub exports: usize,
    pub relocations: usize,
}

pub fn sym_type_name(t: u8) -> &'static str {
    match t {
        STT_NOTYPE => "notype",
        STT_OBJECT => "object",
        STT_FUNC => "function",
        STT_TLS => "tls",
        STT_SCE => "sce",
        _ => "other",
    }
}

/// The imports of a file: undefined global or weak symbols.
pub fn imports_of(file: &PsFile) -> impl Iterator<Item = &Symbol> {
    file.symbols
        .iter()
        .filter(|s| s.index != 0 && !s.is_defined() && (s.bind == STB_GLOBAL || s.bind == STB_WEAK))
}

/// The providers by NID; duplicates listed.
pub fn provider_index(
    providers: &[Provider],
    names: &KnownNames,
) -> (BTreeMap<String, usize>, Vec<Duplicate>) {
    let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, p) in providers.iter().enumerate() {
        for n in p.exports.keys() {
            by.entry(n.clone()).or_default().push(i);
        }
    }
    let mut index = BTreeMap::new();
    let mut dups = Vec::new();
    for (n, v) in by {
        if v.len() > 1 {
            dups.push(Duplicate {
                known_name: names.get(&n).map(str::to_string),
                libraries: v.iter().map(|i| providers[*i].name.clone()).collect(),
                nid: n.clone(),
            });
        }
        index.insert(n, v[0]);
    }
    (index, dups)
}

/// Bind every import of `file` (named `file_name`, converted as provider `own`, if a module).
pub fn bind(
    file_name: &str,
    file: &PsFile,
    own: Option<usize>,
    providers: &[Provider],
    index: &BTreeMap<String, usize>,
    names: &KnownNames,
    stub_unresolved: bool,
) -> Vec<Import> {
    imports_of(file)
        .map(|s| {
            let found = index.get(&s.nid).copied().filter(|i| Some(*i) != own);
            let resolution = match found {
                Some(i) => Resolution::Resolved {
                    library: providers[i].name.clone(),
                    provider: providers[i].kind,
                },
                None if s.bind == STB_WEAK => Resolution::WeakNull,
                None if stub_unresolved => Resolution::Stub,
                None => Resolution::Unresolved,
            };
            Import {
                file: file_name.to_string(),
                symbol_index: s.index,
                nid: s.nid.clone(),
                library: s.library.clone(),
                module: s.module.clone(),
                known_name: s
                    .plain_name
                    .clone()
                    .or_else(|| names.get(&s.nid).map(str::to_string)),
                symbol_type: sym_type_name(s.sym_type),
                bind: if s.bind == STB_WEAK { "weak" } else { "global" },
                resolution,
            }
        })
        .collect()
}

/// The error for a list of unresolved imports.
pub fn unresolved_error(imports: &[Import]) -> Option<LinkError> {
    let un: Vec<&Import> = imports
        .iter()
        .filter(|i| i.resolution == Resolution::Unresolved)
        .collect();
    if un.is_empty() {
        return None;
    }
    let list = un
        .iter()
        .map(|i| {
            format!(
                "  {} {} (library {}, module {}) imported by {}",
                i.nid,
                i.known_name
                    .as_deref()
                    .map(|n| format!("({n})"))
                    .unwrap_or_else(|| "(unknown name)".into()),
                i.library.as_deref().unwrap_or("?"),
                i.module.as_deref().unwrap_or("?"),
                i.file
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    Some(LinkError::Unresolved {
        count: un.len(),
        list,
        imports: un
            .iter()
            .map(|i| {
                (
                    i.nid.clone(),
                    i.known_name.clone(),
                    i.library.clone().unwrap_or_default(),
                    i.module.clone().unwrap_or_default(),
                )
            })
            .collect(),
    })
}

/// Find instructions that cannot run natively in the executable segments: direct system calls
/// (`syscall` 0F 05, `sysenter` 0F 34, `int 0x80` CD 80). A byte scan: every occurrence is reported,
/// also one that is in fact data or inside a longer instruction, so nothing is silently left in.
pub fn scan_non_native(file_name: &str, file: &PsFile) -> Vec<NonNative> {
    const PATTERNS: &[(&[u8], &str)] = &[
        (&[0x0f, 0x05], "syscall"),
        (&[0x0f, 0x34], "sysenter"),
        (&[0xcd, 0x80], "int 0x80"),
    ];
    let mut out = Vec::new();
    for seg in file.segments.iter().filter(|s| s.flags & PF_X != 0) {
        for i in 0..seg.data.len().saturating_sub(1) {
            for (pat, what) in PATTERNS {
                if seg.data[i..].starts_with(pat) {
                    out.push(NonNative {
                        file: file_name.to_string(),
                        vaddr: seg.vaddr + i as u64,
                        instruction: what,
                        bytes: pat
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                    });
                }
            }
        }
    }
    out
}
