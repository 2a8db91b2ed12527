//! A stand-in ROCr for the tests: the hsa.h functions `oracle_runner::hsa::Api` names, implemented over the
//! reference model (agents, memory pools, code object loading, a queue whose packet processor runs each AQL
//! packet on the model, signals). It is FFI code by nature (C-ABI callbacks writing through the caller's
//! pointers), so its `unsafe` lives here, each block with its safety reason; the tests in `dispatch.rs` only
//! call its safe helpers.

use measurements::hex::HexDword;
use measurements::kernel::{Array, Init, Kernel};
use measurements::{Backend, FloatMode, Job};
use oracle_runner::hsa::{self, Api, Handle, Queue, Status};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

pub const OK: Status = 0;
pub const ERROR: Status = 0x1000;
pub const INVALID_ARGUMENT: Status = 0x1001;
pub const INVALID_CODE_OBJECT: Status = 0x1010;
pub const CPU: u64 = 1;
pub const GPU: u64 = 2;
pub const KERNARG_POOL: u64 = 10;
pub const FINE_POOL: u64 = 11;
pub const VRAM_POOL: u64 = 20;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct Slot(pub [u8; 64]);

pub struct FakeQueue {
    pub queue: Box<Queue>,
    pub ring: Vec<Slot>,
    pub read: u64,
    pub write: u64,
    pub callback: Option<hsa::QueueCallback>,
    pub data: usize,
}

pub struct Loaded {
    pub image: Vec<Slot>,
    /// name -> (vaddr, size)
    pub symbols: HashMap<String, (u64, u64)>,
}

#[derive(Default)]
pub struct Fake {
    pub refuse_v5: bool,
    /// base -> (memory, pool, GPU access, bytes asked for)
    pub allocations: HashMap<usize, (Vec<Slot>, u64, bool, usize)>,
    pub signals: HashMap<u64, i64>,
    pub queues: HashMap<u64, FakeQueue>,
    pub readers: HashMap<u64, Vec<u8>>,
    pub executables: HashMap<u64, Vec<Loaded>>,
    pub symbols: HashMap<u64, (u64, String)>,
    pub next: u64,
    pub loaded_versions: Vec<u8>,
    pub dispatched: usize,
    pub queues_made: usize,
    pub hung: usize,
}

// SAFETY: the queues' raw ring pointers point into rings the state owns; all access is under the mutex.
unsafe impl Send for Fake {}

pub static FAKE: Mutex<Option<Fake>> = Mutex::new(None);
/// Tests share the stand-in's state, so they run one at a time.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub fn fake() -> MutexGuard<'static, Option<Fake>> {
    FAKE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn with<R>(f: impl FnOnce(&mut Fake) -> R) -> R {
    f(fake().as_mut().expect("the stand-in runtime is set up"))
}

pub fn handle(f: &mut Fake) -> u64 {
    f.next += 1;
    1000 + f.next
}

pub unsafe extern "C" fn init() -> Status {
    OK
}
pub unsafe extern "C" fn shut_down() -> Status {
    OK
}
pub unsafe extern "C" fn status_string(_s: Status, out: *mut *const c_char) -> Status {
    // SAFETY: the caller passes a pointer to write the static text's address into.
    unsafe { *out = c"stand-in runtime error".as_ptr() };
    OK
}
pub unsafe extern "C" fn system_get_info(attr: u32, value: *mut c_void) -> Status {
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
pub unsafe extern "C" fn iterate_agents(cb: hsa::AgentCallback, data: *mut c_void) -> Status {
    for a in [CPU, GPU] {
        // SAFETY: the caller's callback with its data.
        let s = unsafe { cb(Handle { handle: a }, data) };
        if s != OK {
            return s;
        }
    }
    OK
}
pub unsafe extern "C" fn agent_get_info(a: Handle, attr: u32, value: *mut c_void) -> Status {
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
        // SAFETY: DEVICE is a uint32_t attribute, written into the caller's 32-bit variable.
        17 => unsafe { *(value as *mut u32) = u32::from(gpu) },
        // SAFETY: QUEUE_MIN_SIZE is a uint32_t attribute.
        13 if gpu => unsafe { *(value as *mut u32) = 64 },
        // SAFETY: UCODE_VERSION is a uint32_t attribute.
        0xA108 if gpu => unsafe { *(value as *mut u32) = 123 },
        _ => return INVALID_ARGUMENT,
    }
    OK
}
pub unsafe extern "C" fn iterate_pools(
    a: Handle,
    cb: hsa::PoolCallback,
    data: *mut c_void,
) -> Status {
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
pub unsafe extern "C" fn pool_get_info(p: Handle, attr: u32, value: *mut c_void) -> Status {
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
pub unsafe extern "C" fn pool_allocate(
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
pub unsafe extern "C" fn pool_free(p: *mut c_void) -> Status {
    with(|f| {
        if f.allocations.remove(&(p as usize)).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
pub unsafe extern "C" fn allow_access(
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
pub unsafe extern "C" fn queue_create(
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
pub unsafe extern "C" fn queue_destroy(q: *mut Queue) -> Status {
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
pub unsafe extern "C" fn add_write_index(q: *const Queue, n: u64) -> u64 {
    // SAFETY: a queue this stand-in made.
    let id = unsafe { (*q).doorbell_signal.handle };
    with(|f| {
        let fq = f.queues.get_mut(&id).expect("a live queue");
        let old = fq.write;
        fq.write += n;
        old
    })
}
pub unsafe extern "C" fn load_read_index(q: *const Queue) -> u64 {
    // SAFETY: a queue this stand-in made.
    let id = unsafe { (*q).doorbell_signal.handle };
    with(|f| f.queues[&id].read)
}
pub unsafe extern "C" fn signal_create(
    v: i64,
    _n: u32,
    _c: *const Handle,
    out: *mut Handle,
) -> Status {
    with(|f| {
        let h = handle(f);
        f.signals.insert(h, v);
        // SAFETY: the caller's out-pointer.
        unsafe { *out = Handle { handle: h } };
        OK
    })
}
pub unsafe extern "C" fn signal_destroy(s: Handle) -> Status {
    with(|f| {
        if f.signals.remove(&s.handle).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
pub unsafe extern "C" fn signal_store(s: Handle, v: i64) {
    let mut g = fake();
    let f = g.as_mut().expect("set up");
    f.signals.insert(s.handle, v);
    if f.queues.contains_key(&s.handle) {
        process(f, s.handle);
    }
}
pub unsafe extern "C" fn signal_wait(
    s: Handle,
    cond: u32,
    cmp: i64,
    timeout: u64,
    _state: u32,
) -> i64 {
    assert_eq!(cond, 2, "the dispatcher waits for LT");
    let v = with(|f| f.signals[&s.handle]);
    if v >= cmp {
        // Never completes: the wait takes its timeout (ticks at 1 GHz), as a hung dispatch's does.
        std::thread::sleep(Duration::from_nanos(timeout.min(50_000_000)));
    }
    v
}
pub unsafe extern "C" fn reader_create(p: *const c_void, n: usize, out: *mut Handle) -> Status {
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
pub unsafe extern "C" fn reader_destroy(r: Handle) -> Status {
    with(|f| {
        if f.readers.remove(&r.handle).is_some() {
            OK
        } else {
            INVALID_ARGUMENT
        }
    })
}
pub unsafe extern "C" fn executable_create(
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
pub fn load_elf(bytes: &[u8], refuse_v5: bool) -> Result<Loaded, Status> {
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
pub unsafe extern "C" fn load_code_object(
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
pub unsafe extern "C" fn freeze(_e: Handle, _o: *const c_char) -> Status {
    OK
}
pub unsafe extern "C" fn get_symbol(
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
pub fn symbol_address(f: &Fake, e: u64, name: &str) -> (usize, u64) {
    let l = f.executables[&e]
        .iter()
        .find(|l| l.symbols.contains_key(name))
        .expect("found");
    (
        l.image.as_ptr() as usize + l.symbols[name].0 as usize,
        l.symbols[name].1,
    )
}
pub unsafe extern "C" fn symbol_get_info(s: Handle, attr: u32, value: *mut c_void) -> Status {
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
pub unsafe extern "C" fn executable_destroy(e: Handle) -> Status {
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

pub fn dwords(p: usize, n: usize) -> Vec<u32> {
    // SAFETY: the caller checked that `n` dwords at `p` lie in one allocation.
    unsafe { std::slice::from_raw_parts(p as *const u32, n) }.to_vec()
}

/// The allocation holding `bytes` at `p`, as (pool, GPU access).
pub fn region(f: &Fake, p: usize, bytes: usize) -> Option<(u64, bool)> {
    f.allocations
        .iter()
        .find_map(|(&base, (_, pool, gpu, size))| {
            (p >= base && p + bytes <= base + size).then_some((*pool, *gpu))
        })
}

/// The bytes from `p` to the end of the allocation holding it: all a kernel could reach of the buffer there.
pub fn extent(f: &Fake, p: usize) -> usize {
    f.allocations
        .iter()
        .find_map(|(&base, (_, _, _, size))| {
            (p >= base && p < base + size).then(|| base + size - p)
        })
        .unwrap_or(0)
}

/// One array the kernel arguments point to: its name, address and contents as the GPU finds them (from the
/// address to the end of its allocation).
pub struct Seen {
    pub name: &'static str,
    pub at: usize,
    pub dwords: Vec<u32>,
}

/// The packet processor: runs every packet up to the doorbell's value on the model.
pub fn process(f: &mut Fake, queue: u64) {
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

pub fn api() -> Api {
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
