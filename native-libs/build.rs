//! Builds each native library (`src/libkernel.rs`, `src/libc.rs`) as a cdylib with the same `rustc`
//! cargo uses, into `$OUT_DIR/lib`, and tells the crate where (`NATIVE_LIBS_DIR`). A build script can
//! do what `cargo test` of another crate cannot: produce cdylib files that a test can find. The sources
//! have no dependencies, so this is one `rustc` call per library (about 2 s each), rerun only when a
//! source changes.

use std::path::PathBuf;
use std::process::Command;

/// (source, crate name, file name)
const LIBS: &[(&str, &str, &str)] = &[
    (
        "src/libkernel.rs",
        "libkernel_native",
        "libkernel.native.so",
    ),
    ("src/libc.rs", "libc_native", "libc.native.so"),
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("lib");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/lib");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    println!("cargo:rerun-if-changed=build.rs");
    for (src, krate, file) in LIBS {
        println!("cargo:rerun-if-changed={src}");
        let target = out.join(file);
        let status = Command::new(&rustc)
            .args([
                "--edition",
                "2021",
                "--crate-type",
                "cdylib",
                "--crate-name",
                krate,
            ])
            .args([
                "-C",
                "panic=abort",
                "-C",
                "opt-level=2",
                "-C",
                "debuginfo=0",
                "-C",
                "strip=debuginfo",
            ])
            .arg("-C")
            .arg(format!("link-arg=-Wl,-soname,{file}"))
            .arg("-o")
            .arg(&target)
            .arg(src)
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .status()
            .unwrap_or_else(|e| panic!("running {rustc:?}: {e}"));
        assert!(status.success(), "rustc failed to build {file} from {src}");
    }
    println!("cargo:rustc-env=NATIVE_LIBS_DIR={}", out.display());
}
