//! The HSA code object writer against LLVM: `llvm-readelf-19` and `llvm-objdump-19` accept what it writes,
//! `goblin` decodes it and every descriptor field is the one the kernel asked for, and the file agrees field
//! by field with what `clang-19` and `ld.lld-19` make of the same kernel written as `.amdhsa_kernel`
//! assembly. The intended differences (layout addresses, sections lld adds) are listed in
//! [`lld_adds_only_what_a_loader_does_not_need`].
//!
//! CI installs `llvm-19`, `clang-19` and `lld-19`; elsewhere the LLVM comparisons are skipped with a note.

use goblin::elf::Elf;
use measurements::FloatMode;
use oracle_runner::codeobj::{self, BufferArg, Descriptor, KernelSpec, Version};
use std::path::Path;
use std::process::Command;

fn ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// Whether `tool` runs; in CI it must.
fn have(tool: &str) -> bool {
    let ok = Command::new(tool).arg("--version").output().is_ok();
    assert!(
        ok || !ci(),
        "CI needs {tool} (Debian: llvm-19, clang-19, lld-19)"
    );
    if !ok {
        eprintln!("NOTE: {tool} is not installed; skipping the comparison with LLVM");
    }
    ok
}

/// s_load_dwordx4 s[4:7], s[0:1], 0x0; v_mov_b32 v10, 0; s_endpgm (as llvm-mc-19 encodes them).
const CODE: [u32; 4] = [0xf408_0100, 0xfa00_0000, 0x7e14_0280, 0xbf81_0000];

fn spec(mode: FloatMode, wave: u32) -> KernelSpec {
    KernelSpec {
        name: "probe".into(),
        code: CODE.to_vec(),
        wave,
        vgprs: 26,
        sgprs: 8,
        mode,
        kernarg_ptr: true,
        workgroup_id: [true, false, false],
        workitem_ids: 0,
        lds_bytes: 256,
        kernarg_size: 16,
        args: vec![BufferArg { offset: 0 }, BufferArg { offset: 8 }],
        values: vec![],
        max_workgroup_size: 256,
    }
}

/// The same kernel as assembly for clang-19 (`.amdhsa_kernel`, and the metadata as YAML).
fn assembly(k: &KernelSpec, gpu: &str) -> String {
    let m = k.mode;
    let f = m.float_mode;
    format!(
        ".amdgcn_target \"amdgcn-amd-amdhsa--{gpu}\"
.text
.globl {n}
.p2align 8
.type {n},@function
{n}:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_mov_b32 v10, 0
  s_endpgm
.Lend:
.size {n}, .Lend-{n}
.rodata
.p2align 6
.amdhsa_kernel {n}
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr {v}
  .amdhsa_next_free_sgpr {s}
  .amdhsa_reserve_vcc 0
  .amdhsa_wavefront_size32 {w32}
  .amdhsa_group_segment_fixed_size {lds}
  .amdhsa_kernarg_size {ka}
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_float_round_mode_32 {r32}
  .amdhsa_float_round_mode_16_64 {r16}
  .amdhsa_float_denorm_mode_32 {d32}
  .amdhsa_float_denorm_mode_16_64 {d16}
  .amdhsa_dx10_clamp {dx}
  .amdhsa_ieee_mode {ieee}
  .amdhsa_fp16_overflow {ovfl}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--{gpu}
amdhsa.kernels:
  - .name: {n}
    .symbol: {n}.kd
    .kernarg_segment_size: {ka}
    .group_segment_fixed_size: {lds}
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: {wave}
    .sgpr_count: {s}
    .vgpr_count: {v}
    .max_flat_workgroup_size: 256
    .sgpr_spill_count: 0
    .vgpr_spill_count: 0
    .uses_dynamic_stack: false
    .args:
      - {{ .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
      - {{ .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
",
        n = k.name,
        v = k.vgprs,
        s = k.sgprs,
        w32 = u32::from(k.wave == 32),
        wave = k.wave,
        lds = k.lds_bytes,
        ka = k.kernarg_size,
        r32 = f & 3,
        r16 = f >> 2 & 3,
        d32 = f >> 4 & 3,
        d16 = f >> 6 & 3,
        dx = u32::from(m.dx10_clamp),
        ieee = u32::from(m.ieee),
        ovfl = u32::from(m.fp16_ovfl),
    )
}

/// clang-19 assembles, ld.lld-19 links: the code object LLVM makes.
fn llvm_object(dir: &Path, k: &KernelSpec, gpu: &str) -> Vec<u8> {
    let s = dir.join("k.s");
    let o = dir.join("k.o");
    let co = dir.join("k.co");
    std::fs::write(&s, assembly(k, gpu)).unwrap();
    let run = |cmd: &mut Command| {
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(Command::new("clang-19")
        .args(["-target", "amdgcn-amd-amdhsa", &format!("-mcpu={gpu}")])
        .arg("-mcode-object-version=5")
        .arg("-c")
        .arg(&s)
        .arg("-o")
        .arg(&o));
    run(Command::new("ld.lld-19")
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&co));
    std::fs::read(&co).unwrap()
}

/// The bytes of dynamic symbol `name` (its section's file offset plus the symbol's offset in it).
fn symbol_bytes<'a>(file: &'a [u8], elf: &Elf, name: &str) -> &'a [u8] {
    let sym = elf
        .dynsyms
        .iter()
        .find(|s| elf.dynstrtab.get_at(s.st_name) == Some(name))
        .unwrap_or_else(|| panic!("no dynamic symbol {name}"));
    let sh = &elf.section_headers[sym.st_shndx];
    let at = (sh.sh_offset + sym.st_value - sh.sh_addr) as usize;
    &file[at..at + sym.st_size as usize]
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

/// The address of dynamic symbol `name`.
fn symbol_addr(elf: &Elf, name: &str) -> u64 {
    elf.dynsyms
        .iter()
        .find(|s| elf.dynstrtab.get_at(s.st_name) == Some(name))
        .map(|s| s.st_value)
        .unwrap()
}

const MODES: [FloatMode; 3] = [
    FloatMode::TITLE,
    FloatMode {
        float_mode: 0xf3,
        ieee: true,
        dx10_clamp: false,
        fp16_ovfl: true,
    },
    FloatMode {
        float_mode: 0x39,
        ieee: false,
        dx10_clamp: true,
        fp16_ovfl: false,
    },
];

#[test]
fn goblin_decodes_every_descriptor_field_the_kernel_asked_for() {
    for mode in MODES {
        for wave in [32, 64] {
            let k = spec(mode, wave);
            let gpu = codeobj::gpu("gfx1013").unwrap();
            let f = codeobj::write(&k, gpu, Version::V5).unwrap();
            let elf = Elf::parse(&f).unwrap();
            assert_eq!(elf.header.e_ident[7], 64, "EI_OSABI AMDGPU_HSA");
            assert_eq!(elf.header.e_ident[8], 3, "EI_ABIVERSION v5");
            assert_eq!(elf.header.e_type, goblin::elf::header::ET_DYN);
            assert_eq!(elf.header.e_machine, 224);
            assert_eq!(elf.header.e_flags, 0x142, "gfx1013, XNACK any");
            let kd = symbol_bytes(&f, &elf, "probe.kd");
            assert_eq!(kd.len(), 64);
            let kd_addr = symbol_addr(&elf, "probe.kd");
            let code_addr = symbol_addr(&elf, "probe");
            assert_eq!(kd_addr % 64, 0);
            assert_eq!(code_addr % 256, 0);
            assert_eq!(u32_at(kd, 0), 256, "group_segment_fixed_size");
            assert_eq!(u32_at(kd, 4), 0, "private_segment_fixed_size");
            assert_eq!(u32_at(kd, 8), 16, "kernarg_size");
            let entry = i64::from_le_bytes(kd[16..24].try_into().unwrap());
            assert_eq!(kd_addr as i64 + entry, code_addr as i64, "entry offset");
            let r1 = u32_at(kd, 48);
            let granule = if wave == 32 { 8 } else { 4 };
            assert_eq!(r1 & 0x3f, 26u32.div_ceil(granule) - 1, "VGPR granules");
            assert_eq!(r1 >> 6 & 0xf, 0, "SGPR granules (reserved on gfx10)");
            assert_eq!(r1 >> 12 & 3, u32::from(mode.float_mode) & 3, "round 32");
            assert_eq!(
                r1 >> 14 & 3,
                u32::from(mode.float_mode) >> 2 & 3,
                "round 16/64"
            );
            assert_eq!(
                r1 >> 16 & 3,
                u32::from(mode.float_mode) >> 4 & 3,
                "denorm 32"
            );
            assert_eq!(
                r1 >> 18 & 3,
                u32::from(mode.float_mode) >> 6 & 3,
                "denorm 16/64"
            );
            assert_eq!(r1 >> 21 & 1 == 1, mode.dx10_clamp, "DX10_CLAMP");
            assert_eq!(r1 >> 23 & 1 == 1, mode.ieee, "IEEE_MODE");
            assert_eq!(r1 >> 26 & 1 == 1, mode.fp16_ovfl, "FP16_OVFL");
            let r2 = u32_at(kd, 52);
            assert_eq!(r2 >> 1 & 0x1f, 2, "USER_SGPR_COUNT: the kernarg pointer");
            assert_eq!(r2 >> 7 & 7, 1, "workgroup id x only");
            assert_eq!(r2 >> 11 & 3, 0, "work-item id x only");
            assert_eq!(r2 & 1, 0, "no scratch");
            assert_eq!(u32_at(kd, 44), 0, "RSRC3");
            let props = u16::from_le_bytes([kd[56], kd[57]]);
            assert_eq!(props & 8, 8, "kernarg segment pointer");
            assert_eq!(props >> 10 & 1 == 1, wave == 32, "wave32");
            assert_eq!(props & !(8 | 1 << 10), 0, "nothing else enabled");
            let d = Descriptor::from_bytes(kd).unwrap();
            assert_eq!(d.rsrc1, r1);
            // The code is the kernel's words.
            let code = symbol_bytes(&f, &elf, "probe");
            let words: Vec<u32> = code.chunks(4).map(|c| u32_at(c, 0)).collect();
            assert_eq!(words, CODE);
            // The metadata note.
            let notes: Vec<_> = elf
                .iter_note_headers(&f)
                .unwrap()
                .map(|n| n.unwrap())
                .collect();
            assert_eq!(notes.len(), 1);
            assert_eq!((notes[0].name, notes[0].n_type), ("AMDGPU", 32));
        }
    }
}

#[test]
fn bad_kernels_are_errors_not_files() {
    let gpu = codeobj::gpu("gfx1036").unwrap();
    let mut k = spec(FloatMode::TITLE, 32);
    k.wave = 16;
    assert!(codeobj::write(&k, gpu, Version::V5)
        .unwrap_err()
        .contains("wave size 16"));
    let mut k = spec(FloatMode::TITLE, 32);
    k.vgprs = 300;
    assert!(codeobj::write(&k, gpu, Version::V4)
        .unwrap_err()
        .contains("300 VGPRs"));
    let mut k = spec(FloatMode::TITLE, 32);
    k.name = "two words".into();
    assert!(codeobj::write(&k, gpu, Version::V4).is_err());
    let mut k = spec(FloatMode::TITLE, 32);
    k.code.clear();
    assert!(codeobj::write(&k, gpu, Version::V4)
        .unwrap_err()
        .contains("no code"));
    let e = codeobj::gpu("gfx1100").unwrap_err();
    assert!(e.contains("gfx1013") && e.contains("gfx1100"), "{e}");
    // Version 4 and a chip without XNACK: flags and ABI version follow.
    let f = codeobj::write(&spec(FloatMode::TITLE, 32), gpu, Version::V4).unwrap();
    let elf = Elf::parse(&f).unwrap();
    assert_eq!((elf.header.e_ident[8], elf.header.e_flags), (2, 0x045));
}

#[test]
fn llvm_readelf_and_objdump_accept_it() {
    if !have("llvm-readelf-19") || !have("llvm-objdump-19") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("probe.co");
    let gpu = codeobj::gpu("gfx1013").unwrap();
    std::fs::write(
        &path,
        codeobj::write(&spec(FloatMode::TITLE, 32), gpu, Version::V5).unwrap(),
    )
    .unwrap();
    let out = Command::new("llvm-readelf-19")
        .args([
            "-h",
            "-l",
            "-S",
            "--dyn-syms",
            "-d",
            "--notes",
            "--hash-table",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{err}\n{text}");
    for want in [
        "AMDGPU - HSA",
        "EM_AMDGPU",
        "gfx1013",
        "xnack",
        "NT_AMDGPU_METADATA",
        "probe.kd",
        ".vgpr_count:     26",
    ] {
        assert!(text.contains(want), "readelf lacks {want}:\n{text}");
    }
    let out = Command::new("llvm-objdump-19")
        .arg("-d")
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "<probe>:",
        "s_load_dwordx4 s[4:7], s[0:1]",
        "v_mov_b32_e32 v10, 0",
        "s_endpgm",
    ] {
        assert!(text.contains(want), "objdump lacks {want}:\n{text}");
    }
}

/// The readelf dump of a file's metadata note (YAML, as LLVM prints it).
fn notes_yaml(path: &Path) -> String {
    let out = Command::new("llvm-readelf-19")
        .arg("--notes")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text[text.find("---").expect("a metadata dump")..].to_string()
}

#[test]
fn the_file_agrees_field_by_field_with_clang_and_lld() {
    if !have("clang-19") || !have("ld.lld-19") || !have("llvm-readelf-19") {
        return;
    }
    for gpu_name in ["gfx1013", "gfx1036"] {
        for mode in MODES {
            for wave in [32, 64] {
                let tmp = tempfile::tempdir().unwrap();
                let k = spec(mode, wave);
                let gpu = codeobj::gpu(gpu_name).unwrap();
                let ours = codeobj::write(&k, gpu, Version::V5).unwrap();
                let theirs = llvm_object(tmp.path(), &k, gpu_name);
                let (a, b) = (Elf::parse(&ours).unwrap(), Elf::parse(&theirs).unwrap());
                let ctx = format!("{gpu_name} mode {mode:?} wave {wave}");
                assert_eq!(a.header.e_ident, b.header.e_ident, "{ctx}: e_ident");
                assert_eq!(a.header.e_type, b.header.e_type, "{ctx}");
                assert_eq!(a.header.e_machine, b.header.e_machine, "{ctx}");
                assert_eq!(a.header.e_flags, b.header.e_flags, "{ctx}: e_flags");
                // The descriptor: every byte but the entry offset (it depends on where each linker puts
                // the code) is equal, and each entry offset points at its own file's code.
                let (ka, kb) = (
                    symbol_bytes(&ours, &a, "probe.kd"),
                    symbol_bytes(&theirs, &b, "probe.kd"),
                );
                assert_eq!(ka[..16], kb[..16], "{ctx}: descriptor bytes 0..16");
                assert_eq!(
                    ka[24..],
                    kb[24..],
                    "{ctx}: descriptor bytes 24..64 (RSRC1 {:#x} vs {:#x})",
                    u32_at(ka, 48),
                    u32_at(kb, 48)
                );
                for (elf, kd) in [(&a, ka), (&b, kb)] {
                    let entry = i64::from_le_bytes(kd[16..24].try_into().unwrap());
                    assert_eq!(
                        symbol_addr(elf, "probe.kd") as i64 + entry,
                        symbol_addr(elf, "probe") as i64,
                        "{ctx}"
                    );
                }
                assert_eq!(
                    symbol_bytes(&ours, &a, "probe"),
                    symbol_bytes(&theirs, &b, "probe"),
                    "{ctx}: code"
                );
                // The dynamic symbols: names, kinds, bindings, visibility, sizes.
                let syms = |elf: &Elf| -> Vec<(String, u8, u8, u64)> {
                    elf.dynsyms
                        .iter()
                        .map(|s| {
                            (
                                elf.dynstrtab.get_at(s.st_name).unwrap_or("").to_string(),
                                s.st_info,
                                s.st_other,
                                s.st_size,
                            )
                        })
                        .collect()
                };
                assert_eq!(syms(&a), syms(&b), "{ctx}: dynamic symbols");
                // The metadata as LLVM reads it back from each file.
                let (pa, pb) = (tmp.path().join("ours.co"), tmp.path().join("k.co"));
                std::fs::write(&pa, &ours).unwrap();
                assert_eq!(notes_yaml(&pa), notes_yaml(&pb), "{ctx}: metadata");
            }
        }
    }
}

/// What lld writes and this writer does not, each a choice: none of it is read by ROCr's loader for a
/// kernel without relocations or imports. Checked so that the list stays true.
#[test]
fn lld_adds_only_what_a_loader_does_not_need() {
    if !have("clang-19") || !have("ld.lld-19") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let k = spec(FloatMode::TITLE, 32);
    let ours = codeobj::write(&k, codeobj::gpu("gfx1013").unwrap(), Version::V5).unwrap();
    let theirs = llvm_object(tmp.path(), &k, "gfx1013");
    let names = |f: &[u8]| -> Vec<String> {
        let e = Elf::parse(f).unwrap();
        e.section_headers
            .iter()
            .map(|s| e.shdr_strtab.get_at(s.sh_name).unwrap_or("").to_string())
            .collect()
    };
    let (a, b) = (names(&ours), names(&theirs));
    let extra: Vec<&String> = b.iter().filter(|n| !a.contains(n)).collect();
    // .gnu.hash: a second hash table beside .hash; .relro_padding: lld's RELRO page padding; .comment: the
    // linker's name.
    assert_eq!(extra, [".gnu.hash", ".relro_padding", ".comment"], "{b:?}");
    assert!(a.iter().all(|n| b.contains(n)), "{a:?} vs {b:?}");
    let kinds = |f: &[u8]| -> Vec<u32> {
        Elf::parse(f)
            .unwrap()
            .program_headers
            .iter()
            .map(|p| p.p_type)
            .collect()
    };
    // lld also writes PT_GNU_RELRO and PT_GNU_STACK (host-loader conventions).
    let (pa, pb) = (kinds(&ours), kinds(&theirs));
    let extra: Vec<u32> = pb.iter().copied().filter(|t| !pa.contains(t)).collect();
    assert_eq!(
        extra,
        [
            goblin::elf::program_header::PT_GNU_RELRO,
            goblin::elf::program_header::PT_GNU_STACK
        ]
    );
}
