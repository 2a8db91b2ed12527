//! Typed errors. Every malformed, ambiguous or unsupported input is one of these, with the file offset
//! (or address) where it was found; the reader never panics.

use thiserror::Error;

/// What the reader refuses.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReadError {
    #[error("file is {len} bytes, too short for {what} at offset {offset:#x}")]
    Truncated {
        what: &'static str,
        offset: u64,
        len: u64,
    },
    #[error("not an ELF or SELF file (first bytes {magic:02x?})")]
    BadMagic { magic: Vec<u8> },
    #[error("ELF header at offset {offset:#x}: {reason}")]
    BadHeader { offset: u64, reason: String },
    #[error("ELF type {e_type:#06x} is not a loadable PS4/PS5 type (ET_SCE_EXEC 0xfe00, ET_SCE_DYNEXEC 0xfe10, ET_SCE_DYNAMIC 0xfe18)")]
    UnsupportedType { e_type: u16 },
    #[error("SELF segment {segment} (for program header {phdr}) is encrypted: decrypt the file first (e.g. dump it from a console) and pass the ELF")]
    EncryptedSegment { segment: usize, phdr: usize },
    #[error("SELF segment {segment} (for program header {phdr}) is compressed, which is not supported; pass the decompressed ELF")]
    CompressedSegment { segment: usize, phdr: usize },
    #[error("no SELF segment carries file offset {offset:#x} (+{len:#x})")]
    MissingSelfSegment { offset: u64, len: u64 },
    #[error("program header {index} ({kind}): {reason}")]
    BadProgramHeader {
        index: usize,
        kind: &'static str,
        reason: String,
    },
    #[error("more than one {kind} program header (indices {first} and {second})")]
    DuplicateProgramHeader {
        kind: &'static str,
        first: usize,
        second: usize,
    },
    #[error("no {0} program header")]
    MissingProgramHeader(&'static str),
    #[error("dynamic entry at offset {offset:#x}: unknown tag {tag:#x}")]
    UnknownDynamicTag { tag: i64, offset: u64 },
    #[error("dynamic entry at offset {offset:#x}: tag {name} ({tag:#x}) is refused: {reason}")]
    RefusedDynamicTag {
        tag: i64,
        name: &'static str,
        offset: u64,
        reason: &'static str,
    },
    #[error("dynamic entry at offset {offset:#x}: {name} = {value:#x}: {reason}")]
    BadDynamicValue {
        name: &'static str,
        value: u64,
        offset: u64,
        reason: String,
    },
    #[error("dynamic table at offset {offset:#x} has no DT_NULL terminator")]
    UnterminatedDynamic { offset: u64 },
    #[error("ambiguous table convention: both {sce} (offsets into PT_SCE_DYNLIBDATA) and {standard} (addresses) are present")]
    AmbiguousTables {
        sce: &'static str,
        standard: &'static str,
    },
    #[error("{what} ({start:#x}+{len:#x}) lies outside {place}")]
    TableOutOfBounds {
        what: &'static str,
        start: u64,
        len: u64,
        place: &'static str,
    },
    #[error("{what} is present without {missing}")]
    MissingTag {
        what: &'static str,
        missing: &'static str,
    },
    #[error("string at offset {offset:#x} of the string table: {reason}")]
    BadString { offset: u64, reason: &'static str },
    #[error("symbol {index} ({name}): {reason}")]
    BadSymbol {
        index: usize,
        name: String,
        reason: String,
    },
    #[error(
        "relocation {index} of {table} at offset {offset:#x}: type {ty} ({name}) is not supported"
    )]
    UnsupportedRelocation {
        table: &'static str,
        index: usize,
        offset: u64,
        ty: u32,
        name: &'static str,
    },
    #[error("relocation {index} of {table} at offset {offset:#x}: {reason}")]
    BadRelocation {
        table: &'static str,
        index: usize,
        offset: u64,
        reason: String,
    },
}

/// What binding and writing refuse.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LinkError {
    #[error("{path}: {source}")]
    Read { path: String, source: ReadError },
    #[error("{count} unresolved import(s):\n{list}")]
    Unresolved {
        count: usize,
        list: String,
        imports: Vec<(String, Option<String>, String, String)>,
    },
    #[error("NID {nid}{} is exported by more than one library: {} (the Linux loader would bind the first; pass --skip-module for a shipped module the native libraries replace)", known.as_deref().map(|n| format!(" ({n})")).unwrap_or_default(), libraries.join(", "))]
    DuplicateExport {
        nid: String,
        known: Option<String>,
        libraries: Vec<String>,
    },
    #[error("{count} instruction(s) that cannot run natively in {module}:\n{list}")]
    NonNative {
        module: String,
        count: usize,
        list: String,
    },
    #[error("relocation at {offset:#x} refers to imported TLS symbol {nid}: native libraries export no TLS data")]
    TlsImport { offset: u64, nid: String },
    #[error("relocation at {offset:#x} ({name}) in {module}: {reason}")]
    BadRelocation {
        module: String,
        offset: u64,
        name: &'static str,
        reason: String,
    },
    #[error("native library {path}: {reason}")]
    NativeLibrary { path: String, reason: String },
    #[error("{what} needs the native runtime symbol {symbol}, which no native library exports")]
    MissingRuntime {
        what: &'static str,
        symbol: &'static str,
    },
    #[error("layout: {0}")]
    Layout(String),
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
}
