//! `libc.native.so`: the PS5 libc functions that relinked programs call (output, memory, exit),
//! exported by NID and forwarded to glibc. A dependency-free crate root (built by `build.rs`).
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

extern "C" {
    fn printf(fmt: *const c_char, ...) -> c_int;
    fn puts(s: *const c_char) -> c_int;
    fn putchar(c: c_int) -> c_int;
    fn strlen(s: *const c_char) -> usize;
    fn strcmp(a: *const c_char, b: *const c_char) -> c_int;
    fn memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void;
    fn memset(d: *mut c_void, c: c_int, n: usize) -> *mut c_void;
    fn malloc(n: usize) -> *mut c_void;
    fn free(p: *mut c_void);
    fn exit(code: c_int) -> !;
    fn atexit(f: extern "C" fn()) -> c_int;
    fn abort() -> !;
}

/// A naked tail jump to the glibc function: arguments (variadic ones and `al` included) pass through
/// untouched. rustc writes a naked function's name into the assembly unquoted, so this works only for
/// NIDs without `+` or `-` (`snprintf`, `eLdDw6l0-bU`, is left out for that reason).
macro_rules! forward {
    ($nid:literal, $name:ident, $target:ident) => {
        #[doc = concat!("`", stringify!($target), "`, forwarded to glibc.")]
        #[unsafe(naked)]
        #[export_name = $nid]
        pub unsafe extern "C" fn $name() {
            core::arch::naked_asm!("jmp {0}@PLT", sym $target)
        }
    };
}

forward!("hcuQgD53UxM", ps_printf, printf);

/// `puts`.
#[export_name = "YQ0navp+YIc"]
pub unsafe extern "C" fn ps_puts(s: *const c_char) -> c_int {
    puts(s)
}

/// `putchar`.
#[export_name = "m5wN+SwZOR4"]
pub unsafe extern "C" fn ps_putchar(c: c_int) -> c_int {
    putchar(c)
}

/// `strlen`.
#[export_name = "j4ViWNHEgww"]
pub unsafe extern "C" fn ps_strlen(s: *const c_char) -> usize {
    strlen(s)
}

/// `strcmp`.
#[export_name = "Ovb2dSJOAuE"]
pub unsafe extern "C" fn ps_strcmp(a: *const c_char, b: *const c_char) -> c_int {
    strcmp(a, b)
}

/// `memcpy`.
#[export_name = "Q3VBxCXhUHs"]
pub unsafe extern "C" fn ps_memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void {
    memcpy(d, s, n)
}

/// `memset`.
#[export_name = "8zTFvBIAIN8"]
pub unsafe extern "C" fn ps_memset(d: *mut c_void, c: c_int, n: usize) -> *mut c_void {
    memset(d, c, n)
}

/// `malloc`.
#[export_name = "gQX+4GDQjpM"]
pub unsafe extern "C" fn ps_malloc(n: usize) -> *mut c_void {
    malloc(n)
}

/// `free`.
#[export_name = "tIhsqj0qsFE"]
pub unsafe extern "C" fn ps_free(p: *mut c_void) {
    free(p)
}

/// `exit`: glibc's, so atexit handlers and the loader's destructors run.
#[export_name = "uMei1W9uyNo"]
pub unsafe extern "C" fn ps_exit(code: c_int) -> ! {
    exit(code)
}

/// `atexit`.
#[export_name = "8G2LB+A3rzg"]
pub unsafe extern "C" fn ps_atexit(f: extern "C" fn()) -> c_int {
    atexit(f)
}

/// `abort`.
#[export_name = "L1SBTkC+Cvw"]
pub unsafe extern "C" fn ps_abort() -> ! {
    abort()
}
