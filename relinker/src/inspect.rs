//! `relink inspect`: the SCE structures of a file, like `readelf` for them.

use crate::names::KnownNames;
use crate::reader::{ContainerKind, PsFile};
use crate::sce::*;
use std::fmt::Write;

/// The text dump of a file.
pub fn inspect(f: &PsFile, names: &KnownNames) -> String {
    let mut s = String::new();
    let w = &mut s;
    match &f.container {
        ContainerKind::Elf => {
            writeln!(w, "container: ELF").ok();
        }
        ContainerKind::SelfFile { ps5, segments } => {
            writeln!(
                w,
                "container: SELF ({}), {} segments",
                if *ps5 { "PS5" } else { "PS4" },
                segments.len()
            )
            .ok();
            for (i, sg) in segments.iter().enumerate() {
                writeln!(
                    w,
                    "  segment {i}: flags {:#x} (phdr {}{}{}{}) offset {:#x} file {:#x} memory {:#x}",
                    sg.flags,
                    if sg.blocked() { sg.phdr_id().to_string() } else { "-".into() },
                    if sg.encrypted() { ", encrypted" } else { "" },
                    if sg.compressed() { ", compressed" } else { "" },
                    if sg.flags & SELF_SEG_SIGNED != 0 { ", signed" } else { "" },
                    sg.offset,
                    sg.file_size,
                    sg.memory_size
                )
                .ok();
            }
        }
    }
    writeln!(
        w,
        "type: {:#06x} ({:?}), osabi {}, abiversion {}, entry {:#x}",
        f.e_type, f.kind, f.osabi, f.abiversion, f.entry
    )
    .ok();
    writeln!(w, "program headers:").ok();
    for p in &f.phdrs {
        writeln!(
            w,
            "  [{:2}] {:<20} {:#010x} off {:#08x} vaddr {:#010x} filesz {:#08x} memsz {:#08x} flags {}{}{} align {:#x}",
            p.index,
            phdr_type_name(p.p_type),
            p.p_type,
            p.offset,
            p.vaddr,
            p.filesz,
            p.memsz,
            if p.flags & PF_R != 0 { 'R' } else { '-' },
            if p.flags & PF_W != 0 { 'W' } else { '-' },
            if p.flags & PF_X != 0 { 'X' } else { '-' },
            p.align
        )
        .ok();
    }
    writeln!(w, "table convention: {:?}", f.convention).ok();
    writeln!(w, "dynamic ({} entries):", f.dynamic.len()).ok();
    for d in &f.dynamic {
        writeln!(
            w,
            "  {:<28} {:#018x}",
            tag_name(d.tag).unwrap_or("?"),
            d.value
        )
        .ok();
    }
    if let Some(n) = &f.original_filename {
        writeln!(w, "original file name: {n}").ok();
    }
    if let Some(m) = &f.module_info {
        writeln!(
            w,
            "module: {} version {}.{} id {}",
            m.name, m.version_major, m.version_minor, m.id
        )
        .ok();
    }
    for m in &f.needed_modules {
        writeln!(
            w,
            "needed module: {} version {}.{} id {} ({})",
            m.name,
            m.version_major,
            m.version_minor,
            m.id,
            crate::nid::encode_id(m.id)
        )
        .ok();
    }
    for l in &f.export_libs {
        writeln!(
            w,
            "export library: {} version {} id {} ({})",
            l.name,
            l.version,
            l.id,
            crate::nid::encode_id(l.id)
        )
        .ok();
    }
    for l in &f.import_libs {
        writeln!(
            w,
            "import library: {} version {} id {} ({})",
            l.name,
            l.version,
            l.id,
            crate::nid::encode_id(l.id)
        )
        .ok();
    }
    for n in &f.needed {
        writeln!(w, "needed: {n}").ok();
    }
    if let Some(t) = &f.tls {
        writeln!(
            w,
            "TLS: vaddr {:#x} filesz {:#x} memsz {:#x} align {:#x}",
            t.vaddr, t.filesz, t.memsz, t.align
        )
        .ok();
    }
    if let Some((v, sz)) = f.proc_param {
        writeln!(w, "process param: {v:#x} size {sz:#x}").ok();
    }
    if let Some((v, sz)) = f.module_param {
        writeln!(w, "module param: {v:#x} size {sz:#x}").ok();
    }
    for (what, v) in [("init", f.init), ("fini", f.fini)] {
        if let Some(v) = v {
            writeln!(w, "{what}: {v:#x}").ok();
        }
    }
    for (what, v) in [
        ("init array", f.init_array),
        ("fini array", f.fini_array),
        ("preinit array", f.preinit_array),
    ] {
        if let Some((a, sz)) = v {
            writeln!(w, "{what}: {a:#x} ({} entries)", sz / 8).ok();
        }
    }
    writeln!(w, "symbols ({}):", f.symbols.len()).ok();
    for sy in &f.symbols {
        if sy.index == 0 {
            continue;
        }
        let known = sy
            .plain_name
            .clone()
            .or_else(|| names.get(&sy.nid).map(str::to_string));
        writeln!(
            w,
            "  [{:3}] {:<24} {:<8} {:<6} {} value {:#x} size {:#x}{}",
            sy.index,
            sy.raw_name,
            crate::link::sym_type_name(sy.sym_type),
            match sy.bind {
                STB_LOCAL => "local",
                STB_GLOBAL => "global",
                STB_WEAK => "weak",
                _ => "other",
            },
            if sy.is_defined() {
                "defined"
            } else {
                "import "
            },
            sy.value,
            sy.size,
            match (&sy.library, &sy.module, known) {
                (Some(l), Some(m), k) => format!(
                    " lib {l} mod {m}{}",
                    k.map(|k| format!(" = {k}")).unwrap_or_default()
                ),
                (_, _, Some(k)) => format!(" = {k}"),
                _ => String::new(),
            }
        )
        .ok();
    }
    writeln!(w, "relocations ({}):", f.relocs.len()).ok();
    for r in &f.relocs {
        let sym = f
            .symbols
            .get(r.sym as usize)
            .map(|s| s.raw_name.as_str())
            .unwrap_or("");
        writeln!(
            w,
            "  {} {:#010x} {:<20} sym {:3} {:<24} addend {:#x}",
            if r.plt { "plt " } else { "rela" },
            r.offset,
            reloc_name(r.ty),
            r.sym,
            sym,
            r.addend
        )
        .ok();
    }
    s
}
