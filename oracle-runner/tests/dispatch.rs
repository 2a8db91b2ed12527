//! `oracle collect --backend hsa` end to end without an AMD GPU: a stand-in ROCr implements the hsa.h functions
//! the dispatcher calls (agents, memory pools, code object loading, a queue and its packet processor, signals)
//! and executes each AQL packet on the reference model, reading only what a GPU reads: the kernel descriptor
//! and code at `kernel_object`, the kernarg segment, the buffers it points to. The rows must equal a
//! `--backend model` collection for the same chip, ID for ID and bit for bit; v5 refused falls back to v4; a
//! dispatch that never completes is abandoned after the timeout and the next one runs on a new queue.
//!
//! The stand-in checks the packet as the hardware's packet processor would need it (type, barrier, system
//! fences, one dimension, one workgroup, a kernarg segment of the size the descriptor declares from the kernarg
//! pool, buffers the GPU was given access to, 256-byte aligned as the kernels declare) and the descriptor as
//! the loader and dispatcher would (the chip's `e_flags` mach, the kernarg pointer in the user SGPRs, the float
//! mode in COMPUTE_PGM_RSRC1). For a template with buffers it reads the 56-byte segment as the layout defines
//! it: the `scratch` address and the two V#s, whose bases must be the arrays' addresses; the model then runs
//! over the arrays' contents as it finds them in memory (the rows, the fills) and every array is written back,
//! so the rows equal the model's only if the dispatcher set the arrays, fills and V# words up as the model
//! path does.

use measurements::hex::HexDword;
use measurements::kernel::{Array, Init, Kernel};
use measurements::row::Evidence;
use measurements::{Backend, Dataset, FloatMode, Job};
use oracle_runner::collect::{self as co, Shard};
use oracle_runner::dispatch::{self, Device};
use oracle_runner::hsa::{self, Api, Handle, Queue, Status};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

const OK: Status = 0;
const ERROR: Status = 0x1000;
const INVALID_ARGUMENT: Status = 0x1001;
const INVALID_CODE_OBJECT: Status = 0x1010;
const CPU: u64 = 1;
const GPU: u64 = 2;
const KERNARG_POOL: u64 = 10;
const FINE_POOL: u64 = 11;
const VRAM_POOL: u64 = 20;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Slot([u8; 64]);

struct FakeQueue {
    queue: Box<Queue>,
    ring: Vec<Slot>,
    read: u64,
    write: u64,
    callback: Option<hsa::QueueCallback>,
    data: usize,
}

struct Loaded {
    image: Vec<Slot>,
    /// name -> (vaddr, size)
    symbols: HashMap<String, (u64, u64)>,
}

#[derive(Default)]
struct Fake {
    refuse_v5: bool,
    /// base -> (memory, pool, GPU access, bytes asked for)
    allocations: HashMap<usize, (Vec<Slot>, u64, bool, usize)>,
    signals: HashMap<u64, i64>,
    queues: HashMap<u64, FakeQueue>,
    readers: HashMap<u64, Vec<u8>>,
    executables: HashMap<u64, Vec<Loaded>>,
    symbols: HashMap<u64, (u64, String)>,
    next: u64,
    loaded_versions: Vec<u8>,
    dispatched: usize,
    queues_made: usize,
    hung: usize,
}

// SAFETY: the queues' raw ring pointers point into rings the state owns; all access is under the mutex.
unsafe impl Send for Fake {}

static FAKE: Mutex<Option<Fake>> = Mutex::new(None);
/// Tests share the stand-in's state, so they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn fake() -> MutexGuard<'static, Option<Fake>> {
    FAKE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn with<R>(f: impl FnOnce(&mut Fake) -> R) -> R {
    f(fake().as_mut().expect("the stand-in runtime is set up"))
}

fn handle(f: &mut Fake) -> u64 {
    f.next += 1;
    1000 + f.next
}

unsafe extern "C" fn init() -> Status {
    OK
}
unsafe extern "C" fn shut_down() -> Status {
    OK
}
unsafe extern "C" fn status_string(_s: Status, out: *mut *const c_char) -> Status {
    // SAFETY: the caller passes a pointer to write the static text's address into.
    unsafe { *out = c"stand-in runtime error".as_ptr() };
    OK
}
unsafe extern "C" fn system_get_info(attr: u32, value: *mut c_void) -> Status {
    // SAFETY: each attribute's value has the hsa.h type the caller's variable has.
    unsafe {
        match attr {
            0 | 1 => *(value as *mut u16) = 1,
            3 => *(value as *mut u64) = 1_000_000_000,
            0x200 => *(value as *mut *const c_char) = c"stand-in 0.1".as_ptr(),
            _ => return INVALID_ARGUMENT,
        }
    }
    OK
}
unsafe extern "C" fn iterate_agents(cb: hsa::AgentCallback, data: *mut c_void) -> Status {
    for a in [CPU, GPU] {
        // SAFETY: the caller's callback with its data.
        let s = unsafe { cb(Handle { handle: a }, data) };
        if s != OK {
            return s;
        }
    }
    OK
}
unsafe extern "C" fn agent_get_info(a: Handle, attr: u32, value: *mut c_void) -> Status {
    let text = |v: *mut c_void, s: &str| {
        let mut b = [0u8; 64];
        b[..s.len()].copy_from_slice(s.as_bytes());
        // SAFETY: string attributes are char[64].
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), v as *mut u8, 64) };
    };
    let gpu = a.handle == GPU;
    match attr {
        0 => text(value, if gpu { "gfx1036" } else { "Stand-in CPU" }),
        1 => text(value, "AMD"),
        0xA009 => text(value, "Stand-in Radeon"),
        // SAFETY: uint32_t attributes.
        17 => unsafe { *(value as *mut u32) = u32::from(gpu) },
        13 if gpu => unsafe { *(value as *mut u32) = 64 },
        0xA108 if gpu => unsafe { *(value as *mut u32) = 123 },
        _ => return INVALID_ARGUMENT,
    }
    OK
}
unsafe extern "C" fn iterate_pools(a: Handle, cb: hsa::PoolCallback, data: *mut c_void) -> Status {
    let pools: &[u64] = if a.handle == CPU {
        &[VRAM_POOL + 100, KERNARG_POOL, FINE_POOL]
    } else {
        &[VRAM_POOL]
    };
    for &p in pools {
        // SAFETY: the caller's callback with its data.
        let s = unsafe { cb(Handle { handle: p }, data) };
        if s != OK {
            return s;
        }
    }
    OK
}
unsafe extern "C" fn pool_get_info(p: Handle, attr: u32, value: *mut c_void) -> Status {
    // SAFETY: SEGMENT and GLOBAL_FLAGS are 32-bit, RUNTIME_ALLOC_ALLOWED a one-byte bool.
    unsafe {
        match attr {
            0 => *(value as *mut u32) = 0,
            1 => {
                *(value as *mut u32) = match p.handle {
                    KERNARG_POOL => 1 | 2,
                    FINE_POOL => 2,
                    _ => 4,
                }
            }
            5 => *(value as *mut u8) = u8::from(p.handle != VRAM_POOL + 100),
            _ => return INVALID_ARGUMENT,
        }
    }
    OK
}
unsafe extern "C" fn pool_allocate(
    p: Handle,
    size: usize,
    _flags: u32,
    out: *mut *mut c_void,
) -> Status {
    with(|f| {
        let mut v = vec![Slot([0xa5; 64]); size.div_ceil(64)];
        let ptr = v.as_mut_ptr() as *mut c_void;
        f.allocations
            .insert(ptr as usize, (v, p.handle, false, size));
        // SAFETY: the caller's out-pointer.
        unsafe { *out = ptr };
        OK
    })
}
unsafe extern "C" fn pool_free(p: *mut c_void) -> Status {
    with(|f| {
        if f.allocations.remove(&(p as usize)).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
unsafe extern "C" fn allow_access(
    n: u32,
    agents: *const Handle,
    _flags: *const u32,
    p: *const c_void,
) -> Status {
    // SAFETY: `n` agent handles.
    let agents = unsafe { std::slice::from_raw_parts(agents, n as usize) };
    with(|f| match f.allocations.get_mut(&(p as usize)) {
        Some(a) if agents.iter().any(|h| h.handle == GPU) => {
            a.2 = true;
            OK
        }
        _ => INVALID_ARGUMENT,
    })
}
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn queue_create(
    a: Handle,
    size: u32,
    _ty: u32,
    callback: Option<hsa::QueueCallback>,
    data: *mut c_void,
    _private: u32,
    _group: u32,
    out: *mut *mut Queue,
) -> Status {
    if a.handle != GPU || !size.is_power_of_two() || size < 64 {
        return INVALID_ARGUMENT;
    }
    with(|f| {
        let doorbell = handle(f);
        f.signals.insert(doorbell, 0);
        let mut ring = vec![Slot([0; 64]); size as usize];
        for s in &mut ring {
            s.0[0] = 1; // HSA_PACKET_TYPE_INVALID
        }
        let mut q = Box::new(Queue {
            queue_type: 1,
            features: 1,
            base_address: ring.as_mut_ptr().cast(),
            doorbell_signal: Handle { handle: doorbell },
            size,
            reserved1: 0,
            id: doorbell,
        });
        // SAFETY: the caller's out-pointer; the box stays in the stand-in's state until destroyed.
        unsafe { *out = &mut *q };
        f.queues.insert(
            doorbell,
            FakeQueue {
                queue: q,
                ring,
                read: 0,
                write: 0,
                callback,
                data: data as usize,
            },
        );
        f.queues_made += 1;
        OK
    })
}
unsafe extern "C" fn queue_destroy(q: *mut Queue) -> Status {
    // SAFETY: a queue this stand-in made.
    let id = unsafe { (*q).doorbell_signal.handle };
    with(|f| {
        if f.queues.remove(&id).is_some() {
            f.signals.remove(&id);
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
unsafe extern "C" fn add_write_index(q: *const Queue, n: u64) -> u64 {
    // SAFETY: a queue this stand-in made.
    let id = unsafe { (*q).doorbell_signal.handle };
    with(|f| {
        let fq = f.queues.get_mut(&id).expect("a live queue");
        let old = fq.write;
        fq.write += n;
        old
    })
}
unsafe extern "C" fn load_read_index(q: *const Queue) -> u64 {
    // SAFETY: a queue this stand-in made.
    let id = unsafe { (*q).doorbell_signal.handle };
    with(|f| f.queues[&id].read)
}
unsafe extern "C" fn signal_create(v: i64, _n: u32, _c: *const Handle, out: *mut Handle) -> Status {
    with(|f| {
        let h = handle(f);
        f.signals.insert(h, v);
        // SAFETY: the caller's out-pointer.
        unsafe { *out = Handle { handle: h } };
        OK
    })
}
unsafe extern "C" fn signal_destroy(s: Handle) -> Status {
    with(|f| {
        if f.signals.remove(&s.handle).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
unsafe extern "C" fn signal_store(s: Handle, v: i64) {
    let mut g = fake();
    let f = g.as_mut().expect("set up");
    f.signals.insert(s.handle, v);
    if f.queues.contains_key(&s.handle) {
        process(f, s.handle);
    }
}
unsafe extern "C" fn signal_wait(s: Handle, cond: u32, cmp: i64, timeout: u64, _state: u32) -> i64 {
    assert_eq!(cond, 2, "the dispatcher waits for LT");
    let v = with(|f| f.signals[&s.handle]);
    if v >= cmp {
        // Never completes: the wait takes its timeout (ticks at 1 GHz), as a hung dispatch's does.
        std::thread::sleep(Duration::from_nanos(timeout.min(50_000_000)));
    }
    v
}
unsafe extern "C" fn reader_create(p: *const c_void, n: usize, out: *mut Handle) -> Status {
    // SAFETY: the caller's code object bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec();
    with(|f| {
        let h = handle(f);
        f.readers.insert(h, bytes);
        // SAFETY: the caller's out-pointer.
        unsafe { *out = Handle { handle: h } };
        OK
    })
}
unsafe extern "C" fn reader_destroy(r: Handle) -> Status {
    with(|f| {
        if f.readers.remove(&r.handle).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
unsafe extern "C" fn executable_create(
    profile: u32,
    _rounding: u32,
    _o: *const c_char,
    out: *mut Handle,
) -> Status {
    if profile > 1 {
        return INVALID_ARGUMENT;
    }
    with(|f| {
        let h = handle(f);
        f.executables.insert(h, Vec::new());
        // SAFETY: the caller's out-pointer.
        unsafe { *out = Handle { handle: h } };
        OK
    })
}
/// A loader's checks and a PT_LOAD mapping of the code object.
fn load_elf(bytes: &[u8], refuse_v5: bool) -> Result<Loaded, Status> {
    let elf = goblin::elf::Elf::parse(bytes).map_err(|_| INVALID_CODE_OBJECT)?;
    let ident = &elf.header.e_ident;
    let abi = ident[8];
    if elf.header.e_machine != 224
        || ident[7] != 64
        || !(abi == 2 || abi == 3)
        || (refuse_v5 && abi == 3)
    {
        return Err(INVALID_CODE_OBJECT);
    }
    if elf.header.e_flags & 0xff != 0x045 {
        return Err(0x100F); // HSA_STATUS_ERROR_INVALID_ISA: not gfx1036's mach
    }
    let end = elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == goblin::elf::program_header::PT_LOAD)
        .map(|p| p.p_vaddr + p.p_memsz)
        .max()
        .ok_or(INVALID_CODE_OBJECT)?;
    let mut image = vec![Slot([0; 64]); end.div_ceil(64) as usize];
    // SAFETY: `image` is `end` bytes or more of plain bytes.
    let flat =
        unsafe { std::slice::from_raw_parts_mut(image.as_mut_ptr() as *mut u8, image.len() * 64) };
    for p in elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == goblin::elf::program_header::PT_LOAD)
    {
        let src = bytes
            .get(p.p_offset as usize..(p.p_offset + p.p_filesz) as usize)
            .ok_or(INVALID_CODE_OBJECT)?;
        flat[p.p_vaddr as usize..p.p_vaddr as usize + src.len()].copy_from_slice(src);
    }
    let symbols = elf
        .dynsyms
        .iter()
        .filter_map(|s| {
            Some((
                elf.dynstrtab.get_at(s.st_name)?.to_string(),
                (s.st_value, s.st_size),
            ))
        })
        .collect();
    Ok(Loaded { image, symbols })
}
unsafe extern "C" fn load_code_object(
    e: Handle,
    a: Handle,
    r: Handle,
    _o: *const c_char,
    out: *mut Handle,
) -> Status {
    if a.handle != GPU {
        return INVALID_ARGUMENT;
    }
    with(|f| {
        let Some(bytes) = f.readers.get(&r.handle) else {
            return INVALID_ARGUMENT;
        };
        let abi = bytes.get(8).copied().unwrap_or(0);
        match load_elf(bytes, f.refuse_v5) {
            Ok(l) => {
                f.loaded_versions.push(if abi == 3 { 5 } else { 4 });
                f.executables.get_mut(&e.handle).expect("made").push(l);
                let h = handle(f);
                // SAFETY: the caller's out-pointer.
                unsafe { *out = Handle { handle: h } };
                OK
            }
            Err(s) => s,
        }
    })
}
unsafe extern "C" fn freeze(_e: Handle, _o: *const c_char) -> Status {
    OK
}
unsafe extern "C" fn get_symbol(
    e: Handle,
    name: *const c_char,
    a: *const Handle,
    out: *mut Handle,
) -> Status {
    // SAFETY: a NUL-terminated name and one agent handle.
    let (name, agent) = unsafe {
        (
            CStr::from_ptr(name).to_string_lossy().into_owned(),
            (*a).handle,
        )
    };
    if agent != GPU {
        return INVALID_ARGUMENT;
    }
    with(|f| {
        let found = f.executables[&e.handle]
            .iter()
            .any(|l| l.symbols.contains_key(&name));
        if !found {
            return 0x1014; // HSA_STATUS_ERROR_INVALID_SYMBOL_NAME
        }
        let h = handle(f);
        f.symbols.insert(h, (e.handle, name));
        // SAFETY: the caller's out-pointer.
        unsafe { *out = Handle { handle: h } };
        OK
    })
}
/// The loaded image holding symbol `name` of executable `e`, and the symbol's host address.
fn symbol_address(f: &Fake, e: u64, name: &str) -> (usize, u64) {
    let l = f.executables[&e]
        .iter()
        .find(|l| l.symbols.contains_key(name))
        .expect("found");
    (
        l.image.as_ptr() as usize + l.symbols[name].0 as usize,
        l.symbols[name].1,
    )
}
unsafe extern "C" fn symbol_get_info(s: Handle, attr: u32, value: *mut c_void) -> Status {
    with(|f| {
        let Some((e, name)) = f.symbols.get(&s.handle).cloned() else {
            return INVALID_ARGUMENT;
        };
        let (kd, _) = symbol_address(f, e, &name);
        // SAFETY: the descriptor's 64 bytes lie in the loaded image.
        let desc = unsafe { std::slice::from_raw_parts(kd as *const u8, 64) };
        let word = |at: usize| u32::from_le_bytes(desc[at..at + 4].try_into().unwrap());
        // SAFETY: KERNEL_OBJECT is a uint64_t, the segment sizes uint32_t.
        unsafe {
            match attr {
                22 => *(value as *mut u64) = kd as u64,
                11 => *(value as *mut u32) = word(8),
                13 => *(value as *mut u32) = word(0),
                14 => *(value as *mut u32) = word(4),
                _ => return INVALID_ARGUMENT,
            }
        }
        OK
    })
}
unsafe extern "C" fn executable_destroy(e: Handle) -> Status {
    with(|f| {
        if f.executables.remove(&e.handle).is_some() {
            // Its symbols go with it.
            f.symbols.retain(|_, (owner, _)| *owner != e.handle);
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}

fn dwords(p: usize, n: usize) -> Vec<u32> {
    // SAFETY: the caller checked that `n` dwords at `p` lie in one allocation.
    unsafe { std::slice::from_raw_parts(p as *const u32, n) }.to_vec()
}

/// The allocation holding `bytes` at `p`, as (pool, GPU access).
fn region(f: &Fake, p: usize, bytes: usize) -> Option<(u64, bool)> {
    f.allocations
        .iter()
        .find_map(|(&base, (_, pool, gpu, size))| {
            (p >= base && p + bytes <= base + size).then_some((*pool, *gpu))
        })
}

/// The bytes from `p` to the end of the allocation holding it: all a kernel could reach of the buffer there.
fn extent(f: &Fake, p: usize) -> usize {
    f.allocations
        .iter()
        .find_map(|(&base, (_, _, _, size))| {
            (p >= base && p < base + size).then(|| base + size - p)
        })
        .unwrap_or(0)
}

/// One array the kernel arguments point to: its name, address and contents as the GPU finds them (from the
/// address to the end of its allocation).
struct Seen {
    name: &'static str,
    at: usize,
    dwords: Vec<u32>,
}

/// The packet processor: runs every packet up to the doorbell's value on the model.
fn process(f: &mut Fake, queue: u64) {
    let upto = f.signals[&queue];
    loop {
        let fq = f.queues.get_mut(&queue).unwrap();
        if fq.read as i64 > upto {
            break;
        }
        let slot = (fq.read % u64::from(fq.queue.size)) as usize;
        let p = fq.ring[slot].0;
        let (callback, data) = (fq.callback, fq.data);
        let u16_at = |at: usize| u16::from_le_bytes([p[at], p[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(p[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_le_bytes(p[at..at + 8].try_into().unwrap());
        let header = u16_at(0);
        assert_eq!(header & 0xff, 2, "a kernel dispatch packet");
        assert_eq!(header >> 8 & 1, 1, "the barrier bit");
        assert_eq!(header >> 9 & 3, 2, "acquire fence of system scope");
        assert_eq!(header >> 11 & 3, 2, "release fence of system scope");
        assert_eq!(u16_at(2) & 3, 1, "one dimension");
        let wg = [u16_at(4), u16_at(6), u16_at(8)];
        let grid = [u32_at(12), u32_at(16), u32_at(20)];
        assert_eq!((wg[1], wg[2], grid[1], grid[2]), (1, 1, 1, 1));
        assert_eq!(u32::from(wg[0]), grid[0], "one workgroup");
        let (group, kernel_object, kernarg, completion) =
            (u32_at(28), u64_at(32), u64_at(40) as usize, u64_at(56));
        let threads = grid[0] as usize;
        // The descriptor and code, read at the kernel object as a GPU reads them.
        let (e, name) = f
            .symbols
            .values()
            .find(|(e, n)| symbol_address(f, *e, n).0 as u64 == kernel_object)
            .cloned()
            .expect("kernel_object is a loaded descriptor");
        let desc = dwords(kernel_object as usize, 16);
        // The kernel arguments: the plain oracle-v1 layout (`in`, `out`: 16 bytes) or the one with buffers
        // (56 bytes: `in`, `out`, `scratch`, the V#s over `in` and `scratch`), as the descriptor declares.
        let kernarg_bytes = desc[2] as usize;
        assert!(
            kernarg_bytes == 16 || kernarg_bytes == 56,
            "kernarg_size {kernarg_bytes}"
        );
        assert_eq!(
            region(f, kernarg, kernarg_bytes),
            Some((KERNARG_POOL, true)),
            "the kernarg segment"
        );
        assert_eq!(kernarg % 16, 0, "the kernarg segment's alignment");
        let args = dwords(kernarg, kernarg_bytes / 4);
        let pointer = |i: usize| (u64::from(args[i]) | u64::from(args[i + 1]) << 32) as usize;
        let names: &[&'static str] = if kernarg_bytes == 56 {
            &["in", "out", "scratch"]
        } else {
            &["in", "out"]
        };
        let mut seen: Vec<Seen> = Vec::new();
        for (k, &name) in names.iter().enumerate() {
            let at = pointer(2 * k);
            let least = match name {
                "in" => threads * 16,
                "out" => threads * 64,
                _ => 4,
            };
            assert_eq!(
                region(f, at, least),
                Some((FINE_POOL, true)),
                "the `{name}` array"
            );
            assert_eq!(at % 256, 0, "`{name}` at the alignment its kernel declares");
            let n = extent(f, at) / 4;
            seen.push(Seen {
                name,
                at,
                dwords: dwords(at, n),
            });
        }
        let mut user_data: Vec<String> = names
            .iter()
            .flat_map(|n| [format!("{n}.lo"), format!("{n}.hi")])
            .collect();
        if kernarg_bytes == 56 {
            // Each V#: its base the array's address, its other words what the model is to read.
            for (at, array) in [(6, 0), (10, 2)] {
                let w = &args[at..at + 4];
                let a = &seen[array];
                assert_eq!(
                    u64::from(w[0]) | u64::from(w[1] & 0xffff) << 32,
                    a.at as u64,
                    "the V# over `{}` starts at the array",
                    a.name
                );
                assert_eq!(w[1] >> 30 & 1, 0, "no cache swizzle");
                let mut hi = format!("{}.hi16", a.name);
                if w[1] >> 16 & 0x3fff != 0 {
                    hi.push_str(&format!("+stride{}", w[1] >> 16 & 0x3fff));
                }
                if w[1] >> 31 != 0 {
                    hi.push_str("+swizzle");
                }
                user_data.extend([
                    format!("{}.lo", a.name),
                    hi,
                    format!("{:08x}", w[2]),
                    format!("{:08x}", w[3]),
                ]);
            }
        }
        let entry = i64::from(desc[4]) | i64::from(desc[5]) << 32;
        let (rsrc1, rsrc2, props) = (desc[12], desc[13], desc[14] & 0xffff);
        assert_eq!(rsrc2 >> 1 & 31, 2, "two user SGPRs: the kernarg pointer");
        assert_ne!(props & 1 << 3, 0, "ENABLE_SGPR_KERNARG_SEGMENT_PTR");
        let wave = if props & 1 << 10 != 0 { 32 } else { 64 };
        let code_at = (kernel_object as i64 + entry) as u64;
        let fname = name.trim_end_matches(".kd").to_string();
        let (fn_at, fn_size) = symbol_address(f, e, &fname);
        assert_eq!(fn_at as u64, code_at, "the entry is the kernel's code");
        let words = dwords(fn_at, fn_size as usize / 4);
        let mode = FloatMode {
            float_mode: (rsrc1 >> 12 & 0xff) as u8,
            ieee: rsrc1 & 1 << 23 != 0,
            dx10_clamp: rsrc1 & 1 << 21 != 0,
            fp16_ovfl: rsrc1 & 1 << 26 != 0,
        };
        // The model runs the code over the arrays as found: their contents (the rows, the fills) are the
        // dispatcher's, nothing is taken from the job it was made from.
        let mut kernel = Kernel::oracle_v1(&fname, &words, wave, threads as u32, group);
        kernel.user_data = user_data;
        kernel.memory = seen
            .iter()
            .map(|a| Array {
                name: a.name.into(),
                bytes: 4 * a.dwords.len() as u32,
                fill: HexDword(0),
                align: 256,
                init: vec![Init {
                    dword_offset: 0,
                    rows: false,
                    dwords: a.dwords.iter().map(|&d| HexDword(d)).collect(),
                }],
            })
            .collect();
        let job = Job {
            suite: "stand-in".into(),
            kernel: std::sync::Arc::new(kernel),
            target: "gfx1036".into(),
            mode,
            dispatch: String::new(),
            lanes: vec![],
            independent_groups: false,
            addresses: None,
        };
        let model = reference_model::exec::ModelBackend {
            limits: reference_model::exec::Limits {
                instructions: 20_000,
                ..Default::default()
            },
        };
        f.dispatched += 1;
        match model.run(&job) {
            Ok(o) => {
                // Every array as the dispatch left it, back where the GPU found it.
                for a in &seen {
                    let now = o.array(a.name).unwrap();
                    assert_eq!(now.len(), a.dwords.len());
                    // SAFETY: checked above: the array's dwords lie in its allocation.
                    unsafe {
                        std::ptr::copy_nonoverlapping(now.as_ptr(), a.at as *mut u32, now.len())
                    };
                }
                *f.signals.get_mut(&completion).unwrap() -= 1;
            }
            Err(measurements::BackendError::Timeout { .. }) => f.hung += 1,
            Err(_) => {
                if let Some(cb) = callback {
                    // SAFETY: the dispatcher's callback with its data.
                    unsafe { cb(ERROR, std::ptr::null_mut(), data as *mut c_void) };
                }
            }
        }
        let fq = f.queues.get_mut(&queue).unwrap();
        fq.ring[slot].0[0] = 1;
        fq.read += 1;
    }
}

fn api() -> Api {
    Api {
        hsa_init: init,
        hsa_shut_down: shut_down,
        hsa_status_string: status_string,
        hsa_system_get_info: system_get_info,
        hsa_iterate_agents: iterate_agents,
        hsa_agent_get_info: agent_get_info,
        hsa_amd_agent_iterate_memory_pools: iterate_pools,
        hsa_amd_memory_pool_get_info: pool_get_info,
        hsa_amd_memory_pool_allocate: pool_allocate,
        hsa_amd_memory_pool_free: pool_free,
        hsa_amd_agents_allow_access: allow_access,
        hsa_queue_create: queue_create,
        hsa_queue_destroy: queue_destroy,
        hsa_queue_add_write_index_screlease: add_write_index,
        hsa_queue_load_read_index_scacquire: load_read_index,
        hsa_signal_create: signal_create,
        hsa_signal_destroy: signal_destroy,
        hsa_signal_store_screlease: signal_store,
        hsa_signal_wait_scacquire: signal_wait,
        hsa_code_object_reader_create_from_memory: reader_create,
        hsa_code_object_reader_destroy: reader_destroy,
        hsa_executable_create_alt: executable_create,
        hsa_executable_load_agent_code_object: load_code_object,
        hsa_executable_freeze: freeze,
        hsa_executable_get_symbol_by_name: get_symbol,
        hsa_executable_symbol_get_info: symbol_get_info,
        hsa_executable_destroy: executable_destroy,
    }
}

fn have_llvm_mc() -> bool {
    let ok = std::process::Command::new("llvm-mc-19")
        .arg("--version")
        .output()
        .is_ok()
        || Path::new("/usr/lib/llvm-19/bin/llvm-mc").exists();
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "CI needs llvm-mc-19 (Debian llvm-19)"
    );
    ok
}

fn template(name: &str) -> templates::Template {
    templates::bundled()
        .unwrap()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap()
}

/// Collects `t` through the stand-in (into `dir/hsa`) and, with `model`, on the model (into `dir/model`).
fn both(
    t: &templates::Template,
    dir: &Path,
    timeout: Duration,
    model: bool,
    jobs: usize,
) -> (co::Summary, PathBuf, PathBuf, Vec<u8>) {
    let rt = hsa::Runtime::with_api(api(), Path::new("stand-in"));
    let session = rt.init().unwrap();
    let agents = session.rdna_agents().unwrap();
    assert_eq!(agents[0].name, "gfx1036");
    let device = Device::open(&session, &agents[0], timeout).unwrap();
    assert!(
        device
            .fingerprint()
            .contains("Stand-in Radeon (gfx1036), HSA 1.1, ROCr stand-in 0.1"),
        "{}",
        device.fingerprint()
    );
    let (hw, dry) = (dir.join("hsa"), dir.join("model"));
    let s = co::collect(
        t,
        &co::Target::Hsa { device: &device },
        &hw,
        false,
        Shard::ALL,
        jobs,
        &mut |_, _| {},
    )
    .unwrap();
    drop(device);
    if model {
        let model = reference_model::exec::ModelBackend::default();
        let m = co::collect(
            t,
            &co::Target::Model {
                chip: "gfx1036".into(),
                backend: &model,
            },
            &dry,
            false,
            Shard::ALL,
            2,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(m.failed.is_empty());
    }
    let versions = with(|f| std::mem::take(&mut f.loaded_versions));
    (s, hw, dry, versions)
}

/// Every row of `hw` has the ID, inputs and cells of the same row of `dry`.
fn same_rows(hw: &Path, dry: &Path) -> usize {
    let (h, d) = (
        Dataset::load(&[hw.to_path_buf()]).unwrap(),
        Dataset::load(&[dry.to_path_buf()]).unwrap(),
    );
    assert_eq!(h.row_count(), d.row_count());
    let (hs, ds) = (
        h.suites.values().next().unwrap(),
        d.suites.values().next().unwrap(),
    );
    for (id, r) in &hs.rows {
        let m = &ds.rows[id].row;
        assert_eq!(r.row.evidence, Evidence::Hardware);
        assert_eq!(m.evidence, Evidence::Model);
        assert!(
            r.row.source.contains("--backend hsa") && r.row.source.contains("gfx1036"),
            "{}",
            r.row.source
        );
        assert_eq!(
            (&r.row.inputs, &r.row.cells),
            (&m.inputs, &m.cells),
            "row {id}"
        );
    }
    h.row_count()
}

fn setup(refuse_v5: bool) -> MutexGuard<'static, ()> {
    let g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *fake() = Some(Fake {
        refuse_v5,
        ..Default::default()
    });
    g
}

#[test]
fn hsa_rows_equal_the_models_id_for_id_in_both_wave_sizes() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    let t = template("cross-lane");
    let (s, hw, dry, versions) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!(s.ran, t.cases().len());
    assert_eq!(same_rows(&hw, &dry), s.rows);
    // One executable per kernel and mode, loaded as v5.
    assert!(
        !versions.is_empty() && versions.iter().all(|&v| v == 5),
        "{versions:?}"
    );
    with(|f| {
        assert_eq!(f.dispatched, t.cases().len());
        assert!(f.allocations.is_empty(), "every buffer is freed");
        assert!(
            f.executables.is_empty()
                && f.queues.is_empty()
                && f.signals.is_empty()
                && f.readers.is_empty(),
            "the device cleans up: executables {}, queues {}, signals {}, readers {}",
            f.executables.len(),
            f.queues.len(),
            f.signals.len(),
            f.readers.len()
        );
    });
}

#[test]
fn float_modes_reach_the_descriptor_and_v4_is_loaded_where_v5_is_refused() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(true);
    let tmp = tempfile::tempdir().unwrap();
    // MODE itself is an output: a descriptor whose float fields were not the mode's gives other rows.
    let text = r#"
name = "mode-probe"
about = "the MODE register and a sum near the denormals in several modes"
settles = []
body = """
s_getreg_b32 s20, hwreg(HW_REG_MODE, 0, 32)
v_mov_b32 v10, s20
v_add_f32 v11, v4, v5
v_mul_f32 v12, v4, v5
"""
outputs = 3
waves = [32, 64]
operands = [["f32"], ["f32"]]
modes = ["c0/0/1/0", "f0/1/1/0", "03/1/0/1", "30/0/0/0", "c2/1/1/0"]
"#;
    let t = templates::Template::parse("mode-probe.toml", text).unwrap();
    let (s, hw, dry, versions) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!(same_rows(&hw, &dry), s.rows);
    assert!(
        !versions.is_empty() && versions.iter().all(|&v| v == 4),
        "{versions:?}"
    );
}

#[test]
fn a_dispatch_that_never_finishes_is_abandoned_and_the_next_runs_on_a_new_queue() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    // A wave holding the input 5 spins forever; the stand-in's model gives up and never signals, as a GPU
    // running the loop would. `shift` is 0..=70: the first chunk of 64 lanes holds 5, the second does not.
    let text = r#"
name = "spin"
about = "a loop that never ends in a wave holding the input 5"
settles = []
body = """
v_cmp_eq_u32 vcc_lo, 5, v4
s_cbranch_vccz 1
s_branch -1
v_mov_b32 v10, v4
"""
outputs = 1
lanes = 64
operands = [["shift"]]
"#;
    let t = templates::Template::parse("spin.toml", text).unwrap();
    assert!(t.cases().len() >= 2);
    let (s, hw, _dry, _) = both(&t, tmp.path(), Duration::from_millis(300), false, 1);
    assert_eq!(s.failed.len(), 1, "{:?}", s.failed);
    assert!(
        s.failed[0].contains("did not finish within 0.3 s: abandoned"),
        "{}",
        s.failed[0]
    );
    with(|f| {
        assert_eq!(f.hung, 1);
        assert_eq!(f.queues_made, 2, "a new queue after the abandoned one");
        // The GPU may still run the abandoned dispatch: its queue, completion signal and buffers (two arrays
        // and the kernel arguments) stay; the second queue, its signal and its buffers are gone with the device.
        assert_eq!(f.queues.len(), 1, "the abandoned queue is left alone");
        assert_eq!(f.signals.len(), 2, "its doorbell and completion signal");
        assert_eq!(f.allocations.len(), 3, "its buffers");
        assert!(f.executables.is_empty() && f.readers.is_empty());
    });
    // In order (one job at a time): the hung first chunk, then the second on a new queue, whose rows are
    // written: lanes 64..70 copy their input.
    let ds = Dataset::load(&[hw]).unwrap();
    let suite = ds.suites.values().next().unwrap();
    assert_eq!(suite.rows.len(), 7);
    assert!(suite
        .rows
        .values()
        .all(|r| r.row.cells[0].value == r.row.inputs[0]));
}

/// A template with buffers whose V#s the template declares: a short `in` (NUM_RECORDS 40), a swizzled
/// `scratch` V# of its own stride, INDEX_STRIDE, format and DST_SEL, a fill, and a load of the `scratch`
/// address from s[8:9]. Lane i (its index) stores at (i / 16) * 128 + (i % 16) * 4 (stride 8, 16 lanes, 4-byte
/// elements): every lane its own dword, each 16-lane block's 64 bytes followed by 64 bytes of fill, and a
/// lane's 8-byte slot written only by lanes of its own wave.
const DECLARED: &str = r#"
name = "declared-v-sharps"
about = "the V# fields a template declares reach the kernel"
settles = []
body = """
buffer_load_dword v10, v1, s[12:15], 0 offen
buffer_load_format_xyzw v[11:14], v1, s[12:15], 0 offen
v_mov_b32 v8, v0
v_mov_b32 v9, 0
buffer_store_dword v4, v[8:9], s[16:19], 0 idxen offen
s_waitcnt_vscnt null, 0x0
global_load_dwordx2 v[15:16], v2, s[8:9] glc dlc
buffer_load_format_xyzw v[17:20], v[8:9], s[16:19], 0 idxen offen glc dlc
s_waitcnt vmcnt(0)
"""
outputs = 11
waves = [32, 64]
operands = [["random:100:9"], ["random:100:10"]]
combine = "zip"
modes = ["c0/0/1/0", "f0/1/1/0"]

[buffers]
scratch_bytes = 8
fill = "a5a5a5a5"

[buffers.in]
format = 56
dst_sel = "wzyx"
records = 40

[buffers.scratch]
stride = 8
swizzle = true
index_stride = 16
format = 13
dst_sel = "xy01"
"#;

#[test]
fn buffer_templates_set_up_their_arrays_and_v_sharps_as_the_model_does() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    // A bundled template with a scratch array, its fill and a V# changed per wave, a dispatch with a padded
    // wave; and one declaring every V# field.
    for t in [
        template("buffer-store-zero-fill"),
        templates::Template::parse("declared.toml", DECLARED).unwrap(),
    ] {
        // A fresh stand-in for each (the previous device's executables are gone).
        *fake() = Some(Fake::default());
        let tmp = tempfile::tempdir().unwrap();
        let (s, hw, dry, _) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, true, 2);
        assert!(s.failed.is_empty(), "{}: {:?}", t.name, s.failed);
        assert_eq!(s.ran, t.cases().len());
        assert_eq!(same_rows(&hw, &dry), s.rows, "{}", t.name);
        assert!(s.rows > 0);
        with(|f| assert!(f.allocations.is_empty(), "every buffer is freed"));
    }
    // The rows are not trivially equal: the fill shows where nothing was stored, and lanes past the short
    // `in` read zeros.
    *fake() = Some(Fake::default());
    let tmp = tempfile::tempdir().unwrap();
    let t = templates::Template::parse("declared.toml", DECLARED).unwrap();
    let (_, hw, _, _) = both(&t, tmp.path(), dispatch::DEFAULT_TIMEOUT, false, 1);
    let ds = Dataset::load(&[hw]).unwrap();
    let rows = &ds.suites.values().next().unwrap().rows;
    let lane = |l: u32| {
        rows.values()
            .find(|r| r.row.lane == l && r.row.kernel.contains("-w32-"))
            .unwrap()
            .row
            .cells
            .iter()
            .map(|c| c.value)
            .collect::<Vec<u32>>()
    };
    let (l0, l3, l8) = (lane(0), lane(3), lane(8));
    assert_ne!(l0[0], 0, "lane 0 lies within NUM_RECORDS 40");
    assert_eq!(l3[..5], [0; 5], "lane 3's element lies past NUM_RECORDS 40");
    assert_eq!(
        l8[5..7],
        [0xa5a5_a5a5; 2],
        "nothing is stored in lane 8's slot"
    );
    assert!(
        !l0[5..7].contains(&0xa5a5_a5a5),
        "lanes 0 and 1 store in lane 0's slot"
    );
}

/// `conformance --backend hsa` opens its GPU with [`Device::open_for_process`]: through the stand-in, the rows
/// `oracle collect --backend hsa` wrote verify bit for bit on the model and on the GPU, a bundled peer suite
/// (another ABI, another target) is unsupported there with the reason, and an agent name that matches none is
/// an error listing the agents.
#[test]
fn conformance_verifies_collected_rows_on_the_hsa_backend() {
    if !have_llvm_mc() {
        return;
    }
    let _g = setup(false);
    let tmp = tempfile::tempdir().unwrap();
    let (s, hw, _dry, _) = both(
        &template("cross-lane"),
        tmp.path(),
        dispatch::DEFAULT_TIMEOUT,
        false,
        2,
    );
    assert!(s.failed.is_empty() && s.rows > 0, "{:?}", s.failed);
    let stand_in = || hsa::Runtime::with_api(api(), Path::new("stand-in"));
    let e = Device::open_for_process(stand_in(), Some("gfx1013"), dispatch::DEFAULT_TIMEOUT)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "no RDNA GPU agent is named like `gfx1013`: the runtime lists gfx1036 (Stand-in Radeon)"
    );
    for selector in [None, Some("GFX1036"), Some("stand-in radeon")] {
        let device =
            Device::open_for_process(stand_in(), selector, dispatch::DEFAULT_TIMEOUT).unwrap();
        assert_eq!(device.name(), "hsa:gfx1036");
        let peer =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../measurements/data/peer-read-lane");
        let ds = Dataset::load(&[hw.clone(), peer]).unwrap();
        let backends: Vec<Box<dyn Backend>> = vec![
            Box::new(reference_model::exec::ModelBackend::default()),
            Box::new(device),
        ];
        let v = conformance::verify(&ds, &backends, &conformance::Options::default(), |_| {});
        let on = |b: usize, suite: &str| {
            v.backends[b]
                .suites
                .iter()
                .find(|x| x.suite == suite)
                .unwrap_or_else(|| panic!("{suite} on {}", v.backends[b].name))
                .counts
        };
        let collected = on(1, "oracle-cross-lane");
        assert!(collected.cells > 0);
        assert_eq!(
            collected,
            on(0, "oracle-cross-lane"),
            "the GPU as the model"
        );
        assert_eq!(collected.matched, collected.cells, "{collected:?}");
        let peer = on(1, "peer-read-lane");
        assert_eq!(peer.unsupported, peer.cells, "{peer:?}");
        // The same kernel for another chip: unsupported, with the reason.
        let suite = &ds.suites["oracle-cross-lane"];
        let job = measurements::Job {
            suite: "oracle-cross-lane".into(),
            kernel: std::sync::Arc::new(suite.kernels.kernels[0].clone()),
            target: "gfx1030".into(),
            mode: FloatMode::TITLE,
            dispatch: "0000000000000000".into(),
            lanes: vec![(0, vec![0; 2])],
            independent_groups: false,
            addresses: None,
        };
        match backends[1].run(&job) {
            Err(measurements::BackendError::Unsupported { reason, .. }) => assert_eq!(
                reason,
                "this GPU is gfx1036; the hsa backend runs the rows of its own target only"
            ),
            other => panic!("{other:?}"),
        }
        assert!(peer.cells > 0 && on(0, "peer-read-lane").matched == peer.cells);
    }
    with(|f| {
        assert!(f.allocations.is_empty(), "every buffer is freed");
        assert!(f.queues.is_empty() && f.executables.is_empty());
    });
}
