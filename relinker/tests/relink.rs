//! End to end: gcc-built fixtures written as PS5/PS4 files, relinked, run on Linux.

mod common;

use common::*;
use relinker::Options;
use std::path::Path;
use std::process::Command;

fn options() -> Options {
    Options {
        natives: vec![native_libs::lib_dir().to_path_buf()],
        ..Options::default()
    }
}

fn run(exe: &Path, args: &[&str]) -> std::process::Output {
    Command::new(exe)
        .args(args)
        .env_clear()
        .output()
        .expect("run the relinked program")
}

/// Runs a relinked fixture executable and checks its exact stdout and exit status.
fn assert_runs_main(exe: &Path) {
    let o = run(exe, &[]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        MAIN_STDOUT,
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(MAIN_STATUS));
}

fn relink_and_run(tags: Tags, conv: Convention) {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.main, &exe_spec(tags, conv));
    let module = write_ps(&b.module, &module_spec(tags, conv));
    let app = app_dir(&main, Some(&module));
    let out = app.path().join("out");
    let report = relinker::relink(&app.path().join("eboot.bin"), &out, &options()).expect("relink");
    assert_eq!(report.unresolved, 0);
    assert_runs_main(&out.join("eboot"));
}

#[test]
fn ps5_tags_sce_tables_run() {
    relink_and_run(Tags::Ps5, Convention::Sce);
}

#[test]
fn ps4_tags_sce_tables_run() {
    relink_and_run(Tags::Ps4, Convention::Sce);
}

#[test]
fn ps5_tags_standard_tables_run() {
    relink_and_run(Tags::Ps5, Convention::Standard);
}

/// Writes the fixture app to $RELINK_DUMP (for looking at by hand).
#[test]
#[ignore = "a tool, not a check: writes the fixture app to $RELINK_DUMP for looking at by hand"]
fn dump_fixture_app() {
    let b = built();
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let d = std::path::PathBuf::from(std::env::var("RELINK_DUMP").unwrap());
    std::fs::create_dir_all(d.join("sce_module")).unwrap();
    std::fs::write(d.join("eboot.bin"), main).unwrap();
    std::fs::write(d.join("sce_module/libfixmod.prx"), module).unwrap();
    std::fs::write(
        d.join("unknown.bin"),
        write_ps(&b.unknown, &exe_spec(Tags::Ps5, Convention::Sce)),
    )
    .unwrap();
    std::fs::write(
        d.join("syscall.bin"),
        write_ps(&b.syscall, &exe_spec(Tags::Ps5, Convention::Sce)),
    )
    .unwrap();
}

#[test]
fn sce_relro_segments_and_omitted_symtabsz_run() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let mut ms = exe_spec(Tags::Ps5, Convention::Sce);
    ms.relro = true;
    ms.omit_symtabsz = true;
    let mut mods = module_spec(Tags::Ps5, Convention::Standard);
    mods.relro = true;
    mods.omit_symtabsz = true;
    let main = write_ps(&b.main, &ms);
    let module = write_ps(&b.module, &mods);
    for f in [&main, &module] {
        let r = relinker::reader::read(f).unwrap();
        assert!(r.segments.iter().any(|s| s.relro), "a PT_SCE_RELRO segment");
        assert!(!r
            .dynamic
            .iter()
            .any(|d| d.tag == relinker::sce::DT_SCE_SYMTABSZ));
    }
    let app = app_dir(&main, Some(&module));
    let out = app.path().join("out");
    relinker::relink(&app.path().join("eboot.bin"), &out, &options()).expect("relink");
    for f in ["eboot", "libfixmod.so"] {
        let bytes = std::fs::read(out.join(f)).unwrap();
        let elf = goblin::elf::Elf::parse(&bytes).unwrap();
        assert!(
            elf.program_headers
                .iter()
                .any(|p| p.p_type == goblin::elf::program_header::PT_GNU_RELRO),
            "{f}"
        );
    }
    assert_runs_main(&out.join("eboot"));
}

#[test]
fn fixed_address_executable_runs_at_its_base() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let mut ms = exe_spec(Tags::Ps4, Convention::Sce);
    ms.fixed_exec = true;
    let main = write_ps(&b.main, &ms);
    let module = write_ps(&b.module, &module_spec(Tags::Ps4, Convention::Sce));
    assert_eq!(
        relinker::reader::read(&main).unwrap().kind,
        relinker::reader::FileKind::Exec
    );
    let app = app_dir(&main, Some(&module));
    let out = app.path().join("out");
    relinker::relink(&app.path().join("eboot.bin"), &out, &options()).expect("relink");
    let bytes = std::fs::read(out.join("eboot")).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.header.e_type, goblin::elf::header::ET_EXEC);
    let loads: Vec<u64> = elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == 1)
        .map(|p| p.p_vaddr)
        .collect();
    assert_eq!(
        loads[1],
        relinker::elfout::EXEC_BASE,
        "the PS image starts at 0x400000"
    );
    assert!(loads[0] < loads[1]);
    assert_runs_main(&out.join("eboot"));
}

#[test]
fn no_init_arrays_leaves_constructors_to_the_program() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, Some(&module));
    let out = app.path().join("out");
    let opts = Options {
        init_arrays: false,
        ..options()
    };
    relinker::relink(&app.path().join("eboot.bin"), &out, &opts).expect("relink");
    let o = run(&out.join("eboot"), &[]);
    let want: String = MAIN_STDOUT
        .lines()
        .filter(|l| !l.contains("structor"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    assert_eq!(o.status.code(), Some(MAIN_STATUS));
}

const RELINK: &str = env!("CARGO_BIN_EXE_relink");

fn relink_cmd(args: &[&str]) -> std::process::Output {
    Command::new(RELINK)
        .args(args)
        .output()
        .expect("run relink")
}

fn natives() -> String {
    native_libs::lib_dir().display().to_string()
}

#[test]
fn self_wrapped_fixtures_relink_and_run() {
    if !have_gcc() {
        return;
    }
    let b = built();
    for ps5 in [true, false] {
        let tags = if ps5 { Tags::Ps5 } else { Tags::Ps4 };
        let main = wrap_self(
            &write_ps(&b.main, &exe_spec(tags, Convention::Sce)),
            ps5,
            None,
        );
        let module = wrap_self(
            &write_ps(&b.module, &module_spec(tags, Convention::Sce)),
            ps5,
            None,
        );
        let app = app_dir(&main, Some(&module));
        let out = app.path().join("out");
        relinker::relink(&app.path().join("eboot.bin"), &out, &options()).expect("relink");
        let o = run(&out.join("eboot"), &[]);
        assert_eq!(String::from_utf8_lossy(&o.stdout), MAIN_STDOUT);
        assert_eq!(o.status.code(), Some(MAIN_STATUS));
        // The same with the module's data segment marked encrypted: a typed error naming it.
        let phdr_of_data = 3; // gcc's fourth PT_LOAD (RW) is program header 3 of the PS file
        let enc = wrap_self(
            &write_ps(&b.module, &module_spec(tags, Convention::Sce)),
            ps5,
            Some(phdr_of_data),
        );
        let app = app_dir(&main, Some(&enc));
        match relinker::relink(
            &app.path().join("eboot.bin"),
            &app.path().join("out"),
            &options(),
        ) {
            Err(relinker::error::LinkError::Read {
                path,
                source: relinker::error::ReadError::EncryptedSegment { phdr, .. },
            }) => {
                assert!(path.ends_with("libfixmod.prx"));
                assert_eq!(phdr, phdr_of_data);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn report_lists_every_import() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, Some(&module));
    let eboot = app.path().join("eboot.bin");
    let o = relink_cmd(&["report", eboot.to_str().unwrap(), "-L", &natives()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let imports = v["imports"].as_array().unwrap();
    // Every undefined symbol of gcc's output is an import, in both files.
    let undefined = |l: &Linked| {
        l.syms
            .iter()
            .filter(|s| s.shndx == 0 && !s.name.is_empty())
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
    };
    for (file, l) in [("eboot.bin", &b.main), ("libfixmod.prx", &b.module)] {
        let want = undefined(l);
        let got: Vec<&serde_json::Value> = imports.iter().filter(|i| i["file"] == file).collect();
        assert_eq!(got.len(), want.len(), "{file}: {got:?}");
        for name in want {
            let i = got
                .iter()
                .find(|i| i["nid"] == nid(&name))
                .unwrap_or_else(|| panic!("{file}: {name} missing"));
            let (lib, module) = import_of(&name);
            assert_eq!(i["library"], lib);
            assert_eq!(i["module"], module);
            assert_eq!(i["resolution"]["status"], "resolved");
            let expect_lib = match lib {
                "libc" => "libc.native.so",
                "libkernel" => "libkernel.native.so",
                _ => "libfixmod.so",
            };
            assert_eq!(i["resolution"]["library"], expect_lib, "{name}");
            if !name.starts_with("fixmod_") {
                assert_eq!(i["known_name"], name.as_str());
            }
        }
    }
    assert_eq!(v["unresolved"], 0);
    assert!(v["duplicates"].as_array().unwrap().is_empty());
    assert!(v["duplicate_policy"].as_str().unwrap().starts_with("error"));
    // The data objects are listed as such.
    let guard = imports
        .iter()
        .find(|i| i["nid"] == nid("__stack_chk_guard"))
        .unwrap();
    assert_eq!(guard["symbol_type"], "object");
}

#[test]
fn unknown_import_fails_with_nid_and_name_or_binds_to_a_stub() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.unknown, &exe_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, None);
    let eboot = app.path().join("eboot.bin");
    let out = app.path().join("out");
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 unresolved import"), "{err}");
    assert!(
        err.contains("f3dg2CSgRKY (sceAgcCreateShader) (library libSceAgc, module libSceAgc)"),
        "{err}"
    );
    assert!(!out.join("eboot").exists());
    // report: the same import, unresolved, and exit 1.
    let o = relink_cmd(&["report", eboot.to_str().unwrap(), "-L", &natives()]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let i = v["imports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["nid"] == "f3dg2CSgRKY")
        .unwrap();
    assert_eq!(i["resolution"]["status"], "unresolved");
    assert_eq!(i["known_name"], "sceAgcCreateShader");
    // With --stub-unresolved it links; the program runs until it calls the import, which aborts
    // naming it.
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
        "--stub-unresolved",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = run(&out.join("eboot"), &[]);
    assert_eq!(String::from_utf8_lossy(&r.stdout), "unknown: start\n");
    assert_eq!(r.status.code(), Some(3));
    let r = run(&out.join("eboot"), &["call"]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(r.status.signal(), Some(6), "SIGABRT");
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        "relink: unresolved import called: f3dg2CSgRKY (sceAgcCreateShader) from library libSceAgc module libSceAgc\n"
    );
}

#[test]
fn direct_syscalls_are_found_and_reported() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.syscall, &exe_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, None);
    let eboot = app.path().join("eboot.bin");
    let out = app.path().join("out");
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("instruction(s) that cannot run natively in eboot.bin")
            && err.contains("syscall at 0x"),
        "{err}"
    );
    // Where exactly: the syscall instruction in gcc's text.
    let text = b
        .syscall
        .phdrs
        .iter()
        .find(|p| p.p_type == 1 && p.flags & 1 != 0)
        .unwrap();
    let bytes = &b.syscall.bytes[text.offset as usize..(text.offset + text.filesz) as usize];
    let at = bytes.windows(2).position(|w| w == [0x0f, 0x05]).unwrap() as u64 + text.vaddr;
    assert!(err.contains(&format!("syscall at {at:#x}")), "{err}");
    // --allow-non-native writes it, and the report still lists it.
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
        "--allow-non-native",
    ]);
    assert!(o.status.success());
    let o = relink_cmd(&[
        "report",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "--allow-non-native",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["non_native"][0]["instruction"], "syscall");
    assert_eq!(v["non_native"][0]["vaddr"], at);
    // The main fixture has none.
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let f = relinker::reader::read(&main).unwrap();
    assert!(relinker::link::scan_non_native("eboot.bin", &f).is_empty());
}

#[test]
fn duplicate_nids_across_native_libraries_fail() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, Some(&module));
    let extra = app.path().join("extra");
    std::fs::create_dir(&extra).unwrap();
    std::fs::copy(
        native_libs::lib_dir().join("libc.native.so"),
        extra.join("libc2.native.so"),
    )
    .unwrap();
    let mut opts = options();
    opts.natives.push(extra.clone());
    match relinker::relink(
        &app.path().join("eboot.bin"),
        &app.path().join("out"),
        &opts,
    ) {
        Err(relinker::error::LinkError::DuplicateExport { libraries, .. }) => {
            assert_eq!(
                libraries,
                vec!["libc.native.so".to_string(), "libc2.native.so".to_string()]
            );
        }
        other => panic!("{other:?}"),
    }
    let eboot = app.path().join("eboot.bin");
    let o = relink_cmd(&[
        "report",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-L",
        extra.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = v["duplicates"].as_array().unwrap();
    assert_eq!(
        d.len(),
        native_libs::EXPORTS
            .iter()
            .filter(|e| e.2 == "libc.native.so")
            .count()
    );
    assert!(d
        .iter()
        .any(|x| x["nid"] == nid("printf") && x["known_name"] == "printf"));
}

#[test]
fn duplicate_module_exports_fail_unless_the_module_is_skipped() {
    if !have_gcc() {
        return;
    }
    let b = built();
    let main = write_ps(&b.main, &exe_spec(Tags::Ps5, Convention::Sce));
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let app = app_dir(&main, Some(&module));
    std::fs::write(app.path().join("sce_module/libcopy.prx"), &module).unwrap();
    let eboot = app.path().join("eboot.bin");
    let out = app.path().join("out");
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("is exported by more than one library: libcopy.so, libfixmod.so"),
        "{err}"
    );
    let o = relink_cmd(&[
        "link",
        eboot.to_str().unwrap(),
        "-L",
        &natives(),
        "-o",
        out.to_str().unwrap(),
        "--skip-module",
        "libcopy.prx",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("libcopy.so").exists());
    let r = run(&out.join("eboot"), &[]);
    assert_eq!(String::from_utf8_lossy(&r.stdout), MAIN_STDOUT);
}

#[test]
fn nid_and_inspect_commands() {
    let o = relink_cmd(&[
        "nid",
        "scePthreadSetaffinity",
        "sceKernelIsNeoMode",
        "sceAgcCreateShader",
        "sceAgcDcbResetQueue",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "bt3CTBKmGyI  scePthreadSetaffinity\nWslcK1FQcGI  sceKernelIsNeoMode\nf3dg2CSgRKY  sceAgcCreateShader\nTRO721eVt4g  sceAgcDcbResetQueue\n"
    );
    if !have_gcc() {
        return;
    }
    let b = built();
    let module = write_ps(&b.module, &module_spec(Tags::Ps5, Convention::Sce));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("libfixmod.prx");
    std::fs::write(&p, module).unwrap();
    let o = relink_cmd(&["inspect", p.to_str().unwrap()]);
    assert!(o.status.success());
    let t = String::from_utf8_lossy(&o.stdout);
    for want in [
        "type: 0xfe18 (Dynamic)",
        "PT_SCE_DYNLIBDATA",
        "PT_SCE_MODULE_PARAM",
        "PT_SCE_COMMENT",
        "PT_SCE_LIBVERSION",
        "DT_SCE_MODULE_INFO_1",
        "DT_SCE_IMPORT_LIB_1",
        "module: libfixmod version 1.0 id 0",
        "import library: libc version 1 id 1 (B)",
        "R_X86_64_DTPMOD64",
        "R_X86_64_DTPOFF64",
        "R_X86_64_TPOFF64",
        "R_X86_64_JUMP_SLOT",
        "R_X86_64_GLOB_DAT",
        "= printf",
    ] {
        assert!(t.contains(want), "inspect lacks {want:?}:\n{t}");
    }
}

#[test]
fn native_library_exports_match_their_nids() {
    for (n, name, file, kind) in native_libs::EXPORTS {
        assert_eq!(*n, relinker::nid::nid(name), "{name}");
        assert_eq!(*n, nid(name), "{name} (fixture writer's NID)");
        let p = relinker::link::scan_native(&native_libs::lib_dir().join(file)).unwrap();
        let t = p
            .exports
            .get(*n)
            .unwrap_or_else(|| panic!("{file} does not export {n} ({name})"));
        assert_eq!(relinker::link::sym_type_name(*t), *kind, "{name}");
    }
    let k =
        relinker::link::scan_native(&native_libs::lib_dir().join("libkernel.native.so")).unwrap();
    for r in native_libs::RUNTIME {
        assert!(k.exports.contains_key(*r), "{r}");
    }
    // Nothing exported that is not listed.
    for l in native_libs::LIBRARIES {
        let p = relinker::link::scan_native(&native_libs::lib_dir().join(l)).unwrap();
        for e in p.exports.keys() {
            assert!(
                native_libs::EXPORTS.iter().any(|x| x.0 == e)
                    || native_libs::RUNTIME.contains(&e.as_str()),
                "{l}: {e}"
            );
        }
    }
}
