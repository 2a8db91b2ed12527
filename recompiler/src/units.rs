//! Guest-memory access: loads inline in their lane, and the store unit, emitted once per module as
//! dispatcher segments that every store calls (it leaves its request in function variables, jumps to the
//! unit, and the unit jumps back to the store's continuation).
//!
//! Why a unit: every storage-buffer write site costs host compilers (lavapipe's most of all) time that grows
//! with the size of the whole module, so a kernel with tens of stores took minutes to compile when each
//! store carried its own address lookup and write loop (60 dword stores: 26 s on lavapipe; with the unit
//! 3.9 s). A call costs two dispatcher iterations; a store's two barriers are the unit's.

use crate::compile::Cx;
use crate::layout;
use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::spv::{Array, Emit, Sv};
use rspirv::spirv::Word;

/// Pieces one store request carries (dwordx4).
pub(crate) const STORE_PIECES: u32 = 4;
/// Exchange words per store piece: its buffer offset and its data.
const PIECE_WORDS: u32 = 2;
/// The offset of a piece that writes nothing (inactive lane, or dropped by a range check).
const SKIP: u32 = u32::MAX;

/// The function variables of a request, and the units' segment ids.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Units {
    /// Guest address of each piece (u64).
    addr: [Word; STORE_PIECES as usize],
    /// Whether the piece is accessed (u32 0/1): the lane is active and the range check passed.
    go: [Word; STORE_PIECES as usize],
    /// Store data of each piece.
    data: [Word; STORE_PIECES as usize],
    /// Pieces in the request.
    n: Word,
    /// Bytes per piece: 1, 2 or 4.
    bytes: Word,
    /// The segment to continue at.
    ret: Word,
    /// The instruction's word index, for fault reports.
    pc: Word,
    /// Segment id of the store unit.
    store_id: u32,
}

impl Units {
    /// Declares the request variables.
    pub(crate) fn new(e: &mut Emit, store_id: u32) -> Units {
        let mut v32 = || e.local(Ty::I32);
        let go = std::array::from_fn(|_| v32());
        let data = std::array::from_fn(|_| v32());
        let n = v32();
        let bytes = v32();
        let ret = v32();
        let pc = v32();
        let addr = std::array::from_fn(|_| e.local(Ty::I64));
        Units {
            addr,
            go,
            data,
            n,
            bytes,
            ret,
            pc,
            store_id,
        }
    }
}

/// Leaves a store request of `pieces` (address, go) of `bytes` each in the request variables, with the
/// continuation segment `ret` and the pc.
fn request(cx: &mut Cx, pieces: &[(Sv, Sv)], bytes: u32, pc: usize, ret: u32) {
    let u = cx.units;
    for (i, (a, g)) in pieces.iter().enumerate() {
        cx.put(u.addr[i], *a);
        let g = cx.e.b2i(*g, Ty::I32);
        cx.put(u.go[i], g);
    }
    let n = cx.e.k32(pieces.len() as u32);
    cx.put(u.n, n);
    let b = cx.e.k32(bytes);
    cx.put(u.bytes, b);
    let r = cx.e.k32(ret);
    cx.put(u.ret, r);
    let p = cx.e.k32(pc as u32);
    cx.put(u.pc, p);
}

/// Loads `bytes` (1, 2 or 4) at each piece's address in this lane, inline: a piece that does not `go` reads
/// 0, one outside every region faults the job. (Loads stay in their segment: measured on lavapipe, a call
/// into a unit costs more compile time than the load it replaces.)
pub(crate) fn load(cx: &mut Cx, pieces: &[(Sv, Sv)], bytes: u32, pc: usize) -> Vec<Sv> {
    let len = cx.e.k32(bytes);
    let pcv = cx.e.k32(pc as u32);
    let mut out = Vec::with_capacity(pieces.len());
    for &(addr, go) in pieces {
        let off = locate(cx, addr, len);
        let none = cx.e.k32(u32::MAX);
        let missing = cx.e.cmp(Cmp::Eq, off, none);
        let bad = cx.e.band(missing, go);
        let lo = cx.e.trunc(addr);
        let hi = cx.e.hi(addr);
        cx.report_if(bad, layout::FAULT, pcv, lo, hi);
        let found = cx.e.bnot(missing);
        let ok = cx.e.band(go, found);
        let z = cx.e.k32(0);
        let safe = cx.e.select(ok, off, z);
        let mem = cx.mem;
        let v = read_bytes(&mut cx.e, mem, safe, len);
        out.push(cx.e.select(ok, v, z));
    }
    out
}

/// Stores each piece's `bytes` of data at its address, in the store unit: every lane's pieces in ascending
/// lane order, as the model does. A piece that does not `go` writes nothing, one outside every region
/// faults the job. Ends the current segment and continues in a new one.
pub(crate) fn store(cx: &mut Cx, pieces: &[(Sv, Sv, Sv)], bytes: u32, pc: usize) {
    assert!(
        pieces.len() <= STORE_PIECES as usize,
        "store request too large"
    );
    let ret = cx.new_seg();
    let ag: Vec<(Sv, Sv)> = pieces.iter().map(|(a, g, _)| (*a, *g)).collect();
    request(cx, &ag, bytes, pc, ret);
    for (i, (_, _, d)) in pieces.iter().enumerate() {
        cx.put(cx.units.data[i], *d);
    }
    let unit = cx.e.k32(cx.units.store_id);
    cx.end_case(unit, false);
    cx.begin_case(ret);
}

/// The guest-memory offset of the `len` bytes at `addr`, all ones when no region holds them wholly.
pub(crate) fn locate(cx: &mut Cx, addr: Sv, len: Sv) -> Sv {
    let regions = cx.regions;
    let e = &mut cx.e;
    let mut cur = e.k32(u32::MAX);
    let l64 = e.zext(len);
    let a_end = e.bin(Bin::Add, addr, l64);
    // addr + len must not wrap.
    let nowrap = e.cmp(Cmp::UGe, a_end, addr);
    // Unrolled over the launch's regions, which are constants: a few compares each, and no loop that could
    // count against a host loop limit.
    for r in regions {
        let start = e.k64(r.base);
        let end = e.k64(r.base + r.bytes as u64);
        let ge = e.cmp(Cmp::UGe, addr, start);
        let le = e.cmp(Cmp::ULe, a_end, end);
        let inside = e.band(ge, le);
        let inside = e.band(inside, nowrap);
        let rel = e.bin(Bin::Sub, addr, start);
        let rel = e.trunc(rel);
        let at = e.bink(Bin::Add, rel, r.offset as u64);
        cur = e.select(inside, at, cur);
    }
    cur
}

/// The mask of the low `len` (1, 2 or 4) bytes, 64-bit.
fn byte_mask(e: &mut Emit, len: Sv) -> Sv {
    let bits = e.bink(Bin::Mul, len, 8);
    let bits = e.zext(bits);
    let one = e.k64(1);
    let m = e.bin(Bin::Shl, one, bits);
    e.bink(Bin::Sub, m, 1)
}

/// Reads `len` (1, 2 or 4) bytes at byte offset `off` of `arr`, little-endian, any alignment (the arrays
/// have a dword of slack at the end).
pub(crate) fn read_bytes(e: &mut Emit, arr: Array, off: Sv, len: Sv) -> Sv {
    let w = e.bink(Bin::LShr, off, 2);
    let sh = e.bink(Bin::And, off, 3);
    let sh = e.bink(Bin::Mul, sh, 8);
    let sh64 = e.zext(sh);
    let w1 = e.bink(Bin::Add, w, 1);
    let p0 = e.elem(arr, w.id);
    let p1 = e.elem(arr, w1.id);
    let lo = e.load32(p0);
    let hi = e.load32(p1);
    let both = e.pack(lo, hi);
    let v = e.bin(Bin::LShr, both, sh64);
    let m = byte_mask(e, len);
    let v = e.bin(Bin::And, v, m);
    e.trunc(v)
}

/// Writes the low `len` (1, 2 or 4) bytes of `v` at byte offset `off` of `arr` when `cond`, any alignment:
/// one read-modify-write of the two dwords the bytes can touch (the second rewritten with its own value when
/// untouched: no branch, and only one lane writes at a time).
pub(crate) fn write_bytes(e: &mut Emit, arr: Array, cond: Sv, off: Sv, len: Sv, v: Sv) {
    let z = e.k32(0);
    let off = e.select(cond, off, z);
    let w = e.bink(Bin::LShr, off, 2);
    let sh = e.bink(Bin::And, off, 3);
    let sh = e.bink(Bin::Mul, sh, 8);
    let sh64 = e.zext(sh);
    let w1 = e.bink(Bin::Add, w, 1);
    let p0 = e.elem(arr, w.id);
    let p1 = e.elem(arr, w1.id);
    let lo = e.load32(p0);
    let hi = e.load32(p1);
    let old = e.pack(lo, hi);
    let ones = byte_mask(e, len);
    let m = e.bin(Bin::Shl, ones, sh64);
    let val = e.zext(v);
    let val = e.bin(Bin::And, val, ones);
    let val = e.bin(Bin::Shl, val, sh64);
    let nm = e.un(crate::lower::Un::Not, m);
    let kept = e.bin(Bin::And, old, nm);
    let new = e.bin(Bin::Or, kept, val);
    let new = e.select(cond, new, old);
    let nlo = e.trunc(new);
    let nhi = e.hi(new);
    e.store(p0, nlo);
    e.store(p1, nhi);
}

/// Emits the store unit's segments: each lane locates its pieces and publishes them, the wave's first lane
/// writes every lane's in lane order after a barrier, and a second barrier makes the writes visible to every
/// lane before the wave goes on.
pub(crate) fn emit_store_unit(cx: &mut Cx) {
    let u = cx.units;
    cx.begin_case(u.store_id);
    let n = cx.get(u.n);
    let bytes = cx.get(u.bytes);
    let pc = cx.get(u.pc);
    for i in 0..STORE_PIECES as usize {
        let addr = cx.e.load(u.addr[i], Ty::I64);
        let go = cx.get(u.go[i]);
        let go = cx.e.nz(go);
        let k = cx.e.k32(i as u32);
        let used = cx.e.cmp(Cmp::ULt, k, n);
        let go = cx.e.band(go, used);
        let off = locate(cx, addr, bytes);
        let none = cx.e.k32(u32::MAX);
        let missing = cx.e.cmp(Cmp::Eq, off, none);
        let bad = cx.e.band(missing, go);
        let lo = cx.e.trunc(addr);
        let hi = cx.e.hi(addr);
        cx.report_if(bad, layout::FAULT, pc, lo, hi);
        let skip = cx.e.k32(SKIP);
        let at = cx.e.select(go, off, skip);
        cx.publish(PIECE_WORDS * i as u32, at);
        let d = cx.get(u.data[i]);
        cx.publish(PIECE_WORDS * i as u32 + 1, d);
    }
    cx.cut();
    // Values of the segment before the cut are gone: read the request again.
    let bytes = cx.get(u.bytes);
    let lane0 = cx.e.k32(0);
    let leader = cx.e.cmp(Cmp::Eq, cx.lane, lane0);
    let lanes = cx.shape.wave;
    let base = cx.slot_word(0);
    let xch = cx.xch;
    let mem = cx.mem;
    cx.e.if_then(leader, |e| {
        let k = e.k32(lanes);
        e.for_range(k, |e, l| {
            let lw = e.bink(Bin::Mul, l, crate::compile::XW as u64);
            let lw = e.bin(Bin::Add, base, lw);
            for i in 0..STORE_PIECES {
                let ia = e.bink(Bin::Add, lw, (PIECE_WORDS * i) as u64);
                let pa = e.elem(xch, ia.id);
                let at = e.load32(pa);
                let id = e.bink(Bin::Add, ia, 1);
                let pd = e.elem(xch, id.id);
                let d = e.load32(pd);
                let skip = e.k32(SKIP);
                let go = e.cmp(Cmp::Ne, at, skip);
                write_bytes(e, mem, go, at, bytes, d);
            }
        });
    });
    cx.cut();
    cx.next_slot();
    let r = cx.get(u.ret);
    cx.end_case(r, false);
}
