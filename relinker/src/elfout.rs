//! The writer of native Linux x86-64 ELF files (PIE executables and shared objects).
//!
//! Layout (file offset = address everywhere, so pages shared by two segments hold the right bytes):
//!
//! ```text
//! 0            R+X  ELF header, program headers, .interp, .dynsym, .dynstr, .hash (SysV),
//!                   .rela.dyn, .rela.plt, stub strings, generated code
//! K + v        ...  every PS segment (PT_LOAD, PT_SCE_RELRO) at its PS address v shifted by K,
//!                   K a multiple of the largest alignment, so nothing inside the image moves relative
//!                   to anything else and RIP-relative code is untouched
//! T            RW   .dynamic, the GOT slots of the generated code, the executable's start descriptor
//! ```
//!
//! The image is position-independent (the PS loader relocates it anywhere), so shifting it by K only
//! changes absolute values, which are all relocations: `RELATIVE` addends, symbol values, entry and
//! table addresses all get K added.

use crate::error::LinkError;
use crate::link::{Import, Resolution, RT_START, RT_UNRESOLVED};
use crate::reader::{FileKind, PsFile, Symbol};
use crate::sce::*;
use std::collections::BTreeMap;

/// The dynamic loader named in `PT_INTERP`.
pub const INTERP: &str = "/lib64/ld-linux-x86-64.so.2";

/// Where an `ET_SCE_EXEC` image is placed (shadPS4 `src/core/module.cpp` `ExecutableLoadBase`).
pub const EXEC_BASE: u64 = 0x40_0000;

/// Magic of the start descriptor the executable's entry passes to `__relink_start`.
pub const DESC_MAGIC: &[u8; 8] = b"RELINK\0\x01";

const DF_TEXTREL: u64 = 0x4;
const DF_BIND_NOW: u64 = 0x8;
const DF_STATIC_TLS: u64 = 0x10;
const DF_1_NOW: u64 = 0x1;
const DF_1_PIE: u64 = 0x0800_0000;

/// What to write.
pub struct WriteSpec<'a> {
    pub file: &'a PsFile,
    pub file_name: &'a str,
    /// The bindings of `file`'s imports (by symbol index).
    pub imports: &'a [Import],
    /// `DT_SONAME` (shared objects).
    pub soname: Option<String>,
    pub needed: Vec<String>,
    pub runpath: Option<String>,
    /// Whether the PS init/fini arrays go into the output's `DT_INIT_ARRAY`/`DT_FINI_ARRAY` (run by
    /// the native loader) or are left to the module's own start code.
    pub init_arrays: bool,
}

/// A value resolved once the layout is known.
#[derive(Debug, Clone, Copy)]
enum V {
    Abs(u64),
    /// A PS address: + K.
    Orig(u64),
    /// An offset in the header segment (= its address).
    Seg0(u64),
    /// An offset in the tail segment.
    Tail(u64),
}

struct OutRel {
    off: V,
    ty: u32,
    sym: u32,
    addend: V,
    plt: bool,
}

struct OutSym {
    name: u32,
    info: u8,
    shndx: u16,
    value: V,
    size: u64,
}

#[derive(Default)]
struct StrTab {
    bytes: Vec<u8>,
    seen: BTreeMap<String, u32>,
}

impl StrTab {
    fn new() -> Self {
        StrTab {
            bytes: vec![0],
            seen: BTreeMap::new(),
        }
    }
    fn add(&mut self, s: &str) -> u32 {
        if let Some(o) = self.seen.get(s) {
            return *o;
        }
        let o = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self.seen.insert(s.to_string(), o);
        o
    }
}

fn elf_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4).wrapping_add(c as u32);
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Write the native file for `spec`.
pub fn write(spec: &WriteSpec) -> Result<Vec<u8>, LinkError> {
    let f = spec.file;
    let exe = f.kind.is_executable();
    let bad = |offset: u64, ty: u32, reason: String| LinkError::BadRelocation {
        module: spec.file_name.to_string(),
        offset,
        name: reloc_name(ty),
        reason,
    };
    // Alignment and overlap checks of the PS segments.
    let mut segs: Vec<&crate::reader::Segment> = f.segments.iter().collect();
    segs.sort_by_key(|s| s.vaddr);
    for w in segs.windows(2) {
        if w[0].vaddr + w[0].memsz > w[1].vaddr {
            return Err(LinkError::Layout(format!(
                "segments at {:#x}+{:#x} and {:#x} overlap",
                w[0].vaddr, w[0].memsz, w[1].vaddr
            )));
        }
    }
    let align = segs
        .iter()
        .map(|s| s.align)
        .chain([0x1000, f.tls.as_ref().map_or(1, |t| t.align)])
        .max()
        .unwrap_or(0x1000);
    if align > 1 << 30 {
        return Err(LinkError::Layout(format!(
            "alignment {align:#x} over 1 GiB"
        )));
    }
    let image_end = segs.iter().map(|s| s.vaddr + s.memsz).max().unwrap_or(0);
    if image_end > 1 << 32 {
        return Err(LinkError::Layout(format!(
            "the PS image ends at {image_end:#x}, beyond 4 GiB"
        )));
    }
    let seg_writable = |addr: u64| {
        segs.iter()
            .any(|s| addr >= s.vaddr && addr < s.vaddr + s.memsz && s.flags & PF_W != 0)
    };

    let by_index: BTreeMap<usize, &Import> =
        spec.imports.iter().map(|i| (i.symbol_index, i)).collect();
    let mut dynstr = StrTab::new();
    let mut syms: Vec<OutSym> = vec![OutSym {
        name: 0,
        info: 0,
        shndx: 0,
        value: V::Abs(0),
        size: 0,
    }];
    let mut sym_map: BTreeMap<usize, u32> = BTreeMap::new();
    // Imports bound to a library (or weak to nothing) become undefined symbols named by NID.
    for imp in spec.imports {
        match imp.resolution {
            Resolution::Resolved { .. } | Resolution::WeakNull => {
                let s = &f.symbols[imp.symbol_index];
                let ty = if s.sym_type == STT_SCE {
                    STT_FUNC
                } else {
                    s.sym_type
                };
                sym_map.insert(s.index, syms.len() as u32);
                syms.push(OutSym {
                    name: dynstr.add(&s.nid),
                    info: (s.bind << 4) | ty,
                    shndx: 0,
                    value: V::Abs(0),
                    size: 0,
                });
            }
            Resolution::Stub => {}
            Resolution::Unresolved => {
                return Err(LinkError::Layout(format!(
                    "import {} is unresolved",
                    imp.nid
                )));
            }
        }
    }
    // Exports.
    for s in &f.symbols {
        if s.index != 0 && s.is_defined() && (s.bind == STB_GLOBAL || s.bind == STB_WEAK) {
            let tls = s.sym_type == STT_TLS;
            let ty = if s.sym_type == STT_SCE {
                STT_FUNC
            } else {
                s.sym_type
            };
            syms.push(OutSym {
                name: dynstr.add(&s.nid),
                info: (s.bind << 4) | ty,
                shndx: 1,
                value: if tls {
                    V::Abs(s.value)
                } else {
                    V::Orig(s.value)
                },
                size: s.size,
            });
        }
    }
    // Runtime symbols.
    let stubbed: Vec<&Import> = spec
        .imports
        .iter()
        .filter(|i| i.resolution == Resolution::Stub)
        .collect();
    let mut rt_start_sym = 0;
    if exe {
        rt_start_sym = syms.len() as u32;
        syms.push(OutSym {
            name: dynstr.add(RT_START),
            info: (STB_GLOBAL << 4) | STT_FUNC,
            shndx: 0,
            value: V::Abs(0),
            size: 0,
        });
    }
    let mut rt_unres_sym = 0;
    if !stubbed.is_empty() {
        rt_unres_sym = syms.len() as u32;
        syms.push(OutSym {
            name: dynstr.add(RT_UNRESOLVED),
            info: (STB_GLOBAL << 4) | STT_FUNC,
            shndx: 0,
            value: V::Abs(0),
            size: 0,
        });
    }
    let needed: Vec<u32> = spec.needed.iter().map(|n| dynstr.add(n)).collect();
    let soname = spec.soname.as_deref().map(|s| dynstr.add(s));
    let runpath = spec.runpath.as_deref().map(|s| dynstr.add(s));

    // Stub strings and the header-segment layout before code.
    let n_phdr = {
        let mut n = 3; // header PT_LOAD, tail PT_LOAD, PT_DYNAMIC
        n += segs.len();
        n += 1; // PT_GNU_STACK
        if exe {
            n += 2; // PT_PHDR, PT_INTERP
        }
        if f.tls.is_some() {
            n += 1;
        }
        if f.eh_frame_hdr.is_some() {
            n += 1;
        }
        n += segs.iter().filter(|s| s.relro).count();
        n
    };
    let mut off: u64 = 64 + 56 * n_phdr as u64;
    let interp_off = off;
    if exe {
        off += INTERP.len() as u64 + 1;
    }
    off = align_up(off, 8);
    let dynsym_off = off;
    off += 24 * syms.len() as u64;
    let dynstr_off = off;
    off += dynstr.bytes.len() as u64;
    off = align_up(off, 8);
    let hash_off = off;
    let nbucket = (syms.len() as u64).max(1);
    off += 4 * (2 + nbucket + syms.len() as u64);
    off = align_up(off, 8);

    // Relocations (values symbolic until the layout is known).
    let mut rels: Vec<OutRel> = Vec::new();
    let mut textrel = false;
    let mut static_tls = false;
    // Stub code addresses are assigned below; keep (symbol index -> stub number).
    let stub_no: BTreeMap<usize, usize> = stubbed
        .iter()
        .enumerate()
        .map(|(n, i)| (i.symbol_index, n))
        .collect();
    let null_sym = Symbol {
        index: 0,
        raw_name: String::new(),
        nid: String::new(),
        plain_name: None,
        library: None,
        module: None,
        value: 0,
        size: 0,
        bind: STB_LOCAL,
        sym_type: STT_NOTYPE,
        other: 0,
        shndx: 0,
    };
    // Stub addresses are only known after the table sizes; record stub relocations to patch later.
    let mut stub_rels: Vec<(usize, usize, i64)> = Vec::new(); // (rels index, stub number, addend)
    for r in &f.relocs {
        if r.ty == R_X86_64_NONE {
            continue;
        }
        if !seg_writable(r.offset) {
            textrel = true;
        }
        let s = if r.sym == 0 {
            &null_sym
        } else {
            &f.symbols[r.sym as usize]
        };
        let local = r.sym == 0 || s.bind == STB_LOCAL || s.is_defined();
        let import = if local {
            None
        } else {
            by_index.get(&s.index).copied()
        };
        let off_v = V::Orig(r.offset);
        let tls_rel = matches!(
            r.ty,
            R_X86_64_DTPMOD64 | R_X86_64_DTPOFF64 | R_X86_64_TPOFF64
        );
        if tls_rel {
            if !local {
                return Err(LinkError::TlsImport {
                    offset: r.offset,
                    nid: s.nid.clone(),
                });
            }
            if f.tls.is_none() {
                return Err(bad(
                    r.offset,
                    r.ty,
                    "a TLS relocation in a file without PT_TLS".into(),
                ));
            }
        } else if local && s.sym_type == STT_TLS {
            return Err(bad(
                r.offset,
                r.ty,
                "an address relocation against a TLS symbol".into(),
            ));
        }
        let addend_sym = |with_addend: bool| if with_addend { r.addend } else { 0 };
        match r.ty {
            R_X86_64_RELATIVE => rels.push(OutRel {
                off: off_v,
                ty: R_X86_64_RELATIVE,
                sym: 0,
                addend: V::Orig(r.addend as u64),
                plt: false,
            }),
            R_X86_64_64 | R_X86_64_GLOB_DAT | R_X86_64_JUMP_SLOT => {
                // GLOB_DAT and JUMP_SLOT take no addend (shadPS4 linker.cpp `Relocate`).
                let a = addend_sym(r.ty == R_X86_64_64);
                if local {
                    rels.push(OutRel {
                        off: off_v,
                        ty: R_X86_64_RELATIVE,
                        sym: 0,
                        addend: V::Orig(s.value.wrapping_add(a as u64)),
                        plt: false,
                    });
                } else {
                    let imp = import.ok_or_else(|| {
                        bad(r.offset, r.ty, format!("symbol {} is not bound", s.nid))
                    })?;
                    match imp.resolution {
                        Resolution::Stub => {
                            stub_rels.push((rels.len(), stub_no[&s.index], a));
                            rels.push(OutRel {
                                off: off_v,
                                ty: R_X86_64_RELATIVE,
                                sym: 0,
                                addend: V::Abs(0),
                                plt: false,
                            });
                        }
                        _ => {
                            let si = *sym_map
                                .get(&s.index)
                                .ok_or_else(|| bad(r.offset, r.ty, "no output symbol".into()))?;
                            rels.push(OutRel {
                                off: off_v,
                                ty: r.ty,
                                sym: si,
                                addend: V::Abs(a as u64),
                                plt: r.ty == R_X86_64_JUMP_SLOT,
                            });
                        }
                    }
                }
            }
            R_X86_64_DTPMOD64 => rels.push(OutRel {
                off: off_v,
                ty: r.ty,
                sym: 0,
                addend: V::Abs(0),
                plt: false,
            }),
            R_X86_64_DTPOFF64 | R_X86_64_TPOFF64 => {
                if r.ty == R_X86_64_TPOFF64 {
                    static_tls = true;
                }
                rels.push(OutRel {
                    off: off_v,
                    ty: r.ty,
                    sym: 0,
                    addend: V::Abs(s.value.wrapping_add(r.addend as u64)),
                    plt: false,
                })
            }
            other => {
                return Err(bad(
                    r.offset,
                    other,
                    "not a supported relocation type".into(),
                ))
            }
        }
    }

    // Tail layout: dynamic, GOT slots, descriptor.
    let mut dyn_entries: Vec<(i64, V)> = Vec::new();
    // (entries filled below; count them first to size the tail)
    let mut tail_rels: Vec<OutRel> = Vec::new();

    // Header segment continued: relocation tables need the final count, which includes the
    // generated relocations; count them now.
    let desc_fields = 10u64;
    let mut gen_rel_count = 0usize;
    if exe {
        // GOT slot of __relink_start, the entry and the program name, then the optional fields.
        gen_rel_count += 3 + usize::from(f.proc_param.is_some());
        if spec.init_arrays {
            gen_rel_count += [
                f.preinit_array.is_some(),
                f.init.is_some(),
                f.init_array.is_some(),
            ]
            .iter()
            .filter(|b| **b)
            .count();
        }
    }
    if !stubbed.is_empty() {
        gen_rel_count += 1;
    }
    let n_rela = rels.iter().filter(|r| !r.plt).count() + gen_rel_count;
    let n_plt = rels.iter().filter(|r| r.plt).count();
    let rela_off = off;
    off += 24 * n_rela as u64;
    let plt_off = off;
    off += 24 * n_plt as u64;
    // Stub strings.
    let mut strings: Vec<u8> = Vec::new();
    let mut stub_str_off: Vec<u64> = Vec::new();
    let strings_off = off;
    for i in &stubbed {
        stub_str_off.push(strings_off + strings.len() as u64);
        let text = format!(
            "{} ({}) from library {} module {}",
            i.nid,
            i.known_name.as_deref().unwrap_or("unknown name"),
            i.library.as_deref().unwrap_or("?"),
            i.module.as_deref().unwrap_or("?")
        );
        strings.extend_from_slice(text.as_bytes());
        strings.push(0);
    }
    if exe {
        stub_str_off.push(strings_off + strings.len() as u64); // the program name, last
        strings.extend_from_slice(spec.file_name.as_bytes());
        strings.push(0);
    }
    off += strings.len() as u64;
    off = align_up(off, 16);
    let code_off = off;
    let entry_len = 24u64;
    let init_len = 16u64;
    let stub_len = 16u64;
    let entry_at = code_off;
    let init_at = code_off + if exe { entry_len } else { 0 };
    let has_init_shim = !exe && f.init.is_some();
    let stubs_at = init_at + if has_init_shim { init_len } else { 0 };
    off = stubs_at + stub_len * stubbed.len() as u64;
    let seg0_size = off;
    let k = align_up(seg0_size, align);
    let tail = align_up(k + image_end, align);
    // ET_SCE_EXEC is linked for a fixed address (shadPS4 maps it at `ExecutableLoadBase` 0x400000): the
    // output is an ET_EXEC whose PS image starts there, the header segment just below. Everything above
    // is computed as for a PIE; `base` is added to every address written.
    let fixed = f.kind == FileKind::Exec;
    let base = if fixed {
        if k > EXEC_BASE || EXEC_BASE % align != 0 {
            return Err(LinkError::Layout(format!(
                "ET_SCE_EXEC: {k:#x} bytes of headers or alignment {align:#x} do not fit below {EXEC_BASE:#x}"
            )));
        }
        EXEC_BASE - k
    } else {
        0
    };

    // Patch the stub relocations now that stub addresses are known.
    for (ri, n, a) in &stub_rels {
        rels[*ri].addend = V::Seg0((stubs_at + stub_len * *n as u64).wrapping_add(*a as u64));
    }

    // Tail: dynamic first; count entries.
    let mut dynv = |t: i64, v: V| dyn_entries.push((t, v));
    for n in &needed {
        dynv(DT_NEEDED, V::Abs(*n as u64));
    }
    if let Some(s) = soname {
        dynv(DT_SONAME, V::Abs(s as u64));
    }
    if let Some(r) = runpath {
        dynv(DT_RUNPATH, V::Abs(r as u64));
    }
    dynv(DT_HASH, V::Seg0(hash_off));
    dynv(DT_STRTAB, V::Seg0(dynstr_off));
    dynv(DT_SYMTAB, V::Seg0(dynsym_off));
    dynv(DT_STRSZ, V::Abs(dynstr.bytes.len() as u64));
    dynv(DT_SYMENT, V::Abs(24));
    dynv(DT_RELA, V::Seg0(rela_off));
    dynv(DT_RELASZ, V::Abs(24 * n_rela as u64));
    dynv(DT_RELAENT, V::Abs(24));
    if n_plt > 0 {
        dynv(DT_JMPREL, V::Seg0(plt_off));
        dynv(DT_PLTRELSZ, V::Abs(24 * n_plt as u64));
        dynv(DT_PLTREL, V::Abs(DT_RELA as u64));
    }
    if has_init_shim {
        dynv(DT_INIT, V::Seg0(init_at));
    }
    if !exe {
        if let Some(fini) = f.fini {
            dynv(DT_FINI, V::Orig(fini));
        }
    }
    if spec.init_arrays {
        if let Some((a, s)) = f.init_array {
            dynv(DT_INIT_ARRAY, V::Orig(a));
            dynv(DT_INIT_ARRAYSZ, V::Abs(s));
        }
        if let Some((a, s)) = f.fini_array {
            dynv(DT_FINI_ARRAY, V::Orig(a));
            dynv(DT_FINI_ARRAYSZ, V::Abs(s));
        }
        if exe {
            if let Some(fini) = f.fini {
                dynv(DT_FINI, V::Orig(fini));
            }
            if let Some((a, s)) = f.preinit_array {
                dynv(DT_PREINIT_ARRAY, V::Orig(a));
                dynv(DT_PREINIT_ARRAYSZ, V::Abs(s));
            }
        }
    }
    let mut flags = DF_BIND_NOW;
    if textrel {
        flags |= DF_TEXTREL;
        dynv(DT_TEXTREL, V::Abs(0));
    }
    if static_tls && !exe {
        flags |= DF_STATIC_TLS;
    }
    dynv(DT_FLAGS, V::Abs(flags));
    dynv(
        DT_FLAGS_1,
        V::Abs(if exe && !fixed {
            DF_1_NOW | DF_1_PIE
        } else {
            DF_1_NOW
        }),
    );
    if exe {
        dynv(DT_DEBUG, V::Abs(0));
    }
    dynv(DT_NULL, V::Abs(0));
    let dyn_size = 16 * dyn_entries.len() as u64;
    let mut toff = dyn_size;
    let got_start = toff;
    if exe {
        toff += 8;
    }
    let got_unres = toff;
    if !stubbed.is_empty() {
        toff += 8;
    }
    let desc_at = toff;
    if exe {
        toff += 8 * desc_fields;
    }
    let tail_size = toff;

    // Generated relocations.
    if exe {
        tail_rels.push(OutRel {
            off: V::Tail(got_start),
            ty: R_X86_64_GLOB_DAT,
            sym: rt_start_sym,
            addend: V::Abs(0),
            plt: false,
        });
        let field = |n: u64| V::Tail(desc_at + 8 * n);
        tail_rels.push(OutRel {
            off: field(1),
            ty: R_X86_64_RELATIVE,
            sym: 0,
            addend: V::Orig(f.entry),
            plt: false,
        });
        let name_at = *stub_str_off.last().expect("program name string");
        tail_rels.push(OutRel {
            off: field(9),
            ty: R_X86_64_RELATIVE,
            sym: 0,
            addend: V::Seg0(name_at),
            plt: false,
        });
        if let Some((pp, _)) = f.proc_param {
            tail_rels.push(OutRel {
                off: field(7),
                ty: R_X86_64_RELATIVE,
                sym: 0,
                addend: V::Orig(pp),
                plt: false,
            });
        }
        if spec.init_arrays {
            if let Some((a, _)) = f.preinit_array {
                tail_rels.push(OutRel {
                    off: field(2),
                    ty: R_X86_64_RELATIVE,
                    sym: 0,
                    addend: V::Orig(a),
                    plt: false,
                });
            }
            if let Some(a) = f.init {
                tail_rels.push(OutRel {
                    off: field(4),
                    ty: R_X86_64_RELATIVE,
                    sym: 0,
                    addend: V::Orig(a),
                    plt: false,
                });
            }
            if let Some((a, _)) = f.init_array {
                tail_rels.push(OutRel {
                    off: field(5),
                    ty: R_X86_64_RELATIVE,
                    sym: 0,
                    addend: V::Orig(a),
                    plt: false,
                });
            }
        }
    }
    if !stubbed.is_empty() {
        tail_rels.push(OutRel {
            off: V::Tail(got_unres),
            ty: R_X86_64_GLOB_DAT,
            sym: rt_unres_sym,
            addend: V::Abs(0),
            plt: false,
        });
    }
    debug_assert_eq!(tail_rels.len(), gen_rel_count);
    if tail_rels.len() != gen_rel_count {
        return Err(LinkError::Layout("generated relocation count".into()));
    }

    let res = |v: V| -> u64 {
        match v {
            V::Abs(x) => x,
            V::Orig(x) => x.wrapping_add(k).wrapping_add(base),
            V::Seg0(x) => x + base,
            V::Tail(x) => tail + x + base,
        }
    };
    let file_size = tail + tail_size;
    if file_size > 1 << 32 {
        return Err(LinkError::Layout("output over 4 GiB".into()));
    }
    let mut out = vec![0u8; file_size as usize];
    let put = |out: &mut Vec<u8>, at: u64, b: &[u8]| {
        out[at as usize..at as usize + b.len()].copy_from_slice(b)
    };

    // Program headers.
    struct Ph(u32, u32, u64, u64, u64, u64, u64);
    let mut phs: Vec<Ph> = Vec::new();
    if exe {
        phs.push(Ph(
            PT_PHDR,
            PF_R,
            64,
            64,
            56 * n_phdr as u64,
            56 * n_phdr as u64,
            8,
        ));
        phs.push(Ph(
            PT_INTERP,
            PF_R,
            interp_off,
            interp_off,
            INTERP.len() as u64 + 1,
            INTERP.len() as u64 + 1,
            1,
        ));
    }
    phs.push(Ph(PT_LOAD, PF_R | PF_X, 0, 0, seg0_size, seg0_size, align));
    for s in &segs {
        let a = s.vaddr + k;
        let mut fl = s.flags & (PF_R | PF_W | PF_X);
        if s.relro {
            fl |= PF_R | PF_W;
        }
        phs.push(Ph(PT_LOAD, fl, a, a, s.data.len() as u64, s.memsz, align));
    }
    phs.push(Ph(
        PT_LOAD,
        PF_R | PF_W,
        tail,
        tail,
        tail_size,
        tail_size,
        align,
    ));
    phs.push(Ph(
        PT_DYNAMIC,
        PF_R | PF_W,
        tail,
        tail,
        dyn_size,
        dyn_size,
        8,
    ));
    if let Some(t) = &f.tls {
        phs.push(Ph(
            PT_TLS,
            PF_R,
            t.vaddr + k,
            t.vaddr + k,
            t.filesz,
            t.memsz,
            t.align,
        ));
    }
    if let Some((v, m)) = f.eh_frame_hdr {
        phs.push(Ph(PT_GNU_EH_FRAME, PF_R, v + k, v + k, m, m, 4));
    }
    for s in segs.iter().filter(|s| s.relro) {
        phs.push(Ph(
            PT_GNU_RELRO,
            PF_R,
            s.vaddr + k,
            s.vaddr + k,
            s.memsz,
            s.memsz,
            1,
        ));
    }
    phs.push(Ph(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16));
    if phs.len() != n_phdr {
        return Err(LinkError::Layout("program header count".into()));
    }

    // ELF header.
    let mut eh = Vec::with_capacity(64);
    eh.extend_from_slice(b"\x7fELF");
    eh.extend_from_slice(&[2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    eh.extend_from_slice(&(if fixed { 2u16 } else { 3 }).to_le_bytes()); // ET_EXEC, ET_DYN
    eh.extend_from_slice(&EM_X86_64.to_le_bytes());
    eh.extend_from_slice(&1u32.to_le_bytes());
    eh.extend_from_slice(&(if exe { base + entry_at } else { 0 }).to_le_bytes());
    eh.extend_from_slice(&64u64.to_le_bytes()); // e_phoff
    eh.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    eh.extend_from_slice(&0u32.to_le_bytes());
    eh.extend_from_slice(&64u16.to_le_bytes());
    eh.extend_from_slice(&56u16.to_le_bytes());
    eh.extend_from_slice(&(n_phdr as u16).to_le_bytes());
    eh.extend_from_slice(&64u16.to_le_bytes());
    eh.extend_from_slice(&0u16.to_le_bytes());
    eh.extend_from_slice(&0u16.to_le_bytes());
    put(&mut out, 0, &eh);
    for (i, p) in phs.iter().enumerate() {
        let mut b = Vec::with_capacity(56);
        b.extend_from_slice(&p.0.to_le_bytes());
        b.extend_from_slice(&p.1.to_le_bytes());
        b.extend_from_slice(&p.2.to_le_bytes()); // offset (= address)
        b.extend_from_slice(&(p.3 + base).to_le_bytes());
        b.extend_from_slice(&(p.3 + base).to_le_bytes());
        b.extend_from_slice(&p.4.to_le_bytes());
        b.extend_from_slice(&p.5.to_le_bytes());
        b.extend_from_slice(&p.6.to_le_bytes());
        put(&mut out, 64 + 56 * i as u64, &b);
    }
    if exe {
        put(&mut out, interp_off, INTERP.as_bytes());
    }
    // Symbols.
    for (i, s) in syms.iter().enumerate() {
        let mut b = Vec::with_capacity(24);
        b.extend_from_slice(&s.name.to_le_bytes());
        b.push(s.info);
        b.push(0);
        b.extend_from_slice(&s.shndx.to_le_bytes());
        b.extend_from_slice(&res(s.value).to_le_bytes());
        b.extend_from_slice(&s.size.to_le_bytes());
        put(&mut out, dynsym_off + 24 * i as u64, &b);
    }
    put(&mut out, dynstr_off, &dynstr.bytes);
    // SysV hash.
    {
        let n = syms.len();
        let mut buckets = vec![0u32; nbucket as usize];
        let mut chains = vec![0u32; n];
        for (i, s) in syms.iter().enumerate().skip(1) {
            let name_end = dynstr.bytes[s.name as usize..]
                .iter()
                .position(|c| *c == 0)
                .unwrap_or(0);
            let h = elf_hash(&dynstr.bytes[s.name as usize..s.name as usize + name_end]) as usize
                % nbucket as usize;
            chains[i] = buckets[h];
            buckets[h] = i as u32;
        }
        let mut b = Vec::new();
        b.extend_from_slice(&(nbucket as u32).to_le_bytes());
        b.extend_from_slice(&(n as u32).to_le_bytes());
        for x in buckets.iter().chain(chains.iter()) {
            b.extend_from_slice(&x.to_le_bytes());
        }
        put(&mut out, hash_off, &b);
    }
    // Relocation tables.
    let enc = |r: &OutRel| {
        let mut b = Vec::with_capacity(24);
        b.extend_from_slice(&res(r.off).to_le_bytes());
        b.extend_from_slice(&(((r.sym as u64) << 32) | r.ty as u64).to_le_bytes());
        b.extend_from_slice(&res(r.addend).to_le_bytes());
        b
    };
    for (ri, r) in rels
        .iter()
        .filter(|r| !r.plt)
        .chain(tail_rels.iter())
        .enumerate()
    {
        put(&mut out, rela_off + 24 * ri as u64, &enc(r));
    }
    for (i, r) in rels.iter().filter(|r| r.plt).enumerate() {
        put(&mut out, plt_off + 24 * i as u64, &enc(r));
    }
    put(&mut out, strings_off, &strings);
    // Generated code.
    let rel32 = |from_next: u64, to: u64| -> [u8; 4] {
        ((to as i64 - from_next as i64) as i32).to_le_bytes()
    };
    if exe {
        let mut c = Vec::new();
        c.extend_from_slice(&[0x31, 0xed]); // xor ebp, ebp
        c.extend_from_slice(&[0x48, 0x89, 0xe7]); // mov rdi, rsp
        c.extend_from_slice(&[0x48, 0x8d, 0x35]); // lea rsi, [rip + desc]
        c.extend_from_slice(&rel32(entry_at + 12, tail + desc_at));
        c.extend_from_slice(&[0x48, 0x83, 0xe4, 0xf0]); // and rsp, -16
        c.extend_from_slice(&[0xff, 0x15]); // call [rip + got]  (rdx: the loader's fini function)
        c.extend_from_slice(&rel32(entry_at + 22, tail + got_start));
        c.extend_from_slice(&[0x0f, 0x0b]); // ud2
        debug_assert_eq!(c.len() as u64, entry_len);
        put(&mut out, entry_at, &c);
    }
    if has_init_shim {
        let init = f.init.expect("init") + k;
        let mut c = Vec::new();
        c.extend_from_slice(&[0x31, 0xff]); // xor edi, edi  (args = 0)
        c.extend_from_slice(&[0x31, 0xf6]); // xor esi, esi  (argp = NULL)
        c.extend_from_slice(&[0x31, 0xd2]); // xor edx, edx  (param = NULL)
        c.push(0xe9); // jmp init
        c.extend_from_slice(&rel32(init_at + 11, init));
        c.resize(init_len as usize, 0xcc);
        put(&mut out, init_at, &c);
    }
    for (n, _) in stubbed.iter().enumerate() {
        let at = stubs_at + stub_len * n as u64;
        let mut c = Vec::new();
        c.extend_from_slice(&[0x48, 0x8d, 0x3d]); // lea rdi, [rip + text]
        c.extend_from_slice(&rel32(at + 7, stub_str_off[n]));
        c.extend_from_slice(&[0xff, 0x25]); // jmp [rip + got]
        c.extend_from_slice(&rel32(at + 13, tail + got_unres));
        c.resize(stub_len as usize, 0xcc);
        put(&mut out, at, &c);
    }
    // PS segments.
    for s in &segs {
        put(&mut out, s.vaddr + k, &s.data);
    }
    // Tail.
    for (i, (t, v)) in dyn_entries.iter().enumerate() {
        let mut b = Vec::with_capacity(16);
        b.extend_from_slice(&t.to_le_bytes());
        b.extend_from_slice(&res(*v).to_le_bytes());
        put(&mut out, tail + 16 * i as u64, &b);
    }
    if exe {
        let d = tail + desc_at;
        put(&mut out, d, DESC_MAGIC);
        if spec.init_arrays {
            if let Some((_, s)) = f.preinit_array {
                put(&mut out, d + 24, &(s / 8).to_le_bytes());
            }
            if let Some((_, s)) = f.init_array {
                put(&mut out, d + 48, &(s / 8).to_le_bytes());
            }
        }
        put(
            &mut out,
            d + 64,
            &(f.proc_param.map_or(0, |p| p.1)).to_le_bytes(),
        );
    }
    Ok(out)
}
