//! The reader of PS4/PS5 executables and modules (ELF and SELF containers).
//!
//! The ELF header and program headers are parsed by `goblin`; the SCE structures (dynamic table,
//! `PT_SCE_DYNLIBDATA`, symbol names `NID#LIB#MOD`, module and library descriptors) are read here with
//! bounds-checked accessors. Every constant is in [`crate::sce`] with its source.

use crate::error::ReadError;
use crate::nid;
use crate::sce::*;
use goblin::container::{Container, Ctx, Endian};
use goblin::elf::program_header::ProgramHeader;

/// Which container the ELF came in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerKind {
    Elf,
    /// A SELF; `ps5` by its magic. The segments are those of its segment table.
    SelfFile {
        ps5: bool,
        segments: Vec<SelfSegment>,
    },
}

/// One entry of a SELF segment table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfSegment {
    pub flags: u64,
    pub offset: u64,
    pub file_size: u64,
    pub memory_size: u64,
}

impl SelfSegment {
    pub fn blocked(&self) -> bool {
        self.flags & SELF_SEG_BLOCKED != 0
    }
    pub fn phdr_id(&self) -> usize {
        ((self.flags >> 20) & 0xfff) as usize
    }
    pub fn encrypted(&self) -> bool {
        self.flags & SELF_SEG_ENCRYPTED != 0
    }
    pub fn compressed(&self) -> bool {
        self.flags & SELF_SEG_COMPRESSED != 0
    }
}

/// The ELF type of a PS file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FileKind {
    /// `ET_SCE_EXEC`: an executable at a fixed address.
    Exec,
    /// `ET_SCE_DYNEXEC`: a position-independent executable.
    DynExec,
    /// `ET_SCE_DYNAMIC`: a module (`.prx`).
    Dynamic,
}

impl FileKind {
    pub fn is_executable(self) -> bool {
        !matches!(self, FileKind::Dynamic)
    }
}

/// Which convention the dynamic table uses for its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TableConvention {
    /// `DT_SCE_*` values are offsets into `PT_SCE_DYNLIBDATA`.
    Sce,
    /// Standard `DT_*` values are addresses in the loaded image.
    Standard,
    /// No tables at all.
    None,
}

/// A program header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phdr {
    pub index: usize,
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

/// A loaded segment (`PT_LOAD` or `PT_SCE_RELRO`) with its file bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub phdr: usize,
    pub vaddr: u64,
    pub memsz: u64,
    pub flags: u32,
    pub align: u64,
    pub relro: bool,
    pub data: Vec<u8>,
}

/// The TLS template (`PT_TLS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

/// One dynamic entry as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynEntry {
    pub tag: i64,
    pub value: u64,
    /// File offset of the entry.
    pub offset: u64,
}

/// A module descriptor `{u32 name_offset; u8 version_minor; u8 version_major; u16 id}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModuleDesc {
    pub name: String,
    pub version_major: u8,
    pub version_minor: u8,
    pub id: u16,
}

/// A library descriptor `{u32 name_offset; u16 version; u16 id}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LibraryDesc {
    pub name: String,
    pub version: u16,
    pub id: u16,
}

/// A symbol of the dynamic symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub index: usize,
    /// The name as stored, e.g. `bt3CTBKmGyI#C#A`.
    pub raw_name: String,
    /// The NID part (for a name without `#`, the NID of the name).
    pub nid: String,
    /// The plain name, where the stored name was one (no `#`).
    pub plain_name: Option<String>,
    /// The library the symbol belongs to (import library if undefined, export library if defined).
    pub library: Option<String>,
    /// The module the symbol belongs to.
    pub module: Option<String>,
    pub value: u64,
    pub size: u64,
    pub bind: u8,
    pub sym_type: u8,
    pub other: u8,
    pub shndx: u16,
}

impl Symbol {
    /// Defined here (shadPS4 `LoadSymbols`: an export has `st_value != 0`; an index other than
    /// `SHN_UNDEF` counts too).
    pub fn is_defined(&self) -> bool {
        self.value != 0 || self.shndx != SHN_UNDEF
    }
}

/// A relocation with addend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    /// Which table: false = `DT_*RELA`, true = `DT_*JMPREL`.
    pub plt: bool,
    pub index: usize,
    pub offset: u64,
    pub ty: u32,
    pub sym: u32,
    pub addend: i64,
}

/// A whole PS4/PS5 file as read.
#[derive(Debug, Clone)]
pub struct PsFile {
    pub container: ContainerKind,
    pub kind: FileKind,
    pub e_type: u16,
    pub osabi: u8,
    pub abiversion: u8,
    pub entry: u64,
    pub phdrs: Vec<Phdr>,
    pub segments: Vec<Segment>,
    pub tls: Option<Tls>,
    pub proc_param: Option<(u64, u64)>,
    pub module_param: Option<(u64, u64)>,
    pub eh_frame_hdr: Option<(u64, u64)>,
    pub comment: Option<Vec<u8>>,
    pub libversion: Option<Vec<u8>>,
    pub sce_rela: Option<(u64, u64)>,
    pub dynamic: Vec<DynEntry>,
    pub convention: TableConvention,
    pub needed: Vec<String>,
    pub soname: Option<String>,
    pub original_filename: Option<String>,
    pub fingerprint: Option<Vec<u8>>,
    pub module_info: Option<ModuleDesc>,
    pub needed_modules: Vec<ModuleDesc>,
    pub export_libs: Vec<LibraryDesc>,
    pub import_libs: Vec<LibraryDesc>,
    pub module_attr: Option<u64>,
    pub export_lib_attrs: Vec<u64>,
    pub import_lib_attrs: Vec<u64>,
    pub init: Option<u64>,
    pub fini: Option<u64>,
    pub init_array: Option<(u64, u64)>,
    pub fini_array: Option<(u64, u64)>,
    pub preinit_array: Option<(u64, u64)>,
    pub pltgot: Option<u64>,
    pub flags: Option<u64>,
    pub flags_1: Option<u64>,
    pub textrel: bool,
    pub hash: Option<(u64, u64)>,
    pub symbols: Vec<Symbol>,
    pub relocs: Vec<Reloc>,
}

fn rd<const N: usize>(b: &[u8], off: u64, what: &'static str) -> Result<[u8; N], ReadError> {
    let start = usize::try_from(off).ok();
    start
        .and_then(|s| s.checked_add(N).map(|e| (s, e)))
        .and_then(|(s, e)| b.get(s..e))
        .map(|s| s.try_into().expect("N bytes"))
        .ok_or(ReadError::Truncated {
            what,
            offset: off,
            len: b.len() as u64,
        })
}
fn u16_at(b: &[u8], off: u64, what: &'static str) -> Result<u16, ReadError> {
    rd::<2>(b, off, what).map(u16::from_le_bytes)
}
fn u32_at(b: &[u8], off: u64, what: &'static str) -> Result<u32, ReadError> {
    rd::<4>(b, off, what).map(u32::from_le_bytes)
}
fn u64_at(b: &[u8], off: u64, what: &'static str) -> Result<u64, ReadError> {
    rd::<8>(b, off, what).map(u64::from_le_bytes)
}

/// The file's bytes, addressed by ELF file offsets (through the SELF segment table where there is one).
struct Source<'a> {
    bytes: &'a [u8],
    /// Offset of the ELF header in `bytes`.
    elf_at: u64,
    selfs: Option<&'a [SelfSegment]>,
}

impl Source<'_> {
    /// The bytes of ELF file range `[offset, offset + len)`, for program header `phdr` where known.
    fn range(&self, offset: u64, len: u64, phdrs: &[Phdr]) -> Result<Vec<u8>, ReadError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let end = offset.checked_add(len).ok_or(ReadError::TableOutOfBounds {
            what: "file range",
            start: offset,
            len,
            place: "the address space",
        })?;
        match self.selfs {
            None => {
                let s = self.elf_at.checked_add(offset);
                let e = self.elf_at.checked_add(end);
                match (s, e) {
                    (Some(s), Some(e)) if e <= self.bytes.len() as u64 => {
                        Ok(self.bytes[s as usize..e as usize].to_vec())
                    }
                    _ => Err(ReadError::Truncated {
                        what: "segment data",
                        offset,
                        len: self.bytes.len() as u64,
                    }),
                }
            }
            Some(segs) => {
                for (si, seg) in segs.iter().enumerate() {
                    if !seg.blocked() {
                        continue;
                    }
                    let Some(ph) = phdrs.get(seg.phdr_id()) else {
                        continue;
                    };
                    let ph_end = ph.offset.saturating_add(ph.filesz);
                    if offset >= ph.offset && end <= ph_end {
                        if seg.encrypted() {
                            return Err(ReadError::EncryptedSegment {
                                segment: si,
                                phdr: ph.index,
                            });
                        }
                        if seg.compressed() {
                            return Err(ReadError::CompressedSegment {
                                segment: si,
                                phdr: ph.index,
                            });
                        }
                        let rel = offset - ph.offset;
                        if end - ph.offset > seg.file_size {
                            return Err(ReadError::MissingSelfSegment { offset, len });
                        }
                        let s = seg.offset.checked_add(rel);
                        let e = s.and_then(|s| s.checked_add(len));
                        return match (s, e) {
                            (Some(s), Some(e)) if e <= self.bytes.len() as u64 => {
                                Ok(self.bytes[s as usize..e as usize].to_vec())
                            }
                            _ => Err(ReadError::Truncated {
                                what: "SELF segment data",
                                offset: seg.offset,
                                len: self.bytes.len() as u64,
                            }),
                        };
                    }
                }
                Err(ReadError::MissingSelfSegment { offset, len })
            }
        }
    }
}

/// Whether the bytes start like a file this reader handles (ELF or SELF magic).
pub fn has_known_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
        || bytes.starts_with(&SELF_MAGIC_PS4)
        || bytes.starts_with(&SELF_MAGIC_PS5)
}

/// Read a PS4/PS5 ELF or SELF file.
pub fn read(bytes: &[u8]) -> Result<PsFile, ReadError> {
    let head: Vec<u8> = bytes.iter().take(4).copied().collect();
    let (container, elf_at) =
        if bytes.starts_with(&SELF_MAGIC_PS4) || bytes.starts_with(&SELF_MAGIC_PS5) {
            let ps5 = bytes.starts_with(&SELF_MAGIC_PS5);
            let count = u16_at(bytes, 24, "SELF header")? as u64;
            let mut segments = Vec::with_capacity(count as usize);
            for i in 0..count {
                let at = SELF_HEADER_SIZE as u64 + i * SELF_SEGMENT_SIZE as u64;
                segments.push(SelfSegment {
                    flags: u64_at(bytes, at, "SELF segment table")?,
                    offset: u64_at(bytes, at + 8, "SELF segment table")?,
                    file_size: u64_at(bytes, at + 16, "SELF segment table")?,
                    memory_size: u64_at(bytes, at + 24, "SELF segment table")?,
                });
            }
            let elf_at = SELF_HEADER_SIZE as u64 + count * SELF_SEGMENT_SIZE as u64;
            (ContainerKind::SelfFile { ps5, segments }, elf_at)
        } else if bytes.starts_with(b"\x7fELF") {
            (ContainerKind::Elf, 0)
        } else {
            return Err(ReadError::BadMagic { magic: head });
        };
    let Some(elf) = bytes.get(elf_at as usize..) else {
        return Err(ReadError::Truncated {
            what: "ELF header after the SELF segment table",
            offset: elf_at,
            len: bytes.len() as u64,
        });
    };
    if elf.len() < 64 {
        return Err(ReadError::Truncated {
            what: "ELF header",
            offset: elf_at,
            len: bytes.len() as u64,
        });
    }
    if &elf[..4] != b"\x7fELF" {
        return Err(ReadError::BadHeader {
            offset: elf_at,
            reason: "no ELF magic after the SELF segment table".into(),
        });
    }
    let header = goblin::elf::Elf::parse_header(elf).map_err(|e| ReadError::BadHeader {
        offset: elf_at,
        reason: e.to_string(),
    })?;
    if header.e_ident[4] != 2 {
        return Err(ReadError::BadHeader {
            offset: elf_at,
            reason: "not ELFCLASS64".into(),
        });
    }
    if header.e_ident[5] != 1 {
        return Err(ReadError::BadHeader {
            offset: elf_at,
            reason: "not little-endian".into(),
        });
    }
    if header.e_machine != EM_X86_64 {
        return Err(ReadError::BadHeader {
            offset: elf_at,
            reason: format!("e_machine {:#x} is not x86-64", header.e_machine),
        });
    }
    let kind = match header.e_type {
        ET_SCE_EXEC => FileKind::Exec,
        ET_SCE_DYNEXEC => FileKind::DynExec,
        ET_SCE_DYNAMIC => FileKind::Dynamic,
        other => return Err(ReadError::UnsupportedType { e_type: other }),
    };
    if header.e_phnum > 0 && header.e_phentsize != 56 {
        return Err(ReadError::BadHeader {
            offset: elf_at,
            reason: format!("e_phentsize {} is not 56", header.e_phentsize),
        });
    }
    let phnum = header.e_phnum as u64;
    let ph_end = header.e_phoff.checked_add(phnum * 56);
    if ph_end.is_none_or(|e| e > elf.len() as u64) {
        return Err(ReadError::Truncated {
            what: "program headers",
            offset: elf_at.saturating_add(header.e_phoff),
            len: bytes.len() as u64,
        });
    }
    let ctx = Ctx::new(Container::Big, Endian::Little);
    let raw =
        ProgramHeader::parse(elf, header.e_phoff as usize, phnum as usize, ctx).map_err(|e| {
            ReadError::BadHeader {
                offset: elf_at + header.e_phoff,
                reason: e.to_string(),
            }
        })?;
    let phdrs: Vec<Phdr> = raw
        .iter()
        .enumerate()
        .map(|(index, p)| Phdr {
            index,
            p_type: p.p_type,
            flags: p.p_flags,
            offset: p.p_offset,
            vaddr: p.p_vaddr,
            filesz: p.p_filesz,
            memsz: p.p_memsz,
            align: p.p_align,
        })
        .collect();
    let selfs = match &container {
        ContainerKind::SelfFile { segments, .. } => Some(segments.as_slice()),
        ContainerKind::Elf => None,
    };
    let src = Source {
        bytes,
        elf_at,
        selfs,
    };

    let mut file = PsFile {
        container: container.clone(),
        kind,
        e_type: header.e_type,
        osabi: header.e_ident[7],
        abiversion: header.e_ident[8],
        entry: header.e_entry,
        phdrs: phdrs.clone(),
        segments: Vec::new(),
        tls: None,
        proc_param: None,
        module_param: None,
        eh_frame_hdr: None,
        comment: None,
        libversion: None,
        sce_rela: None,
        dynamic: Vec::new(),
        convention: TableConvention::None,
        needed: Vec::new(),
        soname: None,
        original_filename: None,
        fingerprint: None,
        module_info: None,
        needed_modules: Vec::new(),
        export_libs: Vec::new(),
        import_libs: Vec::new(),
        module_attr: None,
        export_lib_attrs: Vec::new(),
        import_lib_attrs: Vec::new(),
        init: None,
        fini: None,
        init_array: None,
        fini_array: None,
        preinit_array: None,
        pltgot: None,
        flags: None,
        flags_1: None,
        textrel: false,
        hash: None,
        symbols: Vec::new(),
        relocs: Vec::new(),
    };

    let mut dynamic_ph: Option<usize> = None;
    let mut dynlib_ph: Option<usize> = None;
    let mut seen: Vec<(u32, usize)> = Vec::new();
    let mut once = |p: &Phdr, kind: &'static str| -> Result<(), ReadError> {
        if let Some((_, first)) = seen.iter().find(|(t, _)| *t == p.p_type) {
            return Err(ReadError::DuplicateProgramHeader {
                kind,
                first: *first,
                second: p.index,
            });
        }
        seen.push((p.p_type, p.index));
        Ok(())
    };
    for p in &phdrs {
        let name = phdr_type_name(p.p_type);
        if p.filesz > p.memsz && matches!(p.p_type, PT_LOAD | PT_SCE_RELRO | PT_TLS) {
            return Err(ReadError::BadProgramHeader {
                index: p.index,
                kind: name,
                reason: "p_filesz > p_memsz".into(),
            });
        }
        if p.vaddr.checked_add(p.memsz).is_none() || p.offset.checked_add(p.filesz).is_none() {
            return Err(ReadError::BadProgramHeader {
                index: p.index,
                kind: name,
                reason: "range overflows".into(),
            });
        }
        match p.p_type {
            PT_LOAD | PT_SCE_RELRO => {
                if p.align > 1 && (!p.align.is_power_of_two() || p.align > 1 << 30) {
                    return Err(ReadError::BadProgramHeader {
                        index: p.index,
                        kind: name,
                        reason: format!("p_align {:#x} is not a power of two up to 1 GiB", p.align),
                    });
                }
                if p.memsz > 1 << 36 {
                    return Err(ReadError::BadProgramHeader {
                        index: p.index,
                        kind: name,
                        reason: "p_memsz over 64 GiB".into(),
                    });
                }
                if p.memsz == 0 {
                    continue;
                }
                let data = src.range(p.offset, p.filesz, &phdrs)?;
                file.segments.push(Segment {
                    phdr: p.index,
                    vaddr: p.vaddr,
                    memsz: p.memsz,
                    flags: p.flags,
                    align: p.align.max(1),
                    relro: p.p_type == PT_SCE_RELRO,
                    data,
                });
            }
            PT_DYNAMIC => {
                once(p, "PT_DYNAMIC")?;
                dynamic_ph = Some(p.index);
            }
            PT_SCE_DYNLIBDATA => {
                once(p, "PT_SCE_DYNLIBDATA")?;
                dynlib_ph = Some(p.index);
            }
            PT_TLS => {
                once(p, "PT_TLS")?;
                if p.align > 1 && (!p.align.is_power_of_two() || p.align > 1 << 30) {
                    return Err(ReadError::BadProgramHeader {
                        index: p.index,
                        kind: name,
                        reason: "p_align is not a power of two".into(),
                    });
                }
                file.tls = Some(Tls {
                    vaddr: p.vaddr,
                    filesz: p.filesz,
                    memsz: p.memsz,
                    align: p.align.max(1),
                });
            }
            PT_SCE_PROCPARAM => {
                once(p, "PT_SCE_PROCPARAM")?;
                file.proc_param = Some((p.vaddr, p.memsz));
            }
            PT_SCE_MODULE_PARAM => {
                once(p, "PT_SCE_MODULE_PARAM")?;
                file.module_param = Some((p.vaddr, p.memsz));
            }
            PT_GNU_EH_FRAME => file.eh_frame_hdr = Some((p.vaddr, p.memsz)),
            PT_SCE_COMMENT => {
                once(p, "PT_SCE_COMMENT")?;
                file.comment = informational(
                    src.range(p.offset, p.filesz.min(1 << 20), &phdrs),
                    selfs.is_some(),
                )?;
            }
            PT_SCE_LIBVERSION => {
                once(p, "PT_SCE_LIBVERSION")?;
                file.libversion = informational(
                    src.range(p.offset, p.filesz.min(1 << 20), &phdrs),
                    selfs.is_some(),
                )?;
            }
            PT_SCE_RELA => {
                once(p, "PT_SCE_RELA")?;
                file.sce_rela = Some((p.offset, p.filesz));
            }
            PT_NULL | PT_INTERP | PT_NOTE | PT_PHDR | PT_GNU_STACK | PT_GNU_RELRO => {}
            other => {
                return Err(ReadError::BadProgramHeader {
                    index: p.index,
                    kind: "unknown",
                    reason: format!("program header type {other:#x} is not supported"),
                })
            }
        }
    }
    if file.segments.is_empty() {
        return Err(ReadError::MissingProgramHeader("PT_LOAD"));
    }
    let Some(dyn_i) = dynamic_ph else {
        // A file without a dynamic table has no imports; allowed.
        return Ok(file);
    };
    let dp = &phdrs[dyn_i];
    if dp.filesz > 1 << 24 {
        return Err(ReadError::BadProgramHeader {
            index: dyn_i,
            kind: "PT_DYNAMIC",
            reason: "over 16 MiB".into(),
        });
    }
    let dyn_bytes = src.range(dp.offset, dp.filesz, &phdrs)?;
    let dynlib: Option<Vec<u8>> = match dynlib_ph {
        Some(i) => {
            let p = &phdrs[i];
            if p.filesz > 1 << 30 {
                return Err(ReadError::BadProgramHeader {
                    index: i,
                    kind: "PT_SCE_DYNLIBDATA",
                    reason: "over 1 GiB".into(),
                });
            }
            Some(src.range(p.offset, p.filesz, &phdrs)?)
        }
        None => None,
    };
    // The dynamic entries.
    let mut terminated = false;
    for i in 0..(dyn_bytes.len() / 16) {
        let at = (i * 16) as u64;
        let tag = u64_at(&dyn_bytes, at, "dynamic entry")? as i64;
        let value = u64_at(&dyn_bytes, at + 8, "dynamic entry")?;
        let offset = dp.offset + at;
        if tag == DT_NULL {
            terminated = true;
            break;
        }
        if let Some((_, name, reason)) = REFUSED_TAGS.iter().find(|(t, _, _)| *t == tag) {
            return Err(ReadError::RefusedDynamicTag {
                tag,
                name,
                offset,
                reason,
            });
        }
        if tag_name(tag).is_none() {
            return Err(ReadError::UnknownDynamicTag { tag, offset });
        }
        file.dynamic.push(DynEntry { tag, value, offset });
    }
    if !terminated {
        return Err(ReadError::UnterminatedDynamic { offset: dp.offset });
    }
    parse_dynamic(&mut file, dynlib.as_deref())?;
    Ok(file)
}

/// The bytes of an informational segment (comment, library version): a SELF need not carry them (or
/// may carry them encrypted), and nothing depends on them, so there their absence is not an error.
fn informational(
    r: Result<Vec<u8>, ReadError>,
    in_self: bool,
) -> Result<Option<Vec<u8>>, ReadError> {
    match r {
        Ok(b) => Ok(Some(b)),
        Err(
            ReadError::MissingSelfSegment { .. }
            | ReadError::EncryptedSegment { .. }
            | ReadError::CompressedSegment { .. },
        ) if in_self => Ok(None),
        Err(e) => Err(e),
    }
}

fn first(file: &PsFile, tag: i64) -> Option<DynEntry> {
    file.dynamic.iter().find(|d| d.tag == tag).copied()
}

/// The bytes of a table: an offset into `PT_SCE_DYNLIBDATA` or an address in a loaded segment.
fn table<'a>(
    file: &'a PsFile,
    dynlib: Option<&'a [u8]>,
    conv: TableConvention,
    what: &'static str,
    start: u64,
    len: u64,
) -> Result<&'a [u8], ReadError> {
    match conv {
        TableConvention::Sce => {
            let d = dynlib.ok_or(ReadError::MissingProgramHeader("PT_SCE_DYNLIBDATA"))?;
            let end = start.checked_add(len);
            match end {
                Some(e) if e <= d.len() as u64 => Ok(&d[start as usize..e as usize]),
                _ => Err(ReadError::TableOutOfBounds {
                    what,
                    start,
                    len,
                    place: "PT_SCE_DYNLIBDATA",
                }),
            }
        }
        _ => {
            for s in &file.segments {
                let fend = s.vaddr + s.data.len() as u64;
                if start >= s.vaddr && start.checked_add(len).is_some_and(|e| e <= fend) {
                    let o = (start - s.vaddr) as usize;
                    return Ok(&s.data[o..o + len as usize]);
                }
            }
            Err(ReadError::TableOutOfBounds {
                what,
                start,
                len,
                place: "the file bytes of any loaded segment",
            })
        }
    }
}

fn cstr(strtab: &[u8], off: u64) -> Result<String, ReadError> {
    let o = usize::try_from(off).ok().filter(|o| *o < strtab.len());
    let Some(o) = o else {
        return Err(ReadError::BadString {
            offset: off,
            reason: "beyond the string table",
        });
    };
    let end = strtab[o..]
        .iter()
        .position(|b| *b == 0)
        .ok_or(ReadError::BadString {
            offset: off,
            reason: "no NUL terminator",
        })?;
    String::from_utf8(strtab[o..o + end].to_vec()).map_err(|_| ReadError::BadString {
        offset: off,
        reason: "not UTF-8",
    })
}

fn parse_dynamic(file: &mut PsFile, dynlib: Option<&[u8]>) -> Result<(), ReadError> {
    let sce_tabs = [
        (DT_SCE_STRTAB, "DT_SCE_STRTAB"),
        (DT_SCE_SYMTAB, "DT_SCE_SYMTAB"),
        (DT_SCE_RELA, "DT_SCE_RELA"),
        (DT_SCE_JMPREL, "DT_SCE_JMPREL"),
        (DT_SCE_HASH, "DT_SCE_HASH"),
    ];
    let std_tabs = [
        (DT_STRTAB, "DT_STRTAB"),
        (DT_SYMTAB, "DT_SYMTAB"),
        (DT_RELA, "DT_RELA"),
        (DT_JMPREL, "DT_JMPREL"),
        (DT_HASH, "DT_HASH"),
    ];
    let sce = sce_tabs.iter().find(|(t, _)| first(file, *t).is_some());
    let std = std_tabs.iter().find(|(t, _)| first(file, *t).is_some());
    let conv = match (sce, std) {
        (Some((_, a)), Some((_, b))) => {
            return Err(ReadError::AmbiguousTables {
                sce: a,
                standard: b,
            })
        }
        (Some(_), None) => TableConvention::Sce,
        (None, Some(_)) => TableConvention::Standard,
        (None, None) => TableConvention::None,
    };
    file.convention = conv;
    let (
        t_str,
        t_strsz,
        t_sym,
        t_syment,
        t_rela,
        t_relasz,
        t_relaent,
        t_jmprel,
        t_pltrelsz,
        t_pltrel,
        t_hash,
    ) = if conv == TableConvention::Standard {
        (
            DT_STRTAB,
            DT_STRSZ,
            DT_SYMTAB,
            DT_SYMENT,
            DT_RELA,
            DT_RELASZ,
            DT_RELAENT,
            DT_JMPREL,
            DT_PLTRELSZ,
            DT_PLTREL,
            DT_HASH,
        )
    } else {
        (
            DT_SCE_STRTAB,
            DT_SCE_STRSZ,
            DT_SCE_SYMTAB,
            DT_SCE_SYMENT,
            DT_SCE_RELA,
            DT_SCE_RELASZ,
            DT_SCE_RELAENT,
            DT_SCE_JMPREL,
            DT_SCE_PLTRELSZ,
            DT_SCE_PLTREL,
            DT_SCE_HASH,
        )
    };
    let name = |t: i64| tag_name(t).unwrap_or("?");
    let bad = |d: DynEntry, reason: &str| ReadError::BadDynamicValue {
        name: tag_name(d.tag).unwrap_or("?"),
        value: d.value,
        offset: d.offset,
        reason: reason.to_string(),
    };
    // Entry sizes.
    for (t, want) in [(t_syment, 24u64), (t_relaent, 24)] {
        if let Some(d) = first(file, t) {
            if d.value != want {
                return Err(bad(d, &format!("must be {want}")));
            }
        }
    }
    if let Some(d) = first(file, t_pltrel) {
        if d.value != DT_RELA as u64 {
            return Err(bad(
                d,
                "must be DT_RELA (7): only RELA relocations are supported",
            ));
        }
    }
    // String table.
    let strtab: Vec<u8> = match first(file, t_str) {
        Some(d) => {
            let sz = first(file, t_strsz).ok_or(ReadError::MissingTag {
                what: name(t_str),
                missing: name(t_strsz),
            })?;
            table(file, dynlib, conv, "string table", d.value, sz.value)?.to_vec()
        }
        None => Vec::new(),
    };
    // Hash table (also gives the symbol count under the standard convention).
    let mut nchain: Option<u64> = None;
    if let Some(d) = first(file, t_hash) {
        let sz = if conv == TableConvention::Sce {
            first(file, DT_SCE_HASHSZ)
                .ok_or(ReadError::MissingTag {
                    what: "DT_SCE_HASH",
                    missing: "DT_SCE_HASHSZ",
                })?
                .value
        } else {
            first(file, DT_SCE_HASHSZ).map(|e| e.value).unwrap_or(8)
        };
        let h = table(file, dynlib, conv, "hash table", d.value, sz.max(8))?;
        let nbucket = u32_at(h, 0, "hash table")? as u64;
        let nc = u32_at(h, 4, "hash table")? as u64;
        if conv == TableConvention::Sce && (2 + nbucket + nc) * 4 > sz {
            return Err(bad(
                d,
                "DT_SCE_HASHSZ is smaller than the table's bucket and chain counts",
            ));
        }
        nchain = Some(nc);
        file.hash = Some((d.value, sz));
    }
    // Simple entries and descriptors.
    let entries = file.dynamic.clone();
    let mut init_array = (None, None);
    let mut fini_array = (None, None);
    let mut preinit_array = (None, None);
    for d in &entries {
        match d.tag {
            DT_NEEDED => file.needed.push(cstr(&strtab, d.value)?),
            DT_SONAME => file.soname = Some(cstr(&strtab, d.value)?),
            DT_SCE_ORIGINAL_FILENAME | DT_SCE_ORIGINAL_FILENAME_1 => {
                file.original_filename = Some(cstr(&strtab, d.value & 0xffff_ffff)?)
            }
            DT_SCE_FINGERPRINT => {
                file.fingerprint = match conv {
                    TableConvention::Sce => {
                        Some(table(file, dynlib, conv, "fingerprint", d.value, 24)?.to_vec())
                    }
                    _ => None,
                }
            }
            DT_SCE_MODULE_INFO
            | DT_SCE_MODULE_INFO_1
            | DT_SCE_NEEDED_MODULE
            | DT_SCE_NEEDED_MODULE_1 => {
                let m = ModuleDesc {
                    name: cstr(&strtab, d.value & 0xffff_ffff)?,
                    version_minor: (d.value >> 32) as u8,
                    version_major: (d.value >> 40) as u8,
                    id: (d.value >> 48) as u16,
                };
                if matches!(d.tag, DT_SCE_MODULE_INFO | DT_SCE_MODULE_INFO_1) {
                    if file.module_info.is_some() {
                        return Err(bad(*d, "a second module info entry"));
                    }
                    file.module_info = Some(m);
                } else {
                    file.needed_modules.push(m);
                }
            }
            DT_SCE_EXPORT_LIB | DT_SCE_EXPORT_LIB_1 | DT_SCE_IMPORT_LIB | DT_SCE_IMPORT_LIB_1 => {
                let l = LibraryDesc {
                    name: cstr(&strtab, d.value & 0xffff_ffff)?,
                    version: (d.value >> 32) as u16,
                    id: (d.value >> 48) as u16,
                };
                if matches!(d.tag, DT_SCE_EXPORT_LIB | DT_SCE_EXPORT_LIB_1) {
                    file.export_libs.push(l);
                } else {
                    file.import_libs.push(l);
                }
            }
            DT_SCE_MODULE_ATTR => file.module_attr = Some(d.value),
            DT_SCE_EXPORT_LIB_ATTR => file.export_lib_attrs.push(d.value),
            DT_SCE_IMPORT_LIB_ATTR => file.import_lib_attrs.push(d.value),
            DT_INIT => file.init = Some(d.value),
            DT_FINI => file.fini = Some(d.value),
            DT_INIT_ARRAY => init_array.0 = Some(d.value),
            DT_INIT_ARRAYSZ => init_array.1 = Some(d.value),
            DT_FINI_ARRAY => fini_array.0 = Some(d.value),
            DT_FINI_ARRAYSZ => fini_array.1 = Some(d.value),
            DT_PREINIT_ARRAY => preinit_array.0 = Some(d.value),
            DT_PREINIT_ARRAYSZ => preinit_array.1 = Some(d.value),
            DT_PLTGOT | DT_SCE_PLTGOT => file.pltgot = Some(d.value),
            DT_FLAGS => file.flags = Some(d.value),
            DT_FLAGS_1 => file.flags_1 = Some(d.value),
            DT_TEXTREL => file.textrel = true,
            _ => {}
        }
    }
    for ((addr, size), what, missing, slot) in [
        (init_array, "DT_INIT_ARRAY", "DT_INIT_ARRAYSZ", 0),
        (fini_array, "DT_FINI_ARRAY", "DT_FINI_ARRAYSZ", 1),
        (preinit_array, "DT_PREINIT_ARRAY", "DT_PREINIT_ARRAYSZ", 2),
    ] {
        let v = match (addr, size) {
            (Some(a), Some(s)) => {
                if s % 8 != 0 {
                    return Err(ReadError::BadDynamicValue {
                        name: missing,
                        value: s,
                        offset: 0,
                        reason: "not a multiple of 8".into(),
                    });
                }
                Some((a, s))
            }
            (Some(_), None) => return Err(ReadError::MissingTag { what, missing }),
            (None, Some(_)) => {
                return Err(ReadError::MissingTag {
                    what: missing,
                    missing: what,
                })
            }
            (None, None) => None,
        };
        match slot {
            0 => file.init_array = v,
            1 => file.fini_array = v,
            _ => file.preinit_array = v,
        }
    }
    // Symbols.
    if let Some(d) = first(file, t_sym) {
        let count = match first(file, DT_SCE_SYMTABSZ) {
            Some(s) => {
                if s.value % 24 != 0 {
                    return Err(bad(s, "not a multiple of the symbol size 24"));
                }
                s.value / 24
            }
            None => nchain.ok_or(ReadError::MissingTag {
                what: name(t_sym),
                missing: "DT_SCE_SYMTABSZ or a hash table",
            })?,
        };
        let bytes = table(
            file,
            dynlib,
            conv,
            "symbol table",
            d.value,
            count.saturating_mul(24),
        )?
        .to_vec();
        for i in 0..count as usize {
            let at = (i * 24) as u64;
            let st_name = u32_at(&bytes, at, "symbol")? as u64;
            let info = bytes[i * 24 + 4];
            let other = bytes[i * 24 + 5];
            let shndx = u16_at(&bytes, at + 6, "symbol")?;
            let value = u64_at(&bytes, at + 8, "symbol")?;
            let size = u64_at(&bytes, at + 16, "symbol")?;
            let raw_name = if i == 0 && st_name == 0 {
                String::new()
            } else {
                cstr(&strtab, st_name)?
            };
            file.symbols
                .push(symbol(file, i, raw_name, info, other, shndx, value, size)?);
        }
    }
    // Relocations.
    let mut relocs = Vec::new();
    for (plt, t_tab, t_sz, tname) in [
        (false, t_rela, t_relasz, "RELA"),
        (true, t_jmprel, t_pltrelsz, "JMPREL"),
    ] {
        let Some(d) = first(file, t_tab) else {
            continue;
        };
        let sz = first(file, t_sz).ok_or(ReadError::MissingTag {
            what: name(t_tab),
            missing: name(t_sz),
        })?;
        if sz.value % 24 != 0 {
            return Err(bad(sz, "not a multiple of the relocation size 24"));
        }
        let bytes = table(file, dynlib, conv, "relocation table", d.value, sz.value)?;
        for i in 0..(sz.value / 24) as usize {
            let at = (i * 24) as u64;
            let offset = u64_at(bytes, at, "relocation")?;
            let info = u64_at(bytes, at + 8, "relocation")?;
            let addend = u64_at(bytes, at + 16, "relocation")? as i64;
            let ty = (info & 0xffff_ffff) as u32;
            let sym = (info >> 32) as u32;
            let table_name: &'static str = tname;
            if !ACCEPTED_RELOCS.iter().any(|(t, _)| *t == ty) {
                return Err(ReadError::UnsupportedRelocation {
                    table: table_name,
                    index: i,
                    offset,
                    ty,
                    name: reloc_name(ty),
                });
            }
            if sym as usize >= file.symbols.len() && sym != 0 {
                return Err(ReadError::BadRelocation {
                    table: table_name,
                    index: i,
                    offset,
                    reason: format!(
                        "symbol index {sym} beyond the {} symbols",
                        file.symbols.len()
                    ),
                });
            }
            if plt && ty != R_X86_64_JUMP_SLOT && ty != R_X86_64_NONE {
                return Err(ReadError::BadRelocation {
                    table: table_name,
                    index: i,
                    offset,
                    reason: format!("{} in the PLT relocation table", reloc_name(ty)),
                });
            }
            let needs_sym = matches!(ty, R_X86_64_GLOB_DAT | R_X86_64_JUMP_SLOT);
            if needs_sym && sym == 0 {
                return Err(ReadError::BadRelocation {
                    table: table_name,
                    index: i,
                    offset,
                    reason: format!("{} without a symbol", reloc_name(ty)),
                });
            }
            if ty != R_X86_64_NONE {
                let inside = file.segments.iter().any(|s| {
                    offset >= s.vaddr
                        && offset
                            .checked_add(8)
                            .is_some_and(|e| e <= s.vaddr + s.memsz)
                });
                if !inside {
                    return Err(ReadError::BadRelocation {
                        table: table_name,
                        index: i,
                        offset,
                        reason: "the target is outside every loaded segment".into(),
                    });
                }
            }
            relocs.push(Reloc {
                plt,
                index: i,
                offset,
                ty,
                sym,
                addend,
            });
        }
    }
    file.relocs = relocs;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn symbol(
    file: &PsFile,
    index: usize,
    raw_name: String,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
) -> Result<Symbol, ReadError> {
    let bind = info >> 4;
    let sym_type = info & 0xf;
    let mut s = Symbol {
        index,
        raw_name: raw_name.clone(),
        nid: String::new(),
        plain_name: None,
        library: None,
        module: None,
        value,
        size,
        bind,
        sym_type,
        other,
        shndx,
    };
    let parts: Vec<&str> = raw_name.split('#').collect();
    match parts.len() {
        1 => {
            s.nid = nid::nid(&raw_name);
            s.plain_name = Some(raw_name);
        }
        3 => {
            let defined = s.is_defined();
            let (libs, what) = if defined {
                (&file.export_libs, "export")
            } else {
                (&file.import_libs, "import")
            };
            let lib = libs
                .iter()
                .find(|l| nid::encode_id(l.id) == parts[1])
                .ok_or_else(|| ReadError::BadSymbol {
                    index,
                    name: raw_name.clone(),
                    reason: format!(
                        "library id {:?} matches no {what} library descriptor",
                        parts[1]
                    ),
                })?;
            let mods: Vec<&ModuleDesc> = if defined {
                file.module_info.iter().collect()
            } else {
                file.needed_modules.iter().collect()
            };
            let module = mods
                .iter()
                .find(|m| nid::encode_id(m.id) == parts[2])
                .ok_or_else(|| ReadError::BadSymbol {
                    index,
                    name: raw_name.clone(),
                    reason: format!(
                        "module id {:?} matches no {} module descriptor",
                        parts[2],
                        if defined { "own" } else { "needed" }
                    ),
                })?;
            if !nid::looks_like_nid(parts[0]) {
                return Err(ReadError::BadSymbol {
                    index,
                    name: raw_name.clone(),
                    reason: "the NID part is not 11 NID characters".into(),
                });
            }
            s.nid = parts[0].to_string();
            s.library = Some(lib.name.clone());
            s.module = Some(module.name.clone());
        }
        _ => {
            return Err(ReadError::BadSymbol {
                index,
                name: raw_name.clone(),
                reason: "a name with '#' must be NID#LIB#MOD".into(),
            })
        }
    }
    Ok(s)
}
