//! The constants of the PS4/PS5 file formats, each with its source.
//!
//! Sources (read at these commits):
//! - shadPS4: repository `shadps4-emu/shadPS4`, commit `0aea6ef36f6202104bdb7777cf5682333991d185`:
//!   `src/core/loader/elf.h` (ELF types, SCE program header types, `DT_SCE_*` tags, relocation types,
//!   `self_header` and `self_segment_header` with their flag bits), `src/core/module.cpp`
//!   (`LoadDynamicInfo`: the `DT_SCE_*` values are offsets into `PT_SCE_DYNLIBDATA`; `PT_DYNAMIC` and
//!   `PT_SCE_DYNLIBDATA` are read from the file, not the loaded image; `EncodeId`; `Module::Start`
//!   calling `DT_INIT` as `int(size_t args, const void* argp, void* param)`), `src/core/module.h`
//!   (`ModuleInfo` = `{u32 name_offset; u8 version_minor; u8 version_major; u16 id}`, `LibraryInfo` =
//!   `{u32 name_offset; u16 version; u16 id}`), `src/core/linker.cpp` (`Relocate`: local symbols,
//!   symbol 0 included, are base-relative; `GLOB_DAT`/`JUMP_SLOT` drop the addend; `RunMainEntry`:
//!   `entry(EntryParams*, exit_func)`), `src/core/linker.h` (`EntryParams` = `{int argc; u32 padding;
//!   const char* argv[33]; u64 entry_addr}`), `src/core/loader/elf.cpp` (a SELF's ELF header follows
//!   its segment table; a blocked segment carries the bytes of program header `(flags >> 20) & 0xfff`),
//!   `src/core/loader/symbols_resolver.cpp` (shadPS4 resolves an import by `NID#library#version#module#type`;
//!   the relinker binds by NID alone and refuses a NID that two native libraries export, see `link`).
//! - KytyPS5: repository `KytyPS5/KytyPS5`, commit `0d92ce49da6e27fcca35c2fa19b7440d86d637ed`:
//!   `src/loader/elf.h` (`DT_OS_*_1` = the PS5 tags 0x61000041..0x61000049, `DT_OS_EXPORT_LIB_ATTR`
//!   0x61000017, `R_X86_64_TPOFF64` 18, `SelfHeader`/`SelfSegment`), `src/loader/elf.cpp` (`IsSelf`:
//!   the PS4 SELF magic `4F 15 3D 1D` and the PS5 magic `54 14 F5 EE`).
//! - The System V x86-64 psABI for the relocation numbers not in those files (`R_X86_64_DTPOFF64` 17 and
//!   the refused ones) and the generic ELF `DT_*` numbers.

/// `ET_SCE_EXEC` (shadPS4 elf.h).
pub const ET_SCE_EXEC: u16 = 0xfe00;
/// `ET_SCE_STUBLIB` (shadPS4 elf.h): a stub library, not loadable; refused.
pub const ET_SCE_STUBLIB: u16 = 0xfe0c;
/// `ET_SCE_DYNEXEC` (shadPS4 elf.h).
pub const ET_SCE_DYNEXEC: u16 = 0xfe10;
/// `ET_SCE_DYNAMIC` (shadPS4 elf.h): a module (`.prx`/`.sprx`).
pub const ET_SCE_DYNAMIC: u16 = 0xfe18;

pub const EM_X86_64: u16 = 0x3e;

pub const PT_NULL: u32 = 0;
pub const PT_LOAD: u32 = 1;
pub const PT_DYNAMIC: u32 = 2;
pub const PT_INTERP: u32 = 3;
pub const PT_NOTE: u32 = 4;
pub const PT_PHDR: u32 = 6;
pub const PT_TLS: u32 = 7;
/// `PT_SCE_RELA` (shadPS4 elf.h).
pub const PT_SCE_RELA: u32 = 0x6000_0000;
/// `PT_SCE_DYNLIBDATA` (shadPS4 elf.h).
pub const PT_SCE_DYNLIBDATA: u32 = 0x6100_0000;
/// `PT_SCE_PROCPARAM` (shadPS4 elf.h).
pub const PT_SCE_PROCPARAM: u32 = 0x6100_0001;
/// `PT_SCE_MODULE_PARAM` (shadPS4 elf.h).
pub const PT_SCE_MODULE_PARAM: u32 = 0x6100_0002;
/// `PT_SCE_RELRO` (shadPS4 elf.h; loaded like `PT_LOAD`, `CalculateBaseSize` in module.cpp).
pub const PT_SCE_RELRO: u32 = 0x6100_0010;
pub const PT_GNU_EH_FRAME: u32 = 0x6474_e550;
pub const PT_GNU_STACK: u32 = 0x6474_e551;
pub const PT_GNU_RELRO: u32 = 0x6474_e552;
/// `PT_SCE_COMMENT` (shadPS4 elf.h).
pub const PT_SCE_COMMENT: u32 = 0x6fff_ff00;
/// `PT_SCE_LIBVERSION` (shadPS4 elf.h).
pub const PT_SCE_LIBVERSION: u32 = 0x6fff_ff01;

pub const PF_X: u32 = 1;
pub const PF_W: u32 = 2;
pub const PF_R: u32 = 4;

// Standard dynamic tags (generic ELF; the ones shadPS4 elf.h lists carry the same numbers there).
pub const DT_NULL: i64 = 0;
pub const DT_NEEDED: i64 = 1;
pub const DT_PLTRELSZ: i64 = 2;
pub const DT_PLTGOT: i64 = 3;
pub const DT_HASH: i64 = 4;
pub const DT_STRTAB: i64 = 5;
pub const DT_SYMTAB: i64 = 6;
pub const DT_RELA: i64 = 7;
pub const DT_RELASZ: i64 = 8;
pub const DT_RELAENT: i64 = 9;
pub const DT_STRSZ: i64 = 10;
pub const DT_SYMENT: i64 = 11;
pub const DT_INIT: i64 = 12;
pub const DT_FINI: i64 = 13;
pub const DT_SONAME: i64 = 14;
pub const DT_RPATH: i64 = 15;
pub const DT_SYMBOLIC: i64 = 16;
pub const DT_REL: i64 = 17;
pub const DT_RELSZ: i64 = 18;
pub const DT_RELENT: i64 = 19;
pub const DT_PLTREL: i64 = 20;
pub const DT_DEBUG: i64 = 21;
pub const DT_TEXTREL: i64 = 22;
pub const DT_JMPREL: i64 = 23;
pub const DT_BIND_NOW: i64 = 24;
pub const DT_INIT_ARRAY: i64 = 25;
pub const DT_FINI_ARRAY: i64 = 26;
pub const DT_INIT_ARRAYSZ: i64 = 27;
pub const DT_FINI_ARRAYSZ: i64 = 28;
pub const DT_RUNPATH: i64 = 29;
pub const DT_FLAGS: i64 = 30;
pub const DT_PREINIT_ARRAY: i64 = 32;
pub const DT_PREINIT_ARRAYSZ: i64 = 33;
pub const DT_GNU_HASH: i64 = 0x6fff_fef5;
pub const DT_RELACOUNT: i64 = 0x6fff_fff9;
pub const DT_FLAGS_1: i64 = 0x6fff_fffb;

// SCE dynamic tags (shadPS4 elf.h; the `_1` ones and EXPORT_LIB_ATTR from KytyPS5 src/loader/elf.h).
pub const DT_SCE_FINGERPRINT: i64 = 0x6100_0007;
pub const DT_SCE_ORIGINAL_FILENAME: i64 = 0x6100_0009;
pub const DT_SCE_MODULE_INFO: i64 = 0x6100_000d;
pub const DT_SCE_NEEDED_MODULE: i64 = 0x6100_000f;
pub const DT_SCE_MODULE_ATTR: i64 = 0x6100_0011;
pub const DT_SCE_EXPORT_LIB: i64 = 0x6100_0013;
pub const DT_SCE_IMPORT_LIB: i64 = 0x6100_0015;
pub const DT_SCE_EXPORT_LIB_ATTR: i64 = 0x6100_0017;
pub const DT_SCE_IMPORT_LIB_ATTR: i64 = 0x6100_0019;
pub const DT_SCE_HASH: i64 = 0x6100_0025;
pub const DT_SCE_PLTGOT: i64 = 0x6100_0027;
pub const DT_SCE_JMPREL: i64 = 0x6100_0029;
pub const DT_SCE_PLTREL: i64 = 0x6100_002b;
pub const DT_SCE_PLTRELSZ: i64 = 0x6100_002d;
pub const DT_SCE_RELA: i64 = 0x6100_002f;
pub const DT_SCE_RELASZ: i64 = 0x6100_0031;
pub const DT_SCE_RELAENT: i64 = 0x6100_0033;
pub const DT_SCE_STRTAB: i64 = 0x6100_0035;
pub const DT_SCE_STRSZ: i64 = 0x6100_0037;
pub const DT_SCE_SYMTAB: i64 = 0x6100_0039;
pub const DT_SCE_SYMENT: i64 = 0x6100_003b;
pub const DT_SCE_HASHSZ: i64 = 0x6100_003d;
pub const DT_SCE_SYMTABSZ: i64 = 0x6100_003f;
/// PS5: `DT_OS_ORIGINAL_FILENAME_1` (KytyPS5 elf.h).
pub const DT_SCE_ORIGINAL_FILENAME_1: i64 = 0x6100_0041;
/// PS5: `DT_OS_MODULE_INFO_1` (KytyPS5 elf.h).
pub const DT_SCE_MODULE_INFO_1: i64 = 0x6100_0043;
/// PS5: `DT_OS_NEEDED_MODULE_1` (KytyPS5 elf.h).
pub const DT_SCE_NEEDED_MODULE_1: i64 = 0x6100_0045;
/// PS5: `DT_OS_EXPORT_LIB_1` (KytyPS5 elf.h).
pub const DT_SCE_EXPORT_LIB_1: i64 = 0x6100_0047;
/// PS5: `DT_OS_IMPORT_LIB_1` (KytyPS5 elf.h).
pub const DT_SCE_IMPORT_LIB_1: i64 = 0x6100_0049;

/// Every dynamic tag the reader accepts, with its name (for `relink inspect`).
pub const ACCEPTED_TAGS: &[(i64, &str)] = &[
    (DT_NULL, "DT_NULL"),
    (DT_NEEDED, "DT_NEEDED"),
    (DT_PLTRELSZ, "DT_PLTRELSZ"),
    (DT_PLTGOT, "DT_PLTGOT"),
    (DT_HASH, "DT_HASH"),
    (DT_STRTAB, "DT_STRTAB"),
    (DT_SYMTAB, "DT_SYMTAB"),
    (DT_RELA, "DT_RELA"),
    (DT_RELASZ, "DT_RELASZ"),
    (DT_RELAENT, "DT_RELAENT"),
    (DT_STRSZ, "DT_STRSZ"),
    (DT_SYMENT, "DT_SYMENT"),
    (DT_INIT, "DT_INIT"),
    (DT_FINI, "DT_FINI"),
    (DT_SONAME, "DT_SONAME"),
    (DT_PLTREL, "DT_PLTREL"),
    (DT_DEBUG, "DT_DEBUG"),
    (DT_TEXTREL, "DT_TEXTREL"),
    (DT_JMPREL, "DT_JMPREL"),
    (DT_BIND_NOW, "DT_BIND_NOW"),
    (DT_INIT_ARRAY, "DT_INIT_ARRAY"),
    (DT_FINI_ARRAY, "DT_FINI_ARRAY"),
    (DT_INIT_ARRAYSZ, "DT_INIT_ARRAYSZ"),
    (DT_FINI_ARRAYSZ, "DT_FINI_ARRAYSZ"),
    (DT_FLAGS, "DT_FLAGS"),
    (DT_PREINIT_ARRAY, "DT_PREINIT_ARRAY"),
    (DT_PREINIT_ARRAYSZ, "DT_PREINIT_ARRAYSZ"),
    (DT_RELACOUNT, "DT_RELACOUNT"),
    (DT_FLAGS_1, "DT_FLAGS_1"),
    (DT_SCE_FINGERPRINT, "DT_SCE_FINGERPRINT"),
    (DT_SCE_ORIGINAL_FILENAME, "DT_SCE_ORIGINAL_FILENAME"),
    (DT_SCE_MODULE_INFO, "DT_SCE_MODULE_INFO"),
    (DT_SCE_NEEDED_MODULE, "DT_SCE_NEEDED_MODULE"),
    (DT_SCE_MODULE_ATTR, "DT_SCE_MODULE_ATTR"),
    (DT_SCE_EXPORT_LIB, "DT_SCE_EXPORT_LIB"),
    (DT_SCE_IMPORT_LIB, "DT_SCE_IMPORT_LIB"),
    (DT_SCE_EXPORT_LIB_ATTR, "DT_SCE_EXPORT_LIB_ATTR"),
    (DT_SCE_IMPORT_LIB_ATTR, "DT_SCE_IMPORT_LIB_ATTR"),
    (DT_SCE_HASH, "DT_SCE_HASH"),
    (DT_SCE_PLTGOT, "DT_SCE_PLTGOT"),
    (DT_SCE_JMPREL, "DT_SCE_JMPREL"),
    (DT_SCE_PLTREL, "DT_SCE_PLTREL"),
    (DT_SCE_PLTRELSZ, "DT_SCE_PLTRELSZ"),
    (DT_SCE_RELA, "DT_SCE_RELA"),
    (DT_SCE_RELASZ, "DT_SCE_RELASZ"),
    (DT_SCE_RELAENT, "DT_SCE_RELAENT"),
    (DT_SCE_STRTAB, "DT_SCE_STRTAB"),
    (DT_SCE_STRSZ, "DT_SCE_STRSZ"),
    (DT_SCE_SYMTAB, "DT_SCE_SYMTAB"),
    (DT_SCE_SYMENT, "DT_SCE_SYMENT"),
    (DT_SCE_HASHSZ, "DT_SCE_HASHSZ"),
    (DT_SCE_SYMTABSZ, "DT_SCE_SYMTABSZ"),
    (DT_SCE_ORIGINAL_FILENAME_1, "DT_SCE_ORIGINAL_FILENAME_1"),
    (DT_SCE_MODULE_INFO_1, "DT_SCE_MODULE_INFO_1"),
    (DT_SCE_NEEDED_MODULE_1, "DT_SCE_NEEDED_MODULE_1"),
    (DT_SCE_EXPORT_LIB_1, "DT_SCE_EXPORT_LIB_1"),
    (DT_SCE_IMPORT_LIB_1, "DT_SCE_IMPORT_LIB_1"),
];

/// Dynamic tags that are recognised and refused, each with the reason (a typed error names it).
pub const REFUSED_TAGS: &[(i64, &str, &str)] = &[
    (
        DT_REL,
        "DT_REL",
        "REL relocations without addends are not used by the PS4/PS5 toolchain",
    ),
    (
        DT_RELSZ,
        "DT_RELSZ",
        "REL relocations without addends are not used by the PS4/PS5 toolchain",
    ),
    (
        DT_RELENT,
        "DT_RELENT",
        "REL relocations without addends are not used by the PS4/PS5 toolchain",
    ),
    (
        DT_RPATH,
        "DT_RPATH",
        "a library search path has no meaning for PS modules",
    ),
    (
        DT_RUNPATH,
        "DT_RUNPATH",
        "a library search path has no meaning for PS modules",
    ),
    (
        DT_SYMBOLIC,
        "DT_SYMBOLIC",
        "symbolic binding is not part of the PS module format",
    ),
    (
        DT_GNU_HASH,
        "DT_GNU_HASH",
        "a GNU hash table is not part of the PS module format",
    ),
];

/// The name of a dynamic tag, accepted or refused.
pub fn tag_name(tag: i64) -> Option<&'static str> {
    ACCEPTED_TAGS
        .iter()
        .find(|(t, _)| *t == tag)
        .map(|(_, n)| *n)
        .or_else(|| {
            REFUSED_TAGS
                .iter()
                .find(|(t, _, _)| *t == tag)
                .map(|(_, n, _)| *n)
        })
}

/// The name of a program header type.
pub fn phdr_type_name(t: u32) -> &'static str {
    match t {
        PT_NULL => "PT_NULL",
        PT_LOAD => "PT_LOAD",
        PT_DYNAMIC => "PT_DYNAMIC",
        PT_INTERP => "PT_INTERP",
        PT_NOTE => "PT_NOTE",
        PT_PHDR => "PT_PHDR",
        PT_TLS => "PT_TLS",
        PT_SCE_RELA => "PT_SCE_RELA",
        PT_SCE_DYNLIBDATA => "PT_SCE_DYNLIBDATA",
        PT_SCE_PROCPARAM => "PT_SCE_PROCPARAM",
        PT_SCE_MODULE_PARAM => "PT_SCE_MODULE_PARAM",
        PT_SCE_RELRO => "PT_SCE_RELRO",
        PT_GNU_EH_FRAME => "PT_GNU_EH_FRAME",
        PT_GNU_STACK => "PT_GNU_STACK",
        PT_GNU_RELRO => "PT_GNU_RELRO",
        PT_SCE_COMMENT => "PT_SCE_COMMENT",
        PT_SCE_LIBVERSION => "PT_SCE_LIBVERSION",
        _ => "unknown",
    }
}

// Relocation types (shadPS4 elf.h for 1, 6, 7, 8, 16; KytyPS5 elf.h for 18; psABI for the rest).
pub const R_X86_64_NONE: u32 = 0;
pub const R_X86_64_64: u32 = 1;
pub const R_X86_64_PC32: u32 = 2;
pub const R_X86_64_COPY: u32 = 5;
pub const R_X86_64_GLOB_DAT: u32 = 6;
pub const R_X86_64_JUMP_SLOT: u32 = 7;
pub const R_X86_64_RELATIVE: u32 = 8;
pub const R_X86_64_DTPMOD64: u32 = 16;
pub const R_X86_64_DTPOFF64: u32 = 17;
pub const R_X86_64_TPOFF64: u32 = 18;
pub const R_X86_64_IRELATIVE: u32 = 37;

/// Every relocation type the reader accepts.
pub const ACCEPTED_RELOCS: &[(u32, &str)] = &[
    (R_X86_64_NONE, "R_X86_64_NONE"),
    (R_X86_64_64, "R_X86_64_64"),
    (R_X86_64_GLOB_DAT, "R_X86_64_GLOB_DAT"),
    (R_X86_64_JUMP_SLOT, "R_X86_64_JUMP_SLOT"),
    (R_X86_64_RELATIVE, "R_X86_64_RELATIVE"),
    (R_X86_64_DTPMOD64, "R_X86_64_DTPMOD64"),
    (R_X86_64_DTPOFF64, "R_X86_64_DTPOFF64"),
    (R_X86_64_TPOFF64, "R_X86_64_TPOFF64"),
];

/// The name of a relocation type, where known.
pub fn reloc_name(t: u32) -> &'static str {
    if let Some((_, n)) = ACCEPTED_RELOCS.iter().find(|(v, _)| *v == t) {
        return n;
    }
    match t {
        R_X86_64_PC32 => "R_X86_64_PC32",
        3 => "R_X86_64_GOT32",
        4 => "R_X86_64_PLT32",
        R_X86_64_COPY => "R_X86_64_COPY",
        9 => "R_X86_64_GOTPCREL",
        10 => "R_X86_64_32",
        11 => "R_X86_64_32S",
        12 => "R_X86_64_16",
        13 => "R_X86_64_PC16",
        14 => "R_X86_64_8",
        15 => "R_X86_64_PC8",
        19 => "R_X86_64_TLSGD",
        20 => "R_X86_64_TLSLD",
        21 => "R_X86_64_DTPOFF32",
        22 => "R_X86_64_GOTTPOFF",
        23 => "R_X86_64_TPOFF32",
        24 => "R_X86_64_PC64",
        R_X86_64_IRELATIVE => "R_X86_64_IRELATIVE",
        _ => "unknown",
    }
}

pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const STB_WEAK: u8 = 2;
pub const STT_NOTYPE: u8 = 0;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;
pub const STT_SECTION: u8 = 3;
pub const STT_TLS: u8 = 6;
/// `STT_SCE` (shadPS4 elf.h: `module_start`/`module_stop`).
pub const STT_SCE: u8 = 11;
pub const SHN_UNDEF: u16 = 0;

/// SELF magic of PS4 files, as bytes (shadPS4 elf.h `self_header::signature` 0x1D3D154F read
/// little-endian; KytyPS5 elf.cpp `IsSelf`).
pub const SELF_MAGIC_PS4: [u8; 4] = [0x4f, 0x15, 0x3d, 0x1d];
/// SELF magic of PS5 files (KytyPS5 elf.cpp `IsSelf`).
pub const SELF_MAGIC_PS5: [u8; 4] = [0x54, 0x14, 0xf5, 0xee];
/// Size of the SELF header (shadPS4 `self_header`, KytyPS5 `SelfHeader`).
pub const SELF_HEADER_SIZE: usize = 32;
/// Size of one SELF segment entry (`self_segment_header`: flags, file_offset, file_size, memory_size).
pub const SELF_SEGMENT_SIZE: usize = 32;
/// Segment flag bits (shadPS4 elf.h `self_segment_header`).
pub const SELF_SEG_ORDERED: u64 = 0x1;
pub const SELF_SEG_ENCRYPTED: u64 = 0x2;
pub const SELF_SEG_SIGNED: u64 = 0x4;
pub const SELF_SEG_COMPRESSED: u64 = 0x8;
pub const SELF_SEG_BLOCKED: u64 = 0x800;

/// `EntryParams` (shadPS4 linker.h): `{int argc; u32 padding; const char* argv[33]; u64 entry_addr}`.
pub const ENTRY_PARAMS_ARGV: usize = 33;
