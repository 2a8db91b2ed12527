//! `libkernel.native.so`: the part of the PS5 `libkernel` surface that relinked programs call (time,
//! threads, TLS access, errno, the stack guard), plus the relinker's runtime entry points
//! `__relink_start` and `__relink_unresolved`. A dependency-free crate root (built by `build.rs`).
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr};

extern "C" {
    fn __tls_get_addr(index: *mut c_void) -> *mut c_void;
    fn __errno_location() -> *mut c_int;
    fn atexit(f: extern "C" fn()) -> c_int;
    fn exit(code: c_int) -> !;
    fn abort() -> !;
    fn usleep(us: u32) -> c_int;
    fn clock_gettime(clock: c_int, ts: *mut [i64; 2]) -> c_int;
    fn pthread_create(
        thread: *mut u64,
        attr: *const c_void,
        start: extern "C" fn(*mut c_void) -> *mut c_void,
        arg: *mut c_void,
    ) -> c_int;
    fn pthread_join(thread: u64, ret: *mut *mut c_void) -> c_int;
    fn write(fd: c_int, buf: *const c_void, n: usize) -> isize;
}

/// `__tls_get_addr`: the PS `tls_index` is `{module, offset}` as glibc's, and the relinked modules'
/// TLS blocks are glibc's, so this is a tail jump.
#[unsafe(naked)]
#[export_name = "vNe1w4diLCs"]
pub unsafe extern "C" fn ps_tls_get_addr() {
    core::arch::naked_asm!("jmp {0}@PLT", sym __tls_get_addr)
}

/// `__stack_chk_guard` (a data object).
#[export_name = "f7uOxY9mM1U"]
pub static mut PS_STACK_CHK_GUARD: u64 = 0x2f8a_5c11_9d04_e6b3;

/// `__stack_chk_fail`.
#[export_name = "Ou3iL1abvng"]
pub unsafe extern "C" fn ps_stack_chk_fail() -> ! {
    report(b"relink: stack smashing detected\n");
    abort()
}

/// `__error`: the calling thread's errno.
#[export_name = "9BcDykPmo1I"]
pub unsafe extern "C" fn ps_error() -> *mut c_int {
    __errno_location()
}

/// `sceKernelUsleep(microseconds)`.
#[export_name = "1jfXLRVzisc"]
pub unsafe extern "C" fn sce_kernel_usleep(us: u32) -> c_int {
    usleep(us)
}

/// `sceKernelGetProcessTime()`: microseconds on a monotonic clock.
#[export_name = "4J2sUJmuHZQ"]
pub unsafe extern "C" fn sce_kernel_get_process_time() -> u64 {
    let mut ts = [0i64; 2];
    clock_gettime(1, &mut ts); // CLOCK_MONOTONIC
    (ts[0] as u64) * 1_000_000 + (ts[1] as u64) / 1000
}

/// `sceKernelIsNeoMode()`: 0 (not a PS4 Pro).
#[export_name = "WslcK1FQcGI"]
pub unsafe extern "C" fn sce_kernel_is_neo_mode() -> c_int {
    0
}

struct Start {
    entry: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    arg: *mut c_void,
}

extern "C" fn thread_start(p: *mut c_void) -> *mut c_void {
    // SAFETY: `p` is the Box leaked by scePthreadCreate, taken back once.
    let s = unsafe { Box::from_raw(p as *mut Start) };
    // SAFETY: the PS program's thread entry, called as on the console.
    unsafe { (s.entry)(s.arg) }
}

/// `scePthreadCreate(thread*, attr, entry, arg, name)`: a native thread (attributes ignored).
#[export_name = "6UgtwV+0zb4"]
pub unsafe extern "C" fn sce_pthread_create(
    thread: *mut u64,
    _attr: *const c_void,
    entry: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    arg: *mut c_void,
    _name: *const c_char,
) -> c_int {
    let p = Box::into_raw(Box::new(Start { entry, arg })) as *mut c_void;
    let r = pthread_create(thread, std::ptr::null(), thread_start, p);
    if r != 0 {
        drop(Box::from_raw(p as *mut Start));
        // SCE_KERNEL_ERROR_* = 0x80020000 + errno
        return (0x8002_0000u32 as c_int) | r;
    }
    0
}

/// `scePthreadJoin(thread, value*)`.
#[export_name = "onNY9Byn-W8"]
pub unsafe extern "C" fn sce_pthread_join(thread: u64, value: *mut *mut c_void) -> c_int {
    let r = pthread_join(thread, value);
    if r != 0 {
        (0x8002_0000u32 as c_int) | r
    } else {
        0
    }
}

fn report(b: &[u8]) {
    // SAFETY: writing a byte slice to stderr.
    unsafe {
        write(2, b.as_ptr() as *const c_void, b.len());
    }
}

/// The descriptor the relinked executable's entry passes (layout written by `relinker::elfout`).
#[repr(C)]
pub struct RelinkDesc {
    magic: [u8; 8],
    entry: usize,
    preinit: *const InitFn,
    preinit_count: usize,
    init: usize,
    init_array: *const InitFn,
    init_count: usize,
    proc_param: usize,
    proc_param_size: usize,
    name: *const c_char,
}

type InitFn = unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char);

/// `EntryParams` of shadPS4 `src/core/linker.h`: what a PS executable's entry receives in `rdi`.
#[repr(C)]
pub struct EntryParams {
    argc: c_int,
    padding: u32,
    argv: [*const c_char; 33],
    entry_addr: u64,
}

type EntryFn = unsafe extern "C" fn(*mut EntryParams, extern "C" fn()) -> c_int;

/// The exit function passed to the entry in `rsi` (shadPS4 passes one that does nothing).
extern "C" fn relink_exit_func() {}

/// Start of a relinked executable, called by its generated entry with the initial stack pointer
/// (argc, argv, envp), the descriptor and the dynamic loader's fini function. Runs the executable's
/// preinit array, `DT_INIT` and init array (the Linux loader leaves those to the program, as
/// `__libc_start_main` does), then the PS entry as shadPS4's `RunMainEntry` does:
/// `entry(EntryParams*, exit_func)`, and exits with what it returns.
#[no_mangle]
pub unsafe extern "C" fn __relink_start(
    sp: *const usize,
    desc: *const RelinkDesc,
    rtld_fini: Option<extern "C" fn()>,
) -> ! {
    if let Some(f) = rtld_fini {
        atexit(f);
    }
    let argc = *sp as c_int;
    let argv = sp.add(1) as *const *const c_char;
    let envp = argv.add(argc as usize + 1);
    let d = &*desc;
    if &d.magic != b"RELINK\0\x01" {
        report(b"relink: bad start descriptor (relinked by another relink version?)\n");
        abort();
    }
    for i in 0..d.preinit_count {
        (*d.preinit.add(i))(argc, argv, envp);
    }
    if d.init != 0 {
        std::mem::transmute::<usize, InitFn>(d.init)(argc, argv, envp);
    }
    for i in 0..d.init_count {
        (*d.init_array.add(i))(argc, argv, envp);
    }
    let mut params = Box::new(EntryParams {
        argc: 0,
        padding: 0,
        argv: [std::ptr::null(); 33],
        entry_addr: d.entry as u64,
    });
    let n = (argc as usize).min(params.argv.len());
    for i in 0..n {
        params.argv[i] = *argv.add(i);
    }
    if n == 0 {
        params.argv[0] = d.name;
        params.argc = 1;
    } else {
        params.argc = n as c_int;
    }
    let entry = std::mem::transmute::<usize, EntryFn>(d.entry);
    let r = entry(Box::leak(params), relink_exit_func);
    exit(r)
}

/// Called by the relinker's stub for an unresolved import (`--stub-unresolved`): reports which import
/// was called and aborts.
#[no_mangle]
pub unsafe extern "C" fn __relink_unresolved(what: *const c_char) -> ! {
    report(b"relink: unresolved import called: ");
    if !what.is_null() {
        report(CStr::from_ptr(what).to_bytes());
    }
    report(b"\n");
    abort()
}
