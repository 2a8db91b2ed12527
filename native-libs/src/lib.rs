//! Native Linux libraries that export PS5 system-library functions under their NIDs.
//!
//! Each library is one dependency-free Rust source file compiled as a `cdylib` by `build.rs`
//! (`src/libkernel.rs` → `libkernel.native.so`, `src/libc.rs` → `libc.native.so`); the files land in
//! [`lib_dir`]. Functions are exported with `#[export_name = "NID"]`; variadic ones (`printf`) and
//! `__tls_get_addr` are naked tail jumps to glibc, which keeps every register as the caller left it.
//! [`EXPORTS`] lists every export (NID, name, library file); the relinker's tests check each NID
//! against its name and against the built files. See `native-libs/README.md`.

use std::path::Path;

/// The directory holding the built libraries.
pub fn lib_dir() -> &'static Path {
    Path::new(env!("NATIVE_LIBS_DIR"))
}

/// The library files built.
pub const LIBRARIES: &[&str] = &["libkernel.native.so", "libc.native.so"];

/// Every NID-named export: (NID, name, library file, `function` or `object`).
pub const EXPORTS: &[(&str, &str, &str, &str)] = &[
    (
        "vNe1w4diLCs",
        "__tls_get_addr",
        "libkernel.native.so",
        "function",
    ),
    (
        "f7uOxY9mM1U",
        "__stack_chk_guard",
        "libkernel.native.so",
        "object",
    ),
    (
        "Ou3iL1abvng",
        "__stack_chk_fail",
        "libkernel.native.so",
        "function",
    ),
    ("9BcDykPmo1I", "__error", "libkernel.native.so", "function"),
    (
        "1jfXLRVzisc",
        "sceKernelUsleep",
        "libkernel.native.so",
        "function",
    ),
    (
        "4J2sUJmuHZQ",
        "sceKernelGetProcessTime",
        "libkernel.native.so",
        "function",
    ),
    (
        "WslcK1FQcGI",
        "sceKernelIsNeoMode",
        "libkernel.native.so",
        "function",
    ),
    (
        "6UgtwV+0zb4",
        "scePthreadCreate",
        "libkernel.native.so",
        "function",
    ),
    (
        "onNY9Byn-W8",
        "scePthreadJoin",
        "libkernel.native.so",
        "function",
    ),
    ("hcuQgD53UxM", "printf", "libc.native.so", "function"),
    ("YQ0navp+YIc", "puts", "libc.native.so", "function"),
    ("m5wN+SwZOR4", "putchar", "libc.native.so", "function"),
    ("j4ViWNHEgww", "strlen", "libc.native.so", "function"),
    ("Ovb2dSJOAuE", "strcmp", "libc.native.so", "function"),
    ("Q3VBxCXhUHs", "memcpy", "libc.native.so", "function"),
    ("8zTFvBIAIN8", "memset", "libc.native.so", "function"),
    ("gQX+4GDQjpM", "malloc", "libc.native.so", "function"),
    ("tIhsqj0qsFE", "free", "libc.native.so", "function"),
    ("uMei1W9uyNo", "exit", "libc.native.so", "function"),
    ("8G2LB+A3rzg", "atexit", "libc.native.so", "function"),
    ("L1SBTkC+Cvw", "abort", "libc.native.so", "function"),
];

/// The plain-named runtime entry points of `libkernel.native.so` that the relinker's generated code
/// calls: the executable's start and the unresolved-import stub's report.
pub const RUNTIME: &[&str] = &["__relink_start", "__relink_unresolved"];

// The library sources are compiled into this crate's tests as modules too, so that clippy and the
// unit tests see them.
#[cfg(test)]
#[path = "libkernel.rs"]
mod libkernel;

#[cfg(test)]
#[path = "libc.rs"]
mod libc;

#[cfg(test)]
mod tests {
    #[test]
    fn built_files_exist() {
        for l in super::LIBRARIES {
            assert!(super::lib_dir().join(l).is_file(), "{l} not built");
        }
    }

    #[test]
    fn kernel_functions_behave() {
        // SAFETY: plain functions without preconditions.
        unsafe {
            assert_eq!(super::libkernel::sce_kernel_is_neo_mode(), 0);
            let a = super::libkernel::sce_kernel_get_process_time();
            assert_eq!(super::libkernel::sce_kernel_usleep(1000), 0);
            assert!(super::libkernel::sce_kernel_get_process_time() > a);
            assert!(!super::libkernel::ps_error().is_null());
        }
    }
}
