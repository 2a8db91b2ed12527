//! The reader on small synthetic files: every dynamic tag and relocation type it accepts is read (and
//! every relocation translated), every one it refuses is a typed error, and so are the malformed cases.

use relinker::error::{LinkError, ReadError};
use relinker::link::{self, Provider, Resolution};
use relinker::names::KnownNames;
use relinker::nid::nid;
use relinker::reader::{self, ContainerKind, FileKind, PsFile, TableConvention};
use relinker::sce::*;
use std::collections::BTreeMap;

const TEXT: u64 = 0x0;
const DATA: u64 = 0x4000;
const TLS_AT: u64 = 0x4800;
/// Where the standard-convention tables go (inside the data segment's file bytes).
const TABLES: u64 = 0x4400;

#[derive(Clone)]
struct Synth {
    e_type: u16,
    conv: TableConvention,
    /// Extra dynamic entries (tag, value); `None` value = "the natural value for the tag".
    extra: Vec<(i64, u64)>,
    /// Symbols: (name, info, shndx, value).
    syms: Vec<(String, u8, u16, u64)>,
    /// (offset, type, symbol, addend)
    rela: Vec<(u64, u32, u32, i64)>,
    jmprel: Vec<(u64, u32, u32, i64)>,
    /// Entries to leave out of the default dynamic table.
    omit: Vec<i64>,
    /// Extra program headers: (type, offset, vaddr, filesz, memsz).
    extra_ph: Vec<(u32, u64, u64, u64, u64)>,
    text_flags: u32,
}

fn imp(name: &str) -> String {
    format!("{}#B#B", nid(name))
}
fn exp(name: &str) -> String {
    format!("{}#A#A", nid(name))
}

impl Synth {
    fn new() -> Self {
        Synth {
            e_type: ET_SCE_DYNEXEC,
            conv: TableConvention::Sce,
            extra: vec![],
            syms: vec![
                (String::new(), 0, 0, 0),
                (imp("sceKernelUsleep"), (STB_GLOBAL << 4) | STT_FUNC, 0, 0),
                (exp("synth_fn"), (STB_GLOBAL << 4) | STT_FUNC, 1, 0x100),
                ("loc".into(), (STB_LOCAL << 4) | STT_OBJECT, 1, 0x4100),
                (exp("synth_tls"), (STB_GLOBAL << 4) | STT_TLS, 1, 0x8),
                (
                    imp("__stack_chk_guard"),
                    (STB_GLOBAL << 4) | STT_OBJECT,
                    0,
                    0,
                ),
                (imp("weak_thing"), (STB_WEAK << 4) | STT_FUNC, 0, 0),
            ],
            rela: vec![(DATA + 0x10, R_X86_64_RELATIVE, 0, 0x200)],
            jmprel: vec![(DATA + 0x18, R_X86_64_JUMP_SLOT, 1, 0)],
            omit: vec![],
            extra_ph: vec![],
            text_flags: PF_R | PF_X,
        }
    }

    fn build(&self) -> Vec<u8> {
        // String table.
        let mut strtab = vec![0u8];
        let mut add = |s: &str| -> u64 {
            let o = strtab.len() as u64;
            strtab.extend_from_slice(s.as_bytes());
            strtab.push(0);
            o
        };
        let names: Vec<u64> = self
            .syms
            .iter()
            .map(|s| if s.0.is_empty() { 0 } else { add(&s.0) })
            .collect();
        let own = add("synth");
        let kern = add("libkernel");
        let needed = add("libkernel.prx");
        let mut symtab = vec![];
        for (s, n) in self.syms.iter().zip(&names) {
            symtab.extend((*n as u32).to_le_bytes());
            symtab.push(s.1);
            symtab.push(0);
            symtab.extend(s.2.to_le_bytes());
            symtab.extend(s.3.to_le_bytes());
            symtab.extend(0u64.to_le_bytes());
        }
        let mut hash = vec![];
        hash.extend(1u32.to_le_bytes());
        hash.extend((self.syms.len() as u32).to_le_bytes());
        hash.extend(0u32.to_le_bytes());
        hash.extend(std::iter::repeat_n(0u8, 4 * self.syms.len()));
        let rel = |v: &[(u64, u32, u32, i64)]| -> Vec<u8> {
            v.iter()
                .flat_map(|(o, t, s, a)| {
                    o.to_le_bytes()
                        .into_iter()
                        .chain((((*s as u64) << 32) | *t as u64).to_le_bytes())
                        .chain(a.to_le_bytes())
                })
                .collect()
        };
        let rela = rel(&self.rela);
        let jmprel = rel(&self.jmprel);
        // Tables: into dynlibdata (SCE) or the data segment (standard).
        let mut blob = vec![0x11u8; 24]; // fingerprint
        let mut place = |b: &[u8]| -> u64 {
            while blob.len() % 8 != 0 {
                blob.push(0);
            }
            let o = blob.len() as u64;
            blob.extend_from_slice(b);
            o
        };
        let so = place(&strtab);
        let yo = place(&symtab);
        let ho = place(&hash);
        let ro = place(&rela);
        let jo = place(&jmprel);
        let std = self.conv == TableConvention::Standard;
        let base = if std { TABLES } else { 0 };
        let mut dynamic: Vec<(i64, u64)> = vec![
            (DT_SCE_FINGERPRINT, 0),
            (DT_SCE_MODULE_INFO_1, own | (1 << 40)),
            (DT_SCE_NEEDED_MODULE_1, kern | (1 << 40) | (1 << 48)),
            (DT_SCE_IMPORT_LIB_1, kern | (1 << 32) | (1 << 48)),
            (DT_SCE_EXPORT_LIB_1, own | (1 << 32)),
            (DT_NEEDED, needed),
        ];
        let t = |sce: i64, std_t: i64| if std { std_t } else { sce };
        dynamic.extend([
            (t(DT_SCE_STRTAB, DT_STRTAB), base + so),
            (t(DT_SCE_STRSZ, DT_STRSZ), strtab.len() as u64),
            (t(DT_SCE_SYMTAB, DT_SYMTAB), base + yo),
            (t(DT_SCE_SYMENT, DT_SYMENT), 24),
            (DT_SCE_SYMTABSZ, symtab.len() as u64),
            (t(DT_SCE_HASH, DT_HASH), base + ho),
            (DT_SCE_HASHSZ, hash.len() as u64),
            (t(DT_SCE_RELA, DT_RELA), base + ro),
            (t(DT_SCE_RELASZ, DT_RELASZ), rela.len() as u64),
            (t(DT_SCE_RELAENT, DT_RELAENT), 24),
            (t(DT_SCE_JMPREL, DT_JMPREL), base + jo),
            (t(DT_SCE_PLTRELSZ, DT_PLTRELSZ), jmprel.len() as u64),
            (t(DT_SCE_PLTREL, DT_PLTREL), DT_RELA as u64),
        ]);
        dynamic.retain(|(tag, _)| !self.omit.contains(tag));
        for (tag, v) in &self.extra {
            let v = if *v == u64::MAX {
                match *tag {
                    DT_SONAME => own,
                    DT_SCE_ORIGINAL_FILENAME | DT_SCE_ORIGINAL_FILENAME_1 => own,
                    DT_SCE_MODULE_INFO => own | (1 << 40),
                    DT_SCE_NEEDED_MODULE | DT_SCE_NEEDED_MODULE_1 => kern | (5 << 48),
                    DT_SCE_EXPORT_LIB | DT_SCE_EXPORT_LIB_1 | DT_SCE_IMPORT_LIB
                    | DT_SCE_IMPORT_LIB_1 => kern | (6 << 48),
                    _ => 0,
                }
            } else {
                *v
            };
            dynamic.push((*tag, v));
        }
        dynamic.push((DT_NULL, 0));
        let dynb: Vec<u8> = dynamic
            .iter()
            .flat_map(|(t, v)| t.to_le_bytes().into_iter().chain(v.to_le_bytes()))
            .collect();

        let mut phs: Vec<(u32, u32, u64, u64, u64, u64, u64)> = vec![
            (
                PT_LOAD,
                self.text_flags,
                0x1000,
                TEXT,
                0x1000,
                0x1000,
                0x4000,
            ),
            (PT_LOAD, PF_R | PF_W, 0x2000, DATA, 0x1000, 0x2000, 0x4000),
            (PT_TLS, PF_R, 0x2000 + (TLS_AT - DATA), TLS_AT, 8, 16, 8),
            (
                PT_DYNAMIC,
                PF_R | PF_W,
                0x3000,
                0,
                dynb.len() as u64,
                dynb.len() as u64,
                8,
            ),
            (PT_SCE_DYNLIBDATA, PF_R, 0x3800, 0, blob.len() as u64, 0, 16),
        ];
        for e in &self.extra_ph {
            phs.push((e.0, PF_R, e.1, e.2, e.3, e.4, 8));
        }
        let mut out = vec![0u8; 0x3800 + blob.len().max(0x800)];
        let mut eh = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 9, 2, 0, 0, 0, 0, 0, 0, 0];
        eh.extend(self.e_type.to_le_bytes());
        eh.extend(0x3eu16.to_le_bytes());
        eh.extend(1u32.to_le_bytes());
        eh.extend(0x40u64.to_le_bytes());
        eh.extend(64u64.to_le_bytes());
        eh.extend(0u64.to_le_bytes());
        eh.extend(0u32.to_le_bytes());
        eh.extend(64u16.to_le_bytes());
        eh.extend(56u16.to_le_bytes());
        eh.extend((phs.len() as u16).to_le_bytes());
        eh.extend([64, 0, 0, 0, 0, 0]);
        out[..64].copy_from_slice(&eh);
        for (i, p) in phs.iter().enumerate() {
            let o = 64 + 56 * i;
            let mut b = vec![];
            b.extend(p.0.to_le_bytes());
            b.extend(p.1.to_le_bytes());
            b.extend(p.2.to_le_bytes());
            b.extend(p.3.to_le_bytes());
            b.extend(p.3.to_le_bytes());
            b.extend(p.4.to_le_bytes());
            b.extend(p.5.to_le_bytes());
            b.extend(p.6.to_le_bytes());
            out[o..o + 56].copy_from_slice(&b);
        }
        out[0x3000..0x3000 + dynb.len()].copy_from_slice(&dynb);
        if std {
            let o = 0x2000 + (TABLES - DATA) as usize;
            out[o..o + blob.len()].copy_from_slice(&blob);
        }
        out[0x3800..0x3800 + blob.len()].copy_from_slice(&blob);
        out
    }

    fn read(&self) -> Result<PsFile, ReadError> {
        reader::read(&self.build())
    }
}

#[test]
fn the_default_synthetic_file_reads() {
    for conv in [TableConvention::Sce, TableConvention::Standard] {
        let s = Synth {
            conv,
            ..Synth::new()
        };
        let f = s.read().unwrap_or_else(|e| panic!("{conv:?}: {e}"));
        assert_eq!(f.convention, conv);
        assert_eq!(f.kind, FileKind::DynExec);
        assert_eq!(f.symbols.len(), 7);
        assert_eq!(f.symbols[1].nid, nid("sceKernelUsleep"));
        assert_eq!(f.symbols[1].library.as_deref(), Some("libkernel"));
        assert_eq!(f.symbols[1].module.as_deref(), Some("libkernel"));
        assert_eq!(f.symbols[2].library.as_deref(), Some("synth"));
        assert_eq!(f.symbols[3].plain_name.as_deref(), Some("loc"));
        assert_eq!(f.relocs.len(), 2);
        assert_eq!(f.module_info.as_ref().unwrap().name, "synth");
        assert_eq!(f.needed, vec!["libkernel.prx".to_string()]);
        assert_eq!(f.fingerprint.is_some(), conv == TableConvention::Sce);
        assert_eq!(f.tls.as_ref().unwrap().memsz, 16);
    }
}

/// A value for an accepted tag that makes a valid file, and a check of what the reader made of it.
#[test]
fn every_accepted_dynamic_tag_is_read() {
    let max = u64::MAX; // "natural value"
    for &(tag, name) in ACCEPTED_TAGS {
        let mut s = Synth::new();
        let check: Box<dyn Fn(&PsFile)> = match tag {
            DT_NULL => Box::new(|_| {}),
            // Table tags of either convention: the default file has them (SCE), or the standard one.
            DT_STRTAB | DT_SYMTAB | DT_RELA | DT_RELASZ | DT_RELAENT | DT_STRSZ | DT_SYMENT
            | DT_HASH | DT_JMPREL | DT_PLTRELSZ | DT_PLTREL => {
                s.conv = TableConvention::Standard;
                Box::new(|f| assert_eq!(f.convention, TableConvention::Standard))
            }
            DT_SCE_STRTAB
            | DT_SCE_SYMTAB
            | DT_SCE_RELA
            | DT_SCE_RELASZ
            | DT_SCE_RELAENT
            | DT_SCE_STRSZ
            | DT_SCE_SYMENT
            | DT_SCE_HASH
            | DT_SCE_JMPREL
            | DT_SCE_PLTRELSZ
            | DT_SCE_PLTREL
            | DT_SCE_HASHSZ
            | DT_SCE_SYMTABSZ
            | DT_SCE_FINGERPRINT
            | DT_NEEDED
            | DT_SCE_MODULE_INFO_1
            | DT_SCE_NEEDED_MODULE_1
            | DT_SCE_IMPORT_LIB_1
            | DT_SCE_EXPORT_LIB_1 => Box::new(|f| assert_eq!(f.convention, TableConvention::Sce)),
            DT_PLTGOT | DT_SCE_PLTGOT => {
                s.extra.push((tag, DATA));
                Box::new(|f| assert_eq!(f.pltgot, Some(DATA)))
            }
            DT_INIT => {
                s.extra.push((tag, 0x40));
                Box::new(|f| assert_eq!(f.init, Some(0x40)))
            }
            DT_FINI => {
                s.extra.push((tag, 0x50));
                Box::new(|f| assert_eq!(f.fini, Some(0x50)))
            }
            DT_SONAME => {
                s.extra.push((tag, max));
                Box::new(|f| assert_eq!(f.soname.as_deref(), Some("synth")))
            }
            DT_DEBUG | DT_BIND_NOW | DT_RELACOUNT => {
                s.extra.push((tag, 0));
                Box::new(move |f| assert!(f.dynamic.iter().any(|d| d.tag == tag)))
            }
            DT_TEXTREL => {
                s.extra.push((tag, 0));
                Box::new(|f| assert!(f.textrel))
            }
            DT_FLAGS => {
                s.extra.push((tag, 4));
                Box::new(|f| assert_eq!(f.flags, Some(4)))
            }
            DT_FLAGS_1 => {
                s.extra.push((tag, 1));
                Box::new(|f| assert_eq!(f.flags_1, Some(1)))
            }
            DT_INIT_ARRAY | DT_INIT_ARRAYSZ => {
                s.extra
                    .extend([(DT_INIT_ARRAY, DATA + 0x20), (DT_INIT_ARRAYSZ, 16)]);
                Box::new(|f| assert_eq!(f.init_array, Some((DATA + 0x20, 16))))
            }
            DT_FINI_ARRAY | DT_FINI_ARRAYSZ => {
                s.extra
                    .extend([(DT_FINI_ARRAY, DATA + 0x30), (DT_FINI_ARRAYSZ, 8)]);
                Box::new(|f| assert_eq!(f.fini_array, Some((DATA + 0x30, 8))))
            }
            DT_PREINIT_ARRAY | DT_PREINIT_ARRAYSZ => {
                s.extra
                    .extend([(DT_PREINIT_ARRAY, DATA + 0x38), (DT_PREINIT_ARRAYSZ, 8)]);
                Box::new(|f| assert_eq!(f.preinit_array, Some((DATA + 0x38, 8))))
            }
            DT_SCE_ORIGINAL_FILENAME | DT_SCE_ORIGINAL_FILENAME_1 => {
                s.extra.push((tag, max));
                Box::new(|f| assert_eq!(f.original_filename.as_deref(), Some("synth")))
            }
            DT_SCE_MODULE_INFO => {
                s.omit.push(DT_SCE_MODULE_INFO_1);
                s.extra.push((tag, max));
                Box::new(|f| {
                    assert_eq!(
                        f.module_info
                            .as_ref()
                            .map(|m| (m.name.as_str(), m.version_major, m.id)),
                        Some(("synth", 1, 0))
                    )
                })
            }
            DT_SCE_NEEDED_MODULE => {
                s.extra.push((tag, max));
                Box::new(|f| {
                    assert!(f
                        .needed_modules
                        .iter()
                        .any(|m| m.id == 5 && m.name == "libkernel"))
                })
            }
            DT_SCE_EXPORT_LIB => {
                s.extra.push((tag, max));
                Box::new(|f| assert!(f.export_libs.iter().any(|l| l.id == 6)))
            }
            DT_SCE_IMPORT_LIB => {
                s.extra.push((tag, max));
                Box::new(|f| assert!(f.import_libs.iter().any(|l| l.id == 6)))
            }
            DT_SCE_MODULE_ATTR => {
                s.extra.push((tag, 0x3));
                Box::new(|f| assert_eq!(f.module_attr, Some(3)))
            }
            DT_SCE_EXPORT_LIB_ATTR => {
                s.extra.push((tag, 0x1));
                Box::new(|f| assert_eq!(f.export_lib_attrs, vec![1]))
            }
            DT_SCE_IMPORT_LIB_ATTR => {
                s.extra.push((tag, (1 << 48) | 9));
                Box::new(|f| assert_eq!(f.import_lib_attrs, vec![(1 << 48) | 9]))
            }
            other => panic!("no test for accepted tag {other:#x} ({name})"),
        };
        let f = s.read().unwrap_or_else(|e| panic!("{name}: {e}"));
        if tag != DT_NULL {
            assert!(
                f.dynamic.iter().any(|d| d.tag == tag),
                "{name} not in the parsed dynamic table"
            );
        }
        check(&f);
    }
}

#[test]
fn every_refused_dynamic_tag_is_a_typed_error() {
    for &(tag, name, _) in REFUSED_TAGS {
        let s = Synth {
            extra: vec![(tag, 0)],
            ..Synth::new()
        };
        match s.read() {
            Err(ReadError::RefusedDynamicTag {
                tag: t, name: n, ..
            }) => {
                assert_eq!((t, n), (tag, name));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let s = Synth {
        extra: vec![(0x6100_0099, 0)],
        ..Synth::new()
    };
    assert!(
        matches!(s.read(), Err(ReadError::UnknownDynamicTag { tag: 0x6100_0099, offset }) if offset >= 0x3000)
    );
}

fn provider_for(names: &[&str]) -> Provider {
    Provider {
        name: "libtest.so".into(),
        path: None,
        kind: "native",
        exports: names
            .iter()
            .map(|n| (nid(n), STT_FUNC))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// Relink a synthetic file (imports bound to one fake provider, or stubbed) and parse the output.
fn write_synth(f: &PsFile, stub: bool) -> Vec<u8> {
    let providers = vec![provider_for(&[
        "sceKernelUsleep",
        "__stack_chk_guard",
        "__relink_start",
        "__relink_unresolved",
    ])];
    let mut providers = providers;
    providers[0]
        .exports
        .insert("__relink_start".into(), STT_FUNC);
    providers[0]
        .exports
        .insert("__relink_unresolved".into(), STT_FUNC);
    let names = KnownNames::builtin();
    let (index, dups) = link::provider_index(&providers, &names);
    assert!(dups.is_empty());
    let imports = link::bind("synth", f, None, &providers, &index, &names, stub);
    let spec = relinker::elfout::WriteSpec {
        file: f,
        file_name: "synth",
        imports: &imports,
        soname: None,
        needed: vec!["libtest.so".into()],
        runpath: None,
        init_arrays: true,
    };
    relinker::elfout::write(&spec).expect("write")
}

/// The output's relocations as (type, symbol name, addend), found at `offset + K`.
fn out_relocs(bytes: &[u8]) -> Vec<(u32, String, i64, u64)> {
    let elf = goblin::elf::Elf::parse(bytes).expect("output parses");
    let mut v = vec![];
    for r in elf.dynrelas.iter().chain(elf.pltrelocs.iter()) {
        let name = elf
            .dynsyms
            .get(r.r_sym)
            .and_then(|s| elf.dynstrtab.get_at(s.st_name))
            .unwrap_or("")
            .to_string();
        v.push((r.r_type, name, r.r_addend.unwrap_or(0), r.r_offset));
    }
    v
}

fn k_of(bytes: &[u8]) -> u64 {
    let elf = goblin::elf::Elf::parse(bytes).unwrap();
    // The first PT_LOAD after the header segment is the PS text segment at address 0 + K.
    elf.program_headers
        .iter()
        .filter(|p| p.p_type == PT_LOAD)
        .nth(1)
        .unwrap()
        .p_vaddr
}

#[test]
fn every_accepted_relocation_is_read_and_translated() {
    for &(ty, name) in ACCEPTED_RELOCS {
        let mut s = Synth::new();
        let off = DATA + 0x40;
        // (symbol, addend, expected output type, expected symbol name, expected addend minus K where relative)
        let (sym, addend) = match ty {
            R_X86_64_NONE => (0, 0),
            R_X86_64_RELATIVE => (0, 0x123),
            R_X86_64_64 => (5, 8),
            R_X86_64_GLOB_DAT => (5, 0),
            R_X86_64_JUMP_SLOT => (1, 0),
            R_X86_64_DTPMOD64 => (0, 0),
            R_X86_64_DTPOFF64 => (4, 4),
            R_X86_64_TPOFF64 => (0, 12),
            _ => unreachable!(),
        };
        if ty == R_X86_64_JUMP_SLOT {
            s.jmprel = vec![(off, ty, sym, addend)];
        } else {
            s.rela.push((off, ty, sym, addend));
        }
        let f = s.read().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            f.relocs.iter().any(|r| r.ty == ty && r.offset == off),
            "{name}"
        );
        let out = write_synth(&f, false);
        let k = k_of(&out);
        let rels = out_relocs(&out);
        let at: Vec<&(u32, String, i64, u64)> = rels.iter().filter(|r| r.3 == off + k).collect();
        match ty {
            R_X86_64_NONE => assert!(at.is_empty(), "NONE is dropped"),
            R_X86_64_RELATIVE => assert_eq!(
                at,
                [&(R_X86_64_RELATIVE, String::new(), 0x123 + k as i64, off + k)]
            ),
            R_X86_64_64 => assert_eq!(at, [&(R_X86_64_64, nid("__stack_chk_guard"), 8, off + k)]),
            R_X86_64_GLOB_DAT => assert_eq!(
                at,
                [&(R_X86_64_GLOB_DAT, nid("__stack_chk_guard"), 0, off + k)]
            ),
            R_X86_64_JUMP_SLOT => assert_eq!(
                at,
                [&(R_X86_64_JUMP_SLOT, nid("sceKernelUsleep"), 0, off + k)]
            ),
            R_X86_64_DTPMOD64 => assert_eq!(at, [&(R_X86_64_DTPMOD64, String::new(), 0, off + k)]),
            // against the module's own TLS symbol at offset 8: offset 8 + 4, no symbol
            R_X86_64_DTPOFF64 => assert_eq!(at, [&(R_X86_64_DTPOFF64, String::new(), 12, off + k)]),
            R_X86_64_TPOFF64 => assert_eq!(at, [&(R_X86_64_TPOFF64, String::new(), 12, off + k)]),
            _ => unreachable!(),
        }
    }
}

#[test]
fn local_and_own_symbols_bind_relative() {
    let mut s = Synth::new();
    // 64 against the local object, GLOB_DAT against the module's own export, 64 against symbol 0.
    s.rela = vec![
        (DATA + 0x40, R_X86_64_64, 3, 4),
        (DATA + 0x48, R_X86_64_GLOB_DAT, 2, 99),
        (DATA + 0x50, R_X86_64_64, 0, 0x10),
    ];
    let f = s.read().unwrap();
    let out = write_synth(&f, false);
    let k = k_of(&out);
    let rels = out_relocs(&out);
    let find = |o: u64| rels.iter().find(|r| r.3 == o + k).cloned().unwrap();
    assert_eq!(
        find(DATA + 0x40),
        (
            R_X86_64_RELATIVE,
            String::new(),
            (0x4100 + 4 + k) as i64,
            DATA + 0x40 + k
        )
    );
    assert_eq!(
        find(DATA + 0x48),
        (
            R_X86_64_RELATIVE,
            String::new(),
            (0x100 + k) as i64,
            DATA + 0x48 + k
        )
    );
    assert_eq!(
        find(DATA + 0x50),
        (
            R_X86_64_RELATIVE,
            String::new(),
            (0x10 + k) as i64,
            DATA + 0x50 + k
        )
    );
}

#[test]
fn stubbed_and_weak_imports() {
    let mut s = Synth::new();
    s.rela.push((DATA + 0x60, R_X86_64_GLOB_DAT, 6, 0)); // weak, provided by nobody
    s.syms.push((
        imp("sceAgcCreateShader"),
        (STB_GLOBAL << 4) | STT_FUNC,
        0,
        0,
    ));
    s.rela.push((DATA + 0x68, R_X86_64_GLOB_DAT, 7, 0));
    let f = s.read().unwrap();
    let providers = vec![provider_for(&["sceKernelUsleep", "__stack_chk_guard"])];
    let names = KnownNames::builtin();
    let (index, _) = link::provider_index(&providers, &names);
    let imports = link::bind("synth", &f, None, &providers, &index, &names, false);
    let by = |n: &str| {
        imports
            .iter()
            .find(|i| i.nid == nid(n))
            .unwrap()
            .resolution
            .clone()
    };
    assert_eq!(by("weak_thing"), Resolution::WeakNull);
    assert_eq!(by("sceAgcCreateShader"), Resolution::Unresolved);
    match link::unresolved_error(&imports) {
        Some(LinkError::Unresolved {
            count: 1,
            imports,
            list,
        }) => {
            assert_eq!(imports[0].0, "f3dg2CSgRKY");
            assert_eq!(imports[0].1.as_deref(), Some("sceAgcCreateShader"));
            assert!(list.contains("f3dg2CSgRKY (sceAgcCreateShader)"), "{list}");
        }
        other => panic!("{other:?}"),
    }
    let out = write_synth(&f, true);
    let k = k_of(&out);
    let rels = out_relocs(&out);
    let stubbed = rels.iter().find(|r| r.3 == DATA + 0x68 + k).unwrap();
    assert_eq!(
        stubbed.0, R_X86_64_RELATIVE,
        "a stubbed import points at its generated stub"
    );
    assert!(
        (stubbed.2 as u64) < k,
        "the stub lives in the header segment"
    );
    let weak = rels.iter().find(|r| r.3 == DATA + 0x60 + k).unwrap();
    assert_eq!(
        (weak.0, weak.1.as_str()),
        (R_X86_64_GLOB_DAT, nid("weak_thing").as_str())
    );
}

#[test]
fn every_refused_relocation_is_a_typed_error() {
    for ty in [
        R_X86_64_PC32,
        3,
        4,
        R_X86_64_COPY,
        9,
        10,
        11,
        19,
        21,
        23,
        24,
        R_X86_64_IRELATIVE,
        0x7777,
    ] {
        let mut s = Synth::new();
        s.rela.push((DATA + 0x40, ty, 0, 0));
        match s.read() {
            Err(ReadError::UnsupportedRelocation {
                ty: t,
                name,
                offset,
                ..
            }) => {
                assert_eq!(t, ty);
                assert_eq!(name, reloc_name(ty));
                assert_eq!(offset, DATA + 0x40);
            }
            other => panic!("type {ty}: {other:?}"),
        }
    }
}

#[test]
fn tls_imports_are_refused_at_link_time() {
    let mut s = Synth::new();
    s.rela.push((DATA + 0x40, R_X86_64_DTPOFF64, 5, 0)); // against an imported symbol
    let f = s.read().unwrap();
    let providers = vec![provider_for(&[
        "sceKernelUsleep",
        "__stack_chk_guard",
        "__relink_start",
    ])];
    let names = KnownNames::builtin();
    let (index, _) = link::provider_index(&providers, &names);
    let imports = link::bind("synth", &f, None, &providers, &index, &names, false);
    let spec = relinker::elfout::WriteSpec {
        file: &f,
        file_name: "synth",
        imports: &imports,
        soname: None,
        needed: vec![],
        runpath: None,
        init_arrays: true,
    };
    assert!(
        matches!(relinker::elfout::write(&spec), Err(LinkError::TlsImport { offset, .. }) if offset == DATA + 0x40)
    );
}

#[test]
fn malformed_files_are_typed_errors() {
    let good = Synth::new().build();
    assert!(matches!(
        reader::read(&good[..10]),
        Err(ReadError::Truncated {
            what: "ELF header",
            ..
        })
    ));
    assert!(matches!(
        reader::read(b"MZ\x90\x00"),
        Err(ReadError::BadMagic { .. })
    ));
    let mut t = good.clone();
    t.truncate(0x1800);
    assert!(matches!(reader::read(&t), Err(ReadError::Truncated { .. })));
    for (e_type, ok) in [
        (ET_SCE_EXEC, true),
        (ET_SCE_DYNEXEC, true),
        (ET_SCE_DYNAMIC, true),
        (ET_SCE_STUBLIB, false),
        (2, false),
        (3, false),
    ] {
        let s = Synth {
            e_type,
            ..Synth::new()
        };
        match s.read() {
            Ok(_) => assert!(ok, "{e_type:#x} accepted"),
            Err(ReadError::UnsupportedType { e_type: t }) => assert!(!ok && t == e_type),
            Err(e) => panic!("{e_type:#x}: {e}"),
        }
    }
    // Both conventions at once.
    let s = Synth {
        extra: vec![(DT_STRTAB, 0)],
        ..Synth::new()
    };
    assert!(matches!(s.read(), Err(ReadError::AmbiguousTables { .. })));
    // A size tag missing.
    let s = Synth {
        omit: vec![DT_SCE_STRSZ],
        ..Synth::new()
    };
    assert!(matches!(
        s.read(),
        Err(ReadError::MissingTag {
            what: "DT_SCE_STRTAB",
            missing: "DT_SCE_STRSZ"
        })
    ));
    // Entry sizes and PLT relocation kind.
    let mut s = Synth {
        omit: vec![DT_SCE_RELAENT],
        ..Synth::new()
    };
    s.extra.push((DT_SCE_RELAENT, 16));
    assert!(matches!(
        s.read(),
        Err(ReadError::BadDynamicValue {
            name: "DT_SCE_RELAENT",
            ..
        })
    ));
    let mut s = Synth {
        omit: vec![DT_SCE_PLTREL],
        ..Synth::new()
    };
    s.extra.push((DT_SCE_PLTREL, DT_REL as u64));
    assert!(matches!(
        s.read(),
        Err(ReadError::BadDynamicValue {
            name: "DT_SCE_PLTREL",
            ..
        })
    ));
    // A table beyond PT_SCE_DYNLIBDATA.
    let mut s = Synth {
        omit: vec![DT_SCE_STRSZ],
        ..Synth::new()
    };
    s.extra.push((DT_SCE_STRSZ, 1 << 20));
    assert!(matches!(s.read(), Err(ReadError::TableOutOfBounds { .. })));
    // Symbol names: unknown library id, not NID#LIB#MOD.
    let mut s = Synth::new();
    s.syms[1].0 = format!("{}#Z#B", nid("x"));
    assert!(matches!(
        s.read(),
        Err(ReadError::BadSymbol { index: 1, .. })
    ));
    let mut s = Synth::new();
    s.syms[1].0 = "a#b".into();
    assert!(matches!(
        s.read(),
        Err(ReadError::BadSymbol { index: 1, .. })
    ));
    // Relocations: symbol index, target outside the image, GLOB_DAT without symbol, RELATIVE in JMPREL.
    let mut s = Synth::new();
    s.rela.push((DATA, R_X86_64_64, 99, 0));
    assert!(matches!(s.read(), Err(ReadError::BadRelocation { .. })));
    let mut s = Synth::new();
    s.rela.push((0x9_0000, R_X86_64_RELATIVE, 0, 0));
    assert!(matches!(
        s.read(),
        Err(ReadError::BadRelocation {
            offset: 0x9_0000,
            ..
        })
    ));
    let mut s = Synth::new();
    s.rela.push((DATA, R_X86_64_GLOB_DAT, 0, 0));
    assert!(matches!(s.read(), Err(ReadError::BadRelocation { .. })));
    let s = Synth {
        jmprel: vec![(DATA, R_X86_64_RELATIVE, 0, 0)],
        ..Synth::new()
    };
    assert!(matches!(
        s.read(),
        Err(ReadError::BadRelocation {
            table: "JMPREL",
            ..
        })
    ));
    // Program headers: a second PT_DYNAMIC, an unknown type, filesz > memsz.
    let s = Synth {
        extra_ph: vec![(PT_DYNAMIC, 0x3000, 0, 16, 16)],
        ..Synth::new()
    };
    assert!(matches!(
        s.read(),
        Err(ReadError::DuplicateProgramHeader {
            kind: "PT_DYNAMIC",
            ..
        })
    ));
    let s = Synth {
        extra_ph: vec![(0x6123_4567, 0, 0, 0, 0)],
        ..Synth::new()
    };
    assert!(matches!(s.read(), Err(ReadError::BadProgramHeader { .. })));
    let s = Synth {
        extra_ph: vec![(PT_LOAD, 0x1000, 0x8000, 0x100, 0x10)],
        ..Synth::new()
    };
    assert!(matches!(s.read(), Err(ReadError::BadProgramHeader { .. })));
    // No DT_NULL.
    let mut b = good.clone();
    let dyn_len = {
        let f = reader::read(&good).unwrap();
        f.dynamic.len() * 16
    };
    for x in &mut b[0x3000 + dyn_len..0x3000 + dyn_len + 16] {
        *x = 0xff;
    }
    // (the terminator overwritten by an unknown tag: still a typed error, never a panic)
    assert!(reader::read(&b).is_err());
}

#[test]
fn ps5_and_ps4_self_containers() {
    let elf = Synth::new().build();
    for ps5 in [false, true] {
        let selfed = wrap(&elf, ps5, None, false);
        let f = reader::read(&selfed).unwrap_or_else(|e| panic!("ps5={ps5}: {e}"));
        assert!(matches!(&f.container, ContainerKind::SelfFile { ps5: p, .. } if *p == ps5));
        let plain = reader::read(&elf).unwrap();
        assert_eq!(f.symbols, plain.symbols);
        assert_eq!(f.relocs, plain.relocs);
        assert_eq!(f.segments, plain.segments);
        // The data segment (program header 1) encrypted.
        let enc = wrap(&elf, ps5, Some(1), false);
        assert!(matches!(
            reader::read(&enc),
            Err(ReadError::EncryptedSegment { phdr: 1, .. })
        ));
        let msg = reader::read(&enc).unwrap_err().to_string();
        assert!(msg.contains("decrypt"), "{msg}");
        let cmp = wrap(&elf, ps5, Some(1), true);
        assert!(matches!(
            reader::read(&cmp),
            Err(ReadError::CompressedSegment { phdr: 1, .. })
        ));
    }
}

/// A SELF around `elf` (shadPS4 elf.h `self_header`, `self_segment_header`; written here for the
/// synthetic file, the fixture writer has its own).
fn wrap(elf: &[u8], ps5: bool, special: Option<usize>, compress: bool) -> Vec<u8> {
    let phnum = u16::from_le_bytes([elf[56], elf[57]]) as usize;
    let mut segs = vec![];
    for i in 0..phnum {
        let o = 64 + 56 * i;
        let off = u64::from_le_bytes(elf[o + 8..o + 16].try_into().unwrap());
        let fsz = u64::from_le_bytes(elf[o + 32..o + 40].try_into().unwrap());
        if fsz > 0 {
            segs.push((i, off, fsz));
        }
    }
    let head = 32 + 32 * segs.len();
    let hdrs = 64 + 56 * phnum;
    let mut data_at = head + hdrs;
    let mut out = vec![0u8; head + hdrs];
    out[..4].copy_from_slice(if ps5 {
        &SELF_MAGIC_PS5
    } else {
        &SELF_MAGIC_PS4
    });
    out[24..26].copy_from_slice(&(segs.len() as u16).to_le_bytes());
    out[head..head + hdrs].copy_from_slice(&elf[..hdrs]);
    for (n, (i, off, fsz)) in segs.iter().enumerate() {
        let mut flags = SELF_SEG_BLOCKED | ((*i as u64) << 20);
        if special == Some(*i) {
            flags |= if compress {
                SELF_SEG_COMPRESSED
            } else {
                SELF_SEG_ENCRYPTED
            };
        }
        let e = 32 + 32 * n;
        out[e..e + 8].copy_from_slice(&flags.to_le_bytes());
        out[e + 8..e + 16].copy_from_slice(&(data_at as u64).to_le_bytes());
        out[e + 16..e + 24].copy_from_slice(&fsz.to_le_bytes());
        out[e + 24..e + 32].copy_from_slice(&fsz.to_le_bytes());
        out.extend_from_slice(&elf[*off as usize..(*off + *fsz) as usize]);
        data_at += *fsz as usize;
    }
    out
}

#[test]
fn self_without_readable_comment_still_reads() {
    let s = Synth {
        extra_ph: vec![
            (PT_SCE_COMMENT, 0x3f00, 0, 8, 0),
            (PT_SCE_LIBVERSION, 0x3f10, 0, 4, 0),
        ],
        ..Synth::new()
    };
    let elf = s.build();
    let plain = reader::read(&elf).unwrap();
    assert_eq!(plain.comment.as_deref(), Some(&[0u8; 8][..]));
    assert_eq!(plain.libversion.as_deref(), Some(&[0u8; 4][..]));
    // Program header 5 (the comment) encrypted: informational, so the file still reads.
    let f = reader::read(&wrap(&elf, true, Some(5), false)).unwrap();
    assert_eq!(f.comment, None);
    assert_eq!(f.libversion.as_deref(), Some(&[0u8; 4][..]));
    // The same comment range truncated away in a plain ELF is an error.
    let mut cut = s.clone();
    cut.extra_ph = vec![(PT_SCE_COMMENT, 0x10_0000, 0, 8, 0)];
    assert!(matches!(cut.read(), Err(ReadError::Truncated { .. })));
}

#[test]
fn module_entry_points_are_not_exports() {
    let mut s = Synth {
        e_type: ET_SCE_DYNAMIC,
        ..Synth::new()
    };
    s.syms
        .push((exp("module_start"), (STB_GLOBAL << 4) | STT_FUNC, 1, 0x200));
    s.syms
        .push((exp("module_stop"), (STB_GLOBAL << 4) | STT_FUNC, 1, 0x210));
    s.syms
        .push((exp("an_sce_entry"), (STB_GLOBAL << 4) | STT_SCE, 1, 0x220));
    let f = s.read().unwrap();
    let p = link::module_provider("synth.so", &f);
    assert_eq!(p.kind, "module");
    assert!(p.exports.contains_key(&nid("synth_fn")));
    for n in ["module_start", "module_stop", "an_sce_entry"] {
        assert!(!p.exports.contains_key(&nid(n)), "{n}");
    }
    // Two modules with entry points of their own are no duplicates.
    let q = link::module_provider(
        "other.so",
        &Synth {
            syms: s.syms[..1].iter().chain(&s.syms[7..]).cloned().collect(),
            ..s.clone()
        }
        .read()
        .unwrap(),
    );
    let (_, dups) = link::provider_index(&[p, q], &KnownNames::builtin());
    assert!(dups.is_empty(), "{dups:?}");
    let e = link::module_provider("eboot", &Synth::new().read().unwrap());
    assert_eq!(e.kind, "executable");
}
