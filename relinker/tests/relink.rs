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
    let o = run(&out.join("eboot"), &[]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        MAIN_STDOUT,
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(MAIN_STATUS));
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
#[ignore]
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
