//! The fixture writer: turns small x86-64 programs built by the system `gcc` into PS5/PS4-format
//! executables and modules. It shares no code with the relinker's reader (only the format constants,
//! written out again here with their sources):
//!
//! - shadPS4 (`shadps4-emu/shadPS4` at `0aea6ef36f6202104bdb7777cf5682333991d185`),
//!   `src/core/loader/elf.h`: ET_SCE_DYNEXEC 0xfe10, ET_SCE_DYNAMIC 0xfe18, PT_SCE_DYNLIBDATA
//!   0x61000000, PT_SCE_PROCPARAM 0x61000001, PT_SCE_MODULE_PARAM 0x61000002, PT_SCE_COMMENT
//!   0x6fffff00, PT_SCE_LIBVERSION 0x6fffff01, the DT_SCE_* tags, the SELF header and segment flags;
//!   `src/core/module.h`: the module `{u32 name; u8 minor; u8 major; u16 id}` and library
//!   `{u32 name; u16 version; u16 id}` descriptors; `src/core/module.cpp`: NID and id encodings.
//! - KytyPS5 (`KytyPS5/KytyPS5` at `0d92ce49da6e27fcca35c2fa19b7440d86d637ed`), `src/loader/elf.h`:
//!   the PS5 `_1` tags 0x61000041..0x61000049 and DT_SCE_EXPORT_LIB_ATTR 0x61000017;
//!   `src/loader/elf.cpp`: the PS5 SELF magic 54 14 F5 EE.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

// ---- constants (see the module doc for their sources) ----
const ET_SCE_EXEC: u16 = 0xfe00;
const ET_SCE_DYNEXEC: u16 = 0xfe10;
const ET_SCE_DYNAMIC: u16 = 0xfe18;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_TLS: u32 = 7;
const PT_SCE_DYNLIBDATA: u32 = 0x6100_0000;
const PT_SCE_PROCPARAM: u32 = 0x6100_0001;
const PT_SCE_MODULE_PARAM: u32 = 0x6100_0002;
const PT_SCE_RELRO: u32 = 0x6100_0010;
const PT_GNU_RELRO: u32 = 0x6474_e552;
const PT_SCE_COMMENT: u32 = 0x6fff_ff00;
const PT_SCE_LIBVERSION: u32 = 0x6fff_ff01;
const PT_GNU_EH_FRAME: u32 = 0x6474_e550;

const DT_NULL: i64 = 0;
const DT_NEEDED: i64 = 1;
const DT_PLTRELSZ: i64 = 2;
const DT_PLTGOT: i64 = 3;
const DT_HASH: i64 = 4;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_RELA: i64 = 7;
const DT_RELASZ: i64 = 8;
const DT_RELAENT: i64 = 9;
const DT_STRSZ: i64 = 10;
const DT_SYMENT: i64 = 11;
const DT_INIT: i64 = 12;
const DT_PLTREL: i64 = 20;
const DT_DEBUG: i64 = 21;
const DT_TEXTREL: i64 = 22;
const DT_JMPREL: i64 = 23;
const DT_INIT_ARRAY: i64 = 25;
const DT_FINI_ARRAY: i64 = 26;
const DT_INIT_ARRAYSZ: i64 = 27;
const DT_FINI_ARRAYSZ: i64 = 28;
const DT_FLAGS: i64 = 30;
const DT_SCE_FINGERPRINT: i64 = 0x6100_0007;
const DT_SCE_ORIGINAL_FILENAME: i64 = 0x6100_0009;
const DT_SCE_MODULE_INFO: i64 = 0x6100_000d;
const DT_SCE_NEEDED_MODULE: i64 = 0x6100_000f;
const DT_SCE_MODULE_ATTR: i64 = 0x6100_0011;
const DT_SCE_EXPORT_LIB: i64 = 0x6100_0013;
const DT_SCE_IMPORT_LIB: i64 = 0x6100_0015;
const DT_SCE_EXPORT_LIB_ATTR: i64 = 0x6100_0017;
const DT_SCE_IMPORT_LIB_ATTR: i64 = 0x6100_0019;
const DT_SCE_HASH: i64 = 0x6100_0025;
const DT_SCE_PLTGOT: i64 = 0x6100_0027;
const DT_SCE_JMPREL: i64 = 0x6100_0029;
const DT_SCE_PLTREL: i64 = 0x6100_002b;
const DT_SCE_PLTRELSZ: i64 = 0x6100_002d;
const DT_SCE_RELA: i64 = 0x6100_002f;
const DT_SCE_RELASZ: i64 = 0x6100_0031;
const DT_SCE_RELAENT: i64 = 0x6100_0033;
const DT_SCE_STRTAB: i64 = 0x6100_0035;
const DT_SCE_STRSZ: i64 = 0x6100_0037;
const DT_SCE_SYMTAB: i64 = 0x6100_0039;
const DT_SCE_SYMENT: i64 = 0x6100_003b;
const DT_SCE_HASHSZ: i64 = 0x6100_003d;
const DT_SCE_SYMTABSZ: i64 = 0x6100_003f;
const DT_SCE_ORIGINAL_FILENAME_1: i64 = 0x6100_0041;
const DT_SCE_MODULE_INFO_1: i64 = 0x6100_0043;
const DT_SCE_NEEDED_MODULE_1: i64 = 0x6100_0045;
const DT_SCE_EXPORT_LIB_1: i64 = 0x6100_0047;
const DT_SCE_IMPORT_LIB_1: i64 = 0x6100_0049;

const NID_SALT: [u8; 16] = [
    0x51, 0x8D, 0x64, 0xA6, 0x35, 0xDE, 0xD8, 0xC1, 0xE6, 0xB0, 0x39, 0xB1, 0xC3, 0xE5, 0x52, 0x30,
];
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-";

// ---- an independent SHA-1 and NID (a second implementation on purpose) ----
fn sha1(msg: &[u8]) -> [u8; 20] {
    let mut h = [
        0x67452301u32,
        0xEFCDAB89,
        0x98BADCFE,
        0x10325476,
        0xC3D2E1F0,
    ];
    let ml = (msg.len() as u64) * 8;
    let mut m = msg.to_vec();
    m.push(0x80);
    while m.len() % 64 != 56 {
        m.push(0);
    }
    m.extend(ml.to_be_bytes());
    for c in m.chunks(64) {
        let mut w: Vec<u32> = c
            .chunks(4)
            .map(|x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]))
            .collect();
        for i in 16..80 {
            let v = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
            w.push(v.rotate_left(1));
        }
        let (mut a, mut b, mut cc, mut d, mut e) = (h[0], h[1], h[2], h[3], h[4]);
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = if i < 20 {
                ((b & cc) | ((!b) & d), 0x5A827999)
            } else if i < 40 {
                (b ^ cc ^ d, 0x6ED9EBA1)
            } else if i < 60 {
                ((b & cc) | (b & d) | (cc & d), 0x8F1BBCDC)
            } else {
                (b ^ cc ^ d, 0xCA62C1D6u32)
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = cc;
            cc = b.rotate_left(30);
            b = a;
            a = t;
        }
        h = [
            h[0].wrapping_add(a),
            h[1].wrapping_add(b),
            h[2].wrapping_add(cc),
            h[3].wrapping_add(d),
            h[4].wrapping_add(e),
        ];
    }
    let mut o = [0u8; 20];
    for i in 0..5 {
        o[i * 4..i * 4 + 4].copy_from_slice(&h[i].to_be_bytes());
    }
    o
}

/// The NID of a name (shadPS4 `StringToNid`).
pub fn nid(name: &str) -> String {
    let mut v = name.as_bytes().to_vec();
    v.extend(NID_SALT);
    let d = sha1(&v);
    // Written big-endian: the 8 bytes reversed, then plain base64 digits with the alphabet above.
    let mut be = d[..8].to_vec();
    be.reverse();
    let bits = u64::from_be_bytes(be.try_into().unwrap());
    let mut s = String::new();
    for i in 0..10 {
        s.push(ALPHABET[((bits >> (58 - 6 * i)) & 63) as usize] as char);
    }
    s.push(ALPHABET[((bits & 15) << 2) as usize] as char);
    s
}

/// A library or module id as written after the NID (shadPS4 `EncodeId`, ids below 64 only).
pub fn enc(id: u16) -> String {
    assert!(id < 64, "fixtures use ids below 64");
    (ALPHABET[id as usize] as char).to_string()
}

// ---- the Linux ELF that gcc wrote ----
fn r16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(b[o..o + 2].try_into().unwrap())
}
fn r32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn r64(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

#[derive(Clone, Debug)]
pub struct GPhdr {
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

#[derive(Clone, Debug)]
pub struct GSym {
    pub name: String,
    pub info: u8,
    pub other: u8,
    pub shndx: u16,
    pub value: u64,
    pub size: u64,
}

/// What the fixture writer takes from gcc's output.
pub struct Linked {
    pub bytes: Vec<u8>,
    pub entry: u64,
    pub phdrs: Vec<GPhdr>,
    pub syms: Vec<GSym>,
    pub rela: Vec<[u64; 3]>,
    pub jmprel: Vec<[u64; 3]>,
    pub dynamic: Vec<(i64, u64)>,
}

impl Linked {
    fn file_off(&self, vaddr: u64) -> usize {
        for p in &self.phdrs {
            if p.p_type == PT_LOAD && vaddr >= p.vaddr && vaddr < p.vaddr + p.filesz {
                return (p.offset + vaddr - p.vaddr) as usize;
            }
        }
        panic!("address {vaddr:#x} not in the file");
    }
    fn dyn_val(&self, tag: i64) -> Option<u64> {
        self.dynamic
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|(_, v)| *v)
    }
    pub fn symbol(&self, name: &str) -> &GSym {
        self.syms
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no symbol {name}"))
    }
}

/// Parse gcc's output (a PIE or shared object linked with `--hash-style=sysv`).
pub fn parse_linked(bytes: Vec<u8>) -> Linked {
    assert_eq!(&bytes[..4], b"\x7fELF");
    let entry = r64(&bytes, 24);
    let phoff = r64(&bytes, 32) as usize;
    let phnum = r16(&bytes, 56) as usize;
    let phdrs: Vec<GPhdr> = (0..phnum)
        .map(|i| {
            let o = phoff + 56 * i;
            GPhdr {
                p_type: r32(&bytes, o),
                flags: r32(&bytes, o + 4),
                offset: r64(&bytes, o + 8),
                vaddr: r64(&bytes, o + 16),
                filesz: r64(&bytes, o + 32),
                memsz: r64(&bytes, o + 40),
                align: r64(&bytes, o + 48),
            }
        })
        .collect();
    let mut l = Linked {
        bytes,
        entry,
        phdrs,
        syms: vec![],
        rela: vec![],
        jmprel: vec![],
        dynamic: vec![],
    };
    let dynp = l
        .phdrs
        .iter()
        .find(|p| p.p_type == PT_DYNAMIC)
        .expect("PT_DYNAMIC")
        .clone();
    let mut o = dynp.offset as usize;
    loop {
        let t = r64(&l.bytes, o) as i64;
        let v = r64(&l.bytes, o + 8);
        if t == DT_NULL {
            break;
        }
        l.dynamic.push((t, v));
        o += 16;
    }
    let strtab = l.file_off(l.dyn_val(DT_STRTAB).unwrap());
    let symtab = l.file_off(l.dyn_val(DT_SYMTAB).unwrap());
    let hash = l.file_off(l.dyn_val(DT_HASH).expect("link with --hash-style=sysv"));
    let nsym = r32(&l.bytes, hash + 4) as usize;
    for i in 0..nsym {
        let so = symtab + 24 * i;
        let no = strtab + r32(&l.bytes, so) as usize;
        let end = l.bytes[no..].iter().position(|c| *c == 0).unwrap();
        l.syms.push(GSym {
            name: String::from_utf8(l.bytes[no..no + end].to_vec()).unwrap(),
            info: l.bytes[so + 4],
            other: l.bytes[so + 5],
            shndx: r16(&l.bytes, so + 6),
            value: r64(&l.bytes, so + 8),
            size: r64(&l.bytes, so + 16),
        });
    }
    for (tab, sz, out) in [(DT_RELA, DT_RELASZ, 0), (DT_JMPREL, DT_PLTRELSZ, 1)] {
        if let (Some(a), Some(n)) = (l.dyn_val(tab), l.dyn_val(sz)) {
            let fo = l.file_off(a);
            for i in 0..(n as usize / 24) {
                let r = [
                    r64(&l.bytes, fo + 24 * i),
                    r64(&l.bytes, fo + 24 * i + 8),
                    r64(&l.bytes, fo + 24 * i + 16),
                ];
                if out == 0 {
                    l.rela.push(r);
                } else {
                    l.jmprel.push(r);
                }
            }
        }
    }
    l
}

// ---- the PS file ----
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tags {
    /// PS4 tags (DT_SCE_MODULE_INFO ...).
    Ps4,
    /// PS5 `_1` tags (DT_SCE_MODULE_INFO_1 ...).
    Ps5,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Convention {
    /// DT_SCE_* offsets into PT_SCE_DYNLIBDATA.
    Sce,
    /// Standard DT_* addresses of tables in an added PT_LOAD.
    Standard,
}

/// How to write a fixture.
pub struct Spec<'a> {
    pub module: bool,
    pub module_name: &'a str,
    pub original_filename: &'a str,
    pub tags: Tags,
    pub convention: Convention,
    /// (library, module) of each imported name.
    pub import_of: &'a dyn Fn(&str) -> (&'static str, &'static str),
    /// The symbol DT_INIT points at (modules: module_start).
    pub init_symbol: Option<&'a str>,
    /// The symbol PT_SCE_PROCPARAM / PT_SCE_MODULE_PARAM points at.
    pub param_symbol: Option<&'a str>,
    /// Leave DT_SCE_SYMTABSZ out (the symbol count then comes from the hash table).
    pub omit_symtabsz: bool,
    /// Write ET_SCE_EXEC (fixed address) instead of ET_SCE_DYNEXEC.
    pub fixed_exec: bool,
    /// Split gcc's RW segment at the end of its GNU_RELRO range: the first part PT_SCE_RELRO.
    pub relro: bool,
}

fn sysv_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4) + c as u32;
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

fn align(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

/// Write the PS file for gcc's output `l`.
pub fn write_ps(l: &Linked, spec: &Spec) -> Vec<u8> {
    // Libraries and modules: the own module and export library get id 0, imports 1..
    let mut import_libs: Vec<&'static str> = vec![];
    let mut import_mods: Vec<&'static str> = vec![];
    let mut names: Vec<String> = vec![];
    for s in &l.syms {
        if s.name.is_empty() {
            names.push(String::new());
            continue;
        }
        let bind = s.info >> 4;
        if bind == 0 {
            names.push(s.name.clone());
        } else if s.shndx == 0 {
            let (lib, m) = (spec.import_of)(&s.name);
            if !import_libs.contains(&lib) {
                import_libs.push(lib);
            }
            if !import_mods.contains(&m) {
                import_mods.push(m);
            }
            let li = import_libs.iter().position(|x| *x == lib).unwrap() as u16 + 1;
            let mi = import_mods.iter().position(|x| *x == m).unwrap() as u16 + 1;
            names.push(format!("{}#{}#{}", nid(&s.name), enc(li), enc(mi)));
        } else {
            names.push(format!("{}#{}#{}", nid(&s.name), enc(0), enc(0)));
        }
    }
    // String table.
    let mut strtab = vec![0u8];
    let mut add = |s: &str| -> u64 {
        let o = strtab.len() as u64;
        strtab.extend_from_slice(s.as_bytes());
        strtab.push(0);
        o
    };
    let name_offs: Vec<u64> = names
        .iter()
        .map(|n| if n.is_empty() { 0 } else { add(n) })
        .collect();
    let own_name = add(spec.module_name);
    let orig_name = add(spec.original_filename);
    let lib_names: Vec<u64> = import_libs.iter().map(|n| add(n)).collect();
    let mod_names: Vec<u64> = import_mods.iter().map(|n| add(n)).collect();
    let needed: Vec<u64> = import_mods
        .iter()
        .map(|n| add(&format!("{n}.prx")))
        .collect();
    // Symbol table.
    let mut symtab = vec![];
    for (s, no) in l.syms.iter().zip(&name_offs) {
        symtab.extend((*no as u32).to_le_bytes());
        symtab.push(s.info);
        symtab.push(s.other);
        symtab.extend(s.shndx.to_le_bytes());
        symtab.extend(s.value.to_le_bytes());
        symtab.extend(s.size.to_le_bytes());
    }
    // Hash table over the PS names.
    let nb = names.len().max(1);
    let mut buckets = vec![0u32; nb];
    let mut chains = vec![0u32; names.len()];
    for (i, n) in names.iter().enumerate().skip(1) {
        let h = sysv_hash(n.as_bytes()) as usize % nb;
        chains[i] = buckets[h];
        buckets[h] = i as u32;
    }
    let mut hash = vec![];
    hash.extend((nb as u32).to_le_bytes());
    hash.extend((names.len() as u32).to_le_bytes());
    for x in buckets.iter().chain(&chains) {
        hash.extend(x.to_le_bytes());
    }
    let enc_rel = |v: &[[u64; 3]]| -> Vec<u8> {
        v.iter()
            .flat_map(|r| r.iter().flat_map(|x| x.to_le_bytes()))
            .collect()
    };
    let rela = enc_rel(&l.rela);
    let jmprel = enc_rel(&l.jmprel);

    // The image: gcc's PT_LOADs at their addresses.
    let loads: Vec<&GPhdr> = l.phdrs.iter().filter(|p| p.p_type == PT_LOAD).collect();
    let image_end = loads.iter().map(|p| p.vaddr + p.memsz).max().unwrap() as usize;
    // Tables: in PT_SCE_DYNLIBDATA (SCE convention), or in an added PT_LOAD (standard).
    let mut tables = vec![];
    let place = |tables: &mut Vec<u8>, b: &[u8]| -> u64 {
        while tables.len() % 8 != 0 {
            tables.push(0);
        }
        let o = tables.len() as u64;
        tables.extend_from_slice(b);
        o
    };
    let fingerprint = [0x5au8; 24];
    let dynlib_fp = 0u64;
    let mut dynlib = fingerprint.to_vec();
    let (strtab_o, symtab_o, hash_o, rela_o, jmprel_o);
    let table_vaddr = align(image_end, 0x4000) as u64;
    match spec.convention {
        Convention::Sce => {
            strtab_o = place(&mut dynlib, &strtab);
            symtab_o = place(&mut dynlib, &symtab);
            hash_o = place(&mut dynlib, &hash);
            rela_o = place(&mut dynlib, &rela);
            jmprel_o = place(&mut dynlib, &jmprel);
        }
        Convention::Standard => {
            strtab_o = table_vaddr + place(&mut tables, &strtab);
            symtab_o = table_vaddr + place(&mut tables, &symtab);
            hash_o = table_vaddr + place(&mut tables, &hash);
            rela_o = table_vaddr + place(&mut tables, &rela);
            jmprel_o = table_vaddr + place(&mut tables, &jmprel);
        }
    }
    let dv = |(v, t): (i64, i64)| if spec.tags == Tags::Ps5 { t } else { v };
    let mut dynamic: Vec<(i64, u64)> = vec![];
    dynamic.push((DT_SCE_FINGERPRINT, dynlib_fp));
    dynamic.push((
        dv((DT_SCE_ORIGINAL_FILENAME, DT_SCE_ORIGINAL_FILENAME_1)),
        orig_name,
    ));
    dynamic.push((
        dv((DT_SCE_MODULE_INFO, DT_SCE_MODULE_INFO_1)),
        own_name | (1 << 40),
    ));
    for n in &needed {
        dynamic.push((DT_NEEDED, *n));
    }
    for (i, n) in mod_names.iter().enumerate() {
        dynamic.push((
            dv((DT_SCE_NEEDED_MODULE, DT_SCE_NEEDED_MODULE_1)),
            n | (1 << 40) | (((i as u64) + 1) << 48),
        ));
    }
    for (i, n) in lib_names.iter().enumerate() {
        dynamic.push((
            dv((DT_SCE_IMPORT_LIB, DT_SCE_IMPORT_LIB_1)),
            n | (1 << 32) | (((i as u64) + 1) << 48),
        ));
        dynamic.push((DT_SCE_IMPORT_LIB_ATTR, (((i as u64) + 1) << 48) | 0x9));
    }
    dynamic.push((
        dv((DT_SCE_EXPORT_LIB, DT_SCE_EXPORT_LIB_1)),
        own_name | (1 << 32),
    ));
    dynamic.push((DT_SCE_EXPORT_LIB_ATTR, 0x1));
    dynamic.push((DT_SCE_MODULE_ATTR, 0));
    if let Some(init) = spec.init_symbol {
        dynamic.push((DT_INIT, l.symbol(init).value));
    }
    for (a, s, ta, ts) in [
        (
            DT_INIT_ARRAY,
            DT_INIT_ARRAYSZ,
            DT_INIT_ARRAY,
            DT_INIT_ARRAYSZ,
        ),
        (
            DT_FINI_ARRAY,
            DT_FINI_ARRAYSZ,
            DT_FINI_ARRAY,
            DT_FINI_ARRAYSZ,
        ),
    ] {
        if let (Some(av), Some(sv)) = (l.dyn_val(a), l.dyn_val(s)) {
            dynamic.push((ta, av));
            dynamic.push((ts, sv));
        }
    }
    let pltgot = l.dyn_val(DT_PLTGOT);
    match spec.convention {
        Convention::Sce => {
            dynamic.extend([
                (DT_SCE_HASH, hash_o),
                (DT_SCE_HASHSZ, hash.len() as u64),
                (DT_SCE_STRTAB, strtab_o),
                (DT_SCE_STRSZ, strtab.len() as u64),
                (DT_SCE_SYMTAB, symtab_o),
                (DT_SCE_SYMENT, 24),
            ]);
            if !spec.omit_symtabsz {
                dynamic.push((DT_SCE_SYMTABSZ, symtab.len() as u64));
            }
            dynamic.extend([
                (DT_SCE_RELA, rela_o),
                (DT_SCE_RELASZ, rela.len() as u64),
                (DT_SCE_RELAENT, 24),
            ]);
            if !jmprel.is_empty() {
                dynamic.extend([
                    (DT_SCE_JMPREL, jmprel_o),
                    (DT_SCE_PLTRELSZ, jmprel.len() as u64),
                    (DT_SCE_PLTREL, DT_RELA as u64),
                ]);
            }
            if let Some(g) = pltgot {
                dynamic.push((DT_SCE_PLTGOT, g));
            }
        }
        Convention::Standard => {
            dynamic.extend([
                (DT_HASH, hash_o),
                (DT_STRTAB, strtab_o),
                (DT_STRSZ, strtab.len() as u64),
                (DT_SYMTAB, symtab_o),
                (DT_SYMENT, 24),
            ]);
            if !spec.omit_symtabsz {
                dynamic.push((DT_SCE_SYMTABSZ, symtab.len() as u64));
            }
            dynamic.extend([
                (DT_RELA, rela_o),
                (DT_RELASZ, rela.len() as u64),
                (DT_RELAENT, 24),
            ]);
            if !jmprel.is_empty() {
                dynamic.extend([
                    (DT_JMPREL, jmprel_o),
                    (DT_PLTRELSZ, jmprel.len() as u64),
                    (DT_PLTREL, DT_RELA as u64),
                ]);
            }
            if let Some(g) = pltgot {
                dynamic.push((DT_PLTGOT, g));
            }
        }
    }
    dynamic.push((DT_DEBUG, 0));
    dynamic.push((DT_TEXTREL, 0));
    dynamic.push((DT_FLAGS, 0x4)); // DF_TEXTREL, as shadPS4 expects
    dynamic.push((DT_NULL, 0));
    let dynbytes: Vec<u8> = dynamic
        .iter()
        .flat_map(|(t, v)| t.to_le_bytes().into_iter().chain(v.to_le_bytes()))
        .collect();

    // Program headers.
    struct Ph {
        t: u32,
        f: u32,
        off: u64,
        va: u64,
        fsz: u64,
        msz: u64,
        al: u64,
    }
    let mut phs: Vec<Ph> = vec![];
    let base = 0x4000u64; // file offset of address 0
    let relro = l
        .phdrs
        .iter()
        .find(|p| p.p_type == PT_GNU_RELRO)
        .filter(|_| spec.relro);
    for p in &loads {
        let (rs, re) = relro.map_or((0, 0), |r| (r.vaddr, r.vaddr + r.memsz));
        if p.flags & 2 != 0 && rs >= p.vaddr && rs < p.vaddr + p.memsz {
            // [vaddr, re) becomes PT_SCE_RELRO, the rest (if any) stays PT_LOAD.
            let end = p.vaddr + p.memsz;
            let cut = re.min(end);
            let rf = p.filesz.min(cut - p.vaddr);
            phs.push(Ph {
                t: PT_SCE_RELRO,
                f: p.flags,
                off: base + p.vaddr,
                va: p.vaddr,
                fsz: rf,
                msz: cut - p.vaddr,
                al: p.align,
            });
            if cut < end {
                let fsz = (p.vaddr + p.filesz).saturating_sub(cut);
                phs.push(Ph {
                    t: PT_LOAD,
                    f: p.flags,
                    off: base + cut,
                    va: cut,
                    fsz,
                    msz: end - cut,
                    al: p.align,
                });
            }
        } else {
            phs.push(Ph {
                t: PT_LOAD,
                f: p.flags,
                off: base + p.vaddr,
                va: p.vaddr,
                fsz: p.filesz,
                msz: p.memsz,
                al: p.align,
            });
        }
    }
    if spec.convention == Convention::Standard {
        phs.push(Ph {
            t: PT_LOAD,
            f: 4,
            off: base + table_vaddr,
            va: table_vaddr,
            fsz: tables.len() as u64,
            msz: tables.len() as u64,
            al: 0x4000,
        });
    }
    let file_image_end = base
        + if spec.convention == Convention::Standard {
            table_vaddr + tables.len() as u64
        } else {
            image_end as u64
        };
    let dyn_off = align(file_image_end as usize, 16) as u64;
    let dynlib_off = dyn_off + dynbytes.len() as u64;
    let comment = b"fixture writer (relinker tests)\0".to_vec();
    let libversion = b"\x01\x00\x00\x00fixture\0".to_vec();
    let comment_off = dynlib_off + dynlib.len() as u64;
    let libversion_off = comment_off + comment.len() as u64;
    phs.push(Ph {
        t: PT_DYNAMIC,
        f: 6,
        off: dyn_off,
        va: 0,
        fsz: dynbytes.len() as u64,
        msz: dynbytes.len() as u64,
        al: 8,
    });
    phs.push(Ph {
        t: PT_SCE_DYNLIBDATA,
        f: 4,
        off: dynlib_off,
        va: 0,
        fsz: dynlib.len() as u64,
        msz: 0,
        al: 16,
    });
    for p in l
        .phdrs
        .iter()
        .filter(|p| p.p_type == PT_TLS || p.p_type == PT_GNU_EH_FRAME)
    {
        phs.push(Ph {
            t: p.p_type,
            f: p.flags,
            off: base + p.vaddr,
            va: p.vaddr,
            fsz: p.filesz,
            msz: p.memsz,
            al: p.align,
        });
    }
    if let Some(ps) = spec.param_symbol {
        let s = l.symbol(ps);
        let t = if spec.module {
            PT_SCE_MODULE_PARAM
        } else {
            PT_SCE_PROCPARAM
        };
        phs.push(Ph {
            t,
            f: 4,
            off: base + s.value,
            va: s.value,
            fsz: s.size,
            msz: s.size,
            al: 8,
        });
    }
    phs.push(Ph {
        t: PT_SCE_COMMENT,
        f: 4,
        off: comment_off,
        va: 0,
        fsz: comment.len() as u64,
        msz: 0,
        al: 1,
    });
    phs.push(Ph {
        t: PT_SCE_LIBVERSION,
        f: 4,
        off: libversion_off,
        va: 0,
        fsz: libversion.len() as u64,
        msz: 0,
        al: 1,
    });
    assert!(64 + 56 * phs.len() as u64 <= base);

    let total = libversion_off as usize + libversion.len();
    let mut out = vec![0u8; total];
    // ELF header: FreeBSD OS ABI (9), ABI version 2 for PS5 files.
    let mut eh = vec![
        0x7f,
        b'E',
        b'L',
        b'F',
        2,
        1,
        1,
        9,
        if spec.tags == Tags::Ps5 { 2 } else { 0 },
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ];
    eh.extend(
        (if spec.module {
            ET_SCE_DYNAMIC
        } else if spec.fixed_exec {
            ET_SCE_EXEC
        } else {
            ET_SCE_DYNEXEC
        })
        .to_le_bytes(),
    );
    eh.extend(0x3eu16.to_le_bytes());
    eh.extend(1u32.to_le_bytes());
    eh.extend((if spec.module { 0 } else { l.entry }).to_le_bytes());
    eh.extend(64u64.to_le_bytes());
    eh.extend(0u64.to_le_bytes());
    eh.extend(0u32.to_le_bytes());
    eh.extend(64u16.to_le_bytes());
    eh.extend(56u16.to_le_bytes());
    eh.extend((phs.len() as u16).to_le_bytes());
    eh.extend(64u16.to_le_bytes());
    eh.extend(0u16.to_le_bytes());
    eh.extend(0u16.to_le_bytes());
    out[..64].copy_from_slice(&eh);
    for (i, p) in phs.iter().enumerate() {
        let o = 64 + 56 * i;
        out[o..o + 4].copy_from_slice(&p.t.to_le_bytes());
        out[o + 4..o + 8].copy_from_slice(&p.f.to_le_bytes());
        out[o + 8..o + 16].copy_from_slice(&p.off.to_le_bytes());
        out[o + 16..o + 24].copy_from_slice(&p.va.to_le_bytes());
        out[o + 24..o + 32].copy_from_slice(&p.va.to_le_bytes());
        out[o + 32..o + 40].copy_from_slice(&p.fsz.to_le_bytes());
        out[o + 40..o + 48].copy_from_slice(&p.msz.to_le_bytes());
        out[o + 48..o + 56].copy_from_slice(&p.al.to_le_bytes());
    }
    for p in &loads {
        let src = &l.bytes[p.offset as usize..(p.offset + p.filesz) as usize];
        let o = (base + p.vaddr) as usize;
        out[o..o + src.len()].copy_from_slice(src);
    }
    if spec.convention == Convention::Standard {
        let o = (base + table_vaddr) as usize;
        out[o..o + tables.len()].copy_from_slice(&tables);
    }
    out[dyn_off as usize..dyn_off as usize + dynbytes.len()].copy_from_slice(&dynbytes);
    out[dynlib_off as usize..dynlib_off as usize + dynlib.len()].copy_from_slice(&dynlib);
    out[comment_off as usize..comment_off as usize + comment.len()].copy_from_slice(&comment);
    out[libversion_off as usize..].copy_from_slice(&libversion);
    out
}

/// Wrap a PS ELF in a SELF container: one blocked segment per program header with file bytes.
/// `encrypt` marks the segment of that program header encrypted (its bytes are left as they are).
pub fn wrap_self(elf: &[u8], ps5: bool, encrypt: Option<usize>) -> Vec<u8> {
    let phnum = r16(elf, 56) as usize;
    let phoff = r64(elf, 32) as usize;
    let mut segs: Vec<(usize, u64, u64)> = vec![]; // (phdr, offset, size)
    for i in 0..phnum {
        let o = phoff + 56 * i;
        let fsz = r64(elf, o + 32);
        if fsz > 0 {
            segs.push((i, r64(elf, o + 8), fsz));
        }
    }
    let head = 32 + 32 * segs.len();
    let ehdr_len = phoff + 56 * phnum;
    let mut data_off = align(head + ehdr_len, 16);
    let mut table = vec![];
    let mut blobs: Vec<(usize, &[u8])> = vec![];
    for (i, off, sz) in &segs {
        // shadPS4 self_segment_header: 0x800 blocked, bits 20.. the program header, 2 encrypted, 4 signed.
        let mut flags = 0x800u64 | ((*i as u64) << 20) | 0x4 | 0x1;
        if encrypt == Some(*i) {
            flags |= 0x2;
        }
        table.extend(flags.to_le_bytes());
        table.extend((data_off as u64).to_le_bytes());
        table.extend(sz.to_le_bytes());
        table.extend(sz.to_le_bytes());
        blobs.push((data_off, &elf[*off as usize..(*off + *sz) as usize]));
        data_off = align(data_off + *sz as usize, 16);
    }
    let mut out = vec![0u8; data_off];
    let (magic, tail, unknown): ([u8; 4], [u8; 8], u16) = if ps5 {
        (
            [0x54, 0x14, 0xf5, 0xee],
            [0x10, 0x01, 0x01, 0x12, 0x01, 0x01, 0x00, 0x10],
            0x32,
        )
    } else {
        (
            [0x4f, 0x15, 0x3d, 0x1d],
            [0x00, 0x01, 0x01, 0x12, 0x01, 0x01, 0x00, 0x00],
            0x22,
        )
    };
    out[..4].copy_from_slice(&magic);
    out[4..12].copy_from_slice(&tail);
    out[12..14].copy_from_slice(&(head as u16).to_le_bytes());
    out[16..24].copy_from_slice(&(data_off as u64).to_le_bytes());
    out[24..26].copy_from_slice(&(segs.len() as u16).to_le_bytes());
    out[26..28].copy_from_slice(&unknown.to_le_bytes());
    out[32..head].copy_from_slice(&table);
    out[head..head + ehdr_len].copy_from_slice(&elf[..ehdr_len]);
    for (o, b) in blobs {
        out[o..o + b.len()].copy_from_slice(b);
    }
    out
}

// ---- building the fixtures ----
pub fn fixtures_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Whether gcc is here; outside CI a missing gcc skips (returns false), in CI it fails.
pub fn have_gcc() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    let ok = *OK.get_or_init(|| {
        Command::new("gcc")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "the relinker fixtures need gcc (Debian package gcc)"
        );
        eprintln!("skipping: gcc not found");
    }
    ok
}

fn gcc(args: &[&str], dir: &Path) {
    let out = Command::new("gcc")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc {:?} failed:\n{}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Which library and module a fixture import belongs to.
pub fn import_of(name: &str) -> (&'static str, &'static str) {
    match name {
        "printf" | "puts" | "exit" | "atexit" | "strlen" | "malloc" | "free" => ("libc", "libc"),
        n if n.starts_with("fixmod_") => ("libfixmod", "libfixmod"),
        n if n.starts_with("sceAgc") => ("libSceAgc", "libSceAgc"),
        _ => ("libkernel", "libkernel"),
    }
}

const CFLAGS: &[&str] = &[
    "-O1",
    "-fPIC",
    "-nostdlib",
    "-fno-builtin",
    "-fno-stack-protector",
    "-w",
    "-Wl,-z,now",
    "-Wl,--hash-style=sysv",
];

/// The gcc outputs, built once per test binary: (stubs, module, main, unknown, syscall).
pub struct Built {
    pub dir: tempfile::TempDir,
    pub module: Linked,
    pub main: Linked,
    pub unknown: Linked,
    pub syscall: Linked,
}

pub fn built() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "ps5.h",
            "stubs.c",
            "libfixmod.c",
            "main.c",
            "unknown.c",
            "syscall.c",
        ] {
            std::fs::copy(fixtures_src().join(f), d.join(f)).unwrap();
        }
        let with = |extra: &[&str]| -> Vec<String> {
            CFLAGS.iter().chain(extra).map(|s| s.to_string()).collect()
        };
        let run = |a: Vec<String>| gcc(&a.iter().map(String::as_str).collect::<Vec<_>>(), d);
        run(with(&["-shared", "-o", "libstubs.so", "stubs.c"]));
        run(with(&[
            "-shared",
            "-o",
            "libfixmod.elf.so",
            "libfixmod.c",
            "./libstubs.so",
        ]));
        let exe = |src: &str, out: &str| {
            run(with(&[
                "-pie",
                "-nostartfiles",
                "-Wl,-e,_start",
                "-Wl,--export-dynamic-symbol=sce_process_param",
                "-o",
                out,
                src,
                "./libfixmod.elf.so",
                "./libstubs.so",
            ]))
        };
        exe("main.c", "main.elf");
        exe("unknown.c", "unknown.elf");
        exe("syscall.c", "syscall.elf");
        let rd = |n: &str| parse_linked(std::fs::read(d.join(n)).unwrap());
        Built {
            module: rd("libfixmod.elf.so"),
            main: rd("main.elf"),
            unknown: rd("unknown.elf"),
            syscall: rd("syscall.elf"),
            dir,
        }
    })
}

pub fn exe_spec<'a>(tags: Tags, convention: Convention) -> Spec<'a> {
    Spec {
        module: false,
        module_name: "eboot",
        original_filename: "eboot.bin",
        tags,
        convention,
        import_of: &import_of,
        init_symbol: None,
        param_symbol: Some("sce_process_param"),
        omit_symtabsz: false,
        fixed_exec: false,
        relro: false,
    }
}

pub fn module_spec<'a>(tags: Tags, convention: Convention) -> Spec<'a> {
    Spec {
        module: true,
        module_name: "libfixmod",
        original_filename: "libfixmod.prx",
        tags,
        convention,
        import_of: &import_of,
        init_symbol: Some("module_start"),
        param_symbol: Some("sce_module_param"),
        omit_symtabsz: false,
        fixed_exec: false,
        relro: false,
    }
}

/// An application directory: `eboot.bin` and `sce_module/libfixmod.prx`.
pub fn app_dir(main: &[u8], module: Option<&[u8]>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("eboot.bin"), main).unwrap();
    if let Some(m) = module {
        std::fs::create_dir_all(dir.path().join("sce_module")).unwrap();
        std::fs::write(dir.path().join("sce_module/libfixmod.prx"), m).unwrap();
    }
    dir
}

/// The stdout the relinked main fixture prints.
pub const MAIN_STDOUT: &str = "\
fixmod: module_start(0, 1)
fixmod: constructor
main: constructor
main: argc=1 argv0=set
main: puts through a pointer in data
main: fixmod_add(2, 40) = 42
main: fixmod_value = 1234
main: module sees 7
main: stack guard set
main: strlen = 12
worker: arg=17 tls_counter=105
main: thread rc=0 returned 106, tls_counter=6
main: module tls 1016 1019
main: neo=0
main: atexit handler
main: destructor
fixmod: destructor
";
pub const MAIN_STATUS: i32 = 42;
